"""Heterogeneous wrappers: one layer per edge type, results merged per destination type.

- :class:`HeteroConv` is PyG's: ``conv(x_dict, edge_index_dict, *args_dict, **kwargs_dict)``
  over ``{(src, rel, dst): layer}``; ``aggr`` ``'sum'`` (default), ``'mean'``, ``'max'``,
  ``'min'``, ``'prod'``, ``'cat'`` or ``None`` (stack on dim 1).
- :class:`HeteroGraphConv` is DGL's: ``conv(g, inputs, mod_args, mod_kwargs)`` over a
  heterogeneous :class:`arraygnn.graph.Graph`, each layer called on the relation's graph
  ``g[stype, etype, dtype]`` with ``(inputs[stype], inputs[dtype])``; ``aggregate``
  ``'sum'``, ``'max'``, ``'min'``, ``'mean'``, ``'stack'`` or a callable
  ``f(list_of_arrays, dsttype)``.

The wrapped layers are arraygnn layers (or any callables); their weights appear in the
state dict under ``convs.<src___rel___dst>.`` (PyG) or ``mods.<etype>.`` (DGL), so a
PyG / DGL state dict loads by name, each layer with its own naming.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module

__all__ = ["HeteroConv", "HeteroGraphConv"]


class _ModuleDict(Module):
    """Layers by key; their weights named ``<key>.<name>`` (keys never hold dots)."""

    def __init__(self, modules: Mapping[str, Any], where: str = "load_state_dict") -> None:
        self._items = dict(modules)
        self._where = where

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._items)

    def keys(self):  # type: ignore[no-untyped-def]
        return self._items.keys()

    def values(self):  # type: ignore[no-untyped-def]
        return self._items.values()

    def items(self):  # type: ignore[no-untyped-def]
        return self._items.items()

    def extra_repr(self) -> str:
        return ", ".join(f"{key}: {mod!r}" for key, mod in self._items.items())

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return [
            (f"{key}.{name}", value)
            for key, mod in self._items.items()
            if isinstance(mod, Module)
            for name, value in mod._named_arrays()
        ]

    def _set_array(self, dotted: str, value: Any) -> None:
        key, _, rest = dotted.partition(".")
        self._items[key]._set_array(rest, value)

    def _clear_cache(self) -> None:
        for mod in self._items.values():
            if isinstance(mod, Module):
                mod._clear_cache()

    def state_dict(self, format: str = "pyg") -> dict[str, Any]:
        return {
            f"{key}.{name}": value
            for key, mod in self._items.items()
            if isinstance(mod, Module)
            for name, value in mod.state_dict(format).items()
        }

    def load_state_dict(
        self, mapping: Mapping[str, Any], format: str = "auto", strict: bool = True
    ) -> Module:
        """Each layer loads its own entries (PyG or DGL names, as that layer reads them)."""
        if not isinstance(mapping, Mapping):
            raise TypeError(
                f"{self._where} expects a mapping of names to arrays, got {type(mapping)}"
            )
        parts: dict[str, dict[str, Any]] = {key: {} for key in self._items}
        unexpected = []
        for name, value in mapping.items():
            key, _, rest = name.partition(".")
            if key in parts and isinstance(self._items[key], Module):
                parts[key][rest] = value
            else:
                unexpected.append(name)
        if strict and unexpected:
            raise KeyError(f"{self._where}: unexpected keys {unexpected}")
        for key, sub in parts.items():
            mod = self._items[key]
            if isinstance(mod, Module) and (sub or strict):
                mod.load_state_dict(sub, format=format, strict=strict)
        return self


class _Wrapper(Module):
    """The layers sit in one :class:`_ModuleDict` attribute named ``_prefix``; its state
    dict goes through a one-entry dict of it, so each layer reads its own names."""

    _prefix = "convs"

    def _outer(self) -> _ModuleDict:
        where = f"{type(self).__name__}.load_state_dict"
        return _ModuleDict({self._prefix: getattr(self, self._prefix)}, where)

    def state_dict(self, format: str = "pyg") -> dict[str, Any]:
        return self._outer().state_dict(format)

    def load_state_dict(
        self, mapping: Mapping[str, Any], format: str = "auto", strict: bool = True
    ) -> Module:
        self._outer().load_state_dict(mapping, format=format, strict=strict)
        return self


def _stack(xs: list[Any], axis: int) -> Any:
    return get_namespace(*xs).stack(xs, axis=axis)


def _reduce(xs: list[Any], how: str) -> Any:
    if len(xs) == 1:
        return xs[0]
    if how == "cat":  # widths may differ (PyG's torch.cat)
        return get_namespace(*xs).concatenate(xs, axis=-1)
    stacked = _stack(xs, 0)
    if how == "sum":
        return stacked.sum(axis=0)
    if how == "mean":
        return stacked.mean(axis=0)
    if how == "max":
        return stacked.max(axis=0)
    if how == "min":
        return stacked.min(axis=0)
    return stacked.prod(axis=0)  # "prod"


_PYG_AGGRS = ("sum", "mean", "max", "min", "prod", "cat", None)


def pyg_key(edge_type: tuple[str, ...]) -> str:
    """PyG ``ModuleDict``'s name for an edge type: ``'<src___rel___dst>'`` (dots as ``#``)."""
    return f"<{'___'.join(edge_type)}>".replace(".", "#")


class HeteroConv(_Wrapper):
    """PyG's ``HeteroConv``: a layer per edge type, outputs merged per destination type.

    Args:
        convs: ``{(src_type, rel, dst_type): layer}``; a layer that adds self-loops
            (``add_self_loops=True``) on an edge type between two node types is a
            ``ValueError``, as in PyG. Layers with an ``allow_zero_in_degree`` setting get
            it turned on (a node without edges of one relation is normal; PyG never checks).
        aggr: ``'sum'`` (default), ``'mean'``, ``'max'``, ``'min'``, ``'prod'``, ``'cat'``
            (along the features; widths may differ) or ``None`` (stack the results:
            ``[N, num_edge_types, F]``).

    Call as ``conv(x_dict, edge_index_dict, *more_dicts, **name_dicts)``, exactly PyG's rule:
    for each edge type, each dict gives the entry of that edge type, else ``x_dict[src]``
    when ``src == dst``, else the pair ``(x_dict[src], x_dict[dst])``; keyword dicts must
    end in ``_dict`` (``edge_attr_dict=...`` reaches the layer as ``edge_attr``). An edge
    type with no entry of its own in any dict is skipped. Returns ``{dst_type: array}``.

    >>> import numpy as np
    >>> from arraygnn.nn import SAGEConv
    >>> conv = HeteroConv({("a", "to", "b"): SAGEConv((4, 3), 8, rng=0),
    ...                    ("b", "to", "a"): SAGEConv((3, 4), 8, rng=1)})
    >>> x = {"a": np.ones((5, 4), np.float32), "b": np.ones((2, 3), np.float32)}
    >>> ei = {("a", "to", "b"): np.array([[0, 4], [1, 1]]), ("b", "to", "a"): np.array([[1], [0]])}
    >>> {k: v.shape for k, v in conv(x, ei).items()}
    {'b': (2, 8), 'a': (5, 8)}
    """

    _prefix = "convs"
    _child_names = ("convs",)

    def __init__(self, convs: Mapping[tuple[str, str, str], Any], aggr: str | None = "sum") -> None:
        if not isinstance(convs, Mapping) or not convs:
            raise TypeError("HeteroConv: convs must be a non-empty dict {(src, rel, dst): layer}")
        if aggr not in _PYG_AGGRS:
            raise ValueError(f"HeteroConv: aggr must be one of {_PYG_AGGRS}, got {aggr!r}")
        for edge_type, conv in convs.items():
            if not (
                isinstance(edge_type, tuple)
                and len(edge_type) == 3
                and all(isinstance(t, str) for t in edge_type)
            ):
                raise TypeError(
                    f"HeteroConv: keys are (src_type, rel, dst_type) triples, got {edge_type!r}"
                )
            if not callable(conv):
                raise TypeError(f"HeteroConv: the layer for {edge_type} is not callable")
            if hasattr(conv, "allow_zero_in_degree"):  # normal per relation; PyG never checks
                conv.allow_zero_in_degree = True
            if edge_type[0] != edge_type[2] and getattr(conv, "add_self_loops", False):
                raise ValueError(
                    f"HeteroConv: the layer for {edge_type} adds self-loops "
                    "(add_self_loops=True) between two node types; that gives wrong results "
                    "(build it with add_self_loops=False)"
                )
        missing = {k[0] for k in convs} - {k[2] for k in convs}
        if missing:
            warnings.warn(
                f"HeteroConv: node types {sorted(missing)} are never a destination, so their "
                "representations are not updated",
                stacklevel=2,
            )
        self.edge_types = list(convs)
        self._convs = dict(convs)
        self.convs = _ModuleDict({pyg_key(k): v for k, v in convs.items()})
        self.aggr = aggr

    def __getitem__(self, edge_type: tuple[str, str, str]) -> Any:
        return self._convs[edge_type]

    def __call__(self, *args_dict: Any, **kwargs_dict: Any) -> dict[str, Any]:
        outputs: dict[str, list[Any]] = {}
        sources: dict[str, list[tuple[str, str, str]]] = {}
        for i, value_dict in enumerate(args_dict):
            if not isinstance(value_dict, Mapping):
                raise TypeError(
                    f"HeteroConv: positional argument {i} must be a dict keyed by node or "
                    f"edge type, got {type(value_dict).__name__}"
                )
        for name, value_dict in kwargs_dict.items():
            if not name.endswith("_dict"):
                raise ValueError(
                    f"HeteroConv: keyword arguments must end with '_dict' (got {name!r})"
                )
            if not isinstance(value_dict, Mapping):
                raise TypeError(
                    f"HeteroConv: {name} must be a dict keyed by node or edge type, got "
                    f"{type(value_dict).__name__}"
                )
        for edge_type in self.edge_types:
            src, _, dst = edge_type
            has_own = False
            args = []
            for value_dict in args_dict:
                if edge_type in value_dict:
                    has_own = True
                    args.append(value_dict[edge_type])
                elif src == dst and src in value_dict:
                    args.append(value_dict[src])
                elif src in value_dict or dst in value_dict:
                    args.append((value_dict.get(src), value_dict.get(dst)))
            kwargs = {}
            for name, value_dict in kwargs_dict.items():
                arg = name[: -len("_dict")]
                if edge_type in value_dict:
                    has_own = True
                    kwargs[arg] = value_dict[edge_type]
                elif src == dst and src in value_dict:
                    kwargs[arg] = value_dict[src]
                elif src in value_dict or dst in value_dict:
                    kwargs[arg] = (value_dict.get(src), value_dict.get(dst))
            if not has_own:
                continue
            outputs.setdefault(dst, []).append(self._convs[edge_type](*args, **kwargs))
            sources.setdefault(dst, []).append(edge_type)
        for t, xs in outputs.items():
            shapes = [tuple(getattr(x, "shape", ())) for x in xs]
            keep = (lambda sh: sh[:-1]) if self.aggr == "cat" else (lambda sh: sh)
            if len({keep(sh) for sh in shapes}) > 1:
                listed = ", ".join(f"{e}: {sh}" for e, sh in zip(sources[t], shapes))
                raise ValueError(
                    f"HeteroConv: the layers' outputs for node type {t!r} differ in shape "
                    f"({listed}); aggr={self.aggr!r} needs "
                    + ("the same rows" if self.aggr == "cat" else "one shape")
                )
        return {
            t: (_stack(xs, 1) if self.aggr is None else _reduce(xs, self.aggr))
            for t, xs in outputs.items()
        }

    def extra_repr(self) -> str:
        return f"num_relations={len(self.edge_types)}, aggr={self.aggr!r}"


_DGL_AGGREGATES = ("sum", "max", "min", "mean", "stack")


class HeteroGraphConv(_Wrapper):
    """DGL's ``HeteroGraphConv``: a layer per edge type of a heterogeneous graph.

    Args:
        mods: ``{etype: layer}`` keyed by edge type name or ``(src, etype, dst)`` triple;
            layers with an ``allow_zero_in_degree`` setting get it turned on (as DGL).
        aggregate: ``'sum'`` (default), ``'max'``, ``'min'``, ``'mean'``, ``'stack'``
            (``[N, num_relations, F]``) or a callable ``f(list_of_arrays, dsttype)``.

    Call as ``conv(g, inputs, mod_args=None, mod_kwargs=None)`` with ``g`` an
    :func:`arraygnn.heterograph` (or a block) and ``inputs`` ``{ntype: features}`` or a
    pair ``(src_inputs, dst_inputs)``; for a block, destination features are the first
    ``g.num_dst_nodes(ntype)`` rows. Each layer runs on ``g[stype, etype, dtype]`` with
    ``(src_features, dst_features)``; an edge type whose source type has no input is
    skipped. ``mod_args`` / ``mod_kwargs`` are keyed by edge type *name*. Returns
    ``{dst_type: array}`` for the destination types that received a result.

    >>> import numpy as np, arraygnn
    >>> from arraygnn.nn import GraphConv
    >>> g = arraygnn.heterograph({("user", "plays", "game"): (np.array([0, 1]), np.array([0, 0])),
    ...                           ("user", "follows", "user"): (np.array([0]), np.array([1]))})
    >>> conv = HeteroGraphConv({"plays": GraphConv(4, 2, rng=0), "follows": GraphConv(4, 2, rng=1)})
    >>> x = {"user": np.ones((2, 4), np.float32), "game": np.ones((1, 4), np.float32)}
    >>> {k: v.shape for k, v in conv(g, x).items()}
    {'game': (1, 2), 'user': (2, 2)}
    """

    _prefix = "mods"
    _child_names = ("mods",)

    def __init__(
        self,
        mods: Mapping[Any, Any],
        aggregate: str | Callable[[list[Any], str], Any] = "sum",
    ) -> None:
        if not isinstance(mods, Mapping) or not mods:
            raise TypeError("HeteroGraphConv: mods must be a non-empty dict {etype: layer}")
        if not callable(aggregate) and aggregate not in _DGL_AGGREGATES:
            raise ValueError(
                f"HeteroGraphConv: aggregate must be one of {_DGL_AGGREGATES} or a callable, "
                f"got {aggregate!r}"
            )
        for key, mod in mods.items():
            if not callable(mod):
                raise TypeError(f"HeteroGraphConv: the layer for {key!r} is not callable")
            if hasattr(mod, "allow_zero_in_degree"):
                mod.allow_zero_in_degree = True
        self.mod_dict = dict(mods)
        self.mods = _ModuleDict({str(k): v for k, v in mods.items()})
        self.aggregate = aggregate

    def _get_module(self, canonical: tuple[str, str, str]) -> Any:
        if canonical in self.mod_dict:
            return self.mod_dict[canonical]
        if canonical[1] in self.mod_dict:
            return self.mod_dict[canonical[1]]
        raise KeyError(f"HeteroGraphConv: no layer for edge type {canonical!r}")

    def __call__(
        self,
        g: Any,
        inputs: Any,
        mod_args: Mapping[str, tuple] | None = None,
        mod_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        if not hasattr(g, "canonical_etypes") or not hasattr(g, "dsttypes"):
            raise TypeError(
                "HeteroGraphConv: g must be an arraygnn graph (arraygnn.heterograph / a block), "
                f"got {type(g).__name__}"
            )
        mod_args = mod_args or {}
        mod_kwargs = mod_kwargs or {}
        if isinstance(inputs, tuple):
            if len(inputs) != 2:
                raise ValueError("HeteroGraphConv: inputs pair must be (src_inputs, dst_inputs)")
            src_inputs, dst_inputs = inputs
        elif isinstance(inputs, Mapping):
            src_inputs = inputs
            if g.is_block:
                dst_inputs = {
                    t: v[: g.num_dst_nodes(t)] for t, v in inputs.items() if t in g.dsttypes
                }
            else:
                dst_inputs = inputs
        else:
            raise TypeError(
                "HeteroGraphConv: inputs must be {ntype: features} or a pair of such dicts, "
                f"got {type(inputs).__name__}"
            )
        outputs: dict[str, list[Any]] = {t: [] for t in g.dsttypes}
        shapes: dict[str, dict[tuple[str, str, str], tuple[int, ...]]] = {}
        for canonical in g.canonical_etypes:
            stype, etype, dtype = canonical
            if stype not in src_inputs or dtype not in dst_inputs:
                if not (isinstance(inputs, tuple) or g.is_block) and stype in src_inputs:
                    raise KeyError(
                        f"HeteroGraphConv: no input features for node type {dtype!r} "
                        f"(destination of {canonical})"
                    )
                continue
            mod = self._get_module(canonical)
            if stype != dtype and getattr(mod, "add_self_loops", False):
                raise ValueError(
                    f"HeteroGraphConv: the layer for {canonical} adds self-loops "
                    "(add_self_loops=True) between two node types (DGL's layers never do); "
                    "build it with add_self_loops=False"
                )
            out = mod(
                g[canonical],
                (src_inputs[stype], dst_inputs[dtype]),
                *mod_args.get(etype, ()),
                **mod_kwargs.get(etype, {}),
            )
            outputs[dtype].append(out)
            shapes.setdefault(dtype, {})[canonical] = tuple(getattr(out, "shape", ()))
        result = {}
        for t, xs in outputs.items():
            if not xs:
                continue
            if not callable(self.aggregate) and len(set(shapes[t].values())) > 1:
                raise ValueError(
                    f"HeteroGraphConv: the layers' outputs for node type {t!r} differ in "
                    f"shape ({', '.join(f'{c}: {s}' for c, s in shapes[t].items())}); "
                    f"aggregate={self.aggregate!r} needs one shape (GATConv keeps its heads "
                    "axis, [N, H, F])"
                )
            if callable(self.aggregate):
                result[t] = self.aggregate(xs, t)
            elif self.aggregate == "stack":
                result[t] = _stack(xs, 1)
            else:
                result[t] = _reduce(xs, self.aggregate)
        return result

    def extra_repr(self) -> str:
        agg = self.aggregate if isinstance(self.aggregate, str) else "<callable>"
        return f"etypes={list(self.mod_dict)}, aggregate={agg!r}"
