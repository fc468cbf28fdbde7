"""PyG's ``get_laplacian``: the graph Laplacian as an edge list.

PyG's recipe, step for step: self-loops are dropped first (their weights ignored), the
degree of a node is the sum of the weights of its outgoing edges (``edge_index[0]``), then

- ``normalization=None``: ``L = D - A``: each edge weighted ``-w``, then one loop per node
  weighted with its degree;
- ``'sym'``: ``L = I - D^-1/2 A D^-1/2``: edge ``(i, j)`` weighted
  ``-deg[i]^-1/2 * w * deg[j]^-1/2``, then one loop per node weighted 1;
- ``'rw'``: ``L = I - D^-1 A``: edge ``(i, j)`` weighted ``-w / deg[i]``, then one loop per
  node weighted 1.

A zero degree gives ``deg^-1/2 = 0`` (``1 / deg = 0``), so a node without outgoing edges
still gets its loop of weight 1 under ``'sym'`` / ``'rw'``, as PyG. The degrees are an
``arraygnn.ops.scatter`` sum (deterministic).

RULE: ``num_nodes`` left out is ``max + 1`` over the edges **without** their self-loops,
PyG's order of steps: a largest node whose only edge is a self-loop gets no diagonal entry.
Give ``num_nodes`` to count it.

>>> import numpy as np
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> ei_l, w = get_laplacian(ei, np.array([1.0, 2.0, 2.0, 4.0]))
>>> ei_l.tolist(), w.tolist()
([[0, 1, 1, 2, 0, 1, 2], [1, 0, 2, 1, 0, 1, 2]], [-1.0, -2.0, -2.0, -4.0, 1.0, 4.0, 4.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import torch_rsqrt
from arraygnn.ops._common import check_size
from arraygnn.utils._checks import (
    check_ids,
    check_numeric,
    edge_attr_arg,
    edge_index_arg,
    same_device,
)
from arraygnn.utils.scatter import scatter_rows

__all__ = ["get_laplacian"]


def get_laplacian(
    edge_index: Any,
    edge_weight: Any = None,
    normalization: str | None = None,
    dtype: Any = None,
    num_nodes: int | None = None,
) -> tuple[Any, Any]:
    """The Laplacian of the graph ``edge_index`` [2, E] as ``(edge_index, edge_weight)``.

    ``normalization``: ``None`` (``D - A``), ``'sym'`` (``I - D^-1/2 A D^-1/2``) or ``'rw'``
    (``I - D^-1 A``), computed as PyG (module docs): the edges without their self-loops,
    in order, then one loop per node ``0 .. N - 1``. ``edge_weight`` [E] (float or signed
    int) or ``None``: ones of ``dtype`` (a NumPy dtype, default float32, as PyG; ignored when
    weights are given). Integer weights stay integers for ``None``; ``'sym'`` / ``'rw'``
    compute them in float32 (torch's ``1.0 / int``; PyG itself raises for ``'sym'``).
    ``num_nodes`` defaults to ``max + 1`` over the non-loop edges (PyG's rule). Ids keep
    their dtype (PyG: int64).

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
    >>> get_laplacian(ei, normalization="rw")[1].tolist()
    [-1.0, -0.5, -0.5, -1.0, 1.0, 1.0, 1.0]
    >>> get_laplacian(ei, None, "sym", np.float64, num_nodes=4)[1].round(4).tolist()
    [-0.7071, -0.7071, -0.7071, -0.7071, 1.0, 1.0, 1.0, 1.0]
    """
    where = "get_laplacian"
    xp = edge_index_arg(where, edge_index)
    if normalization not in (None, "sym", "rw"):
        raise ValueError(
            f"{where}: normalization must be None, 'sym' or 'rw', got {normalization!r}"
        )
    check_ids(where, "edge_index", edge_index, None)
    num_edges = int(edge_index.shape[1])
    if edge_weight is not None:
        edge_attr_arg(where, "edge_weight", edge_weight, num_edges)
        check_numeric(where, "edge_weight", edge_weight)
        same_device(where, edge_index=edge_index, edge_weight=edge_weight)
        if edge_weight.ndim != 1:
            raise ValueError(
                f"{where}: edge_weight must be one-dimensional [E], got shape "
                f"{tuple(edge_weight.shape)}"
            )
        weight_dtype = edge_weight.dtype
    else:
        try:
            weight_dtype = np.dtype(np.float32 if dtype is None else dtype)
        except TypeError:
            raise TypeError(f"{where}: dtype must be a NumPy dtype, got {dtype!r}") from None
        if weight_dtype.kind not in "fi":
            raise TypeError(
                f"{where}: dtype must be a float or signed integer dtype, got {dtype!r}"
            )
    if weight_dtype.kind == "u":
        raise TypeError(
            f"{where}: edge_weight must be float or signed int (the Laplacian negates it), "
            f"got dtype {weight_dtype}"
        )
    keep = edge_index[0] != edge_index[1]
    ei = edge_index[:, keep]
    if num_nodes is None:
        n = int(ei.max()) + 1 if ei.size else 0
    else:
        n = check_size(f"{where}: num_nodes", num_nodes)
        check_ids(where, "edge_index", edge_index, n)
    w = xp.ones(ei.shape[1], dtype=weight_dtype) if edge_weight is None else edge_weight[keep]
    if normalization is not None and w.dtype.kind != "f":
        w = w.astype(np.float32)  # torch: 1.0 / int is float32
    row, col = ei[0], ei[1]
    deg = scatter_rows(xp, w, row, n, "sum")
    if normalization is None:
        loop_w = deg
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            if normalization == "sym":
                scale = torch_rsqrt(deg)
            else:
                scale = deg.dtype.type(1.0) / deg
        scale = xp.where(scale == np.inf, deg.dtype.type(0), scale)
        w = scale[row] * w * scale[col] if normalization == "sym" else scale[row] * w
        loop_w = xp.ones(n, dtype=w.dtype)
    idt = ids_dtype_holding(edge_index.dtype, n - 1)
    loops = xp.arange(n, dtype=idt)
    out = xp.concatenate([ei.astype(idt, copy=False), xp.stack([loops, loops])], axis=1)
    return out, xp.concatenate([-w, loop_w.astype(w.dtype, copy=False)])
