"""Label propagation (PyG's ``LabelPropagation`` and DGL's ``dgl.nn.LabelPropagation``)
and PyG's ``CorrectAndSmooth`` post-processing.

``Y' = alpha A_hat Y + (1 - alpha) Y0`` repeated, ``Y0`` the known labels (zero rows for
the nodes outside ``mask``). One class takes both libraries' forms:

- PyG: ``LabelPropagation(num_layers, alpha)`` called as ``lp(y, edge_index, mask=None,
  edge_weight=None, post_step=None)``: ``A_hat`` is PyG's ``gcn_norm`` without self-loops
  (``in_deg^-1/2`` at both ends, ``0^-1/2 := 0``) or, with ``edge_weight``, the weighted
  adjacency as given; the result is clamped to [0, 1] after each step unless ``post_step``
  (a function on the array) replaces the clamp.
- DGL: ``LabelPropagation(k, alpha, norm_type='sym', clamp=True, normalize=False,
  reset=False)`` called as ``lp(graph, labels, mask=None)``: ``'sym'`` scales by
  ``out_deg(src)^-1/2`` and ``in_deg(dst)^-1/2``, ``'row'`` by ``in_deg(dst)^-1`` (edge
  counts clamped at 1); ``normalize`` divides each row by its L1 norm, ``reset`` puts the
  known labels back after each step. ``from_dgl`` reads these settings off DGL's module.

``norm_type=None`` (the default) picks ``'gcn'`` (PyG's) for the ``(y, edge_index)`` form
and ``'sym'`` for the ``(graph, labels)`` form; name one to cross over. The labels follow
the chosen library's rules: ``'gcn'``: integer ids ``(N,)`` / ``(N, 1)`` become a float32
one-hot matrix (any integer dtype; PyG only one-hot encodes int64), a float ``(N, C)`` keeps
its dtype (float16 steps in float32 without ``edge_weight``, as PyG's float32 weights
make it); ``'sym'`` / ``'row'``: ids or an ``(N, C)`` matrix, the result is float32 (as
DGL's). One-hot widths are ``max id + 1`` unless ``num_classes`` is given.

Paths: one CSR per call; each step is one SpMM over it (``'gcn'``: the GCN weights in
slot order; DGL's: an unweighted SpMM between per-node scalings, DGL's order of
operations), plus in-place element-wise updates. No per-edge feature array is formed.

>>> import numpy as np
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> lp = LabelPropagation(num_layers=3, alpha=0.9)
>>> lp(np.array([0, 0, 1]), ei, mask=np.array([True, False, True])).argmax(1).tolist()
[0, 0, 1]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._graph_input import in_degrees, is_graph, out_degrees
from arraygnn.nn._module import Module, layer_size

__all__ = ["LabelPropagation", "CorrectAndSmooth"]

_NORM_TYPES = (None, "gcn", "sym", "row")


def _alpha(layer: str, alpha: Any) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.number)):
        raise TypeError(f"{layer}: alpha must be a number, got {alpha!r}")
    return float(alpha)


def check_mask(layer: str, mask: Any, num_nodes: int) -> Any:
    """``mask``: ``None``, a boolean ``(num_nodes,)`` array or integer node ids in range
    (PyG's "mask or index"); returned as given."""
    if mask is None:
        return None
    if not is_array(mask) or mask.ndim != 1:
        raise TypeError(
            f"{layer}: mask must be a 1-D boolean mask or integer node ids, got "
            f"{getattr(mask, 'shape', type(mask).__name__)}"
        )
    if mask.dtype == np.bool_:
        if mask.shape[0] != num_nodes:
            raise ValueError(
                f"{layer}: a boolean mask must have one entry per node ({num_nodes}), got "
                f"{mask.shape[0]}"
            )
        return mask
    if mask.dtype.kind not in "iu":
        raise TypeError(f"{layer}: mask must be boolean or integer ids, got dtype {mask.dtype}")
    if mask.size and (int(mask.min()) < 0 or int(mask.max()) >= num_nodes):
        raise ValueError(
            f"{layer}: mask holds node ids outside [0, {num_nodes}) "
            f"(min {int(mask.min())}, max {int(mask.max())})"
        )
    return mask


def _one_hot(layer: str, ids: Any, num_classes: Any, dtype: Any) -> Any:
    from arraygnn.utils import one_hot

    try:
        return one_hot(ids.reshape(-1), num_classes, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{layer}: labels as class ids: {err}") from None


def _labels(layer: str, y: Any, dgl: bool, num_classes: Any) -> Any:
    """The label matrix the propagation starts from (PyG's or DGL's rules)."""
    if not is_array(y):
        raise TypeError(f"{layer}: labels must be a NumPy or CuPy array, got {type(y).__name__}")
    if y.dtype == np.bool_ or y.dtype.kind not in "iuf":
        raise TypeError(f"{layer}: labels must be integer ids or numbers, got dtype {y.dtype}")
    if y.ndim not in (1, 2):
        raise ValueError(f"{layer}: labels must be (N,), (N, 1) or (N, C), got {list(y.shape)}")
    ids = y.ndim == 1 or y.shape[1] == 1
    if dgl:  # DGL: (N, C > 1) is a label matrix, anything else class ids; float32 out
        if not ids:
            return y.astype(np.float32)
        if y.dtype.kind == "f":
            raise TypeError(f"{layer}: class ids must be integers, got dtype {y.dtype}")
        return _one_hot(layer, y, num_classes, np.float32)
    if y.dtype.kind in "iu":  # PyG: integer ids one-hot; an integer matrix runs in float32
        return _one_hot(layer, y, num_classes, np.float32) if ids else y.astype(np.float32)
    if y.ndim == 1:
        raise ValueError(
            f"{layer}: float labels must be a matrix (N, C), got shape {list(y.shape)}; "
            "pass class ids as integers"
        )
    return y


def _masked(y: Any, mask: Any) -> Any:
    """``y`` on the ``mask`` rows, zero elsewhere (a new array)."""
    xp = get_namespace(y)
    if mask is None:
        return y.copy()
    out = xp.zeros_like(y)
    out[mask] = y[mask]
    return out


class LabelPropagation(Module):
    r"""PyG's / DGL's label propagation (see the module docstring for the two forms).

    Args:
        num_layers: the number of steps (PyG's name; DGL's ``k`` is the same).
        alpha: the weight of the propagated labels, in [0, 1] for DGL's meaning.
        norm_type: ``None`` (by calling form), ``'gcn'`` (PyG's), ``'sym'`` or ``'row'``
            (DGL's).
        clamp: clip to [0, 1] after each step (default ``True``; PyG always clamps unless
            its ``post_step`` is given).
        normalize: divide each row by its L1 norm after each step (DGL's; default ``False``).
        reset: put the known labels back after each step (DGL's; default ``False``).
        k: DGL's name for ``num_layers``.

    Call as ``lp(y, edge_index, mask=None, edge_weight=None, post_step=None, *,
    num_classes=None)`` or ``lp(graph, labels, mask=None, *, num_classes=None)``; ``mask``
    is a boolean ``(N,)`` mask or node ids of the labelled nodes (``None``: all).
    ``edge_weight`` is PyG's (``'gcn'`` only). No weights.

    Shapes:
        - input: y ``(N,)`` / ``(N, 1)`` ids or ``(N, C)``, edge_index ``(2, E)``
        - output: ``(N, C)``
    """

    def __init__(
        self,
        num_layers: int | None = None,
        alpha: float | None = None,
        norm_type: str | None = None,
        clamp: bool = True,
        normalize: bool = False,
        reset: bool = False,
        *,
        k: int | None = None,
    ) -> None:
        layer = "LabelPropagation"
        if num_layers is not None and k is not None:
            raise ValueError(f"{layer}: give num_layers (PyG) or k (DGL), not both")
        steps = num_layers if k is None else k
        if steps is None or alpha is None:
            raise TypeError(f"{layer} needs num_layers (or k) and alpha")
        self.num_layers = layer_size(layer, "num_layers", steps)
        self.alpha = _alpha(layer, alpha)
        if norm_type not in _NORM_TYPES:
            raise ValueError(
                f"{layer}: norm_type must be None, 'gcn', 'sym' or 'row', got {norm_type!r}"
            )
        self.norm_type = norm_type
        self.clamp = bool(clamp)
        self.normalize = bool(normalize)
        self.reset = bool(reset)

    @property
    def k(self) -> int:
        """DGL's name for ``num_layers``."""
        return self.num_layers

    def __call__(
        self,
        y_or_graph: Any,
        edge_index_or_labels: Any,
        mask: Any = None,
        edge_weight: Any = None,
        post_step: Callable[[Any], Any] | None = None,
        *,
        num_classes: int | None = None,
    ) -> Any:
        from arraygnn.nn.sgc import propagation_input

        layer = "LabelPropagation"
        graph_form = is_graph(y_or_graph)
        mode = self.norm_type or ("sym" if graph_form else "gcn")
        raw = edge_index_or_labels if graph_form else y_or_graph
        labels = _labels(layer, raw, mode != "gcn", num_classes)
        if mode != "gcn" and edge_weight is not None:
            raise ValueError(
                f"{layer}: edge_weight is PyG's (norm_type='gcn'); DGL's norm_type={mode!r} "
                "takes none"
            )
        if post_step is not None and not callable(post_step):
            raise TypeError(f"{layer}: post_step must be callable, got {type(post_step).__name__}")
        if graph_form:
            inp = propagation_input(layer, y_or_graph, labels, edge_weight)
        else:
            inp = propagation_input(layer, labels, edge_index_or_labels, edge_weight)
        mask = check_mask(layer, mask, inp.num_src)
        out = _masked(labels, mask)
        res = out * out.dtype.type(1.0 - self.alpha)
        if mode == "gcn" and edge_weight is None and out.dtype.itemsize < 4:
            # PyG: half-precision labels times gcn_norm's float32 weights step in float32
            out, res = out.astype(np.float32), res.astype(np.float32)
        dt = out.dtype.type
        step = _Steps(inp, mode, edge_weight, out.dtype)
        xp = get_namespace(out)
        for _ in range(self.num_layers):
            out = step(out, self.alpha, res)
            if post_step is not None:
                shape = out.shape
                out = post_step(out)
                if not is_array(out) or out.shape != shape:
                    raise TypeError(
                        f"{layer}: post_step must return the {tuple(shape)} label array, got "
                        f"{getattr(out, 'shape', type(out).__name__)}"
                    )
            elif self.clamp:
                xp.clip(out, 0, 1, out=out)
            if self.normalize:  # torch's F.normalize(p=1): / max(||row||_1, 1e-12)
                out /= xp.maximum(xp.abs(out).sum(axis=1, keepdims=True), dt(1e-12))
            if self.reset:
                if mask is None:
                    out[...] = labels
                else:
                    out[mask] = labels[mask]
        return out

    def extra_repr(self) -> str:
        return f"num_layers={self.num_layers}, alpha={self.alpha}, norm_type={self.norm_type}"


class _Steps:
    """One propagation step ``alpha A_hat y + res`` over a CSR built once."""

    def __init__(self, inp: Any, mode: str, edge_weight: Any, dtype: Any) -> None:
        from arraygnn.nn._graph_input import csr_of
        from arraygnn.nn.sgc import _propagation

        self.mode = mode
        if mode == "gcn":  # PyG: gcn_norm (no loops) only when no edge_weight is given,
            # in float32 whatever the labels' dtype (PyG passes gcn_norm no dtype)
            norm = edge_weight is None
            self.csr, w = _propagation(inp, edge_weight, norm, False, np.float32 if norm else dtype)
            self.w = w.astype(dtype, copy=False) if norm else w
            return
        xp = get_namespace(inp.x_src)
        self.csr, self.w = csr_of(inp), None
        in_deg = xp.maximum(in_degrees(inp, np.float32, self.csr), 1)
        if mode == "sym":  # DGL computes its degree norms in float32
            self.norm_i = (1 / xp.sqrt(in_deg)).astype(dtype)[:, None]
            out_deg = xp.maximum(out_degrees(inp, np.float32), 1)
            self.norm_j = (1 / xp.sqrt(out_deg)).astype(dtype)[:, None]
        else:
            self.norm_i = (in_deg**-1.0).astype(dtype)[:, None]
            self.norm_j = None

    def __call__(self, y: Any, alpha: Any, res: Any) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        if self.mode == "gcn":  # PyG: out = A_hat y; out.mul_(alpha).add_(res)
            out = spmm_slots(self.csr, y, self.w)
            out *= out.dtype.type(alpha)  # float32 labels, float64 weights: a double alpha
            out += res
            return out
        h = spmm_slots(self.csr, y if self.norm_j is None else y * self.norm_j)
        h *= h.dtype.type(alpha)  # DGL: init + alpha * h * norm_i
        h *= self.norm_i
        h += res
        return h


class CorrectAndSmooth(Module):
    r"""PyG's ``CorrectAndSmooth``: ``correct`` spreads the training residuals
    ``y_true - y_soft`` with one label propagation (``num_correction_layers``,
    ``correction_alpha``) and adds them back, scaled per node (``autoscale``) or by
    ``scale``; ``smooth`` resets the training rows to ``y_true`` and propagates the
    predictions with a second one (``num_smoothing_layers``, ``smoothing_alpha``).

    Call as ``cs.correct(y_soft, y_true, mask, edge_index, edge_weight=None)`` and
    ``cs.smooth(...)`` (same arguments); ``cs(y_soft, ...)`` runs both. ``y_true`` holds
    one row per masked node: class ids (one-hot encoded to ``y_soft``'s width and dtype)
    or a matrix. Both propagations use PyG's normalisation (``'gcn'``). No weights.

    Shapes:
        - input: y_soft ``(N, C)``, y_true ``(M,)`` / ``(M, C)``, mask ``(N,)`` bool or
          ``(M,)`` ids, edge_index ``(2, E)``
        - output: ``(N, C)``
    """

    def __init__(
        self,
        num_correction_layers: int,
        correction_alpha: float,
        num_smoothing_layers: int,
        smoothing_alpha: float,
        autoscale: bool = True,
        scale: float = 1.0,
    ) -> None:
        self.autoscale = bool(autoscale)
        self.scale = _alpha("CorrectAndSmooth", scale)
        self.prop1 = LabelPropagation(num_correction_layers, correction_alpha, "gcn")
        self.prop2 = LabelPropagation(num_smoothing_layers, smoothing_alpha, "gcn")

    def __call__(self, y_soft: Any, *args: Any) -> Any:
        return self.smooth(self.correct(y_soft, *args), *args)

    def _prepare(self, where: str, y_soft: Any, y_true: Any, mask: Any) -> tuple[Any, Any, int]:
        if not is_array(y_soft) or y_soft.ndim != 2 or y_soft.dtype.kind != "f":
            raise TypeError(
                f"CorrectAndSmooth.{where}: y_soft must be a 2-D floating-point array (N, C), "
                f"got {getattr(y_soft, 'shape', type(y_soft).__name__)}"
            )
        if mask is None:
            raise ValueError(f"CorrectAndSmooth.{where}: mask is required (the training nodes)")
        mask = check_mask(f"CorrectAndSmooth.{where}", mask, int(y_soft.shape[0]))
        numel = int(mask.sum()) if mask.dtype == np.bool_ else int(mask.shape[0])
        if not is_array(y_true) or y_true.shape[0] != numel:
            raise ValueError(
                f"CorrectAndSmooth.{where}: y_true must have one row per masked node ({numel}), "
                f"got {getattr(y_true, 'shape', type(y_true).__name__)}"
            )
        if y_true.dtype.kind in "iu" and y_true.size == y_true.shape[0]:
            y_true = _one_hot(
                f"CorrectAndSmooth.{where}", y_true, int(y_soft.shape[1]), y_soft.dtype
            )
        elif y_true.ndim != 2 or y_true.shape[1] != y_soft.shape[1]:
            raise ValueError(
                f"CorrectAndSmooth.{where}: y_true must be class ids (M,) / (M, 1) or a "
                f"matrix (M, {y_soft.shape[1]}) as wide as y_soft, got {tuple(y_true.shape)}"
            )
        return y_true, mask, numel

    def correct(
        self, y_soft: Any, y_true: Any, mask: Any, edge_index: Any, edge_weight: Any = None
    ) -> Any:
        """``y_soft`` plus the propagated training residuals (PyG's ``correct``)."""
        y_true, mask, numel = self._prepare("correct", y_soft, y_true, mask)
        xp = get_namespace(y_soft)
        error = xp.zeros_like(y_soft)
        error[mask] = y_true - y_soft[mask]
        dt = y_soft.dtype.type
        if self.autoscale:

            def clip(x: Any) -> Any:
                return xp.clip(x, dt(-1), dt(1), out=x)

            smoothed = self.prop1(error, edge_index, edge_weight=edge_weight, post_step=clip)
            sigma = xp.abs(error[mask]).sum() / dt(numel)
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = sigma / xp.abs(smoothed).sum(axis=1, keepdims=True)
            scale[xp.isinf(scale) | (scale > 1000)] = 1.0
            return y_soft + scale * smoothed

        def fix_input(x: Any) -> Any:
            x[mask] = error[mask]
            return x

        smoothed = self.prop1(error, edge_index, edge_weight=edge_weight, post_step=fix_input)
        return y_soft + dt(self.scale) * smoothed

    def smooth(
        self, y_soft: Any, y_true: Any, mask: Any, edge_index: Any, edge_weight: Any = None
    ) -> Any:
        """The predictions with the training rows set to ``y_true``, propagated (PyG's
        ``smooth``)."""
        y_true, mask, _ = self._prepare("smooth", y_soft, y_true, mask)
        y_soft = y_soft.copy()
        y_soft[mask] = y_true
        return self.prop2(y_soft, edge_index, edge_weight=edge_weight)

    def extra_repr(self) -> str:
        return (
            f"correct: num_layers={self.prop1.num_layers}, alpha={self.prop1.alpha}; "
            f"smooth: num_layers={self.prop2.num_layers}, alpha={self.prop2.alpha}; "
            f"autoscale={self.autoscale}, scale={self.scale}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``LabelPropagation`` / ``CorrectAndSmooth`` (no weights: the settings)."""
    if type(module).__name__ == "CorrectAndSmooth":
        return CorrectAndSmooth(
            module.prop1.num_layers,
            module.prop1.alpha,
            module.prop2.num_layers,
            module.prop2.alpha,
            module.autoscale,
            module.scale,
        )
    return LabelPropagation(module.num_layers, module.alpha, "gcn")  # PyG's in every form


def from_dgl_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """DGL's ``LabelPropagation`` (no weights: ``k``, ``alpha``, ``norm_type``, ``clamp``,
    ``normalize``, ``reset``)."""
    norm_type = module.norm_type
    if norm_type not in ("sym", "row"):  # DGL raises at forward time
        raise ValueError(
            f"from_dgl: LabelPropagation norm_type must be 'sym' or 'row', got {norm_type!r}"
        )
    return LabelPropagation(
        alpha=module.alpha,
        norm_type=norm_type,
        clamp=module.clamp,
        normalize=module.normalize,
        reset=module.reset,
        k=module.k,
    )
