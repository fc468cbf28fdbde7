"""Typed linear layers: PyG's HeteroLinear / HeteroDictLinear (parity with PyG where it is
installed) and DGL's TypedLinear called as DGL's forward (checked against DGL's forward
written out in torch: DGL does not install here); both computation paths (a BLAS product
per type for sorted rows, one gather_mm pass otherwise) on the same cases."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import dgl_typed_linear

import arraygnn.nn as agnn

TOL = {np.float32: 1e-5, np.float64: 1e-12}


def _rel(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("bias", [True, False])
def test_hetero_linear_matches_pyg(dtype, index_dtype, bias):
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 8)).astype(dtype)
    types = rng.integers(0, 5, 40).astype(index_dtype)
    types[types == 3] = 4  # a type without rows
    module = pyg_nn.HeteroLinear(8, 6, 5, bias=bias).to(getattr(torch, np.dtype(dtype).name))
    if bias:
        torch.nn.init.normal_(module.bias)
    lin = agnn.from_pyg(module)
    before = (x.copy(), types.copy())
    for t in (types, np.sort(types)):  # unsorted: gather_mm; sorted: one product per type
        with torch.no_grad():
            ref = module(torch.from_numpy(x), torch.from_numpy(t.astype(np.int64))).numpy()
        out = lin(x, t)
        assert out.dtype == np.dtype(dtype) and _rel(out, ref) <= TOL[dtype]
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(types, before[1])
    sorted_lin = agnn.HeteroLinear(8, 6, 5, is_sorted=True, bias=bias, dtype=dtype)
    sorted_lin.load_state_dict(module.state_dict())
    np.testing.assert_allclose(
        sorted_lin(x, np.sort(types)), lin(x, np.sort(types)), rtol=TOL[dtype], atol=TOL[dtype]
    )
    assert lin(x[:0], types[:0]).shape == (0, 6)


def test_hetero_linear_paths_agree_and_bad_input_is_named():
    rng = np.random.default_rng(1)
    lin = agnn.HeteroLinear(4, 3, 3, rng=0, dtype=np.float64)
    lin.bias = rng.standard_normal((3, 3))
    x = rng.standard_normal((20, 4))
    t = rng.integers(0, 3, 20)
    expected = np.einsum("nk,nko->no", x, lin.weight[t]) + lin.bias[t]
    np.testing.assert_allclose(lin(x, t), expected, rtol=1e-12, atol=1e-12)
    order = np.argsort(t, kind="stable")
    np.testing.assert_allclose(lin(x[order], t[order]), expected[order], rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="type vector has entry 3"):
        lin(x, np.full(20, 3))
    with pytest.raises(ValueError, match="type vector"):
        lin(x, -np.ones(20, np.int64))
    with pytest.raises(ValueError, match=r"shape \(20,\), one type per row"):
        lin(x, t[:5])
    with pytest.raises(TypeError, match="integer array"):
        lin(x, t.astype(np.float64))
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="integer array, got Tensor"):
        lin(x, torch.from_numpy(t))
    with pytest.raises(ValueError, match="expected last dimension 4"):
        lin(x[:, :3], t)
    with pytest.raises(ValueError, match="is_sorted=True but the type vector is not sorted"):
        agnn.HeteroLinear(4, 3, 3, is_sorted=True, rng=0)(
            x.astype(np.float32), np.array([2, 1] + [0] * 18)
        )


def test_hetero_dict_linear_matches_pyg():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    torch.manual_seed(2)
    rng = np.random.default_rng(2)
    module = pyg_nn.HeteroDictLinear({"paper": 8, "author": 3}, 5)
    lin = agnn.from_pyg(module)
    assert sorted(lin.state_dict()) == sorted(module.state_dict())
    x = {
        "paper": rng.standard_normal((7, 8)).astype(np.float32),
        "author": rng.standard_normal((4, 3)).astype(np.float32),
        "venue": rng.standard_normal((2, 6)).astype(np.float32),  # no layer: left out
    }
    with torch.no_grad():
        ref = module({k: torch.from_numpy(v) for k, v in x.items() if k != "venue"})
    out = lin(x)
    assert sorted(out) == ["author", "paper"]
    for key in out:
        assert _rel(out[key], ref[key].numpy()) <= 1e-5
    same = agnn.HeteroDictLinear(4, 2, types=["a", "b"], bias=False, rng=0)
    assert sorted(same.state_dict()) == ["lins.a.weight", "lins.b.weight"]
    with pytest.raises(ValueError, match="types is required"):
        agnn.HeteroDictLinear(4, 2)
    with pytest.raises(ValueError, match="do not match the keys of in_channels"):
        agnn.HeteroDictLinear({"a": 4}, 2, types=["a", "b"])
    with pytest.raises(ValueError, match="do not match the keys of in_channels"):
        agnn.HeteroDictLinear({"a": 4, "b": 3}, 2, types=["a"])  # PyG refuses it too
    assert list(same({"b": np.ones((1, 4)), "a": np.ones((2, 4))})) == ["a", "b"]  # PyG order
    with pytest.raises(ValueError, match="without dots"):
        agnn.HeteroDictLinear(4, 2, types=["a.b"])
    with pytest.raises(TypeError, match="x_dict must be a dict"):
        same([np.ones((2, 4))])


def _dgl_typed_linear(torch_module, x, x_type, sorted_by_type=False):
    """DGL's TypedLinear.forward, written out in torch (DGL 1.x)."""
    import torch

    m = torch_module
    x, x_type = torch.from_numpy(x), torch.from_numpy(x_type.astype(np.int64))
    if m.regularizer == "bdd":
        si, so = m.in_size // m.num_bases, m.out_size // m.num_bases
        w = m.W.index_select(0, x_type).view(-1, si, so)
        return torch.bmm(x.view(-1, 1, si), w).view(-1, m.out_size)
    if m.regularizer == "basis":
        w = (m.coeff @ m.W.view(m.num_bases, -1)).view(m.num_types, m.in_size, m.out_size)
    else:
        w = m.W
    return torch.bmm(x.unsqueeze(1), w[x_type]).squeeze(1)


@pytest.mark.parametrize("regularizer", [None, "basis", "bdd"])
def test_typed_linear_matches_dgl_forward(regularizer):
    torch = pytest.importorskip("torch")

    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    module = dgl_typed_linear(torch, 8, 6, 4, regularizer, 2)
    lin = agnn.from_dgl(module)
    x = rng.standard_normal((25, 8)).astype(np.float32)
    x_type = rng.integers(0, 4, 25).astype(np.int32)
    with torch.no_grad():
        ref = _dgl_typed_linear(module, x, x_type).numpy()
    assert _rel(lin(x, x_type), ref) <= 1e-5
    order = np.argsort(x_type, kind="stable")
    out_sorted = lin(x[order], x_type[order], sorted_by_type=True)
    assert _rel(out_sorted, ref[order]) <= 1e-5
    assert lin(x[:0], x_type[:0]).shape == (0, 6)
    with pytest.raises(ValueError, match="type vector has entry 4"):
        lin(x, np.full(25, 4))
    assert sorted(lin.state_dict(format="dgl")) == sorted(module.state_dict())
