"""PyG's ``Node2Vec`` (Grover & Leskovec, 2016) at inference: the embedding table, the
skip-gram ``loss`` and the random-walk sampling (``pos_sample``, ``neg_sample``,
``sample``, ``loader``) on arrays.

The walks are :mod:`arraygnn.random_walks`' (CPU Numba kernels, one SplitMix64 stream per
walk from ``seed``): uniform over each node's out-edges for ``p = q = 1``
(:func:`~arraygnn.random_walks.random_walk`), node2vec's second-order bias otherwise
(:func:`~arraygnn.random_walks.node2vec_random_walk`: ``1/p`` back to the previous node,
``1`` to a node with an edge to it, ``1/q`` elsewhere; pyg-lib's CPU kernel only takes
``p = q = 1``). A node without out-edges keeps the walk in place (pyg-lib's fake
self-loop), so every walk has ``walk_length`` nodes, as PyG's. The same ``seed`` gives
the same samples; the numbers differ from PyG's (another generator).

RULE: ``num_nodes`` is required (PyG reads it off ``edge_index.max() + 1``).

>>> import numpy as np
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> model = Node2Vec(ei, embedding_dim=4, walk_length=3, context_size=2, num_nodes=3, rng=0)
>>> model(np.array([2])).shape
(1, 4)
>>> pos, neg = model.sample(np.array([0, 1]), seed=0)
>>> pos.shape, neg.shape
((4, 2), (4, 2))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn._skipgram import SkipGramMethods, context_windows, fill_dead_ends, seeded
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import _rng

__all__ = ["Node2Vec"]


def check_start(where: str, batch: Any, num_nodes: int, name: str = "batch") -> np.ndarray:
    """Start nodes: a 1-D integer host array with ids in ``[0, num_nodes)``; errors name
    the argument ``name``."""
    from arraygnn.ops._common import check_index

    if isinstance(batch, (list, tuple)):  # integers only: no silent cast of floats / bools
        batch = np.asarray(batch)
        if batch.size == 0 or batch.dtype.kind in "iu":
            batch = batch.astype(np.int64)
    check_index(f"{where}: {name}", batch, num_nodes)
    return to_numpy(batch)


class Node2Vec(SkipGramMethods, Module):
    """PyG's ``Node2Vec(edge_index, embedding_dim, walk_length, context_size,
    walks_per_node=1, p=1.0, q=1.0, num_negative_samples=1, num_nodes=None,
    sparse=False)``.

    Methods (PyG's): ``model(batch=None)`` the rows of ``batch`` (all without);
    ``pos_sample(batch, seed=None)`` ``(len(batch) * walks_per_node * W, context_size)``
    windows of walks of ``walk_length`` nodes (``W = walk_length + 1 - context_size``);
    ``neg_sample(batch, seed=None)`` as many times ``num_negative_samples`` windows of
    uniform random nodes after each start node; ``sample(batch, seed=None)`` both;
    ``loader(batch_size=1, shuffle=False, drop_last=False, seed=None)`` an iterable of
    ``sample`` over all nodes; ``loss(pos_rw, neg_rw)``; ``test(train_z, train_y,
    test_z, test_y, solver='lbfgs', *args, **kwargs)`` (scikit-learn).

    Names: ``embedding.weight`` ``(num_nodes, embedding_dim)``.
    """

    _child_names = ("embedding",)
    _where = "Node2Vec"

    def __init__(
        self,
        edge_index: Any,
        embedding_dim: int,
        walk_length: int,
        context_size: int,
        walks_per_node: int = 1,
        p: float = 1.0,
        q: float = 1.0,
        num_negative_samples: int = 1,
        num_nodes: int | None = None,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        from arraygnn.graph import graph
        from arraygnn.ops._common import check_index

        name = "Node2Vec"
        if num_nodes is None:
            raise ValueError(
                f"{name}: pass num_nodes; arraygnn never infers it from edge_index.max() + 1"
            )
        self.num_nodes = layer_size(name, "num_nodes", num_nodes)
        check_index(f"{name}: edge_index", edge_index, self.num_nodes, ndim=2)
        if edge_index.shape[0] != 2:
            raise ValueError(f"{name}: edge_index must be [2, E], got {tuple(edge_index.shape)}")
        self.embedding_dim = layer_size(name, "embedding_dim", embedding_dim)
        length = layer_size(name, "walk_length", walk_length, minimum=1)
        self.context_size = layer_size(name, "context_size", context_size, minimum=1)
        if length < self.context_size:
            raise ValueError(
                f"{name}: walk_length ({length}) must be >= context_size ({self.context_size})"
            )
        self.walk_length = length - 1  # steps (PyG keeps walk_length - 1)
        self.walks_per_node = layer_size(name, "walks_per_node", walks_per_node, minimum=1)
        self.num_negative_samples = layer_size(
            name, "num_negative_samples", num_negative_samples, minimum=1
        )
        for key, v in (("p", p), ("q", q)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
                raise TypeError(f"{name}: {key} must be a number, got {v!r}")
            if not (np.isfinite(v) and v > 0):
                raise ValueError(f"{name}: {key} must be positive and finite, got {v}")
        self.p, self.q = float(p), float(q)
        self.sparse = bool(sparse)
        host = to_numpy(edge_index).astype(np.int64)
        self._graph = graph((host[0], host[1]), num_nodes=self.num_nodes)
        self.embedding = _Embedding(self.num_nodes, self.embedding_dim, _rng(rng), dtype)

    def __call__(self, batch: Any = None) -> Any:
        from arraygnn.ops._common import check_index

        weight = self.embedding.weight
        if batch is None:
            return weight
        check_index("Node2Vec: batch", batch, self.num_nodes)
        return weight[batch]

    def _walks(self, starts: np.ndarray, seed: Any) -> np.ndarray:
        from arraygnn.random_walks import node2vec_random_walk, random_walk

        g = self._graph
        if self.p == 1.0 and self.q == 1.0:
            traces, _ = random_walk(g, starts, length=self.walk_length, seed=seed)
        else:
            traces = node2vec_random_walk(g, starts, self.p, self.q, self.walk_length, seed=seed)
        return fill_dead_ends(traces, None)

    def pos_sample(self, batch: Any, seed: Any = None) -> Any:
        """Windows of random walks from each node of ``batch`` (``walks_per_node`` each)."""
        starts = check_start("Node2Vec.pos_sample", batch, self.num_nodes)
        starts = np.tile(starts, self.walks_per_node)
        rw = self._walks(starts.astype(np.int64), seeded(seed, "Node2Vec.pos_sample"))
        return context_windows(rw.astype(starts.dtype, copy=False), self.context_size)

    def neg_sample(self, batch: Any, seed: Any = None) -> Any:
        """Windows of uniformly random nodes after each node of ``batch``."""
        starts = check_start("Node2Vec.neg_sample", batch, self.num_nodes)
        starts = np.tile(starts, self.walks_per_node * self.num_negative_samples)
        gen = seeded(seed, "Node2Vec.neg_sample")
        rest = gen.integers(0, max(self.num_nodes, 1), (starts.shape[0], self.walk_length))
        rw = np.concatenate([starts[:, None], rest.astype(starts.dtype)], axis=1)
        return context_windows(rw, self.context_size)

    def _loader_nodes(self) -> int:
        return self.num_nodes

    def extra_repr(self) -> str:
        return f"{self.num_nodes}, {self.embedding_dim}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> Node2Vec:
    """PyG's ``Node2Vec`` with its embedding table and its graph (``rowptr`` / ``col``)."""
    import torch

    rowptr, col = module.rowptr.cpu(), module.col.cpu()
    row = torch.repeat_interleave(torch.arange(rowptr.numel() - 1), rowptr.diff())
    from arraygnn.nn.weights import _dtype_of

    model = Node2Vec(
        np.stack([row.numpy(), col.numpy()]).astype(np.int64),
        module.embedding_dim,
        module.walk_length + 1,
        module.context_size,
        module.walks_per_node,
        module.p,
        module.q,
        module.num_negative_samples,
        num_nodes=module.num_nodes,
        sparse=bool(module.embedding.sparse),
        dtype=_dtype_of(module),
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
