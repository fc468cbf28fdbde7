"""Parity sweep (s13) of PyG's dense convolutions and dense poolings against PyG 2.8.1, on
the options and input forms ``tests/nn/test_nn_dense.py`` leaves out: float and integer
masks (and graphs whose padded nodes keep adjacency entries, or have no real node), signed
weighted adjacencies, one ``x`` shared by a batch of adjacencies, non-default options
(``improved`` without self-loops, ``normalize`` on zero rows, negative ``eps``, GAT
``dropout`` in eval mode, ``aggr='max'`` on negative features), ``dense_diff_pool``'s
``normalize is True`` rule, ``dense_mincut_pool``'s ``temp``, ``DMoNPooling`` with ``k=1``
and a deeper MLP, float16, a ``to_dense_batch`` / ``to_dense_adj`` pipeline with
``fill_value`` / ``max_num_nodes`` / ``batch_size`` / ``edge_attr``, and bad arguments.
Weights come from the PyG module through ``from_pyg`` (eval mode)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.utils import to_dense_adj, to_dense_batch

torch = pytest.importorskip("torch")
pyg_dense = pytest.importorskip("torch_geometric.nn.dense")

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

B, N, F = 3, 6, 5
TOL = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}


def _t(a):
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def _close(ours, ref, dtype):
    """Same shape and dtype, NaN in the same places, finite entries within ``TOL``
    (relative to the largest reference entry, at least 1)."""
    ref = ref.detach().numpy()
    ours = np.asarray(ours)
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    assert ours.dtype == ref.dtype, (ours.dtype, ref.dtype)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    fin = np.isfinite(ref)
    if fin.any():
        scale = max(float(np.abs(ref[fin].astype(np.float64)).max()), 1.0)
        err = float(np.abs(ours[fin].astype(np.float64) - ref[fin]).max()) / scale
        assert err <= TOL[dtype], err


def _module(factory, dtype=np.float64):
    torch.manual_seed(0)
    module = factory()
    module = module.double() if dtype == np.float64 else module
    module = module.half() if dtype == np.float16 else module
    with torch.no_grad():  # non-zero biases / eps so every term is checked
        for name, p in module.named_parameters():
            if name.endswith("bias") or name == "eps":
                p.uniform_(-0.5, 0.5)
    return module.eval()


def _inputs(seed, dtype=np.float64, adj_kind="signed", k=3):
    """``(x, adj, mask, s)``: B graphs of 6, 2 and 0 real nodes whose padded nodes KEEP
    their adjacency entries (``to_dense_adj`` would zero them; the layers must not rely on
    it); ``adj_kind``: 'signed' (weights in [-1, 2), some zero), 'binary' or 'zero'."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((B, N, F)).astype(dtype)
    adj = (rng.random((B, N, N)) < 0.45).astype(dtype)
    if adj_kind == "signed":
        adj *= rng.uniform(-1.0, 2.0, adj.shape).astype(dtype)
    elif adj_kind == "zero":
        adj[:] = 0
    mask = np.arange(N)[None, :] < np.array([N, 2, 0])[:, None]
    return x, adj, mask, rng.standard_normal((B, N, k)).astype(dtype)


CONVS = [
    ("gcn-improved", lambda: pyg_dense.DenseGCNConv(F, 4, improved=True)),
    ("sage-normalize", lambda: pyg_dense.DenseSAGEConv(F, 4, normalize=True)),
    ("gin-neg-eps", lambda: pyg_dense.DenseGINConv(torch.nn.Linear(F, 3), -0.7, True)),
    ("graph-mean-nobias", lambda: pyg_dense.DenseGraphConv(F, 4, "mean", bias=False)),
    ("graph-max", lambda: pyg_dense.DenseGraphConv(F, 4, "max")),
    (
        "gat-dropout-mean",
        lambda: pyg_dense.DenseGATConv(F, 3, 3, False, negative_slope=0.5, dropout=0.6),
    ),
]
LOOPS = {"gcn-improved", "gin-neg-eps", "gat-dropout-mean"}
MASKS = ["bool", "float", "int64", "none"]


def _mask(mask, kind):
    return None if kind == "none" else mask.astype({"bool": bool, "float": float}.get(kind, kind))


@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_conv_options_and_masks(case, mask_kind):
    name, factory = case
    module = _module(factory)
    conv = agnn.from_pyg(module)
    if name.startswith("gat"):
        assert conv.dropout == 0.6  # kept as a setting; eval mode applies none
    x, adj, mask, _ = _inputs(len(name))
    mask = _mask(mask, mask_kind)
    before = [a.copy() for a in (x, adj)]
    for kw in ({"add_loop": True}, {"add_loop": False}) if name in LOOPS else ({},):
        with torch.no_grad():
            ref = module(_t(x), _t(adj), _t(mask), **kw)
        _close(conv(x, adj, mask, **kw), ref, np.float64)
    np.testing.assert_array_equal(before[0], x)
    np.testing.assert_array_equal(before[1], adj)


@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_conv_one_x_shared_by_batched_adj(case):
    """``x`` ``[N, F]`` with ``adj`` ``[B, N, N]`` and a ``[B, N]`` mask: the same as ``x``
    repeated per graph (PyG itself fails on this form for GAT and max; the others agree)."""
    module = _module(case[1])
    x, adj, mask, _ = _inputs(7)
    with torch.no_grad():
        ref = module(_t(np.repeat(x[:1], B, axis=0)), _t(adj), _t(mask))
    _close(agnn.from_pyg(module)(x[0], adj, mask), ref, np.float64)


def test_conv_corner_values():
    """max over all-negative features (0 only where no neighbour); ``normalize`` on rows
    that are exactly zero (PyG's ``F.normalize`` eps: stays 0); unbatched ``x`` with an
    ``[N]`` mask."""
    x, adj, mask, _ = _inputs(3)
    neg = -np.abs(x) - 1.0
    module = _module(lambda: pyg_dense.DenseGraphConv(F, 4, "max", bias=False))
    with torch.no_grad():
        _close(
            agnn.from_pyg(module)(neg, adj, mask), module(_t(neg), _t(adj), _t(mask)), np.float64
        )
    module = _module(lambda: pyg_dense.DenseSAGEConv(F, 4, normalize=True, bias=False))
    xz, az = x.copy(), adj.copy()
    xz[:, :2], az[:, :2] = 0, 0
    with torch.no_grad():
        ref = module(_t(xz), _t(az), _t(mask))
    out = agnn.from_pyg(module)(xz, az, mask)
    _close(out, ref, np.float64)
    assert (out[:, :2] == 0).all()
    module = _module(lambda: pyg_dense.DenseGATConv(F, 2, heads=2))
    with torch.no_grad():
        ref = module(_t(x[0]), _t(adj[0]), _t(mask[1]))
    _close(agnn.from_pyg(module)(x[0], adj[0], mask[1]), ref, np.float64)


@pytest.mark.parametrize("case", CONVS[:2] + CONVS[4:], ids=["gcn", "sage", "max", "gat"])
def test_conv_float16(case):
    module = _module(case[1], np.float16)
    x, adj, mask, _ = _inputs(11, np.float16, "binary")
    with torch.no_grad():
        ref = module(_t(x), _t(adj), _t(mask))
    _close(agnn.from_pyg(module)(x, adj, mask), ref, np.float16)


# ---- pooling -----------------------------------------------------------------------------

POOLS = [
    ("diff-normalize-1", "diff", {"normalize": 1}),  # truthy but not True: no division
    ("diff-normalize-False", "diff", {"normalize": False}),
    ("mincut-temp-0.3", "mincut", {"temp": 0.3}),
    ("mincut-temp-int-2", "mincut", {"temp": 2}),
    ("mincut-temp-neg", "mincut", {"temp": -0.5}),
]


@pytest.mark.parametrize("adj_kind", ["signed", "zero"])
@pytest.mark.parametrize("mask_kind", ["bool", "float", "none"])
@pytest.mark.parametrize("case", POOLS, ids=[c[0] for c in POOLS])
def test_pool_functions_options(case, mask_kind, adj_kind):
    _, kind, kw = case
    x, adj, mask, s = _inputs(len(kw) + len(mask_kind), adj_kind=adj_kind)
    mask = _mask(mask, mask_kind)
    ours_fn = agnn.dense_diff_pool if kind == "diff" else agnn.dense_mincut_pool
    ref_fn = pyg_dense.dense_diff_pool if kind == "diff" else pyg_dense.dense_mincut_pool
    before = [a.copy() for a in (x, adj, s)]
    ours = ours_fn(x, adj, s, mask, **kw)
    ref = ref_fn(_t(x), _t(adj), _t(s), _t(mask), **kw)
    for a, r in zip(ours, ref):
        _close(a, r, np.float64)
    for a, b in zip(before, (x, adj, s)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
@pytest.mark.parametrize("k,channels", [(1, [F, 6]), (4, [F, 6, 4])], ids=["k1", "k4-deep"])
def test_dmon_options(k, channels, mask_kind):
    module = _module(lambda: pyg_dense.DMoNPooling(channels, k, dropout=0.5))
    pool = agnn.from_pyg(module)
    assert pool.k == k and pool.dropout == 0.5
    x, adj, mask, _ = _inputs(k)
    mask = _mask(mask, mask_kind)
    with torch.no_grad():
        ref = module(_t(x), _t(adj), _t(mask))
    for a, r in zip(pool(x, adj, mask), ref):
        _close(a, r, np.float64)


@pytest.mark.parametrize("kind", ["diff", "mincut"])
def test_pool_float16_and_no_clusters(kind):
    ours_fn = agnn.dense_diff_pool if kind == "diff" else agnn.dense_mincut_pool
    ref_fn = pyg_dense.dense_diff_pool if kind == "diff" else pyg_dense.dense_mincut_pool
    x, adj, mask, s = _inputs(5, np.float16, "binary")
    for a, r in zip(ours_fn(x, adj, s, mask), ref_fn(_t(x), _t(adj), _t(s), _t(mask))):
        _close(a, r, np.float16)
    x, adj, mask, s = _inputs(5, np.float64, "binary", k=0)  # K = 0: empty pools
    for a, r in zip(ours_fn(x, adj, s, mask), ref_fn(_t(x), _t(adj), _t(s), _t(mask))):
        _close(a, r, np.float64)


def test_dense_pipeline_options_feed_the_pools():
    """``to_dense_batch(fill_value, max_num_nodes, batch_size)`` and ``to_dense_adj(edge_attr,
    max_num_nodes, batch_size)`` (a trailing empty graph, nodes beyond 4 dropped, padding
    filled with 9) into a GCN and ``dense_mincut_pool``, against PyG's pipeline."""
    from torch_geometric.utils import to_dense_adj as pyg_adj
    from torch_geometric.utils import to_dense_batch as pyg_batch

    rng = np.random.default_rng(2)
    batch = np.repeat(np.arange(2), [5, 3])
    ptr = np.array([0, 5, 8])
    src = rng.integers(ptr[batch], ptr[batch + 1])
    edge_index = np.stack([src, np.arange(8)])
    attr = rng.uniform(0.5, 2.0, 8)
    x = rng.standard_normal((8, F))
    dense_kw = {"max_num_nodes": 4, "batch_size": 3}
    xd, mask = to_dense_batch(x, batch, 9.0, **dense_kw)
    adj = to_dense_adj(edge_index, batch, attr, **dense_kw)
    txd, tmask = pyg_batch(_t(x), _t(batch), 9.0, **dense_kw)
    tadj = pyg_adj(_t(edge_index), _t(batch), _t(attr), **dense_kw)
    module = _module(lambda: pyg_dense.DenseGCNConv(F, 3))
    with torch.no_grad():
        ref = module(txd, tadj, tmask)
    h = agnn.from_pyg(module)(xd, adj, mask)
    _close(h, ref, np.float64)
    ours = agnn.dense_mincut_pool(xd, adj, h, mask, temp=0.5)
    for a, r in zip(ours, pyg_dense.dense_mincut_pool(txd, tadj, ref, tmask, temp=0.5)):
        _close(a, r, np.float64)


# ---- bad arguments -----------------------------------------------------------------------

X, ADJ, S = np.ones((2, 4, F)), np.ones((2, 4, 4)), np.ones((2, 4, 3))


@pytest.mark.parametrize(
    "call,err,text",
    [
        (lambda: agnn.dense_mincut_pool(X, ADJ, S, temp=None), TypeError, "temp must be"),
        (lambda: agnn.dense_mincut_pool(X, ADJ, S, temp="2"), TypeError, "temp must be"),
        (lambda: agnn.dense_mincut_pool(X, ADJ, S, temp=0), ValueError, "temp must be"),
        (lambda: agnn.dense_mincut_pool(X, ADJ, S, temp=np.nan), ValueError, "temp must be"),
        (lambda: agnn.dense_diff_pool(X, ADJ, None), TypeError, "dense_diff_pool: s must be"),
        (lambda: agnn.dense_mincut_pool(X, ADJ, None), TypeError, "dense_mincut_pool: s must"),
        (lambda: agnn.DenseGATConv(F, 2, negative_slope="a"), TypeError, "negative_slope"),
        (lambda: agnn.DenseGATConv(F, 2, dropout=None), TypeError, "DenseGATConv: dropout"),
        (lambda: agnn.DenseGINConv(agnn.Linear(F, 2), eps="a"), TypeError, "DenseGINConv: eps"),
        (lambda: agnn.DMoNPooling(F, 2, dropout="0.1"), TypeError, "DMoNPooling: dropout"),
        (lambda: agnn.dense_diff_pool(X[:1], ADJ, S[:1]), ValueError, "x has 1 graph"),
    ],
    ids=[
        "temp-None",
        "temp-str",
        "temp-0",
        "temp-nan",
        "diff-s-None",
        "mincut-s-None",
        "gat-slope",
        "gat-dropout",
        "gin-eps",
        "dmon-dropout",
        "pool-shared-x",
    ],
)
def test_bad_arguments(call, err, text):
    with pytest.raises(err, match=text):
        call()


def test_numeric_arguments_accept_numpy_scalars():
    out = agnn.dense_mincut_pool(X, ADJ, S, temp=np.float32(0.5))
    ref = agnn.dense_mincut_pool(X, ADJ, S, temp=0.5)
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert agnn.DenseGATConv(F, 2, negative_slope=np.float64(0.1), rng=0).negative_slope == 0.1
    assert float(agnn.DenseGINConv(agnn.Linear(F, 2, rng=0), eps=np.int64(1)).eps[0]) == 1.0
    gin = agnn.DenseGINConv(agnn.Linear(F, 2, rng=0), eps=np.array([0.25]))  # PyG's (1,) shape
    assert gin.eps.shape == (1,) and float(gin.eps[0]) == 0.25
