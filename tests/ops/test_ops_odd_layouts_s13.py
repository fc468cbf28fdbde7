"""Odd array layouts and dtypes through the engine (``arraygnn.ops``) and the DGL face's
``gspmm`` / ``gsddmm``: the same values in another byte order, memory order, stride,
read-only or memory-mapped array, or another index dtype give the plain array's result
bit for bit (docs/ops.md: deterministic, results in native byte order); bad dtypes are a
``TypeError`` / ``ValueError`` naming the argument; nothing passed in is modified."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from arraygnn import ops
from arraygnn.ops._common import check_index, index_bounds
from arraygnn.ops.gather import add_rows
from arraygnn.ops.typed import typed_spmm

BIG = ">" if np.little_endian else "<"  # the other byte order


def _frozen(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


def _memmap(a, tmp_path_factory):
    path = tmp_path_factory.mktemp("mm") / "a.bin"
    m = np.memmap(path, dtype=a.dtype, mode="w+", shape=a.shape)
    m[...] = a
    m.flush()
    return np.memmap(path, dtype=a.dtype, mode="r", shape=a.shape)


def _wide_cols(a):
    """``a`` as every other column of a twice-as-wide array (a non-unit last stride)."""
    w = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
    w[..., ::2] = a
    return w[..., ::2]


# value layouts: name -> the same values in another form
VALUE_FORMS = {
    "big_endian": lambda a: a.astype(a.dtype.newbyteorder(BIG)),
    "fortran": np.asfortranarray,
    "transposed_copy": lambda a: a.T.copy().T,
    "rows_strided": lambda a: np.repeat(a, 2, axis=0)[::2],
    "cols_strided": _wide_cols,
    "negative_stride": lambda a: np.ascontiguousarray(a[::-1])[::-1],
    "read_only": _frozen,
    "big_fortran_read_only": lambda a: _frozen(
        np.asfortranarray(a.astype(a.dtype.newbyteorder(BIG)))
    ),
}

# 1-D index forms (values small and non-negative)
INDEX_FORMS = {
    **{
        str(np.dtype(t)): partial(np.asarray, dtype=t)
        for t in (np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64)
    },
    "big_endian_int64": lambda i: i.astype(BIG + "i8"),
    "big_endian_uint32": lambda i: i.astype(BIG + "u4"),
    "int32_strided": lambda i: np.repeat(i.astype(np.int32), 2)[::2],
    "negative_stride": lambda i: np.ascontiguousarray(i[::-1])[::-1],
    "read_only": _frozen,
}

# [2, E] edge-index forms
EDGE_FORMS = {
    **{name: f for name, f in INDEX_FORMS.items() if name != "int32_strided"},
    "fortran": np.asfortranarray,
    "edge_strided": lambda ei: np.repeat(ei, 2, axis=1)[:, ::2],
    "from_E2_transposed": lambda ei: np.ascontiguousarray(ei.T).T,
    "tuple_mixed_dtypes": lambda ei: (ei[0].astype(np.uint16), ei[1].astype(BIG + "i8")),
}

N, E, F = 5, 9, 3
_rng = np.random.default_rng(13)
EI = np.array([[0, 1, 2, 4, 4, 3, 0, 2, 1], [1, 2, 2, 0, 3, 3, 1, 0, 1]])
X = _rng.standard_normal((N, F)).astype(np.float32)
# F > 8: on this small edge list spmm's gather + scatter route (SMALL_MESSAGES), on a CSR
# the CSR kernel
X_WIDE = _rng.standard_normal((N, 12)).astype(np.float64)
XH = _rng.standard_normal((N, 2, F)).astype(np.float32)
W = _rng.standard_normal(E).astype(np.float32)
WH = _rng.standard_normal((E, 2)).astype(np.float32)
LOGITS = _rng.standard_normal((E, 2)).astype(np.float64)
A = _rng.standard_normal((E, 4)).astype(np.float32)
B = _rng.standard_normal((3, 4, 2)).astype(np.float32)
IDX_B = np.array([0, 2, 1, 1, 0, 2, 2, 0, 1])
PTR = np.array([0, 2, 2, 5, 9])
CSR = ops.to_csr(EI, N, N)
REL = np.array([0, 1, 0, 0, 1, 1, 0, 1, 0])  # slot order, any grouping is valid input
BLOCKS = _rng.standard_normal((2, 1, F, 2)).astype(np.float32)


def _value_calls():
    """name -> (function of the value arrays, the plain value arrays)."""
    return {
        "gather": (lambda x: ops.gather(x, EI[0]), (X,)),
        "scatter_max": (lambda a: ops.scatter(a, EI[1], N, "max"), (A,)),
        "scatter_mean": (lambda a: ops.scatter(a, EI[1], N, "mean"), (A,)),
        "segment_sum": (lambda a: ops.segment(a, PTR, "sum"), (A,)),
        "spmm_narrow_w": (lambda x, w: ops.spmm(EI, x, w, "sum"), (X, W)),
        "spmm_wide_mean": (lambda x: ops.spmm(EI, x, reduce="mean"), (X_WIDE,)),
        "spmm_wide_csr_mean": (lambda x: ops.spmm(CSR, x, reduce="mean"), (X_WIDE,)),
        "spmm_csr_heads": (lambda x, w: ops.spmm(CSR, x, w, "max"), (XH, WH)),
        "sddmm_dot_uv": (lambda a, b: ops.sddmm(EI, a, b, "dot"), (X, X)),
        "sddmm_mul_ue_csr": (lambda a, b: ops.sddmm(CSR, a, b, "mul", "u", "e"), (X, A[:, :F])),
        "sddmm_copy_rhs_v": (lambda b: ops.sddmm(EI, None, b, "copy_rhs", "u", "v"), (X,)),
        "sddmm_copy_e": (lambda a: ops.sddmm(EI, a, None, "copy_lhs", "e"), (A,)),
        "edge_softmax": (lambda z: ops.edge_softmax(EI, z, N), (LOGITS,)),
        "edge_softmax_1col_csr": (lambda z: ops.edge_softmax(CSR, z), (LOGITS[:, :1],)),
        "gather_mm": (lambda a, b: ops.gather_mm(a, b, idx_b=IDX_B), (A, B)),
        "segment_mm": (lambda a, b: ops.segment_mm(a, b, np.array([2, 3, 4])), (A, B)),
        "typed_spmm": (
            lambda x, bl, w: typed_spmm(CSR, REL, x, bl, "mean", w),
            (X, BLOCKS, W),
        ),
    }


VALUE_CALLS = _value_calls()


def _same(got, want):
    assert got.dtype == want.dtype and got.dtype.isnative, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# A read-only NumPy array reaches a kernel as such and Numba compiles each kernel once
# more for it (seconds on a cold cache): a few calls are enough (every other case checks
# that its inputs are unchanged, and "big_fortran_read_only" is read-only too).
READ_ONLY_CALLS = ("gather", "spmm_narrow_w", "gather_mm")


@pytest.mark.parametrize(
    ("call", "form"),
    [(c, f) for c in VALUE_CALLS for f in VALUE_FORMS if f != "read_only" or c in READ_ONLY_CALLS],
)
def test_value_layouts_give_the_plain_bits(call, form):
    fn, plain = VALUE_CALLS[call]
    want = fn(*plain)
    odd = [VALUE_FORMS[form](a) for a in plain]
    before = [a.copy() for a in odd]
    got = fn(*odd)
    if call == "gather":  # a copy of rows keeps x's dtype, as x[index] (docs/ops.md)
        assert got.dtype == odd[0].dtype
        got = got.astype(want.dtype)
    _same(got, want)
    for a, b in zip(odd, before):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_memmap_values_and_indices(tmp_path_factory):
    x = _memmap(X, tmp_path_factory)
    ei = _memmap(EI.astype(np.uint32), tmp_path_factory)
    _same(ops.spmm(ei, x, reduce="sum"), ops.spmm(EI, X, reduce="sum"))
    _same(ops.gather(x, ei[0]), ops.gather(X, EI[0]))
    _same(ops.sddmm(ei, x, x, "add"), ops.sddmm(EI, X, X, "add"))


def _index_calls():
    """name -> function of an index form (applied to the index it passes)."""
    seglen = np.array([2, 3, 4])
    return {
        "gather": lambda f: ops.gather(X, f(EI[1])),
        "scatter_sum": lambda f: ops.scatter(A, f(EI[1]), N, "sum"),
        "scatter_min_sorted": lambda f: ops.scatter(A, f(np.sort(EI[1])), N, "min"),
        "segment": lambda f: ops.segment(A, f(PTR), "max"),
        "gather_mm": lambda f: ops.gather_mm(A, B, idx_b=f(IDX_B)),
        "typed_spmm_rel": lambda f: typed_spmm(CSR, f(REL), X, BLOCKS, "sum"),
        "add_rows": lambda f: add_rows(
            np.zeros((N, F)), f(np.array([4, 0, 2])), X[:3].astype(float)
        ),
        "segment_mm_seglen": lambda f: ops.segment_mm(A, B, f(seglen)),
    }


INDEX_CALLS = _index_calls()


@pytest.mark.parametrize(
    ("call", "form"),
    [
        (c, f)
        for c in INDEX_CALLS
        for f in INDEX_FORMS
        if f != "read_only" or c in ("gather", "scatter_sum", "add_rows", "segment_mm_seglen")
    ],
)
def test_index_forms_give_the_plain_bits(call, form):
    fn = INDEX_CALLS[call]
    made = []

    def odd(i):
        made.append((INDEX_FORMS[form](i), i.copy()))
        return made[-1][0]

    _same(fn(odd), fn(lambda i: i))
    for a, plain in made:  # not modified
        np.testing.assert_array_equal(a, plain)


def _edge_calls():
    """name -> function of one [2, E] edge-index form."""
    return {
        "to_csr": lambda ei: ops.to_csr(ei, N, N),
        "spmm_narrow": lambda ei: ops.spmm(ei, X, W, "mean"),
        "spmm_wide": lambda ei: ops.spmm(ei, X_WIDE, W.astype(np.float64), "min"),
        "spmm_heads": lambda ei: ops.spmm(ei, XH, WH, "sum", num_dst_nodes=N),
        "sddmm_dot": lambda ei: ops.sddmm(ei, X, X, "dot"),
        "sddmm_sub_ev": lambda ei: ops.sddmm(ei, A[:, :F], X, "sub", "e", "v"),
        "sddmm_copy_u": lambda ei: ops.sddmm(ei, X, None, "copy_lhs"),
        "edge_softmax_n": lambda ei: ops.edge_softmax(ei, LOGITS, N),
        "edge_softmax_1d": lambda ei: ops.edge_softmax(ei, LOGITS[:, 0]),
    }


EDGE_CALLS = _edge_calls()


def _same_csr(got, want):
    for name in ("indptr", "indices", "perm", "src", "dst"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype.isnative and a.dtype.kind == "i", (name, a.dtype)
        assert a.flags.c_contiguous and not a.flags.writeable, name
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("form", list(EDGE_FORMS))
@pytest.mark.parametrize("call", list(EDGE_CALLS))
def test_edge_index_forms_give_the_plain_bits(call, form):
    fn = EDGE_CALLS[call]
    odd = EDGE_FORMS[form](EI)
    parts = odd if isinstance(odd, tuple) else (odd,)
    before = [p.copy() for p in parts]
    got, want = fn(odd), fn(EI)
    if call == "to_csr":
        _same_csr(got, want)
        # the CSR built from odd arrays runs the ops as the plain one
        _same(ops.spmm(got, X_WIDE, reduce="max"), ops.spmm(want, X_WIDE, reduce="max"))
    else:
        _same(got, want)
    for p, b in zip(parts, before):
        assert p.dtype == b.dtype
        np.testing.assert_array_equal(p, b)


@pytest.mark.parametrize("form", ["uint16", "big_endian_int64", "negative_stride", "read_only"])
def test_csr_built_from_odd_arrays(form):
    f = INDEX_FORMS[form]
    parts = [CSR.indptr, CSR.indices, CSR.perm, CSR.src, CSR.dst]
    csr = ops.CSR(*(f(np.array(p)) for p in parts), N, N)
    _same_csr(csr, CSR)
    _same(ops.spmm(csr, X_WIDE, W.astype(np.float64)), ops.spmm(CSR, X_WIDE, W.astype(np.float64)))


# ------------------------------------------------------------------ bad dtypes / ranks
BAD_INDEX = {
    "float": (np.array([0.0, 1.0]), TypeError),
    "bool": (np.array([True, False]), TypeError),
    "object": (np.array([0, 1], dtype=object), TypeError),
    "zero_d": (np.array(1), ValueError),
    "uint64_2**63": (np.array([0, 2**63], dtype=np.uint64), ValueError),
    "int8_negative": (np.array([0, -1], dtype=np.int8), ValueError),
}


def _bad_index_calls():
    """name -> (function of a 2-entry index, the name its error must contain)."""
    x2 = X[:2]
    return {
        "gather": (lambda i: ops.gather(X, i), "index"),
        "scatter": (lambda i: ops.scatter(x2, i, N), "index"),
        "segment": (lambda i: ops.segment(x2, i), "ptr"),
        "gather_mm": (lambda i: ops.gather_mm(A[:2], B, idx_b=i), "idx_b"),
        "segment_mm": (lambda i: ops.segment_mm(A[:1], B[:2], i), "seglen_a"),
        "to_csr_src": (lambda i: ops.to_csr((i, np.array([0, 1])), N, N), "edge_index"),
        "spmm_dst": (lambda i: ops.spmm((np.array([0, 1]), i), X), "edge_index"),
        "sddmm_src": (lambda i: ops.sddmm((i, np.array([0, 1])), X, X), "edge_index"),
        "edge_softmax_dst": (
            lambda i: ops.edge_softmax((np.array([0, 1]), i), np.zeros(2), N),
            "edge_index",
        ),
        "typed_spmm_rel": (
            lambda i: typed_spmm(ops.to_csr(np.array([[0, 1], [1, 1]]), N, N), i, X, BLOCKS),
            "rel",
        ),
        "add_rows": (lambda i: add_rows(np.zeros((N, F)), i, np.ones((2, F))), "index"),
        "check_index": (lambda i: check_index("my_ids", i, N), "my_ids"),
    }


BAD_INDEX_CALLS = _bad_index_calls()


@pytest.mark.parametrize("bad", list(BAD_INDEX))
@pytest.mark.parametrize("call", list(BAD_INDEX_CALLS))
def test_bad_index_is_a_named_error(call, bad):
    fn, name = BAD_INDEX_CALLS[call]
    index, err = BAD_INDEX[bad]
    if call == "segment_mm" and bad in ("zero_d",):
        err = ValueError
    if call == "segment" and bad == "int8_negative":
        index = np.array([-1, 1], dtype=np.int8)
    if call == "segment_mm" and bad == "uint64_2**63":
        index = np.array([2**63, 2**63], dtype=np.uint64)  # sums to 2**64: not a wrap to 0
    with pytest.raises(err, match=name.replace("[", r"\[").replace("]", r"\]")):
        fn(index)


def test_index_bounds_of_odd_forms():
    i = np.array([3, 0, 7, 2])
    for f in INDEX_FORMS.values():
        assert index_bounds(f(i)) == (0, 7)
    assert index_bounds(np.array([2**63, 1], dtype=np.uint64)) == (1, 2**63)
    big = np.arange(1 << 16, dtype=np.int64)[::-1]  # the one-pass kernel, negative stride
    assert index_bounds(big) == (0, (1 << 16) - 1)
    assert index_bounds(_frozen(np.repeat(big.astype(np.int32), 2)[::2])) == (0, (1 << 16) - 1)


BAD_VALUES = {
    "complex": np.ones((N, F), dtype=np.complex64),
    "object": np.ones((N, F), dtype=object),
    "str": np.full((N, F), "a"),
    "bool": np.ones((N, F), dtype=bool),
    "datetime": np.zeros((N, F), dtype="datetime64[s]"),
}


def _bad_value_calls():
    """name -> (function of a [N, F] value array, the name its error must contain)."""
    return {
        "scatter": (lambda v: ops.scatter(v, np.arange(N), N), "src"),
        "segment": (lambda v: ops.segment(v, np.array([0, N])), "src"),
        "spmm_x": (lambda v: ops.spmm(EI, v), "x"),
        "spmm_weight": (lambda v: ops.spmm(EI, X, v[:, 0][np.arange(E) % N]), "edge_weight"),
        "sddmm_rhs": (lambda v: ops.sddmm(EI, X, v, "add"), "rhs"),
        "edge_softmax": (lambda v: ops.edge_softmax(EI, v[np.arange(E) % N]), "logits"),
        "gather_mm": (lambda v: ops.gather_mm(v[:, :1], B[:, :1], idx_b=np.zeros(N, int)), "a"),
        "typed_spmm": (lambda v: typed_spmm(CSR, REL, v, BLOCKS), "x"),
    }


BAD_VALUE_CALLS = _bad_value_calls()


@pytest.mark.parametrize("bad", list(BAD_VALUES))
@pytest.mark.parametrize("call", list(BAD_VALUE_CALLS))
def test_bad_values_are_a_named_error(call, bad):
    fn, name = BAD_VALUE_CALLS[call]
    with pytest.raises(TypeError, match=rf"\b{name}\b"):
        fn(BAD_VALUES[bad])


@pytest.mark.parametrize("dtype", ["complex128", "str", "object", "bool"])
def test_gather_takes_any_dtype(dtype):
    x = np.arange(N * 2).reshape(N, 2).astype(dtype)
    for form in ("big_endian", "fortran", "cols_strided", "read_only"):
        if form == "big_endian" and x.dtype.kind in "OUb":
            continue
        got = ops.gather(VALUE_FORMS[form](x), EI[0])
        np.testing.assert_array_equal(got, x[EI[0]])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8])
def test_value_dtypes_keep_their_dtype(dtype):
    """Float16 sums in float32; integers run the reference (floor mean); the result has
    the values' (native) dtype, in either byte order."""
    x = (np.arange(N * F).reshape(N, F) % 7).astype(dtype)
    for form in ("big_endian", "fortran", "cols_strided"):
        odd = VALUE_FORMS[form](x)
        _same(ops.spmm(EI, odd, reduce="mean"), ops.spmm(EI, x, reduce="mean"))
        _same(ops.scatter(odd[EI[0]], EI[1], N, "max"), ops.scatter(x[EI[0]], EI[1], N, "max"))
        _same(ops.sddmm(EI, odd, odd, "mul"), ops.sddmm(EI, x, x, "mul"))
    assert ops.spmm(EI, x).dtype == np.dtype(dtype)
    if np.dtype(dtype).kind != "f":
        with pytest.raises(TypeError, match="logits"):
            ops.edge_softmax(EI, x[:, 0][np.arange(E) % N])
        with pytest.raises(TypeError, match=r"\ba\b"):
            ops.gather_mm(x[:, :1], B[:, :1], idx_b=np.zeros(N, int))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gather_mm_dtypes_in_either_byte_order(dtype):
    a, b = A.astype(dtype), B.astype(dtype)
    for f in (VALUE_FORMS["big_endian"], VALUE_FORMS["cols_strided"]):
        _same(ops.gather_mm(f(a), f(b), idx_b=IDX_B), ops.gather_mm(a, b, idx_b=IDX_B))
        _same(
            ops.segment_mm(f(a), f(b), np.array([4, 0, 5])),
            ops.segment_mm(a, b, np.array([4, 0, 5])),
        )


def test_zero_d_values_are_a_named_error():
    z = np.array(1.0)
    calls = {
        "x": lambda: ops.gather(z, EI[0]),
        "src": lambda: ops.scatter(z, EI[1], N),
        "src ": lambda: ops.segment(z, PTR),
        "x ": lambda: ops.spmm(EI, z),
        "edge_weight": lambda: ops.spmm(EI, X, z),
        "lhs": lambda: ops.sddmm(EI, z, X),
        "logits": lambda: ops.edge_softmax(EI, z),
        "a": lambda: ops.gather_mm(z, B, idx_b=IDX_B),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=rf"\b{name.strip()}\b"):
            call()


def test_add_rows_out_read_only_or_other_byte_order():
    """add_rows writes into out: a read-only out is a named error (a Numba typing error
    before); values in the other byte order are the same float dtype (refused before)."""
    out = _frozen(np.zeros((N, F)))
    with pytest.raises(ValueError, match="out is read-only"):
        add_rows(out, np.array([1]), np.ones((1, F)))
    assert not out.any()
    want = add_rows(np.zeros((N, F)), np.array([3, 1]), X[:2].astype(np.float64))
    for out_dt, val_dt in ((BIG + "f8", BIG + "f8"), ("f8", BIG + "f8"), (BIG + "f8", "f8")):
        got = add_rows(np.zeros((N, F), out_dt), np.array([3, 1]), X[:2].astype(val_dt))
        assert got.dtype == np.dtype(out_dt)  # updated in place: out keeps its dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="one float dtype"):
        add_rows(np.zeros((N, F)), np.array([1]), np.ones((1, F), np.float32))


# ------------------------------------------------------------------ empty and size-1
def test_empty_and_size_one_arrays():
    e0 = np.zeros((2, 0), dtype=np.uint16)
    x0 = np.zeros((N, F), dtype=BIG + "f4")
    out = ops.spmm(e0, x0)
    assert out.shape == (N, F) and out.dtype.isnative and not out.any()
    assert ops.sddmm(e0, x0, x0, "dot").shape == (0, 1)
    assert ops.edge_softmax(e0, np.zeros((0, 2))).shape == (0, 2)
    assert ops.gather(x0, np.zeros(0, np.uint8)).shape == (0, F)
    assert ops.scatter(np.zeros((0, F)), np.zeros(0, np.int8), 3).shape == (3, F)
    assert ops.segment(np.zeros((0, F)), np.zeros(1, np.uint64)).shape == (0, F)
    assert ops.to_csr(e0, 0, 0).indptr.tolist() == [0]
    assert ops.gather_mm(np.zeros((0, 4)), B, idx_b=np.zeros(0, np.uint8)).shape == (0, 2)
    assert ops.segment_mm(np.zeros((0, 4), np.float32), B, np.zeros(3, np.uint8)).shape == (0, 2)
    # size-1 dims: one node, one edge, one feature
    ei1 = np.array([[0], [0]], dtype=np.uint8)
    x1 = np.asfortranarray(np.array([[2.5]], dtype=BIG + "f8"))
    assert ops.spmm(ei1, x1, np.array([2.0], BIG + "f8")).tolist() == [[5.0]]
    assert ops.sddmm(ei1, x1, x1, "dot").tolist() == [[6.25]]
    assert ops.edge_softmax(ei1, np.array([[3.0]])).tolist() == [[1.0]]
    assert ops.gather_mm(x1, np.ones((1, 1, 1)), idx_b=np.zeros(1, np.uint64)).tolist() == [[2.5]]


# ------------------------------------------------------------------ the DGL face
dgl_ops = pytest.importorskip("arraygnn.graph.ops")


@pytest.mark.parametrize("form", ["big_endian", "fortran", "cols_strided"])
def test_dgl_gspmm_gsddmm_value_forms(form):
    from arraygnn.graph import graph

    g = graph((EI[0], EI[1]), num_nodes=N)
    f = VALUE_FORMS[form]
    x, e = X, A[:, :F].copy()
    xo, eo = f(x), f(e)
    for op in ("add", "mul", "div", "copy_lhs", "copy_rhs"):
        for red in ("sum", "max", "mean"):
            _same(dgl_ops.gspmm(g, op, red, xo, eo), dgl_ops.gspmm(g, op, red, x, e))
    for op in ("dot", "sub", "copy_lhs"):
        _same(dgl_ops.gsddmm(g, op, xo, xo), dgl_ops.gsddmm(g, op, x, x))
        _same(dgl_ops.gsddmm(g, op, eo, xo, "e", "v"), dgl_ops.gsddmm(g, op, e, x, "e", "v"))
    np.testing.assert_array_equal(xo, x)


def test_dgl_face_odd_graph_ids():
    from arraygnn.graph import graph

    plain = graph((EI[0], EI[1]), num_nodes=N)
    for form in ("uint16", "big_endian_int64", "negative_stride", "read_only"):
        f = INDEX_FORMS[form]
        g = graph((f(EI[0]), f(EI[1])), num_nodes=N)
        _same(
            dgl_ops.gspmm(g, "mul", "sum", X, W[:, None]),
            dgl_ops.gspmm(plain, "mul", "sum", X, W[:, None]),
        )
        _same(dgl_ops.gsddmm(g, "dot", X, X), dgl_ops.gsddmm(plain, "dot", X, X))
