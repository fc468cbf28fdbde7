"""PyG's graph augmentations: ``dropout_edge``, ``dropout_node``, ``dropout_path``,
``mask_feature``, ``shuffle_node`` and ``add_random_edge``.

PyG's arguments and results (what is dropped, masked or added, and the shape and meaning
of every returned mask / index), plus a keyword-only ``seed``: an int, a
``numpy.random.Generator`` (advanced in place) or ``None`` for fresh entropy; on CuPy a
device generator is seeded from it. The same seed gives the same result.

RULE: PyG draws from torch's global generator, so the kept / masked / added items differ
from PyG's for every seed; each is drawn with PyG's probability (an edge kept when its
uniform draw is ``>= p``, a node when it is ``> p``, a feature kept when ``>= p``).
RULE: ``training=False`` (or ``p == 0``) returns the input unchanged, as PyG, but as a
fresh copy (PyG returns the input object itself), with PyG's all-True masks.
RULE: nothing passed in is modified; ``num_nodes`` left out is ``edge_index.max() + 1``.

``dropout_path`` walks with :func:`arraygnn.random_walks.random_walk` (a Numba kernel, NumPy
arrays only) where PyG needs pyg-lib's.

>>> import numpy as np
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> kept, mask = dropout_edge(ei, p=0.5, seed=0)
>>> kept.shape[0], mask.dtype, bool((kept == ei[:, mask]).all())
(2, dtype('bool'), True)
>>> dropout_edge(ei, training=False)[0].tolist() == ei.tolist()
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn.utils._checks import (
    batch_counts,
    bool_arg,
    check_array_arg,
    edge_index_arg,
    num_nodes_arg,
    same_device,
)
from arraygnn.utils.negative_sampling import generator, negative_sampling
from arraygnn.utils.random_graphs import probability_arg
from arraygnn.utils.subgraph import subgraph

__all__ = [
    "add_random_edge",
    "dropout_edge",
    "dropout_node",
    "dropout_path",
    "mask_feature",
    "shuffle_node",
]

_MODES = ("row", "col", "all")


def dropout_edge(
    edge_index: Any,
    p: float = 0.5,
    force_undirected: bool = False,
    training: bool = True,
    *,
    seed: Any = None,
) -> tuple[Any, Any]:
    """Drop each edge with probability ``p``: ``(kept edge_index, edge_mask)``.

    ``edge_mask`` [E] bool marks the kept edges. With ``force_undirected=True`` only the
    edges ``row <= col`` can be kept (the others are dropped), each kept one is returned in
    both directions (the kept edges, then the same flipped), and ``edge_mask`` is, as PyG,
    the int64 **positions** of the kept edges, listed twice.

    >>> import numpy as np
    >>> ei, pos = dropout_edge(np.array([[0, 1], [1, 0]]), p=0.0, force_undirected=True)
    >>> ei.tolist(), pos.tolist()
    ([[0, 1], [1, 0]], [True, True])
    """
    where = "dropout_edge"
    xp = edge_index_arg(where, edge_index)
    p = probability_arg(where, "p", p)
    force_undirected = bool_arg(where, "force_undirected", force_undirected)
    num_edges = int(edge_index.shape[1])
    if not bool_arg(where, "training", training) or p == 0.0:
        return edge_index.copy(), xp.ones(num_edges, dtype=bool)
    gen = generator(xp, seed, where)
    edge_mask = gen.random(num_edges) >= p
    if force_undirected:
        edge_mask &= edge_index[0] <= edge_index[1]
    kept = edge_index[:, edge_mask]
    if not force_undirected:
        return kept, edge_mask
    positions = xp.nonzero(edge_mask)[0].astype(np.int64)
    return (
        xp.concatenate([kept, kept[::-1]], axis=1),
        xp.concatenate([positions, positions]),
    )


def dropout_node(
    edge_index: Any,
    p: float = 0.5,
    num_nodes: int | None = None,
    training: bool = True,
    relabel_nodes: bool = False,
    *,
    seed: Any = None,
) -> tuple[Any, Any, Any]:
    """Drop each node with probability ``p``, with its edges:
    ``(edge_index, edge_mask [E] bool, node_mask [N] bool)``.

    A node is kept when its uniform draw is ``> p`` (PyG's rule); the kept edges are those
    whose two ends are kept (:func:`~arraygnn.utils.subgraph`), renumbered among the kept
    nodes with ``relabel_nodes=True``. ``num_nodes`` defaults to ``edge_index.max() + 1``.

    >>> import numpy as np
    >>> ei, edge_mask, node_mask = dropout_node(np.array([[0, 1], [1, 2]]), p=1.0, seed=0)
    >>> ei.shape, edge_mask.tolist(), node_mask.tolist()
    ((2, 0), [False, False], [False, False, False])
    """
    where = "dropout_node"
    xp = edge_index_arg(where, edge_index)
    p = probability_arg(where, "p", p)
    relabel_nodes = bool_arg(where, "relabel_nodes", relabel_nodes)
    n = num_nodes_arg(where, edge_index, num_nodes)
    if not bool_arg(where, "training", training) or p == 0.0:
        num_edges = int(edge_index.shape[1])
        return edge_index.copy(), xp.ones(num_edges, dtype=bool), xp.ones(n, dtype=bool)
    gen = generator(xp, seed, where)
    node_mask = gen.random(n) > p
    out, _, edge_mask = subgraph(
        node_mask, edge_index, relabel_nodes=relabel_nodes, num_nodes=n, return_edge_mask=True
    )
    return out, edge_mask, node_mask


def dropout_path(
    edge_index: Any,
    p: float = 0.2,
    walks_per_node: int = 1,
    walk_length: int = 3,
    num_nodes: int | None = None,
    is_sorted: bool = False,
    training: bool = True,
    *,
    seed: Any = None,
) -> tuple[Any, Any]:
    """Drop the edges on random walks (DropEdge's path variant, PyG's ``dropout_path``):
    ``(kept edge_index, edge_mask)``.

    Each edge is a walk start with probability ``p`` (its source starts ``walks_per_node``
    uniform out-edge walks of ``walk_length`` steps); every edge whose ``(source, target)``
    pair a walk steps along is dropped (parallel copies too, as PyG's). A walk stops at a
    node without out-edges. ``edge_mask`` [E] bool marks the kept edges, in the input's
    order; ``is_sorted`` is accepted for PyG's signature (no sort is needed here). NumPy
    arrays only (the walk kernel runs on the CPU).

    >>> import numpy as np
    >>> cycle = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])  # one out-edge per node
    >>> kept, mask = dropout_path(cycle, p=1.0, walk_length=1, seed=0)
    >>> kept.shape, mask.tolist()
    ((2, 0), [False, False, False, False])
    """
    from arraygnn.graph import graph
    from arraygnn.random_walks import random_walk
    from arraygnn.utils._checks import check_size

    where = "dropout_path"
    xp = edge_index_arg(where, edge_index)
    p = probability_arg(where, "p", p)
    walks = check_size(f"{where}: walks_per_node", walks_per_node)
    length = check_size(f"{where}: walk_length", walk_length)
    bool_arg(where, "is_sorted", is_sorted)
    num_edges = int(edge_index.shape[1])
    if not bool_arg(where, "training", training) or p == 0.0:
        return edge_index.copy(), xp.ones(num_edges, dtype=bool)
    if xp is not np:
        raise TypeError(f"{where}: the random walks run on the CPU; pass NumPy arrays")
    n = num_nodes_arg(where, edge_index, num_nodes)
    gen = generator(xp, seed, where)
    src = edge_index[0].astype(np.int64)
    dst = edge_index[1].astype(np.int64)
    start = np.tile(src[gen.random(num_edges) <= p], walks)
    if start.shape[0] == 0 or length == 0:
        return edge_index.copy(), np.ones(num_edges, dtype=bool)
    g = graph((src, dst), num_nodes=n)
    traces = random_walk(g, start, length=length, seed=gen)[0].astype(np.int64)
    step_src, step_dst = traces[:, :-1].reshape(-1), traces[:, 1:].reshape(-1)
    taken = step_dst >= 0
    walked = unique_ids(np, step_src[taken] * n + step_dst[taken])
    edge_mask = ~np.isin(src * n + dst, walked)
    return edge_index[:, edge_mask], edge_mask


def mask_feature(
    x: Any,
    p: float = 0.5,
    mode: str = "col",
    fill_value: float = 0.0,
    training: bool = True,
    *,
    seed: Any = None,
) -> tuple[Any, Any]:
    """Mask features with probability ``p``: ``(x with masked entries set to fill_value,
    mask)`` where ``mask`` is True where ``x`` is kept.

    ``mode='col'``: whole feature columns, ``mask`` [1, F]; ``'row'``: whole nodes, ``mask``
    [N, 1]; ``'all'``: single entries, ``mask`` of ``x``'s shape. ``x`` [N, F] (``'all'``:
    any shape); the result keeps ``x``'s dtype (``fill_value`` cast to it, as torch's
    ``masked_fill``).

    >>> import numpy as np
    >>> out, mask = mask_feature(np.ones((2, 3)), p=1.0, mode="row", fill_value=-1.0)
    >>> out.tolist(), mask.shape
    ([[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]], (2, 1))
    """
    where = "mask_feature"
    check_array_arg(where, "x", x)
    p = probability_arg(where, "p", p)
    if mode not in _MODES:
        raise ValueError(f"{where}: mode must be one of {_MODES}, got {mode!r}")
    if isinstance(fill_value, (bool, np.bool_)) or not isinstance(
        fill_value, (int, float, np.number)
    ):
        raise TypeError(f"{where}: fill_value must be a number, got {fill_value!r}")
    xp = same_device(where, x=x)
    if not bool_arg(where, "training", training) or p == 0.0:
        return x.copy(), xp.ones(x.shape, dtype=bool)
    if mode != "all" and x.ndim != 2:
        raise ValueError(
            f"{where}: x must have shape [N, F] for mode={mode!r}, got {tuple(x.shape)}"
        )
    gen = generator(xp, seed, where)
    if mode == "row":
        mask = (gen.random(int(x.shape[0])) >= p).reshape(-1, 1)
    elif mode == "col":
        mask = (gen.random(int(x.shape[1])) >= p).reshape(1, -1)
    else:
        mask = gen.random(tuple(int(s) for s in x.shape)).reshape(x.shape) >= p
    return xp.where(mask, x, x.dtype.type(fill_value)), mask


def shuffle_node(
    x: Any, batch: Any = None, training: bool = True, *, seed: Any = None
) -> tuple[Any, Any]:
    """Shuffle the rows of ``x`` [N, ...] (within each graph with ``batch``):
    ``(x[perm], perm)``, ``perm`` [N] int64.

    ``batch`` [N] sorted graph ids (PyG's layout; checked): every graph's rows are permuted
    among themselves, uniformly (one sort of random keys per call, no loop over graphs).
    ``training=False``: ``perm = arange(N)``.

    >>> import numpy as np
    >>> out, perm = shuffle_node(np.arange(4.0), np.array([0, 0, 1, 1]), seed=0)
    >>> sorted(perm[:2].tolist()), sorted(perm[2:].tolist())
    ([0, 1], [2, 3])
    """
    where = "shuffle_node"
    check_array_arg(where, "x", x)
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension (rows)")
    xp = same_device(where, x=x, batch=batch)
    num = int(x.shape[0])
    if batch is not None:
        batch_counts(where, xp, batch, num, None, 0)
    if not bool_arg(where, "training", training):
        return x.copy(), xp.arange(num, dtype=np.int64)
    gen = generator(xp, seed, where)
    keys = gen.random(num)
    if batch is None:
        perm = xp.argsort(keys)
    else:
        perm = xp.lexsort(xp.stack([keys, batch.astype(np.float64)]))
    perm = perm.astype(np.int64)
    return x[perm], perm


def add_random_edge(
    edge_index: Any,
    p: float = 0.5,
    force_undirected: bool = False,
    num_nodes: int | tuple[int, int] | None = None,
    training: bool = True,
    *,
    seed: Any = None,
) -> tuple[Any, Any]:
    """Add ``round(p * E)`` random non-edges: ``(edge_index with them appended, added)``.

    The new edges come from :func:`~arraygnn.utils.negative_sampling` (distinct pairs
    that are not edges, no self-loops; ``num_nodes=(num_src, num_dst)`` for a bipartite
    graph). ``force_undirected=True`` adds ``round(p * E) // 2`` pairs in both directions
    (not for bipartite graphs: ``ValueError``; PyG raises ``RuntimeError``). ``p`` in
    ``[0, 1]``. The added ids are cast to ``edge_index``'s dtype (PyG: int64);
    ``training=False`` adds nothing (an empty ``[2, 0]`` of that dtype; PyG's is float).

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    >>> out, added = add_random_edge(ei, p=0.5, num_nodes=4, seed=0)
    >>> out.shape, added.shape, bool((out[:, 4:] == added).all())
    ((2, 6), (2, 2), True)
    """
    where = "add_random_edge"
    xp = edge_index_arg(where, edge_index)
    p = probability_arg(where, "p", p)
    force_undirected = bool_arg(where, "force_undirected", force_undirected)
    if force_undirected and isinstance(num_nodes, (tuple, list)):
        raise ValueError(f"{where}: force_undirected is not supported for bipartite num_nodes")
    if not bool_arg(where, "training", training) or p == 0.0:
        return edge_index.copy(), xp.zeros((2, 0), dtype=edge_index.dtype)
    num_neg = round(int(edge_index.shape[1]) * p)
    try:
        added = negative_sampling(
            edge_index, num_nodes, num_neg, force_undirected=force_undirected, seed=seed
        )
    except (TypeError, ValueError) as err:
        raise type(err)(str(err).replace("negative_sampling", where, 1)) from None
    added = added.astype(edge_index.dtype)
    return xp.concatenate([edge_index, added], axis=1), added
