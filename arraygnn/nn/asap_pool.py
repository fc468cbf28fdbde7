"""PyG's ``ASAPooling`` (Ranjan et al., adaptive structure aware pooling).

Every node is the centre of a cluster made of itself and its in-neighbours (self-loops
added as PyG's ``add_remaining_self_loops``, weight 1). A master query per cluster
(``lin`` of the max over the members of ``x_pool``, ``x_pool`` = ``x`` or the optional
intra-cluster ``GNN``) attends over the members (``att``, leaky ReLU, softmax per
cluster); the cluster's feature is the attention-weighted sum of the members' ``x``.
Its fitness ``sigmoid(LEConv(x))`` picks the top ``ceil(ratio * n)`` clusters per graph
(PyG's ``SelectTopK(1, ratio)``: ``tanh(fitness * w / |w|)``, :func:`arraygnn.nn.pool.topk`),
whose features are scaled by their fitness. The coarsened graph is ``S^T A S`` with ``S``
the (node, kept cluster) attention matrix, self-loops removed (or made one per node with
``add_self_loops``).

How it runs: over one destination-sorted CSR, the max is ``ops.spmm(reduce='max')``, the
attention logits are two per-node products gathered per edge (no ``[E, 2F]`` array), the
softmax ``ops.edge_softmax`` and the weighted sum a fused ``ops.spmm``. ``S^T A S`` is two
sparse products written as PyTorch's CPU CSR product returns them (every structural entry
kept, even one whose value cancels to zero; each row's columns in order of first
appearance), so the coarsened edges come out in PyG's order. Dropout on
the attention is a training-time operation: kept as a setting, not applied.

>>> import numpy as np
>>> pool = ASAPooling(3, ratio=0.5, rng=0)
>>> x = np.ones((4, 3), np.float32)
>>> out = pool(x, np.array([[0, 1, 2], [1, 2, 3]]))
>>> out[0].shape, out[4].shape  # x, perm
((2, 3), (2,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.nn._graph_input import check_edge_weight
from arraygnn.nn._module import Module, layer_size, probability, real_number
from arraygnn.nn._pool_input import check_pool_input, torch_spgemm
from arraygnn.nn.le_conv import LEConv
from arraygnn.nn.linear import Linear, _rng, get_activation, matmul
from arraygnn.nn.pool import _SelectTopK, _setting, topk

__all__ = ["ASAPooling"]


def _sorted_csr(row: Any, col: Any, val: Any, num_rows: int, num_cols: int) -> tuple[Any, ...]:
    """``(indptr, indices, data)`` of the coalesced matrix (rows, then columns sorted,
    duplicates summed in edge order), as PyTorch's ``to_torch_csr_tensor`` builds it."""
    from arraygnn.utils.coalesce import coalesce

    xp = get_namespace(row)
    size = max(num_rows, num_cols)
    index, value = coalesce(xp.stack([row, col]).astype(np.int64), val, num_nodes=size)
    indptr = xp.zeros(num_rows + 1, dtype=np.int64)
    indptr[1:] = xp.cumsum(xp.bincount(index[0], minlength=num_rows))
    return indptr, index[1], value


class ASAPooling(Module):
    """PyG's ``ASAPooling``.

    Args:
        in_channels: feature size.
        ratio: the share of each graph's clusters kept (``ceil(ratio * n)``), or, ``>= 1``,
            how many.
        GNN: optional intra-cluster layer class, called as ``GNN(in_channels, in_channels,
            **kwargs)`` and then ``gnn(x, edge_index, edge_weight)`` (e.g.
            ``arraygnn.nn.GCNConv``; ``from_pyg`` converts PyG's ``GraphConv`` /
            ``GCNConv`` through its own converter).
        dropout: the attention dropout of training (kept, not applied: inference only).
        negative_slope: the leaky ReLU's slope on the attention logits.
        add_self_loops: one self-loop per node of the coarsened graph (else none).

    Call as ``pool(x, edge_index, edge_weight=None, batch=None)``; returns PyG's ``(x,
    edge_index, edge_weight, batch, perm)`` (``edge_weight`` ``None`` when none was given;
    ``edge_index`` and ``perm`` int64).

    Shapes:
        - input: x ``(N, in_channels)`` (or ``(N,)`` with ``in_channels=1``), edge_index
          ``(2, E)``, edge_weight ``(E,)``, batch ``(N,)``
        - output: x ``(N', in_channels)``, edge_index ``(2, E')``, edge_weight ``(E',)``,
          batch ``(N',)``, perm ``(N',)``

    Names (PyG): ``lin.*`` ``(in, in)``, ``att.*`` ``(1, 2 in)``, ``gnn_score.lin{1,2,3}.*``,
    ``gnn_intra_cluster.*``, ``select.weight`` ``(1, 1)``.
    """

    _child_names = ("lin", "att", "gnn_score", "gnn_intra_cluster", "select")

    def __init__(
        self,
        in_channels: int,
        ratio: float | int = 0.5,
        GNN: Any = None,  # noqa: N803 - PyG's argument name
        dropout: float = 0.0,
        negative_slope: float = 0.2,
        add_self_loops: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
        **kwargs: Any,
    ) -> None:
        self.in_channels = layer_size("ASAPooling", "in_channels", in_channels, minimum=1)
        ratio = None if ratio is None else _setting("ASAPooling", "ratio", ratio)
        if ratio is None or not ratio > 0:
            raise ValueError(f"ASAPooling: ratio must be > 0, got {ratio!r}")
        self.ratio = ratio
        self.dropout = probability("ASAPooling", "dropout", dropout, below_one=True)
        self.negative_slope = real_number("ASAPooling", "negative_slope", negative_slope)
        self.add_self_loops = bool(add_self_loops)
        gen = _rng(rng)
        f = self.in_channels
        self.lin = Linear(f, f, dtype=dtype, rng=gen)
        self.att = Linear(2 * f, 1, dtype=dtype, rng=gen)
        self.gnn_score = LEConv(f, 1, dtype=dtype, rng=gen)
        self.gnn_intra_cluster = None if GNN is None else GNN(f, f, dtype=dtype, rng=gen, **kwargs)
        self.select = _SelectTopK(1, dtype, gen)

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        """The intra-cluster GNN's own PyG spellings apply to its entries."""
        values = super()._pyg_aliases(values)
        gnn = self.gnn_intra_cluster
        if gnn is None:
            return values
        out, inner = {}, {}
        for key, value in values.items():
            child, dot, rest = key.partition(".")
            if child == "gnn_intra_cluster" and dot:
                inner[rest] = value
            else:
                out[key] = value
        out.update({f"gnn_intra_cluster.{k}": v for k, v in gnn._pyg_aliases(inner).items()})
        return out

    def __call__(
        self, x: Any, edge_index: Any, edge_weight: Any = None, batch: Any = None
    ) -> tuple[Any, ...]:
        from arraygnn import ops
        from arraygnn.utils.loops import add_remaining_self_loops, remove_self_loops

        layer = "ASAPooling"
        if getattr(x, "ndim", None) == 1:
            x = x.reshape(-1, 1)
        xp, batch = check_pool_input(layer, x, edge_index, batch, self.in_channels, self.lin.weight)
        check_edge_weight(layer, edge_weight, int(edge_index.shape[1]))
        n, f = int(x.shape[0]), self.in_channels
        edge_index, edge_weight = add_remaining_self_loops(
            edge_index, edge_weight, fill_value=1.0, num_nodes=n
        )
        src, dst = edge_index[0], edge_index[1]
        x_pool = x
        if self.gnn_intra_cluster is not None:
            x_pool = self.gnn_intra_cluster(x, edge_index, edge_weight)
        csr = ops.to_csr((src, dst), n, n)
        x_q = self.lin(ops.spmm(csr, x_pool, reduce="max"))  # every node has its loop
        w = self.att.weight.reshape(-1)
        logit = (
            matmul(x_q, w[:f].reshape(-1, 1))[dst, 0] + matmul(x_pool, w[f:].reshape(-1, 1))[src, 0]
        )
        logit = logit + self.att.bias.reshape(-1)[0]
        logit = xp.where(logit >= 0, logit, logit * logit.dtype.type(self.negative_slope))
        score = ops.edge_softmax(csr, logit)
        x = ops.spmm(csr, x, edge_weight=score)
        fitness = get_activation("sigmoid")(self.gnn_score(x, edge_index)).reshape(-1)
        sel = self.select.weight.reshape(-1)
        sel_score = xp.tanh(fitness * sel[0] / xp.sqrt((sel * sel).sum()))
        perm = topk(sel_score, self.ratio, batch)
        x = x[perm] * fitness[perm][:, None]
        batch = batch[perm]

        # coarsening: S^T (A S), S[i, c] = score of edge i -> perm[c]
        k = int(perm.shape[0])
        a_val = xp.ones(src.shape[0], dtype=x.dtype) if edge_weight is None else edge_weight
        where = xp.full(n, -1, dtype=np.int64)
        where[perm] = xp.arange(k)
        col = where[dst]
        keep = col >= 0
        a = _sorted_csr(src, dst, a_val, n, n)
        s = _sorted_csr(src[keep], col[keep], score[keep], n, k)
        s_t = _sorted_csr(col[keep], src[keep], score[keep], k, n)
        a_s = torch_spgemm(a, s, n, k)
        ptr, cols, vals = torch_spgemm(s_t, a_s, k, k)
        rows = repeat_counts(xp, xp.arange(k, dtype=np.int64), xp.diff(ptr))
        new_index = xp.stack([rows, cols])
        new_weight = vals.astype(x.dtype, copy=False)
        if self.add_self_loops:
            new_index, new_weight = add_remaining_self_loops(new_index, new_weight, num_nodes=k)
        else:
            new_index, new_weight = remove_self_loops(new_index, new_weight)
        return x, new_index, (None if edge_weight is None else new_weight), batch, perm

    def extra_repr(self) -> str:
        return f"{self.in_channels}, ratio={self.ratio}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> ASAPooling:
    """PyG ``ASAPooling`` -> :class:`ASAPooling`; the intra-cluster GNN goes through
    ``convert`` (``from_pyg``) and the rest loads by name."""
    from arraygnn.nn.weights import _activation, _load

    act = _activation(module.select.act, "from_pyg: ASAPooling select act")
    if act != "tanh":
        raise ValueError(f"from_pyg: ASAPooling select act {act!r} is not supported (tanh)")
    layer = ASAPooling(
        module.in_channels,
        module.ratio,
        dropout=module.dropout,
        negative_slope=module.negative_slope,
        add_self_loops=module.add_self_loops,
        dtype=dtype,
    )
    if module.gnn_intra_cluster is not None:
        layer.gnn_intra_cluster = convert(module.gnn_intra_cluster)
    for name in ("lin", "att", "gnn_score", "select"):
        _load(getattr(layer, name), getattr(module, name), "pyg")
    return layer
