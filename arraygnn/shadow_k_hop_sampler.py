"""``ShaDowKHopSampler``: PyG's ShaDow sampler ("Decoupling the Depth and Scope of Graph
Neural Networks"): one small subgraph around every root node, batched.

For each root, ``depth`` hops are sampled along in-edges: hop 1 draws ``num_neighbors`` of
the root's in-neighbours (all of them when it has no more; with replacement when
``replace``), hop ``d + 1`` does the same for every node drawn at hop ``d`` (repeats
included, as torch_sparse's ``ego_k_hop_sample_adj``). The root's subgraph is the graph
induced by the root and every drawn node, its nodes in increasing id order. The batch
lays the subgraphs one after the other, PyG's layout:

- ``batch`` [n] the subgraph of each node, ``ptr`` [B + 1] its node offsets,
  ``root_n_id`` [B] the position of each root in the batch;
- ``edge_index`` [2, e] all edges among each subgraph's nodes, relabelled, sorted by
  (source, target); its dtype is the input's (int64 when that cannot hold the batch's
  ids);
- node attributes take the batch's nodes' rows, edge attributes the kept edges' rows,
  except a node attribute named ``y``, which keeps the roots' rows only (PyG's
  ``y[n_id][root_n_id]``); other values are kept.

RULE: a ``Data``'s node / edge / graph arrays are named by ``node_attrs`` / ``edge_attrs``
      / ``graph_attrs`` (defaults ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` /
      none; :mod:`arraygnn.transforms.attrs`), never guessed from lengths as PyG does.
RULE: with ``num_neighbors`` at least the largest in-degree the subgraphs are exactly the
      ``depth``-hop in-neighbourhoods; the same ``seed`` gives the same batches; CPU
      (NumPy) graphs only (PyG samples on the CPU too).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> path = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
>>> data = Data(x=np.arange(5.0)[:, None], edge_index=path)
>>> batch = next(iter(ShaDowKHopSampler(data, depth=2, num_neighbors=5, batch_size=2)))
>>> batch.batch.tolist(), batch.ptr.tolist(), batch.root_n_id.tolist()
([0, 1, 1], [0, 1, 3], [0, 2])
>>> batch.edge_index.tolist(), batch.x[:, 0].tolist()
([[1], [2]], [0.0, 0.0, 1.0])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding, unique_ids
from arraygnn.batch import Batch
from arraygnn.loader import DataLoader

__all__ = ["ShaDowKHopSampler"]

_WHERE = "ShaDowKHopSampler"


class ShaDowKHopSampler(DataLoader):
    """Batches of ``batch_size`` roots' ``depth``-hop sampled, induced subgraphs.

    Args:
        data: a ``Data`` with ``edge_index`` (NumPy) and a known ``num_nodes``.
        depth: hops (>= 0).
        num_neighbors: in-neighbours drawn per node and hop (>= 0).
        node_idx: the roots (ids or a bool mask; ``None``: every node).
        replace: draw with replacement.
        batch_size / shuffle / drop_last / seed / prefetch: as
            :class:`~arraygnn.loader.DataLoader`, over the roots.
        **kwargs: torch ``DataLoader`` keywords (``num_workers``, ``generator``, ...), as
            :class:`~arraygnn.loader.DataLoader` takes them.
        node_attrs / edge_attrs / graph_attrs: the arrays by level (see above).
    """

    def __init__(
        self,
        data: Any,
        depth: int,
        num_neighbors: int,
        node_idx: Any = None,
        replace: bool = False,
        batch_size: int = 1,
        shuffle: bool = False,
        *,
        drop_last: bool = False,
        seed: int | None = None,
        prefetch: int = 0,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
        **kwargs: Any,
    ) -> None:
        from arraygnn.interop._handoff import is_data_like
        from arraygnn.neighbor_loader import _check_int
        from arraygnn.transforms.attrs import attribute_levels
        from arraygnn.utils._checks import check_ids, edge_index_arg

        if not is_data_like(data):
            raise TypeError(f"{_WHERE}: data must be a Data, got {type(data).__name__}")
        self.depth = _check_int(_WHERE, "depth", depth, 0)
        self.num_neighbors = _check_int(_WHERE, "num_neighbors", num_neighbors, 0)
        self.replace = bool(replace)
        ei = data._store.get("edge_index")
        if ei is None:
            raise ValueError(f"{_WHERE}: data has no edge_index")
        if not isinstance(ei, np.ndarray):
            raise TypeError(f"{_WHERE}: ShaDow samples on the CPU; give NumPy arrays")
        edge_index_arg(_WHERE, ei)
        if data.num_nodes is None:
            raise ValueError(
                f"{_WHERE}: num_nodes is unknown (give x, pos or num_nodes=; it is never guessed "
                "from edge_index.max() + 1)"
            )
        n = self.num_nodes = int(data.num_nodes)
        check_ids(_WHERE, "edge_index", ei, n)
        self.levels = attribute_levels(_WHERE, data, node_attrs, edge_attrs, graph_attrs)
        self.data = data
        src, dst = ei[0].astype(np.int64), ei[1].astype(np.int64)
        # adj_t as torch_sparse holds it: rows are targets, sorted by (target, source)
        perm = np.lexsort((src, dst))
        self._indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(dst, minlength=n), out=self._indptr[1:])
        self._src, self._eid = src[perm], perm
        self.node_idx = _roots(node_idx, n)
        super().__init__(
            self.node_idx,
            batch_size=batch_size,
            shuffle=shuffle,
            drop_last=drop_last,
            seed=seed,
            prefetch=prefetch,
            **kwargs,
        )
        self._sample_rng = np.random.default_rng(self._rng.integers(2**63 - 1))

    def _hop(self, nodes: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(frontier entry of each drawn node, the drawn node) for one hop."""
        from arraygnn.dataset import _ranges

        k, indptr = self.num_neighbors, self._indptr
        starts = indptr[nodes]
        deg = indptr[nodes + 1] - starts
        full = deg <= k
        owner_all = np.repeat(np.flatnonzero(full), deg[full])
        slots_all = _ranges(starts[full], deg[full])
        some = np.flatnonzero(~full)
        if self.replace:
            owner_some = np.repeat(some, k)
            slots_some = starts[owner_some] + (
                rng.random(owner_some.shape[0]) * deg[owner_some]
            ).astype(np.int64)
        else:  # k of each row's slots without replacement: the k smallest random keys
            owner = np.repeat(some, deg[some])
            slots = _ranges(starts[some], deg[some])
            order = np.lexsort((rng.random(slots.shape[0]), owner))
            first = np.zeros(some.shape[0] + 1, dtype=np.int64)
            np.cumsum(deg[some], out=first[1:])
            rank = np.arange(slots.shape[0]) - np.repeat(first[:-1], deg[some])
            take = order[rank < k]
            owner_some, slots_some = owner[take], slots[take]
        owners = np.concatenate([owner_all, owner_some])
        return owners, self._src[np.concatenate([slots_all, slots_some])]

    def _batches_of_indices(self) -> list[Any]:  # type: ignore[override]
        """The epoch's root chunks, each with its own sampling seed, drawn now (in the
        caller's thread): the draws never depend on how far a prefetch thread got."""
        chunks = super()._batches_of_indices()
        seeds = self._sample_rng.integers(2**63 - 1, size=len(chunks))
        return list(zip(chunks, seeds.tolist()))

    def _make(self, chunk: tuple[np.ndarray, int]) -> Batch:  # type: ignore[override]
        from arraygnn.dataset import _ranges

        idx, seed = chunk
        rng = np.random.default_rng(seed)
        roots = self.node_idx[idx]
        b, n = int(roots.shape[0]), max(self.num_nodes, 1)
        graph_of, nodes = np.arange(b, dtype=np.int64), roots
        keys = [graph_of * n + nodes]
        for _ in range(self.depth):
            if nodes.shape[0] == 0:
                break
            owners, nodes = self._hop(nodes, rng)
            graph_of = graph_of[owners]
            keys.append(graph_of * n + nodes)
        key = unique_ids(np, np.concatenate(keys))
        batch_of, n_id = key // n, key % n
        ptr = np.zeros(b + 1, dtype=np.int64)
        np.cumsum(np.bincount(batch_of, minlength=b), out=ptr[1:])
        root_n_id = np.searchsorted(key, np.arange(b) * n + roots)
        # induced edges: every in-edge of every batch node whose source is in its subgraph
        starts = self._indptr[n_id]
        deg = self._indptr[n_id + 1] - starts
        slots = _ranges(starts, deg)
        target = np.repeat(np.arange(key.shape[0]), deg)
        want = batch_of[target] * n + self._src[slots]
        at = np.minimum(np.searchsorted(key, want), max(key.shape[0] - 1, 0))
        found = key[at] == want if key.shape[0] else np.zeros(0, bool)
        source, target, e_id = at[found], target[found], self._eid[slots[found]]
        order = np.lexsort((target, source))  # adj_t.t(): sorted by (source, target)
        source, target, e_id = source[order], target[order], e_id[order]
        data = self.data
        out = Batch(batch=batch_of, ptr=ptr)
        out.root_n_id = root_n_id
        idt = ids_dtype_holding(data.edge_index.dtype, int(key.shape[0]) - 1)  # never wrap
        out.edge_index = np.stack([source, target]).astype(idt, copy=False)
        node, edge = set(self.levels.node), set(self.levels.edge)
        for k, v in data.items():
            if k in ("edge_index", "num_nodes", "batch", "ptr"):
                continue
            if k == "y" and k in node:
                out[k] = v[roots]
            elif k in node:
                out[k] = v[n_id]
            elif k in edge:
                out[k] = v[e_id]
            else:
                out[k] = v
        return out

    def __repr__(self) -> str:
        return (
            f"ShaDowKHopSampler(depth={self.depth}, num_neighbors={self.num_neighbors}, "
            f"num_roots={int(self.node_idx.shape[0])}, batch_size={self.batch_size})"
        )


def _roots(node_idx: Any, n: int) -> np.ndarray:
    if node_idx is None:
        return np.arange(n, dtype=np.int64)
    arr = np.asarray(node_idx)
    if arr.ndim != 1:
        raise ValueError(f"{_WHERE}: node_idx must be 1-D, got shape {arr.shape}")
    if arr.dtype == np.bool_:
        if arr.shape[0] != n:
            raise ValueError(f"{_WHERE}: node_idx is a mask of {arr.shape[0]} entries, not {n}")
        return np.flatnonzero(arr)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{_WHERE}: node_idx must hold integer ids or be a bool mask")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{_WHERE}: node_idx holds ids outside [0, {n})")
    return arr.astype(np.int64)
