"""MeshCNN's edge convolution (Hanocka et al.): PyG's ``MeshCNNConv``.

The graph is a mesh's *edge adjacency*: the nodes are the mesh edges and ``edge_index``
``[2, 4 |E|]`` lists, column ``4 i + k``, ``(i, n_k(i))`` for each edge's four neighbours
``a, b, c, d`` (PyG's documented layout). With ``s = edge_index[0]``, ``t = edge_index[1]``
and, per group ``g`` of four columns, ``n_a, n_b, n_c, n_d = x[s[4g]], ..., x[s[4g + 3]]``,
the layer computes PyG's symmetric functions and sum aggregation literally:

``out = W0(x) + scatter_sum([W1(|n_a - n_c|), W2(n_a + n_c), W3(|n_b - n_d|),
W4(n_b + n_d)] -> t)``

(message ``4g + k`` goes to ``t[4g + k]``). The kernels ``W0 .. W4`` are any arraygnn
layers mapping ``in_channels`` to ``out_channels`` (default: five ``Linear`` with bias).
Path: four ``[|E|, in]`` gathers (the symmetric functions are not linear, so the per-group
inputs are formed), the four kernels on them, one ``ops.scatter`` of the ``[4 |E|, out]``
messages (deterministic). PyG builds those messages in float32 whatever the input dtype
(``torch.empty`` default); here they keep the input's dtype.

>>> import numpy as np
>>> conv = MeshCNNConv(3, 2, rng=0)
>>> ei = np.array([[0, 0, 0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0, 0, 0]])
>>> conv(np.ones((2, 3), np.float32), ei).shape
(2, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_float_features, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _ModuleList, _rng

__all__ = ["MeshCNNConv"]


def _check_kernels(layer: str, kernels: Any, in_channels: int, out_channels: int) -> list[Any]:
    if not isinstance(kernels, Sequence) or len(kernels) != 5:
        raise ValueError(f"{layer}: kernels must be a list of exactly 5 layers, got {kernels!r}")
    for i, k in enumerate(kernels):
        if not isinstance(k, Module):
            raise ValueError(
                f"{layer}: kernels[{i}] must be an arraygnn layer, got {type(k).__name__}"
            )
        size = getattr(k, "in_channels", getattr(k, "in_features", None))
        if isinstance(size, int) and size != in_channels:
            raise ValueError(
                f"{layer}: kernels[{i}] takes {size} inputs, expected in_channels={in_channels}"
            )
        size = getattr(k, "out_channels", getattr(k, "out_features", None))
        if isinstance(size, int) and size != out_channels:
            raise ValueError(
                f"{layer}: kernels[{i}] gives {size} outputs, expected out_channels={out_channels}"
            )
    return list(kernels)


class MeshCNNConv(Module):
    r"""PyG's ``MeshCNNConv``.

    .. math::
        x_i' = W_0 x_i + \sum_{(g, k): t_{4g+k} = i} W_{k+1}(f_k(g)), \quad
        f = (|n_a - n_c|,\; n_a + n_c,\; |n_b - n_d|,\; n_b + n_d)

    Args:
        in_channels: input size (per mesh edge).
        out_channels: output size.
        kernels: five arraygnn layers ``in -> out`` (``W0`` .. ``W4``); default five
            ``Linear(in, out)`` with bias, as PyG.

    Call as ``conv(x, edge_index)``; ``edge_index`` ``[2, 4 |E|]`` (a multiple of 4
    columns), ids below ``x.shape[0]``.

    Shapes:
        - input: ``(|E|, in)``, edge_index ``(2, 4 |E|)``
        - output: ``(|E|, out_channels)``

    Parameter names (PyG): ``kernels.{0..4}.*`` (each kernel's own names).
    """

    _child_names = ("kernels",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernels: Sequence[Module] | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "MeshCNNConv"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        if kernels is None:
            gen = _rng(rng)
            kernels = [
                Linear(self.in_channels, self.out_channels, dtype=dtype, rng=gen) for _ in range(5)
            ]
        self.kernels = _ModuleList(
            _check_kernels(name, kernels, self.in_channels, self.out_channels)
        )

    def __call__(self, x: Any, edge_index: Any) -> Any:
        """The layer's output; see the class docstring."""
        from arraygnn import ops

        name = "MeshCNNConv"
        inp = parse_input(name, x, edge_index)
        if inp.x_src.ndim != 2:
            raise ValueError(
                f"{name}: x must be [num_mesh_edges, in_channels], got shape "
                f"{list(inp.x_src.shape)}"
            )
        check_float_features(name, inp.x_src)
        _check_features(inp.x_src, self.in_channels, f"{name} features")
        if inp.num_edges % 4:
            raise ValueError(
                f"{name}: edge_index must have a multiple of 4 columns (each mesh edge's four "
                f"neighbours), got {inp.num_edges}"
            )
        xp = get_namespace(inp.x_src)
        x = inp.x_src
        k = self.kernels
        src = inp.src.reshape(-1, 4)
        n_a, n_b, n_c, n_d = (ops.gather(x, src[:, i]) for i in range(4))
        parts = (
            k[1](xp.abs(n_a - n_c)),
            k[2](n_a + n_c),
            k[3](xp.abs(n_b - n_d)),
            k[4](n_b + n_d),
        )
        out = k[0](x)
        dtype = np.result_type(out.dtype, *(p.dtype for p in parts))
        messages = xp.stack([p.astype(dtype, copy=False) for p in parts], axis=1)
        summed = ops.scatter(
            messages.reshape(-1, messages.shape[-1]), inp.dst, inp.num_dst, reduce="sum"
        )
        return out + summed

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> MeshCNNConv:
    """PyG ``MeshCNNConv`` -> :class:`MeshCNNConv`, each kernel converted by ``convert``."""
    kernels = [convert(k) for k in module.kernels]
    return MeshCNNConv(module.in_channels, module.out_channels, kernels, dtype=dtype)
