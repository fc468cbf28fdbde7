"""PyG's ``to_hetero``: a homogeneous model made heterogeneous, one copy per type.

``to_hetero(model, metadata, aggr='sum')`` takes an arraygnn model whose dataflow is
explicit, a PyG-style :class:`~arraygnn.nn.Sequential` (``Sequential('x, edge_index',
[...])``) or the torch-style one (one array passed along), and returns a
:class:`HeteroModel` called as ``model(x_dict, edge_index_dict, ...)`` that returns dicts,
with PyG's ``to_hetero`` semantics:

- an input is edge-level when its name contains ``edge`` or ``adj`` (or ``input_map``
  says so), node-level otherwise;
- a message-passing step (an arraygnn layer reading an edge-level value and a
  node-level one) is copied once per edge type (``ModuleDict`` key
  ``'src__rel__dst'``) and called with ``x`` (``src == dst``) or ``(x_src, x_dst)``;
  the results are merged per destination type in PyG's order (pairwise, in edge-type
  order) with ``aggr`` (``'sum'``, ``'mean'``, ``'max'``, ``'min'``, ``'mul'``);
- a step reading edge-level values runs once per edge type, any other step reading
  node-level values once per node type (a layer copied per type, a plain function
  called per type), a step reading neither once; an ``arraygnn.nn.aggr`` aggregation
  (global pooling) runs per node type and is merged across node types with ``aggr``;
- outputs are dicts over every node (edge) type of ``metadata``, ``None`` for a node
  type no edge type reaches.

RULE: as PyG, a step that needs a node type's features after message passing raises
``ValueError`` when no edge type reaches that node type (when the model is built).

RULE: a step is one unit: all its outputs take its level (PyG traces inside a plain
function, op by op). A function returning a node-level and an edge-level value runs per
edge type; split it into steps.

Copies get the original step's weights (PyG re-initialises them); a PyG ``to_hetero``
model's state dict loads by name (``conv1.paper__cites__paper.lin_l.weight``,
``lin.paper.weight``) when the Sequential's children carry the PyG model's attribute
names (``Sequential('x, edge_index', {'conv1': ..., 'lin': ...})``).

>>> import numpy as np
>>> from arraygnn.nn import SAGEConv, Sequential, to_hetero
>>> model = Sequential('x, edge_index', [(SAGEConv(4, 8, 'mean', rng=0), 'x, edge_index -> x')])
>>> meta = (['paper', 'author'], [('paper', 'cites', 'paper'), ('paper', 'by', 'author')])
>>> hetero = to_hetero(model, meta)
>>> x = {'paper': np.ones((3, 4), np.float32), 'author': np.ones((2, 4), np.float32)}
>>> ei = {meta[1][0]: np.array([[0, 1], [1, 2]]), meta[1][1]: np.array([[0, 2], [1, 0]])}
>>> {k: v.shape for k, v in hetero(x, ei).items()}
{'paper': (3, 8), 'author': (2, 8)}
>>> sorted(hetero.state_dict())[:2]
['module_0.paper__by__author.lin_l.bias', 'module_0.paper__by__author.lin_l.weight']
"""

from __future__ import annotations

import copy
import warnings
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module
from arraygnn.nn.graph_sequential import GraphSequential, Step, bind_inputs

__all__ = ["to_hetero", "HeteroModel", "key2str", "program_of", "levels_of"]

AGGRS = ("sum", "mean", "max", "min", "mul")


def key2str(key: str | tuple[str, ...]) -> str:
    """PyG's module-dict key of a node or edge type (``'paper__cites__paper'``)."""
    text = "__".join(key) if isinstance(key, tuple) else key
    return text.replace(" ", "_").replace("-", "_").replace(":", "_")


def program_of(module: Any, where: str) -> tuple[tuple[str, ...], tuple[Step, ...]]:
    """The inputs and steps of an arraygnn ``Sequential`` (either form)."""
    from arraygnn.nn.linear import Sequential

    if isinstance(module, GraphSequential):
        return module.input_names, module.graph_steps
    if isinstance(module, Sequential):
        return ("x",), tuple(Step(str(i), fn, ("x",), ("x",)) for i, fn in enumerate(module.steps))
    raise TypeError(
        f"{where}: expects an arraygnn Sequential (PyG's form Sequential('x, edge_index', "
        f"[...]) or torch's), got {type(module).__name__}; for a PyG model, run PyG's "
        "to_hetero and convert its result with from_pyg"
    )


def rename_parts(values: dict[str, Any], children: Mapping[str, Any], export: bool) -> dict:
    """Each sub-layer's own PyG renames (``_pyg_aliases``, or ``_export_pyg`` when
    ``export``) applied to its part of ``values`` (``<child>.<name>``); nested dicts of
    layers (``_ModuleDict``, plain mappings) are walked."""
    from arraygnn.nn.hetero_conv import _ModuleDict

    out: dict[str, Any] = {}
    parts: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        head, sep, rest = key.partition(".")
        child = children.get(head)
        if sep and isinstance(child, (Module, Mapping)):
            parts.setdefault(head, {})[rest] = value
        else:
            out[key] = value
    for head, part in parts.items():
        child = children[head]
        if isinstance(child, _ModuleDict):
            child = child._items
        if isinstance(child, Mapping):
            renamed = rename_parts(part, child, export)
        else:
            renamed = child._export_pyg(part) if export else child._pyg_aliases(part)
        out.update({f"{head}.{k}": v for k, v in renamed.items()})
    return out


def _is_pool(fn: Any) -> bool:
    """PyG's ``is_global_pooling_op``: an instance of one of PyG's ``Aggregation``s
    (``arraygnn.nn.aggr``'s, the readouts it re-exports from ``arraygnn.nn.readout``
    included)."""
    from arraygnn.nn.aggr import Aggregation
    from arraygnn.nn.readout import AttentionalAggregation, Set2Set, SortAggregation

    return isinstance(fn, (Aggregation, AttentionalAggregation, Set2Set, SortAggregation))


def levels_of(
    inputs: Sequence[str], steps: Sequence[Step], input_map: Mapping[str, str] | None
) -> tuple[dict[str, str], list[dict[str, str]], list[str], dict[str, str]]:
    """PyG's level analysis (``'node'``, ``'edge'``, ``'graph'``), value by value as the
    steps run (a name may be rebound at another level): the inputs' levels, the levels each
    step reads, each step's kind (``'mp'``, ``'pool'``, ``'node'``, ``'edge'``,
    ``'graph'``) and the levels after the last step."""
    level: dict[str, str] = {}
    for name in inputs:
        given = (input_map or {}).get(name)
        if given is not None and given not in ("node", "edge"):
            raise ValueError(f"input_map[{name!r}] must be 'node' or 'edge', got {given!r}")
        level[name] = given or ("edge" if "edge" in name or "adj" in name else "node")
    input_levels = dict(level)
    kinds, reads = [], []
    for step in steps:
        read = {p: level[p] for p in step.param_names}
        arg_levels = set(read.values())
        if isinstance(step.fn, Module) and {"node", "edge"} <= arg_levels:
            kind, out = "mp", "node"
        elif _is_pool(step.fn):
            kind, out = "pool", "graph"
        else:
            kind = out = next((lv for lv in ("edge", "node") if lv in arg_levels), "graph")
        kinds.append(kind)
        reads.append(read)
        for r in step.return_names:
            level[r] = out
    return input_levels, reads, kinds, level


def check_metadata(metadata: Any, where: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    """``(node_types, edge_types)``, both non-empty, PyG's warnings for node types no edge
    type reaches and for types that are not identifiers."""
    if not isinstance(metadata, (tuple, list)) or len(metadata) != 2:
        raise ValueError(f"{where}: metadata must be (node_types, edge_types), got {metadata!r}")
    node_types = list(metadata[0])
    edge_types = [tuple(e) for e in metadata[1]]
    if not node_types or not edge_types:
        raise ValueError(f"{where}: metadata needs at least one node type and one edge type")
    for et in edge_types:
        if len(et) != 3 or et[0] not in node_types or et[2] not in node_types:
            raise ValueError(f"{where}: edge type {et!r} must be (src, rel, dst) of node types")
    unused = sorted(set(node_types) - {et[2] for et in edge_types})
    if unused:
        warnings.warn(
            f"There exist node types ({unused}) whose representations do not get updated "
            "during message passing as they do not occur as destination type in any edge "
            "type. This may lead to unexpected behavior.",
            stacklevel=4,
        )
    for name in node_types + [rel for _, rel, _ in edge_types]:
        if not name.isidentifier():
            warnings.warn(
                f"The type '{name}' contains invalid characters which may lead to unexpected "
                "behavior. To avoid any issues, ensure that your types only contain letters, "
                "numbers and underscores.",
                stacklevel=4,
            )
    return node_types, edge_types


def check_self_loops(step: Step, edge_types: list[tuple[str, str, str]], where: str) -> None:
    """PyG's ``check_add_self_loops``: a layer adding self-loops on bipartite edge types."""
    if any(et[0] != et[-1] for et in edge_types) and getattr(step.fn, "add_self_loops", False):
        raise ValueError(
            f"{where}: 'add_self_loops' attribute set to 'True' on module '{step.name}' for "
            f"use with edge type(s) '{edge_types}'. This will lead to incorrect message "
            "passing results."
        )


def _merge(values: list[Any], aggr: str) -> Any:
    """PyG's pairwise merge: pop two, push the result at the back; ``mean`` divides the
    sum by the count."""
    queue = deque(values)
    while len(queue) >= 2:
        a, b = queue.popleft(), queue.popleft()
        if aggr in ("sum", "mean"):
            queue.append(a + b)
        elif aggr == "mul":
            queue.append(a * b)
        else:
            xp = get_namespace(a)
            queue.append(xp.maximum(a, b) if aggr == "max" else xp.minimum(a, b))
    out = queue.popleft()
    return out / len(values) if aggr == "mean" and len(values) > 1 else out


class HeteroModel(Module):
    """The heterogeneous model :func:`to_hetero` builds (see the module docstring)."""

    def __init__(
        self,
        module: Any,
        metadata: Any,
        aggr: str = "sum",
        input_map: Mapping[str, str] | None = None,
    ) -> None:
        where = "to_hetero"
        if aggr not in AGGRS:
            raise ValueError(f"{where}: aggr must be one of {AGGRS}, got {aggr!r}")
        self.aggr = aggr
        self.node_types, self.edge_types = check_metadata(metadata, where)
        self.input_names, steps = program_of(module, where)
        self.input_level, self.reads, self.kinds, self.level = levels_of(
            self.input_names, steps, input_map
        )
        self.steps = steps
        self._check_reach(where)
        from arraygnn.nn.hetero_conv import _ModuleDict

        children = []
        self._per_type: dict[str, Any] = {}
        for step, kind in zip(steps, self.kinds):
            if kind == "mp":
                check_self_loops(step, self.edge_types, where)
                if len(step.return_names) != 1:
                    raise ValueError(
                        f"{where}: message-passing step {step.name!r} must return one value"
                    )
            keys = self._keys(kind)
            if keys is None or not isinstance(step.fn, Module):
                self._per_type[step.name] = None
                if isinstance(step.fn, Module):
                    setattr(self, step.name, step.fn)
                    children.append(step.name)
                continue
            copies = _ModuleDict(
                {key2str(k): copy.deepcopy(step.fn) for k in keys},
                where=f"{where} step {step.name!r}",
            )
            self._per_type[step.name] = copies
            setattr(self, step.name, copies)
            children.append(step.name)
        self._child_names = tuple(children)

    def _children(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._child_names}

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        return rename_parts(super()._pyg_aliases(values), self._children(), export=False)

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        return rename_parts(native, self._children(), export=True)

    def _keys(self, kind: str) -> list[Any] | None:
        if kind in ("mp", "edge"):
            return self.edge_types
        if kind in ("node", "pool"):
            return self.node_types
        return None

    def _check_reach(self, where: str) -> None:
        """PyG's transform-time error: a per-node step reading a node type that no edge
        type reached."""
        have: dict[str, set[Any]] = {
            n: set(self.edge_types if self.input_level[n] == "edge" else self.node_types)
            for n in self.input_names
        }
        for step, kind, read in zip(self.steps, self.kinds, self.reads):
            if kind in ("node", "pool"):
                for p in step.param_names:
                    if read[p] != "node":
                        continue
                    for key in self.node_types:
                        if key not in have[p]:
                            raise ValueError(
                                f"{where}: Cannot generate a graph node '{step.name}' for type "
                                f"'{key}' since it does not exist. Please make sure that all "
                                "node types get updated during message passing."
                            )
            if kind == "mp":
                out = {et[-1] for et in self.edge_types}
            else:
                out = set(self._keys(kind) or ())
            for r in step.return_names:
                have[r] = out

    def _arg(self, values: dict[str, Any], name: str, key: Any, level: str) -> Any:
        """PyG's ``map_args_kwargs`` for one value (at ``level``) and one type."""
        if level == "graph":
            return values[name]
        v = values[name]
        if key in v:
            return v[key]
        if isinstance(key, tuple):
            if key[0] == key[-1]:
                return v.get(key[0])
            return (v.get(key[0]), v.get(key[-1]))
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        names = self.input_names
        raw = bind_inputs("to_hetero model", names, args, kwargs)
        values: dict[str, Any] = {}
        for name in names:
            given = raw.get(name)
            if given is not None and not isinstance(given, Mapping):
                raise TypeError(
                    f"to_hetero model: input {name!r} must be a dict by "
                    f"{self.input_level[name]} type, got {type(given).__name__}"
                )
            given = given or {}
            keys = self.edge_types if self.input_level[name] == "edge" else self.node_types
            values[name] = {k: given.get(k) for k in keys}
        for step, kind, read in zip(self.steps, self.kinds, self.reads):
            copies = self._per_type[step.name]
            keys = self._keys(kind)
            if keys is None:
                out = step.fn(*[values[p] for p in step.param_names])
                _bind(values, step, out)
                continue
            per_key = {}
            for key in keys:
                fn = copies._items[key2str(key)] if copies is not None else step.fn
                per_key[key] = fn(*[self._arg(values, p, key, read[p]) for p in step.param_names])
            if kind == "mp":
                groups: dict[str, list[Any]] = {}
                for et in self.edge_types:
                    groups.setdefault(et[-1], []).append(per_key[et])
                values[step.return_names[0]] = {
                    dst: _merge(outs, self.aggr) for dst, outs in groups.items()
                }
            elif kind == "pool":
                merged = _merge([per_key[k] for k in keys], self.aggr)
                values[step.return_names[0]] = (
                    merged / len(keys) if self.aggr == "mean" and len(keys) == 1 else merged
                )
            else:
                _bind_per_key(values, step, per_key)
        last = self.steps[-1].return_names
        outs = [self._output(values, n) for n in last]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _output(self, values: dict[str, Any], name: str) -> Any:
        level = self.level[name]
        if level == "graph":
            return values[name]
        keys = self.edge_types if level == "edge" else self.node_types
        return {k: values[name].get(k) for k in keys}

    def extra_repr(self) -> str:
        return (
            f"steps={[s.name for s in self.steps]}, kinds={self.kinds}, aggr={self.aggr!r}, "
            f"node_types={self.node_types}, edge_types={self.edge_types}"
        )


def _bind(values: dict[str, Any], step: Step, out: Any) -> None:
    from arraygnn.nn.graph_sequential import store

    store(values, step, out)


def _bind_per_key(values: dict[str, Any], step: Step, per_key: dict[Any, Any]) -> None:
    """Per-type outputs into per-name dicts (several return names unpack per type)."""
    for name in step.return_names:
        values[name] = {}
    for key, out in per_key.items():
        scratch: dict[str, Any] = {}
        _bind(scratch, step, out)
        for name in step.return_names:
            values[name][key] = scratch[name]


def to_hetero(
    module: Any,
    metadata: Any,
    aggr: str = "sum",
    input_map: Mapping[str, str] | None = None,
    debug: bool = False,
) -> HeteroModel:
    """PyG's ``to_hetero`` for an arraygnn ``Sequential`` (see the module docstring).

    Args:
        module: a PyG-style ``Sequential('x, edge_index', [...])`` or a torch-style one.
        metadata: ``(node_types, edge_types)`` (``HeteroData.metadata()``).
        aggr: how results of several edge types reaching one node type merge:
            ``'sum'``, ``'mean'``, ``'max'``, ``'min'`` or ``'mul'``.
        input_map: input name -> ``'node'`` / ``'edge'`` where the name does not tell.
        debug: print the level of every value and the kind of every step.
    """
    model = HeteroModel(module, metadata, aggr, input_map)
    if debug:
        for step, kind in zip(model.steps, model.kinds):
            print(
                f"{step.name}: {kind} ({', '.join(step.param_names)} -> "
                f"{', '.join(step.return_names)})"
            )
    return model
