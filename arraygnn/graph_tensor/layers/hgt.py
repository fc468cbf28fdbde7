"""TF-GNN's ``hgt.HGTGraphUpdate``: one round of the Heterogeneous Graph Transformer (Hu et
al., 2020) on a GraphTensor, at inference.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.ones((3, 4), np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> hgt = HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET, rng=0)
>>> hgt(g).node_sets["n"]["hidden_state"].shape
(3, 4)
>>> [w.shape for w in hgt.get_weights()][:3]  # skip_n, priors_e, key_node_n/kernel
[(), (2,), (4, 4)]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.graph_tensor.layers._base import (
    GraphLayer,
    ModuleDict,
    check_graph,
    feature,
    is_aux,
)
from arraygnn.graph_tensor.layers._keras import (
    KerasSlot,
    _concat_slots,
    _sigmoid,
    _split,
    keras_activation,
)
from arraygnn.graph_tensor.layers.builders import feature_width
from arraygnn.graph_tensor.layers.convolutions import check_tag
from arraygnn.graph_tensor.layers.models import _check_2d
from arraygnn.graph_tensor.pieces import HIDDEN_STATE, SOURCE, TARGET, GraphTensor
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import LayerNorm, Linear, _rng, glorot

__all__ = ["HGTGraphUpdate"]


class _Weight(GraphLayer):
    """One Keras weight of its own shape (scalars included) as a layer: ``state_dict``
    key ``value``; Keras name ``kernel`` (an ``EinsumDense``) or the variable's name."""

    _param_names = ("value",)

    def __init__(self, value: Any, keras_name: str = "kernel") -> None:
        self._shape = tuple(value.shape)
        self._value = value
        self.keras_name = keras_name

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, new: Any) -> None:  # keeps a scalar a scalar through load_keras_weights
        self._value = new.reshape(self._shape)

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        return _split([KerasSlot(self, "value", False, prefix + self.keras_name)], [], frozen)


class HGTGraphUpdate(GraphLayer):
    r"""TF-GNN's ``hgt.HGTGraphUpdate``: updates every node set at the ``receiver_tag``
    end of a (non-auxiliary) edge set with HGT attention over all its incoming edge sets.

    Per head, for an edge :math:`u \to v` of edge set (type) :math:`r`:
    :math:`s_{uv} = (Q_{\tau(v)} h_v A_r) \cdot (K_{\tau(u)} h_u)\, \mu_r / \sqrt{C}`,
    softmax over all edges into :math:`v` (all edge sets together), messages
    :math:`M_{\tau(u)} h_u W_r`; then :math:`h_v' = \mathrm{norm}(\alpha\,
    A_{\tau(v)}\,\sigma(\sum \ldots) + (1 - \alpha) h_v)` with :math:`\alpha =
    \mathrm{sigmoid}(\text{skip})` (``use_weighted_skip``; else a plain sum; no skip for
    an empty ``[N, 0]`` state). Receiver states must be ``num_heads * per_head_channels``
    wide or empty. Edge features are ignored, as in the paper. The scores are SDDMM dot
    products, the softmax and the weighted sums ``arraygnn.ops`` kernels: no
    ``[E, heads, channels]`` array is formed.

    Sized on the first call (or from ``graph_spec=``), like Keras. ``dropout_rate`` and
    ``kernel_initializer`` only matter for training and are ignored.

    Keras weights (``get_weights()`` order): the layer's own ``skip_<node set>`` scalars
    (weighted skip, in the iteration order of TF-GNN's Python ``set`` of receiver names
    built in edge-set order: the same as TF-GNN's in one process, but it varies between
    processes unless ``PYTHONHASHSEED`` is fixed) and ``priors_<edge set>`` ``[H]`` (in
    the graph's edge-set order); then, each sorted by set name, ``key_node_*``,
    ``message_node_*`` (senders), ``query_node_*``, ``aggr_node_*`` (receivers; kernel,
    bias each), ``normalization_*`` (gamma, beta; ``use_layer_norm``),
    ``attention_edge_*``, ``message_edge_*`` (kernels ``[H, C, C]``).
    """

    _child_names = (
        "skip",
        "priors",
        "key_projections",
        "message_projections",
        "query_projections",
        "aggr_projections",
        "norms",
        "attention_edge",
        "message_edge",
    )

    def __init__(
        self,
        *,
        num_heads: int,
        per_head_channels: int,
        receiver_tag: int,
        use_weighted_skip: bool = True,
        dropout_rate: float = 0.2,
        use_layer_norm: bool = True,
        kernel_initializer: Any = None,
        use_bias: bool = True,
        activation: Any = "gelu",
        feature_name: str = HIDDEN_STATE,
        graph_spec: Any = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "HGTGraphUpdate"
        self.num_heads = layer_size(where, "num_heads", num_heads, minimum=1)
        self.per_head_channels = layer_size(where, "per_head_channels", per_head_channels, 1)
        self.receiver_tag = check_tag(receiver_tag, where, allow_context=False)
        self.sender_tag = SOURCE if self.receiver_tag == TARGET else TARGET
        self.use_weighted_skip = bool(use_weighted_skip)
        if not 0 <= float(dropout_rate) < 1:
            raise ValueError(f"{where}: dropout_rate {dropout_rate} must be in [0, 1)")
        self.dropout_rate = float(dropout_rate)
        self.use_layer_norm = bool(use_layer_norm)
        self.use_bias = bool(use_bias)
        self.activation = keras_activation(activation, where)
        if not isinstance(feature_name, str):
            raise TypeError(f"{where}: feature_name must be a str, got {feature_name!r}")
        self.feature_name = feature_name
        self._dtype = dtype
        self._rng = _rng(rng)
        self.edge_set_names: list[str] | None = None
        for child in self._child_names:
            setattr(self, child, None)
        if graph_spec is not None:
            self._build(graph_spec)

    @property
    def is_initialized(self) -> bool:
        return self.edge_set_names is not None

    def _build(self, spec: Any) -> None:
        where = "HGTGraphUpdate"
        units = self.num_heads * self.per_head_channels
        rtag, stag = self.receiver_tag, self.sender_tag
        edge_sets = {k: v for k, v in spec.edge_sets.items() if not is_aux(k)}
        if not edge_sets:
            raise ValueError(f"{where}: HGT needs a GraphTensor with at least one edge set")

        def end(es: Any, tag: int) -> str:
            return es.target_name if tag == TARGET else es.source_name

        # Python sets built as TF-GNN builds them (same iteration order in one process)
        receivers = {end(es, rtag) for es in edge_sets.values()}
        senders = {end(es, stag) for es in edge_sets.values()}
        bad = sorted(n for n in receivers if is_aux(n))
        if bad:
            raise ValueError(
                f"{where}: auxiliary node sets {bad} are incident to non-auxiliary edge sets"
            )
        widths, constant = {}, {}
        for name in receivers | senders:
            widths[name] = feature_width(
                spec.node_sets[name].features, self.feature_name, f"node set {name!r}", where
            )
        for name in receivers:
            constant[name] = widths[name] == units
            if not constant[name] and widths[name] != 0:
                raise ValueError(
                    f"{where}: the input features need to either be empty or the same shape as "
                    f"the output; node set {name!r} has feature {self.feature_name!r} of size "
                    f"{widths[name]}, the output {units} (num_heads * per_head_channels)"
                )
        H, C, dtype, gen = self.num_heads, self.per_head_channels, self._dtype, self._rng

        def lin(n_in: int) -> Linear:
            return Linear(n_in, units, self.use_bias, dtype=dtype, rng=gen)

        self.edge_set_names = list(edge_sets)
        self.edge_set_ends = {k: (end(v, stag), end(v, rtag)) for k, v in edge_sets.items()}
        self.receiver_order = list(receivers)  # TF-GNN's creation order of the skips
        self.constant = constant
        self.widths = widths
        self.key_projections = ModuleDict({n: lin(widths[n]) for n in sorted(senders)})
        self.message_projections = ModuleDict({n: lin(widths[n]) for n in sorted(senders)})
        self.query_projections = ModuleDict({n: lin(widths[n]) for n in sorted(receivers)})
        self.aggr_projections = ModuleDict({n: lin(units) for n in sorted(receivers)})
        self.norms = ModuleDict(
            {n: LayerNorm(units, eps=1e-3, dtype=dtype) for n in sorted(receivers)}
            if self.use_layer_norm
            else {}
        )
        self.skip = ModuleDict(
            {
                n: _Weight(np.ones((), dtype=dtype), f"skip_{n}")
                for n in receivers
                if constant[n] and self.use_weighted_skip
            }
        )
        self.priors = ModuleDict(
            {k: _Weight(np.ones((H,), dtype=dtype), f"priors_{k}") for k in edge_sets}
        )
        self.attention_edge = ModuleDict(
            {k: _Weight(glorot((H, C, C), gen, dtype)) for k in edge_sets}
        )
        self.message_edge = ModuleDict(
            {k: _Weight(glorot((H, C, C), gen, dtype)) for k in edge_sets}
        )

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        if not self.is_initialized:
            raise ValueError("HGTGraphUpdate has no weights before its first call (or graph_spec=)")
        own = []
        for name in self.receiver_order:  # add_weight on the layer itself: listed first
            if name in self.skip._items:
                w = self.skip[name]
                own.append(KerasSlot(w, "value", False, f"{prefix}skip_{name}"))
        for name in self.edge_set_names:
            own.append(KerasSlot(self.priors[name], "value", False, f"{prefix}priors_{name}"))
        train, fixed = _concat_slots(
            [
                (f"{prefix}key_node_", self.key_projections),
                (f"{prefix}message_node_", self.message_projections),
                (f"{prefix}query_node_", self.query_projections),
                (f"{prefix}aggr_node_", self.aggr_projections),
                (f"{prefix}normalization_", self.norms),
                (f"{prefix}attention_edge_", self.attention_edge),
                (f"{prefix}message_edge_", self.message_edge),
            ],
            frozen,
        )
        if frozen:
            return [], own + fixed
        return own + train, fixed

    def __call__(self, graph: GraphTensor) -> GraphTensor:
        from arraygnn import ops

        where = "HGTGraphUpdate"
        check_graph(graph, where)
        if not self.is_initialized:
            self._build(graph.spec)
        present = [k for k in graph.edge_sets if not is_aux(k)]
        if sorted(present) != sorted(self.edge_set_names):
            raise ValueError(
                f"{where}: was built for edge sets {sorted(self.edge_set_names)}, got "
                f"{sorted(present)}"
            )
        H, C = self.num_heads, self.per_head_channels
        units = H * C
        states = {}
        for name in self.widths:
            if name not in graph.node_sets:
                raise ValueError(
                    f"{where}: no node set {name!r} (node sets: {sorted(graph.node_sets)})"
                )
            x = feature(graph.node_sets[name], self.feature_name, f"node set {name!r}", where)
            what = f"feature {self.feature_name!r} of node set {name!r}"
            _check_2d(x, self.widths[name], what, where)
            if x.dtype.itemsize < 4:  # half precision computes in float32 (gelu included)
                x = x.astype(get_namespace(x).float32)
            states[name] = x
        keys = {
            n: self.key_projections[n](states[n]).reshape(-1, H, C) for n in self.key_projections
        }
        messages = {
            n: self.message_projections[n](states[n]).reshape(-1, H, C)
            for n in self.message_projections
        }
        queries = {
            n: self.query_projections[n](states[n]).reshape(-1, H, C)
            for n in self.query_projections
        }
        rsqrt = 1.0 / np.sqrt(C)
        by_receiver: dict[str, list[tuple[str, Any, Any, Any]]] = {}
        for es_name in self.edge_set_names:
            es = graph.edge_sets[es_name]
            s_name, r_name = self.edge_set_ends[es_name]
            adj = es.adjacency
            ends = (adj.node_set_name(self.sender_tag), adj.node_set_name(self.receiver_tag))
            if ends != (s_name, r_name):
                raise ValueError(
                    f"{where}: edge set {es_name!r} joins other node sets than it was built for"
                )
            index = (es.adjacency[self.sender_tag], es.adjacency[self.receiver_tag])
            xp = get_namespace(queries[r_name])
            q = xp.einsum("njk,jkl->njl", queries[r_name], self.attention_edge[es_name].value)
            msg = xp.einsum("njk,jkl->njl", messages[s_name], self.message_edge[es_name].value)
            scores = ops.sddmm(index, keys[s_name], q, "dot")[..., 0]  # [E, H]
            scores = scores * (self.priors[es_name].value * scores.dtype.type(rsqrt))
            by_receiver.setdefault(r_name, []).append((es_name, index, scores, msg))
        out = {}
        for r_name, items in by_receiver.items():
            x = states[r_name]
            xp = get_namespace(x)
            n = int(x.shape[0])
            logits = xp.concatenate([s for _, _, s, _ in items], axis=0)
            rows = xp.concatenate([idx[1] for _, idx, _, _ in items], axis=0)
            pos = xp.arange(int(rows.shape[0]), dtype=rows.dtype)
            alpha = ops.edge_softmax((pos, rows), logits, n)  # all edge sets together
            res = None
            start = 0
            for _, index, scores, msg in items:
                e = int(scores.shape[0])
                part = ops.spmm(index, msg, edge_weight=alpha[start : start + e], num_dst_nodes=n)
                start += e
                res = part if res is None else res + part
            res = res.reshape(n, units).astype(x.dtype, copy=False)
            res = self.aggr_projections[r_name](self.activation(res))
            if self.constant[r_name]:
                if r_name in self.skip._items:
                    a = _sigmoid(self.skip[r_name].value.astype(res.dtype))
                    res = res * a + x * (1 - a)
                else:
                    res = res + x
            if self.use_layer_norm:
                res = self.norms[r_name](res)
            features = graph.node_sets[r_name].get_features_dict()
            features[self.feature_name] = res
            out[r_name] = features
        return graph.replace_features(node_sets=out)

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, per_head_channels={self.per_head_channels}, "
            f"receiver_tag={self.receiver_tag}"
        )
