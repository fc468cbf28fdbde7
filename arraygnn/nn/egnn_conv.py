"""DGL's ``EGNNConv``: the E(n)-equivariant graph layer (Satorras et al.).

Per edge ``e = (j -> i)`` (DGL: ``u_sub_v``, so ``d = x_j - x_i``):
``m_e = phi_e(h_j, h_i, |d|^2, a_e)``, ``h'_i = phi_h(h_i, sum_j m_e)`` and
``x'_i = x_i + mean_j (d / (|d| + 1e-30)) phi_x(m_e)``, each ``phi`` a two-layer MLP with
SiLU (``phi_x`` ends in one bias-free output).

How it runs: the first layer of ``phi_e`` is linear in the concatenation, so it is
applied to the nodes (two ``[N, hidden]`` products) and added per edge, not to an
``[E, 2 in + 1 + edge]`` array; the same for ``phi_h`` on ``[h, sum m]``. The messages
``[E, hidden]`` (the MLP is non-linear per edge, so they are formed once) are made in the
CSR's slot order, and both reductions are segment reductions over contiguous rows
(deterministic).

>>> import numpy as np
>>> conv = EGNNConv(4, 8, 2, rng=0)
>>> h, x = conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]]),
...             np.eye(3, dtype=np.float32))
>>> h.shape, x.shape
((3, 2), (3, 3))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._dgl_common import (
    DGLModule,
    check_edge_feat,
    homogeneous_input,
    silu,
    slot_ends,
)
from arraygnn.nn._graph_input import csr_of
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear, Sequential, _check_features, _rng, add_bias, matmul

__all__ = ["EGNNConv"]


class EGNNConv(DGLModule):
    r"""DGL's ``EGNNConv`` (inference), DGL's parameter names.

    .. math::
        m_{ij} = \phi_e(h_i, h_j, \lVert x_i - x_j\rVert^2, a_{ij}),\quad
        x_i' = x_i + \frac{1}{|\mathcal{N}(i)|}\sum_j \frac{x_j - x_i}{\lVert x_j - x_i
        \rVert + 10^{-30}} \phi_x(m_{ij}),\quad h_i' = \phi_h(h_i, \textstyle\sum_j m_{ij})

    Args:
        in_size, hidden_size, out_size: sizes.
        edge_feat_size: edge feature size (0: none).

    Call as ``conv(graph, node_feat, coord_feat, edge_feat=None)`` or
    ``conv(x, edge_index, coord_feat, edge_feat=None)`` (one node set, as DGL's).
    ``coord_feat`` ``(N, D)`` coordinates (any ``D``). A node without in-edges keeps its
    coordinates and sees a zero message sum.

    Returns ``(h, x)``: ``(N, out_size)`` and ``(N, D)``.

    Names (DGL's): ``edge_mlp.0`` ``(hidden, 2 in + edge + 1)`` (columns: source, target,
    ``|d|^2``, edge features), ``edge_mlp.2``, ``node_mlp.0`` ``(hidden, in + hidden)``,
    ``node_mlp.2`` ``(out, hidden)``, ``coord_mlp.0``, ``coord_mlp.2`` ``(1, hidden)``
    (no bias).
    """

    _child_names = ("edge_mlp", "node_mlp", "coord_mlp")

    def __init__(
        self,
        in_size: int,
        hidden_size: int,
        out_size: int,
        edge_feat_size: int = 0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "EGNNConv"
        self.in_size = layer_size(layer, "in_size", in_size)
        self.hidden_size = layer_size(layer, "hidden_size", hidden_size)
        self.out_size = layer_size(layer, "out_size", out_size)
        self.edge_feat_size = layer_size(layer, "edge_feat_size", edge_feat_size)
        gen = _rng(rng)
        fin, hid = self.in_size, self.hidden_size
        self.edge_mlp = Sequential(
            Linear(2 * fin + self.edge_feat_size + 1, hid, dtype=dtype, rng=gen),
            silu,
            Linear(hid, hid, dtype=dtype, rng=gen),
            silu,
        )
        self.node_mlp = Sequential(
            Linear(fin + hid, hid, dtype=dtype, rng=gen),
            silu,
            Linear(hid, self.out_size, dtype=dtype, rng=gen),
        )
        self.coord_mlp = Sequential(
            Linear(hid, hid, dtype=dtype, rng=gen),
            silu,
            Linear(hid, 1, False, dtype=dtype, rng=gen),
        )

    def __call__(
        self,
        graph_or_x: Any,
        node_feat_or_edge_index: Any,
        coord_feat: Any = None,
        edge_feat: Any = None,
    ) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import to_slot_order

        layer = "EGNNConv"
        inp = homogeneous_input(layer, graph_or_x, node_feat_or_edge_index)
        h = inp.x_src
        w0 = self.edge_mlp[0].weight
        _check_features(h, self.in_size, f"{layer} node_feat", w0)
        if h.ndim != 2:
            raise ValueError(f"{layer}: node_feat must be [num_nodes, in_size], got {h.shape}")
        xp = get_namespace(h)
        n = inp.num_src
        if not is_array(coord_feat) or get_namespace(coord_feat) is not xp:
            raise TypeError(
                f"{layer}: coord_feat must be an ({n}, D) array on the features' device, got "
                f"{type(coord_feat).__name__}"
            )
        if coord_feat.dtype.kind != "f" or coord_feat.ndim != 2 or coord_feat.shape[0] != n:
            raise ValueError(
                f"{layer}: coord_feat must be a floating-point ({n}, D) array, got shape "
                f"{tuple(coord_feat.shape)} dtype {coord_feat.dtype}"
            )
        if self.edge_feat_size:
            edge_feat = check_edge_feat(
                layer, "edge_feat", edge_feat, inp.num_edges, self.edge_feat_size, h
            )
        elif edge_feat is not None:
            raise ValueError(
                f"{layer}: edge_feat was given but the layer has edge_feat_size=0 (DGL would "
                "ignore it); build EGNNConv(..., edge_feat_size=D) to use edge features"
            )
        csr = csr_of(inp)
        src, dst = slot_ends(csr)  # every edge array below is in slot order
        fin = self.in_size
        diff = coord_feat[src] - coord_feat[dst]  # [E, D]: u_sub_v
        radial = (diff * diff).sum(axis=1, keepdims=True)  # [E, 1]
        diff /= xp.sqrt(radial) + radial.dtype.type(1e-30)
        # edge_mlp.0 on [h_src, h_dst, radial, a] = its column blocks applied per node
        first = self.edge_mlp[0]
        m = ops.gather(matmul(h, w0[:, :fin].T), src)
        m += ops.gather(matmul(h, w0[:, fin : 2 * fin].T), dst)
        m += radial.astype(m.dtype, copy=False) * w0[:, 2 * fin]
        if self.edge_feat_size:
            a = to_slot_order(csr, edge_feat)
            m += matmul(a, w0[:, 2 * fin + 1 :].T).astype(m.dtype, copy=False)
        m = add_bias(m, first.bias)
        for step in self.edge_mlp.steps[1:]:
            m = step(m)  # [E, hidden] messages
        msg_x = self.coord_mlp(m) * diff  # [E, D]
        x_neigh = ops.segment(msg_x, csr.indptr, reduce="mean")
        h_neigh = ops.segment(m, csr.indptr, reduce="sum")
        first = self.node_mlp[0]
        wn = first.weight
        out = matmul(h, wn[:, :fin].T) + matmul(h_neigh, wn[:, fin:].T)
        out = add_bias(out, first.bias)
        for step in self.node_mlp.steps[1:]:
            out = step(out)
        return out, coord_feat + x_neigh

    def extra_repr(self) -> str:
        return (
            f"{self.in_size}, {self.hidden_size}, {self.out_size}, "
            f"edge_feat_size={self.edge_feat_size}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> EGNNConv:
    """DGL's ``EGNNConv`` -> :class:`EGNNConv` with its weights."""
    from arraygnn.nn.weights import _load

    layer = EGNNConv(
        module.in_size, module.hidden_size, module.out_size, module.edge_feat_size, dtype=dtype
    )
    return _load(layer, module, "dgl")
