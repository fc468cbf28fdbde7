"""Input checks and edge handling shared by the point-cloud layers (``PointTransformerConv``,
``PPFConv``, ``PointGNNConv``): feature / position pairs, the destination-sorted CSR with
PyG's self-loops, and the aggregation of messages whose first layer splits into a source
and a target term (:class:`~arraygnn.nn.point_net_conv.PointNetConv`'s two paths).

>>> import numpy as np
>>> csr = point_csr("Demo", np.array([[0, 1, 1], [1, 0, 1]]), 2, 2, num_loops=2)
>>> csr.indptr.tolist(), csr.indices.tolist()  # the loop 1 -> 1 replaced, one per node
([0, 2, 4], [1, 0, 0, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array, torch_hint

__all__ = [
    "point_pair",
    "point_csr",
    "aggregate_split",
    "per_edge_aggregate",
    "affine_aggregate",
    "add_into",
    "rows_of",
    "split_net",
    "check_nets",
    "check_loops_flag",
    "aggr_name",
]

#: the aggregations of PointNetConv / PPFConv / PointGNNConv (PyG's names -> arraygnn's)
_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


def check_nets(layer: str, optional: bool, **nets: Any) -> None:
    """A ``TypeError`` naming ``layer`` and the argument unless every net is an arraygnn
    ``Module`` (or None, where ``optional``)."""
    from arraygnn.nn._module import Module

    for name, nn in nets.items():
        if not (isinstance(nn, Module) or (optional and nn is None)):
            raise TypeError(
                f"{layer}: {name} must be an arraygnn.nn Module{' or None' if optional else ''}"
                f", got {type(nn).__name__} (wrap a function in arraygnn.nn.Sequential)"
            )


def check_loops_flag(layer: str, add_self_loops: Any) -> bool:
    """``add_self_loops`` as a bool; a ``TypeError`` unless it is True or False."""
    if not isinstance(add_self_loops, (bool, np.bool_)):
        raise TypeError(f"{layer}: add_self_loops must be True or False, got {add_self_loops!r}")
    return bool(add_self_loops)


def aggr_name(layer: str, aggr: Any) -> str:
    """PyG's ``aggr`` (``'add'`` / ``'sum'``, ``'mean'``, ``'max'``, ``'min'``) as
    arraygnn's name; a ``ValueError`` naming ``layer`` otherwise."""
    if not isinstance(aggr, str) or aggr not in _AGGRS:
        raise ValueError(f"{layer}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
    return _AGGRS[aggr]


def point_pair(layer: str, name: str, value: Any, allow_none: bool) -> tuple[Any, Any]:
    """``value`` or ``(src, dst)`` as a pair, each a float 2-D array (or None where
    allowed); errors name ``layer`` and the argument."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{layer}: {name} must be an array or a pair ({name}_src, {name}_dst)")
        pair = (value[0], value[1])
        labels = (f"{name}[0] ({name}_src)", f"{name}[1] ({name}_dst)")
    else:
        pair = (value, value)
        labels = (name, name)
    for label, v in zip(labels, pair):
        if v is None:
            if not allow_none:
                raise TypeError(f"{layer}: {label} must be an array, got None")
            continue
        if not is_array(v):
            raise TypeError(
                f"{layer}: {label} must be a NumPy or CuPy array, got "
                f"{type(v).__name__}{torch_hint(v)}"
            )
        if v.ndim != 2:
            raise ValueError(f"{layer}: {label} must be 2-D [num_nodes, F], got shape {v.shape}")
        if v.dtype.kind != "f":
            raise TypeError(f"{layer}: {label} must hold floating-point values, got {v.dtype}")
    return pair


def rows_of(layer: str, name: str, value: Any, rows: int, what: str) -> None:
    """A ``ValueError`` unless ``value`` (None passes) has ``rows`` rows."""
    if value is not None and int(value.shape[0]) != rows:
        raise ValueError(f"{layer}: {name} has {value.shape[0]} rows but {what} has {rows}")


def split_net(layer: str, name: str, net: Any, width: int, what: str) -> tuple[Any, Any] | None:
    """``(first, rest)`` of ``net`` when it starts with a ``Linear``
    (:func:`~arraygnn.nn.edge_conv._split_first_linear`; None for other nets and for
    None), a ``ValueError`` naming ``layer`` and ``name`` when that ``Linear`` does not
    take the ``width`` features of its input ``what``."""
    from arraygnn.nn.edge_conv import _split_first_linear

    split = None if net is None else _split_first_linear(net)
    if split is not None and int(split[0].in_features) != width:
        raise ValueError(
            f"{layer}: {name} takes {split[0].in_features} input features but {what} has {width}"
        )
    return split


def point_csr(
    layer: str, edge_index: Any, num_src: int, num_dst: int, num_loops: int | None
) -> Any:
    """The destination-sorted CSR of ``edge_index`` (``(2, E)`` ids or a CSR): with
    ``num_loops`` set, the graph's self-loops dropped and one loop added on each of the
    first ``num_loops`` nodes (PyG's ``remove_self_loops`` + ``add_self_loops``)."""
    from arraygnn import ops
    from arraygnn.nn._graph_input import _check_edge_index, _is_csr

    if _is_csr(edge_index):
        if num_loops is not None:
            raise ValueError(
                f"{layer}: a CSR stands in for edge_index only with add_self_loops=False "
                "(the layer would rebuild it); pass the (2, E) edge_index"
            )
        if (edge_index.num_src_nodes, edge_index.num_dst_nodes) != (num_src, num_dst):
            raise ValueError(
                f"{layer}: the CSR connects {edge_index.num_src_nodes} sources to "
                f"{edge_index.num_dst_nodes} targets but pos has ({num_src}, {num_dst}) rows"
            )
        return edge_index
    _check_edge_index(layer, edge_index)
    src, dst = edge_index[0], edge_index[1]
    if num_loops is not None:
        xp = get_namespace(src)
        index_dtype = ids_dtype_holding(src.dtype, num_loops - 1)
        keep = src != dst
        src = src[keep].astype(index_dtype, copy=False)
        dst = dst[keep].astype(index_dtype, copy=False)
        loops = xp.arange(num_loops, dtype=index_dtype)
        src, dst = xp.concatenate([src, loops]), xp.concatenate([dst, loops])
    try:
        return ops.to_csr((src, dst), num_src, num_dst)
    except ValueError as err:
        raise ValueError(f"{layer}: {err}") from None


def aggregate_split(csr: Any, at_src: Any, at_dst: Any, rest: Any, aggr: str) -> Any:
    """``aggr_{j -> i} rest(at_src[j] + at_dst[i])``: with ``rest`` None (the identity)
    one SpMM and nothing per edge (:func:`affine_aggregate`); otherwise per edge over pieces
    of CSR rows (:func:`per_edge_aggregate`)."""
    if rest is None:
        return affine_aggregate(csr, at_src, at_dst, aggr)
    return per_edge_aggregate(csr, at_src, at_dst, rest, aggr)


def per_edge_aggregate(csr: Any, at_src: Any, at_dst: Any, rest: Any, aggr: str) -> Any:
    """``aggr_{j -> i} rest(at_src[j] + at_dst[i])``, the CSR's rows taken about
    :data:`~arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` of first hidden layer at a time on
    NumPy (the per-edge temporaries stay small and warm in cache; one piece on CuPy):
    :func:`~arraygnn.nn._row_chunks.map_row_chunks`."""
    from arraygnn import ops
    from arraygnn.nn._row_chunks import map_row_chunks
    from arraygnn.ops.slot_order import sddmm_slots

    def rows(part: Any, start: int, stop: int, first: int, last: int) -> Any:
        hidden = sddmm_slots(part, at_src, at_dst[start:stop], op="add")
        return ops.segment(rest(hidden), part.indptr, reduce=aggr)

    row_bytes = int(at_src.shape[1]) * at_src.dtype.itemsize
    return map_row_chunks(csr, row_bytes, rows)


def affine_aggregate(csr: Any, at_src: Any, at_dst: Any, aggr: str) -> Any:
    """``aggr_{j -> i}(at_src[j] + at_dst[i])`` without per-edge arrays: one SpMM of
    ``at_src`` plus ``at_dst[i]`` (``deg_i at_dst[i]`` for the sum; 0 without edges). For
    max / min the result is the per-edge one bit for bit (rounding is monotone)."""
    from arraygnn.ops.slot_order import spmm_slots

    out = spmm_slots(csr, at_src, None, aggr)
    deg = csr.in_degrees()
    scale = deg.astype(out.dtype) if aggr == "sum" else (deg > 0).astype(out.dtype)
    return add_into(out, scale[:, None] * at_dst)


def add_into(out: Any, term: Any) -> Any:
    """``out + term``, in place when ``out`` (an array the layer made) keeps its dtype."""
    if np.result_type(out.dtype, term.dtype) == out.dtype:
        out += term
        return out
    return out + term
