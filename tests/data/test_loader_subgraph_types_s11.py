"""PyG's ``subgraph_type`` ('directional' | 'bidirectional' | 'induced') in the neighbour
loaders and ``NeighborSampler``.

'bidirectional' is PyG's ``SamplerOutput.to_bidirectional`` (pure torch: checked against
the real function, run on the directional sample of the same seed). 'induced' goes, in
PyG 2.8, to torch-sparse's ``neighbor_sample(..., directed=False)`` (not installed here):
checked against a line-by-line re-derivation of its C++ loops (``_torch_sparse_*``) with
fan-outs that take every in-edge, where the sample is deterministic.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.node_loader import NodeLoader
from arraygnn.sampler import NeighborSampler, NodeSamplerInput, SamplerOutput
from arraygnn.sampler.base import HeteroSamplerOutput, SubgraphType

ALL = 10  # a fan-out above every in-degree below: every in-edge, in edge-id order


def _data(seed=0, n=9, e=24):
    rng = np.random.default_rng(seed)
    ei = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)])
    ei[:, :3] = [[2, 2, 4], [5, 5, 4]]  # a multi-edge and a self-loop
    x = rng.standard_normal((n, 2)).astype(np.float32)
    return Data(x=x, edge_index=ei, edge_attr=np.arange(e, dtype=np.float32)[:, None] * 10)


def _torch_sparse_induced(ei, n, seeds, hops):
    """torch-sparse's ``sample<replace=false, directed=false>`` with every in-edge taken:
    the seeds (a copy keeps the first position in the map), hop by hop the new sources of
    the frontier's in-edges (CSC order: PyG's ``to_csc`` sorts by destination, stably),
    then every in-edge of every sample whose source is sampled."""
    perm = np.argsort(ei[1], kind="stable")
    colptr = np.concatenate([[0], np.cumsum(np.bincount(ei[1], minlength=n))])
    row = ei[0][perm]
    samples, local = [int(v) for v in seeds], {}
    for i, v in enumerate(samples):
        local.setdefault(v, i)
    begin, end = 0, len(samples)
    for _ in range(hops):
        for i in range(begin, end):
            w = samples[i]
            for off in range(colptr[w], colptr[w + 1]):
                if int(row[off]) not in local:
                    local[int(row[off])] = len(samples)
                    samples.append(int(row[off]))
        begin, end = end, len(samples)
    rows, cols, edges = [], [], []
    for i, w in enumerate(samples):
        for off in range(colptr[w], colptr[w + 1]):
            if int(row[off]) in local:
                rows.append(local[int(row[off])])
                cols.append(i)
                edges.append(int(perm[off]))
    return samples, [rows, cols], edges


def _pyg_bidirectional(batch):
    """PyG's ``SamplerOutput.to_bidirectional`` of a directional batch: (row, col)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import SamplerOutput as PygOut

    ei = torch.as_tensor(batch.edge_index)
    out = PygOut(torch.as_tensor(batch.n_id), ei[0], ei[1], torch.as_tensor(batch.e_id))
    out = out.to_bidirectional()
    assert out.num_sampled_nodes is None and out.num_sampled_edges is None
    return np.stack([out.row.numpy(), out.col.numpy()])


def _check_edge_ids(data, batch):
    """Each bidirectional edge's id is an edge of the graph joining its two ends; the edge
    sampled in that direction when there is one (the first copy); attributes follow it."""
    ends = batch.n_id[batch.edge_index]
    g = data.edge_index[:, batch.e_id]
    assert ((g == ends) | (g == ends[::-1])).all(0).all()
    np.testing.assert_array_equal(batch.edge_attr, data.edge_attr[batch.e_id])


def test_sampler_output_to_bidirectional_matches_pyg():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import SamplerOutput as PygOut

    rng = np.random.default_rng(3)
    for _ in range(20):
        e = int(rng.integers(0, 30))
        row, col = rng.integers(0, 7, e), rng.integers(0, 7, e)
        edge = rng.permutation(100)[:e]
        out = SamplerOutput(np.arange(7), row, col, edge, None, [1, 6], [e])
        got = out.to_bidirectional()
        want = PygOut(torch.arange(7), torch.as_tensor(row), torch.as_tensor(col),
                      torch.as_tensor(edge), None, [1, 6], [e]).to_bidirectional()  # fmt: skip
        np.testing.assert_array_equal(got.row, want.row.numpy())
        np.testing.assert_array_equal(got.col, want.col.numpy())
        assert got.num_sampled_nodes is None and got.num_sampled_edges is None
        assert out.row is row and out.num_sampled_nodes == [1, 6]  # a new object
        # the id: the first copy, forward edges before reversed ones
        pairs = [(int(r), int(c), int(i)) for r, c, i in zip(row, col, edge)]
        pairs += [(int(c), int(r), int(i)) for r, c, i in zip(row, col, edge)]
        first = {}
        for r, c, i in pairs:
            first.setdefault((r, c), i)
        assert [first[(int(r), int(c))] for r, c in zip(got.row, got.col)] == got.edge.tolist()
    kept = out.to_bidirectional(keep_orig_edges=True)
    assert kept.orig_row is row and kept.orig_col is col and kept.num_sampled_nodes == [1, 6]


def test_hetero_sampler_output_to_bidirectional_matches_pyg():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import HeteroSamplerOutput as PygHetero

    rng = np.random.default_rng(0)
    counts = {"a": 5, "b": 4, "c": 3}
    types = [("a", "to", "b"), ("b", "rev_to", "a"), ("a", "near", "a"),
             ("b", "buys", "c"), ("c", "sold", "b"), ("a", "owns", "c")]  # fmt: skip
    row, col, edge = {}, {}, {}
    for et in types:
        e = int(rng.integers(1, 9))
        row[et] = rng.integers(0, counts[et[0]], e)
        col[et] = rng.integers(0, counts[et[2]], e)
        edge[et] = np.arange(e)
    node = {t: np.arange(n) for t, n in counts.items()}
    with pytest.warns(UserWarning, match="'a', 'owns', 'c'"):
        got = HeteroSamplerOutput(node, row, col, edge).to_bidirectional()
    t = {k: torch.as_tensor(v) for k, v in node.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = PygHetero(
            t, {k: torch.as_tensor(v) for k, v in row.items()},
            {k: torch.as_tensor(v) for k, v in col.items()},
            {k: torch.as_tensor(v) for k, v in edge.items()},
        ).to_bidirectional()  # fmt: skip
    for et in types:
        np.testing.assert_array_equal(got.row[et], want.row[et].numpy(), err_msg=str(et))
        np.testing.assert_array_equal(got.col[et], want.col[et].numpy(), err_msg=str(et))
        assert (got.edge[et] is None) == (want.edge[et] is None), et
    assert got.edge[("a", "owns", "c")] is edge[("a", "owns", "c")]


@pytest.mark.parametrize("loader", ["node", "link"])
def test_bidirectional_batches_are_pygs_to_bidirectional_of_the_directional_ones(loader):
    data = _data()
    kw = dict(batch_size=3, shuffle=True, seed=5)
    if loader == "node":
        make = lambda st: NeighborLoader(data, [2, 2], subgraph_type=st, **kw)  # noqa: E731
    else:
        make = lambda st: LinkNeighborLoader(  # noqa: E731
            data, [2, 1], subgraph_type=st, neg_sampling_ratio=1.0, **kw
        )
    for plain, both in zip(make("directional"), make(SubgraphType.bidirectional)):
        np.testing.assert_array_equal(both.n_id, plain.n_id)
        np.testing.assert_array_equal(both.x, plain.x)
        np.testing.assert_array_equal(both.edge_index, _pyg_bidirectional(plain))
        _check_edge_ids(data, both)
        assert "num_sampled_nodes" not in both and "num_sampled_edges" not in both
        if loader == "link":
            np.testing.assert_array_equal(both.edge_label_index, plain.edge_label_index)


def test_induced_batches_match_torch_sparse():
    data = _data()
    n = data.num_nodes
    seeds = np.array([2, 6, 2, 0])  # node 2 twice: both copies get its in-edges
    for fanouts in ([ALL], [ALL, ALL], [-1, -1]):
        loader = NeighborLoader(data, fanouts, input_nodes=seeds, batch_size=4,
                                subgraph_type="induced")  # fmt: skip
        (batch,) = list(loader)
        nodes, ei, edges = _torch_sparse_induced(data.edge_index, n, seeds, len(fanouts))
        assert batch.n_id.tolist() == nodes
        assert batch.edge_index.tolist() == ei and batch.e_id.tolist() == edges
        np.testing.assert_array_equal(batch.edge_attr, data.edge_attr[batch.e_id])
        np.testing.assert_array_equal(batch.x, data.x[batch.n_id])
        assert batch.batch_size == 4 and batch.input_id.tolist() == [0, 1, 2, 3]
        assert "num_sampled_nodes" not in batch and "num_sampled_edges" not in batch
    # sampled fan-outs: the directional sample's nodes, every edge among them
    with pytest.warns(UserWarning, match="'directed' argument in 'NeighborLoader'"):
        old_spelling = NeighborLoader(data, [1, 1], batch_size=2, seed=1, directed=False)
    for plain, induced in zip(NeighborLoader(data, [1, 1], batch_size=2, seed=1), old_spelling):
        np.testing.assert_array_equal(induced.n_id, plain.n_id)
        ends = induced.n_id[induced.edge_index]
        inside = np.isin(data.edge_index, plain.n_id).all(0)
        assert sorted(induced.e_id.tolist()) == np.flatnonzero(inside).tolist()
        np.testing.assert_array_equal(ends, data.edge_index[:, induced.e_id])


def test_link_neighbor_loader_induced():
    data = _data(seed=1)
    loader = LinkNeighborLoader(data, [ALL], batch_size=4, subgraph_type="induced",
                                neg_sampling="triplet", seed=0)  # fmt: skip
    for batch in loader:
        label = data.edge_index[:, batch.input_id]
        assert (batch.n_id[batch.src_index] == label[0]).all()
        assert (batch.n_id[batch.dst_pos_index] == label[1]).all()
        seeds = np.unique(np.concatenate([label[0], label[1], batch.n_id[batch.dst_neg_index]]))
        nodes, ei, edges = _torch_sparse_induced(data.edge_index, data.num_nodes, seeds, 1)
        assert batch.n_id.tolist() == nodes
        assert batch.edge_index.tolist() == ei and batch.e_id.tolist() == edges


def _hetero(seed=0):
    rng = np.random.default_rng(seed)
    counts = {"a": 6, "b": 5, "c": 4}
    data = HeteroData()
    for t, n in counts.items():
        data[t].x = rng.standard_normal((n, 2)).astype(np.float32)
    for et, e in {("a", "to", "b"): 9, ("b", "rev_to", "a"): 9, ("a", "near", "a"): 7,
                  ("b", "buys", "c"): 6, ("c", "sold", "b"): 5}.items():  # fmt: skip
        data[et].edge_index = np.stack(
            [rng.integers(0, counts[et[0]], e), rng.integers(0, counts[et[2]], e)]
        )
        data[et].edge_attr = rng.standard_normal((e, 1)).astype(np.float32)
    return data


def _torch_sparse_hetero_induced(data, input_type, seeds, hops):
    """torch-sparse's ``hetero_sample<false, false>``, every in-edge taken: per hop, edge
    type by edge type, the new sources of the frontier's (fixed per hop) in-edges; then
    per edge type every in-edge of every sampled destination whose source is sampled."""
    csc = {}
    for et in data.edge_types:
        ei = data[et].edge_index
        perm = np.argsort(ei[1], kind="stable")
        n_dst = data[et[2]].num_nodes
        csc[et] = (np.concatenate([[0], np.cumsum(np.bincount(ei[1], minlength=n_dst))]),
                   ei[0][perm], perm)  # fmt: skip
    samples = {t: [] for t in data.node_types}
    local = {t: {} for t in data.node_types}
    samples[input_type] = [int(v) for v in seeds]
    for i, v in enumerate(samples[input_type]):
        local[input_type].setdefault(v, i)
    slices = {t: (0, len(s)) for t, s in samples.items()}
    for _ in range(hops):
        for et in data.edge_types:
            s, _, d = et
            colptr, row, _ = csc[et]
            for i in range(*slices[d]):
                w = samples[d][i]
                for off in range(colptr[w], colptr[w + 1]):
                    if int(row[off]) not in local[s]:
                        local[s][int(row[off])] = len(samples[s])
                        samples[s].append(int(row[off]))
        slices = {t: (slices[t][1], len(samples[t])) for t in samples}
    out = {}
    for et in data.edge_types:
        s, _, d = et
        colptr, row, perm = csc[et]
        rows, cols, edges = [], [], []
        for i, w in enumerate(samples[d]):
            for off in range(colptr[w], colptr[w + 1]):
                if int(row[off]) in local[s]:
                    rows.append(local[s][int(row[off])])
                    cols.append(i)
                    edges.append(int(perm[off]))
        out[et] = ([rows, cols], edges)
    return samples, out


def test_hetero_induced_batches_match_torch_sparse():
    data = _hetero()
    seeds = np.array([1, 3, 1])
    with pytest.warns(UserWarning, match="'directed' argument"):
        old_spelling = NeighborLoader(
            data,
            {et: [-1, -1] for et in data.edge_types},
            input_nodes=("b", seeds),
            batch_size=3,
            directed=False,
        )
    for loader in (
        NeighborLoader(data, [ALL, ALL], input_nodes=("b", seeds), batch_size=3,
                       subgraph_type="induced"),
        old_spelling,
    ):  # fmt: skip
        (batch,) = list(loader)
        nodes, edges = _torch_sparse_hetero_induced(data, "b", seeds, 2)
        for t in data.node_types:
            assert batch[t].n_id.tolist() == nodes[t], t
            assert "num_sampled_nodes" not in batch[t]
        for et in data.edge_types:
            assert batch[et].edge_index.tolist() == edges[et][0], et
            assert batch[et].e_id.tolist() == edges[et][1], et
            np.testing.assert_array_equal(batch[et].edge_attr, data[et].edge_attr[batch[et].e_id])
            assert "num_sampled_edges" not in batch[et]
        assert batch["b"].batch_size == 3


def test_hetero_bidirectional_batches_are_pygs_to_bidirectional():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import HeteroSamplerOutput as PygHetero

    data = _hetero(1)
    kw = dict(input_nodes=("b", None), batch_size=2, seed=2)
    plain = NeighborLoader(data, [2, 2], **kw)
    both = NeighborLoader(data, [2, 2], subgraph_type="bidirectional", **kw)
    for p, b in zip(plain, both):
        ets = data.edge_types
        want = PygHetero(
            {t: torch.as_tensor(p[t].n_id) for t in data.node_types},
            {et: torch.as_tensor(p[et].edge_index[0]) for et in ets},
            {et: torch.as_tensor(p[et].edge_index[1]) for et in ets},
            {et: torch.as_tensor(p[et].e_id) for et in ets},
        ).to_bidirectional()
        for et in ets:
            np.testing.assert_array_equal(b[et].edge_index[0], want.row[et].numpy())
            np.testing.assert_array_equal(b[et].edge_index[1], want.col[et].numpy())
            # every type has a partner here: no single edge ids, no edge attributes (PyG)
            assert "e_id" not in b[et] and "edge_attr" not in b[et]
            assert "num_sampled_edges" not in b[et]
        for t in data.node_types:
            np.testing.assert_array_equal(b[t].n_id, p[t].n_id)
            np.testing.assert_array_equal(b[t].x, p[t].x)
    # an edge type with no reverse stays directional, with its ids (PyG warns)
    data["a", "owns", "c"].edge_index = np.array([[0, 1, 2], [0, 1, 1]])
    with pytest.warns(UserWarning, match="'a', 'owns', 'c'"):
        loader = NeighborLoader(data, [ALL], input_nodes=("c", None), batch_size=4,
                                subgraph_type="bidirectional")  # fmt: skip
    batch = next(iter(loader))
    store = batch["a", "owns", "c"]
    assert batch["a"].n_id[store.edge_index[0]].tolist() == [0, 1, 2]
    assert store.e_id.tolist() == [0, 1, 2]


def test_hetero_link_loader_and_samplers_take_the_subgraph_types():
    data = _hetero(2)
    et = ("a", "to", "b")
    loader = LinkNeighborLoader(data, [ALL], edge_label_index=et, batch_size=4,
                                subgraph_type="induced")  # fmt: skip
    for batch in loader:
        for key in data.edge_types:  # every edge among the sampled nodes, once
            ei = data[key].edge_index
            inside = np.isin(ei[0], batch[key[0]].n_id) & np.isin(ei[1], batch[key[2]].n_id)
            assert sorted(batch[key].e_id.tolist()) == np.flatnonzero(inside).tolist()
    # NeighborSampler: the loaders' batches as SamplerOutputs, PyG's None counts
    homo, ids = _data(), np.array([0, 4])
    for st in ("induced", "bidirectional"):
        out = NeighborSampler(homo, [2, 2], st, seed=1).sample_from_nodes(
            NodeSamplerInput(None, ids)
        )
        kw = dict(input_nodes=ids, batch_size=2)
        batch = next(iter(NeighborLoader(homo, [2, 2], subgraph_type=st, seed=1, **kw)))
        np.testing.assert_array_equal(np.stack([out.row, out.col]), batch.edge_index)
        np.testing.assert_array_equal(out.edge, batch.e_id)
        assert out.num_sampled_nodes is None and out.num_sampled_edges is None
        via = next(iter(NodeLoader(homo, NeighborSampler(homo, [2, 2], st, seed=1), **kw)))
        np.testing.assert_array_equal(via.edge_index, batch.edge_index)
        assert "num_sampled_nodes" not in via
    with pytest.warns(UserWarning, match="'directed' argument in 'NeighborSampler'"):
        sampler = NeighborSampler(data, [ALL], directed=False)
    out = sampler.sample_from_nodes(NodeSamplerInput(None, np.array([0, 1]), input_type="c"))
    assert out.num_sampled_nodes is None and set(out.edge) == set(data.edge_types)


def test_subgraph_type_errors_are_named():
    data = _data()
    with pytest.raises(ValueError, match="^NeighborLoader: subgraph_type must be"):
        NeighborLoader(data, [1], subgraph_type="sideways")
    with pytest.raises(ValueError, match="^NeighborLoader: subgraph_type='induced' does not"):
        NeighborLoader(data, [1], subgraph_type="induced", disjoint=True)
    with pytest.warns(UserWarning, match="'directed' argument"):
        with pytest.raises(ValueError, match="^LinkNeighborLoader: subgraph_type='induced'"):
            LinkNeighborLoader(data, [1], directed=False, disjoint=True)
    with pytest.raises(ValueError, match="^NeighborLoader: subgraph_type='induced'"):
        NeighborLoader(_hetero(), [1], input_nodes="a", subgraph_type="induced", disjoint=True)
    with pytest.raises(ValueError, match="^NeighborSampler: subgraph_type must be"):
        NeighborSampler(data, [1], subgraph_type=None)
    # BidirectionalNeighborSampler: its merged output made bidirectional at the end (PyG)
    from arraygnn.sampler import BidirectionalNeighborSampler

    seeds = NodeSamplerInput(None, np.array([0, 3]))
    plain = BidirectionalNeighborSampler(data, [2, 2], seed=0).sample_from_nodes(seeds)
    both = BidirectionalNeighborSampler(data, [2, 2], "bidirectional", seed=0)
    want = plain.to_bidirectional()
    got = both.sample_from_nodes(seeds)
    np.testing.assert_array_equal(np.stack([got.row, got.col]), np.stack([want.row, want.col]))
    with pytest.raises(ValueError, match="^BidirectionalNeighborSampler: subgraph_type='ind"):
        BidirectionalNeighborSampler(data, [2], "induced")
    # disjoint bidirectional: each tree's edges made bidirectional, batch kept (PyG)
    batch = next(iter(NeighborLoader(data, [ALL], batch_size=2, disjoint=True,
                                     subgraph_type="bidirectional")))  # fmt: skip
    assert batch.batch.shape == batch.n_id.shape
    assert (batch.batch[batch.edge_index[0]] == batch.batch[batch.edge_index[1]]).all()
