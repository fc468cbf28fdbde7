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
  import path and looked up again when read, among the modules already imported (reading
  never imports a module, so a file cannot make the reader run code).
RULE: reading checks the buffer before it trusts it: a truncated or corrupted buffer (a
  header or array past its end, a negative or unaligned offset, an object / structured
  dtype, a bad reference) raises a ``ValueError`` naming the file or row, never reads
  outside the buffer.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.datasets._codec import dumps, loads
>>> d = loads(dumps(Data(x=np.arange(6.0).reshape(3, 2), y=1, name="g")))
>>> d, d.x.ctypes.data % 64, d.x.flags.writeable
(Data(x=[3, 2], y=1, name='g'), 0, True)
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
import types
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
    """The ``base`` subclass (``Data`` or ``HeteroData``) named by :func:`class_path`,
    looked up among the modules this process has already imported; ``fallback`` when it
    is not there (a ``ValueError`` without one).

    RULE: reading a file never imports a module: a path is resolved through
      ``sys.modules`` and the ``__dict__`` of modules and classes only (no ``getattr``,
      no import hook), so a file cannot make the reader run code; only ``base``
      subclasses are accepted."""
    obj: Any = None
    if isinstance(path, str):
        module, _, qualname = path.partition(":")
        obj = sys.modules.get(module)
        for part in qualname.split("."):
            if not isinstance(obj, (types.ModuleType, type)):
                obj = None
                break
            obj = obj.__dict__.get(part)
    if isinstance(obj, type) and issubclass(obj, base):
        return obj
    if fallback is not None and issubclass(fallback, base):
        return fallback
    raise ValueError(
        f"{where}: graphs were stored as {path!r}, a class not defined in this process "
        "(reading never imports modules): import the module that defines that "
        f"{base.__name__} subclass before reading (or pass data_cls=)"
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
        if isinstance(v, np.generic):  # first: np.float64 is a float, np.str_ a str
            return {"np": self.array(np.asarray(v), at)}
        if v is None or isinstance(v, (bool, str)):
            return {"py": v if type(v) in (bool, str) or v is None else str(v)}
        if isinstance(v, int):
            return {"py": int(v)}  # an int subclass (IntEnum) comes back as an int
        if isinstance(v, float):
            return {"py": float(v)}
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
            f.write(memoryview(a.reshape(-1).view(np.uint8)) if a.size else b"")
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


def _corrupt(where: str, what: str) -> ValueError:
    """The error for a malformed arrays buffer, naming the file or row."""
    return ValueError(f"{where}: corrupted or truncated arrays file ({what})")


def _header(buf: np.ndarray, where: str) -> tuple[dict[str, Any], int]:
    if bytes(buf[: len(MAGIC)]) != MAGIC:
        head = bytes(buf[: len(MAGIC)])
        raise ValueError(
            f"{where}: not an arraygnn arrays file (it starts with {head!r}; a file "
            "written by torch.save / PyG is not read here)"
        )
    if buf.shape[0] < _PREFIX:
        raise _corrupt(where, f"{buf.shape[0]} bytes, shorter than the prefix")
    n = int.from_bytes(bytes(buf[len(MAGIC) : _PREFIX]), "little")
    if n > buf.shape[0] - _PREFIX:
        raise _corrupt(where, f"a header of {n} bytes in {buf.shape[0]} bytes")
    try:
        header = json.loads(bytes(buf[_PREFIX : _PREFIX + n]).decode("utf-8"))
    except (ValueError, RecursionError) as err:  # JSON and UTF-8 errors are ValueErrors
        raise _corrupt(where, f"unreadable header: {type(err).__name__}") from None
    if not isinstance(header, dict) or "root" not in header:
        raise _corrupt(where, "the header has no root value")
    if header.get("v") != 1:
        raise _corrupt(where, f"format version {header.get('v')!r}, this reader knows 1")
    start = _PREFIX + n
    return header, start + (-start % ALIGNMENT)


def _arrays(buf: np.ndarray, header: dict[str, Any], start: int, where: str) -> list[Any]:
    """Views of the arrays of the table, each checked to lie in ``buf``."""
    table = header.get("arrays")
    if not isinstance(table, list):
        raise _corrupt(where, "no array table")
    arrays = []
    for i, entry in enumerate(table):
        bad = f"array {i}"
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            raise _corrupt(where, f"{bad}: not a [dtype, shape, offset] entry")
        dtype, shape, offset = entry
        try:
            dt = np.dtype(dtype)
        except (TypeError, ValueError):
            raise _corrupt(where, f"{bad}: unknown dtype {dtype!r}") from None
        if dt.hasobject or dt.kind == "V" or dt.itemsize == 0:
            raise _corrupt(where, f"{bad}: dtype {dtype!r} is not stored")
        ints = isinstance(shape, list) and all(type(d) is int and d >= 0 for d in shape)
        if not ints or type(offset) is not int or offset < 0 or offset % ALIGNMENT:
            raise _corrupt(where, f"{bad}: shape {shape!r} / offset {offset!r}")
        nbytes = math.prod(shape) * dt.itemsize  # Python ints: no overflow
        a = start + offset
        if a + nbytes > buf.shape[0]:
            raise _corrupt(
                where, f"{bad} needs bytes {a}..{a + nbytes}, the buffer has {buf.shape[0]}"
            )
        arrays.append(buf[a : a + nbytes].view(dt).reshape(tuple(shape)))
    return arrays


def _read(buf: np.ndarray, where: str, fallback: type | None) -> Any:
    header, start = _header(buf, where)
    arrays = _arrays(buf, header, start, where)
    classes: dict[str, type] = {}

    def array(x: Any) -> Any:
        if type(x) is not int or not 0 <= x < len(arrays):
            raise _corrupt(where, f"array reference {x!r} for {len(arrays)} arrays")
        return arrays[x]

    def pairs(x: Any) -> list[tuple[str, Any]]:
        out = []
        for k, e in x:
            if not isinstance(k, str):
                raise _corrupt(where, f"key {k!r} is not a string")
            out.append((k, value(e)))
        return out

    def value(v: Any) -> Any:
        if not isinstance(v, dict) or not v:
            raise _corrupt(where, f"entry {v!r:.40} is not a tagged value")
        (tag, x), *_ = v.items()
        if tag in ("data", "hetero") and not isinstance(x, str):
            raise _corrupt(where, f"class path {x!r:.40} is not a string")
        if tag == "nd":
            return array(x)
        if tag == "py":
            if x is not None and not isinstance(x, (bool, int, float, str)):
                raise _corrupt(where, f"value {x!r:.40} is not a number or string")
            return x
        if tag == "np":
            return array(x)[()]
        if tag == "complex":
            return complex(*x)
        if tag == "bytes":
            return array(x).tobytes()
        if tag == "list":
            return [value(e) for e in x]
        if tag == "tuple":
            return tuple(value(e) for e in x)
        if tag == "dict":
            return dict(pairs(x))
        if tag == "data":
            cls = classes.get(x)
            if cls is None:
                cls = classes[x] = resolve_class(x, fallback, where)
            return data_holding(cls, dict(pairs(v["items"])))
        if tag == "hetero":
            cls = classes.get(x)
            if cls is None:
                cls = classes[x] = resolve_class(x, fallback, where, _hetero_class())
            try:
                out = cls()
            except Exception:  # noqa: BLE001 - an __init__ that needs its arguments
                out = cls.__new__(cls)
                _hetero_class().__init__(out)
            out._global.update(pairs(v["global"]))
            for t, items in v["nodes"]:
                out.get_node_store(t)._mapping.update(pairs(items))
            for t, items in v["edges"]:
                out.get_edge_store(*t)._mapping.update(pairs(items))
            return out
        raise _corrupt(where, f"unknown entry {tag!r} in the header")

    try:
        return value(header["root"])
    except (ValueError, RecursionError) as err:
        if isinstance(err, ValueError) and str(err).startswith(where):
            raise  # ours: a corrupted entry, or a class not defined here
        raise _corrupt(where, f"{type(err).__name__}: {err}"[:200]) from None
    except (KeyError, TypeError, AttributeError, IndexError) as err:
        raise _corrupt(where, f"{type(err).__name__}: {err}"[:200]) from None


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
    if mmap and os.path.getsize(path) >= _PREFIX:  # (an empty file cannot be mapped)
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
