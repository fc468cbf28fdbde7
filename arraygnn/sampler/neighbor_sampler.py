"""``NeighborSampler``: arraygnn's neighbour sampling as a :class:`BaseSampler`.

The sampler behind :class:`~arraygnn.neighbor_loader.NeighborLoader` and
:class:`~arraygnn.link_neighbor_loader.LinkNeighborLoader` (their kernels, streams and
numbering), returning :class:`SamplerOutput` / :class:`HeteroSamplerOutput` for the generic
:class:`~arraygnn.node_loader.NodeLoader` / :class:`~arraygnn.link_loader.LinkLoader`:
``NodeLoader(data, NeighborSampler(data, k, seed=s), batch_size=b)`` yields the batches of
``NeighborLoader(data, k, batch_size=b, seed=s)`` (unshuffled input, index input nodes), and
``LinkLoader(data, NeighborSampler(data, k, seed=s), neg_sampling=...)`` those of
``LinkNeighborLoader(data, k, neg_sampling=..., seed=s)`` for the default label edges.

RULE: negatives are true negatives: pairs that are no edge of the graph (and ``u != v``),
      drawn uniformly (as ``LinkNeighborLoader``; PyG's sampler draws random nodes).
      ``src_weight`` / ``dst_weight`` are not provided.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.sampler.base import NodeSamplerInput
>>> ring = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
>>> sampler = NeighborSampler(Data(edge_index=ring, num_nodes=5), [1, 1])
>>> out = sampler.sample_from_nodes(NodeSamplerInput(None, np.array([0, 1]))[[0, 1]])
>>> out.node.tolist(), out.row.tolist(), out.col.tolist(), out.num_sampled_nodes
([0, 1, 4, 3], [2, 0, 3], [0, 1, 2], [2, 1, 1])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MethodType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.sampler.base import (
    BaseSampler,
    EdgeSamplerInput,
    HeteroSamplerOutput,
    NegativeSampling,
    NodeSamplerInput,
    SamplerOutput,
    _checked_ids,
    _named,
)
from arraygnn.sampler.num_neighbors import NumNeighbors

__all__ = ["NeighborSampler"]

_WHERE = "NeighborSampler"


class _Core(LinkNeighborLoader):
    """The homogeneous loaders' sampling with :class:`SamplerOutput` for batches."""

    def _assemble(self, n_id, e_id, row, col, num_sampled_nodes, num_sampled_edges):  # type: ignore[override]
        return SamplerOutput(n_id, row, col, e_id, None, num_sampled_nodes, num_sampled_edges)


class _Store:
    """An attribute bag standing in for a batch store while the hetero loaders' code
    writes a :class:`HeteroSamplerOutput`; a node store's ``batch`` is ``out.batch[t]``."""

    def __init__(self, out: HeteroSamplerOutput, node_type: str | None) -> None:
        object.__setattr__(self, "_at", (out, node_type))

    def __setattr__(self, name: str, value: Any) -> None:
        out, node_type = self._at
        if name == "batch" and node_type is not None:
            out.batch = {} if out.batch is None else out.batch
            out.batch[node_type] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:  # only for names not set on the bag
        out, node_type = object.__getattribute__(self, "_at")
        if name == "batch" and node_type is not None and out.batch:
            return out.batch[node_type]
        raise AttributeError(name)


class _HeteroOut(HeteroSamplerOutput):
    def _store(self, key: Any, node_type: str | None) -> _Store:
        stores = self.__dict__.setdefault("_stores", {})
        if key not in stores:
            stores[key] = _Store(self, node_type)
        return stores[key]

    def get_node_store(self, node_type: str) -> _Store:
        return self._store(("node", node_type), node_type)

    def get_edge_store(self, *edge_type: str) -> _Store:
        return self._store(edge_type, None)


class _HeteroCore(HeteroNeighborLoader):
    """The hetero loader's sampling with :class:`HeteroSamplerOutput` for batches."""

    _own_seed_time = False  # seed times come with each NodeSamplerInput

    def _assemble(self, n_ids, edges, num_sampled_nodes, num_sampled_edges):  # type: ignore[override]
        return _HeteroOut(
            dict(n_ids), {et: e[0] for et, e in edges.items()},
            {et: e[1] for et, e in edges.items()}, {et: e[2] for et, e in edges.items()},
            None, num_sampled_nodes, num_sampled_edges,
        )  # fmt: skip


def _seeds(xp: Any, what: str, value: Any, n: int, length: int | None = None) -> Any:
    """Seed ids as a fresh int64 array of ``xp`` (the caller's is never shared), checked in
    ``[0, n)`` before any sampling kernel."""
    ids = _checked_ids(xp, f"{_WHERE}: {what}", value, n, length, "link, as index.row")
    return ids.copy() if ids is value else ids


class NeighborSampler(BaseSampler):
    """PyG's ``NeighborSampler`` (``torch_geometric.sampler``) on arrays.

    Args:
        data: a :class:`~arraygnn.data.Data` or :class:`~arraygnn.hetero_data.HeteroData`.
        num_neighbors: in-edges per node and hop (``-1``: all); a dict per edge type for
            a ``HeteroData``, or a :class:`~arraygnn.sampler.NumNeighbors`, as
            :class:`~arraygnn.neighbor_loader.NeighborLoader`.
        subgraph_type: ``'directional'``, ``'bidirectional'`` or ``'induced'``, as
            :class:`~arraygnn.neighbor_loader.NeighborLoader` (the per-hop counts of the
            two last are ``None``, as PyG's).
        replace / disjoint / temporal_strategy / time_attr: as ``NeighborLoader``; a
            homogeneous node time is named in ``node_attrs``, an edge time in
            ``edge_attrs`` (said, never guessed); the other array attributes are ignored.
        weight_attr / is_sorted / share_memory / directed / sample_direction: PyG's, in its
            positions: ``weight_attr`` names the edge weights of PyG's weighted sampling
            (as :class:`~arraygnn.neighbor_loader.NeighborLoader`); ``sample_direction``
            must be ``'forward'``; ``directed=False`` means ``subgraph_type='induced'`` (with PyG's
            deprecation warning); the two hints are unused.
        seed: the sampling streams' seed (the loaders' ``seed``; keyword only).

    Both methods run for both graph kinds (a ``HeteroData``'s links: ``index.input_type``
    names their edge type; negatives avoid that type's edges, as
    :class:`~arraygnn.hetero_link_neighbor_loader.HeteroLinkNeighborLoader`).
    """

    def __init__(
        self,
        data: Any,
        num_neighbors: Sequence[int] | dict | NumNeighbors,
        subgraph_type: str = "directional",
        replace: bool = False,
        disjoint: bool = False,
        temporal_strategy: str = "uniform",
        time_attr: str | None = None,
        weight_attr: str | None = None,
        is_sorted: bool = False,
        share_memory: bool = False,
        directed: bool = True,
        sample_direction: str = "forward",
        *,
        seed: Any = None,
        node_attrs: Iterable[str] = (),
        edge_attrs: Iterable[str] = (),
    ) -> None:
        if sample_direction != "forward":
            raise ValueError(
                f"{_WHERE}: sample_direction={sample_direction!r} is not provided; only "
                "'forward' (PyG's default)"
            )
        if not directed:  # PyG's deprecated spelling of subgraph_type='induced'
            import warnings

            warnings.warn(
                f"The usage of the 'directed' argument in '{_WHERE}' is deprecated. Use "
                "`subgraph_type='induced'` instead.",
                stacklevel=2,
            )
            subgraph_type = "induced"
        self.is_sorted, self.share_memory = is_sorted, share_memory  # hints, unused
        with _named(_WHERE):
            self._setup(
                data, num_neighbors, subgraph_type, replace, disjoint, temporal_strategy,
                time_attr, seed, node_attrs, edge_attrs, weight_attr,
            )  # fmt: skip

    def _setup(
        self, data: Any, num_neighbors: Any, subgraph_type: Any, replace: bool, disjoint: bool,
        temporal_strategy: str, time_attr: str | None, seed: Any, node_attrs: Iterable[str],
        edge_attrs: Iterable[str], weight_attr: str | None = None,
    ) -> None:  # fmt: skip
        from arraygnn.hetero_data import HeteroData

        common = dict(
            replace=replace, subgraph_type=subgraph_type, seed=seed, disjoint=disjoint,
            temporal_strategy=temporal_strategy, time_attr=time_attr, weight_attr=weight_attr,
        )  # fmt: skip
        self.is_hetero = isinstance(data, HeteroData)
        if self.is_hetero:
            excluded = {k for _, s in data.node_items() + data.edge_items() for k in s}
            excluded |= set(data._global)
            excluded -= {"num_nodes", "edge_index", time_attr}
            self._core: Any = _HeteroCore(
                data, num_neighbors, data.node_types[0], node_attrs=[], edge_attrs=[],
                exclude_keys=excluded, **common,
            )  # fmt: skip
            # link sampling: one hetero link core per (edge type, mode), made when first
            # asked for, with the arguments it needs (the same seed: the loader's streams)
            self._link_args = dict(
                data=data, num_neighbors=num_neighbors, node_attrs=[], edge_attrs=[],
                exclude_keys=excluded, **common,
            )  # fmt: skip
            self._link_cores: dict[Any, Any] = {}
            return
        node_attrs, edge_attrs = list(node_attrs), list(edge_attrs)
        keys = list(data.keys()) if hasattr(data, "keys") else []
        excluded = {k for k in keys if is_array(data[k])} - set(node_attrs) - set(edge_attrs)
        excluded -= {"edge_index"}
        label_time = None
        if time_attr is not None:  # the link core wants label times with time_attr:
            # the default label edges' (never read: every call brings its own)
            xp = get_namespace(data.edge_index)  # on the graph's device (CuPy too)
            label_time = xp.zeros(int(data.edge_index.shape[1]), dtype=np.int64)
        self._core = _Core(
            data, num_neighbors, node_attrs=node_attrs, edge_attrs=edge_attrs,
            exclude_keys=excluded, edge_label_time=label_time, **common,
        )  # fmt: skip
        self._core.edge_label_time = None
        self._graph_edges = self._core.edge_label_index
        self._prepared: set[str] = set()

    def sample_from_nodes(
        self, index: NodeSamplerInput, **kwargs: Any
    ) -> SamplerOutput | HeteroSamplerOutput:
        with _named(_WHERE):
            return self._from_nodes(index)

    def _from_nodes(self, index: NodeSamplerInput) -> SamplerOutput | HeteroSamplerOutput:
        core = self._core
        xp = core.graph._xp()
        if self.is_hetero:
            if index.input_type not in core.num_nodes_dict:
                raise ValueError(
                    f"{_WHERE}: input_type {index.input_type!r} is not a node type of the "
                    f"graph (node types: {core.node_types})"
                )
            n = core.num_nodes_dict[index.input_type]
            seeds = _seeds(xp, f"index.node (node type {index.input_type!r})", index.node, n)
            core.input_type = index.input_type
            if index.time is None and core._node_time and index.input_type not in core._node_time:
                raise ValueError(
                    f"{_WHERE}: the input node type {index.input_type!r} has no time; pass "
                    "input_time="
                )
        else:
            seeds = _seeds(xp, "index.node", index.node, core.num_nodes)
        out = core._subgraph(seeds, core._seed_times(seeds, index.time))
        out.metadata = (index.input_id, index.time)
        return out

    def sample_from_edges(
        self, index: EdgeSamplerInput, neg_sampling: NegativeSampling | None = None
    ) -> SamplerOutput | HeteroSamplerOutput:
        with _named(_WHERE):
            return self._from_edges(index, neg_sampling)

    def _from_edges(
        self, index: EdgeSamplerInput, neg_sampling: NegativeSampling | None
    ) -> SamplerOutput | HeteroSamplerOutput:
        neg = NegativeSampling.cast(neg_sampling)
        if neg is not None and (neg.src_weight is not None or neg.dst_weight is not None):
            raise ValueError(f"{_WHERE}: weighted negative sampling is not provided")
        mode = None if neg is None else (neg.mode.value, float(neg.amount))
        if self.is_hetero:
            return self._hetero_edges(index, mode)
        core = self._core
        xp = core.graph._xp()
        if mode is not None and mode[0] not in self._prepared:
            core.edge_label_index, core.neg_sampling = self._graph_edges, mode
            core._prepare_negatives(xp)  # the pairs no negative may be: the graph's edges
            self._prepared.add(mode[0])
        row = _seeds(xp, "index.row", index.row, core.num_nodes)
        col = _seeds(xp, "index.col", index.col, core.num_nodes, len(row))
        core.neg_sampling = mode
        core.edge_label_index = xp.stack([row, col])
        core.edge_label, core.edge_label_time = index.label, index.time
        count = int(core.edge_label_index.shape[1])
        out = core._batch(xp.arange(count, dtype=np.int64))
        get = out.__dict__.get
        if mode is not None and mode[0] == "triplet":
            seed_time = get("seed_time")
            out.metadata = (
                index.input_id, out.src_index, out.dst_pos_index, out.dst_neg_index, seed_time,
            )  # fmt: skip
        else:
            out.metadata = (
                index.input_id, out.edge_label_index, get("edge_label"), get("edge_label_time"),
            )  # fmt: skip
        return out

    def _hetero_edges(self, index: EdgeSamplerInput, mode: Any) -> HeteroSamplerOutput:
        """``HeteroLinkNeighborLoader``'s batch around the links of ``index.input_type``."""
        from arraygnn.hetero_link_neighbor_loader import HeteroLinkNeighborLoader

        data = self._link_args["data"]
        try:
            et = data._to_canonical(*index.input_type)
        except (KeyError, TypeError):
            et = None
        if et not in data.edge_types:
            raise ValueError(
                f"{_WHERE}: input_type {index.input_type!r} is not an edge type of the graph "
                f"(edge types: {data.edge_types})"
            )
        key = (et, None if mode is None else mode[0])
        core = self._link_cores.get(key)
        if core is None:
            args = dict(self._link_args)
            if args["time_attr"] is not None:  # as the homogeneous core (never read)
                edges = data[et].edge_index  # on the graph's device (CuPy too)
                args["edge_label_time"] = get_namespace(edges).zeros(
                    int(edges.shape[1]), dtype=np.int64
                )
            core = HeteroLinkNeighborLoader(edge_label_index=(et, None), neg_sampling=mode, **args)
            core._sampler._assemble = MethodType(_HeteroCore._assemble, core._sampler)
            self._link_cores[key] = core
        xp = core.graph._xp()
        counts = core.num_nodes_dict
        row = _seeds(xp, f"index.row (node type {et[0]!r})", index.row, counts[et[0]])
        col = _seeds(xp, f"index.col (node type {et[2]!r})", index.col, counts[et[2]], len(row))
        core.neg_sampling = mode
        core.edge_label_index = xp.stack([row, col])
        core.edge_label, core.edge_label_time = index.label, index.time
        out = core._batch(xp.arange(int(core.edge_label_index.shape[1]), dtype=np.int64))
        store = out.get_edge_store(*et)
        if mode is not None and mode[0] == "triplet":
            src, dst = out.get_node_store(et[0]), out.get_node_store(et[2])
            out.metadata = (
                index.input_id, src.src_index, dst.dst_pos_index, dst.dst_neg_index,
                src.__dict__.get("seed_time"),
            )  # fmt: skip
        else:
            get = store.__dict__.get
            out.metadata = (
                index.input_id, store.edge_label_index, get("edge_label"), get("edge_label_time"),
            )  # fmt: skip
        return out
