"""DGL's ``to_half`` / ``to_float`` / ``to_double``: cast every floating-point node and edge
feature; integer and boolean features (ids, labels, masks) are kept as they are.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0]), np.array([1])))
>>> g.ndata["x"], g.ndata["y"] = np.ones(2), np.arange(2)
>>> h = to_half(g)
>>> h.ndata["x"].dtype, h.ndata["y"].dtype, g.ndata["x"].dtype
(dtype('float16'), dtype('int64'), dtype('float64'))

RULE: a new graph sharing the structure; a feature already of the target dtype is shared.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import Graph, check_graph

__all__ = ["to_half", "to_float", "to_double"]


def _cast(where: str, g: Any, dtype: Any) -> Graph:
    check_graph(where, g)

    def cast(v: Any) -> Any:
        return v.astype(dtype, copy=False) if v.dtype.kind == "f" else v

    new = g._like({c: (r.src, r.dst) for c, r in g._rels.items()})
    for c, r in g._rels.items():
        new._rels[c]._csr = r._csr
    g._copy_frames_to(new, cast)
    new._batch_nodes, new._batch_edges = g._batch_nodes, g._batch_edges
    return new


def to_half(g: Graph) -> Graph:
    """``g`` with every floating-point feature in float16."""
    return _cast("to_half", g, np.float16)


def to_float(g: Graph) -> Graph:
    """``g`` with every floating-point feature in float32."""
    return _cast("to_float", g, np.float32)


def to_double(g: Graph) -> Graph:
    """``g`` with every floating-point feature in float64."""
    return _cast("to_double", g, np.float64)
