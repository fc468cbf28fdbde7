"""PyG's deprecated ``train_test_split_edges`` (use
:class:`~arraygnn.transforms.RandomLinkSplit` instead): split the edges ``row < col`` of an
undirected graph into positive train / validation / test edges and draw as many negative
validation / test pairs.

>>> import warnings
>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     out = train_test_split_edges(d, 0.5, 0.0, seed=0)
>>> out.val_pos_edge_index.shape, out.train_pos_edge_index.shape
((2, 1), (2, 2))
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.utils.random_graphs import probability_arg
from arraygnn.utils.undirected import to_undirected

__all__ = ["train_test_split_edges"]


def train_test_split_edges(
    data: Any, val_ratio: float = 0.05, test_ratio: float = 0.1, *, seed: Any = None
) -> Any:
    """A new ``Data`` without ``edge_index`` / ``edge_attr`` and with PyG's split
    (``data`` itself is not modified; PyG changes and returns it).

    Of the ``m`` edges with ``row < col`` (shuffled; ``edge_attr`` follows),
    ``floor(val_ratio * m)`` become ``val_pos_edge_index``, ``floor(test_ratio * m)``
    ``test_pos_edge_index`` and the rest ``train_pos_edge_index``, made undirected
    (:func:`~arraygnn.utils.to_undirected`, with ``train_pos_edge_attr``). As many negative
    pairs ``row < col`` as validation plus test edges are drawn from the upper triangle
    without edges: ``val_neg_edge_index``, ``test_neg_edge_index`` (int64), and
    ``train_neg_adj_mask`` [N, N] bool marks the pairs left. Warns as PyG (deprecated).
    ``seed=``: the two permutations (an int, a NumPy ``Generator`` or ``None``).
    """
    from arraygnn.transforms._draws import device_generator, permutation, seed_arg
    from arraygnn.transforms._graph import check_data, edge_index_of, node_count

    where = "train_test_split_edges"
    warnings.warn(
        "'train_test_split_edges' is deprecated, use 'transforms.RandomLinkSplit' instead",
        stacklevel=2,
    )
    check_data(where, data, hetero=False)
    if "batch" in data:
        raise ValueError(f"{where}: takes a single graph, not a batch (data has 'batch')")
    n = node_count(where, data)
    if "edge_index" not in data:
        raise ValueError(f"{where}: data has no edge_index")
    ei = edge_index_of(where, data, n, n)
    val_ratio = probability_arg(where, "val_ratio", val_ratio)
    test_ratio = probability_arg(where, "test_ratio", test_ratio)
    xp = get_namespace(ei)
    gen = device_generator(xp, seed_arg(where, seed), where)
    edge_attr = data.edge_attr if "edge_attr" in data else None
    out = data.copy()
    del out["edge_index"]
    if edge_attr is not None:
        del out["edge_attr"]
    mask = ei[0] < ei[1]
    row, col = ei[0][mask], ei[1][mask]
    if edge_attr is not None:
        edge_attr = edge_attr[mask]
    m = int(row.shape[0])
    n_v = int(math.floor(val_ratio * m))
    n_t = int(math.floor(test_ratio * m))
    perm = permutation(xp, gen, m)
    row, col = row[perm], col[perm]
    if edge_attr is not None:
        edge_attr = edge_attr[perm]
    out.val_pos_edge_index = xp.stack([row[:n_v], col[:n_v]])
    out.test_pos_edge_index = xp.stack([row[n_v : n_v + n_t], col[n_v : n_v + n_t]])
    train = xp.stack([row[n_v + n_t :], col[n_v + n_t :]])
    if edge_attr is not None:
        out.val_pos_edge_attr = edge_attr[:n_v]
        out.test_pos_edge_attr = edge_attr[n_v : n_v + n_t]
        out.train_pos_edge_index, out.train_pos_edge_attr = to_undirected(
            train, edge_attr[n_v + n_t :]
        )
    else:
        out.train_pos_edge_index = to_undirected(train)
    neg = xp.triu(xp.ones((n, n), dtype=bool), k=1)
    neg[row, col] = False
    neg_row, neg_col = xp.nonzero(neg)
    pick = permutation(xp, gen, int(neg_row.shape[0]))[: n_v + n_t]
    neg_row, neg_col = neg_row[pick].astype(np.int64), neg_col[pick].astype(np.int64)
    neg[neg_row, neg_col] = False
    out.train_neg_adj_mask = neg
    out.val_neg_edge_index = xp.stack([neg_row[:n_v], neg_col[:n_v]])
    out.test_neg_edge_index = xp.stack([neg_row[n_v : n_v + n_t], neg_col[n_v : n_v + n_t]])
    return out
