"""PyG's ``PANConv`` and ``PANPooling`` (Ma et al., path integral based convolution and
pooling).

``PANConv`` builds the maximal entropy transition (MET) matrix
``M = Z^-1/2 (sum_{n=0..L} w_0 w_1 ... w_n A^n) Z^-1/2`` over paths of up to ``L =
filter_size`` hops (``A[i, j]`` counts the edges ``j -> i``; ``Z`` is each row's number of
stored entries, as PyG's ``rowcount``) and returns ``(lin(M x), M)``. ``PANPooling`` scores
nodes by ``beta_0 x . p + beta_1 sum_i M[i, j]`` and keeps the top ones per graph (PyG's
``SelectTopK(1, ...)`` then ``FilterEdges``, :class:`arraygnn.nn.pool.TopKPooling`'s
selection), with the MET entries between kept nodes as edge weights.

How it runs: each power is a sparse product that keeps every structural entry (as
``torch_sparse`` does, so ``Z`` counts the same entries), the powers are merged by one
``coalesce`` (rows, then columns sorted, as PyG's ``SparseTensor``), and ``M x`` is one
fused ``ops.spmm``. ``M`` is returned as a :class:`METMatrix` ``(row, col, value,
num_nodes)`` whose ``coo()`` gives ``(row, col, value)`` like the ``SparseTensor`` PyG
returns. PyG's own ``PANConv`` needs ``torch_sparse``.

>>> import numpy as np
>>> conv = PANConv(3, 2, filter_size=2, rng=0)
>>> out, M = conv(np.ones((4, 3), np.float32), np.array([[0, 1, 2], [1, 2, 3]]))
>>> out.shape, M.row.shape == M.value.shape
((4, 2), True)
>>> pool = PANPooling(2, ratio=0.5, rng=0)
>>> pool(out, M)[0].shape
(2, 2)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts, torch_rsqrt
from arraygnn.nn._graph_input import _check_edge_index, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn._pool_input import torch_spgemm
from arraygnn.nn.linear import Linear, _check_features, _rng, matmul
from arraygnn.nn.pool import _SelectTopK, _TopKBase
from arraygnn.ops._common import check_index, check_size

__all__ = ["PANConv", "PANPooling", "METMatrix"]


class METMatrix(NamedTuple):
    """The MET matrix in COO form, rows then columns sorted: ``M[row[e], col[e]] =
    value[e]``."""

    row: Any
    col: Any
    value: Any
    num_nodes: int

    def coo(self) -> tuple[Any, Any, Any]:
        """``(row, col, value)``, as ``torch_sparse.SparseTensor.coo()``."""
        return self.row, self.col, self.value


class PANConv(Module):
    """PyG's ``PANConv``: ``X' = M X W`` with the learned MET matrix ``M``.

    Args:
        in_channels: input size.
        out_channels: output size.
        filter_size: the longest path ``L`` (``weight`` has ``L + 1`` entries, 0.5 each
            at first, as PyG).

    Call as ``conv(x, edge_index)``; returns ``(out, M)`` with ``M`` a :class:`METMatrix`.

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``
        - output: ``(N, out_channels)``, ``M`` with ``nnz`` entries

    Names (PyG): ``lin.weight`` ``(out, in)``, ``lin.bias``, ``weight`` ``(filter_size + 1,)``.
    """

    _param_names = ("weight",)
    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        filter_size: int,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("PANConv", "in_channels", in_channels, minimum=1)
        self.out_channels = layer_size("PANConv", "out_channels", out_channels)
        self.filter_size = layer_size("PANConv", "filter_size", filter_size)
        self.lin = Linear(self.in_channels, self.out_channels, dtype=dtype, rng=_rng(rng))
        self.weight = np.full(self.filter_size + 1, 0.5, dtype=dtype)

    def met_matrix(self, edge_index: Any, num_nodes: int, dtype: Any) -> METMatrix:
        """The MET matrix of ``edge_index`` ``[2, E]`` (ids in ``[0, num_nodes)``) in
        ``dtype`` (PyG's ``panentropy`` and normalisation)."""
        from arraygnn.utils.coalesce import coalesce

        where = "PANConv.met_matrix"
        n = check_size(f"{where}: num_nodes", num_nodes)
        _check_edge_index(where, edge_index)
        check_index(f"{where}: edge_index", edge_index.reshape(-1), n)  # before Numba
        dtype = np.dtype(dtype)
        xp = get_namespace(edge_index)
        src, dst = edge_index[0].astype(np.int64), edge_index[1].astype(np.int64)
        order = xp.argsort(dst * max(n, 1) + src, kind="stable")  # adj_t rows = targets
        adj_ptr = xp.zeros(n + 1, dtype=np.int64)
        adj_ptr[1:] = xp.cumsum(xp.bincount(dst, minlength=n))
        adj = (adj_ptr, src[order], xp.ones(src.shape[0], dtype=dtype))
        w = self.weight.astype(dtype, copy=False)
        eye = xp.arange(n, dtype=np.int64)
        tmp = (xp.arange(n + 1, dtype=np.int64), eye, xp.full(n, w[0], dtype=dtype))
        rows, cols, vals = [eye], [eye], [tmp[2]]
        for i in range(1, self.filter_size + 1):
            ptr, col, val = torch_spgemm(tmp, adj, n, n)
            tmp = (ptr, col, val * w[i])
            rows.append(repeat_counts(xp, eye, xp.diff(ptr)))
            cols.append(col)
            vals.append(tmp[2])
        index, value = coalesce(
            xp.stack([xp.concatenate(rows), xp.concatenate(cols)]), xp.concatenate(vals), n
        )
        deg = xp.bincount(index[0], minlength=n).astype(dtype)
        with np.errstate(divide="ignore"):
            dis = torch_rsqrt(deg) if n else deg
        dis = xp.where(xp.isinf(dis), dtype.type(0), dis)
        value = value * dis[index[1]] * dis[index[0]]
        return METMatrix(index[0], index[1], value, n)

    def __call__(self, x: Any, edge_index: Any) -> tuple[Any, METMatrix]:
        from arraygnn import ops

        inp = parse_input("PANConv", x, edge_index)
        if not inp.homogeneous:
            raise ValueError("PANConv: bipartite inputs are not supported (PyG's neither)")
        _check_features(inp.x_src, self.in_channels, "PANConv x", self.lin.weight)
        if inp.x_src.ndim != 2:
            raise ValueError(f"PANConv: x must be [N, {self.in_channels}], got {inp.x_src.shape}")
        x = inp.x_src
        m = self.met_matrix(xp_stack(inp.src, inp.dst), inp.num_src, np.dtype(x.dtype))
        out = ops.spmm((m.col, m.row), x, edge_weight=m.value, num_dst_nodes=m.num_nodes)
        return self.lin(out), m

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, filter_size={self.filter_size}"


def xp_stack(src: Any, dst: Any) -> Any:
    """``[2, E]`` from the two id arrays."""
    return get_namespace(src).stack([src, dst])


class PANPooling(_TopKBase):
    """PyG's ``PANPooling``.

    Args:
        in_channels: feature size.
        ratio, min_score, multiplier, nonlinearity: as :class:`arraygnn.nn.TopKPooling`.

    Call as ``pool(x, M, batch=None)`` with ``M`` a :class:`METMatrix` (what
    :class:`PANConv` returns) or a triple ``(row, col, value)``; returns PyG's ``(x,
    edge_index, edge_weight, batch, perm, score)`` (``edge_index`` = ``[col, row]`` of the
    entries between kept nodes).

    Names (PyG): ``p`` ``(in_channels,)`` (ones at first), ``beta`` ``(2,)`` (0.5 each),
    ``select.weight`` ``(1, 1)``.
    """

    _param_names = ("p", "beta")
    _child_names = ("select",)

    def __init__(
        self,
        in_channels: int,
        ratio: float = 0.5,
        min_score: float | None = None,
        multiplier: float = 1.0,
        nonlinearity: Any = "tanh",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self._setup("PANPooling", in_channels, ratio, min_score, multiplier, nonlinearity)
        self.p = np.ones(self.in_channels, dtype=dtype)
        self.beta = np.full(2, 0.5, dtype=dtype)
        self.select = _SelectTopK(1, dtype, _rng(rng))

    def __call__(self, x: Any, M: Any, batch: Any = None) -> tuple[Any, ...]:  # noqa: N803
        from arraygnn import ops

        layer = "PANPooling"
        _check_features(x, self.in_channels, f"{layer}: x", self.p)
        if x.ndim != 2:
            raise ValueError(f"{layer}: x must be [N, {self.in_channels}], got {tuple(x.shape)}")
        parts = M.coo() if hasattr(M, "coo") else M
        if not isinstance(parts, (tuple, list)) or len(parts) != 3:
            raise TypeError(f"{layer}: M must be a METMatrix or a triple (row, col, value)")
        row, col, value = parts
        if not all(is_array(a) for a in parts) or value is None:
            raise TypeError(f"{layer}: M's row, col and value must be arrays (value required)")
        if not row.shape == col.shape == value.shape or row.ndim != 1:
            raise ValueError(f"{layer}: M's row, col and value must be 1-D of one length")
        n = int(x.shape[0])
        check_index(f"{layer}: M's row", row, n)
        check_index(f"{layer}: M's col", col, n)
        xp = get_namespace(x, row)
        score1 = matmul(x, self.p.reshape(-1, 1))[:, 0]
        score2 = ops.scatter(value, col, n, reduce="sum") if value.size else xp.zeros(n, x.dtype)
        score = self.beta[0] * score1 + self.beta[1] * score2.astype(score1.dtype, copy=False)
        return self._pool(layer, x, score.reshape(-1, 1), xp.stack([col, row]), value, batch)

    def extra_repr(self) -> str:
        what = f"ratio={self.ratio}" if self.min_score is None else f"min_score={self.min_score}"
        return f"{self.in_channels}, {what}, multiplier={self.multiplier}"


def conv_from_pyg_module(module: Any, dtype: Any, convert: Any) -> PANConv:
    """PyG ``PANConv`` -> :class:`PANConv`, weights loaded."""
    from arraygnn.nn.weights import _lazy_sizes, _load

    in_channels = _lazy_sizes("PANConv", module.in_channels, module.lin)
    layer = PANConv(in_channels, module.out_channels, module.filter_size, dtype=dtype)
    return _load(layer, module, "pyg")


def pool_from_pyg_module(module: Any, dtype: Any, convert: Any) -> PANPooling:
    """PyG ``PANPooling`` -> :class:`PANPooling`, weights loaded."""
    from arraygnn.nn.weights import _activation, _load

    act = _activation(module.select.act, "from_pyg: PANPooling nonlinearity")
    layer = PANPooling(
        module.in_channels,
        module.ratio,
        module.min_score,
        module.multiplier,
        act,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
