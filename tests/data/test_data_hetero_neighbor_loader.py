"""PyG's ``NeighborLoader`` on a ``HeteroData``.

The batches are checked against the original graph (every sampled edge is an edge of its
type, relabelled through the per-type ``n_id`` / ``e_id``, at most ``k`` per node, edge type
and hop, hop ``h`` sampling exactly the nodes new in hop ``h - 1``, attributes sliced) and
by what makes them useful: with every neighbour (``-1``), a 2-layer ``HeteroConv`` of
``SAGEConv`` gives the seeds their full-graph rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.nn import HeteroConv, SAGEConv

WRITES = ("author", "writes", "paper")
REV = ("paper", "rev_writes", "author")
CITES = ("paper", "cites", "paper")
IN = ("paper", "published_in", "venue")
EDGE_TYPES = [WRITES, REV, CITES, IN]
SIZES = {"paper": 40, "author": 30, "venue": 5}
WIDTH = {"paper": 4, "author": 3, "venue": 2}


def _graph(index_dtype=np.int64, seed=0):
    """Papers, authors, venues (reachable from no seed: only papers point at them) and
    topics (no edges); papers 38 and 39 have no in-edges at all; ``cites`` is a
    self-relation with self-loops and multi-edges."""
    rng = np.random.default_rng(seed)
    data = HeteroData()
    for t, n in SIZES.items():
        data[t].x = rng.standard_normal((n, WIDTH[t])).astype(np.float32)
    data["topic"].num_nodes = 4
    ends = {WRITES: (30, 38, 120), REV: (38, 30, 120), CITES: (38, 38, 150), IN: (40, 5, 40)}
    for et, (n_src, n_dst, e) in ends.items():
        ei = np.stack([rng.integers(0, n_src, e), rng.integers(0, n_dst, e)])
        if et == CITES:
            ei[:, :4] = [[3, 3, 3, 7], [3, 5, 5, 5]]  # a self-loop and a multi-edge
        if et == WRITES:
            ei[:, :2] = [[2, 2], [9, 9]]  # a multi-edge across types
        data[et].edge_index = ei.astype(index_dtype)
    data[CITES].edge_attr = rng.standard_normal((150, 2)).astype(np.float32)
    data[WRITES].edge_weight = rng.random(120).astype(np.float32)
    data.y = np.array([1.0])  # graph-level: kept as it is
    return data


def _model(layers=2, seed=0):
    convs = []
    width = dict(WIDTH)
    for layer in range(layers):
        out = 5 if layer == layers - 1 else 6
        convs.append(
            HeteroConv(
                {
                    et: SAGEConv((width[et[0]], width[et[2]]), out, rng=seed + 10 * layer + i)
                    for i, et in enumerate(EDGE_TYPES)
                },
                aggr="mean",
            )
        )
        width = dict.fromkeys(width, out)

    def run(x_dict, edge_index_dict):
        h = {t: x_dict[t] for t in WIDTH}
        for i, conv in enumerate(convs):
            h = conv(h, edge_index_dict)
            if i < len(convs) - 1:
                h = {t: np.maximum(v, 0) for t, v in h.items()}
        return h

    return run


def _in_degrees(data, et):
    return np.bincount(data[et].edge_index[1], minlength=SIZES[et[2]])


def _check_batch(data, batch, fanouts, input_type, seeds):
    bs = batch[input_type].batch_size
    assert bs == len(seeds)
    assert batch.metadata() == data.metadata()
    assert batch.y is data.y
    hops = len(next(iter(fanouts.values())))
    for t in data.node_types:
        store = batch[t]
        n_id = store.n_id
        assert n_id.dtype == np.int64
        assert store.num_nodes == len(n_id) == sum(store.num_sampled_nodes)
        assert len(store.num_sampled_nodes) == hops + 1
        rest = n_id[bs:] if t == input_type else n_id
        assert len(set(rest.tolist())) == len(rest)  # no node twice in a type
        if t == input_type:
            assert n_id[:bs].tolist() == list(seeds)  # the seeds first
            assert store.num_sampled_nodes[0] == bs
            assert not set(rest.tolist()) & set(np.asarray(seeds).tolist())
        else:
            assert store.num_sampled_nodes[0] == 0
        if "x" in data[t]:
            np.testing.assert_array_equal(store.x, data[t].x[n_id])
    assert batch["topic"].n_id.shape == (0,) and batch["topic"].num_nodes == 0
    assert batch["venue"].n_id.shape == (0,)  # venues are no source of any edge type
    starts = {t: np.cumsum([0] + batch[t].num_sampled_nodes) for t in data.node_types}
    for et in data.edge_types:
        src_t, _, dst_t = et
        store, ei = batch[et], data[et].edge_index
        e_id = store.e_id
        assert e_id.dtype == np.int64 and store.edge_index.shape == (2, len(e_id))
        assert len(set(e_id.tolist())) == len(e_id)  # an edge is sampled once
        assert len(store.num_sampled_edges) == hops
        assert sum(store.num_sampled_edges) == len(e_id)
        # sampled edges are real edges of their type: back through n_id and e_id
        np.testing.assert_array_equal(batch[src_t].n_id[store.edge_index[0]], ei[0, e_id])
        np.testing.assert_array_equal(batch[dst_t].n_id[store.edge_index[1]], ei[1, e_id])
        for key in ("edge_attr", "edge_weight"):
            if key in data[et]:
                np.testing.assert_array_equal(store[key], data[et][key][e_id])
        edge_start = np.cumsum([0] + store.num_sampled_edges)
        deg = _in_degrees(data, et)[batch[dst_t].n_id]
        for h, k in enumerate(fanouts[et]):
            cols = store.edge_index[1, edge_start[h] : edge_start[h + 1]]
            lo, hi = starts[dst_t][h], starts[dst_t][h + 1]  # dst nodes new in hop h - 1
            assert ((cols >= lo) & (cols < hi)).all()
            counts = np.bincount(cols, minlength=len(deg))[lo:hi]
            expected = deg[lo:hi] if k < 0 else np.minimum(deg[lo:hi], k)
            np.testing.assert_array_equal(counts, expected)  # fan-out bound, exact
    # the nodes new in hop h of a type are exactly the unseen sources of hop h's edges
    for t in data.node_types:
        for h in range(hops):
            lo, hi = starts[t][h + 1], starts[t][h + 2]
            srcs = set()
            for et in data.edge_types:
                if et[0] == t:
                    es = np.cumsum([0] + batch[et].num_sampled_edges)
                    srcs |= set(batch[et].edge_index[0, es[h] : es[h + 1]].tolist())
            new = set(range(lo, hi))
            assert new <= srcs and all(s < hi for s in srcs)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("input_type", ["paper", "author"])
def test_full_neighbourhoods_give_full_graph_outputs(index_dtype, input_type):
    data = _graph(index_dtype)
    model = _model()
    full = model(data.x_dict, data.edge_index_dict)
    seeds = np.arange(SIZES[input_type])[::-1]  # every node, papers 38 / 39 isolated
    loader = NeighborLoader(
        data,
        [-1, -1],
        input_nodes=(input_type, seeds),
        batch_size=7,
        edge_attrs=["edge_attr", "edge_weight"],
    )
    assert isinstance(loader, HeteroNeighborLoader) and isinstance(loader, NeighborLoader)
    rows = []
    for batch in loader:
        bs = batch[input_type].batch_size
        _check_batch(
            data,
            batch,
            dict.fromkeys(EDGE_TYPES, [-1, -1]),
            input_type,
            seeds[batch[input_type].input_id],
        )
        out = model(batch.x_dict, batch.edge_index_dict)
        rows.append(out[input_type][:bs])
    np.testing.assert_allclose(np.concatenate(rows), full[input_type][seeds], rtol=1e-5, atol=1e-5)


def test_isolated_seeds_and_repeated_seeds_are_exact():
    data = _graph()
    model = _model()
    full = model(data.x_dict, data.edge_index_dict)
    seeds = np.array([38, 5, 39, 5, 3, 38])  # no in-edges; repeated seeds
    loader = NeighborLoader(
        data,
        [-1, -1],
        input_nodes=("paper", seeds),
        batch_size=6,
        edge_attrs=["edge_attr", "edge_weight"],
    )
    batch = next(iter(loader))
    assert batch["paper"].n_id[:6].tolist() == seeds.tolist()
    out = model(batch.x_dict, batch.edge_index_dict)["paper"][:6]
    np.testing.assert_allclose(out, full["paper"][seeds], rtol=1e-5, atol=1e-5)
    only = NeighborLoader(data, [-1], input_nodes=("paper", np.array([38, 39])), batch_size=2)
    batch = next(iter(only))  # isolated seeds alone: no edge, no other node
    assert batch["paper"].n_id.tolist() == [38, 39] and batch.num_edges == 0
    assert batch["paper"].num_sampled_nodes == [2, 0]
    assert all(batch[et].num_sampled_edges == [0] for et in EDGE_TYPES)
    # a control: one hop is not enough for a 2-layer model
    one = NeighborLoader(
        data,
        [-1],
        input_nodes=("paper", seeds),
        batch_size=6,
        edge_attrs=["edge_attr", "edge_weight"],
    )
    batch = next(iter(one))
    out = model(batch.x_dict, batch.edge_index_dict)["paper"][:6]
    assert not np.allclose(out, full["paper"][seeds], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "num_neighbors",
    [[3, 2], [2, 0, 1], {WRITES: [2, 1], REV: [1, 3], CITES: [0, 2], IN: [4, 4]}],
)
def test_sampled_batches_respect_fanouts(num_neighbors):
    data = _graph(np.int32, seed=1)
    before = {et: data[et].edge_index.copy() for et in EDGE_TYPES}
    loader = NeighborLoader(
        data,
        num_neighbors,
        input_nodes="paper",
        batch_size=16,
        shuffle=True,
        seed=3,
        edge_attrs=["edge_attr", "edge_weight"],
    )
    fanouts = (
        num_neighbors
        if isinstance(num_neighbors, dict)
        else dict.fromkeys(EDGE_TYPES, num_neighbors)
    )
    assert len(loader) == 3
    seen = []
    for batch in loader:
        ids = batch["paper"].input_id
        _check_batch(data, batch, fanouts, "paper", np.arange(40)[ids])
        seen += ids.tolist()
    assert sorted(seen) == list(range(40))  # shuffle: every seed once per epoch
    for et in EDGE_TYPES:
        np.testing.assert_array_equal(data[et].edge_index, before[et])  # input untouched


def test_reproducible_from_seed_and_shuffle_epochs():
    data = _graph(seed=2)

    def epochs(seed, n=2):
        loader = NeighborLoader(
            data,
            [2, 2],
            input_nodes=("author", None),
            batch_size=8,
            shuffle=True,
            seed=seed,
            edge_attrs=["edge_attr", "edge_weight"],
        )
        out = []
        for _ in range(n):
            epoch = []
            for b in loader:
                epoch.append(
                    [b[t].n_id.tolist() for t in data.node_types]
                    + [b[et].edge_index.tolist() for et in EDGE_TYPES]
                    + [b[et].e_id.tolist() for et in EDGE_TYPES]
                )
            out.append(epoch)
        return out

    first, again, other = epochs(5), epochs(5), epochs(6)
    assert first == again and first != other
    assert first[0] != first[1]  # a new order (and sample) every epoch
    a = NeighborLoader(
        data,
        [3],
        input_nodes="author",
        batch_size=30,
        seed=0,
        edge_attrs=["edge_attr", "edge_weight"],
    )
    ids = [b["author"].input_id.tolist() for b in a]
    assert ids == [list(range(30))]  # no shuffle: the given order


def test_input_forms_drop_last_and_attributes():
    data = _graph()
    data["paper"].y = np.arange(40) % 3
    data["paper"].train_mask = np.arange(40) % 4 == 0
    data["author"].name = "people"  # not an array: kept as it is
    data[CITES].weight_note = "cites"
    mask = data["paper"].train_mask
    kw = dict(edge_attrs=["edge_attr", "edge_weight"], node_attrs=["x", "y", "train_mask"])
    by_mask = NeighborLoader(data, [2], input_nodes=("paper", mask), batch_size=4, **kw)
    by_ids = NeighborLoader(
        data, [2], input_nodes=("paper", np.flatnonzero(mask)), batch_size=4, seed=0, **kw
    )
    assert len(by_mask) == len(by_ids) == 3
    batch = next(iter(by_ids))
    np.testing.assert_array_equal(batch["paper"].y, data["paper"].y[batch["paper"].n_id])
    assert batch["paper"].train_mask[:4].all()
    assert batch["author"].name == "people" and batch[CITES].weight_note == "cites"
    assert "y" not in batch["author"]
    whole = NeighborLoader(
        data, [1], input_nodes=("paper", None), batch_size=16, drop_last=True, **kw
    )
    assert len(whole) == 2 and [b["paper"].batch_size for b in whole] == [16, 16]
    keep = NeighborLoader(data, [1], input_nodes="paper", batch_size=16, **kw)
    assert len(keep) == 3 and [b["paper"].batch_size for b in keep] == [16, 16, 8]
    empty = NeighborLoader(data, [1], input_nodes=("paper", []), batch_size=4, **kw)
    assert len(empty) == 0 and list(empty) == []
    # left out: excluded keys vanish from every store and the graph level
    out = NeighborLoader(
        data,
        [1],
        input_nodes="paper",
        exclude_keys=["y", "train_mask", "edge_weight", "edge_attr"],
        batch_size=4,
    )
    batch = next(iter(out))
    assert "y" not in batch["paper"] and "edge_attr" not in batch[CITES]
    assert "y" not in batch._global  # the graph-level y excluded too
    assert "HeteroNeighbor" not in repr(out) and "input_type='paper'" in repr(out)


def test_bad_input_is_named():
    data = _graph()
    ea = dict(edge_attrs=["edge_attr", "edge_weight"])
    with pytest.raises(ValueError, match="input node type 'venu' is not a node type"):
        NeighborLoader(data, [1], input_nodes=("venu", None), **ea)
    with pytest.raises(ValueError, match="needs input_nodes=\\(node_type, ids\\)"):
        NeighborLoader(data, [1], **ea)
    with pytest.raises(TypeError, match="input_nodes must be \\(node_type, ids\\)"):
        NeighborLoader(data, [1], input_nodes=np.arange(3), **ea)
    with pytest.raises(ValueError, match="has node 40, outside \\[0, 40\\)"):
        NeighborLoader(data, [1], input_nodes=("paper", np.array([0, 40])), **ea)
    with pytest.raises(ValueError, match="boolean mask .* must have 30 entries"):
        NeighborLoader(data, [1], input_nodes=("author", np.ones(40, bool)), **ea)
    partial = {WRITES: [1], REV: [1], CITES: [1]}
    with pytest.raises(
        ValueError,
        match="no fan-outs for edge type\\(s\\) \\[\\('paper', 'published_in', 'venue'\\)\\]",
    ):
        NeighborLoader(data, partial, input_nodes="paper", **ea)
    with pytest.raises(ValueError, match="same number of hops"):
        NeighborLoader(data, {**partial, IN: [1, 1]}, input_nodes="paper", **ea)
    with pytest.raises(ValueError, match="names .*'likes'.*, which is not an edge type"):
        NeighborLoader(
            data, {**partial, IN: [1], ("a", "likes", "b"): [1]}, input_nodes="paper", **ea
        )
    with pytest.raises(ValueError, match="gives edge type .* twice"):
        NeighborLoader(data, {**partial, IN: [1], "cites": [2]}, input_nodes="paper", **ea)
    with pytest.raises(ValueError, match="must be >= -1, got -2"):
        NeighborLoader(data, [-2], input_nodes="paper", **ea)
    with pytest.raises(TypeError, match="must be a list of ints"):
        NeighborLoader(data, 3, input_nodes="paper", **ea)
    # unplaced attributes: named per store, never guessed from their lengths
    with pytest.raises(
        ValueError, match="edge type \\('author', 'writes', 'paper'\\): \\['edge_weight'\\]"
    ):
        NeighborLoader(data, [1], input_nodes="paper", edge_attrs=["edge_attr"])
    data["paper"].y = np.arange(40)  # a node store's arrays are per node: sliced by default
    batch = next(iter(NeighborLoader(data, [1], input_nodes="paper", batch_size=3, **ea)))
    np.testing.assert_array_equal(batch["paper"].y, data["paper"].y[batch["paper"].n_id])
    data["paper"].bad = np.zeros(39)
    with pytest.raises(ValueError, match="node type 'paper': attribute 'bad' must have 40 rows"):
        NeighborLoader(data, [1], input_nodes="paper", **ea)
    with pytest.raises(ValueError, match="node type 'paper': \\['bad'\\]"):
        NeighborLoader(data, [1], input_nodes="paper", node_attrs=["x", "y"], **ea)
    del data["paper"].bad
    with pytest.raises(ValueError, match="attribute 'y' must have 30 rows"):
        data["author"].y = np.zeros(31)
        NeighborLoader(data, [1], input_nodes="paper", node_attrs=["x", "y"], **ea)
    with pytest.raises(ValueError, match="no node type holds attribute 'z'"):
        NeighborLoader(data, [1], input_nodes="paper", node_attrs=["z"], exclude_keys=["y"], **ea)
    with pytest.raises(ValueError, match="'edge_index' is the batch's own field"):
        NeighborLoader(
            data, [1], input_nodes="paper", edge_attrs=["edge_index"], exclude_keys=["y"]
        )
    bad = _graph()
    bad["author"].x = None  # the count is unknown now
    with pytest.raises(ValueError, match="num_nodes of node type 'author' is unknown"):
        NeighborLoader(bad, [1], input_nodes="paper", **ea)
    bad = _graph()
    bad[CITES].edge_index = bad[CITES].edge_index.copy()
    bad[CITES].edge_index[0, 0] = 40
    with pytest.raises(ValueError, match="NeighborLoader: .*cites"):
        NeighborLoader(bad, [1], input_nodes="paper", **ea)
    with pytest.raises(ValueError, match="subgraph_type must be 'directional', 'bidi"):
        NeighborLoader(data, [1], input_nodes="paper", subgraph_type="inducted", **ea)
    with pytest.raises(ValueError, match="no edge type to sample"):
        NeighborLoader(HeteroData(a={"num_nodes": 2}), [1], input_nodes="a")


def test_homogeneous_loader_is_unchanged():
    data = Data(x=np.arange(5.0)[:, None], edge_index=np.array([[0, 1, 2, 3], [1, 2, 3, 4]]))
    loader = NeighborLoader(data, [1], batch_size=2)
    assert type(loader) is NeighborLoader
    assert next(iter(loader)).n_id.tolist() == [0, 1]


@pytest.mark.filterwarnings("ignore:Using 'NeighborSampler' without")
def test_same_batches_as_pyg_with_full_neighbourhoods():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric")
    from torch_geometric.data import HeteroData as PygHeteroData
    from torch_geometric.loader import NeighborLoader as PygNeighborLoader

    data = _graph()
    ref = PygHeteroData()
    for t in data.node_types:
        ref[t].num_nodes = data[t].num_nodes
    for et in EDGE_TYPES:
        ref[et].edge_index = torch.from_numpy(data[et].edge_index)
    seeds = np.array([3, 5, 38, 11])
    theirs = PygNeighborLoader(
        ref, [-1, -1], input_nodes=("paper", torch.from_numpy(seeds)), batch_size=4
    )
    try:
        other = next(iter(theirs))
    except ImportError as err:  # PyG samples with pyg-lib or torch-sparse only
        pytest.skip(f"PyG {pyg.__version__} cannot sample here: {err}")
    ours = next(
        iter(
            NeighborLoader(
                data,
                [-1, -1],
                input_nodes=("paper", seeds),
                batch_size=4,
                exclude_keys=["edge_attr", "edge_weight"],
            )
        )
    )
    assert ours["paper"].n_id[:4].tolist() == other["paper"].n_id[:4].tolist() == seeds.tolist()
    for t in data.node_types:  # the same nodes
        assert set(ours[t].n_id.tolist()) == set(other[t].n_id.tolist())
    for et in EDGE_TYPES:  # the same edges, as global (source, destination) pairs
        src_t, _, dst_t = et
        ours_pairs = {
            (int(ours[src_t].n_id[a]), int(ours[dst_t].n_id[b])) for a, b in ours[et].edge_index.T
        }
        their_pairs = {
            (int(other[src_t].n_id[a]), int(other[dst_t].n_id[b]))
            for a, b in other[et].edge_index.T.tolist()
        }
        assert ours_pairs == their_pairs
        assert sorted(ours[et].e_id.tolist()) == sorted(other[et].e_id.tolist())


def test_loader_classes_and_pyg_objects_get_a_clear_type_error():
    from arraygnn import HeteroData, NeighborLoader

    class MyLoader(NeighborLoader):
        pass

    d = HeteroData()
    d["a"].x = np.ones((3, 2))
    d["a", "r", "a"].edge_index = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="MyLoader samples a homogeneous Data; a HeteroData"):
        MyLoader(d, [2], input_nodes="a")
    tgd = pytest.importorskip("torch_geometric.data")
    with pytest.raises(TypeError, match="torch_geometric HeteroData; convert it first"):
        NeighborLoader(tgd.HeteroData(), [2], input_nodes="a")
