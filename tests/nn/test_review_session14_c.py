"""Review of ca83ffd (more activations, PReLU) and 9251d79 (call-form refusals)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn
import arraygnn.nn as nn
from arraygnn.nn.linear import resolve_act

EI = np.array([[0, 1, 2, 3, 0], [1, 2, 3, 0, 0]])


@pytest.mark.parametrize(
    ("name", "kwargs", "x", "expected"),
    [
        # exp(12) overflows float16; torch computes half in float32 and rounds once
        ("softplus", {}, [12.0, 15.0], [12.0, 15.0]),
        ("hardswish", {}, [60000.0], [60000.0]),  # x * 6 overflows float16
        ("gelu", {"approximate": "tanh"}, [-2.678], [-0.00945]),  # 3% off in float16 steps
    ],
)
def test_float16_activations_round_once_as_torch(name, kwargs, x, expected):
    out = resolve_act("t", name, kwargs)(np.array(x, np.float16))
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=2e-3)


def test_float16_activations_match_torch():
    torch = pytest.importorskip("torch")
    x = np.linspace(-14, 14, 281).astype(np.float16)
    for name, module in [
        ("softplus", torch.nn.Softplus()),
        ("mish", torch.nn.Mish()),
        ("selu", torch.nn.SELU()),
        ("logsigmoid", torch.nn.LogSigmoid()),
        ("hardswish", torch.nn.Hardswish()),
    ]:
        ref = module(torch.from_numpy(x)).numpy()
        out = nn.linear.get_activation(name)(x)
        assert out.dtype == np.float16
        np.testing.assert_array_equal(out, ref, err_msg=name)


def test_resolver_takes_torchs_inplace_keyword():
    """PyG's activation_resolver passes act_kwargs to torch's class: ``inplace`` is one of
    ReLU / LeakyReLU / ELU / ... 's arguments (no effect on the values)."""
    x = np.array([-2.0, 3.0])
    assert resolve_act("MLP", "relu", {"inplace": True})(x).tolist() == [0.0, 3.0]
    f = resolve_act("MLP", "leaky_relu", {"negative_slope": 0.5, "inplace": False})
    assert f(x).tolist() == [-1.0, 3.0]
    assert x.tolist() == [-2.0, 3.0]
    with pytest.raises(ValueError, match="softplus takes"):  # Softplus has no inplace
        resolve_act("MLP", "softplus", {"inplace": True})
    nn.MLP([2, 3, 1], act="elu", act_kwargs={"alpha": 0.5, "inplace": True})


@pytest.mark.parametrize("make", [lambda: nn.GCN2Conv(3, alpha=0.1, rng=0), lambda: nn.FAConv(3)])
def test_x_x0_layers_with_a_graph_as_edge_index_say_how_to_call(make):
    """conv(x, x_0, g) advised layer(graph, feat), a form these layers now refuse."""
    conv = make()
    x = np.ones((4, 3), np.float32)
    g = arraygnn.graph((EI[0], EI[1]), num_nodes=4)
    name = type(conv).__name__
    with pytest.raises(TypeError, match=rf"{name}: call as conv\(x, x_0, edge_index\)"):
        conv(x, x, g)


def test_dmon_selu_is_the_shared_torch_selu():
    """dense_pool kept its own selu (constants rounded separately: 3 ulps off torch.selu)."""
    torch = pytest.importorskip("torch")
    from arraygnn.nn.dense_pool import _selu

    x = np.random.default_rng(0).normal(0, 3, 20000).astype(np.float32)
    ref = torch.selu(torch.from_numpy(x)).numpy()
    ulps = np.abs(_selu(x) - ref) / np.spacing(np.abs(ref)).clip(np.finfo(np.float32).tiny)
    assert ulps.max() <= 2
