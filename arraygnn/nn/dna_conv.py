"""PyG's ``DNAConv`` (Fey, "Just Jump: Dynamic Neighborhood Aggregation in Graph Neural
Networks"): each node attends over all earlier layers' representations of its neighbours.

Input ``x`` ``[N, L, C]`` (each node's ``L`` layer outputs). For an edge ``j -> i`` and head
``h``: the query is node ``i``'s last layer ``q_i = lin_q(x_i[L-1])``, the keys and values
are ``lin_k(x_j)`` / ``lin_v(x_j)`` over the ``L`` layers; ``a = restricted_softmax(q_i . k_j
/ sqrt(C / heads))`` over the layers (``exp(s - m) / (sum exp(s - m) + exp(-m))``, ``m =
max(max s, 0)``), and node ``i`` receives ``sum_j w_ji sum_l a_l v_jl`` with ``w`` the GCN
normalisation (self-loops added) or the given ``edge_weight``. ``lin_*`` are grouped
linears (``groups`` blocks), weights ``[groups, C / groups, C / groups]``.

No per-edge ``[E, L, C]`` array is formed (PyG builds three): the keys and values are
computed once per node, the scores ``[E, L, heads]`` come from one SDDMM, and the weighted
values are summed into the targets by one SpMM over ``L * heads`` channels; the caller's
graph is sorted once into a CSR.

>>> import numpy as np
>>> from arraygnn.nn import DNAConv
>>> conv = DNAConv(4, heads=2, groups=2, rng=0)
>>> conv(np.ones((3, 2, 4), np.float32), np.array([[0, 1], [1, 2]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._graph_input import parse_input
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import _rng, add_bias, matmul

__all__ = ["DNAConv", "from_pyg_module"]

_WHERE = "DNAConv"


class _GroupedLinear(Module):
    """PyG's grouped ``Linear`` of ``dna_conv``: ``weight`` ``[groups, in / groups,
    out / groups]``, ``bias`` ``[out]``; the input's last dimension is split into ``groups``
    blocks, each multiplied by its own weight."""

    _param_names = ("weight", "bias")

    def __init__(self, channels: int, groups: int, bias: bool, dtype: Any, gen: Any) -> None:
        self.channels, self.groups = channels, groups
        width = channels // groups
        bound = 1 / np.sqrt(width)  # PyG: kaiming_uniform(fan=in / groups, a=sqrt(5))
        self.weight = gen.uniform(-bound, bound, (groups, width, width)).astype(dtype)
        self.bias = gen.uniform(-bound, bound, channels).astype(dtype) if bias else None

    def __call__(self, x: Any) -> Any:
        g = self.groups
        if g == 1:
            out = matmul(x.reshape(-1, self.channels), self.weight[0])
        else:
            xp = get_namespace(x)
            blocks = x.reshape(-1, g, self.channels // g).transpose(1, 0, 2)  # [g, R, w]
            out = xp.matmul(blocks, self.weight).transpose(1, 0, 2).reshape(-1, self.channels)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out.reshape(x.shape[:-1] + (self.channels,))


class _MultiHead(Module):
    """PyG's ``MultiHead`` of ``dna_conv``: ``lin_q``, ``lin_k``, ``lin_v``."""

    _child_names = ("lin_q", "lin_k", "lin_v")

    def __init__(self, channels: int, groups: int, bias: bool, dtype: Any, gen: Any) -> None:
        self.lin_q = _GroupedLinear(channels, groups, bias, dtype, gen)
        self.lin_k = _GroupedLinear(channels, groups, bias, dtype, gen)
        self.lin_v = _GroupedLinear(channels, groups, bias, dtype, gen)


class DNAConv(Module):
    """PyG's ``DNAConv(channels, heads=1, groups=1, dropout=0.0, cached=False,
    normalize=True, add_self_loops=True, bias=True)``.

    Call as ``conv(x, edge_index, edge_weight=None)`` (or DGL's ``conv(graph, x)``); without
    ``normalize`` an ``edge_weight`` is required (PyG multiplies each message by it).
    ``cached`` keeps the normalised graph of the first call (PyG's, with ``normalize``
    only; ``clear_cache()`` forgets it; ``x`` of another node count is a ``ValueError``).
    ``dropout`` is kept for the record (inference).

    Names (PyG): ``multi_head.lin_q.weight`` ``(groups, C / groups, C / groups)``,
    ``multi_head.lin_q.bias`` ``(C,)``, likewise ``lin_k`` / ``lin_v``.

    Shapes:
        - input: ``x`` ``(N, L, C)``, ``edge_index`` ``(2, E)``, ``edge_weight`` ``(E,)``
        - output: ``(N, C)``
    """

    _child_names = ("multi_head",)

    def __init__(
        self,
        channels: int,
        heads: int = 1,
        groups: int = 1,
        dropout: float = 0.0,
        cached: bool = False,
        normalize: bool = True,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        c = self.channels = layer_size(_WHERE, "channels", channels, minimum=1)
        self.heads = layer_size(_WHERE, "heads", heads, minimum=1)
        self.groups = layer_size(_WHERE, "groups", groups, minimum=1)
        if c % self.heads or c % self.groups:
            raise ValueError(
                f"{_WHERE}: channels={c} must be divisible by heads={self.heads} and "
                f"groups={self.groups}"
            )
        if max(self.groups, self.heads) % min(self.groups, self.heads):
            raise ValueError(
                f"{_WHERE}: heads={self.heads} and groups={self.groups} must divide one another"
            )
        self.dropout = probability("DNAConv", "dropout", dropout)
        self.cached = bool(cached)
        self.normalize = bool(normalize)
        self.add_self_loops = bool(add_self_loops)
        self.bias = bool(bias)
        self.multi_head = _MultiHead(c, self.groups, self.bias, dtype, _rng(rng))
        self._cache: tuple[Any, Any] | None = None

    def clear_cache(self) -> None:
        """Forget the cached normalised graph."""
        self._cache = None

    def _clear_cache(self) -> None:
        self._cache = None

    def _graph(self, inp: Any, edge_weight: Any, dtype: Any) -> tuple[Any, Any]:
        from arraygnn.nn.graph_conv import gcn_graph

        if self.cached and self.normalize and self._cache is not None:
            kept = self._cache[0].num_dst_nodes
            if kept != inp.num_dst:
                raise ValueError(
                    f"{_WHERE}: cached=True keeps the first call's graph ({kept} nodes), got x "
                    f"with {inp.num_dst} nodes; call clear_cache() for another graph"
                )
            return self._cache
        if not self.normalize and edge_weight is None:
            raise ValueError(
                f"{_WHERE}: normalize=False needs edge_weight (each message is scaled by it, "
                "as PyG's)"
            )
        if self.normalize:
            graph = gcn_graph(_WHERE, inp, edge_weight, True, False, self.add_self_loops, dtype)
        else:
            if is_array(edge_weight):  # PyG scales by any numeric weight; others refused below
                edge_weight = edge_weight.astype(dtype, copy=False)
            graph = gcn_graph(_WHERE, inp, edge_weight, False, False, False, dtype)
        if self.cached and self.normalize:  # PyG caches the normalised graph only
            self._cache = graph
        return graph

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import sddmm_slots, spmm_slots

        inp = parse_input(_WHERE, x_or_graph, edge_index_or_feat)
        x = inp.x_src
        if not is_array(x):
            raise TypeError(f"{_WHERE}: x must be a NumPy or CuPy array{torch_hint(x)}")
        if x.ndim != 3 or x.shape[-1] != self.channels or x.shape[1] == 0:
            raise ValueError(
                f"{_WHERE}: x must be [num_nodes, num_layers, {self.channels}] (num_layers >= "
                f"1), got shape {tuple(x.shape)}"
            )
        if x.dtype.kind != "f":
            raise TypeError(f"{_WHERE}: x must be floating point, got dtype {x.dtype}")
        if not inp.homogeneous and inp.x_dst is not x:
            raise ValueError(f"{_WHERE}: bipartite inputs are not supported (as PyG)")
        xp = get_namespace(x)
        n, layers, c = x.shape
        h = self.heads
        d = c // h
        csr, w = self._graph(inp, edge_weight, x.dtype)
        mh = self.multi_head
        q = mh.lin_q(x[:, -1]).reshape(n, 1, h, d)  # the targets' queries
        k = mh.lin_k(x).reshape(n, layers, h, d)
        v = mh.lin_v(x).reshape(n, layers * h, d)
        dtype = q.dtype
        scores = sddmm_slots(csr, k, q, "dot", "u", "v")[..., 0]  # [E, L, H] in slot order
        scores *= dtype.type(1.0 / np.sqrt(d))
        top = xp.maximum(scores.max(axis=1, keepdims=True), dtype.type(0))  # restricted
        scores -= top
        attn = xp.exp(scores, out=scores)
        attn /= attn.sum(axis=1, keepdims=True) + xp.exp(-top)
        if w is not None:
            attn *= w.astype(dtype, copy=False).reshape(-1, 1, 1)
        out = spmm_slots(csr, v, attn.reshape(attn.shape[0], layers * h))  # [N, L * H, d]
        return out.reshape(csr.num_dst_nodes, layers, c).sum(axis=1)

    def extra_repr(self) -> str:
        return f"{self.channels}, heads={self.heads}, groups={self.groups}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> DNAConv:
    """PyG's ``DNAConv`` -> ours, weights loaded."""
    from arraygnn.nn.weights import _pyg_aggr

    _pyg_aggr(module, "DNAConv", ("sum",))
    mh = module.multi_head
    layer = DNAConv(
        mh.in_channels,
        mh.heads,
        mh.groups,
        mh.dropout,
        module.cached,
        module.normalize,
        module.add_self_loops,
        module.bias,
        dtype=dtype,
    )
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
