"""Linear layers with a weight per type: PyG's ``HeteroLinear`` / ``HeteroDictLinear``.

- :class:`HeteroLinear` ``(x, type_vec)``: row ``i`` times the weight of its type,
  ``out[i] = x[i] @ weight[type_vec[i]] + bias[type_vec[i]]``. Rows sorted by type (PyG's
  ``is_sorted``, or found sorted) take one BLAS product per type
  (:func:`arraygnn.ops.segment_mm`); others one :func:`arraygnn.ops.gather_mm` pass with
  every type's weight in cache (no sort, no row gather and scatter back as PyG does).
- :class:`HeteroDictLinear` ``(x_dict)``: one :class:`Linear` per node type.

DGL's :class:`~arraygnn.nn.TypedLinear` is called the same way, ``(x, x_type)``.

>>> import numpy as np
>>> lin = HeteroLinear(4, 2, num_types=3, rng=0)
>>> lin(np.ones((5, 4), np.float32), np.array([0, 2, 1, 2, 0])).shape
(5, 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.hetero_conv import _ModuleDict
from arraygnn.nn.linear import Linear, _check_features, _rng, glorot
from arraygnn.ops._common import check_index

__all__ = ["HeteroLinear", "HeteroDictLinear", "check_types", "typed_product"]


def check_types(where: str, types: Any, num_rows: int, num_types: int, xp: Any) -> Any:
    """The type vector checked (integers in ``[0, num_types)``, one per row) and on ``xp``."""
    if not is_array(types) or types.dtype.kind not in "iu":
        raise TypeError(
            f"{where}: the type vector must be a NumPy or CuPy integer array, got "
            f"{type(types).__name__}{torch_hint(types)}"
        )
    check_index(f"{where}: type vector", types, num_types)
    if tuple(types.shape) != (num_rows,):
        raise ValueError(
            f"{where}: the type vector must have shape ({num_rows},), one type per row of "
            f"x, got {tuple(types.shape)}"
        )
    return xp.asarray(types)


def typed_product(
    where: str,
    x: Any,
    types: Any,
    weight: Any,
    num_types: int,
    is_sorted: bool = False,
    sorted_name: str = "is_sorted",
) -> Any:
    """``out[i] = x[i] @ weight[types[i]]`` for ``x`` [N, in], ``weight`` [T, in, out]:
    one BLAS product per type when ``types`` is sorted (found by one pass; ``is_sorted``
    True makes an unsorted vector an error naming ``sorted_name``), else one ``gather_mm``
    pass."""
    from arraygnn import ops

    xp = get_namespace(weight)
    types = check_types(where, types, int(x.shape[0]), num_types, xp)
    ordered = int(x.shape[0]) < 2 or bool((types[1:] >= types[:-1]).all())  # one pass
    if is_sorted and not ordered:
        raise ValueError(f"{where}: {sorted_name}=True but the type vector is not sorted")
    if ordered:
        counts = xp.bincount(types.astype(np.int64, copy=False), minlength=num_types)
        return ops.segment_mm(x, weight, counts[:num_types])
    return ops.gather_mm(x, weight, idx_b=types)


class HeteroLinear(Module):
    """PyG's ``HeteroLinear``: a weight (and bias) per type, picked per row.

    Args:
        in_channels, out_channels: sizes.
        num_types: number of types; ``type_vec`` holds ids in ``[0, num_types)``.
        is_sorted: the rows come sorted by type (then one BLAS product per type; checked).
        bias: a bias per type.

    Shapes:
        - input: ``x`` ``(N, in_channels)``, ``type_vec`` ``(N,)``
        - output: ``(N, out_channels)``

    Names (PyG): ``weight`` ``(num_types, in, out)``, ``bias`` ``(num_types, out)``.
    """

    _param_names = ("weight", "bias")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_types: int,
        is_sorted: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HeteroLinear"
        self.in_channels = layer_size(layer, "in_channels", in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        self.num_types = layer_size(layer, "num_types", num_types, minimum=1)
        self.is_sorted = bool(is_sorted)
        gen = _rng(rng)
        self.weight = glorot((self.num_types, self.in_channels, self.out_channels), gen, dtype)
        self.bias = np.zeros((self.num_types, self.out_channels), dtype) if bias else None

    def __call__(self, x: Any, type_vec: Any) -> Any:
        _check_features(x, self.in_channels, "HeteroLinear input", self.weight)
        if x.ndim != 2:
            raise ValueError(f"HeteroLinear: x must be (N, {self.in_channels}), got {x.shape}")
        out = typed_product(
            "HeteroLinear", x, type_vec, self.weight, self.num_types, self.is_sorted
        )
        if self.bias is not None:
            from arraygnn import ops

            out = out + ops.gather(self.bias, get_namespace(self.bias).asarray(type_vec))
        return out

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, num_types={self.num_types}, "
            f"bias={self.bias is not None}"
        )


class HeteroDictLinear(Module):
    """PyG's ``HeteroDictLinear``: a :class:`Linear` per type, ``x_dict -> out_dict``.

    Args:
        in_channels: one size for every type, or ``{type: size}`` (then ``types`` defaults
            to its keys).
        out_channels: output size.
        types: the types (required with an int ``in_channels``).
        bias: biases.

    Call as ``lin(x_dict)``; the result lists the layers' types present in ``x_dict``, in the
    layers' order (types without a layer are left out), as PyG.
    Names (PyG): ``lins.<type>.weight`` ``(out, in)``, ``lins.<type>.bias``.

    >>> import numpy as np
    >>> lin = HeteroDictLinear({"paper": 4, "author": 3}, 2, rng=0)
    >>> out = lin({"paper": np.ones((5, 4), np.float32), "author": np.ones((2, 3), np.float32)})
    >>> {k: v.shape for k, v in out.items()}
    {'paper': (5, 2), 'author': (2, 2)}
    """

    _child_names = ("lins",)

    def __init__(
        self,
        in_channels: int | Mapping[str, int],
        out_channels: int,
        types: Any = None,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HeteroDictLinear"
        if isinstance(in_channels, Mapping):
            if types is not None and set(types) != set(in_channels):
                raise ValueError(
                    f"{layer}: types {list(types)} do not match the keys of in_channels "
                    f"{list(in_channels)} (as PyG)"
                )
            sizes = dict(in_channels)
        else:
            if types is None:
                raise ValueError(f"{layer}: types is required when in_channels is an int")
            sizes = {t: in_channels for t in types}
        for t in sizes:
            if not isinstance(t, str) or "." in t:
                raise ValueError(f"{layer}: types must be strings without dots, got {t!r}")
        gen = _rng(rng)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        self.lins = _ModuleDict(
            {
                t: Linear(
                    layer_size(layer, f"in_channels[{t!r}]", n),
                    self.out_channels,
                    bias,
                    dtype=dtype,
                    rng=gen,
                )
                for t, n in sizes.items()
            },
            f"{layer}.load_state_dict",
        )

    @property
    def types(self) -> list[str]:
        return list(self.lins._items)

    def __call__(self, x_dict: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(x_dict, Mapping):
            raise TypeError(f"HeteroDictLinear: x_dict must be a dict, got {type(x_dict)}")
        # PyG's order: the layers' types, those present in x_dict
        return {t: lin(x_dict[t]) for t, lin in self.lins._items.items() if t in x_dict}

    def extra_repr(self) -> str:
        return f"types={self.types}, out_channels={self.out_channels}"
