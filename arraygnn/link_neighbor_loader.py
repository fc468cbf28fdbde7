"""``LinkNeighborLoader``: PyG's mini-batches of sampled neighbourhoods around label edges.

Each batch takes ``batch_size`` label edges (``edge_label_index``, by default every edge of
the graph), optionally adds sampled negatives, and samples the neighbourhood of all their
endpoints exactly as :class:`~arraygnn.neighbor_loader.NeighborLoader` does (the endpoints
are the seeds: ``num_neighbors[0]`` in-edges each, then hop by hop). The batch is a
:class:`~arraygnn.data.Data` over the sampled nodes, the seeds first (sorted, each once, as
PyG), and the label edges relabelled to it: a model run on the batch scores them with
``h = model(batch.x, batch.edge_index)`` and ``h[batch.edge_label_index]``. With
``num_neighbors=[-1] * L`` those rows are the full-graph rows of an ``L``-layer model whose
aggregation looks only at in-edges.

RULE: negatives are true negatives: pairs ``(u, v)``, ``u != v``, that are neither edges of
      ``data.edge_index`` nor label edges, drawn uniformly (through
      :mod:`arraygnn.utils.negative_sampling`'s rank map, no rejection loop). PyG draws
      uniform random nodes and may return edges as negatives ("approximate").
RULE: reproducible from ``seed``: the same seed gives the same epochs, neighbourhoods and
      negatives. Attributes are sliced as :class:`NeighborLoader` does (said, not guessed).

Each batch carries, as PyG's: ``n_id``, ``e_id``, ``num_sampled_nodes`` /
``num_sampled_edges`` (per hop, the seeds first), ``input_id`` (the positions of the batch's
label edges in ``edge_label_index``), ``num_nodes``, ``edge_index``, the sliced attributes
and, per negative-sampling mode:

- none / ``'binary'``: ``edge_label_index`` ``[2, P + N]`` (the ``P`` label edges, then the
  ``N = ceil(P * amount)`` negatives) in batch ids, ``edge_label`` (binary: the labels of the
  positives - ones (float32) when none are given, the given ones plus 1 when their minimum is
  0, as PyG - then zeros; without negative sampling the given labels, or no ``edge_label``);
- ``'triplet'``: ``src_index`` ``[P]``, ``dst_pos_index`` ``[P]`` and ``dst_neg_index``
  ``[P]`` (``[P, amount]`` for ``amount > 1``) in batch ids: ``(src, neg)`` is not an edge.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> ring = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
>>> data = Data(x=np.arange(5.0)[:, None], edge_index=ring)
>>> loader = LinkNeighborLoader(data, [-1], batch_size=2, neg_sampling_ratio=1.0, seed=0)
>>> batch = next(iter(loader))
>>> batch.n_id[batch.edge_label_index[:, :2]].tolist(), batch.edge_label.tolist()
([[0, 1], [1, 2]], [1.0, 1.0, 0.0, 0.0])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arraygnn._loader_args import (
    num_batches,
)
from arraygnn._namespace import get_namespace, is_array
from arraygnn.neighbor_loader import (
    _NeighborSampling,
    check_transform,
    hetero_class,
)
from arraygnn.utils.negative_sampling import (
    _MAX_IDS,
    directed_ids,
    directed_pairs,
    free_to_id,
    generator,
    sorted_unique,
    uniform_below,
)

__all__ = ["LinkNeighborLoader"]

_WHERE = "LinkNeighborLoader"
_MODES = ("binary", "triplet")


def _neg_sampling_arg(neg_sampling: Any, ratio: Any) -> tuple[str, float] | None:
    """``(mode, amount)`` from PyG's ``neg_sampling`` (a dict, a mode name, a
    ``(mode, amount)`` tuple or an object with ``mode`` / ``amount``) or the older
    ``neg_sampling_ratio``; ``None`` for no negatives."""
    if ratio is not None:
        if isinstance(ratio, (bool, np.bool_)) or not isinstance(ratio, (int, float, np.number)):
            raise TypeError(f"{_WHERE}: neg_sampling_ratio must be a number, got {ratio!r}")
        if neg_sampling is not None:
            raise ValueError(f"{_WHERE}: give neg_sampling or neg_sampling_ratio, not both")
        if ratio == 0:
            return None
        neg_sampling = {"mode": "binary", "amount": ratio}
    if neg_sampling is None:
        return None
    if isinstance(neg_sampling, str):
        spec: dict[str, Any] = {"mode": neg_sampling}
    elif isinstance(neg_sampling, tuple):
        spec = dict(zip(("mode", "amount"), neg_sampling))
    elif isinstance(neg_sampling, dict):
        spec = dict(neg_sampling)
    elif hasattr(neg_sampling, "mode"):  # PyG's NegativeSampling
        spec = {k: getattr(neg_sampling, k, None) for k in ("mode", "amount")}
        spec["mode"] = getattr(spec["mode"], "value", spec["mode"])
        for k in ("src_weight", "dst_weight"):
            spec[k] = getattr(neg_sampling, k, None)
    else:
        raise TypeError(
            f"{_WHERE}: neg_sampling must be a dict(mode=..., amount=...), a mode name or None, "
            f"got {type(neg_sampling).__name__}"
        )
    unknown = sorted(set(spec) - {"mode", "amount", "src_weight", "dst_weight"})
    if unknown:
        raise ValueError(f"{_WHERE}: neg_sampling has unknown key(s) {unknown}")
    if spec.get("src_weight") is not None or spec.get("dst_weight") is not None:
        raise ValueError(
            f"{_WHERE}: weighted negative sampling (src_weight / dst_weight) is not provided"
        )
    mode = spec.get("mode")
    if mode not in _MODES:
        raise ValueError(f"{_WHERE}: neg_sampling mode must be 'binary' or 'triplet', got {mode!r}")
    amount = spec.get("amount", 1)
    if amount is None:
        amount = 1
    if isinstance(amount, (bool, np.bool_)) or not isinstance(amount, (int, float, np.number)):
        raise TypeError(f"{_WHERE}: neg_sampling amount must be a number, got {amount!r}")
    if not math.isfinite(amount) or amount <= 0:
        raise ValueError(f"{_WHERE}: neg_sampling amount must be positive, got {amount}")
    if mode == "triplet" and amount != math.ceil(amount):
        raise ValueError(
            f"{_WHERE}: neg_sampling amount must be an integer for 'triplet' mode, got {amount}"
        )
    return mode, float(amount)


def _check_label_time(edge_label_time: Any, time_attr: Any) -> None:
    """PyG: ``edge_label_time`` and ``time_attr`` come together (the label edges' times are
    the seeds' times; without them ``time_attr`` is ignored by PyG, an error here too)."""
    if (edge_label_time is None) != (time_attr is None):
        raise ValueError(
            f"{_WHERE}: received conflicting 'edge_label_time' and 'time_attr' arguments: "
            f"'edge_label_time' is {'set' if edge_label_time is not None else 'not set'} "
            f"while 'time_attr' is {'set' if time_attr is not None else 'not set'}; both "
            "must be given for temporal sampling"
        )


def _label_time(xp: Any, edge_label_time: Any, edge_label_index: Any) -> Any:
    from arraygnn.disjoint_sampling import check_times

    if edge_label_time is None:
        return None
    count = int(edge_label_index.shape[1])
    what = "edge_label_time (one time per label edge)"
    return check_times(xp, _WHERE, what, edge_label_time, count)


def _cycle(xp: Any, times: Any, count: int) -> Any:
    """``times`` repeated to ``count`` entries (PyG's ``repeat(...)[:count]``): entry ``j``
    has the time of label edge ``j % P``."""
    reps = -(-count // max(int(times.shape[0]), 1))
    return xp.tile(times, reps)[:count]


def _binary_labels(xp: Any, label: Any, num_pos: int, count: int) -> Any:
    if label is None:
        label = xp.ones(num_pos, dtype=np.float32)
    zeros = xp.zeros((count,) + tuple(label.shape[1:]), label.dtype)
    return xp.concatenate([label, zeros])


def _disjoint_endpoints(
    loader: Any, xp: Any, positions: Any, src_node_time: Any, dst_node_time: Any
) -> tuple[Any, Any, Any, Any, Any, Any]:
    """The disjoint batch's endpoints, as PyG's ``edge_sample``: ``(src, dst, label,
    times, src_time, dst_time)``, the negatives appended (binary: ``P + N`` pairs;
    triplet: ``dst`` gets ``amount * P`` negatives, k-major: negative ``k`` of label edge
    ``i`` at ``P + k * P + i``), with their seed times (``None`` without
    ``edge_label_time``); ``*_node_time``: the endpoints' node times (temporal
    negatives), or ``None``. ``loader`` is a (hetero) ``LinkNeighborLoader``."""
    src = loader.edge_label_index[0][positions]
    dst = loader.edge_label_index[1][positions]
    num_pos = int(src.shape[0])
    label = None if loader.edge_label is None else loader.edge_label[positions]
    times = None if loader.edge_label_time is None else loader.edge_label_time[positions]
    mode, amount = loader.neg_sampling or (None, 0.0)
    src_time = dst_time = times
    if mode == "binary":
        count = math.ceil(num_pos * amount)
        neg_src, neg_dst = loader._negatives(xp, count)
        if times is not None:
            src_time = dst_time = _cycle(xp, times, num_pos + count)
            neg_src, neg_dst = _in_time(
                xp, neg_src, neg_dst, src_time[num_pos:], src_node_time, dst_node_time,
                lambda k: loader._negatives(xp, k),
            )  # fmt: skip
        src, dst = xp.concatenate([src, neg_src]), xp.concatenate([dst, neg_dst])
        label = _binary_labels(xp, label, num_pos, count)
    elif mode == "triplet":
        rep = xp.tile(src, int(amount))
        _, neg_dst = loader._negatives(xp, 0, rep)
        if times is not None:
            dst_time = _cycle(xp, times, num_pos * (1 + int(amount)))
            _, neg_dst = _in_time(
                xp, rep, neg_dst, dst_time[num_pos:], None, dst_node_time,
                lambda k: loader._negatives(xp, 0, rep[k]), by_index=True,
            )  # fmt: skip
        dst = xp.concatenate([dst, neg_dst])
    return src, dst, label, times, src_time, dst_time


def _in_time(
    xp: Any,
    src: Any,
    dst: Any,
    limit: Any,
    src_time: Any,
    dst_time: Any,
    redraw: Any,
    by_index: bool = False,
) -> tuple[Any, Any]:
    """PyG's temporal negatives: an endpoint whose node time is later than its label
    edge's time (``limit``) is redrawn, up to 5 rounds (``redraw(k)``: ``k`` new pairs, or
    the pairs of entries ``k`` when ``by_index``); what is still too late then becomes the
    earliest node (PyG's fallback, which may not be a true negative). ``None`` times: no
    constraint on that endpoint."""
    src, dst = src.copy(), dst.copy()

    def late() -> Any:
        bad = xp.zeros(src.shape[0], dtype=bool)
        if src_time is not None:
            bad |= src_time[src] > limit
        if dst_time is not None:
            bad |= dst_time[dst] > limit
        return xp.flatnonzero(bad)

    for _ in range(5):
        idx = late()
        if idx.shape[0] == 0:
            return src, dst
        new_src, new_dst = redraw(idx if by_index else int(idx.shape[0]))
        src[idx], dst[idx] = new_src, new_dst
    for ends, time in ((src, src_time), (dst, dst_time)):
        if time is not None and time.shape[0]:
            ends[time[ends] > limit] = xp.argmin(time)
    return src, dst


class LinkNeighborLoader(_NeighborSampling):
    """PyG's ``LinkNeighborLoader`` over a homogeneous :class:`~arraygnn.data.Data`.

    Args:
        data: a ``Data`` with ``edge_index`` ``[2, E]`` and a known ``num_nodes``.
        num_neighbors: in-edges sampled per node and hop, first hop first (``-1``: all).
        edge_label_index: the label edges ``[2, L]`` (integer array; ``None``: every edge
            of ``data.edge_index``). They need not be edges of the graph.
        edge_label: ``[L, ...]`` labels of the label edges, or ``None``.
        neg_sampling: ``None``, ``dict(mode='binary' | 'triplet', amount=1)``, a mode name,
            a ``(mode, amount)`` tuple or PyG's ``NegativeSampling`` (without weights).
        neg_sampling_ratio: PyG's older spelling of ``dict(mode='binary', amount=ratio)``.
        batch_size: label edges per batch.
        shuffle / drop_last / replace / subgraph_type / seed / node_attrs / edge_attrs /
            exclude_keys: as :class:`~arraygnn.neighbor_loader.NeighborLoader`
            (``subgraph_type`` acts on the subgraph sampled around the endpoints). ``data``'s
            own ``edge_label_index`` / ``edge_label``, if any, are left out of the batches
            (the batch's fields of those names are the sampled ones).

    A :class:`~arraygnn.hetero_data.HeteroData` gives a
    :class:`~arraygnn.hetero_link_neighbor_loader.HeteroLinkNeighborLoader` (a subclass):
    ``edge_label_index=(edge_type, index)``, batches that are ``HeteroData``.

    Keyword-only, as PyG: ``edge_label_time`` (one time per label edge: the seeds' times;
    it and ``time_attr`` come together), ``disjoint``, ``temporal_strategy``,
    ``time_attr`` and ``transform`` (as :class:`~arraygnn.neighbor_loader.NeighborLoader`).
    In disjoint /
    temporal mode every endpoint grows its own tree: the seeds are the label edges'
    sources then destinations, negatives included (not made unique), ``batch`` is each
    node's tree modulo the number of label edges, ``edge_label_index`` is
    ``arange(2 * (P + N)).reshape(2, -1)`` (triplet: ``src_index = arange(P)``,
    ``dst_pos_index = arange(P, 2P)``, ``dst_neg_index[i, k] = 2P + k * P + i``), and
    ``edge_label_time`` (triplet: ``seed_time``) the label edges' times, repeated over the
    negatives (entry ``j`` has label edge ``j % P``'s time). With node times the
    negatives' endpoints are no later than that time: late ones are redrawn up to 5
    times, then set to the earliest node (PyG's fallback, which may not be a true
    negative).

    ``directed`` and torch ``DataLoader`` keywords (``**kwargs``): as
    :class:`~arraygnn.neighbor_loader.NeighborLoader`; positions from ``sampler`` /
    ``batch_sampler`` index the label edges.

    Not provided (PyG has them): weighted neighbour and negative sampling, worker
    processes. Differences: the negatives are true negatives (see the module notes), and
    giving both ``neg_sampling`` and ``neg_sampling_ratio`` is an error (PyG lets the ratio
    win). ``len(loader)`` is the number of batches per epoch. Like PyG, the label edges are
    not removed from the graph the neighbourhoods are sampled from.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> data = Data(x=np.ones((4, 1)), edge_index=np.array([[0, 1, 2], [1, 2, 3]]))
    >>> loader = LinkNeighborLoader(data, [2], batch_size=3,
    ...                             neg_sampling=dict(mode="triplet", amount=2), seed=0)
    >>> b = next(iter(loader))
    >>> b.src_index.shape, b.dst_pos_index.shape, b.dst_neg_index.shape
    ((3,), (3,), (3, 2))
    """

    def __new__(cls, data: Any = None, *args: Any, **kwargs: Any) -> Any:
        # --- HeteroData dispatch (arraygnn/hetero_link_neighbor_loader.py) --------------
        # PyG's one LinkNeighborLoader name takes both graph kinds: a HeteroData builds the
        # hetero subclass, whose __init__ then runs with the same arguments.
        from arraygnn._remote_backend import is_hetero_remote
        from arraygnn.hetero_data import HeteroData

        if isinstance(data, HeteroData) or is_hetero_remote(data):
            from arraygnn.hetero_link_neighbor_loader import HeteroLinkNeighborLoader

            cls = hetero_class(cls, LinkNeighborLoader, HeteroLinkNeighborLoader)
        return super().__new__(cls)

    def __init__(
        self,
        data: Any,
        num_neighbors: Sequence[int],
        edge_label_index: Any = None,
        edge_label: Any = None,
        neg_sampling: Any = None,
        neg_sampling_ratio: float | None = None,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        replace: bool = False,
        subgraph_type: str = "directional",
        seed: Any = None,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        exclude_keys: Iterable[str] = (),
        *,
        edge_label_time: Any = None,
        disjoint: bool = False,
        temporal_strategy: str = "uniform",
        time_attr: str | None = None,
        transform: Callable[[Any], Any] | None = None,
        directed: bool = True,
        **kwargs: Any,
    ) -> None:
        self.transform = check_transform(transform)
        _check_label_time(edge_label_time, time_attr)
        excluded = tuple(exclude_keys) + ("edge_label_index", "edge_label", "edge_label_time")
        seed = self._torch_args(_WHERE, kwargs, directed, seed, batch_size, shuffle, drop_last)
        subgraph_type = subgraph_type if directed else "induced"
        super().__init__(
            _WHERE, data, num_neighbors, batch_size, shuffle, drop_last, replace,
            subgraph_type, seed, node_attrs, edge_attrs, excluded, disjoint,
            temporal_strategy, time_attr,
        )  # fmt: skip
        xp = self.graph._xp()
        self.neg_sampling = _neg_sampling_arg(neg_sampling, neg_sampling_ratio)
        self.edge_label_index = self._label_index(xp, edge_label_index)
        self.edge_label = self._label(xp, edge_label)
        self.edge_label_time = _label_time(xp, edge_label_time, self.edge_label_index)
        # the negatives' stream, drawn after NeighborLoader's sampling seed
        self._neg_seed = int(self._rng.integers(2**63 - 1))
        self._neg_gen: Any = None
        if self.neg_sampling is not None:
            self._prepare_negatives(xp)

    def _label_index(self, xp: Any, edge_label_index: Any) -> Any:
        n = self.num_nodes
        if edge_label_index is None:
            return self.data.edge_index.astype(np.int64)
        if isinstance(edge_label_index, (tuple, list)):
            raise TypeError(
                f"{_WHERE}: edge_label_index must be a [2, L] integer array (heterogeneous "
                "(edge_type, index) inputs need a HeteroData)"
            )
        if not is_array(edge_label_index) or edge_label_index.dtype.kind not in "iu":
            what = getattr(edge_label_index, "dtype", type(edge_label_index).__name__)
            raise TypeError(f"{_WHERE}: edge_label_index must be an integer array, got {what}")
        try:
            get_namespace(edge_label_index, self.data.edge_index)
        except TypeError:
            raise TypeError(
                f"{_WHERE}: edge_label_index and data.edge_index mix NumPy and CuPy arrays"
            ) from None
        if edge_label_index.ndim != 2 or edge_label_index.shape[0] != 2:
            raise ValueError(
                f"{_WHERE}: edge_label_index must have shape [2, L], got "
                f"{tuple(edge_label_index.shape)}"
            )
        if edge_label_index.shape[1]:
            lo, hi = int(edge_label_index.min()), int(edge_label_index.max())
            if lo < 0 or hi >= n:
                raise ValueError(
                    f"{_WHERE}: edge_label_index has node {lo if lo < 0 else hi}, outside "
                    f"[0, {n}) (num_nodes={n})"
                )
        return edge_label_index.astype(np.int64)

    def _label(self, xp: Any, edge_label: Any) -> Any:
        if edge_label is None:
            return None
        if self.neg_sampling is not None and self.neg_sampling[0] == "triplet":
            raise ValueError(
                f"{_WHERE}: edge_label must be None for 'triplet' negative sampling; use the "
                "batch's src_index, dst_pos_index and dst_neg_index instead"
            )
        count = int(self.edge_label_index.shape[1])
        if not is_array(edge_label) or edge_label.ndim == 0 or edge_label.shape[0] != count:
            shape = tuple(edge_label.shape) if is_array(edge_label) else type(edge_label).__name__
            raise ValueError(
                f"{_WHERE}: edge_label must have one row per label edge ({count}), got {shape}"
            )
        try:
            get_namespace(edge_label, self.edge_label_index)
        except TypeError:
            raise TypeError(f"{_WHERE}: edge_label and the edges mix NumPy and CuPy") from None
        if self.neg_sampling is not None and edge_label.size and float(edge_label.min()) == 0:
            return edge_label + 1  # PyG: 0 is the negatives' class (a new array)
        return edge_label

    def _prepare_negatives(self, xp: Any) -> None:
        """The sorted ids of the pairs no negative may be (edges and label edges, both
        directions kept apart; self-loops are outside the id space)."""
        n = self.num_nodes
        if float(n) * float(n - 1) >= _MAX_IDS:
            raise ValueError(f"{_WHERE}: {n} nodes give too many node pairs for int64 pair ids")
        pairs = xp.concatenate(
            [self.data.edge_index.astype(np.int64), self.edge_label_index], axis=1
        )
        row, col = pairs[0], pairs[1]
        keep = row != col
        self._taken = sorted_unique(xp, directed_ids(row[keep], col[keep], n))
        self._free = n * (n - 1) - int(self._taken.shape[0])
        if self._free <= 0:
            raise ValueError(
                f"{_WHERE}: the graph has no negative pair (every pair of its {n} nodes is an "
                "edge or a label edge)"
            )
        if self.neg_sampling[0] == "triplet":
            used = xp.bincount(self._taken // max(n - 1, 1), minlength=n)
            self._row_free = (n - 1) - used
            self._row_before = xp.cumsum(used) - used
            src = self.edge_label_index[0]
            full = self._row_free[src] == 0
            if src.shape[0] and bool(full.any()):
                node = int(src[xp.flatnonzero(full)[0]])
                raise ValueError(
                    f"{_WHERE}: label source node {node} is adjacent to every other node, so "
                    "'triplet' sampling has no negative destination for it"
                )

    def __len__(self) -> int:
        count = int(self.edge_label_index.shape[1])
        return num_batches(count, self.batch_size, self.drop_last, *self._samplers())

    def __iter__(self) -> Iterator[Any]:
        return self._epoch(int(self.edge_label_index.shape[1]))

    def _negatives(self, xp: Any, count: int, src: Any = None) -> tuple[Any, Any]:
        """``count`` uniform non-pairs (binary), or one non-neighbour per ``src`` entry."""
        n = self.num_nodes
        if self._neg_gen is None:
            self._neg_gen = generator(xp, self._neg_seed, _WHERE)
        if src is None:
            ranks = uniform_below(xp, self._neg_gen, xp.full(count, self._free, dtype=np.int64))
        else:
            local = uniform_below(xp, self._neg_gen, self._row_free[src])
            ranks = src * (n - 1) - self._row_before[src] + local
        return directed_pairs(free_to_id(self._taken, ranks), n)

    def _batch(self, positions: Any) -> Any:
        if self.disjoint:
            return self._disjoint_batch(positions)
        xp = self.graph._xp()
        src = self.edge_label_index[0][positions]
        dst = self.edge_label_index[1][positions]
        num_pos = int(src.shape[0])
        label = None if self.edge_label is None else self.edge_label[positions]
        mode, amount = self.neg_sampling or (None, 0.0)
        if mode == "binary":
            neg_src, neg_dst = self._negatives(xp, math.ceil(num_pos * amount))
            src, dst = xp.concatenate([src, neg_src]), xp.concatenate([dst, neg_dst])
            label = _binary_labels(xp, label, num_pos, int(neg_src.shape[0]))
            seeds = xp.concatenate([src, dst])
        elif mode == "triplet":
            _, neg_dst = self._negatives(xp, 0, xp.repeat(src, int(amount)))
            seeds = xp.concatenate([src, dst, neg_dst])
        else:
            seeds = xp.concatenate([src, dst])
        unique, inverse = xp.unique(seeds, return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        batch = self._subgraph(unique.astype(np.int64))
        batch.input_id = positions.astype(np.int64)
        if mode == "triplet":
            batch.src_index = inverse[:num_pos]
            batch.dst_pos_index = inverse[num_pos : 2 * num_pos]
            neg = inverse[2 * num_pos :].reshape(num_pos, -1)
            batch.dst_neg_index = neg[:, 0] if amount == 1 else neg
        else:
            batch.edge_label_index = inverse.reshape(2, -1)
            if label is not None:
                batch.edge_label = label
        return batch

    def _disjoint_batch(self, positions: Any) -> Any:
        """PyG's disjoint / temporal link batch: one tree per endpoint (the label edges'
        sources, then their destinations, negatives included), ``batch`` = tree id modulo
        the number of label edges, each label edge's endpoints at fixed positions."""
        xp = self.graph._xp()
        num_pos = int(positions.shape[0])
        mode, amount = self.neg_sampling or (None, 0.0)
        src, dst, label, times, src_time, dst_time = _disjoint_endpoints(
            self, xp, positions, self._node_time, self._node_time
        )
        seeds = xp.concatenate([src, dst])
        seed_time = None if times is None else xp.concatenate([src_time, dst_time])
        batch = self._subgraph(seeds, seed_time)
        batch.batch = batch.batch % num_pos
        batch.input_id = positions.astype(np.int64)
        if mode == "triplet":
            batch.src_index = xp.arange(num_pos, dtype=np.int64)
            batch.dst_pos_index = xp.arange(num_pos, 2 * num_pos, dtype=np.int64)
            neg = xp.arange(2 * num_pos, int(seeds.shape[0]), dtype=np.int64)
            neg = neg.reshape(-1, num_pos).T
            batch.dst_neg_index = neg[:, 0] if amount == 1 else neg
            if times is not None:
                batch.seed_time = times
        else:
            batch.edge_label_index = xp.arange(int(seeds.shape[0]), dtype=np.int64).reshape(2, -1)
            if label is not None:
                batch.edge_label = label
            if times is not None:
                batch.edge_label_time = src_time
        return batch

    def __repr__(self) -> str:
        return (
            f"LinkNeighborLoader(num_neighbors={self.num_neighbors}, "
            f"batch_size={self.batch_size}, num_label_edges={int(self.edge_label_index.shape[1])}, "
            f"neg_sampling={self.neg_sampling})"
        )
