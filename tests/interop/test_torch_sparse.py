"""PyG's torch sparse / nested tensor converters on NumPy arrays (arraygnn.interop.torch_sparse):
parity with ``torch_geometric.utils`` (indices, values, layout, size, coalesced flag, dtypes)
on the labelled graph cases and random multigraphs, int32 / int64 ids, float32 / float64 /
int / multi-dimensional edge features, empty graphs; memory shared where the layout allows
(checked by data pointer); the way back through ``to_edge_index``; nested tensors with empty
graphs; errors naming the function and the argument; inputs never modified; read-only
inputs without warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
P = pytest.importorskip("torch_geometric.utils")

from arraygnn.interop import (  # noqa: E402
    from_nested_tensor,
    from_torch_sparse,
    is_sparse,
    is_torch_sparse_tensor,
    to_nested_tensor,
    to_torch_coo_tensor,
    to_torch_csc_tensor,
    to_torch_csr_tensor,
    to_torch_sparse_tensor,
)
from arraygnn.testing.cases import graph_cases, random_graph  # noqa: E402
from arraygnn.utils import coalesce, to_edge_index  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse CSC tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype"),
]

KINDS = {
    "coo": (to_torch_coo_tensor, P.to_torch_coo_tensor, torch.sparse_coo),
    "csr": (to_torch_csr_tensor, P.to_torch_csr_tensor, torch.sparse_csr),
    "csc": (to_torch_csc_tensor, P.to_torch_csc_tensor, torch.sparse_csc),
}
ID_DTYPES = (np.int32, np.int64)


def _cases():
    """``(label, edge_index int64, (N, M))``: the labelled cases (empty, isolated nodes,
    self-loops, multi-edges, bipartite, ...) and random multigraphs."""
    out = [(c.name, c.edge_index, (c.num_src_nodes, c.num_dst_nodes)) for c in graph_cases()]
    for seed, (n, m, e) in enumerate([(7, 7, 30), (5, 9, 40), (40, 40, 60)]):
        ei = random_graph(n, m, e, seed=seed).astype(np.int64)
        out.append((f"random-{n}x{m}-{e}", ei, (n, m)))
    return out


CASES = _cases()
CASE_IDS = [c[0] for c in CASES]


def _parts(adj):
    """The index arrays, values, shape, dtype and layout of a torch sparse tensor."""
    if adj.layout == torch.sparse_coo:
        ids = [adj._indices()]
    elif adj.layout == torch.sparse_csr:
        ids = [adj.crow_indices(), adj.col_indices()]
    else:
        ids = [adj.ccol_indices(), adj.row_indices()]
    return ids, adj._values() if adj.layout == torch.sparse_coo else adj.values()


def assert_sparse_equal(ours, ref, exact=True):
    assert ours.layout == ref.layout
    assert tuple(ours.shape) == tuple(ref.shape)
    assert ours.dtype == ref.dtype and ours.device == ref.device
    if ref.layout == torch.sparse_coo:
        assert ours.is_coalesced() == ref.is_coalesced()
    ids, vals = _parts(ours)
    ref_ids, ref_vals = _parts(ref)
    for a, b in zip(ids, ref_ids):
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        assert torch.equal(a, b)
    assert vals.shape == ref_vals.shape
    if exact or not vals.dtype.is_floating_point:
        assert torch.equal(vals, ref_vals)
    else:  # sums of parallel edges may run in another order
        torch.testing.assert_close(vals, ref_vals)


def _attr(kind, num_edges, seed):
    rng = np.random.default_rng(seed)
    if kind is None:
        return None
    if kind == "f32":
        return rng.standard_normal(num_edges).astype(np.float32)
    if kind == "f64x3":
        return rng.standard_normal((num_edges, 3))
    if kind == "i32":
        return rng.integers(-5, 6, num_edges).astype(np.int32)
    return rng.integers(-5, 6, (num_edges, 2, 2))  # "i64x2x2"


# ----------------------------------------------------------------------------- parity


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("id_dtype", ID_DTYPES)
@pytest.mark.parametrize("attr", [None, "f32", "f64x3", "i32", "i64x2x2"])
@pytest.mark.parametrize(("label", "ei", "size"), CASES, ids=CASE_IDS)
def test_matches_pyg(kind, id_dtype, attr, label, ei, size):
    ours_fn, ref_fn, _ = KINDS[kind]
    ei = ei.astype(id_dtype)
    w = _attr(attr, ei.shape[1], seed=len(label))
    before = (ei.copy(), None if w is None else w.copy())
    ours = ours_fn(ei, w, size=size)
    ref = ref_fn(
        torch.from_numpy(ei.copy()), None if w is None else torch.from_numpy(w.copy()), size
    )
    assert_sparse_equal(ours, ref, exact=False)
    np.testing.assert_array_equal(ei, before[0])  # nothing passed is modified
    if w is not None:
        np.testing.assert_array_equal(w, before[1])


@pytest.mark.parametrize("kind", list(KINDS))
def test_size_forms_match_pyg(kind):
    ours_fn, ref_fn, layout = KINDS[kind]
    ei = np.array([[3, 0, 1, 1], [2, 4, 0, 0]])
    te = torch.from_numpy(ei.copy())
    for size in (None, 6, (4, 5), (None, 7), (5, None), [None, None], np.int64(5)):
        ref_size = int(size) if isinstance(size, np.integer) else size
        assert_sparse_equal(ours_fn(ei, size=size), ref_fn(te, size=ref_size))
        assert_sparse_equal(
            to_torch_sparse_tensor(ei, None, size, False, layout),
            P.to_torch_sparse_tensor(te, None, ref_size, False, layout),
        )
    if kind == "coo":  # the default layout
        assert_sparse_equal(to_torch_sparse_tensor(ei), P.to_torch_sparse_tensor(te))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("id_dtype", ID_DTYPES)
def test_empty_graphs_with_size(kind, id_dtype):
    ours_fn, ref_fn, _ = KINDS[kind]
    ei = np.zeros((2, 0), dtype=id_dtype)
    te = torch.from_numpy(ei.copy())
    for size, w in ((3, None), ((0, 4), None), (0, None), ((2, 5), np.zeros((0, 3), np.float32))):
        ref = ref_fn(te, None if w is None else torch.from_numpy(w), size)
        assert_sparse_equal(ours_fn(ei, w, size=size), ref)


@pytest.mark.parametrize("kind", list(KINDS))
def test_duplicates_sum_features_and_count_once_without(kind):
    ours_fn, ref_fn, _ = KINDS[kind]
    ei = np.array([[1, 0, 1, 1, 2], [2, 1, 2, 2, 0]])
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    adj = ours_fn(ei, w, size=3)
    dense = adj.to_dense()
    assert dense[1, 2] == 8.0 and dense[0, 1] == 2.0 and dense[2, 0] == 5.0
    assert adj._nnz() == 3
    assert_sparse_equal(adj, ref_fn(torch.from_numpy(ei), torch.from_numpy(w), 3))
    ones = ours_fn(ei, size=3)  # PyG: ones after merging, so 1 (not 3) for the triple edge
    assert ones.to_dense()[1, 2] == 1.0
    assert_sparse_equal(ones, ref_fn(torch.from_numpy(ei), None, 3))


@pytest.mark.parametrize("kind", list(KINDS))
def test_ones_follow_torch_default_dtype(kind):
    ours_fn, ref_fn, _ = KINDS[kind]
    ei = np.array([[0, 1], [1, 0]])
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        ours = ours_fn(ei)
        assert ours.dtype == torch.float64
        assert_sparse_equal(ours, ref_fn(torch.from_numpy(ei)))
    finally:
        torch.set_default_dtype(old)
    assert ours_fn(ei).dtype == torch.float32


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("id_dtype", ID_DTYPES)
def test_is_coalesced_true_matches_pyg_on_coalesced_input(kind, id_dtype):
    ours_fn, ref_fn, _ = KINDS[kind]
    ei, w = coalesce(random_graph(6, 6, 20, seed=3).astype(id_dtype), np.arange(20.0), 6)
    if kind == "csc":
        ei, w = coalesce(ei, w, 6, sort_by_row=False)
    ref = ref_fn(torch.from_numpy(ei.copy()), torch.from_numpy(w.copy()), 6, True)
    assert_sparse_equal(ours_fn(ei, w, 6, True), ref)


def test_other_id_dtypes_widen_to_int64():
    ei = np.array([[0, 2], [1, 0]], dtype=np.uint16)
    ref = P.to_torch_csr_tensor(torch.tensor([[0, 2], [1, 0]]), size=3)
    assert_sparse_equal(to_torch_csr_tensor(ei, size=3), ref)
    assert_sparse_equal(
        to_torch_coo_tensor(ei.astype(">i8"), size=3),
        P.to_torch_coo_tensor(torch.tensor([[0, 2], [1, 0]]), size=3),
    )


# ----------------------------------------------------------------------------- sharing


def _addr(a):
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("attr_dtype", [np.float32, np.float64, np.int64])
def test_coalesced_int64_input_is_shared_not_copied(attr_dtype):
    ei = coalesce(random_graph(8, 8, 30, seed=1).astype(np.int64), num_nodes=8)
    w = np.arange(ei.shape[1]).astype(attr_dtype)
    # shared with is_coalesced=True, as PyG (is_coalesced=False copies, as PyG's coalesce)
    coo = to_torch_coo_tensor(ei, w, size=8, is_coalesced=True)
    assert coo._indices().data_ptr() == _addr(ei) and coo._values().data_ptr() == _addr(w)
    csr = to_torch_csr_tensor(ei, w, size=8, is_coalesced=True)
    assert csr.col_indices().data_ptr() == _addr(ei[1])
    assert csr.values().data_ptr() == _addr(w)
    # writes go through: the tensor is a view of the caller's arrays
    csr.values()[0] = 42
    assert w[0] == 42
    ei_c, w_c = coalesce(ei, w, 8, sort_by_row=False)
    csc = to_torch_csc_tensor(ei_c, w_c, size=8, is_coalesced=True)
    assert csc.row_indices().data_ptr() == _addr(ei_c[0])
    assert csc.values().data_ptr() == _addr(w_c)


def test_int32_csr_shares_ids_and_coo_casts():
    ei = coalesce(random_graph(8, 8, 30, seed=2).astype(np.int32), num_nodes=8)
    csr = to_torch_csr_tensor(ei, size=8, is_coalesced=True)
    assert csr.col_indices().dtype == torch.int32
    assert csr.col_indices().data_ptr() == _addr(ei[1])
    coo = to_torch_coo_tensor(ei, size=8, is_coalesced=True)
    assert coo._indices().dtype == torch.int64
    assert not np.shares_memory(coo._indices().numpy(), ei)


def test_uncoalesced_input_is_copied_and_left_alone():
    ei = np.array([[2, 0, 1, 0], [0, 1, 2, 1]])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    before = ei.copy(), w.copy()
    for fn in (to_torch_coo_tensor, to_torch_csr_tensor, to_torch_csc_tensor):
        adj = fn(ei, w, size=3)
        ids, vals = _parts(adj)
        assert not any(np.shares_memory(i.numpy(), ei) for i in ids)
        assert not np.shares_memory(vals.numpy(), w)
        vals[0] = -1
    np.testing.assert_array_equal(ei, before[0])
    np.testing.assert_array_equal(w, before[1])


def test_non_contiguous_inputs_give_correct_tensors():
    ei = np.asfortranarray(np.array([[0, 1, 1, 2], [1, 0, 2, 2]]))
    w = np.arange(8.0).reshape(4, 2)[:, 1]  # strided
    te, tw = torch.from_numpy(np.ascontiguousarray(ei)), torch.from_numpy(w.copy())
    for kind, (ours_fn, ref_fn, _) in KINDS.items():
        if kind == "csc":
            continue  # not column-sorted: coalesced into new arrays
        ours = ours_fn(ei, w, 3, True)
        assert_sparse_equal(ours, ref_fn(te, tw, 3, True))
        assert torch.equal(ours.to_dense(), ref_fn(te, tw, 3, True).to_dense())


def test_read_only_inputs_copied_without_warnings():
    ei = coalesce(random_graph(5, 5, 12, seed=4).astype(np.int64), num_nodes=5)
    w = np.linspace(0, 1, ei.shape[1])
    ei.setflags(write=False)
    w.setflags(write=False)
    x = np.arange(12.0).reshape(6, 2)
    x.setflags(write=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="Sparse CS. tensor support is in beta")
        warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
        for fn, ref_fn, _ in KINDS.values():
            adj = fn(ei, w, size=5)
            assert_sparse_equal(
                adj, ref_fn(torch.from_numpy(ei.copy()), torch.from_numpy(w.copy()), 5)
            )
            _parts(adj)[1][0] = 7.0  # writable, and not the caller's memory
        jag = to_nested_tensor(x, ptr=np.array([0, 2, 6]), layout=torch.jagged)
        nested = to_nested_tensor(x, ptr=np.array([0, 2, 6]))
    assert w[0] == 0.0
    assert jag.values().data_ptr() != _addr(x)
    assert [tuple(p.shape) for p in nested.unbind()] == [(2, 2), (4, 2)]


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize("kind", list(KINDS))
def test_bad_input_errors_name_function_and_argument(kind):
    fn = KINDS[kind][0]
    name = fn.__name__
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    with pytest.raises(ValueError, match=rf"{name}: edge_index\[0\] has entry 2, out of range"):
        fn(ei, size=(2, 3))
    with pytest.raises(ValueError, match=rf"{name}: edge_index\[1\] has entry 2, out of range"):
        fn(ei, size=(3, 2))
    with pytest.raises(ValueError, match=rf"{name}: edge_index has a negative entry"):
        fn(np.array([[0, -1], [1, 0]]))
    with pytest.raises(ValueError, match=rf"{name}: edge_index\[1\] has a negative entry"):
        fn(np.array([[0, 1], [1, -1]]), size=3)
    with pytest.raises(TypeError, match=rf"{name}: edge_index must be an integer array"):
        fn(ei.astype(float), size=3)
    with pytest.raises(ValueError, match=rf"{name}: edge_index must have shape \[2, E\]"):
        fn(ei[:1], size=3)
    with pytest.raises(TypeError, match=rf"{name}: edge_index must be a NumPy or CuPy array"):
        fn(torch.from_numpy(ei), size=3)
    with pytest.raises(ValueError, match=rf"{name}: edge_attr must have one row per edge \(3\)"):
        fn(ei, np.ones(4), size=3)
    with pytest.raises(TypeError, match=rf"{name}: edge_attr must be a numeric"):
        fn(ei, np.ones(3, dtype=bool), size=3)
    with pytest.raises(ValueError, match=rf"{name}: size must be given for an edge_index without"):
        fn(np.zeros((2, 0), np.int64))
    with pytest.raises(ValueError, match=rf"{name}: size must be >= 0"):
        fn(ei, size=-1)
    with pytest.raises(TypeError, match=rf"{name}: size\[1\] must be a non-negative int"):
        fn(ei, size=(3, 2.5))
    with pytest.raises(ValueError, match=rf"{name}: size must be an int or a pair"):
        fn(ei, size=(3, 3, 3))
    with pytest.raises(TypeError, match=rf"{name}: is_coalesced must be True or False"):
        fn(ei, size=3, is_coalesced=None)
    order = "(col, row)" if kind == "csc" else "(row, col)"
    unsorted = np.array([[1, 0], [0, 1]]) if kind != "csc" else np.array([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=rf"{name}: is_coalesced=True but .* {re_escape(order)}"):
        fn(unsorted, size=2, is_coalesced=True)
    with pytest.raises(ValueError, match=rf"{name}: is_coalesced=True"):
        fn(np.array([[0, 0], [1, 1]]), size=2, is_coalesced=True)  # duplicates


def re_escape(s):
    import re

    return re.escape(s)


def test_bad_layout():
    with pytest.raises(ValueError, match="to_torch_sparse_tensor: layout must be torch.sparse_coo"):
        to_torch_sparse_tensor(np.array([[0], [1]]), layout=torch.strided)
    with pytest.raises(ValueError, match="to_torch_sparse_tensor: layout must be"):
        to_torch_sparse_tensor(np.array([[0], [1]]), layout="csr")
    with pytest.raises(ValueError, match=r"to_torch_csr_tensor: edge_index\[0\] has entry 1"):
        to_torch_sparse_tensor(np.array([[1], [0]]), size=(1, 2), layout=torch.sparse_csr)


# -------------------------------------------------------------------- the way back


def _tensors(seed):
    """Torch sparse tensors of every layout: uncoalesced COO, int32 CSR / CSC, hybrid
    values, an empty one."""
    rng = np.random.default_rng(seed)
    ei = torch.from_numpy(rng.integers(0, 5, (2, 12)))
    w = torch.from_numpy(rng.standard_normal(12))
    yield "coo-raw", torch.sparse_coo_tensor(ei, w, (5, 6))
    yield "coo", torch.sparse_coo_tensor(ei, w, (5, 6)).coalesce()
    yield "coo-hybrid", torch.sparse_coo_tensor(ei, torch.ones(12, 3), (5, 6, 3)).coalesce()
    dense = torch.from_numpy((rng.random((5, 6)) < 0.4) * rng.standard_normal((5, 6)))
    yield "csr", dense.to_sparse_csr()
    yield "csc", dense.to_sparse_csc()
    yield "csr-int32", P.to_torch_csr_tensor(ei.int(), w.float(), (5, 6))
    yield "csc-int32", P.to_torch_csc_tensor(ei.int(), w.float(), (5, 6))
    yield "csr-hybrid", P.to_torch_csr_tensor(ei, torch.ones(12, 2), (5, 6))
    yield "csr-empty", torch.zeros(3, 4).to_sparse_csr()
    yield "coo-empty", torch.zeros(3, 4).to_sparse()


with warnings.catch_warnings():  # torch's notices while the cases are built
    warnings.simplefilter("ignore")
    TENSORS = list(_tensors(0))


@pytest.mark.parametrize(("label", "adj"), TENSORS, ids=[k for k, _ in TENSORS])
def test_to_edge_index_of_torch_sparse_matches_pyg(label, adj):
    flag = adj.is_coalesced() if adj.layout == torch.sparse_coo else None
    ei, w = to_edge_index(adj)
    ref_ei, ref_w = P.to_edge_index(adj.clone())  # PyG marks a COO input coalesced
    assert isinstance(ei, np.ndarray) and isinstance(w, np.ndarray)
    assert ei.dtype == np.int64
    np.testing.assert_array_equal(ei, ref_ei.numpy())
    np.testing.assert_array_equal(w, ref_w.numpy())
    assert w.dtype == ref_w.numpy().dtype
    if flag is not None:
        assert adj.is_coalesced() == flag  # ours leaves the input as it was
    # the values are shared, as PyG's; the same through from_torch_sparse
    values = adj._values() if adj.layout == torch.sparse_coo else adj.values()
    if values.numel():
        assert w.ctypes.data == values.data_ptr()
    ei2, _ = from_torch_sparse(adj)
    np.testing.assert_array_equal(ei, ei2)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("id_dtype", ID_DTYPES)
def test_round_trip_gives_the_coalesced_edges(kind, id_dtype):
    ei = random_graph(6, 9, 40, seed=7).astype(id_dtype)
    w = np.random.default_rng(0).standard_normal((40, 2))
    adj = KINDS[kind][0](ei, w, size=(6, 9))
    back, bw = to_edge_index(adj)
    ref, rw = coalesce(ei, w, 9, sort_by_row=kind != "csc")
    np.testing.assert_array_equal(back, ref.astype(np.int64))
    np.testing.assert_allclose(bw, rw)


def test_to_edge_index_errors():
    with pytest.raises(ValueError, match="to_edge_index: adj must have layout sparse_coo"):
        to_edge_index(torch.eye(2))
    with pytest.raises(ValueError, match="to_edge_index: adj must have two sparse dimensions"):
        to_edge_index(torch.ones(2, 2, 2).to_sparse(3))
    with pytest.raises(TypeError, match="to_edge_index: adj has values of dtype torch.complex32"):
        to_edge_index(torch.eye(2).to(torch.complex32).to_sparse())  # (bfloat16: ml_dtypes)
    with pytest.raises(TypeError, match="from_torch_sparse: adj must be a torch sparse tensor"):
        from_torch_sparse(np.eye(2))
    with pytest.raises(TypeError, match="to_edge_index: adj must be a scipy.sparse"):
        to_edge_index(np.eye(2))


def test_is_sparse_and_is_torch_sparse_tensor_match_pyg():
    import scipy.sparse as sp

    objs = [
        torch.eye(2),
        torch.eye(2).to_sparse(),
        torch.eye(2).to_sparse_csr(),
        torch.eye(2).to_sparse_csc(),
        torch.eye(2).to_sparse_bsr((1, 1)),
        np.eye(2),
        None,
        [[1, 0]],
    ]
    for obj in objs:
        assert is_torch_sparse_tensor(obj) == P.is_torch_sparse_tensor(obj)
        assert is_sparse(obj) == P.is_sparse(obj)
    # SciPy matrices are the array world's sparse adjacency (PyG: False)
    assert is_sparse(sp.csr_matrix(np.eye(2))) and not is_torch_sparse_tensor(sp.eye(2))


# ----------------------------------------------------------------------------- nested


def _pieces(nt):
    return [p for p in nt.unbind()]


def assert_nested_equal(ours, ref):
    assert ours.is_nested and ours.layout == ref.layout
    assert ours.dtype == ref.dtype and ours.size(0) == ref.size(0)
    for a, b in zip(_pieces(ours), _pieces(ref)):
        assert a.shape == b.shape and torch.equal(a, b)


NESTED = [
    ("empty-graphs-inside", dict(batch=np.array([0, 0, 2, 2, 2, 4]))),
    ("empty-graphs-at-end", dict(batch=np.array([0, 1, 1, 1, 1, 3]), batch_size=6)),
    ("batch-int32", dict(batch=np.array([1, 1, 1, 2, 2, 2], np.int32))),
    ("ptr", dict(ptr=np.array([0, 2, 2, 6]))),
    ("ptr-offset", dict(ptr=np.array([3, 4, 9]))),
    ("ptr-and-batch", dict(ptr=np.array([0, 6]), batch=np.zeros(6, np.int64), batch_size=3)),
    ("one-piece", {}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("trailing", [(), (3,), (2, 2)])
@pytest.mark.parametrize(("label", "kw"), NESTED, ids=[k for k, _ in NESTED])
def test_to_nested_tensor_matches_pyg(dtype, trailing, label, kw):
    x = np.arange(6 * int(np.prod(trailing)), dtype=dtype).reshape((6, *trailing))
    before = x.copy()
    ours = to_nested_tensor(x, **kw)
    ref_kw = {
        k: (torch.from_numpy(v.astype(np.int64)) if k != "batch_size" else v) for k, v in kw.items()
    }
    ref = P.to_nested_tensor(torch.from_numpy(x.copy()), **ref_kw)
    assert_nested_equal(ours, ref)
    np.testing.assert_array_equal(x, before)
    # the jagged layout wraps x itself: the same pieces, no copy
    jag = to_nested_tensor(x, **kw, layout=torch.jagged)
    assert jag.layout == torch.jagged and jag.values().data_ptr() == _addr(x)
    assert all(torch.equal(a, b) for a, b in zip(_pieces(jag), _pieces(ref)))
    # and back, as PyG
    out, batch = from_nested_tensor(ours, return_batch=True)
    ref_out, ref_batch = P.from_nested_tensor(ref, return_batch=True)
    np.testing.assert_array_equal(out, ref_out.numpy())
    np.testing.assert_array_equal(batch, ref_batch.numpy())
    assert out.dtype == x.dtype and batch.dtype == np.int64
    j_out, j_batch = from_nested_tensor(jag, return_batch=True)
    np.testing.assert_array_equal(j_out, x)
    np.testing.assert_array_equal(j_batch, ref_batch.numpy())


def test_nested_with_no_rows_and_no_pieces():
    x = np.zeros((0, 3), np.float32)
    ours = to_nested_tensor(x, batch=np.zeros(0, np.int64), batch_size=2)
    ref = P.to_nested_tensor(
        torch.zeros(0, 3), batch=torch.zeros(0, dtype=torch.long), batch_size=2
    )
    assert_nested_equal(ours, ref)
    none = to_nested_tensor(x, batch=np.zeros(0, np.int64))
    assert none.is_nested and none.size(0) == 0
    out, batch = from_nested_tensor(none, return_batch=True)
    assert out.shape == (0,) and batch.shape == (0,)
    only_empty = torch.nested.nested_tensor([torch.zeros(0, 3), torch.zeros(0, 3)])
    out, batch = from_nested_tensor(only_empty, return_batch=True)
    ref_out, ref_batch = P.from_nested_tensor(only_empty, return_batch=True)
    assert out.shape == tuple(ref_out.shape) == (0, 3) and batch.shape == (0,)


def test_from_nested_tensor_shares_the_buffer():
    nt = torch.nested.nested_tensor([torch.ones(2, 3), torch.zeros(1, 3)])
    out = from_nested_tensor(nt)
    assert out.ctypes.data == nt.values().data_ptr()
    assert isinstance(out, np.ndarray) and out.shape == (3, 3)


def test_nested_errors():
    x = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match="to_nested_tensor: batch must be sorted"):
        to_nested_tensor(x, batch=np.array([0, 1, 0, 1, 1, 1]))
    with pytest.raises(ValueError, match=r"to_nested_tensor: batch must have shape \(6,\)"):
        to_nested_tensor(x, batch=np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="to_nested_tensor: batch has entry 3, out of range"):
        to_nested_tensor(x, batch=np.array([0, 0, 1, 1, 3, 3]), batch_size=2)
    with pytest.raises(ValueError, match="to_nested_tensor: batch has a negative entry"):
        to_nested_tensor(x, batch=np.array([-1, 0, 0, 1, 1, 1]))
    with pytest.raises(TypeError, match="to_nested_tensor: batch must be an integer array"):
        to_nested_tensor(x, batch=np.zeros(6))
    with pytest.raises(ValueError, match="to_nested_tensor: ptr must be non-decreasing"):
        to_nested_tensor(x, ptr=np.array([0, 4, 3, 6]))
    with pytest.raises(ValueError, match="to_nested_tensor: ptr spans 5 rows"):
        to_nested_tensor(x, ptr=np.array([0, 5]))
    with pytest.raises(ValueError, match="to_nested_tensor: ptr must have shape"):
        to_nested_tensor(x, ptr=np.zeros(0, np.int64))
    with pytest.raises(TypeError, match="to_nested_tensor: x must be a NumPy or CuPy array"):
        to_nested_tensor(torch.ones(2, 2))
    with pytest.raises(TypeError, match="to_nested_tensor: x must be a numeric or boolean"):
        to_nested_tensor(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="to_nested_tensor: x must have at least one dimension"):
        to_nested_tensor(np.array(1.0))
    with pytest.raises(ValueError, match="to_nested_tensor: layout must be torch.strided"):
        to_nested_tensor(x, layout=torch.sparse_coo)
    with pytest.raises(ValueError, match="from_nested_tensor: x is not a nested tensor"):
        from_nested_tensor(torch.ones(2, 2))
    with pytest.raises(TypeError, match="from_nested_tensor: x must be a nested torch tensor"):
        from_nested_tensor(x)
    ragged = torch.nested.nested_tensor([torch.ones(2, 2), torch.ones(2, 3)])
    with pytest.raises(
        ValueError,
        match="from_nested_tensor: not all nested tensors have the same size in dimension 1",
    ):
        from_nested_tensor(ragged)
    with pytest.raises(TypeError, match="from_nested_tensor: return_batch must be True or False"):
        from_nested_tensor(torch.nested.nested_tensor([torch.ones(2)]), return_batch="yes")
