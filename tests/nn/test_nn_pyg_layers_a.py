"""LEConv, ClusterGCNConv, SSGConv, LGConv, FAConv and ARMAConv against PyG (weights through
``from_pyg``; float32 within 1e-5 relative, float64 within 1e-12) on random multigraphs with
self-loops, repeated edges and nodes without in-edges, on graphs with isolated nodes and on
empty edge sets, with and without edge weights, int32 / int64 ids; bipartite LEConv; the
calling forms; state dicts; cached graphs; FAConv's attention weights; errors naming the
layer."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, FakeBlock, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn
from arraygnn import ops

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]
N = 20


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)  # PyG's ids
    return torch.from_numpy(np.ascontiguousarray(a))


def _run(module, *args, **kwargs):
    with torch.no_grad():
        out = module(*[_t(a) for a in args], **kwargs)
    return out


def _graph(rng, kind, index_dtype, num_src=N, num_dst=None):
    """``kind``: 'multi' (self-loops, a repeated edge, targets without in-edges), 'isolated'
    (the last 5 nodes touch no edge) or 'empty' (no edges)."""
    num_dst = num_src if num_dst is None else num_dst
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    if kind == "isolated":
        return random_graph(rng, num_src - 5, num_dst - 5, 60, index_dtype, isolated=1)
    return random_graph(rng, num_src, num_dst, 70, index_dtype, isolated=3)


# (id, PyG module factory, call: 'x' (x, ei[, w]), 'fa' (x, x_0, ei[, w]), 'pair', takes w)
CASES = [
    ("le", lambda: pyg_nn.LEConv(6, 4), "x", True),
    ("le-nobias-wide", lambda: pyg_nn.LEConv(6, 9, bias=False), "x", True),
    ("le-bipartite", lambda: pyg_nn.LEConv((6, 5), 4), "pair", True),
    ("cluster", lambda: pyg_nn.ClusterGCNConv(6, 4), "x", False),
    ("cluster-lambda-wide", lambda: pyg_nn.ClusterGCNConv(6, 9, diag_lambda=0.7), "x", False),
    ("cluster-nobias", lambda: pyg_nn.ClusterGCNConv(6, 3, 0.3, bias=False), "x", False),
    ("ssg", lambda: pyg_nn.SSGConv(6, 4, alpha=0.1, K=2), "x", True),
    ("ssg-wide-noloops", lambda: pyg_nn.SSGConv(6, 9, 0.3, K=3, add_self_loops=False), "x", True),
    ("ssg-k0", lambda: pyg_nn.SSGConv(6, 4, 0.4, K=0, bias=False), "x", True),
    ("lg", lambda: pyg_nn.LGConv(), "x", True),
    ("lg-raw", lambda: pyg_nn.LGConv(normalize=False), "x", True),
    ("fa", lambda: pyg_nn.FAConv(6, eps=0.3), "fa", False),
    ("fa-noloops-eps0", lambda: pyg_nn.FAConv(6, eps=0.0, add_self_loops=False), "fa", False),
    ("fa-raw", lambda: pyg_nn.FAConv(6, eps=0.2, normalize=False), "fa", True),
    ("arma", lambda: pyg_nn.ARMAConv(6, 4, num_stacks=3, num_layers=2), "x", True),
    ("arma-shared", lambda: pyg_nn.ARMAConv(6, 4, 2, 3, shared_weights=True), "x", True),
    ("arma-narrow", lambda: pyg_nn.ARMAConv(6, 1, 2, 3, act=None, bias=False), "x", True),
    ("arma-elu", lambda: pyg_nn.ARMAConv(6, 5, 1, 2, act=torch.nn.ELU(0.5)), "x", True),
]


def _inputs(rng, call, kind, dtype, index_dtype):
    if call == "pair":
        x = (
            rng.standard_normal((N + 4, 6)).astype(dtype),
            rng.standard_normal((N, 5)).astype(dtype),
        )
        ei = _graph(rng, kind, index_dtype, N + 4, N)
    else:
        x = rng.standard_normal((N, 6)).astype(dtype)
        ei = _graph(rng, kind, index_dtype)
    w = rng.uniform(0.2, 2.0, ei.shape[1]).astype(dtype)
    return x, ei, w


def _both(module, conv, call, x, ei, w):
    """PyG's and our output for one input."""
    if call == "fa":
        x0 = x * 0.5 + 1
        args = (x, x0, ei) if w is None else (x, x0, ei, w)
    else:
        args = (x, ei) if w is None else (x, ei, w)
    return _run(module, *args).numpy(), conv(*args)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_pyg(case, kind, index_dtype, dtype):
    name, make, call, takes_w = case
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    module = make().to(getattr(torch, np.dtype(dtype).name))
    conv = agnn.from_pyg(module)
    assert type(conv).__name__ == type(module).__name__
    x, ei, w = _inputs(rng, call, kind, dtype, index_dtype)
    weights = [w] if name == "fa-raw" else [None, w] if takes_w else [None]
    for weight in weights:
        ref, out = _both(module, conv, call, x, ei, weight)
        assert out.dtype == dtype
        assert rel_err(out, ref) <= TOL[dtype], (name, weight is None)


def test_cluster_gcn_without_added_loops():
    """add_self_loops=False: PyG runs only on graphs with exactly one loop per node listed in
    node order (there both agree); on any graph ours is the dense formula
    ``(Â + lambda diag(Â)) X W_out + X W_root``, ``Â`` the row-normalised adjacency (its
    ``1 / deg`` in float32, as PyG's)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((N, 6))
    ei = random_graph(rng, N, num_edges=60)
    ei = ei[:, ei[0] != ei[1]]
    loops = np.arange(N)
    with_loops = np.concatenate([ei, np.stack([loops, loops])], axis=1)
    torch.manual_seed(0)
    module = pyg_nn.ClusterGCNConv(6, 4, diag_lambda=0.6, add_self_loops=False).double()
    conv = agnn.from_pyg(module)
    assert not conv.add_self_loops
    assert rel_err(conv(x, with_loops), _run(module, x, with_loops).numpy()) <= 1e-12
    # any graph: two loops on node 0, none on node 5, the rest as they come
    edges = np.concatenate([ei, [[0, 0, 3], [0, 0, 3]]], axis=1)
    dense = np.zeros((N, N))
    np.add.at(dense, (edges[1], edges[0]), 1.0)
    inv = np.float32(1) / np.maximum(dense.sum(1), 1).astype(np.float32)  # PyG's float32
    loop_weight = inv + np.float32(0.6) * inv  # an edge i -> i weighs (1 + lambda) / deg
    prop = dense * inv[:, None].astype(np.float64)
    prop[np.diag_indices(N)] = np.diag(dense) * loop_weight
    state = {k: v.numpy() for k, v in module.state_dict().items()}
    expected = (
        prop @ x @ state["lin_out.weight"].T
        + state["lin_out.bias"]
        + x @ state["lin_root.weight"].T
    )
    assert rel_err(conv(x, edges), expected) <= 1e-12


def test_fa_conv_attention_weights_match_pyg():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((N, 6))
    ei = random_graph(rng, N, num_edges=50, index_dtype=np.int32)
    w = rng.uniform(0.5, 1.5, ei.shape[1])
    for settings, weight in (
        ({}, None),
        ({"add_self_loops": False}, None),
        ({"normalize": False}, w),
    ):
        torch.manual_seed(0)
        module = pyg_nn.FAConv(6, **settings).double()
        conv = agnn.from_pyg(module)
        for flag in (True, False):  # PyG: any bool returns the weights
            args = (x, 2 * x, ei) if weight is None else (x, 2 * x, ei, weight)
            ref, (ref_ei, ref_alpha) = _run(module, *args, return_attention_weights=flag)
            out, (edges, alpha) = conv(*args, return_attention_weights=flag)
            np.testing.assert_array_equal(edges, ref_ei.numpy())
            assert rel_err(alpha, ref_alpha.numpy()) <= 1e-12
            assert rel_err(out, ref.numpy()) <= 1e-12
        assert not isinstance(conv(*args), tuple)


def test_cached_layers_keep_the_first_graph():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    ei = random_graph(rng, N)
    for make in (
        lambda: pyg_nn.SSGConv(6, 4, 0.2, K=2, cached=True),
        lambda: pyg_nn.FAConv(6, cached=True),
    ):
        torch.manual_seed(0)
        module = make()
        conv = agnn.from_pyg(module)
        assert conv.cached
        args = (x, x, ei) if isinstance(conv, agnn.FAConv) else (x, ei)
        first = _run(module, *args).numpy()
        assert rel_err(conv(*args), first) <= 1e-5
        small = args[:-1] + (ei[:, :4],)  # the cached graph is used again, as PyG does
        assert rel_err(conv(*small), _run(module, *small).numpy()) <= 1e-5
        conv.astype(np.float64)  # clears the cache: the new graph is read
        fresh = make()
        fresh.load_state_dict(module.state_dict())
        assert rel_err(conv(*small), _run(fresh, *small).numpy()) <= 1e-5


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_state_dicts_round_trip_and_inputs_untouched(case):
    name, make, call, takes_w = case
    rng = np.random.default_rng(4)
    torch.manual_seed(0)
    module = make()
    conv = agnn.from_pyg(module)
    state = {k: v.numpy() for k, v in module.state_dict().items()}
    ours = conv.state_dict()
    assert set(ours) == set(state)
    for key, value in ours.items():
        np.testing.assert_array_equal(value, state[key])
    x, ei, w = _inputs(rng, call, "multi", np.float32, np.int64)
    weight = w if takes_w else None
    copies = [a.copy() for a in (x if isinstance(x, tuple) else (x,))] + [ei.copy(), w.copy()]
    ref, out = _both(module, conv, call, x, ei, weight)
    # a fresh layer loading the numpy state dict gives the same bits
    fresh = type(conv)(**_ctor_args(conv))
    fresh.load_state_dict(state)
    np.testing.assert_array_equal(_both(module, fresh, call, x, ei, weight)[1], out)
    for before, after in zip(copies, [*(x if isinstance(x, tuple) else (x,)), ei, w]):
        np.testing.assert_array_equal(before, after)


def _ctor_args(conv):
    """The constructor arguments of an arraygnn layer converted from PyG."""
    kind = type(conv).__name__
    if kind == "LEConv":
        return {
            "in_channels": conv.in_channels,
            "out_channels": conv.out_channels,
            "bias": conv.lin1.bias is not None,
        }
    if kind == "ClusterGCNConv":
        return {
            "in_channels": conv.in_channels,
            "out_channels": conv.out_channels,
            "diag_lambda": conv.diag_lambda,
            "bias": conv.lin_out.bias is not None,
        }
    if kind == "SSGConv":
        return {
            "in_channels": conv.in_channels,
            "out_channels": conv.out_channels,
            "alpha": conv.alpha,
            "K": conv.K,
            "add_self_loops": conv.add_self_loops,
            "bias": conv.lin.bias is not None,
        }
    if kind == "LGConv":
        return {"normalize": conv.normalize}
    if kind == "FAConv":
        return {
            "channels": conv.channels,
            "eps": conv.eps,
            "normalize": conv.normalize,
            "add_self_loops": conv.add_self_loops,
        }
    return {
        "in_channels": conv.in_channels,
        "out_channels": conv.out_channels,
        "num_stacks": conv.num_stacks,
        "num_layers": conv.num_layers,
        "shared_weights": conv.shared_weights,
        "act": conv.act,
        "bias": conv.bias is not None,
    }


def test_calling_forms_agree():
    """The DGL graph form, a CSR in place of edge_index and (LEConv) the bipartite and block
    forms give the edge_index numbers."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    ei = random_graph(rng, N)
    w = rng.uniform(0.5, 1.5, ei.shape[1]).astype(np.float32)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    for conv in (
        agnn.LEConv(6, 4, rng=0),
        agnn.ClusterGCNConv(6, 4, 0.5, rng=0),
        agnn.SSGConv(6, 4, 0.2, K=2, rng=0),
        agnn.LGConv(),
        agnn.ARMAConv(6, 4, 2, 2, rng=0),
    ):
        base = conv(x, ei)
        np.testing.assert_array_equal(conv(g, x), base)
        np.testing.assert_array_equal(conv(x, ops.to_csr(ei, N, N)), base)
        if not isinstance(conv, agnn.ClusterGCNConv):
            np.testing.assert_array_equal(conv(g, x, w), conv(x, ei, w))
    le = agnn.LEConv((6, 5), 3, rng=1)
    xs, xd = x, rng.standard_normal((12, 5)).astype(np.float32)
    bip = _graph(rng, "multi", np.int64, N, 12)
    base = le((xs, xd), bip, w[: bip.shape[1]])
    csr = ops.to_csr(bip, N, 12)
    np.testing.assert_array_equal(le((xs, xd), csr, w[: bip.shape[1]]), base)
    block = FakeBlock(ei[:, ei[1] < 8], N, 8)
    same = agnn.LEConv(6, 3, rng=2)
    expected = same((x, x[:8]), ei[:, ei[1] < 8])
    np.testing.assert_array_equal(same(block, x), expected)


def test_zero_node_graphs():
    x = np.zeros((0, 6), np.float32)
    ei = np.zeros((2, 0), np.int64)
    for conv, args in (
        (agnn.LEConv(6, 4), (x, ei)),
        (agnn.ClusterGCNConv(6, 4), (x, ei)),
        (agnn.SSGConv(6, 4, 0.1, K=2), (x, ei)),
        (agnn.LGConv(), (x, ei)),
        (agnn.FAConv(6), (x, x, ei)),
        (agnn.ARMAConv(6, 4, 2, 2), (x, ei)),
    ):
        out = conv(*args)
        assert out.shape == (0, 4 if not isinstance(conv, (agnn.LGConv, agnn.FAConv)) else 6)


def test_errors_name_the_layer():
    x = np.ones((4, 6), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    bad_ids = np.array([[0, 9], [1, 2]])
    homogeneous = [
        ("LEConv", agnn.LEConv(6, 2), ()),
        ("ClusterGCNConv", agnn.ClusterGCNConv(6, 2), ()),
        ("SSGConv", agnn.SSGConv(6, 2, 0.1), ()),
        ("LGConv", agnn.LGConv(), ()),
        ("FAConv", agnn.FAConv(6), (x,)),
        ("ARMAConv", agnn.ARMAConv(6, 2), ()),
    ]
    for name, conv, extra in homogeneous:

        def call(features, edges, conv=conv, extra=extra):
            return conv(features, *extra, edges)

        with pytest.raises(ValueError, match=rf"{name}: edge_index\[0\] \(sources\) has entry 9"):
            call(x, bad_ids)
        with pytest.raises(ValueError, match=rf"{name}: edge_index must have shape \[2, E\]"):
            call(x, ei[0])
        with pytest.raises(TypeError, match=rf"{name}: edge_index must hold integers"):
            call(x, ei.astype(np.float32))
        with pytest.raises(ValueError, match=rf"{name}.*\[num_nodes"):
            call(x[:, 0], ei)
        with pytest.raises(ValueError, match=rf"{name}.*\[num_nodes, "):
            call(x[:, None, :], ei)
        if name != "LGConv":  # no weights: any width
            with pytest.raises(ValueError, match=rf"{name} x.*expected last dimension 6"):
                call(x[:, :5], ei)
    for name, conv in (
        ("LEConv", agnn.LEConv(6, 2)),
        ("SSGConv", agnn.SSGConv(6, 2, 0.1)),
        ("LGConv", agnn.LGConv()),
        ("ARMAConv", agnn.ARMAConv(6, 2)),
    ):
        with pytest.raises(ValueError, match=rf"{name}: edge_weight must have shape \(3,\)"):
            conv(x, ei, np.ones(2, np.float32))
        with pytest.raises(TypeError, match=rf"{name}: edge_weight must hold floating-point"):
            conv(x, ei, np.ones(3, np.int64))
    for name, conv in (
        ("ClusterGCNConv", agnn.ClusterGCNConv(6, 2)),
        ("SSGConv", agnn.SSGConv(6, 2, 0.1)),
        ("ARMAConv", agnn.ARMAConv(6, 2)),
    ):
        with pytest.raises(ValueError, match=rf"{name} needs a homogeneous graph"):
            conv((x, x[:2]), np.array([[0], [1]]))
    fa = agnn.FAConv(6)
    with pytest.raises(ValueError, match="FAConv: normalize=True computes the edge weights"):
        fa(x, x, ei, np.ones(3, np.float32))
    with pytest.raises(ValueError, match="FAConv: normalize=False needs edge_weight"):
        agnn.FAConv(6, normalize=False)(x, x, ei)
    with pytest.raises(ValueError, match=r"FAConv: x_0 must have the shape of x"):
        fa(x, x[:3], ei)
    with pytest.raises(TypeError, match=r"FAConv: x_0 must be a NumPy or CuPy array"):
        fa(x, None, ei)
    assert agnn.FAConv(6, eps=0.0)(x, None, ei).shape == (4, 6)  # eps = 0: x_0 unread
    le = agnn.LEConv((6, 5), 2)
    with pytest.raises(ValueError, match=r"LEConv: x\[1\] is None"):
        le((x, None), ei)
    with pytest.raises(ValueError, match=r"LEConv x_dst.*expected last dimension 5"):
        le((x, x), ei)
    with pytest.raises(ValueError, match=r"LEConv: edge_index\[1\] \(targets\) has entry 3"):
        le((x, x[:3, :5]), ei)
    with pytest.raises(TypeError, match="LEConv: in_channels must be an int or a pair"):
        agnn.LEConv((6, 5, 4), 2)
    with pytest.raises(ValueError, match=r"ARMAConv: num_stacks must be in \[1,"):
        agnn.ARMAConv(6, 2, num_stacks=0)
    with pytest.raises(TypeError, match="SSGConv: K must be an int"):
        agnn.SSGConv(6, 2, 0.1, K=1.5)
    with pytest.raises(ValueError, match="activation must be None, a callable or one of"):
        agnn.ARMAConv(6, 2, act="swish")


def test_from_pyg_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match=r"LGConv\(flow='target_to_source'\) is not supported"):
        agnn.from_pyg(pyg_nn.LGConv(flow="target_to_source"))
    with pytest.raises(ValueError, match=r"LEConv\(aggr='mean'\) is not supported"):
        agnn.from_pyg(pyg_nn.LEConv(4, 2, aggr="mean"))
    with pytest.raises(ValueError, match="ARMAConv act"):
        agnn.from_pyg(pyg_nn.ARMAConv(4, 2, act=torch.nn.PReLU()))
    with pytest.raises(ValueError, match="uninitialized parameter"):  # torch's own error
        agnn.from_pyg(pyg_nn.ARMAConv(-1, 2))
    lazy = pyg_nn.ARMAConv(-1, 2, num_stacks=2)  # its lazy root_weight gets a spare slice
    x, ei = torch.randn(5, 3), torch.tensor([[0, 1, 4], [1, 2, 2]])
    ref = _run(lazy, x.numpy(), ei.numpy()).numpy()
    conv = agnn.from_pyg(lazy)
    assert conv.in_channels == 3
    assert rel_err(conv(x.numpy(), ei.numpy()), ref) <= 1e-5
    lazy = pyg_nn.LEConv(-1, 3)
    x = torch.randn(5, 4)
    lazy(x, torch.tensor([[0, 1], [1, 2]]))  # sizes the lazy weights
    conv = agnn.from_pyg(lazy)
    assert conv.in_channels == 4


def test_float64_features_through_float32_weights():
    """Features of another dtype than the weights follow NumPy's promotion (no in-place
    cast down): float64 features through float32 weights give the float64 layer's numbers."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((N, 6))
    ei = random_graph(rng, N)
    w = rng.uniform(0.5, 1.5, ei.shape[1])
    for conv, args in (
        (agnn.LEConv((6, 5), 4, rng=0), ((x, x[:, :5]), ei, w)),
        (agnn.ClusterGCNConv(6, 4, 0.5, add_self_loops=False, rng=0), (x, ei)),
        (agnn.SSGConv(6, 4, 0.2, K=2, rng=0), (x, ei, w)),
        (agnn.FAConv(6, rng=0), (x, x, ei)),
        (agnn.ARMAConv(6, 4, 2, 2, rng=0), (x, ei, w)),
    ):
        out = conv(*args)
        assert out.dtype == np.float64
        conv.astype(np.float64)  # the same weights, exactly, in float64
        assert rel_err(out, conv(*args)) <= 1e-12
