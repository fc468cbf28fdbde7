"""Parity sweep (session 12): DGL heterogeneous message passing and heterograph utilities.

DGL is not installed; the expected values are NumPy references written from DGL's sources
(dmlc/dgl 3d16000b): python/dgl/heterograph.py (``multi_update_all``, ``reduce_dict_data``,
``update_all``, ``send_and_recv``, ``pull``, ``push``, ``apply_edges``), python/dgl/core.py
(``message_passing``: with an apply function only its output is returned and stored),
python/dgl/convert.py (``to_homogeneous``), python/dgl/transforms/functional.py
(``reverse``, ``add_reverse_edges``, ``metapath_reachable_graph``) and python/dgl/merge.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import (
    EID,
    NID,
    add_reverse_edges,
    batch,
    heterograph,
    merge,
    metapath_reachable_graph,
    node_type_subgraph,
    reverse,
    to_block,
    to_heterogeneous,
    to_homogeneous,
)

FOLLOWS = ("user", "follows", "user")
PLAYS = ("user", "plays", "game")
DEVELOPS = ("dev", "develops", "game")
H, F = 2, 3


def _g(seed=0):
    # game 0, 1: plays only; game 2: develops only; game 3: unreached; user 0, 3: no follows in
    rng = np.random.default_rng(seed)
    g = heterograph(
        {
            FOLLOWS: (np.array([0, 1, 2, 2]), np.array([1, 2, 2, 1])),
            PLAYS: (np.array([0, 1, 3, 1]), np.array([0, 0, 1, 1])),
            DEVELOPS: (np.array([0, 1]), np.array([2, 2])),
        },
        num_nodes_dict={"user": 4, "game": 4, "dev": 2},
    )
    for t in g.ntypes:
        g.nodes[t].data["h"] = rng.normal(size=(g.num_nodes(t), H, F))
    for c in g.canonical_etypes:
        g.edges[c].data["a"] = rng.normal(size=(g.num_edges(c), H, 1))
    return g


_OPS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def _reduce(dst, msgs, n, op):
    """Per-destination reduce of the [E, ...] messages; 0 for a node without in-edges."""
    out = np.zeros((n,) + msgs.shape[1:])
    for i in range(n):
        if (dst == i).any():
            out[i] = _OPS[op](msgs[dst == i], axis=0)
    return out


def _uv(g, c):
    return [a for a in g.edges(etype=c)]


# ---------------------------------------------------------------- multi_update_all
@pytest.mark.parametrize("key_form", ["name", "canonical"])
@pytest.mark.parametrize("cross", ["sum", "mean", "max", "min", "stack"])
def test_multi_update_all_cross_reducers_with_unreached_nodes(cross, key_form):
    g = _g()
    x = {t: g.nodes[t].data["h"].copy() for t in g.ntypes}
    k = (lambda c: c[1]) if key_form == "name" else (lambda c: c)
    g.multi_update_all(
        {  # dict order differs from the canonical order on purpose
            k(PLAYS): (fn.u_mul_e("h", "a", "m"), fn.max("m", "o")),
            k(FOLLOWS): (fn.copy_u("h", "m"), fn.sum("m", "o")),
            k(DEVELOPS): (fn.copy_u("h", "m"), fn.mean("m", "o")),
        },
        cross,
    )
    u, v = _uv(g, PLAYS)
    plays = _reduce(v, x["user"][u] * g.edges[PLAYS].data["a"], 4, "max")
    u, v = _uv(g, DEVELOPS)
    dev = _reduce(v, x["dev"][u], 4, "mean")
    stacked = np.stack([dev, plays], 1)  # canonical order: develops before plays (DGL)
    want = stacked if cross == "stack" else _OPS[cross](stacked, axis=1)
    np.testing.assert_allclose(g.nodes["game"].data["o"], want, rtol=1e-12, atol=1e-12)
    u, v = _uv(g, FOLLOWS)
    fol = _reduce(v, x["user"][u], 4, "sum")
    np.testing.assert_allclose(g.nodes["user"].data["o"], fol[:, None] if cross == "stack" else fol)
    assert "o" not in g.nodes["dev"].data
    assert g.nodes["game"].data["o"].dtype == np.float64


def test_multi_update_all_callable_cross_reducer():
    # DGL's multi_update_all docstring example: a callable equivalent to "sum"
    g = heterograph(
        {("user", "follows", "user"): ([0, 1], [1, 1]), ("game", "attracts", "user"): ([0], [1])}
    )
    g.nodes["user"].data["h"] = np.array([[1.0], [2.0]])
    g.nodes["game"].data["h"] = np.array([[1.0]])
    calls = []

    def cross_sum(flist):
        calls.append([f.copy() for f in flist])
        return np.sum(np.stack(flist, 0), 0) if len(flist) > 1 else flist[0]

    funcs = {
        "follows": (fn.copy_u("h", "m"), fn.sum("m", "h")),
        "attracts": (fn.copy_u("h", "m"), fn.sum("m", "h")),
    }
    g.multi_update_all(funcs, cross_sum)
    np.testing.assert_array_equal(g.nodes["user"].data["h"], [[0.0], [4.0]])
    # reduce_dict_data: the list comes in the dict's order (no sort for a callable)
    assert [c.tolist() for c in calls[0]] == [[[0.0], [3.0]], [[0.0], [1.0]]]


def test_multi_update_all_callable_sees_only_the_frames_with_the_field():
    g = _g()
    seen = []

    def first(flist):
        seen.append(len(flist))
        return flist[0]

    g.multi_update_all(
        {
            "plays": (fn.copy_u("h", "m"), fn.sum("m", "p")),
            "develops": (fn.copy_u("h", "m"), fn.sum("m", "q")),
            "follows": (fn.copy_u("h", "m"), fn.sum("m", "f")),
        },
        first,
    )
    # game gets two frames with a field each: the callable is called with one array per
    # field; user gets one frame: taken as is, never called (DGL)
    assert sorted(seen) == [1, 1]
    assert {"p", "q"} <= set(g.nodes["game"].data) and "f" in g.nodes["user"].data
    bad = {
        "plays": (fn.copy_u("h", "m"), fn.sum("m", "o")),
        "develops": (fn.copy_u("h", "m"), fn.sum("m", "o")),
    }
    with pytest.raises(ValueError, match="cross_reducer callable must return one array"):
        g.multi_update_all(bad, lambda flist: [f for f in flist])
    with pytest.raises(ValueError, match="cross_reducer must be one of"):
        g.multi_update_all(bad, "prod")
    with pytest.raises(ValueError, match="cross_reducer must be one of"):
        g.multi_update_all(bad, 3)


def test_multi_update_all_stack_of_fields_from_one_edge_type_each():
    g = _g()
    g.multi_update_all(
        {
            "plays": (fn.copy_u("h", "m"), fn.sum("m", "p")),
            "develops": (fn.copy_u("h", "m"), fn.min("m", "q")),
        },
        "stack",
    )
    u, v = _uv(g, PLAYS)
    want = _reduce(v, g.nodes["user"].data["h"][u], 4, "sum")
    np.testing.assert_allclose(g.nodes["game"].data["p"], want[:, None])
    u, v = _uv(g, DEVELOPS)
    want = _reduce(v, g.nodes["dev"].data["h"][u], 4, "min")
    np.testing.assert_allclose(g.nodes["game"].data["q"], want[:, None])


# ---------------------------------------------------------------- apply_node_func
def _double(nodes):
    return {"t": nodes.data["s"] * 2.0}


@pytest.mark.parametrize("how", ["update_all", "send_and_recv", "pull", "push", "multi"])
def test_apply_node_func_output_alone_is_stored(how):
    # core.message_passing returns the apply function's dict only; it is what is stored
    g = _g()
    msg, red = fn.copy_u("h", "m"), fn.sum("m", "s")
    if how == "update_all":
        g.update_all(msg, red, _double, etype="plays")
    elif how == "send_and_recv":
        g.send_and_recv(np.arange(4), msg, red, _double, etype=PLAYS)
    elif how == "pull":
        g.pull(np.arange(4), msg, red, _double, etype="plays")
    elif how == "push":
        g.push(np.arange(4), msg, red, _double, etype="plays")
    else:
        g.multi_update_all({"plays": (msg, red, _double), "develops": (msg, red, _double)}, "sum")
    u, v = _uv(g, PLAYS)
    want = 2.0 * _reduce(v, g.nodes["user"].data["h"][u], 4, "sum")
    if how == "multi":
        u, v = _uv(g, DEVELOPS)
        want = want + 2.0 * _reduce(v, g.nodes["dev"].data["h"][u], 4, "sum")
    np.testing.assert_allclose(g.nodes["game"].data["t"], want)
    assert "s" not in g.nodes["game"].data


def test_apply_node_func_returning_the_reduced_field_keeps_it():
    g = _g()
    g.update_all(
        fn.copy_u("h", "m"), fn.sum("m", "s"), lambda n: {"s": n.data["s"] + 1}, etype="plays"
    )
    u, v = _uv(g, PLAYS)
    np.testing.assert_allclose(
        g.nodes["game"].data["s"], _reduce(v, g.nodes["user"].data["h"][u], 4, "sum") + 1
    )


# ---------------------------------------------------------------- edge subsets, blocks
@pytest.mark.parametrize("form", ["ids", "mask", "pair", "one"])
@pytest.mark.parametrize("red", ["sum", "mean", "max", "min"])
def test_send_and_recv_edge_subsets_on_a_relation(form, red):
    g = _g()
    old = g.nodes["game"].data["h"].copy()
    eids = {"ids": np.array([3, 0]), "mask": np.array([True, False, False, True]), "one": 2}[
        "ids" if form == "pair" else form
    ]
    ids = np.flatnonzero(eids) if form == "mask" else np.atleast_1d(eids)
    u, v = _uv(g, PLAYS)
    edges = (u[ids], v[ids]) if form == "pair" else eids
    g.send_and_recv(edges, fn.u_mul_e("h", "a", "m"), getattr(fn, red)("m", "h"), etype=PLAYS)
    msgs = g.nodes["user"].data["h"][u[ids]] * g.edges[PLAYS].data["a"][ids]
    want = old.copy()
    full = _reduce(v[ids], msgs, 4, red)
    want[np.unique(v[ids])] = full[np.unique(v[ids])]  # receivers only (DGL)
    np.testing.assert_allclose(g.nodes["game"].data["h"], want, rtol=1e-12)


def test_pull_and_push_on_a_relation_reach_zero_degree_nodes():
    g = _g()
    old = g.nodes["game"].data["h"].copy()
    g.pull(np.array([3, 0, 0]), fn.copy_u("h", "m"), fn.max("m", "h"), etype="plays")
    u, v = _uv(g, PLAYS)
    want = old.copy()
    want[[0, 3]] = _reduce(v, g.nodes["user"].data["h"][u], 4, "max")[[0, 3]]  # 3: no edge -> 0
    np.testing.assert_allclose(g.nodes["game"].data["h"], want)
    g = _g()
    old = g.nodes["user"].data["h"].copy()
    g.push(np.array([2]), fn.copy_u("h", "m"), fn.mean("m", "h"), etype=FOLLOWS)
    want = old.copy()
    want[[1, 2]] = old[2]  # user 2 sends to 2 and 1
    np.testing.assert_allclose(g.nodes["user"].data["h"], want)


def test_block_update_all_and_multi_update_all():
    g = _g()
    seeds = {"game": np.array([2, 0, 3]), "user": np.array([1])}
    b = to_block(g.in_subgraph(seeds), seeds)
    b.multi_update_all(
        {
            "plays": (fn.u_mul_e("h", "a", "m"), fn.sum("m", "o")),
            "develops": (fn.copy_u("h", "m"), fn.max("m", "o")),
            "follows": (fn.copy_u("h", "m"), fn.mean("m", "o")),
        },
        "sum",
    )
    out = b.dstnodes["game"].data["o"]
    assert out.shape == (3, H, F)
    for j, gid in enumerate(seeds["game"]):
        u, v = _uv(g, PLAYS)
        p = _reduce(v, g.nodes["user"].data["h"][u] * g.edges[PLAYS].data["a"], 4, "sum")
        u, v = _uv(g, DEVELOPS)
        d = _reduce(v, g.nodes["dev"].data["h"][u], 4, "max")
        np.testing.assert_allclose(out[j], p[gid] + d[gid])
    u, v = _uv(g, FOLLOWS)
    f = _reduce(v, g.nodes["user"].data["h"][u], 4, "mean")
    np.testing.assert_allclose(b.dstnodes["user"].data["o"], f[[1]])
    b.update_all(fn.copy_u("h", "m"), fn.min("m", "z"), etype="develops")
    u, v = _uv(g, DEVELOPS)
    want = _reduce(v, g.nodes["dev"].data["h"][u], 4, "min")[seeds["game"]]
    np.testing.assert_allclose(b.dstnodes["game"].data["z"], want)


# ---------------------------------------------------------------- broadcasting, zero in-degree
_MSGS = {
    "u_mul_e": (lambda xs, xd, e: xs * e),  # [N, H, F] x [E, H, 1]
    "u_add_v": (lambda xs, xd, e: xs + xd[:, :1]),  # [N, H, F] + [N, 1, F]
    "e_sub_u": (lambda xs, xd, e: e - xs),
    "u_dot_v": (lambda xs, xd, e: (xs * xd).sum(-1, keepdims=True)),  # -> [E, H, 1]
}


@pytest.mark.parametrize("msg", list(_MSGS))
@pytest.mark.parametrize("red", ["sum", "mean", "max", "min"])
def test_broadcast_messages_and_zero_in_degree_on_a_relation(msg, red):
    g = _g()
    g.nodes["user"].data["one"] = g.nodes["user"].data["h"][:, :1].copy()  # [N, 1, F]
    rhs = {"u_mul_e": "a", "u_add_v": "one", "e_sub_u": "h", "u_dot_v": "h"}[msg]
    lhs = "a" if msg == "e_sub_u" else "h"
    g.update_all(getattr(fn, msg)(lhs, rhs, "m"), getattr(fn, red)("m", "o"), etype="follows")
    u, v = _uv(g, FOLLOWS)
    x = g.nodes["user"].data["h"]
    m = _MSGS[msg](x[u], x[v], g.edges[FOLLOWS].data["a"])
    want = _reduce(v, m, 4, red)
    got = g.nodes["user"].data["o"]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got[[0, 3]], 0.0)  # no in-edge: 0 for every reducer


def test_apply_edges_on_an_edge_mask_of_a_relation_across_types():
    g = _g()
    g.nodes["game"].data["b"] = np.ones((4, 1, F))
    mask = np.array([False, True, True, False])
    g.apply_edges(fn.u_add_v("h", "b", "s"), mask, etype="plays")
    u, v = _uv(g, PLAYS)
    want = np.zeros((4, H, F))  # a new field is 0 on the other edges (DGL's frame)
    want[mask] = (g.nodes["user"].data["h"][u] + g.nodes["game"].data["b"][v])[mask]
    np.testing.assert_allclose(g.edges["plays"].data["s"], want)


# ---------------------------------------------------------------- heterograph utilities
def test_to_homogeneous_lists_store_type_and_counts_round_trip():
    g = _g()
    hg, ncount, ecount = to_homogeneous(
        g, ndata=["h"], edata=["a"], store_type=False, return_count=True
    )
    assert ncount == [2, 4, 4] and ecount == [2, 4, 4]  # ntypes / canonical_etypes order
    assert sorted(hg.ndata) == [NID, "h"] and sorted(hg.edata) == [EID, "a"]
    np.testing.assert_array_equal(
        hg.ndata["h"], np.concatenate([g.nodes[t].data["h"] for t in g.ntypes])
    )
    np.testing.assert_array_equal(
        hg.edata["a"], np.concatenate([g.edges[c].data["a"] for c in g.canonical_etypes])
    )
    hg2 = to_homogeneous(g, ndata=["h"], edata=["a"])
    back = to_heterogeneous(hg2, g.ntypes, g.etypes)
    for c in g.canonical_etypes:
        assert [a.tolist() for a in back.edges(etype=c)] == [a.tolist() for a in g.edges(etype=c)]
        np.testing.assert_array_equal(back.edges[c].data["a"], g.edges[c].data["a"])


def test_reverse_and_add_reverse_edges_on_heterographs_with_features():
    g = _g()
    r = reverse(g, copy_ndata=True, copy_edata=True)
    assert r.canonical_etypes == [("game", "develops", "dev"), ("game", "plays", "user"), FOLLOWS]
    v, u = _uv(g, PLAYS)
    assert [a.tolist() for a in r.edges(etype="plays")] == [u.tolist(), v.tolist()]
    np.testing.assert_array_equal(r.edges["plays"].data["a"], g.edges[PLAYS].data["a"])
    assert "a" not in reverse(g).edges["plays"].data and "h" in reverse(g).nodes["dev"].data
    ar = add_reverse_edges(g, copy_edata=True, ignore_bipartite=True)
    # follows has the self-loop 2 -> 2 (edge 2): excluded from the reversed copies
    assert [a.tolist() for a in ar.edges(etype="follows")] == [
        [0, 1, 2, 2, 1, 2, 1],
        [1, 2, 2, 1, 0, 1, 2],
    ]
    a = g.edges[FOLLOWS].data["a"]
    np.testing.assert_array_equal(ar.edges["follows"].data["a"], a[[0, 1, 2, 3, 0, 1, 3]])
    np.testing.assert_array_equal(ar.edges["plays"].data["a"], g.edges[PLAYS].data["a"])
    ar2 = add_reverse_edges(g, ignore_bipartite=True, exclude_self=False)
    assert ar2.num_edges("follows") == 8 and "a" not in ar2.edges["follows"].data


def test_metapath_type_subgraph_merge_and_batch_with_features():
    g = _g()
    m = metapath_reachable_graph(g, ["follows", "plays"])
    a1 = np.zeros((4, 4), int)
    a1[tuple(_uv(g, FOLLOWS))] = 1
    a2 = np.zeros((4, 4), int)
    a2[tuple(_uv(g, PLAYS))] = 1
    rows, cols = np.nonzero(a1 @ a2)
    assert m.canonical_etypes == [("user", "_E", "game")]
    assert [x.tolist() for x in m.edges()] == [rows.tolist(), cols.tolist()]
    np.testing.assert_array_equal(m.nodes["game"].data["h"], g.nodes["game"].data["h"])
    s = node_type_subgraph(g, ["user", "game"])
    assert s.canonical_etypes == [FOLLOWS, PLAYS]
    assert s.edges["plays"].data["a"] is g.edges[PLAYS].data["a"]
    g2 = _g(seed=1)
    mg = merge([g, g2])
    np.testing.assert_array_equal(
        mg.edges["plays"].data["a"],
        np.concatenate([g.edges[PLAYS].data["a"], g2.edges[PLAYS].data["a"]]),
    )
    np.testing.assert_array_equal(
        mg.nodes["user"].data["h"], g2.nodes["user"].data["h"]
    )  # later wins
    bg = batch([g, g2])
    bg.multi_update_all(
        {
            "plays": (fn.copy_u("h", "m"), fn.sum("m", "o")),
            "develops": (fn.copy_u("h", "m"), fn.sum("m", "o")),
        },
        "mean",
    )
    for part, k in [(g, 0), (g2, 1)]:
        part.multi_update_all(
            {
                "plays": (fn.copy_u("h", "m"), fn.sum("m", "o")),
                "develops": (fn.copy_u("h", "m"), fn.sum("m", "o")),
            },
            "mean",
        )
        np.testing.assert_allclose(
            bg.nodes["game"].data["o"][4 * k : 4 * k + 4], part.nodes["game"].data["o"]
        )
