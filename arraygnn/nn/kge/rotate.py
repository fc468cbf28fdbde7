"""PyG's ``RotatE`` (Sun et al., 2019): relations are rotations by the angles ``rel_emb``;
``score = margin - || (h * e^{i theta_r}) - t ||_2`` over the real and imaginary parts
together. Evaluation as :class:`~arraygnn.nn.kge.KGEModel`.

>>> import numpy as np
>>> from arraygnn.nn.kge import RotatE
>>> RotatE(4, 2, 3, rng=0)(np.array([0]), np.array([1]), np.array([2])).shape
(1,)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import real_number
from arraygnn.nn.kge.base import KGEModel, _table, logits_loss, pyg_kge, xavier_bound

__all__ = ["RotatE"]


class RotatE(KGEModel):
    """PyG's ``RotatE(num_nodes, num_relations, hidden_channels, margin=1.0,
    sparse=False)``. Initial tables: Xavier uniform entities, angles uniform in ``[0,
    2 pi)``.

    Names: ``node_emb.weight``, ``node_emb_im.weight`` ``(num_nodes, hidden_channels)``,
    ``rel_emb.weight`` ``(num_relations, hidden_channels)`` (angles).
    """

    _child_names = ("node_emb", "rel_emb", "node_emb_im")
    _node_tables = ("node_emb", "node_emb_im")

    def __init__(
        self,
        num_nodes: int,
        num_relations: int,
        hidden_channels: int,
        margin: float = 1.0,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        super().__init__(num_nodes, num_relations, hidden_channels, sparse, dtype=dtype, rng=rng)
        self.margin = real_number("RotatE", "margin", margin)
        dt, f = self.node_emb.weight.dtype, self.hidden_channels
        b = xavier_bound(self.num_nodes, f)
        self.node_emb_im = _table(self.num_nodes, f, self._gen, dt, -b, b)
        self.rel_emb = _table(self.num_relations, f, self._gen, dt, 0.0, 2 * math.pi)

    def _pair(self, head: Any, rel: Any, tail: Any) -> Any:
        xp = get_namespace(rel[0])
        (h_re, h_im), (t_re, t_im) = head, tail
        r_re, r_im = xp.cos(rel[0]), xp.sin(rel[0])
        re = (r_re * h_re - r_im * h_im) - t_re
        im = (r_re * h_im + r_im * h_re) - t_im
        score = xp.sqrt((re * re + im * im).sum(axis=-1))
        return score.dtype.type(self.margin) - score

    def _loss(self, pos: Any, neg: Any) -> Any:
        return logits_loss(pos, neg)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, margin={self.margin:g}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> RotatE:
    """PyG's ``RotatE`` with its three tables and ``margin``."""
    return pyg_kge(RotatE, module, dtype, margin=module.margin)
