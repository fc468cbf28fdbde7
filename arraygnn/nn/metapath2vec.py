"""PyG's ``MetaPath2Vec`` (Dong et al., 2017) at inference: one embedding table for all
node types on the metapath (each type's rows from ``start[type]`` to ``end[type]``, types
in sorted order, plus a last dummy row), the skip-gram ``loss`` and metapath walk
sampling (``pos_sample``, ``neg_sample``, ``sample``, ``loader``) on arrays.

Step ``i`` of a walk follows an edge of ``metapath[i % len(metapath)]``, uniformly over
the current node's out-edges (:func:`arraygnn.random_walks.random_walk` on a
heterogeneous graph: CPU Numba kernels, one stream per walk from ``seed``); a node
without such edges sends the rest of the walk to the dummy row, as PyG's sampler. Walks
hold global rows (a node's id plus its type's offset). The same ``seed`` gives the same
samples; the numbers differ from PyG's (another generator).

RULE: ``num_nodes_dict`` is required (PyG reads it off the largest ids + 1).

>>> import numpy as np
>>> ei = {("a", "to", "b"): np.array([[0, 1], [1, 0]]),
...       ("b", "to", "a"): np.array([[0, 1], [0, 1]])}
>>> model = MetaPath2Vec(ei, 4, [("a", "to", "b"), ("b", "to", "a")], walk_length=3,
...                      context_size=2, num_nodes_dict={"a": 2, "b": 2}, rng=0)
>>> model("b", np.array([1])).shape
(1, 4)
>>> pos, neg = model.sample(np.array([0, 1]), seed=0)
>>> pos.shape, neg.shape
((6, 2), (6, 2))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn._skipgram import SkipGramMethods, context_windows, fill_dead_ends, seeded
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import _rng
from arraygnn.nn.node2vec import check_start

__all__ = ["MetaPath2Vec"]


class MetaPath2Vec(SkipGramMethods, Module):
    """PyG's ``MetaPath2Vec(edge_index_dict, embedding_dim, metapath, walk_length,
    context_size, walks_per_node=1, num_negative_samples=1, num_nodes_dict=None,
    sparse=False)``.

    Methods (PyG's): ``model(node_type, batch=None)`` the rows of that type;
    ``pos_sample(batch, seed=None)`` / ``neg_sample`` / ``sample`` (PyG's ``_pos_sample``,
    ...) windows ``(len(batch) * walks_per_node * W, context_size)`` with ``W =
    walk_length + 2 - context_size``, ``batch`` ids of ``metapath[0]``'s source type;
    ``loader(batch_size=1, shuffle=False, drop_last=False, seed=None)``; ``loss``;
    ``test`` (scikit-learn). Attributes ``start``, ``end``, ``offset``, ``dummy_idx``.

    Names: ``embedding.weight`` ``(count + 1, embedding_dim)``.
    """

    _child_names = ("embedding",)
    _where = "MetaPath2Vec"

    def __init__(
        self,
        edge_index_dict: Mapping[tuple[str, str, str], Any],
        embedding_dim: int,
        metapath: Sequence[tuple[str, str, str]],
        walk_length: int,
        context_size: int,
        walks_per_node: int = 1,
        num_negative_samples: int = 1,
        num_nodes_dict: Mapping[str, int] | None = None,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        from arraygnn.graph import heterograph
        from arraygnn.ops._common import check_index

        name = "MetaPath2Vec"
        if num_nodes_dict is None:
            raise ValueError(
                f"{name}: pass num_nodes_dict; arraygnn never infers sizes from the largest id"
            )
        if not isinstance(edge_index_dict, Mapping):
            raise TypeError(f"{name}: edge_index_dict must be a dict {{edge type: [2, E]}}")
        sizes = {str(t): layer_size(name, f"num_nodes_dict[{t!r}]", n) for t, n in
                 dict(num_nodes_dict).items()}  # fmt: skip
        path = [tuple(e) for e in metapath]
        if not path or any(len(e) != 3 for e in path):
            raise ValueError(f"{name}: metapath must be a non-empty list of (src, rel, dst)")
        for e in path:
            if e not in edge_index_dict:
                raise KeyError(f"{name}: metapath edge type {e!r} is not in edge_index_dict")
        for a, b in zip(path[:-1], path[1:]):
            if a[-1] != b[0]:
                raise ValueError(
                    f"{name}: found invalid metapath: the destination node type of {a!r} "
                    f"does not match the source node type of {b!r}"
                )
        self.embedding_dim = layer_size(name, "embedding_dim", embedding_dim)
        self.walk_length = layer_size(name, "walk_length", walk_length)
        self.context_size = layer_size(name, "context_size", context_size, minimum=1)
        if self.walk_length + 1 < self.context_size:
            raise ValueError(
                f"{name}: walk_length + 1 ({self.walk_length + 1}) must be >= context_size "
                f"({self.context_size})"
            )
        if self.walk_length > len(path) and path[0][0] != path[-1][-1]:
            raise ValueError(
                f"{name}: the walk_length is longer than the given metapath, but the metapath "
                "does not denote a cycle"
            )
        self.walks_per_node = layer_size(name, "walks_per_node", walks_per_node, minimum=1)
        self.num_negative_samples = layer_size(
            name, "num_negative_samples", num_negative_samples, minimum=1
        )
        self.metapath = path
        self.sparse = bool(sparse)
        types = sorted({e[0] for e in path} | {e[-1] for e in path})
        missing = [t for t in types if t not in sizes]
        if missing:
            raise KeyError(f"{name}: num_nodes_dict lacks the node types {missing}")
        self.num_nodes_dict = sizes
        self.start, self.end, count = {}, {}, 0
        for t in types:
            self.start[t] = count
            count += sizes[t]
            self.end[t] = count
        offset = [self.start[path[0][0]]]
        offset += [self.start[e[-1]] for e in path] * (self.walk_length // len(path) + 1)
        self.offset = np.array(offset[: self.walk_length + 1], dtype=np.int64)
        self.dummy_idx = count
        data = {}
        for e in dict.fromkeys(path):
            ei = edge_index_dict[e]
            check_index(f"{name}: edge_index_dict[{e!r}]", ei, None, ndim=2)
            host = to_numpy(ei).astype(np.int64)
            if host.shape[0] != 2:
                raise ValueError(f"{name}: edge_index_dict[{e!r}] must be [2, E]")
            for row, t in ((0, e[0]), (1, e[2])):
                check_index(f"{name}: edge_index_dict[{e!r}][{row}]", host[row], sizes[t])
            data[e] = (host[0], host[1])
        self._graph = heterograph(data, {t: sizes[t] for t in types})
        self.embedding = _Embedding(count + 1, self.embedding_dim, _rng(rng), dtype)

    def __call__(self, node_type: str, batch: Any = None) -> Any:
        from arraygnn.ops._common import check_index

        if node_type not in self.start:
            raise KeyError(f"MetaPath2Vec: no node type {node_type!r} on the metapath")
        emb = self.embedding.weight[self.start[node_type] : self.end[node_type]]
        if batch is None:
            return emb
        check_index("MetaPath2Vec: batch", batch, int(emb.shape[0]))
        return emb[batch]

    def _starts(self, where: str, batch: Any) -> np.ndarray:
        return check_start(where, batch, self.num_nodes_dict[self.metapath[0][0]])

    def pos_sample(self, batch: Any, seed: Any = None) -> Any:
        """Windows of metapath walks from each node of ``batch`` (global rows)."""
        from arraygnn.random_walks import random_walk

        starts = np.tile(self._starts("MetaPath2Vec.pos_sample", batch), self.walks_per_node)
        steps = [self.metapath[i % len(self.metapath)] for i in range(self.walk_length)]
        if steps:
            traces, _ = random_walk(
                self._graph,
                starts.astype(np.int64),
                metapath=steps,
                seed=seeded(seed, "MetaPath2Vec.pos_sample"),
            )
        else:
            traces = starts.astype(np.int64)[:, None]
        rw = np.where(traces < 0, -1, traces + self.offset[None, :])
        rw = fill_dead_ends(rw, self.dummy_idx)
        return context_windows(rw.astype(starts.dtype, copy=False), self.context_size)

    def neg_sample(self, batch: Any, seed: Any = None) -> Any:
        """Windows of uniformly random nodes of each step's type (global rows)."""
        starts = self._starts("MetaPath2Vec.neg_sample", batch)
        starts = np.tile(starts, self.walks_per_node * self.num_negative_samples)
        gen = seeded(seed, "MetaPath2Vec.neg_sample")
        cols = [starts.astype(np.int64)]
        for i in range(self.walk_length):
            t = self.metapath[i % len(self.metapath)][-1]
            cols.append(gen.integers(0, max(self.num_nodes_dict[t], 1), starts.shape[0]))
        rw = np.stack(cols, axis=1) + self.offset[None, :]
        return context_windows(rw.astype(starts.dtype, copy=False), self.context_size)

    def _loader_nodes(self) -> int:
        return self.num_nodes_dict[self.metapath[0][0]]

    def extra_repr(self) -> str:
        return f"{self.dummy_idx}, {self.embedding_dim}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> MetaPath2Vec:
    """PyG's ``MetaPath2Vec`` with its embedding table and its graph (``rowptr_dict`` /
    ``col_dict``)."""
    import torch

    from arraygnn.nn.weights import _dtype_of

    edges = {}
    for e, rowptr in module.rowptr_dict.items():
        rowptr = rowptr.cpu()
        row = torch.repeat_interleave(torch.arange(rowptr.numel() - 1), rowptr.diff())
        edges[e] = np.stack([row.numpy(), module.col_dict[e].cpu().numpy()]).astype(np.int64)
    model = MetaPath2Vec(
        edges,
        module.embedding_dim,
        module.metapath,
        module.walk_length,
        module.context_size,
        module.walks_per_node,
        module.num_negative_samples,
        num_nodes_dict=dict(module.num_nodes_dict),
        sparse=bool(module.embedding.sparse),
        dtype=_dtype_of(module),
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
