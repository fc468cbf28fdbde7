"""PyG's transform protocol: :class:`BaseTransform`, :class:`Compose`, :class:`ComposeFilters`.

A transform is called on a :class:`~arraygnn.data.Data` or
:class:`~arraygnn.hetero_data.HeteroData` and returns a new object: ``__call__`` hands a
shallow copy to :meth:`BaseTransform.forward`, which sets new arrays on it (never writes
into the caller's arrays).

RULE: nothing the caller passed is modified: ``forward`` receives a shallow copy (its own
      key set, the caller's arrays) and replaces arrays instead of writing into them.
RULE: which ``Data`` attributes are per node and per edge is said, never guessed from their
      lengths (:func:`arraygnn.transforms.attrs.attribute_levels`).
RULE: called on a ``Batch``, a transform's result has its ``ptr`` recomputed and its
      records updated or dropped (:mod:`arraygnn.transforms._on_batch`); on a
      ``HeteroBatch``, its records kept where its node and edge sets stayed, else dropped.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> class Double(BaseTransform):
...     def forward(self, data):
...         data.x = 2 * data.x
...         return data
>>> d = Data(x=np.ones((2, 1)))
>>> Compose([Double(), Double()])(d).x.ravel().tolist(), d.x.ravel().tolist()
([4.0, 4.0], [1.0, 1.0])
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from arraygnn.batch import Batch
from arraygnn.hetero_batch import HeteroBatch
from arraygnn.transforms.attrs import on_batch

__all__ = ["BaseTransform", "Compose", "ComposeFilters"]


class BaseTransform:
    """Base class of transforms (PyG's ``BaseTransform``): subclasses implement
    :meth:`forward`; calling the transform runs it on a shallow copy of the input."""

    def __call__(self, data: Any) -> Any:
        if not isinstance(data, (Batch, HeteroBatch)):
            return self.forward(copy.copy(data))
        from arraygnn.transforms._on_batch import finish_batch

        if isinstance(data, HeteroBatch):  # records kept only where they still hold
            return finish_batch(self, data, self.forward(copy.copy(data)))
        with on_batch():  # the batch's own vectors are placed, then fixed
            out = self.forward(copy.copy(data))
        return finish_batch(self, data, out)

    def forward(self, data: Any) -> Any:
        """The transformed ``data`` (a shallow copy the transform may set attributes on)."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward(data)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _callables(where: str, name: str, fns: Any) -> list[Callable[[Any], Any]]:
    if isinstance(fns, (str, bytes)) or not isinstance(fns, Sequence):
        raise TypeError(f"{where}: {name} must be a list of callables, got {type(fns).__name__}")
    fns = list(fns)
    for i, fn in enumerate(fns):
        if not callable(fn):
            raise TypeError(f"{where}: {name}[{i}] must be callable, got {type(fn).__name__}")
    return fns


def _listing(name: str, items: list[Any]) -> str:
    inner = ",\n".join(f"  {item}" for item in items)
    return f"{name}([\n{inner}\n])"


class Compose(BaseTransform):
    """Apply ``transforms`` in order (PyG's ``Compose``); a list or tuple of graphs is
    transformed graph by graph.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> Compose([lambda d: d])(Data(x=np.zeros((1, 1)))).x.shape
    (1, 1)
    """

    def __init__(self, transforms: Sequence[Callable[[Any], Any]]) -> None:
        self.transforms = _callables("Compose", "transforms", transforms)

    def __call__(self, data: Any) -> Any:
        return self.forward(data)  # each transform copies what it changes

    def forward(self, data: Any) -> Any:
        for transform in self.transforms:
            if isinstance(data, (list, tuple)):
                data = [transform(d) for d in data]
            else:
                data = transform(data)
        return data

    def __repr__(self) -> str:
        return _listing("Compose", self.transforms)


class ComposeFilters:
    """``True`` when every filter accepts ``data`` (PyG's ``ComposeFilters``); for a list or
    tuple of graphs, when every filter accepts every graph. As PyG, the filters run in
    order and stop at the first that refuses, but a filter runs on every graph of a list
    (not stopping at the first it refuses).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> ComposeFilters([lambda d: d.num_nodes > 1])(Data(x=np.zeros((1, 1))))
    False
    """

    def __init__(self, filters: Sequence[Callable[[Any], bool]]) -> None:
        self.filters = _callables("ComposeFilters", "filters", filters)

    def __call__(self, data: Any) -> bool:
        for fn in self.filters:
            if isinstance(data, (list, tuple)):
                if not all([fn(d) for d in data]):  # every graph, as PyG
                    return False
            elif not fn(data):
                return False
        return True

    def __repr__(self) -> str:
        return _listing("ComposeFilters", self.filters)
