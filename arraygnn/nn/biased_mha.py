"""DGL's ``BiasedMHA``: dense multi-head self-attention over padded ``[B, N, F]`` node
features with a per-head attention bias ``[B, N, N, H]`` (added, or multiplied) and a
boolean mask ``[B, N, N]`` (Graphormer).

How it runs: ``[B, H, N, N]`` scores from one batched product, the bias (moved to
``[B, H, N, N]``) added or multiplied in place, masked entries set to ``-inf``, a softmax
over the keys and a second batched product. The bias is per head and may multiply the
scores, which :class:`arraygnn.nn.MultiheadAttention`'s additive ``attn_mask`` cannot
express, so the attention core lives here (:func:`biased_attention`).

RULE: ``attn_mask`` is True (or non-zero, DGL's ``.to(bool)``) where attention is *not*
      allowed; the blocked scores are set to ``-inf`` after the bias (so an infinite bias
      there is harmless); a query row that is masked everywhere gives NaN, as DGL's softmax.
RULE: inference only: ``attn_drop`` is kept for the record and never applied.

>>> import numpy as np
>>> mha = BiasedMHA(8, 2, rng=0)
>>> mha(np.ones((3, 5, 8), np.float32), np.zeros((3, 5, 5, 2), np.float32)).shape
(3, 5, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dense_input import bmm, softmax
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_array, check_floats
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.linear import Linear, _rng

__all__ = ["BiasedMHA", "biased_attention", "from_dgl_module"]

_WHERE = "BiasedMHA"


def check_pair_inputs(
    layer: str, x: Any, attn_bias: Any, attn_mask: Any, width: int, heads: int
) -> tuple[int, int]:
    """Check ``x`` ``[B, N, width]``, ``attn_bias`` ``[B, N, N, heads]`` and ``attn_mask``
    ``[B, N, N]`` (each may be ``None`` but ``x``); returns ``(B, N)``."""
    check_floats(layer, "nfeat" if layer != _WHERE else "ndata", x, (None, None, width))
    b, n = int(x.shape[0]), int(x.shape[1])
    if attn_bias is not None:
        check_floats(layer, "attn_bias", attn_bias, (b, n, n, heads))
    if attn_mask is not None:
        _mask_bias_shape(layer, attn_mask, (b, n, n))
    return b, n


def _mask_bias_shape(layer: str, mask: Any, shape: tuple[int, ...]) -> None:
    check_array(layer, "attn_mask", mask)
    if mask.dtype.kind not in "biuf":
        raise TypeError(f"{layer}: attn_mask must be boolean or numeric, got {mask.dtype}")
    if tuple(mask.shape) != shape:
        raise ValueError(f"{layer}: attn_mask must have shape {shape}, got {tuple(mask.shape)}")


def biased_attention(
    q: Any, k: Any, v: Any, bias: Any = None, multiply: bool = False, blocked: Any = None
) -> Any:
    """``softmax(q k^T (+|*) bias, blocked -> -inf) v`` over ``[B, H, L, d]`` queries,
    ``[B, H, S, d]`` keys / values, ``bias`` ``[B, H, L, S]`` and a boolean ``blocked``
    ``[B, L, S]`` (True: not allowed)."""
    xp = get_namespace(q, k, v)
    scores = bmm(q, xp.swapaxes(k, -1, -2))
    if bias is not None:
        with np.errstate(invalid="ignore"):  # inf * 0, inf - inf: NaN, as torch, silently
            if multiply:
                scores *= bias
            else:
                scores += bias
    if blocked is not None:
        # written over the scores, as DGL's ``attn_weights[attn_mask] = -inf``: an infinite
        # bias under the mask (Graphormer's -inf padding, inf * 0) must not leave NaN there
        xp.copyto(scores, scores.dtype.type(-np.inf), where=blocked[:, None])
    return bmm(softmax(scores, -1, inplace=True), v)


class BiasedMHA(DGLModule):
    """DGL's ``BiasedMHA(feat_size, num_heads, bias=True, attn_bias_type='add',
    attn_drop=0.1)``: ``mha(ndata, attn_bias=None, attn_mask=None)``.

    Shapes:
        - input: ``ndata`` ``(B, N, feat_size)``, ``attn_bias`` ``(B, N, N, num_heads)``,
          ``attn_mask`` ``(B, N, N)``
        - output: ``(B, N, feat_size)``

    Names (DGL): ``q_proj.*``, ``k_proj.*``, ``v_proj.*``, ``out_proj.*``.
    """

    _child_names = ("q_proj", "k_proj", "v_proj", "out_proj")

    def __init__(
        self,
        feat_size: int,
        num_heads: int,
        bias: bool = True,
        attn_bias_type: str = "add",
        attn_drop: float = 0.1,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        f = self.feat_size = layer_size(_WHERE, "feat_size", feat_size, minimum=1)
        h = self.num_heads = layer_size(_WHERE, "num_heads", num_heads, minimum=1)
        if f % h:
            raise ValueError(f"{_WHERE}: feat_size={f} must be divisible by num_heads={h}")
        if attn_bias_type not in ("add", "mul"):
            raise ValueError(
                f"{_WHERE}: attn_bias_type must be 'add' or 'mul', got {attn_bias_type!r}"
            )
        self.attn_bias_type = attn_bias_type
        self.head_dim = f // h
        self.scaling = self.head_dim**-0.5
        self.attn_drop = probability(_WHERE, "attn_drop", attn_drop)
        gen = _rng(rng)
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            Linear(f, f, bias, dtype=dtype, rng=gen) for _ in range(4)
        )

    def __call__(self, ndata: Any, attn_bias: Any = None, attn_mask: Any = None) -> Any:
        b, n = check_pair_inputs(
            _WHERE, ndata, attn_bias, attn_mask, self.feat_size, self.num_heads
        )
        h, d = self.num_heads, self.head_dim
        dtype = np.result_type(ndata.dtype, self.q_proj.weight.dtype)
        x = ndata.astype(dtype, copy=False)

        def heads(lin: Linear) -> Any:
            return lin(x).reshape(b, n, h, d).transpose(0, 2, 1, 3)

        q = heads(self.q_proj)
        q *= dtype.type(self.scaling)
        bias = None
        if attn_bias is not None:
            bias = attn_bias.astype(dtype, copy=False).transpose(0, 3, 1, 2)
        blocked = None if attn_mask is None else attn_mask.astype(bool, copy=False)
        out = biased_attention(
            q, heads(self.k_proj), heads(self.v_proj), bias, self.attn_bias_type == "mul", blocked
        )
        return self.out_proj(out.transpose(0, 2, 1, 3).reshape(b, n, h * d))

    def extra_repr(self) -> str:
        return (
            f"{self.feat_size}, num_heads={self.num_heads}, attn_bias_type={self.attn_bias_type!r}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> BiasedMHA:
    """DGL's ``BiasedMHA`` -> :class:`BiasedMHA` with its projections."""
    from arraygnn.nn.weights import _load

    layer = BiasedMHA(
        module.feat_size,
        module.num_heads,
        module.q_proj.bias is not None,
        module.attn_bias_type,
        module.dropout.p,
        dtype=dtype,
    )
    return _load(layer, module, "dgl")
