"""DGL's ``PathEncoder`` (Graphormer's edge encoding): the mean over each shortest path of
the dot products of its edges' features with a learnt per-position, per-head vector.

How it runs: the dense ``[B, N, N, L, d]`` path features (DGL's API) meet the
``[L * d, H]`` table in one matrix product, then one division by the clipped distances.

>>> import numpy as np
>>> enc = PathEncoder(2, 16, num_heads=8, rng=0)
>>> enc(np.ones((1, 4, 4), np.int64), np.zeros((1, 4, 4, 2, 16), np.float32)).shape
(1, 4, 4, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_floats, check_ints
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import _rng, matmul

__all__ = ["PathEncoder", "from_dgl_module"]

_WHERE = "PathEncoder"


class PathEncoder(DGLModule):
    """DGL's ``PathEncoder(max_len, feat_dim, num_heads=1)``.

    ``enc(dist, path_data)``: ``dist`` integer ``[B, N, N]``, ``path_data`` ``[B, N, N,
    max_len, feat_dim]`` (zero-padded edge features along each path). Output
    ``sum_l path_data[..., l, :] . w[l, h] / clip(dist, 1, max_len)``, ``(B, N, N,
    num_heads)``.

    Names (DGL): ``embedding_table.weight`` ``(max_len * num_heads, feat_dim)``.
    """

    def __init__(
        self,
        max_len: int,
        feat_dim: int,
        num_heads: int = 1,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.max_len = layer_size(_WHERE, "max_len", max_len, minimum=1)
        self.feat_dim = layer_size(_WHERE, "feat_dim", feat_dim, minimum=1)
        self.num_heads = layer_size(_WHERE, "num_heads", num_heads, minimum=1)
        shape = (self.max_len * self.num_heads, self.feat_dim)
        self.embedding_table = _rng(rng).standard_normal(shape).astype(dtype)

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return [("embedding_table.weight", self.embedding_table)]

    def _set_array(self, dotted: str, value: Any) -> None:
        self.embedding_table = value

    def __call__(self, dist: Any, path_data: Any) -> Any:
        check_ints(_WHERE, "dist", dist, 3)
        b, n, m = dist.shape
        shape = (b, n, m, self.max_len, self.feat_dim)
        check_floats(_WHERE, "path_data", path_data, shape)
        xp = get_namespace(dist, path_data, self.embedding_table)
        dtype = np.result_type(path_data.dtype, self.embedding_table.dtype)
        length, h, d = self.max_len, self.num_heads, self.feat_dim
        table = self.embedding_table.reshape(length, h, d).transpose(0, 2, 1)  # [L, d, H]
        flat = path_data.astype(dtype, copy=False).reshape(b * n * m, length * d)
        out = matmul(flat, table.reshape(length * d, h).astype(dtype, copy=False))
        out = out.reshape(b, n, m, h)
        out /= xp.clip(dist.astype(np.int64, copy=False), 1, length).astype(dtype)[..., None]
        return out

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, feat_dim={self.feat_dim}, num_heads={self.num_heads}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> PathEncoder:
    """DGL's ``PathEncoder`` -> :class:`PathEncoder` with its table."""
    from arraygnn.nn.weights import _load

    layer = PathEncoder(module.max_len, module.feat_dim, module.num_heads, dtype=dtype)
    return _load(layer, module, "dgl")
