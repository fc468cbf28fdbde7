"""Helpers for models that wrap other modules (auto-encoders, ``DeepGCNLayer``,
``MetaLayer``): which parts carry weights, and converting a PyG model's parts.

>>> from arraygnn.nn._module import Module
>>> class Holder(Module):
...     pass
>>> h = Holder(); h.a, h.b = Module(), len
>>> keep_module_children(h, ("a", "b")); h._child_names
('a',)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arraygnn.nn._module import Module

__all__ = ["keep_module_children", "convert_part"]


def keep_module_children(model: Module, names: tuple[str, ...]) -> None:
    """Make the named attributes that are arraygnn modules ``model``'s children (their
    weights appear in its state dict as ``<name>.*``); a plain callable carries none."""
    model._child_names = tuple(n for n in names if isinstance(getattr(model, n), Module))


def convert_part(module: Any, name: str, convert: Callable[[Any], Any]) -> Any:
    """``convert(module.<name>)`` (``None`` stays ``None``); a part ``convert`` cannot
    handle (a user-written torch module) is a ``ValueError`` that says how to build the
    arraygnn model around an arraygnn part and load the PyG state dict instead."""
    kind = type(module).__name__
    sub = getattr(module, name)
    if sub is None:
        return None
    try:
        return convert(sub)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"from_pyg: {kind}.{name} ({type(sub).__name__}) cannot be converted ({err}); "
            f"build arraygnn.nn.{kind} around an arraygnn {name} whose weights carry PyG's "
            "names and call load_state_dict(module.state_dict())"
        ) from None
