"""Run a ``torch.fx`` graph on NumPy / CuPy arrays: what ``from_pyg`` makes of a
``torch.fx.GraphModule`` (PyG's ``to_hetero`` / ``to_hetero_with_bases`` return one).

:class:`FxProgram` replays the traced nodes in order: ``placeholder`` (the call's
arguments, dicts of arrays included), ``get_attr`` (the module's parameters and buffers,
converted to arrays), ``call_module`` (each submodule converted once through ``from_pyg``
/ ``from_torch``; activations and dropout become array functions), ``call_function`` and
``call_method`` from a fixed whitelist (arithmetic, ``operator.getitem``, ``torch.cat`` /
``stack`` / ``sum`` / ``mean`` / ``max`` / ``min``, activations, ``F.softmax`` /
``log_softmax`` / ``normalize``, dropout as the identity (inference), the helpers PyG's
transformers insert, PyG's ``global_add_pool`` / ``global_mean_pool`` / ``global_max_pool``,
``utils.scatter`` and ``utils.softmax`` (a model file wraps them with
``torch.fx.wrap('global_add_pool')``: traced through, they would read ``batch.max()``), and
tensor methods such as ``.relu()``, ``.view()``, ``.size()``),
and ``output``. Any other target is a ``ValueError`` naming the fx node and its target,
raised when the program is built (a container method on an array, ``.values`` of
anything but ``max`` / ``min``'s pair, is named when it runs). The arithmetic is plain
array code; the graph layers run their own kernels.

State-dict names are the GraphModule's (``conv1.paper__cites__paper.lin_l.weight``), so
``program.load_state_dict(graph_module.state_dict())`` works.

>>> import numpy as np
>>> torch = __import__("pytest").importorskip("torch")
>>> from arraygnn.nn import from_pyg
>>> gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()))
>>> prog = from_pyg(gm)
>>> prog(np.ones((4, 3), np.float32)).shape
(4, 2)
>>> sorted(prog.state_dict())
['0.bias', '0.weight']
"""

from __future__ import annotations

import importlib
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, as_array
from arraygnn.nn.linear import _elu, _gelu, _leaky_relu, _relu, _sigmoid, _tanh

__all__ = [
    "FxProgram",
    "TrimToLayer",
    "from_graph_module",
    "step_from_torch",
    "from_pyg_graph_module",
    "trim_from_pyg_module",
]


class _Ref(NamedTuple):
    """A reference to an earlier node's value."""

    name: str


class _Instr(NamedTuple):
    op: str
    name: str
    target: Any  # a dotted module path, a method name or a function on arrays
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _to(x: Any, *args: Any, dtype: Any = None, **_: Any) -> Any:
    """``tensor.to(dtype)`` / ``.to(other)`` / ``.to(dtype=...)``: a cast. A device string
    leaves the array where it is, ``copy`` / ``non_blocking`` change nothing, and a
    ``torch.device`` constant is refused at conversion."""
    for arg in args:
        if isinstance(arg, np.dtype):
            dtype = arg
        elif hasattr(arg, "dtype") and hasattr(arg, "shape"):  # .to(other): its dtype
            dtype = arg.dtype
    return x if dtype is None else x.astype(dtype, copy=False)


def _identity(x: Any, *args: Any, **kwargs: Any) -> Any:
    return x


# ---- array versions of torch's functions -----------------------------------------------
def _dim(kwargs: dict[str, Any], args: tuple[Any, ...], pos: int, default: Any = None) -> Any:
    return kwargs.get("dim", args[pos] if len(args) > pos else default)


def _reduce(name: str) -> Callable[..., Any]:
    def run(x: Any, *args: Any, **kwargs: Any) -> Any:
        dim = _dim(kwargs, args, 0)
        keep = bool(kwargs.get("keepdim", args[1] if len(args) > 1 else False))
        if kwargs.get("dtype") is not None:  # torch casts first
            x = x.astype(kwargs["dtype"], copy=False)
        xp = get_namespace(x)
        return getattr(xp, name)(
            x, axis=tuple(dim) if isinstance(dim, list) else dim, keepdims=keep
        )

    return run


class _ValuesIndices(NamedTuple):
    """torch's ``(values, indices)`` of ``max`` / ``min`` along a dim."""

    values: Any
    indices: Any


def _extreme(name: str) -> Callable[..., Any]:
    """``torch.max`` / ``torch.min``: elementwise with a second tensor (what ``to_hetero``
    inserts), ``(values, indices)`` along a ``dim``, or the whole tensor's."""
    pick, arg = ("maximum", "argmax") if name == "max" else ("minimum", "argmin")

    def run(x: Any, *args: Any, **kwargs: Any) -> Any:
        xp = get_namespace(x)
        other = args[0] if args else kwargs.get("other")
        if other is not None and not isinstance(other, (int, np.integer)):
            return getattr(xp, pick)(x, other)
        dim = _dim(kwargs, args, 0)
        if dim is None:
            return getattr(xp, name)(x)
        keep = bool(kwargs.get("keepdim", args[1] if len(args) > 1 else False))
        values = getattr(xp, name)(x, axis=dim, keepdims=keep)
        index = getattr(xp, arg)(x, axis=dim)
        return _ValuesIndices(values, xp.expand_dims(index, dim) if keep else index)

    return run


def _binary(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """``torch.add(input, other, alpha=...)``, ``x.div(other, rounding_mode=...)``, ... (the
    second operand positional or named, as torch takes it: ``other`` / ``exponent``)."""

    def run(
        a: Any,
        b: Any = None,
        *,
        alpha: Any = None,
        rounding_mode: Any = None,
        other: Any = None,
        exponent: Any = None,
    ) -> Any:
        b = next((v for v in (b, other, exponent) if v is not None), None)
        if alpha is not None:
            b = b * alpha
        out = fn(a, b)
        if rounding_mode == "floor":
            out = get_namespace(out).floor(out)
        elif rounding_mode == "trunc":
            out = get_namespace(out).trunc(out)
        return out

    return run


def _cat(tensors: Any, dim: int = 0, axis: Any = None) -> Any:
    tensors = list(tensors)
    return get_namespace(*tensors).concatenate(tensors, axis=dim if axis is None else axis)


def _stack(tensors: Any, dim: int = 0) -> Any:
    tensors = list(tensors)
    return get_namespace(*tensors).stack(tensors, axis=dim)


def _softmax_input(x: Any, dim: Any, dtype: Any, third: Any = None) -> tuple[Any, int]:
    """torch's ``softmax`` / ``log_softmax`` arguments: ``dtype`` casts the input first
    (``torch.softmax`` / ``x.softmax`` take it third, where ``F.softmax`` has its
    ``_stacklevel``); ``dim=None`` is torch's legacy implicit dim (0 for 0-, 1- and 3-D
    inputs, else 1)."""
    if dtype is None and isinstance(third, np.dtype):
        dtype = third
    if dtype is not None:
        x = x.astype(dtype, copy=False)
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return x, dim


def _softmax(x: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
    from arraygnn.nn._dense_input import softmax

    x, dim = _softmax_input(x, dim, dtype, _stacklevel)
    return softmax(x, axis=dim)


def _log_softmax(x: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
    x, dim = _softmax_input(x, dim, dtype, _stacklevel)
    if x.shape[dim] == 0:  # nothing to normalise (and no max to take)
        return x.copy()
    xp = get_namespace(x)
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))


def _normalize(x: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Any:
    """``F.normalize``: ``x / max(||x||_p, eps)`` along ``dim`` (torch's vector p-norm:
    ``p=inf`` the largest magnitude, ``-inf`` the smallest, ``0`` the non-zero count)."""
    xp = get_namespace(x)
    norm = xp.linalg.norm(x, ord=p, axis=dim, keepdims=True)
    return x / xp.maximum(norm, eps).astype(norm.dtype, copy=False)


def _act(fn: Callable[..., Any], *names: str) -> Callable[..., Any]:
    """An activation ignoring torch's ``inplace`` flag; extra positional / named
    parameters (``alpha``, ``negative_slope``) passed on by name."""

    def run(x: Any, *args: Any, inplace: bool = False, **kwargs: Any) -> Any:
        params = dict(zip(names, args))
        params.update({k: v for k, v in kwargs.items() if k in names})
        if "inplace" in params:
            del params["inplace"]
        return fn(x, **params)

    return run


def _gelu_any(x: Any, approximate: str = "none") -> Any:
    """``F.gelu``: exact, or torch's ``approximate='tanh'`` form
    ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))``."""
    if approximate == "none":
        return _gelu(x)
    if approximate != "tanh":
        raise ValueError(f"F.gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    xp = get_namespace(x)
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + xp.tanh(inner))


def _flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    nd = x.ndim
    if nd == 0:
        return x.reshape(1)
    s, e = start_dim % nd, end_dim % nd
    merged = math.prod(x.shape[s : e + 1])  # not -1: ambiguous for an empty array
    return x.reshape(x.shape[:s] + (merged,) + x.shape[e + 1 :])


def _shape(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> tuple[int, ...]:
    """torch's ``*shape`` / ``*dims`` argument: ints, one sequence, or named (``size=``,
    ``shape=``, ``dims=``)."""
    if not args and kwargs:
        args = (next(iter(kwargs.values())),)
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _size(x: Any, dim: Any = None) -> Any:
    return tuple(x.shape) if dim is None else x.shape[dim]


def _transpose(x: Any, dim0: int, dim1: int) -> Any:
    return get_namespace(x).swapaxes(x, dim0, dim1)


def _t(x: Any) -> Any:
    return x.T if x.ndim == 2 else x


def _squeeze(x: Any, dim: Any = None) -> Any:
    """torch's ``squeeze``: the size-1 dims among ``dim`` (one or a tuple) go, others stay."""
    if dim is None:
        return get_namespace(x).squeeze(x)
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    ones = tuple(d for d in dims if x.shape[d] == 1)
    return get_namespace(x).squeeze(x, axis=ones) if ones else x


def _get_dict(mapping: Any) -> Any:  # PyG's to_hetero_transformer.get_dict
    return mapping if mapping is not None else {}


#: attributes ``getattr`` may read (``values`` / ``indices`` of ``max`` / ``min``'s pair)
_ATTRIBUTES = ("shape", "ndim", "dtype", "T", "values", "indices")


def _getattr(obj: Any, name: str, *default: Any) -> Any:
    if name in ("values", "indices") and not isinstance(obj, _ValuesIndices):
        raise ValueError(f"getattr(..., {name!r}) is supported on max / min results only")
    return getattr(obj, name, *default)


_ELEMENTWISE = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "true_divide": operator.truediv,
    "matmul": operator.matmul,
    "pow": operator.pow,
}

#: array method (``x.relu()``) -> implementation (the tensor comes first)
_METHODS: dict[str, Callable[..., Any]] = {
    "relu": _relu,
    "relu_": _relu,
    "sigmoid": _sigmoid,
    "tanh": _tanh,
    "exp": lambda x: get_namespace(x).exp(x),
    "log": lambda x: get_namespace(x).log(x),
    "sqrt": lambda x: get_namespace(x).sqrt(x),
    "abs": lambda x: get_namespace(x).abs(x),
    "neg": operator.neg,
    "view": lambda x, *shape, **named: x.reshape(_shape(shape, named)),
    "reshape": lambda x, *shape, **named: x.reshape(_shape(shape, named)),
    "flatten": _flatten,
    "sum": _reduce("sum"),
    "mean": _reduce("mean"),
    "max": _extreme("max"),
    "min": _extreme("min"),
    "t": _t,
    "transpose": _transpose,
    "permute": lambda x, *dims, **named: x.transpose(_shape(dims, named)),
    "unsqueeze": lambda x, dim: get_namespace(x).expand_dims(x, dim),
    "squeeze": _squeeze,
    "size": _size,
    "dim": lambda x: x.ndim,
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "contiguous": _identity,
    "clone": lambda x, **_: x.copy(),
    "detach": _identity,
    "float": lambda x: x.astype(np.float32),
    "double": lambda x: x.astype(np.float64),
    "to": _to,
    **{name: _binary(fn) for name, fn in _ELEMENTWISE.items()},
}

#: dict / list methods ``to_hetero`` and model code call on containers
_CONTAINER_METHODS = ("get", "items", "keys", "values")


def _function_table(torch: Any) -> dict[Any, Callable[..., Any]]:
    """torch / operator / PyG function objects -> their array implementations."""
    F = torch.nn.functional
    table: dict[Any, Callable[..., Any]] = {
        operator.getitem: operator.getitem,
        operator.add: operator.add,
        operator.iadd: operator.add,
        operator.sub: operator.sub,
        operator.mul: operator.mul,
        operator.imul: operator.mul,
        operator.truediv: operator.truediv,
        operator.floordiv: operator.floordiv,
        operator.neg: operator.neg,
        operator.matmul: operator.matmul,
        operator.pow: operator.pow,
        getattr: _getattr,
        torch.cat: _cat,
        torch.concat: _cat,
        torch.stack: _stack,
        torch.sum: _reduce("sum"),
        torch.mean: _reduce("mean"),
        torch.max: _extreme("max"),
        torch.min: _extreme("min"),
        torch.maximum: lambda a, b: get_namespace(a).maximum(a, b),
        torch.minimum: lambda a, b: get_namespace(a).minimum(a, b),
        torch.flatten: _flatten,
        torch.relu: _relu,
        torch.sigmoid: _sigmoid,
        torch.tanh: _tanh,
        torch.exp: _METHODS["exp"],
        torch.dropout: _identity,
        torch.softmax: _softmax,
        torch.log_softmax: _log_softmax,
        torch.transpose: _transpose,
        torch.t: _t,
        F.relu: _act(_relu),
        F.elu: _act(_elu, "alpha"),
        F.leaky_relu: _act(_leaky_relu, "negative_slope"),
        F.gelu: _act(_gelu_any, "approximate"),
        F.sigmoid: _sigmoid,
        F.tanh: _tanh,
        F.softmax: _softmax,
        F.log_softmax: _log_softmax,
        F.normalize: _normalize,
        F.dropout: _identity,
    }
    for name, fn in _ELEMENTWISE.items():
        if hasattr(torch, name):
            table[getattr(torch, name)] = _binary(fn)
    try:
        from torch_geometric.nn import to_hetero_transformer as th
        from torch_geometric.nn import to_hetero_with_bases_transformer as thb

        ours = importlib.import_module("arraygnn.nn.to_hetero_with_bases")
    except ImportError:  # pragma: no cover - PyG missing: plain torch graphs only
        return table
    table[th.get_dict] = _get_dict
    # PyG's functions a model's forward calls, recorded as calls when the model file wraps
    # them (``torch.fx.wrap('global_add_pool')``: traced, they read ``batch.max()``)
    import torch_geometric.utils as pyg_utils
    from torch_geometric.nn.pool import glob

    readout = importlib.import_module("arraygnn.nn.readout")
    utils = importlib.import_module("arraygnn.utils")
    for name in ("global_add_pool", "global_mean_pool", "global_max_pool"):
        table[getattr(glob, name)] = getattr(readout, name)
    table[pyg_utils.scatter] = utils.scatter
    table[pyg_utils.softmax] = utils.softmax
    for name in (
        "get_node_offset_dict",
        "get_edge_offset_dict",
        "get_edge_type",
        "group_node_placeholder",
        "group_edge_placeholder",
        "split_output",
    ):
        table[getattr(thb, name)] = getattr(ours, name)
    return table


def _describe(target: Any) -> str:
    module = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", getattr(target, "__name__", repr(target)))
    return f"{module}.{name}" if module else str(name)


def step_from_torch(fn: Any, convert: Callable[[Any], Any], where: str) -> Any:
    """One callable of a torch model as an array callable: an activation or dropout
    module / function, a module converted through ``convert``, or a plain function traced
    with ``torch.fx`` into an :class:`FxProgram`; otherwise a ``ValueError`` naming
    ``where``."""
    import torch

    from arraygnn.nn.weights import _activation, _looks_like_activation

    nn = torch.nn
    if isinstance(fn, (nn.Dropout, nn.Identity)) or fn in (torch.dropout, nn.functional.dropout):
        return _identity
    if isinstance(fn, nn.Module):
        if _looks_like_activation(fn) and type(fn).__module__.startswith("torch.nn"):
            try:
                act = _activation(fn, where)
            except ValueError:
                act = False
            if act is not False:
                return _identity if act is None else _as_callable(act)
        try:
            return convert(fn)
        except (TypeError, ValueError) as err:
            kind = TypeError if isinstance(err, TypeError) else ValueError
            if not type(fn).__module__.startswith("torch.nn."):
                raise kind(f"{where}: {err}") from err
            # a torch module arraygnn has no layer for (Softmax, LogSoftmax, Flatten, ...):
            # its traced forward, when every operation in it is on the whitelist
            try:
                traced = from_graph_module(
                    torch.fx.symbolic_trace(fn), convert, state_names=fn.state_dict()
                )
            except Exception:
                raise kind(f"{where}: {err}") from err
            return traced
    try:
        act = _activation(fn, where)
        return _identity if act is None else _as_callable(act)
    except ValueError:
        pass
    pooled = _pyg_pool(fn)
    if pooled is not None:
        return pooled
    try:
        graph_module = torch.fx.symbolic_trace(fn)
    except Exception as err:
        raise ValueError(
            f"{where}: cannot translate {_describe(fn)}; torch.fx cannot trace it ({err})"
        ) from err
    try:  # a plain function holds no weights: what it captured is constant
        return from_graph_module(graph_module, convert, state_names=())
    except ValueError as err:
        raise ValueError(f"{where}: cannot translate {_describe(fn)}: {err}") from err


def _as_callable(act: Any) -> Callable[..., Any]:
    from arraygnn.nn.linear import get_activation

    return get_activation(act)  # type: ignore[return-value]


def _pyg_pool(fn: Any) -> Any:
    """PyG's ``global_{add,mean,max}_pool`` -> arraygnn's, keeping PyG's rule for a call
    without ``size``: ``batch.max() + 1`` graphs (one device sync on CuPy; arraygnn's own
    functions never guess, but the converted PyG model does what PyG's does)."""
    name = getattr(fn, "__name__", None)
    if name not in ("global_add_pool", "global_mean_pool", "global_max_pool"):
        return None
    if not str(getattr(fn, "__module__", "")).startswith("torch_geometric"):
        return None
    import arraygnn.nn as ours

    pool = getattr(ours, name)

    def run(x: Any, batch: Any = None, size: Any = None) -> Any:
        if batch is not None and size is None:
            size = int(batch.max()) + 1 if batch.shape[0] else 0
        return pool(x, batch, size)

    return run


def _to_plain(value: Any) -> Any:
    """fx constants as plain Python / NumPy values (``torch.Size`` -> tuple, a tensor
    constant -> array, a torch dtype -> NumPy's)."""
    import torch

    if isinstance(value, _Ref):
        return value
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, torch.Tensor):
        return as_array(value, "constant")
    if isinstance(value, torch.dtype):
        return np.dtype(str(value).replace("torch.", ""))
    if isinstance(value, list):  # fx's immutable_list too: a plain list, no torch type kept
        return [_to_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_plain(v) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(_to_plain(value.start), _to_plain(value.stop), _to_plain(value.step))
    if isinstance(value, (torch.device, torch.memory_format, torch.layout)):
        raise ValueError(f"constant {value!r} (a torch device / layout) is not supported")
    return value


def from_graph_module(
    graph_module: Any, convert: Callable[[Any], Any], state_names: Any = None
) -> FxProgram:
    """A ``torch.fx.GraphModule`` as an :class:`FxProgram` (submodules through
    ``convert``); a ``ValueError`` names the first fx node arraygnn cannot run.
    ``get_attr`` tensors named in ``state_names`` (default: the GraphModule's state dict)
    are weights; others are constants, in no state dict (a traced function's captured
    tensors, which fx stores as buffers of the GraphModule)."""
    import torch

    functions = _function_table(torch)
    code: list[_Instr] = []
    inputs: list[tuple[str, Any]] = []
    modules: dict[str, Any] = {}
    attrs: dict[str, Any] = {}
    constants: dict[str, Any] = {}  # fx's captured tensors: in no state dict, as torch's
    state_names = set(graph_module.state_dict() if state_names is None else state_names)

    def refs(value: Any) -> Any:
        return _to_plain(torch.fx.node.map_arg(value, lambda n: _Ref(n.name)))

    for node in graph_module.graph.nodes:
        label = f"fx node {node.name!r} ({node.op} {_describe(node.target)})"
        if node.op == "placeholder":
            default = node.args[0] if node.args else _NO_DEFAULT
            inputs.append(
                (node.name, _to_plain(default) if default is not _NO_DEFAULT else default)
            )
            continue
        if node.op == "get_attr":
            value = _fetch_attr(graph_module, node.target)
            if isinstance(value, torch.Tensor):
                kept = attrs if node.target in state_names else constants
                kept[node.target] = as_array(value.detach(), node.target).copy()
            else:
                raise ValueError(f"{label}: attribute of type {type(value).__name__}")
            target: Any = node.target
        elif node.op == "call_module":
            if node.target not in modules:
                sub = graph_module.get_submodule(node.target)
                modules[node.target] = step_from_torch(sub, convert, f"from_pyg: {label}")
            target = node.target
        elif node.op == "call_function":
            try:
                target = functions.get(node.target)
            except TypeError:  # unhashable target
                target = None
            if target is _getattr and (len(node.args) < 2 or node.args[1] not in _ATTRIBUTES):
                raise ValueError(
                    f"from_pyg: {label}: arraygnn cannot read attribute "
                    f"{node.args[1] if len(node.args) > 1 else '?'!r} (supported: "
                    f"{', '.join(_ATTRIBUTES)})"
                )
            if target is None:
                raise ValueError(
                    f"from_pyg: {label}: arraygnn cannot run function "
                    f"{_describe(node.target)} (supported: arithmetic, getitem, torch.cat / "
                    "stack / sum / mean / max / min, activations, softmax, normalize, dropout, "
                    "PyG's to_hetero helpers and PyG's global_add / mean / max_pool, scatter "
                    "and softmax, which a model file wraps with torch.fx.wrap('name') so that "
                    "tracing records them as calls)"
                )
        elif node.op == "call_method":
            target = node.target
            if target not in _METHODS and target not in _CONTAINER_METHODS:
                raise ValueError(
                    f"from_pyg: {label}: arraygnn cannot run tensor method .{target}() "
                    f"(supported: {', '.join(sorted(_METHODS))})"
                )
        elif node.op == "output":
            target = None
        else:  # pragma: no cover - fx has no other ops
            raise ValueError(f"from_pyg: {label}: unknown fx op")
        code.append(_Instr(node.op, node.name, target, refs(node.args), refs(dict(node.kwargs))))
    _uncalled_weights(graph_module, state_names, modules, attrs)
    return FxProgram(code, inputs, modules, attrs, constants)


_NO_DEFAULT = object()


def _uncalled_weights(
    graph_module: Any, state_names: set[str], modules: dict[str, Any], attrs: dict[str, Any]
) -> None:
    """The state-dict entries of submodules no fx node calls, kept so that the program's
    state dict is the GraphModule's (torch lists a tied module under each of its names;
    ``to_hetero`` leaves the other names of a tied module behind, and the originals of the
    modules it made per type). A submodule that is the very object of a called one becomes
    the same layer under its own name (``modules``); any other's initialised weights are
    kept as arrays (``attrs``), read by nothing."""
    import torch

    uninitialised = torch.nn.parameter.UninitializedTensorMixin
    called = {}
    for target, step in modules.items():
        if isinstance(step, Module):
            called[id(graph_module.get_submodule(target))] = step

    def is_called(path: str) -> bool:  # the path of a called module, or inside one
        return any(path == t or path.startswith(t + ".") for t in modules)

    def holds_called(path: str) -> bool:  # a called module lies inside it
        return any(t.startswith(path + ".") for t in modules)

    for key, value in graph_module.state_dict(keep_vars=True).items():
        if key not in state_names or key in attrs or is_called(key):
            continue
        parts = key.split(".")
        roots = [".".join(parts[:i]) for i in range(1, len(parts))]
        root = next((r for r in roots if not holds_called(r)), None)
        sub = graph_module.get_submodule(root) if root is not None else None
        if sub is not None and id(sub) in called:
            modules[root] = called[id(sub)]
        elif not isinstance(value, uninitialised):
            attrs[key] = as_array(value.detach(), key).copy()


def _fetch_attr(root: Any, target: str) -> Any:
    obj = root
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _with_refs(value: Any, leaf: Callable[[Any], Any]) -> Any:
    if isinstance(value, _Ref):
        return leaf(value)
    if isinstance(value, tuple):
        return tuple(_with_refs(v, leaf) for v in value)
    if isinstance(value, list):
        return [_with_refs(v, leaf) for v in value]
    if isinstance(value, dict):
        return {k: _with_refs(v, leaf) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(*(_with_refs(v, leaf) for v in (value.start, value.stop, value.step)))
    return value


def _tree(modules: Mapping[str, Any]) -> Any:
    """Dotted paths -> nested ``_ModuleDict`` (state-dict names ``a.b.<weight>``)."""
    from arraygnn.nn.hetero_conv import _ModuleDict

    nested: dict[str, Any] = {}
    for path, mod in modules.items():
        head, *rest = path.split(".")
        if rest:
            nested.setdefault(head, {})[".".join(rest)] = mod
        else:
            nested[head] = mod
    return _ModuleDict(
        {k: _tree(v) if isinstance(v, dict) else v for k, v in nested.items()},
        where="FxProgram.load_state_dict",
    )


class FxProgram(Module):
    """A traced program over arrays (see the module docstring). Call it as the traced
    module: ``program(*inputs, **named_inputs)``."""

    def __init__(
        self,
        code: list[_Instr],
        inputs: list[tuple[str, Any]],
        modules: Mapping[str, Any],
        attrs: Mapping[str, Any],
        constants: Mapping[str, Any] | None = None,
    ) -> None:
        self.code = list(code)
        self.inputs = list(inputs)
        self.modules = dict(modules)
        self._attrs = dict(attrs)
        self._constants = dict(constants or {})
        self._modules_tree = _tree(self.modules)

    # ---- weights: the submodule tree plus get_attr parameters / buffers ---------------
    def _named_arrays(self) -> list[tuple[str, Any]]:
        tree = self._modules_tree._named_arrays()
        names = {name for name, _ in tree}  # a parameter also read by get_attr: once
        return tree + [(k, v) for k, v in self._attrs.items() if k not in names]

    def _set_array(self, dotted: str, value: Any) -> None:
        """Into the submodule and / or the ``get_attr`` copy (a parameter that the
        program reads directly and through its module is set in both)."""
        in_tree = dotted not in self._attrs or any(
            name == dotted for name, _ in self._modules_tree._named_arrays()
        )
        if dotted in self._attrs:
            self._attrs[dotted] = value
        if in_tree:
            self._modules_tree._set_array(dotted, value)

    def to(self, device: str) -> FxProgram:
        """Weights and the captured constants (in no state dict) to ``device``."""
        from arraygnn._namespace import to_device

        super().to(device)
        self._constants = {k: to_device(v, device) for k, v in self._constants.items()}
        return self

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        from arraygnn.nn.to_hetero import rename_parts

        return rename_parts(super()._pyg_aliases(values), self._modules_tree._items, False)

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        from arraygnn.nn.to_hetero import rename_parts

        return rename_parts(native, self._modules_tree._items, export=True)

    def _clear_cache(self) -> None:
        self._modules_tree._clear_cache()

    # ---- running ---------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from arraygnn.nn.graph_sequential import bind_inputs

        names = [name for name, _ in self.inputs]
        env: dict[str, Any] = bind_inputs("FxProgram", names, args, kwargs)
        for name, default in self.inputs:
            if name not in env:
                if default is _NO_DEFAULT:
                    raise TypeError(f"FxProgram: missing input {name!r}")
                env[name] = default

        def look(ref: _Ref) -> Any:
            return env[ref.name]

        for ins in self.code:
            args_ = _with_refs(ins.args, look)
            kwargs_ = _with_refs(ins.kwargs, look)
            if ins.op == "output":
                return args_[0]
            if ins.op == "get_attr":
                out = self._attrs.get(ins.target, self._constants.get(ins.target))
            elif ins.op == "call_module":
                out = self.modules[ins.target](*args_, **kwargs_)
            elif ins.op == "call_function":
                out = ins.target(*args_, **kwargs_)
            elif ins.target in _CONTAINER_METHODS and isinstance(args_[0], (dict, list, tuple)):
                out = getattr(args_[0], ins.target)(*args_[1:], **kwargs_)
            else:
                obj = args_[0]
                if obj is None:
                    raise TypeError(
                        f"FxProgram: fx node {ins.name!r} calls .{ins.target}() on None (a "
                        "node type that no edge type reaches has no features here)"
                    )
                if ins.target not in _METHODS:  # .get() / .items() ... on an array
                    raise TypeError(
                        f"FxProgram: fx node {ins.name!r} calls .{ins.target}() on a "
                        f"{type(obj).__name__}; arraygnn runs it on dicts, lists and tuples"
                    )
                out = _METHODS[ins.target](obj, *args_[1:], **kwargs_)
            env[ins.name] = out
        return None  # pragma: no cover - fx graphs always end with an output

    def extra_repr(self) -> str:
        return f"{len(self.code)} nodes, modules={sorted(self.modules)}"


def from_pyg_graph_module(module: Any, dtype: Any, convert: Any) -> FxProgram:
    """``torch.fx.GraphModule`` (``to_hetero``'s output) -> :class:`FxProgram`."""
    return from_graph_module(module, convert)


class TrimToLayer(Module):
    """PyG's ``TrimToLayer`` module (a ``BasicGNN``'s ``_trim``, traced into the graph
    ``to_hetero(GraphSAGE(...), metadata)`` returns): called as ``trim(layer,
    num_sampled_nodes_per_hop, num_sampled_edges_per_hop, x, edge_index, edge_attr=None)``,
    it returns ``(x, edge_index, edge_attr)`` as they are unless both counts are given
    (then :func:`arraygnn.utils.trim_to_layer`); one count list without the other is a
    ``ValueError``, as PyG's (inside ``to_hetero`` a bipartite edge type gets a pair of
    node counts, so trimming there fails in PyG too).

    >>> import numpy as np
    >>> x, ei = np.zeros((3, 1)), np.array([[1, 2], [0, 0]])
    >>> TrimToLayer()(1, None, None, x, ei)[0] is x
    True
    >>> TrimToLayer()(1, [1, 2], [2], x, ei)[0].shape
    (1, 1)
    """

    def __call__(
        self,
        layer: int,
        num_sampled_nodes_per_hop: Any,
        num_sampled_edges_per_hop: Any,
        x: Any,
        edge_index: Any,
        edge_attr: Any = None,
    ) -> tuple[Any, Any, Any]:
        nodes, edges = num_sampled_nodes_per_hop, num_sampled_edges_per_hop
        for have, lack in ((edges, nodes), (nodes, edges)):
            if isinstance(have, list) and not isinstance(lack, list):
                name = "nodes" if lack is nodes else "edges"
                raise ValueError(
                    f"TrimToLayer: 'num_sampled_{name}_per_hop' needs to be given (a list) "
                    f"when the other count is, got {type(lack).__name__}"
                )
        if nodes is None or edges is None:
            return x, edge_index, edge_attr
        from arraygnn.utils.trim_to_layer import trim_to_layer

        return trim_to_layer(layer, nodes, edges, x, edge_index, edge_attr)


def trim_from_pyg_module(module: Any, dtype: Any, convert: Any) -> TrimToLayer:
    """PyG's ``TrimToLayer`` -> :class:`TrimToLayer` (it has no weights)."""
    return TrimToLayer()
