"""Dense building blocks: ``Linear``, ``BatchNorm`` (inference), ``Sequential``, ``MLP``.

Weights follow PyTorch's layout (``weight`` is ``[out, in]``) so PyTorch / PyG state
dicts load by name without transposes.

>>> import numpy as np
>>> from arraygnn.nn import Linear
>>> lin = Linear(3, 2, rng=0)
>>> lin(np.ones((4, 3), dtype=np.float32)).shape
(4, 2)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial, wraps
from typing import Any

import numpy as np

from arraygnn._namespace import (
    get_namespace,
    is_array,
    is_cupy_array,
    is_torch_tensor,
    torch_hint,
)
from arraygnn.nn._module import Module, layer_size, probability

_NORM_EXPORT = re.compile(r"^norms\.(\d+)\.")

__all__ = [
    "Linear",
    "BatchNorm",
    "LayerNorm",
    "LSTM",
    "GRU",
    "GRUCell",
    "Sequential",
    "MLP",
    "get_activation",
    "glorot",
]


def _relu(x: Any) -> Any:
    return get_namespace(x).maximum(x, 0)


def _elu(x: Any, alpha: float = 1.0) -> Any:
    xp = get_namespace(x)
    neg = xp.expm1(xp.minimum(x, 0))
    return xp.where(x > 0, x, neg if alpha == 1.0 else neg * alpha)


def _sigmoid(x: Any) -> Any:
    xp = get_namespace(x)
    with np.errstate(over="ignore"):  # exp(-x) = inf for a very negative x: 1 / inf = 0
        return 1 / (1 + xp.exp(-x))


def _tanh(x: Any) -> Any:
    return get_namespace(x).tanh(x)


def _leaky_relu(x: Any, negative_slope: float = 0.01) -> Any:
    return get_namespace(x).where(x > 0, x, x * negative_slope)


def _gelu(x: Any) -> Any:
    """torch's exact GELU, ``x * Phi(x)`` with the normal CDF through ``erf`` (SciPy's, or
    cupyx's on a GPU), computed in the input's dtype."""
    xp = get_namespace(x)
    if xp is np:
        from scipy.special import erf
    else:
        from cupyx.scipy.special import erf
    half = x.dtype.type(0.5) if x.dtype.kind == "f" else 0.5
    return half * x * (1 + erf(x * (half * np.sqrt(2.0)).astype(x.dtype)))


def _silu(x: Any) -> Any:
    """``x * sigmoid(x)`` (torch's ``SiLU``, PyG's ``'swish'``)."""
    xp = get_namespace(x)
    with np.errstate(over="ignore"):  # exp(-x) = inf for a very negative x: x / inf = -0
        return x / (1 + xp.exp(-x))


def _scalar(x: Any, value: float) -> Any:
    """``value`` in ``x``'s floating dtype (torch casts an activation's constants to the
    input's type before using them); a Python float for other dtypes."""
    kind = getattr(getattr(x, "dtype", None), "kind", "")
    return x.dtype.type(value) if kind == "f" else value


def _half_in_float32(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` on a float16 ``x`` in float32 and round once (torch's CPU / CUDA kernels
    compute half in float: ``softplus(12)`` would overflow float16 steps to ``inf``)."""

    @wraps(fn)
    def run(x: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(x, "dtype", None) == np.float16:
            return fn(x.astype(np.float32), *args, **kwargs).astype(np.float16)
        return fn(x, *args, **kwargs)

    return run


@_half_in_float32
def _softplus(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """torch's ``Softplus(beta, threshold)``: ``log1p(exp(beta * x)) / beta``, and ``x``
    itself where ``beta * x > threshold`` (SchNet's shifted softplus with no shift)."""
    from arraygnn.nn._dgl_common import shifted_softplus

    with np.errstate(over="ignore"):  # beta * x = inf: above the threshold, x itself
        return shifted_softplus(x, beta=beta, shift=1.0, threshold=threshold)


#: torch's SELU constants (``aten/src/ATen/native/Activation.cpp``)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_half_in_float32
def _selu(x: Any) -> Any:
    """torch's ``SELU``: ``scale * x`` above 0, ``expm1(x) * (alpha * scale)`` below (the
    product of the two constants rounded in ``x``'s dtype, as torch's kernel)."""
    xp = get_namespace(x)
    scale = _scalar(x, _SELU_SCALE)
    neg = xp.expm1(xp.minimum(x, 0)) * (_scalar(x, _SELU_ALPHA) * scale)
    with np.errstate(over="ignore"):  # scale * x = inf near the largest values, as torch
        return xp.where(x > 0, x * scale, neg)


@_half_in_float32
def _celu(x: Any, alpha: float = 1.0) -> Any:
    """torch's ``CELU(alpha)``: ``x`` above 0, ``expm1(x * (1 / alpha)) * alpha`` below."""
    xp = get_namespace(x)
    inv = _scalar(x, 1.0 / alpha)
    with np.errstate(over="ignore"):  # x / alpha = -inf: expm1 gives -1
        neg = xp.expm1(xp.minimum(x, 0) * inv) * _scalar(x, alpha)
    return xp.where(x > 0, x, neg)


def _hardtanh(x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    """torch's ``Hardtanh(min_val, max_val)``: ``x`` clipped to ``[min_val, max_val]``
    (NaN stays NaN)."""
    return get_namespace(x).clip(x, _scalar(x, min_val), _scalar(x, max_val))


def _relu6(x: Any) -> Any:
    """torch's ``ReLU6``: ``Hardtanh(0, 6)``."""
    return _hardtanh(x, 0.0, 6.0)


@_half_in_float32
def _mish(x: Any) -> Any:
    """torch's ``Mish``: ``x * tanh(log1p(exp(x)))`` (no threshold, as torch's kernel)."""
    xp = get_namespace(x)
    with np.errstate(over="ignore", invalid="ignore"):  # exp(x) = inf: tanh(inf) = 1
        return x * xp.tanh(xp.log1p(xp.exp(x)))


@_half_in_float32
def _hardsigmoid(x: Any) -> Any:
    """torch's ``Hardsigmoid``: ``clip(x + 3, 0, 6) / 6``."""
    return _hardtanh(x + _scalar(x, 3.0), 0.0, 6.0) / _scalar(x, 6.0)


@_half_in_float32
def _hardswish(x: Any) -> Any:
    """torch's ``Hardswish``: ``x * clip(x + 3, 0, 6) / 6``, in torch's order."""
    with np.errstate(over="ignore", invalid="ignore"):  # -inf * 0 = NaN, as torch
        return x * _hardtanh(x + _scalar(x, 3.0), 0.0, 6.0) / _scalar(x, 6.0)


@_half_in_float32
def _softsign(x: Any) -> Any:
    """torch's ``Softsign``: ``x / (|x| + 1)`` (``+-inf`` gives NaN, as torch)."""
    with np.errstate(invalid="ignore"):
        return x / (get_namespace(x).abs(x) + 1)


def _tanhshrink(x: Any) -> Any:
    """torch's ``Tanhshrink``: ``x - tanh(x)`` (two ops in torch too, each rounded in
    ``x``'s dtype)."""
    return x - get_namespace(x).tanh(x)


@_half_in_float32
def _logsigmoid(x: Any) -> Any:
    """torch's ``LogSigmoid``: ``min(x, 0) - log1p(exp(-|x|))`` (its CPU kernel's form:
    no overflow, exact far out on both sides)."""
    xp = get_namespace(x)
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


@_half_in_float32
def _gelu_tanh(x: Any) -> Any:
    """torch's ``GELU(approximate='tanh')``: ``0.5 * x * (1 + tanh(beta * (x + kappa *
    x**3)))`` with torch's constants and order of operations."""
    xp = get_namespace(x)
    beta = _scalar(x, 1.41421356237309504880 * 1.12837916709551257390 * 0.5)  # M_SQRT2 ...
    kappa = _scalar(x, 0.044715)
    with np.errstate(over="ignore", invalid="ignore"):  # x**3 = inf: tanh(inf) = 1
        inner = beta * (x + kappa * (x * x * x))
        return _scalar(x, 0.5) * x * (1 + xp.tanh(inner))


def _prelu(x: Any, weight: Any) -> Any:
    """torch's ``prelu``: ``x`` above 0, ``weight * x`` elsewhere; a ``weight`` of ``C > 1``
    values scales dimension 1 (the channels, as torch)."""
    xp = get_namespace(x, weight)  # a TypeError for a NumPy / CuPy mix
    w = weight.astype(x.dtype, copy=False)
    if w.size == 1:
        w = w.reshape(())
    else:
        channels = x.shape[1] if x.ndim > 1 else 1
        if channels != w.size:
            raise ValueError(
                f"PReLU: {w.size} parameters but the input has {channels} channels "
                f"(dimension 1 of shape {tuple(x.shape)}), as torch requires"
            )
        w = w.reshape((1, -1) + (1,) * (x.ndim - 2))
    return xp.where(x > 0, x, w * x)


class PReLU(Module):
    """torch's ``PReLU(num_parameters=1, init=0.25)``: ``x`` above 0, ``weight * x``
    elsewhere, ``weight`` (``num_parameters`` values) learned; a ``num_parameters = C``
    weight scales dimension 1. Its state dict is torch's (``weight``).

    >>> import numpy as np
    >>> PReLU()(np.array([-2.0, 3.0], np.float32)).tolist()
    [-0.5, 3.0]
    """

    _param_names = ("weight",)

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype: Any = np.float32):
        from arraygnn.nn._module import real_number

        self.num_parameters = layer_size("PReLU", "num_parameters", num_parameters, minimum=1)
        self.weight = np.full(self.num_parameters, real_number("PReLU", "init", init), dtype)

    def __call__(self, x: Any) -> Any:
        return _prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


#: PyG's ``activation_resolver`` names (as its ``normalize_string`` makes them) of the
#: activations arraygnn has, each with the keyword arguments torch's class takes and their
#: defaults; ``relu``, ``sigmoid``, ``tanh``, ``silu`` / ``swish`` take none.
_ACT_KWARGS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "elu": (_elu, {"alpha": 1.0}),
    "leakyrelu": (_leaky_relu, {"negative_slope": 0.01}),
    "softplus": (_softplus, {"beta": 1.0, "threshold": 20.0}),
    "selu": (_selu, {}),
    "celu": (_celu, {"alpha": 1.0}),
    "relu6": (_relu6, {}),
    "hardtanh": (_hardtanh, {"min_val": -1.0, "max_val": 1.0}),
    "mish": (_mish, {}),
    "hardswish": (_hardswish, {}),
    "hardsigmoid": (_hardsigmoid, {}),
    "softsign": (_softsign, {}),
    "tanhshrink": (_tanhshrink, {}),
    "logsigmoid": (_logsigmoid, {}),
    "gelu": (_gelu, {"approximate": "none"}),
    "prelu": (PReLU, {"num_parameters": 1, "init": 0.25}),
}


def _make_activation(
    where: str, name: str, kwargs: Mapping[str, Any], *, weights: bool = False, dtype: Any = None
) -> Any:
    """The array activation for PyG resolver name ``name`` (normalised) with torch's
    keyword arguments ``kwargs`` (a ``ValueError`` / ``TypeError`` naming ``where`` for
    others); ``prelu`` gives a ``PReLU`` layer, allowed only with ``weights=True`` (a slot
    that keeps the layer and its weight)."""
    from arraygnn.nn._module import real_number

    fn, defaults = _ACT_KWARGS[name]
    unknown = sorted(set(kwargs) - set(defaults))
    if unknown:
        raise ValueError(
            f"{where} with act_kwargs={dict(kwargs)} is not supported: {name} takes "
            f"{sorted(defaults) or 'no keyword arguments'} (torch's), not {unknown}"
        )
    if name == "gelu":
        approximate = kwargs.get("approximate", "none")
        if approximate not in ("none", "tanh"):
            raise ValueError(
                f"{where}: gelu approximate must be 'none' or 'tanh', got {approximate!r}"
            )
        return _gelu_tanh if approximate == "tanh" else _gelu
    if name == "prelu":
        if not weights:
            raise ValueError(
                f"{where}: PReLU has a learned weight, which this activation slot (a plain "
                "function) cannot keep; PReLU works as an MLP's act, a Sequential step or a "
                "layer of its own (arraygnn.nn.PReLU / from_torch)"
            )
        num = kwargs.get("num_parameters", 1)
        init = real_number(where, "PReLU init", kwargs.get("init", 0.25))
        return PReLU(num, init, dtype=np.float32 if dtype is None else dtype)
    values = {k: real_number(where, f"{name} {k}", v) for k, v in kwargs.items()}
    if name == "celu" and values.get("alpha", 1.0) == 0:
        raise ValueError(f"{where}: celu alpha must not be 0 (torch refuses it)")
    if name == "hardtanh":
        low, high = values.get("min_val", -1.0), values.get("max_val", 1.0)
        if not low < high:
            raise ValueError(
                f"{where}: hardtanh needs min_val < max_val (as torch), got {low}, {high}"
            )
    if name in ("elu", "leakyrelu"):  # always a partial (FiLMConv reads its parameters)
        return partial(fn, **{**defaults, **values})
    if not values or values == {k: defaults[k] for k in values}:
        return fn
    return partial(fn, **values)


def _from_torch_act(act: Any, where: str, weights: bool = False) -> Any:
    """A torch activation (module or function, as PyG code passes ``act``) as the arraygnn
    one (``from_pyg``'s mapping; a ``ValueError`` naming ``where`` for one arraygnn has
    not, rather than a torch error when the layer runs); anything else as it is.
    ``weights``: a ``PReLU`` module converts (a slot that keeps its weight)."""
    owner = getattr(act, "__module__", None)
    # a torch module object means torch is imported (never imported here)
    module_cls = getattr(getattr(sys.modules.get("torch"), "nn", None), "Module", None)
    if not (
        isinstance(owner, str)
        and (owner == "torch" or owner.startswith(("torch.", "torch_geometric.")))
    ) and not (isinstance(module_cls, type) and isinstance(act, module_cls)):
        return act  # (a user's own torch.nn.Module subclass runs on tensors: refused too)
    from arraygnn.nn.weights import _activation

    fn = _activation(act, where, weights=weights)
    return _identity if fn is None else get_activation(fn)  # torch's Identity: a no-op


def _identity(x: Any) -> Any:
    return x


_ACTIVATIONS: dict[str, Callable[[Any], Any]] = {
    "relu": _relu,
    "elu": _elu,
    "sigmoid": _sigmoid,
    "tanh": _tanh,
    "leaky_relu": _leaky_relu,
    "gelu": _gelu,
    "softplus": _softplus,
    "selu": _selu,
    "celu": _celu,
    "relu6": _relu6,
    "hardtanh": _hardtanh,
    "mish": _mish,
    "hardswish": _hardswish,
    "hardsigmoid": _hardsigmoid,
    "softsign": _softsign,
    "tanhshrink": _tanhshrink,
    "logsigmoid": _logsigmoid,
}

#: resolver names whose torch class takes ``inplace`` (arraygnn never writes to its input)
_TAKES_INPLACE = frozenset(
    ("relu", "elu", "leakyrelu", "selu", "celu", "relu6", "hardtanh", "mish", "hardswish")
    + ("hardsigmoid", "silu")
)

#: the names (with their keyword arguments) ``resolve_act`` takes, for its messages
_RESOLVER_NAMES = (
    "relu, elu(alpha), leaky_relu(negative_slope), sigmoid, tanh, gelu(approximate='none' | "
    "'tanh'), silu / swish, softplus(beta, threshold), selu, celu(alpha), relu6, "
    "hardtanh(min_val, max_val), mish, hardswish, hardsigmoid, softsign, tanhshrink, "
    "logsigmoid, prelu(num_parameters, init) where the slot keeps weights (MLP)"
)


def resolve_act(
    model: str,
    act: Any,
    act_kwargs: dict[str, Any] | None,
    *,
    weights: bool = False,
    dtype: Any = None,
) -> Any:
    """PyG's ``activation_resolver`` for the activations arraygnn has, by any spelling PyG
    takes (``'LeakyReLU'``, ``'leaky-relu'``) with torch's keyword arguments in
    ``act_kwargs``; anything else is a ``ValueError`` naming the model. ``weights``: the
    slot keeps a layer with weights (``'prelu'`` / ``torch.nn.PReLU``, in ``dtype``).

    >>> import numpy as np
    >>> f = resolve_act("MLP", "Hardtanh", {"min_val": 0.0, "max_val": 2.0})
    >>> f(np.array([-1.0, 1.0, 3.0])).tolist()
    [0.0, 1.0, 2.0]
    """
    kwargs = dict(act_kwargs or {})
    if act is None or callable(act):
        if kwargs:
            raise ValueError(f"{model}: act_kwargs need act given by name, got act={act!r}")
        return _from_torch_act(act, f"{model}: act", weights=weights)
    name = (
        act.lower().replace("_", "").replace("-", "").replace(" ", "")
        if isinstance(act, str)
        else None
    )
    if name in _TAKES_INPLACE and "inplace" in kwargs:  # torch's class takes it (no effect)
        if not isinstance(kwargs["inplace"], (bool, np.bool_)):
            raise TypeError(
                f"{model}: act_kwargs inplace must be a bool, got {kwargs['inplace']!r}"
            )
        del kwargs["inplace"]  # (a copy of act_kwargs)
    if name in ("silu", "swish") and not kwargs:  # PyG's resolver: torch's SiLU, its swish
        return _silu
    if name in ("relu", "sigmoid", "tanh") and not kwargs:
        return get_activation(name)
    if name in _ACT_KWARGS:
        return _make_activation(f"{model}: act={act!r}", name, kwargs, weights=weights, dtype=dtype)
    raise ValueError(
        f"{model}: act={act!r} with act_kwargs={kwargs} is not supported; use {_RESOLVER_NAMES}, "
        "None or a callable on arrays"
    )


def get_activation(act: str | Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    """``None``, a callable on arrays, or one of ``relu, elu, sigmoid, tanh, leaky_relu,
    gelu, softplus, selu, celu, relu6, hardtanh, mish, hardswish, hardsigmoid, softsign,
    tanhshrink, logsigmoid`` (torch's default parameters; ``resolve_act`` takes others). A
    torch activation module / function is mapped onto the array one, or refused with a
    ``ValueError`` (``PReLU`` too: a plain function has no place for its weight).

    >>> import numpy as np
    >>> get_activation("relu6")(np.array([-1.0, 7.0])).tolist()
    [0.0, 6.0]
    """
    if act is None or callable(act):
        return _from_torch_act(act, "act")
    if isinstance(act, str) and act.lower() in _ACTIVATIONS:
        return _ACTIVATIONS[act.lower()]
    raise ValueError(
        f"activation must be None, a callable or one of {sorted(_ACTIVATIONS)}, got {act!r}"
    )


def _rng(rng: Any) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def glorot(shape: tuple[int, ...], rng: Any = None, dtype: Any = np.float32) -> np.ndarray:
    """Glorot/Xavier-uniform initial weights (``fan_in``/``fan_out`` from the last two dims)."""
    fan_out, fan_in = shape[-2], shape[-1]
    bound = float(np.sqrt(6.0 / max(fan_in + fan_out, 1)))
    return _rng(rng).uniform(-bound, bound, size=shape).astype(dtype)


def _check_features(x: Any, expected: int, what: str, weight: Any = None) -> None:
    if is_torch_tensor(x):
        # x @ weight.T would fail inside NumPy ("Cannot interpret 'torch.float32' ...") or,
        # for BatchNorm, return a torch tensor by accident; the graph layers refuse it too
        raise TypeError(
            f"{what} must be a NumPy or CuPy array (or a JAX array), got {type(x)}{torch_hint(x)}"
        )
    if not hasattr(x, "ndim") or not hasattr(x, "dtype"):  # None, a list, a str
        raise TypeError(f"{what} must be a NumPy or CuPy array, got {type(x).__name__}")
    if getattr(x.dtype, "kind", "f") in "OUSM" or getattr(x.dtype, "names", None):
        raise TypeError(f"{what} must hold numbers, got dtype {x.dtype}")  # object / str
    if x.ndim < 1 or x.shape[-1] != expected:
        raise ValueError(f"{what}: expected last dimension {expected}, got shape {tuple(x.shape)}")
    # a NumPy / CuPy mix names the devices; other frameworks' arrays (JAX) meet NumPy
    # weights through their own rules
    if weight is not None and is_array(x) and is_cupy_array(x) != is_cupy_array(weight):
        on, other = ("CuPy", "NumPy") if is_cupy_array(x) else ("NumPy", "CuPy")
        raise TypeError(
            f"{what} is a {on} array but the layer's weights are {other} arrays; move "
            "the layer (layer.to('cuda') / .to('cpu')) or the input to one device"
        )


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` for a weight ``b`` ``(in, out)``; a small NumPy product runs on one BLAS
    thread when Numba shares another library's spinning OpenMP runtime (PyTorch imported
    first; see ``arraygnn.kernels.cpu._threads``), where two threads would wait on a core.

    A stacked NumPy ``a`` (``[..., in]``, 3-D or more) is multiplied as one ``[rows, in]``
    matrix: NumPy's stacked matmul with a transposed weight misses BLAS (6x slower on
    ``[100, 50, 64] @ W.T``).

    >>> matmul(np.ones((2, 3)), np.ones((3, 1))).ravel().tolist()
    [3.0, 3.0]
    """
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.ndim and b.ndim == 2:
        from arraygnn.kernels.cpu._threads import small_product

        lead = a.shape[:-1]
        if a.ndim > 2:
            a = a.reshape(int(np.prod(lead)), a.shape[-1])  # not -1: [.., 0] inputs
        with small_product(2.0 * a.size * b.shape[1]):
            out = a @ b
        return out.reshape(lead + (b.shape[1],)) if len(lead) > 1 else out
    return a @ b


def add_bias(out: Any, bias: Any) -> Any:
    """``out + bias``, added in place when that keeps the dtype: ``out`` must be an array
    the layer made itself (a product or a reduction result, never the caller's).

    Adding in place skips allocating (and first-touching) a second output: 1M x 64
    float32, 35-38 ms in place against 88-929 ms for ``out + bias`` on the 2-core box,
    where fresh large arrays sometimes wait on the kernel's huge-page compaction.

    >>> import numpy as np
    >>> add_bias(np.zeros((2, 2), np.float32), np.array([1.0, 2.0], np.float32)).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """
    same_dtype = np.result_type(out.dtype, bias.dtype) == out.dtype
    if same_dtype and np.broadcast_shapes(out.shape, bias.shape) == out.shape:
        out += bias
        return out
    return out + bias


class Linear(Module):
    """``y = x @ weight.T + bias``.

    Args:
        in_features: size of each input row.
        out_features: size of each output row.
        bias: learn an additive bias (default ``True``).
        dtype: weight dtype (default ``float32``).
        rng: seed or ``numpy.random.Generator`` for the Glorot initial weights.

    Shapes:
        - input: ``(*, in_features)``
        - output: ``(*, out_features)``
    """

    _param_names = ("weight", "bias")

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_features = layer_size("Linear", "in_features", in_features)
        self.out_features = layer_size("Linear", "out_features", out_features)
        self.weight = glorot((self.out_features, self.in_features), rng, dtype)
        self.bias = np.zeros(self.out_features, dtype=dtype) if bias else None

    def __call__(self, x: Any) -> Any:
        _check_features(x, self.in_features, f"{type(self).__name__} input", self.weight)
        out = matmul(x, self.weight.T)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, bias={self.bias is not None}"


class BatchNorm(Module):
    """Batch normalisation at inference time (running statistics), PyTorch names.

    ``y = (x - running_mean) / sqrt(running_var + eps) * weight + bias``, computed as torch's
    CPU kernel does: the statistics folded into one per-column scale and shift, in the
    result's dtype (``x * scale + shift``: one Numba pass for NumPy float32 / float64, else
    two array passes; no temporaries besides the output).

    Shapes:
        - input / output: ``(N, num_features)``
    """

    _param_names = ("weight", "bias")
    _buffer_names = ("running_mean", "running_var")

    def __init__(
        self, num_features: int, eps: float = 1e-5, affine: bool = True, *, dtype: Any = np.float32
    ) -> None:
        num_features = self.num_features = layer_size("BatchNorm", "num_features", num_features)
        if isinstance(eps, np.ndarray) and eps.ndim == 0:
            eps = eps[()]
        if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, np.number)):
            raise TypeError(f"BatchNorm: eps must be a number, got {eps!r}")
        if not eps > 0:
            raise ValueError(f"BatchNorm: eps must be > 0, got {eps}")
        self.eps = float(eps)
        self.weight = np.ones(num_features, dtype=dtype) if affine else None
        self.bias = np.zeros(num_features, dtype=dtype) if affine else None
        self.running_mean = np.zeros(num_features, dtype=dtype)
        self.running_var = np.ones(num_features, dtype=dtype)

    def __call__(self, x: Any) -> Any:
        _check_features(x, self.num_features, "BatchNorm input", self.running_mean)
        xp = get_namespace(x)
        # scale and shift in the result's dtype: a float64 x with float32 statistics keeps
        # float64's digits where x * scale + shift cancels (x near a large running_mean)
        params = (self.running_mean, self.running_var, self.weight, self.bias)
        dt = np.result_type(x.dtype, *(p.dtype for p in params if p is not None))
        mean, var, weight, bias = (None if p is None else p.astype(dt, copy=False) for p in params)
        scale = 1 / xp.sqrt(var + self.eps)
        if weight is not None:
            scale = scale * weight
        shift = -mean * scale
        if bias is not None:
            shift = shift + bias
        if isinstance(x, np.ndarray) and x.ndim >= 1:  # one fused pass (NumPy float32 / 64)
            from arraygnn.kernels.cpu import layer_norm as kernels

            if kernels.fits(x, scale, shift):
                return kernels.column_affine(x, scale, shift)
        out = x * scale
        out += shift.astype(out.dtype, copy=False)
        return out

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}"


class LayerNorm(Module):
    """Layer normalisation over the last dimension, ``torch.nn.LayerNorm`` names and maths.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias`` with the mean and the biased
    variance of each row's last ``normalized_shape`` entries.

    >>> import numpy as np
    >>> LayerNorm(3, dtype=np.float64)(np.array([[1.0, 2.0, 3.0]])).round(3).tolist()
    [[-1.225, 0.0, 1.225]]

    Shapes:
        - input / output: ``(*, normalized_shape)``
    """

    _param_names = ("weight", "bias")

    def __init__(
        self,
        normalized_shape: int,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
    ) -> None:
        if isinstance(normalized_shape, (tuple, list)) and len(normalized_shape) == 1:
            normalized_shape = normalized_shape[0]
        n = self.normalized_shape = layer_size("LayerNorm", "normalized_shape", normalized_shape)
        if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, np.number)):
            raise TypeError(f"LayerNorm: eps must be a number, got {eps!r}")
        if not eps > 0:
            raise ValueError(f"LayerNorm: eps must be > 0, got {eps}")
        self.eps = float(eps)
        self.weight = np.ones(n, dtype=dtype) if elementwise_affine else None
        self.bias = np.zeros(n, dtype=dtype) if elementwise_affine and bias else None

    def __call__(self, x: Any) -> Any:
        _check_features(x, self.normalized_shape, "LayerNorm input", self.weight)
        if isinstance(x, np.ndarray):  # NumPy float32 / float64: one fused Numba kernel
            from arraygnn.kernels.cpu import layer_norm as kernels

            if kernels.fits(x, self.weight, self.bias):
                return kernels.layer_norm_rows(x, self.eps, self.weight, self.bias)
        xp = get_namespace(x)
        centred = x - x.mean(axis=-1, keepdims=True)
        var = (centred * centred).mean(axis=-1, keepdims=True)
        out = centred / xp.sqrt(var + self.eps)
        if self.weight is not None:
            out = out * self.weight
        if self.bias is not None:
            out = out + self.bias
        return out

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}"


class _Recurrent(Module):
    """torch's recurrent-layer weights (``weight_ih_l{k}``, ``weight_hh_l{k}``,
    ``bias_ih_l{k}``, ``bias_hh_l{k}``, ``gates * hidden`` rows) and the loop over time steps
    and layers; subclasses give the cell."""

    _gates = 1
    _kind = "RNN"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        kind = self._kind
        self.input_size = layer_size(kind, "input_size", input_size)
        self.hidden_size = hid = layer_size(kind, "hidden_size", hidden_size, minimum=1)
        self.num_layers = layer_size(kind, "num_layers", num_layers, minimum=1)
        gen = _rng(rng)
        bound = 1 / np.sqrt(hid)  # torch's uniform(-1/sqrt(H), 1/sqrt(H))
        rows = self._gates * hid
        names = []
        for k in range(self.num_layers):
            fan_in = self.input_size if k == 0 else hid
            for name, shape in (
                (f"weight_ih_l{k}", (rows, fan_in)),
                (f"weight_hh_l{k}", (rows, hid)),
            ):
                setattr(self, name, gen.uniform(-bound, bound, shape).astype(dtype))
                names.append(name)
            for name in (f"bias_ih_l{k}", f"bias_hh_l{k}"):
                setattr(
                    self, name, gen.uniform(-bound, bound, rows).astype(dtype) if bias else None
                )
                names.append(name)
        self._param_names = tuple(names)

    def _check(self, x: Any) -> tuple[Any, Any, int]:
        _check_features(x, self.input_size, f"{self._kind} input", self.weight_ih_l0)
        if x.ndim != 3:
            raise ValueError(f"{self._kind} input must be (T, B, input_size), got {tuple(x.shape)}")
        return get_namespace(x), np.result_type(x.dtype, self.weight_ih_l0.dtype), x.shape[1]

    def _state(self, xp: Any, dtype: Any, batch: int, given: Any, name: str) -> Any:
        shape = (self.num_layers, batch, self.hidden_size)
        if given is None:
            return xp.zeros(shape, dtype=dtype)
        if not is_array(given):
            raise TypeError(
                f"{self._kind} {name} must be a NumPy or CuPy array {shape}, got "
                f"{type(given).__name__}{torch_hint(given)}"
            )
        if tuple(given.shape) != shape:
            raise ValueError(f"{self._kind} {name} must be {shape}, got {tuple(given.shape)}")
        return given.astype(dtype, copy=True)

    def _projections(self, k: int, inp: Any, h: Any) -> tuple[Any, Any]:
        """``(inp W_ih^T + b_ih, h W_hh^T + b_hh)`` of layer ``k``."""
        gi = matmul(inp, getattr(self, f"weight_ih_l{k}").T)
        gh = matmul(h, getattr(self, f"weight_hh_l{k}").T)
        if getattr(self, f"bias_ih_l{k}") is not None:
            gi = gi + getattr(self, f"bias_ih_l{k}")
            gh = gh + getattr(self, f"bias_hh_l{k}")
        return gi, gh

    def _unroll(self, x: Any, h: Any, cell: Callable[[int, Any, Any], Any]) -> Any:
        """Run ``cell(layer, gates_ih, gates_hh)`` (it updates ``h[layer]`` and any other
        state in place) over the time steps and layers; the last layer's ``h`` per step."""
        xp = get_namespace(x)
        outputs = []
        for step in range(x.shape[0]):
            inp = x[step]
            for k in range(self.num_layers):
                cell(k, *self._projections(k, inp, h[k]))
                inp = h[k]
            outputs.append(inp.copy())  # h is updated in place at the next step
        if outputs:
            return xp.stack(outputs)
        return xp.zeros((0, x.shape[1], self.hidden_size), dtype=h.dtype)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}"


class LSTM(_Recurrent):
    """``torch.nn.LSTM`` at inference (unidirectional, sequence first), PyTorch's names
    ``weight_ih_l{k}`` ``(4H, in)``, ``weight_hh_l{k}`` ``(4H, H)``, ``bias_ih_l{k}``,
    ``bias_hh_l{k}`` and gate order (input, forget, cell, output).

    ``lstm(x, (h0, c0)=None)`` with ``x`` ``(T, B, input_size)`` returns ``(output (T, B,
    H), (h_n, c_n))``, ``h_n`` / ``c_n`` ``(num_layers, B, H)``; no state means zeros.

    >>> import numpy as np
    >>> out, (h, c) = LSTM(3, 2, rng=0)(np.ones((4, 5, 3), np.float32))
    >>> out.shape, h.shape
    ((4, 5, 2), (1, 5, 2))
    """

    _gates = 4
    _kind = "LSTM"

    def __call__(self, x: Any, state: tuple[Any, Any] | None = None) -> tuple[Any, Any]:
        xp, dtype, batch = self._check(x)
        if state is not None and not (isinstance(state, (tuple, list)) and len(state) == 2):
            raise TypeError(f"LSTM state must be a pair (h0, c0), got {type(state).__name__}")
        h0, c0 = (None, None) if state is None else state
        h = self._state(xp, dtype, batch, h0, "h0")
        c = self._state(xp, dtype, batch, c0, "c0")
        hid = self.hidden_size

        def cell(k: int, gi: Any, gh: Any) -> None:
            gates = gi + gh
            i, f, g, o = (gates[:, j * hid : (j + 1) * hid] for j in range(4))
            c[k] = _sigmoid(f) * c[k] + _sigmoid(i) * xp.tanh(g)
            h[k] = _sigmoid(o) * xp.tanh(c[k])

        return self._unroll(x, h, cell), (h, c)


class GRU(_Recurrent):
    """``torch.nn.GRU`` at inference (unidirectional, sequence first), PyTorch's names and
    gate order (reset, update, new): ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``,
    ``h' = (1 - z) n + z h``.

    ``gru(x, h0=None)`` with ``x`` ``(T, B, input_size)`` returns ``(output (T, B, H),
    h_n (num_layers, B, H))``; no state means zeros.

    >>> import numpy as np
    >>> out, h = GRU(3, 2, rng=0)(np.ones((4, 5, 3), np.float32))
    >>> out.shape, h.shape
    ((4, 5, 2), (1, 5, 2))
    """

    _gates = 3
    _kind = "GRU"

    def __call__(self, x: Any, h0: Any = None) -> tuple[Any, Any]:
        xp, dtype, batch = self._check(x)
        h = self._state(xp, dtype, batch, h0, "h0")
        hid = self.hidden_size

        def cell(k: int, gi: Any, gh: Any) -> None:
            r = _sigmoid(gi[:, :hid] + gh[:, :hid])
            z = _sigmoid(gi[:, hid : 2 * hid] + gh[:, hid : 2 * hid])
            n = xp.tanh(gi[:, 2 * hid :] + r * gh[:, 2 * hid :])
            h[k] = (1 - z) * n + z * h[k]

        return self._unroll(x, h, cell), h


class GRUCell(Module):
    """``torch.nn.GRUCell`` at inference, PyTorch's names ``weight_ih`` ``(3H, in)``,
    ``weight_hh`` ``(3H, H)``, ``bias_ih``, ``bias_hh`` and gate order (reset, update, new).

    ``cell(x, h=None)`` with ``x`` ``(B, input_size)``, ``h`` ``(B, H)`` (zeros when left
    out) returns the next ``h`` ``(B, H)``; an unbatched ``x`` ``(input_size,)`` takes an
    ``h`` ``(H,)`` and returns ``(H,)``, as torch's.

    >>> import numpy as np
    >>> GRUCell(3, 2, rng=0)(np.ones((5, 3), np.float32)).shape
    (5, 2)
    """

    _param_names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.input_size = layer_size("GRUCell", "input_size", input_size)
        self.hidden_size = layer_size("GRUCell", "hidden_size", hidden_size, minimum=1)
        gen = _rng(rng)
        bound = 1 / np.sqrt(self.hidden_size)
        rows = 3 * self.hidden_size
        self.weight_ih = gen.uniform(-bound, bound, (rows, self.input_size)).astype(dtype)
        self.weight_hh = gen.uniform(-bound, bound, (rows, self.hidden_size)).astype(dtype)
        self.bias_ih = gen.uniform(-bound, bound, rows).astype(dtype) if bias else None
        self.bias_hh = gen.uniform(-bound, bound, rows).astype(dtype) if bias else None

    def __call__(self, x: Any, h: Any = None) -> Any:
        _check_features(x, self.input_size, "GRUCell input", self.weight_ih)
        if x.ndim == 1:  # torch's unbatched form: (input_size,) and h (H,)
            if h is not None and getattr(h, "ndim", None) != 1:
                raise ValueError(
                    f"GRUCell: an unbatched (1-D) input needs a 1-D h ({self.hidden_size},), "
                    f"got {getattr(h, 'shape', type(h).__name__)}"
                )
            return self(x[None, :], None if h is None else h[None, :])[0]
        if x.ndim != 2:
            raise ValueError(f"GRUCell input must be (B, input_size), got {tuple(x.shape)}")
        xp = get_namespace(x)
        hid = self.hidden_size
        if h is None:
            h = xp.zeros((x.shape[0], hid), dtype=np.result_type(x.dtype, self.weight_ih.dtype))
        elif not is_array(h) or tuple(h.shape) != (x.shape[0], hid):
            got = tuple(h.shape) if is_array(h) else type(h).__name__
            raise ValueError(f"GRUCell h must be {(x.shape[0], hid)}, got {got}")
        gi = matmul(x, self.weight_ih.T)
        gh = matmul(h, self.weight_hh.T)
        if self.bias_ih is not None:
            gi = gi + self.bias_ih
            gh = gh + self.bias_hh
        r = _sigmoid(gi[:, :hid] + gh[:, :hid])
        z = _sigmoid(gi[:, hid : 2 * hid] + gh[:, hid : 2 * hid])
        n = xp.tanh(gi[:, 2 * hid :] + r * gh[:, 2 * hid :])
        return (1 - z) * n + z * h

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, bias={self.bias_ih is not None}"


class Sequential(Module):
    """Layers and array functions applied in order; names ``"0.weight"``, ``"2.bias"`` like
    ``torch.nn.Sequential`` (parameter-free steps such as activations keep their index).

    >>> import numpy as np
    >>> from arraygnn.nn import Linear, Sequential
    >>> seq = Sequential(Linear(4, 8, rng=0), "relu", Linear(8, 2, rng=1))
    >>> sorted(seq.state_dict())
    ['0.bias', '0.weight', '2.bias', '2.weight']
    """

    def __new__(cls, *steps: Any, **kwargs: Any) -> Sequential:
        """PyG's form ``Sequential('x, edge_index', [...])`` (or with PyG's keywords
        ``input_args=`` / ``modules=``) builds a ``GraphSequential``
        (``arraygnn.nn.graph_sequential``)."""
        from arraygnn.nn.graph_sequential import GraphSequential, is_graph_signature

        pyg_keywords = {"input_args", "modules"} & kwargs.keys()
        if cls is Sequential and (is_graph_signature(steps) or pyg_keywords):
            cls = GraphSequential
        return super().__new__(cls)

    def __init__(self, *steps: Module | str | Callable[[Any], Any]) -> None:
        self.steps: list[Any] = []
        children = []
        for i, step in enumerate(steps):
            if isinstance(step, Module):
                self.steps.append(step)
                children.append(str(i))
                setattr(self, str(i), step)
            else:
                fn = get_activation(step)
                if fn is None:
                    raise ValueError(f"Sequential step {i} is None")
                self.steps.append(fn)
        self._child_names = tuple(children)

    def __call__(self, x: Any) -> Any:
        for step in self.steps:
            x = step(x)
        return x

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: int) -> Any:
        return self.steps[i]

    def extra_repr(self) -> str:
        return ", ".join(
            repr(s) if isinstance(s, Module) else getattr(s, "__name__", "fn") for s in self.steps
        )


def _mlp_channels(
    channel_list: Any, in_channels: Any, hidden: Any, out_channels: Any, num_layers: Any
) -> Any:
    """PyG ``MLP``'s sizes: ``channel_list``, or ``[in] + [hidden] * (num_layers - 1) +
    [out]`` from the keywords (``channel_list`` an int is ``in_channels``)."""
    if isinstance(channel_list, (int, np.integer)) and not isinstance(channel_list, bool):
        if in_channels is not None:
            raise ValueError("MLP: give channel_list or in_channels, not both")
        channel_list, in_channels = None, channel_list
    if in_channels is None:
        if channel_list is None:
            raise ValueError(
                "MLP: give channel_list or in_channels, hidden_channels, out_channels and "
                "num_layers"
            )
        return channel_list
    if channel_list is not None:
        raise ValueError("MLP: give channel_list or in_channels (with num_layers), not both")
    if num_layers is None:
        raise ValueError("MLP: num_layers must be given with in_channels")
    num_layers = layer_size("MLP", "num_layers", num_layers, minimum=1)
    if num_layers > 1 and hidden is None:
        raise ValueError(f"MLP: hidden_channels must be given for num_layers={num_layers}")
    if out_channels is None:
        raise ValueError("MLP: out_channels must be given with in_channels")
    return [in_channels] + [hidden] * (num_layers - 1) + [out_channels]


class MLP(Module):
    """Multi-layer perceptron with PyG's ``MLP`` parameter names (``lins.i``, ``norms.i``).

    Args:
        channel_list: sizes ``[in, hidden..., out]`` (at least two entries); or, as PyG,
            give ``in_channels``, ``hidden_channels``, ``out_channels`` and ``num_layers``
            (keywords; ``channel_list`` an int is ``in_channels``) for ``[in] + [hidden] *
            (num_layers - 1) + [out]``.
        act: activation between layers (default ``'relu'``): ``None``, a callable on arrays
            or a name PyG's resolver takes (``'relu'``, ``'LeakyReLU'``, ``'elu'``, ...).
        norm: ``None`` (default; PyG's default is ``'batch_norm'``) or a norm PyG's
            resolver names (any spelling it takes): ``'batch_norm'`` (inference-time
            BatchNorm, PyG's ``norms.i.module.*`` names), ``'layer_norm'``,
            ``'graph_norm'``, ``'instance_norm'``, ``'pair_norm'``, ``'diff_group_norm'``
            (``arraygnn.nn.norm``'s), one per hidden layer.
        plain_last: no norm / activation after the last linear (default ``True``, as PyG).
        bias: biases in the linear layers: one bool, or one per layer (PyG's list).
        act_first: apply the activation before the norm (PyG's ``act_first``; default
            ``False``: linear -> norm -> activation).
        norm_kwargs: keyword arguments of each norm (PyG's, e.g. ``{"mode": "node"}`` for
            ``layer_norm``; ``eps`` / ``affine`` for ``batch_norm``).
        act_kwargs: keyword arguments of an activation given by name (PyG's, e.g.
            ``{"negative_slope": 0.2}`` for ``'leaky_relu'``, ``{"alpha": 2.0}`` for ``'elu'``).
        dropout: PyG's dropout probability (a float, or one per layer); kept in
            ``self.dropout`` with PyG's rule (a float is not applied after the last layer with
            ``plain_last``). Inference only: dropout is the identity, nothing is dropped.

    Call as ``mlp(x, batch=None, batch_size=None, return_emb=None)`` (PyG's ``forward``):
    ``batch`` / ``batch_size`` reach only norms that take them (``graph_norm``,
    ``layer_norm``, ``instance_norm``, ``pair_norm``); a bool ``return_emb`` returns
    ``(out, emb)``, ``emb`` the output of the last normed layer (``None`` when
    ``return_emb`` is ``False``).

    Shapes:
        - input: ``(N, channel_list[0])``
        - output: ``(N, channel_list[-1])``
    """

    def __init__(
        self,
        channel_list: Sequence[int] | int | None = None,
        act: str | Callable[[Any], Any] | None = "relu",
        norm: str | None = None,
        plain_last: bool = True,
        bias: bool | Sequence[bool] = True,
        *,
        in_channels: int | None = None,
        hidden_channels: int | None = None,
        out_channels: int | None = None,
        num_layers: int | None = None,
        act_first: bool = False,
        norm_kwargs: dict[str, Any] | None = None,
        act_kwargs: dict[str, Any] | None = None,
        dropout: float | Sequence[float] = 0.0,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        from arraygnn.nn.norm.resolver import NORMS, make_norm, norm_key, takes_batch

        channel_list = _mlp_channels(
            channel_list, in_channels, hidden_channels, out_channels, num_layers
        )
        channel_list = [
            layer_size("MLP", f"channel_list[{i}]", c) for i, c in enumerate(channel_list)
        ]
        if len(channel_list) < 2:
            raise ValueError(f"MLP needs at least [in, out] channels, got {channel_list}")
        key = norm_key(norm)
        if norm is not None and key is None:
            raise ValueError(f"MLP: norm must be None or one of {sorted(NORMS)}, got {norm!r}")
        if norm_kwargs and key is None:
            raise ValueError(f"MLP: norm_kwargs {norm_kwargs} need a norm")
        n_lin = len(channel_list) - 1
        biases = _per_layer_bias(bias, n_lin)
        gen = _rng(rng)
        self.channel_list = channel_list
        # one activation for every layer, as PyG's (a PReLU's weight is ``act.weight``)
        self.act = resolve_act("MLP", act, act_kwargs, weights=True, dtype=dtype)
        self.plain_last = bool(plain_last)
        self.act_first = bool(act_first)
        self.dropout = _per_layer_dropout(dropout, n_lin, self.plain_last)
        self.lins = _ModuleList(
            [
                Linear(a, b, has_bias, dtype=dtype, rng=gen)
                for a, b, has_bias in zip(channel_list[:-1], channel_list[1:], biases)
            ]
        )
        n_norm = len(channel_list) - 2 if plain_last else len(channel_list) - 1
        self.norm = key
        self.norm_kwargs = dict(norm_kwargs or {})
        self.norms = (
            _ModuleList(
                [
                    make_norm("MLP", key, c, self.norm_kwargs, dtype, gen)
                    for c in channel_list[1 : 1 + n_norm]
                ]
            )
            if key is not None
            else None
        )
        self._norm_batch = self.norms is not None and n_norm > 0 and takes_batch(self.norms[0])
        self._child_names = ("lins", "norms") + (("act",) if isinstance(self.act, Module) else ())

    def __call__(
        self,
        x: Any,
        batch: Any = None,
        batch_size: int | None = None,
        return_emb: bool | None = None,
    ) -> Any:
        _check_features(x, self.channel_list[0], "MLP input", self.lins[0].weight)
        last = len(self.lins) - 1
        emb = h = self.before_last(x, batch, batch_size)
        x = self.lins[last](h)
        if last == 0:
            emb = None
        if not self.plain_last:
            x = emb = self._norm_act(last, x, batch, batch_size)
        if isinstance(return_emb, bool):
            return x, (emb if return_emb else None)
        return x

    def after_first(self, h: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        """Everything after the first linear layer, given its output ``h``."""
        last = len(self.lins) - 1
        if last == 0:
            return h if self.plain_last else self._norm_act(0, h, batch, batch_size)
        h = self._norm_act(0, h, batch, batch_size)
        for i in range(1, last):
            h = self._norm_act(i, self.lins[i](h), batch, batch_size)
        h = self.lins[last](h)
        return h if self.plain_last else self._norm_act(last, h, batch, batch_size)

    def before_last(self, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        """The input of the last linear layer (everything up to it)."""
        for i in range(len(self.lins) - 1):
            x = self._norm_act(i, self.lins[i](x), batch, batch_size)
        return x

    def _norm_act(self, i: int, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        if self.act is not None and self.act_first:
            x = self.act(x)
        if self.norms is not None:
            norm = self.norms[i]
            x = norm(x, batch, batch_size) if self._norm_batch else norm(x)
        if self.act is not None and not self.act_first:
            x = self.act(x)
        return x

    def load_state_dict(self, mapping: Any, format: str = "auto", strict: bool = True) -> Module:
        """``Module.load_state_dict``; norm weights offered to an MLP built without a norm
        name the likely cause (PyG's ``MLP`` defaults to ``norm='batch_norm'``)."""
        try:
            return super().load_state_dict(mapping, format, strict)
        except KeyError as err:
            keys = mapping.keys() if isinstance(mapping, Mapping) else ()
            if self.norms is not None or not any(str(k).startswith("norms.") for k in keys):
                raise
            raise KeyError(
                f"{err.args[0]}; these are norm weights: PyG's MLP uses norm='batch_norm' "
                "unless told otherwise, arraygnn's MLP norm=None, so build it with PyG's norm "
                "(e.g. MLP(channel_list, norm='batch_norm'))"
            ) from None

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        """PyG's ``BatchNorm`` wraps torch's: ``norms.0.weight`` is ``norms.0.module.weight``
        (``batch_norm`` only; PyG's other norms keep their names)."""
        out = super()._export_pyg(native)
        if getattr(self, "norm", "batch_norm") != "batch_norm":
            return out
        # arraygnn.nn.norm.BatchNorm (no running statistics) already names `module.*`
        plain = {str(i) for i, n in enumerate(self.norms or ()) if isinstance(n, BatchNorm)}

        def rename(key: str) -> str:
            found = _NORM_EXPORT.match(key)
            if found is None or found.group(1) not in plain:
                return key
            return _NORM_EXPORT.sub(r"norms.\1.module.", key)

        return {rename(k): v for k, v in out.items()}

    def extra_repr(self) -> str:
        return f"{self.channel_list}"


def _per_layer_bias(bias: Any, n_lin: int) -> list[bool]:
    """PyG's ``MLP`` ``bias``: one bool for every layer, or a list with one per layer."""
    if isinstance(bias, (bool, np.bool_)):
        return [bool(bias)] * n_lin
    if isinstance(bias, (list, tuple)) and all(isinstance(b, (bool, np.bool_)) for b in bias):
        if len(bias) == n_lin:
            return [bool(b) for b in bias]
    raise ValueError(
        f"MLP: bias must be a bool or a list of {n_lin} bools (one per layer), got {bias!r}"
    )


def _per_layer_dropout(dropout: Any, n_lin: int, plain_last: bool) -> list[float]:
    """PyG's ``MLP`` ``dropout``: a float for every layer (none after a plain last layer),
    or a list with one per layer; each a ``probability``."""
    if not isinstance(dropout, (list, tuple)):
        values = [probability("MLP", "dropout", dropout)] * n_lin
        if plain_last:
            values[-1] = 0.0
        return values
    if len(dropout) != n_lin:
        raise ValueError(
            f"MLP: dropout must be a float or a list of {n_lin} floats (one per layer), got "
            f"{dropout!r}"
        )
    return [probability("MLP", f"dropout[{i}]", p) for i, p in enumerate(dropout)]


class _ModuleList(Module):
    """Numbered list of layers (``"0.weight"``, ``"1.weight"``)."""

    def __init__(self, modules: Sequence[Module]) -> None:
        self._items = list(modules)
        for i, m in enumerate(self._items):
            setattr(self, str(i), m)
        self._child_names = tuple(str(i) for i in range(len(self._items)))

    def __getitem__(self, i: int) -> Module:
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._items)

    def extra_repr(self) -> str:
        return ", ".join(repr(m) for m in self._items)


class _ArrayFunction(Module):
    """A parameter-free torch module (``Identity``, dropout, an activation) as a layer with
    an empty state dict: ``layer(x)`` is ``fn(x)``."""

    def __init__(self, fn: Callable[[Any], Any], name: str) -> None:
        self.fn = fn
        self.name = name

    def __call__(self, x: Any) -> Any:
        return self.fn(x)

    def extra_repr(self) -> str:
        return self.name
