"""PyG's ``RandomNodeSplit``: train / validation / test node masks, drawn at random.

Same arguments and masks as ``torch_geometric.transforms.RandomNodeSplit`` (PyG 2.8): the
counts follow PyG's arithmetic exactly (a float ``num_val`` / ``num_test`` is
``round(ratio * num_nodes)``, Python's rounding; a count larger than what is left is cut
short, as PyG's slices are); only the random numbers differ (see below). On a
``HeteroData`` every node type holding ``key`` is split (every node type for ``key=None``).

How: ``'train_rest'`` draws one permutation of the nodes; ``'test_rest'`` / ``'random'``
pick ``num_train_per_class`` nodes of each class ``0 .. y.max()`` at once (one random key
per node, one sort by ``(class, key)``, no loop over classes), then permute the rest.

RULE: random numbers come from ``seed`` (an int, a ``numpy.random.Generator`` or ``None``),
taken once when the transform is built: the same seed gives the same sequence of splits.
PyG draws from torch's generator, so its masks differ from these for every seed.
RULE: the masks are new boolean arrays on the nodes' device (``[N]``, or ``[N,
num_splits]`` for ``num_splits > 1``); nothing the caller passed is modified.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.zeros((10, 2)), y=np.arange(10) % 2)
>>> out = RandomNodeSplit(num_val=0.2, num_test=3, seed=0)(d)
>>> [int(m.sum()) for m in (out.train_mask, out.val_mask, out.test_mask)]
[5, 2, 3]
>>> "train_mask" in d
False
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._draws import device_generator, permutation, seed_arg
from arraygnn.transforms._graph import int_arg
from arraygnn.transforms.base import BaseTransform

__all__ = ["RandomNodeSplit"]

_SPLITS = ("train_rest", "test_rest", "random")
_WHERE = "RandomNodeSplit"


def amount_arg(where: str, name: str, value: Any) -> int | float:
    """A count (int >= 0) or a ratio (finite float >= 0), else an error naming ``where``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, np.integer, float, np.floating)
    ):
        raise TypeError(f"{where}: {name} must be an int or a float, got {value!r}")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{where}: {name} must be a finite value >= 0, got {value}")
        return float(value)
    if value < 0:
        raise ValueError(f"{where}: {name} must be >= 0, got {value}")
    return int(value)


def _resolve(value: int | float, num_nodes: int) -> int:
    """PyG's count: a float is ``round(num_nodes * ratio)`` (Python's rounding)."""
    return round(num_nodes * value) if isinstance(value, float) else value


class RandomNodeSplit(BaseTransform):
    """Add ``train_mask``, ``val_mask`` and ``test_mask`` to every node store holding
    ``key`` (PyG's ``RandomNodeSplit``).

    ``split``: ``'train_rest'`` (``num_val`` + ``num_test`` random nodes, the rest trains),
    ``'test_rest'`` (``num_train_per_class`` per class, ``num_val`` of the rest, the rest
    tests) or ``'random'`` (as ``'test_rest'`` but ``num_test`` nodes test). Classes are
    ``0 .. y.max()`` of the integer labels ``data[key]`` ([N]); a class with fewer nodes
    gives all of them. ``num_val`` / ``num_test``: counts, or floats (ratios of the node
    count). ``num_splits > 1`` stacks independent splits as ``[N, num_splits]`` masks.
    ``seed``: see the module notes.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> t = RandomNodeSplit("random", num_train_per_class=1, num_val=1, num_test=1, seed=0)
    >>> out = t(Data(y=np.array([0, 0, 1, 1, 1]), num_nodes=5))
    >>> out.train_mask.sum().item(), out.val_mask.sum().item(), out.test_mask.sum().item()
    (2, 1, 1)
    """

    def __init__(
        self,
        split: str = "train_rest",
        num_splits: int = 1,
        num_train_per_class: int = 20,
        num_val: int | float = 500,
        num_test: int | float = 1000,
        key: str | None = "y",
        *,
        seed: Any = None,
    ) -> None:
        if split not in _SPLITS:
            raise ValueError(f"{_WHERE}: split must be one of {list(_SPLITS)}, got {split!r}")
        num_splits = int_arg(_WHERE, "num_splits", num_splits, 1)
        num_train_per_class = int_arg(_WHERE, "num_train_per_class", num_train_per_class)
        if key is not None and not isinstance(key, str):
            raise TypeError(f"{_WHERE}: key must be an attribute name or None, got {key!r}")
        if key is None and split != "train_rest":
            raise ValueError(f"{_WHERE}: split={split!r} needs labels: key must not be None")
        self.split = split
        self.num_splits = int(num_splits)
        self.num_train_per_class = int(num_train_per_class)
        self.num_val = amount_arg(_WHERE, "num_val", num_val)
        self.num_test = amount_arg(_WHERE, "num_test", num_test)
        self.key = key
        self._rng = seed_arg(_WHERE, seed)

    def forward(self, data: Any) -> Any:
        stores = data.node_stores if isinstance(data, HeteroData) else [data]
        for store in stores:
            if self.key is not None and self.key not in store:
                continue
            masks = [self._split(store) for _ in range(self.num_splits)]
            for i, name in enumerate(("train_mask", "val_mask", "test_mask")):
                parts = [m[i] for m in masks]
                xp = get_namespace(parts[0])
                store[name] = parts[0] if len(parts) == 1 else xp.stack(parts, axis=-1)
        return data

    def _labels(self, store: Any, num_nodes: int) -> tuple[ModuleType, Any]:
        y = store[self.key]
        if not is_array(y):
            raise TypeError(f"{_WHERE}: data[{self.key!r}] must be an array of class labels")
        if y.dtype.kind not in "iub" or y.ndim != 1 or int(y.shape[0]) != num_nodes:
            raise ValueError(
                f"{_WHERE}: data[{self.key!r}] must hold one integer class label per node "
                f"([{num_nodes}]), got dtype {y.dtype} and shape {tuple(y.shape)}"
            )
        return get_namespace(y), y.astype(np.int64)

    def _split(self, store: Any) -> tuple[Any, Any, Any]:
        num_nodes = store.num_nodes
        if num_nodes is None:
            raise ValueError(
                f"{_WHERE}: num_nodes is unknown (give x, pos or num_nodes=; it is never guessed "
                "from edge_index.max() + 1)"
            )
        num_val = _resolve(self.num_val, num_nodes)
        num_test = _resolve(self.num_test, num_nodes)
        if self.split == "train_rest":
            xp = get_namespace(*[v for _, v in store.items() if is_array(v)])
            gen = device_generator(xp, self._rng, _WHERE)
            perm = permutation(xp, gen, num_nodes)
            val, test, train = (
                perm[:num_val],
                perm[num_val : num_val + num_test],
                perm[num_val + num_test :],
            )
        else:
            xp, y = self._labels(store, num_nodes)
            gen = device_generator(xp, self._rng, _WHERE)
            keys = gen.random(num_nodes)
            # nodes by (class, random key): the first num_train_per_class of each class
            order = xp.lexsort(xp.stack([keys, y.astype(np.float64)]))
            cls = y[order]
            starts = xp.searchsorted(cls, cls, side="left")
            rank = xp.arange(num_nodes) - starts
            take = (rank < self.num_train_per_class) & (cls >= 0)
            train = order[take]
            chosen = xp.zeros(num_nodes, dtype=bool)
            chosen[train] = True
            rest = xp.nonzero(~chosen)[0]
            rest = rest[permutation(xp, gen, int(rest.shape[0]))]
            val = rest[:num_val]
            stop = None if self.split == "test_rest" else num_val + num_test
            test = rest[num_val:stop]
        out = []
        for ids in (train, val, test):
            mask = xp.zeros(num_nodes, dtype=bool)
            mask[ids] = True
            out.append(mask)
        return out[0], out[1], out[2]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(split={self.split})"
