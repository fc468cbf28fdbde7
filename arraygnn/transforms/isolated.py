"""PyG's :class:`RemoveIsolatedNodes`: keep the nodes some edge touches (self-loops count,
as in PyG's transform) and renumber them ``0, 1, ...`` in node order.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.arange(4.0)[:, None], edge_index=np.array([[3, 1], [1, 3]]))
>>> out = RemoveIsolatedNodes()(d)
>>> out.x.ravel().tolist(), out.edge_index.tolist()
([1.0, 3.0], [[1, 0], [0, 1]])
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import is_array
from arraygnn.data import check_index_range
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._graph import check_data, edge_index_of, namespace_of, node_count
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform

__all__ = ["RemoveIsolatedNodes"]


class RemoveIsolatedNodes(SaidLevels, BaseTransform):
    """Drop every node no edge touches (PyG's ``RemoveIsolatedNodes``).

    Edges are all kept, in order, renumbered (ids keep their dtype). ``Data``: the node
    attributes (``node_attrs=``, default ``x`` / ``pos`` where present) keep the rows of
    the kept nodes and an explicit ``num_nodes`` is updated; edge and graph attributes are
    unchanged. ``HeteroData``: a node type's kept nodes are those touched by any edge type
    (as source or destination); every array of its store is per node and is sliced; a node
    type no edge type touches loses all its nodes (as PyG). An edge store's other node-id
    pairs (``edge_label_index``) are renumbered too, and one naming a removed node is a
    ``ValueError`` (PyG leaves the old ids).

    >>> import numpy as np
    >>> from arraygnn.hetero_data import HeteroData
    >>> h = HeteroData(a={"x": np.arange(3.0)}, b={"num_nodes": 2})
    >>> h["a", "to", "b"].edge_index = np.array([[2], [1]])
    >>> out = RemoveIsolatedNodes()(h)
    >>> out["a"].x.tolist(), out["b"].num_nodes, out["a", "to", "b"].edge_index.tolist()
    ([2.0], 1, [[0], [0]])
    """

    def forward(self, data: Any) -> Any:
        where = "RemoveIsolatedNodes"
        hetero = check_data(where, data)
        xp = namespace_of(data)
        if not hetero:
            levels = self.levels(where, data)
            n = node_count(where, data)
            if "edge_index" not in data:
                raise ValueError(f"{where}: data has no edge_index")
            ei = edge_index_of(where, data, n, n)
            mask = xp.zeros(n, dtype=bool)
            mask[ei[0]] = True
            mask[ei[1]] = True
            ids = xp.nonzero(mask)[0]
            new_id = (xp.cumsum(mask) - 1).astype(ei.dtype, copy=False)
            data.edge_index = new_id[ei]
            for k in levels.node:
                data[k] = data[k][ids]
            if "num_nodes" in data:
                data.num_nodes = int(ids.shape[0])
            return data
        return _hetero(where, data, xp)


def _hetero(where: str, data: HeteroData, xp: Any) -> HeteroData:
    masks = {}
    for t, store in data.node_items():
        masks[t] = xp.zeros(node_count(where, store, f"node type {t!r}"), dtype=bool)
    stores = [s for s in data.edge_stores if "edge_index" in s]
    for s in stores:
        src, _, dst = s._key
        for t in (src, dst):
            if t not in masks:
                raise ValueError(f"{where}: edge type {s._key!r}: {t!r} is not a node type")
        ei = edge_index_of(
            where, s, masks[src].shape[0], masks[dst].shape[0], f"edge type {s._key!r}: "
        )
        masks[src][ei[0]] = True
        masks[dst][ei[1]] = True
    for s in data.edge_stores:  # every store's label pairs, with edges of its own or not
        src, _, dst = s._key
        for k in [k for k, v in s.items() if "index" in k and k != "edge_index" and is_array(v)]:
            for t in (src, dst):
                if t not in masks:
                    raise ValueError(f"{where}: edge type {s._key!r}: {t!r} is not a node type")
            s[k] = _renumbered_pairs(where, s, k, masks[src], masks[dst], xp)
    for s in stores:
        src, _, dst = s._key
        ei = s.edge_index
        rows = [
            (xp.cumsum(masks[t]) - 1).astype(ei.dtype, copy=False)[ei[r]]
            for r, t in ((0, src), (1, dst))
        ]
        s.edge_index = xp.stack(rows)
    for t, store in data.node_items():
        ids = xp.nonzero(masks[t])[0]
        for k, v in store.items():
            if k == "num_nodes":
                store.num_nodes = int(ids.shape[0])
            elif is_array(v):
                if v.ndim == 0 or v.shape[0] != masks[t].shape[0]:
                    raise ValueError(
                        f"{where}: node type {t!r}: {k!r} must have {masks[t].shape[0]} rows "
                        f"(a node store holds per-node values), got {tuple(v.shape)}"
                    )
                store[k] = v[ids]
    return data


def _renumbered_pairs(where: str, s: Any, k: str, keep_src: Any, keep_dst: Any, xp: Any) -> Any:
    """An edge store's other ``[2, L]`` node-id pairs (``edge_label_index``) in the new
    numbering; ``ValueError`` when one names a removed node (PyG leaves the old ids)."""
    pairs = s[k]
    what = f"{where}: edge type {s._key!r}: {k}"
    if pairs.ndim != 2 or pairs.shape[0] != 2:
        raise ValueError(f"{what} must be a [2, L] array of node ids, got {tuple(pairs.shape)}")
    rows = []
    for r, keep in ((0, keep_src), (1, keep_dst)):
        check_index_range(pairs[r], keep.shape[0], f"{what} row {r}")
        if pairs.shape[1] and not bool(keep[pairs[r]].all()):
            raise ValueError(
                f"{what} row {r} names a node no edge touches, which is removed (apply "
                "RemoveIsolatedNodes before the split that made it)"
            )
        rows.append((xp.cumsum(keep) - 1).astype(pairs.dtype, copy=False)[pairs[r]])
    return xp.stack(rows)
