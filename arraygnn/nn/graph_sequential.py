"""PyG's ``torch_geometric.nn.Sequential(input_args, modules)``: steps with signatures.

``Sequential('x, edge_index', [(conv, 'x, edge_index -> x'), 'relu', ...])`` builds a
:class:`GraphSequential` (``arraygnn.nn.Sequential`` dispatches here when called with a
signature string and a list / dict of steps; its torch-style form ``Sequential(*steps)``
is unchanged). Each step names the values it reads and the values it returns
(``'x1, x2 -> xs'``, ``'x -> x1, x2'`` unpacks a returned pair); a step given without a
signature reads and returns the previous step's outputs (the first step needs one).
Children are named ``module_0``, ``module_1``, ... (or the dict's keys), as PyG's, so a
PyG state dict loads by name; plain callables and activation names keep their name but
hold no weights.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv, Linear, Sequential
>>> seq = Sequential('x, edge_index', [
...     (GCNConv(4, 8, rng=0), 'x, edge_index -> x'),
...     'relu',
...     Linear(8, 2, rng=1),
... ])
>>> x = np.ones((3, 4), np.float32)
>>> seq(x, np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
>>> sorted(seq.state_dict())
['module_0.bias', 'module_0.lin.weight', 'module_2.bias', 'module_2.weight']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from arraygnn.nn._module import Module
from arraygnn.nn.linear import Sequential, get_activation

__all__ = [
    "GraphSequential",
    "Step",
    "is_graph_signature",
    "split_args",
    "bind_inputs",
    "from_pyg_module",
]


class Step(NamedTuple):
    """One step: its child name, the callable, the names it reads and returns."""

    name: str
    fn: Callable[..., Any]
    param_names: tuple[str, ...]
    return_names: tuple[str, ...]


def is_graph_signature(steps: tuple[Any, ...]) -> bool:
    """True for PyG's form ``(input_args: str, modules: list | tuple | dict)``."""
    return (
        len(steps) == 2
        and isinstance(steps[0], str)
        and isinstance(steps[1], (list, tuple, Mapping))
    )


def split_args(text: str) -> list[str]:
    """Comma-separated names, commas inside brackets kept (``'x: Tuple[A, B], y'``), each
    name without its type hint.

    >>> split_args('x: Tuple[Tensor, Tensor], edge_index')
    ['x', 'edge_index']
    """
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    names = [p.split(":")[0].strip() for p in parts]
    return [n for n in names if n]


def _signature(desc: str, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    sides = desc.split("->")
    if len(sides) != 2:
        raise ValueError(f"{where}: failed to parse arguments (got '{desc}')")
    params, returns = split_args(sides[0]), split_args(sides[1])
    if not returns:
        raise ValueError(f"{where}: signature '{desc}' returns nothing")
    return tuple(params), tuple(returns)


class GraphSequential(Sequential):
    """PyG's ``Sequential(input_args, modules)`` (see the module docstring).

    Args:
        input_args: the model's inputs, ``'x, edge_index, batch'`` (type hints and a
            ``-> return`` part are accepted and ignored).
        modules: a list (children ``module_<i>``) or a dict (children named by its keys)
            of steps: ``(callable, 'a, b -> c')``, or a callable / activation name alone
            (it reads and returns the previous step's outputs).

    Call as ``seq(*inputs, **named_inputs)``; returns the last step's outputs (a tuple
    when it returns several names).
    """

    def __init__(self, input_args: str, modules: Any) -> None:  # type: ignore[override]
        where = "Sequential"
        head = input_args.split("->")
        if len(head) > 2:
            raise ValueError(f"{where}: failed to parse arguments (got '{input_args}')")
        self.input_names = tuple(split_args(head[0]))
        items = (
            list(modules.items())
            if isinstance(modules, Mapping)
            else [(f"module_{i}", m) for i, m in enumerate(modules)]
        )
        if not items:
            raise ValueError(f"'{where}' expects a non-empty list of modules")
        known = set(self.input_names)
        steps: list[Step] = []
        children = []
        for i, (name, module) in enumerate(items):
            desc = None
            if isinstance(module, (tuple, list)):
                if len(module) == 1:
                    module = module[0]
                elif len(module) == 2:
                    module, desc = module
                else:
                    raise ValueError(f"{where}: expected tuple of length 2 (got {module})")
            if i == 0 and desc is None:
                raise ValueError(f"{where}: signature for first module required")
            if desc is not None and not isinstance(desc, str):
                raise ValueError(f"{where}: expected type hint representation (got {desc})")
            if isinstance(module, str):
                module = get_activation(module)
            if not callable(module):
                raise ValueError(f"{where}: expected callable module (got {module})")
            if (  # any name PyG's (torch's add_module) takes, unless it hides an attribute
                not isinstance(name, str)
                or not name
                or "." in name
                or name in ("steps", "graph_steps", "input_names")
                or hasattr(self, name)
            ):
                raise ValueError(
                    f"{where}: step name {name!r} must be a non-empty name without '.' that "
                    "is no attribute of Sequential"
                )
            if desc is not None:
                params, returns = _signature(desc, f"{where} step {name!r}")
            else:
                params = returns = steps[-1].return_names
            missing = [p for p in params if p not in known]
            if missing:
                raise ValueError(
                    f"{where} step {name!r} reads {missing}, which neither the inputs "
                    f"{list(self.input_names)} nor an earlier step provide"
                )
            known.update(returns)
            setattr(self, name, module)
            if isinstance(module, Module):
                children.append(name)
            steps.append(Step(name, module, params, returns))
        self.graph_steps = tuple(steps)
        self.steps = [s.fn for s in steps]
        self._child_names = tuple(children)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = bind_inputs("Sequential", self.input_names, args, kwargs)
        absent = [n for n in self.input_names if n not in values]
        if absent:
            raise TypeError(f"Sequential: missing inputs {absent}")
        out: Any = None
        for step in self.graph_steps:
            out = step.fn(*[values[n] for n in step.param_names])
            store(values, step, out)
        last = self.graph_steps[-1].return_names
        return values[last[0]] if len(last) == 1 else tuple(values[n] for n in last)

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        """Each child's own PyG renames on its entries (``module_0.lin_rel.weight``)."""
        from arraygnn.nn.to_hetero import rename_parts

        children = {name: getattr(self, name) for name in self._child_names}
        return rename_parts(super()._pyg_aliases(values), children, export=False)

    def extra_repr(self) -> str:
        rows = [
            f"({s.name}) {s.fn!r}: {', '.join(s.param_names)} -> {', '.join(s.return_names)}"
            for s in self.graph_steps
        ]
        return f"'{', '.join(self.input_names)}', [" + "; ".join(rows) + "]"


def bind_inputs(
    where: str, names: tuple[str, ...] | list[str], args: tuple[Any, ...], kwargs: dict
) -> dict[str, Any]:
    """Positional and named call arguments by input name (a ``TypeError`` naming ``where``
    for too many, unknown or repeated ones, as Python's own call would)."""
    if len(args) > len(names):
        raise TypeError(f"{where} takes {len(names)} inputs ({', '.join(names)}), got {len(args)}")
    values = dict(zip(names, args))
    for key, arg in kwargs.items():
        if key in values or key not in names:
            raise TypeError(f"{where} got an unexpected or repeated argument {key!r}")
        values[key] = arg
    return values


def store(values: dict[str, Any], step: Step, out: Any) -> None:
    """Bind a step's output to its return names (unpacking several, strictly, as PyG's
    compiled ``a, b = step(...)``: a tuple / list, or an array along its first axis)."""
    if len(step.return_names) == 1:
        values[step.return_names[0]] = out
        return
    unpackable = isinstance(out, (tuple, list)) or getattr(out, "ndim", 0) >= 1
    if not unpackable or len(out) != len(step.return_names):
        got = f"{len(out)} values" if unpackable else type(out).__name__
        raise ValueError(
            f"Sequential step {step.name!r} returns {got}, but its signature names "
            f"{len(step.return_names)} ({', '.join(step.return_names)})"
        )
    values.update(zip(step.return_names, tuple(out)))


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> GraphSequential:
    """``torch_geometric.nn.Sequential`` -> :class:`GraphSequential`, each child through
    ``convert`` (``from_pyg``, plain torch modules through ``from_torch``); activations
    and dropout (the identity at inference) become array functions; any other plain
    callable (a lambda) is traced with ``torch.fx`` and kept only when every operation
    in it is one arraygnn runs (see :mod:`arraygnn.nn.fx_program`), otherwise a
    ``ValueError`` names the step."""
    from arraygnn.nn.fx_program import step_from_torch

    names = list(module.signature.param_dict)
    steps = {}
    for child in module._children:
        fn = getattr(module, child.name)
        desc = f"{', '.join(child.param_names)} -> {', '.join(child.return_names)}"
        where = f"from_pyg: Sequential step {child.name!r} ({desc})"
        steps[child.name] = (step_from_torch(fn, convert, where), desc)
    return GraphSequential(", ".join(names), steps)
