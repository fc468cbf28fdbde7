"""Mixing higher-order neighbourhoods (Abu-El-Haija et al., 2019): PyG's ``MixHopConv``.

``X' = ||_{p in powers} S^p X W_p + b`` with ``S = D^-1/2 (A + I) D^-1/2`` (PyG's
``gcn_norm``; ``add_self_loops=False`` drops the ``I``). The graph is normalised once and
converted to CSR once; each power up to ``max(powers)`` is one SpMM of the raw features
(:func:`arraygnn.nn.propagate_hops`), then one linear map per listed power: no per-edge
feature array is formed.

>>> import numpy as np
>>> conv = MixHopConv(3, 4, powers=[0, 1, 2])
>>> conv(np.eye(3, dtype=np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 12)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _ModuleList, _rng, add_bias
from arraygnn.nn.sgc import propagate_hops, propagation_input

__all__ = ["MixHopConv"]


class MixHopConv(Module):
    r"""PyG's ``MixHopConv``: :math:`X' = \Vert_{p \in P} \hat A^p X W_p + b`.

    Args:
        in_channels / out_channels: sizes.
        powers: the adjacency powers ``P`` (default ``[0, 1, 2]``); non-negative ints, each
            with its own linear map (a power listed twice reuses its map, as PyG).
        add_self_loops: normalise ``A + I`` (default ``True``).
        bias: additive bias of size ``len(powers) * out_channels``.

    Call as ``conv(x, edge_index, edge_weight=None)`` or ``conv(graph, feat,
    edge_weight=None)`` (a homogeneous graph).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)``
          (optional)
        - output: ``(N, len(powers) * out_channels)``

    Parameter names (PyG): ``lins.p.weight`` ``(out, in)`` for each ``p`` in ``powers``
    (``lins.p`` is ``None`` for a power not listed: PyG's ``Identity``), ``bias``.
    """

    _param_names = ("bias",)
    _child_names = ("lins",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        powers: list[int] | None = None,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("MixHopConv", "in_channels", in_channels)
        self.out_channels = layer_size("MixHopConv", "out_channels", out_channels)
        powers = [0, 1, 2] if powers is None else powers
        if not isinstance(powers, (list, tuple)) or not powers:
            raise ValueError(f"MixHopConv: powers must be a non-empty list of ints, got {powers!r}")
        self.powers = [layer_size("MixHopConv", "powers", p) for p in powers]
        self.add_self_loops = bool(add_self_loops)
        gen = _rng(rng)
        self.lins = _ModuleList(
            [
                Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=gen)
                if p in self.powers
                else None
                for p in range(max(self.powers) + 1)
            ]
        )
        width = len(self.powers) * self.out_channels
        self.bias = np.zeros(width, dtype=dtype) if bias else None

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        inp = propagation_input("MixHopConv", x_or_graph, edge_index_or_feat, edge_weight)
        x = inp.x_src
        _check_features(x, self.in_channels, "MixHopConv node features")
        hops = propagate_hops(
            inp.edge_index,
            x,
            max(self.powers),
            num_nodes=inp.num_src,
            edge_weight=edge_weight,
            add_self_loops=self.add_self_loops,
        )
        outs = {p: self.lins[p](hops[p]) for p in set(self.powers)}
        xp = get_namespace(x)
        out = xp.concatenate([outs[p] for p in self.powers], axis=-1)
        return out if self.bias is None else add_bias(out, self.bias)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, powers={self.powers}"
