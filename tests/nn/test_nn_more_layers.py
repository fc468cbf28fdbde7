"""GCN2Conv, GatedGraphConv (and GRUCell), ResGatedGraphConv and EdgeConv against PyG
(float32 within 1e-5 relative, float64 within 1e-12) on multigraphs with self-loops and
nodes without in-edges, int32 / int64 ids; the fused paths against the plain ones; names
and errors."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]


def _run(module, *args):
    with torch.no_grad():
        out = module(
            *[None if a is None else torch.from_numpy(np.ascontiguousarray(a)) for a in args]
        )
    return out.numpy()


def _convert(module, dtype):
    module = module.to(getattr(torch, np.dtype(dtype).name))
    return module, agnn.from_pyg(module)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "settings",
    [{}, {"theta": 0.5, "layer": 3}, {"shared_weights": False, "theta": 1.0, "layer": 1},
     {"normalize": False, "add_self_loops": False}],
)  # fmt: skip
def test_gcn2_conv_matches_pyg(dtype, index_dtype, settings):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ei = random_graph(rng, 20, index_dtype=index_dtype)
    x = rng.standard_normal((20, 6)).astype(dtype)
    x0 = rng.standard_normal((25, 6)).astype(dtype)  # more rows than x: the first are used
    w = rng.random(ei.shape[1]).astype(dtype)
    module, conv = _convert(pyg_nn.GCN2Conv(6, alpha=0.2, **settings), dtype)
    for weight in (None, w):
        ref = _run(module, x, x0, ei.astype(np.int64), weight)
        assert rel_err(conv(x, x0, ei, weight), ref) <= TOL[dtype]
    if not settings:  # cached: the normalised graph of the first call is reused
        cached = agnn.GCN2Conv(6, 0.2, cached=True, dtype=dtype)
        cached.load_state_dict(module.state_dict())
        ref = _run(module, x, x0, ei.astype(np.int64), None)
        assert rel_err(cached(x, x0, ei), ref) <= TOL[dtype]
        assert rel_err(cached(x, x0, ei[:, :5]), ref) <= TOL[dtype]  # the first graph


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("aggr", ["add", "mean", "max"])
def test_gated_graph_conv_matches_pyg(dtype, aggr):
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 20)
    x = rng.standard_normal((20, 5)).astype(dtype)  # narrower than out: zero-padded
    w = rng.random(ei.shape[1]).astype(dtype)
    module, conv = _convert(pyg_nn.GatedGraphConv(8, num_layers=3, aggr=aggr), dtype)
    assert sorted(conv.state_dict()) == sorted(module.state_dict())
    for weight in (None, w) if aggr == "add" else (None,):
        ref = _run(module, x, ei, weight)
        assert rel_err(conv(x, ei, weight), ref) <= TOL[dtype] * 10
    with pytest.raises(ValueError, match="larger than out_channels"):
        conv(rng.standard_normal((20, 9)).astype(dtype), ei)


def test_gru_cell_from_torch():
    torch.manual_seed(2)
    cell = torch.nn.GRUCell(4, 3)
    x = np.random.default_rng(2).standard_normal((6, 4)).astype(np.float32)
    h = np.random.default_rng(3).standard_normal((6, 3)).astype(np.float32)
    ours = agnn.from_torch(cell)
    with torch.no_grad():
        ref = cell(torch.from_numpy(x), torch.from_numpy(h)).numpy()
        ref0 = cell(torch.from_numpy(x)).numpy()
    assert rel_err(ours(x, h), ref) <= 1e-5 and rel_err(ours(x), ref0) <= 1e-5
    with pytest.raises(ValueError, match=r"h must be \(6, 3\)"):
        ours(x, h[:2])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "settings", [{}, {"edge_dim": 3}, {"root_weight": False, "bias": False}, {"act": "tanh"}]
)
def test_res_gated_graph_conv_matches_pyg(dtype, index_dtype, settings):
    torch.manual_seed(4)
    rng = np.random.default_rng(4)
    ei = random_graph(rng, 20, index_dtype=index_dtype)
    x = rng.standard_normal((20, 6)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(dtype) if "edge_dim" in settings else None
    kwargs = dict(settings)
    if kwargs.get("act") == "tanh":
        kwargs["act"] = torch.nn.Tanh()
    module, conv = _convert(pyg_nn.ResGatedGraphConv(6, 5, **kwargs), dtype)
    ref = _run(module, x, ei.astype(np.int64), ea)
    assert rel_err(conv(x, ei, ea), ref) <= TOL[dtype]
    # bipartite, and through a cached CSR
    x_dst = rng.standard_normal((7, 4)).astype(dtype)
    bi = np.stack([rng.integers(0, 20, 30), rng.integers(0, 6, 30)]).astype(index_dtype)
    ea2 = rng.standard_normal((30, 3)).astype(dtype) if "edge_dim" in settings else None
    module, conv = _convert(pyg_nn.ResGatedGraphConv((6, 4), 5, **kwargs), dtype)
    with torch.no_grad():
        ref = module(
            (torch.from_numpy(x), torch.from_numpy(x_dst)),
            torch.from_numpy(bi.astype(np.int64)),
            None if ea2 is None else torch.from_numpy(ea2),
        ).numpy()
    assert rel_err(conv((x, x_dst), bi, ea2), ref) <= TOL[dtype]
    csr = arraygnn.ops.to_csr(bi, 20, 7)
    assert rel_err(conv((x, x_dst), csr, ea2), ref) <= TOL[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("aggr", ["max", "add", "mean"])
@pytest.mark.parametrize("net", ["sequential", "mlp", "linear", "starts with act"])
def test_edge_conv_matches_pyg(dtype, aggr, net):
    torch.manual_seed(5)
    rng = np.random.default_rng(5)
    ei = random_graph(rng, 25)
    x = rng.standard_normal((25, 3)).astype(dtype)
    nets = {
        "sequential": lambda: torch.nn.Sequential(
            torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)
        ),
        "mlp": lambda: pyg_nn.MLP([6, 16, 8, 4], norm=None),
        "linear": lambda: torch.nn.Linear(6, 4),
        "starts with act": lambda: torch.nn.Sequential(torch.nn.Tanh(), torch.nn.Linear(6, 4)),
    }
    module, conv = _convert(pyg_nn.EdgeConv(nets[net](), aggr=aggr), dtype)
    ref = _run(module, x, ei)
    assert rel_err(conv(x, ei), ref) <= TOL[dtype] * 10
    import arraygnn.nn.edge_conv as ec

    assert (ec._split_first_linear(conv.nn) is None) == (net == "starts with act")


def test_more_layers_bad_input_is_named():
    ei = np.array([[0, 1], [1, 2]])
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="theta and layer"):
        agnn.GCN2Conv(4, 0.1, theta=0.5)
    with pytest.raises(ValueError, match="x_0 has 2 rows"):
        agnn.GCN2Conv(4, 0.1, rng=0)(x, x[:2], ei)
    with pytest.raises(ValueError, match="edge_attr must be given exactly"):
        agnn.ResGatedGraphConv(4, 2, edge_dim=3, rng=0)(x, ei)
    with pytest.raises(ValueError, match="aggr must be one of"):
        agnn.EdgeConv(agnn.Linear(8, 2, rng=0), aggr="bogus")
    with pytest.raises(ValueError, match="one width"):
        agnn.EdgeConv(agnn.Linear(8, 2, rng=0))((x, np.ones((3, 5), np.float32)), ei)
    with pytest.raises(TypeError, match="arraygnn.nn Module"):
        agnn.EdgeConv(lambda z: z)


@pytest.mark.parametrize("k", [1, 3, 9])  # fewer / more nodes than k in some graphs
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_aggregation_matches_pyg(k, dtype):
    from torch_geometric.nn.aggr import SortAggregation

    rng = np.random.default_rng(6)
    batch = np.sort(rng.integers(0, 5, 30))
    batch[batch == 2] = 3  # graph 2 has no nodes
    x = rng.standard_normal((30, 4)).astype(dtype)  # distinct values: no ties
    ref = SortAggregation(k)
    with torch.no_grad():
        expected = ref(torch.from_numpy(x), torch.from_numpy(batch), dim_size=5).numpy()
    ours = agnn.from_pyg(ref)
    np.testing.assert_array_equal(ours(x, batch, dim_size=5), expected)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(batch, minlength=5))])
    np.testing.assert_array_equal(ours(x, ptr=ptr), expected)
    assert ours(x[:0], batch[:0], dim_size=2).shape == (2, 4 * k)


def test_sort_pooling_is_dgl_s():
    """DGL's SortPooling: each node's features sorted, then its top-k nodes by the largest
    feature, zero-padded (DGL's forward written out with torch)."""
    rng = np.random.default_rng(7)
    counts = [4, 1, 6]
    from arraygnn.graph import batch as batch_graphs

    g = batch_graphs([arraygnn.graph((np.array([0]), np.array([0])), num_nodes=c) for c in counts])
    feat = rng.standard_normal((11, 3)).astype(np.float32)
    out = agnn.SortPooling(3)(g, feat)
    srt = np.sort(feat, axis=-1)
    expected = []
    for piece in np.split(srt, np.cumsum(counts)[:-1]):
        top = piece[np.argsort(-piece[:, -1], kind="stable")][:3]
        expected.append(np.concatenate([top, np.zeros((3 - len(top), 3), np.float32)]).ravel())
    np.testing.assert_array_equal(out, np.stack(expected))
    with pytest.raises(ValueError, match="k must be in"):
        agnn.SortPooling(0)
    with pytest.raises(ValueError, match=r"x must be \(N, D\)"):
        agnn.SortAggregation(2)(np.ones(4))


POOLS = [
    ("topk ratio", lambda: pyg_nn.TopKPooling(5, 0.5)),
    ("topk count", lambda: pyg_nn.TopKPooling(5, 3)),
    ("topk min_score", lambda: pyg_nn.TopKPooling(5, min_score=0.1, multiplier=2.0)),
    ("sag default gnn", lambda: pyg_nn.SAGPooling(5, 0.6)),
    ("sag min_score", lambda: pyg_nn.SAGPooling(5, min_score=0.05)),
    ("sag gat", lambda: pyg_nn.SAGPooling(5, 0.5, GNN=pyg_nn.GATConv)),
    ("sag sigmoid", lambda: pyg_nn.SAGPooling(5, 0.4, nonlinearity="sigmoid")),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make", POOLS, ids=[n for n, _ in POOLS])
def test_topk_and_sag_pooling_match_pyg(name, make, dtype):
    torch.manual_seed(8)
    rng = np.random.default_rng(8)
    x = rng.standard_normal((30, 5)).astype(dtype)
    batch = np.sort(rng.integers(0, 4, 30))
    batch[batch == 1] = 2  # graph 1 has no nodes
    ei = rng.integers(0, 30, (2, 90))
    ea = rng.standard_normal((90, 2)).astype(dtype)
    module = make().to(getattr(torch, np.dtype(dtype).name))
    with torch.no_grad():
        ref = module(*(torch.from_numpy(a) for a in (x, ei, ea, batch)))
    ours = agnn.from_pyg(module)
    before = (x.copy(), ei.copy())
    out = ours(x, ei, ea, batch)
    for got, want, what in zip(
        out, ref, ["x", "edge_index", "edge_attr", "batch", "perm", "score"]
    ):
        want = want.numpy()
        assert got.shape == want.shape, what
        if got.dtype.kind == "f":
            assert rel_err(got, want) <= TOL[dtype] * 10, what
        else:
            np.testing.assert_array_equal(got, want, err_msg=what)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(ei, before[1])
    # no batch: one graph; 1-D attention input
    one = ours(x, ei)
    assert one[3].tolist() == [0] * len(one[4])


def test_pooling_bad_input_and_pyg_graph_conv():
    with pytest.raises(ValueError, match="ratio must be > 0"):
        agnn.TopKPooling(4, ratio=0)
    pool = agnn.TopKPooling(4, rng=0)
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="edge_index has entry 3"):
        pool(x, np.array([[0, 3], [1, 2]]))
    with pytest.raises(ValueError, match=r"batch must have shape \(3,\)"):
        pool(x, np.array([[0], [1]]), batch=np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="expected last dimension 4"):
        pool(np.ones((3, 5), np.float32), np.array([[0], [1]]))
    # PyG's GraphConv (Morris et al.) converts into SAGEConv with a sum (no edge weights)
    torch.manual_seed(9)
    rng = np.random.default_rng(9)
    xs = rng.standard_normal((12, 5)).astype(np.float32)
    ei = random_graph(rng, 12)
    for aggr in ("add", "mean", "max"):
        module = pyg_nn.GraphConv(5, 3, aggr=aggr)
        assert rel_err(agnn.from_pyg(module)(xs, ei), _run(module, xs, ei)) <= 1e-5


def test_review_fixes_of_the_new_layers():
    """GCN2Conv(normalize=False) with the default add_self_loops runs as PyG's (loops only
    come with normalising); a lazy ResGatedGraphConv converts once run; SAGPooling's default
    GNN carries PyG GraphConv's names both ways; sort pooling sorts unsigned features and
    ties in node order; filter_adj has PyG's signature."""
    torch.manual_seed(10)
    rng = np.random.default_rng(10)
    x = rng.standard_normal((12, 4)).astype(np.float32)
    ei = random_graph(rng, 12)
    module = pyg_nn.GCN2Conv(4, alpha=0.2, normalize=False)
    assert rel_err(agnn.from_pyg(module)(x, x, ei), _run(module, x, x, ei)) <= 1e-5
    lazy = pyg_nn.ResGatedGraphConv(-1, 3)
    ref = _run(lazy, x, ei)
    assert rel_err(agnn.from_pyg(lazy)(x, ei), ref) <= 1e-5
    sag = pyg_nn.SAGPooling(4, 0.5)
    ours = agnn.SAGPooling(4, 0.5)
    ours.load_state_dict(sag.state_dict(), format="pyg")
    assert sorted(ours.state_dict()) == sorted(sag.state_dict())
    with torch.no_grad():
        want = sag(torch.from_numpy(x), torch.from_numpy(ei))[0].numpy()
    assert rel_err(ours(x, ei)[0], want) <= 1e-5
    sort = agnn.SortAggregation(3)
    u8 = np.array([[1, 0], [2, 5], [3, 1]], np.uint8)
    assert sort(u8, np.zeros(3, np.int64), dim_size=1).tolist() == [[2, 5, 3, 1, 1, 0]]
    tied = np.array([[1.0, 2.0], [0.0, 2.0], [9.0, 1.0]])
    assert sort(tied).tolist() == [[1.0, 2.0, 0.0, 2.0, 9.0, 1.0]]
    from arraygnn.nn.pool import filter_adj

    edges, attrs = filter_adj(np.array([[0, 1, 2], [1, 2, 0]]), np.arange(3.0), np.array([2, 0]))
    assert edges.tolist() == [[0], [1]] and attrs.tolist() == [2.0]  # 2 -> 0 renumbered
