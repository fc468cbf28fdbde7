"""Gated graph layers: PyG's ``GatedGraphConv`` (Li et al., gated graph sequence networks)
and ``ResGatedGraphConv`` (Bresson & Laurent, residual gated graph ConvNets).

- ``GatedGraphConv``: ``num_layers`` rounds of ``m = A (h W_l)`` (one fused SpMM) and
  ``h = GRUCell(m, h)``; inputs narrower than ``out_channels`` are zero-padded.
- ``ResGatedGraphConv``: ``x_i' = W_skip x_i + sum_j sigmoid(W_k x_i + W_q x_j) * W_v x_j``.
  Without edge features the gated sum is one SpMM whose per-edge weights are per feature
  (``[E, F]`` gates as ``F`` heads of width 1): the gates are formed, the ``[E, F]``
  products ``gate * v_j`` are not. With ``edge_dim`` the keys, queries and values depend
  on each edge (``[E, F]`` each, as in PyG).

>>> import numpy as np
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> GatedGraphConv(4, num_layers=2, rng=0)(np.ones((3, 3), np.float32), ei).shape
(3, 4)
>>> ResGatedGraphConv(3, 5, rng=0)(np.ones((3, 3), np.float32), ei).shape
(3, 5)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import (
    check_edge_attr,
    check_edge_weight,
    check_one_node_set,
    parse_input,
)
from arraygnn.nn._module import Module, _pair, is_size, layer_size
from arraygnn.nn.linear import (
    GRUCell,
    Linear,
    _check_features,
    _rng,
    add_bias,
    get_activation,
    matmul,
)
from arraygnn.nn.sage_conv import _aggregation, _edge_id_order, module_aggregate

__all__ = ["GatedGraphConv", "ResGatedGraphConv"]

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


class GatedGraphConv(Module):
    """PyG's ``GatedGraphConv``.

    Args:
        out_channels: hidden size (inputs up to this width, zero-padded).
        num_layers: propagation rounds.
        aggr: ``'add'`` (default), ``'mean'``, ``'max'``, ``'min'`` (one SpMM per round), or
            PyG's others of the messages' width (a name such as ``'std'``, an
            :mod:`arraygnn.nn.aggr` object, ``aggr_module``: the ``[E, F]`` messages are
            formed each round; a ``'cat'`` of several widens them past the GRU, as in PyG).
        bias: GRU biases.

    Call as ``conv(x, edge_index, edge_weight=None)`` (or ``conv(graph, feat)``).
    Names (PyG): ``weight`` ``(num_layers, out, out)``, ``rnn.weight_ih`` / ``weight_hh`` /
    ``bias_ih`` / ``bias_hh`` (a ``torch.nn.GRUCell``).
    """

    _param_names = ("weight",)
    _child_names = ("rnn", "aggr_module")

    def __init__(
        self,
        out_channels: int,
        num_layers: int,
        aggr: Any = "add",
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "GatedGraphConv"
        self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        self.num_layers = layer_size(layer, "num_layers", num_layers)
        self.aggr_module = _aggregation(aggr, dtype, f"{layer}: aggr", tuple(_AGGRS))
        self.aggr = _AGGRS[aggr] if self.aggr_module is None else aggr
        gen = _rng(rng)
        bound = 1 / np.sqrt(self.out_channels)
        shape = (self.num_layers, self.out_channels, self.out_channels)
        self.weight = gen.uniform(-bound, bound, shape).astype(dtype)
        self.rnn = GRUCell(self.out_channels, self.out_channels, bias, dtype=dtype, rng=gen)

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.nn._graph_input import csr_of
        from arraygnn.ops.slot_order import spmm_slots, to_slot_order

        inp = parse_input("GatedGraphConv", x_or_graph, edge_index_or_feat)
        x = inp.x_src
        check_one_node_set("GatedGraphConv", inp)  # as PyG; a pair would lose x_dst
        _check_features(x, x.shape[-1], "GatedGraphConv input", self.weight)
        width = int(x.shape[-1])
        if width > self.out_channels:
            raise ValueError(
                f"GatedGraphConv: input width {width} is larger than out_channels "
                f"{self.out_channels} (as PyG)"
            )
        xp = get_namespace(x)
        dtype = np.result_type(x.dtype, self.weight.dtype)
        h = xp.zeros((inp.num_src, self.out_channels), dtype=dtype)
        h[:, :width] = x
        check_edge_weight("GatedGraphConv", edge_weight, inp.num_edges)
        if self.aggr_module is not None:  # PyG's other aggregations: [E, F] messages
            order = _edge_id_order(inp, xp)
            for i in range(self.num_layers):
                m = matmul(h, self.weight[i])
                m = module_aggregate(self.aggr_module, m, order, edge_weight, inp.num_dst)
                if m.shape[-1] != self.out_channels:  # PyG's GRUCell fails as well
                    raise ValueError(
                        f"GatedGraphConv: the aggregation gives {m.shape[-1]} features per "
                        f"node, the GRU takes out_channels={self.out_channels} (a list of "
                        "aggregations concatenates them)"
                    )
                h = self.rnn(m, h)
            return h
        csr = csr_of(inp)
        w = to_slot_order(csr, edge_weight)
        for i in range(self.num_layers):
            m = matmul(h, self.weight[i])
            m = spmm_slots(csr, m, w, self.aggr)
            h = self.rnn(m, h)
        return h

    def extra_repr(self) -> str:
        return f"{self.out_channels}, num_layers={self.num_layers}, aggr={self.aggr!r}"


class ResGatedGraphConv(Module):
    """PyG's ``ResGatedGraphConv``.

    Args:
        in_channels: input size, or ``(src, dst)`` sizes.
        out_channels: output size.
        act: the gate (default ``'sigmoid'``; a name or a callable on arrays).
        edge_dim: edge feature size, concatenated to the inputs of the key, query and value
            layers (``None``: no edge features).
        root_weight: add ``lin_skip(x_i)``.
        bias: additive bias.

    Call as ``conv(x, edge_index, edge_attr=None)``, ``conv((x_src, x_dst), edge_index)``
    or ``conv(graph, feat)``. Names (PyG): ``lin_key``, ``lin_query``, ``lin_value``,
    ``lin_skip`` (no bias), ``bias``.
    """

    _param_names = ("bias",)
    _child_names = ("lin_key", "lin_query", "lin_value", "lin_skip")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        act: Any = "sigmoid",
        edge_dim: int | None = None,
        root_weight: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "ResGatedGraphConv"
        if is_size(in_channels):
            self.in_src = self.in_dst = layer_size(layer, "in_channels", in_channels)
        else:
            self.in_src, self.in_dst = _pair(layer, in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        self.act = get_activation(act)
        self.edge_dim = None if edge_dim is None else layer_size(layer, "edge_dim", edge_dim)
        extra = self.edge_dim or 0
        gen = _rng(rng)
        f = self.out_channels
        self.lin_key = Linear(self.in_dst + extra, f, dtype=dtype, rng=gen)
        self.lin_query = Linear(self.in_src + extra, f, dtype=dtype, rng=gen)
        self.lin_value = Linear(self.in_src + extra, f, dtype=dtype, rng=gen)
        self.root_weight = bool(root_weight)
        self.lin_skip = (
            Linear(self.in_dst, f, bias=False, dtype=dtype, rng=gen) if root_weight else None
        )
        self.bias = np.zeros(f, dtype=dtype) if bias else None

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_attr: Any = None) -> Any:
        from arraygnn import ops

        layer = "ResGatedGraphConv"
        inp = parse_input(layer, x_or_graph, edge_index_or_feat)
        _check_features(inp.x_src, self.in_src, f"{layer} source features", self.lin_query.weight)
        x_dst = inp.x_dst
        if x_dst is None:
            raise ValueError(f"{layer}: needs destination features (x[1])")
        _check_features(x_dst, self.in_dst, f"{layer} destination features", self.lin_key.weight)
        f = self.out_channels
        edges = inp.csr if inp.csr is not None else inp.edge_index
        if (edge_attr is None) != (self.edge_dim is None):
            raise ValueError(
                f"{layer}: edge_attr must be given exactly when edge_dim is set "
                f"(edge_dim={self.edge_dim})"
            )
        if self.edge_dim is None:
            k = self.lin_key(x_dst)
            q = self.lin_query(inp.x_src)
            v = self.lin_value(inp.x_src)
            # per-edge, per-feature gates; the gated sum is one SpMM with F heads of width 1
            gates = self.act(ops.sddmm(edges, q, k, op="add", lhs_target="u", rhs_target="v"))
            out = ops.spmm(edges, v[:, :, None], gates, num_dst_nodes=inp.num_dst)[..., 0]
        else:
            ea = check_edge_attr(layer, edge_attr, inp.num_edges, self.edge_dim, inp.x_src)
            # the edge features enter each layer linearly: W [x, e] = W_x x + W_e e
            parts = {}
            for name, lin, x in (
                ("k", self.lin_key, x_dst),
                ("q", self.lin_query, inp.x_src),
                ("v", self.lin_value, inp.x_src),
            ):
                n_in = int(x.shape[-1])
                node = matmul(x, lin.weight[:, :n_in].T)
                edge = matmul(ea, lin.weight[:, n_in:].T)
                if lin.bias is not None:
                    edge = add_bias(edge, lin.bias)
                parts[name] = (node, edge)
            src, dst = inp.src, inp.dst
            k = ops.gather(parts["k"][0], dst) + parts["k"][1]
            q = ops.gather(parts["q"][0], src) + parts["q"][1]
            v = ops.gather(parts["v"][0], src) + parts["v"][1]
            out = ops.scatter(self.act(k + q) * v, dst, inp.num_dst)
        if self.root_weight and self.lin_skip is not None:  # DirGNNConv clears root_weight
            out = out + self.lin_skip(x_dst)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out.reshape(-1, f)

    def extra_repr(self) -> str:
        return f"({self.in_src}, {self.in_dst}), {self.out_channels}"
