"""PyG's ``PatchTransformerAggregation`` (a transformer over patches of each group's
slices), and the sinusoidal ``PositionalEncoding`` of ``torch_geometric.nn.encoding``.

Each group's slices are projected (``lin``), laid out as PyG's ``to_dense_batch`` with ``M``
columns (``max_num_elements``, by default the largest group plus one, rounded down to a
multiple of ``patch_size``; zero padding, slices beyond ``M`` dropped), cut into ``M /
patch_size`` patches whose rows are concatenated and projected (``pad_projector``), given
positional encodings, passed through ``MultiheadAttentionBlock`` s (no mask: padding takes
part, as PyG's) and reduced over the patches by each of ``aggr`` (``sum``, ``mean``,
``min``, ``max``, ``var``, ``std``; torch's unbiased ``var`` / ``std``), then ``fc``.
Needs a sorted ``index``.

>>> import numpy as np
>>> from arraygnn.nn.aggr import PatchTransformerAggregation
>>> aggr = PatchTransformerAggregation(3, 5, patch_size=2, hidden_channels=4, rng=0)
>>> aggr(np.ones((5, 3), np.float32), np.array([0, 0, 1, 1, 1])).shape
(2, 5)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.aggr.base import Groups
from arraygnn.nn.aggr.dense import DenseAggregation
from arraygnn.nn.aggr.set_transformer import MultiheadAttentionBlock
from arraygnn.nn.linear import Linear, _ModuleList, _rng

__all__ = ["PatchTransformerAggregation", "PositionalEncoding", "from_pyg_module"]

_REDUCTIONS = ("sum", "mean", "min", "max", "var", "std")


class PositionalEncoding(Module):
    """PyG's ``PositionalEncoding(out_channels, base_freq=1e-4, granularity=1.0)``:
    ``[sin(p * f), cos(p * f)]`` for positions ``p`` (divided by ``granularity``) and the
    ``out_channels / 2`` frequencies ``f = base_freq ** linspace(0, 1)`` (buffer
    ``frequency``). A negative ``base_freq`` or a zero ``granularity`` is a ``ValueError``
    (PyG's module gives NaN / inf there); positions must be a real (or bool) array.

    Shapes:
        - input: positions, any shape (flattened)
        - output: ``(P, out_channels)``
    """

    _buffer_names = ("frequency",)

    def __init__(
        self,
        out_channels: int,
        base_freq: float = 1e-4,
        granularity: float = 1.0,
        *,
        dtype: Any = np.float32,
    ) -> None:
        out_channels = layer_size("PositionalEncoding", "out_channels", out_channels)
        if out_channels % 2:
            raise ValueError(
                "PositionalEncoding: sinusoidal encodings need an even out_channels, got "
                f"{out_channels}"
            )
        self.out_channels = out_channels
        self.base_freq = float(base_freq)
        self.granularity = float(granularity)
        if not (math.isfinite(self.base_freq) and self.base_freq >= 0):  # PyG: NaN frequencies
            raise ValueError(
                f"PositionalEncoding: base_freq must be a finite number >= 0, got {base_freq!r}"
            )
        if not math.isfinite(self.granularity) or self.granularity == 0:  # PyG: inf / NaN
            raise ValueError(
                "PositionalEncoding: granularity must be a finite nonzero number, got "
                f"{granularity!r}"
            )
        self.frequency = (self.base_freq ** np.linspace(0, 1, out_channels // 2)).astype(dtype)

    def __call__(self, x: Any) -> Any:
        from arraygnn._namespace import get_namespace, is_array, torch_hint

        if not is_array(x):
            raise TypeError(
                "PositionalEncoding: x must be a NumPy or CuPy array of positions, got "
                f"{type(x).__name__}{torch_hint(x)}"
            )
        if x.dtype.kind not in "fiub":
            raise TypeError(f"PositionalEncoding: x must hold real numbers, got dtype {x.dtype}")
        xp = get_namespace(x, self.frequency)
        if x.dtype.kind != "f":  # integer positions: torch computes in the buffer's float
            x = x.astype(self.frequency.dtype)
        if self.granularity != 1.0:
            x = x / self.granularity
        out = x.reshape(-1, 1) * self.frequency.reshape(1, -1)
        return xp.concatenate([xp.sin(out), xp.cos(out)], axis=-1)

    def extra_repr(self) -> str:
        return f"{self.out_channels}"


class PatchTransformerAggregation(DenseAggregation):
    """PyG's ``PatchTransformerAggregation(in_channels, out_channels, patch_size,
    hidden_channels, num_transformer_blocks=1, heads=1, dropout=0.0, aggr='mean')``.

    Names (PyG): ``lin.*``, ``pad_projector.*``, ``pe.frequency``, ``blocks.{i}.*``
    (``MultiheadAttentionBlock`` with layer norms), ``fc.*``.

    Shapes:
        - input: ``x`` ``(E, in_channels)``, sorted ``index`` ``(E,)`` (or ``ptr``)
        - output: ``(G, out_channels)``
    """

    _takes_dtype = True
    _child_names = ("lin", "pad_projector", "pe", "blocks", "fc")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        patch_size: int,
        hidden_channels: int,
        num_transformer_blocks: int = 1,
        heads: int = 1,
        dropout: float = 0.0,
        aggr: str | list[str] = "mean",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = type(self).__name__
        gen = _rng(rng)
        self.in_channels = layer_size(where, "in_channels", in_channels)
        self.out_channels = layer_size(where, "out_channels", out_channels)
        self.patch_size = layer_size(where, "patch_size", patch_size, minimum=1)
        hidden = layer_size(where, "hidden_channels", hidden_channels, minimum=1)
        dropout = probability(where, "dropout", dropout)
        self.aggrs = [aggr] if isinstance(aggr, str) else list(aggr)
        bad = [a for a in self.aggrs if a not in _REDUCTIONS]
        if not self.aggrs or bad:
            raise ValueError(f"{where}: aggr must be one or more of {_REDUCTIONS}, got {aggr!r}")
        self.lin = Linear(in_channels, hidden, dtype=dtype, rng=gen)
        self.pad_projector = Linear(self.patch_size * hidden, hidden, dtype=dtype, rng=gen)
        self.pe = PositionalEncoding(hidden, dtype=dtype)
        blocks = layer_size(where, "num_transformer_blocks", num_transformer_blocks)
        self.blocks = _ModuleList(
            [
                MultiheadAttentionBlock(hidden, heads, True, dropout, dtype=dtype, rng=gen)
                for _ in range(blocks)
            ]
        )
        self.fc = Linear(hidden * len(self.aggrs), out_channels, dtype=dtype, rng=gen)

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        where = type(self).__name__
        groups.require_matrix("reading each group as a sequence")
        xp = groups.xp
        if max_num_elements is None:
            counts = groups.counts()
            if counts.shape[0] == 0:
                raise ValueError(f"{where}: there are no groups (dim_size=0)")
            max_num_elements = int(counts.max()) + 1
        else:
            max_num_elements = layer_size(where, "max_num_elements", max_num_elements)
        width = max_num_elements // self.patch_size * self.patch_size
        if width == 0:
            raise ValueError(
                f"{where}: max_num_elements={max_num_elements} holds no patch of patch_size="
                f"{self.patch_size} (PyG gives NaN or fails on zero patches)"
            )
        x, _ = self.dense(groups, self.lin(groups.x0), width)
        x = x.reshape(x.shape[0], width // self.patch_size, self.patch_size * x.shape[-1])
        x = self.pad_projector(x)
        x += self.pe(xp.arange(x.shape[1], dtype=np.int64)).astype(x.dtype, copy=False)
        for block in self.blocks:
            x = block(x, x)
        outs = []
        with np.errstate(invalid="ignore", divide="ignore"):  # one patch: NaN, as torch
            for name in self.aggrs:
                if name in ("var", "std"):
                    outs.append(getattr(xp, name)(x, axis=1, ddof=1))
                else:
                    outs.append(getattr(xp, name)(x, axis=1))
        return self.fc(outs[0] if len(outs) == 1 else xp.concatenate(outs, axis=1))

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, patch_size={self.patch_size}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> PatchTransformerAggregation:
    """PyG's ``PatchTransformerAggregation`` -> ours, weights loaded."""
    heads = module.blocks[0].heads if len(module.blocks) else 1
    dropout = module.blocks[0].dropout if len(module.blocks) else 0.0
    layer = PatchTransformerAggregation(
        module.in_channels,
        module.out_channels,
        module.patch_size,
        module.lin.out_features,
        len(module.blocks),
        heads,
        dropout,
        list(module.aggrs),
        dtype=dtype,
    )
    layer.pe.base_freq = float(module.pe.base_freq)
    layer.pe.granularity = float(module.pe.granularity)
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
