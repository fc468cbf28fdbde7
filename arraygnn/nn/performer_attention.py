"""PyG's ``PerformerAttention`` (Choromanski et al., "Rethinking Attention with Performers"):
linear-time attention through a positive random-feature kernel, at inference.

For ``x`` ``[B, N, C]``: ``q``, ``k``, ``v`` projections ``[B, H, N, D]`` (``D =
head_channels``), ``phi(z) = kernel(z @ P.T) + 0.001`` with the fixed orthogonal random
projection ``P`` ``[R, D]`` (buffer ``fast_attn.projection_matrix``, ``R = int(D ln D)``),
then ``out = (phi(q) @ (phi(k).T @ v)) / (phi(q) @ sum_n phi(k))`` and ``attn_out``: no ``[N,
N]`` score array. As PyG, a ``mask`` ``[B, N]`` zeroes the padded rows' values only (their
keys still enter the normaliser). No rows (``B = 0`` or ``N = 0``): an empty
``(B, N, channels)`` result (PyG's ``reshape(B, N, -1)`` fails there).

>>> import numpy as np
>>> attn = PerformerAttention(8, heads=2, head_channels=4, rng=0)
>>> attn(np.ones((3, 5, 8), np.float32)).shape
(3, 5, 8)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._dense_input import bmm, check_float_array
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, _rng, get_activation, matmul

__all__ = ["PerformerAttention", "from_pyg_module"]

_WHERE = "PerformerAttention"


def _orthogonal_rows(rows: int, cols: int, gen: np.random.Generator) -> np.ndarray:
    """PyG's ``orthogonal_matrix``: stacked ``Q.T`` blocks of Gaussian matrices."""
    blocks = []
    for start in range(0, rows, cols):
        q, _ = np.linalg.qr(gen.standard_normal((cols, cols)))
        blocks.append(q.T[: rows - start])
    return np.concatenate(blocks) if blocks else np.zeros((0, cols))


class PerformerAttention(Module):
    """PyG's ``PerformerAttention(channels, heads, head_channels=64, kernel=ReLU(),
    qkv_bias=False, attn_out_bias=True, dropout=0.0)``; call as ``attn(x, mask=None)``.

    ``kernel`` is an activation name or callable (default ``'relu'``).

    Names (PyG): ``q.*``, ``k.*``, ``v.*``, ``attn_out.*``, ``fast_attn.projection_matrix``
    ``(int(head_channels * ln(head_channels)), head_channels)``.

    Shapes:
        - input: ``x`` ``(B, N, channels)``, ``mask`` ``(B, N)`` bool (True: a real row)
        - output: ``(B, N, channels)``
    """

    _child_names = ("q", "k", "v", "attn_out", "fast_attn")

    def __init__(
        self,
        channels: int,
        heads: int,
        head_channels: int | None = 64,
        kernel: str | Callable[[Any], Any] = "relu",
        qkv_bias: bool = False,
        attn_out_bias: bool = True,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        c = self.channels = layer_size(_WHERE, "channels", channels, minimum=1)
        h = self.heads = layer_size(_WHERE, "heads", heads, minimum=1)
        if c % h:
            raise ValueError(f"{_WHERE}: channels={c} must be divisible by heads={h}")
        d = self.head_channels = (
            c // h
            if head_channels is None
            else layer_size(_WHERE, "head_channels", head_channels, 1)
        )
        if int(d * np.log(d)) == 0:  # PyG fails building an empty projection
            raise ValueError(
                f"{_WHERE}: head_channels={d} gives int(d * ln d) = 0 random features; use "
                "head_channels >= 2"
            )
        try:
            self.kernel = get_activation(kernel)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{_WHERE}: kernel: {err}") from None
        if self.kernel is None:
            raise ValueError(f"{_WHERE}: kernel must be an activation, got None")
        self.dropout = probability("PerformerAttention", "dropout", dropout)
        gen = _rng(rng)
        inner = h * d
        self.q = Linear(c, inner, qkv_bias, dtype=dtype, rng=gen)
        self.k = Linear(c, inner, qkv_bias, dtype=dtype, rng=gen)
        self.v = Linear(c, inner, qkv_bias, dtype=dtype, rng=gen)
        self.attn_out = Linear(inner, c, attn_out_bias, dtype=dtype, rng=gen)
        self.fast_attn = _Projection(_orthogonal_rows(int(d * np.log(d)), d, gen).astype(dtype))

    def _features(self, z: Any) -> Any:
        """``kernel(z @ P.T) + 0.001`` for ``z`` ``[B, H, N, D]``."""
        out = self.kernel(matmul(z, self.fast_attn.projection_matrix.T))
        out += out.dtype.type(0.001)
        return out

    def __call__(self, x: Any, mask: Any = None) -> Any:
        check_float_array(_WHERE, "x", x, (3,))
        _check_features(x, self.channels, f"{_WHERE} x", self.q.weight)
        xp = get_namespace(x)
        b, n, _ = x.shape
        h, d = self.heads, self.head_channels

        def heads_first(lin: Linear) -> Any:
            return lin(x).reshape(b, n, h, d).transpose(0, 2, 1, 3)

        q, k, v = heads_first(self.q), heads_first(self.k), heads_first(self.v)
        if mask is not None:
            if not is_array(mask):
                raise TypeError(
                    f"{_WHERE}: mask must be a NumPy or CuPy bool array, got "
                    f"{type(mask).__name__}{torch_hint(mask)}"
                )
            if tuple(mask.shape) != (b, n) or mask.dtype != bool:
                raise ValueError(
                    f"{_WHERE}: mask must be a bool array of shape {(b, n)}, got "
                    f"{mask.dtype} {tuple(mask.shape)}"
                )
            v = v * mask[:, None, :, None]
        qf, kf = self._features(q), self._features(k)  # [B, H, N, R]
        norm = bmm(qf, kf.sum(axis=-2)[..., None])  # [B, H, N, 1]
        out = bmm(qf, bmm(xp.swapaxes(kf, -1, -2), v)) / norm  # [B, H, N, D]
        out = out.transpose(0, 2, 1, 3).reshape(b, n, h * d)
        return self.attn_out(out)

    def extra_repr(self) -> str:
        return f"heads={self.heads}, head_channels={self.head_channels}"


class _Projection(Module):
    """PyG's ``PerformerProjection``: the buffer ``projection_matrix``."""

    _buffer_names = ("projection_matrix",)

    def __init__(self, matrix: Any) -> None:
        self.projection_matrix = matrix


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> PerformerAttention:
    """PyG's ``PerformerAttention`` -> ours, weights and projection loaded (the kernel must
    be an activation ``from_torch`` knows)."""
    from arraygnn.nn.weights import _activation

    kernel = _activation(module.kernel, "from_pyg: PerformerAttention kernel")
    layer = PerformerAttention(
        module.q.in_features,
        module.heads,
        module.head_channels,
        kernel if kernel is not None else (lambda z: z),
        module.q.bias is not None,
        module.attn_out.bias is not None,
        float(module.dropout.p),
        dtype=dtype,
    )
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
