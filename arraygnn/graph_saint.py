"""GraphSAINT samplers (PyG's ``GraphSAINTNodeSampler``, ``GraphSAINTEdgeSampler``,
``GraphSAINTRandomWalkSampler``): ``num_steps`` random node-induced subgraphs of one graph
per epoch, with the normalisation statistics of the GraphSAINT paper.

Each batch samples nodes (see each class), keeps them once (sorted ids) and returns the
subgraph they induce: a ``Data`` with ``num_nodes``, ``edge_index`` (relabelled, sorted by
(source, target), the input's dtype), the node / edge attributes sliced and the rest kept,
as PyG's ``saint_subgraph``. With ``sample_coverage > 0``, when the loader is made, whole
epochs of samples are drawn until ``N * sample_coverage`` nodes were sampled (PyG's loop),
and each batch carries ``node_norm`` / ``edge_norm`` from those counts, PyG's formulas:

- ``node_norm[v] = num_samples / count[v] / N`` (``count[v] = 0.1`` for a never-sampled
  node; ``num_samples`` the samples drawn), float32;
- ``edge_norm[e] = clip(count[source(e)] / edge_count[e], 0, 1e4)``, ``0.1`` where both
  counts are 0, float32.

RULE: a ``Data``'s node / edge / graph arrays are named by ``node_attrs`` / ``edge_attrs``
      / ``graph_attrs`` (defaults ``('x', 'pos')`` / ``('edge_attr', 'edge_weight')`` /
      none; :mod:`arraygnn.transforms.attrs`), never guessed from lengths as PyG does.
RULE: the same ``seed`` gives the same samples (norms included, drawn from their own
      stream); CPU (NumPy) graphs only, as PyG's. ``save_dir`` caches the norms in a
      ``.npz`` file (PyG: ``.pt``) checked to be this graph's and settings' (see
      :class:`GraphSAINTSampler`); ``log`` shows no progress bar.
RULE: the random-walk sampler walks out-edges with :func:`arraygnn.random_walks.random_walk`
      (a node without out-edges ends its walk; PyG's walker stays there: the same nodes).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> ring = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
>>> data = Data(x=np.arange(6.0)[:, None], edge_index=ring)
>>> loader = GraphSAINTNodeSampler(data, batch_size=3, num_steps=2, sample_coverage=5, seed=0)
>>> batches = list(loader)
>>> len(batches), sorted(batches[0].keys())
(2, ['edge_index', 'edge_norm', 'node_norm', 'num_nodes', 'x'])
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn.data import Data

__all__ = [
    "GraphSAINTSampler",
    "GraphSAINTNodeSampler",
    "GraphSAINTEdgeSampler",
    "GraphSAINTRandomWalkSampler",
]


class GraphSAINTSampler:
    """The GraphSAINT base class: subclasses say how nodes are drawn (:meth:`_sample_nodes`).

    Args:
        data: a ``Data`` with ``edge_index`` (NumPy) and a known ``num_nodes``.
        batch_size: the approximate number of samples per batch (> 0; what it counts is
            the subclass's).
        num_steps: batches per epoch (>= 0).
        sample_coverage: samples per node for the norms (0: no ``node_norm`` /
            ``edge_norm``; > 0 needs ``num_steps >= 1``).
        save_dir: a folder caching the norms, as PyG's: read from
            ``<class name lower>[_<walk_length>]_<sample_coverage>.npz`` there when it
            exists (NumPy's format, not PyG's ``.pt``), else computed and written there
            (atomically). The file records the graph's edges, ``batch_size`` and
            ``num_steps``: one written for another graph or settings, or unreadable, is a
            ``ValueError`` (PyG reads it unchecked). The seed is not recorded (as PyG:
            another seed reads the stored norms); the batches do not depend on whether the
            norms were read or computed.
        log: accepted for PyG's signature (a bool or int; no progress bar is shown).
        **kwargs: torch ``DataLoader``'s worker keywords (``num_workers``, ``pin_memory``,
            ...), checked as torch checks them and without effect (docs/collation.md);
            ``generator`` / ``sampler`` / ``batch_sampler`` are a ``TypeError`` (the draws
            come from ``seed``).
        node_attrs / edge_attrs / graph_attrs: the arrays by level (see above).
        seed: seed of the ``numpy.random.Generator`` of every draw.
    """

    def __init__(
        self,
        data: Any,
        batch_size: int,
        num_steps: int = 1,
        sample_coverage: int = 0,
        save_dir: str | os.PathLike | None = None,
        log: bool = True,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        from arraygnn._loader_args import torch_loader_args
        from arraygnn.interop._handoff import is_data_like
        from arraygnn.neighbor_loader import _check_int
        from arraygnn.transforms.attrs import attribute_levels
        from arraygnn.utils._checks import check_ids, edge_index_arg

        where = type(self).__name__
        if not is_data_like(data):
            raise TypeError(f"{where}: data must be a Data, got {type(data).__name__}")
        self.batch_size = _check_int(where, "batch_size", batch_size, 1)
        self.num_steps = _check_int(where, "num_steps", num_steps, 0)
        self.sample_coverage = _check_int(where, "sample_coverage", sample_coverage, 0)
        if self.sample_coverage > 0 and self.num_steps == 0:  # PyG loops forever here
            raise ValueError(f"{where}: sample_coverage > 0 needs num_steps >= 1")
        if save_dir is not None and not isinstance(save_dir, (str, os.PathLike)):
            raise TypeError(f"{where}: save_dir must be a folder path, got {save_dir!r}")
        if not isinstance(log, (bool, np.bool_, int, np.integer)):  # PyG: `if self.log:`
            raise TypeError(f"{where}: log must be True or False, got {log!r}")
        for key, value in torch_loader_args(where, kwargs).items():
            if key in ("generator", "sampler", "batch_sampler"):
                if value is not None:
                    raise TypeError(f"{where}: {key} is not taken (the draws come from seed=)")
            else:
                setattr(self, key, value)
        self.save_dir, self.log = save_dir, bool(log)
        ei = data._store.get("edge_index")
        if ei is None:
            raise ValueError(f"{where}: data has no edge_index")
        for key in ("node_norm", "edge_norm"):
            if key in data:
                raise ValueError(f"{where}: data already holds {key!r} (the sampler adds it)")
        if not isinstance(ei, np.ndarray):
            raise TypeError(f"{where}: GraphSAINT samples on the CPU; give NumPy arrays")
        edge_index_arg(where, ei)
        if data.num_nodes is None:
            raise ValueError(
                f"{where}: num_nodes is unknown (give x, pos or num_nodes=; it is never guessed "
                "from edge_index.max() + 1)"
            )
        self.N = int(data.num_nodes)
        check_ids(where, "edge_index", ei, self.N)
        self.E = int(ei.shape[1])
        self.levels = attribute_levels(where, data, node_attrs, edge_attrs, graph_attrs)
        self.data = data
        row, col = ei[0].astype(np.int64), ei[1].astype(np.int64)
        self.row, self.col = row, col
        # PyG's SparseTensor: edges sorted by (row, col), ties in edge order
        self._perm = np.lexsort((col, row))
        self._indptr = np.zeros(self.N + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=self.N), out=self._indptr[1:])
        self._col_sorted = col[self._perm]
        self._check_sampler(where)
        self._rng = np.random.default_rng(seed)
        self.node_norm = self.edge_norm = None
        if self.sample_coverage > 0:
            self.node_norm, self.edge_norm = self._cached_norm(where)

    @property
    def _filename(self) -> str:
        return f"{type(self).__name__.lower()}_{self.sample_coverage}.npz"

    def _cache_key(self) -> dict[str, Any]:
        """What the norms depend on besides the file name's class, walk length and coverage:
        the graph (its edges, in order) and the draws per epoch."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(self.row)
        digest.update(self.col)
        return {
            "num_nodes": self.N,
            "num_edges": self.E,
            "edges": digest.hexdigest(),
            "batch_size": self.batch_size,
            "num_steps": self.num_steps,
        }

    def _cached_norm(self, where: str) -> tuple[np.ndarray, np.ndarray]:
        """The norms, read from / written to ``save_dir`` when given (PyG's cache), drawn
        from their own stream: the batches are the same whether they are computed or read."""
        rng = np.random.default_rng(self._rng.integers(2**63))
        if self.save_dir is None:
            return self._compute_norm(rng)
        path = os.path.join(os.fspath(self.save_dir), self._filename)
        key = self._cache_key()
        if os.path.exists(path):
            return self._load_norm(where, path, key)
        node_norm, edge_norm = self._compute_norm(rng)
        from arraygnn.graph.serialize import _write_atomically

        _write_atomically(
            path,
            where,
            lambda f: np.savez(
                f, node_norm=node_norm, edge_norm=edge_norm, key=np.array(json.dumps(key))
            ),
        )
        return node_norm, edge_norm

    def _load_norm(self, where: str, path: str, key: dict[str, Any]) -> tuple[Any, Any]:
        """The stored norms, refused (``ValueError``) unless written for this graph and these
        settings; never unpickled."""
        fix = "remove it or pick another save_dir"
        try:
            # our handle: np.load leaks its own when a .npz is cut short (BadZipFile)
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as f:
                node_norm, edge_norm = f["node_norm"], f["edge_norm"]
                stored = json.loads(str(f["key"]))
            if not isinstance(stored, dict):
                raise ValueError("no settings")
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as err:
            raise ValueError(
                f"{where}: the norms in {path!r} cannot be read ({err}); {fix}"
            ) from err
        if any(stored.get(k) != key[k] for k in ("num_nodes", "num_edges", "edges")):
            raise ValueError(
                f"{where}: the norms in {path!r} are for another graph ({stored.get('num_nodes')} "
                f"nodes, {stored.get('num_edges')} edges; this one has {self.N} nodes, {self.E} "
                f"edges, or other edges); {fix}"
            )
        for k in ("batch_size", "num_steps"):
            if stored.get(k) != key[k]:
                raise ValueError(
                    f"{where}: the norms in {path!r} were drawn with {k}={stored.get(k)} "
                    f"(this sampler: {key[k]}); {fix}"
                )
        f32 = np.dtype(np.float32)
        if (node_norm.shape, node_norm.dtype, edge_norm.shape, edge_norm.dtype) != (
            (self.N,), f32, (self.E,), f32,
        ):  # fmt: skip
            raise ValueError(f"{where}: the norms in {path!r} are not [N] / [E] float32; {fix}")
        return node_norm, edge_norm

    def _check_sampler(self, where: str) -> None:
        """Subclass checks of the graph (e.g. edges to draw from)."""

    def _sample_nodes(self, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.num_steps

    def _draw(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One sample: ``(node_idx sorted unique, edge_idx, local row, local col)``."""
        node_idx = unique_ids(np, self._sample_nodes(self._rng))
        local = np.full(self.N, -1, dtype=np.int64)
        local[node_idx] = np.arange(node_idx.shape[0])
        from arraygnn.dataset import _ranges

        starts = self._indptr[node_idx]
        counts = self._indptr[node_idx + 1] - starts
        pos = _ranges(starts, counts)
        new_col = local[self._col_sorted[pos]]
        keep = new_col >= 0
        new_row = np.repeat(np.arange(node_idx.shape[0]), counts)[keep]
        return node_idx, self._perm[pos[keep]], new_row, new_col[keep]

    def _compute_norm(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        batches_rng, self._rng = self._rng, rng  # _draw() draws from self._rng
        try:
            return self._count_norm()
        finally:
            self._rng = batches_rng

    def _count_norm(self) -> tuple[np.ndarray, np.ndarray]:
        node_count = np.zeros(self.N, dtype=np.float32)
        edge_count = np.zeros(self.E, dtype=np.float32)
        num_samples = total = 0
        while total < self.N * self.sample_coverage:
            for _ in range(self.num_steps):
                node_idx, edge_idx, _, _ = self._draw()
                node_count[node_idx] += 1
                edge_count[edge_idx] += 1
                total += int(node_idx.shape[0])
            num_samples += self.num_steps
            if self.num_steps == 0:
                break
        return saint_norm(node_count, edge_count, self.row, self.N, num_samples)

    def __iter__(self) -> Iterator[Data]:
        for _ in range(self.num_steps):
            yield self._batch(*self._draw())

    def _batch(
        self, node_idx: np.ndarray, edge_idx: np.ndarray, row: np.ndarray, col: np.ndarray
    ) -> Data:
        data = self.data
        ei = data.edge_index
        out = type(data)()
        out.num_nodes = int(node_idx.shape[0])
        # a sorted subset: every local id is at most its global id, so the dtype holds it
        out.edge_index = np.stack([row, col]).astype(ei.dtype, copy=False)
        node, edge = set(self.levels.node), set(self.levels.edge)
        for key, value in data.items():
            if key in ("edge_index", "num_nodes"):
                continue
            if key in node:
                out[key] = value[node_idx]
            elif key in edge:
                out[key] = value[edge_idx]
            else:
                out[key] = value
        if self.node_norm is not None:
            out.node_norm = self.node_norm[node_idx]
            out.edge_norm = self.edge_norm[edge_idx]
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(batch_size={self.batch_size}, num_steps={self.num_steps})"


def saint_norm(
    node_count: np.ndarray, edge_count: np.ndarray, row: np.ndarray, n: int, num_samples: int
) -> tuple[np.ndarray, np.ndarray]:
    """PyG's GraphSAINT ``(node_norm, edge_norm)`` from the per-node / per-edge sample
    counts (float32) and the edges' source ids ``row``."""
    t = node_count[row]
    with np.errstate(divide="ignore", invalid="ignore"):
        edge_norm = np.clip(t / edge_count, 0, 1e4).astype(np.float32)
    edge_norm[np.isnan(edge_norm)] = 0.1
    count = node_count.copy()
    count[count == 0] = 0.1
    node_norm = (np.float32(num_samples) / count / np.float32(n)).astype(np.float32)
    return node_norm, edge_norm


class GraphSAINTNodeSampler(GraphSAINTSampler):
    """GraphSAINT's node sampler: ``batch_size`` source nodes of uniformly drawn edges (a
    node is drawn in proportion to its out-degree, as PyG's)."""

    def _check_sampler(self, where: str) -> None:
        if self.E == 0:
            raise ValueError(f"{where}: the graph has no edges to draw nodes from")

    def _sample_nodes(self, rng: np.random.Generator) -> np.ndarray:
        return self.row[rng.integers(0, self.E, self.batch_size)]


class GraphSAINTEdgeSampler(GraphSAINTSampler):
    """GraphSAINT's edge sampler: ``batch_size`` edges drawn independently, with
    replacement (repeats possible, ``batch_size`` may exceed the edge count), each with
    probability proportional to ``in_degree(source) + out_degree(target) + 1e-10``; the
    batch's nodes are their ends. PyG draws each edge as the top-1 Efraimidis-Spirakis key
    ``log(u) / (weight + 1e-10)`` of its own row of a ``[batch_size, E]`` matrix: that is
    this distribution, drawn here without the matrix."""

    def _check_sampler(self, where: str) -> None:
        if self.E == 0:
            raise ValueError(f"{where}: the graph has no edges to draw")
        in_deg = np.bincount(self.col, minlength=self.N)
        out_deg = np.bincount(self.row, minlength=self.N)
        weight = (in_deg[self.row] + out_deg[self.col]).astype(np.float64) + 1e-10
        self._cdf = np.cumsum(weight)  # inverse-CDF draws: O(batch_size log E) a batch

    def _sample_nodes(self, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(self.batch_size) * self._cdf[-1]
        top = np.minimum(np.searchsorted(self._cdf, u, side="right"), self.E - 1)
        return np.concatenate([self.col[top], self.row[top]])


class GraphSAINTRandomWalkSampler(GraphSAINTSampler):
    """GraphSAINT's random-walk sampler: ``batch_size`` uniformly drawn start nodes, each
    walking ``walk_length`` steps along out-edges; the batch's nodes are all visited.

    Args: ``walk_length`` (>= 0) after ``batch_size``; the rest as
    :class:`GraphSAINTSampler`.
    """

    def __init__(
        self,
        data: Any,
        batch_size: int,
        walk_length: int,
        num_steps: int = 1,
        sample_coverage: int = 0,
        save_dir: str | os.PathLike | None = None,
        log: bool = True,
        **kwargs: Any,
    ) -> None:
        from arraygnn.neighbor_loader import _check_int

        self.walk_length = _check_int(type(self).__name__, "walk_length", walk_length, 0)
        super().__init__(data, batch_size, num_steps, sample_coverage, save_dir, log, **kwargs)

    @property
    def _filename(self) -> str:
        return f"{type(self).__name__.lower()}_{self.walk_length}_{self.sample_coverage}.npz"

    def _check_sampler(self, where: str) -> None:
        if self.N == 0:
            raise ValueError(f"{where}: the graph has no nodes to start walks from")
        from arraygnn.graph import graph

        self._graph = graph((self.row, self.col), num_nodes=self.N)

    def _sample_nodes(self, rng: np.random.Generator) -> np.ndarray:
        from arraygnn.random_walks import random_walk

        start = rng.integers(0, self.N, self.batch_size)
        traces, _ = random_walk(self._graph, start, length=self.walk_length, seed=rng)
        traces = traces.reshape(-1)
        return traces[traces >= 0]
