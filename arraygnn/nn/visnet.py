"""PyG's ``ViSNet`` (Wang et al., 2022, equivariant vector-scalar interactive message
passing) at inference, with its message passing ``ViS_MP`` / ``ViS_MP_Vertex`` and its
representation model ``ViSNetBlock``; the geometric and output pieces (``Sphere``,
``VecLayerNorm``, ``Distance``, ...) are in :mod:`arraygnn.nn.visnet_pieces` and
re-exported here.

Each atom carries scalars ``x`` ``[N, H]`` and vectors ``vec`` ``[N, L, H]`` (``L`` = 3
spherical-harmonic components for ``lmax=1``, 8 for ``lmax=2``); each edge ``j -> i`` of
the radius graph (self-loops included) carries ``f_ij`` ``[E, H]`` and the harmonics
``d_ij`` ``[E, L]`` of its direction. Which path runs (the radius graph is sorted by
target, so its CSR slots are the edges and nothing is permuted):

- the edge projections ``dk``, ``dv`` (and ``f``) of ``f_ij`` are one ``[E, H] x [H, 3H]``
  product; the attention ``sum(q_i k_j dk)`` is one SDDMM and a per-head sum;
- the scalar messages ``v_j dv attn`` ``[E, H]`` (needed by ``s_proj``) are summed per
  target with ``ops.segment``; the vector messages ``vec_j s1 + s2 d_ij`` are never formed
  as ``[E, L, H]`` (PyG's): ``sum_j vec_j s1`` is one SpMM with ``s1`` as per-channel edge
  weights, ``sum_j s2 d_ij`` one SpMM over the edges as sources with ``d_ij`` as weights;
- the edge update ``<rej(W_t vec_i, d), rej(W_s vec_j, -d)>`` (rejection: the part
  orthogonal to ``d``) is expanded to ``<A_i, B_j> - a b (2 - |d|^2)`` with ``a = d . A_i``,
  ``b = d . B_j`` (``ops.gather_mm``) and ``<A_i, B_j>`` one SDDMM: ``[E, H]`` arrays only.
  Equal to PyG's up to rounding.

RULE: with ``batch``, ``batch_size`` (the number of molecules) left out is
      ``batch.max() + 1``, as PyG (pass it to keep trailing empty molecules). Without
      ``batch`` the atoms are one molecule.
RULE: the radius graph keeps each atom's ``max_num_neighbors`` nearest atoms (its
      self-loop among them); PyG's kernels keep the first ones they find (CPU: an
      unspecified subset, CUDA: the lowest indices, which can drop the self-loop), so
      outputs differ where an atom has more neighbours within ``cutoff`` than that.
RULE: ``derivative=True`` (forces as ``-dE/dpos``) needs autograd: a
      ``NotImplementedError``. The model returns ``(energies, None)`` as PyG's does without
      it.

>>> import numpy as np
>>> model = ViSNet(num_heads=2, num_layers=2, hidden_channels=8, num_rbf=4, cutoff=2.0, rng=0)
>>> z = np.array([1, 6, 8, 1, 1])
>>> pos = np.random.default_rng(0).random((5, 3)).astype(np.float32)
>>> y, dy = model(z, pos, np.array([0, 0, 0, 1, 1]), batch_size=2)
>>> y.shape, dy
((2, 1), None)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size, real_number
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import LayerNorm, Linear, _ModuleList, _rng, add_bias, matmul
from arraygnn.nn.visnet_pieces import (
    _VEC_ROWS,
    Atomref,
    CosineCutoff,
    Distance,
    EdgeEmbedding,
    EquivariantScalar,
    ExpNormalSmearing,
    GatedEquivariantBlock,
    NeighborEmbedding,
    Sphere,
    VecLayerNorm,
    _csr,
    check_lmax,
)

__all__ = [
    "ViSNet",
    "ViSNetBlock",
    "ViS_MP",
    "ViS_MP_Vertex",
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

#: PyG's reduce_op names (torch_geometric.utils.scatter's) -> ops.scatter's
_REDUCE = {
    "sum": "sum", "add": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
    "amin": "min", "mul": "prod",
}  # fmt: skip


def _sum_at_targets(csr: Any, values: Any) -> Any:
    """``values`` [E, ...] summed per target (one deterministic segment pass when the CSR's
    slots are the edges, as for a radius graph)."""
    from arraygnn import ops

    if csr.perm_is_identity:
        return ops.segment(values, csr.indptr)
    return ops.scatter(values, csr.dst, csr.num_dst_nodes)


def _stacked(x: Any, *lins: Linear) -> Any:
    """``cat([lin(x) for lin in lins], -1)`` as one product (biases 0 where absent)."""
    xp = get_namespace(x)
    weight = lins[0].weight if len(lins) == 1 else xp.concatenate([m.weight for m in lins])
    out = matmul(x, weight.T)
    if all(m.bias is None for m in lins):
        return out
    bias = [m.bias if m.bias is not None else xp.zeros(m.weight.shape[0], m.weight.dtype)
            for m in lins]  # fmt: skip
    return add_bias(out, bias[0] if len(bias) == 1 else xp.concatenate(bias))


def _split(x: Any, width: int) -> list[Any]:
    """``x``'s last axis in pieces of ``width`` (views)."""
    return [x[..., i : i + width] for i in range(0, int(x.shape[-1]), width)]


def _silu_(x: Any) -> Any:
    """``silu(x)`` written into ``x`` (an array the caller made): one temporary."""
    xp = get_namespace(x)
    t = xp.negative(x)
    with np.errstate(over="ignore"):  # exp(-x) = inf: x / inf = -0
        xp.exp(t, out=t)
    t += 1
    return xp.divide(x, t, out=x)


def _rejected_dot(csr: Any, d: Any, a_nodes: Any, b_nodes: Any, b_at_target: bool) -> Any:
    """``sum_l rej(A_i, d)_l rej(B_k, d)_l`` per edge and channel ``[E, H]`` for node
    vectors ``A``, ``B`` ``[N, L, H]`` (``i`` the edge's target, ``k`` its source, or its
    target with ``b_at_target``), where ``rej(v, d) = v - (v . d) d`` (``rej(v, -d)`` is
    the same vector): ``<A_i, B_k> - (d . A_i)(d . B_k)(2 - |d|^2)``."""
    from arraygnn import ops

    xp = get_namespace(d, a_nodes)
    b_idx = csr.dst if b_at_target else csr.src
    a = ops.gather_mm(d, a_nodes, idx_b=csr.dst)
    b = ops.gather_mm(d, b_nodes, idx_b=b_idx)
    if b_at_target:
        dot = ops.gather((a_nodes * b_nodes).sum(axis=1), csr.dst)
    else:
        a_t = xp.ascontiguousarray(a_nodes.transpose(0, 2, 1))
        b_t = xp.ascontiguousarray(b_nodes.transpose(0, 2, 1))
        dot = ops.sddmm(csr, b_t, a_t, op="dot")[..., 0]
    a *= b
    a *= (2 - (d * d).sum(axis=1))[:, None]
    dot -= a
    return dot


class ViS_MP(Module):  # noqa: N801 - PyG's name
    """PyG's ``ViS_MP(num_heads, hidden_channels, cutoff, vecnorm_type,
    trainable_vecnorm, last_layer=False)``: one ViSNet layer, ``(x, vec, edge_index, r_ij,
    f_ij, d_ij) -> (dx, dvec, df_ij)`` (``df_ij`` None for the last layer).

    Shapes: ``x`` ``[N, H]``, ``vec`` ``[N, L, H]``, ``r_ij`` ``[E]`` lengths, ``f_ij``
    ``[E, H]``, ``d_ij`` ``[E, L]``; ``edge_index[0]`` is ``j`` (source), ``[1]`` ``i``.

    Names: ``layernorm.*``, ``vec_layernorm.weight``, ``vec_proj.weight``,
    ``{q,k,v,dk,dv,s,o}_proj.*``; not in the last layer ``f_proj.*``,
    ``w_src_proj.weight``, ``w_trg_proj.weight``.
    """

    _child_names = (
        "layernorm", "vec_layernorm", "vec_proj", "q_proj", "k_proj", "v_proj", "dk_proj",
        "dv_proj", "s_proj", "f_proj", "w_src_proj", "w_trg_proj", "o_proj",
    )  # fmt: skip
    _f_parts = 1  # f_proj's output width in units of hidden_channels

    def __init__(
        self,
        num_heads: int,
        hidden_channels: int,
        cutoff: float,
        vecnorm_type: str | None,
        trainable_vecnorm: bool,
        last_layer: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = type(self).__name__
        hid = self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels, 1)
        self.num_heads = layer_size(name, "num_heads", num_heads, minimum=1)
        if hid % self.num_heads:
            raise ValueError(
                f"{name}: hidden_channels ({hid}) must be divisible by num_heads ({self.num_heads})"
            )
        self.head_dim = hid // self.num_heads
        self.last_layer = bool(last_layer)
        gen = _rng(rng)

        def lin(a: int, b: int, bias: bool = True) -> Linear:
            return Linear(a, b, bias, dtype=dtype, rng=gen)

        self.layernorm = LayerNorm(hid, dtype=dtype)
        self.vec_layernorm = VecLayerNorm(hid, trainable_vecnorm, vecnorm_type, dtype=dtype)
        self.cutoff = CosineCutoff(cutoff)
        self.vec_proj = lin(hid, 3 * hid, False)
        self.q_proj, self.k_proj, self.v_proj = lin(hid, hid), lin(hid, hid), lin(hid, hid)
        self.dk_proj, self.dv_proj = lin(hid, hid), lin(hid, hid)
        self.s_proj = lin(hid, 2 * hid)
        self.f_proj = self.w_src_proj = self.w_trg_proj = None
        self.t_src_proj = self.t_trg_proj = None  # ViS_MP_Vertex's
        if not self.last_layer:
            self.f_proj = lin(hid, self._f_parts * hid)
            self.w_src_proj, self.w_trg_proj = lin(hid, hid, False), lin(hid, hid, False)
        self.o_proj = lin(hid, 3 * hid)
        if not self.last_layer and self._f_parts == 2:
            self.t_src_proj, self.t_trg_proj = lin(hid, hid, False), lin(hid, hid, False)

    def __call__(
        self, x: Any, vec: Any, edge_index: Any, r_ij: Any, f_ij: Any, d_ij: Any
    ) -> tuple[Any, Any, Any]:
        from arraygnn.nn._dgl_common import check_edge_feat

        name = type(self).__name__
        csr = _csr(name, x, edge_index)
        n, e, hid = int(x.shape[0]), csr.num_edges, self.hidden_channels
        if x.ndim != 2 or x.shape[1] != hid:
            raise ValueError(f"{name}: x must be [{n}, {hid}], got {tuple(x.shape)}")
        if vec.ndim != 3 or vec.shape[0] != n or vec.shape[1] not in (3, 8) or vec.shape[2] != hid:
            raise ValueError(f"{name}: vec must be [{n}, 3 or 8, {hid}], got {tuple(vec.shape)}")
        check_edge_feat(name, "f_ij", f_ij, e, hid, x)
        check_edge_feat(name, "d_ij", d_ij, e, int(vec.shape[1]), x)
        r_ij = check_edge_feat(name, "r_ij", r_ij, e, 1, x).reshape(-1)
        return self.forward_csr(x, vec, csr, self.cutoff(r_ij), f_ij, d_ij)

    def forward_csr(
        self,
        x: Any,
        vec: Any,
        csr: Any,
        cut: Any,
        f_ij: Any,
        d_ij: Any,
        edges: Any = None,
        vec_is_zero: bool = False,
    ) -> tuple[Any, Any, Any]:
        """The layer over a CSR of the edges, arguments trusted; ``cut`` is the cutoff of
        each edge's length, ``edges`` the CSR's slots as sources (built when None).
        ``vec_is_zero`` (the first layer's ``vec``): the terms that ``vec`` multiplies are
        skipped and ``df_ij`` is None (PyG's is 0 there)."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import slots_as_sources, to_slot_order

        xp = get_namespace(x, vec, f_ij)
        n, e, hid, heads = int(x.shape[0]), csr.num_edges, self.hidden_channels, self.num_heads
        update = not (self.last_layer or vec_is_zero)
        x = self.layernorm(x)
        q, k, v = _split(_stacked(x, self.q_proj, self.k_proj, self.v_proj), hid)
        # dk | dv (| f) of every edge in one product
        fe = _silu_(_stacked(f_ij, self.dk_proj, self.dv_proj, *([self.f_proj] if update else [])))
        dk, dv = fe[:, :hid], fe[:, hid : 2 * hid]
        attn = ops.sddmm(csr, q, k, op="mul", lhs_target="v", rhs_target="u")
        attn *= dk
        attn = _silu_(attn.reshape(e, heads, self.head_dim).sum(axis=-1))
        attn *= cut[:, None]
        msg = ops.sddmm(csr, v, dv, op="mul", lhs_target="u", rhs_target="e")
        msg = msg.reshape(e, heads, self.head_dim)
        msg *= attn[:, :, None]
        msg = msg.reshape(e, hid)
        x_out = _sum_at_targets(csr, msg)
        s1, s2 = _split(_silu_(_stacked(msg, self.s_proj)), hid)
        # sum_j s2 * d_ij: the edges as sources, d_ij's components as heads
        if edges is None:
            edges = slots_as_sources(csr)
        s2 = xp.ascontiguousarray(to_slot_order(csr, s2)).reshape(e, 1, hid)
        vec_out = ops.spmm(edges, s2, to_slot_order(csr, d_ij))
        o1, o2, o3 = _split(self.o_proj(x_out), hid)
        if vec_is_zero:  # vec_dot = 0, vec3 = 0, sum_j vec_j s1 = 0
            return o3, vec_out, None
        vec = self.vec_layernorm(vec)
        # sum_j vec_j * s1: channels as heads, the L components as features
        vec_t = xp.ascontiguousarray(vec.transpose(0, 2, 1))
        vec_out += ops.spmm(csr, vec_t, edge_weight=s1, num_dst_nodes=n).transpose(0, 2, 1)
        extra = [self.w_trg_proj, self.w_src_proj] if update else []
        extra += [self.t_trg_proj, self.t_src_proj] if update and self._f_parts == 2 else []
        proj = _stacked(vec, self.vec_proj, *extra)
        vec_dot = (proj[..., :hid] * proj[..., hid : 2 * hid]).sum(axis=1)
        dx = vec_dot * o2 + o3
        dvec = proj[..., 2 * hid : 3 * hid] * o1[:, None, :] + vec_out
        if not update:
            return dx, dvec, None
        rows = [
            xp.ascontiguousarray(proj[..., i * hid : (i + 1) * hid])
            for i in range(3, 3 + len(extra))
        ]
        return dx, dvec, self._edge_update(csr, d_ij, fe[:, 2 * hid :], rows)

    def _edge_update(self, csr: Any, d_ij: Any, f: Any, proj: list[Any]) -> Any:
        """``silu(f_proj(f_ij)) * <rej(w_trg(vec)_i, d), rej(w_src(vec)_j, -d)>`` with
        ``proj`` = ``[w_trg(vec), w_src(vec)]``."""
        w_dot = _rejected_dot(csr, d_ij, proj[0], proj[1], False)
        w_dot *= f
        return w_dot

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, hidden_channels={self.hidden_channels}, "
            f"cutoff={self.cutoff.cutoff:g}, last_layer={self.last_layer}"
        )


class ViS_MP_Vertex(ViS_MP):  # noqa: N801 - PyG's name
    """PyG's ``ViS_MP_Vertex``: :class:`ViS_MP` whose edge update adds the vertex term
    ``f2 * <rej(t_trg(vec)_i, d), rej(t_src(vec)_i, -d)>`` (both at the target ``i``, as
    PyG's code reads); ``f_proj`` is ``H -> 2H``. Extra names (not in the last layer):
    ``t_src_proj.weight``, ``t_trg_proj.weight``."""

    _child_names = ViS_MP._child_names + ("t_src_proj", "t_trg_proj")
    _f_parts = 2

    def _edge_update(self, csr: Any, d_ij: Any, f: Any, proj: list[Any]) -> Any:
        hid = self.hidden_channels
        out = super()._edge_update(csr, d_ij, f[:, :hid], proj)
        t_dot = _rejected_dot(csr, d_ij, proj[2], proj[3], True)
        t_dot *= f[:, hid:]
        out += t_dot
        return out


def _check_molecules(
    name: str, z: Any, pos: Any, batch: Any, batch_size: Any, num_z: int, dtype: Any
) -> tuple[Any, Any, int]:
    """Checked ``(batch or None, batch or zeros, batch_size)`` for ``z`` ``(N,)`` ids in
    ``[0, num_z)``, finite ``pos`` ``(N, 3)`` of the model's dtype and a sorted ``batch``."""
    from arraygnn.nn._pool_input import check_batch
    from arraygnn.ops._common import check_index

    xp = get_namespace(z, pos, batch)
    check_index(f"{name}: z", z, num_z)
    n = int(z.shape[0])
    if pos.ndim != 2 or tuple(pos.shape) != (n, 3):
        raise ValueError(
            f"{name}: pos must have shape ({n}, 3) (a 3-D position per atom), got "
            f"{tuple(pos.shape)}"
        )
    if pos.dtype != dtype:
        raise TypeError(f"{name}: pos must be {dtype} (the model's), got {pos.dtype}")
    if n and not bool(xp.isfinite(pos).all()):  # the radius graph needs finite positions
        raise ValueError(f"{name}: pos has non-finite (NaN or infinite) coordinates")
    if batch is None:
        if batch_size not in (None, 1):
            raise ValueError(f"{name}: without batch the atoms are one molecule")
        return None, xp.zeros(n, dtype=np.int64), 1
    batch_size = check_batch(name, batch, batch_size, n)
    if n > 1 and bool((batch[1:] < batch[:-1]).any()):
        raise ValueError(f"{name}: batch must be sorted (the atoms of a molecule together)")
    return batch, batch, int(batch_size)


class ViSNetBlock(Module):
    """PyG's ``ViSNetBlock`` (ViSNet's representation model): ``(z, pos, batch=None,
    batch_size=None) -> (x [N, H], vec [N, L, H])``. Arguments as :class:`ViSNet`'s.

    Names: ``embedding.weight``, ``distance_expansion.{means,betas}``,
    ``neighbor_embedding.*``, ``edge_embedding.*``, ``vis_mp_layers.i.*``, ``out_norm.*``,
    ``vec_out_norm.weight``.
    """

    _child_names = (
        "embedding", "distance_expansion", "neighbor_embedding", "edge_embedding",
        "vis_mp_layers", "out_norm", "vec_out_norm",
    )  # fmt: skip

    def __init__(
        self,
        lmax: int = 1,
        vecnorm_type: str | None = None,
        trainable_vecnorm: bool = False,
        num_heads: int = 8,
        num_layers: int = 6,
        hidden_channels: int = 128,
        num_rbf: int = 32,
        trainable_rbf: bool = False,
        max_z: int = 100,
        cutoff: float = 5.0,
        max_num_neighbors: int = 32,
        vertex: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = type(self).__name__
        self.lmax = check_lmax(name, lmax)
        hid = self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels, 1)
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        self.num_rbf = layer_size(name, "num_rbf", num_rbf, minimum=1)
        self.max_z = layer_size(name, "max_z", max_z, minimum=1)
        self.cutoff = real_number(name, "cutoff", cutoff)
        if not self.cutoff > 0:
            raise ValueError(f"{name}: cutoff must be positive, got {cutoff}")
        self.vertex = bool(vertex)
        if vecnorm_type not in (None, "max_min"):
            raise ValueError(
                f"{name}: vecnorm_type must be 'max_min' or None, got {vecnorm_type!r}"
            )
        self.vecnorm_type = vecnorm_type
        gen = _rng(rng)
        self.embedding = _Embedding(self.max_z, hid, gen, dtype)
        self.distance = Distance(self.cutoff, max_num_neighbors=max_num_neighbors)
        self.sphere = Sphere(self.lmax)
        self.distance_expansion = ExpNormalSmearing(
            self.cutoff, self.num_rbf, trainable_rbf, dtype=dtype
        )
        self.neighbor_embedding = NeighborEmbedding(
            hid, self.num_rbf, self.cutoff, self.max_z, dtype=dtype, rng=gen
        )
        self.edge_embedding = EdgeEmbedding(self.num_rbf, hid, dtype=dtype, rng=gen)
        cls = ViS_MP_Vertex if self.vertex else ViS_MP
        self.vis_mp_layers = _ModuleList(
            [
                cls(num_heads, hid, self.cutoff, vecnorm_type, trainable_vecnorm,
                    last_layer=i == self.num_layers - 1, dtype=dtype, rng=gen)
                for i in range(self.num_layers)
            ]
        )  # fmt: skip
        self.num_heads = self.vis_mp_layers[0].num_heads
        self.out_norm = LayerNorm(hid, dtype=dtype)
        self.vec_out_norm = VecLayerNorm(hid, trainable_vecnorm, vecnorm_type, dtype=dtype)

    def __call__(
        self, z: Any, pos: Any, batch: Any = None, batch_size: int | None = None
    ) -> tuple[Any, Any]:
        dtype = self.embedding.weight.dtype
        graph_batch, _, size = _check_molecules(
            type(self).__name__, z, pos, batch, batch_size, self.max_z, dtype
        )
        return self.forward_checked(z, pos, graph_batch, size)

    def forward_checked(self, z: Any, pos: Any, batch: Any, batch_size: int) -> tuple[Any, Any]:
        """The call with arguments already checked (``batch`` None: one molecule)."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import slots_as_sources

        xp = get_namespace(z, pos, self.embedding.weight)
        n, hid = int(z.shape[0]), self.hidden_channels
        x = ops.gather(self.embedding.weight, z)
        edge_index, length, edge_vec = self.distance(pos, batch, batch_size)
        csr = ops.to_csr(edge_index, n, n)
        rbf = self.distance_expansion(length)
        loop = csr.src == csr.dst
        with np.errstate(invalid="ignore", divide="ignore"):  # two atoms at one place: NaN
            direction = edge_vec / xp.where(loop, 1, length)[:, None]
        d_ij = self.sphere(direction)
        x = self.neighbor_embedding.forward_csr(z, x, csr, length, rbf)
        vec = xp.zeros((n, _VEC_ROWS[self.lmax], hid), dtype=x.dtype)
        f_ij = ops.sddmm(csr, x, x, op="add") * self.edge_embedding.edge_proj(rbf)
        edges = slots_as_sources(csr)
        cuts: dict[float, Any] = {}
        first = True  # vec is zero
        for layer in self.vis_mp_layers._items:
            c = layer.cutoff.cutoff
            if c not in cuts:
                cuts[c] = layer.cutoff(length)
            dx, dvec, df = layer.forward_csr(x, vec, csr, cuts[c], f_ij, d_ij, edges, first)
            first = False
            x = x + dx
            vec = vec + dvec
            if df is not None:
                f_ij = f_ij + df
        return self.out_norm(x), self.vec_out_norm(vec)

    def extra_repr(self) -> str:
        return (
            f"lmax={self.lmax}, hidden_channels={self.hidden_channels}, "
            f"num_layers={self.num_layers}, num_heads={self.num_heads}, "
            f"num_rbf={self.num_rbf}, cutoff={self.cutoff:g}, vertex={self.vertex}"
        )


class ViSNet(Module):
    """PyG's ``ViSNet``.

    Args:
        lmax, vecnorm_type, trainable_vecnorm, num_heads, num_layers, hidden_channels,
            num_rbf, trainable_rbf, max_z, cutoff, max_num_neighbors, vertex: PyG's
            (defaults 1, None, False, 8, 6, 128, 32, False, 100, 5.0, 32, False).
            ``lmax`` 1 or 2; ``vecnorm_type`` None or ``'max_min'``.
        atomref: ``(num_z,)`` or ``(num_z, 1)`` single-atom references added per atom
            (zeros when None).
        reduce_op: ``'sum'`` (or ``'add'``), ``'mean'``, ``'max'`` (``'amax'``), ``'min'``
            (``'amin'``) or ``'mul'`` (PyG's ``scatter`` names; a molecule without atoms
            gives 0, for ``'mul'`` 1, before ``mean`` is added). PyG's ``'any'`` (an
            arbitrary atom's value) is refused.
        mean, std: ``y = reduce(x * std + atomref[z]) + mean``.
        derivative: must be False (forces need autograd: ``NotImplementedError``).

    Call as ``model(z, pos, batch=None, batch_size=None)`` with ``z`` ``(N,)`` atomic
    numbers in ``[0, max_z)``, ``pos`` ``(N, 3)`` in the model's dtype and ``batch``
    sorted -> ``(y (B, 1), None)``. Where an atom has more than ``max_num_neighbors``
    atoms within ``cutoff`` (itself included), the nearest are kept, ties to the lower
    index, so its self-loop stays; PyG's pyg-lib / torch_cluster kernels keep the first
    they find (CPU: an unspecified subset; CUDA: the lowest indices, which can drop the
    self-loop), and the outputs then differ.

    Names (PyG's): ``representation_model.*`` (:class:`ViSNetBlock`),
    ``output_model.output_network.{0,1}.*``, ``prior_model.initial_atomref``,
    ``prior_model.atomref.weight``, ``mean``, ``std``.
    """

    _buffer_names = ("mean", "std")
    _child_names = ("representation_model", "output_model", "prior_model")

    def __init__(
        self,
        lmax: int = 1,
        vecnorm_type: str | None = None,
        trainable_vecnorm: bool = False,
        num_heads: int = 8,
        num_layers: int = 6,
        hidden_channels: int = 128,
        num_rbf: int = 32,
        trainable_rbf: bool = False,
        max_z: int = 100,
        cutoff: float = 5.0,
        max_num_neighbors: int = 32,
        vertex: bool = False,
        atomref: Any = None,
        reduce_op: str = "sum",
        mean: float = 0.0,
        std: float = 1.0,
        derivative: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if derivative:
            raise NotImplementedError(
                "ViSNet: derivative=True (forces as -dE/dpos) needs autograd, which "
                "arraygnn's layers do not have; use derivative=False for the energies "
                "(for from_pyg, set module.derivative = False first)"
            )
        self.derivative = False
        if not isinstance(reduce_op, str) or reduce_op not in _REDUCE:
            raise ValueError(
                f"ViSNet: reduce_op must be one of {sorted(_REDUCE)}, got {reduce_op!r}"
            )
        self.reduce_op = reduce_op
        gen = _rng(rng)
        self.representation_model = ViSNetBlock(
            lmax, vecnorm_type, trainable_vecnorm, num_heads, num_layers, hidden_channels,
            num_rbf, trainable_rbf, max_z, cutoff, max_num_neighbors, vertex,
            dtype=dtype, rng=gen,
        )  # fmt: skip
        self.output_model = EquivariantScalar(hidden_channels, dtype=dtype, rng=gen)
        self.prior_model = Atomref(atomref, max_z, dtype=dtype)
        self.mean = np.asarray(real_number("ViSNet", "mean", mean), dtype=dtype)
        self.std = np.asarray(real_number("ViSNet", "std", std), dtype=dtype)

    def __call__(
        self, z: Any, pos: Any, batch: Any = None, batch_size: int | None = None
    ) -> tuple[Any, None]:
        from arraygnn import ops

        rep = self.representation_model
        num_z = rep.max_z
        if self.prior_model is not None:
            num_z = min(num_z, int(self.prior_model.atomref.weight.shape[0]))
        graph_batch, index, size = _check_molecules(
            "ViSNet", z, pos, batch, batch_size, num_z, rep.embedding.weight.dtype
        )
        x, v = rep.forward_checked(z, pos, graph_batch, size)
        x = self.output_model.pre_reduce(x, v)
        x = x * self.std
        if self.prior_model is not None:
            x = self.prior_model(x, z)
        reduce = _REDUCE[self.reduce_op]
        y = ops.scatter(x, index, size, reduce)
        if reduce == "prod":  # PyG's product starts from ones: an empty molecule gives 1
            xp = get_namespace(y)
            atoms = ops.scatter(xp.ones((int(x.shape[0]), 1), x.dtype), index, size)
            y = xp.where(atoms > 0, y, xp.ones_like(y))
        return y + self.mean, None

    def extra_repr(self) -> str:
        return f"{self.representation_model.extra_repr()}, reduce_op={self.reduce_op!r}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> Module:
    """PyG's ``ViSNet`` or ``ViSNetBlock`` with every weight and buffer and its settings
    (cutoffs, ``max_num_neighbors``, ``alpha``, ``reduce_op``, the prior). A ViSNet with
    ``derivative=True`` is a ``NotImplementedError`` (set ``module.derivative = False`` to
    convert it for energies)."""
    from arraygnn.nn.weights import _dtype_of

    dtype = _dtype_of(module)
    if type(module).__name__ == "ViSNetBlock":
        block = ViSNetBlock(**_block_kwargs(module), dtype=dtype)
        block.load_state_dict(module.state_dict(), format="pyg")
        _copy_settings(block, module)
        return block
    if getattr(module, "derivative", False):
        ViSNet(derivative=True)  # raises the NotImplementedError
    prior = module.prior_model
    model = ViSNet(
        **_block_kwargs(module.representation_model),
        atomref=None if prior is None else prior.initial_atomref.detach().cpu().numpy(),
        reduce_op=module.reduce_op,
        dtype=dtype,
    )
    if prior is None:
        model.prior_model = None
    model.load_state_dict(module.state_dict(), format="pyg")
    _copy_settings(model.representation_model, module.representation_model)
    return model


def _block_kwargs(rep: Any) -> dict[str, Any]:
    """:class:`ViSNetBlock`'s arguments read off PyG's."""
    return {
        "lmax": rep.lmax,
        # PyG normalises only for 'max_min'; any other value means none
        "vecnorm_type": rep.vecnorm_type if rep.vecnorm_type == "max_min" else None,
        "trainable_vecnorm": rep.trainable_vecnorm,
        "num_heads": rep.num_heads,
        "num_layers": rep.num_layers,
        "hidden_channels": rep.hidden_channels,
        "num_rbf": rep.num_rbf,
        "trainable_rbf": rep.trainable_rbf,
        "max_z": rep.max_z,
        "cutoff": float(rep.cutoff),
        "max_num_neighbors": rep.distance.max_num_neighbors,
        "vertex": type(rep.vis_mp_layers[0]).__name__ == "ViS_MP_Vertex",
    }


def _copy_settings(ours: ViSNetBlock, theirs: Any) -> None:
    """The plain attributes a state dict does not carry."""
    ours.distance.cutoff = float(theirs.distance.cutoff)
    ours.distance.add_self_loops = bool(theirs.distance.add_self_loops)
    exp_ours, exp_theirs = ours.distance_expansion, theirs.distance_expansion
    exp_ours.alpha = float(exp_theirs.alpha)
    exp_ours.cutoff_fn.cutoff = float(exp_theirs.cutoff_fn.cutoff)
    ours.neighbor_embedding.cutoff.cutoff = float(theirs.neighbor_embedding.cutoff.cutoff)
    for mine, pyg in zip(ours.vis_mp_layers._items, theirs.vis_mp_layers):
        mine.cutoff.cutoff = float(pyg.cutoff.cutoff)
