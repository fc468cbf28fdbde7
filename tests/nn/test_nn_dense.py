"""DenseGCNConv, DenseSAGEConv, DenseGINConv, DenseGraphConv, DenseGATConv, dense_diff_pool,
dense_mincut_pool and DMoNPooling against PyG (weights through ``from_pyg``; float32 within
1e-5 relative, float64 within 1e-12; NaN where PyG gives NaN): batched, batch-of-one,
unbatched and shared-adjacency inputs; masks with padded nodes (a graph with one real node
among them); binary, weighted (self-loops included) and edgeless adjacencies; ``add_loop``
on and off; the pooling losses; inputs left unmodified; state dicts; errors naming the
layer and the argument."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from _nn_cases import TOL

import arraygnn.nn as agnn
from arraygnn.utils import to_dense_adj, to_dense_batch

torch = pytest.importorskip("torch")
pyg_dense = pytest.importorskip("torch_geometric.nn.dense")
pyg_nn = pytest.importorskip("torch_geometric.nn")

# NaN results (edgeless graphs, empty batches) come without NumPy warnings, as in PyG
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

DTYPES = [np.float32, np.float64]
B, N, F = 3, 7, 5


def _seed(*parts):
    return zlib.crc32(repr(parts).encode())


def _t(a):
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def _close(ours, ref, dtype, floor=1e-30):
    """Same shape, NaN in the same places, finite entries within the dtype's tolerance
    (relative to the largest finite reference entry, or ``floor`` if larger)."""
    ref = ref.detach().numpy() if hasattr(ref, "detach") else np.asarray(ref)
    ours = np.asarray(ours)
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    assert ours.dtype == ref.dtype, (ours.dtype, ref.dtype)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    fin = np.isfinite(ref)
    np.testing.assert_array_equal(ours[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)])
    if fin.any():
        scale = max(float(np.abs(ref[fin]).max()), floor)
        err = float(np.abs(ours[fin].astype(np.float64) - ref[fin]).max()) / scale
        assert err <= TOL[dtype], err


def _inputs(rng, form, adj_kind, dtype, k=None):
    """``(x, adj, mask, s)`` in one of the input forms: 'batched' (B graphs, padded nodes
    with zero adjacency rows / columns, graph 1 with one real node), 'b1' (one graph, a
    mask), 'unbatched' ([N, F] and [N, N], no mask) or 'shared' ([B, N, F] with one
    [N, N] adjacency, no mask). ``adj_kind``: 'binary', 'weighted' (random positive
    weights, self-loops included) or 'zero' (no edges)."""
    batch = {"batched": B, "b1": 1, "unbatched": 1, "shared": B}[form]
    x = rng.standard_normal((batch, N, F)).astype(dtype)
    a_batch = 1 if form == "shared" else batch
    adj = (rng.random((a_batch, N, N)) < 0.4).astype(dtype)
    if adj_kind == "weighted":
        adj[:, np.arange(N), np.arange(N)] = 1
        adj *= rng.uniform(0.2, 2.0, adj.shape).astype(dtype)
    elif adj_kind == "zero":
        adj[:] = 0
    mask = None
    if form in ("batched", "b1"):
        counts = [N, 1, 4][:batch] if form == "batched" else [5]
        mask = np.arange(N)[None, :] < np.array(counts)[:, None]
        adj *= (mask[:, :, None] & mask[:, None, :]).astype(dtype)  # to_dense_adj's padding
    s = None if k is None else rng.standard_normal((batch, N, k)).astype(dtype)
    if form == "unbatched":
        x, adj = x[0], adj[0]
        s = None if s is None else s[0]
    elif form == "shared":
        adj = adj[0]
    return x, adj, mask, s


def _snapshot(*arrays):
    return [None if a is None else a.copy() for a in arrays]


def _unchanged(before, after):
    for a, b in zip(before, after):
        if a is not None:
            np.testing.assert_array_equal(a, b)


def _gin_nn():
    seq = torch.nn.Sequential(torch.nn.Linear(F, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    return seq


# (id, PyG factory, takes add_loop)
CONVS = [
    ("gcn", lambda: pyg_dense.DenseGCNConv(F, 4), True),
    ("gcn-improved-nobias", lambda: pyg_dense.DenseGCNConv(F, 6, True, bias=False), True),
    ("sage", lambda: pyg_dense.DenseSAGEConv(F, 4), False),
    ("sage-normalize-nobias", lambda: pyg_dense.DenseSAGEConv(F, 4, True, bias=False), False),
    ("gin-seq", lambda: pyg_dense.DenseGINConv(_gin_nn(), eps=0.3), True),
    (
        "gin-mlp-train-eps",
        lambda: pyg_dense.DenseGINConv(pyg_nn.MLP([F, 6, 2], norm=None), 0.1, True),
        True,
    ),
    ("gin-linear", lambda: pyg_dense.DenseGINConv(torch.nn.Linear(F, 3)), True),
    ("graph-add", lambda: pyg_dense.DenseGraphConv(F, 4), False),
    ("graph-mean", lambda: pyg_dense.DenseGraphConv(F, 4, aggr="mean"), False),
    ("graph-max-nobias", lambda: pyg_dense.DenseGraphConv(F, 4, "max", bias=False), False),
    ("gat", lambda: pyg_dense.DenseGATConv(F, 4), True),
    ("gat-heads", lambda: pyg_dense.DenseGATConv(F, 3, heads=4, negative_slope=0.1), True),
    ("gat-mean-nobias", lambda: pyg_dense.DenseGATConv(F, 3, 2, False, bias=False), True),
]
FORMS = ["batched", "b1", "unbatched", "shared"]
ADJ = ["binary", "weighted", "zero"]


def _module(factory, dtype):
    torch.manual_seed(0)
    module = factory()
    module = module.double() if dtype == np.float64 else module
    with torch.no_grad():  # non-zero biases / eps so every term is checked
        for name, p in module.named_parameters():
            if name.endswith("bias") or name == "eps":
                p.uniform_(-0.5, 0.5)
    return module.eval()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("adj_kind", ADJ)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_conv_matches_pyg(case, form, adj_kind, dtype):
    _, factory, has_loop = case
    rng = np.random.default_rng(_seed(case[0], form, adj_kind))
    module = _module(factory, dtype)
    conv = agnn.from_pyg(module)
    assert type(conv).__name__ == type(module).__name__
    x, adj, mask, _ = _inputs(rng, form, adj_kind, dtype)
    before = _snapshot(x, adj, mask)
    for add_loop in (True, False) if has_loop else (None,):
        kw = {} if add_loop is None else {"add_loop": add_loop}
        with torch.no_grad():
            ref = module(_t(x), _t(adj), _t(mask), **kw)
        out = conv(x, adj, mask, **kw)
        _close(out, ref, dtype)
        _unchanged(before, (x, adj, mask))


def test_gat_rows_without_neighbours_are_nan_like_pyg():
    module = _module(lambda: pyg_dense.DenseGATConv(F, 2, heads=2), np.float64)
    conv = agnn.from_pyg(module)
    x = np.random.default_rng(1).standard_normal((2, N, F))
    adj = np.zeros((2, N, N))
    adj[0, 0, 1] = 1.0
    out = conv(x, adj, add_loop=False)
    with torch.no_grad():
        ref = module(_t(x), _t(adj), add_loop=False)
    _close(out, ref, np.float64)
    assert np.isnan(out[1]).all() and np.isfinite(out[0, 0]).all()


def test_state_dicts_carry_pyg_names():
    for _, factory, _ in CONVS:
        module = _module(factory, np.float32)
        ours = agnn.from_pyg(module).state_dict()
        theirs = module.state_dict()
        assert sorted(ours) == sorted(theirs)
        for key, value in theirs.items():
            np.testing.assert_array_equal(ours[key], value.numpy())
    dmon = _module(lambda: pyg_dense.DMoNPooling([F, 6], 3), np.float32)
    assert sorted(agnn.from_pyg(dmon).state_dict()) == sorted(dmon.state_dict())


def test_constructed_layers_load_pyg_state_dicts():
    module = _module(lambda: pyg_dense.DenseGATConv(F, 3, heads=2), np.float64)
    conv = agnn.DenseGATConv(F, 3, heads=2, dtype=np.float64, rng=0)
    conv.load_state_dict(module.state_dict())
    x, adj, mask, _ = _inputs(np.random.default_rng(2), "batched", "binary", np.float64)
    with torch.no_grad():
        _close(conv(x, adj, mask), module(_t(x), _t(adj), _t(mask)), np.float64)
    gin = agnn.DenseGINConv(agnn.Linear(F, 3, dtype=np.float64), eps=0.5, dtype=np.float64)
    ref = pyg_dense.DenseGINConv(torch.nn.Linear(F, 3).double(), eps=0.5).eval()
    gin.load_state_dict(ref.state_dict())
    with torch.no_grad():
        _close(gin(x, adj, mask), ref(_t(x), _t(adj), _t(mask)), np.float64)


def test_from_dense_batch_and_adj():
    """The layers on ``to_dense_batch`` / ``to_dense_adj`` output, against PyG's pipeline."""
    from torch_geometric.utils import to_dense_adj as pyg_adj
    from torch_geometric.utils import to_dense_batch as pyg_batch

    rng = np.random.default_rng(3)
    sizes = [5, 1, 3]
    batch = np.repeat(np.arange(3), sizes)
    offsets = np.repeat(np.cumsum([0, *sizes[:-1]]), [12, 0, 5])
    local = np.concatenate([rng.integers(0, 5, (2, 12)), rng.integers(0, 3, (2, 5))], axis=1)
    edge_index = local + offsets
    x = rng.standard_normal((9, F)).astype(np.float32)
    xd, mask = to_dense_batch(x, batch)
    adj = to_dense_adj(edge_index, batch)
    txd, tmask = pyg_batch(_t(x), _t(batch))
    tadj = pyg_adj(_t(edge_index), _t(batch))
    module = _module(lambda: pyg_dense.DenseGCNConv(F, 4), np.float32)
    with torch.no_grad():
        ref = module(txd, tadj, tmask)
    _close(agnn.from_pyg(module)(xd, adj, mask), ref, np.float32)


# ---- pooling -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("adj_kind", ADJ)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("option", [None, "alt"])
@pytest.mark.parametrize("kind", ["diff", "mincut"])
def test_pool_functions_match_pyg(kind, option, form, adj_kind, dtype):
    rng = np.random.default_rng(_seed(kind, option, form, adj_kind))
    x, adj, mask, s = _inputs(rng, form, adj_kind, dtype, k=3)
    before = _snapshot(x, adj, mask, s)
    if kind == "diff":
        kw = {"normalize": option is None}
        ours = agnn.dense_diff_pool(x, adj, s, mask, **kw)
        ref = pyg_dense.dense_diff_pool(_t(x), _t(adj), _t(s), _t(mask), **kw)
    else:
        kw = {"temp": 1.0 if option is None else 0.5}
        ours = agnn.dense_mincut_pool(x, adj, s, mask, **kw)
        ref = pyg_dense.dense_mincut_pool(_t(x), _t(adj), _t(s), _t(mask), **kw)
    assert len(ours) == 4
    for a, b in zip(ours, ref):
        _close(a, b, dtype)
    assert all(isinstance(v, np.ndarray) and v.shape == () for v in ours[2:])
    _unchanged(before, (x, adj, mask, s))


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("adj_kind", ADJ)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("channels", [F, [F, 6]], ids=["int", "hidden"])
def test_dmon_matches_pyg(channels, form, adj_kind, dtype):
    rng = np.random.default_rng(_seed(channels, form, adj_kind))
    module = _module(lambda: pyg_dense.DMoNPooling(channels, 3, dropout=0.2), dtype)
    pool = agnn.from_pyg(module)
    assert isinstance(pool, agnn.DMoNPooling) and pool.dropout == 0.2
    x, adj, mask, _ = _inputs(rng, form, adj_kind, dtype)
    before = _snapshot(x, adj, mask)
    with torch.no_grad():
        ref = module(_t(x), _t(adj), _t(mask))
    ours = pool(x, adj, mask)
    assert len(ours) == 6
    assert all(isinstance(v, np.ndarray) and v.shape == () for v in ours[3:])
    for i, (a, b) in enumerate(zip(ours, ref)):
        # the spectral loss is tr(S^T A S) - tr(normaliser), both O(m), over 2m: a
        # difference of O(1) terms, so its float32 error is judged against 1, not its size
        _close(a, b, dtype, floor=1.0 if i == 3 and dtype == np.float32 else 1e-30)
    _unchanged(before, (x, adj, mask))


def test_dmon_cluster_loss_keeps_pyg_broadcast():
    """PyG divides [B] cluster norms by [B, 1] node counts: a B x B mean, not a per-graph
    one; with unequal graphs the two differ, and ours follows PyG."""
    rng = np.random.default_rng(4)
    x, adj, mask, _ = _inputs(rng, "batched", "binary", np.float64)
    module = _module(lambda: pyg_dense.DMoNPooling(F, 2), np.float64)
    s, *_, cluster_loss = agnn.from_pyg(module)(x, adj, mask)
    norms = np.linalg.norm(s.sum(axis=1), axis=1)
    per_graph = (norms / mask.sum(axis=1) * np.sqrt(2) - 1).mean()
    pyg_way = (norms[None, :] / mask.sum(axis=1)[:, None] * np.sqrt(2) - 1).mean()
    assert abs(float(cluster_loss) - pyg_way) < 1e-12
    assert abs(per_graph - pyg_way) > 1e-6


@pytest.mark.parametrize("shape", [(2, 0), (0, 4)], ids=["no-nodes", "no-graphs"])
def test_empty_batches(shape):
    """Graphs without nodes and batches without graphs: PyG's shapes and NaN losses; where
    PyG fails (DenseGraphConv and DenseGATConv on zero nodes), an empty output."""
    b, n = shape
    x, adj = np.ones((b, n, F)), np.ones((b, n, n))
    s, mask = np.ones((b, n, 3)), np.ones((b, n), bool)
    for name, factory, _ in CONVS:
        module = _module(factory, np.float64)
        out = agnn.from_pyg(module)(x, adj, mask)
        if n == 0 and name.startswith(("graph", "gat")):  # PyG: mask.view(-1, 0, 1) fails
            assert out.shape[:2] == (b, 0)
            continue
        with torch.no_grad():
            _close(out, module(_t(x), _t(adj), _t(mask)), np.float64)
    dmon = _module(lambda: pyg_dense.DMoNPooling(F, 3), np.float64)
    with torch.no_grad():
        ref = dmon(_t(x), _t(adj), _t(mask))
    for a, r in zip(agnn.from_pyg(dmon)(x, adj, mask), ref):
        _close(a, r, np.float64)
    for ours, theirs in (
        (agnn.dense_diff_pool, pyg_dense.dense_diff_pool),
        (agnn.dense_mincut_pool, pyg_dense.dense_mincut_pool),
    ):
        for a, r in zip(ours(x, adj, s, mask), theirs(_t(x), _t(adj), _t(s), _t(mask))):
            _close(a, r, np.float64)


# ---- errors ------------------------------------------------------------------------------


def _layers():
    return [
        ("DenseGCNConv", agnn.DenseGCNConv(F, 2, rng=0)),
        ("DenseSAGEConv", agnn.DenseSAGEConv(F, 2, rng=0)),
        ("DenseGINConv", agnn.DenseGINConv(agnn.Linear(F, 2, rng=0))),
        ("DenseGraphConv", agnn.DenseGraphConv(F, 2, rng=0)),
        ("DenseGATConv", agnn.DenseGATConv(F, 2, rng=0)),
        ("DMoNPooling", agnn.DMoNPooling(F, 2, rng=0)),
        ("dense_diff_pool", lambda x, adj, mask=None: agnn.dense_diff_pool(x, adj, S, mask)),
        ("dense_mincut_pool", lambda x, adj, mask=None: agnn.dense_mincut_pool(x, adj, S, mask)),
    ]


X = np.ones((2, 4, F), np.float32)
ADJ4 = np.ones((2, 4, 4), np.float32)
S = np.ones((2, 4, 3), np.float32)


@pytest.mark.parametrize("name,layer", _layers(), ids=[n for n, _ in _layers()])
def test_errors_name_layer_and_argument(name, layer):
    cases = [
        ((X, np.ones((2, 4, 3), np.float32)), ValueError, "adj must be a square"),
        ((X, np.ones(4, np.float32)), ValueError, "adj must be a square"),
        ((X, np.ones((2, 5, 5), np.float32)), ValueError, "x has 4 nodes"),
        ((X, np.ones((3, 4, 4), np.float32)), ValueError, "batch sizes differ"),
        ((X.astype(np.int64), ADJ4), TypeError, "x must be a floating-point"),
        ((X[0, 0], ADJ4), ValueError, "x must be"),
        ((torch.ones(2, 4, F), ADJ4), TypeError, "x must be a NumPy or CuPy"),
        ((X, ADJ4.astype(str)), TypeError, "adj must hold numbers"),
        ((X, ADJ4, np.ones((2, 5), bool)), ValueError, "mask must be"),
        ((X, ADJ4, np.ones(4, bool)), ValueError, "mask must be"),
        ((X, ADJ4, [[True] * 4] * 2), TypeError, "mask must be a NumPy"),
    ]
    for args, err, text in cases:
        with pytest.raises(err, match=text) as info:
            layer(*args)
        assert name in str(info.value), str(info.value)


def test_more_errors():
    with pytest.raises(ValueError, match="DenseGCNConv x: expected last dimension 5"):
        agnn.DenseGCNConv(F, 2)(np.ones((2, 4, 3)), ADJ4)
    with pytest.raises(ValueError, match="DenseGraphConv: aggr must be"):
        agnn.DenseGraphConv(F, 2, aggr="sum")
    with pytest.raises(TypeError, match="DenseGINConv: nn must be an arraygnn.nn Module"):
        agnn.DenseGINConv(lambda x: x)
    with pytest.raises(ValueError, match="dense_diff_pool: s must be"):
        agnn.dense_diff_pool(X, ADJ4, np.ones((2, 5, 3), np.float32))
    with pytest.raises(TypeError, match="dense_mincut_pool: s must be a floating-point"):
        agnn.dense_mincut_pool(X, ADJ4, np.ones((2, 4, 3), np.int64))
    with pytest.raises(ValueError, match="dense_diff_pool: x has 1 graph"):
        agnn.dense_diff_pool(X[:1], ADJ4, S[:1])
    with pytest.raises(ValueError, match="DMoNPooling: k must be"):
        agnn.DMoNPooling(F, 0)
    with pytest.raises(ValueError, match="DenseGATConv: heads must be"):
        agnn.DenseGATConv(F, 2, heads=0)


def test_unbatched_output_keeps_batch_of_one_like_pyg():
    conv = agnn.DenseSAGEConv(F, 2, rng=0)
    assert conv(X[0], ADJ4[0]).shape == (1, 4, 2)
    assert conv(X[0], ADJ4[0], np.ones(4, bool)).shape == (1, 4, 2)
