"""Calling forms, state dicts, devices and error messages of the arraygnn.nn layers."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import FakeBlock, random_graph

import arraygnn.nn as agnn


def _layers(fin, fout):
    return {
        "GraphConv": agnn.GraphConv(fin, fout, allow_zero_in_degree=True, rng=0),
        "GCNConv": agnn.GCNConv(fin, fout, rng=1),
        "SAGEConv-mean": agnn.SAGEConv(fin, fout, "mean", rng=2),
        "SAGEConv-gcn": agnn.SAGEConv(fin, fout, "gcn", rng=3),
        "SAGEConv-pool": agnn.SAGEConv(fin, fout, "pool", rng=4),
        "GATConv": agnn.GATConv(fin, fout, heads=2, rng=5),
        "GATv2Conv": agnn.GATv2Conv(fin, fout, heads=2, rng=9),
        "TransformerConv": agnn.TransformerConv(fin, fout, heads=2, beta=True, rng=10),
        "TAGConv": agnn.TAGConv(fin, fout, K=2, rng=11),
        "ChebConv": agnn.ChebConv(fin, fout, K=3, rng=12),
        "GINConv": agnn.GINConv(agnn.MLP([fin, 8, fout], rng=6), eps=0.1),
        "SGConv": agnn.SGConv(fin, fout, K=2, rng=7),
    }


class FakeGraph:
    """A homogeneous DGL-style graph (not a block)."""

    is_block = False

    def __init__(self, edge_index, n):
        self._ei, self._n = edge_index, n

    def edges(self):
        return self._ei[0], self._ei[1]

    def number_of_src_nodes(self):
        return self._n

    def number_of_dst_nodes(self):
        return self._n


@pytest.mark.parametrize("name", list(_layers(4, 3)))
def test_pyg_form_equals_graph_form(name):
    rng = np.random.default_rng(0)
    ei = random_graph(rng, 15, isolated=0)
    x = rng.standard_normal((15, 6)).astype(np.float32)
    layer = _layers(6, 5)[name]
    expected = layer(x, ei)
    assert expected.shape[0] == 15 and expected.dtype == np.float32
    np.testing.assert_allclose(layer(FakeGraph(ei, 15), x), expected, rtol=1e-5, atol=1e-6)
    x_before = x.copy()
    layer(x, ei)
    np.testing.assert_array_equal(x, x_before)  # inputs are never modified


@pytest.mark.parametrize("name", list(_layers(4, 3)))
def test_real_graph_object(name):
    graph_mod = pytest.importorskip("arraygnn.graph")
    make = getattr(graph_mod, "graph", None)
    if make is None:
        pytest.skip("arraygnn.graph.graph not available yet")
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 12, isolated=0)
    x = rng.standard_normal((12, 6)).astype(np.float32)
    layer = _layers(6, 5)[name]
    g = make((ei[0], ei[1]), num_nodes=12)
    np.testing.assert_allclose(layer(g, x), layer(x, ei), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "name",
    [
        "GraphConv",
        "SAGEConv-mean",
        "SAGEConv-pool",
        "GATConv-noloops",
        "GATv2-noloops",
        "GATv2-shared",
        "GINConv",
    ],
)
def test_block_form_equals_pair_form(name):
    rng = np.random.default_rng(2)
    ns, nd = 20, 7
    ei = random_graph(rng, ns, nd, num_edges=45, isolated=0)
    x = rng.standard_normal((ns, 6)).astype(np.float64)
    layers = _layers(6, 5)
    layers["GATConv-noloops"] = agnn.GATConv(6, 5, heads=2, add_self_loops=False, rng=8)
    layers["GATv2-noloops"] = agnn.GATv2Conv(6, 5, heads=2, add_self_loops=False, rng=8)
    layers["GATv2-shared"] = agnn.GATv2Conv(
        6, 5, heads=2, add_self_loops=False, share_weights=True, rng=8
    )
    layer = layers[name].astype(np.float64)
    by_block = layer(FakeBlock(ei, ns, nd), x)
    by_pair = layer((x, x[:nd]), ei)
    assert by_block.shape[0] == nd
    np.testing.assert_allclose(by_block, by_pair, rtol=1e-12)


def test_state_dict_round_trip_and_pyg_names():
    layers = _layers(4, 3)
    expected_keys = {
        "GCNConv": {"lin.weight", "bias"},
        "SAGEConv-mean": {"lin_l.weight", "lin_l.bias", "lin_r.weight"},
        "SAGEConv-gcn": {"lin_l.weight", "lin_l.bias"},
        "SAGEConv-pool": {"lin.weight", "lin.bias", "lin_l.weight", "lin_l.bias", "lin_r.weight"},
        "GATConv": {"lin.weight", "att_src", "att_dst", "bias"},
        "GATv2Conv": {"lin_l.weight", "lin_l.bias", "lin_r.weight", "lin_r.bias", "att", "bias"},
        "TransformerConv": {
            f"{lin}.{p}"
            for lin in ("lin_key", "lin_query", "lin_value", "lin_skip")
            for p in ("weight", "bias")
        }
        | {"lin_beta.weight"},
        "TAGConv": {"lins.0.weight", "lins.1.weight", "lins.2.weight", "bias"},
        "ChebConv": {"lins.0.weight", "lins.1.weight", "lins.2.weight", "bias"},
        "GINConv": {
            "eps",
            "nn.lins.0.weight",
            "nn.lins.0.bias",
            "nn.lins.1.weight",
            "nn.lins.1.bias",
        },
        "SGConv": {"lin.weight", "lin.bias"},
        "GraphConv": {"weight", "bias"},
    }
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 10, isolated=0)
    x = rng.standard_normal((10, 4)).astype(np.float32)
    fresh = _layers(4, 3)
    for name, layer in layers.items():
        state = layer.state_dict()
        assert set(state) == expected_keys[name], name
        noisy = {k: v + np.float32(0.5) for k, v in state.items()}
        layer.load_state_dict(noisy)
        other = fresh[name].load_state_dict({k: v.copy() for k, v in noisy.items()})
        np.testing.assert_array_equal(other(x, ei), layer(x, ei))
        noisy[next(iter(noisy))] += 1  # loading copied: the caller's arrays are not aliased
        np.testing.assert_array_equal(other(x, ei), layer(x, ei))


def test_load_state_dict_errors():
    conv = agnn.GCNConv(4, 3)
    with pytest.raises(KeyError, match="missing keys \\['bias'\\]"):
        conv.load_state_dict({"lin.weight": np.zeros((3, 4))})
    with pytest.raises(KeyError, match="unexpected keys \\['extra'\\]"):
        conv.load_state_dict(
            {"lin.weight": np.zeros((3, 4)), "bias": np.zeros(3), "extra": np.ones(1)}
        )
    with pytest.raises(ValueError, match="'lin.weight' has shape \\(4, 3\\), expected \\(3, 4\\)"):
        conv.load_state_dict({"lin.weight": np.zeros((4, 3)), "bias": np.zeros(3)})
    conv.load_state_dict({"lin.weight": np.ones((3, 4))}, strict=False)
    np.testing.assert_array_equal(conv.lin.weight, np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="format"):
        conv.load_state_dict({}, format="tf")
    with pytest.raises(ValueError, match="no DGL parameter naming"):
        agnn.ClusterGCNConv(3, 2).state_dict(format="dgl")


def test_bad_inputs_name_the_piece():
    conv = agnn.SAGEConv(4, 3)
    x = np.zeros((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="SAGEConv source features: expected last dimension 4"):
        conv(np.zeros((5, 3), np.float32), ei)
    with pytest.raises(ValueError, match="edge_index must have shape \\[2, E\\]"):
        conv(x, np.array([0, 1, 2]))
    with pytest.raises(TypeError, match="edge_index must hold integers"):
        conv(x, ei.astype(np.float32))
    with pytest.raises(ValueError, match="edge_weight must have shape \\(2,\\)"):
        conv(x, ei, edge_weight=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="pair"):
        conv((x, x, x), ei)
    with pytest.raises(ValueError, match="destination features have 5 rows but the graph has 3"):
        conv(FakeBlock(ei, 5, 3), (x, x))
    with pytest.raises(ValueError, match="aggregator_type"):
        agnn.SAGEConv(4, 3, "median")  # ('lstm' is DGL's LSTM aggregator)
    with pytest.raises(ValueError, match="activation"):
        agnn.GraphConv(4, 3, activation="swishy")
    with pytest.raises(ValueError, match="norm"):
        agnn.GraphConv(4, 3, norm="sym")


def test_zero_in_degree_message_names_node():
    ei = np.array([[0, 1], [1, 0]])
    x = np.ones((3, 2), np.float32)
    with pytest.raises(
        ValueError, match="1 destination node\\(s\\) have zero in-degree \\(first: node 2\\)"
    ):
        agnn.GraphConv(2, 2)(x, ei)
    out = agnn.GCNConv(2, 2)(x, ei)  # self-loops: no zero in-degree
    assert out.shape == (3, 2)


def test_readout_forms_and_errors():
    x = np.arange(12, dtype=np.float64).reshape(6, 2)
    batch = np.array([0, 0, 1, 1, 1, 3])
    # size left out: PyG's batch.max() + 1 (graph 2 is empty, nothing after graph 3)
    np.testing.assert_array_equal(
        agnn.global_add_pool(x, batch), [[2, 4], [18, 21], [0, 0], [10, 11]]
    )
    assert agnn.global_mean_pool(x[:0], batch[:0]).shape == (0, 2)
    with pytest.raises(ValueError, match="must lie in|negative|>= 0"):
        agnn.global_add_pool(x, batch - 1)
    with pytest.raises(TypeError, match="integer"):
        agnn.global_add_pool(x, batch.astype(np.float32))
    np.testing.assert_array_equal(agnn.global_add_pool(x), x.sum(0, keepdims=True))
    got = agnn.global_max_pool(x, batch, size=4)
    np.testing.assert_array_equal(got, [[2, 3], [8, 9], [0, 0], [10, 11]])

    class FakeBatch:
        num_graphs = 4
        ptr = np.array([0, 2, 5, 5, 6])

    np.testing.assert_array_equal(
        agnn.global_mean_pool(x, FakeBatch()), [[1, 2], [6, 7], [0, 0], [10, 11]]
    )

    class FakeBatched:
        def batch_num_nodes(self):
            return np.array([2, 3, 0, 1])

    np.testing.assert_array_equal(
        agnn.SumPooling()(FakeBatched(), x), agnn.global_add_pool(x, batch, 4)
    )
    np.testing.assert_array_equal(
        agnn.AvgPooling()(FakeBatched(), x), agnn.global_mean_pool(x, batch, 4)
    )
    np.testing.assert_array_equal(agnn.MaxPooling()(FakeBatched(), x), got)
    with pytest.raises(ValueError, match="size=3 but ptr describes 4"):
        agnn.global_add_pool(x, ptr=FakeBatch.ptr, size=3)


def _spy_slot_order(monkeypatch, *names):
    """Record ``(op, result shape)`` of each call of the named ``ops.slot_order`` functions
    (op = the name without ``_slots``)."""
    from arraygnn.ops import slot_order

    seen = []
    for name in names:
        real = getattr(slot_order, name)
        op = name.removesuffix("_slots")

        def spy(*args, _real=real, _name=op, **kwargs):
            out = _real(*args, **kwargs)
            seen.append((_name, out.shape))
            return out

        monkeypatch.setattr(slot_order, name, spy)
    return seen


def test_gat_never_builds_edge_by_feature_arrays(monkeypatch):
    """Every array handed to the engine on the edge side is [E, H] at most (the layer
    keeps them in the CSR's slot order: ``arraygnn.ops.slot_order``)."""
    seen = _spy_slot_order(monkeypatch, "sddmm_slots", "edge_softmax_slots", "spmm_slots")
    rng = np.random.default_rng(4)
    ei = random_graph(rng, 30, num_edges=200)
    conv = agnn.GATConv(8, 16, heads=4, rng=0)
    conv(rng.standard_normal((30, 8)).astype(np.float32), ei)
    e = 200 - int((ei[0] == ei[1]).sum()) + 30
    assert ("sddmm", (e, 4)) in seen and ("edge_softmax", (e, 4)) in seen
    assert ("spmm", (30, 4, 16)) in seen


def test_gatv2_never_builds_edge_by_feature_arrays(monkeypatch):
    """GATv2's edge-side arrays are [E, H] at most: its scores come from one fused kernel
    (``gatv2_scores_slots``), then the softmax and the aggregation run in slot order."""
    seen = _spy_slot_order(monkeypatch, "gatv2_scores_slots", "edge_softmax_slots", "spmm_slots")
    rng = np.random.default_rng(4)
    ei = random_graph(rng, 30, num_edges=200)
    conv = agnn.GATv2Conv(8, 16, heads=4, edge_dim=3, rng=0)
    conv(rng.standard_normal((30, 8)).astype(np.float32), ei, np.ones((200, 3), np.float32))
    e = 200 - int((ei[0] == ei[1]).sum()) + 30
    assert seen == [("gatv2_scores", (e, 4)), ("edge_softmax", (e, 4)), ("spmm", (30, 4, 16))]


def test_transformer_never_builds_edge_by_feature_arrays(monkeypatch):
    """TransformerConv's edge-side arrays are [E, H] (and the [E, D] edge features): the
    dot products and the weighted sums are SDDMM / SpMM calls."""
    seen = _spy_slot_order(monkeypatch, "sddmm_slots", "edge_softmax_slots", "spmm_slots")
    rng = np.random.default_rng(9)
    ei = random_graph(rng, 30, num_edges=200)
    conv = agnn.TransformerConv(8, 16, heads=4, edge_dim=3, rng=0)
    conv(rng.standard_normal((30, 8)).astype(np.float32), ei, np.ones((200, 3), np.float32))
    assert seen == [("sddmm", (200, 4, 1)), ("edge_softmax", (200, 4)), ("spmm", (30, 4, 16))]


def test_device_and_dtype_moves():
    conv = agnn.GATConv(4, 3, heads=2)
    assert conv.device == "cpu" and conv.dtype == np.float32
    assert conv.to("cpu") is conv
    conv.astype(np.float64)
    assert conv.dtype == np.float64 and conv.lin.weight.dtype == np.float64


def test_cupy_matches_numpy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no GPU")
    rng = np.random.default_rng(5)
    ei = random_graph(rng, 40, isolated=0)
    x = rng.standard_normal((40, 6)).astype(np.float32)
    for name, layer in _layers(6, 5).items():
        expected = layer(x, ei)
        layer.to("cuda")
        got = layer(cp.asarray(x), cp.asarray(ei))
        assert isinstance(got, cp.ndarray), name
        np.testing.assert_allclose(cp.asnumpy(got), expected, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name", list(_layers(4, 3)))
def test_csr_in_place_of_edge_index(name):
    from arraygnn import ops

    rng = np.random.default_rng(6)
    ei = random_graph(rng, 14, isolated=0)
    x = rng.standard_normal((14, 6)).astype(np.float32)
    layer = _layers(6, 5)[name]
    csr = ops.to_csr(ei, 14, 14)
    np.testing.assert_allclose(layer(x, csr), layer(x, ei), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="the CSR connects 14 sources"):
        layer(x[:10], csr)


@pytest.mark.parametrize(
    "name", ["GraphConv", "SAGEConv-gcn", "SAGEConv-pool", "GATConv-noloops", "GINConv"]
)
def test_real_block_from_to_block(name):
    """arraygnn.graph.to_block: destination features are the first num_dst_nodes() rows."""
    graph_mod = pytest.importorskip("arraygnn.graph")
    if not hasattr(graph_mod, "to_block"):
        pytest.skip("arraygnn.graph.to_block not available yet")
    rng = np.random.default_rng(7)
    ei = random_graph(rng, 30, isolated=0)
    seeds = np.array([3, 7, 11, 19])
    keep = np.isin(ei[1], seeds)
    g = graph_mod.graph((ei[0, keep], ei[1, keep]), num_nodes=30)
    block = graph_mod.to_block(g, seeds)
    x = rng.standard_normal((block.num_src_nodes(), 6))
    layers = _layers(6, 5)
    layers["GATConv-noloops"] = agnn.GATConv(6, 5, heads=2, add_self_loops=False, rng=8)
    layer = layers[name].astype(np.float64)
    src, dst = block.edges()
    expected = layer((x, x[: block.num_dst_nodes()]), np.stack([src, dst]))
    got = layer(block, x)
    assert got.shape[0] == 4
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_gcn_slot_order_weights_are_the_edge_order_weights_permuted():
    """GCN / SGC normalise straight into the CSR's slot order (``normalized_slots``): the
    weights ``gcn_norm`` computes in edge order (degrees by ``scatter``), permuted by
    ``perm``, bit for bit, on every labelled square graph, weighted or not, improved or
    not, float32 / float64; ``normalized_csr`` gives them in edge order."""
    from arraygnn import ops
    from arraygnn.nn.graph_conv import gcn_norm, normalized_csr, normalized_slots
    from arraygnn.testing.cases import CASE_NAMES, get_case

    rng = np.random.default_rng(8)
    for name in CASE_NAMES:
        case = get_case(name, np.int64)
        if case.num_src_nodes != case.num_dst_nodes:
            continue
        n = case.num_dst_nodes
        for dtype in (np.float32, np.float64):
            for w in (None, rng.random(case.num_edges).astype(dtype)):
                for improved, loops in ((False, True), (True, True), (False, False)):
                    ei, want = gcn_norm(case.edge_index, w, n, improved, loops, dtype=dtype)
                    csr = ops.to_csr(ei, n, n)
                    csr2, got = normalized_slots(case.edge_index, w, n, improved, loops, dtype)
                    np.testing.assert_array_equal(csr2.perm, csr.perm)
                    assert got.dtype == want.dtype, name
                    assert got.tobytes() == want[csr.perm].tobytes(), (name, improved, loops)
                    _, edge_order = normalized_csr(case.edge_index, w, n, improved, loops, dtype)
                    assert edge_order.tobytes() == want.tobytes(), (name, improved, loops)
