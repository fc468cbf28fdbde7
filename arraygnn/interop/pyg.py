"""Hand-off between arraygnn ``Data`` / ``Batch`` and PyTorch Geometric, sharing memory.

``to_pyg`` converts every array with :func:`arraygnn.interop.to_torch` (same sharing rules,
same report) and wraps the tensors in ``torch_geometric.data.Data``; a ``Batch`` becomes a
PyG ``Batch`` whose slice / increment dictionaries come from arraygnn's records, so PyG can
split it (``to_data_list``, ``get_example``) without re-collating. ``from_pyg`` goes back
through :func:`arraygnn.interop.from_torch`.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.interop import to_pyg
>>> g = to_pyg(Data(x=np.ones((3, 2), np.float32), edge_index=np.array([[0, 1], [1, 2]])))
>>> type(g).__name__, g.num_nodes
('Data', 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.interop._handoff import HandoffReport, finish
from arraygnn.interop.torch import from_torch, import_torch, numpy_can_hold, to_torch

__all__ = ["to_pyg", "from_pyg", "import_pyg"]


def import_pyg():
    """Import torch_geometric or raise an ImportError naming the extra to install."""
    import_torch()
    try:
        import torch_geometric.data
    except ImportError as err:
        raise ImportError(
            "PyTorch Geometric is required for this hand-off: pip install 'arraygnn[pyg]'"
        ) from err
    return torch_geometric


def _merge(into: HandoffReport, part: HandoffReport) -> None:
    into.shared.extend(part.shared)
    into.copied.update(part.copied)
    into.kept.update(part.kept)


def _num_nodes(data: Any) -> int | None:
    try:
        n = data.num_nodes
    except Exception:
        return None
    return None if n is None else int(n)


def to_pyg(
    obj: Any, *, strict: bool = False, report: bool = False, pyg_data_cls: Any = None
) -> Any:
    """Convert an arraygnn ``Data`` / ``Batch`` to a PyG ``Data`` / ``Batch`` (shared tensors).

    An arraygnn ``HeteroData`` / ``HeteroBatch`` becomes a PyG ``HeteroData`` / ``Batch``
    (:mod:`arraygnn.interop.pyg_hetero`; ``pyg_data_cls`` does not apply):

    >>> from arraygnn.hetero_data import HeteroData
    >>> h = to_pyg(HeteroData(paper={"x": np.ones((3, 2), np.float32)}))
    >>> type(h).__name__, h["paper"].num_nodes, type(from_pyg(h)).__name__
    ('HeteroData', 3, 'HeteroData')

    An arraygnn :class:`~arraygnn.temporal_data.TemporalData` becomes PyG's
    ``TemporalData``, a collated ``TemporalDataBatch`` PyG's ``TemporalDataBatch`` with
    the records to split it (and back with :func:`from_pyg`).

    A ``Data`` without ``x`` gets an explicit ``num_nodes`` (PyG would otherwise guess from
    ``edge_index.max() + 1``). A ``Batch`` keeps ``batch``, ``ptr``, ``num_graphs`` and its
    per-key slices and increments. ``strict`` / ``report`` as in :func:`to_torch`.

    ``pyg_data_cls`` (default ``torch_geometric.data.Data``) is the PyG class of the result
    (of each graph, for a batch). PyG splits a batch with that class's ``__cat_dim__``: a
    key it would split along another dim than the one it was collated along (a ``Data``
    subclass's own ``__cat_dim__``; ``faces``, which the seed's ``'face' in key`` rule
    concatenates along its last dim) needs a PyG class that agrees (``ValueError`` naming
    the key otherwise: PyG's default would split it wrongly).
    """
    tg = import_pyg()
    from arraygnn.batch import Batch
    from arraygnn.data import Data
    from arraygnn.hetero_data import HeteroData
    from arraygnn.temporal_data import TemporalData, TemporalDataBatch

    if isinstance(obj, HeteroData):  # heterogeneous: arraygnn.interop.pyg_hetero
        from arraygnn.interop.pyg_hetero import hetero_to_pyg

        return hetero_to_pyg(obj, tg, strict=strict, report=report)
    if isinstance(obj, TemporalDataBatch) and obj.num_graphs is not None:
        # collated streams: PyG's TemporalDataBatch, with the records to split them
        tensors, rep = to_torch(obj.to_dict(), strict=strict, report=True)
        out = _batch_to_pyg(tg, obj, tensors, tg.data.TemporalData)
        _check_split_dims(obj, out, tg.data.TemporalData)
        return finish(out, rep, report)
    if isinstance(obj, TemporalData):  # an event stream: PyG's TemporalData
        tensors, rep = to_torch(obj.to_dict(), strict=strict, report=True)
        return finish(tg.data.TemporalData(**tensors), rep, report)
    if not isinstance(obj, Data):
        raise TypeError(f"to_pyg expects an arraygnn Data or Batch, got {type(obj).__name__}")
    values = {key: obj[key] for key in obj.keys()}
    tensors, rep = to_torch(values, strict=strict, report=True)
    base_cls = tg.data.Data if pyg_data_cls is None else pyg_data_cls
    if not (isinstance(base_cls, type) and issubclass(base_cls, tg.data.Data)):
        raise TypeError(
            "to_pyg: pyg_data_cls must be torch_geometric.data.Data or a subclass of it, "
            f"got {base_cls!r}"
        )
    if isinstance(obj, Batch):
        out = _batch_to_pyg(tg, obj, tensors, base_cls)
        _check_split_dims(obj, out, base_cls)
    else:
        out = base_cls(**tensors)
        n = _num_nodes(obj)
        if "num_nodes" not in tensors and n is not None and "x" not in tensors:
            out.num_nodes = n
    return finish(out, rep, report)


def _batch_to_pyg(tg: Any, batch: Any, tensors: dict[str, Any], base_cls: Any) -> Any:
    torch = import_torch()
    slices, incs = _records(batch)
    for key, kind in batch._kind_dict.items():
        if kind in ("cat", "stack") and not isinstance(tensors[key], torch.Tensor):
            # an array torch cannot hold (strings, float4 / float6, objects): PyG keeps such
            # values as a list with one entry per graph, and so indexes it when splitting
            tensors[key] = _per_graph(batch, key)
            slices[key] = np.arange(int(batch.num_graphs) + 1)
            incs[key] = None
    out = tg.data.Batch(_base_cls=base_cls, **tensors)
    out._num_graphs = int(batch.num_graphs)
    if "num_nodes" in slices:  # PyG keeps per-graph node counts as a list, not a record
        bounds = np.asarray(slices.pop("num_nodes"), dtype=np.int64)
        incs.pop("num_nodes", None)
        out._store._num_nodes = np.diff(bounds).tolist()
    # records are small: copied (a read-only record, e.g. memory-mapped, must not become a
    # writable tensor over the same memory)
    out._slice_dict = {k: torch.tensor(np.asarray(v, dtype=np.int64)) for k, v in slices.items()}
    out._inc_dict = {k: None if v is None else torch.tensor(np.asarray(v)) for k, v in incs.items()}
    return out


def _per_graph(batch: Any, key: str) -> list[Any]:
    """Graph by graph, the values of an array key (as ``get_example`` cuts them)."""
    from arraygnn.batch import _subtract_inc

    value, sl = batch[key], batch._slice_dict[key]
    cat, inc = batch._cat_dim_dict[key], batch._inc_dict[key]
    parts = []
    for i in range(int(batch.num_graphs)):
        if cat is None:
            part = value[i, ...]
        else:
            part = value[(slice(None),) * cat + (slice(int(sl[i]), int(sl[i + 1])),)]
        parts.append(_subtract_inc(part, inc[i]))
    return parts


def _check_split_dims(batch: Any, out: Any, base_cls: Any) -> None:
    """ValueError naming the first key PyG would split along another dim than the one it
    was collated along. PyG splits with ``__cat_dim__`` alone (the increments come from
    the records); arraygnn's keys follow the seed's rule (``'face' in key`` concatenates
    along the last dim as ``'index'`` does, PyG 2.x only for ``key == 'face'``) or the
    batch's own Data subclass."""
    torch = import_torch()
    for key, kind in batch._kind_dict.items():
        if kind not in ("cat", "stack") or not isinstance(out[key], torch.Tensor):
            continue
        value = out[key]
        theirs = out.__cat_dim__(key, value, out._store)
        if isinstance(theirs, int) and theirs < 0:
            theirs += value.dim()
        ours = batch._cat_dim_dict[key]
        if theirs == ours or (ours is None and value.dim() == 1):
            continue  # (0-d values come back as [1] from PyG, as its own batches do)
        raise ValueError(
            f"to_pyg: key {key!r} was collated along dim {ours} by arraygnn's "
            f"{batch._data_cls.__name__}, but PyG would split it along {theirs} "
            f"({base_cls.__module__}.{base_cls.__name__}.__cat_dim__); pass pyg_data_cls= "
            "a torch_geometric Data subclass whose __cat_dim__ gives the same dim"
        )


def _records(batch: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per-key slice boundaries [G + 1] and increments [G] of an arraygnn Batch."""
    slices = getattr(batch, "_slice_dict", None)
    incs = getattr(batch, "_inc_dict", None)
    if slices is None or incs is None:
        raise TypeError("this Batch has no slice / increment records (was it collated?)")
    return dict(slices), dict(incs)


def from_pyg(obj: Any, *, strict: bool = False, report: bool = False) -> Any:
    """Convert a PyG ``Data`` / ``Batch`` to an arraygnn ``Data`` / ``Batch`` (shared arrays).

    A PyG ``HeteroData`` (or heterogeneous ``Batch``) becomes an arraygnn
    :class:`~arraygnn.hetero_data.HeteroData` (or ``HeteroBatch``), see
    :mod:`arraygnn.interop.pyg_hetero`. A PyG ``TemporalData`` becomes an arraygnn
    ``TemporalData``, a PyG ``TemporalDataBatch`` an arraygnn ``TemporalDataBatch``
    (records kept, it splits back). ``strict`` / ``report`` as in :func:`from_torch`.

    A batch's values that PyG collates into nested records (a dict per graph, a list of
    tensors per graph) or that NumPy cannot hold (sparse tensors, nested tensors,
    complex32) come back as a list with one value per graph, as arraygnn collates them:
    graph ``i``'s value is what PyG's ``get_example(i)`` gives (sparse ``adj`` keys
    too, which PyG itself cannot split).

    >>> import torch
    >>> from torch_geometric.data import Batch as PygBatch, Data as PygData
    >>> meta = [{"name": f"g{n}", "deg": torch.arange(n)} for n in (2, 3)]
    >>> graphs = [PygData(x=torch.ones(n, 1), meta=m) for n, m in zip((2, 3), meta)]
    >>> b = from_pyg(PygBatch.from_data_list(graphs))
    >>> len(b.meta), b.get_example(1).meta
    (2, {'name': 'g3', 'deg': array([0, 1, 2])})
    """
    tg = import_pyg()
    from arraygnn.data import Data

    if isinstance(obj, tg.data.HeteroData):  # heterogeneous: arraygnn.interop.pyg_hetero
        from arraygnn.interop.pyg_hetero import hetero_from_pyg

        return hetero_from_pyg(obj, tg, strict=strict, report=report)
    is_batch = isinstance(obj, tg.data.Batch) and hasattr(obj, "_slice_dict")
    if isinstance(obj, tg.data.TemporalData) and not is_batch:  # an event stream
        from arraygnn.temporal_data import TemporalData

        arrays, rep = from_torch(obj.to_dict(), strict=strict, report=True)
        return finish(TemporalData(**arrays), rep, report)
    if not isinstance(obj, (tg.data.Data, tg.data.TemporalData)):
        raise TypeError(f"from_pyg expects a torch_geometric Data or Batch, got {type(obj)}")
    values = {k: v for k, v in obj.to_dict().items() if k != "_num_nodes"}  # PyG batch bookkeeping
    per_graph = {}
    if is_batch:
        per_graph = _per_graph_keys(obj, obj._store, values, obj._slice_dict, obj._inc_dict)
    arrays, rep = from_torch(
        {k: v for k, v in values.items() if k not in per_graph}, strict=strict, report=True
    )
    if per_graph:  # values PyG collated into a form arraygnn keeps graph by graph
        pieces, part = from_torch(per_graph, strict=strict, report=True)
        _merge(rep, part)
        arrays = {k: pieces[k] if k in pieces else arrays[k] for k in values}
    if is_batch:
        temporal = isinstance(obj, tg.data.TemporalData)
        out = _batch_from_pyg(obj, arrays, set(per_graph), temporal)
    else:
        out = Data(**arrays)
    return finish(out, rep, report)


def _per_graph_keys(
    obj: Any, store: Any, values: dict[str, Any], slice_rec: Any, inc_rec: Any
) -> dict[str, list[Any]]:
    """The keys of a PyG batch's store that arraygnn cannot keep collated, each as a list
    of its per-graph values (cut as PyG's ``separate`` cuts them, torch objects).

    These are the values PyG collates into nested records (a dict of values, a list of
    tensors per graph), sparse tensors (slices per dim, ``'adj'`` keys diagonally) and
    tensors NumPy cannot hold (complex32, nested; bfloat16 without ml_dtypes): arraygnn's
    own collation keeps such values as a list, one per graph. ``slice_rec`` / ``inc_rec``
    are the store's records (PyG nests a node / edge type's under its type)."""
    torch = import_torch()
    g = int(obj.num_graphs)
    out = {}
    for key, sl in slice_rec.items():
        value = values.get(key)
        plain = isinstance(sl, torch.Tensor) and sl.dim() == 1
        if isinstance(value, torch.Tensor):
            if plain and numpy_can_hold(value):
                continue
        elif plain or not isinstance(value, (dict, list)):
            continue  # a list PyG kept per graph (or anything else it did not collate)
        inc = inc_rec.get(key)
        out[key] = [_pyg_piece(obj, store, key, value, sl, inc, i, torch) for i in range(g)]
    return out


def _pyg_piece(
    obj: Any, store: Any, key: str, value: Any, sl: Any, inc: Any, i: int, torch: Any
) -> Any:
    """Graph ``i``'s part of a value PyG collated (what PyG's ``separate`` cuts, also for
    sparse tensors, cut along each of their concatenation dims, and nested tensors)."""
    if isinstance(value, torch.Tensor):
        cat = obj.__cat_dim__(key, value, store)
        dims = cat if isinstance(cat, tuple) else (cat or 0,)
        starts, ends = sl[i].reshape(-1).tolist(), sl[i + 1].reshape(-1).tolist()
        piece = value
        for dim, start, end in zip(dims, starts, ends):
            piece = _narrow(torch, piece, dim, start, end - start)
        if cat is None:
            piece = piece.squeeze(0)
        if inc is not None and (inc.dim() > 1 or int(inc[i]) != 0):
            piece = piece - inc[i]
        return piece
    if isinstance(value, dict):
        return {
            k: _pyg_piece(obj, store, k, v, sl[k], None if inc is None else inc[k], i, torch)
            for k, v in value.items()
        }
    if isinstance(value, list) and isinstance(sl, (list, tuple)):  # tensors collated per place
        return [
            _pyg_piece(obj, store, key, v, sl[j], None if inc is None else inc[j], i, torch)
            for j, v in enumerate(value)
        ]
    return value[i]


def _narrow(torch: Any, t: Any, dim: int, start: int, length: int) -> Any:
    if t.is_nested:  # graph i's tensors of the collated nested tensor
        return torch.nested.nested_tensor(list(t.unbind())[start : start + length])
    if t.layout == torch.strided:
        return t.narrow(dim, start, length)
    layout = t.layout  # sparse: cut as COO, give back the layout it had
    piece = t.to_sparse_coo().narrow_copy(dim, start, length)
    if layout == torch.sparse_csr:
        return piece.to_sparse_csr()
    if layout == torch.sparse_csc:
        return piece.to_sparse_csc()
    return piece


def _batch_from_pyg(obj: Any, arrays: dict[str, Any], per_graph: set[str], temporal: bool) -> Any:
    """An arraygnn ``Batch`` (a ``TemporalDataBatch`` for PyG's) over PyG's records; the
    ``per_graph`` keys are lists with one value per graph."""
    from arraygnn.batch import Batch
    from arraygnn.temporal_data import TemporalData, TemporalDataBatch

    g = int(obj.num_graphs)
    slices = {
        k: np.arange(g + 1, dtype=np.int64) if k in per_graph else from_torch(v)
        for k, v in obj._slice_dict.items()
    }
    # PyG records None for keys without increments (strings and other non-tensor values)
    incs = {
        k: from_torch(v) for k, v in obj._inc_dict.items() if v is not None and k not in per_graph
    }
    counts = getattr(obj._store, "_num_nodes", None)
    if "num_nodes" in arrays and counts is not None:
        slices["num_nodes"] = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    # split along the dims PyG concatenated along (its rule: -1 for index keys, which is
    # dim 0 of a 1-D center_index), not arraygnn's default hooks
    torch = import_torch()
    cat_dims = {
        k: obj.__cat_dim__(k, obj[k])
        for k in slices
        if k != "num_nodes" and k not in per_graph and isinstance(obj[k], torch.Tensor)
    }
    if temporal:  # PyG's TemporalDataBatch: arraygnn's, rebuilt by the same code
        build = Batch.from_records.__func__
        return build(TemporalDataBatch, arrays, slices, incs, g, TemporalData, cat_dims)
    return Batch.from_records(arrays, slices, incs, num_graphs=g, cat_dims=cat_dims)
