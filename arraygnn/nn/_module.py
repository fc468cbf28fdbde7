"""Base class of the autograd-free layers: named weights, state dicts, device moves.

A layer keeps its weights as plain NumPy or CuPy arrays in attributes named in
``_param_names`` and its sub-layers in attributes named in ``_child_names``.
``state_dict()`` flattens them with dotted names exactly as PyTorch does
(``lin.weight``, ``nn.0.bias``), so a PyG ``state_dict()`` loads by name.

RULE: every weight of a layer lives on the same device (``layer.device``).
RULE: ``load_state_dict`` never keeps a reference to the caller's arrays: values
are copied (and cast to the layer's dtype) onto the layer's device.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import device_of, get_namespace, is_cupy_array, to_device

__all__ = ["Module", "as_array"]

_BATCHNORM_WRAPPER = re.compile(r"(^|\.)norms\.(\d+)\.module\.")


#: the largest feature / channel count a layer takes (a typo such as 2**40 would otherwise
#: try to allocate terabytes of weights)
MAX_LAYER_SIZE = 2**31 - 1


def layer_size(layer: str, name: str, value: Any, minimum: int = 0) -> int:
    """``value`` as an int in ``[minimum, MAX_LAYER_SIZE]``: a ``TypeError`` for bools,
    floats and strings (``4.7`` was truncated, ``'4'`` failed deep inside NumPy), a
    ``ValueError`` naming ``layer`` and ``name`` for one out of range.

    >>> layer_size("Linear", "in_features", np.int64(3))
    3
    """
    if not is_size(value):
        raise TypeError(f"{layer}: {name} must be an int, got {value!r}")
    value = operator.index(value.item() if isinstance(value, np.ndarray) else value)
    if not minimum <= value <= MAX_LAYER_SIZE:
        raise ValueError(
            f"{layer}: {name} must be in [{minimum}, {MAX_LAYER_SIZE}], got {int(value)}"
        )
    return int(value)


def real_number(layer: str, name: str, value: Any) -> float:
    """``value`` as a float: a Python / NumPy real number, or a one-element real array
    (PyG keeps some as ``(1,)`` tensors); a ``TypeError`` naming ``layer`` and ``name``
    for ``None``, bools and strings (``float('0.5')`` would take a string,
    ``np.float64(None)`` is NaN).

    >>> real_number("TransE", "margin", np.float32(0.5))
    0.5
    """
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        value = value.reshape(-1)[0]
    elif is_cupy_array(value) and value.size == 1 and value.dtype.kind in "iuf":
        value = value.reshape(-1)[0].item()  # a setting: one host read when built
    real = isinstance(value, (int, float, np.integer, np.floating))
    if not real or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{layer}: {name} must be a real number, got {value!r}")
    return float(value)


def probability(layer: str, name: str, value: Any, *, below_one: bool = False) -> float:
    """A dropout-like probability as a float in ``[0, 1]`` (``[0, 1)`` with ``below_one``):
    a ``TypeError`` naming ``layer`` and ``name`` for a non-number (as ``real_number``), a
    ``ValueError`` for one out of range or NaN, as torch's ``Dropout(p)`` / ``F.dropout``
    (which PyG's and DGL's layers call) refuses it.

    >>> probability("GATConv", "dropout", np.float32(0.5))
    0.5
    """
    p = real_number(layer, name, value)
    if not (0.0 <= p < 1.0 if below_one else 0.0 <= p <= 1.0):
        span = "[0, 1)" if below_one else "[0, 1]"
        raise ValueError(f"{layer}: {name} must be a probability in {span}, got {value!r}")
    return p


def is_size(value: Any) -> bool:
    """An int-like size (NumPy integers and 0-d integer arrays too), not a pair."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _pair(layer: str, in_feats: Any) -> tuple[int, int]:
    """``(in_src, in_dst)`` of a bipartite layer, both checked sizes."""
    if isinstance(in_feats, np.ndarray) and in_feats.ndim == 1:
        in_feats = tuple(in_feats)
    if not isinstance(in_feats, (tuple, list)) or len(in_feats) != 2:
        raise TypeError(f"{layer}: in_feats must be an int or a pair of ints, got {in_feats!r}")
    return (
        layer_size(layer, "in_feats[0]", in_feats[0]),
        layer_size(layer, "in_feats[1]", in_feats[1]),
    )


def channels_pair(layer: str, value: Any, name: str = "in_channels") -> tuple[Any, int, int]:
    """PyG's ``in_channels``: an int (source and target) or a pair ``(in_src, in_dst)``
    (a bipartite layer). Returns ``(value as the layer keeps it, in_src, in_dst)``, each
    size checked; anything else is a ``TypeError`` naming ``layer`` and ``name``.

    >>> channels_pair("LEConv", (3, 4))
    ((3, 4), 3, 4)
    """
    if is_size(value):
        size = layer_size(layer, name, value)
        return size, size, size
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = tuple(value)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{layer}: {name} must be an int or a pair of ints, got {value!r}")
    pair = (layer_size(layer, f"{name}[0]", value[0]), layer_size(layer, f"{name}[1]", value[1]))
    return pair, pair[0], pair[1]


def as_array(value: Any, name: str) -> Any:
    """Turn a state-dict value (NumPy, CuPy, torch tensor, list) into a NumPy/CuPy array."""
    if isinstance(value, np.ndarray) or is_cupy_array(value):
        return value
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch.Tensor, without importing torch
        return value.detach().cpu().numpy()
    try:
        return np.asarray(value)
    except Exception as err:  # pragma: no cover - exotic objects
        raise TypeError(
            f"state-dict entry {name!r}: cannot turn {type(value)} into an array"
        ) from err


class Module:
    """Common behaviour: ``state_dict``, ``load_state_dict``, ``to``, ``device``, ``dtype``.

    Subclasses set ``_param_names`` (weights that may be ``None``) and ``_child_names``
    (sub-layers) and may override ``_convert_state(mapping, format)`` to translate DGL's
    parameter names into their own (PyG-style) names.
    """

    _param_names: tuple[str, ...] = ()
    _buffer_names: tuple[str, ...] = ()
    _child_names: tuple[str, ...] = ()
    _dgl_supported: bool = False

    # ---- introspection -------------------------------------------------------------
    def _named_arrays(self) -> list[tuple[str, Any]]:
        out = []
        for name in self._param_names + self._buffer_names:
            value = getattr(self, name)
            if value is not None:
                out.append((name, value))
        for child in self._child_names:
            sub = getattr(self, child)
            if sub is None:
                continue
            for name, value in sub._named_arrays():
                out.append((f"{child}.{name}", value))
        return out

    @property
    def device(self) -> str:
        """``'cpu'`` or ``'cuda'``: where this layer's weights live."""
        arrays = self._named_arrays()
        return device_of(arrays[0][1]) if arrays else "cpu"

    @property
    def dtype(self) -> Any:
        """The floating dtype of this layer's weights (``None`` if it has none)."""
        for _, value in self._named_arrays():
            if value.dtype.kind == "f":
                return value.dtype
        return None

    # ---- state dicts ---------------------------------------------------------------
    def state_dict(self, format: str = "pyg") -> dict[str, Any]:
        """Weights by name, as arrays on the layer's device.

        ``format='pyg'`` (default) gives PyG's parameter names; ``format='dgl'`` gives
        DGL's for layers that have a DGL counterpart.
        """
        native = dict(self._named_arrays())
        if format == "pyg":
            return self._export_pyg(native)
        if format == "dgl":
            if not self._dgl_supported:
                raise ValueError(f"{type(self).__name__} has no DGL parameter naming")
            return self._native_to_dgl(native)
        raise ValueError(f"format must be 'pyg' or 'dgl', got {format!r}")

    def load_state_dict(
        self, mapping: Mapping[str, Any], format: str = "auto", strict: bool = True
    ) -> Module:
        """Copy weights in by name; returns ``self``.

        ``mapping`` may hold NumPy arrays, CuPy arrays or torch tensors (e.g.
        ``pyg_module.state_dict()``). ``format`` is ``'pyg'``, ``'dgl'`` or ``'auto'``
        (PyG names when they match, otherwise DGL names). With ``strict=True`` a missing
        or unexpected key raises ``KeyError`` naming it; a wrong shape raises ``ValueError``.
        """
        if not isinstance(mapping, Mapping):
            raise TypeError(
                f"load_state_dict expects a mapping of names to arrays, got {type(mapping)}"
            )
        if format not in ("auto", "pyg", "dgl"):
            raise ValueError(f"format must be 'auto', 'pyg' or 'dgl', got {format!r}")
        values = {k: as_array(v, k) for k, v in mapping.items()}
        expected = dict(self._named_arrays())
        if format == "auto":
            format = "pyg"
            if self._dgl_supported:
                pyg_hits = len(set(expected) & set(self._pyg_aliases(values)))
                try:
                    dgl_hits = len(set(expected) & set(self._dgl_to_native(values)))
                except KeyError:
                    dgl_hits = -1
                if dgl_hits > pyg_hits:
                    format = "dgl"
        if format == "dgl":
            if not self._dgl_supported:
                raise ValueError(f"{type(self).__name__} has no DGL parameter naming")
            values = self._dgl_to_native(values)
        else:
            values = self._pyg_aliases(values)
        missing = [k for k in expected if k not in values]
        unexpected = [k for k in values if k not in expected and not self._ignorable(k)]
        if strict and (missing or unexpected):
            raise KeyError(
                f"{type(self).__name__}.load_state_dict: missing keys {missing}, "
                f"unexpected keys {unexpected} (format={format!r})"
            )
        for key, old in expected.items():
            if key not in values:
                continue
            new = values[key]
            if tuple(new.shape) != tuple(old.shape):
                if new.size == old.size and new.size == 1:
                    new = new.reshape(old.shape)
                else:
                    raise ValueError(
                        f"{type(self).__name__}.load_state_dict: {key!r} has shape "
                        f"{tuple(new.shape)}, expected {tuple(old.shape)}"
                    )
            self._set_array(key, to_device(new, self.device).astype(old.dtype, copy=True))
        return self

    def _set_array(self, dotted: str, value: Any) -> None:
        """Set weight ``dotted``; a sub-layer's name goes on to that sub-layer's own
        ``_set_array`` (containers resolve their keys themselves)."""
        head, sep, rest = dotted.partition(".")
        if sep:
            getattr(self, head)._set_array(rest, value)
        else:
            setattr(self, head, value)

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        """Hook: rename PyG spellings onto ours. Default: PyG's ``BatchNorm`` wraps torch's,
        so ``norms.0.module.weight`` becomes ``norms.0.weight`` (unless this layer names it so:
        ``arraygnn.nn.norm.BatchNorm``, PyG's wrapper, without running statistics)."""
        own = {name for name, _ in self._named_arrays()}
        return {
            k if k in own else _BATCHNORM_WRAPPER.sub(r"\1norms.\2.", k): v
            for k, v in values.items()
        }

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        """Hook: PyG's names for this layer's native ones (default: the same), applied to
        every sub-layer's entries in turn (an ``MLP`` inside a ``GINConv`` names its batch
        norms ``norms.0.module.*`` as PyG's does)."""
        out = dict(native)
        for child in self._child_names:
            sub = getattr(self, child, None)
            if not isinstance(sub, Module):
                continue
            head = f"{child}."
            part = {k[len(head) :]: v for k, v in native.items() if k.startswith(head)}
            if not part:
                continue
            for key in part:
                del out[head + key]
            out.update({head + k: v for k, v in sub._export_pyg(part).items()})
        return out

    def _ignorable(self, key: str) -> bool:
        """Hook: keys that may be present in a foreign state dict and carry nothing."""
        return key.endswith("num_batches_tracked")

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    # ---- devices and dtypes --------------------------------------------------------
    def to(self, device: str) -> Module:
        """Move every weight to ``device`` (``'cpu'`` / ``'cuda'``) in place; returns ``self``."""
        for key, value in self._named_arrays():
            self._set_array(key, to_device(value, device))
        self._clear_cache()
        return self

    def astype(self, dtype: Any) -> Module:
        """Cast every floating weight to ``dtype`` in place; returns ``self``."""
        for key, value in self._named_arrays():
            if value.dtype.kind == "f":
                self._set_array(key, value.astype(dtype))
        self._clear_cache()
        return self

    def _clear_cache(self) -> None:
        for child in self._child_names:
            sub = getattr(self, child)
            if sub is not None:
                sub._clear_cache()

    def _xp(self) -> Any:
        arrays = [v for _, v in self._named_arrays()]
        return get_namespace(*arrays) if arrays else np

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.extra_repr()})"

    def extra_repr(self) -> str:
        return ""
