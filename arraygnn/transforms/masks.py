"""PyG's :class:`IndexToMask` and :class:`MaskToIndex`: ``*_index`` id arrays to
``*_mask`` boolean arrays and back (:func:`arraygnn.utils.index_to_mask` /
:func:`arraygnn.utils.mask_to_index`).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(train_index=np.array([0, 2]), num_nodes=3)
>>> m = IndexToMask()(d)
>>> m.train_mask.tolist(), MaskToIndex()(m).train_index.tolist()
([True, False, True], [0, 2])
"""

from __future__ import annotations

from typing import Any

from arraygnn.hetero_data import EdgeStore
from arraygnn.transforms._graph import check_data
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.features import stores_of
from arraygnn.utils.mask import index_to_mask, mask_to_index

__all__ = ["IndexToMask", "MaskToIndex"]


def _attrs(attrs: Any, store: Any, suffix: str) -> list[str]:
    if attrs is not None:
        return attrs
    return [k for k in store.keys() if k.endswith(suffix)]


def _names(where: str, attrs: Any) -> list[str] | None:
    if attrs is None:
        return None
    attrs = [attrs] if isinstance(attrs, str) else list(attrs)
    for a in attrs:
        if not isinstance(a, str):
            raise TypeError(f"{where}: attrs must hold attribute names, got {a!r}")
    return attrs


class IndexToMask(BaseTransform):
    """Turn each ``<name>_index`` (``attrs``, default every key ending in ``_index`` but
    ``edge_index``) into a boolean ``<name>_mask`` of ``sizes`` entries (an int for all, a
    list with one per attribute, or ``None``: ``num_edges`` in a ``HeteroData`` edge store,
    else the store's ``num_nodes``: PyG guesses edge-level index arrays of a ``Data`` by
    their shape, give ``sizes=`` for those). ``replace=True`` drops the index arrays.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> IndexToMask(sizes=4, replace=True)(Data(val_index=np.array([3]))).val_mask.tolist()
    [False, False, False, True]
    """

    def __init__(
        self,
        attrs: str | list[str] | None = None,
        sizes: int | list[int] | None = None,
        replace: bool = False,
    ) -> None:
        self.attrs = _names("IndexToMask", attrs)
        self.sizes = sizes
        self.replace = replace

    def forward(self, data: Any) -> Any:
        where = "IndexToMask"
        check_data(where, data)
        for store, _ in stores_of(data):
            attrs = _attrs(self.attrs, store, "_index")
            if isinstance(self.sizes, int):
                sizes = [self.sizes] * len(attrs)
            elif isinstance(self.sizes, (list, tuple)):
                if len(attrs) != len(self.sizes):
                    raise ValueError(
                        f"{where}: the number of attributes (got {len(attrs)}) must match the "
                        f"number of sizes provided (got {len(self.sizes)})"
                    )
                sizes = list(self.sizes)
            else:
                sizes = [None] * len(attrs)
            for attr, size in zip(attrs, sizes):
                if "edge_index" in attr or attr not in store:
                    continue
                if size is None:
                    size = (
                        store.num_edges
                        if isinstance(store, EdgeStore)
                        else getattr(store, "num_nodes", None)
                    )
                if size is None:
                    raise ValueError(f"{where}: the size of {attr!r} is unknown: give sizes=")
                store[f"{attr[:-6]}_mask"] = index_to_mask(store[attr], size=size)
                if self.replace:
                    del store[attr]
        return data

    def __repr__(self) -> str:
        return f"IndexToMask(attrs={self.attrs}, sizes={self.sizes}, replace={self.replace})"


class MaskToIndex(BaseTransform):
    """Turn each ``<name>_mask`` (``attrs``, default every key ending in ``_mask``) into
    an int64 ``<name>_index`` of its ``True`` positions; ``replace=True`` drops the masks.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> MaskToIndex()(Data(test_mask=np.array([False, True]))).test_index.tolist()
    [1]
    """

    def __init__(self, attrs: str | list[str] | None = None, replace: bool = False) -> None:
        self.attrs = _names("MaskToIndex", attrs)
        self.replace = replace

    def forward(self, data: Any) -> Any:
        check_data("MaskToIndex", data)
        for store, _ in stores_of(data):
            for attr in _attrs(self.attrs, store, "_mask"):
                if attr not in store:
                    continue
                store[f"{attr[:-5]}_index"] = mask_to_index(store[attr])
                if self.replace:
                    del store[attr]
        return data

    def __repr__(self) -> str:
        return f"MaskToIndex(attrs={self.attrs}, replace={self.replace})"
