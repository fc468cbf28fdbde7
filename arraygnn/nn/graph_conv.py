"""Graph convolution: PyG's ``GCNConv`` and DGL's ``GraphConv``, plus ``gcn_norm``.

Both compute ``out = A_hat @ (x @ W) + b`` with one SpMM; they differ in how ``A_hat``
is normalised, exactly as their anchors do:

- ``GCNConv`` (PyG): adds the *remaining* self-loops (one per node, an existing loop
  keeps its weight), degrees are **weighted** in-degrees at the target,
  ``w_st = deg(s)^-1/2 * w_st * deg(t)^-1/2``.
- ``GraphConv`` (DGL): no self-loops, degrees are edge **counts** clamped at 1, source rows
  scaled by ``out_deg^-1/2`` and destination rows by ``in_deg^-1/2`` (``norm='both'``), or
  ``'left'`` / ``'right'`` / ``'none'``. Works on bipartite graphs and blocks.

The seed's rule holds for both: a destination node with zero in-degree raises unless
``allow_zero_in_degree=True`` (``GCNConv`` with ``add_self_loops=True`` never has one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint, torch_rsqrt
from arraygnn.nn._graph_input import (
    GraphInput,
    check_edge_weight,
    check_zero_in_degree,
    csr_of,
    in_degrees,
    is_graph,
    out_degrees,
    parse_input,
)
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, add_bias, get_activation, glorot, matmul

# the self-loop core lives with PyG's utils; the layers' helpers below keep their names
from arraygnn.utils.loops import remaining_self_loops_pairs

__all__ = [
    "GCNConv",
    "GraphConv",
    "gcn_norm",
    "normalized_csr",
    "normalized_slots",
    "add_remaining_self_loops",
]


def add_remaining_self_loops(
    edge_index: Any, edge_weight: Any, num_nodes: int, fill_value: float = 1.0
) -> tuple[Any, Any]:
    """PyG's rule: drop existing self-loops, then add exactly one loop per node.

    The layers' helper (``num_nodes`` required, weights as the second argument); PyG's
    signature ``(edge_index, edge_attr=None, fill_value=None, num_nodes=None)`` is
    :func:`arraygnn.utils.add_remaining_self_loops`. Both run the same code.

    A node that had a self-loop keeps that loop's weight (the last one, if several);
    every other node's loop gets ``fill_value``. Loops come last, node order.
    Returns new arrays; the inputs are not modified.

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 1], [1, 1, 0]])
    >>> ei2, w2 = add_remaining_self_loops(ei, np.array([1., 5., 1.]), 2)
    >>> ei2.tolist(), w2.tolist()
    ([[0, 1, 0, 1], [1, 0, 0, 1]], [1.0, 1.0, 1.0, 5.0])

    ``edge_weight=None`` gives ``(edge_index, None)``, as in PyG.
    """
    num_nodes = _checked_graph("add_remaining_self_loops", edge_index, edge_weight, num_nodes)
    xp = get_namespace(edge_index[0], edge_weight)
    weight = edge_weight
    if weight is None:
        weight = xp.ones(edge_index[0].shape[0], dtype=np.float32)
    src, dst, w = remaining_self_loops_pairs(
        edge_index[0], edge_index[1], weight, num_nodes, fill_value
    )
    return xp.stack([src, dst]), None if edge_weight is None else w


def _checked_graph(where: str, edge_index: Any, edge_weight: Any, num_nodes: Any) -> int:
    """``num_nodes`` as an int, after checking it, ``edge_index`` [2, E] (ids in range)
    and ``edge_weight`` [E] (floats) or ``None``."""
    from arraygnn.ops._common import check_index, check_size
    from arraygnn.ops.csr import _split_edge_index

    num_nodes = check_size(f"{where}: num_nodes", num_nodes)
    src, dst = _split_edge_index(edge_index, f"{where}: edge_index")
    check_index(f"{where}: edge_index", src, num_nodes)
    check_index(f"{where}: edge_index", dst, num_nodes)
    check_edge_weight(where, edge_weight, int(src.shape[0]))
    return num_nodes


def gcn_norm(
    edge_index: Any,
    edge_weight: Any = None,
    num_nodes: int | None = None,
    improved: bool = False,
    add_self_loops: bool = True,
    dtype: Any = np.float32,
) -> tuple[Any, Any]:
    """PyG's GCN normalisation: ``(edge_index, w)`` with ``w_st = d_s^-1/2 w_st d_t^-1/2``.

    ``d`` is the weighted in-degree (sum of incoming weights, self-loop included) and
    ``d^-1/2`` is 0 where ``d == 0``. ``improved=True`` gives the added self-loops weight 2
    when ``edge_weight`` is given; without it every edge, loops included, weighs 1 (PyG 2.8's
    numbers: its ``add_remaining_self_loops`` ignores the fill value without weights).
    ``num_nodes`` is required (never inferred from ``edge_index.max() + 1``).
    ``edge_weight`` must be floating point (``TypeError`` otherwise, as PyG).

    Shapes:
        - input: edge_index ``(2, E)``, edge_weight ``(E,)`` or ``None``
        - output: edge_index ``(2, E')``, weights ``(E',)`` with ``E' = E - loops + N``
    """
    from arraygnn import ops

    if num_nodes is None:
        raise ValueError(
            "gcn_norm: num_nodes is required (arraygnn never infers it from edge_index)"
        )
    num_nodes = _checked_graph("gcn_norm", edge_index, edge_weight, num_nodes)
    xp = get_namespace(edge_index, edge_weight)
    fill = _loop_fill(improved, edge_weight)
    if edge_weight is None:
        edge_weight = xp.ones(edge_index[0].shape[0], dtype=_float_dtype("gcn_norm", dtype))
    if add_self_loops:
        edge_index, edge_weight = add_remaining_self_loops(edge_index, edge_weight, num_nodes, fill)
    deg = ops.scatter(edge_weight, edge_index[1], num_nodes, reduce="sum")
    return edge_index, _symmetric_weights(edge_index, edge_weight, deg)


def _loop_fill(improved: bool, edge_weight: Any) -> float:
    """Weight of an added self-loop: 2 with ``improved=True`` -- only when edge weights were
    given, as in PyG 2.8, whose ``add_remaining_self_loops`` drops ``fill_value`` without
    them (``GCNConv(improved=True)`` on an unweighted graph equals ``improved=False``)."""
    return 2.0 if improved and edge_weight is not None else 1.0


def _float_dtype(where: str, dtype: Any) -> np.dtype:
    """``dtype`` as a NumPy dtype; ``TypeError`` unless floating (integer weights would make
    ``deg^-1/2`` all zeros)."""
    dt = np.dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"{where}: dtype must be a floating-point dtype, got {dt}")
    return dt


def _symmetric_weights(edge_index: Any, edge_weight: Any, deg: Any) -> Any:
    """``deg(s)^-1/2 * w * deg(t)^-1/2`` with ``0^-1/2 := 0``."""
    inv_sqrt = _inv_sqrt(deg, edge_weight.dtype)
    return inv_sqrt[edge_index[0]] * edge_weight * inv_sqrt[edge_index[1]]


def _inv_sqrt(deg: Any, dtype: Any) -> Any:
    """``deg^-1/2`` with ``0^-1/2 := 0``, in ``dtype``; a negative (or NaN) weighted
    degree gives NaN, as PyG's ``gcn_norm`` (``deg.pow(-0.5)``, only ``inf`` masked).
    Computed as ``1 / sqrt(deg)`` (``torch_rsqrt``; float16: NumPy's ``**``, rounded once
    from float32 as torch's half ``pow``): torch evaluates ``pow(x, -0.5)`` so (the same bits
    as PyG on every input, float32 and float64), and both steps are correctly rounded, so
    every machine gives them (NumPy's ``** -0.5`` takes a SIMD route on AVX-512 that is
    one unit in the last place off for ~20 % of inputs, e.g. degrees 6 and 7)."""
    xp = get_namespace(deg)
    if xp is np:  # fewer passes: most graphs have no zero degree
        positive = deg > 0
        root = torch_rsqrt(np.where(positive, deg, deg.dtype.type(1)))
        if not positive.all():
            other = ~positive
            root[other] = np.where(deg[other] == 0, 0, np.nan)
        return root.astype(dtype, copy=False)
    safe = xp.where(deg > 0, deg, 1)
    root = xp.where(deg > 0, torch_rsqrt(safe), xp.nan)
    return xp.where(deg == 0, 0, root).astype(dtype)


_KERNEL_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def normalized_csr(
    edge_index: Any,
    edge_weight: Any,
    num_nodes: int,
    improved: bool = False,
    add_self_loops: bool = True,
    dtype: Any = np.float32,
) -> tuple[Any, Any]:
    """``(csr, w)``: the GCN-normalised graph as one CSR plus per-edge weights (in the order
    of the edges after self-loops were added). Same numbers as :func:`gcn_norm`, but the
    weighted degree is one SpMM over the CSR that propagation reuses: one sort in total.
    (:func:`normalized_slots` gives the weights in the CSR's slot order.)"""
    csr, w_slots = normalized_slots(
        edge_index, edge_weight, num_nodes, improved, add_self_loops, dtype
    )
    if csr.perm_is_identity:
        return csr, w_slots
    xp = get_namespace(w_slots)
    w = xp.empty_like(w_slots)
    w[csr.perm] = w_slots
    return csr, w


def gcn_graph(
    layer: str,
    inp: GraphInput,
    edge_weight: Any,
    normalize: bool,
    improved: bool,
    add_self_loops: bool,
    dtype: Any,
) -> tuple[Any, Any]:
    """``(csr, weights in slot order)`` a GCN-style layer propagates over: the GCN
    normalisation (self-loops added when ``add_self_loops``) or, without ``normalize``,
    the graph as it is (no loops)."""
    check_edge_weight(layer, edge_weight, inp.num_edges)
    if not normalize:
        from arraygnn.ops.slot_order import to_slot_order

        csr = csr_of(inp)
        return csr, to_slot_order(csr, edge_weight)
    if inp.num_src != inp.num_dst:
        raise ValueError(
            f"{layer} with normalize=True needs a homogeneous graph (as PyG); "
            "use GraphConv for bipartite graphs and blocks"
        )
    return normalized_slots(
        inp.edge_index, edge_weight, inp.num_dst, improved, add_self_loops, dtype
    )


def normalized_slots(
    edge_index: Any,
    edge_weight: Any,
    num_nodes: int,
    improved: bool = False,
    add_self_loops: bool = True,
    dtype: Any = np.float32,
) -> tuple[Any, Any]:
    """:func:`normalized_csr` with the weights in the CSR's slot order (row ``j`` is edge
    ``csr.perm[j]``; ``arraygnn.ops.slot_order``): the same values, computed without a
    random read of the edge weights and passed to ``spmm_slots`` without reordering
    them on every propagation."""
    from arraygnn import ops
    from arraygnn.ops._common import kernel_function
    from arraygnn.ops.slot_order import spmm_slots, to_slot_order

    src, dst = edge_index[0], edge_index[1]  # a [2, E] array or a (src, dst) pair
    xp = get_namespace(src, dst, edge_weight)
    check_edge_weight("normalized_slots", edge_weight, int(src.shape[0]))
    fill = _loop_fill(improved, edge_weight)
    if edge_weight is None:
        edge_weight = xp.ones(src.shape[0], dtype=_float_dtype("normalized_slots", dtype))
    if add_self_loops:
        src, dst, edge_weight = remaining_self_loops_pairs(src, dst, edge_weight, num_nodes, fill)
    csr = ops.to_csr((src, dst), num_nodes, num_nodes)
    if xp is np and edge_weight.dtype in _KERNEL_FLOATS:  # native float32 / float64
        # two kernels around NumPy's 1 / sqrt(deg), the same bits as the array code below
        # without its gathers (NaN sign bits aside: kernels/cpu/gcn_norm.py)
        weights = np.ascontiguousarray(edge_weight)
        perm = csr.kernel_perm
        deg = np.empty(num_nodes, dtype=weights.dtype)  # each row's weights in slot order
        segment = kernel_function(np, "segment", "segment_csr")
        segment(csr.indptr, perm, weights.reshape(-1, 1, 1), deg.reshape(-1, 1, 1), "sum")
        inv_sqrt = _inv_sqrt(deg, weights.dtype)
        out = np.empty(csr.num_edges, dtype=weights.dtype)
        slot_weights = kernel_function(np, "gcn_norm", "gcn_slot_weights")
        return csr, slot_weights(csr.indptr, csr.indices, perm, weights, inv_sqrt, out)
    w = to_slot_order(csr, edge_weight)
    deg = spmm_slots(csr, xp.ones(num_nodes, dtype=w.dtype), w)
    inv_sqrt = _inv_sqrt(deg, w.dtype)
    # each slot's target is its CSR row: the row's factor repeated over its slots
    if xp is np:
        at_target = np.repeat(inv_sqrt, np.diff(csr.indptr))
    else:
        at_target = inv_sqrt[csr.dst][csr.perm]
    return csr, inv_sqrt[csr.indices] * w * at_target


class GCNConv(Module):
    r"""Kipf & Welling's graph convolution, PyG semantics and parameter names.

    .. math:: X' = \hat D^{-1/2} \hat A \hat D^{-1/2} X W + b, \quad \hat A = A + I

    Args:
        in_channels: input feature size.
        out_channels: output feature size.
        improved: added self-loops weigh 2 (``A + 2I``) when ``edge_weight`` is given; on an
            unweighted graph it changes nothing, as in PyG 2.8 (see :func:`gcn_norm`).
        cached: keep the normalised graph from the first call and reuse it (for a fixed
            graph, as PyG's ``cached=True``); ``clear_cache()`` forgets it.
        add_self_loops: add the remaining self-loops; ``None`` (default) means the same as
            ``normalize``, as PyG. ``True`` with ``normalize=False`` raises ``ValueError``
            (PyG does not support it either).
        normalize: apply the symmetric normalisation (default ``True``); ``False`` sums
            ``edge_weight * x_j`` over the graph as given.
        bias: learn an additive bias.
        allow_zero_in_degree: accept destination nodes without incoming edges (their output
            is the bias alone); default ``False`` raises, the seed's check. ``from_pyg`` sets it
            ``True`` because PyG accepts such graphs.

    Call as ``conv(x, edge_index, edge_weight=None)`` or ``conv(graph, feat, edge_weight=None)``.
    As PyG, a pair ``conv((x_src, x_dst), edge_index)`` raises ``ValueError`` (GCN has no
    destination features; use ``GraphConv`` or ``SAGEConv`` for bipartite graphs).

    Shapes:
        - input: node features ``(N, in_channels)``, edge_index ``(2, E)``,
          edge_weight ``(E,)`` (optional)
        - output: ``(N, out_channels)``

    Parameter names: ``lin.weight`` ``(out_channels, in_channels)``, ``bias`` ``(out_channels,)``;
    DGL's ``GraphConv`` names (``weight`` ``(in, out)``, ``bias``) load as well.
    """

    _param_names = ("bias",)
    _child_names = ("lin",)
    _dgl_supported = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        improved: bool = False,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        bias: bool = True,
        *,
        allow_zero_in_degree: bool = False,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if add_self_loops is None:
            add_self_loops = normalize
        if add_self_loops and not normalize:
            raise ValueError(
                "GCNConv: add_self_loops=True needs normalize=True (as PyG, which does not "
                "support adding self-loops without on-the-fly normalisation); add the loop "
                "edges to edge_index yourself"
            )
        self.in_channels = layer_size("GCNConv", "in_channels", in_channels)
        self.out_channels = layer_size("GCNConv", "out_channels", out_channels)
        self.improved = bool(improved)
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        self.normalize = bool(normalize)
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        self.lin = Linear(in_channels, out_channels, bias=False, dtype=dtype, rng=rng)
        self.bias = np.zeros(out_channels, dtype=dtype) if bias else None
        self._cache: tuple[Any, Any] | None = None

    def clear_cache(self) -> None:
        """Forget the cached normalised graph."""
        self._cache = None

    def _clear_cache(self) -> None:
        self._cache = None

    def _normalised(self, inp: GraphInput, edge_weight: Any, dtype: Any) -> tuple[Any, Any]:
        if self.cached and self._cache is not None:
            return self._cache
        homogeneous = inp.num_src == inp.num_dst
        csr, w = gcn_graph(
            "GCNConv", inp, edge_weight, self.normalize, self.improved, self.add_self_loops,
            dtype,
        )  # fmt: skip
        if not self.allow_zero_in_degree and not (self.add_self_loops and homogeneous):
            check_zero_in_degree("GCNConv", csr.in_degrees())
        if self.cached:
            self._cache = (csr, w)
        return csr, w

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        pair = isinstance(x_or_graph, (tuple, list)) and len(x_or_graph) == 2
        if pair or (is_graph(x_or_graph) and isinstance(edge_index_or_feat, (tuple, list))):
            raise ValueError(
                "GCNConv received a pair of node features (x_src, x_dst) but does not support "
                "bipartite message passing (as PyG); use GraphConv or SAGEConv instead"
            )
        inp = parse_input("GCNConv", x_or_graph, edge_index_or_feat)
        _check_features(inp.x_src, self.in_channels, "GCNConv node features")
        h = self.lin(inp.x_src)
        csr, w = self._normalised(inp, edge_weight, h.dtype)  # weights in slot order
        out = spmm_slots(csr, h, w)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {"lin.weight": values["weight"].T} if "weight" in values else {}
        if "bias" in values:
            out["bias"] = values["bias"]
        out.update({k: v for k, v in values.items() if k not in ("weight", "bias")})
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {"weight": values["lin.weight"].T}
        if "bias" in values:
            out["bias"] = values["bias"]
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"


class GraphConv(Module):
    r"""DGL's ``GraphConv`` (Kipf & Welling without added self-loops), DGL names.

    .. math:: h_i' = b + \sum_{j \in N(i)} \frac{e_{ji}}{c_j^{1/2} c_i^{1/2}} h_j W

    with ``c_j`` the out-degree of source ``j`` and ``c_i`` the in-degree of destination
    ``i`` (edge counts, clamped at 1; ``norm='both'``). ``norm='right'`` divides by the
    in-degree only, ``'left'`` by the out-degree only, ``'none'`` not at all. The weight
    is applied before message passing when that shrinks features (as DGL).

    Args:
        in_feats: input feature size (source side).
        out_feats: output feature size.
        norm: ``'both'`` (default), ``'right'``, ``'left'`` or ``'none'``.
        weight: learn a weight matrix (``False``: none; pass DGL's ``weight=``
            ``(in_feats, out_feats)`` at the call, needed when the sizes differ).
        bias: learn an additive bias.
        activation: ``None``, a callable or a name such as ``'relu'``.
        allow_zero_in_degree: see the seed's check (default ``False`` raises).

    Call as ``conv(graph, feat, edge_weight=None, *, weight=None)``, ``conv(graph, (feat_src,
    feat_dst))``, ``conv(block, feat)`` or ``conv(x, edge_index, edge_weight=None)``.

    Shapes:
        - input: ``(N_src, in_feats)`` (and optionally ``(N_dst, *)`` for the pair form),
          edge_weight ``(E,)``
        - output: ``(N_dst, out_feats)``

    Parameter names: ``weight`` ``(in_feats, out_feats)``, ``bias`` ``(out_feats,)`` (DGL);
    PyG's ``GCNConv`` names (``lin.weight``, ``bias``) load too.
    """

    _param_names = ("weight", "bias")
    _dgl_supported = True

    def __init__(
        self,
        in_feats: int,
        out_feats: int,
        norm: str = "both",
        weight: bool = True,
        bias: bool = True,
        activation: Any = None,
        allow_zero_in_degree: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if norm not in ("both", "right", "left", "none"):
            raise ValueError(
                f"GraphConv norm must be 'both', 'right', 'left' or 'none', got {norm!r}"
            )
        in_feats = self.in_feats = layer_size("GraphConv", "in_feats", in_feats)
        out_feats = self.out_feats = layer_size("GraphConv", "out_feats", out_feats)
        self.norm = norm
        self.activation = get_activation(activation)
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        self.weight = glorot((out_feats, in_feats), rng, dtype).T.copy() if weight else None
        self.bias = np.zeros(out_feats, dtype=dtype) if bias else None

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        edge_weight: Any = None,
        *,
        weight: Any = None,
    ) -> Any:
        from arraygnn import ops

        inp = parse_input("GraphConv", graph_or_x, feat_or_edge_index)
        _check_features(inp.x_src, self.in_feats, "GraphConv source features")
        check_edge_weight("GraphConv", edge_weight, inp.num_edges)
        weight = self._weight_for_call(weight)
        dtype = inp.x_src.dtype
        xp = get_namespace(inp.x_src, weight)  # TypeError on NumPy features, CuPy weight
        csr = csr_of(inp)
        in_deg = in_degrees(inp, dtype, csr)
        if not self.allow_zero_in_degree:
            check_zero_in_degree("GraphConv", in_deg)
        h = inp.x_src
        if self.norm in ("both", "left"):
            out_deg = xp.maximum(out_degrees(inp, dtype), 1)
            scale = torch_rsqrt(out_deg) if self.norm == "both" else 1 / out_deg
            h = h * scale[:, None]
        project_first = weight is not None and self.in_feats > self.out_feats
        if project_first:
            h = matmul(h, weight)
        out = ops.spmm(csr, h, edge_weight=edge_weight, num_dst_nodes=inp.num_dst)
        if weight is not None and not project_first:
            out = matmul(out, weight)
        if self.norm in ("both", "right"):
            deg = xp.maximum(in_deg, 1)
            scale = torch_rsqrt(deg) if self.norm == "both" else 1 / deg
            out = out * scale[:, None]
        if self.bias is not None:
            out = add_bias(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def _weight_for_call(self, weight: Any) -> Any:
        """The projection of this call: the layer's own, or DGL's external ``weight=``
        ``(in_feats, out_feats)`` for a layer made with ``weight=False``."""
        if weight is None:
            if self.weight is None and self.in_feats != self.out_feats:
                raise ValueError(
                    f"GraphConv(weight=False) with in_feats={self.in_feats} != "
                    f"out_feats={self.out_feats} needs weight= (in_feats, out_feats) at the call"
                )
            return self.weight
        if self.weight is not None:
            raise ValueError(
                "GraphConv: an external weight is given while the layer has its own weight; "
                "create the layer with weight=False (as DGL)"
            )
        if not is_array(weight):
            raise TypeError(
                f"GraphConv: weight must be a NumPy or CuPy array, got "
                f"{type(weight).__name__}{torch_hint(weight)}"
            )
        if tuple(weight.shape) != (self.in_feats, self.out_feats):
            raise ValueError(
                f"GraphConv: weight must have shape (in_feats, out_feats) = "
                f"({self.in_feats}, {self.out_feats}), got {tuple(weight.shape)}"
            )
        if weight.dtype.kind != "f":  # an integer weight would turn the output float64
            raise TypeError(f"GraphConv: weight must be floating point, got {weight.dtype}")
        return weight

    # native names are DGL's here; "pyg" format maps GCNConv names onto them
    def state_dict(self, format: str = "dgl") -> dict[str, Any]:
        """Weights by name: DGL's (default) or ``format='pyg'`` (GCNConv's ``lin.weight``)."""
        native = dict(self._named_arrays())
        if format == "dgl":
            return native
        if format == "pyg":
            out = {"lin.weight": native["weight"].T} if "weight" in native else {}
            if "bias" in native:
                out["bias"] = native["bias"]
            return out
        raise ValueError(f"format must be 'pyg' or 'dgl', got {format!r}")

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        if "lin.weight" in values:
            values = dict(values)
            values["weight"] = values.pop("lin.weight").T
        return values

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return values

    def extra_repr(self) -> str:
        return f"{self.in_feats}, {self.out_feats}, norm={self.norm!r}"
