"""PyG's aggregation operators (``torch_geometric.nn.aggr``) on NumPy / CuPy arrays.

Every aggregation is called as PyG's: ``aggr(x, index=None, ptr=None, dim_size=None,
dim=-2)``. It reduces the slices of ``x`` along ``dim`` into groups given by ``index``
(sorted or not) or a CSR ``ptr``, through :mod:`arraygnn.ops`'s segment kernels
(deterministic, no loop over groups), with PyG's results: the same values for empty
groups, the same layouts, learnt ``t`` / ``p`` and ``Linear`` weights under PyG's names
(``arraygnn.nn.from_pyg`` converts PyG's modules).

- :class:`SumAggregation`, :class:`MeanAggregation`, :class:`MaxAggregation`,
  :class:`MinAggregation`, :class:`MulAggregation`, :class:`VarAggregation`,
  :class:`StdAggregation`, :class:`SoftmaxAggregation`, :class:`PowerMeanAggregation`
- :class:`MedianAggregation`, :class:`QuantileAggregation`
- :class:`MultiAggregation` (``cat``, ``proj``, ``attn``, ``sum``, ``mean``, ``max``,
  ``min``, ``logsumexp``, ``std``, ``var``), :class:`DegreeScalerAggregation` (PNA)
- :class:`VariancePreservingAggregation`, :class:`DeepSetsAggregation` (any index order)
- over each group as a padded sequence (sorted ``index``, as PyG):
  :class:`LSTMAggregation`, :class:`GRUAggregation`, :class:`MLPAggregation`,
  :class:`LCMAggregation`, :class:`SetTransformerAggregation`,
  :class:`GraphMultisetTransformer`, :class:`PatchTransformerAggregation`
- :class:`EquilibriumAggregation` (momentum descent on a learnt energy, gradient in closed
  form)
- :func:`aggregation_resolver` (names such as ``'sum'``, ``'softmax'``, ``'median'``)
- the readouts :class:`AttentionalAggregation`, :class:`Set2Set`,
  :class:`SortAggregation` (``arraygnn.nn.readout``), also under their PyG home here

>>> import numpy as np
>>> from arraygnn.nn import aggr
>>> x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> aggr.SumAggregation()(x, np.array([1, 0, 1]), dim_size=3).tolist()
[[3.0, 4.0], [6.0, 8.0], [0.0, 0.0]]
>>> aggr.MultiAggregation(["mean", "std"])(x, ptr=np.array([0, 3])).round(3).tolist()
[[3.0, 4.0, 1.633, 1.633]]
"""

from arraygnn.nn.aggr.base import Aggregation
from arraygnn.nn.aggr.basic import (
    MaxAggregation,
    MeanAggregation,
    MinAggregation,
    MulAggregation,
    PowerMeanAggregation,
    SoftmaxAggregation,
    StdAggregation,
    SumAggregation,
    VarAggregation,
)
from arraygnn.nn.aggr.degree_scaler import DegreeScalerAggregation
from arraygnn.nn.aggr.equilibrium import EquilibriumAggregation
from arraygnn.nn.aggr.lcm import LCMAggregation
from arraygnn.nn.aggr.mlp_aggr import DeepSetsAggregation, MLPAggregation
from arraygnn.nn.aggr.multi import MultiAggregation
from arraygnn.nn.aggr.patch_transformer import PatchTransformerAggregation
from arraygnn.nn.aggr.quantile import MedianAggregation, QuantileAggregation
from arraygnn.nn.aggr.recurrent import GRUAggregation, LSTMAggregation
from arraygnn.nn.aggr.resolver import aggregation_resolver
from arraygnn.nn.aggr.set_transformer import GraphMultisetTransformer, SetTransformerAggregation
from arraygnn.nn.aggr.variance_preserving import VariancePreservingAggregation
from arraygnn.nn.readout import AttentionalAggregation, Set2Set, SortAggregation

__all__ = [
    "Aggregation",
    "AttentionalAggregation",
    "DeepSetsAggregation",
    "DegreeScalerAggregation",
    "EquilibriumAggregation",
    "GRUAggregation",
    "GraphMultisetTransformer",
    "LCMAggregation",
    "LSTMAggregation",
    "MLPAggregation",
    "MaxAggregation",
    "MeanAggregation",
    "MedianAggregation",
    "MinAggregation",
    "MulAggregation",
    "MultiAggregation",
    "PatchTransformerAggregation",
    "PowerMeanAggregation",
    "QuantileAggregation",
    "Set2Set",
    "SetTransformerAggregation",
    "SoftmaxAggregation",
    "SortAggregation",
    "StdAggregation",
    "SumAggregation",
    "VarAggregation",
    "VariancePreservingAggregation",
    "aggregation_resolver",
]
