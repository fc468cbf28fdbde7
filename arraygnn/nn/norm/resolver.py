"""PyG's ``normalization_resolver`` for the norms arraygnn builds (``MLP`` / the models).

A name is read as PyG reads it (case, ``_`` / ``-`` / spaces ignored, ``'Norm'`` optional:
``'BatchNorm'``, ``'batch-norm'``, ``'batch'``); :func:`make_norm` builds the layer for a
width as ``normalization_resolver(norm, channels, **norm_kwargs)`` does. ``'batch_norm'`` is
``arraygnn.nn.BatchNorm`` (torch's maths; its owner exports it under PyG's
``norms.i.module.*`` names; with ``track_running_stats=False`` PyG's wrapper
``arraygnn.nn.norm.BatchNorm``, batch statistics), every other norm its
``arraygnn.nn.norm`` namesake.

>>> import numpy as np
>>> from arraygnn.nn.norm.resolver import make_norm, norm_key
>>> norm_key("GraphNorm"), norm_key("layer")
('graph_norm', 'layer_norm')
>>> type(make_norm("MLP", "layer_norm", 4, {"mode": "node"}, np.float32)).__name__
'LayerNorm'
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["NORMS", "make_norm", "norm_key", "takes_batch"]

#: ``norm`` names arraygnn builds (PyG's resolver names -> ``arraygnn.nn.norm`` classes)
NORMS = {
    "batch_norm": "BatchNorm",
    "layer_norm": "LayerNorm",
    "graph_norm": "GraphNorm",
    "instance_norm": "InstanceNorm",
    "pair_norm": "PairNorm",
    "diff_group_norm": "DiffGroupNorm",
}

#: PyG's ``BatchNorm`` keywords; at inference only ``eps`` / ``affine`` change the numbers
#: (``allow_single_element`` uses the running statistics, which inference always does),
#: and ``track_running_stats=False`` (batch statistics: ``arraygnn.nn.norm.BatchNorm``)
_BATCH_NORM_KWARGS = {"eps", "affine", "momentum", "track_running_stats", "allow_single_element"}


def norm_key(norm: Any) -> str | None:
    """The :data:`NORMS` key of a norm name; ``None`` for anything else."""
    if not isinstance(norm, str):
        return None
    query = norm.lower().replace("-", "").replace("_", "").replace(" ", "")
    for key, cls in NORMS.items():
        if query in (cls.lower(), cls.lower().replace("norm", "")):
            return key
    return None


def make_norm(
    owner: str,
    norm: str | None,
    channels: int,
    norm_kwargs: dict[str, Any] | None,
    dtype: Any,
    rng: Any = None,
) -> Any:
    """The norm layer ``norm`` (a :data:`NORMS` key or ``None``) of width ``channels``;
    ``owner`` names the caller in errors about ``norm_kwargs``."""
    if norm is None:
        return None
    kw = dict(norm_kwargs or {})
    if norm != "batch_norm":  # PyG's norm layers: (channels, **norm_kwargs)
        from arraygnn.nn import norm as pyg_norms

        cls = getattr(pyg_norms, NORMS[norm])
        # PairNorm has no weights; PyG's resolver hands it the width as its scale
        extra: dict[str, Any] = {} if norm == "pair_norm" else {"dtype": dtype}
        if norm == "diff_group_norm":
            extra["rng"] = rng
        try:
            return cls(channels, **kw, **extra)
        except TypeError as err:
            raise ValueError(f"{owner}: norm_kwargs {kw}: {err}") from None
    if set(kw) - _BATCH_NORM_KWARGS:
        raise ValueError(
            f"{owner}: norm_kwargs {kw} are not supported for batch_norm (eps, affine, "
            "momentum, track_running_stats, allow_single_element)"
        )
    if kw.get("track_running_stats", True) is False:  # batch statistics, as torch's eval
        from arraygnn.nn.norm import BatchNorm as PygBatchNorm

        try:
            return PygBatchNorm(channels, **kw, dtype=dtype)
        except TypeError as err:
            raise ValueError(f"{owner}: norm_kwargs {kw}: {err}") from None
    from arraygnn.nn.linear import BatchNorm

    return BatchNorm(channels, kw.get("eps", 1e-5), kw.get("affine", True), dtype=dtype)


def takes_batch(norm: Any) -> bool:
    """Whether a norm layer's call takes ``batch`` (PyG passes ``batch, batch_size`` then)."""
    if norm is None:
        return False
    try:
        return "batch" in inspect.signature(norm.__call__).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
