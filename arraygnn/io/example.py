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
from arraygnn.io._example_wire import EMPTY, decode_example, encode_example

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


def _io_pieces(spec: Any, prefix: str) -> list[_PieceIO]:
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


def _flat_feature(value: Any, key: str, out: dict[str, Any]) -> None:
    if _is_ragged(value):
        splits = to_numpy(value.row_splits).astype(np.int64)
        out[f"{key}.d1"] = np.diff(splits)
        inner = value.values
        if _is_ragged(inner):
            raise ValueError(f"feature {key!r}: nested ragged features are not supported")
        inner = _host(inner)
        # values [total, *inner_shape]: any further ragged dims are not representable here
        out[key] = _flatten_values(inner, key)
        return
    out[key] = _flatten_values(_host(value), key)


def _host(x: Any) -> Any:
    return x if isinstance(x, (list, tuple)) else to_numpy(x)


def _flatten_values(x: Any, key: str) -> Any:
    arr = np.asarray(x)
    if arr.dtype.kind in "SUO":
        flat = arr.ravel().tolist()
        return [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in flat]
    if arr.dtype.kind == "c":
        raise TypeError(f"feature {key!r}: complex dtype {arr.dtype} cannot go in a tf.Example")
    return arr.ravel()


def _flatten_graph(graph: Any, prefix: str) -> dict[str, Any]:
    if getattr(graph, "rank", 0) != 0:
        raise ValueError(
            "write_example needs a scalar GraphTensor (rank 0); merge or unbatch the batch first"
        )
    out: dict[str, Any] = {}
    for fname, v in sorted(graph.context.features.items()):
        _flat_feature(v, f"{prefix}context/{fname}", out)
    for name, ns in sorted(graph.node_sets.items()):
        base = f"{prefix}nodes/{name}."
        out[f"{base}{SIZE}"] = to_numpy(ns.sizes).astype(np.int64)
        for fname, v in sorted(ns.features.items()):
            _flat_feature(v, f"{base}{fname}", out)
    for name, es in sorted(graph.edge_sets.items()):
        base = f"{prefix}edges/{name}."
        out[f"{base}{SIZE}"] = to_numpy(es.sizes).astype(np.int64)
        for fname, v in sorted(es.features.items()):
            _flat_feature(v, f"{base}{fname}", out)
        out[f"{base}{SOURCE}"] = to_numpy(es.adjacency.source).astype(np.int64)
        out[f"{base}{TARGET}"] = to_numpy(es.adjacency.target).astype(np.int64)
    return out


def write_example(graph: Any, prefix: str | None = None) -> bytes:
    """Serialize a scalar GraphTensor as one ``tf.train.Example`` (TF-GNN's encoding).

    To put several graphs (or extra keys) in one example, combine their
    :func:`example_features` under different prefixes and serialize with
    ``arraygnn.io._example_wire.encode_example``.
    """
    return encode_example(_flatten_graph(graph, prefix or ""))


def example_features(graph: Any, prefix: str | None = None) -> dict[str, Any]:
    """The flat ``{key: values}`` :func:`write_example` serializes (to combine several
    prefixed graphs, or extra keys, in one example with ``encode_example``)."""
    return _flatten_graph(graph, prefix or "")


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


def _lookup(flat: list[dict[str, np.ndarray]], key: str) -> list[np.ndarray | None]:
    return [f.get(key) for f in flat]


def _as_int(values: np.ndarray, key: str, i: int) -> np.ndarray:
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    if values.dtype != np.int64:
        raise ValueError(f"example {i}: key {key!r} must be an int64 list, got {_kind(values)}")
    return values


def _kind(values: np.ndarray) -> str:
    return {"i": "an int64 list", "f": "a float list", "O": "a bytes list"}.get(
        values.dtype.kind, "an empty feature"
    )


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


def _checked_raw(values: np.ndarray, io: np.dtype, dtype: np.dtype, key: str, i: int) -> np.ndarray:
    """Example ``i``'s value list, checked to be of list type ``io`` (empty lists fit any)."""
    if values.size == 0:
        return np.zeros(0, dtype=io) if io.kind != "O" else np.empty(0, dtype=object)
    if values.dtype != io:
        want = "strings" if io.kind == "O" else str(dtype)
        raise ValueError(f"example {i}: key {key!r} holds {_kind(values)}, spec says {want}")
    return values


def _convert(values: np.ndarray, dtype: np.dtype, key: str, starts: np.ndarray) -> np.ndarray:
    """Concatenated example values -> the spec's dtype (``starts``: first value of each
    example, to name the example at fault)."""
    kind = dtype.kind

    def example_of(pos: int) -> int:
        return int(np.searchsorted(starts, pos, side="right")) - 1

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


def _concat(parts: Sequence[np.ndarray], dtype: np.dtype) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=dtype if dtype.kind != "O" else object)
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts)


def _read_sizes(
    flat: list[dict[str, np.ndarray]], pieces: list[_PieceIO]
) -> tuple[dict[str, list[np.ndarray]], list[int]]:
    """``{base: [sizes per example]}`` and the number of components per example."""
    sizes: dict[str, list[np.ndarray | None]] = {}
    for p in pieces:
        if p.kind == "context":
            continue
        key = f"{p.base}{SIZE}"
        sizes[p.base] = [
            None if v is None else _as_int(v, key, i) for i, v in enumerate(_lookup(flat, key))
        ]
    num_components = []
    for i in range(len(flat)):
        present = {b: s[i] for b, s in sizes.items() if s[i] is not None}
        lengths = {len(s) for s in present.values()}
        if len(lengths) > 1:
            detail = ", ".join(f"{b}{SIZE}: {len(s)}" for b, s in present.items())
            raise ValueError(
                f"example {i}: '#size' features disagree on the number of components ({detail})"
            )
        num_components.append(lengths.pop() if lengths else None)
    return sizes, num_components  # type: ignore[return-value]


def _context_components(flat: list[dict[str, np.ndarray]], ctx: _PieceIO, i: int) -> int | None:
    for f in ctx.features:
        v = flat[i].get(f.key)
        if v is None:
            continue
        if any(d is None for d in f.shape):
            lens = flat[i].get(f"{f.key}.d1")
            return None if lens is None else len(lens)
        per = int(np.prod(f.shape, dtype=np.int64))
        if per:
            return len(v) // per
    return None


def _parse_feature(flat: list[dict[str, np.ndarray]], f: _FeatureIO, items: list[int]) -> Any:
    """Concatenate one feature over examples; ``items[i]`` = rows in example ``i``."""
    ragged_dims = [i for i, d in enumerate(f.shape, start=1) if d is None]
    if len(ragged_dims) > 1 or (ragged_dims and ragged_dims != [1]):
        raise ValueError(
            f"feature {f.key!r}: only one ragged dimension, right after the items, is supported "
            f"(shape {f.shape})"
        )
    io = _io_dtype(f.dtype, f.key)
    inner = tuple(d for d in f.shape if d is not None)
    per_value = int(np.prod(inner, dtype=np.int64))
    parts: list[np.ndarray] = []
    row_lengths: list[np.ndarray] = []
    for i, fl in enumerate(flat):
        v = fl.get(f.key)
        if v is None:
            if items[i] == 0:
                v = EMPTY
            else:
                raise ValueError(f"example {i}: missing key {f.key!r} ({items[i]} items)")
        v = _checked_raw(v, io, f.dtype, f.key, i)
        if ragged_dims:
            lk = f"{f.key}.d1"
            lens = fl.get(lk)
            lens = np.zeros(0, np.int64) if lens is None else _as_int(lens, lk, i)
            if len(lens) != items[i]:
                raise ValueError(
                    f"example {i}: key {lk!r} has {len(lens)} row lengths for {items[i]} items"
                )
            if lens.size and lens.min() < 0:
                raise ValueError(f"example {i}: key {lk!r} has negative row lengths")
            expected = int(lens.sum()) * per_value
            row_lengths.append(lens)
        else:
            expected = items[i] * per_value
        if len(v) != expected:
            raise ValueError(
                f"example {i}: key {f.key!r} has {len(v)} values, expected {expected} "
                f"(per-item shape {f.shape})"
            )
        parts.append(v)
    starts = np.zeros(len(parts), dtype=np.int64)
    if len(parts) > 1:
        np.cumsum([len(p) for p in parts[:-1]], out=starts[1:])
    values = _convert(_concat(parts, io), f.dtype, f.key, starts)
    if not ragged_dims:
        return values.reshape((sum(items), *f.shape))
    values = values.reshape((-1, *inner))
    lens = _concat(row_lengths, np.dtype(np.int64))
    splits = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=splits[1:])
    from arraygnn.graph_tensor import Ragged

    return Ragged.from_row_splits(values, splits)


def _parse_flat(spec: Any, flat: list[dict[str, np.ndarray]], prefix: str, validate: bool) -> Any:
    from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet

    pieces = _io_pieces(spec, prefix)
    sizes, num_components = _read_sizes(flat, pieces)
    ctx = pieces[0]
    for i, c in enumerate(num_components):
        if c is None:
            num_components[i] = _context_components(flat, ctx, i) or 1
    comp_splits = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum(num_components, out=comp_splits[1:])

    def example_of(pos: int, splits: np.ndarray) -> int:
        return int(np.searchsorted(splits, pos, side="right")) - 1

    all_sizes: dict[str, np.ndarray] = {}
    items_of: dict[str, list[int]] = {}
    for base, per_example in sizes.items():
        for i, s in enumerate(per_example):
            if s is None:
                per_example[i] = np.zeros(num_components[i], dtype=np.int64)
        cat = _concat(per_example, np.dtype(np.int64))
        if cat.size and cat.min() < 0:
            i = example_of(int(np.flatnonzero(cat < 0)[0]), comp_splits)
            raise ValueError(f"example {i}: key '{base}{SIZE}' has negative sizes")
        csum = np.zeros(len(cat) + 1, dtype=np.int64)
        np.cumsum(cat, out=csum[1:])
        all_sizes[base] = cat
        items_of[base] = (csum[comp_splits[1:]] - csum[comp_splits[:-1]]).tolist()

    node_sets, edge_sets = {}, {}
    node_totals: dict[str, np.ndarray] = {}
    for p in pieces:
        if p.kind != "nodes":
            continue
        items = items_of[p.base]
        node_totals[p.name] = np.asarray(items, dtype=np.int64)
        node_sets[p.name] = NodeSet.from_fields(
            sizes=all_sizes[p.base],
            features={f.name: _parse_feature(flat, f, items) for f in p.features},
        )
    for p in pieces:
        if p.kind != "edges":
            continue
        items = items_of[p.base]
        edge_splits = np.zeros(len(flat) + 1, dtype=np.int64)
        np.cumsum(items, out=edge_splits[1:])
        ends = []
        for key, ns in ((f"{p.base}{SOURCE}", p.source), (f"{p.base}{TARGET}", p.target)):
            if ns not in node_totals:
                raise ValueError(f"edge set {p.name!r} refers to unknown node set {ns!r}")
            parts = []
            for i, fl in enumerate(flat):
                v = fl.get(key)
                if v is None and items[i] == 0:
                    v = np.zeros(0, np.int64)
                elif v is not None:
                    v = _as_int(v, key, i)
                if v is None or len(v) != items[i]:
                    got = "no key" if v is None else f"{len(v)} indices"
                    raise ValueError(f"example {i}: key {key!r}: {got} for {items[i]} edges")
                parts.append(v)
            idx = _concat(parts, np.dtype(np.int64))
            if validate and idx.size:
                limit = np.repeat(node_totals[ns], items)
                bad = np.flatnonzero((idx < 0) | (idx >= limit))
                if bad.size:
                    i = example_of(int(bad[0]), edge_splits)
                    raise ValueError(
                        f"example {i}: key {key!r}: index out of range for "
                        f"{int(node_totals[ns][i])} nodes in node set {ns!r}"
                    )
            if len(flat) > 1:
                offsets = np.concatenate([[0], np.cumsum(node_totals[ns])[:-1]])
                idx = idx + np.repeat(offsets, items)
            ends.append(idx)
        edge_sets[p.name] = EdgeSet.from_fields(
            sizes=all_sizes[p.base],
            adjacency=Adjacency.from_indices(
                source=(p.source, ends[0]), target=(p.target, ends[1])
            ),
            features={f.name: _parse_feature(flat, f, items) for f in p.features},
        )
    context = Context.from_fields(
        features={f.name: _parse_feature(flat, f, list(num_components)) for f in ctx.features},
        sizes=np.ones(sum(num_components), dtype=np.int64),
    )
    return GraphTensor.from_pieces(
        context=context, node_sets=node_sets, edge_sets=edge_sets, validate=False
    )


def parse_single_example(
    spec: Any, serialized: bytes, prefix: str | None = None, validate: bool = True
) -> Any:
    """Parse one serialized ``tf.train.Example`` into a GraphTensor conforming to ``spec``.

    ``spec`` is a graph spec (``graph.spec`` or ``create_graph_spec_from_schema(schema)``);
    ``prefix`` selects one of several graphs stored in the same example.
    """
    return _parse_flat(spec, [decode_example(serialized)], prefix or "", validate)


def parse_example(
    spec: Any, serialized: Sequence[bytes], prefix: str | None = None, validate: bool = True
) -> Any:
    """Parse a list of serialized examples into ONE merged GraphTensor.

    Unlike TF-GNN (which returns a graph of shape ``[n]`` to be merged later), the result is
    already merged: its components are the examples' components in order, node indices are
    shifted per node set. This is ``merge_batch_to_components(parse_example(...))`` in TF-GNN.
    """
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(
            "parse_example takes a list of serialized examples; use parse_single_example for one"
        )
    flat = [decode_example(s) for s in serialized]
    return _parse_flat(spec, flat, prefix or "", validate)
