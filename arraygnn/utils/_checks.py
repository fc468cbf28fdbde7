"""Argument checks and small shared pieces of ``arraygnn.utils`` (private).

RULE: every public function checks its arguments here first and raises ``TypeError`` /
``ValueError`` naming the function and the argument at fault; nothing passed in is modified.
RULE: where PyG infers ``num_nodes`` as ``edge_index.max() + 1``, so do we (one reduction,
a device-to-host sync on CuPy); give ``num_nodes`` to skip it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.ops._common import check_size, kernel_index


class _Missing:
    """The default of ``edge_attr`` in :func:`coalesce` / :func:`to_undirected`: PyG returns
    the bare ``edge_index`` when no ``edge_attr`` argument was given at all."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

#: PyG's reduction names (``torch_geometric.utils.scatter``) -> ``arraygnn.ops`` names
PYG_REDUCE = {
    "sum": "sum",
    "add": "sum",
    "mean": "mean",
    "mul": "prod",
    "min": "min",
    "max": "max",
    "amin": "min",
    "amax": "max",
}


def check_pyg_reduce(
    where: str, reduce: Any, name: str = "reduce", *, allow_any: bool = False
) -> str:
    """``reduce`` as an ``arraygnn.ops`` reduction; ``ValueError`` unless it is one of PyG's
    names. PyG's ``'any'`` (one value of each group) is taken only where ``allow_any``
    (``scatter``, ``coalesce``, ``to_undirected`` and the self-loop fill values, which pick
    each group's last value in index order: see :func:`arraygnn.utils.scatter.scatter_rows`);
    it comes back as ``'any'``."""
    if isinstance(reduce, str) and reduce in PYG_REDUCE:
        return PYG_REDUCE[reduce]
    if allow_any and reduce == "any":
        return "any"
    names = ", ".join(map(repr, list(PYG_REDUCE) + (["any"] if allow_any else [])))
    extra = " ('any' is not supported here)" if reduce == "any" else ""
    raise ValueError(f"{where}: {name} must be one of {names}, got {reduce!r}" + extra)


def int_attr_as_num_nodes(edge_attr: Any, num_nodes: Any, missing: Any) -> tuple[Any, Any]:
    """PyG's calls that put an int where ``edge_attr`` goes (``coalesce(edge_index, n)``,
    ``sort_edge_index``, ``is_undirected``; PyG ignores it there, ``to_undirected`` reads it
    as ``num_nodes``): ``(missing, num_nodes or that int)``, else the two unchanged."""
    if isinstance(edge_attr, (int, np.integer)) and not isinstance(edge_attr, (bool, np.bool_)):
        return missing, edge_attr if num_nodes is None else num_nodes
    return edge_attr, num_nodes


def check_array_arg(where: str, name: str, value: Any) -> None:
    """``TypeError`` unless ``value`` is a NumPy or CuPy array."""
    if not is_array(value):
        raise TypeError(
            f"{where}: {name} must be a NumPy or CuPy array, got {type(value).__name__}"
            + torch_hint(value)
        )


def check_int_array(where: str, name: str, value: Any) -> None:
    """An integer array (bool and float refused)."""
    check_array_arg(where, name, value)
    if value.dtype.kind not in "iu":
        raise TypeError(f"{where}: {name} must be an integer array, got dtype {value.dtype}")


def check_bool_array(where: str, name: str, value: Any) -> None:
    check_array_arg(where, name, value)
    if value.dtype != np.bool_:
        raise TypeError(f"{where}: {name} must be a boolean array, got dtype {value.dtype}")


def check_numeric(where: str, name: str, value: Any) -> None:
    """A float or integer array (what a reduction takes)."""
    check_array_arg(where, name, value)
    if value.dtype.kind not in "fiu":
        raise TypeError(
            f"{where}: {name} must be a numeric (float or int) array, got dtype {value.dtype}"
        )


def check_ids(where: str, name: str, ids: Any, size: int | None) -> None:
    """Entries of ``ids`` (an integer array) in ``[0, size)`` (only non-negative when
    ``size`` is None)."""
    if ids.size == 0:
        return
    lo = int(ids.min())
    if lo < 0:
        raise ValueError(f"{where}: {name} has a negative entry ({lo}); ids must be >= 0")
    if size is not None:
        hi = int(ids.max())
        if hi >= size:
            raise ValueError(f"{where}: {name} has entry {hi}, out of range for {size} nodes")


def edge_index_arg(where: str, edge_index: Any) -> ModuleType:
    """``edge_index`` must be an integer array of shape [2, E]; returns its namespace."""
    check_int_array(where, "edge_index", edge_index)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(
            f"{where}: edge_index must have shape [2, E], got {tuple(edge_index.shape)}"
        )
    return get_namespace(edge_index)


def num_nodes_arg(where: str, edge_index: Any, num_nodes: Any) -> int:
    """``num_nodes`` checked, or PyG's ``edge_index.max() + 1`` (0 without edges) when None;
    every id of ``edge_index`` must be in ``[0, num_nodes)``."""
    if num_nodes is None:
        check_ids(where, "edge_index", edge_index, None)
        return int(edge_index.max()) + 1 if edge_index.size else 0
    n = check_size(f"{where}: num_nodes", num_nodes)
    check_ids(where, "edge_index", edge_index, n)
    return n


def edge_attr_arg(where: str, name: str, edge_attr: Any, num_edges: int) -> None:
    """An array with one row per edge."""
    check_array_arg(where, name, edge_attr)
    if edge_attr.ndim == 0 or edge_attr.shape[0] != num_edges:
        raise ValueError(
            f"{where}: {name} must have one row per edge ({num_edges}), got shape "
            f"{tuple(edge_attr.shape)}"
        )


def optional_edge_attr(where: str, edge_index: Any, edge_attr: Any) -> None:
    """``edge_attr`` ``None``, or one row per edge of ``edge_index`` on its device."""
    if edge_attr is not None:
        edge_attr_arg(where, "edge_attr", edge_attr, int(edge_index.shape[1]))
        same_device(where, edge_index=edge_index, edge_attr=edge_attr)


def attr_list(where: str, edge_attr: Any, num_edges: int) -> list[Any] | None:
    """``edge_attr`` as a list of arrays: ``[a]`` for an array, the items of a list / tuple,
    ``None`` for ``None``; each checked to have one row per edge."""
    if edge_attr is None:
        return None
    if isinstance(edge_attr, (list, tuple)):
        for i, a in enumerate(edge_attr):
            edge_attr_arg(where, f"edge_attr[{i}]", a, num_edges)
        return list(edge_attr)
    edge_attr_arg(where, "edge_attr", edge_attr, num_edges)
    return [edge_attr]


def same_device(where: str, **arrays: Any) -> ModuleType:
    """The namespace of the named arrays; mixing NumPy and CuPy is a ``TypeError``."""
    try:
        return get_namespace(*arrays.values())
    except TypeError:
        names = ", ".join(k for k, v in arrays.items() if v is not None)
        raise TypeError(
            f"{where}: {names} mix NumPy and CuPy arrays; move them to one device first "
            "(arraygnn.to_device)"
        ) from None


def bool_arg(where: str, name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, got {value!r}")
    return bool(value)


def ids_from_python(where: str, name: str, value: Any, xp: ModuleType) -> Any:
    """A Python int / list / tuple of ints as an int64 array on ``xp`` (as ``torch.tensor``
    makes them); an array is returned as it is (after an integer check)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be node ids (int, list or integer array)")
    if isinstance(value, (int, np.integer)):
        return xp.asarray([int(value)], dtype=np.int64)
    if isinstance(value, (list, tuple)):
        arr = np.asarray(value)
        if arr.size == 0:
            arr = arr.astype(np.int64)
        if arr.dtype.kind not in "iu" or arr.ndim != 1:
            raise TypeError(f"{where}: {name} must be a list of ints, got {value!r}")
        return xp.asarray(arr.astype(np.int64))
    check_array_arg(where, name, value)
    return value


def batch_counts(
    where: str, xp: ModuleType, batch: Any, num_rows: int, batch_size: Any, empty: int
) -> Any:
    """The row count of each graph ``[B]`` of a checked, sorted ``batch`` vector
    ([num_rows] graph ids); ``B`` is ``batch_size``, else ``batch.max() + 1`` (``empty``
    for an empty ``batch``)."""
    check_int_array(where, "batch", batch)
    if batch.ndim != 1 or batch.shape[0] != num_rows:
        raise ValueError(
            f"{where}: batch must have shape ({num_rows},), one graph id per row, got "
            f"{tuple(batch.shape)}"
        )
    if batch_size is None:
        check_ids(where, "batch", batch, None)
        size = int(batch.max()) + 1 if num_rows else empty
    else:
        size = check_size(f"{where}: batch_size", batch_size)
        check_ids(where, "batch", batch, size)
    if num_rows > 1 and not bool((batch[1:] >= batch[:-1]).all()):
        raise ValueError(f"{where}: batch must be sorted (non-decreasing), PyG's layout")
    return xp.bincount(kernel_index(xp, batch), minlength=size)[:size]
