"""PyG's node-feature transforms that leave the structure alone: :class:`NormalizeFeatures`,
:class:`Constant`, :class:`SVDFeatureReduction`.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.array([[1.0, 3.0], [2.0, 2.0]]))
>>> NormalizeFeatures()(d).x.tolist(), Constant(value=0.5)(d).x.tolist()
([[0.0, 1.0], [0.5, 0.5]], [[1.0, 3.0, 0.5], [2.0, 2.0, 0.5]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._graph import check_data, int_arg, namespace_of, node_count
from arraygnn.transforms.base import BaseTransform

__all__ = [
    "Constant",
    "NormalizeFeatures",
    "SVDFeatureReduction",
    "cat_features",
    "cat_or_set",
    "stores_of",
]


def stores_of(data: Any, nodes_only: bool = False) -> list[tuple[Any, Any]]:
    """``(store, key)`` pairs: a ``Data`` is one store (key ``None``); a ``HeteroData``'s
    graph-level values (its dict, key ``None``, unless ``nodes_only``), node stores and edge
    stores (PyG's ``data.stores``)."""
    if not isinstance(data, HeteroData):
        return [(data, None)]
    out = [(s, s._key) for s in data.node_stores]
    if nodes_only:
        return out
    return [(data._global, None), *out, *((s, s._key) for s in data.edge_stores)]


def cat_features(x: Any, new: Any) -> Any:
    """PyG's ``torch.cat([x.view(-1, 1) if 1-D else x, new.to(x.dtype)], dim=-1)``."""
    xp = get_namespace(x, new)
    x = x.reshape(-1, 1) if x.ndim == 1 else x
    return xp.concatenate([x, new.astype(x.dtype, copy=False)], axis=-1)


def cat_or_set(store: Any, key: str, new: Any, cat: bool = True) -> None:
    """PyG's ``cat`` step: ``store[key]`` becomes ``[store[key], new]`` (:func:`cat_features`)
    when ``cat`` and the key exists, else ``new``."""
    old = store[key] if key in store else None
    store[key] = cat_features(old, new) if old is not None and cat else new


class NormalizeFeatures(BaseTransform):
    """Row-normalise features to sum 1 (PyG's ``NormalizeFeatures``): each array named in
    ``attrs`` (default ``['x']``) of every store becomes ``(v - v.min()) / s`` with ``s``
    the row sums of ``v - v.min()`` clamped to at least 1 (``v.min()`` is the minimum over
    the whole array, as PyG). Floating arrays only (PyG's in-place division fails on
    integers); empty arrays are left as they are.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> NormalizeFeatures()(Data(x=np.array([[0.2, 0.3]]))).x.round(6).tolist()
    [[0.0, 0.1]]
    """

    def __init__(self, attrs: list[str] | None = None) -> None:
        self.attrs = list(attrs or ["x"])
        for a in self.attrs:
            if not isinstance(a, str):
                raise TypeError(f"NormalizeFeatures: attrs must hold attribute names, got {a!r}")

    def forward(self, data: Any) -> Any:
        where = "NormalizeFeatures"
        check_data(where, data)
        for store, _ in stores_of(data):
            for key in self.attrs:
                if key not in store or not is_array(store[key]):
                    continue
                value = store[key]
                if value.dtype.kind != "f":
                    raise TypeError(
                        f"{where}: {key!r} must be floating point, got dtype {value.dtype}"
                    )
                if value.size == 0:
                    continue
                xp = get_namespace(value)
                value = value - value.min()
                sums = value.sum(axis=-1, keepdims=True)
                store[key] = value / xp.maximum(sums, value.dtype.type(1))
        return data


class Constant(BaseTransform):
    """Append a constant feature ``value`` to every node (PyG's ``Constant``): ``x``
    becomes ``[x, value]`` (``cat=True``, in ``x``'s dtype) or, without ``x`` or with
    ``cat=False``, the float32 column ``[[value]] * num_nodes``. ``node_types`` (a name or a
    list) limits a ``HeteroData`` to those node types.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> Constant()(Data(num_nodes=2)).x.tolist()
    [[1.0], [1.0]]
    """

    def __init__(
        self, value: float = 1.0, cat: bool = True, node_types: str | list[str] | None = None
    ) -> None:
        if isinstance(node_types, str):
            node_types = [node_types]
        self.value = value
        self.cat = cat
        self.node_types = node_types

    def forward(self, data: Any) -> Any:
        where = "Constant"
        check_data(where, data)
        xp = namespace_of(data)
        for store, key in stores_of(data, nodes_only=True):
            if self.node_types is not None and key not in self.node_types:
                continue
            what = "data" if key is None else f"node type {key!r}"
            n = node_count(where, store, what)
            c = xp.full((n, 1), self.value, dtype=np.float32)
            cat_or_set(store, "x", c, self.cat)
        return data

    def __repr__(self) -> str:
        return f"Constant(value={self.value})"


class SVDFeatureReduction(BaseTransform):
    """Reduce ``x`` [N, F] to ``out_channels`` columns by SVD (PyG's
    ``SVDFeatureReduction``): ``U[:, :k] * S[:k]`` when ``F > out_channels``, else ``x``
    unchanged. Each column's sign is the SVD's (arbitrary, as PyG's).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> SVDFeatureReduction(1)(Data(x=np.eye(3)[:, :2])).x.shape
    (3, 1)
    """

    def __init__(self, out_channels: int) -> None:
        self.out_channels = int_arg("SVDFeatureReduction", "out_channels", out_channels)

    def forward(self, data: Any) -> Any:
        where = "SVDFeatureReduction"
        check_data(where, data, hetero=False)
        if "x" not in data or not is_array(data.x) or data.x.ndim != 2:
            raise ValueError(f"{where}: data.x must be a [N, F] array")
        x = data.x
        if x.shape[-1] > self.out_channels:
            xp = get_namespace(x)
            u, s, _ = xp.linalg.svd(x, full_matrices=False)
            k = self.out_channels
            data.x = u[:, :k] * s[:k]
        return data

    def __repr__(self) -> str:
        return f"SVDFeatureReduction({self.out_channels})"
