"""DGL's ``TWIRLSConv``: graph propagation by unfolding iteratively reweighted least squares
(Yang et al., "Graph Neural Networks Inspired by Classical Iterative Algorithms").

``MLP_before -> unfolding -> MLP_after``. The unfolding runs ``prop_step`` steps of
``Y <- (1 - a) Y + a lam D~^-1/2 A_w D~^-1/2 Y + a D~^-1 X`` with ``D~ = lam D + 1 - lam``
(``precond=True``; without it ``Y <- (1 - a lam - a) Y + a lam D^-1/2 A_w D^-1/2 Y + a X``)
on the graph with its self-loops replaced by one per node; with ``attention`` (after
``prop_step // 2`` steps) or ``attn_bef`` (before the first) the edge weights become
``1 / max(tau, (relu(|y_u - y_v|^2) + 1e-7)^(1 - p/2))`` (``inf`` beyond ``T > 0``) plus
``1e-9``, and ``D`` their weighted in-degrees. Dropouts are the identity at inference.

How it runs: the looped graph's CSR is built once per call; the edge weights stay in its
slot order; each step is one weighted SpMM, each reweighting two SDDMMs (``u_dot_v`` and
``u_add_v`` of the squared norms, as DGL) and one segment sum. No ``[E, F]`` array. As DGL,
a layer without attention, MLP before or input dropout caches its unfolding (DGL's
transductive shortcut) and reuses it while the same graph and feature objects are passed
again (and ``unfolding.etas`` is the same array); other inputs recompute it (DGL reuses the
first call's unfolding for any input). ``layer.to(...)`` / ``astype`` clear the cache, and
``etas`` loaded by ``load_state_dict`` (a new array) recompute it; so does
``layer.cached_unfolding = None`` after changing the arrays in place.

>>> import numpy as np
>>> conv = TWIRLSConv(4, 2, 8, prop_step=4, attention=True, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule, homogeneous_input
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.linear import (
    BatchNorm,
    LayerNorm,
    Linear,
    _check_features,
    _ModuleList,
    _relu,
    _rng,
)

__all__ = ["TWIRLSConv"]

_NORMS = ("none", "batch", "layer")


class _TWIRLSMLP(DGLModule):
    """DGL's TWIRLS ``MLP``: ``layers.i`` Linears, ``norms.i`` (norm, ReLU) between them and,
    with ``init_activate``, before the first."""

    _child_names = ("layers", "norms")

    def __init__(
        self,
        input_d: int,
        hidden_d: int,
        output_d: int,
        num_layers: int,
        norm: str,
        init_activate: bool,
        dtype: Any,
        gen: Any,
    ) -> None:
        sizes = [] if num_layers == 0 else [input_d] + [hidden_d] * (num_layers - 1) + [output_d]
        self.layers = _ModuleList(
            [Linear(a, b, dtype=dtype, rng=gen) for a, b in zip(sizes[:-1], sizes[1:])]
        )
        self.init_activate = bool(init_activate)
        count = num_layers - 1 + int(init_activate)
        self.norms = None
        if norm == "batch":
            self.norms = _ModuleList([BatchNorm(hidden_d, dtype=dtype) for _ in range(count)])
        elif norm == "layer":
            self.norms = _ModuleList([LayerNorm(hidden_d, dtype=dtype) for _ in range(count)])

    def _activate(self, x: Any, i: int) -> Any:
        if self.norms is not None:
            x = self.norms[i](x)
        return _relu(x)

    def __call__(self, x: Any) -> Any:
        i = 0
        if self.init_activate:
            x, i = self._activate(x, 0), 1
        last = len(self.layers) - 1
        for k, layer in enumerate(self.layers):
            x = layer(x)
            if k != last:
                x, i = self._activate(x, i), i + 1
        return x


class _Unfolding(DGLModule):
    """DGL's ``TWIRLSUnfoldingAndAttention`` weights: ``etas`` ``(d,)`` with ``use_eta``."""

    _param_names = ("etas",)

    def __init__(self, d: int, use_eta: bool, dtype: Any) -> None:
        self.etas = np.ones(d, dtype=dtype) if use_eta else None


class TWIRLSConv(DGLModule):
    """DGL's ``TWIRLSConv`` (inference), DGL's parameter names.

    Args (DGL's): ``input_d, output_d, hidden_d, prop_step, num_mlp_before=1,
    num_mlp_after=1, norm='none'`` (``'batch'`` / ``'layer'`` between the MLP layers),
    ``precond=True, alp=0`` (``0``: ``1 / (lam + 1)``), ``lam=1, attention=False, tau=0.2,
    T=-1, p=1, use_eta=False, attn_bef=False``; ``dropout``, ``attn_dropout`` and
    ``inp_dropout`` are accepted and ignored (the identity at inference).

    Call as ``conv(graph, feat)`` or ``conv(x, edge_index)`` (one node set). Existing
    self-loops are dropped and one per node added, as DGL's forward does.

    Shapes:
        - input: ``(N, input_d)``; output: ``(N, output_d)``

    Names (DGL's): ``mlp_bef.layers.<i>``, ``mlp_bef.norms.<i>``, ``unfolding.etas``,
    ``mlp_aft.layers.<i>``, ``mlp_aft.norms.<i>``.
    """

    _child_names = ("mlp_bef", "unfolding", "mlp_aft")

    def __init__(
        self,
        input_d: int,
        output_d: int,
        hidden_d: int,
        prop_step: int,
        num_mlp_before: int = 1,
        num_mlp_after: int = 1,
        norm: str = "none",
        precond: bool = True,
        alp: float = 0,
        lam: float = 1,
        attention: bool = False,
        tau: float = 0.2,
        T: float = -1,
        p: float = 1,
        use_eta: bool = False,
        attn_bef: bool = False,
        dropout: float = 0.0,
        attn_dropout: float = 0.0,
        inp_dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "TWIRLSConv"
        self.input_d = layer_size(layer, "input_d", input_d)
        self.output_d = layer_size(layer, "output_d", output_d)
        self.hidden_d = layer_size(layer, "hidden_d", hidden_d)
        self.prop_step = layer_size(layer, "prop_step", prop_step)
        self.num_mlp_before = layer_size(layer, "num_mlp_before", num_mlp_before)
        self.num_mlp_after = layer_size(layer, "num_mlp_after", num_mlp_after)
        if norm not in _NORMS:
            raise ValueError(f"{layer}: norm must be one of {_NORMS}, got {norm!r}")
        self.norm = norm
        self.precond = bool(precond)
        self.lam = float(lam)
        self.alp = float(alp) if alp > 0 else 1 / (self.lam + 1)
        self.attention = bool(attention)
        self.tau, self.T, self.p = float(tau), float(T), float(p)
        self.init_att = bool(attn_bef)
        self.dropout = probability("TWIRLSConv", "dropout", dropout)
        self.attn_dropout = probability("TWIRLSConv", "attn_dropout", attn_dropout)
        self.inp_dropout = probability("TWIRLSConv", "inp_dropout", inp_dropout)
        self.attn_aft = self.prop_step // 2 if self.attention else -1
        self.cacheable = not self.attention and self.num_mlp_before == 0 and self.inp_dropout <= 0
        self.cached_unfolding: Any = None
        self._cached_inputs: tuple[Any, Any, Any] | None = None  # what it was made from
        size_bef = self.output_d if self.num_mlp_after == 0 else self.hidden_d
        size_aft = self.input_d if self.num_mlp_before == 0 else self.hidden_d
        gen = _rng(rng)
        self.mlp_bef = _TWIRLSMLP(
            self.input_d, self.hidden_d, size_bef, self.num_mlp_before, norm, False, dtype, gen
        )
        self.unfolding = _Unfolding(self.hidden_d, bool(use_eta), dtype)
        both = self.num_mlp_before > 0 and self.num_mlp_after > 0
        self.mlp_aft = _TWIRLSMLP(
            size_aft, self.hidden_d, self.output_d, self.num_mlp_after, norm, both, dtype, gen
        )

    def _clear_cache(self) -> None:
        self.cached_unfolding = None
        self._cached_inputs = None  # drop the references to the old inputs too
        super()._clear_cache()

    def __call__(self, graph_or_x: Any, feat_or_edge_index: Any) -> Any:
        layer = "TWIRLSConv"
        inp = homogeneous_input(layer, graph_or_x, feat_or_edge_index)
        x = inp.x_src
        _check_features(x, self.input_d, f"{layer} feat")
        if x.ndim != 2:
            raise ValueError(f"{layer}: feat must be [num_nodes, input_d], got {x.shape}")
        if self.cacheable:
            # the unfolding reads the inputs and (with attn_bef) the etas: a new etas array
            # (load_state_dict, astype) is a new key too
            key = (graph_or_x, feat_or_edge_index, self.unfolding.etas)
            old = self._cached_inputs
            same = old is not None and all(a is b for a, b in zip(old, key))
            if self.cached_unfolding is None or not same:
                self.cached_unfolding = self._unfold(inp, x)
                self._cached_inputs = key
            y = self.cached_unfolding
        else:
            y = self._unfold(inp, self.mlp_bef(x))
        return self.mlp_aft(y)

    def _unfold(self, inp: Any, x: Any) -> Any:
        """The unfolding over the graph with one self-loop per node (DGL's
        ``remove_self_loop`` then ``add_self_loop``)."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import spmm_slots

        xp = get_namespace(x)
        n = inp.num_src
        src, dst = inp.src, inp.dst
        keep = src != dst
        loops = xp.arange(n, dtype=ids_dtype_holding(src.dtype, n - 1))
        src = xp.concatenate([src[keep].astype(loops.dtype), loops])
        dst = xp.concatenate([dst[keep].astype(loops.dtype), loops])
        csr = ops.to_csr((src, dst), n, n)
        dt = x.dtype.type
        state = {"w": None, "deg": csr.in_degrees().astype(x.dtype)}  # w None: all ones
        alp, lam = dt(self.alp), dt(self.lam)

        def scaled(power: float, bias: bool) -> Any:
            deg = state["deg"]
            if bias:
                deg = lam * deg + dt(1 - self.lam)
            with np.errstate(divide="ignore"):
                return (deg ** dt(power))[:, None]

        if self.init_att:
            self._reweight(csr, x, state)
        y = x
        for k in range(self.prop_step):
            if self.precond:
                half = scaled(-0.5, True)
                prop = spmm_slots(csr, y * half, state["w"]) * half
                y = (1 - alp) * y + alp * lam * prop + alp * (x * scaled(-1.0, True))
            else:
                half = scaled(-0.5, False)
                prop = spmm_slots(csr, y * half, state["w"]) * half
                y = (1 - alp * lam - alp) * y + alp * lam * prop + alp * x
            if k == self.attn_aft - 1:
                self._reweight(csr, y, state)
        return y

    def _reweight(self, csr: Any, y: Any, state: dict[str, Any]) -> None:
        """DGL's ``Attention``: new edge weights (slot order) and weighted in-degrees."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import sddmm_slots

        xp = get_namespace(y)
        dt = y.dtype.type
        etas = self.unfolding.etas
        if etas is not None:
            if etas.shape[0] != y.shape[1]:  # DGL fails in Y * etas alike
                raise ValueError(
                    f"TWIRLSConv: use_eta weights hidden_d={etas.shape[0]} columns, but the "
                    f"unfolding runs on {y.shape[1]} (input_d without an MLP before it, "
                    "output_d without one after it)"
                )
            y = y * etas.astype(y.dtype, copy=False)
        norm = (y**2).sum(-1)
        dot = sddmm_slots(csr, y, y, "dot", "u", "v")[:, 0]
        w = sddmm_slots(csr, norm, norm, "add", "u", "v") - 2 * dot
        w = xp.maximum(w, 0) + dt(1e-7)
        w = w ** dt(1 - 0.5 * self.p)
        w = xp.where(w < self.tau, dt(self.tau), w)
        if self.T > 0:
            w = xp.where(w > self.T, dt(np.inf), w)
        w = 1 / w + dt(1e-9)
        state["w"] = w
        state["deg"] = ops.segment(w, csr.indptr, "sum")

    def extra_repr(self) -> str:
        return (
            f"{self.input_d}, {self.output_d}, {self.hidden_d}, prop_step={self.prop_step}, "
            f"attention={self.attention}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> TWIRLSConv:
    """DGL's ``TWIRLSConv`` -> :class:`TWIRLSConv` with its weights (norm ``eps`` too)."""
    from arraygnn.nn.weights import _load

    unf = module.unfolding
    layer = TWIRLSConv(
        module.input_d, module.output_d, module.hidden_d, module.prop_step,
        module.num_mlp_before, module.num_mlp_after, module.norm, module.precond,
        module.alp, module.lam, module.attention, module.tau, module.T, module.p,
        module.use_eta, module.init_att, module.dropout, module.attn_dropout,
        module.inp_dropout, dtype=dtype,
    )  # fmt: skip
    layer.alp = float(unf.alp)  # DGL's alp > 0 or 1 / (lam + 1), as ours
    for ours, theirs in ((layer.mlp_bef, module.mlp_bef), (layer.mlp_aft, module.mlp_aft)):
        if ours.norms is not None:
            for mine, src in zip(ours.norms, theirs.norms):
                mine.eps = float(src.eps)
    # DGL's cached unfolding is not carried over: it is recomputed on the first call
    return _load(layer, module, "dgl")
