"""DGL's ``DegreeEncoder`` (Graphormer): learnt embeddings of in- / out-degrees clamped to
``[0, max_degree]``, on zero-padded ``[B, N]`` degree arrays.

How it runs: one row gather per table (``table[clip(degrees)]``).

>>> import numpy as np
>>> enc = DegreeEncoder(5, 16, rng=0)
>>> enc(np.zeros((2, 3, 4), np.int64)).shape
(3, 4, 16)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_ints
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import _rng

__all__ = ["DegreeEncoder", "from_dgl_module"]

_WHERE = "DegreeEncoder"


class DegreeEncoder(DGLModule):
    """DGL's ``DegreeEncoder(max_degree, embedding_dim, direction='both')``.

    Call as ``enc(degrees)``: ``degrees`` integer ``[2, B, N]`` (in- and out-degrees, for
    ``'both'``: the sum of the two tables' rows) or ``[B, N]`` (``'in'`` / ``'out'``).

    Shapes:
        - output: ``(B, N, embedding_dim)`` in the tables' dtype

    Names (DGL): ``encoder1.weight`` / ``encoder2.weight`` (``'both'``) or
    ``encoder.weight``, each ``(max_degree + 1, embedding_dim)``.
    """

    _param_names = ("encoder1", "encoder2", "encoder")

    def __init__(
        self,
        max_degree: int,
        embedding_dim: int,
        direction: str = "both",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.max_degree = layer_size(_WHERE, "max_degree", max_degree)
        self.embedding_dim = layer_size(_WHERE, "embedding_dim", embedding_dim)
        if direction not in ("in", "out", "both"):
            raise ValueError(
                f"{_WHERE}: direction must be 'in', 'out' or 'both', got {direction!r}"
            )
        self.direction = direction
        gen = _rng(rng)
        shape = (self.max_degree + 1, self.embedding_dim)

        def table() -> np.ndarray:
            t = gen.standard_normal(shape).astype(dtype)
            t[0] = 0  # padding_idx=0
            return t

        both = direction == "both"
        self.encoder1 = table() if both else None
        self.encoder2 = table() if both else None
        self.encoder = None if both else table()

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return [
            (f"{n}.weight", getattr(self, n))
            for n in self._param_names
            if getattr(self, n) is not None
        ]

    def _set_array(self, dotted: str, value: Any) -> None:
        setattr(self, dotted.split(".")[0], value)

    def __call__(self, degrees: Any) -> Any:
        ndim = 3 if self.direction == "both" else 2
        check_ints(_WHERE, "degrees", degrees, ndim)
        if ndim == 3 and degrees.shape[0] != 2:
            raise ValueError(
                f"{_WHERE}: degrees must be [2, B, N] (in, out) for direction='both', got "
                f"shape {tuple(degrees.shape)}"
            )
        xp = get_namespace(degrees, self.encoder if ndim == 2 else self.encoder1)
        d = xp.clip(degrees.astype(np.int64, copy=False), 0, self.max_degree)  # no narrow wrap
        if ndim == 2:
            return xp.take(self.encoder, d, axis=0)
        out = xp.take(self.encoder1, d[0], axis=0)
        out += xp.take(self.encoder2, d[1], axis=0)
        return out

    def extra_repr(self) -> str:
        return f"{self.max_degree}, {self.embedding_dim}, direction={self.direction!r}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DegreeEncoder:
    """DGL's ``DegreeEncoder`` -> :class:`DegreeEncoder` with its tables."""
    from arraygnn.nn.weights import _load

    table = module.encoder1 if module.direction == "both" else module.encoder
    layer = DegreeEncoder(module.max_degree, table.embedding_dim, module.direction, dtype=dtype)
    return _load(layer, module, "dgl")
