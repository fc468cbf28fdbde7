"""PyG's ``ClusterPooling`` (Edge-Based Graph Component Pooling, Stolp et al.).

Self-loops are dropped; every edge gets a score ``lin([x_src || x_dst])`` through
``edge_score_method`` (``'tanh'``, ``'sigmoid'``, or ``'log_softmax'`` over all edges). The
edges scoring above ``threshold`` (default 0.5 for sigmoid, else 0) are contracted: the
weakly connected components of those edges (``scipy.sparse.csgraph.connected_components``,
as PyG) are the new nodes, numbered as SciPy labels them. A cluster's feature is
``sum over edges (i -> j), j in the cluster, of score * x_i`` (every edge, contracted or
not) plus ``x_i`` for a node that no contracted edge touches. The coarsened edges link
distinct clusters joined by an edge, rows then columns sorted.

How it runs: PyG forms dense ``N x N`` matrices (``S``, ``A``, the one-hot ``C``); here the
features are one fused ``ops.spmm`` (edges ``i -> cluster(j)`` weighted by their score) and
the edges one ``coalesce``, O(N + E) memory. The components are found on the host (SciPy),
CuPy inputs' contracted edges copied there and the labels copied back. Dropout is a
training-time operation: kept as a setting, not applied. Float64 works here (PyG 2.8.1's
dense one-hot is float32 and fails to multiply with float64 scores).

>>> import numpy as np
>>> pool = ClusterPooling(2, rng=0)
>>> x = np.arange(8, dtype=np.float32).reshape(4, 2)
>>> out, ei, batch, info = pool(x, np.array([[0, 1, 2], [1, 2, 3]]), np.zeros(4, np.int64))
>>> out.shape[1], int(info.cluster.max()) + 1 == out.shape[0]
(2, True)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import device_of, to_device, to_numpy
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn._pool_input import check_pool_input, pair_scores
from arraygnn.nn.linear import Linear, _rng, get_activation

__all__ = ["ClusterPooling", "ClusterUnpoolInfo"]

_METHODS = ("tanh", "sigmoid", "log_softmax")


class ClusterUnpoolInfo(NamedTuple):
    """PyG's ``UnpoolInfo`` of ``ClusterPooling``: the edges without self-loops, each
    node's cluster, the finer ``batch``."""

    edge_index: Any
    cluster: Any
    batch: Any


class ClusterPooling(Module):
    """PyG's ``ClusterPooling``.

    Args:
        in_channels: feature size.
        edge_score_method: ``'tanh'`` (default), ``'sigmoid'`` or ``'log_softmax'``.
        dropout: the score dropout of training (kept, not applied: inference only).
        threshold: edges scoring above it are contracted; ``None``: 0.5 for ``'sigmoid'``,
            else 0.

    Call as ``pool(x, edge_index, batch)``; returns ``(x, edge_index, batch,
    unpool_info)`` as PyG (``edge_index`` int64 and ``batch`` in ``batch``'s dtype).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, batch ``(N,)``
        - output: x ``(C, in_channels)``, edge_index ``(2, E')``, batch ``(C,)``

    Names (PyG): ``lin.weight`` ``(1, 2 in_channels)``, ``lin.bias`` ``(1,)``.
    """

    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        edge_score_method: str = "tanh",
        dropout: float = 0.0,
        threshold: float | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("ClusterPooling", "in_channels", in_channels, minimum=1)
        if edge_score_method not in _METHODS:
            raise ValueError(
                f"ClusterPooling: edge_score_method must be one of {_METHODS}, got "
                f"{edge_score_method!r}"
            )
        self.dropout = probability("ClusterPooling", "dropout", dropout, below_one=True)
        if threshold is None:
            threshold = 0.5 if edge_score_method == "sigmoid" else 0.0
        self.edge_score_method = edge_score_method
        self.threshold = float(threshold)
        self.lin = Linear(2 * self.in_channels, 1, dtype=dtype, rng=_rng(rng))

    def __call__(self, x: Any, edge_index: Any, batch: Any = None) -> tuple[Any, ...]:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        from arraygnn import ops
        from arraygnn.utils.coalesce import coalesce

        xp, batch = check_pool_input(
            "ClusterPooling", x, edge_index, batch, self.in_channels, self.lin.weight
        )
        n = int(x.shape[0])
        edge_index = edge_index[:, edge_index[0] != edge_index[1]]
        src, dst = edge_index[0], edge_index[1]
        score = pair_scores(self.lin, x, src, dst)
        if self.edge_score_method == "log_softmax":
            if score.shape[0]:
                shifted = score - score.max()
                score = shifted - xp.log(xp.exp(shifted).sum())
        else:
            score = get_activation(self.edge_score_method)(score)
        contract = score > score.dtype.type(self.threshold)
        c_src, c_dst = to_numpy(src[contract]), to_numpy(dst[contract])
        adj = coo_matrix((np.ones(c_src.shape[0]), (c_src, c_dst)), shape=(n, n))
        size, labels = connected_components(adj, directed=True, connection="weak")
        cluster = to_device(labels.astype(np.int64), device_of(x))
        touched = xp.zeros(n, dtype=bool)
        touched[src[contract]] = True
        touched[dst[contract]] = True
        # edges i -> cluster(j) weighted by their score, plus each untouched node itself
        alone = xp.flatnonzero(~touched)
        e_src = xp.concatenate([src.astype(np.int64), alone])
        e_dst = xp.concatenate([cluster[dst], cluster[alone]])
        weight = xp.concatenate([score, xp.ones(alone.shape[0], dtype=score.dtype)])
        new_x = ops.spmm((e_src, e_dst), x, edge_weight=weight, num_dst_nodes=int(size))
        coarse = cluster[edge_index] if edge_index.shape[1] else xp.zeros((2, 0), np.int64)
        coarse = coarse[:, coarse[0] != coarse[1]]
        new_edge_index = coalesce(coarse, num_nodes=int(size))
        new_batch = xp.empty(int(size), dtype=batch.dtype)
        new_batch[cluster] = batch
        return new_x, new_edge_index, new_batch, ClusterUnpoolInfo(edge_index, cluster, batch)

    def extra_repr(self) -> str:
        return f"{self.in_channels}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> ClusterPooling:
    """PyG ``ClusterPooling`` -> :class:`ClusterPooling`, weights loaded."""
    from arraygnn.nn.weights import _load

    layer = ClusterPooling(
        module.in_channels,
        module.edge_score_method,
        module.dropout,
        module.threshold,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
