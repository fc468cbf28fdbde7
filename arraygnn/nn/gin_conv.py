"""Graph isomorphism network layer (Xu et al.): ``GINConv``.

``h_i' = nn((1 + eps) h_i + aggr_{j in N(i)} h_j)`` with ``aggr`` sum (default), mean or max.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._graph_input import check_edge_weight, csr_of, parse_input
from arraygnn.nn._module import Module

__all__ = ["GINConv"]


class GINConv(Module):
    """GIN layer: PyG names (``nn.*``, ``eps``) and DGL names (``apply_func.*``, ``eps``).

    Args:
        nn: the update network (``Linear``, ``MLP``, ``Sequential`` or any arraygnn
            ``Module``), or ``None`` for none (DGL's ``apply_func=None``).
        eps: the ``eps`` value (stored as a ``(1,)`` array like PyG / DGL).
        aggregator_type: ``'sum'`` (default), ``'mean'`` or ``'max'``.

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)``, ``conv(graph,
    feat, edge_weight=None)`` or ``conv(block, feat)``.

    Shapes:
        - input: ``(N_src, F)`` (and ``(N_dst, F)`` in the pair form)
        - output: ``(N_dst, nn's output size)``

    >>> import numpy as np
    >>> from arraygnn.nn import GINConv, MLP
    >>> conv = GINConv(MLP([4, 8, 2], rng=0), eps=0.1)
    >>> conv(np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])).shape
    (3, 2)
    """

    _buffer_names = ("eps",)
    _child_names = ("nn",)
    _dgl_supported = True

    def __init__(
        self,
        nn: Module | None,
        eps: float = 0.0,
        aggregator_type: str = "sum",
        *,
        dtype: Any = np.float32,
    ) -> None:
        if aggregator_type not in ("sum", "mean", "max"):
            raise ValueError(
                f"GINConv aggregator_type must be 'sum', 'mean' or 'max', got {aggregator_type!r}"
            )
        if nn is not None and not isinstance(nn, Module):
            raise TypeError(f"GINConv nn must be an arraygnn.nn Module or None, got {type(nn)}")
        self.nn = nn
        self.aggregator_type = aggregator_type
        self.eps = np.full(1, eps, dtype=dtype)

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_weight: Any = None, size: Any = None
    ) -> Any:
        from arraygnn import ops

        inp = parse_input("GINConv", graph_or_x, feat_or_edge_index, size)
        check_edge_weight("GINConv", edge_weight, inp.num_edges)
        csr = csr_of(inp)
        out = ops.spmm(
            csr,
            inp.x_src,
            edge_weight=edge_weight,
            reduce=self.aggregator_type,
            num_dst_nodes=inp.num_dst,
        )
        if inp.x_dst is not None:
            if inp.x_dst.shape[1:] != inp.x_src.shape[1:]:
                raise ValueError(
                    f"GINConv: source and destination features differ in shape "
                    f"({tuple(inp.x_src.shape)} vs {tuple(inp.x_dst.shape)})"
                )
            out = out + (1 + self.eps.astype(out.dtype)[0]) * inp.x_dst
        return self.nn(out) if self.nn is not None else out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return {
            ("nn." + k[len("apply_func.") :] if k.startswith("apply_func.") else k): v
            for k, v in values.items()
        }

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return {("apply_func." + k[3:] if k.startswith("nn.") else k): v for k, v in values.items()}

    def extra_repr(self) -> str:
        return f"nn={self.nn!r}, aggregator_type={self.aggregator_type!r}"
