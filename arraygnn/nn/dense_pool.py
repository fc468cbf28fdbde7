"""PyG's dense poolings: ``dense_diff_pool``, ``dense_mincut_pool`` and ``DMoNPooling``.

Each coarsens padded batches (``x`` ``[B, N, F]``, ``adj`` ``[B, N, N]``, ``mask`` ``[B, N]``,
as :func:`arraygnn.utils.to_dense_batch` / :func:`arraygnn.utils.to_dense_adj` make them)
with a soft assignment ``S = softmax(s)`` ``[B, N, K]``: ``out = S^T X`` ``[B, K, F]``,
``out_adj = S^T A S`` ``[B, K, K]``, plus the method's auxiliary losses as 0-d arrays. The
unbatched forms (``[N, F]``, ``[N, N]``, ``[N, K]``) give a batch of one, as PyG.

How they run: batched matrix products (``xp.matmul``), no loop over graphs; the losses
reduce ``[B, K, K]`` products (``S^T D S``'s trace is read as ``sum_n d_n |S_n|^2``, without
forming the diagonal degree matrix). Losses that divide by zero (a graph without edges, a
graph all of whose nodes are masked) are NaN or inf, as in PyG.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x, adj = rng.random((2, 5, 3)), (rng.random((2, 5, 5)) < 0.5).astype(float)
>>> out, out_adj, link_loss, ent_loss = dense_diff_pool(x, adj, rng.random((2, 5, 4)))
>>> out.shape, out_adj.shape, link_loss.shape
((2, 4, 3), (2, 4, 4), ())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dense_input import (
    DenseInput,
    bmm,
    check_float_array,
    dense_inputs,
    row_sums,
    softmax,
)
from arraygnn.nn._module import Module, layer_size, probability, real_number
from arraygnn.nn.linear import MLP, _check_features, _selu

__all__ = ["dense_diff_pool", "dense_mincut_pool", "DMoNPooling"]

#: PyG's guard in the coarsened adjacency's degree normalisation
EPS = 1e-15


def _pool_inputs(
    where: str, x: Any, adj: Any, s: Any, mask: Any, *, has_s: bool = True
) -> tuple[DenseInput, Any]:
    """Checked, batched ``(inputs, s)``; ``s`` ``[B, N, K]`` (``[N, K]``) in ``x``'s
    dtype (``None`` without ``has_s``). ``adj`` may be shared (a batch of 1), ``x`` and
    ``s`` may not."""
    inp = dense_inputs(where, x, adj, mask)
    if inp.x.shape[0] != inp.batch:
        raise ValueError(
            f"{where}: x has {inp.x.shape[0]} graph(s) but adj {inp.batch}; give x and s "
            "one entry per graph"
        )
    if not has_s:
        return inp, None
    check_float_array(where, "s", s, (2, 3))
    get_namespace(x, s)
    s3 = s[None] if s.ndim == 2 else s
    if s3.shape[:2] != inp.x.shape[:2]:
        raise ValueError(
            f"{where}: s must be [B, N, K] with x's B and N ({list(inp.x.shape[:2])}), got "
            f"shape {tuple(s.shape)}"
        )
    return inp, s3.astype(inp.x.dtype, copy=False)


def _masked(inp: DenseInput, s: Any) -> tuple[Any, Any]:
    """``(x * mask, s * mask)``; ``s`` is an array made here (multiplied in place)."""
    if inp.mask is None:
        return inp.x, s
    s *= inp.mask
    return inp.x * inp.mask, s


def _coarsen(x: Any, adj: Any, s: Any) -> tuple[Any, Any, Any]:
    """``(S^T, S^T X, S^T A S)``."""
    s_t = s.transpose(0, 2, 1)
    return s_t, bmm(s_t, x), bmm(bmm(s_t, adj), s)


def _trace(a: Any) -> Any:
    """PyG's ``_rank3_trace``: the traces of a ``[B, K, K]`` stack, ``[B]``."""
    return get_namespace(a).trace(a, axis1=1, axis2=2)


def _frobenius(a: Any, axes: tuple[int, ...] | None) -> Any:
    xp = get_namespace(a)
    return xp.sqrt((a * a).sum(axis=axes))


def _ortho_loss(s: Any, s_t: Any) -> Any:
    """``mean_b || S^T S / ||S^T S||_F - I / ||I||_F ||_F`` (PyG's orthogonality term)."""
    xp = get_namespace(s)
    ss = bmm(s_t, s)
    k = ss.shape[-1]
    eye = xp.eye(k, dtype=ss.dtype)
    eye_norm = ss.dtype.type(np.sqrt(k))
    diff = ss / _frobenius(ss, (-1, -2))[:, None, None] - eye / eye_norm
    return _mean(_frobenius(diff, (-1, -2)))


def _mean(a: Any, count: int | None = None) -> Any:
    """``a.sum() / count`` (default ``a.size``) as a 0-d array: NaN for nothing, as
    torch's ``mean`` (NumPy's would warn)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return get_namespace(a).asarray(a.sum() / a.dtype.type(a.size if count is None else count))


def _normalized_out_adj(out_adj: Any) -> Any:
    """PyG's last step: zero the diagonal (in place: ``out_adj`` is made here), then
    ``D^-1/2 A D^-1/2`` with ``D^1/2 + EPS``."""
    xp = get_namespace(out_adj)
    k = out_adj.shape[-1]
    idx = xp.arange(k)
    out_adj[:, idx, idx] = 0
    d = xp.sqrt(row_sums(out_adj))[:, None] + out_adj.dtype.type(EPS)  # [B, 1, K]
    return out_adj / d / d.transpose(0, 2, 1)


def dense_diff_pool(
    x: Any, adj: Any, s: Any, mask: Any = None, normalize: bool = True
) -> tuple[Any, Any, Any, Any]:
    r"""PyG's ``dense_diff_pool`` (Ying et al., 2018).

    ``S = softmax(s)`` (rows of padded nodes zeroed by ``mask``, as are those of ``x``),
    ``out = S^T X``, ``out_adj = S^T A S``, ``link_loss = ||A - S S^T||_F`` (divided by
    ``adj.size`` when ``normalize`` is ``True``) and ``ent_loss``, the mean over nodes of
    the entropy of ``S``'s rows.

    Args:
        x: node features ``(B, N, F)`` or ``(N, F)``.
        adj: adjacency ``(B, N, N)`` or ``(N, N)`` (read in ``x``'s dtype).
        s: assignment logits ``(B, N, K)`` or ``(N, K)``.
        mask: ``(B, N)`` real nodes (optional).
        normalize: divide the link loss by the number of adjacency entries (only when
            exactly ``True``, as PyG).

    Returns:
        ``(out (B, K, F), out_adj (B, K, K), link_loss, ent_loss)``, the losses 0-d arrays.
    """
    where = "dense_diff_pool"
    inp, s = _pool_inputs(where, x, adj, s, mask)
    s = softmax(s)
    xm, s = _masked(inp, s)
    s_t, out, out_adj = _coarsen(xm, inp.adj, s)
    link = inp.adj - bmm(s, s_t)
    xp = inp.xp
    with np.errstate(divide="ignore", invalid="ignore"):  # no nodes: NaN, as torch
        link_loss = _frobenius(link, None)
        if normalize is True:
            link_loss = link_loss / link.dtype.type(inp.adj.size)
        link_loss = xp.asarray(link_loss)  # a 0-d array (NumPy's scalar arithmetic drops it)
        entropy = -s * xp.log(s + s.dtype.type(1e-15))
        ent_loss = _mean(entropy, entropy.shape[0] * entropy.shape[1])  # mean of row sums
    return out, out_adj, link_loss, ent_loss


def dense_mincut_pool(
    x: Any, adj: Any, s: Any, mask: Any = None, temp: float = 1.0
) -> tuple[Any, Any, Any, Any]:
    r"""PyG's ``dense_mincut_pool`` (Bianchi et al., 2020).

    ``S = softmax(s / temp)`` (rows of padded nodes zeroed by ``mask``, as are those of
    ``x``), ``out = S^T X``, ``out_adj = S^T A S`` with its diagonal zeroed and normalised
    by its degrees (``D^-1/2 A D^-1/2``), ``mincut_loss = -mean_b tr(S^T A S) / tr(S^T D S)``
    and ``ortho_loss = mean_b ||S^T S / ||S^T S||_F - I / sqrt(K)||_F``.

    Args:
        x: node features ``(B, N, F)`` or ``(N, F)``.
        adj: adjacency ``(B, N, N)`` or ``(N, N)`` (read in ``x``'s dtype).
        s: assignment logits ``(B, N, K)`` or ``(N, K)``.
        mask: ``(B, N)`` real nodes (optional).
        temp: softmax temperature, a real number: nonzero and not NaN (PyG's 0 gives
            NaN everywhere; negative values are kept, as PyG).

    Returns:
        ``(out (B, K, F), out_adj (B, K, K), mincut_loss, ortho_loss)``, the losses 0-d
        arrays.
    """
    where = "dense_mincut_pool"
    temp = real_number(where, "temp", temp)
    if temp == 0 or np.isnan(temp):
        raise ValueError(f"{where}: temp must be a nonzero number, got {temp!r}")
    inp, s = _pool_inputs(where, x, adj, s, mask)
    s = softmax(s / s.dtype.type(temp) if temp != 1.0 else s)
    xm, s = _masked(inp, s)
    s_t, out, out_adj = _coarsen(xm, inp.adj, s)
    with np.errstate(divide="ignore", invalid="ignore"):
        mincut_num = _trace(out_adj)
        degrees = row_sums(inp.adj)  # [B_adj, N]
        mincut_den = row_sums(row_sums(s * s) * degrees)  # tr(S^T D S)
        mincut_loss = _mean(-(mincut_num / mincut_den))
        ortho_loss = _ortho_loss(s, s_t)
        out_adj = _normalized_out_adj(out_adj)
    return out, out_adj, mincut_loss, ortho_loss


class DMoNPooling(Module):
    r"""PyG's ``DMoNPooling`` (Tsitsulin et al., 2022): assignments from an MLP,
    ``S = softmax(mlp(x))`` ``[B, N, k]`` (rows of padded nodes zeroed), pooled features
    ``selu(S^T X)``, coarsened adjacency ``S^T A S`` (diagonal zeroed, degree-normalised
    as in ``dense_mincut_pool``) and three losses: spectral (modularity), orthogonality
    and cluster-size. The cluster loss keeps PyG's broadcast of ``[B]`` cluster norms
    against ``[B, 1]`` node counts (a mean over ``B x B`` terms).

    Args:
        channels: the MLP's input size, or its sizes before the output
            (``[in, hidden...]``; PyG's ``channels``).
        k: number of clusters.
        dropout: dropout on the MLP's output (kept for PyG's signature; inference: none).

    Call as ``pool(x, adj, mask=None)``; returns
    ``(s, out, out_adj, spectral_loss, ortho_loss, cluster_loss)``.

    Shapes:
        - input: x ``(B, N, F)`` or ``(N, F)``, adj ``(B, N, N)`` or ``(N, N)``, mask
          ``(B, N)``
        - output: s ``(B, N, k)``, out ``(B, k, F)``, out_adj ``(B, k, k)``, three 0-d losses

    Names (PyG): ``mlp.lins.i.weight``, ``mlp.lins.i.bias`` (a PyG ``MLP`` without
    activation or norm).

    >>> import numpy as np
    >>> pool = DMoNPooling([3, 8], k=2, rng=0)
    >>> x, adj = np.ones((4, 5, 3), np.float32), np.ones((4, 5, 5), np.float32)
    >>> [a.shape for a in pool(x, adj)[:3]]
    [(4, 5, 2), (4, 2, 3), (4, 2, 2)]
    """

    _child_names = ("mlp",)

    def __init__(
        self,
        channels: int | Sequence[int],
        k: int,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DMoNPooling"
        channels = [channels] if not isinstance(channels, (list, tuple)) else list(channels)
        channels = [layer_size(layer, f"channels[{i}]", c) for i, c in enumerate(channels)]
        self.k = layer_size(layer, "k", k, minimum=1)
        self.dropout = probability(layer, "dropout", dropout)
        self.mlp = MLP([*channels, self.k], act=None, norm=None, dtype=dtype, rng=rng)

    def __call__(self, x: Any, adj: Any, mask: Any = None) -> tuple[Any, ...]:
        where = "DMoNPooling"
        inp, _ = _pool_inputs(where, x, adj, None, mask, has_s=False)
        _check_features(inp.x, self.mlp.channel_list[0], f"{where} x", self.mlp.lins[0].weight)
        xp = inp.xp
        s = softmax(self.mlp(inp.x))
        batch, n = inp.x.shape[:2]
        c = s.shape[-1]
        mask = inp.mask if inp.mask is not None else xp.ones((batch, n, 1), dtype=inp.x.dtype)
        xm = inp.x * mask
        s *= mask
        s_t, pooled, out_adj = _coarsen(xm, inp.adj, s)
        out = _selu(pooled)
        with np.errstate(divide="ignore", invalid="ignore"):
            degrees = row_sums(inp.adj)[..., None] * mask  # [B, N, 1]
            m = degrees.sum(axis=(1, 2)) / 2  # [B]
            ca = bmm(s_t, degrees)  # [B, c, 1]
            cb = bmm(degrees.transpose(0, 2, 1), s)  # [B, 1, c]
            normalizer = bmm(ca, cb) / 2 / m[:, None, None]
            spectral_loss = _mean(-_trace(out_adj - normalizer) / 2 / m)
            ortho_loss = _ortho_loss(s, s_t)
            cluster_norm = _frobenius(s.sum(axis=1), (1,))  # [B]
            # [B] / [B, 1] -> [B, B], as PyG's torch.norm(...) / mask.sum(dim=1)
            cluster = cluster_norm / mask.sum(axis=1) * s.dtype.type(np.sqrt(c)) - 1
            cluster_loss = _mean(cluster)
            out_adj = _normalized_out_adj(out_adj)
        return s, out, out_adj, spectral_loss, ortho_loss, cluster_loss

    def extra_repr(self) -> str:
        return f"{self.mlp.channel_list[0]}, num_clusters={self.k}"
