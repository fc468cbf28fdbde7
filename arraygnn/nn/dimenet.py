"""PyG's ``DimeNet`` (Gasteiger et al., 2020) and ``DimeNetPlusPlus`` (2020) at
inference, with their pieces from ``torch_geometric.nn.models.dimenet``: ``triplets``,
``EmbeddingBlock``, ``ResidualLayer``, ``InteractionBlock`` / ``InteractionPPBlock``,
``OutputBlock`` / ``OutputPPBlock`` (the bases live in :mod:`arraygnn.nn.dimenet_basis`).

Atoms closer than ``cutoff`` are linked (:func:`arraygnn.utils.radius_graph`, at most
``max_num_neighbors`` per atom, the nearest); every edge ``j -> i`` carries a message,
and a triplet ``k -> j -> i`` (``k != i``) passes the message of edge ``k -> j`` on to
edge ``j -> i``, weighted by the spherical basis of the distance ``d_kj`` and the angle
at ``j``. The readout sums the atoms' outputs per molecule.

How it runs (the order of float sums differs from PyG's, the results agree to rounding):

- ``triplets`` sorts the edges once by (target, source) and lists, for each edge ``j ->
  i`` in order, the edges into ``j`` (vectorised: one ``argsort``, one ``repeat``; no
  per-edge Python).
- The triplet sums run over the triplet graph (edge ``k -> j`` to edge ``j -> i``), its
  CSR built once per forward pass and shared by the blocks. DimeNet's bilinear layer
  ``einsum('wj,wl,ijl->wi', sbf, x_kj[idx_kj], W)`` is applied to the edges first (``x_kj
  @ W``: ``[E, num_bilinear, hidden]``) and summed per triplet by one fused SpMM with
  ``sbf`` as per-head weights: ``E`` instead of ``T`` products of size ``hidden^2
  num_bilinear``, no ``[T, hidden]`` array. DimeNet++ multiplies ``[T, int_emb_size]``
  messages (its basis is that size already) and sums them per edge.
- The embedding block's ``lin(cat[x_i, x_j, rbf])`` projects the atoms, not the edges.

RULE: with ``batch``, ``batch_size`` (the number of molecules) left out is
      ``batch.max() + 1``, as PyG (pass it to keep trailing empty molecules). Without
      ``batch`` the atoms are one molecule and the result is ``(out_channels,)`` (PyG's
      ``P.sum(dim=0)``).

PyG's ``from_qm9_pretrained`` (a download plus TensorFlow checkpoints) is not provided:
load such a model in PyG and convert it with ``from_pyg``.

>>> import numpy as np
>>> model = DimeNetPlusPlus(8, 1, 1, 4, 2, 8, num_spherical=3, num_radial=2,
...                         cutoff=3.0, output_initializer="glorot_orthogonal", rng=0)
>>> z = np.array([1, 6, 8, 1, 1])
>>> pos = np.random.default_rng(0).random((5, 3)).astype(np.float32)
>>> model(z, pos, np.array([0, 0, 0, 1, 1]), batch_size=2).shape
(2, 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dimenet_basis import BesselBasisLayer, SphericalBasisLayer
from arraygnn.nn.dimenet_blocks import (
    NUM_ELEMENTS,
    EmbeddingBlock,
    InteractionBlock,
    InteractionPPBlock,
    OutputBlock,
    OutputPPBlock,
    ResidualLayer,
    _act,
)
from arraygnn.nn.linear import _ModuleList, _rng

__all__ = [
    "DimeNet",
    "DimeNetPlusPlus",
    "EmbeddingBlock",
    "ResidualLayer",
    "InteractionBlock",
    "InteractionPPBlock",
    "OutputBlock",
    "OutputPPBlock",
    "triplets",
]


def triplets(edge_index: Any, num_nodes: int) -> tuple[Any, ...]:
    """PyG's DimeNet ``triplets(edge_index, num_nodes)``: ``(i, j, idx_i, idx_j, idx_k,
    idx_kj, idx_ji)`` for the edges ``j -> i`` (``edge_index[0]`` the sources ``j``),
    every triplet ``k -> j -> i`` with ``k != i``, in PyG's order (by edge ``j -> i``,
    then by ``k``); ``idx_kj`` / ``idx_ji`` are edge ids. int64 arrays on ``edge_index``'s
    device (on CuPy the number of triplets is read back to the host: it sizes the
    result)."""
    from arraygnn.ops._common import check_index, check_size

    n = check_size("triplets: num_nodes", num_nodes)
    check_index("triplets: edge_index", edge_index, n, ndim=2)
    if edge_index.shape[0] != 2:
        raise ValueError(f"triplets: edge_index must have shape (2, E), got {edge_index.shape}")
    xp = get_namespace(edge_index)
    row = edge_index[0].astype(np.int64)  # j
    col = edge_index[1].astype(np.int64)  # i
    e = int(row.shape[0])
    order = xp.argsort(col * max(n, 1) + row, kind="stable")  # edges by (target, source)
    indptr = xp.zeros(n + 1, np.int64)
    if e:  # CuPy's bincount reads col.max(): it fails on no edges
        indptr[1:] = xp.cumsum(xp.bincount(col, minlength=n))
    counts = indptr[row + 1] - indptr[row]  # edges k -> j for each edge j -> i
    idx_ji = repeat_counts(xp, xp.arange(e, dtype=np.int64), counts)
    first = xp.cumsum(counts) - counts  # each edge's first triplet
    slot = xp.arange(idx_ji.shape[0], dtype=np.int64) + repeat_counts(
        xp, indptr[row] - first, counts
    )
    idx_kj = order[slot]
    idx_i, idx_j, idx_k = col[idx_ji], row[idx_ji], row[idx_kj]
    keep = idx_i != idx_k
    idx_i, idx_j, idx_k, idx_kj, idx_ji = (a[keep] for a in (idx_i, idx_j, idx_k, idx_kj, idx_ji))
    return col, row, idx_i, idx_j, idx_k, idx_kj, idx_ji


class DimeNet(Module):
    """PyG's ``DimeNet``.

    Args:
        hidden_channels, out_channels, num_blocks, num_bilinear, num_spherical (at least
            2), num_radial (at most 64), cutoff, max_num_neighbors, envelope_exponent,
            num_before_skip, num_after_skip, num_output_layers: PyG's (defaults ``cutoff
            5.0``, ``max_num_neighbors 32``, ``envelope_exponent 5``, ``1``, ``2``, ``3``).
        act: ``'swish'`` (PyG's default), or a name / callable as
            :func:`arraygnn.nn.linear.resolve_act` takes.
        output_initializer: ``'zeros'`` (PyG's default: a fresh model outputs 0) or
            ``'glorot_orthogonal'`` (here Glorot-uniform: fresh weights are not PyG's).

    Call as ``model(z, pos, batch=None, batch_size=None)`` with ``z`` ``(N,)`` atomic
    numbers in ``[0, 95)`` and ``pos`` ``(N, 3)`` in the model's dtype -> ``(B,
    out_channels)``, or ``(out_channels,)`` without ``batch``. A molecule without atoms
    gives a zero row; an atom with no neighbour within ``cutoff`` adds only its output
    blocks' biases (passed through their layers), as in PyG.

    Names (PyG's): ``rbf.freq``, ``emb.*``, ``output_blocks.b.*``,
    ``interaction_blocks.b.*``.
    """

    _child_names = ("rbf", "sbf", "emb", "output_blocks", "interaction_blocks")
    _name = "DimeNet"

    def __init__(
        self,
        hidden_channels: int,
        out_channels: int,
        num_blocks: int,
        num_bilinear: int,
        num_spherical: int,
        num_radial: int,
        cutoff: float = 5.0,
        max_num_neighbors: int = 32,
        envelope_exponent: int = 5,
        num_before_skip: int = 1,
        num_after_skip: int = 2,
        num_output_layers: int = 3,
        act: Any = "swish",
        output_initializer: str = "zeros",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = self._name
        self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels, 1)
        self.out_channels = layer_size(name, "out_channels", out_channels, 1)
        self.num_blocks = layer_size(name, "num_blocks", num_blocks)
        if layer_size(name, "num_spherical", num_spherical) < 2:
            raise ValueError(f"{name}: num_spherical must be at least 2, got {num_spherical}")
        if isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (int, float, np.number)):
            raise TypeError(f"{name}: cutoff must be a number, got {cutoff!r}")
        self.cutoff = float(cutoff)
        if not self.cutoff > 0:
            raise ValueError(f"{name}: cutoff must be positive, got {cutoff}")
        self.max_num_neighbors = layer_size(name, "max_num_neighbors", max_num_neighbors, 1)
        for what, value in (
            ("num_before_skip", num_before_skip), ("num_after_skip", num_after_skip),
            ("num_output_layers", num_output_layers),
        ):  # fmt: skip
            layer_size(name, what, value)  # PyG's range(-1) builds none silently
        self.act = _act(name, act)
        gen = _rng(rng)
        self.rbf = BesselBasisLayer(num_radial, cutoff, envelope_exponent, dtype=dtype)
        self.sbf = SphericalBasisLayer(num_spherical, num_radial, cutoff, envelope_exponent)
        self.emb = EmbeddingBlock(num_radial, hidden_channels, self.act, dtype=dtype, rng=gen)
        self._build_blocks(
            num_bilinear, num_spherical, num_radial, num_before_skip, num_after_skip,
            num_output_layers, output_initializer, dtype, gen,
        )  # fmt: skip

    def _build_blocks(
        self, num_bilinear: int, num_spherical: int, num_radial: int, before: int,
        after: int, layers: int, init: str, dtype: Any, gen: Any,
    ) -> None:  # fmt: skip
        hid, act = self.hidden_channels, self.act
        self.output_blocks = _ModuleList(
            [
                OutputBlock(num_radial, hid, self.out_channels, layers, act, init,
                            dtype=dtype, rng=gen)
                for _ in range(self.num_blocks + 1)
            ]
        )  # fmt: skip
        self.interaction_blocks = _ModuleList(
            [
                InteractionBlock(hid, num_bilinear, num_spherical, num_radial, before, after,
                                 act, dtype=dtype, rng=gen)
                for _ in range(self.num_blocks)
            ]
        )  # fmt: skip

    def _angles(self, pos: Any, idx_i: Any, idx_j: Any, idx_k: Any) -> Any:
        """DimeNet: the angle at ``i`` between ``j - i`` and ``k - i`` (PyG's)."""
        from arraygnn import ops

        p_i = ops.gather(pos, idx_i)
        return _angle(ops.gather(pos, idx_j) - p_i, ops.gather(pos, idx_k) - p_i)

    def __call__(self, z: Any, pos: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        from arraygnn import ops
        from arraygnn.nn._pool_input import check_batch
        from arraygnn.ops._common import check_index
        from arraygnn.utils import radius_graph

        name = self._name
        weight = self.emb.emb.weight
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
        if batch is None:
            if batch_size not in (None, 1):
                raise ValueError(f"{name}: without batch the atoms are one molecule")
        else:
            batch_size = check_batch(name, batch, batch_size, n)
        edge_index = radius_graph(
            pos, r=self.cutoff, batch=batch, max_num_neighbors=self.max_num_neighbors,
            batch_size=None if batch is None else batch_size,
        )  # fmt: skip
        i, j, idx_i, idx_j, idx_k, idx_kj, idx_ji = triplets(edge_index, n)
        e = int(i.shape[0])
        diff = ops.sddmm(edge_index, pos, pos, op="sub")  # pos[j] - pos[i]
        dist = xp.sqrt((diff * diff).sum(axis=-1))
        angle = self._angles(pos, idx_i, idx_j, idx_k)
        rbf = self.rbf(dist)
        sbf = self.sbf(dist, angle, idx_kj)
        csr = ops.to_csr((idx_kj, idx_ji), e, e)  # the triplet graph, shared by the blocks
        x = self.emb(z, rbf, i, j)
        out = self.output_blocks[0](x, rbf, i, n)
        for block, output in zip(self.interaction_blocks, list(self.output_blocks)[1:]):
            x = block(x, rbf, sbf, idx_kj, idx_ji, csr)
            out = out + output(x, rbf, i, n)
        if batch is None:
            return out.sum(axis=0)
        return ops.scatter(out, batch, batch_size)

    def extra_repr(self) -> str:
        return (
            f"hidden_channels={self.hidden_channels}, out_channels={self.out_channels}, "
            f"num_blocks={self.num_blocks}, cutoff={self.cutoff:g}"
        )


class DimeNetPlusPlus(DimeNet):
    """PyG's ``DimeNetPlusPlus(hidden_channels, out_channels, num_blocks, int_emb_size,
    basis_emb_size, out_emb_channels, num_spherical, num_radial, cutoff=5.0,
    max_num_neighbors=32, envelope_exponent=5, num_before_skip=1, num_after_skip=2,
    num_output_layers=3, act='swish', output_initializer='zeros')``: :class:`DimeNet` with
    :class:`InteractionPPBlock` / :class:`OutputPPBlock` and the angle at ``j`` (between
    ``i - j`` and ``j - k``, PyG's). Called as :class:`DimeNet`.
    """

    _name = "DimeNetPlusPlus"

    def __init__(
        self,
        hidden_channels: int,
        out_channels: int,
        num_blocks: int,
        int_emb_size: int,
        basis_emb_size: int,
        out_emb_channels: int,
        num_spherical: int,
        num_radial: int,
        cutoff: float = 5.0,
        max_num_neighbors: int = 32,
        envelope_exponent: int = 5,
        num_before_skip: int = 1,
        num_after_skip: int = 2,
        num_output_layers: int = 3,
        act: Any = "swish",
        output_initializer: str = "zeros",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = self._name
        self.int_emb_size = layer_size(name, "int_emb_size", int_emb_size, 1)
        self.basis_emb_size = layer_size(name, "basis_emb_size", basis_emb_size, 1)
        self.out_emb_channels = layer_size(name, "out_emb_channels", out_emb_channels, 1)
        super().__init__(
            hidden_channels, out_channels, num_blocks, 1, num_spherical, num_radial, cutoff,
            max_num_neighbors, envelope_exponent, num_before_skip, num_after_skip,
            num_output_layers, act, output_initializer, dtype=dtype, rng=rng,
        )  # fmt: skip

    def _build_blocks(
        self, num_bilinear: int, num_spherical: int, num_radial: int, before: int,
        after: int, layers: int, init: str, dtype: Any, gen: Any,
    ) -> None:  # fmt: skip
        hid, act = self.hidden_channels, self.act
        self.output_blocks = _ModuleList(
            [
                OutputPPBlock(num_radial, hid, self.out_emb_channels, self.out_channels,
                              layers, act, init, dtype=dtype, rng=gen)
                for _ in range(self.num_blocks + 1)
            ]
        )  # fmt: skip
        self.interaction_blocks = _ModuleList(
            [
                InteractionPPBlock(hid, self.int_emb_size, self.basis_emb_size, num_spherical,
                                   num_radial, before, after, act, dtype=dtype, rng=gen)
                for _ in range(self.num_blocks)
            ]
        )  # fmt: skip

    def _angles(self, pos: Any, idx_i: Any, idx_j: Any, idx_k: Any) -> Any:
        """DimeNet++: the angle between ``i - j`` and ``j - k`` (PyG's)."""
        from arraygnn import ops

        p_j = ops.gather(pos, idx_j)
        return _angle(ops.gather(pos, idx_i) - p_j, p_j - ops.gather(pos, idx_k))

    def extra_repr(self) -> str:
        return super().extra_repr() + f", int_emb_size={self.int_emb_size}"


def _angle(u: Any, v: Any) -> Any:
    """``atan2(|u x v|, u . v)`` per row of two ``(T, 3)`` arrays (PyG's angle)."""
    xp = get_namespace(u, v)
    a = (u * v).sum(axis=-1)
    cx = u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1]
    cy = u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2]
    cz = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    b = xp.sqrt(cx * cx + cy * cy + cz * cz)
    return xp.arctan2(b, a)


def _pyg_act(module: Any) -> Any:
    """The activation a PyG DimeNet block holds, as ours: PyG's ``swish``, ``SiLU`` or
    ``F.silu`` -> ``'swish'``; others through ``weights._activation``."""
    import torch

    from arraygnn.nn.weights import _activation

    act = module.emb.act
    name = getattr(act, "__name__", None)
    is_pyg_swish = name == "swish" and str(getattr(act, "__module__", "")).startswith(
        "torch_geometric"
    )
    if is_pyg_swish or isinstance(act, torch.nn.SiLU) or act is torch.nn.functional.silu:
        return "swish"
    return _activation(act, f"from_pyg: {type(module).__name__}")


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> DimeNet:
    """PyG's ``DimeNet`` / ``DimeNetPlusPlus`` with every weight, the sizes read off the
    module, its cutoffs, envelope exponent, ``max_num_neighbors`` and activation."""
    from arraygnn.nn.weights import _dtype_of

    plus = type(module).__name__ == "DimeNetPlusPlus"
    outs, blocks = module.output_blocks, module.interaction_blocks
    first = blocks[0] if len(blocks) else None
    common = {
        "cutoff": float(module.cutoff),
        "max_num_neighbors": int(module.max_num_neighbors),
        "envelope_exponent": int(module.rbf.envelope.p) - 1,
        "num_before_skip": len(first.layers_before_skip) if first is not None else 1,
        "num_after_skip": len(first.layers_after_skip) if first is not None else 2,
        "num_output_layers": len(outs[0].lins),
        "act": _pyg_act(module),
        "output_initializer": getattr(outs[0], "output_initializer", "zeros"),
        "dtype": _dtype_of(module),
    }
    hid = int(module.emb.emb.embedding_dim)
    sizes = (hid, int(outs[0].lin.out_features), int(module.num_blocks))
    sph, rad = int(module.sbf.num_spherical), int(module.sbf.num_radial)
    if plus:
        model: DimeNet = DimeNetPlusPlus(
            *sizes,
            int(first.lin_down.out_features) if first is not None else 1,
            int(first.lin_rbf1.out_features) if first is not None else 1,
            int(outs[0].lin_up.out_features),
            sph, rad, **common,
        )  # fmt: skip
    else:
        model = DimeNet(
            *sizes, int(first.W.shape[1]) if first is not None else 1, sph, rad, **common
        )
    model.load_state_dict(dict(module.state_dict()), format="pyg")
    model.rbf.cutoff = float(module.rbf.cutoff)
    model.sbf.cutoff = float(module.sbf.cutoff)
    model.sbf.envelope = type(model.sbf.envelope)(int(module.sbf.envelope.p) - 1)
    return model
