"""``arraygnn.ops.slot_order``: per-edge arrays in a CSR's slot order give exactly the
edge-order results permuted by ``csr.perm`` (bit for bit), on every labelled case."""

from __future__ import annotations

import numpy as np
import pytest
from _ops_threads import bits_on_thread_counts

from arraygnn import ops
from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots
from arraygnn.testing.cases import CASE_NAMES, get_case

SDDMM_OPS = ["add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs"]


def _force_serial(monkeypatch, serial_work):
    import importlib

    for name in ("spmm", "sddmm", "edge_softmax"):
        module = importlib.import_module(f"arraygnn.kernels.cpu.{name}")
        monkeypatch.setattr(module, "SERIAL_WORK", serial_work)


@pytest.mark.parametrize("serial_work", [0, 1 << 40])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_slot_order_is_edge_order_permuted(monkeypatch, serial_work, index_dtype):
    _force_serial(monkeypatch, serial_work)
    rng = np.random.default_rng(21)
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
        perm = csr.perm
        rows = {"u": case.num_src_nodes, "v": case.num_dst_nodes}
        for dtype in (np.float16, np.float32, np.float64):
            for lt, rt in (("u", "v"), ("v", "u"), ("v", "v"), ("u", "u")):
                lhs = (1 + rng.standard_normal((rows[lt], 3, 5))).astype(dtype)
                rhs = (1 + rng.standard_normal((rows[rt], 1, 5))).astype(dtype)
                for op in SDDMM_OPS:
                    want = ops.sddmm(csr, lhs, rhs, op, lt, rt)[perm]
                    got = sddmm_slots(csr, lhs, rhs, op, lt, rt)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    assert got.tobytes() == want.tobytes(), (name, dtype, op, lt, rt)
            logits = (3 * rng.standard_normal((case.num_edges, 4))).astype(dtype)
            if case.num_edges > 2:
                logits[0, 0], logits[-1, 1] = -np.inf, np.nan
            want = ops.edge_softmax(csr, logits)[perm]
            assert edge_softmax_slots(csr, logits[perm]).tobytes() == want.tobytes(), name
            x = rng.standard_normal((case.num_src_nodes, 4, 3)).astype(dtype)
            for w in (None, rng.random(case.num_edges), rng.random((case.num_edges, 4))):
                w = None if w is None else w.astype(dtype)
                for reduce in ("sum", "mean", "max", "min", "prod"):
                    want = ops.spmm(csr, x, w, reduce)
                    got = spmm_slots(csr, x, None if w is None else w[perm], reduce)
                    assert got.tobytes() == want.tobytes(), (name, dtype, reduce)


def test_slot_order_bad_input():
    ei = np.array([[0, 1, 2], [1, 0, 1]])
    csr = ops.to_csr(ei, 3, 2)
    x = np.ones((3, 2))
    with pytest.raises(TypeError, match="sddmm_slots needs a CSR"):
        sddmm_slots(ei, x, x[:2])
    with pytest.raises(TypeError, match="spmm_slots needs a CSR"):
        spmm_slots(ei, x, np.ones(3))
    with pytest.raises(ValueError, match="slot order needs a CSR and the targets"):
        sddmm_slots(csr, np.ones((3, 2)), x, "add", "e", "u")
    with pytest.raises(ValueError, match="logits must be \\[E, ...\\] with E = 3"):
        edge_softmax_slots(csr, np.ones(4))
    with pytest.raises(ValueError, match="edge_weight has 2 entries but there are 3 edges"):
        spmm_slots(csr, x, np.ones(2))
    with pytest.raises(ValueError, match="lhs \\(target 'u'\\) has 2 rows but there are 3 sources"):
        sddmm_slots(csr, x[:2], x[:2], "add", "u", "v")


def _gatv2_naive(src, dst, h_src, h_dst, att, slope, edge_attr, w_edge):
    """Edge by edge in float64, in edge order: the plain definition."""
    out = np.zeros((src.shape[0], att.shape[0]))
    for e in range(src.shape[0]):
        z = h_src[src[e]].astype(np.float64) + h_dst[dst[e]]
        if edge_attr is not None:
            z = z + np.einsum("d,dhf->hf", edge_attr[e].astype(np.float64), w_edge)
        z = np.where(z < 0, slope * z, z)
        out[e] = (z * att).sum(-1)
    return out


@pytest.mark.parametrize("serial_work", [0, 1 << 40])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gatv2_scores_against_the_plain_definition(monkeypatch, serial_work, index_dtype):
    """The fused GATv2 score kernel on every labelled case (empty, no edges, zero in-degree,
    self-loops, multi-edges, bipartite, a hub, unsorted), with and without the edge term,
    serial and parallel, against an edge-by-edge float64 loop and the reference kernel;
    in slot order (row j is edge perm[j])."""
    from arraygnn.kernels import reference
    from arraygnn.kernels.cpu import gatv2
    from arraygnn.ops.slot_order import gatv2_scores_slots

    monkeypatch.setattr(gatv2, "SERIAL_WORK", serial_work)
    rng = np.random.default_rng(22)
    tol = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
        src, dst = case.edge_index[0], case.edge_index[1]
        for dtype in (np.float16, np.float32, np.float64):
            h_src = rng.standard_normal((case.num_src_nodes, 3, 4)).astype(dtype)
            h_dst = rng.standard_normal((case.num_dst_nodes, 3, 4)).astype(dtype)
            att = rng.standard_normal((3, 4)).astype(dtype)
            for depth in (None, 1, 5):
                ea = w = None
                if depth is not None:
                    ea = rng.standard_normal((case.num_edges, depth)).astype(dtype)
                    w = rng.standard_normal((depth, 3, 4)).astype(dtype)
                got = gatv2_scores_slots(csr, h_src, h_dst, att, 0.3, ea, w)
                assert got.dtype == dtype and got.shape == (case.num_edges, 3)
                want = _gatv2_naive(src, dst, h_src, h_dst, att, 0.3, ea, w)[csr.perm]
                scale = max(float(np.abs(want).max(initial=0)), 1.0)
                err = float(np.abs(got - want).max(initial=0)) / scale
                assert err <= tol[dtype], (name, dtype, depth, err)
                if dtype != np.float16:  # the kernel and the reference, same dtype
                    work = [a.astype(dtype) for a in (h_src, h_dst, att)]
                    extra = (
                        [np.zeros((case.num_edges, 0), dtype), np.zeros((0, 3, 4), dtype)]
                        if ea is None
                        else [ea, w]
                    )
                    ref = reference.gatv2_scores_csr(
                        csr.indptr, csr.indices, csr.kernel_perm, *work, *extra, 0.3,
                        np.empty((case.num_edges, 3), dtype),
                    )  # fmt: skip
                    np.testing.assert_allclose(got, ref, rtol=tol[dtype], atol=tol[dtype])


def test_gatv2_scores_are_the_same_bits_on_any_thread_count():

    from arraygnn.kernels.cpu import gatv2
    from arraygnn.ops.slot_order import gatv2_scores_slots
    from arraygnn.testing.cases import powerlaw_edges

    rng = np.random.default_rng(23)
    ei = powerlaw_edges(3000, 40000, seed=1)
    csr = ops.to_csr(ei, 3000, 3000)
    h = rng.standard_normal((3000, 4, 8)).astype(np.float32)
    att = rng.standard_normal((4, 8)).astype(np.float32)
    ea = rng.standard_normal((40000, 3)).astype(np.float32)
    w = rng.standard_normal((3, 4, 8)).astype(np.float32)
    assert 40000 * 4 * 8 > gatv2.SERIAL_WORK  # the parallel kernel runs
    results = bits_on_thread_counts(lambda: gatv2_scores_slots(csr, h, h, att, 0.2, ea, w))
    assert len(set(results)) == 1


def test_gatv2_scores_bad_input():
    from arraygnn.ops.slot_order import gatv2_scores_slots

    ei = np.array([[0, 1, 2], [1, 0, 1]])
    csr = ops.to_csr(ei, 3, 2)
    hs, hd, att = np.ones((3, 2, 4)), np.ones((2, 2, 4)), np.ones((2, 4))
    with pytest.raises(TypeError, match="gatv2_scores_slots needs a CSR"):
        gatv2_scores_slots(ei, hs, hd, att)
    with pytest.raises(ValueError, match=r"h_src must be \[3, 2, 4\]"):
        gatv2_scores_slots(csr, hs[:2], hd, att)
    with pytest.raises(ValueError, match=r"h_dst must be \[2, 2, 4\]"):
        gatv2_scores_slots(csr, hs, hs, att)
    with pytest.raises(ValueError, match=r"att must be \[H, F\]"):
        gatv2_scores_slots(csr, hs, hd, att[0])
    with pytest.raises(ValueError, match="edge_attr and w_edge together"):
        gatv2_scores_slots(csr, hs, hd, att, 0.2, np.ones((3, 1)))
    with pytest.raises(ValueError, match=r"edge_attr must be \[3, D\]"):
        gatv2_scores_slots(csr, hs, hd, att, 0.2, np.ones((4, 1)), np.ones((1, 2, 4)))
    with pytest.raises(ValueError, match=r"w_edge must be \[1, 2, 4\]"):
        gatv2_scores_slots(csr, hs, hd, att, 0.2, np.ones((3, 1)), np.ones((2, 2, 4)))
    with pytest.raises(TypeError, match="h_src"):
        gatv2_scores_slots(csr, hs.astype(np.int64), hd, att)
    before = [a.copy() for a in (hs, hd, att)]
    gatv2_scores_slots(csr, hs, hd, att)
    for a, b in zip((hs, hd, att), before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_slot_helpers_round_trip_and_slots_as_sources(index_dtype):
    """to_slot_order / to_edge_order are inverses; over slots_as_sources(csr) an SpMM of a
    slot-order per-edge array sums each row's edges, as a segment sum over the CSR does."""
    from arraygnn.ops.slot_order import slots_as_sources, to_edge_order, to_slot_order

    rng = np.random.default_rng(24)
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
        values = rng.standard_normal((case.num_edges, 3))
        slots = to_slot_order(csr, values)
        np.testing.assert_array_equal(slots, values[csr.perm])
        np.testing.assert_array_equal(to_edge_order(csr, slots), values)
        assert to_slot_order(csr, None) is None
        by_slot = slots_as_sources(csr)
        assert by_slot.num_src_nodes == case.num_edges and by_slot.perm_is_identity
        assert by_slot.index_dtype == csr.index_dtype
        np.testing.assert_array_equal(by_slot.dst, csr.dst[csr.perm])
        w = rng.random(case.num_edges)
        got = ops.spmm(by_slot, slots, w)
        want = ops.segment(slots * w[:, None], csr.indptr)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
