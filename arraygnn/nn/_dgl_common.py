"""What the layers that exist only in DGL share (private): DGL's parameter names kept as
the layers' own, one-node-set inputs, edge-feature checks, slot-order edge ends, and the
two activations DGL's molecular layers use (SiLU, SchNet's shifted softplus).

>>> import numpy as np
>>> float(shifted_softplus(np.zeros(1))[0]) == 0.0
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts, torch_hint
from arraygnn.nn._graph_input import (
    GraphInput,
    check_edge_attr,
    check_float_features,
    parse_input,
)
from arraygnn.nn._module import Module

__all__ = [
    "DGLModule",
    "check_edge_feat",
    "homogeneous_input",
    "one_node_set",
    "shifted_softplus",
    "silu",
    "slot_ends",
]


class DGLModule(Module):
    """A layer whose own parameter names are DGL's (``state_dict(format='dgl')`` and
    ``load_state_dict(..., format='dgl')`` use them unchanged)."""

    _dgl_supported = True

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)


def homogeneous_input(layer: str, graph_or_x: Any, feat_or_edge_index: Any) -> GraphInput:
    """The parsed input of a layer that DGL writes with ``graph.ndata`` (one node set):
    ``(graph, feat)`` or ``(x, edge_index)``; a bipartite pair, a graph of several node
    types (equal sizes too) or a block is a ``ValueError`` naming ``layer``; features must
    be floating point."""
    inp = parse_input(layer, graph_or_x, feat_or_edge_index)
    if not one_node_set(inp):
        raise ValueError(
            f"{layer} works on one node set (DGL reads graph.ndata): pass (graph, feat) or "
            "(x, edge_index), not a bipartite pair, a bipartite graph or a block"
        )
    check_float_features(layer, inp.x_src)
    return inp


def one_node_set(inp: GraphInput) -> bool:
    """Whether ``inp`` is over one node set, as DGL's ``graph.ndata`` needs: not a pair, a
    block, or a graph of several node types (a bipartite graph whose two sets have equal
    sizes counts as homogeneous for :func:`parse_input`, not for ``ndata``)."""
    g = inp.graph
    is_block = g is not None and bool(getattr(g, "is_block", False))
    ntypes = getattr(g, "ntypes", None) if g is not None else None
    several_types = ntypes is not None and len(ntypes) > 1
    return inp.homogeneous and inp.num_src == inp.num_dst and not is_block and not several_types


def check_edge_feat(
    layer: str, name: str, value: Any, num_edges: int, width: int, like: Any
) -> Any:
    """:func:`check_edge_attr` for an argument DGL names ``name`` (``efeats``,
    ``edge_feat``, ...): ``(num_edges, width)`` floats (a 1-D array counts as one column) on
    the device of ``like``, returned 2-D; errors name ``layer`` and ``name``."""
    if value is None:
        raise ValueError(f"{layer}: {name} is required, shape ({num_edges}, {width})")
    try:
        return check_edge_attr(layer, value, num_edges, width, like)
    except (TypeError, ValueError) as err:
        raise type(err)(str(err).replace("edge_attr", name) + torch_hint(value)) from None


def slot_ends(csr: Any) -> tuple[Any, Any]:
    """``(source, target)`` of every CSR slot: slot ``j`` is edge ``csr.perm[j]``, from
    ``csr.indices[j]`` into its row. Edge arrays built in this order are reduced per
    target by ``ops.segment(values, csr.indptr)`` (contiguous rows, deterministic)."""
    xp = get_namespace(csr.indptr)
    rows = xp.arange(csr.num_dst_nodes, dtype=csr.indices.dtype)
    return csr.indices, repeat_counts(xp, rows, xp.diff(csr.indptr))


def silu(x: Any) -> Any:
    """``x * sigmoid(x)`` (torch's ``SiLU``)."""
    xp = get_namespace(x)
    with np.errstate(over="ignore"):  # exp(-x) = inf for a very negative x: x / inf = -0
        return x / (1 + xp.exp(-x))


def shifted_softplus(x: Any, beta: float = 1.0, shift: float = 2.0, threshold: float = 20.0) -> Any:
    """SchNet's ``softplus(x) - log(shift)`` with torch's ``Softplus(beta, threshold)``:
    ``x`` itself where ``beta * x > threshold``, else ``log1p(exp(beta * x)) / beta``."""
    xp = get_namespace(x)
    bx = x * x.dtype.type(beta)
    with np.errstate(over="ignore"):
        soft = xp.log1p(xp.exp(xp.minimum(bx, threshold))) / x.dtype.type(beta)
    out = xp.where(bx > threshold, x, soft)
    out -= x.dtype.type(math.log(float(shift)))
    return out
