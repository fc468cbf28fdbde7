"""DGL's ``dgl.create_block`` and ``dgl.block_to_graph`` on the DGL face.

>>> from arraygnn.graph import create_block, block_to_graph
>>> b = create_block(([0, 1, 2], [1, 1, 0]), num_src_nodes=4, num_dst_nodes=2)
>>> b.is_block, b.num_src_nodes(), b.num_dst_nodes(), b.in_degrees().tolist()
(True, 4, 2, [1, 2])
>>> block_to_graph(b).canonical_etypes
[('_N_src', '_E', '_N_dst')]

RULE: a block's source and destination nodes are separate sets (DGL's ``DGLBlock``);
      ``create_block`` sets no order between them (``to_block``'s rule, destination nodes
      first among the sources, is that function's own).
RULE: counts are both given (an int each for ``(src, dst)`` data, dicts for a dict) or
      both inferred per side, largest id + 1 (DGL); ids are checked against them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn.graph.core import (
    DEFAULT_ETYPE,
    DEFAULT_NTYPE,
    Canonical,
    Graph,
    _finish,
    _graph_data,
    _inferred,
    check_graph,
)

__all__ = ["create_block", "block_to_graph"]


def _counts(where: str, name: str, value: Any, one: bool) -> dict[str, int]:
    if one:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise TypeError(
                f"{where}: {name} must be an int >= 0 for (src, dst) data, got {value!r}"
            )
        return {DEFAULT_NTYPE: int(value)}
    if not isinstance(value, Mapping):
        raise TypeError(f"{where}: {name} must be a dict {{ntype: count}} for dict data")
    for t, n in value.items():
        if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)) or n < 0:
            raise TypeError(f"{where}: {name}[{t!r}] must be an int >= 0, got {n!r}")
    return {str(t): int(n) for t, n in value.items()}


def create_block(
    data_dict: Any,
    num_src_nodes: Any = None,
    num_dst_nodes: Any = None,
    idtype: Any = None,
    device: Any = None,
    node_count_check: bool = True,
) -> Graph:
    """DGL's ``dgl.create_block``: a message-flow block (a bipartite graph with separate
    source and destination node sets) from ``(src, dst)`` data (one edge type ``_E``
    between node types ``_N``) or ``{(src_type, etype, dst_type): data}``; ``data`` in
    any of :func:`arraygnn.graph.graph`'s forms.

    ``num_src_nodes`` / ``num_dst_nodes``: ints (dicts by node type for dict data), or
    both ``None`` to take each side's largest id + 1. ``idtype`` / ``device`` as in
    :func:`arraygnn.graph.graph`. ``node_count_check`` is accepted for DGL's signature;
    ids are always checked against the counts.

    >>> b = create_block({("A", "AB", "B"): ([2, 1], [1, 3]), ("B", "BA", "A"): ([1, 2], [3, 2])},
    ...                  num_src_nodes={"A": 6, "B": 3}, num_dst_nodes={"A": 4, "B": 5})
    >>> b.srctypes, b.num_src_nodes("A"), b.num_dst_nodes("B")
    (['A', 'B'], 6, 5)
    """
    where = "create_block"
    one = not isinstance(data_dict, Mapping)
    if one:
        data_dict = {(DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE): data_dict}
    if (num_src_nodes is None) != (num_dst_nodes is None):
        raise ValueError(f"{where}: give both num_src_nodes and num_dst_nodes, or neither")
    infer = num_src_nodes is None
    src_n: dict[str, int] = {} if infer else _counts(where, "num_src_nodes", num_src_nodes, one)
    dst_n: dict[str, int] = {} if infer else _counts(where, "num_dst_nodes", num_dst_nodes, one)
    rels: dict[Canonical, tuple[Any, Any]] = {}
    for c, data in data_dict.items():
        if not (isinstance(c, tuple) and len(c) == 3 and all(isinstance(s, str) for s in c)):
            raise TypeError(f"{where}: keys are (src_type, etype, dst_type), got {c!r}")
        src, dst, n_src, n_dst = _graph_data(data, f"{where}: edge type {c!r}")
        rels[c] = (src, dst)
        if infer:
            src_n[c[0]] = max(src_n.get(c[0], 0), _inferred(src, n_src))
            dst_n[c[2]] = max(dst_n.get(c[2], 0), _inferred(dst, n_dst))
        else:
            for t, counts, side in ((c[0], src_n, "num_src_nodes"), (c[2], dst_n, "num_dst_nodes")):
                if t not in counts:
                    raise ValueError(f"{where}: {side} has no count for node type {t!r}")
    block = Graph(rels, src_n, dst_n, is_block=True)
    return _finish(block, idtype, device, where)


def block_to_graph(block: Graph) -> Graph:
    """DGL's ``dgl.block_to_graph``: the block as an ordinary graph whose node types are
    the source types renamed ``'<type>_src'`` and the destination types ``'<type>_dst'``
    (node types sorted by name, as every graph here), edge types ``('<s>_src', etype,
    '<d>_dst')``; the same ids (shared arrays) and features (shared arrays, own dicts)."""
    check_graph("block_to_graph", block)
    if not block.is_block:
        raise TypeError("block_to_graph: the graph is not a block")
    rels = {(s + "_src", e, d + "_dst"): (r.src, r.dst) for (s, e, d), r in block._rels.items()}
    counts = {t + "_src": n for t, n in block._num_src.items()}
    counts.update({t + "_dst": n for t, n in block._num_dst.items()})
    g = Graph(rels, counts, validate=False)
    for t, f in block._src_frames.items():
        g._src_frames[t + "_src"]._data.update(f._data)
    for t, f in block._dst_frames.items():
        g._src_frames[t + "_dst"]._data.update(f._data)
    for (s, e, d), r in block._rels.items():
        g._rels[(s + "_src", e, d + "_dst")].frame._data.update(r.frame._data)
    return g
