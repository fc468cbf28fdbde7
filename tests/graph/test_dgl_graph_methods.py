"""DGL-face gaps (session 9): Graph methods ``clone`` / ``int`` / ``long`` / ``is_multigraph`` /
``has_nodes`` / ``formats`` / ``adj`` / ``to_canonical_etype`` / ``get_ntype_id`` /
``get_etype_id``, ``node_type_subgraph`` / ``edge_type_subgraph``, ``batch_num_*`` in the
graph's idtype, int seeds for ``sample_neighbors``, ``SAGEConv(aggregator_type='lstm')`` and
``to_block(..., src_nodes=)``.

DGL is not installed: expected values are DGL's docstring examples or worked by hand from
DGL's source (python/dgl/heterograph.py, subgraph.py, transforms/to_block.py,
src/graph/transform/to_block.cc, nn/pytorch/conv/sageconv.py, core.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    NID,
    batch,
    edge_type_subgraph,
    graph,
    heterograph,
    node_type_subgraph,
    to_block,
)
from arraygnn.sampling import sample_neighbors


def _hetero():
    # DGL's to_canonical_etype docstring graph
    return heterograph(
        {
            ("user", "follows", "user"): ([0, 1], [1, 2]),
            ("user", "plays", "game"): ([0, 1, 1, 2], [0, 0, 1, 1]),
            ("developer", "follows", "game"): ([0, 1], [0, 1]),
        }
    )


# ---------------------------------------------------------------- clone / int / long
def test_clone_copies_structure_and_feature_dicts_sharing_arrays():
    g = graph((np.array([0, 1]), np.array([1, 2])))
    g.ndata["h"] = np.arange(3.0)
    g.edata["w"] = np.array([1.0, 2.0])
    g.in_degrees()  # a cached CSR travels with the clone (DGL shares its relation graphs)
    c = g.clone()
    assert c is not g and c.idtype == g.idtype
    np.testing.assert_array_equal(c.edges()[0], [0, 1])
    np.testing.assert_array_equal(c.edges()[1], [1, 2])
    assert c.ndata["h"] is g.ndata["h"] and c.edata["w"] is g.edata["w"]  # Frame.clone
    c.ndata["new"] = np.zeros(3)
    del c.edata["w"]
    assert "new" not in g.ndata and "w" in g.edata  # adding / removing is not shared
    assert c.formats()["created"] == ["coo", "csc"]


def test_clone_of_a_block_and_of_a_batch():
    b = to_block(graph((np.array([2, 0]), np.array([1, 1])), num_nodes=3), np.array([1]))
    cb = b.clone()
    assert cb.is_block and cb.num_src_nodes() == 3 and cb.num_dst_nodes() == 1
    assert cb.srcdata[NID] is b.srcdata[NID]
    bg = batch([graph(([0], [1])), graph(([0, 1], [1, 2]))])
    assert bg.clone().batch_num_nodes().tolist() == [2, 3]


def test_int_and_long_cast_the_idtype():
    # DGL's g.int() / g.long() docstrings
    g = graph((np.array([0, 0, 1]), np.array([1, 2, 2])))
    g.ndata["feat"] = np.ones((3, 1), np.float32)
    assert g.idtype == np.int64 and g.long() is g  # already int64: the graph itself
    gi = g.int()
    assert gi.idtype == np.int32 and g.idtype == np.int64
    assert [a.dtype for a in gi.edges()] == [np.int32, np.int32]
    assert gi.nodes().dtype == np.int32 and gi.int() is gi
    assert gi.ndata["feat"] is g.ndata["feat"]
    gl = gi.long()
    assert gl.idtype == np.int64 and gl.edges()[0].tolist() == [0, 0, 1]
    hg = _hetero().int()
    assert hg.idtype == np.int32 and hg.canonical_etypes == _hetero().canonical_etypes


def test_int_refuses_a_graph_too_large_for_int32():
    g = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=2**31)
    with pytest.raises(ValueError, match="int32"):
        g.int()


# ---------------------------------------------------------------- queries
def test_is_multigraph_dgl_docstring():
    assert not graph(([0, 1], [1, 3])).is_multigraph
    assert graph(([0, 1, 1], [1, 3, 3])).is_multigraph
    g = heterograph(
        {
            ("user", "follows", "user"): ([0, 1], [1, 2]),
            ("user", "follows", "game"): ([0, 1, 2], [1, 2, 3]),
        }
    )
    assert not g.is_multigraph
    g = heterograph(
        {
            ("user", "follows", "user"): ([0, 1, 1], [1, 2, 2]),
            ("user", "follows", "game"): ([0, 1, 2], [1, 2, 3]),
        }
    )
    assert g.is_multigraph


def test_has_nodes_dgl_docstring():
    g = heterograph(
        {
            ("user", "follows", "user"): ([0, 1], [1, 2]),
            ("user", "plays", "game"): ([3, 4], [0, 1]),
        }
    )
    assert g.has_nodes(0, "user") is True
    assert g.has_nodes(3, "game") is False
    out = g.has_nodes(np.array([3, 0, 1]), "game")
    assert out.dtype == bool and out.tolist() == [False, True, True]
    assert g.has_nodes([5, 4], ntype="user").tolist() == [False, True]
    with pytest.raises(ValueError, match="non-negative"):
        g.has_nodes([-1], "user")
    with pytest.raises(ValueError, match="ntype"):
        g.has_nodes(0)
    assert graph(([0], [1])).has_nodes(1) is True


def test_to_canonical_etype_and_type_ids():
    g = _hetero()
    assert g.to_canonical_etype("plays") == ("user", "plays", "game")
    assert g.to_canonical_etype(("user", "plays", "game")) == ("user", "plays", "game")
    with pytest.raises(KeyError, match="ambiguous"):
        g.to_canonical_etype("follows")
    with pytest.raises(KeyError, match="does not exist"):
        g.to_canonical_etype("likes")
    with pytest.raises(ValueError, match="etype"):
        g.to_canonical_etype(None)
    assert graph(([0], [1])).to_canonical_etype(None) == ("_N", "_E", "_N")
    # ids follow the sorted orders (DGL's ntypes / canonical_etypes)
    assert g.ntypes == ["developer", "game", "user"]
    assert [g.get_ntype_id(t) for t in g.ntypes] == [0, 1, 2]
    assert g.canonical_etypes == [
        ("developer", "follows", "game"),
        ("user", "follows", "user"),
        ("user", "plays", "game"),
    ]
    assert g.get_etype_id("plays") == 2
    assert g.get_etype_id(("developer", "follows", "game")) == 0
    assert graph(([0], [1])).get_etype_id(None) == 0 and graph(([0], [1])).get_ntype_id(None) == 0
    with pytest.raises(ValueError, match="ntype"):
        g.get_ntype_id(None)
    with pytest.raises(KeyError, match="does not exist"):
        g.get_ntype_id("item")


def test_block_type_ids_follow_dgl_src_then_dst():
    g = heterograph({("A", "_E", "B"): ([1, 2], [2, 3])})
    b = to_block(g, {"B": np.array([3, 2])})
    # DGL: a block's SRC types take ids 0..S-1, its DST types S..; a name on both sides
    # resolves to its SRC id unless prefixed 'DST/'
    assert b.get_ntype_id("A") == 0 and b.get_ntype_id("B") == 1
    assert b.get_ntype_id("DST/A") == 2 and b.get_ntype_id("DST/B") == 3
    assert b.get_ntype_id("SRC/B") == 1


# ---------------------------------------------------------------- formats / adj
def test_formats_reports_what_is_cached():
    g = graph(([0, 0, 1], [2, 3, 2]))
    assert g.formats() == {"created": ["coo"], "not created": ["csr", "csc"]}
    g.in_degrees()  # the destination-sorted CSR = DGL's 'csc'
    assert g.formats() == {"created": ["coo", "csc"], "not created": ["csr"]}
    g.out_degrees()  # the source-sorted one = DGL's 'csr'
    assert g.formats() == {"created": ["coo", "csr", "csc"], "not created": []}


def test_formats_with_names_returns_a_clone_with_them_created():
    g = graph(([0, 0, 1], [2, 3, 2]))
    g.ndata["h"] = np.ones((4, 1))
    csr_g = g.formats("csr")
    assert csr_g is not g and csr_g.ndata["h"] is g.ndata["h"]
    assert csr_g.formats() == {"created": ["coo", "csr"], "not created": ["csc"]}
    assert g.formats()["created"] == ["coo"]  # the input is untouched
    both = g.formats(["csr", "csc"])
    assert both.formats()["created"] == ["coo", "csr", "csc"]
    with pytest.raises(ValueError, match="formats"):
        g.formats(["dense"])
    with pytest.raises(ValueError, match="formats"):
        g.formats([])


def test_adj_dgl_docstring():
    sp = pytest.importorskip("scipy.sparse")
    a = graph(([0, 1, 2], [1, 2, 3])).adj()
    assert sp.issparse(a) and a.format == "coo" and a.shape == (4, 4)
    assert a.row.tolist() == [0, 1, 2] and a.col.tolist() == [1, 2, 3]
    assert a.data.dtype == np.float32 and a.data.tolist() == [1.0, 1.0, 1.0]
    g = heterograph(
        {
            ("user", "follows", "user"): ([0, 1], [0, 1]),
            ("developer", "develops", "game"): ([0, 1], [0, 2]),
        }
    )
    a = g.adj(etype="develops")
    assert a.shape == (2, 3) and a.row.tolist() == [0, 1] and a.col.tolist() == [0, 2]
    g.edata["h"] = {("user", "follows", "user"): np.array([3, 2])}
    a = g.adj(etype="follows", eweight_name="h")
    assert a.data.tolist() == [3, 2] and a.shape == (2, 2)
    # parallel edges stay separate entries, in edge-id order (COO)
    a = graph(([1, 0, 1], [0, 1, 0])).adj()
    assert a.row.tolist() == [1, 0, 1] and a.nnz == 3
    with pytest.raises(KeyError, match="eweight_name"):
        g.adj(etype="develops", eweight_name="h")


def test_adj_refuses_multi_column_weights():
    g = graph(([0, 1], [1, 0]))
    g.edata["w"] = np.ones((2, 3))
    with pytest.raises(ValueError, match="eweight_name"):
        g.adj(eweight_name="w")


# ---------------------------------------------------------------- type subgraphs
def _docstring_types():
    return heterograph(
        {
            ("user", "plays", "game"): ([0, 1, 1, 2], [0, 0, 2, 1]),
            ("user", "follows", "user"): ([0, 1, 1], [1, 2, 2]),
        }
    )


def test_node_type_subgraph_dgl_docstring():
    g = _docstring_types()
    g.nodes["user"].data["h"] = np.array([[0.0], [1.0], [2.0]])
    sub = node_type_subgraph(g, ["user"])
    assert sub.ntypes == ["user"] and sub.canonical_etypes == [("user", "follows", "user")]
    assert sub.num_nodes() == 3 and sub.num_edges() == 3
    np.testing.assert_array_equal(sub.nodes["user"].data["h"], [[0.0], [1.0], [2.0]])
    same = g.node_type_subgraph(["user", "game"])
    assert same.canonical_etypes == g.canonical_etypes
    with pytest.raises(ValueError, match="no edges"):
        g.node_type_subgraph(["game"])
    with pytest.raises(KeyError, match="item"):
        g.node_type_subgraph(["item"])


def test_edge_type_subgraph_dgl_docstring_shares_features():
    g = _docstring_types()
    g.edges["follows"].data["h"] = np.array([[0.0], [1.0], [2.0]])
    g.nodes["user"].data["x"] = np.arange(3.0)
    sub = edge_type_subgraph(g, ["follows"])
    assert sub.ntypes == ["user"] and sub.num_nodes() == 3 and sub.num_edges() == 3
    np.testing.assert_array_equal(sub.edges["follows"].data["h"], [[0.0], [1.0], [2.0]])
    sub.ndata["y"] = np.ones(3)  # DGL shares the frames: writes are seen by both
    assert "y" in g.nodes["user"].data
    by_triple = g.edge_type_subgraph([("user", "plays", "game")])
    assert by_triple.ntypes == ["game", "user"] and by_triple.num_nodes("game") == 3
    assert by_triple.num_edges() == 4
    with pytest.raises(TypeError, match="list"):
        g.edge_type_subgraph("follows")
    with pytest.raises(ValueError, match="twice"):
        g.edge_type_subgraph(["follows", ("user", "follows", "user")])


def test_edge_type_subgraph_drops_batch_information():
    bg = batch([_docstring_types(), _docstring_types()])
    sub = bg.edge_type_subgraph(["follows"])
    assert sub.batch_size == 1 and sub.batch_num_nodes().tolist() == [6]


# ---------------------------------------------------------------- batch_num_* idtype
def test_batch_counts_follow_the_idtype():
    g32 = graph((np.array([0, 1], np.int32), np.array([1, 2], np.int32)))
    assert g32.idtype == np.int32
    assert g32.batch_num_nodes().dtype == np.int32 and g32.batch_num_edges().dtype == np.int32
    g64 = graph((np.array([0, 1]), np.array([1, 2])))
    assert g64.batch_num_nodes().dtype == np.int64
    bg = batch([g32, g32])
    assert bg.batch_num_nodes().dtype == np.int32 and bg.batch_num_nodes().tolist() == [3, 3]
    assert bg.batch_num_edges().dtype == np.int32
    assert batch([g64, g64]).batch_num_edges().dtype == np.int64


def test_readouts_still_work_on_int32_batches():
    from arraygnn.graph import sum_nodes

    g32 = graph((np.array([0, 1], np.int32), np.array([1, 2], np.int32)))
    bg = batch([g32, g32])
    bg.ndata["h"] = np.arange(6.0)
    np.testing.assert_array_equal(sum_nodes(bg, "h"), [3.0, 12.0])


# ---------------------------------------------------------------- sample_neighbors seeds
def test_sample_neighbors_takes_an_int_seed():
    g = graph((np.array([1, 2, 3, 0]), np.array([0, 0, 0, 1])))
    ref = sample_neighbors(g, np.array([0]), 2, seed=3)
    for form in (0, np.int64(0), [0], {"_N": 0}, {"_N": [0]}):
        got = sample_neighbors(g, form, 2, seed=3)
        np.testing.assert_array_equal(got.edata[EID], ref.edata[EID])
    assert g.sample_neighbors(0, -1).num_edges() == 3
    with pytest.raises(TypeError):
        sample_neighbors(g, True, 2)
    with pytest.raises(ValueError, match="empty"):
        sample_neighbors(g, {}, 2)


def test_sample_neighbors_int_seed_on_a_heterograph_dict():
    g = _docstring_types()
    fr = sample_neighbors(g, {"game": 0}, -1)
    assert fr.num_edges("plays") == 2 and fr.num_edges("follows") == 0


# ---------------------------------------------------------------- to_block src_nodes
def test_to_block_src_nodes_homogeneous():
    g = graph(([1, 2], [2, 3]))
    g.ndata["x"] = np.arange(4.0) * 10
    b = to_block(g, np.array([3, 2]), src_nodes=np.array([3, 2, 0, 1]))
    assert b.srcdata[NID].tolist() == [3, 2, 0, 1] and b.dstdata[NID].tolist() == [3, 2]
    assert b.num_src_nodes() == 4  # node 0 kept although no edge leaves it
    src, dst = b.edges()
    assert src.tolist() == [3, 1] and dst.tolist() == [1, 0]
    assert b.edata[EID].tolist() == [0, 1]
    np.testing.assert_array_equal(b.srcdata["x"], [30.0, 20.0, 0.0, 10.0])
    np.testing.assert_array_equal(b.dstdata["x"], [30.0, 20.0])


def test_to_block_src_nodes_must_start_with_dst_nodes():
    g = graph(([1, 2], [2, 3]))
    with pytest.raises(ValueError, match="start with"):
        to_block(g, np.array([3, 2]), src_nodes=np.array([2, 3, 1]))
    with pytest.raises(ValueError, match="source"):
        to_block(g, np.array([3, 2]), src_nodes=np.array([3, 2]))  # node 1 missing
    with pytest.raises(ValueError, match="unique"):
        to_block(g, np.array([3, 2]), src_nodes=np.array([3, 2, 1, 1]))


def test_to_block_src_nodes_without_dst_in_src():
    g = graph(([1, 2], [2, 3]))
    b = to_block(g, np.array([3, 2]), include_dst_in_src=False, src_nodes=[2, 1])
    assert b.srcdata[NID].tolist() == [2, 1] and b.num_dst_nodes() == 2
    assert b.edges()[0].tolist() == [1, 0] and b.edges()[1].tolist() == [1, 0]


def test_to_block_src_nodes_dict_on_a_heterograph():
    g = heterograph({("A", "_E", "B"): ([1, 2], [2, 3])})
    b = to_block(g, {"B": np.array([3, 2])}, src_nodes={"A": [2, 1, 0], "B": [3, 2]})
    assert b.srcnodes["A"].data[NID].tolist() == [2, 1, 0]
    assert b.srcnodes["B"].data[NID].tolist() == [3, 2]
    assert b.edges()[0].tolist() == [1, 0] and b.edges()[1].tolist() == [1, 0]
    with pytest.raises(ValueError, match="dict"):
        to_block(g, {"B": np.array([3, 2])}, src_nodes=np.array([2, 1]))


# ---------------------------------------------------------------- SAGEConv 'lstm'
def _dgl_lstm_sage(torch, fin, fout, seed):
    """DGL's SAGEConv(aggregator_type='lstm') parameters and forward (degree bucketing:
    each node's mailbox holds its in-edges' messages sorted by edge id)."""
    torch.manual_seed(seed)
    lstm = torch.nn.LSTM(fin, fin, batch_first=True)
    fc_neigh = torch.nn.Linear(fin, fout, bias=False)
    fc_self = torch.nn.Linear(fin, fout, bias=True)

    def forward(src, dst, n_dst, x_src, x_dst, w=None):
        xs = torch.from_numpy(x_src)
        neigh = torch.zeros(n_dst, fin, dtype=xs.dtype)
        for v in range(n_dst):
            eids = np.sort(np.nonzero(dst == v)[0])
            if eids.size == 0:
                continue
            m = xs[torch.from_numpy(src[eids])]
            if w is not None:
                m = m * torch.from_numpy(w[eids])[:, None]
            h0 = torch.zeros(1, 1, fin, dtype=xs.dtype)
            _, (h, _) = lstm(m[None], (h0, h0.clone()))
            neigh[v] = h[0, 0]
        return (fc_neigh(neigh) + fc_self(torch.from_numpy(x_dst))).detach().numpy()

    params = {f"lstm.{k}": v for k, v in lstm.state_dict().items()}
    params["fc_neigh.weight"] = fc_neigh.weight
    params["fc_self.weight"] = fc_self.weight
    params["fc_self.bias"] = fc_self.bias
    return {k: v.detach().numpy() for k, v in params.items()}, forward


def test_sage_lstm_matches_dgl_reducer():
    torch = pytest.importorskip("torch")
    from arraygnn.nn import SAGEConv

    rng = np.random.default_rng(0)
    n, e = 7, 16
    src = rng.integers(0, n, e)
    dst = rng.integers(0, n - 2, e)  # nodes 5, 6 receive nothing: neigh = 0
    x = rng.standard_normal((n, 4)).astype(np.float32)
    w = rng.random(e).astype(np.float32)
    params, ref = _dgl_lstm_sage(torch, 4, 3, 0)
    with torch.no_grad():
        expect = ref(src, dst, n, x, x)
        expect_w = ref(src, dst, n, x, x, w)
    conv = SAGEConv(4, 3, "lstm").load_state_dict(params, format="dgl")
    g = graph((src, dst), num_nodes=n)
    np.testing.assert_allclose(conv(g, x), expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(conv(g, x, edge_weight=w), expect_w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(conv(x, np.stack([src, dst])), expect, rtol=1e-5, atol=1e-5)
    from arraygnn.ops import to_csr

    csr = to_csr(np.stack([src, dst]), n, n)
    np.testing.assert_allclose(conv(x, csr, edge_weight=w), expect_w, rtol=1e-5, atol=1e-5)
    assert sorted(conv.state_dict(format="dgl")) == sorted(params)


def test_sage_lstm_on_a_block_and_an_edgeless_graph():
    torch = pytest.importorskip("torch")
    from arraygnn.nn import SAGEConv

    rng = np.random.default_rng(1)
    params, ref = _dgl_lstm_sage(torch, 3, 2, 1)
    conv = SAGEConv(3, 2, "lstm").load_state_dict(params)
    g = graph((np.array([3, 0, 2, 3, 1]), np.array([1, 1, 0, 0, 1])), num_nodes=4)
    b = to_block(g, np.array([1, 0]))
    x = rng.standard_normal((4, 3)).astype(np.float32)
    xs = x[b.srcdata[NID]]
    bs, bd = (a.astype(np.int64) for a in b.edges())
    with torch.no_grad():
        expect = ref(bs, bd, 2, xs, xs[:2])
    np.testing.assert_allclose(conv(b, xs), expect, rtol=1e-5, atol=1e-5)
    empty = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=3)
    out = conv(empty, x[:3])
    with torch.no_grad():
        np.testing.assert_allclose(out, ref(bs[:0], bd[:0], 3, x[:3], x[:3]), atol=1e-6)


def test_sage_lstm_from_dgl_stand_in():
    torch = pytest.importorskip("torch")
    from arraygnn.nn import from_dgl

    class SAGEConv(torch.nn.Module):  # DGL's attributes for aggregator_type='lstm'
        def __init__(self):
            super().__init__()
            self._in_src_feats = self._in_dst_feats = 3
            self._out_feats, self._aggre_type = 2, "lstm"
            self.norm = self.activation = None
            self.lstm = torch.nn.LSTM(3, 3, batch_first=True)
            self.fc_neigh = torch.nn.Linear(3, 2, bias=False)
            self.fc_self = torch.nn.Linear(3, 2)
            self.register_buffer("bias", None)

    module = SAGEConv()
    conv = from_dgl(module)
    assert conv.aggregator_type == "lstm"
    np.testing.assert_array_equal(conv.lstm.weight_hh_l0, module.lstm.weight_hh_l0.detach())


def test_int_seed_through_to_block_and_sample_blocks():
    from arraygnn.sampling import sample_blocks

    g = graph((np.array([1, 2, 3, 0]), np.array([0, 0, 0, 1])))
    b = to_block(graph(([1], [0])), 0)
    assert b.dstdata[NID].tolist() == [0] and b.srcdata[NID].tolist() == [0, 1]
    inputs, outputs, blocks = sample_blocks(g, 0, [-1], seed=0)
    assert outputs.tolist() == [0] and sorted(inputs.tolist()) == [0, 1, 2, 3]


def test_sage_lstm_state_dict_round_trip_and_projection():
    from arraygnn.nn import SAGEConv

    conv = SAGEConv(3, 2, "lstm", rng=0)
    pyg_names = conv.state_dict()
    assert "lstm.weight_ih_l0" in pyg_names and pyg_names["lstm.weight_ih_l0"].shape == (12, 3)
    again = SAGEConv(3, 2, "lstm", rng=1).load_state_dict(pyg_names)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 1, 0, 0]])
    np.testing.assert_array_equal(conv(x, ei), again(x, ei))
    proj = SAGEConv(3, 2, "lstm", project=True, rng=0)
    assert proj(x, ei).shape == (4, 2)
