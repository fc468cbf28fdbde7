"""PyG's self-loop transforms: :class:`AddSelfLoops`, :class:`AddRemainingSelfLoops`,
:class:`RemoveSelfLoops`, on ``Data`` and on the non-bipartite edge types of a
``HeteroData`` (through :mod:`arraygnn.utils.loops`).

RULE: the edge attribute ``attr`` follows the loops as PyG's (``fill_value`` fills the
      added loops); a ``Data``'s ``attr`` is per edge without being named in
      ``edge_attrs=``. Any other per-edge array (a ``Data``'s ``edge_attrs=``, an edge
      store's arrays) is refused by the adding transforms, where PyG leaves it a row
      short; :class:`RemoveSelfLoops` filters every per-edge array alike.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1], [1, 1]]), num_nodes=2)
>>> AddRemainingSelfLoops()(d).edge_index.tolist()
[[0, 0, 1], [1, 0, 1]]
>>> RemoveSelfLoops()(d).edge_index.tolist(), d.edge_index.tolist()
([[0], [1]], [[0, 1], [1, 1]])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arraygnn.transforms._graph import (
    check_data,
    edge_index_of,
    edge_keys,
    edge_stores,
    refuse_other_edge_attrs,
)
from arraygnn.transforms.attrs import with_edge_attr
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils.loops import add_remaining_self_loops, add_self_loops

__all__ = ["AddRemainingSelfLoops", "AddSelfLoops", "RemoveSelfLoops"]


def _edge_keys(t: Any, where: str, data: Any, store: Any) -> list[str]:
    """The per-edge arrays of ``store`` (``t``: the transform); a ``Data``'s ``attr`` is
    one without being named in ``edge_attrs=``, as PyG moves it with the edges."""
    edge = t.edge_attrs if store is not data else with_edge_attr(where, data, t.edge_attrs, t.attr)
    return edge_keys(where, data, store, t.node_attrs, edge, t.graph_attrs)


def _attr_name(where: str, attr: Any) -> str:
    if not isinstance(attr, str):
        raise TypeError(f"{where}: attr must be an attribute name (str), got {attr!r}")
    return attr


class _LoopTransform(BaseTransform):
    _name = ""

    def __init__(
        self,
        attr: str = "edge_weight",
        fill_value: Any = 1.0,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        self.attr = _attr_name(type(self).__name__, attr)
        self.fill_value = fill_value
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    @property
    def edge_outputs(self) -> tuple[str, ...]:
        """The per-edge array it fills (a ``Batch`` keeps records for it)."""
        return (self.attr,)

    def forward(self, data: Any) -> Any:
        where = type(self).__name__
        check_data(where, data)
        for store, key, n_src, _ in edge_stores(where, data):
            if key is not None and key[0] != key[-1]:
                continue  # bipartite: no self-loops (PyG skips them)
            what = "" if key is None else f"edge type {key!r}: "
            n = n_src
            if n is None:
                raise ValueError(f"{where}: {what}num_nodes of {key[0]!r} is unknown")
            ei = edge_index_of(where, store, n, n, what)
            keys = _edge_keys(self, where, data, store)
            refuse_other_edge_attrs(
                where, keys, [self.attr], f"fill_value fills only attr={self.attr!r}"
            )
            attr = store[self.attr] if self.attr in store else None
            store["edge_index"], store[self.attr] = self._add(ei, attr, self.fill_value, n)
        return data


class AddSelfLoops(_LoopTransform):
    """Append a self-loop for every node (PyG's ``AddSelfLoops``; existing loops kept),
    with :func:`arraygnn.utils.add_self_loops`.

    ``attr``: the edge weights / features the loops get values for (``fill_value``: a
    float, an array, or a reduction name ``'add'``, ``'mean'``, ``'min'``, ``'max'``,
    ``'mul'`` over the incoming edges). Bipartite edge types are skipped. A ``Data`` takes
    ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=`` (:mod:`arraygnn.transforms.attrs`).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0], [1]]), edge_weight=np.array([0.5]), num_nodes=2)
    >>> AddSelfLoops(fill_value=2.0)(d).edge_weight.tolist()
    [0.5, 2.0, 2.0]
    """

    _add = staticmethod(add_self_loops)


class AddRemainingSelfLoops(_LoopTransform):
    """Give every node exactly one self-loop (PyG's ``AddRemainingSelfLoops``), with
    :func:`arraygnn.utils.add_remaining_self_loops`: existing loops keep their ``attr``
    values, the others get ``fill_value``. Arguments as :class:`AddSelfLoops`.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1], [0, 0]]), edge_weight=np.array([3.0, 1.0]),
    ...          num_nodes=2)
    >>> AddRemainingSelfLoops(fill_value=0.0)(d).edge_weight.tolist()
    [1.0, 3.0, 0.0]
    """

    _add = staticmethod(add_remaining_self_loops)


class RemoveSelfLoops(BaseTransform):
    """Drop every self-loop (PyG's ``RemoveSelfLoops``) on ``Data`` and the non-bipartite
    edge types of a ``HeteroData``; every per-edge array (``attr`` as PyG, and the other
    ``edge_attrs=`` / edge-store arrays too) keeps the rows of the kept edges.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1], [0, 0]]), edge_attr=np.array([1.0, 2.0]),
    ...          num_nodes=2)
    >>> RemoveSelfLoops()(d).edge_attr.tolist()
    [2.0]
    """

    def __init__(
        self,
        attr: str = "edge_weight",
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        self.attr = _attr_name("RemoveSelfLoops", attr)
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    edge_outputs = _LoopTransform.edge_outputs

    def forward(self, data: Any) -> Any:
        where = "RemoveSelfLoops"
        check_data(where, data)
        for store, key, n_src, _ in edge_stores(where, data):
            if key is not None and key[0] != key[-1]:
                continue
            what = "" if key is None else f"edge type {key!r}: "
            ei = store["edge_index"]
            if n_src is not None:
                ei = edge_index_of(where, store, n_src, n_src, what)
            keys = _edge_keys(self, where, data, store)
            keep = ei[0] != ei[1]
            store["edge_index"] = ei[:, keep]
            for k in keys:
                store[k] = store[k][keep]
        return data
