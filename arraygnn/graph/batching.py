"""DGL's ``dgl.batch`` / ``dgl.unbatch`` on the DGL face: many graphs as one disjoint graph.

>>> import numpy as np
>>> from arraygnn.graph import graph, batch, unbatch
>>> g1 = graph((np.array([0, 1]), np.array([1, 2])))
>>> g2 = graph((np.array([0]), np.array([1])))
>>> g1.ndata["x"], g2.ndata["x"] = np.ones((3, 2)), np.zeros((2, 2))
>>> bg = batch([g1, g2])
>>> bg.batch_size, bg.batch_num_nodes().tolist(), bg.edges()[1].tolist()
(2, [3, 2], [1, 2, 4])
>>> [g.num_edges() for g in unbatch(bg)]
[2, 1]

RULE: graph ``i``'s nodes of each type follow those of graphs ``0 .. i-1`` (ids shifted by
      their counts), and so do its edges; ``batch_num_nodes`` / ``batch_num_edges`` keep
      the counts (a batched batch adds its counts, as DGL).
RULE: every graph needs the same node and edge types; a feature is batched only if every
      graph with rows of that type has it with one trailing shape and dtype (graphs with no
      rows of the type may lack it, as DGL); ``ValueError`` names the feature and graph.
RULE: ``unbatch`` gives views of the batched arrays (no copies) and checks that no edge
      crosses from one graph into another.
RULE: ``set_batch_num_nodes`` / ``set_batch_num_edges`` check that the counts add up; counts
      of the other kind for another batch size are dropped (set them next, as DGL's docs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.graph.core import Canonical, Graph, check_graph

__all__ = ["batch", "unbatch", "slice_batch", "collate", "GraphDataLoader"]


def _keys_arg(where: str, name: str, keys: Any) -> list[str] | None | str:
    if keys is None or keys == "__ALL__":
        return keys
    if isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys):
        return list(keys)
    raise TypeError(f"{where}: {name} must be a list of feature names, None or '__ALL__'")


def _batched_features(
    where: str, frames: list[Any], rows: list[int], keys: Any, label: str
) -> dict[str, Any]:
    """Concatenated features of ``frames`` (graphs with no rows may lack a feature)."""
    if keys is None:
        return {}
    used = [(i, f) for i, (f, n) in enumerate(zip(frames, rows)) if n > 0]
    if not used:
        used = list(enumerate(frames))
    ref_index, ref = used[0]
    names = list(ref._data) if keys == "__ALL__" else keys
    if keys == "__ALL__":
        for i, f in used:
            if set(f._data) != set(names):
                raise ValueError(
                    f"{where}: graph {i} has features {sorted(f._data)} in {label} but graph "
                    f"{ref_index} has {sorted(names)}; pass ndata= / edata= to choose"
                )
    out = {}
    for name in names:
        arrays = []
        for i, f in used:
            if name not in f._data:
                raise ValueError(
                    f"{where}: graph {i} has no feature {name!r} in {label}; every graph "
                    "with rows there must have it"
                )
            a = f._data[name]
            if arrays and (a.shape[1:] != arrays[0].shape[1:] or a.dtype != arrays[0].dtype):
                raise ValueError(
                    f"{where}: feature {name!r} of {label} is {a.dtype} {tuple(a.shape[1:])} "
                    f"per row in graph {i} but {arrays[0].dtype} {tuple(arrays[0].shape[1:])} "
                    f"in graph {ref_index}"
                )
            arrays.append(a)
        out[name] = get_namespace(*arrays).concatenate(arrays)
    return out


def batch(graphs: Sequence[Graph], ndata: Any = "__ALL__", edata: Any = "__ALL__") -> Graph:
    """One graph made of ``graphs`` side by side (DGL's ``dgl.batch``).

    ``ndata`` / ``edata``: the features to batch (default all; ``None``: none).
    """
    where = "batch"
    if not isinstance(graphs, Sequence) or isinstance(graphs, (str, bytes)):
        raise TypeError(f"{where}: graphs must be a list of Graphs, got {type(graphs).__name__}")
    if len(graphs) == 0:
        raise ValueError(f"{where}: the list of graphs is empty")
    for i, g in enumerate(graphs):
        check_graph(f"{where} (graph {i})", g)
        if g.is_block:
            raise ValueError(f"{where}: graph {i} is a block; blocks cannot be batched")
    ndata = _keys_arg(where, "ndata", ndata)
    edata = _keys_arg(where, "edata", edata)
    first = graphs[0]
    for i, g in enumerate(graphs[1:], 1):
        if g.ntypes != first.ntypes or g.canonical_etypes != first.canonical_etypes:
            raise ValueError(
                f"{where}: graph {i} has node types {g.ntypes} and edge types "
                f"{g.canonical_etypes}, graph 0 has {first.ntypes} and {first.canonical_etypes}"
            )
        if g.device != first.device:
            raise ValueError(f"{where}: graph {i} is on {g.device}, graph 0 on {first.device}")
    xp = first._xp()
    counts = {t: [g._num_src[t] for g in graphs] for t in first.ntypes}
    offsets = {
        t: np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.int64) for t, c in counts.items()
    }
    total = {t: int(sum(c)) for t, c in counts.items()}
    sizes = [*total.values()]
    sizes += [sum(g._rels[c].num_edges for g in graphs) for c in first.canonical_etypes]
    # int32 ids stay int32 unless a batched id or count would not fit (DGL's idtype rule)
    wide = any(g.idtype == np.int64 for g in graphs) or max(sizes, default=0) > 2**31 - 1
    relations: dict[Canonical, tuple[Any, Any]] = {}
    for c in first.canonical_etypes:
        s, _, d = c
        srcs, dsts = [], []
        for i, g in enumerate(graphs):
            rel = g._rels[c]
            src, dst = rel.src, rel.dst
            if wide:
                src, dst = src.astype(np.int64), dst.astype(np.int64)
            srcs.append(src + src.dtype.type(offsets[s][i]) if offsets[s][i] else src)
            dsts.append(dst + dst.dtype.type(offsets[d][i]) if offsets[d][i] else dst)
        relations[c] = (xp.concatenate(srcs), xp.concatenate(dsts))
    out = Graph(relations, total, validate=False)
    for t in first.ntypes:
        out._src_frames[t]._data.update(
            _batched_features(
                where,
                [g._src_frames[t] for g in graphs],
                counts[t],
                ndata,
                f"g.nodes[{t!r}].data",
            )
        )
    for c in first.canonical_etypes:
        out._rels[c].frame._data.update(
            _batched_features(
                where,
                [g._rels[c].frame for g in graphs],
                [g._rels[c].num_edges for g in graphs],
                edata,
                f"g.edges[{c!r}].data",
            )
        )
    # host counts (no upload-and-read-back per graph on CuPy)
    out._batch_nodes = {
        t: np.concatenate([host_batch_counts(g, "nodes", t) for g in graphs]).astype(np.int64)
        for t in first.ntypes
    }
    out._batch_edges = {
        c: np.concatenate([host_batch_counts(g, "edges", c) for g in graphs]).astype(np.int64)
        for c in first.canonical_etypes
    }
    return out


def _counts_arg(where: str, val: Any, keys: list[Any], what: str) -> dict[Any, np.ndarray]:
    if isinstance(val, Mapping):
        given = dict(val)
    elif len(keys) == 1:
        given = {keys[0]: val}
    else:
        raise ValueError(f"{where}: the graph has several {what} types {keys}; pass a dict")
    out = {}
    for k, v in given.items():
        a = np.asarray(to_numpy(v))
        if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
            raise TypeError(f"{where}: counts of {k!r} must be a 1-D integer array")
        if a.size and int(a.min()) < 0:
            raise ValueError(f"{where}: counts of {k!r} must be >= 0")
        out[k] = a.astype(np.int64)
    return out


def set_batch_counts(g: Graph, val: Any, kind: str) -> None:
    """``g.set_batch_num_nodes`` / ``g.set_batch_num_edges``: checked, then stored."""
    where = f"set_batch_num_{kind}"
    if kind == "nodes":
        given = _counts_arg(where, val, g.ntypes, "node")
        resolved = {g._ntype(t, "src"): a for t, a in given.items()}
        totals = {t: g._num_src[t] for t in g.ntypes}
        other = g._batch_edges
    else:
        given = _counts_arg(where, val, g.canonical_etypes, "edge")
        resolved = {g._rel(c).canonical: a for c, a in given.items()}
        totals = {c: r.num_edges for c, r in g._rels.items()}
        other = g._batch_nodes
    missing = sorted(set(totals) - set(resolved), key=str)
    if missing:
        raise ValueError(f"{where}: no counts for {missing}")
    sizes = {int(a.shape[0]) for a in resolved.values()}
    if len(sizes) > 1:
        raise ValueError(f"{where}: the counts give different batch sizes {sorted(sizes)}")
    for k, a in resolved.items():
        if int(a.sum()) != totals[k]:
            raise ValueError(
                f"{where}: counts of {k!r} add up to {int(a.sum())}, the graph has {totals[k]}"
            )
    # counts of the other kind for another batch size are stale: dropped, so that DGL's
    # protocol (set_batch_num_nodes, then set_batch_num_edges) can regroup a batch
    stale = other is not None and {int(a.shape[0]) for a in other.values()} != sizes
    if kind == "nodes":
        g._batch_nodes = resolved
        if stale:
            g._batch_edges = None
    else:
        g._batch_edges = resolved
        if stale:
            g._batch_nodes = None


def unbatch(g: Graph, node_split: Any = None, edge_split: Any = None) -> list[Graph]:
    """The graphs of a batched graph (DGL's ``dgl.unbatch``); ``node_split`` /
    ``edge_split`` (arrays, or dicts by type) override the stored counts."""
    where = "unbatch"
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: blocks are not supported")
    nodes = (
        {t: host_batch_counts(g, "nodes", t).astype(np.int64) for t in g.ntypes}
        if node_split is None
        else {
            g._ntype(t, "src"): a
            for t, a in _counts_arg(where, node_split, g.ntypes, "node").items()
        }
    )
    edges = (
        {c: host_batch_counts(g, "edges", c).astype(np.int64) for c in g.canonical_etypes}
        if edge_split is None
        else {
            g._rel(c).canonical: a
            for c, a in _counts_arg(where, edge_split, g.canonical_etypes, "edge").items()
        }
    )
    for label, given, keys, totals in (
        ("node_split", nodes, g.ntypes, {t: g._num_src[t] for t in g.ntypes}),
        ("edge_split", edges, g.canonical_etypes, {c: r.num_edges for c, r in g._rels.items()}),
    ):
        missing = [k for k in keys if k not in given]
        if missing:
            raise ValueError(f"{where}: {label} has no counts for {missing}")
        for k in keys:
            if int(given[k].sum()) != totals[k]:
                raise ValueError(
                    f"{where}: {label} of {k!r} adds up to {int(given[k].sum())}, "
                    f"the graph has {totals[k]}"
                )
    sizes = {int(a.shape[0]) for a in [*nodes.values(), *edges.values()]}
    if len(sizes) > 1:
        raise ValueError(f"{where}: the splits give different numbers of graphs {sorted(sizes)}")
    b = sizes.pop() if sizes else 1
    node_ptr = {t: np.concatenate([[0], np.cumsum(a)]) for t, a in nodes.items()}
    edge_ptr = {c: np.concatenate([[0], np.cumsum(a)]) for c, a in edges.items()}
    out = []
    for i in range(b):
        relations = {}
        for c, rel in g._rels.items():
            s, _, d = c
            lo, hi = int(edge_ptr[c][i]), int(edge_ptr[c][i + 1])
            u = rel.src[lo:hi] - rel.src.dtype.type(node_ptr[s][i])
            v = rel.dst[lo:hi] - rel.dst.dtype.type(node_ptr[d][i])
            for ids, t, end in ((u, s, "source"), (v, d, "destination")):
                n = int(nodes[t][i])
                if ids.shape[0] and (int(ids.min()) < 0 or int(ids.max()) >= n):
                    raise ValueError(
                        f"{where}: edge type {c!r} of graph {i} has a {end} node outside "
                        f"its {n} nodes of type {t!r}; the splits do not match the edges"
                    )
            relations[c] = (u, v)
        part = Graph(relations, {t: int(a[i]) for t, a in nodes.items()}, validate=False)
        for t, f in g._src_frames.items():
            lo, hi = int(node_ptr[t][i]), int(node_ptr[t][i + 1])
            part._src_frames[t]._data.update({k: a[lo:hi] for k, a in f._data.items()})
        for c, rel in g._rels.items():
            lo, hi = int(edge_ptr[c][i]), int(edge_ptr[c][i + 1])
            part._rels[c].frame._data.update({k: a[lo:hi] for k, a in rel.frame._data.items()})
        out.append(part)
    return out


def host_batch_counts(g: Graph, kind: str, typ: Any) -> np.ndarray:
    """The per-graph counts of node type / edge type ``typ`` (``kind`` ``'nodes'`` or
    ``'edges'``) as the int64 NumPy array the graph keeps on the host, whatever its device
    (``batch_num_nodes`` / ``batch_num_edges`` give them on the graph's device)."""
    if kind == "nodes":
        t = g._ntype(typ, "src")
        kept = g._batch_nodes
        return np.array([g._num_src[t]], np.int64) if kept is None else kept[t]
    rel = g._rel(typ)
    kept = g._batch_edges
    return np.array([rel.num_edges], np.int64) if kept is None else kept[rel.canonical]


def slice_batch(g: Graph, gid: int, store_ids: bool = False) -> Graph:
    """Graph ``gid`` of a batched graph (DGL's ``dgl.slice_batch``): its nodes and edges
    renumbered from 0, its features as views of the batched ones; ``store_ids=True`` also
    stores the ids in ``g`` as ``ndata[NID]`` / ``edata[EID]`` (in ``g.idtype``)."""
    from arraygnn.graph.core import EID, NID

    where = "slice_batch"
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: blocks are not supported")
    b = g.batch_size
    if isinstance(gid, (bool, np.bool_)) or not isinstance(gid, (int, np.integer)):
        raise TypeError(f"{where}: gid must be an int, got {gid!r}")
    if not -b <= gid < b:
        raise ValueError(f"{where}: gid={gid} is outside the {b} graphs of the batch")
    gid = int(gid) % b
    xp = g._xp()

    def span(c: np.ndarray) -> tuple[int, int]:
        lo = int(c[:gid].sum())
        return lo, lo + int(c[gid])

    # the host-side counts: no device round trip on CuPy (batch_num_* would upload them)
    nodes = {t: span(host_batch_counts(g, "nodes", t)) for t in g.ntypes}
    edges = {c: span(host_batch_counts(g, "edges", c)) for c in g.canonical_etypes}
    relations = {}
    for c, rel in g._rels.items():
        s, _, d = c
        lo, hi = edges[c]
        relations[c] = (
            rel.src[lo:hi] - rel.src.dtype.type(nodes[s][0]),
            rel.dst[lo:hi] - rel.dst.dtype.type(nodes[d][0]),
        )
    out = Graph(relations, {t: hi - lo for t, (lo, hi) in nodes.items()}, validate=False)
    for t, f in g._src_frames.items():
        lo, hi = nodes[t]
        out._src_frames[t]._data.update({k: a[lo:hi] for k, a in f._data.items()})
        if store_ids:
            out._src_frames[t]._data[NID] = xp.arange(lo, hi, dtype=g.idtype)
    for c, rel in g._rels.items():
        lo, hi = edges[c]
        out._rels[c].frame._data.update({k: a[lo:hi] for k, a in rel.frame._data.items()})
        if store_ids:
            out._rels[c].frame._data[EID] = xp.arange(lo, hi, dtype=g.idtype)
    return out


def collate(items: Sequence[Any]) -> Any:
    """DGL's ``GraphCollator.collate``: the items of one mini-batch as one.

    Graphs are batched (:func:`batch`); arrays stacked along a new first axis (NumPy or
    CuPy); Python ints become an int64 array, floats a float64 array, bools a bool array
    (the kind of every item counts: ``[1, 2.5]`` is float64, ``[True, 2]`` int64), NumPy
    scalars an array; strings (``np.str_`` too) stay a list; dicts are collated per key,
    named tuples per field, and other sequences (a ``(graph, label)`` pair) position by
    position into a list, as DGL.
    """
    from arraygnn._namespace import is_array

    if not isinstance(items, Sequence) or len(items) == 0:
        raise ValueError("collate: items must be a non-empty list")
    elem = items[0]
    if isinstance(elem, Graph):
        return batch(list(items))
    if is_array(elem):
        if elem.dtype.kind in "OSU":
            raise TypeError(f"collate: arrays of dtype {elem.dtype} cannot be collated")
        return get_namespace(*items).stack(list(items))
    if isinstance(elem, (str, bytes)):  # np.str_ / np.bytes_ too, as DGL
        return list(items)
    if isinstance(elem, np.generic):
        return np.array(items)
    if isinstance(elem, (int, float)):  # bool included
        # the kind of all the items, not of the first: [1, 2.5] is float (torch's tensor
        # too), never int64 [1, 2]; [True, 2] is int64 [1, 2], as torch
        if all(isinstance(v, (bool, np.bool_)) for v in items):
            return np.array(items, dtype=bool)
        if all(isinstance(v, (int, np.integer)) for v in items):
            return np.array(items, dtype=np.int64)  # OverflowError past int64
        if all(isinstance(v, (int, float, np.integer, np.floating)) for v in items):
            return np.array(items, dtype=np.float64)
        raise TypeError(
            "collate: a batch that starts with a number must hold numbers only, got "
            f"{sorted({type(v).__name__ for v in items})}"
        )
    if isinstance(elem, Mapping):
        return {key: collate([d[key] for d in items]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        return type(elem)(*(collate(list(field)) for field in zip(*items)))
    if isinstance(elem, Sequence):
        if any(len(item) != len(elem) for item in items):
            raise ValueError("collate: every item of the batch must have the same length")
        return [collate(list(field)) for field in zip(*items)]
    raise TypeError(
        f"collate: cannot collate items of type {type(elem).__name__}; graphs, arrays, "
        "numbers, strings, dicts and sequences of those can (pass collate_fn=)"
    )


class GraphDataLoader:
    """Mini-batches of a dataset of graphs (DGL's ``dgl.dataloading.GraphDataLoader``).

    Args:
        dataset: anything with ``len`` and ``[i]``, each item a :class:`Graph` or a tuple /
            dict holding one (``(graph, label)`` as DGL's datasets give).
        collate_fn: called on each list of items; default :func:`collate` (DGL's
            ``GraphCollator``: a ``(graph, label)`` item gives ``[batched graph, labels]``).
        use_ddp, ddp_seed: DGL's; ``use_ddp=True`` is a ``ValueError`` (no torch.distributed).
        batch_size, shuffle, drop_last: as torch's ``DataLoader``.
        seed: seed of the shuffling generator (the same seed, the same epochs).
        **kwargs: torch ``DataLoader`` keywords, as DGL passes them on: ``num_workers``,
            ``pin_memory``, ... checked as torch does and without effect (batches are made
            on demand here); ``generator`` (a ``torch.Generator`` gives torch's order),
            ``sampler`` and ``batch_sampler`` honoured (docs/collation.md, "torch
            ``DataLoader`` keywords").

    ``len(loader)`` is the number of batches per epoch.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> data = [(graph(([0], [1])), 0), (graph(([0, 1], [1, 2])), 1), (graph(([0], [0])), 1)]
    >>> [(bg.batch_size, y.tolist()) for bg, y in GraphDataLoader(data, batch_size=2)]
    [(2, [0, 1]), (1, [1])]
    """

    def __init__(
        self,
        dataset: Any,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        use_ddp: bool = False,
        ddp_seed: int = 0,
        *,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
        **kwargs: Any,
    ) -> None:
        from arraygnn._loader_args import _check_int, apply_torch_args

        where = "GraphDataLoader"
        if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(f"{where}: dataset must support len() and [i], got {type(dataset)}")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"{where}: collate_fn must be callable, got {collate_fn!r}")
        if use_ddp:
            raise ValueError(
                f"{where}: use_ddp=True needs torch.distributed, which arraygnn does not use; "
                "shard the dataset per process instead (arraygnn.distributed)"
            )
        self.dataset = dataset
        self.collate_fn = collate if collate_fn is None else collate_fn
        self.batch_size = _check_int(where, "batch_size", batch_size, 1)
        self.shuffle, self.drop_last = bool(shuffle), bool(drop_last)
        # torch DataLoader keywords (num_workers, generator, sampler, ...): checked as torch
        # does and kept; sampler / batch_sampler / generator change what is made
        self._rng = apply_torch_args(self, where, kwargs, seed, self.batch_size, shuffle, drop_last)

    def __len__(self) -> int:
        from arraygnn._loader_args import num_batches

        return num_batches(
            len(self.dataset), self.batch_size, self.drop_last, self.sampler, self.batch_sampler
        )

    def __iter__(self) -> Iterator[Any]:
        from arraygnn._loader_args import epoch_batches, epoch_iter

        chunks = epoch_batches(
            "GraphDataLoader", len(self.dataset), self.batch_size, self.shuffle,
            self.drop_last, self._rng, self.sampler, self.batch_sampler,
        )  # fmt: skip
        return epoch_iter(
            self._rng, (self.collate_fn([self.dataset[int(i)] for i in c]) for c in chunks)
        )

    def __repr__(self) -> str:
        return (
            f"GraphDataLoader({len(self.dataset)} items, batch_size={self.batch_size}, "
            f"shuffle={self.shuffle}, drop_last={self.drop_last})"
        )
