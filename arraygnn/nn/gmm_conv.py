"""Gaussian mixture model convolution (Monti et al., MoNet): PyG's and DGL's ``GMMConv``.

Each edge ``j -> i`` with pseudo-coordinates ``u_ij`` (``edge_attr`` / ``pseudo``, ``[E, D]``)
weighs ``K`` Gaussian kernels ``w_k(u) = exp(-1/2 sum_d (u_d - mu_kd)^2 / sigma_kd^2)``
and the message is ``sum_k w_k(u_ij) (x_j G)_k``. Paths that run:

- **kernel SpMM** (PyG ``sum`` / ``mean`` with shared Gaussians; DGL ``sum`` / ``mean`` /
  ``max``): ``x G`` per node (``[N, K, M]``), the ``[E, K]`` kernel weights, then one
  ``ops.spmm`` with ``[E, K]`` weights (one per kernel "head") and a sum over ``k``: no
  ``[E, M]`` message array. (DGL reduces each kernel first and then sums the kernels, so
  its ``max`` runs here too.)
- **messages** (PyG ``max`` / ``min``, whose max is over the kernel *sums*, and
  ``separate_gaussians=True``, where every (input, output) pair has its own kernels):
  ``[E, M]`` messages made ``CHUNK_BYTES`` of edges at a time (the separate kernels'
  ``[edges, F, M, K, D]`` temporaries never exceed it; PyG forms them for all edges at once),
  then one ``ops.scatter``.

``GMMConv`` has PyG's names and rule (``exp(-1/2 (u - mu)^2 / (1e-15 + sigma^2))``);
``DGLGMMConv`` DGL's (``exp(-1/2 (u - mu)^2 inv_sigma^2)``, ``fc`` / ``res_fc``).

>>> import numpy as np
>>> conv = GMMConv(4, 2, dim=3, kernel_size=5, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> conv(np.ones((3, 4), np.float32), ei, np.ones((3, 3), np.float32)).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_zero_in_degree, csr_of
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn._pseudo_input import pseudo_inputs, pyg_pseudo_sizes
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, glorot, matmul
from arraygnn.nn.nn_conv import CHUNK_BYTES

__all__ = ["GMMConv", "DGLGMMConv"]

_PYG_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}
_DGL_AGGRS = ("sum", "mean", "max")
_EPS = 1e-15


def _kernel_weights(pseudo: Any, mu: Any, scale: Any, divide: bool) -> Any:
    """``[E, K]``: ``exp(sum_d -1/2 (u - mu)^2 / (eps + scale^2))`` (PyG, ``divide``) or
    ``exp(sum_d -1/2 (u - mu)^2 * scale^2)`` (DGL), in the reference's order of operations
    (the ``D`` terms summed in order), one ``[E, K]`` temporary per coordinate."""
    xp = get_namespace(pseudo)
    half = pseudo.dtype.type(-0.5)
    coef = scale * scale
    if divide:
        coef = coef.dtype.type(_EPS) + coef
    total = None
    for d in range(int(mu.shape[1])):
        term = pseudo[:, d : d + 1] - mu[None, :, d]  # [E, K]
        xp.multiply(term, term, out=term)
        term *= half
        if divide:
            term /= coef[:, d]
        else:
            term *= coef[:, d]
        if total is None:
            total = term
        else:
            total += term
    if total is None:  # no coordinates
        total = xp.zeros((pseudo.shape[0], mu.shape[0]), dtype=pseudo.dtype)
    return xp.exp(total, out=total)


class _GaussianBase(Module):
    """What both faces share: input checks and the kernel-weighted aggregation."""

    _layer = "GMMConv"
    _pseudo = "edge_attr"  # the pseudo-coordinates' name in errors
    in_src: int
    in_dst: int
    out_feats: int
    dim: int
    kernels: int

    def _inputs(self, first: Any, second: Any, pseudo: Any, size: Any) -> tuple[Any, Any]:
        return pseudo_inputs(  # both references view feature rows as [K, M]
            self._layer, first, second, pseudo, size, self.in_src, self.dim, self.mu, self._pseudo
        )

    def _kernel_spmm(self, csr: Any, h: Any, weights: Any, reduce: str) -> Any:
        """``sum_k reduce_e(w[e, k] * h[src, k, :])``: one SpMM with ``[E, K]`` weights."""
        from arraygnn import ops

        out = ops.spmm(csr, h, weights.astype(h.dtype, copy=False), reduce=reduce)
        return out.sum(axis=1)


class GMMConv(_GaussianBase):
    r"""PyG's ``GMMConv`` (MoNet).

    .. math::
        x_i' = \Theta_{root} x_i + b + \mathrm{aggr}_{j \in N(i)} \sum_{k=1}^{K}
            w_k(e_{ij}) \odot \Theta_k x_j, \quad
        w_k(e) = \exp\Big(-\frac12 \sum_d \frac{(e_d - \mu_{k,d})^2}{10^{-15} + \sigma_{k,d}^2}\Big)

    Args:
        in_channels: input size, or ``(src, dst)`` sizes.
        out_channels: output size ``M``.
        dim: pseudo-coordinate size ``D``.
        kernel_size: number of kernels ``K``.
        separate_gaussians: a kernel per (input, output) channel pair (``mu`` / ``sigma``
            ``(in, M, K, D)``) instead of one set shared by all (``(K, D)``).
        aggr: ``'mean'`` (default), ``'add'`` / ``'sum'``, ``'max'``, ``'min'`` (a target
            without edges gets 0).
        root_weight: add ``root(x_i)`` (no bias).
        bias: additive bias.

    Call as ``conv(x, edge_index, edge_attr)``, ``conv((x_src, x_dst), edge_index,
    edge_attr)`` (``x_dst`` may be ``None`` with ``size``) or DGL-style ``conv(graph, feat,
    pseudo)``.

    Shapes:
        - input: ``(N_src, in)``, edge_attr ``(E, dim)``
        - output: ``(N_dst, out_channels)``

    Parameter names (PyG): ``g`` ``(in, M * K)``, ``mu`` / ``sigma``, ``root.weight``
    ``(M, in_dst)``, ``bias``.
    """

    _param_names = ("g", "mu", "sigma", "bias")
    _child_names = ("root",)

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        dim: int,
        kernel_size: int,
        separate_gaussians: bool = False,
        aggr: str = "mean",
        root_weight: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "GMMConv"
        _, self.in_src, self.in_dst = channels_pair(name, in_channels)
        self.out_feats = layer_size(name, "out_channels", out_channels)
        self.dim = layer_size(name, "dim", dim, minimum=1)
        self.kernels = layer_size(name, "kernel_size", kernel_size, minimum=1)
        if aggr not in _PYG_AGGRS:
            raise ValueError(f"{name}: aggr must be one of {sorted(_PYG_AGGRS)}, got {aggr!r}")
        self.aggr = _PYG_AGGRS[aggr]
        self.separate_gaussians = bool(separate_gaussians)
        gen = _rng(rng)
        F, M, K, D = self.in_src, self.out_feats, self.kernels, self.dim
        self.g = glorot((F, M * K), gen, dtype)
        shape = (F, M, K, D) if self.separate_gaussians else (K, D)
        self.mu = glorot(shape, gen, dtype)
        self.sigma = glorot(shape, gen, dtype)
        self.root = Linear(self.in_dst, M, False, dtype=dtype, rng=gen) if root_weight else None
        self.bias = np.zeros(M, dtype=dtype) if bias else None

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_attr: Any = None, size: Any = None
    ) -> Any:
        """The layer's output; see the class docstring."""
        from arraygnn import ops

        inp, pseudo = self._inputs(graph_or_x, feat_or_edge_index, edge_attr, size)
        M, K = self.out_feats, self.kernels
        if self.separate_gaussians:
            messages = self._separate_messages(inp, pseudo)
            out = ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)
        else:
            h = matmul(inp.x_src, self.g).reshape(inp.num_src, K, M)
            weights = _kernel_weights(
                pseudo.astype(self.mu.dtype, copy=False), self.mu, self.sigma, True
            )
            if self.aggr in ("sum", "mean"):  # linear: reduce each kernel, then sum them
                out = self._kernel_spmm(csr_of(inp), h, weights, self.aggr)
            else:
                messages = self._shared_messages(inp, h, weights)
                out = ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)
        if self.root is not None and inp.x_dst is not None:
            _check_features(inp.x_dst, self.in_dst, "GMMConv destination features", self.mu)
            out = out + self.root(inp.x_dst)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def _shared_messages(self, inp: Any, h: Any, weights: Any) -> Any:
        """``[E, M]`` messages ``sum_k w[e, k] h[src, k]``, a chunk of edges at a time."""
        from arraygnn import ops

        xp = get_namespace(h)
        E, K, M = inp.num_edges, self.kernels, self.out_feats
        weights = weights.astype(h.dtype, copy=False)
        out = xp.empty((E, M), dtype=h.dtype)
        step = max(1, CHUNK_BYTES // max(K * M * h.dtype.itemsize, 1))
        for a in range(0, E, step):
            b = min(E, a + step)
            out[a:b] = (ops.gather(h, inp.src[a:b]) * weights[a:b, :, None]).sum(axis=1)
        return out

    def _separate_messages(self, inp: Any, pseudo: Any) -> Any:
        """``[E, M]`` messages with a kernel set per (input, output) channel pair."""
        from arraygnn import ops

        xp = get_namespace(inp.x_src)
        E, F, M, K, D = inp.num_edges, self.in_src, self.out_feats, self.kernels, self.dim
        dtype = np.result_type(inp.x_src.dtype, self.mu.dtype)
        mu, sigma = self.mu.astype(dtype, copy=False), self.sigma.astype(dtype, copy=False)
        pseudo = pseudo.astype(dtype, copy=False)
        denom = dtype.type(_EPS) + sigma * sigma  # [F, M, K, D]
        g = self.g.astype(dtype, copy=False).reshape(F, M, K)
        out = xp.empty((E, M), dtype=dtype)
        step = max(1, CHUNK_BYTES // max(F * M * K * D * dtype.itemsize, 1))
        for a in range(0, E, step):
            b = min(E, a + step)
            diff = pseudo[a:b, None, None, None, :] - mu[None]  # [e, F, M, K, D]
            gauss = diff * diff * dtype.type(-0.5) / denom[None]
            gauss = xp.exp(gauss.sum(axis=-1)) * g[None]  # [e, F, M, K]
            gauss = gauss.sum(axis=-1)  # [e, F, M]
            x_j = ops.gather(inp.x_src, inp.src[a:b]).astype(dtype, copy=False)
            out[a:b] = (x_j[:, :, None] * gauss).sum(axis=1)
        return out

    def extra_repr(self) -> str:
        return (
            f"({self.in_src}, {self.in_dst}), {self.out_feats}, dim={self.dim}, "
            f"kernel_size={self.kernels}, aggr={self.aggr!r}"
        )


class DGLGMMConv(_GaussianBase):
    r"""DGL's ``GMMConv`` (MoNet), DGL's names and rule.

    .. math::
        h_i' = \sum_{k=1}^{K} \mathrm{aggr}_{j \in N(i)} w_k(u_{ij}) (W h_j)_k
            [+ \mathrm{res}(h_i)] + b, \quad
        w_k(u) = \exp\Big(-\frac12 \sum_d (u_d - \mu_{k,d})^2 \sigma^{-2}_{k,d}\Big)

    Args:
        in_feats: input size, or ``(src, dst)`` sizes.
        out_feats: output size ``M``.
        dim: pseudo-coordinate size ``D``.
        n_kernels: number of kernels ``K``.
        aggregator_type: ``'sum'`` (default), ``'mean'`` or ``'max'``, per kernel (then the
            kernels are summed, as DGL); a target without edges gets 0.
        residual: add ``res_fc(h_dst)`` (a bias-free Linear; the identity when
            ``in_dst == out_feats``, as DGL).
        bias: additive bias.
        allow_zero_in_degree: accept targets without incoming edges; default ``False``
            raises, as DGL.

    Call as ``conv(graph, feat, pseudo)`` (graphs, blocks, ``(feat_src, feat_dst)``) or
    PyG-style ``conv(x, edge_index, pseudo)``.

    Shapes:
        - input: ``(N_src, in)``, pseudo ``(E, dim)``
        - output: ``(N_dst, out_feats)``

    Parameter names (DGL): ``mu`` / ``inv_sigma`` ``(K, D)``, ``fc.weight`` ``(K * M, in)``,
    ``res_fc.weight`` ``(M, in_dst)``, ``bias``.
    """

    _layer = "DGLGMMConv"
    _pseudo = "pseudo"
    _param_names = ("mu", "inv_sigma", "bias")
    _child_names = ("fc", "res_fc")
    _dgl_supported = True  # its own names are DGL's

    def __init__(
        self,
        in_feats: int | tuple[int, int],
        out_feats: int,
        dim: int,
        n_kernels: int,
        aggregator_type: str = "sum",
        residual: bool = False,
        bias: bool = True,
        allow_zero_in_degree: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = self._layer
        _, self.in_src, self.in_dst = channels_pair(name, in_feats, "in_feats")
        self.out_feats = layer_size(name, "out_feats", out_feats)
        self.dim = layer_size(name, "dim", dim, minimum=1)
        self.kernels = layer_size(name, "n_kernels", n_kernels, minimum=1)
        if aggregator_type not in _DGL_AGGRS:
            raise ValueError(
                f"{name}: aggregator_type must be one of {_DGL_AGGRS}, got {aggregator_type!r}"
            )
        self.aggregator_type = aggregator_type
        self.allow_zero_in_degree = bool(allow_zero_in_degree)
        gen = _rng(rng)
        K, D, M = self.kernels, self.dim, self.out_feats
        self.mu = (0.1 * gen.standard_normal((K, D))).astype(dtype)
        self.inv_sigma = np.ones((K, D), dtype=dtype)
        self.fc = Linear(self.in_src, K * M, False, dtype=dtype, rng=gen)
        self.res_fc = None
        self.res_identity = bool(residual) and self.in_dst == M
        if residual and not self.res_identity:
            self.res_fc = Linear(self.in_dst, M, False, dtype=dtype, rng=gen)
        self.bias = np.zeros(M, dtype=dtype) if bias else None

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, pseudo: Any = None, size: Any = None
    ) -> Any:
        """The layer's output; see the class docstring."""
        inp, pseudo = self._inputs(graph_or_x, feat_or_edge_index, pseudo, size)
        csr = csr_of(inp)  # sorted once: the degree check and the SpMM
        if not self.allow_zero_in_degree:
            check_zero_in_degree(self._layer, csr.in_degrees())
        h = self.fc(inp.x_src).reshape(inp.num_src, self.kernels, self.out_feats)
        weights = _kernel_weights(
            pseudo.astype(self.mu.dtype, copy=False), self.mu, self.inv_sigma, False
        )
        out = self._kernel_spmm(csr, h, weights, self.aggregator_type)
        if self.res_fc is not None or self.res_identity:
            x_dst = inp.x_dst
            if x_dst is None:
                raise ValueError(
                    f"{self._layer}(residual=True) needs destination features; got (x_src, None)"
                )
            _check_features(x_dst, self.in_dst, f"{self._layer} destination features", self.mu)
            out = out + (self.res_fc(x_dst) if self.res_fc is not None else x_dst)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    _native_to_dgl = _dgl_to_native

    def extra_repr(self) -> str:
        return (
            f"({self.in_src}, {self.in_dst}), {self.out_feats}, dim={self.dim}, "
            f"n_kernels={self.kernels}, aggregator_type={self.aggregator_type!r}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> GMMConv:
    """PyG ``GMMConv`` -> :class:`GMMConv`, weights copied."""
    from arraygnn.nn.weights import _load, _pyg_aggr

    kind = "GMMConv"
    aggr = _pyg_aggr(module, kind, ("sum", "mean", "max", "min"))
    root = getattr(module, "root", None) if module.root_weight else None
    sizes = pyg_pseudo_sizes(kind, module, module.g, 0, root)  # g: (in, M * K)
    layer = GMMConv(
        sizes,
        module.out_channels,
        module.dim,
        module.kernel_size,
        module.separate_gaussians,
        aggr,
        module.root_weight,
        module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGLGMMConv:
    """DGL ``GMMConv`` -> :class:`DGLGMMConv`, weights copied (DGL's names)."""
    from arraygnn.nn.weights import _dgl_residual, _load

    reducer = getattr(module, "_reducer", None)
    aggr = getattr(reducer, "__name__", reducer)
    if aggr not in _DGL_AGGRS:
        raise ValueError(f"from_dgl: GMMConv reducer {reducer!r} is not supported")
    residual = _dgl_residual(getattr(module, "res_fc", None))
    layer = DGLGMMConv(
        (module._in_src_feats, module._in_dst_feats),
        module._out_feats,
        module._dim,
        module._n_kernels,
        aggr,
        residual=bool(residual),
        bias=getattr(module, "bias", None) is not None,
        allow_zero_in_degree=module._allow_zero_in_degree,
        dtype=dtype,
    )
    if (residual == "identity") != layer.res_identity:
        raise ValueError(
            "from_dgl: GMMConv's res_fc does not follow DGL's rule (Identity exactly when "
            "in_dst == out_feats)"
        )
    return _load(layer, module, "dgl")
