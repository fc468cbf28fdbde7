"""GraphTensors to and from ``tf.train.Example`` records, as TF-GNN writes them, without TF.

Feature keys (``prefix`` first when given)::

    context/<feature>
    nodes/<set>.#size        nodes/<set>.<feature>
    edges/<set>.#size        edges/<set>.#source   edges/<set>.#target   edges/<set>.<feature>
    <key>.d1, <key>.d2, ...  row lengths of ragged dimension 1, 2, ... of a feature

Values are flattened in C order. Integers and bools travel as ``Int64List``, floats as
``FloatList`` (so float64 arrives rounded to float32, as the seed warns), strings as
``BytesList``. A feature's per-item shape comes from the spec; ``None`` in it is a ragged
dimension whose row lengths are stored under ``.d<i>``.

RULE: the spec decides dtypes and shapes; the example only supplies values. A value that does
      not fit (wrong length, missing key for a non-empty set, integer out of range for the
      spec's dtype) raises ``ValueError`` naming the key and the example index.
RULE: as TF-GNN's ``tf.io.RaggedFeature``, a ragged feature's value key may be absent when
      its row lengths hold no values (an empty list); a dense context feature is required.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> g = GraphTensor.from_pieces(node_sets={"a": NodeSet.from_fields(
...     sizes=np.array([2]), features={"x": np.array([[1.0, 2.0], [3.0, 4.0]])})})
>>> h = parse_single_example(g.spec, write_example(g))
>>> h.node_sets["a"].features["x"].tolist()
[[1.0, 2.0], [3.0, 4.0]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.io._example_wire import ExampleDecodeError, as_bytes, decode_example, encode_example

__all__ = ["parse_example", "parse_single_example", "write_example", "get_io_keys"]

SIZE = "#size"
SOURCE = "#source"
TARGET = "#target"


# ---------------------------------------------------------------------------------------------
# the spec, as this module needs it
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _FeatureIO:
    key: str  # full key, prefix included
    name: str
    dtype: np.dtype
    shape: tuple[int | None, ...]  # per-item shape; None = ragged


@dataclass(frozen=True)
class _PieceIO:
    kind: str  # "context" | "nodes" | "edges"
    name: str
    base: str  # key stem: "context/", "nodes/<set>.", "edges/<set>."
    features: tuple[_FeatureIO, ...]
    source: str | None = None
    target: str | None = None


def _feature_specs(piece_spec: Any) -> Mapping[str, Any]:
    for attr in ("features", "features_spec", "feature_specs"):
        fs = getattr(piece_spec, attr, None)
        if fs is not None:
            return fs
    raise TypeError(f"cannot read feature specs from {type(piece_spec).__name__}")


def _dtype_shape(fspec: Any) -> tuple[np.dtype, tuple[int | None, ...]]:
    if isinstance(fspec, tuple) and len(fspec) == 2:
        dtype, shape = fspec
    else:
        dtype, shape = fspec.dtype, fspec.shape
    shape = tuple(None if (d is None or (isinstance(d, int) and d < 0)) else int(d) for d in shape)
    return np.dtype(dtype), shape


_PIECES_CACHE: dict[tuple[int, str], tuple[Any, list[_PieceIO]]] = {}


def _io_pieces(spec: Any, prefix: str) -> list[_PieceIO]:
    """Keys, dtypes and shapes to read for ``spec`` (cached per spec object: specs are
    immutable)."""
    hit = _PIECES_CACHE.get((id(spec), prefix))
    if hit is not None and hit[0] is spec:
        return hit[1]
    pieces = _make_io_pieces(spec, prefix)
    if len(_PIECES_CACHE) >= 32:
        _PIECES_CACHE.clear()
    _PIECES_CACHE[(id(spec), prefix)] = (spec, pieces)
    return pieces


def _check_graph_spec(spec: Any, what: str = "spec") -> Any:
    """``spec`` if it is a graph spec, else a ``TypeError`` naming ``what`` (shared with the
    ``ParseExample`` layers). A GraphTensor also has ``node_sets``: its arrays would be read
    as per-item shapes; a GraphSchema is TF-GNN's common slip too."""
    from arraygnn.graph_tensor.pieces import GraphTensor
    from arraygnn.io.schema import GraphSchema

    if isinstance(spec, GraphTensor):
        raise TypeError(f"{what} must be a graph spec; got a GraphTensor, pass its .spec")
    if isinstance(spec, GraphSchema):
        raise TypeError(
            f"{what} must be a graph spec, got a GraphSchema; pass "
            "create_graph_spec_from_schema(schema) (TF-GNN's create_graph_spec_from_schema_pb)"
        )
    if not any(hasattr(spec, a) for a in ("node_sets", "node_sets_spec")):
        # (anything else used to read as a graph with no node sets: an empty result)
        raise TypeError(
            f"{what} must be a graph spec (graph.spec, or "
            f"create_graph_spec_from_schema(schema)), got {type(spec).__name__}"
        )
    return spec


def _make_io_pieces(spec: Any, prefix: str) -> list[_PieceIO]:
    _check_graph_spec(spec)

    def feats(piece_spec: Any, base: str) -> tuple[_FeatureIO, ...]:
        out = []
        for name, fspec in sorted(_feature_specs(piece_spec).items()):
            dtype, shape = _dtype_shape(fspec)
            out.append(_FeatureIO(f"{base}{name}", name, dtype, shape))
        return tuple(out)

    pieces = []
    ctx = getattr(spec, "context", None)
    if ctx is None:
        ctx = getattr(spec, "context_spec", None)
    base = f"{prefix}context/"
    pieces.append(_PieceIO("context", "", base, feats(ctx, base) if ctx is not None else ()))
    node_sets = getattr(spec, "node_sets", None) or getattr(spec, "node_sets_spec", {})
    for name, ns in sorted(node_sets.items()):
        base = f"{prefix}nodes/{name}."
        pieces.append(_PieceIO("nodes", name, base, feats(ns, base)))
    edge_sets = getattr(spec, "edge_sets", None) or getattr(spec, "edge_sets_spec", {})
    for name, es in sorted(edge_sets.items()):
        base = f"{prefix}edges/{name}."
        src, tgt = _adjacency_names(es)
        pieces.append(_PieceIO("edges", name, base, feats(es, base), src, tgt))
    return pieces


def _adjacency_names(edge_set_spec: Any) -> tuple[str, str]:
    for a, b in (("source_name", "target_name"), ("source", "target")):
        s, t = getattr(edge_set_spec, a, None), getattr(edge_set_spec, b, None)
        if isinstance(s, str) and isinstance(t, str):
            return s, t
    adj = getattr(edge_set_spec, "adjacency", None) or edge_set_spec.adjacency_spec
    return adj.source_name, adj.target_name


def get_io_keys(spec: Any, prefix: str | None = None) -> list[str]:
    """Every ``tf.Example`` key a graph of ``spec`` is written with (ragged ``.d<i>`` too).

    >>> from arraygnn.graph_tensor import GraphTensor, NodeSet
    >>> import numpy as np
    >>> g = GraphTensor.from_pieces(node_sets={"a": NodeSet.from_fields(sizes=np.array([1]),
    ...     features={"x": np.zeros(1)})})
    >>> get_io_keys(g.spec)
    ['nodes/a.#size', 'nodes/a.x']
    """
    keys = []
    for p in _io_pieces(spec, prefix or ""):
        if p.kind != "context":
            keys.append(f"{p.base}{SIZE}")
        for f in p.features:
            keys.append(f.key)
            keys.extend(f"{f.key}.d{i}" for i, d in enumerate(f.shape, start=1) if d is None)
        if p.kind == "edges":
            keys += [f"{p.base}{SOURCE}", f"{p.base}{TARGET}"]
    return keys


# ---------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------


def _is_ragged(x: Any) -> bool:
    return hasattr(x, "row_splits") and hasattr(x, "values") and not isinstance(x, np.ndarray)


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    """``out[key] = value``; a key written twice (set / feature names with dots that join
    into the same key, e.g. node set ``a.b`` + feature ``c`` and node set ``a`` + feature
    ``b.c``) is a ``ValueError``, never one feature overwriting another."""
    if key in out:
        raise ValueError(
            f"write_example: two graph pieces map to the same tf.Example key {key!r}; "
            "rename a node / edge set or feature (dots in names join into keys)"
        )
    out[key] = value


def _flat_feature(value: Any, key: str, out: dict[str, Any]) -> None:
    """Flat values of one feature plus ``.d1``, ``.d2``, ... row lengths of its ragged
    dimensions (a Ragged of Ragged has two)."""
    level = 1
    while _is_ragged(value):
        splits = to_numpy(value.row_splits).astype(np.int64)
        _put(out, f"{key}.d{level}", np.diff(splits))
        value = value.values
        level += 1
    _put(out, key, _flatten_values(_host(value), key))


def _host(x: Any) -> Any:
    return x if isinstance(x, (list, tuple)) else to_numpy(x)


def _flatten_values(x: Any, key: str) -> Any:
    arr = np.asarray(x)
    if arr.dtype.kind in "SUO":
        # an object array, so that no values still make a BytesList (an empty Python list
        # reads as float64 and would be written as a FloatList, which TF refuses to parse)
        out = np.empty(arr.size, dtype=object)
        out[:] = [as_bytes(v, key) for v in arr.ravel().tolist()]
        return out
    if arr.dtype.kind == "c":
        raise TypeError(f"feature {key!r}: complex dtype {arr.dtype} cannot go in a tf.Example")
    return arr.ravel()


def _flatten_graph(graph: Any, prefix: str) -> dict[str, Any]:
    from arraygnn.graph_tensor import GraphTensor

    if not isinstance(graph, GraphTensor):
        raise TypeError(f"write_example needs a GraphTensor, got {type(graph).__name__}")
    if getattr(graph, "rank", 0) != 0:
        raise ValueError(
            "write_example needs a scalar GraphTensor (rank 0); merge or unbatch the batch first"
        )
    out: dict[str, Any] = {}
    for fname, v in sorted(graph.context.features.items()):
        _flat_feature(v, f"{prefix}context/{fname}", out)
    for name, ns in sorted(graph.node_sets.items()):
        base = f"{prefix}nodes/{name}."
        _put(out, f"{base}{SIZE}", to_numpy(ns.sizes).astype(np.int64))
        for fname, v in sorted(ns.features.items()):
            _flat_feature(v, f"{base}{fname}", out)
    for name, es in sorted(graph.edge_sets.items()):
        base = f"{prefix}edges/{name}."
        _put(out, f"{base}{SIZE}", to_numpy(es.sizes).astype(np.int64))
        for fname, v in sorted(es.features.items()):
            _flat_feature(v, f"{base}{fname}", out)
        _put(out, f"{base}{SOURCE}", to_numpy(es.adjacency.source).astype(np.int64))
        _put(out, f"{base}{TARGET}", to_numpy(es.adjacency.target).astype(np.int64))
    return out


def write_example(graph: Any, prefix: str | None = None) -> bytes:
    """Serialize a scalar GraphTensor as one ``tf.train.Example`` (TF-GNN's encoding).

    To put several graphs (or extra keys) in one example, combine their
    :func:`example_features` under different prefixes and serialize with
    ``arraygnn.io._example_wire.encode_example``.
    """
    return encode_example(_flatten_graph(graph, _prefix(prefix)))


def _prefix(prefix: Any) -> str:
    """``prefix`` as a key prefix (TF-GNN's: a ``str`` or ``None``)."""
    if prefix is not None and not isinstance(prefix, str):
        raise TypeError(f"write_example: prefix must be a str or None, got {prefix!r}")
    return prefix or ""


def example_features(graph: Any, prefix: str | None = None) -> dict[str, Any]:
    """The flat ``{key: values}`` :func:`write_example` serializes (to combine several
    prefixed graphs, or extra keys, in one example with ``encode_example``)."""
    return _flatten_graph(graph, _prefix(prefix))


# ---------------------------------------------------------------------------------------------
# parsing: every key is read as a column over all examples
# ---------------------------------------------------------------------------------------------

_KIND_NAMES = {0: "an empty feature", 1: "a bytes list", 2: "a float list", 3: "an int64 list"}
_IO_KIND = {"i": 3, "f": 2, "O": 1}


def _io_dtype(dtype: np.dtype, key: str) -> np.dtype:
    """The ``tf.Example`` list type a spec dtype travels as."""
    kind = dtype.kind
    if kind in "iub":
        return np.dtype(np.int64)
    if kind == "f":
        return np.dtype(np.float32)
    if kind in "OSU":
        return np.dtype(object)
    raise TypeError(f"feature {key!r}: spec dtype {dtype} cannot be read from a tf.Example")


def _want(dtype: np.dtype | str) -> str:
    if isinstance(dtype, str):
        return dtype
    return "strings" if dtype.kind in "OSU" else str(dtype)


def _empty(io: np.dtype) -> np.ndarray:
    return np.empty(0, dtype=object) if io.kind == "O" else np.zeros(0, dtype=io)


def _any(mask: np.ndarray) -> bool:
    """``mask.any()`` without the ufunc-reduce overhead (these masks are tiny)."""
    return np.count_nonzero(mask) > 0


def _exclusive_cumsum(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


class _Column:
    """One key over all examples: ``values`` concatenated in example order, ``counts`` per
    example, ``present`` per example."""

    __slots__ = ("values", "counts", "present")

    def __init__(self, values: np.ndarray, counts: np.ndarray, present: np.ndarray) -> None:
        self.values, self.counts, self.present = values, counts, present


class _DictSource:
    """Columns from per-example ``{key: array}`` dicts (the general wire decoder)."""

    def __init__(self, flat: list[dict[str, np.ndarray]]) -> None:
        self.flat = flat
        self.n = len(flat)

    def column(self, key: str, io: np.dtype, want: np.dtype | str) -> _Column:
        parts, counts, present = [], np.zeros(self.n, np.int64), np.zeros(self.n, bool)
        for i, fl in enumerate(self.flat):
            v = fl.get(key)
            if v is None:
                continue
            present[i] = True
            if v.size == 0:
                continue
            if v.dtype != io:
                kind = {"i": 3, "f": 2, "O": 1}.get(v.dtype.kind, 0)
                raise ValueError(
                    f"example {i}: key {key!r} holds {_KIND_NAMES[kind]}, spec says {_want(want)}"
                )
            parts.append(v)
            counts[i] = len(v)
        if not parts:
            values = _empty(io)
        elif len(parts) == 1:
            # a read-only view into the serialized bytes (the decoder's fast path) is copied:
            # parsed features are writable arrays of their own on every path
            values = parts[0] if parts[0].flags.writeable else parts[0].copy()
        else:
            values = np.concatenate(parts)
        return _Column(values, counts, present)


class _NotCanonical(Exception):
    pass


class _ScanSource:
    """Columns straight from the serialized bytes: one Numba pass indexes every feature of
    every example, then each key is decoded for all examples at once.

    Bytes the scan does not take (not in canonical form, or malformed) switch the source to
    the general decoder, which parses what protobuf parses and gives the precise error, so
    both paths return the same results and errors."""

    def __init__(self, serialized: Sequence[bytes]) -> None:
        from arraygnn.io import _wire_kernels as k

        self.k = k
        self.serialized = serialized
        self.general: _DictSource | None = None
        self.n = len(serialized)
        self.buf = b"".join(serialized)
        self.arr = np.frombuffer(self.buf, dtype=np.uint8)
        bounds = _exclusive_cumsum(np.fromiter((len(s) for s in serialized), np.int64, self.n))
        # a feature entry takes at least 6 bytes; real ones take 20 and more
        table = np.empty((len(self.buf) // 16 + 16, 6), dtype=np.int64)
        m = k.scan_examples(self.arr, bounds[:-1], bounds[1:], table)
        if m == -(self.n + 1):
            table = np.empty((len(self.buf) // 6 + 1, 6), dtype=np.int64)
            m = k.scan_examples(self.arr, bounds[:-1], bounds[1:], table)
        if m < 0:
            raise _NotCanonical
        self.table = table[:m]
        buf = self.buf
        index: dict[bytes, np.ndarray] = {}
        for row, (rec, ks, ke) in enumerate(self.table[:, :3].tolist()):
            key = buf[ks:ke]
            ids = index.get(key)
            if ids is None:
                try:
                    key.decode("utf-8")
                except UnicodeDecodeError:
                    raise _NotCanonical from None  # the general decoder names the error
                ids = index[key] = np.full(self.n, -1, dtype=np.int64)
            ids[rec] = row  # a repeated key: the last entry wins, as in protobuf maps
        self.index = index

    def column(self, key: str, io: np.dtype, want: np.dtype | str) -> _Column:
        if self.general is None:
            try:
                return self._scan_column(key, io, want)
            except _NotCanonical:
                self.general = _decoded_source(self.serialized)
        return self.general.column(key, io, want)

    def _scan_column(self, key: str, io: np.dtype, want: np.dtype | str) -> _Column:
        ids = self.index.get(key.encode("utf-8"))
        if ids is None:
            return _Column(_empty(io), np.zeros(self.n, np.int64), np.zeros(self.n, bool))
        present = ids >= 0
        rows = self.table[np.where(present, ids, 0)]
        kinds = np.where(present, rows[:, 3], 0)
        ps = np.where(present, rows[:, 4], 0)
        pe = np.where(present, rows[:, 5], 0)
        nonempty = pe > ps
        want_kind = _IO_KIND[io.kind]
        wrong = np.flatnonzero(nonempty & (kinds != want_kind))
        if wrong.size:
            i = int(wrong[0])
            raise ValueError(
                f"example {i}: key {key!r} holds {_KIND_NAMES[int(kinds[i])]}, spec says "
                f"{_want(want)}"
            )
        ps = np.where(nonempty, ps, 0)
        pe = np.where(nonempty, pe, 0)
        counts = np.zeros(self.n, dtype=np.int64)
        k = self.k
        if want_kind == 3:
            out = np.empty(int((pe - ps).sum()), dtype=np.int64)
            total = k.decode_varint_ranges(self.arr, ps, pe, out, counts)
            if total < 0:
                raise _NotCanonical
            values = out[:total]
        elif want_kind == 2:
            nbytes = pe - ps
            if _any(nbytes % 4):
                raise _NotCanonical
            out = np.empty(int(nbytes.sum()), dtype=np.uint8)
            k.gather_ranges(self.arr, ps, pe, out)
            values = out.view("<f4")
            counts = nbytes // 4
        else:
            cap = int((pe - ps).sum()) // 2 + 1
            starts = np.empty(cap, dtype=np.int64)
            ends = np.empty(cap, dtype=np.int64)
            total = k.split_bytes_lists(self.arr, ps, pe, starts, ends, counts)
            if total < 0:
                raise _NotCanonical
            buf = self.buf
            items = [buf[a:b] for a, b in zip(starts[:total].tolist(), ends[:total].tolist())]
            values = np.empty(total, dtype=object)
            values[:] = items
        return _Column(values, counts, present)


# Below this many examples the per-key array work of the scan costs more than the Python
# decoder (measured: the scan wins from about 8 examples per call).
_SCAN_MIN_EXAMPLES = 8


def _source(serialized: Sequence[bytes]) -> Any:
    for i, s in enumerate(serialized):
        if not isinstance(s, (bytes, bytearray, memoryview)):
            raise TypeError(f"serialized example {i} must be bytes, got {type(s).__name__}")
    if len(serialized) >= _SCAN_MIN_EXAMPLES:
        try:
            return _ScanSource([bytes(s) for s in serialized])
        except _NotCanonical:
            pass
    return _decoded_source(serialized)


def _decoded_source(serialized: Sequence[bytes]) -> _DictSource:
    """Every example through the general decoder; a malformed one is named by its index."""
    decoded = []
    for i, s in enumerate(serialized):
        try:
            decoded.append(decode_example(s))
        except ExampleDecodeError as err:  # name the record at fault, as the other errors do
            raise ExampleDecodeError(f"example {i}: not a valid tf.train.Example ({err})") from err
    return _DictSource(decoded)


def _convert(values: np.ndarray, dtype: np.dtype, key: str, starts: np.ndarray) -> np.ndarray:
    """Concatenated example values -> the spec's dtype (``starts``: first value of each
    example, to name the example at fault)."""
    kind = dtype.kind

    def example_of(pos: int) -> int:
        return int(np.searchsorted(starts, pos, side="right")) - 1

    if dtype == np.uint64:
        # TF-GNN writes uint64 as the int64 with the same bits and parses it back so
        return values.astype(np.int64, copy=False).view(np.uint64)
    if kind in "iu":
        if dtype != np.int64 and values.size:
            info = np.iinfo(dtype)
            bad = np.flatnonzero((values < info.min) | (values > info.max))
            if bad.size:
                raise ValueError(
                    f"example {example_of(int(bad[0]))}: key {key!r} has values out of range "
                    f"for {dtype}"
                )
        return values.astype(dtype, copy=False)
    if kind == "b":
        return values != 0
    if kind == "f":
        return values.astype(dtype, copy=False)
    if kind == "O":
        return values
    if kind == "S":
        return values.astype(dtype if dtype.itemsize else "S")
    out = []
    for j, v in enumerate(values):
        try:
            out.append(v.decode("utf-8"))
        except UnicodeDecodeError as err:
            raise ValueError(
                f"example {example_of(j)}: key {key!r} holds bytes that are not UTF-8"
            ) from err
    return np.array(out, dtype=dtype if dtype.itemsize else "U")


_INT64 = np.dtype(np.int64)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _segment_sums(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Sum of each example's run of ``values`` (runs of ``counts`` items, in order)."""
    csum = _exclusive_cumsum(values)
    rows = _exclusive_cumsum(counts)
    return csum[rows[1:]] - csum[rows[:-1]]


def _parse_feature(src: Any, f: _FeatureIO, items: np.ndarray) -> Any:
    """One feature over all examples; ``items[i]`` = rows in example ``i``.

    Ragged dimensions (``None`` in the per-item shape) must come first, right after the
    items: shape ``(None, None, 3)`` reads row lengths ``.d1`` and ``.d2``.
    """
    ragged_dims = [i for i, d in enumerate(f.shape, start=1) if d is None]
    if ragged_dims != list(range(1, len(ragged_dims) + 1)):
        raise ValueError(
            f"feature {f.key!r}: ragged dimensions must come right after the items "
            f"(shape {f.shape})"
        )
    io = _io_dtype(f.dtype, f.key)
    inner = f.shape[len(ragged_dims) :]
    per_value = int(np.prod(inner, dtype=np.int64))
    col = src.column(f.key, io, f.dtype)
    if not ragged_dims:
        missing = ~col.present & (items > 0)
        if _any(missing):
            i = _first(missing)
            raise ValueError(f"example {i}: missing key {f.key!r} ({int(items[i])} items)")
    rows = items  # rows of the current level, per example
    all_lens = []
    for level in ragged_dims:
        lk = f"{f.key}.d{level}"
        lens = src.column(lk, _INT64, "int64")
        bad = lens.counts != rows
        if _any(bad):
            i = _first(bad)
            what = "items" if level == 1 else f"rows of dimension {level - 1}"
            raise ValueError(
                f"example {i}: key {lk!r} has {int(lens.counts[i])} row lengths for "
                f"{int(rows[i])} {what}"
            )
        if lens.values.size and lens.values.min() < 0:
            i = int(np.searchsorted(np.cumsum(lens.counts), _first(lens.values < 0), "right"))
            raise ValueError(f"example {i}: key {lk!r} has negative row lengths")
        all_lens.append(lens.values)
        rows = _segment_sums(lens.values, lens.counts)
    expected = rows * per_value
    if ragged_dims:
        # TF-GNN parses ragged features with tf.io.RaggedFeature: an absent value key is an
        # empty list, fine when the row lengths say there are no values
        missing = ~col.present & (expected > 0)
        if _any(missing):
            i = _first(missing)
            raise ValueError(
                f"example {i}: missing key {f.key!r} ({int(expected[i])} values by its row lengths)"
            )
    bad = col.counts != expected
    if _any(bad):
        i = _first(bad)
        raise ValueError(
            f"example {i}: key {f.key!r} has {int(col.counts[i])} values, expected "
            f"{int(expected[i])} (per-item shape {f.shape})"
        )
    values = _convert(col.values, f.dtype, f.key, _exclusive_cumsum(col.counts)[:-1])
    if not ragged_dims:
        return values.reshape((int(items.sum()), *f.shape))
    from arraygnn.graph_tensor import Ragged

    # the innermost rows are counted, not inferred (-1 cannot be resolved when inner has 0)
    out: Any = values.reshape((int(all_lens[-1].sum()), *inner))
    for lens in reversed(all_lens):
        out = Ragged.from_row_splits(out, _exclusive_cumsum(lens))
    return out


def _num_components(src: Any, pieces: list[_PieceIO]) -> tuple[np.ndarray, dict[str, _Column]]:
    """Components per example (from the ``#size`` keys, else the context) and the size
    columns."""
    n = src.n
    ncomp = np.full(n, -1, dtype=np.int64)
    cols: dict[str, _Column] = {}
    for p in pieces:
        if p.kind == "context":
            continue
        key = f"{p.base}{SIZE}"
        col = src.column(key, _INT64, "int64")
        cols[p.base] = col
        fresh = col.present & (ncomp < 0)
        ncomp[fresh] = col.counts[fresh]
        clash = col.present & (ncomp != col.counts)
        if _any(clash):
            i = _first(clash)
            detail = ", ".join(
                f"{b}{SIZE}: {int(c.counts[i])}" for b, c in cols.items() if c.present[i]
            )
            raise ValueError(
                f"example {i}: '#size' features disagree on the number of components ({detail})"
            )
    ctx = pieces[0]
    for f in ctx.features:
        if not _any(ncomp < 0):
            break
        if any(d is None for d in f.shape):
            c = src.column(f"{f.key}.d1", _INT64, "int64")
            cand = c.counts
        else:
            c = src.column(f.key, _io_dtype(f.dtype, f.key), f.dtype)
            per = int(np.prod(f.shape, dtype=np.int64))
            if not per:
                continue
            cand = c.counts // per
        take = (ncomp < 0) & c.present
        ncomp[take] = cand[take]
    ncomp[ncomp < 0] = 1
    return ncomp, cols


def _parse_source(spec: Any, src: Any, prefix: str, validate: bool) -> Any:
    from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet

    pieces = _io_pieces(spec, prefix)
    n = src.n
    ncomp, size_cols = _num_components(src, pieces)
    comp_splits = _exclusive_cumsum(ncomp)
    comp_example = np.repeat(np.arange(n), ncomp)

    sizes: dict[str, np.ndarray] = {}
    items: dict[str, np.ndarray] = {}
    for base, col in size_cols.items():
        full = np.zeros(int(comp_splits[-1]), dtype=np.int64)
        full[col.present[comp_example]] = col.values
        if full.size and full.min() < 0:
            i = int(comp_example[_first(full < 0)])
            raise ValueError(f"example {i}: key '{base}{SIZE}' has negative sizes")
        csum = _exclusive_cumsum(full)
        sizes[base] = full
        items[base] = csum[comp_splits[1:]] - csum[comp_splits[:-1]]

    node_sets, edge_sets = {}, {}
    node_totals: dict[str, np.ndarray] = {}
    for p in pieces:
        if p.kind != "nodes":
            continue
        node_totals[p.name] = items[p.base]
        node_sets[p.name] = NodeSet.from_fields(
            sizes=sizes[p.base],
            features={f.name: _parse_feature(src, f, items[p.base]) for f in p.features},
        )
    for p in pieces:
        if p.kind != "edges":
            continue
        n_edges = items[p.base]
        edge_splits = _exclusive_cumsum(n_edges)
        ends = []
        for key, ns in ((f"{p.base}{SOURCE}", p.source), (f"{p.base}{TARGET}", p.target)):
            if ns not in node_totals:
                raise ValueError(f"edge set {p.name!r} refers to unknown node set {ns!r}")
            col = src.column(key, _INT64, "int64")
            bad = col.counts != n_edges
            if _any(bad):
                i = _first(bad)
                got = f"{int(col.counts[i])} indices" if col.present[i] else "no key"
                raise ValueError(f"example {i}: key {key!r}: {got} for {int(n_edges[i])} edges")
            idx = col.values
            if validate and idx.size:
                limit = np.repeat(node_totals[ns], n_edges)
                wrong = (idx < 0) | (idx >= limit)
                if _any(wrong):
                    e = _first(wrong)
                    i = int(np.searchsorted(edge_splits, e, side="right")) - 1
                    raise ValueError(
                        f"example {i}: key {key!r}: index out of range for "
                        f"{int(node_totals[ns][i])} nodes in node set {ns!r}"
                    )
            if n > 1:
                offsets = _exclusive_cumsum(node_totals[ns])[:-1]
                idx = idx + np.repeat(offsets, n_edges)
            ends.append(idx)
        edge_sets[p.name] = EdgeSet.from_fields(
            sizes=sizes[p.base],
            adjacency=Adjacency.from_indices(
                source=(p.source, ends[0]), target=(p.target, ends[1])
            ),
            features={f.name: _parse_feature(src, f, n_edges) for f in p.features},
        )
    ctx = pieces[0]
    context = Context.from_fields(
        features={f.name: _parse_feature(src, f, ncomp) for f in ctx.features},
        sizes=np.ones(int(comp_splits[-1]), dtype=np.int64),
    )
    return GraphTensor.from_pieces(
        context=context, node_sets=node_sets, edge_sets=edge_sets, validate=False
    )


def parse_single_example(
    spec: Any, serialized: bytes, prefix: str | None = None, validate: bool = True
) -> Any:
    """Parse one serialized ``tf.train.Example`` into a GraphTensor conforming to ``spec``.

    ``spec`` is a graph spec (``graph.spec`` or ``create_graph_spec_from_schema(schema)``;
    a GraphTensor or GraphSchema in its place is a ``TypeError``, as in ``parse_example``);
    ``prefix`` selects one of several graphs stored in the same example.
    """
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(f"serialized example must be bytes, got {type(serialized).__name__}")
    return _parse_source(spec, _source([serialized]), prefix or "", validate)


def parse_example(
    spec: Any, serialized: Sequence[bytes], prefix: str | None = None, validate: bool = True
) -> Any:
    """Parse a list of serialized examples into ONE merged GraphTensor.

    Unlike TF-GNN (which returns a graph of shape ``[n]`` to be merged later), the result is
    already merged: its components are the examples' components in order, node indices are
    shifted per node set. This is ``merge_batch_to_components(parse_example(...))`` in TF-GNN.
    ``spec`` must be a graph spec: a GraphTensor (pass its ``.spec``) or a GraphSchema is a
    ``TypeError``, as for TF-GNN's ``ParseExample`` layer.

    Examples in the canonical layout writers emit are indexed by one Numba pass and every key
    is decoded for all examples at once; anything else (unpacked lists, unknown fields) goes
    through the general protobuf decoder with the same results.
    """
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(
            "parse_example takes a list of serialized examples; use parse_single_example for one"
        )
    if isinstance(serialized, (str, dict)) or not hasattr(serialized, "__iter__"):
        raise TypeError(
            "parse_example takes a list of serialized examples (bytes), got "
            f"{type(serialized).__name__}"
        )
    return _parse_source(spec, _source(list(serialized)), prefix or "", validate)
