"""Parity sweep of arraygnn.interop against the real libraries (torch, JAX, PyG, NetworkX,
SciPy): every dtype and layout through the DLPack hand-offs, PyG round trips with every
value kind PyG holds, and PyG's converters against arraygnn's on awkward graphs."""

import warnings

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.interop import (
    HandoffCopyError,
    aligned_copy,
    from_jax,
    from_pyg,
    from_torch,
    to_jax,
    to_pyg,
    to_torch,
)

ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
    ml_dtypes.bfloat16,
]  # fmt: skip


def _base(dtype):
    """A 64-byte aligned [2, 3, 4] array of ``dtype`` (so JAX may adopt it)."""
    return aligned_copy((np.arange(24) % 7).astype(dtype).reshape(2, 3, 4))


def _read_only(a):
    v = a.view()
    v.setflags(write=False)
    return v


#: layout -> (make view of an aligned base, reason torch copies, reason JAX copies)
LAYOUTS = {
    "C": (lambda a: a, None, None),
    "0-d": (lambda a: a[1, 2, 3:4].reshape(()), None, "boundary"),
    "empty": (lambda a: a[:, :0], None, None),
    "transposed": (lambda a: a.transpose(2, 0, 1), None, None),
    "step": (lambda a: a[:, ::2], None, "not compact"),
    "negative": (lambda a: a[:, ::-1], "negative strides", "not compact"),
    "fortran": (lambda a: aligned_copy(a.T).T, None, None),
    "read-only": (_read_only, "read-only", "read-only"),
    "broadcast": (lambda a: np.broadcast_to(a[:1], (3, 3, 4)), "read-only", "read-only"),
}


def _same_values(a, b):
    if a.dtype.kind == "V":  # ml_dtypes: compare as float32
        a, b = a.astype(np.float32), b.astype(np.float32)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


# ------------------------------------------------------------------ DLPack / torch
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_torch_every_dtype_and_layout(dtype):
    pytest.importorskip("torch")
    for name, (make, copy_reason, _) in LAYOUTS.items():
        a = make(_base(dtype))
        t, rep = to_torch(a, report=True)
        assert tuple(t.shape) == a.shape, name
        back, rep_back = from_torch(t, report=True)
        assert _same_values(back, a), name  # dtype (bfloat16 too), shape, values
        assert rep_back.zero_copy and not rep_back.kept, name
        if copy_reason is None:
            assert rep.zero_copy and rep.shared == ["<array>"], (name, rep)
            if a.size:  # aliasing: same pointer, same strides
                assert t.data_ptr() == a.ctypes.data, name
                assert tuple(s * a.itemsize for s in t.stride()) == a.strides, name
                at = (0,) * a.ndim
                old = a[at].copy()
                a[at] = 1 if old == 0 else 0
                assert from_torch(t)[at] == a[at], name  # a write shows through
                a[at] = old
        else:
            assert copy_reason in rep.copied["<array>"], (name, rep)
            with pytest.raises(HandoffCopyError, match="strict=True"):
                to_torch(a, strict=True)
            if a.size:
                assert t.data_ptr() != a.ctypes.data


def test_torch_tensor_views_and_pyg_tensor_subclasses_come_back_shared():
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    base = torch.arange(24.0).reshape(2, 3, 4)
    for t in (base.transpose(0, 2), base[:, ::2], base[:1].expand(3, 3, 4), base[0, 0, 0]):
        a, rep = from_torch(t, report=True, strict=True)
        assert rep.shared == ["<array>"] and a.ctypes.data == t.data_ptr()
        assert a.strides == tuple(s * 4 for s in t.stride())
    # PyG 2.8's EdgeIndex / Index wrap a plain tensor: shared, not reported as copied
    ei = tg.EdgeIndex(torch.tensor([[0, 1], [1, 2]]), sparse_size=(3, 3))
    idx = tg.Index(torch.tensor([0, 1, 1]), dim_size=3)
    for t in (ei, idx):
        a, rep = from_torch(t, report=True, strict=True)
        assert type(a) is np.ndarray and rep.shared == ["<array>"]
        assert a.ctypes.data == t.as_tensor().data_ptr()
        a.reshape(-1)[0] = 2
        assert int(t.as_tensor().reshape(-1)[0]) == 2  # a write shows through


# ------------------------------------------------------------------ DLPack / JAX
@pytest.mark.parametrize("x64", [False, True], ids=["x64-off", "x64-on"])
def test_jax_every_dtype_and_layout(x64):
    jax = pytest.importorskip("jax")
    ctx = jax.enable_x64(x64) if hasattr(jax, "enable_x64") else pytest.skip("no enable_x64")
    with ctx:
        for dtype in DTYPES:
            wide = np.dtype(dtype).itemsize == (16 if np.dtype(dtype).kind == "c" else 8)
            narrowed = wide and not x64 and np.dtype(dtype).kind != "b"
            for name, (make, _, copy_reason) in LAYOUTS.items():
                a = make(_base(dtype))
                j, rep = to_jax(a, report=True)
                where = (np.dtype(dtype).name, name)
                assert j.shape == a.shape, where
                back, rep_back = from_jax(j, report=True)
                assert rep_back.zero_copy and not back.flags.writeable or not a.size, where
                if narrowed:
                    assert "narrowed" in rep.copied["<array>"], where
                    assert np.array_equal(back, a.astype(back.dtype)), where
                    continue
                assert _same_values(back, a), where
                if not a.size:  # nothing to share or copy
                    assert rep.zero_copy, where
                    to_jax(a, strict=True)
                elif a.dtype.kind == "V":  # ml_dtypes: a reported copy (no DLPack export)
                    assert "ml_dtypes" in rep.copied["<array>"], where
                elif copy_reason is None:
                    assert rep.zero_copy, (where, rep)
                    assert j.unsafe_buffer_pointer() == a.ctypes.data, where
                else:
                    assert copy_reason in rep.copied["<array>"], (where, rep)
                    with pytest.raises(HandoffCopyError):
                        to_jax(a, strict=True)


def test_jax_typed_prng_keys_are_kept_with_a_hint():
    jax = pytest.importorskip("jax")
    key = jax.random.key(0)  # a typed key array: no DLPack, no NumPy dtype
    out, rep = from_jax({"key": key, "x": jax.numpy.ones(2)}, report=True)
    assert out["key"] is key and "key_data" in rep.kept["key"]
    assert rep.shared == ["x"]
    raw = from_jax(jax.random.key_data(key))  # its bits convert
    assert raw.dtype == np.uint32 and raw.shape == (2,)


# ------------------------------------------------------------------ containers
def _small_batch():
    graphs = [
        Data(
            x=np.full((n, 2), n, np.float32),
            edge_index=np.array([[0, n - 1], [n - 1, 0]]),
            y=n,
            name=f"g{n}",
        )
        for n in (2, 3, 1)
    ]
    return Batch.from_data_list(graphs, follow_batch=["x"])


def _hetero_batch():
    from arraygnn.hetero_batch import HeteroBatch
    from arraygnn.hetero_data import HeteroData

    graphs = []
    for n in (2, 3):
        h = HeteroData(paper={"x": np.ones((n, 2), np.float32)}, author={"num_nodes": n + 1})
        h["author", "writes", "paper"].edge_index = np.array([[0, n], [n - 1, 0]])
        graphs.append(h)
    return HeteroBatch.from_data_list(graphs)


def _temporal_batch():
    from arraygnn.temporal_data import TemporalData

    a = TemporalData(src=np.array([0, 1]), dst=np.array([2, 3]), t=np.array([1, 2]))
    b = TemporalData(src=np.array([1]), dst=np.array([0]), t=np.array([5]))
    return Batch.from_data_list([a, b])


def _graphs_tuple():
    from arraygnn.graphs_tuple import GraphsTuple

    return GraphsTuple(
        nodes=np.ones((3, 2), np.float32),
        edges={"w": np.ones(2, np.float32)},
        senders=np.array([0, 1], np.int32),
        receivers=np.array([1, 2], np.int32),
        globals=None,
        n_node=np.array([3], np.int32),
        n_edge=np.array([2], np.int32),
    )


def _examples(batch, key_of):
    return [np.asarray(key_of(batch.get_example(i))).tolist() for i in range(batch.num_graphs)]


@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_batches_hand_off_every_array_and_still_split(framework):
    pytest.importorskip(framework)
    fwd, bwd = {"torch": (to_torch, from_torch), "jax": (to_jax, from_jax)}[framework]
    cases = [
        (_small_batch(), lambda d: d["edge_index"]),
        (_hetero_batch(), lambda d: d["author", "writes", "paper"].edge_index),
        (_temporal_batch(), lambda d: d["dst"]),
    ]
    for batch, key_of in cases:
        expected = _examples(batch, key_of)
        out, rep = fwd(batch, report=True)
        assert type(out) is type(batch) and len(rep.shared) + len(rep.copied) >= 3
        assert _examples(out, key_of) == expected  # split on the framework side
        again = bwd(out)
        assert type(again) is type(batch) and _examples(again, key_of) == expected
    gt = _graphs_tuple()
    out, rep = fwd(gt, report=True)
    assert type(out) is type(gt) and len(rep.shared) + len(rep.copied) == 6
    assert type(bwd(out).nodes) is np.ndarray


# ------------------------------------------------------------------ PyG round trips
def _pyg():
    torch = pytest.importorskip("torch")
    tgd = pytest.importorskip("torch_geometric.data")
    return torch, tgd


def _equal(a, b, torch, path="value"):
    """Deep equality of PyG values: tensors by layout, dtype, shape and values."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor), path
        assert (a.layout, a.dtype, a.is_nested) == (b.layout, b.dtype, b.is_nested), path
        if a.is_nested:
            _equal(list(a.unbind()), list(b.unbind()), torch, path)
            return
        assert a.shape == b.shape, path
        if a.layout != torch.strided:
            a, b = a.to_dense(), b.to_dense()
        if a.dtype == torch.complex32:
            a, b = a.view(torch.float16), b.view(torch.float16)
        assert torch.equal(a, b), path
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), path
        for k in a:
            _equal(a[k], b[k], torch, f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _equal(x, y, torch, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, path


def _data_equal(p, q, torch):
    assert type(p) is type(q)
    dp, dq = p.to_dict(), q.to_dict()
    assert sorted(dp) == sorted(dq)
    for k in dp:
        _equal(dp[k], dq[k], torch, k)
    assert p.num_nodes == q.num_nodes


def _sparse(torch, n, layout):
    a = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, n - 1]]), torch.ones(2), (n, n))
    return a.coalesce() if layout == "coo" else a.to_sparse_csr()


#: key -> value of graph i with n nodes (PyG holds any of these)
VALUE_KINDS = {
    "name": lambda torch, i, n: f"g{i}",
    "lst": lambda torch, i, n: [i, i + 1],
    "dct": lambda torch, i, n: {"a": i, "t": torch.ones(n) * i},
    "none": lambda torch, i, n: None,
    "flt": lambda torch, i, n: 3.5,
    "k": lambda torch, i, n: i,
    "mask": lambda torch, i, n: torch.arange(n) % 2 == 0,
    "h16": lambda torch, i, n: torch.ones(n, dtype=torch.float16),
    "bf16": lambda torch, i, n: torch.ones(n, 2, dtype=torch.bfloat16),
    "u16": lambda torch, i, n: torch.ones(n, dtype=torch.uint16),
    "c128": lambda torch, i, n: torch.ones(n, dtype=torch.complex128) * 1j,
    "c32": lambda torch, i, n: torch.ones(n, dtype=torch.complex32),
    "f64": lambda torch, i, n: torch.ones(n, 3, dtype=torch.float64),
    "sp_coo": lambda torch, i, n: _sparse(torch, n, "coo"),
    "sp_csr": lambda torch, i, n: _sparse(torch, n, "csr"),
    "adj_t": lambda torch, i, n: _sparse(torch, n, "coo"),
    "scalar0d": lambda torch, i, n: torch.tensor(2.0 + i),
    "face": lambda torch, i, n: torch.tensor([[0], [1], [n - 1]]),
    "tup": lambda torch, i, n: (i, "a"),
    "tensors": lambda torch, i, n: [torch.ones(2) * i, torch.zeros(n)],
    "strs": lambda torch, i, n: ["a", "b"],
    "node_index": lambda torch, i, n: torch.arange(n),
    "num_nodes": lambda torch, i, n: n,
    "nested": lambda torch, i, n: torch.nested.nested_tensor([torch.ones(2), torch.ones(i + 1)]),
}


def _pyg_graphs(torch, tgd, key):
    out = []
    for i, n in enumerate((3, 4)):
        ei = torch.tensor([[0, 1, n - 1], [1, 0, 2]])
        d = tgd.Data(x=torch.arange(n * 2.0).reshape(n, 2), edge_index=ei)
        d[key] = VALUE_KINDS[key](torch, i, n)
        out.append(d)
    return out


@pytest.mark.parametrize("key", list(VALUE_KINDS))
def test_pyg_value_kinds_round_trip(key):
    torch, tgd = _pyg()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's sparse / nested / complex32 notices
        graphs = _pyg_graphs(torch, tgd, key)
        for d in graphs:
            _data_equal(d, to_pyg(from_pyg(d)), torch)
        try:
            pb = tgd.Batch.from_data_list(graphs)
        except Exception:  # noqa: BLE001 - PyG cannot collate it: nothing to compare
            return
        ours = from_pyg(pb)
        assert isinstance(ours, Batch) and ours.num_graphs == 2
        back = to_pyg(ours)
        assert back.num_graphs == 2
        for i in range(2):
            try:
                expected = pb.get_example(i)
            except Exception:  # noqa: BLE001 - PyG cannot split it (sparse adj, CSR): ours can
                # 'adj' keys: PyG's diagonal blocks, the graphs' own; CSR: as PyG splits COO
                want = graphs[i][key]
                if want.layout == torch.sparse_csr:
                    coo = [d.clone() for d in graphs]
                    for d in coo:
                        d[key] = d[key].to_sparse_coo()
                    want = tgd.Batch.from_data_list(coo).get_example(i)[key].to_sparse_csr()
                _equal(want, to_pyg(ours.get_example(i))[key], torch, key)
                _equal(want, back.get_example(i)[key], torch, key)
                continue
            _data_equal(expected, to_pyg(ours.get_example(i)), torch)
            _data_equal(expected, back.get_example(i), torch)


@pytest.mark.parametrize(
    "kw",
    [
        {"follow_batch": ["x", "y", "name", "k"]},
        {"exclude_keys": ["edge_attr", "name", "k"]},
    ],
    ids=["follow_batch", "exclude_keys"],
)
def test_pyg_batch_options_and_batch_of_batches(kw):
    torch, tgd = _pyg()
    graphs = [
        tgd.Data(
            x=torch.randn(n, 2, generator=torch.Generator().manual_seed(n)),
            edge_index=torch.tensor([[0, n - 1], [n - 1, 0]]),
            edge_attr=torch.ones(2, 1) * n,
            y=torch.tensor([n]),
            name=f"g{n}",
            k=n,
        )
        for n in (2, 3, 1)
    ]
    pb = tgd.Batch.from_data_list(graphs, **kw)
    ours = from_pyg(pb)
    assert sorted(ours.keys()) == sorted(pb.keys())
    back = to_pyg(ours)
    _data_equal(pb, back, torch)
    collated = to_pyg(Batch.from_data_list([from_pyg(g) for g in graphs], **kw))
    _data_equal(pb, collated, torch)
    for i in range(3):
        _data_equal(pb.get_example(i), back.get_example(i), torch)
        _data_equal(pb.get_example(i), to_pyg(ours.get_example(i)), torch)
    inner = [tgd.Batch.from_data_list(graphs[:2], **kw), pb]
    pbb = tgd.Batch.from_data_list(inner)
    bob = from_pyg(pbb)
    for i in range(2):
        _data_equal(pbb.get_example(i), to_pyg(bob.get_example(i)), torch)
        _data_equal(pbb.get_example(i), to_pyg(bob).get_example(i), torch)


def _pyg_hetero(torch, tgd, i, with_dict):
    h = tgd.HeteroData()
    h["paper"].x = torch.arange((3 + i) * 2.0).reshape(3 + i, 2)
    h["author"].num_nodes = 2 + i
    h["author"].name = f"a{i}"
    h["author", "writes", "paper"].edge_index = torch.tensor([[0, 1], [2, 0]])
    h["author", "writes", "paper"].edge_attr = torch.ones(2, 4) * i
    h["paper", "cites", "paper"].edge_index = torch.tensor([[0], [1]])
    h.y = torch.tensor([float(i)])
    h.gname = f"g{i}"
    h["paper"].bf = torch.ones(3 + i, dtype=torch.bfloat16)
    if with_dict:
        h["paper"].d = {"q": torch.ones(3 + i) * i, "s": i}
        h["paper"].sp = _sparse(torch, 3 + i, "coo")
    return h


def _hetero_equal(p, q, torch):
    assert type(p) is type(q)
    assert p.node_types == q.node_types and p.edge_types == q.edge_types
    _equal(p._global_store.to_dict(), q._global_store.to_dict(), torch, "graph")
    for t in p.node_types + p.edge_types:
        a, b = p[t].to_dict(), q[t].to_dict()
        assert sorted(a) == sorted(b), t
        for k in a:
            _equal(a[k], b[k], torch, f"{t}.{k}")
    for t in p.node_types:
        assert p[t].num_nodes == q[t].num_nodes, t


@pytest.mark.parametrize("with_dict", [False, True], ids=["tensors", "dict-and-sparse"])
def test_pyg_hetero_round_trips(with_dict):
    torch, tgd = _pyg()
    graphs = [_pyg_hetero(torch, tgd, i, with_dict) for i in range(2)]
    for h in graphs:
        _hetero_equal(h, to_pyg(from_pyg(h)), torch)
    for kw in ({}, {"follow_batch": ["x"]}, {"exclude_keys": ["edge_attr"]}):
        pb = tgd.Batch.from_data_list(graphs, **kw)
        ours = from_pyg(pb)
        back = to_pyg(ours)
        if not with_dict:
            _hetero_equal(pb, back, torch)
        for i in range(2):
            _hetero_equal(pb.get_example(i), to_pyg(ours.get_example(i)), torch)
            _hetero_equal(pb.get_example(i), back.get_example(i), torch)


def test_pyg_temporal_batches_keep_their_records():
    torch, tgd = _pyg()
    from arraygnn.temporal_data import TemporalData, TemporalDataBatch

    streams = [
        tgd.TemporalData(
            src=torch.tensor([0, 1, 2][: 3 - i]),
            dst=torch.tensor([1, 2, 0][: 3 - i]),
            t=torch.arange(3 - i),
            msg=torch.ones(3 - i, 2) * i,
            name=f"s{i}",
        )
        for i in range(2)
    ]
    for s in streams:
        back = from_pyg(s)
        assert type(back) is TemporalData
        _data_equal(s, to_pyg(back), torch)
    pb = tgd.Batch.from_data_list(streams)
    ours, rep = from_pyg(pb, report=True)
    assert type(ours) is TemporalDataBatch and ours.num_graphs == 2 and rep.zero_copy
    back = to_pyg(ours)
    assert type(back) is type(pb) and back.num_graphs == 2
    _data_equal(pb, back, torch)
    for i in range(2):
        _data_equal(pb.get_example(i), back.get_example(i), torch)
        _data_equal(pb.get_example(i), to_pyg(ours.get_example(i)), torch)
    collated = to_pyg(Batch.from_data_list([from_pyg(s) for s in streams]))
    assert type(collated) is type(pb)
    _data_equal(pb.get_example(1), collated.get_example(1), torch)


# ------------------------------------------------------------------ converters
GRAPHS = {
    "isolated-multi-loops": (np.array([[0, 1, 1, 2, 2, 0], [1, 0, 0, 2, 3, 1]]), 6),
    "int32": (np.array([[0, 1, 3], [1, 2, 3]], dtype=np.int32), 5),
    "no-edges": (np.zeros((2, 0), np.int64), 3),
    "empty": (np.zeros((2, 0), np.int64), 0),
}


def _nx_equal(a, b):
    assert type(a) is type(b)
    assert list(a.nodes(data=True)) == list(b.nodes(data=True))
    keys = {"keys": True} if a.is_multigraph() else {}
    assert list(a.edges(data=True, **keys)) == list(b.edges(data=True, **keys))
    assert a.graph == b.graph


@pytest.mark.parametrize("name", list(GRAPHS))
def test_networkx_converters_match_pyg(name):
    torch, _ = _pyg()
    pytest.importorskip("networkx")
    import torch_geometric.utils as U

    import arraygnn.utils as A

    ei, n = GRAPHS[name]
    e = ei.shape[1]
    ours = Data(
        x=np.arange(n * 2, dtype=np.float32).reshape(n, 2),
        edge_index=ei,
        edge_attr=np.arange(e, dtype=np.float64),
        w=np.arange(e, dtype=np.float32) + 1,
        gid=np.array([7]),
        title="t",
    )
    theirs = to_pyg(ours)
    options = [
        {},
        {"node_attrs": ["x"], "edge_attrs": ["edge_attr", "w"], "graph_attrs": ["gid", "title"]},
        {"to_undirected": True, "edge_attrs": ["w"]},
        {"to_undirected": "upper", "edge_attrs": ["w"]},
        {"to_undirected": "lower", "node_attrs": ["x"]},
        {"remove_self_loops": True},
        {"to_multi": True, "edge_attrs": ["w"]},
        {"to_multi": True, "to_undirected": "upper", "remove_self_loops": True},
    ]
    for kw in options:
        G_pyg, G_ours = U.to_networkx(theirs, **kw), A.to_networkx(ours, **kw)
        _nx_equal(G_pyg, G_ours)
        groups = {"group_node_attrs": ["x"]} if "node_attrs" in kw else {}
        if kw.get("edge_attrs") == ["w"]:
            groups["group_edge_attrs"] = ["w"]
        try:
            expected = U.from_networkx(G_pyg, **groups)
        except KeyError:  # PyG: no node / edge holds the grouped attribute
            with pytest.raises(ValueError, match="not an attribute of G"):
                A.from_networkx(G_ours, **groups)
            continue
        _data_equal(expected, to_pyg(A.from_networkx(G_ours, **groups)), torch)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_scipy_and_torch_sparse_converters_match_pyg(name):
    torch, _ = _pyg()
    import torch_geometric.utils as U

    import arraygnn.utils as A

    ei, n = GRAPHS[name]
    w = np.arange(ei.shape[1], dtype=np.float32) + 1
    tei, tw = torch.from_numpy(ei), torch.from_numpy(w)
    for kw_pyg, kw_ours in (({}, {}), ({"edge_attr": tw}, {"edge_attr": w})):
        for num_nodes in [None, n] if ei.shape[1] else [n]:  # PyG: max() + 1 of no ids fails
            M_pyg = U.to_scipy_sparse_matrix(tei, num_nodes=num_nodes, **kw_pyg)
            M_ours = A.to_scipy_sparse_matrix(ei, num_nodes=num_nodes, **kw_ours)
            assert type(M_pyg) is type(M_ours) and M_pyg.shape == M_ours.shape
            assert M_pyg.dtype == M_ours.dtype and M_pyg.row.dtype == M_ours.row.dtype
            for part in ("row", "col", "data"):
                assert np.array_equal(getattr(M_pyg, part), getattr(M_ours, part))
            for fmt in ("coo", "csr", "csc", "lil", "dok", "bsr", "dia"):
                M = M_pyg.asformat(fmt)
                (e1, w1), (e2, w2) = U.from_scipy_sparse_matrix(M), A.from_scipy_sparse_matrix(M)
                assert np.array_equal(e1.numpy(), e2) and e1.numpy().dtype == e2.dtype, fmt
                assert np.array_equal(w1.numpy(), w2) and w1.numpy().dtype == w2.dtype, fmt
    for fn in ("to_torch_coo_tensor", "to_torch_csr_tensor", "to_torch_csc_tensor"):
        for attr in (False, True):
            kw_pyg = {"size": n, **({"edge_attr": tw} if attr else {})}
            kw_ours = {"size": n, **({"edge_attr": w} if attr else {})}
            T_pyg, T_ours = getattr(U, fn)(tei, **kw_pyg), getattr(A, fn)(ei, **kw_ours)
            assert (T_pyg.layout, T_pyg.shape, T_pyg.dtype) == (
                T_ours.layout,
                T_ours.shape,
                T_ours.dtype,
            )
            assert torch.equal(T_pyg.to_dense(), T_ours.to_dense()), fn
            if fn == "to_torch_coo_tensor":
                assert torch.equal(T_pyg._indices(), T_ours._indices())
                assert T_pyg.is_coalesced() == T_ours.is_coalesced()
            else:
                ids = "col_indices" if fn == "to_torch_csr_tensor" else "row_indices"
                a, b = getattr(T_pyg, ids)(), getattr(T_ours, ids)()
                assert a.dtype == b.dtype and torch.equal(a, b), fn
            (e1, v1), (e2, v2) = U.to_edge_index(T_pyg), A.to_edge_index(T_pyg)
            assert np.array_equal(e1.numpy(), e2) and e1.numpy().dtype == e2.dtype
            assert np.array_equal(v1.numpy(), v2)
