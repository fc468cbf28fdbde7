"""PyG's dense graph convolutions: ``DenseGCNConv``, ``DenseSAGEConv``, ``DenseGINConv``,
``DenseGraphConv`` and ``DenseGATConv``.

They take padded batches as :func:`arraygnn.utils.to_dense_batch` and
:func:`arraygnn.utils.to_dense_adj` make them: node features ``x`` ``[B, N, F]`` (or ``[N, F]``),
a dense adjacency ``adj`` ``[B, N, N]`` (or ``[N, N]``, shared by the batch; a batch of 1 on
either side broadcasts) and an optional ``mask`` ``[B, N]`` of real nodes; the output is
``[B, N, F_out]`` (``[1, N, F_out]`` for unbatched inputs, as PyG), rows of padded nodes
zeroed when ``mask`` is given.

How they run: batched matrix products (``xp.matmul`` over ``[B, N, N] x [B, N, F]``), no
loop over graphs. ``DenseGCNConv`` scales the features rather than the adjacency
(``D^-1/2 (A (D^-1/2 X W))``: no normalised ``[B, N, N]`` copy); ``DenseGATConv`` forms its
attention as ``[B, heads, N, N]`` (source-major, so its softmax reduces across rows, in
place); ``DenseGraphConv(aggr='max')`` forms ``[B, N, N, F]`` like PyG. ``adj`` is read in
``x``'s dtype; where a layer adds self-loops it writes them into a copy.

>>> import numpy as np
>>> conv = DenseGCNConv(4, 2, rng=0)
>>> x, adj = np.ones((3, 5, 4), np.float32), np.ones((3, 5, 5), np.float32)
>>> conv(x, adj, mask=np.ones((3, 5), bool)).shape
(3, 5, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, torch_rsqrt
from arraygnn.nn._attention import leaky_relu_
from arraygnn.nn._dense_input import (
    bmm,
    dense_inputs,
    row_sums,
    softmax,
    with_self_loops,
)
from arraygnn.nn._module import Module, layer_size, probability, real_number
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, glorot, matmul
from arraygnn.nn.sage_conv import l2_normalize

__all__ = ["DenseGCNConv", "DenseSAGEConv", "DenseGINConv", "DenseGraphConv", "DenseGATConv"]


def _masked(out: Any, mask: Any) -> Any:
    """``out`` (an array the layer made) with padded rows zeroed, in place."""
    if mask is None:
        return out
    if out.dtype == mask.dtype:
        out *= mask
        return out
    return out * mask


def _mean_divisor(adj: Any) -> Any:
    """PyG's ``adj.sum(-1, keepdim=True).clamp(min=1)``."""
    return get_namespace(adj).maximum(row_sums(adj)[..., None], 1)


class DenseGCNConv(Module):
    r"""PyG's ``DenseGCNConv``:
    :math:`X' = \hat D^{-1/2} \hat A \hat D^{-1/2} X \Theta + b`, with
    :math:`\hat A = A` whose diagonal is set to 1 (2 when ``improved``) when ``add_loop``,
    and :math:`\hat D_{ii} = \max(\sum_j \hat A_{ij}, 1)`.

    Args:
        in_channels: input size.
        out_channels: output size.
        improved: self-loops of weight 2 (default ``False``).
        bias: learn an additive bias.

    Call as ``conv(x, adj, mask=None, add_loop=True)``.

    Shapes:
        - input: x ``(B, N, in)`` or ``(N, in)``, adj ``(B, N, N)`` or ``(N, N)``, mask
          ``(B, N)``
        - output: ``(B, N, out)``

    Names (PyG): ``lin.weight`` ``(out, in)``, ``bias`` ``(out,)``.
    """

    _param_names = ("bias",)
    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        improved: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("DenseGCNConv", "in_channels", in_channels)
        self.out_channels = layer_size("DenseGCNConv", "out_channels", out_channels)
        self.improved = bool(improved)
        self.lin = Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=rng)
        self.bias = np.zeros(self.out_channels, dtype=dtype) if bias else None

    def __call__(self, x: Any, adj: Any, mask: Any = None, add_loop: bool = True) -> Any:
        layer = "DenseGCNConv"
        inp = dense_inputs(layer, x, adj, mask)
        _check_features(inp.x, self.in_channels, f"{layer} x", self.lin.weight)
        adj = with_self_loops(inp.adj, 2.0 if self.improved else 1.0) if add_loop else inp.adj
        xp = inp.xp
        d = torch_rsqrt(xp.maximum(row_sums(adj), 1))  # [B_adj, N]
        h = self.lin(inp.x)
        h = h * d[..., None]
        out = bmm(adj, h)
        out *= d[..., None]
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return _masked(out, inp.mask)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"


class DenseSAGEConv(Module):
    r"""PyG's ``DenseSAGEConv``: :math:`x_i' = W_1 x_i + W_2 \frac{\sum_j A_{ij} x_j}
    {\max(\sum_j A_{ij}, 1)}` (the mean over neighbours of a binary ``adj``), then
    optionally L2-normalised.

    Args:
        in_channels: input size.
        out_channels: output size.
        normalize: L2-normalise each output row (default ``False``).
        bias: a bias in ``lin_root`` (``lin_rel`` has none, as PyG).

    Call as ``conv(x, adj, mask=None)``.

    Shapes:
        - input: x ``(B, N, in)`` or ``(N, in)``, adj ``(B, N, N)`` or ``(N, N)``, mask
          ``(B, N)``
        - output: ``(B, N, out)``

    Names (PyG): ``lin_rel.weight``, ``lin_root.weight``, ``lin_root.bias``.
    """

    _child_names = ("lin_rel", "lin_root")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        normalize: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("DenseSAGEConv", "in_channels", in_channels)
        self.out_channels = layer_size("DenseSAGEConv", "out_channels", out_channels)
        self.normalize = bool(normalize)
        gen = _rng(rng)
        self.lin_rel = Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=gen)
        self.lin_root = Linear(self.in_channels, self.out_channels, bias, dtype=dtype, rng=gen)

    def __call__(self, x: Any, adj: Any, mask: Any = None) -> Any:
        layer = "DenseSAGEConv"
        inp = dense_inputs(layer, x, adj, mask)
        _check_features(inp.x, self.in_channels, f"{layer} x", self.lin_rel.weight)
        agg = bmm(inp.adj, inp.x)
        agg /= _mean_divisor(inp.adj)
        out = self.lin_rel(agg)
        out = add_bias(out, self.lin_root(inp.x))
        if self.normalize:
            out = l2_normalize(out)
        return _masked(out, inp.mask)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"


class DenseGINConv(Module):
    r"""PyG's ``DenseGINConv``: :math:`X' = \mathrm{nn}((1 + \epsilon) X + A X)` (without
    the :math:`(1 + \epsilon) X` term when ``add_loop=False``).

    Args:
        nn: the update network, an arraygnn ``Module`` (``Linear``, ``MLP``,
            ``Sequential``; ``from_torch`` / ``from_pyg`` convert torch ones) applied to
            ``[B, N, F]`` along the last dimension.
        eps: the ``eps`` value (a ``(1,)`` array, as PyG).
        train_eps: kept for PyG's signature (``eps`` is a parameter there; inference
            here).

    Call as ``conv(x, adj, mask=None, add_loop=True)``.

    Shapes:
        - input: x ``(B, N, F)`` or ``(N, F)``, adj ``(B, N, N)`` or ``(N, N)``, mask
          ``(B, N)``
        - output: ``(B, N, nn's output size)``

    Names (PyG): ``eps``, ``nn.*``.
    """

    _buffer_names = ("eps",)
    _child_names = ("nn",)

    def __init__(
        self, nn: Module, eps: float = 0.0, train_eps: bool = False, *, dtype: Any = np.float32
    ) -> None:
        if not isinstance(nn, Module):
            raise TypeError(f"DenseGINConv: nn must be an arraygnn.nn Module, got {type(nn)}")
        self.nn = nn
        self.initial_eps = real_number("DenseGINConv", "eps", eps)
        self.train_eps = bool(train_eps)
        self.eps = np.full(1, self.initial_eps, dtype=dtype)

    def __call__(self, x: Any, adj: Any, mask: Any = None, add_loop: bool = True) -> Any:
        inp = dense_inputs("DenseGINConv", x, adj, mask)
        out = bmm(inp.adj, inp.x)
        if add_loop:
            out += (1 + self.eps.astype(out.dtype)[0]) * inp.x
        out = self.nn(out)
        return _masked(out, inp.mask)

    def extra_repr(self) -> str:
        return f"nn={self.nn!r}"


class DenseGraphConv(Module):
    r"""PyG's ``DenseGraphConv``: :math:`x_i' = W_1 x_i + W_2\, \mathrm{aggr}_j (A_{ij}
    x_j)`.

    ``aggr='add'``: :math:`\sum_j A_{ij} x_j` (weighted); ``'mean'``: that over
    :math:`\max(\sum_j A_{ij}, 1)`; ``'max'``: as PyG, the feature-wise max of the ``x_j``
    with ``A_{ji} != 0`` (PyG reads the transposed adjacency there, and no weights), 0 where
    there is none (forms ``[B, N, N, F]``, as PyG).

    Args:
        in_channels: input size.
        out_channels: output size.
        aggr: ``'add'`` (default), ``'mean'`` or ``'max'``.
        bias: a bias in ``lin_rel`` (``lin_root`` has none, as PyG).

    Call as ``conv(x, adj, mask=None)``.

    Shapes:
        - input: x ``(B, N, in)`` or ``(N, in)``, adj ``(B, N, N)`` or ``(N, N)``, mask
          ``(B, N)``
        - output: ``(B, N, out)``

    Names (PyG): ``lin_rel.weight``, ``lin_rel.bias``, ``lin_root.weight``.
    """

    _child_names = ("lin_rel", "lin_root")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        aggr: str = "add",
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if aggr not in ("add", "mean", "max"):
            raise ValueError(f"DenseGraphConv: aggr must be 'add', 'mean' or 'max', got {aggr!r}")
        self.in_channels = layer_size("DenseGraphConv", "in_channels", in_channels)
        self.out_channels = layer_size("DenseGraphConv", "out_channels", out_channels)
        self.aggr = aggr
        gen = _rng(rng)
        self.lin_rel = Linear(self.in_channels, self.out_channels, bias, dtype=dtype, rng=gen)
        self.lin_root = Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=gen)

    def __call__(self, x: Any, adj: Any, mask: Any = None) -> Any:
        layer = "DenseGraphConv"
        inp = dense_inputs(layer, x, adj, mask)
        _check_features(inp.x, self.in_channels, f"{layer} x", self.lin_rel.weight)
        xp = inp.xp
        if self.aggr == "max" and inp.num_nodes == 0:
            agg = xp.zeros((inp.batch, *inp.x.shape[1:]), dtype=inp.x.dtype)
        elif self.aggr == "max":
            # out[b, i] = max over j with adj[b, j, i] != 0 of x[b, j] (PyG's layout)
            linked = (inp.adj != 0)[..., None]  # [B_adj, N_j, N_i, 1]
            neg_inf = x.dtype.type(-np.inf)
            agg = xp.where(linked, inp.x[:, :, None, :], neg_inf).max(axis=1)
            agg[agg == neg_inf] = 0
        else:
            agg = bmm(inp.adj, inp.x)
            if self.aggr == "mean":
                agg /= _mean_divisor(inp.adj)
        out = self.lin_rel(agg)
        out = add_bias(out, self.lin_root(inp.x))
        return _masked(out, inp.mask)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, aggr={self.aggr!r}"


class DenseGATConv(Module):
    r"""PyG's ``DenseGATConv``: GAT attention over the nonzero entries of ``adj``
    (diagonal set to 1 first when ``add_loop``):
    :math:`\alpha_{ij} = \mathrm{softmax}_j\, \mathrm{LeakyReLU}(a_s^\top \Theta x_j +
    a_d^\top \Theta x_i)` over :math:`j` with :math:`A_{ij} \ne 0` (the values of ``adj``
    do not weight it), :math:`x_i' = \sum_j \alpha_{ij} \Theta x_j` per head, heads
    concatenated or averaged, plus a bias. A row with no nonzero entry (``add_loop=False``)
    is NaN, as in PyG (torch's softmax of only ``-inf``); ``mask`` zeroes padded rows only
    where they are finite.

    Args:
        in_channels: input size.
        out_channels: size per head.
        heads: number of attention heads.
        concat: concatenate the heads (default) or average them.
        negative_slope: LeakyReLU slope.
        dropout: attention dropout (kept for PyG's signature; inference: none).
        bias: learn an additive bias.

    Call as ``conv(x, adj, mask=None, add_loop=True)``.

    Shapes:
        - input: x ``(B, N, in)`` or ``(N, in)``, adj ``(B, N, N)`` or ``(N, N)``, mask
          ``(B, N)``
        - output: ``(B, N, heads * out)`` (``concat``) or ``(B, N, out)``

    Names (PyG): ``lin.weight`` ``(heads * out, in)``, ``att_src`` / ``att_dst``
    ``(1, 1, heads, out)``, ``bias``.
    """

    _param_names = ("att_src", "att_dst", "bias")
    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DenseGATConv"
        self.in_channels = layer_size(layer, "in_channels", in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        self.heads = layer_size(layer, "heads", heads, minimum=1)
        self.concat = bool(concat)
        self.negative_slope = real_number(layer, "negative_slope", negative_slope)
        self.dropout = probability(layer, "dropout", dropout)
        gen = _rng(rng)
        h, c = self.heads, self.out_channels
        self.lin = Linear(self.in_channels, h * c, False, dtype=dtype, rng=gen)
        self.att_src = glorot((1, 1, h, c), gen, dtype)
        self.att_dst = glorot((1, 1, h, c), gen, dtype)
        self.bias = np.zeros(h * c if self.concat else c, dtype=dtype) if bias else None

    def __call__(self, x: Any, adj: Any, mask: Any = None, add_loop: bool = True) -> Any:
        layer = "DenseGATConv"
        inp = dense_inputs(layer, x, adj, mask)
        _check_features(inp.x, self.in_channels, f"{layer} x", self.lin.weight)
        adj = with_self_loops(inp.adj, 1.0) if add_loop else inp.adj
        xp = inp.xp
        b_x, n = inp.x.shape[:2]
        h, c = self.heads, self.out_channels
        flat = self.lin(inp.x)  # [B_x, N, H * C]
        # both attention terms as one product with a block-diagonal [H * C, 2H] matrix
        att = xp.zeros((h * c, 2 * h), dtype=self.att_src.dtype)
        rows = xp.arange(h * c)
        att[rows, rows // c] = self.att_src.reshape(-1)
        att[rows, h + rows // c] = self.att_dst.reshape(-1)
        scores = matmul(flat, att).transpose(0, 2, 1)  # [B_x, 2H, N]
        a_src, a_dst = scores[:, :h], scores[:, h:]
        feat = flat.reshape(b_x, n, h, c)
        # logits[b, h, j, i] for the edge j -> i: the softmax then reduces over axis -2,
        # elementwise across rows (NumPy's reductions along a short last axis are slow)
        logits = leaky_relu_(a_src[..., :, None] + a_dst[..., None, :], self.negative_slope)
        dtype = logits.dtype.type
        no_edge = xp.where(adj == 0, dtype(-np.inf), dtype(0)).transpose(0, 2, 1)[:, None]
        if logits.shape[0] == no_edge.shape[0] or no_edge.shape[0] == 1:
            logits += no_edge
        else:  # one x shared by a batch of adjacencies
            logits = logits + no_edge
        alpha = softmax(logits, axis=-2, inplace=True)  # [B, H, N_j, N_i]
        out = bmm(alpha.transpose(0, 1, 3, 2), feat.transpose(0, 2, 1, 3))  # [B, H, N, C]
        out = out.transpose(0, 2, 1, 3)  # [B, N, H, C]
        out = out.reshape(out.shape[0], n, h * c) if self.concat else out.mean(axis=2)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return _masked(out, inp.mask)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, heads={self.heads}"
