"""Multi-hop normalised propagation: SGC (Wu et al.), SIGN (Frasca et al.), APPNP
(Klicpera et al.), TAG (Du et al.) and Chebyshev filters (Defferrard et al.).

All use ``S^k X`` with ``S = D^-1/2 (A + I) D^-1/2`` (PyG's ``gcn_norm``; TAG without the
self-loops): the graph is normalised once, converted to CSR once, and each hop is one
SpMM with the weights in the CSR's slot order. SGC keeps the last hop and applies a linear
map; SIGN keeps every hop ``[X, SX, ..., S^K X]`` as features for any downstream model (a
ridge regression in ``arraygnn._demo_regression``); APPNP mixes each hop with the input
(personalised PageRank); TAG sums a linear map of every hop; ChebConv sums a linear map of
each Chebyshev polynomial of the scaled Laplacian.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_rsqrt
from arraygnn.nn._graph_input import (
    GraphInput,
    check_edge_weight,
    check_float_features,
    check_one_node_set,
    check_zero_in_degree,
    csr_of,
    parse_input,
)
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.graph_conv import normalized_slots
from arraygnn.nn.linear import Linear, _check_features, _ModuleList, _rng, add_bias, get_activation

__all__ = ["SGConv", "APPNP", "TAGConv", "ChebConv", "propagate_hops"]


def propagate_hops(
    edge_index: Any,
    x: Any,
    hops: int,
    *,
    num_nodes: int | None = None,
    edge_weight: Any = None,
    add_self_loops: bool = True,
) -> list[Any]:
    """``[X, S X, S^2 X, ..., S^hops X]`` with the symmetric GCN normalisation ``S``.

    ``num_nodes`` defaults to ``x.shape[0]``. One normalisation, one CSR, ``hops`` SpMMs.
    The first entry is ``x`` itself (no copy: writing into it writes into ``x``).
    ``x`` and ``edge_weight`` must be floating point (``TypeError`` otherwise); a wrong
    ``edge_weight`` shape is a ``ValueError``.

    Shapes:
        - input: edge_index ``(2, E)``, x ``(N, F)``, edge_weight ``(E,)`` (optional)
        - output: ``hops + 1`` arrays of shape ``(N, F)``

    >>> import numpy as np
    >>> from arraygnn.nn import propagate_hops
    >>> xs = propagate_hops(np.array([[0, 1], [1, 0]]), np.eye(2, dtype=np.float32), 2)
    >>> [h.shape for h in xs]
    [(2, 2), (2, 2), (2, 2)]
    """
    from arraygnn.ops._common import check_size
    from arraygnn.ops.slot_order import spmm_slots

    if isinstance(hops, (bool, np.bool_)) or not isinstance(hops, (int, np.integer)):
        raise TypeError(f"propagate_hops: hops must be an int, got {hops!r}")  # 2.5 was cut
    if hops < 0:
        raise ValueError(f"propagate_hops: hops must be >= 0, got {hops}")
    if not is_array(x):
        raise TypeError(f"propagate_hops: x must be a NumPy or CuPy array, got {type(x)}")
    if x.dtype.kind != "f":
        raise TypeError(f"propagate_hops: x must hold floating-point features, got dtype {x.dtype}")
    n = x.shape[0] if num_nodes is None else check_size("propagate_hops: num_nodes", num_nodes)
    if x.shape[0] != n:
        raise ValueError(f"propagate_hops: x has {x.shape[0]} rows but num_nodes={n}")
    check_edge_weight("propagate_hops", edge_weight, int(edge_index[0].shape[0]))
    # weights in the CSR's slot order: read in order by every hop, never reordered
    csr, w = normalized_slots(
        edge_index, edge_weight, n, add_self_loops=add_self_loops, dtype=x.dtype
    )
    w = w.astype(x.dtype, copy=False)
    out = [x]
    for _ in range(int(hops)):
        out.append(spmm_slots(csr, out[-1], w))
    return out


class SGConv(Module):
    r"""Simplified graph convolution (PyG's ``SGConv``): ``X' = S^K X W + b``.

    Args:
        in_channels / out_channels: sizes.
        K: number of hops (default 1).
        cached: keep ``S^K X`` from the first call (transductive use, as PyG).
        add_self_loops: use ``A + I`` (default ``True``).
        bias: additive bias.
        degree_norm: ``'gcn'`` (PyG's ``gcn_norm``, default) or ``'dgl'``: DGL's ``SGConv``
            (with ``add_self_loops=False``): ``in_deg^-1/2`` at both ends of each edge
            (edge counts clamped at 1), or DGL's ``EdgeWeightNorm('both')`` of
            ``edge_weight``.
        norm: a callable applied to ``S^K X`` before the projection (DGL's ``norm``; cached
            with it).
        allow_zero_in_degree: with ``degree_norm='dgl'``, accept nodes without in-edges
            (default ``False`` raises, DGL's check).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, out_channels)``

    Parameter names: ``lin.weight`` ``(out, in)``, ``lin.bias`` (DGL's ``fc.weight`` /
    ``fc.bias`` with ``format='dgl'``).
    """

    _child_names = ("lin",)
    _dgl_supported = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        K: int = 1,
        cached: bool = False,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        degree_norm: str = "gcn",
        norm: Any = None,
        allow_zero_in_degree: bool = False,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("SGConv", "in_channels", in_channels)
        self.out_channels = layer_size("SGConv", "out_channels", out_channels)
        self.K = layer_size("SGConv", "K", K)
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        self.degree_norm = _check_degree_norm("SGConv", degree_norm)
        if degree_norm == "dgl" and add_self_loops:
            raise ValueError(
                "SGConv: degree_norm='dgl' adds no self-loops; pass add_self_loops=False"
            )
        if norm is not None and not callable(norm):
            raise TypeError(f"SGConv: norm must be a callable or None, got {type(norm).__name__}")
        self.norm = norm
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        self.lin = Linear(in_channels, out_channels, bias, dtype=dtype, rng=rng)
        self._cache: Any = None

    def _clear_cache(self) -> None:
        self._cache = None

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        inp = parse_input("SGConv", x_or_graph, edge_index_or_feat)
        check_one_node_set("SGConv", inp)
        check_float_features("SGConv", inp.x_src)
        _check_features(inp.x_src, self.in_channels, "SGConv node features")
        check_edge_weight("SGConv", edge_weight, inp.num_edges)
        if self.degree_norm == "dgl" and not self.allow_zero_in_degree:
            check_zero_in_degree("SGConv", csr_of(inp).in_degrees())
        if self.cached and self._cache is not None:
            h = self._cache
        elif self.degree_norm == "dgl":  # DGL's: the norm callable is cached with S^K X
            h = self._dgl_hops(inp, edge_weight)
        else:
            h = propagate_hops(
                inp.edge_index,
                inp.x_src,
                self.K,
                num_nodes=inp.num_src,
                edge_weight=edge_weight,
                add_self_loops=self.add_self_loops,
            )[-1]
            h = h if self.norm is None else self.norm(h)
            if self.cached:
                self._cache = h
        return self.lin(h)

    def _dgl_hops(self, inp: Any, edge_weight: Any) -> Any:
        """DGL's ``S^K X`` (then ``norm``), kept when ``cached``."""
        from arraygnn.ops.slot_order import spmm_slots

        csr, w = _dgl_propagation(inp, edge_weight, "in", inp.x_src.dtype)
        h = inp.x_src
        for _ in range(self.K):
            h = spmm_slots(csr, h, w)
        h = h if self.norm is None else self.norm(h)
        if self.cached:
            self._cache = h
        return h

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        """DGL's ``fc.*`` are ``lin.*`` here."""
        return {("lin." + k[3:] if k.startswith("fc.") else k): v for k, v in values.items()}

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return {("fc." + k[4:] if k.startswith("lin.") else k): v for k, v in values.items()}

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, K={self.K}"


def _homogeneous(layer: str, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any) -> Any:
    """The parsed input of a layer that propagates over one node set."""
    inp = parse_input(layer, x_or_graph, edge_index_or_feat)
    check_one_node_set(layer, inp)  # a pair (x_src, x_dst) would silently lose x_dst
    check_float_features(layer, inp.x_src)
    check_edge_weight(layer, edge_weight, inp.num_edges)
    return inp


def propagation_input(
    layer: str, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None
) -> GraphInput:
    """The parsed input of a layer that propagates ``[N, F]`` features over one node set:
    PyG's ``(x, edge_index)`` or DGL's ``(graph, feat)``, floating-point ``x`` of exactly
    two dimensions (PyG's propagation would read dimension -2 of a 3-D ``x`` as the nodes),
    ids in range and ``edge_weight`` ``(E,)`` floating point or ``None``; every error
    names ``layer``."""
    inp = _homogeneous(layer, x_or_graph, edge_index_or_feat, edge_weight)
    if inp.x_src.ndim != 2:
        raise ValueError(
            f"{layer}: node features must be [num_nodes, channels], got shape "
            f"{list(inp.x_src.shape)}"
        )
    return inp


def _propagation(inp: Any, edge_weight: Any, normalize: bool, loops: bool, dtype: Any) -> Any:
    """``(csr, weights in slot order or None)`` of ``S`` (``normalize``) or of the raw
    (optionally weighted) adjacency."""
    from arraygnn import ops
    from arraygnn.ops.slot_order import to_slot_order

    if normalize:
        csr, w = normalized_slots(
            inp.edge_index, edge_weight, inp.num_src, add_self_loops=loops, dtype=dtype
        )
        return csr, w.astype(dtype, copy=False)
    csr = ops.to_csr(inp.edge_index, inp.num_src, inp.num_dst)
    return csr, to_slot_order(csr, edge_weight)


_DEGREE_NORMS = ("gcn", "dgl")


def _check_degree_norm(layer: str, degree_norm: str) -> str:
    if degree_norm not in _DEGREE_NORMS:
        raise ValueError(f"{layer}: degree_norm must be 'gcn' or 'dgl', got {degree_norm!r}")
    return degree_norm


def _dgl_propagation(inp: Any, edge_weight: Any, source_side: str, dtype: Any) -> Any:
    """``(csr, weights in slot order)`` of DGL's normalised adjacency (no self-loops).

    Without ``edge_weight``: edge counts clamped at 1, ``deg_src^-1/2`` at the source and
    ``in_deg^-1/2`` at the target, ``deg_src`` the source's in-degree (DGL's ``TAGConv``,
    ``source_side='in'``) or out-degree (``APPNPConv``, ``'out'``). With ``edge_weight``:
    DGL's ``EdgeWeightNorm('both')``, ``w / sqrt(w_out(src) w_in(dst))`` over the weighted
    degrees (a non-positive weight is a ``ValueError``, as DGL's error)."""
    from arraygnn import ops
    from arraygnn.ops.slot_order import to_slot_order

    xp = get_namespace(inp.x_src)
    csr = ops.to_csr(inp.edge_index, inp.num_src, inp.num_dst)
    src, dst = csr.src, csr.dst
    if edge_weight is None:
        ones = xp.ones(inp.num_edges, dtype=dtype)
        in_deg = xp.maximum(csr.in_degrees().astype(dtype), 1)
        if source_side == "out":
            src_deg = xp.maximum(ops.scatter(ones, src, inp.num_src, reduce="sum"), 1)
        else:
            src_deg = in_deg
        w = torch_rsqrt(src_deg[src]) * torch_rsqrt(in_deg[dst])
    else:
        if inp.num_edges and bool((edge_weight <= 0).any()):
            raise ValueError(
                "edge_weight: non-positive edge weight with DGL's 'both' normalisation (the "
                "square root of a zero or negative degree)"
            )
        w_in = ops.scatter(edge_weight, dst, inp.num_dst, reduce="sum")
        w_out = ops.scatter(edge_weight, src, inp.num_src, reduce="sum")
        w = torch_rsqrt(w_out[src]) * edge_weight * torch_rsqrt(w_in[dst])
    return csr, to_slot_order(csr, w.astype(dtype, copy=False))


class APPNP(Module):
    r"""Personalised-PageRank propagation (PyG's ``APPNP``), no weights:
    :math:`X^{(0)} = X,\ X^{(k+1)} = (1 - \alpha) S X^{(k)} + \alpha X`, ``K`` times.

    Args:
        K: number of propagation steps.
        alpha: teleport probability.
        cached: keep the normalised graph from the first call (transductive use, as PyG).
        add_self_loops: ``S`` of ``A + I`` (default ``True``).
        normalize: symmetric GCN normalisation (default ``True``); ``False`` propagates over
            the (``edge_weight``-weighted) adjacency as given.
        degree_norm: ``'gcn'`` (PyG's ``gcn_norm``, default) or ``'dgl'`` (DGL's
            ``APPNPConv``: no self-loops, ``out_deg(src)^-1/2 in_deg(dst)^-1/2`` of edge counts
            clamped at 1, or ``EdgeWeightNorm('both')`` of ``edge_weight``).

    Shapes:
        - input: x ``(N, F)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, F)``

    >>> import numpy as np
    >>> APPNP(K=10, alpha=0.1)(np.eye(3), np.array([[0, 1, 2], [1, 2, 0]])).shape
    (3, 3)
    """

    def __init__(
        self,
        K: int,
        alpha: float,
        cached: bool = False,
        add_self_loops: bool = True,
        normalize: bool = True,
        *,
        degree_norm: str = "gcn",
    ) -> None:
        self.K = layer_size("APPNP", "K", K)
        self.degree_norm = _check_degree_norm("APPNP", degree_norm)
        if degree_norm == "dgl" and add_self_loops:
            raise ValueError(
                "APPNP: degree_norm='dgl' adds no self-loops; pass add_self_loops=False"
            )
        alpha = float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"APPNP: alpha must be in [0, 1], got {alpha}")
        self.alpha = alpha
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        self.normalize = bool(normalize)
        self._cache: Any = None

    def _clear_cache(self) -> None:
        self._cache = None

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        inp = _homogeneous("APPNP", x_or_graph, edge_index_or_feat, edge_weight)
        x0 = inp.x_src
        if self.cached and self._cache is not None:
            csr, w = self._cache
        elif self.degree_norm == "dgl" and self.normalize:
            csr, w = _dgl_propagation(inp, edge_weight, "out", x0.dtype)
        else:
            csr, w = _propagation(inp, edge_weight, self.normalize, self.add_self_loops, x0.dtype)
        if self.cached:
            self._cache = (csr, w)
        keep = x0.dtype.type(1.0 - self.alpha)
        teleport = x0 * x0.dtype.type(self.alpha)
        x = x0
        for _ in range(self.K):
            x = spmm_slots(csr, x, w)
            x *= keep
            x += teleport
        return x

    def extra_repr(self) -> str:
        return f"K={self.K}, alpha={self.alpha}"


def _polynomial_weights(
    layer: Module, in_channels: Any, out_channels: Any, count: int, bias: bool, dtype: Any, rng: Any
) -> None:
    """``layer.lins`` (``count`` bias-free Linears, PyG's ``lins.k``) and ``layer.bias``: the
    weights of a layer that sums one linear map per propagation power."""
    name = type(layer).__name__
    gen = _rng(rng)
    layer.in_channels = layer_size(name, "in_channels", in_channels)
    layer.out_channels = layer_size(name, "out_channels", out_channels)
    layer.lins = _ModuleList(
        [
            Linear(layer.in_channels, layer.out_channels, False, dtype=dtype, rng=gen)
            for _ in range(count)
        ]
    )
    layer.bias = np.zeros(layer.out_channels, dtype=dtype) if bias else None


class TAGConv(Module):
    r"""Topology adaptive graph convolution (PyG's ``TAGConv``):
    :math:`X' = \sum_{k=0}^{K} (S^k X) W_k + b` with ``S`` the GCN normalisation of ``A``
    (no self-loops, as PyG).

    Args:
        in_channels / out_channels: sizes.
        K: number of hops (default 3).
        bias: additive bias.
        normalize: symmetric normalisation (default ``True``); ``False`` uses the
            (``edge_weight``-weighted) adjacency as given.
        degree_norm: ``'gcn'`` (PyG's ``gcn_norm`` without loops, default) or ``'dgl'`` (DGL's
            ``TAGConv``: ``in_deg^-1/2`` on both sides, edge counts clamped at 1, or
            ``EdgeWeightNorm('both')`` of ``edge_weight``).
        activation: applied last (DGL's ``activation``).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, out_channels)``

    Parameter names (PyG): ``lins.k.weight`` ``(out, in)`` for k = 0..K, ``bias``; DGL's one
    ``lin.weight`` ``(out, (K + 1) in)`` / ``lin.bias`` load and export too.
    """

    _param_names = ("bias",)
    _child_names = ("lins",)
    _dgl_supported = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        K: int = 3,
        bias: bool = True,
        normalize: bool = True,
        *,
        degree_norm: str = "gcn",
        activation: Any = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.K = layer_size("TAGConv", "K", K)
        self.normalize = bool(normalize)
        self.degree_norm = _check_degree_norm("TAGConv", degree_norm)
        self.activation = get_activation(activation)
        _polynomial_weights(self, in_channels, out_channels, self.K + 1, bias, dtype, rng)

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        inp = _homogeneous("TAGConv", x_or_graph, edge_index_or_feat, edge_weight)
        x = inp.x_src
        _check_features(x, self.in_channels, "TAGConv node features")
        out = self.lins[0](x)
        if self.K:
            if self.degree_norm == "dgl" and self.normalize:
                csr, w = _dgl_propagation(inp, edge_weight, "in", x.dtype)
            else:
                csr, w = _propagation(inp, edge_weight, self.normalize, False, x.dtype)
            for lin in list(self.lins)[1:]:
                x = spmm_slots(csr, x, w)
                out = out + lin(x)
        out = out if self.bias is None else add_bias(out, self.bias)
        return out if self.activation is None else self.activation(out)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        """DGL's one ``lin`` over ``[X, SX, ..., S^K X]``: its column blocks are ``lins.k``."""
        out = {k: v for k, v in values.items() if k not in ("lin.weight", "lin.bias")}
        if "lin.weight" in values:
            weight = values["lin.weight"]
            cols = self.in_channels
            want = (self.out_channels, (self.K + 1) * cols)
            if tuple(weight.shape) != want:
                raise ValueError(
                    f"TAGConv.load_state_dict: 'lin.weight' has shape {tuple(weight.shape)}, "
                    f"expected {want} (DGL's one Linear over the K + 1 = {self.K + 1} hops)"
                )
            for k in range(self.K + 1):
                out[f"lins.{k}.weight"] = weight[:, k * cols : (k + 1) * cols]
        if "lin.bias" in values:
            out["bias"] = values["lin.bias"]
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        xp = get_namespace(*values.values())
        out = {
            "lin.weight": xp.concatenate(
                [values[f"lins.{k}.weight"] for k in range(self.K + 1)], axis=1
            )
        }
        if "bias" in values:
            out["lin.bias"] = values["bias"]
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, K={self.K}"


_CHEB_NORMALIZATIONS = (None, "sym", "rw")


class ChebConv(Module):
    r"""Chebyshev spectral graph convolution (PyG's ``ChebConv``):
    :math:`X' = \sum_{k=0}^{K-1} T_k(\hat L) X W_k + b` with
    :math:`\hat L = 2 L / \lambda_{max} - I`, :math:`T_0 = I`, :math:`T_1 = \hat L`,
    :math:`T_k = 2 \hat L T_{k-1} - T_{k-2}`.

    Args:
        in_channels / out_channels: sizes.
        K: number of Chebyshev terms (>= 1).
        normalization: the Laplacian ``L``: ``'sym'`` (``I - D^-1/2 A D^-1/2``, default),
            ``'rw'`` (``I - D^-1 A``) or ``None`` (``D - A``); ``D`` holds the weighted
            out-degrees and existing self-loops are dropped, as PyG's ``get_laplacian``.
        bias: additive bias.
        activation: applied last (DGL's ``activation``; DGL's default is ``relu``).
        degree_norm: ``'gcn'`` (PyG's Laplacian, default) or ``'dgl'`` (DGL's: see below).

    Call as ``conv(x, edge_index, edge_weight=None, batch=None, lambda_max=None)`` or DGL's
    ``conv(graph, feat, lambda_max=None)``: ``lambda_max`` defaults to twice the largest
    entry of ``L`` (PyG's rule: 2 for ``'sym'``, DGL's default); a number, or one per graph
    with ``batch`` (a batched DGL-face graph gives it: DGL's list of one per graph).

    ``degree_norm='dgl'`` is DGL's ``ChebConv`` on any graph: ``L = I - D^-1/2 A D^-1/2``
    with ``D`` the in-degrees (edge counts clamped at 1) at both ends and ``A`` every edge,
    self-loops and parallel edges included; ``lambda_max`` 2 unless given; no
    ``edge_weight`` (DGL's layer takes none). On a graph with symmetric edges and no
    self-loops this equals ``'gcn'`` (PyG's Laplacian uses out-degrees and drops
    self-loops). DGL's ``linear.weight`` ``(out, K * in)`` / ``linear.bias`` load with
    ``load_state_dict(..., format='dgl')``; ``from_dgl`` sets ``degree_norm='dgl'``.

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)``
        - output: ``(N, out_channels)``

    Parameter names (PyG): ``lins.k.weight`` ``(out, in)`` for k = 0..K-1, ``bias``.
    """

    _param_names = ("bias",)
    _child_names = ("lins",)
    _dgl_supported = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        K: int,
        normalization: str | None = "sym",
        bias: bool = True,
        *,
        activation: Any = None,
        degree_norm: str = "gcn",
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.K = layer_size("ChebConv", "K", K, minimum=1)
        self.activation = get_activation(activation)
        self.degree_norm = _check_degree_norm("ChebConv", degree_norm)
        if degree_norm == "dgl" and normalization != "sym":
            raise ValueError("ChebConv: degree_norm='dgl' is DGL's 'sym' Laplacian only")
        if normalization not in _CHEB_NORMALIZATIONS:
            raise ValueError(
                f"ChebConv: normalization must be 'sym', 'rw' or None, got {normalization!r}"
            )
        self.normalization = normalization
        _polynomial_weights(self, in_channels, out_channels, self.K, bias, dtype, rng)

    def __call__(
        self,
        x_or_graph: Any,
        edge_index_or_feat: Any,
        *args: Any,
        edge_weight: Any = None,
        batch: Any = None,
        lambda_max: Any = None,
    ) -> Any:
        """PyG's ``conv(x, edge_index, edge_weight, batch, lambda_max)`` or DGL's
        ``conv(graph, feat, lambda_max)``: positional arguments after the first two take
        the order of the call's form; keywords keep their names in both."""
        from arraygnn.nn._graph_input import is_graph
        from arraygnn.ops.slot_order import spmm_slots

        dgl = is_graph(x_or_graph)
        names = ("lambda_max",) if dgl else ("edge_weight", "batch", "lambda_max")
        if len(args) > len(names):
            raise TypeError(
                f"ChebConv: takes at most {len(names) + 2} positional arguments "
                f"({'graph, feat, lambda_max' if dgl else 'x, edge_index, ' + ', '.join(names)})"
                f", got {len(args) + 2}"
            )
        given = {"edge_weight": edge_weight, "batch": batch, "lambda_max": lambda_max}
        for name, value in zip(names, args):
            if given[name] is not None:
                raise TypeError(
                    "ChebConv: called DGL-style, conv(g, feat, lambda_max): the third argument "
                    "is lambda_max; got it twice"
                    if dgl
                    else f"ChebConv: got {name} twice (by position and by keyword)"
                )
            given[name] = value
        edge_weight, batch, lambda_max = given["edge_weight"], given["batch"], given["lambda_max"]
        inp = _homogeneous("ChebConv", x_or_graph, edge_index_or_feat, edge_weight)
        x = inp.x_src
        _check_features(x, self.in_channels, "ChebConv node features")
        if edge_weight is not None and self.degree_norm == "dgl":
            raise ValueError("ChebConv: degree_norm='dgl' takes no edge_weight (as DGL's)")
        if batch is None and getattr(x_or_graph, "batch_size", 1) > 1:  # DGL: per graph
            from arraygnn._namespace import repeat_counts

            xp = get_namespace(x)
            counts = xp.asarray(x_or_graph.batch_num_nodes(), dtype=np.int64)
            ids = xp.arange(counts.shape[0], dtype=np.int64)
            batch = repeat_counts(xp, ids, counts, total=int(x.shape[0]))  # no CuPy sync
        out = self.lins[0](x)
        if self.K > 1:
            csr, w = self._scaled_laplacian(inp, edge_weight, batch, lambda_max, x.dtype)
            tx0, tx1 = x, spmm_slots(csr, x, w)
            out = out + self.lins[1](tx1)
            for lin in list(self.lins)[2:]:
                tx2 = spmm_slots(csr, tx1, w)
                tx2 = tx2 * tx2.dtype.type(2) - tx0
                out = out + lin(tx2)
                tx0, tx1 = tx1, tx2
        out = out if self.bias is None else add_bias(out, self.bias)
        return out if self.activation is None else self.activation(out)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        """DGL's one ``linear`` over ``[T_0 X, ..., T_{K-1} X]``: its column blocks."""
        out = {k: v for k, v in values.items() if k not in ("linear.weight", "linear.bias")}
        if "linear.weight" in values:
            weight, cols = values["linear.weight"], self.in_channels
            want = (self.out_channels, self.K * cols)
            if tuple(weight.shape) != want:
                raise ValueError(
                    f"ChebConv.load_state_dict: 'linear.weight' has shape "
                    f"{tuple(weight.shape)}, expected {want} (DGL's one Linear over K = "
                    f"{self.K} terms)"
                )
            for k in range(self.K):
                out[f"lins.{k}.weight"] = weight[:, k * cols : (k + 1) * cols]
        if "linear.bias" in values:
            out["bias"] = values["linear.bias"]
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        xp = get_namespace(*values.values())
        out = {
            "linear.weight": xp.concatenate(
                [values[f"lins.{k}.weight"] for k in range(self.K)], axis=1
            )
        }
        if "bias" in values:
            out["linear.bias"] = values["bias"]
        return out

    def _scaled_laplacian(
        self, inp: Any, edge_weight: Any, batch: Any, lambda_max: Any, dtype: Any
    ) -> tuple[Any, Any]:
        """``(csr, weights in slot order)`` of ``2 L / lambda_max - I`` (PyG's ``__norm__``)."""
        from arraygnn import ops
        from arraygnn.nn.graph_conv import _inv_sqrt
        from arraygnn.ops._common import check_index
        from arraygnn.ops.slot_order import to_slot_order

        if self.degree_norm == "dgl":
            return self._dgl_scaled_laplacian(inp, batch, lambda_max, dtype)
        xp = get_namespace(inp.x_src)
        n = inp.num_src
        src, dst = inp.src, inp.dst
        check_index("ChebConv: edge_index[0] (sources)", src, n)  # before they index arrays
        check_index("ChebConv: edge_index[1] (targets)", dst, inp.num_dst)
        w = xp.ones(src.shape[0], dtype=dtype) if edge_weight is None else edge_weight
        keep = src != dst
        src, dst, w = src[keep], dst[keep], w[keep].astype(dtype, copy=False)
        deg = ops.scatter(w, src, n, reduce="sum")  # out-degrees, as get_laplacian
        loops = xp.arange(n, dtype=np.int64)
        if self.normalization is None:  # D - A
            values, loop_values = -w, deg
        else:
            if self.normalization == "sym":  # deg^-1/2, 0 for a node without edges
                inv = _inv_sqrt(deg, deg.dtype)
                values = -inv[src] * w * inv[dst]
            else:  # 'rw'
                with np.errstate(divide="ignore"):
                    inv = deg.dtype.type(1) / deg
                inv[xp.isinf(inv)] = 0
                values = -inv[src] * w
            loop_values = xp.ones(n, dtype=values.dtype)
        all_src = xp.concatenate([src.astype(np.int64), loops])
        all_dst = xp.concatenate([dst.astype(np.int64), loops])
        values = xp.concatenate([values, loop_values.astype(values.dtype, copy=False)])
        if lambda_max is None:
            lam = values.dtype.type(2) * values.max() if values.shape[0] else 2.0
        else:
            lam = xp.asarray(lambda_max, dtype=values.dtype)
            if lam.ndim and lam.size > 1:
                lam = lam.reshape(-1)[_graph_ids(batch, n, int(lam.size))[all_src]]
        with np.errstate(divide="ignore", invalid="ignore"):
            values = values * values.dtype.type(2) / lam
        values[xp.isinf(values)] = 0
        if n:
            values[-n:] -= 1  # the loops (the last n entries): - I
        csr = ops.to_csr((all_src, all_dst), n, n)
        return csr, to_slot_order(csr, values.astype(dtype, copy=False))

    def _dgl_scaled_laplacian(
        self, inp: Any, batch: Any, lambda_max: Any, dtype: Any
    ) -> tuple[Any, Any]:
        """DGL's ``2 / lambda_max (I - D^-1/2 A D^-1/2) - I``: in-degree counts clamped at 1
        at both ends, every edge kept (self-loops, parallel edges), ``lambda_max`` 2 by
        default or one per graph (the destination's graph), as DGL's forward."""
        from arraygnn import ops
        from arraygnn.ops._common import check_index
        from arraygnn.ops.slot_order import to_slot_order

        xp = get_namespace(inp.x_src)
        n = inp.num_src
        check_index("ChebConv: edge_index[0] (sources)", inp.src, n)
        check_index("ChebConv: edge_index[1] (targets)", inp.dst, inp.num_dst)
        src, dst = inp.src.astype(np.int64), inp.dst.astype(np.int64)
        ones = xp.ones(src.shape[0], dtype=dtype)
        inv = torch_rsqrt(xp.maximum(ops.scatter(ones, dst, n, reduce="sum"), 1))
        loops = xp.arange(n, dtype=np.int64)
        all_src, all_dst = xp.concatenate([src, loops]), xp.concatenate([dst, loops])
        values = xp.concatenate([-inv[src] * inv[dst], xp.ones(n, dtype=dtype)])
        lam = xp.asarray(2.0 if lambda_max is None else lambda_max, dtype=dtype).reshape(-1)
        if lam.size > 1:  # one per graph: each edge takes its destination's
            lam = lam[_graph_ids(batch, n, int(lam.size))[all_dst]]
        values = values * (dtype.type(2) / lam)
        if n:
            values[-n:] -= 1  # the loops (the last n entries): - I
        csr = ops.to_csr((all_src, all_dst), n, n)
        return csr, to_slot_order(csr, values.astype(dtype, copy=False))

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, K={self.K}, "
            f"normalization={self.normalization}"
        )


def _graph_ids(batch: Any, num_nodes: int, num_graphs: int) -> Any:
    """``batch`` checked: one graph id per node, each in ``[0, num_graphs)``."""
    if batch is None:
        raise ValueError("ChebConv: a lambda_max per graph needs batch (the graph of each node)")
    if not is_array(batch) or batch.dtype.kind not in "iu" or batch.shape != (num_nodes,):
        raise ValueError(
            f"ChebConv: batch must be an integer array of shape ({num_nodes},), got "
            f"{getattr(batch, 'shape', type(batch).__name__)} "
            f"{getattr(batch, 'dtype', '')}".rstrip()
        )
    if num_nodes and (int(batch.min()) < 0 or int(batch.max()) >= num_graphs):
        raise ValueError(
            f"ChebConv: batch holds graph ids outside [0, {num_graphs}) "
            f"(lambda_max has {num_graphs} entries)"
        )
    return batch
