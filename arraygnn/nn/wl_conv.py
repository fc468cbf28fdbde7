"""Weisfeiler-Lehman colour refinement, PyG's ``WLConv``.

``x_i' = hash(x_i, {{x_j : j -> i}})``: a node's new colour names the pair (its colour, the
multiset of its in-neighbours' colours). As PyG, the layer keeps a ``hashmap`` from the key
``hash(tuple([x_i] + sorted(x_j)))`` to a colour id, numbered in order of first sight, across
calls: the same sequence of calls gives PyG's colours, and a PyG ``WLConv``'s ``hashmap``
converts with it (``from_pyg``).

How it runs: one ``ops.to_csr`` sorts the edges by target; a Numba kernel
(:mod:`arraygnn.nn._wl_hash`) computes every node's key in parallel, the CPython tuple hash
bit for bit (checked against the interpreter once; ``hash(tuple(...))`` per node where it
differs); colour ids are then given per distinct key in first-appearance order (one dict
lookup per distinct key, not per node). The hashmap is a Python dict on the host, so a
CuPy input is copied to the host and the colours back (PyG calls ``.tolist()`` likewise).
``histogram`` is one ``ops.scatter``.

>>> import numpy as np
>>> conv = WLConv()
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])  # a path 0 - 1 - 2
>>> conv(np.zeros(3, np.int64), ei).tolist()
[0, 1, 0]
>>> conv.histogram(np.array([0, 1, 0])).tolist()
[[2, 1]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.nn._graph_input import _check_edge_index as check_edge_index
from arraygnn.nn._module import Module
from arraygnn.ops._common import check_index, check_size

__all__ = ["WLConv"]


def _check_edge_index(layer: str, edge_index: Any, num_nodes: int, xp: Any) -> None:
    """An integer ``[2, E]`` array on ``xp`` with ids in ``[0, num_nodes)``."""
    check_edge_index(layer, edge_index)
    if get_namespace(edge_index) is not xp:
        raise TypeError(f"{layer}: edge_index must be on x's device")
    check_index(f"{layer}: edge_index[0] (sources)", edge_index[0], num_nodes)
    check_index(f"{layer}: edge_index[1] (targets)", edge_index[1], num_nodes)


class WLConv(Module):
    """PyG's ``WLConv``: one round of Weisfeiler-Lehman colour refinement.

    Call as ``conv(x, edge_index)``: ``x`` ``(N,)`` integer colours, or ``(N, C)`` one-hot
    rows (each row summing to 1; its argmax is the colour); ``edge_index`` ``(2, E)``.
    Returns ``(N,)`` int64 colours. ``conv.hashmap`` (``{key: colour}``) grows with every
    new key; ``reset_parameters()`` clears it. No weights (an empty state dict, as PyG's).

    ``conv.histogram(x, batch=None, norm=False, batch_size=None)``: per graph, the count of
    each colour seen so far, ``(batch_size, len(hashmap))`` int64; ``norm=True`` gives
    float32 rows divided by their L2 norm (a graph without nodes gives NaN, as PyG).
    ``batch_size`` defaults to PyG's ``batch.max() + 1``.
    """

    def __init__(self) -> None:
        self.hashmap: dict[int, int] = {}

    def reset_parameters(self) -> None:
        """Forget every colour (PyG's ``reset_parameters``)."""
        self.hashmap = {}

    def __call__(self, x: Any, edge_index: Any) -> Any:
        from arraygnn import ops

        layer = "WLConv"
        colours, xp = _colours(layer, x)
        n = int(colours.shape[0])
        _check_edge_index(layer, edge_index, n, xp)
        csr = ops.to_csr(edge_index, n, n)
        indptr, indices = to_numpy(csr.indptr), to_numpy(csr.indices)
        keys = _node_keys(indptr, indices, colours)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        ids = np.empty(uniq.shape[0], dtype=np.int64)
        hashmap = self.hashmap
        for u in np.argsort(first, kind="stable").tolist():  # PyG's order: first sight
            key = int(uniq[u])
            colour = hashmap.get(key)
            if colour is None:
                colour = hashmap[key] = len(hashmap)
            ids[u] = colour
        out = ids[inverse.reshape(-1)]
        return out if xp is np else xp.asarray(out)

    def histogram(
        self, x: Any, batch: Any = None, norm: bool = False, batch_size: int | None = None
    ) -> Any:
        """Colour counts per graph, ``(batch_size, len(hashmap))`` (see the class docstring)."""
        from arraygnn import ops

        layer = "WLConv.histogram"
        num_colours = len(self.hashmap)
        if not is_array(x) or x.ndim != 1:
            raise TypeError(f"{layer}: x must be a 1-D integer array of colours, got {x!r}")
        xp = get_namespace(x)
        check_index(f"{layer}: x (colours, {num_colours} known)", x, num_colours)
        n = int(x.shape[0])
        if batch is None:
            batch = xp.zeros(n, dtype=np.int64)
            size = 1 if batch_size is None else check_size(f"{layer}: batch_size", batch_size)
        else:
            if not is_array(batch) or get_namespace(batch) is not xp or batch.shape != (n,):
                raise ValueError(f"{layer}: batch must be an integer array of shape ({n},)")
            check_index(f"{layer}: batch", batch, None)
            if batch_size is not None:
                size = check_size(f"{layer}: batch_size", batch_size)
            else:  # PyG's rule
                size = int(batch.max()) + 1 if n else 0
            check_index(f"{layer}: batch", batch, size)
        index = batch.astype(np.int64) * num_colours + x.astype(np.int64)
        counts = ops.scatter(xp.ones(n, dtype=np.int64), index, size * num_colours, "sum")
        out = counts.reshape(size, num_colours)
        if norm:
            out = out.astype(np.float32)
            with np.errstate(invalid="ignore", divide="ignore"):
                out = out / xp.linalg.norm(out, axis=-1, keepdims=True)
        return out

    def extra_repr(self) -> str:
        return f"colours={len(self.hashmap)}"


def _colours(layer: str, x: Any) -> tuple[np.ndarray, Any]:
    """``x`` as host int64 colours (one-hot rows turned into their argmax) and its
    namespace."""
    if not is_array(x):
        raise TypeError(f"{layer}: x must be a NumPy or CuPy array, got {type(x).__name__}")
    xp = get_namespace(x)
    if x.ndim == 2:
        if x.dtype.kind not in "iuf" or not bool((x.sum(axis=-1) == 1).all()):
            raise ValueError(
                f"{layer}: a 2-D x must hold one-hot rows (each summing to 1), as PyG asserts"
            )
        x = x.argmax(axis=-1)
    elif x.ndim != 1 or x.dtype.kind not in "iu":
        raise TypeError(
            f"{layer}: x must be (N,) integer colours or (N, C) one-hot rows, got shape "
            f"{tuple(x.shape)} dtype {x.dtype}"
        )
    colours = to_numpy(x).astype(np.int64)
    if x.dtype.kind == "u" and colours.size and int(to_numpy(x).max()) >= 2**63:
        raise ValueError(f"{layer}: colours must fit in int64")
    return colours, xp


def _node_keys(indptr: np.ndarray, indices: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Each node's PyG key ``hash(tuple([c_i] + sorted(c_j)))`` as int64."""
    from arraygnn.nn._wl_hash import kernel_matches_python, wl_keys

    n = int(colours.shape[0])
    if kernel_matches_python():
        from arraygnn.kernels.cpu._threads import serialised, start_threads

        start_threads()
        out = np.empty(n, dtype=np.uint64)
        serialised(wl_keys)(indptr, indices, colours, out)
        return out.view(np.int64)
    neighbours = colours[indices]  # pragma: no cover - another interpreter's hash
    return np.array(  # pragma: no cover
        [
            hash(tuple([int(colours[i])] + sorted(neighbours[indptr[i] : indptr[i + 1]].tolist())))
            for i in range(n)
        ],
        dtype=np.int64,
    )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> WLConv:
    """PyG's ``WLConv`` with a copy of its hashmap (later calls of either do not reach the
    other)."""
    layer = WLConv()
    layer.hashmap = {int(k): int(v) for k, v in module.hashmap.items()}
    return layer
