"""EdgePooling, ASAPooling, PANConv / PANPooling, MemPooling and ClusterPooling against
PyG 2.8.1 (weights through ``from_pyg``) on random batched graphs: an empty graph in the
batch, isolated nodes, self-loops, multi-edges, int32 / int64 ids, float32 / float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.kernels.cpu.edge_contraction import torch_sort_desc  # noqa: E402
from arraygnn.nn import (  # noqa: E402
    ASAPooling,
    ClusterPooling,
    EdgePooling,
    MemPooling,
    PANConv,
    PANPooling,
    from_pyg,
)
from arraygnn.nn.edge_pool import contract_edges  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

SIZES = (6, 0, 9, 1, 7, 5)  # an empty graph and a lone node


def batched_graph(seed: int, idx_dtype=np.int64, sizes=SIZES, per_node=2):
    """Edges inside each graph, plus self-loops and duplicated edges; some isolated nodes."""
    rng = np.random.default_rng(seed)
    src, dst, batch, start = [], [], [], 0
    for g, n in enumerate(sizes):
        batch += [g] * n
        if n > 1:
            m = per_node * n
            s = rng.integers(0, n - 1, m) + start  # node n-1 of each graph: no out-edges
            d = rng.integers(0, n - 1, m) + start
            src += list(s) + [start, s[0]]  # a self-loop and a multi-edge
            dst += list(d) + [start, d[0]]
        start += n
    ei = np.array([src, dst], dtype=idx_dtype).reshape(2, -1)
    return ei, np.array(batch, dtype=np.int64), start


def _t(a):
    return torch.from_numpy(
        np.asarray(a).astype(np.int64) if np.asarray(a).dtype.kind in "iu" else a
    )


def _np(t):
    return t.detach().numpy()


# ---- the visiting order -----------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 5, 16, 17, 40, 333, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sort_matches_torch_argsort_with_ties(n, dtype):
    rng = np.random.default_rng(n)
    for values in (
        rng.integers(0, 4, n).astype(dtype),
        np.zeros(n, dtype),
        np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 3, n)).astype(dtype),
        np.sort(rng.integers(0, 9, n)).astype(dtype),
    ):
        expected = torch.argsort(torch.from_numpy(values), descending=True).numpy()
        np.testing.assert_array_equal(torch_sort_desc(values), expected)


def test_contraction_matches_pyg_merge_with_tied_scores():
    ei, batch, n = batched_graph(3, per_node=4)
    rng = np.random.default_rng(0)
    score = rng.integers(0, 3, ei.shape[1]).astype(np.float32)  # many ties
    x = torch.ones(n, 2)
    pool = pyg_nn.EdgePooling(2)
    _, _, _, info = pool._merge_edges(x, _t(ei), _t(batch), torch.from_numpy(score))
    cluster, chosen, size = contract_edges(ei, score, n)
    np.testing.assert_array_equal(cluster, info.cluster.numpy())
    assert size == int(info.cluster.max()) + 1


# ---- EdgePooling --------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["softmax", "tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_edge_pooling_matches_pyg(method, dtype, idx):
    torch.manual_seed(0)
    fn = getattr(pyg_nn.EdgePooling, f"compute_edge_score_{method}")
    ref = (
        pyg_nn.EdgePooling(4, edge_score_method=fn, add_to_edge_score=0.3)
        .to(getattr(torch, np.dtype(dtype).name))
        .eval()
    )
    ours = from_pyg(ref)
    assert isinstance(ours, EdgePooling)
    ei, batch, n = batched_graph(1, idx)
    # continuous features: PyTorch's GEMM may round equal rows differently, so exact ties
    # are checked on given scores (test_contraction_matches_pyg_merge_with_tied_scores)
    x = np.random.default_rng(1).standard_normal((n, 4)).astype(dtype)
    exp = ref(torch.from_numpy(x), _t(ei), _t(batch))
    got = ours(x, ei, batch)
    np.testing.assert_allclose(got[0], _np(exp[0]), rtol=1e-5, atol=1e-6)
    assert got[0].dtype == dtype
    np.testing.assert_array_equal(got[1], exp[1].numpy())
    np.testing.assert_array_equal(got[2], exp[2].numpy())
    np.testing.assert_array_equal(got[3].cluster, exp[3].cluster.numpy())
    np.testing.assert_allclose(got[3].new_edge_score, _np(exp[3].new_edge_score), rtol=1e-5)
    back = ours.unpool(got[0], got[3])
    exp_back = ref.unpool(exp[0], exp[3])
    np.testing.assert_allclose(back[0], _np(exp_back[0]), rtol=1e-5, atol=1e-6)
    assert back[1] is ei and back[2] is batch


@pytest.mark.parametrize("method", ["tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_edge_pooling_all_scores_tied_matches_pyg(method, dtype):
    """Saturated scores are exactly 1.0 on both sides: every edge ties, so which edges are
    contracted is decided by the visiting order alone (torch's unstable sort)."""
    fn = getattr(pyg_nn.EdgePooling, f"compute_edge_score_{method}")
    ref = pyg_nn.EdgePooling(3, edge_score_method=fn).to(getattr(torch, np.dtype(dtype).name))
    with torch.no_grad():
        ref.lin.weight.fill_(50.0)
        ref.lin.bias.fill_(50.0)
    ours = from_pyg(ref.eval())
    ei, batch, n = batched_graph(11, per_node=3)
    x = np.random.default_rng(11).random((n, 3)).astype(dtype)
    exp = ref(torch.from_numpy(x), _t(ei), _t(batch))
    got = ours(x, ei, batch)
    assert set(_np(exp[3].new_edge_score).tolist()) == {1.5, 1.0}  # all edges 1.0 + 0.5
    np.testing.assert_array_equal(got[3].cluster, exp[3].cluster.numpy())
    np.testing.assert_array_equal(got[1], exp[1].numpy())
    np.testing.assert_allclose(got[0], _np(exp[0]), rtol=1e-6)


def test_edge_pooling_from_pyg_rejects_a_custom_score():
    ref = pyg_nn.EdgePooling(3, edge_score_method=lambda raw, ei, n: raw)
    with pytest.raises(ValueError, match="EdgePooling edge_score_method"):
        from_pyg(ref)


def test_edge_pooling_without_edges_and_input_untouched():
    pool = EdgePooling(3, rng=0)
    x = np.ones((4, 3), np.float32)
    ei = np.zeros((2, 0), np.int64)
    x0 = x.copy()
    out, edges, batch, info = pool(x, ei, np.zeros(4, np.int64))
    np.testing.assert_array_equal(out, x)
    assert edges.shape == (2, 0) and batch.tolist() == [0, 0, 0, 0]
    np.testing.assert_array_equal(x, x0)


def test_edge_pooling_errors():
    pool = EdgePooling(3, rng=0)
    x = np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match="EdgePooling.*edge_index"):
        pool(x, np.array([[0, 5], [1, 2]]), np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="EdgePooling.*x"):
        pool(np.ones((3, 2), np.float32), np.array([[0], [1]]))
    with pytest.raises(TypeError, match="EdgePooling.*edge_index"):
        pool(x, np.array([[0.0], [1.0]]))
    with pytest.raises(ValueError, match="EdgePooling.*batch"):
        pool(x, np.array([[0], [1]]), np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="edge_score_method"):
        EdgePooling(3, edge_score_method="relu")


# ---- ASAPooling ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gnn, weighted, dtype",
    [
        (None, False, np.float32),
        (None, True, np.float64),
        ("GraphConv", True, np.float32),
        ("GCNConv", True, np.float64),
        ("GraphConv", False, np.float32),
    ],
)
@pytest.mark.parametrize("self_loops", [False, True])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_asap_matches_pyg(gnn, weighted, dtype, self_loops, idx):
    torch.manual_seed(2)
    tdt = getattr(torch, np.dtype(dtype).name)
    GNN = None if gnn is None else getattr(pyg_nn, gnn)
    ref = pyg_nn.ASAPooling(4, 0.5, GNN=GNN, add_self_loops=self_loops).to(tdt).eval()
    ours = from_pyg(ref)
    assert isinstance(ours, ASAPooling)
    ei, batch, n = batched_graph(5, idx)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((n, 4)).astype(dtype)
    w = rng.random(ei.shape[1]).astype(dtype) if weighted else None
    exp = ref(torch.from_numpy(x), _t(ei), None if w is None else torch.from_numpy(w), _t(batch))
    got = ours(x, ei, w, batch)
    np.testing.assert_allclose(got[0], _np(exp[0]), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got[1], exp[1].numpy())  # PyG's edge order
    if weighted:
        np.testing.assert_allclose(got[2], _np(exp[2]), rtol=1e-4, atol=1e-6)
    else:
        assert got[2] is None
    np.testing.assert_array_equal(got[3], exp[3].numpy())
    np.testing.assert_array_equal(got[4], exp[4].numpy())


def test_asap_errors():
    pool = ASAPooling(3, rng=0)
    x = np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match="ASAPooling.*edge_weight"):
        pool(x, np.array([[0], [1]]), np.ones(2, np.float32))
    with pytest.raises(TypeError, match="ASAPooling.*edge_weight"):
        pool(x, np.array([[0], [1]]), np.ones(1, np.int64))
    with pytest.raises(ValueError, match="ratio"):
        ASAPooling(3, ratio=0)


# ---- PAN ----------------------------------------------------------------------------------


def _dense_pan(conv, x, ei, n):
    """PyG's PANConv written densely (PyG's own needs torch_sparse)."""
    a = torch.zeros(n, n, dtype=x.dtype)
    a.index_put_((ei[1], ei[0]), torch.ones(ei.shape[1], dtype=x.dtype), accumulate=True)
    w = conv.weight.detach().to(x.dtype)
    p = torch.eye(n, dtype=x.dtype)
    val, struct, coef = w[0] * p, p != 0, w[0]
    for i in range(1, conv.filter_size + 1):
        p = p @ a
        coef = coef * w[i]
        val, struct = val + coef * p, struct | (p != 0)
    dis = struct.sum(1).to(x.dtype) ** -0.5
    m = torch.where(struct, dis[:, None] * val * dis[None, :], 0)
    return conv.lin.to(x.dtype)(m @ x), m, struct


class _FakeMET:
    def __init__(self, m):
        self.m = m

    def coo(self):
        return tuple(torch.from_numpy(np.asarray(a)) for a in self.m.coo())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
@pytest.mark.parametrize("filter_size", [0, 1, 3])
def test_pan_conv_and_pooling_match(dtype, idx, filter_size):
    torch.manual_seed(3)
    tdt = getattr(torch, np.dtype(dtype).name)
    conv = pyg_nn.PANConv(4, 3, filter_size)
    torch.nn.init.uniform_(conv.weight, 0.2, 1.0)
    ours = from_pyg(conv).astype(dtype)
    assert isinstance(ours, PANConv)
    ei, batch, n = batched_graph(7, idx)
    x = np.random.default_rng(7).standard_normal((n, 4)).astype(dtype)
    out, m = ours(x, ei)
    exp, dense, struct = _dense_pan(conv, torch.from_numpy(x), _t(ei), n)
    np.testing.assert_allclose(out, _np(exp), rtol=1e-4, atol=1e-5)
    r, c = struct.nonzero().T
    np.testing.assert_array_equal(m.row, r.numpy())
    np.testing.assert_array_equal(m.col, c.numpy())
    np.testing.assert_allclose(m.value, _np(dense[r, c]), rtol=1e-5)

    pool = pyg_nn.PANPooling(3, 0.5).to(tdt)
    torch.nn.init.uniform_(pool.p, -1, 1)
    ours_pool = from_pyg(pool)
    assert isinstance(ours_pool, PANPooling)
    h = out.astype(dtype)
    exp = pool(torch.from_numpy(h), _FakeMET(m), _t(batch))
    got = ours_pool(h, m, batch)
    for a, b in zip(got, exp):
        np.testing.assert_allclose(a, _np(b), rtol=1e-5, atol=1e-6)


def test_pan_errors():
    with pytest.raises(ValueError, match="PANConv.*edge_index"):
        PANConv(2, 2, 1, rng=0)(np.ones((2, 2), np.float32), np.array([[0], [3]]))
    with pytest.raises(TypeError, match="PANPooling: M"):
        PANPooling(2, rng=0)(np.ones((2, 2), np.float32), "not a matrix")


# ---- MemPooling ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("tau", [1.0, 2.5])
def test_mem_pooling_matches_pyg(dtype, tau):
    torch.manual_seed(4)
    ref = pyg_nn.MemPooling(4, 3, heads=3, num_clusters=5, tau=tau).to(
        getattr(torch, np.dtype(dtype).name)
    )
    ours = from_pyg(ref)
    assert isinstance(ours, MemPooling)
    _, batch, n = batched_graph(8)
    x = np.random.default_rng(8).standard_normal((n, 4)).astype(dtype)
    exp = ref(torch.from_numpy(x), _t(batch))
    got = ours(x, batch)
    np.testing.assert_allclose(got[0], _np(exp[0]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], _np(exp[1]), rtol=1e-4, atol=1e-6)
    # the dense form with a mask gives the same
    dense, mask = (
        t.numpy()
        for t in __import__("torch_geometric").utils.to_dense_batch(torch.from_numpy(x), _t(batch))
    )
    np.testing.assert_allclose(ours(dense, mask=mask)[0], got[0], rtol=1e-6)
    keep = [g for g in range(len(SIZES)) if SIZES[g]]
    s = exp[1][keep]
    np.testing.assert_allclose(
        float(MemPooling.kl_loss(got[1][keep])), float(pyg_nn.MemPooling.kl_loss(s)), rtol=1e-4
    )


def test_mem_pooling_errors():
    pool = MemPooling(3, 2, 2, 4, rng=0)
    with pytest.raises(ValueError, match="MemPooling: x"):
        pool(np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="MemPooling: mask"):
        pool(np.ones((2, 3, 3), np.float32), mask=np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="tau"):
        MemPooling(3, 2, 2, 4, tau=0)


# ---- ClusterPooling -----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["tanh", "sigmoid", "log_softmax"])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_cluster_pooling_matches_pyg(method, idx):
    torch.manual_seed(6)
    ref = pyg_nn.ClusterPooling(4, method, threshold=-4.0 if method == "log_softmax" else None)
    ours = from_pyg(ref)
    assert isinstance(ours, ClusterPooling)
    ei, batch, n = batched_graph(9, idx)
    x = np.random.default_rng(9).standard_normal((n, 4)).astype(np.float32)
    exp = ref(torch.from_numpy(x), _t(ei), _t(batch))
    got = ours(x, ei, batch)
    np.testing.assert_allclose(got[0], _np(exp[0]), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[1], exp[1].numpy())
    np.testing.assert_array_equal(got[2], exp[2].numpy())
    np.testing.assert_array_equal(got[3].cluster, exp[3].cluster.numpy())
    np.testing.assert_array_equal(got[3].edge_index, exp[3].edge_index.numpy())
    # float64 (PyG 2.8.1 fails on it): the same clusters, the same features to rounding
    got64 = ours.astype(np.float64)(x.astype(np.float64), ei, batch)
    np.testing.assert_allclose(got64[0], got[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got64[1], got[1])


def test_cluster_pooling_errors():
    with pytest.raises(ValueError, match="edge_score_method"):
        ClusterPooling(3, "softmax")
    pool = ClusterPooling(3, rng=0)
    with pytest.raises(ValueError, match="ClusterPooling.*edge_index"):
        pool(np.ones((2, 3), np.float32), np.array([[0], [2]]))
    with pytest.raises(TypeError, match="ClusterPooling.*floating"):
        pool(np.ones((2, 3), np.int64), np.array([[0], [1]]))


@pytest.mark.parametrize(
    "make",
    [
        lambda: pyg_nn.EdgePooling(3),
        lambda: pyg_nn.ASAPooling(3, GNN=pyg_nn.GCNConv),
        lambda: pyg_nn.PANConv(3, 2, 2),
        lambda: pyg_nn.PANPooling(3),
        lambda: pyg_nn.MemPooling(3, 2, 2, 4),
        lambda: pyg_nn.ClusterPooling(3),
    ],
)
def test_state_dict_names_round_trip(make):
    ref = make()
    ours = from_pyg(ref)
    state = ours.state_dict()
    assert set(state) == set(ref.state_dict())
    for key, value in ref.state_dict().items():
        np.testing.assert_array_equal(state[key], value.numpy())
