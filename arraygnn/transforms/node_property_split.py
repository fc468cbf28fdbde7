"""PyG's ``NodePropertySplit``: in-distribution and out-of-distribution node masks by a
structural property (PyG 2.8; "Evaluating Robustness and Uncertainty of Graph Models Under
Structural Distributional Shifts").

Same arguments and masks as ``torch_geometric.transforms.NodePropertySplit``: the nodes are
ranked by ``'popularity'`` (PageRank), ``'locality'`` (PageRank personalised on the node of
highest PageRank) or ``'density'`` (clustering coefficient), computed by NetworkX on the
undirected graph without self-loops, exactly as PyG (the values are cast to float32, as
PyG's ``torch.tensor`` of them). With ``ascending=True`` the nodes of highest property value
fill ``id_train_mask`` / ``id_val_mask`` / ``id_test_mask`` (in random order) and the lowest
ones ``ood_val_mask`` then ``ood_test_mask``; split sizes are ``round(N * ratio)`` with the
rounding remainder taken from the last split, as PyG.

RULE: random numbers (the tie order and the in-distribution shuffle) come from ``seed``
(an int, a ``numpy.random.Generator`` or ``None``), taken when the transform is built;
PyG's from torch's generator. Ties are ranked in random order (PyG's ``argsort`` leaves
them in an unspecified order).
RULE: NetworkX runs on the host: on CuPy the graph is copied there and the masks back.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> ei = np.array([[0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3]])
>>> t = NodePropertySplit("popularity", [0.2, 0.2, 0.2, 0.2, 0.2], seed=0)
>>> out = t(Data(edge_index=ei, num_nodes=5))
>>> out.ood_test_mask.nonzero()[0].tolist()  # an end of the path: lowest PageRank
[0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.interop.networkx import to_networkx
from arraygnn.transforms._draws import seed_arg
from arraygnn.transforms._graph import check_data
from arraygnn.transforms.base import BaseTransform

__all__ = ["NodePropertySplit"]

_WHERE = "NodePropertySplit"
_PROPERTIES = ("popularity", "locality", "density")
_NAMES = ("id_train_mask", "id_val_mask", "id_test_mask", "ood_val_mask", "ood_test_mask")


def property_values(name: str, graph: Any) -> np.ndarray:
    """The property of every node of the NetworkX ``graph`` (float32, PyG's recipe)."""
    import networkx.algorithms as A

    if name == "density":
        values = list(A.clustering(graph).values())
    else:
        values = list(A.pagerank(graph).values())
        if name == "locality":
            ranks = np.asarray(values, dtype=np.float32)
            personalization = dict.fromkeys(range(graph.number_of_nodes()), 0.0)
            personalization[int(ranks.argmax())] = 1.0
            values = list(A.pagerank(graph, personalization=personalization).values())
    return np.asarray(values, dtype=np.float32)


class NodePropertySplit(BaseTransform):
    """Add ``id_train_mask``, ``id_val_mask``, ``id_test_mask``, ``ood_val_mask`` and
    ``ood_test_mask`` (PyG's ``NodePropertySplit``); ``ratios``: five fractions summing to
    1. See the module notes.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> ei = np.array([[0, 1, 2, 0], [1, 2, 0, 3]])
    >>> out = NodePropertySplit("density", [0.25] * 4 + [0.0], seed=0)(Data(edge_index=ei,
    ...                                                                     num_nodes=4))
    >>> out.ood_val_mask.tolist()  # node 3 has no triangle: lowest density
    [False, False, False, True]
    """

    def __init__(
        self, property_name: str, ratios: list[float], ascending: bool = True, *, seed: Any = None
    ) -> None:
        if property_name not in _PROPERTIES:
            raise ValueError(
                f"{_WHERE}: property_name must be one of {list(_PROPERTIES)}, got {property_name!r}"
            )
        if not isinstance(ratios, (list, tuple)) or len(ratios) != 5:
            raise ValueError(f"{_WHERE}: ratios must contain 5 values, got {ratios!r}")
        if sum(ratios) != 1.0:
            raise ValueError(f"{_WHERE}: ratios must sum to 1.0, got {sum(ratios)}")
        if not isinstance(ascending, (bool, np.bool_)):
            raise TypeError(f"{_WHERE}: ascending must be a bool, got {ascending!r}")
        self.property_name = property_name
        self.ratios = list(ratios)
        self.ascending = bool(ascending)
        self._rng = seed_arg(_WHERE, seed)

    def forward(self, data: Any) -> Any:
        check_data(_WHERE, data, hetero=False)
        if data.num_nodes is None:
            raise ValueError(
                f"{_WHERE}: num_nodes is unknown (give x, pos or num_nodes=; it is never guessed "
                "from edge_index.max() + 1)"
            )
        xp = get_namespace(data["edge_index"] if "edge_index" in data else None)
        graph = to_networkx(data, to_undirected=True, remove_self_loops=True)
        values = property_values(self.property_name, graph)
        if self.ascending:
            values = -values
        for name, mask in zip(_NAMES, self.masks(values)):
            data[name] = xp.asarray(mask)
        return data

    def masks(self, values: np.ndarray) -> list[np.ndarray]:
        """The five masks for the property ``values`` (already signed by ``ascending``)."""
        n = int(values.shape[0])
        sizes = np.round(n * np.asarray(self.ratios, dtype=np.float32)).astype(np.int64)
        sizes[-1] -= sizes.sum() - n
        perm = self._rng.permutation(n)
        id_size = int(sizes[:3].sum())
        perm = perm[np.argsort(values[perm], kind="stable")]
        perm[:id_size] = perm[:id_size][self._rng.permutation(id_size)]
        out = []
        for part in np.split(perm, np.cumsum(sizes)[:-1]):
            mask = np.zeros(n, dtype=bool)
            mask[part] = True
            out.append(mask)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.property_name})"
