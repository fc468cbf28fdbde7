"""``sddmm``: one value per edge from its source (u), target (v) and edge (e) rows (g-SDDMM).

``out[e] = op(lhs[row_l(e)], rhs[row_r(e)])`` where ``row(e)`` is the source of edge ``e``
(target ``"u"``), its destination (``"v"``) or ``e`` itself (``"e"``). Ops: ``add``,
``sub``, ``mul``, ``div``, ``dot`` (sums the last feature dimension and keeps a trailing
1, DGL-style), ``copy_lhs``, ``copy_rhs``. Feature dimensions broadcast with NumPy rules
(right-aligned). Edge-parallel, no reduction across edges: deterministic.

>>> import numpy as np
>>> ei = np.array([[0, 1], [1, 0]])
>>> h = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> sddmm(ei, h, h, op="dot").tolist()
[[11.0], [11.0]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.ops._common import (
    check_index,
    check_values,
    compute_dtype,
    kernel_function,
    kernel_index,
    namespace,
    native,
    use_kernels,
)
from arraygnn.ops.csr import CSR, _split_edge_index

__all__ = ["sddmm", "SDDMM_OPS"]

SDDMM_OPS = ("add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs")
_TARGETS = ("u", "v", "e")


def _group_split(
    fl: tuple[int, ...], fr: tuple[int, ...], full: tuple[int, ...]
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]] | None:
    """Express both operands as [G or 1, K or 1] views of the broadcast shape ``full``.

    Returns ((G_l, K_l), (G_r, K_r), (G, K)) or None when the broadcast pattern does not
    fit that two-level form (the reference path then handles it).
    """
    rank = len(full)
    a = (1,) * (rank - len(fl)) + tuple(fl)
    b = (1,) * (rank - len(fr)) + tuple(fr)

    def part(side: tuple[int, ...], lo: int, hi: int) -> int | None:
        piece = side[lo:hi]
        if all(s == 1 for s in piece):
            return 1
        if piece == full[lo:hi]:
            return math.prod(piece)
        return None

    for p in range(rank + 1):
        gl, kl = part(a, 0, p), part(a, p, rank)
        gr, kr = part(b, 0, p), part(b, p, rank)
        if None in (gl, kl, gr, kr):
            continue
        g = math.prod(full[:p])
        k = math.prod(full[p:])
        return (gl, kl), (gr, kr), (g, k)  # type: ignore[return-value]
    return None


def _dot_split(
    fl: tuple[int, ...], fr: tuple[int, ...], lead: tuple[int, ...]
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]] | None:
    """For ``dot``: leading dims -> G (each side all of them or all ones), depth -> K."""
    g = math.prod(lead)
    groups = []
    for f in (fl, fr):
        padded = (1,) * (len(lead) - len(f[:-1])) + tuple(f[:-1])
        if padded == lead:
            groups.append(g)
        elif all(s == 1 for s in padded):
            groups.append(1)
        else:
            return None
    return (groups[0], fl[-1]), (groups[1], fr[-1]), (g, 1)


def sddmm(
    edge_index: Any,
    lhs: Any,
    rhs: Any,
    op: str = "dot",
    lhs_target: str = "u",
    rhs_target: str = "v",
) -> Any:
    """Compute ``op(lhs[row_l(e)], rhs[row_r(e)])`` for every edge ``e``.

    Shapes: ``edge_index`` [2, E] or a :class:`CSR`; ``lhs`` [R_l, ...] and ``rhs``
    [R_r, ...] where ``R`` is the number of sources (target ``"u"``), destinations
    (``"v"``) or edges (``"e"``). Result [E, *broadcast(lhs[0], rhs[0])] in
    ``result_type(lhs, rhs)``; for ``dot`` the last feature dims are summed and a trailing 1
    kept: [E, ..., 1]. ``copy_lhs`` returns [E, *lhs.shape[1:]] (``rhs`` may be None;
    in native byte order as every result, unlike :func:`gather`); ``copy_rhs`` likewise.
    Edge order is the order of ``edge_index`` (or the CSR's original edge order).

    >>> import numpy as np
    >>> ei = np.array([[0, 0], [1, 2]])
    >>> sddmm(ei, np.array([1.0, 2.0]), np.array([10.0, 20.0, 30.0]), op="add").tolist()
    [21.0, 31.0]
    """
    return _sddmm(edge_index, lhs, rhs, op, lhs_target, rhs_target, slots=False)


def _sddmm(
    edge_index: Any,
    lhs: Any,
    rhs: Any,
    op: str,
    lhs_target: str,
    rhs_target: str,
    slots: bool,
) -> Any:
    """:func:`sddmm`; with ``slots`` (a CSR, targets ``u`` / ``v``) the result rows are
    in the CSR's slot order (row ``j`` is edge ``perm[j]``) instead of edge order."""
    if op not in SDDMM_OPS:
        raise ValueError(f"op must be one of {', '.join(SDDMM_OPS)}; got {op!r}")
    for name, target in (("lhs_target", lhs_target), ("rhs_target", rhs_target)):
        if target not in _TARGETS:
            raise ValueError(f"{name} must be 'u', 'v' or 'e'; got {target!r}")
    if op == "copy_rhs":
        return _sddmm(edge_index, rhs, lhs, "copy_lhs", rhs_target, lhs_target, slots)
    if slots and (not isinstance(edge_index, CSR) or "e" in (lhs_target, rhs_target)):
        raise ValueError("slot order needs a CSR and the targets 'u' / 'v'")
    check_values("lhs", lhs)
    if op != "copy_lhs" or rhs is not None:
        check_values("rhs", rhs)
    if isinstance(edge_index, CSR):
        src, dst = edge_index.src, edge_index.dst
        sizes = {"u": edge_index.num_src_nodes, "v": edge_index.num_dst_nodes}
    else:
        src, dst = _split_edge_index(edge_index)
        for name, arr in (("edge_index[0] (sources)", src), ("edge_index[1] (targets)", dst)):
            check_index(name, arr, None)
        sizes = {}
    xp = namespace(lhs=lhs, rhs=rhs, src=src, dst=dst)
    num_edges = int(src.shape[0])
    sizes["e"] = num_edges
    rows = {"u": src, "v": dst}
    operands = [("lhs", lhs, lhs_target)]
    if op != "copy_lhs":
        operands.append(("rhs", rhs, rhs_target))
    for name, arr, target in operands:
        if arr.ndim == 0:
            raise ValueError(f"{name} must have at least one dimension (rows), got a 0-d array")
        what = {"u": "sources", "v": "destinations", "e": "edges"}[target]
        if target in sizes:
            if int(arr.shape[0]) != sizes[target]:
                raise ValueError(
                    f"{name} (target {target!r}) has {arr.shape[0]} rows but there are "
                    f"{sizes[target]} {what}"
                )
        else:
            check_index(
                f"edge_index[{0 if target == 'u' else 1}] ({what}, indexing {name})",
                rows[target],
                int(arr.shape[0]),
            )

    from arraygnn.ops.gather import gather

    if op == "copy_lhs":
        swapped = not lhs.dtype.isnative
        if swapped:  # the result in the machine's byte order, as every computed result
            lhs = lhs.astype(native(lhs.dtype))
        if lhs_target == "e":
            return lhs if swapped else lhs.copy()
        if slots and lhs_target == "u":
            return gather(lhs, edge_index.indices)
        out = gather(lhs, rows[lhs_target])
        return gather(out, edge_index.perm) if slots else out

    fl = tuple(int(s) for s in lhs.shape[1:])
    fr = tuple(int(s) for s in rhs.shape[1:])
    try:
        if op == "dot":
            if not fl or not fr:
                raise ValueError(
                    "op='dot' needs a feature dimension on both sides (lhs and rhs are [R, ..., D])"
                )
            lead = tuple(np.broadcast_shapes(fl[:-1], fr[:-1]))
            np.broadcast_shapes(fl[-1:], fr[-1:])
            out_tail = lead + (1,)
        else:
            lead = tuple(np.broadcast_shapes(fl, fr))
            out_tail = lead
    except ValueError as err:
        if "needs a feature" in str(err):
            raise
        raise ValueError(
            f"lhs features {fl} and rhs features {fr} do not broadcast for op={op!r}"
        ) from None
    out_dtype = native(np.result_type(lhs.dtype, rhs.dtype))
    if op == "div" and out_dtype.kind != "f":
        out_dtype = np.result_type(out_dtype, np.float64)
    if op == "dot" and 0 in (fl[-1], fr[-1]):
        # an empty sum (depth 0, or 0 against 1): zeros; the kernels read the first product
        return xp.zeros((num_edges,) + out_tail, dtype=out_dtype)
    ok = use_kernels(np.empty(0, out_dtype))
    work = compute_dtype(xp, out_dtype) if ok else out_dtype
    src_k, dst_k = kernel_index(xp, src), kernel_index(xp, dst)
    if src_k.dtype != dst_k.dtype:
        src_k, dst_k = src_k.astype(np.int64), dst_k.astype(np.int64)
    lw = xp.ascontiguousarray(lhs).astype(work, copy=False)
    rw = xp.ascontiguousarray(rhs).astype(work, copy=False)
    if op == "dot":
        split = _dot_split(fl, fr, lead)
    else:
        split = _group_split(fl, fr, lead)
    if split is None or not ok:
        rank = len(out_tail) if op != "dot" else len(lead) + 1
        lw = lw.reshape((lw.shape[0],) + (1,) * (rank - len(fl)) + fl)
        rw = rw.reshape((rw.shape[0],) + (1,) * (rank - len(fr)) + fr)
        out = xp.empty((num_edges,) + out_tail, dtype=work)
        kernel_function(xp, "sddmm", "sddmm_coo", False)(
            src_k, dst_k, lw, rw, out, op, lhs_target, rhs_target
        )
        out = out.astype(out_dtype, copy=False)
        return gather(out, edge_index.perm) if slots else out
    (gl, kl), (gr, kr), (g, k) = split
    lhs3 = lw.reshape(int(lhs.shape[0]), gl, kl)
    rhs3 = rw.reshape(int(rhs.shape[0]), gr, kr)
    out3 = xp.empty((num_edges, g, k), dtype=work)
    v_row = max(gl * kl if lhs_target == "v" else 0, gr * kr if rhs_target == "v" else 0)
    if num_edges and out3.size:
        if slots or _by_slots(xp, edge_index, lhs_target, rhs_target, g * k, v_row):
            # walk the CSR's slots: results in slot order (perm None), or, for a wide v
            # side on the CPU, written at each slot's edge with the v rows read in order
            csr = edge_index
            kernel_function(xp, "sddmm", "sddmm_csr")(
                csr.indptr,
                csr.indices,
                None if slots else csr.perm,
                lhs3,
                rhs3,
                out3,
                op,
                lhs_target,
                rhs_target,
            )
        else:
            kernel_function(xp, "sddmm", "sddmm_coo")(
                src_k, dst_k, lhs3, rhs3, out3, op, lhs_target, rhs_target
            )
    return out3.astype(out_dtype, copy=False).reshape((num_edges,) + out_tail)


def _by_slots(
    xp: Any, edge_index: Any, lhs_target: str, rhs_target: str, out_row: int, v_row: int
) -> bool:
    """Whether the CPU kernel walks a CSR's slots rather than the edges in order. In slot
    order the ``v`` rows are read in order but each result is written at a random edge:
    it pays when the result row is narrower than the ``v`` row it stops reading at random
    (``dot``), with a CSR given (no sort is ever run for it), no ``e`` operand (read
    through ``perm`` then) and edges not already in slot order. Measured on the 2-core
    box, float32, same process, two runs: ``u . v`` 1M nodes / 10M edges F = 16 406-529 ->
    186-203 ms, F = 64 541-737 -> 398-455 ms; 100k / 1M F = 64 41-50 -> 27-34 ms. Not for
    ``add`` / ``mul`` (results as wide as the operands): 0.72-0.91x at 100k / 1M and at 1M
    with 8 columns, 1.4-1.7x at 1M with 64 (benchmarks/RESULTS.md)."""
    return (
        xp is np
        and isinstance(edge_index, CSR)
        and not edge_index.perm_is_identity
        and "v" in (lhs_target, rhs_target)
        and "e" not in (lhs_target, rhs_target)
        and out_row < v_row
    )
