"""What ``GATConv`` and ``GATv2Conv`` share: settings, self-loops with edge features,
the output's last steps, and the attention handed back to the caller.

Both layers score each edge, take the softmax over each destination's incoming edges and
aggregate the sources' projected features with those weights (one SpMM); they differ only
in how an edge is scored. The scores, softmax and weights stay in the CSR's slot order
(``arraygnn.ops.slot_order``); :meth:`GraphAttention._finish` turns the attention back
into edge order when the caller asks for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._graph_input import (
    GraphInput,
    check_edge_attr,
    check_zero_in_degree,
    csr_of,
)
from arraygnn.nn._module import Module, is_size, layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, add_bias, get_activation

__all__ = [
    "GraphAttention",
    "leaky_relu_",
    "check_fill_value",
    "check_call_keywords",
]


def leaky_relu_(x: Any, slope: float) -> Any:
    """Leaky ReLU with one temporary, overwriting ``x`` (an array the layer made)."""
    xp = get_namespace(x)
    scaled = x * x.dtype.type(slope)
    if slope <= 1:
        return xp.maximum(x, scaled, out=x)
    return xp.minimum(x, scaled, out=x)


def check_call_keywords(layer: str, edge_attr: Any, both_outputs: bool) -> None:
    """A graph size passed third (PyG's third argument is ``edge_attr``), or both
    attention outputs asked for: a clear error before any work."""
    if (
        isinstance(edge_attr, (tuple, list))
        and len(edge_attr) == 2
        and all(is_size(v) for v in edge_attr)
    ):
        raise TypeError(
            f"{layer}: the third argument is edge_attr (PyG's order); pass the graph "
            "size as size=(num_src, num_dst)"
        )
    if both_outputs:
        raise ValueError(
            f"{layer}: pass return_attention_weights=True (PyG's result) or "
            "get_attention=True (DGL's), not both"
        )


class GraphAttention(Module):
    """Base of the attention layers (not exported). GAT-style subclasses build their
    projections, call :meth:`_setup` and score the edges; the rest is here (other
    attention layers use the edge-feature and destination-row helpers only)."""

    def _setup(
        self,
        heads: int,
        out_feats: int,
        concat: Any,
        negative_slope: float,
        add_self_loops: bool,
        edge_dim: int | None,
        fill_value: Any,
        residual: Any,
        activation: Any,
        allow_zero_in_degree: bool,
    ) -> None:
        """Check and keep the settings both layers have (before the projections)."""
        name = type(self).__name__
        if not isinstance(residual, (bool, np.bool_)) and residual != "identity":
            raise TypeError(f"{name}: residual must be True, False or 'identity', got {residual!r}")
        self.heads = layer_size(name, "heads", heads, minimum=1)
        self.out_feats = layer_size(name, "out_feats", out_feats)
        if concat is not None and not isinstance(concat, (bool, np.bool_)):
            raise TypeError(f"{name}: concat must be True, False or None, got {concat!r}")
        self.concat = concat
        self.negative_slope = float(negative_slope)
        self.add_self_loops = bool(add_self_loops)
        self.activation = get_activation(activation)
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        self.edge_dim = None
        if edge_dim is not None:
            self.edge_dim = layer_size(name, "edge_dim", edge_dim, minimum=1)
        self.fill_value = check_fill_value(name, fill_value, self.edge_dim)
        self.res_identity = residual == "identity"
        self._residual_wanted = bool(residual) and not self.res_identity

    def _set_dropouts(self, dropout: Any, feat_drop: Any = 0.0, attn_drop: Any = 0.0) -> None:
        """PyG's ``dropout`` / DGL's ``feat_drop`` and ``attn_drop``: the identity at
        inference, each checked as ``torch.nn.Dropout(p)`` checks it and kept."""
        name = type(self).__name__
        self.dropout = probability(name, "dropout", dropout)
        self.feat_drop = probability(name, "feat_drop", feat_drop)
        self.attn_drop = probability(name, "attn_drop", attn_drop)

    @property
    def out_size(self) -> int:
        """Output features per node: ``heads * out_feats``, or ``out_feats`` for the mean."""
        return self.out_feats if self.concat is False else self.heads * self.out_feats

    def _setup_output(self, in_dst: int, bias: bool, gen: Any, dtype: Any) -> None:
        """The residual projection (or identity) and the output bias."""
        name = type(self).__name__
        if self.res_identity and in_dst != self.out_size:
            raise ValueError(
                f"{name}: residual='identity' needs in_dst == {self.out_size} output "
                f"features, got {in_dst}"
            )
        self.res = None
        if self._residual_wanted:
            self.res = Linear(in_dst, self.out_size, False, dtype=dtype, rng=gen)
        self.bias = np.zeros(self.out_size, dtype=dtype) if bias else None

    # ---- edges -----------------------------------------------------------------------
    def _check_edge_attr(self, edge_attr: Any, num_edges: int, like: Any) -> Any:
        """``edge_attr`` as ``(E, edge_dim)`` (a 1-D one with ``edge_dim=1`` too), or a clear
        error: given to a layer without ``edge_dim``, missing, or of the wrong shape."""
        name = type(self).__name__
        if self.edge_dim is None:
            if edge_attr is not None:
                raise ValueError(
                    f"{name}: edge_attr was given but this layer has no edge_dim "
                    f"(build it with {name}(..., edge_dim=D) to use edge features"
                    f"{self._edge_attr_hint})"
                )
            return None
        if edge_attr is None:
            raise ValueError(
                f"{name}(edge_dim={self.edge_dim}) needs edge_attr of shape "
                f"({num_edges}, {self.edge_dim}) as its third argument"
            )
        return check_edge_attr(name, edge_attr, num_edges, self.edge_dim, like)

    _edge_attr_hint = ""

    def _edges(self, inp: GraphInput, edge_attr: Any) -> tuple[Any, Any]:
        """The edge_index used for attention (self-loops replaced when requested; loop ids
        are made in an index dtype that holds them, ``int64`` for a too-narrow one) and the
        edge features that go with it (loops filled by ``fill_value``, PyG's rule)."""
        src, dst = inp.src, inp.dst
        if not self.add_self_loops:
            return (src, dst), edge_attr
        xp = get_namespace(src)
        num_loops = min(inp.num_src, inp.num_dst)
        index_dtype = ids_dtype_holding(src.dtype, num_loops - 1)
        if src.dtype != index_dtype or dst.dtype != index_dtype:
            src, dst = src.astype(index_dtype), dst.astype(index_dtype)
        loops = xp.arange(num_loops, dtype=index_dtype)
        is_loop = src == dst
        if bool(is_loop.any()):
            keep = ~is_loop
            src, dst = src[keep], dst[keep]
            if edge_attr is not None:
                edge_attr = edge_attr[keep]
        if edge_attr is not None:
            edge_attr = xp.concatenate([edge_attr, self._loop_attr(edge_attr, dst, inp)])
        return (xp.concatenate([src, loops]), xp.concatenate([dst, loops])), edge_attr

    def _loop_attr(self, edge_attr: Any, dst: Any, inp: GraphInput) -> Any:
        """The self-loops' edge features ``(min(N_src, N_dst), D)`` (PyG's compute_loop_attr;
        a reduction runs over every destination, then the loops' rows are kept)."""
        from arraygnn import ops

        xp = get_namespace(edge_attr)
        num_loops = min(inp.num_src, inp.num_dst)
        fill = self.fill_value
        if isinstance(fill, str):
            reduce = {"add": "sum", "mul": "prod"}.get(fill, fill)
            return ops.scatter(edge_attr, dst, inp.num_dst, reduce)[:num_loops]
        value = xp.asarray(fill, dtype=edge_attr.dtype)
        return xp.broadcast_to(value, (num_loops,) + tuple(edge_attr.shape[1:])).copy()

    def _destination_input(self, inp: GraphInput, second: Any) -> tuple[Any, bool]:
        """The destination rows of the input features, and whether they are the first
        source rows (DGL's block given one feature array)."""
        block_feat = (
            inp.graph is not None
            and getattr(inp.graph, "is_block", False)
            and not isinstance(second, (tuple, list))
        )
        return (inp.x_src[: inp.num_dst] if block_feat else inp.x_dst), block_feat

    def _attention_graph(self, inp: GraphInput, edge_attr: Any) -> tuple[Any, Any, Any]:
        """``(edge_index, edge_attr, csr)`` of the edges attended over (self-loops replaced
        when the layer adds them; a Graph's cached CSR otherwise), zero in-degree checked."""
        from arraygnn import ops

        edge_index, edge_attr = self._edges(inp, edge_attr)
        if self.add_self_loops:
            csr = ops.to_csr(edge_index, inp.num_src, inp.num_dst)
        else:
            csr = csr_of(inp)
        if not self.allow_zero_in_degree:
            check_zero_in_degree(type(self).__name__, csr.in_degrees())
        return edge_index, edge_attr, csr

    # ---- output ----------------------------------------------------------------------
    def _finish(
        self,
        out: Any,
        inp: GraphInput,
        x_dst_in: Any,
        csr: Any,
        alpha: Any,
        edge_index: tuple[Any, Any],
        return_attention_weights: bool,
        get_attention: bool,
    ) -> Any:
        """``[N_dst, H, F]`` aggregate -> heads concatenated / averaged / kept, residual,
        bias, activation; with the attention (edge order) when asked for."""
        H, F = self.heads, self.out_feats
        if self.concat is True:
            out = out.reshape(inp.num_dst, H * F)
        elif self.concat is False:
            out = out.mean(axis=1)
        if self.res is not None or self.res_identity:
            out = out + self._residual(x_dst_in, inp.num_dst, out.shape)
        if self.bias is not None:
            out = add_bias(out, self.bias.reshape(H, F) if self.concat is None else self.bias)
        if self.activation is not None:
            out = self.activation(out)
        if not (return_attention_weights or get_attention):
            return out
        from arraygnn.ops.slot_order import to_edge_order

        xp = get_namespace(alpha)
        alpha = to_edge_order(csr, alpha)
        if get_attention:
            return out, alpha[:, :, None]
        return out, (xp.stack(edge_index), alpha)

    def _residual(self, x_dst: Any, num_dst: int, shape: tuple[int, ...]) -> Any:
        """The residual term, shaped like the output."""
        name = type(self).__name__
        if x_dst is None:
            raise ValueError(f"{name}(residual=True) needs destination features; got (x_src, None)")
        _check_features(x_dst, self.in_dst, f"{name} destination features")
        if x_dst.shape[0] != num_dst:
            raise ValueError(
                f"{name}(residual=True): {x_dst.shape[0]} destination feature rows for "
                f"{num_dst} destination nodes"
            )
        if self.res is not None:
            return self.res(x_dst).reshape(shape)
        if x_dst.shape[1] != int(np.prod(shape[1:])):
            raise ValueError(
                f"{name}: an identity residual needs {int(np.prod(shape[1:]))} destination "
                f"features, got {x_dst.shape[1]}"
            )
        return x_dst.reshape(shape)

    def _attention_repr(self) -> str:
        sizes = f"({self.in_src}, {self.in_dst}), {self.out_feats}"
        extra = "" if self.edge_dim is None else f", edge_dim={self.edge_dim}"
        if self.res is not None or self.res_identity:
            extra += ", residual=True"
        return f"{sizes}, heads={self.heads}, concat={self.concat}{extra}"


_FILL_REDUCES = ("add", "sum", "mean", "max", "min", "mul")


def check_fill_value(layer: str, fill_value: Any, edge_dim: int | None) -> Any:
    """PyG's ``fill_value``: a reduction name, a number, or ``edge_dim`` values."""
    if isinstance(fill_value, str):
        if fill_value not in _FILL_REDUCES:
            raise ValueError(
                f"{layer}: fill_value must be one of {_FILL_REDUCES}, a number or an array, "
                f"got {fill_value!r}"
            )
        return fill_value
    if isinstance(fill_value, (bool, np.bool_)) or fill_value is None:
        raise TypeError(
            f"{layer}: fill_value must be a reduction name, number or array, got {fill_value!r}"
        )
    if isinstance(fill_value, (int, float, np.integer, np.floating)):
        return float(fill_value)
    if is_array(fill_value) or isinstance(fill_value, (list, tuple)):
        value = np.asarray(fill_value.get() if hasattr(fill_value, "get") else fill_value)
        if value.dtype.kind not in "iuf" or (
            edge_dim is not None and value.size not in (1, edge_dim)
        ):
            raise ValueError(
                f"{layer}: an array fill_value must hold 1 or edge_dim={edge_dim} numbers, "
                f"got {value.shape} {value.dtype}"
            )
        return value.astype(np.float64).reshape(-1) if value.ndim else float(value)
    raise TypeError(
        f"{layer}: fill_value must be a reduction name, number or array, got {fill_value!r}"
    )
