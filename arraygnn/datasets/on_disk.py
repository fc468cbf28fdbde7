"""``OnDiskDataset``: PyG's on-disk dataset (``torch_geometric.data.OnDiskDataset``) on
SQLite, for datasets larger than memory.

Each graph is one row of a SQLite table (``processed/sqlite.db``, the standard library's
``sqlite3``): its arrays and values in the arrays format of
:mod:`arraygnn.datasets._codec` (raw array bytes behind a JSON header; no pickle).
``get`` reads one row, ``multi_get`` many in one query.

>>> import numpy as np, tempfile
>>> from arraygnn.data import Data
>>> from arraygnn.datasets import OnDiskDataset
>>> ds = OnDiskDataset(tempfile.mkdtemp())
>>> ds.extend([Data(x=np.full((n, 2), float(n)), y=n) for n in (1, 2, 3)])
>>> ds.append(Data(x=np.zeros((4, 2)), y=4))
>>> len(ds), ds[2], ds.multi_get([3, 0])[1].x.tolist()
(4, Data(x=[3, 2], y=3), [[1.0, 1.0]])
>>> ds.close()
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.datasets import _codec
from arraygnn.datasets.base import Dataset

__all__ = ["OnDiskDataset"]


class OnDiskDataset(Dataset):
    """Dataset base class for graphs kept in a SQLite database, as PyG's ``OnDiskDataset``
    with the ``"sqlite"`` backend.

    A subclass's ``process()`` fills the database with :meth:`append` / :meth:`extend`
    (it runs when ``processed/sqlite.db`` is missing); :meth:`serialize` /
    :meth:`deserialize` convert a graph to and from what a row stores (by default the
    graph itself: a ``Data`` or ``HeteroData`` of a module-level class, a dict, ...).

    Args:
        root: the folder holding ``processed/sqlite.db``.
        transform: applied on access (``ds[i]`` and :meth:`multi_get`).
        pre_filter: for ``process()`` to apply (PyG's argument).
        backend: ``"sqlite"`` (PyG's ``"rocksdb"`` is not provided).
        schema: PyG's column schema; any value is accepted, but with anything other than
            ``object`` the subclass must override :meth:`serialize` / :meth:`deserialize`
            (PyG's rule). Rows are stored in the arrays format whatever it says.
        log: print while processing.

    RULE: row ``i`` holds graph ``i``; ``append`` / ``extend`` add at the end.
    RULE: one connection per dataset, guarded by a lock, usable from the loader's
      prefetch thread; ``close()`` ends it (the next access opens it again).
    """

    BACKENDS = ("sqlite",)

    def __init__(
        self,
        root: str | os.PathLike,
        transform: Callable[[Any], Any] | None = None,
        pre_filter: Callable[[Any], Any] | None = None,
        backend: str = "sqlite",
        schema: Any = object,
        log: bool = True,
    ) -> None:
        if backend not in self.BACKENDS:
            raise ValueError(
                f"Database backend must be one of {set(self.BACKENDS)} (got '{backend}')"
            )
        if root is None:
            raise ValueError(f"{type(self).__name__}: root is required (the database folder)")
        self.backend = backend
        self.schema = schema
        self._db: _SQLiteTable | None = None
        self._numel: int | None = None
        super().__init__(root, transform, pre_filter=pre_filter, log=log)

    @property
    def processed_file_names(self) -> str:
        return f"{self.backend}.db"

    @property
    def db(self) -> _SQLiteTable:
        """The SQLite table (opened on first use, and again in a forked child process:
        a connection is never used by two processes)."""
        if self._db is not None and self._db.pid != os.getpid():
            self._db = None  # inherited through fork: leave the parent's connection alone
        if self._db is None:
            os.makedirs(self.processed_dir, exist_ok=True)
            self._db = _SQLiteTable(self.processed_paths[0], type(self).__name__)
            self._numel = len(self._db)
        return self._db

    def close(self) -> None:
        """Close the database connection."""
        if self._db is not None:
            if self._db.pid == os.getpid():
                self._db.close()
            self._db = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its connection (a spawned loader worker opens its own)."""
        state = dict(self.__dict__)
        state["_db"] = None
        return state

    def serialize(self, data: Any) -> Any:
        """The value stored for ``data`` (the graph itself with the default schema)."""
        if self.schema is object:
            return data
        raise NotImplementedError(
            f"`{type(self).__name__}.serialize()` needs to be overridden in case a "
            "non-default schema was passed"
        )

    def deserialize(self, data: Any) -> Any:
        """The graph of a stored value (the value itself with the default schema)."""
        if self.schema is object:
            return data
        raise NotImplementedError(
            f"`{type(self).__name__}.deserialize()` needs to be overridden in case a "
            "non-default schema was passed"
        )

    def append(self, data: Any) -> None:
        """Add ``data`` as the last graph."""
        db = self.db
        db.insert([len(self)], [self._encode(data)])
        self._numel = (self._numel or 0) + 1

    def extend(self, data_list: Sequence[Any], batch_size: int | None = None) -> None:
        """Add the graphs of ``data_list`` at the end (one transaction per
        ``batch_size`` graphs, a positive int; all in one by default)."""
        where = f"{type(self).__name__}.extend"
        if batch_size is not None:
            if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
                raise TypeError(f"{where}: batch_size must be an int or None, got {batch_size!r}")
            if batch_size < 1:  # PyG: range() error for 0; nothing stored but counted for < 0
                raise ValueError(f"{where}: batch_size must be >= 1, got {batch_size}")
        db = self.db
        start = len(self)
        rows = [self._encode(d) for d in data_list]
        step = len(rows) if batch_size is None else int(batch_size)
        for a in range(0, len(rows), max(step, 1)):
            db.insert(range(start + a, start + min(a + step, len(rows))), rows[a : a + step])
        self._numel = start + len(rows)

    def get(self, idx: int) -> Any:
        """The graph stored at ``idx`` (no ``transform``)."""
        n = self.len()
        if not 0 <= idx < n:
            raise IndexError(f"{type(self).__name__}: graph {idx} out of range for {n} graphs")
        return self.deserialize(self._decode(self.db.get([int(idx)])[0], int(idx)))

    def multi_get(self, indices: Any, batch_size: int | None = None) -> list[Any]:
        """The graphs stored at ``indices`` (ints, a range, a slice or an int array), in
        that order, ``transform`` applied (as PyG). ``batch_size`` is accepted for PyG's
        signature; rows are fetched in one query."""
        del batch_size
        n = self.len()
        if isinstance(indices, slice):
            ids = np.arange(n, dtype=np.int64)[indices]
        else:
            ids = np.asarray(to_numpy(indices)).reshape(-1)
            if ids.size == 0:
                ids = ids.astype(np.int64)
            if ids.dtype.kind not in "iu":
                raise TypeError(
                    f"{type(self).__name__}.multi_get: indices must be integers, got {ids.dtype}"
                )
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            bad = int(ids[(ids < 0) | (ids >= n)][0])
            raise IndexError(f"{type(self).__name__}: graph {bad} out of range for {n} graphs")
        blobs = self.db.get(ids.tolist())
        out = [self.deserialize(self._decode(b, i)) for b, i in zip(blobs, ids.tolist())]
        if self.transform is not None:
            out = [self.transform(d) for d in out]
        return out

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """``[self[i] for i in indices]`` in one query (what torch's ``DataLoader`` calls):
        positions in this dataset, mapped through ``indices()`` for a view.

        Differs from PyG: PyG reads the storage rows ``indices`` whatever the view."""
        own = self.indices()
        n = len(own)
        pos = np.asarray(indices, dtype=np.int64).reshape(-1)
        if pos.size and (pos.min() < -n or pos.max() >= n):
            bad = int(pos[(pos < -n) | (pos >= n)][0])
            raise IndexError(f"{type(self).__name__}: index {bad} out of range for {n} graphs")
        pos = np.where(pos < 0, pos + n, pos)
        return self.multi_get(pos if self._indices is None else np.asarray(own, np.int64)[pos])

    def len(self) -> int:
        if self._numel is None:
            self._numel = len(self.db)
        return self._numel

    def __repr__(self) -> str:
        name = getattr(self, "_repr_name", None)
        if name is not None:  # made by InMemoryDataset.to_on_disk_dataset, as PyG's
            n = len(self)
            return f"{name}({n if n > 1 else ''})"
        return f"{type(self).__name__}({len(self)})"

    def _encode(self, data: Any) -> bytes:
        return _codec.dumps(self.serialize(data), f"{type(self).__name__}.append")

    def _decode(self, blob: bytes, idx: int) -> Any:
        return _codec.loads(blob, f"{type(self).__name__} row {idx}")


class _SQLiteTable:
    """One SQLite table ``(id INTEGER PRIMARY KEY, data BLOB)``: rows by id."""

    def __init__(self, path: str, name: str) -> None:
        import sqlite3

        if not name.isidentifier():
            name = "dataset"
        # quoted: a class named like an SQL keyword (Order, Select, ...) is a valid table
        self.path, self.table, self.name = path, name, f'"{name}"'
        self._join = f'"{name}__join"'
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._con = sqlite3.connect(path, check_same_thread=False)
        with self._lock:
            self._con.execute(
                f"CREATE TABLE IF NOT EXISTS {self.name} "
                "(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"
            )
            self._con.commit()

    def insert(self, ids: Iterable[int], blobs: Sequence[bytes]) -> None:
        with self._lock:
            self._con.executemany(
                f"INSERT INTO {self.name} (id, data) VALUES (?, ?)", zip(ids, blobs)
            )
            self._con.commit()

    def get(self, ids: list[int]) -> list[bytes]:
        """Rows ``ids`` in that order (repeats allowed)."""
        with self._lock:
            if len(ids) == 1:
                row = self._con.execute(
                    f"SELECT data FROM {self.name} WHERE id = ?", (ids[0],)
                ).fetchone()
                if row is None:
                    raise IndexError(f"{self.table}: no row {ids[0]}")
                return [row[0]]
            # a temporary table of the wanted ids joined on the table, ordered by position
            # (PyG's approach: no long IN clause, rows in the asked order)
            join = self._join
            cur = self._con.cursor()
            cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {join} (id INTEGER, pos INTEGER)")
            cur.execute(f"DELETE FROM {join}")
            cur.executemany(
                f"INSERT INTO {join} (id, pos) VALUES (?, ?)", zip(ids, range(len(ids)))
            )
            rows = cur.execute(
                f"SELECT t.data FROM {join} j JOIN {self.name} t ON t.id = j.id ORDER BY j.pos"
            ).fetchall()
            cur.execute(f"DELETE FROM {join}")
            self._con.commit()
        if len(rows) != len(ids):
            raise IndexError(f"{self.table}: {len(ids) - len(rows)} of the asked rows are missing")
        return [r[0] for r in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute(f"SELECT COUNT(*) FROM {self.name}").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._con.commit()
            self._con.close()
