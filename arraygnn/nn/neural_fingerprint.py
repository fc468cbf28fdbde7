"""PyG's ``NeuralFingerprint`` (Duvenaud et al., 2015) at inference: ``MFConv`` layers whose
sigmoid outputs are each mapped to ``out_channels``, softmaxed and summed per graph.

Per layer: ``x = sigmoid(conv(x, edge_index))`` (``MFConv``'s degree-indexed weights, one
SpMM), ``y = softmax(lin(x))``, ``global_add_pool(y, batch, batch_size)``; the result is
the sum over the layers.

>>> import numpy as np
>>> model = NeuralFingerprint(3, 8, 4, num_layers=2, rng=0)
>>> model(np.ones((5, 3), np.float32), np.array([[0, 1, 2], [1, 2, 3]])).shape
(1, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.nn._dense_input import softmax
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _ModuleList, _rng, _sigmoid
from arraygnn.nn.mf_conv import MFConv
from arraygnn.nn.readout import global_add_pool

__all__ = ["NeuralFingerprint"]


class NeuralFingerprint(Module):
    """PyG's ``NeuralFingerprint``.

    Args:
        in_channels, hidden_channels, out_channels: sizes.
        num_layers: ``MFConv`` layers (at least 1; PyG's sum over no layers is the
            integer 0).
        max_degree, bias: ``MFConv``'s (PyG's ``**kwargs``; defaults 10 and ``True``).

    Call as ``model(x, edge_index, batch=None, batch_size=None)`` -> ``(B, out_channels)``
    (``B``: ``batch_size``, or one graph when ``batch`` is ``None``).

    Names: ``convs.i.*`` (``MFConv``'s), ``lins.i.weight`` ``(out, hidden)``.
    """

    _child_names = ("convs", "lins")

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        num_layers: int,
        max_degree: int = 10,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "NeuralFingerprint"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        gen = _rng(rng)
        self.convs = _ModuleList(
            [
                MFConv(
                    self.in_channels if i == 0 else self.hidden_channels,
                    self.hidden_channels,
                    max_degree,
                    bias,
                    dtype=dtype,
                    rng=gen,
                )
                for i in range(self.num_layers)
            ]
        )
        self.lins = _ModuleList(
            [
                Linear(self.hidden_channels, self.out_channels, False, dtype=dtype, rng=gen)
                for _ in range(self.num_layers)
            ]
        )

    def __call__(
        self, x: Any, edge_index: Any, batch: Any = None, batch_size: int | None = None
    ) -> Any:
        from arraygnn._namespace import is_array
        from arraygnn.nn._pool_input import check_batch

        if is_array(batch) and is_array(x):  # a Batch object carries its num_graphs
            batch_size = check_batch("NeuralFingerprint", batch, batch_size, int(x.shape[0]))
        total = None
        for conv, lin in zip(self.convs, self.lins):
            x = _sigmoid(conv(x, edge_index))
            pooled = global_add_pool(softmax(lin(x), axis=-1), batch, batch_size)
            total = pooled if total is None else total + pooled
        return total

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, num_layers={self.num_layers}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``NeuralFingerprint`` (each ``MFConv`` and ``Linear`` through ``convert``)."""
    if not len(module.convs):
        raise ValueError("from_pyg: NeuralFingerprint with num_layers=0 has nothing to convert")
    model = NeuralFingerprint.__new__(NeuralFingerprint)
    model.in_channels = int(module.in_channels)
    model.hidden_channels = int(module.hidden_channels)
    model.out_channels = int(module.out_channels)
    model.num_layers = int(module.num_layers)
    model.convs = _ModuleList([convert(c) for c in module.convs])
    model.lins = _ModuleList([convert(lin) for lin in module.lins])
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
