"""Parity sweep of PyG's heterogeneous loaders' options (session 13).

PyG's ``NeighborSampler`` needs pyg-lib / torch-sparse (not installed), so PyG's own
``NodeLoader`` / ``LinkLoader`` (``torch_geometric/loader/node_loader.py``,
``link_loader.py``: ``get_input_nodes``, ``edge_sample``, ``filter_hetero_data``, the
``transform`` hook) run here with a sampler whose sampling function re-derives pyg-lib's
non-disjoint heterogeneous hop loop in NumPy (``sampler/neighbor_sampler.py``: ``sort_csc``
= in-edges grouped by target in edge-id order; per hop edge type by edge type, each one
expanding the destination type's nodes new in the previous hop, a node numbered where first
seen; ``num_neighbors`` 0 skips the type). Covered: per-type dict fan-outs mixing 0 / -1,
``NumNeighbors`` defaults for types a dict leaves out, ``input_nodes`` as ids / mask / None /
a name over several batches, ``transform``, and the link loader's seeds / relabelled labels
with given labels and binary / triplet negatives (the negatives are random: the batch is
compared with PyG's pipeline fed the same pairs). Session 11 covered the homogeneous options.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.sampler import NumNeighbors

W = ("author", "writes", "paper")
R = ("paper", "rev_writes", "author")
C = ("paper", "cites", "paper")
V = ("paper", "in", "venue")
SIZES = {"paper": 9, "author": 6, "venue": 3, "topic": 2}


def _graph():
    rng = np.random.default_rng(3)
    data = HeteroData()
    for t, n in SIZES.items():
        if t == "topic":
            data[t].num_nodes = n
        else:
            data[t].x = rng.standard_normal((n, 2))
    for et, e in ((W, 14), (R, 12), (C, 16), (V, 8)):
        n_src, n_dst = SIZES[et[0]], SIZES[et[2]]
        data[et].edge_index = np.stack([rng.integers(0, n_src, e), rng.integers(0, n_dst - 1, e)])
    data[C].edge_attr = rng.standard_normal((16, 3))
    return data


def _ref(data, seed_dict, fanouts, disjoint=False):
    """pyg-lib's hetero sampling with every fan-out -1 or 0; ``disjoint``: a node is a
    ``(tree, id)`` pair, seed ``i`` of the (one) seed type roots tree ``i``."""
    types, ets = data.node_types, data.edge_types
    local = {t: {} for t in types}
    n_id = {t: [] for t in types}
    nsn = {t: [len(seed_dict.get(t, []))] for t in types}
    frontier = {}
    for t, seeds in seed_dict.items():
        frontier[t] = []
        for i, v in enumerate(seeds):
            key = (i if disjoint else 0, int(v))
            local[t][key] = len(n_id[t])
            n_id[t].append(key)
            frontier[t].append(key)
    edges = {et: ([], [], []) for et in ets}
    nse = {et: [] for et in ets}
    hops = len(fanouts[ets[0]])
    for h in range(hops):
        new = {t: [] for t in types}
        for et in ets:
            s_t, _, d_t = et
            ei = data[et].edge_index
            perm = np.argsort(ei[1], kind="stable")
            count = 0
            for b, v in frontier.get(d_t, []) if fanouts[et][h] != 0 else []:
                for e in perm[ei[1, perm] == v]:
                    u = (b, int(ei[0, e]))
                    if u not in local[s_t]:
                        local[s_t][u] = len(n_id[s_t])
                        n_id[s_t].append(u)
                        new[s_t].append(u)
                    edges[et][0].append(local[s_t][u])
                    edges[et][1].append(local[d_t][b, v])
                    edges[et][2].append(int(e))
                    count += 1
            nse[et].append(count)
        frontier = new
        for t in types:
            nsn[t].append(len(new[t]))
    return n_id, edges, nsn, nse


def _pyg_sampler(torch, data, fanouts, disjoint=False, bidirectional=False):
    from torch_geometric.sampler import BaseSampler, HeteroSamplerOutput
    from torch_geometric.sampler.neighbor_sampler import edge_sample, node_sample

    def sample_fn(seed_dict, seed_time_dict):
        assert seed_time_dict is None
        seeds = {t: v.tolist() for t, v in seed_dict.items()}
        n_id, edges, nsn, nse = _ref(data, seeds, fanouts, disjoint)
        t = lambda v: torch.tensor(v, dtype=torch.long)  # noqa: E731
        return HeteroSamplerOutput(
            node={k: t([u for _, u in v]) for k, v in n_id.items()},
            batch={k: t([b for b, _ in v]) for k, v in n_id.items()} if disjoint else None,
            row={k: t(e[0]) for k, e in edges.items()},
            col={k: t(e[1]) for k, e in edges.items()},
            edge={k: t(e[2]) for k, e in edges.items()},
            num_sampled_nodes=nsn,
            num_sampled_edges=nse,
        )

    class Ref(BaseSampler):
        def sample_from_nodes(self, inputs):
            out = node_sample(inputs, sample_fn)
            return out.to_bidirectional() if bidirectional else out  # as NeighborSampler

        def sample_from_edges(self, inputs, neg_sampling=None):
            counts = {k: s.num_nodes for k, s in data.node_items()}
            out = edge_sample(inputs, sample_fn, counts, disjoint, None, neg_sampling)
            return out.to_bidirectional() if bidirectional else out

        @property
        def edge_permutation(self):
            return None

    return Ref()


def _to_pyg(torch, data):
    from torch_geometric.data import HeteroData as PygHetero

    out = PygHetero()
    for t, store in data.node_items():
        for key, value in store.items():
            out[t][key] = value if key == "num_nodes" else torch.as_tensor(value)
    for et, store in data.edge_items():
        for key, value in store.items():
            out[et][key] = torch.as_tensor(value)
    return out


def _same(ours, theirs, skip=()):
    for store_key in list(theirs.node_types) + list(theirs.edge_types):
        mine, ref = ours[store_key], theirs[store_key]
        keys = set(ref.keys()) - set(skip)
        assert keys <= set(mine.keys()), (store_key, keys - set(mine.keys()))
        for key in keys:
            a, b = mine[key], ref[key]
            if hasattr(b, "numpy"):
                b = b.numpy()
                assert np.asarray(a).dtype == b.dtype, (store_key, key)
                np.testing.assert_array_equal(np.asarray(a), b, err_msg=f"{store_key} {key}")
            else:
                assert a == b, (store_key, key, a, b)


FANOUTS = {
    "all": [-1, -1],
    "dict_0": {W: [-1, -1], R: [0, -1], C: [-1, 0], V: [-1, -1]},
    "dict_3hops": {W: [-1, 0, -1], R: [-1, -1, 0], C: [0, -1, -1], V: [0, 0, -1]},
}


def _expand(fanouts, data):
    if isinstance(fanouts, dict):
        return fanouts
    return {et: list(fanouts) for et in data.edge_types}


@pytest.mark.parametrize(
    "form", ["ids", "mask", "none", "name"]
)  # fmt: skip
@pytest.mark.parametrize("fan", list(FANOUTS))
def test_neighbor_loader_equals_pygs_pipeline(form, fan):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import NodeLoader

    data = _graph()
    fanouts = FANOUTS[fan]
    mask = np.zeros(SIZES["author"], dtype=bool)
    mask[[1, 2, 4, 5]] = True
    given = {
        "ids": (("author", np.array([5, 0, 3, 2])), ("author", torch.tensor([5, 0, 3, 2]))),
        "mask": (("author", mask), ("author", torch.as_tensor(mask))),
        "none": (("author", None), ("author", None)),
        "name": ("author", "author"),
    }[form]
    sampler = _pyg_sampler(torch, data, _expand(fanouts, data))
    seen = []

    def tag(batch):  # PyG's transform: called once per batch, its result yielded
        seen.append(batch)
        batch["venue"].tag = len(seen)
        return batch

    theirs = list(NodeLoader(_to_pyg(torch, data), sampler, input_nodes=given[1], batch_size=3))
    ours = list(NeighborLoader(data, fanouts, input_nodes=given[0], batch_size=3, transform=tag))
    assert len(ours) == len(theirs) == 2 and seen == ours
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a["venue"].tag == i + 1
        assert {"n_id", "input_id", "batch_size", "num_sampled_nodes"} <= set(b["author"].keys())
        assert {"e_id", "num_sampled_edges", "edge_attr"} <= set(b[C].keys())
        _same(a, b)


def test_num_neighbors_default_fills_missing_types_as_pyg():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import NodeLoader
    from torch_geometric.sampler import NumNeighbors as PygNumNeighbors

    data = _graph()
    values, default = {R: [0, -1], C: [-1, 0]}, [-1, -1]
    expected = PygNumNeighbors(values, default=default).get_values(data.edge_types)
    assert {tuple(k): v for k, v in expected.items()} == _expand(FANOUTS["dict_0"], data)
    sampler = _pyg_sampler(torch, data, expected)
    seeds = np.array([4, 0, 8])
    theirs = next(iter(NodeLoader(
        _to_pyg(torch, data), sampler, input_nodes=("paper", torch.as_tensor(seeds)), batch_size=3
    )))  # fmt: skip
    ours = next(iter(NeighborLoader(
        data, NumNeighbors(values, default=default), input_nodes=("paper", seeds), batch_size=3
    )))  # fmt: skip
    _same(ours, theirs)


@pytest.mark.parametrize("fan", ["dict_0", "dict_3hops"])
def test_disjoint_dict_fanouts_and_repeated_seeds_equal_pygs_pipeline(fan):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import NodeLoader

    data = _graph()
    seeds = np.array([4, 0, 4, 7, 1])
    sampler = _pyg_sampler(torch, data, FANOUTS[fan], disjoint=True)
    theirs = list(NodeLoader(
        _to_pyg(torch, data), sampler, input_nodes=("paper", torch.as_tensor(seeds)), batch_size=3
    ))  # fmt: skip
    ours = list(NeighborLoader(
        data, FANOUTS[fan], input_nodes=("paper", seeds), batch_size=3, disjoint=True
    ))  # fmt: skip
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        assert "batch" in b["author"].keys()
        _same(a, b)


@pytest.mark.filterwarnings("ignore:.*reverse")
@pytest.mark.parametrize("disjoint", [False, True])
@pytest.mark.parametrize("loader", ["node", "link"])
def test_bidirectional_with_dict_fanouts_equals_pygs_pipeline(loader, disjoint):
    """``subgraph_type='bidirectional'``: PyG's ``HeteroSamplerOutput.to_bidirectional``
    of the directional sample (``('paper', 'in', 'venue')`` has no reverse: kept)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import LinkLoader, NodeLoader

    data = _graph()
    fan = FANOUTS["dict_3hops"]
    sampler = _pyg_sampler(torch, data, fan, disjoint=disjoint, bidirectional=True)
    kw = dict(batch_size=3, subgraph_type="bidirectional", disjoint=disjoint)
    if loader == "node":
        seeds = np.array([4, 0, 7, 1])
        theirs = NodeLoader(
            _to_pyg(torch, data), sampler, input_nodes=("paper", torch.as_tensor(seeds)),
            batch_size=3,
        )  # fmt: skip
        ours = NeighborLoader(data, fan, input_nodes=("paper", seeds), **kw)
    else:
        theirs = LinkLoader(
            _to_pyg(torch, data), sampler, edge_label_index=(C, torch.as_tensor(LABEL[C])),
            batch_size=3,
        )  # fmt: skip
        ours = LinkNeighborLoader(data, fan, edge_label_index=(C, LABEL[C]), **kw)
    theirs, ours = list(theirs), list(ours)
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        assert "num_sampled_nodes" not in a["paper"] and "e_id" not in a[W]
        assert "e_id" in a[V] and "e_id" not in b[W].keys()
        _same(a, b)


def _global_pairs(batch, et, index):
    return np.stack([batch[et[0]].n_id[index[0]], batch[et[2]].n_id[index[1]]])


LABEL = {W: np.array([[0, 5, 2, 5], [3, 1, 3, 7]]), C: np.array([[1, 6, 6, 0], [2, 2, 4, 1]])}


@pytest.mark.parametrize("et", [W, C])
@pytest.mark.parametrize(
    "neg", [None, "labels", ("binary", 1.5), ("binary_labels", 1.0), ("triplet", 1),
            ("triplet", 2)],
)  # fmt: skip
def test_link_loader_equals_pygs_pipeline_fed_the_same_pairs(et, neg):
    """Our batch's label pairs (positives, then our negatives, mapped back through
    ``n_id``) fed to PyG's ``LinkLoader`` without negatives give the same seeds and
    subgraph; the labels / triplet indices are PyG's ``edge_sample`` rules."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import LinkLoader

    data = _graph()
    fanouts = FANOUTS["dict_0"]
    label_index = LABEL[et]
    labels = np.array([0, 2, 1, 0]) if neg in ("labels", ("binary_labels", 1.0)) else None
    kw = {}
    if isinstance(neg, tuple):
        kw["neg_sampling"] = dict(mode=neg[0].split("_")[0], amount=neg[1])
    ours = list(LinkNeighborLoader(
        data, fanouts, edge_label_index=(et, label_index), edge_label=labels, batch_size=4,
        seed=5, **kw,
    ))  # fmt: skip
    assert len(ours) == 1
    a = ours[0]
    P = 4
    src_t, _, dst_t = et
    if isinstance(neg, tuple) and neg[0] == "triplet":
        amount = neg[1]
        src = a[src_t].n_id[a[src_t].src_index]
        pos = a[dst_t].n_id[a[dst_t].dst_pos_index]
        neg_idx = a[dst_t].dst_neg_index
        assert neg_idx.shape == ((P,) if amount == 1 else (P, amount))
        np.testing.assert_array_equal(np.stack([src, pos]), label_index)
        negs = a[dst_t].n_id[neg_idx.reshape(P, -1)]
        existing = set(map(tuple, data[et].edge_index.T.tolist()))
        assert not {(int(s), int(d)) for s, row in zip(src, negs) for d in row} & existing
        pairs = np.concatenate(
            [label_index, np.stack([np.repeat(src, amount), negs.reshape(-1)])], axis=1
        )
        assert "edge_label" not in a[et] and "edge_label_index" not in a[et]
        skip = ("edge_label", "edge_label_index", "input_id")
    else:
        pairs = _global_pairs(a, et, a[et].edge_label_index)
        np.testing.assert_array_equal(pairs[:, :P], label_index)
        n_neg = pairs.shape[1] - P
        assert n_neg == (0 if not isinstance(neg, tuple) else int(np.ceil(P * neg[1])))
        if labels is None and neg is None:  # PyG: no labels given, no negatives: none
            assert "edge_label" not in a[et]
        else:  # binary: ones (or the labels, + 1 when their minimum is 0), then zeros
            pos_label = np.ones(P, np.float32) if labels is None else labels + (n_neg > 0)
            expected = np.concatenate([pos_label, np.zeros(n_neg, pos_label.dtype)])
            assert a[et].edge_label.dtype == expected.dtype
            np.testing.assert_array_equal(a[et].edge_label, expected)
        skip = ("edge_label", "input_id")
    np.testing.assert_array_equal(a[et].input_id, np.arange(P))
    sampler = _pyg_sampler(torch, data, fanouts)
    theirs = list(LinkLoader(
        _to_pyg(torch, data), sampler, edge_label_index=(et, torch.as_tensor(pairs)),
        batch_size=pairs.shape[1],
    ))  # fmt: skip
    _same(a, theirs[0], skip=skip)


def test_link_loader_label_batches_and_shorthand_types_as_pyg():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import LinkLoader

    data = _graph()
    fanouts = {"writes": [-1], ("paper", "author"): [0], "cites": [-1], "in": [0]}
    label_index = np.array([[0, 5, 2, 5, 1], [3, 1, 3, 7, 0]])
    labels = np.array([0.5, 2.0, 1.0, 3.0, 0.25], dtype=np.float32)
    ours = list(LinkNeighborLoader(
        data, fanouts, edge_label_index=("writes", label_index), edge_label=labels, batch_size=2,
    ))  # fmt: skip
    sampler = _pyg_sampler(torch, data, {W: [-1], R: [0], C: [-1], V: [0]})
    theirs = list(LinkLoader(
        _to_pyg(torch, data), sampler, edge_label_index=(W, torch.as_tensor(label_index)),
        edge_label=torch.as_tensor(labels), batch_size=2,
    ))  # fmt: skip
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert {"edge_label", "edge_label_index", "input_id"} <= set(b[W].keys())
        _same(a, b)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(num_neighbors={("paper", "likes", "paper"): [1]}), "likes"),
        (dict(num_neighbors={W: [1], R: [1], C: [1]}), "no fan-outs"),
        (dict(num_neighbors={W: [1], R: [1, 1], C: [1], V: [1]}), "same number of hops"),
        (dict(num_neighbors=[-2]), "num_neighbors"),
        (dict(input_nodes=("paper", np.array([0, 9]))), "outside"),
        (dict(input_nodes=("paper", np.zeros(5, bool))), "mask"),
        (dict(input_nodes=("book", None)), "book"),
        (dict(input_nodes=("paper", np.array([0.0, 1.0]))), "input_nodes"),
        (dict(input_time=np.array([1, 2])), "input_time"),
        (dict(transform=3), "transform"),
    ],
)
def test_bad_input_names_the_argument(kw, match):
    kw = {"num_neighbors": [-1], "input_nodes": ("paper", None), **kw}
    with pytest.raises((ValueError, TypeError), match=match):
        next(iter(NeighborLoader(_graph(), **kw)))


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(edge_label_index=(("paper", "likes", "paper"), None)), "likes"),
        (dict(edge_label_index=(W, np.array([[0, 6], [0, 0]]))), "edge_label_index"),
        (dict(edge_label_index=(W, np.array([[0, 1], [0, 9]]))), "edge_label_index"),
        (dict(edge_label=np.ones(3)), "edge_label"),
        (dict(edge_label=np.ones(14), neg_sampling="triplet"), "edge_label"),
        (dict(neg_sampling=dict(mode="other")), "mode|neg_sampling"),
        (dict(neg_sampling=dict(mode="binary", amount=0)), "amount"),
    ],
)
def test_link_bad_input_names_the_argument(kw, match):
    kw = {"num_neighbors": [-1], "edge_label_index": (W, None), **kw}
    with pytest.raises((ValueError, TypeError), match=match):
        next(iter(LinkNeighborLoader(_graph(), **kw)))


@pytest.mark.parametrize("strategy", ["uniform", "last"])
@pytest.mark.parametrize("given", [False, True])
def test_node_time_finite_fanouts_respect_seed_times(strategy, given):
    """pyg-lib's temporal rule per tree: a neighbour is eligible when its time is at most
    the tree's seed time (``input_time`` or the seed's own time); ``k`` of them per node
    and edge type (all when fewer); ``'last'`` takes the latest ones. With ``given``,
    ``author`` has no time: ``writes`` (author -> paper) is sampled unconstrained (pyg-lib)."""
    data = _graph()
    rng = np.random.default_rng(9)
    for t in ("paper",) if given else ("paper", "author"):
        data[t].t = rng.integers(0, 5, SIZES[t])
    seeds = np.array([3, 0, 5, 3, 6, 1])
    seed_time = rng.integers(2, 5, 6) if given else data["paper"].t[seeds]
    fan = {W: [2, 1], R: [1, 2], C: [2, 2], V: [1, 0]}
    loader = NeighborLoader(
        data, fan, input_nodes=("paper", seeds), batch_size=4, time_attr="t",
        input_time=seed_time if given else None, temporal_strategy=strategy, seed=1,
    )  # fmt: skip
    b = next(iter(loader))
    assert ("seed_time" in b["paper"]) == given
    for t in ("paper",) if given else ("paper", "author"):
        np.testing.assert_array_equal(b[t].t, data[t].t[b[t].n_id])
        first = 6 if t == "paper" else 0  # the seeds themselves are not filtered (PyG)
        assert (b[t].t[first:] <= seed_time[b[t].batch[first:]]).all()
    for et, ks in fan.items():
        s_t, _, d_t = et
        ei, row, col = data[et].edge_index, *b[et].edge_index
        np.testing.assert_array_equal(b[s_t].batch[row], b[d_t].batch[col])
        starts = np.cumsum([0] + b[d_t].num_sampled_nodes)
        for h, k in enumerate(ks):
            for j in range(starts[h], starts[h + 1]):  # the hop-h frontier of d_t
                tree, v = b[d_t].batch[j], b[d_t].n_id[j]
                cand = np.flatnonzero(ei[1] == v)
                if "t" in data[s_t]:
                    cand = cand[data[s_t].t[ei[0, cand]] <= seed_time[tree]]
                got = b[et].e_id[col == j]
                assert len(got) == (0 if k == 0 else min(k, len(cand)))
                assert set(got.tolist()) <= set(cand.tolist())
                if strategy == "last" and "t" in data[s_t] and k > 0:
                    times = np.sort(data[s_t].t[ei[0, cand]])[::-1][: len(got)]
                    np.testing.assert_array_equal(np.sort(data[s_t].t[ei[0, got]])[::-1], times)


@pytest.mark.parametrize("labels", [[1, 0, 2, 3, 1], [1, 1, 2, 3, 1]])
def test_binary_labels_shift_by_the_minimum_of_all_labels(labels):
    """PyG's ``LinkLoader.__init__``: ``edge_label + 1`` when the minimum of *all* the
    labels is 0 (not per batch); negatives get zeros of the labels' dtype."""
    labels = np.array(labels)
    label_index = np.array([[0, 5, 2, 5, 1], [3, 1, 3, 7, 0]])
    loader = LinkNeighborLoader(
        _graph(), [1], edge_label_index=(W, label_index), edge_label=labels, batch_size=2,
        neg_sampling="binary", seed=0,
    )  # fmt: skip
    shifted = labels + int(labels.min() == 0)
    for i, b in enumerate(loader):
        pos = shifted[2 * i : 2 * i + 2]
        expected = np.concatenate([pos, np.zeros(len(pos), labels.dtype)])
        assert b[W].edge_label.dtype == labels.dtype
        np.testing.assert_array_equal(b[W].edge_label, expected)
