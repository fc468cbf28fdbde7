"""DGL's ``DenseChebConv``: Chebyshev spectral graph convolution on a dense adjacency
(Defferrard et al.).

``L = I - D^-1/2 A D^-1/2`` with ``D`` the row sums of ``A`` clamped at 1 (DGL's
``in_degree``, used on both sides), ``L~ = 2 L / lambda_max - I`` and
``out = sum_{i < k} T_i(L~) X W_i + b`` with ``T_0 = I``, ``T_1 = L~``,
``T_i = 2 L~ T_{i-1} - T_{i-2}``.

How it runs: the recursion is carried on the features, ``Z_i = 2 L~ Z_{i-1} - Z_{i-2}``
(``k - 1`` products ``[N, N] x [N, F]``), not on the ``[N, N]`` polynomials as DGL does
(``k`` products ``[N, N] x [N, N]`` and a stack of ``k`` of them): the same sums, in another
order. ``lambda_max=None`` takes the largest real part of ``L``'s eigenvalues (DGL's
``th.eig``, gone from current PyTorch): NumPy's ``eigvals``; on CuPy ``eigvalsh`` of a
symmetric ``L`` (pass ``lambda_max`` for a non-symmetric one).

>>> import numpy as np
>>> conv = DenseChebConv(4, 2, k=3, rng=0)
>>> adj = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], np.float32)
>>> conv(adj, np.ones((3, 4), np.float32), lambda_max=2.0).shape
(3, 2)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.nn._dense_input import check_float_array, dense_inputs
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import _check_features, _rng, add_bias, glorot, matmul

__all__ = ["DenseChebConv"]


def _check_lambda_max(value: float) -> None:
    """``L~ = 2 L / lambda_max - I``: 0, NaN or infinity would fill the output with
    NaN / infinities (DGL's does, silently)."""
    if not np.isfinite(value) or value == 0:
        raise ValueError(f"DenseChebConv: lambda_max must be a finite non-zero number, got {value}")


class DenseChebConv(DGLModule):
    """DGL's ``DenseChebConv(in_feats, out_feats, k, bias=True)`` (inference), DGL's names.

    Call as ``conv(adj, feat, lambda_max=None)``: ``adj`` ``(N, N)`` (numbers, read in
    ``feat``'s dtype), ``feat`` ``(N, in_feats)``, ``lambda_max`` a number (or a one-element
    array) or ``None`` (computed from ``L``); 0, NaN or infinity in ``feat``'s dtype is a
    ``ValueError`` (DGL's gives NaN / infinite outputs; a CuPy array is not read back to
    check it).

    Shapes:
        - output: ``(N, out_feats)``

    Names (DGL's): ``W`` ``(k, in_feats, out_feats)``, ``bias`` ``(out_feats,)``.
    """

    _param_names = ("W", "bias")

    def __init__(
        self,
        in_feats: int,
        out_feats: int,
        k: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DenseChebConv"
        self.in_feats = layer_size(layer, "in_feats", in_feats)
        self.out_feats = layer_size(layer, "out_feats", out_feats)
        self.k = layer_size(layer, "k", k, minimum=1)
        gen = _rng(rng)
        self.W = glorot((self.k, self.in_feats, self.out_feats), gen, dtype)
        self.bias = np.zeros(self.out_feats, dtype=dtype) if bias else None

    def __call__(self, adj: Any, feat: Any, lambda_max: Any = None) -> Any:
        layer = "DenseChebConv"
        check_float_array(layer, "feat", feat, (2,))
        if getattr(adj, "ndim", 2) != 2:
            raise ValueError(f"{layer}: adj must be one (N, N) matrix, got shape {adj.shape}")
        inp = dense_inputs(layer, feat, adj)
        _check_features(feat, self.in_feats, f"{layer} feat", self.W)
        xp, a, n = inp.xp, inp.adj[0], inp.num_nodes
        norm = 1 / xp.sqrt(xp.maximum(a.sum(axis=1), 1))
        lap = xp.eye(n, dtype=a.dtype) - norm[:, None] * a * norm[None, :]
        lam = self._lambda_max(xp, lap, lambda_max, a.dtype)
        scaled = lap * (a.dtype.type(2) / lam) - xp.eye(n, dtype=a.dtype)  # L~
        w = self.W.astype(feat.dtype, copy=False)
        out = matmul(feat, w[0])
        if self.k > 1:
            z_prev, z = feat, matmul(scaled, feat)  # T_0 X, T_1 X
            out += matmul(z, w[1])
            for i in range(2, self.k):
                z_prev, z = z, 2 * matmul(scaled, z) - z_prev
                out += matmul(z, w[i])
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    @staticmethod
    def _lambda_max(xp: Any, lap: Any, lambda_max: Any, dtype: Any) -> Any:
        if lambda_max is not None:
            if is_array(lambda_max):
                if lambda_max.size != 1:
                    raise ValueError(
                        "DenseChebConv: lambda_max must be one number, got shape "
                        f"{lambda_max.shape}"
                    )
                with np.errstate(over="ignore"):  # an overflow is the infinity refused below
                    value = lambda_max.reshape(()).astype(dtype)
                if isinstance(value, np.ndarray):  # a CuPy one stays on its device
                    _check_lambda_max(float(value))
                return value
            if not isinstance(lambda_max, numbers.Real):  # a str, a list of graphs' values
                raise TypeError(
                    f"DenseChebConv: lambda_max must be one number (one graph), got "
                    f"{type(lambda_max).__name__}"
                )
            with np.errstate(over="ignore"):  # checked in the dtype it divides in
                value = dtype.type(lambda_max)
            _check_lambda_max(float(value))
            return value
        if lap.shape[0] == 0:
            return dtype.type(2)
        if lap.dtype.itemsize < 4:  # float16: the eigen solvers take float32 and wider
            lap = lap.astype(xp.float32)
        if xp is np:
            return dtype.type(np.linalg.eigvals(lap).real.max())
        if not bool(xp.allclose(lap, lap.T)):
            raise ValueError(
                "DenseChebConv: lambda_max=None on a GPU needs a symmetric adjacency "
                "(eigvalsh); pass lambda_max"
            )
        return xp.linalg.eigvalsh(lap).max().astype(dtype)

    def extra_repr(self) -> str:
        return f"{self.in_feats}, {self.out_feats}, k={self.k}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DenseChebConv:
    """DGL's ``DenseChebConv`` -> :class:`DenseChebConv` with its weights."""
    from arraygnn.nn.weights import _load

    layer = DenseChebConv(
        module._in_feats, module._out_feats, module._k, bias=module.bias is not None, dtype=dtype
    )
    return _load(layer, module, "dgl")
