"""jraph's type aliases, for code that annotates with them (``jraph.ArrayTree``,
``jraph.GNUpdateNodeFn``, ...): the same names and shapes of ``Callable``, over NumPy
arrays (CuPy arrays pass the same way; annotations are not checked at run time).

>>> import numpy as np
>>> def embed(nodes: ArrayTree) -> ArrayTree:
...     return nodes
>>> fn: EmbedNodeFn = embed
>>> fn(np.ones(2)).tolist()
[1.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

import numpy as np

__all__ = [
    "AggregateEdgesToGlobalsFn",
    "AggregateEdgesToNodesFn",
    "AggregateNodesToGlobalsFn",
    "ArrayTree",
    "AttentionLogitFn",
    "AttentionReduceFn",
    "EmbedEdgeFn",
    "EmbedGlobalFn",
    "EmbedNodeFn",
    "GATAttentionLogitFn",
    "GATAttentionQueryFn",
    "GATNodeUpdateFn",
    "GNUpdateEdgeFn",
    "GNUpdateGlobalFn",
    "GNUpdateNodeFn",
    "InteractionUpdateEdgeFn",
    "InteractionUpdateNodeFn",
    "NodeFeatures",
]

# typing.Union, as jraph's (its members name ArrayTree itself, as strings)
ArrayTree = Union[np.ndarray, Iterable["ArrayTree"], Mapping[Any, "ArrayTree"]]  # noqa: UP007
"""An array, or a (nested) list / tuple / dict of arrays: a feature field."""

NodeFeatures = EdgeFeatures = SenderFeatures = ReceiverFeatures = Globals = ArrayTree

AggregateEdgesToNodesFn = Callable[[EdgeFeatures, np.ndarray, int], NodeFeatures]
AggregateNodesToGlobalsFn = Callable[[NodeFeatures, np.ndarray, int], Globals]
AggregateEdgesToGlobalsFn = Callable[[EdgeFeatures, np.ndarray, int], Globals]
AttentionLogitFn = Callable[[EdgeFeatures, SenderFeatures, ReceiverFeatures, Globals], ArrayTree]
AttentionReduceFn = Callable[[EdgeFeatures, ArrayTree], EdgeFeatures]
GNUpdateEdgeFn = Callable[[EdgeFeatures, SenderFeatures, ReceiverFeatures, Globals], EdgeFeatures]
GNUpdateNodeFn = Callable[[NodeFeatures, SenderFeatures, ReceiverFeatures, Globals], NodeFeatures]
GNUpdateGlobalFn = Callable[[NodeFeatures, EdgeFeatures, Globals], Globals]
InteractionUpdateNodeFn = Callable[
    [NodeFeatures, Mapping[str, SenderFeatures], Mapping[str, ReceiverFeatures]], NodeFeatures
]
InteractionUpdateEdgeFn = Callable[[EdgeFeatures, SenderFeatures, ReceiverFeatures], EdgeFeatures]
EmbedEdgeFn = Callable[[EdgeFeatures], EdgeFeatures]
EmbedNodeFn = Callable[[NodeFeatures], NodeFeatures]
EmbedGlobalFn = Callable[[Globals], Globals]
GATAttentionQueryFn = Callable[[NodeFeatures], NodeFeatures]
GATAttentionLogitFn = Callable[[SenderFeatures, ReceiverFeatures, EdgeFeatures], EdgeFeatures]
GATNodeUpdateFn = Callable[[NodeFeatures], NodeFeatures]
