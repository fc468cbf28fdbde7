"""Which attributes of a homogeneous ``Data`` are per node, per edge or per graph: said by the
caller, never guessed from array lengths (DESIGN.md).

Transforms that add, remove or reorder nodes or edges (``RemoveIsolatedNodes``,
``LargestConnectedComponents``, ``AddSelfLoops``, ...) must move every per-node and
per-edge array with them. They take ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=``
(defaults: ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` / none, where present) and
refuse an array attribute none of them names, so no array is left silently out of step.
A value that is not an array (list, string, number) is kept as it is; it may be named in
``graph_attrs=`` only (PyG guesses levels by length, a list of ``num_nodes`` items per node).
A ``HeteroData`` needs no such lists: its node stores hold per-node values and its edge
stores per-edge values.

Inside a transform called on a :class:`~arraygnn.batch.Batch` (:func:`on_batch`), the
batch's own vectors are placed by what the batch records, not by their lengths
(:func:`batch_vectors`): ``batch`` is a node attribute, a ``follow_batch`` vector
``<key>_batch`` has the level of ``<key>`` (``edge_index_batch``: edge), and the pointers
``ptr`` / ``<key>_ptr`` are structure, recomputed after the transform
(:mod:`arraygnn.transforms._on_batch`). Elsewhere (``Data.subgraph`` of a ``Batch``),
where nothing recomputes them, they must be named as before.

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

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from arraygnn._namespace import is_array

__all__ = [
    "AttributeLevels",
    "SaidLevels",
    "attribute_levels",
    "batch_vectors",
    "on_batch",
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
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise TypeError(f"{where}: {what} must be a list of attribute names, got {value!r}")
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: {what} must hold attribute names, got {name!r}")
    return names


def batch_vectors(data: Any) -> tuple[dict[str, str | None], dict[str, str]]:
    """The vectors a :class:`~arraygnn.batch.Batch` keeps of its own, read from its records
    (no length is looked at): ``(vectors, pointers)``. ``vectors`` maps ``'batch'`` to
    ``None`` (it follows the nodes) and each ``follow_batch`` vector ``'<key>_batch'`` to
    ``'<key>'`` (also where a transform dropped the records: ``_follow_vectors``);
    ``pointers`` maps ``'ptr'`` / ``'<key>_ptr'`` to the vector they point into. A key
    with a slice record of its own is a collated attribute, never one of these. Empty for
    anything but a ``Batch``."""
    from arraygnn.batch import Batch  # lazy: arraygnn.batch is not needed by plain Data

    if not isinstance(data, Batch):
        return {}, {}
    store, kinds = data._store, data._kind_dict
    vectors: dict[str, str | None] = {}
    if "batch" in store and "batch" not in kinds:
        vectors["batch"] = None
    for key in kinds:
        name = key + "_batch"
        if name in store and name not in kinds:
            vectors[name] = key
    # those a transform found before it dropped the records (_on_batch.finish_batch)
    for name, key in getattr(data, "_follow_vectors", {}).items():
        if name in store and name not in kinds and name not in vectors:
            vectors[name] = key
    pointers: dict[str, str] = {}
    for v in vectors:
        p = "ptr" if v == "batch" else v[: -len("_batch")] + "_ptr"
        if p in store and p not in kinds:
            pointers[p] = v
    return vectors, pointers


#: set while a transform runs on a ``Batch`` (BaseTransform.__call__), which then fixes
#: the pointers and records of its result
_ON_BATCH: ContextVar[bool] = ContextVar("arraygnn_transform_on_batch", default=False)


@contextmanager
def on_batch() -> Iterator[None]:
    """Within it, :func:`attribute_levels` places a ``Batch``'s own vectors itself (run
    by a transform's call on a ``Batch``, whose result then gets its ``ptr`` and records
    fixed)."""
    token = _ON_BATCH.set(True)
    try:
        yield
    finally:
        _ON_BATCH.reset(token)


def _place_batch_vectors(
    where: str, data: Any, node: list[str], edge: list[str], graph: list[str]
) -> set[str]:
    """Add a ``Batch``'s own vectors the caller did not name to their levels (in place);
    return its pointers (structure, like ``edge_index``). Only within :func:`on_batch`."""
    if not _ON_BATCH.get():
        return set()
    vectors, pointers = batch_vectors(data)
    named = set(node) | set(edge) | set(graph)
    for p in pointers:
        if p in node or p in edge:  # in graph_attrs it is left alone, as a pointer is
            raise ValueError(
                f"{where}: {p!r} is the Batch's pointer, recomputed from "
                f"{pointers[p]!r} after the transform, not a node or edge attribute"
            )
    for v, key in vectors.items():
        if v in named:
            continue
        if key is None or key in node:
            node.append(v)
        elif key == "edge_index" or key in edge:
            edge.append(v)
        elif key in graph or data._kind_dict.get(key) != "cat":
            graph.append(v)  # the follow vector of a per-graph value: one entry per graph
        # else: ``key`` itself is unplaced, and the error below names it
    return set(pointers)


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
    message). ``edge_index`` and ``num_nodes`` are the structure, never attributes; within
    :func:`on_batch` so are a ``Batch``'s pointers, and its ``batch`` / ``follow_batch``
    vectors join the level of what they follow (:func:`batch_vectors`) unless named."""
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
    said_node, said_graph = list(node), list(graph)  # for the error's example
    own = _place_batch_vectors(where, data, node, edge, graph)
    seen: dict[str, str] = {}
    for level, names in (("node", node), ("edge", edge), ("graph", graph)):
        for name in names:
            if name in _OWN:
                raise ValueError(f"{where}: {name!r} is the graph's structure, not an attribute")
            if name not in keys:
                raise ValueError(f"{where}: data has no attribute {name!r} (has {sorted(keys)})")
            if name in seen:
                if seen[name] == level:
                    raise ValueError(f"{where}: {name!r} named twice in {level}_attrs")
                first, then = (("an " if w == "edge" else "a ") + w for w in (seen[name], level))
                raise ValueError(f"{where}: {name!r} named as {first} and as {then} attribute")
            seen[name] = level
    unplaced = [
        k for k in keys if k not in seen and k not in _OWN and k not in own and is_array(data[k])
    ]
    if unplaced:
        raise ValueError(
            f"{where}: data attribute(s) {unplaced} are neither node, edge nor graph "
            "attributes: name them in node_attrs=, edge_attrs= or graph_attrs= (each "
            f"replaces its default), e.g. node_attrs={said_node + unplaced} (one row per "
            f"node) or graph_attrs={said_graph + unplaced} (one entry per graph)"
        )
    rows = {"node": data.num_nodes, "edge": data.num_edges}
    for level in ("node", "edge"):
        for name in node if level == "node" else edge:
            value = data[name]
            want = rows[level]
            if want is None:
                raise ValueError(
                    f"{where}: num_nodes is unknown (give x, pos or num_nodes=; it is never "
                    "guessed from edge_index.max() + 1)"
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
