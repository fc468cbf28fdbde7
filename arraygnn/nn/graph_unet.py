"""PyG's ``GraphUNet`` (Gao and Ji, 2019) at inference: ``GCNConv`` (``improved=True``)
layers going down through ``TopKPooling`` s and back up through skip connections.

Down: ``act(conv_0(x))``, then ``depth`` times: the graph's two-hop augmentation
``(A + I)^2`` without self-loops (PyG's ``augment_adj``: loops removed, unit loops added,
coalesced, squared with PyTorch's sparse CSR product and its entry order, loops removed),
``TopKPooling``, ``act(conv_i)``. Up: each level's pooled output is scattered back to its
kept rows and added to (``sum_res``) or concatenated with the skip, then ``conv``, ``act``
except at the end. The sparse square is ``arraygnn.nn._pool_input.torch_spgemm`` (a Numba
kernel on the CPU); the convs run their own SpMMs.

>>> import numpy as np
>>> model = GraphUNet(3, 8, 2, depth=2, rng=0)
>>> model(np.ones((6, 3), np.float32), np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])).shape
(6, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn._pool_input import check_pool_input, torch_spgemm
from arraygnn.nn.graph_conv import GCNConv
from arraygnn.nn.linear import _ModuleList, _rng, get_activation
from arraygnn.nn.pool import TopKPooling

__all__ = ["GraphUNet"]


def augment_adj(edge_index: Any, edge_weight: Any, num_nodes: int) -> tuple[Any, Any]:
    """PyG's ``GraphUNet.augment_adj``: ``(A + I)^2`` without self-loops, as
    ``(edge_index int64, edge_weight)`` in PyTorch's CSR-product order."""
    from arraygnn.utils.coalesce import coalesce
    from arraygnn.utils.loops import add_self_loops, remove_self_loops

    xp = get_namespace(edge_index)
    n = int(num_nodes)
    edge_index, edge_weight = remove_self_loops(edge_index, edge_weight)
    edge_index, edge_weight = add_self_loops(edge_index, edge_weight, num_nodes=n)
    edge_index, edge_weight = coalesce(edge_index.astype(np.int64), edge_weight, n)
    ptr = xp.zeros(n + 1, dtype=np.int64)
    ptr[1:] = xp.cumsum(xp.bincount(edge_index[0], minlength=n))
    adj = (ptr, edge_index[1], edge_weight)
    out_ptr, col, val = torch_spgemm(adj, adj, n, n)
    row = repeat_counts(xp, xp.arange(n, dtype=np.int64), xp.diff(out_ptr))
    keep = row != col
    return xp.stack([row[keep], col[keep]]), val[keep]


class GraphUNet(Module):
    """PyG's ``GraphUNet``.

    Args:
        in_channels, hidden_channels, out_channels: sizes.
        depth: the number of poolings (>= 1).
        pool_ratios: one ratio for every ``TopKPooling`` or one per level.
        sum_res: add the skip (default) rather than concatenate it.
        act: the activation (default ``'relu'``).

    Call as ``model(x, edge_index, batch=None, edge_weight=None)``.

    Names: ``down_convs.i.*``, ``pools.i.select.weight``, ``up_convs.i.*`` (PyG's).
    """

    _child_names = ("down_convs", "pools", "up_convs")

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        depth: int,
        pool_ratios: float | Sequence[float] = 0.5,
        sum_res: bool = True,
        act: str | Callable[[Any], Any] = "relu",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "GraphUNet"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        hid = self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.depth = layer_size(name, "depth", depth, minimum=1)
        ratios = list(pool_ratios) if isinstance(pool_ratios, (list, tuple)) else [pool_ratios]
        ratios += [ratios[-1]] * (self.depth - len(ratios))  # PyG's repeat()
        self.pool_ratios = ratios[: self.depth]
        self.sum_res = bool(sum_res)
        self.act = get_activation(act)
        gen = _rng(rng)

        def conv(a: int, b: int) -> GCNConv:
            return GCNConv(a, b, improved=True, allow_zero_in_degree=True, dtype=dtype, rng=gen)

        self.down_convs = _ModuleList(
            [conv(self.in_channels, hid)] + [conv(hid, hid) for _ in range(self.depth)]
        )
        self.pools = _ModuleList(
            [TopKPooling(hid, r, dtype=dtype, rng=gen) for r in self.pool_ratios]
        )
        up_in = hid if self.sum_res else 2 * hid
        self.up_convs = _ModuleList(
            [conv(up_in, hid) for _ in range(self.depth - 1)] + [conv(up_in, self.out_channels)]
        )

    def __call__(self, x: Any, edge_index: Any, batch: Any = None, edge_weight: Any = None) -> Any:
        from arraygnn.nn._graph_input import check_edge_weight

        weight = self.down_convs[0].lin.weight
        xp, batch = check_pool_input("GraphUNet", x, edge_index, batch, self.in_channels, weight)
        if edge_weight is None:
            edge_weight = xp.ones(edge_index.shape[1], dtype=x.dtype)
        check_edge_weight("GraphUNet", edge_weight, int(edge_index.shape[1]))
        act = self.act if self.act is not None else (lambda h: h)
        x = act(self.down_convs[0](x, edge_index, edge_weight))
        xs, edge_indices, edge_weights, perms = [x], [edge_index], [edge_weight], []
        for i in range(1, self.depth + 1):
            edge_index, edge_weight = augment_adj(edge_index, edge_weight, x.shape[0])
            x, edge_index, edge_weight, batch, perm, _ = self.pools[i - 1](
                x, edge_index, edge_weight, batch
            )
            x = act(self.down_convs[i](x, edge_index, edge_weight))
            if i < self.depth:
                xs.append(x)
                edge_indices.append(edge_index)
                edge_weights.append(edge_weight)
            perms.append(perm)
        for i in range(self.depth):
            j = self.depth - 1 - i
            res = xs[j]
            up = xp.zeros_like(res)
            up[perms[j]] = x
            x = res + up if self.sum_res else xp.concatenate([res, up], axis=-1)
            x = self.up_convs[i](x, edge_indices[j], edge_weights[j])
            if i < self.depth - 1:
                x = act(x)
        return x

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.hidden_channels}, {self.out_channels}, "
            f"depth={self.depth}, pool_ratios={self.pool_ratios}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``GraphUNet`` (its convs and poolings through ``convert``)."""
    from arraygnn.nn.weights import _activation

    model = GraphUNet.__new__(GraphUNet)
    model.in_channels = int(module.in_channels)
    model.hidden_channels = int(module.hidden_channels)
    model.out_channels = int(module.out_channels)
    model.depth = int(module.depth)
    model.pool_ratios = list(module.pool_ratios)
    model.sum_res = bool(module.sum_res)
    model.act = get_activation(_activation(module.act, "from_pyg: GraphUNet act"))
    convs = []
    for part in ("down_convs", "up_convs"):
        converted = [convert(c) for c in getattr(module, part)]
        for c in converted:
            c.allow_zero_in_degree = True  # PyG's GCNConv never checks
        convs.append(_ModuleList(converted))
    model.down_convs, model.up_convs = convs
    model.pools = _ModuleList([convert(p) for p in module.pools])
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
