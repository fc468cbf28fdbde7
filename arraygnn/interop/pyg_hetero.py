"""Hand-off between arraygnn ``HeteroData`` / ``HeteroBatch`` and PyG's ``HeteroData`` /
heterogeneous ``Batch``, sharing memory (reached through :func:`arraygnn.interop.to_pyg` /
:func:`arraygnn.interop.from_pyg`).

Every array goes through :func:`arraygnn.interop.to_torch` / :func:`from_torch` (same
sharing rules, one report whose paths read ``graph.y``, ``nodes.paper.x``,
``edges.('author', 'writes', 'paper').edge_index``). Node and edge types keep their order.
A batch keeps its slice / increment records, so the other side splits it without
re-collating.
(Examples: :func:`arraygnn.interop.to_pyg`.)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from arraygnn.interop._handoff import finish
from arraygnn.interop.pyg import _merge, _per_graph_keys
from arraygnn.interop.torch import from_torch, import_torch, to_torch

__all__ = ["hetero_to_pyg", "hetero_from_pyg"]


def _structure(data: Any) -> dict[str, Any]:
    return {
        "graph": dict(data._global),
        "nodes": {t: dict(s._mapping) for t, s in data._nodes.items()},
        "edges": {t: dict(s._mapping) for t, s in data._edges.items()},
    }


def hetero_to_pyg(obj: Any, tg: Any, *, strict: bool = False, report: bool = False) -> Any:
    """An arraygnn ``HeteroData`` / ``HeteroBatch`` as a PyG ``HeteroData`` / ``Batch``.

    A node type whose ``num_nodes`` is known from neither ``x`` nor an explicit value gets
    none (PyG would then guess it from ``edge_index``: set it on the arraygnn side).
    """
    from arraygnn.hetero_batch import HeteroBatch

    conv, rep = to_torch(_structure(obj), strict=strict, report=True)
    torch = import_torch()
    if isinstance(obj, HeteroBatch) and obj._kind_dict:
        out = tg.data.Batch(_base_cls=tg.data.HeteroData)
    else:
        out = tg.data.HeteroData()
    for key, value in conv["graph"].items():
        out[key] = value
    for t, mapping in conv["nodes"].items():
        store = out[t]
        for key, value in mapping.items():
            store[key] = value
    for et, mapping in conv["edges"].items():
        store = out[et]
        for key, value in mapping.items():
            store[key] = value
    if isinstance(out, tg.data.Batch):
        _records_to_pyg(obj, out, torch)
    return finish(out, rep, report)


def _records_to_pyg(batch: Any, out: Any, torch: Any) -> None:
    """PyG's layout: graph-level records at the top level, others under their type; node
    counts kept as ``store._num_nodes`` lists, not records."""
    slices: dict[Any, Any] = {}
    incs: dict[Any, Any] = {}
    for skey, kinds in batch._kind_dict.items():
        s_rec: dict[str, Any] = {}
        i_rec: dict[str, Any] = {}
        store = out._global_store if skey is None else out[skey]
        for key, kind in kinds.items():
            sl = np.asarray(batch._slice_dict[skey][key], dtype=np.int64)
            if kind == "num_nodes":
                store._num_nodes = np.diff(sl).tolist()
                continue
            s_rec[key] = torch.tensor(sl)
            inc = batch._inc_dict[skey][key]
            i_rec[key] = None if kind == "list" else torch.tensor(np.asarray(inc))
        if skey is None:
            slices.update(s_rec)
            incs.update(i_rec)
        else:
            slices[skey] = s_rec
            incs[skey] = i_rec
    out._num_graphs = int(batch.num_graphs)
    out._slice_dict = slices
    out._inc_dict = incs


def hetero_from_pyg(obj: Any, tg: Any, *, strict: bool = False, report: bool = False) -> Any:
    """A PyG ``HeteroData`` (or heterogeneous ``Batch``) as an arraygnn ``HeteroData`` (or
    ``HeteroBatch``), sharing memory.

    A node type PyG knows the size of without guessing (``num_nodes``, ``x``, ``pos``, a
    key with ``node`` in its name) but that has no ``x`` gets an explicit ``num_nodes``.
    """
    from arraygnn.hetero_batch import HeteroBatch
    from arraygnn.hetero_data import HeteroData

    structure = {
        "graph": obj._global_store.to_dict(),
        "nodes": {t: obj[t].to_dict() for t in obj.node_types},
        "edges": {t: obj[t].to_dict() for t in obj.edge_types},
    }
    is_batch = isinstance(obj, tg.data.Batch) and hasattr(obj, "_slice_dict")
    if is_batch:  # values arraygnn keeps graph by graph (dicts, sparse, ...): lists
        per_graph = _per_graph(obj, structure)
        rest = {
            part: {t: _without(v, per_graph[part].get(t, {})) for t, v in stores.items()}
            for part, stores in structure.items()
            if part != "graph"
        }
        rest["graph"] = _without(structure["graph"], per_graph["graph"])
        conv, rep = from_torch(rest, strict=strict, report=True)
        pieces, part_rep = from_torch(per_graph, strict=strict, report=True)
        _merge(rep, part_rep)
        conv = {  # in the stores' own key order
            "graph": _merged(structure["graph"], conv["graph"], pieces["graph"]),
            "nodes": {
                t: _merged(v, conv["nodes"][t], pieces["nodes"].get(t, {}))
                for t, v in structure["nodes"].items()
            },
            "edges": {
                t: _merged(v, conv["edges"][t], pieces["edges"].get(t, {}))
                for t, v in structure["edges"].items()
            },
        }
    else:
        conv, rep = from_torch(structure, strict=strict, report=True)
    out: Any = HeteroBatch() if is_batch else HeteroData()
    for key, value in conv["graph"].items():
        out._global[key] = value
    for t in obj.node_types:
        store = out.get_node_store(t)
        store._mapping.update(conv["nodes"][t])
        if "x" not in store._mapping and "num_nodes" not in store._mapping:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                n = obj[t].num_nodes
            if n is not None and not caught and not is_batch:
                store._mapping["num_nodes"] = int(n)
    for et in obj.edge_types:
        out.get_edge_store(*et)._mapping.update(conv["edges"][et])
    if is_batch:
        _records_from_pyg(obj, out)
    return finish(out, rep, report)


def _per_graph(obj: Any, structure: dict[str, Any]) -> dict[str, Any]:
    """Per store, the keys of a PyG hetero batch arraygnn keeps as per-graph lists
    (:func:`arraygnn.interop.pyg._per_graph_keys`), in ``structure``'s layout."""
    graph_slices = {k: v for k, v in obj._slice_dict.items() if k in structure["graph"]}
    graph_incs = {k: obj._inc_dict.get(k) for k in graph_slices}
    out: dict[str, Any] = {
        "graph": _per_graph_keys(
            obj, obj._global_store, structure["graph"], graph_slices, graph_incs
        )
    }
    for part in ("nodes", "edges"):
        out[part] = {}
        for t, values in structure[part].items():
            sl, inc = obj._slice_dict.get(t, {}), obj._inc_dict.get(t, {})
            found = _per_graph_keys(obj, obj[t], values, sl, inc)
            if found:
                out[part][t] = found
    return out


def _without(values: dict[str, Any], drop: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in drop}


def _merged(order: dict[str, Any], conv: dict[str, Any], pieces: dict[str, Any]) -> dict:
    return {k: pieces[k] if k in pieces else conv[k] for k in order}


def _records_from_pyg(obj: Any, out: Any) -> None:
    torch = import_torch()
    g = int(obj.num_graphs)
    graph_range = np.arange(g + 1, dtype=np.int64)
    object.__setattr__(out, "_num_graphs", g)
    stores = [(None, obj._global_store)]
    stores += [(t, obj[t]) for t in obj.node_types] + [(t, obj[t]) for t in obj.edge_types]
    for skey, pstore in stores:
        if skey is None:
            s_rec = {k: v for k, v in obj._slice_dict.items() if k in pstore.keys()}
            i_rec = {k: obj._inc_dict.get(k) for k in s_rec}
            target = out._global
        else:
            s_rec = dict(obj._slice_dict.get(skey, {}))
            i_rec = dict(obj._inc_dict.get(skey, {}))
            target = out[skey]._mapping
        for rec in (out._slice_dict, out._inc_dict, out._cat_dim_dict, out._kind_dict):
            rec[skey] = {}
        for key, sl in s_rec.items():
            value = pstore[key]
            inc = i_rec.get(key)
            if isinstance(value, torch.Tensor) and not isinstance(target.get(key), list):
                sl_np = np.asarray(from_torch(sl), dtype=np.int64)
                cat = obj.__cat_dim__(key, value, pstore)
                cat = 0 if cat is None else int(cat)
                if cat < 0:
                    cat += value.dim()
                kind = "cat"
                inc_np = np.zeros(g, np.int64) if inc is None else np.asarray(from_torch(inc))
            else:
                cat, kind = None, "list"
                inc_np = np.zeros(g, np.int64)
                sl_np = graph_range
            out._slice_dict[skey][key] = sl_np
            out._inc_dict[skey][key] = inc_np
            out._cat_dim_dict[skey][key] = cat
            out._kind_dict[skey][key] = kind
        counts = getattr(pstore, "_num_nodes", None)
        if (
            counts is None
            and isinstance(skey, str)
            and "x" not in target
            and "num_nodes" not in target
            and target.get("ptr") is not None
        ):
            # a node type without x (pos only, say): its counts from the batch's ptr, so
            # the batch and its examples know how many nodes the type has
            counts = np.diff(np.asarray(from_torch(pstore["ptr"]), dtype=np.int64))
            target["num_nodes"] = int(counts.sum())
        if counts is not None and "num_nodes" in target:
            sl = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
            out._slice_dict[skey]["num_nodes"] = sl
            out._inc_dict[skey]["num_nodes"] = np.zeros(g, np.int64)
            out._cat_dim_dict[skey]["num_nodes"] = 0
            out._kind_dict[skey]["num_nodes"] = "num_nodes"
        order = {k: i for i, k in enumerate(target)}  # split graphs list keys in store order
        for rec in (out._slice_dict, out._inc_dict, out._cat_dim_dict, out._kind_dict):
            rec[skey] = dict(sorted(rec[skey].items(), key=lambda kv: order.get(kv[0], 0)))
