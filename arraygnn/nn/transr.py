"""DGL's ``TransR`` score (Lin et al., 2015): ``-|| M_r h + r - M_r t ||_p`` with a
projection matrix ``M_r`` ``(nfeats, rfeats)`` and an embedding ``r`` per relation.

How it runs: by linearity ``M_r h - M_r t = M_r (h - t)``, so each triple's difference is
projected once by :func:`arraygnn.ops.gather_mm` (row ``i`` times ``M[rels[i]]``): no
``(E, nfeats, rfeats)`` array of gathered matrices (DGL gathers one) and half the
products. The score is the ``p``-norm of :mod:`arraygnn.nn.kge.transe` (``torch.norm``).

>>> import numpy as np
>>> scorer = TransR(num_rels=3, rfeats=2, nfeats=4, rng=0)
>>> h = np.ones((5, 4), np.float32)
>>> scorer(h, h, np.array([0, 1, 2, 0, 1])).shape
(5,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._graph_input import check_float_features
from arraygnn.nn._module import layer_size
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.kge.transe import p_norm
from arraygnn.nn.linear import _check_features, _rng

__all__ = ["TransR"]


def check_p(where: str, p: Any) -> float:
    """The norm order ``p``: a number ``>= 0`` (``inf`` allowed), as ``torch.norm``."""
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: p must be a number (1 or 2 in DGL's use), got {p!r}")
    if not float(p) >= 0:
        raise ValueError(f"{where}: p must be >= 0, got {p}")
    return float(p)


class TransR(DGLModule):
    r"""DGL's ``TransR(num_rels, rfeats, nfeats, p=1)``:
    ``scorer(h_head, h_tail, rels)`` -> ``(E,)`` scores
    :math:`-\Vert M_r h + r - M_r t \Vert_p`.

    ``h_head`` / ``h_tail`` are ``(E, nfeats)`` floating arrays, ``rels`` ``(E,)`` integer
    relation ids in ``[0, num_rels)``. Initial tables: standard normal (``nn.Embedding``).

    Names (DGL's): ``rel_emb.weight`` ``(num_rels, rfeats)``, ``rel_project.weight``
    ``(num_rels, nfeats * rfeats)`` (row ``r`` is ``M_r`` in row-major order).
    """

    _child_names = ("rel_emb", "rel_project")

    def __init__(
        self,
        num_rels: int,
        rfeats: int,
        nfeats: int,
        p: float = 1,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "TransR"
        self.num_rels = layer_size(name, "num_rels", num_rels)
        self.rfeats = layer_size(name, "rfeats", rfeats)
        self.nfeats = layer_size(name, "nfeats", nfeats)
        self.p = check_p(name, p)
        gen = _rng(rng)
        self.rel_emb = _Embedding(self.num_rels, self.rfeats, gen, dtype)
        self.rel_project = _Embedding(self.num_rels, self.nfeats * self.rfeats, gen, dtype)

    def __call__(self, h_head: Any, h_tail: Any, rels: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops._common import check_index

        name = "TransR"
        weight = self.rel_emb.weight
        _check_features(h_head, self.nfeats, f"{name} h_head", weight)
        _check_features(h_tail, self.nfeats, f"{name} h_tail", weight)
        for what, value in (("h_head", h_head), ("h_tail", h_tail)):
            if value.ndim != 2:
                raise ValueError(
                    f"{name}: {what} must be (E, nfeats={self.nfeats}), got shape "
                    f"{tuple(value.shape)}"
                )
        check_float_features(name, h_head, h_tail, what="h_head and h_tail")
        check_index(f"{name}: rels", rels, self.num_rels)
        n = {int(h_head.shape[0]), int(h_tail.shape[0]), int(rels.shape[0])}
        if len(n) != 1:
            raise ValueError(
                f"{name}: h_head, h_tail and rels must have one length, got "
                f"{h_head.shape[0]}, {h_tail.shape[0]}, {rels.shape[0]}"
            )
        project = self.rel_project.weight.reshape(self.num_rels, self.nfeats, self.rfeats)
        dtype = np.result_type(h_head.dtype, h_tail.dtype, weight.dtype)
        diff = h_head.astype(dtype, copy=False) - h_tail.astype(dtype, copy=False)
        dist = ops.gather_mm(diff, project.astype(dtype, copy=False), idx_b=rels)
        dist += ops.gather(weight, rels).astype(dtype, copy=False)
        return -p_norm(dist, self.p, consume=True)

    def extra_repr(self) -> str:
        return f"num_rels={self.num_rels}, rfeats={self.rfeats}, nfeats={self.nfeats}, p={self.p:g}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> TransR:
    """DGL's ``TransR`` with its two tables and ``p``."""
    from arraygnn.nn.weights import _load

    layer = TransR(
        module.rel_emb.num_embeddings, module.rfeats, module.nfeats, module.p, dtype=dtype
    )
    return _load(layer, module, "dgl")
