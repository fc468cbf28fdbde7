"""Parity sweep: TFRecord files and tf.Example parsing against the ``tfrecord`` package and
TF-GNN's rules (tensorflow_gnn/graph/graph_tensor_io.py: ``get_io_spec`` parses ``#size``
as ``FixedLenFeature([1], default 0)``, context features as ``FixedLenFeature`` without a
default, everything else as ``tf.io.RaggedFeature``, where an absent key is an empty list;
tensorflow_gnn/runner/input/datasets.py: files are sharded with ``Dataset.shard``)."""

import gzip
import struct

import numpy as np
import pytest

from arraygnn.io import tfrecord as tfr
from arraygnn.io._example_wire import decode_example, encode_example
from arraygnn.io.example import parse_example, parse_single_example
from arraygnn.io.schema import create_graph_spec_from_schema_pb, parse_schema
from arraygnn.pipeline import per_replica_batch_size, shard, shard_dataset

tfrecord = pytest.importorskip("tfrecord")
from tfrecord import reader  # noqa: E402
from tfrecord.example_pb2 import Example  # noqa: E402
from tfrecord.tools import tfrecord2idx  # noqa: E402
from tfrecord.writer import TFRecordWriter as TheirWriter  # noqa: E402

BIG = 70_000  # > 64 KiB


# -- TFRecord framing ---------------------------------------------------------------------------


def test_their_examples_decode_with_every_feature_kind(tmp_path):
    path = str(tmp_path / "theirs.tfrecord")
    w = TheirWriter(path)
    datum = {
        "f": (np.array([0.5, -2.0, 1e-30], np.float32), "float"),
        "i": (np.array([-(2**63), 2**63 - 1, 0]), "int"),
        "b": (["héllo".encode(), b"", b"\x00\xff"], "byte"),
        "long": (np.arange(BIG), "int"),
        "fe": ([], "float"),
        "ie": ([], "int"),
        "be": ([], "byte"),
    }
    w.write(datum)
    w.write({"x": ([b"second"], "byte")})
    w.close()
    recs = list(tfr.read_tfrecord(path))
    assert len(recs) == 2 and len(recs[0]) > 4 * BIG // 4
    got = decode_example(recs[0])
    for k, (v, _) in datum.items():
        assert np.asarray(got[k]).tolist() == np.asarray(v).tolist(), k
    assert got["f"].dtype == np.float32 and got["i"].dtype == np.int64


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_our_files_read_by_their_reader(tmp_path, compression):
    records = [b"", b"a", bytes(range(256)) * (BIG // 256 + 1), b"\x1f\x8b"]
    path = str(tmp_path / "ours.tfrecord")
    tfr.write_tfrecord(path, records, compression=compression)
    kind = "gzip" if compression else None
    assert [bytes(r) for r in reader.tfrecord_iterator(path, compression_type=kind)] == records
    # tf.Example bytes of every kind, read with their protobuf-based loader
    blob = encode_example(
        {
            "f": np.array([], np.float32),
            "i": np.array([], np.int64),
            "u": np.array(["héllo".encode(), b""], object),
            "L": np.arange(BIG),
        }
    )
    tfr.write_tfrecord(path, [blob, blob], compression=compression)
    (first, _) = list(reader.tfrecord_loader(path, None, compression_type=kind))
    assert first["f"].tolist() == [] and first["i"].tolist() == []
    assert first["u"].tolist() == ["héllo".encode(), b""]
    assert np.array_equal(first["L"], np.arange(BIG))


def test_their_index_file_and_sharded_reads_fit_our_framing(tmp_path):
    records = [b"x" * n for n in (0, 5, BIG, 1)]
    path = str(tmp_path / "d.tfrecord")
    tfr.write_tfrecord(path, records)
    idx = str(tmp_path / "d.tfindex")
    tfrecord2idx.create_index(path, idx)
    table = np.loadtxt(idx, dtype=np.int64)
    lengths = np.array([16 + len(r) for r in records])  # 8 + 4 + data + 4
    assert table[:, 1].tolist() == lengths.tolist()
    assert table[:, 0].tolist() == np.concatenate([[0], np.cumsum(lengths)[:-1]]).tolist()
    for k in range(2):
        got = [bytes(r) for r in reader.tfrecord_iterator(path, idx, shard=(k, 2))]
        assert got == records[2 * k : 2 * k + 2]


@pytest.mark.parametrize("verify", [True, False])
def test_records_crossing_read_chunks(tmp_path, monkeypatch, verify):
    monkeypatch.setattr(tfr, "_CHUNK", 1000)
    rng = np.random.default_rng(0)
    records = [rng.bytes(n) for n in (BIG, 0, 999, 1000, 1001, 3, BIG + 7)]
    path = str(tmp_path / "c.tfrecord")
    tfr.write_tfrecord(path, records)
    assert list(tfr.read_tfrecord(path, verify=verify)) == records
    assert [bytes(r) for r in reader.tfrecord_iterator(path)] == records


def test_masked_crc_rule_matches_their_writer():
    rng = np.random.default_rng(1)
    for n in (0, 1, 8, 12, 100, BIG):
        data = rng.bytes(n)
        theirs = struct.unpack("<I", TheirWriter.masked_crc(data))[0]
        c = tfr.crc32c(data)
        rule = (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
        assert tfr.masked_crc32c(data) == theirs == rule


def test_plain_file_starting_with_the_gzip_magic_is_read_as_plain(tmp_path):
    path = tmp_path / "m.tfrecord"
    tfr.write_tfrecord(path, [b"z" * 0x8B1F])  # length bytes 1f 8b 00 ...
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert [len(r) for r in tfr.read_tfrecord(path)] == [0x8B1F]


def _tfrecord_bytes(tmp_path, records):
    p = tmp_path / "src.tfrecord"
    tfr.write_tfrecord(p, records)
    return p.read_bytes()


@pytest.mark.parametrize(
    "case, match",
    [
        ("gzip_data_crc", r"bad\.gz: record 1: data CRC mismatch"),
        ("gzip_stream", r"bad\.gz: record 0: cannot read"),
        ("gzip_of_text", r"bad\.gz: record 0: length CRC mismatch .*read as GZIP"),
        ("text", r"bad\.gz: record 0: length CRC mismatch .*pass compression='GZIP'"),
        ("huge_length_unverified", r"bad\.gz: record 0: truncated data"),
        ("header_only_last", r"bad\.gz: record 2: truncated data"),
        ("partial_header_last", r"bad\.gz: record 2: truncated header"),
    ],
)
def test_bad_files_raise_naming_file_and_record(tmp_path, case, match):
    raw = _tfrecord_bytes(tmp_path, [b"first", b"second"])
    verify = True
    if case == "gzip_data_crc":
        bad = bytearray(raw)
        bad[21 + 12 + 1] ^= 1
        data = gzip.compress(bytes(bad))
    elif case == "gzip_stream":
        data = bytearray(gzip.compress(raw * 50))
        data[20] ^= 0xFF
    elif case == "gzip_of_text":
        data = gzip.compress(b"hello world, this is text\n")
    elif case == "text":
        data = b"hello world, this is text\n"
    elif case == "huge_length_unverified":
        data, verify = struct.pack("<QI", 1 << 62, 0) + b"abc", False
    elif case == "header_only_last":
        data = raw + raw[:12]
    else:
        data = raw + raw[:5]
    path = tmp_path / "bad.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(tfr.TFRecordError, match=match):
        list(tfr.read_tfrecord(path, verify=verify))


@pytest.mark.parametrize("content", [b"", gzip.compress(b"")])
def test_empty_files_plain_and_gzip(tmp_path, content):
    path = tmp_path / "e.tfrecord"
    path.write_bytes(content)
    assert list(tfr.read_tfrecord(path)) == []
    assert list(tfr.read_tfrecord(path, compression="GZIP")) == []


def test_zlib_is_a_clear_error(tmp_path):
    # TF's TFRecordDataset also takes "ZLIB"; arraygnn reads plain and GZIP files only
    with pytest.raises(ValueError, match="compression must be"):
        list(tfr.read_tfrecord(tmp_path / "x", compression="ZLIB"))


# -- parse_example with a schema spec, records written by the tfrecord package ----------------

SCHEMA = """
context { features { key: "label" value { dtype: DT_INT64 } }
          features { key: "tags" value { dtype: DT_STRING shape { dim { size: -1 } } } } }
node_sets { key: "a" value {
  features { key: "x" value { dtype: DT_FLOAT shape { dim { size: 2 } } } }
  features { key: "toks" value { dtype: DT_INT32 shape { dim { size: -1 } } } }
  features { key: "s" value { dtype: DT_STRING } } } }
node_sets { key: "b" value { features { key: "h" value { dtype: DT_HALF } } } }
edge_sets { key: "ab" value { source: "a" target: "b"
  features { key: "w" value { dtype: DT_FLOAT } } } }
"""


def _example(na, nb, src, tgt, toks_lens, tags, drop=(), extra=None):
    ne = len(src)
    d = {
        "context/label": ([7], "int"),
        "context/tags": ([t.encode() for t in tags], "byte"),
        "context/tags.d1": ([len(tags)], "int"),
        "nodes/a.#size": ([na], "int"),
        "nodes/a.x": (np.arange(2 * na, dtype=np.float32), "float"),
        "nodes/a.toks": (list(range(sum(toks_lens))), "int"),
        "nodes/a.toks.d1": (list(toks_lens), "int"),
        "nodes/a.s": ([f"s{i}é".encode() for i in range(na)], "byte"),
        "nodes/b.#size": ([nb], "int"),
        "nodes/b.h": (np.full(nb, 0.5, np.float32), "float"),
        "edges/ab.#size": ([ne], "int"),
        "edges/ab.#source": (list(src), "int"),
        "edges/ab.#target": (list(tgt), "int"),
        "edges/ab.w": (np.arange(ne, dtype=np.float32), "float"),
    }
    for k in drop:
        del d[k]
    d.update(extra or {})
    return TheirWriter.serialize_tf_example(d)


@pytest.fixture(scope="module")
def spec():
    return create_graph_spec_from_schema_pb(parse_schema(SCHEMA))


@pytest.mark.parametrize("copies", [1, 4])  # short batches and the vectorised scan path
def test_batch_from_their_writer_matches_a_numpy_reference(spec, copies):
    ex = [
        _example(2, 1, [0, 1], [0, 0], [1, 0], ["t", "é"]),
        _example(0, 0, [], [], [], []),
        _example(1, 2, [0], [1], [3], ["u"]),
    ] * copies
    g = parse_example(spec, ex)
    na, nb = np.array([2, 0, 1] * copies), np.array([1, 0, 2] * copies)
    off_a = np.repeat(np.concatenate([[0], np.cumsum(na)[:-1]]), [2, 0, 1] * copies)
    off_b = np.repeat(np.concatenate([[0], np.cumsum(nb)[:-1]]), [2, 0, 1] * copies)
    assert g.num_components == 3 * copies
    assert g.node_sets["a"].sizes.tolist() == na.tolist()
    assert g.edge_sets["ab"].adjacency.source.tolist() == ([0, 1, 0] * copies + off_a).tolist()
    assert g.edge_sets["ab"].adjacency.target.tolist() == ([0, 0, 1] * copies + off_b).tolist()
    assert g.context["label"].tolist() == [7] * 3 * copies
    assert g.context["tags"].row_splits.tolist() == np.cumsum([0] + [2, 0, 1] * copies).tolist()
    assert g.context["tags"].values.tolist() == ["t", "é", "u"] * copies
    toks = g.node_sets["a"]["toks"]
    assert toks.values.dtype == np.int32 and toks.values.tolist() == [0, 0, 1, 2] * copies
    assert toks.row_splits.tolist() == np.cumsum([0] + [1, 0, 3] * copies).tolist()
    assert g.node_sets["b"]["h"].dtype == np.float16
    assert g.node_sets["a"]["x"].shape == (3 * copies, 2)
    assert g.node_sets["a"]["s"].tolist() == ["s0é", "s1é", "s0é"] * copies


def _kind_not_set(serialized, key):
    e = Example()
    e.ParseFromString(serialized)
    e.features.feature[key].Clear()  # present, no list kind: TF reads an empty list
    return e.SerializeToString()


OK_CASES = {
    # RaggedFeature: an absent value key is empty, fine when the row lengths say 0 values
    "absent ragged values, empty rows": dict(toks_lens=[0, 0], drop=["nodes/a.toks"]),
    "absent ragged context values": dict(tags=[], drop=["context/tags"]),
    # FixedLenFeature([1], default 0) for #size
    "absent #size of an empty set": dict(nb=0, src=[], tgt=[], drop=["nodes/b.#size"]),
    "absent keys of an empty edge set": dict(
        src=[], tgt=[], drop=["edges/ab.#size", "edges/ab.#source", "edges/ab.#target"]
    ),
    "unknown key ignored": dict(extra={"zzz": ([1.0], "float")}),
}

ERROR_CASES = {
    "absent ragged values, rows not empty": (
        dict(drop=["nodes/a.toks"]),
        r"example 0: missing key 'nodes/a\.toks' \(2 values",
    ),
    "absent row lengths": (dict(drop=["nodes/a.toks.d1"]), r"nodes/a\.toks\.d1.*row lengths"),
    "absent dense context feature": (dict(drop=["context/label"]), "missing key 'context/label'"),
    "absent #size, features present": (dict(drop=["nodes/b.#size"]), r"'nodes/b\.h' has 1"),
    "#size below the indices": (
        dict(extra={"edges/ab.#size": ([2], "int")}),
        r"'edges/ab\.#source': 1 indices for 2 edges",
    ),
    "index past the node count": (dict(src=[2]), r"'edges/ab\.#source': index out of range"),
    "negative index": (dict(tgt=[-1]), r"'edges/ab\.#target': index out of range"),
    "int32 overflow": (dict(extra={"nodes/a.toks": ([2**40, 0], "int")}), "out of range for int32"),
    "#size as floats": (dict(extra={"nodes/a.#size": ([1.0], "float")}), "holds a float list"),
}


def _case_example(**kw):
    args = dict(na=2, nb=1, src=[0], tgt=[0], toks_lens=[1, 1], tags=["q"])
    args.update(kw)
    return _example(**args)


@pytest.mark.parametrize("name", sorted(OK_CASES))
def test_missing_and_optional_keys_as_tfgnn(spec, name):
    kw = OK_CASES[name]
    g = parse_example(spec, [_case_example(**kw), _case_example()])
    h = parse_single_example(spec, _case_example(**kw))
    assert g.num_components == 2 and h.num_components == 1
    assert g.node_sets["a"]["toks"].row_splits.tolist()[:3] == (
        [0, 0, 0] if "toks_lens" in kw else [0, 1, 2]
    )
    assert g.context["tags"].row_splits.tolist() == ([0, 0, 1] if "tags" in kw else [0, 1, 2])
    assert h.node_sets["b"].sizes.tolist() == [kw.get("nb", 1)]


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_inconsistent_examples_raise_naming_the_key(spec, name):
    kw, match = ERROR_CASES[name]
    with pytest.raises(ValueError, match=match):
        parse_example(spec, [_case_example(**kw)])


def test_kind_not_set_features_are_empty_lists(spec):
    ex = _case_example(toks_lens=[0, 0], drop=["nodes/a.toks"])
    ex = _kind_not_set(ex, "nodes/a.toks")
    for batch in ([ex], [ex] * 4):
        g = parse_example(spec, batch)
        assert g.node_sets["a"]["toks"].values.shape == (0,)


def test_int32_indices_spec_parses_to_int64(spec):
    # documented: specs carry no index dtype (TF-GNN would cast to the spec's int32)
    spec32 = create_graph_spec_from_schema_pb(parse_schema(SCHEMA), indices_dtype=np.int32)
    g = parse_example(spec32, [_case_example()])
    assert g.node_sets["a"].sizes.dtype == np.int64
    assert g.edge_sets["ab"].adjacency.source.dtype == np.int64
    g32 = g.with_indices_dtype(np.int32)
    assert g32.edge_sets["ab"].adjacency.source.dtype == np.int32


# -- sharding as tf.data.Dataset.shard --------------------------------------------------------


@pytest.mark.parametrize("n, num_shards", [(0, 1), (1, 3), (5, 2), (7, 7), (10, 3)])
def test_shard_is_dataset_shard(n, num_shards):
    items = [f"f{i}" for i in range(n)]
    for index in range(num_shards):
        want = [x for i, x in enumerate(items) if i % num_shards == index]  # Dataset.shard
        assert shard(items, num_replicas=num_shards, replica_id=index) == want
        assert shard_dataset(items, num_replicas=num_shards, replica_id=index) == want


@pytest.mark.parametrize(
    "kw", [dict(num_replicas=0), dict(num_replicas=2, replica_id=2), dict(replica_id=-1)]
)
def test_shard_arguments_checked(kw):
    with pytest.raises(ValueError, match="num_replicas|replica_id"):
        shard([1, 2], **kw)


def test_per_replica_batch_size_as_input_context():
    assert per_replica_batch_size(12, 3) == 4
    with pytest.raises(ValueError, match="not divisible"):
        per_replica_batch_size(10, 3)
