"""``Ragged``: variable-length rows as one ``values`` array plus ``row_splits``.

Row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``. ``values`` may itself be a
``Ragged`` (two ragged dimensions, as a ragged feature of a batched GraphTensor has).

RULE: ``row_splits`` is a 1-D integer array, starts at 0, never decreases, and ends at
      ``len(values)``; checked at construction.
RULE: a Ragged is immutable; it never copies ``values`` or ``row_splits``.

>>> import numpy as np
>>> r = Ragged.from_list([["Anisotropic", "approximation"], ["Better"]])
>>> r.nrows, r.row_lengths().tolist(), r[1].tolist()
(2, [2, 1], ['Better'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy

__all__ = ["Ragged", "is_ragged"]


def is_ragged(x: Any) -> bool:
    """True for a :class:`Ragged`."""
    return isinstance(x, Ragged)


class Ragged:
    """Rows of varying length: ``Ragged(values, row_splits)``.

    ``values`` is a NumPy / CuPy array ``[total, ...]`` (or a ``Ragged``) and ``row_splits``
    an integer array ``[nrows + 1]`` on the same device.
    """

    __slots__ = ("_values", "_row_splits")

    def __init__(self, values: Any, row_splits: Any, *, validate: bool = True) -> None:
        if not (is_array(values) or isinstance(values, Ragged)):
            raise TypeError(
                f"Ragged values must be a NumPy/CuPy array or a Ragged, got {type(values).__name__}"
            )
        if not is_array(row_splits):
            raise TypeError(f"Ragged row_splits must be an array, got {type(row_splits).__name__}")
        inner = values.row_splits if isinstance(values, Ragged) else values
        get_namespace(inner, row_splits)  # TypeError when NumPy and CuPy are mixed
        if validate:
            _check_row_splits(row_splits, len(values))
        self._values = values
        self._row_splits = row_splits

    # construction ------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, *, validate: bool = True) -> Ragged:
        """Same as ``Ragged(values, row_splits)``."""
        return cls(values, row_splits, validate=validate)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any) -> Ragged:
        """Rows of the given lengths (``row_splits = [0, cumsum(row_lengths)]``)."""
        if not is_array(row_lengths):
            row_lengths = np.asarray(row_lengths, dtype=np.int64)
        xp = get_namespace(row_lengths)
        if row_lengths.ndim != 1 or row_lengths.dtype.kind not in "iu":
            raise ValueError("Ragged row_lengths must be a 1-D integer array")
        zero = xp.zeros(1, dtype=np.int64)
        return cls(values, xp.concatenate([zero, xp.cumsum(row_lengths, dtype=np.int64)]))

    @classmethod
    def from_list(cls, rows: Sequence[Sequence[Any]], dtype: Any = None) -> Ragged:
        """NumPy Ragged from nested Python lists (TF's ``tf.ragged.constant`` for one ragged
        dimension); every row is converted with ``np.asarray(row, dtype)``."""
        if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
            raise TypeError(
                f"Ragged.from_list: rows must be a sequence of rows, got {type(rows).__name__}"
            )
        arrays = [np.asarray(r, dtype=dtype) for r in rows]
        for i, a in enumerate(arrays):
            if a.ndim == 0:
                raise ValueError(
                    f"Ragged.from_list: every row must be a sequence; row {i} is a scalar"
                )
        lengths = np.asarray([len(a) for a in arrays], dtype=np.int64)
        if arrays:
            # empty rows add no values: they must not decide the dtype (``[]`` reads as
            # float64 and would upcast int / bool / str rows) nor the inner shape
            filled = [a for a in arrays if len(a)]
            inner = {a.shape[1:] for a in filled}
            if len(inner) > 1:
                raise ValueError(
                    "Ragged.from_list: rows have different inner shapes "
                    f"{sorted(inner)}; only the first dimension may vary"
                )
            values = np.concatenate(filled) if filled else arrays[0][:0]
        else:
            values = np.zeros(0, dtype=dtype or np.float64)
        return cls.from_row_lengths(values, lengths)

    # properties --------------------------------------------------------------------------
    @property
    def values(self) -> Any:
        """The concatenated rows, ``[total, ...]`` (an array or a Ragged)."""
        return self._values

    @property
    def row_splits(self) -> Any:
        """Integer array ``[nrows + 1]``: row ``i`` spans ``values[splits[i]:splits[i+1]]``."""
        return self._row_splits

    @property
    def nrows(self) -> int:
        return int(self._row_splits.shape[0]) - 1

    @property
    def dtype(self) -> np.dtype:
        return self._values.dtype

    @property
    def flat_values(self) -> Any:
        """The innermost dense values (through every ragged level)."""
        v = self._values
        while isinstance(v, Ragged):
            v = v.values
        return v

    @property
    def shape(self) -> tuple[int | None, ...]:
        """``(nrows, None, *inner shape)``; ``None`` marks a ragged dimension."""
        return (self.nrows, None, *self._values.shape[1:])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        return self.nrows

    def row_lengths(self) -> Any:
        """Lengths of the rows, ``[nrows]``."""
        return self._row_splits[1:] - self._row_splits[:-1]

    def __getitem__(self, i: int) -> Any:
        """Row ``i`` (an array, or a Ragged when ``values`` is ragged)."""
        if not isinstance(i, (int, np.integer)):
            raise TypeError("Ragged supports integer row access only; use .values/.row_splits")
        n = self.nrows
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"row {i} out of range for a Ragged with {n} rows")
        start, stop = (int(s) for s in to_numpy(self._row_splits[i : i + 2]))
        if isinstance(self._values, Ragged):
            return self._values.slice_rows(start, stop)
        return self._values[start:stop]

    def slice_rows(self, start: int, stop: int) -> Ragged:
        """Rows ``start:stop`` as a new Ragged (values sliced, splits rebased)."""
        if not 0 <= start <= self.nrows:
            raise IndexError(f"row {start} out of range for a Ragged with {self.nrows} rows")
        stop = min(max(stop, start), self.nrows)
        splits = self._row_splits[start : stop + 1]
        lo, hi = (int(s) for s in to_numpy(splits[[0, -1]]))
        values = (
            self._values.slice_rows(lo, hi)
            if isinstance(self._values, Ragged)
            else self._values[lo:hi]
        )
        return Ragged(values, splits - splits[0], validate=False)

    def to_list(self) -> list:
        """Nested Python lists (host copy)."""
        return [
            self[i].to_list() if isinstance(self._values, Ragged) else to_numpy(self[i]).tolist()
            for i in range(self.nrows)
        ]

    def with_values(self, values: Any) -> Ragged:
        """Same row splits, new values of the same length."""
        return Ragged(values, self._row_splits)

    def to(self, device: str) -> Ragged:
        from arraygnn._namespace import to_device

        return Ragged(to_device(self._values, device), to_device(self._row_splits, device))

    def __eq__(self, other: object) -> bool:
        return NotImplemented  # element-wise meaning is ambiguous; compare .values/.row_splits

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Ragged(nrows={self.nrows}, values={self._values!r}, row_splits={self._row_splits!r})"
        )


def _check_row_splits(row_splits: Any, total: int) -> None:
    if row_splits.ndim != 1 or row_splits.dtype.kind not in "iu":
        raise ValueError(
            f"Ragged row_splits must be a 1-D integer array, got shape {row_splits.shape} "
            f"dtype {row_splits.dtype}"
        )
    if row_splits.shape[0] == 0:
        raise ValueError("Ragged row_splits must have at least one entry (0)")
    xp = get_namespace(row_splits)
    first, last = (int(v) for v in to_numpy(row_splits[[0, -1]]))
    if first != 0:
        raise ValueError(f"Ragged row_splits must start at 0, got {first}")
    if last != total:
        raise ValueError(f"Ragged row_splits end at {last} but values have {total} rows")
    if row_splits.shape[0] > 1 and bool(xp.any(row_splits[1:] < row_splits[:-1])):
        raise ValueError("Ragged row_splits must be non-decreasing")
