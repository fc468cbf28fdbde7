"""Random walks on a DGL-style :class:`~arraygnn.graph.Graph` (DGL's ``dgl.sampling``
``random_walk``, ``pack_traces`` and ``node2vec_random_walk``).

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.random_walks import random_walk
>>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)  # a directed cycle
>>> traces, types = random_walk(g, np.array([0, 2]), length=4, seed=0)
>>> traces
array([[0, 1, 2, 0, 1],
       [2, 0, 1, 2, 0]])
>>> types
array([0, 0, 0, 0, 0])

RULE: a walk follows out-edges; step ``i`` takes relation ``metapath[i]``. A node with no
      out-edge of that relation (or only edges of probability 0) ends the walk; the rest
      of its trace and edge ids are ``-1`` (DGL's padding).
RULE: with ``restart_prob``, each step first draws the edge, then stops the walk with
      probability ``restart_prob`` (or ``restart_prob[i]``) before taking it (DGL's order).
RULE: ``prob`` names an edge feature; relations that lack it are walked uniformly (as
      DGL), a name that no relation on the metapath has is a ``KeyError``.
RULE: the same ``seed`` gives the same walks, whatever the number of threads: walk ``w``
      draws from its own SplitMix64 stream of ``(seed, w)`` (the Numba kernels in
      :mod:`arraygnn.kernels.cpu.random_walk`, compiled on first use). CPU graphs only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.graph.core import Graph, _as_ids, _check_range, check_graph

__all__ = ["random_walk", "pack_traces", "node2vec_random_walk"]


def _seed64(seed: Any, where: str) -> np.uint64:
    """A 64-bit stream seed from an int, a NumPy ``Generator`` or ``None`` (fresh)."""
    if isinstance(seed, np.random.Generator):
        return np.uint64(int(seed.integers(2**63)))
    if seed is None:
        return np.uint64(int(np.random.default_rng().integers(2**63)))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{where}: seed must be an int, a numpy Generator or None, got {seed!r}")
    return np.uint64(int(seed) % 2**64)


def _cpu_graph(g: Any, where: str) -> None:
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: walk the original graph, not a block")
    if g.device != "cpu":
        raise ValueError(f"{where}: the graph is on {g.device}; random walks run on the CPU")


def _seed_nodes(g: Graph, nodes: Any, ntype: str, where: str) -> np.ndarray:
    """Start nodes: 1-D integer ids of ``ntype`` (repeats allowed: one walk each)."""
    if isinstance(nodes, (bool, np.bool_)) or (hasattr(nodes, "dtype") and nodes.dtype == bool):
        raise TypeError(f"{where}: nodes must be integer ids, got booleans")
    ids = _as_ids(nodes, f"{where}: nodes")
    if not isinstance(ids, np.ndarray):
        raise TypeError(f"{where}: nodes must be a NumPy array or a list on a CPU graph")
    _check_range(ids, g._num_src[ntype], f"{where}: nodes (of type {ntype!r})")
    return ids


def _out_csr(g: Graph, canonical: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, destinations, edge ids)`` of relation ``canonical``'s out-edges, rows in
    source order and edge-id order within a row (the cached source-sorted CSR)."""
    from arraygnn.graph.query import _reverse_csr

    rev = _reverse_csr(g, g._rels[canonical])
    return rev.indptr, rev.indices, rev.perm


def _edge_prob(g: Graph, canonical: Any, name: str, where: str) -> np.ndarray:
    """The relation's edge probabilities: 1-D float, finite, non-negative."""
    w = g._rels[canonical].frame[name]
    if not isinstance(w, np.ndarray):
        raise TypeError(f"{where}: prob {name!r} must be a NumPy array on a CPU graph")
    if w.ndim != 1:
        raise ValueError(
            f"{where}: prob {name!r} of edge type {canonical!r} must be 1-D (one value "
            f"per edge), got shape {w.shape}"
        )
    if w.dtype.kind != "f":
        raise TypeError(
            f"{where}: prob {name!r} of edge type {canonical!r} must be floating point, "
            f"got {w.dtype}"
        )
    if w.size and not (np.isfinite(w).all() and float(w.min()) >= 0):
        raise ValueError(
            f"{where}: prob {name!r} of edge type {canonical!r} must be finite and non-negative"
        )
    return w


def _prefix_sums(indptr: np.ndarray, perm: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per-row inclusive prefix sums of the CSR slots' weights ``weights[perm]`` (float64)."""
    from arraygnn.kernels.cpu.random_walk import row_prefix_sums

    out = np.empty(perm.shape[0], dtype=np.float64)
    row_prefix_sums(indptr, perm, weights, out)
    return out


def _sorted_rows(g: Graph, canonical: Any, indptr: np.ndarray, indices: np.ndarray) -> Any:
    """The out-CSR's destinations with each row sorted, built once per relation (the
    edges of a graph do not change; its CSRs are cached the same way)."""
    rel = g._rels[canonical]
    cached = getattr(rel, "_rev_sorted_indices", None)
    if cached is None:
        from arraygnn.kernels.cpu.random_walk import sort_rows

        cached = np.empty_like(indices)
        sort_rows(indptr, indices, cached)
        rel._rev_sorted_indices = cached
    return cached


def _metapath(g: Graph, metapath: Any, length: Any, where: str) -> list[Any]:
    """The walk's canonical edge types, one per step."""
    if metapath is None:
        if len(g.canonical_etypes) > 1 or len(g.ntypes) > 1:
            raise ValueError(f"{where}: metapath not specified and the graph is not homogeneous")
        if length is None:
            raise ValueError(f"{where}: specify either the metapath or the walk length")
        if isinstance(length, (bool, np.bool_)) or not isinstance(length, (int, np.integer)):
            raise TypeError(f"{where}: length must be an int, got {length!r}")
        if length < 0:
            raise ValueError(f"{where}: length must be >= 0, got {length}")
        if not g.canonical_etypes:
            raise ValueError(f"{where}: the graph has no edge type to walk")
        return [g.canonical_etypes[0]] * int(length)
    if length is not None:
        raise ValueError(f"{where}: metapath and length are mutually exclusive")
    if isinstance(metapath, (str, tuple)) or not isinstance(metapath, Sequence):
        raise TypeError(f"{where}: metapath must be a list of edge types, got {metapath!r}")
    if len(metapath) == 0:
        raise ValueError(f"{where}: metapath must name at least one edge type")
    from arraygnn.graph.structure import _named_rel

    path = [_named_rel(where, f"metapath[{i}]", g, e).canonical for i, e in enumerate(metapath)]
    for i in range(1, len(path)):
        if path[i][0] != path[i - 1][2]:
            raise ValueError(
                f"{where}: source of edge type #{i} {path[i]!r} does not match the "
                f"destination of edge type #{i - 1} {path[i - 1]!r}"
            )
    return path


def _restart(restart_prob: Any, steps: int, where: str) -> np.ndarray:
    """``[]`` (no restarts), or a per-step float64 array of length ``steps``."""
    if restart_prob is None:
        return np.zeros(0, dtype=np.float64)
    if isinstance(restart_prob, (bool, np.bool_)):
        raise TypeError(f"{where}: restart_prob must be a float or an array, got a bool")
    if isinstance(restart_prob, (int, float, np.integer, np.floating)):
        r = float(restart_prob)
        if not 0 <= r < 1:  # DGL's check for a scalar
            raise ValueError(f"{where}: restart_prob must be in [0, 1), got {r}")
        return np.full(steps, r, dtype=np.float64)
    arr = np.asarray(restart_prob)
    if arr.dtype.kind != "f":
        raise TypeError(f"{where}: restart_prob must be floating point, got {arr.dtype}")
    if arr.shape != (steps,):
        raise ValueError(
            f"{where}: restart_prob must have one value per step, shape ({steps},), got {arr.shape}"
        )
    if arr.size and not (np.isfinite(arr).all() and arr.min() >= 0 and arr.max() <= 1):
        raise ValueError(f"{where}: restart_prob values must be in [0, 1]")
    return arr.astype(np.float64)


def random_walk(
    g: Graph,
    nodes: Any,
    *,
    metapath: Sequence[Any] | None = None,
    length: int | None = None,
    prob: str | None = None,
    restart_prob: Any = None,
    return_eids: bool = False,
    seed: Any = None,
) -> tuple[np.ndarray, ...]:
    """One walk per entry of ``nodes`` (repeat a node for several walks), DGL's
    ``dgl.sampling.random_walk``.

    Args:
        g: a CPU :class:`Graph`.
        nodes: start node ids, of the source type of ``metapath[0]``.
        metapath: edge types (names or canonical triples), one per step; or
        length: the number of steps on a graph with one node and one edge type.
        prob: name of an edge feature of non-negative, unnormalised probabilities.
        restart_prob: probability of stopping before each step: a float in ``[0, 1)``,
            or an array with one value in ``[0, 1]`` per step.
        return_eids: also return the traversed edge ids (within their edge type).
        seed: an int, a NumPy ``Generator`` or ``None``.

    Returns:
        ``(traces, types)`` or ``(traces, eids, types)``: ``traces`` [n, steps + 1] node
        ids (``traces[:, 0] == nodes``), ``eids`` [n, steps], both ``-1`` after a walk
        stops, in the graph's id dtype; ``types`` [steps + 1], the node type id (index in
        ``g.ntypes``) of each column.
    """
    where = "random_walk"
    _cpu_graph(g, where)
    path = _metapath(g, metapath, length, where)
    rels = list(dict.fromkeys(path))  # the relations walked, in first-use order
    start = path[0][0] if path else g.ntypes[0]
    seeds = _seed_nodes(g, nodes, start, where)
    restart = _restart(restart_prob, len(path), where)
    if prob is not None and not isinstance(prob, str):
        raise TypeError(f"{where}: prob must be an edge feature name, got {prob!r}")
    if prob is not None and not any(prob in g._rels[c].frame for c in rels):
        raise KeyError(f"{where}: no edge type on the metapath has the feature {prob!r}")
    s64 = _seed64(seed, where)

    csrs = [_out_csr(g, c) for c in rels]
    has_prob = [prob is not None and prob in g._rels[c].frame for c in rels]
    cums = [
        _prefix_sums(ip, perm, _edge_prob(g, c, prob, where)) if weighted else None
        for c, (ip, _, perm), weighted in zip(rels, csrs, has_prob)
    ]
    if len(rels) == 1:  # the common case: the cached CSR as it is, no copies
        indptr, indices, eids = csrs[0]
        base = np.zeros(1, dtype=np.int64)
        cum = cums[0] if has_prob[0] else np.zeros(0)
    elif rels:  # one CSR of the relations walked, each relation's rows after the last's
        offsets = np.cumsum([0] + [int(ind.shape[0]) for _, ind, _ in csrs])
        parts = [ip[:-1].astype(np.int64) + off for (ip, _, _), off in zip(csrs, offsets)]
        indptr = np.concatenate(parts + [offsets[-1:].astype(np.int64)])
        indices = np.concatenate([ind.astype(np.int64) for _, ind, _ in csrs])
        eids = np.concatenate([perm.astype(np.int64) for _, _, perm in csrs])
        base = np.cumsum([0] + [int(ip.shape[0]) - 1 for ip, _, _ in csrs])[:-1]
        cum = np.zeros(0)
        if any(has_prob):
            cum = np.concatenate(
                [
                    cm if cm is not None else np.zeros(ind.shape[0])
                    for (_, ind, _), cm in zip(csrs, cums)
                ]
            )
    idtype = g.idtype
    n, steps = int(seeds.shape[0]), len(path)
    traces = np.empty((n, steps + 1), dtype=idtype)
    out_eids = np.empty((n, steps) if return_eids else (0, 0), dtype=idtype)
    if steps == 0:
        traces[:, 0] = seeds
    else:
        from arraygnn.kernels.cpu.random_walk import metapath_walks

        local = {c: i for i, c in enumerate(rels)}
        metapath_walks(
            seeds,
            np.array([local[c] for c in path], dtype=np.int64),
            np.asarray(base, dtype=np.int64),
            indptr,
            indices,
            eids,
            cum,
            np.array(has_prob, dtype=np.bool_),
            restart,
            s64,
            traces,
            out_eids,
        )
    ntype_id = {t: i for i, t in enumerate(g.ntypes)}
    types = np.array([ntype_id[start]] + [ntype_id[c[2]] for c in path], dtype=idtype)
    return (traces, out_eids, types) if return_eids else (traces, types)


def pack_traces(traces: Any, types: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Drop the ``-1`` padding of :func:`random_walk`'s traces (DGL's ``pack_traces``).

    Returns ``(concat_vids, concat_types, lengths, offsets)``: each trace up to its first
    ``-1``, all concatenated (the traces' dtype), their node types (the dtype of
    ``types``), each trace's length and its offset in the concatenation (int64, as DGL;
    trace ``i`` is ``concat_vids[offsets[i]:offsets[i] + lengths[i]]``).

    >>> import numpy as np
    >>> traces = np.array([[0, 1, -1, -1], [0, 1, 1, 3]])
    >>> vids, vtypes, lengths, offsets = pack_traces(traces, np.array([0, 0, 1, 0]))
    >>> vids, vtypes, lengths, offsets
    (array([0, 1, 0, 1, 1, 3]), array([0, 0, 0, 0, 1, 0]), array([2, 4]), array([0, 2]))
    """
    where = "pack_traces"
    for name, a, ndim in (("traces", traces, 2), ("types", types, 1)):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{where}: {name} must be a NumPy (CPU) array, got {type(a).__name__}")
        if a.dtype not in (np.int32, np.int64):
            raise TypeError(f"{where}: {name} must be int32 or int64, got {a.dtype}")
        if a.ndim != ndim:
            raise ValueError(f"{where}: {name} must be {ndim}-D, got shape {a.shape}")
    if types.shape[0] != traces.shape[1]:
        raise ValueError(
            f"{where}: types has {types.shape[0]} entries for traces of {traces.shape[1]} columns"
        )
    valid = np.cumsum(traces == -1, axis=1) == 0  # DGL's Pack: up to the first -1
    lengths = valid.sum(axis=1, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    vids = traces[valid]
    vtypes = np.broadcast_to(types, traces.shape)[valid]
    return vids, vtypes, lengths, offsets


def node2vec_random_walk(
    g: Graph,
    nodes: Any,
    p: float,
    q: float,
    walk_length: int,
    prob: str | None = None,
    return_eids: bool = False,
    *,
    seed: Any = None,
) -> Any:
    """node2vec walks (DGL's ``dgl.sampling.node2vec_random_walk``): from ``curr`` reached
    from ``prev``, the next node ``x`` is drawn with probability proportional to the
    edge's weight (1 without ``prob``) times ``1/p`` if ``x == prev``, ``1`` if ``g`` has
    an edge ``x -> prev``, ``1/q`` otherwise (the first step: the weight alone).

    Drawn by rejection as DGL (an edge, then acceptance), ``O(log deg)`` per try for the
    edge check over each row's sorted neighbours. Returns ``traces`` [n, walk_length + 1]
    (``-1`` after a dead end), and ``eids`` [n, walk_length] when ``return_eids``.
    Homogeneous CPU graphs; ``p`` and ``q`` positive and finite.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 1]), np.array([1, 2, 0])), num_nodes=3)
    >>> node2vec_random_walk(g, np.array([2, 0]), 1.0, 1.0, 3, seed=0)
    array([[ 2, -1, -1, -1],
           [ 0,  1,  2, -1]])
    """
    where = "node2vec_random_walk"
    _cpu_graph(g, where)
    if len(g.canonical_etypes) != 1 or len(g.ntypes) != 1:
        raise ValueError(f"{where}: the graph must be homogeneous (one node and one edge type)")
    for name, v in (("p", p), ("q", q)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"{where}: {name} must be a number, got {v!r}")
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"{where}: {name} must be positive and finite, got {v}")
    if isinstance(walk_length, (bool, np.bool_)) or not isinstance(walk_length, (int, np.integer)):
        raise TypeError(f"{where}: walk_length must be an int, got {walk_length!r}")
    if walk_length < 0:
        raise ValueError(f"{where}: walk_length must be >= 0, got {walk_length}")
    c = g.canonical_etypes[0]
    seeds = _seed_nodes(g, nodes, c[0], where)
    if prob is not None and not isinstance(prob, str):
        raise TypeError(f"{where}: prob must be an edge feature name, got {prob!r}")
    if prob is not None and prob not in g._rels[c].frame:
        raise KeyError(f"{where}: the graph has no edge feature {prob!r}")
    s64 = _seed64(seed, where)
    from arraygnn.kernels.cpu.random_walk import node2vec_walks

    ip, ind, perm = _out_csr(g, c)
    if prob is not None:
        cum = _prefix_sums(ip, perm, _edge_prob(g, c, prob, where))
    else:
        cum = np.zeros(0, dtype=np.float64)
    sorted_ind = _sorted_rows(g, c, ip, ind)
    n = int(seeds.shape[0])
    traces = np.empty((n, int(walk_length) + 1), dtype=g.idtype)
    out_eids = np.empty((n, int(walk_length)) if return_eids else (0, 0), dtype=g.idtype)
    node2vec_walks(
        seeds,
        int(walk_length),
        ip,
        ind,
        sorted_ind,
        perm,
        cum,
        prob is not None,
        float(p),
        float(q),
        s64,
        traces,
        out_eids,
    )
    return (traces, out_eids) if return_eids else traces
