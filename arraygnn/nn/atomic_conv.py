"""DGL's ``AtomicConv`` (Atomic Convolutional Networks, Gomes et al.).

Each edge's distance ``r`` goes through ``K`` radial filters
``exp(-s_k (r - mu_k)^2) * 0.5 (cos(pi r / c_k) + 1) [r <= c_k]`` (``he`` ``[E, K]``); node
features (or, with ``features_to_use``, the one-hot ``feat == features_to_use`` of ``C``
atom types) are summed over the in-edges weighted by every filter:
``out[i, c * K + k] = sum_{j -> i} he[e, k] feat[j, c]``.

How it runs: one SpMM whose ``[E, K]`` weights scale a size-1 head of the sources'
``[N, 1, C]`` features (``[N, K, C]`` out, then transposed to DGL's ``c * K + k`` order):
no ``[E, C * K]`` messages (DGL forms them with an outer product per edge).

>>> import numpy as np
>>> conv = AtomicConv(np.array([5.0, 6.0]), np.array([0.0, 1.0]), np.array([1.0, 2.0]))
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> conv(ei, np.ones((3, 1)), np.ones((3, 1))).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.nn._dgl_common import DGLModule, check_edge_feat, homogeneous_input
from arraygnn.nn._graph_input import csr_of
from arraygnn.nn._module import Module

__all__ = ["AtomicConv"]


class _RadialPooling(Module):
    """DGL's ``RadialPooling`` parameters, each ``(K, 1, 1)``."""

    _param_names = ("interaction_cutoffs", "rbf_kernel_means", "rbf_kernel_scaling")

    def __init__(self, cutoffs: Any, means: Any, scaling: Any, dtype: Any) -> None:
        self.interaction_cutoffs = cutoffs.reshape(-1, 1, 1).astype(dtype)
        self.rbf_kernel_means = means.reshape(-1, 1, 1).astype(dtype)
        self.rbf_kernel_scaling = scaling.reshape(-1, 1, 1).astype(dtype)

    def __call__(self, distances: Any) -> Any:
        """``[E, K]`` filter values of ``distances`` ``[E, 1]``."""
        xp = get_namespace(distances)
        d = distances[:, 0].astype(self.rbf_kernel_means.dtype, copy=False)[:, None]  # [E, 1]
        mu, s, c = (p.reshape(1, -1) for p in (self.rbf_kernel_means, self.rbf_kernel_scaling,
                                                 self.interaction_cutoffs))  # fmt: skip
        rbf = xp.exp(-s * (d - mu) ** 2)
        cos = 0.5 * (xp.cos(np.pi * d / c) + 1)
        return rbf * xp.where(d <= c, cos, xp.zeros((), cos.dtype))


class AtomicConv(DGLModule):
    """DGL's ``AtomicConv`` (inference), DGL's parameter names.

    Args:
        interaction_cutoffs, rbf_kernel_means, rbf_kernel_scaling: ``(K,)`` arrays, the
            filters' cutoffs ``c_k``, centres ``mu_k`` and scales ``s_k``.
        features_to_use: ``(C,)`` atom-type values to one-hot ``feat`` against (``None``:
            ``feat`` is used as given).

    Call as ``conv(graph, feat, distances)`` or ``conv(edge_index, feat, distances)`` —
    DGL's order, the graph first (one node set). ``feat`` ``(N, C)`` (``(N, 1)`` atom
    types with ``features_to_use``, float or integer: integer types give the layer's
    dtype, as DGL's ``.float()``), ``distances`` ``(E, 1)`` or ``(E,)``.

    Shapes:
        - output: ``(N, C * K)``

    Names (DGL's): ``radial_pooling.interaction_cutoffs`` / ``rbf_kernel_means`` /
    ``rbf_kernel_scaling`` ``(K, 1, 1)``, ``features_to_use`` ``(C,)``.
    """

    _param_names = ("features_to_use",)
    _child_names = ("radial_pooling",)

    def __init__(
        self,
        interaction_cutoffs: Any,
        rbf_kernel_means: Any,
        rbf_kernel_scaling: Any,
        features_to_use: Any = None,
        *,
        dtype: Any = np.float32,
    ) -> None:
        names = ("interaction_cutoffs", "rbf_kernel_means", "rbf_kernel_scaling")
        values = (interaction_cutoffs, rbf_kernel_means, rbf_kernel_scaling)
        arrays = []
        for name, value in zip(names, values):
            try:
                arrays.append(np.asarray(to_numpy(value), dtype=np.float64).reshape(-1))
            except (TypeError, ValueError):
                raise TypeError(
                    f"AtomicConv: {name} must hold numbers, got {type(value).__name__}"
                ) from None
        if len({a.size for a in arrays}) != 1 or arrays[0].size == 0:
            raise ValueError(
                "AtomicConv: interaction_cutoffs, rbf_kernel_means and rbf_kernel_scaling "
                f"must hold the same number (K >= 1) of values, got {[a.size for a in arrays]}"
            )
        self.radial_pooling = _RadialPooling(*arrays, dtype=dtype)
        self.features_to_use = None
        self.num_channels = 1
        if features_to_use is not None:
            values = np.asarray(to_numpy(features_to_use)).reshape(-1)
            self.features_to_use = values.astype(dtype)
            self.num_channels = int(values.size)

    @property
    def num_kernels(self) -> int:
        """``K``: the radial filters."""
        return int(self.radial_pooling.rbf_kernel_means.shape[0])

    def __call__(self, graph: Any, feat: Any, distances: Any) -> Any:
        from arraygnn import ops

        layer = "AtomicConv"
        if self.features_to_use is not None and is_array(feat) and feat.dtype.kind in "iu":
            # integer atom types: DGL compares them as given and one-hots with .float()
            feat = feat.astype(self.features_to_use.dtype)
        if is_array(graph):  # conv(edge_index, feat, distances): the graph first, as DGL
            graph, feat = feat, graph
        inp = homogeneous_input(layer, graph, feat)
        x = inp.x_src
        if x.ndim != 2:
            raise ValueError(f"{layer}: feat must be (N, C), got shape {tuple(x.shape)}")
        if self.features_to_use is not None:
            if x.shape[1] != 1:
                raise ValueError(
                    f"{layer}: with features_to_use, feat must be (N, 1) atom types, got "
                    f"shape {tuple(x.shape)}"
                )
            x = (x == self.features_to_use.astype(x.dtype)[None, :]).astype(x.dtype)
        distances = check_edge_feat(layer, "distances", distances, inp.num_edges, 1, x)
        he = self.radial_pooling(distances).astype(x.dtype, copy=False)  # [E, K]
        out = ops.spmm(csr_of(inp), x[:, None, :], edge_weight=he)  # [N, K, C]
        n, k, c = out.shape
        return get_namespace(out).ascontiguousarray(out.transpose(0, 2, 1)).reshape(n, c * k)

    def extra_repr(self) -> str:
        return f"K={self.num_kernels}, channels={self.num_channels}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> AtomicConv:
    """DGL's ``AtomicConv`` -> :class:`AtomicConv` with its parameters."""
    from arraygnn.nn.weights import _load

    rp = module.radial_pooling
    values = [
        p.detach().cpu().numpy()
        for p in (rp.interaction_cutoffs, rp.rbf_kernel_means, rp.rbf_kernel_scaling)
    ]
    ftu = module.features_to_use
    layer = AtomicConv(*values, None if ftu is None else ftu.detach().cpu().numpy(), dtype=dtype)
    return _load(layer, module, "dgl")
