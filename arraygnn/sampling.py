"""Uniform neighbour sampling for mini-batch training (DGL's ``sample_neighbors`` + blocks).

>>> import numpy as np
>>> from arraygnn.graph import graph, NID
>>> from arraygnn.sampling import sample_blocks
>>> g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])), num_nodes=5)
>>> input_nodes, output_nodes, blocks = sample_blocks(g, np.array([0]), [2, 2], seed=0)
>>> [b.num_dst_nodes() for b in blocks], output_nodes, input_nodes
([2, 1], array([0]), array([0, 4, 3]))

RULE: sampling is uniform over each seed node's in-edges; with ``replace=False`` a node
      with at most ``fanout`` in-edges keeps all of them; ``fanout=-1`` keeps all edges.
RULE: the same ``seed`` gives the same sample (NumPy ``default_rng``; CuPy's on the GPU).
RULE: the frontier keeps every node of ``g`` and shares its node features (DGL's
      ``copy_ndata=True``); ``edata[EID]`` holds the sampled edges' ids in ``g``.
RULE: a fan-out dict names every edge type (an etype name or a canonical triple), as DGL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import repeat_counts
from arraygnn.graph.core import EID, NID, Graph, check_graph
from arraygnn.graph.subgraph import _gather_frame, _ids_for, _per_type, to_block

__all__ = [
    "sample_neighbors",
    "sample_blocks",
    "NeighborSampler",
    "MultiLayerFullNeighborSampler",
    "NodeDataLoader",
]


def _rng(g: Graph, seed: Any) -> Any:
    if g.device == "cpu":
        if isinstance(seed, np.random.Generator):
            return seed
        return np.random.default_rng(seed)
    cupy = g._xp()
    if isinstance(seed, np.random.Generator):
        # a host generator draws host arrays: derive the device one from it (reproducible)
        return cupy.random.default_rng(int(seed.integers(2**63 - 1)))
    if seed is not None and not isinstance(seed, (int, np.integer)):
        return seed  # a CuPy generator
    return cupy.random.default_rng(seed)


def _sample_relation(g: Graph, c: Any, seeds: Any, fanout: int, replace: bool, rng: Any) -> Any:
    """Sampled edge ids (increasing) of relation ``c`` into ``seeds``."""
    from arraygnn.graph.message_passing import _csr_indptr, _csr_perm

    xp = g._xp()
    csr = g.csr(c)
    indptr, perm = _csr_indptr(csr), _csr_perm(csr)
    start = indptr[seeds]
    deg = indptr[1:][seeds] - start  # no arithmetic on the ids: nothing can wrap
    if fanout < 0 or (not replace and (deg.size == 0 or int(deg.max()) <= fanout)):
        total = int(deg.sum())
        seg_start = xp.cumsum(deg) - deg
        pos = repeat_counts(xp, start, deg) + (xp.arange(total) - repeat_counts(xp, seg_start, deg))
        return xp.sort(perm[pos])
    if replace:
        has = xp.nonzero(deg > 0)[0]
        owner = xp.repeat(has, fanout)
        offset = xp.floor(rng.random(owner.shape[0]) * deg[owner]).astype(indptr.dtype)
        return xp.sort(perm[start[owner] + offset])
    if xp is np:  # O(fanout) per seed (Floyd), not a sort of every in-edge
        from arraygnn.kernels.cpu.sampling import sample_without_replacement

        seed = int(rng.integers(2**32))  # Numba's generator keeps 32 bits of a seed
        return sample_without_replacement(indptr, perm, seeds, fanout, seed)
    total = int(deg.sum())
    seg = repeat_counts(xp, xp.arange(seeds.shape[0]), deg)
    seg_start = xp.cumsum(deg) - deg
    local = xp.arange(total) - repeat_counts(xp, seg_start, deg)
    pos = repeat_counts(xp, start, deg) + local
    keys = rng.random(total)
    order = xp.lexsort(xp.stack([keys, seg]))  # by seed, then random key
    rank = local  # seg is sorted, so position - segment start is the rank after sorting
    picked = pos[order][rank < fanout]
    return xp.sort(perm[picked])


def sample_neighbors(
    g: Graph,
    nodes: Any,
    fanout: int | Mapping[Any, int],
    *,
    replace: bool = False,
    seed: Any = None,
    copy_ndata: bool = True,
    copy_edata: bool = True,
) -> Graph:
    """A frontier graph with every node of ``g`` and ``fanout`` sampled in-edges per seed.

    ``nodes`` are seed ids (or ``{ntype: ids}``); ``fanout`` an int or ``{etype: int}``
    naming every edge type (``-1`` = all in-edges). As DGL, the frontier shares ``g``'s node
    features when ``copy_ndata`` and gets the sampled edges' features when ``copy_edata``;
    the sampled edges' ids in ``g`` are in ``edata[EID]`` either way (also when ``g`` is a
    subgraph with its own ``EID``, as DGL).
    """
    check_graph("sample_neighbors", g)
    if g.is_block:
        raise ValueError("sample_neighbors: sample from the original graph, not a block")
    given = _per_type(g, nodes, "sample_neighbors", g.ntypes)
    for t in given:
        g._ntype(t, "dst")
    seeds = {
        t: _ids_for(g, ids, g._num_dst[t], f"sample_neighbors: seed nodes of type {t!r}")
        for t, ids in given.items()
    }
    fanouts = _fanouts(g, fanout)
    rng = _rng(g, seed)
    xp = g._xp()
    chosen = {}
    for c in g._rels:
        if c[2] in seeds and fanouts[c] != 0:
            chosen[c] = _sample_relation(g, c, seeds[c[2]], fanouts[c], replace, rng)
        else:
            chosen[c] = xp.zeros(0, dtype=g.idtype)
    rels = {c: (g._rels[c].src[e], g._rels[c].dst[e]) for c, e in chosen.items()}
    frontier = Graph(rels, g._num_src, validate=False)
    if copy_ndata:  # shared arrays, new frames (as DGL)
        for t, f in g._src_frames.items():
            frontier._src_frames[t]._data.update(f._data)
    for c, e in chosen.items():
        old = g._rels[c].frame
        new = frontier._rels[c].frame
        if copy_edata:
            _gather_frame(old, new, e)
        new._data[EID] = e  # ids in g, as DGL (replacing a subgraph's own EID, copied above)
    return frontier


def _fanout_value(v: Any, what: str) -> int:
    """An int fan-out: ``-1`` (every in-edge, DGL's value) or ``>= 0``."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"sample_neighbors: {what} must be an int, got {v!r}")
    if v < -1:  # (-2 used to mean "every edge" too)
        raise ValueError(f"sample_neighbors: {what} must be -1 (all edges) or >= 0, got {v}")
    return int(v)


def _fanouts(g: Graph, fanout: Any) -> dict[Any, int]:
    """``{canonical etype: fan-out}``; a dict must name every edge type (DGL's rule)."""
    if not isinstance(fanout, Mapping):
        if isinstance(fanout, (bool, np.bool_)) or not isinstance(fanout, (int, np.integer)):
            raise TypeError(f"sample_neighbors: fanout must be an int or a dict, got {fanout!r}")
        value = _fanout_value(fanout, "fanout")
        return {c: value for c in g.canonical_etypes}
    fanouts: dict[Any, int] = {}
    for k, v in fanout.items():
        c = g._rel(k).canonical
        if c in fanouts:
            raise ValueError(f"sample_neighbors: the fan-out of edge type {c!r} is given twice")
        fanouts[c] = _fanout_value(v, f"fanout[{k!r}]")
    missing = [c for c in g.canonical_etypes if c not in fanouts]
    if missing:
        raise ValueError(
            "sample_neighbors: fan-out must be specified for each edge type if a dict is "
            f"provided; missing {missing}"
        )
    return fanouts


def sample_blocks(
    g: Graph,
    seed_nodes: Any,
    fanouts: Sequence[int | Mapping[Any, int]],
    *,
    replace: bool = False,
    seed: Any = None,
    copy_ndata: bool = True,
) -> tuple[Any, Any, list[Graph]]:
    """Sample one block per fan-out, outermost layer first (DGL's ``sample_blocks``).

    Returns ``(input_nodes, output_nodes, blocks)``: ``blocks[0].srcdata[NID]`` are the
    input nodes whose features feed the first layer; ``output_nodes`` the seeds as ids
    (``blocks[-1].dstdata[NID]``, also where a list or a boolean mask was given).
    Each block carries the node features of its nodes, gathered when it is built
    (``copy_ndata=False``: none, for callers that fetch features by ``input_nodes``).
    """
    rng = _rng(g, seed)
    current = seed_nodes
    blocks: list[Graph] = []
    for fanout in reversed(list(fanouts)):
        frontier = sample_neighbors(
            g, current, fanout, replace=replace, seed=rng, copy_ndata=copy_ndata
        )
        block = to_block(frontier, current)
        current = block.srcdata[NID]  # ids in the frontier, which are the ids in g
        blocks.insert(0, block)
    # the seeds as ids (where a list or a boolean mask was given), per given node type
    output_nodes = seed_nodes
    if blocks:
        last = blocks[-1]
        if isinstance(seed_nodes, Mapping):  # per given type (one dst type: its frame)
            output_nodes = {t: last._dst_frames[t][NID] for t in seed_nodes}
        else:
            output_nodes = last.dstdata[NID]
    return current, output_nodes, blocks


class NeighborSampler:
    """Reusable ``sample_blocks(g, seed_nodes)`` with fixed fan-outs (DGL's NeighborSampler).

    Each call draws fresh randomness from one generator seeded once with ``seed``.
    """

    def __init__(
        self,
        fanouts: Sequence[int],
        *,
        replace: bool = False,
        seed: Any = None,
        copy_ndata: bool = True,
    ):
        self.fanouts = list(fanouts)
        self.replace = replace
        self.copy_ndata = copy_ndata
        self._seed = seed
        self._rng: Any = None

    def sample_blocks(self, g: Graph, seed_nodes: Any) -> tuple[Any, Any, list[Graph]]:
        if self._rng is None:
            self._rng = _rng(g, self._seed)
        return sample_blocks(
            g,
            seed_nodes,
            self.fanouts,
            replace=self.replace,
            seed=self._rng,
            copy_ndata=self.copy_ndata,
        )


class MultiLayerFullNeighborSampler(NeighborSampler):
    """Every in-edge on each of ``num_layers`` layers (DGL's ``MultiLayerFullNeighborSampler``):
    the blocks of exact layer-wise inference.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)
    >>> _, _, blocks = MultiLayerFullNeighborSampler(2).sample_blocks(g, np.array([0]))
    >>> [b.num_edges() for b in blocks]
    [2, 1]
    """

    def __init__(self, num_layers: int, *, copy_ndata: bool = True) -> None:
        if isinstance(num_layers, (bool, np.bool_)) or not isinstance(
            num_layers, (int, np.integer)
        ):
            raise TypeError(
                f"MultiLayerFullNeighborSampler: num_layers must be an int, got {num_layers!r}"
            )
        if num_layers < 1:
            raise ValueError(
                f"MultiLayerFullNeighborSampler: num_layers must be >= 1, got {num_layers}"
            )
        super().__init__([-1] * int(num_layers), copy_ndata=copy_ndata)


class NodeDataLoader:
    """Mini-batches of seed nodes and their sampled blocks (DGL's
    ``dgl.dataloading.DataLoader(g, indices, graph_sampler, ...)`` over node ids).

    Args:
        g: the graph to sample from.
        indices: seed node ids (or a boolean mask), or ``{ntype: ids}`` for a
            heterogeneous graph (batches then mix types, in type order, as DGL's).
        graph_sampler: anything with ``sample_blocks(g, seed_nodes)``
            (:class:`NeighborSampler`, :class:`MultiLayerFullNeighborSampler`).
        batch_size, shuffle, drop_last: as DGL's.
        seed: seed of the shuffling generator (the same seed, the same epochs).

    Iterating yields the sampler's ``(input_nodes, output_nodes, blocks)`` per batch;
    ``len(loader)`` is the number of batches per epoch.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])), num_nodes=4)
    >>> loader = NodeDataLoader(g, np.arange(4), NeighborSampler([1], seed=0), batch_size=3)
    >>> len(loader), [out.tolist() for _, out, _ in loader]
    (2, [[0, 1, 2], [3]])
    """

    def __init__(
        self,
        g: Graph,
        indices: Any,
        graph_sampler: Any,
        *,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
    ) -> None:
        where = "NodeDataLoader"
        check_graph(where, g)
        if not hasattr(graph_sampler, "sample_blocks"):
            raise TypeError(
                f"{where}: graph_sampler must have sample_blocks(g, seed_nodes), got "
                f"{type(graph_sampler).__name__}"
            )
        if isinstance(batch_size, (bool, np.bool_)) or not isinstance(
            batch_size, (int, np.integer)
        ):
            raise TypeError(f"{where}: batch_size must be an int, got {batch_size!r}")
        if batch_size < 1:
            raise ValueError(f"{where}: batch_size must be >= 1, got {batch_size}")
        self.g = g
        self.graph_sampler = graph_sampler
        self.batch_size = int(batch_size)
        self.shuffle, self.drop_last = bool(shuffle), bool(drop_last)
        self._rng = np.random.default_rng(seed)
        given = _per_type(g, indices, where, g.ntypes)
        self._typed = isinstance(indices, Mapping)
        self._types: list[Any] = []
        self._ids: list[Any] = []
        for t in [t for t in g.ntypes if t in given]:
            g._ntype(t, "dst")
            ids = _ids_for(g, given[t], g._num_dst[t], f"{where}: seed nodes of type {t!r}")
            self._types.append(t)
            self._ids.append(ids)
        self._counts = [int(ids.shape[0]) for ids in self._ids]

    def __len__(self) -> int:
        total = sum(self._counts)
        return total // self.batch_size if self.drop_last else -(-total // self.batch_size)

    def __iter__(self) -> Any:
        total = sum(self._counts)
        order = self._rng.permutation(total) if self.shuffle else np.arange(total)
        stop = (total // self.batch_size) * self.batch_size if self.drop_last else total
        bounds = np.cumsum([0] + self._counts)
        xp = self.g._xp()
        for start in range(0, stop, self.batch_size):
            chunk = order[start : start + self.batch_size]
            if not self._typed:
                seeds: Any = self._ids[0][xp.asarray(chunk)]
            else:  # positions in the concatenation of the types' ids; the drawn order kept
                seeds = {}
                for i, t in enumerate(self._types):
                    inside = chunk[(chunk >= bounds[i]) & (chunk < bounds[i + 1])] - bounds[i]
                    if inside.size:
                        seeds[t] = self._ids[i][xp.asarray(inside)]
            yield self.graph_sampler.sample_blocks(self.g, seeds)
