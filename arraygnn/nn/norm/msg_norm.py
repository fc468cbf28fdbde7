"""PyG's ``MessageNorm``: messages rescaled to the norm of the node's own features.

``y = msg / max(||msg||_p, 1e-12) * ||x||_p * scale`` per row (``torch.nn.functional
.normalize``'s guard), ``scale`` a learnt one-element weight.

>>> import numpy as np
>>> from arraygnn.nn.norm import MessageNorm
>>> MessageNorm()(np.array([[3.0, 4.0]]), np.array([[0.0, 2.0]])).tolist()
[[0.0, 5.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module
from arraygnn.nn.norm._graphs import check_input, number

__all__ = ["MessageNorm"]


class MessageNorm(Module):
    """PyG's ``torch_geometric.nn.norm.MessageNorm``: call as ``norm(x, msg, p=2)``.

    Args:
        learn_scale: whether PyG learns ``scale`` (kept for parity; the loaded value is
            used either way).

    Shapes:
        - input: x ``(N, F)``, msg ``(N, F')`` -> output ``(N, F')``
    """

    _param_names = ("scale",)

    def __init__(self, learn_scale: bool = False, *, dtype: Any = np.float32) -> None:
        self.learn_scale = bool(learn_scale)
        self.scale = np.ones(1, dtype=dtype)

    def __call__(self, x: Any, msg: Any, p: float = 2.0) -> Any:
        check_input("MessageNorm", x)
        check_input("MessageNorm", msg)
        if x.ndim != msg.ndim or x.shape[:-1] != msg.shape[:-1]:
            raise ValueError(
                f"MessageNorm: x {tuple(x.shape)} and msg {tuple(msg.shape)} must have the "
                "same rows"
            )
        p = number("MessageNorm", "p", p)
        if p == 0:
            raise ValueError("MessageNorm: p must be > 0 (or inf)")
        xp = get_namespace(x)
        dtype = np.result_type(msg.dtype, self.scale.dtype)
        msg_norm = xp.linalg.norm(msg, ord=p, axis=-1, keepdims=True)
        x_norm = xp.linalg.norm(x, ord=p, axis=-1, keepdims=True)
        guard = xp.maximum(msg_norm, dtype.type(1e-12))
        return msg / guard * x_norm * self.scale

    def extra_repr(self) -> str:
        return f"learn_scale={self.learn_scale}"
