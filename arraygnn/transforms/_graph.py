"""Shared plumbing of the structure transforms: the edge stores of a ``Data`` or
``HeteroData``, their checked ``edge_index`` and node counts, and which arrays of a store
are per edge (said for a ``Data`` through :func:`~arraygnn.transforms.attrs.attribute_levels`,
by where they live for a ``HeteroData``).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
>>> [(key, n_src, n_dst) for _, key, n_src, n_dst in edge_stores("Demo", d)]
[(None, 2, 2)]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.data import Data, check_index_range
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms.attrs import attribute_levels

__all__ = [
    "check_data",
    "edge_index_of",
    "edge_keys",
    "edge_stores",
    "hetero_edge_keys",
    "int_arg",
    "namespace_of",
    "node_count",
    "refuse_other_edge_attrs",
]


def check_data(where: str, data: Any, hetero: bool = True) -> bool:
    """``True`` for a ``HeteroData`` (when ``hetero`` allows one), ``False`` for a ``Data``;
    ``TypeError`` otherwise."""
    if isinstance(data, HeteroData):
        if not hetero:
            raise TypeError(f"{where}: takes a Data (PyG's takes no HeteroData either)")
        return True
    if isinstance(data, Data):
        return False
    kinds = "a Data or HeteroData" if hetero else "a Data"
    raise TypeError(f"{where}: data must be {kinds}, got {type(data).__name__}")


def int_arg(where: str, name: str, value: Any, minimum: int = 0) -> int:
    """``value`` as an int: ``TypeError`` unless an int (not a bool), ``ValueError`` below
    ``minimum``; messages name ``where`` and ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{where}: {name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def namespace_of(data: Any) -> Any:
    """numpy or cupy: the module of every array the graph holds (``TypeError`` on mixing)."""
    if isinstance(data, HeteroData):
        stores = [data._global, *(s._mapping for s in data.node_stores + data.edge_stores)]
    else:
        stores = [data._store]
    arrays = [v for s in stores for v in s.values() if is_array(v)]
    return get_namespace(*arrays) if arrays else np


def node_count(where: str, store: Any, what: str = "data") -> int:
    """``store.num_nodes``; ``ValueError`` when unknown (never ``edge_index.max() + 1``)."""
    n = store.num_nodes
    if n is None:
        raise ValueError(
            f"{where}: num_nodes of {what} is unknown (give x, pos or num_nodes=; it is never "
            "guessed from edge_index.max() + 1)"
        )
    return int(n)


def edge_index_of(where: str, store: Any, n_src: int, n_dst: int, what: str = "") -> Any:
    """The store's ``edge_index``, checked: an integer [2, E] array, row 0 in ``[0, n_src)``,
    row 1 in ``[0, n_dst)``."""
    ei = store["edge_index"]
    name = f"{where}: {what}edge_index"
    if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
        shape = list(ei.shape) if is_array(ei) else type(ei).__name__
        raise ValueError(f"{name} must be a [2, E] array, got {shape}")
    check_index_range(ei[0], n_src, f"{name} row 0")
    check_index_range(ei[1], n_dst, f"{name} row 1")
    return ei


def edge_stores(where: str, data: Any) -> list[tuple[Any, Any, int | None, int | None]]:
    """``(store, edge type or None, n_src, n_dst)`` for every store holding an
    ``edge_index`` (a ``Data`` is its own store)."""
    if isinstance(data, HeteroData):
        return [(s, s._key, *s.size()) for s in data.edge_stores if "edge_index" in s._mapping]
    if "edge_index" not in data:
        return []
    n = node_count(where, data)
    return [(data, None, n, n)]


def hetero_edge_keys(where: str, store: Any, skip: tuple[str, ...] = ()) -> list[str]:
    """The per-edge arrays of a ``HeteroData`` edge store: every array but those whose key
    holds ``'index'`` (``edge_index``, ``edge_label_index``: the name rule of DESIGN.md) or
    is in ``skip``; ``ValueError`` unless each has ``num_edges`` rows."""
    keys = []
    num_edges = store.num_edges
    for key, value in store.items():
        if "index" in key or key in skip or not is_array(value):
            continue
        if value.ndim == 0 or int(value.shape[0]) != num_edges:
            raise ValueError(
                f"{where}: edge type {store._key!r}: {key!r} must have {num_edges} rows (one "
                f"per edge; an edge store holds per-edge values), got {tuple(value.shape)}"
            )
        keys.append(key)
    return keys


def edge_keys(
    where: str,
    data: Any,
    store: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
) -> list[str]:
    """The per-edge arrays of ``store``: for a ``Data``, its edge level as said through
    :func:`attribute_levels` (which also checks every array is placed); for a
    ``HeteroData`` edge store, :func:`hetero_edge_keys`, without an ``edge_label`` beside
    an ``edge_label_index`` (it belongs to the label pairs, as PyG leaves it)."""
    if isinstance(data, HeteroData):
        skip = ("edge_label",) if "edge_label_index" in store else ()
        return hetero_edge_keys(where, store, skip=skip)
    return attribute_levels(where, data, node_attrs, edge_attrs, graph_attrs).edge


def refuse_other_edge_attrs(
    where: str, keys: Iterable[str], allowed: Iterable[str], why: str
) -> None:
    """``ValueError`` naming the per-edge attributes outside ``allowed``: the transform
    would leave them out of step with the new edges."""
    allowed = set(allowed)
    others = [k for k in keys if k not in allowed]
    if others:
        raise ValueError(
            f"{where}: edge attribute(s) {others} would be left out of step with the new "
            f"edge_index ({why})"
        )
