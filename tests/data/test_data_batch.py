"""Data API, collate -> split round trips, alignment and bad-input messages."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraygnn.batch import Batch, aligned_empty
from arraygnn.data import Data
from arraygnn.testing.asserts import (
    assert_batch_equal,
    assert_batch_invariants,
    assert_data_equal,
)


def random_graph(rng, n, e, index_dtype=np.int64, feat=3):
    ei = (
        rng.integers(0, max(n, 1), (2, e)).astype(index_dtype)
        if n
        else np.zeros((2, 0), index_dtype)
    )
    return Data(
        x=rng.standard_normal((n, feat)).astype(np.float32),
        edge_index=ei,
        edge_attr=rng.integers(0, 5, (ei.shape[1], 2)).astype(np.int8),
        y=rng.standard_normal(1),
    )


class HookedData(Data):
    """Same rules as the defaults, written as overrides: exercises the per-graph hook path."""

    def __inc__(self, key, value, *args, **kwargs):
        return super().__inc__(key, value, *args, **kwargs)

    def __cat_dim__(self, key, value, *args, **kwargs):
        return super().__cat_dim__(key, value, *args, **kwargs)


# ---------------------------------------------------------------- Data
def test_data_access_and_repr():
    d = Data(x=np.zeros((5, 16)), edge_index=np.zeros((2, 8), np.int64))
    assert repr(d) == "Data(x=[5, 16], edge_index=[2, 8])"
    assert d.keys() == ["x", "edge_index"] and "x" in d and "y" not in d
    assert d["x"] is d.x
    d.y = np.ones(1)
    d["name"] = "mol"
    assert d.keys() == ["x", "edge_index", "y", "name"]
    del d["name"]
    del d.y
    assert d.keys() == ["x", "edge_index"]
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = d.missing
    with pytest.raises(KeyError, match="missing"):
        d["missing"]
    assert dict(iter(d)).keys() == {"x", "edge_index"}
    assert len(d) == 2
    assert repr(Data(a=1, s="t", n=None, lst=[1, 2])) == "Data(a=1, s='t', lst=[2])"


def test_num_nodes_rules():
    ei = np.array([[0, 7], [7, 0]])  # max + 1 = 8: never used
    assert Data(edge_index=ei).num_nodes is None
    assert Data(edge_index=ei, x=np.zeros((9, 1))).num_nodes == 9
    assert Data(edge_index=ei, x=np.zeros((9, 1)), num_nodes=12).num_nodes == 12
    d = Data(edge_index=ei)
    d.num_nodes = 10
    assert d.num_nodes == 10 and d["num_nodes"] == 10
    assert d.num_edges == 2
    assert Data(x=np.zeros((2, 1))).num_edges == 0
    with pytest.raises(ValueError, match="num_nodes is unknown"):
        Data(edge_index=ei).__inc__("edge_index", ei)


def test_copy_apply_to():
    d = Data(x=np.arange(6.0).reshape(3, 2), edge_index=np.array([[0], [1]]), tag="a")
    c = d.copy()
    c.z = np.ones(1)
    assert "z" not in d and c.x is d.x and type(c) is Data
    a = d.apply(lambda v: v * 2)
    np.testing.assert_array_equal(a.x, d.x * 2)
    assert a.tag == "a" and d.x[1, 0] == 2.0
    assert d.to("cpu").x is d.x
    with pytest.raises(ValueError, match="device"):
        d.to("tpu")
    b = Batch.from_data_list([d, d])
    a = b.apply(lambda v: v)
    assert type(a) is Batch and a.num_graphs == 2
    assert_data_equal(a.get_example(1), d)
    bp = pickle.loads(pickle.dumps(b))
    assert_batch_equal(bp, b)


def test_validate():
    assert Data(x=np.zeros((3, 1)), edge_index=np.array([[0, 2], [1, 0]])).validate()
    with pytest.raises(ValueError, match="edge_index holds node id 3, outside"):
        Data(x=np.zeros((3, 1)), edge_index=np.array([[0, 3], [1, 0]])).validate()
    with pytest.raises(ValueError, match="node id -1"):
        Data(num_nodes=3, edge_index=np.array([[0, -1], [1, 0]])).validate()
    with pytest.raises(TypeError, match="edge_index must hold integers"):
        Data(num_nodes=3, edge_index=np.array([[0.0], [1.0]])).validate()
    with pytest.raises(ValueError, match=r"shape \[2, E\]"):
        Data(num_nodes=3, edge_index=np.zeros((3, 2), np.int64)).validate()
    with pytest.raises(ValueError, match="edge_attr has shape"):
        Data(num_nodes=3, edge_index=np.zeros((2, 2), np.int64), edge_attr=np.ones(3)).validate()
    with pytest.raises(ValueError, match="x has shape"):
        Data(num_nodes=3, x=np.ones((2, 1))).validate()


# ---------------------------------------------------------------- round trips
@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), min_size=1, max_size=7),
    seed=st.integers(0, 2**31 - 1),
    index_dtype=st.sampled_from([np.int32, np.int64]),
    hooked=st.booleans(),
)
def test_round_trip_random_graphs(sizes, seed, index_dtype, hooked):
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, n, e if n else 0, index_dtype) for n, e in sizes]
    if hooked:
        graphs = [HookedData(**g.to_dict()) for g in graphs]
    b = Batch.from_data_list(graphs, follow_batch=["edge_attr"])
    assert_batch_invariants(b)
    assert b.edge_index.dtype == index_dtype
    assert b.num_nodes == sum(n for n, _ in sizes)
    # a plain loop reference: offsets by the node counts before each graph
    offs = np.cumsum([0] + [g.num_nodes for g in graphs[:-1]])
    ref = np.concatenate([g.edge_index + o for g, o in zip(graphs, offs)], axis=1)
    np.testing.assert_array_equal(b.edge_index, ref)
    np.testing.assert_array_equal(
        b.edge_attr_batch, np.repeat(np.arange(len(graphs)), [g.num_edges for g in graphs])
    )
    for i, g in enumerate(graphs):
        assert_data_equal(b.get_example(i), g)
        assert_data_equal(b[i - len(graphs)], g)
    for got, g in zip(b.to_data_list(), graphs):
        assert_data_equal(got, g)
    pick = rng.permutation(len(graphs))[: max(1, len(graphs) // 2)]
    for got, i in zip(b.index_select(pick), pick):
        assert_data_equal(got, graphs[i])


def test_hook_path_equals_fast_path():
    rng = np.random.default_rng(1)
    graphs = [random_graph(rng, n, 2 * n) for n in (4, 0, 3, 1)]
    fast = Batch.from_data_list(graphs)
    hooked = Batch.from_data_list([HookedData(**g.to_dict()) for g in graphs])
    for key in fast.keys():
        np.testing.assert_array_equal(fast[key], hooked[key])
    assert repr(hooked).startswith("HookedDataBatch(")


def test_zero_node_and_zero_edge_graphs():
    empty = Data(x=np.zeros((0, 3), np.float32), edge_index=np.zeros((2, 0), np.int64))
    lone = Data(x=np.ones((2, 3), np.float32), edge_index=np.zeros((2, 0), np.int64))
    b = Batch.from_data_list([empty, lone, empty])
    assert b.x.shape == (2, 3) and b.edge_index.shape == (2, 0)
    assert b.ptr.tolist() == [0, 0, 2, 2] and b.batch.tolist() == [1, 1]
    for got, g in zip(b.to_data_list(), [empty, lone, empty]):
        assert_data_equal(got, g)


def test_index_select_forms_and_faces():
    faces = [Data(pos=np.zeros((4, 3)), face=np.array([[0], [1], [3]]), num_nodes=4)] * 3
    b = Batch.from_data_list(faces)
    assert b.face.tolist() == [[0, 4, 8], [1, 5, 9], [3, 7, 11]]
    assert b.num_nodes == 12 and len(b) == 3
    assert len(b.index_select(slice(0, 2))) == 2
    assert len(b.index_select(np.array([True, False, True]))) == 2
    assert len(b[[2, 0]]) == 2
    with pytest.raises(IndexError, match="out of range"):
        b.get_example(3)


def test_from_records_rebuilds_a_batch():
    rng = np.random.default_rng(2)
    graphs = [random_graph(rng, n, n) for n in (3, 2, 5)]
    b = Batch.from_data_list(graphs)
    r = Batch.from_records(b.to_dict(), b._slice_dict, b._inc_dict, num_graphs=3)
    assert_batch_equal(r, b)


def test_alignment_and_input_not_mutated():
    rng = np.random.default_rng(3)
    graphs = [random_graph(rng, 30, 60) for _ in range(50)]
    before = [g.edge_index.copy() for g in graphs]
    b = Batch.from_data_list(graphs, follow_batch=["x"])
    for key in b.keys():
        assert b[key].ctypes.data % 64 == 0, key
    for g, e in zip(graphs, before):
        np.testing.assert_array_equal(g.edge_index, e)
    for shape, dt in (((0,), np.float64), ((7, 3), np.int8), ((100000,), np.float32)):
        a = aligned_empty(shape, dt)
        assert a.ctypes.data % 64 == 0 and a.shape == shape and a.dtype == dt


def test_graphs_in_another_byte_order_collate_to_graph_0s():
    """Dtypes must match up to byte order: a big-endian graph's values are converted
    (equal values, graph 0's dtype), never reinterpreted."""
    little = g(x=np.arange(6, dtype="<f4").reshape(3, 2))
    big = g(
        x=np.arange(6, dtype=">f4").reshape(3, 2),
        edge_index=np.array([[0, 1], [1, 2]], dtype=">i8"),
    )
    b = Batch.from_data_list([little, big])
    assert b.x.dtype == np.dtype("<f4") and b.edge_index.dtype == np.dtype("<i8")
    np.testing.assert_array_equal(b.x, np.r_[np.arange(6.0), np.arange(6.0)].reshape(6, 2))
    np.testing.assert_array_equal(b.edge_index, [[0, 1, 3, 4], [1, 2, 4, 5]])
    np.testing.assert_array_equal(b.get_example(1).x, big.x)


# ---------------------------------------------------------------- bad input
def g(n=3, **kw):
    base = dict(x=np.zeros((n, 2), np.float32), edge_index=np.array([[0, 1], [1, 2]]))
    base.update(kw)
    return Data(**base)


@pytest.mark.parametrize(
    "graphs, exc, pattern",
    [
        ([], ValueError, "empty"),
        (
            [g(), g(), g(x=np.zeros((3, 4), np.float32))],
            ValueError,
            r"key 'x' in graph 2: has shape \[3, 4\], graph 0 has \[3, 2\]",
        ),
        (
            [g(), g(x=np.zeros((3, 2), np.float64))],
            TypeError,
            "key 'x' in graph 1: has dtype float64, graph 0 has float32",
        ),
        (
            [g(), g(edge_index=np.array([[0, 1], [1, 2]], np.int32))],
            TypeError,
            "key 'edge_index' in graph 1: has dtype int32",
        ),
        ([g(), g(y=np.ones(1))], ValueError, "graph 1: key 'y' is not in graph 0"),
        ([g(y=np.ones(1)), g()], ValueError, "graph 1: key 'y' is missing"),
        (
            [g(), g(edge_index=np.array([[0, 3], [1, 2]]))],
            ValueError,
            r"key 'edge_index' in graph 1: holds node id 3, outside \[0, 3\)",
        ),
        (
            [g(), g(edge_index=np.array([[0, 1], [1, 3]])), g(edge_index=np.zeros((2, 0), int))],
            ValueError,
            "key 'edge_index' in graph 1: holds node id 3",
        ),
        (
            [g(), g(), g(edge_index=np.array([[0, -1], [1, 2]]))],
            ValueError,
            "key 'edge_index' in graph 2: holds node id -1",
        ),
        (
            [g(edge_index=np.array([[0.0], [1.0]]))],
            TypeError,
            "key 'edge_index' in graph 0: must hold integers",
        ),
        # no graph has a node: every edge is out of range (no increment to add, still checked)
        (
            [g(n=0, edge_index=np.zeros((2, 0), int)), g(n=0, edge_index=np.array([[0], [0]]))],
            ValueError,
            r"key 'edge_index' in graph 1: holds node id 0, outside \[0, 0\)",
        ),
        (
            [g(n=0, edge_index=np.zeros((2, 0)))],
            TypeError,
            "key 'edge_index' in graph 0: must hold integers",
        ),
        # edge counts are read as size // rows: a graph with other rows, or a flat or a
        # non-array edge_index, must still be named (the concatenation catches it)
        (
            [g(), g(edge_index=np.array([[0, 1], [1, 2], [2, 0]]))],
            ValueError,
            r"key 'edge_index' in graph 1: has shape \[3, 2\], graph 0 has \[2, 2\]",
        ),
        (
            [g(), g(edge_index=np.array([[0, 1, 1, 2], [1, 2, 0, 1]])[:1])],
            ValueError,
            r"key 'edge_index' in graph 1: has shape \[1, 4\], graph 0 has \[2, 2\]",
        ),
        (
            [g(), g(edge_index=np.array([0, 1, 1, 2]))],
            ValueError,
            "key 'edge_index' in graph 1: has shape \\[4\\], graph 0 has \\[2, 2\\] \\(different",
        ),
        (
            [g(), g(edge_index=[[0, 1], [1, 2]])],
            TypeError,
            "key 'edge_index' in graph 1: is a list",
        ),
        ([g(y=1), g(y="a")], TypeError, "key 'y' in graph 1: is a str"),
        ([g(y=np.ones(1)), g(y=3.0)], TypeError, "key 'y' in graph 1: is a float"),
        ([g(), "not data"], TypeError, "graph 1 is a str"),
        ([Data(edge_index=np.array([[0], [1]]))], ValueError, "graph 0: is increased by num_nodes"),
    ],
)
def test_bad_input_names_key_and_graph(graphs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        Batch.from_data_list(graphs)


def test_key_sets_checked_with_exclude_keys():
    graphs = [g(y=np.ones(1), a=1), g(z=np.ones(1), a=2)]  # same number of keys
    with pytest.raises(ValueError, match="graph 1: key 'y' is missing"):
        Batch.from_data_list(graphs)
    with pytest.raises(ValueError, match="graph 1: key 'y' is missing"):
        Batch.from_data_list(graphs, exclude_keys=["a"])
    b = Batch.from_data_list([g(a=1, y=np.ones(1)), g(y=np.ones(1))], exclude_keys=["a"])
    assert b.keys() == ["x", "edge_index", "y", "batch", "ptr"]
    b = Batch.from_data_list([g(a=1), g(b=2)], exclude_keys=["a", "b"])
    assert b.keys() == ["x", "edge_index", "batch", "ptr"]


def test_bad_follow_batch_and_mixed_cat_dims():
    with pytest.raises(ValueError, match="follow_batch key 'nope'"):
        Batch.from_data_list([g()], follow_batch=["nope"])

    class Odd(Data):
        def __cat_dim__(self, key, value, *args, **kwargs):
            if key == "x" and value.shape[0] == 4:
                return None
            return super().__cat_dim__(key, value)

    graphs = [Odd(**g().to_dict()), Odd(**g(n=4, x=np.zeros((4, 2), np.float32)).to_dict())]
    with pytest.raises(ValueError, match=r"key 'x' in graph 1: __cat_dim__ returned None"):
        Batch.from_data_list(graphs)


def test_out_of_range_id_found_in_the_right_graph():
    rng = np.random.default_rng(5)
    for _ in range(25):
        counts = rng.integers(0, 4, size=int(rng.integers(1, 6)))
        graphs = [random_graph(rng, int(n), int(2 * n)) for n in counts]
        candidates = [i for i, gr in enumerate(graphs) if gr.num_edges]
        if not candidates:
            continue
        i = int(rng.choice(candidates))
        ei = graphs[i].edge_index.copy()
        row, col = int(rng.integers(0, 2)), int(rng.integers(0, ei.shape[1]))
        ei[row, col] = graphs[i].num_nodes if rng.random() < 0.5 else -1
        graphs[i] = Data(**dict(graphs[i].to_dict(), edge_index=ei))
        with pytest.raises(ValueError, match=f"key 'edge_index' in graph {i}: holds node id"):
            Batch.from_data_list(graphs)


@pytest.mark.parametrize("cls", [Data, HookedData])
def test_narrow_index_dtype_never_wraps(cls):
    """A batch whose ids outgrow a narrow index dtype (int16 edge_index, 80,000 nodes) once
    wrapped silently; it raises naming the first graph that does not fit, on the fast
    path and the hook path. Ids that fit keep the caller's dtype, also when the node
    total does not fit (the graphs with edges come first)."""
    rng = np.random.default_rng(4)

    def graph(i, with_edges=True):
        ei = rng.integers(0, 200, (2, 30 if with_edges else 0)).astype(np.int16)
        return cls(x=np.zeros((200, 1), np.float32), edge_index=ei)

    with pytest.raises(OverflowError, match=r"'edge_index' in graph 163: has dtype int16"):
        Batch.from_data_list([graph(i) for i in range(400)])
    early = [graph(i, with_edges=i < 100) for i in range(400)]
    batch = Batch.from_data_list(early)
    assert batch.edge_index.dtype == np.int16 and batch.num_nodes == 80_000
    expected = np.concatenate(
        [g.edge_index.astype(np.int64) + 200 * i for i, g in enumerate(early)], 1
    )
    np.testing.assert_array_equal(batch.edge_index, expected)
    assert_batch_invariants(batch)
    for i in (0, 99, 100, 399):
        assert_data_equal(batch.get_example(i), early[i])


def test_one_and_three_dim_index_keys_collate_along_the_last_dim_as_pyg():
    # PyG 2.x's __cat_dim__ is -1 for index keys (the seed's 1 is the same dim for a
    # [2, E] edge_index): a 1-D center_index is concatenated and increased
    a = Data(x=np.zeros((3, 1)), center_index=np.array([0, 2]), t_index=np.zeros((2, 2, 3), int))
    b = Data(x=np.zeros((2, 1)), center_index=np.array([1]), t_index=np.ones((2, 2, 1), int))
    out = Batch.from_data_list([a, b], follow_batch=["center_index"])
    assert out.center_index.tolist() == [0, 2, 4]
    assert out.center_index_batch.tolist() == [0, 0, 1]
    assert out.center_index_ptr.tolist() == [0, 2, 3]
    assert out.t_index.shape == (2, 2, 4) and out.t_index[..., 3].tolist() == [[4, 4], [4, 4]]
    back = out.get_example(1)
    assert back.center_index.tolist() == [1] and back.t_index.tolist() == [[[1], [1]], [[1], [1]]]
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    pa = pyg.Data(x=torch.zeros(3, 1), center_index=torch.tensor([0, 2]))
    pb = pyg.Data(x=torch.zeros(2, 1), center_index=torch.tensor([1]))
    theirs = pyg.Batch.from_data_list([pa, pb], follow_batch=["center_index"])
    for key in ("center_index", "center_index_batch", "center_index_ptr"):
        assert out[key].tolist() == theirs[key].tolist(), key
