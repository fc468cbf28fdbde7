"""Edge-conditioned convolution (Gilmer et al.'s MPNN edge network): PyG's ``NNConv`` and
DGL's ``NNConv``.

``x_i' = x_i Theta_root + b + aggr_{j in N(i)} x_j h_Theta(e_ji)``, where ``h_Theta`` maps
each edge's features to an ``[in, out]`` matrix. Those matrices are made and used a chunk
of edges at a time (``CHUNK_BYTES``), so the ``[E, in, out]`` array PyG and DGL form is
never whole; the ``[E, out]`` messages then reduce on their targets (one ``ops.scatter``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.kernels.cpu._threads import small_product
from arraygnn.nn._graph_input import check_edge_attr, parse_input
from arraygnn.nn._module import Module, _pair, is_size, layer_size
from arraygnn.nn.gin_conv import _first_in_features
from arraygnn.nn.linear import Linear, _check_features, add_bias

__all__ = ["NNConv"]

#: bytes of per-edge ``[in, out]`` matrices made at once
CHUNK_BYTES = 32 * 2**20

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


class NNConv(Module):
    r"""Edge-conditioned convolution, PyG's ``NNConv`` names.

    .. math:: x_i' = \Theta_{root} x_i + b + \mathrm{aggr}_{j \in N(i)} x_j \cdot
              h_\Theta(e_{ji})

    Args:
        in_channels: input size, or ``(src, dst)`` sizes.
        out_channels: output size.
        nn: an arraygnn module (``MLP``, ``Sequential``, ``Linear``, ...) mapping edge
            features ``(E, D)`` to ``(E, in_src * out)``.
        aggr: ``'add'`` (PyG's default) / ``'sum'``, ``'mean'`` (DGL's default), ``'max'``,
            ``'min'`` over each target's messages ``x_j h(e_ji)`` (a target without edges: 0).
        root_weight: add ``lin(x_i)`` (PyG's ``lin``, DGL's ``res_fc`` Linear);
            ``'identity'`` adds ``x_i`` itself (DGL's residual when sizes match).
        bias: additive bias.

    Call as ``conv(x, edge_index, edge_attr)``, ``conv((x_src, x_dst), edge_index,
    edge_attr)`` or DGL's ``conv(graph, feat, efeat)``.

    Shapes:
        - input: ``(N_src, in_src)``, edge_attr ``(E, D)`` (``nn``'s input)
        - output: ``(N_dst, out_channels)``
        - memory: ``(E, out)`` messages and per chunk of edges ``(chunk, in, out)``

    Names: ``nn.*``, ``lin.weight`` ``(out, in_dst)``, ``bias`` (PyG); DGL's
    ``edge_func.*``, ``res_fc.weight``, ``bias`` load too.

    >>> import numpy as np
    >>> from arraygnn.nn import Linear
    >>> conv = NNConv(3, 2, Linear(4, 3 * 2, rng=0), rng=1)
    >>> ei = np.array([[0, 1, 2], [1, 2, 0]])
    >>> conv(np.ones((3, 3), np.float32), ei, np.ones((3, 4), np.float32)).shape
    (3, 2)
    """

    _param_names = ("bias",)
    _child_names = ("nn", "lin")
    _dgl_supported = True

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        nn: Module,
        aggr: str = "add",
        root_weight: bool | str = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "NNConv"
        if is_size(in_channels):
            self.in_src = self.in_dst = layer_size(layer, "in_channels", in_channels)
        else:
            self.in_src, self.in_dst = _pair(layer, in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        if not isinstance(nn, Module):
            raise TypeError(
                f"{layer}: nn must be an arraygnn.nn Module mapping edge features (MLP, "
                f"Sequential, Linear, ...), got {type(nn).__name__}"
            )
        if aggr not in _AGGRS:
            raise ValueError(f"{layer}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        if root_weight not in (True, False, "identity"):
            raise ValueError(f"{layer}: root_weight must be True, False or 'identity'")
        if root_weight == "identity" and self.in_dst != self.out_channels:
            raise ValueError(
                f"{layer}: an identity root needs in_dst == out_channels "
                f"({self.in_dst} != {self.out_channels})"
            )
        self.nn = nn
        self.aggr = _AGGRS[aggr]
        self.root_weight = root_weight
        self.lin = (
            Linear(self.in_dst, self.out_channels, False, dtype=dtype, rng=rng)
            if root_weight is True
            else None
        )
        self.bias = np.zeros(self.out_channels, dtype=dtype) if bias else None

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_attr: Any = None, size: Any = None
    ) -> Any:
        from arraygnn import ops

        inp = parse_input("NNConv", graph_or_x, feat_or_edge_index, size)
        _check_features(inp.x_src, self.in_src, "NNConv source features")
        if edge_attr is None:
            raise TypeError("NNConv: edge_attr (the edge features nn maps) is required")
        xp = get_namespace(inp.x_src)
        width = _first_in_features(self.nn)  # the edge feature size nn takes, when known
        if width is None:
            width = edge_attr.shape[1] if getattr(edge_attr, "ndim", 0) == 2 else 1
        edge_attr = check_edge_attr(
            "NNConv", edge_attr, inp.num_edges, width, inp.x_src, " (the input of nn)"
        )
        num_edges, n_in, n_out = inp.num_edges, self.in_src, self.out_channels
        messages = None
        per_edge = max(n_in * n_out * edge_attr.dtype.itemsize, 1)
        step = max(1, CHUNK_BYTES // per_edge)
        for start in range(0, num_edges, step):
            stop = min(num_edges, start + step)
            weights = self.nn(edge_attr[start:stop])
            if weights.ndim != 2 or weights.shape[1] != n_in * n_out:
                raise ValueError(
                    f"NNConv: nn must map edge features to (E, {n_in} * {n_out}) = "
                    f"(E, {n_in * n_out}), got {tuple(weights.shape)}"
                )
            x_j = ops.gather(inp.x_src, inp.src[start:stop])
            with small_product(2.0 * weights.size):  # a batch of [1, in] x [in, out]
                part = xp.matmul(x_j[:, None, :], weights.reshape(-1, n_in, n_out))[:, 0, :]
            if messages is None:
                messages = xp.empty((num_edges, n_out), dtype=part.dtype)
            messages[start:stop] = part
        if messages is None:  # no edges
            dtype = np.result_type(inp.x_src.dtype, edge_attr.dtype)
            messages = xp.empty((0, n_out), dtype=dtype)
        out = ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)
        if self.root_weight is not False and inp.x_dst is not None:
            _check_features(inp.x_dst, self.in_dst, "NNConv destination features")
            out = out + (self.lin(inp.x_dst) if self.lin is not None else inp.x_dst)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    _DGL_NAMES = (("edge_func.", "nn."), ("res_fc.", "lin."))

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in values.items():
            for dgl, ours in self._DGL_NAMES:
                if key.startswith(dgl):
                    key = ours + key[len(dgl) :]
                    break
            out[key] = value
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in values.items():
            for dgl, ours in self._DGL_NAMES:
                if key.startswith(ours):
                    key = dgl + key[len(ours) :]
                    break
            out[key] = value
        return out

    def extra_repr(self) -> str:
        return f"({self.in_src}, {self.in_dst}), {self.out_channels}, aggr={self.aggr!r}"
