"""DGL's diffusion transforms on the DGL face: :class:`GCNNorm`, :class:`PPR`,
:class:`HeatKernel`, :class:`GDC` and :class:`SIGNDiffusion`.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.graph.diffusion_transforms import GCNNorm, PPR
>>> g = graph((np.array([0, 1, 1]), np.array([1, 0, 1])))
>>> [round(float(w), 4) for w in GCNNorm()(g).edata["w"]]
[0.7071, 0.7071, 0.5]
>>> h = PPR(alpha=0.5, avg_degree=1)(g)
>>> h.edges()[0].tolist(), h.edges()[1].tolist()
([0, 1, 0, 1], [0, 0, 1, 1])

RULE: ``GCNNorm`` gives each edge ``u -> v`` of an edge type with one node type at both
      ends the weight ``w_uv / sqrt(d_u d_v)`` (``d`` the in-degree, or the summed incoming
      ``eweight_name`` weights when present; ``1 / sqrt(0)`` is taken as 0), as DGL: the
      *in*-degree is used at both ends. Computed with two ``ops`` scatters / gathers.
      Integer weights give float32 (the degree summed as integers), as DGL; so do they in
      ``PPR`` / ``HeatKernel`` / ``GDC``.
RULE: ``PPR`` / ``HeatKernel`` / ``GDC`` build the dense float32 ``N x N`` diffusion matrix
      ``S`` (``A[v, u]`` = the weight of the last edge ``u -> v``), then keep the entries
      ``>= eps`` (or, with ``eps=None``, the ``avg_degree * N`` largest, ties included; all
      when ``avg_degree > N``) as edges ``u -> v`` ordered by ``(v, u)`` with weights in
      ``edata[eweight_name]``; node features are kept, edge features dropped (as DGL).
      O(N^2) memory, O(N^3) time: for small graphs, as DGL's.
RULE: ``SIGNDiffusion`` writes ``ndata[out_feat_name + '_i']`` for ``i = 1..k``, the
      ``i``-step diffusion of ``ndata[in_feat_name]``: ``'raw'`` (``A^i X``, weighted by
      ``eweight_name`` if present), ``'rw'`` (mean over in-neighbours, or the weighted sum
      divided by the summed weights), ``'gcn'`` (GCN-normalised) and ``'ppr'``
      (``(1 - alpha) A_gcn X_{i-1} + alpha X``). Each step is one fused SpMM (``ops``).
RULE: the input graph is never changed (DGL's ``GCNNorm`` / ``SIGNDiffusion`` write into it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.graph import ops as _gops
from arraygnn.graph.core import Graph
from arraygnn.graph.transform_modules import (
    BaseTransform,
    _check_graph,
    _positive_int,
    _rebuilt,
    copy_graph,
)

__all__ = ["GCNNorm", "PPR", "HeatKernel", "GDC", "SIGNDiffusion"]


def _ops() -> Any:
    from arraygnn import ops

    return ops


def _number(where: str, name: str, x: Any) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a number, got {x!r}")
    return float(x)


def _edge_weight(where: str, g: Graph, rel: Any, name: str, integer_ok: bool = False) -> Any:
    """``rel``'s weights ``name``: float, or (``integer_ok``: DGL's GCNNorm / PPR /
    HeatKernel / GDC compute with them in float32) integer."""
    w = rel.frame._data[name]
    if w.ndim != 1 and not (w.ndim == 2 and w.shape[1] == 1):
        raise ValueError(
            f"{where}: edge feature {name!r} must hold one weight per edge, got {w.shape}"
        )
    if w.dtype.kind != "f" and not (integer_ok and w.dtype.kind in "iu"):
        what = "float or integer" if integer_ok else "float"
        raise TypeError(f"{where}: edge feature {name!r} is {w.dtype}; it must be {what}")
    return w


def gcn_norm_weights(g: Graph, c: Any, eweight_name: str | None) -> Any:
    """DGL's ``GCNNorm`` weights of edge type ``c`` (one node type at both ends; unweighted
    when ``eweight_name`` is ``None`` or absent)."""
    ops = _ops()
    rel = g._rels[c]
    n = g._num_src[c[0]]
    xp = g._xp()
    if eweight_name is not None and eweight_name in rel.frame._data:
        w = _edge_weight("GCNNorm", g, rel, eweight_name, integer_ok=True)
        deg = ops.scatter(w, rel.dst, n, "sum")
        if w.dtype.kind != "f":  # DGL: the degree summed as integers, then float32
            deg, w = deg.astype(np.float32), w.astype(np.float32)
    else:
        w = None
        deg = ops.scatter(xp.ones(rel.num_edges, dtype=np.float32), rel.dst, n, "sum")
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / xp.sqrt(deg)
    inv = xp.where(xp.isinf(inv), xp.zeros((), dtype=inv.dtype), inv)
    out = ops.gather(inv, rel.src)
    if w is not None:
        out = out * w
    return out * ops.gather(inv, rel.dst)


class GCNNorm(BaseTransform):
    """Symmetric GCN normalisation of the edge weights, stored in ``edata[eweight_name]``
    of every edge type with one node type at both ends."""

    def __init__(self, eweight_name: str = "w") -> None:
        if not isinstance(eweight_name, str):
            raise TypeError(f"GCNNorm: eweight_name must be a str, got {eweight_name!r}")
        self.eweight_name = eweight_name

    def __call__(self, g: Graph) -> Graph:
        _check_graph("GCNNorm", g)
        weights = {
            c: gcn_norm_weights(g, c, self.eweight_name) for c in g.canonical_etypes if c[0] == c[2]
        }
        out = copy_graph(g)
        for c, w in weights.items():
            out._rels[c].frame._data[self.eweight_name] = w
        return out


def _dense_adjacency(where: str, g: Graph, eweight_name: str, scale: float) -> np.ndarray:
    """float32 ``A`` with ``A[v, u] = scale * w`` for each edge ``u -> v`` (last write wins)."""
    n = g.num_nodes()
    a = np.zeros((n, n), dtype=np.float32)
    if not g.canonical_etypes:
        return a
    rel = g._rels[g.canonical_etypes[0]]
    src = to_numpy(rel.src).astype(np.int64, copy=False)
    dst = to_numpy(rel.dst).astype(np.int64, copy=False)
    if eweight_name in rel.frame._data:
        w = to_numpy(_edge_weight(where, g, rel, eweight_name, integer_ok=True)).reshape(-1)
        if w.dtype.kind != "f":  # DGL: scale * integer weights is a float32 tensor
            w = w.astype(np.float32)
        a[dst, src] = scale * w
    else:
        a[dst, src] = np.float32(scale) * np.ones(src.shape[0], dtype=np.float32)
    return a


class _Sparsified(BaseTransform):
    """Shared parameters and the sparsification step of PPR / HeatKernel / GDC."""

    def _init_sparsify(self, where: str, eweight_name: str, eps: Any, avg_degree: Any) -> None:
        if not isinstance(eweight_name, str):
            raise TypeError(f"{where}: eweight_name must be a str, got {eweight_name!r}")
        if eps is not None:
            eps = _number(where, "eps", eps)
        if isinstance(avg_degree, (bool, np.bool_)) or not isinstance(
            avg_degree, (int, np.integer)
        ):
            raise TypeError(f"{where}: avg_degree must be an int, got {avg_degree!r}")
        if avg_degree < 1:
            raise ValueError(f"{where}: avg_degree must be positive, got {avg_degree!r}")
        self.eweight_name, self.eps, self.avg_degree = eweight_name, eps, int(avg_degree)

    def _eps(self, n: int, mat: np.ndarray) -> float:
        if self.eps is not None:
            return self.eps
        if self.avg_degree > n:
            return float("-inf")
        return np.sort(mat.ravel())[::-1][self.avg_degree * n - 1]

    def _sparsified(self, g: Graph, diff: np.ndarray) -> Graph:
        xp = g._xp()
        dst, src = np.nonzero(diff >= self._eps(g.num_nodes(), diff))
        c = g.canonical_etypes[0] if g.canonical_etypes else (g.ntypes[0], "_E", g.ntypes[0])
        out = _rebuilt(g, {c: (xp.asarray(src.astype(g.idtype)), xp.asarray(dst.astype(g.idtype)))})
        out.edata[self.eweight_name] = xp.asarray(diff[dst, src])
        return out


class PPR(_Sparsified):
    """Personalised-PageRank diffusion ``S = alpha (I - (1 - alpha) A)^-1``, sparsified."""

    def __init__(
        self,
        alpha: float = 0.15,
        eweight_name: str = "w",
        eps: float | None = None,
        avg_degree: int = 5,
    ) -> None:
        self.alpha = _number("PPR", "alpha", alpha)
        self._init_sparsify("PPR", eweight_name, eps, avg_degree)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("PPR", g, homogeneous=True)
        mat = _dense_adjacency("PPR", g, self.eweight_name, self.alpha - 1)
        mat[np.diag_indices_from(mat)] += 1
        diff = (np.float32(self.alpha) * np.linalg.inv(mat)).astype(np.float32)
        return self._sparsified(g, diff)


def _is_bidirected(g: Graph) -> bool:
    """DGL's test: the edge list sorted by ``(src, dst)`` is the one sorted by
    ``(dst, src)`` with the ends swapped."""
    if not g.canonical_etypes:
        return True
    src, dst = (to_numpy(x).astype(np.int64, copy=False) for x in g.edges())
    a = np.lexsort((dst, src))
    b = np.lexsort((src, dst))
    return bool(np.array_equal(src[a], dst[b]) and np.array_equal(src[b], dst[a]))


class HeatKernel(_Sparsified):
    """Heat-kernel diffusion ``S = exp(t (A - I))``, sparsified (eigendecomposition of the
    upper triangle when the graph is bidirected, as DGL; else SciPy's ``expm``)."""

    def __init__(
        self, t: float = 2.0, eweight_name: str = "w", eps: float | None = None, avg_degree: int = 5
    ) -> None:
        self.t = _number("HeatKernel", "t", t)
        self._init_sparsify("HeatKernel", eweight_name, eps, avg_degree)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("HeatKernel", g, homogeneous=True)
        mat = _dense_adjacency("HeatKernel", g, self.eweight_name, self.t)
        mat[np.diag_indices_from(mat)] -= np.float32(self.t)
        if _is_bidirected(g):
            e, v = np.linalg.eigh(mat, UPLO="U")
            diff = ((v * np.exp(e)) @ v.T).astype(np.float32)
        else:
            from scipy.linalg import expm

            diff = expm(mat).astype(np.float32)
        return self._sparsified(g, diff)


class GDC(_Sparsified):
    """Graph diffusion ``S = sum_k coefs[k] A^k``, sparsified."""

    def __init__(
        self, coefs: Any, eweight_name: str = "w", eps: float | None = None, avg_degree: int = 5
    ) -> None:
        try:
            coefs = [_number("GDC", "coefs", c) for c in coefs]
        except TypeError:
            raise TypeError(
                f"GDC: coefs must be a non-empty list of numbers, got {coefs!r}"
            ) from None
        if not coefs:
            raise ValueError("GDC: coefs must be a non-empty list of numbers")
        self.coefs = coefs
        self._init_sparsify("GDC", eweight_name, eps, avg_degree)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("GDC", g, homogeneous=True)
        adj = _dense_adjacency("GDC", g, self.eweight_name, 1.0)
        mat = np.eye(g.num_nodes(), dtype=np.float32)
        diff = np.float32(self.coefs[0]) * mat
        for coef in self.coefs[1:]:
            mat = mat @ adj
            diff = diff + np.float32(coef) * mat
        return self._sparsified(g, diff)


_DIFFUSE_OPS = ("raw", "rw", "gcn", "ppr")


class SIGNDiffusion(BaseTransform):
    """SIGN's precomputed diffusions of ``ndata[in_feat_name]`` (see the module RULE)."""

    def __init__(
        self,
        k: int,
        in_feat_name: str = "feat",
        out_feat_name: str = "out_feat",
        eweight_name: str | None = None,
        diffuse_op: str = "raw",
        alpha: float = 0.2,
    ) -> None:
        self.k = _positive_int("SIGNDiffusion", "k", k)
        if diffuse_op not in _DIFFUSE_OPS:
            raise ValueError(
                f"SIGNDiffusion: diffuse_op must be one of {_DIFFUSE_OPS}, got {diffuse_op!r}"
            )
        self.in_feat_name, self.out_feat_name = in_feat_name, out_feat_name
        self.eweight_name, self.diffuse_op = eweight_name, diffuse_op
        self.alpha = _number("SIGNDiffusion", "alpha", alpha)

    def __call__(self, g: Graph) -> Graph:
        where = "SIGNDiffusion"
        _check_graph(where, g, homogeneous=True)
        if self.in_feat_name not in g.ndata:
            raise KeyError(
                f"{where}: the graph has no node feature in_feat_name={self.in_feat_name!r}"
            )
        x = g.ndata[self.in_feat_name]
        empty = not g.canonical_etypes
        rel = None if empty else g._rels[g.canonical_etypes[0]]
        has_w = (
            rel is not None
            and self.eweight_name is not None
            and self.eweight_name in rel.frame._data
        )
        if self.diffuse_op in ("gcn", "ppr"):
            w = None if empty else gcn_norm_weights(g, rel.canonical, self.eweight_name)
        elif has_w:
            w = _edge_weight(where, g, rel, self.eweight_name)
        else:
            w = None
        if w is not None and x.dtype.kind == "f":
            w = w.astype(x.dtype, copy=False)
        xp = g._xp()
        z = None
        if self.diffuse_op == "rw" and w is not None:
            z = _ops().scatter(w.reshape(-1), rel.dst, g.num_nodes(), "sum")
            z = z.reshape((-1,) + (1,) * (x.ndim - 1))
        feats, h = [], x
        for _ in range(self.k):
            if empty:
                h = xp.zeros_like(h)
            elif w is None and self.diffuse_op == "rw":
                h = _gops.copy_u_mean(g, h)
            elif w is None:
                h = _gops.copy_u_sum(g, h)
            else:
                h = _gops.u_mul_e_sum(g, h, w.reshape((-1,) + (1,) * (h.ndim - 1)))
            if z is not None:
                with np.errstate(divide="ignore", invalid="ignore"):
                    h = h / z
            if self.diffuse_op == "ppr":
                h = (1 - self.alpha) * h + self.alpha * x
            feats.append(h)
        out = copy_graph(g)
        for i, h in enumerate(feats, 1):
            out.ndata[f"{self.out_feat_name}_{i}"] = h
        return out
