"""The arrays file format of the dataset classes: values and arrays, no pickle.

One buffer holds a JSON header describing a value (a ``Data`` or ``HeteroData``, a dict, a
list, a tuple, numbers, strings, bytes, ``None``, NumPy scalars) whose arrays follow as raw
bytes, each at a 64-byte aligned offset. Reading maps the arrays onto one aligned host
buffer: one copy of the file or row, no per-array copy, writable arrays (or a copy-on-write
map of the file). ``InMemoryDataset.save`` writes this format to a file, ``OnDiskDataset``
stores one buffer per graph in SQLite.

Layout: ``b"AGNNPACK"``, the header length (uint64, little endian), the UTF-8 JSON header,
zero padding to a multiple of 64, then the arrays (offsets relative to that point).

RULE: nothing is pickled: object arrays, structured dtypes and other Python objects are
  refused with a ``TypeError`` naming where they sit; a ``Data`` class is stored by its
  import path and imported again when read.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.datasets._codec import dumps, loads
>>> d = loads(dumps(Data(x=np.arange(6.0).reshape(3, 2), y=1, name="g")))
>>> d, d.x.ctypes.data % 64, d.x.flags.writeable
(Data(x=[3, 2], y=1, name='g'), 0, True)
"""

from __future__ import annotations

import importlib
import io
import json
import os
from typing import Any, BinaryIO

import numpy as np

from arraygnn._alignment import ALIGNMENT, aligned_empty
from arraygnn._namespace import is_array, to_numpy
from arraygnn.data import Data, data_holding

__all__ = ["class_path", "dump", "dumps", "load", "loads", "resolve_class"]

MAGIC = b"AGNNPACK"
_PREFIX = len(MAGIC) + 8


def class_path(cls: type) -> str:
    """``"module:QualName"`` of a class, as the header records it."""
    return f"{cls.__module__}:{cls.__qualname__}"


def _hetero_class() -> type:
    from arraygnn.hetero_data import HeteroData

    return HeteroData


def resolve_class(
    path: str, fallback: type | None = None, where: str = "arrays file", base: type = Data
) -> type:
    """The ``base`` subclass (``Data`` or ``HeteroData``) named by :func:`class_path`;
    ``fallback`` when it cannot be imported (a ``ValueError`` without one)."""
    module, _, qualname = path.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        obj = None
    if isinstance(obj, type) and issubclass(obj, base):
        return obj
    if fallback is not None and issubclass(fallback, base):
        return fallback
    raise ValueError(
        f"{where}: graphs were stored as {path!r}, which cannot be imported here; define "
        "that Data subclass at module level (or pass data_cls=)"
    )


class _Writer:
    def __init__(self, where: str) -> None:
        self.where = where
        self.arrays: list[np.ndarray] = []

    def array(self, a: Any, at: str) -> int:
        a = np.asarray(to_numpy(a), order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
        if a.dtype.hasobject or a.dtype.kind == "V":
            raise TypeError(
                f"{self.where}: {at} is an array of dtype {a.dtype}; object and structured "
                "arrays are not stored (no pickle)"
            )
        self.arrays.append(a)
        return len(self.arrays) - 1

    def importable(self, cls: type, at: str) -> str:
        """The class path of ``cls``, refused when it could not be imported on reading."""
        if "<locals>" in cls.__qualname__:
            raise TypeError(
                f"{self.where}: {at} is a {cls.__qualname__}, defined inside a function; "
                "it could not be imported when read: define it at module level"
            )
        return class_path(cls)

    def value(self, v: Any, at: str) -> Any:
        if is_array(v):
            return {"nd": self.array(v, at)}
        if v is None or isinstance(v, (bool, str)):
            return {"py": v}
        if isinstance(v, int):
            return {"py": int(v)}  # an int subclass (IntEnum) comes back as an int
        if isinstance(v, float):
            return {"py": float(v)}
        if isinstance(v, np.generic):
            return {"np": self.array(np.asarray(v), at)}
        if isinstance(v, complex):
            return {"complex": [v.real, v.imag]}
        if isinstance(v, bytes):
            return {"bytes": self.array(np.frombuffer(v, np.uint8), at)}
        if isinstance(v, Data):
            items = [[k, self.value(x, f"{at}.{k}")] for k, x in v.items()]
            return {"data": self.importable(type(v), at), "items": items}
        hetero = _hetero_class()
        if isinstance(v, hetero):

            def items(store: Any, name: str) -> list[list[Any]]:
                return [[k, self.value(x, f"{at}[{name}].{k}")] for k, x in store.items()]

            return {
                "hetero": self.importable(type(v), at),
                "global": [[k, self.value(x, f"{at}.{k}")] for k, x in v._global.items()],
                "nodes": [[t, items(s._mapping, repr(t))] for t, s in v._nodes.items()],
                "edges": [[list(t), items(s._mapping, repr(t))] for t, s in v._edges.items()],
            }
        if isinstance(v, dict):
            for k in v:
                if not isinstance(k, str):
                    raise TypeError(f"{self.where}: {at} has a non-string key {k!r}")
            return {"dict": [[k, self.value(x, f"{at}[{k!r}]")] for k, x in v.items()]}
        if isinstance(v, (list, tuple)):
            tag = "list" if isinstance(v, list) else "tuple"
            return {tag: [self.value(x, f"{at}[{i}]") for i, x in enumerate(v)]}
        hint = ""
        if type(v).__module__.split(".")[0] in ("torch", "jax", "jaxlib"):
            hint = " (convert it first, e.g. arraygnn.interop.from_torch / from_jax)"
        raise TypeError(
            f"{self.where}: {at} is a {type(v).__module__}.{type(v).__name__}; only arrays, "
            f"numbers, strings, bytes, None, lists, tuples, dicts and Data are stored{hint}"
        )

    def write(self, root: Any, f: BinaryIO) -> None:
        table, offset = [], 0
        for a in self.arrays:
            table.append([a.dtype.str, list(a.shape), offset])
            offset += -(-a.nbytes // ALIGNMENT) * ALIGNMENT
        header = json.dumps({"v": 1, "root": root, "arrays": table}).encode()
        f.write(MAGIC)
        f.write(len(header).to_bytes(8, "little"))
        f.write(header)
        f.write(b"\0" * (-(_PREFIX + len(header)) % ALIGNMENT))
        for a in self.arrays:
            f.write(memoryview(a.reshape(-1)).cast("B") if a.size else b"")
            f.write(b"\0" * (-a.nbytes % ALIGNMENT))


def dump(obj: Any, f: BinaryIO, where: str = "arrays file") -> None:
    """Write ``obj`` to the binary file ``f``."""
    w = _Writer(where)
    root = w.value(obj, "the value")
    w.write(root, f)


def dumps(obj: Any, where: str = "arrays file") -> bytes:
    """``obj`` as bytes."""
    buf = io.BytesIO()
    dump(obj, buf, where)
    return buf.getvalue()


def _header(buf: np.ndarray, where: str) -> tuple[dict[str, Any], int]:
    if buf.shape[0] < _PREFIX or bytes(buf[: len(MAGIC)]) != MAGIC:
        head = bytes(buf[: len(MAGIC)])
        raise ValueError(
            f"{where}: not an arraygnn arrays file (it starts with {head!r}; a file "
            "written by torch.save / PyG is not read here)"
        )
    n = int.from_bytes(bytes(buf[len(MAGIC) : _PREFIX]), "little")
    header = json.loads(bytes(buf[_PREFIX : _PREFIX + n]))
    start = _PREFIX + n
    return header, start + (-start % ALIGNMENT)


def _read(buf: np.ndarray, where: str, fallback: type | None) -> Any:
    header, start = _header(buf, where)
    arrays = []
    for dtype, shape, offset in header["arrays"]:
        dt = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        a = start + offset
        arrays.append(buf[a : a + nbytes].view(dt).reshape(tuple(shape)))
    classes: dict[str, type] = {}

    def value(v: dict[str, Any]) -> Any:
        (tag, x), *_ = v.items()
        if tag == "nd":
            return arrays[x]
        if tag == "py":
            return x
        if tag == "np":
            return arrays[x][()]
        if tag == "complex":
            return complex(*x)
        if tag == "bytes":
            return arrays[x].tobytes()
        if tag == "list":
            return [value(e) for e in x]
        if tag == "tuple":
            return tuple(value(e) for e in x)
        if tag == "dict":
            return {k: value(e) for k, e in x}
        if tag == "data":
            cls = classes.get(x)
            if cls is None:
                cls = classes[x] = resolve_class(x, fallback, where)
            return data_holding(cls, {k: value(e) for k, e in v["items"]})
        if tag == "hetero":
            cls = classes.get(x)
            if cls is None:
                cls = classes[x] = resolve_class(x, fallback, where, _hetero_class())
            try:
                out = cls()
            except Exception:  # noqa: BLE001 - an __init__ that needs its arguments
                out = cls.__new__(cls)
                _hetero_class().__init__(out)
            out._global.update({k: value(e) for k, e in v["global"]})
            for t, items in v["nodes"]:
                out.get_node_store(t)._mapping.update({k: value(e) for k, e in items})
            for t, items in v["edges"]:
                out.get_edge_store(*t)._mapping.update({k: value(e) for k, e in items})
            return out
        raise ValueError(f"{where}: unknown entry {tag!r} in the header")

    return value(header["root"])


def loads(blob: bytes | bytearray | memoryview, where: str = "arrays file", *,
          fallback: type | None = None) -> Any:  # fmt: skip
    """The value of a :func:`dumps` buffer (its arrays copied once into an aligned buffer)."""
    src = np.frombuffer(blob, np.uint8)
    buf = aligned_empty((src.shape[0],), np.uint8)
    buf[...] = src
    return _read(buf, where, fallback)


def load(path: str | os.PathLike, where: str = "arrays file", *,
         fallback: type | None = None, mmap: bool = False) -> Any:  # fmt: skip
    """The value stored in the file ``path``, read once into an aligned buffer; with
    ``mmap`` its arrays map the file instead (copy-on-write: writable, writes stay in
    memory; pages are read on first touch)."""
    if mmap:
        buf = np.memmap(path, dtype=np.uint8, mode="c")
        return _read(buf.view(np.ndarray), f"{where} {os.fspath(path)!r}", fallback)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        buf = aligned_empty((size,), np.uint8)
        view = memoryview(buf).cast("B")
        got = 0
        while got < size:
            n = f.readinto(view[got:])
            if not n:
                break
            got += n
    return _read(buf[:got], f"{where} {os.fspath(path)!r}", fallback)
