"""SimpleConv, MixHopConv, DirGNNConv, AntiSymmetricConv, SignedConv and FeaStConv against
PyG (weights through ``from_pyg``; float32 within 1e-5 relative, float64 within 1e-12) on
random multigraphs with self-loops, repeated edges and nodes without in-edges, on graphs with
isolated nodes and on empty edge sets, with and without edge weights where the layer takes
them, int32 / int64 ids; bipartite inputs where PyG takes them; state dicts; errors naming
the layer."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn

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
        return module(*[_t(a) for a in args], **kwargs).numpy()


def _graph(rng, kind, index_dtype, num_src=N, num_dst=None):
    """``kind``: 'multi' (self-loops, a repeated edge, targets without in-edges), 'isolated'
    (the last 5 nodes touch no edge) or 'empty' (no edges)."""
    num_dst = num_src if num_dst is None else num_dst
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    if kind == "isolated":
        return random_graph(rng, num_src - 5, num_dst - 5, 60, index_dtype, isolated=1)
    return random_graph(rng, num_src, num_dst, 70, index_dtype, isolated=3)


CASES = [
    ("simple-sum", lambda: pyg_nn.SimpleConv()),
    ("simple-add-sum", lambda: pyg_nn.SimpleConv("add", "sum")),
    ("simple-mean-cat", lambda: pyg_nn.SimpleConv("mean", "cat")),
    ("simple-max-loop", lambda: pyg_nn.SimpleConv("max", "self_loop")),
    ("simple-min", lambda: pyg_nn.SimpleConv("min")),
    ("simple-mean-loop", lambda: pyg_nn.SimpleConv("mean", "self_loop")),
    ("mixhop", lambda: pyg_nn.MixHopConv(6, 4)),
    ("mixhop-powers", lambda: pyg_nn.MixHopConv(6, 3, powers=[2, 0, 3])),
    ("mixhop-noloops-nobias", lambda: pyg_nn.MixHopConv(6, 5, [1, 3], False, False)),
]


def _converted(make, dtype, check_names=True):
    """``(PyG module, arraygnn layer)``: ``make()`` in ``dtype`` with every parameter drawn
    from U(-1, 1) (a non-zero bias, so it is checked too), converted by ``from_pyg``; the
    state-dict names must be PyG's."""
    torch.manual_seed(0)
    ref = make().to(torch.float64 if dtype == np.float64 else torch.float32)
    for p in ref.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    conv = agnn.from_pyg(ref)
    if check_names:
        assert sorted(conv.state_dict()) == sorted(ref.state_dict())
    return ref, conv


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_pyg(case, weighted, kind, index_dtype, dtype):
    ref, conv = _converted(case[1], dtype, check_names=False)
    rng = np.random.default_rng(3)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    w = rng.uniform(0.2, 2.0, ei.shape[1]).astype(dtype) if weighted else None
    x_copy, ei_copy = x.copy(), ei.copy()
    out = conv(x, ei, w)
    expected = _run(ref, x, ei, w)
    assert out.dtype == dtype
    assert rel_err(out, expected) <= TOL[dtype]
    np.testing.assert_array_equal(x, x_copy)  # nothing the caller passed is changed
    np.testing.assert_array_equal(ei, ei_copy)


@pytest.mark.parametrize("combine_root", [None, "sum", "cat"])
@pytest.mark.parametrize("aggr", ["sum", "mean", "max"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_simple_bipartite(combine_root, aggr, dtype):
    ref = pyg_nn.SimpleConv(aggr, combine_root)
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(5)
    ei = _graph(rng, "multi", np.int32, num_src=N, num_dst=12)
    x = (rng.standard_normal((N, 6)).astype(dtype), rng.standard_normal((12, 6)).astype(dtype))
    w = rng.uniform(0.2, 2.0, ei.shape[1]).astype(dtype)
    out = conv(x, ei, w)
    expected = _run(ref, x, ei, w)
    assert rel_err(out, expected) <= TOL[dtype]
    # x_dst None: no root to combine, the size gives the targets
    out = conv((x[0], None), ei, w, size=(N, 12))
    with torch.no_grad():
        expected = ref((_t(x[0]), None), _t(ei), _t(w), size=(N, 12)).numpy()
    assert rel_err(out, expected) <= TOL[dtype]


def test_mixhop_state_dict_names():
    ref = pyg_nn.MixHopConv(6, 3, powers=[0, 2])
    conv = agnn.from_pyg(ref)
    assert sorted(conv.state_dict()) == sorted(ref.state_dict())
    fresh = agnn.MixHopConv(6, 3, powers=[0, 2]).load_state_dict(
        {k: v.numpy() for k, v in ref.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    assert rel_err(fresh(x, ei), _run(ref, x, ei)) <= 1e-5
    assert "powers=[0, 2]" in repr(conv)


def test_simple_constructor_errors():
    with pytest.raises(ValueError, match="SimpleConv: combine_root"):
        agnn.SimpleConv(combine_root="mul")
    with pytest.raises(ValueError, match="SimpleConv: aggr"):
        agnn.SimpleConv(aggr="bogus")


def test_simple_input_errors():
    conv = agnn.SimpleConv(combine_root="self_loop")
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="SimpleConv: combine_root='self_loop'"):
        conv((x, x[:3]), ei)
    with pytest.raises(ValueError, match="SimpleConv.*out of range"):
        conv(x, np.array([[0, 9], [1, 2]]))
    with pytest.raises(TypeError, match="SimpleConv.*edge_weight"):
        conv(x, ei, np.ones(2, np.int64))
    with pytest.raises(ValueError, match="SimpleConv.*edge_weight"):
        conv(x, ei, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="SimpleConv.*floating point"):
        conv(np.ones((4, 3), np.int64), ei)


def test_mixhop_errors():
    with pytest.raises(ValueError, match="MixHopConv: powers"):
        agnn.MixHopConv(3, 2, powers=[])
    with pytest.raises(ValueError, match="MixHopConv: powers"):
        agnn.MixHopConv(3, 2, powers=[0, -1])
    conv = agnn.MixHopConv(3, 2)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="MixHopConv"):
        conv(np.ones((4, 5), np.float32), ei)  # wrong feature width
    with pytest.raises(ValueError, match="MixHopConv.*out of range"):
        conv(np.ones((4, 3), np.float32), np.array([[0, 7], [1, 2]]))
    with pytest.raises(TypeError, match="MixHopConv.*floating point"):
        conv(np.ones((4, 3), np.int32), ei)
    with pytest.raises(ValueError, match="MixHopConv.*edge_weight"):
        conv(np.ones((4, 3), np.float32), ei, np.ones(5, np.float32))


DIR_CASES = [
    ("gcn", lambda: pyg_nn.GCNConv(6, 4)),
    ("gcn-noroot", lambda: pyg_nn.GCNConv(6, 4), False),
    ("sage-noroot-in", lambda: pyg_nn.SAGEConv(6, 4, root_weight=False)),
    ("graph", lambda: pyg_nn.GraphConv(6, 3)),
    ("gat", lambda: pyg_nn.GATConv(6, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("alpha", [0.5, 0.2])
@pytest.mark.parametrize("case", DIR_CASES, ids=[c[0] for c in DIR_CASES])
def test_dir_gnn_matches_pyg(case, alpha, kind, index_dtype, dtype):
    factory, root = case[1], (case[2] if len(case) > 2 else True)
    ref, conv = _converted(lambda: pyg_nn.DirGNNConv(factory(), alpha, root), dtype)
    rng = np.random.default_rng(7)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    out = conv(x, ei)
    expected = _run(ref, x, ei)
    assert out.dtype == dtype
    assert rel_err(out, expected) <= TOL[dtype]


def test_dir_gnn_wraps_arraygnn_layer():
    base = agnn.GCNConv(6, 4, allow_zero_in_degree=True, rng=0)
    conv = agnn.DirGNNConv(base, alpha=0.3)
    assert base.add_self_loops  # the caller's layer is not changed
    assert not conv.conv_in.add_self_loops and not conv.conv_out.add_self_loops
    ref = pyg_nn.DirGNNConv(pyg_nn.GCNConv(6, 4), 0.3)
    ref.load_state_dict({k: torch.from_numpy(v) for k, v in conv.state_dict().items()})
    rng = np.random.default_rng(1)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    assert rel_err(conv(x, ei), _run(ref, x, ei)) <= 1e-5
    sage = agnn.DirGNNConv(agnn.SAGEConv(6, 4, "mean", root_weight=False), root_weight=True)
    assert sage.lin.weight.shape == (4, 6)


def test_dir_gnn_errors():
    with pytest.raises(TypeError, match="DirGNNConv: conv must be an arraygnn layer"):
        agnn.DirGNNConv(pyg_nn.GCNConv(6, 4))
    with pytest.raises(ValueError, match="DirGNNConv: root_weight=True"):
        agnn.DirGNNConv(agnn.SimpleConv())
    agnn.DirGNNConv(agnn.SimpleConv(), root_weight=False)  # no sizes needed
    # a SAGEConv's root term is switched off in the copies (lin_r kept, unused), as PyG
    sage = agnn.DirGNNConv(agnn.SAGEConv(6, 4, "mean"))
    assert sage.conv_in.lin_r is not None and not sage.conv_in.root_weight
    conv = agnn.DirGNNConv(agnn.GCNConv(3, 2, allow_zero_in_degree=True))
    x = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match="DirGNNConv.*out of range"):
        conv(x, np.array([[0, 9], [1, 2]]))
    with pytest.raises(ValueError, match="DirGNNConv needs a homogeneous graph"):
        conv((x, x), np.array([[0, 1], [1, 2]]))


ANTI_CASES = [
    ("default", lambda: pyg_nn.AntiSymmetricConv(6)),
    (
        "iters-relu-nobias",
        lambda: pyg_nn.AntiSymmetricConv(6, None, 3, 0.2, 0.3, "relu", None, False),
    ),
    ("gcn-phi-noact", lambda: pyg_nn.AntiSymmetricConv(6, pyg_nn.GCNConv(6, 6), 2, act=None)),
    ("graph-phi", lambda: pyg_nn.AntiSymmetricConv(6, pyg_nn.GraphConv(6, 6), 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("case", ANTI_CASES, ids=[c[0] for c in ANTI_CASES])
def test_antisymmetric_matches_pyg(case, kind, index_dtype, dtype):
    ref, conv = _converted(case[1], dtype)
    rng = np.random.default_rng(11)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    x_copy = x.copy()
    out = conv(x, ei)
    assert out.dtype == dtype
    assert rel_err(out, _run(ref, x, ei)) <= TOL[dtype]
    np.testing.assert_array_equal(x, x_copy)


def test_antisymmetric_edge_weight_to_phi():
    ref = pyg_nn.AntiSymmetricConv(6, num_iters=2)
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(2)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    w = rng.uniform(0.2, 2.0, ei.shape[1]).astype(np.float32)
    assert rel_err(conv(x, ei, w), _run(ref, x, ei, w)) <= 1e-5


def test_antisymmetric_errors():
    with pytest.raises(ValueError, match="AntiSymmetricConv: act"):  # tanh takes no kwargs
        agnn.AntiSymmetricConv(3, act="tanh", act_kwargs={"negative_slope": 0.3})
    with pytest.raises(TypeError, match="AntiSymmetricConv: phi"):
        agnn.AntiSymmetricConv(3, phi=pyg_nn.GCNConv(3, 3))
    conv = agnn.AntiSymmetricConv(3, rng=0)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="AntiSymmetricConv node features"):
        conv(np.ones((4, 5), np.float32), ei)
    with pytest.raises(TypeError, match="AntiSymmetricConv: node features must be floating"):
        conv(np.ones((4, 3), np.int64), ei)


SIGNED_CASES = [
    ("first", lambda: pyg_nn.SignedConv(6, 4, first_aggr=True), 6),
    ("first-nobias", lambda: pyg_nn.SignedConv(6, 3, True, bias=False), 6),
    ("deep", lambda: pyg_nn.SignedConv(3, 4, first_aggr=False), 6),
    ("deep-nobias", lambda: pyg_nn.SignedConv(3, 5, False, False), 6),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kinds", [("multi", "isolated"), ("empty", "multi"), ("empty", "empty")])
@pytest.mark.parametrize("case", SIGNED_CASES, ids=[c[0] for c in SIGNED_CASES])
def test_signed_matches_pyg(case, kinds, index_dtype, dtype):
    ref, conv = _converted(case[1], dtype)
    rng = np.random.default_rng(13)
    pos, neg = (_graph(rng, k, index_dtype) for k in kinds)
    x = rng.standard_normal((N, case[2])).astype(dtype)
    out = conv(x, pos, neg)
    assert out.dtype == dtype
    assert rel_err(out, _run(ref, x, pos, neg)) <= TOL[dtype]


@pytest.mark.parametrize("first_aggr", [True, False])
def test_signed_bipartite(first_aggr):
    ref = pyg_nn.SignedConv(3, 4, first_aggr).double()
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(4)
    width = 3 if first_aggr else 6
    x = (rng.standard_normal((N, width)), rng.standard_normal((12, width)))
    pos = _graph(rng, "multi", np.int64, num_src=N, num_dst=12)
    neg = _graph(rng, "isolated", np.int32, num_src=N, num_dst=12)
    with torch.no_grad():
        expected = ref((_t(x[0]), _t(x[1])), _t(pos), _t(neg)).numpy()
    assert rel_err(conv(x, pos, neg), expected) <= 1e-12


def test_signed_errors():
    conv = agnn.SignedConv(3, 2, first_aggr=False, rng=0)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="SignedConv source features"):
        conv(np.ones((4, 3), np.float32), ei, ei)  # a deeper layer reads 2 * in_channels
    with pytest.raises(ValueError, match=r"SignedConv \(neg_edge_index\).*out of range"):
        conv(np.ones((4, 6), np.float32), ei, np.array([[0, 8], [1, 2]]))
    with pytest.raises(TypeError, match="SignedConv: node features must be floating"):
        conv(np.ones((4, 6), np.int64), ei, ei)


FEAST_CASES = [
    ("one-head", lambda: pyg_nn.FeaStConv(6, 4)),
    ("heads", lambda: pyg_nn.FeaStConv(6, 3, heads=3)),
    ("noloops-nobias", lambda: pyg_nn.FeaStConv(6, 5, 2, False, False)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("case", FEAST_CASES, ids=[c[0] for c in FEAST_CASES])
def test_feast_matches_pyg(case, kind, index_dtype, dtype):
    ref, conv = _converted(case[1], dtype)
    rng = np.random.default_rng(17)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    x_copy = x.copy()
    out = conv(x, ei)
    assert out.dtype == dtype
    if kind == "empty" and not ref.add_self_loops:  # PyG fails to reshape its 0 messages
        bias = np.zeros(ref.out_channels) if ref.bias is None else ref.bias.detach().numpy()
        expected = np.broadcast_to(bias, out.shape)
    else:
        expected = _run(ref, x, ei)
    assert rel_err(out, expected) <= TOL[dtype]
    np.testing.assert_array_equal(x, x_copy)


@pytest.mark.parametrize("loops", [True, False])
def test_feast_bipartite(loops):
    ref = pyg_nn.FeaStConv(6, 4, heads=2, add_self_loops=loops).double()
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((N, 6)), rng.standard_normal((12, 6)))
    ei = _graph(rng, "multi", np.int64, num_src=N, num_dst=12)
    with torch.no_grad():
        expected = ref((_t(x[0]), _t(x[1])), _t(ei)).numpy()
    assert rel_err(conv(x, ei), expected) <= 1e-12


def test_feast_errors():
    with pytest.raises(ValueError, match="FeaStConv: heads"):
        agnn.FeaStConv(3, 2, heads=0)
    conv = agnn.FeaStConv(3, 2, rng=0)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="FeaStConv source features"):
        conv(np.ones((4, 5), np.float32), ei)
    with pytest.raises(ValueError, match="FeaStConv.*out of range"):
        conv(np.ones((4, 3), np.float32), np.array([[0, 8], [1, 2]]))
    with pytest.raises(TypeError, match="FeaStConv: node features must be floating"):
        conv(np.ones((4, 3), np.int64), ei)
