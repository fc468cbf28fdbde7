"""PyG's deprecated ``dropout_adj``: drop each edge with probability ``p``, returning
``(edge_index, edge_attr)`` (use :func:`~arraygnn.utils.dropout_edge` instead).

>>> import warnings
>>> import numpy as np
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     ei, attr = dropout_adj(np.array([[0, 1], [1, 0]]), np.array([1.0, 2.0]), p=0.0)
>>> ei.tolist(), attr.tolist()
([[0, 1], [1, 0]], [1.0, 2.0])
"""

from __future__ import annotations

import warnings
from typing import Any

from arraygnn.utils._checks import bool_arg, edge_index_arg, num_nodes_arg, optional_edge_attr
from arraygnn.utils.negative_sampling import generator
from arraygnn.utils.random_graphs import probability_arg

__all__ = ["dropout_adj"]


def dropout_adj(
    edge_index: Any,
    edge_attr: Any = None,
    p: float = 0.5,
    force_undirected: bool = False,
    num_nodes: int | None = None,
    training: bool = True,
    *,
    seed: Any = None,
) -> tuple[Any, Any]:
    """Keep each edge when its uniform draw is ``>= p`` (PyG's ``dropout_adj``; warns,
    as PyG, that it is deprecated: a ``UserWarning``, as PyG's). ``force_undirected=True``
    keeps only edges ``row <= col`` and returns the kept ones, then the same flipped
    (``edge_attr`` twice). ``training=False`` or ``p == 0`` returns copies of the input.
    ``seed=``: an int, a NumPy ``Generator`` or ``None``. ``num_nodes`` is only checked
    (ids must be below it), as PyG ignores it.

    >>> import numpy as np, warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     dropout_adj(np.array([[0], [1]]), p=1.0, seed=0)[0].shape
    (2, 0)
    >>> str(caught[0].message)
    "'dropout_adj' is deprecated, use 'dropout_edge' instead"
    """
    warnings.warn("'dropout_adj' is deprecated, use 'dropout_edge' instead", stacklevel=2)
    where = "dropout_adj"
    xp = edge_index_arg(where, edge_index)
    optional_edge_attr(where, edge_index, edge_attr)
    p = probability_arg(where, "p", p)
    force_undirected = bool_arg(where, "force_undirected", force_undirected)
    if num_nodes is not None:
        num_nodes_arg(where, edge_index, num_nodes)
    if not bool_arg(where, "training", training) or p == 0.0:
        return edge_index.copy(), None if edge_attr is None else edge_attr.copy()
    gen = generator(xp, seed, where)
    mask = gen.random(int(edge_index.shape[1])) >= p
    if force_undirected:
        mask &= edge_index[0] <= edge_index[1]
    kept = edge_index[:, mask]
    attr = None if edge_attr is None else edge_attr[mask]
    if force_undirected:
        kept = xp.concatenate([kept, kept[::-1]], axis=1)
        attr = None if attr is None else xp.concatenate([attr, attr])
    return kept, attr
