"""PyG's :class:`ToUndirected` and :class:`RemoveDuplicatedEdges`: edge sets rebuilt by
:func:`arraygnn.utils.to_undirected` / :func:`arraygnn.utils.coalesce` (sorted by row,
parallel edges merged, their per-edge arrays reduced with ``reduce``).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 0], [1, 1]]), num_nodes=2)
>>> ToUndirected()(d).edge_index.tolist(), RemoveDuplicatedEdges()(d).edge_index.tolist()
([[0, 1], [1, 0]], [[0], [1]])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from arraygnn._namespace import is_array
from arraygnn.transforms._graph import (
    check_data,
    edge_index_of,
    edge_keys,
    edge_stores,
    refuse_other_edge_attrs,
)
from arraygnn.transforms.attrs import with_edge_attr
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg, check_pyg_reduce
from arraygnn.utils.coalesce import coalesce
from arraygnn.utils.undirected import to_undirected

__all__ = ["RemoveDuplicatedEdges", "ToUndirected"]


def _sizes(where: str, key: Any, n_src: Any, n_dst: Any) -> tuple[int, int]:
    for n, role in ((n_src, 0), (n_dst, -1)):
        if n is None:
            raise ValueError(
                f"{where}: edge type {key!r}: num_nodes of {key[role]!r} is unknown (it is "
                "never guessed from edge_index.max() + 1)"
            )
    return int(n_src), int(n_dst)


def _checked_stores(
    where: str, data: Any, said: Any, merged: Iterable[str] = ()
) -> Iterator[tuple[Any, ...]]:
    """``(store, edge type or None, edge_index, per-edge keys, n_src, n_dst)`` of every
    store holding an ``edge_index``, checked (``said``: the transform, for its
    ``node_attrs`` / ``edge_attrs`` / ``graph_attrs``; a ``Data``'s ``merged`` arrays are
    per edge without being named there)."""
    hetero = check_data(where, data)
    edge = said.edge_attrs
    for name in () if hetero else merged:
        edge = with_edge_attr(where, data, edge, name)
    for store, key, n_src, n_dst in edge_stores(where, data):
        what = "" if key is None else f"edge type {key!r}: "
        if hetero:
            n_src, n_dst = _sizes(where, key, n_src, n_dst)
        ei = edge_index_of(where, store, n_src, n_dst, what)
        keys = edge_keys(where, data, store, said.node_attrs, edge, said.graph_attrs)
        yield store, key, ei, keys, n_src, n_dst


def _refuse_stale_reverse(rev: Any, key: Any, keys: list[str]) -> None:
    """``ValueError`` when the existing reverse store ``rev`` of ``key`` holds per-edge
    arrays that writing the flipped edges (and ``keys``) would leave out of step (PyG
    keeps them so)."""
    skip = {"edge_label"} if "edge_label_index" in rev else set()
    stale = [
        k
        for k, v in rev.items()
        if is_array(v) and "index" not in k and k not in keys and k not in skip
    ]
    if stale:
        raise ValueError(
            f"ToUndirected: edge type {key!r}: its reverse type {rev._key!r} already exists "
            f"and its array(s) {stale} would be left out of step with the new edge_index "
            "(remove them or that edge type first)"
        )


class ToUndirected(BaseTransform):
    """Make every edge ``(i, j)`` also ``(j, i)`` (PyG's ``ToUndirected``).

    ``Data`` and same-type edge types of a ``HeteroData`` (with ``merge=True``): the
    reverse edges are added and :func:`arraygnn.utils.to_undirected` coalesces, reducing
    the per-edge arrays of edges that became parallel with ``reduce`` (``'add'``,
    ``'mean'``, ``'min'``, ``'max'``, ``'mul'``). Bipartite edge types (and every edge type
    with ``merge=False``) get a reverse type ``(dst, 'rev_' + rel, src)`` holding the
    flipped ``edge_index`` and the same per-edge arrays; an existing reverse type is
    overwritten, as PyG's, and a ``ValueError`` names its arrays that would go stale (PyG
    keeps them). In a ``HeteroData``, ``edge_label`` beside ``edge_label_index`` is left
    alone (as PyG). A ``Data`` takes ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=``.

    >>> import numpy as np
    >>> from arraygnn.hetero_data import HeteroData
    >>> h = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 3})
    >>> h["a", "to", "b"].edge_index = np.array([[0, 1], [2, 0]])
    >>> ToUndirected()(h)["b", "rev_to", "a"].edge_index.tolist()
    [[2, 0], [0, 1]]
    """

    def __init__(
        self,
        reduce: str = "add",
        merge: bool = True,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        check_pyg_reduce("ToUndirected", reduce, allow_any=True)
        self.reduce = reduce
        self.merge = bool_arg("ToUndirected", "merge", merge)
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        for store, key, ei, keys, n_src, _ in _checked_stores("ToUndirected", data, self):
            if key is not None and (key[0] != key[-1] or not self.merge):
                src, rel, dst = key
                rev_key = (dst, f"rev_{rel}", src)
                if rev_key in data.edge_types:
                    _refuse_stale_reverse(data[rev_key], key, keys)
                rev = data[rev_key]
                rev["edge_index"] = ei[::-1].copy()
                for k in keys:
                    rev[k] = store[k]
                continue
            ei, values = to_undirected(ei, [store[k] for k in keys], n_src, self.reduce)
            store["edge_index"] = ei
            for k, v in zip(keys, values):
                store[k] = v
        return data

    def __repr__(self) -> str:
        return f"ToUndirected(reduce={self.reduce!r}, merge={self.merge})"


class RemoveDuplicatedEdges(BaseTransform):
    """Merge parallel edges (PyG's ``RemoveDuplicatedEdges``) with
    :func:`arraygnn.utils.coalesce`: the edges come back sorted by row, the arrays named
    by ``key`` (default ``['edge_attr', 'edge_weight']``, where present) reduced with
    ``reduce`` (in a ``Data`` they are per edge without being named in ``edge_attrs=``).
    Every edge type of a ``HeteroData``; node counts as PyG
    (``max(size)``). A per-edge array not named by ``key`` is refused (PyG leaves it out
    of step with the merged edges).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[1, 0, 1], [0, 1, 0]]),
    ...          edge_weight=np.array([1.0, 2.0, 3.0]), num_nodes=2)
    >>> RemoveDuplicatedEdges(reduce="max")(d).edge_weight.tolist()
    [2.0, 3.0]
    """

    def __init__(
        self,
        key: str | list[str] | None = None,
        reduce: str = "add",
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        key = key or ["edge_attr", "edge_weight"]
        self.keys = [key] if isinstance(key, str) else list(key)
        for k in self.keys:
            if not isinstance(k, str):
                raise TypeError(f"RemoveDuplicatedEdges: key must hold attribute names, got {k!r}")
        check_pyg_reduce("RemoveDuplicatedEdges", reduce, allow_any=True)
        self.reduce = reduce
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        where = "RemoveDuplicatedEdges"
        for store, _, ei, keys, n_src, n_dst in _checked_stores(where, data, self, self.keys):
            refuse_other_edge_attrs(where, keys, self.keys, "name them in key=")
            names = [k for k in self.keys if k in store]
            ei, values = coalesce(ei, [store[k] for k in names], max(n_src, n_dst), self.reduce)
            store["edge_index"] = ei
            for k, v in zip(names, values):
                store[k] = v
        return data
