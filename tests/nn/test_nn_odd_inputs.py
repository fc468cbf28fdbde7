"""Odd inputs found by fuzzing the layers: each case once gave silently wrong numbers, a
crash or a misleading message. Layers must raise a clear error naming the piece at fault,
or give PyG's numbers."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.nn.graph_conv import add_remaining_self_loops, normalized_slots

# ----------------------------------------------------------------- integer edge weights


def _weighted_calls():
    x = np.eye(3, dtype=np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    return {
        "GCNConv": lambda w: agnn.GCNConv(3, 3, rng=0)(x, ei, w),
        "SGConv": lambda w: agnn.SGConv(3, 3, rng=0)(x, ei, w),
        "GraphConv": lambda w: agnn.GraphConv(3, 3, rng=0)(x, ei, w),
        "SAGEConv": lambda w: agnn.SAGEConv(3, 3, rng=0)(x, ei, w),
        "GINConv": lambda w: agnn.GINConv(None)(x, ei, w),
        "gcn_norm": lambda w: agnn.gcn_norm(ei, w, num_nodes=3),
        "normalized_slots": lambda w: normalized_slots(ei, w, 3),
        "propagate_hops": lambda w: agnn.propagate_hops(ei, x, 2, edge_weight=w),
    }


@pytest.mark.parametrize("name", list(_weighted_calls()))
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_integer_edge_weight_is_a_type_error(name, dtype):
    # deg^-1/2 cast to the weight's integer dtype used to make the GCN weights all zeros
    call = _weighted_calls()[name]
    with pytest.raises(TypeError, match="edge_weight must hold floating-point"):
        call(np.ones(3, dtype=dtype))
    call(np.ones(3, dtype=np.float32))  # floating weights still work


def test_integer_dtype_for_the_normalisation_is_a_type_error():
    ei = np.array([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="dtype"):
        agnn.gcn_norm(ei, num_nodes=2, dtype=np.int64)
    with pytest.raises(TypeError, match="x must hold floating-point"):
        agnn.propagate_hops(ei, np.ones((2, 2), np.int64), 1)


# ----------------------------------------------------------------- edge_weight shape (SGC)


@pytest.mark.parametrize("name", ["SGConv", "propagate_hops", "normalized_slots", "gcn_norm"])
@pytest.mark.parametrize("bad", ["long", "short", "2d", "list"])
def test_edge_weight_checked_everywhere(name, bad):
    # a too-long vector used to be accepted (its extra entries became self-loop weights)
    x = np.ones((4, 2), np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    w = {
        "long": np.ones(6, np.float32),
        "short": np.ones(3, np.float32),
        "2d": np.ones((4, 1), np.float32),
        "list": [1.0, 1.0, 1.0, 1.0],
    }[bad]
    call = {
        "SGConv": lambda: agnn.SGConv(2, 2, rng=0)(x, ei, w),
        "propagate_hops": lambda: agnn.propagate_hops(ei, x, 1, edge_weight=w),
        "normalized_slots": lambda: normalized_slots(ei, w, 4),
        "gcn_norm": lambda: agnn.gcn_norm(ei, w, num_nodes=4),
    }[name]
    err = TypeError if bad == "list" else ValueError
    with pytest.raises(err, match="edge_weight"):
        call()


# ----------------------------------------------------------------- narrow index dtypes


@pytest.mark.parametrize(
    "index_dtype,num_nodes",
    [(np.uint8, 300), (np.int8, 200), (np.int16, 33_000), (np.uint16, 66_000), (np.uint8, 256)],
)
@pytest.mark.parametrize("layer", ["GCNConv", "SGConv", "GATConv", "GATv2Conv"])
def test_narrow_index_dtype_self_loops_do_not_wrap(index_dtype, num_nodes, layer):
    # arange(num_nodes, dtype=uint8) wrapped: wrong loops (GCN), a "negative entry" (int8),
    # or a bogus zero in-degree error (GAT)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((num_nodes, 3)).astype(np.float32)
    hi = min(num_nodes, int(np.iinfo(index_dtype).max) + 1)
    ei = rng.integers(0, hi, (2, 40)).astype(index_dtype)
    ei_before = ei.copy()
    make = {
        "GCNConv": lambda: agnn.GCNConv(3, 2, rng=0),
        "SGConv": lambda: agnn.SGConv(3, 2, K=2, rng=0),
        "GATConv": lambda: agnn.GATConv(3, 2, heads=2, rng=0),
        "GATv2Conv": lambda: agnn.GATv2Conv(3, 2, heads=2, rng=0),
    }[layer]
    got = make()(x, ei)
    want = make()(x, ei.astype(np.int64))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(ei, ei_before)


def test_add_remaining_self_loops_widens_narrow_ids():
    ei = np.array([[0, 5], [5, 5]], dtype=np.uint8)
    out, w = add_remaining_self_loops(ei, np.array([1.0, 3.0]), 300)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out[:, 1:], np.stack([np.arange(300)] * 2))
    assert w[1 + 5] == 3.0 and w.shape == (301,)
    out8, _ = add_remaining_self_loops(ei, np.array([1.0, 3.0]), 256)
    assert out8.dtype == np.uint8  # a dtype that holds every id is kept


# ----------------------------------------------------------------- GCNConv options


def test_gcn_add_self_loops_follows_normalize():
    conv = agnn.GCNConv(2, 2, normalize=False)
    assert conv.add_self_loops is False
    assert agnn.GCNConv(2, 2).add_self_loops is True
    with pytest.raises(ValueError, match="add_self_loops=True needs normalize=True"):
        agnn.GCNConv(2, 2, add_self_loops=True, normalize=False)


def test_gcn_pair_input_raises():
    x = np.ones((3, 2), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="pair of node features"):
        agnn.GCNConv(2, 2)((x, 2 * x), ei)


# ----------------------------------------------------------------- readout ptr


@pytest.mark.parametrize("ptr", [[0, 2, 5], [1, 2, 6], [0, 3, 7]])
def test_pool_ptr_must_cover_the_rows(ptr):
    x = np.ones((6, 1), np.float32)
    with pytest.raises(ValueError, match="ptr must run from 0"):
        agnn.global_add_pool(x, ptr=np.array(ptr))
    with pytest.raises(TypeError, match="ptr must hold integers"):
        agnn.global_add_pool(x, ptr=np.array(ptr, dtype=np.float64))
    np.testing.assert_array_equal(agnn.global_add_pool(x, ptr=np.array([0, 2, 6])), [[2], [4]])


# ----------------------------------------------------------------- against PyG / torch

torch_mod = None


def _torch():
    return pytest.importorskip("torch")


def _pyg_nn():
    _torch()
    return pytest.importorskip("torch_geometric.nn")


def _out(module, *args):
    torch = _torch()
    with torch.no_grad():
        return module(*args).numpy()


def _t(a):
    return _torch().from_numpy(np.ascontiguousarray(a))


def test_gcn_normalize_false_matches_pyg():
    pyg_nn = _pyg_nn()
    rng = np.random.default_rng(0)
    ei = random_graph(rng, 12, isolated=0)
    x = rng.standard_normal((12, 4)).astype(np.float32)
    w = rng.uniform(0.5, 2.0, ei.shape[1]).astype(np.float32)
    ref = pyg_nn.GCNConv(4, 3, normalize=False).eval()
    ours = agnn.GCNConv(4, 3, normalize=False).load_state_dict(ref.state_dict())
    for weight in (None, w):
        want = _out(ref, _t(x), _t(ei), None if weight is None else _t(weight))
        assert rel_err(ours(x, ei, weight), want) <= TOL[np.float32]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gcn_improved_without_weights_matches_pyg(dtype):
    # PyG 2.8's add_remaining_self_loops ignores fill_value when there are no edge weights,
    # so GCNConv(improved=True) weighs its loops 1 on an unweighted graph
    pyg_nn = _pyg_nn()
    torch = _torch()
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 20)
    x = rng.standard_normal((20, 5)).astype(dtype)
    ref = pyg_nn.GCNConv(5, 4, improved=True).to(
        {np.float32: torch.float32}.get(dtype, torch.float64)
    )
    ours = agnn.from_pyg(ref.eval())
    want = _out(ref, _t(x), _t(ei))
    assert rel_err(ours(x, ei), want) <= TOL[dtype]
    from torch_geometric.nn.conv.gcn_conv import gcn_norm as pyg_gcn_norm

    _, w_ref = pyg_gcn_norm(_t(ei), None, 20, True, True, dtype=torch.float64)
    _, w_ours = agnn.gcn_norm(ei, None, num_nodes=20, improved=True, dtype=np.float64)
    np.testing.assert_allclose(w_ours, w_ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("aggr", ["mean", "max", "add"])
def test_from_pyg_gin_keeps_aggr(aggr):
    pyg_nn = _pyg_nn()
    torch = _torch()
    rng = np.random.default_rng(4)
    ei = random_graph(rng, 15, isolated=3)
    x = rng.standard_normal((15, 4)).astype(np.float32)
    ref = pyg_nn.GINConv(torch.nn.Linear(4, 3), eps=0.3, aggr=aggr).eval()
    ours = agnn.from_pyg(ref)
    assert ours.aggregator_type == {"add": "sum"}.get(aggr, aggr)
    assert rel_err(ours(x, ei), _out(ref, _t(x), _t(ei))) <= TOL[np.float32]


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.GCNConv(4, 3, aggr="max"),
        lambda p: p.GATConv(4, 3, aggr="mean"),
        lambda p: p.SGConv(4, 3, aggr="mean"),
    ],
)
def test_from_pyg_unsupported_aggr_raises(make):
    module = make(_pyg_nn())
    with pytest.raises(ValueError, match="aggr="):
        agnn.from_pyg(module)


def test_from_pyg_reversed_flow_raises():
    pyg_nn = _pyg_nn()
    with pytest.raises(ValueError, match="flow='target_to_source'"):
        agnn.from_pyg(pyg_nn.GCNConv(4, 3, flow="target_to_source"))


def _activation_cases():
    nn = _torch().nn
    return [nn.ELU(alpha=3.0), nn.ELU(), nn.LeakyReLU(0.3), nn.LeakyReLU(), nn.ReLU(), nn.Tanh()]


@pytest.mark.parametrize("i", range(6))
def test_from_torch_keeps_activation_parameters(i):
    torch = _torch()
    act = _activation_cases()[i]
    seq = torch.nn.Sequential(torch.nn.Linear(2, 4), act, torch.nn.Linear(4, 1)).eval()
    x = np.random.default_rng(i).standard_normal((7, 2)).astype(np.float32) * 5
    assert rel_err(agnn.from_torch(seq)(x), _out(seq, _t(x))) <= TOL[np.float32]


def test_from_torch_unconvertible_activation_names_it():
    torch = _torch()
    nn = torch.nn
    for act in (nn.RReLU(), nn.Threshold(0.1, 2.0), nn.Hardshrink(), nn.Softshrink()):
        seq = nn.Sequential(nn.Linear(2, 4), act)
        with pytest.raises(ValueError, match=type(act).__name__):
            agnn.from_torch(seq)
    # the exact GELU converts (erf through SciPy), and matches torch's
    seq = nn.Sequential(nn.Linear(2, 4), nn.GELU())
    x = np.linspace(-3, 3, 20, dtype=np.float32).reshape(10, 2)
    with torch.no_grad():
        expected = seq(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(agnn.from_torch(seq)(x), expected, rtol=1e-5, atol=1e-6)

    class Relu(nn.Module):  # named like ReLU, computes something else
        def forward(self, t):
            return 2 * t

    with pytest.raises(ValueError, match="cannot convert activation"):
        agnn.from_torch(nn.Sequential(nn.Linear(2, 2), Relu()))


@pytest.mark.parametrize("act_first", [True, False])
def test_from_pyg_mlp_act_first_and_norm_eps(act_first):
    pyg_nn = _pyg_nn()
    torch = _torch()
    m = pyg_nn.MLP(
        [3, 5, 4, 2],
        norm="batch_norm",
        act="elu",
        act_kwargs={"alpha": 2.0},
        act_first=act_first,
        norm_kwargs={"eps": 0.5},
    ).eval()
    with torch.no_grad():
        for norm in m.norms:
            norm.module.running_mean.uniform_(-2, 2)
            norm.module.running_var.uniform_(0.1, 2)
    ours = agnn.from_pyg(m)
    assert ours.act_first is act_first
    x = np.random.default_rng(5).standard_normal((9, 3)).astype(np.float32) * 3
    assert rel_err(ours(x), _out(m, _t(x))) <= TOL[np.float32]


def test_a_graph_tensor_is_refused_with_a_clear_message():
    from arraygnn.graph_tensor import GraphTensor, NodeSet

    g = GraphTensor.from_pieces(node_sets={"n": NodeSet.from_fields(sizes=np.array([3]))})
    with pytest.raises(TypeError, match="GraphTensor is not a layer input"):
        agnn.GCNConv(2, 2)(g, np.ones((3, 2), np.float32))


def test_layer_on_the_other_device_than_its_weights_names_it():
    cupy = pytest.importorskip("cupy")  # GPU sessions only
    lin = agnn.Linear(3, 2)
    with pytest.raises(TypeError, match="CuPy array but the layer's weights are NumPy"):
        lin(cupy.ones((4, 3), cupy.float32))


def test_layer_sizes_are_checked_when_the_layer_is_built():
    """Floats were truncated (Linear(4.7, 2)), strings / numpy ints failed deep inside
    NumPy, heads=0 built a layer with an empty output, 2**40 asked for terabytes."""
    import arraygnn.nn as agnn

    for build, match in [
        (lambda: agnn.Linear(4.7, 2), "Linear: in_features must be an int"),
        (lambda: agnn.Linear(True, 2), "Linear: in_features must be an int"),
        (lambda: agnn.Linear(2**40, 2), r"Linear: in_features must be in \[0"),
        (lambda: agnn.BatchNorm(-1), "BatchNorm: num_features"),
        (lambda: agnn.BatchNorm(4, eps=-1), "BatchNorm: eps must be > 0"),
        (lambda: agnn.MLP([4, -1, 2]), r"MLP: channel_list\[1\]"),
        (lambda: agnn.GATConv(4, 4, heads=0), "GATConv: heads must be in"),
        (lambda: agnn.GATConv(4, 4, heads="4"), "GATConv: heads must be an int"),
        (lambda: agnn.GATConv(4, 4, concat="no"), "GATConv: concat"),
        (lambda: agnn.GATConv(4.0, 2), "GATConv: in_feats must be an int or a pair"),
        (lambda: agnn.GATv2Conv(4, 4, heads=0), "GATv2Conv: heads must be in"),
        (lambda: agnn.TransformerConv(4, 4, heads=0), "TransformerConv: heads must be in"),
        (lambda: agnn.TransformerConv(4, 4, concat=None), "TransformerConv: concat"),
        (lambda: agnn.TransformerConv(4, 4, edge_dim=0), "TransformerConv: edge_dim"),
        (lambda: agnn.GATv2Conv((4, 3), 2, share_weights=True), "one input size"),
        (lambda: agnn.GATv2Conv(4, 3, heads=2, residual="identity"), "needs in_dst == 6"),
        (lambda: agnn.GATv2Conv(4, 2, fill_value="median"), "GATv2Conv: fill_value"),
        (lambda: agnn.SAGEConv((3, -1), 2), r"SAGEConv: in_feats\[1\]"),
        (lambda: agnn.SGConv(4, 4, K="2"), "SGConv: K must be an int"),
        (lambda: agnn.GraphConv("4", 2), "GraphConv: in_feats must be an int"),
        (lambda: agnn.GCNConv(4, 2.0), "GCNConv: out_channels must be an int"),
    ]:
        with pytest.raises((TypeError, ValueError), match=match):
            build()
    assert agnn.GATConv(np.int64(4), 2).lin is not None  # a NumPy int is an int
    assert agnn.SAGEConv(np.int32(3), 2).in_src == 3


def test_graph_layers_want_a_node_and_a_feature_dimension():
    """A 1-D x was read as one sample by GINConv / SGConv (shape (2,) out, no error) and
    failed with misleading messages elsewhere; [N, *, F] works where the maths broadcasts
    (as DGL) and is refused by name by GATConv / GraphConv (a NumPy reshape error before)."""
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    layers = [
        agnn.GINConv(agnn.Linear(4, 2)),
        agnn.SGConv(4, 2),
        agnn.GCNConv(4, 2),
        agnn.SAGEConv(4, 2),
        agnn.GATConv(4, 2, heads=2),
        agnn.GATv2Conv(4, 2, heads=2),
        agnn.TransformerConv(4, 2, heads=2),
        agnn.GraphConv(4, 2),
    ]
    x3 = np.random.default_rng(0).standard_normal((3, 2, 4)).astype(np.float32)
    for layer in layers:
        with pytest.raises(ValueError, match=r"x must be \[num_nodes, in_feats\]"):
            layer(np.ones(4, np.float32), ei)
        name = type(layer).__name__
        if name in ("GATConv", "GATv2Conv", "GraphConv", "TransformerConv"):
            with pytest.raises(ValueError, match=r"x must be \[num_nodes, in_feats\], got"):
                layer(x3, ei)
        else:  # each middle slice as its own 2-D input
            got = layer(x3, ei)
            for j in range(2):
                np.testing.assert_allclose(got[:, j], layer(x3[:, j], ei), rtol=1e-5, atol=1e-6)


def test_sizes_given_as_numpy_scalars_and_arrays_still_work():
    assert agnn.Linear(np.array(4), 2).in_features == 4
    assert agnn.BatchNorm(np.array(4), eps=np.array(1e-5)).num_features == 4
    assert agnn.SAGEConv(np.array([4, 5]), 2).in_dst == 5
    x, ei = np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])
    assert agnn.SAGEConv(4, 2)(x, ei, size=np.array([3, 3])).shape == (3, 2)


def test_dense_layers_take_bfloat16_and_complex():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.ones((2, 4), ml_dtypes.bfloat16)  # refused as "not numbers" for a while
    assert agnn.Linear(4, 3, dtype=ml_dtypes.bfloat16)(x).shape == (2, 3)
    assert agnn.Linear(4, 3)(np.ones((2, 4), np.complex64)).shape == (2, 3)


def test_self_loop_helpers_check_their_graph():
    from arraygnn.nn import add_remaining_self_loops, gcn_norm

    src, dst = np.array([0, 1]), np.array([1, 1])
    ei_pair, w_pair = add_remaining_self_loops((src, dst), np.ones(2, np.float32), 2)
    assert ei_pair.tolist() == [[0, 0, 1], [1, 0, 1]] and w_pair.tolist() == [1, 1, 1]

    ei = np.array([[0, 1, 2, 2], [1, 2, 0, 2]])
    w = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="edge_weight must have shape"):
        add_remaining_self_loops(ei, w[:3], 3)  # used to give 6 weights for 7 edges
    with pytest.raises(ValueError, match="negative entry"):
        add_remaining_self_loops(np.array([[0, -1], [1, -1]]), w[:2], 3)  # landed on node 2
    with pytest.raises(ValueError, match="out of range"):
        add_remaining_self_loops(np.array([[0, 5], [1, 2]]), w[:2], 3)
    with pytest.raises(TypeError, match="num_nodes"):
        gcn_norm(ei, w, num_nodes=3.0)
    ei2, w2 = add_remaining_self_loops(ei, None, 3)  # PyG: no weights in, none out
    assert w2 is None and ei2.tolist() == [[0, 1, 2, 0, 1, 2], [1, 2, 0, 0, 1, 2]]


def test_dense_layers_pools_and_converters_name_bad_inputs():
    """None / lists / object arrays reached NumPy ('NoneType' object has no attribute
    'ndim'), a 0-d x an IndexError, size=2.5 was accepted, from_pyg(None) an
    AttributeError."""
    for bad, match in [
        (None, "must be a NumPy or CuPy array, got NoneType"),
        ([[1.0] * 4], "must be a NumPy or CuPy array, got list"),
        (np.array([["a"] * 4], dtype=object), "must hold numbers"),
    ]:
        with pytest.raises(TypeError, match=match):
            agnn.Linear(4, 2)(bad)
    with pytest.raises(ValueError, match="0-d"):
        agnn.global_mean_pool(np.array(1.0), None)
    with pytest.raises(TypeError, match="size must be a non-negative int"):
        agnn.global_add_pool(np.ones((3, 2)), np.array([0, 0, 1]), size=2.5)
    x, ei = np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])
    for size in ((3, 3, 99), 3):
        with pytest.raises(TypeError, match=r"size must be a pair"):
            agnn.SAGEConv(4, 2)(x, ei, size=size)
    pytest.importorskip("torch")
    for convert in (agnn.from_pyg, agnn.from_torch, agnn.from_dgl):
        with pytest.raises(TypeError, match="expects a torch.nn.Module, got NoneType"):
            convert(None)


def test_gat_conv_edge_features_name_bad_input():
    """edge_attr / fill_value / residual mistakes are named before any work."""
    from arraygnn.nn import GATConv

    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    plain = GATConv(3, 2, heads=2)
    with pytest.raises(ValueError, match="no edge_dim"):
        plain(x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="third argument is edge_attr"):
        plain(x, ei, (4, 4))
    conv = GATConv(3, 2, heads=2, edge_dim=2)
    with pytest.raises(ValueError, match=r"needs edge_attr of shape \(3, 2\)"):
        conv(x, ei)
    with pytest.raises(ValueError, match=r"edge_attr must have shape \(3, 2\)"):
        conv(x, ei, np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match=r"edge_attr must have shape \(3, 2\)"):
        conv(x, ei, np.ones(3, np.float32))  # 1-D only for edge_dim=1
    with pytest.raises(TypeError, match="floating-point"):
        conv(x, ei, np.ones((3, 2), np.int64))
    with pytest.raises(TypeError, match="edge_attr must be an array"):
        conv(x, ei, [[1.0, 2.0]] * 3)
    with pytest.raises(ValueError, match="fill_value must be one of"):
        GATConv(3, 2, edge_dim=2, fill_value="median")
    with pytest.raises(TypeError, match="fill_value"):
        GATConv(3, 2, edge_dim=2, fill_value=None)
    with pytest.raises(ValueError, match="1 or edge_dim=2 numbers"):
        GATConv(3, 2, edge_dim=2, fill_value=np.ones(3))
    with pytest.raises(TypeError, match="residual must be True, False or 'identity'"):
        GATConv(3, 2, residual="yes")
    with pytest.raises(ValueError, match="needs in_dst == 4 output features"):
        GATConv(3, 2, heads=2, residual="identity")
    with pytest.raises(ValueError, match="edge_dim"):
        GATConv(3, 2, edge_dim=0)
    res = GATConv((3, 5), 2, residual=True, add_self_loops=False, allow_zero_in_degree=True)
    with pytest.raises(ValueError, match="needs destination features"):
        res((x, None), ei, size=(4, 4))
    # DGL's edge_weight and the attention outputs
    with pytest.raises(ValueError, match="edge_weight=..."):
        plain(x, ei, np.ones(3, np.float32))  # DGL's third positional is a keyword here
    with pytest.raises(ValueError, match="needs add_self_loops=False"):
        plain(x, ei, edge_weight=np.ones(3, np.float32))
    no_loops = GATConv(3, 2, add_self_loops=False, allow_zero_in_degree=True)
    with pytest.raises(ValueError, match=r"edge_weight must have shape \(3,\)"):
        no_loops(x, ei, edge_weight=np.ones(4, np.float32))
    with pytest.raises(TypeError, match="edge_weight must hold floating-point"):
        no_loops(x, ei, edge_weight=np.ones(3, np.int64))
    with pytest.raises(ValueError, match="not both"):
        no_loops(x, ei, return_attention_weights=True, get_attention=True)
    # nothing the caller passed is changed
    ea = np.arange(6, dtype=np.float32).reshape(3, 2)
    before = ea.copy()
    GATConv(3, 2, edge_dim=2, fill_value="max")(x, ei, ea)
    np.testing.assert_array_equal(ea, before)


def test_gatv2_conv_names_bad_input():
    """GATv2Conv: edge_attr mistakes, both attention outputs, weights DGL cannot name."""
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    plain = agnn.GATv2Conv(3, 2, heads=2)
    with pytest.raises(ValueError, match="GATv2Conv: edge_attr was given but this layer"):
        plain(x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="third argument is edge_attr"):
        plain(x, ei, (4, 4))
    with pytest.raises(ValueError, match="not both"):
        plain(x, ei, return_attention_weights=True, get_attention=True)
    conv = agnn.GATv2Conv(3, 2, heads=2, edge_dim=2)
    with pytest.raises(ValueError, match=r"needs edge_attr of shape \(3, 2\)"):
        conv(x, ei)
    with pytest.raises(ValueError, match=r"GATv2Conv: edge_attr must have shape \(3, 2\)"):
        conv(x, ei, np.ones((3, 3), np.float32))
    with pytest.raises(ValueError, match="no DGL names"):
        conv.state_dict(format="dgl")
    with pytest.raises(ValueError, match="no DGL names"):  # an output bias, no residual
        plain.state_dict(format="dgl")
    dgl_like = agnn.GATv2Conv(3, 2, heads=2, bias=False, lin_bias=True)
    assert set(dgl_like.state_dict(format="dgl")) == {
        "fc_src.weight", "fc_src.bias", "fc_dst.weight", "fc_dst.bias", "attn"
    }  # fmt: skip
    with pytest.raises(ValueError, match="x must be"):
        plain(np.ones((4, 2, 3), np.float32), ei)
    ea = np.arange(6, dtype=np.float32).reshape(3, 2)
    before = (x.copy(), ei.copy(), ea.copy())
    conv(x, ei, ea)
    for a, b in zip((x, ei, ea), before):
        np.testing.assert_array_equal(a, b)


def test_gine_conv_names_bad_input():
    from arraygnn.nn import MLP, GINEConv, Linear, Sequential

    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    conv = GINEConv(MLP([3, 5, 2], rng=0), edge_dim=2)
    assert conv.lin.weight.shape == (3, 2)  # sized from nn's first Linear, as PyG
    with pytest.raises(ValueError, match="needs edge features"):
        conv(x, ei)
    with pytest.raises(ValueError, match=r"edge_attr must have shape \(3, 2\)"):
        conv(x, ei, np.ones((3, 3), np.float32))
    with pytest.raises(TypeError, match="floating-point"):
        conv(x, ei, np.ones((3, 2), np.int32))
    with pytest.raises(TypeError, match="edge_attr must be an array"):
        conv(x, ei, [[1.0, 2.0]] * 3)
    plain = GINEConv(None)
    with pytest.raises(ValueError, match=r"the node feature size: build GINEConv"):
        plain(x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match="cannot tell the node feature size"):
        GINEConv(None, edge_dim=2)
    assert GINEConv(None, edge_dim=2, in_feats=3).lin.weight.shape == (3, 2)
    seq = Sequential("relu", Linear(3, 4, rng=0))
    assert GINEConv(seq, edge_dim=2).lin.weight.shape == (3, 2)
    with pytest.raises(ValueError, match="aggregator_type"):
        GINEConv(None, aggregator_type="bogus")
    with pytest.raises(ValueError, match="source features"):
        conv(np.ones((4, 5), np.float32), ei, np.ones((3, 2), np.float32))
    ea = np.arange(6, dtype=np.float32).reshape(3, 2)
    before = (x.copy(), ea.copy())
    conv(x, ei, ea)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(ea, before[1])


def test_negative_weighted_degree_gives_nan_like_pyg():
    """gcn_norm's deg^-1/2: 0 for a zero degree, NaN for a negative one (PyG's pow)."""
    from arraygnn.nn import GCNConv, SGConv

    ei = np.array([[0, 1, 2], [1, 2, 0]])
    w = np.array([-1.0, 1.0, 0.0], np.float32)  # node 1: degree -1, node 0: degree 0
    x = np.ones((3, 2), np.float32)
    for conv in (GCNConv(2, 2, add_self_loops=False, rng=0), SGConv(2, 2, add_self_loops=False)):
        out = conv(x, ei, w)
        assert np.isnan(out[1]).all() and np.isnan(out[2]).all()  # 2 reads from node 1
        assert np.isfinite(out[0]).all()


def test_from_pyg_and_torch_name_what_they_cannot_convert():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import from_pyg, from_torch

    with pytest.raises(ValueError, match="from_pyg: MLP act"):
        from_pyg(pyg_nn.MLP([4, 8, 8, 2], act="rrelu"))
    with pytest.raises(ValueError, match="cannot convert module GroupNorm"):
        from_torch(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.GroupNorm(2, 4)))
    with pytest.raises(ValueError, match="cannot convert activation RReLU"):
        from_torch(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.RReLU()))


def test_attention_readouts_name_bad_input():
    """AttentionalAggregation / GlobalAttentionPooling: the number of graphs left out is
    PyG's ``index.max() + 1``; gates of the wrong shape, a decreasing ptr and non-callables
    are named; a Batch-like object and an all-in-one-graph call work; inputs are not changed."""
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    batch = np.array([0, 0, 1, 1, 1])
    pool = agnn.AttentionalAggregation(agnn.Linear(3, 1, rng=0))
    np.testing.assert_array_equal(pool(x, batch), pool(x, batch, dim_size=2))  # PyG's max + 1
    with pytest.raises(ValueError, match="ptr must be non-decreasing"):
        pool(x, ptr=np.array([0, 4, 2, 5]))
    with pytest.raises(TypeError, match="graph ids must be an integer array"):
        pool(x, batch.astype(np.float32), dim_size=2)
    with pytest.raises(ValueError, match=r"graph ids must lie in \[0, 2\)"):
        pool(x, np.array([0, 0, 1, 1, 2]), dim_size=2)
    with pytest.raises(ValueError, match=r"ptr must run from 0"):
        pool(x, ptr=np.array([0, 4]))
    with pytest.raises(ValueError, match="does not broadcast"):
        agnn.AttentionalAggregation(agnn.Linear(3, 2))(x, batch, dim_size=2)
    with pytest.raises(ValueError, match=r"must give \(N, 1\) or \(N, C\)"):
        agnn.AttentionalAggregation(lambda a: a[:2, :1])(x, batch, dim_size=2)
    with pytest.raises(TypeError, match="gate_nn must be callable"):
        agnn.AttentionalAggregation(None)
    with pytest.raises(TypeError, match="feat_nn must be callable"):
        agnn.GlobalAttentionPooling(agnn.Linear(3, 1), feat_nn=3)
    with pytest.raises(TypeError, match="x must be a NumPy or CuPy array"):
        pool([[1.0, 2.0, 3.0]], batch, dim_size=2)
    with pytest.raises(TypeError, match="graph needs batch_num_nodes"):
        agnn.GlobalAttentionPooling(agnn.Linear(3, 1))(object(), x)

    class Batched:  # a Batch: graph ids and the number of graphs
        batch = np.array([0, 0, 1, 1, 1])
        num_graphs = 3

    before = x.copy()
    via_batch = pool(x, Batched())
    np.testing.assert_array_equal(via_batch, pool(x, batch, dim_size=3))
    np.testing.assert_array_equal(x, before)
    assert via_batch.shape == (3, 3) and np.all(via_batch[2] == 0)
    one = pool(x)  # one graph: the weights over all rows sum to 1
    assert one.shape == (1, 3)
    assert repr(pool).startswith("AttentionalAggregation(gate_nn=Linear(3, 1")


def test_transformer_conv_names_bad_input():
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    plain = agnn.TransformerConv(3, 2, heads=2)
    with pytest.raises(ValueError, match="TransformerConv: edge_attr was given but"):
        plain(x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="third argument is edge_attr"):
        plain(x, ei, (4, 4))
    with pytest.raises(ValueError, match="needs destination features"):
        plain((x, None), ei, size=(4, 4))
    conv = agnn.TransformerConv(3, 2, heads=2, edge_dim=2)
    with pytest.raises(ValueError, match=r"needs edge_attr of shape \(3, 2\)"):
        conv(x, ei)
    with pytest.raises(ValueError, match=r"edge_attr must have shape \(3, 2\)"):
        conv(x, ei, np.ones((2, 2), np.float32))
    ea = np.arange(6, dtype=np.float32).reshape(3, 2)
    before = (x.copy(), ei.copy(), ea.copy())
    conv(x, ei, ea)
    for a, b in zip((x, ei, ea), before):
        np.testing.assert_array_equal(a, b)


def test_appnp_and_tag_conv_name_bad_input():
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    with pytest.raises(ValueError, match=r"APPNP: alpha must be in \[0, 1\]"):
        agnn.APPNP(3, 1.5)
    with pytest.raises(TypeError, match="APPNP: K must be an int"):
        agnn.APPNP(2.5, 0.1)
    with pytest.raises(ValueError, match="APPNP needs a homogeneous graph"):
        agnn.APPNP(2, 0.1)((x, x[:2]), ei[:, :1])
    with pytest.raises(TypeError, match="APPNP: node features must be floating point"):
        agnn.APPNP(2, 0.1)(x.astype(np.int64), ei)
    with pytest.raises(TypeError, match="TAGConv: edge_weight must hold floating-point"):
        agnn.TAGConv(3, 2)(x, ei, np.ones(3, np.int64))
    with pytest.raises(ValueError, match=r"TAGConv: edge_weight must have shape \(3,\)"):
        agnn.TAGConv(3, 2)(x, ei, np.ones(4, np.float32))
    before = x.copy()
    out = agnn.APPNP(3, 0.1)(x, ei)
    np.testing.assert_array_equal(x, before)
    assert out is not x


def test_cheb_conv_names_bad_input():
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    with pytest.raises(ValueError, match="ChebConv: K must be in"):
        agnn.ChebConv(3, 2, K=0)
    with pytest.raises(ValueError, match="normalization must be 'sym', 'rw' or None"):
        agnn.ChebConv(3, 2, K=2, normalization="both")
    conv = agnn.ChebConv(3, 2, K=2)
    lam = np.array([2.0, 3.0])
    with pytest.raises(ValueError, match="a lambda_max per graph needs batch"):
        conv(x, ei, lambda_max=lam)
    with pytest.raises(ValueError, match=r"batch must be an integer array of shape \(4,\)"):
        conv(x, ei, batch=np.zeros(3, np.int64), lambda_max=lam)
    with pytest.raises(ValueError, match=r"graph ids outside \[0, 2\)"):
        conv(x, ei, batch=np.array([0, 0, 1, 2]), lambda_max=lam)
    before = x.copy()
    agnn.ChebConv(3, 2, K=3)(x, ei)
    np.testing.assert_array_equal(x, before)


def test_sage_gcn_refuses_projection_and_takes_3d_features():
    """'gcn' + project=True gave different numbers per calling form (the self term was
    projected in one, raw in the other); 3-D features crashed in NumPy's broadcasting."""
    with pytest.raises(ValueError, match="project=True is not available with the 'gcn'"):
        agnn.SAGEConv(4, 3, "gcn", project=True)
    rng = np.random.default_rng(40)
    x = rng.standard_normal((6, 2, 4)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3, 5], [1, 2, 3, 0, 0]])
    conv = agnn.SAGEConv(4, 3, "gcn", rng=0)
    out = conv(x, ei)
    for h in range(2):
        np.testing.assert_allclose(out[:, h], conv(x[:, h], ei), rtol=1e-6, atol=1e-6)
    for layer in (agnn.RGCNConv(4, 3, 2), agnn.RelGraphConv(4, 3, 2)):
        with pytest.raises(ValueError, match=r"must be \[num_nodes, in_feats\]"):
            layer(x, ei, np.zeros(5, np.int64))


def test_unclear_errors_now_name_the_problem():
    rng = np.random.default_rng(41)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    with pytest.raises(ValueError, match="destination features: expected last dimension 6"):
        agnn.TransformerConv((4, 6), 3)(x, ei)  # was NumPy's concatenate error
    pool = agnn.AttentionalAggregation(agnn.Linear(4, 1))
    with pytest.raises(ValueError, match=r"graph ids must lie in \[0, 1\)"):
        pool(x, np.array([0, 0, 1, 1, 1, 1]), dim_size=1)
    with pytest.raises(
        ValueError, match=r"x\[1\] is None; pass the destination features as x\[1\]$"
    ):
        agnn.GraphConv(4, 2)((x, None), ei)  # GraphConv takes no size=
    with pytest.raises(TypeError, match="batch must be a NumPy or CuPy integer array"):
        agnn.global_add_pool(x, [0, 0, 1, 1, 2, 2], 3)  # was AttributeError
    with pytest.raises(ValueError, match=r"ChebConv: edge_index\[1\] \(targets\) has entry 50"):
        agnn.ChebConv(4, 2, K=2)(x, np.array([[0, 1], [1, 50]]))  # was IndexError
    for layer in (agnn.SAGEConv(4, 2), agnn.GCNConv(4, 2)):
        with pytest.raises(TypeError, match="got a list of numbers"):
            layer(x.tolist(), ei)


def test_from_pyg_of_a_bfloat16_module_says_to_cast_it():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    with pytest.raises(TypeError, match=r"no bfloat16 dtype; cast the module first"):
        agnn.from_pyg(pyg_nn.GCNConv(4, 2).to(torch.bfloat16))


def test_nnconv_pna_and_recurrent_bad_input_is_named():
    rng = np.random.default_rng(42)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    x3 = rng.standard_normal((4, 2, 6)).astype(np.float32)
    nn_conv = agnn.NNConv(6, 3, agnn.Linear(2, 18, rng=0))
    pna = agnn.PNAConv(6, 3, ["mean"], ["identity"], np.array([0, 4]))
    for layer in (nn_conv, pna):
        with pytest.raises(ValueError, match=r"must be \[num_nodes, in_feats\]"):
            layer(x3, ei, np.ones((4, 2), np.float32))
    x = rng.standard_normal((4, 6)).astype(np.float32)
    with pytest.raises(ValueError, match=r"edge_attr must have shape \(4, 2\) \(the input of nn\)"):
        nn_conv(x, ei, np.ones((4, 3), np.float32))
    gru, lstm = agnn.GRU(4, 3), agnn.LSTM(4, 3)
    seq = np.ones((2, 5, 4), np.float32)
    with pytest.raises(TypeError, match="GRU h0 must be a NumPy or CuPy array"):
        gru(seq, [[0.0]])
    with pytest.raises(TypeError, match=r"LSTM state must be a pair \(h0, c0\)"):
        lstm(seq, np.zeros((1, 5, 3), np.float32))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from the sigmoid
        out, _ = gru(np.full((1, 2, 4), -1e4, np.float32))
    assert np.isfinite(out).all()
