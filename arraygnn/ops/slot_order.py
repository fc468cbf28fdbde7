"""Per-edge arrays in a CSR's slot order: attention without the permutation.

A :class:`CSR` stores each target's edges as consecutive *slots*; slot ``j`` is edge
``csr.perm[j]``. The public ops take and return per-edge arrays in edge order, so over a
CSR each of them reads or writes those arrays through ``perm``: one random access per
edge. A chain that only passes edge arrays between ops (GAT: logits -> softmax ->
weighted aggregation) can keep them in slot order instead and touch every edge array in
order. The values are the same: ``x_slots == x_edges[csr.perm]``, bit for bit.

Measured on the 2-core box (1M nodes, 6M edges with self-loops, 8 heads x 8 features,
float32): GAT's logits + softmax + aggregation 1026 ms in edge order, 492 ms in slot
order, same bits (benchmarks/RESULTS.md).

>>> import numpy as np
>>> from arraygnn import ops
>>> csr = ops.to_csr(np.array([[0, 1, 2], [1, 0, 1]]), 3, 2)
>>> score = sddmm_slots(csr, np.array([[1.0], [2.0], [3.0]]), np.zeros((2, 1)), "add")
>>> alpha = edge_softmax_slots(csr, score)           # slot order: targets 0, 1, 1
>>> spmm_slots(csr, np.array([[1.0], [10.0], [100.0]]), alpha).round(2).tolist()
[[10.0], [88.2]]
"""

from __future__ import annotations

from typing import Any

from arraygnn.ops.csr import CSR
from arraygnn.ops.edge_softmax import edge_softmax_slots
from arraygnn.ops.sddmm import _sddmm
from arraygnn.ops.spmm import _spmm

__all__ = ["sddmm_slots", "edge_softmax_slots", "spmm_slots"]


def sddmm_slots(
    csr: CSR, lhs: Any, rhs: Any, op: str = "dot", lhs_target: str = "u", rhs_target: str = "v"
) -> Any:
    """:func:`arraygnn.ops.sddmm` over ``csr`` with the result in slot order (targets
    ``u`` / ``v``)."""
    if not isinstance(csr, CSR):
        raise TypeError(f"sddmm_slots needs a CSR (ops.to_csr), got {type(csr).__name__}")
    return _sddmm(csr, lhs, rhs, op, lhs_target, rhs_target, slots=True)


def spmm_slots(csr: CSR, x: Any, weight: Any = None, reduce: str = "sum") -> Any:
    """:func:`arraygnn.ops.spmm` over ``csr`` with ``weight`` [E] or [E, H] in slot
    order (no reordering pass)."""
    if not isinstance(csr, CSR):
        raise TypeError(f"spmm_slots needs a CSR (ops.to_csr), got {type(csr).__name__}")
    return _spmm(csr, x, weight, reduce, None, weight_in_slots=True)
