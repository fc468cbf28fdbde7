"""PyG's ``GraphNorm``: per-graph normalisation with a learnt share of the mean removed.

``y = weight * (x - mean_scale * mean) / sqrt(var + eps) + bias`` with ``mean`` the
graph's per-channel mean and ``var`` the per-channel mean of the squared shifted rows,
both per-graph means (the same in training and eval mode, as PyG). NumPy float32 /
float64 input with a sorted ``batch`` (PyG's batches) runs one fused Numba kernel
(:mod:`arraygnn.kernels.cpu.graph_norm`); otherwise :func:`arraygnn.ops.scatter` means and
array code (no loop over graphs).

>>> import numpy as np
>>> from arraygnn.nn.norm import GraphNorm
>>> x = np.array([[1.0], [3.0], [5.0]])
>>> GraphNorm(1, dtype=np.float64)(x, np.array([0, 0, 1])).round(3).ravel().tolist()
[-1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.norm._graphs import check_input, graph_ids, graph_mean, number, per_row, rows_mean

__all__ = ["GraphNorm"]


class GraphNorm(Module):
    """PyG's ``torch_geometric.nn.norm.GraphNorm``.

    Call as ``norm(x, batch=None, batch_size=None)`` (``batch=None``: one graph;
    ``batch_size`` left out is ``batch.max() + 1``).

    Args:
        in_channels: size of each input row.
        eps: added to the variance (default ``1e-5``).

    Shapes:
        - input / output: ``(N, in_channels)``
    """

    _param_names = ("weight", "bias", "mean_scale")

    def __init__(self, in_channels: int, eps: float = 1e-5, *, dtype: Any = np.float32) -> None:
        self.in_channels = c = layer_size("GraphNorm", "in_channels", in_channels)
        self.eps = number("GraphNorm", "eps", eps)
        self.weight = np.ones(c, dtype=dtype)
        self.bias = np.zeros(c, dtype=dtype)
        self.mean_scale = np.ones(c, dtype=dtype)

    def __call__(self, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        check_input("GraphNorm", x, self.in_channels, self.weight)
        if isinstance(x, np.ndarray):
            out = self._fused(x, batch, batch_size)
            if out is not None:
                return out
        xp = get_namespace(x)
        if batch is None:
            out = x - rows_mean(x) * self.mean_scale
            std = xp.sqrt(rows_mean(out * out) + self.eps)
            return self.weight * out / std + self.bias
        batch, size = graph_ids("GraphNorm", x, batch, batch_size)
        out = x - per_row(graph_mean(x, batch, size) * self.mean_scale, batch)
        std = per_row(xp.sqrt(graph_mean(out * out, batch, size) + self.eps), batch)
        return self.weight * out / std + self.bias

    def _fused(self, x: np.ndarray, batch: Any, batch_size: int | None) -> np.ndarray | None:
        """NumPy float32 / float64 with rows grouped by graph (a sorted ``batch``, or none):
        the fused kernel (:mod:`arraygnn.kernels.cpu.graph_norm`); else ``None``."""
        from arraygnn.kernels.cpu.graph_norm import graph_norm_sorted
        from arraygnn.kernels.cpu.layer_norm import fits

        if not fits(x, self.weight, self.bias, self.mean_scale):
            return None
        if batch is None:
            ptr = np.array([0, x.shape[0]], dtype=np.int64)
        else:
            batch, size = graph_ids("GraphNorm", x, batch, batch_size)
            if not isinstance(batch, np.ndarray) or bool((batch[1:] < batch[:-1]).any()):
                return None  # unsorted: the array code
            ptr = np.zeros(size + 1, dtype=np.int64)
            np.cumsum(np.bincount(batch, minlength=size), out=ptr[1:])
        return graph_norm_sorted(x, ptr, self.mean_scale, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.in_channels}"
