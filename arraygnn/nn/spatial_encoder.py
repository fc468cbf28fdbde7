"""DGL's Graphormer spatial encoders: ``SpatialEncoder`` (a learnt per-head bias for each
shortest-path distance, ``-1`` for unreachable / padded pairs) and ``SpatialEncoder3d``
(Transformer-M: Gaussian basis kernels of scaled 3-D Euclidean distances, an MLP to heads).

How it runs: ``SpatialEncoder`` is one row gather (``take``) of ``[B, N, N]`` distances; the 3-D one
builds the dense ``[B, N, N, K]`` kernel array (DGL's API is dense) and two linear layers.

>>> import numpy as np
>>> SpatialEncoder(2, num_heads=8, rng=0)(-np.ones((2, 4, 4), np.int64)).shape
(2, 4, 4, 8)
>>> SpatialEncoder3d(4, num_heads=8, max_node_type=3, rng=0)(np.zeros((1, 4, 3))).shape
(1, 4, 4, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_floats, check_ints
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear, _gelu, _rng

__all__ = ["SpatialEncoder", "SpatialEncoder3d", "from_dgl_module"]


class SpatialEncoder(DGLModule):
    """DGL's ``SpatialEncoder(max_dist, num_heads=1)``: ``enc(dist)`` with ``dist``
    integer ``[B, N, N]`` (``-1`` padded) gives ``table[clip(dist, -1, max_dist) + 1]``
    ``(B, N, N, num_heads)``.

    Names (DGL): ``embedding_table.weight`` ``(max_dist + 2, num_heads)``.
    """

    _param_names = ("embedding_table",)

    def __init__(
        self, max_dist: int, num_heads: int = 1, *, dtype: Any = np.float32, rng: Any = None
    ) -> None:
        self.max_dist = layer_size("SpatialEncoder", "max_dist", max_dist)
        self.num_heads = layer_size("SpatialEncoder", "num_heads", num_heads, minimum=1)
        table = _rng(rng).standard_normal((self.max_dist + 2, self.num_heads)).astype(dtype)
        table[0] = 0  # padding_idx=0: distance -1
        self.embedding_table = table

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return [("embedding_table.weight", self.embedding_table)]

    def _set_array(self, dotted: str, value: Any) -> None:
        self.embedding_table = value

    def __call__(self, dist: Any) -> Any:
        check_ints("SpatialEncoder", "dist", dist, 3)
        xp = get_namespace(dist, self.embedding_table)
        # in int64 first: a narrow dist (int8 127, uint8 255) must not wrap in clip or + 1
        rows = xp.clip(dist.astype(np.int64, copy=False), -1, self.max_dist)
        rows += 1
        return xp.take(self.embedding_table, rows, axis=0)  # 6x NumPy's fancy indexing

    def extra_repr(self) -> str:
        return f"max_dist={self.max_dist}, num_heads={self.num_heads}"


class SpatialEncoder3d(DGLModule):
    """DGL's ``SpatialEncoder3d(num_kernels, num_heads=1, max_node_type=100)``.

    ``enc(coord, node_type=None)``: ``coord`` ``[B, N, 3]``; ``node_type`` integer
    ``[B, N]`` in ``[-1, max_node_type)`` (``-1``: a padded node) picks each pair's scale
    ``gamma`` and shift ``beta`` (source type ``+ 2``, target type ``+ max_node_type + 3``,
    the two rows summed; none: row 0 twice). With ``x = gamma |r_i - r_j| + beta`` each
    kernel is ``exp(-((x - mu) / s)^2 / 2) / (a s)`` (``s = |std| + 0.01``, ``a = sqrt(2 *
    3.14159)`` as DGL), then ``linear_layer_2(gelu(linear_layer_1(.)))``.

    Shapes:
        - output: ``(B, N, N, num_heads)``

    Names (DGL): ``means``, ``stds`` ``(num_kernels,)``, ``linear_layer_1.*``,
    ``linear_layer_2.*``, ``gamma.weight``, ``beta.weight`` ``(2 max_node_type + 3, 1)``.
    """

    _param_names = ("means", "stds")
    _child_names = ("linear_layer_1", "linear_layer_2")

    def __init__(
        self,
        num_kernels: int,
        num_heads: int = 1,
        max_node_type: int = 100,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "SpatialEncoder3d"
        k = self.num_kernels = layer_size(where, "num_kernels", num_kernels, minimum=1)
        self.num_heads = layer_size(where, "num_heads", num_heads, minimum=1)
        self.max_node_type = layer_size(where, "max_node_type", max_node_type)
        gen = _rng(rng)
        self.means = gen.uniform(0, 3, k).astype(dtype)
        self.stds = gen.uniform(0, 3, k).astype(dtype)
        self.linear_layer_1 = Linear(k, k, dtype=dtype, rng=gen)
        self.linear_layer_2 = Linear(k, self.num_heads, dtype=dtype, rng=gen)
        rows = 2 * self.max_node_type + 3
        self.gamma = np.ones((rows, 1), dtype)  # DGL's constant_ init (row 0 included)
        self.beta = np.zeros((rows, 1), dtype)

    def _named_arrays(self) -> list[tuple[str, Any]]:
        out = super()._named_arrays()
        return out + [("gamma.weight", self.gamma), ("beta.weight", self.beta)]

    def _set_array(self, dotted: str, value: Any) -> None:
        if dotted in ("gamma.weight", "beta.weight"):
            setattr(self, dotted.split(".")[0], value)
        else:
            super()._set_array(dotted, value)

    def __call__(self, coord: Any, node_type: Any = None) -> Any:
        where = "SpatialEncoder3d"
        check_floats(where, "coord", coord, (None, None, None))
        xp = get_namespace(coord, self.means)
        dtype = np.result_type(coord.dtype, self.means.dtype)
        coord = coord.astype(dtype, copy=False)
        b, n = coord.shape[:2]
        diff = coord[:, :, None, :] - coord[:, None, :, :]
        dist = xp.sqrt((diff * diff).sum(-1))  # [B, N, N]
        if node_type is None:
            gamma = xp.full((b, n, n), 2 * self.gamma[0, 0], dtype)
            beta = xp.full((b, n, n), 2 * self.beta[0, 0], dtype)
        else:
            check_ints(where, "node_type", node_type, 2)
            if tuple(node_type.shape) != (b, n):
                raise ValueError(
                    f"{where}: node_type must be [B, N] = [{b}, {n}], got {tuple(node_type.shape)}"
                )
            t = self.max_node_type
            if node_type.size and (int(node_type.min()) < -1 or int(node_type.max()) >= t):
                raise ValueError(
                    f"{where}: node_type must be in [-1, {t - 1}] (-1: a padded node), got "
                    f"[{int(node_type.min())}, {int(node_type.max())}]"
                )
            node_type = node_type.astype(np.int64, copy=False)  # no wrap in t + 3
            src = node_type[:, :, None] + 2
            dst = node_type[:, None, :] + t + 3
            g, bt = self.gamma[:, 0], self.beta[:, 0]
            gamma, beta = g[src] + g[dst], bt[src] + bt[dst]
        x = (gamma * dist + beta)[..., None]  # [B, N, N, 1]
        std = xp.abs(self.stds) + dtype.type(1e-2)
        a = dtype.type((2 * 3.14159) ** 0.5)
        z = (x - self.means) / std
        kernel = xp.exp(dtype.type(-0.5) * (z * z)) / (a * std)
        return self.linear_layer_2(_gelu(self.linear_layer_1(kernel)))

    def extra_repr(self) -> str:
        return (
            f"num_kernels={self.num_kernels}, num_heads={self.num_heads}, "
            f"max_node_type={self.max_node_type}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGLModule:
    """DGL's ``SpatialEncoder`` / ``SpatialEncoder3d`` -> ours, weights loaded."""
    from arraygnn.nn.weights import _load

    if type(module).__name__ == "SpatialEncoder":
        layer: DGLModule = SpatialEncoder(module.max_dist, module.num_heads, dtype=dtype)
    else:
        layer = SpatialEncoder3d(
            module.num_kernels, module.num_heads, module.max_node_type, dtype=dtype
        )
    return _load(layer, module, "dgl")
