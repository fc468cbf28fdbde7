"""Principal neighbourhood aggregation (Corso et al.): PyG's ``PNAConv``.

Each tower builds messages ``pre_nn([x_i, x_j, enc(e_ji)])``, aggregates them with several
aggregators (mean, min, max, std, var, sum) on each target, scales every aggregate by
functions of the target's in-degree (identity, amplification, attenuation, linear,
inverse_linear), and maps ``[x_i, scaled aggregates]`` with ``post_nn``; a final ``lin``
mixes the towers.

The first layer of ``pre_nn`` is linear in the concatenation, so it is applied to the
nodes, not the edges: ``W [x_i, x_j, e] + b = (x W_i)[i] + (x W_j)[j] + e W_e + b``, two
``[N, F] x [F, F]`` products and one gather per edge instead of an ``[E, 3F] x [3F, F]``
product. The messages are made in the CSR's slot order, so every aggregator is one
segment reduction over contiguous rows (deterministic).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts, to_numpy
from arraygnn.nn._graph_input import check_edge_attr, csr_of, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import (
    Linear,
    Sequential,
    _check_features,
    _ModuleList,
    _rng,
    get_activation,
    matmul,
    resolve_act,
)

__all__ = ["PNAConv"]

AGGREGATORS = ("mean", "min", "max", "std", "var", "sum")
SCALERS = ("identity", "amplification", "attenuation", "linear", "inverse_linear")


class _DegreeScaler(Module):
    """PyG's ``aggr_module`` buffers: the mean degree and mean log-degree of training."""

    _buffer_names = ("avg_deg_lin", "avg_deg_log")

    def __init__(self, deg: Any, dtype: Any) -> None:
        hist = np.asarray(to_numpy(deg), dtype=np.float64).reshape(-1)
        if hist.size == 0 or (hist < 0).any() or hist.sum() <= 0:
            raise ValueError(
                "PNAConv: deg must be a non-empty histogram of in-degrees (deg[k] = number of "
                f"nodes with in-degree k) with a positive total, got {hist.tolist()[:8]}"
            )
        bins = np.arange(hist.size, dtype=np.float64)
        total = hist.sum()
        self.avg_deg_lin = np.array([(bins * hist).sum() / total], dtype=dtype)
        self.avg_deg_log = np.array([(np.log(bins + 1) * hist).sum() / total], dtype=dtype)


class PNAConv(Module):
    r"""PyG's ``PNAConv`` (inference), PyG's parameter names.

    Args:
        in_channels, out_channels: sizes (``out_channels`` divisible by ``towers``).
        aggregators: names from ``mean``, ``min``, ``max``, ``std``, ``var``, ``sum``.
        scalers: names from ``identity``, ``amplification``, ``attenuation``, ``linear``,
            ``inverse_linear``.
        deg: the in-degree histogram of the training graphs (PyG's
            ``PNAConv.get_degree_histogram``); the loaded state dict's ``aggr_module``
            buffers take precedence.
        edge_dim: edge feature size (an ``edge_encoder`` Linear to ``F_in``).
        towers, pre_layers, post_layers, divide_input: as PyG.
        act: activation between the layers of ``pre_nn`` / ``post_nn`` (a name or callable);
            ``act_kwargs`` as PyG's resolver (elu ``alpha``, leaky_relu ``negative_slope``).
        train_norm: whether PyG learns the average degrees; the same numbers at inference
            (the loaded state dict's values are used either way).

    Call as ``conv(x, edge_index, edge_attr=None)`` or ``conv(graph, feat, edge_attr)``.
    Aggregates of a node without in-edges are 0 (``std`` too; PyG zeroes a standard
    deviation at or below ``sqrt(1e-5)``).

    Shapes:
        - input: ``(N, in_channels)``, edge_attr ``(E, edge_dim)``
        - output: ``(N, out_channels)``
        - memory: ``(E, towers, F_in)`` messages

    >>> import numpy as np
    >>> conv = PNAConv(4, 6, ["mean", "max"], ["identity"], np.array([1, 2, 1]), rng=0)
    >>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
    (3, 6)
    """

    _child_names = ("aggr_module", "edge_encoder", "pre_nns", "post_nns", "lin")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        aggregators: Sequence[str],
        scalers: Sequence[str],
        deg: Any,
        edge_dim: int | None = None,
        towers: int = 1,
        pre_layers: int = 1,
        post_layers: int = 1,
        divide_input: bool = False,
        act: Any = "relu",
        act_kwargs: dict[str, Any] | None = None,
        train_norm: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "PNAConv"
        self.in_channels = layer_size(layer, "in_channels", in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        self.towers = layer_size(layer, "towers", towers, minimum=1)
        pre_layers = layer_size(layer, "pre_layers", pre_layers, minimum=1)
        post_layers = layer_size(layer, "post_layers", post_layers, minimum=1)
        self.aggregators = [str(a) for a in aggregators]
        self.scalers = [str(s) for s in scalers]
        for name, given, known in (
            ("aggregators", self.aggregators, AGGREGATORS),
            ("scalers", self.scalers, SCALERS),
        ):
            bad = [g for g in given if g not in known]
            if not given or bad:
                raise ValueError(
                    f"{layer}: {name} must be a non-empty list from {known}, got {given}"
                )
        self.divide_input = bool(divide_input)
        if self.divide_input and self.in_channels % self.towers:
            raise ValueError(f"{layer}: in_channels must be divisible by towers with divide_input")
        if self.out_channels % self.towers:
            raise ValueError(f"{layer}: out_channels must be divisible by towers")
        self.F_in = self.in_channels // self.towers if self.divide_input else self.in_channels
        self.F_out = self.out_channels // self.towers
        self.edge_dim = None if edge_dim is None else layer_size(layer, "edge_dim", edge_dim, 1)
        self.act = resolve_act(layer, act, act_kwargs) if act_kwargs else get_activation(act)
        self.train_norm = bool(train_norm)  # PyG learns the degree averages: loaded either way
        gen = _rng(rng)
        f_in, f_out = self.F_in, self.F_out
        self.aggr_module = _DegreeScaler(deg, dtype)
        self.edge_encoder = (
            Linear(self.edge_dim, f_in, dtype=dtype, rng=gen) if self.edge_dim else None
        )

        def stack(first_in: int, width: int, depth: int) -> Sequential:
            steps: list[Any] = [Linear(first_in, width, dtype=dtype, rng=gen)]
            for _ in range(depth - 1):
                steps += [self.act or (lambda v: v), Linear(width, width, dtype=dtype, rng=gen)]
            return Sequential(*steps)

        parts = 3 if self.edge_dim else 2
        width = (len(self.aggregators) * len(self.scalers) + 1) * f_in
        self.pre_nns = _ModuleList(
            [stack(parts * f_in, f_in, pre_layers) for _ in range(self.towers)]
        )
        self.post_nns = _ModuleList([stack(width, f_out, post_layers) for _ in range(self.towers)])
        self.lin = Linear(self.out_channels, self.out_channels, dtype=dtype, rng=gen)

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_attr: Any = None) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import to_slot_order

        layer = "PNAConv"
        inp = parse_input(layer, x_or_graph, edge_index_or_feat)
        if inp.num_src != inp.num_dst or not inp.homogeneous:
            raise ValueError(f"{layer} needs one node set (x, edge_index), not a bipartite pair")
        x = inp.x_src
        _check_features(x, self.in_channels, f"{layer} node features")
        if (edge_attr is None) != (self.edge_encoder is None):
            need = "needs edge_attr" if edge_attr is None else "was built without edge_dim"
            raise ValueError(f"{layer} {need} (edge_dim={self.edge_dim})")
        xp = get_namespace(x)
        n, towers, f_in = inp.num_src, self.towers, self.F_in
        xt = (
            x.reshape(n, towers, f_in)
            if self.divide_input
            else xp.broadcast_to(x[:, None, :], (n, towers, f_in))
        )
        csr = csr_of(inp)
        src = csr.indices  # the messages are made in slot order
        dst = repeat_counts(xp, xp.arange(n, dtype=src.dtype), xp.diff(csr.indptr))
        enc = None
        if edge_attr is not None:
            edge_attr = check_edge_attr(layer, edge_attr, inp.num_edges, self.edge_dim, x)
            enc = to_slot_order(csr, self.edge_encoder(edge_attr))  # [E, F_in]
        messages = []
        for t, pre in enumerate(self.pre_nns):
            first = pre.steps[0]
            w = first.weight  # (F_in, parts * F_in): [x_i | x_j | e]
            h_t = xp.ascontiguousarray(xt[:, t])
            m = ops.gather(matmul(h_t, w[:, :f_in].T), dst) + ops.gather(
                matmul(h_t, w[:, f_in : 2 * f_in].T), src
            )
            if enc is not None:
                m += matmul(enc, w[:, 2 * f_in :].T)
            if first.bias is not None:
                m += first.bias
            for step in pre.steps[1:]:
                m = step(m)
            messages.append(m)
        msg = xp.stack(messages, axis=1)  # [E, towers, F_in], slot order
        aggs = self._aggregate(xp, ops, msg, csr)
        deg = csr.in_degrees().astype(aggs.dtype).reshape(n, 1)
        scales = [self._scale(xp, s, deg) for s in self.scalers]
        outs = []
        for t, post in enumerate(self.post_nns):
            # post_nn's first layer on [x, s_1 * aggs, s_2 * aggs, ...] without forming it: a
            # scaler is one number per node, so it multiplies that block's product instead
            first = post.steps[0]
            w = first.weight  # (F_out, (1 + scalers * aggregators) * F_in)
            block = aggs.shape[-1]
            h = matmul(xp.ascontiguousarray(xt[:, t]), w[:, :f_in].T)
            aggs_t = xp.ascontiguousarray(aggs[:, t])
            for k, scale in enumerate(scales):
                part = matmul(aggs_t, w[:, f_in + k * block : f_in + (k + 1) * block].T)
                h = h + (part if self.scalers[k] == "identity" else part * scale)
            if first.bias is not None:
                h = h + first.bias
            for step in post.steps[1:]:
                h = step(h)
            outs.append(h)
        return self.lin(xp.concatenate(outs, axis=1))

    def _aggregate(self, xp: Any, ops: Any, msg: Any, csr: Any) -> Any:
        """The aggregators over each target's slots, concatenated on the last axis."""
        cache: dict[str, Any] = {}

        def seg(values: Any, reduce: str) -> Any:
            return ops.segment(values, csr.indptr, reduce=reduce)

        def mean() -> Any:
            if "mean" not in cache:
                cache["mean"] = seg(msg, "mean")
            return cache["mean"]

        def var() -> Any:
            if "var" not in cache:
                m = mean()
                cache["var"] = seg(msg * msg, "mean") - m * m
            return cache["var"]

        out = []
        for name in self.aggregators:
            if name == "mean":
                out.append(mean())
            elif name == "var":
                out.append(var())
            elif name == "std":
                std = xp.sqrt(xp.maximum(var(), 1e-5))
                out.append(xp.where(std <= math.sqrt(1e-5), xp.zeros((), std.dtype), std))
            else:
                out.append(seg(msg, name))
        return xp.concatenate(out, axis=-1)

    def _scale(self, xp: Any, scaler: str, deg: Any) -> Any:
        lin = self.aggr_module.avg_deg_lin.astype(deg.dtype)
        log = self.aggr_module.avg_deg_log.astype(deg.dtype)
        if scaler == "identity":
            return deg.dtype.type(1)
        if scaler == "amplification":
            return xp.log(deg + 1) / log
        if scaler == "attenuation":
            return log / xp.log(xp.maximum(deg, 1) + 1)
        if scaler == "linear":
            return deg / lin
        return lin / xp.maximum(deg, 1)  # inverse_linear

    @staticmethod
    def get_degree_histogram(loader: Iterable[Any]) -> Any:
        """PyG's ``PNAConv.get_degree_histogram(loader)``: the in-degree histogram of the
        graphs of ``loader`` (a ``DataLoader``, a dataset or a list of ``Data`` /
        ``Batch``), ``hist[k]`` = the number of nodes with ``k`` incoming edges, int64, as
        long as the largest in-degree + 1 (``[0]`` for no graphs): the ``deg`` of
        :class:`PNAConv`. Each item needs ``edge_index`` and a known ``num_nodes``
        (never ``edge_index.max() + 1``); on the items' device.

        >>> import numpy as np
        >>> from arraygnn.data import Data
        >>> g = Data(x=np.ones((3, 1)), edge_index=np.array([[0, 1], [2, 2]]))
        >>> PNAConv.get_degree_histogram([g]).tolist()
        [2, 0, 1]
        """
        from arraygnn.utils.degree import degree

        where = "PNAConv.get_degree_histogram"
        hist = None
        for i, data in enumerate(loader):
            edge_index = getattr(data, "edge_index", None)
            if edge_index is None:
                raise ValueError(f"{where}: item {i} of the loader has no edge_index")
            num_nodes = getattr(data, "num_nodes", None)
            if num_nodes is None:
                raise ValueError(
                    f"{where}: item {i} of the loader has no num_nodes (give its graphs x "
                    "or num_nodes=; it is never guessed from edge_index.max() + 1)"
                )
            xp = get_namespace(edge_index)
            counts = xp.bincount(
                degree(edge_index[1], num_nodes=num_nodes, dtype=np.int64), minlength=1
            )
            if hist is None:
                hist = counts
                continue
            if counts.shape[0] > hist.shape[0]:
                hist, counts = counts, hist
            hist[: counts.shape[0]] += counts
        return np.zeros(1, dtype=np.int64) if hist is None else hist

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, towers={self.towers}, "
            f"edge_dim={self.edge_dim}"
        )
