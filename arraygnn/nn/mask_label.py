"""PyG's ``MaskLabel`` (Shi et al., 2021, the label trick of ``UniMP``): an embedding of
the known labels added to (``'add'``) or concatenated with (``'concat'``) the features of
the masked nodes.

>>> import numpy as np
>>> ml = MaskLabel(num_classes=3, out_channels=2, method="concat", rng=0)
>>> mask = np.array([True, False, True, False])
>>> ml(np.zeros((4, 2), np.float32), np.array([0, 2, 1, 0]), mask).shape
(4, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.label_propagation import check_mask
from arraygnn.nn.linear import _rng

__all__ = ["MaskLabel"]


class MaskLabel(Module):
    """PyG's ``MaskLabel``.

    Args:
        num_classes: rows of the label embedding ``emb``.
        out_channels: its width (``'add'``: the features' width).
        method: ``'add'`` (default) or ``'concat'``.

    Call as ``ml(x, y, mask)``: ``y`` ``(N,)`` integer labels (only the masked ones are
    read), ``mask`` a boolean ``(N,)`` mask or node ids. ``'add'``: a copy of ``x`` with
    ``emb[y[i]]`` added to each masked row; ``'concat'``: ``[x, E]`` with ``E`` zero except
    ``emb[y[i]]`` on the masked rows. ``MaskLabel.ratio_mask(mask, ratio, rng=None)`` keeps
    each set entry with probability ``ratio`` (PyG's, with NumPy's generator).

    Names: ``emb.weight`` ``(num_classes, out_channels)``.
    """

    _child_names = ("emb",)

    def __init__(
        self,
        num_classes: int,
        out_channels: int,
        method: str = "add",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if method not in ("add", "concat"):
            raise ValueError(f"MaskLabel: method must be 'add' or 'concat', got {method!r}")
        self.method = method
        self.num_classes = layer_size("MaskLabel", "num_classes", num_classes)
        self.out_channels = layer_size("MaskLabel", "out_channels", out_channels)
        self.emb = _Embedding(self.num_classes, self.out_channels, _rng(rng), dtype)

    def __call__(self, x: Any, y: Any, mask: Any) -> Any:
        from arraygnn.ops._common import check_index

        if not is_array(x) or x.ndim != 2:
            raise TypeError(f"MaskLabel: x must be a 2-D array (N, F), got {type(x).__name__}")
        n = int(x.shape[0])
        if not is_array(y) or y.shape != (n,):
            raise ValueError(
                f"MaskLabel: y must hold one label per node ({n},), got "
                f"{getattr(y, 'shape', type(y).__name__)}"
            )
        if mask is None:
            raise ValueError("MaskLabel: mask is required (the nodes whose labels are used)")
        mask = check_mask("MaskLabel", mask, n)
        labels = y[mask]
        check_index("MaskLabel: y[mask]", labels, self.num_classes)
        rows = self.emb.weight[labels]
        xp = get_namespace(x, rows)
        if self.method == "concat":
            out = xp.zeros((n, self.out_channels), dtype=x.dtype)
            out[mask] = rows
            return xp.concatenate([x, out], axis=-1)
        if x.dtype.kind != "f":  # PyG's in-place add fails too (float can't be cast to long)
            raise TypeError(
                f"MaskLabel: x must be floating point for method='add', got dtype {x.dtype}"
            )
        if x.shape[1] != self.out_channels:
            raise ValueError(
                f"MaskLabel: method='add' needs x with out_channels={self.out_channels} "
                f"features, got {x.shape[1]}"
            )
        out = x.copy()
        out[mask] += rows
        return out

    @staticmethod
    def ratio_mask(mask: Any, ratio: float, rng: Any = None) -> Any:
        """``mask`` with each set entry kept with probability ``ratio`` (a new array)."""
        if not is_array(mask) or mask.dtype != np.bool_ or mask.ndim != 1:
            raise TypeError(
                "MaskLabel.ratio_mask: mask must be a 1-D boolean array, got "
                f"{getattr(mask, 'dtype', type(mask).__name__)}"
            )
        if isinstance(ratio, (bool, np.bool_)) or not isinstance(ratio, (int, float, np.number)):
            raise TypeError(
                f"MaskLabel.ratio_mask: ratio must be a number, got {type(ratio).__name__}"
            )
        xp = get_namespace(mask)
        out = mask.copy()
        n = int(mask.sum())
        draw = _rng(rng).random(n) < ratio
        out[mask] = xp.asarray(draw)
        return out

    def extra_repr(self) -> str:
        return f"{self.num_classes}, {self.out_channels}, method={self.method}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``MaskLabel`` with its label embedding."""
    weight = module.emb.weight
    layer = MaskLabel(int(weight.shape[0]), int(weight.shape[1]), module.method, dtype=dtype)
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
