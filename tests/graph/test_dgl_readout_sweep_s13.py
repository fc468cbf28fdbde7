"""Parity sweep (session 13): DGL's readout functions and global pooling modules on the DGL
face, over options the earlier tests leave out: multi-dimensional and float32 / float64
features, heterographs (``ntype`` / ``etype``), batches with an empty graph in the middle
and at the end and graphs without edges, ``topk_*`` with ``k`` larger than every graph,
ascending order with ``sortby``, and real infinities in the data.

DGL is not installed: each expected value is a NumPy transcription of dmlc/dgl (read at
3d16000b) python/dgl/readout.py (``readout_nodes`` = ``segment.segment_reduce(
batch_num_nodes, x * w, op)``, ``softmax_nodes`` = ``segment.segment_softmax``,
``broadcast_nodes`` = ``repeat_interleave``, ``_topk_on`` / ``_topk_torch``),
python/dgl/ops/segment.py (``mean`` = sum / clamp(len, 1); ``max`` / ``min`` then
``replace_inf_with_zero``; softmax = exp(x - that max) / sum), src/array/kernel.cc
(``SegmentReduceDispatch``: float features only) and python/dgl/nn/pytorch/glob.py
(``SumPooling`` ... ``SortPooling`` = sort each row, ``topk_nodes(sortby=-1)``, view
``(-1, k * D)``; ``GlobalAttentionPooling``: ``gate.shape[-1] == 1``, softmax_nodes(gate),
sum_nodes(feat * gate); ``Set2Set``).

``topk`` is compared with each graph's own ``torch.topk`` along the rows (DGL's documented
meaning): DGL's ``pad_packed_tensor`` misplaces the rows after an empty graph that is not
last and raises ``IndexError`` for an empty graph at the end (its ``index[cum[:-1]] +=``
drops repeated positions), see docs/coming_from_dgl.md.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.graph import (
    batch,
    broadcast_edges,
    broadcast_nodes,
    graph,
    heterograph,
    max_edges,
    max_nodes,
    mean_edges,
    mean_nodes,
    readout_edges,
    readout_nodes,
    softmax_edges,
    softmax_nodes,
    sum_edges,
    sum_nodes,
    topk_edges,
    topk_nodes,
)

# (src, dst, num_nodes): a path, an empty graph, a pair without edges, a 4-node graph, an
# empty graph last
_GRAPHS = [
    ([0, 1], [1, 2], 3),
    ([], [], 0),
    ([], [], 2),
    ([0, 1, 2, 3, 3], [1, 2, 3, 0, 1], 4),
    ([], [], 0),
]
NODES = np.array([n for _, _, n in _GRAPHS])
EDGES = np.array([len(u) for u, _, _ in _GRAPHS])


def _batched(dtype=np.float64, shape=(3,), seed=0):
    rng = np.random.default_rng(seed)
    gs = [graph((np.array(u, np.int64), np.array(v, np.int64)), num_nodes=n) for u, v, n in _GRAPHS]
    bg = batch(gs)
    n, e = int(NODES.sum()), int(EDGES.sum())
    bg.ndata["h"] = rng.standard_normal((n, *shape)).astype(dtype)
    bg.edata["h"] = rng.standard_normal((e, *shape)).astype(dtype)
    return bg, rng


# ---------------------------------------------------------------- NumPy references
def _ptr(counts):
    return np.concatenate([[0], np.cumsum(counts)])


def ref_reduce(counts, x, op):
    """dgl.ops.segment.segment_reduce: 0 for an empty segment; max / min infinities -> 0."""
    p = _ptr(counts)
    out = np.zeros((len(counts), *x.shape[1:]), dtype=x.dtype)
    for i, (a, b) in enumerate(zip(p, p[1:])):
        if b > a:
            seg = x[a:b]
            out[i] = {"sum": seg.sum, "max": seg.max, "min": seg.min}.get(op, seg.sum)(0)
            if op == "mean":
                out[i] = out[i] / (b - a)
    if op in ("max", "min"):
        out[np.isinf(out)] = 0
    return out


def ref_softmax(counts, x):
    """dgl.ops.segment.segment_softmax, formula for formula."""
    top = np.repeat(ref_reduce(counts, x, "max"), counts, axis=0)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - top)
        return e / np.repeat(ref_reduce(counts, e, "sum"), counts, axis=0)


def ref_topk(counts, x, k, descending, sortby):
    """Each graph's torch.topk along its rows (ties do not occur in the data), zero rows
    past a graph's end, infinities -> 0 (``_topk_torch``'s masked_fill /
    ``replace_inf_with_zero``). Returns values and a mask of the meaningful indices."""
    p, d = _ptr(counts), x.shape[1]
    vals = np.zeros((len(counts), k, d), dtype=x.dtype)
    idx = np.zeros((len(counts), k) if sortby is not None else (len(counts), k, d), np.int64)
    for i, (a, b) in enumerate(zip(p, p[1:])):
        seg, m = x[a:b], min(k, b - a)
        if sortby is not None:
            order = np.argsort(-seg[:, sortby] if descending else seg[:, sortby], kind="stable")
            vals[i, :m], idx[i, :m] = seg[order[:m]], order[:m]
        else:
            order = np.argsort(-seg if descending else seg, axis=0, kind="stable")
            vals[i, :m] = np.take_along_axis(seg, order[:m], axis=0)
            idx[i, :m] = order[:m]
    vals[np.isinf(vals)] = 0
    valid = np.arange(k)[None, :] < np.minimum(counts, k)[:, None]
    return vals, idx, valid


# ---------------------------------------------------------------- readout functions
_READ = {"nodes": (readout_nodes, NODES, "ntype"), "edges": (readout_edges, EDGES, "etype")}
_NAMED = {
    ("nodes", "sum"): sum_nodes,
    ("nodes", "mean"): mean_nodes,
    ("nodes", "max"): max_nodes,
    ("edges", "sum"): sum_edges,
    ("edges", "mean"): mean_edges,
    ("edges", "max"): max_edges,
}


@pytest.mark.parametrize("kind", ["nodes", "edges"])
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_readout_ops_weights_and_feature_shapes(kind, op, dtype):
    fn, counts, _ = _READ[kind]
    for shape in [(), (3,), (2, 3)]:
        bg, rng = _batched(dtype, shape)
        frame = bg.ndata if kind == "nodes" else bg.edata
        x = frame["h"]
        # weights: one per row (broadcast over the feature dims) and one per entry
        frame["w1"] = rng.uniform(-1, 2, (x.shape[0],) + (1,) * len(shape)).astype(dtype)
        frame["wf"] = rng.uniform(-1, 2, x.shape).astype(dtype)
        for weight in (None, "w1", "wf"):
            got = fn(bg, "h", weight, op=op)
            want = ref_reduce(counts, x if weight is None else x * frame[weight], op)
            assert got.shape == (len(counts), *shape) and got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
            if (kind, op) in _NAMED:
                np.testing.assert_array_equal(_NAMED[kind, op](bg, "h", weight), got)


@pytest.mark.parametrize("kind", ["nodes", "edges"])
def test_readout_max_min_turn_infinities_into_zero_as_dgl(kind):
    """segment_reduce's replace_inf_with_zero: a graph whose max (min) is +inf (-inf), or
    whose rows are all -inf for max (a masked feature), reads out 0, as DGL."""
    fn, counts, _ = _READ[kind]
    bg, _ = _batched(np.float64, (2,))
    frame = bg.ndata if kind == "nodes" else bg.edata
    x = frame["h"].copy()
    x[0, 0], x[1, 1] = np.inf, -np.inf  # graph 0 (3 nodes / 2 edges)
    x[-1] = -np.inf  # a row of the last non-empty graph
    x[-2:, 1] = -np.inf
    frame["x"] = x
    for op in ("max", "min"):
        got = fn(bg, "x", op=op)
        np.testing.assert_array_equal(got, ref_reduce(counts, x, op))
        assert np.isfinite(got).all()


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
@pytest.mark.parametrize("op", ["sum", "mean", "max"])
def test_readout_of_non_float_features_is_a_type_error_as_dgl(dtype, op):
    """DGL's segment reduce kernel takes float features only (SegmentReduceDispatch); an
    integer mean truncated silently before. An integer feature times a float weight is a
    float product (torch's promotion), which DGL takes."""
    bg, _ = _batched()
    bg.ndata["i"] = np.arange(bg.num_nodes()).astype(dtype)
    bg.ndata["f"] = np.linspace(-1, 1, bg.num_nodes())
    with pytest.raises(TypeError, match=r"readout_nodes: feature 'i' must be floating"):
        readout_nodes(bg, "i", op=op)
    with pytest.raises(TypeError, match=r"readout_nodes: feature 'i' times weight 'i' must"):
        readout_nodes(bg, "i", "i", op=op)
    want = ref_reduce(NODES, bg.ndata["i"] * bg.ndata["f"], op)
    np.testing.assert_allclose(readout_nodes(bg, "i", "f", op=op), want)
    for pool in (agnn.SumPooling(), agnn.AvgPooling(), agnn.MaxPooling()):
        with pytest.raises(TypeError, match=rf"{type(pool).__name__}: feat must be floating"):
            pool(bg, bg.ndata["i"])


def test_readout_bad_weight_and_op_name_the_argument():
    bg, _ = _batched(np.float64, (3,))
    bg.ndata["w"] = np.ones(bg.num_nodes())  # (N,) against (N, 3): does not broadcast
    with pytest.raises(ValueError, match=r"readout_nodes: weight 'w' of shape \(9,\)"):
        readout_nodes(bg, "h", "w")
    with pytest.raises(ValueError, match=r"op must be one of"):
        readout_edges(bg, "h", op="prod")


@pytest.mark.parametrize("kind", ["nodes", "edges"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_over_each_graph(kind, shape, dtype):
    fn = softmax_nodes if kind == "nodes" else softmax_edges
    counts = NODES if kind == "nodes" else EDGES
    bg, _ = _batched(dtype, shape, seed=1)
    frame = bg.ndata if kind == "nodes" else bg.edata
    got = fn(bg, "h")
    assert got.shape == frame["h"].shape and got.dtype == dtype
    np.testing.assert_allclose(got, ref_softmax(counts, frame["h"]), rtol=1e-5, atol=1e-7)


def test_softmax_with_minus_infinity_rows():
    """-inf logits get 0; a graph whose logits are all -inf gives NaN (0 / 0), as DGL."""
    bg, _ = _batched(np.float64, (2,))
    x = bg.ndata["h"].copy()
    x[0, 0] = -np.inf  # graph 0: one masked row in column 0
    x[5:, 1] = -np.inf  # graph 3 (rows 5..8): column 1 all masked
    bg.ndata["x"] = x
    got = softmax_nodes(bg, "x")
    np.testing.assert_allclose(got, ref_softmax(NODES, x))
    assert got[0, 0] == 0 and np.isnan(got[5:, 1]).all() and np.isfinite(got[5:, 0]).all()
    # a +inf logit: NaN for its graph's whole column (DGL: NaN there, 0 for the other
    # rows; documented in docs/coming_from_dgl.md); the other columns and graphs are kept
    x[1, 0] = np.inf
    bg.ndata["x"] = x
    got = softmax_nodes(bg, "x")
    assert np.isnan(got[:3, 0]).all()
    np.testing.assert_allclose(got[3:, 0], ref_softmax(NODES, x)[3:, 0])
    np.testing.assert_allclose(got[:, 1], ref_softmax(NODES, x)[:, 1])


@pytest.mark.parametrize("kind", ["nodes", "edges"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_broadcast_to_each_graph(kind, shape, dtype):
    fn = broadcast_nodes if kind == "nodes" else broadcast_edges
    counts = NODES if kind == "nodes" else EDGES
    bg, rng = _batched()
    feat = (rng.standard_normal((len(counts), *shape)) * 10).astype(dtype)
    got = fn(bg, feat)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.repeat(feat, counts, axis=0))


# ---------------------------------------------------------------- topk
@pytest.mark.parametrize("kind", ["nodes", "edges"])
@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("sortby", [None, 0, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_topk_against_per_graph_topk(kind, descending, sortby, dtype):
    fn = topk_nodes if kind == "nodes" else topk_edges
    counts = NODES if kind == "nodes" else EDGES
    bg, _ = _batched(dtype, (3,), seed=2)
    x = (bg.ndata if kind == "nodes" else bg.edata)["h"]
    for k in (1, 3, 6):  # 6: more than any graph has rows
        vals, idx = fn(bg, "h", k, descending=descending, sortby=sortby)
        want, want_idx, valid = ref_topk(counts, x, k, descending, sortby)
        assert vals.shape == (len(counts), k, 3) and vals.dtype == dtype
        assert idx.shape == want_idx.shape and idx.dtype == np.int64
        np.testing.assert_array_equal(vals, want)
        np.testing.assert_array_equal(idx[valid], want_idx[valid])


def test_topk_k_zero_infinities_and_bad_input():
    bg, _ = _batched(np.float64, (2,))
    vals, idx = topk_nodes(bg, "h", 0)
    assert vals.shape == (5, 0, 2) and idx.shape == (5, 0, 2)
    vals, idx = topk_nodes(bg, "h", 0, sortby=1)
    assert vals.shape == (5, 0, 2) and idx.shape == (5, 0)
    x = bg.ndata["h"].copy()
    x[1] = [np.inf, -np.inf]
    bg.ndata["x"] = x
    for descending in (True, False):
        for sortby in (None, 0, 1):
            vals, _ = topk_nodes(bg, "x", 4, descending=descending, sortby=sortby)
            np.testing.assert_array_equal(vals, ref_topk(NODES, x, 4, descending, sortby)[0])
    with pytest.raises(ValueError, match=r"topk_nodes: k must be an int >= 0"):
        topk_nodes(bg, "h", -1)
    with pytest.raises(ValueError, match=r"topk_edges: sortby=-3 is outside"):
        topk_edges(bg, "h", 1, sortby=-3)
    bg.ndata["i"] = np.zeros((bg.num_nodes(), 2), np.int64)
    with pytest.raises(TypeError, match=r"topk_nodes: feature 'i' must be floating"):
        topk_nodes(bg, "i", 1)


# ---------------------------------------------------------------- heterographs
def _hetero_batch():
    rng = np.random.default_rng(3)
    specs = [  # (users, games, plays (u, g), follows (u, u))
        (3, 2, ([0, 1, 2], [0, 1, 1]), ([0, 1], [1, 2])),
        (0, 1, ([], []), ([], [])),
        (2, 0, ([], []), ([1], [0])),
        (1, 3, ([0, 0], [2, 0]), ([], [])),
    ]
    gs = []
    for nu, ng, plays, follows in specs:
        g = heterograph(
            {
                ("user", "plays", "game"): tuple(np.array(a, np.int64) for a in plays),
                ("user", "follows", "user"): tuple(np.array(a, np.int64) for a in follows),
            },
            num_nodes_dict={"user": nu, "game": ng},
        )
        g.nodes["user"].data["h"] = rng.standard_normal((nu, 2))
        g.nodes["game"].data["h"] = rng.standard_normal((ng, 2))
        g.edges["plays"].data["w"] = rng.standard_normal((len(plays[0]), 2))
        g.edges["follows"].data["w"] = rng.standard_normal((len(follows[0]), 2))
        gs.append(g)
    counts = {
        "user": np.array([s[0] for s in specs]),
        "game": np.array([s[1] for s in specs]),
        "plays": np.array([len(s[2][0]) for s in specs]),
        "follows": np.array([len(s[3][0]) for s in specs]),
    }
    return batch(gs), counts


def test_hetero_readouts_by_ntype_and_etype():
    bg, counts = _hetero_batch()
    for nt in ("user", "game"):
        x = bg.nodes[nt].data["h"]
        for op in ("sum", "mean", "max", "min"):
            np.testing.assert_allclose(
                readout_nodes(bg, "h", op=op, ntype=nt), ref_reduce(counts[nt], x, op)
            )
        np.testing.assert_allclose(softmax_nodes(bg, "h", ntype=nt), ref_softmax(counts[nt], x))
        feat = np.arange(8.0).reshape(4, 2)
        np.testing.assert_array_equal(
            broadcast_nodes(bg, feat, ntype=nt), np.repeat(feat, counts[nt], axis=0)
        )
        vals, _ = topk_nodes(bg, "h", 2, ntype=nt, sortby=0)
        np.testing.assert_array_equal(vals, ref_topk(counts[nt], x, 2, True, 0)[0])
    for et, key in (("plays", "plays"), (("user", "follows", "user"), "follows")):
        w = bg.edges[et].data["w"]
        for op in ("sum", "mean", "max", "min"):
            np.testing.assert_allclose(
                readout_edges(bg, "w", op=op, etype=et), ref_reduce(counts[key], w, op)
            )
        np.testing.assert_allclose(sum_edges(bg, "w", etype=et), ref_reduce(counts[key], w, "sum"))
        np.testing.assert_allclose(softmax_edges(bg, "w", etype=et), ref_softmax(counts[key], w))
        np.testing.assert_array_equal(
            broadcast_edges(bg, np.arange(4.0), etype=et), np.repeat(np.arange(4.0), counts[key])
        )
        vals, _ = topk_edges(bg, "w", 3, etype=et, descending=False)
        np.testing.assert_array_equal(vals, ref_topk(counts[key], w, 3, False, None)[0])
    with pytest.raises(ValueError, match="pass ntype="):
        sum_nodes(bg, "h")  # DGL: the node type must be given with several
    with pytest.raises(ValueError, match="pass etype="):
        mean_edges(bg, "w")


# ---------------------------------------------------------------- pooling modules
@pytest.mark.parametrize("shape", [(3,), (2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_avg_max_pooling_multi_dim_features(shape, dtype):
    bg, _ = _batched(dtype, shape, seed=4)
    x = bg.ndata["h"].copy()
    if dtype == np.float64:
        x[0] = -np.inf  # DGL's max_nodes: infinities of the result become 0
        x[5:] = -np.inf  # graph 3 all -inf
    for pool, op in ((agnn.SumPooling(), "sum"), (agnn.AvgPooling(), "mean")):
        got = pool(bg, bg.ndata["h"])
        assert got.shape == (5, *shape) and got.dtype == dtype
        np.testing.assert_allclose(got, ref_reduce(NODES, bg.ndata["h"], op), rtol=1e-6)
    got = agnn.MaxPooling()(bg, x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, ref_reduce(NODES, x, "max"))


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sort_pooling(k, dtype):
    bg, _ = _batched(dtype, (3,), seed=5)
    x = bg.ndata["h"].copy()
    x[3, 2] = np.inf  # sorted last: ranks first in graph 2; DGL's masked_fill makes it 0
    x[6] = -np.inf  # a row of -inf (graph 3): all 0 after the masked_fill
    got = agnn.SortPooling(k)(bg, x)
    rows = np.sort(x, axis=-1)  # DGL: feat.sort(dim=-1), topk_nodes(sortby=-1)
    want = ref_topk(NODES, rows, k, True, -1)[0].reshape(-1, k * 3)
    assert got.shape == (5, k * 3) and got.dtype == dtype
    np.testing.assert_array_equal(got, want)


def _lin(rng, i, o):
    return rng.standard_normal((o, i)) * 0.5, rng.standard_normal(o) * 0.5


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
@pytest.mark.parametrize("with_feat_nn", [False, True])
def test_global_attention_pooling_multi_dim(shape, with_feat_nn):
    """DGL only asserts gate.shape[-1] == 1: a (N, 2, 3) feature with a (N, 2, 1) gate is
    softmaxed per graph and per leading feature dimension, then summed."""
    bg, rng = _batched(np.float64, shape, seed=6)
    x = bg.ndata["h"]
    (gw, gb), (fw, fb) = _lin(rng, 3, 1), _lin(rng, 3, 4)
    gate_nn = agnn.Linear(3, 1, dtype=np.float64).load_state_dict({"weight": gw, "bias": gb})
    feat_nn = agnn.Linear(3, 4, dtype=np.float64).load_state_dict({"weight": fw, "bias": fb})
    pool = agnn.GlobalAttentionPooling(gate_nn, feat_nn if with_feat_nn else None)
    out, att = pool(bg, x, get_attention=True)
    gate = ref_softmax(NODES, x @ gw.T + gb)
    feat = x @ fw.T + fb if with_feat_nn else x
    assert att.shape == (*x.shape[:-1], 1) and out.shape == (5, *feat.shape[1:])
    np.testing.assert_allclose(att, gate, rtol=1e-12)
    np.testing.assert_allclose(out, ref_reduce(NODES, feat * gate, "sum"), rtol=1e-12)
    np.testing.assert_array_equal(pool(bg, x), out)
    with pytest.raises(ValueError, match=r"GlobalAttentionPooling: gate_nn must give"):
        agnn.GlobalAttentionPooling(agnn.Linear(3, 2))(bg, x.astype(np.float32))


def _lstm(inp, state, sd, layers):
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    out = []
    for i in range(layers):
        h, c = state[i]
        g = (
            inp @ sd[f"lstm.weight_ih_l{i}"].T
            + sd[f"lstm.bias_ih_l{i}"]
            + h @ sd[f"lstm.weight_hh_l{i}"].T
            + sd[f"lstm.bias_hh_l{i}"]
        )
        a, f, gg, o = np.split(g, 4, axis=-1)
        c = sig(f) * c + sig(a) * np.tanh(gg)
        inp = sig(o) * np.tanh(c)
        out.append((inp, c))
    return inp, out


@pytest.mark.parametrize("n_iters,n_layers", [(0, 1), (1, 2), (3, 2)])
def test_set2set_dgl_formula(n_iters, n_layers):
    bg, rng = _batched(np.float64, (3,), seed=7)
    x, d, b = bg.ndata["h"], 3, 5
    sd = {}
    for i in range(n_layers):
        sd[f"lstm.weight_ih_l{i}"] = rng.standard_normal((4 * d, 2 * d if i == 0 else d)) * 0.5
        sd[f"lstm.weight_hh_l{i}"] = rng.standard_normal((4 * d, d)) * 0.5
        sd[f"lstm.bias_ih_l{i}"] = rng.standard_normal(4 * d) * 0.5
        sd[f"lstm.bias_hh_l{i}"] = rng.standard_normal(4 * d) * 0.5
    s2s = agnn.Set2Set(d, n_iters, n_layers, dtype=np.float64).load_state_dict(sd)
    # glob.py Set2Set.forward: zero states, q = lstm(q_star); e = (feat * broadcast(q)).sum;
    # alpha = softmax_nodes(e); q_star = [q, sum_nodes(feat * alpha)]
    state = [(np.zeros((b, d)), np.zeros((b, d)))] * n_layers
    q_star = np.zeros((b, 2 * d))
    for _ in range(n_iters):
        q, state = _lstm(q_star, state, sd, n_layers)
        e = (x * np.repeat(q, NODES, axis=0)).sum(-1, keepdims=True)
        alpha = ref_softmax(NODES, e)
        q_star = np.concatenate([q, ref_reduce(NODES, x * alpha, "sum")], axis=-1)
    got = s2s(bg, x)
    assert got.shape == (b, 2 * d) and got.dtype == np.float64
    np.testing.assert_allclose(got, q_star, rtol=1e-10, atol=1e-12)


def test_weight_and_sum_with_empty_graphs_float32():
    bg, rng = _batched(np.float32, (3,), seed=8)
    x = bg.ndata["h"]
    w, bias = _lin(rng, 3, 1)
    ws = agnn.WeightAndSum(3).load_state_dict(
        {"atom_weighting.0.weight": w.astype(np.float32), "atom_weighting.0.bias": bias}
    )
    gate = 1 / (1 + np.exp(-(x.astype(np.float64) @ w.T + bias)))  # sum_nodes(g, 'h', 'w')
    got = ws(bg, x)
    assert got.dtype == np.float32 and got.shape == (5, 3)
    np.testing.assert_allclose(got, ref_reduce(NODES, x * gate, "sum"), rtol=1e-5, atol=1e-6)
