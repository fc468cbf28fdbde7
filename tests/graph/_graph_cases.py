"""Labelled graph cases for the DGL-face tests: ENGINE's registry (``arraygnn.testing.cases``)
turned into Graphs — a bipartite case becomes a uni-bipartite heterograph."""

from __future__ import annotations

import numpy as np

from arraygnn.graph import graph, heterograph
from arraygnn.testing.cases import graph_cases


def _as_graph(case):
    src, dst = case.edge_index[0], case.edge_index[1]
    if case.name == "bipartite" or case.num_src_nodes != case.num_dst_nodes:
        return heterograph(
            {("a", "r", "b"): (src, dst)},
            num_nodes_dict={"a": case.num_src_nodes, "b": case.num_dst_nodes},
        )
    return graph((src, dst), num_nodes=case.num_src_nodes)


def local_cases():
    """(label, graph): every registry case with int64 ids, plus int32 variants of two."""
    out = [(c.name, _as_graph(c)) for c in graph_cases(np.int64)]
    out += [
        (f"{c.name}-int32", _as_graph(c))
        for c in graph_cases(np.int32)
        if c.name in ("power-law", "bipartite")
    ]
    return out
