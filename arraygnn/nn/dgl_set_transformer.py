"""DGL's Set Transformer readouts (``dgl.nn.SetTransformerEncoder`` /
``SetTransformerDecoder``, Lee et al.) over the node sets of a batched graph, with DGL's
blocks: multi-head attention with post-norm residuals (``norm_in(x + attn)``,
``norm_inter(x + ffn(x))``), SAB, ISAB (inducing points) and PMA (seed vectors).

These are not PyG's blocks (:mod:`arraygnn.nn.aggr.set_transformer`): the projections have
no bias, ``num_heads * d_head`` need not be ``d_model``, the feed-forward network is
``Linear -> relu -> Linear`` inside the second norm and PMA feeds ``ffn(x)`` to the keys,
so only the dense core (:func:`arraygnn.nn.biased_mha.biased_attention`) is shared.

How it runs: each graph's nodes are padded into ``[B, L, ...]`` (lengths from
``graph.batch_num_nodes()``), the attention is batched over ``[B, H, L, S]`` with the
padded keys masked, and the real rows are packed back.

RULE: a graph without nodes has no keys: its queries get zero attention (DGL's
      ``masked_fill`` after the softmax), so the decoder still gives a row for it.
RULE: inference only: ``dropouth`` / ``dropouta`` are kept for the record, never applied.

>>> import numpy as np
>>> from arraygnn.graph import batch, graph
>>> g = batch([graph((np.array([0]), np.array([1]))), graph((np.array([0]), np.array([2])))])
>>> x = np.ones((5, 4), np.float32)
>>> SetTransformerEncoder(4, 2, 3, 8, rng=0)(g, x).shape
(5, 4)
>>> SetTransformerDecoder(4, 2, 3, 8, n_layers=1, k=3, rng=0)(g, x).shape
(2, 12)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_floats, identity
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.biased_mha import biased_attention
from arraygnn.nn.linear import LayerNorm, Linear, Sequential, _ModuleList, _rng, glorot

__all__ = ["SetTransformerEncoder", "SetTransformerDecoder", "from_dgl_module"]


def _ffn(d_model: int, d_ff: int, dtype: Any, gen: Any) -> Sequential:
    """DGL's ``Sequential(Linear, ReLU, Dropout, Linear)``."""
    return Sequential(
        Linear(d_model, d_ff, dtype=dtype, rng=gen),
        "relu",
        identity,
        Linear(d_ff, d_model, dtype=dtype, rng=gen),
    )


class _Segments:
    """Packed rows <-> padded ``[B, L]`` slots for per-graph lengths."""

    def __init__(self, xp: Any, lengths: Any) -> None:
        lengths = xp.asarray(lengths, dtype=np.int64)
        self.lengths = lengths
        self.batch = int(lengths.shape[0])
        self.width = int(lengths.max()) if self.batch else 0
        starts = xp.cumsum(lengths) - lengths
        graph = repeat_counts(xp, xp.arange(self.batch), lengths)
        self.flat = graph * self.width + xp.arange(graph.shape[0]) - starts[graph]
        self.key_blocked = xp.arange(self.width)[None, :] >= lengths[:, None]  # [B, L]

    def pad(self, x: Any) -> Any:
        xp = get_namespace(x)
        out = xp.zeros((self.batch * self.width,) + x.shape[1:], dtype=x.dtype)
        out[self.flat] = x
        return out.reshape((self.batch, self.width) + x.shape[1:])

    def pack(self, x: Any) -> Any:
        return x.reshape((self.batch * self.width,) + x.shape[2:])[self.flat]


class _MultiHeadAttention(DGLModule):
    """DGL's ``glob.MultiHeadAttention(d_model, num_heads, d_head, d_ff)``."""

    _child_names = ("proj_q", "proj_k", "proj_v", "proj_o", "ffn", "norm_in", "norm_inter")

    def __init__(self, d_model: int, num_heads: int, d_head: int, d_ff: int, dtype: Any, gen: Any):
        self.num_heads, self.d_head = num_heads, d_head
        inner = num_heads * d_head
        self.proj_q = Linear(d_model, inner, False, dtype=dtype, rng=gen)
        self.proj_k = Linear(d_model, inner, False, dtype=dtype, rng=gen)
        self.proj_v = Linear(d_model, inner, False, dtype=dtype, rng=gen)
        self.proj_o = Linear(inner, d_model, False, dtype=dtype, rng=gen)
        self.ffn = _ffn(d_model, d_ff, dtype, gen)
        self.norm_in = LayerNorm(d_model, dtype=dtype)
        self.norm_inter = LayerNorm(d_model, dtype=dtype)

    def __call__(self, x: Any, mem: Any, seg_x: _Segments, seg_mem: _Segments) -> Any:
        xp = get_namespace(x, mem)
        h, d = self.num_heads, self.d_head
        b = seg_x.batch

        def heads(lin: Linear, rows: Any, seg: _Segments) -> Any:
            return seg.pad(lin(rows).reshape(-1, h, d)).transpose(0, 2, 1, 3)  # [B, H, L, d]

        q = heads(self.proj_q, x, seg_x)
        q /= x.dtype.type(np.sqrt(d))
        blocked = xp.broadcast_to(seg_mem.key_blocked[:, None, :], (b, seg_x.width, seg_mem.width))
        with np.errstate(invalid="ignore"):
            out = biased_attention(
                q,
                heads(self.proj_k, mem, seg_mem),
                heads(self.proj_v, mem, seg_mem),
                blocked=blocked,
            )
        out[seg_mem.lengths == 0] = 0  # no key: zero attention (DGL's masked_fill)
        out = self.proj_o(out.transpose(0, 2, 1, 3).reshape(b, seg_x.width, h * d))
        x = self.norm_in(x + seg_x.pack(out))
        return self.norm_inter(x + self.ffn(x))


class _SAB(DGLModule):
    _child_names = ("mha",)

    def __init__(self, *args: Any) -> None:
        self.mha = _MultiHeadAttention(*args)

    def __call__(self, feat: Any, seg: _Segments) -> Any:
        return self.mha(feat, feat, seg, seg)


class _ISAB(DGLModule):
    _param_names = ("inducing_points",)
    _child_names = ("mha",)

    def __init__(self, m: int, d_model: int, *args: Any) -> None:
        gen = args[-1]
        self.m = m
        self.inducing_points = glorot((m, d_model), gen, args[-2])
        self.mha = _ModuleList([_MultiHeadAttention(d_model, *args) for _ in range(2)])

    def __call__(self, feat: Any, seg: _Segments) -> Any:
        xp = get_namespace(feat)
        seg_m = _Segments(xp, xp.full(seg.batch, self.m, dtype=np.int64))
        query = xp.tile(self.inducing_points.astype(feat.dtype, copy=False), (seg.batch, 1))
        memory = self.mha[0](query, feat, seg_m, seg)
        return self.mha[1](feat, memory, seg, seg_m)


class _PMA(DGLModule):
    _param_names = ("seed_vectors",)
    _child_names = ("mha", "ffn")

    def __init__(
        self, k: int, d_model: int, num_heads: int, d_head: int, d_ff: int, dtype: Any, gen: Any
    ):
        self.k = k
        self.seed_vectors = glorot((k, d_model), gen, dtype)
        self.mha = _MultiHeadAttention(d_model, num_heads, d_head, d_ff, dtype, gen)
        self.ffn = _ffn(d_model, d_ff, dtype, gen)

    def __call__(self, feat: Any, seg: _Segments) -> Any:
        xp = get_namespace(feat)
        seg_k = _Segments(xp, xp.full(seg.batch, self.k, dtype=np.int64))
        query = xp.tile(self.seed_vectors.astype(feat.dtype, copy=False), (seg.batch, 1))
        return self.mha(query, self.ffn(feat), seg_k, seg)


def _segments(layer: str, graph: Any, feat: Any, d_model: int, like: Any) -> tuple[Any, _Segments]:
    check_floats(layer, "feat", feat, (None, d_model))
    if not hasattr(graph, "batch_num_nodes"):
        raise TypeError(
            f"{layer}: graph must be a (batched) graph with batch_num_nodes(), got "
            f"{type(graph).__name__}"
        )
    xp = get_namespace(feat, like)
    seg = _Segments(xp, graph.batch_num_nodes())
    if int(seg.lengths.sum()) != feat.shape[0]:
        raise ValueError(
            f"{layer}: feat has {feat.shape[0]} rows but the graph has "
            f"{int(seg.lengths.sum())} nodes"
        )
    return feat.astype(np.result_type(feat.dtype, like.dtype), copy=False), seg


class SetTransformerEncoder(DGLModule):
    """DGL's ``SetTransformerEncoder(d_model, n_heads, d_head, d_ff, n_layers=1,
    block_type='sab', m=None, dropouth=0.0, dropouta=0.0)``: ``enc(graph, feat)`` with
    ``feat`` ``(N, d_model)`` gives node-wise ``(N, d_model)``.

    Names (DGL): ``layers.{i}.mha.{proj_q,proj_k,proj_v,proj_o}.weight``,
    ``layers.{i}.mha.ffn.{0,3}.*``, ``layers.{i}.mha.norm_in.*``, ``...norm_inter.*``;
    ISAB: ``layers.{i}.inducing_points``, ``layers.{i}.mha.{0,1}.*``.
    """

    _child_names = ("layers",)

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_head: int,
        d_ff: int,
        n_layers: int = 1,
        block_type: str = "sab",
        m: int | None = None,
        dropouth: float = 0.0,
        dropouta: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        w = "SetTransformerEncoder"
        self.d_model = layer_size(w, "d_model", d_model, minimum=1)
        sizes = (
            self.d_model,
            layer_size(w, "n_heads", n_heads, minimum=1),
            layer_size(w, "d_head", d_head, minimum=1),
            layer_size(w, "d_ff", d_ff, minimum=1),
        )
        self.n_layers = layer_size(w, "n_layers", n_layers)
        if block_type not in ("sab", "isab"):
            raise ValueError(f"{w}: block_type must be 'sab' or 'isab', got {block_type!r}")
        if block_type == "isab" and m is None:
            raise ValueError(f"{w}: block_type='isab' needs m (the number of inducing points)")
        self.block_type = block_type
        self.m = None if m is None else layer_size(w, "m", m, minimum=1)
        self.dropouth = probability(w, "dropouth", dropouth)
        self.dropouta = probability(w, "dropouta", dropouta)
        gen = _rng(rng)
        blocks = [
            _SAB(*sizes, dtype, gen) if block_type == "sab" else _ISAB(self.m, *sizes, dtype, gen)
            for _ in range(self.n_layers)
        ]
        self.layers = _ModuleList(blocks)

    def __call__(self, graph: Any, feat: Any) -> Any:
        feat, seg = _segments(
            "SetTransformerEncoder", graph, feat, self.d_model, _dtype_like(self, feat)
        )
        for layer in self.layers:
            feat = layer(feat, seg)
        return feat

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_layers={self.n_layers}, block_type={self.block_type!r}"


def _dtype_like(layer: DGLModule, feat: Any) -> Any:
    arrays = [v for _, v in layer._named_arrays()]
    return arrays[0] if arrays else feat


class SetTransformerDecoder(DGLModule):
    """DGL's ``SetTransformerDecoder(d_model, num_heads, d_head, d_ff, n_layers, k,
    dropouth=0.0, dropouta=0.0)``: ``dec(graph, feat)`` gives ``(num_graphs, k *
    d_model)`` (PMA with ``k`` seeds, then ``n_layers`` SABs over the seeds).

    Names (DGL): ``pma.seed_vectors``, ``pma.mha.*``, ``pma.ffn.{0,3}.*``,
    ``layers.{i}.mha.*``.
    """

    _child_names = ("pma", "layers")

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_head: int,
        d_ff: int,
        n_layers: int,
        k: int,
        dropouth: float = 0.0,
        dropouta: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        w = "SetTransformerDecoder"
        self.d_model = layer_size(w, "d_model", d_model, minimum=1)
        sizes = (
            self.d_model,
            layer_size(w, "num_heads", num_heads, minimum=1),
            layer_size(w, "d_head", d_head, minimum=1),
            layer_size(w, "d_ff", d_ff, minimum=1),
        )
        self.n_layers = layer_size(w, "n_layers", n_layers)
        self.k = layer_size(w, "k", k, minimum=1)
        self.dropouth = probability(w, "dropouth", dropouth)
        self.dropouta = probability(w, "dropouta", dropouta)
        gen = _rng(rng)
        self.pma = _PMA(self.k, *sizes, dtype, gen)
        self.layers = _ModuleList([_SAB(*sizes, dtype, gen) for _ in range(self.n_layers)])

    def __call__(self, graph: Any, feat: Any) -> Any:
        feat, seg = _segments(
            "SetTransformerDecoder", graph, feat, self.d_model, self.pma.seed_vectors
        )
        xp = get_namespace(feat)
        feat = self.pma(feat, seg)
        seg_k = _Segments(xp, xp.full(seg.batch, self.k, dtype=np.int64))
        for layer in self.layers:
            feat = layer(feat, seg_k)
        return feat.reshape(seg.batch, self.k * self.d_model)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, k={self.k}, n_layers={self.n_layers}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGLModule:
    """DGL's ``SetTransformerEncoder`` / ``SetTransformerDecoder`` -> ours, weights loaded."""
    from arraygnn.nn.weights import _load

    if type(module).__name__ == "SetTransformerDecoder":
        mha = module.pma.mha
        layer: DGLModule = SetTransformerDecoder(
            mha.d_model,
            mha.num_heads,
            mha.d_head,
            mha.d_ff,
            module.n_layers,
            module.k,
            mha.droph.p,
            mha.dropa.p,
            dtype=dtype,
        )
    else:
        first = module.layers[0].mha if len(module.layers) else None
        if first is None:
            raise ValueError("from_dgl: SetTransformerEncoder with n_layers=0 has no sizes")
        mha = first if module.block_type == "sab" else first[0]
        layer = SetTransformerEncoder(
            mha.d_model,
            mha.num_heads,
            mha.d_head,
            mha.d_ff,
            module.n_layers,
            module.block_type,
            module.m,
            mha.droph.p,
            mha.dropa.p,
            dtype=dtype,
        )
    return _load(layer, module, "dgl")
