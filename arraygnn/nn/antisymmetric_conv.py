"""Anti-symmetric deep graph networks (Gravina et al., 2023): PyG's ``AntiSymmetricConv``.

``num_iters`` forward-Euler steps of a stable ODE:
``x <- x + epsilon * act(x (W - W^T - gamma I)^T + phi(x, edge_index) + b)``. ``phi`` is any
arraygnn convolution mapping ``in_channels`` to ``in_channels`` (default a bias-free
``GCNConv``, whose path is one normalisation, one CSR and one SpMM per step); the
anti-symmetric term is one dense matmul per step: no per-edge feature array is formed here.

>>> import numpy as np
>>> conv = AntiSymmetricConv(3, rng=0)
>>> conv(np.eye(3, dtype=np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._graph_input import check_float_features
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.graph_conv import GCNConv
from arraygnn.nn.linear import _check_features, _rng, matmul, resolve_act

__all__ = ["AntiSymmetricConv"]


class AntiSymmetricConv(Module):
    r"""PyG's ``AntiSymmetricConv``: :math:`x \leftarrow x + \epsilon\, \sigma\big(x (W -
    W^\top - \gamma I)^\top + \Phi(x, A) + b\big)`, ``num_iters`` times.

    Args:
        in_channels: feature size (kept by the layer).
        phi: the arraygnn layer :math:`\Phi` (``in_channels -> in_channels``; default
            ``GCNConv(in_channels, in_channels, bias=False, allow_zero_in_degree=True)``).
        num_iters: number of Euler steps (default 1).
        epsilon: step size (default 0.1).
        gamma: diffusion strength (default 0.1).
        act: ``None``, a callable on arrays or a name PyG's resolver takes (``'tanh'``,
            default; ``'relu'``, ``'LeakyReLU'``, ``'elu'``, ...).
        act_kwargs: keyword arguments of an activation given by name (PyG's, e.g.
            ``{"negative_slope": 0.2}`` for ``'leaky_relu'``).
        bias: additive bias.

    Call as ``conv(x, edge_index, *args)``: the extra arguments go to ``phi`` (an
    ``edge_weight`` for the default GCNConv).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``
        - output: ``(N, in_channels)``

    Parameter names (PyG): ``W`` ``(in, in)``, ``eye`` (a buffer, the identity),
    ``phi.*``, ``bias``.
    """

    _param_names = ("W", "bias")
    _buffer_names = ("eye",)
    _child_names = ("phi",)

    def __init__(
        self,
        in_channels: int,
        phi: Module | None = None,
        num_iters: int = 1,
        epsilon: float = 0.1,
        gamma: float = 0.1,
        act: Any = "tanh",
        act_kwargs: dict[str, Any] | None = None,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("AntiSymmetricConv", "in_channels", in_channels)
        self.num_iters = layer_size("AntiSymmetricConv", "num_iters", num_iters)
        self.epsilon = float(epsilon)
        self.gamma = float(gamma)
        self.act = resolve_act("AntiSymmetricConv", act, act_kwargs)
        gen = _rng(rng)
        if phi is None:
            phi = GCNConv(
                self.in_channels,
                self.in_channels,
                bias=False,
                allow_zero_in_degree=True,
                dtype=dtype,
                rng=gen,
            )
        elif not isinstance(phi, Module):
            raise TypeError(
                f"AntiSymmetricConv: phi must be an arraygnn layer, got {type(phi).__name__} "
                "(convert a PyG layer with arraygnn.nn.from_pyg)"
            )
        self.phi = phi
        bound = 1.0 / np.sqrt(max(self.in_channels, 1))  # torch's kaiming_uniform(a=sqrt(5))
        size = (self.in_channels, self.in_channels)
        self.W = gen.uniform(-bound, bound, size=size).astype(dtype)
        self.eye = np.eye(self.in_channels, dtype=dtype)
        self.bias = np.zeros(self.in_channels, dtype=dtype) if bias else None

    def __call__(self, x: Any, edge_index: Any, *args: Any, **kwargs: Any) -> Any:
        _check_features(x, self.in_channels, "AntiSymmetricConv node features")
        check_float_features("AntiSymmetricConv", x)
        anti = self.W - self.W.T - self.eye * self.eye.dtype.type(self.gamma)
        step = x.dtype.type(self.epsilon)
        for _ in range(self.num_iters):
            h = self.phi(x, edge_index, *args, **kwargs)
            if not _broadcasts_to(h.shape, x.shape):  # PyG's torch broadcasting
                raise ValueError(
                    f"AntiSymmetricConv: phi must map in_channels={self.in_channels} features "
                    f"to in_channels; its output has shape {tuple(h.shape)} for x "
                    f"{tuple(x.shape)}"
                )
            h = matmul(x, anti.T) + h
            if self.bias is not None:
                h = h + self.bias
            if self.act is not None:
                h = self.act(h)
            x = x + h * step
        return x

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, phi={self.phi!r}, num_iters={self.num_iters}, "
            f"epsilon={self.epsilon}, gamma={self.gamma}"
        )


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an array of ``shape`` broadcasts to ``target`` unchanged."""
    try:
        return np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False
