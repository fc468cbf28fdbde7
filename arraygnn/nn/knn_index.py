"""PyG's k-nearest-neighbour indices (``torch_geometric.nn.pool``): ``KNNIndex``,
``L2KNNIndex``, ``MIPSKNNIndex``, ``ApproxL2KNNIndex``, ``ApproxMIPSKNNIndex``.

An index holds data points (``add``) and returns, for query points, the ``k`` best of them
(``search``) as ``KNNOutput(score, index)``, both ``[M, k]``: the squared Euclidean distance
(smallest first) for the L2 indices, the inner product (largest first) for the MIPS ones.

The exact indices (``L2KNNIndex``, ``MIPSKNNIndex``) run without faiss, on NumPy and CuPy:
query blocks of ``max(1, BLOCK_ELEMENTS // numel)`` rows, one matrix product each
(``|q|^2 + |e|^2 - 2 q.e``, clamped at 0, for L2, as faiss computes it), then the ``k``
best of each row: NumPy with ``k <= KERNEL_MAX_K`` one parallel Numba pass per row keeping
a sorted buffer of ``k`` (:func:`arraygnn.nn.lightgcn.top_k_indices`), larger ``k``
``argpartition``; CuPy a stable ``argsort``. The ``[block, N]`` score matrix stays under
``BLOCK_ELEMENTS`` entries whatever the sizes; one block lives at a time, so a search's
temporaries stay near one such matrix with the Numba pass and near three where
``argpartition`` / CuPy's ``argsort`` add their int64 positions (smaller blocks there
measured 1.2-1.3x slower), beside the ``[M, k]`` result. On float32 NumPy input with faiss
importable, ``backend='auto'`` hands the search to faiss's ``IndexFlatL2`` /
``IndexFlatIP`` instead, with the same results: measured on the 2-core box
(``benchmarks/bench_knn_index.py``, ``benchmarks/RESULTS.md``) neither wins everywhere:
faiss up to 2.8x faster on small indices (a few thousand points), the array path 2.6-3.8x
faster on a 100k-point index searched by 100 queries, within about 1.4x either way between
(a later run at lower load had the array path ahead on most of those shapes).
``backend='array'`` / ``'faiss'`` force one.

RULE: ordering (faiss's, both engines): best score first; of equal scores the L2 indices
list the lower index first, the MIPS ones the higher index first. Of points tied at the
``k``-th place the array path keeps the lower indices, as faiss does for L2; faiss's MIPS
heap keeps a subset that depends on the order the points stream in (no stated rule).
RULE: ``search(emb, k)`` gives ``[M, min(k, numel)]`` (PyG caps ``k`` at ``numel``, no
padding). ``exclude_links`` (``[2, L]`` pairs ``(query row, index row)``) drops those pairs
as PyG does: ``k`` plus the largest number of excluded pairs of one query are fetched, the
excluded ones removed and the first ``k`` kept; the result is then ``[M, k]``, padded with
score ``-inf`` and index ``-1`` where a query has fewer than ``k`` left (L2 too, as PyG).
RULE: dtypes: ``index`` is int64. ``score`` has the index's dtype, set by its first
``add``: float64 stays float64 (array path), float32 (and float16) give float32; faiss works
in float32, so the faiss-backed and approximate indices always store and return float32
(PyG's faiss refuses float64 outright). Later ``add`` / ``search`` input is cast to it.
RULE: NumPy in, NumPy out; CuPy in, CuPy out (exact indices: on the device). faiss-backed
indices (``KNNIndex(index_factory)``, the approximate ones) are faiss-cpu: CuPy points are
copied to the host and the results back (one round trip per call, stated here). One index
holds one kind of array: mixing NumPy and CuPy is a ``TypeError``.
RULE: unlike PyG on faiss, ``k`` is not capped at 2048 (faiss-GPU's limit, where PyG warns
and can lose neighbours); non-finite points, and float64 values beyond a float32 index's
range, are a ``ValueError``. Nothing passed in is modified: ``add`` copies the points.

>>> import numpy as np
>>> index = L2KNNIndex(np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]]))
>>> out = index.search(np.array([[0.9, 0.0]]), k=2)
>>> out.index.tolist(), np.round(out.score, 2).tolist()
([[1, 0]], [[0.01, 0.81]])
>>> index.search(np.array([[0.9, 0.0]]), k=2, exclude_links=np.array([[0], [1]])).index.tolist()
[[0, 2]]
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.utils._checks import check_array_arg
from arraygnn.utils.knn import _positive_int

__all__ = [
    "KNNOutput",
    "KNNIndex",
    "L2KNNIndex",
    "MIPSKNNIndex",
    "ApproxL2KNNIndex",
    "ApproxMIPSKNNIndex",
]

#: the exact search scores queries in blocks whose ``[block, numel]`` score matrix holds at
#: most this many entries (16 MiB of float32); a single query row is the smallest block
BLOCK_ELEMENTS = 1 << 22

_BACKENDS = ("auto", "array", "faiss")
_FAISS_OK: bool | None = None  # whether ``import faiss`` works (asked once)


class KNNOutput(NamedTuple):
    """``search``'s result: ``score`` and ``index``, both ``[M, k]`` (PyG's ``KNNOutput``)."""

    score: Any
    index: Any


def _import_faiss(where: str) -> ModuleType:
    try:
        import faiss
    except ImportError as err:
        raise ImportError(f"{where} needs faiss: pip install 'arraygnn[faiss]'") from err
    return faiss


def _faiss_available() -> bool:
    global _FAISS_OK
    if _FAISS_OK is None:
        try:
            import faiss  # noqa: F401
        except ImportError:
            _FAISS_OK = False
        else:
            _FAISS_OK = True
    return _FAISS_OK


def _points(where: str, emb: Any) -> Any:
    """``emb`` checked: a 2-D float NumPy / CuPy array of finite numbers."""
    check_array_arg(where, "emb", emb)
    if emb.dtype.kind != "f":
        raise TypeError(f"{where}: emb must be a float array, got dtype {emb.dtype}")
    if emb.ndim != 2:
        raise ValueError(
            f"{where}: emb must be two-dimensional [num_points, channels], got shape "
            f"{tuple(emb.shape)}"
        )
    xp = get_namespace(emb)
    if emb.size and not bool(xp.isfinite(emb).all()):
        raise ValueError(f"{where}: emb holds NaN or infinite values")
    return emb


# ------------------------------------------------------------------------------- stores
class _ArrayStore:
    """Points in a growing NumPy / CuPy buffer; exact blockwise search."""

    engine = "array"

    def __init__(self, xp: ModuleType, dtype: Any, dim: int, metric: str, reserve: int) -> None:
        self.xp, self.dtype, self.dim, self.metric = xp, np.dtype(dtype), dim, metric
        self.data = xp.empty((max(reserve, 0), dim), self.dtype)
        self.sqnorm = xp.empty(max(reserve, 0), self.dtype)
        self.ntotal = 0

    def add(self, emb: Any) -> None:
        xp, n, more = self.xp, self.ntotal, int(emb.shape[0])
        if n + more > self.data.shape[0]:  # grow by doubling: amortised O(1) per point
            cap = max(n + more, 2 * self.data.shape[0])
            data = xp.empty((cap, self.dim), self.dtype)
            data[:n] = self.data[:n]
            sqnorm = xp.empty(cap, self.dtype)
            sqnorm[:n] = self.sqnorm[:n]
            self.data, self.sqnorm = data, sqnorm
        self.data[n : n + more] = emb  # a copy, cast to the index's dtype
        new = self.data[n : n + more]
        self.sqnorm[n : n + more] = (new * new).sum(axis=1)
        self.ntotal = n + more

    def get_emb(self) -> Any:
        return self.data[: self.ntotal].copy()

    def search(self, query: Any, kk: int) -> tuple[Any, Any]:
        xp, n, m = self.xp, self.ntotal, int(query.shape[0])
        query = query.astype(self.dtype, copy=False)
        score = xp.empty((m, kk), self.dtype)
        index = xp.empty((m, kk), np.int64)
        if kk == 0 or m == 0:
            return score, index
        emb, block = self.data[:n], max(1, BLOCK_ELEMENTS // n)
        for s in range(0, m, block):
            q = query[s : s + block]
            # [b, n]: the one big temporary; larger is better. L2: minus faiss's
            # |q|^2 + |e|^2 - 2 q.e, clamped at 0 (2 q is exact: the doubling is free)
            key = ((q + q) if self.metric == "l2" else q) @ emb.T
            if self.metric == "l2":
                key -= self.sqnorm[:n][None, :]
                key -= (q * q).sum(axis=1)[:, None]
                xp.minimum(key, 0, out=key)
            sel = _largest(xp, key, kk)
            # faiss's order: best first, equal scores by index (L2 ascending, MIPS descending)
            sel = xp.sort(sel, axis=1)
            if self.metric != "l2":
                sel = sel[:, ::-1]
            val = xp.take_along_axis(key, sel, axis=1)
            order = xp.argsort(-val, axis=1, kind="stable")
            val = xp.take_along_axis(val, order, axis=1)
            score[s : s + block] = 0 - val if self.metric == "l2" else val  # 0 - 0 is +0
            index[s : s + block] = xp.take_along_axis(sel, order, axis=1)
            del key, sel, val, order  # freed before the next block's matrix is made
        return score, index


#: up to this ``k`` the NumPy path selects with one Numba pass per row (a sorted buffer of
#: ``k``, ``arraygnn.nn.lightgcn.top_k_indices``); above it, ``argpartition``
KERNEL_MAX_K = 128


def _largest(xp: ModuleType, key: Any, kk: int) -> Any:
    """Columns of each row's ``kk`` largest keys (any order), equal keys at the ``kk``-th
    place taken from the lowest columns."""
    b, n = key.shape
    if kk >= n:
        return xp.broadcast_to(xp.arange(n, dtype=np.int64), (b, n))
    if xp is not np:  # CuPy's argpartition sorts fully anyway; its sort is stable
        return xp.argsort(-key, axis=1)[:, :kk]
    if kk <= KERNEL_MAX_K:
        from arraygnn.nn.lightgcn import top_k_indices

        return top_k_indices(key, kk)
    part = np.argpartition(key, n - kk, axis=1)[:, n - kk :]
    low = np.take_along_axis(key, part, axis=1).min(axis=1)
    tied = np.flatnonzero((key >= low[:, None]).sum(axis=1) > kk)  # a tie left out
    for r in tied.tolist():  # rare: redo these rows with a stable sort (lowest index first)
        part[r] = np.argsort(-key[r], kind="stable")[:kk]
    return part


class _FaissStore:
    """Points in a faiss index (faiss-cpu: float32 host arrays)."""

    engine = "faiss"

    def __init__(self, index: Any, keep: Any = None) -> None:
        self.index, self.keep = index, keep  # ``keep``: the quantizer, kept alive
        self.dim, self.dtype = int(index.d), np.dtype(np.float32)

    @property
    def ntotal(self) -> int:
        return int(self.index.ntotal)

    def add(self, emb: Any) -> None:
        host = np.ascontiguousarray(to_numpy(emb), dtype=np.float32)
        if not self.index.is_trained:  # the first add trains (PyG: every index, once)
            self.index.train(host)
        self.index.add(host)

    def get_emb(self) -> Any:
        out = np.empty((self.ntotal, self.dim), np.float32)
        if self.ntotal:  # given ``out``: NumPy even where faiss.contrib.torch_utils is loaded
            self.index.reconstruct_n(0, self.ntotal, out)
        return out

    def search(self, query: Any, kk: int) -> tuple[Any, Any]:
        host = np.ascontiguousarray(to_numpy(query), dtype=np.float32)
        m = host.shape[0]
        if kk == 0 or m == 0:
            return np.empty((m, kk), np.float32), np.empty((m, kk), np.int64)
        score, index = self.index.search(host, kk)
        return score, index.astype(np.int64, copy=False)


# ------------------------------------------------------------------------------- indices
class KNNIndex:
    """PyG's ``KNNIndex(index_factory=None, emb=None, reserve=None)``: a faiss index made by
    ``faiss.index_factory(channels, index_factory)`` (e.g. ``'Flat'``, ``'IVF64,Flat'``) on
    the first ``add``, which also trains it. Needs faiss (``pip install 'arraygnn[faiss]'``);
    :class:`L2KNNIndex` / :class:`MIPSKNNIndex` do not. ``reserve``: rows of memory set
    aside up front (the exact array path; PyG: faiss-GPU only).

    Methods: ``add(emb)``, ``search(emb, k, exclude_links=None) -> KNNOutput``,
    ``get_emb()`` (the stored points, float32 on faiss), ``reset()`` (forget all points and
    the dimension: the next ``add`` starts a new index, trained again), ``numel``.
    Ordering, padding, dtypes and devices: see the module notes.

    Shapes: ``emb`` ``[N, D]`` to ``add``, ``[M, D]`` to ``search``; ``exclude_links``
    ``[2, L]`` int (row 0 into the query, row 1 into the index); ``score`` / ``index``
    ``[M, min(k, numel)]``, ``[M, k]`` with ``exclude_links``.
    """

    def __init__(
        self, index_factory: str | None = None, emb: Any = None, reserve: int | None = None
    ) -> None:
        if type(self) is KNNIndex:
            _import_faiss("KNNIndex")
            if not isinstance(index_factory, str):
                raise TypeError(
                    f"KNNIndex: index_factory must be a faiss index-factory string such as "
                    f"'Flat', got {index_factory!r}"
                )
        self.index_factory = index_factory
        self.reserve = None if reserve is None else _reserve(type(self).__name__, reserve)
        self._store: _ArrayStore | _FaissStore | None = None
        self._xp: ModuleType | None = None
        if emb is not None:
            self.add(emb)

    def _make_store(self, xp: ModuleType, dim: int, dtype: Any) -> _ArrayStore | _FaissStore:
        faiss = _import_faiss(type(self).__name__)
        try:
            index = faiss.index_factory(dim, self.index_factory)
        except RuntimeError as err:
            raise ValueError(
                f"KNNIndex.add: faiss could not build index_factory={self.index_factory!r} "
                f"for {dim}-dimensional points: {err}"
            ) from err
        return _FaissStore(index)

    @property
    def numel(self) -> int:
        """The number of points held (0 before the first ``add`` and after ``reset``)."""
        return 0 if self._store is None else self._store.ntotal

    @property
    def engine(self) -> str | None:
        """``'array'`` (NumPy / CuPy blockwise search), ``'faiss'``, or None when empty."""
        return None if self._store is None else self._store.engine

    def _same_kind(self, where: str, name: str, arr: Any) -> None:
        if get_namespace(arr) is not self._xp:
            assert self._xp is not None
            raise TypeError(
                f"{where}: {name} is a {get_namespace(arr).__name__} array but the index holds "
                f"{self._xp.__name__} arrays; one index takes one kind"
            )

    def _check_dim(self, where: str, emb: Any) -> None:
        assert self._store is not None
        if int(emb.shape[1]) != self._store.dim:
            raise ValueError(
                f"{where}: emb has {int(emb.shape[1])} channels but the index holds "
                f"{self._store.dim}-dimensional points"
            )

    def add(self, emb: Any) -> None:
        """Add the points ``emb`` ``[N, D]`` (copied; their rows get ids ``numel ...``)."""
        where = f"{type(self).__name__}.add"
        emb = _points(where, emb)
        if self._store is None:
            xp = get_namespace(emb)
            dtype = np.float64 if emb.dtype == np.float64 else np.float32
            store = self._make_store(xp, int(emb.shape[1]), dtype)
            _fits(where, emb, store.dtype)
            self._store, self._xp = store, xp
            try:
                store.add(emb)
            except RuntimeError as err:  # faiss: e.g. too few points to train on
                self._store, self._xp = None, None
                raise ValueError(f"{where}: faiss refused the points: {err}") from err
            return
        self._same_kind(where, "emb", emb)
        self._check_dim(where, emb)
        _fits(where, emb, self._store.dtype)
        self._store.add(emb)

    def search(self, emb: Any, k: int, exclude_links: Any = None) -> KNNOutput:
        """The ``k`` best points for every row of ``emb`` ``[M, D]``: ``KNNOutput(score,
        index)``; ``exclude_links`` ``[2, L]`` lists ``(row of emb, point id)`` pairs to
        leave out (see the module notes)."""
        name = type(self).__name__
        where = f"{name}.search"
        if self._store is None:
            raise RuntimeError(f"{where}: the index is empty; call add(...) first")
        emb = _points(where, emb)
        self._same_kind(where, "emb", emb)
        self._check_dim(where, emb)
        _fits(where, emb, self._store.dtype)
        k = _positive_int(where, "k", k)
        n, m = self.numel, int(emb.shape[0])
        xp = self._xp
        if exclude_links is None:
            score, index = self._store.search(emb, min(k, n))
            return KNNOutput(_back(xp, score), _back(xp, index))
        links = _links(where, exclude_links, m, n)
        self._same_kind(where, "exclude_links", links)
        extra = 0
        if links.shape[1] and m:
            extra = int(xp.bincount(links[0], minlength=m).max())
        score, index = self._store.search(emb, min(k + extra, n))
        score, index = _back(xp, score), _back(xp, index)
        return KNNOutput(*_drop_links(xp, score, index, links, n, k))

    def get_emb(self) -> Any:
        """A copy of the stored points ``[numel, D]`` (faiss: float32; the approximate
        indices give faiss's reconstruction from the compressed codes)."""
        if self._store is None:
            raise RuntimeError(f"{type(self).__name__}.get_emb: the index is empty; call add(...)")
        return _back(self._xp, self._store.get_emb())

    def reset(self) -> None:
        """Forget every point and the dimension (the next ``add`` starts afresh)."""
        self._store, self._xp = None, None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(numel={self.numel})"


class _ExactIndex(KNNIndex):
    _metric = "l2"

    def __init__(
        self, emb: Any = None, *, backend: str = "auto", reserve: int | None = None
    ) -> None:
        if backend not in _BACKENDS:
            raise ValueError(
                f"{type(self).__name__}: backend must be one of {_BACKENDS}, got {backend!r}"
            )
        if backend == "faiss":
            _import_faiss(f"{type(self).__name__}(backend='faiss')")
        self.backend = backend
        super().__init__(index_factory=None, emb=emb, reserve=reserve)

    def _make_store(self, xp: ModuleType, dim: int, dtype: Any) -> _ArrayStore | _FaissStore:
        use_faiss = self.backend == "faiss" or (
            self.backend == "auto" and xp is np and dtype == np.float32 and _faiss_available()
        )
        if use_faiss:
            faiss = _import_faiss(type(self).__name__)
            flat = faiss.IndexFlatL2 if self._metric == "l2" else faiss.IndexFlatIP
            return _FaissStore(flat(dim))
        return _ArrayStore(xp, dtype, dim, self._metric, self.reserve or 0)


class L2KNNIndex(_ExactIndex):
    """PyG's ``L2KNNIndex(emb=None)``: exact search by squared Euclidean distance (smallest
    first). Runs on NumPy / CuPy without faiss; ``backend='auto'`` uses faiss's
    ``IndexFlatL2`` for float32 NumPy points when faiss is installed (faster, same
    results), ``'array'`` / ``'faiss'`` force one. Float64 points keep float64 scores on
    the array path. See :class:`KNNIndex` and the module notes.

    >>> import numpy as np
    >>> L2KNNIndex(np.eye(3)).search(np.array([[1.0, 0.1, 0.0]]), 2).index.tolist()
    [[0, 1]]
    """


class MIPSKNNIndex(_ExactIndex):
    """PyG's ``MIPSKNNIndex(emb=None)``: exact maximum-inner-product search (largest
    ``score = q . e`` first; equal scores: the higher index first, as faiss).
    ``backend`` as :class:`L2KNNIndex` (faiss: ``IndexFlatIP``).

    >>> import numpy as np
    >>> MIPSKNNIndex(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 5.0]])).search(
    ...     np.array([[1.0, 0.0]]), 2).score.tolist()
    [[2.0, 1.0]]
    """

    _metric = "ip"


class _ApproxIndex(KNNIndex):
    _metric = "l2"

    def __init__(
        self,
        num_cells: int,
        num_cells_to_visit: int,
        bits_per_vector: int,
        emb: Any = None,
        reserve: int | None = None,
    ) -> None:
        name = type(self).__name__
        self.num_cells = _positive_int(name, "num_cells", num_cells)
        self.num_cells_to_visit = _positive_int(name, "num_cells_to_visit", num_cells_to_visit)
        self.bits_per_vector = _positive_int(name, "bits_per_vector", bits_per_vector)
        _import_faiss(name)
        super().__init__(index_factory=None, emb=emb, reserve=reserve)

    def _make_store(self, xp: ModuleType, dim: int, dtype: Any) -> _ArrayStore | _FaissStore:
        name = type(self).__name__
        if dim % self.bits_per_vector:
            raise ValueError(
                f"{name}.add: bits_per_vector={self.bits_per_vector} (faiss IndexIVFPQ's number "
                f"of sub-vectors, as PyG passes it) must divide the {dim} channels of emb"
            )
        faiss = _import_faiss(name)
        l2 = self._metric == "l2"
        quantizer = faiss.IndexFlatL2(dim) if l2 else faiss.IndexFlatIP(dim)
        metric = faiss.METRIC_L2 if l2 else faiss.METRIC_INNER_PRODUCT
        index = faiss.IndexIVFPQ(quantizer, dim, self.num_cells, self.bits_per_vector, 8, metric)
        index.nprobe = self.num_cells_to_visit
        return _FaissStore(index, keep=quantizer)


class ApproxL2KNNIndex(_ApproxIndex):
    """PyG's ``ApproxL2KNNIndex(num_cells, num_cells_to_visit, bits_per_vector, emb=None,
    reserve=None)``: faiss's ``IndexIVFPQ`` (``num_cells`` inverted lists, ``nprobe =
    num_cells_to_visit``, ``bits_per_vector`` product-quantiser sub-vectors of 8 bits, as
    PyG builds it) on the L2 metric; trained on the first ``add`` (which needs at least
    ``num_cells`` points and, for good codes, a few hundred). Needs faiss; float32 scores.
    An answer may hold index ``-1`` where the visited cells had fewer than ``k`` points
    (faiss's, passed on as PyG does)."""


class ApproxMIPSKNNIndex(_ApproxIndex):
    """PyG's ``ApproxMIPSKNNIndex(num_cells, num_cells_to_visit, bits_per_vector, emb=None,
    reserve=None)``: as :class:`ApproxL2KNNIndex` on the inner product (largest first)."""

    _metric = "ip"


# ------------------------------------------------------------------------------- helpers
def _fits(where: str, emb: Any, dtype: np.dtype) -> None:
    """Refuse finite values that the cast to the index's ``dtype`` would make infinite."""
    if emb.size and emb.dtype.itemsize > dtype.itemsize:
        top = float(get_namespace(emb).abs(emb).max())
        if top > float(np.finfo(dtype).max):
            raise ValueError(
                f"{where}: emb holds values beyond the range of the index's {dtype} "
                f"(largest magnitude {top:.4g}); the index stores and searches {dtype}"
            )


def _reserve(name: str, reserve: Any) -> int:
    if isinstance(reserve, (bool, np.bool_)) or not isinstance(reserve, (int, np.integer)):
        raise TypeError(f"{name}: reserve must be an int or None, got {reserve!r}")
    if int(reserve) < 0:
        raise ValueError(f"{name}: reserve must be >= 0, got {int(reserve)}")
    return int(reserve)


def _links(where: str, links: Any, m: int, n: int) -> Any:
    """``exclude_links`` checked: an int ``[2, L]`` array with rows in ``[0, m)`` and ids in
    ``[0, n)``; returned as int64."""
    check_array_arg(where, "exclude_links", links)
    if links.dtype.kind not in "iu":
        raise TypeError(f"{where}: exclude_links must be an integer array, got dtype {links.dtype}")
    if links.ndim != 2 or links.shape[0] != 2:
        raise ValueError(
            f"{where}: exclude_links must be [2, num_links] (query row, index id), got shape "
            f"{tuple(links.shape)}"
        )
    links = links.astype(np.int64, copy=False)
    if links.shape[1]:
        lo, hi = links.min(axis=1).tolist(), links.max(axis=1).tolist()
        for row, what, size in ((0, "query rows (emb)", m), (1, "index ids (numel)", n)):
            if lo[row] < 0 or hi[row] >= size:
                raise ValueError(
                    f"{where}: exclude_links[{row}] must hold {what} in [0, {size}), got "
                    f"values in [{lo[row]}, {hi[row]}]"
                )
    return links


def _drop_links(
    xp: ModuleType, score: Any, index: Any, links: Any, n: int, k: int
) -> tuple[Any, Any]:
    """PyG's filter: drop the excluded ``(row, id)`` pairs from the fetched candidates, keep
    the first ``k`` of each row, pad to ``[M, k]`` with ``-inf`` / ``-1``."""
    m = int(score.shape[0])
    flat_out = links[0] * n + links[1]
    rows = xp.arange(m, dtype=np.int64)[:, None]
    flat = xp.where(index >= 0, rows * n + index, -1)  # faiss's -1 (not found) never matches
    keep = ~xp.isin(flat, flat_out)
    pos = xp.cumsum(keep, axis=1) - 1
    keep &= pos < k
    r, c = xp.nonzero(keep)
    out_score = xp.full((m, k), -np.inf, score.dtype)
    out_index = xp.full((m, k), -1, np.int64)
    out_score[r, pos[r, c]] = score[r, c]
    out_index[r, pos[r, c]] = index[r, c]
    return out_score, out_index


def _back(xp: ModuleType | None, arr: Any) -> Any:
    """A host result on the index's device (faiss on CuPy points: the copy back)."""
    return arr if xp is None or xp is np else xp.asarray(arr)
