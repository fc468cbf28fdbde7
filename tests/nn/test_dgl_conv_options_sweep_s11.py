"""Parity sweep of the DGL-style layers of ``arraygnn.nn`` against DGL's own forwards.

DGL does not install next to torch 2.13, so each reference below is a plain NumPy
re-derivation of the ``forward`` in dmlc/dgl ``python/dgl/nn/pytorch/conv/*.py`` and
``glob.py`` (read, not copied), for the option it exercises. Weights are made as DGL
names and shapes them (``fc.weight`` ``(H*F, in)``, ``attn_l`` ``(1, H, F)``,
``linear_r.W``, ...) and loaded with ``load_state_dict(..., format='dgl')`` (strict); the
layer's ``state_dict(format='dgl')`` must give back exactly those keys and shapes.
Graphs hold a self-loop, parallel edges, a node without in-edges and an isolated node.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.graph import batch, graph, heterograph, in_subgraph, to_block

N = 7
# (0, 1) twice, a self-loop on 2, node 5 has no in-edge, node 6 no edge at all
SRC = np.array([0, 0, 1, 2, 3, 4, 5, 2, 1, 4])
DST = np.array([1, 1, 2, 2, 0, 3, 4, 3, 4, 2])
# the same plus one in-edge into 5 and 6 each: every node has an in-edge
SRC_FULL = np.concatenate([SRC, [6, 0]])
DST_FULL = np.concatenate([DST, [5, 6]])


def _rng(seed=0):
    return np.random.default_rng(seed)


def _w(rng, *shape):
    return rng.standard_normal(shape) * 0.5


# ---- the graphs, as (call argument for the layer, reference structure) ----------------------


class Case:
    """A graph input: ``graph`` for the layer, and the edges, sizes and features DGL's
    forward sees (``x_src`` / ``x_dst``, the latter ``None`` when DGL reads ``feat`` for
    both sides)."""

    def __init__(self, g, src, dst, n_src, n_dst, x_src, x_dst, feat, pair=False):
        self.g, self.src, self.dst, self.n_src, self.n_dst = g, src, dst, n_src, n_dst
        self.x_src, self.x_dst, self.feat, self.pair = x_src, x_dst, feat, pair


def _case(kind, in_src=5, in_dst=None, full=True, seed=1):
    rng = _rng(seed)
    in_dst = in_src if in_dst is None else in_dst
    src, dst = (SRC_FULL, DST_FULL) if full else (SRC, DST)
    if kind == "graph":
        x = rng.standard_normal((N, in_src)).astype(np.float64)
        return Case(graph((src, dst), num_nodes=N), src, dst, N, N, x, x, x)
    if kind == "block":  # DGL's block: dst nodes first among the sources, feat[:num_dst]
        g = graph((src, dst), num_nodes=N)
        b = to_block(in_subgraph(g, np.array([1, 2, 3, 4])), np.array([1, 2, 3, 4]))
        u, v = b.edges()
        x = rng.standard_normal((b.num_src_nodes(), in_src))
        return Case(b, u, v, b.num_src_nodes(), b.num_dst_nodes(), x, x[: b.num_dst_nodes()], x)
    if kind == "pair":  # a bipartite graph with (feat_src, feat_dst)
        u = np.array([0, 1, 2, 3, 3, 4, 0, 4])
        v = np.array([0, 0, 1, 2, 2, 3, 3, 1])
        g = heterograph({("u", "e", "v"): (u, v)}, num_nodes_dict={"u": 5, "v": 4})
        xs, xd = rng.standard_normal((5, in_src)), rng.standard_normal((4, in_dst))
        return Case(g, u, v, 5, 4, xs, xd, (xs, xd), pair=True)
    if kind == "empty":  # no edges at all
        x = rng.standard_normal((4, in_src))
        e = np.array([], np.int64)
        return Case(graph((e, e), num_nodes=4), e, e, 4, 4, x, x, x)
    raise AssertionError(kind)


def _edge_weight(case, seed=3):
    return _rng(seed).uniform(0.2, 1.5, len(case.src))


# ---- DGL's graph operations in NumPy ---------------------------------------------------------


def _reduce(dst, n_dst, msg, how="sum"):
    """``update_all(..., fn.<how>)``: 0 where a node has no in-edge (DGL's rule)."""
    out = np.zeros((n_dst,) + msg.shape[1:])
    cnt = np.bincount(dst, minlength=n_dst).reshape((-1,) + (1,) * (msg.ndim - 1))
    if how in ("sum", "mean"):
        np.add.at(out, dst, msg)
        return out / np.maximum(cnt, 1) if how == "mean" else out
    out[:] = -np.inf
    np.maximum.at(out, dst, msg)
    return np.where(cnt > 0, out, 0.0)


def _edge_softmax(dst, n_dst, e):
    m = np.full((n_dst,) + e.shape[1:], -np.inf)
    np.maximum.at(m, dst, e)
    ex = np.exp(e - m[dst])
    s = np.zeros_like(m)
    np.add.at(s, dst, ex)
    return ex / s[dst]


def _degs(idx, n):
    return np.bincount(idx, minlength=n).astype(np.float64)


def _lin(x, sd, name):
    out = x @ sd[f"{name}.weight"].T
    return out + sd[f"{name}.bias"] if f"{name}.bias" in sd else out


def _leaky(x, slope):
    return np.where(x > 0, x, slope * x)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm_layer(xs, h, c, sd, prefix, layer=0):
    """torch's LSTM layer over time steps ``xs`` [T, B, in] (gates i, f, g, o)."""
    wih, whh = sd[f"{prefix}.weight_ih_l{layer}"], sd[f"{prefix}.weight_hh_l{layer}"]
    b = sd[f"{prefix}.bias_ih_l{layer}"] + sd[f"{prefix}.bias_hh_l{layer}"]
    outs = []
    for x in xs:
        i, f, g, o = np.split(x @ wih.T + h @ whh.T + b, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs), h, c


def _lstm_sd(rng, prefix, n_in, hidden, layers=1):
    sd = {}
    for k in range(layers):
        width = n_in if k == 0 else hidden
        sd[f"{prefix}.weight_ih_l{k}"] = _w(rng, 4 * hidden, width)
        sd[f"{prefix}.weight_hh_l{k}"] = _w(rng, 4 * hidden, hidden)
        sd[f"{prefix}.bias_ih_l{k}"] = _w(rng, 4 * hidden)
        sd[f"{prefix}.bias_hh_l{k}"] = _w(rng, 4 * hidden)
    return sd


def _load(layer, sd):
    """Load DGL's state dict strictly; the layer must name its weights exactly as DGL."""
    layer = layer.astype(np.float64) if layer.dtype is not None else layer
    layer.load_state_dict(sd, format="dgl")
    back = layer.state_dict(format="dgl")
    assert {k: tuple(v.shape) for k, v in back.items()} == {
        k: tuple(np.shape(v)) for k, v in sd.items()
    }
    for k, v in sd.items():
        np.testing.assert_array_equal(back[k], v)
    return layer


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-10)


def _call_feat(case):
    return case.feat


# ---- GraphConv -------------------------------------------------------------------------------


def _ref_graph_conv(case, sd, norm, weight, edge_weight, act=None):
    h = case.x_src
    if norm in ("left", "both"):
        d = np.maximum(_degs(case.src, case.n_src), 1)
        h = h * (d**-0.5 if norm == "both" else 1 / d)[:, None]
    m = h[case.src] * (edge_weight[:, None] if edge_weight is not None else 1)
    out = _reduce(case.dst, case.n_dst, m)
    if weight is not None:
        out = out @ weight
    if norm in ("right", "both"):
        d = np.maximum(_degs(case.dst, case.n_dst), 1)
        out = out * (d**-0.5 if norm == "both" else 1 / d)[:, None]
    if "bias" in sd:
        out = out + sd["bias"]
    return act(out) if act is not None else out


@pytest.mark.parametrize("norm", ["both", "right", "left", "none"])
@pytest.mark.parametrize("kind", ["graph", "block", "pair", "empty"])
@pytest.mark.parametrize("out", [3, 8])  # projection after / before the aggregation
def test_graph_conv(norm, kind, out):
    case = _case(kind)
    rng = _rng(2)
    sd = {"weight": _w(rng, 5, out), "bias": _w(rng, out)}
    conv = agnn.GraphConv(5, out, norm=norm, activation="relu")
    conv.allow_zero_in_degree = kind == "empty"
    conv = _load(conv, sd)
    ew = _edge_weight(case) if out == 3 else None
    got = conv(case.g, _call_feat(case), ew)
    _close(got, _ref_graph_conv(case, sd, norm, sd["weight"], ew, lambda x: np.maximum(x, 0)))


@pytest.mark.parametrize("out", [3, 5, 8])
def test_graph_conv_external_weight_and_no_bias(out):
    case = _case("graph")
    w = _w(_rng(4), 5, out)
    conv = _load(agnn.GraphConv(5, out, norm="both", weight=False, bias=False), {})
    ew = _edge_weight(case)
    _close(conv(case.g, case.feat, ew, weight=w), _ref_graph_conv(case, {}, "both", w, ew))
    if out == 5:  # DGL: weight=False and no external weight aggregates only
        _close(conv(case.g, case.feat), _ref_graph_conv(case, {}, "both", None, None))
    own = agnn.GraphConv(5, out)
    with pytest.raises(ValueError, match="external weight"):
        own(case.g, case.feat, weight=w)  # DGL: DGLError, the layer has its own weight


@pytest.mark.parametrize(
    "make",
    [
        lambda: agnn.GraphConv(5, 3),
        lambda: agnn.GATConv(5, 3, 2, concat=None, add_self_loops=False),
        lambda: agnn.GATv2Conv(5, 3, 2, concat=None, add_self_loops=False),
        lambda: agnn.DotGatConv(5, 3, 2),
    ],
    ids=["GraphConv", "GATConv", "GATv2Conv", "DotGatConv"],
)
def test_zero_in_degree_raises_as_dgl(make):
    """DGL raises on a destination node without in-edges unless allow_zero_in_degree."""
    case = _case("graph", full=False)
    with pytest.raises(ValueError, match="in-degree"):
        make()(case.g, case.feat)
    layer = make()
    layer.allow_zero_in_degree = True
    out = layer(case.g, case.feat)
    assert np.all(np.isfinite(out))


# ---- SAGEConv --------------------------------------------------------------------------------


def _ref_sage(case, sd, aggr, edge_weight, act, norm):
    xs, xd = case.x_src, case.x_dst
    w = edge_weight[:, None] if edge_weight is not None else 1.0
    if aggr == "mean":
        neigh = _lin(_reduce(case.dst, case.n_dst, xs[case.src] * w, "mean"), sd, "fc_neigh")
    elif aggr == "gcn":
        summed = _reduce(case.dst, case.n_dst, xs[case.src] * w)
        deg = _degs(case.dst, case.n_dst)[:, None]
        neigh = _lin((summed + xd) / (deg + 1), sd, "fc_neigh")
    elif aggr == "pool":
        h = np.maximum(_lin(xs, sd, "fc_pool"), 0)
        neigh = _lin(_reduce(case.dst, case.n_dst, h[case.src] * w, "max"), sd, "fc_neigh")
    else:  # lstm: each node's messages in edge-id order, the last hidden state
        hidden = xs.shape[1]
        agg = np.zeros((case.n_dst, hidden))
        for v in range(case.n_dst):
            eids = np.flatnonzero(case.dst == v)
            if len(eids):
                seq = (xs[case.src] * w)[eids][:, None, :]
                zeros = np.zeros((1, hidden))
                _, agg[v], _ = _lstm_layer(seq, zeros, zeros, sd, "lstm")
        neigh = _lin(agg, sd, "fc_neigh")
    out = neigh + sd["bias"] if aggr == "gcn" and "bias" in sd else neigh
    if aggr != "gcn":
        out = out + _lin(xd, sd, "fc_self")
    out = act(out) if act is not None else out
    return norm(out) if norm is not None else out


@pytest.mark.parametrize("aggr", ["mean", "gcn", "pool", "lstm"])
@pytest.mark.parametrize("kind", ["graph", "block", "pair", "empty"])
@pytest.mark.parametrize("bias", [True, False])
def test_sage_conv(aggr, kind, bias):
    in_dst = 5 if aggr == "gcn" else 4
    case = _case(kind, in_src=5, in_dst=in_dst)
    in_feats = (5, in_dst) if kind == "pair" else 5
    out = 3 if bias else 8  # DGL projects first when in_src > out (mean / gcn)
    rng = _rng(5)
    sd = {"fc_neigh.weight": _w(rng, out, 5)}
    if aggr == "pool":
        sd.update({"fc_pool.weight": _w(rng, 5, 5), "fc_pool.bias": _w(rng, 5)})
    if aggr == "lstm":
        sd.update(_lstm_sd(rng, "lstm", 5, 5))
    if aggr != "gcn":
        sd["fc_self.weight"] = _w(rng, out, in_feats[1] if kind == "pair" else 5)
        if bias:
            sd["fc_self.bias"] = _w(rng, out)
    elif bias:
        sd["bias"] = _w(rng, out)
    norm = (lambda x: 2.0 * x - 1.0) if bias else None  # DGL applies norm after activation
    conv = agnn.SAGEConv(in_feats, out, aggr, bias=bias, activation="tanh", norm=norm)
    conv = _load(conv, sd)
    ew = _edge_weight(case) if bias else None
    got = conv(case.g, _call_feat(case), ew)
    _close(got, _ref_sage(case, sd, aggr, ew, np.tanh, norm))


# ---- GATConv / GATv2Conv / DotGatConv --------------------------------------------------------


def _ref_gat(case, sd, heads, f, slope, edge_weight, residual, act=None):
    pre = "fc" if "fc.weight" in sd else None
    hs = case.x_src @ sd[f"{pre or 'fc_src'}.weight"].T
    hd = case.x_dst @ sd[f"{pre or 'fc_dst'}.weight"].T
    fs, fd = hs.reshape(-1, heads, f), hd.reshape(-1, heads, f)
    el = (fs * sd["attn_l"]).sum(-1)
    er = (fd * sd["attn_r"]).sum(-1)
    a = _edge_softmax(case.dst, case.n_dst, _leaky(el[case.src] + er[case.dst], slope))
    if edge_weight is not None:
        a = a * edge_weight[:, None]
    out = _reduce(case.dst, case.n_dst, fs[case.src] * a[:, :, None])
    if residual == "linear":
        out = out + _lin(case.x_dst, sd, "res_fc").reshape(-1, heads, f)
    elif residual == "identity":
        out = out + case.x_dst.reshape(-1, heads, f)
    if "bias" in sd:
        out = out + sd["bias"].reshape(heads, f)
    out = act(out) if act is not None else out
    return out, a[:, :, None]


@pytest.mark.parametrize("kind", ["graph", "block", "pair", "pair-shared-fc"])
@pytest.mark.parametrize("residual", [False, "linear", "identity"])
@pytest.mark.parametrize("bias", [True, False])
def test_gat_conv(kind, residual, bias):
    heads, f = 2, 3
    in_feat = 6 if residual == "identity" else 5  # DGL: identity when in_dst == heads * out
    if kind == "pair":
        case = _case("pair", in_src=4, in_dst=in_feat)
    else:  # "pair-shared-fc": DGL's int in_feats with a feature pair, one fc for both
        case = _case(kind.split("-")[0], in_src=in_feat, in_dst=in_feat)
    in_src = case.x_src.shape[1]
    rng = _rng(6)
    sd = {"attn_l": _w(rng, 1, heads, f), "attn_r": _w(rng, 1, heads, f)}
    if kind == "pair":
        sd["fc_src.weight"] = _w(rng, heads * f, in_src)
        sd["fc_dst.weight"] = _w(rng, heads * f, in_feat)
        in_feats = (in_src, in_feat)
    else:
        sd["fc.weight"] = _w(rng, heads * f, in_src)
        in_feats = in_src
    if residual == "linear":
        sd["res_fc.weight"] = _w(rng, heads * f, case.x_dst.shape[1])
        if bias:
            sd["res_fc.bias"] = _w(rng, heads * f)
    elif bias:
        sd["bias"] = _w(rng, heads * f)
    res = {False: False, "linear": True, "identity": "identity"}[residual]
    conv = agnn.GATConv(
        in_feats, f, heads, concat=None, negative_slope=0.15, add_self_loops=False,
        bias=bias, residual=res, activation="elu", allow_zero_in_degree=kind != "graph",
    )  # fmt: skip
    conv = _load(conv, sd)
    ew = _edge_weight(case) if bias else None
    got, att = conv(case.g, _call_feat(case), edge_weight=ew, get_attention=True)
    elu = lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))  # noqa: E731
    want, want_att = _ref_gat(case, sd, heads, f, 0.15, ew, residual, elu)
    _close(got, want)
    _close(att, want_att)


def _ref_gatv2(case, sd, heads, f, share, residual):
    fs = _lin(case.x_src, sd, "fc_src").reshape(-1, heads, f)
    fd = _lin(case.x_dst, sd, "fc_src" if share else "fc_dst").reshape(-1, heads, f)
    e = (_leaky(fs[case.src] + fd[case.dst], 0.2) * sd["attn"]).sum(-1)
    a = _edge_softmax(case.dst, case.n_dst, e)
    out = _reduce(case.dst, case.n_dst, fs[case.src] * a[:, :, None])
    if residual == "linear":
        out = out + _lin(case.x_dst, sd, "res_fc").reshape(-1, heads, f)
    elif residual == "identity":
        out = out + case.x_dst.reshape(-1, heads, f)
    return out, a[:, :, None]


# DGL shares fc_src / fc_dst only for an int in_feats (no pair)
@pytest.mark.parametrize(
    "kind,share", [("graph", False), ("graph", True), ("block", False), ("block", True),
                   ("pair", False)]
)  # fmt: skip
@pytest.mark.parametrize("residual,bias", [(False, True), ("linear", True), ("linear", False),
                                           ("identity", True)])  # fmt: skip
def test_gatv2_conv(kind, share, residual, bias):
    heads, f = 2, 3
    in_feat = 6 if residual == "identity" else 5
    case = _case(kind, in_src=in_feat, in_dst=in_feat)
    rng = _rng(7)
    sd = {"attn": _w(rng, 1, heads, f), "fc_src.weight": _w(rng, heads * f, in_feat)}
    if bias:
        sd["fc_src.bias"] = _w(rng, heads * f)
    if share:  # torch's state dict lists the shared module under both names
        sd["fc_dst.weight"] = sd["fc_src.weight"]
        if bias:
            sd["fc_dst.bias"] = sd["fc_src.bias"]
    else:
        sd["fc_dst.weight"] = _w(rng, heads * f, in_feat)
        if bias:
            sd["fc_dst.bias"] = _w(rng, heads * f)
    if residual == "linear":
        sd["res_fc.weight"] = _w(rng, heads * f, in_feat)
        if bias:
            sd["res_fc.bias"] = _w(rng, heads * f)
    res = {False: False, "linear": True, "identity": "identity"}[residual]
    conv = agnn.GATv2Conv(
        (in_feat, in_feat) if kind == "pair" else in_feat, f, heads, concat=None,
        add_self_loops=False, bias=residual == "linear" and bias, share_weights=share,
        residual=res, lin_bias=bias, allow_zero_in_degree=True,
    )  # fmt: skip
    conv = _load(conv, sd)
    got, att = conv(case.g, _call_feat(case), get_attention=True)
    want, want_att = _ref_gatv2(case, sd, heads, f, share, residual)
    _close(got, want)
    _close(att, want_att)


@pytest.mark.parametrize("kind", ["graph", "block", "pair"])
def test_dot_gat_conv(kind):
    heads, f = 2, 3
    case = _case(kind, in_src=5, in_dst=4)
    rng = _rng(8)
    if kind == "pair":
        sd = {"fc_src.weight": _w(rng, heads * f, 5), "fc_dst.weight": _w(rng, heads * f, 4)}
        fs = (case.x_src @ sd["fc_src.weight"].T).reshape(-1, heads, f)
        fd = (case.x_dst @ sd["fc_dst.weight"].T).reshape(-1, heads, f)
    else:
        sd = {"fc.weight": _w(rng, heads * f, 5)}
        fs = (case.x_src @ sd["fc.weight"].T).reshape(-1, heads, f)
        fd = fs[: case.n_dst]
    conv = _load(agnn.DotGatConv((5, 4) if kind == "pair" else 5, f, heads, True), sd)
    got, att = conv(case.g, _call_feat(case), get_attention=True)
    e = (fs[case.src] * fd[case.dst]).sum(-1, keepdims=True) / f**0.5
    a = _edge_softmax(case.dst, case.n_dst, e)
    _close(got, _reduce(case.dst, case.n_dst, fs[case.src] * a))
    _close(att, a)


@pytest.mark.parametrize("kind", ["graph", "block", "pair"])
def test_agnn_conv(kind):
    case = _case(kind, in_src=5, in_dst=5)
    conv = _load(agnn.AGNNConv(0.7, learn_beta=False, allow_zero_in_degree=True), {
        "beta": np.array([1.3])})  # fmt: skip

    def unit(x):
        return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)

    cos = (unit(case.x_src)[case.src] * unit(case.x_dst)[case.dst]).sum(-1, keepdims=True)
    p = _edge_softmax(case.dst, case.n_dst, 1.3 * cos)
    _close(conv(case.g, _call_feat(case)), _reduce(case.dst, case.n_dst, case.x_src[case.src] * p))


@pytest.mark.parametrize("kind", ["graph", "pair"])
@pytest.mark.parametrize("bias", [True, False])
def test_egat_conv(kind, bias):
    heads, fn_, fe = 2, 3, 4
    case = _case(kind, in_src=5, in_dst=4)
    rng = _rng(9)
    efeat = rng.standard_normal((len(case.src), 2))
    in_dst = 4 if kind == "pair" else 5
    sd = {
        "fc_node_src.weight": _w(rng, heads * fn_, 5),
        "fc_ni.weight": _w(rng, heads * fe, 5),
        "fc_nj.weight": _w(rng, heads * fe, in_dst),
        "fc_fij.weight": _w(rng, heads * fe, 2),
        "attn": _w(rng, 1, heads, fe),
    }
    if bias:
        sd["bias"] = _w(rng, heads * fe)
    in_node = (5, 4) if kind == "pair" else 5
    conv = _load(agnn.EGATConv(in_node, 2, fn_, fe, heads, bias=bias), sd)
    ew = _edge_weight(case)
    h, f_out, att = conv(case.g, _call_feat(case), efeat, edge_weight=ew, get_attention=True)
    f_e = (case.x_src @ sd["fc_ni.weight"].T)[case.src] + (case.x_dst @ sd["fc_nj.weight"].T)[
        case.dst
    ]
    f_e = f_e + efeat @ sd["fc_fij.weight"].T + sd.get("bias", 0.0)
    f_e = _leaky(f_e, 0.01).reshape(-1, heads, fe)
    a = _edge_softmax(case.dst, case.n_dst, (f_e * sd["attn"]).sum(-1, keepdims=True))
    a = a * ew[:, None, None]
    h_src = (case.x_src @ sd["fc_node_src.weight"].T).reshape(-1, heads, fn_)
    _close(h, _reduce(case.dst, case.n_dst, h_src[case.src] * a))
    _close(f_out, f_e)
    _close(att, a)


# ---- GINConv ---------------------------------------------------------------------------------


@pytest.mark.parametrize("aggr", ["sum", "max", "mean"])
@pytest.mark.parametrize("kind", ["graph", "block", "pair", "empty"])
@pytest.mark.parametrize("apply_func", [True, False])
def test_gin_conv(aggr, kind, apply_func):
    case = _case(kind, in_src=5, in_dst=5)
    rng = _rng(10)
    sd = {"eps": np.array([0.3])}
    inner = None
    if apply_func:
        sd.update({"apply_func.weight": _w(rng, 3, 5), "apply_func.bias": _w(rng, 3)})
        inner = agnn.Linear(5, 3)
    conv = _load(agnn.GINConv(inner, 0.0, aggr, activation="relu"), sd)
    ew = _edge_weight(case) if apply_func else None
    got = conv(case.g, _call_feat(case), ew)
    w = ew[:, None] if ew is not None else 1.0
    rst = (1 + 0.3) * case.x_dst + _reduce(case.dst, case.n_dst, case.x_src[case.src] * w, aggr)
    rst = _lin(rst, sd, "apply_func") if apply_func else rst
    _close(got, np.maximum(rst, 0))


# ---- RelGraphConv ----------------------------------------------------------------------------


def _typed_weight(sd, reg, n_types, n_in, n_out, nb):
    if reg is None:
        return sd["linear_r.W"]
    if reg == "basis":
        return (sd["linear_r.coeff"] @ sd["linear_r.W"].reshape(nb, -1)).reshape(
            n_types, n_in, n_out
        )
    si, so = n_in // nb, n_out // nb  # bdd: block-diagonal
    w = np.zeros((n_types, n_in, n_out))
    blocks = sd["linear_r.W"].reshape(n_types, nb, si, so)
    for b in range(nb):
        w[:, b * si : (b + 1) * si, b * so : (b + 1) * so] = blocks[:, b]
    return w


@pytest.mark.parametrize("reg,num_bases", [(None, None), ("basis", 2), ("basis", None), ("bdd", 2)])
@pytest.mark.parametrize("self_loop,bias,layer_norm", [(True, True, True), (False, False, False)])
@pytest.mark.parametrize("kind", ["graph", "block"])
def test_rel_graph_conv(reg, num_bases, self_loop, bias, layer_norm, kind):
    n_in, n_out, n_types = 4, 6, 3
    case = _case(kind, in_src=n_in)
    rng = _rng(11)
    etypes = rng.integers(0, n_types, len(case.src))
    nb = n_types if num_bases is None else num_bases  # DGL: num_bases=None -> num_rels
    sd = {}
    if reg is None:
        sd["linear_r.W"] = _w(rng, n_types, n_in, n_out)
    elif reg == "basis":
        sd["linear_r.W"] = _w(rng, nb, n_in, n_out)
        sd["linear_r.coeff"] = _w(rng, n_types, nb)
    else:
        sd["linear_r.W"] = _w(rng, n_types, nb * (n_in // nb) * (n_out // nb))
    if bias:
        sd["h_bias"] = _w(rng, n_out)
    if layer_norm:
        sd["layer_norm_weight.weight"] = _w(rng, n_out) + 1
        sd["layer_norm_weight.bias"] = _w(rng, n_out)
    if self_loop:
        sd["loop_weight"] = _w(rng, n_in, n_out)
    conv = agnn.RelGraphConv(
        n_in, n_out, n_types, regularizer=reg, num_bases=num_bases, bias=bias,
        activation="relu", self_loop=self_loop, layer_norm=layer_norm,
    )  # fmt: skip
    conv = _load(conv, sd)
    norm = rng.uniform(0.1, 1.0, (len(case.src), 1))
    got = conv(case.g, case.feat, etypes, norm)
    w = _typed_weight(sd, reg, n_types, n_in, n_out, nb)
    msg = np.einsum("ei,eio->eo", case.x_src[case.src], w[etypes]) * norm
    h = _reduce(case.dst, case.n_dst, msg)
    if layer_norm:
        mu, var = h.mean(-1, keepdims=True), h.var(-1, keepdims=True)
        h = (h - mu) / np.sqrt(var + 1e-5) * sd["layer_norm_weight.weight"]
        h = h + sd["layer_norm_weight.bias"]
    if bias:
        h = h + sd["h_bias"]
    if self_loop:
        h = h + case.x_src[: case.n_dst] @ sd["loop_weight"]
    _close(got, np.maximum(h, 0))


# ---- TAGConv / APPNPConv / ChebConv ----------------------------------------------------------


def _edge_weight_norm_both(case, ew):
    """DGL's ``EdgeWeightNorm('both')``: ``w / sqrt(w_out(src) w_in(dst))``."""
    w_out = np.bincount(case.src, ew, case.n_src)
    w_in = np.bincount(case.dst, ew, case.n_dst)
    return ew * w_out[case.src] ** -0.5 * w_in[case.dst] ** -0.5


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 2])
def test_tag_conv(weighted, k):
    case = _case("graph", full=False)
    rng = _rng(12)
    sd = {"lin.weight": _w(rng, 3, 5 * (k + 1)), "lin.bias": _w(rng, 3)}
    conv = _load(agnn.TAGConv(5, 3, k, degree_norm="dgl", activation="relu"), sd)
    ew = _edge_weight(case) if weighted else None
    got = conv(case.g, case.feat, ew)
    norm = np.maximum(_degs(case.dst, N), 1) ** -0.5
    w = _edge_weight_norm_both(case, ew) if weighted else np.ones(len(case.src))
    stack = [case.feat]
    for _ in range(k):
        h = stack[-1] if weighted else stack[-1] * norm[:, None]
        h = _reduce(case.dst, N, h[case.src] * w[:, None])
        stack.append(h if weighted else h * norm[:, None])
    _close(got, np.maximum(_lin(np.concatenate(stack, -1), sd, "lin"), 0))


@pytest.mark.parametrize("weighted", [False, True])
def test_appnp_conv(weighted):
    case = _case("graph", full=False)
    conv = agnn.APPNPConv(3, 0.1, edge_drop=0.0)
    assert conv.state_dict(format="dgl") == {}
    ew = _edge_weight(case) if weighted else None
    got = conv(case.g, case.feat, ew)
    src_norm = np.maximum(_degs(case.src, N), 1) ** -0.5
    dst_norm = np.maximum(_degs(case.dst, N), 1) ** -0.5
    w = _edge_weight_norm_both(case, ew) if weighted else np.ones(len(case.src))
    h = case.feat
    for _ in range(3):
        m = h if weighted else h * src_norm[:, None]
        m = _reduce(case.dst, N, m[case.src] * w[:, None])
        m = m if weighted else m * dst_norm[:, None]
        h = 0.9 * m + 0.1 * case.feat
    _close(got, h)


def _ref_cheb(case, sd, k, lambda_max, graph_of_node):
    """DGL's ChebConv: ``L = I - D^-1/2 A D^-1/2`` with in-degrees on both sides and ``A``
    every edge (self-loops and parallel edges included)."""
    d = np.maximum(_degs(case.dst, case.n_dst), 1) ** -0.5

    def lap(x):  # D^-1/2 A D^-1/2 x (A: messages along the edges)
        return _reduce(case.dst, case.n_dst, (x * d[:, None])[case.src]) * d[:, None]

    re_norm = (2.0 / np.asarray(lambda_max, dtype=np.float64))[graph_of_node][:, None]
    x0 = case.feat
    xs = [x0]
    if k > 1:
        x1 = -re_norm * lap(x0) + x0 * (re_norm - 1)
        xs.append(x1)
        for _ in range(2, k):
            x2 = -2 * re_norm * lap(x1) + x1 * 2 * (re_norm - 1) - x0
            xs.append(x2)
            x1, x0 = x2, x1
    return _lin(np.concatenate(xs, -1), sd, "linear")


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("lambda_max", [None, [1.7]])
@pytest.mark.parametrize("symmetric", [True, False])
def test_cheb_conv(k, lambda_max, symmetric):
    """DGL's ChebConv on a symmetric simple graph (PyG's Laplacian is the same there) and
    on one with self-loops, parallel edges and one-way edges (DGL's in-degree rule)."""
    if symmetric:
        u, v = np.array([0, 1, 1, 2, 3, 4, 0, 3]), np.array([1, 0, 2, 1, 4, 3, 3, 0])
        g = graph((u, v), num_nodes=6)  # node 5 isolated
    else:
        u, v = SRC, DST
        g = graph((u, v), num_nodes=N)
    n = g.num_nodes()
    feat = _rng(13).standard_normal((n, 4))
    case = Case(g, u, v, n, n, feat, feat, feat)
    rng = _rng(14)
    sd = {"linear.weight": _w(rng, 3, 4 * k), "linear.bias": _w(rng, 3)}
    conv = _load(agnn.ChebConv(4, 3, k, degree_norm="dgl"), sd)
    got = conv(g, feat, lambda_max)
    want = _ref_cheb(case, sd, k, [2.0] if lambda_max is None else lambda_max, np.zeros(n, int))
    _close(got, want)


# ---- TWIRLSConv ------------------------------------------------------------------------------


def _twirls_mlp_sd(rng, prefix, sizes, norm, n_norms, hidden):
    sd = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        sd[f"{prefix}.layers.{i}.weight"] = _w(rng, b, a)
        sd[f"{prefix}.layers.{i}.bias"] = _w(rng, b)
    for i in range(n_norms if norm == "layer" else 0):
        sd[f"{prefix}.norms.{i}.weight"] = _w(rng, hidden) + 1
        sd[f"{prefix}.norms.{i}.bias"] = _w(rng, hidden)
    return sd


def _twirls_mlp(x, sd, prefix, n_layers, norm, init_activate):
    idx = [0]

    def activate(x):
        if norm == "layer":
            mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
            x = (x - mu) / np.sqrt(var + 1e-5) * sd[f"{prefix}.norms.{idx[0]}.weight"]
            x = x + sd[f"{prefix}.norms.{idx[0]}.bias"]
            idx[0] += 1
        return np.maximum(x, 0)

    if init_activate:
        x = activate(x)
    for i in range(n_layers):
        x = _lin(x, sd, f"{prefix}.layers.{i}")
        if i != n_layers - 1:
            x = activate(x)
    return x


def _ref_twirls_unfold(src, dst, n, x, cfg, etas):
    keep = src != dst  # remove_self_loop, then add_self_loop
    src = np.concatenate([src[keep], np.arange(n)])
    dst = np.concatenate([dst[keep], np.arange(n)])
    lam, p, tau, big_t = cfg["lam"], cfg["p"], cfg["tau"], cfg["T"]
    alp = cfg["alp"] if cfg["alp"] > 0 else 1 / (lam + 1)
    w = np.ones(len(src))
    deg = _degs(dst, n)

    def ax(y):
        return _reduce(dst, n, y[src] * w[:, None])

    def attention(y):
        y = y * etas if etas is not None else y
        hn = (y**2).sum(-1)
        d = hn[src] + hn[dst] - 2 * (y[src] * y[dst]).sum(-1)
        d = (np.maximum(d, 0) + 1e-7) ** (1 - 0.5 * p)
        d[d < tau] = tau
        if big_t > 0:
            d[d > big_t] = np.inf
        new_w = 1 / d + 1e-9
        return new_w, np.bincount(dst, new_w, n)

    attn_aft = cfg["prop_step"] // 2 if cfg["attention"] else -1
    if cfg["attn_bef"]:
        w, deg = attention(x)
    y = x
    for k in range(cfg["prop_step"]):
        if cfg["precond"]:
            dpb = (lam * deg + 1 - lam)[:, None]
            prop = ax(y * dpb**-0.5) * dpb**-0.5
            y = (1 - alp) * y + alp * lam * prop + alp * x * dpb**-1
        else:
            dn = deg[:, None] ** -0.5
            y = (1 - alp * lam - alp) * y + alp * lam * ax(y * dn) * dn + alp * x
        if k == attn_aft - 1:
            w, deg = attention(y)
    return y


_TWIRLS = [
    dict(prop_step=3, before=1, after=1, norm="none", precond=True, attention=False,
         alp=0, lam=1, tau=0.2, T=-1, p=1, use_eta=False, attn_bef=False),
    dict(prop_step=4, before=2, after=2, norm="layer", precond=False, attention=True,
         alp=0.3, lam=0.8, tau=0.3, T=2.0, p=0.5, use_eta=True, attn_bef=True),
    dict(prop_step=2, before=0, after=1, norm="none", precond=True, attention=False,
         alp=0, lam=2, tau=0.2, T=-1, p=1, use_eta=False, attn_bef=False),
]  # fmt: skip


@pytest.mark.parametrize("cfg", _TWIRLS, ids=["plain", "attention-layernorm", "cached"])
def test_twirls_conv(cfg):
    d_in, d_out, hid = 4, 3, 5
    case = _case("graph", in_src=d_in, full=False)
    rng = _rng(15)
    bef_out = hid if cfg["after"] else d_out
    aft_in = hid if cfg["before"] else d_in
    init_act = cfg["before"] > 0 and cfg["after"] > 0

    def sizes(a, b, n):
        return [a, b] if n == 1 else [a] + [hid] * (n - 1) + [b] if n else [a]

    sd = _twirls_mlp_sd(rng, "mlp_bef", sizes(d_in, bef_out, cfg["before"]), cfg["norm"],
                        cfg["before"] - 1, hid)  # fmt: skip
    sd.update(_twirls_mlp_sd(rng, "mlp_aft", sizes(aft_in, d_out, cfg["after"]), cfg["norm"],
                             cfg["after"] - 1 + int(init_act), hid))  # fmt: skip
    if cfg["use_eta"]:
        sd["unfolding.etas"] = rng.uniform(0.5, 1.5, hid)
    conv = agnn.TWIRLSConv(
        d_in, d_out, hid, cfg["prop_step"], cfg["before"], cfg["after"], cfg["norm"],
        cfg["precond"], cfg["alp"], cfg["lam"], cfg["attention"], cfg["tau"], cfg["T"],
        cfg["p"], cfg["use_eta"], cfg["attn_bef"],
    )  # fmt: skip
    conv = _load(conv, sd)
    got = conv(case.g, case.feat)
    x = _twirls_mlp(case.feat, sd, "mlp_bef", cfg["before"], cfg["norm"], False)
    y = _ref_twirls_unfold(case.src, case.dst, N, x, cfg, sd.get("unfolding.etas"))
    want = _twirls_mlp(y, sd, "mlp_aft", cfg["after"], cfg["norm"], init_act)
    _close(got, want)


# ---- readouts on a batched graph (a graph without nodes included) ----------------------------


def _batched():
    rng = _rng(16)
    g1 = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=4)
    g0 = graph((np.array([], np.int64), np.array([], np.int64)), num_nodes=0)
    g2 = graph((np.array([0]), np.array([1])), num_nodes=2)
    g3 = graph((np.array([0, 2]), np.array([1, 4])), num_nodes=5)
    bg = batch([g1, g0, g2, g3])
    counts = np.array([4, 0, 2, 5])
    return bg, counts, rng.standard_normal((counts.sum(), 4))


def _per_graph(counts, feat, fn, width):
    out, start = [], 0
    for c in counts:
        out.append(fn(feat[start : start + c]) if c else np.zeros(width))
        start += c
    return np.stack(out)


@pytest.mark.parametrize("kind", ["sum", "avg", "max"])
def test_simple_pooling(kind):
    bg, counts, feat = _batched()
    layer = {"sum": agnn.SumPooling, "avg": agnn.AvgPooling, "max": agnn.MaxPooling}[kind]()
    _load(layer, {})  # no weights, as DGL's
    fn = {"sum": lambda x: x.sum(0), "avg": lambda x: x.mean(0), "max": lambda x: x.max(0)}[kind]
    _close(layer(bg, feat), _per_graph(counts, feat, fn, 4))


@pytest.mark.parametrize("k", [1, 3])
def test_sort_pooling(k):
    bg, counts, feat = _batched()
    layer = _load(agnn.SortPooling(k), {})

    def top(x):  # features sorted per node, then the k nodes with the largest last one
        x = np.sort(x, axis=-1)
        x = x[np.argsort(-x[:, -1], kind="stable")][:k]
        return np.concatenate([x, np.zeros((k - len(x), 4))]).reshape(-1)

    _close(layer(bg, feat), _per_graph(counts, feat, top, 4 * k))


@pytest.mark.parametrize("with_feat_nn", [False, True])
def test_global_attention_pooling(with_feat_nn):
    bg, counts, feat = _batched()
    rng = _rng(17)
    sd = {"gate_nn.weight": _w(rng, 1, 4), "gate_nn.bias": _w(rng, 1)}
    feat_nn = None
    if with_feat_nn:
        sd.update({"feat_nn.weight": _w(rng, 3, 4), "feat_nn.bias": _w(rng, 3)})
        feat_nn = agnn.Linear(4, 3)
    layer = _load(agnn.GlobalAttentionPooling(agnn.Linear(4, 1), feat_nn), sd)
    got, gate = layer(bg, feat, get_attention=True)
    ggraph = np.repeat(np.arange(len(counts)), counts)
    gate_want = _edge_softmax(ggraph, len(counts), _lin(feat, sd, "gate_nn"))
    h = _lin(feat, sd, "feat_nn") if with_feat_nn else feat
    _close(gate, gate_want)
    _close(got, _reduce(ggraph, len(counts), h * gate_want))


@pytest.mark.parametrize("n_layers", [1, 2])
def test_set2set(n_layers):
    bg, counts, feat = _batched()
    d, iters = 4, 2
    sd = _lstm_sd(_rng(18), "lstm", 2 * d, d, n_layers)
    layer = _load(agnn.Set2Set(d, iters, n_layers), sd)
    got = layer(bg, feat)
    b = len(counts)
    gid = np.repeat(np.arange(b), counts)
    h = [np.zeros((b, d)) for _ in range(n_layers)]
    c = [np.zeros((b, d)) for _ in range(n_layers)]
    q_star = np.zeros((b, 2 * d))
    for _ in range(iters):
        x = q_star
        for layer_i in range(n_layers):
            _, h[layer_i], c[layer_i] = _lstm_layer(x[None], h[layer_i], c[layer_i], sd, "lstm",
                                                    layer_i)  # fmt: skip
            x = h[layer_i]
        q = x
        e = (feat * q[gid]).sum(-1, keepdims=True)
        alpha = _edge_softmax(gid, b, e)
        q_star = np.concatenate([q, _reduce(gid, b, feat * alpha)], -1)
    _close(got, q_star)


def test_weight_and_sum():
    bg, counts, feat = _batched()
    rng = _rng(19)
    sd = {"atom_weighting.0.weight": _w(rng, 1, 4), "atom_weighting.0.bias": _w(rng, 1)}
    layer = _load(agnn.WeightAndSum(4), sd)
    w = _sigmoid(_lin(feat, sd, "atom_weighting.0"))
    _close(layer(bg, feat), _per_graph(counts, feat * w, lambda x: x.sum(0), 4))


def _mha_sd(rng, prefix, d, heads, d_head, d_ff):
    sd = {f"{prefix}.proj_{p}.weight": _w(rng, heads * d_head, d) for p in "qkv"}
    sd[f"{prefix}.proj_o.weight"] = _w(rng, d, heads * d_head)
    sd.update({f"{prefix}.ffn.0.weight": _w(rng, d_ff, d), f"{prefix}.ffn.0.bias": _w(rng, d_ff)})
    sd.update({f"{prefix}.ffn.3.weight": _w(rng, d, d_ff), f"{prefix}.ffn.3.bias": _w(rng, d)})
    for nm in ("norm_in", "norm_inter"):
        sd[f"{prefix}.{nm}.weight"] = _w(rng, d) + 1
        sd[f"{prefix}.{nm}.bias"] = _w(rng, d)
    return sd


def _layer_norm(x, sd, name):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * sd[f"{name}.weight"] + sd[f"{name}.bias"]


def _mha(x, mem, sd, p, heads, d_head):
    """DGL's glob.py ``MultiHeadAttention`` for one graph (no padding needed)."""
    q = (x @ sd[f"{p}.proj_q.weight"].T).reshape(len(x), heads, d_head)
    k = (mem @ sd[f"{p}.proj_k.weight"].T).reshape(len(mem), heads, d_head)
    v = (mem @ sd[f"{p}.proj_v.weight"].T).reshape(len(mem), heads, d_head)
    e = np.einsum("xhd,yhd->hxy", q, k) / np.sqrt(d_head)
    a = np.exp(e - e.max(-1, keepdims=True))
    a = a / a.sum(-1, keepdims=True)
    out = np.einsum("hxy,yhd->xhd", a, v).reshape(len(x), heads * d_head)
    x = _layer_norm(x + out @ sd[f"{p}.proj_o.weight"].T, sd, f"{p}.norm_in")
    ffn = _lin(np.maximum(_lin(x, sd, f"{p}.ffn.0"), 0), sd, f"{p}.ffn.3")
    return _layer_norm(x + ffn, sd, f"{p}.norm_inter")


@pytest.mark.parametrize("block_type", ["sab", "isab"])
def test_set_transformer_encoder(block_type):
    bg, counts, feat = _batched()
    d, heads, d_head, d_ff, m = 4, 2, 3, 5, 2
    rng = _rng(20)
    sd = {}
    for i in range(2):
        if block_type == "sab":
            sd.update(_mha_sd(rng, f"layers.{i}.mha", d, heads, d_head, d_ff))
        else:
            sd[f"layers.{i}.inducing_points"] = _w(rng, m, d)
            for j in range(2):
                sd.update(_mha_sd(rng, f"layers.{i}.mha.{j}", d, heads, d_head, d_ff))
    enc = agnn.SetTransformerEncoder(d, heads, d_head, d_ff, 2, block_type, m if block_type ==
                                     "isab" else None)  # fmt: skip
    enc = _load(enc, sd)
    got = enc(bg, feat)
    out, start = [], 0
    for c in counts:
        x = feat[start : start + c]
        start += c
        for i in range(2 if c else 0):  # a graph without nodes gives no rows
            if block_type == "sab":
                x = _mha(x, x, sd, f"layers.{i}.mha", heads, d_head)
            else:
                points = sd[f"layers.{i}.inducing_points"]
                mem = _mha(points, x, sd, f"layers.{i}.mha.0", heads, d_head)
                x = _mha(x, mem, sd, f"layers.{i}.mha.1", heads, d_head)
        out.append(x)
    _close(got, np.concatenate(out))


def test_cheb_conv_dgl_batched_lambda_max_and_from_dgl():
    """DGL's list of one lambda_max per graph of a batched graph; no edge weights; and
    ``from_dgl`` of a stand-in with DGL's attributes (``activation=F.relu``, DGL's default)."""
    bg, counts, _ = _batched()
    u, v = bg.edges()
    n = bg.num_nodes()
    feat = _rng(21).standard_normal((n, 4))
    rng = _rng(22)
    sd = {"linear.weight": _w(rng, 3, 12), "linear.bias": _w(rng, 3)}
    conv = _load(agnn.ChebConv(4, 3, 3, degree_norm="dgl"), sd)
    lam = [1.5, 1.9, 1.2, 1.7]
    want = _ref_cheb(Case(bg, u, v, n, n, feat, feat, feat), sd, 3, lam,
                     np.repeat(np.arange(4), counts))  # fmt: skip
    _close(conv(bg, feat, lam), want)
    with pytest.raises(ValueError, match="edge_weight"):
        conv(bg, feat, edge_weight=np.ones(len(u)))
    with pytest.raises(ValueError, match="'sym'"):
        agnn.ChebConv(4, 3, 3, normalization="rw", degree_norm="dgl")
    torch = pytest.importorskip("torch")

    class ChebConv(torch.nn.Module):  # DGL's attributes
        def __init__(self):
            super().__init__()
            self._in_feats, self._out_feats, self._k = 4, 3, 3
            self.activation = torch.nn.functional.relu
            self.linear = torch.nn.Linear(12, 3).double()

    torch.manual_seed(0)
    theirs = ChebConv()
    ours = agnn.from_dgl(theirs)
    sd = {k: t.detach().numpy() for k, t in theirs.state_dict().items()}
    _close(ours(bg, feat, lam), np.maximum(_ref_cheb(
        Case(bg, u, v, n, n, feat, feat, feat), sd, 3, lam, np.repeat(np.arange(4), counts)
    ), 0))  # fmt: skip


# ---- SGConv (DGL's: no self-loops, in-degree norm at both ends, norm callable, fc) ----------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("cached", [False, True])
def test_sg_conv_dgl(weighted, k, cached):
    case = _case("graph", full=False)
    rng = _rng(23)
    sd = {"fc.weight": _w(rng, 3, 5), "fc.bias": _w(rng, 3)}

    def norm(h):
        return h / (1.0 + np.abs(h).sum(-1, keepdims=True))

    conv = agnn.SGConv(5, 3, k, cached, add_self_loops=False, degree_norm="dgl", norm=norm,
                       allow_zero_in_degree=True)  # fmt: skip
    conv = _load(conv, sd)
    ew = _edge_weight(case) if weighted else None
    got = conv(case.g, case.feat, ew)
    d = np.maximum(_degs(case.dst, N), 1) ** -0.5
    h = case.feat
    for _ in range(k):
        if weighted:
            h = _reduce(case.dst, N, h[case.src] * _edge_weight_norm_both(case, ew)[:, None])
        else:
            h = _reduce(case.dst, N, (h * d[:, None])[case.src]) * d[:, None]
    _close(got, _lin(norm(h), sd, "fc"))
    again = conv(case.g, case.feat * 2, ew)  # DGL's cache: the first call's propagation
    _close(again, _lin(norm(h), sd, "fc") if cached else _lin(norm(2 * h), sd, "fc"))
    strict = agnn.SGConv(5, 3, k, add_self_loops=False, degree_norm="dgl")
    with pytest.raises(ValueError, match="in-degree"):
        strict(case.g, case.feat)  # DGL's 0-in-degree check
    with pytest.raises(ValueError, match="add_self_loops=False"):
        agnn.SGConv(5, 3, degree_norm="dgl")
    if not (weighted and k == 2 and not cached):
        return
    torch = pytest.importorskip("torch")

    class SGConv(torch.nn.Module):  # DGL's attributes
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(5, 3).double()
            self._cached, self._k, self.norm, self._allow_zero_in_degree = False, 2, None, True

    torch.manual_seed(0)
    theirs = SGConv()
    ours = agnn.from_dgl(theirs)
    sd = {k: t.detach().numpy() for k, t in theirs.state_dict().items()}
    assert sorted(ours.state_dict(format="dgl")) == ["fc.bias", "fc.weight"]
    _close(ours(case.g, case.feat, ew), _lin(h, sd, "fc"))
