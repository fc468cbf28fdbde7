"""DGL's functional operators (``dgl.ops``) on the DGL face: :func:`gspmm`, :func:`gsddmm`,
:func:`edge_softmax` (also ``dgl.nn.functional.edge_softmax``), :func:`segment_reduce`,
:func:`segment_softmax` and the named shortcuts (``copy_u_sum``, ``u_mul_e_mean``,
``u_dot_v``, ``e_div_v``, ...).

Arrays in, arrays out: nothing is written into the graph's frames and nothing the caller
passed is modified.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.graph import ops as gops
>>> g = graph((np.array([0, 1, 1]), np.array([1, 2, 2])), num_nodes=3)
>>> x = np.array([[1.0], [2.0], [4.0]])
>>> gops.copy_u_sum(g, x).ravel()
array([0., 1., 4.])
>>> gops.u_mul_e_max(g, x, np.array([3.0, 1.0, 0.5])).ravel()
array([0., 3., 2.])
>>> gops.u_sub_v(g, x, x).ravel()
array([-1., -2., -2.])
>>> gops.edge_softmax(g, np.zeros(3)).tolist()
[1.0, 0.5, 0.5]

Lowering (each one :mod:`arraygnn.ops` call, reusing the graph's cached CSR):

- ``gspmm(copy_lhs, r)`` -> ``ops.spmm`` (fused); ``gspmm(copy_rhs, r)`` -> ``ops.scatter``
  of the edge feature; ``gspmm(mul | div, r)`` -> ``ops.spmm`` with the edge feature as
  the edge weight whenever it varies only over leading feature dims of ``x`` (the lowering
  of ``update_all``, :mod:`arraygnn.graph.message_passing`), else, and for ``add`` /
  ``sub``, ``ops.sddmm`` then ``ops.scatter`` (one [E, ...] message array).
- ``gsddmm`` -> ``ops.sddmm``; ``edge_softmax`` -> ``ops.edge_softmax`` (over the
  source-sorted CSR for ``norm_by='src'``); ``segment_reduce`` -> ``ops.segment``;
  ``segment_softmax`` -> ``ops.edge_softmax`` with the segments as targets.

RULE: as DGL's backend, ``sub`` is computed as ``add`` of ``-rhs`` and ``div`` as ``mul``
      by ``1 / rhs`` (same dtype); operands with fewer feature dims get size-1 dims after
      their row dim (DGL's ``reshape_lhs_rhs``), then NumPy broadcasting applies.
RULE: every reduce gives 0 on a node without in-edges (``max`` / ``min`` included, as
      DGL documents and ``update_all`` does; DGL's ``gspmm`` kernel itself leaves -inf /
      inf there when the graph has edges); ``mean`` = sum / max(in-degree, 1); other
      infinities pass through. ``segment_reduce`` replaces every infinity of a ``max`` /
      ``min`` result with 0, as DGL's source does.
RULE: the graph has one edge type (a homogeneous graph, a one-relation graph or
      ``g[etype]``); several edge types are refused, naming them, except in
      :func:`edge_softmax`, which takes ``{etype: logits}`` there as DGL.
RULE: values are floating point (float16 / float32 / float64), as DGL's kernels.

Named shortcuts written out here: ``copy_u_{sum,mean,max,min}``,
``copy_e_{sum,mean,max,min}``, ``u_{add,sub,mul,div}_e_{sum,mean,max,min}`` (gspmm) and
``{u,v,e}_{add,sub,mul,div,dot}_{u,v,e}`` for distinct targets, ``copy_u``, ``copy_v``,
``copy_e`` (gsddmm): every name DGL registers in ``dgl.ops``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.function import BinaryMessage, CopyMessage, Reduce
from arraygnn.graph.core import Graph, check_graph

__all__ = [
    "ALL",
    "gspmm",
    "gsddmm",
    "edge_softmax",
    "segment_reduce",
    "segment_softmax",
    # gspmm shortcuts
    "copy_u_sum",
    "copy_u_mean",
    "copy_u_max",
    "copy_u_min",
    "copy_e_sum",
    "copy_e_mean",
    "copy_e_max",
    "copy_e_min",
    "u_add_e_sum",
    "u_add_e_mean",
    "u_add_e_max",
    "u_add_e_min",
    "u_sub_e_sum",
    "u_sub_e_mean",
    "u_sub_e_max",
    "u_sub_e_min",
    "u_mul_e_sum",
    "u_mul_e_mean",
    "u_mul_e_max",
    "u_mul_e_min",
    "u_div_e_sum",
    "u_div_e_mean",
    "u_div_e_max",
    "u_div_e_min",
    # gsddmm shortcuts
    "copy_u",
    "copy_v",
    "copy_e",
    "u_add_v",
    "u_sub_v",
    "u_mul_v",
    "u_div_v",
    "u_dot_v",
    "u_add_e",
    "u_sub_e",
    "u_mul_e",
    "u_div_e",
    "u_dot_e",
    "v_add_u",
    "v_sub_u",
    "v_mul_u",
    "v_div_u",
    "v_dot_u",
    "v_add_e",
    "v_sub_e",
    "v_mul_e",
    "v_div_e",
    "v_dot_e",
    "e_add_u",
    "e_sub_u",
    "e_mul_u",
    "e_div_u",
    "e_dot_u",
    "e_add_v",
    "e_sub_v",
    "e_mul_v",
    "e_div_v",
    "e_dot_v",
]

ALL = "__ALL__"  # DGL's ``dgl.base.ALL``: every edge
SPMM_OPS = ("add", "sub", "mul", "div", "copy_lhs", "copy_rhs")
SDDMM_OPS = ("add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs")
SPMM_REDUCES = ("sum", "max", "min", "mean")
_TARGETS = ("u", "v", "e")
_ROWS = {"u": "source nodes", "v": "destination nodes", "e": "edges"}


def _ops() -> Any:
    from arraygnn import ops

    return ops


# ---------------------------------------------------------------------- checks
def _relation(where: str, g: Any) -> Any:
    """The graph's only relation; several edge types are refused, naming them."""
    check_graph(where, g)
    if len(g._rels) != 1:
        raise ValueError(
            f"{where}: the graph has {len(g._rels)} edge types {g.canonical_etypes}; DGL's "
            "functional ops take a graph with one edge type (pass g[etype])"
        )
    return next(iter(g._rels.values()))


def _choice(where: str, name: str, value: Any, allowed: tuple) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{where}: {name} must be one of {allowed}, got {value!r}")


def _float_array(where: str, name: str, x: Any) -> Any:
    if not is_array(x):
        raise TypeError(f"{where}: {name} must be a NumPy or CuPy array, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{where}: {name} must have a row dimension, got a scalar")
    if x.dtype.kind != "f":
        raise TypeError(f"{where}: {name} must be float16, float32 or float64, got {x.dtype}")
    return x


def _num_rows(g: Graph, rel: Any, target: str) -> int:
    s, _, d = rel.canonical
    if target == "u":
        return g._num_src[s]
    if target == "v":
        return g._num_dst[d]
    return rel.num_edges


def _operand(where: str, name: str, x: Any, g: Graph, rel: Any, target: str) -> Any:
    """``x`` checked as the features of ``target`` (rows, float dtype, the graph's device)."""
    _float_array(where, name, x)
    n = _num_rows(g, rel, target)
    if x.shape[0] != n:
        raise ValueError(
            f"{where}: {name} has {x.shape[0]} rows but the graph has {n} {_ROWS[target]} "
            f"(edge type {rel.canonical!r})"
        )
    on_gpu = get_namespace(x) is not np
    if on_gpu != (g.device != "cpu"):
        raise TypeError(
            f"{where}: {name} is a {'CuPy' if on_gpu else 'NumPy'} array but the graph is on "
            f"{g.device!r}"
        )
    return x


def _check_pair(where: str, op: str, lhs: Any, rhs: Any) -> None:
    if op in ("copy_lhs", "copy_rhs"):
        return
    from arraygnn.ops._common import native

    if native(lhs.dtype) != native(rhs.dtype):  # (byte order aside)
        raise TypeError(
            f"{where}: lhs_data is {lhs.dtype} but rhs_data is {rhs.dtype}; DGL needs one dtype"
        )
    a, b = tuple(lhs.shape[1:]), tuple(rhs.shape[1:])
    pad = max(len(a), len(b))
    try:
        np.broadcast_shapes((1,) * (pad - len(a)) + a, (1,) * (pad - len(b)) + b)
    except ValueError:
        raise ValueError(
            f"{where}: feature shapes {a} (lhs_data) and {b} (rhs_data) do not broadcast"
        ) from None
    if op == "dot" and (a[-1:] or (1,)) != (b[-1:] or (1,)):
        raise ValueError(
            f"{where}: dot needs the same size on the last feature dim of lhs_data and "
            f"rhs_data (DGL does not broadcast it), got feature shapes {a} and {b}"
        )


def _as_add_mul(op: str, rhs: Any) -> tuple[str, Any]:
    """DGL's backend rewrite: ``sub`` -> ``add`` of ``-rhs``, ``div`` -> ``mul`` by ``1 / rhs``."""
    if op == "sub":
        return "add", -rhs
    if op == "div":
        with np.errstate(divide="ignore"):
            return "mul", (1.0 / rhs).astype(rhs.dtype, copy=False)
    return op, rhs


def _scratch(g: Graph, rel: Any) -> tuple[Graph, Any]:
    """A graph sharing ``rel``'s ids and cached CSR with empty frames of its own."""
    c = rel.canonical
    view = g._like({c: (rel.src, rel.dst)})
    vrel = view._rels[c]
    vrel._csr = g.csr(c)
    vrel._edge_index = rel._edge_index
    return view, vrel


# ---------------------------------------------------------------------- generic kernels
def gspmm(g: Graph, op: str, reduce_op: str, lhs_data: Any, rhs_data: Any) -> Any:
    """``out[v] = reduce_op over edges (u, e, v) of op(lhs_data[u], rhs_data[e])``.

    ``op``: ``add``, ``sub``, ``mul``, ``div``, ``copy_lhs`` (``rhs_data`` may be
    ``None``) or ``copy_rhs`` (``lhs_data`` may be ``None``); ``reduce_op``: ``sum``,
    ``max``, ``min``, ``mean``. Shapes: ``lhs_data`` [num_src, ...], ``rhs_data``
    [num_edges, ...]; result [num_dst, *broadcast].
    """
    where = "gspmm"
    rel = _relation(where, g)
    _choice(where, "op", op, SPMM_OPS)
    _choice(where, "reduce_op", reduce_op, SPMM_REDUCES)
    lhs = rhs = None
    if op != "copy_rhs":
        lhs = _operand(where, "lhs_data", lhs_data, g, rel, "u")
    if op != "copy_lhs":
        rhs = _operand(where, "rhs_data", rhs_data, g, rel, "e")
    _check_pair(where, op, lhs, rhs)
    from arraygnn.graph.message_passing import _align_feature_ranks, _compute_update

    view, vrel = _scratch(g, rel)
    s, _, d = rel.canonical
    if op == "copy_lhs":
        message: Any = CopyMessage("u", "_u", "_m")
    elif op == "copy_rhs":
        message = CopyMessage("e", "_e", "_m")
    else:
        op, rhs = _as_add_mul(op, rhs)
        lhs, rhs = _align_feature_ranks(lhs, rhs)
        message = BinaryMessage("u", op, "e", "_u", "_e", "_m")
    if lhs is not None:
        view._src_frames[s]._data["_u"] = lhs
    if rhs is not None:
        vrel.frame._data["_e"] = rhs
    return _compute_update(view, vrel, message, Reduce(reduce_op, "_m", "_out"))["_out"]


def gsddmm(
    g: Graph, op: str, lhs_data: Any, rhs_data: Any, lhs_target: str = "u", rhs_target: str = "v"
) -> Any:
    """``out[e] = op(lhs_data[lhs_target(e)], rhs_data[rhs_target(e)])`` for every edge, in
    edge-id order.

    ``op``: ``add``, ``sub``, ``mul``, ``div``, ``dot`` (sums the last feature dim, keeps
    it as size 1; both operands need the same last dim, 1-D operands give the [E]
    product, as DGL), ``copy_lhs``, ``copy_rhs``; targets ``u`` (source), ``v``
    (destination) or ``e`` (edge).
    """
    where = "gsddmm"
    rel = _relation(where, g)
    _choice(where, "op", op, SDDMM_OPS)
    _choice(where, "lhs_target", lhs_target, _TARGETS)
    _choice(where, "rhs_target", rhs_target, _TARGETS)
    lhs = rhs = None
    if op != "copy_rhs":
        lhs = _operand(where, "lhs_data", lhs_data, g, rel, lhs_target)
    if op != "copy_lhs":
        rhs = _operand(where, "rhs_data", rhs_data, g, rel, rhs_target)
    _check_pair(where, op, lhs, rhs)
    ops = _ops()
    csr = g.csr(rel.canonical)
    if op == "copy_lhs":
        return ops.sddmm(csr, lhs, None, op="copy_lhs", lhs_target=lhs_target)
    if op == "copy_rhs":
        return ops.sddmm(csr, None, rhs, op="copy_rhs", rhs_target=rhs_target)
    from arraygnn.graph.message_passing import _align_feature_ranks

    if op == "dot" and lhs.ndim == 1 and rhs.ndim == 1:
        op = "mul"  # DGL: scalar features are dotted as size-1 vectors, then squeezed
    op, rhs = _as_add_mul(op, rhs)
    lhs, rhs = _align_feature_ranks(lhs, rhs)
    return ops.sddmm(csr, lhs, rhs, op=op, lhs_target=lhs_target, rhs_target=rhs_target)


# ---------------------------------------------------------------------- softmax
def edge_softmax(graph: Graph, logits: Any, eids: Any = ALL, norm_by: str = "dst") -> Any:
    """Softmax of ``logits`` over the in-edges of each node (``norm_by='dst'``, GAT) or
    over the out-edges (``norm_by='src'``).

    ``logits`` [E, ...] (float) on a graph with one edge type; ``eids`` (ids, default
    :data:`ALL`) restricts it to those edges, ``logits`` then having one row per id. On a
    graph with several edge types ``logits`` is ``{etype: [E_t, ...]}`` for every edge
    type and the softmax runs over all edge types into (out of) each node, as DGL; the
    result is ``{canonical etype: array}``.
    """
    where = "edge_softmax"
    check_graph(where, graph)
    _choice(where, "norm_by", norm_by, ("dst", "src"))
    ops = _ops()
    if len(graph._rels) != 1:
        return _hetero_edge_softmax(graph, logits, eids, norm_by)
    rel = next(iter(graph._rels.values()))
    s, _, d = rel.canonical
    if isinstance(eids, str) and eids == ALL:
        _operand(where, "logits", logits, graph, rel, "e")
        if norm_by == "dst":
            return ops.edge_softmax(graph.csr(rel.canonical), logits)
        from arraygnn.graph.query import _reverse_csr

        return ops.edge_softmax(_reverse_csr(graph, rel), logits)
    from arraygnn.graph.subgraph import _ids_for

    ids = _ids_for(graph, eids, rel.num_edges, f"{where}: eids", "edges")
    _float_array(where, "logits", logits)
    if logits.shape[0] != ids.shape[0]:
        raise ValueError(
            f"{where}: logits has {logits.shape[0]} rows but eids names {ids.shape[0]} edges"
        )
    xp = graph._xp()
    if norm_by == "dst":
        edge_index, n = xp.stack([rel.src[ids], rel.dst[ids]]), graph._num_dst[d]
    else:
        edge_index, n = xp.stack([rel.dst[ids], rel.src[ids]]), graph._num_src[s]
    return ops.edge_softmax(edge_index, logits, num_dst_nodes=n)


def _hetero_edge_softmax(g: Graph, logits: Any, eids: Any, norm_by: str) -> dict:
    where = "edge_softmax"
    if not (isinstance(eids, str) and eids == ALL):
        raise ValueError(
            f"{where}: eids works on a graph with one edge type; this graph has "
            f"{g.canonical_etypes}"
        )
    if not isinstance(logits, Mapping):
        raise TypeError(
            f"{where}: the graph has edge types {g.canonical_etypes}; pass logits as "
            "{etype: array}"
        )
    given = {g._rel(k).canonical: v for k, v in logits.items()}
    missing = [c for c in g.canonical_etypes if c not in given]
    if missing:
        raise KeyError(f"{where}: logits has no entry for edge types {missing}")
    side = 2 if norm_by == "dst" else 0
    groups: dict[str, list[Any]] = {}
    for c, rel in g._rels.items():
        _operand(where, f"logits[{c!r}]", given[c], g, rel, "e")
        groups.setdefault(c[side], []).append(rel)
    xp = g._xp()
    out = {}
    for t, rels in groups.items():
        vals = [given[r.canonical] for r in rels]
        shapes = {tuple(v.shape[1:]) for v in vals}
        dtypes = {v.dtype for v in vals}
        if len(shapes) != 1 or len(dtypes) != 1:
            raise ValueError(
                f"{where}: the logits of edge types {[r.canonical for r in rels]} (all "
                f"normalised over node type {t!r}) must share one feature shape and dtype, "
                f"got {sorted(shapes)} / {sorted(map(str, dtypes))}"
            )
        node = xp.concatenate([r.dst if norm_by == "dst" else r.src for r in rels])
        n = (g._num_dst if norm_by == "dst" else g._num_src)[t]
        alpha = _ops().edge_softmax(xp.stack([node, node]), xp.concatenate(vals), n)
        start = 0
        for r in rels:
            out[r.canonical] = alpha[start : start + r.num_edges]
            start += r.num_edges
    return {c: out[c] for c in g.canonical_etypes}


# ---------------------------------------------------------------------- segments
def _segment_ptr(where: str, seglen: Any, value: Any) -> Any:
    if not is_array(seglen):
        if isinstance(seglen, (list, tuple, range)):
            seglen = get_namespace(value).asarray(np.asarray(seglen, dtype=np.int64))
        else:
            raise TypeError(f"{where}: seglen must be an integer array, got {type(seglen)}")
    _float_array(where, "value", value)
    xp = get_namespace(seglen, value)
    if seglen.ndim != 1 or seglen.dtype.kind not in "iu":
        raise TypeError(
            f"{where}: seglen must be a 1-D integer array, got {seglen.dtype} with shape "
            f"{tuple(seglen.shape)}"
        )
    if seglen.size and int(seglen.min()) < 0:
        raise ValueError(f"{where}: seglen has a negative length {int(seglen.min())}")
    ptr = xp.zeros(seglen.shape[0] + 1, dtype=np.int64)
    xp.cumsum(seglen, out=ptr[1:])
    if int(ptr[-1]) != value.shape[0]:
        raise ValueError(
            f"{where}: seglen sums to {int(ptr[-1])} but value has {value.shape[0]} rows"
        )
    return ptr


def segment_reduce(seglen: Any, value: Any, reducer: str = "sum") -> Any:
    """Reduce ``value`` [sum(seglen), ...] over consecutive segments of lengths ``seglen``
    with ``reducer`` (``sum``, ``max``, ``min``, ``mean``); empty segments give 0.

    >>> import numpy as np
    >>> segment_reduce(np.array([1, 0, 5, 4]), np.ones((10, 1))).ravel()
    array([1., 0., 5., 4.])
    """
    where = "segment_reduce"
    _choice(where, "reducer", reducer, SPMM_REDUCES)
    ptr = _segment_ptr(where, seglen, value)
    return dgl_segment(value, ptr, reducer)


def replace_inf_with_zero(out: Any) -> Any:
    """DGL's ``replace_inf_with_zero``: ``out`` with every infinity as 0 (a new array)."""
    xp = get_namespace(out)
    return xp.where(xp.isinf(out), xp.zeros((), dtype=out.dtype), out)


def dgl_segment(value: Any, ptr: Any, reducer: str) -> Any:
    """``ops.segment`` with DGL's rule for ``max`` / ``min``: every infinity of the result
    is 0 (empty segments too), as DGL's ``segment_reduce`` and readouts."""
    out = _ops().segment(value, ptr, reduce=reducer)
    return replace_inf_with_zero(out) if reducer in ("max", "min") else out


def segment_softmax(seglen: Any, value: Any) -> Any:
    """Softmax of ``value`` [sum(seglen), ...] within each segment (same shape).

    >>> import numpy as np
    >>> segment_softmax(np.array([1, 0, 2]), np.zeros(3)).tolist()
    [1.0, 0.5, 0.5]
    """
    ptr = _segment_ptr("segment_softmax", seglen, value)
    xp = get_namespace(value)
    lengths = ptr[1:] - ptr[:-1]
    seg = repeat_counts(xp, xp.arange(lengths.shape[0], dtype=np.int64), lengths)
    ops = _ops()
    # DGL's formula: exp(value - segment max, infinities as 0) / segment sum
    top = segment_reduce(lengths, value, reducer="max")
    with np.errstate(invalid="ignore", over="ignore"):
        e = xp.exp(value - ops.gather(top, seg))
        return e / ops.gather(ops.segment(e, ptr, reduce="sum"), seg)


# ---------------------------------------------------------------------- gspmm shortcuts
def copy_u_sum(g: Graph, x: Any) -> Any:
    """Sum of the source features over each node's in-edges."""
    return gspmm(g, "copy_lhs", "sum", x, None)


def copy_u_mean(g: Graph, x: Any) -> Any:
    """Mean of the source features over each node's in-edges (0 without in-edges)."""
    return gspmm(g, "copy_lhs", "mean", x, None)


def copy_u_max(g: Graph, x: Any) -> Any:
    """Max of the source features over each node's in-edges (0 without in-edges)."""
    return gspmm(g, "copy_lhs", "max", x, None)


def copy_u_min(g: Graph, x: Any) -> Any:
    """Min of the source features over each node's in-edges (0 without in-edges)."""
    return gspmm(g, "copy_lhs", "min", x, None)


def copy_e_sum(g: Graph, x: Any) -> Any:
    """Sum of the edge features over each node's in-edges."""
    return gspmm(g, "copy_rhs", "sum", None, x)


def copy_e_mean(g: Graph, x: Any) -> Any:
    """Mean of the edge features over each node's in-edges (0 without in-edges)."""
    return gspmm(g, "copy_rhs", "mean", None, x)


def copy_e_max(g: Graph, x: Any) -> Any:
    """Max of the edge features over each node's in-edges (0 without in-edges)."""
    return gspmm(g, "copy_rhs", "max", None, x)


def copy_e_min(g: Graph, x: Any) -> Any:
    """Min of the edge features over each node's in-edges (0 without in-edges)."""
    return gspmm(g, "copy_rhs", "min", None, x)


def u_add_e_sum(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'add', 'sum', x, y)``."""
    return gspmm(g, "add", "sum", x, y)


def u_add_e_mean(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'add', 'mean', x, y)``."""
    return gspmm(g, "add", "mean", x, y)


def u_add_e_max(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'add', 'max', x, y)``."""
    return gspmm(g, "add", "max", x, y)


def u_add_e_min(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'add', 'min', x, y)``."""
    return gspmm(g, "add", "min", x, y)


def u_sub_e_sum(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'sub', 'sum', x, y)``."""
    return gspmm(g, "sub", "sum", x, y)


def u_sub_e_mean(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'sub', 'mean', x, y)``."""
    return gspmm(g, "sub", "mean", x, y)


def u_sub_e_max(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'sub', 'max', x, y)``."""
    return gspmm(g, "sub", "max", x, y)


def u_sub_e_min(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'sub', 'min', x, y)``."""
    return gspmm(g, "sub", "min", x, y)


def u_mul_e_sum(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'mul', 'sum', x, y)`` (one fused ``ops.spmm`` for [E] / [E, H, 1] weights)."""
    return gspmm(g, "mul", "sum", x, y)


def u_mul_e_mean(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'mul', 'mean', x, y)``."""
    return gspmm(g, "mul", "mean", x, y)


def u_mul_e_max(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'mul', 'max', x, y)``."""
    return gspmm(g, "mul", "max", x, y)


def u_mul_e_min(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'mul', 'min', x, y)``."""
    return gspmm(g, "mul", "min", x, y)


def u_div_e_sum(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'div', 'sum', x, y)``."""
    return gspmm(g, "div", "sum", x, y)


def u_div_e_mean(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'div', 'mean', x, y)``."""
    return gspmm(g, "div", "mean", x, y)


def u_div_e_max(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'div', 'max', x, y)``."""
    return gspmm(g, "div", "max", x, y)


def u_div_e_min(g: Graph, x: Any, y: Any) -> Any:
    """``gspmm(g, 'div', 'min', x, y)``."""
    return gspmm(g, "div", "min", x, y)


# ---------------------------------------------------------------------- gsddmm shortcuts
def copy_u(g: Graph, x: Any) -> Any:
    """The source node's features on every edge: [E, ...]."""
    return gsddmm(g, "copy_lhs", x, None)


def copy_v(g: Graph, x: Any) -> Any:
    """The destination node's features on every edge: [E, ...]."""
    return gsddmm(g, "copy_rhs", None, x)


def copy_e(g: Graph, x: Any) -> Any:
    """The edge features themselves (DGL returns ``x``; here a checked copy)."""
    return gsddmm(g, "copy_lhs", x, None, lhs_target="e")


def u_add_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'add', x, y, 'u', 'v')``."""
    return gsddmm(g, "add", x, y, "u", "v")


def u_sub_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'sub', x, y, 'u', 'v')``."""
    return gsddmm(g, "sub", x, y, "u", "v")


def u_mul_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'mul', x, y, 'u', 'v')``."""
    return gsddmm(g, "mul", x, y, "u", "v")


def u_div_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'div', x, y, 'u', 'v')``."""
    return gsddmm(g, "div", x, y, "u", "v")


def u_dot_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'dot', x, y, 'u', 'v')``: [E, ..., 1]."""
    return gsddmm(g, "dot", x, y, "u", "v")


def u_add_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'add', x, y, 'u', 'e')``."""
    return gsddmm(g, "add", x, y, "u", "e")


def u_sub_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'sub', x, y, 'u', 'e')``."""
    return gsddmm(g, "sub", x, y, "u", "e")


def u_mul_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'mul', x, y, 'u', 'e')``."""
    return gsddmm(g, "mul", x, y, "u", "e")


def u_div_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'div', x, y, 'u', 'e')``."""
    return gsddmm(g, "div", x, y, "u", "e")


def u_dot_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'dot', x, y, 'u', 'e')``: [E, ..., 1]."""
    return gsddmm(g, "dot", x, y, "u", "e")


def v_add_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'add', x, y, 'v', 'u')``."""
    return gsddmm(g, "add", x, y, "v", "u")


def v_sub_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'sub', x, y, 'v', 'u')``."""
    return gsddmm(g, "sub", x, y, "v", "u")


def v_mul_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'mul', x, y, 'v', 'u')``."""
    return gsddmm(g, "mul", x, y, "v", "u")


def v_div_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'div', x, y, 'v', 'u')``."""
    return gsddmm(g, "div", x, y, "v", "u")


def v_dot_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'dot', x, y, 'v', 'u')``: [E, ..., 1]."""
    return gsddmm(g, "dot", x, y, "v", "u")


def v_add_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'add', x, y, 'v', 'e')``."""
    return gsddmm(g, "add", x, y, "v", "e")


def v_sub_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'sub', x, y, 'v', 'e')``."""
    return gsddmm(g, "sub", x, y, "v", "e")


def v_mul_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'mul', x, y, 'v', 'e')``."""
    return gsddmm(g, "mul", x, y, "v", "e")


def v_div_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'div', x, y, 'v', 'e')``."""
    return gsddmm(g, "div", x, y, "v", "e")


def v_dot_e(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'dot', x, y, 'v', 'e')``: [E, ..., 1]."""
    return gsddmm(g, "dot", x, y, "v", "e")


def e_add_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'add', x, y, 'e', 'u')``."""
    return gsddmm(g, "add", x, y, "e", "u")


def e_sub_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'sub', x, y, 'e', 'u')``."""
    return gsddmm(g, "sub", x, y, "e", "u")


def e_mul_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'mul', x, y, 'e', 'u')``."""
    return gsddmm(g, "mul", x, y, "e", "u")


def e_div_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'div', x, y, 'e', 'u')``."""
    return gsddmm(g, "div", x, y, "e", "u")


def e_dot_u(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'dot', x, y, 'e', 'u')``: [E, ..., 1]."""
    return gsddmm(g, "dot", x, y, "e", "u")


def e_add_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'add', x, y, 'e', 'v')``."""
    return gsddmm(g, "add", x, y, "e", "v")


def e_sub_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'sub', x, y, 'e', 'v')``."""
    return gsddmm(g, "sub", x, y, "e", "v")


def e_mul_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'mul', x, y, 'e', 'v')``."""
    return gsddmm(g, "mul", x, y, "e", "v")


def e_div_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'div', x, y, 'e', 'v')``."""
    return gsddmm(g, "div", x, y, "e", "v")


def e_dot_v(g: Graph, x: Any, y: Any) -> Any:
    """``gsddmm(g, 'dot', x, y, 'e', 'v')``: [E, ..., 1]."""
    return gsddmm(g, "dot", x, y, "e", "v")
