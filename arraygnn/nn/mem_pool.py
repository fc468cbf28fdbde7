"""PyG's ``MemPooling`` (Khasahmadi et al., memory-based graph networks).

Soft assignments of the nodes to ``num_clusters`` learned keys per head, with a Student-t
kernel ``(1 + |x_i - k_j|^2 / tau)^(-(1 + tau) / 2)`` normalised over the keys, mixed over
the heads by a 1x1 convolution and a softmax: ``S`` ``[B, N, K]`` (padding rows 0). The
pooled features are ``lin(S^T X)`` ``[B, K, out_channels]``.

How it runs: node features become a padded batch by :func:`arraygnn.utils.to_dense_batch`
(no loop over graphs); the squared distances are ``|k|^2 + |x|^2 - 2 k . x`` (one
``[H K, B N]`` matrix product, clamped at 0; PyTorch's ``cdist`` takes the same matrix-
product route for more than 25 rows), the rest batched products.

>>> import numpy as np
>>> pool = MemPooling(3, 2, heads=2, num_clusters=4, rng=0)
>>> out, S = pool(np.ones((5, 3), np.float32), np.array([0, 0, 1, 1, 1]))
>>> out.shape, S.shape
((2, 4, 2), (2, 3, 4))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dense_input import softmax
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, matmul

__all__ = ["MemPooling"]

#: PyG's clamp in the KL loss
EPS = 1e-15


class _HeadMix(Module):
    """PyG's ``Conv2d(heads, 1, kernel_size=1, bias=False)``: ``weight`` ``(1, H, 1, 1)``."""

    _param_names = ("weight",)

    def __init__(self, heads: int, dtype: Any, rng: Any) -> None:
        bound = 1.0 / float(np.sqrt(heads))  # torch's default for a 1x1 kernel
        self.weight = rng.uniform(-bound, bound, size=(1, heads, 1, 1)).astype(dtype)


class MemPooling(Module):
    """PyG's ``MemPooling``.

    Args:
        in_channels: feature size ``F``.
        out_channels: output size ``F'``.
        heads: number of heads ``H``.
        num_clusters: clusters ``K`` per head.
        tau: the kernel's temperature.

    Call as ``pool(x, batch=None, mask=None, max_num_nodes=None, batch_size=None)`` with
    ``x`` ``[N, F]`` (and ``batch``) or a padded ``[B, N, F]`` (and ``mask``); returns
    ``(x [B, K, F'], S [B, N, K])``. ``MemPooling.kl_loss(S)`` is PyG's auxiliary loss.

    Names (PyG): ``k`` ``(H, K, F)``, ``conv.weight`` ``(1, H, 1, 1)``, ``lin.weight``
    ``(F', F)`` (no bias).
    """

    _param_names = ("k",)
    _child_names = ("conv", "lin")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        heads: int,
        num_clusters: int,
        tau: float = 1.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "MemPooling"
        self.in_channels = layer_size(name, "in_channels", in_channels, minimum=1)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.heads = layer_size(name, "heads", heads, minimum=1)
        self.num_clusters = layer_size(name, "num_clusters", num_clusters, minimum=1)
        from arraygnn.nn._module import real_number

        self.tau = real_number(name, "tau", tau)
        if not self.tau > 0:
            raise ValueError(f"{name}: tau must be > 0, got {tau!r}")
        gen = _rng(rng)
        shape = (self.heads, self.num_clusters, self.in_channels)
        self.k = gen.uniform(-1.0, 1.0, size=shape).astype(dtype)
        self.conv = _HeadMix(self.heads, dtype, gen)
        self.lin = Linear(self.in_channels, self.out_channels, bias=False, dtype=dtype, rng=gen)

    @staticmethod
    def kl_loss(S: Any) -> Any:  # noqa: N803 - PyG's name
        """PyG's KL-divergence loss of the assignments ``S`` ``[B, N, K]`` (a 0-d array)."""
        xp = get_namespace(S)
        s2 = S * S
        p = s2 / S.sum(axis=1, keepdims=True)
        denom = p.sum(axis=2, keepdims=True)
        denom = xp.where(S.sum(axis=2, keepdims=True) == 0.0, 1.0, denom).astype(S.dtype)
        p = p / denom
        log_s = xp.log(xp.maximum(S, EPS))
        p = xp.maximum(p, EPS)
        return (p * (xp.log(p) - log_s)).sum() / S.shape[0]

    def __call__(
        self,
        x: Any,
        batch: Any = None,
        mask: Any = None,
        max_num_nodes: int | None = None,
        batch_size: int | None = None,
    ) -> tuple[Any, Any]:
        from arraygnn.utils.dense import to_dense_batch

        name = "MemPooling"
        _check_features(x, self.in_channels, f"{name}: x", self.k)
        if x.dtype.kind != "f":
            raise TypeError(f"{name}: x must hold floating-point values, got dtype {x.dtype}")
        if x.ndim == 2:
            x, mask = to_dense_batch(x, batch, max_num_nodes=max_num_nodes, batch_size=batch_size)
        elif x.ndim == 3:
            if batch is not None:
                raise ValueError(f"{name}: give batch only with x [N, F], not [B, N, F]")
            if mask is None:
                mask = get_namespace(x).ones(x.shape[:2], dtype=bool)
            elif tuple(mask.shape) != tuple(x.shape[:2]):
                raise ValueError(
                    f"{name}: mask must have shape {tuple(x.shape[:2])}, got {tuple(mask.shape)}"
                )
        else:
            raise ValueError(f"{name}: x must be [N, F] or [B, N, F], got {tuple(x.shape)}")
        xp = get_namespace(x, self.k)
        b, n, f = (int(v) for v in x.shape)
        h, k = self.heads, self.num_clusters
        dt = x.dtype.type
        keys = self.k.reshape(h * k, f).astype(x.dtype, copy=False)
        flat = x.reshape(b * n, f)
        dist = matmul(keys, flat.T) * dt(-2)  # [H K, B N]
        dist += (keys * keys).sum(axis=1)[:, None]
        dist += (flat * flat).sum(axis=1)[None, :]
        dist = xp.maximum(dist, dt(0))
        dist = (dt(1) + dist / dt(self.tau)) ** dt(-(self.tau + 1.0) / 2.0)
        dist = dist.reshape(h, k, b, n).transpose(2, 0, 3, 1)  # [B, H, N, K]
        s = dist / dist.sum(axis=-1, keepdims=True)
        w = self.conv.weight.reshape(h).astype(x.dtype, copy=False)
        s = softmax(xp.einsum("bhnk,h->bnk", s, w), axis=-1)
        s = s * mask.reshape(b, n, 1).astype(s.dtype)
        out = self.lin(xp.matmul(s.transpose(0, 2, 1), x))
        return out, s

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, heads={self.heads}, "
            f"num_clusters={self.num_clusters}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> MemPooling:
    """PyG ``MemPooling`` -> :class:`MemPooling`, weights loaded."""
    from arraygnn.nn.weights import _load

    layer = MemPooling(
        module.in_channels,
        module.out_channels,
        module.heads,
        module.num_clusters,
        module.tau,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
