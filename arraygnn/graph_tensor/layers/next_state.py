"""TF-GNN's next-state layers: how a piece's new state is formed from its inputs.

A next-state layer is called with a tuple of three nests of arrays, all with one row per
item of the updated piece (``tfgnn.keras.layers.next_state``):

- node set: ``(node input, {edge_set_name: pooled input}, context input)``;
- edge set: ``(edge input, {SOURCE / TARGET: node input}, context input)``;
- context: ``(context input, {node_set_name: input}, {edge_set_name: input})``.

Each position is an array, a dict of arrays, or ``{}``. Flattening follows ``tf.nest``:
positions in order, dict entries by sorted key.

>>> import numpy as np
>>> from arraygnn.graph_tensor.layers import dense
>>> nxt = NextStateFromConcat(dense(3, 2, rng=0))
>>> nxt((np.ones((4, 1)), {"e": np.ones((4, 2))}, {})).shape
(4, 2)
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import is_array
from arraygnn.graph_tensor.layers._base import GraphLayer, concat_last, flatten
from arraygnn.graph_tensor.layers._keras import keras_activation
from arraygnn.graph_tensor.pieces import HIDDEN_STATE

__all__ = ["NextStateFromConcat", "ResidualNextState", "SingleInputNextState"]


def _check_inputs(inputs: Any, where: str) -> None:
    if not isinstance(inputs, tuple) or len(inputs) != 3:
        raise TypeError(
            f"{where}: expects a tuple of 3 inputs (own state, inputs from other pieces, "
            f"context or more inputs), got {type(inputs).__name__}"
        )


def _callable(fn: Any, what: str) -> Any:
    if not callable(fn):
        raise TypeError(f"{what} must be a layer or function on arrays, got {type(fn).__name__}")
    return fn


class NextStateFromConcat(GraphLayer):
    """``transformation(concat(flatten(inputs), axis=-1))`` (TF-GNN's
    ``NextStateFromConcat``).

    Args:
        transformation: a layer on arrays (e.g. :func:`dense`, ``Sequential``, ``MLP``).

    Keras weights: those of ``transformation``.
    """

    _child_names = ("transformation",)

    def __init__(self, transformation: Any) -> None:
        self.transformation = _callable(transformation, "NextStateFromConcat: transformation")

    def __call__(self, inputs: tuple[Any, Any, Any]) -> Any:
        where = "NextStateFromConcat"
        _check_inputs(inputs, where)
        return self.transformation(concat_last(flatten(inputs), where))


class ResidualNextState(GraphLayer):
    """``activation(residual_block(concat(flatten(inputs))) + state)`` (TF-GNN's
    ``ResidualNextState``).

    Args:
        residual_block: a layer whose output has the state's shape.
        activation: applied after the addition (Keras name, callable or ``None``).
        skip_connection_feature_name: with a dict as the first input, the feature added
            back (default ``HIDDEN_STATE``); must stay ``None`` when the first input is a
            single array.

    A state with no elements per item (``[N, 0]``, a latent node set) is not added back,
    as TF-GNN (which logs a warning).

    Keras weights: those of ``residual_block``.
    """

    _child_names = ("residual_block",)

    def __init__(
        self,
        residual_block: Any,
        *,
        activation: Any = None,
        skip_connection_feature_name: str | None = None,
    ) -> None:
        self.residual_block = _callable(residual_block, "ResidualNextState: residual_block")
        self.activation = keras_activation(activation, "ResidualNextState")
        if skip_connection_feature_name is not None and not isinstance(
            skip_connection_feature_name, str
        ):
            raise TypeError(
                "ResidualNextState: skip_connection_feature_name must be a str or None, got "
                f"{skip_connection_feature_name!r}"
            )
        self.skip_connection_feature_name = skip_connection_feature_name

    def __call__(self, inputs: tuple[Any, Any, Any]) -> Any:
        where = "ResidualNextState"
        _check_inputs(inputs, where)
        own = inputs[0]
        if is_array(own):
            if self.skip_connection_feature_name is not None:
                raise ValueError(
                    f"{where}: skip connection feature "
                    f"{self.skip_connection_feature_name!r} was set, but the updated piece's "
                    "input is a single array, not a dict of features"
                )
            skip, label = own, "the single input"
        else:
            name = self.skip_connection_feature_name or HIDDEN_STATE
            if not isinstance(own, dict) or name not in own:
                have = sorted(own) if isinstance(own, dict) else type(own).__name__
                raise ValueError(
                    f"{where}: no skip connection feature {name!r} in the inputs of the "
                    f"updated piece ({have})"
                )
            skip, label = own[name], f"input feature {name!r}"
        net = self.residual_block(concat_last(flatten(inputs), where))
        if 0 in tuple(skip.shape[1:]):
            pass  # an empty state (latent node set): no residual link, as TF-GNN
        elif tuple(skip.shape) != tuple(net.shape):
            raise ValueError(
                f"{where}: the residual block's output has shape {tuple(net.shape)}, the "
                f"state ({label}) {tuple(skip.shape)}; they must match"
            )
        else:
            net = net + skip
        return self.activation(net)


class SingleInputNextState(GraphLayer):
    """The one input from other pieces becomes the new state (TF-GNN's
    ``SingleInputNextState``): the second position must hold exactly one entry and the
    third must be empty. No weights."""

    def __call__(self, inputs: tuple[Any, Any, Any]) -> Any:
        where = "SingleInputNextState"
        _check_inputs(inputs, where)
        _, second, third = inputs
        if flatten(third):
            raise ValueError(f"{where}: the third input must be empty (no context input)")
        if not isinstance(second, dict) or len(second) != 1:
            n = len(second) if isinstance(second, dict) else type(second).__name__
            raise ValueError(f"{where}: expects exactly one input from other pieces, got {n}")
        (value,) = second.values()
        return value
