"""``GENConv`` against PyG's (same weights through ``from_pyg``, eval mode): every
aggregation (learnt ``t`` / ``p`` too; any ``torch_geometric.nn.aggr`` one that
arraygnn.nn.aggr has, ``MultiAggregation`` with ``lin_aggr_out`` and ``proj``), message
norm, each MLP norm, edge features, bipartite inputs, isolated targets and repeated edges,
float32 / float64, int32 / int64 ids; errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.nn import GENConv  # noqa: E402

TOL = {np.float32: 2e-5, np.float64: 1e-11}


def _randomise(module, seed=0):
    """Random weights, BatchNorm statistics, learnt t / p and message scale (PyG's initial
    ones are too plain to catch a swapped term)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith(".t") or name.endswith(".p"):
                p.copy_(0.5 + 1.5 * torch.rand(p.shape, generator=gen, dtype=p.dtype))
            elif name.endswith("scale"):
                p.copy_(0.5 + torch.rand(p.shape, generator=gen, dtype=p.dtype))
            else:
                p.copy_(0.5 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
        for m in module.modules():
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.copy_(0.3 * torch.randn(m.num_features, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(m.num_features, generator=gen))
    return module.eval()


def _pyg(module, x, ei, edge_attr=None, size=None):
    def t(a):
        return None if a is None else torch.from_numpy(np.ascontiguousarray(a))

    tx = tuple(t(a) for a in x) if isinstance(x, tuple) else t(x)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # InstanceNorm1d on [N, C]: num_features unused
        return module(tx, t(ei.astype(np.int64)), t(edge_attr), size).numpy()


def _check(module, x, ei, edge_attr=None, dtype=np.float32, size=None, tol=None):
    module = module.double() if dtype == np.float64 else module.float()
    ours = agnn.from_pyg(module)
    assert isinstance(ours, GENConv)
    expected = _pyg(module, x, ei, edge_attr, size)
    got = ours(x, ei, edge_attr, size=size)
    assert got.dtype == dtype
    assert got.shape == expected.shape
    assert rel_err(got, expected) < (tol or TOL[dtype])
    return ours, got


def _inputs(rng, n, f, dtype, index_dtype=np.int64, edge_width=None, num_src=None):
    ei = random_graph(rng, num_src or n, n, index_dtype=index_dtype)
    x = rng.standard_normal((num_src or n, f)).astype(dtype)
    e = None
    if edge_width is not None:
        e = rng.standard_normal((ei.shape[1], edge_width)).astype(dtype)
    return x, ei, e


AGGRS = [
    dict(aggr="softmax"),
    dict(aggr="softmax", t=0.3),
    dict(aggr="softmax", learn_t=True, t=2.0),
    dict(aggr="powermean"),
    dict(aggr="powermean", p=2.5),
    dict(aggr="powermean", learn_p=True, p=1.0),
    dict(aggr="add"),
    dict(aggr="mean"),
    dict(aggr="max"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kwargs", AGGRS, ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
def test_gen_conv_aggregations(kwargs, index_dtype, dtype):
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    module = _randomise(pyg_nn.GENConv(6, 6, **kwargs))
    x, ei, _ = _inputs(rng, 30, 6, dtype, index_dtype)
    if kwargs.get("aggr") == "powermean":
        x = np.abs(x)  # keep most messages inside the clamp range, where pow matters
    tol = 2e-4 if (kwargs.get("aggr") == "powermean" and dtype == np.float32) else None
    ours, got = _check(module, x, ei, dtype=dtype, tol=tol)
    isolated = np.setdiff1d(np.arange(30), ei[1])
    assert isolated.size >= 2  # targets without in-edges are covered


@pytest.mark.parametrize("norm", ["batch", "layer", "instance", None])
@pytest.mark.parametrize("num_layers, expansion", [(1, 2), (2, 2), (3, 3)])
def test_gen_conv_mlp_norms(norm, num_layers, expansion):
    rng = np.random.default_rng(2)
    torch.manual_seed(0)
    module = _randomise(
        pyg_nn.GENConv(5, 7, norm=norm, num_layers=num_layers, expansion=expansion, bias=True)
    )
    x, ei, _ = _inputs(rng, 25, 5, np.float32)
    ours, _ = _check(module, x, ei)
    assert ours.norm == (norm if num_layers > 1 else ours.norm)
    assert ours.num_layers == num_layers


@pytest.mark.parametrize("learn_scale", [False, True])
@pytest.mark.parametrize("aggr", ["softmax", "mean"])
def test_gen_conv_msg_norm(learn_scale, aggr):
    rng = np.random.default_rng(3)
    torch.manual_seed(0)
    module = _randomise(pyg_nn.GENConv(4, 6, aggr, msg_norm=True, learn_msg_scale=learn_scale))
    x, ei, _ = _inputs(rng, 20, 4, np.float32)
    ours, _ = _check(module, x, ei)
    assert ours.msg_norm.learn_scale == learn_scale
    # bipartite: the norm of the raw destination features (before lin_dst)
    module = _randomise(pyg_nn.GENConv((4, 3), 6, aggr, msg_norm=True))
    x_src, ei, _ = _inputs(rng, 9, 4, np.float32, num_src=12)
    x_dst = rng.standard_normal((9, 3)).astype(np.float32)
    _check(module, (x_src, x_dst), ei)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("edge_dim", [None, 3, 6])
@pytest.mark.parametrize("aggr", ["softmax", "powermean", "add", "max"])
def test_gen_conv_edge_features(edge_dim, aggr, dtype):
    rng = np.random.default_rng(4)
    torch.manual_seed(0)
    kwargs = dict(learn_p=True) if aggr == "powermean" else dict(learn_t=True)
    module = _randomise(pyg_nn.GENConv(5, 6, aggr, edge_dim=edge_dim, bias=True, **kwargs))
    x, ei, e = _inputs(rng, 24, 5, dtype, edge_width=edge_dim or 6)
    tol = 2e-4 if (aggr == "powermean" and dtype == np.float32) else None
    ours, _ = _check(module, x, ei, e, dtype=dtype, tol=tol)
    assert (ours.lin_edge is None) == (edge_dim in (None, 6))
    # with edge_dim set, no edge features at all is allowed (PyG's message is x_j)
    _check(module, x, ei, None, dtype=dtype, tol=tol)


def test_gen_conv_bipartite_and_missing_targets():
    rng = np.random.default_rng(5)
    torch.manual_seed(0)
    for sizes in [(4, 6), (6, 3), (3, 5)]:
        module = _randomise(pyg_nn.GENConv(sizes, 6, edge_dim=2))
        ei = random_graph(rng, 15, 8)
        x = (
            rng.standard_normal((15, sizes[0])).astype(np.float32),
            rng.standard_normal((8, sizes[1])).astype(np.float32),
        )
        e = rng.standard_normal((ei.shape[1], 2)).astype(np.float32)
        ours, _ = _check(module, x, ei, e)
        assert (ours.lin_src is None, ours.lin_dst is None) == (sizes[0] == 6, sizes[1] == 6)
        # (x_src, None) with size: no root term
        _check(module, (x[0], None), ei, e, size=(15, 8))


def test_gen_conv_per_channel_temperature_and_power():
    rng = np.random.default_rng(6)
    torch.manual_seed(0)
    for aggr, key in (("softmax", "t"), ("powermean", "p")):
        kwargs = {"aggr_kwargs": {key: 1.0, "learn": True, "channels": 5}}
        module = _randomise(pyg_nn.GENConv(5, 5, aggr, **kwargs))
        x, ei, _ = _inputs(rng, 20, 5, np.float32)
        ours, _ = _check(module, np.abs(x), ei, tol=2e-4)
        assert getattr(ours.aggr_module, key).shape == (5,)


def test_gen_conv_calling_forms_agree():
    rng = np.random.default_rng(7)
    torch.manual_seed(0)
    module = _randomise(pyg_nn.GENConv(4, 4, edge_dim=3, learn_t=True))
    ours = agnn.from_pyg(module)
    x, ei, e = _inputs(rng, 16, 4, np.float32, edge_width=3)
    want = ours(x, ei, e)
    from arraygnn import ops

    np.testing.assert_array_equal(ours(x, ops.to_csr(ei, 16, 16), e), want)
    import arraygnn

    g = arraygnn.graph((ei[0], ei[1]), num_nodes=16)
    np.testing.assert_allclose(ours(g, x, e), want, rtol=1e-6, atol=1e-6)


def test_gen_conv_empty_graph_and_state_dict_round_trip():
    rng = np.random.default_rng(8)
    torch.manual_seed(0)
    module = _randomise(pyg_nn.GENConv(3, 4, aggr="powermean", learn_p=True, msg_norm=True))
    x = rng.standard_normal((5, 3)).astype(np.float32)
    ei = np.zeros((2, 0), np.int64)
    _check(module, x, ei)  # every target isolated: clamp_min ** (1 / p) from the power mean
    ours = agnn.from_pyg(module)
    fresh = GENConv(3, 4, aggr="powermean", learn_p=True, msg_norm=True)
    fresh.load_state_dict(ours.state_dict())
    ei = random_graph(rng, 5)
    np.testing.assert_array_equal(fresh(x, ei), ours(x, ei))
    assert set(ours.state_dict()) == {
        k for k in module.state_dict() if not k.endswith("num_batches_tracked")
    }


def test_gen_conv_lazy_sizes():
    rng = np.random.default_rng(9)
    module = pyg_nn.GENConv(-1, 6)
    x, ei, _ = _inputs(rng, 12, 4, np.float32)
    with pytest.raises(ValueError, match="lazy sizes"):
        agnn.from_pyg(module)
    module(torch.from_numpy(x), torch.from_numpy(ei))  # materialises lin_src / lin_dst
    _check(_randomise(module), x, ei)


def _other_aggregations():
    """PyG GENConv aggregations beyond softmax / power mean / sum / mean / max (each a
    ``(aggr, extra GENConv kwargs)`` pair; built fresh per test)."""
    aggr = pyg_nn.aggr
    return [
        ("min", {}),
        ("mul", {}),
        ("var", {}),
        ("std", {}),
        ("median", {}),
        (aggr.QuantileAggregation(0.25, "linear"), {}),
        (aggr.SoftmaxAggregation(t=0.5, learn=True, channels=6), {}),
        (aggr.PowerMeanAggregation(p=2.0, learn=True), {}),
        (["mean", "max"], {}),  # cat: 12 channels, then PyG's lin_aggr_out
        (["mean", "std", "min"], {"aggr_kwargs": {"mode": "sum"}}),
        (["mean", "max"], {"aggr_kwargs": {"mode": "logsumexp"}}),
        (
            ["softmax", "powermean"],
            {"aggr_kwargs": {"aggrs_kwargs": [{"learn": True}, {"learn": True, "p": 1.5}]}},
        ),
        (
            ["sum", "max", "var"],
            {
                "aggr_kwargs": {
                    "mode": "proj",
                    "mode_kwargs": {"in_channels": 6, "out_channels": 6, "bias": False},
                }
            },
        ),
        (aggr.DegreeScalerAggregation("mean", "amplification", torch.tensor([1.0, 4, 2])), {}),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("case", range(14))
def test_gen_conv_other_aggregations(case, index_dtype, dtype):
    rng = np.random.default_rng(10 + case)
    torch.manual_seed(case)
    aggr, kwargs = _other_aggregations()[case]
    module = _randomise(pyg_nn.GENConv(6, 6, aggr=aggr, bias=True, **kwargs), seed=case)
    x, ei, _ = _inputs(rng, 30, 6, dtype, index_dtype)
    if case in (1, 7, 11):  # products / powers: keep the messages in a tame range
        x = 0.5 + 0.5 * np.abs(x)
    tol = 2e-4 if dtype == np.float32 else None
    ours, _ = _check(module, x, ei, dtype=dtype, tol=tol)
    assert type(ours.aggr_module).__name__ == type(module.aggr_module).__name__
    assert (ours.lin_aggr_out is None) == (not hasattr(module, "lin_aggr_out"))
    assert set(ours.state_dict()) == {
        k for k in module.state_dict() if not k.endswith("num_batches_tracked")
    }
    # edge features and a bipartite graph go through the same aggregation
    module = _randomise(
        pyg_nn.GENConv((4, 5), 6, aggr=_other_aggregations()[case][0], edge_dim=3, **kwargs),
        seed=case,
    )
    ei = random_graph(rng, 12, 9, index_dtype=index_dtype)
    xs = (
        rng.standard_normal((12, 4)).astype(dtype),
        rng.standard_normal((9, 5)).astype(dtype),
    )
    e = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    _check(module, xs, ei, e, dtype=dtype, tol=tol)


def test_gen_conv_own_multi_aggregation_round_trip():
    from arraygnn.nn.aggr import MultiAggregation, SoftmaxAggregation

    conv = GENConv(4, 5, aggr=["mean", "max", "median"], rng=0)
    assert conv.aggr == ["mean", "max", "median"]
    assert conv.lin_aggr_out.weight.shape == (5, 15)
    assert isinstance(conv.aggr_module, MultiAggregation)
    learnt = GENConv(4, 5, aggr=SoftmaxAggregation(learn=True, channels=5, dtype=np.float64))
    assert learnt.aggr_module.t.dtype == np.float64
    rng = np.random.default_rng(11)
    x, ei, _ = _inputs(rng, 10, 4, np.float32)
    fresh = GENConv(4, 5, aggr=["mean", "max", "median"], rng=1)
    fresh.load_state_dict(conv.state_dict())
    np.testing.assert_array_equal(fresh(x, ei), conv(x, ei))
    # the same aggregation as a module of its own, on the slot-order messages' groups
    module = _randomise(pyg_nn.GENConv(4, 4, aggr=["min", "std"], aggr_kwargs={"mode": "max"}))
    _check(module, x, ei)


def test_gen_conv_from_pyg_refuses_other_aggregations():
    # EquilibriumAggregation converts since 2026-11-27 (tests/nn/test_equilibrium_aggr.py)
    agnn.from_pyg(pyg_nn.GENConv(4, 4, aggr=pyg_nn.aggr.EquilibriumAggregation(4, 4, [8])))
    module = pyg_nn.GENConv(
        4,
        4,
        aggr=["mean", "max"],
        aggr_kwargs={"mode": "attn", "mode_kwargs": {"in_channels": 4, "out_channels": 4}},
    )
    agnn.from_pyg(module)  # MultiAggregation(mode='attn') converts since session 11
    module.aggr_module.mode = "mix"
    with pytest.raises(ValueError, match=r"MultiAggregation\(mode='mix'\)"):
        agnn.from_pyg(module)
    module = pyg_nn.GENConv(4, 4, flow="target_to_source")
    with pytest.raises(ValueError, match="flow='target_to_source'"):
        agnn.from_pyg(module)


def test_gen_conv_errors():
    with pytest.raises(ValueError, match="GENConv: aggr='minimum': aggregation_resolver"):
        GENConv(4, 4, aggr="minimum")
    with pytest.raises(TypeError, match="GENConv: aggr must be a name"):
        GENConv(4, 4, aggr=3)
    with pytest.raises(ValueError, match="GENConv: aggr='softmax_sg'.*semi_grad"):
        GENConv(4, 4, aggr="softmax_sg", learn_t=True)
    with pytest.raises(ValueError, match="norm must be 'batch'"):
        GENConv(4, 4, norm="graph")
    with pytest.raises(ValueError, match="p must be non-zero"):
        GENConv(4, 4, aggr="powermean", p=0.0)
    with pytest.raises(ValueError, match="aggr_channels must be 1 or out_channels"):
        GENConv(4, 4, learn_t=True, aggr_channels=3)
    with pytest.raises(ValueError, match="aggr_channels > 1 needs a learnt"):
        GENConv(4, 4, aggr_channels=4)
    from arraygnn.nn.aggr import PowerMeanAggregation, SoftmaxAggregation

    for given in (
        SoftmaxAggregation(learn=True, channels=3),
        PowerMeanAggregation(learn=True, channels=5),
    ):
        with pytest.raises(
            ValueError, match=r"GENConv: aggr=.* has \d channels; they must be 1 or"
        ):
            GENConv(4, 4, aggr=given)
    with pytest.raises(TypeError, match="in_channels"):
        GENConv("4", 4)
    conv = GENConv(4, 6, rng=0)
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"GENConv: edge_attr must have shape \(2, 6\) \(out_"):
        conv(x, ei, np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="GENConv x_src: expected last dimension 4"):
        conv(np.ones((3, 5), np.float32), ei)
    with pytest.raises(ValueError, match="GENConv x_dst: expected last dimension 2"):
        GENConv((4, 2), 6)((x, np.ones((3, 3), np.float32)), ei)
    with pytest.raises(ValueError, match=r"GENConv: edge_index\[1\] \(targets\) has entry 7"):
        conv(x, np.array([[0, 1], [1, 7]]))
    with pytest.raises(TypeError, match="GENConv: edge_attr must hold floating-point"):
        conv(x, ei, np.ones((2, 6), np.int64))
    # an aggregation that widens the messages (not a MultiAggregation, which lin_aggr_out
    # maps back): PyG fails on the sum with x_dst; here the error names it
    from arraygnn.nn.aggr import DegreeScalerAggregation, QuantileAggregation

    for aggr, width in (
        (DegreeScalerAggregation("mean", ["identity", "linear"], np.ones(3)), 12),
        (QuantileAggregation([0.25, 0.75]), 12),
    ):
        with pytest.raises(ValueError, match=rf"GENConv: the aggregation .* gives {width} "):
            GENConv(4, 6, aggr=aggr, rng=0)(x, ei)


def test_review_cases_integer_inputs_lazy_equal_widths_and_clear_errors():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import from_dgl, from_pyg

    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, (6, 4))
    ei = np.array([[0, 1, 2, 3, 4], [5, 5, 5, 0, 1]])
    tx, tei = torch.tensor(x).float(), torch.tensor(ei)

    m = pyg_nn.GENConv(4, 4, aggr="mean").eval()  # no lin_src: integer x stays exact
    with torch.no_grad():
        want = m(tx, tei).numpy()
    np.testing.assert_allclose(from_pyg(m)(x, ei), want, rtol=1e-5, atol=1e-6)

    m = pyg_nn.GENConv(-1, 4).eval()  # lazy, measured width == out_channels
    with torch.no_grad():
        m(tx, tei)
        want = m(tx, tei).numpy()
    np.testing.assert_allclose(from_pyg(m)(x.astype(np.float32), ei), want, rtol=1e-5, atol=1e-6)

    m = pyg_nn.GENConv(4, 5, edge_dim=-1).eval()  # lazy lin_edge never run on edges
    with torch.no_grad():
        m(tx, tei)
        want = m(tx, tei).numpy()
    np.testing.assert_allclose(from_pyg(m)(x.astype(np.float32), ei), want, rtol=1e-5, atol=1e-6)

    with pytest.raises(TypeError, match="this HeteroLinear is PyG's"):
        from_dgl(pyg_nn.HeteroLinear(4, 3, 2))
    conv = GENConv(4, 4, msg_norm=True)
    with pytest.raises(ValueError, match="msg_norm scales by the targets' norms"):
        conv((x[:5].astype(np.float32), None), np.array([[0, 1], [1, 2]]), size=(5, 4))
