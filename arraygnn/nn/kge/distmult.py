"""PyG's ``DistMult`` (Yang et al., 2015): ``score = sum(e_h * e_r * e_t)``. Evaluation as
:class:`~arraygnn.nn.kge.KGEModel` (``test`` scores the candidate tails of each step with
the same element-wise product and sum as ``forward``).

>>> import numpy as np
>>> from arraygnn.nn.kge import DistMult
>>> DistMult(4, 2, 3, rng=0)(np.array([0]), np.array([1]), np.array([2])).shape
(1,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._module import real_number
from arraygnn.nn.kge.base import KGEModel, margin_ranking_loss, pyg_kge

__all__ = ["DistMult"]


def triple_dot(x: Any, y: Any, z: Any) -> Any:
    """``(x * y * z).sum(-1)`` (PyG's ``triple_dot``)."""
    return (x * y * z).sum(axis=-1)


class DistMult(KGEModel):
    """PyG's ``DistMult(num_nodes, num_relations, hidden_channels, margin=1.0,
    sparse=False)`` (``margin``, ``sparse``: training only). Initial tables: Xavier
    uniform.

    Names: ``node_emb.weight``, ``rel_emb.weight`` ``(rows, hidden_channels)``.
    """

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
        self.margin = real_number("DistMult", "margin", margin)

    def _loss(self, pos: Any, neg: Any) -> Any:
        return margin_ranking_loss(pos, neg, self.margin, "DistMult.loss")

    def _pair(self, head: Any, rel: Any, tail: Any) -> Any:
        return triple_dot(head[0], rel[0], tail[0])


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> DistMult:
    """PyG's ``DistMult`` with its tables and ``margin``."""
    return pyg_kge(DistMult, module, dtype, margin=module.margin)
