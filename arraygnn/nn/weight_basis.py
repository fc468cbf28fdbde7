"""DGL's ``WeightBasis`` (R-GCN's basis decomposition): ``num_outputs`` weights, each a
linear combination ``W_o = sum_b a_ob V_b`` of ``num_bases`` basis tensors of ``shape``.

How it runs: one ``[num_outputs, num_bases] x [num_bases, prod(shape)]`` product.

>>> wb = WeightBasis((3, 4), num_bases=2, num_outputs=5, rng=0)
>>> wb().shape
(5, 3, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import _rng, glorot, matmul

__all__ = ["WeightBasis", "from_dgl_module"]


class WeightBasis(DGLModule):
    """DGL's ``WeightBasis(shape, num_bases, num_outputs)``; ``wb()`` gives the composed
    weights ``(num_outputs, *shape)``.

    Names (DGL): ``weight`` ``(num_bases, *shape)``, ``w_comp`` ``(num_outputs,
    num_bases)``.
    """

    _param_names = ("weight", "w_comp")

    def __init__(
        self,
        shape: Sequence[int],
        num_bases: int,
        num_outputs: int,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if isinstance(shape, (int, np.integer)) or not isinstance(shape, (tuple, list)):
            raise TypeError(f"WeightBasis: shape must be a tuple of ints, got {shape!r}")
        self.shape = tuple(layer_size("WeightBasis", "shape", s, minimum=1) for s in shape)
        self.num_bases = layer_size("WeightBasis", "num_bases", num_bases, minimum=1)
        self.num_outputs = layer_size("WeightBasis", "num_outputs", num_outputs, minimum=1)
        gen = _rng(rng)
        size = int(np.prod(self.shape))
        self.weight = glorot((self.num_bases, size), gen, dtype).reshape(
            (self.num_bases,) + self.shape
        )
        self.w_comp = glorot((self.num_outputs, self.num_bases), gen, dtype)

    def __call__(self) -> Any:
        basis = self.weight.reshape(self.num_bases, -1)
        return matmul(self.w_comp, basis).reshape((self.num_outputs,) + self.shape)

    def extra_repr(self) -> str:
        return f"{self.shape}, num_bases={self.num_bases}, num_outputs={self.num_outputs}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> WeightBasis:
    """DGL's ``WeightBasis`` -> :class:`WeightBasis` with its bases and coefficients."""
    from arraygnn.nn.weights import _load

    layer = WeightBasis(tuple(module.shape), module.num_bases, module.num_outputs, dtype=dtype)
    return _load(layer, module, "dgl")
