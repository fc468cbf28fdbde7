"""DGL's Cluster-GCN sampler (``dgl.dataloading.ClusterGCNSampler``): the graph is cut
into ``k`` parts once; ``sample(g, partition_ids)`` returns the subgraph induced by the
union of the given parts' nodes.

The parts come from METIS (the optional ``pymetis`` package, ``pip install
'arraygnn[metis]'``), run as DGL's ``metis_partition_assignment`` on the graph made
symmetric, k-way or recursive (``mode``), balancing node counts, or in-degrees with
``balance_edges=True``. Not DGL's exact partition: DGL's symmetric graph keeps self-loops
and repeated edges and goes to its own METIS build with its options (one refinement
iteration, one initial partition, edge dropping); ours gives METIS each node pair once,
without self-loops, with METIS' default options. Or the parts come from
``partition=`` (ours: a [N] array of part ids, no METIS). ``balance_ntypes`` with more than
one type (a weight per type: METIS' multi-constraint mode) raises ``NotImplementedError``:
pymetis reads one vertex weight per node. The nodes are then grouped by part
(``partition_node_ids``, bounded by ``partition_offset``), and stored in ``cache_path``.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1, 2, 3]), np.array([1, 0, 3, 2])), num_nodes=4)
>>> sampler = ClusterGCNSampler(g, 2, cache_path=None, partition=np.array([1, 0, 1, 0]))
>>> sampler.partition_offset.tolist(), sampler.partition_node_ids.tolist()
([0, 2, 4], [1, 3, 0, 2])
>>> sg = sampler.sample(g, np.array([1]))
>>> sg.ndata["_ID"].tolist(), sg.num_edges()
([0, 2], 0)

RULE: homogeneous CPU graphs, as DGL; a part keeps its nodes in id order (a stable sort:
      DGL's ``np.argsort`` leaves that order unspecified).
RULE: the subgraph is :func:`arraygnn.graph.node_subgraph` of the parts' nodes, in the
      given part order: every edge of ``g`` between them, grouped by (new) source, each
      source's in edge-id order (DGL's node subgraph), the features, ``ndata[NID]`` and
      ``edata[EID]``.
RULE: the cache holds ``(partition_offset, partition_node_ids)`` as a NumPy ``.npz``
      archive (DGL pickles torch tensors); it is read instead of partitioning when it
      exists and must fit ``k`` and the graph (``ValueError`` otherwise, DGL's checks;
      ours also: offsets from 0 to N, every node once). ``cache_path=None`` (ours) keeps
      nothing on disk.
"""

from __future__ import annotations

import os
import zipfile
from typing import Any

import numpy as np

from arraygnn.cluster_data import (
    _check_part_ids,
    _check_partition,
    _is_offsets,
    _is_permutation,
    metis_partition,
)
from arraygnn.graph.core import Graph, check_graph
from arraygnn.graph.subgraph import node_subgraph
from arraygnn.shadow_sampler import _check_feature_names, _check_output_device

__all__ = ["ClusterGCNSampler"]

_MODES = ("k-way", "recursive")


def _homogeneous(g: Any, where: str) -> None:
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: give the original graph, not a block")
    if len(g.ntypes) != 1 or len(g.canonical_etypes) != 1:
        raise ValueError(
            f"{where}: the graph must be homogeneous (one node and one edge type), got "
            f"{g.ntypes} and {g.canonical_etypes}"
        )
    if g.device != "cpu":
        raise ValueError(f"{where}: the graph must be on the CPU (METIS), got {g.device}")


def _metis_assignment(
    g: Graph, k: int, balance_ntypes: Any, balance_edges: bool, mode: str, where: str
) -> np.ndarray:
    """DGL's ``metis_partition_assignment`` (see the module docstring)."""
    n = g.num_nodes()
    src, dst = (np.asarray(a, dtype=np.int64) for a in g.edges())
    keep = src != dst
    pairs = np.unique(np.concatenate([src[keep] * n + dst[keep], dst[keep] * n + src[keep]]))
    row, col = pairs // max(n, 1), pairs % max(n, 1)  # sorted by (row, col)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n), out=indptr[1:])
    weights = []
    in_deg = np.bincount(dst, minlength=n).astype(np.int64)
    if balance_ntypes is not None:
        types = np.asarray(balance_ntypes)
        if types.shape != (n,):
            raise ValueError(
                f"{where}: balance_ntypes must have one entry per node ({n}), got shape "
                f"{types.shape}"
            )
        kinds = np.unique(types)
        weights += [(types == t).astype(np.int64) for t in kinds]
        if balance_edges:
            weights += [np.where(types == t, in_deg, 0) for t in kinds]
    elif balance_edges:
        weights.append(in_deg)
    if len(weights) > 1:
        raise NotImplementedError(
            f"{where}: balancing {len(weights)} vertex weights at once (balance_ntypes with "
            "several types, or with balance_edges) needs METIS' multi-constraint mode, which "
            "pymetis does not pass on (it reads one weight per node); balance_edges=True "
            "alone balances in-degrees"
        )
    vweights = weights[0] if weights else None
    return metis_partition(indptr, col, k, mode == "recursive", vweights, where=where)


class ClusterGCNSampler:
    """DGL's ``ClusterGCNSampler(g, k, cache_path='cluster_gcn.pkl', balance_ntypes=None,
    balance_edges=False, mode='k-way', prefetch_ndata=None, prefetch_edata=None,
    output_device=None)``.

    Args:
        g: the graph (homogeneous, NumPy arrays).
        k: the number of parts (>= 1).
        cache_path: the cache file (read when it exists, else written; ``None``: none).
        balance_ntypes / balance_edges / mode: METIS' balance and algorithm (see above).
        prefetch_ndata, prefetch_edata: accepted for DGL's signature; the subgraph always
            carries every feature (the names must exist).
        output_device: ``None`` or the graph's own device.
        partition: ours: a [N] integer array of part ids in ``[0, k)`` instead of METIS.

    ``sample_blocks`` is the same method, so :class:`~arraygnn.sampling.NodeDataLoader`
    over ``np.arange(k)`` yields one subgraph of ``batch_size`` parts per batch (DGL's
    ``DataLoader(g, torch.arange(k), sampler, batch_size=...)``; ``k`` at most ``N``).
    """

    def __init__(
        self,
        g: Graph,
        k: int,
        cache_path: str | None = "cluster_gcn.pkl",
        balance_ntypes: Any = None,
        balance_edges: bool = False,
        mode: str = "k-way",
        prefetch_ndata: Any = None,
        prefetch_edata: Any = None,
        output_device: Any = None,
        *,
        partition: np.ndarray | None = None,
    ) -> None:
        from arraygnn.neighbor_loader import _check_int

        where = "ClusterGCNSampler"
        _homogeneous(g, where)
        k = _check_int(where, "k", k, 1)
        if mode not in _MODES:
            raise ValueError(f"{where}: mode must be 'k-way' or 'recursive', got {mode!r}")
        _check_output_device(g, output_device, where)
        _check_feature_names(g, prefetch_ndata, "prefetch_ndata", False, where)
        _check_feature_names(g, prefetch_edata, "prefetch_edata", True, where)
        n = g.num_nodes()
        if partition is not None:
            partition = _check_partition(where, partition, n, k)
        if cache_path is not None and os.path.exists(cache_path):
            try:
                with np.load(cache_path, allow_pickle=False) as f:
                    offset, node_ids = f["partition_offset"], f["partition_node_ids"]
                if offset.ndim != 1 or node_ids.ndim != 1:
                    raise ValueError("not 1-D")
            except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as err:
                raise ValueError(
                    f"{where}: the contents in the cache file {cache_path} are invalid. Please "
                    f"remove the cache file {cache_path} or specify another path."
                ) from err
            if len(offset) != k + 1:
                raise ValueError(
                    f"{where}: the number of partitions in the cache does not match k={k}. "
                    f"Please remove the cache file {cache_path} or specify another path."
                )
            if len(node_ids) != n:
                raise ValueError(
                    f"{where}: the number of nodes in the cache does not match the graph "
                    f"({n}). Please remove the cache file {cache_path} or specify another path."
                )
            # ours: DGL indexes with whatever it unpickled; a part's bounds and the nodes
            # are checked here, before they slice and relabel
            if (
                offset.dtype.kind not in "iu"
                or node_ids.dtype.kind not in "iu"
                or not _is_offsets(offset, n)
                or not _is_permutation(node_ids, n)
            ):
                raise ValueError(
                    f"{where}: the contents in the cache file {cache_path} are invalid (part "
                    "offsets from 0 to the number of nodes, and every node once). Please "
                    f"remove the cache file {cache_path} or specify another path."
                )
            offset = offset.astype(np.int64, copy=False)
            node_ids = node_ids.astype(np.int64, copy=False)
        else:
            if partition is None:
                partition = _metis_assignment(g, k, balance_ntypes, balance_edges, mode, where)
            node_ids = np.argsort(partition, kind="stable").astype(np.int64)
            offset = np.zeros(k + 1, dtype=np.int64)
            np.cumsum(np.bincount(partition, minlength=k), out=offset[1:])
            if cache_path is not None:
                with open(cache_path, "wb") as f:
                    np.savez(f, partition_offset=offset, partition_node_ids=node_ids)
        self.k = k
        self.partition_offset = offset
        self.partition_node_ids = node_ids
        self.prefetch_ndata = prefetch_ndata or []
        self.prefetch_edata = prefetch_edata or []
        self.output_device = output_device

    def sample(self, g: Graph, partition_ids: Any) -> Graph:
        """The subgraph induced by the nodes of ``partition_ids`` (part after part)."""
        from arraygnn.dataset import _ranges

        where = "ClusterGCNSampler"
        _homogeneous(g, where)
        if g.num_nodes() != self.partition_node_ids.shape[0]:
            raise ValueError(
                f"{where}: the graph has {g.num_nodes()} nodes, the partition "
                f"{self.partition_node_ids.shape[0]}"
            )
        parts, _ = _check_part_ids(where, "partition_ids", partition_ids, self.k)
        start = self.partition_offset[parts]
        pos = _ranges(start, self.partition_offset[parts + 1] - start)
        g.csr(g.canonical_etypes[0])  # node_subgraph reads the kept nodes' in-edges
        return node_subgraph(g, self.partition_node_ids[pos].astype(g.idtype))

    sample_blocks = sample

    def __repr__(self) -> str:
        return f"ClusterGCNSampler(k={self.k})"
