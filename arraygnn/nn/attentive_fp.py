"""PyG's ``AttentiveFP`` (Xiong et al., 2020) at inference: atom embeddings refined by a
gated attention layer (``GATEConv``) and ``GATConv`` + ``GRUCell`` steps, then a molecule
embedding refined by attention from each graph's atoms to the graph (``num_timesteps``
times), then a linear predictor.

``GATEConv`` (PyG's, inside ``torch_geometric.nn.models.attentive_fp``): per edge ``j -> i``
the score ``leaky_relu(leaky_relu(lin1([x_j, e_ji])) . att_l + x_i . att_r)`` (``lin1``
split into a node part, computed per node and gathered, and an edge part: one ``[E, F]``
array, which the inner nonlinearity needs), edge softmax per target, then ``lin2`` of the
softmax-weighted SpMM of ``x`` plus ``bias`` (``lin2`` is linear: it runs once per node on
the aggregate, not once per edge). The readout attention is ``GATConv`` over the edges
``atom -> its graph``. Dropout is the identity.

>>> import numpy as np
>>> model = AttentiveFP(4, 8, 2, edge_dim=3, num_layers=2, num_timesteps=2, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> model(np.ones((3, 4), np.float32), ei, np.ones((3, 3), np.float32),
...       np.zeros(3, np.int64), batch_size=1).shape
(1, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.gat_conv import GATConv
from arraygnn.nn.linear import (
    GRUCell,
    Linear,
    _check_features,
    _elu,
    _leaky_relu,
    _ModuleList,
    _relu,
    _rng,
    glorot,
    matmul,
)
from arraygnn.nn.readout import global_add_pool

__all__ = ["AttentiveFP"]


class _GATEConv(Module):
    """PyG's ``GATEConv``: names ``att_l`` ``(1, out)``, ``att_r`` ``(1, in)``,
    ``lin1.weight`` ``(out, in + edge_dim)``, ``lin2.weight`` ``(out, out)``, ``bias``."""

    _param_names = ("att_l", "att_r", "bias")
    _child_names = ("lin1", "lin2")

    def __init__(self, in_channels: int, out_channels: int, edge_dim: int, dtype: Any, gen: Any):
        self.in_channels, self.edge_dim = in_channels, edge_dim
        self.att_l = glorot((1, out_channels), gen, dtype)
        self.att_r = glorot((1, in_channels), gen, dtype)
        self.lin1 = Linear(in_channels + edge_dim, out_channels, False, dtype=dtype, rng=gen)
        self.lin2 = Linear(out_channels, out_channels, False, dtype=dtype, rng=gen)
        self.bias = np.zeros(out_channels, dtype=dtype)

    def __call__(self, x: Any, edge_index: Any, edge_attr: Any) -> Any:
        from arraygnn import ops
        from arraygnn.nn._graph_input import check_edge_attr, parse_input

        inp = parse_input("AttentiveFP (gate_conv)", x, edge_index)
        edge_attr = check_edge_attr("AttentiveFP", edge_attr, inp.num_edges, self.edge_dim, x)
        w = self.lin1.weight
        node_part = matmul(x, w[:, : self.in_channels].T)  # per node, gathered per edge
        h = ops.gather(node_part, inp.src)
        h += matmul(edge_attr, w[:, self.in_channels :].T)
        h = _leaky_relu(h)
        score = matmul(h, self.att_l.T)[:, 0] + matmul(x, self.att_r.T)[inp.dst, 0]
        alpha = ops.edge_softmax(inp.edge_index, _leaky_relu(score), inp.num_dst)
        # the message is lin2(x_j) * alpha: lin2 of the alpha-weighted SpMM of x
        agg = ops.spmm(inp.edge_index, x, edge_weight=alpha, num_dst_nodes=inp.num_dst)
        return self.lin2(agg) + self.bias


class AttentiveFP(Module):
    """PyG's ``AttentiveFP``.

    Args:
        in_channels, hidden_channels, out_channels: sizes.
        edge_dim: edge feature size.
        num_layers: atom layers (the ``GATEConv`` one plus ``num_layers - 1`` ``GATConv``).
        num_timesteps: molecule attention steps.
        dropout: ignored (inference).

    Call as ``model(x, edge_index, edge_attr, batch, batch_size=None)`` ->
    ``(num_graphs, out_channels)``. ``batch_size`` is the number of graphs (``None``: one
    graph when ``batch`` is ``None``, else ``batch.max() + 1`` as PyG; pass it to keep
    trailing empty graphs).

    Names (PyG's): ``lin1``, ``gate_conv.*``, ``gru.*``, ``atom_convs.i.*``,
    ``atom_grus.i.*``, ``mol_conv.*``, ``mol_gru.*``, ``lin2``.
    """

    _child_names = (
        "lin1", "gate_conv", "gru", "atom_convs", "atom_grus", "mol_conv", "mol_gru", "lin2"
    )  # fmt: skip

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        edge_dim: int,
        num_layers: int,
        num_timesteps: int,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "AttentiveFP"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        hid = self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels, 1)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.edge_dim = layer_size(name, "edge_dim", edge_dim)
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        self.num_timesteps = layer_size(name, "num_timesteps", num_timesteps)
        self.dropout = probability("AttentiveFP", "dropout", dropout)
        gen = _rng(rng)

        def gat() -> GATConv:
            return GATConv(
                hid, hid, 1, negative_slope=0.01, add_self_loops=False,
                allow_zero_in_degree=True, dtype=dtype, rng=gen,
            )  # fmt: skip

        self.lin1 = Linear(self.in_channels, hid, dtype=dtype, rng=gen)
        self.gate_conv = _GATEConv(hid, hid, self.edge_dim, dtype, gen)
        self.gru = GRUCell(hid, hid, dtype=dtype, rng=gen)
        self.atom_convs = _ModuleList([gat() for _ in range(self.num_layers - 1)])
        self.atom_grus = _ModuleList(
            [GRUCell(hid, hid, dtype=dtype, rng=gen) for _ in range(self.num_layers - 1)]
        )
        self.mol_conv = gat()
        self.mol_gru = GRUCell(hid, hid, dtype=dtype, rng=gen)
        self.lin2 = Linear(hid, self.out_channels, dtype=dtype, rng=gen)

    def __call__(
        self,
        x: Any,
        edge_index: Any,
        edge_attr: Any,
        batch: Any,
        batch_size: int | None = None,
    ) -> Any:
        from arraygnn.nn._graph_input import check_float_features
        from arraygnn.nn._pool_input import check_batch

        _check_features(x, self.in_channels, "AttentiveFP node features")
        check_float_features("AttentiveFP", x)
        xp = get_namespace(x)
        n = int(x.shape[0])
        if batch is not None:
            batch_size = check_batch("AttentiveFP", batch, batch_size, n)
        x = _leaky_relu(self.lin1(x))
        h = _elu(self.gate_conv(x, edge_index, edge_attr))
        x = _relu(self.gru(h, x))
        for conv, gru in zip(self.atom_convs, self.atom_grus):
            x = _relu(gru(_elu(conv(x, edge_index)), x))
        if batch is None:
            batch = xp.zeros(n, dtype=np.int64)
            batch_size = 1 if batch_size is None else batch_size
        out = _relu(global_add_pool(x, batch, batch_size))
        ids = batch.dtype if batch.dtype.itemsize >= 4 else np.dtype(np.int32)  # no wrap
        readout = xp.stack([xp.arange(n, dtype=ids), batch.astype(ids, copy=False)])
        for _ in range(self.num_timesteps):
            h = _elu(self.mol_conv((x, out), readout))
            out = _relu(self.mol_gru(h, out))
        return self.lin2(out)

    def extra_repr(self) -> str:
        return (
            f"in_channels={self.in_channels}, hidden_channels={self.hidden_channels}, "
            f"out_channels={self.out_channels}, edge_dim={self.edge_dim}, "
            f"num_layers={self.num_layers}, num_timesteps={self.num_timesteps}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``AttentiveFP`` with every weight (its GATConvs, GRUCells and Linears through
    ``convert``)."""
    model = AttentiveFP(
        module.in_channels,
        module.hidden_channels,
        module.out_channels,
        module.edge_dim,
        module.num_layers,
        module.num_timesteps,
        dtype=dtype,
    )
    model.atom_convs = _ModuleList([convert(c) for c in module.atom_convs])
    model.mol_conv = convert(module.mol_conv)
    for conv in list(model.atom_convs) + [model.mol_conv]:
        conv.allow_zero_in_degree = True  # PyG's GATConv never checks
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
