"""A DGL user's graph-classification models on arraygnn's DGL face (session 10).

Readout modules and convolutions run on a batch of small graphs that includes a graph
without nodes; weights are loaded under DGL's ``state_dict`` names. Each expected value is
a NumPy transcription of the DGL module's ``forward`` (dmlc/dgl, python/dgl/nn/pytorch/
glob.py, conv/graphconv.py, ginconv.py, gatconv.py, nnconv.py, egatconv.py, tagconv.py,
chebconv.py; dgllife's WeightAndSum) or of DGL's readout functions.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as nn
from arraygnn.graph import batch, graph, topk_nodes

# the batch: a 3-node path, a graph without nodes, a 2-node pair, a 4-node star (every
# edge in both directions, so no node of a non-empty graph lacks in-edges)
_GRAPHS = [
    ([0, 1, 1, 2], [1, 0, 2, 1], 3),
    ([], [], 0),
    ([0, 1], [1, 0], 2),
    ([0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0], 4),
]
PTR = [0, 3, 3, 5, 9]


def _bg(rng: np.random.Generator, f: int = 3):
    gs = [graph((np.array(u, np.int64), np.array(v, np.int64)), num_nodes=n) for u, v, n in _GRAPHS]
    bg = batch(gs)
    x = rng.standard_normal((bg.num_nodes(), f)).astype(np.float64)
    return bg, x


def _adj(bg, w=None) -> np.ndarray:
    """A[v, u]: the (weighted) edges u -> v."""
    u, v = bg.edges()
    a = np.zeros((bg.num_nodes(), bg.num_nodes()))
    np.add.at(a, (v, u), 1.0 if w is None else w)
    return a


def _per_graph(x: np.ndarray, f) -> np.ndarray:
    return np.stack([f(x[a:b]) if b > a else np.zeros(x.shape[1:]) for a, b in zip(PTR, PTR[1:])])


def _softmax_per_graph(e: np.ndarray) -> np.ndarray:
    out = np.zeros_like(e)
    for a, b in zip(PTR, PTR[1:]):
        if b > a:
            z = np.exp(e[a:b] - e[a:b].max(axis=0))
            out[a:b] = z / z.sum(axis=0)
    return out


def _lin(rng, i, o, dtype=np.float64):
    return rng.standard_normal((o, i)).astype(dtype) * 0.5, rng.standard_normal(o).astype(dtype)


# ---------------------------------------------------------------- readout modules
def test_sum_avg_max_pooling_on_batch_with_empty_graph():
    bg, x = _bg(np.random.default_rng(0))
    np.testing.assert_allclose(nn.SumPooling()(bg, x), _per_graph(x, lambda r: r.sum(0)))
    np.testing.assert_allclose(nn.AvgPooling()(bg, x), _per_graph(x, lambda r: r.mean(0)))
    np.testing.assert_allclose(nn.MaxPooling()(bg, x), _per_graph(x, lambda r: r.max(0)))


def test_sort_pooling_is_dgl_topk_of_sorted_features():
    bg, x = _bg(np.random.default_rng(1))
    k = 3  # graph 2 has fewer nodes, graph 1 none: zero rows
    out = nn.SortPooling(k)(bg, x)
    bg.ndata["h"] = np.sort(x, axis=-1)  # DGL: feat.sort(dim=-1), topk_nodes(sortby=-1)
    want = topk_nodes(bg, "h", k, sortby=-1)[0].reshape(-1, k * x.shape[1])
    np.testing.assert_array_equal(out, want)
    assert out.shape == (4, 9) and not out[1].any() and not out[2, 6:].any()


def test_global_attention_pooling_and_weight_and_sum():
    rng = np.random.default_rng(2)
    bg, x = _bg(rng)
    (gw, gb), (fw, fb) = _lin(rng, 3, 1), _lin(rng, 3, 4)
    gate_nn, feat_nn = nn.Linear(3, 1, dtype=np.float64), nn.Linear(3, 4, dtype=np.float64)
    gate_nn.load_state_dict({"weight": gw, "bias": gb})
    feat_nn.load_state_dict({"weight": fw, "bias": fb})
    pool = nn.GlobalAttentionPooling(gate_nn, feat_nn)
    out, att = pool(bg, x, get_attention=True)
    gate = _softmax_per_graph(x @ gw.T + gb)  # DGL: softmax_nodes(gate), sum_nodes(feat * gate)
    np.testing.assert_allclose(att, gate)
    np.testing.assert_allclose(out, _per_graph((x @ fw.T + fb) * gate, lambda r: r.sum(0)))
    # dgllife's WeightAndSum: sum_nodes(g, 'h', 'w') with w = sigmoid(Linear(feats))
    ws = nn.WeightAndSum(3, dtype=np.float64)
    ws.load_state_dict({"atom_weighting.0.weight": gw, "atom_weighting.0.bias": gb})
    w = 1 / (1 + np.exp(-(x @ gw.T + gb)))
    np.testing.assert_allclose(ws(bg, x), _per_graph(x * w, lambda r: r.sum(0)))


def _lstm_step(inp, h, c, wih, whh, bih, bhh):
    g = inp @ wih.T + bih + h @ whh.T + bhh
    i, f, gg, o = np.split(g, 4, axis=-1)
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    c = sig(f) * c + sig(i) * np.tanh(gg)
    return sig(o) * np.tanh(c), c


def test_set2set_dgl_formula_on_batch_with_empty_graph():
    rng = np.random.default_rng(3)
    bg, x = _bg(rng)
    d, n_iters = 3, 2
    sd = {
        "lstm.weight_ih_l0": rng.standard_normal((4 * d, 2 * d)) * 0.5,
        "lstm.weight_hh_l0": rng.standard_normal((4 * d, d)) * 0.5,
        "lstm.bias_ih_l0": rng.standard_normal(4 * d) * 0.5,
        "lstm.bias_hh_l0": rng.standard_normal(4 * d) * 0.5,
    }
    s2s = nn.Set2Set(d, n_iters, 1, dtype=np.float64).load_state_dict(sd)
    out = s2s(bg, x)
    # DGL's Set2Set.forward: q = lstm(q_star); e = (feat * broadcast_nodes(q)).sum(-1);
    # alpha = softmax_nodes(e); readout = sum_nodes(feat * alpha); q_star = [q, readout]
    b = 4
    h, c, q_star = np.zeros((b, d)), np.zeros((b, d)), np.zeros((b, 2 * d))
    owner = np.repeat(np.arange(b), np.diff(PTR))
    for _ in range(n_iters):
        h, c = _lstm_step(q_star, h, c, *sd.values())
        e = (x * h[owner]).sum(-1, keepdims=True)
        alpha = _softmax_per_graph(e)
        q_star = np.concatenate([h, _per_graph(x * alpha, lambda r: r.sum(0))], axis=-1)
    np.testing.assert_allclose(out, q_star, rtol=1e-10)


def test_set_transformer_encoder_decoder_batch_matches_graph_by_graph():
    rng = np.random.default_rng(4)
    bg, x = _bg(rng, f=4)
    enc = nn.SetTransformerEncoder(4, 2, 3, 8, n_layers=1, rng=0)
    dec = nn.SetTransformerDecoder(4, 2, 3, 8, 1, 2, rng=1)
    x32 = x.astype(np.float32)
    h = enc(bg, x32)
    out = dec(bg, h)
    assert h.shape == (9, 4) and out.shape == (4, 8) and np.isfinite(out).all()
    for i, (u, v, n) in enumerate(_GRAPHS):
        if n == 0:
            continue
        g = graph((np.array(u, np.int64), np.array(v, np.int64)), num_nodes=n)
        alone = dec(g, enc(g, x32[PTR[i] : PTR[i + 1]]))
        np.testing.assert_allclose(out[i], alone[0], rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- convolutions
@pytest.mark.parametrize("norm", ["both", "right", "none", "left"])
def test_graph_conv_norms_with_edge_weight_dgl_names(norm):
    rng = np.random.default_rng(5)
    bg, x = _bg(rng)
    w = rng.uniform(0.5, 2.0, bg.num_edges())
    weight, bias = rng.standard_normal((3, 2)), rng.standard_normal(2)
    conv = nn.GraphConv(3, 2, norm=norm, dtype=np.float64)
    conv.load_state_dict({"weight": weight, "bias": bias}, format="dgl")
    a, counts = _adj(bg, w), _adj(bg)
    out_deg, in_deg = np.maximum(counts.sum(0), 1), np.maximum(counts.sum(1), 1)
    one = np.ones(bg.num_nodes())
    h = x * {"both": out_deg**-0.5, "left": 1 / out_deg}.get(norm, one)[:, None]
    rst = (a @ h) @ weight
    rst = rst * {"both": in_deg**-0.5, "right": 1 / in_deg}.get(norm, one)[:, None]
    np.testing.assert_allclose(conv(bg, x, edge_weight=w), rst + bias)


def test_graph_conv_external_weight_and_zero_in_degree():
    rng = np.random.default_rng(6)
    bg, x = _bg(rng)
    ext = rng.standard_normal((3, 2))
    conv = nn.GraphConv(3, 2, weight=False, bias=False)
    a, deg = _adj(bg), np.maximum(_adj(bg).sum(1), 1)
    want = (deg[:, None] ** -0.5 * (a @ (deg[:, None] ** -0.5 * x))) @ ext
    np.testing.assert_allclose(conv(bg, x, weight=ext), want)  # DGL: forward(..., weight=)
    with pytest.raises(ValueError, match="weight=False"):
        nn.GraphConv(3, 2)(bg, x, weight=ext)
    with pytest.raises(ValueError, match="needs weight="):
        conv(bg, x)
    g = graph((np.array([0]), np.array([1])), num_nodes=3)
    with pytest.raises(ValueError, match="in-degree"):
        nn.GraphConv(3, 2)(g, x[:3])
    out = nn.GraphConv(3, 2, allow_zero_in_degree=True, rng=0)(g, x[:3])
    assert out.shape == (3, 2)


@pytest.mark.parametrize("aggr", ["sum", "mean", "max"])
def test_gin_conv_dgl_names_and_aggregators(aggr):
    rng = np.random.default_rng(7)
    bg, x = _bg(rng)
    g = graph((np.array([0, 1]), np.array([1, 1])), num_nodes=3)  # node 0, 2: no in-edges
    lw, lb = _lin(rng, 3, 2)
    conv = nn.GINConv(nn.Linear(3, 2, dtype=np.float64), aggregator_type=aggr, dtype=np.float64)
    # DGL's state dict: apply_func.* and eps (a parameter with learn_eps, a buffer without)
    conv.load_state_dict({"apply_func.weight": lw, "apply_func.bias": lb, "eps": [0.3]})
    for gr, feat in ((bg, x), (g, x[:3])):
        a = _adj(gr)
        if aggr == "max":
            neigh = np.stack(
                [feat[a[i] > 0].max(0) if a[i].any() else np.zeros(3) for i in range(len(a))]
            )
        else:
            neigh = a @ feat
            if aggr == "mean":
                neigh = neigh / np.maximum(a.sum(1), 1)[:, None]
        np.testing.assert_allclose(conv(gr, feat), (1.3 * feat + neigh) @ lw.T + lb)


def test_gat_conv_on_batched_graph_dgl_names():
    rng = np.random.default_rng(8)
    bg, x = _bg(rng)
    heads, f = 2, 3
    fc = rng.standard_normal((heads * f, 3))
    attn_l, attn_r = rng.standard_normal((1, heads, f)), rng.standard_normal((1, heads, f))
    bias = rng.standard_normal(heads * f)
    conv = nn.GATConv(3, f, heads, concat=None, add_self_loops=False, dtype=np.float64)
    conv.load_state_dict(
        {"fc.weight": fc, "attn_l": attn_l, "attn_r": attn_r, "bias": bias}, format="dgl"
    )
    out, att = conv(bg, x, get_attention=True)
    # DGL: el / er per node, e = leaky_relu(el[u] + er[v]), edge_softmax over in-edges
    feat = (x @ fc.T).reshape(-1, heads, f)
    el, er = (feat * attn_l).sum(-1), (feat * attn_r).sum(-1)
    u, v = bg.edges()
    e = el[u] + er[v]
    e = np.where(e > 0, e, 0.2 * e)
    a = np.zeros_like(e)
    for node in range(bg.num_nodes()):
        m = v == node
        z = np.exp(e[m] - e[m].max(0))
        a[m] = z / z.sum(0)
    rst = np.zeros((bg.num_nodes(), heads, f))
    np.add.at(rst, v, a[:, :, None] * feat[u])
    np.testing.assert_allclose(out, rst + bias.reshape(1, heads, f))
    np.testing.assert_allclose(att[:, :, 0], a)


@pytest.mark.parametrize("aggr", ["sum", "mean"])
def test_nn_conv_dgl_names(aggr):
    rng = np.random.default_rng(9)
    bg, x = _bg(rng)
    ef = rng.standard_normal((bg.num_edges(), 2))
    ew, eb = _lin(rng, 2, 3 * 4)
    res, bias = rng.standard_normal((4, 3)), rng.standard_normal(4)
    conv = nn.NNConv(3, 4, nn.Linear(2, 12, dtype=np.float64), aggr=aggr, dtype=np.float64)
    conv.load_state_dict(
        {"edge_func.weight": ew, "edge_func.bias": eb, "res_fc.weight": res, "bias": bias},
        format="dgl",
    )
    # DGL: w = edge_func(efeat).view(-1, in, out); m = h_u[:, :, None] * w; reduce; sum(1)
    w = (ef @ ew.T + eb).reshape(-1, 3, 4)
    u, v = bg.edges()
    m = (x[u][:, :, None] * w).sum(1)
    neigh = np.zeros((bg.num_nodes(), 4))
    np.add.at(neigh, v, m)
    if aggr == "mean":
        neigh = neigh / np.maximum(np.bincount(v, minlength=bg.num_nodes()), 1)[:, None]
    np.testing.assert_allclose(conv(bg, x, ef), neigh + x @ res.T + bias)


def test_egat_conv_on_batched_graph_dgl_formula():
    rng = np.random.default_rng(10)
    bg, x = _bg(rng)
    ef = rng.standard_normal((bg.num_edges(), 2))
    h, fn_, fe = 2, 3, 2
    sd = {
        "fc_node_src.weight": rng.standard_normal((h * fn_, 3)),
        "fc_ni.weight": rng.standard_normal((h * fe, 3)),
        "fc_nj.weight": rng.standard_normal((h * fe, 3)),
        "fc_fij.weight": rng.standard_normal((h * fe, 2)),
        "attn": rng.standard_normal((1, h, fe)),
        "bias": rng.standard_normal(h * fe),
    }
    conv = nn.EGATConv(3, 2, fn_, fe, h, dtype=np.float64).load_state_dict(sd)
    out_h, out_f = conv(bg, x, ef)
    u, v = bg.edges()
    f_out = x[u] @ sd["fc_ni.weight"].T + x[v] @ sd["fc_nj.weight"].T
    f_out = f_out + ef @ sd["fc_fij.weight"].T + sd["bias"]
    f_out = np.where(f_out > 0, f_out, 0.01 * f_out).reshape(-1, h, fe)
    e = (f_out * sd["attn"]).sum(-1)
    a = np.zeros_like(e)
    for node in range(bg.num_nodes()):
        m = v == node
        z = np.exp(e[m] - e[m].max(0))
        a[m] = z / z.sum(0)
    hs = (x @ sd["fc_node_src.weight"].T).reshape(-1, h, fn_)
    want = np.zeros((bg.num_nodes(), h, fn_))
    np.add.at(want, v, a[:, :, None] * hs[u])
    np.testing.assert_allclose(out_h, want)
    np.testing.assert_allclose(out_f, f_out)


def test_tag_conv_dgl_names_and_formula():
    rng = np.random.default_rng(11)
    bg, x = _bg(rng)
    k = 2  # DGL's default k
    lw, lb = _lin(rng, (k + 1) * 3, 2)
    conv = nn.TAGConv(3, 2, K=k, degree_norm="dgl", dtype=np.float64)
    conv.load_state_dict({"lin.weight": lw, "lin.bias": lb}, format="dgl")
    a = _adj(bg)
    norm = np.maximum(a.sum(1), 1) ** -0.5
    stack, rst = [x], x
    for _ in range(k):
        rst = norm[:, None] * (a @ (norm[:, None] * rst))
        stack.append(rst)
    np.testing.assert_allclose(conv(bg, x), np.concatenate(stack, -1) @ lw.T + lb)


def test_cheb_conv_dgl_names_per_graph_lambda_max():
    rng = np.random.default_rng(12)
    bg, x = _bg(rng)
    k = 3
    lw, lb = _lin(rng, k * 3, 2)
    lam = np.array([1.5, 2.0, 2.0, 1.8])  # one per graph, as DGL's lambda_max list
    conv = nn.ChebConv(3, 2, k, dtype=np.float64)
    conv.load_state_dict({"linear.weight": lw, "linear.bias": lb}, format="dgl")
    # DGL's ChebConv.forward (activation=None): X_1 = -re_norm * L_A X + X (re_norm - 1) ...
    a = _adj(bg)
    d = np.maximum(a.sum(1), 1) ** -0.5
    re_norm = (2.0 / lam)[np.repeat(np.arange(4), np.diff(PTR))][:, None]

    def lap(h):
        return d[:, None] * (a @ (d[:, None] * h))

    x0, x1 = x, -re_norm * lap(x) + x * (re_norm - 1)
    xs = [x0, x1]
    for _ in range(2, k):
        x2 = -2 * re_norm * lap(x1) + x1 * 2 * (re_norm - 1) - x0
        xs.append(x2)
        x0, x1 = x1, x2
    want = np.concatenate(xs, -1) @ lw.T + lb
    np.testing.assert_allclose(conv(bg, x, lambda_max=lam), want)


# ---------------------------------------------------------------- a GIN classifier
def test_two_layer_gin_classifier_with_avg_pooling_dgl_state_dict():
    rng = np.random.default_rng(13)
    bg, x = _bg(rng, f=4)
    w1, b1 = _lin(rng, 4, 8)
    w2, b2 = _lin(rng, 8, 8)
    wc, bc = _lin(rng, 8, 3)

    class GIN:
        def __init__(self):
            self.conv1 = nn.GINConv(nn.Linear(4, 8, dtype=np.float64), dtype=np.float64)
            self.conv2 = nn.GINConv(nn.Linear(8, 8, dtype=np.float64), dtype=np.float64)
            self.pool, self.classify = nn.AvgPooling(), nn.Linear(8, 3, dtype=np.float64)

        def __call__(self, g, h):
            h = np.maximum(self.conv1(g, h), 0)
            h = np.maximum(self.conv2(g, h), 0)
            return self.classify(self.pool(g, h))

    model = GIN()
    # a DGL model's state_dict, split per sub-module (learn_eps=True: eps a parameter)
    model.conv1.load_state_dict({"apply_func.weight": w1, "apply_func.bias": b1, "eps": [0.1]})
    model.conv2.load_state_dict({"apply_func.weight": w2, "apply_func.bias": b2, "eps": [0.0]})
    model.classify.load_state_dict({"weight": wc, "bias": bc})
    logits = model(bg, x)
    a = _adj(bg)
    h = np.maximum((1.1 * x + a @ x) @ w1.T + b1, 0)
    h = np.maximum((h + a @ h) @ w2.T + b2, 0)
    want = _per_graph(h, lambda r: r.mean(0)) @ wc.T + bc
    np.testing.assert_allclose(logits, want)
    assert logits.shape == (4, 3) and np.allclose(logits[1], bc)  # empty graph: bias only
