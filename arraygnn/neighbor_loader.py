"""``NeighborLoader``: PyG's mini-batches of sampled neighbourhoods around seed nodes.

For each batch of ``batch_size`` seed nodes, ``num_neighbors[0]`` in-edges are sampled for
every seed, then ``num_neighbors[1]`` for every node the first hop reached, and so on (PyG's
directional sampling: each hop samples only the nodes that are new in the previous hop).
The batch is a :class:`~arraygnn.data.Data` over the sampled nodes, seeds first, with the
sampled edges relabelled to it, so a model run on it gives the seeds' outputs in its first
``batch_size`` rows: ``model(batch.x, batch.edge_index)[:batch.batch_size]``. With
``num_neighbors=[-1] * L`` those rows are exactly the full-graph outputs of an ``L``-layer
model whose aggregation looks only at in-edges (SAGE, GIN, GAT).

RULE: which attributes are per node and per edge is said, never guessed from lengths:
      ``x`` / ``pos`` are node attributes and ``edge_attr`` / ``edge_weight`` edge
      attributes by default; every other array attribute must be named in ``node_attrs``,
      ``edge_attrs`` or ``exclude_keys`` (a ``ValueError`` lists them), as in
      :func:`arraygnn.graph.data_to_graph`. Non-array attributes are kept as they are.
RULE: sampling is uniform over each node's in-edges (``-1``: all of them), reproducible
      from ``seed``; the graph's CSR is built once, when the loader is made. With
      ``weight_attr`` (PyG's weighted sampling) it is in proportion to that edge
      attribute's weights, as pyg-lib (:func:`check_weights`; docs/input_pipelines.md).
RULE: the order is pyg-lib's: each hop's edges grouped by the node they were sampled for,
      in batch order; a node's in-edges in edge-id order when all of them are taken
      (``-1``, or a fan-out >= its in-degree without replacement), in draw order otherwise;
      a node is numbered where it is first seen. Full fan-outs give PyG's ``n_id``,
      ``edge_index`` and ``e_id`` exactly.
RULE: ``disjoint=True`` or a ``time_attr`` gives each seed its own tree (PyG's disjoint
      and temporal sampling, with ``batch``); ``time_attr`` is a node time when named in
      ``node_attrs``, an edge time when named in ``edge_attrs`` (said, never guessed).
RULE: ``subgraph_type`` is PyG's: ``'directional'`` (the sampled edges, as above),
      ``'bidirectional'`` (PyG's ``to_bidirectional``: the sampled edges and their
      reverses, each pair once, sorted by ``(col, row)``) or ``'induced'`` (the same
      nodes, every edge of the graph among them: torch-sparse's ``directed=False``
      order; not with ``disjoint`` / time). The two last drop ``num_sampled_nodes`` /
      ``num_sampled_edges``, as PyG's batches (:mod:`arraygnn._subgraph_types`).

Each batch carries, as PyG's: ``n_id`` (the batch's nodes, global ids, seeds first),
``e_id`` (the sampled edges' ids), ``input_id`` (the seeds' positions in ``input_nodes``;
for a boolean mask its node ids, as PyG's ``get_input_nodes``),
``batch_size``, ``num_sampled_nodes`` / ``num_sampled_edges`` (per hop, the seeds first),
``num_nodes``, ``edge_index`` ``[2, E_batch]`` (``edge_index[0]`` the sampled neighbour,
``edge_index[1]`` the node it was sampled for) and the sliced attributes.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> ring = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
>>> data = Data(x=np.arange(5.0)[:, None], edge_index=ring)
>>> batch = next(iter(NeighborLoader(data, num_neighbors=[1, 1], batch_size=2)))
>>> batch.n_id.tolist(), batch.batch_size, batch.edge_index.tolist()
([0, 1, 4, 3], 2, [[2, 0, 3], [0, 1, 2]])
>>> batch.x[:, 0].tolist(), batch.num_sampled_nodes
([0.0, 1.0, 4.0, 3.0], [2, 1, 1])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arraygnn._loader_args import (
    _check_int,
    apply_torch_args,
    check_directed,
    epoch_batches,
    epoch_iter,
    num_batches,
)
from arraygnn._namespace import is_array

__all__ = ["NeighborLoader"]

_DEFAULT_NODE = ("x", "pos")
_DEFAULT_EDGE = ("edge_attr", "edge_weight")
_OWN = ("edge_index", "num_nodes")
_T, _REL = "_", ("_", "_", "_")  # the one node type / relation of a homogeneous graph


def _temporal_args(where: str, disjoint: Any, strategy: Any, time_attr: Any) -> tuple:
    """``(disjoint, temporal_strategy, time_attr)`` checked; time forces ``disjoint`` (PyG:
    temporal sampling always builds one subgraph per seed, also for ``disjoint=False``)."""
    from arraygnn.disjoint_sampling import STRATEGIES

    if not isinstance(disjoint, (bool, np.bool_)):
        raise TypeError(f"{where}: disjoint must be a bool, got {disjoint!r}")
    if strategy not in STRATEGIES:
        raise ValueError(
            f"{where}: temporal_strategy must be 'uniform' or 'last', got {strategy!r}"
        )
    if time_attr is not None and not isinstance(time_attr, str):
        raise TypeError(f"{where}: time_attr must be an attribute name, got {time_attr!r}")
    return bool(disjoint) or time_attr is not None, strategy, time_attr


def check_weighted_mode(where: str, weight_attr: str, disjoint: bool) -> None:
    """``weight_attr`` is for directional, non-disjoint sampling here (pyg-lib refuses it
    with times: 'Biased ... temporal sampling not yet supported')."""
    if disjoint:
        raise ValueError(
            f"{where}: weight_attr={weight_attr!r} with disjoint=True or time_attr= is not "
            "provided (pyg-lib has no weighted temporal sampling)"
        )


def check_weights(xp: Any, where: str, name: str, value: Any, num_edges: int, etype: Any) -> Any:
    """PyG's ``weight_attr`` values, checked (never changed): one finite, non-negative
    float per edge of ``etype`` (``None``: the one edge type of a ``Data``)."""
    of = "" if etype is None else f" of edge type {etype!r}"
    what = f"{where}: weight_attr={name!r}{of}"
    if not is_array(value) or value.ndim != 1 or int(value.shape[0]) != num_edges:
        shape = tuple(value.shape) if is_array(value) else type(value).__name__
        raise ValueError(f"{what} must be a 1-D array of {num_edges} edge weights, got {shape}")
    if value.dtype.kind != "f":
        raise ValueError(f"{what} must hold floating-point weights, got dtype {value.dtype}")
    if num_edges and not bool(xp.isfinite(value).all()):
        raise ValueError(f"{what} holds a NaN or infinite weight; weights must be finite")
    if num_edges and float(value.min()) < 0:
        raise ValueError(f"{what} holds a negative weight; weights must be non-negative")
    return value


def check_transform(transform: Any) -> Any:
    """PyG's loader ``transform`` (applied to every batch): ``None`` or a callable."""
    if transform is not None and not callable(transform):
        raise TypeError(f"transform must be callable, got {type(transform).__name__}")
    return transform


class _NeighborSampling:
    """What :class:`NeighborLoader` and :class:`~arraygnn.link_neighbor_loader.LinkNeighborLoader`
    share (private): the argument checks, the graph's structure, the sampling streams, the
    id map and :meth:`_subgraph`, the sampled ``Data`` around given seeds. ``where`` names
    the public class in error messages."""

    def __init__(
        self,
        where: str,
        data: Any,
        num_neighbors: Sequence[int],
        batch_size: int,
        shuffle: bool,
        drop_last: bool,
        replace: bool,
        subgraph_type: str,
        seed: Any,
        node_attrs: Iterable[str] | None,
        edge_attrs: Iterable[str] | None,
        exclude_keys: Iterable[str],
        disjoint: bool = False,
        temporal_strategy: str = "uniform",
        time_attr: str | None = None,
    ) -> None:
        from arraygnn._remote_backend import resolve
        from arraygnn.graph.convert import data_to_graph
        from arraygnn.interop._handoff import is_data_like

        # a (FeatureStore, GraphStore) pair: its structure here, its features per batch
        data, node_attrs, edge_attrs, self._remote = resolve(
            where, data, node_attrs, edge_attrs, exclude_keys, time_attr
        )
        if not is_data_like(data):
            raise TypeError(f"{where}: data must be a Data, got {type(data).__name__}")
        from arraygnn.sampler.num_neighbors import as_fanouts

        num_neighbors = as_fanouts(where, num_neighbors)  # a NumNeighbors: its list
        if isinstance(num_neighbors, (str, bytes)) or not isinstance(num_neighbors, Sequence):
            raise TypeError(f"{where}: num_neighbors must be a list of ints, got {num_neighbors!r}")
        self.num_neighbors = [
            _check_int(where, f"num_neighbors[{i}]", k, -1) for i, k in enumerate(num_neighbors)
        ]
        self.batch_size = _check_int(where, "batch_size", batch_size, 1)
        self.shuffle, self.drop_last, self.replace = bool(shuffle), bool(drop_last), bool(replace)
        keys = list(data.keys())
        node_keys = [k for k in _DEFAULT_NODE if k in keys] if node_attrs is None else node_attrs
        edge_keys = [k for k in _DEFAULT_EDGE if k in keys] if edge_attrs is None else edge_attrs
        self.node_attrs, self.edge_attrs = list(node_keys), list(edge_keys)
        excluded = set(exclude_keys)
        weight_attr = getattr(self, "weight_attr", None)
        if weight_attr is not None:  # per edge: said by its name (sliced unless excluded)
            if weight_attr not in keys:
                raise ValueError(
                    f"{where}: weight_attr={weight_attr!r}: data has no such attribute "
                    f"(has {sorted(keys)})"
                )
            if weight_attr not in excluded and weight_attr not in self.edge_attrs:
                self.edge_attrs.append(weight_attr)
        for name in self.node_attrs + self.edge_attrs:
            if name not in keys:
                raise ValueError(f"{where}: data has no attribute {name!r} (has {sorted(keys)})")
            if name in _OWN:
                raise ValueError(f"{where}: {name!r} is the batch's own field, not an attribute")
        both = sorted(set(self.node_attrs) & set(self.edge_attrs))
        if both:
            raise ValueError(f"{where}: {both} named as node and as edge attributes")
        placed = set(self.node_attrs) | set(self.edge_attrs) | excluded | set(_OWN)
        unplaced = [k for k in keys if k not in placed and is_array(data[k])]
        if unplaced:
            raise ValueError(
                f"{where}: data attribute(s) {unplaced} are neither node nor edge attributes: "
                "name them in node_attrs= or edge_attrs=, or leave them out with exclude_keys="
            )
        # the structure alone (features are sliced from ``data`` per batch)
        structure = {k for k in keys if k not in _OWN}
        try:
            self.graph = data_to_graph(
                data, node_features=[], edge_features=[], exclude_keys=structure
            )
        except (TypeError, ValueError) as err:  # name the loader, keep the reason
            raise type(err)(f"{where}: {err}") from None
        self.data = data
        self.num_nodes = int(self.graph.num_nodes())
        num_edges = int(self.graph.num_edges())
        for name in self.node_attrs + self.edge_attrs:
            value = data[name]
            rows = self.num_nodes if name in self.node_attrs else num_edges
            what = "node" if name in self.node_attrs else "edge"
            if not is_array(value) or value.ndim == 0 or int(value.shape[0]) != rows:
                shape = tuple(value.shape) if is_array(value) else type(value).__name__
                raise ValueError(
                    f"{where}: {what} attribute {name!r} must have {rows} rows (one per "
                    f"{what}), got {shape}"
                )
        self._keep = {
            k: data[k] for k in keys if k not in placed and k not in excluded and k not in _OWN
        }
        self._temporal_setup(where, data, disjoint, temporal_strategy, time_attr)
        self._weight = None  # (name, weights): pyg-lib's weighted sampling
        if weight_attr is not None:
            check_weighted_mode(where, weight_attr, self.disjoint)
            xp = self.graph._xp()
            w = check_weights(xp, where, weight_attr, data[weight_attr], num_edges, None)
            self._weight = (weight_attr, w)
        from arraygnn._subgraph_types import check_subgraph_type

        self.subgraph_type = check_subgraph_type(where, subgraph_type, self.disjoint)
        self._rng = np.random.default_rng(seed)  # epochs' orders
        # the sampling stream: its own seed drawn from the first (not the same stream)
        self._sample_seed = int(self._rng.integers(2**63 - 1))
        self._sample_rng: Any = None
        self._local: Any = None  # the id map, made on the first batch and reused

    def _torch_args(
        self, where: str, kwargs: dict, directed: Any, seed: Any, batch_size: Any,
        shuffle: Any, drop_last: Any,
    ) -> Any:  # fmt: skip
        """torch ``DataLoader`` keywords (:func:`torch_loader_args`) and PyG's ``directed``,
        checked and kept as attributes; returns the epoch stream (:func:`epoch_rng`), given
        on as ``seed`` (``default_rng`` hands a ``Generator`` back unaltered)."""
        check_directed(where, directed)  # the HOW keywords: no effect, batches made on demand
        self._pyg_sampler_args(where, kwargs)
        return apply_torch_args(self, where, kwargs, seed, batch_size, shuffle, drop_last)

    def _pyg_sampler_args(self, where: str, kwargs: dict) -> None:
        """PyG's ``NeighborLoader`` / ``LinkNeighborLoader`` keywords of its own sampler,
        popped from ``kwargs``: ``is_sorted`` (a hint, kept, unused); ``weight_attr``
        (checked and kept: :func:`check_weights`); ``transform_sampler_output`` and
        ``neighbor_sampler`` only at their ``None`` default (a ``ValueError`` otherwise:
        the loader makes no sampler output)."""
        self.is_sorted = bool(kwargs.pop("is_sorted", False))
        weight_attr = kwargs.pop("weight_attr", None)
        if weight_attr is not None and not isinstance(weight_attr, str):
            raise TypeError(f"{where}: weight_attr must be an attribute name, got {weight_attr!r}")
        self.weight_attr = weight_attr
        for name in ("transform_sampler_output", "neighbor_sampler"):
            if kwargs.pop(name, None) is not None:
                raise ValueError(
                    f"{where}: {name} is not provided (this loader makes no sampler output); "
                    "use arraygnn.loader.NodeLoader / LinkLoader with a sampler instead"
                )

    def _samplers(self) -> tuple[Any, Any]:
        return getattr(self, "sampler", None), getattr(self, "batch_sampler", None)

    def _epoch(self, count: int) -> Iterator[Any]:
        """One epoch's batches over ``count`` inputs (seeds or label edges)."""
        xp = self.graph._xp()
        chunks = epoch_batches(
            type(self).__name__, count, self.batch_size, self.shuffle, self.drop_last,
            self._rng, *self._samplers(),
        )  # fmt: skip
        for chunk in epoch_iter(self._rng, chunks):  # torch's draws, as torch makes them
            batch = self._batch(xp.asarray(chunk))
            yield batch if self.transform is None else self.transform(batch)

    def _temporal_setup(
        self, where: str, data: Any, disjoint: Any, strategy: Any, time_attr: Any
    ) -> None:
        """PyG's ``disjoint`` / ``temporal_strategy`` / ``time_attr``: checked, and the CSC
        of the disjoint sampler (time-sorted neighbourhoods) built once."""
        from arraygnn.disjoint_sampling import check_times, csc

        self.disjoint, self.temporal_strategy, self.time_attr = _temporal_args(
            where, disjoint, strategy, time_attr
        )
        self._node_time = self._edge_time = None
        if time_attr is not None:
            if time_attr in self.node_attrs:
                self._node_time = check_times(
                    self.graph._xp(), where, f"node time {time_attr!r}", data[time_attr],
                    self.num_nodes,
                )  # fmt: skip
            elif time_attr in self.edge_attrs:
                self._edge_time = check_times(
                    self.graph._xp(), where, f"edge time {time_attr!r}", data[time_attr],
                    int(data.edge_index.shape[1]),
                )  # fmt: skip
            else:
                raise ValueError(
                    f"{where}: time_attr={time_attr!r} must be named in node_attrs= (node "
                    "times) or edge_attrs= (edge times); which one is never guessed"
                )
        self._csc = None
        if self.disjoint:
            xp = self.graph._xp()
            src, dst = data.edge_index[0], data.edge_index[1]
            edge_time = self._edge_time
            if self._node_time is not None:
                edge_time = self._node_time[src]
            self._csc = csc(xp, src, dst, self.num_nodes, edge_time)

    def _seed_times(self, seeds: Any, given: Any) -> Any:
        """Each tree's seed time: ``given`` (``input_time`` / ``edge_label_time``), else the
        seed's node time; ``None`` without time."""
        if given is not None:
            return given
        if self._node_time is not None:
            return self._node_time[seeds]
        return None

    def _subgraph(self, seeds: Any, seed_time: Any = None) -> Any:
        """The ``Data`` sampled around ``seeds`` (global ids, int64): the sliced attributes,
        ``edge_index``, ``num_nodes``, ``n_id`` (seeds first), ``e_id`` and the per-hop
        counts; in disjoint mode one tree per seed and ``batch`` (``seed_time``: one time
        per seed, for temporal sampling)."""
        xp = self.graph._xp()
        if self.disjoint:
            return self._trees(seeds, seed_time)
        if self._local is None:  # global id -> batch position; -1 between batches
            self._local = xp.full(self.num_nodes, -1, dtype=np.int64)
        nodes: list[Any] = []
        try:
            rows, cols, eids, num_sampled_nodes, num_sampled_edges = self._sample(seeds, nodes)
        finally:
            for ids in nodes:  # only the entries this batch set (no [N] fill per batch)
                self._local[ids] = -1
        n_id = xp.concatenate([seeds] + nodes[1:])
        empty = xp.zeros(0, dtype=np.int64)
        e_id = xp.concatenate(eids).astype(np.int64) if eids else empty
        row = xp.concatenate(rows) if rows else empty
        col = xp.concatenate(cols) if cols else empty
        if self.subgraph_type != "directional":
            row, col, e_id = self._other_edges(n_id, row, col, e_id, int(seeds.shape[0]))
            num_sampled_nodes = num_sampled_edges = None  # (PyG's samplers: None)
        return self._assemble(n_id, e_id, row, col, num_sampled_nodes, num_sampled_edges)

    def _other_edges(
        self, n_id: Any, row: Any, col: Any, e_id: Any, num_seeds: int
    ) -> tuple[Any, Any, Any]:
        """``(row, col, e_id)`` of PyG's other subgraph types, from the directional sample
        (:mod:`arraygnn._subgraph_types`): ``'bidirectional'`` adds the reversed edges,
        ``'induced'`` takes every edge among ``n_id`` (never in disjoint mode)."""
        from arraygnn._subgraph_types import bidirectional, induced_edges, node_positions

        xp = self.graph._xp()
        if self.subgraph_type == "bidirectional":
            return bidirectional(xp, row, col, row, col, int(n_id.shape[0]), e_id, e_id)
        (rel_type,) = self.graph._rels
        node_positions(xp, self._local, n_id, num_seeds)
        try:
            return induced_edges(xp, self.graph.csr(rel_type), n_id, self._local)
        finally:
            self._local[n_id] = -1

    def _trees(self, seeds: Any, seed_time: Any) -> Any:
        """Disjoint mode: one tree per seed (:mod:`arraygnn.disjoint_sampling`)."""
        from arraygnn.disjoint_sampling import sample_trees
        from arraygnn.sampling import _rng

        xp = self.graph._xp()
        if self._sample_rng is None:
            self._sample_rng = _rng(self.graph, self._sample_seed)
        out = sample_trees(
            xp, {_T: self.num_nodes}, {_REL: self._csc}, {_T: seeds},
            {_REL: self.num_neighbors}, seed_time=seed_time, replace=self.replace,
            strategy=self.temporal_strategy, rng=self._sample_rng,
        )  # fmt: skip
        n_id, e_id, row, col = out.n_id[_T], out.e_id[_REL], out.row[_REL], out.col[_REL]
        counts = (out.num_sampled_nodes[_T], out.num_sampled_edges[_REL])
        if self.subgraph_type != "directional":  # 'bidirectional' (no induced trees)
            row, col, e_id = self._other_edges(n_id, row, col, e_id, int(seeds.shape[0]))
            counts = (None, None)
        batch = self._assemble(n_id, e_id, row, col, *counts)
        batch.batch = out.batch[_T]
        return batch

    def _assemble(
        self,
        n_id: Any,
        e_id: Any,
        row: Any,
        col: Any,
        num_sampled_nodes: list,
        num_sampled_edges: list,
    ) -> Any:
        """The batch ``Data``: sliced attributes, ``edge_index``, ids and per-hop counts."""
        from arraygnn import ops
        from arraygnn.data import Data

        xp = self.graph._xp()
        values: dict[str, Any] = dict(self._keep)
        for name in self.node_attrs:
            values[name] = ops.gather(self.data[name], n_id)
        for name in self.edge_attrs:
            values[name] = ops.gather(self.data[name], e_id)
        batch = Data(edge_index=xp.stack([row, col]), **values)
        batch.num_nodes = int(n_id.shape[0])
        batch.n_id = n_id
        batch.e_id = e_id
        batch.num_sampled_nodes = num_sampled_nodes
        batch.num_sampled_edges = num_sampled_edges
        if getattr(self, "_remote", None) is not None:  # the remote features, one read
            self._remote.fill(batch, n_id, e_id)
        return batch

    def _sample(self, seeds: Any, nodes: list[Any]) -> tuple[list, list, list, list, list]:
        """The hops around ``seeds``: ``(rows, cols, eids, nodes per hop, edges per hop)``;
        ``nodes`` gets the distinct seeds, then each hop's new nodes (the entries set in
        ``self._local``, which the caller resets)."""
        from arraygnn._namespace import repeat_counts
        from arraygnn.sampling import _rng, _sample_grouped

        g = self.graph
        (rel_type,) = g._rels  # the one relation of a homogeneous graph
        xp = g._xp()
        if self._sample_rng is None:
            self._sample_rng = _rng(g, self._sample_seed)
        local = self._local
        first = _first_occurrences(xp, seeds)
        frontier = seeds[first]
        local[frontier] = first
        nodes.append(frontier)
        rows: list[Any] = []
        cols: list[Any] = []
        eids: list[Any] = []
        num_sampled_nodes, num_sampled_edges = [int(seeds.shape[0])], []
        count = int(seeds.shape[0])
        for fanout in self.num_neighbors:
            if frontier.shape[0] == 0:
                num_sampled_nodes.append(0)
                num_sampled_edges.append(0)
                continue
            if fanout == 0:
                eid = src = col = xp.zeros(0, dtype=np.int64)
            else:  # pyg-lib's order: grouped by frontier node, in frontier order
                eid, src, counts = _sample_grouped(
                    g, rel_type, frontier, fanout, self.replace, self._sample_rng,
                    self._weight,
                )  # fmt: skip
                col = repeat_counts(xp, local[frontier], counts)
            if not rows and int(first.shape[0]) < int(seeds.shape[0]):
                # a seed listed twice: its later copies get the first copy's edges too,
                # so every one of the first batch_size rows is that seed's output
                src, col, eid = _edges_for_copies(xp, local[seeds], src, col, eid)
            fresh = number_new(xp, local, src, count)  # in order of first appearance
            nodes.append(fresh)
            count += int(fresh.shape[0])
            rows.append(local[src])
            cols.append(col)
            eids.append(eid)
            num_sampled_nodes.append(int(fresh.shape[0]))
            num_sampled_edges.append(int(eid.shape[0]))
            frontier = fresh
        return rows, cols, eids, num_sampled_nodes, num_sampled_edges


def hetero_class(cls: type, base: type, hetero: type) -> type:
    """The class a loader ``base`` (NeighborLoader, LinkNeighborLoader) builds for a
    ``HeteroData``: ``hetero`` for ``base`` itself, ``cls`` for a subclass of ``hetero``;
    any other subclass samples homogeneous graphs only (``TypeError``)."""
    if cls is base:
        return hetero
    if not issubclass(cls, hetero):
        raise TypeError(
            f"{cls.__name__} samples a homogeneous Data; a HeteroData needs "
            f"{base.__name__} itself or a subclass of {hetero.__module__}.{hetero.__name__}"
        )
    return cls


class NeighborLoader(_NeighborSampling):
    """PyG's ``NeighborLoader`` over a homogeneous :class:`~arraygnn.data.Data`.

    Args:
        data: a ``Data`` with ``edge_index`` ``[2, E]`` and a known ``num_nodes``, or a
            ``(FeatureStore, GraphStore)`` pair (PyG's remote backend: the structure from
            the graph store, each batch's features read with one ``multi_get_tensor``;
            :mod:`arraygnn.remote_backend`, docs/input_pipelines.md).
        num_neighbors: in-edges sampled per node and hop, first hop first (``-1``: all);
            a list or a :class:`~arraygnn.sampler.NumNeighbors` holding one.
        input_nodes: the seeds: node ids, a boolean mask of length ``num_nodes``, or
            ``None`` (every node).
        batch_size: seeds per batch.
        shuffle: a new seed order every epoch (every ``iter(loader)``).
        drop_last: drop a last batch of fewer than ``batch_size`` seeds.
        replace: sample with replacement.
        subgraph_type: ``'directional'`` (PyG's default), ``'bidirectional'`` or
            ``'induced'`` (module RULE; a name or a ``SubgraphType``).
        seed: seed of the generator for shuffling and sampling (same seed, same epochs).
        node_attrs / edge_attrs: attributes sliced per node / per edge (defaults:
            ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` where present).
        exclude_keys: array attributes left out of the batches.
        input_time: one time per input node (after a mask is turned into ids), overriding
            the seeds' own times; needs ``time_attr`` (keyword-only, as the three below).
        disjoint: one subgraph per seed (a node reached from two seeds appears twice);
            the batch gets ``batch``, each node's seed position.
        temporal_strategy: ``'uniform'`` (uniform among the eligible in-edges) or
            ``'last'`` (the ``k`` most recent eligible ones).
        time_attr: the node or edge time attribute: named in ``node_attrs`` (node times:
            a neighbour is eligible if its time ``<=`` the seed time) or in ``edge_attrs``
            (edge times: an in-edge is eligible if its time ``<=`` the seed time; needs
            ``input_time``). Temporal sampling is always disjoint, as PyG's.
        transform: applied to every batch before it is yielded (PyG's ``transform``,
            e.g. an :mod:`arraygnn.transforms` transform).
        directed: PyG's deprecated argument: ``True`` (the default); ``False`` means
            ``subgraph_type='induced'`` (with PyG's deprecation warning).
        **kwargs: torch ``DataLoader`` keywords (:func:`torch_loader_args`): ``generator``
            (the epoch order instead of ``seed``; a ``torch.Generator`` gives torch's own
            order, and seeds the sampling from its ``initial_seed()``), ``sampler`` /
            ``batch_sampler`` (positions into ``input_nodes``, torch's exclusions) are
            honoured; ``num_workers``, ``pin_memory``, ``persistent_workers``,
            ``prefetch_factor``, ``worker_init_fn``, ``timeout``,
            ``multiprocessing_context``, ``filter_per_worker`` & co. are checked as torch
            checks them and have no effect (each batch is made on demand, in the calling
            thread); any other keyword is a ``TypeError``.

    Seeds repeated in one batch keep their positions among the first ``batch_size`` nodes
    (``n_id`` repeats them): their neighbourhood is sampled once and every copy gets its
    edges (``e_id`` repeats those), so each of those rows is that seed's output (in
    disjoint mode each copy grows its own tree).

    Disjoint / temporal mode (:mod:`arraygnn.disjoint_sampling`, pyg-lib's semantics):
    the seed time is ``input_time`` or the seed's node time; nodes are numbered seeds
    first, then hop by hop, and a ``(seed, node)`` pair appears once; ``batch`` (int64)
    holds each node's seed position and ``seed_time`` the given ``input_time`` (PyG sets
    it only then). With ``num_neighbors=[-1] * L`` each seed's tree holds every node
    that reaches it through at most ``L`` eligible in-edges (no later than its time).

    ``len(loader)`` is the number of batches per epoch. NumPy arrays are sampled on the
    CPU, CuPy arrays on their GPU (the batches stay there).

    A :class:`~arraygnn.hetero_data.HeteroData` gives a
    :class:`~arraygnn.hetero_neighbor_loader.HeteroNeighborLoader` (a subclass), PyG's
    heterogeneous form: ``input_nodes=(node_type, ids)``, ``num_neighbors`` a list or
    ``{edge_type: [...]}``, batches that are ``HeteroData``.
    """

    def __new__(cls, data: Any = None, *args: Any, **kwargs: Any) -> Any:
        # --- HeteroData dispatch (arraygnn/hetero_neighbor_loader.py) -------------------
        # PyG's one NeighborLoader name takes both graph kinds: a HeteroData builds the
        # hetero subclass, whose __init__ then runs with the same arguments.
        from arraygnn.hetero_data import HeteroData

        if type(data).__module__.startswith("torch_geometric"):
            raise TypeError(
                f"{cls.__name__}: data is a torch_geometric {type(data).__name__}; convert it "
                "first with arraygnn.interop.from_pyg"
            )
        from arraygnn._remote_backend import is_hetero_remote

        if isinstance(data, HeteroData) or is_hetero_remote(data):
            from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader

            cls = hetero_class(cls, NeighborLoader, HeteroNeighborLoader)
        return super().__new__(cls)

    def __init__(
        self,
        data: Any,
        num_neighbors: Sequence[int],
        input_nodes: Any = None,
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
        input_time: Any = None,
        disjoint: bool = False,
        temporal_strategy: str = "uniform",
        time_attr: str | None = None,
        transform: Callable[[Any], Any] | None = None,
        directed: bool = True,
        **kwargs: Any,
    ) -> None:
        self.transform = check_transform(transform)
        where = "NeighborLoader"
        seed = self._torch_args(where, kwargs, directed, seed, batch_size, shuffle, drop_last)
        subgraph_type = subgraph_type if directed else "induced"
        super().__init__(
            where, data, num_neighbors, batch_size, shuffle, drop_last, replace,
            subgraph_type, seed, node_attrs, edge_attrs, exclude_keys, disjoint,
            temporal_strategy, time_attr,
        )  # fmt: skip
        xp = self.graph._xp()
        self.input_nodes = self._input_nodes(where, input_nodes, xp)
        self._ids_as_input_id = is_mask(input_nodes)  # PyG's get_input_nodes
        self.input_time = _input_time(where, xp, input_time, time_attr, self.input_nodes)
        if self._edge_time is not None and self.input_time is None:
            raise ValueError(
                f"{where}: edge-level temporal sampling (time_attr={time_attr!r} is an edge "
                "attribute) needs input_time=, the seeds' times (pyg-lib: 'Seed time needs "
                "to be specified')"
            )

    def _input_nodes(self, where: str, input_nodes: Any, xp: Any) -> Any:
        n = self.num_nodes
        if input_nodes is None:
            return xp.arange(n, dtype=np.int64)
        nodes = xp.asarray(input_nodes)
        if nodes.size == 0 and nodes.dtype.kind == "f":  # [] reads as float64
            nodes = nodes.astype(np.int64)
        if nodes.dtype == bool:
            if nodes.ndim != 1 or int(nodes.shape[0]) != n:
                raise ValueError(
                    f"{where}: a boolean input_nodes mask must have {n} entries (num_nodes), "
                    f"got shape {tuple(nodes.shape)}"
                )
            return xp.flatnonzero(nodes).astype(np.int64)
        if nodes.dtype.kind not in "iu" or nodes.ndim != 1:
            raise TypeError(
                f"{where}: input_nodes must be 1-D node ids or a boolean mask, got "
                f"{nodes.ndim}-D {nodes.dtype}"
            )
        if nodes.shape[0]:
            lo, hi = int(nodes.min()), int(nodes.max())
            if lo < 0 or hi >= n:
                raise ValueError(
                    f"{where}: input_nodes has node {lo if lo < 0 else hi}, outside "
                    f"[0, {n}) (num_nodes={n})"
                )
        return nodes.astype(np.int64)

    def __len__(self) -> int:
        count = int(self.input_nodes.shape[0])
        return num_batches(count, self.batch_size, self.drop_last, *self._samplers())

    def __iter__(self) -> Iterator[Any]:
        return self._epoch(int(self.input_nodes.shape[0]))

    def _batch(self, positions: Any) -> Any:
        seeds = self.input_nodes[positions]
        given = None if self.input_time is None else self.input_time[positions]
        batch = self._subgraph(seeds, self._seed_times(seeds, given))
        batch.input_id = (seeds if self._ids_as_input_id else positions).astype(np.int64)
        batch.batch_size = int(seeds.shape[0])
        if given is not None:  # PyG: the given input times only
            batch.seed_time = given
        return batch

    def __repr__(self) -> str:
        return (
            f"NeighborLoader(num_neighbors={self.num_neighbors}, batch_size={self.batch_size}, "
            f"num_input_nodes={int(self.input_nodes.shape[0])})"
        )


def is_mask(input_nodes: Any) -> bool:
    """Whether ``input_nodes`` is a boolean mask: PyG's ``get_input_nodes`` then makes its
    node ids the ``input_id`` as well (each batch's ``input_id`` is its seeds' node ids,
    not their positions)."""
    dtype = getattr(input_nodes, "dtype", None)
    if dtype is None and isinstance(input_nodes, (list, tuple)) and input_nodes:
        return all(isinstance(v, (bool, np.bool_)) for v in input_nodes)
    return dtype is not None and np.dtype(dtype) == np.bool_


def _input_time(where: str, xp: Any, input_time: Any, time_attr: Any, nodes: Any) -> Any:
    """PyG's ``input_time``: one time per input node (after a mask is turned into ids);
    it needs ``time_attr``."""
    from arraygnn.disjoint_sampling import check_times

    if input_time is None:
        return None
    if time_attr is None:
        raise ValueError(
            f"{where}: received conflicting 'input_time' and 'time_attr' arguments: "
            "'input_time' is set while 'time_attr' is not set"
        )
    count = int(nodes.shape[0])
    return check_times(xp, where, "input_time (one time per input node)", input_time, count)


def _edges_for_copies(xp: Any, first_of: Any, src: Any, col: Any, eid: Any) -> tuple[Any, Any, Any]:
    """The first hop's edges plus, for every later copy ``p`` of a repeated seed (whose first
    copy is at position ``first_of[p]``), a copy of each edge into ``first_of[p]`` with
    ``p`` as its target. ``col`` holds the edges' target positions (grouped by position,
    as the sampler gives them); the result is grouped by position too, each copy's edges
    in its first copy's order."""
    from arraygnn._namespace import repeat_counts

    copies = xp.flatnonzero(first_of != xp.arange(first_of.shape[0]))
    order = xp.argsort(col, kind="stable")
    by_col = col[order]
    lo = xp.searchsorted(by_col, first_of[copies], side="left")
    counts = xp.searchsorted(by_col, first_of[copies], side="right") - lo
    total = int(counts.sum())
    if total == 0:
        return src, col, eid
    starts = repeat_counts(xp, lo, counts)
    offsets = xp.arange(total) - repeat_counts(xp, xp.cumsum(counts) - counts, counts)
    picked = order[starts + offsets]
    new_col = repeat_counts(xp, copies, counts).astype(col.dtype)
    col = xp.concatenate([col, new_col])
    by_position = xp.argsort(col, kind="stable")  # the copies' edges at their positions
    return (
        xp.concatenate([src, src[picked]])[by_position],
        col[by_position],
        xp.concatenate([eid, eid[picked]])[by_position],
    )


def number_new(xp: Any, local: Any, ids: Any, count: int) -> Any:
    """The values of ``ids`` that ``local`` (global id -> batch id, ``-1``: not in the
    batch) does not hold yet, once each in order of first appearance, numbered ``count,
    count + 1, ...`` in ``local`` (in place): one Numba pass on the CPU, a sort on CuPy."""
    if xp is np:
        from arraygnn.kernels.cpu.sampling import number_new_nodes

        return number_new_nodes(ids, local, count)
    new = ids[local[ids] < 0]
    fresh = new[_first_occurrences(xp, new)]
    local[fresh] = xp.arange(count, count + int(fresh.shape[0]))
    return fresh


def _first_occurrences(xp: Any, ids: Any) -> Any:
    """Positions of the first occurrence of each distinct value of ``ids``, in order."""
    if ids.shape[0] == 0:
        return xp.zeros(0, dtype=np.int64)
    _, first = xp.unique(ids, return_index=True)
    return xp.sort(first)
