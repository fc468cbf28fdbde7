"""``HeteroBatch``: many :class:`~arraygnn.hetero_data.HeteroData` graphs collated into one,
and split back exactly (PyG's batching of heterogeneous graphs).

``arraygnn.Batch.from_data_list`` and ``arraygnn.DataLoader`` hand lists of ``HeteroData``
here. The batch is itself a ``HeteroData`` (as PyG's): per node type the attributes are
concatenated along dimension 0 and a ``batch`` ([N_type], graph of each node) and ``ptr``
([num_graphs + 1]) vector is added when the type's ``num_nodes`` is known; per edge type
every key containing ``'index'`` (``edge_index``) is concatenated along its last dimension
with row 0 increased by the source type's node count of the graphs before it and row 1 by
the destination type's; other attributes (and graph-level ones) are concatenated along
dimension 0 (``__cat_dim__`` / ``__inc__`` of :class:`~arraygnn.hetero_data.HeteroData`,
overridable). Python scalars become a ``[num_graphs]`` array, other objects a list.

>>> import numpy as np
>>> from arraygnn.batch import Batch
>>> from arraygnn.hetero_data import HeteroData
>>> g = HeteroData(author={"num_nodes": 2}, paper={"x": np.ones((3, 4))})
>>> g["author", "writes", "paper"].edge_index = np.array([[0, 1], [2, 0]])
>>> b = Batch.from_data_list([g, g])
>>> b["author", "writes", "paper"].edge_index.tolist()
[[0, 1, 2, 3], [2, 0, 5, 3]]
>>> b["paper"].batch.tolist(), b["author"].ptr.tolist(), b.num_graphs
([0, 0, 0, 1, 1, 1], [0, 2, 4], 2)
>>> b.get_example(1)["author", "writes", "paper"].edge_index.tolist()
[[0, 1], [2, 0]]

Cost: with the default hooks, O(stores x attributes) array calls (one size pass, one
concatenate into a preallocated 64-byte aligned output, one repeat-and-add of the offsets
per index key); overridden hooks are called once per graph and store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from operator import attrgetter, itemgetter
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts, to_numpy
from arraygnn.batch import (
    _SCALAR_KINDS,
    _SCALARS,
    _add_increments,
    _Arena,
    _check_batches_only,
    _diagnose,
    _exclusive_cumsum,
    _id_counts,
    _inc_array,
    _is_0d,
    _ptr,
    _scalar_array,
    _sizes_along,
    _subtract_inc,
    add_scalar_increments,
    graph_ids,
)
from arraygnn.data import node_count_key
from arraygnn.hetero_data import HeteroData, StoreKey, _type_name

__all__ = ["HeteroBatch"]

_PREFIX = "Batch.from_data_list: "


def _where(skey: StoreKey | None) -> str:
    return "graph-level" if skey is None else _type_name(skey)


def _err(skey: StoreKey | None, key: str, i: int, msg: str, cls: type = ValueError) -> Exception:
    return cls(f"{_PREFIX}{_where(skey)}, key {key!r} in graph {i}: {msg}")


@contextmanager
def _naming(skey: StoreKey | None) -> Iterator[None]:
    """Add the store's type to errors raised by the homogeneous helpers of batch.py."""
    try:
        yield
    except (ValueError, TypeError, OverflowError) as err:
        msg = str(err)
        where = _where(skey)
        if msg.startswith(_PREFIX) and not msg.startswith(_PREFIX + where):
            raise type(err)(f"{_PREFIX}{where}, {msg[len(_PREFIX) :]}") from err
        raise


class HeteroBatch(HeteroData):
    """Heterogeneous graphs collated into one ``HeteroData``, with the records to split them.

    Besides the collated values, each node store holds ``batch`` and ``ptr`` (when the
    type's ``num_nodes`` is known), every store ``<key>_batch`` and ``<key>_ptr`` for each
    key in ``follow_batch`` it holds, and the batch knows ``num_graphs``.

    Records, per store (``None`` for graph-level attributes, else the node / edge type)
    and key, as PyG's: ``_slice_dict[store][key]`` [G + 1] boundaries along the
    concatenation dimension, ``_inc_dict[store][key]`` the increment of each graph ([G, 2, 1]
    for an edge index), ``_cat_dim_dict``, ``_kind_dict`` (``cat``, ``stack``, ``scalar``,
    ``npscalar``, ``num_nodes`` or ``list``); ``_data_cls`` is the class of the graphs.

    RULE: ``batch.get_example(i)`` equals the ``i``-th collated graph (same class, node and
      edge types in the same order, keys, dtypes and values).

    >>> import numpy as np
    >>> g = HeteroData(a={"x": np.zeros((2, 1))}, y=1.5)
    >>> b = HeteroBatch.from_data_list([g, g, g])
    >>> b
    HeteroDataBatch(
      y=[3],
      a={
        x=[6, 1],
        batch=[6],
        ptr=[4],
      }
    )
    >>> b[2].y, len(b)
    (1.5, 3)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_data_cls", HeteroData)
        object.__setattr__(self, "_num_graphs", None)
        object.__setattr__(self, "_slice_dict", {})
        object.__setattr__(self, "_inc_dict", {})
        object.__setattr__(self, "_cat_dim_dict", {})
        object.__setattr__(self, "_kind_dict", {})

    # ---------------------------------------------------------------- collate
    @classmethod
    def from_data_list(
        cls,
        data_list: Iterable[HeteroData],
        follow_batch: Iterable[str] | None = None,
        exclude_keys: Iterable[str] | None = None,
    ) -> HeteroBatch:
        """Collate ``HeteroData`` graphs (all with the same node / edge types and keys).

        Args:
            data_list: the graphs.
            follow_batch: keys that get ``<key>_batch`` (graph id per row) and
                ``<key>_ptr`` (row offsets) in every store holding them.
            exclude_keys: keys left out of every store.

        Raises ``ValueError`` / ``TypeError`` naming the node / edge type, the key and the
        graph for an empty list, differing types or keys, mismatched shapes / dtypes,
        non-integer or out-of-range ids, or unknown node counts where ids are increased.
        """
        if not isinstance(data_list, (list, tuple)):
            data_list = list(data_list)
        if len(data_list) == 0:
            raise ValueError(f"{_PREFIX}data_list is empty (need at least one graph)")
        types = set(map(type, data_list))
        for t in types:
            if not issubclass(t, HeteroData):
                i = next(j for j, d in enumerate(data_list) if type(d) is t)
                raise TypeError(
                    f"{_PREFIX}graph {i} is a {t.__name__}, graph 0 a HeteroData "
                    "(homogeneous and heterogeneous graphs cannot be mixed)"
                )
        default_hooks = all(
            t.__inc__ is HeteroData.__inc__ and t.__cat_dim__ is HeteroData.__cat_dim__
            for t in types
        )
        return _Collation(
            cls, data_list, list(follow_batch or ()), set(exclude_keys or ()), default_hooks
        ).run()

    # ---------------------------------------------------------------- split
    @property
    def num_graphs(self) -> int | None:
        """Number of graphs collated into this batch."""
        return self._num_graphs

    @property
    def batch_size(self) -> int | None:
        """Alias of :attr:`num_graphs` (as PyG's)."""
        return self._num_graphs

    def get_example(self, idx: int) -> HeteroData:
        """The ``idx``-th graph, exactly as it was collated (views where possible)."""
        g = self._num_graphs
        if g is None or not self._kind_dict:
            raise ValueError(
                "this HeteroBatch has no slice records: it was not collated, or a transform "
                "changed its nodes or edges (see docs/transforms.md, 'Transforms on a Batch')"
            )
        if not isinstance(idx, (int, np.integer)) or isinstance(idx, bool):
            raise TypeError(f"get_example: index must be an int, got {type(idx).__name__}")
        i = int(idx)
        if not -g <= i < g:
            raise IndexError(f"get_example: graph {i} out of range for {g} graphs")
        i %= g
        out = _empty(self._data_cls)
        for skey in self._kind_dict:
            if skey is None:
                target, source = out._global, self._global
            elif isinstance(skey, str):
                target, source = out.get_node_store(skey)._mapping, self._nodes[skey]._mapping
            else:
                target, source = out.get_edge_store(*skey)._mapping, self._edges[skey]._mapping
            slices, incs = self._slice_dict[skey], self._inc_dict[skey]
            cats = self._cat_dim_dict[skey]
            for key, kind in self._kind_dict[skey].items():
                target[key] = _cut(kind, source[key], slices[key], incs[key], cats[key], i)
        return out

    def index_select(self, idx: Any) -> list[HeteroData]:
        """The graphs at ``idx`` (a slice, int sequence / array or boolean mask) as a list."""
        g = self._num_graphs or 0
        ids = graph_ids(idx, g)
        return [self.get_example(int(i)) for i in ids]

    def to_data_list(self) -> list[HeteroData]:
        """All graphs, in order."""
        return [self.get_example(i) for i in range(self._num_graphs or 0)]

    def __getitem__(self, *args: Any) -> Any:
        idx = args[0] if len(args) == 1 else args
        if isinstance(idx, (str, tuple)):
            return super().__getitem__(idx)
        if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
            return self.get_example(idx)
        shape = getattr(idx, "shape", None)
        if shape is not None and len(shape) == 0 and "int" in str(getattr(idx, "dtype", "")):
            return self.get_example(int(idx))
        return self.index_select(idx)

    def __len__(self) -> int:
        """The number of graphs (as PyG's ``len(batch)``)."""
        return self._num_graphs or 0

    def _repr_name(self) -> str:
        if type(self) is HeteroBatch:
            return self._data_cls.__name__ + "Batch"
        return type(self).__name__


def _empty(cls: type) -> HeteroData:
    """A ``cls`` object without stores (made by calling ``cls()`` where it can be)."""
    try:
        obj = cls()
    except Exception:  # noqa: BLE001 - an __init__ that needs its arguments
        obj = cls.__new__(cls)
    object.__setattr__(obj, "_global", {})
    object.__setattr__(obj, "_nodes", {})
    object.__setattr__(obj, "_edges", {})
    return obj


def _cut(kind: str, value: Any, sl: np.ndarray, inc: Any, cat: int | None, i: int) -> Any:
    if kind == "cat":
        v = value[(slice(None),) * cat + (slice(int(sl[i]), int(sl[i + 1])),)]
        return _subtract_inc(v, inc[i])
    if kind == "stack":
        return _subtract_inc(value[i, ...], inc[i])
    if kind in _SCALAR_KINDS:
        v = value[i]
        if bool(inc[i] != 0):
            v = v - (value.dtype.type(inc[i]) if is_array(value) else inc[i])
        if kind == "scalar" and hasattr(v, "item"):
            v = v.item()
        return v
    if kind == "num_nodes":
        return int(sl[i + 1] - sl[i])
    return value[i]


class _Collation:
    """One call of ``HeteroBatch.from_data_list``: plans every store's keys (pass 1), then
    fills one host allocation (pass 2)."""

    def __init__(
        self,
        cls: type,
        data_list: Sequence[HeteroData],
        follow: list[str],
        exclude: set[str],
        default_hooks: bool,
    ) -> None:
        self.cls = cls
        self.data_list = data_list
        self.g = len(data_list)
        self.follow = follow
        self.exclude = exclude
        self.default_hooks = default_hooks
        self.xp: ModuleType | None = None
        self.arena = _Arena()
        self.plans: list[tuple] = []
        self.graph_range = np.arange(self.g + 1, dtype=np.int64)
        self.followed: set[str] = set()
        self.from_x: set[str] = set()  # node types whose counts are x's row counts
        self.nested: tuple[np.ndarray, dict[Any, dict[str, bool]]] | None = None  # _nested

    # ------------------------------------------------------------ structure
    def _stores(self, attr: str, names: list[Any]) -> list[list[Any]]:
        """Per type, the store objects of every graph (graph order)."""
        dicts = list(map(attrgetter(attr), self.data_list))
        n = len(names)
        if set(map(len, dicts)) != {n}:
            self._type_error(attr, names, dicts)
        try:
            return [list(map(itemgetter(t), dicts)) for t in names]
        except KeyError:
            self._type_error(attr, names, dicts)
            raise

    def _type_error(self, attr: str, names: list[Any], dicts: list[dict]) -> None:
        what = "node" if attr == "_nodes" else "edge"
        for i, d in enumerate(dicts):
            missing = [t for t in names if t not in d]
            extra = [t for t in d if t not in names]
            if missing or extra:
                msg = (
                    f"lacks {what} type {missing[0]!r}"
                    if missing
                    else f"has {what} type {extra[0]!r}, which graph 0 lacks"
                )
                raise ValueError(
                    f"{_PREFIX}graph {i} {msg} (graph 0 {what} types: {names}, graph {i}: "
                    f"{list(d)}); every graph needs the same types (a type may have 0 nodes)"
                )

    def _counts(self, t: str, mappings: list[dict]) -> np.ndarray | None:
        """num_nodes of node type ``t`` in every graph (int64 [G]) or None when unknown."""
        m0 = mappings[0]
        g = self.g
        try:
            if "num_nodes" in m0:
                n0 = m0["num_nodes"]
                if isinstance(n0, (str, bytes, bool, np.bool_)):
                    raise _err(t, "num_nodes", 0, f"must be an int, got {n0!r}", TypeError)
                counts = np.fromiter(map(itemgetter("num_nodes"), mappings), np.int64, g)
            elif (count_key := node_count_key(m0)) is not None:  # x, pos, ... (the rule)
                counts = np.fromiter(map(len, map(itemgetter(count_key), mappings)), np.int64, g)
                if count_key == "x":
                    self.from_x.add(t)
            else:
                return None
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, TypeError) and str(err).startswith(_PREFIX):
                raise
            if isinstance(err, KeyError):
                self._key_error(t, mappings)  # names the graph lacking x / num_nodes
            raise _err(t, "num_nodes", 0, f"must be an int ({err})", TypeError) from None
        if counts.size and int(counts.min()) < 0:
            i = int(np.argmax(counts < 0))
            raise _err(t, "num_nodes", i, f"must be >= 0, got {int(counts[i])}")
        return counts

    def run(self) -> HeteroBatch:
        first = self.data_list[0]
        node_types, edge_types = first.node_types, first.edge_types
        node_objs = self._stores("_nodes", node_types)
        edge_objs = self._stores("_edges", edge_types)
        node_maps = [list(map(attrgetter("_mapping"), objs)) for objs in node_objs]
        edge_maps = [list(map(attrgetter("_mapping"), objs)) for objs in edge_objs]
        global_maps = list(map(attrgetter("_global"), self.data_list))
        self.counts = {t: self._counts(t, m) for t, m in zip(node_types, node_maps)}
        # a batch of batches (PyG's rule): no new batch / ptr, the inner graph ids moved on
        self.nested = self._nested() if isinstance(first, HeteroBatch) else None
        out = self.cls.__new__(self.cls)
        HeteroBatch.__init__(out)
        data_cls = first._data_cls if self.nested is not None else type(first)
        object.__setattr__(out, "_data_cls", data_cls)
        object.__setattr__(out, "_num_graphs", self.g)
        self.out = out
        # pass 1
        self._plan_store(None, global_maps, None, out._global)
        for t, maps, objs in zip(node_types, node_maps, node_objs):
            self._plan_store(t, maps, objs, out.get_node_store(t)._mapping)
        for et, maps, objs in zip(edge_types, edge_maps, edge_objs):
            self._plan_store(et, maps, objs, out.get_edge_store(*et)._mapping)
        for k in self.follow:
            if k not in self.followed:
                raise ValueError(f"{_PREFIX}follow_batch key {k!r} is not a key of any store")
        xp = self.xp or np
        node_handles = {}
        if xp is np:
            for t in node_types:
                c = self.counts[t]
                if c is not None:
                    node_handles[t] = (
                        self.arena.reserve((int(c.sum()),), np.int64),
                        self.arena.reserve((self.g + 1,), np.int64),
                    )
        self.arena.allocate()
        # pass 2
        for plan in self.plans:
            self._fill(plan)
        g_ids = np.arange(self.g, dtype=np.int64)
        for t in node_types:
            c = self.counts[t]
            if c is None or self.nested is not None:
                continue
            m = out._nodes[t]._mapping
            ptr = _ptr(c)
            if t in node_handles:
                vec, p = (self.arena.get(h) for h in node_handles[t])
                vec[...] = np.repeat(g_ids, c)
                p[...] = ptr
                m["batch"], m["ptr"] = vec, p
            else:
                m["batch"] = xp.asarray(np.repeat(g_ids, c))
                m["ptr"] = xp.asarray(ptr)
        return out

    def _nested(self) -> tuple[np.ndarray, dict[Any, dict[str, bool]]]:
        """For a list of ``HeteroBatch`` objects: the graphs in each, and per store the keys
        holding inner graph ids (``batch``, ``follow_batch``'s ``<key>_batch``: keys the
        first batch holds without a record, beside a recorded key; ``True`` where the key
        is recorded, in a batch of batches, whose ``num_graphs`` counts batches: moved on
        by ``max() + 1`` as PyG)."""
        first = self.data_list[0]
        _check_batches_only(self.data_list, HeteroBatch, HeteroData, "")
        counts = [d.num_graphs for d in self.data_list]
        if any(c is None for c in counts):
            raise ValueError(f"{_PREFIX}batch {counts.index(None)} does not know its num_graphs")
        vectors: dict[Any, dict[str, bool]] = {}
        for store in first.stores:
            kinds = first._kind_dict.get(store._key, {})
            vectors[store._key] = {
                k: kinds.get(k) == "cat"
                for k in store._mapping
                if kinds.get(k) in (None, "cat")
                and (k == "batch" or (k.endswith("_batch") and k[:-6] in kinds))
            }
        return np.asarray(counts, dtype=np.int64), vectors

    # ------------------------------------------------------------ per store
    def _plan_store(
        self,
        skey: StoreKey | None,
        maps: list[dict],
        objs: list[Any] | None,
        target: dict[str, Any],
    ) -> None:
        out = self.out
        for rec in (out._slice_dict, out._inc_dict, out._cat_dim_dict, out._kind_dict):
            rec[skey] = {}
        m0 = maps[0]
        keys = [k for k in m0 if k not in self.exclude and k != "ptr"]
        if "batch" in keys and self.nested is None and self.counts.get(skey) is not None:
            # RULE: a node store's own ``batch`` is replaced by the batch's (PyG overwrites
            # it too, then splits it back wrongly): left out, not split back
            keys.remove("batch")
        if set(len(m) - ("ptr" in m) for m in maps) != {len(m0) - ("ptr" in m0)}:
            self._key_error(skey, maps)
        try:
            columns = [list(map(itemgetter(k), maps)) for k in keys]
        except KeyError:
            self._key_error(skey, maps)
            raise
        for key, values in zip(keys, columns):
            with _naming(skey):
                self._plan_key(skey, key, values, objs, target)

    def _key_error(self, skey: StoreKey | None, maps: list[dict]) -> None:
        first = maps[0].keys()
        for i, m in enumerate(maps):
            skipped = self.exclude | {"ptr"}
            missing = [k for k in first if k not in m and k not in skipped]
            extra = [k for k in m if k not in first and k not in skipped]
            if missing or extra:
                what = (
                    f"key {missing[0]!r} is missing"
                    if missing
                    else f"key {extra[0]!r} is not in graph 0"
                )
                raise ValueError(
                    f"{_PREFIX}{_where(skey)}, graph {i}: {what} (graph 0 keys: {list(first)}, "
                    f"graph {i} keys: {list(m)})"
                )

    def _record(self, skey: Any, key: str, sl: Any, inc: Any, cat: Any, kind: str) -> None:
        out = self.out
        out._slice_dict[skey][key] = sl
        out._inc_dict[skey][key] = inc
        out._cat_dim_dict[skey][key] = cat
        out._kind_dict[skey][key] = kind

    def _plan_key(
        self,
        skey: StoreKey | None,
        key: str,
        values: list[Any],
        objs: list[Any] | None,
        target: dict[str, Any],
    ) -> None:
        g = self.g
        v0 = values[0]
        data_list = self.data_list
        if key == "num_nodes" and (isinstance(v0, _SCALARS) or _is_0d(v0)):
            counts = _scalar_array(key, [to_numpy(v)[()] if _is_0d(v) else v for v in values])
            if counts.dtype.kind not in "iu":
                raise _err(skey, key, 0, f"num_nodes must be an int, got {v0!r}", TypeError)
            if key in self.follow:
                self.followed.add(key)  # a key, but no vectors for it (PyG, Batch)
            target[key] = int(counts.sum())
            self._record(
                skey, key, _ptr(counts.astype(np.int64)), np.zeros(g, np.int64), 0, "num_nodes"
            )
            return
        if is_array(v0):
            xp = get_namespace(v0)
            if self.xp is None:
                self.xp = xp
            elif xp is not self.xp:
                raise _err(
                    skey,
                    key,
                    0,
                    f"is a {xp.__name__} array but other keys are {self.xp.__name__} arrays; "
                    "move every array to one device",
                    TypeError,
                )
            if not self.default_hooks and len(set(map(type, values))) > 1:
                raise _diagnose(key, values, None, TypeError("mixed value types"))
            cat = self._cat_dim(skey, key, values, objs)
            if cat is None:
                sizes = np.ones(g, np.int64)
                sl = self.graph_range
                shape = (g,) + tuple(v0.shape)
            else:
                # x's row counts are the node counts found already
                sizes = self.counts.get(skey) if key == "x" and skey in self.from_x else None
                if sizes is None:
                    try:
                        sizes = _sizes_along(values, cat, g)
                    except (TypeError, IndexError, AttributeError) as err:
                        raise _diagnose(key, values, cat, err) from err
                sl = _ptr(sizes)
                shape_l = list(v0.shape)
                shape_l[cat] = int(sl[-1])
                shape = tuple(shape_l)
            # the machine's byte order, as Batch.from_data_list (a fresh allocation)
            handle = self.arena.reserve(shape, v0.dtype.newbyteorder("=")) if xp is np else -1
            follow_handle = None
            if key in self.follow:
                self.followed.add(key)
                follow_handle = (
                    self.arena.reserve((int(sl[-1]),), np.int64),
                    self.arena.reserve((g + 1,), np.int64),
                )
            target[key] = None  # keeps the key order; filled in pass 2
            if key in self.follow:
                target[key + "_batch"] = target[key + "_ptr"] = None
            self._record(skey, key, sl, None, cat, "cat" if cat is not None else "stack")
            self.plans.append(
                (skey, key, values, objs, cat, sizes, sl, shape, handle, follow_handle, target)
            )
            return
        if isinstance(v0, _SCALARS):
            arr = _scalar_array(key, values)
            inc = np.zeros(g, np.int64)
            if not self.default_hooks:
                raw = _inc_array(
                    key,
                    [
                        d.__inc__(key, v, _obj(objs, i))
                        for i, (d, v) in enumerate(zip(data_list, values))
                    ],
                )
                if raw.shape != (g,):
                    raise _err(
                        skey, key, 0, f"__inc__ of a scalar must be a number, got {raw[0]!r}"
                    )
                if raw.any():
                    inc = _exclusive_cumsum(raw)
                    add_scalar_increments(key, arr, inc)
            target[key] = arr
            kind = "npscalar" if isinstance(v0, np.generic) else "scalar"
            self._record(skey, key, self.graph_range, inc, None, kind)
            if key in self.follow:
                self.followed.add(key)
                target[key + "_batch"] = np.arange(g, dtype=np.int64)
                target[key + "_ptr"] = np.arange(g + 1, dtype=np.int64)
            return
        for i, v in enumerate(values):
            if is_array(v) or isinstance(v, _SCALARS):
                raise _err(
                    skey,
                    key,
                    i,
                    f"is a {type(v).__name__} but graph 0 holds a {type(v0).__name__}",
                    TypeError,
                )
            if hasattr(v, "__dlpack__") or hasattr(v, "__array_namespace__"):
                raise _err(
                    skey,
                    key,
                    i,
                    f"holds a {type(v).__module__}.{type(v).__name__}; collate NumPy / CuPy "
                    "arrays (convert it first, e.g. arraygnn.interop.from_torch)",
                    TypeError,
                )
        target[key] = list(values)
        self._record(skey, key, self.graph_range, np.zeros(g, np.int64), None, "list")
        if key in self.follow:  # one entry per graph (PyG)
            self.followed.add(key)
            target[key + "_batch"] = np.arange(g, dtype=np.int64)
            target[key + "_ptr"] = np.arange(g + 1, dtype=np.int64)

    def _cat_dim(
        self, skey: StoreKey | None, key: str, values: list[Any], objs: list[Any] | None
    ) -> int | None:
        v0 = values[0]
        if v0.ndim == 0:
            return None  # PyG stacks 0-d values whatever __cat_dim__ says
        if self.default_hooks:
            cat: Any = -1 if isinstance(skey, tuple) and "index" in key else 0
        else:
            cats = [
                d.__cat_dim__(key, v, _obj(objs, i))
                for i, (d, v) in enumerate(zip(self.data_list, values))
            ]
            cat = cats[0]
            for i, (c, v) in enumerate(zip(cats, values)):
                if c != cat and _counted(c, v) != _counted(cat, v0):
                    raise _err(skey, key, i, f"__cat_dim__ returned {c}, graph 0 returned {cat}")
            if cat is None:
                return None
        if not isinstance(cat, (int, np.integer)) or isinstance(cat, bool):
            raise _err(
                skey, key, 0, f"__cat_dim__ returned {cat!r}, expected an int or None", TypeError
            )
        c = int(cat) + v0.ndim if cat < 0 else int(cat)
        if not 0 <= c < v0.ndim:
            raise _err(
                skey,
                key,
                0,
                f"has shape {list(v0.shape)} but __cat_dim__ returns {cat} "
                "(override __cat_dim__ for this key)",
            )
        return c

    # ------------------------------------------------------------ pass 2
    def _fill(self, plan: tuple) -> None:
        skey, key, values, objs, cat, sizes, sl, shape, handle, follow_handle, target = plan
        xp = self.xp or np
        g = self.g
        with _naming(skey):
            native = values[0].dtype.newbyteorder("=")
            out = self.arena.get(handle) if handle >= 0 else xp.empty(shape, dtype=native)
            try:
                if cat is None:
                    xp.stack(values, axis=0, out=out, casting="equiv")
                else:
                    xp.concatenate(values, axis=cat, out=out, casting="equiv")
            except (ValueError, TypeError, IndexError) as err:
                raise _diagnose(key, values, cat, err) from err
            inc: Any = np.zeros(g, np.int64)
            edge_index_key = isinstance(skey, tuple) and "index" in key
            if self.default_hooks:
                if edge_index_key:
                    inc = self._increase_edge_ids(skey, key, out, cat, sizes, sl, xp)
            else:
                raw = _inc_array(
                    key,
                    [
                        d.__inc__(key, v, _obj(objs, i))
                        for i, (d, v) in enumerate(zip(self.data_list, values))
                    ],
                )
                if raw.any():
                    if out.dtype.kind not in "iufc":
                        raise _err(
                            skey,
                            key,
                            0,
                            f"has dtype {out.dtype} but __inc__ asks for an increment",
                            TypeError,
                        )
                    inc = _exclusive_cumsum(raw)
                    _add_increments(key, out, inc, sizes, cat, xp)
                else:
                    inc = np.zeros_like(raw)
            recorded = self.nested[1].get(skey, {}).get(key) if self.nested else None
            if recorded is not None:  # exact counts (PyG: max() + 1, as a recorded one)
                graphs = _exclusive_cumsum(_id_counts(values) if recorded else self.nested[0])
                if cat is not None and inc.ndim == 1 and graphs.any():
                    _add_increments(key, out, graphs, sizes, cat, xp)
                    inc = inc + graphs
            target[key] = out
            self.out._inc_dict[skey][key] = inc
            if follow_handle is not None:
                ids, ptr = (self.arena.get(h) for h in follow_handle)
                ids[...] = np.repeat(np.arange(g, dtype=np.int64), sizes)
                ptr[...] = sl
                target[key + "_batch"] = ids if xp is np else xp.asarray(ids)
                target[key + "_ptr"] = ptr if xp is np else xp.asarray(ptr)

    def _increase_edge_ids(
        self,
        et: Any,
        key: str,
        out: Any,
        cat: int | None,
        sizes: np.ndarray,
        sl: np.ndarray,
        xp: ModuleType,
    ) -> np.ndarray:
        """Range-check the local ids of an edge type's index key, then add each graph's
        node offsets of the source (row 0) and destination (row 1) types; the increments
        [G, 2, 1]."""
        src, _, dst = et
        if out.ndim != 2 or out.shape[0] != 2 or cat != 1:
            raise _err(
                et,
                key,
                0,
                f"is increased by [[num source nodes], [num destination nodes]], so it must be "
                f"[2, E]; got shape {list(out.shape[1:] if cat is None else out.shape)} "
                "(override __inc__ / __cat_dim__ for this key)",
            )
        counts = []
        for end, role in ((src, "source"), (dst, "destination")):
            if end not in self.counts:
                raise _err(
                    et, key, 0, f"its {role} node type {end!r} is not a node type of the graphs"
                )
            c = self.counts[end]
            if c is None:
                raise _err(
                    et,
                    key,
                    0,
                    f"is increased by the node counts, but num_nodes of {role} node type "
                    f"{end!r} is unknown (give x, pos or num_nodes=; it is never guessed from "
                    "edge_index.max() + 1)",
                )
            counts.append(c)
        if out.dtype.kind not in "iu":
            raise _err(et, key, 0, f"must hold integers, got dtype {out.dtype}", TypeError)
        g = self.g
        cum = np.stack([_exclusive_cumsum(counts[0]), _exclusive_cumsum(counts[1])], axis=1)
        cum = cum.reshape(g, 2, 1)
        if out.shape[1] == 0:
            return cum  # (recorded as PyG records it, though nothing is added)
        for row, (end, role, c) in enumerate(zip((src, dst), ("source", "destination"), counts)):
            _check_row(et, key, out[row], c, sizes, sl, end, role, row, xp)
        known_max = max(int(counts[0].sum()), int(counts[1].sum())) - 1
        _add_increments(key, out, cum, sizes, 1, xp, known_max)
        return cum


def _obj(objs: list[Any] | None, i: int) -> Any:
    return None if objs is None else objs[i]


def _counted(dim: Any, value: Any) -> Any:
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool) and dim < 0:
        return int(dim) + getattr(value, "ndim", 0)
    return dim


def _check_row(
    et: Any,
    key: str,
    ids: Any,
    counts: np.ndarray,
    sizes: np.ndarray,
    sl: np.ndarray,
    end: str,
    role: str,
    row: int,
    xp: ModuleType,
) -> None:
    """Every id of graph i in row ``row`` lies in [0, counts[i]) (before the increment)."""
    has = sizes > 0
    if xp is np:
        # one pass: seen as unsigned, a negative id is huge, so `id < n` checks both ends
        u = ids.view(np.dtype(f"u{ids.dtype.itemsize}").newbyteorder(ids.dtype.byteorder))
        graph_max = np.maximum.reduceat(u, sl[:-1][has])
        # compared as uint64: a count above the id dtype's range must not wrap
        if (graph_max.astype(np.uint64) < counts[has].astype(np.uint64)).all():
            return
    limit = repeat_counts(xp, xp.asarray(counts.astype(np.int64)), xp.asarray(sizes))
    bad = (ids < 0) | (ids >= limit)
    if not bool(bad.any()):
        return
    pos = int(to_numpy(xp.argmax(bad)))
    graph = int(np.searchsorted(sl, pos, side="right") - 1)
    value = int(to_numpy(ids[pos]))
    n = int(counts[graph])
    raise _err(
        et,
        key,
        graph,
        f"row {row} holds {role} node id {value}, outside [0, {n}) (num_nodes of {end!r} is {n})",
    )
