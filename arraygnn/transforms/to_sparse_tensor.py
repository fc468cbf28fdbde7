"""PyG's ``ToSparseTensor`` transform: ``edge_index`` (and an edge weight) as the
**transposed** adjacency ``adj_t``, here a SciPy (``cupyx`` on a GPU) sparse matrix.

``adj_t[t, s]`` is the edge ``s -> t``: ``num_dst x num_src``, rows are the targets, as
PyG's ``adj_t``. Its values are the array named by ``attr`` (default ``edge_weight``,
when present; one number per edge, in its dtype) or ones (float32). As PyG's
``torch.sparse_csr`` / ``sparse_coo`` result the matrix is coalesced: entries sorted by
``(target, source)``, parallel edges merged into one entry whose value is the **sum** of
their weights (bool weights: any of them True, torch's sum of bools), or 1 without weights
(PyG coalesces the bare ``edge_index`` before it makes the ones).

The graph side follows PyG: the edges are first sorted by ``(target, source)`` (a stable
sort; parallel edges keep their order) and every per-edge array goes with them; with
``remove_edge_index=True`` (default) ``edge_index`` and the ``attr`` array are then
deleted, otherwise both stay (sorted, not merged).

Using ``adj_t``: arraygnn's layers take ``edge_index`` or an :class:`arraygnn.ops.CSR`
(from :func:`arraygnn.ops.to_csr`), not a SciPy matrix; ``adj_t`` is for
:func:`arraygnn.utils.spmm` (``spmm(data.adj_t, x, reduce)`` is PyG's
``spmm(adj_t, x, reduce)``, the aggregation into the targets) and for SciPy itself
(``data.adj_t @ x``; ``from_scipy_sparse_matrix(data.adj_t.T)`` gives ``edge_index`` back).

RULE: which arrays of a ``Data`` are per edge is said (``edge_attrs=``, default
``edge_attr`` / ``edge_weight`` where present, plus ``attr``), never guessed from lengths;
an array no level names is a ``ValueError`` (see :mod:`arraygnn.transforms.attrs`). In a
``HeteroData`` every array of an edge store is per edge except keys holding ``index`` and
``edge_label`` (PyG skips ``edge_label`` too: it belongs to ``edge_label_index``).
RULE: an ``attr`` array with more than one number per edge is a ``ValueError`` (PyG makes
a hybrid ``torch.sparse_coo`` tensor; SciPy matrices hold scalars).
RULE: on CuPy the weights must be bool, float32, float64 or complex (``cupyx`` sparse
matrices hold no other dtype; a ``TypeError`` says so).
RULE: ``layout``: ``None`` or ``'csr'`` (``torch.sparse_csr`` too) gives a ``csr_matrix``,
``'coo'`` (``torch.sparse_coo``) a ``coo_matrix``. ``fill_cache`` is accepted and does
nothing (the CSR is built already; PyG fills ``torch_sparse`` caches).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1, 1], [1, 0, 2]]), num_nodes=3)
>>> out = ToSparseTensor()(d)
>>> out.adj_t.toarray().tolist(), "edge_index" in out
([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], False)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.interop.scipy import _input_matrix, _sparse_module
from arraygnn.transforms._graph import (
    check_data,
    edge_index_of,
    edge_keys,
    edge_stores,
    hetero_edge_keys,
)
from arraygnn.transforms.attrs import with_edge_attr
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.undirected import _sizes
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.coalesce import coalesce
from arraygnn.utils.sort import sort_edge_index

__all__ = ["ToSparseTensor", "adj_t_edges", "adj_t_like"]

_WHERE = "ToSparseTensor"
_LAYOUTS = {None: "csr", "csr": "csr", "coo": "coo"}
_TORCH_LAYOUTS = {"torch.sparse_csr": "csr", "torch.sparse_coo": "coo"}


def _layout(layout: Any) -> str:
    """``'csr'`` or ``'coo'`` from PyG's ``layout`` (``torch.sparse_*`` read by name)."""
    if isinstance(layout, str) or layout is None:
        if layout in _LAYOUTS:
            return _LAYOUTS[layout]
    elif str(layout) in _TORCH_LAYOUTS:
        return _TORCH_LAYOUTS[str(layout)]
    raise ValueError(
        f"{_WHERE}: unexpected sparse tensor layout {layout!r} (None, 'csr', 'coo', "
        "torch.sparse_csr or torch.sparse_coo)"
    )


def _adjacency(ei: Any, weight: Any, n_src: int, n_dst: int, layout: str) -> Any:
    """The coalesced ``[n_dst, n_src]`` matrix of the edges ``ei`` (sorted by target)."""
    xp = get_namespace(ei)
    flipped = ei[::-1]
    size = max(n_src, n_dst, 1)
    if weight is None:
        flipped = coalesce(flipped, num_nodes=size)
        values = xp.ones(int(flipped.shape[1]), dtype=np.float32)
    elif weight.dtype == np.bool_:  # torch sums bools as logical or: any edge True
        flipped, values = coalesce(flipped, weight.reshape(-1).astype(np.int64), num_nodes=size)
        values = values != 0
    else:
        flipped, values = coalesce(flipped, weight.reshape(-1), num_nodes=size)
    sparse = _sparse_module(xp)
    rows, cols = flipped[0], flipped[1]
    if layout == "coo":
        return sparse.coo_matrix((values, (rows, cols)), shape=(n_dst, n_src))
    index_dtype = np.int64 if xp is np else np.int32  # cupyx holds int32 indices
    indptr = xp.zeros(n_dst + 1, dtype=index_dtype)
    indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=n_dst))
    return sparse.csr_matrix((values, cols.astype(index_dtype), indptr), shape=(n_dst, n_src))


def adj_t_edges(where: str, adj_t: Any, num_nodes: int | None) -> tuple[Any, Any]:
    """``(edge_index, values)`` of a square ``adj_t`` as :class:`ToSparseTensor` makes it
    (``adj_t[t, s]``: the edge ``s -> t``), coalesced (parallel entries summed), int64 ids;
    the values must be floating point. ``num_nodes`` (when known): the size it must have.

    >>> import numpy as np, scipy.sparse as sp
    >>> ei, w = adj_t_edges("Demo", sp.csr_matrix(np.array([[0.0, 2.0], [0.0, 0.0]])), 2)
    >>> ei.tolist(), w.tolist()  # adj_t[0, 1]: the edge 1 -> 0
    ([[1], [0]], [2.0])
    """
    xp, coo = _input_matrix(adj_t, f"{where}: adj_t")
    n_dst, n_src = (int(v) for v in coo.shape)
    if n_dst != n_src:
        raise ValueError(f"{where}: adj_t must be square, got shape {(n_dst, n_src)}")
    if num_nodes is not None and n_dst != num_nodes:
        raise ValueError(
            f"{where}: adj_t must be [{num_nodes}, {num_nodes}] (num_nodes), got {(n_dst, n_src)}"
        )
    if coo.data.dtype.kind != "f":
        raise TypeError(
            f"{where}: adj_t must hold floating-point values, got dtype {coo.data.dtype}"
        )
    ei = xp.stack([coo.col.astype(np.int64), coo.row.astype(np.int64)])
    return coalesce(ei, coo.data, n_dst)


def adj_t_like(adj_t: Any, edge_index: Any, values: Any) -> Any:
    """The coalesced matrix of the edges ``edge_index`` with ``values`` in ``adj_t``'s
    shape, module and format (``coo`` stays ``coo``, any other becomes ``csr``; values
    as given, zeros kept as entries)."""
    n_dst, n_src = (int(v) for v in adj_t.shape)
    return _adjacency(edge_index, values, n_src, n_dst, "coo" if adj_t.format == "coo" else "csr")


class ToSparseTensor(BaseTransform):
    """Replace ``edge_index`` by the transposed sparse adjacency ``adj_t`` (PyG's
    ``ToSparseTensor``).

    Args:
        attr: the per-edge array that becomes the matrix values (when present;
            ``None``: ones).
        remove_edge_index: delete ``edge_index`` and the ``attr`` array afterwards.
        fill_cache: accepted for PyG compatibility (no effect).
        layout: ``None`` / ``'csr'`` (CSR) or ``'coo'``; torch's ``sparse_csr`` /
            ``sparse_coo`` are read by name.
        node_attrs, edge_attrs, graph_attrs: the levels of a ``Data``'s arrays
            (:mod:`arraygnn.transforms.attrs`); only the per-edge ones move.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[1, 0], [0, 1]]), edge_weight=np.array([2.0, 3.0]),
    ...          num_nodes=2)
    >>> out = ToSparseTensor(remove_edge_index=False)(d)
    >>> out.adj_t.toarray().tolist(), out.edge_weight.tolist()
    ([[0.0, 2.0], [3.0, 0.0]], [2.0, 3.0])
    """

    def __init__(
        self,
        attr: str | None = "edge_weight",
        remove_edge_index: bool = True,
        fill_cache: bool = True,
        layout: Any = None,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        if attr is not None and not isinstance(attr, str):
            raise TypeError(f"{_WHERE}: attr must be an attribute name or None, got {attr!r}")
        self.attr = attr
        self.remove_edge_index = bool_arg(_WHERE, "remove_edge_index", remove_edge_index)
        self.fill_cache = bool_arg(_WHERE, "fill_cache", fill_cache)
        self._format = _layout(layout)
        self.layout = layout
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        hetero = check_data(_WHERE, data)
        plans = []
        for store, key, n_src, n_dst in edge_stores(_WHERE, data):
            what = "" if key is None else f"edge type {key!r}: "
            if hetero:
                n_src, n_dst = _sizes(_WHERE, key, n_src, n_dst)
                keys = hetero_edge_keys(_WHERE, store, skip=("edge_label",))
            else:
                said = self.edge_attrs
                if self.attr is not None:
                    said = with_edge_attr(_WHERE, data, said, self.attr)
                keys = edge_keys(_WHERE, data, store, self.node_attrs, said, self.graph_attrs)
            ei = edge_index_of(_WHERE, store, n_src, n_dst, what)
            weight = None
            if self.attr is not None and self.attr in store:
                weight = store[self.attr]
                if not is_array(weight) or self.attr not in keys:
                    raise ValueError(f"{_WHERE}: {what}{self.attr!r} must be a per-edge array")
                if weight.dtype.kind not in "fiub":
                    raise TypeError(
                        f"{_WHERE}: {what}{self.attr!r} must hold numbers (float, int or "
                        f"bool), got dtype {weight.dtype}"
                    )
                if weight.dtype.char not in "?fdFD" and get_namespace(weight) is not np:
                    raise TypeError(
                        f"{_WHERE}: {what}{self.attr!r} has dtype {weight.dtype}: cupyx "
                        "sparse matrices hold bool, float32, float64 or complex values only "
                        "(cast the weights first)"
                    )
                if weight.ndim > 1 and int(np.prod(weight.shape[1:])) != 1:
                    raise ValueError(
                        f"{_WHERE}: {what}{self.attr!r} has shape {tuple(weight.shape)}: one "
                        "number per edge is needed (SciPy sparse matrices hold scalars; PyG "
                        "makes a hybrid COO tensor)"
                    )
            plans.append((store, ei, keys, weight, n_src, n_dst))
        for store, ei, keys, weight, n_src, n_dst in plans:  # all checked: now build
            ei, values = sort_edge_index(
                ei, [store[k] for k in keys], max(n_src, n_dst, 1), sort_by_row=False
            )
            store["edge_index"] = ei
            for k, v in zip(keys, values):
                store[k] = v
            if weight is not None:
                weight = store[self.attr]
            store["adj_t"] = _adjacency(ei, weight, n_src, n_dst, self._format)
            if self.remove_edge_index:
                del store["edge_index"]
                if self.attr is not None and self.attr in store:
                    del store[self.attr]
        return data

    def __repr__(self) -> str:
        return f"ToSparseTensor(attr={self.attr}, layout={self.layout})"
