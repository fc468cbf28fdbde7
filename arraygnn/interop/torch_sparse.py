"""PyG's torch sparse and nested tensor converters, fed from NumPy / CuPy arrays.

``to_torch_coo_tensor``, ``to_torch_csr_tensor``, ``to_torch_csc_tensor`` and
``to_torch_sparse_tensor`` turn an ``edge_index`` [2, E] (and ``edge_attr`` [E, ...]) into a
``torch.sparse_coo`` / ``sparse_csr`` / ``sparse_csc`` adjacency of size
``(N, M) + edge_attr.shape[1:]``, exactly as PyG 2.8's functions of the same names do: the
edges coalesced (sorted by ``(row, col)``, by ``(col, row)`` for CSC; parallel edges merged,
their ``edge_attr`` summed), ``edge_attr=None`` giving ones of torch's default dtype (after
merging, so a parallel edge counts once), COO indices int64, CSR / CSC ids int32 when
``edge_index`` is int32 (PyG keeps int32 there), else int64. ``to_nested_tensor`` /
``from_nested_tensor`` move a batch's rows ``[N_1 + ... + N_B, *]`` into and out of a
``torch.nested`` tensor. ``from_torch_sparse`` (and :func:`arraygnn.utils.to_edge_index`)
goes back from a torch sparse tensor to ``(edge_index, edge_attr)``.

The sorting and merging run on arraygnn's arrays: on NumPy one fused pass of two stable
counting sorts (:mod:`arraygnn.kernels.cpu.lex_csr`, O(E + N)) that writes the CSR / CSC
pointer and the sorted ids at once, then the runs of parallel edges summed as segments
(the bits of :func:`arraygnn.utils.coalesce`, which runs instead on CuPy and for ids far
sparser than the edges). torch receives the finished arrays through
:func:`arraygnn.interop.to_torch` (``torch.from_numpy`` on the CPU, DLPack for CuPy).

RULE: memory is shared with the caller exactly where PyG shares it: with
``is_coalesced=True`` the caller's ``edge_index`` (int64 for COO, the output id dtype and
C-contiguous for CSR / CSC) and ``edge_attr`` *are* the tensor's parts, so an in-place
torch op on the result writes into them (as in PyG); with ``is_coalesced=False`` (the
default; PyG's ``coalesce`` returns new tensors) every part is new, even for edges that
are already coalesced. Read-only NumPy inputs are copied (a torch tensor is always
writable; no warning).

RULE: ``size=None`` (or a ``None`` in the pair) is ``edge_index.max() + 1`` as in PyG: one
reduction, a device-to-host sync on CuPy; an ``edge_index`` without edges needs ``size``.
RULE: ``is_coalesced=True`` is checked (one O(E) pass): edges not sorted, or with
duplicates, raise ``ValueError`` (PyG trusts the flag and builds an invalid tensor).
RULE: the sparse tensors are built with ``check_invariants=False``: every id is checked
here against ``size`` first.

>>> import numpy as np
>>> from arraygnn.interop import to_torch_csr_tensor
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> adj = to_torch_csr_tensor(ei, np.array([1.0, 2.0, 3.0, 4.0]), size=3)
>>> adj.crow_indices().tolist(), adj.col_indices().tolist(), adj.values().tolist()
([0, 1, 3, 4], [1, 0, 2, 1], [1.0, 2.0, 3.0, 4.0])
>>> adj.col_indices().data_ptr() == ei[1].ctypes.data  # a new array, as PyG's
False
>>> adj = to_torch_csr_tensor(ei, size=3, is_coalesced=True)
>>> adj.col_indices().data_ptr() == ei[1].ctypes.data  # the caller's, as PyG's
True
"""

from __future__ import annotations

import sys
import warnings
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import import_cupy, is_torch_tensor
from arraygnn.interop.torch import from_torch, import_torch, to_torch

__all__ = [
    "from_nested_tensor",
    "from_torch_sparse",
    "is_sparse",
    "is_torch_sparse_tensor",
    "to_nested_tensor",
    "to_torch_coo_tensor",
    "to_torch_csc_tensor",
    "to_torch_csr_tensor",
    "to_torch_sparse_tensor",
]

_LAYOUT_NAMES = ("sparse_coo", "sparse_csr", "sparse_csc")


def is_torch_sparse_tensor(src: Any) -> bool:
    """PyG's ``is_torch_sparse_tensor``: True for a ``torch.Tensor`` of layout
    ``sparse_coo``, ``sparse_csr`` or ``sparse_csc`` (never imports torch).

    >>> import numpy as np
    >>> is_torch_sparse_tensor(np.eye(2))
    False
    """
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(src, torch.Tensor):
        return False
    return src.layout in tuple(getattr(torch, name) for name in _LAYOUT_NAMES)


def is_sparse(src: Any) -> bool:
    """PyG's ``is_sparse``: a torch sparse tensor (:func:`is_torch_sparse_tensor`) or a
    ``torch_sparse.SparseTensor``; here also a SciPy or cupyx sparse matrix / array, the
    sparse adjacency of the array world (what :func:`arraygnn.utils.to_edge_index` and
    :func:`arraygnn.utils.spmm` take). Imports nothing.

    >>> import scipy.sparse as sp
    >>> is_sparse(sp.eye(2, format="csr")), is_sparse([[1, 0]])
    (True, False)
    """
    if is_torch_sparse_tensor(src):
        return True
    torch_sparse = sys.modules.get("torch_sparse")
    if torch_sparse is not None and isinstance(src, getattr(torch_sparse, "SparseTensor", ())):
        return True
    for name in ("scipy.sparse", "cupyx.scipy.sparse"):
        module = sys.modules.get(name)
        if module is not None and module.issparse(src):
            return True
    return False


# ---------------------------------------------------------------------------- to sparse


def to_torch_coo_tensor(
    edge_index: Any,
    edge_attr: Any = None,
    size: int | tuple[int | None, int | None] | None = None,
    is_coalesced: bool = False,
) -> Any:
    """A ``torch.sparse_coo`` adjacency ``[N, M, *]`` of ``edge_index`` [2, E] (PyG's
    ``to_torch_coo_tensor``), marked coalesced.

    ``edge_attr``: ``None`` (ones of torch's default dtype) or a numeric array [E, ...];
    ``size``: an int (square), a pair (a ``None`` entry is inferred) or ``None``
    (``edge_index.max() + 1``); ``is_coalesced=True`` promises sorted ``(row, col)`` pairs
    without duplicates (checked). NumPy gives CPU tensors, CuPy CUDA tensors.

    Shared / copied (as PyG): with ``is_coalesced=True``, ``indices`` *is* ``edge_index``
    (strides kept) when it is int64 (else an int64 cast) and ``values`` *is*
    ``edge_attr``; with ``is_coalesced=False`` both are new arrays; ones are new.

    >>> import numpy as np
    >>> adj = to_torch_coo_tensor(np.array([[1, 0, 1], [0, 1, 0]]), size=(2, 3))
    >>> adj.indices().tolist(), adj.values().tolist(), tuple(adj.shape)
    ([[0, 1], [1, 0]], [1.0, 1.0], (2, 3))
    """
    return _to_sparse("to_torch_coo_tensor", "coo", edge_index, edge_attr, size, is_coalesced)


def to_torch_csr_tensor(
    edge_index: Any,
    edge_attr: Any = None,
    size: int | tuple[int | None, int | None] | None = None,
    is_coalesced: bool = False,
) -> Any:
    """A ``torch.sparse_csr`` adjacency ``[N, M, *]`` of ``edge_index`` [2, E] (PyG's
    ``to_torch_csr_tensor``); arguments as :func:`to_torch_coo_tensor`.

    Shared / copied (as PyG): ``crow_indices`` is new (a count of each row's edges); with
    ``is_coalesced=True``, ``col_indices`` *is* ``edge_index[1]`` and ``values`` *is*
    ``edge_attr`` when the arrays are C-contiguous (torch's CSR kernels ignore strides)
    and in the output id dtype (int32 for int32 ids, else int64); otherwise new.

    >>> import numpy as np
    >>> adj = to_torch_csr_tensor(np.array([[1, 0, 1], [0, 1, 0]], dtype=np.int32), size=2)
    >>> adj.crow_indices().tolist(), adj.col_indices().dtype
    ([0, 1, 2], torch.int32)
    """
    return _to_sparse("to_torch_csr_tensor", "csr", edge_index, edge_attr, size, is_coalesced)


def to_torch_csc_tensor(
    edge_index: Any,
    edge_attr: Any = None,
    size: int | tuple[int | None, int | None] | None = None,
    is_coalesced: bool = False,
) -> Any:
    """A ``torch.sparse_csc`` adjacency ``[N, M, *]`` of ``edge_index`` [2, E] (PyG's
    ``to_torch_csc_tensor``): the edges sorted by ``(col, row)``; arguments as
    :func:`to_torch_coo_tensor` (``is_coalesced=True`` promises ``(col, row)`` order).

    Shared / copied: ``ccol_indices`` is new; ``row_indices`` *is* ``edge_index[0]`` and
    ``values`` *is* ``edge_attr`` under the conditions of :func:`to_torch_csr_tensor`
    (``is_coalesced=True`` among them).

    >>> import numpy as np
    >>> adj = to_torch_csc_tensor(np.array([[1, 0, 1], [0, 1, 0]]), size=2)
    >>> adj.ccol_indices().tolist(), adj.row_indices().tolist()
    ([0, 1, 2], [1, 0])
    """
    return _to_sparse("to_torch_csc_tensor", "csc", edge_index, edge_attr, size, is_coalesced)


def to_torch_sparse_tensor(
    edge_index: Any,
    edge_attr: Any = None,
    size: int | tuple[int | None, int | None] | None = None,
    is_coalesced: bool = False,
    layout: Any = None,
) -> Any:
    """PyG's ``to_torch_sparse_tensor``: :func:`to_torch_coo_tensor`,
    :func:`to_torch_csr_tensor` or :func:`to_torch_csc_tensor` by ``layout``
    (``torch.sparse_coo``, the default when ``None``, ``torch.sparse_csr`` or
    ``torch.sparse_csc``; anything else is a ``ValueError``).

    >>> import numpy as np, torch
    >>> to_torch_sparse_tensor(np.array([[0], [1]]), layout=torch.sparse_csc).layout
    torch.sparse_csc
    """
    torch = import_torch()
    layouts = {getattr(torch, name): name[7:] for name in _LAYOUT_NAMES}
    if layout is None:
        layout = torch.sparse_coo
    if not isinstance(layout, torch.layout) or layout not in layouts:
        raise ValueError(
            "to_torch_sparse_tensor: layout must be torch.sparse_coo, torch.sparse_csr or "
            f"torch.sparse_csc, got {layout!r}"
        )
    kind = layouts[layout]
    where = f"to_torch_{kind}_tensor"
    return _to_sparse(where, kind, edge_index, edge_attr, size, is_coalesced)


def _to_sparse(
    where: str, kind: str, edge_index: Any, edge_attr: Any, size: Any, is_coalesced: Any
) -> Any:
    from arraygnn.utils._checks import bool_arg, check_ids, edge_index_arg, optional_edge_attr
    from arraygnn.utils.coalesce import check_attrs, coalesce

    torch = import_torch()
    xp = edge_index_arg(where, edge_index)
    is_coalesced = bool_arg(where, "is_coalesced", is_coalesced)
    optional_edge_attr(where, edge_index, edge_attr)
    check_attrs(where, edge_index, edge_attr, None if edge_attr is None else [edge_attr])
    n, m = _size_pair(where, edge_index, size)
    check_ids(where, "edge_index[0]", edge_index[0], n)
    check_ids(where, "edge_index[1]", edge_index[1], m)

    by_row = kind != "csc"
    # COO ids are int64; CSR / CSC ids int32 for int32 edge_index (as PyG), else int64
    small = kind != "coo" and edge_index.dtype == np.int32 and edge_index.shape[1] < 2**31
    idt = np.dtype(np.int32 if small else np.int64)
    n_major, n_minor = (n, m) if by_row else (m, n)
    if _is_coalesced(xp, edge_index, by_row):
        if not is_coalesced:  # PyG's coalesce returns new tensors: nothing is shared
            if edge_index.dtype == idt:  # (other id dtypes are cast: new arrays anyway)
                edge_index = edge_index.copy()
            edge_attr = None if edge_attr is None else edge_attr.copy()
        major, minor = (edge_index[0], edge_index[1]) if by_row else (edge_index[1], edge_index[0])
        ptr = None
    elif is_coalesced:
        order = "(row, col)" if by_row else "(col, row)"
        raise ValueError(
            f"{where}: is_coalesced=True but edge_index is not sorted by {order} without "
            "duplicates; pass is_coalesced=False to coalesce it"
        )
    else:
        major, minor = (edge_index[0], edge_index[1]) if by_row else (edge_index[1], edge_index[0])
        ptr, minor, edge_attr = _compressed(xp, major, minor, edge_attr, n_major, n_minor, idt)
        if ptr is None:  # CuPy, or ids far sparser than the edges: arraygnn's coalesce
            edge_index, edge_attr = coalesce(edge_index, edge_attr, max(n, m), sort_by_row=by_row)
            major, minor = (
                (edge_index[0], edge_index[1]) if by_row else (edge_index[1], edge_index[0])
            )
    num_edges = int(minor.shape[0])

    if kind == "coo":
        if ptr is None:
            ids = edge_index.astype(np.int64, copy=False)
        else:  # rows expanded from the pointer (by_row: COO is row-major)
            ids = xp.empty((2, num_edges), dtype=np.int64)
            ids[0] = xp.repeat(xp.arange(n_major, dtype=np.int64), xp.diff(ptr))
            ids[1] = minor
        ids_t = to_torch(ids)
        values = _values(torch, edge_attr, num_edges, ids_t.device)
        return torch.sparse_coo_tensor(
            ids_t,
            values,
            size=(n, m) + tuple(values.shape[1:]),
            is_coalesced=True,
            check_invariants=False,
        )

    # CSR / CSC: torch's compressed kernels read these arrays as C-contiguous
    if ptr is None:
        ptr = xp.zeros(n_major + 1, dtype=idt)
        if num_edges:
            counts = xp.bincount(major.astype(np.int64, copy=False), minlength=n_major)
            xp.cumsum(counts, dtype=idt, out=ptr[1:])
    ptr_t = to_torch(ptr)
    minor_t = to_torch(xp.ascontiguousarray(minor.astype(idt, copy=False)))
    if edge_attr is not None:
        edge_attr = xp.ascontiguousarray(edge_attr)
    values = _values(torch, edge_attr, num_edges, ptr_t.device)
    shape = (n, m) + tuple(values.shape[1:])
    build = torch.sparse_csr_tensor if by_row else torch.sparse_csc_tensor
    with warnings.catch_warnings():  # torch's one-time "support is in beta" notice
        warnings.filterwarnings("ignore", message="Sparse CS. tensor support is in beta")
        return build(ptr_t, minor_t, values, size=shape, check_invariants=False)


def _compressed(
    xp: ModuleType,
    major: Any,
    minor: Any,
    edge_attr: Any,
    n_major: int,
    n_minor: int,
    idt: np.dtype,
) -> tuple[Any, Any, Any]:
    """``(ptr [n_major + 1], minor [E'], edge_attr [E', ...])`` of unsorted edges (ids
    validated): sorted by ``(major, minor)``, parallel edges merged and their features
    summed in edge order (the bits of :func:`arraygnn.utils.coalesce`). NumPy: one fused
    pass of two stable counting sorts (:mod:`arraygnn.kernels.cpu.lex_csr`, O(E + N)),
    then the runs of equal edges reduced as segments. ``(None, minor, edge_attr)`` on CuPy
    or where the ids are far sparser than the edges (the caller coalesces then)."""
    from arraygnn import ops
    from arraygnn.kernels.cpu.lex_csr import lex_csr
    from arraygnn.ops._common import kernel_index
    from arraygnn.utils.scatter import segment_rows

    num_edges = int(major.shape[0])
    size = max(n_major, n_minor)
    if xp is not np or size > 2 * num_edges + 1024:
        return None, minor, edge_attr
    indptr = np.empty(size + 1, dtype=idt)
    index = np.empty(num_edges, dtype=idt)
    perm = np.empty(num_edges, dtype=np.int64)
    lex_csr(kernel_index(np, major), kernel_index(np, minor), indptr, index, perm)
    ptr = indptr[: n_major + 1]
    new = np.empty(num_edges, dtype=bool)  # first slot of a run of equal edges
    new[:1] = True
    np.not_equal(index[1:], index[:-1], out=new[1:])
    starts = ptr[:-1]
    new[starts[starts < num_edges]] = True
    if edge_attr is not None:
        edge_attr = ops.gather(edge_attr, perm)
    if not bool(new.all()):
        keep = np.flatnonzero(new)
        before = np.zeros(num_edges + 1, dtype=np.int64)  # runs started before each slot
        np.cumsum(new, out=before[1:])
        ptr = before[ptr].astype(idt)
        index = index[keep]
        if edge_attr is not None:
            seg = np.append(keep, num_edges)
            edge_attr = segment_rows(np, edge_attr, seg, "sum")
    return ptr, index, edge_attr


def _values(torch: ModuleType, edge_attr: Any, num_edges: int, device: Any) -> Any:
    """``edge_attr`` handed to torch (shared where it can be), or PyG's ones."""
    if edge_attr is None:
        return torch.ones(num_edges, device=device)
    return to_torch(edge_attr)


def _is_coalesced(xp: ModuleType, edge_index: Any, by_row: bool) -> bool:
    """Whether the edges are sorted by ``(row, col)`` (``(col, row)``) without duplicates:
    each pair strictly greater than the one before (one vectorised pass)."""
    first, second = (edge_index[0], edge_index[1]) if by_row else (edge_index[1], edge_index[0])
    if first.shape[0] < 2:
        return True
    a0, a1, b0, b1 = first[:-1], first[1:], second[:-1], second[1:]
    return bool(((a1 > a0) | ((a1 == a0) & (b1 > b0))).all())


def _size_pair(where: str, edge_index: Any, size: Any) -> tuple[int, int]:
    """PyG's ``size``: an int (square), a pair with ``None`` entries inferred as
    ``edge_index[k].max() + 1``, or ``None`` (square, ``edge_index.max() + 1``)."""
    from arraygnn.ops._common import check_size
    from arraygnn.utils._checks import check_ids

    def inferred(ids: Any, name: str) -> int:
        check_ids(where, name, ids, None)
        if ids.size == 0:
            raise ValueError(
                f"{where}: size must be given for an edge_index without edges (PyG infers it "
                "as edge_index.max() + 1)"
            )
        return int(ids.max()) + 1

    if size is None:
        s = inferred(edge_index, "edge_index")
        return s, s
    if isinstance(size, (tuple, list)):
        if len(size) != 2:
            raise ValueError(f"{where}: size must be an int or a pair (N, M), got {size!r}")
        return tuple(  # type: ignore[return-value]
            inferred(edge_index[k], f"edge_index[{k}]")
            if s is None
            else check_size(f"{where}: size[{k}]", s)
            for k, s in enumerate(size)
        )
    s = check_size(f"{where}: size", size)
    return s, s


# ------------------------------------------------------------------------------- back


def from_torch_sparse(adj: Any, *, where: str = "from_torch_sparse") -> tuple[Any, Any]:
    """``(edge_index [2, nnz] int64, edge_attr [nnz, ...])`` of a torch sparse tensor
    (layout ``sparse_coo``, ``sparse_csr`` or ``sparse_csc``, two sparse dimensions, dense
    feature dimensions allowed, no batch dimensions: ``ValueError``, where PyG fails inside
    torch): PyG's ``to_edge_index``, with NumPy results for a CPU tensor and CuPy for a
    CUDA one.

    The entries come in storage order, as PyG's: a COO tensor's as stored (coalesced or
    not; PyG marks the input coalesced, this leaves it as it is), CSR row by row, CSC
    column by column. Shared / copied: ``edge_attr`` *is* the tensor's values (no copy)
    and a COO tensor's ``edge_index`` *is* its indices (as PyG); CSR / CSC ids are new
    (the compressed pointer expanded). Gradients are dropped.

    >>> import torch
    >>> adj = torch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse_csc()
    >>> ei, w = from_torch_sparse(adj)
    >>> ei.tolist(), w.tolist()
    ([[1, 0], [0, 1]], [3.0, 2.0])
    """
    if not is_torch_tensor(adj) or not hasattr(adj, "layout"):
        raise TypeError(f"{where}: adj must be a torch sparse tensor, got {type(adj).__name__}")
    torch = import_torch()
    layout = adj.layout
    if layout not in (torch.sparse_coo, torch.sparse_csr, torch.sparse_csc):
        raise ValueError(
            f"{where}: adj must have layout sparse_coo, sparse_csr or sparse_csc, got {layout}"
        )
    if adj.sparse_dim() != 2:
        raise ValueError(
            f"{where}: adj must have two sparse dimensions (an adjacency matrix), got "
            f"{adj.sparse_dim()}"
        )
    if adj.dim() - adj.dense_dim() != 2:  # CSR / CSC with batch dimensions
        raise ValueError(
            f"{where}: adj must be a 2-D adjacency (plus dense feature dimensions), got "
            f"shape {tuple(adj.shape)} with {adj.dim() - adj.dense_dim() - 2} batch dimension(s)"
        )
    adj = adj.detach()
    if layout == torch.sparse_coo:
        ids, values = adj._indices(), adj._values()
    else:
        if layout == torch.sparse_csr:
            ptr, minor = adj.crow_indices(), adj.col_indices()
        else:
            ptr, minor = adj.ccol_indices(), adj.row_indices()
        major = torch.repeat_interleave(
            torch.arange(ptr.numel() - 1, device=ptr.device), ptr[1:] - ptr[:-1]
        )
        pair = (major, minor.long()) if layout == torch.sparse_csr else (minor.long(), major)
        ids, values = torch.stack(pair), adj.values()
    edge_index, edge_attr = from_torch((ids, values))
    if is_torch_tensor(edge_attr):
        raise TypeError(f"{where}: adj has values of dtype {values.dtype}, which NumPy cannot hold")
    return edge_index, edge_attr


# ----------------------------------------------------------------------------- nested


def to_nested_tensor(
    x: Any,
    batch: Any = None,
    ptr: Any = None,
    batch_size: int | None = None,
    *,
    layout: Any = None,
) -> Any:
    """PyG's ``to_nested_tensor``: the rows of ``x`` [N_1 + ... + N_B, *] as a nested torch
    tensor of ``B`` pieces [N_i, *].

    The pieces come from ``ptr`` ([B + 1] offsets; only their differences count, as in
    PyG), else from ``batch`` ([N] graph ids, sorted: ``ValueError`` if not; ``B`` is
    ``batch_size``, else ``batch.max() + 1``, so graphs without rows become empty pieces),
    else ``x`` is one piece. ``batch_size`` is ignored with ``ptr`` (as PyG). The piece
    sizes are read on the host (a device-to-host sync for CuPy).

    ``layout``: ``None`` / ``torch.strided`` gives PyG's strided nested tensor, which
    *copies* ``x`` (torch has no public way to wrap a buffer); ``torch.jagged`` wraps ``x``
    without a copy (``torch.nested.nested_tensor_from_jagged``; ``x`` is copied only when
    not C-contiguous or read-only).

    >>> import numpy as np
    >>> nt = to_nested_tensor(np.arange(6.0).reshape(3, 2), batch=np.array([0, 2, 2]))
    >>> [tuple(t.shape) for t in nt.unbind()]
    [(1, 2), (0, 2), (2, 2)]
    """
    from arraygnn.utils._checks import (
        batch_counts,
        check_array_arg,
        check_int_array,
        same_device,
    )

    where = "to_nested_tensor"
    torch = import_torch()
    if layout is None:
        layout = torch.strided
    if layout not in (torch.strided, torch.jagged):
        raise ValueError(f"{where}: layout must be torch.strided or torch.jagged, got {layout!r}")
    check_array_arg(where, "x", x)
    if x.dtype.kind not in "biufc":
        raise TypeError(f"{where}: x must be a numeric or boolean array, got dtype {x.dtype}")
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension (rows), got a scalar")
    num_rows = int(x.shape[0])
    if ptr is not None:
        check_int_array(where, "ptr", ptr)
        same_device(where, x=x, ptr=ptr)
        if ptr.ndim != 1 or ptr.shape[0] == 0:
            raise ValueError(
                f"{where}: ptr must have shape (B + 1,), at least one entry, got {tuple(ptr.shape)}"
            )
        sizes = ptr[1:].astype(np.int64) - ptr[:-1].astype(np.int64)
        if sizes.size and int(sizes.min()) < 0:
            raise ValueError(f"{where}: ptr must be non-decreasing")
        if int(sizes.sum()) != num_rows:
            raise ValueError(
                f"{where}: ptr spans {int(sizes.sum())} rows (ptr[-1] - ptr[0]) but x has "
                f"{num_rows}"
            )
    elif batch is not None:
        xp = _namespace_of(where, x, batch)
        sizes = batch_counts(where, xp, batch, num_rows, batch_size, empty=0)
    else:
        sizes = np.array([num_rows])
    sizes = _host(sizes).astype(np.int64)
    if layout == torch.jagged:
        offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        values = to_torch(_contiguous(x))
        offsets_t = torch.from_numpy(offsets).to(values.device)
        return torch.nested.nested_tensor_from_jagged(values, offsets_t)
    pieces = list(torch.split(to_torch(x), sizes.tolist(), dim=0))
    return torch.nested.as_nested_tensor(pieces)


def from_nested_tensor(x: Any, return_batch: bool = False) -> Any:
    """PyG's ``from_nested_tensor``: the pieces [N_i, *] of a nested torch tensor (strided,
    or jagged) stacked into one array [N_1 + ... + N_B, *], and with ``return_batch=True``
    also the int64 graph id of each row, ``(x, batch)``.

    NumPy results for a CPU tensor, CuPy for a CUDA one. Shared / copied: the rows *are*
    the nested tensor's buffer when it is contiguous (``x.contiguous().values()``, as PyG),
    else a compacted copy; ``batch`` is new. Pieces that differ beyond their first
    dimension raise ``ValueError`` (as PyG), also for a jagged tensor ragged in a later
    dimension (transposed; equal pieces are stacked, a copy).

    >>> import torch
    >>> nt = torch.nested.nested_tensor([torch.ones(2, 3), torch.zeros(0, 3), torch.ones(1, 3)])
    >>> out, batch = from_nested_tensor(nt, return_batch=True)
    >>> out.shape, batch.tolist()
    ((3, 3), [0, 0, 2])
    """
    from arraygnn.utils._checks import bool_arg

    where = "from_nested_tensor"
    if not is_torch_tensor(x) or not hasattr(x, "is_nested"):
        raise TypeError(f"{where}: x must be a nested torch tensor, got {type(x).__name__}")
    if not x.is_nested:
        raise ValueError(f"{where}: x is not a nested tensor (torch.nested)")
    return_batch = bool_arg(where, "return_batch", return_batch)
    torch = import_torch()
    x = x.detach().contiguous()
    if x.size(0) == 0:  # no pieces: no rows, and no trailing shape to read
        sizes = np.zeros(0, dtype=np.int64)
        out = torch.empty(0, dtype=x.dtype, device=x.device)
    elif x.layout == torch.jagged and x._ragged_idx == 1:
        offsets = x.offsets().cpu().numpy()
        sizes = offsets[1:] - offsets[:-1]
        out = x.values()
    else:
        if x.layout == torch.jagged:  # ragged beyond the first dimension (transposed)
            pieces = x.unbind()
            table = np.array([tuple(p.shape) for p in pieces], dtype=np.int64)
        else:
            table = x._nested_tensor_size().cpu().numpy().reshape(x.size(0), -1)
        if table.shape[1] == 0:
            raise ValueError(f"{where}: x holds 0-dimensional pieces (no rows to stack)")
        sizes, trailing = table[:, 0], table[0, 1:]
        for dim in range(trailing.shape[0]):
            if not bool((table[:, dim + 1] == trailing[dim]).all()):
                raise ValueError(
                    f"{where}: not all nested tensors have the same size in dimension "
                    f"{dim + 1} (expected size {int(trailing[dim])} for all tensors)"
                )
        if x.layout == torch.jagged:
            out = torch.cat(pieces)
        else:
            out = x.values().view(-1, *trailing.tolist())
    rows = from_torch(out)
    if is_torch_tensor(rows):
        raise TypeError(f"{where}: x has dtype {x.dtype}, which NumPy cannot hold")
    if not return_batch:
        return rows
    batch = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes.astype(np.int64))
    if x.device.type == "cuda":
        batch = import_cupy().asarray(batch)
    return rows, batch


def _namespace_of(where: str, x: Any, batch: Any) -> ModuleType:
    from arraygnn.utils._checks import check_int_array, same_device

    check_int_array(where, "batch", batch)
    return same_device(where, x=x, batch=batch)


def _host(a: Any) -> np.ndarray:
    return a if isinstance(a, np.ndarray) else a.get()


def _contiguous(x: Any) -> Any:
    from arraygnn._namespace import get_namespace

    return get_namespace(x).ascontiguousarray(x)
