"""PyG's Set Transformer readouts: ``SetTransformerAggregation`` (Lee et al., "Set
Transformer") and ``GraphMultisetTransformer`` (Baek et al., GMT), with their blocks
``MultiheadAttentionBlock`` (MAB), ``SetAttentionBlock`` (SAB) and
``PoolingByMultiheadAttention`` (PMA) from ``torch_geometric.nn.aggr.utils``.

``MAB(x, y) = LN(h + relu(lin(h)))``, ``h = LN(x + attn(x, y, y))`` (the layer norms only
with ``layer_norm``); ``SAB(x) = MAB(x, x)``; ``PMA(x) = MAB(seed, relu(lin(x)))``. The
groups are laid out as PyG's ``to_dense_batch`` (``[G, M, C]`` and a mask; needs a sorted
``index``) and the attention is :class:`arraygnn.nn.MultiheadAttention` over that batch:
padded slices are masked out as keys and zeroed as queries, as PyG.

RULE: an empty group has no key: its seeds attend to nothing (torch's
``scaled_dot_product_attention``: zero attention), as PyG's; ``SetTransformerAggregation``
then replaces NaN / infinities as PyG's ``nan_to_num``.

>>> import numpy as np
>>> from arraygnn.nn.aggr import GraphMultisetTransformer, SetTransformerAggregation
>>> x, index = np.ones((5, 4), np.float32), np.array([0, 0, 1, 1, 1])
>>> SetTransformerAggregation(4, num_seed_points=2, heads=2, rng=0)(x, index).shape
(2, 8)
>>> GraphMultisetTransformer(4, k=3, rng=0)(x, index).shape
(2, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.aggr.base import Groups
from arraygnn.nn.aggr.dense import DenseAggregation
from arraygnn.nn.linear import LayerNorm, Linear, _ModuleList, _rng, add_bias, glorot
from arraygnn.nn.multihead_attention import MultiheadAttention

__all__ = [
    "MultiheadAttentionBlock",
    "SetAttentionBlock",
    "PoolingByMultiheadAttention",
    "SetTransformerAggregation",
    "GraphMultisetTransformer",
    "from_pyg_module",
]


def _relu(x: Any) -> Any:
    """``relu`` in place (``x`` an array the caller made)."""
    return get_namespace(x).maximum(x, x.dtype.type(0), out=x)


class MultiheadAttentionBlock(Module):
    """PyG's ``MultiheadAttentionBlock(channels, heads=1, layer_norm=True, dropout=0.0)``:
    ``block(x, y, x_mask=None, y_mask=None)`` with ``x`` ``[B, L, C]``, ``y`` ``[B, S, C]``
    and boolean masks of the real rows (``x_mask`` ``[B, L]``, ``y_mask`` ``[B, S]``).

    Names (PyG): ``attn.in_proj_weight``, ``attn.in_proj_bias``, ``attn.out_proj.*``,
    ``lin.*``, ``layer_norm1.*``, ``layer_norm2.*``.
    """

    _child_names = ("attn", "lin", "layer_norm1", "layer_norm2")

    def __init__(
        self,
        channels: int,
        heads: int = 1,
        layer_norm: bool = True,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self.channels = layer_size(type(self).__name__, "channels", channels, minimum=1)
        self.heads = heads
        self.dropout = probability(type(self).__name__, "dropout", dropout)
        self.attn = MultiheadAttention(
            channels, heads, dropout, batch_first=True, dtype=dtype, rng=gen
        )
        self.lin = Linear(channels, channels, dtype=dtype, rng=gen)
        self.layer_norm1 = LayerNorm(channels, dtype=dtype) if layer_norm else None
        self.layer_norm2 = LayerNorm(channels, dtype=dtype) if layer_norm else None

    def __call__(self, x: Any, y: Any, x_mask: Any = None, y_mask: Any = None) -> Any:
        out, _ = self.attn(x, y, y, None if y_mask is None else ~y_mask, need_weights=False)
        if x_mask is not None:
            out[~x_mask] = 0
        out += x
        if self.layer_norm1 is not None:
            out = self.layer_norm1(out)
        out = add_bias(_relu(self.lin(out)), out)  # the residual, in place
        if self.layer_norm2 is not None:
            out = self.layer_norm2(out)
        return out

    def extra_repr(self) -> str:
        return f"{self.channels}, heads={self.heads}, layer_norm={self.layer_norm1 is not None}"


class SetAttentionBlock(Module):
    """PyG's ``SetAttentionBlock``: ``sab(x, mask=None) = mab(x, x, mask, mask)``.

    Names (PyG): ``mab.*``.
    """

    _child_names = ("mab",)

    def __init__(
        self,
        channels: int,
        heads: int = 1,
        layer_norm: bool = True,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        dropout = probability(type(self).__name__, "dropout", dropout)
        self.mab = MultiheadAttentionBlock(
            channels, heads, layer_norm, dropout, dtype=dtype, rng=rng
        )

    def __call__(self, x: Any, mask: Any = None) -> Any:
        return self.mab(x, x, mask, mask)


class PoolingByMultiheadAttention(Module):
    """PyG's ``PoolingByMultiheadAttention``: ``pma(x, mask=None) = mab(seed,
    relu(lin(x)), y_mask=mask)`` with ``num_seed_points`` learnt seeds.

    Names (PyG): ``lin.*``, ``seed`` ``(1, num_seed_points, channels)``, ``mab.*``.
    """

    _param_names = ("seed",)
    _child_names = ("lin", "mab")

    def __init__(
        self,
        channels: int,
        num_seed_points: int = 1,
        heads: int = 1,
        layer_norm: bool = True,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        seeds = layer_size(type(self).__name__, "num_seed_points", num_seed_points, minimum=1)
        dropout = probability(type(self).__name__, "dropout", dropout)
        self.lin = Linear(channels, channels, dtype=dtype, rng=gen)
        self.seed = glorot((1, seeds, channels), gen, dtype)
        self.mab = MultiheadAttentionBlock(
            channels, heads, layer_norm, dropout, dtype=dtype, rng=gen
        )

    def __call__(self, x: Any, mask: Any = None) -> Any:
        xp = get_namespace(x)
        y = _relu(self.lin(x))
        seed = xp.broadcast_to(self.seed.astype(y.dtype), (x.shape[0],) + self.seed.shape[1:])
        return self.mab(seed, y, y_mask=mask)


def _blocks(
    count: int, channels: int, heads: int, layer_norm: bool, dropout: float, dtype: Any, gen: Any
) -> _ModuleList:
    return _ModuleList(
        [
            SetAttentionBlock(channels, heads, layer_norm, dropout, dtype=dtype, rng=gen)
            for _ in range(count)
        ]
    )


class SetTransformerAggregation(DenseAggregation):
    """PyG's ``SetTransformerAggregation(channels, num_seed_points=1,
    num_encoder_blocks=1, num_decoder_blocks=1, heads=1, concat=True, layer_norm=False,
    dropout=0.0)``: encoders (SAB, masked) -> PMA -> decoders (SAB) -> ``nan_to_num``, the
    seeds side by side (``concat``) or averaged.

    Names (PyG): ``encoders.{i}.mab.*``, ``pma.*``, ``decoders.{i}.mab.*``.

    Shapes:
        - input: ``x`` ``(E, channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, num_seed_points * channels)`` (``concat``) or ``(G, channels)``
    """

    _takes_dtype = True
    _child_names = ("encoders", "pma", "decoders")

    def __init__(
        self,
        channels: int,
        num_seed_points: int = 1,
        num_encoder_blocks: int = 1,
        num_decoder_blocks: int = 1,
        heads: int = 1,
        concat: bool = True,
        layer_norm: bool = False,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        where = type(self).__name__
        self.channels = layer_size(where, "channels", channels, minimum=1)
        self.num_seed_points = num_seed_points
        self.heads = heads
        self.concat = bool(concat)
        self.layer_norm = bool(layer_norm)
        self.dropout = probability(where, "dropout", dropout)
        n_enc = layer_size(where, "num_encoder_blocks", num_encoder_blocks)
        n_dec = layer_size(where, "num_decoder_blocks", num_decoder_blocks)
        self.encoders = _blocks(n_enc, channels, heads, layer_norm, dropout, dtype, gen)
        self.pma = PoolingByMultiheadAttention(
            channels, num_seed_points, heads, layer_norm, dropout, dtype=dtype, rng=gen
        )
        self.decoders = _blocks(n_dec, channels, heads, layer_norm, dropout, dtype, gen)

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        # no element at all: the seeds attend to nothing, as an empty group beside others
        x, mask = self.dense(groups, None, max_num_elements, need_steps=False)
        for encoder in self.encoders:
            x = encoder(x, mask)
        x = self.pma(x, mask)
        for decoder in self.decoders:
            x = decoder(x)
        xp = groups.xp
        x = xp.nan_to_num(x, copy=False)
        return x.reshape(x.shape[0], x.shape[1] * x.shape[2]) if self.concat else x.mean(axis=1)

    def extra_repr(self) -> str:
        return (
            f"{self.channels}, num_seed_points={self.num_seed_points}, heads={self.heads}, "
            f"layer_norm={self.layer_norm}"
        )


class GraphMultisetTransformer(DenseAggregation):
    """PyG's ``GraphMultisetTransformer(channels, k, num_encoder_blocks=1, heads=1,
    layer_norm=False, dropout=0.0)``: PMA to ``k`` seeds (masked) -> encoders (SAB) -> PMA
    to one seed.

    Names (PyG): ``pma1.*``, ``encoders.{i}.mab.*``, ``pma2.*``.

    Shapes:
        - input: ``x`` ``(E, channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, channels)``
    """

    _takes_dtype = True
    _child_names = ("pma1", "encoders", "pma2")

    def __init__(
        self,
        channels: int,
        k: int,
        num_encoder_blocks: int = 1,
        heads: int = 1,
        layer_norm: bool = False,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        where = type(self).__name__
        self.channels = layer_size(where, "channels", channels, minimum=1)
        self.k = k
        self.heads = heads
        self.layer_norm = bool(layer_norm)
        self.dropout = probability(where, "dropout", dropout)
        self.pma1 = PoolingByMultiheadAttention(
            channels, k, heads, layer_norm, dropout, dtype=dtype, rng=gen
        )
        n_enc = layer_size(where, "num_encoder_blocks", num_encoder_blocks)
        self.encoders = _blocks(n_enc, channels, heads, layer_norm, dropout, dtype, gen)
        self.pma2 = PoolingByMultiheadAttention(
            channels, 1, heads, layer_norm, dropout, dtype=dtype, rng=gen
        )

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        x, mask = self.dense(groups, None, max_num_elements, need_steps=False)
        x = self.pma1(x, mask)
        for encoder in self.encoders:
            x = encoder(x)
        return self.pma2(x)[:, 0]

    def extra_repr(self) -> str:
        return f"{self.channels}, k={self.k}, heads={self.heads}, layer_norm={self.layer_norm}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> DenseAggregation:
    """PyG's ``SetTransformerAggregation`` / ``GraphMultisetTransformer`` -> ours, weights
    loaded (hyper-parameters read off the module and its first blocks)."""
    kind = type(module).__name__
    pma = module.pma if kind == "SetTransformerAggregation" else module.pma1
    heads = pma.mab.heads
    layer: DenseAggregation
    if kind == "SetTransformerAggregation":
        layer = SetTransformerAggregation(
            module.channels,
            module.num_seed_points,
            len(module.encoders),
            len(module.decoders),
            heads,
            module.concat,
            module.layer_norm,
            module.dropout,
            dtype=dtype,
        )
    else:
        layer = GraphMultisetTransformer(
            module.channels,
            module.k,
            len(module.encoders),
            heads,
            module.layer_norm,
            module.dropout,
            dtype=dtype,
        )
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
