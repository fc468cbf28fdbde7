"""DGL's Heterogeneous Graph Transformer layer (``dgl.nn.pytorch.conv.HGTConv``), on a
homogeneous graph whose nodes and edges carry type ids.

Per node, ``k, q, v`` are typed linear maps of ``x`` (``TypedLinear`` by node type, ``H``
heads of ``D`` features). Per edge ``e = (s -> t)`` of type ``r`` and head ``h``:

``a_e = (k_s W^att_{h, r}) . q_t * pri_h[r] / sqrt(D)``, ``m_e = v_s W^msg_{h, r}``,
``o_t = sum_e softmax_t(a)_e m_e``, ``y_t = linear_a[type t](o_t)``, then the skip gate
``g = sigmoid(skip[type t])``: ``y_t g + x_t (1 - g)`` (``x_t @ residual_w`` when the
widths differ), and ``LayerNorm`` with ``use_norm``. No activation between (DGL's code
applies none, whatever its docstring's sigma says); dropout is the identity here.

How it runs: ``k_s W^att_{h, r}`` and ``v_s W^msg_{h, r}`` depend on the edge only through
its (source, type) pair, so they are computed once per *pair that occurs* (pairs grouped by
type: one batched product per type), not per edge (DGL forms ``[E, H, D]`` keys and
messages, one ``TypedLinear`` per head). The attention is then three engine ops on one CSR
whose sources are those pairs: an SDDMM ``dot``, an edge softmax and a weighted SpMM, in
the CSR's slot order. No ``[E, H, D]`` array is formed.

>>> import numpy as np
>>> conv = DGLHGTConv(4, 2, 3, num_ntypes=2, num_etypes=3, rng=0)
>>> x = np.ones((5, 4), np.float32)
>>> ei = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
>>> conv(x, ei, np.array([0, 0, 1, 1, 1]), np.array([0, 2, 1, 1])).shape
(5, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.nn._graph_input import csr_of, is_graph, parse_input
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.hgt_conv import _ArrayDict
from arraygnn.nn.linear import (
    LayerNorm,
    _check_features,
    _ModuleList,
    _rng,
    _sigmoid,
    glorot,
    matmul,
)
from arraygnn.nn.rgcn_conv import TypedLinear
from arraygnn.ops._common import check_index

__all__ = ["DGLHGTConv"]


def _type_ids(layer: str, name: str, ids: Any, length: int, num_types: int, like: Any) -> Any:
    """``ids`` as a checked 1-D integer array of ``length`` entries in ``[0, num_types)``
    on the device of ``like``."""
    if not is_array(ids):
        raise TypeError(f"{layer}: {name} must be a NumPy or CuPy integer array, got {type(ids)}")
    if get_namespace(ids) is not get_namespace(like):
        raise TypeError(f"{layer}: {name} must be on the features' device")
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{layer}: {name} must hold integers, got dtype {ids.dtype}")
    if tuple(ids.shape) != (length,):
        raise ValueError(f"{layer}: {name} must have shape ({length},), got {tuple(ids.shape)}")
    check_index(f"{layer}: {name}", ids, num_types)
    return ids


class DGLHGTConv(Module):
    """DGL's ``HGTConv`` (heterogeneous graph transformer on a typed homogeneous graph).

    Named ``DGLHGTConv`` because :class:`arraygnn.nn.HGTConv` is PyG's layer (a dict-of-types
    interface with other weights); ``from_dgl`` turns a DGL ``HGTConv`` into this one.

    Args:
        in_size: input features per node.
        head_size: features per head ``D``; the output has ``head_size * num_heads``.
        num_heads: attention heads ``H``.
        num_ntypes, num_etypes: numbers of node and edge types.
        dropout: a probability in ``[0, 1]``, ignored (inference: dropout is the
            identity).
        use_norm: a ``LayerNorm`` on the output (``norm.*``).

    Call as DGL's, ``conv(g, x, ntype, etype, presorted=False)`` with a DGL-face graph or
    block (a block's targets are its first ``num_dst_nodes`` rows of ``x`` and ``ntype``),
    or ``conv(x, edge_index, ntype, etype)``. ``ntype`` ``(N,)`` ids in
    ``[0, num_ntypes)``, ``etype`` ``(E,)`` ids in ``[0, num_etypes)``; ``presorted`` is
    accepted and not needed (same numbers either way). A node without in-edges aggregates
    0 (DGL's), so it keeps only its gated skip term.

    Shapes:
        input:  x (N, in_size), ntype (N,), etype (E,)
        output: (N_dst, head_size * num_heads)

    Names (DGL's): ``linear_k.W`` / ``linear_q.W`` / ``linear_v.W`` ``(num_ntypes, in, H*D)``,
    ``linear_a.W`` ``(num_ntypes, H*D, H*D)``, ``relation_pri.<h>`` ``(num_etypes,)``,
    ``relation_att.<h>.W`` / ``relation_msg.<h>.W`` ``(num_etypes, D, D)``, ``skip``
    ``(num_ntypes,)``, ``residual_w`` ``(in, H*D)`` (when ``in_size != H*D``),
    ``norm.weight`` / ``norm.bias`` (``use_norm``).
    """

    _param_names = ("skip", "residual_w")
    _child_names = (
        "linear_k",
        "linear_q",
        "linear_v",
        "linear_a",
        "relation_pri",
        "relation_att",
        "relation_msg",
        "norm",
    )
    _dgl_supported = True  # DGL's names are these

    def __init__(
        self,
        in_size: int,
        head_size: int,
        num_heads: int,
        num_ntypes: int,
        num_etypes: int,
        dropout: float = 0.2,
        use_norm: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DGLHGTConv"
        self.in_size = layer_size(layer, "in_size", in_size)
        self.head_size = layer_size(layer, "head_size", head_size, minimum=1)
        self.num_heads = layer_size(layer, "num_heads", num_heads, minimum=1)
        self.num_ntypes = layer_size(layer, "num_ntypes", num_ntypes, minimum=1)
        self.num_etypes = layer_size(layer, "num_etypes", num_etypes, minimum=1)
        self.dropout = probability(layer, "dropout", dropout)
        self.use_norm = bool(use_norm)
        gen = _rng(rng)
        d, h, nt, et = self.head_size, self.num_heads, self.num_ntypes, self.num_etypes
        out = d * h
        self.linear_k = TypedLinear(self.in_size, out, nt, dtype=dtype, rng=gen)
        self.linear_q = TypedLinear(self.in_size, out, nt, dtype=dtype, rng=gen)
        self.linear_v = TypedLinear(self.in_size, out, nt, dtype=dtype, rng=gen)
        self.linear_a = TypedLinear(out, out, nt, dtype=dtype, rng=gen)
        self.relation_pri = _ArrayDict({str(i): np.ones(et, dtype) for i in range(h)})
        self.relation_att = _ModuleList(
            [TypedLinear(d, d, et, dtype=dtype, rng=gen) for _ in range(h)]
        )
        self.relation_msg = _ModuleList(
            [TypedLinear(d, d, et, dtype=dtype, rng=gen) for _ in range(h)]
        )
        self.skip = np.ones(nt, dtype)
        self.norm = LayerNorm(out, dtype=dtype) if self.use_norm else None
        self.residual_w = glorot((self.in_size, out), gen, dtype) if self.in_size != out else None

    @property
    def out_size(self) -> int:
        return self.head_size * self.num_heads

    def __call__(
        self,
        g: Any,
        x: Any,
        ntype: Any,
        etype: Any,
        *,
        presorted: bool = False,
    ) -> Any:
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            sddmm_slots,
            spmm_slots,
            to_slot_order,
        )

        layer = "DGLHGTConv"
        graph_form = is_graph(g)
        feat = x if graph_form else g
        if isinstance(feat, (tuple, list)):
            raise TypeError(
                f"{layer}: x must be one feature array (DGL's HGTConv takes no (src, dst) pair; "
                "a block's targets are the first rows)"
            )
        inp = parse_input(layer, g, x)
        x_src = inp.x_src
        _check_features(x_src, self.in_size, f"{layer} features", self.skip)
        if x_src.ndim != 2:
            raise ValueError(f"{layer}: x must be (N, {self.in_size}), got {tuple(x_src.shape)}")
        n_src, n_dst = inp.num_src, inp.num_dst
        x_dst = inp.x_dst
        src_types = _type_ids(layer, "ntype", ntype, n_src, self.num_ntypes, x_src)
        dst_types = src_types[:n_dst] if n_dst != n_src else src_types
        etype = _type_ids(layer, "etype", etype, inp.num_edges, self.num_etypes, x_src)
        xp = get_namespace(x_src)
        h, d, f = self.num_heads, self.head_size, self.out_size
        k = self.linear_k(x_src, src_types).reshape(n_src, h, d)
        v = self.linear_v(x_src, src_types).reshape(n_src, h, d)
        q = self.linear_q(x_dst, dst_types).reshape(n_dst, h, d)
        base = csr_of(inp)
        pair_csr, pair_src, rel_ptr = _pair_csr(base, etype, n_src, self.num_etypes)
        keys = self._relation_product(k, pair_src, rel_ptr, self.relation_att)  # [P, H, D]
        values = self._relation_product(v, pair_src, rel_ptr, self.relation_msg)
        scores = sddmm_slots(pair_csr, keys, q, op="dot")[..., 0]  # [E, H], slot order
        pri = xp.stack([self.relation_pri[str(i)] for i in range(h)], axis=1)  # [R, H]
        et_slots = to_slot_order(pair_csr, etype)
        scores = scores * pri[et_slots].astype(scores.dtype, copy=False)
        scores /= scores.dtype.type(np.sqrt(d))
        alpha = edge_softmax_slots(pair_csr, scores)
        agg = spmm_slots(pair_csr, values, alpha).reshape(n_dst, f)
        out = self.linear_a(agg, dst_types)
        gate = _sigmoid(self.skip[dst_types])[:, None]
        skip_in = x_dst if self.residual_w is None else matmul(x_dst, self.residual_w)
        out = out * gate + skip_in * (1 - gate)
        if self.norm is not None:
            out = self.norm(out)
        return out

    def _relation_product(self, a: Any, pair_src: Any, rel_ptr: np.ndarray, mats: Any) -> Any:
        """``a[pair_src[p], h] @ mats[h].W[type(p)]`` for every (source, type) pair ``p``
        (pairs grouped by type: one batched ``[H, P_r, D] x [H, D, D]`` product per type)."""
        from arraygnn import ops

        xp = get_namespace(a)
        rows = ops.gather(a, pair_src)  # [P, H, D]
        weights = xp.stack([m.weights()[0] for m in mats], axis=1)  # [R, H, D, D]
        dtype = np.result_type(a.dtype, weights.dtype)
        out = xp.empty(rows.shape, dtype=dtype)
        for r in range(self.num_etypes):
            lo, hi = int(rel_ptr[r]), int(rel_ptr[r + 1])
            if hi > lo:
                block = rows[lo:hi].transpose(1, 0, 2)  # [H, P_r, D]
                out[lo:hi] = xp.matmul(block, weights[r]).transpose(1, 0, 2)
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def extra_repr(self) -> str:
        return (
            f"{self.in_size}, {self.head_size}, {self.num_heads}, num_ntypes={self.num_ntypes}, "
            f"num_etypes={self.num_etypes}, use_norm={self.use_norm}"
        )


def _pair_csr(base: Any, etype: Any, num_src: int, num_types: int) -> tuple[Any, Any, np.ndarray]:
    """The CSR of ``base``'s edges with each source replaced by its (type, source) pair:
    ``(csr over P pair-sources, pair_src [P] node of each pair, rel_ptr [R + 1] host
    offsets of each type's pairs)``. Pairs are numbered type-major (ascending ``type *
    num_src + source``); ``base``'s row pointer and slot order are reused (no sort)."""
    from arraygnn.ops.csr import CSR

    xp = get_namespace(base.indptr)
    num_edges = base.num_edges
    idt = base.index_dtype
    key = etype.astype(np.int64) * num_src + base.src.astype(np.int64)  # edge order
    span = num_types * num_src
    if span <= 4 * num_edges + 1024:  # a mark per possible pair: no sort
        mark = xp.zeros(span, dtype=bool)
        mark[key] = True
        pair_keys = xp.flatnonzero(mark)
        pair_of = xp.cumsum(mark, dtype=np.int64) - 1
        inverse = pair_of[key]
    else:
        pair_keys, inverse = xp.unique(key, return_inverse=True)
        inverse = inverse.reshape(-1)
    num_pairs = int(pair_keys.shape[0])
    bounds = xp.arange(num_types + 1, dtype=np.int64) * num_src
    rel_ptr = np.asarray(to_numpy(xp.searchsorted(pair_keys, bounds))).astype(np.int64)
    pair_src = (pair_keys % num_src) if num_src else pair_keys
    inverse = inverse.astype(idt, copy=False)
    indices = inverse if base.perm_is_identity else inverse[base.perm]
    csr = CSR._trusted(
        base.indptr,
        indices,
        base.perm,
        inverse,
        base.dst,
        num_pairs,
        base.num_dst_nodes,
        base.perm_is_identity,
    )
    return csr, pair_src, rel_ptr
