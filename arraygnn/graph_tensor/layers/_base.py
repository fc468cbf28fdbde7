"""What the GraphTensor layers share: Keras-ordered weights, dicts of sub-layers, feature
look-ups that name the piece, and ``tf.nest``'s flattening order."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.layers._keras import (
    KerasSlot,
    _concat_slots,
    get_keras_weights,
    load_keras_weights,
)
from arraygnn.graph_tensor.pieces import GraphTensor
from arraygnn.graph_tensor.ragged import Ragged
from arraygnn.nn._module import Module

AUX_PREFIXES = "_#!%.^~"


class GraphLayer(Module):
    """Base of the layers: ``get_weights()`` / ``set_weights(list)`` in Keras' order (see
    :mod:`arraygnn.graph_tensor.layers._keras`), ``state_dict()``, ``to(device)``."""

    def _keras_children(self) -> list[tuple[str, Any]]:
        """``(name, sub-layer)`` in the order the TF-GNN layer assigns them."""
        return [(c, getattr(self, c)) for c in self._child_names]

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        return _concat_slots([(f"{prefix}{n}/", c) for n, c in self._keras_children()], frozen)

    def _named_arrays(self) -> list[tuple[str, Any]]:
        out = []
        for name in self._param_names + self._buffer_names:
            value = getattr(self, name)
            if value is not None:
                out.append((name, value))
        for child in self._child_names:
            sub = getattr(self, child)
            if isinstance(sub, Module):  # plain functions carry no weights
                out += [(f"{child}.{n}", v) for n, v in sub._named_arrays()]
        return out

    def _clear_cache(self) -> None:
        for child in self._child_names:
            sub = getattr(self, child)
            if isinstance(sub, Module):
                sub._clear_cache()

    def get_weights(self) -> list[Any]:
        """Copies of the weights, in the order of Keras' ``get_weights()``."""
        return get_keras_weights(self)

    def set_weights(self, weights: Any) -> GraphLayer:
        """Set the weights from a list in the order of Keras' ``get_weights()``, or from a
        dict ``{Keras variable name: array}`` (see :func:`load_keras_weights`); returns
        ``self``."""
        return load_keras_weights(self, weights)


class ModuleDict(GraphLayer):
    """Sub-layers by set name (``state_dict`` keys ``<name>.<weight>``); Keras order: sorted
    by name (``tf.nest`` / Keras' dict tracking)."""

    def __init__(self, layers: Mapping[str, Any]) -> None:
        self._items = dict(layers)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def items(self) -> Any:
        return self._items.items()

    def _keras_children(self) -> list[tuple[str, Any]]:
        return sorted(self._items.items())

    def _named_arrays(self) -> list[tuple[str, Any]]:
        out = []
        for key, sub in sorted(self._items.items()):
            if isinstance(sub, Module):
                out += [(f"{key}.{n}", v) for n, v in sub._named_arrays()]
        return out

    def _set_array(self, dotted: str, value: Any) -> None:
        for key in sorted(self._items, key=len, reverse=True):  # names may contain dots
            if dotted.startswith(key + "."):
                self._items[key]._set_array(dotted[len(key) + 1 :], value)
                return
        raise KeyError(dotted)

    def _clear_cache(self) -> None:
        for sub in self._items.values():
            if isinstance(sub, Module):
                sub._clear_cache()

    def extra_repr(self) -> str:
        return ", ".join(f"{k!r}: {v!r}" for k, v in sorted(self._items.items()))


def check_graph(graph: Any, where: str) -> GraphTensor:
    if not isinstance(graph, GraphTensor):
        raise TypeError(f"{where}: expects a GraphTensor, got {type(graph).__name__}")
    if graph.rank != 0:
        raise ValueError(
            f"{where}: needs a scalar GraphTensor (rank 0), got rank {graph.rank}; "
            "call graph.merge_batch_to_components() first"
        )
    return graph


def node_set(graph: GraphTensor, name: Any, where: str) -> Any:
    if not isinstance(name, str) or name not in graph.node_sets:
        raise ValueError(f"{where}: no node set {name!r} (node sets: {sorted(graph.node_sets)})")
    return graph.node_sets[name]


def edge_set(graph: GraphTensor, name: Any, where: str) -> Any:
    if not isinstance(name, str) or name not in graph.edge_sets:
        raise ValueError(f"{where}: no edge set {name!r} (edge sets: {sorted(graph.edge_sets)})")
    return graph.edge_sets[name]


def feature(piece: Any, name: str, piece_name: str, where: str) -> Any:
    """A dense feature of ``piece``, or a ``ValueError`` naming the piece and feature."""
    if name not in piece.features:
        raise ValueError(
            f"{where}: {piece_name} has no feature {name!r} (features: {sorted(piece.features)})"
        )
    value = piece.features[name]
    if isinstance(value, Ragged) or not is_array(value):
        raise TypeError(f"{where}: feature {name!r} of {piece_name} must be a dense array")
    return value


def feature_or_features(piece: Any, names: Any, piece_name: str, where: str) -> Any:
    """TF-GNN's rule: one name -> that array; ``None`` or empty -> ``{}``; several ->
    ``{name: array}``."""
    if isinstance(names, str):
        return feature(piece, names, piece_name, where)
    if not names:
        return {}
    return {n: feature(piece, n, piece_name, where) for n in names}


def copy_names(names: Any, where: str) -> Any:
    """A feature name, ``None``, or a list copy of a sequence of names."""
    if names is None or isinstance(names, str):
        return names
    try:
        out = list(names)
    except TypeError:
        raise TypeError(
            f"{where}: expected a feature name or a list of them, got {names!r}"
        ) from None
    for n in out:
        if not isinstance(n, str):
            raise TypeError(f"{where}: feature names must be str, got {n!r}")
    return out


def name_set(names: Any, arg: str, where: str) -> set[str] | None:
    """``None``, or a collection of set names as a set; a single ``str`` (which TF-GNN
    would take letter by letter, or test for substrings) raises ``TypeError`` naming
    ``arg``, and so does an iterator (read once here, it would be empty when a deferred
    update reads it again)."""
    if names is None:
        return None
    if (
        isinstance(names, str)
        or not isinstance(names, Collection)
        or not all(isinstance(n, str) for n in names)
    ):
        example = f" (e.g. [{names!r}])" if isinstance(names, str) else " (a list, tuple or set)"
        raise TypeError(f"{where}: {arg} must be a collection of set names{example}, got {names!r}")
    return set(names)


def flatten(nest: Any) -> list[Any]:
    """``tf.nest.flatten``: tuples / lists in order, dicts by sorted key, arrays as leaves."""
    if isinstance(nest, Mapping):
        return [leaf for k in sorted(nest) for leaf in flatten(nest[k])]
    if isinstance(nest, (tuple, list)):
        return [leaf for item in nest for leaf in flatten(item)]
    return [nest]


def concat_last(values: list[Any], where: str) -> Any:
    """Concatenate arrays along the last axis (ranks and leading sizes must agree)."""
    if not values:
        raise ValueError(f"{where}: nothing to combine (all inputs are empty)")
    for v in values:
        if not is_array(v):
            raise TypeError(f"{where}: inputs must be NumPy/CuPy arrays, got {type(v).__name__}")
    first = values[0]
    for v in values[1:]:
        if v.ndim != first.ndim or v.shape[:-1] != first.shape[:-1]:
            raise ValueError(
                f"{where}: cannot concatenate inputs of shapes "
                f"{[tuple(x.shape) for x in values]} along the last axis"
            )
    if len(values) == 1:
        return first
    return get_namespace(*values).concatenate(values, axis=-1)


def is_aux(name: str) -> bool:
    """TF-GNN's auxiliary sets (``_readout``, ``_shadow/...``): a name starting with one of
    ``_#!%.^~``."""
    return bool(name) and name[0] in AUX_PREFIXES
