"""DGL's ``DGNConv`` (directional graph networks, Beaini et al.) and the DGL ``PNAConv`` it
extends (named ``DGLPNAConv`` here: :class:`arraygnn.nn.PNAConv` is PyG's, with other
aggregator maths, scalers and weights).

Each tower takes its slice of the node features, builds one message per edge
``M [h_src, h_dst, a]``, reduces each target's messages with every aggregator (``mean``,
``sum``, ``max``, ``min``, ``std``, ``var``, ``moment3..5``, and for DGN the directional
``dir{k}-av`` / ``dir{k}-dx`` over the ``k``-th eigenvector's differences along the edges),
scales the concatenation by every scaler (``identity``, ``amplification``
``log(D + 1) / delta``, ``attenuation`` ``delta / log(D + 1)``, with ``D`` the in-degree),
maps ``[h, scaled aggregates]`` with ``U``, multiplies by ``1 / sqrt(nodes of its graph)``
and applies the batch norm (running statistics); the towers are concatenated, mixed by a
Linear + LeakyReLU(0.01), and the input is added when ``residual`` and the sizes match.
A node without in-edges aggregates 0 (DGL's rule for a reduce function).

How it runs: ``M`` is linear, so it is applied per node (two ``[N, F]`` products) and the
per-edge ``[E, F]`` messages are sums of gathered rows, made in the CSR's slot order;
every aggregator is then a segment reduction over contiguous rows (the moments and the
standard deviation need the messages themselves, so the ``[E, F]`` per tower is formed).

>>> import numpy as np
>>> conv = DGNConv(4, 4, ["dir1-av", "dir1-dx", "sum"], ["identity", "amplification"],
...                delta=1.0, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> conv(np.ones((3, 4), np.float32), ei, eig_vec=np.eye(3, dtype=np.float32)).shape
(3, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.nn._dgl_common import (
    DGLModule,
    check_edge_feat,
    homogeneous_input,
    slot_ends,
)
from arraygnn.nn._graph_input import csr_of
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.linear import (
    BatchNorm,
    Linear,
    Sequential,
    _check_features,
    _leaky_relu,
    _ModuleList,
    _rng,
    add_bias,
    matmul,
)

__all__ = ["DGLPNAConv", "DGNConv"]

AGGREGATORS = ("mean", "sum", "max", "min", "std", "var", "moment3", "moment4", "moment5")
DIRECTIONAL = tuple(f"dir{k}-{kind}" for k in (1, 2, 3) for kind in ("av", "dx"))
SCALERS = ("identity", "amplification", "attenuation")


class _Tower(DGLModule):
    """One tower's weights: ``M`` (message), ``U`` (update), ``batchnorm``."""

    _child_names = ("M", "U", "batchnorm")

    def __init__(self, fin: int, fout: int, width: int, edge: int, dtype: Any, gen: Any) -> None:
        self.M = Linear(2 * fin + edge, fin, dtype=dtype, rng=gen)
        self.U = Linear((width + 1) * fin, fout, dtype=dtype, rng=gen)
        self.batchnorm = BatchNorm(fout, dtype=dtype)


class DGLPNAConv(DGLModule):
    """DGL's ``PNAConv`` (inference), DGL's parameter names.

    Args:
        in_size, out_size: sizes (each divisible by ``num_towers``).
        aggregators: names from ``mean, sum, max, min, std, var, moment3, moment4, moment5``
            (``DGNConv`` adds ``dir1-av`` ... ``dir3-dx``).
        scalers: names from ``identity, amplification, attenuation``.
        delta: the mean ``log(D + 1)`` of the training graphs.
        dropout: a probability in ``[0, 1]``, ignored (the identity at inference).
        num_towers: towers, each on ``in_size / num_towers`` input features.
        edge_feat_size: edge feature size (0: none).
        residual: add the input (dropped unless ``in_size == out_size``, as DGL).

    Call as ``conv(graph, node_feat, edge_feat=None)`` or ``conv(x, edge_index,
    edge_feat=None)`` (one node set, as DGL's). A batched graph's ``batch_num_nodes()``
    gives each graph's ``1 / sqrt(N)`` factor; an ``edge_index`` is one graph.

    Shapes:
        - input: ``(N, in_size)``, edge_feat ``(E, edge_feat_size)``
        - output: ``(N, out_size)``
        - memory: ``(E, in_size / num_towers)`` messages per tower

    Names (DGL's): ``towers.<t>.M`` ``(in_t, 2 in_t + edge)``, ``towers.<t>.U``
    ``(out_t, (aggregators * scalers + 1) in_t)``, ``towers.<t>.batchnorm.*``,
    ``mixing_layer.0`` ``(out, out)``.
    """

    _child_names = ("towers", "mixing_layer")
    _known_aggregators = AGGREGATORS

    def __init__(
        self,
        in_size: int,
        out_size: int,
        aggregators: Sequence[str],
        scalers: Sequence[str],
        delta: float,
        dropout: float = 0.0,
        num_towers: int = 1,
        edge_feat_size: int = 0,
        residual: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = type(self).__name__
        self.in_size = layer_size(layer, "in_size", in_size)
        self.out_size = layer_size(layer, "out_size", out_size)
        self.num_towers = layer_size(layer, "num_towers", num_towers, minimum=1)
        self.edge_feat_size = layer_size(layer, "edge_feat_size", edge_feat_size)
        if self.in_size % self.num_towers or self.out_size % self.num_towers:
            raise ValueError(
                f"{layer}: in_size ({self.in_size}) and out_size ({self.out_size}) must be "
                f"divisible by num_towers ({self.num_towers})"
            )
        self.aggregators = [str(a) for a in aggregators]
        self.scalers = [str(s) for s in scalers]
        for name, given, known in (
            ("aggregators", self.aggregators, self._known_aggregators),
            ("scalers", self.scalers, SCALERS),
        ):
            bad = [g for g in given if g not in known]
            if not given or bad:
                raise ValueError(
                    f"{layer}: {name} must be a non-empty list from {known}, got {given}"
                )
        try:
            self.delta = float(delta)
        except (TypeError, ValueError):
            raise TypeError(f"{layer}: delta must be a number, got {delta!r}") from None
        self.dropout = probability(layer, "dropout", dropout)
        self.residual = bool(residual) and self.in_size == self.out_size
        self.tower_in = self.in_size // self.num_towers
        self.tower_out = self.out_size // self.num_towers
        gen = _rng(rng)
        width = len(self.aggregators) * len(self.scalers)
        self.towers = _ModuleList(
            [
                _Tower(self.tower_in, self.tower_out, width, self.edge_feat_size, dtype, gen)
                for _ in range(self.num_towers)
            ]
        )
        self.mixing_layer = Sequential(
            Linear(self.out_size, self.out_size, dtype=dtype, rng=gen), _leaky_relu
        )

    def __call__(self, graph_or_x: Any, node_feat_or_edge_index: Any, edge_feat: Any = None) -> Any:
        return self._forward(graph_or_x, node_feat_or_edge_index, edge_feat, None)

    def _forward(self, first: Any, second: Any, edge_feat: Any, eig_vec: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import to_slot_order

        layer = type(self).__name__
        inp = homogeneous_input(layer, first, second)
        x = inp.x_src
        _check_features(x, self.in_size, f"{layer} node_feat", self.mixing_layer[0].weight)
        if x.ndim != 2:
            raise ValueError(f"{layer}: node_feat must be [num_nodes, in_size], got {x.shape}")
        xp = get_namespace(x)
        n = inp.num_src
        if self.edge_feat_size:
            edge_feat = check_edge_feat(
                layer, "edge_feat", edge_feat, inp.num_edges, self.edge_feat_size, x
            )
        elif edge_feat is not None:
            raise ValueError(
                f"{layer}: edge_feat was given but the layer has edge_feat_size=0 (DGL would "
                "ignore it)"
            )
        csr = csr_of(inp)
        src, dst = slot_ends(csr)  # messages are made in slot order
        deg = csr.in_degrees()
        a = to_slot_order(csr, edge_feat) if self.edge_feat_size else None
        directions = self._directions(xp, ops, eig_vec, src, dst, csr, x.dtype)
        snorm = self._graph_norm(xp, inp, n, x.dtype)
        fin = self.tower_in
        outs = []
        for t, tower in enumerate(self.towers):
            h = xp.ascontiguousarray(x[:, t * fin : (t + 1) * fin])
            w = tower.M.weight  # columns: [h_src | h_dst | edge]
            msg = ops.gather(matmul(h, w[:, :fin].T), src)
            msg += ops.gather(matmul(h, w[:, fin : 2 * fin].T), dst)
            if a is not None:
                msg += matmul(a, w[:, 2 * fin :].T).astype(msg.dtype, copy=False)
            msg = add_bias(msg, tower.M.bias)  # [E, F_t], slot order
            aggs = self._aggregate(xp, ops, msg, csr.indptr, dst, h, directions)
            neigh = self._scale(xp, aggs, deg)
            out = tower.U(xp.concatenate([h, neigh], axis=1)) * snorm
            outs.append(tower.batchnorm(out))
        out = self.mixing_layer(xp.concatenate(outs, axis=1))
        return out + x if self.residual else out

    def _directions(
        self, xp: Any, ops: Any, eig_vec: Any, src: Any, dst: Any, csr: Any, dtype: Any
    ) -> dict[int, tuple[Any, Any]]:
        """Per directional eigenvector ``k``: ``(eig[src, k] - eig[dst, k]) / (sum over the
        target's edges of |...| + 1e-30)`` in slot order and its per-target sum."""
        del xp, ops, eig_vec, src, dst, csr, dtype
        return {}

    def _graph_norm(self, xp: Any, inp: Any, n: int, dtype: Any) -> Any:
        """``(N, 1)``: ``sqrt(1 / nodes of the node's graph)`` (DGL's ``snorm_n``)."""
        g = inp.graph
        if g is not None and hasattr(g, "batch_num_nodes"):
            counts = xp.asarray(g.batch_num_nodes())
        else:
            counts = xp.asarray([n])
        wide = np.promote_types(dtype, np.float32)  # a count beyond float16 (65504) is inf
        with np.errstate(divide="ignore"):
            per_graph = xp.sqrt(xp.ones(counts.shape, dtype=wide) / counts.astype(wide))
        return repeat_counts(xp, per_graph.astype(dtype, copy=False), counts)[:, None]

    def _aggregate(
        self, xp: Any, ops: Any, msg: Any, indptr: Any, dst: Any, h: Any, directions: Any
    ) -> Any:
        """Every aggregator over each target's slots, concatenated (``[N, A * F_t]``)."""
        cache: dict[str, Any] = {}
        tiny = msg.dtype.type(1e-30)

        def mean() -> Any:
            if "mean" not in cache:
                cache["mean"] = ops.segment(msg, indptr, reduce="mean")
            return cache["mean"]

        def var() -> Any:
            if "var" not in cache:
                m = mean()
                cache["var"] = xp.maximum(ops.segment(msg * msg, indptr, "mean") - m * m, 0)
            return cache["var"]

        out = []
        for name in self.aggregators:
            if name == "mean":
                out.append(mean())
            elif name == "var":
                out.append(var())
            elif name == "std":
                out.append(xp.sqrt(var() + tiny))
            elif name.startswith("moment"):
                order = int(name[-1])
                centred = msg - ops.gather(mean(), dst)
                m = ops.segment(centred**order, indptr, "mean")
                out.append(xp.sign(m) * (xp.abs(m) + tiny) ** msg.dtype.type(1.0 / order))
            elif name.startswith("dir"):
                k = int(name[3]) - 1
                w, total = directions[k]
                if name.endswith("av"):
                    out.append(ops.segment(msg * xp.abs(w)[:, None], indptr, "sum"))
                else:
                    s = ops.segment(msg * w[:, None], indptr, "sum")
                    out.append(xp.abs(s - total[:, None] * h))
            else:
                out.append(ops.segment(msg, indptr, reduce=name))
        return xp.concatenate(out, axis=1)

    def _scale(self, xp: Any, aggs: Any, deg: Any) -> Any:
        """The aggregates times every scaler, concatenated; rows of nodes without in-edges
        are 0 (DGL never calls the reduce function on them)."""
        d = deg.astype(aggs.dtype)[:, None]
        log_d = xp.log(d + 1)
        delta = aggs.dtype.type(self.delta)
        parts = []
        with np.errstate(divide="ignore", invalid="ignore"):
            for name in self.scalers:
                if name == "identity":
                    parts.append(aggs)
                elif name == "amplification":
                    parts.append(aggs * (log_d / delta))
                else:
                    parts.append(aggs * (delta / log_d))
            out = xp.concatenate(parts, axis=1)
        out[deg == 0] = 0
        return out

    def extra_repr(self) -> str:
        return (
            f"{self.in_size}, {self.out_size}, aggregators={self.aggregators}, "
            f"scalers={self.scalers}, num_towers={self.num_towers}"
        )


class DGNConv(DGLPNAConv):
    """DGL's ``DGNConv`` (inference): :class:`DGLPNAConv` with the directional aggregators
    ``dir1-av`` ... ``dir3-dx`` on top.

    For edge ``j -> i`` and eigenvector ``k``: ``d_e = eig[j, k] - eig[i, k]``,
    ``w_e = d_e / (sum_{e' into i} |d_e'| + 1e-30)``; ``dir{k}-av`` is
    ``sum_e |w_e| m_e`` and ``dir{k}-dx`` is ``|sum_e w_e m_e - (sum_e w_e) h_i|`` with
    ``h_i`` the target's tower input.

    Call as ``conv(graph, node_feat, edge_feat=None, eig_vec=None)`` or
    ``conv(x, edge_index, edge_feat=None, eig_vec=None)``; ``eig_vec`` ``(N, K)`` (Laplacian
    eigenvectors, ``K`` at least the largest ``k`` used) is required when a directional
    aggregator is. Other arguments, shapes and names as :class:`DGLPNAConv`.
    """

    _known_aggregators = AGGREGATORS + DIRECTIONAL

    def __call__(
        self,
        graph_or_x: Any,
        node_feat_or_edge_index: Any,
        edge_feat: Any = None,
        eig_vec: Any = None,
    ) -> Any:
        return self._forward(graph_or_x, node_feat_or_edge_index, edge_feat, eig_vec)

    @property
    def use_eig_vec(self) -> bool:
        """Whether a directional aggregator (and so ``eig_vec``) is used."""
        return any(a.startswith("dir") for a in self.aggregators)

    def _directions(
        self, xp: Any, ops: Any, eig_vec: Any, src: Any, dst: Any, csr: Any, dtype: Any
    ) -> dict[int, tuple[Any, Any]]:
        ks = sorted({int(a[3]) - 1 for a in self.aggregators if a.startswith("dir")})
        if not ks:
            return {}
        n = csr.num_dst_nodes
        if not is_array(eig_vec) or get_namespace(eig_vec) is not xp:
            raise TypeError(
                f"DGNConv: aggregators {self.aggregators} need eig_vec, an (N, K) array on the "
                f"features' device; got {type(eig_vec).__name__}"
            )
        if eig_vec.dtype.kind != "f" or eig_vec.ndim != 2 or eig_vec.shape[0] != n:
            raise ValueError(
                f"DGNConv: eig_vec must be a floating-point ({n}, K) array, got shape "
                f"{tuple(eig_vec.shape)} dtype {eig_vec.dtype}"
            )
        if eig_vec.shape[1] <= ks[-1]:
            raise ValueError(
                f"DGNConv: dir{ks[-1] + 1} needs eig_vec with at least {ks[-1] + 1} columns, "
                f"got {eig_vec.shape[1]}"
            )
        out = {}
        for k in ks:
            col = eig_vec[:, k]
            d = ops.gather(col, src) - ops.gather(col, dst)  # slot order
            denom = ops.segment(xp.abs(d), csr.indptr, "sum") + d.dtype.type(1e-30)
            w = (d / ops.gather(denom, dst)).astype(dtype, copy=False)
            out[k] = (w, ops.segment(w, csr.indptr, "sum"))
        return out


def _from_dgl(cls: type, module: Any, dtype: Any) -> DGLPNAConv:
    from arraygnn.nn.weights import _load

    tower = module.towers[0]
    layer = cls(
        module.in_size,
        module.out_size,
        list(tower.aggregators),
        list(tower.scalers),
        tower.delta,
        num_towers=len(module.towers),
        edge_feat_size=module.edge_feat_size,
        residual=bool(module.residual),
        dtype=dtype,
    )
    for ours, theirs in zip(layer.towers, module.towers):
        bn = theirs.batchnorm
        if not bn.track_running_stats or not bn.affine:
            raise ValueError(
                f"from_dgl: {type(module).__name__} needs its batch norms' running statistics "
                "and affine weights (the defaults)"
            )
        ours.batchnorm.eps = float(bn.eps)
    slope = float(module.mixing_layer[1].negative_slope)
    if slope != 0.01:
        raise ValueError(f"from_dgl: {type(module).__name__} mixing LeakyReLU slope {slope}")
    return _load(layer, module, "dgl")


def from_dgl_pna(module: Any, dtype: Any, convert: Any) -> DGLPNAConv:
    """DGL's ``PNAConv`` -> :class:`DGLPNAConv` with its weights."""
    return _from_dgl(DGLPNAConv, module, dtype)


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGNConv:
    """DGL's ``DGNConv`` -> :class:`DGNConv` with its weights."""
    return _from_dgl(DGNConv, module, dtype)
