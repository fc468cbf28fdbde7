"""PyG's rooted-subgraph transforms: :class:`RootedEgoNets` (each node's ``k``-hop
in-neighbourhood) and :class:`RootedRWSubgraph` (the nodes of random walks from each node),
returned as a :class:`RootedSubgraphData` in PyG's layout.

The layout (PyG's ``RootedSubgraphData``): ``n_id`` / ``n_sub_batch`` list the (node,
subgraph) pairs sorted by subgraph then node; ``e_id`` / ``e_sub_batch`` the edges whose two
ends lie in a subgraph, sorted by subgraph then edge id; ``sub_edge_index`` those edges
renumbered into positions of ``n_id``. Subgraph ``i`` is rooted at node ``i``.

Which path runs: the membership is a sparse [N, N] boolean matrix (PyG builds a dense
one); on the host ``RootedEgoNets`` finds it by a breadth-first search per root (Numba),
``RootedRWSubgraph`` from its walks (SciPy). On the host a Numba pass per subgraph then
lists its edges (each edge filed under its endpoint of lower degree) and renumbers them;
on CuPy the membership is a product of sparse matrices, the edge memberships its column
products and the renumbering a sorted search. Memory O(pairs), not O(N^2).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3)
>>> out = RootedEgoNets(1)(d)
>>> out.n_id.tolist(), out.n_sub_batch.tolist(), out.sub_edge_index.tolist()
([0, 0, 1, 1, 2], [0, 1, 1, 2, 2], [[1, 3], [2, 4]])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.data import Data
from arraygnn.interop.scipy import _sparse_module
from arraygnn.ops.csr import sorted_segments
from arraygnn.transforms._draws import device_generator, seed_arg
from arraygnn.transforms._graph import int_arg
from arraygnn.transforms._walk_step import uniform_step
from arraygnn.transforms.attrs import SaidLevels, attribute_levels
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.utils.coalesce import sort_perm

__all__ = ["RootedEgoNets", "RootedRWSubgraph", "RootedSubgraphData", "rooted_layout"]

_KEYS = ("sub_edge_index", "n_id", "e_id", "n_sub_batch", "e_sub_batch")


class RootedSubgraphData(Data):
    """A ``Data`` with every node's rooted subgraph (PyG's ``RootedSubgraphData``):
    ``sub_edge_index``, ``n_id``, ``e_id``, ``n_sub_batch``, ``e_sub_batch`` (module docs),
    with PyG's collation increments (``sub_edge_index`` by ``len(n_id)``, the two batch
    vectors by the number of subgraphs, ``n_id`` by ``num_nodes``, ``e_id`` by the number
    of edges).

    >>> import numpy as np
    >>> d = RootedEgoNets(0)(Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=2))
    >>> d.map_data().num_nodes
    2
    """

    def __inc__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
        if key == "sub_edge_index":
            return int(self.n_id.shape[0])
        if key in ("n_sub_batch", "e_sub_batch"):
            batch = self.n_sub_batch
            return 1 + int(batch[-1]) if batch.shape[0] else 0
        if key == "n_id":
            return self.num_nodes
        if key == "e_id":
            return int(self.edge_index.shape[1])
        return super().__inc__(key, value, *args, **kwargs)

    def map_data(
        self,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> Data:
        """The subgraphs as one ``Data`` (PyG's ``map_data``): node attributes gathered by
        ``n_id``, edge attributes by ``e_id`` (levels said as in :mod:`.attrs`),
        ``edge_index`` = ``sub_edge_index``, ``n_sub_batch`` kept."""
        base = Data(**{k: v for k, v in self.items() if k not in _KEYS})
        levels = attribute_levels(
            "RootedSubgraphData.map_data", base, node_attrs, edge_attrs, graph_attrs
        )
        out = Data(**{k: v for k, v in base.items() if k not in levels.node + levels.edge})
        for key in levels.node:
            out[key] = base[key][self.n_id]
        for key in levels.edge:
            out[key] = base[key][self.e_id]
        out.edge_index = self.sub_edge_index
        out.n_sub_batch = self.n_sub_batch
        out.num_nodes = int(self.n_id.shape[0])
        return out


def rooted_layout(edge_index: Any, num_nodes: int, member: Any) -> tuple[Any, ...]:
    """PyG's ``RootedSubgraph.map`` for the sparse [N, N] membership ``member`` (row:
    subgraph, column: node; SciPy / cupyx sparse): ``(sub_edge_index, n_id, e_id,
    n_sub_batch, e_sub_batch)``.

    >>> import numpy as np, scipy.sparse as sp
    >>> m = sp.csr_matrix(np.array([[1, 1], [0, 1]]))
    >>> [a.tolist() for a in rooted_layout(np.array([[0], [1]]), 2, m)]
    [[[0], [1]], [0, 1, 1], [0], [0, 0, 1], [0]]
    """
    xp = get_namespace(edge_index)
    member = member.tocsr().astype(np.float32)
    member.sum_duplicates()
    member.eliminate_zeros()
    member.sort_indices()
    coo = member.tocoo()
    n_sub_batch, n_id = coo.row.astype(np.int64), coo.col.astype(np.int64)
    src, dst = edge_index[0].astype(np.int64), edge_index[1].astype(np.int64)
    if xp is np:
        m_ptr = member.indptr.astype(np.int64)
        return _inside_edges_numpy(m_ptr, edge_index, src, dst, num_nodes, n_id, n_sub_batch)
    both = member[:, src].multiply(member[:, dst]).tocsr()
    both.eliminate_zeros()
    both.sort_indices()
    ecoo = both.tocoo()
    e_sub_batch, e_id = ecoo.row.astype(np.int64), ecoo.col.astype(np.int64)
    n = max(num_nodes, 1)
    keys = n_sub_batch * n + n_id  # sorted: row-major
    sub = xp.stack([e_sub_batch * n + src[e_id], e_sub_batch * n + dst[e_id]])
    sub_edge_index = xp.searchsorted(keys, sub).astype(edge_index.dtype)
    return sub_edge_index, n_id, e_id, n_sub_batch, e_sub_batch


def _inside_edges_numpy(
    m_ptr: Any, edge_index: Any, src: Any, dst: Any, n: int, n_id: Any, n_sub_batch: Any
) -> tuple[Any, ...]:
    """:func:`rooted_layout`'s edges on the host, without the [N, E] column products
    (``member[:, src]`` holds an entry per (edge, subgraph of its source): ~10^10 for a hub
    of 40k out-edges in 50k subgraphs). Each edge is listed once, under the endpoint of
    lower (degree, id); per subgraph the edges listed under its nodes whose other end is a
    member are its edges (each found once), then sorted by (subgraph, edge id) with two
    counting sorts. Work: the sum over subgraphs of the edges listed under their nodes (a
    node lists at most ~sqrt(2E))."""
    from arraygnn.ops.csr import sorted_segments

    deg = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    key_src, key_dst = deg[src] * n + src, deg[dst] * n + dst
    owner = np.where(key_src <= key_dst, src, dst)
    a_ptr, a_perm = sorted_segments(np, owner, max(n, 1))
    other = (src + dst - owner)[a_perm]  # the far end of each listed edge (a loop: itself)
    owner_is_src = (owner == src)[a_perm]
    from arraygnn.kernels.cpu.rooted import inside_edges as _inside_edges

    subs = m_ptr.shape[0] - 1
    counts = np.zeros(subs, dtype=np.int64)
    _inside_edges(m_ptr, n_id, a_ptr, a_perm, other, owner_is_src, max(n, 1), counts, None)
    found = np.empty((3, int(counts.sum())), dtype=np.int64)  # edge id, source / target slot
    _inside_edges(m_ptr, n_id, a_ptr, a_perm, other, owner_is_src, max(n, 1), counts, found)
    e_sub_batch = np.repeat(np.arange(subs, dtype=np.int64), counts)
    order = sort_perm(np, e_sub_batch, found[0], max(subs, int(src.shape[0]), 1))
    found = found[:, order]
    return found[1:].astype(edge_index.dtype), n_id, found[0], n_sub_batch, e_sub_batch


def _ego_members(edge_index: Any, n: int, hops: int) -> tuple[Any, Any]:
    """``(m_ptr, n_id)``: the CSR of the ``hops``-hop in-neighbourhoods (row ``i``: the
    nodes with a path of at most ``hops`` edges to ``i``, ascending), by a breadth-first
    search per root on the host: the pattern of ``(I + A^T)^hops`` without SciPy's
    products and per-call object costs (a molecule-sized graph spent 60% there)."""
    from arraygnn.kernels.cpu.rooted import ego_bfs as _ego_bfs
    from arraygnn.ops.csr import sorted_segments

    src, dst = edge_index[0].astype(np.int64), edge_index[1].astype(np.int64)
    in_ptr, perm = sorted_segments(np, dst, max(n, 1))
    in_src = src[perm]
    m_ptr = np.zeros(n + 1, dtype=np.int64)
    _ego_bfs(in_ptr, in_src, n, hops, m_ptr, None)
    np.cumsum(m_ptr, out=m_ptr)
    n_id = np.empty(int(m_ptr[-1]), dtype=np.int64)
    _ego_bfs(in_ptr, in_src, n, hops, m_ptr, n_id)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(m_ptr))
    return m_ptr, n_id[sort_perm(np, rows, n_id, max(n, 1))]  # each row ascending


class _Rooted(SaidLevels, BaseTransform):
    where = "RootedSubgraph"

    def _membership(self, edge_index: Any, n: int) -> Any:
        raise NotImplementedError

    def forward(self, data: Any) -> RootedSubgraphData:
        ei, n = checked_graph(self.where, data)
        self.levels(self.where, data)  # every array placed (map_data gathers by level)
        for key in _KEYS:
            if key in data:
                raise ValueError(f"{self.where}: data already holds {key!r}")
        out = self.extract(data)
        d = RootedSubgraphData(**{k: v for k, v in data.items()})
        for key, value in zip(_KEYS, out):
            d[key] = value
        return d

    def extract(self, data: Any) -> tuple[Any, ...]:
        """``(sub_edge_index, n_id, e_id, n_sub_batch, e_sub_batch)`` of ``data``."""
        ei, n = checked_graph(self.where, data)
        return rooted_layout(ei, n, self._membership(ei, n))


class RootedEgoNets(_Rooted):
    """Each node's rooted ``num_hops``-hop EgoNet (PyG's ``RootedEgoNets``): subgraph
    ``i`` holds the nodes with a path of at most ``num_hops`` edges **to** ``i``.
    ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=`` say the levels of ``data``'s
    arrays (for :meth:`RootedSubgraphData.map_data`).

    >>> RootedEgoNets(2)
    RootedEgoNets(num_hops=2)
    """

    where = "RootedEgoNets"

    def __init__(self, num_hops: int, **levels: Any) -> None:
        super().__init__(**levels)
        self.num_hops = int_arg(self.where, "num_hops", num_hops)

    def extract(self, data: Any) -> tuple[Any, ...]:
        """``(sub_edge_index, n_id, e_id, n_sub_batch, e_sub_batch)`` of ``data``: on the
        host by a breadth-first search per root, on CuPy by sparse matrix powers."""
        ei, n = checked_graph(self.where, data)
        if get_namespace(ei) is not np:
            return super().extract(data)
        m_ptr, n_id = _ego_members(ei, n, self.num_hops)
        n_sub_batch = np.repeat(np.arange(n, dtype=np.int64), np.diff(m_ptr))
        src, dst = ei[0].astype(np.int64), ei[1].astype(np.int64)
        return _inside_edges_numpy(m_ptr, ei, src, dst, n, n_id, n_sub_batch)

    def _membership(self, edge_index: Any, n: int) -> Any:
        xp = get_namespace(edge_index)
        sparse = _sparse_module(xp)
        ones = xp.ones(int(edge_index.shape[1]), dtype=np.float32)
        adj_t = sparse.csr_matrix(
            (ones, (edge_index[1].astype(np.int64), edge_index[0].astype(np.int64))),
            shape=(n, n),
        )
        adj_t.sum_duplicates()
        adj_t.data[:] = 1
        member = sparse.identity(n, dtype=np.float32, format="csr")
        for _ in range(self.num_hops):
            member = (member + adj_t @ member).tocsr()
            member.data[:] = 1  # membership only (PyG's float counts are > 0 alike)
        return member

    def __repr__(self) -> str:
        return f"RootedEgoNets(num_hops={self.num_hops})"


class RootedRWSubgraph(_Rooted):
    """Each node's rooted random-walk subgraph (PyG's ``RootedRWSubgraph``): the nodes of
    ``repeat`` walks of ``walk_length`` uniform steps from node ``i`` (the
    ``floor(u * deg)``-th out-edge in ``(row, col)`` order, as PyG's ``sort_edge_index``
    then walker; a node without out-edges stays where it is).
    ``seed=`` gives the draws (one uniform per walk and step).

    >>> RootedRWSubgraph(3, seed=0)
    RootedRWSubgraph(walk_length=3)
    """

    where = "RootedRWSubgraph"

    def __init__(
        self, walk_length: int, repeat: int = 1, *, seed: Any = None, **levels: Any
    ) -> None:
        super().__init__(**levels)
        self.walk_length = int_arg(self.where, "walk_length", walk_length)
        self.repeat = int_arg(self.where, "repeat", repeat)
        self._rng = seed_arg(self.where, seed)

    def walks(self, edge_index: Any, n: int) -> tuple[Any, Any]:
        """``(start [N * repeat], walk [N * repeat, walk_length + 1])``."""
        xp = get_namespace(edge_index)
        gen = device_generator(xp, self._rng, self.where)
        row, col = edge_index[0].astype(np.int64), edge_index[1].astype(np.int64)
        perm = sort_perm(xp, row, col, n)  # by (row, col), as PyG's sort_edge_index
        indptr, _ = sorted_segments(xp, row, n)
        col = col[perm]
        start = xp.repeat(xp.arange(n, dtype=np.int64), self.repeat)
        steps = [start]
        cur = start
        for _ in range(self.walk_length):
            cur, _ = uniform_step(xp, gen, indptr, col, cur)
            steps.append(cur)
        return start, xp.stack(steps, axis=1)

    def _membership(self, edge_index: Any, n: int) -> Any:
        xp = get_namespace(edge_index)
        sparse = _sparse_module(xp)
        start, walk = self.walks(edge_index, n)
        rows = xp.repeat(start, self.walk_length + 1)
        ones = xp.ones(int(rows.shape[0]), dtype=np.float32)
        return sparse.csr_matrix((ones, (rows, walk.ravel())), shape=(n, n))

    def __repr__(self) -> str:
        return f"RootedRWSubgraph(walk_length={self.walk_length})"
