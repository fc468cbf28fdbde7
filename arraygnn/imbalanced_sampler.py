"""``ImbalancedSampler``: PyG's class-balancing weighted sampler (draws with replacement,
each element weighted by the inverse frequency of its class).

Give it a node-level ``Data`` (its ``y`` [num_nodes], optionally restricted to
``input_nodes``), a graph-level dataset (a ``PackedDataset`` with a graph feature ``y``, or
a sequence of graphs each holding ``y``), or the labels themselves as an integer array.
Iterating draws ``num_samples`` positions (default: as many as there are labels), a fresh
draw every epoch; pass it as ``sampler=`` to :class:`~arraygnn.loader.DataLoader`. Over
many draws each class is drawn about equally often.

RULE: ``weights[i] = 1 / count(y == y[i])`` (rounded to float32, as PyG's); the positions
      index the labels (for a ``Data`` with ``input_nodes``: positions in ``input_nodes``,
      as PyG's).
RULE: the same ``seed`` gives the same draws (one ``numpy.random.Generator`` across epochs).

>>> import numpy as np
>>> y = np.array([0, 0, 0, 0, 0, 0, 1, 1])
>>> sampler = ImbalancedSampler(y, num_samples=4000, seed=0)
>>> drawn = y[np.fromiter(sampler, dtype=np.int64)]
>>> sampler.weights.tolist()[5:], bool(abs(drawn.mean() - 0.5) < 0.05)
([0.1666666716337204, 0.5, 0.5], True)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_numpy

__all__ = ["ImbalancedSampler"]

_WHERE = "ImbalancedSampler"


def _labels(dataset: Any, input_nodes: Any) -> np.ndarray:
    from arraygnn.dataset import PackedDataset
    from arraygnn.interop._handoff import is_data_like

    if is_array(dataset):
        y = to_numpy(dataset).reshape(-1)
    elif is_data_like(dataset):
        if "y" not in dataset:
            raise ValueError(f"{_WHERE}: dataset (a Data) has no y")
        y = to_numpy(dataset.y).reshape(-1)
        if dataset.num_nodes is not None and y.shape[0] != dataset.num_nodes:
            raise ValueError(
                f"{_WHERE}: dataset.y must hold one label per node ({dataset.num_nodes}), "
                f"got {y.shape[0]}"
            )
    elif isinstance(dataset, PackedDataset):
        if "y" not in dataset.graph_features:
            raise ValueError(f"{_WHERE}: dataset (a PackedDataset) has no graph feature y")
        y = to_numpy(dataset.graph_features["y"]).reshape(-1)
        if y.shape[0] != len(dataset):
            raise ValueError(
                f"{_WHERE}: dataset's y must hold one label per graph ({len(dataset)}), got "
                f"{y.shape[0]}"
            )
    elif hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__"):
        ys = [dataset[i].y for i in range(len(dataset))]
        y = np.concatenate([np.reshape(to_numpy(v), -1) for v in ys]) if ys else np.zeros(0, int)
        if y.shape[0] != len(dataset):
            raise ValueError(
                f"{_WHERE}: every graph's y must hold one label ({len(dataset)} graphs, "
                f"{y.shape[0]} labels)"
            )
    else:
        raise TypeError(
            f"{_WHERE}: dataset must be a Data, a dataset of graphs or a label array, got "
            f"{type(dataset).__name__}"
        )
    if y.dtype.kind not in "iu":
        raise TypeError(f"{_WHERE}: the labels y must be integers (classes), got {y.dtype}")
    if input_nodes is not None:
        if is_data_like(dataset) or is_array(dataset):
            nodes = to_numpy(input_nodes) if is_array(input_nodes) else np.asarray(input_nodes)
            if nodes.dtype == np.bool_:
                if nodes.shape != y.shape:
                    raise ValueError(
                        f"{_WHERE}: input_nodes is a mask of {nodes.shape[0]} entries, there "
                        f"are {y.shape[0]} labels"
                    )
                nodes = np.flatnonzero(nodes)
            elif nodes.dtype.kind not in "iu" or nodes.ndim != 1:
                raise TypeError(f"{_WHERE}: input_nodes must be 1-D node ids or a bool mask")
            elif nodes.size and (nodes.min() < 0 or nodes.max() >= y.shape[0]):
                raise ValueError(f"{_WHERE}: input_nodes holds ids outside [0, {y.shape[0]})")
            y = y[nodes]
    if y.size and y.min() < 0:
        raise ValueError(f"{_WHERE}: the labels y must be >= 0, got {int(y.min())}")
    return y


class ImbalancedSampler:
    """Positions drawn with replacement, weighted by inverse class frequency.

    Args:
        dataset: a ``Data`` (node labels ``y``), a ``PackedDataset`` / sequence of graphs
            (graph labels ``y``) or an integer label array.
        input_nodes: node ids or a bool mask restricting a ``Data``'s (or an array's)
            labels (ignored for a dataset of graphs, as PyG).
        num_samples: draws per epoch (``None``: the number of labels).
        seed: seed of the ``numpy.random.Generator``.

    Attributes: ``weights`` [n] float64 (``1 / class count`` rounded to float32, as
    PyG's), ``num_samples``, ``replacement`` (``True``).
    """

    replacement = True

    def __init__(
        self,
        dataset: Any,
        input_nodes: Any = None,
        num_samples: int | None = None,
        seed: int | None = None,
    ) -> None:
        y = _labels(dataset, input_nodes)
        if num_samples is None:
            num_samples = int(y.shape[0])
        elif isinstance(num_samples, (bool, np.bool_)) or not isinstance(
            num_samples, (int, np.integer)
        ):
            raise TypeError(f"{_WHERE}: num_samples must be an int, got {num_samples!r}")
        if num_samples < 0:
            raise ValueError(f"{_WHERE}: num_samples must be >= 0, got {num_samples}")
        if y.shape[0] == 0 and num_samples > 0:
            raise ValueError(f"{_WHERE}: there are no labels to draw from")
        self.num_samples = int(num_samples)
        with np.errstate(divide="ignore"):  # absent classes: never indexed
            # PyG's bits: 1 / count in float32 (torch's default), then held as float64
            inverse = np.float32(1.0) / np.bincount(y).astype(np.float32)
            self.weights = inverse[y].astype(np.float64)
        self._rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self.num_samples

    def __iter__(self) -> Iterator[int]:
        if self.num_samples == 0:
            return iter(())
        p = self.weights / self.weights.sum()
        drawn = self._rng.choice(self.weights.shape[0], size=self.num_samples, p=p)
        return iter(drawn.tolist())

    def __repr__(self) -> str:
        return f"ImbalancedSampler({self.weights.shape[0]} labels, num_samples={self.num_samples})"
