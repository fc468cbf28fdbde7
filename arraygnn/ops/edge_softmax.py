"""``edge_softmax``: softmax of edge logits over the edges sharing a target.

``out[e] = exp(l[e] - m[t]) / sum over e' -> t of exp(l[e'] - m[t])`` with ``m[t]`` the
largest logit into ``t`` (numerically stable). Deterministic (one worker per target,
edges in their original order).

>>> import numpy as np
>>> ei = np.array([[0, 1, 2], [2, 2, 0]])
>>> edge_softmax(ei, np.array([0.0, 0.0, 5.0]), num_dst_nodes=3).tolist()
[0.5, 0.5, 1.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids_with
from arraygnn.ops._common import (
    check_index,
    check_size,
    check_values,
    compute_dtype,
    kernel_function,
    kernel_module,
    namespace,
    native,
    use_kernels,
)
from arraygnn.ops.csr import CSR, _split_edge_index, as_csr, sorted_segments

__all__ = ["edge_softmax"]


def edge_softmax(edge_index: Any, logits: Any, num_dst_nodes: int | None = None) -> Any:
    """Normalise ``logits`` [E] or [E, H] (or [E, ...]) over the edges into each target.

    ``edge_index`` [2, E] or a :class:`CSR` (reused, no sort). ``num_dst_nodes`` is the
    number of targets; with a plain edge list it may be left out (any count above the
    largest target gives the same result). Result: same shape and dtype as ``logits``
    (float); a target without edges has no entries, so nothing is undefined.

    >>> import numpy as np
    >>> ei = np.array([[0, 0], [1, 1]])
    >>> edge_softmax(ei, np.array([[0.0], [np.log(3.0)]])).round(3).tolist()
    [[0.25], [0.75]]
    """
    check_values("logits", logits, floats_only=True)
    if isinstance(edge_index, CSR):
        xp = namespace(logits=logits, edge_index=edge_index.indptr)
        if num_dst_nodes is not None:
            num_dst_nodes = check_size("num_dst_nodes", num_dst_nodes)
        csr = as_csr(edge_index, None, num_dst_nodes)
    else:
        src, dst = _split_edge_index(edge_index)
        xp = namespace(logits=logits, src=src, dst=dst)
        if num_dst_nodes is None:
            if dst.dtype.kind not in "iu":
                raise TypeError(f"edge_index must be an integer array, got dtype {dst.dtype}")
            # the result does not depend on the count; it only sizes the row pointer
            n_dst = int(dst.max()) + 1 if dst.shape[0] else 0
            n_dst = max(n_dst, 0)
            if n_dst > 2 * dst.shape[0] + 1024:
                # sparse target ids (up to 2**64 - 1): rows for the targets that have edges
                # only (same rows, same order, same bits; no pointer array of n_dst + 1)
                if int(dst.min()) < 0:
                    raise ValueError(
                        f"edge_index[1] (targets) has a negative entry ({int(dst.min())})"
                    )
                dst = unique_ids_with(xp, dst, return_inverse=True)[1].reshape(-1)
                n_dst = int(dst.max()) + 1
        else:
            n_dst = check_size("num_dst_nodes", num_dst_nodes)
        # the sources are never read here: their type, shape and sign are checked, not a
        # count learnt from their largest id
        check_index("edge_index[0] (sources)", src, None)
        if src.shape[0] and int(src.min()) < 0:
            raise ValueError(f"edge_index[0] (sources) has a negative entry ({int(src.min())})")
        check_index("edge_index[1] (targets)", dst, n_dst)
        _check_logits(logits, int(dst.shape[0]))
        flat = _edge_order(xp, dst, n_dst, logits)
        if flat is not None:
            return flat
        # only the row pointer and the slot order are needed, not a whole CSR: the same
        # stable sort as to_csr, so the same bits
        indptr, perm = sorted_segments(xp, dst, n_dst)
        return _softmax(xp, indptr, perm, logits)
    _check_logits(logits, csr.num_edges)
    flat = _edge_order(xp, csr.dst, csr.num_dst_nodes, logits)
    if flat is not None:
        return flat
    return _softmax(xp, csr.indptr, csr.perm, logits)


def edge_softmax_slots(csr: CSR, logits: Any) -> Any:
    """:func:`edge_softmax` of ``logits`` in the CSR's slot order (row ``j`` is edge
    ``perm[j]``), result in slot order: every access in order, the same values."""
    check_values("logits", logits, floats_only=True)
    xp = namespace(logits=logits, edge_index=csr.indptr)
    _check_logits(logits, csr.num_edges)
    return _softmax(xp, csr.indptr, None, logits)


def _check_logits(logits: Any, num_edges: int) -> None:
    if logits.ndim == 0 or logits.shape[0] != num_edges:
        raise ValueError(
            f"logits must be [E, ...] with E = {num_edges} edges, got shape {tuple(logits.shape)}"
        )


def _edge_order(xp: Any, index: Any, num_rows: int, logits: Any) -> Any:
    """One value per edge on the CPU (``[E]``, ``[E, 1]``, ...): the softmax by the
    edge-order kernel, which needs no CSR and gives the row kernel's bits (see
    ``kernels/cpu/edge_softmax.py``); ``None`` where the CSR path runs instead (CuPy,
    several values per edge, dtypes the kernels do not take, more than two threads on a
    large input)."""
    num_edges = int(logits.shape[0])
    if xp is not np or num_edges == 0 or not use_kernels(logits):
        return None
    if math.prod(logits.shape[1:]) != 1:
        return None
    first = getattr(kernel_module(np, "edge_softmax"), "edge_order_first", None)
    if first is None or not first(num_edges, num_rows):
        return None  # (a kernel module without it: the CUDA mirror under the simulator)
    work = compute_dtype(np, logits.dtype)
    values = np.ascontiguousarray(logits).astype(work, copy=False).reshape(num_edges)
    rows = np.ascontiguousarray(index)
    if rows.dtype != np.int32 and rows.dtype != np.int64:  # narrow, unsigned, byte-swapped
        rows = rows.astype(np.int64)  # validated ids: every one fits
    out = np.empty(num_edges, dtype=work)
    kernel_function(np, "edge_softmax", "edge_softmax_coo")(rows, values, out, num_rows)
    return out.astype(native(logits.dtype), copy=False).reshape(logits.shape)


def _softmax(xp: Any, indptr: Any, perm: Any, logits: Any) -> Any:
    """Run the kernel over the CSR rows ``indptr`` / ``perm`` (logits validated)."""
    num_edges = int(logits.shape[0])
    width = math.prod(logits.shape[1:])
    if num_edges == 0 or width == 0:
        return xp.empty(logits.shape, dtype=native(logits.dtype))
    ok = use_kernels(logits)  # other floats (longdouble) take the reference
    work = compute_dtype(xp, logits.dtype) if ok else native(logits.dtype)
    l2 = xp.ascontiguousarray(logits).astype(work, copy=False).reshape(num_edges, width)
    out2 = xp.empty((num_edges, width), dtype=work)
    kernel_function(xp, "edge_softmax", "edge_softmax_csr", ok)(indptr, perm, l2, out2)
    return out2.astype(native(logits.dtype), copy=False).reshape(logits.shape)
