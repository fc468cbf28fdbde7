"""Parity sweep (s12) of DGL's heterogeneous / relational layers on arraygnn's DGL face.

DGL does not install here; each reference is a NumPy re-derivation of the forward read in
dmlc/dgl ``python/dgl/nn/pytorch/hetero.py`` (``HeteroGraphConv``: one module call per
canonical edge type with ``(src_inputs[stype], dst_inputs[dtype])``, skipped when the source
type has no input, outputs aggregated per destination type in ``g.canonical_etypes`` order),
``conv/graphconv.py`` (``GraphConv`` norms with ``edge_weight``), ``linear.py``
(``TypedLinear``: ``basis`` = ``coeff @ W.view(B, in * out)``, ``bdd`` = ``x.view(-1, 1, si)``
times ``W[type].view(-1, si, so)``) and ``conv/relgraphconv.py`` (``RelGraphConv``).
Only combinations the earlier sweeps (``test_dgl_conv_options_sweep_s11.py``,
``test_nn_relational.py``, ``test_dgl_hetero_modules_journey.py``) do not exercise.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn
import arraygnn.nn as agnn
from arraygnn.graph import in_subgraph

# user->user (follows), user->game (plays, with a repeated edge), store->game (sells),
# game->store (empty: no edges; DGL still calls its module)
EDGES = {
    ("user", "follows", "user"): (np.array([0, 1, 2, 2]), np.array([1, 2, 0, 2])),
    ("user", "plays", "game"): (np.array([0, 1, 2, 2]), np.array([0, 0, 1, 1])),
    ("store", "sells", "game"): (np.array([0, 1]), np.array([1, 2])),
    ("game", "empty", "store"): (np.array([], np.int64), np.array([], np.int64)),
}
NUM = {"user": 3, "game": 4, "store": 2}  # game 3 receives nothing
NORMS = {"follows": "both", "plays": "right", "sells": "left", "empty": "none"}
IN, OUT = 4, 3


def _graph():
    return arraygnn.heterograph(EDGES, num_nodes_dict=NUM)


def _feats(seed=0, num=NUM):
    rng = np.random.default_rng(seed)
    return {t: rng.standard_normal((n, IN)) for t, n in num.items()}


def _mods():
    rng = np.random.default_rng(1)
    mods = {}
    for i, (etype, norm) in enumerate(NORMS.items()):
        conv = agnn.GraphConv(IN, OUT, norm=norm, dtype=np.float64, rng=i)
        conv.load_state_dict(
            {"weight": rng.standard_normal((IN, OUT)), "bias": rng.standard_normal(OUT)},
            format="dgl",
        )
        mods[etype] = conv
    return mods


def _ref_graph_conv(src, dst, ns, nd, xs, sd, norm, ew=None):
    """DGL ``GraphConv.forward`` (degrees clamped to 1; edge_weight multiplies messages)."""
    h = xs
    if norm in ("both", "left"):
        deg = np.maximum(np.bincount(src, minlength=ns), 1).astype(float)
        h = h * (deg**-0.5 if norm == "both" else 1 / deg)[:, None]
    m = h[src] * (1.0 if ew is None else ew[:, None])
    agg = np.zeros((nd, h.shape[1]))
    np.add.at(agg, dst, m)
    agg = agg @ sd["weight"]
    if norm in ("both", "right"):
        deg = np.maximum(np.bincount(dst, minlength=nd), 1).astype(float)
        agg = agg * (deg**-0.5 if norm == "both" else 1 / deg)[:, None]
    return agg + sd["bias"]


def _ref_hetero(mods, src_in, dst_in, edges, n_src, n_dst, aggregate, ew=None):
    outs: dict[str, list] = {}
    for (s, e, d), (u, v) in sorted(edges.items()):  # canonical_etypes are sorted
        if s not in src_in or d not in dst_in:
            continue
        w = ew if e == "plays" else None
        sd = mods[e].state_dict(format="dgl")
        outs.setdefault(d, []).append(
            _ref_graph_conv(u, v, n_src[s], n_dst[d], src_in[s], sd, NORMS[e], w)
        )
    fn = {
        "sum": lambda xs: np.sum(xs, 0),
        "max": lambda xs: np.max(xs, 0),
        "min": lambda xs: np.min(xs, 0),
        "mean": lambda xs: np.mean(xs, 0),
        "stack": lambda xs: np.stack(xs, 1),
        "callable": lambda xs: np.sum(xs, 0) * 2,
    }[aggregate]
    return {d: fn(xs) for d, xs in outs.items()}


def _agg_arg(aggregate, seen):
    if aggregate != "callable":
        return aggregate

    def agg(tensors, dsttype):  # DGL's f(list, dsttype)
        seen.append(dsttype)
        return sum(tensors) * 2

    return agg


@pytest.mark.parametrize("aggregate", ["sum", "max", "min", "mean", "stack", "callable"])
@pytest.mark.parametrize("form", ["dict", "pair-partial", "block"])
def test_hetero_graph_conv(aggregate, form):
    g, mods, seen = _graph(), _mods(), []
    conv = agnn.HeteroGraphConv(mods, _agg_arg(aggregate, seen))
    ew = np.random.default_rng(5).uniform(0.2, 2.0, 4)
    kwargs = {"plays": {"edge_weight": ew}}
    if form == "dict":
        x = _feats()
        got = conv(g, x, mod_kwargs=kwargs)
        want = _ref_hetero(mods, x, x, EDGES, NUM, NUM, aggregate, ew)
        assert list(got) == ["game", "store", "user"]  # g.dsttypes order (DGL's dict)
    elif form == "pair-partial":  # no 'store' sources: 'sells' skipped, 'store' still gets 'empty'
        xs, xd = _feats(), _feats(1)
        del xs["store"]
        got = conv(g, (xs, xd), mod_args={"plays": (ew,)})  # positional as DGL's mod_args
        want = _ref_hetero(mods, xs, xd, EDGES, NUM, NUM, aggregate, ew)
    else:  # a block: dst features are the first num_dst_nodes(t) rows of the inputs
        seeds = {"user": np.array([2, 0]), "game": np.array([1, 0])}
        b = arraygnn.to_block(in_subgraph(g, seeds), seeds)
        ns = {t: b.num_src_nodes(t) for t in b.srctypes}
        nd = {t: b.num_dst_nodes(t) for t in b.dsttypes}
        x = _feats(2, ns)
        edges = {c: b.edges(etype=c) for c in b.canonical_etypes}
        ew_b = np.random.default_rng(6).uniform(0.2, 2.0, b.num_edges(("user", "plays", "game")))
        got = conv(b, x, mod_kwargs={"plays": {"edge_weight": ew_b}})
        dst_in = {t: x[t][: nd[t]] for t in b.dsttypes}
        want = _ref_hetero(mods, x, dst_in, edges, ns, nd, aggregate, ew_b)
    assert sorted(got) == sorted(want)
    for t in want:
        assert got[t].shape == want[t].shape and got[t].dtype == np.float64
        np.testing.assert_allclose(got[t], want[t], rtol=1e-10, atol=1e-10)
    if aggregate == "callable":
        assert sorted(seen) == sorted(want)


def test_hetero_graph_conv_inputs_and_errors():
    g, mods = _graph(), _mods()
    conv = agnn.HeteroGraphConv(mods)
    x = _feats()
    before = {t: v.copy() for t, v in x.items()}
    # only 'store' inputs (DGL's dict form indexes inputs[dtype]: a KeyError for 'game')
    with pytest.raises(KeyError, match="game"):
        conv(g, {"store": x["store"]})
    # with a pair only the relations whose both ends are given run
    got = conv(g, ({"store": x["store"]}, {"game": x["game"]}))
    assert list(got) == ["game"]
    want = _ref_hetero(mods, {"store": x["store"]}, {"game": x["game"]}, EDGES, NUM, NUM, "sum")
    np.testing.assert_allclose(got["game"], want["game"], rtol=1e-10)
    assert conv(g, ({}, x)) == {}  # nothing to send: DGL returns {}
    for t in x:
        np.testing.assert_array_equal(x[t], before[t])
    with pytest.raises(ValueError, match="aggregate"):
        agnn.HeteroGraphConv(mods, "prod")
    with pytest.raises(KeyError, match="empty"):
        agnn.HeteroGraphConv({k: v for k, v in mods.items() if k != "empty"})(g, x)
    with pytest.raises(ValueError, match="pair"):
        conv(g, (x, x, x))
    with pytest.raises(TypeError, match="inputs"):
        conv(g, x["user"])
    # canonical keys win over names, as DGL's _get_module
    by_triple = dict(mods)
    by_triple[("user", "plays", "game")] = by_triple.pop("plays")
    got2 = agnn.HeteroGraphConv(by_triple)(g, x)
    np.testing.assert_allclose(got2["game"], conv(g, x)["game"], rtol=1e-12)


# ---- TypedLinear -----------------------------------------------------------------------------


def _ref_typed_linear(sd, reg, x, types, r, i, o, nb):
    if reg == "bdd":
        si, so = i // nb, o // nb
        w = sd["W"][types].reshape(-1, si, so)  # (N * B, si, so)
        return np.einsum("ki,kio->ko", x.reshape(-1, si), w).reshape(-1, o)
    w = sd["W"] if reg is None else (sd["coeff"] @ sd["W"].reshape(nb, -1)).reshape(r, i, o)
    return np.einsum("ni,nio->no", x, w[types])


@pytest.mark.parametrize("reg", [None, "basis", "bdd"])
@pytest.mark.parametrize("sorted_by_type", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_typed_linear(reg, sorted_by_type, dtype):
    r, i, o, nb = 3, 4, 6, 2
    rng = np.random.default_rng(3)
    sd = {}
    if reg is None:
        sd["W"] = rng.standard_normal((r, i, o))
    elif reg == "basis":
        sd = {"W": rng.standard_normal((nb, i, o)), "coeff": rng.standard_normal((r, nb))}
    else:
        sd["W"] = rng.standard_normal((r, nb * (i // nb) * (o // nb)))
    lin = agnn.TypedLinear(i, o, r, reg, nb if reg else None, dtype=dtype)
    lin.load_state_dict({k: v.astype(dtype) for k, v in sd.items()}, format="dgl")
    types = np.array([0, 0, 1, 2, 2, 2, 1]) if not sorted_by_type else np.array([0, 0, 1, 1, 2])
    x = rng.standard_normal((len(types), i)).astype(dtype)
    got = lin(x, types, sorted_by_type=sorted_by_type)
    want = _ref_typed_linear(sd, reg, x.astype(float), types, r, i, o, nb)
    assert got.shape == (len(types), o) and got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
    # a type with no rows, and int32 type ids
    got32 = lin(x[:2], np.array([2, 2], np.int32), sorted_by_type=sorted_by_type)
    want32 = _ref_typed_linear(sd, reg, x[:2].astype(float), np.array([2, 2]), r, i, o, nb)
    np.testing.assert_allclose(
        got32, want32, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5
    )


def test_typed_linear_errors():
    lin = agnn.TypedLinear(4, 6, 3, rng=0)
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="sorted_by_type=True"):  # DGL: silent garbage
        lin(x, np.array([2, 0, 1]), sorted_by_type=True)
    with pytest.raises(ValueError, match="out of range"):
        lin(x, np.array([0, 3, 1]))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        lin(x, np.array([0, 1]))
    with pytest.raises(TypeError, match="integer"):
        lin(x, np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="num_bases"):  # DGL: 'Missing "num_bases"'
        agnn.TypedLinear(4, 6, 3, "bdd")
    with pytest.raises(ValueError, match="divisible"):
        agnn.TypedLinear(4, 6, 3, "bdd", 4)
    with pytest.raises(ValueError, match="regularizer"):
        agnn.TypedLinear(4, 6, 3, "blocks", 2)


# ---- RelGraphConv: norm shapes, list etypes, callable activation, no bias / loop ---------------


@pytest.mark.parametrize("norm_shape", [None, "(E,)", "(E, 1)"])
@pytest.mark.parametrize("reg", [None, "bdd"])
def test_rel_graph_conv_norm_and_list_etypes(norm_shape, reg):
    rng = np.random.default_rng(9)
    src, dst = np.array([0, 1, 2, 3, 0, 0, 4]), np.array([1, 2, 0, 0, 3, 3, 0])
    etypes = [0, 1, 1, 0, 2, 2, 1]  # DGL: "torch.Tensor or list[int]"
    x = rng.standard_normal((5, 4))
    conv = agnn.RelGraphConv(
        4, 4, 3, reg, 2 if reg else None, bias=False, activation=np.tanh,
        self_loop=reg is None, dtype=np.float64,
    )  # fmt: skip
    sd = conv.state_dict(format="dgl")
    norm = None if norm_shape is None else rng.uniform(0.1, 1.0, 7)
    arg = norm if norm_shape != "(E, 1)" else norm[:, None]
    got = conv(arraygnn.graph((src, dst), num_nodes=5), x, etypes, arg)
    et = np.array(etypes)
    msg = _ref_typed_linear(
        {k.split(".", 1)[1]: v for k, v in sd.items() if k.startswith("linear_r.")},
        reg, x[src], et, 3, 4, 4, 2,
    )  # fmt: skip
    if norm is not None:
        msg = msg * norm[:, None]
    h = np.zeros((5, 4))
    np.add.at(h, dst, msg)
    if reg is None:
        h = h + x @ sd["loop_weight"]
    np.testing.assert_allclose(got, np.tanh(h), rtol=1e-12, atol=1e-12)


# ---- CFConv: DGL reads only ``g.srcdata``, so one tensor on a bipartite graph is the sources ---


def test_cf_conv_single_tensor_on_bipartite_graph():
    rng = np.random.default_rng(12)
    u, v = np.array([0, 1, 2, 2, 4]), np.array([0, 0, 1, 1, 2])
    g = arraygnn.heterograph({("a", "r", "b"): (u, v)}, num_nodes_dict={"a": 5, "b": 3})
    conv = agnn.DGLCFConv(4, 3, 6, 2, dtype=np.float64, rng=0)
    x, ef = rng.standard_normal((5, 4)), rng.standard_normal((5, 3))
    got = conv(g, x, ef)  # DGL: g.srcdata["hv"] = project_node(node_feats)
    assert got.shape == (3, 2)
    np.testing.assert_allclose(got, conv(g, (x, rng.standard_normal((3, 4))), ef), rtol=1e-12)
    with pytest.raises(ValueError, match="source features have 4 rows"):
        conv(g, x[:4], ef)
