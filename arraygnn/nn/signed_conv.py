"""Signed graph convolution (Derr et al., 2018): PyG's ``SignedConv``.

Two edge sets, positive and negative, each aggregated with a mean. The first layer
(``first_aggr=True``) maps ``mean_pos(x)`` and ``mean_neg(x)`` with their own linear maps
plus a root term each; a deeper layer reads ``x = [x_pos, x_neg]`` (``2 * in_channels``
wide) and mixes balanced / unbalanced paths: ``pos = [mean_pos(x_pos), mean_neg(x_neg)]``,
``neg = [mean_pos(x_neg), mean_neg(x_pos)]``. Each edge set is one CSR and one mean SpMM
of the whole ``x`` (a target without in-edges gets zeros, as PyG): no per-edge feature
array is formed.

>>> import numpy as np
>>> conv = SignedConv(3, 4, first_aggr=True, rng=0)
>>> pos, neg = np.array([[0, 1], [1, 2]]), np.array([[2], [0]])
>>> conv(np.eye(3, dtype=np.float32), pos, neg).shape
(3, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_float_features, csr_of, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng

__all__ = ["SignedConv"]


class SignedConv(Module):
    r"""PyG's ``SignedConv``.

    Args:
        in_channels / out_channels: sizes (a deeper layer reads ``2 * in_channels``
            features: the previous layer's ``[pos, neg]`` output).
        first_aggr: the first layer (``True``) or a deeper one (``False``).
        bias: bias of the root maps ``lin_pos_r`` / ``lin_neg_r``.

    Call as ``conv(x, pos_edge_index, neg_edge_index)``; ``x`` may be a bipartite pair
    ``(x_src, x_dst)``.

    Shapes:
        - input: x ``(N, F)`` (or ``(N, *, F)``, each middle index on its own) with
          ``F = in_channels`` (first) or ``2 * in_channels``, pos_edge_index ``(2, E_pos)``,
          neg_edge_index ``(2, E_neg)``
        - output: ``(N_dst, 2 * out_channels)``: ``[pos, neg]``

    Parameter names (PyG): ``lin_pos_l.weight``, ``lin_pos_r.weight`` / ``.bias``,
    ``lin_neg_l.weight``, ``lin_neg_r.weight`` / ``.bias``.
    """

    _child_names = ("lin_pos_l", "lin_pos_r", "lin_neg_l", "lin_neg_r")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        first_aggr: bool,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("SignedConv", "in_channels", in_channels)
        self.out_channels = layer_size("SignedConv", "out_channels", out_channels)
        self.first_aggr = bool(first_aggr)
        gen = _rng(rng)
        fin, fout = self.in_channels, self.out_channels
        wide = fin if self.first_aggr else 2 * fin
        self.lin_pos_l = Linear(wide, fout, False, dtype=dtype, rng=gen)
        self.lin_pos_r = Linear(fin, fout, bias, dtype=dtype, rng=gen)
        self.lin_neg_l = Linear(wide, fout, False, dtype=dtype, rng=gen)
        self.lin_neg_r = Linear(fin, fout, bias, dtype=dtype, rng=gen)

    def __call__(self, x: Any, pos_edge_index: Any, neg_edge_index: Any) -> Any:
        from arraygnn import ops

        pos = parse_input("SignedConv (pos_edge_index)", x, pos_edge_index)
        neg = parse_input("SignedConv (neg_edge_index)", x, neg_edge_index)
        width = self.in_channels if self.first_aggr else 2 * self.in_channels
        x_src, x_dst = pos.x_src, pos.x_dst
        _check_features(x_src, width, "SignedConv source features")
        _check_features(x_dst, width, "SignedConv destination features")
        check_float_features("SignedConv", x_src, x_dst)
        agg_pos = ops.spmm(csr_of(pos), x_src, reduce="mean", num_dst_nodes=pos.num_dst)
        agg_neg = ops.spmm(csr_of(neg), x_src, reduce="mean", num_dst_nodes=neg.num_dst)
        xp = get_namespace(x_src)
        if self.first_aggr:
            out_pos = self.lin_pos_l(agg_pos) + self.lin_pos_r(x_dst)
            out_neg = self.lin_neg_l(agg_neg) + self.lin_neg_r(x_dst)
        else:
            f = self.in_channels  # [pos, neg] halves of the feature (last) dimension
            balanced = xp.concatenate([agg_pos[..., :f], agg_neg[..., f:]], axis=-1)
            unbalanced = xp.concatenate([agg_pos[..., f:], agg_neg[..., :f]], axis=-1)
            out_pos = self.lin_pos_l(balanced) + self.lin_pos_r(x_dst[..., :f])
            out_neg = self.lin_neg_l(unbalanced) + self.lin_neg_r(x_dst[..., f:])
        return xp.concatenate([out_pos, out_neg], axis=-1)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, first_aggr={self.first_aggr}"
