"""Pathfinder discovery network convolution (Rozemberczki et al., 2021): PyG's ``PDNConv``.

``x_i' = sum_{j in N(i) + i} w_ji x_j W + b`` with ``w_ji = sigmoid(MLP(e_ji))``, the
edge MLP ``Linear -> ReLU -> Linear(., 1) -> Sigmoid``, and (``normalize=True``) the GCN
normalisation of those weights with the remaining self-loops (weight 1) added.

How it runs: the edge MLP is the only per-edge work (one scalar per edge comes out of
it); it runs over pieces of the edges, so its ``[E, hidden_channels]`` hidden layer is
never formed at once. The normalisation is :func:`arraygnn.nn.graph_conv.normalized_slots`
(weights in CSR slot order), and the propagation one weighted SpMM of ``x W``: no
``[E, F]`` message array.

>>> import numpy as np
>>> conv = PDNConv(4, 3, edge_dim=2, hidden_channels=8, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> conv(np.ones((3, 4), np.float32), ei, np.ones((3, 2), np.float32)).shape
(3, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._graph_input import check_edge_attr, check_one_node_set, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn._row_chunks import EDGE_CHUNK_BYTES
from arraygnn.nn.graph_conv import gcn_graph
from arraygnn.nn.linear import Linear, Sequential, _check_features, _rng, add_bias

__all__ = ["PDNConv"]


class PDNConv(Module):
    """PyG's ``PDNConv``.

    Args:
        in_channels: the input size.
        out_channels: the output size.
        edge_dim: the edge feature size.
        hidden_channels: the edge MLP's hidden size.
        add_self_loops: add the remaining self-loops (weight 1) when normalising.
        normalize: GCN-normalise the edge weights (``d_j^-1/2 w_ji d_i^-1/2``, weighted
            in-degrees); without it the weights are used as they are and no loop is added.
        bias: an output bias.

    Call as ``conv(x, edge_index, edge_attr)`` (homogeneous only, as PyG's) or
    ``conv(graph, feat, edge_feat)``. ``edge_attr`` may be ``None`` with
    ``normalize=True`` (every weight 1 before normalising). Names (PyG): ``lin.weight``,
    ``mlp.0.*``, ``mlp.2.*``, ``bias``.

    Shapes:
        input:  x (N, in_channels), edge_index (2, E), edge_attr (E, edge_dim)
        output: (N, out_channels)
    """

    _param_names = ("bias",)
    _child_names = ("lin", "mlp")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        edge_dim: int,
        hidden_channels: int,
        add_self_loops: bool = True,
        normalize: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "PDNConv"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.edge_dim = layer_size(name, "edge_dim", edge_dim)
        self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels)
        for flag, value in (("add_self_loops", add_self_loops), ("normalize", normalize)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name}: {flag} must be True or False, got {value!r}")
        self.add_self_loops = bool(add_self_loops)
        self.normalize = bool(normalize)
        gen = _rng(rng)
        self.lin = Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=gen)
        self.mlp = Sequential(
            Linear(self.edge_dim, self.hidden_channels, dtype=dtype, rng=gen),
            "relu",
            Linear(self.hidden_channels, 1, dtype=dtype, rng=gen),
            "sigmoid",
        )
        self.bias = np.zeros(self.out_channels, dtype=dtype) if bias else None

    def edge_weights(self, edge_attr: Any) -> Any:
        """``sigmoid(MLP(edge_attr))`` ``(E,)``, the MLP run on pieces of the edges."""
        xp = get_namespace(edge_attr)
        num_edges = int(edge_attr.shape[0])
        step = max(1, EDGE_CHUNK_BYTES // (self.hidden_channels * edge_attr.dtype.itemsize))
        if num_edges <= step or xp is not np:
            return self.mlp(edge_attr)[:, 0]
        pieces = [self.mlp(edge_attr[a : a + step])[:, 0] for a in range(0, num_edges, step)]
        return np.concatenate(pieces)

    def __call__(self, x: Any, edge_index: Any, edge_attr: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        layer = "PDNConv"
        if isinstance(x, tuple) or (
            isinstance(x, list) and all(a is None or is_array(a) for a in x)
        ):
            raise TypeError(f"{layer}: takes one feature array x (PyG's PDNConv is not bipartite)")
        inp = parse_input(layer, x, edge_index)
        check_one_node_set(layer, inp)  # as PyG's; a pair (feat_src, feat_dst) would lose feat_dst
        _check_features(inp.x_src, self.in_channels, f"{layer} x", self.lin.weight)
        h = self.lin(inp.x_src)
        weight = None
        if edge_attr is not None:
            e = check_edge_attr(layer, edge_attr, inp.num_edges, self.edge_dim, inp.x_src)
            weight = self.edge_weights(e)
        elif not self.normalize:
            raise ValueError(
                f"{layer}: edge_attr is required with normalize=False (the edge weights come "
                "from it; PyG's fails without it too)"
            )
        csr, w = gcn_graph(layer, inp, weight, self.normalize, False, self.add_self_loops, h.dtype)
        out = spmm_slots(csr, h, w)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"
