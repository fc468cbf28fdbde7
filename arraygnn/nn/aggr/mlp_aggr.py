"""PyG's MLP readouts: ``MLPAggregation`` (each group's padded slices flattened into one row
for an MLP) and ``DeepSetsAggregation`` (``global_nn(sum(local_nn(x)))``), from "Graph
Neural Networks with Adaptive Readouts".

``MLPAggregation`` lays the groups out as PyG's ``to_dense_batch`` with
``max_num_elements`` columns (a group's slices beyond it are dropped, shorter groups are
zero-padded), so it needs a sorted ``index`` and is not permutation-invariant.
``DeepSetsAggregation`` sums through :mod:`arraygnn.ops`'s segment kernels (any index order,
``ptr`` too).

>>> import numpy as np
>>> from arraygnn.nn import Linear
>>> from arraygnn.nn.aggr import DeepSetsAggregation, MLPAggregation
>>> x = np.ones((5, 3), np.float32)
>>> MLPAggregation(3, 2, 4, hidden_channels=8, num_layers=2, rng=0)(
...     x, np.array([0, 0, 1, 1, 1])).shape
(2, 2)
>>> DeepSetsAggregation(Linear(3, 4, rng=0), None)(x, np.array([1, 0, 1, 1, 1])).shape
(2, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.aggr.base import Aggregation, Groups
from arraygnn.nn.aggr.dense import DenseAggregation
from arraygnn.nn.linear import MLP

__all__ = ["MLPAggregation", "DeepSetsAggregation", "from_pyg_module"]


class MLPAggregation(DenseAggregation):
    """PyG's ``MLPAggregation(in_channels, out_channels, max_num_elements, **kwargs)``:
    ``mlp(dense.reshape(G, max_num_elements * in_channels), index, dim_size)``.

    Args:
        in_channels / out_channels: input and output widths.
        max_num_elements: the columns of each group's row (``M``).
        hidden_channels / num_layers: the MLP's hidden width and layer count (PyG's ``MLP``
            keywords; the first layer reads ``M * in_channels`` features).
        act / norm / plain_last / bias / act_first / norm_kwargs: as :class:`arraygnn.nn.MLP`
            (``norm='batch_norm'`` by default, as PyG's ``MLP``).

    Names (PyG): ``mlp.lins.{i}.*``, ``mlp.norms.{i}.*``.

    Shapes:
        - input: ``x`` ``(E, in_channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, out_channels)``
    """

    _takes_dtype = True
    _child_names = ("mlp",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        max_num_elements: int,
        hidden_channels: int | None = None,
        num_layers: int | None = None,
        *,
        act: str | Callable[[Any], Any] | None = "relu",
        norm: str | None = "batch_norm",
        plain_last: bool = True,
        bias: bool = True,
        act_first: bool = False,
        norm_kwargs: dict[str, Any] | None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "MLPAggregation"
        self.in_channels = layer_size(where, "in_channels", in_channels)
        self.out_channels = layer_size(where, "out_channels", out_channels)
        self.max_num_elements = layer_size(where, "max_num_elements", max_num_elements)
        layers = 1 if num_layers is None else layer_size(where, "num_layers", num_layers, 1)
        if layers > 1 and hidden_channels is None:
            raise ValueError(f"{where}: num_layers={layers} needs hidden_channels")
        hidden = [] if layers == 1 else [hidden_channels] * (layers - 1)
        self.mlp = MLP(
            [self.in_channels * self.max_num_elements, *hidden, self.out_channels],
            act,
            norm,
            plain_last,
            bias,
            act_first=act_first,
            norm_kwargs=norm_kwargs,
            dtype=dtype,
            rng=rng,
        )

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        if max_num_elements is not None and max_num_elements != self.max_num_elements:
            raise TypeError(
                f"MLPAggregation: max_num_elements is fixed at construction "
                f"({self.max_num_elements}, the MLP's input width), got {max_num_elements!r} "
                "at call (PyG's call takes none)"
            )
        dense, _ = self.dense(groups, None, self.max_num_elements, need_steps=False)
        flat = dense.reshape(dense.shape[0], dense.shape[1] * dense.shape[2])
        return self.mlp(flat, groups.index, groups.size)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, max_num_elements={self.max_num_elements}"


class DeepSetsAggregation(Aggregation):
    """PyG's ``DeepSetsAggregation(local_nn=None, global_nn=None)``:
    ``global_nn(sum_groups(local_nn(x)))``.

    ``local_nn`` / ``global_nn`` are any callables on arrays (an arraygnn ``MLP``,
    ``Sequential``, ``Linear``, ...); an :class:`arraygnn.nn.MLP` is called as PyG calls its
    ``MLP``, with ``batch=index, batch_size=dim_size``.

    Names (PyG): ``local_nn.*`` / ``local_mlp.*`` and ``global_nn.*`` / ``global_mlp.*``
    (``*_mlp`` for an ``MLP``).

    Shapes:
        - input: ``x`` ``(*, E, F)``, ``index`` ``(E,)`` (any order) or ``ptr``
        - output: ``(*, G, F')``
    """

    def __init__(self, local_nn: Any = None, global_nn: Any = None) -> None:
        self.local_nn = self.local_mlp = self.global_nn = self.global_mlp = None
        for role, net in (("local", local_nn), ("global", global_nn)):
            if net is not None and not callable(net):
                raise TypeError(f"DeepSetsAggregation: {role}_nn must be callable, got {net!r}")
            setattr(self, f"{role}_{'mlp' if isinstance(net, MLP) else 'nn'}", net)
        self._child_names = tuple(
            name
            for name in ("local_nn", "local_mlp", "global_nn", "global_mlp")
            if isinstance(getattr(self, name), Module)
        )

    def __call__(
        self,
        x: Any,
        index: Any = None,
        ptr: Any = None,
        dim_size: int | None = None,
        dim: int = -2,
    ) -> Any:
        where = type(self).__name__
        if self.local_mlp is not None:
            x = self.local_mlp(x, index, dim_size)
        if self.local_nn is not None:
            x = self.local_nn(x)
        groups = Groups(where, x, index, ptr, dim_size, dim)
        return self._global(groups.restore(groups.reduce("sum")), groups)

    def _forward(self, groups: Groups) -> Any:  # inside a MultiAggregation
        return self(groups.x, groups.index, groups.ptr, groups.size, groups.dim)

    def _global(self, x: Any, groups: Groups) -> Any:
        if self.global_mlp is not None:
            return self.global_mlp(x, groups.index, groups.size)
        return x if self.global_nn is None else self.global_nn(x)

    def extra_repr(self) -> str:
        local = self.local_mlp if self.local_mlp is not None else self.local_nn
        glob = self.global_mlp if self.global_mlp is not None else self.global_nn
        return f"local_nn={local!r}, global_nn={glob!r}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> Aggregation:
    """PyG's ``MLPAggregation`` / ``DeepSetsAggregation`` -> ours, weights loaded (the
    networks through ``convert``)."""
    if type(module).__name__ == "DeepSetsAggregation":
        nets = [
            convert(mlp) if mlp is not None else (None if net is None else convert(net))
            for mlp, net in (
                (module.local_mlp, module.local_nn),
                (module.global_mlp, module.global_nn),
            )
        ]
        return DeepSetsAggregation(*nets)
    layer = MLPAggregation(
        module.in_channels, module.out_channels, module.max_num_elements, norm=None, dtype=dtype
    )
    layer.mlp = convert(module.mlp)
    return layer
