"""Converters that live beside their layers, found by ``from_pyg`` / ``from_dgl`` by name.

Each table maps a reference class name (``type(module).__name__``) to
``"arraygnn.nn.some_module:function"``. The function is called as
``function(module, dtype, convert)`` where ``dtype`` is the module's NumPy dtype and
``convert`` is ``from_pyg`` / ``from_dgl`` itself (for nested modules), and returns the
arraygnn layer with the weights loaded. The layer module is imported only when one of
its classes is converted, so ``import arraygnn.nn`` does not grow with the table.

>>> from arraygnn.nn.converters import converter
>>> converter("pyg", "NoSuchConv") is None
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["PYG", "DGL", "converter"]

#: PyG class name -> "module:function"
PYG: dict[str, str] = {}

#: DGL class name (PyTorch backend) -> "module:function"
DGL: dict[str, str] = {}


def converter(source: str, kind: str) -> Callable[[Any, Any, Any], Any] | None:
    """The registered converter for ``kind`` from ``source`` (``"pyg"`` or ``"dgl"``), or
    ``None`` when there is none."""
    table = {"pyg": PYG, "dgl": DGL}[source]
    target = table.get(kind)
    if target is None:
        return None
    module_name, _, function = target.partition(":")
    return getattr(importlib.import_module(module_name), function)
