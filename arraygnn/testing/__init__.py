"""Testing helpers for arraygnn and its users: labelled graph cases and container asserts.

- :mod:`arraygnn.testing.cases`: a registry of labelled graph cases (empty graph, no edges,
  zero-in-degree nodes, self-loops, multi-edges, bipartite, a hub, power-law, ...) in int32 and
  int64, used to check kernels and faces against plain NumPy references.
- :mod:`arraygnn.testing.asserts`: ``assert_data_equal``, ``assert_batch_equal``,
  ``assert_batch_invariants``.
"""

from arraygnn.testing.asserts import (
    assert_batch_equal,
    assert_batch_invariants,
    assert_data_equal,
)
from arraygnn.testing.cases import GraphCase, get_case, graph_cases

__all__ = [
    "GraphCase",
    "assert_batch_equal",
    "assert_batch_invariants",
    "assert_data_equal",
    "get_case",
    "graph_cases",
]
