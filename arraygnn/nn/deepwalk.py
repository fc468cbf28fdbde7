"""DGL's ``DeepWalk`` (Perozzi et al., 2014) at inference: the two embedding tables, the
random-walk ``sample`` (the ``collate_fn`` of DGL's data loader) and the skip-gram loss
of a batch of walks (the module's forward), on arrays.

Positive pairs are the walk positions at most ``window_size`` apart (DGL's pair lists,
in its order); each pair's centre node also meets ``negative_size`` negative contexts:
with ``fast_neg`` other positions of the same batch of walks (DGL's shuffled list of
``negative_size * 2 * window_size`` copies of every position, cut to length), otherwise
nodes drawn with probability ``out_degree ** 0.75`` (with replacement). The scores are
dot products of ``node_embed`` rows with ``context_embed`` rows, one SDDMM over the node
pairs (:func:`arraygnn.ops.sddmm`): no ``(pairs, emb_dim)`` array is gathered.

The walks are :func:`arraygnn.random_walks.random_walk`'s (``-1`` after a node without
out-edges, as DGL's); the same ``seed`` gives the same walks and negatives, the numbers
differ from DGL's (another generator). Pass ``negatives`` to score chosen negatives.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])), num_nodes=4)
>>> model = DeepWalk(g, emb_dim=8, walk_length=4, window_size=2, rng=0)
>>> walks = model.sample(np.array([0, 1, 2]), seed=0)
>>> walks.shape
(3, 4)
>>> round(float(model(walks, seed=0)), 4)  # context_embed starts at 0: 6 * log(2)
4.1589
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._module import layer_size
from arraygnn.nn._skipgram import seeded
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import _rng
from arraygnn.nn.node2vec import check_start

__all__ = ["DeepWalk"]

#: DGL clamps every pair score to [-6, 6] before the log-sigmoid
CLAMP = 6.0


def window_pairs(walk_length: int, window_size: int) -> tuple[np.ndarray, np.ndarray]:
    """DGL's ``(idx_list_src, idx_list_dst)``: every position ``j`` with
    ``0 < |i - j| <= window_size``, for ``i`` in order, ``j`` ascending."""
    pos = np.arange(walk_length)
    gap = np.abs(pos[None, :] - pos[:, None])
    dst, src = np.nonzero((gap > 0) & (gap <= window_size))  # row-major: by i, then j
    return src.astype(np.int64), dst.astype(np.int64)


def neg_log_sigmoid(x: Any) -> Any:
    """``-logsigmoid(x)`` as torch computes it: ``-min(x, 0) + log1p(exp(-|x|))``."""
    xp = get_namespace(x)
    return xp.log1p(xp.exp(-xp.abs(x))) - xp.minimum(x, 0)


def _mean(values: Any) -> Any:
    """``values.mean()``; NaN for no values (torch's mean of an empty tensor), no warning."""
    if values.shape[0] == 0:
        return get_namespace(values).asarray(np.nan, dtype=values.dtype)
    return values.mean()


class DeepWalk(DGLModule):
    """DGL's ``DeepWalk(g, emb_dim=128, walk_length=40, window_size=5, neg_weight=1,
    negative_size=5, fast_neg=True, sparse=True)``.

    Args:
        g: a CPU :class:`arraygnn.graph.Graph` with one node and one edge type.
        emb_dim: size of each embedding row.
        walk_length: nodes per walk (``>= window_size + 1``, DGL's assertion).
        window_size: the largest position gap of a positive pair.
        neg_weight: weight of the negative term in the loss.
        negative_size: negative contexts per positive pair.
        fast_neg: draw the negatives from the batch's own walk positions.
        sparse: accepted and kept (torch's sparse gradients; nothing at inference).

    Methods: ``sample(indices, seed=None)`` ``(len(indices), walk_length)`` walks from
    ``indices``; ``model(batch_walk, seed=None, negatives=None)`` the loss (a 0-d array;
    NaN for an empty batch, as torch's mean). ``negatives`` fixes the negative contexts:
    ``(B * P * negative_size,)`` positions in the flattened ``batch_walk`` with
    ``fast_neg``, node ids without (``P`` positive pairs per walk, ``B`` walks).

    Initial tables: ``node_embed`` uniform in ``+-1 / emb_dim``, ``context_embed`` zeros
    (DGL's ``reset_parameters``). Names: ``node_embed.weight``, ``context_embed.weight``
    ``(num_nodes, emb_dim)``.
    """

    _child_names = ("node_embed", "context_embed")

    def __init__(
        self,
        g: Any,
        emb_dim: int = 128,
        walk_length: int = 40,
        window_size: int = 5,
        neg_weight: float = 1,
        negative_size: int = 5,
        fast_neg: bool = True,
        sparse: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        from arraygnn.graph.core import Graph

        name = "DeepWalk"
        if not isinstance(g, Graph):
            raise TypeError(f"{name}: g must be an arraygnn Graph, got {type(g).__name__}")
        if len(g.ntypes) != 1 or len(g.canonical_etypes) != 1 or g.is_block:
            raise ValueError(f"{name}: g must have one node type and one edge type (not a block)")
        self.g = g
        self.emb_dim = layer_size(name, "emb_dim", emb_dim)
        self.walk_length = layer_size(name, "walk_length", walk_length, minimum=1)
        self.window_size = layer_size(name, "window_size", window_size)
        if self.walk_length < self.window_size + 1:
            raise ValueError(
                f"{name}: walk_length must be >= window_size + 1, got {walk_length} and "
                f"{self.window_size + 1}"
            )
        if isinstance(neg_weight, (bool, np.bool_)) or not isinstance(
            neg_weight, (int, float, np.integer, np.floating)
        ):
            raise TypeError(f"{name}: neg_weight must be a number, got {neg_weight!r}")
        self.neg_weight = float(neg_weight)
        self.negative_size = layer_size(name, "negative_size", negative_size)
        self.fast_neg, self.sparse = bool(fast_neg), bool(sparse)
        self.num_nodes = int(g.num_nodes())
        gen = _rng(rng)
        dt = np.dtype(dtype)
        if dt.kind != "f":
            raise TypeError(f"{name}: dtype must be floating point, got {dt}")
        bound = 1.0 / self.emb_dim if self.emb_dim else 0.0
        self.node_embed = _Embedding(0, self.emb_dim, gen, dt)
        self.node_embed.weight = gen.uniform(-bound, bound, (self.num_nodes, self.emb_dim)).astype(
            dt
        )
        self.context_embed = _Embedding(0, self.emb_dim, gen, dt)
        self.context_embed.weight = np.zeros((self.num_nodes, self.emb_dim), dt)
        self.neg_prob = None
        if not self.fast_neg:  # DGL: out_degrees ** 0.75, normalised (float32 in torch)
            deg = to_numpy(g.out_degrees()).astype(np.float64) ** 0.75
            self.neg_prob = deg / deg.sum() if deg.sum() > 0 else deg
        self.idx_list_src, self.idx_list_dst = window_pairs(self.walk_length, self.window_size)

    def sample(self, indices: Any, seed: Any = None) -> Any:
        """Random walks of ``walk_length`` nodes from each of ``indices`` (``-1`` after a
        walk reaches a node without out-edges): DGL's ``collate_fn``."""
        from arraygnn.random_walks import random_walk

        starts = check_start("DeepWalk.sample", indices, self.num_nodes, "indices")
        return random_walk(
            self.g, starts, length=self.walk_length - 1, seed=seeded(seed, "DeepWalk.sample")
        )[0]

    def __call__(self, batch_walk: Any, seed: Any = None, negatives: Any = None) -> Any:
        """The skip-gram loss of the walks ``batch_walk`` ``(B, walk_length)``."""
        from arraygnn import ops
        from arraygnn.ops._common import check_index

        where = "DeepWalk"
        check_index(f"{where}: batch_walk", batch_walk, None, ndim=2)
        if int(batch_walk.shape[1]) != self.walk_length:
            raise ValueError(
                f"{where}: batch_walk must be (B, walk_length={self.walk_length}), got shape "
                f"{tuple(batch_walk.shape)}"
            )
        if batch_walk.size and int(batch_walk.min()) < 0:
            raise ValueError(
                f"{where}: batch_walk holds -1 (a walk stopped at a node without out-edges); "
                "DGL's forward cannot embed it either: add self-loops or drop those walks"
            )
        check_index(f"{where}: batch_walk", batch_walk, self.num_nodes, ndim=2)
        xp = get_namespace(batch_walk, self.node_embed.weight)
        flat = batch_walk.reshape(-1).astype(np.int64)
        size = int(flat.shape[0])  # B * walk_length
        offsets = xp.arange(0, size, self.walk_length, dtype=np.int64)[:, None]
        pos_src = (offsets + xp.asarray(self.idx_list_src)[None, :]).reshape(-1)
        pos_dst = (offsets + xp.asarray(self.idx_list_dst)[None, :]).reshape(-1)
        neg_src = xp.repeat(pos_dst, self.negative_size)
        neg_nodes = self._negatives(flat, int(neg_src.shape[0]), seed, negatives, xp)
        node, ctx = self.node_embed.weight, self.context_embed.weight
        pos = ops.sddmm(xp.stack([flat[pos_src], flat[pos_dst]]), node, ctx, op="dot")[:, 0]
        neg = ops.sddmm(xp.stack([flat[neg_src], neg_nodes]), node, ctx, op="dot")[:, 0]
        pos_loss = _mean(neg_log_sigmoid(xp.clip(pos, -CLAMP, CLAMP)))
        neg_loss = _mean(neg_log_sigmoid(-xp.clip(neg, -CLAMP, CLAMP)))
        scale = node.dtype.type(self.negative_size * self.neg_weight)
        return pos_loss + neg_loss * scale

    def _negatives(self, flat: Any, count: int, seed: Any, negatives: Any, xp: Any) -> Any:
        """The negative context node of each negative pair."""
        from arraygnn.ops._common import check_index

        where = "DeepWalk"
        size = int(flat.shape[0])
        if negatives is not None:
            bound = size if self.fast_neg else self.num_nodes
            what = "positions in the flattened walks" if self.fast_neg else "node ids"
            check_index(f"{where}: negatives ({what})", negatives, bound)
            if int(negatives.shape[0]) != count:
                raise ValueError(
                    f"{where}: negatives must hold {count} {what}, got {negatives.shape[0]}"
                )
            return flat[negatives] if self.fast_neg else negatives.astype(np.int64)
        gen = seeded(seed, where)
        if self.fast_neg:  # DGL: shuffle negative_size * 2 * window_size copies, cut
            copies = self.negative_size * self.window_size * 2
            picks = gen.permutation(np.tile(np.arange(size, dtype=np.int64), copies))[:count]
            return flat[xp.asarray(picks)]
        if count and not self.neg_prob.sum() > 0:
            raise ValueError(
                f"{where}: fast_neg=False draws negatives by out-degree, but no node of g "
                "has an out-edge"
            )
        picks = gen.choice(self.num_nodes, size=count, p=self.neg_prob) if count else []
        return xp.asarray(np.asarray(picks, dtype=np.int64))

    def extra_repr(self) -> str:
        return (
            f"{self.num_nodes}, emb_dim={self.emb_dim}, walk_length={self.walk_length}, "
            f"window_size={self.window_size}, negative_size={self.negative_size}, "
            f"fast_neg={self.fast_neg}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DeepWalk:
    """DGL's ``DeepWalk`` with its tables, settings and graph (``module.g``'s edges)."""
    from arraygnn.graph import graph
    from arraygnn.nn.weights import _load

    src, dst = (t.detach().cpu().numpy() for t in module.g.edges())
    g = graph((src, dst), num_nodes=int(module.g.num_nodes()))
    model = DeepWalk(
        g,
        emb_dim=module.emb_dim,
        walk_length=module.walk_length,
        window_size=module.window_size,
        neg_weight=module.neg_weight,
        negative_size=module.negative_size,
        fast_neg=module.fast_neg,
        sparse=bool(module.node_embed.sparse),
        dtype=dtype,
    )
    return _load(model, module, "dgl")
