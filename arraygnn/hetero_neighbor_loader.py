"""``NeighborLoader`` on a :class:`~arraygnn.hetero_data.HeteroData`: PyG's heterogeneous
neighbour sampling.

``NeighborLoader(data, num_neighbors, input_nodes=(node_type, ids))`` with a ``HeteroData``
returns a :class:`HeteroNeighborLoader` (a subclass of
:class:`~arraygnn.neighbor_loader.NeighborLoader`; build it through ``NeighborLoader``).
Hop ``h`` samples, for every edge type ``(src, rel, dst)``, up to
``num_neighbors[edge_type][h]`` in-edges of each ``dst`` node that the previous hop added
(the seeds for ``h = 0``; ``-1``: all in-edges), PyG's directional sampling. Each batch is a
``HeteroData`` over the sampled nodes of every type, with the sampled edges relabelled to the
batch's per-type ids, so ``model(batch.x_dict, batch.edge_index_dict)[input_type][:batch_size]``
are the seeds' rows; with ``num_neighbors=[-1] * L`` they equal the full-graph rows of an
``L``-layer model whose layers aggregate in-edges (e.g. a ``HeteroConv`` of ``SAGEConv``).

RULE: ``num_neighbors`` is a list (the same fan-outs for every edge type) or a dict naming
      every edge type, each with the same number of hops (otherwise a ``ValueError``).
RULE: which attributes are per node and per edge is said, never guessed from lengths: a
      node store holds per-node values, so every array in a node store (``x``, ``y``,
      masks, times, ...) is sliced by default (one of another length is a ``ValueError``
      naming it: leave it out with ``exclude_keys``); ``node_attrs=`` narrows that to the
      names it gives. In edge stores ``edge_attr`` / ``edge_weight`` are sliced by default
      and every other array (``edge_label``, ``edge_label_index``, ...: not always one per
      edge) must be named in ``edge_attrs`` or ``exclude_keys``. Graph-level attributes
      (``data.y``) and non-array values are kept as they are.
RULE: uniform sampling over each node's in-edges of each edge type, reproducible from
      ``seed``; one CSR per edge type, built when the loader is made; per hop one
      vectorised sampler call per edge type (the kernels of the homogeneous loader).
RULE: the order is pyg-lib's (one thread): per hop edge type by edge type, each one's
      edges grouped by the ``dst`` node they were sampled for, in batch order (in edge-id
      order when all its in-edges are taken, draw order otherwise); a node is numbered
      where it is first seen. Full fan-outs give PyG's ids and ``edge_index`` exactly.
RULE: ``disjoint=True`` or ``time_attr`` gives one tree per seed (PyG's disjoint and
      temporal sampling); the time's level is the kind of store holding it.
RULE: ``subgraph_type='induced'``: the same nodes, per edge type every edge among them
      (torch-sparse's order: by destination position, edge-id order within; not with
      ``disjoint`` / time). ``'bidirectional'``: PyG's ``to_bidirectional``: each edge
      type is merged with ``(dst, 'rev_' + rel, src)`` (which gets the transposed
      edges), else with itself when ``src == dst``, else with the one type ``(dst, *,
      src)``; a merged type has no ``e_id`` and no edge attributes (its edges have no
      single id), a type with no reverse stays directional (a warning when the loader is
      made). Both drop ``num_sampled_nodes`` / ``num_sampled_edges``, as PyG.

Each batch carries, as PyG's: per node type ``n_id`` (global ids; the input type's seeds
first), ``num_sampled_nodes`` (per hop, hop 0 the seeds) and ``num_nodes``; per edge type
``edge_index`` (row 0 the sampled neighbour, a ``src``-type batch id; row 1 the node it was
sampled for, a ``dst``-type batch id), ``e_id`` and ``num_sampled_edges`` (per hop); on the
input type ``batch_size`` and ``input_id`` (the seeds' positions in ``input_nodes``; for a
boolean mask its node ids, as PyG).

>>> import numpy as np
>>> from arraygnn.hetero_data import HeteroData
>>> from arraygnn.neighbor_loader import NeighborLoader
>>> data = HeteroData(paper={"x": np.arange(3.0)[:, None]}, author={"num_nodes": 2})
>>> data["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [0, 0, 2]])
>>> data["paper", "cites", "paper"].edge_index = np.array([[1, 2], [0, 1]])
>>> loader = NeighborLoader(data, [-1], input_nodes=("paper", np.array([0])), batch_size=1)
>>> batch = next(iter(loader))
>>> batch["paper"].n_id.tolist(), batch["author"].n_id.tolist(), batch["paper"].batch_size
([0, 1], [0, 1], 1)
>>> batch["writes"].edge_index.tolist(), batch["cites"].edge_index.tolist()
([[0, 1], [0, 0]], [[1], [0]])
>>> batch["paper"].num_sampled_nodes, batch["author"].num_sampled_nodes
([1, 1], [0, 2])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.neighbor_loader import (
    _DEFAULT_EDGE,
    _DEFAULT_NODE,
    NeighborLoader,
    _check_int,
    _edges_for_copies,
    _first_occurrences,
    check_transform,
    number_new,
)

__all__ = ["HeteroNeighborLoader"]

_WHERE = "NeighborLoader"
_NODE_OWN = ("num_nodes",)
_EDGE_OWN = ("edge_index",)


class HeteroNeighborLoader(NeighborLoader):
    """What ``NeighborLoader(hetero_data, ...)`` returns: PyG's ``NeighborLoader`` over a
    :class:`~arraygnn.hetero_data.HeteroData`.

    Args:
        data: a ``HeteroData``; every node type needs a known ``num_nodes`` (``x`` or an
            explicit ``num_nodes``), every edge type an integer ``edge_index`` ``[2, E]``;
            or a ``(FeatureStore, GraphStore)`` pair whose edge types are ``(src, rel, dst)``.
        num_neighbors: fan-outs per hop, first hop first (``-1``: all in-edges): a list for
            every edge type alike, or ``{(src, rel, dst): [...]}`` naming every edge type
            (the shorthands ``'rel'`` / ``(src, dst)`` of ``HeteroData`` work as keys), or a
            :class:`~arraygnn.sampler.NumNeighbors` (its ``default`` fills the types its
            dict leaves out).
        input_nodes: ``(node_type, ids)``, ``(node_type, boolean_mask)``,
            ``(node_type, None)`` or ``node_type`` (every node of that type).
        batch_size, shuffle, drop_last, replace, subgraph_type, seed: as for a ``Data``.
        node_attrs / edge_attrs: attributes sliced in every node / edge store holding them
            (defaults: every array of the node stores / ``('edge_attr', 'edge_weight')``).
        exclude_keys: attributes left out of the batches (every store and the graph level).
        input_time, disjoint, temporal_strategy: as for a ``Data`` (keyword-only).
        time_attr: the time attribute; node-level when node stores hold it, edge-level
            when edge stores do (both or neither: ``ValueError``, as PyG). It is sliced
            into the batches like ``node_attrs`` / ``edge_attrs`` unless excluded.
        transform: applied to every batch before it is yielded (PyG's ``transform``).
        directed / ``**kwargs``: PyG's ``directed`` and torch ``DataLoader`` keywords, as
            for a ``Data``.

    A seed repeated in one batch keeps all its positions among the input type's first
    ``batch_size`` nodes, each with the first copy's first-hop edges (as the homogeneous
    loader). NumPy arrays are sampled on the CPU, CuPy arrays on their GPU.

    Disjoint / temporal mode (pyg-lib's semantics, :mod:`arraygnn.disjoint_sampling`):
    one tree per seed; every node store gets ``batch`` (the seed position of each node),
    the input type ``seed_time`` when ``input_time`` is given. With node times, an edge
    type whose source type has no time is sampled without a constraint (as pyg-lib), but
    the input type needs one unless ``input_time`` is given; with edge times, edge types
    without the attribute are unconstrained and ``input_time`` is required.
    """

    def __init__(
        self,
        data: Any,
        num_neighbors: Sequence[int] | Mapping[Any, Sequence[int]],
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
        # torch DataLoader keywords and PyG's directed, as NeighborLoader (neighbor_loader.py)
        seed = self._torch_args(_WHERE, kwargs, directed, seed, batch_size, shuffle, drop_last)
        subgraph_type = subgraph_type if directed else "induced"
        from arraygnn._remote_backend import resolve_hetero
        from arraygnn.graph.core import Graph
        from arraygnn.hetero_data import HeteroData
        from arraygnn.neighbor_loader import _input_time, _temporal_args, is_mask

        # a (FeatureStore, GraphStore) pair: its structure here, its features per batch
        data, node_attrs, edge_attrs, self._remote = resolve_hetero(
            _WHERE, data, node_attrs, edge_attrs, exclude_keys, time_attr
        )
        if not isinstance(data, HeteroData):
            raise TypeError(f"{_WHERE}: data must be a HeteroData, got {type(data).__name__}")
        self.batch_size = _check_int(_WHERE, "batch_size", batch_size, 1)
        self.shuffle, self.drop_last, self.replace = bool(shuffle), bool(drop_last), bool(replace)
        self.data = data
        self.node_types, self.edge_types = list(data.node_types), list(data.edge_types)
        if not self.edge_types:
            raise ValueError(f"{_WHERE}: the HeteroData has no edge type to sample")
        self.num_nodes_dict = _node_counts(data)
        rels = {et: _edge_index(data, et) for et in self.edge_types}
        self.num_neighbors = _num_neighbors(data, num_neighbors, self.edge_types)
        self.num_hops = len(next(iter(self.num_neighbors.values())))
        self.disjoint, self.temporal_strategy, self.time_attr = _temporal_args(
            _WHERE, disjoint, temporal_strategy, time_attr
        )
        from arraygnn._subgraph_types import check_subgraph_type, hetero_partners, warn_alone

        self.subgraph_type = check_subgraph_type(_WHERE, subgraph_type, self.disjoint)
        self._partners: list = []
        if self.subgraph_type == "bidirectional":  # PyG's pairing of edge types, once
            self._partners, alone = hetero_partners(self.edge_types)
            warn_alone(alone)
        level = _time_level(data, time_attr)
        # the time's level is the kind of store holding it (no guess): sliced there, as PyG
        also = None if level is None else (level, time_attr)
        weight_attr = self.weight_attr  # per edge: said by its name (sliced unless excluded)
        if weight_attr is not None and not any(weight_attr in st for _, st in data.edge_items()):
            raise ValueError(f"{_WHERE}: weight_attr={weight_attr!r}: no edge type holds it")
        if weight_attr is not None and weight_attr not in set(exclude_keys):
            if edge_attrs is None:  # the defaults some edge type holds, and the weights
                held = {k for _, store in data.edge_items() for k in store}
                edge_attrs = [k for k in _DEFAULT_EDGE if k in held]
            edge_attrs = list(edge_attrs)
            edge_attrs += [] if weight_attr in edge_attrs else [weight_attr]
        self._place_attrs(data, node_attrs, edge_attrs, set(exclude_keys), also)
        try:  # range checks once; the structure only (features are sliced per batch)
            self.graph = Graph({et: (ei[0], ei[1]) for et, ei in rels.items()}, self.num_nodes_dict)
        except (TypeError, ValueError) as err:  # name the loader, keep the reason
            raise type(err)(f"{_WHERE}: {err}") from None
        if not self.disjoint:  # (disjoint mode builds its time-sorted CSCs in _times)
            for et in self.edge_types:
                self.graph.csr(et)  # one destination CSR per edge type, now
        xp = self.graph._xp()
        self.input_type, self.input_nodes = _input_nodes(data, input_nodes, self.num_nodes_dict, xp)
        given = input_nodes[1] if isinstance(input_nodes, tuple) and len(input_nodes) == 2 else None
        self._ids_as_input_id = is_mask(given)  # PyG's get_input_nodes: a mask's ids
        self.input_time = _input_time(_WHERE, xp, input_time, time_attr, self.input_nodes)
        self._times(data, level, xp)
        self._weights: dict[Any, Any] = {}  # pyg-lib's: the edge types holding the weights
        if weight_attr is not None:
            from arraygnn.neighbor_loader import check_weighted_mode, check_weights

            check_weighted_mode(_WHERE, weight_attr, self.disjoint)
            for et, store in data.edge_items():
                if weight_attr in store:
                    w = check_weights(
                        xp, _WHERE, weight_attr, store[weight_attr], _num_edges(data, et), et
                    )
                    self._weights[et] = (weight_attr, w)
        self._rng = np.random.default_rng(seed)  # epochs' orders
        # the sampling stream: its own seed drawn from the first (as the homogeneous loader)
        self._sample_seed = int(self._rng.integers(2**63 - 1))
        self._sample_rng: Any = None
        self._local: dict[str, Any] | None = None  # per type: global id -> batch id, or -1

    def _place_attrs(
        self,
        data: Any,
        node_attrs: Iterable[str] | None,
        edge_attrs: Iterable[str] | None,
        excluded: set[str],
        also: tuple[str, str] | None = None,
    ) -> None:
        """Which store values are sliced, kept or left out (said, never guessed); ``also``
        = ``(kind, name)``: one more attribute sliced in that kind of store (the time)."""
        named = {
            "node": list(_DEFAULT_NODE if node_attrs is None else node_attrs),
            "edge": list(_DEFAULT_EDGE if edge_attrs is None else edge_attrs),
        }
        if node_attrs is None:  # a node store's arrays are per node (its kind says so)
            for _, store in data.node_items():
                for name, value in store.items():
                    if name not in named["node"] and name not in _NODE_OWN:
                        if name not in excluded and is_array(value) and value.ndim > 0:
                            named["node"].append(name)
        if also is not None and also[1] not in named[also[0]] and also[1] not in excluded:
            named[also[0]].append(also[1])
        own = {"node": _NODE_OWN, "edge": _EDGE_OWN}
        stores = {"node": data.node_items(), "edge": data.edge_items()}
        self.node_attrs, self.edge_attrs = named["node"], named["edge"]
        self._slice: dict[Any, list[str]] = {}
        self._keep: dict[Any, dict[str, Any]] = {}
        unplaced: list[str] = []
        for kind in ("node", "edge"):
            for name in named[kind]:
                if not isinstance(name, str):
                    raise TypeError(f"{_WHERE}: {kind}_attrs holds {name!r}, not a name")
                if name in own[kind]:
                    raise ValueError(
                        f"{_WHERE}: {name!r} is the batch's own field, not an attribute"
                    )
                given = (node_attrs if kind == "node" else edge_attrs) is not None
                if given and not any(name in s for _, s in stores[kind]):
                    raise ValueError(
                        f"{_WHERE}: no {kind} type holds attribute {name!r} (named in {kind}_attrs)"
                    )
            for key, store in stores[kind]:
                sliced, kept, loose = [], {}, []
                for name, value in store.items():
                    if name in own[kind] or name in excluded:
                        continue
                    if name in named[kind]:
                        sliced.append(name)
                    elif is_array(value) and value.ndim > 0:
                        loose.append(name)
                    else:  # non-arrays and 0-d arrays: one value for the store, kept
                        kept[name] = value
                if loose:
                    unplaced.append(f"{kind} type {key!r}: {loose}")
                rows = self.num_nodes_dict[key] if kind == "node" else _num_edges(data, key)
                for name in sliced:
                    value = store[name]
                    if not is_array(value) or value.ndim == 0 or int(value.shape[0]) != rows:
                        shape = tuple(value.shape) if is_array(value) else type(value).__name__
                        hint = (
                            " (a node store's arrays are sliced per node unless node_attrs= "
                            "names them; leave this one out with exclude_keys=)"
                            if kind == "node" and node_attrs is None
                            else ""
                        )
                        raise ValueError(
                            f"{_WHERE}: {kind} type {key!r}: attribute {name!r} must have "
                            f"{rows} rows (one per {kind}), got {shape}{hint}"
                        )
                self._slice[key], self._keep[key] = sliced, kept
        if unplaced:
            raise ValueError(
                f"{_WHERE}: attribute(s) neither sliced nor left out ({'; '.join(unplaced)}): "
                "name them in node_attrs= (node stores) or edge_attrs= (edge stores), or "
                "leave them out with exclude_keys="
            )
        self._global = {k: v for k, v in data._global.items() if k not in excluded}

    #: seed times come from ``input_time`` or the input type's node times (the link
    #: loader's sampler gets them from ``edge_label_time`` instead)
    _own_seed_time = True

    def _times(self, data: Any, level: str | None, xp: Any) -> None:
        """The node or edge times per type (checked), the seeds' time source, and the
        disjoint sampler's CSC per edge type (time-sorted where the relation has times)."""
        from arraygnn.disjoint_sampling import check_times, csc

        self._node_time: dict[Any, Any] = {}
        self._edge_time: dict[Any, Any] = {}
        if level == "node":
            for t, store in data.node_items():
                if self.time_attr in store:
                    self._node_time[t] = check_times(
                        xp, _WHERE, f"node type {t!r}: time {self.time_attr!r}",
                        store[self.time_attr], self.num_nodes_dict[t],
                    )  # fmt: skip
        elif level == "edge":
            for et, store in data.edge_items():
                if self.time_attr in store:
                    self._edge_time[et] = check_times(
                        xp, _WHERE, f"edge type {et!r}: time {self.time_attr!r}",
                        store[self.time_attr], _num_edges(data, et),
                    )  # fmt: skip
        if level is not None and self.input_time is None and self._own_seed_time:
            if level == "edge":
                raise ValueError(
                    f"{_WHERE}: edge-level temporal sampling (time_attr={self.time_attr!r} "
                    "is an edge attribute) needs input_time=, the seeds' times (pyg-lib: "
                    "'Seed time needs to be specified')"
                )
            if self.input_type not in self._node_time:
                raise ValueError(
                    f"{_WHERE}: the input node type {self.input_type!r} has no "
                    f"{self.time_attr!r}, where the seeds' times come from; give it one or "
                    "pass input_time="
                )
        self._csc: dict[Any, Any] = {}
        if self.disjoint:
            for et in self.edge_types:
                ei = self.data._edges[et]["edge_index"]
                time = self._edge_time.get(et)
                if et[0] in self._node_time:
                    time = self._node_time[et[0]][ei[0]]
                self._csc[et] = csc(xp, ei[0], ei[1], self.num_nodes_dict[et[2]], time)

    def _seed_times(self, seeds: Any, given: Any) -> Any:
        if given is not None or not self._node_time:
            return given
        return self._node_time[self.input_type][seeds]

    def _batch(self, positions: Any) -> Any:
        seeds = self.input_nodes[positions]
        given = None if self.input_time is None else self.input_time[positions]
        batch = self._subgraph(seeds, self._seed_times(seeds, given))
        store = batch.get_node_store(self.input_type)
        store.input_id = (seeds if self._ids_as_input_id else positions).astype(np.int64)
        store.batch_size = int(seeds.shape[0])
        if given is not None:  # PyG: the given input times only
            store.seed_time = given
        return batch

    def _trees(self, seeds: Any, seed_time: Any) -> Any:
        """Disjoint mode: one tree per seed (:mod:`arraygnn.disjoint_sampling`); ``seeds``
        the input type's ids or ``{node_type: ids}`` (subgraphs numbered in that order)."""
        from arraygnn.disjoint_sampling import sample_trees
        from arraygnn.sampling import _rng

        xp = self.graph._xp()
        if self._sample_rng is None:
            self._sample_rng = _rng(self.graph, self._sample_seed)
        seed_dict = seeds if isinstance(seeds, Mapping) else {self.input_type: seeds}
        out = sample_trees(
            xp, self.num_nodes_dict, self._csc, seed_dict, self.num_neighbors,
            seed_time=seed_time, replace=self.replace, strategy=self.temporal_strategy,
            rng=self._sample_rng,
        )  # fmt: skip
        edges = {et: (out.row[et], out.col[et], out.e_id[et]) for et in self.edge_types}
        counts = (out.num_sampled_nodes, out.num_sampled_edges)
        if self.subgraph_type != "directional":  # 'bidirectional' (no induced trees)
            edges, counts = self._other_edges(out.n_id, edges, out.num_sampled_nodes), (None, None)
        batch = self._assemble(out.n_id, edges, *counts)
        for t in self.node_types:
            batch.get_node_store(t).batch = out.batch[t]
        return batch

    def _subgraph(self, seeds: Any, seed_time: Any = None) -> Any:
        """The ``HeteroData`` sampled around ``seeds`` (global ids of the input type)."""
        xp = self.graph._xp()
        if self.disjoint:
            return self._trees(seeds, seed_time)
        if self._local is None:  # made on the first batch, reset entry by entry after each
            self._local = {
                t: xp.full(n, -1, dtype=np.int64) for t, n in self.num_nodes_dict.items()
            }
        nodes: dict[str, list[Any]] = {t: [] for t in self.node_types}
        try:
            edges, num_sampled_nodes, num_sampled_edges = self._sample(seeds, nodes)
        finally:
            for t, parts in nodes.items():  # only the entries this batch set
                for ids in parts:
                    self._local[t][ids] = -1
        empty = xp.zeros(0, dtype=np.int64)
        n_ids = {}
        for t in self.node_types:
            parts = [seeds] + nodes[t][1:] if t == self.input_type else nodes[t]
            n_ids[t] = xp.concatenate(parts).astype(np.int64, copy=False) if parts else empty
        flat = {}
        for et in self.edge_types:
            rows, cols, eids = edges[et]
            flat[et] = (
                xp.concatenate(rows) if rows else empty,
                xp.concatenate(cols) if cols else empty,
                xp.concatenate(eids).astype(np.int64) if eids else empty,
            )
        if self.subgraph_type != "directional":
            flat = self._other_edges(n_ids, flat, num_sampled_nodes)
            num_sampled_nodes = num_sampled_edges = None  # (PyG's samplers: None)
        return self._assemble(n_ids, flat, num_sampled_nodes, num_sampled_edges)

    def _other_edges(self, n_ids: dict, edges: dict, num_sampled_nodes: dict) -> dict:
        """``{edge_type: (row, col, e_id)}`` of PyG's other subgraph types, from the
        directional sample (:mod:`arraygnn._subgraph_types`): ``'bidirectional'`` merges
        each edge type with its reverse (``e_id`` ``None`` for a merged type, as PyG),
        ``'induced'`` takes every edge among ``n_ids`` (never in disjoint mode)."""
        from arraygnn._subgraph_types import hetero_bidirectional, induced_edges, node_positions

        xp = self.graph._xp()
        if self.subgraph_type == "bidirectional":
            counts = {t: int(ids.shape[0]) for t, ids in n_ids.items()}
            parts = [{et: e[k] for et, e in edges.items()} for k in range(3)]
            row, col, e_id = hetero_bidirectional(xp, self._partners, counts, *parts)
            assert e_id is not None
            return {et: (row[et], col[et], e_id[et]) for et in edges}
        local = self._local
        assert local is not None
        for t, ids in n_ids.items():
            node_positions(xp, local[t], ids, num_sampled_nodes[t][0])
        try:
            return {
                et: induced_edges(xp, self.graph.csr(et), n_ids[et[2]], local[et[0]])
                for et in self.edge_types
            }
        finally:
            for t, ids in n_ids.items():
                local[t][ids] = -1

    def _assemble(
        self, n_ids: dict, edges: dict, num_sampled_nodes: dict, num_sampled_edges: dict
    ) -> Any:
        """The batch ``HeteroData``: per type the sliced attributes and ids, per edge type
        ``edge_index`` (``edges[et] = (row, col, e_id)``), and the per-hop counts."""
        from arraygnn import ops
        from arraygnn.hetero_data import HeteroData

        xp = self.graph._xp()
        out = HeteroData()
        for key, value in self._global.items():
            setattr(out, key, value)
        for t in self.node_types:
            n_id = n_ids[t]
            store, source = out.get_node_store(t), self.data._nodes[t]
            for key, value in self._keep[t].items():
                store[key] = value
            for key in self._slice[t]:
                store[key] = ops.gather(source[key], n_id)
            store.n_id = n_id
            store.num_nodes = int(n_id.shape[0])
            if num_sampled_nodes is not None:
                store.num_sampled_nodes = num_sampled_nodes[t]
        for et in self.edge_types:
            row, col, e_id = edges[et]
            store, source = out.get_edge_store(*et), self.data._edges[et]
            for key, value in self._keep[et].items():
                store[key] = value
            store.edge_index = xp.stack([row, col])
            if e_id is not None:  # (None: merged with its reverse, no single ids; PyG)
                for key in self._slice[et]:
                    store[key] = ops.gather(source[key], e_id)
                store.e_id = e_id
            if num_sampled_edges is not None:
                store.num_sampled_edges = num_sampled_edges[et]
        if getattr(self, "_remote", None) is not None:  # the remote features, one read
            self._remote.fill(out, n_ids, {et: edges[et][2] for et in self.edge_types})
        return out

    def _sample(self, seeds: Any, nodes: dict[str, list[Any]]) -> tuple[dict, dict, dict]:
        """The hops around ``seeds``: ``({edge_type: (rows, cols, eids)}, {node_type: nodes
        per hop}, {edge_type: edges per hop})``; ``nodes[t]`` gets each array of ids set in
        ``self._local[t]`` (the input type's distinct seeds first), which the caller resets."""
        from arraygnn.sampling import _rng

        g = self.graph
        xp = g._xp()
        if self._sample_rng is None:
            self._sample_rng = _rng(g, self._sample_seed)
        local = self._local
        assert local is not None
        it = self.input_type
        first = _first_occurrences(xp, seeds)
        distinct = seeds[first]
        local[it][distinct] = first
        nodes[it].append(distinct)
        repeated = int(first.shape[0]) < int(seeds.shape[0])
        count = dict.fromkeys(self.node_types, 0)
        count[it] = int(seeds.shape[0])
        num_sampled_nodes = {t: [0] for t in self.node_types}
        num_sampled_nodes[it] = [int(seeds.shape[0])]
        copies = local[it][seeds] if repeated else None
        edges, num_sampled_edges = self._hops(
            {it: distinct}, count, nodes, num_sampled_nodes, copies
        )
        return edges, num_sampled_nodes, num_sampled_edges

    def _hops(
        self,
        frontier: dict[str, Any],
        count: dict[str, int],
        nodes: dict[str, list[Any]],
        num_sampled_nodes: dict[str, list[int]],
        copies: Any = None,
    ) -> tuple[dict, dict]:
        """Sample ``self.num_hops`` hops out from ``frontier`` (``{node_type: ids}``, already
        in ``self._local`` with ``count`` ids per type), appending each hop's new nodes to
        ``nodes`` / ``num_sampled_nodes``. ``copies`` = the input seeds' local ids when a seed is
        listed twice: its later copies get the first copy's hop-0 edges.
        Returns ``({edge_type: (rows, cols, eids)}, {edge_type: edges per hop})``."""
        from arraygnn._namespace import repeat_counts
        from arraygnn.sampling import _sample_grouped

        g = self.graph
        xp = g._xp()
        local = self._local
        num_sampled_edges: dict[Any, list[int]] = {et: [] for et in self.edge_types}
        edges: dict[Any, tuple[list, list, list]] = {et: ([], [], []) for et in self.edge_types}
        for hop in range(self.num_hops):
            added: dict[str, list[Any]] = {t: [] for t in self.node_types}
            for et in self.edge_types:
                src_type, _, dst_type = et
                fanout = self.num_neighbors[et][hop]
                targets = frontier.get(dst_type)
                if targets is None or targets.shape[0] == 0 or fanout == 0:
                    num_sampled_edges[et].append(0)
                    continue
                # pyg-lib's order: grouped by target node, in frontier order
                eid, src, counts = _sample_grouped(
                    g, et, targets, fanout, self.replace, self._sample_rng,
                    self._weights.get(et),
                )  # fmt: skip
                col = repeat_counts(xp, local[dst_type][targets], counts)
                if hop == 0 and copies is not None:
                    # a seed listed twice: its later copies get the first copy's edges too
                    src, col, eid = _edges_for_copies(xp, copies, src, col, eid)
                seen = local[src_type]
                fresh = number_new(xp, seen, src, count[src_type])  # in order of first sight
                count[src_type] += int(fresh.shape[0])
                nodes[src_type].append(fresh)
                added[src_type].append(fresh)
                rows, cols, eids = edges[et]
                rows.append(seen[src])
                cols.append(col)
                eids.append(eid)
                num_sampled_edges[et].append(int(eid.shape[0]))
            frontier = {t: xp.concatenate(parts) for t, parts in added.items() if parts}
            for t in self.node_types:
                num_sampled_nodes[t].append(sum(int(p.shape[0]) for p in added[t]))
        return edges, num_sampled_edges

    def __repr__(self) -> str:
        return (
            f"NeighborLoader(input_type={self.input_type!r}, num_hops={self.num_hops}, "
            f"batch_size={self.batch_size}, num_input_nodes={int(self.input_nodes.shape[0])}, "
            f"node_types={len(self.node_types)}, edge_types={len(self.edge_types)})"
        )


def _time_level(data: Any, time_attr: str | None) -> str | None:
    """``'node'`` or ``'edge'``: the kind of store holding ``time_attr`` (PyG's rule: not
    both, not neither); ``None`` without time."""
    if time_attr is None:
        return None
    in_nodes = any(time_attr in store for _, store in data.node_items())
    in_edges = any(time_attr in store for _, store in data.edge_items())
    if in_nodes and in_edges:
        raise ValueError(
            f"{_WHERE}: the time attribute {time_attr!r} holds both node-level and "
            "edge-level information"
        )
    if not in_nodes and not in_edges:
        raise ValueError(
            f"{_WHERE}: the time attribute {time_attr!r} is neither a node-level nor an "
            "edge-level attribute"
        )
    return "node" if in_nodes else "edge"


def _node_counts(data: Any) -> dict[str, int]:
    counts = {}
    for t, store in data.node_items():
        n = store.num_nodes
        if n is None:
            raise ValueError(
                f"{_WHERE}: num_nodes of node type {t!r} is unknown (give x, pos or num_nodes=; "
                "it is never guessed from edge_index.max() + 1)"
            )
        counts[t] = int(n)
    return counts


def _edge_index(data: Any, et: tuple[str, str, str]) -> Any:
    for end in (et[0], et[2]):
        if end not in data._nodes:
            raise ValueError(
                f"{_WHERE}: edge type {et!r} uses node type {end!r}, which the graph does not "
                f"have (node types: {data.node_types})"
            )
    ei = data._edges[et].get("edge_index")
    if ei is None:
        raise ValueError(f"{_WHERE}: edge type {et!r} has no edge_index")
    if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError(f"{_WHERE}: edge type {et!r}: edge_index must be an integer [2, E] array")
    if ei.dtype.kind not in "iu":
        raise TypeError(
            f"{_WHERE}: edge type {et!r}: edge_index must hold integers, got dtype {ei.dtype}"
        )
    return ei


def _num_edges(data: Any, et: tuple[str, str, str]) -> int:
    return int(data._edges[et]["edge_index"].shape[1])


def _fanouts(what: str, value: Any) -> list[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{_WHERE}: {what} must be a list of ints, got {value!r}")
    return [_check_int(_WHERE, f"{what}[{i}]", k, -1) for i, k in enumerate(value)]


def _num_neighbors(data: Any, num_neighbors: Any, edge_types: list) -> dict[Any, list[int]]:
    """``{edge_type: fan-outs}`` for every edge type, each with the same number of hops
    (a :class:`~arraygnn.sampler.NumNeighbors`: its ``get_values(edge_types)``)."""
    from arraygnn.sampler.num_neighbors import as_fanouts

    num_neighbors = as_fanouts(_WHERE, num_neighbors, edge_types)
    if not isinstance(num_neighbors, Mapping):
        fanouts = _fanouts("num_neighbors", num_neighbors)
        return {et: list(fanouts) for et in edge_types}
    out: dict[Any, list[int]] = {}
    for key, value in num_neighbors.items():
        try:
            et = data._to_canonical(key) if isinstance(key, (str, tuple)) else key
        except KeyError as err:
            raise ValueError(f"{_WHERE}: num_neighbors key {key!r}: {err.args[0]}") from None
        if et not in edge_types:
            raise ValueError(
                f"{_WHERE}: num_neighbors names {key!r}, which is not an edge type of the "
                f"graph (edge types: {edge_types})"
            )
        if et in out:
            raise ValueError(f"{_WHERE}: num_neighbors gives edge type {et!r} twice")
        out[et] = _fanouts(f"num_neighbors[{et!r}]", value)
    missing = [et for et in edge_types if et not in out]
    if missing:
        raise ValueError(
            f"{_WHERE}: num_neighbors has no fan-outs for edge type(s) {missing}: a dict must "
            "name every edge type"
        )
    hops = {len(v) for v in out.values()}
    if len(hops) > 1:
        counts = {et: len(v) for et, v in out.items()}
        raise ValueError(
            f"{_WHERE}: num_neighbors must give every edge type the same number of hops, "
            f"got {counts}"
        )
    return {et: out[et] for et in edge_types}


def _input_nodes(data: Any, input_nodes: Any, counts: dict[str, int], xp: Any) -> tuple[str, Any]:
    """``(input type, seed ids (int64))`` from PyG's hetero ``input_nodes`` forms."""
    if isinstance(input_nodes, str):
        node_type, ids = input_nodes, None
    elif isinstance(input_nodes, tuple) and len(input_nodes) == 2:
        node_type, ids = input_nodes
    elif input_nodes is None:
        raise ValueError(
            f"{_WHERE}: a HeteroData needs input_nodes=(node_type, ids) or a node type name "
            f"(node types: {list(counts)})"
        )
    else:
        raise TypeError(
            f"{_WHERE}: input_nodes must be (node_type, ids), (node_type, mask), "
            f"(node_type, None) or a node type name, got {type(input_nodes).__name__}"
        )
    if not isinstance(node_type, str) or node_type not in counts:
        raise ValueError(
            f"{_WHERE}: input node type {node_type!r} is not a node type of the graph "
            f"(node types: {list(counts)})"
        )
    n = counts[node_type]
    what = f"input_nodes of node type {node_type!r}"
    if ids is None:
        return node_type, xp.arange(n, dtype=np.int64)
    nodes = xp.asarray(ids)
    if nodes.size == 0 and nodes.dtype.kind == "f":  # [] reads as float64
        nodes = nodes.astype(np.int64)
    if nodes.dtype == bool:
        if nodes.ndim != 1 or int(nodes.shape[0]) != n:
            raise ValueError(
                f"{_WHERE}: a boolean mask for {what} must have {n} entries (its num_nodes), "
                f"got shape {tuple(nodes.shape)}"
            )
        return node_type, xp.flatnonzero(nodes).astype(np.int64)
    if nodes.dtype.kind not in "iu" or nodes.ndim != 1:
        raise TypeError(
            f"{_WHERE}: {what} must be 1-D node ids or a boolean mask, got {nodes.ndim}-D "
            f"{nodes.dtype}"
        )
    if nodes.shape[0]:
        lo, hi = int(nodes.min()), int(nodes.max())
        if lo < 0 or hi >= n:
            raise ValueError(
                f"{_WHERE}: {what} has node {lo if lo < 0 else hi}, outside [0, {n}) "
                f"(num_nodes of {node_type!r})"
            )
    return node_type, nodes.astype(np.int64)
