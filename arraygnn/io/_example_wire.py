"""The ``tf.train.Example`` protobuf wire format, encoded and decoded by hand.

Only the six messages an Example uses are needed, so no protobuf dependency::

    Example   { Features features = 1; }
    Features  { map<string, Feature> feature = 1; }   // entry: key = 1, value = 2
    Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
                             Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }
    FloatList { repeated float value = 1 [packed = true]; }
    Int64List { repeated int64 value = 1 [packed = true]; }

Decoding follows protobuf's rules: unknown fields are skipped, packed and unpacked repeated
scalars are both accepted, a repeated embedded message field merges, the last ``kind`` wins.
Values come back as NumPy arrays: ``int64``, ``float32`` or ``object`` (of ``bytes``).
A feature with no kind set comes back as :data:`EMPTY` (an empty array of dtype ``V0``),
which callers may read as any dtype.

>>> blob = encode_example({"a": np.array([1, -2]), "b": np.array([0.5], np.float32),
...                        "c": [b"x"]})
>>> sorted((k, v.tolist()) for k, v in decode_example(blob).items())
[('a', [1, -2]), ('b', [0.5]), ('c', [b'x'])]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["EMPTY", "ExampleDecodeError", "decode_example", "encode_example"]

EMPTY = np.zeros(0, dtype="V0")
EMPTY.setflags(write=False)

_WT_VARINT, _WT_I64, _WT_LEN, _WT_I32 = 0, 1, 2, 5
_MASK64 = (1 << 64) - 1


class ExampleDecodeError(ValueError):
    """Bytes that are not a valid serialized ``tf.train.Example``."""


# ---------------------------------------------------------------------------------------------
# varints
# ---------------------------------------------------------------------------------------------


def _read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    if pos < end and buf[pos] < 0x80:
        return buf[pos], pos + 1
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise ExampleDecodeError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ExampleDecodeError("varint longer than 10 bytes")


def _encode_varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _decode_packed_varints(buf: bytes, start: int, end: int) -> np.ndarray:
    """Packed varints in ``buf[start:end]`` as int64.

    Small runs in Python, runs of one-byte varints (values 0..127) with one NumPy cast, the
    rest with a Numba kernel compiled on first use.
    """
    n = end - start
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n <= 8:
        out = []
        pos = start
        while pos < end:
            v, pos = _read_varint(buf, pos, end)
            v &= _MASK64  # protobuf keeps the low 64 bits of a 10-byte varint
            out.append(v - (1 << 64) if v >= (1 << 63) else v)
        return np.array(out, dtype=np.int64)
    b = np.frombuffer(buf, dtype=np.uint8, count=n, offset=start)
    if b.max() < 0x80:
        return b.astype(np.int64)
    from arraygnn.io._wire_kernels import decode_varints

    out = np.empty(n, dtype=np.int64)
    count = decode_varints(b, out)
    if count == -1:
        raise ExampleDecodeError("truncated varint in packed int64 list")
    if count == -2:
        raise ExampleDecodeError("varint longer than 10 bytes in packed int64 list")
    return out[:count]


def _encode_packed_varints(values: np.ndarray) -> bytes:
    v = np.ascontiguousarray(values, dtype=np.int64).view(np.uint64).ravel()
    if v.size == 0:
        return b""
    shifts = np.arange(10, dtype=np.uint64) * np.uint64(7)
    groups = (v[:, None] >> shifts[None, :]) & np.uint64(0x7F)
    nbytes = 1 + np.count_nonzero((v[:, None] >> shifts[None, 1:]) != 0, axis=1)
    k = np.arange(10)[None, :]
    groups = groups.astype(np.uint8)
    groups[k < (nbytes[:, None] - 1)] |= 0x80
    return groups[k < nbytes[:, None]].tobytes()


# ---------------------------------------------------------------------------------------------
# decoding
# ---------------------------------------------------------------------------------------------


def _skip(buf: bytes, pos: int, end: int, wire_type: int) -> int:
    if wire_type == _WT_VARINT:
        return _read_varint(buf, pos, end)[1]
    if wire_type == _WT_I64:
        pos += 8
    elif wire_type == _WT_I32:
        pos += 4
    elif wire_type == _WT_LEN:
        n, pos = _read_varint(buf, pos, end)
        pos += n
    else:
        raise ExampleDecodeError(f"unsupported wire type {wire_type}")
    if pos > end:
        raise ExampleDecodeError("truncated field")
    return pos


def _fields(buf: bytes, pos: int, end: int):
    """Yield (field_number, wire_type, value_start, value_end_or_varint, next_pos)."""
    while pos < end:
        tag, pos = _read_varint(buf, pos, end)
        field, wt = tag >> 3, tag & 7
        if field == 0:
            raise ExampleDecodeError("field number 0")
        if wt == _WT_LEN:
            n, start = _read_varint(buf, pos, end)
            stop = start + n
            if stop > end:
                raise ExampleDecodeError("truncated length-delimited field")
            yield field, wt, start, stop
            pos = stop
        elif wt == _WT_VARINT:
            v, pos2 = _read_varint(buf, pos, end)
            yield field, wt, pos, v
            pos = pos2
        else:
            start = pos
            pos = _skip(buf, pos, end, wt)
            yield field, wt, start, pos


def _decode_bytes_list(buf: bytes, start: int, end: int) -> np.ndarray:
    values = [buf[s:e] for f, wt, s, e in _fields(buf, start, end) if f == 1 and wt == _WT_LEN]
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _decode_float_list(buf: bytes, start: int, end: int) -> np.ndarray:
    chunks: list[np.ndarray] = []
    for f, wt, s, e in _fields(buf, start, end):
        if f != 1:
            continue
        if wt == _WT_LEN:
            if (e - s) % 4:
                raise ExampleDecodeError("packed float list length is not a multiple of 4")
            chunks.append(np.frombuffer(buf, dtype="<f4", count=(e - s) // 4, offset=s))
        elif wt == _WT_I32:
            chunks.append(np.frombuffer(buf, dtype="<f4", count=1, offset=s))
        else:
            raise ExampleDecodeError(f"float list value with wire type {wt}")
    if not chunks:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate(chunks).astype(np.float32, copy=False)


def _decode_int64_list(buf: bytes, start: int, end: int) -> np.ndarray:
    chunks: list[np.ndarray] = []
    singles: list[int] = []
    for f, wt, s, e in _fields(buf, start, end):
        if f != 1:
            continue
        if wt == _WT_LEN:
            if singles:
                chunks.append(np.array(singles, dtype=np.uint64).view(np.int64))
                singles = []
            chunks.append(_decode_packed_varints(buf, s, e))
        elif wt == _WT_VARINT:
            singles.append(e & _MASK64)
        else:
            raise ExampleDecodeError(f"int64 list value with wire type {wt}")
    if singles:
        chunks.append(np.array(singles, dtype=np.uint64).view(np.int64))
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(chunks) if len(chunks) > 1 else chunks[0]


_LIST_DECODERS = {1: _decode_bytes_list, 2: _decode_float_list, 3: _decode_int64_list}


def _decode_feature(buf: bytes, start: int, end: int) -> np.ndarray:
    if start < end and buf[start] in (0x12, 0x1A):
        # Fast path for what writers emit: one FloatList / Int64List field holding one packed
        # run (``kind len 0x0a len payload``); anything else takes the general path.
        kind = buf[start] >> 3
        n, p = _read_varint(buf, start + 1, end)
        if p + n == end:
            if n == 0:
                return np.zeros(0, dtype=np.float32 if kind == 2 else np.int64)
            if buf[p] == 0x0A:
                m, q = _read_varint(buf, p + 1, end)
                if q + m == end:
                    if kind == 3:
                        return _decode_packed_varints(buf, q, end)
                    if m % 4 == 0:
                        return np.frombuffer(buf, dtype="<f4", count=m // 4, offset=q)
    # the general path: a list given twice merges (protobuf merges a repeated embedded
    # message), another kind replaces it (the last member of a oneof wins)
    value, kind = EMPTY, 0
    for f, wt, s, e in _fields(buf, start, end):
        if wt == _WT_LEN and f in _LIST_DECODERS:
            part = _LIST_DECODERS[f](buf, s, e)
            value = np.concatenate([value, part]) if f == kind else part
            kind = f
    return value


def _decode_entry(buf: bytes, s: int, e: int, out: dict[str, np.ndarray]) -> None:
    """One ``map<string, Feature>`` entry in ``buf[s:e]`` into ``out``."""
    # fast path: key (field 1) then value (field 2), each present once
    if s < e and buf[s] == 0x0A:
        kn, kp = _read_varint(buf, s + 1, e)
        ke = kp + kn
        if ke < e and buf[ke] == 0x12:
            vn, vp = _read_varint(buf, ke + 1, e)
            if vp + vn == e:
                out[_key(buf, kp, ke)] = _decode_feature(buf, vp, e)
                return
    key = ""
    values: list[bytes] = []
    for f, wt, s3, e3 in _fields(buf, s, e):
        if wt != _WT_LEN:
            continue
        if f == 1:
            key = _key(buf, s3, e3)
        elif f == 2:
            values.append(buf[s3:e3])
    # a value given twice merges: parsing the concatenated messages is protobuf's merge
    joined = b"".join(values)
    out[key] = _decode_feature(joined, 0, len(joined)) if values else EMPTY


def _key(buf: bytes, s: int, e: int) -> str:
    try:
        return buf[s:e].decode("utf-8")
    except UnicodeDecodeError as err:
        raise ExampleDecodeError("feature name is not valid UTF-8") from err


def decode_example(serialized: bytes) -> dict[str, np.ndarray]:
    """Decode a serialized ``tf.train.Example`` into ``{feature name: array}``.

    Raises :class:`ExampleDecodeError` (a ``ValueError``) for malformed bytes.
    """
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(f"serialized example must be bytes, got {type(serialized).__name__}")
    buf = bytes(serialized)
    out: dict[str, np.ndarray] = {}
    for f, wt, s, e in _fields(buf, 0, len(buf)):
        if f != 1 or wt != _WT_LEN:
            continue
        pos = s
        while pos < e:  # Features: repeated entries (field 1), inlined for speed
            if buf[pos] == 0x0A:
                n, p = _read_varint(buf, pos + 1, e)
                stop = p + n
                if stop > e:
                    raise ExampleDecodeError("truncated length-delimited field")
                _decode_entry(buf, p, stop, out)
                pos = stop
                continue
            tag, p = _read_varint(buf, pos, e)
            if tag >> 3 == 0:
                raise ExampleDecodeError("field number 0")
            pos = _skip(buf, p, e, tag & 7)
    return out


# ---------------------------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------------------------


def _len_field(field: int, payload: bytes) -> bytes:
    return _encode_varint((field << 3) | _WT_LEN) + _encode_varint(len(payload)) + payload


def as_bytes(v: Any, key: str) -> bytes:
    """One BytesList item: bytes as they are, ``str`` as UTF-8; anything else (an int in an
    object array, None) is a ``TypeError`` naming the feature, never ``bytes(3)``."""
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytearray, memoryview, np.bytes_)):
        return bytes(v)
    raise TypeError(f"feature {key!r}: bytes list value must be bytes or str, got {type(v)!r}")


def encode_feature(key: str, values: Any) -> bytes:
    """Serialized ``Feature`` message for one flat value list (see :func:`encode_example`)."""
    if isinstance(values, (list, tuple)) and values and isinstance(values[0], (bytes, str)):
        kind = 1
    else:
        arr = np.asarray(values)
        if arr.dtype.kind in "SUO":
            kind = 1
            values = arr.ravel().tolist()
        elif arr.dtype.kind in "biu":
            kind = 3
            # uint64 goes as the int64 with the same bits (TF-GNN's encoding; parsed back
            # by a uint64 spec)
            values = arr.view(np.int64) if arr.dtype == np.uint64 else arr
        elif arr.dtype.kind == "f":
            kind = 2
            values = arr
        else:
            raise TypeError(f"feature {key!r}: cannot encode dtype {arr.dtype} in a tf.Example")
    if kind == 1:
        payload = b"".join(_len_field(1, as_bytes(v, key)) for v in values)
    elif kind == 2:
        flat = np.ascontiguousarray(np.asarray(values).ravel(), dtype="<f4")
        payload = _len_field(1, flat.tobytes()) if flat.size else b""
    else:
        flat = np.asarray(values).ravel()
        payload = _len_field(1, _encode_packed_varints(flat.astype(np.int64))) if flat.size else b""
    return _len_field(kind, payload)


def encode_example(features: Mapping[str, Any]) -> bytes:
    """Serialize ``{name: values}`` as a ``tf.train.Example``.

    Integer and bool arrays become ``Int64List``; floating arrays ``FloatList`` (float64 is
    rounded to float32, as TensorFlow does); ``bytes`` / ``str`` sequences and string or object
    arrays ``BytesList`` (``str`` encoded as UTF-8). Arrays are flattened in C order.
    """
    parts = []
    for key, values in features.items():
        if not isinstance(key, str):
            raise TypeError(f"feature names must be str, got {type(key).__name__}")
        entry = _len_field(1, key.encode("utf-8")) + _len_field(2, encode_feature(key, values))
        parts.append(_len_field(1, entry))
    return _len_field(1, b"".join(parts))
