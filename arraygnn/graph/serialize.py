"""DGL's graph files (``dgl.save_graphs`` / ``dgl.load_graphs`` / ``dgl.data.utils.load_labels``,
``save_info`` / ``load_info``) for the DGL face, in a file that is safe to load.

>>> import os, tempfile
>>> import numpy as np
>>> from arraygnn.graph import graph, heterograph, load_graphs, save_graphs
>>> g1 = graph((np.array([0, 1, 2]), np.array([1, 2, 3])))
>>> g2 = graph((np.array([0, 2]), np.array([2, 3])))
>>> g2.edata["e"] = np.ones((2, 4), np.float32)
>>> path = os.path.join(tempfile.mkdtemp(), "data.bin")
>>> save_graphs(path, [g1, g2], {"glabel": np.array([0, 1])})
>>> graphs, labels = load_graphs(path)
>>> graphs[1].edata["e"].shape, labels["glabel"].tolist()
((2, 4), [0, 1])
>>> (g,), labels = load_graphs(path, [0])      # only graph 0; labels of every graph
>>> g.num_edges(), labels["glabel"].tolist()
(3, [0, 1])

The file is arraygnn's own (DGL's binary format is neither written nor read): one
uncompressed NumPy ``.npz`` (a zip of ``.npy`` arrays) holding a UTF-8 JSON ``header``
(names, types, idtype, format version) and the arrays. Graphs with the same layout (node
types, edge types, idtype, feature names / dtypes / per-row shapes) are stored together, one
array per field with every graph's rows concatenated and per-graph node / edge counts, so a
dataset of many small graphs is a few arrays, not a few per graph.

RULE: nothing is pickled, on writing or reading: arrays are read with the ``.npy`` reader's
  header checks only (object and structured dtypes refused), so loading a file never runs
  code from it. Members must be stored uncompressed (as written), so no array read is
  larger than the file.
RULE: ``load_graphs`` checks the file before it builds a graph: every member present, each
  array's size equal to what its ``.npy`` header and the JSON header say, ids of the
  graph's idtype and inside ``[0, num_nodes)`` of their own graph and node type, every
  feature with one row per node / edge; a problem raises ``ValueError`` naming the file and
  the piece ("corrupted or truncated graph file (...)").
RULE: a file is written under a temporary name and moved into place when complete, so an
  interrupted save never leaves a file that looks valid (``has_cache``).
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

import numpy as np

from arraygnn._namespace import is_array, to_numpy
from arraygnn.graph.core import Graph

__all__ = ["save_graphs", "load_graphs", "load_labels", "save_info", "load_info"]

FORMAT = "arraygnn.graphs"
VERSION = 1
_HEADER = "header"
_FORMATS = ("coo", "csr", "csc")
_REMOTE = ("hdfs://", "viewfs://", "s3://")
_INT32_MAX = int(np.iinfo(np.int32).max)


# ---------------------------------------------------------------------- paths
def _path(filename: Any, where: str) -> str:
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"{where}: filename must be a path, got {type(filename).__name__}")
    path = os.fspath(filename)
    if not isinstance(path, str):
        path = os.fsdecode(path)
    if path.startswith(_REMOTE):
        raise ValueError(f"{where}: only local files are read and written, got {path!r}")
    return path


def _existing(filename: Any, where: str) -> str:
    path = _path(filename, where)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{where}: file {path!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{where}: {path!r} is a directory, not a file")
    return path


def _write_atomically(filename: Any, where: str, write: Callable[[BinaryIO], None]) -> None:
    """Write through ``write(f)`` to a temporary file beside ``filename``, then rename it."""
    path = _path(filename, where)
    if os.path.isdir(path):
        raise ValueError(f"{where}: filename {path!r} is an existing directory")
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# ---------------------------------------------------------------------- saving
def _storable(a: Any, what: str) -> np.ndarray:
    """A host copy of array ``a`` (NumPy: the array itself), refused when it would need pickle."""
    if not is_array(a):
        raise TypeError(
            f"save_graphs: {what} must be a NumPy or CuPy array, got {type(a).__name__}"
        )
    if a.dtype.hasobject or a.dtype.kind == "V":
        raise TypeError(
            f"save_graphs: {what} has dtype {a.dtype}; object and structured arrays are not "
            "stored (the file is never pickled)"
        )
    return to_numpy(a)


def _layout(g: Graph, i: int) -> tuple[Any, ...]:
    """What graphs stored together share: idtype, types, feature names / dtypes / row shapes."""

    def frame(f: Any, at: str) -> tuple[Any, ...]:
        out = []
        for k, v in f._data.items():
            if v.dtype.hasobject or v.dtype.kind == "V":
                _storable(v, f"g_list[{i}].{at}.data[{k!r}]")
            out.append((k, v.dtype.str, tuple(v.shape[1:])))
        return tuple(out)

    ntypes = tuple(g._num_src)
    nd = tuple(frame(g._src_frames[t], f"nodes[{t!r}]") for t in ntypes)
    ed = tuple(frame(r.frame, f"edges[{c!r}]") for c, r in g._rels.items())
    return (str(g.idtype), ntypes, tuple(g._rels), nd, ed)


def _concat(parts: list[Any], what: str) -> np.ndarray:
    arrays = [_storable(a, what) for a in parts]
    # one dtype per group (its layout); dtype= keeps it exact (a plain concatenate turns
    # a big-endian '>i4' into native int32)
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays, axis=0, dtype=arrays[0].dtype)


def save_graphs(
    filename: str | os.PathLike,
    g_list: Any,
    labels: Mapping[str, Any] | None = None,
    formats: Any = None,
) -> None:
    """Save graphs and their labels to ``filename`` (DGL's ``dgl.save_graphs``).

    Args:
        filename: the file to write (its folder is created; the name is kept as given,
            ``.bin`` or any other).
        g_list: a :class:`~arraygnn.graph.Graph` or a list of them: homogeneous,
            heterogeneous or bipartite, each with its node and edge features.
        labels: ``{name: array}`` stored beside the graphs (graph-level labels or anything
            else; not checked against the number of graphs, as DGL).
        formats: DGL's sparse formats to store (``'coo'``, ``'csr'``, ``'csc'``, or a list):
            checked and otherwise unused: the edges are stored as ``(src, dst)`` in edge-id
            order and a CSR is built again on first use.

    The idtype (int32 / int64), node types, canonical edge types, edge order and every
    feature (dtype and shape) are kept. CuPy graphs and labels are saved from host copies
    and come back as NumPy arrays (``g.to('cuda')`` after loading). As DGL: blocks are
    refused, and batch information is not stored (a batched graph loads as one graph;
    keep ``batch_num_nodes()`` as a label to split it again).

    Raises ``TypeError`` for a non-graph, a block, labels that are not a dict of arrays or
    an object / structured array; ``ValueError`` for an empty list, an unknown format or a
    directory ``filename``.
    """
    graphs = [g_list] if isinstance(g_list, Graph) else g_list
    if not isinstance(graphs, (list, tuple)):
        raise TypeError(
            f"save_graphs: g_list must be a Graph or a list of Graphs, got {type(g_list).__name__}"
        )
    if not graphs:
        raise ValueError("save_graphs: g_list is empty; there are no graphs to save")
    for i, g in enumerate(graphs):
        if not isinstance(g, Graph):
            raise TypeError(f"save_graphs: g_list[{i}] is a {type(g).__name__}, not a Graph")
        if g.is_block:
            raise TypeError(
                f"save_graphs: g_list[{i}] is a block (to_block); blocks are not saved, as in "
                "DGL: save the graph they were made from"
            )
    _check_formats(formats)
    if labels is None:
        labels = {}
    if not isinstance(labels, Mapping):
        raise TypeError(
            f"save_graphs: labels must be a dict {{name: array}}, got {type(labels).__name__}"
        )
    members: dict[str, np.ndarray] = {}

    def put(a: np.ndarray) -> str:
        key = f"a{len(members)}"
        members[key] = a
        return key

    label_entries = []
    for k, v in labels.items():
        if not isinstance(k, str):
            raise TypeError(f"save_graphs: labels keys must be str, got {k!r}")
        label_entries.append([k, put(_storable(v, f"labels[{k!r}]"))])

    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, g in enumerate(graphs):
        groups.setdefault(_layout(g, i), []).append(i)
    group_entries = []
    for layout, positions in groups.items():
        idtype, ntypes, rels, nd, ed = layout
        gs = [graphs[i] for i in positions]
        num_nodes = np.array([[g._num_src[t] for t in ntypes] for g in gs], np.int64)
        num_edges = np.array([[g._rels[c].num_edges for c in rels] for g in gs], np.int64)
        where = f"g_list[{positions[0]}]"
        group_entries.append(
            {
                "idtype": idtype,
                "positions": put(np.asarray(positions, np.int64)),
                "ntypes": list(ntypes),
                "num_nodes": put(num_nodes.reshape(len(gs), len(ntypes))),
                "etypes": [
                    {
                        "etype": list(c),
                        "src": put(_concat([g._rels[c].src for g in gs], f"{where} ids")),
                        "dst": put(_concat([g._rels[c].dst for g in gs], f"{where} ids")),
                    }
                    for c in rels
                ],
                "num_edges": put(num_edges.reshape(len(gs), len(rels))),
                "ndata": [
                    {
                        "ntype": t,
                        "features": [
                            [k, put(_concat([g._src_frames[t]._data[k] for g in gs], k))]
                            for k, _, _ in feats
                        ],
                    }
                    for t, feats in zip(ntypes, nd)
                ],
                "edata": [
                    {
                        "etype": list(c),
                        "features": [
                            [k, put(_concat([g._rels[c].frame._data[k] for g in gs], k))]
                            for k, _, _ in feats
                        ],
                    }
                    for c, feats in zip(rels, ed)
                ],
            }
        )
    header = {
        "format": FORMAT,
        "version": VERSION,
        "num_graphs": len(graphs),
        "labels": label_entries,
        "groups": group_entries,
    }
    members[_HEADER] = np.frombuffer(json.dumps(header).encode("utf-8"), np.uint8)
    _write_atomically(filename, "save_graphs", lambda f: np.savez(f, **members))


def _check_formats(formats: Any) -> None:
    if formats is None:
        return
    names = [formats] if isinstance(formats, str) else formats
    if not isinstance(names, (list, tuple)) or not all(
        isinstance(n, str) and n in _FORMATS for n in names
    ):
        raise ValueError(
            f"save_graphs: formats must be one of {list(_FORMATS)} or a list of them, "
            f"got {formats!r}"
        )


# ---------------------------------------------------------------------- reading
class _File:
    """An open graph file: its header and checked reads of its arrays."""

    def __init__(self, path: str, where: str) -> None:
        self.path = path
        self.where = where
        with open(path, "rb") as f:
            head = f.read(4)
            self.size = os.fstat(f.fileno()).st_size
        if len(head) < 4:
            raise self.corrupt(f"{len(head)} bytes")
        if head not in (b"PK\x03\x04", b"PK\x05\x06"):
            raise self.foreign(f"it starts with {head!r}")
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as err:
            raise self.corrupt(f"{type(err).__name__}: {err}") from None
        try:
            self.names = set(self.zip.namelist())
            if _HEADER + ".npy" not in self.names:
                raise self.foreign(f"it has no {_HEADER!r} member")
            raw = self.array(_HEADER)
            if raw.dtype != np.uint8 or raw.ndim != 1:
                raise self.corrupt("the header is not a byte array")
            try:
                header = json.loads(raw.tobytes().decode("utf-8"))
            except (ValueError, RecursionError) as err:
                raise self.corrupt(f"unreadable header: {type(err).__name__}") from None
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise self.foreign(f"its header names no {FORMAT!r} format")
            version = header.get("version")
            if version != VERSION:
                raise self.corrupt(f"format version {version!r}; this arraygnn reads {VERSION}")
            self.header = header
        except BaseException:
            self.zip.close()
            raise

    def __enter__(self) -> _File:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.zip.close()

    def foreign(self, why: str) -> ValueError:
        return ValueError(
            f"{self.where}: {self.path!r} is not an arraygnn graph file ({why}); files "
            "written by DGL's own save_graphs are not read here: load them with DGL and "
            "save the arrays again with arraygnn.graph.save_graphs"
        )

    def corrupt(self, what: str) -> ValueError:
        return ValueError(
            f"{self.where}: {self.path!r} is a corrupted or truncated graph file ({what})"
        )

    def need(self, ok: bool, what: str) -> None:
        if not ok:
            raise self.corrupt(what)

    def array(self, key: Any) -> np.ndarray:
        """The array of member ``key``, read without pickle after its size is checked."""
        self.need(isinstance(key, str) and key + ".npy" in self.names, f"member {key!r} is missing")
        info = self.zip.getinfo(key + ".npy")
        # save_graphs stores members uncompressed: their sizes are then bounded by the
        # file's (no small file inflating to GBs; no zlib / encryption errors)
        self.need(info.compress_type == zipfile.ZIP_STORED, f"member {key!r} is compressed")
        self.need(not info.flag_bits & 1, f"member {key!r} is encrypted")
        self.need(
            info.file_size <= self.size,
            f"member {key!r} declares {info.file_size} bytes, larger than the file",
        )
        try:
            with self.zip.open(info) as fp:
                version = np.lib.format.read_magic(fp)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
                elif version == (2, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
                else:
                    raise self.corrupt(f"member {key!r}: .npy version {version}")
                if dtype.hasobject or dtype.kind == "V" or dtype.itemsize == 0:
                    raise self.corrupt(
                        f"member {key!r} holds dtype {dtype}; object and structured arrays "
                        "are never read (no pickle)"
                    )
                if any(d < 0 for d in shape):
                    raise self.corrupt(f"member {key!r} has shape {shape}")
                nbytes = math.prod(shape) * dtype.itemsize
                if info.file_size - fp.tell() != nbytes:
                    raise self.corrupt(
                        f"member {key!r} holds {info.file_size - fp.tell()} bytes of data, "
                        f"its shape {shape} and dtype {dtype} need {nbytes}"
                    )
                out = np.empty(math.prod(shape), dtype)
                view = memoryview(out.view(np.uint8).reshape(-1))
                got = 0
                while got < nbytes:
                    n = fp.readinto(view[got:])
                    if not n:
                        raise self.corrupt(f"member {key!r} ends after {got} of {nbytes} bytes")
                    got += n
        except (
            zipfile.BadZipFile,
            OSError,
            EOFError,
            ValueError,
            SyntaxError,
            NotImplementedError,  # zipfile's refusals of flag bits it does not read
            RuntimeError,
        ) as err:
            if isinstance(err, ValueError) and str(err).startswith(self.where):
                raise
            raise self.corrupt(f"member {key!r}: {type(err).__name__}: {err}"[:300]) from None
        return out.reshape(shape[::-1]).T if fortran else out.reshape(shape)

    def field(self, entry: Any, name: str) -> Any:
        self.need(isinstance(entry, dict) and name in entry, f"an entry has no {name!r}")
        return entry[name]

    def labels(self) -> dict[str, np.ndarray]:
        entries = self.header.get("labels")
        self.need(isinstance(entries, list), "no label list")
        out = {}
        for entry in entries:
            ok = isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
            self.need(ok, f"label entry {entry!r:.60}")
            out[entry[0]] = self.array(entry[1])
        return out


def _ints(f: _File, key: Any, what: str, ndim: int, rows: int | None = None) -> np.ndarray:
    a = f.array(key)
    f.need(a.dtype == np.int64 and a.ndim == ndim, f"{what} must be a {ndim}-D int64 array")
    f.need(rows is None or a.shape[0] == rows, f"{what} has {a.shape[0]} rows for {rows} graphs")
    f.need(not (a < 0).any(), f"{what} holds negative values")
    return a


def _names(f: _File, value: Any, what: str) -> list[str]:
    ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    f.need(ok and len(set(value)) == len(value), f"{what} must be distinct names")
    return value


def _offsets(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=out[1:])
    return out


class _Group:
    """One group of same-layout graphs read from the file and checked."""

    def __init__(self, f: _File, entry: Any, index: int) -> None:
        self.where = f"group {index}"
        self.f = f
        f.need(isinstance(entry, dict), f"{self.where} is not an object")
        self.positions = _ints(f, f.field(entry, "positions"), f"{self.where} positions", 1)
        self.entry = entry

    def read(self) -> None:
        f, entry, n = self.f, self.entry, self.positions.shape[0]
        idtype = f.field(entry, "idtype")
        f.need(idtype in ("int32", "int64"), f"{self.where}: idtype {idtype!r}")
        self.idtype = np.dtype(idtype)
        self.ntypes = _names(f, f.field(entry, "ntypes"), f"{self.where} node types")
        self.num_nodes = _ints(f, f.field(entry, "num_nodes"), "node counts", 2, n)
        f.need(self.num_nodes.shape[1] == len(self.ntypes), "node counts per type")
        etypes = f.field(entry, "etypes")
        f.need(isinstance(etypes, list), f"{self.where}: edge types")
        self.num_edges = _ints(f, f.field(entry, "num_edges"), "edge counts", 2, n)
        f.need(self.num_edges.shape[1] == len(etypes), "edge counts per type")
        big = max(int(self.num_nodes.max(initial=0)), int(self.num_edges.max(initial=0)))
        f.need(self.idtype == np.int64 or big <= _INT32_MAX, "int32 ids for counts past int32")
        self.node_offsets = [_offsets(self.num_nodes[:, j]) for j in range(len(self.ntypes))]
        self.edge_offsets = [_offsets(self.num_edges[:, j]) for j in range(len(etypes))]
        # counts are >= 0, so a sum that wrapped around int64 shows as a descent (and would
        # cut rows from the arrays' ends, or overflow np.repeat's total in _check_range)
        for offsets in self.node_offsets + self.edge_offsets:
            f.need(bool((offsets[1:] >= offsets[:-1]).all()), "counts that add up past int64")
        self.rels: list[tuple[tuple[str, str, str], np.ndarray, np.ndarray]] = []
        for j, rel in enumerate(etypes):
            c = f.field(rel, "etype")
            f.need(
                isinstance(c, list)
                and len(c) == 3
                and all(isinstance(x, str) for x in c)
                and c[0] in self.ntypes
                and c[2] in self.ntypes,
                f"edge type {c!r:.80}",
            )
            c = tuple(c)
            f.need(all(c != r[0] for r in self.rels), f"edge type {c} twice")
            total = int(self.edge_offsets[j][-1])
            ids = []
            for side, col in (("source", 0), ("destination", 2)):
                a = f.array(f.field(rel, "src" if col == 0 else "dst"))
                what = f"{side} ids of edge type {c!r}"
                f.need(
                    a.dtype == self.idtype and a.ndim == 1,
                    f"{what}: dtype {a.dtype}, {a.ndim}-D, not 1-D {self.idtype}",
                )
                f.need(a.shape[0] == total, f"{a.shape[0]} {what} for {total} edges")
                self._check_range(
                    a, self.num_nodes[:, self.ntypes.index(c[col])], self.num_edges[:, j], what
                )
                ids.append(a)
            self.rels.append((c, ids[0], ids[1]))  # type: ignore[arg-type]
        self.ndata = self._frames(
            f.field(entry, "ndata"), "ntype", self.ntypes, self.node_offsets, "node"
        )
        self.edata = self._frames(
            f.field(entry, "edata"), "etype", [r[0] for r in self.rels], self.edge_offsets, "edge"
        )

    def _check_range(
        self, ids: np.ndarray, nodes: np.ndarray, edges: np.ndarray, what: str
    ) -> None:
        """Each graph's ids inside ``[0, its node count)``, one vectorised pass."""
        if ids.size == 0:
            return
        limit = np.repeat(nodes, edges)
        bad = (ids < 0) | (ids >= limit)
        if bad.any():
            e = int(np.argmax(bad))
            k = int(np.searchsorted(_offsets(edges), e, side="right")) - 1
            n = int(limit[e])
            raise self.f.corrupt(
                f"{what} of graph {int(self.positions[k])} contain id {int(ids[e])}, "
                f"outside [0, {n}) ({n} nodes)"
            )

    def _frames(
        self, entries: Any, key: str, types: list[Any], offsets: list[np.ndarray], kind: str
    ) -> list[list[tuple[str, np.ndarray]]]:
        f = self.f
        f.need(isinstance(entries, list) and len(entries) == len(types), f"{kind} feature lists")
        out = []
        for t, entry in zip(types, entries):
            got = f.field(entry, key)
            f.need((tuple(got) if isinstance(got, list) else got) == t, f"{kind} features of {t!r}")
            feats = f.field(entry, "features")
            f.need(isinstance(feats, list), f"{kind} features of {t!r}")
            _names(
                f,
                [p[0] if isinstance(p, list) and len(p) == 2 else None for p in feats],
                f"{kind} feature names of {t!r}",
            )
            total = int(offsets[types.index(t)][-1])
            frame = []
            for name, member in feats:
                a = f.array(member)
                rows = a.shape[0] if a.ndim else "no"
                f.need(
                    a.ndim >= 1 and a.shape[0] == total,
                    f"{kind} feature {name!r} of type {t!r} has {rows} rows for {total} {kind}s",
                )
                frame.append((name, a))
            out.append(frame)
        return out

    def build(self, k: int, copy: bool) -> Graph:
        """Graph ``k`` of the group (views of the group's arrays, copies with ``copy``)."""

        def cut(a: np.ndarray, offsets: np.ndarray) -> np.ndarray:
            part = a[offsets[k] : offsets[k + 1]]
            return part.copy() if copy else part

        rels = {
            c: (cut(s, self.edge_offsets[j]), cut(d, self.edge_offsets[j]))
            for j, (c, s, d) in enumerate(self.rels)
        }
        counts = {t: int(self.num_nodes[k, j]) for j, t in enumerate(self.ntypes)}
        g = Graph(rels, counts, validate=False)
        for j, t in enumerate(self.ntypes):
            for name, a in self.ndata[j]:
                g._src_frames[t]._data[name] = cut(a, self.node_offsets[j])
        for j, (c, _, _) in enumerate(self.rels):
            for name, a in self.edata[j]:
                g._rels[c].frame._data[name] = cut(a, self.edge_offsets[j])
        return g


def _idx_list(idx_list: Any, num_graphs: int) -> list[int] | None:
    if idx_list is None:
        return None
    if is_array(idx_list):
        idx_list = to_numpy(idx_list)
        if idx_list.ndim != 1 or (idx_list.size and idx_list.dtype.kind not in "iu"):
            raise TypeError(f"load_graphs: idx_list must be a 1-D integer array, got {idx_list!r}")
        idx_list = idx_list.tolist()
    if not isinstance(idx_list, (list, tuple, range)):
        raise TypeError(
            f"load_graphs: idx_list must be a list of ints, got {type(idx_list).__name__}"
        )
    out = []
    for i in idx_list:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"load_graphs: idx_list must hold ints, got {i!r}")
        if not 0 <= int(i) < num_graphs:
            raise ValueError(
                f"load_graphs: idx_list holds {int(i)}, outside [0, {num_graphs}) for a file "
                f"of {num_graphs} graphs"
            )
        out.append(int(i))
    return out


def load_graphs(
    filename: str | os.PathLike, idx_list: Any = None
) -> tuple[list[Graph], dict[str, Any]]:
    """Load graphs saved by :func:`save_graphs` (DGL's ``dgl.load_graphs``).

    Returns ``(graph_list, labels)``: the graphs (NumPy arrays, the saved idtype, types and
    features) and the ``labels`` dict (empty when none were saved). ``idx_list`` (a list or
    1-D int array) picks graphs by position, in its order (repeats give separate graphs);
    the labels are always those of every graph, as DGL. Only the arrays of the picked
    graphs' layout groups are read; those groups are checked whole.

    Differs from DGL: ``idx_list=[]`` loads no graph (DGL loads every graph for an empty
    list). The graphs of a full load hold views of one loaded array per field (disjoint
    rows: a write into one graph's array is not seen by another); with ``idx_list`` each
    graph gets copies, so the rest of the file's arrays are freed.

    Raises ``FileNotFoundError`` for a missing file, ``TypeError`` / ``ValueError`` for a
    bad ``idx_list`` (a position outside the file), ``ValueError`` for a file that is not
    arraygnn's or is corrupted (see the module's RULEs).
    """
    path = _existing(filename, "load_graphs")
    with _File(path, "load_graphs") as f:
        num_graphs = f.field(f.header, "num_graphs")
        f.need(type(num_graphs) is int and num_graphs >= 0, "number of graphs")
        entries = f.field(f.header, "groups")
        f.need(isinstance(entries, list), "no group list")
        groups = [_Group(f, e, i) for i, e in enumerate(entries)]
        stored = sum(group.positions.shape[0] for group in groups)
        f.need(stored == num_graphs, f"{stored} graphs stored, the header says {num_graphs}")
        where = np.full((num_graphs, 2), -1, np.int64)  # position -> (group, row)
        for gi, group in enumerate(groups):
            p = group.positions
            f.need(not p.size or int(p.max()) < num_graphs, f"group {gi} positions")
            f.need(
                bool((where[p, 0] == -1).all()) and np.unique(p).size == p.size,
                f"group {gi} repeats a graph position",
            )
            where[p, 0] = gi
            where[p, 1] = np.arange(p.shape[0])
        f.need(bool((where[:, 0] >= 0).all()), "a graph position belongs to no group")
        picked = _idx_list(idx_list, num_graphs)
        order = range(num_graphs) if picked is None else picked
        for gi in sorted({int(where[i, 0]) for i in order}):
            groups[gi].read()
        graphs = [
            groups[int(where[i, 0])].build(int(where[i, 1]), picked is not None) for i in order
        ]
        return graphs, f.labels()


def load_labels(filename: str | os.PathLike) -> dict[str, Any]:
    """The ``labels`` dict of a :func:`save_graphs` file, without reading its graphs (DGL's
    ``dgl.data.utils.load_labels``)."""
    path = _existing(filename, "load_labels")
    with _File(path, "load_labels") as f:
        return f.labels()


# ---------------------------------------------------------------------- info dicts
def save_info(path: str | os.PathLike, info: Mapping[str, Any]) -> None:
    """Save a dict of dataset information (DGL's ``dgl.data.utils.save_info``).

    DGL pickles the dict; here it is stored without pickle in the arrays format of
    :mod:`arraygnn.datasets._codec` (a JSON header and raw arrays): values may be numbers,
    strings, bytes, ``None``, NumPy / CuPy arrays (host copies) and scalars, lists, tuples
    and dicts with str keys of those; anything else is a ``TypeError`` naming it. The file
    name is kept as given (``info.pkl`` in DGL's tutorials works, though it is no pickle).

    >>> import os, tempfile
    >>> import numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "info.pkl")
    >>> save_info(path, {"num_classes": 3, "mean": np.array([0.5, 1.5])})
    >>> info = load_info(path)
    >>> info["num_classes"], info["mean"].tolist()
    (3, [0.5, 1.5])
    """
    from arraygnn.datasets import _codec

    if not isinstance(info, Mapping):
        raise TypeError(f"save_info: info must be a dict, got {type(info).__name__}")
    blob = _codec.dumps(dict(info), where="save_info")
    _write_atomically(path, "save_info", lambda f: f.write(blob))


def load_info(path: str | os.PathLike) -> dict[str, Any]:
    """The dict saved by :func:`save_info` (DGL's ``dgl.data.utils.load_info``); a file
    that is not one (a pickle written by DGL, a truncated file) raises ``ValueError``
    naming it, and nothing in it is unpickled or imported."""
    from arraygnn.datasets import _codec

    p = _existing(path, "load_info")
    info = _codec.load(p, where="load_info")
    if not isinstance(info, dict):
        raise ValueError(f"load_info: {p!r} holds a {type(info).__name__}, not an info dict")
    return info
