"""Session 14 engine changes for small graphs: ``to_csr`` builds a small NumPy edge list
in one kernel call (``kernels/cpu/csr.py: small_csr``), and the GCN normalisation is one
kernel (``kernels/cpu/gcn_norm.py``). Both give the arrays / bits of the general paths."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import ops
from arraygnn.kernels import reference
from arraygnn.kernels.cpu import gcn_norm
from arraygnn.ops import csr as csr_module
from arraygnn.testing.cases import CASE_NAMES, get_case

_PARTS = ("indptr", "indices", "perm", "src", "dst")


def _general_csr(monkeypatch, edge_index, n_src, n_dst):
    with monkeypatch.context() as m:
        m.setattr(csr_module, "SMALL_CSR_WORK", -1)
        return ops.to_csr(edge_index, n_src, n_dst)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_small_csr_equals_the_general_build(monkeypatch, index_dtype):
    """Every labelled case, as [2, E] and as a (src, dst) pair: the same arrays, index
    dtype, identity flag, read-only arrays, and the edge list untouched."""
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        ei = case.edge_index
        before = ei.copy()
        want = _general_csr(monkeypatch, ei, case.num_src_nodes, case.num_dst_nodes)
        for edges in (ei, (ei[0].copy(), ei[1].copy())):
            got = ops.to_csr(edges, case.num_src_nodes, case.num_dst_nodes)
            assert got.perm_is_identity == want.perm_is_identity, name
            assert got.index_dtype == want.index_dtype == np.dtype(index_dtype), name
            for part in _PARTS:
                a, b = getattr(got, part), getattr(want, part)
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (name, part)
                assert not a.flags.writeable, (name, part)
        np.testing.assert_array_equal(ei, before)


@pytest.mark.parametrize(
    ("edge_index", "match"),
    [
        ([[0, 3], [1, 1]], r"edge_index\[0\] \(sources\) has entry 3, out of range for size 3"),
        ([[0, -2], [1, 1]], r"edge_index\[0\] \(sources\) has a negative entry \(-2\)"),
        ([[0, 1], [1, 2]], r"edge_index\[1\] \(targets\) has entry 2, out of range for size 2"),
        ([[0, 1], [-1, 1]], r"edge_index\[1\] \(targets\) has a negative entry \(-1\)"),
        ([[5, 1], [-1, 1]], r"edge_index\[0\] \(sources\)"),  # sources are checked first
    ],
)
def test_small_csr_names_the_bad_ids(edge_index, match):
    for dtype in (np.int32, np.int64):
        with pytest.raises(ValueError, match=match):
            ops.to_csr(np.array(edge_index, dtype=dtype), 3, 2)


def test_only_small_contiguous_one_dtype_lists_take_the_one_call_build(monkeypatch):
    """uint16, mixed int32 / int64 halves, strided halves and large lists keep the
    general path (the kernel's specialisations stay two)."""
    calls = []
    real = csr_module._small_csr
    monkeypatch.setattr(csr_module, "_small_csr", lambda *a: calls.append(a[0].dtype) or real(*a))
    rng = np.random.default_rng(0)
    ei = rng.integers(0, 50, (2, 200))
    ops.to_csr(ei, 50, 50)
    ops.to_csr(ei.astype(np.int32), 50, 50)
    assert calls == [np.dtype(np.int64), np.dtype(np.int32)]
    ops.to_csr(ei.astype(np.uint16), 50, 50)
    ops.to_csr((ei[0].astype(np.int32), ei[1]), 50, 50)
    ops.to_csr((ei[0, ::2], ei[1, ::2]), 50, 50)
    ops.to_csr(rng.integers(0, 10, (2, csr_module.SMALL_CSR_WORK)), 10, 10)
    assert len(calls) == 2


def _weights_cases(rng, dtype):
    yield "random", rng.random(40).astype(dtype)
    w = rng.random(40).astype(dtype)
    w[:5] = -0.0
    w[5] = -1.0  # a negative degree -> NaN weights at its target, as PyG's pow(-0.5)
    w[6] = np.nan
    yield "zeros-negative-nan", w


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gcn_slot_weights_match_the_reference(dtype):
    """``gcn_slot_weights`` against the array-code reference, bit for bit, on a graph with
    isolated nodes, self-loops and multi-edges, with and without a perm (unsorted / sorted
    targets), with zero, negative and NaN weights."""
    rng = np.random.default_rng(3)
    src = rng.integers(0, 12, 40)
    dst = rng.integers(0, 10, 40)  # nodes 10, 11: no in-edges
    for order in ("unsorted", "sorted"):
        if order == "sorted":
            k = np.argsort(dst, kind="stable")
            src, dst = src[k], dst[k]
        csr = ops.to_csr((src, dst), 12, 12)
        assert csr.perm_is_identity == (order == "sorted")
        args = (csr.indptr, csr.indices, csr.kernel_perm)
        for label, w in _weights_cases(rng, dtype):
            inv = rng.random(12).astype(dtype)
            got = gcn_norm.gcn_slot_weights(*args, w, inv, np.empty(40, dtype))
            want = reference.gcn_slot_weights(*args, w, inv, np.empty(40, dtype))
            assert got.tobytes() == want.tobytes(), label


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gcn_normalisation_keeps_the_array_code_bits(monkeypatch, dtype):
    """normalized_slots through the kernels gives the bits of the array code it replaced
    (a gather into slot order, a degree SpMM, 1 / sqrt(deg) and two gathers), with and without
    weights, loops and zero / negative degrees."""
    from arraygnn.nn import graph_conv

    rng = np.random.default_rng(4)
    ei = rng.integers(0, 30, (2, 90))
    ei[:, :3] = [[4, 5, 5], [4, 6, 6]]  # a self-loop and a multi-edge
    for w in (None, rng.random(90).astype(dtype), rng.normal(size=90).astype(dtype)):
        for loops in (True, False):
            _, got = graph_conv.normalized_slots(ei, w, 31, False, loops, dtype)
            with monkeypatch.context() as m:
                m.setattr(graph_conv, "_KERNEL_FLOATS", ())
                _, want = graph_conv.normalized_slots(ei, w, 31, False, loops, dtype)
            assert got.dtype == want.dtype == np.dtype(dtype)
            assert got.tobytes() == want.tobytes(), (w is None, loops)


def test_gcn_norm_parallel_blocks_give_the_serial_bits():
    """Above SERIAL_WORK the rows are split in blocks between threads: the same bits as
    the serial body."""
    rng = np.random.default_rng(5)
    n, e = 3000, 70_000
    csr = ops.to_csr(rng.integers(0, n, (2, e)), n, n)
    w = rng.random(e).astype(np.float32)
    inv = rng.random(n).astype(np.float32)
    args = (csr.indptr, csr.indices, csr.kernel_perm, w, inv)
    par = gcn_norm.gcn_slot_weights(*args, np.empty(e, np.float32))
    out = np.empty(e, np.float32)
    gcn_norm._slot_range(*args, out, 0, n)
    assert par.tobytes() == out.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_sqrt_degrees_are_torch_pow_bits(dtype):
    """``deg^-1/2`` is ``1 / sqrt(deg)``, the bits of torch's ``pow(-0.5)`` (PyG's
    ``gcn_norm``) on every input; NumPy's own ``** -0.5`` is an ulp off for ~20 % of
    them on AVX-512 machines (degrees 6 and 7 among the first)."""
    torch = pytest.importorskip("torch")
    from arraygnn.nn.graph_conv import _inv_sqrt

    rng = np.random.default_rng(6)
    deg = np.concatenate([np.arange(1, 200), rng.random(5000) * 1000 + 0.01]).astype(dtype)
    want = torch.from_numpy(deg).pow(-0.5).numpy()
    assert _inv_sqrt(deg, dtype).tobytes() == want.tobytes()


def test_gcn_norm_weights_are_pyg_bits():
    """The normalised weights of a random graph with loops added: PyG 2.8.1's
    ``gcn_norm`` bits, float32, weighted and not."""
    torch = pytest.importorskip("torch")
    pyg_gcn_norm = pytest.importorskip("torch_geometric.nn.conv.gcn_conv").gcn_norm
    from arraygnn.nn.graph_conv import gcn_norm as ours

    rng = np.random.default_rng(7)
    ei = rng.integers(0, 60, (2, 300))
    for w in (None, rng.random(300).astype(np.float32)):
        got_ei, got = ours(ei, w, 60, dtype=np.float32)
        t_w = None if w is None else torch.from_numpy(w)
        want_ei, want = pyg_gcn_norm(torch.from_numpy(ei), t_w, 60, add_self_loops=True)
        np.testing.assert_array_equal(got_ei, want_ei.numpy())
        assert got.tobytes() == want.numpy().tobytes()


def test_other_inverse_square_roots_are_torch_bits():
    """Every torch-derived ``pow(-0.5)`` is ``1 / sqrt``: PyG's ``get_laplacian('sym')``
    and ``GraphSizeNorm`` give the same bits as torch (float32)."""
    torch = pytest.importorskip("torch")
    pyg_utils = pytest.importorskip("torch_geometric.utils")
    pyg_norm = pytest.importorskip("torch_geometric.nn.norm")
    from arraygnn import utils
    from arraygnn.nn import GraphSizeNorm

    rng = np.random.default_rng(8)
    ei = rng.integers(0, 40, (2, 200))
    w = rng.random(200).astype(np.float32)
    got_ei, got_w = utils.get_laplacian(ei, w, normalization="sym", num_nodes=40)
    want_ei, want_w = pyg_utils.get_laplacian(
        torch.from_numpy(ei), torch.from_numpy(w), normalization="sym", num_nodes=40
    )
    np.testing.assert_array_equal(got_ei, want_ei.numpy())
    assert got_w.tobytes() == want_w.numpy().tobytes()
    x = rng.random((60, 4)).astype(np.float32)
    batch = np.sort(rng.integers(0, 9, 60))
    want = pyg_norm.GraphSizeNorm()(torch.from_numpy(x), torch.from_numpy(batch)).numpy()
    assert GraphSizeNorm()(x, batch).tobytes() == want.tobytes()
