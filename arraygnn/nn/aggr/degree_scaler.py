"""PyG's ``DegreeScalerAggregation``: PNA's aggregators scaled by functions of each group's
size (Corso et al., principal neighbourhood aggregation).

``out = aggr(x)`` (one aggregation, or a ``MultiAggregation`` of a list), then for each
scaler ``out * s(d)`` with ``d`` the number of slices in the group: ``identity`` (1),
``amplification`` (``log(d + 1) / avg_log``), ``attenuation`` (``avg_log / log(max(d, 1) +
1)``), ``linear`` (``d / avg_lin``), ``inverse_linear`` (``avg_lin / max(d, 1)``), the
results side by side along the last dimension. ``avg_lin`` / ``avg_log`` are the mean
degree and mean ``log(degree + 1)`` of the training graphs' in-degree histogram ``deg``:
the averages and the scalers are :class:`~arraygnn.nn.PNAConv`'s own.

>>> import numpy as np
>>> from arraygnn.nn.aggr import DegreeScalerAggregation
>>> aggr = DegreeScalerAggregation("sum", ["identity", "linear"], deg=np.array([0, 0, 2]))
>>> aggr(np.ones((3, 1)), np.array([0, 0, 1])).tolist()
[[2.0, 2.0], [1.0, 0.5]]
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from arraygnn.nn.aggr.base import Aggregation, Groups
from arraygnn.nn.aggr.multi import MultiAggregation, _run, torch_promoted
from arraygnn.nn.pna_conv import SCALERS, PNAConv, _DegreeScaler

__all__ = ["DegreeScalerAggregation"]


class DegreeScalerAggregation(Aggregation):
    """PyG's ``DegreeScalerAggregation(aggr, scaler, deg, train_norm=False,
    aggr_kwargs=None)``.

    Args:
        aggr: an aggregation, its name, or a list of them (a ``MultiAggregation``, ``'cat'``).
        scaler: a scaler name or a list of them (``identity``, ``amplification``,
            ``attenuation``, ``linear``, ``inverse_linear``).
        deg: the training graphs' in-degree histogram (``deg[k]`` nodes of in-degree ``k``);
            a loaded state dict's ``avg_deg_lin`` / ``avg_deg_log`` replace its averages.
        train_norm: only says whether PyG learns the averages (they load either way).
        aggr_kwargs: arguments of the resolved aggregation(s).

    PyG needs ``index``; a ``ptr`` works here too (the group sizes are ``diff(ptr)``).

    Names (PyG): ``avg_deg_lin`` (1,), ``avg_deg_log`` (1,), ``aggr.*``.
    """

    _buffer_names = ("avg_deg_lin", "avg_deg_log")
    _child_names = ("aggr",)
    _takes_dtype = True

    def __init__(
        self,
        aggr: Any,
        scaler: str | Sequence[str],
        deg: Any,
        train_norm: bool = False,
        aggr_kwargs: Any = None,
        *,
        dtype: Any = np.float32,
    ) -> None:
        from arraygnn.nn.aggr.resolver import aggregation_resolver

        where = "DegreeScalerAggregation"
        if isinstance(aggr, (list, tuple)):
            self.aggr: Any = MultiAggregation(aggr, aggr_kwargs, dtype=dtype)
        elif isinstance(aggr, str) or callable(aggr):
            self.aggr = aggregation_resolver(aggr, dtype=dtype, **(aggr_kwargs or {}))
        else:
            raise ValueError(
                f"{where}: aggr must be a name, a list of names or an aggregation, got "
                f"{type(aggr).__name__}"
            )
        self.scaler = [scaler] if isinstance(scaler, str) else [str(s) for s in scaler]
        bad = [s for s in self.scaler if s not in SCALERS]
        if not self.scaler or bad:
            raise ValueError(f"{where}: scaler must be names from {SCALERS}, got {scaler!r}")
        self.train_norm = bool(train_norm)
        try:
            averages = _DegreeScaler(deg, dtype)
        except ValueError as err:
            raise ValueError(str(err).replace("PNAConv", where, 1)) from None
        self.avg_deg_lin = averages.avg_deg_lin
        self.avg_deg_log = averages.avg_deg_log

    def _forward(self, groups: Groups) -> Any:
        out = _run(self.aggr, groups)
        shape = [1] * out.ndim
        shape[groups.dim] = -1  # PyG: the degrees along dim of the result
        # an integer result (max, min, mul of integers) meets the float averages in their
        # dtype, as torch promotes it, and is scaled there
        scaled = out if out.dtype.kind == "f" else out.astype(self.avg_deg_lin.dtype)
        deg = groups.counts().astype(scaled.dtype).reshape(shape)
        pna = SimpleNamespace(aggr_module=self)  # PNAConv._scale reads its aggr_module
        outs = []
        for name in self.scaler:
            outs.append(
                out if name == "identity" else scaled * PNAConv._scale(pna, groups.xp, name, deg)
            )
        if len(outs) == 1:
            return outs[0]
        return groups.xp.concatenate(torch_promoted(outs), axis=-1)

    def extra_repr(self) -> str:
        return f"{self.aggr!r}, scaler={self.scaler}"
