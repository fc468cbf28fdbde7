"""``ClusterData``: PyG's Cluster-GCN partition of one graph ("Cluster-GCN: An Efficient
Algorithm for Training Deep and Large Graph Convolutional Networks").

The nodes are cut into ``num_parts`` parts by METIS (the optional ``pymetis`` package:
``pip install 'arraygnn[metis]'``) or by a given ``partition=`` (a [N] array of part ids,
ours: no METIS needed). From there on, exactly PyG's steps:

- the nodes are renumbered part by part (``node_perm``: a stable sort of the part ids, so
  a part keeps its nodes in id order), ``partptr`` [num_parts + 1] bounding each part;
- the relabelled edges are sorted by (source, target) (``sparse_format='csr'``) or by
  (target, source) (``'csc'``), ties in edge order (``edge_perm``), held as ``indptr`` /
  ``index``;
- ``data`` (the attribute :attr:`ClusterData.data`) is the input with its node arrays
  permuted by ``node_perm``, its edge arrays by ``edge_perm``, and no ``edge_index``.

``cluster_data[i]`` is part ``i``: its nodes, and its edges (both ends in the part,
relabelled), or with ``keep_inter_cluster_edges=True`` every edge leaving its rows, the
other end left as a global (permuted) id, as PyG. :class:`~arraygnn.cluster_loader.ClusterLoader`
batches several parts.

RULE: every node is in exactly one part; parts may be empty.
RULE: a ``Data``'s node / edge / graph arrays are named by ``node_attrs`` / ``edge_attrs``
      / ``graph_attrs`` (defaults ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` /
      none; :mod:`arraygnn.transforms.attrs`), never guessed from lengths as PyG does.
RULE: CPU (NumPy) graphs, as METIS; ``edge_index`` keeps its dtype (int32 stays int32;
      one too narrow for ``N - 1`` widens to int64).
RULE: METIS expects an undirected graph (both directions of every edge), as PyG notes;
      it runs on the CSR PyG hands it (the ``sparse_format`` order), k-way unless
      ``recursive=True``.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> data = Data(x=np.arange(4.0)[:, None], edge_index=np.array([[0, 1, 2, 3], [1, 0, 3, 2]]))
>>> cd = ClusterData(data, num_parts=2, partition=np.array([1, 0, 1, 0]), log=False)
>>> cd.partition.partptr.tolist(), cd.partition.node_perm.tolist()
([0, 2, 4], [1, 3, 0, 2])
>>> cd[0].x[:, 0].tolist(), cd[0].edge_index.tolist()
([1.0, 3.0], [[], []])
"""

from __future__ import annotations

import os
import os.path as osp
import sys
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ClusterData", "Partition", "metis_partition"]

_FORMATS = ("csr", "csc")


@dataclass(frozen=True)
class Partition:
    """PyG's ``Partition`` record, NumPy arrays: the permuted graph's CSR (``indptr``
    [N + 1], ``index`` [E], by source for ``'csr'``, by target for ``'csc'``), the part
    bounds ``partptr`` [num_parts + 1], and ``node_perm`` [N] / ``edge_perm`` [E] (new
    position -> old id)."""

    indptr: np.ndarray
    index: np.ndarray
    partptr: np.ndarray
    node_perm: np.ndarray
    edge_perm: np.ndarray
    sparse_format: str


def _lex_csr(
    major: np.ndarray, minor: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, minor sorted, perm)``: edges sorted by (major, minor), ties in edge order
    (PyG's ``sort_edge_index`` order): two fused O(E) stable counting sorts
    (:mod:`arraygnn.kernels.cpu.lex_csr`); ``minor``'s dtype kept, ``indptr`` / ``perm``
    int64."""
    from arraygnn.kernels.cpu.lex_csr import lex_csr

    num = int(major.shape[0])
    indptr = np.zeros(n + 1, dtype=np.int64)
    index = np.empty(num, dtype=minor.dtype)
    perm = np.empty(num, dtype=np.int64)
    if num:
        lex_csr(np.ascontiguousarray(major), np.ascontiguousarray(minor), indptr, index, perm)
    return indptr, index, perm


def metis_partition(
    indptr: np.ndarray,
    index: np.ndarray,
    num_parts: int,
    recursive: bool = False,
    vweights: np.ndarray | None = None,
    *,
    where: str = "metis_partition",
) -> np.ndarray:
    """METIS part ids (int64 [N]) of the graph with CSR ``indptr`` [N + 1] / ``index``,
    by ``pymetis`` (k-way, or recursive bisection with ``recursive=True``); ``vweights``:
    optional non-negative integer vertex weights [N] (one balance constraint: pymetis
    passes no more). One part (or no node) needs no METIS: all zeros. ``ImportError``
    naming the ``metis`` extra without ``pymetis``.

    RULE: the CSR (NumPy integer arrays) and ``vweights`` are checked first: METIS reads
          them unchecked in C (an id out of range is a segfault, a short ``vweights`` is
          read past its end).
    RULE: the graph must be undirected (every stored edge ``(i, j)`` has its reverse
          ``(j, i)``, as often): METIS assumes it, and pymetis crashed the process on a
          directed one; a ``ValueError`` names an edge without its reverse."""
    from arraygnn.neighbor_loader import _check_int

    num_parts = _check_int(where, "num_parts", num_parts, 1)
    n = _check_csr(where, indptr, index)
    if vweights is not None:
        _check_np_int(where, "vweights", vweights)
        if vweights.shape != (n,):
            raise ValueError(f"{where}: vweights must have shape ({n},), got {vweights.shape}")
        if n and int(vweights.min()) < 0:
            raise ValueError(f"{where}: vweights has a negative entry ({int(vweights.min())})")
    try:
        import pymetis
    except ImportError as err:
        raise ImportError(
            f"{where}: METIS partitioning needs the optional 'pymetis' package: "
            "pip install 'arraygnn[metis]' (or pass partition=, a [N] array of part ids)"
        ) from err
    if n == 0 or num_parts == 1:
        return np.zeros(n, dtype=np.int64)
    _check_symmetric(where, indptr, index, n)
    xadj = np.ascontiguousarray(indptr, dtype=np.int64)
    adjncy = np.ascontiguousarray(index, dtype=np.int64)
    kwargs: dict[str, Any] = {"recursive": bool(recursive)}  # pymetis' None: recursive <= 8
    if vweights is not None:
        kwargs["vweights"] = np.ascontiguousarray(vweights, dtype=np.int64)
    if hasattr(pymetis, "CSRAdjacency"):  # pymetis >= 2025.2
        result = pymetis.part_graph(num_parts, pymetis.CSRAdjacency(xadj, adjncy), **kwargs)
    else:  # pragma: no cover - older pymetis
        result = pymetis.part_graph(num_parts, xadj=xadj, adjncy=adjncy, **kwargs)
    part = np.asarray(result[1], dtype=np.int64).reshape(n)
    if int(part.min()) < 0 or int(part.max()) >= num_parts:  # they go to a Numba sort next
        raise RuntimeError(
            f"{where}: METIS returned part ids outside [0, {num_parts}) "
            f"({int(part.min())}..{int(part.max())})"
        )
    return part


def _check_symmetric(where: str, indptr: np.ndarray, index: np.ndarray, n: int) -> None:
    """Every stored edge ``(i, j)`` also stored as ``(j, i)``, as often (one sort of the
    pair codes each way; METIS needs it and does not check)."""
    rows = np.repeat(np.arange(n, dtype=np.int64), (indptr[1:] - indptr[:-1]).astype(np.int64))
    cols = index.astype(np.int64, copy=False)
    forward = np.sort(rows * n + cols)
    backward = np.sort(cols * n + rows)
    if not np.array_equal(forward, backward):
        k = int(np.flatnonzero(forward != backward)[0])
        code = int(forward[k]) if k < forward.shape[0] else int(backward[k])
        raise ValueError(
            f"{where}: METIS needs an undirected graph, but edge ({code // n}, {code % n}) is "
            "not matched by its reverse as often; make the graph undirected first "
            "(arraygnn.transforms.ToUndirected / arraygnn.utils.to_undirected) or pass "
            "partition="
        )


def _check_np_int(where: str, name: str, value: Any) -> None:
    """A NumPy integer array (METIS runs on the CPU)."""
    from arraygnn.utils._checks import check_int_array

    if not isinstance(value, np.ndarray):
        raise TypeError(
            f"{where}: {name} must be a NumPy integer array, got {type(value).__name__}"
        )
    check_int_array(where, name, value)


def _check_csr(where: str, indptr: Any, index: Any) -> int:
    """The number of rows of a valid CSR (``indptr`` from 0, non-decreasing, ending at
    ``len(index)``; ``index`` in ``[0, N)``)."""
    from arraygnn.utils._checks import check_ids

    _check_np_int(where, "indptr", indptr)
    _check_np_int(where, "index", index)
    if indptr.ndim != 1 or indptr.shape[0] == 0:
        raise ValueError(f"{where}: indptr must have shape [N + 1], got {indptr.shape}")
    if index.ndim != 1:
        raise ValueError(f"{where}: index must be 1-D, got shape {index.shape}")
    if int(indptr[0]) != 0:
        raise ValueError(f"{where}: indptr must start at 0, got {int(indptr[0])}")
    if bool((indptr[1:] < indptr[:-1]).any()):  # not np.diff: unsigned wraps
        raise ValueError(f"{where}: indptr must be non-decreasing")
    if int(indptr[-1]) != index.shape[0]:
        raise ValueError(
            f"{where}: indptr must end at len(index) = {index.shape[0]}, got {int(indptr[-1])}"
        )
    n = int(indptr.shape[0]) - 1
    check_ids(where, "index", index, n)
    return n


def _check_part_ids(where: str, name: str, ids: Any, num: int) -> tuple[np.ndarray, np.ndarray]:
    """A batch's part ids (int64) and the mask of the parts in it: integers in
    ``[0, num)``, each part at most once."""
    parts = np.asarray(ids).reshape(-1)
    if parts.dtype.kind not in "iu":
        raise TypeError(f"{where}: {name} must be integers, got dtype {parts.dtype}")
    parts = parts.astype(np.int64, copy=False)
    if parts.size and (int(parts.min()) < 0 or int(parts.max()) >= num):
        raise ValueError(f"{where}: {name} must be in [0, {num}), got {parts.tolist()}")
    seen = np.zeros(num, dtype=bool)
    seen[parts] = True
    if int(seen.sum()) != parts.shape[0]:
        raise ValueError(f"{where}: {name} holds a part twice: {parts.tolist()}")
    return parts, seen


def _is_permutation(perm: np.ndarray, size: int) -> bool:
    """``perm`` (an integer array of ``size`` entries) holds every id of ``[0, size)``."""
    if perm.shape != (size,):
        return False
    if size == 0:
        return True
    if int(perm.min()) < 0 or int(perm.max()) >= size:
        return False
    return bool((np.bincount(perm, minlength=size) == 1).all())


def _is_offsets(ptr: np.ndarray, total: int) -> bool:
    """``ptr`` runs from 0 to ``total``, non-decreasing."""
    return (
        ptr.ndim == 1
        and ptr.shape[0] >= 1
        and int(ptr[0]) == 0
        and int(ptr[-1]) == total
        and not bool((ptr[1:] < ptr[:-1]).any())
    )


def _check_partition(where: str, partition: Any, n: int, num_parts: int) -> np.ndarray:
    _check_np_int(where, "partition", partition)
    if partition.shape != (n,):
        raise ValueError(
            f"{where}: partition must have shape [num_nodes] = ({n},), got {partition.shape}"
        )
    if partition.size and int(partition.min()) < 0:
        raise ValueError(f"{where}: partition has a negative part id ({int(partition.min())})")
    if partition.size and int(partition.max()) >= num_parts:
        raise ValueError(
            f"{where}: partition has part id {int(partition.max())}, out of range for "
            f"num_parts={num_parts}"
        )
    return partition.astype(np.int64, copy=False)


class ClusterData:
    """PyG's ``ClusterData(data, num_parts, recursive=False, save_dir=None, filename=None,
    log=True, keep_inter_cluster_edges=False, sparse_format='csr')``.

    Args:
        data: a ``Data`` with ``edge_index`` (NumPy) and a known ``num_nodes``.
        num_parts: the number of parts (>= 1).
        recursive: METIS' recursive bisection instead of k-way.
        save_dir: if set, the partition is stored in (and, when there, read back from)
            ``save_dir/part_{num_parts}[_recursive]/{filename or 'metis.npz'}`` (an
            ``.npz``; PyG's ``metis.pt`` is a torch file). A stored file is checked, in
            O(N + E), to be a partition of this very graph (its edges in this order):
            ``ValueError`` otherwise (PyG reads it unchecked).
        filename: the stored file's name.
        log: print ``Computing METIS partitioning...`` / ``Done!`` to stderr.
        keep_inter_cluster_edges: ``self[i]`` keeps edges leaving part ``i`` (not batches).
        sparse_format: ``'csr'`` (edges grouped by source) or ``'csc'`` (by target).
        partition: ours: a [N] integer array of part ids in ``[0, num_parts)`` used
            instead of METIS.
        node_attrs / edge_attrs / graph_attrs: the arrays by level (see above).

    Attributes: ``partition`` (:class:`Partition`), ``data`` (the permuted attributes),
    ``num_parts``, ``recursive``, ``keep_inter_cluster_edges``, ``sparse_format``.
    """

    def __init__(
        self,
        data: Any,
        num_parts: int,
        recursive: bool = False,
        save_dir: str | None = None,
        filename: str | None = None,
        log: bool = True,
        keep_inter_cluster_edges: bool = False,
        sparse_format: str = "csr",
        *,
        partition: np.ndarray | None = None,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        from arraygnn.interop._handoff import is_data_like
        from arraygnn.neighbor_loader import _check_int
        from arraygnn.transforms.attrs import attribute_levels
        from arraygnn.utils._checks import check_ids, edge_index_arg

        where = "ClusterData"
        if not is_data_like(data):
            raise TypeError(f"{where}: data must be a Data, got {type(data).__name__}")
        self.num_parts = _check_int(where, "num_parts", num_parts, 1)
        if sparse_format not in _FORMATS:
            raise ValueError(
                f"{where}: sparse_format must be 'csr' or 'csc', got {sparse_format!r}"
            )
        ei = data._store.get("edge_index")
        if ei is None:
            raise ValueError(f"{where}: data has no edge_index")
        if not isinstance(ei, np.ndarray):
            raise TypeError(f"{where}: Cluster-GCN partitions on the CPU; give NumPy arrays")
        edge_index_arg(where, ei)
        if data.num_nodes is None:
            raise ValueError(
                f"{where}: num_nodes is unknown (give x, pos or num_nodes=; it is never guessed "
                "from edge_index.max() + 1)"
            )
        n = int(data.num_nodes)
        check_ids(where, "edge_index", ei, n)
        if not ei.dtype.isnative:  # the Numba kernel takes native byte order only
            ei = ei.astype(ei.dtype.newbyteorder("="))
        self.levels = attribute_levels(where, data, node_attrs, edge_attrs, graph_attrs)
        if partition is not None:
            partition = _check_partition(where, partition, n, self.num_parts)
        self.recursive = bool(recursive)
        self.keep_inter_cluster_edges = bool(keep_inter_cluster_edges)
        self.sparse_format = sparse_format
        self.num_nodes = n

        root_dir = osp.join(
            save_dir or "", f"part_{self.num_parts}{'_recursive' if self.recursive else ''}"
        )
        path = osp.join(root_dir, filename or "metis.npz")
        if save_dir is not None and osp.exists(path):
            self.partition = self._load(path, ei)
        else:
            log = bool(log) and partition is None  # PyG's messages: METIS runs
            if log:
                print("Computing METIS partitioning...", file=sys.stderr)
            cluster = self._metis(ei, n) if partition is None else partition
            self.partition = self._partition(ei, cluster)
            if save_dir is not None:
                os.makedirs(root_dir, exist_ok=True)
                self._save(path)
            if log:
                print("Done!", file=sys.stderr)
        self.data = self._permute_data(data)

    # ------------------------------------------------------------------ partitioning
    def _csr(self, ei: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        major, minor = (ei[0], ei[1]) if self.sparse_format == "csr" else (ei[1], ei[0])
        return _lex_csr(major, minor, n)

    def _metis(self, ei: np.ndarray, n: int) -> np.ndarray:
        """PyG's ``_metis``: METIS on the graph's CSR (or CSC) with sorted neighbours."""
        indptr, index, _ = self._csr(ei, n)
        return metis_partition(indptr, index, self.num_parts, self.recursive, where="ClusterData")

    def _partition(self, ei: np.ndarray, cluster: np.ndarray) -> Partition:
        """PyG's ``_partition``: node order by part (stable), edges relabelled and sorted."""
        from arraygnn._ids import ids_dtype_holding
        from arraygnn.ops.csr import sorted_segments

        n = int(cluster.shape[0])
        partptr, node_perm = sorted_segments(np, cluster, self.num_parts)
        node_perm = node_perm.astype(np.int64, copy=False)
        idt = ids_dtype_holding(ei.dtype, max(n - 1, 0))  # widen (uint8, 300 nodes), never wrap
        new_id = np.empty(n, dtype=idt)
        new_id[node_perm] = np.arange(n, dtype=idt)
        relabelled = new_id[ei]
        indptr, index, edge_perm = self._csr(relabelled, n)
        return Partition(
            indptr, index, partptr.astype(np.int64), node_perm, edge_perm, self.sparse_format
        )

    def _save(self, path: str) -> None:
        p = self.partition
        with open(path, "wb") as f:
            np.savez(
                f,
                indptr=p.indptr,
                index=p.index,
                partptr=p.partptr,
                node_perm=p.node_perm,
                edge_perm=p.edge_perm,
                sparse_format=np.array(p.sparse_format),
            )

    def _load(self, path: str, ei: np.ndarray) -> Partition:
        """The stored partition, checked to be this graph's (see :meth:`_fits`)."""
        from arraygnn._ids import ids_dtype_holding

        n, e = self.num_nodes, int(ei.shape[1])
        try:
            with np.load(path, allow_pickle=False) as f:
                fields = [f[k] for k in ("indptr", "index", "partptr", "node_perm", "edge_perm")]
                fmt = str(f["sparse_format"])
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):  # cut short
            fields, fmt = [], ""
        if fmt != self.sparse_format or not self._fits(ei, *fields):
            raise ValueError(
                f"ClusterData: the stored partition {path!r} does not fit this graph "
                f"({n} nodes, {e} edges, num_parts={self.num_parts}, "
                f"sparse_format={self.sparse_format!r}); remove it or pick another save_dir"
            )
        indptr, index, partptr, node_perm, edge_perm = fields
        idt = ids_dtype_holding(ei.dtype, max(n - 1, 0))  # as _partition gives
        return Partition(
            indptr.astype(np.int64, copy=False),
            index.astype(idt, copy=False),
            partptr.astype(np.int64, copy=False),
            node_perm.astype(np.int64, copy=False),
            edge_perm.astype(np.int64, copy=False),
            self.sparse_format,
        )

    def _fits(self, ei: np.ndarray, *fields: np.ndarray) -> bool:
        """Whether stored arrays are what :meth:`_partition` gives this graph for some part
        ids: integer arrays of the right sizes, ``partptr`` / ``indptr`` offsets,
        ``node_perm`` / ``edge_perm`` permutations (a part's nodes increasing), and the
        graph's edges, relabelled, in sorted order (ties in edge order) at ``edge_perm``.
        O(N + E): a stale file (another graph of as many nodes and edges, or the same edges
        listed in another order) is caught, not silently used."""
        if len(fields) != 5 or any(a.dtype.kind not in "iu" or a.ndim != 1 for a in fields):
            return False
        indptr, index, partptr, node_perm, edge_perm = (
            a.astype(np.int64, copy=False) for a in fields
        )
        n, e = self.num_nodes, int(ei.shape[1])
        if not (
            partptr.shape == (self.num_parts + 1,)
            and _is_offsets(partptr, n)
            and indptr.shape == (n + 1,)
            and _is_offsets(indptr, e)
            and index.shape == (e,)
            and _is_permutation(node_perm, n)
            and _is_permutation(edge_perm, e)
        ):
            return False
        part_of = np.repeat(np.arange(self.num_parts), np.diff(partptr))
        if n > 1 and bool(((np.diff(node_perm) < 0) & (part_of[1:] == part_of[:-1])).any()):
            return False  # a part's nodes in id order (the stable sort)
        new_id = np.empty(n, dtype=np.int64)
        new_id[node_perm] = np.arange(n)
        major, minor = (ei[0], ei[1]) if self.sparse_format == "csr" else (ei[1], ei[0])
        rows = np.repeat(np.arange(n), np.diff(indptr))
        if not (
            np.array_equal(new_id[major[edge_perm]], rows)
            and np.array_equal(new_id[minor[edge_perm]], index)
        ):
            return False
        key = rows * max(n, 1) + index  # sorted by (major, minor), ties in edge order
        step = np.diff(key)
        return not bool(((step < 0) | ((step == 0) & (np.diff(edge_perm) < 0))).any())

    def _permute_data(self, data: Any) -> Any:
        """PyG's ``_permute_data``: node arrays by ``node_perm``, edge arrays by
        ``edge_perm``, the rest as they are; no ``edge_index``."""
        p = self.partition
        node, edge = set(self.levels.node), set(self.levels.edge)
        out = data.copy()
        del out["edge_index"]
        for key, value in data.items():
            if key in node:
                out[key] = np.take(value, p.node_perm, axis=0)
            elif key in edge:
                out[key] = np.take(value, p.edge_perm, axis=0)
        if out.num_nodes != self.num_nodes:
            out.num_nodes = self.num_nodes
        return out

    # ------------------------------------------------------------------ parts
    def __len__(self) -> int:
        return int(self.partition.partptr.shape[0]) - 1

    def __getitem__(self, idx: int) -> Any:
        from arraygnn.neighbor_loader import _check_int

        num = len(self)
        idx = _check_int("ClusterData", "idx", idx, -(2**63))
        if not -num <= idx < num:
            raise IndexError(f"ClusterData: part {idx} out of range for {num} parts")
        idx %= num
        p = self.partition
        start, end = int(p.partptr[idx]), int(p.partptr[idx + 1])
        e0, e1 = int(p.indptr[start]), int(p.indptr[end])
        major = np.repeat(
            np.arange(end - start, dtype=p.index.dtype), np.diff(p.indptr[start : end + 1])
        )
        minor = p.index[e0:e1]
        epos = np.arange(e0, e1)
        if not self.keep_inter_cluster_edges:
            keep = (minor >= start) & (minor < end)
            major, minor, epos = major[keep], minor[keep] - start, epos[keep]
        pair = (major, minor) if self.sparse_format == "csr" else (minor, major)
        return self._part_data(np.arange(start, end), epos, np.stack(pair))

    def _part_data(self, nodes: np.ndarray, epos: np.ndarray, edge_index: np.ndarray) -> Any:
        """The batch ``Data``: node arrays at (permuted) ``nodes``, edge arrays at (sorted)
        edge positions ``epos``, the given ``edge_index``, the rest as they are."""
        data = self.data
        node, edge = set(self.levels.node), set(self.levels.edge)
        out = data.copy()
        for key, value in data.items():
            if key in node:
                out[key] = np.take(value, nodes, axis=0)
            elif key in edge:
                out[key] = np.take(value, epos, axis=0)
        out.edge_index = edge_index
        size = int(nodes.shape[0])
        if "num_nodes" in data._store or out.num_nodes != size:
            out.num_nodes = size
        return out

    def __repr__(self) -> str:
        return f"ClusterData({self.num_parts})"
