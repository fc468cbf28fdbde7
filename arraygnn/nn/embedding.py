"""``torch.nn.Embedding`` and ``torch.nn.EmbeddingBag`` at inference: table lookups.

What ``from_torch`` makes of torch's embedding tables (featureless node types of a
heterogeneous model, the tables of Node2Vec-style models); the weight is named ``weight``
``(num_embeddings, embedding_dim)`` as torch's, so ``module.state_dict()`` loads by name.

RULE: ``max_norm`` is refused. torch renormalises the looked-up rows of its weight *in
place* on every forward call, so its numbers depend on what was looked up before; an
inference layer that silently skipped (or repeated) that would compute other numbers.
``padding_idx``, ``scale_grad_by_freq`` and ``sparse`` only change training; the lookup
itself ignores them (``EmbeddingBag`` leaves ``padding_idx`` entries out of each bag, as
torch's does).

>>> import numpy as np
>>> emb = Embedding(5, 3, rng=0)
>>> emb(np.array([[0, 4], [1, 1]])).shape
(2, 2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, is_cupy_array, torch_hint
from arraygnn.nn._module import Module, layer_size

__all__ = ["Embedding", "EmbeddingBag"]

_BAG_MODES = ("sum", "mean", "max")


def _check_max_norm(layer: str, max_norm: Any) -> None:
    if max_norm is not None:
        raise ValueError(
            f"{layer}: max_norm={max_norm!r} is not supported: torch renormalises the rows it "
            "looks up in place on every call, so its outputs depend on earlier calls; build "
            "the torch module with max_norm=None (or renormalise its weight once yourself)"
        )


def _padding_idx(layer: str, padding_idx: Any, num_embeddings: int) -> int | None:
    """torch's rule: in ``[-num_embeddings, num_embeddings)``, a negative one counted from
    the end."""
    if padding_idx is None:
        return None
    if isinstance(padding_idx, (bool, np.bool_)) or not isinstance(padding_idx, (int, np.integer)):
        raise TypeError(f"{layer}: padding_idx must be an int or None, got {padding_idx!r}")
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(
            f"{layer}: padding_idx must be in [{-num_embeddings}, {num_embeddings}), got "
            f"{padding_idx}"
        )
    return int(padding_idx) % num_embeddings


def _check_ids(layer: str, name: str, ids: Any, weight: Any) -> None:
    """Integer ids on the table's device, each in ``[0, num_embeddings)``."""
    if not is_array(ids):
        raise TypeError(
            f"{layer}: {name} must be a NumPy or CuPy integer array, got "
            f"{type(ids).__name__}{torch_hint(ids)}"
        )
    if ids.dtype.kind not in "iu" or ids.dtype == np.bool_:
        raise TypeError(f"{layer}: {name} must hold integers (int32 / int64), got {ids.dtype}")
    if is_cupy_array(ids) != is_cupy_array(weight):
        raise TypeError(
            f"{layer}: {name} and the table are on different devices; move the layer "
            "(layer.to(...)) or the ids"
        )
    n = int(weight.shape[0])
    if ids.size:
        lo, hi = int(ids.min()), int(ids.max())
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"{layer}: {name} holds id {bad}, outside [0, {n}) (num_embeddings={n})"
            )


class _Table(Module):
    _param_names = ("weight",)

    def _init_table(
        self,
        layer: str,
        num_embeddings: Any,
        embedding_dim: Any,
        padding_idx: Any,
        max_norm: Any,
        dtype: Any,
        rng: Any,
    ) -> None:
        from arraygnn.nn.linear import _rng

        self.num_embeddings = layer_size(layer, "num_embeddings", num_embeddings)
        self.embedding_dim = layer_size(layer, "embedding_dim", embedding_dim)
        _check_max_norm(layer, max_norm)
        self.max_norm = None
        self.padding_idx = _padding_idx(layer, padding_idx, self.num_embeddings)
        weight = _rng(rng).standard_normal((self.num_embeddings, self.embedding_dim))
        if self.padding_idx is not None:
            weight[self.padding_idx] = 0.0  # torch's initial padding row
        self.weight = weight.astype(dtype)


class Embedding(_Table):
    """``torch.nn.Embedding`` at inference: ``input`` (integer ids, any shape) ->
    ``weight[input]``, shape ``input.shape + (embedding_dim,)``.

    Args:
        num_embeddings: the number of rows of the table.
        embedding_dim: the size of each row.
        padding_idx: torch's; its row starts as zeros (it matters to training only).
        max_norm: must be ``None`` (see the module's RULE).
        norm_type, scale_grad_by_freq, sparse: torch's, accepted and unused (training).

    Initial rows are standard normal (torch's). An id outside ``[0, num_embeddings)``, a
    non-integer array or a torch tensor is an error naming ``input``.

    Shapes:
        - input: ``(*)`` int32 / int64
        - output: ``(*, embedding_dim)``

    Names (torch): ``weight`` ``(num_embeddings, embedding_dim)``.
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self._init_table(
            "Embedding", num_embeddings, embedding_dim, padding_idx, max_norm, dtype, rng
        )

    def __call__(self, input: Any) -> Any:
        _check_ids("Embedding", "input", input, self.weight)
        xp = get_namespace(self.weight)
        rows = xp.take(self.weight, input.reshape(-1), axis=0)
        return rows.reshape(tuple(input.shape) + (self.embedding_dim,))

    def extra_repr(self) -> str:
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


class EmbeddingBag(_Table):
    """``torch.nn.EmbeddingBag`` at inference: each bag of ids reduced to one row with
    ``mode`` ``'sum'``, ``'mean'`` (default) or ``'max'``.

    Call as ``bag(input)`` with a 2-D ``input`` ``(B, N)`` (each row a bag of ``N`` ids),
    or ``bag(input, offsets)`` with a 1-D ``input`` and ``offsets`` the start of each bag
    (``offsets[0] == 0``, non-decreasing; with ``include_last_offset=True`` the last entry
    closes the last bag; ``mode='sum'`` without ``padding_idx`` leaves ids past it out, as
    torch's, otherwise it must equal ``len(input)``, torch's CSR contract: torch's bags
    are inconsistent there, arraygnn raises). An empty bag gives zeros, as torch's; ids
    equal to ``padding_idx`` are left out of their bag (so they count for neither the
    sum nor the mean). ``per_sample_weights`` (``input``'s shape, the table's dtype) scales
    each looked-up row before the sum; as torch's, only with ``mode='sum'``.

    Shapes:
        - input: ``(B, N)``, or ``(E,)`` with offsets ``(B,)`` (``(B + 1,)`` with
          ``include_last_offset``)
        - output: ``(B, embedding_dim)``

    Names (torch): ``weight`` ``(num_embeddings, embedding_dim)``.

    >>> import numpy as np
    >>> bag = EmbeddingBag(5, 2, mode="sum", rng=0)
    >>> bag(np.array([0, 1, 4]), np.array([0, 2])).shape
    (2, 2)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if mode not in _BAG_MODES:
            raise ValueError(f"EmbeddingBag: mode must be one of {_BAG_MODES}, got {mode!r}")
        self.mode = mode
        self.include_last_offset = bool(include_last_offset)
        self._init_table(
            "EmbeddingBag", num_embeddings, embedding_dim, padding_idx, max_norm, dtype, rng
        )

    def __call__(self, input: Any, offsets: Any = None, per_sample_weights: Any = None) -> Any:
        from arraygnn.ops import segment

        layer = "EmbeddingBag"
        _check_ids(layer, "input", input, self.weight)
        if per_sample_weights is not None:
            self._check_weights(layer, per_sample_weights, input)
        xp = get_namespace(self.weight)
        if input.ndim == 2:
            if offsets is not None:
                raise ValueError(f"{layer}: offsets must be None for a 2-D input (one bag a row)")
            bags, width = int(input.shape[0]), int(input.shape[1])
            ptr = xp.arange(bags + 1, dtype=np.int64) * width
        elif input.ndim == 1:
            if offsets is None:
                raise ValueError(f"{layer}: a 1-D input needs offsets (the start of each bag)")
            ptr = self._ptr(layer, offsets, int(input.shape[0]), xp)
        else:
            raise ValueError(f"{layer}: input must be 1-D or 2-D, got shape {input.shape}")
        ids = input.reshape(-1)
        scale = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        if self.padding_idx is not None:  # left out of their bags: shift each bag's end
            keep = ids != self.padding_idx
            kept = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(keep, dtype=np.int64)])
            ptr, ids = kept[ptr], ids[keep]
            scale = None if scale is None else scale[keep]
        rows = xp.take(self.weight, ids, axis=0)
        if scale is not None:
            rows = rows * scale[:, None]
        return segment(rows, ptr, reduce=self.mode)

    def _check_weights(self, layer: str, weights: Any, input: Any) -> None:
        """torch's rules for ``per_sample_weights``: ``mode='sum'`` only, ``input``'s shape,
        the table's dtype."""
        if self.mode != "sum":
            raise ValueError(
                f"{layer}: per_sample_weights is only supported for mode='sum' (torch's), "
                f"got mode={self.mode!r}"
            )
        if not is_array(weights):
            raise TypeError(
                f"{layer}: per_sample_weights must be a NumPy or CuPy array, got "
                f"{type(weights).__name__}{torch_hint(weights)}"
            )
        if is_cupy_array(weights) != is_cupy_array(self.weight):
            raise TypeError(f"{layer}: per_sample_weights and the table are on different devices")
        if tuple(weights.shape) != tuple(input.shape):
            raise ValueError(
                f"{layer}: per_sample_weights must have input's shape {tuple(input.shape)}, "
                f"got {tuple(weights.shape)}"
            )
        if weights.dtype != self.weight.dtype:
            raise TypeError(
                f"{layer}: per_sample_weights must have the table's dtype {self.weight.dtype}, "
                f"got {weights.dtype}"
            )

    def _ptr(self, layer: str, offsets: Any, size: int, xp: Any) -> Any:
        if not is_array(offsets) or offsets.ndim != 1 or offsets.dtype.kind not in "iu":
            raise TypeError(f"{layer}: offsets must be a 1-D integer array{torch_hint(offsets)}")
        if is_cupy_array(offsets) != is_cupy_array(self.weight):
            raise TypeError(f"{layer}: offsets and the table are on different devices")
        if offsets.shape[0] == 0:
            raise ValueError(f"{layer}: offsets must not be empty")
        offsets = offsets.astype(np.int64)
        if int(offsets[0]) != 0:
            raise ValueError(f"{layer}: offsets[0] must be 0, got {int(offsets[0])}")
        if offsets.shape[0] > 1 and bool((xp.diff(offsets) < 0).any()):
            raise ValueError(f"{layer}: offsets must be non-decreasing")
        if int(offsets[-1]) > size:
            raise ValueError(
                f"{layer}: offsets[-1] = {int(offsets[-1])} is past the end of input ({size})"
            )
        if self.include_last_offset:
            # torch's plain sum takes the bags [offsets[i], offsets[i + 1]) (the tail left
            # out); its mean / max, and its sum with a padding_idx, disagree with that
            plain_sum = self.mode == "sum" and self.padding_idx is None
            if not plain_sum and int(offsets[-1]) != size:
                raise ValueError(
                    f"{layer}: with include_last_offset=True, offsets[-1] must equal the "
                    f"length of input ({size}), got {int(offsets[-1])} (only mode='sum' "
                    "without padding_idx leaves the ids past it out, as torch's)"
                )
            return offsets
        return xp.concatenate([offsets, xp.full(1, size, np.int64)])

    def extra_repr(self) -> str:
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}, mode={self.mode!r}{pad}"
