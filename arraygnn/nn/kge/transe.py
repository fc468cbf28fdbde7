"""PyG's ``TransE`` (Bordes et al., 2013): ``score = -|| n(e_h) + e_r - n(e_t) ||_p`` with
``n`` the ``p``-norm normalisation (``F.normalize``: rows divided by ``max(||x||_p,
1e-12)``). Evaluation as :class:`~arraygnn.nn.kge.KGEModel`.

>>> import numpy as np
>>> from arraygnn.nn.kge import TransE
>>> model = TransE(4, 2, 3, p_norm=2.0, rng=0)
>>> model(np.array([0]), np.array([1]), np.array([2])).shape
(1,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import real_number
from arraygnn.nn.kge.base import KGEModel, margin_ranking_loss, pyg_kge

__all__ = ["TransE"]


def p_norm(x: Any, p: float, consume: bool = False) -> Any:
    """``torch.norm(x, p, dim=-1)``: ``(sum |x|^p)^(1/p)``; ``p=inf`` the largest
    ``|x|``, ``p=0`` the count of non-zeros. ``consume``: ``x`` is a temporary that may
    be overwritten (no second array of its size)."""
    xp = get_namespace(x)
    a = xp.abs(x, out=x) if consume and p != 0 else xp.abs(x)
    if p == 1:
        return a.sum(axis=-1)
    if p == 2:
        return xp.sqrt((a * a).sum(axis=-1))
    if p == np.inf:
        return a.max(axis=-1, initial=0) if xp is np else a.max(axis=-1)
    if p == 0:
        return (x != 0).sum(axis=-1).astype(x.dtype)
    return (a**p).sum(axis=-1) ** (1.0 / p)


def normalize(x: Any, p: float) -> Any:
    """``F.normalize(x, p, dim=-1)``: ``x / max(||x||_p, 1e-12)``."""
    xp = get_namespace(x)
    return x / xp.maximum(p_norm(x, p), x.dtype.type(1e-12))[..., None]


class TransE(KGEModel):
    """PyG's ``TransE(num_nodes, num_relations, hidden_channels, margin=1.0, p_norm=1.0,
    sparse=False)``; ``margin`` and ``sparse`` only matter in training (kept for the
    record). Initial tables: uniform in ``+-6 / sqrt(hidden_channels)``, relations
    ``p``-normalised.

    Names: ``node_emb.weight``, ``rel_emb.weight`` ``(rows, hidden_channels)``.
    """

    def __init__(
        self,
        num_nodes: int,
        num_relations: int,
        hidden_channels: int,
        margin: float = 1.0,
        p_norm: float = 1.0,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        super().__init__(num_nodes, num_relations, hidden_channels, sparse, dtype=dtype, rng=rng)
        self.margin = real_number("TransE", "margin", margin)
        self.p_norm = real_number("TransE", "p_norm", p_norm)
        if not self.p_norm >= 0:
            raise ValueError(f"TransE: p_norm must be >= 0, got {p_norm}")
        bound = 6.0 / np.sqrt(self.hidden_channels) if self.hidden_channels else 0.0
        for table in (self.node_emb, self.rel_emb):
            table.weight = self._gen.uniform(-bound, bound, table.weight.shape).astype(
                table.weight.dtype
            )
        if self.hidden_channels:
            self.rel_emb.weight = normalize(self.rel_emb.weight, self.p_norm)

    def _prep(self, rows: tuple[Any, ...]) -> tuple[Any, ...]:
        return (normalize(rows[0], self.p_norm),)

    def _pair(self, head: Any, rel: Any, tail: Any) -> Any:
        return -p_norm((head[0] + rel[0]) - tail[0], self.p_norm, consume=True)

    def _loss(self, pos: Any, neg: Any) -> Any:
        return margin_ranking_loss(pos, neg, self.margin, "TransE.loss")

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, p_norm={self.p_norm:g}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> TransE:
    """PyG's ``TransE`` with its tables, ``margin`` and ``p_norm``."""
    return pyg_kge(TransE, module, dtype, margin=module.margin, p_norm=module.p_norm)
