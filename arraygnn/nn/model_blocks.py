"""PyG's composition blocks at inference: ``DeepGCNLayer`` (a convolution wrapped with a
norm, an activation and a skip connection) and ``MetaLayer`` (edge, node and global
models of a graph network).

Both run the parts they are given (arraygnn layers, or any callable on arrays) in PyG's
order; their weights appear under PyG's names (``conv.*``, ``norm.*``, ``edge_model.*``,
``node_model.*``, ``global_model.*``). ``from_pyg`` converts the parts it knows (a PyG
conv, ``torch.nn.LayerNorm`` / ``BatchNorm1d``, PyG's norms, ``Sequential`` MLPs);
``MetaLayer``'s parts are usually user-written torch modules: build the arraygnn
``MetaLayer`` around arraygnn parts with PyG's names and ``load_state_dict`` the PyG
model's weights. No graph arithmetic of their own: ``MetaLayer`` gathers
``x[edge_index[0]]`` / ``x[edge_index[1]]`` for the edge model (``arraygnn.ops.gather``;
that per-edge input is what PyG's edge model takes) and the parts run their own kernels.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv
>>> layer = DeepGCNLayer(GCNConv(4, 4, rng=0), act="relu", block="res+")
>>> layer(np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])).shape
(3, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, probability
from arraygnn.nn._wrapped import convert_part, keep_module_children
from arraygnn.nn.linear import get_activation

__all__ = ["DeepGCNLayer", "MetaLayer"]

_BLOCKS = ("res+", "res", "dense", "plain")


class DeepGCNLayer(Module):
    """PyG's ``DeepGCNLayer``.

    Args:
        conv: the convolution (called as ``conv(h, *args, **kwargs)``).
        norm: a norm applied to ``h`` (or ``None``).
        act: an activation (a name such as ``'relu'``, a callable, or ``None``).
        block: ``'res+'`` (norm -> act -> conv, then ``x + h``; the default), ``'res'``
            (conv -> norm -> act, then ``x + h``), ``'dense'`` (conv -> norm -> act, then
            ``[x, h]`` concatenated) or ``'plain'`` (conv -> norm -> act).
        dropout: ignored (inference).

    Call as ``layer(x, *args, **kwargs)``: ``args`` / ``kwargs`` go to ``conv``
    (``edge_index``, ``edge_attr``, ...).

    ``from_pyg`` of a ``'res+'`` layer without a norm whose activation works in place
    (``ReLU(inplace=True)``: PyG's activation then rewrites ``x`` itself, so the skip adds
    ``act(x)``) gives PyG's output ``act(x) + conv(act(x))``, without changing ``x``.
    """

    #: the skip of ``'res+'`` adds ``act(x)`` (PyG's in-place activation without a norm)
    _skip_after_act = False

    def __init__(
        self,
        conv: Callable[..., Any] | None = None,
        norm: Callable[[Any], Any] | None = None,
        act: str | Callable[[Any], Any] | None = None,
        block: str = "res+",
        dropout: float = 0.0,
        ckpt_grad: bool = False,
    ) -> None:
        if conv is None or not callable(conv):
            raise TypeError(f"DeepGCNLayer: conv must be a layer, got {type(conv).__name__}")
        if norm is not None and not callable(norm):
            raise TypeError(f"DeepGCNLayer: norm must be callable, got {type(norm).__name__}")
        block = block.lower() if isinstance(block, str) else block
        if block not in _BLOCKS:
            raise ValueError(f"DeepGCNLayer: block must be one of {list(_BLOCKS)}, got {block!r}")
        self.conv = conv
        self.norm = norm
        self.act = get_activation(act)
        self.block = block
        self.dropout = probability("DeepGCNLayer", "dropout", dropout)  # inference: identity
        keep_module_children(self, ("conv", "norm"))

    def __call__(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_array(x):
            raise TypeError(f"DeepGCNLayer: x must be a NumPy or CuPy array, got {type(x)}")
        if self.block == "res+":
            h = x
            if self.norm is not None:
                h = self.norm(h)
            if self.act is not None:
                h = self.act(h)
            skip = h if self._skip_after_act and self.norm is None else x
            return skip + self.conv(h, *args, **kwargs)
        h = self.conv(x, *args, **kwargs)
        if self.norm is not None:
            h = self.norm(h)
        if self.act is not None:
            h = self.act(h)
        if self.block == "res":
            return x + h
        if self.block == "dense":
            return get_namespace(x, h).concatenate([x, h], axis=-1)
        return h

    def extra_repr(self) -> str:
        return f"block={self.block}"


class MetaLayer(Module):
    """PyG's ``MetaLayer`` (Battaglia et al.'s graph network block).

    Args:
        edge_model: ``edge_model(x_src, x_dst, edge_attr, u, batch_of_edges)`` -> the new
            ``edge_attr`` (``x_src = x[edge_index[0]]``, ``batch_of_edges =
            batch[edge_index[0]]`` or ``None``).
        node_model: ``node_model(x, edge_index, edge_attr, u, batch)`` -> the new ``x``.
        global_model: ``global_model(x, edge_index, edge_attr, u, batch)`` -> the new ``u``.

    Call as ``layer(x, edge_index, edge_attr=None, u=None, batch=None)``; returns
    ``(x, edge_attr, u)``, each part run when given (in that order, each seeing the
    previous parts' outputs).
    """

    def __init__(
        self,
        edge_model: Callable[..., Any] | None = None,
        node_model: Callable[..., Any] | None = None,
        global_model: Callable[..., Any] | None = None,
    ) -> None:
        for name, part in (
            ("edge_model", edge_model),
            ("node_model", node_model),
            ("global_model", global_model),
        ):
            if part is not None and not callable(part):
                raise TypeError(f"MetaLayer: {name} must be callable, got {type(part).__name__}")
        self.edge_model = edge_model
        self.node_model = node_model
        self.global_model = global_model
        keep_module_children(self, ("edge_model", "node_model", "global_model"))

    def __call__(
        self,
        x: Any,
        edge_index: Any,
        edge_attr: Any = None,
        u: Any = None,
        batch: Any = None,
    ) -> tuple[Any, Any, Any]:
        from arraygnn import ops
        from arraygnn.nn._graph_input import _check_edge_index
        from arraygnn.ops._common import check_index

        if not is_array(x):
            raise TypeError(f"MetaLayer: x must be a NumPy or CuPy array, got {type(x)}")
        _check_edge_index("MetaLayer", edge_index)
        n = int(x.shape[0])
        row, col = edge_index[0], edge_index[1]
        check_index("MetaLayer: edge_index[0]", row, n)
        check_index("MetaLayer: edge_index[1]", col, n)
        if batch is not None:
            check_index("MetaLayer: batch", batch, None)
            if batch.shape[0] != n:
                raise ValueError(f"MetaLayer: batch must have one entry per node ({n})")
        if self.edge_model is not None:
            edge_batch = None if batch is None else ops.gather(batch, row)
            edge_attr = self.edge_model(
                ops.gather(x, row), ops.gather(x, col), edge_attr, u, edge_batch
            )
        if self.node_model is not None:
            x = self.node_model(x, edge_index, edge_attr, u, batch)
        if self.global_model is not None:
            u = self.global_model(x, edge_index, edge_attr, u, batch)
        return x, edge_attr, u

    def extra_repr(self) -> str:
        return (
            f"edge_model={self.edge_model!r}, node_model={self.node_model!r}, "
            f"global_model={self.global_model!r}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``DeepGCNLayer`` (conv and norm through ``convert``, the activation mapped)
    or ``MetaLayer`` (each model through ``convert``)."""
    if type(module).__name__ == "MetaLayer":
        layer: Module = MetaLayer(
            convert_part(module, "edge_model", convert),
            convert_part(module, "node_model", convert),
            convert_part(module, "global_model", convert),
        )
    else:
        from arraygnn.nn.weights import _activation

        act = _activation(module.act, "from_pyg: DeepGCNLayer act")
        layer = DeepGCNLayer(
            convert_part(module, "conv", convert),
            convert_part(module, "norm", convert),
            act,
            module.block,
            module.dropout,
        )
        # PyG's in-place activation on h = x (no norm) rewrites x before the skip
        layer._skip_after_act = bool(getattr(module.act, "inplace", False))
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
