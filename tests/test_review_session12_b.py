"""Review of session 12's DGL UDF sweep fixes, the zero-in-degree error text and the docs
audits (19d1686..746b19c)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import arraygnn as ag
import arraygnn.function as fn
from arraygnn.batch import Batch
from arraygnn.data import Data

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _graph():
    src = np.array([0, 1, 2, 2, 3, 0, 3], np.int32)
    dst = np.array([1, 2, 1, 3, 1, 3, 3], np.int32)
    g = ag.graph((src, dst), num_nodes=5)
    g.edata["w"] = np.arange(10.0, 17.0)
    return g


def test_pull_sends_in_dgls_in_edges_order_of_the_nodes_given():
    """DGL's pull runs ``in_edges(v)`` (the nodes as given, each node's in-edges by edge
    id) and its compute graph keeps that edge order, as push keeps ``out_edges(u)``'s;
    the apply function still sees the receivers sorted (DGL's relabelled compute graph)."""
    g = _graph()
    seen = []

    def msg(edges):
        seen.append([a.tolist() for a in edges.edges()])
        return {"m": edges.data["w"]}

    def apply(nodes):
        seen.append(nodes.nodes().tolist())
        return {"o": nodes.data["o"]}

    g.pull(np.array([3, 1, 3], np.uint8), msg, fn.sum("m", "o"), apply)
    (u, v, eid), receivers = seen
    assert eid == [3, 5, 6, 0, 2, 4]  # in_edges([3, 1]); a repeated node counts once
    assert u == [2, 0, 3, 0, 2, 3] and v == [3, 3, 3, 1, 1, 1]
    assert receivers == [1, 3]
    np.testing.assert_allclose(g.ndata["o"], [0.0, 10 + 12 + 14, 0.0, 13 + 15 + 16, 0.0])


def test_pull_order_does_not_change_results_or_ids_dtype():
    g = _graph()
    g.ndata["h"] = np.arange(5.0)
    got = []
    for v in ([3, 1], [1, 3], [4, 3, 1]):
        g.pull(v, fn.copy_u("h", "m"), lambda n: {"o": n.mailbox["m"][:, -1] * 2.0})
        got.append(g.ndata["o"].copy())
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[0], got[2])
    ids = []
    g.pull([3, 1], lambda e: ids.append(e.edges()[2]) or {"m": e.src["h"]}, fn.sum("m", "q"))
    assert ids[0].dtype == g.idtype


def test_zero_in_degree_error_does_not_promise_zeros_or_the_bias_only():
    """With a residual term a zero-in-degree node's output is neither zeros nor the bias."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4)).astype(np.float32)
    ei = np.array([[0], [1]])
    conv = ag.nn.GATConv(4, 2, residual=True, add_self_loops=False, rng=1)
    with pytest.raises(ValueError, match="zero in-degree") as info:
        conv(x, ei)
    msg = str(info.value)
    assert "receive no message" in msg and "residual" in msg
    conv.allow_zero_in_degree = True
    assert np.abs(conv(x, ei)[0]).max() > 0  # node 0 has no in-edge, bias is 0


def test_any_face_key_array_holds_node_ids_of_its_graph():
    """docs/collation.md: an array key containing 'face' (``surface_area``) is an index key:
    concatenated, increased by num_nodes and checked as node ids."""
    ok = [
        Data(x=np.zeros((3, 1)), surface_area=np.array([1, 2])),
        Data(x=np.zeros((2, 1)), surface_area=np.array([0, 1])),
    ]
    assert Batch.from_data_list(ok).surface_area.tolist() == [1, 2, 3, 4]
    bad = [Data(x=np.zeros((3, 1)), surface_area=np.array([1, 7]))] * 2
    with pytest.raises(ValueError, match="surface_area.*outside"):
        Batch.from_data_list(bad)
    text = (DOCS / "collation.md").read_text(encoding="utf-8")
    assert "checked as node ids of its graph" in text


def test_num_nodes_key_is_the_first_present_in_insertion_order():
    """docs/getting_started.md / collation.md: PyG's node-count keys are read in the
    order they were set (PyG's store iteration), not in a fixed priority."""
    assert Data(pos=np.zeros((3, 2)), x=np.zeros((5, 1))).num_nodes == 3
    assert Data(x=np.zeros((5, 1)), pos=np.zeros((3, 2))).num_nodes == 5
    text = (DOCS / "getting_started.md").read_text(encoding="utf-8")
    assert "the first one set" in text
