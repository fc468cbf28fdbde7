"""PyG's ``subgraph_type`` for the neighbour loaders and samplers (private).

``'directional'`` keeps the sampled edges as they were sampled (PyG's default).
``'bidirectional'`` is PyG's ``SamplerOutput.to_bidirectional``: the sampled edges and
their reverses, each distinct ``(row, col)`` pair once, sorted by ``(col, row)``;
``'induced'`` is torch-sparse's ``directed=False`` sampling (PyG 2.8 routes it there):
the nodes are sampled as for ``'directional'``, the edges are then every edge of the graph
among them.

RULE: ``'bidirectional'``: an edge's id is that of the first copy of its pair among the
      sampled edges, then the reversed ones (the edge sampled in that direction, if any).
      PyG coalesces the ids with ``reduce='any'``: which copy wins is left to its sort.
RULE: ``'induced'``: the edges are grouped by destination position in ``n_id`` (every
      position, so a seed listed twice gets its in-edges at each copy), each node's
      in-edges in edge-id order, a source at its first position (torch-sparse's order).
RULE: both drop the per-hop counts (``num_sampled_nodes`` / ``num_sampled_edges``), as
      PyG's samplers return ``None`` for them; ``n_id`` is unchanged.

>>> import numpy as np
>>> row, col, eid = bidirectional(np, np.array([1, 2]), np.array([0, 0]),
...                               np.array([1, 2]), np.array([0, 0]), 3,
...                               np.array([7, 8]), np.array([7, 8]))
>>> row.tolist(), col.tolist(), eid.tolist()
([1, 2, 0, 0], [0, 0, 1, 2], [7, 8, 7, 8])
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "SUBGRAPH_TYPES",
    "bidirectional",
    "check_subgraph_type",
    "hetero_bidirectional",
    "hetero_partners",
    "induced_edges",
    "node_positions",
    "warn_alone",
]

SUBGRAPH_TYPES = ("directional", "bidirectional", "induced")


def check_subgraph_type(where: str, value: Any, disjoint: bool = False) -> str:
    """``value`` as one of :data:`SUBGRAPH_TYPES` (a name or an enum member, PyG's
    ``SubgraphType`` too); ``'induced'`` refuses disjoint / temporal sampling (PyG:
    "'disjoint' sampling not supported for neighbor sampling with
    `subgraph_type='induced'`")."""
    name = getattr(value, "value", value)
    if not isinstance(name, str) or name not in SUBGRAPH_TYPES:
        raise ValueError(
            f"{where}: subgraph_type must be 'directional', 'bidirectional' or 'induced', "
            f"got {value!r}"
        )
    if name == "induced" and disjoint:
        raise ValueError(
            f"{where}: subgraph_type='induced' does not go with disjoint or temporal "
            "sampling (PyG: 'disjoint' sampling not supported for neighbor sampling with "
            "subgraph_type='induced')"
        )
    return name


def bidirectional(
    xp: Any,
    row: Any,
    col: Any,
    rev_row: Any,
    rev_col: Any,
    num_rows: int | None,
    edge: Any = None,
    rev_edge: Any = None,
) -> tuple[Any, Any, Any]:
    """PyG's ``to_bidirectional``: the pairs ``(row, col)`` and ``(rev_col, rev_row)``, each
    distinct pair once, sorted by ``(col, row)``; with ``edge`` / ``rev_edge`` the id of
    each pair's first copy (``None`` without). ``num_rows``: the size of the row ids'
    range (the pairs' sort key is ``col * num_rows + row``; ``None``: read from ``row``)."""
    r = xp.concatenate([row, rev_col]).astype(np.int64, copy=False)
    c = xp.concatenate([col, rev_row]).astype(np.int64, copy=False)
    e = None if edge is None else xp.concatenate([edge, rev_edge])
    if r.shape[0] == 0:
        return r, c, e
    if num_rows is None:
        num_rows = int(r.max()) + 1
    order, key = _stable_sort(xp, c * max(int(num_rows), 1) + r)
    first = xp.ones(key.shape[0], dtype=bool)
    first[1:] = key[1:] != key[:-1]
    keep = order[first]
    return r[keep], c[keep], None if e is None else e[keep]


def _stable_sort(xp: Any, key: Any) -> tuple[Any, Any]:
    """``(order, key[order])`` for ``order = argsort(key, kind='stable')`` (``key`` int64,
    not empty). On the CPU, when they fit in int64, the keys packed with their positions
    are sorted instead: distinct values, so a plain (SIMD) sort gives the stable order,
    several times faster than NumPy's stable argsort of int64."""
    size = int(key.shape[0])
    if xp is np:
        shift = size.bit_length()  # positions < 2 ** shift
        if int(key.min()) >= 0 and int(key.max()) < 1 << (63 - shift):
            packed = np.sort((key << shift) | np.arange(size, dtype=np.int64))
            return packed & ((1 << shift) - 1), packed >> shift
    order = xp.argsort(key, kind="stable")
    return order, key[order]


def hetero_partners(edge_types: Sequence[tuple[str, str, str]]) -> tuple[list, list]:
    """PyG's ``HeteroSamplerOutput.to_bidirectional`` rules, per edge type whose relation
    does not start with ``rev_``: ``(edge_type, partner, renamed)`` where the partner is
    the type itself (``src == dst`` and no ``(dst, 'rev_' + rel, src)``), that ``rev_``
    type (``renamed``: it gets the transposed result), or the one type ``(dst, *, src)``;
    and the edge types with no partner (left as sampled; PyG warns for each)."""
    present = set(edge_types)
    plan, alone = [], []
    for et in edge_types:
        src, rel, dst = et
        if rel.startswith("rev_"):
            continue
        rev = (dst, f"rev_{rel}", src)
        if src == dst and rev not in present:
            plan.append((et, et, False))
        elif rev in present:
            plan.append((et, rev, True))
        else:
            back = [k for k in edge_types if k[0] == dst and k[2] == src]
            if len(back) == 1:
                plan.append((et, back[0], False))
            else:
                alone.append(et)
    return plan, alone


def warn_alone(alone: Sequence[Any]) -> None:
    """PyG's warning for each edge type ``to_bidirectional`` leaves as it is."""
    for et in alone:
        warnings.warn(
            f"Cannot convert to bidirectional graph since the edge type {et} does not seem "
            "to have a reverse edge type",
            stacklevel=3,
        )


def hetero_bidirectional(
    xp: Any, plan: Sequence[Any], counts: dict, row: dict, col: dict, edge: dict | None
) -> tuple[dict, dict, dict | None]:
    """Apply :func:`hetero_partners`' ``plan`` to per-edge-type ``row`` / ``col`` (new
    dicts; ``counts``: nodes per type). A converted type's ``edge`` becomes ``None`` (its
    merged edges have no single id, as PyG)."""
    out_row, out_col = dict(row), dict(col)
    out_edge = None if edge is None else dict(edge)
    for et, partner, renamed in plan:
        r, c, _ = bidirectional(xp, row[et], col[et], row[partner], col[partner], counts.get(et[0]))
        out_row[et], out_col[et] = r, c
        if renamed:
            out_row[partner], out_col[partner] = c, r
        if out_edge is not None:
            out_edge[et] = None
            if renamed:
                out_edge[partner] = None
    return out_row, out_col, out_edge


def node_positions(xp: Any, local: Any, n_id: Any, num_seeds: int) -> None:
    """Fill ``local`` (global id -> ``-1``) with each node's position in ``n_id``, a node
    listed more than once (only seeds are) at its first position."""
    from arraygnn.neighbor_loader import _first_occurrences

    local[n_id] = xp.arange(int(n_id.shape[0]), dtype=np.int64)
    if num_seeds > 1:
        seeds = n_id[:num_seeds]
        first = _first_occurrences(xp, seeds)
        local[seeds[first]] = first


def induced_edges(xp: Any, csr: Any, dst_ids: Any, src_local: Any) -> tuple[Any, Any, Any]:
    """``(row, col, e_id)``: every in-edge (``csr``: the destination CSR, ``indptr`` /
    ``indices`` / ``perm``) of each node of ``dst_ids`` (``col``: its position there)
    whose source has a position in ``src_local`` (``row``), in torch-sparse's order."""
    if dst_ids.shape[0] == 0:
        empty = xp.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if xp is np:  # one Numba pass over the slots (the array steps: about 2x slower)
        from arraygnn.kernels.cpu.sampling import induced_in_edges

        return induced_in_edges(csr.indptr, csr.indices, csr.perm, dst_ids, src_local)
    return _induced_arrays(xp, csr, dst_ids, src_local)


def _induced_arrays(xp: Any, csr: Any, dst_ids: Any, src_local: Any) -> tuple[Any, Any, Any]:
    """:func:`induced_edges` in array steps (CuPy; ``dst_ids`` not empty)."""
    from arraygnn.graph.query import _rows_slots

    slots, seg = _rows_slots(xp, csr.indptr, dst_ids)
    pos = src_local[csr.indices[slots]]
    keep = pos >= 0
    return (
        pos[keep].astype(np.int64, copy=False),
        seg[keep].astype(np.int64, copy=False),
        csr.perm[slots][keep].astype(np.int64, copy=False),
    )
