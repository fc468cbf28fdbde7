"""NodeLoader / LinkLoader with samplers: arraygnn's NeighborSampler against NeighborLoader /
LinkNeighborLoader, and a toy "1-hop in-neighbours" sampler written for both libraries against
torch_geometric's NodeLoader / LinkLoader (PyG's own NeighborSampler needs pyg-lib or
torch_sparse, neither installable here)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.link_loader import LinkLoader
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.node_loader import NodeLoader
from arraygnn.sampler import (
    BaseSampler,
    EdgeSamplerInput,
    HeteroSamplerOutput,
    NegativeSampling,
    NeighborSampler,
    NodeSamplerInput,
    SamplerOutput,
)


def _graph(n=12, e=40, seed=0, dtype=np.int64):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e)).astype(dtype)
    ei[:, :3] = [[1, 2, 2], [1, 3, 3]]  # a self-loop and a multi-edge
    return Data(
        x=rng.normal(size=(n, 3)),
        edge_index=ei,
        edge_attr=rng.normal(size=(e, 2)),
        y=rng.integers(0, 3, n),
        num_nodes=n,
    )


def _same(a, b, keys):
    for k in keys:
        va, vb = getattr(a, k, None), getattr(b, k, None)
        if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
            np.testing.assert_array_equal(np.asarray(va), np.asarray(vb), err_msg=k)
        else:
            assert va == vb, k


_NODE_KEYS = [
    "n_id",
    "e_id",
    "edge_index",
    "x",
    "edge_attr",
    "y",
    "input_id",
    "batch_size",
    "num_sampled_nodes",
    "num_sampled_edges",
    "num_nodes",
    "batch",
]


@pytest.mark.parametrize("disjoint", [False, True])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_node_loader_equals_neighbor_loader(disjoint, dtype):
    data = _graph(dtype=dtype)
    kw = dict(node_attrs=["x", "y"])
    seeds = np.array([3, 0, 3, 7, 11, 5, 2])
    ref = NeighborLoader(
        data, [2, 3], input_nodes=seeds, batch_size=3, seed=4, disjoint=disjoint, **kw
    )
    sampler = NeighborSampler(data, [2, 3], seed=4, disjoint=disjoint)
    ours = NodeLoader(data, sampler, input_nodes=seeds, batch_size=3, **kw)
    got, want = list(ours), list(ref)
    assert len(got) == len(want) == len(ours) == 3
    for a, b in zip(got, want):
        _same(a, b, _NODE_KEYS)


@pytest.mark.parametrize("strategy", ["uniform", "last"])
def test_temporal_node_and_link_loader_equal_the_neighbor_loaders(strategy):
    data = _graph()
    data.time = np.random.default_rng(1).integers(0, 5, data.num_nodes)
    kw = dict(node_attrs=["x", "y", "time"])
    sampler = NeighborSampler(
        data, [2, 2], seed=2, time_attr="time", node_attrs=["time"], temporal_strategy=strategy
    )
    ref = NeighborLoader(
        data, [2, 2], batch_size=5, seed=2, time_attr="time", temporal_strategy=strategy, **kw
    )
    for a, b in zip(list(NodeLoader(data, sampler, batch_size=5, **kw)), list(ref), strict=True):
        _same(a, b, _NODE_KEYS + ["time"])
    times = np.arange(data.edge_index.shape[1]) % 4
    sampler = NeighborSampler(
        data, [2], seed=2, time_attr="time", node_attrs=["time"], temporal_strategy=strategy
    )
    ref = LinkNeighborLoader(
        data,
        [2],
        batch_size=6,
        seed=2,
        time_attr="time",
        edge_label_time=times,
        temporal_strategy=strategy,
        **kw,
    )
    ours = LinkLoader(data, sampler, edge_label_time=times, batch_size=6, **kw)
    for a, b in zip(list(ours), list(ref), strict=True):
        _same(a, b, _NODE_KEYS + ["edge_label_index", "edge_label_time"])


def _hetero(seed=0):
    rng = np.random.default_rng(seed)
    data = HeteroData(paper={"x": rng.normal(size=(6, 2))}, author={"x": rng.normal(size=(4, 2))})
    data["author", "writes", "paper"].edge_index = rng.integers(0, 4, (2, 10)) % [[4], [6]]
    data["paper", "cites", "paper"].edge_index = rng.integers(0, 6, (2, 9))
    data["paper", "rev", "author"].edge_index = rng.integers(0, 4, (2, 7)) % [[6], [4]]
    data["cites"].edge_attr = rng.normal(size=(9, 3))
    return data


def test_hetero_node_loader_equals_neighbor_loader():
    data = _hetero()
    ref = NeighborLoader(data, [2, -1], input_nodes=("paper", None), batch_size=4, seed=1)
    ours = NodeLoader(
        data, NeighborSampler(data, [2, -1], seed=1), input_nodes=("paper", None), batch_size=4
    )
    for a, b in zip(list(ours), list(ref), strict=True):
        for t in data.node_types:
            _same(a[t], b[t], ["n_id", "x", "num_sampled_nodes", "num_nodes"])
        for et in data.edge_types:
            _same(a[et], b[et], ["edge_index", "e_id", "edge_attr", "num_sampled_edges"])
        _same(a["paper"], b["paper"], ["input_id", "batch_size"])


@pytest.mark.parametrize("neg", [None, dict(mode="binary", amount=2), ("triplet", 2), "triplet"])
@pytest.mark.parametrize("disjoint", [False, True])
def test_link_loader_equals_link_neighbor_loader(neg, disjoint):
    data = _graph()
    ref = LinkNeighborLoader(
        data,
        [2, 2],
        neg_sampling=neg,
        batch_size=7,
        seed=3,
        node_attrs=["x", "y"],
        disjoint=disjoint,
    )
    ours = LinkLoader(
        data,
        NeighborSampler(data, [2, 2], seed=3, disjoint=disjoint),
        neg_sampling=neg,
        batch_size=7,
        node_attrs=["x", "y"],
    )
    keys = _NODE_KEYS + [
        "edge_label_index",
        "edge_label",
        "src_index",
        "dst_pos_index",
        "dst_neg_index",
    ]
    for a, b in zip(list(ours), list(ref), strict=True):
        _same(a, b, keys)
    batch = next(iter(ours))
    if neg is not None and "binary" in str(neg):
        src, dst = batch.n_id[batch.edge_label_index[:, 7:]]
        pairs = set(zip(*data.edge_index.tolist()))
        assert not any((u, v) in pairs or u == v for u, v in zip(src.tolist(), dst.tolist()))


@pytest.mark.parametrize("et", [("author", "writes", "paper"), ("paper", "cites", "paper")])
@pytest.mark.parametrize("neg", [None, ("binary", 1), ("triplet", 2)])
@pytest.mark.parametrize("disjoint", [False, True])
def test_hetero_link_loader_equals_link_neighbor_loader(et, neg, disjoint):
    data = _hetero()
    kw = dict(edge_label_index=(et, None), neg_sampling=neg, batch_size=4)
    ref = LinkNeighborLoader(data, [2, 1], seed=5, disjoint=disjoint, **kw)
    ours = LinkLoader(data, NeighborSampler(data, [2, 1], seed=5, disjoint=disjoint), **kw)
    for a, b in zip(list(ours), list(ref), strict=True):
        for t in data.node_types:
            _same(
                a[t],
                b[t],
                [
                    "n_id",
                    "x",
                    "num_sampled_nodes",
                    "num_nodes",
                    "batch",
                    "src_index",
                    "dst_pos_index",
                    "dst_neg_index",
                ],
            )
        for e in data.edge_types:
            _same(
                a[e],
                b[e],
                [
                    "edge_index",
                    "e_id",
                    "edge_attr",
                    "num_sampled_edges",
                    "edge_label_index",
                    "edge_label",
                    "input_id",
                ],
            )


# --- a toy sampler, written for PyG (torch) and for arraygnn (NumPy) --------------------


def _one_hop(edge_index, seeds):
    """The seeds (kept, repeats too) and their in-neighbours in order of first sight; the
    in-edges of the distinct seeds in edge order, relabelled."""
    src, dst = edge_index
    first = {}
    for i, s in enumerate(seeds.tolist()):
        first.setdefault(s, i)
    eid = np.flatnonzero(np.isin(dst, list(first)))
    nodes, local = list(seeds.tolist()), dict(first)
    for u in src[eid].tolist():
        if u not in local:
            local[u] = len(nodes)
            nodes.append(u)
    row = np.array([local[u] for u in src[eid].tolist()], dtype=np.int64)
    col = np.array([local[v] for v in dst[eid].tolist()], dtype=np.int64)
    return np.array(nodes, dtype=np.int64), row, col, eid.astype(np.int64), local


def _toy_links(edge_index, num_nodes, row, col, label, amount, mode):
    """Deterministic negatives ``(u, (v + 1 + k) % n)``, then the one-hop subgraph of every
    endpoint; metadata pieces in the subgraph's ids."""
    p = len(row)
    if mode == "binary":
        k = math.ceil(p * amount)
        nsrc = np.resize(row, k)
        ndst = (np.resize(col, k) + 1 + np.arange(k) // max(p, 1)) % num_nodes
        s, d = np.concatenate([row, nsrc]), np.concatenate([col, ndst])
        lab = np.ones(p, np.float32) if label is None else label
        lab = np.concatenate([lab, np.zeros(k, lab.dtype)])
        seeds = np.concatenate([s, d])
    elif mode == "triplet":
        neg = (col[:, None] + 1 + np.arange(int(amount))) % num_nodes
        seeds, lab = np.concatenate([row, col, neg.T.reshape(-1)]), None
    else:
        s, d, lab = row, col, label
        seeds = np.concatenate([s, d])
    uniq = np.array(list(dict.fromkeys(seeds.tolist())), dtype=np.int64)
    node, r, c, e, local = _one_hop(edge_index, uniq)
    ids = np.array([local[v] for v in seeds.tolist()], dtype=np.int64)
    if mode == "triplet":
        neg_ids = ids[2 * p :].reshape(int(amount), p).T
        meta = (ids[:p], ids[p : 2 * p], neg_ids[:, 0] if amount == 1 else neg_ids)
    else:
        meta = (ids.reshape(2, -1), lab)
    return node, r, c, e, meta


class ToyArrays(BaseSampler):
    def __init__(self, data):
        self.edge_index, self.n = np.asarray(data.edge_index), data.num_nodes

    def sample_from_nodes(self, index, **kwargs):
        node, row, col, edge, _ = _one_hop(self.edge_index, index.node)
        return SamplerOutput(
            node,
            row,
            col,
            edge,
            num_sampled_nodes=[len(index.node)],
            metadata=(index.input_id, index.time),
        )

    def sample_from_edges(self, index, neg_sampling=None):
        mode = None if neg_sampling is None else neg_sampling.mode.value
        amount = None if neg_sampling is None else neg_sampling.amount
        node, r, c, e, meta = _toy_links(
            self.edge_index, self.n, index.row, index.col, index.label, amount, mode
        )
        if mode == "triplet":
            return SamplerOutput(node, r, c, e, metadata=(index.input_id, *meta, index.time))
        return SamplerOutput(node, r, c, e, metadata=(index.input_id, *meta, index.time))


def _pyg_toy(torch, pyg_sampler):
    class ToyTorch(pyg_sampler.BaseSampler):
        def __init__(self, data):
            self.edge_index, self.n = data.edge_index.numpy(), data.num_nodes

        def sample_from_nodes(self, index, **kwargs):
            node, row, col, edge, _ = _one_hop(self.edge_index, index.node.numpy())
            t = torch.from_numpy
            return pyg_sampler.SamplerOutput(
                t(node),
                t(row),
                t(col),
                t(edge),
                num_sampled_nodes=[len(index.node)],
                metadata=(index.input_id, index.time),
            )

        def sample_from_edges(self, index, neg_sampling=None):
            mode = None if neg_sampling is None else neg_sampling.mode.value
            amount = None if neg_sampling is None else neg_sampling.amount
            label = None if index.label is None else index.label.numpy()
            node, r, c, e, meta = _toy_links(
                self.edge_index, self.n, index.row.numpy(), index.col.numpy(), label, amount, mode
            )
            meta = tuple(None if m is None else torch.from_numpy(m) for m in meta)
            t = torch.from_numpy
            return pyg_sampler.SamplerOutput(
                t(node), t(r), t(c), t(e), metadata=(index.input_id, *meta, index.time)
            )

    return ToyTorch


def _to_pyg(torch, data):
    from torch_geometric.data import Data as PygData

    return PygData(
        x=torch.from_numpy(data.x),
        edge_index=torch.from_numpy(data.edge_index),
        edge_attr=torch.from_numpy(data.edge_attr),
        y=torch.from_numpy(data.y),
        num_nodes=data.num_nodes,
    )


def _same_as_pyg(ours, theirs, keys):
    for k in keys:
        a, b = getattr(ours, k, None), getattr(theirs, k, None)
        if b is None or isinstance(b, (int, list)):
            assert a == b, k
        else:
            np.testing.assert_array_equal(np.asarray(a), b.numpy(), err_msg=k)


@pytest.mark.parametrize("input_nodes", [None, "mask", np.array([4, 0, 4, 9, 1])])
def test_node_loader_toy_sampler_matches_pyg(input_nodes):
    torch = pytest.importorskip("torch")
    pyg_sampler = pytest.importorskip("torch_geometric.sampler")
    from torch_geometric.loader import NodeLoader as PygNodeLoader

    data = _graph()
    data.edge_index[:, 5:8] = 0  # node 0: a zero-out-degree hub; isolated nodes too
    pdata = _to_pyg(torch, data)
    if isinstance(input_nodes, str):
        mask = np.zeros(data.num_nodes, bool)
        mask[[1, 4, 6, 10]] = True
        ours_in, theirs_in = mask, torch.from_numpy(mask)
    else:
        ours_in = input_nodes
        theirs_in = None if input_nodes is None else torch.from_numpy(input_nodes)
    ours = NodeLoader(
        data, ToyArrays(data), input_nodes=ours_in, batch_size=3, node_attrs=["x", "y"]
    )
    theirs = PygNodeLoader(
        pdata, _pyg_toy(torch, pyg_sampler)(pdata), input_nodes=theirs_in, batch_size=3
    )
    got, want = list(ours), list(theirs)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        _same_as_pyg(
            a,
            b,
            [
                "n_id",
                "e_id",
                "edge_index",
                "x",
                "edge_attr",
                "y",
                "input_id",
                "batch_size",
                "num_sampled_nodes",
                "num_nodes",
            ],
        )


@pytest.mark.parametrize("neg", [None, ("binary", 1.5), ("triplet", 1), ("triplet", 3)])
@pytest.mark.parametrize("labels", [False, True])
def test_link_loader_toy_sampler_matches_pyg(neg, labels):
    torch = pytest.importorskip("torch")
    pyg_sampler = pytest.importorskip("torch_geometric.sampler")
    from torch_geometric.loader import LinkLoader as PygLinkLoader

    if labels and neg is not None and neg[0] == "triplet":
        return
    data = _graph()
    pdata = _to_pyg(torch, data)
    eli = np.array([[0, 3, 5, 7, 2], [1, 1, 9, 7, 11]])
    label = np.array([0, 1, 1, 0, 2]) if labels else None
    ours = LinkLoader(
        data,
        ToyArrays(data),
        edge_label_index=eli,
        edge_label=label,
        neg_sampling=None if neg is None else NegativeSampling(*neg),
        batch_size=2,
        node_attrs=["x", "y"],
    )
    theirs = PygLinkLoader(
        pdata,
        _pyg_toy(torch, pyg_sampler)(pdata),
        edge_label_index=torch.from_numpy(eli),
        edge_label=None if label is None else torch.from_numpy(label),
        neg_sampling=None if neg is None else pyg_sampler.NegativeSampling(*neg),
        batch_size=2,
    )
    keys = [
        "n_id",
        "e_id",
        "edge_index",
        "x",
        "edge_attr",
        "y",
        "input_id",
        "num_nodes",
        "edge_label_index",
        "edge_label",
        "src_index",
        "dst_pos_index",
        "dst_neg_index",
    ]
    for a, b in zip(list(ours), list(theirs), strict=True):
        _same_as_pyg(a, b, keys)


class ToyHetero(BaseSampler):
    """1-hop in-neighbours of the input type's seeds over every relation into that type."""

    def __init__(self, data):
        self.data = data

    def _sample(self, seed_dict):
        node, row, col, edge = {}, {}, {}, {}
        for t, seeds in seed_dict.items():
            node[t] = list(seeds.tolist())
        local = {t: {v: i for i, v in reversed(list(enumerate(node[t])))} for t in node}
        for et in self.data.edge_types:
            s, _, d = et
            if d not in seed_dict:
                continue
            ei = np.asarray(self.data[et].edge_index)
            eid = np.flatnonzero(np.isin(ei[1], seed_dict[d]))
            ids = local.setdefault(s, {})
            nodes = node.setdefault(s, [])
            for u in ei[0, eid].tolist():
                if u not in ids:
                    ids[u] = len(nodes)
                    nodes.append(u)
            row[et] = np.array([ids[u] for u in ei[0, eid].tolist()], dtype=np.int64)
            col[et] = np.array([local[d][v] for v in ei[1, eid].tolist()], dtype=np.int64)
            edge[et] = eid.astype(np.int64)
        return {t: np.array(v, dtype=np.int64) for t, v in node.items()}, row, col, edge

    def sample_from_nodes(self, index, **kwargs):
        node, row, col, edge = self._sample({index.input_type: index.node})
        return HeteroSamplerOutput(node, row, col, edge, metadata=(index.input_id, index.time))

    def sample_from_edges(self, index, neg_sampling=None):
        s, _, d = index.input_type
        node, row, col, edge = self._sample(
            {s: index.row, d: index.col} if s != d else {s: np.concatenate([index.row, index.col])}
        )
        pos = {t: {v: i for i, v in reversed(list(enumerate(node[t].tolist())))} for t in node}
        eli = np.array(
            [[pos[s][u] for u in index.row.tolist()], [pos[d][v] for v in index.col.tolist()]],
            dtype=np.int64,
        )
        return HeteroSamplerOutput(
            node, row, col, edge, metadata=(index.input_id, eli, index.label, index.time)
        )


def test_hetero_toy_sampler_matches_pyg():
    torch = pytest.importorskip("torch")
    from torch_geometric.data import HeteroData as PygHetero
    from torch_geometric.loader import LinkLoader as PygLinkLoader
    from torch_geometric.loader import NodeLoader as PygNodeLoader

    data = _hetero()
    pdata = PygHetero()
    for t in data.node_types:
        pdata[t].x = torch.from_numpy(data[t].x)
    for et in data.edge_types:
        for k, v in data[et].items():
            pdata[et][k] = torch.from_numpy(np.asarray(v))

    class ToyTorch(ToyHetero):  # the same sampler on tensors (converted at the edges)
        def sample_from_nodes(self, index, **kwargs):
            from torch_geometric.sampler import HeteroSamplerOutput as H

            node, row, col, edge = self._sample({index.input_type: index.node.numpy()})
            t = lambda d: {k: torch.from_numpy(v) for k, v in d.items()}  # noqa: E731
            return H(t(node), t(row), t(col), t(edge), metadata=(index.input_id, index.time))

    ours = NodeLoader(
        data, ToyHetero(data), input_nodes=("paper", np.array([5, 1, 1, 3])), batch_size=3
    )
    theirs = PygNodeLoader(
        pdata, ToyTorch(data), batch_size=3, input_nodes=("paper", torch.tensor([5, 1, 1, 3]))
    )
    for a, b in zip(list(ours), list(theirs), strict=True):
        for t in data.node_types:
            _same_as_pyg(a[t], b[t], ["n_id", "x", "num_nodes"])
        for et in data.edge_types:
            _same_as_pyg(a[et], b[et], ["edge_index", "e_id", "edge_attr"])
        _same_as_pyg(a["paper"], b["paper"], ["input_id", "batch_size"])

    class LinkTorch(ToyHetero):
        def sample_from_edges(self, index, neg_sampling=None):
            from torch_geometric.sampler import HeteroSamplerOutput as H

            idx = EdgeSamplerInput(
                index.input_id, index.row.numpy(), index.col.numpy(), None, None, index.input_type
            )
            out = ToyHetero.sample_from_edges(self, idx)
            t = lambda d: {k: torch.from_numpy(v) for k, v in d.items()}  # noqa: E731
            return H(
                t(out.node),
                t(out.row),
                t(out.col),
                t(out.edge),
                metadata=(index.input_id, torch.from_numpy(out.metadata[1]), None, None),
            )

    et = ("author", "writes", "paper")
    ours = LinkLoader(data, ToyHetero(data), edge_label_index=(et, None), batch_size=4)
    theirs = PygLinkLoader(pdata, LinkTorch(data), edge_label_index=(et, None), batch_size=4)
    for a, b in zip(list(ours), list(theirs), strict=True):
        _same_as_pyg(a[et], b[et], ["edge_label_index", "input_id", "edge_index", "e_id"])
        for t in data.node_types:
            _same_as_pyg(a[t], b[t], ["n_id", "x"])


def test_metadata_edge_permutation_and_transforms():
    data = _graph()
    perm = np.arange(data.edge_index.shape[1])[::-1].copy()

    class Permuted(ToyArrays):
        edge_permutation = perm

        def sample_from_nodes(self, index, **kwargs):
            out = super().sample_from_nodes(index)
            out.edge, out.metadata = np.argsort(perm)[out.edge], None  # sampler's own ids
            return out

    seen = []
    loader = NodeLoader(
        data,
        Permuted(data),
        input_nodes=np.array([2, 5]),
        batch_size=2,
        node_attrs=["x", "y"],
        transform_sampler_output=lambda o: seen.append(1) or o,
        transform=lambda b: (b, "t"),
    )
    batch, tag = loader(np.array([0, 1]))
    ref = next(
        iter(
            NodeLoader(
                data,
                ToyArrays(data),
                input_nodes=np.array([2, 5]),
                batch_size=2,
                node_attrs=["x", "y"],
            )
        )
    )
    _same(batch, ref, ["e_id", "edge_attr", "input_id", "batch_size"])
    assert tag == "t" and seen == [1]


def test_errors():
    data = _graph()
    with pytest.raises(ValueError, match="neither node nor edge"):
        NodeLoader(data, ToyArrays(data))  # y is not placed
    with pytest.raises(TypeError, match="BaseSampler"):
        NodeLoader(data, object(), node_attrs=["x", "y"])
    with pytest.raises(TypeError, match="unexpected keyword"):
        NodeLoader(data, ToyArrays(data), node_attrs=["x", "y"], batchsize=2)
    with pytest.raises(ValueError, match="outside"):
        NodeLoader(data, ToyArrays(data), input_nodes=np.array([99]), node_attrs=["x", "y"])
    with pytest.raises(ValueError, match="triplet"):
        LinkLoader(
            data,
            ToyArrays(data),
            edge_label=np.ones(40),
            neg_sampling="triplet",
            node_attrs=["x", "y"],
        )
    with pytest.raises(ValueError, match="edge_label_index"):
        LinkLoader(
            data,
            ToyArrays(data),
            edge_label_index=np.zeros((3, 2), np.int64),
            node_attrs=["x", "y"],
        )
    with pytest.raises(ValueError, match="positive"):
        NegativeSampling("binary", 0)
    with pytest.raises(ValueError, match="integer"):
        NegativeSampling("triplet", 1.5)
    hetero_loader = NodeLoader(_hetero(), ToyArrays(data), input_nodes="paper")
    with pytest.raises(TypeError, match="HeteroSamplerOutput"):
        next(iter(hetero_loader))
    with pytest.raises(ValueError, match="not an edge type"):
        NeighborSampler(_hetero(), [1]).sample_from_edges(
            EdgeSamplerInput(None, np.array([0]), np.array([0]), input_type=("a", "b", "c"))
        )
    assert NodeSamplerInput(None, np.array([4, 5]))[[1]].input_id.tolist() == [1]


def test_edgeless_graph_and_empty_sampler_output():
    torch = pytest.importorskip("torch")
    pyg_sampler = pytest.importorskip("torch_geometric.sampler")
    from torch_geometric.loader import NodeLoader as PygNodeLoader

    data = Data(
        x=np.ones((4, 2)),
        edge_index=np.zeros((2, 0), np.int64),
        edge_attr=np.zeros((0, 2)),
        y=np.arange(4),
        num_nodes=4,
    )
    ref = NeighborLoader(data, [2], batch_size=3, node_attrs=["x", "y"], seed=0)
    ours = NodeLoader(data, NeighborSampler(data, [2], seed=0), batch_size=3, node_attrs=["x", "y"])
    for a, b in zip(list(ours), list(ref), strict=True):
        _same(a, b, _NODE_KEYS)
    toy = NodeLoader(data, ToyArrays(data), batch_size=3, node_attrs=["x", "y"])
    pdata = _to_pyg(torch, data)
    theirs = PygNodeLoader(pdata, _pyg_toy(torch, pyg_sampler)(pdata), batch_size=3)
    for a, b in zip(list(toy), list(theirs), strict=True):
        _same_as_pyg(
            a,
            b,
            ["n_id", "e_id", "edge_index", "x", "edge_attr", "input_id", "batch_size", "num_nodes"],
        )
        assert a.edge_index.shape == (2, 0) and a.edge_attr.shape == (0, 2)
