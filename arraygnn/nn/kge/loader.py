"""PyG's ``KGTripletLoader`` (``torch_geometric.nn.kge.loader``): mini-batches of
knowledge-graph triples, ``(head_index, rel_type, tail_index)`` per batch, as
``KGEModel.loader`` returns them.

RULE: the epoch order is torch ``DataLoader``'s over ``range(num_triples)``: in order, or a
permutation from ``seed`` (an int, a NumPy ``Generator`` or ``None``) with ``shuffle=True``;
torch's ``generator=`` (a ``torch.Generator``) gives PyG's own order, batch for batch.
RULE: the batches are new arrays on the triples' device, in their dtype; the triples passed
in are not modified.

>>> import numpy as np
>>> h, r, t = np.array([0, 1, 2]), np.array([0, 0, 1]), np.array([2, 0, 1])
>>> [tuple(a.tolist() for a in b) for b in KGTripletLoader(h, r, t, batch_size=2)]
[([0, 1], [0, 0], [2, 0]), ([2], [1], [1])]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from arraygnn._loader_args import apply_torch_args, epoch_batches, epoch_iter, num_batches
from arraygnn._namespace import get_namespace, is_array

__all__ = ["KGTripletLoader"]

_WHERE = "KGTripletLoader"


def check_triples(where: str, head_index: Any, rel_type: Any, tail_index: Any) -> Any:
    """The three 1-D integer arrays of one length on one device; returns their namespace."""
    names = ("head_index", "rel_type", "tail_index")
    for name, value in zip(names, (head_index, rel_type, tail_index)):
        if not is_array(value) or value.dtype.kind not in "iu":
            what = getattr(value, "dtype", type(value).__name__)
            raise TypeError(f"{where}: {name} must be an integer NumPy or CuPy array, got {what}")
        if value.ndim != 1:
            raise ValueError(f"{where}: {name} must be one-dimensional, got {value.shape}")
    lengths = [int(v.shape[0]) for v in (head_index, rel_type, tail_index)]
    if len(set(lengths)) != 1:
        raise ValueError(
            f"{where}: head_index, rel_type and tail_index must have the same length, got {lengths}"
        )
    try:
        return get_namespace(head_index, rel_type, tail_index)
    except TypeError:
        raise TypeError(f"{where}: the triples mix NumPy and CuPy arrays") from None


class KGTripletLoader:
    """PyG's ``KGTripletLoader(head_index, rel_type, tail_index, **kwargs)``: batches of
    ``batch_size`` triples, each a tuple ``(head_index, rel_type, tail_index)``.

    Args:
        head_index, rel_type, tail_index: ``[T]`` integer arrays (one triple per entry).
        batch_size / shuffle / drop_last: as torch's ``DataLoader``.
        seed: the shuffled epochs' random numbers (module notes).
        **kwargs: torch ``DataLoader`` keywords (``generator``, ``sampler``,
            ``batch_sampler``, ``num_workers``, ...), checked as torch checks them.

    ``len(loader)`` is the number of batches per epoch.
    """

    def __init__(
        self,
        head_index: Any,
        rel_type: Any,
        tail_index: Any,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
        **kwargs: Any,
    ) -> None:
        from arraygnn.nn._module import layer_size

        self._xp = check_triples(_WHERE, head_index, rel_type, tail_index)
        self.batch_size = layer_size(_WHERE, "batch_size", batch_size, minimum=1)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self._rng = apply_torch_args(
            self, _WHERE, kwargs, seed, self.batch_size, self.shuffle, self.drop_last
        )
        self.head_index, self.rel_type, self.tail_index = head_index, rel_type, tail_index

    def __len__(self) -> int:
        count = int(self.head_index.shape[0])
        return num_batches(count, self.batch_size, self.drop_last, self.sampler, self.batch_sampler)

    def sample(self, index: Any) -> tuple[Any, Any, Any]:
        """The triples at positions ``index`` (PyG's ``collate_fn``)."""
        index = self._xp.asarray(np.asarray(index, dtype=np.int64))
        return self.head_index[index], self.rel_type[index], self.tail_index[index]

    def __iter__(self) -> Iterator[tuple[Any, Any, Any]]:
        chunks = epoch_batches(
            _WHERE, int(self.head_index.shape[0]), self.batch_size, self.shuffle,
            self.drop_last, self._rng, self.sampler, self.batch_sampler,
        )  # fmt: skip
        return epoch_iter(self._rng, (self.sample(c) for c in chunks))

    def __repr__(self) -> str:
        return (
            f"{_WHERE}(num_triples={int(self.head_index.shape[0])}, batch_size={self.batch_size})"
        )
