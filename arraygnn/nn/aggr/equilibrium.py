"""PyG's ``EquilibriumAggregation`` ("Equilibrium Aggregation: Encoding Sets via
Optimization"): each group's output ``y`` is found by a few steps of Nesterov-style momentum
descent on a learnt energy ``E(x, y) = potential(x, y) + softplus(lamb) * mean_g |y_g|^2``.

PyG differentiates the energy with ``torch.autograd.grad`` inside ``forward``; arraygnn has no
autograd, so :class:`ResNetPotential` carries the gradient of PyG's potential with respect to
``y`` in closed form (``grad_y``): with ``inp_i = [x_i, y_{index_i}]``, hidden layers
``h_{k+1} = res_k(inp) + tanh(LayerNorm(W_k h_k + b_k))`` and the potential
``sum_g mean_{i in g} h_out_i``, each row's output is weighted ``1 / |g|``; that weight is
carried back through the last ``Linear``, the ``tanh``, the ``LayerNorm`` (its full Jacobian:
``rstd * (d - mean(d) - n * mean(d * n))`` with ``d = gamma * upstream``) and every residual
``Linear``, and the rows' ``y`` parts are summed per group.

Path: every per-row product is a dense ``[N, width]`` matrix product (the ``x`` halves of the
input ``Linear`` layers are computed once per call, the ``y`` halves on the ``G`` group rows
and then gathered with :func:`arraygnn.ops.gather`), and the per-group sums run through the
segment / scatter kernels of :mod:`arraygnn.ops`: no loop over groups, no ``[N, in + out]``
concatenated input.

RULE: as PyG, ``y`` starts as float32 zeros (PyG's ``init_output(...).float()``) and each
step's gradient has ``y``'s dtype (a float64 model rounds its first gradient to float32, as
autograd does), then ``y`` takes the weights' dtype from the first step on.
RULE: as PyG, without ``index`` and ``ptr`` all slices form one group and ``dim_size`` left out
is ``index.max() + 1``; a ``ptr`` alone also works here (PyG's layer needs ``index``), as for
every arraygnn aggregation.

>>> import numpy as np
>>> from arraygnn.nn.aggr import EquilibriumAggregation
>>> aggr = EquilibriumAggregation(3, 2, [8, 8], rng=0)
>>> x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
>>> aggr(x, np.array([0, 0, 2, 2, 2]), dim_size=4).shape
(4, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.aggr.base import Aggregation, Groups
from arraygnn.nn.linear import (
    LayerNorm,
    Linear,
    Sequential,
    _check_features,
    _ModuleList,
    _rng,
    _sigmoid,
    add_bias,
    matmul,
)

__all__ = ["EquilibriumAggregation", "MomentumOptimizer", "ResNetPotential", "from_pyg_module"]


def _softplus(x: Any) -> Any:
    from arraygnn.nn.cg_conv import softplus

    return softplus(x)


class ResNetPotential(Module):
    """PyG's ``ResNetPotential(in_channels, out_channels, num_layers)``: ``layers`` (a
    ``Linear -> LayerNorm -> Tanh`` block per hidden width, then a ``Linear``) and
    ``res_trans`` (a ``Linear`` from the input to every block's width), on the input
    ``[x, y[index]]``; the value is ``sum_g mean_{i in g} h_i`` (summed over channels too).

    ``in_channels`` counts ``x``'s and ``y``'s features together (``x`` first).

    Names (PyG): ``layers.{k}.0.*`` (Linear), ``layers.{k}.1.*`` (LayerNorm),
    ``layers.{K}.*`` (the last Linear), ``res_trans.{k}.*``.
    """

    _child_names = ("layers", "res_trans")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_layers: Sequence[int],
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "ResNetPotential"
        self.in_channels = layer_size(where, "in_channels", in_channels, 1)
        self.out_channels = layer_size(where, "out_channels", out_channels, 1)
        if isinstance(num_layers, (int, str)) or not isinstance(num_layers, Sequence):
            raise TypeError(f"{where}: num_layers must be a list of widths, got {num_layers!r}")
        hidden = [layer_size(where, f"num_layers[{i}]", w, 1) for i, w in enumerate(num_layers)]
        self.num_layers = hidden
        gen = _rng(rng)
        sizes = [self.in_channels, *hidden, self.out_channels]
        blocks: list[Module] = [
            Sequential(Linear(a, b, dtype=dtype, rng=gen), LayerNorm(b, dtype=dtype), "tanh")
            for a, b in zip(sizes[:-2], sizes[1:-1])
        ]
        blocks.append(Linear(sizes[-2], sizes[-1], dtype=dtype, rng=gen))
        self.layers = _ModuleList(blocks)
        self.res_trans = _ModuleList(
            [Linear(self.in_channels, w, dtype=dtype, rng=gen) for w in sizes[1:]]
        )

    # ---- pieces --------------------------------------------------------------------
    def _linear(self, k: int) -> Linear:
        block = self.layers[k]
        return block if isinstance(block, Linear) else block[0]

    def _x_parts(self, x: Any) -> tuple[Any, Any, list[slice]]:
        """The input ``Linear`` layers (the first block's, then every residual's) side by
        side: ``(x @ Wx.T + b [N, total], Wy [total, Fy], the column slice of each)``. The
        ``x`` half is computed once per call (``x`` does not change between steps)."""
        nx = int(x.shape[1])
        lins = [self._linear(0), *self.res_trans]
        xp = self._xp()
        weight = xp.concatenate([lin.weight for lin in lins], axis=0)
        bounds = np.cumsum([0] + [int(lin.weight.shape[0]) for lin in lins])
        cols = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        xw = matmul(x, weight[:, :nx].T)
        for lin, col in zip(lins, cols):
            if lin.bias is not None:
                xw[:, col] += lin.bias
        return xw, xp.ascontiguousarray(weight[:, nx:]), cols

    def _rows(self, parts: tuple[Any, Any, list[slice]], y: Any, groups: Groups) -> Any:
        """The forward pass on every row: ``(h_out [N, out], saved)`` where ``saved`` holds
        ``(normalised, rstd, tanh)`` of each hidden block."""
        from arraygnn import ops

        xw, wy, cols = parts
        xp = groups.xp
        pre = ops.gather(matmul(y, wy.T), groups.group_ids())  # [N, total]
        pre = add_bias(pre, xw)
        saved = []
        h = None
        for k in range(len(self.num_layers)):
            lin, norm = self.layers[k][0], self.layers[k][1]
            a = pre[:, cols[0]] if k == 0 else lin(h)
            centred = a - a.mean(axis=-1, keepdims=True)
            rstd = (centred * centred).mean(axis=-1, keepdims=True)
            rstd += norm.eps
            rstd = 1 / xp.sqrt(rstd, out=rstd)
            normed = centred
            normed *= rstd
            u = normed * norm.weight if norm.weight is not None else normed.copy()
            if norm.bias is not None:
                u += norm.bias
            t = xp.tanh(u, out=u)
            saved.append((normed, rstd, t))
            h = t + pre[:, cols[k + 1]]
        last = self.layers[len(self.num_layers)]
        out = (pre[:, cols[0]] if h is None else last(h)) + pre[:, cols[-1]]
        return out, saved

    @staticmethod
    def _row_weight(groups: Groups, dtype: Any) -> Any:
        """``1 / |g|`` of each row's group ``[N, 1]``: d(sum of group means) / d h_i."""
        from arraygnn import ops

        weight = 1 / groups.xp.maximum(groups.counts(), 1).astype(dtype)
        return ops.gather(weight[:, None], groups.group_ids())

    def _row_grad(self, parts: tuple[Any, Any, list[slice]], y: Any, groups: Groups) -> Any:
        """d potential / d (each row's ``y`` part), ``[N, Fy]`` in the computing dtype: the
        gradients at every input ``Linear``'s output, side by side, times their ``Wy``."""
        xp = groups.xp
        _, wy, cols = parts
        out, saved = self._rows(parts, y, groups)
        grads = xp.empty((out.shape[0], wy.shape[0]), dtype=out.dtype)
        g = xp.broadcast_to(self._row_weight(groups, out.dtype), out.shape)  # d / d h_out
        grads[:, cols[-1]] = g
        num = len(self.num_layers)
        if num == 0:
            grads[:, cols[0]] = g
            return matmul(grads, wy)
        g = matmul(g, self.layers[num].weight)  # d / d h_K
        for k in range(num - 1, -1, -1):
            grads[:, cols[k + 1]] = g
            normed, rstd, t = saved[k]
            norm = self.layers[k][1]
            t *= t
            d = g - g * t  # g * (1 - tanh^2)
            if norm.weight is not None:
                d *= norm.weight
            d -= d.mean(axis=-1, keepdims=True)
            d -= normed * (d * normed).mean(axis=-1, keepdims=True)
            d *= rstd
            if k:
                g = matmul(d, self._linear(k).weight)
            else:
                grads[:, cols[0]] = d
        return matmul(grads, wy)

    def _groups(self, x: Any, y: Any, index: Any, dim_size: Any) -> Groups:
        where = "ResNetPotential"
        if y.ndim != 2 or x.ndim != 2:
            raise ValueError(
                f"{where}: x and y must be two-dimensional, got {tuple(x.shape)} and "
                f"{tuple(y.shape)}"
            )
        _check_features(
            x, self.in_channels - int(y.shape[1]), f"{where} x", self.res_trans[0].weight
        )
        size = int(y.shape[0]) if dim_size is None else dim_size
        if size != y.shape[0]:
            raise ValueError(f"{where}: dim_size={dim_size} but y has {y.shape[0]} rows")
        if index is None:
            raise NotImplementedError(f"{where}: index is required")
        return Groups(where, x, index, None, size, 0)

    # ---- public --------------------------------------------------------------------
    def __call__(self, x: Any, y: Any, index: Any, dim_size: int | None = None) -> Any:
        """PyG's value ``scatter(h, index, 0, dim_size, 'mean').sum()`` (a 0-d array)."""
        groups = self._groups(x, y, index, dim_size)
        out, _ = self._rows(self._x_parts(x), y, groups)
        return (out * self._row_weight(groups, out.dtype)).sum()

    def grad_y(self, x: Any, y: Any, index: Any, dim_size: int | None = None) -> Any:
        """The gradient of the value with respect to ``y`` (``[G, Fy]``, ``y``'s dtype), as
        ``torch.autograd.grad`` gives it; ``index`` [N] in ``[0, G)``."""
        groups = self._groups(x, y, index, dim_size)
        rows = self._row_grad(self._x_parts(x), y, groups).astype(y.dtype, copy=False)
        return groups.reduce("sum", rows)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, num_layers={self.num_layers}"


class MomentumOptimizer(Module):
    """PyG's ``MomentumOptimizer(learning_rate=0.1, momentum=0.9, learnable=True)``: the
    unrolled descent ``buf = momentum * buf - learning_rate * grad; y = y + buf`` with
    ``learning_rate = softplus(_lr)`` and ``momentum = sigmoid(_mom)``.

    Names (PyG): ``_lr``, ``_mom`` (one entry each).
    """

    _param_names = ("_lr", "_mom")

    def __init__(
        self,
        learning_rate: float = 0.1,
        momentum: float = 0.9,
        learnable: bool = True,
        *,
        dtype: Any = np.float32,
    ) -> None:
        self.learnable = bool(learnable)
        self._lr = np.array([learning_rate], dtype=dtype)
        self._mom = np.array([momentum], dtype=dtype)

    @property
    def learning_rate(self) -> Any:
        return _softplus(self._lr)

    @property
    def momentum(self) -> Any:
        return _sigmoid(self._mom)

    def extra_repr(self) -> str:
        return f"learnable={self.learnable}"


class EquilibriumAggregation(Aggregation):
    """PyG's ``EquilibriumAggregation(in_channels, out_channels, num_layers, grad_iter=5,
    lamb=0.1)``.

    Args:
        in_channels / out_channels: ``x``'s width and the output width.
        num_layers: the hidden widths of the potential (a list; ``[]`` is one ``Linear``).
        grad_iter: the descent steps (``0`` returns the zeros ``y`` starts from).
        lamb: the initial regularisation constant (``softplus(lamb)`` weighs ``|y|^2``).
        dtype / rng: the weights' dtype and a seed for their initial values.

    Names (PyG): ``lamb``, ``optimizer._lr``, ``optimizer._mom``, ``potential.*`` (see
    :class:`ResNetPotential`).

    Shapes:
        - input: ``x`` ``(E, in_channels)``, ``index`` ``(E,)`` (any order) or ``ptr``
        - output: ``(G, out_channels)``
    """

    _takes_dtype = True
    _param_names = ("lamb",)
    _child_names = ("potential", "optimizer")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_layers: Sequence[int],
        grad_iter: int = 5,
        lamb: float = 0.1,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "EquilibriumAggregation"
        self.in_channels = layer_size(where, "in_channels", in_channels, 1)
        self.output_dim = layer_size(where, "out_channels", out_channels, 1)
        self.grad_iter = layer_size(where, "grad_iter", grad_iter)
        self.initial_lamb = float(lamb)
        self.potential = ResNetPotential(
            self.in_channels + self.output_dim, 1, num_layers, dtype=dtype, rng=rng
        )
        self.optimizer = MomentumOptimizer(dtype=dtype)
        self.lamb = np.array([lamb], dtype=dtype)

    def _aggregate(self, groups: Groups) -> Any:
        groups.require_matrix("EquilibriumAggregation")
        x = groups.float_x0()
        _check_features(x, self.in_channels, "EquilibriumAggregation x", self.lamb)
        parts = self.potential._x_parts(x)
        y = groups.xp.zeros((groups.size, self.output_dim), dtype=np.float32)
        buf = groups.xp.zeros_like(y)
        rate, momentum = self.optimizer.learning_rate, self.optimizer.momentum
        for _ in range(self.grad_iter):
            buf = momentum * buf - rate * self._energy_grad(parts, y, groups)
            y = y + buf
        return y

    def _energy_grad(self, parts: tuple[Any, Any, list[slice]], y: Any, groups: Groups) -> Any:
        rows = self.potential._row_grad(parts, y, groups).astype(y.dtype, copy=False)
        # d/dy softplus(lamb) * mean_g(sum_c y^2) = softplus(lamb) / G * 2 y (in y's dtype)
        scale = (_softplus(self.lamb) / max(groups.size, 1)).astype(y.dtype)
        return groups.reduce("sum", rows) + scale * (2 * y)

    def energy_grad(self, x: Any, y: Any, index: Any, dim_size: int | None = None) -> Any:
        """The gradient of PyG's ``energy(x, y, index, dim_size)`` (potential plus
        regulariser) with respect to ``y`` ``[G, out_channels]``, in ``y``'s dtype."""
        groups = self.potential._groups(x, y, index, dim_size)
        return self._energy_grad(self.potential._x_parts(x), y, groups)

    def extra_repr(self) -> str:
        return ""  # PyG's repr: ``EquilibriumAggregation()``


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> EquilibriumAggregation:
    """PyG's ``EquilibriumAggregation`` -> ours, weights loaded (sizes read off the
    potential's ``Linear`` layers, ``LayerNorm`` eps from the module)."""
    res = module.potential.res_trans
    out_channels = int(module.output_dim)
    layer = EquilibriumAggregation(
        int(res[0].in_features) - out_channels,
        out_channels,
        [int(lin.out_features) for lin in list(res)[:-1]],
        int(module.grad_iter),
        float(module.initial_lamb),
        dtype=dtype,
    )
    for k, block in enumerate(list(module.potential.layers)[:-1]):
        norm = block[1]
        layer.potential.layers[k][1].eps = float(norm.eps)
        if norm.weight is None:
            layer.potential.layers[k][1].weight = None
        if norm.bias is None:
            layer.potential.layers[k][1].bias = None
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
