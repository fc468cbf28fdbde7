"""PyG's ``StochasticBlockModelDataset`` and ``RandomPartitionGraphDataset``.

Graphs of ``sum(block_sizes)`` nodes in consecutive blocks, each pair ``i != j`` linked
with the probability of its blocks (:func:`arraygnn.utils.stochastic_blockmodel_graph`,
drawn once and shared by every graph, as PyG), ``y`` the block of each node (int64) and,
with ``num_channels``, float32 features from scikit-learn's ``make_classification`` (PyG's
arguments: ``n_informative=num_channels``, ``n_redundant=0``, ``flip_y=0.0``,
``shuffle=False``, class weights the block shares, ``**kwargs`` passed on), rows sorted by
class so that block ``k``'s nodes get class ``k``'s samples. Without ``x`` the graphs state
``num_nodes`` (PyG infers it from ``y`` with a warning).

RULE: draws come from ``numpy.random.default_rng(seed)`` (the edges; and each graph's
``random_state`` for ``make_classification`` unless ``kwargs`` gives one), not from torch
as in PyG: the same seed gives the same graphs, never PyG's. The processed file's name
holds the seed, so another seed draws again (``seed=None``: the first draw is kept and
reused, as in PyG).

>>> import tempfile
>>> ds = StochasticBlockModelDataset(tempfile.mkdtemp(), [3, 2], [[1.0, 0.0], [0.0, 1.0]])
>>> ds[0].edge_index.tolist(), ds[0].y.tolist()
([[0, 0, 1, 1, 2, 2, 3, 4], [1, 2, 0, 2, 0, 1, 4, 3]], [0, 0, 0, 1, 1])
"""

from __future__ import annotations

import os
import os.path as osp
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.data import Data
from arraygnn.datasets.in_memory import InMemoryDataset

__all__ = ["RandomPartitionGraphDataset", "StochasticBlockModelDataset"]


class StochasticBlockModelDataset(InMemoryDataset):
    """Graphs drawn from a stochastic block model, as PyG's
    ``StochasticBlockModelDataset`` (2.8.1).

    Args:
        root: the folder for ``StochasticBlockModelDataset/processed/``.
        block_sizes: [K] block sizes (non-negative ints).
        edge_probs: [K, K] edge probabilities between blocks (symmetric when undirected).
        num_graphs: graphs to make (> 0); they share one ``edge_index``.
        num_channels: feature width, or ``None`` for no ``x`` (needs scikit-learn when
            given, as PyG).
        is_undirected: draw each unordered pair once and keep both directions.
        transform / pre_transform / force_reload: as ``InMemoryDataset``.
        seed: an int seed (or ``None``) for ``numpy.random.default_rng`` (keyword only).
        **kwargs: passed to ``sklearn.datasets.make_classification``.
    """

    def __init__(
        self,
        root: str | os.PathLike,
        block_sizes: Any,
        edge_probs: Any,
        num_graphs: int = 1,
        num_channels: int | None = None,
        is_undirected: bool = True,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        force_reload: bool = False,
        *,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        where = type(self).__name__
        if root is None:
            raise ValueError(f"{where}: root is required (the folder for the processed graphs)")
        sizes = np.asarray(block_sizes)
        if sizes.dtype.kind not in "iu" or sizes.ndim != 1:
            raise ValueError(
                f"{where}: block_sizes must be a [K] list of ints, got {block_sizes!r}"
            )
        probs = np.asarray(edge_probs, dtype=np.float64)
        if probs.shape != (sizes.shape[0], sizes.shape[0]):
            raise ValueError(
                f"{where}: edge_probs must be [K, K] = [{sizes.shape[0]}, {sizes.shape[0]}], "
                f"got shape {list(probs.shape)}"
            )
        num_graphs = _count(where, "num_graphs", num_graphs)
        if num_graphs < 1:
            raise ValueError(f"{where}: num_graphs must be > 0, got {num_graphs}")
        if num_channels is not None:
            num_channels = _count(where, "num_channels", num_channels)
        if seed is not None:
            seed = _count(where, "seed", seed)
        self.block_sizes = sizes.astype(np.int64)
        self.edge_probs = probs
        self.num_graphs = num_graphs
        self.num_channels = num_channels
        self.is_undirected = bool(is_undirected)
        self.seed = seed
        self.kwargs = {
            "n_informative": num_channels,
            "n_redundant": 0,
            "flip_y": 0.0,
            "shuffle": False,
        }
        self.kwargs.update(kwargs)
        super().__init__(root, transform, pre_transform, force_reload=force_reload)
        self.load(self.processed_paths[0])

    @property
    def processed_dir(self) -> str:
        return osp.join(self.root, type(self).__name__, "processed")

    @property
    def processed_file_names(self) -> str:
        sizes = "-".join(str(int(v)) for v in self.block_sizes)
        probs = "-".join(f"{v:.6g}" for v in self.edge_probs.reshape(-1))
        seed = "" if self.seed is None else f"_seed{self.seed}"
        return f"data_{self.num_channels}_{sizes}_{probs}_{self.num_graphs}{seed}.agnn"

    def process(self) -> None:
        from arraygnn.utils.random_graphs import stochastic_blockmodel_graph

        rng = np.random.default_rng(self.seed)
        edge_index = stochastic_blockmodel_graph(
            self.block_sizes, self.edge_probs, directed=not self.is_undirected, seed=rng
        )
        num_samples = int(self.block_sizes.sum())
        num_classes = int(self.block_sizes.shape[0])
        y = np.repeat(np.arange(num_classes, dtype=np.int64), self.block_sizes)
        data_list = []
        for _ in range(self.num_graphs):
            x = None
            if self.num_channels is not None:
                x = self._features(rng, num_samples, num_classes)
            data = Data(x=x, edge_index=edge_index, y=y)
            if x is None:  # the node count is stated (PyG infers it from y, warning)
                data.num_nodes = num_samples
            if self.pre_transform is not None:
                data = self.pre_transform(data)
            data_list.append(data)
        self.save(data_list, self.processed_paths[0])

    def _features(self, rng: np.random.Generator, num_samples: int, num_classes: int) -> Any:
        try:
            from sklearn.datasets import make_classification
        except ImportError:
            raise ImportError(
                f"{type(self).__name__}: num_channels draws features with scikit-learn's "
                "make_classification (as PyG); install scikit-learn or pass num_channels=None"
            ) from None
        kwargs = dict(self.kwargs)
        kwargs.setdefault("random_state", int(rng.integers(2**31 - 1)))
        x, y_not_sorted = make_classification(
            n_samples=num_samples,
            n_features=self.num_channels,
            n_classes=num_classes,
            weights=(self.block_sizes / num_samples).tolist(),
            **kwargs,
        )
        return x[np.argsort(y_not_sorted, kind="stable")].astype(np.float32)


class RandomPartitionGraphDataset(StochasticBlockModelDataset):
    """The random partition graphs of PyG's ``RandomPartitionGraphDataset``: ``num_classes``
    blocks of ``num_nodes_per_class`` nodes, edge probabilities set by the homophily ratio
    and the average degree (``p_in = ratio * d / n``, ``p_out = (d / n - p_in) / (C - 1)``).
    Other arguments as :class:`StochasticBlockModelDataset`."""

    def __init__(
        self,
        root: str | os.PathLike,
        num_classes: int,
        num_nodes_per_class: int,
        node_homophily_ratio: float,
        average_degree: float,
        num_graphs: int = 1,
        num_channels: int | None = None,
        is_undirected: bool = True,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        *,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        where = type(self).__name__
        num_classes = _count(where, "num_classes", num_classes)
        num_nodes_per_class = _count(where, "num_nodes_per_class", num_nodes_per_class)
        if num_classes < 2 or num_nodes_per_class < 1:
            raise ValueError(f"{where}: needs num_classes >= 2 and num_nodes_per_class >= 1")
        self._num_classes = num_classes
        self.num_nodes_per_class = num_nodes_per_class
        self.node_homophily_ratio = float(node_homophily_ratio)
        self.average_degree = float(average_degree)
        ec_over_v2 = self.average_degree / num_nodes_per_class
        p_in = self.node_homophily_ratio * ec_over_v2
        p_out = (ec_over_v2 - p_in) / (num_classes - 1)
        edge_probs = np.full((num_classes, num_classes), p_out)
        np.fill_diagonal(edge_probs, p_in)
        super().__init__(
            root,
            [num_nodes_per_class] * num_classes,
            edge_probs,
            num_graphs,
            num_channels,
            is_undirected,
            transform,
            pre_transform,
            seed=seed,
            **kwargs,
        )

    @property
    def processed_file_names(self) -> str:
        seed = "" if self.seed is None else f"_seed{self.seed}"
        return (
            f"data_{self.num_channels}_{self._num_classes}_{self.num_nodes_per_class}_"
            f"{self.node_homophily_ratio:.6g}_{self.average_degree:.6g}_{self.num_graphs}"
            f"{seed}.agnn"
        )


def _count(where: str, name: str, value: Any) -> int:
    """A non-negative int (``powerlaw_graph``'s check), the message led by ``where``."""
    from arraygnn.datasets.synthetic import _count as count

    return count(value, f"{where}: {name}")
