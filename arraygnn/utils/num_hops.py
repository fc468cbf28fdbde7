"""PyG's ``get_num_hops``: how many hops a model aggregates over, counted as its number of
message-passing layers (an approximation, as PyG says: a multi-hop layer such as
``ChebConv`` counts once).

A layer counts when its class sets ``message_passing = True`` (``False`` excludes it),
or else when it derives from :class:`arraygnn.nn.MessagePassing` (a layer of one's own,
as PyG's), or when it is (or derives from) an arraygnn class named as one of PyG 2.8's
``MessagePassing`` subclasses (:data:`PYG_MESSAGE_PASSING`; a private ``_GATEConv`` as
``GATEConv``) or one of the DGL face's message-passing layers (:data:`DGL_MESSAGE_PASSING`):
a subclass of ``GCNConv`` counts, as in PyG, and a class of one's own that only shares a
name (``Encoder``) does not. Sub-layers are reached through ``_child_names`` and the items of
layer lists / dicts, each layer once (as ``torch.nn.Module.modules``).

>>> from arraygnn.nn import GCN
>>> get_num_hops(GCN(3, 8, num_layers=2))
2
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["DGL_MESSAGE_PASSING", "PYG_MESSAGE_PASSING", "get_num_hops", "modules"]

#: the class names of PyG 2.8.1's ``MessagePassing`` subclasses (all of ``torch_geometric.nn``)
PYG_MESSAGE_PASSING = frozenset(
    {
        "AGNNConv", "APPNP", "ARMAConv", "CFConv", "CGConv", "ChebConv", "ClusterGCNConv",
        "DNAConv", "Decoder", "DynamicEdgeConv", "EGConv", "EdgeConv", "Encoder", "FAConv",
        "FastRGCNConv", "FeaStConv", "FiLMConv", "FusedGATConv", "GATConv", "GATEConv",
        "GATv2Conv", "GCN2Conv", "GCNConv", "GENConv", "GINConv", "GINEConv", "GMMConv",
        "GatedGraphConv", "GeneralConv", "GraphConv", "GravNetConv", "HANConv", "HEATConv",
        "HGTConv", "HypergraphConv", "LEConv", "LGConv", "LPAttLayer", "LabelPropagation",
        "MFConv", "MeshCNNConv", "MixHopConv", "NNConv", "NeighborEmbedding", "PANConv",
        "PDNConv", "PNAConv", "PPFConv", "PointGNNConv", "PointNetConv",
        "PointTransformerConv", "RGATConv", "RGCNConv", "ResGatedGraphConv", "SAGEConv",
        "SGConv", "SSGConv", "SignedConv", "SimpleConv", "SparseLinear", "SplineConv",
        "SuperGATConv", "TAGConv", "TransformerConv", "ViS_MP", "ViS_MP_Vertex",
        "WLConvContinuous",
    }
)  # fmt: skip

#: the DGL face's message-passing layers without a PyG ``MessagePassing`` namesake
DGL_MESSAGE_PASSING = frozenset(
    {
        "APPNPConv", "AtomicConv", "DGLCFConv", "DGLGMMConv", "DGLHGTConv", "DGLPNAConv",
        "DGNConv", "DotGatConv", "EGATConv", "EGNNConv", "EdgeGATConv", "GatedGCNConv",
        "RelGraphConv", "TWIRLSConv",
    }
)  # fmt: skip


def modules(model: Any) -> Iterator[Any]:
    """``model`` and every layer below it, depth first, each object once."""
    seen: set[int] = set()
    stack = [model]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        children = [getattr(obj, name, None) for name in getattr(obj, "_child_names", ())]
        items = getattr(obj, "_items", None)
        if isinstance(items, dict):
            children += list(items.values())
        elif isinstance(items, (list, tuple)):
            children += list(items)
        stack.extend(
            c for c in reversed(children) if c is not None and not isinstance(c, (int, float, str))
        )


def _is_message_passing(layer: Any) -> bool:
    flag = getattr(type(layer), "message_passing", None)
    if isinstance(flag, bool):
        return flag
    # by the arraygnn classes it derives from (a subclass counts, as PyG's isinstance:
    # a user's own arraygnn.nn.MessagePassing layer first of all); a private
    # ``_GATEConv`` mirrors ``GATEConv``; a user's own ``Encoder`` is not PyG's
    for cls in type(layer).__mro__:
        if cls.__module__.split(".")[0] != "arraygnn":
            continue
        name = cls.__name__.lstrip("_")
        if name in PYG_MESSAGE_PASSING or name in DGL_MESSAGE_PASSING:
            return True
        if name == "MessagePassing" and cls.__module__ == "arraygnn.nn.message_passing":
            return True
    return False


def get_num_hops(model: Any) -> int:
    """The number of message-passing layers in ``model`` (an ``arraygnn.nn`` layer or
    model; module docs for what counts).

    >>> from arraygnn.nn import GCNConv
    >>> get_num_hops(GCNConv(3, 4))
    1
    """
    from arraygnn.nn._module import Module

    if not isinstance(model, Module):
        raise TypeError(
            f"get_num_hops: model must be an arraygnn.nn layer, got {type(model).__name__}"
        )
    return sum(1 for layer in modules(model) if _is_message_passing(layer))
