"""Parity sweep of option combinations of DGL nn modules that the journey tests leave out,
against NumPy transcriptions of DGL's forwards (DGL does not install here; the files read
are named at each reference): EdgeGATConv (pair features through one ``fc``, residual /
bias / activation / slope, zero in-degree), DGLGMMConv (sum / mean / max x residual x
bias, zero in-degree), GatedGCNConv's residual rule, DGLPNAConv's ``residual=False``,
DGLSequential (tuple outputs, graph lists), WeightBasis, DGLJumpingKnowledge,
DGLHeteroLinear / HeteroEmbedding, DGLHGTConv ``presorted``. Small multigraphs with
self-loops, repeated edges and nodes without in-edges, float64, given weights.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.graph import graph as make_graph

N = 7
TOL = 1e-12


def _close(ours, ref):
    assert ours.dtype == np.float64
    assert rel_err(ours, ref) < TOL, rel_err(ours, ref)


def _randomize(layer, seed):
    """Every weight of ``layer`` (DGL names) normal(0, 0.5); returns the DGL state dict."""
    rng = np.random.default_rng(seed)
    sd = {k: 0.5 * rng.standard_normal(np.shape(v)) for k, v in layer.state_dict("dgl").items()}
    layer.load_state_dict(sd, format="dgl")
    return sd


def _segment(values, dst, n, how):
    out = np.zeros((n,) + values.shape[1:])
    for t in range(n):
        into = values[dst == t]
        if len(into):
            out[t] = {"sum": np.sum, "mean": np.mean, "max": np.max}[how](into, axis=0)
    return out


def _leaky(x, slope):
    return np.where(x >= 0, x, slope * x)


# ---- EdgeGATConv (python/dgl/nn/pytorch/conv/edgegatconv.py) ------------------------------
def edge_gat_ref(sd, src, dst, feat, ef, heads, out, slope, act, pair_fc, n_dst):
    xs, xd = feat if isinstance(feat, tuple) else (feat, feat[:n_dst])
    ws, wd = (sd["fc_src.weight"], sd["fc_dst.weight"]) if pair_fc else (sd["fc.weight"],) * 2
    fs = (xs @ ws.T).reshape(-1, heads, out)
    fd = (xd @ wd.T).reshape(-1, heads, out)
    fe = (ef @ sd["fc_edge.weight"].T).reshape(-1, heads, out)
    el, er = (fs * sd["attn_l"]).sum(-1), (fd * sd["attn_r"]).sum(-1)
    ee = (fe * sd["attn_edge"]).sum(-1)
    e = _leaky(el[src] + er[dst] + ee, slope)  # [E, H]
    a = np.zeros_like(e)
    for t in range(n_dst):
        m = dst == t
        if m.any():
            z = np.exp(e[m] - e[m].max(0))
            a[m] = z / z.sum(0)
    rst = _segment((fs[src] + fe) * a[:, :, None], dst, n_dst, "sum")
    if "res_fc.weight" in sd and xd.shape[0]:
        rst = rst + (xd @ sd["res_fc.weight"].T).reshape(-1, heads, out)
    if "bias" in sd:
        rst = rst + sd["bias"].reshape(heads, out)
    if act:
        rst = np.maximum(rst, 0)
    return rst, a[:, :, None]


EDGE_GAT_CASES = [  # in_feats, pair input, residual, bias, slope, activation
    (4, False, True, True, 0.2, False),
    (4, True, True, False, 0.1, True),  # a pair through the one ``fc``
    ((4, 3), True, False, True, 0.3, False),
    ((4, 6), True, True, True, 0.2, True),  # in_dst == heads * out: still a Linear res_fc
]


@pytest.mark.parametrize("case", range(len(EDGE_GAT_CASES)))
@pytest.mark.parametrize("zero_in", [False, True])
def test_edge_gat_conv_options(case, zero_in):
    in_feats, pair, residual, bias, slope, act = EDGE_GAT_CASES[case]
    heads, out = 2, 3
    conv = agnn.EdgeGATConv(in_feats, 2, out, heads, negative_slope=slope, residual=residual,
                            activation="relu" if act else None, allow_zero_in_degree=zero_in,
                            bias=bias, dtype=np.float64, rng=0)  # fmt: skip
    sd = _randomize(conv, case)
    rng = np.random.default_rng(case)
    n_dst = 5 if pair else N
    ei = random_graph(rng, N, n_dst, num_edges=16, isolated=2 if zero_in else 0)
    s_in, d_in = in_feats if isinstance(in_feats, tuple) else (in_feats, in_feats)
    xs = rng.standard_normal((N, s_in))
    feat = (xs, rng.standard_normal((n_dst, d_in))) if pair else xs
    ef = rng.standard_normal((ei.shape[1], 2))
    want, a_ref = edge_gat_ref(sd, ei[0], ei[1], feat, ef, heads, out, slope, act,
                               isinstance(in_feats, tuple), n_dst)  # fmt: skip
    g = make_graph((ei[0], ei[1]), num_nodes=N) if not pair else None
    h, a = (
        conv(g, feat, ef, get_attention=True)
        if g is not None
        else conv(feat, ei, ef, get_attention=True)
    )
    _close(h, want)
    _close(a, a_ref)
    assert h.shape == (n_dst, heads, out) and a.shape == (ei.shape[1], heads, 1)


# ---- DGLGMMConv (python/dgl/nn/pytorch/conv/gmmconv.py) -----------------------------------
def gmm_ref(sd, src, dst, xs, xd, pseudo, K, M, how):
    h = (xs @ sd["fc.weight"].T).reshape(-1, K, M)
    g = -0.5 * (pseudo[:, None, :] - sd["mu"][None]) ** 2 * sd["inv_sigma"][None] ** 2
    w = np.exp(g.sum(-1, keepdims=True))  # [E, K, 1]
    rst = _segment(h[src] * w, dst, xd.shape[0], how).sum(1)
    if "res_fc.weight" in sd:
        rst = rst + xd @ sd["res_fc.weight"].T
    elif xd.shape[1] == M and sd.get("_identity"):
        rst = rst + xd
    if "bias" in sd:
        rst = rst + sd["bias"]
    return rst


@pytest.mark.parametrize("how", ["sum", "mean", "max"])
@pytest.mark.parametrize("in_feats,residual,bias", [(5, True, False), ((5, 4), True, True),
                                                    (4, False, True)])  # fmt: skip
def test_dgl_gmm_conv_options(how, in_feats, residual, bias):
    K, M, D = 3, 4, 2
    conv = agnn.DGLGMMConv(in_feats, M, D, K, how, residual=residual, bias=bias,
                           allow_zero_in_degree=True, dtype=np.float64, rng=0)  # fmt: skip
    sd = _randomize(conv, 3)
    sd["_identity"] = residual
    rng = np.random.default_rng(4)
    s_in, d_in = in_feats if isinstance(in_feats, tuple) else (in_feats, in_feats)
    n_dst = 5 if isinstance(in_feats, tuple) else N
    ei = random_graph(rng, N, n_dst, num_edges=15)
    xs, xd = rng.standard_normal((N, s_in)), rng.standard_normal((n_dst, d_in))
    pseudo = rng.standard_normal((ei.shape[1], D))
    want = gmm_ref(sd, ei[0], ei[1], xs, xd if n_dst != N else xs, pseudo, K, M, how)
    if n_dst == N:
        got = conv(make_graph((ei[0], ei[1]), num_nodes=N), xs, pseudo)
    else:
        got = conv((xs, xd), ei, pseudo)
    _close(got, want)


# ---- GatedGCNConv's residual rule (python/dgl/nn/pytorch/conv/gatedgcnconv.py) ----------
@pytest.mark.parametrize("sizes,kept", [((4, 4, 4), True), ((4, 3, 4), False),
                                        ((3, 4, 4), False)])  # fmt: skip
def test_gated_gcn_residual_rule(sizes, kept):
    """DGL drops the residual unless input_feats == edge_feats == output_feats."""
    conv = agnn.GatedGCNConv(*sizes, batch_norm=False, activation=None, dtype=np.float64, rng=0)
    assert conv.residual is kept
    rng = np.random.default_rng(0)
    ei = random_graph(rng, N, num_edges=12)
    x, ef = rng.standard_normal((N, sizes[0])), rng.standard_normal((12, sizes[1]))
    plain = agnn.GatedGCNConv(*sizes, residual=False, batch_norm=False, activation=None,
                              dtype=np.float64, rng=0)  # fmt: skip
    h, e = conv(x, ei, ef)
    h0, e0 = plain(x, ei, ef)
    _close(h, h0 + x if kept else h0)
    _close(e, e0 + ef if kept else e0)


# ---- DGLPNAConv residual=False (python/dgl/nn/pytorch/conv/pnaconv.py) -------------------
def test_pna_conv_residual_false_is_the_residual_less_output():
    kw = dict(aggregators=["mean", "max"], scalers=["identity", "amplification"], delta=1.3,
              num_towers=2, edge_feat_size=2, dtype=np.float64, rng=0)  # fmt: skip
    with_res = agnn.DGLPNAConv(4, 4, residual=True, **kw)
    without = agnn.DGLPNAConv(4, 4, residual=False, **kw)
    without.load_state_dict(with_res.state_dict("dgl"), format="dgl")
    rng = np.random.default_rng(1)
    ei = random_graph(rng, N, num_edges=14)
    x, ef = rng.standard_normal((N, 4)), rng.standard_normal((14, 2))
    g = make_graph((ei[0], ei[1]), num_nodes=N)
    _close(with_res(g, x, ef), without(g, x, ef) + x)


# ---- DGLSequential (python/dgl/nn/pytorch/utils.py, Sequential.forward) ------------------
def test_dgl_sequential_tuple_outputs_and_graph_lists():
    rng = np.random.default_rng(2)
    ei = random_graph(rng, N, num_edges=12)
    g = make_graph((ei[0], ei[1]), num_nodes=N)
    x, ef = rng.standard_normal((N, 4)), rng.standard_normal((12, 4))
    a = agnn.GatedGCNConv(4, 4, 4, dtype=np.float64, rng=0)
    b = agnn.GatedGCNConv(4, 4, 4, dtype=np.float64, rng=1)
    seq = agnn.DGLSequential(a, b)
    h, e = seq(g, x, ef)  # (h, e) of the first is unpacked into the second
    h_ref, e_ref = b(g, *a(g, x, ef))
    _close(h, h_ref)
    _close(e, e_ref)
    # a list of graphs: zip, so extra graphs (or extra modules) are left out
    h2, e2 = seq([g, g, g], x, ef)
    _close(h2, h_ref)
    one = seq([g], x, ef)
    _close(one[0], a(g, x, ef)[0])
    # no module: the features come back as the tuple
    assert agnn.DGLSequential()(g, x, ef)[0] is x
    with pytest.raises(TypeError, match="DGLSequential: graph must be"):
        seq((g, g), x, ef)


# ---- WeightBasis / DGLJumpingKnowledge (python/dgl/nn/pytorch/utils.py) ------------------
@pytest.mark.parametrize("shape", [[3, 2], (2, 3, 2), (5,)])
def test_weight_basis_shapes(shape):
    wb = agnn.WeightBasis(shape, 2, 4, dtype=np.float64, rng=0)
    sd = _randomize(wb, 5)
    want = (sd["w_comp"] @ sd["weight"].reshape(2, -1)).reshape((4,) + tuple(shape))
    _close(wb(), want)


def test_dgl_jumping_knowledge_cat_widths_and_max_rank3():
    rng = np.random.default_rng(6)
    xs = [rng.standard_normal((3, w)) for w in (2, 5, 1)]
    _close(agnn.DGLJumpingKnowledge("cat")(xs), np.concatenate(xs, -1))
    ys = [rng.standard_normal((3, 2, 4)) for _ in range(3)]
    _close(agnn.DGLJumpingKnowledge("max")(ys), np.stack(ys, -1).max(-1))
    _close(agnn.DGLJumpingKnowledge("cat")(tuple(ys)), np.concatenate(ys, -1))


# ---- DGLHeteroLinear / HeteroEmbedding (python/dgl/nn/pytorch/hetero.py) -----------------
def test_dgl_hetero_linear_and_embedding_shapes():
    et = ("user", "follows", "user")
    lin = agnn.DGLHeteroLinear({"user": 3, et: 2}, 4, bias=False, dtype=np.float64, rng=0)
    sd = _randomize(lin, 7)
    assert sorted(sd) == ["linears.('user', 'follows', 'user').weight", "linears.user.weight"]
    rng = np.random.default_rng(8)
    feats = {et: rng.standard_normal((2, 5, 2)), "user": rng.standard_normal((3, 3))}
    out = lin(feats)
    assert list(out) == [et, "user"]  # the input's order
    _close(out[et], feats[et] @ sd[f"linears.{et}.weight"].T)
    _close(out["user"], feats["user"] @ sd["linears.user.weight"].T)
    emb = agnn.HeteroEmbedding({"user": 3, et: 4}, 2, dtype=np.float64, rng=0)
    table = emb.weight
    ids = {et: np.array([[3, 0], [1, 1]], np.int32), "user": np.array(2)}
    got = emb(ids)
    _close(got[et], table[et][ids[et]])
    assert got["user"].shape == (2,)
    with pytest.raises(ValueError, match=r"HeteroEmbedding: ids of type .*follows"):
        emb({et: np.array([4])})


# ---- DGLHGTConv presorted (python/dgl/nn/pytorch/conv/hgtconv.py) ------------------------
def test_dgl_hgt_conv_presorted_same_result():
    """``presorted`` is a speed hint in DGL (TypedLinear's segment path): same output."""
    conv = agnn.DGLHGTConv(4, 2, 2, 2, 3, use_norm=True, dtype=np.float64, rng=0)
    rng = np.random.default_rng(9)
    ei = random_graph(rng, N, num_edges=14)
    ntype = np.sort(rng.integers(0, 2, N))
    etype = np.sort(rng.integers(0, 3, 14))
    x = rng.standard_normal((N, 4))
    g = make_graph((ei[0], ei[1]), num_nodes=N)
    _close(conv(g, x, ntype, etype, presorted=True), conv(g, x, ntype, etype))


# ---- dropout probabilities: DGL builds torch.nn.Dropout(p), which refuses p outside [0, 1]
@pytest.mark.parametrize(
    "make,what",
    [
        (lambda p: agnn.GatedGCNConv(4, 4, 4, dropout=p), "GatedGCNConv: dropout"),
        (lambda p: agnn.EdgeGATConv(4, 2, 3, 2, feat_drop=p), "EdgeGATConv: feat_drop"),
        (lambda p: agnn.EdgeGATConv(4, 2, 3, 2, attn_drop=p), "EdgeGATConv: attn_drop"),
        (lambda p: agnn.DGLPNAConv(4, 4, ["mean"], ["identity"], 1.0, p), "DGLPNAConv: dropout"),
        (lambda p: agnn.DGNConv(4, 4, ["mean"], ["identity"], 1.0, p), "DGNConv: dropout"),
        (lambda p: agnn.DGLHGTConv(4, 2, 2, 2, 3, dropout=p), "DGLHGTConv: dropout"),
    ],
)
def test_dropout_must_be_a_probability(make, what):
    make(0)
    make(1.0)
    for bad in (1.5, -0.1):
        with pytest.raises(ValueError, match=f"{what} must be a probability"):
            make(bad)
    with pytest.raises(TypeError, match=f"{what} must be a real number"):
        make("0.1")
