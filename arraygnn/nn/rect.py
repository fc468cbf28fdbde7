"""PyG's ``RECT_L`` (Wang et al., 2020, "Network embedding with completely-imbalanced
labels") at inference: a ``GCNConv`` embedding followed by a linear map back to the
input width.

``model(x, edge_index, edge_weight=None)`` is ``lin(conv(x))``, ``embed`` is ``conv(x)``
(the GCN layer's SpMM path), and ``get_semantic_labels(x, y, mask)`` is, per masked node,
the mean of the masked rows of ``x`` that share its label (one scatter-mean; the number of
classes is ``max label + 1``, as PyG's).

>>> import numpy as np
>>> model = RECT_L(3, 8, rng=0)
>>> model(np.ones((4, 3), np.float32), np.array([[0, 1, 2], [1, 2, 3]])).shape
(4, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.graph_conv import GCNConv
from arraygnn.nn.label_propagation import check_mask
from arraygnn.nn.linear import Linear, _rng, glorot

__all__ = ["RECT_L"]


class RECT_L(Module):  # noqa: N801 - PyG's name
    """PyG's ``RECT_L``.

    Args:
        in_channels, hidden_channels: sizes.
        normalize: the ``GCNConv``'s (default ``True``).
        dropout: ignored (inference).

    Names: ``conv.lin.weight``, ``conv.bias``, ``lin.weight`` ``(in, hidden)``,
    ``lin.bias``.
    """

    _child_names = ("conv", "lin")

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        normalize: bool = True,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("RECT_L", "in_channels", in_channels)
        self.hidden_channels = layer_size("RECT_L", "hidden_channels", hidden_channels)
        self.dropout = probability("RECT_L", "dropout", dropout)
        gen = _rng(rng)
        self.conv = GCNConv(
            self.in_channels,
            self.hidden_channels,
            normalize=normalize,
            allow_zero_in_degree=True,
            dtype=dtype,
            rng=gen,
        )
        self.lin = Linear(self.hidden_channels, self.in_channels, dtype=dtype, rng=gen)
        self.lin.weight = glorot((self.in_channels, self.hidden_channels), gen, dtype)

    def __call__(self, x: Any, edge_index: Any, edge_weight: Any = None) -> Any:
        return self.lin(self.conv(x, edge_index, edge_weight))

    def embed(self, x: Any, edge_index: Any, edge_weight: Any = None) -> Any:
        """The ``GCNConv`` embedding ``(N, hidden_channels)``."""
        return self.conv(x, edge_index, edge_weight)

    def get_semantic_labels(self, x: Any, y: Any, mask: Any) -> Any:
        """For each masked node, the mean of the masked rows of ``x`` with its label:
        ``(M, F)`` with ``M`` the masked nodes."""
        from arraygnn import ops
        from arraygnn.ops._common import check_index

        n = int(x.shape[0])
        if y.shape != (n,):
            raise ValueError(f"RECT_L.get_semantic_labels: y must have shape ({n},)")
        mask = check_mask("RECT_L.get_semantic_labels", mask, n)
        labels = y[mask]
        check_index("RECT_L.get_semantic_labels: y[mask]", labels, None)
        if labels.size and int(labels.min()) < 0:
            raise ValueError("RECT_L.get_semantic_labels: labels must be >= 0")
        classes = int(labels.max()) + 1 if labels.size else 0
        mean = ops.scatter(x[mask], labels, classes, reduce="mean")
        return mean[labels]

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.hidden_channels}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``RECT_L`` with its ``GCNConv`` (through ``convert``) and ``lin``."""
    model = RECT_L.__new__(RECT_L)
    model.in_channels = int(module.in_channels)
    model.hidden_channels = int(module.hidden_channels)
    model.dropout = float(module.dropout)
    model.conv = convert(module.conv)
    model.conv.allow_zero_in_degree = True  # PyG's GCNConv never checks
    model.lin = convert(module.lin)
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
