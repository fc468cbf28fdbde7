"""``arraygnn.ops.slot_order``: per-edge arrays in a CSR's slot order give exactly the
edge-order results permuted by ``csr.perm`` (bit for bit), on every labelled case."""

from __future__ import annotations

import numpy as np
import pytest

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
