"""PyG's normalization layers (``torch_geometric.nn.norm``) on NumPy / CuPy arrays, at
inference (eval mode: running statistics where PyG keeps them).

Per-graph statistics (``batch`` a graph id per row, ``batch_size`` the number of graphs,
left out ``batch.max() + 1``) run in :mod:`arraygnn.ops`'s scatter / gather kernels, no loop
over graphs; weights and running statistics load under PyG's names
(``arraygnn.nn.from_pyg`` converts PyG's modules).

- :class:`BatchNorm` (PyG's wrapper, ``module.*`` names), :class:`HeteroBatchNorm`
- :class:`InstanceNorm`, :class:`LayerNorm` (``'graph'`` / ``'node'``), :class:`HeteroLayerNorm`
- :class:`GraphNorm`, :class:`GraphSizeNorm`, :class:`PairNorm`, :class:`MeanSubtractionNorm`
- :class:`MessageNorm`, :class:`DiffGroupNorm`

``arraygnn.nn.BatchNorm`` / ``arraygnn.nn.LayerNorm`` stay torch's (row-wise) layers; the
PyG ones of the same names live here.

>>> import numpy as np
>>> from arraygnn.nn import norm
>>> x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> norm.GraphNorm(2, dtype=np.float64)(x, np.array([0, 0, 1])).round(3).tolist()
[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]]
"""

from arraygnn.nn.norm.batch_norm import BatchNorm, HeteroBatchNorm
from arraygnn.nn.norm.diff_group_norm import DiffGroupNorm
from arraygnn.nn.norm.graph_norm import GraphNorm
from arraygnn.nn.norm.graph_size_norm import GraphSizeNorm
from arraygnn.nn.norm.instance_norm import InstanceNorm
from arraygnn.nn.norm.layer_norm import HeteroLayerNorm, LayerNorm
from arraygnn.nn.norm.mean_subtraction_norm import MeanSubtractionNorm
from arraygnn.nn.norm.msg_norm import MessageNorm
from arraygnn.nn.norm.pair_norm import PairNorm

__all__ = [
    "BatchNorm",
    "DiffGroupNorm",
    "GraphNorm",
    "GraphSizeNorm",
    "HeteroBatchNorm",
    "HeteroLayerNorm",
    "InstanceNorm",
    "LayerNorm",
    "MeanSubtractionNorm",
    "MessageNorm",
    "PairNorm",
]
