"""Review of the session-14 engine commits 824727e / 1db670a (small-graph per-call costs):
``to_csr``'s one-call build of small NumPy edge lists, the GCN normalisation kernels,
``kernel_function``'s ``sys.modules`` fast path, and ``index_bounds`` on small arrays."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import numpy as np
import pytest

from arraygnn import config, ops
from arraygnn.kernels.cpu import csr as csr_kernels
from arraygnn.ops import _common
from arraygnn.ops import csr as csr_module

_PARTS = ("indptr", "indices", "perm", "src", "dst")


def _build(monkeypatch, edge_index, n_src, n_dst, general):
    with monkeypatch.context() as m:
        if general:
            m.setattr(csr_module, "SMALL_CSR_WORK", -1)
        try:
            return ops.to_csr(edge_index, n_src, n_dst)
        except ValueError as err:
            return str(err)


def _assert_same_csr(got, want, label):
    if isinstance(want, str):
        assert got == want, label
        return
    assert got.perm_is_identity == want.perm_is_identity, label
    for part in _PARTS:
        a, b = getattr(got, part), getattr(want, part)
        assert type(a) is np.ndarray and not a.flags.writeable and a.flags.owndata, label
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (label, part)


def test_int32_edges_with_a_huge_source_count_get_the_general_int64_csr(monkeypatch):
    """CSR's RULE (and the general path): int32 only when every size fits. The one-call
    build kept int32 for num_src_nodes >= 2**31 - 1 (it bounded edges + targets only)."""
    ei = np.array([[5, 0, 2], [1, 0, 1]], dtype=np.int32)
    for n_src in (2**31 - 1, 2**32):
        got = ops.to_csr(ei, n_src, 2)
        assert got.index_dtype == np.dtype(np.int64)
        _assert_same_csr(got, _build(monkeypatch, ei, n_src, 2, True), n_src)


def test_one_call_build_matches_the_general_path_on_odd_inputs(monkeypatch, tmp_path):
    """Halves sharing memory, a memmap, Fortran-ordered rows, int32 at the edge of its
    range, 0 edges / 0 targets, bad ids (the same messages): the arrays, dtypes and flags
    of the general path, fresh read-only arrays, the input untouched."""
    mm = np.memmap(tmp_path / "ei.bin", dtype=np.int64, mode="w+", shape=(2, 4))
    mm[:] = [[1, 0, 2, 2], [1, 0, 1, 1]]
    shared = np.array([0, 1, 1, 0, 1], dtype=np.int64)
    top = 2**31 - 3  # num_src_nodes 2**31 - 2: int32 still fits
    cases = {
        "same array twice": ((shared, shared), 2, 2),
        "overlapping halves": ((shared[:4], shared[1:]), 2, 2),
        "memmap": (mm, 3, 3),
        "memmap rows": ((mm[0], mm[1]), 3, 3),
        "fortran [2, 1]": (np.asfortranarray([[2], [0]]), 3, 1),
        "int32 range edge": (np.array([[top, 0], [1, 0]], np.int32), top + 1, 2),
        "no edges": (np.zeros((2, 0), np.int64), 0, 3),
        "no targets": (np.zeros((2, 0), np.int32), 3, 0),
        "target with no rows": (np.zeros((2, 1), np.int64), 1, 0),
        "bad source": (np.array([[0, 9], [0, -1]], np.int32), 3, 2),
        "bad target": (np.array([[0, 1], [0, -4]], np.int64), 3, 2),
    }
    for label, (ei, n_src, n_dst) in cases.items():
        before = [np.array(a, copy=True) for a in (ei if isinstance(ei, tuple) else (ei,))]
        want = _build(monkeypatch, ei, n_src, n_dst, True)
        _assert_same_csr(_build(monkeypatch, ei, n_src, n_dst, False), want, label)
        for a, b in zip(ei if isinstance(ei, tuple) else (ei,), before):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("position", "part"), [(2, "indptr"), (3, "indices"), (5, "src"), (6, "dst")]
)
def test_validate_compares_every_output_of_the_one_call_build(monkeypatch, position, part):
    """``settings.validate`` checked only ``perm`` (and the sortedness flag) of
    ``small_csr``: a kernel writing wrong indptr / indices / copies passed."""
    real = csr_kernels.small_csr

    def wrong(*args):
        flag = real(*args)
        args[position][-1] += 1  # corrupt one output after a correct build
        return flag

    monkeypatch.setattr(csr_kernels, "small_csr", wrong)
    ei = np.array([[0, 1, 2], [1, 0, 1]])
    right = getattr(_build(monkeypatch, ei, 3, 2, True), part)
    assert getattr(ops.to_csr(ei, 3, 2), part)[-1] == right[-1] + 1  # unnoticed
    with config(validate=True), pytest.raises(AssertionError, match="small_csr"):
        ops.to_csr(ei, 3, 2)


def test_kernel_function_reads_sys_modules_as_the_import_system_does(monkeypatch):
    """An entry without ``__spec__`` (a namespace a test put in ``sys.modules``) is used as
    ``importlib.import_module`` returned it (the fast path raised AttributeError); a
    module still being imported by another thread goes through the import lock."""
    name = "arraygnn.kernels.cpu.gather"
    importlib.import_module(name)

    def fake(*args):
        return "fake"

    monkeypatch.setitem(sys.modules, name, types.SimpleNamespace(gather_rows=fake))
    assert _common.kernel_function(np, "gather", "gather_rows")() == "fake"

    plain = types.ModuleType(name)  # __spec__ None
    plain.gather_rows = fake
    monkeypatch.setitem(sys.modules, name, plain)
    assert _common.kernel_function(np, "gather", "gather_rows")() == "fake"

    busy = types.ModuleType(name)
    busy.__spec__ = types.SimpleNamespace(_initializing=True)
    imported = []
    real_import = importlib.import_module
    monkeypatch.setitem(sys.modules, name, busy)
    monkeypatch.setattr(
        _common.importlib, "import_module", lambda q: imported.append(q) or real_import(q)
    )
    busy.gather_rows = fake
    assert _common.kernel_function(np, "gather", "gather_rows")() == "fake"
    assert imported == [name]


def _generic_inv_sqrt(deg, dtype):
    """``_inv_sqrt``'s array-API formula (its CuPy path)."""
    safe = np.where(deg > 0, deg, 1)
    root = np.where(deg > 0, 1 / np.sqrt(safe), np.nan)
    return np.where(deg == 0, 0, root).astype(dtype)


def test_inv_sqrt_numpy_rewrite_keeps_the_generic_bits():
    from arraygnn.nn.graph_conv import _inv_sqrt

    values = [0.0, -0.0, 1.0, 6.0, 7.0, 0.3, 1e-30, 1e30, np.inf, -np.inf, np.nan, -2.0]
    for deg_dtype in (np.float16, np.float32, np.float64, ">f4", np.int64):
        with np.errstate(all="ignore"):
            deg = np.array(values).astype(deg_dtype)
        for dtype in (np.float16, np.float32, np.float64):
            for d in (deg, deg[:0], deg[2:4]):
                with np.errstate(all="ignore"):
                    got, want = _inv_sqrt(d, dtype), _generic_inv_sqrt(d, dtype)
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def _same_but_nan_sign(a, b):
    """Bit for bit, except that a NaN may carry either sign bit (which NaN operand a
    product passes on is the compiler's choice; see docs/ops.md)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    np.testing.assert_array_equal(nan_a, nan_b)
    assert np.where(nan_a, 0, a).tobytes() == np.where(nan_b, 0, b).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gcn_kernels_keep_the_array_code_on_special_weights(monkeypatch, dtype):
    """normalized_slots through the kernels against the array code it replaced (with the
    generic ``deg ** -0.5``): -0.0 / inf / -inf / NaN / negative weights, nodes without
    in-edges, improved=True, with and without loops, sorted and unsorted targets."""
    from arraygnn.nn import graph_conv

    rng = np.random.default_rng(7)
    ei = rng.integers(0, 12, (2, 40))
    w = rng.random(40).astype(dtype)
    w[:6] = [-0.0, -0.0, np.inf, -np.inf, np.nan, -3.0]
    sorted_ei = ei[:, np.argsort(ei[1], kind="stable")]
    for edges, weights in ((ei, w), (sorted_ei, w), (ei, np.full(40, -0.0, dtype))):
        for improved in (False, True):
            for loops in (False, True):
                with np.errstate(all="ignore"):
                    _, got = graph_conv.normalized_slots(edges, weights, 14, improved, loops)
                    with monkeypatch.context() as m:
                        m.setattr(graph_conv, "_KERNEL_FLOATS", ())
                        m.setattr(graph_conv, "_inv_sqrt", _generic_inv_sqrt)
                        _, want = graph_conv.normalized_slots(edges, weights, 14, improved, loops)
                _same_but_nan_sign(got, want)


def test_float16_and_big_endian_weights_keep_the_array_code(monkeypatch):
    from arraygnn.kernels.cpu import gcn_norm
    from arraygnn.nn import graph_conv

    def refuse(*args):
        raise AssertionError("the gcn_norm kernels took a float16 / big-endian weight")

    monkeypatch.setattr(gcn_norm, "gcn_slot_weights", refuse)
    ei = np.array([[1, 0, 2, 2], [0, 1, 1, 2]])  # sorted targets: no gather of the weights
    for w in (np.ones(4, np.float16), np.ones(4, ">f4"), np.ones(4, ">f8")):
        _, out = graph_conv.normalized_slots(ei, w, 3, False, False)
        assert out.dtype == w.dtype.newbyteorder("=")


def test_small_index_bounds_do_not_import_numba_into_a_numpy_only_process():
    """``index_bounds`` takes the kernel on small arrays only once Numba is loaded: a
    NumPy-only caller (check_index) still does not import it."""
    code = (
        "import sys, numpy as np\n"
        "from arraygnn.ops._common import check_index, index_bounds\n"
        "check_index('i', np.array([3, 0, 2]), 4)\n"
        "print(index_bounds(np.array([3, -1, 2], np.int32)), 'numba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "(-1, 3) False"


def test_small_index_bounds_through_the_kernel_equal_numpys():
    import numba  # noqa: F401 - loaded: small arrays take the kernel

    for dtype in (np.int32, np.int64):
        info = np.iinfo(dtype)
        for values in ([info.max, info.min, 0], [7], [-5, -5, -6]):
            a = np.array(values, dtype=dtype)
            got = _common.index_bounds(a)
            assert got == (int(a.min()), int(a.max()))
            assert all(type(v) is int for v in got)
