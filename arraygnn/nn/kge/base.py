"""The base of PyG's knowledge-graph embedding models (``torch_geometric.nn.kge``):
embedding tables, triple checks and the ranking evaluation ``test``.

``test`` ranks each triple's tail among all ``num_nodes`` entities, as PyG's
``KGEModel.test``, without its per-triple loop and sort: each step scores a block of
triples against a block of candidate tails (at most ``batch_size`` (triple, tail) pairs,
the memory PyG's ``batch_size`` allows), and the rank is counted (scores above the true
tail's, plus equal scores of lower entity ids: the order of a stable descending sort),
never sorted.

>>> import numpy as np
>>> from arraygnn.nn.kge import DistMult
>>> model = DistMult(5, 2, 4, rng=0)
>>> h, r, t = np.array([0, 1]), np.array([0, 1]), np.array([2, 3])
>>> model(h, r, t).shape
(2,)
>>> [round(v, 3) for v in model.test(h, r, t, batch_size=5, k=5)]
[0.5, 0.75, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import _rng

__all__ = ["KGEModel"]


def _table(rows: int, cols: int, gen: Any, dtype: Any, low: float, high: float) -> _Embedding:
    emb = _Embedding(0, cols, gen, dtype)
    emb.weight = gen.uniform(low, high, (rows, cols)).astype(dtype)
    return emb


def xavier_bound(rows: int, cols: int) -> float:
    """``torch.nn.init.xavier_uniform_``'s bound for a ``(rows, cols)`` table."""
    return float(np.sqrt(6.0 / (rows + cols))) if rows + cols else 0.0


class KGEModel(Module):
    """PyG's ``KGEModel``: ``node_emb`` ``(num_nodes, hidden_channels)`` and ``rel_emb``
    ``(num_relations, hidden_channels)`` tables (plus the subclass's), ``model(head_index,
    rel_type, tail_index)`` -> a score per triple, ``test`` -> ``(mean_rank, mrr,
    hits_at_k)``. Subclasses define ``_pair(head, rel, tail)`` over gathered rows that
    broadcast against each other (``[B, 1, F]`` with ``[1, C, F]`` in ``test``), after
    ``_prep`` of the entity rows (done once per table in ``test``)."""

    _child_names: tuple[str, ...] = ("node_emb", "rel_emb")
    #: the tables indexed by entity ids, and those indexed by relation ids
    _node_tables: tuple[str, ...] = ("node_emb",)
    _rel_tables: tuple[str, ...] = ("rel_emb",)

    def __init__(
        self,
        num_nodes: int,
        num_relations: int,
        hidden_channels: int,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = type(self).__name__
        self.num_nodes = layer_size(where, "num_nodes", num_nodes)
        self.num_relations = layer_size(where, "num_relations", num_relations)
        self.hidden_channels = layer_size(where, "hidden_channels", hidden_channels)
        self.sparse = bool(sparse)
        self._gen = _rng(rng)
        dt = np.dtype(dtype)
        if dt.kind != "f":
            raise TypeError(f"{where}: dtype must be floating point, got {dt}")
        b = xavier_bound(self.num_nodes, self.hidden_channels)
        self.node_emb = _table(self.num_nodes, self.hidden_channels, self._gen, dt, -b, b)
        b = xavier_bound(self.num_relations, self.hidden_channels)
        self.rel_emb = _table(self.num_relations, self.hidden_channels, self._gen, dt, -b, b)

    # ---- rows ----------------------------------------------------------------------
    def _check(self, name: str, index: Any, size: int) -> None:
        from arraygnn.ops._common import check_index

        check_index(f"{type(self).__name__}: {name}", index, size)

    def _rows(self, tables: tuple[str, ...], index: Any) -> tuple[Any, ...]:
        from arraygnn import ops

        return tuple(ops.gather(getattr(self, name).weight, index) for name in tables)

    def _gather(self, head_index: Any, rel_type: Any, tail_index: Any) -> tuple[Any, Any, Any]:
        """``(head, rel, tail)``: each a tuple of gathered rows, one per table."""
        return (
            self._rows(self._node_tables, head_index),
            self._rows(self._rel_tables, rel_type),
            self._rows(self._node_tables, tail_index),
        )

    def _prep(self, rows: tuple[Any, ...]) -> tuple[Any, ...]:
        """Hook: entity rows as ``_pair`` takes them (TransE normalises them)."""
        return rows

    def _pair(self, head: Any, rel: Any, tail: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _score(self, head: Any, rel: Any, tail: Any) -> Any:
        return self._pair(self._prep(head), rel, self._prep(tail))

    def __call__(self, head_index: Any, rel_type: Any, tail_index: Any) -> Any:
        """The score of each triple ``(head_index[i], rel_type[i], tail_index[i])``."""
        self._check("head_index", head_index, self.num_nodes)
        self._check("rel_type", rel_type, self.num_relations)
        self._check("tail_index", tail_index, self.num_nodes)
        n = {int(a.shape[0]) for a in (head_index, rel_type, tail_index)}
        if len(n) != 1:
            raise ValueError(
                f"{type(self).__name__}: head_index, rel_type and tail_index must have one "
                f"length, got {head_index.shape[0]}, {rel_type.shape[0]}, {tail_index.shape[0]}"
            )
        return self._score(*self._gather(head_index, rel_type, tail_index))

    # ---- PyG's training-loop pieces (no gradients: losses to monitor) ---------------
    def random_sample(
        self, head_index: Any, rel_type: Any, tail_index: Any, *, seed: Any = None
    ) -> tuple[Any, Any, Any]:
        """PyG's negative triples: of ``T`` triples, the first ``T // 2`` get a uniformly
        random head, the others a uniformly random tail (one draw of ``T`` entity ids).
        Returns new ``(head_index, rel_type, tail_index)`` in the inputs' dtypes
        (``rel_type`` as given; ids widened when ``num_nodes`` ids do not fit them).
        ``seed``: an int, a NumPy ``Generator`` or ``None``; PyG draws from torch's global
        generator, so its negatives differ."""
        from arraygnn.nn._skipgram import seeded

        where = f"{type(self).__name__}.random_sample"
        gen = seeded(seed, where)  # checked first: a bad seed is named before the ids
        xp = self._check_triples(head_index, rel_type, tail_index)
        count, half = int(head_index.shape[0]), int(head_index.shape[0]) // 2
        if count and self.num_nodes == 0:
            raise ValueError(f"{where}: the model has no entities to draw (num_nodes=0)")
        rnd = xp.asarray(gen.integers(0, max(self.num_nodes, 1), count))
        wide = np.min_scalar_type(max(self.num_nodes - 1, 0))  # the drawn ids never wrap
        head = head_index.astype(np.promote_types(head_index.dtype, wide))
        tail = tail_index.astype(np.promote_types(tail_index.dtype, wide))
        head[:half] = rnd[:half].astype(head.dtype)
        tail[half:] = rnd[half:].astype(tail.dtype)
        return head, rel_type, tail

    def loss(
        self,
        head_index: Any,
        rel_type: Any,
        tail_index: Any,
        *,
        neg: Any = None,
        seed: Any = None,
    ) -> Any:
        """PyG's training loss of the triples against negatives (a 0-d array): ``neg`` a
        ``(head_index, rel_type, tail_index)`` tuple of negative triples, or ``None`` to
        draw them with :meth:`random_sample` from ``seed`` (PyG draws them inside
        ``loss``). ``TransE`` / ``DistMult``: the margin ranking loss
        ``mean(max(0, margin - pos + neg))``; ``ComplEx`` / ``RotatE``: binary cross
        entropy of the scores as logits (positives 1, negatives 0)."""
        where = f"{type(self).__name__}.loss"
        if neg is None:
            neg = self.random_sample(head_index, rel_type, tail_index, seed=seed)
        elif seed is not None:
            raise ValueError(f"{where}: give neg or seed, not both")
        elif not isinstance(neg, (tuple, list)) or len(neg) != 3:
            raise ValueError(
                f"{where}: neg must be a (head_index, rel_type, tail_index) tuple of negative "
                f"triples (e.g. from random_sample), got {type(neg).__name__}"
                + (f" of {len(neg)}" if isinstance(neg, (tuple, list)) else "")
            )
        pos_score = self(head_index, rel_type, tail_index)
        neg_score = self(*neg)
        return self._loss(pos_score, neg_score)

    def _loss(self, pos: Any, neg: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no loss (PyG's is abstract)")

    def loader(self, head_index: Any, rel_type: Any, tail_index: Any, **kwargs: Any) -> Any:
        """PyG's ``loader``: a :class:`~arraygnn.nn.kge.KGTripletLoader` over the triples
        (``batch_size``, ``shuffle``, ``drop_last``, ``seed`` and torch ``DataLoader``
        keywords such as ``generator``)."""
        from arraygnn.nn.kge.loader import KGTripletLoader

        self._check_triples(head_index, rel_type, tail_index)
        return KGTripletLoader(head_index, rel_type, tail_index, **kwargs)

    def _check_triples(self, head_index: Any, rel_type: Any, tail_index: Any) -> Any:
        """Ids in range, one length: the triples' namespace."""
        from arraygnn.nn.kge.loader import check_triples

        self._check("head_index", head_index, self.num_nodes)
        self._check("rel_type", rel_type, self.num_relations)
        self._check("tail_index", tail_index, self.num_nodes)
        return check_triples(type(self).__name__, head_index, rel_type, tail_index)

    # ---- evaluation ----------------------------------------------------------------
    def test(
        self,
        head_index: Any,
        rel_type: Any,
        tail_index: Any,
        batch_size: int,
        k: int = 10,
        log: bool = True,
    ) -> tuple[float, float, float]:
        """``(mean_rank, mrr, hits_at_k)`` of each triple's tail among all entities (ranks
        from 0; PyG's ``test``). ``batch_size`` bounds the (triple, tail) pairs scored
        per step; ``log`` is accepted and ignored (no progress bar). No triples gives
        NaN, as PyG (whose ``hits_at_k`` divides by zero)."""
        where = f"{type(self).__name__}.test"
        step = layer_size(where, "batch_size", batch_size, minimum=1)
        k = layer_size(where, "k", k)
        self._check("head_index", head_index, self.num_nodes)
        self._check("rel_type", rel_type, self.num_relations)
        self._check("tail_index", tail_index, self.num_nodes)
        if not head_index.shape[0] == rel_type.shape[0] == tail_index.shape[0]:
            raise ValueError(f"{where}: head_index, rel_type and tail_index differ in length")
        xp = get_namespace(head_index, rel_type, tail_index, self.node_emb.weight)
        ranks = self._ranks(head_index, rel_type, tail_index, step, xp)
        if ranks.shape[0] == 0:
            return float("nan"), float("nan"), float("nan")
        # PyG averages in float32 (torch.tensor of Python numbers)
        mean_rank = float(xp.mean(ranks.astype(np.float32), dtype=np.float32))
        mrr = float(xp.mean((1.0 / (ranks + 1.0)).astype(np.float32), dtype=np.float32))
        hits = int((ranks < k).sum()) / int(ranks.shape[0])
        return mean_rank, mrr, hits

    def _ranks(self, head_index: Any, rel_type: Any, tail_index: Any, step: int, xp: Any) -> Any:
        n, m = self.num_nodes, int(head_index.shape[0])
        ranks = xp.zeros(m, dtype=np.int64)
        if n == 0 or m == 0:
            return ranks
        cols = min(n, step)  # candidate tails per step
        rows = max(1, step // cols)  # triples per step
        entities = xp.arange(n, dtype=np.int64)
        tails = self._prep(tuple(getattr(self, name).weight for name in self._node_tables))
        for a in range(0, m, rows):
            h, r, t = head_index[a : a + rows], rel_type[a : a + rows], tail_index[a : a + rows]
            head = tuple(x[:, None, :] for x in self._prep(self._rows(self._node_tables, h)))
            rel = tuple(x[:, None, :] for x in self._rows(self._rel_tables, r))
            scores = xp.empty((int(h.shape[0]), n), dtype=self.node_emb.weight.dtype)
            for c in range(0, n, cols):
                tail = tuple(x[None, c : c + cols] for x in tails)
                scores[:, c : c + cols] = self._pair(head, rel, tail)
            true = xp.take_along_axis(scores, t.astype(np.int64)[:, None], axis=1)
            above = (scores > true).sum(axis=1)
            tied = ((scores == true) & (entities[None, :] < t[:, None])).sum(axis=1)
            ranks[a : a + rows] = above + tied
        return ranks

    def extra_repr(self) -> str:
        return (
            f"{self.num_nodes}, num_relations={self.num_relations}, "
            f"hidden_channels={self.hidden_channels}"
        )


def _mean(values: Any) -> Any:
    """The mean as a 0-d array of ``values``' dtype (NaN for none, as torch's)."""
    acc = np.promote_types(values.dtype, np.float64)  # float16 sums / counts overflow
    with np.errstate(invalid="ignore", divide="ignore"):
        total = values.sum(dtype=acc)
        return (total / acc.type(values.shape[0])).astype(values.dtype)


def margin_ranking_loss(pos: Any, neg: Any, margin: float, where: str) -> Any:
    """``torch.nn.functional.margin_ranking_loss(pos, neg, ones, margin)``: the mean of
    ``max(0, margin - pos + neg)`` (one negative per positive)."""
    if pos.shape != neg.shape:
        raise ValueError(
            f"{where}: the margin ranking loss pairs each triple with one negative: "
            f"{pos.shape[0]} triples, {neg.shape[0]} negatives"
        )
    xp = get_namespace(pos)
    return _mean(xp.maximum(neg - pos + pos.dtype.type(margin), pos.dtype.type(0)))


def logits_loss(pos: Any, neg: Any) -> Any:
    """``binary_cross_entropy_with_logits(cat([pos, neg]), cat([ones, zeros]))``:
    ``softplus(-pos)`` and ``softplus(neg)``, averaged together."""
    xp = get_namespace(pos, neg)
    zero = pos.dtype.type(0)
    return _mean(xp.concatenate([xp.logaddexp(zero, -pos), xp.logaddexp(zero, neg)]))


def pyg_kge(cls: type, module: Any, dtype: Any, **kwargs: Any) -> KGEModel:
    """A PyG KGE ``module`` as ``cls``, its tables loaded (the tables' dtype)."""
    from arraygnn.nn.weights import _dtype_of

    model = cls(
        module.num_nodes,
        module.num_relations,
        module.hidden_channels,
        sparse=bool(module.node_emb.sparse),
        dtype=_dtype_of(module),
        **kwargs,
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
