"""One graph that a stack of layers propagates over in one forward pass (private).

Models such as ``SGFormer`` and ``Polynormer`` run several ``GCNConv`` / ``GATConv`` layers
over the same ``edge_index``; called one by one, each layer would check the ids, add the
self-loops, sort the edges into a CSR and compute the GCN normalisation again (PyG does, with
``cached=False``). :class:`SharedGraph` checks ``edge_index`` once and builds the CSR and
the normalised weights once, in the features' dtype; each layer then costs its projection and
one SpMM.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv
>>> x = np.ones((3, 2), np.float32)
>>> graph = SharedGraph("Model", x, np.array([[0, 1], [1, 2]]))
>>> conv = GCNConv(2, 4, rng=0)
>>> bool(np.allclose(graph.propagate(conv, x), conv(x, np.array([[0, 1], [1, 2]]))))
True
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn._graph_input import GraphInput, parse_input
from arraygnn.nn.graph_conv import GCNConv, normalized_slots
from arraygnn.nn.linear import add_bias

__all__ = ["SharedGraph"]


class SharedGraph:
    """``edge_index`` over the ``N`` rows of ``x`` (checked here, errors naming ``where``),
    with its CSR and GCN normalisations built on first use and kept."""

    def __init__(self, where: str, x: Any, edge_index: Any) -> None:
        self.where = where
        self.input: GraphInput = parse_input(where, x, edge_index)
        self.num_nodes = self.input.num_dst
        self._csr: Any = None
        self._gcn: dict[tuple[Any, ...], tuple[Any, Any]] = {}

    @property
    def csr(self) -> Any:
        """The graph as one CSR (sorted once), to pass in place of ``edge_index``."""
        if self._csr is None:
            from arraygnn import ops

            self._csr = ops.to_csr(self.input.edge_index, self.num_nodes, self.num_nodes)
        return self._csr

    def propagate(self, conv: Any, x: Any) -> Any:
        """``conv(x, edge_index)``; a normalising ``GCNConv`` reuses this graph's normalised
        weights (its projection, one SpMM, its bias; normalised in the projection's dtype, as
        the layer's own call), any other layer (and one whose zero-in-degree check could
        fire: no self-loops added, not allowed) gets the CSR."""
        shared = (
            isinstance(conv, GCNConv)
            and conv.normalize
            and not conv.cached
            and (conv.add_self_loops or conv.allow_zero_in_degree)
        )
        if not shared:
            return conv(x, self.csr)
        from arraygnn.ops.slot_order import spmm_slots

        h = conv.lin(x)
        key = (conv.improved, conv.add_self_loops, h.dtype)
        if key not in self._gcn:
            self._gcn[key] = normalized_slots(
                self.input.edge_index, None, self.num_nodes, conv.improved,
                conv.add_self_loops, h.dtype,
            )  # fmt: skip
        csr, w = self._gcn[key]
        out = spmm_slots(csr, h, w)
        return out if conv.bias is None else add_bias(out, conv.bias)
