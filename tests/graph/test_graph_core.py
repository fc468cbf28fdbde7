"""Graph construction, data views, local_scope, degrees and bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import graph, heterograph


def _hetero():
    return heterograph(
        {
            ("user", "follows", "user"): (np.array([0, 1]), np.array([1, 2])),
            ("user", "plays", "game"): (np.array([0, 2, 2]), np.array([1, 0, 1])),
        },
        num_nodes_dict={"user": 3, "game": 2},
    )


def test_homogeneous_structure():
    g = graph((np.array([0, 0, 1]), np.array([1, 2, 2])))
    assert (g.num_nodes(), g.num_edges()) == (3, 3)
    assert g.ntypes == ["_N"] and g.etypes == ["_E"]
    assert g.canonical_etypes == [("_N", "_E", "_N")]
    assert not g.is_block and g.is_homogeneous and g.device == "cpu"
    np.testing.assert_array_equal(g.in_degrees(), [0, 1, 2])
    np.testing.assert_array_equal(g.out_degrees(), [2, 1, 0])
    np.testing.assert_array_equal(g.in_degrees(np.array([2, 0])), [2, 0])
    src, dst, eid = g.edges(form="all")
    np.testing.assert_array_equal(eid, [0, 1, 2])
    np.testing.assert_array_equal(g.nodes(), [0, 1, 2])
    assert g.number_of_dst_nodes() == 3 and g.number_of_src_nodes() == 3
    assert g.to("cpu") is g


def test_num_nodes_given_keeps_isolated_nodes_and_dtypes():
    g = graph((np.array([0], np.int32), np.array([1], np.int32)), num_nodes=5)
    assert g.num_nodes() == 5 and g.idtype == np.int32
    np.testing.assert_array_equal(g.in_degrees(), [0, 1, 0, 0, 0])
    assert graph(([], []), num_nodes=0).num_nodes() == 0
    assert graph(([0, 1], [1, 0])).num_edges() == 2  # lists are accepted


def test_heterograph_structure_and_views():
    g = _hetero()
    assert g.ntypes == ["game", "user"]
    assert g.etypes == ["follows", "plays"]
    assert g.num_nodes("user") == 3 and g.num_nodes("game") == 2 and g.num_nodes() == 5
    assert g.num_edges("plays") == 3 and g.num_edges() == 5
    np.testing.assert_array_equal(g.in_degrees(etype="plays"), [1, 2])
    np.testing.assert_array_equal(g.out_degrees(etype=("user", "plays", "game")), [1, 0, 2])
    g.nodes["user"].data["x"] = np.ones((3, 2))
    g.nodes["game"].data["x"] = np.zeros((2, 2))
    assert set(g.ndata["x"]) == {"user", "game"}
    g.edges["plays"].data["w"] = np.arange(3.0)
    np.testing.assert_array_equal(g.edata["w"][("user", "plays", "game")], [0, 1, 2])
    g.ndata["y"] = {"game": np.ones(2)}
    assert "y" in g.nodes["game"].data and "y" not in g.nodes["user"].data
    with pytest.raises(TypeError, match="assign a dict"):
        g.ndata["z"] = np.ones(3)


def test_uni_bipartite_src_and_dst_views():
    g = heterograph({("a", "r", "b"): (np.array([0, 3]), np.array([1, 1]))}, {"a": 4, "b": 2})
    assert g.srctypes == ["a"] and g.dsttypes == ["b"]
    assert g.number_of_src_nodes() == 4 and g.number_of_dst_nodes() == 2
    g.srcdata["x"] = np.array([1.0, 2.0, 3.0, 4.0])
    g.update_all(fn.copy_u("x", "m"), fn.sum("m", "h"))
    np.testing.assert_allclose(g.dstdata["h"], [0.0, 5.0])
    np.testing.assert_allclose(g.nodes["b"].data["h"], [0.0, 5.0])


def test_local_scope_drops_new_and_restores_replaced_features():
    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    x = np.arange(3.0)
    g.ndata["x"] = x
    with g.local_scope():
        g.ndata["x"] = x * 10
        g.ndata["tmp"] = x
        g.edata["w"] = np.ones(2)
        del g.ndata["x"]
    assert g.ndata["x"] is x and "tmp" not in g.ndata and "w" not in g.edata
    with pytest.raises(RuntimeError):
        with g.local_scope():
            g.ndata["tmp"] = x
            raise RuntimeError
    assert "tmp" not in g.ndata


def test_errors_name_the_offending_piece():
    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    with pytest.raises(ValueError, match=r"has 2 rows but .* holds 3 rows"):
        g.ndata["x"] = np.ones(2)
    with pytest.raises(ValueError, match=r"\['x'\] has 3 rows .* holds 2 rows"):
        g.edata["x"] = np.ones(3)
    with pytest.raises(TypeError, match="NumPy or CuPy array"):
        g.ndata["x"] = [1, 2, 3]
    with pytest.raises(KeyError, match=r"'nope' not found in g.nodes\['_N'\].data"):
        g.ndata["nope"]
    g.ndata["x"] = np.ones((3, 2))
    with pytest.raises(KeyError, match=r"fn.copy_u: source node feature 'h' not found"):
        g.update_all(fn.copy_u("h", "m"), fn.sum("m", "h"))
    with pytest.raises(KeyError, match=r"fn.u_mul_e: edge feature 'w' not found in g.edges"):
        g.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    with pytest.raises(ValueError, match="reduces message field 'msg' but fn.copy_u writes 'm'"):
        g.update_all(fn.copy_u("x", "m"), fn.sum("msg", "h"))
    with pytest.raises(ValueError, match="message field 'msg' was not sent"):
        g.update_all(lambda edges: {"m": edges.src["x"]}, fn.sum("msg", "h"))
    with pytest.raises(KeyError, match=r"edges.src\['q'\]: feature 'q' not found"):
        g.update_all(lambda edges: {"m": edges.src["q"]}, fn.sum("m", "h"))
    with pytest.raises(KeyError, match="mailbox"):
        g.update_all(fn.copy_u("x", "m"), lambda nodes: {"h": nodes.mailbox["zz"].sum(1)})
    g.edata["w"] = np.ones((2, 3))
    with pytest.raises(ValueError, match="do not broadcast"):
        g.apply_edges(fn.u_add_e("x", "w", "s"))
    with pytest.raises(KeyError, match="edge type 'likes' does not exist"):
        g.update_all(fn.copy_u("x", "m"), fn.sum("m", "h"), etype="likes")
    with pytest.raises(ValueError, match=r"message UDF output 'm' has 1 rows, expected 2"):
        g.update_all(lambda edges: {"m": np.ones(1)}, fn.sum("m", "h"))
    with pytest.raises(TypeError, match="message function must be"):
        g.update_all("copy_u", fn.sum("m", "h"))
    with pytest.raises(ValueError, match="cross_reducer must be one of"):
        g.multi_update_all({"_E": (fn.copy_u("x", "m"), fn.sum("m", "h"))}, "avg")


def test_bad_ids_are_rejected_before_any_kernel():
    with pytest.raises(ValueError, match=r"destination ids .* contains id 5, outside \[0, 3\)"):
        graph((np.array([0, 1]), np.array([1, 5])), num_nodes=3)
    with pytest.raises(ValueError, match="contains id -1"):
        graph((np.array([-1, 1]), np.array([1, 2])), num_nodes=3)
    with pytest.raises(ValueError, match="2 source ids but 1 destination ids"):
        graph((np.array([0, 1]), np.array([1])), num_nodes=3)
    with pytest.raises(TypeError, match="must hold integers"):
        graph((np.array([0.0]), np.array([1.0])))
    with pytest.raises(ValueError, match="must be 1-D"):
        graph((np.zeros((2, 2), int), np.zeros((2, 2), int)))
    with pytest.raises(
        ValueError, match=r"source ids of edge type \('user', 'plays', 'game'\) contains id 4"
    ):
        heterograph(
            {("user", "plays", "game"): (np.array([4]), np.array([0]))}, {"user": 2, "game": 1}
        )
    with pytest.raises(TypeError, match=r"keys are \(src_type, etype, dst_type\)"):
        heterograph({"plays": (np.array([0]), np.array([0]))})
    g = graph((np.array([0]), np.array([1])), num_nodes=2)
    with pytest.raises(ValueError, match="contains id 7"):
        g.in_degrees(np.array([7]))


def test_input_arrays_are_never_mutated():
    src, dst = np.array([2, 0, 1]), np.array([0, 1, 1])
    s0, d0 = src.copy(), dst.copy()
    g = graph((src, dst), num_nodes=3)
    x = np.arange(3.0)
    g.ndata["x"] = x
    g.update_all(fn.copy_u("x", "m"), fn.sum("m", "x"))
    g.subgraph([0, 1])
    np.testing.assert_array_equal(src, s0)
    np.testing.assert_array_equal(dst, d0)
    np.testing.assert_array_equal(x, [0, 1, 2])


def test_csr_is_cached_per_edge_type():
    g = _hetero()
    assert g.csr("plays") is g.csr("plays")
    assert g.csr("plays") is not g.csr("follows")


def test_cupy_graph_stays_on_device():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - cupy without a device
        pytest.skip("no CUDA device")
    g = graph((cp.array([0, 1, 2]), cp.array([1, 2, 0])), num_nodes=3)
    g.ndata["x"] = cp.arange(6.0).reshape(3, 2)
    g.edata["w"] = cp.array([1.0, 2.0, 3.0])
    g.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    assert isinstance(g.ndata["h"], cp.ndarray)
    np.testing.assert_allclose(g.ndata["h"].get(), [[12.0, 15.0], [0.0, 1.0], [4.0, 6.0]])
    with pytest.raises(TypeError, match="NumPy array but the graph is on"):
        g.ndata["y"] = np.ones(3)
    h = g.to("cpu")
    assert isinstance(h.ndata["h"], np.ndarray) and h.device == "cpu"
