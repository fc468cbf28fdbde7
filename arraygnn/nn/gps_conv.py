"""PyG's ``GPSConv`` (Rampášek et al., "Recipe for a General, Powerful, Scalable Graph
Transformer"): a local message-passing layer and global multi-head attention side by side.

``h_local = norm1(conv(x, edge_index, **kwargs) + x)``, ``h_global = norm2(attn(x) + x)``
with ``attn`` a :class:`~arraygnn.nn.MultiheadAttention` over each graph's nodes (PyG's
``to_dense_batch`` layout ``[B, N_max, C]``, padding masked out as keys; a ``[B, H,
N_max, N_max]`` score array, as torch's), then ``out = h + mlp(h)``, ``h = h_local +
h_global``, ``out = norm3(out)``. The norms that take ``batch`` (graph / layer / instance
norm) get it, as PyG's. Inference: dropout is the identity.

``attn_type='performer'`` uses :class:`~arraygnn.nn.PerformerAttention` instead (linear
in the graph size, random-feature kernel; padded nodes' values zeroed, as PyG's).

RULE: ``batch`` is sorted (PyG's layout); ``None`` means one graph.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv, GPSConv
>>> layer = GPSConv(4, GCNConv(4, 4, rng=0), heads=2, rng=1)
>>> x = np.ones((5, 4), np.float32)
>>> layer(x, np.array([[0, 1, 3], [1, 2, 4]]), np.array([0, 0, 0, 1, 1])).shape
(5, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import Linear, Sequential, _check_features, _rng, resolve_act
from arraygnn.nn.multihead_attention import MultiheadAttention

__all__ = ["GPSConv", "from_pyg_module"]

_WHERE = "GPSConv"


def _identity(x: Any) -> Any:
    return x


def _norm(norm: Any, channels: int, kwargs: dict[str, Any], dtype: Any, gen: Any) -> Any:
    """PyG's ``normalization_resolver(norm, channels, **norm_kwargs)``: ``'batch_norm'`` is
    PyG's ``BatchNorm`` (``module.*`` names), the others via the shared resolver."""
    from arraygnn.nn.norm.resolver import NORMS, make_norm, norm_key

    if norm is None:
        return None
    key = norm_key(norm)
    if key is None:
        raise ValueError(f"{_WHERE}: norm must be None or one of {sorted(NORMS)}, got {norm!r}")
    if key == "batch_norm":
        from arraygnn.nn.norm import BatchNorm

        try:
            return BatchNorm(channels, **kwargs, dtype=dtype)
        except TypeError as err:
            raise ValueError(f"{_WHERE}: norm_kwargs {kwargs}: {err}") from None
    return make_norm(_WHERE, key, channels, kwargs, dtype, gen)


class GPSConv(Module):
    """PyG's ``GPSConv(channels, conv, heads=1, dropout=0.0, act='relu', act_kwargs=None,
    norm='batch_norm', norm_kwargs=None, attn_type='multihead', attn_kwargs=None)``.

    Args:
        channels: node feature width ``C``.
        conv: the local layer (any arraygnn layer called as ``conv(x, edge_index,
            **kwargs)`` with ``C`` outputs), or ``None`` for attention only.
        heads: attention heads.
        dropout: kept for the record (inference).
        act / act_kwargs: the MLP's activation (a name or callable; keyword arguments such as
            ``negative_slope`` for ``'leaky_relu'``).
        norm / norm_kwargs: ``'batch_norm'``, ``'layer_norm'``, ``'graph_norm'``,
            ``'instance_norm'``, ... (PyG's resolver names) or ``None``.
        attn_type: ``'multihead'`` or ``'performer'``.
        attn_kwargs: :class:`~arraygnn.nn.MultiheadAttention` arguments (``bias``,
            ``add_bias_kv``, ``add_zero_attn``, ``dropout``) or
            :class:`~arraygnn.nn.PerformerAttention` ones (``head_channels``, ``kernel``,
            ``qkv_bias``, ``attn_out_bias``).

    Call as ``layer(x, edge_index, batch=None, **kwargs)`` (``kwargs`` go to ``conv``).

    Names (PyG): ``conv.*``, ``attn.in_proj_weight`` / ``attn.in_proj_bias`` /
    ``attn.out_proj.*``, ``mlp.0.*``, ``mlp.3.*``, ``norm1.*``, ``norm2.*``, ``norm3.*``.

    Shapes:
        - input: ``x`` ``(N, C)``, ``edge_index`` ``(2, E)``, ``batch`` ``(N,)``
        - output: ``(N, C)``
    """

    _child_names = ("conv", "attn", "mlp", "norm1", "norm2", "norm3")

    def __init__(
        self,
        channels: int,
        conv: Any,
        heads: int = 1,
        dropout: float = 0.0,
        act: str | Callable[[Any], Any] | None = "relu",
        act_kwargs: dict[str, Any] | None = None,
        norm: str | None = "batch_norm",
        norm_kwargs: dict[str, Any] | None = None,
        attn_type: str = "multihead",
        attn_kwargs: dict[str, Any] | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        c = self.channels = layer_size(_WHERE, "channels", channels, minimum=1)
        if attn_type not in ("multihead", "performer"):
            raise ValueError(
                f"{_WHERE}: attn_type must be 'multihead' or 'performer', got {attn_type!r}"
            )
        if conv is not None and not callable(conv):
            raise TypeError(f"{_WHERE}: conv must be a layer or None, got {conv!r}")
        gen = _rng(rng)
        self.conv = conv
        self.heads = heads
        self.dropout = probability("GPSConv", "dropout", dropout)
        self.attn_type = attn_type
        self.attn: Any
        if attn_type == "multihead":
            self.attn = MultiheadAttention(
                c, heads, batch_first=True, dtype=dtype, rng=gen, **(attn_kwargs or {})
            )
        else:
            from arraygnn.nn.performer_attention import PerformerAttention

            self.attn = PerformerAttention(c, heads, dtype=dtype, rng=gen, **(attn_kwargs or {}))
        fn = resolve_act(_WHERE, act, act_kwargs) or _identity  # PyG's activation_resolver
        self.mlp = Sequential(
            Linear(c, 2 * c, dtype=dtype, rng=gen),
            fn,
            _identity,  # PyG's Dropout (inference)
            Linear(2 * c, c, dtype=dtype, rng=gen),
        )
        kw = dict(norm_kwargs or {})
        self.norm1 = _norm(norm, c, kw, dtype, gen)
        self.norm2 = _norm(norm, c, kw, dtype, gen)
        self.norm3 = _norm(norm, c, kw, dtype, gen)

    @staticmethod
    def _normed(norm: Any, h: Any, batch: Any, with_batch: bool) -> Any:
        if norm is None:
            return h
        return norm(h, batch=batch) if with_batch else norm(h)

    def __call__(self, x: Any, edge_index: Any, batch: Any = None, **kwargs: Any) -> Any:
        from arraygnn.nn.norm.resolver import takes_batch
        from arraygnn.utils.dense import to_dense_batch

        _check_features(x, self.channels, f"{_WHERE} node features", self.mlp[0].weight)
        if x.ndim != 2:
            raise ValueError(f"{_WHERE}: x must be [N, {self.channels}], got {tuple(x.shape)}")
        try:  # PyG's layout of each graph's nodes; checks batch before conv / norms see it
            dense, mask = to_dense_batch(x, batch)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{_WHERE}: {err}") from None
        with_batch = takes_batch(self.norm1)  # PyG: norm1's signature decides for all three
        hs = []
        if self.conv is not None:  # local message passing
            h = self.conv(x, edge_index, **kwargs)
            if tuple(h.shape) != tuple(x.shape):
                raise ValueError(
                    f"{_WHERE}: conv must keep x's shape {tuple(x.shape)}, got {tuple(h.shape)}"
                )
            hs.append(self._normed(self.norm1, h + x, batch, with_batch))
        if isinstance(self.attn, MultiheadAttention):
            h, _ = self.attn(dense, dense, dense, key_padding_mask=~mask, need_weights=False)
        else:  # PerformerAttention
            h = self.attn(dense, mask=mask)
        h = h[mask]
        h += x
        hs.append(self._normed(self.norm2, h, batch, with_batch))
        out = hs[0] if len(hs) == 1 else hs[0] + hs[1]
        out = out + self.mlp(out)
        return self._normed(self.norm3, out, batch, with_batch)

    def extra_repr(self) -> str:
        return f"{self.channels}, conv={self.conv!r}, heads={self.heads}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> GPSConv:
    """PyG's ``GPSConv`` -> ours: ``conv``, ``attn`` (torch's ``MultiheadAttention``), the MLP
    and the norms converted through ``convert`` with their weights."""
    layer = GPSConv(module.channels, None, module.heads, module.dropout, norm=None, dtype=dtype)
    layer.attn_type = module.attn_type
    layer.conv = None if module.conv is None else convert(module.conv)
    layer.attn = convert(module.attn)
    layer.mlp = convert(module.mlp)
    for name in ("norm1", "norm2", "norm3"):
        norm = getattr(module, name)
        setattr(layer, name, None if norm is None else convert(norm))
    return layer
