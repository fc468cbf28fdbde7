"""PyG's degree features: :class:`OneHotDegree`, :class:`TargetIndegree`,
:class:`LocalDegreeProfile` (degrees by :func:`arraygnn.utils.degree`, neighbourhood
statistics by the ``arraygnn.ops.scatter`` segment kernels).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 0, 1], [1, 2, 2]]), num_nodes=3)
>>> OneHotDegree(2)(d).x.tolist()
[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.transforms._graph import check_data, edge_index_of, int_arg, node_count
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.features import cat_features, cat_or_set
from arraygnn.utils.arrays import one_hot
from arraygnn.utils.degree import degree

__all__ = ["LocalDegreeProfile", "OneHotDegree", "TargetIndegree", "checked_graph"]


def checked_graph(where: str, data: Any) -> tuple[Any, int]:
    """``(edge_index, num_nodes)`` of a ``Data``, checked (ids in range)."""
    check_data(where, data, hetero=False)
    n = node_count(where, data)
    if "edge_index" not in data:
        raise ValueError(f"{where}: data has no edge_index")
    return edge_index_of(where, data, n, n), n


class OneHotDegree(BaseTransform):
    """Append the one-hot out-degree (``in_degree=True``: in-degree) with
    ``max_degree + 1`` classes to ``x`` (PyG's ``OneHotDegree``; float32 without ``x`` or
    with ``cat=False``, else ``x``'s dtype). A degree above ``max_degree`` is a
    ``ValueError`` (PyG fails inside ``scatter``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0], [1]]), x=np.zeros((2, 1)))
    >>> OneHotDegree(1, in_degree=True)(d).x.tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """

    def __init__(self, max_degree: int, in_degree: bool = False, cat: bool = True) -> None:
        self.max_degree = int_arg("OneHotDegree", "max_degree", max_degree)
        self.in_degree = in_degree
        self.cat = cat

    def forward(self, data: Any) -> Any:
        where = "OneHotDegree"
        ei, n = checked_graph(where, data)
        deg = degree(ei[1 if self.in_degree else 0], n, dtype=np.int64)
        top = int(to_numpy(deg.max())) if n else 0
        if top > self.max_degree:
            raise ValueError(f"{where}: a node has degree {top} > max_degree={self.max_degree}")
        deg = one_hot(deg, num_classes=self.max_degree + 1)
        cat_or_set(data, "x", deg, self.cat)
        return data

    def __repr__(self) -> str:
        return f"OneHotDegree({self.max_degree})"


class TargetIndegree(BaseTransform):
    """Append each edge's target in-degree to ``edge_attr`` (PyG's ``TargetIndegree``):
    float32 degrees, divided by their maximum (``norm=True``; by ``max_value`` when
    given), gathered per edge as a column; concatenated to ``edge_attr`` in its dtype
    (``cat=True``) or replacing it.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1, 2], [2, 2, 1]]), num_nodes=3)
    >>> TargetIndegree()(d).edge_attr.ravel().tolist()
    [1.0, 1.0, 0.5]
    """

    def __init__(self, norm: bool = True, max_value: float | None = None, cat: bool = True) -> None:
        self.norm = norm
        self.max = max_value
        self.cat = cat

    def forward(self, data: Any) -> Any:
        where = "TargetIndegree"
        ei, n = checked_graph(where, data)
        col = ei[1]
        deg = degree(col, n)
        if self.norm:
            if self.max is None:
                if n == 0:
                    raise ValueError(f"{where}: norm=True on a graph without nodes (no maximum)")
                with np.errstate(divide="ignore", invalid="ignore"):  # no edges: 0 / 0
                    deg = deg / deg.max()  # of nothing, as PyG's result is empty
            else:
                deg = deg / np.float32(self.max)
        deg = deg[col].reshape(-1, 1)
        cat_or_set(data, "edge_attr", deg, self.cat)
        return data

    def __repr__(self) -> str:
        return f"TargetIndegree(norm={self.norm}, max_value={self.max})"


class LocalDegreeProfile(BaseTransform):
    """Append the local degree profile of each node (PyG's ``LocalDegreeProfile``): its
    out-degree ``d`` and the minimum, maximum, mean and standard deviation of ``d`` over its
    out-neighbours (five float32 columns; 0 for a node without out-edges). The four
    statistics are segment reductions of ``d[col]`` grouped by ``row``
    (``arraygnn.ops.scatter``; std as PyG's fused aggregation:
    ``sqrt(max(E[d^2] - E[d]^2, 1e-5))``, values ``<= sqrt(1e-5)`` set to 0).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 0, 1], [1, 2, 2]]), num_nodes=3)
    >>> LocalDegreeProfile()(d).x[0].tolist()
    [2.0, 0.0, 1.0, 0.5, 0.5]
    """

    def forward(self, data: Any) -> Any:
        where = "LocalDegreeProfile"
        ei, n = checked_graph(where, data)
        row, col = ei[0], ei[1]
        xp = get_namespace(ei)
        deg = degree(row, n, dtype=np.float32)
        vals = deg[col]
        count = xp.maximum(deg, 1)
        mean = ops.scatter(vals, row, n, "sum") / count
        var = ops.scatter(vals * vals, row, n, "sum") / count - mean * mean
        std = xp.sqrt(xp.maximum(var, np.float32(1e-5)))
        std = xp.where(std <= np.float32(math.sqrt(1e-5)), np.float32(0), std)
        cols = [deg, ops.scatter(vals, row, n, "min"), ops.scatter(vals, row, n, "max"), mean, std]
        xs = xp.stack(cols, axis=1).astype(np.float32, copy=False)
        x = data.x if "x" in data else None
        if x is None:
            data.x = xs
            return data
        # torch.cat's promotion: float x keeps the wider float, other x becomes float32
        dtype = np.result_type(x.dtype, np.float32) if x.dtype.kind == "f" else np.float32
        data.x = cat_features(x.astype(dtype, copy=False), xs)
        return data
