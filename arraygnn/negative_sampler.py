"""Negative samplers for link prediction (DGL's ``dgl.dataloading.negative_sampler``).

A negative sampler is called as ``sampler(g, eids)`` (or ``sampler(g, {etype: eids})``)
with the seed edges of a mini-batch and returns the negative pairs ``(src, dst)`` (or
``{canonical etype: (src, dst)}``), each of the seed edge's type.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 3])), num_nodes=4)
>>> src, dst = Uniform(2, seed=0)(g, np.array([0, 1]))
>>> src.tolist(), dst.shape
([0, 0, 1, 1], (4,))
>>> src, dst = GlobalUniform(2, seed=0)(g, np.array([0, 1]))
>>> bool(g.has_edges_between(src, dst).any()), bool((src == dst).any())
(False, False)

RULE: ``Uniform(k)`` (= ``PerSourceUniform(k)``, as DGL >= 0.8) gives each seed edge
      ``(u, v)`` ``k`` pairs ``(u, v')`` in seed order, ``v'`` uniform over every node of
      the destination type (it may be an edge, or ``v`` itself, as DGL's).
RULE: ``GlobalUniform(k)`` draws ``len(eids) * k`` pairs with
      :func:`arraygnn.sampling.global_uniform_negative_sampling`: never an edge, no
      self-loop with ``exclude_self_loops``, sorted unique pairs without ``replace``; fewer
      can come back on a small or dense graph (as DGL's).
RULE: one generator per sampler, seeded once with ``seed`` (the same seed, the same
      negatives); ids in the graph's idtype, on its device.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn.graph.core import Graph, _as_ids, _check_range, check_graph
from arraygnn.graph.structure import _named_rel
from arraygnn.sampling import _check_redundancy, _rng, global_uniform_negative_sampling

__all__ = ["PerSourceUniform", "Uniform", "GlobalUniform"]


def _count(where: str, k: Any) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{where}: k must be an int, got {k!r}")
    if k < 0:
        raise ValueError(f"{where}: k must be >= 0, got {k}")
    return int(k)


class _NegativeSampler:
    """``sampler(g, eids)``: per edge type, ``_generate(g, eids, canonical, rng)``."""

    def __init__(self, k: int, seed: Any) -> None:
        self.k = _count(type(self).__name__, k)
        self._seed = seed
        self._gen: Any = None

    def __call__(self, g: Graph, eids: Any) -> Any:
        where = type(self).__name__
        check_graph(where, g)
        if self._gen is None:
            self._gen = _rng(g, self._seed)
        if isinstance(eids, Mapping):
            out = {}
            for key, ids in eids.items():
                c = _named_rel(where, "eids", g, key).canonical
                out[c] = self._generate(g, self._eids(g, ids, c, f"{where}: eids[{key!r}]"), c)
            return out
        if len(g.canonical_etypes) != 1:
            raise ValueError(
                f"{where}: the graph has edge types {g.canonical_etypes}; pass eids as "
                "{etype: ids}"
            )
        c = g.canonical_etypes[0]
        return self._generate(g, self._eids(g, eids, c, f"{where}: eids"), c)

    @staticmethod
    def _eids(g: Graph, ids: Any, c: Any, what: str) -> Any:
        arr = _as_ids(ids if not isinstance(ids, range) else list(ids), what)
        _check_range(arr, g._rels[c].num_edges, what, "edges")
        return g._xp().asarray(arr)

    def _generate(self, g: Graph, eids: Any, c: Any) -> tuple[Any, Any]:
        raise NotImplementedError


class PerSourceUniform(_NegativeSampler):
    """``k`` negatives ``(u, v')`` per seed edge ``(u, v)``, ``v'`` uniform over the
    destination type's nodes (DGL's ``PerSourceUniform`` / ``Uniform``).

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 3])), num_nodes=4)
    >>> src, dst = PerSourceUniform(3, seed=1)(g, np.array([2]))
    >>> src.tolist(), bool(((0 <= dst) & (dst < 4)).all())
    ([2, 2, 2], True)
    """

    def __init__(self, k: int, *, seed: Any = None) -> None:
        super().__init__(k, seed)

    def _generate(self, g: Graph, eids: Any, c: Any) -> tuple[Any, Any]:
        xp = g._xp()
        rel = g._rels[c]
        src = xp.repeat(rel.src[eids], self.k)
        n = g._num_dst[c[2]]
        if n == 0:  # no node to draw (only possible with no seed edges)
            return src, xp.zeros(src.shape[0], dtype=g.idtype)
        dst = xp.floor(self._gen.random(src.shape[0]) * n).astype(g.idtype)
        return src, xp.minimum(dst, n - 1)  # a draw of 1 - 2**-53 times n rounds up


Uniform = PerSourceUniform


class GlobalUniform(_NegativeSampler):
    """Up to ``k`` negatives per seed edge, pairs ``(u', v')`` uniform over the edge type's
    node pairs that are not edges (DGL's ``GlobalUniform``).

    ``redundancy`` is the oversampling factor of
    :func:`arraygnn.sampling.global_uniform_negative_sampling` (``None``: DGL's estimate
    from the graph's density, which is what DGL always uses).

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 3])), num_nodes=4)
    >>> src, dst = GlobalUniform(1, seed=0, replace=True)(g, np.array([0, 1, 2]))
    >>> src.shape[0] <= 3, bool(g.has_edges_between(src, dst).any())
    (True, False)
    """

    def __init__(
        self,
        k: int,
        exclude_self_loops: bool = True,
        replace: bool = False,
        redundancy: float | None = None,
        *,
        seed: Any = None,
    ) -> None:
        super().__init__(k, seed)
        self.exclude_self_loops = bool(exclude_self_loops)
        self.replace = bool(replace)
        self.redundancy = _check_redundancy("GlobalUniform", redundancy)

    def _generate(self, g: Graph, eids: Any, c: Any) -> tuple[Any, Any]:
        return global_uniform_negative_sampling(
            g,
            int(eids.shape[0]) * self.k,
            self.exclude_self_loops,
            self.replace,
            c,
            self.redundancy,
            seed=self._gen,
        )
