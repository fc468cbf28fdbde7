"""DGL's ``dgl.nn.Sequential``: graph layers applied in order, all on one graph
(``seq(graph, *feats)``) or each on its own graph (``seq([g1, g2, ...], *feats)``, e.g.
blocks); a tuple output is unpacked into the next layer's features.

:class:`arraygnn.nn.Sequential` (torch's) passes one array along and cannot take the
graph first, hence this container.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.nn import GraphConv
>>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
>>> seq = DGLSequential(GraphConv(4, 8, rng=0), GraphConv(8, 2, rng=1))
>>> seq(g, np.ones((3, 4), np.float32)).shape
(3, 2)
>>> sorted(seq.state_dict())[:2]
['0.bias', '0.weight']
"""

from __future__ import annotations

from typing import Any

from arraygnn.graph.core import Graph
from arraygnn.nn._module import Module

__all__ = ["DGLSequential", "from_dgl_module"]


class DGLSequential(Module):
    """DGL's ``Sequential(*modules)``; names ``"0.weight"``, ``"1.bias"``, ... (each
    module's own DGL names under its index).

    Call as ``seq(graph, *feats)`` with ``graph`` a graph (every layer runs on it) or a
    list of graphs (layer ``i`` on graph ``i``; extra layers or graphs are left out, as
    DGL's ``zip``).
    """

    _dgl_supported = True

    def __init__(self, *modules: Module) -> None:
        for i, m in enumerate(modules):
            if not isinstance(m, Module):
                raise TypeError(
                    f"DGLSequential: module {i} must be an arraygnn layer, got {type(m).__name__}"
                )
            setattr(self, str(i), m)
        self._modules = list(modules)
        self._child_names = tuple(str(i) for i in range(len(modules)))

    def __len__(self) -> int:
        return len(self._modules)

    def __getitem__(self, i: int) -> Module:
        return self._modules[i]

    def __call__(self, graph: Any, *feats: Any) -> Any:
        if isinstance(graph, list):
            pairs = list(zip(graph, self._modules))
        elif isinstance(graph, Graph):
            pairs = [(graph, m) for m in self._modules]
        else:
            raise TypeError(
                "DGLSequential: graph must be a graph or a list of graphs, got "
                f"{type(graph).__name__}"
            )
        out: Any = feats
        for g, module in pairs:
            if not isinstance(out, tuple):
                out = (out,)
            out = module(g, *out)
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for i, m in enumerate(self._modules):
            head = f"{i}."
            part = {k[len(head) :]: v for k, v in values.items() if k.startswith(head)}
            native = _renamed(m._dgl_to_native, part) if m._dgl_supported else part
            out.update({head + k: v for k, v in native.items()})
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for i, m in enumerate(self._modules):
            head = f"{i}."
            part = {k[len(head) :]: v for k, v in values.items() if k.startswith(head)}
            theirs = _renamed(m._native_to_dgl, part) if m._dgl_supported else part
            out.update({head + k: v for k, v in theirs.items()})
        return out

    def extra_repr(self) -> str:
        return ", ".join(repr(m) for m in self._modules)


def _renamed(rename: Any, part: dict[str, Any]) -> dict[str, Any]:
    """``rename(part)``; a layer that renames nothing (no hook) keeps the names."""
    try:
        return rename(part)
    except NotImplementedError:
        return part


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGLSequential:
    """DGL's ``Sequential`` -> :class:`DGLSequential`, each module converted by
    ``from_dgl``."""
    return DGLSequential(*(convert(child) for child in module))
