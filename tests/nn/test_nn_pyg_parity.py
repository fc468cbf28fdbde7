"""Every layer against PyG with the same random weights on random graphs.

Graphs have self-loops, a repeated edge and isolated (zero-in-degree) nodes; int32 and
int64 indices; float32 (within 1e-5 relative) and float64. The max relative error is printed
(``pytest -s`` shows it).
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, FakeBlock, random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

import arraygnn.nn as agnn  # noqa: E402

DTYPES = [np.float32, np.float64]
TORCH_DTYPE = {np.float32: torch.float32, np.float64: torch.float64}


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _torch_out(module, *args, **kwargs):
    with torch.no_grad():
        return module(*args, **kwargs).numpy()


def _check(name, ours, theirs, dtype):
    err = rel_err(ours, theirs)
    print(f"{name} [{np.dtype(dtype).name}] max relative error vs PyG: {err:.2e}")
    assert ours.dtype == np.dtype(dtype), (ours.dtype, dtype)
    assert err <= TOL[dtype], f"{name}: relative error {err:.2e} > {TOL[dtype]:.0e}"


def _convert(module, dtype):
    module = module.to(TORCH_DTYPE[dtype]).eval()
    return module, agnn.from_pyg(module)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("weighted,improved", [(False, False), (True, False), (True, True)])
def test_gcn_conv_matches_pyg(dtype, index_dtype, weighted, improved):
    rng = np.random.default_rng(0)
    n = 30
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 12)).astype(dtype)
    w = rng.uniform(0.5, 2.0, ei.shape[1]).astype(dtype) if weighted else None
    ref, ours = _convert(pyg_nn.GCNConv(12, 7, improved=improved), dtype)
    with torch.no_grad():
        ref.bias.normal_()
    ours = agnn.from_pyg(ref)
    expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)), None if w is None else _t(w))
    _check("GCNConv", ours(x, ei, w), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gcn_conv_zero_in_degree(dtype):
    rng = np.random.default_rng(1)
    n = 20
    ei = random_graph(rng, n, isolated=3)
    x = rng.standard_normal((n, 5)).astype(dtype)
    ref, _ = _convert(pyg_nn.GCNConv(5, 4, add_self_loops=False), dtype)
    with torch.no_grad():
        ref.bias.normal_()
    strict = agnn.GCNConv(5, 4, add_self_loops=False, dtype=dtype).load_state_dict(ref.state_dict())
    with pytest.raises(ValueError, match="zero in-degree"):
        strict(x, ei)
    lenient = agnn.from_pyg(ref)  # PyG accepts zero in-degree: from_pyg allows it too
    expected = _torch_out(ref, _t(x), _t(ei))
    _check("GCNConv(add_self_loops=False)", lenient(x, ei), expected, dtype)
    np.testing.assert_allclose(
        lenient(x, ei)[-3:], np.broadcast_to(ref.bias.detach().numpy(), (3, 4))
    )


def test_gcn_conv_cached_and_not_normalized():
    rng = np.random.default_rng(2)
    ei = random_graph(rng, 15)
    x = rng.standard_normal((15, 6)).astype(np.float32)
    ref = pyg_nn.GCNConv(6, 3, cached=True, normalize=False).eval()
    ours = agnn.from_pyg(ref)
    expected = _torch_out(ref, _t(x), _t(ei))
    _check("GCNConv(normalize=False)", ours(x, ei), expected, np.float32)
    _check("GCNConv(cached, 2nd call)", ours(x, ei), expected, np.float32)
    ours.clear_cache()
    _check("GCNConv(after clear_cache)", ours(x, ei), expected, np.float32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "aggr,project,normalize,root_weight",
    [
        ("mean", False, False, True),
        ("sum", False, True, True),
        ("max", False, False, False),
        ("max", True, False, True),
        ("mean", True, True, True),
    ],
)
def test_sage_conv_matches_pyg(dtype, aggr, project, normalize, root_weight):
    rng = np.random.default_rng(3)
    n = 25
    ei = random_graph(rng, n, index_dtype=np.int32)
    x = rng.standard_normal((n, 9)).astype(dtype)
    # in 9 > out 4 exercises the project-before-aggregate path; out 16 the other
    for out in (4, 16):
        ref, ours = _convert(
            pyg_nn.SAGEConv(
                9, out, aggr=aggr, project=project, normalize=normalize, root_weight=root_weight
            ),
            dtype,
        )
        expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)))
        _check(f"SAGEConv({aggr}, project={project}, out={out})", ours(x, ei), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sage_conv_bipartite_and_block(dtype):
    rng = np.random.default_rng(4)
    ns, nd = 30, 12
    ei = random_graph(rng, ns, nd, num_edges=60)
    xs = rng.standard_normal((ns, 8)).astype(dtype)
    xd = rng.standard_normal((nd, 5)).astype(dtype)
    ref, ours = _convert(pyg_nn.SAGEConv((8, 5), 6), dtype)
    expected = _torch_out(ref, (_t(xs), _t(xd)), _t(ei))
    _check("SAGEConv bipartite", ours((xs, xd), ei), expected, dtype)
    # block form: destination features are the first number_of_dst_nodes() source rows
    ref, ours = _convert(pyg_nn.SAGEConv(8, 6), dtype)
    expected = _torch_out(ref, (_t(xs), _t(xs[:nd])), _t(ei))
    _check("SAGEConv block", ours(FakeBlock(ei, ns, nd), xs), expected, dtype)
    _check("SAGEConv graph+pair", ours(FakeBlock(ei, ns, nd), (xs, xs[:nd])), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads,concat", [(1, True), (3, True), (4, False)])
@pytest.mark.parametrize("add_self_loops", [True, False])
def test_gat_conv_matches_pyg(dtype, heads, concat, add_self_loops):
    rng = np.random.default_rng(5)
    n = 28
    ei = random_graph(rng, n)
    x = rng.standard_normal((n, 10)).astype(dtype)
    ref, ours = _convert(
        pyg_nn.GATConv(
            10, 6, heads=heads, concat=concat, negative_slope=0.3, add_self_loops=add_self_loops
        ),
        dtype,
    )
    with torch.no_grad():
        ref.bias.normal_()
    ours = agnn.from_pyg(ref)
    expected = _torch_out(ref, _t(x), _t(ei))
    _check(
        f"GATConv(heads={heads}, concat={concat}, loops={add_self_loops})",
        ours(x, ei),
        expected,
        dtype,
    )
    if not add_self_loops:
        strict = agnn.GATConv(10, 6, heads, concat, 0.3, add_self_loops=False, dtype=dtype)
        with pytest.raises(ValueError, match="zero in-degree"):
            strict(x, ei)


FILL_VALUES = ["mean", "add", "max", "min", "mul", 0.5, "tensor"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("fill_value", FILL_VALUES)
@pytest.mark.parametrize("heads,concat", [(1, True), (3, True), (2, False)])
def test_gat_conv_edge_features_and_residual_match_pyg(
    dtype, index_dtype, fill_value, heads, concat
):
    """PyG's edge_dim (edge scores in the attention), fill_value (the added self-loops'
    edge features) and residual, with and without self-loops, on a graph with self-loops,
    a repeated edge and zero-in-degree nodes."""
    rng = np.random.default_rng(11)
    n = 24
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 9)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    fill = torch.tensor([0.5, -1.0, 2.0]) if fill_value == "tensor" else fill_value
    for loops in (True, False):
        for residual in (False, True):
            torch.manual_seed(3)
            module = pyg_nn.GATConv(
                9, 5, heads=heads, concat=concat, edge_dim=3, fill_value=fill,
                residual=residual, add_self_loops=loops,
            )  # fmt: skip
            ref, ours = _convert(module, dtype)
            with torch.no_grad():
                ref.bias.normal_()
            ours = agnn.from_pyg(ref)
            assert ours.edge_dim == 3 and (ours.res is not None) == residual
            expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)), _t(ea))
            name = f"GATConv(edge_dim=3, fill={fill_value}, residual={residual}, loops={loops})"
            _check(name, ours(x, ei, ea), expected, dtype)
            # the state dict carries PyG's names and loads into a fresh layer
            fresh = agnn.GATConv(
                9, 5, heads, concat, edge_dim=3, fill_value=ours.fill_value,
                residual=residual, add_self_loops=loops, allow_zero_in_degree=True, dtype=dtype,
            )  # fmt: skip
            fresh.load_state_dict(ref.state_dict())
            np.testing.assert_array_equal(fresh(x, ei, ea), ours(x, ei, ea))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gat_conv_edge_features_bipartite_block_and_empty(dtype):
    """edge_dim=1 with a 1-D edge_attr on a bipartite pair (lin_src / lin_dst) and on a
    block, through a cached CSR, and on a graph without edges."""
    rng = np.random.default_rng(12)
    ns, nd = 22, 9
    ei = random_graph(rng, ns, nd, num_edges=60, isolated=0)
    xs = rng.standard_normal((ns, 7)).astype(dtype)
    xd = rng.standard_normal((nd, 5)).astype(dtype)
    ea = rng.standard_normal(ei.shape[1]).astype(dtype)
    ref, ours = _convert(pyg_nn.GATConv((7, 5), 4, heads=2, edge_dim=1, residual=True), dtype)
    expected = _torch_out(ref, (_t(xs), _t(xd)), _t(ei), _t(ea))
    _check("GATConv bipartite edge_dim=1", ours((xs, xd), ei, ea), expected, dtype)
    ref, ours = _convert(
        pyg_nn.GATConv(7, 4, heads=2, edge_dim=1, residual=True, add_self_loops=False), dtype
    )
    expected = _torch_out(ref, (_t(xs), _t(xs[:nd])), _t(ei), _t(ea))
    _check("GATConv block edge_dim=1", ours(FakeBlock(ei, ns, nd), xs, ea), expected, dtype)
    from arraygnn import ops

    csr = ops.to_csr(ei, ns, nd)
    _check("GATConv CSR edge_dim=1", ours((xs, xs[:nd]), csr, ea), expected, dtype)
    ref, ours = _convert(pyg_nn.GATConv(7, 4, heads=2, edge_dim=2, residual=True), dtype)
    empty = np.zeros((2, 0), np.int64)
    no_attr = np.zeros((0, 2), dtype)
    expected = _torch_out(ref, _t(xs), _t(empty), _t(no_attr))
    _check("GATConv no edges", ours(xs, empty, no_attr), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("add_self_loops", [True, False])
def test_gat_conv_attention_weights_match_pyg(dtype, index_dtype, add_self_loops):
    """return_attention_weights: PyG's edges (existing loops dropped, one per node appended)
    and their per-head attention in that order, also through a cached CSR, with edge
    features, bipartite, and without edges."""
    from arraygnn import ops

    rng = np.random.default_rng(14)
    n = 25
    ei = random_graph(rng, n, index_dtype=index_dtype, isolated=0)
    x = rng.standard_normal((n, 6)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 2)).astype(dtype)
    torch.manual_seed(6)
    ref, ours = _convert(
        pyg_nn.GATConv(6, 4, heads=3, edge_dim=2, add_self_loops=add_self_loops), dtype
    )
    with torch.no_grad():
        out, (edges, alpha) = ref(
            _t(x), _t(ei.astype(np.int64)), _t(ea), return_attention_weights=True
        )
    for graph in (ei, ops.to_csr(ei, n, n)):
        got, (got_edges, got_alpha) = ours(x, graph, ea, return_attention_weights=True)
        np.testing.assert_array_equal(got_edges, edges.numpy())
        assert got_edges.dtype.kind == "i" and got_alpha.shape == (edges.shape[1], 3)
        _check("GATConv attention", got_alpha, alpha.numpy(), dtype)
        _check("GATConv output with attention", got, out.numpy(), dtype)
        np.testing.assert_array_equal(got, ours(x, graph, ea))
    # DGL's layout of the same numbers
    _, dgl_alpha = ours(x, ei, ea, get_attention=True)
    np.testing.assert_array_equal(dgl_alpha, got_alpha[:, :, None])
    # bipartite (no loops) and no edges
    ns, nd = 13, 6
    bei = random_graph(rng, ns, nd, num_edges=30, index_dtype=index_dtype, isolated=0)
    xs = rng.standard_normal((ns, 6)).astype(dtype)
    xd = rng.standard_normal((nd, 5)).astype(dtype)
    ref, ours = _convert(pyg_nn.GATConv((6, 5), 2, heads=2, add_self_loops=False), dtype)
    with torch.no_grad():
        _, (edges, alpha) = ref(
            (_t(xs), _t(xd)), _t(bei.astype(np.int64)), return_attention_weights=True
        )
    _, (got_edges, got_alpha) = ours((xs, xd), bei, return_attention_weights=True)
    np.testing.assert_array_equal(got_edges, edges.numpy())
    _check("GATConv bipartite attention", got_alpha, alpha.numpy(), dtype)
    empty = np.zeros((2, 0), index_dtype)
    ours.allow_zero_in_degree = True
    _, (got_edges, got_alpha) = ours((xs, xd), empty, return_attention_weights=True)
    assert got_edges.shape == (2, 0) and got_alpha.shape == (0, 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gat_conv_bipartite_and_block(dtype):
    rng = np.random.default_rng(6)
    ns, nd = 26, 10
    ei = random_graph(rng, ns, nd, num_edges=70, isolated=0)
    xs = rng.standard_normal((ns, 7)).astype(dtype)
    xd = rng.standard_normal((nd, 5)).astype(dtype)
    ref, ours = _convert(pyg_nn.GATConv((7, 5), 4, heads=2, add_self_loops=False), dtype)
    expected = _torch_out(ref, (_t(xs), _t(xd)), _t(ei))
    _check("GATConv bipartite (lin_src/lin_dst)", ours((xs, xd), ei), expected, dtype)
    ref, ours = _convert(pyg_nn.GATConv(7, 4, heads=2, add_self_loops=False), dtype)
    expected = _torch_out(ref, (_t(xs), _t(xs[:nd])), _t(ei))
    _check("GATConv block", ours(FakeBlock(ei, ns, nd), xs), expected, dtype)


GATV2_SETTINGS = [
    dict(heads=1),
    dict(heads=3, negative_slope=0.3),
    dict(heads=2, concat=False, bias=False),
    dict(heads=2, share_weights=True),
    dict(heads=2, edge_dim=3),
    dict(heads=3, edge_dim=3, fill_value="max", residual=True),
    dict(heads=2, edge_dim=1, fill_value=0.5, concat=False, residual=True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("settings", GATV2_SETTINGS, ids=lambda s: ",".join(map(str, s.items())))
def test_gatv2_conv_matches_pyg(dtype, index_dtype, settings):
    """GATv2Conv against PyG with and without self-loops, on a graph with self-loops, a
    repeated edge and zero-in-degree nodes; through a cached CSR; the attention it returns;
    PyG's state dict loading into a layer built by hand."""
    from arraygnn import ops

    rng = np.random.default_rng(15)
    n = 27
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 7)).astype(dtype)
    edge_dim = settings.get("edge_dim")
    ea = None if edge_dim is None else rng.standard_normal((ei.shape[1], edge_dim)).astype(dtype)
    for loops in (True, False):
        torch.manual_seed(9)
        ref, _ = _convert(pyg_nn.GATv2Conv(7, 5, add_self_loops=loops, **settings), dtype)
        with torch.no_grad():
            for p in ref.parameters():  # biases too (PyG starts them at 0)
                p.normal_(0, 0.5)
        ours = agnn.from_pyg(ref)
        extra = () if ea is None else (ea,)
        with torch.no_grad():
            out, (edges, alpha) = ref(
                _t(x), _t(ei.astype(np.int64)), *map(_t, extra), return_attention_weights=True
            )
        name = f"GATv2Conv({settings}, loops={loops})"
        for graph in (ei, ops.to_csr(ei, n, n)):
            got, (got_edges, got_alpha) = ours(x, graph, *extra, return_attention_weights=True)
            _check(name, got, out.numpy(), dtype)
            _check(name + " attention", got_alpha, alpha.numpy(), dtype)
            np.testing.assert_array_equal(got_edges, edges.numpy())
        fresh = agnn.GATv2Conv(
            7, 5, add_self_loops=loops, allow_zero_in_degree=True, dtype=dtype, **settings
        )
        fresh.load_state_dict(ref.state_dict())
        np.testing.assert_array_equal(fresh(x, ei, *extra), ours(x, ei, *extra))
        assert set(fresh.state_dict()) == set(ref.state_dict())


@pytest.mark.parametrize("dtype", DTYPES)
def test_gatv2_conv_bipartite_block_and_empty(dtype):
    """GATv2Conv on a bipartite pair (lin_l / lin_r of different sizes), on a block, and on
    a graph without edges."""
    rng = np.random.default_rng(16)
    ns, nd = 21, 8
    ei = random_graph(rng, ns, nd, num_edges=55, isolated=0)
    xs = rng.standard_normal((ns, 7)).astype(dtype)
    xd = rng.standard_normal((nd, 4)).astype(dtype)
    torch.manual_seed(10)
    ref, ours = _convert(pyg_nn.GATv2Conv((7, 4), 3, heads=2, residual=True), dtype)
    _check(
        "GATv2Conv bipartite", ours((xs, xd), ei), _torch_out(ref, (_t(xs), _t(xd)), _t(ei)), dtype
    )
    with pytest.raises(ValueError, match="needs destination features"):
        ours((xs, None), ei, size=(ns, nd))
    ref, ours = _convert(pyg_nn.GATv2Conv(7, 3, heads=2, add_self_loops=False), dtype)
    expected = _torch_out(ref, (_t(xs), _t(xs[:nd])), _t(ei))
    _check("GATv2Conv block", ours(FakeBlock(ei, ns, nd), xs), expected, dtype)
    ref, ours = _convert(pyg_nn.GATv2Conv(7, 3, heads=2, edge_dim=2), dtype)
    empty = np.zeros((2, 0), np.int64)
    no_attr = np.zeros((0, 2), dtype)
    expected = _torch_out(ref, _t(xs), _t(empty), _t(no_attr))
    _check("GATv2Conv no edges", ours(xs, empty, no_attr), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("weighted", [False, True])
def test_appnp_and_tag_conv_match_pyg(dtype, index_dtype, weighted):
    """APPNP (with / without self-loops, unnormalised, K = 0, cached) and TAGConv (K = 0, 1, 3,
    unnormalised, no bias) against PyG on a graph with self-loops, a repeated edge and
    zero-in-degree nodes, weighted or not; a cached CSR and a Graph give the same."""
    from arraygnn import ops

    rng = np.random.default_rng(19)
    n = 27
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 6)).astype(dtype)
    w = rng.uniform(0.5, 2.0, ei.shape[1]).astype(dtype) if weighted else None
    tw = None if w is None else _t(w)
    for kw in (dict(), dict(add_self_loops=False), dict(normalize=False), dict(K=0)):
        ref = pyg_nn.APPNP(**{"K": 6, "alpha": 0.15, **kw})
        ours = agnn.from_pyg(ref)
        expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)), tw)
        _check(f"APPNP({kw})", ours(x, ei, w), expected, dtype)
        if not kw:
            _check("APPNP CSR", ours(x, ops.to_csr(ei, n, n), w), expected, dtype)
    cached = agnn.APPNP(4, 0.2, cached=True)
    first = cached(x, ei, w)
    np.testing.assert_array_equal(cached(x, ei[:, :3], None if w is None else w[:3]), first)
    for kw in (dict(), dict(K=1, bias=False), dict(K=0), dict(normalize=False)):
        torch.manual_seed(13)
        ref, _ = _convert(pyg_nn.TAGConv(6, 4, **kw), dtype)
        if ref.bias is not None:
            with torch.no_grad():
                ref.bias.normal_()
        ours = agnn.from_pyg(ref)
        expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)), tw)
        _check(f"TAGConv({kw})", ours(x, ei, w), expected, dtype)
        fresh = agnn.TAGConv(6, 4, dtype=dtype, **kw).load_state_dict(ref.state_dict())
        np.testing.assert_array_equal(fresh(x, ei, w), ours(x, ei, w))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("normalization", ["sym", "rw", None])
def test_cheb_conv_matches_pyg(dtype, index_dtype, normalization):
    """ChebConv against PyG for K = 1..4, weighted or not, the default lambda_max, a number,
    and one per graph with batch; on a directed graph with self-loops, a repeated edge and
    zero-in-degree nodes (the Laplacian's degrees are out-degrees, as PyG's)."""
    rng = np.random.default_rng(20)
    n = 26
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 6)).astype(dtype)
    w = rng.uniform(0.5, 2.0, ei.shape[1]).astype(dtype)
    batch = (np.arange(n) >= 13).astype(np.int64)
    ei_batched = ei[:, (ei[0] >= 13) == (ei[1] >= 13)]  # no edge between the two graphs
    for K in (1, 2, 4):
        torch.manual_seed(K)
        ref, _ = _convert(pyg_nn.ChebConv(6, 4, K, normalization=normalization), dtype)
        with torch.no_grad():
            ref.bias.normal_()
        ours = agnn.from_pyg(ref)
        for weights in (None, w):
            tw = None if weights is None else _t(weights)
            for lam in (None, 3.0):
                expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)), tw, lambda_max=lam)
                got = ours(x, ei, weights, lambda_max=lam)
                _check(f"ChebConv(K={K}, {normalization}, lambda_max={lam})", got, expected, dtype)
        lam = np.array([2.5, 3.5], dtype)
        expected = _torch_out(
            ref, _t(x), _t(ei_batched.astype(np.int64)), batch=_t(batch), lambda_max=_t(lam)
        )
        got = ours(x, ei_batched, batch=batch, lambda_max=lam)
        _check(f"ChebConv(K={K}) per-graph lambda_max", got, expected, dtype)


TRANSFORMER_SETTINGS = [
    dict(heads=1),
    dict(heads=3, beta=True),
    dict(heads=2, concat=False, root_weight=False),
    dict(heads=2, edge_dim=3),
    dict(heads=3, edge_dim=1, beta=True, concat=False, bias=False),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "settings", TRANSFORMER_SETTINGS, ids=lambda s: ",".join(map(str, s.items()))
)
def test_transformer_conv_matches_pyg(dtype, index_dtype, settings):
    """TransformerConv against PyG on a graph with self-loops, a repeated edge and
    zero-in-degree nodes: outputs and attention, through a cached CSR, bipartite, a
    block, no edges; PyG's state dict loads into a layer built by hand."""
    from arraygnn import ops

    rng = np.random.default_rng(18)
    n = 26
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 7)).astype(dtype)
    edge_dim = settings.get("edge_dim")
    extra = () if edge_dim is None else (rng.standard_normal((ei.shape[1], edge_dim)),)
    extra = tuple(a.astype(dtype) for a in extra)
    torch.manual_seed(12)
    ref, ours = _convert(pyg_nn.TransformerConv(7, 5, **settings), dtype)
    name = f"TransformerConv({settings})"
    with torch.no_grad():
        out, (edges, alpha) = ref(
            _t(x), _t(ei.astype(np.int64)), *map(_t, extra), return_attention_weights=True
        )
    for graph in (ei, ops.to_csr(ei, n, n)):
        got, (got_edges, got_alpha) = ours(x, graph, *extra, return_attention_weights=True)
        _check(name, got, out.numpy(), dtype)
        _check(name + " attention", got_alpha, alpha.numpy(), dtype)
        np.testing.assert_array_equal(got_edges, edges.numpy())
    fresh = agnn.TransformerConv(7, 5, dtype=dtype, **settings)
    fresh.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(fresh(x, ei, *extra), ours(x, ei, *extra))
    # bipartite pair, a block, no edges
    ns, nd = 19, 8
    bei = random_graph(rng, ns, nd, num_edges=50, index_dtype=index_dtype, isolated=2)
    xs = rng.standard_normal((ns, 7)).astype(dtype)
    xd = rng.standard_normal((nd, 4)).astype(dtype)
    bextra = tuple(rng.standard_normal((50, edge_dim)).astype(dtype) for _ in extra)
    ref, ours = _convert(pyg_nn.TransformerConv((7, 4), 5, **settings), dtype)
    with torch.no_grad():
        expected = ref((_t(xs), _t(xd)), _t(bei.astype(np.int64)), *map(_t, bextra)).numpy()
    _check(name + " bipartite", ours((xs, xd), bei, *bextra), expected, dtype)
    ref, ours = _convert(pyg_nn.TransformerConv(7, 5, **settings), dtype)
    with torch.no_grad():
        expected = ref((_t(xs), _t(xs[:nd])), _t(bei.astype(np.int64)), *map(_t, bextra))
    _check(name + " block", ours(FakeBlock(bei, ns, nd), xs, *bextra), expected.numpy(), dtype)
    empty = np.zeros((2, 0), index_dtype)
    no_attr = tuple(np.zeros((0, edge_dim), dtype) for _ in extra)
    with torch.no_grad():
        expected = ref(_t(xs), _t(empty.astype(np.int64)), *map(_t, no_attr)).numpy()
    _check(name + " no edges", ours(xs, empty, *no_attr), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("gate_kind", ["linear", "mlp+nn", "per-feature"])
def test_attentional_aggregation_matches_pyg(dtype, gate_kind):
    """PyG's AttentionalAggregation: a Linear gate, a PyG MLP gate (batch norm) with an nn,
    a gate per feature; batch ids unsorted and sorted, an empty graph, a CSR ptr; its
    state dict loads into a layer built by hand."""
    from torch_geometric.nn import MLP, aggr

    rng = np.random.default_rng(17)
    x = rng.standard_normal((23, 6)).astype(dtype)
    batch = rng.integers(0, 4, 23)  # graph 4 of 5 is empty
    torch.manual_seed(11)
    if gate_kind == "linear":
        gate, inner = torch.nn.Linear(6, 1), None
    elif gate_kind == "mlp+nn":
        gate = MLP([6, 8, 1])
        inner = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU())
    else:
        gate, inner = torch.nn.Linear(6, 6), None
    ref = aggr.AttentionalAggregation(gate, inner).to(TORCH_DTYPE[dtype]).eval()
    with torch.no_grad():
        ref(_t(x), _t(batch), dim_size=5)  # eval: running stats unchanged
    ours = agnn.from_pyg(ref)
    if gate_kind != "mlp+nn":  # PyG's MLP norms carry norms.0.module.* and a counter
        assert set(ours.state_dict()) == set(ref.state_dict())
    for b in (batch, np.sort(batch)):
        with torch.no_grad():
            expected = ref(_t(x), _t(b), dim_size=5).numpy()
        _check(f"AttentionalAggregation({gate_kind})", ours(x, b, dim_size=5), expected, dtype)
    order = np.argsort(batch, kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(batch, minlength=5))])
    with torch.no_grad():
        expected = ref(_t(x[order]), ptr=_t(ptr), dim_size=5).numpy()
    got = ours(x[order], ptr=ptr)
    _check(f"AttentionalAggregation({gate_kind}) ptr", got, expected, dtype)
    assert np.all(got[4] == 0)  # the empty graph
    if gate_kind == "linear":
        fresh = agnn.AttentionalAggregation(agnn.Linear(6, 1, dtype=dtype))
        fresh.load_state_dict(ref.state_dict())
        np.testing.assert_array_equal(fresh(x, batch, dim_size=5), ours(x, batch, dim_size=5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gin_conv_matches_pyg(dtype):
    rng = np.random.default_rng(7)
    n = 24
    ei = random_graph(rng, n)
    x = rng.standard_normal((n, 6)).astype(dtype)
    seq = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 5))
    ref, ours = _convert(pyg_nn.GINConv(seq, eps=0.25), dtype)
    _check("GINConv(Sequential)", ours(x, ei), _torch_out(ref, _t(x), _t(ei)), dtype)
    mlp = pyg_nn.MLP([6, 12, 12, 3], norm="batch_norm")
    ref = pyg_nn.GINConv(mlp, train_eps=True).to(TORCH_DTYPE[dtype])
    with torch.no_grad():  # non-trivial running statistics
        ref(_t(x), _t(ei))  # train mode updates BatchNorm running stats
        ref.eps.fill_(-0.3)
    ref.eval()
    ours = agnn.from_pyg(ref)
    _check("GINConv(PyG MLP, batch_norm)", ours(x, ei), _torch_out(ref, _t(x), _t(ei)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("aggr", ["add", "mean", "max"])
@pytest.mark.parametrize("edge_dim", [None, 3])
def test_gine_conv_matches_pyg(dtype, index_dtype, aggr, edge_dim):
    """GINEConv: ReLU(x_j + lin(e)) messages, with and without lin (edge_dim), every
    aggregation, on a graph with self-loops, a repeated edge and zero-in-degree nodes; the
    pair form, a block and a cached CSR give the same as PyG's pair form."""
    rng = np.random.default_rng(13)
    n = 26
    ei = random_graph(rng, n, index_dtype=index_dtype)
    x = rng.standard_normal((n, 6)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], edge_dim or 6)).astype(dtype)
    torch.manual_seed(5)
    inner = torch.nn.Sequential(torch.nn.Linear(6, 10), torch.nn.ReLU(), torch.nn.Linear(10, 4))
    ref, _ = _convert(
        pyg_nn.GINEConv(inner, eps=0.3, train_eps=True, edge_dim=edge_dim, aggr=aggr), dtype
    )
    ours = agnn.from_pyg(ref)
    assert ours.aggregator_type == {"add": "sum"}.get(aggr, aggr)
    assert (ours.lin is None) == (edge_dim is None)
    expected = _torch_out(ref, _t(x), _t(ei.astype(np.int64)), _t(ea))
    _check(f"GINEConv(aggr={aggr}, edge_dim={edge_dim})", ours(x, ei, ea), expected, dtype)
    nd = 9
    sub = ei[:, ei[1] < nd]
    sub_ea = ea[ei[1] < nd]
    expected = _torch_out(ref, (_t(x), _t(x[:nd])), _t(sub.astype(np.int64)), _t(sub_ea))
    _check("GINEConv pair", ours((x, x[:nd]), sub, sub_ea), expected, dtype)
    _check("GINEConv block", ours(FakeBlock(sub, n, nd), x, sub_ea), expected, dtype)
    from arraygnn import ops

    csr = ops.to_csr(sub, n, nd)
    _check("GINEConv CSR", ours((x, x[:nd]), csr, sub_ea), expected, dtype)
    empty = np.zeros((2, 0), np.int64)
    expected = _torch_out(ref, _t(x), _t(empty), _t(ea[:0]))
    _check("GINEConv no edges", ours(x, empty, ea[:0]), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sg_conv_matches_pyg(dtype):
    rng = np.random.default_rng(8)
    ei = random_graph(rng, 22)
    x = rng.standard_normal((22, 5)).astype(dtype)
    ref, ours = _convert(pyg_nn.SGConv(5, 3, K=3), dtype)
    _check("SGConv(K=3)", ours(x, ei), _torch_out(ref, _t(x), _t(ei)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_readouts_match_pyg(dtype):
    from torch_geometric.nn import global_add_pool, global_max_pool, global_mean_pool

    rng = np.random.default_rng(9)
    counts = np.array([3, 0, 5, 1, 4])
    batch = np.repeat(np.arange(5), counts)
    ptr = np.concatenate([[0], np.cumsum(counts)])
    x = rng.standard_normal((batch.shape[0], 4)).astype(dtype)
    for ours_fn, ref_fn in [
        (agnn.global_add_pool, global_add_pool),
        (agnn.global_mean_pool, global_mean_pool),
        (agnn.global_max_pool, global_max_pool),
    ]:
        expected = ref_fn(_t(x), _t(batch), size=5).numpy()
        expected[1] = 0  # PyG's max over an empty graph is 0 too; keep the check explicit
        _check(ours_fn.__name__, ours_fn(x, batch, size=5), expected, dtype)
        _check(ours_fn.__name__ + "(ptr)", ours_fn(x, ptr=ptr), expected, dtype)


def test_two_layer_model_from_pyg_weights():
    """A PyG-trained style two-layer model rebuilt from state dicts alone (no from_pyg)."""
    rng = np.random.default_rng(10)
    ei = random_graph(rng, 40, isolated=0)
    x = rng.standard_normal((40, 16)).astype(np.float32)
    c1, c2 = pyg_nn.GATConv(16, 8, heads=4).eval(), pyg_nn.GCNConv(32, 3).eval()
    with torch.no_grad():
        expected = c2(torch.relu(c1(_t(x), _t(ei))), _t(ei)).numpy()
    state1 = {k: v.numpy() for k, v in c1.state_dict().items()}
    state2 = {k: v.numpy() for k, v in c2.state_dict().items()}
    o1 = agnn.GATConv(16, 8, heads=4).load_state_dict(state1)
    o2 = agnn.GCNConv(32, 3).load_state_dict(state2)
    got = o2(np.maximum(o1(x, ei), 0), ei)
    _check("GAT->GCN model", got, expected, np.float32)


def test_from_pyg_lazy_sizes_after_a_forward_pass():
    """PyG keeps in_channels=-1 on the module after its lazy Linears are sized; the real
    sizes come from those Linears. Before the first forward pass the error says so."""
    torch.manual_seed(30)
    x = torch.randn(10, 5)
    ei = torch.randint(0, 10, (2, 30))
    modules = {
        "GCNConv": pyg_nn.GCNConv(-1, 3),
        "SAGEConv": pyg_nn.SAGEConv((-1, -1), 3),
        "SAGEConv-noroot": pyg_nn.SAGEConv(-1, 3, root_weight=False),
        "GATConv": pyg_nn.GATConv(-1, 3, heads=2),
        "GATConv-pair": pyg_nn.GATConv((-1, -1), 3, add_self_loops=False),
        "GATv2Conv": pyg_nn.GATv2Conv(-1, 3),
        "TransformerConv": pyg_nn.TransformerConv(-1, 3),
        "SGConv": pyg_nn.SGConv(-1, 3),
        "MLP": pyg_nn.MLP([-1, 8, 3]),
        "Linear": pyg_nn.Linear(-1, 3),
    }
    for name, module in modules.items():
        with pytest.raises(ValueError, match="run the module once on data"):
            agnn.from_pyg(module)
        dense = name in ("MLP", "Linear")
        module(x) if dense else module(x, ei)  # sizes the lazy weights
        module.eval()
        with torch.no_grad():
            ref = (module(x) if dense else module(x, ei)).numpy()
        conv = agnn.from_pyg(module)
        out = conv(x.numpy()) if dense else conv(x.numpy(), ei.numpy())
        assert rel_err(out, ref) <= 1e-5, name


def test_mlp_export_loads_back_into_pyg():
    """PyG's BatchNorm wraps torch's: the export names norms ``norms.i.module.*``."""
    torch.manual_seed(31)
    module = pyg_nn.MLP([4, 8, 8, 3]).eval()
    for norm in module.norms:
        torch.nn.init.normal_(norm.module.weight)
        torch.nn.init.uniform_(norm.module.running_var, 0.5, 2)
    ours = agnn.from_pyg(module)
    fresh = pyg_nn.MLP([4, 8, 8, 3]).eval()
    fresh.load_state_dict({k: _t(np.asarray(v)) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(31).standard_normal((5, 4)).astype(np.float32)
    assert rel_err(ours(x), _torch_out(fresh, _t(x))) <= 1e-5
    gin = agnn.from_pyg(pyg_nn.GINConv(pyg_nn.MLP([4, 8, 3])))
    assert "nn.norms.0.module.running_var" in gin.state_dict()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("num_layers", [1, 2])
def test_set2set_matches_pyg(dtype, num_layers):
    """Unsorted graph ids with an empty graph, a sorted ``ptr`` form, 1 and 2 LSTM layers."""
    torch.manual_seed(32)
    module = pyg_nn.aggr.Set2Set(5, processing_steps=3, num_layers=num_layers)
    module = module.to(TORCH_DTYPE[dtype])
    rng = np.random.default_rng(32)
    x = rng.standard_normal((12, 5)).astype(dtype)
    index = np.array([0, 0, 0, 1, 1, 3, 3, 3, 3, 3, 1, 0])  # graph 2 has no rows
    ours = agnn.from_pyg(module)
    ref = _torch_out(module, _t(x), _t(index), dim_size=4)
    _check("Set2Set", ours(x, index, dim_size=4), ref, dtype)
    order = np.argsort(index, kind="stable")
    ptr = np.array([0, 4, 7, 7, 12])
    ref = _torch_out(module, _t(x[order]), _t(index[order]), dim_size=4)
    _check("Set2Set ptr", ours(x[order], ptr=ptr), ref, dtype)
    assert sorted(ours.state_dict()) == sorted(module.state_dict())


def test_lstm_from_torch_and_refusals():
    torch.manual_seed(33)
    x = np.random.default_rng(33).standard_normal((4, 3, 6)).astype(np.float32)
    for layers, bias in ((1, True), (3, False)):
        module = torch.nn.LSTM(6, 5, num_layers=layers, bias=bias)
        with torch.no_grad():
            ref, (h, c) = module(_t(x))
        out, (h2, c2) = agnn.from_torch(module)(x)
        for a, b in ((out, ref), (h2, h), (c2, c)):
            assert rel_err(a, b.numpy()) <= 1e-5
    with pytest.raises(ValueError, match="bidirectional"):
        agnn.from_torch(torch.nn.LSTM(6, 5, bidirectional=True))
    with pytest.raises(ValueError, match="batch_first"):
        agnn.from_torch(torch.nn.LSTM(6, 5, batch_first=True))
    s2s = agnn.Set2Set(4, 2)
    np.testing.assert_array_equal(  # dim_size left out: PyG's index.max() + 1
        s2s(np.ones((3, 4), np.float32), np.array([0, 0, 1])),
        s2s(np.ones((3, 4), np.float32), np.array([0, 0, 1]), dim_size=2),
    )
    with pytest.raises(ValueError, match="expected last dimension 4"):
        s2s(np.ones((3, 5), np.float32))


def _edge_net(edge_dim, fin, fout):
    return torch.nn.Sequential(
        torch.nn.Linear(edge_dim, 16), torch.nn.ReLU(), torch.nn.Linear(16, fin * fout)
    )


@pytest.mark.parametrize("path", ["factored", "direct"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "settings", [{}, {"aggr": "mean"}, {"aggr": "max"}, {"root_weight": False, "bias": False}]
)
def test_nn_conv_matches_pyg(monkeypatch, dtype, index_dtype, settings, path):
    """Edge-conditioned convolution, whole and in chunks (per-edge [in, out] matrices a few
    edges at a time, or per-source matrices a few sources at a time); bipartite and without
    edges too; through the factored path (per-source matrices and gather_mm) and the
    direct one (per-edge matrices)."""
    import arraygnn.nn.nn_conv as nn_conv

    if path == "factored":
        monkeypatch.setattr(nn_conv, "FACTORED_MAX_SHARE", float("inf"))
    else:
        monkeypatch.setattr(nn_conv, "FACTORED", False)
    torch.manual_seed(34)
    rng = np.random.default_rng(34)
    ei = random_graph(rng, 20, index_dtype=index_dtype)
    x = rng.standard_normal((20, 5)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    module, conv = _convert(pyg_nn.NNConv(5, 4, _edge_net(3, 5, 4), **settings), dtype)
    ref = _torch_out(module, _t(x), _t(ei.astype(np.int64)), _t(ea))
    _check("NNConv", conv(x, ei, ea), ref, dtype)
    monkeypatch.setattr(nn_conv, "CHUNK_BYTES", 7 * 5 * 4 * 8)  # 7 or 14 edges per chunk
    _check("NNConv chunked", conv(x, ei, ea), ref, dtype)  # factored: 1-3 sources per chunk
    x_dst = rng.standard_normal((6, 2)).astype(dtype)
    bi = np.stack([rng.integers(0, 20, 30), rng.integers(0, 5, 30)]).astype(index_dtype)
    ea2 = rng.standard_normal((30, 3)).astype(dtype)
    module, conv = _convert(pyg_nn.NNConv((5, 2), 4, _edge_net(3, 5, 4), **settings), dtype)
    ref = _torch_out(module, (_t(x), _t(x_dst)), _t(bi.astype(np.int64)), _t(ea2))
    _check("NNConv bipartite", conv((x, x_dst), bi, ea2), ref, dtype)
    empty = np.zeros((2, 0), index_dtype)
    ref = _torch_out(module, (_t(x), _t(x_dst)), _t(empty.astype(np.int64)), _t(ea2[:0]))
    out = conv((x, x_dst), empty, ea2[:0])
    assert out.shape == ref.shape and rel_err(out, ref) <= TOL[dtype]


@pytest.mark.parametrize("edge_net", ["linear", "mlp", "no bias", "deep"])
def test_nn_conv_factored_edge_networks(monkeypatch, edge_net):
    """Every edge network that ends in a plain Linear takes the factored path (a Linear
    alone, PyG's MLP, a last Linear without bias, several hidden layers); the direct path
    gives the same numbers to rounding, and a network that does not end in a Linear (here a
    trailing activation) stays on the direct path."""
    import arraygnn.nn.nn_conv as nn_conv

    torch.manual_seed(37)
    rng = np.random.default_rng(37)
    ei = random_graph(rng, 25)
    x = rng.standard_normal((25, 6)).astype(np.float64)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(np.float64)
    nets = {
        "linear": lambda: torch.nn.Linear(3, 6 * 4),
        "mlp": lambda: pyg_nn.MLP([3, 8, 6 * 4], norm=None),
        "no bias": lambda: torch.nn.Sequential(
            torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 24, bias=False)
        ),
        "deep": lambda: torch.nn.Sequential(
            torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8), torch.nn.ReLU(),
            torch.nn.Linear(8, 24),
        ),
    }  # fmt: skip
    module, conv = _convert(pyg_nn.NNConv(6, 4, nets[edge_net](), aggr="mean"), np.float64)
    assert nn_conv._last_linear(conv.nn) is not None
    ref = _torch_out(module, _t(x), _t(ei.astype(np.int64)), _t(ea))
    calls = []
    factored = nn_conv.NNConv._factored_messages
    monkeypatch.setattr(nn_conv, "FACTORED_MAX_SHARE", float("inf"))
    monkeypatch.setattr(
        nn_conv.NNConv, "_factored_messages", lambda *a: calls.append(1) or factored(*a)
    )
    out = conv(x, ei, ea)
    assert calls and rel_err(out, ref) <= 1e-12
    monkeypatch.setattr(nn_conv, "FACTORED", False)
    assert rel_err(conv(x, ei, ea), out) <= 1e-12
    ends_in_act = agnn.Sequential(agnn.Linear(3, 24, rng=0), "relu")
    assert nn_conv._last_linear(ends_in_act) is None


def test_gru_from_torch():
    torch.manual_seed(35)
    x = np.random.default_rng(35).standard_normal((4, 3, 6)).astype(np.float32)
    h0 = np.random.default_rng(36).standard_normal((2, 3, 5)).astype(np.float32)
    module = torch.nn.GRU(6, 5, num_layers=2)
    with torch.no_grad():
        ref, h = module(_t(x), _t(h0))
    out, h2 = agnn.from_torch(module)(x, h0)
    assert rel_err(out, ref.numpy()) <= 1e-5 and rel_err(h2, h.numpy()) <= 1e-5
    with pytest.raises(ValueError, match=r"h0 must be \(2, 3, 5\)"):
        agnn.from_torch(module)(x, h0[:1])


PNA_SETTINGS = [
    {},
    {"edge_dim": 3},
    {"post_layers": 2, "act": "tanh"},  # the activation only in post_nns
    {"towers": 2, "divide_input": True, "pre_layers": 2, "post_layers": 2},
    {"towers": 2, "edge_dim": 3, "pre_layers": 3, "act": "tanh"},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("settings", PNA_SETTINGS, ids=lambda s: str(s) or "default")
def test_pna_conv_matches_pyg(dtype, index_dtype, settings):
    """Every aggregator and scaler, towers, edge features, deeper pre / post nets; the graph
    has self-loops, repeated edges and nodes without in-edges (their aggregates are 0)."""
    from torch_geometric.utils import degree

    torch.manual_seed(36)
    rng = np.random.default_rng(36)
    ei = random_graph(rng, 30, index_dtype=index_dtype, isolated=4)
    x = rng.standard_normal((30, 8)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    deg = torch.bincount(degree(_t(ei[1].astype(np.int64)), 30, dtype=torch.long))
    with_edges = "edge_dim" in settings
    for aggs, scalers in (
        (["mean", "min", "max", "std"], ["identity", "amplification", "attenuation"]),
        (["var", "sum"], ["linear", "inverse_linear"]),
    ):
        module, conv = _convert(pyg_nn.PNAConv(8, 12, aggs, scalers, deg, **settings), dtype)
        args = (_t(x), _t(ei.astype(np.int64))) + ((_t(ea),) if with_edges else ())
        ref = _torch_out(module, *args)
        _check(f"PNAConv {aggs}", conv(x, ei, ea if with_edges else None), ref, dtype)
    empty = np.zeros((2, 0), index_dtype)
    args = (_t(x), _t(empty.astype(np.int64))) + ((_t(ea[:0]),) if with_edges else ())
    ref = _torch_out(module, *args)
    out = conv(x, empty, ea[:0] if with_edges else None)
    assert rel_err(out, ref) <= TOL[dtype]


def test_pna_conv_bad_input():
    deg = np.array([1, 2, 1])
    with pytest.raises(ValueError, match="aggregators must be"):
        agnn.PNAConv(4, 4, ["median"], ["identity"], deg)
    with pytest.raises(ValueError, match="scalers must be"):
        agnn.PNAConv(4, 4, ["mean"], [], deg)
    with pytest.raises(ValueError, match="histogram"):
        agnn.PNAConv(4, 4, ["mean"], ["identity"], np.zeros(3))
    with pytest.raises(ValueError, match="divisible by towers"):
        agnn.PNAConv(4, 6, ["mean"], ["identity"], deg, towers=4)
    conv = agnn.PNAConv(4, 4, ["mean"], ["identity"], deg, edge_dim=2)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="needs edge_attr"):
        conv(np.ones((3, 4), np.float32), ei)
    with pytest.raises(ValueError, match="edge_attr must have shape"):
        conv(np.ones((3, 4), np.float32), ei, np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="PNAConv aggregator SoftmaxAggregation"):
        agnn.from_pyg(pyg_nn.PNAConv(4, 4, ["softmax"], ["identity"], torch.tensor([1, 2])))
