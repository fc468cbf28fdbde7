"""PyG's :class:`AddMetaPaths` and :class:`AddRandomMetaPaths`: new edge types
``(src, 'metapath_j', dst)`` of a :class:`~arraygnn.hetero_data.HeteroData`, joining the
ends of the paths along ``metapaths[j]``, and ``data.metapath_dict`` naming each path.

:class:`AddMetaPaths` multiplies the adjacency matrices along the path (a SciPy sparse
product; ``cupyx.scipy.sparse`` on CuPy): the new edges are the distinct pairs, sorted by
``(src, dst)``; with ``weighted=True`` their ``edge_weight`` is the number of paths (the
product of the ``edge_weight`` arrays where given; a pair whose path weights sum to 0 stays,
of weight 0, as in PyG: the pairs come from the product of the 0/1 structures, as SciPy's
product drops zero sums). PyG 2.8's ``EdgeIndex.matmul`` lists a
row's pairs in the order its product first reaches them; merged and sorted, its edges and
summed weights are these (tested). Parallel edges count once per path here; PyG's product
(torch CSR times CSR) is undefined on them (pairs lost or repeated from run to run, at
times a segfault): given them merged, with their count as ``edge_weight``, it agrees.
:class:`AddRandomMetaPaths` walks the path at random instead (``walks_per_node`` walks
from each of ``sample_ratio`` of the start nodes) and keeps the distinct (start, end) pairs.

RULE: the random draws come from ``seed=`` (one generator per transform), in PyG's order:
      ``randperm`` and one uniform per walk and step for the random walks (equal to PyG's
      given the same draws, tested); one uniform per edge for ``max_sample``, over the
      merged product (PyG samples its unmerged list, so only the probabilities agree).

>>> import numpy as np
>>> from arraygnn.hetero_data import HeteroData
>>> d = HeteroData()
>>> d["a"].num_nodes, d["b"].num_nodes = 2, 2
>>> d["a", "to", "b"].edge_index = np.array([[0, 1], [1, 1]])
>>> d["b", "to", "a"].edge_index = np.array([[1], [0]])
>>> out = AddMetaPaths([[("a", "to", "b"), ("b", "to", "a")]])(d)
>>> out["a", "metapath_0", "a"].edge_index.tolist()
[[0, 1], [0, 0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.interop.scipy import _sparse_module
from arraygnn.ops.csr import sorted_segments
from arraygnn.transforms._draws import device_generator, permutation, seed_arg
from arraygnn.transforms._graph import check_data, edge_index_of, int_arg
from arraygnn.transforms._walk_step import uniform_step
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.coalesce import coalesce

__all__ = ["AddMetaPaths", "AddRandomMetaPaths"]


def _metapaths(where: str, metapaths: Any) -> list[list[tuple[str, ...]]]:
    """The metapaths checked: lists of >= 2 edge types whose node types chain."""
    if isinstance(metapaths, (str, bytes)) or not isinstance(metapaths, Sequence):
        raise TypeError(f"{where}: metapaths must be a list of lists of edge types")
    out = []
    for path in metapaths:
        if isinstance(path, (str, bytes)) or not isinstance(path, Sequence) or len(path) < 2:
            raise ValueError(f"{where}: invalid metapath {path!r} (a list of >= 2 edge types)")
        path = [tuple(t) for t in path]
        for t in path:
            if len(t) not in (2, 3) or not all(isinstance(s, str) for s in t):
                raise ValueError(f"{where}: invalid edge type {t!r} in metapath {path!r}")
        if any(a[-1] != b[0] for a, b in zip(path[:-1], path[1:])):
            raise ValueError(f"{where}: invalid sequence of node types in {path!r}")
        out.append(path)
    return out


def _canonical(where: str, data: Any, edge_type: tuple[str, ...], edge_types: list) -> Any:
    try:
        key = data._to_canonical(edge_type)
    except KeyError as err:
        raise ValueError(f"{where}: {edge_type!r}: {err}") from None
    if key not in edge_types:
        raise ValueError(f"{where}: edge type {edge_type!r} not present (has {edge_types})")
    return key


def _edges(where: str, data: Any, key: Any) -> tuple[Any, int, int]:
    store = data[key]
    n_src, n_dst = store.size()
    if n_src is None or n_dst is None:
        raise ValueError(f"{where}: the node counts of edge type {key!r} are unknown")
    return edge_index_of(where, store, n_src, n_dst, f"{key}: "), int(n_src), int(n_dst)


def postprocess(
    data: Any,
    edge_types: list[Any],
    drop_orig_edge_types: bool,
    keep_same_node_type: bool,
    drop_unconnected_node_types: bool,
) -> None:
    """PyG's ``postprocess`` of the metapath transforms: drop the original edge types
    (not those within one node type with ``keep_same_node_type``), then the node types no
    edge type touches."""
    if drop_orig_edge_types:
        for key in edge_types:
            if not (keep_same_node_type and key[0] == key[-1]):
                del data[key]
    if drop_unconnected_node_types:
        connected = {t for key in data.edge_types for t in (key[0], key[-1])}
        for node_type in data.node_types:
            if node_type not in connected:
                del data[node_type]


def _rows(mat: Any, xp: Any) -> Any:
    """The row (int64) of each stored entry of CSR ``mat``, in storage order (CuPy-safe:
    :func:`arraygnn._namespace.repeat_counts`)."""
    counts = (mat.indptr[1:] - mat.indptr[:-1]).astype(np.int64)
    return repeat_counts(xp, xp.arange(mat.shape[0], dtype=np.int64), counts)


def _ones(mat: Any, xp: Any, sparse: Any) -> Any:
    """The structure of CSR ``mat`` (every stored entry, explicit zeros too) valued 1."""
    ones = xp.ones(int(mat.indices.shape[0]), dtype=np.float32)
    return sparse.csr_matrix((ones, mat.indices, mat.indptr), shape=mat.shape)


def _on_structure(struct: Any, values: Any, xp: Any) -> Any:
    """``values`` (a CSR whose entries lie within ``struct``'s, zeros possibly dropped)
    stored on every entry of ``struct`` (a product of positive counts: the pairs joined by
    a path), 0 where ``values`` holds none."""
    struct.sort_indices()
    values = values.tocsr()
    values.sort_indices()

    def keys(m: Any) -> Any:
        return _rows(m, xp) * int(m.shape[1]) + m.indices.astype(np.int64)

    data = xp.zeros(int(struct.indices.shape[0]), dtype=values.dtype)
    data[xp.searchsorted(keys(struct), keys(values))] = values.data
    return type(struct)((data, struct.indices, struct.indptr), shape=struct.shape)


class _MetaPathBase(BaseTransform):
    where = "AddMetaPaths"

    def _common(
        self, metapaths: Any, drop_orig: Any, keep_same: Any, drop_unconnected: Any
    ) -> None:
        w = self.where
        self.metapaths = _metapaths(w, metapaths)
        self.drop_orig_edge_types = bool_arg(w, "drop_orig_edge_types", drop_orig)
        self.keep_same_node_type = bool_arg(w, "keep_same_node_type", keep_same)
        self.drop_unconnected_node_types = bool_arg(
            w, "drop_unconnected_node_types", drop_unconnected
        )

    def _start(self, data: Any) -> list[Any]:
        if not check_data(self.where, data):
            raise TypeError(f"{self.where}: takes a HeteroData, got {type(data).__name__}")
        edge_types = list(data.edge_types)
        data.metapath_dict = {}
        return edge_types

    def _finish(self, data: Any, edge_types: list[Any]) -> Any:
        postprocess(
            data,
            edge_types,
            self.drop_orig_edge_types,
            self.keep_same_node_type,
            self.drop_unconnected_node_types,
        )
        return data


class AddMetaPaths(_MetaPathBase):
    """Add one edge type per metapath, the product of the adjacency matrices along it
    (PyG's ``AddMetaPaths``; arguments as PyG's, plus ``seed=`` for ``max_sample``).

    ``max_sample``: after each step, keep each edge of a node with ``d`` out-edges with
    probability ``max_sample / d`` (PyG's sampling, also on the first edge type).
    ``weighted``: store the path counts (products of ``edge_weight``) as ``edge_weight``
    (float32 without ``edge_weight``, as PyG). The new ``edge_index`` has the first edge
    type's index dtype.

    >>> AddMetaPaths([[("a", "b"), ("b", "a")]]).metapaths
    [[('a', 'b'), ('b', 'a')]]
    """

    where = "AddMetaPaths"

    def __init__(
        self,
        metapaths: Sequence[Sequence[tuple[str, ...]]],
        drop_orig_edge_types: bool = False,
        keep_same_node_type: bool = False,
        drop_unconnected_node_types: bool = False,
        max_sample: int | None = None,
        weighted: bool = False,
        *,
        seed: Any = None,
    ) -> None:
        self._common(
            metapaths, drop_orig_edge_types, keep_same_node_type, drop_unconnected_node_types
        )
        if max_sample is not None:
            max_sample = int_arg(self.where, "max_sample", max_sample, 1)
        self.max_sample = max_sample
        self.weighted = bool_arg(self.where, "weighted", weighted)
        self._rng = seed_arg(self.where, seed)

    def forward(self, data: Any) -> Any:
        w = self.where
        edge_types = self._start(data)
        for j, path in enumerate(self.metapaths):
            keys = [_canonical(w, data, t, edge_types) for t in path]
            first_ei = _edges(w, data, keys[0])[0]
            xp = get_namespace(first_ei)
            sparse = _sparse_module(xp)
            gen = device_generator(xp, self._rng, w) if self.max_sample is not None else None
            mat = self._csr(data, keys[0], xp, sparse)
            if gen is not None:  # PyG samples the first edge type's edge list as it is
                mat = self._sample(mat, gen, xp, sparse)
            for key in keys[1:]:
                nxt = self._csr(data, key, xp, sparse)
                prod = mat @ nxt
                if self.weighted:  # SciPy drops pairs whose weights sum to 0: PyG keeps them
                    prod = _on_structure(_ones(mat, xp, sparse) @ _ones(nxt, xp, sparse), prod, xp)
                mat = prod
                mat.sort_indices()  # the product holds each pair once; sorted within rows
                if gen is not None:
                    mat = self._sample(mat, gen, xp, sparse)
            new = (keys[0][0], f"metapath_{j}", keys[-1][-1])
            row = _rows(mat, xp)
            data[new].edge_index = xp.stack([row, mat.indices]).astype(first_ei.dtype)
            if self.weighted:
                data[new].edge_weight = mat.data
            data.metapath_dict[new] = path
        return self._finish(data, edge_types)

    def _csr(self, data: Any, key: Any, xp: Any, sparse: Any) -> Any:
        """The [n_src, n_dst] CSR of edge type ``key``, its edges stably sorted by row (a
        counting sort; parallel edges stay separate entries, which the sparse product
        sums), valued by ``edge_weight`` (weighted and given) or float32 ones."""
        ei, n_src, n_dst = _edges(self.where, data, key)
        weight = data[key].get("edge_weight") if self.weighted else None
        if weight is None:
            weight = xp.ones(int(ei.shape[1]), dtype=np.float32)
        elif weight.ndim != 1 or int(weight.shape[0]) != int(ei.shape[1]):
            raise ValueError(
                f"{self.where}: edge type {key!r}: edge_weight must be [E], got "
                f"{tuple(weight.shape)}"
            )
        indptr, perm = sorted_segments(xp, ei[0].astype(np.int64), n_src)
        indices = ei[1].astype(np.int64)[perm]
        return sparse.csr_matrix((weight[perm], indices, indptr), shape=(n_src, n_dst))

    def _sample(self, mat: Any, gen: Any, xp: Any, sparse: Any) -> Any:
        """Keep each stored entry of row ``i`` with probability ``max_sample / d_i``
        (``d_i`` the row's entries; float32, as PyG's; one uniform draw per entry, in
        storage order)."""
        counts = (mat.indptr[1:] - mat.indptr[:-1]).astype(np.int64)
        row = _rows(mat, xp)
        with np.errstate(divide="ignore"):
            prob = (np.float32(self.max_sample) * (np.float32(1.0) / counts.astype(np.float32)))[
                row
            ]
        keep = gen.random(int(prob.shape[0])) < prob
        kept = xp.bincount(row[keep], minlength=mat.shape[0])
        indptr = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(kept)])
        return sparse.csr_matrix((mat.data[keep], mat.indices[keep], indptr), shape=mat.shape)

    def __repr__(self) -> str:
        return f"AddMetaPaths(max_sample={self.max_sample}, weighted={self.weighted})"


class AddRandomMetaPaths(_MetaPathBase):
    """Add one edge type per metapath from random walks along it (PyG's
    ``AddRandomMetaPaths``; arguments as PyG's, plus ``seed=``).

    ``round(num_nodes * sample_ratio)`` start nodes of the first node type (a random
    permutation's head), each walked ``walks_per_node`` (or ``walks_per_node[j]``) times;
    each step moves to a uniformly drawn out-neighbour and a walk that reaches a node
    without one ends (dropped). The new edges are the distinct (start, end) pairs, sorted.

    >>> AddRandomMetaPaths([[("a", "b"), ("b", "a")]], walks_per_node=2).walks_per_node
    [2]
    """

    where = "AddRandomMetaPaths"

    def __init__(
        self,
        metapaths: Sequence[Sequence[tuple[str, ...]]],
        drop_orig_edge_types: bool = False,
        keep_same_node_type: bool = False,
        drop_unconnected_node_types: bool = False,
        walks_per_node: int | Sequence[int] = 1,
        sample_ratio: float = 1.0,
        *,
        seed: Any = None,
    ) -> None:
        w = self.where
        self._common(
            metapaths, drop_orig_edge_types, keep_same_node_type, drop_unconnected_node_types
        )
        if isinstance(walks_per_node, (int, np.integer)) and not isinstance(walks_per_node, bool):
            walks = [int(walks_per_node)] * len(self.metapaths)
        elif isinstance(walks_per_node, Sequence) and not isinstance(walks_per_node, str):
            walks = list(walks_per_node)
        else:
            raise TypeError(f"{w}: walks_per_node must be an int or a list of ints")
        if len(walks) != len(self.metapaths):
            raise ValueError(
                f"{w}: walks_per_node has {len(walks)} entries for {len(self.metapaths)} metapaths"
            )
        self.walks_per_node = [int_arg(w, "walks_per_node", v) for v in walks]
        if (
            isinstance(sample_ratio, (bool, np.bool_))
            or not isinstance(sample_ratio, (int, float, np.number))
            or not 0.0 <= float(sample_ratio) <= 1.0
        ):
            raise ValueError(f"{w}: sample_ratio must be a number in [0, 1], got {sample_ratio!r}")
        self.sample_ratio = float(sample_ratio)
        self._rng = seed_arg(w, seed)

    def forward(self, data: Any) -> Any:
        w = self.where
        edge_types = self._start(data)
        for j, path in enumerate(self.metapaths):
            keys = [_canonical(w, data, t, edge_types) for t in path]
            first_ei = _edges(w, data, keys[0])[0]
            xp = get_namespace(first_ei)
            gen = device_generator(xp, self._rng, w)
            n = data[keys[0][0]].num_nodes
            if n is None:
                raise ValueError(f"{w}: num_nodes of node type {keys[0][0]!r} is unknown")
            num_starts = round(n * self.sample_ratio)
            start = permutation(xp, gen, n)[:num_starts]
            row = start = xp.tile(start, self.walks_per_node[j])
            for key in keys:
                col, mask = self._step(data, key, start, gen, xp)
                row, col = row[mask], col[mask]
                start = col
            new = (keys[0][0], f"metapath_{j}", keys[-1][-1])
            pairs = xp.stack([row, col]).astype(first_ei.dtype)
            data[new].edge_index = coalesce(pairs)
            data.metapath_dict[new] = path
        return self._finish(data, edge_types)

    def _step(self, data: Any, key: Any, subset: Any, gen: Any, xp: Any) -> tuple[Any, Any]:
        """One uniform step from each node of ``subset``: ``(next node, has a neighbour)``
        (PyG's ``sample``: ``floor(rand * deg)``-th out-edge in row-sorted order)."""
        ei, n_src, _ = _edges(self.where, data, key)
        indptr, perm = sorted_segments(xp, ei[0].astype(np.int64), n_src)
        col = ei[1].astype(np.int64)[perm]
        return uniform_step(xp, gen, indptr, col, subset)

    def __repr__(self) -> str:
        return (
            f"AddRandomMetaPaths(sample_ratio={self.sample_ratio}, "
            f"walks_per_node={self.walks_per_node})"
        )
