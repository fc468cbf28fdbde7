"""Feature storage of the DGL face: one :class:`Frame` per node type / edge type.

A frame is a dict of feature name -> array whose first dimension is the number of rows
(nodes or edges of one type). Views such as ``g.ndata`` are thin mappings over frames.

RULE: every array in a frame has exactly ``num_rows`` rows and lives on the graph's device.
RULE: a missing name raises ``KeyError`` naming the field, where it was looked for, and what
      is there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from arraygnn._namespace import is_array, is_cupy_array

__all__ = ["Frame", "HeteroDataView"]


class Frame(MutableMapping):
    """Features of ``num_rows`` nodes (or edges) of one type.

    >>> import numpy as np
    >>> f = Frame(3, "g.ndata")
    >>> f["x"] = np.zeros((3, 2))
    >>> f["x"].shape
    (3, 2)
    """

    def __init__(self, num_rows: int, where: str, device: str = "cpu") -> None:
        self.num_rows = int(num_rows)
        self.where = where
        self.device = device
        self._data: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise KeyError(
                f"feature {key!r} not found in {self.where}; available: {sorted(self._data)}"
            ) from None

    def __setitem__(self, key: str, value: Any) -> None:
        self._check(key, value)
        self._data[key] = value

    def _check(self, key: str, value: Any) -> None:
        """Raise if ``value`` cannot be stored as feature ``key`` (nothing is stored)."""
        if not isinstance(key, str):
            raise TypeError(f"{self.where}: feature names must be str, got {key!r}")
        if not is_array(value):
            raise TypeError(
                f"{self.where}[{key!r}] must be a NumPy or CuPy array, got {type(value).__name__}"
            )
        if value.ndim == 0 or value.shape[0] != self.num_rows:
            rows = "a scalar" if value.ndim == 0 else f"{value.shape[0]} rows"
            raise ValueError(
                f"{self.where}[{key!r}] has {rows} but {self.where} holds {self.num_rows} rows"
            )
        on_gpu = is_cupy_array(value)
        if on_gpu != (self.device != "cpu"):
            raise TypeError(
                f"{self.where}[{key!r}] is a {'CuPy' if on_gpu else 'NumPy'} array but the graph "
                f"is on {self.device!r}; move it with arraygnn.to_device or g.to(...)"
            )

    def __delitem__(self, key: str) -> None:
        try:
            del self._data[key]
        except KeyError:
            raise KeyError(f"feature {key!r} not found in {self.where}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        shapes = {k: tuple(v.shape) for k, v in self._data.items()}
        return f"Frame({self.where}, rows={self.num_rows}, {shapes})"

    # snapshot / restore for Graph.local_scope
    def _snapshot(self) -> dict[str, Any]:
        return dict(self._data)

    def _restore(self, snapshot: dict[str, Any]) -> None:
        self._data.clear()
        self._data.update(snapshot)


class HeteroDataView(MutableMapping):
    """``g.ndata`` / ``g.edata`` of a graph with several node (edge) types.

    ``view[name]`` is a dict ``{type: array}`` over the types that have ``name``;
    ``view[name] = {type: array, ...}`` sets it per type (DGL's convention). ``resolve``
    maps a given type key to a frame key (``g.edata``: an edge type name or a canonical
    triple, as ``g.edges[...]``).
    """

    def __init__(
        self, frames: dict[Any, Frame], where: str, resolve: Callable[[Any], Any] | None = None
    ) -> None:
        self._frames = frames
        self._where = where
        self._resolve = resolve

    def __getitem__(self, key: str) -> dict[Any, Any]:
        found = {t: f._data[key] for t, f in self._frames.items() if key in f._data}
        if not found:
            raise KeyError(f"feature {key!r} not found in {self._where} for any type")
        return found

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(value, dict):
            raise TypeError(
                f"{self._where} has several types {list(self._frames)}: assign a dict "
                f"{{type: array}}, or use g.nodes[ntype].data / g.edges[etype].data"
            )
        resolved: dict[Any, Any] = {}
        for t, arr in value.items():
            if self._resolve is not None:
                ft = self._resolve(t)
            elif t in self._frames:
                ft = t
            else:
                raise KeyError(f"{self._where}: unknown type {t!r}; types: {list(self._frames)}")
            if ft in resolved:
                raise ValueError(f"{self._where}[{key!r}]: type {ft!r} is given twice")
            self._frames[ft]._check(key, arr)
            resolved[ft] = arr
        for ft, arr in resolved.items():
            self._frames[ft]._data[key] = arr

    def __delitem__(self, key: str) -> None:
        hit = False
        for f in self._frames.values():
            if key in f._data:
                del f._data[key]
                hit = True
        if not hit:
            raise KeyError(f"feature {key!r} not found in {self._where}")

    def __iter__(self) -> Iterator[str]:
        seen: dict[str, None] = {}
        for f in self._frames.values():
            seen.update(dict.fromkeys(f._data))
        return iter(seen)

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __repr__(self) -> str:
        return f"HeteroDataView({self._where}, {list(self)})"
