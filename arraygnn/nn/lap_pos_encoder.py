"""DGL's ``LapPosEncoder`` (GraphGPS's learned Laplacian positional encoding): each node's
``k`` (eigenvector entry, eigenvalue) pairs go through a linear layer, a Transformer
encoder over the ``k`` pairs (or a DeepSet MLP), are sum-pooled over the real pairs and
optionally through a post-MLP.

How it runs: the Transformer is ``torch.nn.TransformerEncoder`` at inference (post- or
pre-norm layers of :class:`arraygnn.nn.MultiheadAttention` with a key padding mask plus a
feed-forward network), batched over the nodes: ``[N, k, dim]`` in memory.

RULE: a NaN eigenvalue marks a padded pair (DGL's ``LapPE(padding=True)``): it is masked as
      a key and its row is zeroed before the sum; NaN inputs become 0.
RULE: DGL casts the pairs to float32 (``.float()``), so a DGL float64 module fails there;
      here the pairs are cast to the layer's dtype (the same for float32 layers).

>>> import numpy as np
>>> enc = LapPosEncoder("Transformer", 2, k=3, dim=8, n_head=2, rng=0)
>>> enc(np.ones((4, 3), np.float32), np.ones((4, 3), np.float32)).shape
(4, 8)
>>> LapPosEncoder("DeepSet", 3, k=3, dim=8, num_post_layer=2, rng=0)(
...     np.ones((4, 3), np.float32), np.ones((4, 3), np.float32)).shape
(4, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_floats
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import (
    BatchNorm,
    LayerNorm,
    Linear,
    Sequential,
    _ModuleList,
    _rng,
    add_bias,
    get_activation,
)
from arraygnn.nn.multihead_attention import MultiheadAttention

__all__ = ["LapPosEncoder", "TransformerEncoderLayer", "from_dgl_module"]

_WHERE = "LapPosEncoder"
_RELU = get_activation("relu")


class TransformerEncoderLayer(Module):
    """``torch.nn.TransformerEncoderLayer`` at inference, batch first, torch's names
    (``self_attn.*``, ``linear1.*``, ``linear2.*``, ``norm1.*``, ``norm2.*``):
    ``layer(src, src_key_padding_mask=None)`` with a boolean mask ``[B, S]`` (True:
    padding)."""

    _child_names = ("self_attn", "linear1", "linear2", "norm1", "norm2")

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        norm_first: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self.self_attn = MultiheadAttention(d_model, nhead, batch_first=True, dtype=dtype, rng=gen)
        self.linear1 = Linear(d_model, dim_feedforward, dtype=dtype, rng=gen)
        self.linear2 = Linear(dim_feedforward, d_model, dtype=dtype, rng=gen)
        self.norm1 = LayerNorm(d_model, layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm(d_model, layer_norm_eps, dtype=dtype)
        self.activation = get_activation(activation)
        self.norm_first = bool(norm_first)

    def _sa(self, x: Any, mask: Any, residual: Any) -> Any:
        """The attention block on ``x`` plus ``residual``, added in place to the new array."""
        out = self.self_attn(x, x, x, key_padding_mask=mask, need_weights=False)[0]
        return add_bias(out, residual)

    def _ff(self, x: Any, residual: Any) -> Any:
        """The feed-forward block on ``x`` plus ``residual`` (relu and the residual in
        place on the arrays made here)."""
        h = self.linear1(x)
        if self.activation is _RELU:
            h = get_namespace(h).maximum(h, h.dtype.type(0), out=h)
        else:
            h = self.activation(h)
        return add_bias(self.linear2(h), residual)

    def __call__(self, src: Any, src_key_padding_mask: Any = None) -> Any:
        x = src
        if self.norm_first:
            x = self._sa(self.norm1(x), src_key_padding_mask, x)
            return self._ff(self.norm2(x), x)
        x = self.norm1(self._sa(x, src_key_padding_mask, x))
        return self.norm2(self._ff(x, x))


def _mlp(widths: list[int], dtype: Any, gen: Any) -> list[Any]:
    """``Linear, ReLU`` pairs through ``widths`` (DGL's layer lists)."""
    steps: list[Any] = []
    for a, b in zip(widths[:-1], widths[1:]):
        steps += [Linear(a, b, dtype=dtype, rng=gen), "relu"]
    return steps


class LapPosEncoder(DGLModule):
    """DGL's ``LapPosEncoder(model_type, num_layer, k, dim, n_head=1, batch_norm=False,
    num_post_layer=0)``: ``enc(eigvals, eigvecs)``, both ``(N, k)``, gives ``(N, dim)``.

    ``k`` binds the input width only with ``batch_norm`` (DGL keeps it only in its
    ``BatchNorm1d``). ``'Transformer'``: ``linear`` (2 -> dim), then ``num_layer`` torch
    encoder layers (``dim_feedforward`` 2048, relu, post-norm: torch's defaults). ``'DeepSet'``:
    ``linear`` (2 -> dim, or 2 -> 2 dim) and ``Linear / ReLU`` steps. ``batch_norm``: an
    inference ``BatchNorm1d(k)`` on the raw pairs (running statistics).

    Names (DGL): ``linear.*``, ``pe_encoder.layers.{i}.*`` (Transformer) or
    ``pe_encoder.{j}.*`` (DeepSet), ``raw_norm.*``, ``post_mlp.{j}.*``.
    """

    _child_names = ("linear", "pe_encoder", "raw_norm", "post_mlp")

    def __init__(
        self,
        model_type: str,
        num_layer: int,
        k: int,
        dim: int,
        n_head: int = 1,
        batch_norm: bool = False,
        num_post_layer: int = 0,
        *,
        dim_feedforward: int = 2048,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if model_type not in ("Transformer", "DeepSet"):
            raise ValueError(
                f"{_WHERE}: model_type must be 'Transformer' or 'DeepSet', got {model_type!r}"
            )
        self.model_type = model_type
        self.num_layer = layer_size(_WHERE, "num_layer", num_layer, minimum=1)
        self.k = layer_size(_WHERE, "k", k, minimum=1)
        d = self.dim = layer_size(_WHERE, "dim", dim, minimum=1)
        self.num_post_layer = layer_size(_WHERE, "num_post_layer", num_post_layer)
        gen = _rng(rng)
        if model_type == "Transformer":
            self.linear = Linear(2, d, dtype=dtype, rng=gen)
            layers = [
                TransformerEncoderLayer(d, n_head, dim_feedforward, dtype=dtype, rng=gen)
                for _ in range(self.num_layer)
            ]
            self.pe_encoder: Any = _Layers(layers)
        elif self.num_layer == 1:
            self.linear = Linear(2, d, dtype=dtype, rng=gen)
            self.pe_encoder = Sequential("relu")
        else:
            self.linear = Linear(2, 2 * d, dtype=dtype, rng=gen)
            widths = [2 * d] * (self.num_layer - 1) + [d]
            self.pe_encoder = Sequential("relu", *_mlp(widths, dtype, gen))
        self.raw_norm = _BatchNorm1d(self.k, dtype=dtype) if batch_norm else None
        self.post_mlp = None
        if self.num_post_layer == 1:
            self.post_mlp = Sequential(*_mlp([d, d], dtype, gen))
        elif self.num_post_layer > 1:
            widths = [d] + [2 * d] * (self.num_post_layer - 1) + [d]
            self.post_mlp = Sequential(*_mlp(widths, dtype, gen))

    def __call__(self, eigvals: Any, eigvecs: Any) -> Any:
        # DGL keeps k only in its BatchNorm1d: without one, any number of pairs
        k = self.k if self.raw_norm is not None else None
        check_floats(_WHERE, "eigvals", eigvals, (None, k))
        check_floats(_WHERE, "eigvecs", eigvecs, tuple(eigvals.shape))
        xp = get_namespace(eigvals, eigvecs, self.linear.weight)
        dtype = self.linear.weight.dtype
        pos = xp.stack([eigvecs.astype(dtype), eigvals.astype(dtype)], axis=2)  # [N, k, 2]
        empty = xp.isnan(pos)
        pos[empty] = 0
        if self.raw_norm is not None:
            pos = self.raw_norm(pos)
        pos = self.linear(pos)
        padded = empty[:, :, 1]
        if self.model_type == "Transformer":
            for layer in self.pe_encoder:
                pos = layer(pos, padded)
        else:
            pos = self.pe_encoder(pos)
        pos = xp.where(padded[..., None], dtype.type(0), pos).sum(axis=1)
        return pos if self.post_mlp is None else self.post_mlp(pos)

    def extra_repr(self) -> str:
        return f"{self.model_type!r}, num_layer={self.num_layer}, k={self.k}, dim={self.dim}"


class _Layers(Module):
    """``torch.nn.TransformerEncoder``'s ``layers.{i}`` names."""

    def __init__(self, layers: list[Module]) -> None:
        self.layers = _ModuleList(layers)
        self._child_names = ("layers",)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.layers)

    def __len__(self) -> int:
        return len(self.layers)


class _BatchNorm1d(BatchNorm):
    """``BatchNorm1d(k)`` at inference on ``[N, k, L]`` (channels on axis 1)."""

    def __call__(self, x: Any) -> Any:
        return super().__call__(x.transpose(0, 2, 1)).transpose(0, 2, 1)


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> LapPosEncoder:
    """DGL's ``LapPosEncoder`` -> :class:`LapPosEncoder`, weights loaded (the encoder
    layers' ``dim_feedforward``, eps, ``norm_first`` and activation read from torch's).
    DGL keeps ``k`` only in its ``BatchNorm1d``: without ``batch_norm`` the layer takes any
    ``k`` (``layer.k`` is ``None``)."""
    from arraygnn.nn.weights import _activation

    post = 0
    if module.post_mlp is not None:
        post = sum(1 for m in module.post_mlp if type(m).__name__ == "Linear")
    n_head, ff = 1, 2048
    if module.model_type == "Transformer":
        if module.pe_encoder.norm is not None:
            raise ValueError("from_dgl: LapPosEncoder with a final encoder norm is not supported")
        layers = list(module.pe_encoder.layers)
        num_layer, dim = len(layers), module.linear.out_features
        n_head, ff = layers[0].self_attn.num_heads, layers[0].linear1.out_features
    else:
        num_layer = 1 + sum(1 for m in module.pe_encoder if type(m).__name__ == "Linear")
        dim = module.linear.out_features // (1 if num_layer == 1 else 2)
    batch_norm = module.raw_norm is not None
    k = module.raw_norm.num_features if batch_norm else 1
    layer = LapPosEncoder(
        module.model_type,
        num_layer,
        k,
        dim,
        n_head,
        batch_norm,
        post,
        dim_feedforward=ff,
        dtype=dtype,
    )
    if not batch_norm:
        layer.k = None
    if module.model_type == "Transformer":
        for ours, theirs in zip(layer.pe_encoder, module.pe_encoder.layers):
            ours.norm_first = bool(theirs.norm_first)
            ours.norm1.eps, ours.norm2.eps = float(theirs.norm1.eps), float(theirs.norm2.eps)
            ours.activation = get_activation(
                _activation(theirs.activation, "from_dgl: LapPosEncoder encoder activation")
            )
    if batch_norm:
        layer.raw_norm.eps = float(module.raw_norm.eps)
    layer.load_state_dict(module.state_dict(), format="dgl")
    return layer
