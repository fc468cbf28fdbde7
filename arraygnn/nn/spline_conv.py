"""B-spline convolution (Fey et al., SplineCNN): PyG's ``SplineConv``.

Each edge ``j -> i`` with pseudo-coordinates ``u_ij`` in ``[0, 1]^D`` (``edge_attr``) weighs
the ``K = prod_d kernel_size[d]`` kernel matrices ``W_k`` by the tensor-product B-spline basis
of ``degree`` 1, 2 or 3 (open or closed in each dimension), exactly as ``torch_spline_conv``
(``spline_basis`` / ``spline_weighting``): only ``S = (degree + 1) ** D`` of the ``K``
weights are non-zero per edge. Paths that run:

- **accumulate, then one product** (``'add'`` / ``'sum'`` / ``'mean'``, NumPy): a Numba
  kernel (``arraygnn.kernels.cpu.spline``) walks the destination CSR and sums
  ``basis * x_j`` into ``z[i, k, :]``, then ``z.reshape(N, K * in) @ W.reshape(K * in, out)``
  (BLAS), ``CHUNK_BYTES`` of ``z`` rows at a time: no ``[E, in, out]`` weight gather, no
  ``[E, out]`` message array; deterministic (one worker per row).
- **messages** (``'max'`` / ``'min'``, NumPy): the kernel's ``[E, out]`` messages (the C++
  weighting's loops), then one ``ops.scatter``.
- **arrays** (CuPy inputs): :func:`spline_basis` and ``x_j @ W`` per basis product with
  array code, ``CHUNK_BYTES`` of edges at a time, then ``ops.scatter``.

``spline_basis`` is also public: ``(basis [E, S], weight_index [E, S])`` as
``torch_spline_conv.spline_basis``.

>>> import numpy as np
>>> conv = SplineConv(4, 2, dim=2, kernel_size=5, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> pseudo = np.array([[0.0, 1.0], [0.5, 0.25], [1.0, 0.0]], np.float32)
>>> conv(np.ones((3, 4), np.float32), ei, pseudo).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import csr_of
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn._pseudo_input import pseudo_inputs, pyg_pseudo_sizes
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias
from arraygnn.nn.nn_conv import CHUNK_BYTES

__all__ = ["SplineConv", "spline_basis"]

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


def _per_dim(layer: str, name: str, value: Any, dim: int) -> list[Any]:
    """PyG's ``repeat(value, dim)`` for a scalar; a sequence must have ``dim`` entries."""
    if isinstance(value, (list, tuple)) or (hasattr(value, "shape") and np.ndim(value) == 1):
        values = [v.item() if hasattr(v, "item") else v for v in value]
        if len(values) != dim:
            raise ValueError(f"{layer}: {name} must have dim={dim} entries, got {len(values)}")
        return values
    return [value] * dim


def _check_pseudo(layer: str, pseudo: Any, what: str = "edge_attr") -> None:
    """PyG documents pseudo-coordinates in ``[0, 1]``; outside it (or NaN) the basis indexes
    past the kernel, so refuse it (one vectorised min / max)."""
    if pseudo.size == 0:
        return
    xp = get_namespace(pseudo)
    lo, hi = float(xp.min(pseudo)), float(xp.max(pseudo))
    if not (lo >= 0.0 and hi <= 1.0):
        raise ValueError(
            f"{layer}: {what} (pseudo-coordinates) must lie in [0, 1], got values in [{lo}, {hi}]"
        )


def _basis_arrays(pseudo: Any, kernel_size: Any, is_open: Any, degree: int) -> tuple[Any, Any]:
    """Array-code basis (any namespace): the C++ loops vectorised over edges."""
    xp = get_namespace(pseudo)
    E, D = pseudo.shape
    S = (degree + 1) ** D
    basis = xp.ones((E, S), dtype=pseudo.dtype)
    index = xp.zeros((E, S), dtype=np.int64)
    offset = 1
    for d in range(D):
        v = pseudo[:, d] * pseudo.dtype.type(kernel_size[d] - degree * is_open[d])
        base = v.astype(np.int64)
        frac = (v - xp.floor(v)).astype(np.float64)
        for s in range(S):
            k = (s // (degree + 1) ** d) % (degree + 1)
            index[:, s] += ((base + k) % int(kernel_size[d])) * offset
            basis[:, s] *= _b_array(frac, k, degree).astype(pseudo.dtype)
        offset *= int(kernel_size[d])
    return basis, index


def _b_array(v: Any, k: int, degree: int) -> Any:
    """``B_{degree, k}(v)`` in float64 (the C++ ``Basis::forward``)."""
    if degree == 1:
        return 1.0 - v - k + 2.0 * v * k
    if degree == 2:
        return (0.5 * v * v - v + 0.5, -v * v + v + 0.5, 0.5 * v * v)[k]
    return (
        (1.0 - v) * (1.0 - v) * (1.0 - v) / 6.0,
        (3.0 * v * v * v - 6.0 * v * v + 4.0) / 6.0,
        (-3.0 * v * v * v + 3.0 * v * v + 3.0 * v + 1.0) / 6.0,
        v * v * v / 6.0,
    )[k]


def _check_spline(layer: str, kernel_size: Any, is_open: Any, degree: Any, dim: int) -> None:
    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, (int, np.integer)):
        raise TypeError(f"{layer}: degree must be an int (1, 2 or 3), got {degree!r}")
    if degree not in (1, 2, 3):
        raise ValueError(f"{layer}: degree must be 1, 2 or 3, got {degree!r}")
    for d in range(dim):
        if not isinstance(is_open[d], (bool, np.bool_, int, np.integer)):  # "no" was True
            raise TypeError(
                f"{layer}: is_open_spline must be bools, got {is_open[d]!r} in dimension {d}"
            )
    for d in range(dim):
        size = kernel_size[d]
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"{layer}: kernel_size must be positive integers, got {size!r}")
        if is_open[d] and size < degree:
            raise ValueError(
                f"{layer}: an open spline of degree {degree} needs kernel_size >= {degree}, "
                f"got {size} in dimension {d}"
            )


def spline_basis(
    pseudo: Any, kernel_size: Any, is_open_spline: Any, degree: int = 1
) -> tuple[Any, Any]:
    """``torch_spline_conv.spline_basis``: ``(basis, weight_index)``, both ``[E, S]`` with
    ``S = (degree + 1) ** D`` (``basis`` in pseudo's dtype, ``weight_index`` int64).

    ``pseudo`` ``[E, D]`` float32 / float64 in ``[0, 1]``, ``kernel_size`` /
    ``is_open_spline`` ``D`` ints / bools (or one value for every dimension), ``degree`` 1,
    2 or 3; anything else is a ``TypeError`` / ``ValueError`` naming the argument.
    """
    layer = "spline_basis"
    xp = get_namespace(pseudo)
    if pseudo.ndim != 2 or pseudo.dtype.kind != "f":
        raise ValueError(f"{layer}: pseudo must be a 2-D float array, got {pseudo.dtype} "
                         f"{list(pseudo.shape)}")  # fmt: skip
    if pseudo.dtype not in (np.float32, np.float64):  # float16 crashed in Numba
        raise TypeError(f"{layer}: pseudo must be float32 or float64 (as torch_spline_conv's "
                        f"CPU kernels), got {pseudo.dtype}")  # fmt: skip
    D = int(pseudo.shape[1])
    ks = _per_dim(layer, "kernel_size", kernel_size, D)  # checked before int(): 2.5 was cut
    op = _per_dim(layer, "is_open_spline", is_open_spline, D)
    _check_spline(layer, ks, op, degree, D)
    ks, op, degree = [int(k) for k in ks], [bool(o) for o in op], int(degree)
    _check_pseudo(layer, pseudo, "pseudo")
    if xp is not np:
        return _basis_arrays(pseudo, ks, op, degree)
    from arraygnn.kernels.cpu.spline import spline_basis as kernel

    S = (degree + 1) ** D
    pseudo = np.ascontiguousarray(pseudo)
    basis = np.empty((pseudo.shape[0], S), dtype=pseudo.dtype)
    index = np.empty((pseudo.shape[0], S), dtype=np.int64)
    return kernel(pseudo, np.array(ks, np.int64), np.array(op, np.uint8), degree, basis, index)


class SplineConv(Module):
    r"""PyG's ``SplineConv``.

    .. math::
        x_i' = \Theta_{root} x_i + b + \mathrm{aggr}_{j \in N(i)}
            \sum_{s} B_s(e_{ij}) \, x_j W_{k_s(e_{ij})}

    with ``B_s`` / ``k_s`` the B-spline basis products and their kernel indices
    (:func:`spline_basis`).

    Args:
        in_channels: input size, or ``(src, dst)`` sizes.
        out_channels: output size ``M``.
        dim: pseudo-coordinate size ``D``.
        kernel_size: kernel size per dimension (an int for all); ``K`` is their product.
        is_open_spline: open (``True``, default) or closed B-spline per dimension.
        degree: B-spline degree, 1 (default), 2 or 3.
        aggr: ``'mean'`` (default), ``'add'`` / ``'sum'``, ``'max'``, ``'min'`` (a target
            without edges gets 0).
        root_weight: add ``lin(x_i)`` (no bias).
        bias: additive bias.

    Call as ``conv(x, edge_index, edge_attr)`` or ``conv((x_src, x_dst), edge_index,
    edge_attr, size)`` (``x_dst`` may be ``None``: no root term). ``edge_attr`` holds the
    pseudo-coordinates, ``[E, dim]`` in ``[0, 1]`` (PyG's documented range; anything else
    raises ``ValueError``).

    Shapes:
        - input: ``(N_src, in)``, edge_attr ``(E, dim)``
        - output: ``(N_dst, out_channels)``

    Parameter names (PyG): ``weight`` ``(K, in, M)``, ``lin.weight`` ``(M, in_dst)``,
    ``bias``; PyG's buffers ``kernel_size`` / ``is_open_spline`` are constructor arguments.
    """

    _param_names = ("weight", "bias")
    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        dim: int,
        kernel_size: int | list[int],
        is_open_spline: bool | list[bool] = True,
        degree: int = 1,
        aggr: str = "mean",
        root_weight: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "SplineConv"
        _, self.in_src, self.in_dst = channels_pair(name, in_channels)
        self.out_feats = layer_size(name, "out_channels", out_channels)
        self.dim = layer_size(name, "dim", dim, minimum=1)
        self.kernel_size = tuple(_per_dim(name, "kernel_size", kernel_size, self.dim))
        self.is_open_spline = tuple(_per_dim(name, "is_open_spline", is_open_spline, self.dim))
        _check_spline(name, self.kernel_size, self.is_open_spline, degree, self.dim)
        self.is_open_spline = tuple(bool(o) for o in self.is_open_spline)
        self.kernel_size = tuple(int(k) for k in self.kernel_size)
        self.degree = int(degree)
        if aggr not in _AGGRS:
            raise ValueError(f"{name}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        self.aggr = _AGGRS[aggr]
        self.K = int(np.prod(self.kernel_size))
        gen = _rng(rng)
        bound = 1.0 / np.sqrt(max(self.K * self.in_src, 1))  # PyG's uniform(K * in)
        self.weight = gen.uniform(-bound, bound, (self.K, self.in_src, self.out_feats)).astype(
            dtype
        )
        self.lin = (
            Linear(self.in_dst, self.out_feats, False, dtype=dtype, rng=gen)
            if root_weight
            else None
        )
        self.bias = np.zeros(self.out_feats, dtype=dtype) if bias else None

    def _ignorable(self, key: str) -> bool:
        return key in ("kernel_size", "is_open_spline") or super()._ignorable(key)

    def __call__(self, x: Any, edge_index: Any, edge_attr: Any = None, size: Any = None) -> Any:
        """The layer's output; see the class docstring."""
        from arraygnn import ops

        name = "SplineConv"
        inp, pseudo = pseudo_inputs(
            name, x, edge_index, edge_attr, size, self.in_src, self.dim, self.weight
        )
        _check_pseudo(name, pseudo)
        xp = get_namespace(inp.x_src)
        dtype = np.result_type(inp.x_src.dtype, self.weight.dtype)
        x_src = inp.x_src.astype(dtype, copy=False)
        pseudo = pseudo.astype(dtype, copy=False)
        weight = self.weight.astype(dtype, copy=False)
        if xp is not np:
            messages = self._array_messages(inp, x_src, pseudo, weight)
            out = ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)
        elif self.aggr in ("sum", "mean"):
            out = self._accumulate(csr_of(inp), x_src, pseudo, weight)
        else:
            from arraygnn.kernels.cpu.spline import spline_messages

            messages = np.empty((inp.num_edges, self.out_feats), dtype=dtype)
            spline_messages(
                np.ascontiguousarray(inp.src),
                np.ascontiguousarray(x_src),
                np.ascontiguousarray(pseudo),
                np.ascontiguousarray(weight),
                np.array(self.kernel_size, np.int64),
                np.array(self.is_open_spline, np.uint8),
                self.degree,
                messages,
            )
            out = ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)
        if self.lin is not None and inp.x_dst is not None:
            _check_features(inp.x_dst, self.in_dst, f"{name} destination features", self.weight)
            out = out + self.lin(inp.x_dst)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def _accumulate(self, csr: Any, x_src: Any, pseudo: Any, weight: Any) -> Any:
        """Sum / mean: the kernel's ``z [rows, K, in]`` a chunk of rows at a time, then BLAS."""
        from arraygnn.kernels.cpu.spline import spline_accumulate_csr

        K, F, M = self.K, self.in_src, self.out_feats
        rows = int(csr.num_dst_nodes)
        out = np.empty((rows, M), dtype=x_src.dtype)
        flat = weight.reshape(K * F, M)
        indptr = np.asarray(csr.indptr)
        ks = np.array(self.kernel_size, np.int64)
        op = np.array(self.is_open_spline, np.uint8)
        x_src = np.ascontiguousarray(x_src)
        pseudo = np.ascontiguousarray(pseudo)
        step = max(1, CHUNK_BYTES // max(K * F * x_src.dtype.itemsize, 1))
        z = np.empty((min(step, rows), K, F), dtype=x_src.dtype)
        for a in range(0, rows, step):
            b = min(rows, a + step)
            part = z[: b - a]
            spline_accumulate_csr(
                indptr[a : b + 1], csr.indices, csr.perm, x_src, pseudo, ks, op, self.degree, part
            )
            np.matmul(part.reshape(b - a, K * F), flat, out=out[a:b])
        if self.aggr == "mean":
            deg = np.diff(indptr).astype(out.dtype)
            out /= np.maximum(deg, 1)[:, None]
        return out

    def _array_messages(self, inp: Any, x_src: Any, pseudo: Any, weight: Any) -> Any:
        """``[E, M]`` messages with array code (CuPy), a chunk of edges at a time."""
        from arraygnn import ops

        xp = get_namespace(x_src)
        E, F, M = inp.num_edges, self.in_src, self.out_feats
        S = (self.degree + 1) ** self.dim
        out = xp.zeros((E, M), dtype=x_src.dtype)
        step = max(1, CHUNK_BYTES // max(F * M * x_src.dtype.itemsize, 1))
        for a in range(0, E, step):
            b = min(E, a + step)
            basis, index = _basis_arrays(
                pseudo[a:b], self.kernel_size, self.is_open_spline, self.degree
            )
            x_j = ops.gather(x_src, inp.src[a:b])
            for s in range(S):
                w = weight[index[:, s]]  # [e, F, M]: a chunk of edges only
                out[a:b] += basis[:, s, None] * xp.matmul(x_j[:, None, :], w)[:, 0]
        return out

    def extra_repr(self) -> str:
        return (
            f"({self.in_src}, {self.in_dst}), {self.out_feats}, dim={self.dim}, "
            f"kernel_size={list(self.kernel_size)}, degree={self.degree}, aggr={self.aggr!r}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> SplineConv:
    """PyG ``SplineConv`` -> :class:`SplineConv`, weights copied."""
    from arraygnn.nn.weights import _load, _pyg_aggr

    kind = "SplineConv"
    aggr = _pyg_aggr(module, kind, ("sum", "mean", "max", "min"))
    root = module.lin if module.root_weight else None
    sizes = pyg_pseudo_sizes(kind, module, module.weight, 1, root)  # weight: (K, in, M)
    layer = SplineConv(
        sizes,
        module.out_channels,
        module.dim,
        [int(k) for k in module.kernel_size.tolist()],
        [bool(o) for o in module.is_open_spline.tolist()],
        module.degree,
        aggr,
        module.root_weight,
        module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
