"""PyG's :class:`HalfHop` (Azabou et al., 2023): put a "slow" node in the middle of edges.

Each node is picked with probability ``p`` (one uniform draw per node from ``seed=``); every
non-loop edge ``u -> v`` into a picked ``v`` is replaced by ``u -> s``, ``s -> v`` and
``v -> s`` with a new node ``s`` whose features are ``alpha * x_u + (1 - alpha) * x_v``.
The edges come out as PyG's: the kept edges, the self-loops, then the three groups of new
edges; ``slow_node_mask`` marks the new nodes.

RULE: an integer or bool ``x`` comes out float32 (PyG's ``alpha * x`` promotes it).
RULE: only ``x`` (and an explicit ``num_nodes``) grow with the new nodes, as PyG: other
      per-node arrays (``y``, masks) keep their rows, meant for ``out[~slow_node_mask]``.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.array([[0.0], [2.0]]), edge_index=np.array([[0], [1]]))
>>> out = HalfHop(seed=0)(d)
>>> out.x.ravel().tolist(), out.edge_index.tolist()
([0.0, 2.0, 1.0], [[0, 2, 1], [2, 1, 2]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.transforms._draws import device_generator, seed_arg
from arraygnn.transforms._on_batch import refuse_batch
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph

__all__ = ["HalfHop"]


def _unit(name: str, value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"HalfHop: {name} must be a number in [0, 1], got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"HalfHop: {what} has to be between 0 and 1 (got {value!r})")
    return float(value)


class HalfHop(BaseTransform):
    """Half-hop upsampling (PyG's ``HalfHop``; ``alpha`` the interpolation factor, ``p``
    the probability of half-hopping a node's incoming edges, ``seed=`` the draws). A graph
    with ``edge_weight`` or ``edge_attr`` is refused, as PyG. ``Data`` only.

    >>> HalfHop(alpha=0.25, p=0.5)
    HalfHop(alpha=0.25, p=0.5)
    """

    def __init__(self, alpha: float = 0.5, p: float = 1.0, *, seed: Any = None) -> None:
        self.alpha = _unit("alpha", alpha, "interpolation factor")
        self.p = _unit("p", p, "ratio of half-hopped edges")
        self._rng = seed_arg("HalfHop", seed)

    def forward(self, data: Any) -> Any:
        where = "HalfHop"
        refuse_batch(
            where,
            data,
            "its slow nodes have no graph id: PyG leaves 'batch' a row per slow node short",
        )
        ei, n = checked_graph(where, data)
        if "edge_weight" in data or "edge_attr" in data:
            raise ValueError(
                f"{where}: augmentation is not supported if data contains 'edge_weight' or "
                "'edge_attr'"
            )
        if "x" not in data:
            raise ValueError(f"{where}: data has no x")
        x = data.x
        xp = get_namespace(x, ei)
        loop = ei[0] == ei[1]
        loops, ei = ei[:, loop], ei[:, ~loop]
        gen = device_generator(xp, self._rng, where)
        node_mask = gen.random(n) < self.p
        hop = node_mask[ei[1]]
        to_hop, kept = ei[:, hop], ei[:, ~hop]
        m = int(to_hop.shape[1])
        slow = (xp.arange(m) + n).astype(ei.dtype)
        # PyG: a float x keeps its dtype; ``alpha * x`` of an integer / bool x is float32
        # (torch's default) and ``torch.cat`` promotes x with it
        fdtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
        xf = x.astype(fdtype, copy=False)
        x_slow = self.alpha * xf[to_hop[0]] + (1 - self.alpha) * xf[to_hop[1]]
        data.x = xp.concatenate([xf, x_slow.astype(fdtype, copy=False)])
        data.edge_index = xp.concatenate(
            [
                kept,
                loops,
                xp.stack([to_hop[0], slow]),
                xp.stack([slow, to_hop[1]]),
                xp.stack([to_hop[1], slow]),
            ],
            axis=1,
        )
        data.slow_node_mask = xp.concatenate([xp.zeros(n, bool), xp.ones(m, bool)])
        if "num_nodes" in data:
            data.num_nodes = n + m
        return data

    def __repr__(self) -> str:
        return f"HalfHop(alpha={self.alpha}, p={self.p})"
