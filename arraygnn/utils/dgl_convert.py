"""PyG's ``to_dgl`` / ``from_dgl``: a ``Data`` / ``HeteroData`` to and from a graph of
arraygnn's DGL face (:class:`arraygnn.graph.Graph`), sharing the feature arrays.

PyG converts to and from ``dgl.DGLGraph``; here the DGL face's ``Graph`` plays that part
(``arraygnn.interop`` converts arrays to torch / DGL when needed). The work is done by
:func:`arraygnn.graph.convert.data_to_graph` / ``graph_to_data`` (one node and one edge
type) and :func:`arraygnn.hetero_convert.hetero_data_to_graph` / ``graph_to_hetero_data``.

RULE: which ``Data`` attribute is a node or an edge feature is stated, not guessed from its
length (PyG's ``data.node_attrs()`` guesses): ``x`` and ``pos`` go to ``g.ndata``,
``edge_attr`` and ``edge_weight`` to ``g.edata``; name any other array in
``node_features`` / ``edge_features`` or leave it out with ``exclude_keys`` (otherwise a
``ValueError`` names it). A ``HeteroData`` store's arrays all go to their type.
RULE: ``from_dgl`` gives a ``Data`` for a graph with one node and one edge type (DGL's
``is_homogeneous``), else a ``HeteroData``, as PyG; ``num_nodes`` is always set.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> g = to_dgl(Data(x=np.ones((3, 2)), edge_index=np.array([[0, 1], [1, 2]])))
>>> g.num_nodes(), g.num_edges(), sorted(g.ndata)
(3, 2, ['x'])
>>> from_dgl(g).edge_index.tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["from_dgl", "to_dgl"]


def to_dgl(
    data: Any,
    *,
    node_features: Iterable[str] | None = None,
    edge_features: Iterable[str] | None = None,
    exclude_keys: Iterable[str] = (),
) -> Any:
    """A DGL-face :class:`arraygnn.graph.Graph` of ``data`` (PyG's ``utils.to_dgl``).

    A ``Data`` gives a homogeneous graph (``edge_index[0]`` -> ``edge_index[1]``, none
    without ``edge_index``, as PyG; ``data.num_nodes`` nodes) with ``x`` / ``pos`` (or
    ``node_features``) in ``g.ndata`` and ``edge_attr`` / ``edge_weight`` (or
    ``edge_features``) in ``g.edata``. A ``HeteroData`` gives one node type per node store
    and one canonical edge type per edge store, every array of a store going to its type
    (``node_features`` / ``edge_features`` do not apply; ``exclude_keys`` leaves keys out).
    Arrays are shared, not copied.

    >>> import numpy as np
    >>> from arraygnn.hetero_data import HeteroData
    >>> d = HeteroData(user={"num_nodes": 2}, item={"num_nodes": 3})
    >>> d["user", "buys", "item"].edge_index = np.array([[0, 1], [2, 0]])
    >>> to_dgl(d).canonical_etypes
    [('user', 'buys', 'item')]
    """
    from arraygnn.data import Data
    from arraygnn.graph.convert import data_to_graph
    from arraygnn.hetero_convert import hetero_data_to_graph
    from arraygnn.hetero_data import HeteroData

    if isinstance(data, HeteroData):
        if node_features is not None or edge_features is not None:
            raise ValueError(
                "to_dgl: node_features / edge_features apply to a Data; a HeteroData "
                "store's arrays all go to its type (use exclude_keys to leave some out)"
            )
        return hetero_data_to_graph(data, exclude_keys=exclude_keys)
    if isinstance(data, Data):
        if "edge_index" not in data:
            data = _edgeless(data)
        return data_to_graph(
            data,
            node_features=node_features,
            edge_features=edge_features,
            exclude_keys=exclude_keys,
        )
    raise TypeError(f"to_dgl: data must be a Data or a HeteroData, got {type(data).__name__}")


def _edgeless(data: Any) -> Any:
    """A shallow copy of a ``Data`` without ``edge_index`` holding an empty int64 one (PyG's
    ``to_dgl``: no edges); ``ToSparseTensor``'s ``adj_t`` in its place is a ``ValueError``."""
    import copy

    import numpy as np

    from arraygnn._namespace import get_namespace, is_array

    if "adj_t" in data:
        raise ValueError(
            "to_dgl: data holds adj_t but no edge_index; keep the edges "
            "(ToSparseTensor(remove_edge_index=False)) or leave adj_t out"
        )
    arrays = [data[k] for k in data.keys() if is_array(data[k])]
    xp = get_namespace(*arrays) if arrays else np
    out = copy.copy(data)
    out.edge_index = xp.zeros((2, 0), dtype=np.int64)
    return out


def from_dgl(g: Any) -> Any:
    """A ``Data`` (one node and one edge type) or a ``HeteroData`` of the DGL-face graph
    ``g`` (PyG's ``utils.from_dgl``): ``edge_index`` [2, E] stacked from ``g``'s
    (src, dst), ``num_nodes`` per type, and every node / edge feature, shared.

    >>> import numpy as np, arraygnn
    >>> g = arraygnn.graph((np.array([0, 0, 1]), np.array([1, 2, 2])), num_nodes=4)
    >>> g.edata["w"] = np.array([1.0, 2.0, 3.0])
    >>> d = from_dgl(g)
    >>> d.num_nodes, d.w.tolist()
    (4, [1.0, 2.0, 3.0])
    """
    from arraygnn.graph.convert import graph_to_data
    from arraygnn.graph.core import Graph
    from arraygnn.hetero_convert import graph_to_hetero_data

    if not isinstance(g, Graph):
        raise TypeError(f"from_dgl: g must be an arraygnn Graph, got {type(g).__name__}")
    if not g.is_block and len(g.ntypes) == 1 and len(g.canonical_etypes) == 1:
        return graph_to_data(g)
    return graph_to_hetero_data(g)
