"""TF-GNN ``GraphSchema`` files (``graph_schema.pbtxt``) without protobuf.

A small parser and writer for the protobuf *text format* of TF-GNN's ``GraphSchema``
message (every field of ``tensorflow_gnn/proto/graph_schema.proto``: context, node sets, edge
sets with source / target, features with ``dtype`` ``DT_*`` and ``shape { dim { size: N } }``,
descriptions, metadata with its BigQuery source, origin info), plus the bridge to specs:
:func:`create_graph_spec_from_schema`, :func:`create_schema_from_graph_spec` and
:func:`check_graph_conforms`.

RULE: a ``dim`` with ``size: -1`` is a ragged dimension (``None`` in the spec). A ``dim``
      without ``size`` has protobuf's default size 0 (the seed's author ``name`` feature,
      ``shape: { dim: { } }``, therefore reads as per-item shape ``[0]``; write ``shape { }``
      for one string per node). The writer keeps it as written.
RULE: literals follow protobuf's text format: integers are decimal, hex ``0x1F`` or octal
      with a leading 0 (``010`` is 8; ``08`` is an error), with an optional ``-``; string
      escapes are ``\\a \\b \\f \\n \\r \\t \\v \\? \\\\ \\' \\"``, octal ``\\NNN`` (up to
      ``\\377``), hex ``\\xH`` / ``\\xHH``, ``\\uXXXX`` and ``\\UXXXXXXXX`` (UTF-8 encoded).
RULE: a map key given twice keeps the last value (protobuf's text parser does the same).
      ``dtype`` (TensorFlow's open proto3 enum ``DataType``) also takes numbers that name no
      ``DT_*``; they are kept as ``int``.
RULE: unknown fields, wrong value types, duplicate singular fields, two members of a
      ``oneof`` and unknown enum names raise ``ValueError`` naming the line and the message
      they appear in. Extensions (``[ext.name] { ... }``) are not supported.
RULE: ``write_schema(parse_schema(text))`` parses back to an equal schema (same meaning;
      comments and layout are not kept).
RULE: ``DT_STRING`` features read as NumPy ``str`` (decoded as UTF-8): bytes that are not
      UTF-8 raise ``ValueError``, and NumPy's ``str`` dtype drops trailing NUL characters
      (``b"ab\\x00"`` reads as ``"ab"``). To keep arbitrary bytes exactly, give that feature
      an ``object``-dtype ``FeatureSpec`` (values come back as ``bytes``).

>>> s = parse_schema('''
... node_sets { key: "paper" value { features { key: "year" value { dtype: DT_INT32 } } } }
... edge_sets { key: "cites" value { source: "paper" target: "paper" } }''')
>>> s.node_sets["paper"].features["year"].dtype, s.edge_sets["cites"].source
('DT_INT32', 'paper')
>>> create_graph_spec_from_schema(s).node_sets["paper"].features["year"]
FeatureSpec(dtype=dtype('int32'), shape=())
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from arraygnn._renamed_args import renamed_keywords

__all__ = [
    "GraphSchema",
    "ContextSchema",
    "NodeSetSchema",
    "EdgeSetSchema",
    "FeatureSchema",
    "ShapeSchema",
    "DimSchema",
    "MetadataSchema",
    "KeyValueSchema",
    "BigQuerySchema",
    "TableSpecSchema",
    "OriginInfoSchema",
    "parse_schema",
    "read_schema",
    "write_schema",
    "schema_to_text",
    "create_graph_spec_from_schema",
    "create_schema_from_graph_spec",
    "check_graph_conforms",
    "create_graph_spec_from_schema_pb",
    "create_schema_pb_from_graph_spec",
    "check_compatible_with_schema_pb",
    "DTYPES",
]

# TensorFlow's DataType enum (names and numbers as in tensorflow/core/framework/types.proto)
_DATA_TYPES = {
    "DT_INVALID": 0,
    "DT_FLOAT": 1,
    "DT_DOUBLE": 2,
    "DT_INT32": 3,
    "DT_UINT8": 4,
    "DT_INT16": 5,
    "DT_INT8": 6,
    "DT_STRING": 7,
    "DT_COMPLEX64": 8,
    "DT_INT64": 9,
    "DT_BOOL": 10,
    "DT_QINT8": 11,
    "DT_QUINT8": 12,
    "DT_QINT32": 13,
    "DT_BFLOAT16": 14,
    "DT_QINT16": 15,
    "DT_QUINT16": 16,
    "DT_UINT16": 17,
    "DT_COMPLEX128": 18,
    "DT_HALF": 19,
    "DT_RESOURCE": 20,
    "DT_VARIANT": 21,
    "DT_UINT32": 22,
    "DT_UINT64": 23,
    "DT_FLOAT8_E5M2": 24,
    "DT_FLOAT8_E4M3FN": 25,
    "DT_FLOAT8_E4M3FNUZ": 26,
    "DT_FLOAT8_E4M3B11FNUZ": 27,
    "DT_FLOAT8_E5M2FNUZ": 28,
    "DT_INT4": 29,
    "DT_UINT4": 30,
    "DT_INT2": 31,
    "DT_UINT2": 32,
}
# ... and the "_REF" twin of each (number + 100), as types.proto lists them
_DATA_TYPES.update({f"{k}_REF": v + 100 for k, v in list(_DATA_TYPES.items()) if v})
_GRAPH_TYPES = {"UNDEFINED": 0, "FULL": 1, "SUBGRAPH": 2, "RANDOM_WALKS": 3}
_READ_METHODS = {"UNSPECIFIED": 0, "EXPORT": 1, "DIRECT_READ": 2}

DTYPES: dict[str, np.dtype] = {
    "DT_FLOAT": np.dtype(np.float32),
    "DT_DOUBLE": np.dtype(np.float64),
    "DT_HALF": np.dtype(np.float16),
    "DT_INT8": np.dtype(np.int8),
    "DT_INT16": np.dtype(np.int16),
    "DT_INT32": np.dtype(np.int32),
    "DT_INT64": np.dtype(np.int64),
    "DT_UINT8": np.dtype(np.uint8),
    "DT_UINT16": np.dtype(np.uint16),
    "DT_UINT32": np.dtype(np.uint32),
    "DT_UINT64": np.dtype(np.uint64),
    "DT_BOOL": np.dtype(np.bool_),
    "DT_STRING": np.dtype(np.str_),
    "DT_COMPLEX64": np.dtype(np.complex64),
    "DT_COMPLEX128": np.dtype(np.complex128),
}
"""``DT_*`` name -> NumPy dtype (``DT_STRING`` -> ``str``, UTF-8, trailing NULs dropped by
NumPy; bytes and object strings also conform to it, and an ``object`` spec feature keeps
arbitrary bytes exactly)."""


# ---------------------------------------------------------------------------------------------
# the schema as dataclasses
# ---------------------------------------------------------------------------------------------


@dataclass
class DimSchema:
    """One dimension of a feature's per-item shape; ``size=-1``: ragged; ``None``: unset (0)."""

    size: int | None = None
    name: str | None = None


@dataclass
class ShapeSchema:
    """``tensorflow.TensorShapeProto``: the per-item shape of a feature."""

    dim: list[DimSchema] = field(default_factory=list)
    unknown_rank: bool | None = None


@dataclass
class FeatureSchema:
    """One feature: ``dtype`` is a ``DT_*`` name (or a number that names none)."""

    description: str | None = None
    dtype: str | int | None = None
    shape: ShapeSchema | None = None
    source: str | None = None


@dataclass
class KeyValueSchema:
    """``Metadata.KeyValue``: one free-form key / value pair."""

    key: str | None = None
    value: str | None = None


@dataclass
class TableSpecSchema:
    """``BigQuery.TableSpec``: a whole BigQuery table."""

    project: str | None = None
    dataset: str | None = None
    table: str | None = None


@dataclass
class BigQuerySchema:
    """``BigQuery``: a table or SQL source (``oneof source``: ``table_spec`` or ``sql``)."""

    table_spec: TableSpecSchema | None = None
    sql: str | None = None
    read_method: str | None = None
    reshuffle: bool | None = None


@dataclass
class MetadataSchema:
    """Extra information on a context, node set or edge set."""

    extra: list[KeyValueSchema] = field(default_factory=list)
    filename: str | None = None
    cardinality: int | None = None
    bigquery: BigQuerySchema | None = None


@dataclass
class ContextSchema:
    """Context features by name, plus metadata."""

    features: dict[str, FeatureSchema] = field(default_factory=dict)
    metadata: MetadataSchema | None = None


@dataclass
class NodeSetSchema:
    """One node set: features by name, context feature names, metadata."""

    description: str | None = None
    features: dict[str, FeatureSchema] = field(default_factory=dict)
    context: list[str] = field(default_factory=list)
    metadata: MetadataSchema | None = None


@dataclass
class EdgeSetSchema:
    """One edge set: features by name, ``source`` / ``target`` node set names, metadata."""

    description: str | None = None
    features: dict[str, FeatureSchema] = field(default_factory=dict)
    source: str | None = None
    target: str | None = None
    context: list[str] = field(default_factory=list)
    metadata: MetadataSchema | None = None


@dataclass
class OriginInfoSchema:
    """Where the graph came from: ``graph_type`` name and root node sets."""

    graph_type: str | None = None
    root_set: list[str] = field(default_factory=list)


@dataclass
class GraphSchema:
    """TF-GNN's ``GraphSchema``: ``context``, ``node_sets`` / ``edge_sets`` by name, ``info``."""

    context: ContextSchema | None = None
    node_sets: dict[str, NodeSetSchema] = field(default_factory=dict)
    edge_sets: dict[str, EdgeSetSchema] = field(default_factory=dict)
    info: OriginInfoSchema | None = None


# field kinds: "str" | "int" (int64) | "bool" | ("enum", table, open) | message class.
# labels: proto2 optional (has presence), proto3 singular (no presence: a repeat may replace
# a default value, as protobuf allows), repeated, map<string, message>.
_OPT, _OPT3, _REP, _MAP = "optional", "proto3", "repeated", "map"
_DT_ENUM = ("enum", _DATA_TYPES, True)  # proto3 enum: open, unknown numbers are kept
_DESCRIPTORS: dict[type, dict[str, tuple[Any, str]]] = {
    GraphSchema: {
        "context": (ContextSchema, _OPT),
        "node_sets": (NodeSetSchema, _MAP),
        "edge_sets": (EdgeSetSchema, _MAP),
        "info": (OriginInfoSchema, _OPT),
    },
    ContextSchema: {"features": (FeatureSchema, _MAP), "metadata": (MetadataSchema, _OPT)},
    NodeSetSchema: {
        "description": ("str", _OPT),
        "features": (FeatureSchema, _MAP),
        "context": ("str", _REP),
        "metadata": (MetadataSchema, _OPT),
    },
    EdgeSetSchema: {
        "description": ("str", _OPT),
        "features": (FeatureSchema, _MAP),
        "source": ("str", _OPT),
        "target": ("str", _OPT),
        "context": ("str", _REP),
        "metadata": (MetadataSchema, _OPT),
    },
    FeatureSchema: {
        "description": ("str", _OPT),
        "dtype": (_DT_ENUM, _OPT),
        "shape": (ShapeSchema, _OPT),
        "source": ("str", _OPT),
    },
    ShapeSchema: {"dim": (DimSchema, _REP), "unknown_rank": ("bool", _OPT3)},
    DimSchema: {"size": ("int", _OPT3), "name": ("str", _OPT3)},
    MetadataSchema: {
        "extra": (KeyValueSchema, _REP),
        "filename": ("str", _OPT),
        "cardinality": ("int", _OPT),
        "bigquery": (BigQuerySchema, _OPT),
    },
    KeyValueSchema: {"key": ("str", _OPT), "value": ("str", _OPT)},
    BigQuerySchema: {
        "table_spec": (TableSpecSchema, _OPT),
        "sql": ("str", _OPT),
        "read_method": (("enum", _READ_METHODS, False), _OPT),
        "reshuffle": ("bool", _OPT),
    },
    TableSpecSchema: {"project": ("str", _OPT), "dataset": ("str", _OPT), "table": ("str", _OPT)},
    OriginInfoSchema: {
        "graph_type": (("enum", _GRAPH_TYPES, False), _OPT),
        "root_set": ("str", _REP),
    },
}
_ONEOFS: dict[type, dict[str, str]] = {BigQuerySchema: {"table_spec": "source", "sql": "source"}}
_PROTO_NAMES = {
    GraphSchema: "GraphSchema",
    ContextSchema: "Context",
    NodeSetSchema: "NodeSet",
    EdgeSetSchema: "EdgeSet",
    FeatureSchema: "Feature",
    ShapeSchema: "TensorShapeProto",
    DimSchema: "TensorShapeProto.Dim",
    MetadataSchema: "Metadata",
    KeyValueSchema: "Metadata.KeyValue",
    BigQuerySchema: "BigQuery",
    TableSpecSchema: "BigQuery.TableSpec",
    OriginInfoSchema: "OriginInfo",
}
_ZERO = {"str": "", "int": 0, "bool": False}  # proto3 defaults


# ---------------------------------------------------------------------------------------------
# tokenizer
# ---------------------------------------------------------------------------------------------

# A number token runs on over letters, digits, '.', '+' and '-' (as protobuf's tokenizer
# does), so "10bar" and "1e3" are single tokens that the value parser then judges.
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+) | (?P<nl>\n) | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<open>["'])
  | (?P<number>[-+]?(?:[0-9]|\.[0-9])[0-9A-Za-z_.+-]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}<>:\[\],;./-])
    """,
    re.VERBOSE,
)


@dataclass
class _Tok:
    kind: str
    text: str
    line: int


def _tokenize(text: str) -> list[_Tok]:
    """Split ``text`` into tokens (whitespace and ``#`` comments dropped)."""
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"line {line}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        if kind == "open":
            raise ValueError(f"line {line}: string misses its closing quote")
        if kind == "nl":
            line += 1
        elif kind not in ("ws", "comment"):
            out.append(_Tok(kind, m.group(), line))
        pos = m.end()
    out.append(_Tok("eof", "", line))
    return out


_ESCAPES = {
    "a": 7,
    "b": 8,
    "f": 12,
    "n": 10,
    "r": 13,
    "t": 9,
    "v": 11,
    "?": 63,
    "\\": 92,
    "'": 39,
    '"': 34,
}
_HEX = re.compile(r"[0-9a-fA-F]+")


def _unescape(tok: _Tok) -> bytes:
    """The bytes a string token stands for (protobuf text format escapes; text as UTF-8)."""
    body = tok.text[1:-1]
    out = bytearray()
    i = 0
    while True:
        j = body.find("\\", i)
        out += body[i : len(body) if j < 0 else j].encode("utf-8", "surrogatepass")
        if j < 0:
            return bytes(out)
        c = body[j + 1]  # the tokenizer guarantees a character after every backslash
        where = f"line {tok.line}: string {tok.text}"
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
            i = j + 2
        elif c in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[j + 1 :]).group()
            if int(digits, 8) > 0o377:
                raise ValueError(f"{where}: octal escape \\{digits} is above \\377")
            out.append(int(digits, 8))
            i = j + 1 + len(digits)
        elif c == "x":
            m = _HEX.match(body, j + 2, min(j + 4, len(body)))
            if m is None:
                raise ValueError(f"{where}: \\x needs a hex digit")
            out.append(int(m.group(), 16))
            i = m.end()
        elif c in "uU":
            width = 4 if c == "u" else 8
            m = _HEX.match(body, j + 2, j + 2 + width)
            if m is None or len(m.group()) != width:
                raise ValueError(f"{where}: \\{c} needs exactly {width} hex digits")
            code = int(m.group(), 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ValueError(f"{where}: \\{c}{m.group()} is not a Unicode scalar value")
            out += chr(code).encode("utf-8")
            i = m.end()
        else:
            raise ValueError(f"{where}: unknown escape \\{c}")


def _escape(s: str) -> str:
    """``s`` as a double-quoted text format string (non-ASCII kept as is)."""
    out = []
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_INT_LITERAL = re.compile(r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0([0-7]+)|([1-9][0-9]*|0))")


def _int_literal(text: str) -> int | None:
    """Value of a text format integer (decimal, ``0x`` hex, leading-0 octal), else None."""
    m = _INT_LITERAL.fullmatch(text)
    if m is None or (m.group(1) == "+" and m.group(3) is not None):
        return None  # protobuf's Python parser rejects "+010" too
    sign, hexa, octal, dec = m.groups()
    v = int(hexa, 16) if hexa is not None else int(octal, 8) if octal is not None else int(dec)
    return -v if sign == "-" else v


# ---------------------------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokenize(text)
        self.i = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, text: str) -> bool:
        if self.peek().kind == "punct" and self.peek().text == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str) -> None:
        t = self.peek()
        if not self.accept(text):
            shown = t.text or "end of file"
            raise ValueError(f"line {t.line}: expected {text!r} {what}, got {shown!r}")

    def message(self, cls: type, close: str | None) -> Any:
        desc = _DESCRIPTORS[cls]
        oneofs = _ONEOFS.get(cls, {})
        name = _PROTO_NAMES[cls]
        values: dict[str, Any] = {}
        seen_line: dict[str, int] = {}
        while True:
            t = self.peek()
            if close is None and t.kind == "eof":
                break
            if close is not None and t.kind == "punct" and t.text == close:
                self.take()
                break
            if t.kind == "eof":
                raise ValueError(f"line {t.line}: missing {close!r} to close a {name} message")
            if t.kind == "punct" and t.text == "[":
                raise ValueError(
                    f"line {t.line}: extension fields ([...]) in {name} are not supported"
                )
            if t.kind != "ident":
                raise ValueError(f"line {t.line}: expected a field name in {name}, got {t.text!r}")
            self.take()
            if t.text not in desc:
                raise ValueError(
                    f"line {t.line}: unknown field {t.text!r} in {name} (known: {', '.join(desc)})"
                )
            kind, label = desc[t.text]
            if isinstance(kind, type):
                self.accept(":")
            else:
                self.expect(":", f"after field {t.text!r}")
            items = self.values(kind, label, t, name)
            if label in (_OPT, _OPT3):
                if t.text in values and (label == _OPT or values[t.text] != _ZERO[kind]):
                    raise ValueError(
                        f"line {t.line}: field {t.text!r} of {name} given twice "
                        f"(first on line {seen_line[t.text]})"
                    )
                values[t.text] = items[0]
                seen_line[t.text] = t.line
                group = oneofs.get(t.text)
                for other in [o for o, g in oneofs.items() if g == group and o != t.text]:
                    if other in values:
                        raise ValueError(
                            f"line {t.line}: field {t.text!r} of {name} given along with "
                            f"{other!r} (line {seen_line[other]}); both are in oneof {group!r}"
                        )
            elif label == _REP:
                values.setdefault(t.text, []).extend(items)
            else:  # map: items are (key, value); a repeated key keeps the last value
                values.setdefault(t.text, {}).update(items)
            self.accept(",") or self.accept(";")
        return cls(**values)

    def values(self, kind: Any, label: str, field_tok: _Tok, owner: str) -> list[Any]:
        if self.accept("["):
            if label not in (_REP, _MAP):
                raise ValueError(
                    f"line {field_tok.line}: field {field_tok.text!r} of {owner} is not repeated"
                )
            out = []
            if not self.accept("]"):
                while True:
                    out.append(self.one(kind, label, field_tok, owner))
                    if self.accept("]"):
                        break
                    self.expect(",", "between list elements")
            return out
        return [self.one(kind, label, field_tok, owner)]

    def one(self, kind: Any, label: str, field_tok: _Tok, owner: str) -> Any:
        if label == _MAP:
            return self.map_entry(kind, field_tok)
        if isinstance(kind, type):
            return self.submessage(kind, field_tok)
        return self.scalar(kind, field_tok, owner)

    def submessage(self, cls: type, field_tok: _Tok) -> Any:
        t = self.peek()
        if self.accept("{"):
            return self.message(cls, "}")
        if self.accept("<"):
            return self.message(cls, ">")
        raise ValueError(
            f"line {t.line}: field {field_tok.text!r} expects a {_PROTO_NAMES[cls]} message "
            f"in {{ }}, got {t.text!r}"
        )

    def map_entry(self, cls: type, field_tok: _Tok) -> tuple[str, Any]:
        t = self.peek()
        close = "}" if self.accept("{") else (">" if self.accept("<") else None)
        if close is None:
            raise ValueError(f"line {t.line}: map field {field_tok.text!r} expects {{ key: ... }}")
        key, value = None, None
        while not self.accept(close):
            ft = self.take()
            if ft.kind == "eof":
                raise ValueError(
                    f"line {ft.line}: missing {close!r} in map field {field_tok.text!r}"
                )
            if ft.text == "key":
                self.expect(":", "after 'key'")
                if key is not None:
                    raise ValueError(f"line {ft.line}: 'key' given twice in {field_tok.text!r}")
                key = self.scalar("str", ft, f"{field_tok.text} entry")
            elif ft.text == "value":
                self.accept(":")
                if value is not None:
                    raise ValueError(f"line {ft.line}: 'value' given twice in {field_tok.text!r}")
                value = self.submessage(cls, ft)
            else:
                raise ValueError(
                    f"line {ft.line}: unknown field {ft.text!r} in a {field_tok.text!r} entry "
                    "(known: key, value)"
                )
            self.accept(",") or self.accept(";")
        if key is None:
            raise ValueError(f"line {t.line}: {field_tok.text!r} entry has no key")
        return key, value if value is not None else cls()

    def integer(self, t: _Tok, where: str, what: str) -> int | None:
        """An integer literal starting at ``t`` (a '-' may stand apart), else None."""
        if t.kind == "punct" and t.text == "-":
            nxt = self.peek()
            if nxt.kind != "number" or nxt.text[0] in "+-":
                raise ValueError(f"{where} expects {what}, got '-' {nxt.text!r}")
            self.take()
            v = _int_literal(nxt.text)
            return None if v is None else -v
        return _int_literal(t.text) if t.kind == "number" else None

    def scalar(self, kind: Any, field_tok: _Tok, owner: str) -> Any:
        t = self.take()
        where = f"line {t.line}: field {field_tok.text!r} of {owner}"
        if kind == "str":
            if t.kind != "string":
                raise ValueError(f"{where} expects a string, got {t.text!r}")
            raw = _unescape(t)
            while self.peek().kind == "string":  # adjacent strings concatenate
                raw += _unescape(self.take())
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ValueError(f"{where}: string {t.text} is not valid UTF-8") from err
        if kind == "int":
            v = self.integer(t, where, "an integer")
            if v is None:
                raise ValueError(
                    f"{where} expects an integer (decimal, 0x hex or 0 octal), got {t.text!r}"
                )
            if not -(2**63) <= v < 2**63:
                raise ValueError(f"{where}: {v} does not fit in int64")
            return v
        if kind == "bool":
            if t.kind == "ident" and t.text in ("true", "True", "t"):
                return True
            if t.kind == "ident" and t.text in ("false", "False", "f"):
                return False
            if t.kind == "number" and t.text[0] not in "+-" and _int_literal(t.text) in (0, 1):
                return _int_literal(t.text) == 1
            raise ValueError(f"{where} expects true or false, got {t.text!r}")
        _, table, is_open = kind
        if t.kind == "ident":
            if t.text not in table:
                raise ValueError(
                    f"{where}: unknown enum value {t.text!r} (known: {', '.join(table)})"
                )
            return t.text
        v = self.integer(t, where, "an enum name or number")
        if v is None:
            raise ValueError(f"{where} expects an enum name or number, got {t.text!r}")
        if not -(2**31) <= v < 2**31:
            raise ValueError(f"{where}: enum number {v} does not fit in int32")
        by_number = {n: k for k, n in table.items()}
        if v in by_number:
            return by_number[v]
        if is_open:
            return v
        raise ValueError(f"{where}: unknown enum number {v}")


@renamed_keywords("TF-GNN's name", text="schema_text")
def parse_schema(schema_text: str | bytes) -> GraphSchema:
    """Parse the text format of a ``GraphSchema`` (what ``graph_schema.pbtxt`` holds); a
    ``str``, or UTF-8 ``bytes`` as protobuf's ``text_format.Parse`` also takes (TF-GNN's
    ``parse_schema(schema_text)``)."""
    if isinstance(schema_text, (bytes, bytearray)):
        try:
            schema_text = bytes(schema_text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"parse_schema(): schema_text bytes are not UTF-8 ({err})") from None
    if not isinstance(schema_text, str):
        raise TypeError(
            f"parse_schema() takes the text (str or bytes), got {type(schema_text).__name__}"
        )
    return _Parser(schema_text).message(GraphSchema, None)


@renamed_keywords("TF-GNN's name", path="filename")
def read_schema(filename: str | os.PathLike) -> GraphSchema:
    """Read a ``graph_schema.pbtxt`` file; errors name the file and the line (TF-GNN's
    ``read_schema(filename)``)."""
    with open(filename, encoding="utf-8") as f:
        text = f.read()
    try:
        return parse_schema(text)
    except ValueError as err:
        raise ValueError(f"{os.fspath(filename)}: {err}") from None


# ---------------------------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------------------------


def _write_message(obj: Any, indent: int, out: list[str]) -> None:
    """Append the text format lines of ``obj`` (a schema dataclass) to ``out``."""
    pad = "  " * indent
    groups: dict[str, str] = {}
    for member, group in _ONEOFS.get(type(obj), {}).items():
        if getattr(obj, member) is not None:
            if group in groups:
                raise ValueError(
                    f"{_PROTO_NAMES[type(obj)]}: {groups[group]!r} and {member!r} are both set, "
                    f"but they are in oneof {group!r}"
                )
            groups[group] = member
    for fname, (kind, label) in _DESCRIPTORS[type(obj)].items():
        value = getattr(obj, fname)
        if label == _MAP:
            for k, v in value.items():
                out.append(f"{pad}{fname} {{")
                out.append(f"{pad}  key: {_escape(k)}")
                out.append(f"{pad}  value {{")
                _write_message(v, indent + 2, out)
                out.append(f"{pad}  }}")
                out.append(f"{pad}}}")
            continue
        items = value if label == _REP else ([] if value is None else [value])
        for v in items:
            if isinstance(kind, type):
                out.append(f"{pad}{fname} {{")
                _write_message(v, indent + 1, out)
                out.append(f"{pad}}}")
            elif kind == "str":
                out.append(f"{pad}{fname}: {_escape(v)}")
            elif kind == "bool":
                out.append(f"{pad}{fname}: {'true' if v else 'false'}")
            else:
                out.append(f"{pad}{fname}: {v}")


def schema_to_text(schema: GraphSchema) -> str:
    """The text format of ``schema`` (protobuf ``MessageToString`` layout)."""
    if not isinstance(schema, GraphSchema):
        raise TypeError(f"expected a GraphSchema, got {type(schema).__name__}")
    out: list[str] = []
    _write_message(schema, 0, out)
    return "\n".join(out) + ("\n" if out else "")


@renamed_keywords("TF-GNN's name", path="filename")
def write_schema(schema: GraphSchema, filename: str | os.PathLike) -> None:
    """Write ``schema`` to ``filename`` in text format (readable by TF-GNN and
    :func:`read_schema`; TF-GNN's ``write_schema(schema, filename)``)."""
    text = schema_to_text(schema)
    with open(filename, "w", encoding="utf-8") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------
# schema <-> spec
# ---------------------------------------------------------------------------------------------


def _feature_spec(feature: FeatureSchema, where: str) -> Any:
    from arraygnn.graph_tensor.spec import FeatureSpec

    if feature.dtype is None:
        raise ValueError(f"{where}: feature has no dtype")
    if feature.dtype not in DTYPES:
        raise ValueError(f"{where}: dtype {feature.dtype} has no NumPy equivalent")
    dims: list[int | None] = []
    shape = feature.shape or ShapeSchema()
    if shape.unknown_rank:
        raise ValueError(f"{where}: unknown_rank shapes are not allowed")
    for d in shape.dim:
        size = 0 if d.size is None else d.size
        if size < -1:
            raise ValueError(f"{where}: dim size {size} (use -1 for ragged)")
        dims.append(None if size == -1 else size)
    return FeatureSpec(DTYPES[feature.dtype], tuple(dims))


def create_graph_spec_from_schema(schema: GraphSchema) -> Any:
    """The ``GraphTensorSpec`` (scalar graph) that graphs described by ``schema`` have."""
    from arraygnn.graph_tensor.spec import ContextSpec, EdgeSetSpec, GraphTensorSpec, NodeSetSpec

    if not isinstance(schema, GraphSchema):
        raise TypeError(f"expected a GraphSchema, got {type(schema).__name__}")
    ctx = schema.context or ContextSchema()
    context = ContextSpec(
        {k: _feature_spec(f, f"context feature {k!r}") for k, f in ctx.features.items()}
    )
    node_sets = {
        name: NodeSetSpec(
            {
                k: _feature_spec(f, f"node set {name!r}, feature {k!r}")
                for k, f in ns.features.items()
            }
        )
        for name, ns in schema.node_sets.items()
    }
    edge_sets = {}
    for name, es in schema.edge_sets.items():
        for role in ("source", "target"):
            ref = getattr(es, role)
            if ref is None:
                raise ValueError(f"edge set {name!r}: no {role} node set")
            if ref not in node_sets:
                raise ValueError(
                    f"edge set {name!r}: {role} node set {ref!r} is not in the schema "
                    f"(node sets: {sorted(node_sets)})"
                )
        edge_sets[name] = EdgeSetSpec(
            es.source,
            es.target,
            {
                k: _feature_spec(f, f"edge set {name!r}, feature {k!r}")
                for k, f in es.features.items()
            },
        )
    return GraphTensorSpec(context=context, node_sets=node_sets, edge_sets=edge_sets)


def _native(dtype: np.dtype) -> np.dtype:
    """``dtype`` in native byte order ('>f4' -> float32 on a little-endian machine)."""
    return dtype.newbyteorder("=") if dtype.byteorder not in "=|" else dtype


def _dtype_name(dtype: np.dtype, where: str) -> str:
    """The ``DT_*`` name of a NumPy dtype (any byte order; all strings are ``DT_STRING``)."""
    if dtype.kind in "USO":
        return "DT_STRING"
    for name, d in DTYPES.items():
        if d == _native(dtype):
            return name
    raise ValueError(f"{where}: dtype {dtype} has no DT_* equivalent")


def _feature_schema(fspec: Any, where: str) -> FeatureSchema:
    """As TF-GNN: a feature with one value per item (per-item shape ``()``) leaves ``shape``
    unset."""
    dims = [DimSchema(size=-1 if d is None else d) for d in fspec.shape]
    shape = ShapeSchema(dim=dims) if dims else None
    return FeatureSchema(dtype=_dtype_name(fspec.dtype, where), shape=shape)


def create_schema_from_graph_spec(spec_or_graph: Any) -> GraphSchema:
    """A ``GraphSchema`` describing a spec (or a graph's spec); no descriptions.

    As TF-GNN's ``create_schema_pb_from_graph_spec``, the ``context`` is left unset (``None``)
    when the context has no features, and so is the ``shape`` of a feature with one value
    per item. Unlike it, this accepts batched and multi-component graphs (their per-item
    specs are the same) and complex dtypes; :func:`create_schema_pb_from_graph_spec`
    checks as TF-GNN does."""
    from arraygnn.graph_tensor.spec import GraphTensorSpec

    spec = getattr(spec_or_graph, "spec", spec_or_graph)
    if not isinstance(spec, GraphTensorSpec):
        raise TypeError(
            f"create_schema_from_graph_spec: expected a GraphTensor or GraphTensorSpec, got "
            f"{type(spec_or_graph).__name__}"
        )
    ctx = (
        ContextSchema(
            {
                k: _feature_schema(f, f"context feature {k!r}")
                for k, f in spec.context.features.items()
            }
        )
        if spec.context.features
        else None  # TF-GNN sets the context message only for a feature
    )
    node_sets = {
        n: NodeSetSchema(
            features={
                k: _feature_schema(f, f"node set {n!r}, feature {k!r}")
                for k, f in s.features.items()
            }
        )
        for n, s in spec.node_sets.items()
    }
    edge_sets = {
        n: EdgeSetSchema(
            features={
                k: _feature_schema(f, f"edge set {n!r}, feature {k!r}")
                for k, f in s.features.items()
            },
            source=s.source_name,
            target=s.target_name,
        )
        for n, s in spec.edge_sets.items()
    }
    return GraphSchema(context=ctx, node_sets=node_sets, edge_sets=edge_sets)


def _same_dtype(a: np.dtype, b: np.dtype) -> bool:
    """Equal dtypes up to byte order; all string dtypes (str, bytes, object) match."""
    if a.kind in "USO" and b.kind in "USO":
        return True
    return _native(a) == _native(b)


def check_graph_conforms(graph: Any, schema_or_spec: Any) -> None:
    """Raise ``ValueError`` listing every way ``graph`` (scalar or batched) differs from a
    ``GraphSchema`` or a spec: missing / extra sets or features, dtypes, per-item shapes,
    adjacency names. All string dtypes (str, bytes, object) conform to ``DT_STRING``."""
    from arraygnn.graph_tensor.spec import GraphTensorSpec

    expected = (
        create_graph_spec_from_schema(schema_or_spec)
        if isinstance(schema_or_spec, GraphSchema)
        else schema_or_spec
    )
    if not isinstance(expected, GraphTensorSpec):
        raise TypeError(
            "check_graph_conforms: expected a GraphSchema or GraphTensorSpec, got "
            f"{type(schema_or_spec).__name__}"
        )
    actual = getattr(graph, "spec", None)
    if not isinstance(actual, GraphTensorSpec):
        raise TypeError(f"check_graph_conforms: expected a GraphTensor, got {type(graph).__name__}")
    problems: list[str] = []

    def features(where: str, have: Any, want: Any) -> None:
        for k in sorted(set(want) - set(have)):
            problems.append(f"{where}: missing feature {k!r}")
        for k in sorted(set(have) - set(want)):
            problems.append(f"{where}: feature {k!r} is not in the schema")
        for k in sorted(set(have) & set(want)):
            h, w = have[k], want[k]
            if not _same_dtype(h.dtype, w.dtype):
                problems.append(f"{where}, feature {k!r}: dtype {h.dtype}, schema says {w.dtype}")
            if h.shape != w.shape:
                problems.append(
                    f"{where}, feature {k!r}: per-item shape {h.shape}, schema says {w.shape}"
                )

    features("context", actual.context.features, expected.context.features)
    for kind, have, want in (
        ("node set", actual.node_sets, expected.node_sets),
        ("edge set", actual.edge_sets, expected.edge_sets),
    ):
        for n in sorted(set(want) - set(have)):
            problems.append(f"missing {kind} {n!r}")
        for n in sorted(set(have) - set(want)):
            problems.append(f"{kind} {n!r} is not in the schema")
        for n in sorted(set(have) & set(want)):
            if kind == "edge set":
                h, w = have[n], want[n]
                if (h.source_name, h.target_name) != (w.source_name, w.target_name):
                    problems.append(
                        f"edge set {n!r} joins {h.source_name!r} -> {h.target_name!r}, schema "
                        f"says {w.source_name!r} -> {w.target_name!r}"
                    )
            features(f"{kind} {n!r}", have[n].features, want[n].features)
    if problems:
        raise ValueError("graph does not conform: " + "; ".join(problems))


def create_graph_spec_from_schema_pb(schema: GraphSchema, indices_dtype: Any = None) -> Any:
    """TF-GNN's name of :func:`create_graph_spec_from_schema`; ``indices_dtype`` is accepted
    and ignored (index dtypes are not part of arraygnn specs)."""
    del indices_dtype
    return create_graph_spec_from_schema(schema)


def _check_scalar_singleton(graph: Any, name: str) -> None:
    """TF-GNN's ``check_scalar_singleton_graph_tensor``: a scalar graph (or spec) with one
    component (counted for a GraphTensor; a spec does not record it)."""
    from arraygnn.graph_tensor.checks import check_scalar_graph_tensor
    from arraygnn.graph_tensor.spec import GraphTensorSpec

    check_scalar_graph_tensor(graph, name)
    if not isinstance(graph, GraphTensorSpec) and graph.total_num_components != 1:
        raise ValueError(
            f"{name} requires scalar GraphTensor with a single graph component, got a "
            f"scalar GraphTensor with {graph.total_num_components} components."
        )


def create_schema_pb_from_graph_spec(graph: Any) -> GraphSchema:
    """TF-GNN's name of :func:`create_schema_from_graph_spec` (a graph or its spec), with
    TF-GNN's checks: ``ValueError`` unless the graph is scalar with a single component (the
    component count is checked for a GraphTensor; a spec does not record it) and every
    feature has a dtype that ``tf.Example`` I/O supports (no complex dtypes)."""
    from arraygnn.graph_tensor.spec import GraphTensorSpec
    from arraygnn.io.schema_validation import _printable_supported_dtypes, is_supported_dtype

    if isinstance(graph, GraphTensorSpec) or hasattr(graph, "num_components"):
        _check_scalar_singleton(graph, "create_schema_pb_from_graph()")  # TF-GNN's text
    schema = create_schema_from_graph_spec(graph)
    for where, pieces in (
        ("Graph context", {"": schema.context} if schema.context is not None else {}),
        ("Node set", schema.node_sets),
        ("Edge set", schema.edge_sets),
    ):
        for set_name, piece in pieces.items():
            for fname, feature in piece.features.items():
                if not is_supported_dtype(feature.dtype):
                    ctx = where if not set_name else f"{where} {set_name}"
                    raise ValueError(
                        f"{ctx} feature {fname} has dtype={feature.dtype} which is not "
                        f"supported by the GraphSchema. {_printable_supported_dtypes()}"
                    )
    return schema


def check_compatible_with_schema_pb(graph: Any, schema: GraphSchema) -> None:
    """TF-GNN's ``check_compatible_with_schema_pb``: ``ValueError`` unless ``graph`` (a
    GraphTensor or its spec) is scalar, has a single graph component (checked for a
    GraphTensor; a spec does not record it) and :func:`check_graph_conforms` to ``schema``
    (the message lists every difference)."""
    from types import SimpleNamespace

    _check_scalar_singleton(graph, "check_compatible_with_schema_pb()")
    try:
        check_graph_conforms(SimpleNamespace(spec=getattr(graph, "spec", graph)), schema)
    except ValueError as err:
        raise ValueError(f"Graph is not compatible with the graph schema: {err}") from None


def _check_descriptor_fields() -> None:  # keep dataclasses and descriptors in step
    for cls, desc in _DESCRIPTORS.items():
        assert [f.name for f in fields(cls)] == list(desc), cls


_check_descriptor_fields()
