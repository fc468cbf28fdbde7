"""PyG's ``aggregation_resolver``: an aggregation from its name (or a list of names).

A name matches a class case-, ``-``, ``_`` and space-insensitively, with or without the
``Aggregation`` suffix (``'sum'``, ``'SumAggregation'``, ``'power_mean'``), plus PyG's
alias ``'add'``; the remaining arguments go to the class. A list gives a
:class:`~arraygnn.nn.aggr.MultiAggregation`; anything else (an aggregation object,
``None``) is returned as it is.

>>> from arraygnn.nn.aggr import aggregation_resolver
>>> aggregation_resolver("add")
SumAggregation()
>>> aggregation_resolver("softmax", t=2.0, learn=True).t.tolist()
[2.0]
"""

from __future__ import annotations

from typing import Any

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
from arraygnn.nn.aggr.set_transformer import GraphMultisetTransformer, SetTransformerAggregation
from arraygnn.nn.aggr.variance_preserving import VariancePreservingAggregation
from arraygnn.nn.readout import AttentionalAggregation, Set2Set, SortAggregation

__all__ = ["aggregation_resolver"]

_CLASSES: tuple[type, ...] = (
    SumAggregation,
    MeanAggregation,
    MaxAggregation,
    MinAggregation,
    MulAggregation,
    VarAggregation,
    StdAggregation,
    SoftmaxAggregation,
    PowerMeanAggregation,
    MedianAggregation,
    QuantileAggregation,
    MultiAggregation,
    DegreeScalerAggregation,
    AttentionalAggregation,
    Set2Set,
    SortAggregation,
    VariancePreservingAggregation,
    DeepSetsAggregation,
    LSTMAggregation,
    GRUAggregation,
    MLPAggregation,
    LCMAggregation,
    SetTransformerAggregation,
    GraphMultisetTransformer,
    PatchTransformerAggregation,
    EquilibriumAggregation,
)
_ALIASES = {"add": SumAggregation}


def _normalise(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").replace(" ", "")


def aggregation_resolver(query: Any, *args: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """PyG's ``aggregation_resolver(query, *args, **kwargs)``.

    ``dtype`` (arraygnn's) is the dtype of learnt weights; it goes to the classes that have
    them (softmax, power mean, multi, degree scaler) and is ignored by the others.
    """
    if isinstance(query, (list, tuple)):
        if dtype is not None:
            kwargs["dtype"] = dtype
        return MultiAggregation(query, *args, **kwargs)
    if not isinstance(query, str):
        return query
    key = _normalise(query)
    cls = _ALIASES.get(key)
    if cls is None:
        suffix = _normalise(Aggregation.__name__)
        for candidate in _CLASSES:
            name = _normalise(candidate.__name__)
            if key in (name, name.replace(suffix, "")):
                cls = candidate
                break
    if cls is None:
        choices = sorted({c.__name__ for c in _CLASSES} | set(_ALIASES))
        raise ValueError(f"aggregation_resolver: could not resolve {query!r} among {choices}")
    if dtype is not None and getattr(cls, "_takes_dtype", False):
        kwargs["dtype"] = dtype
    return cls(*args, **kwargs)
