"""DGL's ``JumpingKnowledge(mode='cat', in_feats=None, num_layers=None)``: the layers'
outputs concatenated, their element-wise maximum, or (``'lstm'``) a bidirectional LSTM
scoring each layer per node and the softmax-weighted sum.

The maths and the parameter names (``lstm.*``, ``att.*``) are PyG's, so this is
:class:`arraygnn.nn.JumpingKnowledge` with DGL's signature (``in_feats``, a default mode)
and DGL's call ``jk(feat_list)``.

>>> import numpy as np
>>> DGLJumpingKnowledge()([np.zeros((2, 3)), np.ones((2, 3))]).shape
(2, 6)
>>> jk = DGLJumpingKnowledge("lstm", in_feats=3, num_layers=2, rng=0)
>>> jk([np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)]).shape
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn.models import JumpingKnowledge

__all__ = ["DGLJumpingKnowledge", "from_dgl_module"]


class DGLJumpingKnowledge(JumpingKnowledge):
    """DGL's ``JumpingKnowledge`` (``dgl.nn.pytorch.utils``); ``jk(feat_list)``.

    Args:
        mode: ``'cat'`` (default), ``'max'`` or ``'lstm'``.
        in_feats, num_layers: the width and number of the representations (``'lstm'``;
            the LSTM's hidden size is ``(num_layers * in_feats) // 2``).

    Shapes:
        - input: a list of ``(N, in_feats)`` arrays
        - output: ``(N, num_layers * in_feats)`` (``'cat'``) or ``(N, in_feats)``
    """

    _dgl_supported = True

    def __init__(
        self,
        mode: str = "cat",
        in_feats: int | None = None,
        num_layers: int | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if mode not in ("cat", "max", "lstm"):
            raise ValueError(
                f"DGLJumpingKnowledge: mode must be 'cat', 'max' or 'lstm', got {mode!r}"
            )
        if mode == "lstm" and (in_feats is None or num_layers is None):
            raise ValueError("DGLJumpingKnowledge: mode='lstm' needs in_feats and num_layers")
        super().__init__(mode, in_feats, num_layers, dtype=dtype, rng=rng)
        self.in_feats = in_feats

    def __call__(self, feat_list: Any) -> Any:
        if not isinstance(feat_list, (list, tuple)) or not feat_list:
            raise TypeError("DGLJumpingKnowledge: feat_list must be a non-empty list of arrays")
        return super().__call__(list(feat_list))

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGLJumpingKnowledge:
    """DGL's ``JumpingKnowledge`` -> :class:`DGLJumpingKnowledge` (``'lstm'``: weights)."""
    if module.mode != "lstm":
        return DGLJumpingKnowledge(module.mode, dtype=dtype)
    in_feats, hidden = module.lstm.input_size, module.lstm.hidden_size
    # DGL keeps no num_layers; any count with (count * in_feats) // 2 == hidden builds it
    layers = -(-2 * hidden // in_feats)
    layer = DGLJumpingKnowledge("lstm", in_feats, layers, dtype=dtype)
    layer.load_state_dict(module.state_dict(), format="dgl")
    return layer
