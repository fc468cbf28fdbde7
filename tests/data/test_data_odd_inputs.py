"""Unusual but valid inputs to Data / Batch (found by fuzzing), each against PyG's rule."""

import copy

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.dataset import PackedDataset


def test_big_endian_edge_index_is_range_checked():
    # the one-pass check viewed big-endian ids natively: 512 read as 2 and passed
    d = Data(x=np.ones((3, 1)), edge_index=np.array([[0, 256], [0, 512]], dtype=">i2"))
    with pytest.raises(ValueError, match="node id 512, outside"):
        Batch.from_data_list([d, d])
    ok = Data(x=np.ones((3, 1)), edge_index=np.array([[0, 1], [2, 0]], dtype=">i4"))
    assert Batch.from_data_list([ok, ok]).edge_index.tolist() == [[0, 1, 3, 4], [2, 0, 5, 3]]


def test_copy_copy_gives_an_independent_key_set():
    d = Data(x=np.ones((3, 1)))
    d2 = copy.copy(d)
    d2.y = np.zeros(1)
    assert "y" not in d and "y" in d2
    b = Batch.from_data_list([d, d])
    b2 = copy.copy(b)
    b2.extra = 1
    assert "extra" not in b and b2.get_example(1).x.shape == (3, 1)


def test_num_nodes_given_as_a_0d_array_counts_like_an_int():
    b = Batch.from_data_list([Data(num_nodes=np.array(3), edge_index=np.array([[0], [2]]))] * 2)
    assert b.num_nodes == 6
    assert b.edge_index.tolist() == [[0, 3], [2, 5]]
    assert [g.num_nodes for g in b.to_data_list()] == [3, 3]


def test_python_int_index_keys_are_increased_like_pyg():
    graphs = [Data(x=np.ones((3, 1)), center_index=2), Data(x=np.ones((2, 1)), center_index=1)]
    b = Batch.from_data_list(graphs)
    assert b.center_index.tolist() == [2, 4]  # torch_geometric.data.Batch gives [2, 4]
    back = b.to_data_list()
    assert [g.center_index for g in back] == [2, 1] and type(back[1].center_index) is int
    # PyG's scalar rule: 'index' in key or key == 'face'; no range check (sentinels, graph ids)
    kept = [
        Data(x=np.ones((5, 1)), face_count=12, interface_id=3, graph_index=7, anchor_index=-1)
        for _ in range(3)
    ]
    b = Batch.from_data_list(kept)
    assert b.face_count.tolist() == [12] * 3 and b.interface_id.tolist() == [3] * 3
    assert b.graph_index.tolist() == [7, 12, 17] and b.anchor_index.tolist() == [-1, 4, 9]
    # NumPy integers stay as they are (PyG keeps them in a list, un-increased)
    numpy_ints = [Data(x=np.ones((3 + i, 1)), center_index=np.int64(1)) for i in range(3)]
    assert Batch.from_data_list(numpy_ints).center_index.tolist() == [1, 1, 1]
    # int subclasses and floats are Python numbers: increased, as PyG does
    import enum

    class Kind(enum.IntEnum):
        A = 1

    sized = [Data(x=np.ones((n, 1)), center_index=Kind.A) for n in (3, 2, 4)]
    assert Batch.from_data_list(sized).center_index.tolist() == [1, 4, 6]
    floats = [Data(x=np.ones((3, 1)), center_index=1.5), Data(x=np.ones((2, 1)), center_index=0.5)]
    assert Batch.from_data_list(floats).center_index.tolist() == [1.5, 3.5]  # PyG: same
    # unknown sizes: an error, as in PyG ("Unable to infer num_nodes")
    with pytest.raises(ValueError, match="num_nodes is unknown"):
        Batch.from_data_list([Data(y=np.zeros(1), anchor_index=0)] * 2)
    flags = Batch.from_data_list([Data(x=np.ones((1, 1)), flag=True)] * 2).to_data_list()
    assert [g.flag for g in flags] == [True, True]


def test_get_example_returns_what_was_collated():
    roots = [
        Data(x=np.ones((3, 1)), root_index=np.array(1)),
        Data(x=np.ones((2, 1)), root_index=np.array(0)),
    ]
    back = Batch.from_data_list(roots).to_data_list()
    assert all(type(g.root_index) is np.ndarray and g.root_index.ndim == 0 for g in back)
    assert [int(g.root_index) for g in back] == [1, 0]
    big_endian = [Data(x=np.ones((3, 1)), edge_index=np.array([[0], [1]], dtype=">i8"))] * 2
    batch = Batch.from_data_list(big_endian)  # collated in the machine's byte order
    back = batch.to_data_list()
    assert batch.edge_index.dtype == np.dtype("=i8")
    assert [g.edge_index.dtype for g in back] == [batch.edge_index.dtype] * 2
    assert [g.edge_index.tolist() for g in back] == [[[0], [1]]] * 2
    huge = [Data(x=np.ones((1, 1)), big=2**70), Data(x=np.ones((1, 1)), big=1)]
    assert [g.big for g in Batch.from_data_list(huge).to_data_list()] == [2**70, 1]


def test_selecting_no_graphs_gives_an_empty_list():
    b = Batch.from_data_list([Data(x=np.ones((2, 1)))] * 3)
    assert b[[]] == [] and b.index_select([]) == [] and b.index_select(np.array([], int)) == []


def test_packed_dataset_keeps_per_graph_numbers_and_collates_like_batch():
    from arraygnn.dataset import PackedDataset
    from arraygnn.testing.asserts import assert_batch_equal, assert_data_equal

    graphs = [
        Data(
            x=np.ones((3, 1)),
            edge_index=np.array([[0], [2]]),
            center_index=2,
            root_index=np.array(1),
            t=np.array(3),  # a 0-d array used to be refused
            s=np.int32(5),
        ),
        Data(
            x=np.ones((2, 1)),
            edge_index=np.array([[1], [0]]),
            center_index=1,
            root_index=np.array(0),
            t=np.array(4),
            s=np.int32(6),
        ),
    ]
    ds = PackedDataset.from_data_list(graphs)
    for i, g in enumerate(graphs):
        assert_data_equal(ds[i], g)  # each graph's own ids, not the batch's increased ones
    for order in ([0, 1], [1, 0], [1, 1]):
        assert_batch_equal(ds.collate(order), Batch.from_data_list([graphs[i] for i in order]))


def test_packed_dataset_collates_scalars_like_batch():
    from arraygnn.dataset import PackedDataset
    from arraygnn.testing.asserts import assert_batch_equal

    graphs = [
        Data(x=np.ones((20, 1)), center_index=19, np_index=np.int8(19), z_index=np.array(3)),
        Data(x=np.ones((120, 1)), center_index=0, np_index=np.int8(0), z_index=np.array(7)),
    ]
    ds = PackedDataset.from_data_list(graphs)
    for order in ([1, 0], [0, 1, 1]):
        assert_batch_equal(ds.collate(order), Batch.from_data_list([graphs[i] for i in order]))


def test_increased_scalars_split_back_from_torch_pyg_and_padded_batches():
    graphs = [
        Data(x=np.ones((3, 1)), edge_index=np.array([[0], [1]]), center_index=2),
        Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]), center_index=1),
    ]
    b = Batch.from_data_list(graphs)
    from arraygnn.padding import pad_batch

    padded = pad_batch(b, num_nodes=7, num_edges=3, num_graphs=3, graph_keys=("center_index",))
    assert [g.center_index for g in padded.to_data_list()] == [2, 1, 0]
    assert padded.center_index.tolist() == [2, 4, 5]  # the padding graph's id: its own node
    small = Batch.from_data_list([Data(x=np.ones((3, 1)), center_index=np.int8(2))] * 2)
    back = pad_batch(small, num_nodes=7, num_edges=0, num_graphs=3, graph_keys=("center_index",))
    assert [type(g.center_index) for g in back.to_data_list()] == [np.int8] * 3
    torch = pytest.importorskip("torch")
    from arraygnn.interop import to_torch

    assert [g.center_index for g in to_torch(b).to_data_list()] == [2, 1]
    tgd = pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import from_pyg

    pyg = tgd.Batch.from_data_list(
        [
            tgd.Data(x=torch.ones(3, 1), center_index=2, node_index=torch.tensor([1, 2])),
            tgd.Data(x=torch.ones(2, 1), center_index=1, node_index=torch.tensor([0])),
        ]
    )
    ours = from_pyg(pyg).to_data_list()
    theirs = pyg.to_data_list()  # PyG concatenates 1-D index keys along dim 0 (its -1)
    for a, b in zip(ours, theirs):
        assert a.center_index.tolist() == b.center_index.tolist()
        assert a.node_index.tolist() == b.node_index.tolist()


def test_packed_dataset_of_narrow_index_keys_past_their_range():
    from arraygnn.dataset import PackedDataset
    from arraygnn.testing.asserts import assert_data_equal

    # 1000 graphs x 40 nodes: the batched ids pass int16, each graph's own ids do not
    graphs = [
        Data(
            x=np.ones((40, 1)),
            edge_index=np.array([[0], [39]], np.int16),
            root_index=np.int16(3),
            c_index=np.array(5, np.int16),
        )
        for _ in range(1000)
    ]
    ds = PackedDataset.from_data_list(graphs)  # used to raise for root_index
    assert_data_equal(ds[820], graphs[820])
    no_edges = [Data(x=np.ones((40, 1)), root_index=np.int16(3)) for _ in range(1000)]
    assert_data_equal(PackedDataset.from_data_list(no_edges)[999], no_edges[999])


def test_framework_arrays_in_any_graph_are_refused_by_collation():
    class Tensorish:  # anything exporting DLPack: a torch / JAX / CuPy-like array
        def __dlpack__(self):
            raise NotImplementedError

    graphs = [Data(x=np.ones((1, 1)), t="a"), Data(x=np.ones((1, 1)), t=Tensorish())]
    with pytest.raises(TypeError, match="key 't' in graph 1.*Tensorish"):
        Batch.from_data_list(graphs)
    # an ndarray where graph 0 holds a str is a type mismatch, not a framework array
    # (it used to be told to convert itself with from_torch)
    graphs = [Data(x=np.ones((1, 1)), t="a"), Data(x=np.ones((1, 1)), t=np.ones(2))]
    with pytest.raises(TypeError, match="key 't' in graph 1: is a ndarray but graph 0 holds a str"):
        Batch.from_data_list(graphs)


def test_increased_scalar_keys_that_overflow_their_dtype_are_refused():
    graphs = [Data(x=np.ones((3, 1)), center_index=np.float64(1.5)) for _ in range(3)]
    assert Batch.from_data_list(graphs).center_index.tolist() == [1.5, 4.5, 7.5]
    # near the top of int64 (and of uint64, NumPy's dtype for a Python int past int64) the
    # increments must not wrap (they used to: 64-bit keys were not checked)
    for big in (2**63 - 4, 2**64 - 3):
        graphs = [Data(x=np.ones((2, 1)), center_index=big) for _ in range(3)]
        with pytest.raises(OverflowError, match="'center_index' in graph 2.*64-bit"):
            Batch.from_data_list(graphs)
        with pytest.raises(OverflowError, match="'center_index' in graph 2.*64-bit"):
            PackedDataset.from_data_list(graphs).collate(np.arange(3))
    graphs = [Data(x=np.ones((2, 1)), center_index=-5) for _ in range(3)]
    assert Batch.from_data_list(graphs).center_index.tolist() == [-5, -3, -1]


def test_negative_custom_increments_that_wrap_at_the_bottom_are_refused():
    class Anchored(Data):
        def __inc__(self, key, value, *args, **kwargs):
            return -10 if key == "anchor" else super().__inc__(key, value, *args, **kwargs)

    # the bottom of int64 used to wrap to +9.2e18 (only the top was guarded)
    graphs = [Anchored(x=np.ones((2, 1)), anchor=-(2**63) + 15) for _ in range(3)]
    with pytest.raises(OverflowError, match="'anchor' in graph 2.*reach -9223372036854775813"):
        Batch.from_data_list(graphs)
    with pytest.raises(OverflowError, match="'anchor' in graph 2"):
        PackedDataset.from_data_list(graphs).collate(np.arange(3))
    graphs = [Anchored(x=np.ones((2, 1)), anchor=2**63 - 1) for _ in range(3)]
    assert Batch.from_data_list(graphs).anchor.tolist() == [2**63 - 1, 2**63 - 11, 2**63 - 21]


def test_devices_and_settings_are_checked():
    import arraygnn
    from arraygnn._namespace import to_device

    assert Data(x=np.ones(2)).to("cpu:0").x.shape == (2,)  # used to ask for CuPy
    for bad in ("cuda:x", "cuda:", "cpu:1", "gpu"):
        with pytest.raises(ValueError, match="device"):
            to_device(np.ones(2), bad)

    class Record(dict):  # a dict subclass whose constructor takes no items
        def __init__(self):
            super().__init__()

    rec = Record()
    rec["x"] = np.ones(2)
    moved = to_device({"r": rec, "t": (1, [np.zeros(1)])}, "cpu")  # used to raise TypeError
    assert type(moved["r"]) is dict and moved["r"]["x"] is rec["x"]
    assert moved["t"][0] == 1 and moved["t"][1][0].shape == (1,)
    with pytest.raises(TypeError, match="True or False"):
        with arraygnn.config(deterministic="False"):
            pass
    with pytest.raises(ValueError, match="positive int"):
        with arraygnn.config(cuda_threads_per_block=-5):
            pass
    with arraygnn.config(cuda_threads_per_block=np.int64(64)):
        assert arraygnn.settings.cuda_threads_per_block == 64


def test_assert_data_equal_compares_bfloat16_tensors():
    torch = pytest.importorskip("torch")
    from arraygnn.testing.asserts import assert_data_equal

    def make(v):
        return Data(t=torch.full((2,), v, dtype=torch.bfloat16))

    assert_data_equal(make(1.0), make(1.0))  # used to raise "unsupported ScalarType"
    with pytest.raises(AssertionError):
        assert_data_equal(make(1.0), make(2.0))


def test_packed_collate_increases_float_index_scalars_as_batch_does():
    """A float number under an index key is increased (PyG); PackedDataset.collate crashed
    on it (an integer range check applied to a float dtype)."""
    graphs = [
        Data(x=np.zeros((3, 1)), center_index=1.0),
        Data(x=np.zeros((2, 1)), center_index=0.0),
    ]
    packed = PackedDataset.from_data_list(graphs).collate(np.array([0, 1]))
    assert packed.center_index.tolist() == Batch.from_data_list(graphs).center_index.tolist()
    assert packed.center_index.tolist() == [1.0, 3.0]


class _StackedFoo(Data):
    """PyG's usual way to override a hook: super() for every other key."""

    def __cat_dim__(self, key, value, *args, **kwargs):
        return None if key == "foo" else super().__cat_dim__(key, value, *args, **kwargs)


def test_records_and_padding_run_super_calling_hooks_of_a_data_subclass():
    from arraygnn.padding import pad_batch
    from arraygnn.testing.asserts import assert_data_equal

    graphs = [
        _StackedFoo(x=np.ones((3, 1)), edge_index=np.array([[0], [1]]), foo=np.full(2, i))
        for i in range(2)
    ]
    b = Batch.from_data_list(graphs)
    # both used to fail: "super(type, obj): obj must be an instance or subtype of type"
    rebuilt = Batch.from_records(
        {k: b[k] for k in b.keys()}, b._slice_dict, b._inc_dict, 2, data_cls=_StackedFoo
    )
    assert_data_equal(rebuilt.get_example(1), graphs[1])
    padded = pad_batch(b, num_nodes=10, num_edges=4, num_graphs=4, graph_keys=["foo"])
    assert padded.foo.shape == (4, 2)
    one = padded.get_example(1)
    assert type(one) is _StackedFoo and one.foo.tolist() == [1, 1]
    assert one.edge_index.tolist() == [[0], [1]] and bool(one.graph_mask)


class _HookedIds(Data):
    """Per-node and per-edge id keys a subclass concatenates along dim 0 and increases."""

    def __cat_dim__(self, key, value, *args, **kwargs):
        if key in ("perm_index", "rev_index"):
            return 0
        return super().__cat_dim__(key, value, *args, **kwargs)

    def __inc__(self, key, value, *args, **kwargs):
        if key == "rev_index":
            return self.edge_index.shape[1]
        return super().__inc__(key, value, *args, **kwargs)


def test_padding_keeps_the_records_a_subclass_gave_node_and_edge_keys():
    from arraygnn.padding import pad_batch

    graphs = [
        _HookedIds(
            x=np.zeros((n, 1)),
            edge_index=np.array([[0, n - 1], [n - 1, 0]]),
            perm_index=np.arange(n)[::-1].copy(),
            rev_index=np.array([1, 0]),
        )
        for n in (2, 3)
    ]
    b = Batch.from_data_list(graphs)
    p = pad_batch(
        b,
        num_nodes=8,
        num_edges=6,
        num_graphs=3,
        node_keys=["x", "perm_index"],
        edge_keys=["rev_index"],
    )
    for i, graph in enumerate(graphs):  # used to come back with the batch's global ids
        one = p.get_example(i)
        assert one.perm_index.tolist() == graph.perm_index.tolist()
        assert one.rev_index.tolist() == graph.rev_index.tolist()
    assert p.get_example(2).x.shape == (3, 1)  # the padding graph: every padding node


class _Bipartite(Data):
    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index":
            return np.array([[self.ns], [self.nt]])
        return super().__inc__(key, value, *args, **kwargs)


def test_padding_splits_edges_by_the_batch_records_not_by_source_ids():
    from arraygnn.padding import pad_batch

    graphs = [
        _Bipartite(ns=s, nt=t, edge_index=np.array([[0, s - 1], [t - 1, 0]]), num_nodes=s + t)
        for s, t in [(1, 3), (2, 1), (3, 2)]
    ]
    b = Batch.from_data_list(graphs)
    p = pad_batch(b, num_nodes=b.num_nodes + 2, num_edges=8, num_graphs=4, graph_keys=["ns", "nt"])
    # the edge slices used to come from searchsorted(ptr, source id): wrong for bipartite ids
    assert p._slice_dict["edge_index"].tolist() == [0, 2, 4, 6, 8]
    for i, graph in enumerate(graphs):
        assert p.get_example(i).edge_index.tolist() == graph.edge_index.tolist()
    assert p.get_example(3).edge_index.shape == (2, 2) and not p.graph_mask[3]


class _Scaled(Data):
    """A hook reading state its __init__ sets (PyG's separate calls cls())."""

    def __init__(self, scale=2, **kwargs):
        super().__init__(**kwargs)
        self._scale = scale

    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index":
            return self._scale * self.num_nodes
        return super().__inc__(key, value, *args, **kwargs)


class _Positional(Data):
    def __init__(self, required):  # an __init__ that cannot run without its argument
        super().__init__()


def test_split_graphs_are_made_by_calling_the_class():
    graphs = [_Scaled(x=np.zeros((n, 1)), edge_index=np.array([[0], [n - 1]])) for n in (2, 3)]
    b = Batch.from_data_list(graphs)
    # re-collating the split graphs used to raise AttributeError: no '_scale'
    again = Batch.from_data_list(b.to_data_list())
    assert again.edge_index.tolist() == b.edge_index.tolist() == [[0, 4], [1, 6]]
    ds = PackedDataset.from_arrays(
        num_nodes=np.array([2, 3]),
        num_edges=np.array([1, 1]),
        node_features={"x": np.zeros((5, 1))},
        edge_index=np.array([[0, 0], [1, 2]]),
        edge_features={},
        graph_features={},
        data_cls=_Scaled,
    )
    assert ds.collate([0, 1]).edge_index.tolist() == [[0, 4], [1, 6]]
    assert type(ds[1]) is _Scaled and ds[1]._scale == 2
    pos = _Positional.__new__(_Positional)
    object.__setattr__(pos, "_store", {"x": np.ones((2, 1))})
    assert type(Batch.from_data_list([pos, pos]).get_example(1)) is _Positional


class _ZeroD(Data):
    def __inc__(self, key, value, *args, **kwargs):
        if key == "unrelated":
            return 0
        return super().__inc__(key, value, *args, **kwargs)

    def __cat_dim__(self, key, value, *args, **kwargs):
        if key == "edge_index":  # the same dim for every graph, counted either way
            return -1 if self.num_nodes == 3 else 1
        return super().__cat_dim__(key, value, *args, **kwargs)


def test_zero_d_values_are_stacked_whatever_the_hooks_say():
    graphs = [
        _ZeroD(
            x=np.ones((n, 1)),
            y=np.array(float(n)),
            center_index=np.array(1),
            edge_index=np.array([[0], [1]]),
        )
        for n in (2, 3)
    ]
    b = Batch.from_data_list(graphs)  # used to raise: "has shape [] but __cat_dim__ returns 0"
    assert b.edge_index.tolist() == [[0, 2], [1, 3]]  # and "returned -1, graph 0 returned 1"
    assert b.y.tolist() == [2.0, 3.0] and b.center_index.tolist() == [1, 3]
    assert [g.center_index.tolist() for g in b.to_data_list()] == [1, 1]


def test_increments_that_are_not_whole_numbers_are_refused_for_integer_ids():
    class Half(Data):
        def __inc__(self, key, value, *args, **kwargs):
            if key in ("edge_index", "center_index"):
                return self.num_nodes / 2
            return super().__inc__(key, value, *args, **kwargs)

    for kw in ({"edge_index": np.array([[0], [1]])}, {"center_index": 1}):
        graphs = [Half(x=np.ones((3, 1)), **kw) for _ in range(3)]
        key = next(iter(kw))
        with pytest.raises(TypeError, match=f"'{key}' in graph 1.*1.5, not a whole number"):
            Batch.from_data_list(graphs)  # used to add 1.5 as 1
        even = [Half(x=np.ones((4, 1)), **kw) for _ in range(2)]
        assert np.asarray(Batch.from_data_list(even)[key]).ravel()[-1] == 3  # 1 + 2


def test_num_nodes_values_are_checked_by_collation():
    from arraygnn.padding import pad_batch

    for bad, err, match in [
        (-1, ValueError, "'num_nodes' in graph 0: must be >= 0"),  # "negative dimensions"
        ("2", TypeError, "'num_nodes' in graph 0: must be an int"),  # was taken as 2
        (np.array([2]), TypeError, "'num_nodes' in graph 0: must be an int"),
    ]:
        with pytest.raises(err, match=match):
            Batch.from_data_list([Data(num_nodes=bad), Data(num_nodes=3)])
    b = Batch.from_data_list([Data(num_nodes=np.array(2)), Data(num_nodes=np.int32(3))])
    assert b.ptr.tolist() == [0, 2, 5]
    for kw in ({"num_nodes": 8.0}, {"num_edges": None}, {"num_graphs": True}):
        sizes = {"num_nodes": 8, "num_edges": 0, "num_graphs": 3, **kw}
        with pytest.raises(TypeError, match="pad_batch: num_"):
            pad_batch(b, **sizes)
