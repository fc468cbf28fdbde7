"""DGL's graph-building layers ``KNNGraph`` and ``SegmentedKNNGraph`` (``dgl.nn.factory``).

They hold ``k`` and nothing else (no weights): calling one builds the k-nearest-neighbour
graph of the points with :func:`arraygnn.graph.knn_graph` /
:func:`arraygnn.graph.segmented_knn_graph` (edges from each neighbour to its centre, the
centre itself among its ``k`` neighbours unless ``exclude_self=True``).

>>> import numpy as np
>>> kg = KNNGraph(2)
>>> x = np.array([[0, 1], [1, 2], [1, 3], [100, 101], [101, 102], [50, 50]])
>>> [a.tolist() for a in kg(x).edges()]
[[0, 1, 1, 2, 2, 1, 3, 4, 4, 3, 5, 2], [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arraygnn.graph.core import Graph
from arraygnn.graph.knn import knn_graph, segmented_knn_graph
from arraygnn.nn._module import Module, layer_size

__all__ = ["KNNGraph", "SegmentedKNNGraph"]


class KNNGraph(Module):
    """DGL's ``KNNGraph(k)``: ``kg(x, algorithm='bruteforce-blas', dist='euclidean',
    exclude_self=False)`` is :func:`arraygnn.graph.knn_graph` ``(x, k, ...)``; ``x`` is
    ``[N, D]`` or ``[B, M, D]`` (``B`` sets of ``M`` points, a batched graph)."""

    def __init__(self, k: int) -> None:
        self.k = layer_size("KNNGraph", "k", k, minimum=1)

    def __call__(
        self,
        x: Any,
        algorithm: str = "bruteforce-blas",
        dist: str = "euclidean",
        exclude_self: bool = False,
    ) -> Graph:
        return knn_graph(x, self.k, algorithm=algorithm, dist=dist, exclude_self=exclude_self)

    def extra_repr(self) -> str:
        return f"k={self.k}"


class SegmentedKNNGraph(Module):
    """DGL's ``SegmentedKNNGraph(k)``: ``kg(x, segs, algorithm='bruteforce-blas',
    dist='euclidean', exclude_self=False)`` is :func:`arraygnn.graph.segmented_knn_graph`
    ``(x, k, segs, ...)``: point sets of ``segs`` sizes stored one after another in ``x``.

    >>> import numpy as np
    >>> kg = SegmentedKNNGraph(2)
    >>> x = np.array([[0, 1], [1, 2], [1, 3], [100, 101], [101, 102], [50, 50], [24, 25],
    ...               [25, 24]])
    >>> src, dst = kg(x, [3, 3, 2]).edges()
    >>> src.tolist()
    [0, 1, 1, 2, 2, 1, 3, 4, 4, 3, 5, 3, 6, 7, 7, 6]
    >>> dst.tolist()
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
    """

    def __init__(self, k: int) -> None:
        self.k = layer_size("SegmentedKNNGraph", "k", k, minimum=1)

    def __call__(
        self,
        x: Any,
        segs: Sequence[int] | Any,
        algorithm: str = "bruteforce-blas",
        dist: str = "euclidean",
        exclude_self: bool = False,
    ) -> Graph:
        return segmented_knn_graph(
            x, self.k, segs, algorithm=algorithm, dist=dist, exclude_self=exclude_self
        )

    def extra_repr(self) -> str:
        return f"k={self.k}"
