"""Multi-hop normalised propagation: SGC (Wu et al.) and SIGN (Frasca et al.).

Both precompute ``S^k X`` with ``S = D^-1/2 (A + I) D^-1/2`` (PyG's ``gcn_norm``): the
graph is normalised once, converted to CSR once, and each hop is one SpMM. SGC keeps the
last hop and applies a linear map; SIGN keeps every hop ``[X, SX, ..., S^K X]`` as
features for any downstream model (a ridge regression in ``arraygnn._demo_regression``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.nn._graph_input import check_edge_weight, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.graph_conv import normalized_slots
from arraygnn.nn.linear import Linear, _check_features

__all__ = ["SGConv", "propagate_hops"]


def propagate_hops(
    edge_index: Any,
    x: Any,
    hops: int,
    *,
    num_nodes: int | None = None,
    edge_weight: Any = None,
    add_self_loops: bool = True,
) -> list[Any]:
    """``[X, S X, S^2 X, ..., S^hops X]`` with the symmetric GCN normalisation ``S``.

    ``num_nodes`` defaults to ``x.shape[0]``. One normalisation, one CSR, ``hops`` SpMMs.
    The first entry is ``x`` itself (no copy: writing into it writes into ``x``).
    ``x`` and ``edge_weight`` must be floating point (``TypeError`` otherwise); a wrong
    ``edge_weight`` shape is a ``ValueError``.

    Shapes:
        - input: edge_index ``(2, E)``, x ``(N, F)``, edge_weight ``(E,)`` (optional)
        - output: ``hops + 1`` arrays of shape ``(N, F)``

    >>> import numpy as np
    >>> from arraygnn.nn import propagate_hops
    >>> xs = propagate_hops(np.array([[0, 1], [1, 0]]), np.eye(2, dtype=np.float32), 2)
    >>> [h.shape for h in xs]
    [(2, 2), (2, 2), (2, 2)]
    """
    from arraygnn.ops.slot_order import spmm_slots

    if isinstance(hops, (bool, np.bool_)) or not isinstance(hops, (int, np.integer)):
        raise TypeError(f"propagate_hops: hops must be an int, got {hops!r}")  # 2.5 was cut
    if hops < 0:
        raise ValueError(f"propagate_hops: hops must be >= 0, got {hops}")
    if not is_array(x):
        raise TypeError(f"propagate_hops: x must be a NumPy or CuPy array, got {type(x)}")
    if x.dtype.kind != "f":
        raise TypeError(f"propagate_hops: x must hold floating-point features, got dtype {x.dtype}")
    n = int(x.shape[0]) if num_nodes is None else int(num_nodes)
    if x.shape[0] != n:
        raise ValueError(f"propagate_hops: x has {x.shape[0]} rows but num_nodes={n}")
    check_edge_weight("propagate_hops", edge_weight, int(edge_index[0].shape[0]))
    # weights in the CSR's slot order: read in order by every hop, never reordered
    csr, w = normalized_slots(
        edge_index, edge_weight, n, add_self_loops=add_self_loops, dtype=x.dtype
    )
    w = w.astype(x.dtype, copy=False)
    out = [x]
    for _ in range(int(hops)):
        out.append(spmm_slots(csr, out[-1], w))
    return out


class SGConv(Module):
    r"""Simplified graph convolution (PyG's ``SGConv``): ``X' = S^K X W + b``.

    Args:
        in_channels / out_channels: sizes.
        K: number of hops (default 1).
        cached: keep ``S^K X`` from the first call (transductive use, as PyG).
        add_self_loops: use ``A + I`` (default ``True``).
        bias: additive bias.

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, out_channels)``

    Parameter names: ``lin.weight`` ``(out, in)``, ``lin.bias``.
    """

    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        K: int = 1,
        cached: bool = False,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("SGConv", "in_channels", in_channels)
        self.out_channels = layer_size("SGConv", "out_channels", out_channels)
        self.K = layer_size("SGConv", "K", K)
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        self.lin = Linear(in_channels, out_channels, bias, dtype=dtype, rng=rng)
        self._cache: Any = None

    def _clear_cache(self) -> None:
        self._cache = None

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        inp = parse_input("SGConv", x_or_graph, edge_index_or_feat)
        if inp.num_src != inp.num_dst:
            raise ValueError("SGConv needs a homogeneous graph")
        _check_features(inp.x_src, self.in_channels, "SGConv node features")
        check_edge_weight("SGConv", edge_weight, inp.num_edges)
        if self.cached and self._cache is not None:
            h = self._cache
        else:
            h = propagate_hops(
                inp.edge_index,
                inp.x_src,
                self.K,
                num_nodes=inp.num_src,
                edge_weight=edge_weight,
                add_self_loops=self.add_self_loops,
            )[-1]
            if self.cached:
                self._cache = h
        return self.lin(h)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, K={self.K}"
