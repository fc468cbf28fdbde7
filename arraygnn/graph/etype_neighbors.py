"""DGL's ``sample_etype_neighbors``: neighbour sampling with one fan-out per edge type on a
homogenised graph (edge ids grouped by type, as :func:`arraygnn.graph.to_homogeneous`
numbers them).

Edge ``e`` has type ``t`` when ``etype_offset[t] <= e < etype_offset[t + 1]`` (DGL's
``upper_bound`` lookup); each seed keeps up to ``fanout[t]`` of its in-edges (out-edges
with ``edge_dir='out'``) of each type ``t``.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([1, 2, 3, 4, 5]), np.array([0, 0, 0, 0, 0])))
>>> f = sample_etype_neighbors(g, [0], [0, 3, 5], [1, -1], seed=0)
>>> f.num_edges(), sorted(f.edata["_ID"].tolist())[1:]
(3, [3, 4])

RULE: per (seed, edge type): ``-1`` (also with ``replace``, as DGL's per-type picker) or,
      without ``replace``, at least as many edges as the fan-out keeps every edge (with
      ``prob``: every positive-weight edge), else a uniform (or
      ``prob``-weighted) draw without replacement, or exactly ``fanout`` draws with
      ``replace``; the same laws as :func:`arraygnn.sampling.sample_neighbors` (whose
      per-row samplers run here, one call per edge type).
RULE: the frontier keeps every node of ``g``, ``edata[EID]`` the sampled ids in increasing
      order, features as ``copy_ndata`` / ``copy_edata``. ``exclude_edges`` is refused, as
      DGL; ``etype_sorted`` is only a hint (accepted, not needed).
RULE: ``prob`` names an edge feature of ``g`` indexed by (homogeneous) edge id; DGL takes
      a list of per-type arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_numpy
from arraygnn.graph.core import Graph, check_graph

__all__ = ["sample_etype_neighbors"]


def _int_list(where: str, name: str, value: Any) -> np.ndarray:
    if is_array(value):
        arr = np.asarray(to_numpy(value))
    elif isinstance(value, (list, tuple, range)):
        arr = np.asarray(list(value))
    else:
        raise TypeError(f"{where}: {name} must be a list or an integer array, got {value!r}")
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"{where}: {name} must be a 1-D list of ints, got {value!r}")
    return arr.astype(np.int64)


def sample_etype_neighbors(
    g: Graph,
    nodes: Any,
    etype_offset: Any,
    fanout: Any,
    edge_dir: str = "in",
    prob: str | None = None,
    exclude_edges: Any = None,
    replace: bool = False,
    copy_ndata: bool = True,
    copy_edata: bool = True,
    etype_sorted: bool = False,
    output_device: Any = None,
    *,
    seed: Any = None,
) -> Graph:
    """A frontier with every node of ``g`` and, per seed and edge type ``t``, up to
    ``fanout[t]`` sampled edges (DGL's ``dgl.sampling.sample_etype_neighbors``)."""
    from arraygnn import sampling as S

    where = "sample_etype_neighbors"
    check_graph(where, g)
    if g.is_block or len(g.ntypes) != 1 or len(g.canonical_etypes) != 1:
        raise ValueError(f"{where}: g must be homogeneous (one node and one edge type)")
    if exclude_edges is not None:
        raise ValueError(f"{where}: exclude_edges is not supported (as in DGL)")
    if not isinstance(replace, (bool, np.bool_)):
        raise TypeError(f"{where}: replace must be True or False, got {replace!r}")
    side = S._edge_dir(edge_dir, where)
    if isinstance(nodes, Mapping):
        if len(nodes) != 1:
            raise ValueError(f"{where}: nodes must name the graph's one node type")
        nodes = list(nodes.values())[0]
    seeds = S._seeds(g, nodes, side, where)[g.ntypes[0]]
    rel = g._rel()
    offsets = _int_list(where, "etype_offset", etype_offset)
    fanouts = _int_list(where, "fanout", fanout)
    num_types = offsets.shape[0] - 1
    if num_types < 1 or offsets[0] != 0 or offsets[-1] != rel.num_edges:
        raise ValueError(
            f"{where}: etype_offset must run from 0 to the number of edges ({rel.num_edges}), "
            f"got {offsets.tolist()}"
        )
    if (np.diff(offsets) < 0).any():
        raise ValueError(f"{where}: etype_offset must be non-decreasing, got {offsets.tolist()}")
    if fanouts.shape[0] != num_types:
        raise ValueError(
            f"{where}: fanout has {fanouts.shape[0]} entries; etype_offset gives {num_types} "
            "edge types"
        )
    if (fanouts < -1).any():
        raise ValueError(f"{where}: fanout values must be -1 (all edges) or >= 0")
    weights = None
    if prob is not None:
        weights = S._edge_weights(g, prob, where, "prob")[rel.canonical]
        finite = weights.dtype.kind != "f" or bool(g._xp().isfinite(weights).all())
        if weights.size and not (finite and float(weights.min()) >= 0):
            raise ValueError(f"{where}: prob {prob!r} must be finite and non-negative")
    xp = g._xp()
    # one virtual CSR row per (node, edge type): row = node * T + type, edge-id order within
    eids = xp.arange(rel.num_edges, dtype=np.int64)
    etype = xp.searchsorted(xp.asarray(offsets), eids, side="right") - 1
    node = (rel.dst if side == "dst" else rel.src).astype(np.int64)
    rows = node * num_types + etype
    n_rows = (g.num_nodes() * num_types) if g.num_nodes() else 0
    perm = xp.argsort(rows, kind="stable").astype(g.idtype)
    indptr = xp.zeros(n_rows + 1, dtype=np.int64)
    if rel.num_edges:
        indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=n_rows))
    indptr = indptr.astype(g.idtype)
    rng = S._rng(g, seed)
    picked = []
    for t in range(num_types):
        f = int(fanouts[t])
        if f == 0 or seeds.shape[0] == 0:
            continue
        vrows = (seeds.astype(np.int64) * num_types + t).astype(g.idtype)
        if weights is not None:  # -1: every positive edge once, even with replace (DGL)
            draw = replace and f >= 0
            picked.append(S._sample_weighted(xp, indptr, perm, vrows, f, draw, weights, rng))
        else:
            picked.append(S._sample_csr(xp, indptr, perm, vrows, f, replace, rng))
    chosen = xp.sort(xp.concatenate(picked)) if picked else xp.zeros(0, dtype=g.idtype)
    frontier = S._frontier(g, {rel.canonical: chosen.astype(g.idtype)}, copy_ndata, copy_edata)
    return frontier if output_device is None else frontier.to(output_device)
