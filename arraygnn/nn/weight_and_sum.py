"""DGL's ``WeightAndSum`` readout: a weighted sum of node features per graph, each node's
weight ``sigmoid(w . h + b)`` (DGL-LifeSci's atom weighting).

How it runs: one ``[N, 1]`` gate product and one segment sum per graph over the batched
graph's node ranges (``batch_num_nodes()``), as the other readouts.

>>> import numpy as np
>>> from arraygnn.graph import batch, graph
>>> g = batch([graph((np.array([0]), np.array([1]))),
...            graph((np.array([0]), np.array([0])))])
>>> WeightAndSum(3, rng=0)(g, np.ones((3, 3), np.float32)).shape
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear, Sequential, _check_features, _sigmoid
from arraygnn.nn.readout import _graph_segments, _pool

__all__ = ["WeightAndSum"]


class WeightAndSum(DGLModule):
    """DGL's ``WeightAndSum(in_feats)`` (inference), DGL's parameter names.

    Call as ``readout(graph, feats)``: ``graph`` a (batched) DGL-face graph
    (``batch_num_nodes()``) or a ``Batch``; ``feats`` ``(N, in_feats)``. An empty graph
    gives a row of zeros.

    Shapes:
        - output: ``(num_graphs, in_feats)``

    Names (DGL's): ``atom_weighting.0.weight`` ``(1, in_feats)``, ``atom_weighting.0.bias``.
    """

    _child_names = ("atom_weighting",)

    def __init__(self, in_feats: int, *, dtype: Any = np.float32, rng: Any = None) -> None:
        self.in_feats = layer_size("WeightAndSum", "in_feats", in_feats)
        self.atom_weighting = Sequential(Linear(self.in_feats, 1, dtype=dtype, rng=rng), _sigmoid)

    def __call__(self, graph: Any, feats: Any) -> Any:
        name = "WeightAndSum"
        _check_features(feats, self.in_feats, f"{name} feats", self.atom_weighting[0].weight)
        if feats.ndim != 2 or feats.dtype.kind != "f":
            raise ValueError(
                f"{name}: feats must be floating point (N, {self.in_feats}), got shape "
                f"{tuple(feats.shape)} dtype {feats.dtype}"
            )
        batch, ptr = _graph_segments(graph, feats, name)
        weighted = feats * self.atom_weighting(feats)
        return _pool(weighted, batch, None, ptr, "sum", name)

    def extra_repr(self) -> str:
        return f"{self.in_feats}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> WeightAndSum:
    """DGL's ``WeightAndSum`` -> :class:`WeightAndSum` with its weights."""
    from arraygnn.nn.weights import _load

    return _load(WeightAndSum(module.in_feats, dtype=dtype), module, "dgl")
