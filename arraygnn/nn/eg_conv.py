"""Efficient graph convolution (Tailor et al., EGC-M): PyG's ``EGConv``.

Each node projects its features onto ``B`` shared bases (``bases_lin``: ``[N, B * C]``,
``C = out_channels / heads``), the bases are aggregated over each node's neighbours by
every requested aggregator (``sum``, ``mean``, ``symnorm``, ``max``, ``min``, ``var``,
``std``), and each node mixes the aggregated bases with its own per-head weights
(``comb_lin``: ``[N, H, A * B]``) into ``[N, H, C]``.

The path that runs: the graph (with the remaining self-loops when ``add_self_loops``; the
GCN-normalised weights for ``symnorm``, :func:`arraygnn.nn.graph_conv.normalized_slots`) is
one CSR, built once (kept with ``cached=True``); each aggregator is one fused
``spmm_slots`` over it (``var`` / ``std``: the means of ``h`` and ``h * h``), so no
``[E, B * C]`` message array is formed. Then one batched ``[H, A * B] x [A * B, C]`` product
per node.

>>> import numpy as np
>>> conv = EGConv(4, 8, aggregators=["sum", "std"], num_heads=2, num_bases=3, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import csr_of
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias
from arraygnn.nn.super_gat_conv import one_node_set_input

__all__ = ["EGConv"]

_AGGREGATORS = ("sum", "mean", "symnorm", "min", "max", "var", "std")


class EGConv(Module):
    r"""PyG's ``EGConv`` (efficient graph convolution with multiple aggregators).

    .. math::
        x_i' = \Big\Vert_{h=1}^{H} \sum_{\oplus \in \mathcal{A}} \sum_{b=1}^{B}
            w_{i,h,\oplus,b} \bigoplus_{j \in N(i) \cup \{i\}} W_b x_j + \text{bias}

    Args:
        in_channels: input size.
        out_channels: output size (divisible by ``num_heads``).
        aggregators: list of ``'sum'``, ``'mean'``, ``'symnorm'`` (GCN-normalised sum),
            ``'max'``, ``'min'``, ``'var'``, ``'std'`` (default ``['symnorm']``). ``std`` is
            ``sqrt(max(var, 1e-5))``, as PyG's edge-list path.
        num_heads: heads ``H`` (per-head combinations of the bases).
        num_bases: bases ``B``.
        cached: keep the graph (with loops and ``symnorm`` weights) from the first call;
            as PyG, nothing is kept when neither ``symnorm`` nor ``add_self_loops`` is used.
        add_self_loops: drop existing self-loops and add one per node (default ``True``).
            Without ``symnorm`` PyG adds them only to the nodes ``0 .. max(edge_index)``
            (it infers the node count from ``edge_index``; none on an empty graph): the same
            here, for PyG's numbers.
        bias: additive bias.

    Call as ``conv(x, edge_index)`` or ``conv(graph, feat)`` (homogeneous, as PyG). A node
    without incoming edges gets 0 from every aggregator but ``std`` (``sqrt(1e-5)``, PyG's
    rule).

    Shapes:
        - input: ``(N, in_channels)``, edge_index ``(2, E)``
        - output: ``(N, out_channels)``

    Parameter names (PyG): ``bases_lin.weight`` ``(out / H * B, in)``, ``comb_lin.weight``
    ``(H * B * A, in)`` and ``comb_lin.bias``, ``bias``.
    """

    _param_names = ("bias",)
    _child_names = ("bases_lin", "comb_lin")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        aggregators: list[str] | None = None,
        num_heads: int = 8,
        num_bases: int = 4,
        cached: bool = False,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "EGConv"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.num_heads = layer_size(name, "num_heads", num_heads, minimum=1)
        self.num_bases = layer_size(name, "num_bases", num_bases, minimum=1)
        if self.out_channels % self.num_heads:
            raise ValueError(
                f"{name}: out_channels ({self.out_channels}) must be divisible by num_heads "
                f"({self.num_heads})"
            )
        aggregators = list(aggregators) if aggregators else ["symnorm"]
        for a in aggregators:
            if a not in _AGGREGATORS:
                raise ValueError(f"{name}: aggregators must be from {_AGGREGATORS}, got {a!r}")
        self.aggregators = aggregators
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        gen = _rng(rng)
        per_head = self.out_channels // self.num_heads
        self.bases_lin = Linear(in_channels, per_head * self.num_bases, False, dtype=dtype, rng=gen)
        self.comb_lin = Linear(
            in_channels, self.num_heads * self.num_bases * len(aggregators), dtype=dtype, rng=gen
        )
        self.bias = np.zeros(self.out_channels, dtype=dtype) if bias else None
        self._cache: tuple[Any, Any] | None = None

    def clear_cache(self) -> None:
        """Forget the cached graph."""
        self._cache = None

    def _graph(self, inp: Any, dtype: Any) -> tuple[Any, Any]:
        """``(csr, symnorm weights in slot order or None)``, PyG's graph: remaining
        self-loops when ``add_self_loops``, the GCN weights when ``symnorm`` is used."""
        from arraygnn import ops
        from arraygnn.nn.graph_conv import normalized_slots
        from arraygnn.utils.loops import remaining_self_loops_pairs

        if self.cached and self._cache is not None:
            return self._cache
        N = inp.num_dst
        if "symnorm" in self.aggregators:
            graph = normalized_slots(inp.edge_index, None, N, False, self.add_self_loops, dtype)
        elif self.add_self_loops:
            # PyG calls add_remaining_self_loops without num_nodes here: loops go to the
            # nodes up to the largest id in edge_index only (none on an empty graph)
            xp = get_namespace(inp.src)
            ones = xp.ones(inp.num_edges, dtype=dtype)
            looped = 0
            if inp.num_edges:
                looped = int(xp.maximum(inp.src.max(), inp.dst.max())) + 1
            src, dst, _ = remaining_self_loops_pairs(inp.src, inp.dst, ones, looped, 1.0)
            graph = (ops.to_csr((src, dst), N, N), None)
        else:  # PyG keeps nothing here: every call uses the edges it is given
            return csr_of(inp), None
        if self.cached:
            self._cache = graph
        return graph

    def __call__(self, graph_or_x: Any, feat_or_edge_index: Any) -> Any:
        """The layer's output; see the class docstring."""
        from arraygnn.ops.slot_order import spmm_slots

        name = "EGConv"
        inp = one_node_set_input(name, graph_or_x, feat_or_edge_index)
        _check_features(inp.x_src, self.in_channels, f"{name} node features", self.bases_lin.weight)
        xp = get_namespace(inp.x_src)
        bases = self.bases_lin(inp.x_src)  # [N, B * C]
        weightings = self.comb_lin(inp.x_src)  # [N, H * B * A]
        csr, norm = self._graph(inp, bases.dtype)
        outs = []
        means = None
        for aggr in self.aggregators:
            if aggr == "symnorm":
                outs.append(spmm_slots(csr, bases, norm.astype(bases.dtype, copy=False)))
            elif aggr in ("var", "std"):
                if means is None:  # the means of h and h * h in one SpMM
                    both = xp.concatenate([bases, bases * bases], axis=1)
                    means = spmm_slots(csr, both, reduce="mean")
                width = bases.shape[1]
                mean, mean_sq = means[:, :width], means[:, width:]
                out = mean_sq - mean * mean
                if aggr == "std":
                    out = xp.sqrt(xp.maximum(out, out.dtype.type(1e-5)))
                outs.append(out)
            else:
                outs.append(spmm_slots(csr, bases, reduce=aggr))
        N, H, A = inp.num_dst, self.num_heads, len(self.aggregators)
        C = self.out_channels // H
        aggregated = xp.stack(outs, axis=1).reshape(N, A * self.num_bases, C)  # [N, A*B, C]
        weightings = weightings.reshape(N, H, self.num_bases * A)
        out = xp.matmul(weightings, aggregated).reshape(N, self.out_channels)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, aggregators={self.aggregators}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> EGConv:
    """PyG ``EGConv`` -> :class:`EGConv`, weights copied (``flow='source_to_target'``)."""
    from arraygnn.nn.weights import _lazy_sizes, _load

    flow = getattr(module, "flow", "source_to_target")
    if flow != "source_to_target":
        raise ValueError(f"from_pyg: EGConv(flow={flow!r}) is not supported")
    layer = EGConv(
        _lazy_sizes("EGConv", module.in_channels, module.bases_lin),
        module.out_channels,
        list(module.aggregators),
        module.num_heads,
        module.num_bases,
        module.cached,
        module.add_self_loops,
        module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
