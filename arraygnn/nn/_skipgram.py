"""Shared pieces of PyG's random-walk embedding models (``Node2Vec``, ``MetaPath2Vec``):
context windows of walks, the skip-gram loss, the batch loader and the logistic-regression
``test``, and ``SkipGramMethods`` (their ``sample``, ``loader``, ``loss`` and ``test``).
Private: the models expose them as methods.

>>> import numpy as np
>>> context_windows(np.array([[0, 1, 2, 3]]), 2).tolist()
[[0, 1], [1, 2], [2, 3]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.nn.linear import _sigmoid

__all__ = [
    "context_windows",
    "skipgram_loss",
    "WalkLoader",
    "logistic_regression_test",
    "SkipGramMethods",
]

EPS = 1e-15


def context_windows(rw: Any, context_size: int) -> Any:
    """Every run of ``context_size`` consecutive columns of the walks ``rw``, stacked
    window-major (PyG's order: all walks' first window, then all walks' second, ...)."""
    xp = get_namespace(rw)
    count = int(rw.shape[1]) + 1 - context_size
    return xp.concatenate([rw[:, j : j + context_size] for j in range(count)], axis=0)


def fill_dead_ends(traces: np.ndarray, fill: int | None) -> np.ndarray:
    """``-1`` after a walk stops becomes ``fill``, or (``fill=None``) the last node reached
    (pyg-lib's walk stays at a node without out-edges)."""
    stopped = traces < 0
    if not stopped.any():
        return traces
    if fill is not None:
        return np.where(stopped, fill, traces)
    last = (~stopped).sum(axis=1) - 1
    cols = np.minimum(np.arange(traces.shape[1])[None, :], last[:, None])
    return np.take_along_axis(traces, cols, axis=1)


def skipgram_loss(weight: Any, pos_rw: Any, neg_rw: Any, where: str) -> Any:
    """``-mean log(sigmoid(s) + EPS) - mean log(1 - sigmoid(s') + EPS)`` with ``s`` the dot
    products of each positive walk's first node with the rest (``s'`` for the negative
    walks): PyG's ``loss``."""
    from arraygnn.ops._common import check_index

    xp = get_namespace(weight)
    parts = []
    for name, rw, sign in (("pos_rw", pos_rw, 1), ("neg_rw", neg_rw, 0)):
        check_index(f"{where}: {name}", rw, int(weight.shape[0]), ndim=2)
        start = weight[rw[:, 0]][:, None, :]
        rest = weight[rw[:, 1:]]
        out = _sigmoid((start * rest).sum(axis=-1).reshape(-1))
        p = out if sign else 1 - out
        parts.append(-xp.log(p + weight.dtype.type(EPS)).mean())
    return parts[0] + parts[1]


class WalkLoader:
    """Batches of start nodes ``0 .. num_nodes - 1`` turned into ``(pos_rw, neg_rw)`` by
    ``sample(batch, seed)``: PyG's ``loader(**kwargs)`` over ``range(num_nodes)`` with
    ``batch_size``, ``shuffle``, ``drop_last``; ``seed`` fixes the order and the walks of
    every epoch (an epoch is one ``iter``; the same seed gives the same epochs)."""

    def __init__(
        self,
        num_nodes: int,
        sample: Callable[[np.ndarray, Any], tuple[Any, Any]],
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
        where: str = "loader",
    ) -> None:
        from arraygnn.nn._module import layer_size

        self.num_nodes = num_nodes
        self.sample = sample
        self.batch_size = layer_size(where, "batch_size", batch_size, minimum=1)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        try:  # default_rng's seeds (ints, sequences, SeedSequence, Generator, None)
            self._rng = np.random.default_rng(seed)
        except (TypeError, ValueError) as err:
            raise type(err)(
                f"{where}: seed must be a non-negative int, a numpy Generator or None, got {seed!r}"
            ) from err

    def __len__(self) -> int:
        full, rest = divmod(self.num_nodes, self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        order = np.arange(self.num_nodes, dtype=np.int64)
        if self.shuffle:
            order = self._rng.permutation(order)
        epoch_seed = int(self._rng.integers(2**63))
        for i in range(len(self)):
            batch = order[i * self.batch_size : (i + 1) * self.batch_size]
            yield self.sample(batch, np.random.default_rng([epoch_seed, i]))


def logistic_regression_test(
    train_z: Any,
    train_y: Any,
    test_z: Any,
    test_y: Any,
    solver: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    where: str,
) -> float:
    """PyG's ``test``: the accuracy of scikit-learn's ``LogisticRegression`` fitted on
    ``(train_z, train_y)``, scored on ``(test_z, test_y)``."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as err:
        raise ImportError(f"{where}.test needs scikit-learn (pip install scikit-learn)") from err
    clf = LogisticRegression(*args, solver=solver, **kwargs)
    clf.fit(to_numpy(train_z), to_numpy(train_y))
    return float(clf.score(to_numpy(test_z), to_numpy(test_y)))


def seeded(seed: Any, where: str | None = None) -> np.random.Generator:
    """A NumPy ``Generator`` from a non-negative int, a ``Generator`` (used as is) or
    ``None``; errors name ``where`` (the model's method)."""
    if isinstance(seed, np.random.Generator):
        return seed
    prefix = f"{where}: " if where else ""
    if seed is not None and (
        isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
    ):
        raise TypeError(f"{prefix}seed must be an int, a numpy Generator or None, got {seed!r}")
    if seed is not None and seed < 0:
        raise ValueError(f"{prefix}seed must be non-negative, got {seed}")
    return np.random.default_rng(seed)


class SkipGramMethods:
    """PyG's ``sample``, ``loader``, ``loss`` and ``test`` of a random-walk embedding model.
    A subclass sets ``_where`` (its name, for messages), ``embedding`` and
    ``_loader_nodes`` (how many start nodes ``loader`` batches), and defines
    ``pos_sample`` / ``neg_sample``."""

    _where = "SkipGram"
    embedding: Any

    def _loader_nodes(self) -> int:  # pragma: no cover - every model defines it
        raise NotImplementedError

    def pos_sample(self, batch: Any, seed: Any = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def neg_sample(self, batch: Any, seed: Any = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def sample(self, batch: Any, seed: Any = None) -> tuple[Any, Any]:
        """``(pos_sample(batch), neg_sample(batch))``, both drawn from ``seed``."""
        gen = seeded(seed, f"{self._where}.sample")
        return self.pos_sample(batch, gen), self.neg_sample(batch, gen)

    def loader(
        self,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
    ) -> WalkLoader:
        """``sample`` over all start nodes in batches (PyG's ``loader``)."""
        return WalkLoader(
            self._loader_nodes(),
            self.sample,
            batch_size,
            shuffle,
            drop_last,
            seed,
            f"{self._where}.loader",
        )

    def loss(self, pos_rw: Any, neg_rw: Any) -> Any:
        """PyG's skip-gram loss of positive and negative walks (a 0-d array)."""
        return skipgram_loss(self.embedding.weight, pos_rw, neg_rw, f"{self._where}.loss")

    def test(
        self,
        train_z: Any,
        train_y: Any,
        test_z: Any,
        test_y: Any,
        solver: str = "lbfgs",
        *args: Any,
        **kwargs: Any,
    ) -> float:
        """Logistic-regression accuracy of the embeddings (scikit-learn)."""
        return logistic_regression_test(
            train_z, train_y, test_z, test_y, solver, args, kwargs, self._where
        )
