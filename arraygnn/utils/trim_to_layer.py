"""PyG's ``trim_to_layer``: drop the nodes and edges a GNN layer no longer needs in a
:class:`~arraygnn.neighbor_loader.NeighborLoader` mini-batch (whose nodes and edges are
ordered by hop).

At layer ``l > 0`` the last ``num_sampled_nodes_per_hop[-l]`` rows of ``x`` and the last
``num_sampled_edges_per_hop[-l]`` edges (columns of ``edge_index``, rows of ``edge_attr``)
are cut. Homogeneous inputs take lists; heterogeneous ones dicts by node / edge type.
The results are views (slices) of the inputs, as PyG's ``narrow``.

>>> import numpy as np
>>> x, ei, _ = trim_to_layer(1, [1, 2], [2, 3], np.zeros((3, 1)), np.zeros((2, 5), int))
>>> x.shape, ei.shape
((1, 1), (2, 2))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import is_array

__all__ = ["trim_to_layer"]

_WHERE = "trim_to_layer"


def _count(name: str, counts: Any, layer: int) -> int:
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence):
        raise TypeError(f"{_WHERE}: {name} must be a list of ints, got {type(counts).__name__}")
    if layer > len(counts):
        raise ValueError(
            f"{_WHERE}: layer {layer} needs {name} of length >= {layer}, got {len(counts)}"
        )
    value = counts[-layer]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{_WHERE}: {name} must hold ints >= 0, got {value!r}")
    return int(value)


def _cut(name: str, value: Any, drop: int, axis: int) -> Any:
    if not is_array(value):
        raise TypeError(
            f"{_WHERE}: {name} must be a NumPy or CuPy array, got {type(value).__name__}"
        )
    if value.ndim <= axis:
        raise ValueError(f"{_WHERE}: {name} has no axis {axis} (shape {tuple(value.shape)})")
    size = int(value.shape[axis])
    if drop > size:
        raise ValueError(f"{_WHERE}: cannot trim {drop} from {name} of size {size} (axis {axis})")
    return value[: size - drop] if axis == 0 else value[:, : size - drop]


def trim_to_layer(
    layer: int,
    num_sampled_nodes_per_hop: Sequence[int] | Mapping[Any, Sequence[int]],
    num_sampled_edges_per_hop: Sequence[int] | Mapping[Any, Sequence[int]],
    x: Any,
    edge_index: Any,
    edge_attr: Any = None,
) -> tuple[Any, Any, Any]:
    """``(x, edge_index, edge_attr)`` trimmed for ``layer`` (module docs); ``layer <= 0``
    returns them as they are.

    >>> import numpy as np
    >>> x = {"a": np.zeros((4, 2))}
    >>> ei = {("a", "to", "a"): np.zeros((2, 6), int)}
    >>> out = trim_to_layer(1, {"a": [2, 2]}, {("a", "to", "a"): [4, 2]}, x, ei)
    >>> out[0]["a"].shape, out[1][("a", "to", "a")].shape
    ((2, 2), (2, 4))
    """
    if isinstance(layer, (bool, np.bool_)) or not isinstance(layer, (int, np.integer)):
        raise TypeError(f"{_WHERE}: layer must be an int, got {layer!r}")
    layer = int(layer)
    if layer <= 0:
        return x, edge_index, edge_attr
    nodes, edges = num_sampled_nodes_per_hop, num_sampled_edges_per_hop
    if isinstance(edges, Mapping):
        if not (
            isinstance(nodes, Mapping)
            and isinstance(x, Mapping)
            and isinstance(edge_index, Mapping)
        ):
            raise TypeError(
                f"{_WHERE}: with dicts of edge counts, num_sampled_nodes_per_hop, x and "
                "edge_index must be dicts too"
            )
        x = {
            k: _cut(f"x[{k!r}]", v, _count(f"num_sampled_nodes_per_hop[{k!r}]", nodes[k], layer), 0)
            for k, v in x.items()
        }
        edge_index = {
            k: _cut(
                f"edge_index[{k!r}]",
                v,
                _count(f"num_sampled_edges_per_hop[{k!r}]", edges[k], layer),
                1,
            )
            for k, v in edge_index.items()
        }
        if edge_attr is not None:
            if not isinstance(edge_attr, Mapping):
                raise TypeError(f"{_WHERE}: edge_attr must be a dict like edge_index")
            edge_attr = {
                k: _cut(
                    f"edge_attr[{k!r}]",
                    v,
                    _count(f"num_sampled_edges_per_hop[{k!r}]", edges[k], layer),
                    0,
                )
                for k, v in edge_attr.items()
            }
        return x, edge_index, edge_attr
    x = _cut("x", x, _count("num_sampled_nodes_per_hop", nodes, layer), 0)
    drop = _count("num_sampled_edges_per_hop", edges, layer)
    edge_index = _cut("edge_index", edge_index, drop, 1)
    if edge_attr is not None:
        edge_attr = _cut("edge_attr", edge_attr, drop, 0)
    return x, edge_index, edge_attr
