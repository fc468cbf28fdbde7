"""PyG aggregation modules -> ``arraygnn.nn.aggr`` (``from_pyg`` calls this).

Hyper-parameters are read off the module (``t`` / ``p`` / ``learn`` / ``channels``, clamp
bounds, quantiles and interpolation, ``mode`` with the ``proj`` Linear's sizes and the
``attn`` attention's options, scalers), then ``module.state_dict()`` is loaded by name:
learnt ``t`` / ``p``, ``lin.*``, ``lin_heads.*``, ``multihead_attn.*``, ``q``,
``avg_deg_lin`` / ``avg_deg_log``. The learnt set / sequence aggregations (LSTM, GRU, MLP,
Deep Sets, LCM, Set Transformer, GMT, Patch Transformer) convert through functions beside
them. A PyG aggregation arraygnn does not have is a ``ValueError`` naming it.

(``from_pyg(torch_geometric.nn.aggr.SoftmaxAggregation(learn=True)).t`` is the learnt
``t``; the names converted:)

>>> from arraygnn.nn.aggr.convert import PYG_AGGREGATIONS
>>> sorted(PYG_AGGREGATIONS)[:3]
['DeepSetsAggregation', 'DegreeScalerAggregation', 'GRUAggregation']
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

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
from arraygnn.nn.aggr.multi import MODES, MultiAggregation
from arraygnn.nn.aggr.quantile import MedianAggregation, QuantileAggregation
from arraygnn.nn.aggr.variance_preserving import VariancePreservingAggregation

__all__ = ["PYG_AGGREGATIONS", "aggregation_from_pyg"]

_PLAIN = {
    "SumAggregation": SumAggregation,
    "MeanAggregation": MeanAggregation,
    "MaxAggregation": MaxAggregation,
    "MinAggregation": MinAggregation,
    "MulAggregation": MulAggregation,
}

#: learnt set / sequence aggregations: PyG name -> "module:function" (converter beside them)
_BESIDE = {
    "LSTMAggregation": "arraygnn.nn.aggr.recurrent:from_pyg_module",
    "GRUAggregation": "arraygnn.nn.aggr.recurrent:from_pyg_module",
    "MLPAggregation": "arraygnn.nn.aggr.mlp_aggr:from_pyg_module",
    "DeepSetsAggregation": "arraygnn.nn.aggr.mlp_aggr:from_pyg_module",
    "LCMAggregation": "arraygnn.nn.aggr.lcm:from_pyg_module",
    "SetTransformerAggregation": "arraygnn.nn.aggr.set_transformer:from_pyg_module",
    "GraphMultisetTransformer": "arraygnn.nn.aggr.set_transformer:from_pyg_module",
    "PatchTransformerAggregation": "arraygnn.nn.aggr.patch_transformer:from_pyg_module",
}

#: the PyG class names converted here
PYG_AGGREGATIONS = frozenset(
    [
        *_PLAIN,
        *_BESIDE,
        "VariancePreservingAggregation",
        "VarAggregation",
        "StdAggregation",
        "SoftmaxAggregation",
        "PowerMeanAggregation",
        "MedianAggregation",
        "QuantileAggregation",
        "MultiAggregation",
        "DegreeScalerAggregation",
    ]
)


def _dtype(module: Any) -> Any:
    from arraygnn.nn.weights import _dtype_of

    return _dtype_of(module) if len(module.state_dict()) else np.float32


def aggregation_from_pyg(module: Any) -> Any:
    """The ``arraygnn.nn.aggr`` twin of a PyG aggregation module, weights loaded."""
    from arraygnn.nn.weights import from_pyg

    kind = type(module).__name__
    if kind in _BESIDE:
        module_name, _, function = _BESIDE[kind].partition(":")
        convert = getattr(importlib.import_module(module_name), function)
        return convert(module, _dtype(module), from_pyg)
    if kind == "VariancePreservingAggregation":
        return VariancePreservingAggregation()
    if kind in _PLAIN:
        return _PLAIN[kind]()
    if kind == "VarAggregation":
        return VarAggregation(module.semi_grad)
    if kind == "StdAggregation":
        return StdAggregation(module.var_aggr.semi_grad)
    if kind in ("SoftmaxAggregation", "PowerMeanAggregation"):
        name = "t" if kind == "SoftmaxAggregation" else "p"
        value = getattr(module, name)
        options: dict[str, Any] = {"learn": bool(module.learn), "channels": module.channels}
        if kind == "SoftmaxAggregation":
            options["semi_grad"] = bool(module.semi_grad)
        else:
            options.update(clamp_min=module.min_value, clamp_max=module.max_value)
        start = float(value.detach().reshape(-1)[0]) if module.learn else float(value)
        layer = (SoftmaxAggregation if name == "t" else PowerMeanAggregation)(
            start, dtype=_dtype(module), **options
        )
    elif kind in ("MedianAggregation", "QuantileAggregation"):
        if kind == "MedianAggregation":
            layer = MedianAggregation(module.fill_value)
        else:
            layer = QuantileAggregation(module._q, module.interpolation, module.fill_value)
        layer.q = module.q.detach().cpu().numpy().copy()  # its dtype (a cast module: float64)
    elif kind == "MultiAggregation":
        if module.mode not in MODES:
            raise ValueError(
                f"from_pyg: MultiAggregation(mode={module.mode!r}) is not supported (cat, "
                "proj, attn, sum, mean, max, min, logsumexp, std, var)"
            )
        parts = [from_pyg(a) for a in module.aggrs]
        mode_kwargs = None
        lin = getattr(module, "lin", None)
        if module.mode == "proj" and lin is not None:
            mode_kwargs = {
                "in_channels": list(module.in_channels),
                "out_channels": module.out_channels,
                "bias": lin.bias is not None,
            }
        mha = getattr(module, "multihead_attn", None)
        if module.mode == "attn" and mha is not None:
            mode_kwargs = {
                "in_channels": list(module.in_channels),
                "out_channels": module.out_channels,
                "num_heads": mha.num_heads,
                "dropout": mha.dropout,
                "bias": mha.in_proj_bias is not None,
                "add_bias_kv": mha.bias_k is not None,
                "add_zero_attn": mha.add_zero_attn,
                "kdim": mha.kdim,
                "vdim": mha.vdim,
                "batch_first": mha.batch_first,
            }
        layer = MultiAggregation(
            parts, mode=module.mode, mode_kwargs=mode_kwargs, dtype=_dtype(module)
        )
    elif kind == "DegreeScalerAggregation":
        scalers = module.scaler
        if len(scalers) == 1 and isinstance(scalers[0], (list, tuple)):
            scalers = scalers[0]  # PyG nests a list given with a single aggregation's name
        layer = DegreeScalerAggregation(
            from_pyg(module.aggr), list(scalers), np.ones(1), dtype=_dtype(module)
        )
        layer.train_norm = type(module.avg_deg_lin).__name__ == "Parameter"
    else:
        raise ValueError(f"from_pyg: PyG aggregation {kind} is not supported by arraygnn.nn.aggr")
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
