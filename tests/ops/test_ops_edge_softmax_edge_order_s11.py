"""One value per edge: ``ops.edge_softmax`` runs the CPU edge-order kernel (no CSR) on up to
two threads. It must give the bits of the sort + row-kernel path it replaces, for edge
lists and CSRs, every labelled case, index and value dtype, with -0.0, -inf, inf and NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn
from arraygnn import ops
from arraygnn.kernels.cpu import edge_softmax as kernel
from arraygnn.testing.cases import CASE_NAMES, get_case


def _logits(rng, num_edges, dtype):
    logits = (3 * rng.standard_normal(num_edges)).astype(dtype)
    if num_edges > 6:
        logits[0], logits[1] = -0.0, 0.0  # equal maxima of either sign
        logits[2] = -np.inf
        logits[-2] = np.inf
        logits[-1] = np.nan
    return logits


def _row_kernel_path(monkeypatch):
    monkeypatch.setattr(kernel, "edge_order_first", lambda num_edges, num_rows: False)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_edge_order_softmax_gives_the_row_kernel_bits(monkeypatch, dtype):
    rng = np.random.default_rng(21)
    calls = []
    coo = kernel.edge_softmax_coo
    monkeypatch.setattr(kernel, "edge_softmax_coo", lambda *a: calls.append(1) or coo(*a))
    for name in CASE_NAMES:
        for index_dtype in (np.int32, np.int64, np.uint16):
            case = get_case(name, index_dtype)
            ei, n_dst = case.edge_index, case.num_dst_nodes
            csr = ops.to_csr(ei.astype(np.int64), case.num_src_nodes, n_dst)
            logits = _logits(rng, case.num_edges, dtype)
            with monkeypatch.context() as m:
                _row_kernel_path(m)
                want = ops.edge_softmax(ei, logits, n_dst)
            got = [
                ops.edge_softmax(ei, logits, n_dst),
                ops.edge_softmax(ei, logits[:, None], n_dst)[:, 0],
                ops.edge_softmax(csr, logits),
                ops.edge_softmax(ei, logits),  # targets counted from the ids
            ]
            for g in got:
                assert g.dtype == want.dtype and g.tobytes() == want.tobytes(), name
    assert len(calls) >= 3 * len(CASE_NAMES)  # the edge-order kernel did run


def test_edge_order_softmax_routes_and_validates(monkeypatch):
    """Several heads keep the row kernel; a byte-swapped index and big-endian logits run
    the edge-order kernel; ``validate=True`` checks it against the reference."""
    case = get_case("power-law", np.int64)
    ei, n_dst = case.edge_index, case.num_dst_nodes
    rng = np.random.default_rng(3)
    calls = []
    coo = kernel.edge_softmax_coo
    monkeypatch.setattr(kernel, "edge_softmax_coo", lambda *a: calls.append(1) or coo(*a))
    ops.edge_softmax(ei, rng.standard_normal((case.num_edges, 2)), n_dst)
    assert calls == []
    logits = rng.standard_normal(case.num_edges).astype(">f4")
    swapped = ei.astype(">i8")
    with monkeypatch.context() as m:
        _row_kernel_path(m)
        want = ops.edge_softmax(ei, logits, n_dst)
    got = ops.edge_softmax(swapped, logits, n_dst)
    assert calls and got.dtype == np.float32 and got.tobytes() == want.tobytes()
    with arraygnn.config(validate=True):
        np.testing.assert_array_equal(ops.edge_softmax(ei, logits, n_dst), want)
