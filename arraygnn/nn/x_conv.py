"""The PointCNN convolution on X-transformed points (Li et al., 2018): PyG's ``XConv``.

For every point ``i`` with its ``K`` nearest points ``P_i`` (itself included, nearest
first) the layer lifts the offsets ``P_i - p_i`` with ``mlp1`` (``D -> C_delta``), joins
them to the neighbours' features, multiplies by a learnt ``K x K`` matrix ``mlp2(P_i -
p_i)`` (the X-transform) and applies a depthwise convolution over the ``K`` neighbours
followed by a ``Linear``. The neighbours are :func:`arraygnn.utils.knn` ``(pos, pos,
K * dilation, batch, batch)`` (PyG's ``knn`` op; equidistant neighbours in index
order, where pyg-lib's k-d tree may order exact ties otherwise); with ``dilation > 1``
every ``dilation``-th of them is kept (as PyG, in training too).

How it runs: XConv is dense per point by construction (``[N, K, C]`` neighbour features,
``[N, K, K]`` transforms), so those arrays are formed, as in PyG; the grouped ``Conv1d``
layers are batched matrix products (no im2col), and everything else is a node-level
``Linear`` / ``BatchNorm`` / ELU. The neighbour search runs on the host (CuPy: a round
trip, as :func:`arraygnn.utils.knn`).

>>> import numpy as np
>>> conv = XConv(8, 16, dim=3, kernel_size=4, rng=0)
>>> rng = np.random.default_rng(0)
>>> x = rng.random((10, 8)).astype(np.float32)
>>> pos = rng.random((10, 3)).astype(np.float32)
>>> conv(x, pos).shape
(10, 16)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import BatchNorm, Linear, Sequential, _rng, glorot
from arraygnn.utils._checks import check_array_arg

__all__ = ["XConv"]


class DepthwiseConv1d(Module):
    """``torch.nn.Conv1d(channels, channels * multiplier, kernel_size=L, groups=channels)``
    on inputs of length exactly ``L``: ``(N, channels, L) -> (N, channels * multiplier)``
    (the length-1 output axis dropped), output channel ``g * multiplier + m`` reading
    input channel ``g``. One batched matrix product.

    >>> conv = DepthwiseConv1d(2, 3, 4, rng=0)
    >>> conv(np.ones((5, 2, 4), np.float32)).shape
    (5, 6)
    """

    _param_names = ("weight", "bias")

    def __init__(
        self,
        channels: int,
        multiplier: int,
        length: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.channels = layer_size("DepthwiseConv1d", "channels", channels, minimum=1)
        self.multiplier = layer_size("DepthwiseConv1d", "multiplier", multiplier, minimum=1)
        self.length = layer_size("DepthwiseConv1d", "length", length, minimum=1)
        out = self.channels * self.multiplier
        self.weight = glorot((out, 1, self.length), rng, dtype)
        self.bias = np.zeros(out, dtype=dtype) if bias else None

    def __call__(self, x: Any) -> Any:
        xp = get_namespace(x, self.weight)
        g, m, k = self.channels, self.multiplier, self.length
        if x.ndim != 3 or tuple(x.shape[1:]) != (g, k):
            raise ValueError(
                f"DepthwiseConv1d: expected input (N, {g}, {k}), got shape {tuple(x.shape)}"
            )
        w = self.weight.reshape(g, m, k).transpose(0, 2, 1)  # [G, K, M]
        out = xp.matmul(x.transpose(1, 0, 2), w)  # [G, N, M]
        out = out.transpose(1, 0, 2).reshape(x.shape[0], g * m)
        if self.bias is not None:
            out = out + self.bias
        return out

    def extra_repr(self) -> str:
        return f"{self.channels}, {self.channels * self.multiplier}, kernel_size={self.length}"


def _reshape(*shape: int) -> Any:
    def reshape(x: Any) -> Any:
        return x.reshape(*shape)

    return reshape


class XConv(Module):
    """PyG's ``XConv``.

    Args:
        in_channels: width of ``x`` (0 when called without ``x``).
        out_channels: output width.
        dim: point dimensionality ``D``.
        kernel_size: neighbours per point ``K``.
        hidden_channels: ``C_delta``, the width of the lifted offsets (PyG's default
            ``in_channels // 4``; must be > 0).
        dilation: neighbours searched ``K * dilation``, every ``dilation``-th kept.
        bias: bias of the final ``Linear``.
        num_workers: threads of the neighbour search.
        dtype, rng: weight dtype and seed of the initial weights.

    Call as ``conv(x, pos, batch=None)``: ``x`` ``(N, in_channels)`` (1-D: one column) or
    ``None``, ``pos`` ``(N, D)`` (1-D: ``D = 1``), ``batch`` the sorted example id of
    every point (integer ``(N,)``). Every example needs at least ``K * dilation`` points
    (PyG fails otherwise too). Names (PyG): ``mlp1.*``, ``mlp2.*``, ``conv.*`` with
    PyG's step indices (``mlp2.4.weight`` is the first depthwise ``Conv1d``); ``from_pyg``
    converts a PyG ``XConv`` (its batch norms with their running statistics).

    Shapes:
        input:  x (N, in_channels) or None, pos (N, D), batch (N,) or None
        output: (N, out_channels)
    """

    _child_names = ("mlp1", "mlp2", "conv")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        dim: int,
        kernel_size: int,
        hidden_channels: int | None = None,
        dilation: int = 1,
        bias: bool = True,
        num_workers: int = 1,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "XConv"
        c_in = self.in_channels = layer_size(layer, "in_channels", in_channels)
        c_out = self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        d = self.dim = layer_size(layer, "dim", dim, minimum=1)
        k = self.kernel_size = layer_size(layer, "kernel_size", kernel_size, minimum=1)
        if hidden_channels is None:
            hidden_channels = c_in // 4
        if not isinstance(hidden_channels, (int, np.integer)) or hidden_channels <= 0:
            raise ValueError(
                f"{layer}: hidden_channels must be > 0 (default in_channels // 4 = "
                f"{c_in // 4}), got {hidden_channels!r}"
            )
        c_d = self.hidden_channels = layer_size(layer, "hidden_channels", hidden_channels, 1)
        self.dilation = layer_size(layer, "dilation", dilation, minimum=1)
        self.num_workers = layer_size(layer, "num_workers", num_workers, minimum=1)
        gen = _rng(rng)
        kw = {"dtype": dtype}
        self.mlp1 = Sequential(
            Linear(d, c_d, rng=gen, **kw),
            "elu",
            BatchNorm(c_d, **kw),
            Linear(c_d, c_d, rng=gen, **kw),
            "elu",
            BatchNorm(c_d, **kw),
            _reshape(-1, k, c_d),
        )
        self.mlp2 = Sequential(
            Linear(d * k, k * k, rng=gen, **kw),
            "elu",
            BatchNorm(k * k, **kw),
            _reshape(-1, k, k),
            DepthwiseConv1d(k, k, k, rng=gen, **kw),
            "elu",
            BatchNorm(k * k, **kw),
            _reshape(-1, k, k),
            DepthwiseConv1d(k, k, k, rng=gen, **kw),
            BatchNorm(k * k, **kw),
            _reshape(-1, k, k),
        )
        c_all = c_in + c_d
        multiplier = int(math.ceil(c_out / c_all))
        self.conv = Sequential(
            DepthwiseConv1d(c_all, multiplier, k, rng=gen, **kw),
            lambda h: h,  # PyG's Reshape(-1, C * multiplier): the conv already gives it
            Linear(c_all * multiplier, c_out, bias=bias, rng=gen, **kw),
        )

    def __call__(self, x: Any, pos: Any, batch: Any = None) -> Any:
        from arraygnn.utils.knn import _batch, knn

        layer = "XConv"
        pos = _float_array(layer, "pos", pos)
        pos = pos.reshape(-1, 1) if pos.ndim == 1 else pos
        if pos.ndim != 2 or int(pos.shape[1]) != self.dim:
            raise ValueError(f"{layer}: pos must be (N, {self.dim}), got shape {pos.shape}")
        n, k, c_in = int(pos.shape[0]), self.kernel_size, self.in_channels
        if x is not None:
            x = _float_array(layer, "x", x)
            x = x.reshape(-1, 1) if x.ndim == 1 else x
            if x.ndim != 2 or tuple(x.shape) != (n, c_in):
                raise ValueError(
                    f"{layer}: x must be (N, in_channels) = ({n}, {c_in}), got shape {x.shape}"
                )
        elif c_in != 0:
            raise ValueError(f"{layer}: x is None but in_channels={c_in} (0 expected)")
        if batch is not None:
            _batch(layer, "batch", batch, n)  # the errors name XConv's argument, not knn's
        xp = get_namespace(pos, *(() if x is None else (x,)), *(() if batch is None else (batch,)))
        want = k * self.dilation
        try:
            edge_index = knn(pos, pos, want, batch, batch, num_workers=self.num_workers)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{layer}: {err}") from None
        if int(edge_index.shape[1]) != n * want:
            raise ValueError(
                f"{layer}: every example needs at least kernel_size * dilation = {want} points "
                "(PyG fails on smaller ones too)"
            )
        if self.dilation > 1:
            edge_index = edge_index[:, :: self.dilation]
        row, col = edge_index[0], edge_index[1]
        rel = pos[col] - pos[row]  # [N K, D], neighbours nearest first
        x_star = self.mlp1(rel)  # [N, K, C_delta]
        if x is not None:
            x_star = xp.concatenate([x_star, x[col].reshape(n, k, c_in)], axis=-1)
        x_star = x_star.transpose(0, 2, 1)  # [N, C, K]
        transform = self.mlp2(rel.reshape(n, k * self.dim))  # [N, K, K]
        return self.conv(xp.matmul(x_star, transform))

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, dim={self.dim}, "
            f"kernel_size={self.kernel_size}, hidden_channels={self.hidden_channels}, "
            f"dilation={self.dilation}"
        )


def _float_array(layer: str, name: str, value: Any) -> Any:
    """``value``, a ``TypeError`` unless it is a floating-point NumPy / CuPy array."""
    check_array_arg(layer, name, value)
    if value.dtype.kind != "f":
        raise TypeError(f"{layer}: {name} must hold floating-point values, got {value.dtype}")
    return value


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> XConv:
    """PyG's ``XConv`` as the arraygnn layer, weights and batch-norm statistics included."""
    from arraygnn.nn.weights import _load

    norms = [m for m in module.modules() if type(m).__name__ == "BatchNorm1d"]
    if any(not norm.track_running_stats for norm in norms):
        raise ValueError("from_pyg: XConv with batch norms without running statistics")
    layer = XConv(
        module.in_channels,
        module.out_channels,
        module.dim,
        module.kernel_size,
        module.hidden_channels,
        module.dilation,
        module.conv[2].bias is not None,
        module.num_workers,
        dtype=dtype,
    )
    ours = [m for m in (*layer.mlp1.steps, *layer.mlp2.steps) if isinstance(m, BatchNorm)]
    for mine, theirs in zip(ours, norms):
        mine.eps = float(theirs.eps)
    return _load(layer, module, "pyg")
