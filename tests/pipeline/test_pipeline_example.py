"""GraphTensor <-> tf.Example: TF-GNN keys and encodings, hand-made bytes, errors."""

import struct

import numpy as np
import pytest

gt = pytest.importorskip("arraygnn.graph_tensor")

from _pipeline_graphs import assert_graphs_equal, random_graph  # noqa: E402

from arraygnn.io._example_wire import decode_example, encode_example  # noqa: E402
from arraygnn.io.example import (  # noqa: E402
    example_features,
    get_io_keys,
    parse_example,
    parse_single_example,
    write_example,
)
from arraygnn.io.tfrecord import read_tfrecord, write_tfrecord  # noqa: E402
from arraygnn.pipeline.batching import merge_graphs  # noqa: E402

Adjacency, Context, EdgeSet, GraphTensor, NodeSet = (
    gt.Adjacency,
    gt.Context,
    gt.EdgeSet,
    gt.GraphTensor,
    gt.NodeSet,
)


def _ld(field, payload):
    """Length-delimited field: tag byte, varint length (1 or 2 bytes here), payload."""
    n = len(payload)
    assert n < 128 * 128
    length = bytes([n]) if n < 128 else bytes([(n & 0x7F) | 0x80, n >> 7])
    return bytes([(field << 3) | 2]) + length + payload


def _entry(key, feature):
    return _ld(1, _ld(1, key.encode()) + _ld(2, feature))


def _ints(values):
    out = b""
    for v in values:
        assert 0 <= v < 128
        out += bytes([v])
    return _ld(3, _ld(1, out))


def _floats(values):
    return _ld(2, _ld(1, struct.pack(f"<{len(values)}f", *values)))


def _bytes(values):
    return _ld(1, b"".join(_ld(1, v) for v in values))


def papers_graph():
    return GraphTensor.from_pieces(
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=np.array([3]),
                features={
                    "embedding": np.eye(3, dtype=np.float32),
                    "year": np.array([2018, 2019, 2020], dtype=np.int32),
                },
            ),
            "author": NodeSet.from_fields(
                sizes=np.array([2]), features={"name": np.array(["Kevin", "Leila"])}
            ),
        },
        edge_sets={
            "writes": EdgeSet.from_fields(
                sizes=np.array([3]),
                adjacency=Adjacency.from_indices(
                    source=("author", np.array([0, 1, 1])), target=("paper", np.array([0, 1, 2]))
                ),
            )
        },
    )


def test_hand_made_example_bytes_parse():
    # The bytes TF-GNN writes for papers_graph(), assembled field by field from the spec.
    blob = _ld(
        1,
        _entry("nodes/author.#size", _ints([2]))
        + _entry("nodes/author.name", _bytes([b"Kevin", b"Leila"]))
        + _entry("nodes/paper.#size", _ints([3]))
        + _entry("nodes/paper.embedding", _floats([1, 0, 0, 0, 1, 0, 0, 0, 1]))
        + _entry("nodes/paper.year", _ld(3, _ld(1, b"\xe2\x0f\xe3\x0f\xe4\x0f")))
        + _entry("edges/writes.#size", _ints([3]))
        + _entry("edges/writes.#source", _ints([0, 1, 1]))
        + _entry("edges/writes.#target", _ints([0, 1, 2])),
    )
    expected = papers_graph()
    got = parse_single_example(expected.spec, blob)
    assert_graphs_equal(expected, got)
    # and our writer produces exactly these keys and values
    assert sorted(decode_example(write_example(expected))) == sorted(decode_example(blob))
    for k, v in decode_example(write_example(expected)).items():
        assert v.tolist() == decode_example(blob)[k].tolist(), k


def test_io_keys_follow_tfgnn_naming():
    g = random_graph(np.random.default_rng(0))
    keys = set(get_io_keys(g.spec))
    assert {
        "context/g",
        "nodes/a.#size",
        "nodes/a.x",
        "nodes/a.tokens",
        "nodes/a.tokens.d1",
        "edges/ab.#size",
        "edges/ab.#source",
        "edges/ab.#target",
        "edges/ab.weight",
        "edges/_readout/seed.#source",
    } <= keys
    assert set(decode_example(write_example(g))) == keys


@pytest.mark.parametrize("seed", range(6))
def test_round_trip_random_graphs(seed):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, num_components=int(rng.integers(1, 4)))
    assert_graphs_equal(g, parse_single_example(g.spec, write_example(g)))


def test_empty_node_set_and_empty_edge_sets():
    g = GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([0]), features={"x": np.zeros((0, 4))}),
            "b": NodeSet.from_fields(sizes=np.array([2]), features={"s": np.array(["p", "q"])}),
        },
        edge_sets={
            "ab": EdgeSet.from_fields(
                sizes=np.array([0]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.zeros(0, np.int64)), target=("b", np.zeros(0, np.int64))
                ),
                features={"w": np.zeros(0, np.float32)},
            ),
            "bb": EdgeSet.from_fields(
                sizes=np.array([0]),
                adjacency=Adjacency.from_indices(
                    source=("b", np.zeros(0, np.int64)), target=("b", np.zeros(0, np.int64))
                ),
            ),
        },
    )
    assert_graphs_equal(g, parse_single_example(g.spec, write_example(g)))
    # an example that leaves out every empty feature (and the empty set's keys) also parses
    flat = example_features(g)
    slim = {k: v for k, v in flat.items() if len(v) and not k.startswith("nodes/a.")}
    slim = {k: v for k, v in slim.items() if not k.startswith("edges/")}
    assert_graphs_equal(g, parse_single_example(g.spec, encode_example(slim)))


def test_float64_arrives_rounded_to_float32():
    x = np.array([0.1, 1 / 3, 1e-40, 3e38], dtype=np.float64)
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([4]), features={"x": x})}
    )
    got = parse_single_example(g.spec, write_example(g)).node_sets["n"].features["x"]
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x.astype(np.float32).astype(np.float64))
    assert got[0] != 0.1  # the seed's warning: possibly truncated values


def test_bool_ints_and_strings_dtypes():
    g = GraphTensor.from_pieces(
        node_sets={
            "n": NodeSet.from_fields(
                sizes=np.array([3]),
                features={
                    "flag": np.array([True, False, True]),
                    "i8": np.array([-128, 0, 127], dtype=np.int8),
                    "u16": np.array([0, 1, 65535], dtype=np.uint16),
                    "i64": np.array([-(2**63), 0, 2**63 - 1]),
                    "s": np.array(["", "ü", "xyz"]),
                },
            )
        }
    )
    h = parse_single_example(g.spec, write_example(g))
    assert_graphs_equal(g, h)


def test_several_components_and_context():
    g = random_graph(np.random.default_rng(3), num_components=4)
    h = parse_single_example(g.spec, write_example(g))
    assert h.num_components == 4
    assert_graphs_equal(g, h)


def test_parse_example_merges_like_merge_graphs():
    rng = np.random.default_rng(7)
    graphs = [random_graph(rng, num_components=int(rng.integers(1, 3))) for _ in range(12)]
    spec = graphs[0].spec
    merged = parse_example(spec, [write_example(g) for g in graphs])
    assert_graphs_equal(merge_graphs(graphs), merged)
    empty = parse_example(spec, [])
    assert empty.num_components == 0


def test_prefix_two_graphs_in_one_example():
    rng = np.random.default_rng(11)
    g1, g2 = random_graph(rng), random_graph(rng, num_components=2)
    flat = {**example_features(g1, prefix="query/"), **example_features(g2, prefix="doc/")}
    flat["label"] = np.array([1])
    blob = encode_example(flat)
    assert_graphs_equal(g1, parse_single_example(g1.spec, blob, prefix="query/"))
    assert_graphs_equal(g2, parse_single_example(g2.spec, blob, prefix="doc/"))
    assert_graphs_equal(g1, parse_single_example(g1.spec, write_example(g1, prefix="q/"), "q/"))


def test_files_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    graphs = [random_graph(rng) for _ in range(6)]
    path = tmp_path / "graphs.tfrecord.gz"
    write_tfrecord(path, (write_example(g) for g in graphs), compression="GZIP")
    back = [parse_single_example(graphs[0].spec, r) for r in read_tfrecord(path)]
    for g, h in zip(graphs, back):
        assert_graphs_equal(g, h)


def _flat(g):
    return example_features(g)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda f: f.pop("nodes/paper.year"), r"example 0: missing key 'nodes/paper.year'"),
        (
            lambda f: f.__setitem__("nodes/paper.embedding", np.zeros(8, np.float32)),
            r"'nodes/paper.embedding' has 8 values, expected 9",
        ),
        (
            lambda f: f.__setitem__("edges/writes.#target", np.array([0, 1, 3])),
            r"'edges/writes.#target': index out of range for 3 nodes in node set 'paper'",
        ),
        (
            lambda f: f.__setitem__("nodes/author.#size", np.array([1, 1])),
            r"'#size' features disagree",
        ),
        (
            lambda f: f.__setitem__("nodes/paper.year", np.array([1, 2, 2**40])),
            r"'nodes/paper.year' has values out of range for int32",
        ),
        (
            lambda f: f.__setitem__("nodes/paper.year", np.array([1.0, 2.0, 3.0])),
            r"'nodes/paper.year' holds a float list",
        ),
        (
            lambda f: f.__setitem__("edges/writes.#source", np.array([0, 1])),
            r"'edges/writes.#source': 2 indices for 3 edges",
        ),
    ],
)
@pytest.mark.parametrize("canonical", [True, False])
def test_bad_examples_name_the_key(mutate, match, canonical):
    g = papers_graph()
    flat = _flat(g)
    mutate(flat)
    blob = encode_example(flat) + (b"" if canonical else UNKNOWN_FIELD)
    with pytest.raises(ValueError, match=match):
        parse_single_example(g.spec, blob)
    with pytest.raises(ValueError, match=match.replace("example 0", "example 9")):
        parse_example(g.spec, [write_example(g)] * 9 + [blob])  # >= 8: the Numba scan path


# An unknown varint field (number 7) after the Features: valid protobuf, but not the layout
# writers emit, so parsing takes the general decoder instead of the Numba scan.
UNKNOWN_FIELD = b"\x38\x01"


@pytest.mark.parametrize("seed", range(3))
def test_general_decoder_path_gives_the_same_graph(seed):
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, num_components=int(rng.integers(1, 3))) for _ in range(9)]
    blobs = [write_example(g) + UNKNOWN_FIELD for g in graphs]
    spec = graphs[0].spec
    assert_graphs_equal(graphs[0], parse_single_example(spec, blobs[0]))
    assert_graphs_equal(merge_graphs(graphs), parse_example(spec, blobs))
    # mixing canonical and non-canonical records
    mixed = [write_example(g) for g in graphs]
    mixed[4] = blobs[4]
    assert_graphs_equal(merge_graphs(graphs), parse_example(spec, mixed))


def test_unpacked_and_repeated_keys_parse():
    # #size as an unpacked int64 (tag 0x08) and a key given twice: the last one wins
    g = papers_graph()
    flat = _flat(g)
    blob = encode_example(flat)
    unpacked_size = _entry("nodes/author.#size", _ld(3, b"\x08\x02"))
    dup_year = _entry("nodes/paper.year", _ld(3, _ld(1, b"\x01\x02\x03")))
    patched = _ld(1, _strip(blob) + unpacked_size + dup_year)
    got = parse_single_example(g.spec, patched)
    assert got.node_sets["author"].sizes.tolist() == [2]
    assert got.node_sets["paper"].features["year"].tolist() == [1, 2, 3]


def _strip(blob):
    """The Features payload of a serialized Example written by encode_example."""
    assert blob[0] == 0x0A
    n, shift, pos = 0, 0, 1
    while True:
        b = blob[pos]
        n |= (b & 0x7F) << shift
        pos += 1
        if b < 0x80:
            break
        shift += 7
    assert pos + n == len(blob)
    return blob[pos:]


def test_bad_example_in_batch_names_its_index():
    g = papers_graph()
    flat = _flat(g)
    flat.pop("nodes/author.name")
    with pytest.raises(ValueError, match="example 2: missing key 'nodes/author.name'"):
        parse_example(g.spec, [write_example(g), write_example(g), encode_example(flat)])
    with pytest.raises(TypeError, match="list of serialized"):
        parse_example(g.spec, write_example(g))


def test_ragged_row_lengths_checked():
    g = random_graph(np.random.default_rng(2), empty_ok=False)
    flat = _flat(g)
    flat["nodes/a.tokens.d1"] = flat["nodes/a.tokens.d1"][:-1]
    with pytest.raises(ValueError, match=r"'nodes/a.tokens.d1' has \d+ row lengths for \d+ items"):
        parse_single_example(g.spec, encode_example(flat))


SEED_SCHEMA = """
node_sets {
  key: "paper"
  value {
    features {
      key: "tokenized_title"
      value: { dtype: DT_STRING shape: { dim: { size: -1 } } }  # -1 means ragged.
    }
    features { key: "embedding" value: { dtype: DT_FLOAT shape: { dim: { size: 3 } } } }
    features { key: "year" value: { dtype: DT_INT32 shape: { } } }
  }
}
node_sets {
  key: "author"
  value { features { key: "name" value: { dtype: DT_STRING shape: { } } } }
}
edge_sets { key: "cites" value { source: "paper" target: "paper" } }
edge_sets { key: "writes" value { source: "author" target: "paper" } }
"""


def test_seed_graph_through_schema_spec_and_files(tmp_path):
    schema_mod = pytest.importorskip("arraygnn.io.schema")
    spec = schema_mod.create_graph_spec_from_schema(schema_mod.parse_schema(SEED_SCHEMA))
    graph = GraphTensor.from_pieces(
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=np.array([3]),
                features={
                    "tokenized_title": gt.Ragged.from_list(
                        [
                            ["Anisotropic", "approximation"],
                            ["Better", "bipartite", "bijection", "bounds"],
                            ["Convolutional", "convergence", "criteria"],
                        ]
                    ),
                    "embedding": np.eye(3, dtype=np.float32),
                    "year": np.array([2018, 2019, 2020], dtype=np.int32),
                },
            ),
            "author": NodeSet.from_fields(
                sizes=np.array([4]),
                features={
                    "name": np.array(["Kevin Kernel", "Leila Limit", "Max Minor", "Nora Normal"])
                },
            ),
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=np.array([3]),
                adjacency=Adjacency.from_indices(
                    source=("paper", np.array([1, 2, 2])), target=("paper", np.array([0, 0, 1]))
                ),
            ),
            "writes": EdgeSet.from_fields(
                sizes=np.array([7]),
                adjacency=Adjacency.from_indices(
                    source=("author", np.array([0, 0, 1, 1, 2, 2, 3])),
                    target=("paper", np.array([0, 1, 0, 1, 1, 2, 2])),
                ),
            ),
        },
    )
    assert graph.spec == spec
    path = tmp_path / "data.tfrecord"
    write_tfrecord(path, [write_example(graph)] * 3)
    parsed = [parse_single_example(spec, r) for r in read_tfrecord(path)]
    for p in parsed:
        assert_graphs_equal(graph, p)
        assert p.spec == spec
    merged = parse_example(spec, list(read_tfrecord(path)))
    assert merged.node_sets["paper"].sizes.tolist() == [3, 3, 3]
    assert merged.edge_sets["writes"].adjacency.target.tolist()[7:14] == [3, 4, 3, 4, 4, 5, 5]
    titles = merged.node_sets["paper"].features["tokenized_title"]
    assert titles[4].tolist() == ["Better", "bipartite", "bijection", "bounds"]


def test_scan_table_grows_for_tiny_entries():
    # one-letter keys with empty lists: ~8-byte entries overflow the first table guess
    from arraygnn.io.example import _ScanSource

    names = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    blob = encode_example({k: np.zeros(0, np.int64) for k in names})
    assert len(blob) / len(names) < 16
    src = _ScanSource([blob] * 10)
    assert len(src.table) == 10 * len(names)
    col = src.column("q", np.dtype(np.int64), "int64")
    assert col.present.all() and not col.counts.any()


def _sentences_graph(rng, n):
    """Node feature with two ragged dimensions: sentences of words per node, shape
    (None, None); plus a (None, 2) ragged feature with a fixed inner dimension."""
    n_sent = rng.integers(0, 3, n)
    words = rng.integers(0, 4, int(n_sent.sum()))
    vocab = np.array([f"w{i}" for i in range(int(words.sum()))], dtype=str)
    inner = gt.Ragged.from_row_lengths(vocab, words)
    pts = rng.integers(0, 3, n)
    return GraphTensor.from_pieces(
        node_sets={
            "doc": NodeSet.from_fields(
                sizes=np.array([n]),
                features={
                    "sentences": gt.Ragged.from_row_lengths(inner, n_sent),
                    "points": gt.Ragged.from_row_lengths(
                        rng.standard_normal((int(pts.sum()), 2)).astype(np.float32), pts
                    ),
                },
            )
        }
    )


def test_two_ragged_dimensions_round_trip_and_padding():
    from arraygnn.padding import SizeConstraints, pad_to_total_sizes, remove_padding

    rng = np.random.default_rng(0)
    graphs = [_sentences_graph(rng, int(rng.integers(0, 4))) for _ in range(10)]
    spec = graphs[0].spec
    assert spec.node_sets["doc"].features["sentences"].shape == (None, None)
    keys = set(decode_example(write_example(graphs[1])))
    assert {"nodes/doc.sentences.d1", "nodes/doc.sentences.d2", "nodes/doc.points.d1"} <= keys
    for g in graphs:
        assert_graphs_equal(g, parse_single_example(spec, write_example(g)))
    merged = parse_example(spec, [write_example(g) for g in graphs])  # scan path
    assert_graphs_equal(merge_graphs(graphs), merged)
    total = merged.node_sets["doc"].total_size
    sc = SizeConstraints(12, {"doc": total + 3}, {})
    padded, mask = pad_to_total_sizes(merged, sc)
    sent = padded.node_sets["doc"].features["sentences"]
    assert sent.nrows == total + 3 and all(
        len(sent[i].to_list()) == 0 for i in range(total, total + 3)
    )
    back = remove_padding(padded, mask)
    assert back.node_sets["doc"].features["sentences"].to_list() == (
        merged.node_sets["doc"].features["sentences"].to_list()
    )
    bad = example_features(graphs[1])
    bad["nodes/doc.sentences.d2"] = np.append(bad["nodes/doc.sentences.d2"], 1)
    with pytest.raises(ValueError, match=r"'nodes/doc.sentences.d2' has \d+ row lengths for"):
        parse_single_example(spec, encode_example(bad))


# -- malformed and unusual bytes: both decoder paths agree, nothing reads out of bounds --------

_SCAN = 8  # from this many records parse_example takes the Numba scan path


def _one_node_spec(**features):
    return GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([1]), features=features)}
    ).spec


@pytest.mark.parametrize(
    "length", [b"\x80" * 8 + b"\xc0\x01", b"\xff" * 9 + b"\x01", b"\xff" * 8 + b"\x7f"]
)
def test_huge_length_prefix_is_a_decode_error_on_both_paths(length):
    # a length of 2**63 or more used to turn negative in the scan kernel: the position moved
    # backwards and the process segfaulted (or a record parsed that protobuf rejects)
    spec = _one_node_spec()
    rec = _ld(1, _ld(1, b"\x0a" + length + b"\x12\x00"))
    for n in (1, _SCAN):
        with pytest.raises(ValueError, match="truncated"):
            parse_example(spec, [rec] * n)
    good = write_example(
        GraphTensor.from_pieces(node_sets={"a": NodeSet.from_fields(sizes=np.array([1]))})
    )
    prefixed = b"\x0a" + length + good  # a bogus Features field in front of a valid Example
    for n in (1, _SCAN):
        with pytest.raises(ValueError, match="truncated"):
            parse_example(spec, [prefixed] * n)
    # a BytesList item with such a length
    spec_s = _one_node_spec(s=np.array([b"x"], object))
    bad_item = _entry("nodes/a.#size", _ints([1])) + _entry("nodes/a.s", _ld(1, b"\x0a" + length))
    for n in (1, _SCAN):
        with pytest.raises(ValueError, match="truncated"):
            parse_example(spec_s, [_ld(1, bad_item)] * n)


def test_bytes_the_scan_does_not_take_fall_back_to_the_general_decoder():
    spec = _one_node_spec(s=np.array([b"x"], object))
    # an unknown field inside a BytesList is valid protobuf (skipped)
    body = _entry("nodes/a.#size", _ints([1])) + _entry(
        "nodes/a.s", _ld(1, _ld(1, b"hi") + b"\x10\x05")
    )
    for n in (1, _SCAN):
        got = parse_example(spec, [_ld(1, body)] * n)
        assert got.node_sets["a"].features["s"].tolist() == [b"hi"] * n
    # a packed float list whose length is not a multiple of 4: the same error on both paths
    spec_f = _one_node_spec(x=np.array([1.0], np.float32))
    bad = _entry("nodes/a.#size", _ints([1])) + _entry("nodes/a.x", _ld(2, _ld(1, b"\x00" * 5)))
    for n in (1, _SCAN):
        with pytest.raises(ValueError, match="not a multiple of 4"):
            parse_example(spec_f, [_ld(1, bad)] * n)
    # a feature name that is not UTF-8: rejected on both paths
    odd = _ld(1, _entry("nodes/a.#size", _ints([1])) + _ld(1, _ld(1, b"\xff") + _ld(2, b"")))
    for n in (1, _SCAN):
        with pytest.raises(ValueError, match="not valid UTF-8"):
            parse_example(_one_node_spec(), [odd] * n)


def test_repeated_lists_and_values_merge_like_protobuf():
    twice = _ld(3, _ld(1, b"\x01\x02")) + _ld(3, _ld(1, b"\x03"))
    assert decode_example(_ld(1, _entry("k", twice)))["k"].tolist() == [1, 2, 3]
    strings = _bytes([b"a"]) + _bytes([b"b"])
    assert decode_example(_ld(1, _entry("k", strings)))["k"].tolist() == [b"a", b"b"]
    # another kind replaces (the last member of the oneof wins)
    switched = _ints([1, 2]) + _floats([0.5]) + _ints([7])
    assert decode_example(_ld(1, _entry("k", switched)))["k"].tolist() == [7]
    # a map entry whose value is given twice: the two Feature messages merge
    entry = _ld(1, _ld(1, b"k") + _ld(2, _ints([1])) + _ld(2, _ints([2])))
    assert decode_example(_ld(1, entry))["k"].tolist() == [1, 2]
    pb = pytest.importorskip("tfrecord.example_pb2")
    for blob in (_ld(1, _entry("k", twice)), _ld(1, entry), _ld(1, _entry("k", switched))):
        ref = pb.Example.FromString(blob).features.feature["k"]
        kind = ref.WhichOneof("kind")
        assert decode_example(blob)["k"].tolist() == list(getattr(ref, kind).value)


def test_unpacked_varint_past_64_bits_keeps_the_low_bits():
    # protobuf truncates a 10-byte varint to 64 bits (here -1); it used to raise OverflowError
    blob = _ld(1, _entry("k", _ld(3, b"\x08" + b"\xff" * 9 + b"\x7f")))
    assert decode_example(blob)["k"].tolist() == [-1]
    packed = _ld(1, _entry("k", _ld(3, _ld(1, b"\xff" * 9 + b"\x7f"))))
    assert decode_example(packed)["k"].tolist() == [-1]


def test_object_feature_of_non_strings_is_a_type_error_naming_it():
    g = GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([2]), features={"s": np.array([3, 1], object)})
        }
    )
    with pytest.raises(TypeError, match="feature 'nodes/a.s'"):
        write_example(g)  # used to write bytes(3) = b"\x00\x00\x00"


def test_ragged_feature_with_an_empty_inner_dimension_round_trips():
    for inner in [(0,), (1, 0), (0, 2)]:
        r = gt.Ragged.from_row_lengths(np.zeros((3, *inner), np.float32), np.array([1, 2]))
        g = GraphTensor.from_pieces(
            node_sets={"a": NodeSet.from_fields(sizes=np.array([2]), features={"r": r})}
        )
        for n in (1, _SCAN):
            got = parse_example(g.spec, [write_example(g)] * n).node_sets["a"].features["r"]
            assert got.values.shape == (3 * n, *inner)
            assert np.diff(got.row_splits).tolist() == [1, 2] * n


def test_parsed_features_are_writable_on_both_paths():
    g = papers_graph()
    for n in (1, _SCAN):
        x = parse_example(g.spec, [write_example(g)] * n).node_sets["paper"].features["embedding"]
        assert x.flags.writeable
        x *= 2  # used to raise "output array is read-only" below 8 records


def test_reserved_names_and_colliding_keys_are_errors():
    with pytest.raises(ValueError, match="'#source' is reserved"):
        EdgeSet.from_fields(
            sizes=np.array([1]),
            adjacency=Adjacency.from_indices(
                source=("a", np.array([0])), target=("a", np.array([0]))
            ),
            features={"#source": np.array([70])},
        )
    g = GraphTensor.from_pieces(
        node_sets={
            "a.b": NodeSet.from_fields(sizes=np.array([1]), features={"c": np.array([1])}),
            "a": NodeSet.from_fields(sizes=np.array([1]), features={"b.c": np.array([2])}),
        }
    )
    with pytest.raises(ValueError, match="same tf.Example key 'nodes/a.b.c'"):
        write_example(g)  # one feature used to overwrite the other


def test_specs_and_inputs_that_are_not_graphs_are_refused():
    """Any object was read as a spec with no node sets (an empty graph came back)."""
    g = random_graph(np.random.default_rng(3))
    blob = write_example(g)
    for bad in (None, 3, "spec", {}, g.spec.node_sets):
        with pytest.raises(TypeError, match="spec must be a graph spec"):
            parse_single_example(bad, blob)
        with pytest.raises(TypeError, match="spec must be a graph spec"):
            parse_example(bad, [blob])
    with pytest.raises(TypeError, match="list of serialized examples"):
        parse_example(g.spec, None)
    with pytest.raises(TypeError, match="write_example needs a GraphTensor, got NoneType"):
        write_example(None)


def test_string_features_without_values_are_written_as_bytes_lists():
    # an empty string feature went out as an empty FloatList: TF's parser refuses it
    # ("Data types don't match. Expected type: string, Actual type: float")
    from arraygnn.graph_tensor import Ragged

    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"t": Ragged.from_list([[]], dtype="U")}),
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([0]), features={"s": np.array([], dtype=str)}),
            "b": NodeSet.from_fields(
                sizes=np.array([2]), features={"r": Ragged.from_list([[], []], dtype="S")}
            ),
        },
    )
    raw = write_example(g)
    wire = raw.hex()
    for key in ("nodes/a.s", "nodes/b.r", "context/t"):
        entry = key.encode().hex()
        # the Feature after the key: tag 0x12 (value), its length 2, then 0x0a (bytes_list)
        assert entry + "1202" + "0a00" in wire, key
    decoded = decode_example(raw)
    assert decoded["nodes/a.s"].dtype == object and decoded["nodes/b.r"].size == 0
    assert_graphs_equal(g, parse_single_example(g.spec, raw))


def test_uint64_values_go_as_int64_bits_as_in_tfgnn():
    u = np.array([2**64 - 1, 5, 2**63], np.uint64)
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([3]), features={"u": u})}
    )
    raw = write_example(g)  # was "uint64 values above int64 range"
    assert decode_example(raw)["nodes/n.u"].tolist() == [-1, 5, -(2**63)]
    for parsed in (parse_single_example(g.spec, raw), parse_example(g.spec, [raw, raw])):
        got = parsed.node_sets["n"].features["u"]
        assert got.dtype == np.uint64 and got.tolist()[:3] == u.tolist()
