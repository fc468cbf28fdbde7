"""PyG's ``subgraph``, ``bipartite_subgraph`` and ``k_hop_subgraph``: the edges among a set
of nodes.

>>> import numpy as np
>>> ei = np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
>>> subgraph(np.array([1, 2, 3]), ei, relabel_nodes=True)[0].tolist()
[[0, 1, 1, 2], [1, 0, 2, 1]]
>>> subset, sub_ei, mapping, edge_mask = k_hop_subgraph(0, 1, ei)
>>> subset.tolist(), mapping.tolist()
([0, 1], [0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding, unique_ids_with
from arraygnn.ops._common import check_size
from arraygnn.utils._checks import (
    bool_arg,
    check_ids,
    check_int_array,
    edge_attr_arg,
    edge_index_arg,
    ids_from_python,
    num_nodes_arg,
    optional_edge_attr,
    same_device,
)

__all__ = ["subgraph", "bipartite_subgraph", "k_hop_subgraph"]


def subgraph(
    subset: Any,
    edge_index: Any,
    edge_attr: Any = None,
    relabel_nodes: bool = False,
    num_nodes: int | None = None,
    *,
    return_edge_mask: bool = False,
) -> tuple[Any, ...]:
    """The edges of ``edge_index`` [2, E] whose two ends are both in ``subset``, in order.

    ``subset``: node ids (an integer array or a list) or a boolean node mask [N]. With ids,
    ``num_nodes`` defaults to ``edge_index.max() + 1`` (PyG's rule); with a mask, the mask's
    length is the node count (``num_nodes``, if given, must equal it). ``relabel_nodes=True``
    renumbers each kept node by its position in ``subset`` (for a mask: among the ``True``
    nodes, in node order). ``edge_attr`` [E, ...] is filtered alike. Returns
    ``(edge_index, edge_attr)`` or, with ``return_edge_mask=True`` (keyword-only, as PyG),
    ``(edge_index, edge_attr, edge_mask [E] bool)``. Ids keep their dtype.

    >>> import numpy as np
    >>> mask = np.array([True, False, True])
    >>> ei, _, kept = subgraph(mask, np.array([[0, 2, 1], [2, 0, 2]]), return_edge_mask=True)
    >>> ei.tolist(), kept.tolist()
    ([[0, 2], [2, 0]], [True, True, False])
    """
    where = "subgraph"
    xp = edge_index_arg(where, edge_index)
    relabel_nodes = bool_arg(where, "relabel_nodes", relabel_nodes)
    return_edge_mask = bool_arg(where, "return_edge_mask", return_edge_mask)
    subset = ids_from_python(where, "subset", subset, xp)
    same_device(where, subset=subset, edge_index=edge_index, edge_attr=edge_attr)
    if subset.dtype == np.bool_:
        if subset.ndim != 1:
            raise ValueError(
                f"{where}: subset as a mask must be one-dimensional, got shape "
                f"{tuple(subset.shape)}"
            )
        n = int(subset.shape[0])
        if num_nodes is not None and check_size(f"{where}: num_nodes", num_nodes) != n:
            raise ValueError(f"{where}: subset is a mask of {n} nodes but num_nodes is {num_nodes}")
        check_ids(where, "edge_index", edge_index, n)
        node_mask = subset
        subset = xp.nonzero(node_mask)[0]
    else:
        check_int_array(where, "subset", subset)
        if subset.ndim != 1:
            raise ValueError(
                f"{where}: subset must be one-dimensional, got shape {tuple(subset.shape)}"
            )
        n = num_nodes_arg(where, edge_index, num_nodes)
        check_ids(where, "subset", subset, n)
        node_mask = xp.zeros(n, dtype=bool)
        node_mask[subset] = True
    num_edges = int(edge_index.shape[1])
    if edge_attr is not None:
        edge_attr_arg(where, "edge_attr", edge_attr, num_edges)
    edge_mask = node_mask[edge_index[0]] & node_mask[edge_index[1]]
    out = edge_index[:, edge_mask]
    attr = None if edge_attr is None else edge_attr[edge_mask]
    if relabel_nodes:
        out = _relabel(xp, out, subset, n)
    if return_edge_mask:
        return out, attr, edge_mask
    return out, attr


def _side_mask(
    where: str, name: str, subset: Any, ids: Any, ids_name: str, size: int | None, xp: Any
) -> tuple[Any, Any, int]:
    """``(node_mask, subset as ids, node count)`` of one side of a bipartite subset:
    ``subset`` ids (array or list) or a boolean mask; ``ids`` that side of ``edge_index``."""
    subset = ids_from_python(where, name, subset, xp)
    same_device(where, **{name: subset}, edge_index=ids)
    if subset.dtype == np.bool_:
        if subset.ndim != 1:
            raise ValueError(
                f"{where}: {name} as a mask must be one-dimensional, got shape "
                f"{tuple(subset.shape)}"
            )
        n = int(subset.shape[0])
        if size is not None and size != n:
            raise ValueError(f"{where}: {name} is a mask of {n} nodes but size gives {size}")
        check_ids(where, ids_name, ids, n)
        return subset, xp.nonzero(subset)[0], n
    check_int_array(where, name, subset)
    if subset.ndim != 1:
        raise ValueError(
            f"{where}: {name} must be one-dimensional, got shape {tuple(subset.shape)}"
        )
    if size is None:
        check_ids(where, ids_name, ids, None)
        n = int(ids.max()) + 1 if ids.shape[0] else 0
    else:
        n = size
        check_ids(where, ids_name, ids, n)
    check_ids(where, name, subset, n)
    node_mask = xp.zeros(n, dtype=bool)
    node_mask[subset] = True
    return node_mask, subset, n


def bipartite_subgraph(
    subset: Any,
    edge_index: Any,
    edge_attr: Any = None,
    relabel_nodes: bool = False,
    size: tuple[int, int] | None = None,
    return_edge_mask: bool = False,
) -> tuple[Any, ...]:
    """The edges of a bipartite ``edge_index`` [2, E] from a node of ``subset[0]`` to a node
    of ``subset[1]``, in order.

    ``subset``: a pair ``(src_subset, dst_subset)``, each node ids (an integer array or a
    list) or a boolean node mask. ``size``: ``(num_src_nodes, num_dst_nodes)``; a side given
    as ids defaults to ``edge_index[i].max() + 1`` (PyG's rule; 0 without edges, where PyG
    raises), a side given as a mask has the mask's length (``size[i]``, if given, must equal
    it). ``relabel_nodes=True`` renumbers each kept source (target) by its position in
    ``src_subset`` (``dst_subset``; for a mask: among its ``True`` nodes). ``edge_attr``
    [E, ...] is filtered alike. Returns ``(edge_index, edge_attr)`` or, with
    ``return_edge_mask=True``, ``(edge_index, edge_attr, edge_mask [E] bool)``. Ids keep
    their dtype.

    >>> import numpy as np
    >>> ei = np.array([[0, 5, 2, 3, 3, 4, 4, 3, 5, 5, 6], [0, 0, 3, 2, 0, 0, 2, 1, 2, 3, 1]])
    >>> sub_ei, _ = bipartite_subgraph(([2, 3, 5], [2, 3]), ei)
    >>> sub_ei.tolist()
    [[2, 3, 5, 5], [3, 2, 2, 3]]
    >>> bipartite_subgraph(([2, 3, 5], [2, 3]), ei, relabel_nodes=True)[0].tolist()
    [[0, 1, 2, 2], [1, 0, 0, 1]]
    """
    where = "bipartite_subgraph"
    xp = edge_index_arg(where, edge_index)
    relabel_nodes = bool_arg(where, "relabel_nodes", relabel_nodes)
    return_edge_mask = bool_arg(where, "return_edge_mask", return_edge_mask)
    if not isinstance(subset, (tuple, list)) or len(subset) != 2:
        raise TypeError(
            f"{where}: subset must be a pair (src_subset, dst_subset), got {type(subset).__name__}"
        )
    if size is None:
        sizes: tuple[int | None, int | None] = (None, None)
    elif isinstance(size, (tuple, list)) and len(size) == 2:
        sizes = (check_size(f"{where}: size[0]", size[0]), check_size(f"{where}: size[1]", size[1]))
    else:
        raise TypeError(f"{where}: size must be None or a pair (num_src_nodes, num_dst_nodes)")
    src_mask, src_ids, n_src = _side_mask(
        where, "subset[0]", subset[0], edge_index[0], "edge_index[0]", sizes[0], xp
    )
    dst_mask, dst_ids, n_dst = _side_mask(
        where, "subset[1]", subset[1], edge_index[1], "edge_index[1]", sizes[1], xp
    )
    optional_edge_attr(where, edge_index, edge_attr)
    edge_mask = src_mask[edge_index[0]] & dst_mask[edge_index[1]]
    out = edge_index[:, edge_mask]
    attr = None if edge_attr is None else edge_attr[edge_mask]
    if relabel_nodes:
        out = xp.stack([_relabel(xp, out[0], src_ids, n_src), _relabel(xp, out[1], dst_ids, n_dst)])
    if return_edge_mask:
        return out, attr, edge_mask
    return out, attr


def k_hop_subgraph(
    node_idx: Any,
    num_hops: int,
    edge_index: Any,
    relabel_nodes: bool = False,
    num_nodes: int | None = None,
    flow: str = "source_to_target",
    directed: bool = False,
) -> tuple[Any, Any, Any, Any]:
    """The nodes within ``num_hops`` hops of ``node_idx`` and the edges among them.

    ``flow='source_to_target'`` (default) walks edges backwards, collecting the nodes whose
    messages reach ``node_idx`` (its in-neighbourhood); ``'target_to_source'`` walks them
    forwards. ``directed=False`` keeps every edge between collected nodes; ``True`` only the
    edges walked. ``node_idx``: an int, a list or an integer array. ``num_nodes`` defaults to
    ``edge_index.max() + 1``. One vectorised step per hop.

    Returns PyG's ``(subset, edge_index, mapping, edge_mask)``: ``subset`` the sorted distinct
    nodes (dtype: ``node_idx``'s and ``edge_index``'s promoted together, a Python int or list
    counting as int64, as in torch), ``edge_index`` the kept edges (renumbered by position in
    ``subset`` with ``relabel_nodes=True``; ids keep their dtype), ``mapping`` int64 the
    position of each ``node_idx`` in ``subset``, ``edge_mask`` [E] bool.

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    >>> subset, sub_ei, mapping, _ = k_hop_subgraph([3], 2, ei, relabel_nodes=True)
    >>> subset.tolist(), sub_ei.tolist(), mapping.tolist()
    ([1, 2, 3], [[0, 1], [1, 2]], [2])
    """
    where = "k_hop_subgraph"
    xp = edge_index_arg(where, edge_index)
    relabel_nodes = bool_arg(where, "relabel_nodes", relabel_nodes)
    directed = bool_arg(where, "directed", directed)
    num_hops = check_size(f"{where}: num_hops", num_hops)
    if flow not in ("source_to_target", "target_to_source"):
        raise ValueError(
            f"{where}: flow must be 'source_to_target' or 'target_to_source', got {flow!r}"
        )
    n = num_nodes_arg(where, edge_index, num_nodes)
    nodes = ids_from_python(where, "node_idx", node_idx, xp)
    same_device(where, node_idx=nodes, edge_index=edge_index)
    check_int_array(where, "node_idx", nodes)
    if nodes.ndim > 1:
        raise ValueError(
            f"{where}: node_idx must be an int or one-dimensional, got shape {tuple(nodes.shape)}"
        )
    nodes = nodes.reshape(-1)
    check_ids(where, "node_idx", nodes, n)
    # uint64 mixed with int64 promotes to float64 in NumPy: the ids fit int64 (checked)
    nodes, edge_index = (
        a.astype(np.int64) if a.dtype == np.uint64 else a for a in (nodes, edge_index)
    )
    if flow == "target_to_source":
        row, col = edge_index[0], edge_index[1]
    else:
        col, row = edge_index[0], edge_index[1]
    node_mask = xp.zeros(n, dtype=bool)
    walked = xp.zeros(row.shape[0], dtype=bool)
    found = [nodes]
    for _ in range(num_hops):
        node_mask[:] = False
        node_mask[found[-1]] = True
        step = node_mask[row]
        walked |= step
        found.append(col[step])
    subset, inverse = unique_ids_with(xp, xp.concatenate(found), return_inverse=True)
    mapping = inverse.reshape(-1)[: nodes.shape[0]].astype(np.int64, copy=False)
    node_mask[:] = False
    node_mask[subset] = True
    edge_mask = walked if directed else node_mask[row] & node_mask[col]
    out = edge_index[:, edge_mask]
    if relabel_nodes:
        out = _relabel(xp, out, subset, n)
    return subset, out, mapping, edge_mask


def _relabel(xp: Any, edge_index: Any, subset: Any, num_nodes: int) -> Any:
    """``edge_index`` with each node replaced by its position in ``subset`` (the last, for a
    node listed twice); every node of ``edge_index`` is in ``subset``. Ids keep
    ``edge_index``'s dtype unless it cannot hold ``len(subset) - 1``."""
    idt = ids_dtype_holding(edge_index.dtype, int(subset.shape[0]) - 1)
    position = xp.zeros(num_nodes, dtype=idt)
    position[subset] = xp.arange(subset.shape[0], dtype=idt)
    return position[edge_index]
