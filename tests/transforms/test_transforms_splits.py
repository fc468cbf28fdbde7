"""``RandomNodeSplit`` and ``RandomLinkSplit`` against PyG 2.8.

The draws differ from PyG's (torch's generator), so two kinds of checks: the structural
guarantees, with the sizes computed by PyG's arithmetic written out here (disjoint masks,
train edges ⊂ val edges ⊂ test edges, both directions when undirected, labels, negatives
that are not edges, reverse edge types mirrored), and PyG itself run with torch's
``randperm`` and its negative sampler patched to hand out our draws, which must then give
exactly our outputs.
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms import RandomLinkSplit, RandomNodeSplit
from arraygnn.utils import negative_sampling

INDEX_DTYPES = [np.int32, np.int64]


def _snapshot(data):
    if isinstance(data, HeteroData):
        out = {("g", k): copy.deepcopy(v) for k, v in data._global.items()}
        for t, s in list(data.node_items()) + list(data.edge_items()):
            out.update({(t, k): np.array(v, copy=True) for k, v in s.items()})
        return out
    return {k: copy.deepcopy(v) for k, v in data.items()}


def _same(before, data):
    after = _snapshot(data)
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(np.asarray(before[k]), np.asarray(after[k]))


def _pairs(ei):
    return set(zip(ei[0].tolist(), ei[1].tolist()))


# ----------------------------------------------------------------------------- node split


@pytest.mark.parametrize("num_val,num_test", [(3, 4), (0.25, 0.35), (0.15, 100), (50, 0)])
@pytest.mark.parametrize("n", [0, 1, 10, 30])
def test_node_split_train_rest_sizes(n, num_val, num_test):
    d = Data(x=np.zeros((n, 2), np.float32), y=np.arange(n) % 3)
    before = _snapshot(d)
    out = RandomNodeSplit(num_val=num_val, num_test=num_test, seed=1)(d)
    _same(before, d)
    assert "train_mask" not in d
    v = round(n * num_val) if isinstance(num_val, float) else num_val
    t = round(n * num_test) if isinstance(num_test, float) else num_test
    want_val = min(v, n)
    want_test = min(t, max(n - v, 0))
    assert out.val_mask.dtype == bool and out.val_mask.shape == (n,)
    assert int(out.val_mask.sum()) == want_val
    assert int(out.test_mask.sum()) == want_test
    assert int(out.train_mask.sum()) == n - want_val - want_test
    total = out.train_mask.astype(int) + out.val_mask + out.test_mask
    assert (total == 1).all()


def test_node_split_python_rounding():
    # round(10 * 0.25) = round(2.5) = 2 (banker's rounding, as PyG's Python round)
    d = Data(num_nodes=10)
    out = RandomNodeSplit(num_val=0.25, num_test=0.35, key=None, seed=0)(d)
    assert int(out.val_mask.sum()) == 2 and int(out.test_mask.sum()) == 4


@pytest.mark.parametrize("split", ["test_rest", "random"])
@pytest.mark.parametrize("ydtype", [np.int32, np.int64])
def test_node_split_per_class(split, ydtype):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 60).astype(ydtype)
    y[:5] = 6  # classes 4 and 5 are empty, class 6 small
    d = Data(x=np.zeros((60, 1)), y=y)
    out = RandomNodeSplit(split, num_train_per_class=3, num_val=10, num_test=7, seed=3)(d)
    for c in range(7):
        assert int(out.train_mask[y == c].sum()) == min(3, int((y == c).sum()))
    assert int(out.val_mask.sum()) == 10
    rest = 60 - int(out.train_mask.sum()) - 10
    assert int(out.test_mask.sum()) == (rest if split == "test_rest" else 7)
    assert not (out.train_mask & out.val_mask).any()
    assert not (out.test_mask & (out.train_mask | out.val_mask)).any()


def test_node_split_negative_labels_never_train():
    y = np.array([-1, -1, 0, 0, 1, 1])
    out = RandomNodeSplit("random", num_train_per_class=5, num_val=0, num_test=0, seed=0)(
        Data(y=y, num_nodes=6)
    )
    assert out.train_mask.tolist() == [False, False, True, True, True, True]


def test_node_split_num_splits_and_seed():
    d = Data(x=np.zeros((20, 1)), y=np.arange(20) % 2)
    out = RandomNodeSplit(num_splits=4, num_val=5, num_test=5, seed=7)(d)
    assert out.train_mask.shape == (20, 4)
    assert (out.val_mask.sum(0) == 5).all() and (out.train_mask.sum(0) == 10).all()
    assert len({out.val_mask[:, i].tobytes() for i in range(4)}) > 1
    again = RandomNodeSplit(num_splits=4, num_val=5, num_test=5, seed=7)(d)
    np.testing.assert_array_equal(out.val_mask, again.val_mask)


def test_node_split_hetero():
    d = HeteroData()
    d["paper"].x = np.zeros((12, 2))
    d["paper"].y = np.arange(12) % 3
    d["author"].x = np.zeros((5, 2))
    before = _snapshot(d)
    out = RandomNodeSplit(num_val=2, num_test=3, seed=0)(d)
    _same(before, d)
    assert int(out["paper"].val_mask.sum()) == 2 and int(out["paper"].test_mask.sum()) == 3
    assert "train_mask" not in out["author"]
    every = RandomNodeSplit(num_val=1, num_test=1, key=None, seed=0)(d)
    assert int(every["author"].train_mask.sum()) == 3


def test_node_split_errors():
    with pytest.raises(ValueError, match="RandomNodeSplit: num_splits must be an int >= 1"):
        RandomNodeSplit(num_splits=0)
    with pytest.raises(TypeError, match="RandomNodeSplit: num_train_per_class must be an int"):
        RandomNodeSplit(num_train_per_class=2.0)
    with pytest.raises(ValueError, match="RandomNodeSplit: split"):
        RandomNodeSplit("bad")
    with pytest.raises(TypeError, match="RandomNodeSplit: num_val"):
        RandomNodeSplit(num_val="3")
    with pytest.raises(ValueError, match="RandomNodeSplit: num_test"):
        RandomNodeSplit(num_test=-1)
    with pytest.raises(TypeError, match="RandomNodeSplit: seed"):
        RandomNodeSplit(seed="x")
    with pytest.raises(ValueError, match="RandomNodeSplit: num_nodes is unknown"):
        RandomNodeSplit(key=None)(Data(edge_index=np.zeros((2, 0), np.int64)))
    with pytest.raises(ValueError, match=r"RandomNodeSplit: data\['y'\] must hold one integer"):
        RandomNodeSplit("random")(Data(x=np.zeros((3, 1)), y=np.zeros(3)))


def _torch_pyg():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    return torch


def _queue_randperm(monkeypatch, torch, perms):
    queue = list(perms)

    def fake(n, *args, **kwargs):
        p = queue.pop(0)
        assert len(p) == n
        return torch.from_numpy(np.asarray(p, dtype=np.int64))

    monkeypatch.setattr(torch, "randperm", fake)
    return queue


@pytest.mark.parametrize("split", ["train_rest", "test_rest", "random"])
def test_node_split_matches_pyg_with_our_draws(monkeypatch, split):
    torch = _torch_pyg()
    from torch_geometric.data import Data as PygData
    from torch_geometric.transforms import RandomNodeSplit as PygSplit

    rng = np.random.default_rng(5)
    n = 40
    y = rng.integers(0, 3, n)
    kwargs = dict(split=split, num_splits=2, num_train_per_class=4, num_val=0.2, num_test=6)
    ours = RandomNodeSplit(**kwargs, seed=11)(Data(x=np.zeros((n, 1)), y=y))
    # the draws our transform made, replayed: a permutation per split ('train_rest'), or a
    # key per node (sorted within each class) and a permutation of the rest
    draw = np.random.default_rng(11)
    perms = []
    for _ in range(2):
        if split == "train_rest":
            perms.append(draw.permutation(n))
            continue
        keys = draw.random(n)
        train = np.zeros(n, bool)
        for c in range(int(y.max()) + 1):
            idx = np.nonzero(y == c)[0]
            order = np.argsort(keys[idx], kind="stable")
            perms.append(order)
            train[idx[order][:4]] = True
        perms.append(draw.permutation(int((~train).sum())))
    queue = _queue_randperm(monkeypatch, torch, perms)
    theirs = PygSplit(**kwargs)(PygData(x=torch.zeros(n, 1), y=torch.from_numpy(y)))
    assert not queue
    for name in ("train_mask", "val_mask", "test_mask"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name).numpy())


# ----------------------------------------------------------------------------- link split


def _graph(n=30, e=120, seed=0, dtype=np.int64, undirected=False):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e))
    ei = np.unique(ei[:, ei[0] != ei[1]], axis=1)
    if undirected:
        ei = np.unique(np.concatenate([ei, ei[::-1]], axis=1), axis=1)
    return ei.astype(dtype)


def _expected_counts(total, num_val, num_test, disjoint=0.0, ratio=1.0, add_neg=True):
    v = int(num_val * total) if isinstance(num_val, float) else num_val
    t = int(num_test * total) if isinstance(num_test, float) else num_test
    train = total - v - t
    dis = int(disjoint * train) if isinstance(disjoint, float) else disjoint
    neg_train = int((dis if dis > 0 else train) * ratio) if add_neg else 0
    return v, t, train, dis, neg_train, int(v * ratio), int(t * ratio)


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("disjoint", [0.0, 0.3, 2])
def test_link_split_structure(dtype, undirected, disjoint):
    n = 30
    ei = _graph(n, dtype=dtype, undirected=undirected)
    e = ei.shape[1]
    w = np.arange(e, dtype=np.float32)
    d = Data(x=np.zeros((n, 2), np.float32), edge_index=ei, edge_weight=w)
    before = _snapshot(d)
    t = RandomLinkSplit(
        num_val=0.1, num_test=0.2, is_undirected=undirected, disjoint_train_ratio=disjoint, seed=2
    )
    train, val, test = t(d)
    _same(before, d)
    total = int((ei[0] <= ei[1]).sum()) if undirected else e
    v, te, tr, dis, neg_tr, neg_v, neg_te = _expected_counts(total, 0.1, 0.2, disjoint)
    mult = 2 if undirected else 1
    assert train.edge_index.shape == (2, mult * (tr - dis))
    assert val.edge_index.shape == (2, mult * tr)
    assert test.edge_index.shape == (2, mult * (tr + v))
    for g in (train, val, test):
        assert g.edge_index.dtype == dtype and g.edge_label_index.dtype == dtype
        assert g.edge_weight.shape == (g.edge_index.shape[1],)
        # each kept edge carries its own weight (weights are the original positions)
        pos = g.edge_weight.astype(int)
        np.testing.assert_array_equal(
            g.edge_index,
            np.concatenate([ei[:, pos[: len(pos) // mult]]] * mult, axis=1)
            if not undirected
            else np.concatenate(
                [ei[:, pos[: len(pos) // 2]], ei[::-1, pos[: len(pos) // 2]]], axis=1
            ),
        )
        assert g.x is d.x  # node arrays are shared, untouched
        if undirected:
            assert _pairs(g.edge_index) == {(b, a) for a, b in _pairs(g.edge_index)}
    assert _pairs(train.edge_index) <= _pairs(val.edge_index) <= _pairs(test.edge_index)
    # supervision edges: positives then negatives, labels 1 / 0
    for g, pos_count, neg_count in (
        (train, dis or tr, neg_tr),
        (val, v, neg_v),
        (test, te, neg_te),
    ):
        assert g.edge_label.dtype == np.float32
        assert g.edge_label.tolist() == [1.0] * pos_count + [0.0] * neg_count
        lab = g.edge_label_index
        assert _pairs(lab[:, :pos_count]) <= _pairs(ei)
        negs = lab[:, pos_count:]
        assert not (_pairs(negs) & _pairs(ei)) and (negs[0] != negs[1]).all()
    # val / test positives are not message edges of their split; train's are (unless disjoint)
    assert not (_pairs(val.edge_label_index[:, :v]) & _pairs(val.edge_index))
    assert not (_pairs(test.edge_label_index[:, :te]) & _pairs(test.edge_index))
    if dis:
        assert not (_pairs(train.edge_label_index[:, :dis]) & _pairs(train.edge_index))
    else:
        assert _pairs(train.edge_label_index[:, :tr]) == _pairs(train.edge_index[:, :tr])
    # negatives of the three splits are distinct pairs
    negs = [
        _pairs(g.edge_label_index[:, c:]) for g, c in ((train, dis or tr), (val, v), (test, te))
    ]
    assert sum(len(s) for s in negs) == len(set().union(*negs))


def test_link_split_int_counts_labels_and_split_labels():
    ei = _graph(20, 80, seed=3)
    e = ei.shape[1]
    label = np.arange(e) % 3
    d = Data(edge_index=ei, num_nodes=20, edge_label=label)
    train, val, test = RandomLinkSplit(5, 4, split_labels=True, neg_sampling_ratio=2.0, seed=0)(d)
    _, _, tr, _, neg_tr, neg_v, neg_te = _expected_counts(e, 5, 4, ratio=2.0)
    assert "edge_label" not in train and "edge_label_index" not in val
    assert val.pos_edge_label_index.shape == (2, 5) and test.pos_edge_label.shape == (4,)
    assert val.neg_edge_label_index.shape == (2, neg_v) and test.neg_edge_label.shape == (neg_te,)
    assert train.neg_edge_label.shape == (neg_tr,) and train.neg_edge_label.dtype == label.dtype
    assert (train.neg_edge_label == 0).all()
    # existing labels: shifted by one (negatives take 0), each positive keeps its own
    lookup = {p: label[i] for i, p in enumerate(zip(*ei.tolist()))}
    for g in (train, val, test):
        pairs = list(zip(*g.pos_edge_label_index.tolist()))
        assert g.pos_edge_label.tolist() == [lookup[p] + 1 for p in pairs]
    assert train.edge_index.shape == (2, tr)


def test_link_split_no_negatives_keeps_labels_and_float():
    ei = _graph(15, 60, seed=4)
    d = Data(edge_index=ei, num_nodes=15, edge_label=np.linspace(0, 1, ei.shape[1]))
    t = RandomLinkSplit(0.2, 0.2, add_negative_train_samples=False, neg_sampling_ratio=0.0, seed=0)
    train, val, _ = t(d)
    assert train.edge_label.dtype == np.float64 and val.edge_label.shape == (
        int(0.2 * ei.shape[1]),
    )
    with pytest.raises(
        TypeError, match="RandomLinkSplit: data\\['edge_label'\\] must hold integer"
    ):
        RandomLinkSplit(0.2, 0.2, seed=0)(d)


def test_link_split_not_enough_negatives_warns_and_adjusts():
    n = 5
    ei = np.array([(i, j) for i in range(n) for j in range(n) if i != j][:17]).T
    d = Data(edge_index=ei, num_nodes=n)
    with pytest.warns(UserWarning, match="not enough negative edges"):
        train, val, test = RandomLinkSplit(0.2, 0.2, seed=0)(d)
    found = n * (n - 1) - 17
    v, t = int(0.2 * 17), int(0.2 * 17)
    num_neg = (17 - v - t) + v + t
    nv = int((v / num_neg) * found)
    nt = found - int(((17 - v - t) / num_neg) * found) - nv
    assert (val.edge_label == 0).sum() == nv and (test.edge_label == 0).sum() == nt


def test_link_split_tiny_and_errors():
    with pytest.raises(ValueError, match="RandomLinkSplit: insufficient number of edges"):
        RandomLinkSplit()(Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=3))
    d = Data(edge_index=np.array([[0, 1, 2], [1, 2, 0]]), num_nodes=3)
    with pytest.raises(ValueError, match="insufficient number of edges"):
        RandomLinkSplit(1, 1, disjoint_train_ratio=1)(d)
    train, val, test = RandomLinkSplit(1, 1, seed=0)(d)
    assert train.edge_index.shape == (2, 1) and test.edge_index.shape == (2, 2)
    with pytest.raises(ValueError, match="RandomLinkSplit: data attribute\\(s\\) \\['y'\\]"):
        RandomLinkSplit()(Data(edge_index=d.edge_index, x=np.zeros((3, 1)), y=np.zeros(3)))
    out = RandomLinkSplit(1, 1, node_attrs=["x", "y"], seed=0)(
        Data(edge_index=d.edge_index, x=np.zeros((3, 1)), y=np.zeros(3))
    )
    assert out[0].y.shape == (3,)
    with pytest.raises(ValueError, match="RandomLinkSplit: num_nodes is unknown"):
        RandomLinkSplit()(Data(edge_index=d.edge_index))
    with pytest.raises(ValueError, match="RandomLinkSplit: edge_index row 1 holds node id 5"):
        RandomLinkSplit()(Data(edge_index=np.array([[0], [5]]), num_nodes=3))
    with pytest.raises(TypeError, match="RandomLinkSplit: num_val"):
        RandomLinkSplit(num_val="1")
    with pytest.raises(ValueError, match="RandomLinkSplit: edge_types must be given"):
        RandomLinkSplit()(HeteroData())
    with pytest.raises(ValueError, match="RandomLinkSplit: rev_edge_types must be a list"):
        RandomLinkSplit(edge_types=[("a", "r", "b")], rev_edge_types=[None, None])


def _hetero(dtype=np.int64):
    rng = np.random.default_rng(8)
    d = HeteroData()
    d["u"].x = np.zeros((12, 2), np.float32)
    d["i"].x = np.ones((15, 3), np.float32)
    ei = np.unique(np.stack([rng.integers(0, 12, 70), rng.integers(0, 15, 70)]), axis=1)
    d["u", "buys", "i"].edge_index = ei.astype(dtype)
    d["u", "buys", "i"].edge_attr = rng.random((ei.shape[1], 2)).astype(np.float32)
    d["i", "rev_buys", "u"].edge_index = ei[::-1].astype(dtype)
    d["i", "rev_buys", "u"].edge_attr = d["u", "buys", "i"].edge_attr
    d["i", "rev_buys", "u"].stale = np.zeros(ei.shape[1])
    uu = _graph(12, 40, seed=9, undirected=True).astype(dtype)
    d["u", "knows", "u"].edge_index = uu
    return d


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_link_split_hetero_rev_types(dtype):
    d = _hetero(dtype)
    before = _snapshot(d)
    et, rev = ("u", "buys", "i"), ("i", "rev_buys", "u")
    t = RandomLinkSplit(
        0.1, 0.2, is_undirected=True, edge_types=[et, ("u", "knows", "u")],
        rev_edge_types=[rev, None], seed=0,
    )  # fmt: skip
    train, val, test = t(d)
    _same(before, d)
    e = d[et].num_edges
    v, te, tr, *_ = _expected_counts(e, 0.1, 0.2)
    for g, m in ((train, tr), (val, tr), (test, tr + v)):
        # bipartite: is_undirected ignored; the reverse type mirrors the split edges
        assert g[et].edge_index.shape == (2, m) and g[et].edge_index.dtype == dtype
        np.testing.assert_array_equal(g[rev].edge_index, g[et].edge_index[::-1])
        np.testing.assert_array_equal(g[rev].edge_attr, g[et].edge_attr)
        assert "stale" not in g[rev]
        assert "edge_label" not in g[rev]
        assert _pairs(g[et].edge_label_index[:, g[et].edge_label == 0]).isdisjoint(
            _pairs(d[et].edge_index)
        )
        assert g[et].edge_label_index[0].max() < 12 and g[et].edge_label_index[1].max() < 15
    uu = d["u", "knows", "u"].edge_index
    total = int((uu[0] <= uu[1]).sum())
    v2, te2, tr2, *_ = _expected_counts(total, 0.1, 0.2)
    assert test["u", "knows", "u"].edge_index.shape == (2, 2 * (tr2 + v2))
    assert val["u", "knows", "u"].edge_label.shape == (2 * v2,)


def _pyg_data(d, torch):
    from torch_geometric.data import Data as PygData
    from torch_geometric.data import HeteroData as PygHetero

    if isinstance(d, HeteroData):
        out = PygHetero()
        for t, s in list(d.node_items()) + list(d.edge_items()):
            for k, v in s.items():
                out[t][k] = torch.from_numpy(np.ascontiguousarray(v))
        return out
    return PygData(
        **{k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in d.items()}
    )


def _assert_like_pyg(ours, theirs):
    if isinstance(ours, HeteroData):
        pairs = [(ours[t], theirs[t]) for t in ours.node_types + ours.edge_types]
    else:
        pairs = [(ours, theirs)]
    for a, b in pairs:
        keys_b = [k for k in b.keys() if k != "num_nodes"]
        assert sorted(k for k in a.keys() if k != "num_nodes") == sorted(keys_b)
        for k in keys_b:
            got, want = np.asarray(a[k]), b[k].numpy()
            assert got.dtype == want.dtype, k
            np.testing.assert_array_equal(got, want, err_msg=k)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_val=0.1, num_test=0.2),
        dict(num_val=0.15, num_test=0.1, is_undirected=True, neg_sampling_ratio=1.5),
        dict(num_val=3, num_test=5, disjoint_train_ratio=0.4, split_labels=True),
        dict(num_val=0.1, num_test=0.1, add_negative_train_samples=False, key="lab"),
    ],
)
def test_link_split_matches_pyg_with_our_draws(monkeypatch, kwargs):
    torch = _torch_pyg()
    import torch_geometric.transforms.random_link_split as pyg_mod

    undirected = kwargs.get("is_undirected", False)
    ei = _graph(25, 150, seed=6, undirected=undirected)
    e = ei.shape[1]
    d = Data(
        x=np.zeros((25, 3), np.float32), edge_index=ei,
        edge_attr=np.random.default_rng(0).random((e, 2)).astype(np.float32),
    )  # fmt: skip
    if kwargs.get("key") == "lab":
        d.lab = np.arange(e, dtype=np.int64) % 4
    ours = RandomLinkSplit(**kwargs, seed=21)(d)
    draw = np.random.default_rng(21)
    monkeypatch.setattr(torch, "randperm", lambda n, *a, **k: torch.from_numpy(draw.permutation(n)))

    def fake_negatives(edge_index, size, num_neg_samples, method):
        neg = negative_sampling(
            edge_index.numpy(), size, num_neg_samples=num_neg_samples, seed=draw
        )
        return torch.from_numpy(neg)

    monkeypatch.setattr(pyg_mod, "negative_sampling", fake_negatives)
    theirs = pyg_mod.RandomLinkSplit(**kwargs)(_pyg_data(d, torch))
    for a, b in zip(ours, theirs):
        _assert_like_pyg(a, b)


def test_link_split_hetero_matches_pyg_with_our_draws(monkeypatch):
    torch = _torch_pyg()
    import torch_geometric.transforms.random_link_split as pyg_mod

    d = _hetero()
    kwargs = dict(
        num_val=0.2, num_test=0.1, is_undirected=True,
        edge_types=[("u", "buys", "i"), ("u", "knows", "u")],
        rev_edge_types=[("i", "rev_buys", "u"), None],
    )  # fmt: skip
    ours = RandomLinkSplit(**kwargs, seed=4)(d)
    draw = np.random.default_rng(4)
    monkeypatch.setattr(torch, "randperm", lambda n, *a, **k: torch.from_numpy(draw.permutation(n)))
    monkeypatch.setattr(
        pyg_mod, "negative_sampling",
        lambda ei, size, num_neg_samples, method: torch.from_numpy(
            negative_sampling(ei.numpy(), size, num_neg_samples=num_neg_samples, seed=draw)
        ),
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pyg_mod.RandomLinkSplit(**kwargs)(_pyg_data(d, torch))
    for a, b in zip(ours, theirs):
        _assert_like_pyg(a, b)


def test_link_split_same_seed_same_split():
    d = Data(edge_index=_graph(), num_nodes=30)
    a = RandomLinkSplit(seed=5)(d)
    b = RandomLinkSplit(seed=5)(d)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.edge_label_index, y.edge_label_index)
    assert math.isfinite(float(a[0].edge_label.sum()))


# ----------------------------------------------------------------------------- node property split


def _er_graph(n=40, p=0.12, seed=0):
    rng = np.random.default_rng(seed)
    a = np.triu(rng.random((n, n)) < p, 1)
    ei = np.array(np.nonzero(a | a.T))
    return Data(edge_index=ei, num_nodes=n)


@pytest.mark.parametrize("prop", ["popularity", "locality", "density"])
@pytest.mark.parametrize("ascending", [True, False])
def test_node_property_split_structure(prop, ascending):
    pytest.importorskip("networkx")
    from arraygnn.interop.networkx import to_networkx
    from arraygnn.transforms import NodePropertySplit
    from arraygnn.transforms.node_property_split import property_values

    d = _er_graph()
    before = _snapshot(d)
    ratios = [0.3, 0.1, 0.1, 0.25, 0.25]
    out = NodePropertySplit(prop, ratios, ascending=ascending, seed=0)(d)
    _same(before, d)
    names = ["id_train_mask", "id_val_mask", "id_test_mask", "ood_val_mask", "ood_test_mask"]
    masks = [out[k] for k in names]
    sizes = np.round(40 * np.asarray(ratios, np.float32)).astype(int)
    sizes[-1] -= sizes.sum() - 40
    assert [int(m.sum()) for m in masks] == sizes.tolist()
    assert (sum(m.astype(int) for m in masks) == 1).all()
    v = property_values(prop, to_networkx(d, to_undirected=True, remove_self_loops=True))
    v = -v if ascending else v
    ind = v[masks[0] | masks[1] | masks[2]]
    assert ind.max() <= v[masks[3]].min() and v[masks[3]].max() <= v[masks[4]].min()


def test_node_property_split_matches_pyg_with_our_draws(monkeypatch):
    torch = _torch_pyg()
    pytest.importorskip("networkx")
    from torch_geometric.data import Data as PygData
    from torch_geometric.transforms import NodePropertySplit as PygSplit

    from arraygnn.transforms import NodePropertySplit

    d = _er_graph(seed=3)
    ratios = [0.4, 0.1, 0.1, 0.2, 0.2]
    ours = NodePropertySplit("popularity", ratios, seed=9)(d)
    draw = np.random.default_rng(9)
    perms = [draw.permutation(40), draw.permutation(24)]
    queue = _queue_randperm(monkeypatch, torch, perms)
    ref = PygSplit("popularity", ratios)(
        PygData(edge_index=torch.from_numpy(d.edge_index), num_nodes=40)
    )
    assert not queue
    for k in ("id_train_mask", "id_val_mask", "id_test_mask", "ood_val_mask", "ood_test_mask"):
        np.testing.assert_array_equal(out := ours[k], ref[k].numpy(), err_msg=k)
        assert out.dtype == bool


def test_node_property_split_errors():
    from arraygnn.transforms import NodePropertySplit

    with pytest.raises(ValueError, match="NodePropertySplit: property_name"):
        NodePropertySplit("degree", [0.2] * 5)
    with pytest.raises(ValueError, match="NodePropertySplit: ratios must contain 5"):
        NodePropertySplit("density", [0.5, 0.5])
    with pytest.raises(ValueError, match="NodePropertySplit: ratios must sum to 1.0"):
        NodePropertySplit("density", [0.3] * 5)
    with pytest.raises(ValueError, match="NodePropertySplit: num_nodes is unknown"):
        NodePropertySplit("density", [0.2] * 5)(Data(edge_index=np.array([[0], [1]])))
