"""``NodeLoader``: PyG's generic node-level loader around any :class:`BaseSampler`.

Each batch of ``batch_size`` input nodes becomes a :class:`NodeSamplerInput`, goes to
``node_sampler.sample_from_nodes`` and comes back as a :class:`SamplerOutput` (a ``Data``)
or :class:`HeteroSamplerOutput` (a ``HeteroData``), which the loader *filters*, as PyG's
``filter_data`` / ``filter_hetero_data``: node attributes gathered by ``node``, edge
attributes by ``edge`` (through ``edge_permutation`` when the sampler has one),
``edge_index = [row, col]``, and ``n_id``, ``e_id``, ``batch``, ``num_sampled_nodes`` /
``num_sampled_edges``, ``input_id`` (``metadata[0]``), ``seed_time`` (``metadata[1]``) and
``batch_size`` (the length of ``input_id``); a field the sampler left ``None`` is absent.

RULE: which attributes are per node and per edge is said, never guessed from lengths (as
      :class:`~arraygnn.neighbor_loader.NeighborLoader`): ``x`` / ``pos`` and
      ``edge_attr`` / ``edge_weight`` by default (on a ``HeteroData`` also every array
      of a node store), every other array named in ``node_attrs`` / ``edge_attrs`` /
      ``exclude_keys`` (PyG classifies by length).
RULE: a sampler that leaves ``metadata`` ``None`` gets the input's ``input_id`` and
      ``time`` read back (PyG requires the sampler to return them).
RULE: the sampler's output is checked before anything is indexed (PyG checks nothing):
      integer ``node`` ids in ``[0, num_nodes)``, ``row`` / ``col`` positions in ``[0,
      len(node))`` (of their node types), ``edge`` ids (one per ``row`` entry) in ``[0,
      num_edges)`` or in the ``edge_permutation``'s range, ``batch`` one per node; an id
      outside raises ``ValueError`` naming the loader and the field (never wrapped).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.sampler import NeighborSampler
>>> ring = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
>>> data = Data(x=np.arange(5.0)[:, None], edge_index=ring)
>>> batch = next(iter(NodeLoader(data, NeighborSampler(data, [1, 1]), batch_size=2)))
>>> batch.n_id.tolist(), batch.batch_size, batch.edge_index.tolist(), batch.x[:, 0].tolist()
([0, 1, 4, 3], 2, [[2, 0, 3], [0, 1, 2]], [0.0, 1.0, 4.0, 3.0])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np

from arraygnn._loader_args import (
    apply_torch_args,
    epoch_batches,
    epoch_iter,
    num_batches,
)
from arraygnn._namespace import is_array
from arraygnn.neighbor_loader import (
    _DEFAULT_EDGE,
    _DEFAULT_NODE,
    _check_int,
    check_transform,
)
from arraygnn.sampler.base import (
    BaseSampler,
    HeteroSamplerOutput,
    NodeSamplerInput,
    SamplerOutput,
    _checked_ids,
    _named,
)

__all__ = ["NodeLoader"]


class Filter:
    """The attribute placement of a ``Data`` / ``HeteroData`` (said, checked once) and the
    batch a sampler output makes (PyG's ``filter_data`` / ``filter_hetero_data``)."""

    def __init__(
        self,
        where: str,
        data: Any,
        node_attrs: Iterable[str] | None,
        edge_attrs: Iterable[str] | None,
        exclude_keys: Iterable[str],
    ) -> None:
        from arraygnn.hetero_data import HeteroData
        from arraygnn.hetero_neighbor_loader import _node_counts
        from arraygnn.interop._handoff import is_data_like

        self.where, self.data = where, data
        excluded = set(exclude_keys)
        self.hetero = isinstance(data, HeteroData)
        if self.hetero:
            from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader

            # the hetero loader's placement, on a holder of what it reads and sets
            with _named(where):
                holder = SimpleNamespace(num_nodes_dict=_node_counts(data))
                HeteroNeighborLoader._place_attrs(holder, data, node_attrs, edge_attrs, excluded)
            self.place = holder
            return
        if not is_data_like(data):
            raise TypeError(
                f"{where}: data must be a Data or HeteroData, got {type(data).__name__}"
            )
        keys = list(data.keys())
        node = [k for k in _DEFAULT_NODE if k in keys] if node_attrs is None else list(node_attrs)
        edge = [k for k in _DEFAULT_EDGE if k in keys] if edge_attrs is None else list(edge_attrs)
        own = ("edge_index", "num_nodes")
        for name in node + edge:
            if name not in keys:
                raise ValueError(f"{where}: data has no attribute {name!r} (has {sorted(keys)})")
            if name in own:
                raise ValueError(f"{where}: {name!r} is the batch's own field, not an attribute")
        loose = [
            k for k in keys
            if k not in set(node) | set(edge) | excluded | set(own) and is_array(data[k])
        ]  # fmt: skip
        if loose:
            raise ValueError(
                f"{where}: data attribute(s) {loose} are neither node nor edge attributes: "
                "name them in node_attrs= or edge_attrs=, or leave them out with exclude_keys="
            )
        self.node_attrs, self.edge_attrs = node, edge
        self.keep = {
            k: data[k] for k in keys
            if k not in set(node) | set(edge) | excluded | set(own)
        }  # fmt: skip

    def __call__(self, out: Any, perm: Any) -> Any:
        if isinstance(out, SamplerOutput) and not self.hetero:
            return self._data(out, perm)
        if isinstance(out, HeteroSamplerOutput) and self.hetero:
            return self._hetero(out, perm or {})
        kind = "HeteroData" if self.hetero else "Data"
        raise TypeError(
            f"{self.where}: the sampler returned a {type(out).__name__} for a {kind} "
            "(SamplerOutput goes with Data, HeteroSamplerOutput with HeteroData)"
        )

    def _data(self, out: SamplerOutput, perm: Any) -> Any:
        from arraygnn import ops
        from arraygnn.data import Data

        xp = _xp(out.node, out.row, out.col)
        data, ids = self.data, self._ids
        node = ids("node", out.node, data.num_nodes, xp)
        k = int(node.shape[0])
        row = ids("row", out.row, k, xp)
        col = ids("col", out.col, k, xp, length=row.shape[0])
        edge_index = getattr(data, "edge_index", None)
        num_edges = 0 if edge_index is None else int(edge_index.shape[1])
        edge = self._edge_ids(xp, "edge", out.edge, perm, num_edges, row.shape[0])
        values = dict(self.keep)
        for name in self.node_attrs:
            values[name] = ops.gather(data[name], node)
        if edge is not None:
            for name in self.edge_attrs:
                values[name] = ops.gather(data[name], edge)
        batch = Data(edge_index=xp.stack([row, col]), **values)
        batch.num_nodes = k
        batch.n_id = out.node
        if edge is not None:
            batch.e_id = edge
        if out.batch is not None:  # checked, kept as given (PyG)
            ids("batch", out.batch, None, xp, length=k)
            batch.batch = xp.asarray(out.batch)
        _set(batch, "num_sampled_nodes", out.num_sampled_nodes)
        _set(batch, "num_sampled_edges", out.num_sampled_edges)
        if out.orig_row is not None and out.orig_col is not None:
            orig_row = ids("orig_row", out.orig_row, k, xp)
            orig_col = ids("orig_col", out.orig_col, k, xp, length=orig_row.shape[0])
            batch._orig_edge_index = xp.stack([orig_row, orig_col])
        return batch

    def _hetero(self, out: HeteroSamplerOutput, perm: dict) -> Any:
        from arraygnn import ops
        from arraygnn.hetero_data import HeteroData
        from arraygnn.hetero_neighbor_loader import _num_edges

        place, data, ids = self.place, self.data, self._ids
        xp = _xp(*out.node.values(), *out.row.values())
        empty = xp.zeros(0, dtype=np.int64)
        batch = HeteroData()
        for key, value in place._global.items():
            setattr(batch, key, value)
        counts: dict[str, int] = {}
        for t in data.node_types:
            given = out.node.get(t)
            node = empty
            if given is not None:
                node = ids(f"node[{t!r}]", given, place.num_nodes_dict[t], xp)
            counts[t] = int(node.shape[0])
            store, source = batch.get_node_store(t), data._nodes[t]
            for key, value in place._keep[t].items():
                store[key] = value
            for key in place._slice[t]:
                store[key] = ops.gather(source[key], node)
            store.num_nodes = counts[t]
            store.n_id = node if given is None else given
            if (out.batch or {}).get(t) is not None:  # checked, kept as given (PyG)
                ids(f"batch[{t!r}]", out.batch[t], None, xp, length=counts[t])
                store.batch = xp.asarray(out.batch[t])
            _set(store, "num_sampled_nodes", (out.num_sampled_nodes or {}).get(t))
        edges = out.edge or {}
        for et in data.edge_types:
            store, source = batch.get_edge_store(*et), data._edges[et]
            for key, value in place._keep[et].items():
                store[key] = value
            row = ids(f"row[{et!r}]", out.row.get(et, empty), counts[et[0]], xp)
            col = ids(f"col[{et!r}]", out.col.get(et, empty), counts[et[2]], xp,
                      length=row.shape[0])  # fmt: skip
            store.edge_index = xp.stack([row, col])
            given = edges.get(et, None if out.edge else empty)
            if et not in out.row and out.edge is not None:
                given = empty
            edge = self._edge_ids(
                xp, f"edge[{et!r}]", given, perm.get(et), _num_edges(data, et), row.shape[0]
            )
            if edge is not None:
                for key in place._slice[et]:
                    store[key] = ops.gather(source[key], edge)
                store.e_id = edge
            _set(store, "num_sampled_edges", (out.num_sampled_edges or {}).get(et))
            if out.orig_row is not None and out.orig_col is not None and et in out.orig_row:
                orig_row = ids(f"orig_row[{et!r}]", out.orig_row[et], counts[et[0]], xp)
                orig_col = ids(f"orig_col[{et!r}]", out.orig_col[et], counts[et[2]], xp,
                               length=orig_row.shape[0])  # fmt: skip
                store._orig_edge_index = xp.stack([orig_row, orig_col])
        return batch

    def _ids(self, what: str, value: Any, size: int | None, xp: Any, length: Any = None) -> Any:
        """A sampler output's ids as int64, checked (module RULE) before any indexing."""
        per = "node" if what.startswith("batch") else "sampled edge, as row"
        name = f"{self.where}: the sampler's output {what}"
        return _checked_ids(xp, name, value, size, length, per)

    def _edge_ids(self, xp: Any, what: str, edge: Any, perm: Any, num_edges: int,
                  length: Any) -> Any:  # fmt: skip
        """The graph's ids of a sampler's edges (``perm[edge]`` where it renumbered them),
        checked; ``None`` for no edge ids."""
        if edge is None:
            return None
        if perm is None:
            return self._ids(what, edge, num_edges, xp, length=length)
        perm = xp.asarray(perm)
        edge = self._ids(what, edge, int(perm.shape[0]), xp, length=length)
        return self._ids(f"edge_permutation[{what}]", perm[edge], num_edges, xp)


def _xp(*arrays: Any) -> Any:
    from arraygnn._namespace import get_namespace

    arrays = tuple(a for a in arrays if is_array(a))
    return get_namespace(*arrays) if arrays else np


def _set(store: Any, name: str, value: Any) -> None:
    if value is not None:  # PyG: a None attribute is no attribute
        setattr(store, name, value)


def check_sampler(where: str, sampler: Any, method: str) -> Any:
    if not isinstance(sampler, BaseSampler) and not callable(getattr(sampler, method, None)):
        raise TypeError(
            f"{where}: the sampler must be a BaseSampler (with {method}), got "
            f"{type(sampler).__name__}"
        )
    return sampler


def order_args(loader: Any, where: str, kwargs: dict) -> None:
    """Set ``loader``'s ``batch_size`` / ``shuffle`` / ``drop_last``, its epoch stream
    ``_rng`` (``seed`` or torch's ``generator``), ``sampler`` / ``batch_sampler`` and the
    torch ``DataLoader`` keywords that change nothing here (batches are made in this
    process, on demand), all from ``kwargs``
    (:func:`~arraygnn._loader_args.torch_loader_args`)."""
    batch_size = _check_int(where, "batch_size", kwargs.pop("batch_size", 1), 1)
    shuffle, drop_last = bool(kwargs.pop("shuffle", False)), bool(kwargs.pop("drop_last", False))
    seed = kwargs.pop("seed", None)
    loader._rng = apply_torch_args(  # filter_per_worker: NodeLoader's / LinkLoader's own
        loader, where, kwargs, seed, batch_size, shuffle, drop_last, ("filter_per_worker",)
    )
    loader.batch_size, loader.shuffle, loader.drop_last = batch_size, shuffle, drop_last


def loader_len(loader: Any, count: int) -> int:
    """Batches per epoch of a loader set up by :func:`order_args`."""
    return num_batches(count, loader.batch_size, loader.drop_last, loader.sampler,
                       loader.batch_sampler)  # fmt: skip


def batches(loader: Any, where: str, count: int) -> Iterator[np.ndarray]:
    """The positions of one epoch's batches (PyG's torch ``DataLoader`` over ``range``)."""
    chunks = epoch_batches(
        where, count, loader.batch_size, loader.shuffle, loader.drop_last, loader._rng,
        loader.sampler, loader.batch_sampler,
    )  # fmt: skip
    return epoch_iter(loader._rng, chunks)  # torch's draws, as torch makes them


def _input_nodes(where: str, data: Any, input_nodes: Any, input_id: Any) -> tuple:
    """``(input_type, nodes, input_id)`` as PyG's ``get_input_nodes``: a mask becomes its
    node ids, which are also the ``input_id`` unless one is given."""
    from arraygnn.hetero_neighbor_loader import _input_nodes as hetero_input_nodes
    from arraygnn.hetero_neighbor_loader import _node_counts
    from arraygnn.neighbor_loader import NeighborLoader

    if hasattr(data, "node_types"):
        if isinstance(input_nodes, list) and len(input_nodes) == 2:
            input_nodes = tuple(input_nodes)  # PyG takes a list or a tuple
        with _named(where):
            counts = _node_counts(data)
            xp = _xp(*(s.get("x") for _, s in data.node_items()))
            node_type, nodes = hetero_input_nodes(data, input_nodes, counts, xp)
        given = input_nodes[1] if isinstance(input_nodes, tuple) else None
    else:
        n = data.num_nodes
        xp = _xp(data.edge_index)
        node_type, given = None, input_nodes
        nodes = NeighborLoader._input_nodes(SimpleNamespace(num_nodes=n), where, input_nodes, xp)
    mask = given is not None and xp.asarray(given).dtype.kind == "b"
    if input_id is not None:
        input_id = xp.asarray(input_id)
        if input_id.shape != nodes.shape:
            raise ValueError(
                f"{where}: input_id must have one entry per input node ({nodes.shape[0]}), "
                f"got shape {tuple(input_id.shape)}"
            )
    elif mask:
        input_id = nodes
    return node_type, nodes, input_id


class NodeLoader:
    """PyG's ``NodeLoader``: node-level mini-batches from any sampler.

    Args:
        data: a :class:`~arraygnn.data.Data` or :class:`~arraygnn.hetero_data.HeteroData`.
        node_sampler: a :class:`~arraygnn.sampler.BaseSampler` (``sample_from_nodes``).
        input_nodes: seed ids, a boolean mask, ``None`` (every node); for a ``HeteroData``
            ``(node_type, ids | mask | None)`` or a node type name.
        input_time: one time per input node, handed to the sampler (``index.time``).
        transform: applied to every filtered batch.
        transform_sampler_output: applied to every sampler output before filtering.
        filter_per_worker / custom_cls: accepted for PyG's signature and unused (no worker
            processes, no remote stores).
        ``**kwargs``: torch ``DataLoader``'s ``batch_size`` / ``shuffle`` / ``drop_last``,
            ``generator`` (shuffling: a ``torch.Generator`` gives torch's own order) and
            ``sampler`` / ``batch_sampler`` (over the input positions), honoured; its other
            keywords (``num_workers``, ``pin_memory``, ...) checked as torch checks them and
            without effect (batches are made on demand in this process); ``seed`` for
            shuffling (not with ``generator``).
        input_id: the input nodes' ids handed to the sampler (default: their positions,
            or the node ids for a mask, as PyG).
        batch_size / shuffle / drop_last: torch ``DataLoader``'s; ``seed`` for shuffling.
        node_attrs / edge_attrs / exclude_keys: the attribute placement (module RULE).

    ``loader(index)`` makes the batch of the input positions ``index``; ``len(loader)`` is
    the number of batches per epoch.
    """

    _where = "NodeLoader"

    def __init__(
        self,
        data: Any,
        node_sampler: BaseSampler,
        input_nodes: Any = None,
        input_time: Any = None,
        transform: Callable[[Any], Any] | None = None,
        transform_sampler_output: Callable[[Any], Any] | None = None,
        filter_per_worker: bool | None = None,
        custom_cls: Any = None,
        input_id: Any = None,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        exclude_keys: Iterable[str] = (),
        **kwargs: Any,
    ) -> None:
        where = self._where
        self.data = data
        self.node_sampler = check_sampler(where, node_sampler, "sample_from_nodes")
        self.transform = check_transform(transform)
        self.transform_sampler_output = check_transform(transform_sampler_output)
        self.filter_per_worker, self.custom_cls = filter_per_worker, custom_cls
        order_args(self, where, kwargs)
        self._filter = Filter(where, data, node_attrs, edge_attrs, exclude_keys)
        input_type, nodes, input_id = _input_nodes(where, data, input_nodes, input_id)
        if input_time is not None:
            input_time = _xp(nodes).asarray(input_time)
            if input_time.shape != nodes.shape:
                raise ValueError(
                    f"{where}: input_time must have one entry per input node "
                    f"({nodes.shape[0]}), got shape {tuple(input_time.shape)}"
                )
        self.input_data = NodeSamplerInput(input_id, nodes, input_time, input_type)

    def __len__(self) -> int:
        return loader_len(self, int(self.input_data.node.shape[0]))

    def __iter__(self) -> Iterator[Any]:
        count = int(self.input_data.node.shape[0])
        for positions in batches(self, self._where, count):
            yield self(positions)

    def __call__(self, index: Any) -> Any:
        """The batch of the input positions ``index`` (sampled, then filtered)."""
        inputs = self.input_data[index]
        return self.filter_fn(self.node_sampler.sample_from_nodes(inputs), inputs)

    def filter_fn(self, out: Any, inputs: NodeSamplerInput | None = None) -> Any:
        """The batch of a sampler output (PyG's ``filter_fn``)."""
        if self.transform_sampler_output is not None:
            out = self.transform_sampler_output(out)
        batch = self._filter(out, self.node_sampler.edge_permutation)
        meta = out.metadata
        if meta is None and inputs is not None:
            meta = (inputs.input_id, inputs.time)
        if meta is None or meta[0] is None:
            raise ValueError(
                f"{self._where}: the sampler's output has no metadata; return "
                "metadata=(index.input_id, index.time) from sample_from_nodes (PyG's contract)"
            )
        store = batch if not self._filter.hetero else batch[self.input_data.input_type]
        store.input_id = meta[0]
        _set(store, "seed_time", meta[1])
        store.batch_size = int(meta[0].shape[0])
        return batch if self.transform is None else self.transform(batch)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
