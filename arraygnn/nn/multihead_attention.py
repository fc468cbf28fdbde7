"""``torch.nn.MultiheadAttention`` at inference, on NumPy / CuPy arrays, with torch's
parameter names (``in_proj_weight`` / ``q_proj_weight`` / ``k_proj_weight`` /
``v_proj_weight``, ``in_proj_bias``, ``bias_k`` / ``bias_v``, ``out_proj.weight`` /
``out_proj.bias``); ``from_torch`` converts torch's module.

The attention is dense, as torch's: per batch entry and head the scores ``[L, S]`` come from
one batched matrix product, masked, soft-maxed and applied to the values with a second
(``[B, H, L, S]`` scores in memory, never per-pair features). How it runs on NumPy: the
input projections go straight into the heads' ``[B, H, T, d]`` layout (one stacked product,
one for ``q``, ``k``, ``v`` together when they are one array), so both attention products
are BLAS products on contiguous blocks; the key-padding mask, the softmax and (with
``need_weights``) the normalisation are one Numba pass per score row
(:mod:`arraygnn.kernels.cpu.dense_softmax`).

RULE: masks follow torch: a boolean ``key_padding_mask`` ``[B, S]`` / ``attn_mask``
``[L, S]`` or ``[B * num_heads, L, S]`` is True where attention is *not* allowed; a float
mask is added to the scores.
RULE: a query whose keys are all masked gives torch's results: with ``need_weights=False``
(torch's ``scaled_dot_product_attention``) zero attention, so the output row is
``out_proj.bias``; with ``need_weights=True`` (torch's explicit softmax) NaN weights and
output.
RULE: inference only: ``dropout`` is kept for the record and never applied.

>>> import numpy as np
>>> mha = MultiheadAttention(4, 2, batch_first=True, rng=0)
>>> x = np.ones((3, 5, 4), np.float32)
>>> out, w = mha(x, x, x)
>>> out.shape, w.shape
((3, 5, 4), (3, 5, 5))
>>> sorted(mha.state_dict())
['in_proj_bias', 'in_proj_weight', 'out_proj.bias', 'out_proj.weight']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._dense_input import bmm, check_float_array, softmax
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import Linear, _rng, glorot

__all__ = ["MultiheadAttention", "from_torch_module"]

_WHERE = "MultiheadAttention"


def _check_input(name: str, value: Any, width: int) -> None:
    check_float_array(_WHERE, name, value, (2, 3))
    if value.shape[-1] != width:
        raise ValueError(
            f"{_WHERE}: {name} must be [L, B, {width}] / [B, L, {width}] (batch_first) or "
            f"unbatched [L, {width}], got shape {tuple(value.shape)}"
        )


def _mask_bias(name: str, mask: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """A torch mask as an additive float array (``-inf`` where a boolean mask is True)."""
    if not is_array(mask):
        raise TypeError(
            f"{_WHERE}: {name} must be a NumPy or CuPy array, got {type(mask).__name__}"
            + torch_hint(mask)
        )
    if tuple(mask.shape) != shape:
        raise ValueError(f"{_WHERE}: {name} must have shape {shape}, got {tuple(mask.shape)}")
    xp = get_namespace(mask)
    if mask.dtype == bool:
        return xp.where(mask, dtype.type(-np.inf), dtype.type(0))
    if mask.dtype.kind != "f":
        raise TypeError(f"{_WHERE}: {name} must be a bool or float array, got {mask.dtype}")
    return mask.astype(dtype, copy=False)


def _safe_exp_(xp: Any, scores: Any) -> tuple[Any, Any]:
    """``(exp(scores - row max), row sums)`` in place: the softmax's numerator and
    denominator, with torch's ``_safe_softmax`` rule: a row that is all ``-inf`` keeps a 0
    shift, so its exponentials are 0 and its sum (0) becomes 1 (zero attention). A finite
    row's sum is at least 1 (its maximum)."""
    if scores.shape[-1] == 0:  # no keys: zero attention
        return scores, xp.ones(scores.shape[:-1] + (1,), dtype=scores.dtype)
    top = scores.max(axis=-1, keepdims=True)
    top[xp.isneginf(top)] = 0
    scores -= top
    e = xp.exp(scores, out=scores)
    total = e.sum(axis=-1, keepdims=True)
    total[total == 0] = 1
    return e, total


class MultiheadAttention(Module):
    """``torch.nn.MultiheadAttention`` at inference (torch's names and maths).

    Args:
        embed_dim: model width ``E`` (queries and outputs).
        num_heads: heads; ``E`` must be divisible by it.
        dropout: attention dropout (inference: never applied).
        bias: biases on the input and output projections.
        add_bias_kv: learnt ``bias_k`` / ``bias_v`` appended to the key / value sequences.
        add_zero_attn: a zero key / value appended to each head's sequences.
        kdim / vdim: key / value widths (default ``E``; others keep ``q_proj_weight`` /
            ``k_proj_weight`` / ``v_proj_weight`` apart, as torch).
        batch_first: inputs ``[B, L, E]`` (else ``[L, B, E]``).

    Call as ``mha(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)``; returns ``(output,
    weights)``, ``weights`` ``[B, L, S]`` (averaged over heads) or ``[B, H, L, S]``, ``None``
    without ``need_weights``. ``is_causal`` is torch's hint about ``attn_mask`` and changes
    nothing, but needs the mask, as torch's (``attn_mask=None`` is a ``ValueError``).

    Shapes:
        - input: ``query`` ``(L, B, E)``, ``key`` ``(S, B, kdim)``, ``value`` ``(S, B,
          vdim)`` (``(B, *, *)`` with ``batch_first``; without the batch dimension for one
          unbatched sequence)
        - output: ``query``'s shape
    """

    _param_names = (
        "in_proj_weight",
        "q_proj_weight",
        "k_proj_weight",
        "v_proj_weight",
        "in_proj_bias",
        "bias_k",
        "bias_v",
    )
    _child_names = ("out_proj",)

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        e = self.embed_dim = layer_size(_WHERE, "embed_dim", embed_dim, minimum=1)
        h = self.num_heads = layer_size(_WHERE, "num_heads", num_heads, minimum=1)
        if e % h:
            raise ValueError(f"{_WHERE}: embed_dim={e} must be divisible by num_heads={h}")
        self.head_dim = e // h
        self.kdim = e if kdim is None else layer_size(_WHERE, "kdim", kdim, minimum=1)
        self.vdim = e if vdim is None else layer_size(_WHERE, "vdim", vdim, minimum=1)
        self.dropout = probability("MultiheadAttention", "dropout", dropout)
        self.batch_first = bool(batch_first)
        self.add_zero_attn = bool(add_zero_attn)
        self._qkv_same_embed_dim = self.kdim == e and self.vdim == e
        gen = _rng(rng)
        self.in_proj_weight = self.q_proj_weight = self.k_proj_weight = None
        self.v_proj_weight = None
        if self._qkv_same_embed_dim:
            self.in_proj_weight = glorot((3 * e, e), gen, dtype)
        else:
            self.q_proj_weight = glorot((e, e), gen, dtype)
            self.k_proj_weight = glorot((e, self.kdim), gen, dtype)
            self.v_proj_weight = glorot((e, self.vdim), gen, dtype)
        self.in_proj_bias = np.zeros(3 * e, dtype=dtype) if bias else None
        self.bias_k = glorot((1, 1, e), gen, dtype) if add_bias_kv else None
        self.bias_v = glorot((1, 1, e), gen, dtype) if add_bias_kv else None
        self.out_proj = Linear(e, e, bias, dtype=dtype, rng=gen)

    # ---- projections -------------------------------------------------------------------
    def _weights(self, part: int) -> Any:
        e = self.embed_dim
        if self.in_proj_weight is not None:
            return self.in_proj_weight[part * e : (part + 1) * e]
        return (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)[part]

    def _head_projection(self, xp: Any, x: Any, parts: tuple[int, ...], dtype: Any) -> Any:
        """``x`` ``[B, T, in]`` through the projections ``parts`` (0 q, 1 k, 2 v), straight
        into the heads' layout: ``[B, len(parts) * H, T, d]``, C-contiguous. One stacked
        product ``x[:, None] @ W`` with the weights as ``[len(parts) * H, in, d]`` blocks:
        every ``(batch, head)`` block is a BLAS product, and no ``[B, T, H, d] -> [B, H,
        T, d]`` copy follows (a transposed copy of the flat product cost 8x the product)."""
        h, d, e = self.num_heads, self.head_dim, self.embed_dim
        w = xp.concatenate([self._weights(p) for p in parts]) if len(parts) > 1 else None
        w = self._weights(parts[0]) if w is None else w
        w = xp.ascontiguousarray(w.reshape(len(parts) * h, d, -1).transpose(0, 2, 1), dtype)
        out = bmm(x[:, None], w)
        if self.in_proj_bias is not None:
            bias = xp.concatenate([self.in_proj_bias[p * e : (p + 1) * e] for p in parts])
            out += bias.astype(dtype, copy=False).reshape(len(parts) * h, 1, d)
        return out

    def _in_projections(self, xp: Any, query: Any, key: Any, value: Any) -> tuple[Any, Any, Any]:
        """``q``, ``k``, ``v`` as ``[B, H, T, d]`` blocks; one product for the inputs that
        are the same array (self-attention: one ``[3 H, in, d]`` product)."""
        h, dtype = self.num_heads, query.dtype
        if query is key and key is value:
            qkv = self._head_projection(xp, query, (0, 1, 2), dtype)
            return qkv[:, :h], qkv[:, h : 2 * h], qkv[:, 2 * h :]
        q = self._head_projection(xp, query, (0,), dtype)
        if key is value:
            kv = self._head_projection(xp, key, (1, 2), dtype)
            return q, kv[:, :h], kv[:, h:]
        k = self._head_projection(xp, key, (1,), dtype)
        return q, k, self._head_projection(xp, value, (2,), dtype)

    # ---- call --------------------------------------------------------------------------
    def __call__(
        self,
        query: Any,
        key: Any,
        value: Any,
        key_padding_mask: Any = None,
        need_weights: bool = True,
        attn_mask: Any = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Any, Any]:
        if is_causal and attn_mask is None:
            raise ValueError(
                f"{_WHERE}: is_causal=True is torch's hint about attn_mask and needs the mask "
                "itself (attn_mask=None given)"
            )
        _check_input("query", query, self.embed_dim)
        _check_input("key", key, self.kdim)
        _check_input("value", value, self.vdim)
        xp = get_namespace(query, key, value, self.out_proj.weight)
        batched = query.ndim == 3
        if key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(
                f"{_WHERE}: query, key and value must all be batched (3-D) or all unbatched "
                f"(2-D), got {query.ndim}-D, {key.ndim}-D and {value.ndim}-D"
            )
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(
                f"{_WHERE}: key and value must agree in sequence and batch sizes, got "
                f"{tuple(key.shape)} and {tuple(value.shape)}"
            )
        same = query is key and key is value
        if not batched:  # one sequence: a batch of one, batch first
            query, key, value = query[None], key[None], value[None]
        elif not self.batch_first:
            query, key, value = (xp.swapaxes(a, 0, 1) for a in (query, key, value))
        if key.shape[0] != query.shape[0]:
            raise ValueError(
                f"{_WHERE}: query and key must have the same batch size, got "
                f"{query.shape[0]} and {key.shape[0]}"
            )
        dtype = np.result_type(query.dtype, key.dtype, value.dtype, self.out_proj.weight.dtype)
        query, key, value = (a.astype(dtype, copy=False) for a in (query, key, value))
        if same:
            key = value = query
        b, tgt, _ = query.shape
        src = key.shape[1]
        h, d = self.num_heads, self.head_dim
        q, k, v = self._in_projections(xp, query, key, value)  # [B, H, L | S, d]
        extra = 0
        if self.bias_k is not None:
            bk, bv = (
                xp.broadcast_to(t.astype(dtype).reshape(1, h, 1, d), (b, h, 1, d))
                for t in (self.bias_k, self.bias_v)
            )
            k, v = xp.concatenate([k, bk], 2), xp.concatenate([v, bv], 2)
            extra += 1
        if self.add_zero_attn:
            zeros = xp.zeros((b, h, 1, d), dtype=dtype)
            k = xp.concatenate([k, zeros], 2)
            v = xp.concatenate([v, zeros], 2)
            extra += 1
        q *= dtype.type(1.0 / np.sqrt(d))  # q is an array made here
        scores = bmm(q, xp.swapaxes(k, -1, -2))  # [B, H, L, S'], C-contiguous
        if attn_mask is not None:
            shape2, shape3 = (tgt, src), (b * h, tgt, src)
            want = shape2 if getattr(attn_mask, "ndim", None) == 2 else shape3
            bias = _mask_bias("attn_mask", attn_mask, want, dtype)
            bias = bias.reshape((1, 1) + shape2) if bias.ndim == 2 else bias.reshape(b, h, tgt, src)
            scores[..., :src] += bias
        padding = None
        if key_padding_mask is not None:
            shape = (b, src) if batched else (src,)
            padding = _mask_bias("key_padding_mask", key_padding_mask, shape, dtype)
            padding = padding.reshape(b, src)
            if extra:  # the appended keys are never padding
                padding = xp.concatenate([padding, xp.zeros((b, extra), dtype=dtype)], 1)
        if isinstance(scores, np.ndarray):  # mask, softmax (and division): one pass
            from arraygnn.kernels.cpu.dense_softmax import softmax_rows_

            total = softmax_rows_(
                scores.reshape(b * h * tgt, src + extra),
                None if padding is None else np.ascontiguousarray(padding),
                h * tgt,
                safe=not need_weights,
                normalise=need_weights,
            ).reshape(b, h, tgt, 1)
        else:
            if padding is not None:
                scores += padding.reshape(b, 1, 1, src + extra)
            total = None
        if need_weights:  # torch's explicit softmax (NaN in a fully masked row)
            attn = softmax(scores, -1, inplace=True) if total is None else scores
            out = bmm(attn, v)
        else:  # torch's SDPA: normalised after the product ([L, d] < [L, S])
            if total is None:
                scores, total = _safe_exp_(xp, scores)
            out = bmm(scores, v)
            out /= total
        out = out.transpose(0, 2, 1, 3).reshape(b, tgt, h * d)  # [B, L, E]
        out = self.out_proj(out)
        if not batched:
            out = out[0]
        elif not self.batch_first:
            out = xp.swapaxes(out, 0, 1)
        if not need_weights:
            return out, None
        weights = attn.mean(axis=1) if average_attn_weights else attn
        return out, (weights if batched else weights[0])

    def extra_repr(self) -> str:
        return f"{self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}" + (
            "" if self._qkv_same_embed_dim else f", kdim={self.kdim}, vdim={self.vdim}"
        )


def from_torch_module(module: Any, dtype: Any, convert: Any) -> MultiheadAttention:
    """``torch.nn.MultiheadAttention`` -> :class:`MultiheadAttention`, weights loaded."""
    layer = MultiheadAttention(
        module.embed_dim,
        module.num_heads,
        module.dropout,
        bias=module.in_proj_bias is not None,
        add_bias_kv=module.bias_k is not None,
        add_zero_attn=module.add_zero_attn,
        kdim=module.kdim,
        vdim=module.vdim,
        batch_first=module.batch_first,
        dtype=dtype,
    )
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
