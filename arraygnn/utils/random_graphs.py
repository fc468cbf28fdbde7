"""PyG's random graph generators: Erdos-Renyi, stochastic block model, Barabasi-Albert.

Same names, arguments and kind of result as PyG 2.8 (``edge_index`` int64, sorted by
``(row, col)``; undirected graphs hold both directions, coalesced; no self-loops), plus a
keyword-only ``seed``: an int, a ``numpy.random.Generator`` (advanced in place) or
``None`` for fresh entropy. The same seed gives the same graph.

RULE: PyG draws from torch's global generator, so its graphs differ from these for every
seed; the *distribution* is PyG's: each possible edge is present independently with its
probability (Erdos-Renyi, block model), and the Barabasi-Albert process is PyG's step for
step (each new node picks ``num_edges`` endpoints uniformly, with replacement, from all
endpoints so far, its own new ones included; self-loops dropped, duplicates merged).
RULE: no ``n x n`` candidate list is formed (PyG forms one): the number of edges of each
block of candidates is drawn from its binomial law, then that many distinct candidates are
chosen uniformly, which is the same distribution as one coin per candidate. Results are
NumPy arrays.

>>> g = erdos_renyi_graph(5, 0.5, seed=0)
>>> g.dtype, bool((g[0] != g[1]).all())
(dtype('int64'), True)
>>> barabasi_albert_graph(4, 3, seed=0).shape[0]
2
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.ops._common import check_size
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.coalesce import coalesce
from arraygnn.utils.negative_sampling import (
    _undirected_pairs,
    directed_pairs,
    generator,
)

__all__ = ["barabasi_albert_graph", "erdos_renyi_graph", "stochastic_blockmodel_graph"]


def erdos_renyi_graph(
    num_nodes: int, edge_prob: float, directed: bool = False, *, seed: Any = None
) -> Any:
    """PyG's ``erdos_renyi_graph``: each pair ``i != j`` is an edge with probability
    ``edge_prob``, independently (``directed=False``: each unordered pair, returned in both
    directions). ``edge_index`` [2, E] int64, sorted by ``(row, col)``, no self-loops.

    >>> erdos_renyi_graph(3, 1.0).tolist()
    [[0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1]]
    """
    where = "erdos_renyi_graph"
    n = check_size(f"{where}: num_nodes", num_nodes)
    prob = probability_arg(where, "edge_prob", edge_prob)
    directed = bool_arg(where, "directed", directed)
    rng = generator(np, seed, where)
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    ids = _choose(rng, pairs, prob)
    if directed:
        row, col = directed_pairs(ids, np.int64(n))
        return np.stack([row, col]).astype(np.int64)
    row, col = _undirected_pairs(ids, np.int64(n))
    return _both_ways(row, col, n)


def stochastic_blockmodel_graph(
    block_sizes: Any, edge_probs: Any, directed: bool = False, *, seed: Any = None
) -> Any:
    """PyG's ``stochastic_blockmodel_graph``: nodes ``0 .. sum(block_sizes) - 1`` in
    consecutive blocks; a pair ``i != j`` with ``i`` in block ``a`` and ``j`` in block
    ``b`` is an edge with probability ``edge_probs[a][b]``, independently.

    ``block_sizes`` [K] non-negative ints (list or array), ``edge_probs`` [K, K] in
    ``[0, 1]``, symmetric when ``directed=False`` (each unordered pair drawn once, both
    directions returned). ``edge_index`` [2, E] int64 sorted by ``(row, col)``, no
    self-loops. Work ``O(K^2 + E)``.

    >>> stochastic_blockmodel_graph([2, 1], [[1.0, 0.0], [0.0, 1.0]]).tolist()
    [[0, 1], [1, 0]]
    """
    where = "stochastic_blockmodel_graph"
    sizes = _block_sizes(where, block_sizes)
    probs = _block_probs(where, edge_probs, sizes.shape[0])
    directed = bool_arg(where, "directed", directed)
    if not directed and not np.allclose(probs, probs.T):
        raise ValueError(f"{where}: edge_probs must be symmetric when directed=False")
    rng = generator(np, seed, where)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    n = int(starts[-1])
    rows, cols = [], []
    for a in range(sizes.shape[0]):
        for b in range(sizes.shape[0]) if directed else range(a, sizes.shape[0]):
            sa, sb = int(sizes[a]), int(sizes[b])
            if a != b:
                ids = _choose(rng, sa * sb, float(probs[a, b]))
                r, c = ids // max(sb, 1), ids % max(sb, 1)
            elif directed:
                ids = _choose(rng, sa * (sa - 1), float(probs[a, a]))
                r, c = directed_pairs(ids, np.int64(sa))
            else:
                ids = _choose(rng, sa * (sa - 1) // 2, float(probs[a, a]))
                r, c = _undirected_pairs(ids, np.int64(sa))
            rows.append(r + starts[a])
            cols.append(c + starts[b])
    row = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    col = np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, np.int64)
    if not directed:
        return _both_ways(row, col, n)
    return coalesce(np.stack([row, col]), num_nodes=n)


def barabasi_albert_graph(num_nodes: int, num_edges: int, *, seed: Any = None) -> Any:
    """PyG's ``barabasi_albert_graph``: preferential attachment, PyG's process exactly.

    Starts from edges ``i -> perm[i]`` for ``i < num_edges`` (a random permutation); each
    later node ``i`` adds ``num_edges`` edges ``i -> t`` whose targets are drawn uniformly,
    with replacement, from every endpoint listed so far (``i``'s own new sources included,
    so a high-degree node is picked more often). Self-loops are dropped and the graph is
    made undirected and coalesced (duplicates merged), so the result has at most
    ``2 * num_edges * (num_nodes - num_edges + 1)`` entries. ``0 < num_edges < num_nodes``
    (as PyG). ``edge_index`` [2, E] int64, sorted by ``(row, col)``.

    How: the endpoint list's length at each step does not depend on the draws, so all
    draws are made at once; a drawn position is either a known source or an earlier
    target, resolved by pointer jumping (a few vectorised rounds, no loop over nodes).

    >>> g = barabasi_albert_graph(10, 2, seed=0)
    >>> bool((g[0] != g[1]).all()), g.shape[1] <= 2 * 2 * 9
    (True, True)
    """
    where = "barabasi_albert_graph"
    n = check_size(f"{where}: num_nodes", num_nodes)
    m = check_size(f"{where}: num_edges", num_edges)
    if not 0 < m < n:
        raise ValueError(
            f"{where}: num_edges must satisfy 0 < num_edges < num_nodes, got num_edges={m} "
            f"and num_nodes={n}"
        )
    rng = generator(np, seed, where)
    steps = n - m
    total = m + steps * m  # edges: m initial + m per new node
    row = np.concatenate([np.arange(m), np.repeat(np.arange(m, n), m)]).astype(np.int64)
    # at step k (node m + k) the list holds row[: m + (k + 1) m] then col[: m + k m]
    k = np.repeat(np.arange(steps, dtype=np.int64), m)
    num_rows = m + (k + 1) * m
    pool = num_rows + m + k * m
    pos = np.minimum((rng.random(steps * m) * pool).astype(np.int64), pool - 1)
    col = np.full(total, -1, dtype=np.int64)
    col[:m] = rng.permutation(m)
    from_row = pos < num_rows
    later = col[m:]
    later[from_row] = row[pos[from_row]]
    link = np.full(total, -1, dtype=np.int64)  # index into col still to be resolved
    link[m:][~from_row] = (pos - num_rows)[~from_row]
    open_ = np.flatnonzero(link >= 0)
    while open_.shape[0]:
        target = link[open_]
        value, jump = col[target], link[target]  # read before this round's writes
        done = value >= 0
        col[open_[done]] = value[done]
        link[open_[done]] = -1
        open_ = open_[~done]
        link[open_] = jump[~done]  # follow two links per round
    keep = row != col
    return _both_ways(row[keep], col[keep], n)


def _choose(rng: np.random.Generator, num: int, prob: float) -> Any:
    """Sorted distinct ids of ``[0, num)``, each present with probability ``prob``
    independently (a binomial count, then a uniform subset of that size)."""
    if num <= 0 or prob <= 0.0:
        return np.zeros(0, dtype=np.int64)
    if prob >= 1.0:
        return np.arange(num, dtype=np.int64)
    count = int(rng.binomial(num, prob))
    if count > num // 2:  # choose the absent ids instead
        absent = np.zeros(num, dtype=bool)
        absent[rng.choice(num, num - count, replace=False)] = True
        return np.flatnonzero(~absent).astype(np.int64)
    return np.sort(rng.choice(num, count, replace=False).astype(np.int64))


def _both_ways(row: Any, col: Any, n: int) -> Any:
    """Both directions of the pairs, coalesced (PyG's ``to_undirected``)."""
    ei = np.stack([np.concatenate([row, col]), np.concatenate([col, row])]).astype(np.int64)
    return coalesce(ei, num_nodes=n)


def probability_arg(where: str, name: str, value: Any) -> float:
    """A probability: a real number in ``[0, 1]`` (``TypeError`` / ``ValueError`` naming
    ``where`` and ``name`` otherwise). Shared by the random graphs, the augmentations and
    ``get_ppr``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{where}: {name} must be a number between 0 and 1, got {value!r}")
    value = float(value)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{where}: {name} must be between 0 and 1, got {value}")
    return value


def _block_sizes(where: str, block_sizes: Any) -> Any:
    sizes = np.asarray(block_sizes.get() if hasattr(block_sizes, "get") else block_sizes)
    if sizes.dtype.kind not in "iu" or sizes.ndim != 1:
        raise TypeError(
            f"{where}: block_sizes must be a list or 1-D array of ints, got {block_sizes!r}"
        )
    if sizes.size and int(sizes.min()) < 0:
        raise ValueError(f"{where}: block_sizes must be non-negative, got {sizes.tolist()}")
    return sizes.astype(np.int64)


def _block_probs(where: str, edge_probs: Any, k: int) -> Any:
    probs = np.asarray(edge_probs.get() if hasattr(edge_probs, "get") else edge_probs)
    if probs.dtype.kind not in "fiu":
        raise TypeError(f"{where}: edge_probs must hold numbers, got dtype {probs.dtype}")
    if probs.shape != (k, k):
        raise ValueError(
            f"{where}: edge_probs must have shape ({k}, {k}) (one row and column per "
            f"block), got {probs.shape}"
        )
    probs = probs.astype(np.float64)
    if probs.size and not bool(((probs >= 0) & (probs <= 1)).all()):
        raise ValueError(f"{where}: edge_probs must lie between 0 and 1")
    return probs
