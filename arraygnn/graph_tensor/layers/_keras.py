"""Keras conventions the TF-GNN layers rely on: activation names, ``Dense``, and the order of
``layer.get_weights()``.

Keras (v2, ``tf_keras``, which TF-GNN uses) lists a layer's weights as all *trainable* weights
first, then all non-trainable ones (BatchNormalization's moving statistics); a
``tf.keras.Sequential`` called on its own lists them layer by layer instead (nested in a
layer, it counts as a layer). Each group is in the order the sub-layers were assigned in the
layer's ``__init__``; a dict of sub-layers (as
``GraphUpdate(node_sets={...})``) counts in the sorted order of its keys. A ``Dense`` layer
holds ``kernel`` ``[in, out]`` (the transpose of :class:`arraygnn.nn.Linear`'s ``weight``) then
``bias``; ``LayerNormalization`` ``gamma``, ``beta``; ``BatchNormalization`` ``gamma``,
``beta`` (trainable), ``moving_mean``, ``moving_variance`` (non-trainable). A sub-layer
used twice (shared weights) is listed once, where it first appears. A layer frozen in Keras
(``layer.trainable = False``) lists all its weights as non-trainable, so they move to the end:
set ``trainable = False`` on the arraygnn twin too.

>>> import numpy as np
>>> lin = dense(3, 2, rng=0)
>>> [w.shape for w in get_keras_weights(lin)]
[(3, 2), (2,)]
>>> load_keras_weights(lin, [np.ones((3, 2)), np.zeros(2)])(np.ones((1, 3), np.float32)).tolist()
[[3.0, 3.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import get_namespace, to_device
from arraygnn.nn._module import Module, as_array
from arraygnn.nn.linear import MLP, BatchNorm, LayerNorm, Linear, Sequential

__all__ = [
    "KerasSlot",
    "keras_activation",
    "dense",
    "keras_slots",
    "get_keras_weights",
    "load_keras_weights",
]


class KerasSlot(NamedTuple):
    """One Keras weight: ``getattr(owner, attr)`` (transposed when ``transposed``)."""

    owner: Module
    attr: str
    transposed: bool
    name: str


def _identity(x: Any) -> Any:
    return x


def _relu(x: Any) -> Any:
    return get_namespace(x).maximum(x, 0)


def _leaky_relu(x: Any) -> Any:  # tf.nn.leaky_relu's default alpha, as TF-GNN documents
    return get_namespace(x).where(x > 0, x, x * x.dtype.type(0.2))


def _elu(x: Any) -> Any:
    xp = get_namespace(x)
    return xp.where(x > 0, x, xp.expm1(xp.minimum(x, 0)))


def _sigmoid(x: Any) -> Any:
    xp = get_namespace(x)
    with np.errstate(over="ignore"):
        return 1 / (1 + xp.exp(-x))


def _tanh(x: Any) -> Any:
    return get_namespace(x).tanh(x)


def _swish(x: Any) -> Any:
    return x * _sigmoid(x)


def _softplus(x: Any) -> Any:
    xp = get_namespace(x)
    return xp.logaddexp(x, xp.zeros((), dtype=x.dtype))


def _gelu(x: Any) -> Any:  # Keras' gelu(approximate=False)
    from arraygnn.nn.linear import _gelu as exact

    return exact(x)


_KERAS_ACTIVATIONS: dict[str, Callable[[Any], Any]] = {
    "linear": _identity,
    "relu": _relu,
    "leaky_relu": _leaky_relu,
    "elu": _elu,
    "sigmoid": _sigmoid,
    "tanh": _tanh,
    "swish": _swish,
    "silu": _swish,
    "softplus": _softplus,
    "gelu": _gelu,
}


def keras_activation(activation: Any, where: str) -> Callable[[Any], Any]:
    """An activation as ``tf.keras.activations.get`` understands it: ``None`` or
    ``"linear"`` (identity), ``"relu"``, ``"leaky_relu"`` (slope 0.2), ``"elu"``,
    ``"sigmoid"``, ``"tanh"``, ``"swish"`` / ``"silu"``, ``"softplus"``, ``"gelu"``, or a
    callable on arrays.

    >>> keras_activation("leaky_relu", "doc")(np.array([-1.0, 2.0])).tolist()
    [-0.2, 2.0]
    """
    if activation is None:
        return _identity
    if callable(activation):
        return activation
    if isinstance(activation, str) and activation.lower() in _KERAS_ACTIVATIONS:
        return _KERAS_ACTIVATIONS[activation.lower()]
    raise ValueError(
        f"{where}: activation must be None, a callable or one of "
        f"{sorted(_KERAS_ACTIVATIONS)}, got {activation!r}"
    )


def dense(
    in_features: int,
    units: int,
    activation: Any = None,
    use_bias: bool = True,
    *,
    dtype: Any = np.float32,
    rng: Any = None,
) -> Module:
    """``tf.keras.layers.Dense(units, activation, use_bias)`` with its input size given up
    front: a :class:`~arraygnn.nn.Linear`, followed by the activation (a
    :class:`~arraygnn.nn.Sequential`) when there is one. Keras weights: kernel, bias."""
    lin = Linear(in_features, units, bool(use_bias), dtype=dtype, rng=rng)
    if activation is None or activation == "linear":
        return lin
    return Sequential(lin, keras_activation(activation, "dense()"))


def _linear_slots(lin: Linear, prefix: str) -> list[KerasSlot]:
    out = [KerasSlot(lin, "weight", True, prefix + "kernel")]
    if lin.bias is not None:
        out.append(KerasSlot(lin, "bias", False, prefix + "bias"))
    return out


def is_frozen(obj: Any) -> bool:
    """``obj.trainable = False`` marks a layer frozen (Keras' ``layer.trainable = False``)."""
    return getattr(obj, "trainable", True) is False


def keras_slots(
    obj: Any, prefix: str = "", frozen: bool = False
) -> tuple[list[KerasSlot], list[KerasSlot]]:
    """``(trainable, non_trainable)`` Keras weights of ``obj`` in Keras' order.

    Layers of this package give theirs (``_keras_slots``); ``Linear`` is a ``Dense``,
    ``Sequential`` / ``MLP`` a ``tf.keras.Sequential`` of their steps, ``LayerNorm`` /
    ``BatchNorm`` Keras' normalisations; a plain function has no weights. Any other module
    raises ``TypeError`` naming its type.

    A frozen layer (``obj.trainable = False``, or inside one) has no trainable weights: all
    its weights are non-trainable, sub-layer by sub-layer, as Keras lists a layer after
    ``layer.trainable = False``.
    """
    if obj is None or not isinstance(obj, Module):
        return [], []
    frozen = frozen or is_frozen(obj)
    hook = getattr(obj, "_keras_slots", None)
    if hook is not None:
        return hook(prefix, frozen)
    if type(obj) is Linear:
        return _split(_linear_slots(obj, prefix), [], frozen)
    if type(obj) is LayerNorm:
        train = [
            KerasSlot(obj, a, False, prefix + n)
            for a, n in (("weight", "gamma"), ("bias", "beta"))
            if getattr(obj, a) is not None
        ]
        return _split(train, [], frozen)
    if type(obj) is BatchNorm:
        train = [
            KerasSlot(obj, a, False, prefix + n)
            for a, n in (("weight", "gamma"), ("bias", "beta"))
            if getattr(obj, a) is not None
        ]
        fixed = [
            KerasSlot(obj, "running_mean", False, prefix + "moving_mean"),
            KerasSlot(obj, "running_var", False, prefix + "moving_variance"),
        ]
        return _split(train, fixed, frozen)
    children = _model_children(obj, prefix)
    if children is not None:
        return _concat_slots(children, frozen)
    raise TypeError(
        f"no Keras weight order is known for {type(obj).__name__} (at {prefix or 'top'!r}); "
        "use Linear, Sequential, MLP, LayerNorm, BatchNorm or a layer of "
        "arraygnn.graph_tensor.layers"
    )


def _split(
    train: list[KerasSlot], fixed: list[KerasSlot], frozen: bool
) -> tuple[list[KerasSlot], list[KerasSlot]]:
    """A layer's own weights: all non-trainable when it is frozen."""
    return ([], train + fixed) if frozen else (train, fixed)


def _model_children(obj: Any, prefix: str) -> list[tuple[str, Any]] | None:
    """The layers of a ``Sequential`` / ``MLP`` (a Keras ``Sequential`` model), or None."""
    if type(obj) is Sequential:
        return [(f"{prefix}{i}/", step) for i, step in enumerate(obj.steps)]
    if type(obj) is MLP:
        steps: list[tuple[str, Any]] = []
        for i, lin in enumerate(obj.lins):
            steps.append((f"{prefix}lins.{i}/", lin))
            if obj.norms is not None and i < len(obj.norms):
                steps.append((f"{prefix}norms.{i}/", obj.norms[i]))
        return steps
    return None


def _concat_slots(
    children: Sequence[tuple[str, Any]], frozen: bool = False
) -> tuple[list[KerasSlot], list[KerasSlot]]:
    """Sub-layers in order: their trainable weights, then their non-trainable ones (a frozen
    sub-layer has only the latter, so a frozen parent lists them sub-layer by sub-layer)."""
    train: list[KerasSlot] = []
    fixed: list[KerasSlot] = []
    for prefix, child in children:
        t, f = keras_slots(child, prefix, frozen)
        train += t
        fixed += f
    return train, fixed


def _all_slots(layer: Any, prefix: str = "") -> list[KerasSlot]:
    """Keras' ``get_weights()`` order: a model (``Sequential``) lists its layers' weights
    layer by layer; any other layer its trainable weights, then the non-trainable ones."""
    children = _model_children(layer, prefix)
    if children is not None:
        return [slot for p, child in children for slot in _all_slots(child, p)]
    train, fixed = keras_slots(layer, prefix)
    return train + fixed


def _keras_order(layer: Any) -> list[KerasSlot]:
    """:func:`_all_slots` with a weight reached twice (a sub-layer shared by two updates or
    convolutions) listed once, where it first appears, as Keras' ``_dedup_weights``."""
    seen: set[tuple[int, str]] = set()
    out = []
    for slot in _all_slots(layer):
        key = (id(slot.owner), slot.attr)
        if key not in seen:
            seen.add(key)
            out.append(slot)
    return out


def get_keras_weights(layer: Any) -> list[Any]:
    """Copies of ``layer``'s weights in the order of Keras' ``layer.get_weights()`` for the
    TF-GNN layer it mirrors (kernels ``[in, out]``)."""
    out = []
    for slot in _keras_order(layer):
        value = getattr(slot.owner, slot.attr)
        out.append((value.T if slot.transposed else value).copy())
    return out


def _strip_name(name: str) -> str:
    """A Keras variable name less its ``:0`` suffix."""
    head, sep, tail = name.rpartition(":")
    return head if sep and tail.isdigit() else name


def _by_name(slots: list[KerasSlot], weights: Mapping[str, Any], what: str) -> list[Any]:
    """``weights`` ``{Keras variable name: array}`` as a list in ``slots``' order.

    First by full name: a slot named ``query/kernel`` takes the key ``query/kernel``,
    ``<scope>/query/kernel`` (either with ``:0``), else the one key ending in
    ``/query/kernel``. Where that fails (a composite layer such as ``GraphUpdate``: Keras
    names its sub-layers ``dense_27``, ``node_set_update_3``, ... by creation count), in
    the dict's order (``keras_layer.weights``' order), each key's last name part
    (``kernel``, ``skip_paper``) checked against the slot's; of the keys of one Keras layer
    (one scope), the one with the slot's last name part is taken, so a layer's own weights
    listed in another order (HGT's ``skip_*``) still land by name.
    """
    where = f"load_keras_weights({what})"
    names: dict[str, str] = {}
    for key in weights:
        if not isinstance(key, str):
            raise TypeError(f"{where}: weight names must be str, got {key!r}")
        names[key] = _strip_name(key)
    if len(weights) != len(slots):
        raise ValueError(
            f"{where}: expected {len(slots)} weights ({[s.name for s in slots]}), got "
            f"{len(weights)} ({list(weights)}); Keras' names are not unique in a composite "
            "layer (GraphUpdate, the *GraphUpdate builders), so a dict of them can lose "
            "weights: pass get_weights()' list there"
        )
    out, used, problem = [], set(), None
    for slot in slots:
        exact = [k for k, n in names.items() if n == slot.name or n.split("/", 1)[-1] == slot.name]
        found = [k for k in exact if k not in used] or [
            k for k, n in names.items() if n.endswith("/" + slot.name) and k not in used
        ]
        if len(found) != 1:
            problem = "no weight" if not found else f"several weights ({sorted(found)})"
            problem = f"{problem} named like {slot.name!r}"
            break
        used.add(found[0])
        out.append(weights[found[0]])
    if problem is None:
        return out

    def scope(name: str) -> str:
        return name.rpartition("/")[0]

    def leaf(name: str) -> str:
        return name.rpartition("/")[2]

    out, used = [], set()
    for slot in slots:
        rest = [k for k in names if k not in used]
        here = [k for k in rest if scope(names[k]) == scope(names[rest[0]])]
        found = [k for k in here if leaf(names[k]) == leaf(slot.name)]
        if not found:
            raise ValueError(
                f"{where}: {problem}, and in the dict's order weight {rest[0]!r} does not "
                f"match {slot.name!r} (the layer's weights: {[s.name for s in slots]})"
            )
        used.add(found[0])
        out.append(weights[found[0]])
    return out


def load_keras_weights(layer: Any, weights: Sequence[Any] | Mapping[str, Any]) -> Any:
    """Set ``layer``'s weights from ``weights``, a list in the order Keras'
    ``get_weights()`` returns them for the TF-GNN layer (see the module docstring), or a
    dict ``{variable name: array}`` as ``{v.name: v.numpy() for v in
    keras_layer.weights}`` (names matched to the layer's Keras names, less the layer's
    scope and the ``:0``; safer where Keras' order can change, as HGT's ``skip_*``);
    returns ``layer``. The arrays are copied (cast to the layer's dtype, moved to its
    device); a wrong count, name or shape raises ``ValueError`` naming the weight. Nothing
    is set unless every weight fits.
    """
    what = type(layer).__name__
    slots = _keras_order(layer)
    if isinstance(weights, Mapping):
        weights = _by_name(slots, weights, what)
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence):
        raise TypeError(
            f"load_keras_weights({what}): weights must be a list of arrays or a dict "
            f"{{variable name: array}}, got {type(weights).__name__}"
        )
    if len(weights) != len(slots):
        raise ValueError(
            f"load_keras_weights({what}): expected {len(slots)} arrays "
            f"({[s.name for s in slots]}), got {len(weights)}"
        )
    staged = []
    for i, (slot, value) in enumerate(zip(slots, weights)):
        old = getattr(slot.owner, slot.attr)
        new = as_array(value, slot.name)
        if new.dtype.kind not in "iuf":
            raise TypeError(
                f"load_keras_weights({what}): weight {i} ({slot.name}) must hold numbers, "
                f"got dtype {new.dtype}"
            )
        if slot.transposed:
            new = new.T
        if tuple(new.shape) != tuple(old.shape):
            want = tuple(old.T.shape if slot.transposed else old.shape)
            got = tuple(new.T.shape if slot.transposed else new.shape)
            raise ValueError(
                f"load_keras_weights({what}): weight {i} ({slot.name}) has shape {got}, "
                f"expected {want}"
            )
        staged.append((slot, to_device(new, slot.owner.device).astype(old.dtype, copy=True)))
    for slot, value in staged:
        setattr(slot.owner, slot.attr, get_namespace(value).ascontiguousarray(value))
        slot.owner._clear_cache()
    return layer
