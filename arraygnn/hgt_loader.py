"""``HGTLoader``: PyG's heterogeneous layer-wise sampler of the Heterogeneous Graph
Transformer paper (torch_sparse's ``hgt_sample``, which PyG's ``HGTSampler`` calls).

Each node type keeps a budget: every sampled node of type ``dst`` adds, for each edge type
``(src, rel, dst)``, ``1 / in_degree`` to each of its not-yet-sampled in-neighbours of type
``src`` (a node with more than 50 in-edges adds ``1 / 50`` to 50 of them drawn at random).
The seeds start the budgets; hop ``h`` then draws, for every node type at once,
``num_samples[type][h]`` nodes from its budget without replacement with probability
proportional to budget², removes them from the budget, and (except after the last hop)
adds their in-neighbours to the budgets. The batch is the subgraph over all drawn nodes:
for each edge type, each drawn ``dst`` node's in-edges (50 drawn ones for a node of more
than 50) whose source was drawn.

The batch is a ``HeteroData`` laid out as :class:`~arraygnn.hetero_neighbor_loader.
HeteroNeighborLoader`'s (PyG's ``NodeLoader`` layout): per node type ``n_id`` (global ids,
in draw order, the seeds first) and ``num_nodes``; per edge type ``edge_index`` (row 0 the
source's batch id, row 1 the target's, edges grouped by target in draw order, sources in
increasing id order) and ``e_id``; ``input_id`` / ``batch_size`` on the input type; the
sliced attributes. As PyG's, there is no ``num_sampled_nodes`` / ``num_sampled_edges``.

RULE: ``num_samples`` is a list (the same for every node type) or a dict naming every node
      type, all with the same number of hops.
RULE: a budget smaller than its draw is taken whole, in increasing id order (torch_sparse:
      hash-map order); the same ``seed`` gives the same batches; CPU (NumPy) graphs only
      (PyG samples on the CPU too).
Difference from torch_sparse: for a node of more than 50 in-edges, ``e_id`` holds the ids
of the edges actually kept (torch_sparse records the wrong positions there).

>>> import numpy as np
>>> from arraygnn.hetero_data import HeteroData
>>> data = HeteroData(paper={"x": np.arange(4.0)[:, None]}, author={"num_nodes": 3})
>>> data["author", "writes", "paper"].edge_index = np.array([[0, 1, 2, 2], [0, 0, 1, 3]])
>>> loader = HGTLoader(data, num_samples=[5], input_nodes=("paper", np.array([0, 1])),
...                    batch_size=2)
>>> batch = next(iter(loader))
>>> batch["paper"].n_id.tolist(), batch["author"].n_id.tolist()
([0, 1], [0, 1, 2])
>>> batch["writes"].edge_index.tolist(), batch["paper"].batch_size
([[0, 1, 2], [0, 0, 1]], 2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader, _edge_index

__all__ = ["HGTLoader"]

_WHERE = "HGTLoader"
#: in-edges looked at per node at most (torch_sparse's MAX_NEIGHBORS)
MAX_NEIGHBORS = 50


def _num_samples(num_samples: Any, node_types: list[str]) -> dict[str, list[int]]:
    from arraygnn.neighbor_loader import _check_int

    def hops(what: str, value: Any) -> list[int]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise TypeError(f"{_WHERE}: {what} must be a list of ints, got {value!r}")
        return [_check_int(_WHERE, f"{what}[{i}]", k, 0) for i, k in enumerate(value)]

    if not isinstance(num_samples, Mapping):
        same = hops("num_samples", num_samples)
        return {t: list(same) for t in node_types}
    unknown = [t for t in num_samples if t not in node_types]
    if unknown:
        raise ValueError(f"{_WHERE}: num_samples names {unknown}, not node types {node_types}")
    missing = [t for t in node_types if t not in num_samples]
    if missing:
        raise ValueError(f"{_WHERE}: num_samples has no entry for node type(s) {missing}")
    out = {t: hops(f"num_samples[{t!r}]", num_samples[t]) for t in node_types}
    if len({len(v) for v in out.values()}) > 1:
        counts = {t: len(v) for t, v in out.items()}
        raise ValueError(f"{_WHERE}: num_samples must give every node type the same hops: {counts}")
    return out


class HGTLoader(HeteroNeighborLoader):
    """HGT's budget sampling over a ``HeteroData`` (see above).

    Args:
        data: a ``HeteroData`` with NumPy arrays; every node type's ``num_nodes`` known.
        num_samples: nodes drawn per hop, a list for every node type or
            ``{node_type: [...]}``.
        input_nodes: ``(node_type, ids)``, ``(node_type, mask)``, ``(node_type, None)`` or
            ``node_type``.
        batch_size, shuffle, drop_last, seed, node_attrs, edge_attrs, exclude_keys,
        transform: as :class:`~arraygnn.hetero_neighbor_loader.HeteroNeighborLoader`.
    """

    def __init__(
        self,
        data: Any,
        num_samples: Sequence[int] | Mapping[str, Sequence[int]],
        input_nodes: Any = None,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        exclude_keys: Iterable[str] = (),
        *,
        transform: Callable[[Any], Any] | None = None,
    ) -> None:
        from arraygnn.hetero_data import HeteroData

        if not isinstance(data, HeteroData):
            raise TypeError(f"{_WHERE}: data must be a HeteroData, got {type(data).__name__}")
        self.num_samples = _num_samples(num_samples, list(data.node_types))
        hops = len(next(iter(self.num_samples.values()))) if self.num_samples else 0
        try:
            super().__init__(
                data,
                [0] * hops,
                input_nodes=input_nodes,
                batch_size=batch_size,
                shuffle=shuffle,
                drop_last=drop_last,
                seed=seed,
                node_attrs=node_attrs,
                edge_attrs=edge_attrs,
                exclude_keys=exclude_keys,
                transform=transform,
            )
        except (TypeError, ValueError) as err:  # the checks are the base's: name this loader
            head, _, rest = str(err).partition(": ")
            if head != "NeighborLoader" or type(err) not in (TypeError, ValueError):
                raise
            raise type(err)(f"{_WHERE}: {rest}") from None
        if self.graph._xp() is not np:
            raise TypeError(f"{_WHERE}: HGT samples on the CPU; give NumPy arrays")
        self.num_hops = hops
        self._csc = {}
        for et in self.edge_types:
            src, dst = (r.astype(np.int64) for r in _edge_index(data, et))
            perm = np.lexsort((src, dst))  # PyG's CSC: by target, then source
            colptr = np.zeros(self.num_nodes_dict[et[2]] + 1, dtype=np.int64)
            np.cumsum(np.bincount(dst, minlength=self.num_nodes_dict[et[2]]), out=colptr[1:])
            self._csc[et] = (colptr, src[perm], perm)
        self._budget = {t: np.zeros(n, np.float32) for t, n in self.num_nodes_dict.items()}
        self._hgt_local = {t: np.full(n, -1, np.int64) for t, n in self.num_nodes_dict.items()}
        self._hgt_rng = np.random.default_rng(self._sample_seed)

    def _in_edges(self, et: Any, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(owner index in ``nodes``, CSC position, weight) of the in-edges looked at: all of
        a node's when it has at most 50, else 50 of them drawn without replacement."""
        from arraygnn.dataset import _ranges

        colptr = self._csc[et][0]
        starts = colptr[nodes]
        deg = colptr[nodes + 1] - starts
        small = deg <= MAX_NEIGHBORS
        owner = np.repeat(np.flatnonzero(small), deg[small])
        pos = _ranges(starts[small], deg[small])
        weight = np.repeat(1.0 / np.maximum(deg[small], 1), deg[small]).astype(np.float32)
        big = np.flatnonzero(~small)
        if big.shape[0]:
            owners = np.repeat(big, deg[big])
            slots = _ranges(starts[big], deg[big])
            order = np.lexsort((self._hgt_rng.random(slots.shape[0]), owners))
            first = np.repeat(np.cumsum(deg[big]) - deg[big], deg[big])
            take = np.sort(order[np.arange(slots.shape[0]) - first < MAX_NEIGHBORS])
            owner = np.concatenate([owner, owners[take]])
            pos = np.concatenate([pos, slots[take]])
            weight = np.concatenate(
                [weight, np.full(take.shape[0], 1.0 / MAX_NEIGHBORS, np.float32)]
            )
            by_owner = np.argsort(owner, kind="stable")  # grouped by node, in node order
            owner, pos, weight = owner[by_owner], pos[by_owner], weight[by_owner]
        return owner, pos, weight

    def _update_budget(self, t: str, samples: np.ndarray, touched: dict[str, list]) -> None:
        if samples.shape[0] == 0:
            return
        for et in self.edge_types:
            if et[2] != t:
                continue
            src_type = et[0]
            _, pos, weight = self._in_edges(et, samples)
            v = self._csc[et][1][pos]
            fresh = self._hgt_local[src_type][v] < 0
            np.add.at(self._budget[src_type], v[fresh], weight[fresh])
            touched[src_type].append(v[fresh])

    def _draw(self, t: str, k: int, touched: dict[str, list]) -> np.ndarray:
        parts = touched[t]
        if not parts or k == 0:
            return np.zeros(0, np.int64)
        cand = unique_ids(np, np.concatenate(parts))
        cand = cand[self._budget[t][cand] > 0]
        if k >= cand.shape[0]:
            return cand
        w = self._budget[t][cand].astype(np.float64) ** 2
        return cand[self._hgt_rng.choice(cand.shape[0], size=k, replace=False, p=w / w.sum())]

    def _subgraph(self, seeds: Any, seed_time: Any = None) -> Any:
        seeds = np.asarray(seeds, dtype=np.int64)
        it = self.input_type
        nodes: dict[str, list[np.ndarray]] = {t: [] for t in self.node_types}
        count = dict.fromkeys(self.node_types, 0)
        touched: dict[str, list] = {t: [] for t in self.node_types}
        local = self._hgt_local
        try:
            nodes[it].append(seeds)
            local[it][seeds] = np.arange(seeds.shape[0])  # a repeated seed: its last copy
            count[it] = int(seeds.shape[0])
            self._update_budget(it, seeds, touched)
            for hop in range(self.num_hops):
                drawn = {
                    t: self._draw(t, self.num_samples[t][hop], touched) for t in self.node_types
                }
                for t, samples in drawn.items():
                    local[t][samples] = count[t] + np.arange(samples.shape[0])
                    count[t] += int(samples.shape[0])
                    nodes[t].append(samples)
                    self._budget[t][samples] = 0
                if hop < self.num_hops - 1:
                    for t, samples in drawn.items():
                        self._update_budget(t, samples, touched)
            n_ids = {t: np.concatenate(p) if p else np.zeros(0, np.int64) for t, p in nodes.items()}
            edges = {}
            for et in self.edge_types:
                src_type, _, dst_type = et
                owner, pos, _ = self._in_edges(et, n_ids[dst_type])
                row = local[src_type][self._csc[et][1][pos]]
                keep = row >= 0
                edges[et] = (row[keep], owner[keep], self._csc[et][2][pos[keep]])
        finally:  # reset only what this batch touched
            for t in self.node_types:
                for ids in nodes[t]:
                    local[t][ids] = -1
                for ids in touched[t]:
                    self._budget[t][ids] = 0
        out = self._assemble(
            n_ids, edges, dict.fromkeys(self.node_types), dict.fromkeys(self.edge_types)
        )
        for store, key in [(s, "num_sampled_nodes") for s in out.node_stores] + [
            (s, "num_sampled_edges") for s in out.edge_stores
        ]:
            if key in store:  # PyG's HGT batches have no per-hop counts
                del store[key]
        return out

    def __repr__(self) -> str:
        return (
            f"HGTLoader(input_type={self.input_type!r}, num_hops={self.num_hops}, "
            f"batch_size={self.batch_size}, num_input_nodes={int(self.input_nodes.shape[0])})"
        )
