"""PyG's ``LCMAggregation`` (Learnable Commutative Monoid, Ong and Veličković): each group's
slices, optionally projected (``relu(lin(x))``), are reduced pairwise along a balanced
binary tree by a shared ``GRUCell``: a pair ``(a, b)`` becomes ``(cell(a, b) + cell(b,
a)) / 2``; an odd element out moves up a level unchanged.

As PyG, every group is zero-padded to ``M`` slices (the largest group, or
``max_num_elements``) and the padding takes part in the tree; the levels run for all groups
at once (``ceil(log2(M))`` batched ``GRUCell`` calls). Needs a sorted ``index``.

>>> import numpy as np
>>> from arraygnn.nn.aggr import LCMAggregation
>>> LCMAggregation(3, 4, rng=0)(np.ones((5, 3), np.float32), np.array([0, 0, 1, 1, 1])).shape
(2, 4)
"""

from __future__ import annotations

from math import ceil, log2
from typing import Any

import numpy as np

from arraygnn.nn._module import layer_size
from arraygnn.nn.aggr.base import Groups
from arraygnn.nn.aggr.dense import DenseAggregation
from arraygnn.nn.linear import GRUCell, Linear, _rng

__all__ = ["LCMAggregation", "from_pyg_module"]


class LCMAggregation(DenseAggregation):
    """PyG's ``LCMAggregation(in_channels, out_channels, project=True)``.

    Names (PyG): ``lin.weight`` / ``lin.bias`` (with ``project``), ``gru_cell.weight_ih``,
    ``gru_cell.weight_hh``, ``gru_cell.bias_ih``, ``gru_cell.bias_hh``.

    Shapes:
        - input: ``x`` ``(E, in_channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, out_channels)``
    """

    _takes_dtype = True
    _child_names = ("lin", "gru_cell")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        project: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "LCMAggregation"
        self.in_channels = layer_size(where, "in_channels", in_channels)
        self.out_channels = layer_size(where, "out_channels", out_channels, minimum=1)
        if self.in_channels != self.out_channels and not project:
            raise ValueError(
                f"{where}: inputs must be projected (project=True) when in_channels "
                f"({self.in_channels}) != out_channels ({self.out_channels})"
            )
        self.project = bool(project)
        gen = _rng(rng)
        self.lin = Linear(in_channels, out_channels, dtype=dtype, rng=gen) if project else None
        self.gru_cell = GRUCell(out_channels, out_channels, dtype=dtype, rng=gen)

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        values = None
        if self.lin is not None:
            groups.require_matrix("reading each group as a sequence")
            values = self.lin(groups.x0)
            values = groups.xp.maximum(values, values.dtype.type(0), out=values)
        dense, _ = self.dense(groups, values, max_num_elements)
        xp = groups.xp
        x = xp.swapaxes(dense, 0, 1)  # [M, G, C]
        _, size, width = x.shape
        for _ in range(ceil(log2(x.shape[0]))):
            remainder = None
            if x.shape[0] % 2:  # the odd one out moves up a level unchanged
                x, remainder = x[:-1], x[-1:]
            pairs = x.reshape(-1, 2, size, width)
            left = pairs.reshape(-1, width)
            right = pairs[:, ::-1].reshape(-1, width)
            out = self.gru_cell(left, right).reshape(-1, 2, size, width).mean(axis=1)
            x = out if remainder is None else xp.concatenate([out, remainder], axis=0)
        return x[0]

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, project={self.project}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> LCMAggregation:
    """PyG's ``LCMAggregation`` -> ours, weights loaded."""
    layer = LCMAggregation(module.in_channels, module.out_channels, module.project, dtype=dtype)
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
