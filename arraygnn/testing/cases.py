"""A registry of labelled graph cases for testing graph kernels (DGL's graph-case idea).

Each :class:`GraphCase` is a small directed graph with a label saying what is special
about it: ``empty`` (no nodes), ``no-edges``, ``zero-in-degree``, ``isolated-last``,
``self-loops``, ``multi-edges``, ``bipartite``, ``hub`` (one target with most edges),
``power-law`` (random, seeded) and ``unsorted`` (edges in random order). Every case comes
in int32 and int64 index variants.

>>> [c.name for c in graph_cases(np.int32)][:3]
['empty', 'no-edges', 'zero-in-degree']
>>> case = get_case("self-loops", np.int64)
>>> case.edge_index.dtype, case.num_src_nodes == case.num_dst_nodes
(dtype('int64'), True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

__all__ = [
    "GraphCase",
    "CASE_NAMES",
    "graph_cases",
    "get_case",
    "random_graph",
    "powerlaw_edges",
]


@dataclass(frozen=True)
class GraphCase:
    """A labelled directed graph: ``edge_index`` [2, E] from ``num_src_nodes`` sources
    to ``num_dst_nodes`` targets (equal unless ``bipartite``)."""

    name: str
    edge_index: np.ndarray
    num_src_nodes: int
    num_dst_nodes: int

    @property
    def num_edges(self) -> int:
        return int(self.edge_index.shape[1])

    @property
    def src(self) -> np.ndarray:
        return self.edge_index[0]

    @property
    def dst(self) -> np.ndarray:
        return self.edge_index[1]

    def __repr__(self) -> str:
        return (
            f"GraphCase({self.name!r}, src={self.num_src_nodes}, dst={self.num_dst_nodes}, "
            f"edges={self.num_edges}, {self.edge_index.dtype})"
        )


def powerlaw_edges(
    num_nodes: int,
    num_edges: int,
    *,
    exponent: float = 2.1,
    seed: int = 0,
    dtype: type | np.dtype = np.int64,
    num_dst_nodes: int | None = None,
) -> np.ndarray:
    """Seeded random edges whose target in-degrees follow a power law (Zipf-like
    weights ``rank ** -1/(exponent-1)``), sources uniform; edges in random order.

    >>> powerlaw_edges(100, 500, seed=1).shape
    (2, 500)
    """
    rng = np.random.default_rng(seed)
    n_dst = num_nodes if num_dst_nodes is None else num_dst_nodes
    if num_edges == 0 or n_dst == 0 or num_nodes == 0:
        return np.zeros((2, 0), dtype=dtype)
    ranks = np.arange(1, n_dst + 1, dtype=np.float64)
    weights = ranks ** (-1.0 / (exponent - 1.0))
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    targets = np.searchsorted(cdf, rng.random(num_edges), side="right")
    np.minimum(targets, n_dst - 1, out=targets)
    relabel = rng.permutation(n_dst)  # hubs anywhere, not only at low ids
    dst = relabel[targets]
    src = rng.integers(0, num_nodes, num_edges)
    return np.stack([src, dst]).astype(dtype)


def random_graph(
    num_src_nodes: int,
    num_dst_nodes: int,
    num_edges: int,
    *,
    seed: int = 0,
    dtype: type | np.dtype = np.int64,
) -> np.ndarray:
    """Uniform random edge list [2, num_edges] (multi-edges and self-loops allowed)."""
    rng = np.random.default_rng(seed)
    if num_edges and (num_src_nodes == 0 or num_dst_nodes == 0):
        raise ValueError("edges need at least one source and one target node")
    src = rng.integers(0, max(num_src_nodes, 1), num_edges)
    dst = rng.integers(0, max(num_dst_nodes, 1), num_edges)
    return np.stack([src, dst]).astype(dtype)


def _pair(src: list[int], dst: list[int]) -> np.ndarray:
    return np.array([src, dst], dtype=np.int64).reshape(2, len(src))


def _empty() -> tuple[np.ndarray, int, int]:
    return _pair([], []), 0, 0


def _no_edges() -> tuple[np.ndarray, int, int]:
    return _pair([], []), 5, 5


def _zero_in_degree() -> tuple[np.ndarray, int, int]:
    # nodes 0 and 3 receive nothing
    return _pair([0, 0, 3, 3, 1, 2], [1, 2, 1, 4, 2, 4]), 5, 5


def _isolated_last() -> tuple[np.ndarray, int, int]:
    # node 5 has no edges at all (last row of the CSR is empty)
    return _pair([0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]), 6, 6


def _self_loops() -> tuple[np.ndarray, int, int]:
    return _pair([0, 1, 2, 3, 0, 2], [0, 1, 2, 3, 1, 2]), 4, 4


def _multi_edges() -> tuple[np.ndarray, int, int]:
    return _pair([0, 0, 0, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 0, 0, 1]), 3, 3


def _bipartite() -> tuple[np.ndarray, int, int]:
    # 6 sources -> 3 targets (target 1 empty)
    return _pair([0, 5, 3, 1, 4, 2, 5], [0, 2, 0, 2, 2, 0, 0]), 6, 3


def _hub() -> tuple[np.ndarray, int, int]:
    # target 3 gets 200 of 212 edges; a row long enough to matter for split strategies
    rng = np.random.default_rng(7)
    src = list(rng.integers(0, 50, 200)) + list(range(12))
    dst = [3] * 200 + [int(v) for v in rng.integers(0, 50, 12)]
    order = rng.permutation(len(src))
    return _pair([int(src[i]) for i in order], [int(dst[i]) for i in order]), 50, 50


def _power_law() -> tuple[np.ndarray, int, int]:
    return powerlaw_edges(60, 400, seed=3), 60, 60


def _unsorted() -> tuple[np.ndarray, int, int]:
    return random_graph(30, 20, 90, seed=11), 30, 20


def _single_node() -> tuple[np.ndarray, int, int]:
    return _pair([0, 0], [0, 0]), 1, 1


_BUILDERS: dict[str, Callable[[], tuple[np.ndarray, int, int]]] = {
    "empty": _empty,
    "no-edges": _no_edges,
    "zero-in-degree": _zero_in_degree,
    "isolated-last": _isolated_last,
    "self-loops": _self_loops,
    "multi-edges": _multi_edges,
    "bipartite": _bipartite,
    "hub": _hub,
    "power-law": _power_law,
    "unsorted": _unsorted,
    "single-node": _single_node,
}

#: every case label, in a stable order
CASE_NAMES: tuple[str, ...] = tuple(_BUILDERS)


def get_case(name: str, index_dtype: type | np.dtype = np.int64) -> GraphCase:
    """The case called ``name`` with ``edge_index`` of ``index_dtype`` (int32 or int64)."""
    if name not in _BUILDERS:
        raise KeyError(f"unknown graph case {name!r}; known: {', '.join(CASE_NAMES)}")
    edge_index, n_src, n_dst = _BUILDERS[name]()
    return GraphCase(name, np.ascontiguousarray(edge_index.astype(index_dtype)), n_src, n_dst)


def graph_cases(index_dtype: type | np.dtype = np.int64) -> Iterator[GraphCase]:
    """Every labelled case with ``index_dtype`` indices."""
    for name in CASE_NAMES:
        yield get_case(name, index_dtype)
