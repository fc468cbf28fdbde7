"""Labelled graph cases for the DGL-face tests (zero-degree, bipartite, self-loops, ...).

Uses ENGINE's registry ``arraygnn.testing.cases`` when it offers edge-index cases; the
local list below always runs too so every label named in the issue is covered.
"""

from __future__ import annotations

import numpy as np

from arraygnn.graph import graph, heterograph


def local_cases():
    """(label, graph, src_ntype, dst_ntype) for NumPy."""
    rng = np.random.default_rng(7)
    out = []
    src = rng.integers(0, 9, 30)
    dst = rng.integers(0, 9, 30)
    out.append(("random", graph((src, dst), num_nodes=9)))
    out.append(("random-int32", graph((src.astype(np.int32), dst.astype(np.int32)), num_nodes=9)))
    out.append(
        ("zero-degree", graph((np.array([0, 1, 1, 3]), np.array([1, 3, 3, 3])), num_nodes=6))
    )
    out.append(("self-loops", graph((np.array([0, 1, 2, 2]), np.array([0, 1, 2, 0])), num_nodes=3)))
    out.append(
        ("multi-edges", graph((np.array([0, 0, 0, 1]), np.array([2, 2, 2, 2])), num_nodes=3))
    )
    out.append(("no-edges", graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=4)))
    out.append(
        (
            "bipartite",
            heterograph(
                {("a", "r", "b"): (rng.integers(0, 5, 12), rng.integers(0, 3, 12))},
                num_nodes_dict={"a": 5, "b": 4},
            ),
        )
    )
    return out
