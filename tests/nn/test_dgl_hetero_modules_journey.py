"""A DGL user's heterogeneous layers on arraygnn (session 10): ``HeteroGraphConv`` over
``GraphConv`` / ``SAGEConv`` / ``GATConv``, ``RelGraphConv`` (basis / bdd) and DGL's
``HGTConv`` on ``to_homogeneous`` graphs, full graphs and sampled blocks.

Weights are random DGL-named state dicts (DGL's parameter layouts, read from dmlc/dgl
python/dgl/nn/pytorch/conv/{graphconv,sageconv,gatconv,relgraphconv,hgtconv}.py and
linear.py ``TypedLinear``); every expected value is a NumPy transcription of DGL's forward.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as nn
from arraygnn import NodeDataLoader
from arraygnn.graph import EID, ETYPE, NID, NTYPE, heterograph, to_homogeneous
from arraygnn.sampling import MultiLayerFullNeighborSampler, NeighborSampler

FOLLOWS = ("user", "follows", "user")
PLAYS = ("user", "plays", "game")
DEVELOPS = ("developer", "develops", "game")
F = 2


def _g():
    g = heterograph(
        {
            FOLLOWS: (np.array([0, 1, 3]), np.array([1, 2, 0])),
            PLAYS: (np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])),
            DEVELOPS: (np.array([0, 1]), np.array([0, 2])),
        },
        num_nodes_dict={"user": 4, "game": 3, "developer": 2},
    )
    rng = np.random.default_rng(0)
    for t in g.ntypes:
        g.nodes[t].data["x"] = rng.standard_normal((g.num_nodes(t), F)).astype(np.float32)
    return g


def _r(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _edges(g, c):
    return [a.astype(np.int64) for a in g.edges(etype=c)]


def _ref_graphconv(g, c, xs, sd):
    u, v = _edges(g, c)
    ns, nd = g.num_src_nodes(c[0]), g.num_dst_nodes(c[2])
    dout = np.maximum(np.bincount(u, minlength=ns), 1) ** -0.5
    din = np.maximum(np.bincount(v, minlength=nd), 1) ** -0.5
    agg = np.zeros((nd, xs.shape[1]))
    np.add.at(agg, v, xs[u] * dout[u, None])
    return (agg * din[:, None]) @ sd["weight"] + sd["bias"]


def _ref_sage_mean(g, c, xs, xd, sd):
    u, v = _edges(g, c)
    nd = g.num_dst_nodes(c[2])
    agg = np.zeros((nd, xs.shape[1]))
    np.add.at(agg, v, xs[u])
    agg /= np.maximum(np.bincount(v, minlength=nd), 1)[:, None]
    return xd @ sd["fc_self.weight"].T + sd["fc_self.bias"] + agg @ sd["fc_neigh.weight"].T


def _ref_gat(g, c, xs, xd, sd, heads, out):
    u, v = _edges(g, c)
    fs = (xs @ sd["fc.weight"].T).reshape(-1, heads, out)
    fd = (xd @ sd["fc.weight"].T).reshape(-1, heads, out)
    e = (fs * sd["attn_l"]).sum(-1)[u] + (fd * sd["attn_r"]).sum(-1)[v]
    e = np.where(e > 0, e, 0.2 * e)
    rst = np.zeros((xd.shape[0], heads, out))
    for d in range(xd.shape[0]):
        m = v == d
        if m.any():
            a = np.exp(e[m] - e[m].max(0))
            a /= a.sum(0)
            rst[d] = (a[:, :, None] * fs[u[m]]).sum(0)
    return rst + sd["bias"].reshape(1, heads, out)


def _hetero_layer(rng, fin, fout, aggregate="sum", heads=1):
    mods = {
        "follows": nn.GATConv(fin, fout, heads, add_self_loops=False, concat=None),
        "plays": nn.SAGEConv(fin, fout, "mean"),
        "develops": nn.GraphConv(fin, fout),
    }
    sd = {
        "mods.follows.fc.weight": _r(rng, heads * fout, fin),
        "mods.follows.attn_l": _r(rng, 1, heads, fout),
        "mods.follows.attn_r": _r(rng, 1, heads, fout),
        "mods.follows.bias": _r(rng, heads * fout),
        "mods.plays.fc_neigh.weight": _r(rng, fout, fin),
        "mods.plays.fc_self.weight": _r(rng, fout, fin),
        "mods.plays.fc_self.bias": _r(rng, fout),
        "mods.develops.weight": _r(rng, fin, fout),
        "mods.develops.bias": _r(rng, fout),
    }
    conv = nn.HeteroGraphConv(mods, aggregate=aggregate).load_state_dict(sd, format="dgl")
    return conv, sd


def _sub(sd, prefix):
    return {k[len(prefix) :]: v for k, v in sd.items() if k.startswith(prefix)}


def _ref_hetero(g, x, sd, heads=1, fout=3):
    """Per destination type, the per-relation outputs in canonical order."""
    out = {
        DEVELOPS: _ref_graphconv(g, DEVELOPS, x["developer"], _sub(sd, "mods.develops.")),
        FOLLOWS: _ref_gat(g, FOLLOWS, x["user"], x["user"], _sub(sd, "mods.follows."), heads, fout),
        PLAYS: _ref_sage_mean(g, PLAYS, x["user"], x["game"], _sub(sd, "mods.plays.")),
    }
    return {"game": [out[DEVELOPS], out[PLAYS]], "user": [out[FOLLOWS]]}


@pytest.mark.parametrize("aggregate", ["sum", "stack", "callable"])
def test_hetero_graph_conv_dgl_weights(aggregate):
    g = _g()
    x = {t: g.nodes[t].data["x"] for t in g.ntypes}
    agg = (lambda xs, t: xs[-1] - xs[0]) if aggregate == "callable" else aggregate
    conv, sd = _hetero_layer(np.random.default_rng(1), F, 3, agg)
    got = conv(g, x)
    assert sorted(got) == ["game", "user"]  # developer receives nothing (DGL)
    ref = _ref_hetero(g, x, sd)
    comb = {
        "sum": lambda xs: np.sum(xs, 0),
        "stack": lambda xs: np.stack(xs, 1),
        "callable": lambda xs: xs[-1] - xs[0],
    }[aggregate]
    np.testing.assert_allclose(got["game"], comb(ref["game"]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["user"], comb(ref["user"]), rtol=1e-5, atol=1e-5)
    # the DGL names come back out
    assert sorted(conv.state_dict(format="dgl")) == sorted(sd)


def test_hetero_graph_conv_mismatched_relation_shapes_name_the_type():
    # GATConv keeps [N, H, F] (DGL), GraphConv gives [N, F]: DGL's th.stack fails too,
    # here the error names the destination type and the relations' shapes
    g = _g()
    x = {t: g.nodes[t].data["x"] for t in g.ntypes}
    conv = nn.HeteroGraphConv(
        {
            "follows": nn.GraphConv(F, 3),
            "plays": nn.GATConv(F, 3, 1, add_self_loops=False, concat=None),
            "develops": nn.GraphConv(F, 3),
        }
    )
    with pytest.raises(ValueError, match=r"'game'.*\(3, 3\).*\(3, 1, 3\)"):
        conv(g, x)


def _two_layers(rng):
    l1, _ = _hetero_layer(rng, F, 3)
    l2, _ = _hetero_layer(rng, 3, 2)

    def flat(out):  # GATConv's [N, 1, F] to [N, F] (DGL models flatten the heads)
        return {t: v.reshape(v.shape[0], int(np.prod(v.shape[1:]))) for t, v in out.items()}

    def run(gs, x):
        return flat(l2(gs[1], flat(l1(gs[0], x))))

    return run


def test_blocks_from_samplers_match_the_full_graph():
    g = _g()
    x = {t: g.nodes[t].data["x"] for t in g.ntypes}
    run = _two_layers(np.random.default_rng(2))
    full = run([g, g], x)
    seeds = {"game": np.array([2, 0]), "user": np.array([1])}
    for sampler in (MultiLayerFullNeighborSampler(2), NeighborSampler([-1, 10], seed=0)):
        input_nodes, output_nodes, blocks = sampler.sample(g, seeds)
        assert {t: v.tolist() for t, v in output_nodes.items()} == {"game": [2, 0], "user": [1]}
        # the first block's sources carry their features (DGL: blocks[0].srcdata)
        for t in blocks[0].srctypes:
            np.testing.assert_array_equal(blocks[0].srcdata["x"][t], x[t][input_nodes[t]])
        got = run(blocks, blocks[0].srcdata["x"])
        for t, ids in seeds.items():
            np.testing.assert_allclose(got[t], full[t][ids], rtol=1e-5, atol=1e-5)
    # DataLoader-style iteration over every game node
    loader = NodeDataLoader(
        g, {"game": np.arange(3)}, MultiLayerFullNeighborSampler(2), batch_size=2
    )
    seen = []
    for input_nodes, output_nodes, blocks in loader:
        h = run(blocks, {t: x[t][input_nodes[t]] for t in blocks[0].srctypes})
        np.testing.assert_allclose(
            h["game"], full["game"][output_nodes["game"]], rtol=1e-5, atol=1e-5
        )
        seen += output_nodes["game"].tolist()
    assert sorted(seen) == [0, 1, 2]


# ---------------------------------------------------------------- RelGraphConv / HGTConv
def _typed_basis(sd, nb, fin, fout, nrel):
    return (sd["linear_r.coeff"] @ sd["linear_r.W"].reshape(nb, -1)).reshape(nrel, fin, fout)


def _ref_rgcn(src, dst, n_dst, feat, et, sd, regularizer, nb, fin, fout, nrel):
    if regularizer == "basis":
        w = _typed_basis(sd, nb, fin, fout, nrel)
        m = np.einsum("ei,eio->eo", feat[src], w[et])
    else:  # bdd: block-diagonal (DGL's TypedLinear.bdd_mm)
        w = sd["linear_r.W"].reshape(nrel, nb, fin // nb, fout // nb)
        xb = feat[src].reshape(-1, nb, fin // nb)
        m = np.einsum("abc,abcd->abd", xb, w[et]).reshape(-1, fout)
    h = np.zeros((n_dst, fout))
    np.add.at(h, dst, m)
    return h + sd["h_bias"] + feat[:n_dst] @ sd["loop_weight"]


@pytest.mark.parametrize("regularizer", ["basis", "bdd"])
def test_rel_graph_conv_on_to_homogeneous_and_blocks(regularizer):
    g = _g()
    hg = to_homogeneous(g, ndata=["x"])
    nrel, fin, fout, nb = len(g.canonical_etypes), F, 4, 2
    rng = np.random.default_rng(3)
    if regularizer == "basis":
        sd = {"linear_r.W": _r(rng, nb, fin, fout), "linear_r.coeff": _r(rng, nrel, nb)}
    else:
        sd = {"linear_r.W": _r(rng, nrel, nb * (fin // nb) * (fout // nb))}
    sd.update({"h_bias": _r(rng, fout), "loop_weight": _r(rng, fin, fout)})
    conv = nn.RelGraphConv(fin, fout, nrel, regularizer, nb).load_state_dict(sd, format="dgl")
    src, dst = (a.astype(np.int64) for a in hg.edges())
    feat, et = hg.ndata["x"], hg.edata[ETYPE]
    want = _ref_rgcn(src, dst, hg.num_nodes(), feat, et, sd, regularizer, nb, fin, fout, nrel)
    got = conv(hg, feat, et, presorted=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # DGL's R-GCN minibatch recipe: sample the homogeneous graph, the blocks keep ETYPE
    _, out_nodes, blocks = MultiLayerFullNeighborSampler(1).sample(hg, np.array([4, 2]))
    b = blocks[0]
    assert b.edata[ETYPE].tolist() == hg.edata[ETYPE][b.edata[EID]].tolist()
    got_b = conv(b, b.srcdata["x"], b.edata[ETYPE])
    np.testing.assert_allclose(got_b, want[out_nodes], rtol=1e-5, atol=1e-5)


def _ref_hgt(src, dst, x, xd, nt_s, nt_d, et, sd, heads, d):
    def tl(name, v, t):
        return np.einsum("ni,nio->no", v, sd[name][t])

    k = tl("linear_k.W", x, nt_s).reshape(-1, heads, d)
    q = tl("linear_q.W", xd, nt_d).reshape(-1, heads, d)
    v = tl("linear_v.W", x, nt_s).reshape(-1, heads, d)
    a = np.zeros((len(src), heads))
    m = np.zeros((len(src), heads, d))
    for i in range(heads):
        kw = np.einsum("ei,eio->eo", k[src, i], sd[f"relation_att.{i}.W"][et])
        a[:, i] = (kw * q[dst, i]).sum(-1) * sd[f"relation_pri.{i}"][et] / np.sqrt(d)
        m[:, i] = np.einsum("ei,eio->eo", v[src, i], sd[f"relation_msg.{i}.W"][et])
    h = np.zeros((xd.shape[0], heads, d))
    for t in range(xd.shape[0]):
        sel = dst == t
        if sel.any():
            w = np.exp(a[sel] - a[sel].max(0))
            h[t] = ((w / w.sum(0))[:, :, None] * m[sel]).sum(0)
    h = tl("linear_a.W", h.reshape(-1, heads * d), nt_d)
    alpha = 1 / (1 + np.exp(-sd["skip"][nt_d]))[:, None]
    return h * alpha + (xd @ sd["residual_w"]) * (1 - alpha)


def test_dgl_hgt_conv_on_to_homogeneous_and_blocks():
    g = _g()
    hg = to_homogeneous(g, ndata=["x"])
    heads, d, nnt, net = 2, 2, len(g.ntypes), len(g.canonical_etypes)
    hd = heads * d
    rng = np.random.default_rng(4)
    sd = {f"linear_{n}.W": _r(rng, nnt, F, hd) for n in "kqv"}
    sd["linear_a.W"] = _r(rng, nnt, hd, hd)
    sd["skip"] = _r(rng, nnt)
    sd["residual_w"] = _r(rng, F, hd)
    for i in range(heads):
        sd[f"relation_pri.{i}"] = _r(rng, net)
        sd[f"relation_att.{i}.W"] = _r(rng, net, d, d)
        sd[f"relation_msg.{i}.W"] = _r(rng, net, d, d)
    conv = nn.DGLHGTConv(F, d, heads, nnt, net, dropout=0.0).load_state_dict(sd, format="dgl")
    src, dst = (a.astype(np.int64) for a in hg.edges())
    x, nt, et = hg.ndata["x"], hg.ndata[NTYPE], hg.edata[ETYPE]
    want = _ref_hgt(src, dst, x, x, nt, nt, et, sd, heads, d)
    np.testing.assert_allclose(conv(hg, x, nt, et, presorted=True), want, rtol=1e-4, atol=1e-5)
    _, out_nodes, blocks = NeighborSampler([-1], seed=0).sample(hg, np.array([3, 5]))
    b = blocks[0]
    got = conv(b, b.srcdata["x"], b.srcdata[NTYPE], b.edata[ETYPE])
    np.testing.assert_allclose(got, want[out_nodes], rtol=1e-4, atol=1e-5)
    assert b.srcdata[NID][: b.num_dst_nodes()].tolist() == [3, 5]
