"""Row-block partitions of a graph, each with the halo of source rows it needs.

A square graph (one node set, edges ``edge_index[0] -> edge_index[1]``) is cut into
contiguous blocks of destination rows, balanced by edge count rather than node
count. Block ``b`` owns the destination rows ``[row_start, row_stop)`` and the
feature rows of the same nodes. To compute its rows of ``A @ x`` it needs its own
feature rows plus a *halo*: the source rows owned by other blocks. Everything is
plain NumPy arrays, so a partition can be saved with :meth:`PartitionedGraph.save`
and shipped to workers.

RULE: a block's edges are the global destination-sorted CSR's rows
``[row_start, row_stop)`` in the same order, so a per-row summation over a block
visits the edges in the same order as :func:`arraygnn.ops.spmm` on the whole graph.

>>> import numpy as np
>>> from arraygnn.distributed import partition_graph
>>> ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
>>> pg = partition_graph(ei, num_nodes=4, num_parts=2)
>>> [(b.row_start, b.row_stop) for b in pg.blocks]
[(0, 2), (2, 4)]
>>> pg.blocks[0].halo_ids          # block 0 needs node 3 (edge 3 -> 0) from block 1
array([3])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arraygnn import ops
from arraygnn._namespace import is_ml_float
from arraygnn.ops._common import check_size

__all__ = ["GraphBlock", "PartitionedGraph", "partition_graph"]


@dataclass(frozen=True)
class GraphBlock:
    """One row block of a partitioned graph (plain arrays, picklable).

    - ``row_start`` / ``row_stop``: the destination (and owned feature) rows.
    - ``indptr`` [rows + 1], ``src`` [E_b]: the block's CSR; ``src`` indexes the
      block's *input buffer*: its own feature rows first (``0 .. rows-1``), then
      its halo rows in ``halo_ids`` order.
    - ``edge_weight`` [E_b] or ``None``: weights in the block's CSR order.
    - ``halo_ids``: global ids of the source rows owned by other blocks, sorted;
      ``halo_owner``: the block owning each of them.
    """

    part_id: int
    row_start: int
    row_stop: int
    indptr: np.ndarray
    src: np.ndarray
    edge_weight: np.ndarray | None
    halo_ids: np.ndarray
    halo_owner: np.ndarray

    @property
    def num_rows(self) -> int:
        return self.row_stop - self.row_start

    @property
    def num_edges(self) -> int:
        return int(self.src.shape[0])

    def halo_from(self, owner: int) -> np.ndarray:
        """Global ids of the halo nodes this block needs from block ``owner`` (subtract
        ``boundaries[owner]`` for row numbers within that block)."""
        ids = self.halo_ids[self.halo_owner == owner]
        return ids


@dataclass(frozen=True)
class PartitionedGraph:
    """A square graph cut into destination-row blocks (see :func:`partition_graph`)."""

    num_nodes: int
    num_edges: int
    boundaries: np.ndarray  # [num_parts + 1] row cut points
    blocks: tuple[GraphBlock, ...]

    @property
    def num_parts(self) -> int:
        return len(self.blocks)

    def owner_of(self, nodes: np.ndarray) -> np.ndarray:
        """The block owning each node id (ids in ``[0, num_nodes)``)."""
        ids = np.asarray(nodes)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"owner_of: node ids must be integers, got dtype {ids.dtype}")
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= self.num_nodes):
            bad = int(ids.min()) if int(ids.min()) < 0 else int(ids.max())
            raise ValueError(f"owner_of: node id {bad} outside [0, {self.num_nodes})")
        return np.searchsorted(self.boundaries, ids, side="right") - 1

    def halo_rows(self) -> int:
        """Total halo rows over all blocks: the rows exchanged per hop."""
        return int(sum(b.halo_ids.shape[0] for b in self.blocks))

    def save(self, path: str | os.PathLike) -> None:
        """Write the partition to one ``.npz`` file at exactly ``path`` (no pickle; NumPy's
        ``savez`` would append ``.npz`` to a name without it, and :meth:`load` of the same
        name would not find it)."""
        arrays: dict[str, np.ndarray] = {
            "num_nodes": np.array(self.num_nodes),
            "num_edges": np.array(self.num_edges),
            "boundaries": self.boundaries,
        }
        for b in self.blocks:
            p = f"b{b.part_id}_"
            arrays[p + "indptr"] = b.indptr
            arrays[p + "src"] = b.src
            arrays[p + "halo_ids"] = b.halo_ids
            arrays[p + "halo_owner"] = b.halo_owner
            if b.edge_weight is not None:
                arrays[p + "edge_weight"] = b.edge_weight
                if is_ml_float(b.edge_weight.dtype):  # .npy keeps only its raw bytes ('V2')
                    arrays["edge_weight_dtype"] = np.array(b.edge_weight.dtype.name)
        with open(Path(path), "wb") as fh:
            np.savez(fh, **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike) -> PartitionedGraph:
        """Read a partition written by :meth:`save`."""
        with np.load(Path(path), allow_pickle=False) as f:
            boundaries = f["boundaries"]
            weight_dtype = None
            if "edge_weight_dtype" in f:  # bfloat16 / float8 weights, saved as raw bytes
                import ml_dtypes

                weight_dtype = np.dtype(getattr(ml_dtypes, str(f["edge_weight_dtype"])))
            blocks = []
            for k in range(boundaries.shape[0] - 1):
                p = f"b{k}_"
                weight = f[p + "edge_weight"] if p + "edge_weight" in f else None
                if weight is not None and weight_dtype is not None:
                    weight = weight.view(weight_dtype)
                blocks.append(
                    GraphBlock(
                        part_id=k,
                        row_start=int(boundaries[k]),
                        row_stop=int(boundaries[k + 1]),
                        indptr=f[p + "indptr"],
                        src=f[p + "src"],
                        edge_weight=weight,
                        halo_ids=f[p + "halo_ids"],
                        halo_owner=f[p + "halo_owner"],
                    )
                )
            return cls(
                num_nodes=int(f["num_nodes"]),
                num_edges=int(f["num_edges"]),
                boundaries=boundaries,
                blocks=tuple(blocks),
            )


def _balanced_boundaries(indptr: np.ndarray, num_parts: int) -> np.ndarray:
    """Row cut points so that the blocks hold about equal numbers of edges.

    Cuts are placed one at a time: each block takes about ``remaining_edges /
    remaining_parts`` edges, so a hub row larger than its share does not leave the
    next blocks empty. Every block gets at least one row while rows remain.
    """
    n = indptr.shape[0] - 1
    e = int(indptr[-1])
    if e == 0:
        # No edges to balance: split rows evenly (one row per block while rows remain)
        if n < num_parts:
            return np.minimum(np.arange(num_parts + 1, dtype=np.int64), n)
        return np.linspace(0, n, num_parts + 1).round().astype(np.int64)
    cuts = [0]
    for k in range(1, num_parts):
        r = cuts[-1]
        target = indptr[r] + (e - indptr[r]) / (num_parts - k + 1)
        cut = int(np.searchsorted(indptr, target, side="left"))
        # Take the row boundary closest to the target, then keep at least one row.
        if cut > r + 1 and target - indptr[cut - 1] < indptr[cut] - target:
            cut -= 1
        cuts.append(min(max(cut, r + 1), n))
    cuts.append(n)
    return np.asarray(cuts, dtype=np.int64)


#: a block's halo is found with a node-sized mask when it has at least
#: ``num_nodes / HALO_MASK_RATIO`` foreign edges, else by sorting them (``np.unique``):
#: 8 blocks of a 1M-node / 10M-edge graph took 3.7 s in ``np.unique`` and 1.8 s in
#: ``np.searchsorted`` on the 2-core box (benchmarks/RESULTS.md)
HALO_MASK_RATIO = 64


def _sorted_unique(ids: np.ndarray, mark: np.ndarray) -> np.ndarray:
    """``np.unique(ids)`` for node ids in ``[0, len(mark))``; ``mark`` is all False
    scratch and is left all False."""
    if ids.shape[0] * HALO_MASK_RATIO < mark.shape[0]:
        return np.unique(ids)
    mark[ids] = True
    found = np.flatnonzero(mark)
    mark[found] = False
    return found


def partition_graph(
    edge_index: np.ndarray,
    num_nodes: int,
    num_parts: int,
    edge_weight: np.ndarray | None = None,
) -> PartitionedGraph:
    """Cut a square graph into ``num_parts`` destination-row blocks with halos.

    ``edge_index`` [2, E] (row 0 source, row 1 destination, int32 / int64, NumPy),
    ``edge_weight`` [E] optional (numeric: ``TypeError`` otherwise, before any worker sees
    it); ``num_nodes`` a non-negative int (``TypeError`` for floats / bools). Rows are
    split so that every block holds about the same number of edges (power-law graphs have
    hubs: a node-count split would leave one worker with most of the work).
    """
    from arraygnn._namespace import is_cupy_array

    for name, value in (("edge_index", edge_index), ("edge_weight", edge_weight)):
        if is_cupy_array(value):
            raise TypeError(
                f"partition_graph: {name} is a CuPy array; partitions are cut on the host: "
                "pass NumPy arrays (arraygnn.to_device(..., 'cpu'))"
            )
    edge_index = np.asarray(edge_index)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must have shape [2, E], got {list(edge_index.shape)}")
    if not np.issubdtype(edge_index.dtype, np.integer):
        raise TypeError(f"edge_index must be an integer array, got dtype {edge_index.dtype}")
    if (
        isinstance(num_parts, (bool, np.bool_))
        or not isinstance(num_parts, (int, np.integer))
        or num_parts < 1
    ):
        raise ValueError(f"num_parts must be a positive integer, got {num_parts!r}")
    num_nodes = check_size("partition_graph: num_nodes", num_nodes)  # no float / bool / str
    e = edge_index.shape[1]
    if e and (edge_index.min() < 0 or edge_index.max() >= num_nodes):
        bad = int(edge_index.min()) if edge_index.min() < 0 else int(edge_index.max())
        raise ValueError(f"edge_index contains node id {bad} outside [0, {num_nodes})")
    if edge_weight is not None:
        edge_weight = np.asarray(edge_weight)
        if edge_weight.shape != (e,):
            raise ValueError(
                f"edge_weight must have shape [{e}] (one weight per edge), "
                f"got {list(edge_weight.shape)}"
            )
        if edge_weight.dtype.kind not in "fiu" and not is_ml_float(edge_weight.dtype):
            # (else the workers' ops.spmm fails on every block, far from the cause)
            raise TypeError(
                f"edge_weight must be a numeric (float or int) array, got dtype {edge_weight.dtype}"
            )

    # the engine's destination-sorted CSR: the same stable order as
    # np.argsort(dst, kind="stable"), sorted by a parallel counting sort
    csr = ops.to_csr(edge_index, num_nodes, num_nodes)
    indptr = csr.indptr.astype(np.int64)
    csr_src = csr.indices.astype(np.int64)
    csr_w = edge_weight[csr.perm] if edge_weight is not None else None
    bounds = _balanced_boundaries(indptr, num_parts)

    blocks = []
    # halo_slot[g] = position of node g in the current block's halo (only the current
    # halo's entries are read); mark flags foreign sources when a block has many
    halo_slot = np.empty(num_nodes, dtype=np.int64)
    mark = np.zeros(num_nodes, dtype=bool)
    for k in range(num_parts):
        r0, r1 = int(bounds[k]), int(bounds[k + 1])
        e0, e1 = int(indptr[r0]), int(indptr[r1])
        gsrc = csr_src[e0:e1]
        own = (gsrc >= r0) & (gsrc < r1)
        foreign = gsrc[~own]
        halo_ids = _sorted_unique(foreign, mark)
        halo_slot[halo_ids] = np.arange(halo_ids.shape[0])
        local = np.empty(e1 - e0, dtype=np.int64)
        local[own] = gsrc[own] - r0
        local[~own] = (r1 - r0) + halo_slot[foreign]
        owner = np.searchsorted(bounds, halo_ids, side="right") - 1
        blocks.append(
            GraphBlock(
                part_id=k,
                row_start=r0,
                row_stop=r1,
                indptr=indptr[r0 : r1 + 1] - e0,
                src=local,
                edge_weight=None if csr_w is None else csr_w[e0:e1],
                halo_ids=halo_ids,
                halo_owner=owner.astype(np.int64),
            )
        )
    return PartitionedGraph(
        num_nodes=num_nodes, num_edges=e, boundaries=bounds, blocks=tuple(blocks)
    )
