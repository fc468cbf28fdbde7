"""DGL's ``adj_product_graph`` and ``adj_sum_graph``: graphs of weighted adjacency products
and sums (``C = A @ B`` and ``C = sum_i A_i``, rows the sources).

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> A = graph((np.array([0, 0, 1]), np.array([1, 2, 2])), num_nodes=3)
>>> A.edata["w"] = np.array([1.0, 2.0, 3.0])
>>> C = adj_product_graph(A, A, "w")
>>> C.edges()[0].tolist(), C.edges()[1].tolist(), C.edata["w"].tolist()
([0], [2], [3.0])
>>> S = adj_sum_graph([A, A], "w")
>>> S.edata["w"].tolist()
[2.0, 4.0, 6.0]

RULE: the result has one edge per *structural* entry (an entry whose weights sum to 0 is
      kept, as DGL's CSR product), rows in order; within a row the NumPy path gives the
      columns in order of first appearance, the CuPy path ascending (DGL's order is a hash
      map's, unspecified). Weights are accumulated in DGL's order, from 0: a row's ``A``
      edges in edge-id order, each times its ``B`` row in edge-id order (for a sum: the
      graphs in turn), so the weights are DGL's bit for bit.
RULE: only ``weight_name`` is carried; node features are not (as DGL). When ``A``'s source
      type is ``B``'s destination type, ``C`` has that one node type and ``A`` and ``B``
      must agree on its count (DGL's square check). Host weights are float32 or float64
      (DGL's CPU kernels); float16 only on CuPy.
Path: NumPy: the engine's Gustavson kernel (``arraygnn.kernels.cpu.spgemm``, two serial
      passes with a column marker, O(products + rows + columns)); a sum is the product of
      the graphs side by side with stacked identities. CuPy: vectorised (expand the edge
      pairs, one stable sort, one ``arraygnn.ops.segment`` sum; memory O(products)).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn.graph.core import Graph, check_graph

__all__ = ["adj_product_graph", "adj_sum_graph"]


def _one_relation(where: str, name: str, g: Any, weight_name: str) -> Any:
    check_graph(f"{where}: {name}", g)
    if g.is_block or len(g.canonical_etypes) != 1:
        raise ValueError(f"{where}: {name} must have exactly one edge type and not be a block")
    rel = g._rel()
    if weight_name not in rel.frame._data:
        raise KeyError(f"{where}: {name} has no edge feature {weight_name!r}")
    w = rel.frame._data[weight_name]
    if w.ndim != 1 or w.dtype.kind != "f":
        raise TypeError(f"{where}: {name}.edata[{weight_name!r}] must be a 1-D float array")
    if g.device == "cpu" and w.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"{where}: {name}.edata[{weight_name!r}] is {w.dtype}; on the CPU the weights "
            "must be float32 or float64 (as DGL's CPU kernels)"
        )
    return rel, w


def _coalesce(xp: Any, rows: Any, cols: Any, vals: Any, n_cols: int, idtype: Any) -> tuple:
    """Sum ``vals`` of equal ``(rows, cols)`` in their given order; output row-major."""
    if rows.shape[0] == 0:
        e = xp.zeros(0, dtype=idtype)
        return e, e.copy(), vals[:0]
    key = rows.astype(np.int64) * max(n_cols, 1) + cols.astype(np.int64)
    order = xp.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    starts = xp.concatenate([xp.array([True]), key[1:] != key[:-1]])
    first = xp.nonzero(starts)[0]
    ptr = xp.concatenate([first, xp.array([key.shape[0]])]).astype(np.int64)
    sums = ops.segment(vals, ptr, reduce="sum")  # one row per run, summed in order
    k = key[first]
    return (k // max(n_cols, 1)).astype(idtype), (k % max(n_cols, 1)).astype(idtype), sums


def _csr(xp: Any, src: Any, dst: Any, w: Any, n_rows: int) -> tuple:
    """``(indptr, indices, values)`` int64 / weights, rows the sources, edge-id order
    within a row (DGL's CSR of a COO graph)."""
    order = xp.argsort(src, kind="stable")
    ptr = xp.zeros(n_rows + 1, dtype=np.int64)
    if src.shape[0]:
        ptr[1:] = xp.cumsum(xp.bincount(src.astype(np.int64), minlength=n_rows))
    return ptr, dst[order].astype(np.int64), w[order]


def _spgemm(xp: Any, a: tuple, b: tuple, n_cols: int, idtype: Any) -> tuple:
    """``(rows, cols, values)`` of the CSR product ``a @ b`` (see the module's RULEs)."""
    a_ptr, a_col, a_val = a
    b_ptr, b_col, b_val = b
    n_rows = int(a_ptr.shape[0]) - 1
    if xp is np:
        from arraygnn.kernels.cpu.spgemm import spgemm_first_seen

        ptr, cols, vals = spgemm_first_seen(a_ptr, a_col, a_val, b_ptr, b_col, b_val, n_cols)
        rows = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(ptr))
        return rows.astype(idtype), cols.astype(idtype), vals
    a_rows = xp.repeat(xp.arange(n_rows, dtype=np.int64), xp.diff(a_ptr))
    deg = b_ptr[a_col + 1] - b_ptr[a_col]
    total = int(deg.sum()) if deg.size else 0
    rep = xp.repeat(xp.arange(a_col.shape[0]), deg)
    start = xp.cumsum(deg) - deg
    pos = xp.arange(total) - xp.repeat(start, deg) + xp.repeat(b_ptr[a_col], deg)
    return _coalesce(xp, a_rows[rep], b_col[pos], a_val[rep] * b_val[pos], n_cols, idtype)


def adj_product_graph(A: Graph, B: Graph, weight_name: str, etype: str = "_E") -> Graph:
    """The graph of ``A``'s weighted adjacency times ``B``'s: an edge ``u -> w`` with weight
    ``sum_v A[u, v] * B[v, w]`` wherever a path ``u -> v -> w`` exists (DGL's)."""
    where = "adj_product_graph"
    ra, wa = _one_relation(where, "A", A, weight_name)
    rb, wb = _one_relation(where, "B", B, weight_name)
    if not isinstance(etype, str):
        raise TypeError(f"{where}: etype must be a str, got {etype!r}")
    srctype, _, mid_a = ra.canonical
    mid_b, _, dsttype = rb.canonical
    if A.num_nodes(mid_a) != B.num_nodes(mid_b):
        raise ValueError(
            f"{where}: A has {A.num_nodes(mid_a)} destination nodes but B has "
            f"{B.num_nodes(mid_b)} source nodes"
        )
    if srctype == dsttype and A.num_nodes(srctype) != B.num_nodes(dsttype):
        # one node type for C (DGL's num_vtypes == 1): its adjacency must be square
        raise ValueError(
            f"{where}: C would have one node type {srctype!r}, but A has "
            f"{A.num_nodes(srctype)} of them and B {B.num_nodes(dsttype)}"
        )
    if wa.dtype != wb.dtype:
        raise TypeError(f"{where}: A and B weights differ in dtype ({wa.dtype}, {wb.dtype})")
    if A.device != B.device:
        raise TypeError(f"{where}: A is on {A.device!r} but B on {B.device!r}")
    xp = A._xp()
    idtype = np.dtype(np.int64) if np.int64 in (A.idtype, B.idtype) else A.idtype
    n_src, n_dst = A.num_nodes(srctype), B.num_nodes(dsttype)
    a = _csr(xp, ra.src, ra.dst, wa, n_src)
    b = _csr(xp, rb.src, rb.dst, wb, B.num_nodes(mid_b))
    r, c, w = _spgemm(xp, a, b, n_dst, idtype)
    counts = {srctype: n_src, dsttype: n_dst}
    out = Graph({(srctype, etype, dsttype): (r, c)}, counts, validate=False)
    out.edata[weight_name] = w
    return out


def adj_sum_graph(graphs: Sequence[Graph], weight_name: str) -> Graph:
    """The graph of the sum of the graphs' weighted adjacencies (same node and edge type,
    same node counts): one edge per distinct ``(u, v)``, weight the sum (DGL's)."""
    where = "adj_sum_graph"
    if isinstance(graphs, Graph) or not isinstance(graphs, Sequence):
        raise TypeError(f"{where}: graphs must be a list of graphs")
    if len(graphs) == 0:
        raise ValueError(f"{where}: graphs must not be empty")
    parts = [_one_relation(where, f"graphs[{i}]", g, weight_name) for i, g in enumerate(graphs)]
    ref = graphs[0]
    c0 = parts[0][0].canonical
    for i, (g, (r, w)) in enumerate(zip(graphs, parts)):
        if (r.canonical[0], r.canonical[2]) != (c0[0], c0[2]) or g._num_src != ref._num_src:
            raise ValueError(f"{where}: graphs[{i}] has other node types or counts than graphs[0]")
        if w.dtype != parts[0][1].dtype or g.device != ref.device:
            raise TypeError(f"{where}: graphs[{i}] weights differ in dtype or device")
    xp = ref._xp()
    idtype = np.dtype(np.int64) if any(g.idtype == np.int64 for g in graphs) else ref.idtype
    n_rows, n_cols, k = ref.num_nodes(c0[0]), ref.num_nodes(c0[2]), len(parts)
    # [A_1 | A_2 | ...] @ [I; I; ...]: each row sums the graphs' entries in graph order
    shifted = [r.dst.astype(np.int64) + i * n_cols for i, (r, _) in enumerate(parts)]
    a = _csr(
        xp,
        xp.concatenate([r.src.astype(np.int64) for r, _ in parts]),
        xp.concatenate(shifted),
        xp.concatenate([w for _, w in parts]),
        n_rows,
    )
    dtype = parts[0][1].dtype
    eye = (
        xp.arange(k * n_cols + 1, dtype=np.int64),
        xp.tile(xp.arange(n_cols, dtype=np.int64), k),
        xp.ones(k * n_cols, dtype=dtype),
    )
    r, c, w = _spgemm(xp, a, eye, n_cols, idtype)
    out = Graph({c0: (r, c)}, ref._num_src, validate=False)
    out.edata[weight_name] = w
    return out
