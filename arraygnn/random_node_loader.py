"""``RandomNodeLoader``: PyG's random node partitions of one graph, with induced subgraphs.

The nodes ``0 .. N - 1`` (a ``HeteroData``'s node types back to back, in
``data.node_types`` order) are cut into ``num_parts`` chunks of ``ceil(N / num_parts)``
(the last one shorter), in a fresh random order each epoch with ``shuffle=True``; each
batch is the subgraph induced by one chunk (``Data.subgraph`` / ``HeteroData.subgraph``):
the chunk's nodes in chunk order, the edges whose both ends are in the chunk, relabelled.

RULE: over one epoch every node is in exactly one batch; an edge is in a batch exactly when
      both its ends are (edges between chunks are dropped, as PyG).
RULE: a ``Data``'s node / edge / graph arrays are named by ``node_attrs`` / ``edge_attrs``
      / ``graph_attrs`` (defaults ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` /
      none), never guessed from lengths (:mod:`arraygnn.transforms.attrs`); checked once,
      when the loader is made.
RULE: a graph with no nodes gives no batch (PyG's ``batch_size=0`` is an error there).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> data = Data(x=np.arange(5.0)[:, None], edge_index=np.array([[0, 1, 3], [1, 2, 4]]))
>>> loader = RandomNodeLoader(data, num_parts=2)
>>> [(b.x[:, 0].tolist(), b.edge_index.tolist()) for b in loader]
[([0.0, 1.0, 2.0], [[0, 1], [1, 2]]), ([3.0, 4.0], [[0], [1]])]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn.hetero_data import HeteroData
from arraygnn.loader import DataLoader

__all__ = ["RandomNodeLoader"]


class RandomNodeLoader(DataLoader):
    """Induced subgraphs of random node partitions of ``data`` (a ``Data`` or ``HeteroData``).

    Args:
        data: the graph; its ``num_nodes`` (every node type's) must be known.
        num_parts: the number of partitions (batches per epoch, fewer when ``N`` is small).
        shuffle: a new random partition every epoch (``False``: consecutive node ids).
        node_attrs / edge_attrs / graph_attrs: a ``Data``'s arrays by level (see above);
            not used for a ``HeteroData`` (its stores say it).
        drop_last / seed / prefetch: as :class:`~arraygnn.loader.DataLoader`.
        **kwargs: torch ``DataLoader`` keywords (``num_workers``, ``generator``, ...), as
            :class:`~arraygnn.loader.DataLoader` takes them.
    """

    def __init__(
        self,
        data: Any,
        num_parts: int,
        shuffle: bool = False,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
        drop_last: bool = False,
        seed: int | None = None,
        prefetch: int = 0,
        **kwargs: Any,
    ) -> None:
        from arraygnn.interop._handoff import is_data_like
        from arraygnn.neighbor_loader import _check_int

        where = "RandomNodeLoader"
        self.num_parts = _check_int(where, "num_parts", num_parts, 1)
        self.data = data
        if isinstance(data, HeteroData):
            counts = []
            for t in data.node_types:
                n = data[t].num_nodes
                if n is None:
                    raise ValueError(f"{where}: num_nodes of node type {t!r} is unknown")
                counts.append(int(n))
            self.node_dict = dict(
                zip(data.node_types, zip(np.cumsum([0] + counts[:-1]), np.cumsum(counts)))
            )
            num_nodes = int(sum(counts))
            self._levels = None
        elif is_data_like(data):
            from arraygnn.transforms.attrs import attribute_levels

            if data.num_nodes is None:
                raise ValueError(
                    f"{where}: num_nodes is unknown (give x, pos or num_nodes=; it is never "
                    "guessed from edge_index.max() + 1)"
                )
            num_nodes = int(data.num_nodes)
            self._levels = attribute_levels(where, data, node_attrs, edge_attrs, graph_attrs)
            ei = data._store.get("edge_index")
            if ei is not None:  # checked once here, not per batch
                from arraygnn.utils._checks import check_ids, edge_index_arg

                edge_index_arg(where, ei)
                check_ids(where, "edge_index", ei, num_nodes)
        else:
            raise TypeError(f"{where}: data must be a Data or a HeteroData, got {type(data)}")
        self.num_nodes = num_nodes
        batch_size = max(-(-num_nodes // self.num_parts), 1)
        super().__init__(
            range(num_nodes),
            batch_size=batch_size,
            shuffle=shuffle,
            drop_last=drop_last,
            seed=seed,
            prefetch=prefetch,
            **kwargs,
        )

    def _batches_of_indices(self) -> list[Any]:  # type: ignore[override]
        """The epoch's chunks; for a ``Data``, each with its kept edges: one pass over the
        edges per epoch (chunk of each end, equal -> kept), not one per batch."""
        chunks = super()._batches_of_indices()
        ei = self.data._store.get("edge_index") if self._levels is not None else None
        if ei is None:
            return [(idx, None) for idx in chunks]
        from arraygnn.data_methods import _namespace

        xp = _namespace(self.data)
        part = np.full(self.num_nodes, -1, dtype=np.int64)
        for b, idx in enumerate(chunks):
            part[idx] = b
        part = xp.asarray(part)
        src_part, dst_part = part[ei[0]], part[ei[1]]
        kept = xp.flatnonzero((src_part == dst_part) & (src_part >= 0))
        group = src_part[kept]
        kept = kept[xp.argsort(group, kind="stable")]  # by chunk, edge order kept
        ends = np.cumsum(np.bincount(np.asarray(group.get() if xp is not np else group),
                                     minlength=len(chunks)))  # fmt: skip
        starts = np.concatenate([[0], ends[:-1]])
        return [(idx, kept[a:b]) for idx, a, b in zip(chunks, starts, ends)]

    def _make(self, chunk: Any) -> Any:  # type: ignore[override]
        idx, kept = chunk
        data = self.data
        if self._levels is None:
            return data.subgraph(
                {t: idx[(idx >= lo) & (idx < hi)] - lo for t, (lo, hi) in self.node_dict.items()}
            )
        from arraygnn.data_methods import _namespace

        # Data.subgraph's result without its per-call checks (done once, in __init__)
        xp, lv = _namespace(data), self._levels
        ids = xp.asarray(idx)
        store, out = data._store, data.copy()
        if kept is not None:
            from arraygnn._ids import ids_dtype_holding

            ei = store["edge_index"]
            idt = ids_dtype_holding(ei.dtype, int(ids.shape[0]) - 1)  # widen, never wrap
            local = xp.empty(self.num_nodes, dtype=idt)
            local[ids] = xp.arange(ids.shape[0], dtype=idt)
            out._store["edge_index"] = local[xp.take(ei, kept, axis=1)]
            for key in lv.edge:
                out._store[key] = xp.take(store[key], kept, axis=0)
        for key in lv.node:
            out._store[key] = xp.take(store[key], ids, axis=0)
        if "num_nodes" in store or out.num_nodes != ids.shape[0]:
            out.num_nodes = int(ids.shape[0])
        return out

    def __repr__(self) -> str:
        return f"RandomNodeLoader(num_nodes={self.num_nodes}, num_parts={self.num_parts})"
