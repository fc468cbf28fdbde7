"""Which attributes of a homogeneous ``Data`` are per node, per edge or per graph: said by the
caller, never guessed from array lengths (DESIGN.md).

Transforms that add, remove or reorder nodes or edges (``RemoveIsolatedNodes``,
``LargestConnectedComponents``, ``AddSelfLoops``, ...) must move every per-node and
per-edge array with them. They take ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=``
(defaults: ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` / none, where present) and
refuse an array attribute none of them names, so no array is left silently out of step.
A ``HeteroData`` needs no such lists: its node stores hold per-node values and its edge
stores per-edge values.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.ones((3, 2)), y=np.zeros(3), edge_index=np.array([[0], [1]]))
>>> attribute_levels("Demo", d, node_attrs=["x", "y"])
AttributeLevels(node=['x', 'y'], edge=[], graph=[])
>>> attribute_levels("Demo", d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: Demo: data attribute(s) ['y'] are neither node, edge nor graph attributes: ...
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arraygnn._namespace import is_array

__all__ = [
    "AttributeLevels",
    "SaidLevels",
    "attribute_levels",
    "with_edge_attr",
    "DEFAULT_NODE_ATTRS",
    "DEFAULT_EDGE_ATTRS",
]

#: node attributes moved by default (where present)
DEFAULT_NODE_ATTRS = ("x", "pos")
#: edge attributes moved by default (where present)
DEFAULT_EDGE_ATTRS = ("edge_attr", "edge_weight")
#: a Data's own structure, never a feature
_OWN = ("edge_index", "num_nodes")


@dataclass(frozen=True)
class AttributeLevels:
    """The array attributes of a ``Data`` by level (names, in the order given)."""

    node: list[str]
    edge: list[str]
    graph: list[str]


def _names(where: str, what: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Iterable):
        raise TypeError(f"{where}: {what} must be a list of attribute names, got {value!r}")
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: {what} must hold attribute names, got {name!r}")
    return names


def attribute_levels(
    where: str,
    data: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
) -> AttributeLevels:
    """Every array attribute of ``data`` (a ``Data``) placed at one level, checked: each
    named attribute exists, is named once, and has ``num_nodes`` / ``num_edges`` rows; an
    array attribute left unnamed is a ``ValueError`` naming it (``where`` leads every
    message). ``edge_index`` and ``num_nodes`` are the structure, never attributes."""
    keys = list(data.keys())
    node = (
        [k for k in DEFAULT_NODE_ATTRS if k in keys]
        if node_attrs is None
        else _names(where, "node_attrs", node_attrs)
    )
    edge = (
        [k for k in DEFAULT_EDGE_ATTRS if k in keys]
        if edge_attrs is None
        else _names(where, "edge_attrs", edge_attrs)
    )
    graph = _names(where, "graph_attrs", graph_attrs)
    seen: dict[str, str] = {}
    for level, names in (("node", node), ("edge", edge), ("graph", graph)):
        for name in names:
            if name in _OWN:
                raise ValueError(f"{where}: {name!r} is the graph's structure, not an attribute")
            if name not in keys:
                raise ValueError(f"{where}: data has no attribute {name!r} (has {sorted(keys)})")
            if name in seen:
                raise ValueError(
                    f"{where}: {name!r} named as a {seen[name]} and as a {level} attribute"
                )
            seen[name] = level
    unplaced = [k for k in keys if k not in seen and k not in _OWN and is_array(data[k])]
    if unplaced:
        raise ValueError(
            f"{where}: data attribute(s) {unplaced} are neither node, edge nor graph "
            "attributes: name them in node_attrs=, edge_attrs= or graph_attrs="
        )
    rows = {"node": data.num_nodes, "edge": data.num_edges}
    for level in ("node", "edge"):
        for name in node if level == "node" else edge:
            value = data[name]
            want = rows[level]
            if want is None:
                raise ValueError(
                    f"{where}: num_nodes is unknown (give x or num_nodes=; it is never guessed "
                    "from edge_index.max() + 1)"
                )
            if not is_array(value) or value.ndim == 0 or int(value.shape[0]) != int(want):
                shape = tuple(value.shape) if is_array(value) else type(value).__name__
                raise ValueError(
                    f"{where}: {level} attribute {name!r} must have {want} rows (one per "
                    f"{level}), got {shape}"
                )
    return AttributeLevels(node=node, edge=edge, graph=graph)


def with_edge_attr(
    where: str, data: Any, edge_attrs: Iterable[str] | None, name: str
) -> Iterable[str] | None:
    """``edge_attrs`` (``None``: the defaults ``data`` holds) with ``name`` added last when
    ``data`` holds it: an array a transform's own argument says is per edge (``attr=`` of
    the self-loop transforms, ``key=`` of ``RandomLinkSplit``)."""
    if name not in data:
        return edge_attrs
    names = (
        [k for k in DEFAULT_EDGE_ATTRS if k in data]
        if edge_attrs is None
        else _names(where, "edge_attrs", edge_attrs)
    )
    return [*(k for k in names if k != name), name]


class SaidLevels:
    """Mixin of the transforms that add, drop or reorder nodes or edges of a ``Data``: the
    keyword-only ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=`` and :meth:`levels`
    by them (a transform with more arguments sets the three attributes itself)."""

    def __init__(
        self,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def levels(self, where: str, data: Any) -> AttributeLevels:
        """:func:`attribute_levels` of ``data`` by the said names."""
        return attribute_levels(where, data, self.node_attrs, self.edge_attrs, self.graph_attrs)
