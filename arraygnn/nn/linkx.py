"""PyG's ``LINKX`` (Lim et al., 2021) at inference: an MLP over the adjacency rows and
one over the node features, combined.

``edge_lin`` is PyG's ``SparseLinear``: ``A W + b`` with ``W`` ``(num_nodes, hidden)``,
row ``i`` the (``edge_weight``-weighted) sum of ``W[j]`` over the edges ``j -> i``: one
SpMM of the weight table over the graph's CSR (no dense adjacency, no ``[E, F]`` array).
Then, as PyG's ``forward``: with ``num_edge_layers > 1`` ReLU, ``edge_norm``
(``BatchNorm1d``, running statistics) and ``edge_mlp``; ``out + cat_lin1(out)``; with
``x``: ``node_mlp(x)`` added, and ``cat_lin2`` of it; ``final_mlp(relu(out))``. The MLPs
are PyG's (``act_first=True``, batch norms at inference); dropout is the identity.

>>> import numpy as np
>>> model = LINKX(num_nodes=4, in_channels=3, hidden_channels=8, out_channels=2,
...               num_layers=2, rng=0)
>>> model(np.ones((4, 3), np.float32), np.array([[0, 1, 2], [1, 2, 3]])).shape
(4, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import MLP, BatchNorm, Linear, _relu, _rng, add_bias, glorot

__all__ = ["LINKX"]


class _SparseLinear(Module):
    """PyG's ``SparseLinear``: ``weight`` ``(num_nodes, out)`` (note: ``[in, out]``),
    ``bias`` ``(out,)``; ``layer(edge_index, edge_weight=None)`` -> ``(num_nodes, out)``."""

    _param_names = ("weight", "bias")

    def __init__(self, num_nodes: int, out_channels: int, bias: bool, dtype: Any, gen: Any):
        self.weight = glorot((out_channels, num_nodes), gen, dtype).T.copy()
        self.bias = np.zeros(out_channels, dtype=dtype) if bias else None

    def __call__(self, edge_index: Any, edge_weight: Any) -> Any:
        from arraygnn.nn.sgc import _propagation, propagation_input
        from arraygnn.ops.slot_order import spmm_slots

        inp = propagation_input("LINKX", self.weight, edge_index, edge_weight)
        csr, w = _propagation(inp, edge_weight, False, False, self.weight.dtype)
        out = spmm_slots(csr, self.weight, w)
        return out if self.bias is None else add_bias(out, self.bias)


class LINKX(Module):
    """PyG's ``LINKX``.

    Args:
        num_nodes: the number of nodes (rows of ``edge_lin``'s weight).
        in_channels, hidden_channels, out_channels: sizes.
        num_layers: layers of ``final_mlp`` (``[hidden] * num_layers + [out]``).
        num_edge_layers: ``> 1`` adds ``edge_norm`` and ``edge_mlp`` (default 1).
        num_node_layers: layers of ``node_mlp`` (default 1).
        dropout: ignored (inference).

    Call as ``model(x, edge_index, edge_weight=None)``; ``x`` ``(num_nodes,
    in_channels)`` or ``None`` (structure only).

    Names (PyG's): ``edge_lin.weight`` ``(num_nodes, hidden)``, ``edge_lin.bias``,
    ``edge_norm.*``, ``edge_mlp.lins.i.*`` / ``edge_mlp.norms.i.module.*``, ``node_mlp.*``,
    ``cat_lin1.*``, ``cat_lin2.*``, ``final_mlp.*``.
    """

    _child_names = ("edge_lin", "edge_norm", "edge_mlp", "node_mlp", "cat_lin1", "cat_lin2",
                    "final_mlp")  # fmt: skip

    def __init__(
        self,
        num_nodes: int,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        num_layers: int,
        num_edge_layers: int = 1,
        num_node_layers: int = 1,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "LINKX"
        self.num_nodes = layer_size(name, "num_nodes", num_nodes)
        self.in_channels = layer_size(name, "in_channels", in_channels)
        hid = layer_size(name, "hidden_channels", hidden_channels, minimum=1)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        self.num_edge_layers = layer_size(name, "num_edge_layers", num_edge_layers, minimum=1)
        num_node_layers = layer_size(name, "num_node_layers", num_node_layers, minimum=1)
        self.dropout = probability(name, "dropout", dropout)
        gen = _rng(rng)

        def mlp(channels: list[int]) -> MLP:
            return MLP(channels, norm="batch_norm", act_first=True, dtype=dtype, rng=gen)

        self.edge_lin = _SparseLinear(self.num_nodes, hid, True, dtype, gen)
        self.edge_norm: BatchNorm | None = None
        self.edge_mlp: MLP | None = None
        if self.num_edge_layers > 1:
            self.edge_norm = BatchNorm(hid, dtype=dtype)
            self.edge_mlp = mlp([hid] * self.num_edge_layers)
        self.node_mlp = mlp([self.in_channels] + [hid] * num_node_layers)
        self.cat_lin1 = Linear(hid, hid, dtype=dtype, rng=gen)
        self.cat_lin2 = Linear(hid, hid, dtype=dtype, rng=gen)
        self.final_mlp = mlp([hid] * num_layers + [self.out_channels])

    def __call__(self, x: Any, edge_index: Any, edge_weight: Any = None) -> Any:
        out = self.edge_lin(edge_index, edge_weight)
        if self.edge_norm is not None and self.edge_mlp is not None:
            out = self.edge_mlp(self.edge_norm(_relu(out)))
        out = out + self.cat_lin1(out)
        if x is not None:
            if not is_array(x) or x.ndim != 2 or x.shape[0] != self.num_nodes:
                raise ValueError(
                    f"LINKX: x must be an array ({self.num_nodes}, {self.in_channels}) (one row "
                    f"per node) or None, got {getattr(x, 'shape', type(x).__name__)}"
                )
            x = self.node_mlp(x)
            out = out + x
            out = out + self.cat_lin2(x)
        return self.final_mlp(_relu(out))

    def extra_repr(self) -> str:
        return (
            f"num_nodes={self.num_nodes}, in_channels={self.in_channels}, "
            f"out_channels={self.out_channels}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``LINKX`` with every weight (its MLPs and batch norms through ``convert``)."""
    model = LINKX.__new__(LINKX)
    model.num_nodes = int(module.num_nodes)
    model.in_channels = int(module.in_channels)
    model.out_channels = int(module.out_channels)
    model.num_edge_layers = int(module.num_edge_layers)
    model.dropout = 0.0
    lin = module.edge_lin
    model.edge_lin = _SparseLinear(
        lin.in_channels, lin.out_channels, lin.bias is not None, dtype, _rng(0)
    )
    model.edge_norm = None if module.edge_norm is None else convert(module.edge_norm)
    model.edge_mlp = None if module.edge_mlp is None else convert(module.edge_mlp)
    for part in ("node_mlp", "cat_lin1", "cat_lin2", "final_mlp"):
        setattr(model, part, convert(getattr(module, part)))
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
