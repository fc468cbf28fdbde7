"""PyG's :class:`GDC`: Graph Diffusion Convolution (Klicpera et al., 2019) on arrays.

The graph (``edge_attr`` [E] as edge weights, else float32 ones) gets self-loops of weight
``self_loop_weight``, is coalesced, normalised (``normalization_in``), diffused and
sparsified, coalesced again and normalised (``normalization_out``); the result replaces
``edge_index`` and ``edge_attr``, as PyG.

Which path runs:

- ``exact=True`` (default): the diffusion matrix is **dense** [N, N] (as PyG): ``'ppr'``
  is ``alpha (I + (alpha - 1) T)^-1`` (``numpy.linalg.inv``), ``'heat'`` is
  ``exp(t (T - I))`` (``numpy.linalg.eigh`` when the weighted graph is undirected, else
  ``scipy.linalg.expm``), ``'coeff'`` is ``sum_k theta_k T^k``; sparsified by
  ``'threshold'`` (``eps=`` or ``avg_degree=``) or ``'topk'`` (``k=``, ``dim=``).
- ``exact=False``: ``'ppr'`` only, by the push algorithm of :func:`arraygnn.utils.get_ppr`
  (PyG's own ``get_ppr`` push, in PyG's order; the edges of a node are visited in their
  stable CSR order, PyG's unstable sort may visit them in another, so the weights agree to
  the push tolerance, not bit for bit), sparsified by ``'threshold'``.

RULE: the dense paths compute in the weights' dtype (float32 without ``edge_attr``, as
      PyG; a float16 ``edge_attr`` is refused, ``numpy.linalg`` takes none); ``topk``
      breaks ties between equal weights by the lower index (PyG's torch ``argsort``
      leaves their order unspecified).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3)
>>> out = GDC(sparsification_kwargs=dict(method="threshold", eps=0.01))(d)
>>> out.edge_index.shape, out.edge_attr.dtype
((2, 9), dtype('float32'))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy, torch_rsqrt
from arraygnn.transforms._graph import edge_keys, refuse_other_edge_attrs
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.utils.coalesce import coalesce
from arraygnn.utils.dense import to_dense_adj
from arraygnn.utils.loops import add_self_loops
from arraygnn.utils.ppr import get_ppr
from arraygnn.utils.scatter import scatter
from arraygnn.utils.sort import sort_edge_index
from arraygnn.utils.undirected import is_undirected

__all__ = ["GDC", "transition_matrix"]

_WHERE = "GDC"
_NORMS = ("sym", "col", "row", None)


def _inv_pow(deg: Any, power: float) -> Any:
    """``deg ** power`` with ``inf`` (from a zero degree) replaced by 0, as PyG."""
    xp = get_namespace(deg)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = torch_rsqrt(deg) if power == -0.5 else deg**power if power != -1 else 1.0 / deg
    return xp.where(xp.isinf(out), xp.zeros((), out.dtype), out)


def transition_matrix(
    edge_index: Any, edge_weight: Any, num_nodes: int, normalization: str | None
) -> tuple[Any, Any]:
    """PyG's ``GDC.transition_matrix``: ``'sym'`` ``D^-1/2 A D^-1/2``, ``'col'``
    ``A D^-1``, ``'row'`` ``D^-1 A`` (degrees: weighted, by column for ``'sym'`` /
    ``'col'``, by row for ``'row'``; a zero degree gives 0), ``None`` ``A``.

    >>> import numpy as np
    >>> ei = np.array([[0, 1], [1, 1]])
    >>> transition_matrix(ei, np.array([1.0, 3.0]), 2, "col")[1].tolist()
    [0.25, 0.75]
    """
    if normalization == "sym":
        deg = scatter(edge_weight, edge_index[1], 0, num_nodes, reduce="sum")
        inv = _inv_pow(deg, -0.5)
        return edge_index, inv[edge_index[0]] * edge_weight * inv[edge_index[1]]
    if normalization == "col":
        deg = scatter(edge_weight, edge_index[1], 0, num_nodes, reduce="sum")
        return edge_index, edge_weight * _inv_pow(deg, -1)[edge_index[1]]
    if normalization == "row":
        deg = scatter(edge_weight, edge_index[0], 0, num_nodes, reduce="sum")
        return edge_index, edge_weight * _inv_pow(deg, -1)[edge_index[0]]
    if normalization is None:
        return edge_index, edge_weight
    raise ValueError(f"{_WHERE}: transition matrix normalization {normalization!r} unknown")


def _dense(xp: Any, edge_index: Any, edge_weight: Any, n: int) -> Any:
    """The dense [n, n] matrix of the edge list (parallel entries summed), in the weights'
    dtype (:func:`arraygnn.utils.to_dense_adj`, PyG's ``to_dense_adj``)."""
    out = to_dense_adj(edge_index, edge_attr=edge_weight, max_num_nodes=n)[0]
    return out.astype(edge_weight.dtype, copy=False)


def _number(name: str, kwargs: Mapping[str, Any], key: str) -> float:
    if key not in kwargs:
        raise ValueError(f"{_WHERE}: {name} needs {key!r}")
    value = kwargs[key]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{_WHERE}: {name}[{key!r}] must be a number, got {value!r}")
    return float(value)


def _kwargs(name: str, value: Any, default: dict[str, Any]) -> dict[str, Any]:
    if value is None:
        return dict(default)
    if not isinstance(value, Mapping) or "method" not in value:
        raise TypeError(f"{_WHERE}: {name} must be a dict with a 'method' key, got {value!r}")
    return dict(value)


class GDC(BaseTransform):
    """Graph diffusion (PyG's ``GDC``): arguments as PyG's (module docs for the paths).

    ``diffusion_kwargs``: ``dict(method='ppr', alpha=...)`` (and ``eps=`` with
    ``exact=False``), ``dict(method='heat', t=...)`` or ``dict(method='coeff',
    coeffs=[...])``. ``sparsification_kwargs``: ``dict(method='threshold', eps=...)`` or
    ``avg_degree=`` instead of ``eps``; ``dict(method='topk', k=..., dim=0 | 1)`` (dense
    only). ``Data`` only; per-edge arrays other than ``edge_attr`` (``edge_attrs=``) are
    refused, as the edges are replaced.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
    >>> out = GDC(diffusion_kwargs=dict(method="heat", t=1.0),
    ...           sparsification_kwargs=dict(method="topk", k=1, dim=0))(d)
    >>> out.edge_index.tolist()
    [[0, 1], [0, 1]]
    """

    def __init__(
        self,
        self_loop_weight: float | None = 1.0,
        normalization_in: str = "sym",
        normalization_out: str | None = "col",
        diffusion_kwargs: Mapping[str, Any] | None = None,
        sparsification_kwargs: Mapping[str, Any] | None = None,
        exact: bool = True,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        if self_loop_weight is not None and (
            isinstance(self_loop_weight, (bool, np.bool_))
            or not isinstance(self_loop_weight, (int, float, np.number))
        ):
            raise TypeError(
                f"{_WHERE}: self_loop_weight must be a number or None, got {self_loop_weight!r}"
            )
        if normalization_in not in ("sym", "col", "row"):
            raise ValueError(
                f"{_WHERE}: normalization_in must be 'sym', 'col' or 'row', got "
                f"{normalization_in!r}"
            )
        if normalization_out not in _NORMS:
            raise ValueError(
                f"{_WHERE}: normalization_out must be 'sym', 'col', 'row' or None, got "
                f"{normalization_out!r}"
            )
        if not isinstance(exact, (bool, np.bool_)):
            raise TypeError(f"{_WHERE}: exact must be True or False, got {exact!r}")
        self.self_loop_weight = self_loop_weight
        self.normalization_in = normalization_in
        self.normalization_out = normalization_out
        self.diffusion_kwargs = _kwargs(
            "diffusion_kwargs", diffusion_kwargs, dict(method="ppr", alpha=0.15)
        )
        self.sparsification_kwargs = _kwargs(
            "sparsification_kwargs",
            sparsification_kwargs,
            dict(method="threshold", avg_degree=64),
        )
        self.exact = bool(exact)
        if self_loop_weight and not exact and self_loop_weight != 1:
            raise ValueError(
                f"{_WHERE}: exact=False takes self_loop_weight 1 or None (the push ignores "
                f"weights), got {self_loop_weight!r}"
            )
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        ei, n = checked_graph(_WHERE, data)
        keys = edge_keys(_WHERE, data, data, self.node_attrs, self.edge_attrs, self.graph_attrs)
        refuse_other_edge_attrs(_WHERE, keys, ["edge_attr"], "GDC replaces the edges")
        xp = get_namespace(ei)
        idtype = ei.dtype
        if "edge_attr" in data:
            weight = data.edge_attr
            if weight.ndim != 1 or weight.dtype not in (np.float32, np.float64):
                raise ValueError(
                    f"{_WHERE}: edge_attr must be one float weight per edge ([E], float32 or "
                    f"float64: the dense linear algebra takes no float16), got shape "
                    f"{tuple(weight.shape)} dtype {weight.dtype}"
                )
            if not self.exact:
                raise ValueError(f"{_WHERE}: exact=False ignores edge weights; drop edge_attr")
        else:
            weight = xp.ones(int(ei.shape[1]), dtype=np.float32)
        ei = ei.astype(np.int64)
        if self.self_loop_weight:
            ei, weight = add_self_loops(ei, weight, float(self.self_loop_weight), n)
        ei, weight = coalesce(ei, weight, n)
        if self.exact:
            ei, weight = transition_matrix(ei, weight, n, self.normalization_in)
            diff = self.diffusion_matrix_exact(ei, weight, n, **self.diffusion_kwargs)
            ei, weight = self.sparsify_dense(diff, **self.sparsification_kwargs)
        else:
            ei, weight = self.diffusion_matrix_approx(
                ei, weight, n, self.normalization_in, **self.diffusion_kwargs
            )
            ei, weight = self.sparsify_sparse(ei, weight, n, **self.sparsification_kwargs)
        ei, weight = coalesce(ei, weight, n)
        ei, weight = transition_matrix(ei, weight, n, self.normalization_out)
        data.edge_index = ei.astype(idtype, copy=False)
        data.edge_attr = weight
        return data

    # ------------------------------------------------------------------ diffusion
    def diffusion_matrix_exact(
        self, edge_index: Any, edge_weight: Any, num_nodes: int, method: str, **kwargs: Any
    ) -> Any:
        """The dense [N, N] diffusion matrix (PyG's ``diffusion_matrix_exact``)."""
        xp = get_namespace(edge_index)
        n = num_nodes
        if method == "ppr":
            alpha = _number("diffusion_kwargs", kwargs, "alpha")
            ei, w = add_self_loops(edge_index, (alpha - 1) * edge_weight, 1.0, n)
            mat = _dense(xp, ei, w, n)
            return (alpha * xp.linalg.inv(mat)).astype(edge_weight.dtype, copy=False)
        if method == "heat":
            t = _number("diffusion_kwargs", kwargs, "t")
            ei, w = add_self_loops(edge_index, edge_weight, -1.0, n)
            w = t * w
            mat = _dense(xp, ei, w, n)
            if is_undirected(ei, w, n):
                e, v = xp.linalg.eigh(mat, UPLO="U")
                return (v @ xp.diag(xp.exp(e)) @ v.T).astype(w.dtype, copy=False)
            from scipy.linalg import expm

            out = expm(to_numpy(mat)).astype(w.dtype, copy=False)
            return out if xp is np else xp.asarray(out)
        if method == "coeff":
            coeffs = kwargs.get("coeffs")
            if is_array(coeffs) and coeffs.ndim == 1:  # PyG indexes any sequence
                coeffs = to_numpy(coeffs).tolist()
            if not isinstance(coeffs, (list, tuple)) or not coeffs:
                raise ValueError(
                    f"{_WHERE}: 'coeff' diffusion needs a list of coeffs, got {coeffs!r}"
                )
            adj = _dense(xp, edge_index, edge_weight, n)
            mat = xp.eye(n, dtype=edge_weight.dtype)
            diff = coeffs[0] * mat
            for coeff in coeffs[1:]:
                mat = mat @ adj
                diff = diff + coeff * mat
            return diff.astype(edge_weight.dtype, copy=False)
        raise ValueError(f"{_WHERE}: exact GDC diffusion {method!r} unknown")

    def diffusion_matrix_approx(
        self,
        edge_index: Any,
        edge_weight: Any,
        num_nodes: int,
        normalization: str,
        method: str,
        **kwargs: Any,
    ) -> tuple[Any, Any]:
        """The sparse approximate diffusion (PyG's ``diffusion_matrix_approx``): PPR by
        push, row-normalised, re-normalised for ``'col'`` / ``'sym'``."""
        if method == "heat":
            raise NotImplementedError(f"{_WHERE}: no approximate heat kernel (as PyG); use exact")
        if method != "ppr":
            raise ValueError(f"{_WHERE}: approximate GDC diffusion {method!r} unknown")
        alpha = _number("diffusion_kwargs", kwargs, "alpha")
        eps = _number("diffusion_kwargs", kwargs, "eps")
        if normalization not in ("sym", "col", "row"):
            raise ValueError(
                f"{_WHERE}: transition matrix normalization {normalization!r} not implemented "
                "for non-exact GDC computation"
            )
        deg = scatter(edge_weight, edge_index[1], 0, num_nodes, reduce="sum")
        ei, w = get_ppr(edge_index, alpha=alpha, eps=eps, num_nodes=num_nodes)
        if normalization == "col":
            ei, w = sort_edge_index(ei[::-1], w, num_nodes)
        if normalization == "sym":
            xp = get_namespace(deg)
            root = xp.sqrt(deg)
            inv = _inv_pow(deg, -0.5)
            w = root[ei[0]] * w * inv[ei[1]]
        return ei, w

    # ------------------------------------------------------------------ sparsification
    def sparsify_dense(self, matrix: Any, method: str, **kwargs: Any) -> tuple[Any, Any]:
        """Edges of the dense matrix (PyG's ``sparsify_dense``): ``'threshold'`` keeps
        entries ``>= eps`` in row-major order, ``'topk'`` the ``k`` largest per column
        (``dim=0``) or row (``dim=1``)."""
        xp = get_namespace(matrix)
        n = int(matrix.shape[1])
        if method == "threshold":
            eps = self._eps(matrix, n, kwargs)
            row, col = xp.nonzero(matrix >= eps)
            ei = xp.stack([row, col]).astype(np.int64)
            return ei, matrix[row, col]
        if method == "topk":
            k = kwargs.get("k")
            dim = kwargs.get("dim")
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 0:
                raise ValueError(f"{_WHERE}: 'topk' needs an int k >= 0, got {k!r}")
            if dim not in (0, 1):
                raise ValueError(f"{_WHERE}: 'topk' needs dim 0 or 1, got {dim!r}")
            k = min(n, int(k))
            order = xp.argsort(-matrix, axis=dim, kind="stable")
            if dim == 0:
                top = order[:k]
                weight = xp.take_along_axis(matrix, top, axis=0).ravel()
                ei = xp.stack([top.ravel(), xp.tile(xp.arange(n), k)])
            else:
                top = order[:, :k]
                weight = xp.take_along_axis(matrix, top, axis=1).ravel()
                ei = xp.stack([xp.repeat(xp.arange(n), k), top.ravel()])
            return ei.astype(np.int64), weight
        raise ValueError(f"{_WHERE}: GDC sparsification {method!r} unknown")

    def sparsify_sparse(
        self, edge_index: Any, edge_weight: Any, num_nodes: int, method: str, **kwargs: Any
    ) -> tuple[Any, Any]:
        """PyG's ``sparsify_sparse``: ``'threshold'`` only (``'topk'`` is
        ``NotImplementedError``, as PyG)."""
        if method == "threshold":
            eps = self._eps(edge_weight, num_nodes, kwargs)
            keep = edge_weight >= eps
            return edge_index[:, keep], edge_weight[keep]
        if method == "topk":
            raise NotImplementedError(f"{_WHERE}: sparse topk sparsification not implemented")
        raise ValueError(f"{_WHERE}: GDC sparsification {method!r} unknown")

    @staticmethod
    def _eps(values: Any, num_nodes: int, kwargs: Mapping[str, Any]) -> float:
        """``eps=`` or the threshold that leaves ``avg_degree * N`` entries (PyG's
        ``__calculate_eps__``: the mean of the two sorted values around the cut)."""
        if "eps" in kwargs:
            return _number("sparsification_kwargs", kwargs, "eps")
        avg = kwargs.get("avg_degree")
        if isinstance(avg, (bool, np.bool_)) or not isinstance(avg, (int, np.integer)) or avg < 0:
            raise ValueError(f"{_WHERE}: 'threshold' needs eps= or an int avg_degree >= 0")
        xp = get_namespace(values)
        flat = values.ravel()
        cut = int(avg) * num_nodes
        if cut >= flat.shape[0]:  # every entry stays (PyG: -inf; at equality an IndexError)
            return -math.inf
        top = -xp.sort(-flat)  # descending
        left = top[cut - 1]  # cut == 0: PyG reads sorted[-1], the smallest value
        return float(left + top[cut]) / 2.0

    def __repr__(self) -> str:
        return "GDC()"
