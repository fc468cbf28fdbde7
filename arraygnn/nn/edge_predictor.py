"""DGL's ``EdgePredictor``: a score for each pair of node representations, by dot
product, cosine similarity, element-wise product or concatenation, optionally followed by
a linear layer.

The per-pair dot products (``dot`` and ``cos``) are one ``einsum`` each: no ``(E, D)``
product array is formed. ``cos`` is torch's ``cosine_similarity`` (each row divided by
``max(||row||, 1e-8)``).

>>> import numpy as np
>>> pred = EdgePredictor("cos")
>>> a, b = np.array([[3.0, 4.0], [1.0, 0.0]]), np.array([[4.0, 3.0], [0.0, 2.0]])
>>> pred(a, b).round(4).tolist()
[[0.96], [0.0]]
>>> EdgePredictor("cat", 2, 3, rng=0)(a, b).shape
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._graph_input import check_float_features
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng

__all__ = ["EdgePredictor"]

_OPS = ("dot", "cos", "ele", "cat")
#: torch.nn.functional.cosine_similarity's default eps
COS_EPS = 1e-8


def _row_dot(xp: Any, a: Any, b: Any) -> Any:
    """``(a * b).sum(-1)`` of two ``(E, D)`` arrays without the product array."""
    return xp.einsum("ed,ed->e", a, b)


class EdgePredictor(DGLModule):
    r"""DGL's ``EdgePredictor(op, in_feats=None, out_feats=None, bias=False)``.

    ``op``: ``'dot'`` (:math:`h_i^\top h_j`, ``(E, 1)``), ``'cos'`` (cosine similarity,
    ``(E, 1)``), ``'ele'`` (:math:`h_i \odot h_j`, ``(E, D)``) or ``'cat'``
    (:math:`h_i \Vert h_j`, ``(E, 2D)``). With both ``in_feats`` and ``out_feats`` the result
    goes through ``linear``: ``Linear(1, out)`` for dot / cos, ``Linear(in, out)`` for ele,
    ``Linear(2 * in, out)`` for cat (DGL's rule; one of the two alone means no linear).

    Call as ``pred(h_src, h_dst)`` with two ``(E, D)`` floating arrays (the pairs' rows,
    e.g. ``h[src]`` and ``h[dst]``).

    Names (DGL's): ``linear.weight``, ``linear.bias``.
    """

    _child_names = ("linear",)

    def __init__(
        self,
        op: str,
        in_feats: int | None = None,
        out_feats: int | None = None,
        bias: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "EdgePredictor"
        if op not in _OPS:
            raise ValueError(f"{name}: op must be one of {list(_OPS)}, got {op!r}")
        self.op = op
        self.in_feats = None if in_feats is None else layer_size(name, "in_feats", in_feats)
        self.out_feats = None if out_feats is None else layer_size(name, "out_feats", out_feats)
        self.linear = None
        if self.in_feats is not None and self.out_feats is not None:
            fin = {"dot": 1, "cos": 1, "cat": 2 * self.in_feats}.get(op, self.in_feats)
            self.linear = Linear(fin, self.out_feats, bias, dtype=dtype, rng=_rng(rng))

    def __call__(self, h_src: Any, h_dst: Any) -> Any:
        name = "EdgePredictor"
        xp = get_namespace(h_src, h_dst)
        for what, value in (("h_src", h_src), ("h_dst", h_dst)):
            if getattr(value, "ndim", None) != 2:
                raise ValueError(
                    f"{name}: {what} must be (E, D), got shape {getattr(value, 'shape', None)}"
                )
        check_float_features(name, h_src, h_dst, what="h_src and h_dst")
        if tuple(h_src.shape) != tuple(h_dst.shape):
            raise ValueError(
                f"{name}: h_src and h_dst must have one shape, got {tuple(h_src.shape)} and "
                f"{tuple(h_dst.shape)}"
            )
        if self.linear is not None and self.op in ("ele", "cat"):
            _check_features(h_src, self.in_feats, f"{name} h_src")
        if self.op == "dot":
            h = _row_dot(xp, h_src, h_dst)[:, None]
        elif self.op == "cos":
            dtype = np.result_type(h_src.dtype, h_dst.dtype)
            eps = dtype.type(COS_EPS)
            n_src = xp.maximum(xp.sqrt(_row_dot(xp, h_src, h_src)), eps)
            n_dst = xp.maximum(xp.sqrt(_row_dot(xp, h_dst, h_dst)), eps)
            h = (_row_dot(xp, h_src, h_dst) / (n_src * n_dst))[:, None]
        elif self.op == "ele":
            h = h_src * h_dst
        else:
            h = xp.concatenate([h_src, h_dst], axis=-1)
        return h if self.linear is None else self.linear(h)

    def extra_repr(self) -> str:
        sizes = "" if self.linear is None else f", {self.in_feats}, {self.out_feats}"
        return f"{self.op!r}{sizes}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> EdgePredictor:
    """DGL's ``EdgePredictor`` with its linear layer (sizes read off it)."""
    from arraygnn.nn.weights import _load

    lin = module.linear
    if lin is None:
        return EdgePredictor(module.op, dtype=dtype)
    fin = lin.in_features // 2 if module.op == "cat" else lin.in_features
    if module.op in ("dot", "cos"):
        fin = 1  # any size: DGL replaced it by 1
    layer = EdgePredictor(module.op, fin, lin.out_features, lin.bias is not None, dtype=dtype)
    return _load(layer, module, "dgl")
