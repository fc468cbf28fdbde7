"""TFRecord framing, CRC-32C and the hand-written tf.Example wire codec."""

import gzip
import os
import struct

import numpy as np
import pytest

from arraygnn.io import tfrecord as tfr
from arraygnn.io._example_wire import (
    EMPTY,
    ExampleDecodeError,
    decode_example,
    encode_example,
)

RECORDS = [b"", b"a", b"0123456", b"01234567", b"012345678", bytes(range(256)) * 5]


def test_crc32c_known_values_and_backends_agree():
    # RFC 3720 test vectors.
    assert tfr.crc32c(b"123456789", backend="python") == 0xE3069283
    assert tfr.crc32c(bytes(32), backend="python") == 0x8A9136AA
    assert tfr.crc32c(b"\xff" * 32, backend="python") == 0x62A8AB43
    rng = np.random.default_rng(0)
    for n in [0, 1, 7, 8, 9, 15, 16, 17, 100, 1001]:
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        ref = tfr.crc32c(data, backend="python")
        assert tfr.crc32c(data, backend="numba") == ref
        assert tfr.crc32c(data) == ref
    with pytest.raises(ValueError, match="unknown backend"):
        tfr.crc32c(b"", backend="nope")


def test_record_framing_by_hand(tmp_path):
    path = tmp_path / "one.tfrecord"
    tfr.write_tfrecord(path, [b"hello"])
    raw = path.read_bytes()
    length = struct.pack("<Q", 5)
    assert raw[:8] == length
    assert struct.unpack("<I", raw[8:12])[0] == tfr.masked_crc32c(length, backend="python")
    assert raw[12:17] == b"hello"
    assert struct.unpack("<I", raw[17:21])[0] == tfr.masked_crc32c(b"hello", backend="python")
    assert len(raw) == 21


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_round_trip(tmp_path, compression):
    path = tmp_path / "data.tfrecord"
    assert tfr.write_tfrecord(path, RECORDS, compression=compression) == len(RECORDS)
    assert list(tfr.read_tfrecord(path)) == RECORDS  # auto-detects gzip
    assert list(tfr.read_tfrecord(str(path), compression=compression)) == RECORDS


def test_empty_file_and_several_files_and_sharding(tmp_path):
    empty = tmp_path / "empty.tfrecord"
    tfr.write_tfrecord(empty, [])
    assert list(tfr.read_tfrecord(empty)) == []
    paths = []
    for i in range(5):
        p = tmp_path / f"part-{i}.tfrecord"
        tfr.write_tfrecord(p, [bytes([i]), bytes([i, i])])
        paths.append(p)
    assert list(tfr.read_tfrecord(paths)) == [
        r for i in range(5) for r in (bytes([i]), bytes([i, i]))
    ]
    got = [list(tfr.read_tfrecord(paths, num_replicas=2, replica_id=k)) for k in range(2)]
    assert got[0] == [b"\x00", b"\x00\x00", b"\x02", b"\x02\x02", b"\x04", b"\x04\x04"]
    assert got[1] == [b"\x01", b"\x01\x01", b"\x03", b"\x03\x03"]
    with pytest.raises(ValueError, match="replica_id"):
        list(tfr.read_tfrecord(paths, num_replicas=2, replica_id=2))


def _write_raw(tmp_path, name, raw):
    p = tmp_path / name
    p.write_bytes(raw)
    return str(p)


def test_corrupt_data_crc_names_file_and_record(tmp_path):
    path = tmp_path / "bad.tfrecord"
    tfr.write_tfrecord(path, [b"first", b"second", b"third"])
    raw = bytearray(path.read_bytes())
    # flip one byte in the data of record 1 (offset: record 0 is 12 + 5 + 4 = 21 bytes)
    raw[21 + 12 + 2] ^= 0x01
    bad = _write_raw(tmp_path, "bad2.tfrecord", bytes(raw))
    it = tfr.read_tfrecord(bad)
    assert next(it) == b"first"
    with pytest.raises(tfr.TFRecordError, match=r"bad2\.tfrecord: record 1: data CRC"):
        next(it)
    # without verification the garbage goes through (the user asked for it)
    assert len(list(tfr.read_tfrecord(bad, verify=False))) == 3


def test_corrupt_length_crc(tmp_path):
    path = tmp_path / "x.tfrecord"
    tfr.write_tfrecord(path, [b"abc"])
    raw = bytearray(path.read_bytes())
    raw[9] ^= 0xFF
    bad = _write_raw(tmp_path, "len.tfrecord", bytes(raw))
    with pytest.raises(tfr.TFRecordError, match=r"len\.tfrecord: record 0: length CRC"):
        list(tfr.read_tfrecord(bad))


@pytest.mark.parametrize("cut", [1, 4, 8, 11, 12, 13, 16])
def test_truncated_file(tmp_path, cut):
    path = tmp_path / "t.tfrecord"
    tfr.write_tfrecord(path, [b"first", b"second"])
    raw = path.read_bytes()
    bad = _write_raw(tmp_path, "trunc.tfrecord", raw[: 21 + cut])
    it = tfr.read_tfrecord(bad)
    assert next(it) == b"first"
    with pytest.raises(tfr.TFRecordError, match=r"trunc\.tfrecord: record 1: truncated"):
        next(it)


def test_truncated_gzip(tmp_path):
    path = tmp_path / "g.tfrecord.gz"
    tfr.write_tfrecord(path, [os.urandom(2000) for _ in range(5)], compression="GZIP")
    raw = path.read_bytes()
    bad = _write_raw(tmp_path, "gcut.tfrecord.gz", raw[: len(raw) // 2])
    with pytest.raises(tfr.TFRecordError, match=r"gcut\.tfrecord\.gz: record \d"):
        list(tfr.read_tfrecord(bad, compression="GZIP"))


def test_gzip_written_by_python_gzip_is_read(tmp_path):
    plain = tmp_path / "p.tfrecord"
    tfr.write_tfrecord(plain, RECORDS)
    gz = tmp_path / "p.tfrecord.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    assert list(tfr.read_tfrecord(gz)) == RECORDS


def test_writer_rejects_non_bytes(tmp_path):
    with tfr.TFRecordWriter(tmp_path / "w.tfrecord") as w:
        with pytest.raises(TypeError, match="record 0 must be bytes"):
            w.write("text")
    with pytest.raises(ValueError, match="compression"):
        tfr.TFRecordWriter(tmp_path / "w2.tfrecord", compression="zip")


def test_cross_check_with_tfrecord_package(tmp_path):
    pytest.importorskip("tfrecord")
    from tfrecord import reader, writer
    from tfrecord.example_pb2 import Example

    # Files written by us, read by the tfrecord package.
    path = tmp_path / "ours.tfrecord"
    tfr.write_tfrecord(path, RECORDS)
    theirs = [bytes(r) for r in reader.tfrecord_iterator(str(path))]
    assert theirs == RECORDS
    # Files written by the tfrecord package, read by us.
    path2 = str(tmp_path / "theirs.tfrecord")
    w = writer.TFRecordWriter(path2)
    w.write({"x": (np.array([1, 2, 3]), "int"), "y": ([b"ab", b"c"], "byte")})
    w.write({"x": (np.array([7]), "int"), "y": ([b""], "byte")})
    w.close()
    recs = list(tfr.read_tfrecord(path2))
    assert len(recs) == 2
    first = decode_example(recs[0])
    assert first["x"].tolist() == [1, 2, 3]
    assert first["y"].tolist() == [b"ab", b"c"]
    # Our Example bytes parse with real protobuf.
    blob = encode_example({"f": np.array([0.25, -1.5], np.float32), "i": np.array([-5])})
    ex = Example()
    ex.ParseFromString(blob)
    assert list(ex.features.feature["f"].float_list.value) == [0.25, -1.5]
    assert list(ex.features.feature["i"].int64_list.value) == [-5]


# ------------------------------------------------------------------------------------------
# wire codec on hand-made bytes
# ------------------------------------------------------------------------------------------


def _ld(field, payload):
    """Length-delimited field by hand (payload shorter than 128 bytes)."""
    assert len(payload) < 128
    return bytes([(field << 3) | 2, len(payload)]) + payload


def test_decode_hand_made_example():
    # int64_list packed [1, 300, -1]: 300 = 0xAC 0x02, -1 = ten bytes
    packed = b"\x01\xac\x02" + b"\xff" * 9 + b"\x01"
    int_feature = _ld(3, _ld(1, packed))
    # float_list UNpacked: two fixed32 fields (wire type 5)
    floats = b"\x0d" + struct.pack("<f", 1.5) + b"\x0d" + struct.pack("<f", -2.0)
    float_feature = _ld(2, floats)
    bytes_feature = _ld(1, _ld(1, b"ab") + _ld(1, b""))
    # int64_list unpacked: varints with tag 0x08
    unpacked = _ld(3, b"\x08\x05\x08\x07")
    empty_feature = b""  # Feature with no kind
    entries = [
        ("nodes/a.#size", int_feature),
        ("f", float_feature),
        ("s", bytes_feature),
        ("u", unpacked),
        ("e", empty_feature),
    ]
    features = b"".join(_ld(1, _ld(1, k.encode()) + _ld(2, v)) for k, v in entries)
    # an unknown field 7 (varint) in the Example is skipped
    blob = _ld(1, features) + b"\x38\x01"
    got = decode_example(blob)
    assert got["nodes/a.#size"].tolist() == [1, 300, -1]
    assert got["f"].dtype == np.float32 and got["f"].tolist() == [1.5, -2.0]
    assert got["s"].tolist() == [b"ab", b""]
    assert got["u"].tolist() == [5, 7]
    assert got["e"].size == 0 and got["e"].dtype == EMPTY.dtype


def test_long_packed_varints_vectorised_path():
    rng = np.random.default_rng(1)
    vals = np.concatenate(
        [
            rng.integers(-(2**63), 2**63 - 1, 500, dtype=np.int64),
            rng.integers(0, 200, 500),
            np.array([0, -1, 2**63 - 1, -(2**63), 127, 128, 16383, 16384]),
        ]
    )
    got = decode_example(encode_example({"v": vals}))["v"]
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, vals)


@pytest.mark.parametrize(
    "blob",
    [
        b"\x0a\x05\x0a\x03",  # length beyond the end
        b"\x0a",  # truncated varint
        b"\x0a\x02\x0a\xff",  # truncated nested
        b"\x0b\x00",  # wire type 3 (groups) unsupported
    ],
)
def test_malformed_example_raises(blob):
    with pytest.raises(ExampleDecodeError):
        decode_example(blob)


def test_encode_rejects_bad_input():
    with pytest.raises(TypeError, match="feature 'c'"):
        encode_example({"c": np.array([1 + 2j])})
    with pytest.raises(TypeError, match="must be bytes"):
        decode_example("not bytes")


@pytest.mark.parametrize(
    "packed, match",
    [
        (b"\x01" * 8 + b"\x81", "truncated varint"),  # Numba path (> 8 bytes)
        (b"\x81", "truncated varint"),  # Python path
        (b"\xff" * 11 + b"\x01", "longer than 10 bytes"),
    ],
)
def test_bad_packed_varints(packed, match):
    feature = bytes([0x1A, len(packed) + 2, 0x0A, len(packed)]) + packed
    entry = bytes([0x0A, 1]) + b"k" + bytes([0x12, len(feature)]) + feature
    blob = bytes([0x0A, len(entry) + 2, 0x0A, len(entry)]) + entry
    with pytest.raises(ExampleDecodeError, match=match):
        decode_example(blob)


def test_one_byte_varints_fast_path():
    vals = np.arange(128)
    np.testing.assert_array_equal(decode_example(encode_example({"v": vals}))["v"], vals)
