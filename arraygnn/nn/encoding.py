"""PyG's ``torch_geometric.nn.encoding``: the sinusoidal ``PositionalEncoding`` (the one
:class:`~arraygnn.nn.aggr.PatchTransformerAggregation` uses, defined beside it) and
``TemporalEncoding`` (GraphMixer's time encoding, Cong et al., 2023).

>>> import numpy as np
>>> from arraygnn.nn.encoding import TemporalEncoding
>>> TemporalEncoding(4)(np.array([0.0, 1.5], np.float32)).shape
(2, 4)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.aggr.patch_transformer import PositionalEncoding
from arraygnn.nn.linear import matmul

__all__ = ["PositionalEncoding", "TemporalEncoding"]


class TemporalEncoding(Module):
    """PyG's ``TemporalEncoding(out_channels)``: ``cos(x * w)`` with the buffer ``weight``
    ``(1, out_channels)`` = ``1 / sqrt(d) ** linspace(0, sqrt(d), d)``.

    Shapes:
        - input: times, any shape (flattened), real numbers
        - output: ``(P, out_channels)`` in the weight's dtype
    """

    _buffer_names = ("weight",)

    def __init__(self, out_channels: int, *, dtype: Any = np.float32) -> None:
        self.out_channels = layer_size("TemporalEncoding", "out_channels", out_channels)
        root = math.sqrt(self.out_channels)
        steps = np.linspace(0, root, self.out_channels, dtype=np.float64)
        self.weight = (1.0 / root**steps).reshape(1, -1).astype(dtype)

    def __call__(self, x: Any) -> Any:
        if not is_array(x):
            raise TypeError(
                "TemporalEncoding: x must be a NumPy or CuPy array of times, got "
                f"{type(x).__name__}{torch_hint(x)}"
            )
        xp = get_namespace(x, self.weight)
        if x.dtype.kind not in "fiu" or x.dtype == np.bool_:
            raise TypeError(f"TemporalEncoding: x must hold real numbers, got dtype {x.dtype}")
        x = x.reshape(-1, 1).astype(self.weight.dtype, copy=False)
        return xp.cos(matmul(x, self.weight))

    def extra_repr(self) -> str:
        return f"{self.out_channels}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> Module:
    """PyG's ``PositionalEncoding`` / ``TemporalEncoding`` with its buffer."""
    if type(module).__name__ == "TemporalEncoding":
        layer: Module = TemporalEncoding(module.out_channels, dtype=dtype)
    else:
        layer = PositionalEncoding(
            module.out_channels, module.base_freq, module.granularity, dtype=dtype
        )
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
