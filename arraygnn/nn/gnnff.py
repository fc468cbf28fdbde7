"""PyG's ``GNNFF`` (Park et al., "Accurate and scalable graph neural network force field
and molecular dynamics with direct force architecture", 2021) at inference: atomic forces
predicted directly from edge messages.

Atoms closer than ``cutoff`` are linked (:func:`arraygnn.utils.radius_graph`); each edge
``j -> i`` has a Gaussian-expanded length, node blocks update the atoms from their edges,
edge blocks update the edges from their two atoms and from the triplets ``k -> j -> i``
(:func:`arraygnn.nn.dimenet.triplets`); the force on atom ``i`` is the sum over its edges
of ``force_predictor(edge) * (pos_i - pos_j) / |pos_i - pos_j|``.

How it runs: the linear layers over concatenations (``lin_c1(cat[node_i, edge])``,
``lin_c3(cat[node_i, node_j, node_k, edge_ji, edge_kj])``) are split by input block and
applied to the atoms and edges first, then gathered (``E`` / ``T`` rows of sums instead of
the concatenated ``[E, Hn + He]`` / ``[T, 3 Hn + 2 He]`` inputs); the gated triplet
messages (sigmoid * tanh, one ``[T, He]`` array: the gate is not linear) are summed per
edge by ``arraygnn.ops.scatter``; the per-edge force by one more scatter. Batch norms use
their running statistics.

RULE: the result has one row per atom (``(N, 3)``); an atom without a neighbour within the
      cutoff gets a zero force. PyG's ``scatter`` has no ``dim_size`` there, so PyG's result
      stops at the last atom that has a neighbour (a structure without edges gives
      ``(0, 3)``); arraygnn never sizes an output from ``max() + 1`` (DESIGN.md), and the
      rows PyG returns are equal.

>>> import numpy as np
>>> model = GNNFF(8, 6, num_layers=2, cutoff=3.0, rng=0)
>>> z = np.array([1, 6, 8, 1])
>>> pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.5]], np.float32)
>>> model(z, pos).shape
(4, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.dimenet import triplets
from arraygnn.nn.linear import (
    BatchNorm,
    Linear,
    Sequential,
    _ModuleList,
    _rng,
    _sigmoid,
    matmul,
)
from arraygnn.nn.schnet import GaussianSmearing, ShiftedSoftplus

__all__ = ["GNNFF"]

#: the atomic numbers the embedding table covers (PyG's ``Embedding(95, hidden)``)
NUM_ELEMENTS = 95


class _AtomEmbedding(_Embedding):
    """``torch.nn.Embedding(95, hidden)`` looked up by atomic number."""

    def __call__(self, z: Any) -> Any:
        return ops.gather(self.weight, z)


def _split_linear(lin: Linear, sizes: list[int]) -> list[Any]:
    """The column blocks of ``lin.weight`` for an input concatenated from ``sizes``."""
    out, start = [], 0
    for size in sizes:
        out.append(lin.weight[:, start : start + size])
        start += size
    return out


def _gate(h: Any) -> Any:
    """``sigmoid(filter) * tanh(core)`` of ``h = [filter | core]``."""
    half = h.shape[1] // 2
    return _sigmoid(h[:, :half]) * get_namespace(h).tanh(h[:, half:])


class _NodeBlock(Module):
    _child_names = ("lin_c1", "bn_c1", "bn")

    def __init__(self, hn: int, he: int, gen: Any, dtype: Any) -> None:
        self.hn, self.he = hn, he
        self.lin_c1 = Linear(hn + he, 2 * hn, dtype=dtype, rng=gen)
        self.bn_c1 = BatchNorm(2 * hn, dtype=dtype)
        self.bn = BatchNorm(hn, dtype=dtype)

    def __call__(self, node: Any, edge: Any, i: Any) -> Any:
        xp = get_namespace(node)
        w_node, w_edge = _split_linear(self.lin_c1, [self.hn, self.he])
        c1 = ops.gather(matmul(node, w_node.T), i) + matmul(edge, w_edge.T) + self.lin_c1.bias
        c1 = _gate(self.bn_c1(c1))
        return xp.tanh(node + self.bn(ops.scatter(c1, i, int(node.shape[0]))))


class _EdgeBlock(Module):
    _child_names = ("lin_c2", "lin_c3", "bn_c2", "bn_c3", "bn_c2_2", "bn_c3_2")

    def __init__(self, hn: int, he: int, gen: Any, dtype: Any) -> None:
        self.hn, self.he = hn, he
        self.lin_c2 = Linear(hn, 2 * he, dtype=dtype, rng=gen)
        self.lin_c3 = Linear(3 * hn + 2 * he, 2 * he, dtype=dtype, rng=gen)
        self.bn_c2 = BatchNorm(2 * he, dtype=dtype)
        self.bn_c3 = BatchNorm(2 * he, dtype=dtype)
        self.bn_c2_2 = BatchNorm(he, dtype=dtype)
        self.bn_c3_2 = BatchNorm(he, dtype=dtype)

    def __call__(self, node: Any, edge: Any, i: Any, j: Any, idx_kj: Any, idx_ji: Any) -> Any:
        xp = get_namespace(node)
        c2 = self.bn_c2_2(_gate(self.bn_c2(self.lin_c2(ops.gather(node, i) * ops.gather(node, j)))))
        hn, he = self.hn, self.he
        w_i, w_j, w_k, w_ji, w_kj = _split_linear(self.lin_c3, [hn, hn, hn, he, he])
        # node[idx_i] = node[i][idx_ji], node[idx_j] = node[j][idx_ji],
        # node[idx_k] = node[j][idx_kj]
        per_ji = (
            ops.gather(matmul(node, w_i.T), i)
            + ops.gather(matmul(node, w_j.T), j)
            + matmul(edge, w_ji.T)
            + self.lin_c3.bias
        )
        per_kj = ops.gather(matmul(node, w_k.T), j) + matmul(edge, w_kj.T)
        c3 = _gate(self.bn_c3(ops.gather(per_ji, idx_ji) + ops.gather(per_kj, idx_kj)))
        c3 = self.bn_c3_2(ops.scatter(c3, idx_ji, int(edge.shape[0])))
        return xp.tanh(edge + c2 + c3)


class GNNFF(Module):
    """PyG's ``GNNFF(hidden_node_channels, hidden_edge_channels, num_layers, cutoff=5.0,
    max_num_neighbors=32)``.

    Call as ``model(z, pos, batch=None, batch_size=None)`` with ``z`` ``(N,)`` atomic
    numbers in ``[0, 95)``, ``pos`` ``(N, 3)`` in the model's dtype and ``batch`` the
    structure of each atom (atoms of different structures are never linked) -> forces
    ``(N, 3)`` (see the RULE above). Two atoms at the same position give NaN, as
    in PyG (the unit vector divides by the distance 0).

    Names (PyG's): ``node_emb.0.weight`` (the embedding), ``node_emb.2.*``,
    ``node_emb.4.*``, ``edge_emb.offset``, ``node_blocks.{l}.{lin_c1, bn_c1, bn}.*``,
    ``edge_blocks.{l}.{lin_c2, lin_c3, bn_c2, bn_c3, bn_c2_2, bn_c3_2}.*``,
    ``force_predictor.{0, 2, 4}.*``.
    """

    _child_names = ("node_emb", "edge_emb", "node_blocks", "edge_blocks", "force_predictor")

    def __init__(
        self,
        hidden_node_channels: int,
        hidden_edge_channels: int,
        num_layers: int,
        cutoff: float = 5.0,
        max_num_neighbors: int = 32,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        hn = self.hidden_node_channels = layer_size(
            "GNNFF", "hidden_node_channels", hidden_node_channels, 1
        )
        he = self.hidden_edge_channels = layer_size(
            "GNNFF", "hidden_edge_channels", hidden_edge_channels, 2
        )
        self.num_layers = layer_size("GNNFF", "num_layers", num_layers)
        if isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (int, float, np.number)):
            raise TypeError(f"GNNFF: cutoff must be a number, got {cutoff!r}")
        self.cutoff = float(cutoff)
        if not self.cutoff > 0:  # radius_graph links nothing (PyG) or refuses (ours)
            raise ValueError(f"GNNFF: cutoff must be positive, got {cutoff}")
        self.max_num_neighbors = layer_size("GNNFF", "max_num_neighbors", max_num_neighbors, 1)
        gen = _rng(rng)
        kw = {"dtype": dtype, "rng": gen}
        self.node_emb = Sequential(
            _AtomEmbedding(NUM_ELEMENTS, hn, gen, dtype),
            ShiftedSoftplus(),
            Linear(hn, hn, **kw),
            ShiftedSoftplus(),
            Linear(hn, hn, **kw),
        )
        self.edge_emb = GaussianSmearing(0.0, 5.0, he, dtype=dtype)
        self.node_blocks = _ModuleList(
            [_NodeBlock(hn, he, gen, dtype) for _ in range(self.num_layers)]
        )
        self.edge_blocks = _ModuleList(
            [_EdgeBlock(hn, he, gen, dtype) for _ in range(self.num_layers)]
        )
        self.force_predictor = Sequential(
            Linear(he, he, **kw), ShiftedSoftplus(), Linear(he, he, **kw), ShiftedSoftplus(),
            Linear(he, 1, **kw),
        )  # fmt: skip

    def __call__(self, z: Any, pos: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        from arraygnn.nn._pool_input import check_batch
        from arraygnn.ops._common import check_index
        from arraygnn.utils import radius_graph

        name = "GNNFF"
        weight = self.node_emb[0].weight
        xp = get_namespace(z, pos, batch, weight)
        check_index(f"{name}: z", z, NUM_ELEMENTS)
        n = int(z.shape[0])
        if getattr(pos, "ndim", None) != 2 or tuple(pos.shape) != (n, 3):
            raise ValueError(
                f"{name}: pos must have shape ({n}, 3) (a 3-D position per atom), got "
                f"{tuple(getattr(pos, 'shape', ()))}"
            )
        if pos.dtype != weight.dtype:
            raise TypeError(f"{name}: pos must be {weight.dtype} (the model's), got {pos.dtype}")
        if batch is not None:
            batch_size = check_batch(name, batch, batch_size, n)
        elif batch_size not in (None, 1):
            raise ValueError(f"{name}: without batch the atoms are one structure")
        edge_index = radius_graph(
            pos, r=self.cutoff, batch=batch, max_num_neighbors=self.max_num_neighbors,
            batch_size=None if batch is None else batch_size,
        )  # fmt: skip
        i, j, _, _, _, idx_kj, idx_ji = triplets(edge_index, n)
        diff = ops.gather(pos, i) - ops.gather(pos, j)
        dist = xp.sqrt((diff * diff).sum(axis=-1))
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = diff / dist.reshape(-1, 1)
        node = self.node_emb(z)
        edge = self.edge_emb(dist)
        for node_block, edge_block in zip(self.node_blocks, self.edge_blocks):
            node = node_block(node, edge, i)
            edge = edge_block(node, edge, i, j, idx_kj, idx_ji)
        force = self.force_predictor(edge) * unit
        return ops.scatter(force, i, n)  # one row per atom (PyG stops at max(i) + 1)

    def extra_repr(self) -> str:
        return (
            f"hidden_node_channels={self.hidden_node_channels}, hidden_edge_channels="
            f"{self.hidden_edge_channels}, num_layers={self.num_layers}, cutoff={self.cutoff:g}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> GNNFF:
    """PyG's ``GNNFF`` with its weights and batch-norm running statistics."""
    bns = [m for m in module.modules() if type(m).__name__ == "BatchNorm1d"]
    if any(not m.track_running_stats for m in bns):
        raise ValueError(
            "from_pyg: GNNFF batch norms without running statistics cannot run at inference"
        )
    model = GNNFF(
        module.node_emb[0].embedding_dim,
        module.edge_emb.offset.shape[0],
        len(module.node_blocks),
        cutoff=module.cutoff,
        max_num_neighbors=module.max_num_neighbors,
        dtype=dtype,
    )
    for ours, theirs in zip(
        [b for blk in model.node_blocks for b in (blk.bn_c1, blk.bn)]
        + [
            b for blk in model.edge_blocks for b in (blk.bn_c2, blk.bn_c3, blk.bn_c2_2, blk.bn_c3_2)
        ],
        [b for blk in module.node_blocks for b in (blk.bn_c1, blk.bn)]
        + [
            b
            for blk in module.edge_blocks
            for b in (blk.bn_c2, blk.bn_c3, blk.bn_c2_2, blk.bn_c3_2)
        ],
    ):
        ours.eps = float(theirs.eps)
    model.edge_emb.coeff = float(module.edge_emb.coeff)  # from PyG's float32 centres
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
