"""PyG's ``summary(model, *args, max_depth=3, leaf_module='MessagePassing', **kwargs)``: a
table of an arraygnn model's layers with their input / output shapes and weight counts.

The layers are the model and its sub-layers (``_child_names``, in the order they were set,
then the layers of a keyed container such as HeteroConv's ``convs`` under PyG's keys),
depth first, as PyG lists ``module._modules``; each row is ``(name)ClassName`` with PyG's
tree prefixes (``├─``, ``│    └─``), the shapes of the array positional arguments and of
the output (or outputs) of the layer's first call while ``model(*args, **kwargs)`` runs
(``--`` for a layer not called), and its weight count (the weights of its state dict, each
array counted once; buffers such as running statistics are not counted, as PyG counts
``parameters()``). The table is ``tabulate``'s ``psql`` format when
``tabulate`` is installed (what PyG calls, and needs), else the same layout drawn here.

RULE: rows follow arraygnn's layers, not torch's modules: what arraygnn keeps as a plain
function (activations, dropout, ``Identity``) or inside one layer (PyG ``BatchNorm``'s
``BatchNorm1d``) has no row; everything else matches PyG's summary of the original model
(a private container class such as ``_ModuleList`` shows as ``ModuleList``; an aggregation's
input is ``x`` alone, as PyG's hook sees it). A layer that arraygnn computes in closed form
or on a fused path without calling its sub-layers (``EquilibriumAggregation``'s potential;
with ``leaf_module=None``, ``SAGEConv``'s ``lin_l`` or ``EdgeConv``'s ``nn``) shows ``--``
for their shapes, and a message-passing layer's aggregation module, when arraygnn keeps
none, has no row.
RULE: the leaves by default (``leaf_module='MessagePassing'``) are arraygnn's
:class:`~arraygnn.nn.MessagePassing` layers and its layers named as one of PyG's
``MessagePassing`` classes (``GCNConv``, ``SAGEConv``, ...), subclasses included: their
sub-layers are not listed (a class of one's own that only shares a name is no leaf).
RULE: shapes are recorded by wrapping ``__call__`` of the listed layers' classes for the
duration of the call (restored afterwards, even on an error): do not run the same classes in
another thread meanwhile.

>>> import numpy as np
>>> from arraygnn.nn import MLP, summary
>>> print(summary(MLP([3, 4, 2], norm=None, rng=0), np.ones((5, 3), np.float32)))
+--------------------+---------------+----------------+----------+
| Layer              | Input Shape   | Output Shape   |   #Param |
|--------------------+---------------+----------------+----------|
| MLP                | [5, 3]        | [5, 2]         |       26 |
| ├─(lins)ModuleList | --            | --             |       26 |
| │    └─(0)Linear   | [5, 3]        | [5, 4]         |       16 |
| │    └─(1)Linear   | [5, 4]        | [5, 2]         |       10 |
+--------------------+---------------+----------------+----------+
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from arraygnn.nn._module import Module

# the classes of PyG (2.8) that subclass ``MessagePassing``, one list with ``get_num_hops``:
# arraygnn layers of these names are leaves of the default summary, as PyG's are
from arraygnn.utils.num_hops import PYG_MESSAGE_PASSING

__all__ = ["summary", "PYG_MESSAGE_PASSING", "PYG_AGGREGATIONS"]

#: the classes of PyG (2.8) that subclass ``Aggregation``: PyG's ``Aggregation.__call__``
#: hands all but ``x`` to ``forward`` by keyword, so their rows show ``x``'s shape alone
#: (arraygnn's ``AttentionalAggregation``, ``Set2Set``, ... are no ``Aggregation`` subclasses)
PYG_AGGREGATIONS = frozenset(
    """AttentionalAggregation DeepSetsAggregation DegreeScalerAggregation
    EquilibriumAggregation FusedAggregation GRUAggregation GraphMultisetTransformer
    LCMAggregation LSTMAggregation MLPAggregation MaxAggregation MeanAggregation
    MedianAggregation MinAggregation MulAggregation MultiAggregation
    PatchTransformerAggregation PowerMeanAggregation QuantileAggregation Set2Set
    SetTransformerAggregation SoftmaxAggregation SortAggregation StdAggregation
    SumAggregation VarAggregation VariancePreservingAggregation""".split()
)

_HEADERS = ["Layer", "Input Shape", "Output Shape", "#Param"]
_INT = re.compile(r"^[+-]?(\d+|\d{1,3}(,\d{3})+)$")


def summary(
    model: Module,
    *args: Any,
    max_depth: int = 3,
    leaf_module: Any = "MessagePassing",
    **kwargs: Any,
) -> str:
    """PyG's ``summary``: the table (a string) of ``model``'s layers, run on
    ``model(*args, **kwargs)``.

    Args:
        model: an arraygnn layer or model.
        *args / **kwargs: its call's arguments.
        max_depth: the deepest level of sub-layers listed (the model is level 0).
        leaf_module: a class or a list of classes whose sub-layers are not listed
            (``None``: none); ``'MessagePassing'`` (default) is arraygnn's
            ``MessagePassing`` and the layers named as PyG's message-passing classes.
    """
    if not isinstance(model, Module):
        raise TypeError(f"summary: model must be an arraygnn layer, got {type(model).__name__}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, int):
        raise TypeError(f"summary: max_depth must be an int, got {max_depth!r}")
    is_leaf = _leaf_test(leaf_module)

    input_shape: dict[int, list[str]] = defaultdict(list)
    output_shape: dict[int, list[str]] = defaultdict(list)
    hooked: dict[int, tuple[list[str], list[str]]] = {}
    visited: dict[int, Module] = {}
    rows: list[dict[str, Any]] = []
    stack: list[tuple[str, Module, int]] = [(_class_name(model), model, 0)]
    while stack:
        name, layer, depth = stack.pop()
        if name.startswith("(_"):  # private sub-layers are not summarised (PyG)
            continue
        key = id(layer)
        info = {
            "name": name,
            "depth": depth,
            "input_shape": input_shape[key],
            "output_shape": output_shape[key],
            "#param": _count(layer),
        }
        rows.append(info)
        hooked[key] = (info["input_shape"], info["output_shape"])
        visited[key] = layer
        if depth >= max_depth or is_leaf(layer):
            continue
        children = [
            (f"({child}){_class_name(sub)}", sub, depth + 1) for child, sub in _children(layer)
        ]
        stack += reversed(children)

    with _recording(visited, hooked):
        model(*args, **kwargs)

    table = [_HEADERS]
    for i, info in enumerate(rows):
        depth = info["depth"]
        prefix = "" if i == 0 else ("├─" if depth == 1 else f"{'│    ' * (depth - 1)}└─")
        ins, outs = info["input_shape"], info["output_shape"]
        shapes = (ins.pop(0), outs.pop(0)) if ins else ("--", "--")
        table.append([prefix + info["name"], *shapes, info["#param"]])
    return _psql(table)


# ---- the tree ----------------------------------------------------------------------------
#: arraygnn classes standing for a torch class of another name (PyG's to_hetero output is
#: a torch.fx ``GraphModule``; JumpingKnowledge's bidirectional ``LSTM``)
_TORCH_NAMES = {"FxProgram": "GraphModule", "BiLSTM": "LSTM"}


def _class_name(layer: Any) -> str:
    """The class name PyG shows: private containers without their ``_`` (``ModuleList``),
    arraygnn's ``PyG``-prefixed twins of DGL names as PyG's (``PyGGraphConv``)."""
    return _shown_name(type(layer))


def _shown_name(cls: type) -> str:
    name = cls.__name__.lstrip("_")
    if name.startswith("PyG") and name[3:] in PYG_MESSAGE_PASSING:
        return name[3:]
    return _TORCH_NAMES.get(name, name)


def _named_as_pyg_message_passing(layer: Any) -> bool:
    """The layer's class is (or derives from) an arraygnn class named as one of PyG's
    ``MessagePassing`` classes, as ``get_num_hops`` counts: a user's own class that only
    shares a name (``Encoder``, PyG's protein-MPNN one) is no leaf, as in PyG."""
    return any(
        cls.__module__.split(".")[0] == "arraygnn" and _shown_name(cls) in PYG_MESSAGE_PASSING
        for cls in type(layer).__mro__
    )


def _children(layer: Module) -> list[tuple[str, Module]]:
    """The sub-layers named in ``_child_names``, then those of a keyed container (a
    ``ModuleDict`` such as HeteroConv's ``convs``, a to_hetero program's modules: PyG's
    keys)."""
    out = []
    for name in layer._child_names:
        sub = getattr(layer, name, None)
        if isinstance(sub, Module):
            out.append((name, sub))
    # a program's modules (FxProgram: to_hetero's ModuleDicts) are a keyed tree
    tree = getattr(layer, "_modules_tree", layer)
    items = getattr(tree, "_items", None)
    if isinstance(items, dict):
        out += [(str(key), sub) for key, sub in items.items() if isinstance(sub, Module)]
    return out


def _count(layer: Module) -> str:
    """PyG's ``sum(p.numel() for p in module.parameters())``: every weight of ``layer`` and
    its sub-layers once (as its state dict lists them, so layers keeping weights outside
    ``_param_names``, a bidirectional LSTM or convs by edge type, count too), buffers not."""
    buffers = _buffer_ids(layer)
    seen: set[int] = set()
    total = 0
    for _, value in layer._named_arrays():
        if id(value) not in seen and id(value) not in buffers:
            seen.add(id(value))
            total += int(getattr(value, "size", 0))
    return f"{total:,}" if total > 0 else "--"


def _buffer_ids(layer: Module) -> set[int]:
    """The ids of the buffers (``_buffer_names``: running statistics) of ``layer`` and of
    every layer it holds (as attributes, or in dicts / lists / tuples)."""
    ids: set[int] = set()
    seen: set[int] = set()
    stack = [layer]
    while stack:
        sub = stack.pop()
        if id(sub) in seen:
            continue
        seen.add(id(sub))
        for name in sub._buffer_names:
            value = getattr(sub, name, None)
            if value is not None:
                ids.add(id(value))
        for value in getattr(sub, "__dict__", {}).values():
            if isinstance(value, dict):
                value = list(value.values())
            items = value if isinstance(value, (list, tuple)) else (value,)
            stack += [item for item in items if isinstance(item, Module)]
    return ids


def _leaf_test(leaf_module: Any) -> Callable[[Module], bool]:
    if leaf_module is None:
        return lambda layer: False
    if isinstance(leaf_module, str):
        if leaf_module != "MessagePassing":
            raise ValueError(
                f"summary: leaf_module must be a class, a list of classes, None or "
                f"'MessagePassing', got {leaf_module!r}"
            )
        from arraygnn.nn.message_passing import MessagePassing

        return lambda layer: (
            isinstance(layer, MessagePassing) or _named_as_pyg_message_passing(layer)
        )
    classes = tuple(leaf_module) if isinstance(leaf_module, (list, tuple)) else (leaf_module,)
    if not all(isinstance(c, type) for c in classes):
        raise TypeError(f"summary: leaf_module must be classes, got {leaf_module!r}")
    return lambda layer: isinstance(layer, classes)


# ---- shapes ------------------------------------------------------------------------------
def _shapes(values: Any) -> str:
    """PyG's ``get_shape``: the shapes of the array-like entries, ``'[N, F], [2, E]'``."""
    if not isinstance(values, (tuple, list)):
        values = (values,)
    out = []
    for value in values:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            out.append(str([int(s) for s in shape]))
    return ", ".join(out)


class _recording:
    """Wrap ``__call__`` of ``classes`` so that each call of a layer in ``hooked`` appends
    its shapes (after it returns, as a torch forward hook); restores the classes on exit."""

    def __init__(
        self, layers: dict[int, Module], hooked: dict[int, tuple[list[str], list[str]]]
    ) -> None:
        self.layers = layers
        self.classes = {type(layer) for layer in layers.values()}
        self.hooked = hooked
        self.saved: list[tuple[type, Any]] = []

    def __enter__(self) -> _recording:
        originals = {cls: cls.__call__ for cls in self.classes}  # before any is wrapped
        from arraygnn.nn.aggr.base import Aggregation

        active: set[int] = set()
        hooked = self.hooked
        x_only = {
            key
            for key, layer in self.layers.items()
            if isinstance(layer, Aggregation) or type(layer).__name__ in PYG_AGGREGATIONS
        }

        def wrap(call: Any) -> Any:
            # functools.wraps keeps the call's signature visible (inspect follows
            # __wrapped__): a layer reading a sub-layer's signature while it runs (GPSConv
            # asks whether its norm takes batch) computes the same under summary
            @functools.wraps(call)
            def recorded(layer: Any, *args: Any, **kwargs: Any) -> Any:
                key = id(layer)
                if key not in hooked or key in active:  # a super().__call__ of the same call
                    return call(layer, *args, **kwargs)
                active.add(key)
                try:
                    out = call(layer, *args, **kwargs)
                finally:
                    active.discard(key)
                # PyG's Aggregation.__call__ hands everything but x to forward by keyword,
                # which a forward hook does not see
                hooked[key][0].append(_shapes(args[:1] if key in x_only else args))
                hooked[key][1].append(_shapes(out))
                return out

            return recorded

        for cls, call in originals.items():
            self.saved.append((cls, cls.__dict__.get("__call__")))
            cls.__call__ = wrap(call)
        return self

    def __exit__(self, *exc: Any) -> None:
        for cls, own in self.saved:
            if own is None:
                del cls.__call__
            else:
                cls.__call__ = own


# ---- the table ---------------------------------------------------------------------------
def _psql(table: list[list[str]]) -> str:
    """``tabulate(table, headers='firstrow', tablefmt='psql')``, drawn here when
    ``tabulate`` is not installed."""
    try:
        from tabulate import tabulate
    except ImportError:
        return _draw_psql(table)
    return tabulate(table, headers="firstrow", tablefmt="psql")


def _draw_psql(table: list[list[str]]) -> str:
    """tabulate's ``psql`` layout: a column of integers (``1,024`` too) is right-aligned,
    any other left-aligned; each column at least its header's width plus 2."""
    headers, body = table[0], table[1:]
    numeric = [
        any(row[c] for row in body) and all(_INT.match(row[c]) or not row[c] for row in body)
        for c in range(len(headers))
    ]
    widths = [max([len(h) + 2] + [len(row[c]) for row in body]) for c, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        parts = [
            cell.rjust(w) if num else cell.ljust(w) for cell, w, num in zip(cells, widths, numeric)
        ]
        return "| " + " | ".join(parts) + " |"

    rule = "+".join("-" * (w + 2) for w in widths)
    out = ["+" + rule + "+", line(headers), "|" + rule + "|"]
    out += [line(row) for row in body]
    out.append("+" + rule + "+")
    return "\n".join(out)
