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

import numpy as np

from arraygnn.ops._common import (
    check_values,
    compute_dtype,
    kernel_function,
    namespace,
    native,
    use_kernels,
)
from arraygnn.ops.csr import CSR
from arraygnn.ops.edge_softmax import edge_softmax_slots
from arraygnn.ops.sddmm import _sddmm
from arraygnn.ops.spmm import _spmm

__all__ = [
    "sddmm_slots",
    "edge_softmax_slots",
    "spmm_slots",
    "gatv2_scores_slots",
    "to_slot_order",
    "to_edge_order",
    "slots_as_sources",
]


def to_slot_order(csr: CSR, values: Any) -> Any:
    """Per-edge ``values`` [E, ...] (edge order; None passes) in ``csr``'s slot order:
    row ``j`` is edge ``csr.perm[j]``. The array itself when the slots are the edges."""
    if values is None or csr.perm_is_identity:
        return values
    from arraygnn import ops

    return ops.gather(values, csr.perm)


def to_edge_order(csr: CSR, values: Any) -> Any:
    """Per-edge ``values`` in ``csr``'s slot order put back in edge order (the inverse of
    :func:`to_slot_order`; a new array unless the slots are the edges)."""
    if csr.perm_is_identity:
        return values
    from arraygnn._namespace import get_namespace

    out = get_namespace(values).empty_like(values)
    out[csr.perm] = values
    return out


def slots_as_sources(csr: CSR) -> CSR:
    """The CSR whose sources are ``csr``'s slots: slot ``j`` of row ``r`` becomes an edge
    ``j -> r``, already in slot order (no sort). Over it, ``spmm`` / ``sddmm`` read a
    slot-order per-edge array [E, ...] as source rows: per-edge features meet per-node
    values without an [E, ...] gather of the node side."""
    from arraygnn._namespace import get_namespace

    xp = get_namespace(csr.indptr)
    slots = xp.arange(csr.num_edges, dtype=csr.index_dtype)
    rows = to_slot_order(csr, csr.dst)
    return CSR._trusted(
        csr.indptr, slots, slots, slots, rows, csr.num_edges, csr.num_dst_nodes, True
    )


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


def gatv2_scores_slots(
    csr: CSR,
    h_src: Any,
    h_dst: Any,
    att: Any,
    negative_slope: float = 0.2,
    edge_attr: Any = None,
    w_edge: Any = None,
) -> Any:
    """GATv2's attention scores ``[E, H]`` in slot order, fused: for the slot of edge
    ``u -> v``, ``sum_f att[h, f] * LeakyReLU(h_src[u, h, f] + h_dst[v, h, f] + t[h, f])``
    with the edge term ``t = edge_attr[e] @ w_edge`` (``w_edge`` ``[D, H, F]``; none when
    ``edge_attr`` is None). No ``[E, H, F]`` array is formed (PyG and DGL build one).
    ``h_src`` ``[N_src, H, F]``, ``h_dst`` ``[N_dst, H, F]``, ``att`` ``[H, F]``,
    ``edge_attr`` ``[E, D]`` in edge order. Computed in NumPy's promotion of the inputs'
    dtypes (float16 through float32); deterministic (one worker per score, feature order).

    >>> import numpy as np
    >>> from arraygnn import ops
    >>> csr = ops.to_csr(np.array([[0, 1], [1, 1]]), 2, 2)
    >>> h = np.array([[[1.0]], [[-2.0]]])
    >>> gatv2_scores_slots(csr, h, h, np.array([[1.0]]), 0.5).tolist()  # -1 * 0.5, -4 * 0.5
    [[-0.5], [-2.0]]
    """
    if not isinstance(csr, CSR):
        raise TypeError(f"gatv2_scores_slots needs a CSR (ops.to_csr), got {type(csr).__name__}")
    for name, value in (("h_src", h_src), ("h_dst", h_dst), ("att", att)):
        check_values(name, value, floats_only=True)
    if (edge_attr is None) != (w_edge is None):
        raise ValueError("gatv2_scores_slots: pass edge_attr and w_edge together, or neither")
    arrays = {"h_src": h_src, "h_dst": h_dst, "att": att, "edge_index": csr.indptr}
    if edge_attr is not None:
        check_values("edge_attr", edge_attr, floats_only=True)
        check_values("w_edge", w_edge, floats_only=True)
        arrays.update(edge_attr=edge_attr, w_edge=w_edge)
    xp = namespace(**arrays)
    if att.ndim != 2:
        raise ValueError(f"att must be [H, F], got shape {tuple(att.shape)}")
    heads, feats = (int(n) for n in att.shape)
    for name, value, rows in (
        ("h_src", h_src, csr.num_src_nodes),
        ("h_dst", h_dst, csr.num_dst_nodes),
    ):
        if tuple(value.shape) != (rows, heads, feats):
            raise ValueError(
                f"{name} must be [{rows}, {heads}, {feats}] (the CSR's nodes, att's heads and "
                f"features), got shape {tuple(value.shape)}"
            )
    num_edges = csr.num_edges
    values = [h_src, h_dst, att]
    if edge_attr is not None:
        if edge_attr.ndim != 2 or edge_attr.shape[0] != num_edges:
            raise ValueError(
                f"edge_attr must be [{num_edges}, D], got shape {tuple(edge_attr.shape)}"
            )
        depth = int(edge_attr.shape[1])
        if tuple(w_edge.shape) != (depth, heads, feats):
            raise ValueError(
                f"w_edge must be [{depth}, {heads}, {feats}] (edge_attr's columns, att's "
                f"heads and features), got shape {tuple(w_edge.shape)}"
            )
        values += [edge_attr, w_edge]
    result = native(np.result_type(*(v.dtype for v in values)))
    ok = use_kernels(*values) and result.kind == "f"
    work = compute_dtype(xp, result) if ok else result
    if work == np.float16:  # the CUDA kernel too sums float16 scores in float32
        work = np.dtype(np.float32)
    args = [xp.ascontiguousarray(v).astype(work, copy=False) for v in values]
    if edge_attr is None:
        args += [xp.zeros((num_edges, 0), work), xp.zeros((0, heads, feats), work)]
    out = xp.empty((num_edges, heads), dtype=work)
    perm = csr.kernel_perm
    kernel = kernel_function(xp, "gatv2", "gatv2_scores_csr", ok)
    kernel(csr.indptr, csr.indices, perm, *args, float(negative_slope), out)
    return out.astype(result, copy=False)
