"""PyG normalization modules -> ``arraygnn.nn.norm`` (``from_pyg`` calls this).

Hyper-parameters are read off the module (``eps``, ``affine``, ``track_running_stats``,
``mode``, ``groups`` / ``lamda``, ``scale``, ...), then ``module.state_dict()`` is loaded by
name (``module.running_mean``, ``mean_scale``, ``lin.weight``, ``norm.running_var``, ...).

>>> from arraygnn.nn.norm.convert import PYG_NORMS
>>> sorted(PYG_NORMS)[:3]
['BatchNorm', 'DiffGroupNorm', 'GraphNorm']
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn import norm as _norm
from arraygnn.nn._module import Module
from arraygnn.nn.norm import (
    BatchNorm,
    DiffGroupNorm,
    GraphNorm,
    GraphSizeNorm,
    HeteroBatchNorm,
    HeteroLayerNorm,
    InstanceNorm,
    LayerNorm,
    MeanSubtractionNorm,
    MessageNorm,
    PairNorm,
)

__all__ = ["PYG_NORMS", "is_pyg_norm", "norm_from_pyg"]

#: the PyG class names converted here (from ``torch_geometric.nn.norm``): each has its
#: namesake in ``arraygnn.nn.norm``
PYG_NORMS = frozenset(_norm.__all__)


def is_pyg_norm(module: Any) -> bool:
    """Whether ``module`` is one of PyG's norm layers converted here."""
    cls = type(module)
    return cls.__name__ in PYG_NORMS and cls.__module__.startswith("torch_geometric.nn.norm")


def norm_from_pyg(module: Any, dtype: Any) -> Module:
    """The ``arraygnn.nn.norm`` layer matching a PyG norm module, weights and running
    statistics loaded (``dtype`` the module's floating dtype)."""
    kind = type(module).__name__
    layer: Module
    if kind == "BatchNorm":
        bn = module.module
        layer = BatchNorm(
            module.in_channels,
            bn.eps,
            bn.momentum,
            bn.affine,
            bn.track_running_stats,
            module.allow_single_element,
            dtype=dtype,
        )
    elif kind == "HeteroBatchNorm":
        layer = HeteroBatchNorm(
            module.in_channels,
            module.num_types,
            module.eps,
            module.momentum,
            module.affine,
            module.track_running_stats,
            dtype=dtype,
        )
    elif kind == "InstanceNorm":
        layer = InstanceNorm(
            module.num_features,
            module.eps,
            module.momentum,
            module.affine,
            module.track_running_stats,
            dtype=dtype,
        )
    elif kind == "LayerNorm":
        layer = LayerNorm(module.in_channels, module.eps, module.affine, module.mode, dtype=dtype)
    elif kind == "HeteroLayerNorm":
        layer = HeteroLayerNorm(
            module.in_channels, module.num_types, module.eps, module.affine, dtype=dtype
        )
    elif kind == "GraphNorm":
        layer = GraphNorm(module.in_channels, module.eps, dtype=dtype)
    elif kind == "GraphSizeNorm":
        layer = GraphSizeNorm()
    elif kind == "PairNorm":
        layer = PairNorm(module.scale, module.scale_individually, module.eps)
    elif kind == "MeanSubtractionNorm":
        layer = MeanSubtractionNorm()
    elif kind == "MessageNorm":
        layer = MessageNorm(bool(module.scale.requires_grad), dtype=dtype)
    elif kind == "DiffGroupNorm":
        bn = module.norm
        layer = DiffGroupNorm(
            module.in_channels,
            module.groups,
            module.lamda,
            bn.eps,
            bn.momentum,
            bn.affine,
            bn.track_running_stats,
            dtype=dtype,
        )
    else:  # pragma: no cover - PYG_NORMS lists the kinds above
        raise ValueError(f"from_pyg: PyG norm {kind} is not supported")
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
