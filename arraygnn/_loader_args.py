"""torch ``DataLoader`` keywords for the PyG face's loaders (``DataLoader``, ``NodeLoader``,
``LinkLoader``, ``NeighborLoader``, ``LinkNeighborLoader``): checked as torch checks them,
honoured where they change what is produced, accepted where they only change how.

PyG's loaders are torch DataLoaders and take its keywords. Those that change only HOW
batches are made (worker processes, pinned memory, ...) are accepted and checked with
torch's rules; ``DataLoader`` maps ``num_workers > 0`` onto its prefetch thread, the
other loaders make every batch on demand in the calling thread (no effect). Those that
change WHAT is made are honoured: ``generator`` (:func:`epoch_rng`), ``sampler`` /
``batch_sampler`` (:func:`epoch_batches`). docs/collation.md, "torch DataLoader keywords".

>>> chunks = epoch_batches("demo", 5, 2, False, False, epoch_rng("demo", 0, None))
>>> [c.tolist() for c in chunks]
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

__all__ = [
    "TORCH_HOW_DEFAULTS",
    "apply_torch_args",
    "TorchOrder",
    "check_directed",
    "check_samplers",
    "epoch_batches",
    "epoch_iter",
    "epoch_rng",
    "num_batches",
    "torch_loader_args",
]


def _check_int(where: str, name: str, value: Any, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{where}: {name} must be >= {minimum}, got {value}")
    return int(value)


TORCH_HOW_DEFAULTS: dict[str, Any] = {
    "num_workers": 0,
    "pin_memory": False,
    "persistent_workers": False,
    "prefetch_factor": None,
    "worker_init_fn": None,
    "timeout": 0,
    "multiprocessing_context": None,
    "pin_memory_device": "",
    "in_order": True,
    "filter_per_worker": None,
}
_TORCH_WHAT = ("generator", "sampler", "batch_sampler")
_TORCH_DROPPED = ("dataset", "collate_fn")  # PyG's loaders drop them (PyTorch Lightning)


def torch_loader_args(where: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop torch ``DataLoader`` keywords from ``kwargs`` (the caller's own ``**kwargs``
    dict) and check them as torch does; a keyword left over is a ``TypeError``. Returns
    the HOW keywords (defaults filled in) plus ``generator`` / ``sampler`` /
    ``batch_sampler`` (``None`` when not given)."""
    out = {name: kwargs.pop(name, default) for name, default in TORCH_HOW_DEFAULTS.items()}
    out.update({name: kwargs.pop(name, None) for name in _TORCH_WHAT})
    for name in _TORCH_DROPPED:
        kwargs.pop(name, None)
    if kwargs:
        raise TypeError(f"{where}: unexpected keyword argument(s) {sorted(kwargs)}")
    workers = _check_int(where, "num_workers", out["num_workers"], 0)
    out["num_workers"] = workers
    factor = out["prefetch_factor"]
    if factor is not None:
        out["prefetch_factor"] = _check_int(where, "prefetch_factor", factor, 0)
    timeout = out["timeout"]
    if isinstance(timeout, (bool, np.bool_)) or not isinstance(timeout, (int, float, np.number)):
        raise TypeError(f"{where}: timeout must be a number, got {timeout!r}")
    if timeout < 0:
        raise ValueError(f"{where}: timeout must be >= 0, got {timeout}")
    if out["worker_init_fn"] is not None and not callable(out["worker_init_fn"]):
        raise TypeError(f"{where}: worker_init_fn must be callable, got {out['worker_init_fn']!r}")
    if workers == 0:  # torch's rules: these only go with worker processes
        for name in ("prefetch_factor", "multiprocessing_context"):
            if out[name] is not None:
                raise ValueError(f"{where}: {name} needs num_workers > 0 (torch's rule)")
        if out["persistent_workers"]:
            raise ValueError(f"{where}: persistent_workers needs num_workers > 0 (torch's rule)")
    for name in ("sampler", "batch_sampler"):
        value = out[name]
        if value is not None and not isinstance(value, Iterable):
            raise TypeError(f"{where}: {name} must be iterable, got {value!r}")
    return out


def check_directed(where: str, directed: Any) -> None:
    """PyG's deprecated ``directed``: ``True`` is the default; ``False`` means
    ``subgraph_type='induced'`` (PyG 2.8's ``NeighborSampler``; the caller sets it) and
    warns as PyG does."""
    if not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"{where}: directed must be a bool, got {directed!r}")
    if not directed:
        import warnings

        warnings.warn(
            f"The usage of the 'directed' argument in '{where}' is deprecated. Use "
            "`subgraph_type='induced'` instead.",
            stacklevel=4,
        )


class TorchOrder(np.random.Generator):
    """The epoch order of a ``torch.Generator`` given as ``generator=``: ``permutation(n)``
    draws exactly what torch's ``DataLoader`` + ``RandomSampler`` draw per epoch (so
    shuffled epochs match PyG's loaders with the same generator); every other draw (the
    loaders' sampling and negative streams' seeds) comes from a NumPy stream seeded with the
    generator's ``initial_seed()``.

    ``RandomSampler`` draws a second (empty-tail) permutation when its iterator runs out,
    which an epoch broken off early never reaches: :func:`epoch_iter` draws it when torch's
    loop (``num_workers=0``) would. Copies and pickles stay a ``TorchOrder``."""

    def __init__(self, generator: Any) -> None:
        super().__init__(np.random.PCG64(int(generator.initial_seed())))
        self.torch_generator = generator
        self._pending: tuple[int, int] | None = None  # (n, batch drawing the tail): epoch_iter

    def __reduce__(self) -> tuple[Any, ...]:
        # numpy's Generator pickles (and deep-copies) as a plain Generator: keep the class
        return (_torch_order, (self.torch_generator, self.bit_generator.state))

    def new_epoch(self) -> None:
        """torch's ``DataLoader`` iterator draws its workers' base seed first, each epoch."""
        import torch

        self._pending = None
        torch.empty((), dtype=torch.int64).random_(generator=self.torch_generator)

    def permutation(self, x: Any, axis: int = 0) -> Any:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            return super().permutation(x, axis=axis)
        import torch

        order = torch.randperm(int(x), generator=self.torch_generator).numpy()
        self._pending = (int(x), -1)  # RandomSampler's [:0] tail: epoch_batches, epoch_iter
        return order.astype(np.int64)

    def draw_tail(self, n: int) -> None:
        """The second ``randperm(n)`` of torch's ``RandomSampler`` (its empty tail)."""
        import torch

        torch.randperm(n, generator=self.torch_generator)


def _torch_order(generator: Any, state: dict) -> TorchOrder:
    out = TorchOrder(generator)
    out.bit_generator.state = state
    return out


def epoch_iter(rng: Any, items: Iterable[Any]) -> Iterator[Any]:
    """Iterate one epoch's batches (``items``: one per chunk of the last
    :func:`epoch_batches` call with ``rng``), drawing a :class:`TorchOrder`'s permutation
    tail when torch's ``BatchSampler`` runs its ``RandomSampler`` out: while making the
    last batch when it is partial (no ``drop_last``), else when the batch after the last
    is asked for. Other streams: ``iter(items)``."""
    pending = rng._pending if isinstance(rng, TorchOrder) else None
    if pending is None:
        return iter(items)
    rng._pending = None
    return _with_tail(rng, items, *pending)


def _with_tail(rng: TorchOrder, items: Iterable[Any], n: int, at: int) -> Iterator[Any]:
    i = -1
    try:
        for i, item in enumerate(items):
            if i == at:
                rng.draw_tail(n)
            yield item
        if at > i:  # the batch after the last was asked for
            rng.draw_tail(n)
    finally:  # an epoch broken off: stop a prefetching generator (its thread) now
        close = getattr(items, "close", None)
        if close is not None:
            close()


def epoch_rng(where: str, seed: Any, generator: Any) -> np.random.Generator:
    """The loaders' epoch stream: ``default_rng(seed)``, or torch's ``generator=``: a
    ``numpy.random.Generator`` (used as it is) or a ``torch.Generator``
    (:class:`TorchOrder`); ``seed`` and ``generator`` are not given together."""
    if generator is None:
        return np.random.default_rng(seed)
    if seed is not None:
        raise ValueError(f"{where}: give seed or generator, not both")
    if isinstance(generator, np.random.Generator):
        return generator
    if type(generator).__module__.startswith("torch") and hasattr(generator, "initial_seed"):
        return TorchOrder(generator)
    raise TypeError(
        f"{where}: generator must be a torch.Generator or a numpy.random.Generator, got "
        f"{type(generator).__name__}"
    )


def apply_torch_args(
    loader: Any,
    where: str,
    kwargs: dict[str, Any],
    seed: Any,
    batch_size: int,
    shuffle: bool,
    drop_last: bool,
    skip: tuple[str, ...] = (),
) -> np.random.Generator:
    """The torch ``DataLoader`` keywords of ``kwargs`` (:func:`torch_loader_args`) checked
    with torch's sampler exclusions (:func:`check_samplers`) and kept as ``loader``'s
    attributes (the HOW keywords but ``skip``, ``sampler``, ``batch_sampler``,
    ``generator``); returns the loader's epoch stream (:func:`epoch_rng`)."""
    opts = torch_loader_args(where, kwargs)
    check_samplers(where, opts["sampler"], opts["batch_sampler"], batch_size, shuffle, drop_last)
    for name in TORCH_HOW_DEFAULTS:
        if name not in skip:
            setattr(loader, name, opts[name])
    loader.sampler, loader.batch_sampler = opts["sampler"], opts["batch_sampler"]
    loader.generator = opts["generator"]
    return epoch_rng(where, seed, opts["generator"])


def check_samplers(
    where: str, sampler: Any, batch_sampler: Any, batch_size: int, shuffle: bool, drop_last: bool
) -> None:
    """torch's rules for ``sampler`` / ``batch_sampler``."""
    if sampler is not None and shuffle:
        raise ValueError(f"{where}: sampler is mutually exclusive with shuffle")
    if batch_sampler is not None and (
        batch_size != 1 or shuffle or sampler is not None or drop_last
    ):
        raise ValueError(
            f"{where}: batch_sampler is mutually exclusive with batch_size, shuffle, "
            "sampler and drop_last"
        )


def num_batches(
    count: int, batch_size: int, drop_last: bool, sampler: Any = None, batch_sampler: Any = None
) -> int:
    """Batches per epoch (``len(sampler)`` / ``len(batch_sampler)`` when given)."""
    if batch_sampler is not None:
        return len(batch_sampler)
    n = count if sampler is None else len(sampler)
    return n // batch_size if drop_last else -(-n // batch_size)


def epoch_batches(
    where: str,
    count: int,
    batch_size: int,
    shuffle: bool,
    drop_last: bool,
    rng: Any,
    sampler: Any = None,
    batch_sampler: Any = None,
) -> list[np.ndarray]:
    """One epoch's batches of positions in ``[0, count)`` (int64), drawn now: torch's
    ``DataLoader`` over ``range(count)``: a ``batch_sampler``'s lists, a ``sampler``'s
    positions or ``range`` / a permutation, cut into ``batch_size`` pieces."""
    if isinstance(rng, TorchOrder):
        rng.new_epoch()
    if batch_sampler is not None:
        chunks = [np.asarray(list(b), dtype=np.int64).reshape(-1) for b in batch_sampler]
    else:
        if sampler is not None:
            order = np.asarray(list(sampler), dtype=np.int64).reshape(-1)
        else:
            order = rng.permutation(count) if shuffle else np.arange(count, dtype=np.int64)
        n = int(order.shape[0])
        stop = (n // batch_size) * batch_size if drop_last else n
        chunks = [order[i : i + batch_size] for i in range(0, stop, batch_size)]
        if isinstance(rng, TorchOrder) and rng._pending is not None:  # see epoch_iter
            partial = not drop_last and n % batch_size != 0  # torch: drawn making it
            rng._pending = (n, len(chunks) - 1 if partial else len(chunks))
    if sampler is not None or batch_sampler is not None:
        for chunk in chunks:
            if chunk.shape[0] and (int(chunk.min()) < 0 or int(chunk.max()) >= count):
                bad = int(chunk.min()) if int(chunk.min()) < 0 else int(chunk.max())
                what = "batch_sampler" if batch_sampler is not None else "sampler"
                raise ValueError(f"{where}: the {what} gave position {bad}, outside [0, {count})")
    return chunks
