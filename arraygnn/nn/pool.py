"""Top-k node pooling: PyG's ``TopKPooling`` (Gao & Ji, graph U-nets) and ``SAGPooling``
(Lee et al., self-attention graph pooling).

Each node gets a score (TopK: its projection on a learned vector, ``tanh(x . p / |p|)``;
SAG: a one-channel GNN's output through the same selection). Per graph the ``ceil(ratio *
n)`` best nodes are kept (``ratio >= 1``: that many), in descending score order, graphs in
order (``min_score``: every node whose per-graph softmax score exceeds ``min(max - 1e-7,
min_score)``, node order); their features are multiplied by their score (and
``multiplier``), the edges between kept nodes are kept and renumbered. Vectorised over all
graphs (one lexsort); ties keep the node order (PyG's sort leaves it open).

Both return PyG's ``(x, edge_index, edge_attr, batch, perm, score)``.

>>> import numpy as np
>>> pool = TopKPooling(2, ratio=0.5, rng=0)
>>> x = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, 0.0]])
>>> ei = np.array([[0, 1, 2], [1, 2, 3]])
>>> out = pool(x, ei, batch=np.array([0, 0, 1, 1]))
>>> out[4].tolist(), out[3].tolist()  # perm: one node of each graph; their graph ids
([0, 3], [0, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, layer_size, real_number
from arraygnn.nn.linear import _check_features, _rng, get_activation, glorot, matmul
from arraygnn.nn.readout import group_bounds
from arraygnn.ops._common import check_index

__all__ = ["TopKPooling", "SAGPooling", "topk", "filter_adj"]


def _setting(layer: str, name: str, value: Any) -> Any:
    """A checked real ``value`` (:func:`real_number`) as a scalar: a one-element array
    unwrapped, an int kept an int (``ratio >= 1`` counts nodes)."""
    real_number(layer, name, value)
    return value.reshape(-1)[0].item() if is_array(value) else value


def _graph_ranks(xp: Any, batch: Any, order: Any) -> tuple[Any, Any]:
    """``(rank within its graph, size of its graph)`` of the rows of ``batch[order]``
    (``order`` groups the rows by graph)."""
    first, last = group_bounds(xp, batch[order])
    return xp.arange(first.shape[0]) - first, last - first


def topk(score: Any, ratio: float | int | None, batch: Any, min_score: float | None = None,
         tol: float = 1e-7) -> Any:  # fmt: skip
    """PyG's ``topk``: the kept nodes (see the module docstring), int64."""
    xp = get_namespace(score, batch)
    n = int(score.shape[0])
    if n == 0:
        return xp.zeros(0, dtype=np.int64)
    if min_score is not None:
        from arraygnn import ops

        gmax = ops.scatter(score, batch, int(batch.max()) + 1, reduce="max")[batch]
        threshold = xp.minimum(gmax - score.dtype.type(tol), score.dtype.type(min_score))
        return xp.flatnonzero(score > threshold).astype(np.int64)
    if ratio is None:
        raise ValueError("topk: give ratio or min_score")
    order = xp.lexsort(xp.stack([-score, batch]))  # graph, then score descending
    rank, size = _graph_ranks(xp, batch, order)
    if ratio >= 1:
        k = xp.full(n, int(ratio))
    else:  # in the score's dtype, as PyG (0.7 * 10 is 7 in float32, 8 in float64)
        k = xp.ceil(score.dtype.type(ratio) * size.astype(score.dtype)).astype(np.int64)
    return order[rank < k].astype(np.int64)


def filter_adj(
    edge_index: Any,
    edge_attr: Any,
    node_index: Any,
    cluster_index: Any = None,
    num_nodes: int | None = None,
) -> tuple[Any, Any]:
    """PyG's ``filter_adj``: the edges between kept nodes (``node_index``), renumbered to
    ``cluster_index`` (default: their position in ``node_index``), edge order kept, and
    their attributes. ``num_nodes`` defaults to ``edge_index.max() + 1``, as PyG."""
    xp = get_namespace(edge_index)
    if num_nodes is None:
        num_nodes = int(edge_index.max()) + 1 if edge_index.size else 0
    if cluster_index is None:
        cluster_index = xp.arange(node_index.shape[0], dtype=np.int64)
    where = xp.full(num_nodes, -1, dtype=np.int64)
    where[node_index] = cluster_index
    row, col = where[edge_index[0]], where[edge_index[1]]
    keep = (row >= 0) & (col >= 0)
    out = xp.stack([row[keep], col[keep]]).astype(edge_index.dtype)
    return out, (None if edge_attr is None else edge_attr[keep])


class _SelectTopK(Module):
    """The scoring vector (PyG's ``SelectTopK``): ``weight`` ``(1, in_channels)``."""

    _param_names = ("weight",)

    def __init__(self, in_channels: int, dtype: Any, rng: Any) -> None:
        self.weight = glorot((1, in_channels), rng, dtype)


class _TopKBase(Module):
    ratio: float | int | None
    min_score: float | None
    multiplier: float
    select: _SelectTopK

    def _setup(
        self, name: str, in_channels: int, ratio: Any, min_score: Any, multiplier: float,
        nonlinearity: Any,
    ) -> None:  # fmt: skip
        """The settings both poolings share, checked."""
        self.in_channels = layer_size(name, "in_channels", in_channels, minimum=1)
        ratio = None if ratio is None else _setting(name, "ratio", ratio)
        min_score = None if min_score is None else _setting(name, "min_score", min_score)
        multiplier = real_number(name, "multiplier", multiplier)
        if nonlinearity is None:  # PyG keeps None and fails on the first call
            raise ValueError(f"{name}: nonlinearity must be an activation, got None")
        if min_score is None and (ratio is None or not ratio > 0):
            raise ValueError(f"{name}: ratio must be > 0 (or give min_score), got {ratio!r}")
        self.ratio, self.min_score, self.multiplier = ratio, min_score, float(multiplier)
        try:
            self.act = get_activation(nonlinearity)
        except ValueError as err:
            raise ValueError(f"{name}: nonlinearity: {err}") from None

    @staticmethod
    def _attention(name: str, x: Any, attn: Any) -> Any:
        """What the score is computed from: ``attn`` (a column when 1-D), else ``x``."""
        if attn is None:
            attn = x
        elif is_array(attn) and is_array(x) and attn.ndim and attn.shape[0] != x.shape[0]:
            raise ValueError(f"{name}: attn must have {x.shape[0]} rows (one per node), got "
                             f"shape {tuple(attn.shape)}")  # fmt: skip
        return attn.reshape(-1, 1) if getattr(attn, "ndim", 2) == 1 else attn

    def _pool(
        self, name: str, x: Any, attn: Any, edge_index: Any, edge_attr: Any, batch: Any
    ) -> tuple[Any, ...]:
        xp = get_namespace(x)
        n = int(x.shape[0])
        if not is_array(edge_index) or edge_index.ndim != 2 or edge_index.shape[0] != 2:
            raise ValueError(f"{name}: edge_index must be an integer array [2, E]")
        check_index(f"{name}: edge_index", edge_index.reshape(-1), n)
        e = int(edge_index.shape[1])
        if edge_attr is not None and (
            not is_array(edge_attr) or edge_attr.ndim < 1 or edge_attr.shape[0] != e
        ):
            shape = tuple(getattr(edge_attr, "shape", ()))
            raise ValueError(f"{name}: edge_attr must have {e} rows (one per edge), got {shape}")
        if batch is None:
            batch = xp.zeros(n, dtype=np.int64)
        else:
            check_index(f"{name}: batch", batch, None)
            if tuple(batch.shape) != (n,):
                raise ValueError(f"{name}: batch must have shape ({n},), got {batch.shape}")
        w = self.select.weight.reshape(-1)
        raw = matmul(attn, w.reshape(-1, 1))[:, 0]  # x . p
        if self.min_score is None:
            score = self.act(raw / xp.sqrt((w * w).sum()).astype(raw.dtype))
        else:
            from arraygnn import ops

            score = ops.edge_softmax((xp.arange(n), batch), raw)
        perm = topk(score, self.ratio, batch, self.min_score)
        kept = score[perm]
        out = x[perm] * kept[:, None]
        if self.multiplier != 1:
            out = out * self.multiplier
        edges, attrs = filter_adj(edge_index, edge_attr, perm, num_nodes=n)
        return out, edges, attrs, batch[perm], perm, kept


class TopKPooling(_TopKBase):
    """PyG's ``TopKPooling``.

    Args:
        in_channels: feature size.
        ratio: the share of each graph's nodes kept (``ceil(ratio * n)``), or, ``>= 1``,
            how many.
        min_score: keep nodes by per-graph softmax score instead (``ratio`` ignored).
        multiplier: factor on the kept features.
        nonlinearity: the score's activation (``'tanh'``).

    Call as ``pool(x, edge_index, edge_attr=None, batch=None, attn=None)``; returns
    ``(x, edge_index, edge_attr, batch, perm, score)``. Names (PyG): ``select.weight``
    ``(1, in_channels)``.
    """

    _child_names = ("select",)

    def __init__(
        self,
        in_channels: int,
        ratio: float | int = 0.5,
        min_score: float | None = None,
        multiplier: float = 1.0,
        nonlinearity: Any = "tanh",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self._setup("TopKPooling", in_channels, ratio, min_score, multiplier, nonlinearity)
        self.select = _SelectTopK(self.in_channels, dtype, _rng(rng))

    def __call__(
        self, x: Any, edge_index: Any, edge_attr: Any = None, batch: Any = None, attn: Any = None
    ) -> tuple[Any, ...]:
        attn = self._attention("TopKPooling", x, attn)
        _check_features(attn, self.in_channels, "TopKPooling attn", self.select.weight)
        return self._pool("TopKPooling", x, attn, edge_index, edge_attr, batch)

    def extra_repr(self) -> str:
        what = f"ratio={self.ratio}" if self.min_score is None else f"min_score={self.min_score}"
        return f"{self.in_channels}, {what}, multiplier={self.multiplier}"


class SAGPooling(_TopKBase):
    """PyG's ``SAGPooling``: the score is a one-channel GNN's output, then the selection of
    :class:`TopKPooling` (PyG's ``SelectTopK(1, ...)``, its own scalar weight).

    Args:
        in_channels: feature size.
        ratio, min_score, multiplier, nonlinearity: as :class:`TopKPooling`.
        GNN: an arraygnn layer class called as ``GNN(in_channels, 1, **kwargs)``; default
            PyG's ``GraphConv`` (``arraygnn.nn.sage_conv.PyGGraphConv``: ``W_root x_i +
            W_rel sum_j x_j + b``, PyG's names).

    Names (PyG): ``gnn.*``, ``select.weight`` ``(1, 1)``.
    """

    _child_names = ("gnn", "select")

    def __init__(
        self,
        in_channels: int,
        ratio: float | int = 0.5,
        GNN: Any = None,  # noqa: N803 - PyG's argument name
        min_score: float | None = None,
        multiplier: float = 1.0,
        nonlinearity: Any = "tanh",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
        **kwargs: Any,
    ) -> None:
        from arraygnn.nn.sage_conv import PyGGraphConv

        self._setup("SAGPooling", in_channels, ratio, min_score, multiplier, nonlinearity)
        gen = _rng(rng)
        if GNN is None:  # PyG's default GNN, GraphConv (with its parameter names)
            kwargs.setdefault("aggregator_type", "sum")
            GNN = PyGGraphConv  # noqa: N806
        self.gnn = GNN(self.in_channels, 1, dtype=dtype, rng=gen, **kwargs)
        self.select = _SelectTopK(1, dtype, gen)

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        """The GNN's own PyG spellings apply to its ``gnn.*`` entries."""
        values = super()._pyg_aliases(values)
        head = "gnn."
        part = {k[len(head) :]: v for k, v in values.items() if k.startswith(head)}
        rest = {k: v for k, v in values.items() if not k.startswith(head)}
        return {**rest, **{head + k: v for k, v in self.gnn._pyg_aliases(part).items()}}

    def __call__(
        self, x: Any, edge_index: Any, edge_attr: Any = None, batch: Any = None, attn: Any = None
    ) -> tuple[Any, ...]:
        scores = self.gnn(self._attention("SAGPooling", x, attn), edge_index)
        return self._pool("SAGPooling", x, scores.reshape(-1, 1), edge_index, edge_attr, batch)

    def extra_repr(self) -> str:
        what = f"ratio={self.ratio}" if self.min_score is None else f"min_score={self.min_score}"
        return f"{type(self.gnn).__name__}, {self.in_channels}, {what}"
