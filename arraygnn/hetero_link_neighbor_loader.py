"""``LinkNeighborLoader`` on a :class:`~arraygnn.hetero_data.HeteroData`: PyG's
heterogeneous link-level neighbour sampling.

``LinkNeighborLoader(data, num_neighbors, edge_label_index=(edge_type, index))`` with a
``HeteroData`` returns a :class:`HeteroLinkNeighborLoader` (a subclass of
:class:`~arraygnn.link_neighbor_loader.LinkNeighborLoader`; build it through
``LinkNeighborLoader``). The label edges are pairs of one edge type ``(src, rel, dst)``:
row 0 holds ``src``-type ids, row 1 ``dst``-type ids. Each batch takes ``batch_size`` of
them, adds the sampled negatives, and samples the neighbourhood of their endpoints with
:class:`~arraygnn.hetero_neighbor_loader.HeteroNeighborLoader`'s hops; the seeds are the
endpoints per node type (the sources in ``src``, the destinations in ``dst``; one merged
set when ``src == dst``), sorted and each once (PyG's ``unique()``), first in their type's
``n_id``. The batch is a ``HeteroData`` as ``HeteroNeighborLoader``'s, and on the label
edge type's store ``edge_label_index`` (relabelled: row 0 into the ``src`` type's batch
ids, row 1 into the ``dst`` type's), ``edge_label`` and ``input_id``. With
``num_neighbors=[-1] * L`` the endpoints' rows of an ``L``-layer model that aggregates
in-edges (a ``HeteroConv`` of ``SAGEConv``) are its full-graph rows.

RULE: negatives are true negatives: pairs ``(u, v)``, ``u`` of type ``src`` and ``v`` of
      type ``dst``, that are neither edges of the label edge type nor label edges (and
      ``u != v`` when ``src == dst``), drawn uniformly through the rank map of
      :mod:`arraygnn.utils.negative_sampling` (no rejection loop). PyG draws random nodes
      of each type and may return edges as negatives.
RULE: reproducible from ``seed``: the same seed gives the same epochs, neighbourhoods and
      negatives (the streams are drawn as in the homogeneous loader).

Per negative-sampling mode, as PyG's:

- none / ``'binary'``: ``batch[edge_type].edge_label_index`` ``[2, P + N]`` (positives,
  then ``N = ceil(P * amount)`` negatives) and ``batch[edge_type].edge_label`` (float32
  ones or the given labels, plus 1 when their minimum is 0, then zeros);
- ``'triplet'``: ``batch[src].src_index`` ``[P]`` (``src``-type batch ids),
  ``batch[dst].dst_pos_index`` ``[P]`` and ``batch[dst].dst_neg_index`` ``[P]``
  (``[P, amount]`` for ``amount > 1``), ``dst``-type batch ids.

>>> import numpy as np
>>> from arraygnn.hetero_data import HeteroData
>>> from arraygnn.link_neighbor_loader import LinkNeighborLoader
>>> data = HeteroData(user={"num_nodes": 3}, item={"x": np.arange(4.0)[:, None]})
>>> data["user", "buys", "item"].edge_index = np.array([[0, 1, 2], [1, 2, 3]])
>>> data["item", "rev_buys", "user"].edge_index = np.array([[1, 2, 3], [0, 1, 2]])
>>> loader = LinkNeighborLoader(data, [-1], edge_label_index=("buys", None),
...                             batch_size=2, neg_sampling_ratio=1.0, seed=0)
>>> batch = next(iter(loader))
>>> store = batch["user", "buys", "item"]
>>> batch["user"].n_id[store.edge_label_index[0, :2]].tolist()
[0, 1]
>>> batch["item"].n_id[store.edge_label_index[1, :2]].tolist(), store.edge_label.tolist()
([1, 2], [1.0, 1.0, 0.0, 0.0])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader
from arraygnn.link_neighbor_loader import (
    LinkNeighborLoader,
    _binary_labels,
    _check_label_time,
    _disjoint_endpoints,
    _label_time,
    _neg_sampling_arg,
)
from arraygnn.neighbor_loader import check_transform
from arraygnn.utils.negative_sampling import (
    _MAX_IDS,
    free_to_id,
    generator,
    sorted_unique,
    uniform_below,
)

__all__ = ["HeteroLinkNeighborLoader"]

_WHERE = "LinkNeighborLoader"
_INNER = "NeighborLoader: "


class _SeedsPerType(HeteroNeighborLoader):
    """``HeteroNeighborLoader``'s sampling around seeds of several node types (private).

    :meth:`_subgraph` takes ``{node_type: sorted distinct ids}``; each type's seeds come
    first in its ``n_id`` (``input_type`` is ``None``: no single input type)."""

    _own_seed_time = False  # the seeds' times are the label edges' (edge_label_time)

    def _sample(self, seeds: Any, nodes: dict[str, list[Any]]) -> tuple[dict, dict, dict]:
        """The hops around ``seeds`` (a dict, distinct ids per type), as the parent's: the
        same per-edge-type sampling (:meth:`_hops`), with every seed type in the first
        frontier."""
        from arraygnn.sampling import _rng

        g = self.graph
        xp = g._xp()
        if self._sample_rng is None:
            self._sample_rng = _rng(g, self._sample_seed)
        local = self._local
        assert local is not None
        count = dict.fromkeys(self.node_types, 0)
        num_sampled_nodes = {t: [0] for t in self.node_types}
        frontier: dict[str, Any] = {}
        for t, ids in seeds.items():
            k = int(ids.shape[0])
            local[t][ids] = xp.arange(k)
            nodes[t].append(ids)
            count[t], num_sampled_nodes[t], frontier[t] = k, [k], ids
        edges, num_sampled_edges = self._hops(frontier, count, nodes, num_sampled_nodes)
        return edges, num_sampled_nodes, num_sampled_edges


class HeteroLinkNeighborLoader(LinkNeighborLoader):
    """What ``LinkNeighborLoader(hetero_data, ...)`` returns: PyG's ``LinkNeighborLoader``
    over a :class:`~arraygnn.hetero_data.HeteroData`.

    Args:
        data: a ``HeteroData`` (as for ``NeighborLoader``: every node type with a known
            ``num_nodes``, every edge type an integer ``edge_index``).
        num_neighbors: a list for every edge type alike, or ``{edge_type: [...]}`` naming
            every edge type, as ``HeteroNeighborLoader``.
        edge_label_index: ``(edge_type, index)`` with ``index`` a ``[2, L]`` integer array
            (row 0 ids of the source type, row 1 of the destination type) or ``None``
            (every edge of that type), or an edge type alone (its edges); the edge type may
            be a shorthand the ``HeteroData`` accepts (``'rel'``, ``(src, dst)``).
        edge_label, neg_sampling, neg_sampling_ratio, batch_size, shuffle, drop_last,
            replace, subgraph_type, seed: as for a ``Data``.
        node_attrs / edge_attrs / exclude_keys: as ``HeteroNeighborLoader``; the stores'
            own ``edge_label_index`` / ``edge_label``, if any, are left out of the batches.

    ``edge_label_time``, ``disjoint``, ``temporal_strategy``, ``time_attr``, ``transform``:
    as for a ``Data`` (keyword-only). In disjoint mode the seeds are ``{src: sources, dst:
    destinations}`` (one list ``sources + destinations`` when ``src == dst``), negatives
    included, trees numbered in that order; every node store gets ``batch`` (tree modulo
    the number of label edges); ``edge_label_index`` is ``[arange(P + N)] * 2`` for two
    node types (``arange(2 * (P + N)).reshape(2, -1)`` for one), triplet
    ``dst_neg_index[i, k] = P + k * P + i`` (two types), and ``edge_label_time`` on the
    label edge type's store (triplet: ``seed_time`` on both node types), as PyG.

    ``weight_attr`` (weighted sampling, the edge types holding it) and ``transform`` work as
    for a ``Data``. Not provided (PyG has them): worker processes, ``transform_sampler_output``
    (a ``ValueError`` unless ``None``).
    Differences: true negatives (module notes); both ``neg_sampling`` and
    ``neg_sampling_ratio`` is an error; ids are int64.
    """

    def __init__(
        self,
        data: Any,
        num_neighbors: Sequence[int] | Mapping[Any, Sequence[int]],
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
        # torch DataLoader keywords and PyG's directed, as LinkNeighborLoader
        seed = self._torch_args(_WHERE, kwargs, directed, seed, batch_size, shuffle, drop_last)
        subgraph_type = subgraph_type if directed else "induced"
        _check_label_time(edge_label_time, time_attr)
        excluded = tuple(exclude_keys) + ("edge_label_index", "edge_label", "edge_label_time")
        # no input nodes of their own: the seeds are given per batch (_SeedsPerType)
        from arraygnn._remote_backend import is_remote, node_types

        types = node_types(data) if is_remote(data) else getattr(data, "node_types", None)
        no_inputs = (types[0], np.zeros(0, dtype=np.int64)) if types else None
        try:  # HeteroNeighborLoader's checks and structure, named as this loader
            sampler = _SeedsPerType(
                data, num_neighbors, no_inputs, batch_size, shuffle, drop_last, replace,
                subgraph_type, seed, node_attrs, edge_attrs, excluded,
                disjoint=disjoint, temporal_strategy=temporal_strategy, time_attr=time_attr,
                weight_attr=self.weight_attr,
            )  # fmt: skip
        except (TypeError, ValueError) as err:
            msg = str(err)
            if msg.startswith(_INNER):
                msg = f"{_WHERE}: {msg[len(_INNER) :]}"
            raise type(err)(msg) from None
        sampler.input_type = None  # seeds of several types (see _SeedsPerType)
        sampler.input_nodes = None
        self._sampler = sampler
        self.data, self.graph = sampler.data, sampler.graph  # (a pair's structure-only graph)
        self.batch_size, self.shuffle = sampler.batch_size, sampler.shuffle
        self.drop_last, self.replace = sampler.drop_last, sampler.replace
        self.num_neighbors, self.num_hops = sampler.num_neighbors, sampler.num_hops
        self.node_types, self.edge_types = sampler.node_types, sampler.edge_types
        self.num_nodes_dict = sampler.num_nodes_dict
        self.node_attrs, self.edge_attrs = sampler.node_attrs, sampler.edge_attrs
        self.disjoint, self.time_attr = sampler.disjoint, sampler.time_attr
        self.temporal_strategy = sampler.temporal_strategy
        self._rng = sampler._rng  # epochs' orders; the sampling seed was drawn from it first
        xp = self.graph._xp()
        self.neg_sampling = _neg_sampling_arg(neg_sampling, neg_sampling_ratio)
        self.edge_type, self.edge_label_index = self._label_index(xp, edge_label_index)
        self.edge_label = self._label(xp, edge_label)
        self.edge_label_time = _label_time(xp, edge_label_time, self.edge_label_index)
        # the negatives' stream, drawn after the sampling seed (as the homogeneous loader)
        self._neg_seed = int(self._rng.integers(2**63 - 1))
        self._neg_gen: Any = None
        if self.neg_sampling is not None:
            self._prepare_negatives(xp)

    # ------------------------------------------------------------------ label edges

    def _label_index(self, xp: Any, edge_label_index: Any) -> tuple[Any, Any]:
        """``(canonical edge type, [2, L] int64 index)`` from PyG's hetero forms."""
        if edge_label_index is None:
            raise ValueError(
                f"{_WHERE}: a HeteroData needs edge_label_index=(edge_type, index) or an edge "
                f"type (edge types: {self.edge_types})"
            )
        if isinstance(edge_label_index, str) or (
            isinstance(edge_label_index, tuple)
            and len(edge_label_index) in (2, 3)
            and all(isinstance(s, str) for s in edge_label_index)
        ):
            key, index = edge_label_index, None
        elif isinstance(edge_label_index, (tuple, list)) and len(edge_label_index) == 2:
            key, index = edge_label_index
        else:
            raise TypeError(
                f"{_WHERE}: with a HeteroData, edge_label_index must be (edge_type, index), "
                f"(edge_type, None) or an edge type, got {type(edge_label_index).__name__}"
            )
        et = self._edge_type(key)
        src_type, _, dst_type = et
        graph_index = self.data._edges[et]["edge_index"]
        if index is None:
            return et, graph_index.astype(np.int64)
        if not is_array(index) or index.dtype.kind not in "iu":
            what = getattr(index, "dtype", type(index).__name__)
            raise TypeError(f"{_WHERE}: edge_label_index must be an integer array, got {what}")
        try:
            get_namespace(index, graph_index)
        except TypeError:
            raise TypeError(
                f"{_WHERE}: edge_label_index and the graph's edge_index mix NumPy and CuPy arrays"
            ) from None
        if index.ndim != 2 or index.shape[0] != 2:
            raise ValueError(
                f"{_WHERE}: edge_label_index must have shape [2, L], got {tuple(index.shape)}"
            )
        if index.shape[1]:
            for row, (end, t) in enumerate((("source", src_type), ("destination", dst_type))):
                n = self.num_nodes_dict[t]
                lo, hi = int(index[row].min()), int(index[row].max())
                if lo < 0 or hi >= n:
                    raise ValueError(
                        f"{_WHERE}: edge_label_index row {row} ({end} type {t!r}) has node "
                        f"{lo if lo < 0 else hi}, outside [0, {n}) (num_nodes of {t!r})"
                    )
        return et, index.astype(np.int64)

    def _edge_type(self, key: Any) -> tuple[str, str, str]:
        try:
            et = self.data._to_canonical(key) if isinstance(key, (str, tuple)) else key
        except KeyError as err:
            raise ValueError(f"{_WHERE}: edge_label_index edge type {key!r}: {err}") from None
        if et not in self.edge_types:
            raise ValueError(
                f"{_WHERE}: edge_label_index names {key!r}, which is not an edge type of the "
                f"graph (edge types: {self.edge_types})"
            )
        return et

    # ------------------------------------------------------------------ negatives

    def _prepare_negatives(self, xp: Any) -> None:
        """The sorted ids of the pairs no negative may be: the label edge type's edges and
        the label edges (a self-pair is outside the id space when ``src == dst``)."""
        src_type, _, dst_type = self.edge_type
        n_src, n_dst = self.num_nodes_dict[src_type], self.num_nodes_dict[dst_type]
        self._same = src_type == dst_type
        self._n_src, self._n_dst = n_src, n_dst
        self._width = n_dst - 1 if self._same else n_dst  # candidate pairs per source
        if float(n_src) * float(max(self._width, 1)) >= _MAX_IDS:
            raise ValueError(
                f"{_WHERE}: {n_src} x {n_dst} nodes give too many node pairs for int64 pair ids"
            )
        graph_index = self.data._edges[self.edge_type]["edge_index"].astype(np.int64)
        pairs = xp.concatenate([graph_index, self.edge_label_index], axis=1)
        row, col = pairs[0], pairs[1]
        if self._same:
            keep = row != col
            row, col = row[keep], col[keep]
        self._taken = sorted_unique(xp, self._ids(row, col))
        self._free = n_src * self._width - int(self._taken.shape[0])
        if self._free <= 0:
            raise ValueError(
                f"{_WHERE}: edge type {self.edge_type!r} has no negative pair (every "
                f"({src_type!r}, {dst_type!r}) pair is an edge or a label edge)"
            )
        if self.neg_sampling[0] == "triplet":
            used = xp.bincount(self._taken // max(self._width, 1), minlength=n_src)
            self._row_free = self._width - used
            self._row_before = xp.cumsum(used) - used
            src = self.edge_label_index[0]
            full = self._row_free[src] == 0
            if src.shape[0] and bool(full.any()):
                node = int(src[xp.flatnonzero(full)[0]])
                raise ValueError(
                    f"{_WHERE}: label source node {node} ({src_type!r}) is joined to every "
                    f"{dst_type!r} node, so 'triplet' sampling has no negative destination "
                    "for it"
                )

    def _ids(self, row: Any, col: Any) -> Any:
        """Linear pair ids: ``row * width + col`` (the self-pair skipped when ``src == dst``)."""
        if self._same:
            return row * self._width + col - (col > row)
        return row * self._width + col

    def _pairs(self, ids: Any) -> tuple[Any, Any]:
        """Inverse of :meth:`_ids`."""
        width = max(self._width, 1)
        row, col = ids // width, ids % width
        return (row, col + (col >= row)) if self._same else (row, col)

    def _negatives(self, xp: Any, count: int, src: Any = None) -> tuple[Any, Any]:
        """``count`` uniform non-pairs (binary), or one non-neighbour per ``src`` entry."""
        if self._neg_gen is None:
            self._neg_gen = generator(xp, self._neg_seed, _WHERE)
        if src is None:
            ranks = uniform_below(xp, self._neg_gen, xp.full(count, self._free, dtype=np.int64))
        else:
            local = uniform_below(xp, self._neg_gen, self._row_free[src])
            ranks = src * self._width - self._row_before[src] + local
        return self._pairs(free_to_id(self._taken, ranks))

    # ------------------------------------------------------------------ batches

    def _disjoint_batch(self, positions: Any) -> Any:
        """PyG's disjoint / temporal batch: one tree per endpoint (sources then
        destinations, negatives included), ``batch`` = tree id modulo the label edges."""
        xp = self.graph._xp()
        src_type, _, dst_type = self.edge_type
        num_pos = int(positions.shape[0])
        mode, amount = self.neg_sampling or (None, 0.0)
        node_time = self._sampler._node_time
        src, dst, label, times, src_time, dst_time = _disjoint_endpoints(
            self, xp, positions, node_time.get(src_type), node_time.get(dst_type)
        )
        num_src, num_dst = int(src.shape[0]), int(dst.shape[0])
        same = self._same_type()
        if same:
            seed_dict = {src_type: xp.concatenate([src, dst])}
        else:
            seed_dict = {src_type: src, dst_type: dst}
        seed_time = None if times is None else xp.concatenate([src_time, dst_time])
        batch = self._sampler._subgraph(seed_dict, seed_time)
        for t in self.node_types:
            node_store = batch.get_node_store(t)
            node_store.batch = node_store.batch % num_pos
        store = batch.get_edge_store(*self.edge_type)
        store.input_id = positions.astype(np.int64)
        if mode == "triplet":
            src_store, dst_store = batch.get_node_store(src_type), batch.get_node_store(dst_type)
            src_store.src_index = xp.arange(num_pos, dtype=np.int64)
            first = num_pos if same else 0  # where the positive destinations start
            dst_store.dst_pos_index = xp.arange(first, first + num_pos, dtype=np.int64)
            neg = xp.arange(first + num_pos, first + num_dst, dtype=np.int64)
            neg = neg.reshape(-1, num_pos).T
            dst_store.dst_neg_index = neg[:, 0] if amount == 1 else neg
            if times is not None:
                src_store.seed_time = times
                dst_store.seed_time = times
        else:
            if same:
                index = xp.arange(num_src + num_dst, dtype=np.int64).reshape(2, -1)
            else:
                index = xp.stack([xp.arange(num_src, dtype=np.int64)] * 2)
            store.edge_label_index = index
            if label is not None:
                store.edge_label = label
            if times is not None:
                store.edge_label_time = src_time
        return batch

    def _batch(self, positions: Any) -> Any:
        if self.disjoint:
            return self._disjoint_batch(positions)
        xp = self.graph._xp()
        src_type, _, dst_type = self.edge_type
        src = self.edge_label_index[0][positions]
        dst = self.edge_label_index[1][positions]
        num_pos = int(src.shape[0])
        label = None if self.edge_label is None else self.edge_label[positions]
        mode, amount = self.neg_sampling or (None, 0.0)
        if mode == "binary":
            neg_src, neg_dst = self._negatives(xp, math.ceil(num_pos * amount))
            src, dst = xp.concatenate([src, neg_src]), xp.concatenate([dst, neg_dst])
            label = _binary_labels(xp, label, num_pos, int(neg_src.shape[0]))
        elif mode == "triplet":
            _, neg_dst = self._negatives(xp, 0, xp.repeat(src, int(amount)))
            dst = xp.concatenate([dst, neg_dst])
        num_src = int(src.shape[0])
        if self._same_type():  # one merged, sorted seed set (PyG)
            seeds, inverse = _unique(xp, xp.concatenate([src, dst]))
            seed_dict = {src_type: seeds}
            src_inv, dst_inv = inverse[:num_src], inverse[num_src:]
        else:
            src_seeds, src_inv = _unique(xp, src)
            dst_seeds, dst_inv = _unique(xp, dst)
            seed_dict = {src_type: src_seeds, dst_type: dst_seeds}
        batch = self._sampler._subgraph(seed_dict)
        store = batch.get_edge_store(*self.edge_type)
        store.input_id = positions.astype(np.int64)
        if mode == "triplet":
            batch.get_node_store(src_type).src_index = src_inv
            dst_store = batch.get_node_store(dst_type)
            dst_store.dst_pos_index = dst_inv[:num_pos]
            neg = dst_inv[num_pos:].reshape(num_pos, -1)
            dst_store.dst_neg_index = neg[:, 0] if amount == 1 else neg
        else:
            store.edge_label_index = xp.stack([src_inv, dst_inv])
            if label is not None:
                store.edge_label = label
        return batch

    def _same_type(self) -> bool:
        return self.edge_type[0] == self.edge_type[2]

    def __repr__(self) -> str:
        return (
            f"LinkNeighborLoader(edge_type={self.edge_type!r}, num_hops={self.num_hops}, "
            f"batch_size={self.batch_size}, num_label_edges={int(self.edge_label_index.shape[1])}, "
            f"neg_sampling={self.neg_sampling})"
        )


def _unique(xp: Any, ids: Any) -> tuple[Any, Any]:
    """Sorted distinct ids (int64) and each entry's position among them."""
    unique, inverse = xp.unique(ids, return_inverse=True)
    return unique.astype(np.int64), inverse.reshape(-1).astype(np.int64)
