"""A DGL user's heterograph workflow on arraygnn's DGL face (session 10).

Expected values come from DGL's code and docstrings (dmlc/dgl, python/dgl/heterograph.py
``__getitem__`` / ``metagraph`` / ``update_all`` / ``apply_edges``, core.py
``message_passing``, src/graph/heterograph.cc ``FlattenImpl``,
transforms/functional.py ``metapath_reachable_graph`` / ``add_reverse_edges``) or from a
NumPy reference written out in the test.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import (
    EID,
    ETYPE,
    NID,
    NTYPE,
    add_reverse_edges,
    batch,
    edge_type_subgraph,
    heterograph,
    metapath_reachable_graph,
    node_subgraph,
    to_heterogeneous,
    to_homogeneous,
    unbatch,
)

FOLLOWS = ("user", "follows", "user")
PLAYS = ("user", "plays", "game")
DEVELOPS = ("developer", "develops", "game")


def _g():
    g = heterograph(
        {
            FOLLOWS: (np.array([0, 1]), np.array([1, 2])),
            PLAYS: (np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])),
            DEVELOPS: (np.array([0, 1]), np.array([0, 2])),  # game 1: plays only, 2: develops only
        },
        num_nodes_dict={"user": 4, "game": 3, "developer": 2},
    )
    g.nodes["user"].data["h"] = np.arange(8.0).reshape(4, 2)
    g.nodes["game"].data["h"] = np.full((3, 2), -1.0)
    g.nodes["developer"].data["h"] = np.array([[10.0, 20.0], [30.0, -40.0]])
    g.edges["plays"].data["w"] = np.array([1.0, 2.0, 3.0, 4.0])
    return g


def _ref_in(g, c, x_src, w=None):
    """Per-destination list of in-messages of relation ``c`` (NumPy reference)."""
    u, v = (a.tolist() for a in g.edges(etype=c))
    msgs = [[] for _ in range(g.num_nodes(c[2]))]
    for k, (s, d) in enumerate(zip(u, v)):
        msgs[d].append(x_src[s] * (1.0 if w is None else w[k]))
    return msgs


# ---------------------------------------------------------------- 1. structure
def test_types_counts_degrees_and_data_views():
    g = _g()
    assert g.ntypes == ["developer", "game", "user"]
    assert g.etypes == ["develops", "follows", "plays"]
    assert g.canonical_etypes == [DEVELOPS, FOLLOWS, PLAYS]
    assert g.number_of_nodes("user") == 4 and g.num_nodes() == 9
    assert g.number_of_edges("plays") == 4 and g.num_edges() == 8
    assert g.in_degrees(etype="plays").tolist() == [2, 2, 0]
    assert g.in_degrees(1, etype="plays") == 2
    assert g.out_degrees(etype=PLAYS).tolist() == [1, 2, 1, 0]
    assert g.edges["plays"].data["w"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert list(g.ndata["h"]) == ["developer", "game", "user"]


def test_metagraph_is_dgl_networkx_multidigraph():
    nx = pytest.importorskip("networkx")
    mg = _g().metagraph()
    assert isinstance(mg, nx.MultiDiGraph)
    # DGL adds one edge (srctype, dsttype, key=etype) per canonical edge type, in order
    assert list(mg.edges(keys=True)) == [
        ("developer", "game", "develops"),
        ("user", "user", "follows"),
        ("user", "game", "plays"),
    ]
    assert sorted(mg.nodes()) == ["developer", "game", "user"]


def test_wildcard_slice_with_one_match_is_the_relation_slice():
    g = _g()
    for key in [("user", slice(None), "game"), (slice(None), "plays", slice(None))]:
        sg = g[key]
        assert sg.canonical_etypes == [PLAYS]
        assert [a.tolist() for a in sg.edges()] == [[0, 1, 1, 2], [0, 0, 1, 1]]
        assert sg.edata["w"] is g.edges["plays"].data["w"]  # shared, as DGL
    assert g["user", :, "user"].canonical_etypes == [FOLLOWS]
    with pytest.raises(KeyError, match="edge type"):
        g["game", :, "user"]


def test_wildcard_slice_over_several_relations_dgl_docstring():
    # DGL's DGLGraph.__getitem__ docstring example
    g = heterograph(
        {
            ("A1", "AB1", "B"): (np.array([0, 1, 2]), np.array([1, 2, 3])),
            ("A1", "AB2", "B"): (np.array([1, 2, 3]), np.array([3, 4, 5])),
            ("A2", "AB2", "B"): (np.array([1, 3, 5]), np.array([2, 4, 6])),
        }
    )
    g.nodes["A1"].data["x"] = np.arange(4.0)
    g.nodes["A2"].data["x"] = 10 + np.arange(6.0)
    g.nodes["A2"].data["only_a2"] = np.zeros(6)
    new_g = g["A1", :, "B"]
    assert new_g.canonical_etypes == [("A1", "AB1+AB2", "B")]
    assert new_g.num_nodes("A1") == 4 and new_g.num_nodes("B") == 7
    assert [a.tolist() for a in new_g.edges()] == [[0, 1, 2, 1, 2, 3], [1, 2, 3, 3, 4, 5]]
    assert new_g.edata[EID].tolist() == [0, 1, 2, 0, 1, 2]
    assert new_g.edata[ETYPE].tolist() == [0, 0, 0, 1, 1, 1]
    new_g2 = g[:, "AB2", "B"]
    assert new_g2.canonical_etypes == [("A1+A2", "AB2+AB2", "B")]
    assert new_g2.num_nodes("A1+A2") == 10 and new_g2.num_nodes("B") == 7
    assert [a.tolist() for a in new_g2.edges()] == [[1, 2, 3, 5, 7, 9], [3, 4, 5, 2, 4, 6]]
    assert new_g2.nodes["A1+A2"].data[NID].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 4, 5]
    assert new_g2.nodes["A1+A2"].data[NTYPE].tolist() == [0] * 4 + [1] * 6
    assert new_g2.nodes["B"].data[NTYPE].tolist() == [2] * 7
    assert new_g2.edata[ETYPE].tolist() == [1, 1, 1, 2, 2, 2]
    # common node features are concatenated (DGL's combine_frames); others dropped
    assert new_g2.nodes["A1+A2"].data["x"].tolist() == list(range(4)) + list(range(10, 16))
    assert "only_a2" not in new_g2.nodes["A1+A2"].data
    # the same node types at both ends give one node type (DGL's homograph flag)
    h = heterograph(
        {
            ("u", "a", "u"): (np.array([0]), np.array([1])),
            ("u", "b", "u"): (np.array([1]), np.array([2])),
        }
    )
    flat = h["u", :, "u"]
    assert flat.ntypes == ["u"] and flat.canonical_etypes == [("u", "a+b", "u")]
    assert [a.tolist() for a in flat.edges()] == [[0, 1], [1, 2]]


def test_subgraphs_keep_dgl_numbering():
    g = _g()
    sub = edge_type_subgraph(g, ["plays", "develops"])
    assert sub.canonical_etypes == [DEVELOPS, PLAYS]
    assert sub.edges["plays"].data["w"] is g.edges["plays"].data["w"]
    sg = node_subgraph(g, {"user": [1, 2], "game": [0, 1]})
    assert sg.num_nodes("developer") == 0  # a type missing from the dict keeps no node
    assert [a.tolist() for a in sg.edges(etype="plays")] == [[0, 0, 1], [0, 1, 1]]
    assert sg.edges["plays"].data[EID].tolist() == [1, 2, 3]
    assert sg.edges["plays"].data["w"].tolist() == [2.0, 3.0, 4.0]
    assert [a.tolist() for a in sg.edges(etype="follows")] == [[0], [1]]
    assert sg.nodes["user"].data[NID].tolist() == [1, 2]


def test_to_homogeneous_round_trip_with_features():
    g = _g()
    g.edges["follows"].data["w"] = np.array([5.0, 6.0])
    g.edges["develops"].data["w"] = np.array([7.0, 8.0])
    hg = to_homogeneous(g, ndata=["h"], edata=["w"])
    # node types in ntypes order, edge types in canonical order (DGL)
    assert hg.ndata[NTYPE].tolist() == [0, 0, 1, 1, 1, 2, 2, 2, 2]
    assert hg.ndata[NID].tolist() == [0, 1, 0, 1, 2, 0, 1, 2, 3]
    assert hg.edata[ETYPE].tolist() == [0, 0, 1, 1, 2, 2, 2, 2]
    assert hg.edata["w"].tolist() == [7.0, 8.0, 5.0, 6.0, 1.0, 2.0, 3.0, 4.0]
    assert [a.tolist() for a in hg.edges()] == [[0, 1, 5, 6, 5, 6, 6, 7], [2, 4, 6, 7, 2, 2, 3, 3]]
    back = to_heterogeneous(hg, g.ntypes, g.etypes)
    assert back.canonical_etypes == g.canonical_etypes
    for t in g.ntypes:
        np.testing.assert_array_equal(back.nodes[t].data["h"], g.nodes[t].data["h"])
    for c in g.canonical_etypes:
        assert [a.tolist() for a in back.edges(etype=c)] == [a.tolist() for a in g.edges(etype=c)]
        np.testing.assert_array_equal(back.edges[c].data["w"], g.edges[c].data["w"])


def test_batch_unbatch_heterographs():
    g1, g2 = _g(), _g()
    bg = batch([g1, g2])
    assert bg.batch_size == 2
    assert bg.batch_num_nodes("user").tolist() == [4, 4]
    assert bg.batch_num_edges("plays").tolist() == [4, 4]
    u, v = bg.edges(etype="plays")
    assert u.tolist() == [0, 1, 1, 2, 4, 5, 5, 6] and v.tolist() == [0, 0, 1, 1, 3, 3, 4, 4]
    assert bg.nodes["developer"].data["h"].shape == (4, 2)
    parts = unbatch(bg)
    for p in parts:
        assert [a.tolist() for a in p.edges(etype="plays")] == [[0, 1, 1, 2], [0, 0, 1, 1]]
        np.testing.assert_array_equal(p.nodes["user"].data["h"], g1.nodes["user"].data["h"])


def test_add_reverse_edges_and_metapath_on_heterographs():
    g = _g()
    with pytest.raises(ValueError, match="ignore_bipartite"):  # DGL asserts too
        add_reverse_edges(g)
    r = add_reverse_edges(g, ignore_bipartite=True)
    assert [a.tolist() for a in r.edges(etype="follows")] == [[0, 1, 1, 2], [1, 2, 0, 1]]
    assert [a.tolist() for a in r.edges(etype="plays")] == [[0, 1, 1, 2], [0, 0, 1, 1]]
    g2 = heterograph(
        {
            PLAYS: (np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])),
            ("game", "played-by", "user"): (np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2])),
        }
    )
    g2.nodes["user"].data["h"] = np.arange(3.0)
    mg = metapath_reachable_graph(g2, ["plays", "played-by"])
    assert mg.canonical_etypes == [("user", "_E", "user")]
    # adj.nonzero() of the boolean product: row-major order (SciPy, as DGL)
    a = np.zeros((3, 2), int)
    a[[0, 1, 1, 2], [0, 0, 1, 1]] = 1
    b = np.zeros((2, 3), int)
    b[[0, 0, 1, 1], [0, 1, 1, 2]] = 1
    rows, cols = np.nonzero(a @ b)
    assert [x.tolist() for x in mg.edges()] == [rows.tolist(), cols.tolist()]
    assert mg.ndata["h"].tolist() == [0.0, 1.0, 2.0]  # source features copied


# ---------------------------------------------------------------- 2. message passing
@pytest.mark.parametrize("cross", ["sum", "mean", "max", "min", "stack"])
def test_multi_update_all_cross_reducers(cross):
    g = _g()
    x_user, x_dev = g.nodes["user"].data["h"], g.nodes["developer"].data["h"]
    g.multi_update_all(
        {
            "plays": (fn.copy_u("h", "m"), fn.mean("m", "h")),
            "develops": (fn.copy_u("h", "m"), fn.mean("m", "h")),
            "follows": (fn.copy_u("h", "m"), fn.sum("m", "h")),
        },
        cross,
    )
    mean = lambda ms, f: np.mean(ms, 0) if ms else np.zeros(f)  # noqa: E731
    plays = np.array([mean(m, 2) for m in _ref_in(g, PLAYS, x_user)])
    dev = np.array([mean(m, 2) for m in _ref_in(g, DEVELOPS, x_dev)])
    # etypes in canonical order: develops before plays (DGL's merge order)
    stacked = np.stack([dev, plays], 1)
    want = {
        "sum": stacked.sum(1),
        "mean": stacked.mean(1),
        "max": stacked.max(1),
        "min": stacked.min(1),
        "stack": stacked,
    }[cross]
    np.testing.assert_allclose(g.nodes["game"].data["h"], want)
    follows = np.array([np.sum(m, 0) if m else np.zeros(2) for m in _ref_in(g, FOLLOWS, x_user)])
    want_user = follows[:, None] if cross == "stack" else follows
    np.testing.assert_allclose(g.nodes["user"].data["h"], want_user)
    np.testing.assert_array_equal(g.nodes["developer"].data["h"], x_dev)  # never a dst


def test_apply_edges_per_etype_and_weighted_update_all():
    g = _g()
    x = g.nodes["user"].data["h"]
    g.apply_edges(fn.u_mul_e("h", "w", "m"), etype="plays")
    u, _ = g.edges(etype="plays")
    np.testing.assert_allclose(
        g.edges["plays"].data["m"], x[u] * g.edges["plays"].data["w"][:, None]
    )
    g.update_all(fn.u_mul_e("h", "w", "m"), fn.sum("m", "hw"), etype="plays")
    w = g.edges["plays"].data["w"]
    want = np.array([np.sum(m, 0) if m else np.zeros(2) for m in _ref_in(g, PLAYS, x, w)])
    np.testing.assert_allclose(g.nodes["game"].data["hw"], want)
    # the relation slice is the same thing (DGL's g['plays'].update_all)
    g["plays"].update_all(fn.u_mul_e("h", "w", "m"), fn.sum("m", "hw2"))
    np.testing.assert_allclose(g.nodes["game"].data["hw2"], want)


@pytest.mark.parametrize("red", ["sum", "max", "min"])
def test_update_all_without_etype_reduces_over_every_relation(red):
    # DGL's DGLGraph.update_all on several relation types with built-ins: one reduce
    # over all in-edges of a node, whatever their type (core.message_passing on the
    # heterograph); a node without in-edges gets 0
    g = _g()
    x = {t: g.nodes[t].data["h"] for t in g.ntypes}
    g.update_all(fn.copy_u("h", "m"), getattr(fn, red)("m", "out"))
    op = {"sum": np.sum, "max": np.max, "min": np.min}[red]
    for t in ["game", "user"]:
        msgs = [[] for _ in range(g.num_nodes(t))]
        for c in g.canonical_etypes:
            if c[2] == t:
                for d, ms in enumerate(_ref_in(g, c, x[c[0]])):
                    msgs[d] += ms
        want = np.array([op(m, 0) if m else np.zeros(2) for m in msgs])
        np.testing.assert_allclose(g.nodes[t].data["out"], want)
    assert "out" not in g.nodes["developer"].data  # not a destination type (DGL)


def test_update_all_without_etype_refusals_match_dgl():
    g = _g()
    with pytest.raises(ValueError, match="multi_update_all"):
        g.update_all(fn.copy_u("h", "m"), fn.mean("m", "out"))
    with pytest.raises(ValueError, match="multi_update_all"):
        g.update_all(fn.copy_u("h", "m"), lambda nodes: {"out": nodes.mailbox["m"].sum(1)})


def test_apply_edges_without_etype_runs_on_every_relation():
    g = _g()
    g.apply_edges(fn.u_add_v("h", "h", "s"))
    for c in g.canonical_etypes:
        u, v = g.edges(etype=c)
        want = g.nodes[c[0]].data["h"][u] + g.nodes[c[2]].data["h"][v]
        np.testing.assert_allclose(g.edges[c].data["s"], want)
    with pytest.raises(ValueError, match="etype"):  # UDFs need etype= (DGL)
        g.apply_edges(lambda e: {"t": e.src["h"]})
