"""``GraphStore`` / ``EdgeAttr`` / ``EdgeLayout``: PyG's remote-backend interface for a
graph's structure, and :class:`InMemoryGraphStore`, a dict of NumPy / CuPy arrays.

A graph store holds, per edge type (``None`` for a homogeneous graph, else ``(src, rel,
dst)``), the edges in one or more layouts: COO ``(row, col)``, CSR ``(rowptr, col)`` or
CSC ``(row, colptr)`` (PyG's order: the pointer is always the second half for CSC).
Users subclass :class:`GraphStore` over their own storage by writing ``_put_edge_index``,
``_get_edge_index`` (``None`` when absent), ``_remove_edge_index`` and
``get_all_edge_attrs``; :meth:`GraphStore.coo` / :meth:`~GraphStore.csr` /
:meth:`~GraphStore.csc` convert what is stored (PyG's rules and return layout:
``(row, colptr, perm)`` for ``csc()``, dicts per edge type for a heterogeneous store).

RULE: ``perm`` is ``None`` when no sort was needed (the layout was stored, or the edges
      were stored ``is_sorted`` by destination for ``csc()``), else the stable sort
      order that maps the converted edges to the stored ones (``row[perm]``).
RULE: converting COO to CSR / CSC needs the edge attribute's ``size`` (a ``ValueError``
      says so); PyG falls back to ``index.max() + 1``, which arraygnn never guesses.
RULE: what PyG would turn into a wrong pointer raises ``ValueError`` naming the edge type:
      ids of the pointer's side outside ``[0, size)``, ``is_sorted=True`` COO whose cols
      are not sorted, COO halves of different lengths, a CSR / CSC pointer whose length
      is not ``size + 1``, a ``size`` that is not two non-negative integers.

>>> import numpy as np
>>> gs = InMemoryGraphStore()
>>> gs.put_edge_index((np.array([0, 2, 1]), np.array([1, 0, 0])), edge_type=None,
...                   layout="coo", size=(3, 3))
True
>>> row, colptr, perm = gs.csc()
>>> row.tolist(), colptr.tolist(), perm.tolist()
([2, 1, 0], [0, 2, 3, 3], [1, 2, 0])
"""

from __future__ import annotations

import copy
import operator
from abc import ABC, abstractmethod
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, is_torch_tensor, repeat_counts
from arraygnn.feature_store import CastMixin

__all__ = ["EdgeAttr", "EdgeLayout", "GraphStore", "InMemoryGraphStore"]


class EdgeLayout(Enum):
    """How a stored edge index is laid out (PyG's ``EdgeLayout``)."""

    COO = "coo"
    CSC = "csc"
    CSR = "csr"


@dataclass(init=False)
class EdgeAttr(CastMixin):
    """What identifies an edge index in a :class:`GraphStore` (PyG's ``EdgeAttr``).

    Args:
        edge_type: ``None`` (homogeneous) or ``(src, rel, dst)``.
        layout: an :class:`EdgeLayout` or its value (``'coo'``, ``'csr'``, ``'csc'``).
        is_sorted: whether COO edges are sorted by destination (always ``True`` for CSC;
            ``ValueError`` for CSR, PyG's rule).
        size: ``(num_src_nodes, num_dst_nodes)``, or ``None``.
    """

    edge_type: Any
    layout: EdgeLayout
    is_sorted: bool = False
    size: tuple[int, int] | None = None

    def __init__(
        self,
        edge_type: Any,
        layout: EdgeLayout | str,
        is_sorted: bool = False,
        size: tuple[int, int] | None = None,
    ) -> None:
        layout = EdgeLayout(layout)
        if layout == EdgeLayout.CSR and is_sorted:
            raise ValueError("Cannot create a 'CSR' edge attribute with option 'is_sorted=True'")
        if layout == EdgeLayout.CSC:
            is_sorted = True
        self.edge_type = edge_type
        self.layout = layout
        self.is_sorted = is_sorted
        self.size = size


def ptr2index(ptr: Any) -> Any:
    """Segment ids from a pointer array: ``[0, 2, 3] -> [0, 0, 1]``, in ``ptr``'s dtype
    (PyG's ``ptr2index``)."""
    xp = get_namespace(ptr)
    n = int(ptr.shape[0]) - 1
    ids = repeat_counts(xp, xp.arange(n, dtype=np.int64), xp.diff(ptr).astype(np.int64))
    return ids.astype(ptr.dtype, copy=False)


def index2ptr(index: Any, size: int) -> Any:
    """The pointer array (``size + 1`` entries) of sorted segment ids, in ``index``'s dtype."""
    xp = get_namespace(index)
    return xp.searchsorted(index, xp.arange(size + 1)).astype(index.dtype)


class GraphStore(ABC):
    """PyG's abstract graph store: subclass it and write ``_put_edge_index``,
    ``_get_edge_index`` (``None`` when absent), ``_remove_edge_index`` and
    ``get_all_edge_attrs``.

    Args:
        edge_attr_cls: an ``EdgeAttr`` subclass with other fields or another field order
            (default: :class:`EdgeAttr`).
    """

    _edge_attr_cls: Any = EdgeAttr  # (also when a subclass skips super().__init__())

    def __init__(self, edge_attr_cls: Any = None) -> None:
        super().__init__()
        self.__dict__["_edge_attr_cls"] = edge_attr_cls or EdgeAttr

    # --- to be written by subclasses ---------------------------------------------------
    @abstractmethod
    def _put_edge_index(self, edge_index: tuple[Any, Any], edge_attr: EdgeAttr) -> bool:
        """Store ``edge_index`` (two arrays, in ``edge_attr.layout``); whether it worked."""

    @abstractmethod
    def _get_edge_index(self, edge_attr: EdgeAttr) -> tuple[Any, Any] | None:
        """The two arrays stored for ``edge_attr``, or ``None``."""

    @abstractmethod
    def _remove_edge_index(self, edge_attr: EdgeAttr) -> bool:
        """Remove what is stored for ``edge_attr``; whether it was there."""

    @abstractmethod
    def get_all_edge_attrs(self) -> list[EdgeAttr]:
        """Every stored edge attribute (one per edge type and layout)."""

    # --- PyG's public API -------------------------------------------------------------
    def put_edge_index(self, edge_index: tuple[Any, Any], *args: Any, **kwargs: Any) -> bool:
        """Store ``edge_index`` under ``EdgeAttr(*args, **kwargs)``."""
        return self._put_edge_index(edge_index, self._edge_attr_cls.cast(*args, **kwargs))

    def get_edge_index(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """The two arrays stored under ``EdgeAttr(*args, **kwargs)``; ``KeyError`` if none."""
        edge_attr = self._edge_attr_cls.cast(*args, **kwargs)
        edge_index = self._get_edge_index(edge_attr)
        if edge_index is None:
            raise KeyError(f"'edge_index' for '{edge_attr}' not found")
        return edge_index

    def remove_edge_index(self, *args: Any, **kwargs: Any) -> bool:
        """Remove what is stored under ``EdgeAttr(*args, **kwargs)``."""
        return self._remove_edge_index(self._edge_attr_cls.cast(*args, **kwargs))

    def coo(self, edge_types: list[Any] | None = None, store: bool = False) -> tuple:
        """``(row, col, perm)`` (homogeneous) or three dicts per edge type, in COO."""
        return self._edges_to_layout(EdgeLayout.COO, edge_types, store)

    def csr(self, edge_types: list[Any] | None = None, store: bool = False) -> tuple:
        """``(rowptr, col, perm)`` (homogeneous) or three dicts per edge type, in CSR."""
        return self._edges_to_layout(EdgeLayout.CSR, edge_types, store)

    def csc(self, edge_types: list[Any] | None = None, store: bool = False) -> tuple:
        """``(row, colptr, perm)`` (homogeneous) or three dicts per edge type, in CSC.
        ``store=True`` also stores what was converted."""
        return self._edges_to_layout(EdgeLayout.CSC, edge_types, store)

    def __setitem__(self, key: Any, value: tuple[Any, Any]) -> None:
        self.put_edge_index(value, key)

    def __getitem__(self, key: Any) -> tuple[Any, Any]:
        return self.get_edge_index(key)

    def __delitem__(self, key: Any) -> bool:
        return self.remove_edge_index(key)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # --- conversion -------------------------------------------------------------------
    def _edge_to_layout(
        self, attr: EdgeAttr, layout: EdgeLayout, store: bool = False
    ) -> tuple[Any, Any, Any]:
        (row, col), perm = self.get_edge_index(attr), None
        if attr.layout != layout and (is_torch_tensor(row) or is_torch_tensor(col)):
            from arraygnn.remote_backend import as_array  # (a user's torch store)

            row, col = as_array(row), as_array(col)  # converted on NumPy
        if attr.layout == EdgeLayout.COO and int(row.shape[0]) != int(col.shape[0]):
            raise ValueError(
                f"GraphStore: the COO edge index of {attr.edge_type!r} has {int(row.shape[0])} "
                f"rows but {int(col.shape[0])} cols (the two halves must have one id per edge)"
            )
        if layout == EdgeLayout.COO:
            if attr.layout == EdgeLayout.CSR:
                row = _expanded(attr, row, col)
            elif attr.layout == EdgeLayout.CSC:
                col = _expanded(attr, col, row)
        elif layout == EdgeLayout.CSR:
            if attr.layout == EdgeLayout.CSC:
                col = _expanded(attr, col, row)
            if attr.layout != EdgeLayout.CSR:
                n = _side(attr, 0, "CSR")
                _check_ids(attr, row, n, "row")
                perm = get_namespace(row).argsort(row, kind="stable")
                row, col = index2ptr(row[perm], n), col[perm]
        else:
            if attr.layout == EdgeLayout.CSR:
                row = _expanded(attr, row, col)
            if attr.layout != EdgeLayout.CSC:
                n = _side(attr, 1, "CSC")
                if not attr.is_sorted:
                    _check_ids(attr, col, n, "col")
                    perm = get_namespace(col).argsort(col, kind="stable")
                    col, row = col[perm], row[perm]
                else:
                    if col.shape[0] > 1 and not bool((col[1:] >= col[:-1]).all()):
                        raise ValueError(
                            f"GraphStore: the {attr.layout.name} edge index of "
                            f"{attr.edge_type!r} is stored with is_sorted=True but its col "
                            "ids are not sorted"
                        )
                    _check_ids(attr, col, n, "col", ordered=True)  # (its ends: no pass)
                col = index2ptr(col, n)
        if attr.layout != layout and store:
            attr = copy.copy(attr)
            attr.layout = layout
            if perm is not None:  # (sorted by col: CSC's rule; CSR is never is_sorted)
                attr.is_sorted = layout == EdgeLayout.CSC
            self.put_edge_index((row, col), attr)
        return row, col, perm

    def _edges_to_layout(
        self, layout: EdgeLayout, edge_types: list[Any] | None, store: bool
    ) -> tuple:
        edge_attrs = self.get_all_edge_attrs()
        if not edge_attrs:
            raise KeyError(f"{type(self).__name__} holds no edge index")
        if not all(attr.edge_type is not None for attr in edge_attrs):  # homogeneous
            return self._edge_to_layout(edge_attrs[0], layout, store)
        by_type: dict[Any, list[EdgeAttr]] = defaultdict(list)
        for attr in edge_attrs:
            by_type[attr.edge_type].append(attr)
        if edge_types is not None:
            for edge_type in edge_types:
                if edge_type not in by_type:
                    raise ValueError(
                        f"The 'edge_index' of type '{edge_type}' was not found in the graph store."
                    )
            by_type = {k: v for k, v in by_type.items() if k in edge_types}
        rows, cols, perms = {}, {}, {}
        for edge_type, attrs in by_type.items():
            layouts = [attr.layout for attr in attrs]
            for wanted in (layout, EdgeLayout.COO, EdgeLayout.CSC, EdgeLayout.CSR):
                if wanted in layouts:  # as stored, else from COO, CSC, CSR (PyG's order)
                    attr = attrs[layouts.index(wanted)]
                    break
            rows[edge_type], cols[edge_type], perms[edge_type] = self._edge_to_layout(
                attr, layout, store
            )
        return rows, cols, perms


def _expanded(attr: EdgeAttr, ptr: Any, other: Any) -> Any:
    """:func:`ptr2index` of a stored CSR / CSC pointer, checked first (from 0 to the
    number of edges, non-decreasing; ``ValueError`` naming the edge type and layout)."""
    from arraygnn.utils.scatter import checked_ptr  # (lazy: import stays light)

    where = f"GraphStore: the {attr.layout.name} edge index of {attr.edge_type!r}"
    checked_ptr(where, ptr, int(other.shape[0]), "row" if attr.layout == EdgeLayout.CSC else "col")
    if attr.size is not None:  # one pointer entry per node of its side, plus one
        n = _side(attr, int(attr.layout == EdgeLayout.CSC), attr.layout.name)
        if int(ptr.shape[0]) != n + 1:
            raise ValueError(
                f"{where}: its pointer has {int(ptr.shape[0])} entries, but size={attr.size} "
                f"says {n} + 1"
            )
    return ptr2index(ptr)


def _check_ids(attr: EdgeAttr, ids: Any, n: int, name: str, ordered: bool = False) -> None:
    """``ValueError`` naming the edge type when ``ids`` leave ``[0, n)`` (PyG's pointer
    would silently drop or misplace those edges); ``ordered``: ``ids`` are known sorted,
    so their ends are their bounds."""
    from arraygnn.ops import _common  # (lazy: import stays light)

    if ids.shape[0]:
        lo, hi = (int(ids[0]), int(ids[-1])) if ordered else _common.index_bounds(ids)
        if lo < 0 or hi >= n:
            raise ValueError(
                f"GraphStore: the {attr.layout.name} edge index of {attr.edge_type!r} has "
                f"{name} ids in [{lo}, {hi}], outside [0, {n}) (size={attr.size})"
            )


def _side(attr: EdgeAttr, axis: int, layout: str) -> int:
    if attr.size is None:
        raise ValueError(
            f"GraphStore: converting {attr.edge_type!r} from {attr.layout.name} to {layout} "
            "needs its size (num_src_nodes, num_dst_nodes): give size= when putting the edge "
            "index (it is never guessed from index.max() + 1)"
        )
    size = attr.size
    try:
        ok = len(size) == 2 and all(operator.index(s) >= 0 for s in size)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(
            f"GraphStore: the size of {attr.edge_type!r} must be two non-negative integers "
            f"(num_src_nodes, num_dst_nodes), got {size!r}"
        )
    return int(size[axis])


class InMemoryGraphStore(GraphStore):
    """A :class:`GraphStore` over a dict ``{(edge_type, layout): (EdgeAttr, (a, b))}`` of
    NumPy / CuPy arrays (kept, not copied). A lookup matches on edge type and layout; the
    stored ``EdgeAttr`` (with its ``size`` and ``is_sorted``) is what
    ``get_all_edge_attrs`` reports.
    """

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[Any, EdgeLayout], tuple[EdgeAttr, tuple[Any, Any]]] = {}

    def _put_edge_index(self, edge_index: tuple[Any, Any], edge_attr: EdgeAttr) -> bool:
        if (
            not isinstance(edge_index, (tuple, list))
            or len(edge_index) != 2
            or not all(is_array(a) and a.ndim == 1 for a in edge_index)
        ):
            raise TypeError(
                f"InMemoryGraphStore: the edge index of {edge_attr.edge_type!r} must be two "
                "1-D NumPy or CuPy arrays (row, col) / (rowptr, col) / (row, colptr)"
            )
        for a in edge_index:
            if a.dtype.kind not in "iu":
                raise TypeError(
                    f"InMemoryGraphStore: the edge index of {edge_attr.edge_type!r} must hold "
                    f"integers, got dtype {a.dtype}"
                )
        if edge_attr.layout == EdgeLayout.COO and edge_index[0].shape != edge_index[1].shape:
            raise ValueError(
                f"InMemoryGraphStore: the COO edge index of {edge_attr.edge_type!r} has "
                f"{edge_index[0].shape[0]} rows but {edge_index[1].shape[0]} cols"
            )
        self.store[(edge_attr.edge_type, edge_attr.layout)] = (
            copy.copy(edge_attr),
            (edge_index[0], edge_index[1]),
        )
        return True

    def _get_edge_index(self, edge_attr: EdgeAttr) -> tuple[Any, Any] | None:
        entry = self.store.get((edge_attr.edge_type, edge_attr.layout))
        return None if entry is None else entry[1]

    def _remove_edge_index(self, edge_attr: EdgeAttr) -> bool:
        return self.store.pop((edge_attr.edge_type, edge_attr.layout), None) is not None

    def get_all_edge_attrs(self) -> list[EdgeAttr]:
        return [copy.copy(attr) for attr, _ in self.store.values()]
