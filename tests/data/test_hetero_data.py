"""HeteroData: stores, shorthands, errors, *_dict views, num_nodes rules, repr,
validate, copies and to_homogeneous (against PyG's on the same data)."""

import copy
import pickle

import numpy as np
import pytest

import arraygnn
from arraygnn import Data, HeteroData
from arraygnn.hetero_data import EdgeStore, NodeStore


def paper_graph(ei_dtype=np.int64):
    d = HeteroData()
    d["paper"].x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d["author"].x = np.ones((2, 4), np.float32)
    d["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [0, 2, 1]], ei_dtype)
    d["author", "writes", "paper"].edge_attr = np.arange(3.0)[:, None]
    d["paper", "cites", "paper"].edge_index = np.array([[0, 2], [1, 1]], ei_dtype)
    d.y = np.array([1.0])
    return d


def test_stores_and_types():
    d = paper_graph()
    assert isinstance(d["paper"], NodeStore) and isinstance(d["writes"], EdgeStore)
    assert d.node_types == ["paper", "author"]
    assert d.edge_types == [("author", "writes", "paper"), ("paper", "cites", "paper")]
    assert d.metadata() == (d.node_types, d.edge_types)
    assert d["writes"] is d["author", "writes", "paper"]
    assert d["author", "paper"] is d["author", "writes", "paper"]
    assert d["paper"]["x"] is d["paper"].x
    assert d.y.tolist() == [1.0] and d["y"] is d.y
    assert d["paper"].num_nodes == 3 and d["author"].num_nodes == 2
    assert d.num_nodes == 5 and d.num_edges == 5
    assert d["writes"].num_edges == 3 and d["writes"].size() == (2, 3)
    assert d.keys() == ["y", "x", "edge_index", "edge_attr"]
    assert "edge_attr" in d and "x" in d and "nope" not in d
    assert len(d) == 4


def test_kwargs_and_dict_construction():
    x = np.ones((2, 3))
    ei = np.array([[0], [1]])
    a = HeteroData(paper={"x": x}, author__writes__paper={"edge_index": ei}, y=2)
    b = HeteroData({"paper": {"x": x}, ("author", "writes", "paper"): {"edge_index": ei}}, y=2)
    for d in (a, b):
        assert d["paper"].x is x and d["writes"].edge_index is ei and d.y == 2
        assert d.edge_types == [("author", "writes", "paper")]


def test_pair_without_match_names_default_relation():
    d = HeteroData()
    d["a", "b"].edge_index = np.zeros((2, 0), np.int64)
    assert d.edge_types == [("a", "to", "b")]


def test_shorthand_errors():
    d = paper_graph()
    d["author", "reviews", "paper"].edge_index = np.zeros((2, 0), np.int64)
    with pytest.raises(KeyError, match="is ambiguous"):
        d["author", "paper"]
    d["paper", "writes", "paper"].edge_index = np.zeros((2, 0), np.int64)
    with pytest.raises(KeyError, match="relation 'writes' is ambiguous"):
        d["writes"]
    with pytest.raises(KeyError, match="not a node type"):
        d[1]
    with pytest.raises(TypeError, match="graph-level attributes only"):
        d["a", "r", "b"] = 1
    with pytest.raises(AttributeError, match="already a node type"):
        d.paper = 3
    with pytest.raises(KeyError, match="graph-level attribute, not a node type"):
        d.get_node_store("y")
    with pytest.raises(KeyError, match="neither a node type"):
        del d["nope"]
    with pytest.raises(AttributeError, match="node type 'paper' has no attribute 'pos'"):
        _ = d["paper"].pos
    with pytest.raises(KeyError, match="node type 'paper' has no key 'pos'"):
        d["paper"]["pos"]


def test_dict_views_and_collect():
    d = paper_graph()
    assert list(d.x_dict) == ["paper", "author"] and d.x_dict["paper"] is d["paper"].x
    assert list(d.edge_index_dict) == d.edge_types
    assert d.edge_attr_dict == {("author", "writes", "paper"): d["writes"].edge_attr}
    assert d.num_nodes_dict == {"paper": 3, "author": 2}
    assert d.collect("num_edges") == {d.edge_types[0]: 3, d.edge_types[1]: 2}
    with pytest.raises(KeyError, match="no node or edge type holds 'pos'"):
        _ = d.pos_dict
    assert not hasattr(d, "pos_dict")
    assert d.collect("pos", allow_empty=True) == {}
    d.set_value_dict("h", {"paper": np.zeros(3), "author": np.zeros(2)})
    assert list(d.h_dict) == ["paper", "author"]


def test_num_nodes_rule_never_guesses():
    d = HeteroData()
    d["a"].y = np.arange(4)
    d["b"].num_nodes = 7
    d["a", "to", "b"].edge_index = np.array([[9], [0]])
    assert d["a"].num_nodes is None  # not 10 (edge_index.max() + 1), not 4 (y's length)
    assert d.num_nodes is None
    assert d["b"].num_nodes == 7
    d["a"].x = np.zeros((5, 1))
    assert d["a"].num_nodes == 5
    d["a"].num_nodes = 6  # explicit wins
    assert d["a"].num_nodes == 6 and d.num_nodes == 13
    d["a"].num_nodes = None
    assert d["a"].num_nodes == 5


def test_repr_like_pyg():
    d = paper_graph()
    assert repr(d) == (
        "HeteroData(\n"
        "  y=[1],\n"
        "  paper={ x=[3, 4] },\n"
        "  author={ x=[2, 4] },\n"
        "  (author, writes, paper)={\n"
        "    edge_index=[2, 3],\n"
        "    edge_attr=[3, 1],\n"
        "  },\n"
        "  (paper, cites, paper)={ edge_index=[2, 2] }\n"
        ")"
    )
    assert repr(HeteroData()) == "HeteroData()"
    tgd = pytest.importorskip("torch_geometric.data")
    assert repr(d) == repr(to_torch_hetero(tgd, d))


def test_validate_names_the_type():
    d = paper_graph()
    assert d.validate()
    d["paper", "cites", "paper"].edge_index = np.array([[0, 3], [1, 1]])
    with pytest.raises(ValueError, match=r"\('paper', 'cites', 'paper'\).*row 0.*id 3"):
        d.validate()
    d = paper_graph()
    d["writes"].edge_index = np.array([0, 1])
    with pytest.raises(ValueError, match=r"\('author', 'writes', 'paper'\): edge_index must"):
        d.validate()
    d = paper_graph()
    d["writes"].edge_index = np.array([[0.0], [1.0]])
    with pytest.raises(TypeError, match="writes.*must hold integers"):
        d.validate()
    d = paper_graph()
    d["venue", "hosts", "paper"].edge_index = np.zeros((2, 0), np.int64)
    with pytest.raises(ValueError, match="source node type 'venue' is not a node type"):
        d.validate()
    d = paper_graph()
    d["paper"].num_nodes = 4
    with pytest.raises(ValueError, match="node type 'paper': x has shape"):
        d.validate()
    d = paper_graph()
    d["writes"].edge_attr = np.zeros((2, 1))
    with pytest.raises(ValueError, match="writes.*edge_attr has shape"):
        d.validate()
    d = paper_graph()
    d["author"].x = None
    with pytest.raises(ValueError, match="source node type 'author' is unknown"):
        d.validate()


def test_copies_to_and_pickle_do_not_share_key_sets():
    d = paper_graph()
    c = d.copy()
    c["paper"].z = np.zeros(3)
    c.w = 1
    assert "z" not in d["paper"] and "w" not in d
    assert c["paper"].x is d["paper"].x
    assert c["writes"].size() == (2, 3)  # the copy's stores see the copy
    moved = d.to("cpu")
    assert moved["paper"].x is d["paper"].x and moved is not d
    doubled = d.apply(lambda a: a * 2)
    np.testing.assert_array_equal(doubled["paper"].x, d["paper"].x * 2)
    for other in (pickle.loads(pickle.dumps(d)), copy.deepcopy(d)):
        assert other.edge_types == d.edge_types
        np.testing.assert_array_equal(other["writes"].edge_index, d["writes"].edge_index)
        assert other["writes"].size() == (2, 3)


def test_to_homogeneous_layout():
    d = paper_graph()
    h = d.to_homogeneous()
    assert isinstance(h, Data)
    assert h.node_type_names == ["paper", "author"]
    assert h.edge_type_names == d.edge_types
    assert h.node_type.tolist() == [0, 0, 0, 1, 1]
    assert h.edge_type.tolist() == [0, 0, 0, 1, 1]
    assert h.edge_index.tolist() == [[3, 4, 4, 0, 2], [0, 2, 1, 1, 1]]
    np.testing.assert_array_equal(h.x[3:], d["author"].x)
    # edge_attr: only 'writes' has it -> filled with NaN for 'cites' (PyG's dummy values)
    assert h.edge_attr.shape == (5, 1) and np.isnan(h.edge_attr[3:]).all()
    assert d["cites"].keys() == ["edge_index"]  # the dummy filling did not touch d
    h2 = d.to_homogeneous(dummy_values=False, add_edge_type=False)
    assert "edge_attr" not in h2 and "edge_type" not in h2
    assert h2.num_nodes == 5


def test_to_homogeneous_without_x_sets_num_nodes_and_pads():
    d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 3})
    d["a", "to", "b"].edge_index = np.array([[1], [2]], np.int32)
    h = d.to_homogeneous()
    assert h.num_nodes == 5 and h.edge_index.tolist() == [[1], [4]]
    assert h.edge_index.dtype == np.int32
    d = HeteroData(a={"x": np.ones((1, 2))}, b={"x": np.ones((2, 3))})
    h = d.to_homogeneous()
    assert h.x.tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1]]  # zero-padded to width 3
    with pytest.raises(KeyError, match="node type 'b' has no 'y'"):
        HeteroData(
            a={"x": np.ones((1, 2)), "y": np.ones(1)}, b={"x": np.ones((2, 2))}
        ).to_homogeneous(node_attrs=["y"], dummy_values=False)
    with pytest.raises(ValueError, match="num_nodes of node type 'a' is unknown"):
        HeteroData(a={"y": np.ones(1)}).to_homogeneous()


def to_torch_hetero(tgd, d):
    import torch

    def conv(v):
        return torch.from_numpy(v) if isinstance(v, np.ndarray) else v

    p = tgd.HeteroData()
    for k, v in d._global.items():
        p[k] = conv(v)
    for t, s in list(d._nodes.items()) + list(d._edges.items()):
        for k, v in s.items():
            p[t][k] = conv(v)
    return p


@pytest.mark.parametrize("dummy", [True, False])
def test_to_homogeneous_equals_pyg(dummy):
    tgd = pytest.importorskip("torch_geometric.data")
    rng = np.random.default_rng(3)
    d = HeteroData()
    d["paper"].x = rng.random((4, 3)).astype(np.float32)
    d["paper"].label = rng.integers(0, 3, 4)
    d["author"].x = rng.random((3, 3)).astype(np.float32)
    d["venue"].x = rng.random((2, 3)).astype(np.float32)
    d["author", "writes", "paper"].edge_index = np.array([[0, 2, 1], [3, 3, 0]])
    d["author", "writes", "paper"].edge_attr = rng.random((3, 2))
    d["paper", "in", "venue"].edge_index = np.array([[0, 1, 2, 3], [0, 0, 1, 1]])
    d["paper", "in", "venue"].edge_attr = rng.random((4, 2))
    d["paper", "cites", "paper"].edge_index = np.array([[0, 1], [2, 3]])
    d["paper", "cites", "paper"].edge_attr = rng.random((2, 2))
    d.y = np.array([5.0])
    before = {t: d[t].to_dict() for t in d.node_types + d.edge_types}
    ours = d.to_homogeneous(dummy_values=dummy)
    theirs = to_torch_hetero(tgd, d).to_homogeneous(dummy_values=dummy)
    assert set(ours.keys()) - {"num_nodes"} == set(theirs.keys()) - {"num_nodes"}
    for key in theirs.keys():
        np.testing.assert_array_equal(ours[key], theirs[key].numpy(), err_msg=key)
    assert ours.num_nodes == theirs.num_nodes
    assert ours.node_type_names == theirs._node_type_names
    assert ours.edge_type_names == theirs._edge_type_names
    for t, m in before.items():  # nothing the user passed is mutated
        assert d[t].to_dict().keys() == m.keys()


def test_exported():
    assert arraygnn.HeteroData is HeteroData
