"""Dot-product attention over in-edges: DGL's ``DotGatConv`` and ``AGNNConv``.

Both score an edge ``j -> i`` by a dot product of per-node vectors, take the softmax over
each destination's incoming edges and sum the sources' features with those weights:

- ``DotGatConv`` (scaled dot-product attention, per head): ``h = x W`` ``[N, H, F]``,
  ``a_ij = softmax_i(h_j . h_i / sqrt(F))``, ``out_i = sum_j a_ij h_j`` ``[N_dst, H, F]``;
- ``AGNNConv`` (Thekumparampil et al., cosine attention): ``a_ij = softmax_i(beta
  cos(x_j, x_i))``, ``out_i = sum_j a_ij x_j`` (no weights but ``beta``).

Each is three engine ops on the destination-sorted CSR, in its slot order: an SDDMM
``dot`` of the node vectors (``[E, H]`` scores), an edge softmax, a weighted SpMM. No
``[E, H, F]`` array is formed (DGL's ``u_mul_e`` message builds one before the sum).

>>> import numpy as np
>>> ei = np.array([[0, 1, 2, 0], [1, 2, 0, 0]])
>>> DotGatConv(4, 2, num_heads=3, rng=0)(np.ones((3, 4), np.float32), ei).shape
(3, 3, 2)
>>> AGNNConv()(np.ones((3, 4), np.float32), ei).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import GraphInput, check_zero_in_degree, csr_of, parse_input
from arraygnn.nn._module import Module, _pair, is_size, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng

__all__ = ["DotGatConv", "AGNNConv"]


def _block_feat(inp: GraphInput, second: Any) -> bool:
    """A block given one feature array: its targets are the first source rows."""
    return (
        inp.graph is not None
        and bool(getattr(inp.graph, "is_block", False))
        and not isinstance(second, (tuple, list))
    )


def _attention_csr(layer: str, inp: GraphInput, allow_zero_in_degree: bool) -> Any:
    """The destination-sorted CSR (a graph's cached one), zero in-degree checked."""
    csr = csr_of(inp)
    if not allow_zero_in_degree:
        check_zero_in_degree(layer, csr.in_degrees())
    return csr


def _looped_csr(inp: GraphInput) -> Any:
    """The CSR of the input's edges with its self-loops replaced by one loop ``(i, i)`` per
    node ``i < min(N_src, N_dst)`` (PyG's ``remove_self_loops`` then ``add_self_loops``)."""
    from arraygnn import ops

    xp = get_namespace(inp.src)
    num_loops = min(inp.num_src, inp.num_dst)
    index_dtype = ids_dtype_holding(inp.src.dtype, num_loops - 1)
    keep = inp.src != inp.dst
    loops = xp.arange(num_loops, dtype=index_dtype)
    src = xp.concatenate([inp.src[keep].astype(index_dtype, copy=False), loops])
    dst = xp.concatenate([inp.dst[keep].astype(index_dtype, copy=False), loops])
    return ops.to_csr((src, dst), inp.num_src, inp.num_dst)


def _edge_order_attention(csr: Any, alpha: Any) -> Any:
    from arraygnn.ops.slot_order import to_edge_order

    return to_edge_order(csr, alpha)


class DotGatConv(Module):
    r"""DGL's ``DotGatConv``: scaled dot-product attention over each node's in-edges.

    .. math::
        \alpha_{ij} = \mathrm{softmax}_j\big((W_s x_j)^\top (W_d x_i) / \sqrt{F}\big),
        \quad h_i' = \sum_j \alpha_{ij} W_s x_j

    per head (``W_s = W_d`` unless ``in_feats`` is a pair).

    Args:
        in_feats: input size, or ``(src_size, dst_size)`` for separate projections
            (``fc_src`` / ``fc_dst``; else one ``fc``).
        out_feats: output size per head ``F``.
        num_heads: heads ``H``.
        allow_zero_in_degree: accept destination nodes without incoming edges (their
            output is 0); default ``False`` raises, DGL's check.

    Call as ``conv(graph, feat, get_attention=False)`` with a graph, a block or a pair
    ``(feat_src, feat_dst)``, or PyG's way ``conv(x, edge_index)`` / ``conv((x_src, x_dst),
    edge_index)``. ``get_attention=True`` also returns the ``(E, H, 1)`` attention in edge
    order, as DGL. A pair of features with one shared ``fc`` projects both sides with it,
    and a block with ``fc_src`` / ``fc_dst`` projects its first rows with ``fc_dst`` (DGL
    fails on both).

    Shapes:
        input:  (N, in) or ((N_src, in_src), (N_dst, in_dst))
        output: (N_dst, H, F), as DGL's (heads kept)

    Names (DGL's): ``fc.weight`` ``(H*F, in)``, or ``fc_src.weight`` / ``fc_dst.weight``.
    """

    _child_names = ("fc", "fc_src", "fc_dst")
    _dgl_supported = True  # DGL's names are these

    def __init__(
        self,
        in_feats: int | tuple[int, int],
        out_feats: int,
        num_heads: int,
        allow_zero_in_degree: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DotGatConv"
        gen = _rng(rng)
        self.out_feats = layer_size(layer, "out_feats", out_feats, minimum=1)
        self.num_heads = layer_size(layer, "num_heads", num_heads, minimum=1)
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        hf = self.out_feats * self.num_heads
        if is_size(in_feats):
            self.in_src = self.in_dst = layer_size(layer, "in_feats", in_feats)
            self.fc = Linear(self.in_src, hf, False, dtype=dtype, rng=gen)
            self.fc_src = self.fc_dst = None
        else:
            self.in_src, self.in_dst = _pair(layer, in_feats)
            self.fc = None
            self.fc_src = Linear(self.in_src, hf, False, dtype=dtype, rng=gen)
            self.fc_dst = Linear(self.in_dst, hf, False, dtype=dtype, rng=gen)

    def __call__(self, graph: Any, feat: Any, get_attention: bool = False) -> Any:
        from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots

        layer = "DotGatConv"
        inp = parse_input(layer, graph, feat)
        _check_features(inp.x_src, self.in_src, f"{layer} source features", self._weight())
        csr = _attention_csr(layer, inp, self.allow_zero_in_degree)
        h, f = self.num_heads, self.out_feats
        src_lin = self.fc if self.fc is not None else self.fc_src
        dst_lin = self.fc if self.fc is not None else self.fc_dst
        h_src = src_lin(inp.x_src).reshape(inp.num_src, h, f)
        if inp.x_dst is inp.x_src and self.fc is not None:
            h_dst = h_src
        elif _block_feat(inp, feat) and self.fc is not None:
            h_dst = h_src[: inp.num_dst]
        else:
            _check_features(inp.x_dst, self.in_dst, f"{layer} destination features")
            h_dst = dst_lin(inp.x_dst).reshape(inp.num_dst, h, f)
        scores = sddmm_slots(csr, h_src, h_dst, op="dot")[..., 0]  # [E, H], slot order
        scores /= scores.dtype.type(np.sqrt(f))
        alpha = edge_softmax_slots(csr, scores)
        out = spmm_slots(csr, h_src, alpha)  # [N_dst, H, F]
        if get_attention:
            return out, _edge_order_attention(csr, alpha)[:, :, None]
        return out

    def _weight(self) -> Any:
        return (self.fc if self.fc is not None else self.fc_src).weight

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def extra_repr(self) -> str:
        sizes = self.in_src if self.fc is not None else (self.in_src, self.in_dst)
        return f"{sizes}, {self.out_feats}, num_heads={self.num_heads}"


class AGNNConv(Module):
    r"""DGL's ``AGNNConv`` (attention-based GNN): cosine attention, no weights but ``beta``.

    .. math::
        \alpha_{ij} = \mathrm{softmax}_j\big(\beta \cos(x_j, x_i)\big),
        \quad h_i' = \sum_j \alpha_{ij} x_j

    ``cos`` divides by ``max(||x||, 1e-12)`` (torch's ``normalize``), over the last
    dimension.

    Args:
        init_beta: the temperature ``beta``.
        learn_beta: accepted (DGL's: a parameter or a buffer; the same name ``beta`` and
            the same numbers at inference).
        allow_zero_in_degree: accept destination nodes without incoming edges (their
            output is 0); default ``False`` raises, DGL's check.
        add_self_loops: replace the graph's self-loops by one loop ``(i, i)`` per node
            ``i < min(N_src, N_dst)`` before the attention, as PyG's ``AGNNConv`` (whose
            default is ``True``; ``from_pyg`` copies it). Default ``False``: DGL's layer,
            the edges as given.

    Call as ``conv(graph, feat)`` with a graph, a block or a pair ``(feat_src,
    feat_dst)``, or PyG's way ``conv(x, edge_index)`` / ``conv((x_src, x_dst), edge_index)``.
    ``feat`` may be ``(N, *, F)``: every leading index gets its own attention, as DGL's.

    Shapes:
        input:  (N, *, F) or ((N_src, *, F), (N_dst, *, F))
        output: (N_dst, *, F)

    Names (DGL's): ``beta`` ``(1,)``.
    """

    _param_names = ("beta",)
    _dgl_supported = True

    def __init__(
        self,
        init_beta: float = 1.0,
        learn_beta: bool = True,
        allow_zero_in_degree: bool = False,
        *,
        add_self_loops: bool = False,
        dtype: Any = np.float32,
    ) -> None:
        if isinstance(init_beta, (bool, np.bool_)) or not isinstance(
            init_beta, (int, float, np.number)
        ):
            raise TypeError(f"AGNNConv: init_beta must be a number, got {init_beta!r}")
        self.beta = np.array([init_beta], dtype=dtype)
        self.learn_beta = bool(learn_beta)
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        self.add_self_loops = bool(add_self_loops)

    def __call__(self, graph: Any, feat: Any) -> Any:
        from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots

        layer = "AGNNConv"
        inp = parse_input(layer, graph, feat)
        x_src, x_dst = inp.x_src, inp.x_dst
        for what, a in (("source features", x_src), ("destination features", x_dst)):
            if a.dtype.kind != "f":
                raise TypeError(f"{layer}: {what} must hold floating-point values, got {a.dtype}")
        if tuple(x_src.shape[1:]) != tuple(x_dst.shape[1:]):
            raise ValueError(
                f"{layer}: source and destination features must have one shape per node, got "
                f"{tuple(x_src.shape[1:])} and {tuple(x_dst.shape[1:])}"
            )
        get_namespace(x_src, self.beta)  # TypeError on a NumPy / CuPy mix
        if self.add_self_loops:
            csr = _looped_csr(inp)
            if not self.allow_zero_in_degree:
                check_zero_in_degree(layer, csr.in_degrees())
        else:
            csr = _attention_csr(layer, inp, self.allow_zero_in_degree)
        tail = tuple(x_src.shape[1:])
        width = int(tail[-1])
        groups = int(np.prod(tail[:-1], dtype=np.int64))
        src3 = x_src.reshape(inp.num_src, groups, width)
        norm_src = _unit_rows(src3)
        if x_dst is x_src:
            norm_dst = norm_src
        else:
            norm_dst = _unit_rows(x_dst.reshape(inp.num_dst, groups, width))
        cos = sddmm_slots(csr, norm_src, norm_dst, op="dot")[..., 0]  # [E, groups]
        logits = cos * self.beta.astype(cos.dtype, copy=False)
        alpha = edge_softmax_slots(csr, logits)
        out = spmm_slots(csr, src3, alpha)  # [N_dst, groups, F]
        return out.reshape((inp.num_dst,) + tail)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def extra_repr(self) -> str:
        return f"beta={float(self.beta[0])}, learn_beta={self.learn_beta}"


def _unit_rows(x: Any) -> Any:
    """``x / max(||x||, 1e-12)`` over the last dimension (torch's ``F.normalize``)."""
    xp = get_namespace(x)
    norm = xp.sqrt((x * x).sum(axis=-1, keepdims=True))
    return x / xp.maximum(norm, x.dtype.type(1e-12))


def agnn_from_pyg_module(module: Any, dtype: Any, convert: Any) -> AGNNConv:
    """PyG's ``AGNNConv`` -> :class:`AGNNConv` with its ``beta`` and ``add_self_loops``
    (nodes left without in-edges give 0, as PyG)."""
    from arraygnn.nn.weights import _load, _pyg_aggr

    _pyg_aggr(module, "AGNNConv", ("sum",))
    layer = AGNNConv(
        float(module.beta.detach().reshape(-1)[0]),
        bool(module.requires_grad),
        allow_zero_in_degree=True,
        add_self_loops=module.add_self_loops,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
