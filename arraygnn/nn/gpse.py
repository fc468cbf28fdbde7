"""PyG's ``GPSE`` (Cantürk et al., "Graph Positional and Structural Encoder") and
``GPSENodeEncoder``, at inference, with PyG's ``gpse_process`` / ``gpse_process_batch`` /
``precompute_GPSE`` helpers.

GPSE maps random node features to learned positional / structural encodings: pre-MP
linear layers, a deep stack of ``ResGatedGraphConv`` layers (each followed by batch norm,
the activation and an L2 normalisation; ``skipsum`` residuals), a final L2 normalisation,
then a head: the pre-training head ``GNNInductiveHybridMultiHead`` (one small MLP per
node target, one MLP on the pooled graph embedding) or ``IdentityHead`` (the hidden
representation itself, what ``GPSE.from_pretrained`` keeps with ``use_repr=True``).
Dropout is the identity at inference.

How it runs: the graph is checked once and sorted into one CSR
(:class:`~arraygnn.nn._shared_graph.SharedGraph`) that all message-passing layers reuse;
each layer is arraygnn's :class:`~arraygnn.nn.ResGatedGraphConv` (per-edge gates as one
SDDMM, the gated sum as one SpMM: no ``[E, F]`` messages), so a forward pass costs one
sort plus, per layer, four projections, one SDDMM and one SpMM.

State-dict names are PyG's (``pre_mp.Layer_0.layer.model.weight``,
``mp.layer3.layer.model.lin_key.weight``, ``post_mp.node_post_mps.0.model.1.model.bias``),
so ``load_state_dict(pyg_gpse.state_dict())`` and ``from_pyg(pyg_gpse)`` both work.

Random input features: PyG's helpers draw them from NumPy's *global* legacy generator
(``np.random.normal``; not torch's), as float64 rounded to float32. Here ``rng=None``
does the same (so ``np.random.seed(s)`` before both gives the same input bit for bit);
``rng`` may instead be a seed (``np.random.default_rng(seed)``), a ``Generator`` or a
``RandomState`` (``RandomState(s)`` draws what ``np.random.seed(s)`` would, without
touching the global state).

>>> import numpy as np
>>> model = GPSE(dim_in=4, dim_inner=8, layers_mp=2, num_node_targets=3,
...              num_graph_targets=2, rng=0)
>>> x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
>>> pred, true = model(x, np.array([[0, 1, 2, 3], [1, 2, 3, 4]]))
>>> pred.shape, true is None     # 4 nodes (the last is the virtual node) + 1 graph row
((5, 5), True)
>>> model.post_mp = IdentityHead()
>>> model(x, np.array([[0, 1], [1, 2]]))[0].shape
(5, 8)
"""

from __future__ import annotations

import os
import os.path as osp
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_device
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn._shared_graph import SharedGraph
from arraygnn.nn.aggr.multi import torch_promoted
from arraygnn.nn.gated_graph_conv import ResGatedGraphConv
from arraygnn.nn.linear import (
    BatchNorm,
    Linear,
    Sequential,
    _check_features,
    _ModuleList,
    _rng,
    resolve_act,
)
from arraygnn.nn.readout import global_add_pool, global_max_pool, global_mean_pool
from arraygnn.nn.sage_conv import l2_normalize
from arraygnn.ops._common import check_index, check_size

__all__ = [
    "GPSE",
    "GPSENodeEncoder",
    "GeneralLayer",
    "GeneralMultiLayer",
    "GNNStackStage",
    "HeadMLP",
    "GNNInductiveHybridMultiHead",
    "IdentityHead",
    "random_features",
    "gpse_process",
    "gpse_process_batch",
    "precompute_GPSE",
    "from_pyg_module",
    "encoder_from_pyg_module",
]

_WHERE = "GPSE"
_POOLS: dict[str, Callable[..., Any]] = {
    "add": global_add_pool,
    "max": global_max_pool,
    "mean": global_mean_pool,
}
_LAYER_TYPES = ("linear", "resgatedgcnconv")
_RAND_TYPES = ("NormalSE", "UniformSE", "BernoulliSE")
#: PyG's download addresses of the pre-trained weights (never fetched here)
URLS = {
    name: f"https://zenodo.org/record/8145095/files/gpse_model_{name}_1.0.pt"
    for name in ("molpcba", "zinc", "pcqm4mv2", "geom", "chembl")
}


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{_WHERE}: {name} must be a bool, got {value!r}")
    return bool(value)


class _Wrapped(Module):
    """PyG's ``Linear`` / ``ResGatedGCNConv`` wrappers: the layer itself is ``model``."""

    _child_names = ("model",)

    def __init__(self, model: Module) -> None:
        self.model = model

    def extra_repr(self) -> str:
        return repr(self.model)


class GeneralLayer(Module):
    """PyG's ``gpse.GeneralLayer``: ``layer`` (a ``Linear`` or a ``ResGatedGraphConv`` in
    ``layer.model``), then ``post_layer`` (batch norm ``post_layer.0`` if any, the
    activation), then the L2 normalisation of each row if ``has_l2_norm``.

    Built from its parts (see :func:`general_layer` for PyG's constructor arguments).
    """

    _child_names = ("layer", "post_layer")

    def __init__(self, model: Module, norm: BatchNorm | None, act: Any, has_l2_norm: bool) -> None:
        self.layer = _Wrapped(model)
        self.is_conv = isinstance(model, ResGatedGraphConv)
        self.act = act
        self.post_layer = Sequential(*([norm] if norm is not None else []))
        self.has_l2_norm = bool(has_l2_norm)

    def __call__(self, x: Any, graph: SharedGraph | None = None) -> Any:
        if self.is_conv:
            if graph is None:
                raise ValueError(f"{_WHERE}: a message-passing layer needs the graph")
            x = self.layer.model(x, graph.csr)
        else:
            x = self.layer.model(x)
        x = self.post_layer(x)
        if self.act is not None:
            x = self.act(x)
        return l2_normalize(x) if self.has_l2_norm else x

    def extra_repr(self) -> str:
        return f"{self.layer!r}, l2={self.has_l2_norm}"


def general_layer(
    name: str,
    in_channels: int,
    out_channels: int,
    has_batch_norm: bool,
    has_l2_norm: bool,
    act: Any,
    *,
    dtype: Any,
    rng: Any,
) -> GeneralLayer:
    """PyG's ``GeneralLayer(name, in, out, has_batch_norm, has_l2_norm, dropout, act)``
    (dropout left out: the identity at inference); the layer has a bias only without
    batch norm, as PyG's."""
    if name == "linear":
        model: Module = Linear(in_channels, out_channels, not has_batch_norm, dtype=dtype, rng=rng)
    elif name == "resgatedgcnconv":
        model = ResGatedGraphConv(
            in_channels, out_channels, bias=not has_batch_norm, dtype=dtype, rng=rng
        )
    else:
        raise ValueError(f"{_WHERE}: layer_type must be one of {_LAYER_TYPES}, got {name!r}")
    norm = BatchNorm(out_channels, 1e-5, dtype=dtype) if has_batch_norm else None
    return GeneralLayer(model, norm, act, has_l2_norm)


class GeneralMultiLayer(Module):
    """PyG's ``gpse.GeneralMultiLayer``: ``Layer_0 .. Layer_{n-1}`` applied in order."""

    def __init__(self, layers: list[GeneralLayer]) -> None:
        self.layers = list(layers)
        for i, layer in enumerate(self.layers):
            setattr(self, f"Layer_{i}", layer)
        self._child_names = tuple(f"Layer_{i}" for i in range(len(self.layers)))

    def __call__(self, x: Any, graph: SharedGraph | None = None) -> Any:
        for layer in self.layers:
            x = layer(x, graph)
        return x

    def extra_repr(self) -> str:
        return f"{len(self.layers)} layers"


def general_multi_layer(
    name: str,
    in_channels: int,
    out_channels: int,
    hidden_channels: int | None,
    num_layers: int,
    has_batch_norm: bool,
    has_l2_norm: bool,
    act: Any,
    final_act: bool,
    *,
    dtype: Any,
    rng: Any,
) -> GeneralMultiLayer:
    """PyG's ``GeneralMultiLayer`` constructor (dropout left out)."""
    hidden = hidden_channels or out_channels
    layers = []
    for i in range(num_layers):
        last = i == num_layers - 1
        layers.append(
            general_layer(
                name,
                in_channels if i == 0 else hidden,
                out_channels if last else hidden,
                has_batch_norm,
                has_l2_norm,
                None if last and not final_act else act,
                dtype=dtype,
                rng=rng,
            )
        )
    return GeneralMultiLayer(layers)


class HeadMLP(Module):
    """PyG's ``gpse.MLP`` (the heads' MLP): ``model.0`` a :class:`GeneralMultiLayer` of
    ``num_layers - 1`` linear layers (final activation on), then a plain ``Linear`` with a
    bias (``model.1.model``; ``model.0.model`` for a one-layer MLP)."""

    _child_names = ("model",)

    def __init__(self, hidden: GeneralMultiLayer | None, last: Linear) -> None:
        steps: list[Module] = [] if hidden is None else [hidden]
        self.model = Sequential(*steps, _Wrapped(last))
        self.hidden, self.last = hidden, last

    def __call__(self, x: Any) -> Any:
        if self.hidden is not None:
            x = self.hidden(x)
        return self.last(x)


def head_mlp(
    in_channels: int,
    out_channels: int,
    hidden_channels: int | None,
    num_layers: int,
    has_batch_norm: bool,
    has_l2_norm: bool,
    act: Any,
    *,
    dtype: Any,
    rng: Any,
) -> HeadMLP:
    """PyG's ``gpse.MLP(in, out, hidden, num_layers, has_batch_norm, has_l2_norm, dropout,
    act)`` (dropout left out)."""
    hidden_channels = hidden_channels or in_channels
    hidden = None
    if num_layers > 1:
        hidden = general_multi_layer(
            "linear",
            in_channels,
            hidden_channels,
            hidden_channels,
            num_layers - 1,
            has_batch_norm,
            has_l2_norm,
            act,
            True,
            dtype=dtype,
            rng=rng,
        )
    return HeadMLP(hidden, Linear(hidden_channels, out_channels, dtype=dtype, rng=rng))


class GNNStackStage(Module):
    """PyG's ``gpse.GNNStackStage``: ``layer0 .. layer{n-1}`` with ``stage_type``
    ``'skipsum'`` (``x + layer(x)``), ``'skipconcat'`` (``[x, layer(x)]`` but after the
    last layer) or anything else (no skips), then an L2 normalisation if
    ``final_l2_norm``."""

    def __init__(self, layers: list[GeneralLayer], stage_type: str, final_l2_norm: bool) -> None:
        self.layers = list(layers)
        for i, layer in enumerate(self.layers):
            setattr(self, f"layer{i}", layer)
        self._child_names = tuple(f"layer{i}" for i in range(len(self.layers)))
        self.stage_type = stage_type
        self.final_l2_norm = bool(final_l2_norm)

    def __call__(self, x: Any, graph: SharedGraph | None = None) -> Any:
        xp = get_namespace(x)
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            out = layer(x, graph)
            if self.stage_type == "skipsum":
                out = x + out
            elif self.stage_type == "skipconcat" and i < last:
                out = xp.concatenate([x, out], axis=1)
            x = out
        return l2_normalize(x) if self.final_l2_norm else x

    def extra_repr(self) -> str:
        return f"{len(self.layers)} layers, stage_type={self.stage_type!r}"


class IdentityHead(Module):
    """PyG's ``gpse.IdentityHead``: ``(x, y)`` unchanged (the hidden representation is the
    encoding)."""

    def __call__(
        self,
        x: Any,
        batch: Any = None,
        num_graphs: int | None = None,
        y: Any = None,
        y_graph: Any = None,
    ) -> tuple[Any, Any]:
        return x, y


class GNNInductiveHybridMultiHead(Module):
    """PyG's ``gpse.GNNInductiveHybridMultiHead`` (the pre-training head).

    Node predictions: ``node_post_mps.k`` (one :class:`HeadMLP` to one column per node
    target, stacked side by side); graph predictions: ``graph_post_mp`` on the pooled node
    rows (``graph_pooling``: ``'add'``, ``'max'``, ``'mean'``). With ``virtual_node`` the
    last node of each graph (in node order, graph by graph) is dropped from the node rows.
    Returns ``pred``: the node rows padded right with ``num_graph_targets`` zero columns on
    top of the graph rows padded left with ``num_node_targets`` zero columns; ``true``: the
    same stacking of ``y`` / ``y_graph`` (``None`` without ``y``).
    """

    _child_names = ("node_post_mps", "graph_post_mp")

    def __init__(
        self,
        node_post_mps: list[HeadMLP],
        graph_post_mp: HeadMLP,
        virtual_node: bool,
        graph_pooling: str,
    ) -> None:
        if graph_pooling not in _POOLS:
            raise ValueError(
                f"{_WHERE}: graph_pooling must be one of {sorted(_POOLS)}, got {graph_pooling!r}"
            )
        self.node_post_mps = _ModuleList(node_post_mps)
        self.graph_post_mp = graph_post_mp
        self.virtual_node = bool(virtual_node)
        self.graph_pooling = graph_pooling
        self.node_target_dim = len(node_post_mps)
        self.graph_target_dim = graph_post_mp.last.out_features

    def __call__(
        self,
        x: Any,
        batch: Any = None,
        num_graphs: int | None = None,
        y: Any = None,
        y_graph: Any = None,
    ) -> tuple[Any, Any]:
        xp = get_namespace(x)
        node_pred = xp.concatenate([m(x) for m in self.node_post_mps], axis=1)
        pool = _POOLS[self.graph_pooling]
        graph_pred = self.graph_post_mp(pool(x, batch, num_graphs))
        if self.virtual_node:
            keep = _without_last_of_each_graph(xp, batch, x.shape[0])
            node_pred = node_pred[keep]
            y = None if y is None else y[keep]
        pred = self._stack(xp, node_pred, graph_pred)
        if y is None:
            return pred, None
        if y_graph is None:
            raise ValueError(f"{_WHERE}: the hybrid head needs y_graph when y is given")
        return pred, self._stack(xp, y, y_graph)

    def _stack(self, xp: Any, nodes: Any, graphs: Any) -> Any:
        nodes = nodes.reshape(nodes.shape[0], -1)
        graphs = graphs.reshape(graphs.shape[0], -1)
        dtype = torch_promoted([nodes[:0], graphs[:0]])[0].dtype  # torch's vstack (PyG)
        top = xp.zeros((nodes.shape[0], nodes.shape[1] + self.graph_target_dim), dtype)
        top[:, : nodes.shape[1]] = nodes
        bottom = xp.zeros((graphs.shape[0], self.node_target_dim + graphs.shape[1]), dtype)
        bottom[:, self.node_target_dim :] = graphs
        return xp.concatenate([top, bottom])

    def extra_repr(self) -> str:
        return (
            f"node_targets={self.node_target_dim}, graph_targets={self.graph_target_dim}, "
            f"virtual_node={self.virtual_node}, graph_pooling={self.graph_pooling!r}"
        )


def _without_last_of_each_graph(xp: Any, batch: Any, n: int) -> Any:
    """Row ids of every node but the last of its graph, graph by graph in node order
    (PyG's ``concat([where(batch == i)[0][:-1] for i ...])``); ``batch=None``: one graph."""
    if batch is None:
        return xp.arange(max(n - 1, 0))
    order = xp.argsort(batch, kind="stable")
    graph = batch[order]
    last = xp.ones(n, dtype=bool)
    if n:
        last[:-1] = graph[1:] != graph[:-1]
    return order[~last]


class GPSE(Module):
    """PyG's ``GPSE`` model (inference), PyG's constructor arguments and parameter names.

    Args:
        dim_in: input size (the random features' width; default 20).
        dim_out: accepted and unused (as PyG: the head's sizes come from the targets).
        dim_inner: width of every layer (default 512).
        layer_type: ``'resgatedgcnconv'`` (default) or ``'linear'`` for the MP stack.
        layers_pre_mp, layers_mp, layers_post_mp: layer counts (1, 20, 2).
        num_node_targets, num_graph_targets: the pre-training head's targets (51, 11).
        stage_type: ``'skipsum'`` (default), ``'skipconcat'``, anything else: no skips.
        has_bn: batch norm (running statistics) after each pre-MP / MP layer; the layers
            then have no bias.
        head_bn: batch norm in the head MLPs.
        final_l2norm: L2-normalise the MP stack's output.
        has_l2norm: L2-normalise each layer's output (heads too).
        dropout: accepted and ignored (the identity at inference).
        has_act: activation after each MP layer. final_act: after the last pre-MP layer.
        act: the activation (a name PyG's resolver knows among ``relu``, ``elu``,
            ``leaky_relu``, ``sigmoid``, ``tanh``, ``gelu``, or a callable on arrays).
        virtual_node: the head drops each graph's last node (the virtual node).
        multi_head_dim_inner: width of the node-target MLPs.
        graph_pooling: ``'add'``, ``'max'`` or ``'mean'`` before the graph-target MLP.
        use_repr, repr_type: what :meth:`from_pretrained` keeps (``'no_post_mp'``: the
            head becomes :class:`IdentityHead`).
        bernoulli_threshold: kept for the caller (PyG's helpers use their own argument).
        dtype, rng: weight dtype and the seed / generator of the initial weights.

    Call as ``model(x, edge_index, batch=None, num_graphs=None, y=None, y_graph=None)``
    and get PyG's pair ``(out, true)``: with :class:`IdentityHead` ``out`` is the
    ``[N, dim_inner]`` encoding and ``true`` is ``y``; with the hybrid head see
    :class:`GNNInductiveHybridMultiHead`. ``batch`` (sorted or not, graph ids) and
    ``num_graphs`` are needed by the hybrid head only (``None``: one graph); the number
    of graphs is never inferred from ``batch.max() + 1``.

    Shapes:
        - input: x ``(N, dim_in)``, edge_index ``(2, E)``, batch ``(N,)``
        - output: ``(N, dim_inner)`` (identity head) or
          ``(N - G + G, num_node_targets + num_graph_targets)`` (hybrid head, virtual
          nodes dropped)
    """

    def __init__(
        self,
        dim_in: int = 20,
        dim_out: int = 51,
        dim_inner: int = 512,
        layer_type: str = "resgatedgcnconv",
        layers_pre_mp: int = 1,
        layers_mp: int = 20,
        layers_post_mp: int = 2,
        num_node_targets: int = 51,
        num_graph_targets: int = 11,
        stage_type: str = "skipsum",
        has_bn: bool = True,
        head_bn: bool = False,
        final_l2norm: bool = True,
        has_l2norm: bool = True,
        dropout: float = 0.2,
        has_act: bool = True,
        final_act: bool = True,
        act: Any = "relu",
        virtual_node: bool = True,
        multi_head_dim_inner: int = 32,
        graph_pooling: str = "add",
        use_repr: bool = True,
        repr_type: str = "no_post_mp",
        bernoulli_threshold: float = 0.5,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        dim_in = layer_size(_WHERE, "dim_in", dim_in, minimum=1)
        dim_inner = layer_size(_WHERE, "dim_inner", dim_inner, minimum=1)
        n_pre = layer_size(_WHERE, "layers_pre_mp", layers_pre_mp)
        n_mp = layer_size(_WHERE, "layers_mp", layers_mp)
        n_post = layer_size(_WHERE, "layers_post_mp", layers_post_mp, minimum=1)
        n_node = layer_size(_WHERE, "num_node_targets", num_node_targets)
        n_graph = layer_size(_WHERE, "num_graph_targets", num_graph_targets, minimum=1)
        head_width = layer_size(_WHERE, "multi_head_dim_inner", multi_head_dim_inner, minimum=1)
        probability(_WHERE, "dropout", dropout)  # the identity at inference
        if layer_type not in _LAYER_TYPES:
            raise ValueError(
                f"{_WHERE}: layer_type must be one of {_LAYER_TYPES}, got {layer_type!r}"
            )
        if graph_pooling not in _POOLS:
            raise ValueError(
                f"{_WHERE}: graph_pooling must be one of {sorted(_POOLS)}, got {graph_pooling!r}"
            )
        flags = {
            name: _flag(name, value)
            for name, value in (
                ("has_bn", has_bn),
                ("head_bn", head_bn),
                ("final_l2norm", final_l2norm),
                ("has_l2norm", has_l2norm),
                ("has_act", has_act),
                ("final_act", final_act),
                ("virtual_node", virtual_node),
            )
        }
        fn = resolve_act(_WHERE, act, None)
        gen = _rng(rng)
        kw = {"dtype": dtype, "rng": gen}
        pre_mp = mp = None
        width = dim_in
        if n_pre > 0:
            pre_mp = general_multi_layer(
                "linear",
                dim_in,
                dim_inner,
                dim_inner,
                n_pre,
                flags["has_bn"],
                flags["has_l2norm"],
                fn,
                flags["final_act"],
                **kw,
            )
            width = dim_inner
        if n_mp > 0:
            if stage_type == "skipsum" and width != dim_inner:
                raise ValueError(
                    f"{_WHERE}: stage_type='skipsum' adds each layer's input to its output, "
                    f"so the MP input width ({width}: dim_in, as layers_pre_mp=0) must equal "
                    f"dim_inner ({dim_inner})"
                )
            layers = []
            for i in range(n_mp):
                if stage_type == "skipconcat":
                    fin = width + i * dim_inner  # the inputs so far, side by side
                else:
                    fin = width if i == 0 else dim_inner
                layers.append(
                    general_layer(
                        layer_type,
                        fin,
                        dim_inner,
                        flags["has_bn"],
                        flags["has_l2norm"],
                        fn if flags["has_act"] else None,
                        **kw,
                    )
                )
            mp = GNNStackStage(layers, stage_type, flags["final_l2norm"])
        head = GNNInductiveHybridMultiHead(
            [
                head_mlp(
                    dim_inner,
                    1,
                    head_width,
                    n_post,
                    flags["head_bn"],
                    flags["has_l2norm"],
                    fn,
                    **kw,
                )
                for _ in range(n_node)
            ],
            head_mlp(
                dim_inner,
                n_graph,
                dim_inner,
                n_post,
                flags["head_bn"],
                flags["has_l2norm"],
                fn,
                **kw,
            ),
            flags["virtual_node"],
            graph_pooling,
        )
        self._assemble(dim_in, pre_mp, mp, head, use_repr, repr_type, bernoulli_threshold)
        self.dim_out = dim_out

    def _assemble(
        self,
        dim_in: int,
        pre_mp: GeneralMultiLayer | None,
        mp: GNNStackStage | None,
        post_mp: Module,
        use_repr: bool,
        repr_type: str,
        bernoulli_threshold: float,
    ) -> None:
        self.dim_in = dim_in
        self.pre_mp, self.mp, self.post_mp = pre_mp, mp, post_mp
        self.use_repr = bool(use_repr)
        self.repr_type = repr_type
        self.bernoulli_threshold = float(bernoulli_threshold)

    @property
    def _child_names(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(n for n in ("pre_mp", "mp", "post_mp") if getattr(self, n) is not None)

    @classmethod
    def _from_parts(cls, dim_in: int, pre_mp: Any, mp: Any, post_mp: Any, module: Any) -> GPSE:
        model = cls.__new__(cls)
        model._assemble(
            dim_in,
            pre_mp,
            mp,
            post_mp,
            module.use_repr,
            module.repr_type,
            module.bernoulli_threshold,
        )
        model.dim_out = None
        return model

    def __call__(
        self,
        x: Any,
        edge_index: Any,
        batch: Any = None,
        num_graphs: int | None = None,
        y: Any = None,
        y_graph: Any = None,
    ) -> tuple[Any, Any]:
        weight = next(iter(self._named_arrays()), (None, None))[1]
        _check_features(x, self.dim_in, f"{_WHERE} x", weight)
        if x.ndim != 2:
            raise ValueError(f"{_WHERE}: x must be [num_nodes, {self.dim_in}], got {x.shape}")
        if x.dtype.kind != "f":
            raise TypeError(f"{_WHERE}: x must be a float array, got dtype {x.dtype}")
        graph = SharedGraph(_WHERE, x, edge_index)
        if batch is not None and (getattr(batch, "shape", None) != (x.shape[0],)):
            raise ValueError(
                f"{_WHERE}: batch must have shape ({x.shape[0]},), got "
                f"{getattr(batch, 'shape', type(batch).__name__)}"
            )
        if not isinstance(self.post_mp, IdentityHead):  # the hybrid head reads them
            if batch is not None:
                if num_graphs is None:
                    raise ValueError(
                        f"{_WHERE}: pass num_graphs with batch (the number of graphs is never "
                        "inferred from batch.max() + 1)"
                    )
                size = check_size(f"{_WHERE}: num_graphs", num_graphs)
                check_index(f"{_WHERE}: batch", batch, size)
            if y is not None and tuple(getattr(y, "shape", ()))[:1] != (x.shape[0],):
                raise ValueError(
                    f"{_WHERE}: y must have {x.shape[0]} rows (one per node), got "
                    f"{getattr(y, 'shape', type(y).__name__)}"
                )
        h = x
        if self.pre_mp is not None:
            h = self.pre_mp(h)
        if self.mp is not None:
            h = self.mp(h, graph)
        return self.post_mp(h, batch, num_graphs, y, y_graph)

    @classmethod
    def from_pretrained(
        cls,
        name: str | Mapping[str, Any],
        root: str = "GPSE_pretrained",
        *,
        dtype: Any = np.float32,
    ) -> GPSE:
        """A pre-trained GPSE (PyG's ``GPSE.from_pretrained``) **from a local file**: nothing
        is downloaded. ``name`` is one of PyG's names (``'molpcba'``, ``'zinc'``,
        ``'pcqm4mv2'``, ``'geom'``, ``'chembl'``: the file ``root/gpse_model_<name>_1.0.pt``
        where PyG's download puts it, a ``FileNotFoundError`` giving the address when
        absent), a path to such a checkpoint, or its loaded contents (a mapping with
        ``'model_state'``, or a state dict with PyG's names). Reading a ``.pt`` file needs
        torch. As PyG: default arguments, the checkpoint's first key part stripped, the
        head replaced by :class:`IdentityHead` (``repr_type='no_post_mp'``).
        """
        if isinstance(name, Mapping):
            state: Mapping[str, Any] = name
        else:
            path = os.fspath(name)
            if path in URLS:
                path = osp.join(osp.expanduser(osp.normpath(root)), osp.basename(URLS[path]))
                if not osp.exists(path):
                    raise FileNotFoundError(
                        f"{_WHERE}.from_pretrained: {path} not found; arraygnn downloads nothing: "
                        f"fetch {URLS[name]} (PyG's address) yourself and put it there"
                    )
            elif not osp.exists(path):
                raise FileNotFoundError(f"{_WHERE}.from_pretrained: no such file {path!r}")
            try:
                import torch
            except ImportError as err:
                raise ImportError(
                    f"{_WHERE}.from_pretrained: reading a .pt checkpoint needs torch "
                    "(pip install arraygnn[torch])"
                ) from err
            state = torch.load(path, map_location="cpu")
        if "model_state" in state:
            state = {k.split(".", 1)[1]: v for k, v in state["model_state"].items()}
        model = cls(dtype=dtype)
        model.load_state_dict(state)
        if model.use_repr:
            if model.repr_type != "no_post_mp":
                raise ValueError(
                    f"{_WHERE}.from_pretrained: repr_type={model.repr_type!r} is not supported "
                    "(PyG's 'one_layer_before' fails on its own head)"
                )
            model.post_mp = IdentityHead()
        return model

    def extra_repr(self) -> str:
        return f"dim_in={self.dim_in}, head={type(self.post_mp).__name__}"


class GPSENodeEncoder(Module):
    """PyG's ``GPSENodeEncoder``: encode the GPSE encodings ``pos_enc`` to ``dim_pe_out``
    columns and append them to ``x`` (mapped first to ``dim_emb - dim_pe_out`` columns by
    ``linear_x`` with ``expand_x``).

    ``pos_enc`` goes through batch norm (``raw_norm``, running statistics; with
    ``norm_type='batchnorm'``) then ``pe_encoder``: ``model_type='mlp'`` a
    ``Linear``/ReLU stack of ``n_layers`` layers (hidden width ``2 * dim_pe_out``, a ReLU
    after the last one too), ``'linear'`` one ``Linear``. Dropout is the identity.

    >>> import numpy as np
    >>> enc = GPSENodeEncoder(dim_emb=8, dim_pe_in=4, dim_pe_out=3, rng=0)
    >>> enc(np.ones((2, 5), np.float32), np.ones((2, 4), np.float32)).shape
    (2, 8)

    Shapes:
        - input: x ``(N, dim_in)`` (``(N, dim_emb - dim_pe_out)`` without ``expand_x``),
          pos_enc ``(N, dim_pe_in)``
        - output: ``(N, dim_emb)``
    """

    def __init__(
        self,
        dim_emb: int,
        dim_pe_in: int,
        dim_pe_out: int,
        dim_in: int | None = None,
        expand_x: bool = False,
        norm_type: str | None = "batchnorm",
        model_type: str = "mlp",
        n_layers: int = 2,
        dropout_be: float = 0.5,
        dropout_ae: float = 0.2,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "GPSENodeEncoder"
        self.dim_emb = layer_size(where, "dim_emb", dim_emb)
        probability(where, "dropout_be", dropout_be)  # the identity at inference
        probability(where, "dropout_ae", dropout_ae)
        self.dim_pe_in = layer_size(where, "dim_pe_in", dim_pe_in)
        self.dim_pe_out = layer_size(where, "dim_pe_out", dim_pe_out)
        if not self.dim_emb > self.dim_pe_out:
            raise ValueError(
                f"{where}: dim_pe_out ({self.dim_pe_out}) must be smaller than dim_emb "
                f"({self.dim_emb})"
            )
        gen = _rng(rng)
        self.expand_x = bool(expand_x)
        self.linear_x = None
        if self.expand_x:
            if dim_in is None:
                raise ValueError(f"{where}: expand_x=True needs dim_in")
            size = layer_size(where, "dim_in", dim_in)
            self.linear_x = Linear(size, self.dim_emb - self.dim_pe_out, dtype=dtype, rng=gen)
        self.raw_norm = BatchNorm(self.dim_pe_in, dtype=dtype) if norm_type == "batchnorm" else None
        out = self.dim_pe_out
        if model_type == "mlp":
            n = layer_size(where, "n_layers", n_layers, minimum=1)
            widths = [self.dim_pe_in, out] if n == 1 else [self.dim_pe_in] + [2 * out] * (n - 1)
            widths = widths + ([out] if n > 1 else [])
            steps: list[Any] = []
            for a, b in zip(widths[:-1], widths[1:]):
                steps += [Linear(a, b, dtype=dtype, rng=gen), "relu"]
            self.pe_encoder: Module = Sequential(*steps)
        elif model_type == "linear":
            self.pe_encoder = Linear(self.dim_pe_in, out, dtype=dtype, rng=gen)
        else:
            raise ValueError(f"{where}: model_type must be 'mlp' or 'linear', got {model_type!r}")

    @property
    def _child_names(self) -> tuple[str, ...]:  # type: ignore[override]
        names = ("linear_x", "raw_norm", "pe_encoder")
        return tuple(n for n in names if getattr(self, n) is not None)

    def __call__(self, x: Any, pos_enc: Any) -> Any:
        where = "GPSENodeEncoder"
        weight = next(iter(self._named_arrays()))[1]
        _check_features(pos_enc, self.dim_pe_in, f"{where} pos_enc", weight)
        if self.linear_x is None:
            if not hasattr(x, "ndim") or x.ndim != 2:
                raise ValueError(f"{where}: x must be a 2-D array [num_nodes, features]")
        if pos_enc.ndim != 2 or x.shape[0] != pos_enc.shape[0]:
            raise ValueError(
                f"{where}: x {tuple(x.shape)} and pos_enc {tuple(pos_enc.shape)} must be 2-D "
                "with the same number of rows"
            )
        pe = self.raw_norm(pos_enc) if self.raw_norm is not None else pos_enc
        pe = self.pe_encoder(pe)
        h = self.linear_x(x) if self.linear_x is not None else x
        # torch.cat's promotion (PyG): integer x beside float encodings is float, not the
        # encodings cast to integers; float32 x beside float64 encodings is float64
        return get_namespace(h, pe).concatenate(torch_promoted([h, pe]), axis=1)

    def extra_repr(self) -> str:
        return f"dim_emb={self.dim_emb}, dim_pe_in={self.dim_pe_in}, dim_pe_out={self.dim_pe_out}"


# ---- random inputs and PyG's processing helpers ----------------------------------------


def random_features(
    num_nodes: int,
    dim_in: int,
    rand_type: str = "NormalSE",
    *,
    rng: Any = None,
    bernoulli_thresh: float = 0.5,
) -> np.ndarray:
    """PyG's random GPSE input ``[num_nodes, dim_in]`` as float32: ``'NormalSE'`` N(0, 1),
    ``'UniformSE'`` U(0, 1), ``'BernoulliSE'`` ``U(0, 1) < bernoulli_thresh`` (drawn in
    float64 and rounded, as PyG's). ``rng=None``: NumPy's global legacy generator (PyG's
    source); a seed, ``Generator`` or ``RandomState`` otherwise.

    >>> random_features(2, 3, rng=np.random.RandomState(0)).dtype
    dtype('float32')
    """
    if rand_type not in _RAND_TYPES:
        raise ValueError(f"{_WHERE}: rand_type must be one of {_RAND_TYPES}, got {rand_type!r}")
    source = _draw_source(rng)
    gen: Any = np.random if source is None else source
    size = (int(num_nodes), int(dim_in))
    if rand_type == "NormalSE":
        rand = gen.normal(loc=0, scale=1.0, size=size)
    else:
        rand = gen.uniform(low=0.0, high=1.0, size=size)
        if rand_type == "BernoulliSE":
            rand = rand < bernoulli_thresh
    return rand.astype(np.float32)


def _draw_source(rng: Any) -> Any:
    """``rng`` as what the random inputs are drawn from: ``None`` (NumPy's global legacy
    generator, PyG's source), a ``Generator`` / ``RandomState`` as given, anything else a
    seed of a new ``np.random.default_rng``. Callers drawing several times (a transform,
    a precomputation over batches) convert once, so a seed starts one stream of draws."""
    if rng is None or isinstance(rng, (np.random.Generator, np.random.RandomState)):
        return rng
    return np.random.default_rng(rng)


def _check_model(where: str, model: Any) -> GPSE:
    if not isinstance(model, GPSE):
        hint = (
            " (convert a PyG GPSE with arraygnn.nn.from_pyg)" if hasattr(model, "forward") else ""
        )
        raise TypeError(
            f"{where}: model must be an arraygnn GPSE, got {type(model).__name__}{hint}"
        )
    return model


def _model_input(model: GPSE, n: int, rand_type: str, rng: Any, thresh: float) -> Any:
    x = random_features(n, model.dim_in, rand_type, rng=rng, bernoulli_thresh=thresh)
    return to_device(x.astype(model.dtype or np.float32, copy=False), model.device)


def _no_loader(where: str, neighbor_loader: bool) -> None:
    if neighbor_loader:
        raise ValueError(
            f"{where}: neighbor_loader=True (PyG's NeighborLoader mini-batching) is not "
            "supported; the whole graph runs at once"
        )


def gpse_process(
    model: GPSE,
    data: Any,
    rand_type: str,
    use_vn: bool = True,
    bernoulli_thresh: float = 0.5,
    neighbor_loader: bool = False,
    *,
    rng: Any = None,
) -> Any:
    """PyG's ``gpse_process``: GPSE encodings ``[N, F]`` of one ``Data`` from random
    inputs (:func:`random_features`); with ``use_vn`` the graph already ends with its
    virtual node, whose input row is set to zeros. ``data`` is not changed (PyG sets
    ``data.x``)."""
    where = "gpse_process"
    _check_model(where, model)
    _no_loader(where, neighbor_loader)
    from arraygnn.transforms.degree import checked_graph

    ei, n = checked_graph(where, data)
    x = _model_input(model, n, rand_type, rng, bernoulli_thresh)
    if use_vn and n:
        x[-1] = 0
    return model(x, ei)[0]


def gpse_process_batch(
    model: GPSE,
    batch: Any,
    rand_type: str,
    use_vn: bool = True,
    bernoulli_thresh: float = 0.5,
    neighbor_loader: bool = False,
    *,
    rng: Any = None,
) -> tuple[Any, Any]:
    """PyG's ``gpse_process_batch``: ``(encodings, batch.ptr)`` of a ``Batch`` whose graphs
    each end with their virtual node (``use_vn``: those input rows are zeros); one draw of
    random inputs for the whole batch, as PyG's. ``batch`` is not changed."""
    where = "gpse_process_batch"
    _check_model(where, model)
    _no_loader(where, neighbor_loader)
    from arraygnn.transforms.degree import checked_graph

    ei, n = checked_graph(where, batch)
    ptr = batch.ptr
    x = _model_input(model, n, rand_type, rng, bernoulli_thresh)
    if use_vn and n:
        # PyG's batch.x[ptr[i] - 1] = 0 for every graph, each then ending with its virtual node
        ends = np.asarray(to_device(ptr[1:], "cpu")).astype(np.int64)
        x[get_namespace(x).asarray(ends - 1)] = 0
    return model(x, ei)[0], ptr


def precompute_GPSE(  # noqa: N802 - PyG's name
    model: GPSE,
    dataset: Any,
    use_vn: bool = True,
    rand_type: str = "NormalSE",
    batch_size: int = 1,
    *,
    rng: Any = None,
) -> list[Any]:
    """PyG's ``precompute_GPSE``: GPSE encodings of every graph of ``dataset`` (a sequence
    of ``Data``), ``batch_size`` graphs per forward pass with one virtual node each
    (``use_vn``). Returns new ``Data`` objects (shallow copies) with ``pestat_GPSE``; the
    dataset is not changed (PyG rewrites it in place). Same draws as PyG's loop over a
    ``DataLoader(dataset, batch_size, shuffle=False)``; a seed ``rng`` is one generator for
    all batches. As PyG, a dataset's ``transform`` is set aside: the encodings are computed
    on, and stored with, the untransformed graphs (on a shallow copy of the dataset).

    RULE: ``use_vn=False`` leaves every input row random. PyG 2.8.1's ``precompute_GPSE``
    does not pass its ``use_vn`` on to ``gpse_process_batch``, so there the last real node
    of each graph gets a zero input row even without virtual nodes; this one does what
    ``gpse_process_batch(..., use_vn=False)`` does.
    """
    import copy

    from arraygnn.batch import Batch
    from arraygnn.data import Data
    from arraygnn.transforms.degree import checked_graph
    from arraygnn.transforms.virtual_node import VirtualNode

    _check_model("precompute_GPSE", model)
    size = layer_size("precompute_GPSE", "batch_size", batch_size, minimum=1)
    rng = _draw_source(rng)
    if getattr(dataset, "transform", None) is not None:
        dataset = copy.copy(dataset)
        dataset.transform = None
    graphs = list(dataset)
    vn = VirtualNode()
    out = []
    for start in range(0, len(graphs), size):
        chunk = graphs[start : start + size]
        structure = []
        for g in chunk:
            ei, n = checked_graph("precompute_GPSE", g)
            structure.append(Data(edge_index=ei, num_nodes=n))
        if use_vn:
            structure = [vn(s) for s in structure]
        batch = Batch.from_data_list(structure)
        enc, ptr = gpse_process_batch(model, batch, rand_type, use_vn, rng=rng)
        bounds = np.asarray(to_device(ptr, "cpu")).tolist()
        for g, lo, hi in zip(chunk, bounds[:-1], bounds[1:]):
            item = copy.copy(g)
            item.pestat_GPSE = enc[lo : hi - 1 if use_vn else hi]
            out.append(item)
    return out


# ---- weights from PyG --------------------------------------------------------------------


def _layer_from_pyg(module: Any, convert: Any) -> GeneralLayer:
    import torch

    from arraygnn.nn.weights import _activation

    where = "from_pyg: GPSE"
    norm, act = None, None
    for sub in module.post_layer:
        if isinstance(sub, torch.nn.BatchNorm1d):
            norm = convert(sub)
        elif not isinstance(sub, torch.nn.Dropout):
            act = resolve_act(_WHERE, _activation(sub, where), None)
    return GeneralLayer(convert(module.layer.model), norm, act, module.has_l2_norm)


def _multi_from_pyg(module: Any, convert: Any) -> GeneralMultiLayer:
    return GeneralMultiLayer([_layer_from_pyg(m, convert) for m in module.children()])


def _head_mlp_from_pyg(module: Any, convert: Any) -> HeadMLP:
    parts = list(module.model)
    hidden = _multi_from_pyg(parts[0], convert) if len(parts) == 2 else None
    return HeadMLP(hidden, convert(parts[-1].model))


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> GPSE:
    """PyG's ``GPSE`` -> :class:`GPSE`, piece by piece from the module itself (layer
    counts, norms, activations, skips, head), weights included."""
    head_kind = type(module.post_mp).__name__
    pre_mp = _multi_from_pyg(module.pre_mp, convert) if hasattr(module, "pre_mp") else None
    mp = None
    if hasattr(module, "mp"):
        stage = module.mp
        mp = GNNStackStage(
            [_layer_from_pyg(m, convert) for m in stage.children()],
            stage.stage_type,
            stage.final_l2_norm,
        )
    if head_kind == "IdentityHead":
        head: Module = IdentityHead()
    elif head_kind == "GNNInductiveHybridMultiHead":
        h = module.post_mp
        pooling = {fn.__name__: key for key, fn in _POOLS.items()}.get(
            getattr(h.graph_pooling, "__name__", ""), None
        )
        if pooling is None:
            raise ValueError(f"from_pyg: GPSE graph_pooling {h.graph_pooling!r} is not supported")
        head = GNNInductiveHybridMultiHead(
            [_head_mlp_from_pyg(m, convert) for m in h.node_post_mps],
            _head_mlp_from_pyg(h.graph_post_mp, convert),
            h.virtual_node,
            pooling,
        )
    else:
        raise ValueError(f"from_pyg: GPSE head {head_kind} is not supported")
    first = pre_mp.layers[0] if pre_mp is not None else (mp.layers[0] if mp else None)
    if first is None:
        raise ValueError("from_pyg: a GPSE without pre-MP and MP layers is not supported")
    inner = first.layer.model
    dim_in = inner.in_features if isinstance(inner, Linear) else inner.in_src
    return GPSE._from_parts(dim_in, pre_mp, mp, head, module)


def encoder_from_pyg_module(module: Any, dtype: Any, convert: Any) -> GPSENodeEncoder:
    """PyG's ``GPSENodeEncoder`` -> :class:`GPSENodeEncoder` with its weights."""
    import torch

    linears = [m for m in module.pe_encoder.modules() if isinstance(m, torch.nn.Linear)]
    raw = module.raw_norm
    pe_out = linears[-1].out_features
    enc = GPSENodeEncoder(
        # PyG keeps no dim_emb: it is linear_x's width + dim_pe_out with expand_x, else
        # unknown (it only checks dim_emb > dim_pe_out) and set to None below
        module.linear_x.out_features + pe_out if module.expand_x else pe_out + 1,
        linears[0].in_features,
        pe_out,
        module.linear_x.in_features if module.expand_x else None,
        module.expand_x,
        "batchnorm" if raw is not None else None,
        "mlp" if isinstance(module.pe_encoder, torch.nn.Sequential) else "linear",
        len(linears),
        dtype=dtype,
    )
    if not module.expand_x:
        enc.dim_emb = None
    if raw is not None:
        enc.raw_norm.eps = float(raw.eps)
    enc.load_state_dict(module.state_dict())
    return enc
