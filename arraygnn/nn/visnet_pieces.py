"""The geometric and output pieces of PyG's ``ViSNet`` (``torch_geometric.nn.models.visnet``)
at inference: ``CosineCutoff``, ``ExpNormalSmearing``, ``Sphere``, ``VecLayerNorm``,
``Distance``, ``NeighborEmbedding``, ``EdgeEmbedding``, ``GatedEquivariantBlock``,
``EquivariantScalar`` and ``Atomref``. The message passing and the models are in
:mod:`arraygnn.nn.visnet`.

Vector features are ``[N, L, H]`` as PyG's: ``L = (lmax + 1)^2 - 1`` spherical-harmonic
components (3 for ``lmax=1``, 8 for ``lmax=2``) of ``H`` channels.
``Distance`` links atoms of one molecule closer than ``cutoff``
(:func:`arraygnn.utils.radius_graph`, each atom's self-loop included and counted among its
``max_num_neighbors``: the nearest, ties to the lower index; PyG keeps the first ones its
kernel finds, see :class:`Distance`). ``NeighborEmbedding`` sums
``embedding(z)_j * distance_proj(rbf_ji) * C(d_ji)`` over each atom's edges (self-loops
left out) in one SpMM with the ``[E, H]`` filters as per-channel edge weights.

>>> import numpy as np
>>> d = np.array([0.0, 1.0, 2.5, 6.0])
>>> CosineCutoff(5.0)(d).round(3).tolist()
[1.0, 0.905, 0.5, 0.0]
>>> ExpNormalSmearing(5.0, 4, dtype=np.float64)(d).shape
(4, 4)
>>> Sphere(2)(np.array([[0.0, 0.0, 1.0]])).round(3).tolist()
[[0.0, 0.0, 1.0, 0.0, 0.0, -0.5, 0.0, 0.866]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.nn._dgl_common import silu
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import Linear, Sequential, _ModuleList, _rng

__all__ = [
    "CosineCutoff",
    "ExpNormalSmearing",
    "Sphere",
    "VecLayerNorm",
    "Distance",
    "NeighborEmbedding",
    "EdgeEmbedding",
    "GatedEquivariantBlock",
    "EquivariantScalar",
    "Atomref",
]

_VEC_ROWS = {1: 3, 2: 8}  # lmax -> spherical-harmonic components


def check_lmax(layer: str, lmax: Any) -> int:
    """``lmax`` 1 or 2 (PyG's ``Sphere`` has no other degree), else a ``ValueError``."""
    if not isinstance(lmax, (int, np.integer)) or isinstance(lmax, bool) or lmax not in (1, 2):
        raise ValueError(f"{layer}: lmax must be 1 or 2 (spherical harmonics), got {lmax!r}")
    return int(lmax)


class CosineCutoff(Module):
    """PyG's ``CosineCutoff(cutoff)``: ``0.5 (cos(d pi / cutoff) + 1)`` below ``cutoff``,
    0 from it on. Shapes: any -> the same."""

    def __init__(self, cutoff: float) -> None:
        self.cutoff = float(cutoff)

    def __call__(self, distances: Any) -> Any:
        xp = get_namespace(distances)
        out = 0.5 * (xp.cos(distances * math.pi / self.cutoff) + 1.0)
        return out * (distances < self.cutoff)

    def extra_repr(self) -> str:
        return f"cutoff={self.cutoff:g}"


class ExpNormalSmearing(Module):
    """PyG's ``ExpNormalSmearing(cutoff=5.0, num_rbf=128, trainable=True)``:
    ``C(d) exp(-betas (exp(-alpha d) - means)^2)`` with ``alpha = 5 / cutoff`` and
    ``C`` the :class:`CosineCutoff`. Names: ``means``, ``betas`` (``num_rbf``,).

    Shapes: ``(*)`` distances -> ``(*, num_rbf)``.
    """

    _buffer_names = ("means", "betas")

    def __init__(
        self,
        cutoff: float = 5.0,
        num_rbf: int = 128,
        trainable: bool = True,
        *,
        dtype: Any = np.float32,
    ) -> None:
        self.cutoff = float(cutoff)
        self.num_rbf = layer_size("ExpNormalSmearing", "num_rbf", num_rbf, minimum=1)
        self.trainable = bool(trainable)
        self.cutoff_fn = CosineCutoff(self.cutoff)
        self.alpha = 5.0 / self.cutoff
        start = float(np.exp(np.float32(-self.cutoff)))  # torch.exp(torch.tensor(-cutoff))
        self.means = np.linspace(start, 1.0, self.num_rbf).astype(dtype)
        beta = (2.0 / self.num_rbf * (1.0 - start)) ** -2
        self.betas = np.full(self.num_rbf, beta, dtype=dtype)

    def __call__(self, dist: Any) -> Any:
        xp = get_namespace(dist, self.means)
        d = dist[..., None]
        diff = xp.exp(self.alpha * -d) - self.means
        return self.cutoff_fn(d) * xp.exp(-self.betas * (diff * diff))

    def extra_repr(self) -> str:
        return f"cutoff={self.cutoff:g}, num_rbf={self.num_rbf}"


class Sphere(Module):
    """PyG's ``Sphere(lmax=2)``: real spherical harmonics of degree 1 (``x, y, z``) and,
    for ``lmax=2``, degree 2 (e3nn's component order). Shapes: ``(*, 3)`` -> ``(*, 3)`` or
    ``(*, 8)``."""

    def __init__(self, lmax: int = 2) -> None:
        self.lmax = check_lmax("Sphere", lmax)

    def __call__(self, edge_vec: Any) -> Any:
        xp = get_namespace(edge_vec)
        if edge_vec.ndim < 1 or edge_vec.shape[-1] != 3:
            raise ValueError(
                f"Sphere: edge_vec must be (*, 3) (3-D vectors), got {tuple(edge_vec.shape)}"
            )
        x, y, z = edge_vec[..., 0], edge_vec[..., 1], edge_vec[..., 2]
        if self.lmax == 1:
            return xp.stack([x, y, z], axis=-1)
        s3 = math.sqrt(3.0)
        x2, z2 = x * x, z * z
        parts = [
            x, y, z, s3 * x * z, s3 * x * y, y * y - 0.5 * (x2 + z2), s3 * y * z,
            s3 / 2.0 * (z2 - x2),
        ]  # fmt: skip
        return xp.stack(parts, axis=-1)

    def extra_repr(self) -> str:
        return f"lmax={self.lmax}"


class VecLayerNorm(Module):
    """PyG's ``VecLayerNorm(hidden_channels, trainable, norm_type='max_min')``: vector
    features ``[N, L, H]`` (``L`` 3, or 8 normalised as its 3 + 5 parts) times ``weight``
    ``(H,)``; ``'max_min'`` first rescales each atom's channel norms to ``[0, 1]`` (min-max
    over the channels, directions kept; all-zero input stays zero).

    ``norm_type``: ``'max_min'`` or ``None`` (PyG treats any other string as ``None``;
    ``from_pyg`` maps it so).
    """

    _param_names = ("weight",)

    def __init__(
        self,
        hidden_channels: int,
        trainable: bool = False,
        norm_type: str | None = "max_min",
        *,
        dtype: Any = np.float32,
    ) -> None:
        if norm_type not in (None, "max_min"):
            raise ValueError(
                f"VecLayerNorm: norm_type must be 'max_min' or None, got {norm_type!r}"
            )
        self.hidden_channels = layer_size("VecLayerNorm", "hidden_channels", hidden_channels)
        self.trainable = bool(trainable)
        self.norm_type = norm_type
        self.eps = 1e-12
        self.weight = np.ones(self.hidden_channels, dtype=dtype)

    def max_min_norm(self, vec: Any) -> Any:
        xp = get_namespace(vec)
        dist = xp.sqrt((vec * vec).sum(axis=1, keepdims=True))  # [N, 1, H]
        if not bool(dist.any()):  # all zero (or no atoms)
            return xp.zeros_like(vec)
        dist = xp.maximum(dist, vec.dtype.type(self.eps))
        direct = vec / dist
        lo = dist.min(axis=-1, keepdims=True)
        delta = dist.max(axis=-1, keepdims=True) - lo
        delta = xp.where(delta == 0, xp.ones_like(delta), delta)
        return xp.maximum((dist - lo) / delta, 0) * direct

    def __call__(self, vec: Any) -> Any:
        rows = int(vec.shape[1]) if vec.ndim == 3 else -1
        if rows not in (3, 8) or vec.shape[2] != self.hidden_channels:
            raise ValueError(
                f"VecLayerNorm: vec must be [N, 3 or 8, {self.hidden_channels}], got "
                f"{tuple(vec.shape)}"
            )
        if self.norm_type == "max_min":
            if rows == 3:
                vec = self.max_min_norm(vec)
            else:
                xp = get_namespace(vec)
                parts = (self.max_min_norm(vec[:, :3]), self.max_min_norm(vec[:, 3:]))
                vec = xp.concatenate(parts, axis=1)
        return vec * self.weight

    def extra_repr(self) -> str:
        return f"{self.hidden_channels}, norm_type={self.norm_type!r}"


class Distance(Module):
    """PyG's ``Distance(cutoff, max_num_neighbors=32, add_self_loops=True)``:
    ``(pos, batch=None, batch_size=None) -> (edge_index, edge_weight, edge_vec)`` with the
    radius graph's edges (sorted by target), their lengths and ``pos[src] - pos[dst]``
    (self-loops: length 0, vector 0).

    RULE: where more than ``max_num_neighbors`` atoms (the atom itself included) lie
          within ``cutoff``, the nearest are kept, ties to the lower index, so an atom keeps
          its own self-loop (unless more than ``max_num_neighbors`` atoms share its place).
          PyG's kernels (pyg-lib, as torch_cluster) keep the first ones they find instead: the
          CPU kernel an unspecified subset (its k-d tree order), the CUDA kernel the lowest
          indices, either of which can drop the atom's self-loop; outputs then differ.
    RULE: lengths are in ``pos``' dtype. (PyG's float64 model stores them in torch's default
    dtype, float32 unless changed; arraygnn keeps float64.)
    """

    def __init__(
        self, cutoff: float, max_num_neighbors: int = 32, add_self_loops: bool = True
    ) -> None:
        self.cutoff = float(cutoff)
        self.max_num_neighbors = layer_size(
            "Distance", "max_num_neighbors", max_num_neighbors, minimum=1
        )
        self.add_self_loops = bool(add_self_loops)

    def __call__(self, pos: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        from arraygnn import ops
        from arraygnn.utils import radius_graph

        xp = get_namespace(pos, batch)
        edge_index = radius_graph(
            pos,
            r=self.cutoff,
            batch=batch,
            loop=self.add_self_loops,
            max_num_neighbors=self.max_num_neighbors,
            batch_size=batch_size,
        )
        edge_vec = ops.sddmm(edge_index, pos, pos, op="sub")  # pos[src] - pos[dst]
        return edge_index, xp.sqrt((edge_vec * edge_vec).sum(axis=-1)), edge_vec

    def extra_repr(self) -> str:
        return (
            f"cutoff={self.cutoff:g}, max_num_neighbors={self.max_num_neighbors}, "
            f"add_self_loops={self.add_self_loops}"
        )


def _csr(layer: str, x: Any, edge_index: Any) -> Any:
    """The destination-sorted CSR of ``edge_index`` (or the CSR given) over ``x``'s rows."""
    from arraygnn.nn._graph_input import csr_of, parse_input

    return csr_of(parse_input(layer, x, edge_index))


class NeighborEmbedding(Module):
    """PyG's ``NeighborEmbedding(hidden_channels, num_rbf, cutoff, max_z=100)``:
    ``combine(cat([x, sum_j embedding(z)_j * distance_proj(edge_attr)_ji * C(d_ji)]))``
    over the edges that are not self-loops (one SpMM).

    Call as ``emb(z, x, edge_index, edge_weight, edge_attr)``. Names: ``embedding.weight``,
    ``distance_proj.*``, ``combine.*``.
    """

    _child_names = ("embedding", "distance_proj", "combine")

    def __init__(
        self,
        hidden_channels: int,
        num_rbf: int,
        cutoff: float,
        max_z: int = 100,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        hid = layer_size("NeighborEmbedding", "hidden_channels", hidden_channels)
        self.max_z = layer_size("NeighborEmbedding", "max_z", max_z, minimum=1)
        self.embedding = _Embedding(self.max_z, hid, gen, dtype)
        self.distance_proj = Linear(num_rbf, hid, dtype=dtype, rng=gen)
        self.combine = Linear(2 * hid, hid, dtype=dtype, rng=gen)
        self.cutoff = CosineCutoff(cutoff)

    def __call__(self, z: Any, x: Any, edge_index: Any, edge_weight: Any, edge_attr: Any) -> Any:
        from arraygnn.nn._dgl_common import check_edge_feat
        from arraygnn.ops._common import check_index

        name = "NeighborEmbedding"
        csr = _csr(name, x, edge_index)
        check_index(f"{name}: z", z, self.max_z)
        n, e = int(x.shape[0]), csr.num_edges
        if tuple(z.shape) != (n,):
            raise ValueError(
                f"{name}: z must have shape ({n},) (an atomic number per row of x), got "
                f"{tuple(z.shape)}"
            )
        edge_weight = check_edge_feat(name, "edge_weight", edge_weight, e, 1, x).reshape(-1)
        rbf = int(self.distance_proj.weight.shape[1])
        edge_attr = check_edge_feat(name, "edge_attr", edge_attr, e, rbf, x)
        return self.forward_csr(z, x, csr, edge_weight, edge_attr)

    def forward_csr(self, z: Any, x: Any, csr: Any, edge_weight: Any, edge_attr: Any) -> Any:
        """The call over a CSR of the edges, arguments trusted."""
        from arraygnn import ops

        xp = get_namespace(x, edge_weight)
        keep = self.cutoff(edge_weight) * (csr.src != csr.dst)  # self-loops weigh 0
        w = self.distance_proj(edge_attr) * keep[:, None]
        h = ops.gather(self.embedding.weight, z)
        n, f = int(h.shape[0]), int(h.shape[1])
        nbr = ops.spmm(csr, h.reshape(n, f, 1), edge_weight=w, num_dst_nodes=n)
        return self.combine(xp.concatenate([x, nbr.reshape(n, f)], axis=1))


class EdgeEmbedding(Module):
    """PyG's ``EdgeEmbedding(num_rbf, hidden_channels)``: ``(x_i + x_j) *
    edge_proj(edge_attr)`` per edge ``[E, H]``. Call as ``emb(edge_index, edge_attr, x)``."""

    _child_names = ("edge_proj",)

    def __init__(
        self, num_rbf: int, hidden_channels: int, *, dtype: Any = np.float32, rng: Any = None
    ) -> None:
        self.edge_proj = Linear(num_rbf, hidden_channels, dtype=dtype, rng=_rng(rng))

    def __call__(self, edge_index: Any, edge_attr: Any, x: Any) -> Any:
        from arraygnn import ops
        from arraygnn.nn._dgl_common import check_edge_feat

        csr = _csr("EdgeEmbedding", x, edge_index)
        rbf = int(self.edge_proj.weight.shape[1])
        edge_attr = check_edge_feat("EdgeEmbedding", "edge_attr", edge_attr, csr.num_edges, rbf, x)
        return ops.sddmm(csr, x, x, op="add") * self.edge_proj(edge_attr)


class GatedEquivariantBlock(Module):
    """PyG's ``GatedEquivariantBlock(hidden_channels, out_channels,
    intermediate_channels=None, scalar_activation=False)``: ``(x [N, H], v [N, L, H]) ->
    (x [N, out], v [N, L, out])`` gated by ``update_net(cat([x, |vec1_proj(v)|]))``.

    Names: ``vec1_proj.weight``, ``vec2_proj.weight``, ``update_net.{0,2}.*``.
    """

    _child_names = ("vec1_proj", "vec2_proj", "update_net")

    def __init__(
        self,
        hidden_channels: int,
        out_channels: int,
        intermediate_channels: int | None = None,
        scalar_activation: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        hid = layer_size("GatedEquivariantBlock", "hidden_channels", hidden_channels)
        self.out_channels = layer_size("GatedEquivariantBlock", "out_channels", out_channels)
        mid = hid if intermediate_channels is None else intermediate_channels
        self.vec1_proj = Linear(hid, hid, bias=False, dtype=dtype, rng=gen)
        self.vec2_proj = Linear(hid, self.out_channels, bias=False, dtype=dtype, rng=gen)
        self.update_net = Sequential(
            Linear(2 * hid, mid, dtype=dtype, rng=gen),
            silu,
            Linear(mid, 2 * self.out_channels, dtype=dtype, rng=gen),
        )
        self.scalar_activation = bool(scalar_activation)

    def __call__(self, x: Any, v: Any) -> tuple[Any, Any]:
        xp = get_namespace(x, v)
        name, hid = "GatedEquivariantBlock", int(self.vec1_proj.weight.shape[1])
        if x.ndim != 2 or x.shape[1] != hid:
            raise ValueError(f"{name}: x must be [N, {hid}], got {tuple(x.shape)}")
        if v.ndim != 3 or v.shape[0] != x.shape[0] or v.shape[2] != hid:
            raise ValueError(
                f"{name}: v must be [{int(x.shape[0])}, L, {hid}] (x's rows), got {tuple(v.shape)}"
            )
        p = self.vec1_proj(v)
        vec1 = xp.sqrt((p * p).sum(axis=-2))
        vec2 = self.vec2_proj(v)
        h = self.update_net(xp.concatenate([x, vec1], axis=-1))
        out = self.out_channels
        x, gate = h[:, :out], h[:, out:]
        v = gate[:, None, :] * vec2
        return (silu(x) if self.scalar_activation else x), v


class EquivariantScalar(Module):
    """PyG's ``EquivariantScalar(hidden_channels)``: two :class:`GatedEquivariantBlock`
    (``H -> H // 2`` with SiLU, ``H // 2 -> 1``); ``pre_reduce(x, v)`` -> ``[N, 1]``
    (plus ``0 * v.sum()``, as PyG, so a non-finite ``v`` shows)."""

    _child_names = ("output_network",)

    def __init__(self, hidden_channels: int, *, dtype: Any = np.float32, rng: Any = None) -> None:
        gen = _rng(rng)
        hid = layer_size("EquivariantScalar", "hidden_channels", hidden_channels)
        self.output_network = _ModuleList(
            [
                GatedEquivariantBlock(hid, hid // 2, scalar_activation=True, dtype=dtype, rng=gen),
                GatedEquivariantBlock(hid // 2, 1, dtype=dtype, rng=gen),
            ]
        )

    def pre_reduce(self, x: Any, v: Any) -> Any:
        for block in self.output_network._items:
            x, v = block(x, v)
        return x + v.sum() * 0


class Atomref(Module):
    """PyG's ``Atomref(atomref=None, max_z=100)``: ``x + atomref.weight[z]`` with a
    ``(len(atomref), 1)`` table (zeros when ``atomref`` is None). Names:
    ``initial_atomref``, ``atomref.weight``."""

    _buffer_names = ("initial_atomref",)
    _child_names = ("atomref",)

    def __init__(self, atomref: Any = None, max_z: int = 100, *, dtype: Any = np.float32) -> None:
        if atomref is None:
            ref = np.zeros((layer_size("Atomref", "max_z", max_z, minimum=1), 1), dtype=dtype)
        else:
            ref = np.asarray(to_numpy(atomref), dtype=dtype)  # a CuPy table too
            if ref.ndim == 1:
                ref = ref.reshape(-1, 1)
            if ref.ndim != 2 or ref.shape[1] != 1 or ref.shape[0] == 0:
                raise ValueError(
                    f"Atomref: atomref must be (num_z,) or (num_z, 1), got {tuple(ref.shape)}"
                )
        self.initial_atomref = ref.copy()
        self.atomref = _Embedding(ref.shape[0], 1, _rng(0), dtype)
        self.atomref.weight = ref.copy()

    def __call__(self, x: Any, z: Any) -> Any:
        from arraygnn import ops

        return x + ops.gather(self.atomref.weight, z)
