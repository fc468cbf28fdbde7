"""Destination-sorted CSR of an edge list, built once and reused by every op.

``to_csr(edge_index, num_src_nodes, num_dst_nodes)`` sorts the edges by target with a
stable sort, so within one target the edges keep their original order; every reduction
visits them in that order, which is what makes the results deterministic (the same bits
on every run and every thread count). Pass the ``CSR`` to ``spmm`` / ``sddmm`` /
``edge_softmax`` in place of ``edge_index`` and repeated calls skip the sort.

RULE: ``indptr[t]:indptr[t+1]`` are the CSR slots of target ``t``; slot ``j`` holds edge
``perm[j]`` whose source is ``indices[j] == src[perm[j]]``.
RULE: all index arrays of one CSR share a dtype: int32 when ``edge_index`` is int32 (and
every size fits), else int64.
RULE: the CSR lives on the device of ``edge_index`` (built with NumPy or CuPy functions).

>>> import numpy as np
>>> csr = to_csr(np.array([[0, 1, 2], [1, 0, 1]]), 3, 2)
>>> csr.indptr.tolist(), csr.indices.tolist(), csr.perm.tolist()
([0, 1, 3], [1, 0, 2], [1, 0, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_cupy_array
from arraygnn.kernels.reference import rows_of_slots
from arraygnn.ops._common import (
    _one_pass_bounds,
    check_array,
    check_bounds,
    check_index,
    check_size,
    index_dtype_for,
    kernel_function,
)
from arraygnn.ops.gather import _row_view

__all__ = ["CSR", "to_csr", "as_csr"]


class CSR:
    """A destination-sorted CSR of ``num_edges`` edges from ``num_src_nodes`` sources to
    ``num_dst_nodes`` targets (build it with :func:`to_csr`).

    Attributes (all 1-D index arrays on the edge list's device, one dtype; read-only):

    - ``indptr`` [num_dst_nodes + 1]: row pointer over the CSR slots;
    - ``indices`` [num_edges]: source node of each slot;
    - ``perm`` [num_edges]: edge id of each slot (``perm_is_identity`` when the edges were
      already sorted by target);
    - ``src`` / ``dst`` [num_edges]: the edge list in its original order.

    Built directly (``CSR(indptr, indices, perm, src, dst, n_src, n_dst)``, e.g. from
    another library's CSR), every array is checked before any kernel can read it (the
    kernels do not bounds-check): shapes, ids in range, ``indptr`` from 0 to E and
    non-decreasing, ``perm`` a permutation, and the slots consistent with the edge list
    (``indices == src[perm]``, ``dst[perm]`` = each slot's row). ``ValueError`` /
    ``TypeError`` name the array at fault. The arrays are copied (int32 when all are
    int32, else int64), so later changes to yours cannot reach the kernels.

    >>> import numpy as np
    >>> src, dst = np.array([2, 0, 1]), np.array([1, 0, 1])
    >>> CSR(np.array([0, 1, 3]), np.array([0, 2, 1]), np.array([1, 0, 2]), src, dst, 3, 2)
    CSR(num_src_nodes=3, num_dst_nodes=2, num_edges=3, index_dtype=int64, device='cpu')
    """

    __slots__ = (
        "_indptr",
        "_indices",
        "_perm",
        "_src",
        "_dst",
        "_num_src_nodes",
        "_num_dst_nodes",
        "_perm_is_identity",
    )

    def __init__(
        self,
        indptr: Any,
        indices: Any,
        perm: Any,
        src: Any,
        dst: Any,
        num_src_nodes: int,
        num_dst_nodes: int,
        perm_is_identity: bool = False,
    ) -> None:
        n_src = check_size("num_src_nodes", num_src_nodes)
        n_dst = check_size("num_dst_nodes", num_dst_nodes)
        arrays = _checked_parts(indptr, indices, perm, src, dst, n_src, n_dst)
        if perm_is_identity:
            xp = get_namespace(arrays[2])
            if not bool((arrays[2] == xp.arange(arrays[2].shape[0])).all()):
                raise ValueError("perm_is_identity=True but perm is not 0, 1, ..., E - 1")
        self._set(*arrays, n_src, n_dst, bool(perm_is_identity))

    @classmethod
    def _trusted(
        cls,
        indptr: Any,
        indices: Any,
        perm: Any,
        src: Any,
        dst: Any,
        num_src_nodes: int,
        num_dst_nodes: int,
        perm_is_identity: bool = False,
    ) -> CSR:
        """A CSR of arrays :func:`to_csr` just built (consistent by construction)."""
        self = object.__new__(cls)
        self._set(indptr, indices, perm, src, dst, num_src_nodes, num_dst_nodes, perm_is_identity)
        return self

    def _set(
        self,
        indptr: Any,
        indices: Any,
        perm: Any,
        src: Any,
        dst: Any,
        n_src: int,
        n_dst: int,
        identity: bool,
    ) -> None:
        self._indptr = indptr
        self._indices = indices
        self._perm = perm
        self._src = src
        self._dst = dst
        self._num_src_nodes = int(n_src)
        self._num_dst_nodes = int(n_dst)
        self._perm_is_identity = bool(identity)

    indptr = property(lambda self: self._indptr, doc="row pointer [num_dst_nodes + 1]")
    indices = property(lambda self: self._indices, doc="source of each slot [num_edges]")
    perm = property(lambda self: self._perm, doc="edge id of each slot [num_edges]")
    src = property(lambda self: self._src, doc="sources in edge order [num_edges]")
    dst = property(lambda self: self._dst, doc="targets in edge order [num_edges]")
    num_src_nodes = property(lambda self: self._num_src_nodes)
    num_dst_nodes = property(lambda self: self._num_dst_nodes)
    perm_is_identity = property(lambda self: self._perm_is_identity)

    @property
    def num_edges(self) -> int:
        return int(self.indices.shape[0])

    @property
    def index_dtype(self) -> np.dtype:
        return np.dtype(self.indices.dtype)

    @property
    def edge_index(self) -> Any:
        """The [2, E] edge list in the original edge order (a new array)."""
        xp = get_namespace(self.src)
        return xp.stack([self.src, self.dst])

    @property
    def kernel_perm(self) -> Any:
        """``perm``, or ``None`` when it is the identity (kernels then skip the lookup)."""
        return None if self.perm_is_identity else self.perm

    def in_degrees(self) -> Any:
        """Number of edges into each target, [num_dst_nodes] (index dtype)."""
        return self.indptr[1:] - self.indptr[:-1]

    def __repr__(self) -> str:
        device = "cuda" if is_cupy_array(self.indptr) else "cpu"
        return (
            f"CSR(num_src_nodes={self.num_src_nodes}, num_dst_nodes={self.num_dst_nodes}, "
            f"num_edges={self.num_edges}, index_dtype={self.index_dtype}, device={device!r})"
        )


def _checked_parts(
    indptr: Any, indices: Any, perm: Any, src: Any, dst: Any, n_src: int, n_dst: int
) -> tuple[Any, ...]:
    """Copies of a caller's CSR arrays in one index dtype, after checking everything a
    kernel relies on (see :class:`CSR`); read-only when NumPy."""
    named = {"indptr": indptr, "indices": indices, "perm": perm, "src": src, "dst": dst}
    for name, a in named.items():
        check_array(f"CSR {name}", a)
        if a.dtype.kind not in "iu" or a.ndim != 1:
            raise TypeError(
                f"CSR {name} must be a 1-D integer array, got {a.ndim}-D of dtype {a.dtype}"
            )
    xp = get_namespace(*named.values())
    num_edges = int(indices.shape[0])
    if indptr.shape[0] != n_dst + 1:
        raise ValueError(
            f"CSR indptr must have num_dst_nodes + 1 = {n_dst + 1} entries, got {indptr.shape[0]}"
        )
    for name in ("perm", "src", "dst"):
        if named[name].shape[0] != num_edges:
            raise ValueError(
                f"CSR {name} has {named[name].shape[0]} entries but indices has {num_edges}"
            )
    if int(indptr[0]) != 0 or int(indptr[-1]) != num_edges:
        raise ValueError(
            f"CSR indptr must start at 0 and end at the number of edges ({num_edges}); "
            f"got {int(indptr[0])} and {int(indptr[-1])}"
        )
    if n_dst and not bool((indptr[1:] >= indptr[:-1]).all()):
        raise ValueError("CSR indptr must be non-decreasing")
    check_index("CSR indices", indices, n_src)
    check_index("CSR perm", perm, num_edges)
    check_index("CSR src", src, n_src)
    check_index("CSR dst", dst, n_dst)
    # every value is now in [0, max(E, n_src, n_dst)]: the copies cannot wrap
    all_int32 = all(a.dtype == np.int32 for a in named.values())
    fits = index_dtype_for(num_edges, n_src, n_dst) == np.int32
    idt = np.dtype(np.int32 if all_int32 and fits else np.int64)  # as to_csr
    ip, ind, pm, s, d = (xp.ascontiguousarray(a).astype(idt, copy=True) for a in named.values())
    if num_edges:
        seen = xp.zeros(num_edges, dtype=np.int8)
        seen[pm] = 1
        if not bool(seen.all()):
            raise ValueError("CSR perm must be a permutation of the edge ids 0 .. E - 1")
        if not bool((ind == s[pm]).all()):
            raise ValueError("CSR indices must be the sources of the slots: src[perm]")
        if not bool((d[pm] == rows_of_slots(xp, ip)).all()):
            raise ValueError("CSR dst[perm] must be each slot's row (the target of indptr)")
    out = (ip, ind, pm, s, d)
    _freeze(*out)
    return out


def _split_edge_index(edge_index: Any, name: str = "edge_index") -> tuple[Any, Any]:
    if isinstance(edge_index, (tuple, list)):
        if len(edge_index) != 2:
            raise ValueError(
                f"{name} must be [2, E] or a (src, dst) pair, got {len(edge_index)} items"
            )
        src, dst = edge_index
        check_array(f"{name}[0]", src)
        check_array(f"{name}[1]", dst)
        if src.ndim != 1 or dst.ndim != 1 or src.shape[0] != dst.shape[0]:
            raise ValueError(
                f"{name} (src, dst) must be two 1-D arrays of one length, got shapes "
                f"{tuple(src.shape)} and {tuple(dst.shape)}"
            )
        get_namespace(src, dst)
        return src, dst
    check_array(name, edge_index)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"{name} must have shape [2, E], got {tuple(edge_index.shape)}")
    return edge_index[0], edge_index[1]


def _index_dtype(src: Any, num_edges: int, n_src: int, n_dst: int) -> np.dtype:
    small = max(num_edges, n_src, n_dst) < 2**31 - 1
    if src.dtype == np.int32 and small:
        return np.dtype(np.int32)
    return np.dtype(np.int64)


def _freeze(*arrays: Any) -> None:
    for a in arrays:
        if isinstance(a, np.ndarray):
            a.setflags(write=False)


def sorted_segments(xp: Any, index: Any, dim_size: int) -> tuple[Any, Any]:
    """``(indptr, perm)`` of a validated COO index (entries in ``[0, dim_size)``): the
    stable sort :func:`to_csr` runs, without the CSR's copies and ``indices``. int32 for
    an int32 index when every size fits, else int64: never the index's own dtype when
    that is narrower (a uint16 index of 70,000 edges would wrap its row pointer) or not
    in native byte order (the kernels take neither)."""
    num = int(index.shape[0])
    idt = _index_dtype(index, num, dim_size, dim_size)
    keys = xp.ascontiguousarray(index).astype(idt, copy=False)
    indptr = xp.empty(dim_size + 1, dtype=idt)
    perm = xp.empty(num, dtype=idt)
    kernel_function(xp, "csr", "csr_from_keys")(keys, indptr, perm)
    return indptr, perm


def to_csr(edge_index: Any, num_src_nodes: int, num_dst_nodes: int) -> CSR:
    """Build the destination-sorted :class:`CSR` of ``edge_index`` [2, E] (or ``(src, dst)``).

    ``edge_index[0]`` are sources in ``[0, num_src_nodes)``, ``edge_index[1]`` targets in
    ``[0, num_dst_nodes)``; out-of-range or negative ids raise ``ValueError``. The edge list
    is not modified; the CSR owns its arrays (read-only NumPy arrays).

    >>> import numpy as np
    >>> to_csr(np.array([[0, 0], [1, 1]], dtype=np.int32), 1, 2).indptr.tolist()
    [0, 0, 2]
    """
    if isinstance(edge_index, CSR):
        return as_csr(edge_index, num_src_nodes, num_dst_nodes)
    n_src = check_size("num_src_nodes", num_src_nodes)
    n_dst = check_size("num_dst_nodes", num_dst_nodes)
    src, dst = _split_edge_index(edge_index)
    if _small_build(src, dst, n_src, n_dst):
        return _small_csr(src, dst, n_src, n_dst)
    check_index("edge_index[0] (sources)", src, n_src)
    check_index("edge_index[1] (targets)", dst, n_dst)
    xp = get_namespace(src, dst)
    num_edges = int(src.shape[0])
    idt = _index_dtype(src, num_edges, n_src, n_dst)
    src = xp.ascontiguousarray(src).astype(idt, copy=True)
    dst = xp.ascontiguousarray(dst).astype(idt, copy=True)
    indptr, perm = sorted_segments(xp, dst, n_dst)  # keeps idt: every size fits it
    # NumPy: a sorted edge list skips the gather; CuPy always gathers (no device sync)
    is_sorted = num_edges < 2 or (xp is np and bool((dst[1:] >= dst[:-1]).all()))
    if is_sorted:
        indices = src.copy()
    elif xp is np:
        # the engine's parallel, prefetching row gather (NumPy's src[perm] is serial:
        # 154 ms of 286 for 10M edges on the 2-core box)
        indices = np.empty_like(src)
        gather_rows = kernel_function(xp, "gather", "gather_rows")
        gather_rows(_row_view(src.reshape(-1, 1)), perm, _row_view(indices.reshape(-1, 1)))
    else:
        indices = src[perm]
    _freeze(indptr, indices, perm, src, dst)
    return CSR._trusted(indptr, indices, perm, src, dst, n_src, n_dst, is_sorted)


#: edge lists this small (edges + targets) are built by one serial kernel call
#: (``kernels/cpu/csr.py: small_csr``): the checks, sort and gather each cost a few us of
#: dispatch, more than the work itself on a 100-node graph
SMALL_CSR_WORK = 1 << 16
_SMALL_CSR_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _small_build(src: Any, dst: Any, n_src: int, n_dst: int) -> bool:
    """A NumPy edge list for :func:`_small_csr`: one native int32 / int64 dtype, contiguous
    1-D halves, at most ``SMALL_CSR_WORK`` edges + targets, and (int32) a source count
    that int32 holds (else the general path's int64, as :func:`_index_dtype`)."""
    return (
        isinstance(src, np.ndarray)
        and isinstance(dst, np.ndarray)
        and src.dtype in _SMALL_CSR_DTYPES
        and dst.dtype == src.dtype
        and src.ndim == 1
        and dst.ndim == 1
        and src.shape[0] + n_dst <= SMALL_CSR_WORK
        and (n_src < 2**31 - 1 or src.dtype == np.int64)
        and src.flags.c_contiguous
        and dst.flags.c_contiguous
    )


def _small_csr(src: Any, dst: Any, n_src: int, n_dst: int) -> CSR:
    """:func:`to_csr` of a small NumPy edge list (see :func:`_small_build`): the ids
    checked (one pass each, ``check_index``'s messages), then one kernel call builds every
    array; the same CSR as the general path."""
    num_edges = int(src.shape[0])
    if num_edges:
        for name, ids, size in (
            ("edge_index[0] (sources)", src, n_src),
            ("edge_index[1] (targets)", dst, n_dst),
        ):
            lo, hi = _one_pass_bounds()(ids)
            check_bounds(name, int(lo), int(hi), size)
    idt = src.dtype  # int32 stays int32: every size fits (_small_build)
    indptr = np.empty(n_dst + 1, dtype=idt)
    indices, perm = np.empty(num_edges, dtype=idt), np.empty(num_edges, dtype=idt)
    src_out, dst_out = np.empty(num_edges, dtype=idt), np.empty(num_edges, dtype=idt)
    build = kernel_function(np, "csr", "small_csr")
    in_order = build(src, dst, indptr, indices, perm, src_out, dst_out)
    _freeze(indptr, indices, perm, src_out, dst_out)
    return CSR._trusted(indptr, indices, perm, src_out, dst_out, n_src, n_dst, bool(in_order))


def as_csr(
    edge_index: Any,
    num_src_nodes: int | None,
    num_dst_nodes: int | None,
    name: str = "edge_index",
    src_from: str = "num_src_nodes={} was given",
) -> CSR:
    """``edge_index`` itself when it is a CSR of the given sizes, else ``to_csr`` of it.

    A ``None`` size takes the CSR's own; a given size that differs raises ``ValueError``
    (``src_from`` says where the source count came from, e.g. the features' rows).
    """
    if isinstance(edge_index, CSR):
        if num_src_nodes is not None and int(num_src_nodes) != edge_index.num_src_nodes:
            raise ValueError(
                f"{name} is a CSR with num_src_nodes={edge_index.num_src_nodes}, "
                f"but {src_from.format(int(num_src_nodes))}"
            )
        if num_dst_nodes is not None and int(num_dst_nodes) != edge_index.num_dst_nodes:
            raise ValueError(
                f"{name} is a CSR with num_dst_nodes={edge_index.num_dst_nodes}, "
                f"but num_dst_nodes={int(num_dst_nodes)} was given"
            )
        return edge_index
    if num_src_nodes is None or num_dst_nodes is None:  # pragma: no cover - callers pass both
        raise ValueError(f"{name}: node counts are needed to build a CSR")
    return to_csr(edge_index, num_src_nodes, num_dst_nodes)
