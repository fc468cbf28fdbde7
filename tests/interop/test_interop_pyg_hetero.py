"""HeteroData hand-offs: from_pyg / to_pyg (graphs and batches, shared memory), and the
conversions to the DGL-style heterograph and the GraphTensor checked against direct
computation on the HeteroData's edges."""

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn import Batch, HeteroBatch, HeteroData
from arraygnn.graph_tensor import TARGET, pool_edges_to_node
from arraygnn.hetero_convert import (
    edge_set_names,
    graph_tensor_to_hetero_data,
    graph_to_hetero_data,
    hetero_data_to_graph,
    hetero_data_to_graph_tensor,
)


def hetero(seed=0, n_paper=4, n_author=3, ei_dtype=np.int64):
    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["paper"].x = rng.random((n_paper, 3)).astype(np.float32)
    d["author"].num_nodes = n_author
    d["author"].h = rng.random((n_author, 3)).astype(np.float32)
    e = 5 if n_author and n_paper else 0
    w = np.stack([rng.integers(0, max(n_author, 1), e), rng.integers(0, max(n_paper, 1), e)])
    d["author", "writes", "paper"].edge_index = w.astype(ei_dtype)
    d["author", "writes", "paper"].edge_attr = rng.random((e, 2))
    c = rng.integers(0, max(n_paper, 1), (2, 3 if n_paper else 0))
    d["paper", "cites", "paper"].edge_index = c.astype(ei_dtype)
    d.y = np.array([float(seed)])
    return d


def assert_same(a, b):
    assert a.node_types == b.node_types and a.edge_types == b.edge_types
    for t in a.node_types + a.edge_types:
        assert a[t].keys() == b[t].keys(), t
        for k, v in a[t].items():
            np.testing.assert_array_equal(v, b[t][k], err_msg=f"{t} {k}")
    assert list(a._global) == list(b._global)


class TestPyG:
    @pytest.fixture(autouse=True)
    def _pyg(self):
        self.torch = pytest.importorskip("torch")
        self.tgd = pytest.importorskip("torch_geometric.data")

    def test_round_trip_shares_memory(self):
        from arraygnn.interop import from_pyg, to_pyg

        d = hetero()
        p, rep = to_pyg(d, report=True)
        assert isinstance(p, self.tgd.HeteroData) and rep.zero_copy
        assert "nodes.paper.x" in rep.shared and "graph.y" in rep.shared
        assert p.node_types == d.node_types and p.edge_types == d.edge_types
        assert p["author"].num_nodes == 3 and p["paper"].num_nodes == 4
        assert p["writes"].edge_index.data_ptr() == d["writes"].edge_index.ctypes.data
        back = from_pyg(p)
        assert type(back) is HeteroData
        assert_same(back, d)
        assert np.shares_memory(back["paper"].x, d["paper"].x)

    def test_from_pyg_sets_num_nodes_it_knows(self):
        from arraygnn.interop import from_pyg

        p = self.tgd.HeteroData()
        p["a"].pos = self.torch.zeros(5, 3)  # PyG knows 5 from pos (no guessing)
        p["b"].x = self.torch.zeros(2, 1)
        p["a", "to", "b"].edge_index = self.torch.tensor([[4], [1]])
        d = from_pyg(p)
        assert d["a"].num_nodes == 5 and d["b"].num_nodes == 2
        assert d.validate()

    @pytest.mark.parametrize("ei_dtype", [np.int64, np.int32])
    def test_our_batch_splits_in_pyg(self, ei_dtype):
        from arraygnn.interop import to_pyg

        graphs = [
            hetero(i, n_paper=i % 3 + 1, n_author=i % 2 * 3, ei_dtype=ei_dtype) for i in range(5)
        ]
        b = Batch.from_data_list(graphs)
        p = to_pyg(b)
        assert isinstance(p, self.tgd.Batch) and isinstance(p, self.tgd.HeteroData)
        assert p.num_graphs == 5
        for i, g in enumerate(graphs):
            e = p.get_example(i)
            for t in g.node_types + g.edge_types:
                for k, v in g[t].items():
                    np.testing.assert_array_equal(np.asarray(e[t][k]), v, err_msg=f"{t} {k}")
            np.testing.assert_array_equal(e.y.numpy(), g.y)

    def test_pyg_batch_splits_here(self):
        from arraygnn.interop import from_pyg, to_pyg

        graphs = [hetero(i, n_paper=i + 1) for i in range(4)]
        pb = self.tgd.Batch.from_data_list([to_pyg(g) for g in graphs])
        b = from_pyg(pb)
        assert isinstance(b, HeteroBatch) and b.num_graphs == 4
        np.testing.assert_array_equal(b["paper"].batch, pb["paper"].batch.numpy())
        for i, g in enumerate(graphs):
            assert_same(b.get_example(i), g)
        ours = Batch.from_data_list(graphs)
        for t in ours.node_types + ours.edge_types:
            for k, v in ours[t].items():
                np.testing.assert_array_equal(b[t][k], v, err_msg=f"{t} {k}")


def scatter_sum(values, index, n):
    out = np.zeros((n,) + values.shape[1:], values.dtype)
    np.add.at(out, index, values)
    return out


def test_heterograph_update_all_equals_scatter():
    d = hetero(1)
    before = {t: d[t].to_dict() for t in d.node_types + d.edge_types}
    g = hetero_data_to_graph(d)
    assert sorted(g.ntypes) == sorted(d.node_types)
    assert sorted(g.canonical_etypes) == sorted(d.edge_types)
    assert g.nodes["paper"].data["x"] is d["paper"].x
    assert g.edges["writes"].data["edge_attr"] is d["writes"].edge_attr
    g.nodes["author"].data["x"] = d["author"].h
    for et in d.edge_types:
        src, _, dst = et
        g.update_all(fn.copy_u("x", "m"), fn.sum("m", "agg"), etype=et)
        ei = d[et].edge_index
        x_src = d[src].x if src == "paper" else d["author"].h
        expect = scatter_sum(x_src[ei[0]], ei[1], d[dst].num_nodes)
        np.testing.assert_allclose(g.nodes[dst].data["agg"], expect, rtol=1e-6)
    for t, m in before.items():  # the HeteroData is untouched
        assert d[t].to_dict().keys() == m.keys()
    back = graph_to_hetero_data(hetero_data_to_graph(d))
    for et in d.edge_types:
        np.testing.assert_array_equal(back[et].edge_index, d[et].edge_index)
    assert back["author"].num_nodes == 3 and back["paper"].x is d["paper"].x


def test_heterograph_errors():
    d = HeteroData(a={"y": np.ones(2)}, b={"num_nodes": 1})
    d["a", "to", "b"].edge_index = np.array([[0], [0]])
    with pytest.raises(ValueError, match="num_nodes of node type 'a' is unknown"):
        hetero_data_to_graph(d)
    d["a"].num_nodes = 2
    d["c", "to", "b"].edge_index = np.array([[0], [0]])
    with pytest.raises(ValueError, match=r"edge type \('c', 'to', 'b'\) uses node type 'c'"):
        hetero_data_to_graph(d)
    with pytest.raises(TypeError, match="HeteroData"):
        hetero_data_to_graph({"a": 1})


def test_graph_tensor_pools_equal_scatter():
    d = hetero(2)
    d["author", "cites", "paper"].edge_index = np.array([[0, 2], [1, 1]])
    gt = hetero_data_to_graph_tensor(d, context_features=["y"])
    names = edge_set_names(d.edge_types)
    assert names[("author", "writes", "paper")] == "writes"
    assert names[("paper", "cites", "paper")] == "paper__cites__paper"
    assert names[("author", "cites", "paper")] == "author__cites__paper"
    assert set(gt.edge_sets) == set(names.values())
    assert gt.node_sets["author"].total_size == 3
    np.testing.assert_array_equal(gt.context.features["y"], d.y)
    for et, name in names.items():
        es = gt.edge_sets[name]
        assert es.adjacency.source_name == et[0] and es.adjacency.target_name == et[2]
        ei = d[et].edge_index
        ones = np.ones((ei.shape[1], 1))
        pooled = pool_edges_to_node(gt, name, TARGET, "sum", feature_value=ones)
        np.testing.assert_allclose(pooled, scatter_sum(ones, ei[1], d[et[2]].num_nodes))
    back = graph_tensor_to_hetero_data(gt)
    assert back.edge_types == d.edge_types  # the src__rel__dst names come back as types
    for et in d.edge_types:
        np.testing.assert_array_equal(back[et].edge_index, d[et].edge_index)
    np.testing.assert_array_equal(back.y, d.y)
    with pytest.raises(ValueError, match=r"graph-level attribute\(s\) \['y'\]"):
        hetero_data_to_graph_tensor(d)
    assert "y" not in hetero_data_to_graph_tensor(d, exclude_keys=["y"]).context.features


def test_graph_tensor_of_a_batch_has_one_component_per_graph():
    graphs = [hetero(i, n_paper=i + 1, n_author=i) for i in range(4)]
    b = Batch.from_data_list(graphs)
    gt = hetero_data_to_graph_tensor(b, context_features=["y"])
    assert gt.node_sets["paper"].sizes.tolist() == [1, 2, 3, 4]
    assert gt.node_sets["author"].sizes.tolist() == [0, 1, 2, 3]
    assert gt.edge_sets["writes"].sizes.tolist() == [g["writes"].num_edges for g in graphs]
    assert "batch" not in gt.node_sets["paper"].features
    np.testing.assert_array_equal(gt.edge_sets["cites"].adjacency.source, b["cites"].edge_index[0])


def test_from_pyg_batch_counts_node_types_without_x():
    torch = pytest.importorskip("torch")
    tgd = pytest.importorskip("torch_geometric.data")
    from arraygnn import Batch
    from arraygnn.interop import from_pyg

    graphs = []
    for n in (2, 3):
        d = tgd.HeteroData()
        d["a"].pos = torch.ones(n, 3)
        d["b"].x = torch.ones(2, 1)
        d["a", "r", "b"].edge_index = torch.tensor([[0, 1], [1, 0]])
        graphs.append(d)
    batch = from_pyg(tgd.Batch.from_data_list(graphs))
    assert batch["a"].num_nodes == 5
    assert [batch.get_example(i)["a"].num_nodes for i in range(2)] == [2, 3]
    assert Batch.from_data_list(batch.to_data_list())["a"].ptr.tolist() == [0, 2, 5]
