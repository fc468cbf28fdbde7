"""A user of the zero-copy promise (session 10): every kind of batch crosses to torch and
JAX sharing its memory, dtypes kept, and whatever cannot be shared is copied or refused
by name; the faces' feature mappings (a DGL graph's ``ndata``, a GraphTensor's features)
cross too."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arraygnn.batch import Batch  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.hetero_data import HeteroData  # noqa: E402
from arraygnn.interop import (  # noqa: E402
    HandoffCopyError,
    aligned_copy,
    from_torch,
    to_torch,
)


def _graph(n: int, dtype=np.float32) -> Data:
    return Data(
        x=np.arange(n * 2).reshape(n, 2).astype(dtype),
        edge_index=np.array([[0, n - 1], [n - 1, 0]], np.int32),
        mask=np.arange(n) % 2 == 0,
        label=np.array([n], np.uint8),
    )


def _hetero(n: int) -> HeteroData:
    return HeteroData(
        paper={"x": np.ones((n, 2), np.float16)},
        author={"x": np.zeros((2, 2), np.float32)},
        author__writes__paper={"edge_index": np.array([[0, 1], [n - 1, 0]], np.int32)},
    )


def test_every_batch_crosses_to_torch_and_jax_sharing_memory_with_dtypes_kept():
    jax = pytest.importorskip("jax")
    from arraygnn.graphs_tuple import from_data, pad_with_graphs
    from arraygnn.interop import from_jax, to_jax

    batch = Batch.from_data_list([_graph(2), _graph(3)])
    hetero = Batch.from_data_list([_hetero(2), _hetero(3)])
    with jax.enable_x64(True):  # int64 batch / ptr kept: nothing narrowed
        # a GraphsTuple from the batch, padded (from_data's receivers are the second row
        # of edge_index, rarely 64-byte aligned: padding writes aligned arrays for JAX)
        padded = pad_with_graphs(from_data(batch), 8, 8, 3)
        for obj in (batch, hetero, padded):
            for to, back in ((to_torch, from_torch), (to_jax, from_jax)):
                out, rep = to(obj, strict=True, report=True)
                assert rep.zero_copy and not rep.kept, (type(obj).__name__, rep)
                again, rep = back(out, strict=True, report=True)
                assert rep.zero_copy and type(again) is type(obj)
        tb, jb = to_torch(batch), to_jax(batch)
        for key in ("x", "edge_index", "mask", "label"):
            assert tb[key].data_ptr() == jb[key].unsafe_buffer_pointer() == batch[key].ctypes.data
            assert str(tb[key].dtype).endswith(str(batch[key].dtype)), key
            assert jb[key].dtype == batch[key].dtype, key
        th = to_torch(hetero)
        assert th["paper"].x.dtype == torch.float16
        assert np.shares_memory(th["paper"].x.numpy(), hetero["paper"].x)
        assert [g.edge_index.tolist() for g in tb.to_data_list()] == [
            [[0, 1], [1, 0]],
            [[0, 2], [2, 0]],
        ]


def test_bfloat16_and_float8_reach_torch_shared_and_come_back_as_ml_dtypes():
    """An ml_dtypes bfloat16 array stayed NumPy ("no torch equivalent", though torch has
    bfloat16), so a bfloat16 batch reached PyG as a per-graph list of NumPy arrays that no
    PyG layer takes; and a bfloat16 tensor never came back to NumPy."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from arraygnn.interop import from_pyg, to_pyg

    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        a = aligned_copy(np.arange(6, dtype=np.float32).reshape(2, 3).astype(name))
        for view in (a, a[:, ::2], a.T):
            t, rep = to_torch(view, strict=True, report=True)
            assert t.dtype == getattr(torch, name) and rep.zero_copy
            assert t.data_ptr() == view.ctypes.data and t.stride() == tuple(
                s // view.itemsize for s in view.strides
            )
            assert t.float().tolist() == view.astype(np.float32).tolist()
            back, rep = from_torch(t, strict=True, report=True)
            assert back.dtype == np.dtype(getattr(ml_dtypes, name)) and rep.zero_copy
            assert back.ctypes.data == view.ctypes.data and back.strides == view.strides
        t = to_torch(a[::-1])  # negative strides: still a (reported) copy
        assert t.float().tolist() == a[::-1].astype(np.float32).tolist()
    batch = Batch.from_data_list([_graph(2, ml_dtypes.bfloat16), _graph(3, ml_dtypes.bfloat16)])
    pyg, rep = to_pyg(batch, report=True)
    assert pyg.x.dtype == torch.bfloat16 and rep.zero_copy and not rep.kept
    assert pyg.get_example(1).x.float().tolist() == [[0, 1], [2, 3], [4, 5]]
    back = from_pyg(pyg)
    assert back.x.dtype == np.dtype(ml_dtypes.bfloat16) and np.shares_memory(back.x, batch.x)
    assert back.to_data_list()[1].x.astype(np.float32).tolist() == [[0, 1], [2, 3], [4, 5]]


def test_feature_mappings_of_the_dgl_and_tfgnn_faces_cross_and_graphs_are_refused_by_name():
    """``to_torch(g.ndata)`` (a DGL-style ``Frame``) and ``to_torch(node_set.features)``
    (a read-only mapping) raised "expects an array, a Data / Batch, or a dict"; the
    graphs themselves are refused with a pointer to those mappings."""
    import arraygnn
    from arraygnn.graph_tensor import GraphTensor, NodeSet

    g = arraygnn.graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g.ndata["h"] = np.ones((3, 2), np.float32)
    out, rep = to_torch(g.ndata, strict=True, report=True)
    assert type(out) is dict and out["h"].data_ptr() == g.ndata["h"].ctypes.data
    assert rep.shared == ["h"]
    gt = GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([3]), features={"h": g.ndata["h"]})}
    )
    features = gt.node_sets["a"].features
    out = to_torch({"a": features})
    assert np.shares_memory(out["a"]["h"].numpy(), g.ndata["h"])
    assert type(from_torch(out)["a"]) is dict
    with pytest.raises(TypeError, match=r"g\.ndata"):
        to_torch(g)
    with pytest.raises(TypeError, match=r"node_sets\[.*\]\.features"):
        to_torch(gt)


def test_empty_arrays_count_as_shared_also_under_strict():
    """docs/interop.md: "Empty arrays and tensors count as shared (there is no memory to
    copy), also under strict=True" -- but an empty read-only or big-endian array (an
    edge feature of a batch without edges, read from a file) raised HandoffCopyError."""
    pytest.importorskip("jax")
    from arraygnn.interop import to_jax

    frozen = np.zeros((0, 3), np.float32)
    frozen.flags.writeable = False
    for a in (frozen, np.zeros((0, 2), ">f4")):
        t, rep = to_torch(a, strict=True, report=True)
        assert t.shape == (0, a.shape[1]) and t.dtype == torch.float32 and rep.zero_copy
        j, rep = to_jax(a, strict=True, report=True)
        assert j.shape == a.shape and j.dtype == np.float32 and rep.zero_copy
    # a non-empty big-endian array is still a reported copy (never reinterpreted)
    with pytest.raises(HandoffCopyError, match="byte order"):
        to_torch(np.arange(3, dtype=">f4"), strict=True)
    assert to_torch(np.arange(3, dtype=">i4")).tolist() == [0, 1, 2]
    assert np.asarray(to_jax(np.arange(3, dtype=">f4"))).tolist() == [0, 1, 2]


def test_a_dataloader_batch_through_to_pyg_feeds_pyg_as_pygs_own_loader_does():
    tg = pytest.importorskip("torch_geometric")
    from torch_geometric.loader import DataLoader as PyGLoader
    from torch_geometric.nn import GCNConv, global_mean_pool

    from arraygnn.interop import to_pyg
    from arraygnn.loader import DataLoader

    ours = [_graph(n) for n in (2, 3, 4)]
    for i, d in enumerate(ours):
        d.smiles, d.z = f"C{i}", np.float32(i)
    theirs = [
        tg.data.Data(
            **{k: v if isinstance(v, str) else torch.as_tensor(np.array(v)) for k, v in d.items()}
        )
        for d in ours
    ]
    torch.manual_seed(0)
    conv = GCNConv(2, 3)
    for a, b in zip(DataLoader(ours, batch_size=2), PyGLoader(theirs, batch_size=2), strict=True):
        pa, rep = to_pyg(a, strict=True, report=True)
        assert rep.zero_copy and sorted(pa.keys()) == sorted(b.keys())
        for key in b.keys():
            if isinstance(b[key], torch.Tensor):
                assert pa[key].dtype == b[key].dtype and torch.equal(pa[key], b[key]), key
            else:
                assert pa[key] == b[key], key
        out = global_mean_pool(conv(pa.x, pa.edge_index.long()), pa.batch, pa.num_graphs)
        ref = global_mean_pool(conv(b.x, b.edge_index.long()), b.batch, b.num_graphs)
        torch.testing.assert_close(out, ref)
        last = b.num_graphs - 1
        assert pa.get_example(last).smiles == b.get_example(last).smiles
