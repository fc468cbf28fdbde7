"""Parity sweep (session 12) of ``HeteroData`` / ``Data`` methods against PyG 2.8.1, live:
``to_homogeneous`` option combinations and mismatched attributes, subgraphs with attributes of
several shapes, ``Data.to_heterogeneous`` argument forms, ``collect`` / ``set_value_dict`` /
store access, ``validate(raise_on_error=False)``, and the documented differences
(docs/collation.md). Combinations already covered by test_hetero_data*.py,
test_data_methods.py and test_pyg_container_sweep_s11.py are not repeated."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arraygnn import Data, HeteroData

torch = pytest.importorskip("torch")
tgd = pytest.importorskip("torch_geometric.data")
# PyG's num_nodes guess on its side (ours is set explicitly; the ids here make them agree)
pytestmark = [
    pytest.mark.filterwarnings("ignore:Unable to accurately infer 'num_nodes'"),
    pytest.mark.filterwarnings("ignore:The node types .* are isolated"),  # PyG's validate
]


def _t(v):
    return torch.from_numpy(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v


def to_pyg_hetero(d: HeteroData):
    p = tgd.HeteroData()
    for k, v in d._global.items():
        p[k] = _t(v)
    for t, s in list(d._nodes.items()) + list(d._edges.items()):
        store = p[t]
        for k, v in s.items():
            store[k] = _t(v)
    return p


def to_pyg_data(d: Data):
    return tgd.Data(**{k: _t(v) for k, v in d.items()})


def assert_same_data(ours: Data, theirs, int32_index=False) -> None:
    assert set(ours.keys()) - {"num_nodes"} == set(theirs.keys()) - {"num_nodes"}
    assert ours.num_nodes == theirs.num_nodes
    for k in theirs.keys():
        a, b = ours[k], theirs[k]
        if not isinstance(b, torch.Tensor):
            assert a == b, k
            continue
        b = b.numpy()
        assert a.shape == b.shape, k
        if int32_index and k == "edge_index":  # documented: int32 ids stay int32
            assert a.dtype == np.int32 and b.dtype == np.int64
        else:
            assert a.dtype == b.dtype, k
        np.testing.assert_array_equal(a, b, err_msg=k)  # NaN == NaN here


def assert_same_hetero(ours: HeteroData, theirs) -> None:
    assert ours.node_types == theirs.node_types
    assert ours.edge_types == theirs.edge_types
    for t in ours.node_types + ours.edge_types:
        assert set(ours[t].keys()) == set(theirs[t].keys()), t
        for k in ours[t].keys():
            a, b = ours[t][k], theirs[t][k]
            if isinstance(b, torch.Tensor):
                b = b.numpy()
                assert a.shape == b.shape and a.dtype == b.dtype, (t, k)
                np.testing.assert_array_equal(a, b, err_msg=f"{t} {k}")
            else:
                assert a == b, (t, k)
    for t in ours.node_types:
        assert ours[t].num_nodes == theirs[t].num_nodes, t
    for k in ours._global:
        np.testing.assert_array_equal(ours._global[k], theirs[k].numpy())


# ------------------------------------------------------------------ to_homogeneous
def _base(seed: int = 0, ei_dtype=np.int64) -> HeteroData:
    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["a"].x = rng.random((3, 2)).astype(np.float32)
    d["b"].x = rng.random((2, 2)).astype(np.float32)
    d["a", "r", "b"].edge_index = np.array([[0, 2], [1, 0]], ei_dtype)
    d["b", "s", "a"].edge_index = np.array([[1, 0, 1], [2, 2, 0]], ei_dtype)
    return d


def _case(name: str) -> HeteroData:
    rng = np.random.default_rng(7)
    d = _base()
    if name == "partial":  # y, edge_attr only on some types: dummy-filled or left out
        d["a"].y = np.arange(3)
        d["a", "r", "b"].edge_attr = rng.random((2, 3))
    elif name == "dummy_kinds":  # bool -> False, int32 -> -1, float16 -> NaN, 2-D kept
        d["a"].m = np.array([True, False, True])
        d["a"].k = np.array([4, 5, 6], np.int32)
        d["a"].h = rng.random((3, 2)).astype(np.float16)
    elif name == "three_d":  # 3-D features: merged when equal, left out when not
        d["a"].z = rng.random((3, 2, 2))
        d["b"].z = rng.random((2, 2, 2))
        d["a"].w = rng.random((3, 2, 2))
        d["b"].w = rng.random((2, 2, 3))
    elif name == "ndim_mix":  # 1-D in one type, 2-D in the other: never merged
        d["a"].z = rng.random(3)
        d["b"].z = rng.random((2, 1))
    elif name == "num_nodes_only":  # a type with no x, another with a wider x
        d["c"].num_nodes = 4
        d["c", "t", "a"].edge_index = np.array([[3, 0], [0, 1]])
        d["b"].x = rng.random((2, 5)).astype(np.float32)
    elif name == "label_index":  # edge_label_index on one edge type only
        d["a", "r", "b"].edge_label_index = np.array([[1, 2], [1, 0]])
        d["a", "r", "b"].edge_label = np.array([1.0, 0.0])
    elif name == "graph_level":
        d.y = np.array([1.0, 2.0])
        d["b", "s", "a"].edge_weight = rng.random(3)
        d["a", "r", "b"].edge_weight = rng.random(2)
    elif name == "no_edges":
        for et in list(d.edge_types):
            del d[et]
    return d


CASES = ["partial", "dummy_kinds", "three_d", "ndim_mix", "num_nodes_only", "label_index"]
CASES += ["graph_level", "no_edges"]
OPTIONS = [
    {},
    {"dummy_values": False},
    {"add_node_type": False, "add_edge_type": False},
    {"dummy_values": False, "add_node_type": False},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(o) or "default")
@pytest.mark.parametrize("name", CASES)
def test_to_homogeneous_options_match_pyg(name, options):
    d = _case(name)
    before = {t: sorted(d[t].keys()) for t in d.node_types + d.edge_types}
    ours = d.to_homogeneous(**options)
    theirs = to_pyg_hetero(d).to_homogeneous(**options)
    assert_same_data(ours, theirs)
    assert ours.node_type_names == theirs._node_type_names
    assert ours.edge_type_names == theirs._edge_type_names
    assert before == {t: sorted(d[t].keys()) for t in d.node_types + d.edge_types}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"node_attrs": ["y"]},
        {"node_attrs": ["y"], "dummy_values": False},
        {"node_attrs": [], "edge_attrs": []},
        {"node_attrs": ["x", "y"], "edge_attrs": ["edge_attr"]},
    ],
)
def test_to_homogeneous_named_attrs_match_pyg(kwargs):
    d = _base()
    d["a"].y = np.arange(3)
    d["b"].y = np.arange(2) + 10
    d["a", "r", "b"].edge_attr = np.ones((2, 2))
    d["b", "s", "a"].edge_attr = np.zeros((3, 2))
    assert_same_data(d.to_homogeneous(**kwargs), to_pyg_hetero(d).to_homogeneous(**kwargs))
    del d["b"].y  # named but missing: dummy-filled, else a KeyError (PyG's too)
    kwargs = {**kwargs, "node_attrs": ["y"]}
    if kwargs.get("dummy_values", True):
        ours = d.to_homogeneous(**kwargs)
        assert_same_data(ours, to_pyg_hetero(d).to_homogeneous(**kwargs))
        assert ours.y.tolist() == [0, 1, 2, -1, -1]
    else:
        with pytest.raises(KeyError, match="node type 'b' has no 'y'"):
            d.to_homogeneous(**kwargs)
        with pytest.raises(KeyError):
            to_pyg_hetero(d).to_homogeneous(**kwargs)


def test_to_homogeneous_documented_differences():
    # int32 edge_index stays int32 (PyG: int64), values the same
    d = _base(ei_dtype=np.int32)
    assert_same_data(d.to_homogeneous(), to_pyg_hetero(d).to_homogeneous(), int32_index=True)
    # mixed dtypes follow NumPy's promotion (torch: int64 with float32 gives float32)
    d = _base()
    d["a"].z = np.arange(3)
    d["b"].z = np.array([0.5, 1.5], np.float32)
    ours, theirs = d.to_homogeneous(), to_pyg_hetero(d).to_homogeneous()
    assert ours.z.dtype == np.float64 and theirs.z.dtype == torch.float32
    np.testing.assert_array_equal(ours.z, theirs.z.numpy())
    # edge dummies take the edge stores' dtype (PyG takes a node store's 'w' here: -1)
    d = _base()
    d["a"].w = np.arange(3)
    d["a", "r", "b"].w = np.array([0.5, 0.25])
    ours = d.to_homogeneous()
    theirs = to_pyg_hetero(d).to_homogeneous()
    assert ours.w.tolist()[:2] == [0.5, 0.25] and np.isnan(ours.w[2:]).all()
    assert theirs.w.tolist() == [0.5, 0.25, -1.0, -1.0, -1.0]


@pytest.mark.parametrize("dummy", [True, False])
def test_to_homogeneous_rows_of_different_shapes_are_named(dummy):
    d = _base()
    d["a", "r", "b"].edge_attr = np.ones((2, 3))
    d["b", "s", "a"].edge_attr = np.ones((3, 2))
    with pytest.raises(RuntimeError):  # PyG: torch.cat's size error
        to_pyg_hetero(d).to_homogeneous(dummy_values=dummy)
    msg = r"'edge_attr' has rows of different shapes per edge type \(\('a', 'r', 'b'\): \[3\]"
    with pytest.raises(ValueError, match=msg):
        d.to_homogeneous(dummy_values=dummy)
    assert "edge_attr" not in d.to_homogeneous(edge_attrs=[])
    d = _base()
    d["a"].z = np.ones((3, 2, 2))
    d["b"].z = np.ones((2, 2, 3))  # left out by default (as PyG), refused when named
    assert "z" not in d.to_homogeneous()
    with pytest.raises(ValueError, match=r"'z' has rows of different shapes per node type"):
        d.to_homogeneous(node_attrs=["z"])


# ------------------------------------------------------------------ subgraphs
def _rich(seed: int = 1) -> HeteroData:
    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["p"].x = rng.random((5, 3))
    d["p"].y = rng.integers(0, 2, 5)
    d["p"].z3 = rng.random((5, 2, 2))
    d["a"].x = rng.random((4, 2))
    d["a"].num_nodes = 4
    d["v"].num_nodes = 3
    w = ("a", "w", "p")
    d[w].edge_index = np.array([[0, 1, 1, 3, 2], [0, 4, 2, 2, 1]])
    d[w].edge_attr = rng.random(5)
    d[w].e2 = rng.random((5, 3))
    d[w].e3 = rng.random((5, 2, 2))
    d["p", "c", "p"].edge_index = np.array([[0, 1, 2, 3, 4, 4], [1, 2, 3, 4, 0, 4]])
    d["p", "in", "v"].edge_index = np.array([[0, 1, 2, 3], [0, 0, 2, 1]], np.int32)
    d["p", "in", "v"].edge_weight = rng.random(4)
    d["v", "has", "v"].edge_index = np.array([[0, 1], [1, 2]])
    d["v", "has", "v"].edge_attr = rng.random((2, 1))
    d.gy = np.array([1.0, 2.0])
    return d


SUBSETS = {
    "ids": {"p": np.array([4, 0, 2])},
    "mask": {"p": np.array([1, 0, 1, 1, 0], bool)},
    "ids_and_mask": {"a": np.array([3, 1]), "v": np.array([True, False, True])},
    "empty": {"p": np.array([], np.int64)},
    "all_false": {"a": np.zeros(4, bool)},
    "int32": {"p": np.array([1, 3], np.int32), "v": np.array([2], np.int32)},
    "nothing": {},
}


@pytest.mark.parametrize("name", list(SUBSETS))
def test_subgraph_attribute_shapes_match_pyg(name):
    d = _rich()
    subset = SUBSETS[name]
    ours = d.subgraph(subset)
    assert_same_hetero(ours, to_pyg_hetero(d).subgraph({k: _t(v) for k, v in subset.items()}))
    assert d["p"].x.shape == (5, 3)  # input left alone


@pytest.mark.parametrize(
    "node_types,edge_types",
    [
        (["v", "a", "p"], [("v", "has", "v"), ("a", "w", "p")]),
        (["p"], ["c"]),
        (["a", "v"], [("p", "v"), "w"]),
    ],
)
def test_type_subgraphs_with_attributes_match_pyg(node_types, edge_types):
    d = _rich()
    p = to_pyg_hetero(d)
    assert_same_hetero(d.node_type_subgraph(node_types), p.node_type_subgraph(node_types))
    assert_same_hetero(d.edge_type_subgraph(edge_types), p.edge_type_subgraph(edge_types))


@pytest.mark.parametrize(
    "subset",
    [np.array([5, 0, 1, 4]), np.array([1, 1, 0, 1, 0, 1], bool), np.array([2, 3], np.int32)],
    ids=["ids", "mask", "int32"],
)
def test_data_subgraphs_with_edge_attrs_of_several_shapes_match_pyg(subset):
    rng = np.random.default_rng(2)
    ei = np.array([[0, 1, 2, 3, 4, 5, 5], [1, 2, 3, 4, 5, 0, 5]])
    d = Data(x=rng.random((6, 3)), edge_index=ei, edge_attr=rng.random((7, 2, 2)))
    d.edge_weight = rng.random(7)
    p = to_pyg_data(d)
    assert_same_data(d.subgraph(subset), p.subgraph(_t(subset)))
    esub = np.array([6, 0, 0, 3]) if subset.dtype != bool else np.r_[subset, True]
    assert_same_data(d.edge_subgraph(esub), p.edge_subgraph(_t(esub)))


# ------------------------------------------------------------------ to_heterogeneous
@pytest.mark.parametrize("given", ["names", "types", "node_type", "edge_type", "none"])
def test_to_heterogeneous_argument_forms_match_pyg(given):
    rng = np.random.default_rng(3)
    h = _base()
    h["a", "r", "b"].edge_attr = rng.random((2, 1))
    h["b", "s", "a"].edge_attr = rng.random((3, 1))
    d = h.to_homogeneous()
    p = to_pyg_data(d)
    p._node_type_names, p._edge_type_names = d.node_type_names, d.edge_type_names
    names = {"node_type_names": ["A", "B"], "edge_type_names": [("A", "r", "B"), ("B", "s", "A")]}
    kw = {
        "names": names,
        "types": {"node_type": d.node_type, "edge_type": d.edge_type},
        "node_type": {"node_type": d.node_type},
        "edge_type": {"edge_type": d.edge_type},
        "none": {},
    }[given]
    ours = d.to_heterogeneous(**kw)
    assert_same_hetero(ours, p.to_heterogeneous(**{k: _t(v) for k, v in kw.items()}))
    if given != "names":
        assert ours.metadata() == h.metadata()


def test_to_heterogeneous_edge_types_spanning_node_types_fail_in_both():
    d = Data(x=np.ones((4, 1)), edge_index=np.array([[0, 1, 2], [1, 2, 3]]))
    with pytest.raises(ValueError, match="single edge types span"):
        to_pyg_data(d).to_heterogeneous(node_type=torch.tensor([0, 0, 1, 1]))
    with pytest.raises(ValueError, match=r"Data\.to_heterogeneous: the source nodes"):
        d.to_heterogeneous(node_type=np.array([0, 0, 1, 1]))


# ------------------------------------------------------------------ store access
def test_collect_contains_items_and_stores_match_pyg():
    d = _rich()
    p = to_pyg_hetero(d)
    for key in ["x", "edge_attr", "num_nodes", "num_edges", "e3"]:
        ours, theirs = d.collect(key), p.collect(key)
        assert list(ours) == list(theirs), key
        for t in ours:
            np.testing.assert_array_equal(ours[t], np.asarray(theirs[t]))
    for key in ["nope", "gy"]:  # graph-level keys are not collected, as PyG
        assert d.collect(key, allow_empty=True) == {} == p.collect(key, allow_empty=True)
        with pytest.raises(KeyError):
            d.collect(key)
        with pytest.raises(KeyError):
            p.collect(key)
    for key in ["x", "gy", "edge_weight", "num_nodes", "p", ("p", "c", "p"), "nope"]:
        assert (key in d) == (key in p), key
    assert d.metadata() == tuple(list(m) for m in p.metadata())
    assert [t for t, _ in d.node_items()] == [t for t, _ in p.node_items()]
    assert [t for t, _ in d.edge_items()] == [t for t, _ in p.edge_items()]
    assert (d.num_nodes, d.num_edges) == (p.num_nodes, p.num_edges)
    d.get_node_store("new")  # made on access, as PyG's
    p.get_node_store("new")
    d.get_edge_store("new", "to", "p")
    p.get_edge_store("new", "to", "p")
    assert d.metadata() == tuple(list(m) for m in p.metadata())
    assert {k: sorted(v) for k, v in d.to_dict().items()} == {
        k: sorted(v) for k, v in p.to_dict().items()
    }


def test_set_value_dict_matches_pyg():
    d, p = HeteroData(), tgd.HeteroData()
    vals = {"a": np.ones((2, 1)), ("a", "r", "a"): np.arange(3.0)}
    assert d.set_value_dict("x", vals) is d
    p.set_value_dict("x", {k: _t(v) for k, v in vals.items()})
    assert_same_hetero(d, p)
    d.set_value_dict("y", {"r": np.zeros(3)})  # relation shorthand, as data["r"]
    p.set_value_dict("y", {"r": torch.zeros(3, dtype=torch.float64)})
    assert_same_hetero(d, p)
    assert d.set_value_dict("z", None) is d  # PyG: None sets nothing
    p.set_value_dict("z", None)
    assert_same_hetero(d, p)
    with pytest.raises(TypeError, match="set_value_dict: value_dict must map"):
        d.set_value_dict("z", [np.ones(2)])


# ------------------------------------------------------------------ validate
def _bad(lib: str, name: str):
    T = torch.tensor if lib == "pyg" else np.array
    d = tgd.HeteroData() if lib == "pyg" else HeteroData()
    d["a"].x = T(np.ones((2, 1)))
    d["b"].x = T(np.ones((3, 1)))
    ei = {
        "dangling": ("c", [[0], [0]]),
        "negative": ("b", [[0, -1], [0, 1]]),
        "source": ("b", [[0, 2], [0, 1]]),
        "destination": ("b", [[0, 1], [0, 3]]),
        "shape": ("b", [[0, 1, 1]]),
        "ok": ("b", [[0, 1], [2, 0]]),
    }[name]
    d["a", "r", ei[0]].edge_index = T(np.array(ei[1]))
    return d


@pytest.mark.parametrize("name", ["dangling", "negative", "source", "destination", "shape", "ok"])
def test_validate_raise_on_error_matches_pyg(name):
    ours, theirs = _bad("ours", name), _bad("pyg", name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = ours.validate(raise_on_error=False)
        if name == "shape":  # PyG goes on to read row 1 of the [1, E] edge_index
            with pytest.raises(IndexError):
                theirs.validate(raise_on_error=False)
        else:
            assert theirs.validate(raise_on_error=False) == status
    assert status == (name == "ok")
    assert any("edge type ('a', 'r'," in str(w.message) for w in caught) == (name != "ok")
    if name != "ok":
        with pytest.raises(ValueError):
            theirs.validate()
        with pytest.raises(ValueError, match=r"edge type \('a', 'r', '[bc]'\)"):
            ours.validate()


def test_data_validate_raise_on_error_matches_pyg():
    homo = Data(x=np.ones((2, 1)), edge_index=np.array([[0], [5]]))
    with pytest.warns(UserWarning, match="edge_index holds node id 5"):
        assert homo.validate(raise_on_error=False) is False
    with pytest.warns(UserWarning, match="larger indices than the number of nodes"):
        assert to_pyg_data(homo).validate(raise_on_error=False) is False
    assert Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]])).validate(False) is True


# ------------------------------------------------------------------ documented differences
def test_num_nodes_is_not_read_from_keys_naming_node():
    d = HeteroData()
    d["a"].node_label = np.arange(4)
    p = tgd.HeteroData()
    p["a"].node_label = torch.arange(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert p["a"].num_nodes == 4  # PyG's name-fragment guess
        assert tgd.Data(node_label=torch.arange(4)).num_nodes == 4
    assert d["a"].num_nodes is None and Data(node_label=np.arange(4)).num_nodes is None


def test_rename_onto_an_existing_type_is_refused():
    d = _base()
    with pytest.raises(ValueError, match="rename: 'b' is already a node type"):
        d.rename("a", "b")
    assert d.metadata() == _base().metadata()
    p = to_pyg_hetero(_base())
    assert p.rename("a", "b").node_types == ["b"]  # PyG merges the stores silently
