"""DGL parameter names and DGL semantics, against dense NumPy references.

DGL itself does not install cleanly next to torch 2.13 (its graphbolt module needs an old
torchdata), so these state dicts are written by hand following DGL's parameter names and
shapes (``GraphConv``: ``weight`` [in, out], ``bias`` [out]; ``SAGEConv``: ``fc_self.weight``,
``fc_neigh.weight`` [out, in], ``bias`` [out], ``fc_pool.weight`` / ``.bias``; ``GATConv``:
``fc.weight`` [H*F, in], ``attn_l`` / ``attn_r`` [1, H, F], ``bias`` [H*F]; ``GINConv``:
``apply_func.*``, ``eps`` [1]). The references are written from the formulas in DGL's docs.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, FakeBlock, random_graph, rel_err

import arraygnn.nn as agnn


def _dense(ei, ns, nd, w=None):
    a = np.zeros((nd, ns))
    np.add.at(a, (ei[1], ei[0]), 1.0 if w is None else w)
    return a


def _check(name, ours, ref, dtype):
    err = rel_err(ours, ref)
    print(f"{name} [{np.dtype(dtype).name}] max relative error vs dense reference: {err:.2e}")
    assert err <= TOL[dtype] * 10, f"{name}: {err:.2e}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", ["both", "right", "left", "none"])
@pytest.mark.parametrize("out", [3, 20])
def test_graph_conv_dgl_names(dtype, norm, out):
    rng = np.random.default_rng(0)
    ns = nd = 18
    ei = random_graph(rng, ns, isolated=0)
    x = rng.standard_normal((ns, 10)).astype(dtype)
    w = rng.uniform(0.5, 1.5, ei.shape[1]).astype(dtype)
    state = {"weight": rng.standard_normal((10, out)), "bias": rng.standard_normal(out)}
    conv = agnn.GraphConv(10, out, norm=norm, dtype=dtype).load_state_dict(state)
    a = _dense(ei, ns, nd, w.astype(np.float64))
    out_deg = np.maximum(np.bincount(ei[0], minlength=ns), 1).astype(float)
    in_deg = np.maximum(np.bincount(ei[1], minlength=nd), 1).astype(float)
    left = {"both": out_deg**-0.5, "left": 1 / out_deg}.get(norm, np.ones(ns))
    right = {"both": in_deg**-0.5, "right": 1 / in_deg}.get(norm, np.ones(nd))
    ref = right[:, None] * (a @ (left[:, None] * x.astype(float))) @ state["weight"] + state["bias"]
    _check(f"GraphConv(norm={norm}, out={out})", conv(x, ei, w), ref, dtype)
    # round trip through DGL names and PyG names
    again = agnn.GraphConv(10, out, norm=norm, dtype=dtype).load_state_dict(conv.state_dict())
    np.testing.assert_array_equal(again(x, ei, w), conv(x, ei, w))
    pyg_named = conv.state_dict(format="pyg")
    assert set(pyg_named) == {"lin.weight", "bias"} and pyg_named["lin.weight"].shape == (out, 10)
    again = agnn.GraphConv(10, out, norm=norm, dtype=dtype).load_state_dict(pyg_named)
    np.testing.assert_array_equal(again(x, ei, w), conv(x, ei, w))


def test_graph_conv_zero_in_degree_and_block():
    rng = np.random.default_rng(1)
    ns, nd = 14, 6
    ei = random_graph(rng, ns, nd, num_edges=30, isolated=2)
    x = rng.standard_normal((ns, 4)).astype(np.float32)
    conv = agnn.GraphConv(4, 5)
    with pytest.raises(ValueError, match="zero in-degree"):
        conv(FakeBlock(ei, ns, nd), x)
    conv = agnn.GraphConv(4, 5, allow_zero_in_degree=True)
    got = conv(FakeBlock(ei, ns, nd), x)
    assert got.shape == (nd, 5)
    np.testing.assert_allclose(got[-2:], 0.0)  # bias starts at 0, no neighbours -> 0
    np.testing.assert_allclose(got, conv((x, x[:nd]), ei), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("aggr", ["mean", "gcn", "pool"])
@pytest.mark.parametrize("out", [3, 12])
def test_sage_conv_dgl_names(dtype, aggr, out):
    rng = np.random.default_rng(2)
    ns, nd, f = 20, 8, 6
    ei = random_graph(rng, ns, nd, num_edges=40, isolated=1)
    x = rng.standard_normal((ns, f)).astype(dtype)
    bias_name = "bias" if aggr == "gcn" else "fc_self.bias"  # DGL >= 1.0's layout
    state = {"fc_neigh.weight": rng.standard_normal((out, f)), bias_name: rng.standard_normal(out)}
    if aggr != "gcn":
        state["fc_self.weight"] = rng.standard_normal((out, f))
    if aggr == "pool":
        state["fc_pool.weight"] = rng.standard_normal((f, f))
        state["fc_pool.bias"] = rng.standard_normal(f)
    conv = agnn.SAGEConv(f, out, aggr, dtype=dtype).load_state_dict(state, format="dgl")
    xs, xd = x.astype(float), x[:nd].astype(float)
    a = _dense(ei, ns, nd)
    deg = a.sum(1)
    if aggr == "mean":
        neigh = (a @ xs) / np.maximum(deg, 1)[:, None]
    elif aggr == "gcn":
        neigh = (a @ xs + xd) / (deg + 1)[:, None]
    else:
        p = np.maximum(xs @ state["fc_pool.weight"].T + state["fc_pool.bias"], 0)
        neigh = np.array([p[a[i] > 0].max(0) if deg[i] else np.zeros(f) for i in range(nd)])
    ref = neigh @ state["fc_neigh.weight"].T + state[bias_name]
    if aggr != "gcn":
        ref = ref + xd @ state["fc_self.weight"].T
    _check(f"SAGEConv DGL {aggr} out={out}", conv(FakeBlock(ei, ns, nd), x), ref, dtype)
    back = conv.state_dict(format="dgl")
    assert set(back) == set(state)
    again = agnn.SAGEConv(f, out, aggr, dtype=dtype).load_state_dict(back)  # auto-detects DGL
    np.testing.assert_array_equal(again(FakeBlock(ei, ns, nd), x), conv(FakeBlock(ei, ns, nd), x))
    legacy = dict(state)  # DGL 0.8 / 0.9: a bias-free fc_self and a separate bias
    legacy["bias"] = legacy.pop(bias_name)
    old = agnn.SAGEConv(f, out, aggr, dtype=dtype).load_state_dict(legacy, format="dgl")
    np.testing.assert_array_equal(old(FakeBlock(ei, ns, nd), x), conv(FakeBlock(ei, ns, nd), x))


def test_sage_conv_legacy_dgl_bias_in_fc_neigh():
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 10, isolated=0)
    x = rng.standard_normal((10, 4)).astype(np.float64)
    wn, ws, b = rng.standard_normal((2, 4)), rng.standard_normal((2, 4)), rng.standard_normal(2)
    old = {"fc_neigh.weight": wn, "fc_neigh.bias": b, "fc_self.weight": ws}
    new = {"fc_neigh.weight": wn, "bias": b, "fc_self.weight": ws}
    c_old = agnn.SAGEConv(4, 2, dtype=np.float64).load_state_dict(old, format="dgl")
    c_new = agnn.SAGEConv(4, 2, dtype=np.float64).load_state_dict(new, format="dgl")
    np.testing.assert_allclose(c_old(x, ei), c_new(x, ei))


def _gat_reference(ei, xs, xd, w, attn_l, attn_r, bias, heads, f, slope):
    hs = (xs @ w.T).reshape(-1, heads, f)
    hd = (xd @ w.T).reshape(-1, heads, f) if xd is not None else hs
    el, er = (hs * attn_l).sum(-1), (hd * attn_r).sum(-1)
    out = np.zeros((hd.shape[0], heads, f))
    for t in range(hd.shape[0]):
        edges = np.nonzero(ei[1] == t)[0]
        if edges.size == 0:
            continue
        e = el[ei[0, edges]] + er[t]
        e = np.where(e > 0, e, slope * e)
        a = np.exp(e - e.max(0))
        a /= a.sum(0)
        out[t] = (a[:, :, None] * hs[ei[0, edges]]).sum(0)
    return out + bias.reshape(heads, f)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("heads", [1, 3])
def test_gat_conv_dgl_names(dtype, heads):
    rng = np.random.default_rng(4)
    n, fin, f = 16, 5, 4
    ei = random_graph(rng, n, isolated=0)
    x = rng.standard_normal((n, fin)).astype(dtype)
    state = {
        "fc.weight": rng.standard_normal((heads * f, fin)),
        "attn_l": rng.standard_normal((1, heads, f)),
        "attn_r": rng.standard_normal((1, heads, f)),
        "bias": rng.standard_normal(heads * f),
    }
    conv = agnn.GATConv(fin, f, heads, concat=None, add_self_loops=False, dtype=dtype)
    conv.load_state_dict(state)  # auto: DGL names
    ref = _gat_reference(ei, x.astype(float), None, state["fc.weight"], state["attn_l"],
                         state["attn_r"], state["bias"], heads, f, 0.2)  # fmt: skip
    got = conv(x, ei)
    assert got.shape == (n, heads, f)
    _check(f"GATConv DGL heads={heads}", got, ref, dtype)
    assert set(conv.state_dict(format="dgl")) == set(state)


def test_gat_conv_dgl_bipartite_fc_src_dst():
    rng = np.random.default_rng(5)
    ns, nd, heads, f = 12, 5, 2, 3
    ei = random_graph(rng, ns, nd, num_edges=30, isolated=0)
    xs, xd = rng.standard_normal((ns, 4)), rng.standard_normal((nd, 6))
    state = {
        "fc_src.weight": rng.standard_normal((heads * f, 4)),
        "fc_dst.weight": rng.standard_normal((heads * f, 6)),
        "attn_l": rng.standard_normal((1, heads, f)),
        "attn_r": rng.standard_normal((1, heads, f)),
        "bias": rng.standard_normal(heads * f),
    }
    conv = agnn.GATConv((4, 6), f, heads, concat=None, add_self_loops=False, dtype=np.float64)
    conv.load_state_dict(state, format="dgl")
    hs = (xs @ state["fc_src.weight"].T).reshape(ns, heads, f)
    hd = (xd @ state["fc_dst.weight"].T).reshape(nd, heads, f)
    el, er = (hs * state["attn_l"]).sum(-1), (hd * state["attn_r"]).sum(-1)
    ref = np.zeros((nd, heads, f))
    for t in range(nd):
        e_ids = np.nonzero(ei[1] == t)[0]
        e = el[ei[0, e_ids]] + er[t]
        e = np.where(e > 0, e, 0.2 * e)
        a = np.exp(e - e.max(0))
        a /= a.sum(0)
        ref[t] = (a[:, :, None] * hs[ei[0, e_ids]]).sum(0)
    ref += state["bias"].reshape(heads, f)
    _check("GATConv DGL bipartite", conv((xs, xd), ei), ref, np.float64)


def test_gin_conv_dgl_names():
    rng = np.random.default_rng(6)
    ei = random_graph(rng, 12, isolated=2)
    x = rng.standard_normal((12, 4))
    mlp = agnn.Sequential(agnn.Linear(4, 8), "relu", agnn.Linear(8, 3))
    conv = agnn.GINConv(mlp, dtype=np.float64).astype(np.float64)
    state = {
        "apply_func.0.weight": rng.standard_normal((8, 4)),
        "apply_func.0.bias": rng.standard_normal(8),
        "apply_func.2.weight": rng.standard_normal((3, 8)),
        "apply_func.2.bias": rng.standard_normal(3),
        "eps": np.array([0.4]),
    }
    conv.load_state_dict(state)
    h = 1.4 * x + _dense(ei, 12, 12) @ x
    h = np.maximum(h @ state["apply_func.0.weight"].T + state["apply_func.0.bias"], 0)
    ref = h @ state["apply_func.2.weight"].T + state["apply_func.2.bias"]
    _check("GINConv DGL", conv(x, ei), ref, np.float64)
    assert set(conv.state_dict(format="dgl")) == set(state)
