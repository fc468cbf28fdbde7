"""Odd inputs found by fuzzing the hand-offs: non-tensor attributes in a PyG batch, a
batch's increment records crossing frameworks, empty tensors in strict mode."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arraygnn.batch import Batch  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.interop import from_torch, to_torch  # noqa: E402


def _batch():
    return Batch.from_data_list(
        [
            Data(x=np.ones((2, 1), np.float32), edge_index=np.array([[0], [1]], np.int32)),
            Data(x=np.ones((3, 1), np.float32), edge_index=np.array([[0], [2]], np.int32)),
        ]
    )


def test_empty_tensor_is_shared_not_a_strict_error():
    # torch's size() is a shape, never 0: an empty tensor used to count as "copied"
    t = torch.zeros(2, 0, dtype=torch.long)
    out, rep = from_torch(t, strict=True, report=True)
    assert out.shape == (2, 0) and out.dtype == np.int64
    assert rep.shared == ["<array>"] and rep.zero_copy
    out, rep = to_torch(np.zeros((0, 3), np.float32), strict=True, report=True)
    assert tuple(out.shape) == (0, 3) and rep.zero_copy


def test_to_torch_converts_increment_records_alongside_values():
    b = _batch()
    records_before = {k: (v, v.copy()) for k, v in b._inc_dict.items()}
    tb, rep = to_torch(b, report=True)
    inc = tb._inc_dict["edge_index"]
    assert isinstance(inc, torch.Tensor) and inc.dtype == torch.int32
    assert inc.tolist() == [0, 2]
    assert rep.zero_copy and sorted(rep.shared) == sorted(b.keys())  # records not reported
    for k, (obj, values) in records_before.items():  # the input batch is untouched
        assert b._inc_dict[k] is obj and isinstance(obj, np.ndarray)
        np.testing.assert_array_equal(obj, values)
    back = from_torch(tb)
    assert isinstance(back._inc_dict["edge_index"], np.ndarray)
    assert [d.edge_index.tolist() for d in back.to_data_list()] == [[[0], [1]], [[0], [2]]]


def test_torch_batch_splits():
    tb = to_torch(_batch())
    graphs = tb.to_data_list()
    assert [g.edge_index.tolist() for g in graphs] == [[[0], [1]], [[0], [2]]]
    assert all(g.edge_index.dtype == torch.int32 for g in graphs)
    assert tb.get_example(1).x.shape == (3, 1)


def test_jax_batch_records_and_split():
    pytest.importorskip("jax")
    import jax

    from arraygnn.interop import from_jax, to_jax

    jb = to_jax(_batch())
    inc = jb._inc_dict["edge_index"]
    assert isinstance(inc, jax.Array) and inc.dtype == np.int32
    graphs = jb.to_data_list()
    assert all(isinstance(g.edge_index, jax.Array) for g in graphs)  # not NumPy from graph 1
    assert [np.asarray(g.edge_index).tolist() for g in graphs] == [
        [[0], [1]],
        [[0], [2]],
    ]
    assert isinstance(from_jax(jb)._inc_dict["edge_index"], np.ndarray)


def test_pyg_batch_with_string_attribute_round_trips():
    tgd = pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import from_pyg, to_pyg

    pb = tgd.Batch.from_data_list(
        [
            tgd.Data(x=torch.ones(2, 1), smiles="CC"),
            tgd.Data(x=torch.ones(3, 1), smiles="CCO"),
        ]
    )
    assert pb._inc_dict["smiles"] is None  # what PyG stores for non-tensor attributes
    ours = from_pyg(pb)
    graphs = ours.to_data_list()
    assert [g.smiles for g in graphs] == ["CC", "CCO"]
    assert [g.x.shape for g in graphs] == [(2, 1), (3, 1)]
    again = to_pyg(ours)
    assert [g.smiles for g in again.to_data_list()] == ["CC", "CCO"]
    assert [tuple(g.x.shape) for g in again.to_data_list()] == [(2, 1), (3, 1)]


def test_to_pyg_refuses_a_batch_of_own_hooks_without_the_pyg_class():
    tgd = pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import to_pyg

    def stacked(base):
        class Stacked(base):
            def __cat_dim__(self, key, value, *args, **kwargs):
                if key in ("foo", "foo_index"):
                    return None
                return super().__cat_dim__(key, value, *args, **kwargs)

        return Stacked

    ours, theirs = stacked(Data), stacked(tgd.Data)
    b = Batch.from_data_list(
        [ours(num_nodes=3, foo=np.arange(4.0), foo_index=np.array([0, 2]))] * 3
    )
    with pytest.raises(ValueError, match="pyg_data_cls"):
        to_pyg(b)  # PyG's default hooks used to split it into mixed, negative ids
    graphs = to_pyg(b, pyg_data_cls=theirs).to_data_list()
    assert all(type(g) is theirs and g.foo.shape == (4,) for g in graphs)
    assert [g.foo_index.tolist() for g in graphs] == [[0, 2]] * 3


def test_to_pyg_refuses_keys_pyg_would_split_along_another_dim():
    tgd = pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import to_pyg

    # the seed's rule: 'faces' contains 'face', concatenated along its last dim and
    # increased; PyG 2.x's default concatenates it along dim 0
    graphs = [Data(x=np.ones((3, 1)), faces=np.array([[0], [1], [2]])) for _ in range(2)]
    b = Batch.from_data_list(graphs)
    with pytest.raises(ValueError, match="'faces' was collated along dim 1.*along 0"):
        to_pyg(b)  # used to split graph 1's faces into [[-2, 1]]

    class Faces(tgd.Data):
        def __cat_dim__(self, key, value, *args, **kwargs):
            return -1 if key == "faces" else super().__cat_dim__(key, value, *args, **kwargs)

    back = to_pyg(b, pyg_data_cls=Faces).to_data_list()
    assert [g.faces.tolist() for g in back] == [[[0], [1], [2]]] * 2

    # a subclass whose own __cat_dim__ agrees with PyG's default needs no PyG class
    class Same(Data):
        def __cat_dim__(self, key, value, *args, **kwargs):
            return super().__cat_dim__(key, value, *args, **kwargs)

    same = Batch.from_data_list([Same(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]))] * 2)
    assert [g.edge_index.tolist() for g in to_pyg(same).to_data_list()] == [[[0], [1]]] * 2


def test_tensors_numpy_cannot_hold_are_kept_and_named():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        half = torch.ones(2, dtype=torch.complex32)
    out, rep = from_torch({"feat": half, "x": torch.ones(2)}, report=True)
    assert out["feat"] is half and "feat" in rep.kept and "complex32" in rep.kept["feat"]
    assert isinstance(out["x"], np.ndarray)


def test_nested_tensors_are_kept_and_named():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nested tensors are a prototype API
        nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    # torch raised "Internal error: NestedTensorImpl doesn't support sizes" from inside
    out, rep = from_torch({"tokens": nested, "x": torch.ones(2)}, report=True)
    assert out["tokens"] is nested and "nested" in rep.kept["tokens"]
    assert isinstance(out["x"], np.ndarray)


def test_to_pyg_names_a_pyg_data_cls_that_is_not_a_pyg_data_class():
    pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import to_pyg

    b = Batch.from_data_list([Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]))] * 2)
    for bad in (int, torch.nn.Linear, "Data"):
        with pytest.raises(TypeError, match="pyg_data_cls must be torch_geometric.data.Data"):
            to_pyg(b, pyg_data_cls=bad)
        with pytest.raises(TypeError, match="pyg_data_cls must be"):
            to_pyg(b[0], pyg_data_cls=bad)


def test_defaultdict_structures_convert():
    from collections import defaultdict

    dd = defaultdict(list)
    dd["x"] = np.ones(3, np.float32)
    out = to_torch(dd)  # used to raise inside the library
    assert isinstance(out, defaultdict) and out.default_factory is list
    assert isinstance(out["x"], torch.Tensor) and out["missing"] == []


def test_bfloat16_goes_to_jax_as_a_reported_copy():
    jnp = pytest.importorskip("jax.numpy")
    from arraygnn.interop import from_jax, to_jax

    a = from_jax(jnp.arange(4, dtype=jnp.bfloat16))
    out, rep = to_jax(a, report=True)
    assert out.dtype == jnp.bfloat16 and np.asarray(out, np.float32).tolist() == [0, 1, 2, 3]
    assert "ml_dtypes" in rep.copied["<array>"]


def test_torch_tensors_in_data_are_refused_by_collation():
    d = to_torch(Data(x=np.ones((3, 2), np.float32), edge_index=np.array([[0, 1], [1, 2]])))
    with pytest.raises(TypeError, match="key 'x'.*torch.Tensor.*from_torch"):
        Batch.from_data_list([d, d])  # used to give lists and un-increased edge_index


def test_indexing_a_batch_with_a_0d_tensor_gives_one_graph():
    b = Batch.from_data_list([Data(x=np.ones((2, 1)))] * 3)
    assert isinstance(b[torch.tensor(1)], Data) and isinstance(b[np.array(2)], Data)
    assert isinstance(b[np.array([1])], list)


def test_to_pyg_checks_only_cat_dim_and_applies_the_class_to_a_data():
    tgd = pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import to_pyg

    class OwnInc(Data):
        def __inc__(self, key, value, *args, **kwargs):
            return super().__inc__(key, value, *args, **kwargs)

    b = Batch.from_data_list([OwnInc(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]))] * 2)
    assert [g.edge_index.tolist() for g in to_pyg(b).to_data_list()] == [[[0], [1]]] * 2

    class Mine(tgd.Data):
        pass

    assert type(to_pyg(Data(x=np.ones((2, 1))), pyg_data_cls=Mine)) is Mine


def test_every_ml_dtype_goes_to_jax():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    pytest.importorskip("jax")
    from arraygnn.interop import to_jax

    for dt in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
        out, rep = to_jax(np.arange(4).astype(dt), report=True)  # e5m2 has NumPy kind "f"
        assert str(out.dtype) == np.dtype(dt).name and "<array>" in rep.copied


def test_unsigned_index_batches_split_back_from_torch():
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        b = Batch.from_data_list(
            [Data(x=np.zeros((3, 1), np.float32), edge_index=np.array([[0, 1], [1, 2]], dtype))] * 2
        )
        got = to_torch(b).get_example(1).edge_index  # uint16+: torch has no subtraction
        assert np.asarray(got).tolist() == [[0, 1], [1, 2]], dtype


def test_layers_take_jax_input_as_before():
    jnp = pytest.importorskip("jax.numpy")
    import arraygnn.nn as agnn

    out = agnn.Linear(4, 2)(jnp.ones((3, 4), jnp.float32))
    assert out.shape == (3, 2) and not isinstance(out, np.ndarray)


def test_dense_layers_refuse_torch_tensors_by_name():
    """Linear / MLP failed inside NumPy on a torch tensor and BatchNorm returned a torch
    tensor by accident; they now refuse it as the graph layers do, and every layer's
    message names the fix."""
    torch = pytest.importorskip("torch")
    import arraygnn.nn as agnn

    x = torch.ones(3, 4)
    for layer in (agnn.Linear(4, 2), agnn.MLP([4, 8, 2]), agnn.BatchNorm(4)):
        with pytest.raises(TypeError, match="from_torch"):
            layer(x)
    assert agnn.Linear(4, 2)(from_torch(x)).shape == (3, 2)
    edge_index = np.array([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="from_torch"):
        agnn.GCNConv(4, 2)(torch.ones(2, 4), edge_index)
    with pytest.raises(TypeError, match="from_torch"):
        agnn.global_add_pool(torch.ones(2, 4), np.zeros(2, np.int64))


def test_to_pyg_copies_read_only_records():
    """Records rebuilt from a read-only array (np.load(mmap_mode='r')) became writable
    tensors over that memory: a write through them crashed the process."""
    pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import to_pyg

    b = Batch.from_data_list([Data(x=np.ones((3, 2)), edge_index=np.array([[0, 1], [1, 2]]))] * 2)
    frozen = np.array(b._slice_dict["edge_index"], np.int64)
    frozen.setflags(write=False)
    rb = Batch.from_records(
        {"x": b.x, "edge_index": b.edge_index},
        {"x": b._slice_dict["x"], "edge_index": frozen},
        {"x": b._inc_dict["x"], "edge_index": b._inc_dict["edge_index"]},
        2,
    )
    pb = to_pyg(rb)
    record = pb._slice_dict["edge_index"]
    assert not np.shares_memory(record.numpy(), frozen)
    assert [g.edge_index.tolist() for g in pb.to_data_list()] == [[[0, 1], [1, 2]]] * 2


def test_to_pyg_splits_arrays_torch_cannot_hold_graph_by_graph():
    """A string (or bfloat16) node key stayed one NumPy array inside the PyG batch, and
    PyG's split indexed it: graph 1 got the single element 'b' instead of its rows."""
    pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import from_pyg, to_pyg

    ei = np.array([[0], [1]])
    graphs = [
        Data(name=np.array(["a", "b", "c"]), edge_index=ei, num_nodes=3),
        Data(name=np.array(["d", "e"]), edge_index=ei, num_nodes=2),
    ]
    pb = to_pyg(Batch.from_data_list(graphs))
    assert [g.name.tolist() for g in pb.to_data_list()] == [["a", "b", "c"], ["d", "e"]]
    assert [g.edge_index.tolist() for g in pb.to_data_list()] == [[[0], [1]]] * 2
    back = from_pyg(pb)
    assert [g.name.tolist() for g in back.to_data_list()] == [["a", "b", "c"], ["d", "e"]]


def test_aligned_empty_refuses_negative_shapes_and_alignments():
    from arraygnn.interop import aligned_empty

    with pytest.raises(ValueError, match="negative dimensions"):
        aligned_empty((2, -3), np.float32)  # came back with shape (2, 2)
    for bad in (0, -8, 2.5):
        with pytest.raises(ValueError, match="alignment must be a positive int"):
            aligned_empty((3,), np.float32, alignment=bad)
    a = aligned_empty((3, 0), np.float32)
    assert a.shape == (3, 0)
