"""DGL ``DGLGraph`` API parity sweep (session 11): argument names, defaults, return forms
and semantics of the DGL face's graph methods and functions on small graphs (homogeneous
and heterogeneous, int32 / int64 ids, parallel edges, self-loops, isolated nodes, no edges).

DGL is not installed: expected values are DGL's docstring examples or re-derived with NumPy
from DGL's source (python/dgl/heterograph.py, convert.py, transforms/functional.py,
batch.py, subgraph.py, view.py, utils/data.py; src/array/array.cc ``COOToSimple``,
src/array/cpu/spmat_op_impl_csr.cc ``CSRGetDataAndIndices``).
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    ETYPE,
    NID,
    Graph,
    add_reverse_edges,
    add_self_loop,
    batch,
    block_to_graph,
    create_block,
    edge_subgraph,
    graph,
    heterograph,
    node_subgraph,
    remove_self_loop,
    reverse,
    to_bidirected,
    to_block,
    to_homogeneous,
    to_simple,
    unbatch,
)

IDTYPES = [np.int32, np.int64]


def _l(a):
    return np.asarray(a).tolist()


def _pairs(g, etype=None):
    s, d = g.edges(etype=etype)
    return list(zip(_l(s), _l(d)))


def _multi(idtype):
    """Parallel 0->1 edges, a self-loop on 2, nodes 3 and 5 isolated."""
    src = np.array([0, 0, 1, 2, 2, 4], idtype)
    dst = np.array([1, 1, 2, 2, 0, 1], idtype)
    return graph((src, dst), num_nodes=6)


def _hetero(idtype=np.int64):
    return heterograph(
        {
            ("user", "follows", "user"): ([0, 1, 1], [1, 2, 2]),
            ("user", "plays", "game"): ([0, 1, 1, 2], [0, 0, 1, 1]),
            ("developer", "develops", "game"): ([0, 1], [0, 1]),
        },
        idtype=idtype,
    )


# ---------------------------------------------------------------------- queries
@pytest.mark.parametrize("idtype", IDTYPES)
def test_query_methods_forms_and_dtypes(idtype):
    g = _multi(idtype)
    assert g.idtype == idtype and g.num_nodes() == 6 and g.num_edges() == 6
    u, v, e = g.in_edges(1, form="all")  # an int gives arrays, grouped, eid order
    assert (_l(u), _l(v), _l(e)) == ([0, 0, 4], [1, 1, 1], [0, 1, 5])
    assert all(a.dtype == idtype for a in (u, v, e))
    assert _l(g.out_edges([2, 0], form="eid")) == [3, 4, 0, 1]
    s, d, e = g.edges(form="all", order="srcdst")
    assert (_l(s), _l(d), _l(e)) == ([0, 0, 1, 2, 2, 4], [1, 1, 2, 0, 2, 1], [0, 1, 2, 4, 3, 5])
    assert _l(g.edges(form="eid")) == list(range(6))
    assert [_l(a) for a in g.find_edges([5, 3])] == [[4, 2], [1, 2]]
    assert [a.dtype for a in g.find_edges([])] == [idtype, idtype]
    assert _l(g.predecessors(1)) == [0, 0, 4] and _l(g.successors(2)) == [2, 0]
    assert g.in_degrees(1) == 3 and isinstance(g.in_degrees(1), int)
    assert _l(g.in_degrees([3, 5])) == [0, 0] and g.in_degrees().dtype == idtype
    assert _l(g.out_degrees()) == [2, 1, 2, 0, 1, 0]
    assert g.edge_ids(0, 1) == 0 and isinstance(g.edge_ids(0, 1), int)
    assert _l(g.edge_ids([0, 2], [1, 2])) == [0, 3]
    # return_uv: every parallel edge; a pair that is not an edge gives nothing (no error)
    uv = g.edge_ids([0, 2, 3], [1, 2, 3], return_uv=True)
    assert [_l(a) for a in uv] == [[0, 0, 2], [1, 1, 2], [0, 1, 3]]
    with pytest.raises(ValueError, match=r"\(3, 3\) is not an edge"):
        g.edge_ids([0, 3], [1, 3])
    assert g.has_edges_between(2, 2) is True
    assert _l(g.has_edges_between([0, 1], [1, 0])) == [True, False]
    assert _l(g.has_nodes([0, 5, 6])) == [True, True, False] and g.has_nodes(5) is True


@pytest.mark.parametrize("idtype", IDTYPES)
def test_pair_queries_broadcast_one_id_as_dgl(idtype):
    """DGL's CSRGetData / CSRIsNonZero take one u (or v) against many (stride 0)."""
    g = _multi(idtype)
    assert _l(g.has_edges_between(0, [1, 2, 0])) == [True, False, False]
    assert _l(g.has_edges_between([0, 2, 4], 1)) == [True, False, True]
    assert _l(g.edge_ids(2, [2, 0])) == [3, 4]
    assert _l(g.edge_ids([0], np.array([1, 1]))) == [0, 0]
    uv = g.edge_ids(0, [1, 2], return_uv=True)
    assert [_l(a) for a in uv] == [[0, 0], [1, 1], [0, 1]]
    with pytest.raises(ValueError, match="u has 2 ids but v has 3"):
        g.has_edges_between([0, 1], [1, 2, 0])


def test_typed_queries_take_names_and_triples():
    g = _hetero()
    assert [_l(a) for a in g.edges(etype="plays")] == [
        _l(a) for a in g.edges(etype=("user", "plays", "game"))
    ]
    assert g.num_nodes("game") == 2 and g.num_nodes() == 7 and g.num_edges() == 9
    assert _l(g.nodes("user")) == [0, 1, 2]
    with pytest.raises(ValueError, match="pass ntype"):
        g.nodes()
    with pytest.raises(ValueError, match="pass etype"):
        g.edges()
    assert g.in_degrees(0, etype="plays") == 2
    assert _l(g.successors(1, etype="follows")) == [2, 2]
    assert _l(g.batch_num_nodes("user")) == [3]


# ---------------------------------------------------------------------- construction
@pytest.mark.parametrize("idtype", IDTYPES)
def test_graph_idtype_device_and_data_forms(idtype):
    g = graph(([0, 1], [1, 2]), idtype=idtype, device="cpu")
    assert g.idtype == idtype and g.num_nodes() == 3
    g = graph((np.array([0, 1], np.int32), np.array([1, 2], np.int32)), num_nodes=5, idtype=idtype)
    assert g.idtype == idtype and g.num_nodes() == 5
    g = graph(("coo", ([0, 1], [1, 2])), idtype=idtype)
    assert _pairs(g) == [(0, 1), (1, 2)]
    # CSR: row i's entries indptr[i]:indptr[i+1]; eids [] = entries in order
    g = graph(("csr", ([0, 2, 3, 3], [1, 2, 0], [])), idtype=idtype)
    assert _pairs(g) == [(0, 1), (0, 2), (1, 0)] and g.num_nodes() == 3 and g.idtype == idtype
    g = graph(("csr", ([0, 2, 3, 3], [1, 2, 0], [2, 0, 1])))
    assert _pairs(g) == [(0, 2), (1, 0), (0, 1)]  # entry j is edge eids[j]
    g = graph(("csc", (np.array([0, 1, 3, 3]), np.array([2, 0, 1]), np.array([]))))
    assert _pairs(g) == [(2, 0), (0, 1), (1, 1)] and g.num_nodes() == 3
    g = graph(("csr", ([0, 1, 1, 1, 1], [1], [])))  # empty trailing rows count as nodes
    assert g.num_nodes() == 4
    # a list is DGL's edge list of (u, v) pairs; a tuple is (src, dst)
    g = graph([(0, 1), (2, 3)])
    assert _pairs(g) == [(0, 1), (2, 3)] and g.num_nodes() == 4
    assert graph([]).num_nodes() == 0 and graph([]).num_edges() == 0
    assert graph([], idtype=idtype).idtype == idtype
    with pytest.raises(ValueError, match="sparse format"):
        graph(("bsr", ([0], [1])))
    with pytest.raises(ValueError, match="idtype"):
        graph(([0], [1]), idtype="float32")
    with pytest.raises(ValueError, match="outside"):
        graph(([0, 4], [1, 2]), num_nodes=3)
    with pytest.raises(ValueError, match="eids"):
        graph(("csr", ([0, 1, 2], [1, 0], [0, 0])))
    with pytest.raises(TypeError, match="row_sorted"):
        graph(([0], [1]), row_sorted=1)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_heterograph_idtype_and_data_forms(idtype):
    g = heterograph(
        {
            ("user", "plays", "game"): ("csr", ([0, 1, 1, 2], [1, 0], [])),
            ("user", "follows", "user"): [(0, 2)],
        },
        idtype=idtype,
        device="cpu",
    )
    assert g.idtype == idtype and g.num_nodes("user") == 3 and g.num_nodes("game") == 2
    assert _pairs(g, "plays") == [(0, 1), (2, 0)] and _pairs(g, "follows") == [(0, 2)]
    assert _hetero(idtype).idtype == idtype


@pytest.mark.parametrize("idtype", IDTYPES)
def test_create_block_and_block_to_graph(idtype):
    b = create_block(([0, 1, 2], [1, 1, 0]), num_src_nodes=4, num_dst_nodes=2, idtype=idtype)
    assert b.is_block and b.idtype == idtype
    assert (b.num_src_nodes(), b.num_dst_nodes(), b.num_edges()) == (4, 2, 3)
    assert _pairs(b) == [(0, 1), (1, 1), (2, 0)] and _l(b.in_degrees()) == [1, 2]
    b = create_block(([0, 1, 2], [1, 1, 0]))  # counts inferred per side
    assert (b.num_src_nodes(), b.num_dst_nodes()) == (3, 2)
    # DGL's docstring example
    hb = create_block(
        {("A", "AB", "B"): ([2, 1], [1, 3]), ("B", "BA", "A"): ([1, 2], [3, 2])},
        num_src_nodes={"A": 6, "B": 3},
        num_dst_nodes={"A": 4, "B": 5},
    )
    assert hb.srctypes == ["A", "B"] and hb.dsttypes == ["A", "B"]
    assert hb.num_src_nodes("A") == 6 and hb.num_dst_nodes("B") == 5
    assert hb.canonical_etypes == [("A", "AB", "B"), ("B", "BA", "A")]
    with pytest.raises(ValueError, match="both"):
        create_block(([0], [0]), num_src_nodes=1)
    with pytest.raises(ValueError, match="outside"):
        create_block(([0, 3], [0, 0]), num_src_nodes=2, num_dst_nodes=1)
    # block_to_graph: types '<t>_src' / '<t>_dst', features carried over
    b = to_block(graph(([0, 1, 2], [1, 1, 0]), idtype=idtype), np.array([1, 0], idtype))
    b.edata["w"] = np.arange(3.0)
    g = block_to_graph(b)
    assert not g.is_block and g.idtype == idtype
    assert g.canonical_etypes == [("_N_src", "_E", "_N_dst")]
    assert g.num_nodes("_N_src") == b.num_src_nodes() and g.num_nodes("_N_dst") == 2
    assert _l(g.nodes["_N_src"].data[NID]) == _l(b.srcdata[NID])
    assert _l(g.edata["w"]) == [0.0, 1.0, 2.0] and _pairs(g) == _pairs(b)


# ---------------------------------------------------------------------- in-place mutation
@pytest.mark.parametrize("idtype", IDTYPES)
def test_add_nodes_and_edges_in_place(idtype):
    g = graph((np.array([0, 1], idtype), np.array([1, 2], idtype)))
    g.ndata["h"] = np.ones((3, 2))
    g.edata["w"] = np.array([1.0, 2.0])
    h_before = g.ndata["h"]
    assert g.add_nodes(2, data={"h": np.full((2, 2), 5.0), "y": np.array([7, 8])}) is None
    assert g.num_nodes() == 5 and g.idtype == idtype
    assert _l(g.ndata["h"][:, 0]) == [1, 1, 1, 5, 5] and _l(g.ndata["y"]) == [0, 0, 0, 7, 8]
    assert _l(h_before[:, 0]) == [1, 1, 1]  # the old array is untouched
    g.add_edges([4, 0], [0, 6])  # node 6 does not exist: nodes 5, 6 are added
    assert g.num_nodes() == 7 and _pairs(g) == [(0, 1), (1, 2), (4, 0), (0, 6)]
    assert _l(g.edata["w"]) == [1, 2, 0, 0] and _l(g.ndata["y"]) == [0, 0, 0, 7, 8, 0, 0]
    g.add_edges(1, [2, 3], data={"w": np.array([9.0, 9.0])})  # one u for every v
    assert _pairs(g)[-2:] == [(1, 2), (1, 3)] and _l(g.edata["w"])[-2:] == [9, 9]
    g.add_edges([], [])
    assert g.num_edges() == 6
    assert g.in_degrees(2) == 2  # caches follow the new structure


@pytest.mark.parametrize("idtype", IDTYPES)
def test_remove_nodes_and_edges_in_place(idtype):
    g = graph((np.array([0, 0, 2], idtype), np.array([0, 1, 2], idtype)))
    g.ndata["hv"] = np.arange(3.0)[:, None]
    g.edata["he"] = np.arange(3.0)[:, None]
    g.out_degrees()  # build caches that must not survive the change
    g.remove_nodes(np.array([0, 1]))  # DGL's docstring example
    assert g.num_nodes() == 1 and g.num_edges() == 1 and g.idtype == idtype
    assert _l(g.ndata["hv"]) == [[2.0]] and _l(g.edata["he"]) == [[2.0]]
    assert _l(g.out_degrees()) == [1]
    g = graph(([0, 1, 2, 3], [1, 2, 3, 0]), idtype=idtype)
    g.edata["w"] = np.arange(4.0)
    g.remove_edges([2, 0, 2], store_ids=True)
    assert _pairs(g) == [(1, 2), (3, 0)] and _l(g.edata[EID]) == [1, 3]
    assert _l(g.edata["w"]) == [1.0, 3.0] and g.num_nodes() == 4
    # a batched graph keeps its batch information, recounted (DGL's docstring example)
    bg = batch([graph(([0, 0, 2], [0, 1, 2])), graph(([1, 2, 3], [1, 3, 4]))])
    bg.remove_nodes([1, 4])
    assert _l(bg.batch_num_nodes()) == [2, 4] and _l(bg.batch_num_edges()) == [2, 2]
    assert NID not in bg.ndata and EID not in bg.edata
    bg.remove_edges([0])
    assert _l(bg.batch_num_edges()) == [1, 2] and bg.batch_size == 2
    bg.add_nodes(1)  # DGL: adding discards the batch information
    assert bg.batch_size == 1


def test_mutation_on_heterographs_needs_the_type():
    g = _hetero()
    with pytest.raises(ValueError, match="pass ntype"):
        g.add_nodes(1)
    with pytest.raises(ValueError, match="pass etype"):
        g.add_edges([0], [0])
    g.add_edges([2], [3], etype="plays")  # game 3 is new, other types untouched
    assert g.num_nodes("game") == 4 and g.num_edges("develops") == 2
    g.remove_nodes([0, 1], ntype="game")  # DGL's docstring example (before the add)
    assert g.num_nodes("user") == 3 and g.num_nodes("game") == 2
    assert _pairs(g, "plays") == [(2, 1)] and g.num_edges("develops") == 0
    with pytest.raises(ValueError, match="blocks"):
        to_block(graph(([0], [1])), np.array([1])).add_nodes(1)


# ---------------------------------------------------------------------- subgraphs
@pytest.mark.parametrize("idtype", IDTYPES)
def test_subgraph_methods_take_dgls_keywords(idtype):
    g = _multi(idtype)
    g.ndata["h"] = np.arange(6.0)
    sg = g.subgraph([2, 0], relabel_nodes=False, output_device="cpu")
    assert sg.num_nodes() == 6 and NID not in sg.ndata and sg.ndata["h"] is g.ndata["h"]
    assert _pairs(sg) == [(2, 2), (2, 0)] and _l(sg.edata[EID]) == [3, 4]
    sg = node_subgraph(g, [2, 0], store_ids=False, output_device="cpu")
    assert _pairs(sg) == [(0, 0), (0, 1)] and EID not in sg.edata and NID not in sg.ndata
    sg = g.edge_subgraph([5, 0], relabel_nodes=False, store_ids=False, output_device="cpu")
    assert _pairs(sg) == [(4, 1), (0, 1)] and sg.num_nodes() == 6
    sg = edge_subgraph(g, [5, 0], output_device="cpu")
    assert _l(sg.ndata[NID]) == [4, 0, 1] and sg.idtype == idtype
    sg = g.in_subgraph([1, 0])  # DGL's CSC lookup: grouped by the given node
    assert _pairs(sg) == [(0, 1), (0, 1), (4, 1), (2, 0)] and _l(sg.edata[EID]) == [0, 1, 5, 4]
    sg = g.out_subgraph([2], relabel_nodes=True)
    assert _pairs(sg) == [(0, 0), (0, 1)] and _l(sg.ndata[NID]) == [2, 0]
    assert _l(sg.edata[EID]) == [3, 4]


# ---------------------------------------------------------------------- transforms
def _simple_by_numpy(src, dst, n, w):
    """DGL's COOToSimple: the distinct (u, v) sorted, counts, each old edge's new id;
    ``aggregator='arbitrary'`` takes each pair's first edge (np.unique return_index)."""
    keys = src.astype(np.int64) * n + dst
    uniq, first, inverse, counts = np.unique(
        keys, return_index=True, return_inverse=True, return_counts=True
    )
    total = np.zeros(len(uniq))
    np.add.at(total, inverse, w)
    return uniq // n, uniq % n, counts, inverse, w[first], total, total / counts


@pytest.mark.parametrize("idtype", IDTYPES)
def test_to_simple_sorts_pairs_as_dgls_coo_to_simple(idtype):
    rng = np.random.default_rng(0)
    n = 5
    src = rng.integers(0, n, 30).astype(idtype)
    dst = rng.integers(0, n, 30).astype(idtype)
    g = graph((src, dst), num_nodes=n + 1)  # node 5 isolated
    g.ndata["x"] = np.arange(6.0)
    g.edata["w"] = rng.random(30)
    s, d, c, wb, first, total, mean = _simple_by_numpy(src, dst, n + 1, g.edata["w"])
    for agg, want in (("arbitrary", first), ("sum", total), ("mean", mean)):
        h, m = to_simple(g, writeback_mapping=True, copy_edata=True, aggregator=agg)
        assert [_l(a) for a in h.edges()] == [_l(s), _l(d)]
        assert _l(h.edata["count"]) == _l(c) and _l(m) == _l(wb)
        np.testing.assert_allclose(h.edata["w"], want)
        assert h.idtype == idtype and h.ndata["x"] is g.ndata["x"]
    h = g.to_simple(return_counts=None, copy_ndata=False)
    assert "count" not in h.edata and "x" not in h.ndata and "w" not in h.edata
    empty = to_simple(graph((np.zeros(0, idtype), np.zeros(0, idtype)), num_nodes=2))
    assert empty.num_edges() == 0 and _l(empty.edata["count"]) == []


def test_to_simple_and_to_bidirected_heterograph_examples():
    hg = heterograph(
        {
            ("user", "wins", "user"): ([0, 2, 0, 2, 2], [1, 1, 2, 1, 0]),
            ("user", "plays", "game"): ([1, 2, 1], [2, 1, 1]),
        }
    )
    sg, wm = to_simple(hg, copy_ndata=False, writeback_mapping=True)
    assert _pairs(sg, "wins") == [(0, 1), (0, 2), (2, 0), (2, 1)]
    assert _l(wm[("user", "wins", "user")]) == [0, 3, 1, 3, 2]
    assert _l(sg.edges["wins"].data["count"]) == [1, 1, 1, 2]
    assert _pairs(sg, "plays") == [(1, 1), (1, 2), (2, 1)]
    # dgl.to_bidirected's heterograph example (sorted, as its C++ to_simple)
    hg = heterograph(
        {
            ("user", "wins", "user"): ([0, 2, 0, 2], [1, 1, 2, 0]),
            ("user", "follows", "user"): ([1, 2, 1], [2, 1, 1]),
        }
    )
    bg = to_bidirected(hg)
    assert [_l(a) for a in bg.edges(etype="wins")] == [[0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1]]
    assert [_l(a) for a in bg.edges(etype="follows")] == [[1, 1, 2], [1, 2, 1]]
    g = graph(([0, 1, 2], [1, 2, 0]))
    assert _pairs(to_bidirected(g)) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]


@pytest.mark.parametrize("idtype", IDTYPES)
def test_remove_self_loop_keeps_batch_information(idtype):
    """DGL's remove_self_loop is remove_edges, which recounts batch_num_edges."""
    g1 = graph(([0, 0, 1], [0, 1, 1]), idtype=idtype)
    g2 = graph(([0, 1], [1, 1]), idtype=idtype)
    bg = batch([g1, g2])
    h = remove_self_loop(bg)
    assert _pairs(h) == [(0, 1), (2, 3)] and h.idtype == idtype
    assert h.batch_size == 2 and _l(h.batch_num_nodes()) == [2, 2]
    assert _l(h.batch_num_edges()) == [1, 1]
    assert [_pairs(x) for x in unbatch(h)] == [[(0, 1)], [(0, 1)]]
    assert add_self_loop(h).batch_size == 1  # DGL's add_edges discards it


def test_reverse_and_add_reverse_edges_take_dgls_deprecated_keywords():
    g = graph(([0, 1], [1, 1]))
    g.ndata["x"] = np.zeros(2)
    g.edata["w"] = np.array([1.0, 2.0])
    with pytest.warns(DeprecationWarning, match="renamed"):
        r = reverse(g, share_ndata=False, share_edata=True)
    assert "x" not in r.ndata and r.edata["w"] is g.edata["w"]
    assert _pairs(r) == [(1, 0), (1, 1)]
    with pytest.warns(DeprecationWarning, match="readonly"):
        r = add_reverse_edges(g, readonly=True, copy_edata=True)
    assert _pairs(r) == [(0, 1), (1, 1), (1, 0)] and _l(r.edata["w"]) == [1, 2, 1]
    with pytest.warns(DeprecationWarning, match="share_ndata"):
        r = reverse(g, copy_ndata=False, share_ndata=True)  # DGL: share_ndata wins
    assert r.ndata["x"] is g.ndata["x"]


def test_to_homogeneous_skips_types_without_rows_as_dgl():
    """DGL's combine_frames skips frames with no rows: an empty type needs no feature."""
    hg = heterograph(
        {("a", "r", "b"): ([0, 1], [0, 0]), ("b", "s", "c"): ([], [])},
        num_nodes_dict={"a": 2, "b": 1, "c": 0},
    )
    hg.nodes["a"].data["x"] = np.array([1.0, 2.0])
    hg.nodes["b"].data["x"] = np.array([3.0])
    hg.edges["r"].data["w"] = np.array([5.0, 6.0])
    h, ncount, ecount = to_homogeneous(hg, ndata=["x"], edata=["w"], return_count=True)
    assert _l(h.ndata["x"]) == [1.0, 2.0, 3.0] and _l(h.edata["w"]) == [5.0, 6.0]
    assert (ncount, ecount) == ([2, 1, 0], [2, 0]) and _l(h.edata[ETYPE]) == [0, 0]
    with pytest.raises(KeyError, match="'y'"):
        to_homogeneous(hg, ndata=["y"])
    assert "_TYPE" not in to_homogeneous(hg, store_type=False).ndata


# ---------------------------------------------------------------------- batch / unbatch
@pytest.mark.parametrize("idtype", IDTYPES)
def test_batch_feature_selection_and_hetero_round_trip(idtype):
    g1, g2 = _hetero(idtype), _hetero(idtype)
    for i, g in enumerate((g1, g2)):
        for t in g.ntypes:  # DGL: a selected feature must be on every type with rows
            g.nodes[t].data["x"] = np.full(g.num_nodes(t), float(i))
        g.nodes["user"].data["y"] = np.zeros(3)
        g.edges["plays"].data["w"] = np.arange(4.0) + i
    bg = batch([g1, g2], ndata=["x"], edata=None)
    assert bg.idtype == idtype and bg.batch_size == 2
    assert list(bg.nodes["user"].data) == ["x"] and list(bg.edges["plays"].data) == []
    assert _l(bg.batch_num_nodes("game")) == [2, 2] and _l(bg.batch_num_edges("plays")) == [4, 4]
    assert _pairs(bg, "plays")[4:] == [(3, 2), (4, 2), (4, 3), (5, 3)]
    parts = unbatch(batch([g1, g2]))
    assert [p.num_nodes("user") for p in parts] == [3, 3] and parts[1].idtype == idtype
    assert _l(parts[1].edges["plays"].data["w"]) == [1.0, 2.0, 3.0, 4.0]
    assert _pairs(parts[1], "develops") == [(0, 0), (1, 1)]
    g = graph(([0, 2], [1, 3]), idtype=idtype)  # DGL's recipe: set the counts, unbatch
    g.set_batch_num_nodes(np.array([2, 2]))
    g.set_batch_num_edges(np.array([1, 1]))
    assert [_pairs(p) for p in unbatch(g)] == [[(0, 1)], [(0, 1)]]
    with pytest.raises(TypeError, match="ndata"):
        batch([g1], ndata="x")
    with pytest.raises(ValueError, match="no feature 'y'"):
        batch([g1, g2], ndata=["y"])


# ---------------------------------------------------------------------- more methods
def test_unibipartite_and_side_type_ids():
    g = heterograph({("a", "r", "b"): ([0], [1]), ("c", "s", "b"): ([0], [0])})
    assert g.is_unibipartite and not _hetero().is_unibipartite
    assert not graph(([0], [1])).is_unibipartite
    assert g.get_ntype_id_from_src("c") == 2 and g.get_ntype_id_from_dst("b") == 1
    with pytest.raises(KeyError, match="'b'"):
        g.get_ntype_id_from_src("b")
    with pytest.raises(ValueError, match="SRC"):
        g.get_ntype_id_from_src(None)
    assert g.get_ntype_id_from_dst(None) == 1
    b = create_block({("A", "AB", "B"): ([0], [0])})
    assert b.is_unibipartite
    assert b.get_ntype_id_from_src("A") == 0 and b.get_ntype_id_from_dst("B") == 1
    assert _hetero().get_ntype_id_from_src("user") == 2


@pytest.mark.parametrize("idtype", IDTYPES)
def test_filter_nodes_edges_local_var_and_schemes(idtype):
    g = _multi(idtype)
    g.ndata["h"] = np.arange(6.0)[:, None]
    g.edata["w"] = np.array([1.0, 5.0, 2.0, 6.0, 0.0, 7.0])
    got = g.filter_nodes(lambda nodes: nodes.data["h"][:, 0] > 2.5)
    assert _l(got) == [3, 4, 5] and got.dtype == idtype
    assert _l(g.filter_nodes(lambda nodes: nodes.data["h"][:, 0] > 2.5, [5, 0, 3])) == [5, 3]
    assert _l(g.filter_edges(lambda edges: edges.data["w"] > 4)) == [1, 3, 5]
    assert _l(g.filter_edges(lambda edges: edges.src["h"][:, 0] > 1, [4, 0])) == [4]
    assert _l(g.filter_edges(lambda edges: edges.data["w"] < 4, ([0], [1]))) == [0]
    assert "_mask" not in g.ndata and "_mask" not in g.edata
    local = g.local_var()
    local.ndata["z"] = np.zeros(6)
    assert "z" not in g.ndata and local.ndata["h"] is g.ndata["h"]
    schemes = g.node_attr_schemes()
    assert schemes["h"].shape == (1,) and schemes["h"].dtype == np.float64
    assert g.edge_attr_schemes()["w"].shape == ()
    a, b = g.adjacency_matrix(), g.adj()
    assert (_l(a.row), _l(a.col)) == (_l(b.row), _l(b.col))


def test_method_aliases_of_dgl_functions():
    pytest.importorskip("networkx")
    g = graph(([0, 1, 2], [1, 2, 0]))
    assert g.to_networkx().number_of_edges() == 3
    r = g.reorder_graph(edge_permute_algo="dst")
    assert r.num_edges() == 3 and EID in r.edata


def test_formats_idtype_casts_and_data_views():
    g = graph(([0, 1], [1, 2]))
    assert g.formats() == {"created": ["coo"], "not created": ["csr", "csc"]}
    assert g.int().idtype == np.int32 and g.int().long().idtype == np.int64
    assert g.long() is g
    hg = _hetero()
    hg.nodes["user"].data["x"] = np.ones(3)
    assert list(hg.ndata["x"]) == ["user"]
    hg.edata["w"] = {"plays": np.ones(4), ("user", "follows", "user"): np.zeros(3)}
    assert set(hg.edata["w"]) == {("user", "plays", "game"), ("user", "follows", "user")}
    with pytest.raises(TypeError, match="dict"):
        hg.ndata["x"] = np.ones(3)


# ---------------------------------------------------------------------- row views
@pytest.mark.parametrize("idtype", IDTYPES)
def test_node_and_edge_row_views(idtype):
    """DGL's ``g.nodes[ids].data`` / ``g.edges[ids].data``: reads gather the rows, writes
    replace them out of place (a new feature is 0 elsewhere)."""
    g = _multi(idtype)
    h = np.arange(12.0).reshape(6, 2)
    g.ndata["h"] = h
    g.edata["w"] = np.arange(6.0)
    assert _l(g.nodes[[4, 1]].data["h"]) == [[8.0, 9.0], [2.0, 3.0]]
    g.nodes[[4, 1]].data["h"] = np.zeros((2, 2))
    assert _l(g.ndata["h"][:, 0]) == [0.0, 0.0, 4.0, 6.0, 0.0, 10.0] and h[4, 0] == 8.0
    g.nodes[np.array([2])].data["new"] = np.array([7])
    assert _l(g.ndata["new"]) == [0, 0, 7, 0, 0, 0]
    assert sorted(g.nodes[[0]].data) == ["h", "new"] and len(g.nodes[[0]].data) == 2
    assert _l(g.nodes[:].data["new"]) == _l(g.ndata["new"])
    assert _l(g.edges[[5, 0]].data["w"]) == [5.0, 0.0]
    assert _l(g.edges[([0, 2], [1, 2])].data["w"]) == [0.0, 3.0]  # a (u, v) pair
    g.edges[[1]].data["w"] = np.array([-1.0])
    assert _l(g.edata["w"]) == [0.0, -1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="rows"):
        g.nodes[[0, 1]].data["h"] = np.zeros((3, 2))
    hg = _hetero(idtype)
    hg.nodes["user"].data["x"] = np.arange(3.0)
    assert _l(hg.nodes[[2, 0], "user"].data["x"]) == [2.0, 0.0]
    with pytest.raises(ValueError, match="pass ntype"):
        hg.nodes[[0]].data["x"]


def test_new_names_are_graph_methods():
    for name in (
        "add_nodes",
        "add_edges",
        "remove_nodes",
        "remove_edges",
        "filter_nodes",
        "filter_edges",
        "local_var",
        "adjacency_matrix",
        "node_attr_schemes",
        "edge_attr_schemes",
        "get_ntype_id_from_src",
        "get_ntype_id_from_dst",
        "to_networkx",
        "reorder_graph",
        "sample_etype_neighbors",
    ):
        assert callable(getattr(Graph, name)), name
