"""Message passing of the DGL face: ``apply_edges``, ``update_all``, ``multi_update_all``,
and on some edges only: ``send_and_recv``, ``pull``, ``push``.

Lowering of built-ins (every step is one :mod:`arraygnn.ops` call):

- ``apply_edges(<lhs>_<op>_<rhs>)``      -> ``ops.sddmm`` (``copy_*`` -> ``ops.gather``)
- ``update_all(copy_u, sum|mean|max|min)`` -> ``ops.spmm`` over the cached CSR, fused
- ``update_all(u_mul_e | e_mul_u | u_div_e, sum|mean|max|min)`` -> ``ops.spmm`` with the
  edge feature as the edge weight, fused (``u_div_e`` as multiplication by ``1 / e``), when
  the edge feature varies only over leading feature dims of the node feature (``[E]``,
  ``[E, 1]``, ``[E, H, 1]`` against ``[N, H, F]``, or the same shape as the node feature)
- ``update_all(copy_e, any reduce)``     -> ``ops.scatter`` of the edge feature (no new array)
- every other built-in pair (``prod``, ``add``/``sub``/``dot``, ``v`` operands, broadcasts that
  widen the node feature) -> ``ops.sddmm`` then ``ops.scatter`` (one [E, ...] message array).

User-defined functions: a message UDF gets an :class:`EdgeBatch`; a reduce UDF gets a
:class:`NodeBatch` whose ``mailbox[name]`` is ``[nodes, degree, ...]``, called once per
in-degree bucket (DGL's degree bucketing), in-edges in edge-id order.

RULE: a destination node without in-edges gets 0 for every reduce (built-in or UDF).
RULE: ``send_and_recv`` / ``pull`` / ``push`` change only the receiving nodes' rows (in new
      arrays; a new field is 0 elsewhere), as DGL: the receivers are the destinations of
      the given edges (``pull``: the given nodes, 0 for one without in-edges).
RULE: every field is looked up and every shape checked before any kernel runs.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.function import BinaryMessage, CopyMessage, Reduce

__all__ = [
    "EdgeBatch",
    "NodeBatch",
    "apply_edges",
    "apply_nodes",
    "update_all",
    "multi_update_all",
    "send_and_recv",
    "pull",
    "push",
    "CROSS_REDUCERS",
    "FUSED_REDUCES",
]

CROSS_REDUCERS = ("sum", "min", "max", "mean", "stack")
FUSED_REDUCES = ("sum", "mean", "max", "min")
_WHERE = {"u": "source node", "v": "destination node", "e": "edge"}


def _ops() -> Any:
    from arraygnn import ops

    return ops


# ---------------------------------------------------------------------- CSR helpers
def _csr_indptr(csr: Any) -> Any:
    for name in ("indptr", "rowptr", "ptr"):
        if hasattr(csr, name):
            return getattr(csr, name)
    raise AttributeError(f"CSR object {type(csr).__name__} has no indptr")


def _csr_perm(csr: Any) -> Any:
    for name in ("perm", "edge_perm", "eid", "permutation"):
        if hasattr(csr, name):
            return getattr(csr, name)
    raise AttributeError(f"CSR object {type(csr).__name__} has no edge permutation")


def csr_degrees(csr: Any) -> Any:
    """Row lengths of a CSR (in-degrees of the destination nodes)."""
    indptr = _csr_indptr(csr)
    return indptr[1:] - indptr[:-1]


def out_degrees(g: Any, rel: Any) -> Any:
    """Out-degrees via a cached source-sorted CSR of the reversed edges."""
    rev = getattr(rel, "_rev_csr", None)
    if rev is None:
        s, _, d = rel.canonical
        xp = g._xp()
        rev = _ops().to_csr(xp.stack([rel.dst, rel.src]), g._num_dst[d], g._num_src[s])
        rel._rev_csr = rev
    return csr_degrees(rev)


# ---------------------------------------------------------------------- batches
class _LazyRows(Mapping):
    """Rows ``ids`` of every feature of a frame, gathered on first access (``ops.gather``)."""

    def __init__(self, frame: Any, ids: Any, label: str) -> None:
        self._frame = frame
        self._ids = ids
        self._label = label
        self._cache: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._cache:
            if key not in self._frame._data:
                raise KeyError(
                    f"{self._label}[{key!r}]: feature {key!r} not found in {self._frame.where}; "
                    f"available: {sorted(self._frame._data)}"
                )
            value = self._frame._data[key]
            self._cache[key] = value if self._ids is None else _ops().gather(value, self._ids)
        return self._cache[key]

    def __iter__(self) -> Any:
        return iter(self._frame._data)

    def __len__(self) -> int:
        return len(self._frame._data)


class EdgeBatch:
    """What a message UDF receives: ``src``, ``dst``, ``data`` (per-edge rows), ``edges()``,
    ``batch_size()`` and ``canonical_etype``. In ``send_and_recv`` / ``pull`` / ``push``
    ``edges()`` gives the graph's edge ids of the edges sent along (DGL's ``orig_eid``)."""

    def __init__(self, g: Any, rel: Any, eids: Any = None, edge_ids: Any = None) -> None:
        s, _, d = rel.canonical
        self._eids = eids
        self._edge_ids = eids if edge_ids is None else edge_ids  # what edges() reports
        self._src = rel.src if eids is None else rel.src[eids]
        self._dst = rel.dst if eids is None else rel.dst[eids]
        self.src = _LazyRows(g._src_frames[s], self._src, "edges.src")
        self.dst = _LazyRows(g._dst_frames[d], self._dst, "edges.dst")
        self.data = _LazyRows(rel.frame, eids, "edges.data")
        self.canonical_etype = rel.canonical

    def edges(self) -> tuple[Any, Any, Any]:
        """``(src ids, dst ids, edge ids)`` of the edges in the batch."""
        eids = self._edge_ids
        if eids is None:
            xp = np if isinstance(self._src, np.ndarray) else _cupy()
            eids = xp.arange(self._src.shape[0], dtype=self._src.dtype)
        return self._src, self._dst, eids

    def batch_size(self) -> int:
        return int(self._src.shape[0])

    def __len__(self) -> int:
        return self.batch_size()


class NodeBatch:
    """What a reduce / apply-node UDF receives: ``data``, ``mailbox``, ``nodes()``,
    ``batch_size()`` and ``ntype`` (the node type, DGL's ``NodeBatch.ntype``)."""

    def __init__(
        self,
        frame: Any,
        nodes: Any,
        mailbox: dict[str, Any] | None,
        num: int,
        ntype: str | None = None,
        idtype: Any = None,
    ) -> None:
        self._nodes = nodes
        self._num = num
        self._idtype = idtype  # nodes() in the graph's idtype, as DGL's
        self.data = _LazyRows(frame, nodes, "nodes.data")
        self.mailbox = _Mailbox(mailbox or {})
        self.ntype = ntype

    def nodes(self) -> Any:
        if self._nodes is None:  # every node of the frame, on the graph's device
            xp = np if self.data._frame.device == "cpu" else _cupy()
            return xp.arange(self._num, dtype=self._idtype)
        if self._idtype is None:
            return self._nodes
        return self._nodes.astype(self._idtype, copy=False)

    def batch_size(self) -> int:
        return self._num

    def __len__(self) -> int:
        return self._num


class _Mailbox(dict):
    def __missing__(self, key: str) -> Any:
        raise KeyError(
            f"nodes.mailbox[{key!r}]: no message field {key!r}; messages sent: {sorted(self)}"
        )


def _cupy() -> Any:
    from arraygnn._namespace import import_cupy

    return import_cupy()


# ---------------------------------------------------------------------- built-in lookups
def _lookup(g: Any, rel: Any, target: str, field: str, func: str) -> Any:
    s, _, d = rel.canonical
    if target == "u":
        frame = g._src_frames[s]
    elif target == "v":
        frame = g._dst_frames[d]
    else:
        frame = rel.frame
    if field not in frame._data:
        raise KeyError(
            f"fn.{func}: {_WHERE[target]} feature {field!r} not found in {frame.where} "
            f"(edge type {rel.canonical!r}); available: {sorted(frame._data)}"
        )
    return frame._data[field]


def _check_broadcast(func: str, lhs: Any, rhs: Any, msg: BinaryMessage) -> tuple:
    try:
        shape = np.broadcast_shapes(lhs.shape[1:], rhs.shape[1:])
    except ValueError:
        raise ValueError(
            f"fn.{func}: feature shapes {tuple(lhs.shape[1:])} ({msg.lhs_field!r}) and "
            f"{tuple(rhs.shape[1:])} ({msg.rhs_field!r}) do not broadcast"
        ) from None
    a, b = tuple(lhs.shape[1:]), tuple(rhs.shape[1:])
    if msg.op == "dot" and (a[-1:] or (1,)) != (b[-1:] or (1,)):  # 1-D: size-1 vectors
        raise ValueError(
            f"fn.{func}: dot needs the same size on the last feature dim of both operands "
            f"(DGL does not broadcast it), got feature shapes {a} and {b}"
        )
    return shape


def _check_message(func: Any) -> None:
    if not isinstance(func, (CopyMessage, BinaryMessage)) and not callable(func):
        raise TypeError(
            f"message function must be an arraygnn.function built-in or a callable, got {func!r}"
        )


def _check_reduce(func: Any) -> None:
    if not isinstance(func, Reduce) and not callable(func):
        raise TypeError(
            f"reduce function must be an arraygnn.function reduce or a callable, got {func!r}"
        )


def _builtin_messages(g: Any, rel: Any, msg: Any, eids: Any = None) -> Any:
    """The [E, ...] message of a built-in: one ``ops.sddmm`` (or ``ops.gather`` for copy).

    ``eids`` restricts it to those edges (their edge features gathered first)."""
    ops = _ops()
    src = rel.src if eids is None else rel.src[eids]
    dst = rel.dst if eids is None else rel.dst[eids]

    def edge_rows(x: Any) -> Any:
        return x if eids is None else ops.gather(x, eids)

    if isinstance(msg, CopyMessage):
        x = _lookup(g, rel, msg.target, msg.field, msg.name)
        if msg.target == "e":
            return x.copy() if eids is None else edge_rows(x)
        return ops.gather(x, src if msg.target == "u" else dst)
    lhs = _lookup(g, rel, msg.lhs, msg.lhs_field, msg.name)
    rhs = _lookup(g, rel, msg.rhs, msg.rhs_field, msg.name)
    _check_broadcast(msg.name, lhs, rhs, msg)
    lhs = edge_rows(lhs) if msg.lhs == "e" else lhs
    rhs = edge_rows(rhs) if msg.rhs == "e" else rhs
    # DGL dots 1-D (scalar) features as size-1 vectors and squeezes: their product
    op = "mul" if msg.op == "dot" and lhs.ndim == 1 and rhs.ndim == 1 else msg.op
    lhs, rhs = _align_feature_ranks(lhs, rhs)
    if eids is not None:
        edge_index = g._xp().stack([src, dst])
    else:  # the relation's CSR once built (same results, v rows read in order on the CPU)
        edge_index = rel._csr if rel._csr is not None else rel.edge_index()
    return ops.sddmm(edge_index, lhs, rhs, op=op, lhs_target=msg.lhs, rhs_target=msg.rhs)


def _align_feature_ranks(a: Any, b: Any) -> tuple[Any, Any]:
    """DGL broadcasting: feature dims align from the right, so the operand with fewer
    feature dims gets size-1 dims inserted right after its first (row) dim (a view)."""
    if a.ndim < b.ndim:
        a = a.reshape((a.shape[0],) + (1,) * (b.ndim - a.ndim) + tuple(a.shape[1:]))
    elif b.ndim < a.ndim:
        b = b.reshape((b.shape[0],) + (1,) * (a.ndim - b.ndim) + tuple(b.shape[1:]))
    return a, b


def _udf_messages(g: Any, rel: Any, func: Callable, edge_ids: Any = None) -> dict[str, Any]:
    out = func(EdgeBatch(g, rel, edge_ids=edge_ids))
    return _check_udf_output(out, rel.num_edges, "message UDF", f"edges of type {rel.canonical!r}")


def _check_udf_output(out: Any, rows: int, what: str, where: str) -> dict[str, Any]:
    from arraygnn._namespace import is_array

    if not isinstance(out, Mapping):
        raise TypeError(f"{what} must return a dict {{name: array}}, got {type(out).__name__}")
    for k, v in out.items():
        if not is_array(v):
            raise TypeError(f"{what} output {k!r} must be a NumPy or CuPy array, got {type(v)}")
        if v.ndim == 0 or v.shape[0] != rows:
            got = "a scalar" if v.ndim == 0 else f"{v.shape[0]} rows"
            raise ValueError(f"{what} output {k!r} has {got}, expected {rows} ({where})")
    return dict(out)


# ---------------------------------------------------------------------- apply_edges
def apply_edges(g: Any, func: Any, edges: Any = None, etype: Any = None) -> None:
    """Write ``func``'s output into the edge features of ``etype``.

    ``edges`` (edge ids, one id, a boolean mask or a ``(u, v)`` pair of node ids, DGL's
    forms) restricts the computation to those edges; their
    rows of the output field are replaced (in a new array; other rows keep their values,
    or 0 when the field is new). Without ``etype`` on a graph of several edge types, a
    built-in runs on every edge type (DGL; UDFs need ``etype=``).
    """
    if etype is None and len(g._rels) > 1 and isinstance(func, (CopyMessage, BinaryMessage)):
        if edges is not None:
            raise ValueError("apply_edges: edges= needs etype= on a graph of several edge types")
        for c in list(g._rels):
            apply_edges(g, func, etype=c)
        return
    rel = g._rel(etype)
    _check_message(func)
    eids = None if edges is None else _edge_ids_arg(g, rel, edges, "apply_edges")
    if isinstance(func, (CopyMessage, BinaryMessage)):
        with _naming(func):
            out = {func.out_field: _builtin_messages(g, rel, func, eids)}
    else:
        rows = rel.num_edges if eids is None else int(eids.shape[0])
        out = _check_udf_output(
            func(EdgeBatch(g, rel, eids)), rows, "message UDF", f"edges of {rel.canonical!r}"
        )
    for k, v in out.items():
        rel.frame[k] = v if eids is None else _write_rows(rel.frame, k, eids, v)


def _write_rows(frame: Any, key: str, rows: Any, values: Any) -> Any:
    """A copy of ``frame[key]`` (zeros when missing) with ``rows`` set to ``values``."""
    xp = np if isinstance(values, np.ndarray) else _cupy()
    old = frame._data.get(key)
    shape = (frame.num_rows,) + tuple(values.shape[1:])
    if old is not None and tuple(old.shape) != shape:
        raise ValueError(
            f"{frame.where}[{key!r}] has shape {tuple(old.shape)}; the update for a subset "
            f"of rows has feature shape {tuple(values.shape[1:])}"
        )
    new = (
        xp.zeros(shape, values.dtype)
        if old is None
        else old.astype(np.result_type(old.dtype, values.dtype), copy=True)
    )
    new[rows] = values
    return new


def _check_callable(what: str, func: Any) -> None:
    if not callable(func):
        raise TypeError(f"{what} must be a function of the node batch, got {func!r}")


def apply_nodes(g: Any, func: Callable, v: Any = None, ntype: str | None = None) -> None:
    """Write ``func(nodes)``'s output into the node features of ``ntype``; with ``v`` (ids
    or a boolean mask) ``func`` sees those nodes only and only their rows change (in new
    arrays; a new field is 0 elsewhere)."""
    _check_callable("apply_nodes: func", func)
    frame = g._node_frame(ntype, "dst")
    ntype = g._ntype(ntype, "dst")
    if v is None:
        out = func(NodeBatch(frame, None, None, frame.num_rows, ntype, g.idtype))
        for k, val in _check_udf_output(out, frame.num_rows, "apply-node UDF", frame.where).items():
            frame[k] = val
        return
    from arraygnn.graph.query import _is_int
    from arraygnn.graph.subgraph import _ids_for

    nodes = _ids_for(
        g, [int(v)] if _is_int(v) else v, frame.num_rows, f"apply_nodes: {frame.where} ids"
    )
    n = int(nodes.shape[0])
    out = _check_udf_output(
        func(NodeBatch(frame, nodes, None, n, ntype, g.idtype)), n, "apply-node UDF", frame.where
    )
    columns = {k: _write_rows(frame, k, nodes, val) for k, val in out.items()}
    for k, val in columns.items():
        frame[k] = val


# ---------------------------------------------------------------------- update_all
def _fused_weight_layout(x: Any, w: Any) -> tuple[Any, Any, tuple] | None:
    """Reshape (x, w) so that ``spmm(x', weight=w')`` computes ``x[src] * w`` reduced.

    Returns ``(x', w', out_feature_shape)`` or ``None`` when the product would widen x.
    """
    fx, fw = tuple(x.shape[1:]), tuple(w.shape[1:])
    if len(fw) > len(fx):
        return None
    fw_p = (1,) * (len(fx) - len(fw)) + fw
    k = 0
    for i, size in enumerate(fw_p):
        if size != 1:
            k = i + 1
    if fw_p[:k] != fx[:k]:
        return None
    n, e = x.shape[0], w.shape[0]
    if k == 0:
        xr = x if x.ndim <= 2 else x.reshape(n, math.prod(fx))  # -1 fails for n == 0
        return xr, w.reshape(e), fx
    h = math.prod(fx[:k])
    rest = math.prod(fx[k:])
    return x.reshape(n, h, rest), w.reshape(e, h), fx


def _reduce_builtin_fused(g: Any, rel: Any, msg: Any, red: Reduce) -> Any | None:
    """One fused engine call for the pair, or ``None`` when the pair is not fusable."""
    ops = _ops()
    s, _, d = rel.canonical
    n_dst = g._num_dst[d]
    if isinstance(msg, CopyMessage):
        x = _lookup(g, rel, msg.target, msg.field, msg.name)
        if msg.target == "e":
            return ops.scatter(x, rel.dst, n_dst, reduce=red.op)
        if msg.target == "u" and red.op in FUSED_REDUCES:
            if x.ndim > 3:
                flat = x.reshape(x.shape[0], math.prod(x.shape[1:]))
                out = ops.spmm(g.csr(rel.canonical), flat, reduce=red.op)
                return out.reshape((n_dst,) + tuple(x.shape[1:]))
            return ops.spmm(g.csr(rel.canonical), x, reduce=red.op)
        return None
    if red.op not in FUSED_REDUCES or msg.op not in ("mul", "div"):
        return None
    if (msg.lhs, msg.rhs) == ("u", "e"):
        x_field, w_field = msg.lhs_field, msg.rhs_field
    elif (msg.lhs, msg.rhs) == ("e", "u") and msg.op == "mul":
        x_field, w_field = msg.rhs_field, msg.lhs_field
    else:
        return None
    x = _lookup(g, rel, "u", x_field, msg.name)
    w = _lookup(g, rel, "e", w_field, msg.name)
    lhs, rhs = (x, w) if msg.lhs == "u" else (w, x)
    _check_broadcast(msg.name, lhs, rhs, msg)
    layout = _fused_weight_layout(x, w)
    if layout is None:
        return None
    xr, wr, fshape = layout
    dtype = np.result_type(x.dtype, w.dtype)
    if msg.op == "div":
        if dtype.kind != "f":
            dtype = np.result_type(dtype, np.float64)  # true division, as x / e
        # DGL's lowering x * (1 / e), with 1 / e in the result's dtype (float32 for a
        # float16 result: one rounding less than a float16 reciprocal)
        e = wr.astype(np.float32 if dtype == np.float16 else dtype, copy=False)
        xp = get_namespace(e)
        with np.errstate(divide="ignore", over="ignore"):
            wr = 1.0 / e
        if bool((xp.isinf(wr) & (e != 0)).any()):
            return None  # 1 / e overflows (a subnormal e): the unfused x / e stays finite
    else:
        wr = wr.astype(dtype, copy=False)
    xr = xr.astype(dtype, copy=False)
    out = ops.spmm(g.csr(rel.canonical), xr, edge_weight=wr, reduce=red.op)
    return out.astype(dtype, copy=False).reshape((n_dst,) + fshape)


def _reduce_udf(g: Any, rel: Any, messages: dict[str, Any], func: Callable) -> dict[str, Any]:
    """Run a reduce UDF over degree buckets; zero-in-degree nodes get 0."""
    ops = _ops()
    _, _, d = rel.canonical
    frame = g._dst_frames[d]
    n_dst = g._num_dst[d]
    csr = g.csr(rel.canonical)
    indptr, perm = _csr_indptr(csr), _csr_perm(csr)
    deg = indptr[1:] - indptr[:-1]
    xp = np if isinstance(deg, np.ndarray) else _cupy()
    # the distinct degrees, copied to the host once (not one device read per bucket)
    buckets = [b for b in to_numpy(unique_ids(xp, deg)).tolist() if b > 0]
    results: dict[str, Any] = {}
    if not buckets:  # learn the output shapes from an empty call
        nodes = xp.zeros(0, dtype=deg.dtype)
        # a [0, 1, ...] mailbox: reductions over the degree axis stay well defined
        mailbox = {k: xp.zeros((0, 1) + tuple(m.shape[1:]), m.dtype) for k, m in messages.items()}
        out = _check_udf_output(
            func(NodeBatch(frame, nodes, mailbox, 0, d, g.idtype)), 0, "reduce UDF", frame.where
        )
        return {k: xp.zeros((n_dst,) + tuple(v.shape[1:]), dtype=v.dtype) for k, v in out.items()}
    first = buckets[0]
    if xp is np:  # one stable sort, then a slice per bucket (not a pass over deg per bucket)
        order = np.argsort(deg, kind="stable")
        sorted_deg = deg[order]
        starts = np.searchsorted(sorted_deg, buckets, side="left")
        ends = np.searchsorted(sorted_deg, buckets, side="right")
    for i, b in enumerate(buckets):
        # this bucket's nodes in increasing id order (what nonzero(deg == b) gives)
        nodes = order[starts[i] : ends[i]] if xp is np else xp.nonzero(deg == b)[0]
        slots = indptr[nodes][:, None] + xp.arange(b, dtype=indptr.dtype)[None, :]
        eids = perm[slots.reshape(-1)]
        mailbox = {
            k: ops.gather(m, eids).reshape((nodes.shape[0], b) + tuple(m.shape[1:]))
            for k, m in messages.items()
        }
        out = func(NodeBatch(frame, nodes, mailbox, int(nodes.shape[0]), d, g.idtype))
        out = _check_udf_output(out, int(nodes.shape[0]), "reduce UDF", f"degree-{b} bucket")
        # every bucket must give the same fields of the same per-node shape (a missing field
        # would leave zeros, a narrower dtype would truncate the other buckets' values)
        if b != first and sorted(out) != sorted(results):
            raise ValueError(
                f"reduce UDF: the degree-{b} bucket returned fields {sorted(out)}, the "
                f"degree-{first} bucket {sorted(results)}; every bucket must return the same"
            )
        for k, v in out.items():
            if k not in results:
                results[k] = xp.zeros((n_dst,) + tuple(v.shape[1:]), dtype=v.dtype)
            elif tuple(v.shape[1:]) != tuple(results[k].shape[1:]):
                raise ValueError(
                    f"reduce UDF: field {k!r} has per-node shape {tuple(v.shape[1:])} in the "
                    f"degree-{b} bucket, {tuple(results[k].shape[1:])} in the degree-{first} "
                    "bucket"
                )
            elif v.dtype != results[k].dtype:  # promote, as concatenating the buckets would
                results[k] = results[k].astype(xp.result_type(results[k].dtype, v.dtype))
            results[k][nodes] = v
    return results


def _label(func: Any) -> str:
    """How an error names a message / reduce function and its fields."""
    if isinstance(func, CopyMessage):
        return f"fn.{func.name} (field {func.field!r})"
    if isinstance(func, BinaryMessage):
        return f"fn.{func.name} (fields {func.lhs_field!r}, {func.rhs_field!r})"
    if isinstance(func, Reduce):
        return f"fn.{func.op}({func.msg_field!r}, {func.out_field!r})"
    return f"the UDF {getattr(func, '__name__', type(func).__name__)}"


@contextlib.contextmanager
def _naming(*funcs: Any) -> Iterator[None]:
    """Re-raise an ops dtype error (``x must be a numeric ...``) naming the message /
    reduce functions and their fields instead of the kernel's argument (wraps only the
    built-in computations: a UDF's own errors pass unchanged)."""
    from arraygnn.ops._common import ValuesTypeError

    try:
        yield
    except ValuesTypeError as err:
        names = " -> ".join(_label(f) for f in funcs if f is not None)
        raise TypeError(f"{names}: a feature it reads is not usable: {err}") from err


def _compute_update(
    g: Any, rel: Any, message: Any, reduce: Any, edge_ids: Any = None
) -> dict[str, Any]:
    """The reduced destination features ``{out_field: [num_dst, ...]}`` of one edge type
    (``edge_ids``: what a message UDF's ``edges.edges()`` reports for ``rel``'s edges)."""
    _check_message(message)
    _check_reduce(reduce)
    builtin_msg = isinstance(message, (CopyMessage, BinaryMessage))
    if isinstance(reduce, Reduce) and builtin_msg:
        if reduce.msg_field != message.out_field:
            raise ValueError(
                f"fn.{reduce.op}({reduce.msg_field!r}, ...) reduces message field "
                f"{reduce.msg_field!r} but fn.{message.name} writes {message.out_field!r}"
            )
        with _naming(message, reduce):
            fused = _reduce_builtin_fused(g, rel, message, reduce)
        if fused is not None:
            return {reduce.out_field: fused}
    if builtin_msg:
        with _naming(message):
            messages = {message.out_field: _builtin_messages(g, rel, message)}
    else:
        messages = _udf_messages(g, rel, message, edge_ids)
    if isinstance(reduce, Reduce):
        if reduce.msg_field not in messages:
            raise ValueError(
                f"fn.{reduce.op}: message field {reduce.msg_field!r} was not sent; "
                f"the message function produced {sorted(messages)}"
            )
        _, _, d = rel.canonical
        m = messages[reduce.msg_field]
        with _naming(message, reduce):
            out = _ops().scatter(m, rel.dst, g._num_dst[d], reduce=reduce.op)
        return {reduce.out_field: out}
    return _reduce_udf(g, rel, messages, reduce)


def _apply_node_udf(g: Any, dtype_: str, func: Callable | None) -> None:
    if func is None:
        return
    _check_callable("apply_node_func", func)
    frame = g._dst_frames[dtype_]
    out = func(NodeBatch(frame, None, None, frame.num_rows, dtype_, g.idtype))
    for k, v in _check_udf_output(out, frame.num_rows, "apply_node_func", frame.where).items():
        frame[k] = v


def update_all(
    g: Any, message: Any, reduce: Any, apply_node_func: Callable | None = None, etype: Any = None
) -> None:
    """Message, reduce and (optionally) apply on every destination node of ``etype``
    (without ``etype`` on a graph of several edge types: every edge type, see
    :func:`_update_all_relations`). With ``apply_node_func`` on one edge type only its
    output is stored: it sees the reduced fields in ``nodes.data``, which are not kept
    (DGL); across several edge types the merged fields are kept and it runs after them."""
    if etype is None and len(g._rels) > 1:
        _update_all_relations(g, message, reduce, apply_node_func)
        return
    rel = g._rel(etype)
    out = _compute_update(g, rel, message, reduce)
    if apply_node_func is not None:  # only its output is stored (DGL's message_passing)
        _check_callable("apply_node_func", apply_node_func)
        out = _per_etype_apply(g, rel, out, apply_node_func)
    frame = g._dst_frames[rel.canonical[2]]
    for k, v in out.items():
        frame[k] = v


def _update_all_relations(
    g: Any, message: Any, reduce: Any, apply_node_func: Callable | None
) -> None:
    """DGL's ``update_all`` without ``etype`` on several edge types: built-ins only, one
    ``sum`` / ``max`` / ``min`` over the in-edges of *every* type of a node (a node
    without any gets 0); each destination type's field is replaced."""
    n = len(g._rels)
    if not isinstance(message, (CopyMessage, BinaryMessage)) or not isinstance(reduce, Reduce):
        raise ValueError(
            f"update_all without etype= on a graph of {n} edge types takes built-in message "
            "and reduce functions only (as DGL); use multi_update_all for functions of your own"
        )
    if reduce.op not in ("sum", "max", "min"):
        raise ValueError(
            f"update_all without etype= on a graph of {n} edge types reduces with 'sum', "
            f"'max' or 'min' (DGL refuses fn.{reduce.op} here); use multi_update_all to set "
            "the reduce within and across edge types"
        )
    field = reduce.out_field
    merged: dict[str, tuple[Any, Any]] = {}  # dst type -> (values, has an in-edge)
    for c, rel in g._rels.items():
        value = _compute_update(g, rel, message, reduce)[field]
        has = None if reduce.op == "sum" else g.in_degrees(etype=c) > 0  # max / min only
        if c[2] not in merged:
            merged[c[2]] = (value, has)
            continue
        old, old_has = merged[c[2]]
        if old.shape != value.shape:
            raise ValueError(
                f"update_all: field {field!r} of node type {c[2]!r} has shapes "
                f"{tuple(old.shape)} and {tuple(value.shape)} across edge types"
            )
        xp = get_namespace(old, value)
        if reduce.op == "sum":
            merged[c[2]] = (old + value, None)
            continue
        pick = (xp.maximum if reduce.op == "max" else xp.minimum)(old, value)
        shape = (-1,) + (1,) * (value.ndim - 1)
        both, only_new = (old_has & has).reshape(shape), (has & ~old_has).reshape(shape)
        merged[c[2]] = (xp.where(both, pick, xp.where(only_new, value, old)), old_has | has)
    for dtype_, (value, _) in merged.items():
        g._dst_frames[dtype_][field] = value
        _apply_node_udf(g, dtype_, apply_node_func)


def _edge_ids_arg(g: Any, rel: Any, edges: Any, where: str) -> Any:
    """``edges`` as edge ids of ``rel``: an id, ids, a boolean mask, or a ``(u, v)`` pair of
    endpoint arrays (DGL's forms)."""
    from arraygnn.graph.query import _is_int, edge_ids
    from arraygnn.graph.subgraph import _ids_for

    what = f"{where}: edge ids of {rel.canonical!r}"
    if isinstance(edges, tuple):
        if len(edges) != 2:
            raise TypeError(f"{where}: edges as a tuple must be a (u, v) pair of node ids")
        u, v = (e if not _is_int(e) else [int(e)] for e in edges)
        return edge_ids(g, u, v, etype=rel.canonical)
    if _is_int(edges):
        edges = [int(edges)]
    return _ids_for(g, edges, rel.num_edges, what, "edges")


def _receive(
    g: Any,
    rel: Any,
    eids: Any,
    receivers: Any,
    message: Any,
    reduce: Any,
    apply_node_func: Callable | None,
) -> None:
    """Run ``message`` / ``reduce`` over the edges ``eids`` only and write the results into
    the rows ``receivers`` of the destination frame (new arrays)."""
    from arraygnn.graph.core import Graph

    if apply_node_func is not None:
        _check_callable("apply_node_func", apply_node_func)
    c = rel.canonical
    xp = np if isinstance(rel.src, np.ndarray) else _cupy()
    if receivers is None:
        receivers = unique_ids(xp, rel.dst[eids], g._num_dst[c[2]])
    sub = Graph(
        {c: (rel.src[eids], rel.dst[eids])},
        g._num_src,
        None if g._dst_frames is g._src_frames else g._num_dst,
        is_block=g.is_block,
        validate=False,
    )
    sub._src_frames, sub._dst_frames = g._src_frames, g._dst_frames  # read, never written
    sub_rel = sub._rels[c]
    sub_rel.frame._data.update({k: _ops().gather(v, eids) for k, v in rel.frame._data.items()})
    # edges.edges() in a message UDF: g's edge ids of the edges sent along (DGL's orig_eid)
    out = _compute_update(sub, sub_rel, message, reduce, edge_ids=eids)
    frame = g._dst_frames[c[2]]
    n = int(receivers.shape[0])
    columns = {
        k: _write_rows(frame, k, receivers, _ops().gather(v, receivers)) for k, v in out.items()
    }
    if apply_node_func is not None:
        saved = dict(frame._data)
        try:  # the UDF sees the received values; the frame is restored whatever happens
            frame._data.update(columns)
            res = apply_node_func(NodeBatch(frame, receivers, None, n, c[2], g.idtype))
            res = _check_udf_output(res, n, "apply_node_func", frame.where)
            # only the UDF's output is stored, not the reduced fields (DGL's message_passing)
            columns = {k: _write_rows(frame, k, receivers, v) for k, v in res.items()}
        finally:
            frame._data.clear()
            frame._data.update(saved)
    for k, v in columns.items():
        frame[k] = v


def send_and_recv(
    g: Any,
    edges: Any,
    message: Any,
    reduce: Any,
    apply_node_func: Callable | None = None,
    etype: Any = None,
) -> None:
    """Messages along ``edges`` only (ids, a mask or a ``(u, v)`` pair), reduced on their
    destinations; other nodes keep their features."""
    rel = g._rel(etype)
    eids = _edge_ids_arg(g, rel, edges, "send_and_recv")
    _check_message(message)
    _check_reduce(reduce)
    if eids.shape[0]:  # no edges: nothing is computed (DGL)
        _receive(g, rel, eids, None, message, reduce, apply_node_func)


def pull(
    g: Any,
    v: Any,
    message: Any,
    reduce: Any,
    apply_node_func: Callable | None = None,
    etype: Any = None,
) -> None:
    """Nodes ``v`` (each once) receive along all their in-edges (0 for a node without any);
    other nodes keep their features. The edges are sent in DGL's ``in_edges(v)`` order (by
    node in the order of first appearance, then edge id); ``apply_node_func`` sees the
    receivers sorted (DGL's compute graph)."""
    from arraygnn.graph.query import in_edges
    from arraygnn.graph.subgraph import _first_appearance

    rel = g._rel(etype)
    nodes = g._check_node_ids(v, rel.canonical[2], "dst")
    xp = np if isinstance(rel.src, np.ndarray) else _cupy()
    ordered = _first_appearance(xp, nodes).astype(g.idtype, copy=False)  # as given, each once
    _check_message(message)
    _check_reduce(reduce)
    if ordered.shape[0] == 0:
        return
    eids = in_edges(g, ordered, "eid", etype)
    _receive(g, rel, eids, xp.sort(ordered), message, reduce, apply_node_func)


def push(
    g: Any,
    u: Any,
    message: Any,
    reduce: Any,
    apply_node_func: Callable | None = None,
    etype: Any = None,
) -> None:
    """Nodes ``u`` (each once, in the order of their first appearance) send along all their
    out-edges; the destinations reduce (as :func:`send_and_recv` over those edges, so a
    reduce UDF's mailbox holds the messages in the order of ``u``, then of edge id, DGL's)."""
    from arraygnn.graph.query import out_edges
    from arraygnn.graph.subgraph import _first_appearance

    rel = g._rel(etype)
    nodes = g._check_node_ids(u, rel.canonical[0], "src")
    xp = np if isinstance(rel.src, np.ndarray) else _cupy()
    # a repeated node sends once; the others keep their order (DGL's out_edges(u) order)
    senders = _first_appearance(xp, nodes)
    eids = out_edges(g, senders, "eid", etype)
    _check_message(message)
    _check_reduce(reduce)
    if eids.shape[0]:
        _receive(g, rel, eids, None, message, reduce, apply_node_func)


def multi_update_all(
    g: Any, etype_dict: Mapping[Any, tuple], cross_reducer: Any, apply_node_func: Any = None
) -> None:
    """``update_all`` per edge type, merged per destination node type by ``cross_reducer``:
    one of :data:`CROSS_REDUCERS` or, as DGL, a callable taking the list of one field's
    per-edge-type results (in ``etype_dict`` order) and returning one array; a field that
    only one edge type writes is taken as is, unless the reducer is ``'stack'`` or a
    callable and the node type receives several edge types in ``etype_dict``. A
    per-edge-type ``apply_node`` function's output replaces that edge type's reduced
    fields (DGL)."""
    use_callable = callable(cross_reducer)
    if not use_callable and (
        not isinstance(cross_reducer, str) or cross_reducer not in CROSS_REDUCERS
    ):
        raise ValueError(
            f"cross_reducer must be one of {CROSS_REDUCERS} or a callable, got {cross_reducer!r}"
        )
    if not isinstance(etype_dict, Mapping):
        raise TypeError("multi_update_all: etype_dict must be {etype: (message, reduce)}")
    plan = []
    for key, funcs in etype_dict.items():
        rel = g._rel(key)
        if not isinstance(funcs, (tuple, list)) or len(funcs) not in (2, 3):
            raise TypeError(
                f"multi_update_all: value for {key!r} must be (message, reduce[, apply_node])"
            )
        plan.append((rel, funcs))
    if not use_callable:  # canonical order (DGL stacks by edge type id); a callable: dict order
        order = {c: i for i, c in enumerate(g.canonical_etypes)}
        plan.sort(key=lambda p: order[p[0].canonical])
    per_dst: dict[str, dict[str, list[Any]]] = {}
    n_frames: dict[str, int] = {}  # edge types per destination node type
    for rel, funcs in plan:
        out = _compute_update(g, rel, funcs[0], funcs[1])
        if len(funcs) == 3 and funcs[2] is not None:
            _check_callable(f"multi_update_all: apply_node_func of {rel.canonical!r}", funcs[2])
            out = _per_etype_apply(g, rel, out, funcs[2])
        bucket = per_dst.setdefault(rel.canonical[2], {})
        n_frames[rel.canonical[2]] = n_frames.get(rel.canonical[2], 0) + 1
        for k, v in out.items():
            bucket.setdefault(k, []).append(v)
    for dtype_, fields in per_dst.items():
        frame = g._dst_frames[dtype_]
        for k, arrays in fields.items():
            if use_callable and n_frames[dtype_] == 1:  # DGL takes one edge type's as is
                frame[k] = arrays[0]
                continue
            frame[k] = _cross_reduce(arrays, cross_reducer, k, dtype_)
        _apply_node_udf(g, dtype_, apply_node_func)


def _per_etype_apply(g: Any, rel: Any, out: dict[str, Any], func: Callable) -> dict[str, Any]:
    frame = g._dst_frames[rel.canonical[2]]
    with_scope = {k: frame._data.get(k) for k in out}
    try:
        for k, v in out.items():
            frame._data[k] = v
        res = func(NodeBatch(frame, None, None, frame.num_rows, rel.canonical[2], g.idtype))
        res = _check_udf_output(res, frame.num_rows, "apply_node_func", frame.where)
    finally:
        for k, v in with_scope.items():
            if v is None:
                frame._data.pop(k, None)
            else:
                frame._data[k] = v
    return res  # the apply function's output only (DGL's core.message_passing)


def _cross_reduce(arrays: list[Any], how: Any, field: str, ntype: str) -> Any:
    if callable(how):  # DGL calls it even with one array when the node type has several
        from arraygnn._namespace import is_array

        out = how(list(arrays))
        n = arrays[0].shape[0]
        if not is_array(out) or out.ndim == 0 or out.shape[0] != n:
            got = f"shape {tuple(out.shape)}" if is_array(out) else type(out).__name__
            raise ValueError(
                f"multi_update_all: the cross_reducer callable must return one array of "
                f"{n} rows for field {field!r} of node type {ntype!r}, got {got}"
            )
        return out
    shapes = {tuple(a.shape) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(
            f"multi_update_all: field {field!r} of node type {ntype!r} has shapes "
            f"{sorted(shapes)} across edge types; cross reducer {how!r} needs one shape"
        )
    if len(arrays) == 1 and how != "stack":
        return arrays[0]
    xp = np if isinstance(arrays[0], np.ndarray) else _cupy()
    if how == "stack":
        return xp.stack(arrays, axis=1)
    stacked = xp.stack(arrays, axis=0)
    return {"sum": stacked.sum, "mean": stacked.mean, "max": stacked.max, "min": stacked.min}[how](
        axis=0
    )
