"""Parity sweep (session 13): DGL's batching and subgraph options on the DGL face.

DGL is not installed; the expected values are NumPy references written from DGL's sources
(dmlc/dgl, 2025-08): python/dgl/batch.py (``batch`` / ``_batch_feat_dicts`` / ``unbatch`` /
``slice_batch``), python/dgl/merge.py, python/dgl/convert.py (``create_block``),
python/dgl/subgraph.py (``node_subgraph`` / ``edge_subgraph`` / ``in_subgraph`` /
``out_subgraph``; ``utils.prepare_tensor`` turns a scalar id into a one-element array,
``extract_node_subframes`` stores no ``NID`` when nodes are not relabelled),
src/graph/heterograph.cc (``EdgeSubgraphNoPreserveNodes``: endpoints relabelled per node
type over the edge types in canonical order, each one's sources then destinations).
"""

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    NID,
    batch,
    create_block,
    edge_subgraph,
    graph,
    heterograph,
    in_subgraph,
    merge,
    node_subgraph,
    out_subgraph,
    slice_batch,
    unbatch,
)


def _hetero_pair():
    g1 = heterograph(
        {("u", "f", "u"): ([0], [1]), ("u", "p", "g"): ([0, 1], [0, 0])},
        num_nodes_dict={"u": 2, "g": 1},
    )
    g2 = heterograph(
        {("u", "f", "u"): ([0], [0]), ("u", "p", "g"): ([], [])},
        num_nodes_dict={"u": 1, "g": 0},
    )
    g1.nodes["g"].data["x"] = np.ones((1, 2))
    g1.nodes["u"].data["h"] = np.arange(2.0)
    g2.nodes["u"].data["h"] = np.arange(1.0)
    g1.edges["p"].data["w"] = np.array([3.0, 4.0])  # g2 has no 'p' edges: may lack it
    return g1, g2


# ---------------------------------------------------------------- batch / unbatch / slice
def test_batch_hetero_type_empty_in_some_graphs():
    g1, g2 = _hetero_pair()
    bg = batch([g1, g2])
    assert bg.batch_num_nodes("g").tolist() == [1, 0]
    assert bg.batch_num_edges("p").tolist() == [2, 0]
    np.testing.assert_array_equal(bg.nodes["g"].data["x"], np.ones((1, 2)))
    np.testing.assert_array_equal(bg.edges["p"].data["w"], [3.0, 4.0])
    # a batched batch concatenates the counts (DGL: F.cat of batch_num_nodes)
    bb = batch([bg, g1])
    assert bb.batch_num_nodes("u").tolist() == [2, 1, 2]
    assert bb.batch_num_edges("p").tolist() == [2, 0, 2]


@pytest.mark.parametrize(
    "ndata, error",
    [
        (None, None),
        (["h"], "no feature 'h'"),  # DGL checks the list on every node type with rows
        ("h", "ndata must be a list"),
    ],
)
def test_batch_ndata_lists(ndata, error):
    g1, g2 = _hetero_pair()
    if error is not None:
        with pytest.raises((ValueError, TypeError), match=error):
            batch([g1, g2], ndata=ndata)
        return
    bg = batch([g1, g2], ndata=ndata, edata=None)
    assert not bg.nodes["u"].data and not bg.nodes["g"].data and not bg.edges["p"].data


def test_batch_feature_in_some_graphs_with_rows_is_an_error():
    a, b = graph(([0], [1])), graph(([0], [1]))
    a.ndata["x"] = np.ones(2)
    with pytest.raises(ValueError, match="graph 1 has features"):
        batch([a, b])
    out = batch([a, b], ndata=[])  # DGL: an empty key list batches nothing
    assert not out.ndata


def test_batch_mixed_idtypes_widen_to_int64():
    # DGL refuses (DisjointUnion_v2: CHECK_EQ on NumBits); arraygnn widens (documented)
    out = batch([graph(([0], [1]), idtype=np.int32), graph(([0], [1]))])
    assert out.idtype == np.int64
    assert out.edges()[0].dtype == np.int64


@pytest.mark.parametrize("split_kind", ["list", "array"])
def test_unbatch_with_splits(split_kind):
    bg = batch([graph(([0, 1], [1, 2])), graph(([0], [1]))])
    bg.ndata["x"] = np.arange(5.0)
    bg.edata["w"] = np.arange(3.0)
    ns, es = [3, 2, 0], [2, 1, 0]  # a third, empty graph: DGL's F.split gives it
    if split_kind == "array":
        ns, es = np.array(ns), np.array(es)
    parts = unbatch(bg, node_split=ns, edge_split=es)
    assert [(p.num_nodes(), p.num_edges(), p.batch_size) for p in parts] == [
        (3, 2, 1),
        (2, 1, 1),
        (0, 0, 1),
    ]
    np.testing.assert_array_equal(parts[1].ndata["x"], [3.0, 4.0])
    np.testing.assert_array_equal(parts[1].edata["w"], [2.0])
    np.testing.assert_array_equal(parts[1].edges()[1], [1])


def test_unbatch_bad_splits():
    bg = batch([graph(([0, 1], [1, 2])), graph(([0], [1]))])
    with pytest.raises(TypeError, match="integer"):
        unbatch(bg, node_split=[3.0, 2.0], edge_split=[2, 1])
    with pytest.raises(ValueError, match=">= 0"):
        unbatch(bg, node_split=[6, -1], edge_split=[3, 0])
    with pytest.raises(ValueError, match="different numbers of graphs"):
        unbatch(bg, node_split=[3, 2], edge_split=[2, 1, 0])


@pytest.mark.parametrize("gid", [1, -1, np.int64(1)])
def test_slice_batch_hetero_store_ids(gid):
    g1, g2 = _hetero_pair()
    bg = batch([g1, g2])
    s = slice_batch(bg, gid, store_ids=True)
    assert (s.num_nodes("u"), s.num_nodes("g"), s.batch_size) == (1, 0, 1)
    # DGL: F.arange(start, start + n, retg.idtype): ids in the batched graph
    np.testing.assert_array_equal(s.nodes["u"].data[NID], [2])
    np.testing.assert_array_equal(s.edges["f"].data[EID], [1])
    assert s.nodes["u"].data[NID].dtype == bg.idtype
    assert s.nodes["g"].data[NID].shape == (0,)


# ---------------------------------------------------------------- merge
def test_merge_features_and_counts():
    m1 = graph(([0], [1]), num_nodes=3)
    m1.ndata["x"] = np.ones(3)
    m1.edata["w"] = np.ones(1)
    m2 = graph(([1, 1], [0, 3]), num_nodes=4)
    m2.ndata["x"] = 2 * np.ones(4)
    m2.ndata["y"] = np.arange(4.0)
    m2.edata["w"] = np.zeros(2)
    m2.edata["q"] = np.zeros(2)  # not in graphs[0]: dropped (DGL: ref's keys)
    m = merge([m1, m2])
    assert m.num_nodes() == 4 and m.batch_size == 1
    np.testing.assert_array_equal(m.ndata["x"], 2 * np.ones(4))
    np.testing.assert_array_equal(m.ndata["y"], np.arange(4.0))
    np.testing.assert_array_equal(m.edata["w"], [1.0, 0.0, 0.0])
    assert sorted(m.edata) == ["w"]
    with pytest.raises(KeyError, match="'q'"):  # graphs[0]'s key missing later: DGL too
        merge([m2, m1])
    assert merge([graph(([0], [1]), idtype=np.int32), graph(([0], [1]))]).idtype == np.int32


# ---------------------------------------------------------------- create_block / blocks
def test_create_block_count_dicts():
    b = create_block(
        {("A", "x", "B"): ([0], [1])}, num_src_nodes={"A": 1, "C": 4}, num_dst_nodes={"B": 2}
    )
    # DGL: srctypes = sorted(num_src_nodes), so a count-only type is a (featureless) type
    assert (b.srctypes, b.dsttypes, b.num_src_nodes("C"), b.num_src_nodes()) == (
        ["A", "C"],
        ["B"],
        4,
        5,
    )
    b = create_block({("A", "x", "B"): ([0, 2], [1, 0]), ("B", "y", "A"): ([1], [0])})
    # inferred per side: src A 3, src B 2, dst B 2, dst A 1; num_*_nodes() sum the types
    assert (b.num_src_nodes(), b.num_dst_nodes(), b.num_dst_nodes("A")) == (5, 3, 1)
    b = create_block(([0, 1], [0, 0]), 2, 1, idtype=np.int32)
    assert b.idtype == np.int32 and b.edges()[0].dtype == np.int32


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_create_block_bad_count_dict_names_argument(bad):
    with pytest.raises((TypeError, ValueError), match="num_src_nodes"):
        create_block(
            {("A", "x", "B"): ([0], [1])}, num_src_nodes={"A": bad}, num_dst_nodes={"B": 2}
        )


# ---------------------------------------------------------------- node / edge subgraph
def _g():
    g = graph(([0, 1, 2, 3, 0, 2], [1, 2, 3, 0, 2, 1]), num_nodes=4)
    g.ndata["x"] = np.arange(4.0)
    g.edata["w"] = np.arange(6.0)
    return g


def test_node_subgraph_no_relabel():
    g = _g()
    s = node_subgraph(g, [2, 0, 1], relabel_nodes=False)
    # DGL: the node subgraph's induced edges (grouped by new source), then
    # edge_subgraph(preserve_nodes=True): original ids, no NID, EID stored
    np.testing.assert_array_equal(s.edata[EID], [5, 0, 4, 1])
    np.testing.assert_array_equal(s.edges()[0], [2, 0, 0, 1])
    np.testing.assert_array_equal(s.edges()[1], [1, 1, 2, 2])
    assert s.num_nodes() == 4 and NID not in s.ndata
    assert s.ndata["x"] is g.ndata["x"]
    s = node_subgraph(g, [2, 0, 1], relabel_nodes=False, store_ids=False)
    assert sorted(s.edata) == ["w"]


@pytest.mark.parametrize("form", ["int", "np_int", "0d"])
def test_subgraph_single_id(form):
    # DGL's prepare_tensor unsqueezes a 0-d id: one node / edge
    g = _g()
    one = {"int": 2, "np_int": np.int64(2), "0d": np.array(2)}[form]
    s = node_subgraph(g, one)
    np.testing.assert_array_equal(s.ndata[NID], [2])
    s = edge_subgraph(g, one)
    np.testing.assert_array_equal(s.edata[EID], [2])
    np.testing.assert_array_equal(s.ndata[NID], [2, 3])


@pytest.mark.parametrize("store_ids", [True, False])
def test_edge_subgraph_no_relabel(store_ids):
    g = _g()
    s = edge_subgraph(g, [4, 0], relabel_nodes=False, store_ids=store_ids)
    # DGL: node frames moved as they are (no NID; the same arrays), edges in the order given
    assert s.num_nodes() == 4 and NID not in s.ndata
    assert s.ndata["x"] is g.ndata["x"]
    np.testing.assert_array_equal(s.edges()[0], [0, 0])
    np.testing.assert_array_equal(s.edges()[1], [2, 1])
    np.testing.assert_array_equal(s.edata["w"], [4.0, 0.0])
    assert (EID in s.edata) == store_ids
    if store_ids:
        np.testing.assert_array_equal(s.edata[EID], [4, 0])


def test_edge_subgraph_masks_and_order():
    g = _g()
    s = edge_subgraph(g, np.array([0, 0, 1, 0, 1, 0], bool))
    np.testing.assert_array_equal(s.edata[EID], [2, 4])
    s = edge_subgraph(g, [4, 0, 2])  # Relabel_: sources 0 0 2, then destinations 2 1 3
    np.testing.assert_array_equal(s.ndata[NID], [0, 2, 1, 3])
    np.testing.assert_array_equal(s.edges()[0], [0, 0, 1])
    np.testing.assert_array_equal(s.edges()[1], [1, 2, 3])


@pytest.mark.parametrize("order", ["canonical", "reversed"])
def test_edge_subgraph_hetero_dict_order_does_not_matter(order):
    h = heterograph(
        {("u", "p", "g"): ([0, 1, 2], [0, 0, 1]), ("u", "f", "u"): ([0, 1, 2], [1, 2, 0])}
    )
    edges = {"f": [0], "p": [2]} if order == "canonical" else {"p": [2], "f": [0]}
    s = edge_subgraph(h, edges)
    # DGL: per node type over the edge types in canonical order (f before p): u gets f's
    # source 0, f's destination 1, then p's source 2
    np.testing.assert_array_equal(s.nodes["u"].data[NID], [0, 1, 2])
    np.testing.assert_array_equal(s.nodes["g"].data[NID], [1])
    np.testing.assert_array_equal(s.edges(etype="p")[0], [2])
    np.testing.assert_array_equal(s.edges(etype="f")[1], [1])


def test_edge_subgraph_of_block_is_refused():
    # DGL allows relabel_nodes=False (a non-block graph with src + dst type lists);
    # arraygnn refuses, documented in docs/coming_from_dgl.md
    b = create_block(([0, 1], [0, 0]), 2, 1)
    with pytest.raises(ValueError, match="block"):
        edge_subgraph(b, [0], relabel_nodes=False)


# ---------------------------------------------------------------- in / out subgraph
@pytest.mark.parametrize("fn", ["in", "out"])
@pytest.mark.parametrize("relabel", [True, False])
@pytest.mark.parametrize("store_ids", [True, False])
def test_in_out_subgraph_options(fn, relabel, store_ids):
    g = _g()
    f = in_subgraph if fn == "in" else out_subgraph
    s = f(g, [2, 1], relabel_nodes=relabel, store_ids=store_ids)
    # DGL: InEdges / OutEdges of the nodes in the order given, each's in edge-id order
    want_e = [1, 4, 0, 5] if fn == "in" else [2, 5, 1]
    src, dst = g.edges()[0][want_e], g.edges()[1][want_e]
    np.testing.assert_array_equal(s.edata["w"], np.array(want_e, float))
    assert (EID in s.edata) == store_ids
    if relabel:  # EdgeSubgraph(preserve_nodes=False): Relabel_ of sources, then destinations
        nid = list(dict.fromkeys([*src.tolist(), *dst.tolist()]))
        assert s.num_nodes() == len(nid)
        assert (NID in s.ndata) == store_ids
        np.testing.assert_array_equal(np.array(nid)[s.edges()[0]], src)
        np.testing.assert_array_equal(np.array(nid)[s.edges()[1]], dst)
        np.testing.assert_array_equal(s.ndata["x"], np.array(nid, float))
    else:
        assert s.num_nodes() == 4 and NID not in s.ndata
        np.testing.assert_array_equal(s.edges()[0], src)
        np.testing.assert_array_equal(s.edges()[1], dst)


def test_in_subgraph_hetero_and_bad_input():
    h = heterograph(
        {("u", "p", "g"): ([0, 1, 2], [0, 0, 1]), ("u", "f", "u"): ([0, 1, 2], [1, 2, 0])}
    )
    s = in_subgraph(h, {"g": [0]}, relabel_nodes=True)
    assert (s.num_nodes("u"), s.num_nodes("g"), s.num_edges("f")) == (2, 1, 0)
    s = out_subgraph(h, {"u": [2, 0]})
    np.testing.assert_array_equal(s.edata[EID][("u", "p", "g")], [2, 0])
    np.testing.assert_array_equal(s.edata[EID][("u", "f", "u")], [2, 0])
    g = _g()
    np.testing.assert_array_equal(in_subgraph(g, 2).edata[EID], [1, 4])  # a scalar id
    with pytest.raises(TypeError, match="integers"):  # DGL: bool is not an id dtype
        in_subgraph(g, np.array([True, False, True, True]))


def test_subgraphs_drop_the_batch():
    bg = batch([graph(([0, 1], [1, 2])), graph(([0], [1]))])
    for s in (
        node_subgraph(bg, [0, 1, 3]),
        edge_subgraph(bg, [0, 2]),
        in_subgraph(bg, [1]),
        out_subgraph(bg, [1], relabel_nodes=True),
        merge([bg, bg]),
    ):
        assert s.batch_size == 1


@pytest.mark.parametrize("relabel", [True, False])
def test_edge_subgraph_repeated_ids(relabel):
    # DGL: FindEdges of the given ids, a repeated id gives its edge twice (no uniqueness)
    g = _g()
    s = edge_subgraph(g, [4, 4, 0], relabel_nodes=relabel)
    np.testing.assert_array_equal(s.edata[EID], [4, 4, 0])
    np.testing.assert_array_equal(s.edata["w"], [4.0, 4.0, 0.0])
    nid = s.ndata[NID] if relabel else np.arange(4)
    np.testing.assert_array_equal(nid[s.edges()[0]], [0, 0, 0])
    np.testing.assert_array_equal(nid[s.edges()[1]], [2, 2, 1])
