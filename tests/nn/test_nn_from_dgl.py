"""``from_dgl`` on stand-in modules with DGL's attribute and parameter names.

DGL does not install next to torch 2.13 here, so these torch modules mimic the attributes
``from_dgl`` reads (``_in_feats``, ``_aggre_type``, ``_num_heads``, ``fc.weight``, ...) as in
DGL 1.x/2.x's ``dgl.nn.pytorch`` sources; outputs are compared with dense references.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

torch = pytest.importorskip("torch")

import arraygnn.nn as agnn  # noqa: E402


class GraphConv(torch.nn.Module):
    def __init__(self, fin, fout, norm="both"):
        super().__init__()
        self._in_feats, self._out_feats, self._norm = fin, fout, norm
        self._allow_zero_in_degree = True
        self._activation = torch.relu
        self.weight = torch.nn.Parameter(torch.randn(fin, fout))
        self.bias = torch.nn.Parameter(torch.randn(fout))


class SAGEConv(torch.nn.Module):
    """DGL >= 1.0 keeps the bias in ``fc_self`` (a separate ``bias`` only for 'gcn');
    ``layout='0.8'`` is DGL 0.8 / 0.9's bias-free ``fc_self`` and separate ``bias``."""

    def __init__(self, fin, fout, aggr, layout="1.x"):
        super().__init__()
        self._in_src_feats = self._in_dst_feats = fin
        self._out_feats, self._aggre_type = fout, aggr
        self.norm, self.activation = None, None
        if aggr == "pool":
            self.fc_pool = torch.nn.Linear(fin, fin)
        self.fc_neigh = torch.nn.Linear(fin, fout, bias=False)
        if aggr != "gcn":
            self.fc_self = torch.nn.Linear(fin, fout, bias=layout == "1.x")
            if layout == "1.x":
                torch.nn.init.normal_(self.fc_self.bias)
        if aggr == "gcn" or layout != "1.x":
            self.bias = torch.nn.Parameter(torch.randn(fout))
        else:
            self.register_buffer("bias", None)

    def reference(self, x, a):
        """DGL's forward on a dense adjacency ``a[dst, src]`` (float64)."""
        p = {k: v.detach().double().numpy() for k, v in self.state_dict().items()}
        deg = a.sum(1, keepdims=True)
        if self._aggre_type == "mean":
            neigh = (a @ x) / np.maximum(deg, 1)
        elif self._aggre_type == "gcn":
            neigh = (a @ x + x) / (deg + 1)
        else:  # pool: relu(fc_pool(x)) then max over in-neighbours (0 without any)
            h = np.maximum(x @ p["fc_pool.weight"].T + p["fc_pool.bias"], 0)
            neigh = np.array(
                [h[a[i] > 0].max(0) if a[i].any() else 0 * h[0] for i in range(len(a))]
            )
        out = neigh @ p["fc_neigh.weight"].T
        if self._aggre_type != "gcn":
            out = out + x @ p["fc_self.weight"].T + p.get("fc_self.bias", 0)
        return out + p.get("bias", 0)


class GATConv(torch.nn.Module):
    def __init__(self, fin, fout, heads, residual=False):
        super().__init__()
        self._in_src_feats = self._in_dst_feats = fin
        self._out_feats, self._num_heads = fout, heads
        self._allow_zero_in_degree = False
        self.fc = torch.nn.Linear(fin, fout * heads, bias=False)
        self.attn_l = torch.nn.Parameter(torch.randn(1, heads, fout))
        self.attn_r = torch.nn.Parameter(torch.randn(1, heads, fout))
        self.leaky_relu = torch.nn.LeakyReLU(0.2)
        # DGL: residual is the input itself when sizes match, else a Linear with the bias
        # (and then no separate bias)
        linear_res = residual and fin != fout * heads
        if not residual:
            self.register_buffer("res_fc", None)
        elif linear_res:
            self.res_fc = torch.nn.Linear(fin, heads * fout, bias=True)
        else:
            self.res_fc = torch.nn.Identity()
        if linear_res:
            self.register_buffer("bias", None)
        else:
            self.bias = torch.nn.Parameter(torch.randn(heads * fout))
        self.activation = None


class GATv2Conv(torch.nn.Module):
    """DGL's GATv2Conv attributes: fc_src / fc_dst (shared with share_weights), attn, a
    residual Linear with bias=bias (or Identity when sizes match), no output bias."""

    def __init__(self, fin, fout, heads, residual=False, bias=True, share_weights=False):
        super().__init__()
        self._in_src_feats = self._in_dst_feats = fin
        self._out_feats, self._num_heads = fout, heads
        self._allow_zero_in_degree = False
        self.fc_src = torch.nn.Linear(fin, fout * heads, bias=bias)
        self.fc_dst = (
            self.fc_src if share_weights else torch.nn.Linear(fin, fout * heads, bias=bias)
        )
        self.attn = torch.nn.Parameter(torch.randn(1, heads, fout))
        self.leaky_relu = torch.nn.LeakyReLU(0.1)
        if not residual:
            self.register_buffer("res_fc", None)
        elif fin != fout * heads:
            self.res_fc = torch.nn.Linear(fin, heads * fout, bias=bias)
        else:
            self.res_fc = torch.nn.Identity()
        self.activation = torch.nn.functional.elu
        self.share_weights = share_weights
        self.bias = bias


class GINConv(torch.nn.Module):
    def __init__(self, apply_func, eps, activation=None):
        super().__init__()
        self.apply_func = apply_func
        self._aggregator_type = "sum"
        self.register_buffer("eps", torch.FloatTensor([eps]))
        self.activation = activation  # DGL >= 0.8: applied after apply_func


def _dense(ei, n):
    a = np.zeros((n, n))
    np.add.at(a, (ei[1], ei[0]), 1.0)
    return a


def test_from_dgl_graph_conv_and_gin():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ei = random_graph(rng, 12, isolated=0)
    x = rng.standard_normal((12, 5)).astype(np.float32)
    ref = GraphConv(5, 3)
    conv = agnn.from_dgl(ref)
    a = _dense(ei, 12)
    dout = np.maximum(a.sum(0), 1) ** -0.5
    din = np.maximum(a.sum(1), 1) ** -0.5
    w, b = ref.weight.detach().double().numpy(), ref.bias.detach().double().numpy()
    expected = np.maximum(din[:, None] * (a @ (dout[:, None] * x)) @ w + b, 0)
    assert rel_err(conv(x, ei), expected) < 1e-5

    mlp = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2))
    gin = agnn.from_dgl(GINConv(mlp, 0.3))
    with torch.no_grad():
        expected = mlp(torch.from_numpy((1.3 * x + a @ x).astype(np.float32))).numpy()
    assert rel_err(gin(x, ei), expected) < 1e-5
    # DGL's activation after apply_func is carried over (it used to be dropped silently)
    gin = agnn.from_dgl(GINConv(mlp, 0.3, activation=torch.nn.functional.relu))
    assert rel_err(gin(x, ei), np.maximum(expected, 0)) < 1e-5
    assert (expected < 0).any()
    with pytest.raises(ValueError, match="GINConv activation"):
        agnn.from_dgl(GINConv(mlp, 0.3, activation=torch.nn.RReLU()))


@pytest.mark.parametrize("layout", ["1.x", "0.8"])
@pytest.mark.parametrize("aggr", ["mean", "gcn", "pool"])
def test_from_dgl_sage(aggr, layout):
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 10, isolated=2)
    x = rng.standard_normal((10, 4)).astype(np.float32)
    ref = SAGEConv(4, 3, aggr, layout)
    conv = agnn.from_dgl(ref)
    assert conv.aggregator_type == aggr
    assert rel_err(conv(x, ei), ref.reference(x.astype(np.float64), _dense(ei, 10))) < 1e-5
    again = agnn.SAGEConv(4, 3, aggr).load_state_dict(
        {k: v.numpy() for k, v in ref.state_dict().items()}, format="dgl"
    )
    np.testing.assert_array_equal(conv(x, ei), again(x, ei))
    if layout == "1.x":  # exported under DGL >= 1.0's names, loadable into the module
        assert sorted(conv.state_dict(format="dgl")) == sorted(ref.state_dict())


def test_from_dgl_gat_keeps_heads_axis():
    torch.manual_seed(2)
    rng = np.random.default_rng(2)
    ei = random_graph(rng, 9, isolated=0)
    x = rng.standard_normal((9, 4)).astype(np.float32)
    ref = GATConv(4, 3, heads=2)
    conv = agnn.from_dgl(ref)
    assert conv.concat is None and not conv.add_self_loops
    assert conv(x, ei).shape == (9, 2, 3)
    with pytest.raises(ValueError, match="zero in-degree"):
        conv(x, ei[:, ei[1] != 0])


@pytest.mark.parametrize("fin", [4, 6])  # 6 = heads * out: DGL's identity residual
def test_from_dgl_gat_residual(fin):
    """DGL's residual: a biased Linear of the destination input when sizes differ (no
    separate bias), the input itself when they match; against a dense reference."""
    torch.manual_seed(4)
    rng = np.random.default_rng(4)
    n, heads, fout = 9, 2, 3
    ei = random_graph(rng, n, isolated=0)
    x = rng.standard_normal((n, fin)).astype(np.float32)
    ref = GATConv(fin, fout, heads, residual=True)
    conv = agnn.from_dgl(ref)
    params = {k: v.detach().double().numpy() for k, v in ref.state_dict().items()}
    h = (x @ params["fc.weight"].T).reshape(n, heads, fout)
    el = (h * params["attn_l"]).sum(-1)
    er = (h * params["attn_r"]).sum(-1)
    logits = el[ei[0]] + er[ei[1]]
    logits = np.where(logits > 0, logits, 0.2 * logits)
    out = np.zeros((n, heads, fout))
    for v in range(n):
        mask = ei[1] == v
        a = np.exp(logits[mask] - logits[mask].max(0))
        a /= a.sum(0)
        out[v] = (a[:, :, None] * h[ei[0][mask]]).sum(0)
    if "res_fc.weight" in params:  # its bias is the layer's bias here
        assert conv.res is not None and conv.bias is not None
        res = x @ params["res_fc.weight"].T + params["res_fc.bias"]
    else:
        assert conv.res_identity and conv.res is None
        res = x + 0.0
    out += res.reshape(n, heads, fout)
    if "bias" in params:
        out += params["bias"].reshape(heads, fout)
    assert rel_err(conv(x, ei), out) < 1e-5
    assert set(conv.state_dict(format="dgl")) == set(params)
    # DGL's state dict loads into a layer built by hand (saved weights, no DGL needed)
    fresh = agnn.GATConv(
        fin, fout, heads, concat=None, add_self_loops=False,
        residual=True if "res_fc.weight" in params else "identity",
    )  # fmt: skip
    fresh.load_state_dict(params, format="dgl")
    np.testing.assert_array_equal(fresh(x, ei), conv(x, ei))


def test_from_dgl_gat_edge_weight_and_get_attention():
    """DGL's forward(graph, feat, edge_weight, get_attention): the weight scales each edge's
    softmax output, and the returned (E, H, 1) attention includes it; against a dense
    reference, through a graph, a cached CSR and an int32 edge_index."""
    from arraygnn import ops
    from arraygnn.graph import graph as make_graph

    torch.manual_seed(8)
    rng = np.random.default_rng(8)
    n, heads, fout = 11, 3, 2
    ei = random_graph(rng, n, isolated=0)
    x = rng.standard_normal((n, 5)).astype(np.float32)
    w = rng.uniform(0.1, 2.0, ei.shape[1]).astype(np.float32)
    conv = agnn.from_dgl(GATConv(5, fout, heads))
    params = {k: v.astype(np.float64) for k, v in conv.state_dict().items()}
    h = (x @ params["lin.weight"].T).reshape(n, heads, fout)
    el = (h * params["att_src"]).sum(-1)
    er = (h * params["att_dst"]).sum(-1)
    logits = el[ei[0]] + er[ei[1]]
    logits = np.where(logits > 0, logits, 0.2 * logits)
    attn = np.zeros((ei.shape[1], heads))
    for v in range(n):
        mask = ei[1] == v
        a = np.exp(logits[mask] - logits[mask].max(0))
        attn[mask] = a / a.sum(0) * w[mask, None]
    out = np.zeros((n, heads, fout))
    np.add.at(out, ei[1], attn[:, :, None] * h[ei[0]])
    out += params["bias"].reshape(heads, fout)
    g = make_graph((ei[0], ei[1]), num_nodes=n)
    for first, second in ((g, x), (x, ops.to_csr(ei, n, n)), (x, ei.astype(np.int32))):
        got, got_attn = conv(first, second, edge_weight=w, get_attention=True)
        assert got_attn.shape == (ei.shape[1], heads, 1)
        assert rel_err(got_attn[:, :, 0], attn) < 1e-5
        assert rel_err(got, out) < 1e-5
    before = w.copy()
    conv(x, ei, edge_weight=w)
    np.testing.assert_array_equal(w, before)


@pytest.mark.parametrize(
    "fin,residual,bias,share",
    [
        (4, False, True, False),
        (4, True, True, False),
        (6, True, True, True),
        (4, True, False, True),
    ],
)
def test_from_dgl_gatv2(fin, residual, bias, share):
    """DGL's GATv2Conv against a dense reference: biased fc_src / fc_dst (or shared), the
    residual Linear's bias as the only output bias (none with Identity), ELU, get_attention;
    its state dict (with DGL's names) loads into a layer built by hand."""
    torch.manual_seed(5)
    rng = np.random.default_rng(5)
    n, heads, fout = 10, 2, 3
    ei = random_graph(rng, n, isolated=0)
    x = rng.standard_normal((n, fin)).astype(np.float32)
    ref = GATv2Conv(fin, fout, heads, residual=residual, bias=bias, share_weights=share)
    with torch.no_grad():
        for p in ref.parameters():
            p.normal_(0, 0.5)
    conv = agnn.from_dgl(ref)
    assert conv.concat is None and not conv.add_self_loops and conv.share_weights == share
    params = {k: v.detach().double().numpy() for k, v in ref.state_dict().items()}

    def linear(name, a):
        out = a @ params[f"{name}.weight"].T
        return out + params[f"{name}.bias"] if f"{name}.bias" in params else out

    fs = linear("fc_src", x).reshape(n, heads, fout)
    fd = linear("fc_dst", x).reshape(n, heads, fout)
    z = fs[ei[0]] + fd[ei[1]]
    logits = (np.where(z > 0, z, 0.1 * z) * params["attn"]).sum(-1)
    attn = np.zeros_like(logits)
    for v in range(n):
        mask = ei[1] == v
        a = np.exp(logits[mask] - logits[mask].max(0))
        attn[mask] = a / a.sum(0)
    out = np.zeros((n, heads, fout))
    np.add.at(out, ei[1], attn[:, :, None] * fs[ei[0]])
    if residual:
        out += (linear("res_fc", x) if "res_fc.weight" in params else x).reshape(n, heads, fout)
    out = np.where(out > 0, out, np.expm1(out))
    got, got_attn = conv(x, ei, get_attention=True)
    assert rel_err(got, out) < 1e-5 and rel_err(got_attn[:, :, 0], attn) < 1e-5
    dgl_state = conv.state_dict(format="dgl")
    assert set(dgl_state) == set(params)
    fresh = agnn.GATv2Conv(
        fin, fout, heads, concat=None, negative_slope=0.1, add_self_loops=False,
        share_weights=share, bias=residual and bias and fin != heads * fout, lin_bias=bias,
        activation="elu",
        residual=(True if "res_fc.weight" in params else "identity") if residual else False,
    )  # fmt: skip
    fresh.load_state_dict(params, format="dgl")
    np.testing.assert_array_equal(fresh(x, ei), got)
    with pytest.raises(ValueError, match="zero in-degree"):
        conv(x, ei[:, ei[1] != 0])


class GlobalAttentionPooling(torch.nn.Module):
    def __init__(self, gate_nn, feat_nn=None):
        super().__init__()
        self.gate_nn, self.feat_nn = gate_nn, feat_nn


class _Batched:
    """A DGL batched graph as the readouts see it."""

    def __init__(self, counts):
        self._counts = np.asarray(counts)

    def batch_num_nodes(self):
        return self._counts


@pytest.mark.parametrize("with_feat_nn", [False, True])
def test_from_dgl_global_attention_pooling(with_feat_nn):
    """DGL's GlobalAttentionPooling over a batched graph (one graph empty) against a dense
    per-graph softmax; get_attention gives the (N, 1) weights; a gate with two columns is
    refused as in DGL."""
    torch.manual_seed(6)
    rng = np.random.default_rng(6)
    counts = [4, 0, 7, 1]
    x = rng.standard_normal((12, 5)).astype(np.float32)
    feat_nn = torch.nn.Linear(5, 3) if with_feat_nn else None
    pool = agnn.from_dgl(GlobalAttentionPooling(torch.nn.Linear(5, 1), feat_nn))
    params = {k: v.astype(np.float64) for k, v in pool.state_dict().items()}
    gate = x @ params["gate_nn.weight"].T + params["gate_nn.bias"]
    feat = x @ params["feat_nn.weight"].T + params["feat_nn.bias"] if with_feat_nn else x
    want = np.zeros((4, feat.shape[1]))
    weights = np.zeros((12, 1))
    start = 0
    for b, n in enumerate(counts):
        g = gate[start : start + n]
        w = np.exp(g - g.max(initial=0)) / np.exp(g - g.max(initial=0)).sum() if n else g
        weights[start : start + n] = w
        want[b] = (w * feat[start : start + n]).sum(0)
        start += n
    got, got_w = pool(_Batched(counts), x, get_attention=True)
    assert rel_err(got, want) < 1e-5 and rel_err(got_w, weights) < 1e-5
    assert np.all(got[1] == 0)
    two = agnn.GlobalAttentionPooling(agnn.Linear(5, 2))
    with pytest.raises(ValueError, match=r"gate_nn must give \(N, 1\)"):
        two(_Batched(counts), x)


class GINEConv(torch.nn.Module):
    """DGL's GINEConv: apply_func, eps (a buffer unless learn_eps); no edge projection."""

    def __init__(self, apply_func, init_eps):
        super().__init__()
        self.apply_func = apply_func
        self.register_buffer("eps", torch.FloatTensor([init_eps]))


def test_from_dgl_gine():
    torch.manual_seed(6)
    rng = np.random.default_rng(6)
    n = 11
    ei = random_graph(rng, n, isolated=2)
    x = rng.standard_normal((n, 5)).astype(np.float32)
    e = rng.standard_normal((ei.shape[1], 5)).astype(np.float32)
    mlp = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2))
    ref = GINEConv(mlp, 0.4)
    conv = agnn.from_dgl(ref)
    neigh = np.zeros((n, 5))
    np.add.at(neigh, ei[1], np.maximum(x[ei[0]].astype(np.float64) + e, 0))
    with torch.no_grad():
        expected = mlp(torch.from_numpy((1.4 * x + neigh).astype(np.float32))).numpy()
    assert rel_err(conv(x, ei, e), expected) < 1e-5
    assert set(conv.state_dict(format="dgl")) == set(ref.state_dict())


def test_from_dgl_set2set_on_a_batched_graph():
    """DGL's Set2Set attributes (input_dim, n_iters, n_layers, lstm): the DGL form
    ``readout(graph, feat)`` on a batched arraygnn graph equals the PyG form with the graph
    of each node."""
    from arraygnn.graph import batch, graph

    class Set2Set(torch.nn.Module):
        def __init__(self, input_dim, n_iters, n_layers):
            super().__init__()
            self.input_dim, self.output_dim = input_dim, 2 * input_dim
            self.n_iters, self.n_layers = n_iters, n_layers
            self.lstm = torch.nn.LSTM(self.output_dim, self.input_dim, n_layers)

    torch.manual_seed(5)
    module = Set2Set(4, 3, 2)
    readout = agnn.from_dgl(module)
    batched = batch([graph((np.array([0, 1]), np.array([1, 2])), num_nodes=n) for n in (3, 5, 4)])
    x = np.random.default_rng(5).standard_normal((12, 4)).astype(np.float32)
    got = readout(batched, x)
    index = np.repeat(np.arange(3), [3, 5, 4])
    np.testing.assert_allclose(got, readout(x, index, dim_size=3), rtol=1e-6, atol=1e-6)
    assert got.shape == (3, 8)
    assert sorted(readout.state_dict()) == sorted(module.state_dict())


def _dgl_norm_adjacency(ei, n, weight, source_side):
    """DGL's normalised adjacency a[dst, src]: counts clamped at 1 with the source's in- or
    out-degree, or EdgeWeightNorm('both') of the weights."""
    a = np.zeros((n, n))
    if weight is None:
        counts = _dense(ei, n)
        in_deg = np.maximum(counts.sum(1), 1)
        src_deg = in_deg if source_side == "in" else np.maximum(counts.sum(0), 1)
        np.add.at(a, (ei[1], ei[0]), src_deg[ei[0]] ** -0.5 * in_deg[ei[1]] ** -0.5)
        return a
    w = weight.astype(np.float64)
    w_in = np.zeros(n)
    w_out = np.zeros(n)
    np.add.at(w_in, ei[1], w)
    np.add.at(w_out, ei[0], w)
    np.add.at(a, (ei[1], ei[0]), w_out[ei[0]] ** -0.5 * w * w_in[ei[1]] ** -0.5)
    return a


@pytest.mark.parametrize("weighted", [False, True])
def test_from_dgl_tag_and_appnp(weighted):
    """DGL's TAGConv (one Linear over [X, SX, ..., S^K X], in-degree norm on both sides) and
    APPNPConv (out-degree at the source), on a directed graph where some sources have no
    in-edges (PyG's gcn_norm drops their messages; DGL's clamp keeps them)."""

    class TAGConv(torch.nn.Module):
        def __init__(self, fin, fout, k):
            super().__init__()
            self._in_feats, self._out_feats, self._k = fin, fout, k
            self._activation = torch.relu
            self.lin = torch.nn.Linear(fin * (k + 1), fout)

    class APPNPConv(torch.nn.Module):
        def __init__(self, k, alpha):
            super().__init__()
            self._k, self._alpha = k, alpha
            self.edge_drop = torch.nn.Dropout(0.0)

    torch.manual_seed(6)
    rng = np.random.default_rng(6)
    n = 12
    ei = np.stack([rng.integers(0, n, 40), rng.integers(0, n - 3, 40)])  # 9-11: no in-edges
    x = rng.standard_normal((n, 4)).astype(np.float32)
    w = rng.uniform(0.5, 2.0, 40).astype(np.float32) if weighted else None
    tag = TAGConv(4, 3, 2)
    conv = agnn.from_dgl(tag)
    a = _dgl_norm_adjacency(ei, n, w, "in")
    hops = [x.astype(np.float64)]
    for _ in range(2):
        hops.append(a @ hops[-1])
    p = {k: v.detach().double().numpy() for k, v in tag.state_dict().items()}
    expected = np.maximum(np.concatenate(hops, 1) @ p["lin.weight"].T + p["lin.bias"], 0)
    assert rel_err(conv(x, ei, w), expected) < 1e-5
    assert sorted(conv.state_dict(format="dgl")) == sorted(tag.state_dict())
    np.testing.assert_array_equal(
        conv.state_dict(format="dgl")["lin.weight"], p["lin.weight"].astype(np.float32)
    )
    appnp = agnn.from_dgl(APPNPConv(3, 0.2))
    a = _dgl_norm_adjacency(ei, n, w, "out")
    h = x.astype(np.float64)
    for _ in range(3):
        h = 0.8 * (a @ h) + 0.2 * x
    assert rel_err(appnp(x, ei, w), h) < 1e-5
    if weighted:
        with pytest.raises(ValueError, match="non-positive edge weight"):
            appnp(x, ei, -w)
    with pytest.raises(ValueError, match="add_self_loops=False"):
        agnn.APPNP(3, 0.2, degree_norm="dgl")
    with pytest.raises(ValueError, match="degree_norm"):
        agnn.TAGConv(4, 3, degree_norm="sym")


@pytest.mark.parametrize("aggr", ["sum", "mean"])
@pytest.mark.parametrize("residual", [False, "linear", "identity"])
def test_from_dgl_nn_conv(aggr, residual):
    """DGL's NNConv (edge_func, aggregator_type, residual res_fc, bias) against its
    message-passing definition; DGL's 'max' (an elementwise max before the sum over the
    input features) is refused."""

    class NNConv(torch.nn.Module):
        def __init__(self, fin, fout, edge_func, aggr, residual):
            super().__init__()
            self._in_src_feats = self._in_dst_feats = fin
            self._out_feats, self._aggre_type, self.edge_func = fout, aggr, edge_func
            if residual == "linear":
                self.res_fc = torch.nn.Linear(fin, fout, bias=False)
            elif residual == "identity":
                self.res_fc = torch.nn.Identity()
            else:
                self.register_buffer("res_fc", None)
            self.bias = torch.nn.Parameter(torch.randn(fout))

    torch.manual_seed(7)
    rng = np.random.default_rng(7)
    fout = 4 if residual == "identity" else 3
    edge_func = torch.nn.Sequential(
        torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4 * fout)
    )
    module = NNConv(4, fout, edge_func, aggr, residual)
    conv = agnn.from_dgl(module)
    ei = random_graph(rng, 10)
    x = rng.standard_normal((10, 4)).astype(np.float32)
    ea = rng.standard_normal((ei.shape[1], 2)).astype(np.float32)
    with torch.no_grad():
        w = edge_func(torch.from_numpy(ea)).numpy().reshape(-1, 4, fout).astype(np.float64)
    m = np.einsum("ei,eio->eo", x[ei[0]].astype(np.float64), w)
    expected = np.zeros((10, fout))
    np.add.at(expected, ei[1], m)
    if aggr == "mean":
        expected /= np.maximum(np.bincount(ei[1], minlength=10), 1)[:, None]
    if residual == "linear":
        expected += x @ module.res_fc.weight.detach().numpy().T
    elif residual == "identity":
        expected += x
    expected += module.bias.detach().numpy()
    assert rel_err(conv(x, ei, ea), expected) < 1e-5
    assert sorted(conv.state_dict(format="dgl")) == sorted(module.state_dict())
    module._aggre_type = "max"
    with pytest.raises(ValueError, match="aggregator_type='max'"):
        agnn.from_dgl(module)
