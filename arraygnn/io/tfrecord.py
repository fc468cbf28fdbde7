"""TFRecord files without TensorFlow: framing, masked CRC-32C, plain and GZIP.

A TFRecord file is a sequence of records, each framed as::

    uint64 length            (little endian)
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

with ``masked(c) = ((c >> 15) | (c << 17)) + 0xA282EAD8 (mod 2**32)``. A GZIP file is the
same byte stream inside one (or several concatenated) gzip members.

RULE: every record's two CRCs are checked when ``verify=True`` (the default); a corrupt or
truncated file raises :class:`TFRecordError` naming the file and the record number, never
yields garbage.

The CRC comes from the ``crc32c`` package when installed (``pip install 'arraygnn[tfrecord]'``)
and otherwise from a Numba slicing-by-8 kernel compiled on first use.

>>> import os, tempfile
>>> from arraygnn.io.tfrecord import write_tfrecord, read_tfrecord
>>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
>>> write_tfrecord(path, [b"first", b"second"])
2
>>> list(read_tfrecord(path))
[b'first', b'second']
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO, Literal

import numpy as np

__all__ = [
    "TFRecordError",
    "TFRecordWriter",
    "crc32c",
    "masked_crc32c",
    "read_tfrecord",
    "read_tfrecord_file",
    "write_tfrecord",
]

Compression = Literal["auto", "GZIP", "NONE"] | None

_MASK_DELTA = 0xA282EAD8
_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_GZIP_MAGIC = b"\x1f\x8b"


class TFRecordError(ValueError):
    """A TFRecord file is corrupt or truncated; the message names the file and record."""


# ---------------------------------------------------------------------------------------------
# CRC-32C
# ---------------------------------------------------------------------------------------------

_PY_TABLE: list[int] | None = None


def _crc32c_python(data: bytes, crc: int = 0) -> int:
    """Plain-Python table CRC-32C (slow; the test oracle)."""
    global _PY_TABLE
    if _PY_TABLE is None:
        table = []
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
        _PY_TABLE = table
    table = _PY_TABLE
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _crc32c_numba(data: bytes, crc: int = 0) -> int:
    from arraygnn.io import _crc32c_kernel as k

    buf = np.frombuffer(data, dtype=np.uint8)
    return int(k.crc32c_update(k.TABLES, buf, np.uint32(crc)))


def _crc32c_package(data: bytes, crc: int = 0) -> int:
    import crc32c as _pkg

    return _pkg.crc32c(data, crc)


_BACKEND = None


def _default_backend():
    global _BACKEND
    if _BACKEND is None:
        try:
            import crc32c as _pkg  # noqa: F401

            _BACKEND = _crc32c_package
        except ImportError:
            _BACKEND = _crc32c_numba
    return _BACKEND


def crc32c(data: bytes, *, backend: str = "auto") -> int:
    """CRC-32C (Castagnoli) of ``data``.

    ``backend``: ``"auto"`` (the ``crc32c`` package when installed, else Numba),
    ``"crc32c"``, ``"numba"`` or ``"python"`` (slow reference).

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    if backend == "auto":
        return _default_backend()(data)
    if backend == "crc32c":
        try:
            return _crc32c_package(data)
        except ImportError as err:
            raise ImportError(
                "backend='crc32c' needs the crc32c package: pip install 'arraygnn[tfrecord]'"
            ) from err
    if backend == "numba":
        return _crc32c_numba(data)
    if backend == "python":
        return _crc32c_python(data)
    raise ValueError(f"crc32c: unknown backend {backend!r}; use auto, crc32c, numba or python")


def masked_crc32c(data: bytes, *, backend: str = "auto") -> int:
    """TFRecord's masked CRC-32C of ``data``.

    >>> masked_crc32c(b"")
    2726488792
    """
    c = crc32c(data, backend=backend)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def _check_compression(compression: Compression) -> str:
    if compression is None or compression == "" or compression == "NONE":
        return "NONE"
    if isinstance(compression, str) and compression.upper() in ("GZIP", "AUTO"):
        return compression.upper()
    raise ValueError(f"compression must be 'auto', 'GZIP', 'NONE' or None, got {compression!r}")


def _looks_gzip(path: str) -> bool:
    """True when the file starts with the gzip magic and not with a valid record header."""
    with open(path, "rb") as f:
        head = f.read(_HEADER.size)
    if not head.startswith(_GZIP_MAGIC):
        return False
    if len(head) < _HEADER.size:
        return True
    (length_crc,) = _FOOTER.unpack_from(head, 8)
    return masked_crc32c(head[:8]) != length_crc


def _resolve(path: str, compression: str) -> str:
    if compression == "AUTO":
        return "GZIP" if _looks_gzip(path) else "NONE"
    return compression


def _open(path: str, compression: str) -> BinaryIO:
    if compression == "GZIP":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


_CHUNK = 1 << 22  # bytes read at a time
#: largest single read: a record's length comes from the file itself, so a corrupt length
#: (unchecked with ``verify=False``) must not turn into one giant allocation
_MAX_READ = 1 << 26


def read_tfrecord_file(
    path: str | os.PathLike, *, compression: Compression = "auto", verify: bool = True
) -> Iterator[bytes]:
    """Yield the records of one TFRecord file (see :func:`read_tfrecord`).

    The file is read in 4 MiB chunks and records are cut out of the chunk buffer, so the
    per-record cost is two ``struct`` unpacks, two CRCs and one slice.
    """
    path = os.fspath(path)
    comp = _check_compression(compression)
    crc = _default_backend() if verify else None
    header_size = _HEADER.size
    comp = _resolve(path, comp)
    hint = "pass compression='GZIP' for gzip files" if comp == "NONE" else "read as GZIP"
    with _open(path, comp) as f:
        buf = b""
        pos = 0
        index = 0
        eof = False

        def fill(need: int) -> None:
            nonlocal buf, pos, eof
            parts = [buf[pos:]]
            have = len(parts[0])
            while have < need and not eof:
                try:
                    chunk = f.read(min(max(_CHUNK, need - have), _MAX_READ))
                except (EOFError, OSError, zlib.error) as err:
                    raise TFRecordError(
                        f"{path}: record {index}: cannot read ({type(err).__name__}: {err}); "
                        "the file is truncated or not valid GZIP"
                    ) from err
                if not chunk:
                    eof = True
                    break
                parts.append(chunk)
                have += len(chunk)
            buf = b"".join(parts)
            pos = 0

        while True:
            if len(buf) - pos < header_size:
                fill(header_size)
                if len(buf) == 0:
                    return
                if len(buf) < header_size:
                    raise TFRecordError(
                        f"{path}: record {index}: truncated header "
                        f"(expected {header_size} bytes, got {len(buf)})"
                    )
            length, length_crc = _HEADER.unpack_from(buf, pos)
            if verify and _mask(crc(buf[pos : pos + 8])) != length_crc:
                raise TFRecordError(
                    f"{path}: record {index}: length CRC mismatch (corrupt file, or not a "
                    f"TFRecord file; {hint})"
                )
            total = header_size + length + _FOOTER.size
            if len(buf) - pos < total:
                fill(total)
                if len(buf) < total:
                    raise TFRecordError(
                        f"{path}: record {index}: truncated data (expected "
                        f"{length + _FOOTER.size} bytes, got {len(buf) - header_size})"
                    )
            start = pos + header_size
            data = buf[start : start + length]
            if verify:
                (data_crc,) = _FOOTER.unpack_from(buf, start + length)
                if _mask(crc(data)) != data_crc:
                    raise TFRecordError(f"{path}: record {index}: data CRC mismatch (corrupt)")
            pos += total
            yield data
            index += 1


def _mask(c: int) -> int:
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def read_tfrecord(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    compression: Compression = "auto",
    verify: bool = True,
    num_replicas: int = 1,
    replica_id: int = 0,
) -> Iterator[bytes]:
    """Stream the records of one or several TFRecord files, in order.

    Args:
      paths: a path or a sequence of paths.
      compression: ``"auto"`` (detect gzip by its magic bytes), ``"GZIP"`` or ``None``.
      verify: check both masked CRC-32C of every record (default).
      num_replicas, replica_id: read only files ``replica_id::num_replicas`` so each replica
        of a data-parallel job reads its own part (like TF's per-replica input contexts).

    Raises:
      TFRecordError: a corrupt or truncated record (message names file and record number).

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for i in range(2):
    ...     _ = write_tfrecord(os.path.join(d, f"part-{i}.tfrecord.gz"), [bytes([i])],
    ...                        compression="GZIP")
    >>> list(read_tfrecord(sorted(os.path.join(d, n) for n in os.listdir(d))))
    [b'\\x00', b'\\x01']
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    from arraygnn.pipeline.batching import shard

    for path in shard(paths, num_replicas=num_replicas, replica_id=replica_id):
        yield from read_tfrecord_file(path, compression=compression, verify=verify)


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


class TFRecordWriter:
    """Write records to a TFRecord file (plain or ``compression="GZIP"``).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.tfrecord")
    >>> with TFRecordWriter(path) as w:
    ...     w.write(b"hello")
    >>> list(read_tfrecord(path))
    [b'hello']
    """

    def __init__(self, path: str | os.PathLike, compression: Compression = None) -> None:
        comp = _check_compression(compression)
        if comp == "AUTO":
            raise ValueError("TFRecordWriter: compression must be 'GZIP' or None, not 'auto'")
        self.path = os.fspath(path)
        self._file: BinaryIO = (
            gzip.open(self.path, "wb") if comp == "GZIP" else open(self.path, "wb")  # type: ignore[assignment]
        )
        self._crc = _default_backend()
        self.num_records = 0

    def write(self, record: bytes) -> None:
        """Append one record (``bytes``-like)."""
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(
                f"TFRecordWriter.write: record {self.num_records} must be bytes, "
                f"got {type(record).__name__}"
            )
        record = bytes(record)
        length = struct.pack("<Q", len(record))
        buf = io.BytesIO()
        buf.write(length)
        buf.write(_FOOTER.pack(_mask(self._crc(length))))
        buf.write(record)
        buf.write(_FOOTER.pack(_mask(self._crc(record))))
        self._file.write(buf.getvalue())
        self.num_records += 1

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_tfrecord(
    path: str | os.PathLike, records: Iterable[bytes], *, compression: Compression = None
) -> int:
    """Write ``records`` to a new TFRecord file; returns the number written."""
    with TFRecordWriter(path, compression=compression) as w:
        for r in records:
            w.write(r)
        return w.num_records
