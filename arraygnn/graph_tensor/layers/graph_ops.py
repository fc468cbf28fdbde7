"""TF-GNN's small weightless layers: ``AddSelfLoops``, ``MakeEmptyFeature``, ``ItemDropout``.

- :class:`AddSelfLoops` is :func:`arraygnn.graph_tensor.add_self_loops` as a layer;
- :class:`MakeEmptyFeature` gives a ``[num_items, 0]`` feature for a node set, edge set or
  context (ragged over the batch for a batched graph), e.g. the initial hidden state of a
  latent node set in ``MapFeatures``;
- :class:`ItemDropout` drops whole rows (items) in training mode and is the identity at
  inference (the default, as Keras outside ``fit``).

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> g = GraphTensor.from_pieces(node_sets={"n": NodeSet.from_fields(sizes=np.array([2, 1]))})
>>> MakeEmptyFeature()(g.node_sets["n"]).shape
(3, 0)
>>> x = np.ones((3, 2))
>>> ItemDropout(0.5)(x) is x
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.graph_ops import add_self_loops
from arraygnn.graph_tensor.layers._base import GraphLayer, check_graph
from arraygnn.graph_tensor.pieces import (
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    _splits_from_lengths,
)
from arraygnn.graph_tensor.ragged import Ragged

__all__ = ["AddSelfLoops", "MakeEmptyFeature", "ItemDropout"]


class AddSelfLoops(GraphLayer):
    """Adds a loop at every node of a homogeneous edge set (even where one exists), as
    :func:`arraygnn.graph_tensor.add_self_loops`. No weights."""

    def __init__(self, edge_set_name: str) -> None:
        self.edge_set_name = edge_set_name

    def __call__(self, graph: GraphTensor) -> GraphTensor:
        check_graph(graph, "AddSelfLoops")
        return add_self_loops(graph, self.edge_set_name)


class MakeEmptyFeature(GraphLayer):
    """An empty feature that fits a graph piece: zeros ``[total_size, 0]`` of ``dtype``
    (default float32, Keras' default) for a scalar graph's piece, a ``Ragged`` ``[batch,
    (items), 0]`` for a batched graph's piece. No weights."""

    def __init__(self, dtype: Any = np.float32) -> None:
        self.feature_dtype = np.dtype(dtype)

    def __call__(self, graph_piece: Any) -> Any:
        if not isinstance(graph_piece, (Context, NodeSet, EdgeSet)):
            raise TypeError(
                "MakeEmptyFeature: expects a Context, NodeSet or EdgeSet, got "
                f"{type(graph_piece).__name__}"
            )
        sizes = graph_piece.sizes
        if not isinstance(sizes, Ragged):  # a scalar graph's piece
            xp = get_namespace(sizes)
            return xp.zeros((graph_piece.total_size, 0), dtype=self.feature_dtype)
        # batched: each graph's items end where its last component's items end
        splits = _splits_from_lengths(sizes.values)[sizes.row_splits]
        xp = get_namespace(splits)
        values = xp.zeros((graph_piece.total_size, 0), dtype=self.feature_dtype)
        return Ragged(values, splits, validate=False)


class ItemDropout(GraphLayer):
    """Dropout of entire items (rows): at inference (``training=False``, the default) the
    input itself; with ``training=True`` each row is zeroed with probability ``rate`` and
    the others scaled by ``1 / (1 - rate)``. ``seed``: an int or ``numpy.random.Generator``
    (host draws; TensorFlow's random stream cannot be matched). ``rate`` is in ``[0, 1]``
    as Keras' ``Dropout``; ``rate=1`` cannot train (as Keras). No weights."""

    def __init__(self, rate: float, seed: Any = None) -> None:
        rate = float(rate)
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"ItemDropout: rate must be in [0, 1], got {rate}")
        self.rate = rate
        self.seed = seed
        self._rng = seed if isinstance(seed, np.random.Generator) else None

    def __call__(self, x: Any, *, training: bool = False) -> Any:
        if not is_array(x) or x.ndim < 1:
            raise ValueError(
                "ItemDropout: needs an array [num_items, ...] of rank >= 1, got "
                f"{type(x).__name__} {getattr(x, 'shape', '')}"
            )
        if not training or self.rate == 0.0:
            return x
        if self.rate == 1.0:
            raise ValueError(
                "ItemDropout: rate 1.0 drops every item; training needs a rate in [0, 1)"
            )
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        xp = get_namespace(x)
        keep = self._rng.random(x.shape[0]) >= self.rate
        scale = (keep / (1.0 - self.rate)).astype(x.dtype)
        return x * xp.asarray(scale).reshape((-1,) + (1,) * (x.ndim - 1))
