"""Directed message passing (Rossi et al., 2023): PyG's ``DirGNNConv``.

``x' = alpha conv_out(x, A^T) + (1 - alpha) conv_in(x, A) + lin(x)``: two copies of any
arraygnn convolution, one over the edges as given (in-edges) and one over the reversed
edges (out-edges), then an optional root linear map. Each copy has its ``add_self_loops``
and ``root_weight`` switched off, as PyG. Whatever path the wrapped layer runs (SpMM,
SDDMM, ...) runs twice; reversing the edges is one ``[2, E]`` array.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv
>>> conv = DirGNNConv(GCNConv(3, 4, allow_zero_in_degree=True), alpha=0.5)
>>> conv(np.eye(3, dtype=np.float32), np.array([[0, 1], [1, 2]])).shape
(3, 4)
"""

from __future__ import annotations

import copy
from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import parse_input
from arraygnn.nn._module import Module, is_size
from arraygnn.nn.linear import Linear, add_bias

__all__ = ["DirGNNConv"]


class DirGNNConv(Module):
    r"""PyG's ``DirGNNConv``: :math:`x' = \alpha\, \mathrm{conv}_{out}(x, A^\top) +
    (1 - \alpha)\, \mathrm{conv}_{in}(x, A) + W x + b`.

    Args:
        conv: the arraygnn layer to wrap (an instance; copied twice, never changed). To wrap
            a PyG layer, convert it first with :func:`arraygnn.nn.from_pyg` (or convert a
            whole PyG ``DirGNNConv``).
        alpha: weight of the out-edge aggregation (default ``0.5``).
        root_weight: add ``lin(x)`` (default ``True``; needs ``conv.in_channels`` and
            ``conv.out_channels`` ints).

    The wrapped layer reads ``add_self_loops`` / ``root_weight`` when called (GCNConv,
    GATConv, SAGEConv, ResGatedGraphConv, TransformerConv, ...): as in PyG, the copies keep
    their root weights (``lin_r``, ``lin_skip``) in the state dict but do not use them.
    PyG's ``GraphConv`` (:class:`PyGGraphConv`) has no such switch and keeps its root term.
    An arraygnn ``GCNConv`` built without ``allow_zero_in_degree=True`` raises on nodes
    without in-edges once its self-loops are switched off.

    Call as ``conv(x, edge_index)`` or ``conv(graph, feat)`` (a homogeneous graph).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``
        - output: ``(N, out_channels)``

    Parameter names (PyG): ``conv_in.*``, ``conv_out.*``, ``lin.weight`` ``(out, in)``,
    ``lin.bias``.
    """

    _child_names = ("conv_in", "conv_out", "lin")

    def __init__(
        self,
        conv: Module,
        alpha: float = 0.5,
        root_weight: bool = True,
        *,
        rng: Any = None,
    ) -> None:
        if not isinstance(conv, Module):
            raise TypeError(
                f"DirGNNConv: conv must be an arraygnn layer, got {type(conv).__name__} (convert "
                "a PyG layer with arraygnn.nn.from_pyg)"
            )
        self.alpha = float(alpha)
        self.root_weight = bool(root_weight)
        self.conv_in = _switched_off(copy.deepcopy(conv))
        self.conv_out = _switched_off(copy.deepcopy(conv))
        self.lin: Linear | None = None
        if self.root_weight:
            sizes = (_size(conv, "in_channels", "in_src"), _size(conv, "out_channels", "out_feats"))
            if not all(is_size(s) for s in sizes):
                raise ValueError(
                    "DirGNNConv: root_weight=True needs a conv with int input and output sizes "
                    f"(in_channels / in_feats, out_channels / out_feats), got {sizes}"
                )
            self.lin = Linear(int(sizes[0]), int(sizes[1]), True, dtype=conv.dtype, rng=rng)

    def __call__(self, x: Any, edge_index: Any) -> Any:
        inp = parse_input("DirGNNConv", x, edge_index)
        if not inp.homogeneous:
            raise ValueError("DirGNNConv needs a homogeneous graph (one x, not a pair)")
        xp = get_namespace(inp.src)
        if inp.graph is not None:  # DGL's conv(graph, feat): the copies get PyG's form
            x, edge_index = inp.x_src, xp.stack([inp.src, inp.dst])
        x_in = self.conv_in(x, edge_index)
        x_out = self.conv_out(x, xp.stack([inp.dst, inp.src]))
        dtype = x_in.dtype.type
        out = x_out * dtype(self.alpha) + x_in * dtype(1.0 - self.alpha)
        if self.lin is not None:
            root = self.lin(x)
            if root.shape != out.shape:  # e.g. a GATConv's concatenated heads
                raise ValueError(
                    f"DirGNNConv: the wrapped layer gives {out.shape[-1]} features per node "
                    f"but the root map lin gives {root.shape[-1]} (out_channels); build the "
                    "DirGNNConv with root_weight=False"
                )
            out = add_bias(out, root)  # in place where the dtype allows
        return out

    @classmethod
    def _from_pyg(cls, module: Any, convert: Any) -> DirGNNConv:
        """PyG's ``DirGNNConv`` with its weights: each wrapped copy converted by ``convert``
        (``from_pyg``). PyG switches ``root_weight`` off on its copies but keeps their root
        weights (``lin_r``), so each copy is converted with ``root_weight`` on, then
        switched off here."""
        copies = []
        for wrapped in (module.conv_in, module.conv_out):
            if getattr(wrapped, "root_weight", None) is False:
                probe = copy.deepcopy(wrapped)
                probe.root_weight = True
                try:
                    copies.append(convert(probe))
                    continue
                except (KeyError, AttributeError):  # built without root weights
                    pass
            copies.append(convert(wrapped))
        layer = cls(copies[0], float(module.alpha), module.lin is not None)
        layer.conv_in, layer.conv_out = (_switched_off(c) for c in copies)
        if layer.lin is not None:
            layer.lin.load_state_dict(module.lin.state_dict())
        return layer

    def extra_repr(self) -> str:
        return f"{self.conv_in!r}, alpha={self.alpha}"


def _size(conv: Module, *names: str) -> Any:
    """The first of ``names`` the layer has (PyG-style ``in_channels`` or DGL-style
    ``in_src`` / ``out_feats`` attributes)."""
    for name in names:
        if getattr(conv, name, None) is not None:
            return getattr(conv, name)
    return None


def _switched_off(conv: Module) -> Module:
    """``conv`` with its ``add_self_loops`` and ``root_weight`` flags (where it has them as
    bools) set to ``False``, as PyG does to its copies, and without any cached graph
    normalisation (a ``cached=True`` layer that already ran holds one built over the
    forward edges, with its self-loops: stale for both copies)."""
    for name in ("add_self_loops", "root_weight"):
        if name == "root_weight" and type(conv).__name__ in _ALWAYS_ROOTED:
            continue
        if isinstance(getattr(conv, name, None), bool):
            setattr(conv, name, False)
    conv._clear_cache()
    return conv


#: layers whose ``root_weight`` attribute is no PyG flag: PyG's ``GraphConv`` (arraygnn's
#: ``PyGGraphConv``, a ``SAGEConv`` inside) always adds its root term, also in DirGNNConv
_ALWAYS_ROOTED = ("PyGGraphConv",)
