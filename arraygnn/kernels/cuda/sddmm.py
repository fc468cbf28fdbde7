"""CUDA SDDMM: one value per edge from its source (u), destination (v) or edge (e) rows.

``out[e, g, k] = op(lhs[i_l(e), g, k], rhs[i_r(e), g, k])`` for add / sub / mul / div /
copy_lhs / copy_rhs, and ``out[e, g, 0] = sum_d lhs[i_l(e), g, d] * rhs[i_r(e), g, d]`` for
dot, where ``i(e)`` is ``src[e]`` (target u), ``e`` (target e) or ``dst[e]`` (target v).
Size-1 dimensions of ``lhs`` / ``rhs`` broadcast (NumPy rules, after the caller has
aligned ranks to [rows, G, K]). Edge-parallel, one thread per output element, no
reduction across threads: deterministic. ``dot`` accumulates in float32 for float16.

By default from depth 32 on (``_launch.SDDMM_DOT_GROUPS`` and
``SDDMM_DOT_GROUPS_MIN_DEPTH``, chosen on the H200 timings of ``tools/gpu_check.py
--variants``, 2026-11-27): a ``dot`` with both sides of full depth D taken by a
group of ``L = min(32, next power of two >= D)`` lanes per output, lane ``l`` summing
``d = l, l + L, ...`` (neighbouring lanes read neighbouring features of one row:
coalesced, where one thread per output walks a whole row alone), then the ``L`` partial
sums combined by a fixed tree in float64 shared memory. Deterministic, but other bits
than the default kernel; the same bits for every launch whose threads per block are a
multiple of ``L`` (otherwise ``L`` shrinks to fit the block). float32 / float64 only.
"""

from __future__ import annotations

from typing import Any

from numba import cuda, float64

from arraygnn.kernels import reference
from arraygnn.kernels.cuda import _launch

__all__ = ["OP_CODES", "TARGET_CODES", "sddmm_coo", "sddmm_csr"]

ADD = 0
SUB = 1
MUL = 2
DIV = 3
DOT = 4
COPY_LHS = 5
COPY_RHS = 6

OP_CODES = {
    "add": ADD,
    "sub": SUB,
    "mul": MUL,
    "div": DIV,
    "dot": DOT,
    "copy_lhs": COPY_LHS,
    "copy_rhs": COPY_RHS,
}
TARGET_CODES = {"u": 0, "e": 1, "v": 2}


@cuda.jit(device=True, inline=True, cache=True)
def _row(target, e, src, dst):  # pragma: no cover - runs on the device
    if target == 0:
        return src[e]
    if target == 2:
        return dst[e]
    return e


# values widen to the accumulator type as ``x - acc_zero``, which keeps -0.0 (``x + 0.0``
# would not; see _row_reduce)


@cuda.jit(cache=True)
def _sddmm_kernel(
    src, dst, lhs, rhs, out, op, lhs_target, rhs_target, acc_zero
):  # pragma: no cover - runs on the device
    groups = out.shape[1]
    feats = out.shape[2]
    total = out.shape[0] * groups * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        k = t % feats
        q = t // feats
        g = q % groups
        e = q // groups
        li = _row(lhs_target, e, src, dst)
        ri = _row(rhs_target, e, src, dst)
        lg = g if lhs.shape[1] > 1 else 0
        rg = g if rhs.shape[1] > 1 else 0
        if op == DOT:
            acc = acc_zero
            depth = max(lhs.shape[2], rhs.shape[2])
            for d in range(depth):
                a = lhs[li, lg, d if lhs.shape[2] > 1 else 0]
                b = rhs[ri, rg, d if rhs.shape[2] > 1 else 0]
                acc += (a - acc_zero) * b
            out[e, g, k] = acc
            continue
        lk = k if lhs.shape[2] > 1 else 0
        rk = k if rhs.shape[2] > 1 else 0
        if op == COPY_LHS:
            out[e, g, k] = lhs[li, lg, lk]
        elif op == COPY_RHS:
            out[e, g, k] = rhs[ri, rg, rk]
        else:
            a = lhs[li, lg, lk] - acc_zero
            b = rhs[ri, rg, rk] - acc_zero
            if op == ADD:
                out[e, g, k] = a + b
            elif op == SUB:
                out[e, g, k] = a - b
            elif op == MUL:
                out[e, g, k] = a * b
            else:
                out[e, g, k] = a / b


#: threads per block the group kernel's shared scratch covers (CUDA's limit)
_MAX_BLOCK = 1024


@cuda.jit(cache=True)
def _dot_groups_kernel(
    src, dst, lhs, rhs, out, lhs_target, rhs_target, acc_zero, lanes, lane_bits
):  # pragma: no cover - runs on the device
    """``dot`` by groups of ``lanes`` threads (a power of two dividing the block width).
    Every thread of a block runs the same number of loop steps, so the barriers are
    reached by all of them."""
    partial = cuda.shared.array(_MAX_BLOCK, float64)
    groups = out.shape[1]
    depth = lhs.shape[2]
    total = out.shape[0] * groups * lanes
    tid = cuda.threadIdx.x
    width = cuda.blockDim.x
    lane = tid & (lanes - 1)
    for first in range(cuda.blockIdx.x * width, total, cuda.gridDim.x * width):
        t = first + tid
        item = t >> lane_bits
        e = item // groups
        g = item - e * groups
        acc = acc_zero
        if t < total:
            li = _row(lhs_target, e, src, dst)
            ri = _row(rhs_target, e, src, dst)
            lg = g if lhs.shape[1] > 1 else 0
            rg = g if rhs.shape[1] > 1 else 0
            for d in range(lane, depth, lanes):
                acc += (lhs[li, lg, d] - acc_zero) * rhs[ri, rg, d]
        partial[tid] = acc
        cuda.syncthreads()
        step = lanes >> 1
        while step > 0:
            if lane < step:
                partial[tid] += partial[tid + step]
            cuda.syncthreads()
            step >>= 1
        if t < total and lane == 0:
            out[e, g, 0] = partial[tid]
        cuda.syncthreads()


def dot_group_lanes(depth: int, threads_per_block: int) -> int:
    """Lanes per output of the group kernel: min(32, next power of two >= ``depth``),
    halved until it divides ``threads_per_block`` (a group never spans two blocks)."""
    lanes = 1
    while lanes < depth and lanes < 32:
        lanes *= 2
    while lanes > 1 and threads_per_block % lanes:
        lanes //= 2
    return lanes


def sddmm_coo(
    src: Any, dst: Any, lhs: Any, rhs: Any, out: Any, op: str, lhs_target: str, rhs_target: str
) -> Any:
    """Fill ``out`` [E, G, K] (K = 1 for ``dot``) edge by edge; see the module docstring.

    ``src`` / ``dst`` [E] int32/int64 (validated); ``lhs`` [R_l, G or 1, K or 1] and ``rhs``
    [R_r, G or 1, K or 1] (for ``dot`` the last dims are the reduced depth, equal or 1).
    Returns ``out``.
    """
    zero = _launch.accumulator_zero(out.dtype)
    depth = int(lhs.shape[2])
    grouped = (
        _launch.SDDMM_DOT_GROUPS
        and op == "dot"
        and out.dtype.itemsize >= 4
        and depth >= _launch.SDDMM_DOT_GROUPS_MIN_DEPTH
    )
    if grouped and depth > 1 and depth == rhs.shape[2]:  # float16: the default kernel
        _, threads = _launch.blocks_for(1)
        lanes = dot_group_lanes(depth, threads)
        if lanes > 1 and threads <= _MAX_BLOCK:
            _launch.launch(
                _dot_groups_kernel,
                out.shape[0] * out.shape[1] * lanes,
                src,
                dst,
                lhs,
                rhs,
                out,
                TARGET_CODES[lhs_target],
                TARGET_CODES[rhs_target],
                zero,
                lanes,
                lanes.bit_length() - 1,
            )
            return out
    _launch.launch(
        _sddmm_kernel,
        out.shape[0] * out.shape[1] * out.shape[2],
        src,
        dst,
        lhs,
        rhs,
        out,
        OP_CODES[op],
        TARGET_CODES[lhs_target],
        TARGET_CODES[rhs_target],
        zero,
    )
    return out


def sddmm_csr(
    indptr: Any,
    indices: Any,
    perm: Any,
    lhs: Any,
    rhs: Any,
    out: Any,
    op: str,
    lhs_target: str,
    rhs_target: str,
) -> Any:
    """``sddmm_coo`` over a CSR's slots (the CPU module's function of that name): targets
    ``u`` / ``v``, ``out`` in edge order through ``perm`` [nnz], or in slot order when
    ``perm`` is None. The edge-parallel kernel runs on the slots (source ``indices[j]``,
    target the slot's row), so each value is the edge's value bit for bit."""
    if "e" in (lhs_target, rhs_target):
        raise ValueError("sddmm_csr takes the targets 'u' and 'v' only")
    xp = _launch.namespace(indptr)
    nnz = int(indices.shape[0])
    if nnz == 0 or out.size == 0:
        return out
    rows = reference.rows_of_slots(xp, indptr).astype(indices.dtype, copy=False)
    target = out if perm is None else xp.empty_like(out)
    sddmm_coo(indices, rows, lhs, rhs, target, op, lhs_target, rhs_target)
    if perm is not None:
        out[perm] = target
    return out
