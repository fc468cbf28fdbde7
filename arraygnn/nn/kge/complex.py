"""PyG's ``ComplEx`` (Trouillon et al., 2016): the real part of the Hermitian triple
product, ``<h_re, r_re, t_re> + <h_im, r_re, t_im> + <h_re, r_im, t_im> - <h_im, r_im,
t_re>``. Evaluation as :class:`~arraygnn.nn.kge.KGEModel`.

>>> import numpy as np
>>> from arraygnn.nn.kge import ComplEx
>>> ComplEx(4, 2, 3, rng=0)(np.array([0]), np.array([1]), np.array([2])).shape
(1,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn.kge.base import KGEModel, _table, logits_loss, pyg_kge, xavier_bound
from arraygnn.nn.kge.distmult import triple_dot

__all__ = ["ComplEx"]


class ComplEx(KGEModel):
    """PyG's ``ComplEx(num_nodes, num_relations, hidden_channels, sparse=False)``. Initial
    tables: Xavier uniform.

    Names: ``node_emb.weight``, ``node_emb_im.weight`` ``(num_nodes, hidden_channels)``,
    ``rel_emb.weight``, ``rel_emb_im.weight`` ``(num_relations, hidden_channels)``.
    """

    _child_names = ("node_emb", "rel_emb", "node_emb_im", "rel_emb_im")
    _node_tables = ("node_emb", "node_emb_im")
    _rel_tables = ("rel_emb", "rel_emb_im")

    def __init__(
        self,
        num_nodes: int,
        num_relations: int,
        hidden_channels: int,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        super().__init__(num_nodes, num_relations, hidden_channels, sparse, dtype=dtype, rng=rng)
        dt, f = self.node_emb.weight.dtype, self.hidden_channels
        b = xavier_bound(self.num_nodes, f)
        self.node_emb_im = _table(self.num_nodes, f, self._gen, dt, -b, b)
        b = xavier_bound(self.num_relations, f)
        self.rel_emb_im = _table(self.num_relations, f, self._gen, dt, -b, b)

    def _loss(self, pos: Any, neg: Any) -> Any:
        return logits_loss(pos, neg)

    def _pair(self, head: Any, rel: Any, tail: Any) -> Any:
        (h_re, h_im), (r_re, r_im), (t_re, t_im) = head, rel, tail
        return (
            triple_dot(h_re, r_re, t_re)
            + triple_dot(h_im, r_re, t_im)
            + triple_dot(h_re, r_im, t_im)
            - triple_dot(h_im, r_im, t_re)
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> ComplEx:
    """PyG's ``ComplEx`` with its four tables."""
    return pyg_kge(ComplEx, module, dtype)
