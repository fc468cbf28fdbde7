"""Shared machinery of the hand-off functions: reports, strict mode, container traversal.

A hand-off converts every array inside an object (an array, a ``Data`` / ``Batch``, a dict,
list or tuple) and keeps the structure. Each converted array is recorded in a
:class:`HandoffReport` as *shared* (the result aliases the input memory, checked by data
pointer after the conversion) or *copied* (with the reason), and objects that could not be
converted are recorded as *kept*. With ``strict=True`` a needed copy raises
:class:`HandoffCopyError` instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arraygnn._alignment import ALIGNMENT, aligned_empty
from arraygnn._namespace import is_cupy_array, map_container

__all__ = [
    "HandoffReport",
    "HandoffCopyError",
    "JAX_ALIGNMENT",
    "aligned_empty",
    "aligned_copy",
    "data_pointer",
]

#: JAX (XLA on CPU) adopts a host buffer without copying only at this alignment (bytes).
JAX_ALIGNMENT = ALIGNMENT


class HandoffCopyError(ValueError):
    """A ``strict=True`` hand-off could not share memory and would have copied."""


@dataclass
class HandoffReport:
    """What a hand-off did with each array, keyed by its path (``"x"``, ``"[0]"``, ...).

    - ``shared``: paths whose result aliases the input memory (verified by data pointer);
    - ``copied``: path -> why a copy was unavoidable;
    - ``kept``: path -> why the value was left as it was (e.g. a string array for torch).

    >>> r = HandoffReport("torch", shared=["x"], copied={"y": "read-only array"})
    >>> r.zero_copy, str(r)
    (False, 'to torch: 1 shared, 1 copied (y: read-only array)')
    """

    target: str
    shared: list[str] = field(default_factory=list)
    copied: dict[str, str] = field(default_factory=dict)
    kept: dict[str, str] = field(default_factory=dict)

    @property
    def zero_copy(self) -> bool:
        """True when no array had to be copied."""
        return not self.copied

    def __str__(self) -> str:
        parts = [f"{len(self.shared)} shared", f"{len(self.copied)} copied"]
        if self.copied:
            parts[-1] += " (" + "; ".join(f"{k}: {v}" for k, v in self.copied.items()) + ")"
        if self.kept:
            parts.append(
                f"{len(self.kept)} kept (" + "; ".join(f"{k}: {v}" for k, v in self.kept.items())
            )
            parts[-1] += ")"
        return f"to {self.target}: " + ", ".join(parts)


def data_pointer(x: Any) -> int | None:
    """Address of the first element of a NumPy/CuPy array, torch tensor or JAX array;
    ``None`` for anything else and for tensors without one buffer (torch sparse tensors)."""
    if isinstance(x, np.ndarray):
        return x.__array_interface__["data"][0]
    ptr = getattr(x, "data_ptr", None)  # torch
    if callable(ptr):
        try:
            return int(ptr())
        except RuntimeError:  # sparse (no storage of its own): was raised, not None
            return None
    ptr = getattr(x, "unsafe_buffer_pointer", None)  # jax
    if callable(ptr):
        try:
            return int(ptr())
        except Exception:  # sharded / deleted arrays
            return None
    cai = getattr(x, "__cuda_array_interface__", None)  # cupy
    if cai is not None:
        return int(cai["data"][0])
    return None


def aligned_copy(a: np.ndarray, alignment: int = JAX_ALIGNMENT) -> np.ndarray:
    """A C-contiguous, native-byte-order, writable copy of ``a`` at an aligned address."""
    a = np.asarray(a)
    out = aligned_empty(a.shape, a.dtype.newbyteorder("="), alignment=alignment)
    out[...] = a
    return out


def is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def is_data_like(obj: Any) -> bool:
    """A ``Data`` / ``Batch`` (or anything with ``keys()``, ``copy()`` and item access)."""
    return (
        not isinstance(obj, (dict, type))
        and callable(getattr(obj, "keys", None))
        and callable(getattr(obj, "copy", None))
        and hasattr(obj, "__getitem__")
        and hasattr(obj, "__setitem__")
    )


_PLAIN = (type(None), bool, int, float, complex, str, bytes, np.generic, np.ndarray)


def check_supported(obj: Any, is_leaf: Callable[[Any], bool], func: str) -> None:
    """TypeError unless ``obj`` is a leaf array, a Data-like object or a mapping / list /
    tuple (a DGL-style graph or a GraphTensor: the error names their feature mappings)."""
    if is_leaf(obj) or isinstance(obj, (Mapping, list, tuple, np.ndarray)) or is_data_like(obj):
        return
    hint = ""
    if hasattr(obj, "ndata") and hasattr(obj, "edata"):
        hint = "; for a DGL-style graph hand over its features: g.ndata / g.edata"
    elif hasattr(obj, "node_sets") and hasattr(obj, "edge_sets"):
        hint = (
            "; for a GraphTensor hand over its features: graph.node_sets[name].features, "
            "graph.edge_sets[name].features, graph.context.features"
        )
    raise TypeError(
        f"hand-off {func} expects an array, a Data / Batch, or a dict / list / tuple of them; "
        f"got {type(obj).__name__}{hint}"
    )


def convert_structure(
    obj: Any,
    is_leaf: Callable[[Any], bool],
    convert_leaf: Callable[[Any, str], Any],
    path: str = "",
    report: HandoffReport | None = None,
    convert_record: Callable[[Any, Any], Any] | None = None,
) -> Any:
    """Apply ``convert_leaf(value, path)`` to every leaf inside ``obj``, keeping structure.

    Data-like objects are shallow-copied (``obj.copy()``, same class, a ``Batch`` keeps its
    slice / increment records) and their values replaced; the input is never mutated.
    Other mappings (a DGL-style ``g.ndata``, a GraphTensor's read-only ``features``) come
    back as plain dicts.
    Values of other types pass through; objects that are not plain Python / NumPy scalars
    are listed in ``report.kept`` (they might hold arrays that were not converted).

    ``convert_record(record, converted_value)`` converts a ``Batch``'s increment record
    (``_inc_dict[key]``) next to its value, so that splitting the converted batch
    subtracts increments of the value's own kind, dtype and device; records are small
    bookkeeping and are not listed in the report.
    """
    if path == "" and report is not None:
        check_supported(obj, is_leaf, f"to {report.target}")
    if is_leaf(obj):
        return convert_leaf(obj, path or "<array>")

    def sub(value: Any, sub_path: str) -> Any:
        return convert_structure(value, is_leaf, convert_leaf, sub_path, report, convert_record)

    positional = isinstance(obj, (list, tuple)) and not is_namedtuple(obj)
    rebuilt = map_container(
        obj, lambda k, v: sub(v, f"{path}[{k}]" if positional else _join(path, k))
    )
    if rebuilt is not NotImplemented:
        return rebuilt
    hetero = _hetero_class()
    if hetero is not None and isinstance(obj, hetero):
        return _convert_hetero(obj, sub, path, convert_record)
    if is_data_like(obj):
        out = obj.copy()
        for key in list(obj.keys()):
            out[key] = sub(obj[key], _join(path, key))
        incs = getattr(obj, "_inc_dict", None)
        if convert_record is not None and isinstance(incs, dict) and incs:
            converted = {
                k: (convert_record(rec, out[k]) if k in out.keys() and rec is not None else rec)
                for k, rec in incs.items()
            }
            object.__setattr__(out, "_inc_dict", converted)  # a new dict: obj keeps its own
        return out
    if isinstance(obj, Mapping):  # read-only or custom mappings (g.ndata, features): a dict
        return {k: sub(v, _join(path, k)) for k, v in obj.items()}
    if report is not None and not isinstance(obj, _PLAIN) and not is_cupy_array(obj):
        report.kept[path or "<object>"] = f"{type(obj).__name__} is not converted"
    return obj


def _hetero_class() -> type | None:
    """:class:`arraygnn.hetero_data.HeteroData` once it is imported (it is never imported
    here only to be checked against)."""
    module = sys.modules.get("arraygnn.hetero_data")
    return None if module is None else module.HeteroData


def _convert_hetero(
    obj: Any,
    sub: Callable[[Any, str], Any],
    path: str,
    convert_record: Callable[[Any, Any], Any] | None,
) -> Any:
    """A ``HeteroData`` / ``HeteroBatch`` store by store: a shallow copy (new stores) whose
    values are converted, paths ``paper.x`` / ``author__writes__paper.edge_index``; a
    batch's increment records are converted next to their values. The input is not
    touched (item access by attribute name would make a node store of that name)."""
    out = obj.copy()
    for name, value in list(vars(out).items()):  # a batch's per-store records: own dicts
        if name not in ("_global", "_nodes", "_edges") and isinstance(value, dict):
            inner = {k: dict(v) if isinstance(v, dict) else v for k, v in value.items()}
            object.__setattr__(out, name, inner)
    stores = [(None, out._global)]
    stores += [(t, s._mapping) for t, s in out._nodes.items()]
    stores += [(t, s._mapping) for t, s in out._edges.items()]
    for skey, mapping in stores:
        name = skey if skey is None or isinstance(skey, str) else "__".join(skey)
        where = path if name is None else _join(path, name)
        for key in list(mapping):
            mapping[key] = sub(mapping[key], _join(where, key))
    incs = getattr(obj, "_inc_dict", None)
    if convert_record is not None and isinstance(incs, dict) and incs:
        converted = {}
        for skey, records in incs.items():
            mapping = dict(stores).get(skey, {})
            converted[skey] = {
                k: (convert_record(rec, mapping[k]) if k in mapping and rec is not None else rec)
                for k, rec in records.items()
            }
        object.__setattr__(out, "_inc_dict", converted)  # new dicts: obj keeps its own
    return out


def host_record(rec: Any) -> np.ndarray:
    """A fresh NumPy copy of an increment record held as NumPy, CuPy, torch or JAX."""
    if is_cupy_array(rec):
        return rec.get()
    if callable(getattr(rec, "detach", None)) and callable(getattr(rec, "cpu", None)):
        return rec.detach().cpu().numpy().copy()  # torch (a CUDA tensor comes to the host)
    return np.array(rec, copy=True)


def record_to_numpy(rec: Any, value: Any) -> Any:
    """``convert_record`` of the hand-offs back to arraygnn: a framework record becomes a
    NumPy array (arraygnn keeps records on the host); a NumPy record is left as it is."""
    if isinstance(rec, np.ndarray):
        return rec
    return host_record(rec)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def need_copy(report: HandoffReport, path: str, reason: str, strict: bool) -> None:
    """Record that ``path`` must be copied, or raise in strict mode."""
    if strict:
        raise HandoffCopyError(
            f"cannot hand {path!r} to {report.target} without a copy: {reason} "
            f"(strict=True; pass strict=False to copy and report it)"
        )
    report.copied[path] = reason


def num_elements(x: Any) -> int | None:
    """Element count of a NumPy / CuPy / JAX array (``size``) or torch tensor (``numel()``;
    its ``size()`` is a shape); None when unknown."""
    numel = getattr(x, "numel", None)
    if callable(numel):
        return int(numel())
    size = getattr(x, "size", None)
    return int(size) if isinstance(size, (int, np.integer)) else None


def check_shared(
    report: HandoffReport, path: str, src: Any, out: Any, strict: bool, expect_copy: bool
) -> None:
    """Verify by data pointer that ``out`` aliases ``src`` (unless a copy was intended)."""
    if expect_copy:
        return
    if num_elements(src) == 0:
        report.shared.append(path)  # nothing to copy: an empty array has no memory to share
        return
    p_src, p_out = data_pointer(src), data_pointer(out)
    if p_src is not None and p_src == p_out:
        report.shared.append(path)
        return
    reason = f"{report.target} made its own copy (data pointers differ)"
    if strict:
        raise HandoffCopyError(f"cannot hand {path!r} to {report.target} without a copy: {reason}")
    report.copied[path] = reason


def finish(out: Any, report: HandoffReport, want_report: bool) -> Any:
    return (out, report) if want_report else out
