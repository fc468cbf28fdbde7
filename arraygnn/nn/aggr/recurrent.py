"""PyG's ``LSTMAggregation`` and ``GRUAggregation``: each group's slices, in order, are a
sequence fed to an LSTM / GRU; the output is the last step's hidden state.

As PyG, every group runs for the same ``M`` steps (the largest group, or
``max_num_elements``): a shorter group's sequence is padded with zero rows *after* its
slices and those rows are run too (the result depends on the padding, as PyG's; neither is
permutation-invariant). One batched LSTM / GRU step per time step
(:class:`arraygnn.nn.LSTM` / :class:`arraygnn.nn.GRU`), all groups at once.

>>> import numpy as np
>>> from arraygnn.nn.aggr import LSTMAggregation
>>> aggr = LSTMAggregation(3, 4, rng=0)
>>> aggr(np.ones((5, 3), np.float32), np.array([0, 0, 1, 1, 1])).shape
(2, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._module import layer_size
from arraygnn.nn.aggr.base import Groups
from arraygnn.nn.aggr.dense import DenseAggregation
from arraygnn.nn.linear import GRU, LSTM

__all__ = ["LSTMAggregation", "GRUAggregation", "from_pyg_module"]


class _RecurrentAggregation(DenseAggregation):
    _takes_dtype = True
    _cell: Any = LSTM
    _attr = "lstm"

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_layers: int = 1,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = type(self).__name__
        in_channels = layer_size(where, "in_channels", in_channels)
        out_channels = layer_size(where, "out_channels", out_channels, minimum=1)
        num_layers = layer_size(where, "num_layers", num_layers, minimum=1)
        net = self._cell(in_channels, out_channels, num_layers, bias, dtype=dtype, rng=rng)
        self.in_channels, self.out_channels = net.input_size, net.hidden_size
        setattr(self, self._attr, net)
        self._child_names = (self._attr,)

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        dense, _ = self.dense(groups, None, max_num_elements)
        xp = groups.xp
        out = getattr(self, self._attr)(xp.swapaxes(dense, 0, 1))[0]  # [M, G, H]
        return out[-1]

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"


class LSTMAggregation(_RecurrentAggregation):
    """PyG's ``LSTMAggregation(in_channels, out_channels, **kwargs)`` (torch ``LSTM``
    keyword arguments ``num_layers`` and ``bias``; inference only).

    Names (PyG): ``lstm.weight_ih_l{k}``, ``lstm.weight_hh_l{k}``, ``lstm.bias_ih_l{k}``,
    ``lstm.bias_hh_l{k}``.

    Shapes:
        - input: ``x`` ``(E, in_channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, out_channels)``
    """

    _cell = LSTM
    _attr = "lstm"


class GRUAggregation(_RecurrentAggregation):
    """PyG's ``GRUAggregation(in_channels, out_channels, **kwargs)`` (torch ``GRU``
    keyword arguments ``num_layers`` and ``bias``; inference only).

    Names (PyG): ``gru.weight_ih_l{k}``, ``gru.weight_hh_l{k}``, ``gru.bias_ih_l{k}``,
    ``gru.bias_hh_l{k}``.

    Shapes:
        - input: ``x`` ``(E, in_channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, out_channels)``
    """

    _cell = GRU
    _attr = "gru"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> _RecurrentAggregation:
    """PyG's ``LSTMAggregation`` / ``GRUAggregation`` -> ours, weights loaded."""
    kind = type(module).__name__
    net = module.lstm if kind == "LSTMAggregation" else module.gru
    if net.bidirectional or getattr(net, "proj_size", 0):
        raise ValueError(
            f"from_pyg: {kind} with a bidirectional or projected recurrent layer "
            f"(bidirectional={net.bidirectional}, proj_size={getattr(net, 'proj_size', 0)}) "
            "is not supported"
        )
    cls = LSTMAggregation if kind == "LSTMAggregation" else GRUAggregation
    layer = cls(net.input_size, net.hidden_size, net.num_layers, net.bias, dtype=dtype)
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
