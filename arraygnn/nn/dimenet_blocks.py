"""The blocks of PyG's ``DimeNet`` / ``DimeNetPlusPlus`` (``torch_geometric.nn.models.
dimenet``): ``EmbeddingBlock``, ``ResidualLayer``, ``InteractionBlock`` /
``InteractionPPBlock`` and ``OutputBlock`` / ``OutputPPBlock``, at inference, with PyG's
parameter names. The models and ``triplets`` are in :mod:`arraygnn.nn.dimenet`.

How they run: the triplet sums run over the triplet graph's CSR (edge ``k -> j`` to
edge ``j -> i``). DimeNet's bilinear layer is applied to the edges first (``[E,
num_bilinear, hidden]``) and summed per triplet by one fused SpMM with the spherical basis
as per-head weights, so ``E`` (not ``T``) products of size ``hidden^2 num_bilinear`` run
and no ``[T, ...]`` message exists. DimeNet++ forms its ``[T, int_emb_size]`` messages
(the basis it scales them by is that size already) in slot order and sums contiguous rows.
``EmbeddingBlock``'s ``lin(cat[x_i, x_j, rbf])`` projects the atoms and gathers.

>>> import numpy as np
>>> block = ResidualLayer(4, rng=0)
>>> block(np.ones((3, 4), np.float32)).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._dgl_common import silu
from arraygnn.nn._gt_input import check_floats
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import Linear, _ModuleList, _rng, add_bias, matmul, resolve_act

__all__ = [
    "EmbeddingBlock",
    "ResidualLayer",
    "InteractionBlock",
    "InteractionPPBlock",
    "OutputBlock",
    "OutputPPBlock",
]

#: PyG's ``Embedding(95, hidden_channels)``: atomic numbers ``0 .. 94``
NUM_ELEMENTS = 95
_INITIALIZERS = ("zeros", "glorot_orthogonal")


def _act(model: str, act: Any) -> Any:
    """PyG's ``activation_resolver`` for DimeNet: ``'swish'`` (the default) / ``'silu'``
    is ``x * sigmoid(x)``; other names as :func:`arraygnn.nn.linear.resolve_act`."""
    if isinstance(act, str) and act.lower() in ("swish", "silu"):
        return silu
    out = resolve_act(model, act, None)
    if out is None:
        raise ValueError(f"{model}: act must be an activation, got None")
    return out


class EmbeddingBlock(Module):
    """PyG's ``EmbeddingBlock(num_radial, hidden_channels, act)``: ``act(lin(cat[emb(z)_i,
    emb(z)_j, act(lin_rbf(rbf))]))`` per edge ``j -> i`` (``lin`` split into its three
    column blocks: the two atom parts are applied to the atoms and gathered).

    Call as ``block(z, rbf, i, j)`` -> ``(E, hidden)``. Names: ``emb.weight`` ``(95,
    hidden)``, ``lin_rbf.*``, ``lin.*`` ``(hidden, 3 hidden)``.
    """

    _child_names = ("emb", "lin_rbf", "lin")

    def __init__(
        self,
        num_radial: int,
        hidden_channels: int,
        act: Any = "swish",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self.act = _act("EmbeddingBlock", act)
        self.hidden_channels = hidden_channels
        self.emb = _Embedding(NUM_ELEMENTS, hidden_channels, gen, dtype)
        self.emb.weight = gen.uniform(-np.sqrt(3), np.sqrt(3), self.emb.weight.shape).astype(dtype)
        self.lin_rbf = Linear(num_radial, hidden_channels, dtype=dtype, rng=gen)
        self.lin = Linear(3 * hidden_channels, hidden_channels, dtype=dtype, rng=gen)

    def __call__(self, z: Any, rbf: Any, i: Any, j: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops._common import check_index

        layer = "EmbeddingBlock"
        check_index(f"{layer}: z", z, NUM_ELEMENTS)
        check_index(f"{layer}: i", i, int(z.shape[0]))
        check_index(f"{layer}: j", j, int(z.shape[0]))
        if j.shape != i.shape:
            raise ValueError(f"{layer}: i and j must have one shape, got {i.shape} and {j.shape}")
        check_floats(layer, "rbf", rbf, (int(i.shape[0]), int(self.lin_rbf.weight.shape[1])))
        h = self.hidden_channels
        w = self.lin.weight
        x = ops.gather(self.emb.weight, z)
        out = matmul(self.act(self.lin_rbf(rbf)), w[:, 2 * h :].T)
        out = add_bias(out, self.lin.bias)
        out += ops.gather(matmul(x, w[:, :h].T), i)
        out += ops.gather(matmul(x, w[:, h : 2 * h].T), j)
        return self.act(out)


class ResidualLayer(Module):
    """PyG's ``ResidualLayer(hidden_channels, act)``: ``x + act(lin2(act(lin1(x))))``."""

    _child_names = ("lin1", "lin2")

    def __init__(
        self, hidden_channels: int, act: Any = "swish", *, dtype: Any = np.float32, rng: Any = None
    ) -> None:
        gen = _rng(rng)
        self.act = _act("ResidualLayer", act)
        self.lin1 = Linear(hidden_channels, hidden_channels, dtype=dtype, rng=gen)
        self.lin2 = Linear(hidden_channels, hidden_channels, dtype=dtype, rng=gen)

    def __call__(self, x: Any) -> Any:
        return x + self.act(self.lin2(self.act(self.lin1(x))))


class _SkipLayers(Module):
    """The residual tail both interaction blocks share: ``layers_before_skip``, ``lin``
    with the skip connection, ``layers_after_skip``."""

    def _init_skip(
        self, hidden: int, before: int, after: int, act: Any, dtype: Any, gen: Any
    ) -> None:
        self.layers_before_skip = _ModuleList(
            [ResidualLayer(hidden, act, dtype=dtype, rng=gen) for _ in range(before)]
        )
        self.lin = Linear(hidden, hidden, dtype=dtype, rng=gen)
        self.layers_after_skip = _ModuleList(
            [ResidualLayer(hidden, act, dtype=dtype, rng=gen) for _ in range(after)]
        )

    def _triplet_input(
        self, x: Any, rbf: Any, sbf: Any, idx_kj: Any, idx_ji: Any, csr: Any, widths: tuple
    ) -> tuple[int, Any]:
        """Checks the inputs of an interaction block (``widths``: ``rbf``'s and ``sbf``'s
        columns), each error naming the block and the argument; ``(E, csr)`` with the
        triplet graph's CSR built here when the caller keeps none (the ids are checked
        then; a given CSR must have the sizes, the block reads only it)."""
        from arraygnn import ops
        from arraygnn.ops._common import check_index

        layer = type(self).__name__
        hid = int(self.lin.weight.shape[1])
        check_floats(layer, "x", x, (None, hid))  # the edge messages
        e = int(x.shape[0])
        check_floats(layer, "rbf", rbf, (e, widths[0]))
        size = e if csr is None else None
        check_index(f"{layer}: idx_kj", idx_kj, size)
        check_index(f"{layer}: idx_ji", idx_ji, size)
        t = int(idx_kj.shape[0])
        if tuple(idx_ji.shape) != (t,):
            raise ValueError(
                f"{layer}: idx_ji must have idx_kj's shape ({t},), got {tuple(idx_ji.shape)}"
            )
        check_floats(layer, "sbf", sbf, (t, widths[1]))
        if csr is None:
            return e, ops.to_csr((idx_kj, idx_ji), e, e)
        sizes = (
            (csr.num_src_nodes, csr.num_dst_nodes, csr.num_edges)
            if isinstance(csr, ops.CSR)
            else None
        )
        if sizes != (e, e, t):
            raise ValueError(
                f"{layer}: csr must be the triplet graph ops.to_csr((idx_kj, idx_ji), {e}, "
                f"{e}) ({t} triplets), got {csr!r}"
            )
        return e, csr

    def _skip(self, h: Any, x: Any) -> Any:
        for layer in self.layers_before_skip:
            h = layer(h)
        h = self.act(self.lin(h)) + x
        for layer in self.layers_after_skip:
            h = layer(h)
        return h


class InteractionBlock(_SkipLayers):
    """PyG's DimeNet ``InteractionBlock(hidden_channels, num_bilinear, num_spherical,
    num_radial, num_before_skip, num_after_skip, act)``.

    Call as ``block(x, rbf, sbf, idx_kj, idx_ji, csr=None)`` with ``x`` ``(E, hidden)``
    edge messages, ``rbf`` ``(E, num_radial)``, ``sbf`` ``(T, num_spherical *
    num_radial)``; ``csr``: the triplet graph's ``ops.to_csr((idx_kj, idx_ji), E, E)``
    when the caller keeps one. Names: ``lin_rbf``, ``lin_sbf`` (no bias), ``lin_kj``,
    ``lin_ji``, ``W`` ``(hidden, num_bilinear, hidden)``, ``layers_before_skip.*``,
    ``lin``, ``layers_after_skip.*``.
    """

    _param_names = ("W",)
    _child_names = (
        "lin_rbf", "lin_sbf", "lin_kj", "lin_ji", "layers_before_skip", "lin",
        "layers_after_skip",
    )  # fmt: skip

    def __init__(
        self,
        hidden_channels: int,
        num_bilinear: int,
        num_spherical: int,
        num_radial: int,
        num_before_skip: int,
        num_after_skip: int,
        act: Any = "swish",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        hid = layer_size("InteractionBlock", "hidden_channels", hidden_channels, minimum=1)
        nb = layer_size("InteractionBlock", "num_bilinear", num_bilinear, minimum=1)
        self.act = _act("InteractionBlock", act)
        self.lin_rbf = Linear(num_radial, hid, bias=False, dtype=dtype, rng=gen)
        self.lin_sbf = Linear(num_spherical * num_radial, nb, bias=False, dtype=dtype, rng=gen)
        self.lin_kj = Linear(hid, hid, dtype=dtype, rng=gen)
        self.lin_ji = Linear(hid, hid, dtype=dtype, rng=gen)
        self.W = (gen.standard_normal((hid, nb, hid)) * (2 / hid)).astype(dtype)
        self._init_skip(hid, num_before_skip, num_after_skip, self.act, dtype, gen)

    def __call__(
        self, x: Any, rbf: Any, sbf: Any, idx_kj: Any, idx_ji: Any, csr: Any = None
    ) -> Any:
        from arraygnn import ops

        widths = (int(self.lin_rbf.weight.shape[1]), int(self.lin_sbf.weight.shape[1]))
        e, csr = self._triplet_input(x, rbf, sbf, idx_kj, idx_ji, csr, widths)
        hid, nb = int(self.W.shape[0]), int(self.W.shape[1])
        x_ji = self.act(self.lin_ji(x))
        x_kj = self.act(self.lin_kj(x)) * self.lin_rbf(rbf)
        # y[e, b, o] = sum_l x_kj[e, l] W[o, b, l]: the bilinear layer on the edges
        w = self.W.transpose(2, 1, 0).reshape(hid, nb * hid)
        y = matmul(x_kj, w).reshape(e, nb, hid)
        agg = ops.spmm(csr, y, edge_weight=self.lin_sbf(sbf), num_dst_nodes=e).sum(axis=1)
        return self._skip(x_ji + agg, x)


class InteractionPPBlock(_SkipLayers):
    """PyG's ``InteractionPPBlock(hidden_channels, int_emb_size, basis_emb_size,
    num_spherical, num_radial, num_before_skip, num_after_skip, act)`` (DimeNet++).

    Call as :class:`InteractionBlock`. Names: ``lin_rbf1``, ``lin_rbf2``, ``lin_sbf1``,
    ``lin_sbf2``, ``lin_down``, ``lin_up`` (no bias), ``lin_kj``, ``lin_ji``,
    ``layers_before_skip.*``, ``lin``, ``layers_after_skip.*``.
    """

    _child_names = (
        "lin_rbf1", "lin_rbf2", "lin_sbf1", "lin_sbf2", "lin_kj", "lin_ji", "lin_down",
        "lin_up", "layers_before_skip", "lin", "layers_after_skip",
    )  # fmt: skip

    def __init__(
        self,
        hidden_channels: int,
        int_emb_size: int,
        basis_emb_size: int,
        num_spherical: int,
        num_radial: int,
        num_before_skip: int,
        num_after_skip: int,
        act: Any = "swish",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        hid, emb, basis = hidden_channels, int_emb_size, basis_emb_size
        self.act = _act("InteractionPPBlock", act)
        kw = {"bias": False, "dtype": dtype, "rng": gen}
        self.lin_rbf1 = Linear(num_radial, basis, **kw)
        self.lin_rbf2 = Linear(basis, hid, **kw)
        self.lin_sbf1 = Linear(num_spherical * num_radial, basis, **kw)
        self.lin_sbf2 = Linear(basis, emb, **kw)
        self.lin_kj = Linear(hid, hid, dtype=dtype, rng=gen)
        self.lin_ji = Linear(hid, hid, dtype=dtype, rng=gen)
        self.lin_down = Linear(hid, emb, **kw)
        self.lin_up = Linear(emb, hid, **kw)
        self._init_skip(hid, num_before_skip, num_after_skip, self.act, dtype, gen)

    def __call__(
        self, x: Any, rbf: Any, sbf: Any, idx_kj: Any, idx_ji: Any, csr: Any = None
    ) -> Any:
        from arraygnn import ops

        widths = (int(self.lin_rbf1.weight.shape[1]), int(self.lin_sbf1.weight.shape[1]))
        _, csr = self._triplet_input(x, rbf, sbf, idx_kj, idx_ji, csr, widths)
        x_ji = self.act(self.lin_ji(x))
        x_kj = self.act(self.lin_kj(x)) * self.lin_rbf2(self.lin_rbf1(rbf))
        x_kj = self.act(self.lin_down(x_kj))
        sbf = self.lin_sbf2(self.lin_sbf1(sbf))
        # the messages x_kj[k -> j] * sbf in the CSR's slot order, summed per contiguous
        # row (3x faster here than an SpMM with one "head" per channel: sbf is [T, F]
        # already, the message is one more)
        msg = ops.gather(x_kj, csr.indices)
        msg *= sbf if csr.perm_is_identity else ops.gather(sbf, csr.perm)
        agg = ops.segment(msg, csr.indptr)
        return self._skip(x_ji + self.act(self.lin_up(agg)), x)


class OutputBlock(Module):
    """PyG's DimeNet ``OutputBlock(num_radial, hidden_channels, out_channels, num_layers,
    act, output_initializer='zeros')``: ``lin(act(lins(sum over edges into the atom of
    lin_rbf(rbf) * x)))``.

    Call as ``block(x, rbf, i, num_nodes)`` -> ``(num_nodes, out_channels)``. Names:
    ``lin_rbf`` (no bias), ``lins.*``, ``lin`` (no bias; zeros when ``output_initializer
    == 'zeros'``).
    """

    _child_names = ("lin_rbf", "lins", "lin")
    _up: int | None = None  # DimeNet++: the up-projection's width

    def __init__(
        self,
        num_radial: int,
        hidden_channels: int,
        out_channels: int,
        num_layers: int,
        act: Any = "swish",
        output_initializer: str = "zeros",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = type(self).__name__
        if output_initializer not in _INITIALIZERS:
            raise ValueError(
                f"{name}: output_initializer must be one of {_INITIALIZERS}, got "
                f"{output_initializer!r}"
            )
        gen = _rng(rng)
        self.act = _act(name, act)
        self.lin_rbf = Linear(num_radial, hidden_channels, bias=False, dtype=dtype, rng=gen)
        width = hidden_channels if self._up is None else self._up
        if self._up is not None:
            self.lin_up = Linear(hidden_channels, width, bias=False, dtype=dtype, rng=gen)
        self.lins = _ModuleList(
            [Linear(width, width, dtype=dtype, rng=gen) for _ in range(num_layers)]
        )
        self.lin = Linear(width, out_channels, bias=False, dtype=dtype, rng=gen)
        if output_initializer == "zeros":
            self.lin.weight[...] = 0

    def __call__(self, x: Any, rbf: Any, i: Any, num_nodes: int) -> Any:
        from arraygnn import ops
        from arraygnn.ops._common import check_index, check_size

        layer = type(self).__name__
        n = check_size(f"{layer}: num_nodes", num_nodes)
        check_index(f"{layer}: i", i, n)
        e, (hid, width) = int(i.shape[0]), self.lin_rbf.weight.shape
        check_floats(layer, "x", x, (e, int(hid)))
        check_floats(layer, "rbf", rbf, (e, int(width)))
        x = ops.scatter(self.lin_rbf(rbf) * x, i, n)
        if self._up is not None:
            x = self.lin_up(x)
        for lin in self.lins:
            x = self.act(lin(x))
        return self.lin(x)


class OutputPPBlock(OutputBlock):
    """PyG's ``OutputPPBlock(num_radial, hidden_channels, out_emb_channels, out_channels,
    num_layers, act, output_initializer='zeros')`` (DimeNet++): :class:`OutputBlock` with
    the up-projection ``lin_up`` (no bias) to ``out_emb_channels`` after the sum."""

    _child_names = ("lin_rbf", "lin_up", "lins", "lin")

    def __init__(
        self,
        num_radial: int,
        hidden_channels: int,
        out_emb_channels: int,
        out_channels: int,
        num_layers: int,
        act: Any = "swish",
        output_initializer: str = "zeros",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self._up = layer_size("OutputPPBlock", "out_emb_channels", out_emb_channels, 1)
        super().__init__(
            num_radial, hidden_channels, out_channels, num_layers, act, output_initializer,
            dtype=dtype, rng=rng,
        )  # fmt: skip
