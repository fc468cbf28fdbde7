"""HGTConv against PyG's (float32 within 1e-5 relative, float64 within 1e-12), on graphs with
self-loops, multi-edges, targets without edges, node types without incoming edge types,
edge types left out of the call, int32 / int64 ids; names, errors, inputs untouched."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn

META = (
    ["paper", "author", "venue"],
    [("paper", "cites", "paper"), ("author", "writes", "paper"), ("paper", "rev", "author"),
     ("paper", "in", "venue")],
)  # fmt: skip
TOL = {np.float32: 1e-5, np.float64: 1e-12}


def _inputs(rng, dtype, index_dtype, widths):
    sizes = {"paper": 9, "author": 5, "venue": 3}
    x = {t: rng.standard_normal((n, widths[t])).astype(dtype) for t, n in sizes.items()}
    ei = {}
    for s, r, d in META[1]:
        e = rng.integers(4, 15)
        ei[(s, r, d)] = np.stack(
            [rng.integers(0, sizes[s], e), rng.integers(0, sizes[d] - 1, e)]  # last: no edges
        ).astype(index_dtype)
    ei[META[1][0]][:, :2] = [[3, 3], [3, 4]]  # a self-loop and a multi-edge start
    ei[META[1][0]][:, 2] = [3, 4]
    return x, ei


def _pyg(module, x, ei):
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        out = module(
            {k: torch.from_numpy(v) for k, v in x.items()},
            {k: torch.from_numpy(v.astype(np.int64)) for k, v in ei.items()},
        )
    return {k: v.numpy() for k, v in out.items() if v is not None}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("heads", [1, 4])
@pytest.mark.parametrize("same_width", [True, False])  # the skip gate runs / does not
def test_hgt_conv_matches_pyg(dtype, index_dtype, heads, same_width):
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    widths = {"paper": 8, "author": 8 if same_width else 6, "venue": 8 if same_width else 3}
    module = pyg_nn.HGTConv(widths, 8, META, heads=heads).to(getattr(torch, np.dtype(dtype).name))
    for p in [*module.p_rel.values(), *module.skip.values()]:
        torch.nn.init.normal_(p)
    conv = agnn.from_pyg(module)
    assert sorted(conv.state_dict()) == sorted(module.state_dict())
    x, ei = _inputs(rng, dtype, index_dtype, widths)
    before = {k: v.copy() for k, v in {**x, **ei}.items()}
    ref = _pyg(module, x, ei)
    out = conv(x, ei)
    assert sorted(out) == sorted(ref)
    for t in ref:
        assert out[t].dtype == np.dtype(dtype)
        err = np.abs(out[t] - ref[t]).max() / max(np.abs(ref[t]).max(), 1e-30)
        assert err <= TOL[dtype], (t, err)
    for k, v in {**x, **ei}.items():
        np.testing.assert_array_equal(v, before[k])
    # the dict's key order does not matter (PyG's output changes when it is not metadata's)
    backwards = conv(dict(reversed(x.items())), dict(reversed(ei.items())))
    for t in out:
        np.testing.assert_allclose(backwards[t], out[t], rtol=TOL[dtype] * 10, atol=TOL[dtype])
    # an edge type left out of the call adds no edges (author then only has its gate / bias)
    partial = {k: v for k, v in ei.items() if k != META[1][2]}
    ref = _pyg(module, x, partial)
    out = conv(x, partial)
    for t in ref:
        np.testing.assert_allclose(out[t], ref[t], rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


def test_hgt_conv_without_edges_and_bad_input():
    rng = np.random.default_rng(1)
    conv = agnn.HGTConv(6, 4, META, heads=2, rng=0)
    x = {
        t: rng.standard_normal((n, 6)).astype(np.float32)
        for t, n in [("paper", 4), ("author", 2), ("venue", 1)]
    }
    empty = {et: np.zeros((2, 0), np.int64) for et in META[1]}
    out = conv(x, empty)
    assert sorted(out) == ["author", "paper", "venue"] and out["paper"].shape == (4, 4)
    # no messages: out_lin(gelu(0)) = its bias, for every node
    np.testing.assert_allclose(
        out["paper"], np.broadcast_to(conv.out_lin.lins._items["paper"].bias, (4, 4))
    )
    assert conv(x, {})["venue"].shape == (1, 4)
    ei = {META[1][0]: np.array([[0], [1]])}
    with pytest.raises(ValueError, match="not in metadata"):
        conv(x, {("paper", "likes", "paper"): np.array([[0], [1]])})
    with pytest.raises(ValueError, match=r"\[1\] \(targets\) has entry 4"):
        conv(x, {META[1][0]: np.array([[0], [4]])})
    with pytest.raises(ValueError, match="integer \\[2, E\\]"):
        conv(x, {META[1][0]: np.array([[0.0], [1.0]])})
    with pytest.raises(ValueError, match="needs features of 'author'"):
        conv({"paper": x["paper"]}, {META[1][1]: np.array([[0], [1]])})
    with pytest.raises(ValueError, match="divisible by heads"):
        agnn.HGTConv(6, 5, META, heads=2)
    with pytest.raises(ValueError, match="node types from"):
        agnn.HGTConv(6, 4, (["a"], [("a", "r", "b")]))
    with pytest.raises(TypeError, match="two dicts"):
        conv(x["paper"], ei)


def test_hgt_conv_cupy_matches_numpy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no GPU")
    rng = np.random.default_rng(2)
    conv = agnn.HGTConv(8, 8, META, heads=2, rng=0)
    x, ei = _inputs(rng, np.float32, np.int64, {"paper": 8, "author": 8, "venue": 8})
    expected = conv(x, ei)
    conv.to("cuda")
    got = conv({k: cp.asarray(v) for k, v in x.items()}, {k: cp.asarray(v) for k, v in ei.items()})
    for t in expected:
        np.testing.assert_allclose(cp.asnumpy(got[t]), expected[t], rtol=1e-4, atol=1e-5)
