"""Review of the DGL Graph API sweep (session 11): row views on a ``(u, v)`` pair of ints,
in-place structure edits inside ``local_scope``, ``filter_nodes`` / ``filter_edges`` with
repeated ids (DGL accepts them), and ``to_simple``'s sorted pairs against a NumPy
re-derivation of DGL's ``COOToSimple`` (sort by ``(u, v)``, then coalesce)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph, to_bidirected, to_simple


def _g(idtype=np.int64):
    g = graph((np.array([0, 1, 1, 2], idtype), np.array([1, 2, 2, 0], idtype)), num_nodes=4)
    g.ndata["h"] = np.array([1.0, 5.0, 3.0, 0.0])
    g.edata["w"] = np.array([10.0, 20.0, 30.0, 40.0])
    return g


def test_edge_row_view_of_an_int_pair_is_one_row():
    # DGL: g.edges[u, v] takes the edge ids of the pair (prepare_tensor makes an int 1-D)
    g = _g()
    view = g.edges[0, 1].data
    np.testing.assert_array_equal(view["w"], [10.0])
    assert "rows=1" in repr(view)
    g.edges[2, 0].data["w"] = np.array([7.0])
    np.testing.assert_array_equal(g.edata["w"], [10.0, 20.0, 30.0, 7.0])
    # a multi-edge pair: edge_ids gives one of them (the smallest id here)
    np.testing.assert_array_equal(g.edges[1, 2].data["w"], [20.0])


@pytest.mark.parametrize(
    "edit",
    [
        lambda g: g.add_nodes(2),
        lambda g: g.add_edges([3], [0]),
        lambda g: g.remove_edges([0]),
        lambda g: g.remove_nodes([3]),
    ],
)
def test_structure_edit_inside_local_scope_is_refused(edit):
    # on exit local_scope restores the feature dicts it saved; after an in-place edit those
    # belong to the old structure, so the scoped features leaked out (and DGL's own
    # local_scope puts back frames with the old row counts)
    g = _g()
    with g.local_scope():
        g.ndata["tmp"] = np.zeros(4)
        with pytest.raises(RuntimeError, match="local_scope"):
            edit(g)
    assert sorted(g.ndata) == ["h"] and g.num_nodes() == 4 and g.num_edges() == 4
    edit(g)  # outside a scope the edit works
    with g.local_scope():  # and a scope still works afterwards
        g.ndata["tmp"] = np.zeros(g.num_nodes())
    assert "tmp" not in g.ndata


def test_local_scope_counter_survives_an_exception_and_nesting():
    g = _g()
    with pytest.raises(KeyError):
        with g.local_scope():
            raise KeyError("boom")
    with g.local_scope():
        with g.local_scope():
            pass
        with pytest.raises(RuntimeError):
            g.add_nodes(1)
    g.add_nodes(1)
    assert g.num_nodes() == 5


def test_filter_nodes_and_edges_take_repeated_ids_as_dgl():
    # DGL: apply_nodes / apply_edges on the ids, then boolean_mask(ids, mask[ids])
    g = _g(np.int32)
    got = g.filter_nodes(lambda nodes: nodes.data["h"] > 2, [2, 1, 2, 0])
    np.testing.assert_array_equal(got, [2, 1, 2])
    assert got.dtype == np.int32
    got = g.filter_edges(lambda edges: edges.data["w"] > 15, [3, 0, 3, 1])
    np.testing.assert_array_equal(got, [3, 3, 1])
    # unchanged graph (the mask lived in a local scope)
    assert sorted(g.ndata) == ["h"] and sorted(g.edata) == ["w"]


def _dgl_to_simple(src, dst):
    """DGL's COOToSimple: COOSort (by row, then col; parallel edges in id order) then
    coalesce; the write-back mapping is each edge's run, counts the run lengths."""
    order = np.lexsort((np.arange(src.size), dst, src))
    s, d = src[order], dst[order]
    new = np.ones(src.size, bool)
    new[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(new)
    mapping = np.empty(src.size, np.int64)
    mapping[order] = np.cumsum(new) - 1
    counts = np.diff(np.append(starts, src.size))
    return s[starts], d[starts], order[starts], mapping, counts


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("seed", [0, 1])
def test_to_simple_matches_a_sort_then_coalesce(idtype, seed):
    rng = np.random.default_rng(seed)
    n, e = 7, 60
    src, dst = rng.integers(0, n, e).astype(idtype), rng.integers(0, n, e).astype(idtype)
    g = graph((src, dst), num_nodes=n + 2)  # isolated nodes too
    g.edata["w"] = rng.random(e)
    s, d, first, mapping, counts = _dgl_to_simple(src, dst)
    h, wb = to_simple(g, writeback_mapping=True, copy_edata=True)
    np.testing.assert_array_equal(h.edges()[0], s)
    np.testing.assert_array_equal(h.edges()[1], d)
    np.testing.assert_array_equal(wb, mapping)
    np.testing.assert_array_equal(h.edata["count"], counts)
    np.testing.assert_array_equal(h.edata["w"], g.edata["w"][first])  # the first edge's
    assert h.idtype == idtype and wb.dtype == idtype and h.edata["count"].dtype == idtype
    summed = to_simple(g, copy_edata=True, aggregator="sum").edata["w"]
    np.testing.assert_allclose(summed, np.bincount(mapping, g.edata["w"]))


def test_to_simple_of_small_and_heterogeneous_graphs():
    for src, dst in (([], []), ([2], [0]), ([1, 1], [0, 0])):
        g = graph((np.array(src, np.int64), np.array(dst, np.int64)), num_nodes=3)
        h, wb = to_simple(g, writeback_mapping=True)
        assert h.num_nodes() == 3 and wb.tolist() == [0] * len(src)
        assert h.edata["count"].tolist() == ([len(src)] if src else [])
    hg = heterograph(
        {
            ("a", "r", "b"): (np.array([1, 0, 1]), np.array([0, 2, 0])),
            ("b", "s", "a"): (np.array([0, 0]), np.array([1, 0])),
        }
    )
    h, wb = to_simple(hg, writeback_mapping=True)
    assert h.edges(etype="r")[0].tolist() == [0, 1] and h.edges(etype="r")[1].tolist() == [2, 0]
    assert wb[("a", "r", "b")].tolist() == [1, 0, 1]
    assert h.edges(etype="s")[1].tolist() == [0, 1] and wb[("b", "s", "a")].tolist() == [1, 0]
    both = to_bidirected(graph((np.array([0, 2, 2]), np.array([1, 1, 1]))))
    assert both.edges()[0].tolist() == [0, 1, 1, 2] and both.edges()[1].tolist() == [1, 0, 2, 1]
