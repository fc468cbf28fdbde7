"""PyG's ``MessagePassing`` base class on arrays: write ``message`` / ``aggregate`` /
``update`` in NumPy (or CuPy) and call ``self.propagate(edge_index, x=x, ...)``.

``propagate`` follows PyG's protocol: every keyword given to it reaches ``message``,
``aggregate`` and ``update`` by name; an argument ``x_j`` / ``x_i`` of ``message`` receives
``x`` gathered at the source / target of each edge (``flow="source_to_target"``, the
default; reversed for ``"target_to_source"``); ``(x_src, x_dst)`` pairs make a bipartite
layer; ``edge_index``, ``edge_index_i``, ``edge_index_j``, ``index``, ``ptr``, ``size``,
``size_i``, ``size_j``, ``dim_size`` and ``adj_t`` are filled in by ``propagate``.
``edge_updater`` / ``edge_update`` do the same per edge. Hooks, ``decomposed_layers`` and
``explain`` behave as in PyG.

Which path runs (RULE: all three give the same numbers):

- ``edge_index`` a ``[2, E]`` integer array (or an :class:`arraygnn.ops.CSR`): ``message``
  builds the ``[E, ...]`` messages and ``aggregate`` reduces them with ``aggr``
  (:mod:`arraygnn.nn.aggr`, deterministic segment reductions).
- A class that keeps PyG's default ``message`` (``x_j``) and ``aggregate`` with a
  ``'sum'`` / ``'mean'`` / ``'max'`` / ``'min'`` aggregation: one fused
  :func:`arraygnn.ops.spmm`, no ``[E, F]`` message array (an arraygnn extension; hooks on
  ``message`` / ``aggregate``, a ``message`` set on the instance, ``explain`` or
  ``decomposed_layers > 1`` turn it off).
- ``edge_index`` a SciPy / cupyx sparse matrix holds PyG's *transposed* adjacency
  ``adj_t`` (``[num_targets, num_sources]``, row = target, as a ``SparseTensor``): a class
  that implements ``message_and_aggregate(adj_t, ...)`` with ``aggr`` one of ``'sum'``,
  ``'add'``, ``'mean'``, ``'min'``, ``'max'`` (or ``None``) gets that call instead of
  ``message`` + ``aggregate``, as in PyG. Otherwise ``message`` + ``aggregate`` run over
  its stored entries (a COO matrix in its stored order, other formats in CSR order), and
  its values fill the first of ``edge_weight`` / ``edge_attr`` / ``edge_type`` that they
  take, when ``None`` or not given (``edge_attr`` gets ``None``: SciPy values are scalars).

Weights: sub-layers assigned as attributes (``self.lin = Linear(...)``, any name) and arrays
declared with :meth:`MessagePassing.register_parameter` / :meth:`~MessagePassing.register_buffer`
are the layer's weights, named as in PyTorch, so
``layer.load_state_dict(pyg_layer.state_dict())`` loads a PyG layer's trained weights.

Arguments are collected as PyG's generated (jinja) ``propagate`` does, which PyG runs
unless ``decomposed_layers > 1`` or ``explain`` (then its Python ``_collect``; arraygnn keeps
one behaviour): an argument ``propagate`` was not given takes its default, shared over
``message`` / ``aggregate`` / ``update``; a pair gives ``x_j`` from ``x[0]`` and ``x_i`` from
``x[1]`` and sets ``size[0]`` / ``size[1]`` for either flow (so with
``'target_to_source'`` a bipartite layer has ``len(x[0])`` outputs, as in PyG); a lifted
argument that is not an array is ``None``; a pre-hook's replacement arguments reach the later
steps too. Differences, all on input PyG mishandles: a required argument that is missing
raises ``TypeError`` naming it; an out-of-range id raises ``IndexError`` before anything is
gathered; ``decomposed_layers`` that splits the features into fewer blocks than asked still
runs (PyG: ``IndexError``) and splits ``(x_src, x_dst)`` pairs (PyG: ``AttributeError``);
ids of any integer dtype are taken; ``size`` must be two non-negative ints or ``None``.

>>> import numpy as np
>>> from arraygnn.nn import Linear, MessagePassing
>>> class EdgeScaled(MessagePassing):
...     def __init__(self, channels):
...         super().__init__(aggr="mean")
...         self.lin = Linear(channels, channels, bias=False)
...     def forward(self, x, edge_index, edge_weight):
...         return self.propagate(edge_index, x=self.lin(x), edge_weight=edge_weight)
...     def message(self, x_j, edge_weight):
...         return edge_weight[:, None] * x_j
>>> conv = EdgeScaled(2)
>>> conv.lin.weight[...] = np.eye(2)
>>> x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> edge_index = np.array([[0, 1, 2], [2, 2, 0]])
>>> conv(x, edge_index, np.array([1.0, 0.5, 2.0])).tolist()
[[10.0, 12.0], [0.0, 0.0], [1.25, 2.0]]
>>> sorted(conv.state_dict())
['lin.weight']
"""

from __future__ import annotations

import inspect
import itertools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, is_array, repeat_counts, torch_hint
from arraygnn.nn._module import Module
from arraygnn.nn.aggr import (
    Aggregation,
    MaxAggregation,
    MeanAggregation,
    MinAggregation,
    SumAggregation,
    aggregation_resolver,
)
from arraygnn.nn.aggr.base import _checked_index
from arraygnn.nn.linear import _sigmoid
from arraygnn.ops._common import index_bounds
from arraygnn.ops.csr import CSR

__all__ = ["MessagePassing", "RemovableHandle"]

#: aggregations PyG fuses into ``message_and_aggregate`` for a sparse ``adj_t``
FUSE_AGGRS = frozenset({"add", "sum", "mean", "min", "max"})
#: exact aggregation classes the default ``message`` fuses into one ``ops.spmm``
_SPMM_REDUCES: dict[type, str] = {
    SumAggregation: "sum",
    MeanAggregation: "mean",
    MaxAggregation: "max",
    MinAggregation: "min",
}
_FLOWS = ("source_to_target", "target_to_source")
_EMPTY = inspect.Parameter.empty
#: the functions whose arguments PyG collects together (one flat signature, shared defaults)
_FLAT = ("message", "aggregate", "update")


class RemovableHandle:
    """What ``register_*_hook`` returns: ``handle.remove()`` takes the hook out again."""

    _ids = itertools.count()

    def __init__(self, hooks: OrderedDict[int, Callable]) -> None:
        self._hooks = hooks
        self.id = next(self._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _Graph:
    """One ``propagate`` call's connectivity: the ``(j, i)`` id arrays, sizes, CSR pieces."""

    def __init__(self, layer: MessagePassing, edge_index: Any, size: Any) -> None:
        self.layer = layer
        self.edge_index = edge_index
        self.sparse = None  # the caller's adj_t (SciPy / cupyx sparse)
        self.values = None  # the sparse matrix's stored values, edge order
        self.ptr = None  # CSR row pointer over targets, when edges are sorted by target
        name = type(layer).__name__
        if isinstance(edge_index, CSR):
            self.xp = get_namespace(edge_index.src)
            self.rows = (edge_index.src, edge_index.dst)
            self.size = [edge_index.num_src_nodes, edge_index.num_dst_nodes]
            if edge_index.perm_is_identity and layer.flow == "source_to_target":
                self.ptr = edge_index.indptr
        elif _is_sparse(edge_index):
            if layer.flow == "target_to_source":
                raise ValueError(
                    f"{name}: flow 'target_to_source' is invalid for a sparse adj_t; pass "
                    "the transposed matrix (adj_t.T) instead, as in PyG"
                )
            if edge_index.ndim != 2:
                raise ValueError(f"{name}: a sparse adj_t must be 2-D, got {edge_index.ndim}-D")
            n_dst, n_src = (int(s) for s in edge_index.shape)
            if getattr(edge_index, "format", None) == "coo":
                # the stored order (PyG's COO adj_t: edges as given, no ptr); tocsr() would
                # reorder them and sum duplicates, so per-edge arrays would no longer match
                self.xp = get_namespace(edge_index.row)
                self.rows = (edge_index.col.copy(), edge_index.row.copy())
                self.values = edge_index.data.copy()
            else:
                csr = edge_index.tocsr()
                self.xp = get_namespace(csr.indptr)
                counts = csr.indptr[1:] - csr.indptr[:-1]
                dst = repeat_counts(self.xp, self.xp.arange(n_dst, dtype=csr.indices.dtype), counts)
                self.rows = (csr.indices.copy(), dst)
                self.ptr = csr.indptr.copy()
                self.values = csr.data.copy()
            self.sparse = edge_index
            self.size = [n_src, n_dst]
        elif is_array(edge_index):
            self.xp = get_namespace(edge_index)
            if edge_index.dtype.kind not in "iu":
                raise ValueError(
                    f"{name}: expected 'edge_index' to be of integer type (got "
                    f"'{edge_index.dtype}')"
                )
            if edge_index.ndim != 2:
                raise ValueError(
                    f"{name}: expected 'edge_index' to be two-dimensional (got "
                    f"{edge_index.ndim} dimensions)"
                )
            if edge_index.shape[0] != 2:
                raise ValueError(
                    f"{name}: expected 'edge_index' to have size '2' in the first dimension "
                    f"(got '{edge_index.shape[0]}')"
                )
            self.rows = (edge_index[0], edge_index[1])
            self.size = [None, None] if size is None else _size_pair(name, size)
        else:
            raise TypeError(
                f"{name}.propagate: edge_index must be an integer array of shape [2, E], an "
                "arraygnn.ops.CSR or a SciPy / cupyx sparse adj_t, got "
                f"{type(edge_index).__name__}{torch_hint(edge_index)}"
            )
        i, j = (1, 0) if layer.flow == "source_to_target" else (0, 1)
        self.i, self.j = i, j
        self.num_edges = int(self.rows[0].shape[0])
        # (side, rows) pairs whose ids are known to lie in [0, rows): a CSR's were checked
        # against its own sizes when it was built, so its ids are never scanned again
        self._checked: set[tuple[int, int]] = (
            {(0, self.size[0]), (1, self.size[1])} if isinstance(edge_index, CSR) else set()
        )

    # ---- sizes and lifting ------------------------------------------------------------
    def axis(self, value: Any, arg: str) -> int:
        node_dim = self.layer.node_dim
        if not -value.ndim <= node_dim < value.ndim:
            raise ValueError(
                f"{type(self.layer).__name__}: '{arg}' has {value.ndim} dimension(s), "
                f"node_dim={node_dim} is out of range"
            )
        return node_dim % value.ndim

    def set_size(self, dim: int, value: Any, arg: str) -> None:
        n = int(value.shape[self.axis(value, arg)])
        if self.size[dim] is None:
            self.size[dim] = n
        elif self.size[dim] != n:
            raise ValueError(
                f"{type(self.layer).__name__}: encountered '{arg}' with size {n} in dimension "
                f"{self.layer.node_dim}, but expected size {self.size[dim]}"
            )

    def pick(self, data: Any, side_j: bool, arg: str) -> Any:
        """The array an ``{arg}_j`` (``side_j``) or ``{arg}_i`` argument lifts, recording node
        counts as PyG's jinja ``collect``: a pair gives element 0 to ``_j`` and element 1 to
        ``_i`` and sizes ``size[0]`` / ``size[1]`` whatever the flow; anything that is not an
        array (``None``, a scalar) gives ``None``."""
        if isinstance(data, (tuple, list)):
            if len(data) != 2:
                raise ValueError(
                    f"{type(self.layer).__name__}: '{arg}' must be an array or a pair "
                    f"(source, target), got a sequence of {len(data)}"
                )
            for k in (0, 1):
                if is_array(data[k]):
                    self.set_size(k, data[k], arg)
            value = data[0] if side_j else data[1]
            return value if is_array(value) else None
        if is_array(data):
            self.set_size(self.j if side_j else self.i, data, arg)
            return data
        return None

    def check(self, dim: int, n: int, arg: str) -> None:
        """PyG's ``IndexError`` for ids of side ``dim`` outside ``[0, n)`` (``n`` rows of
        ``arg``), checked once per ``(dim, n)``."""
        index = self.rows[dim]
        if (dim, n) not in self._checked and index.shape[0]:
            lo, hi = index_bounds(index)
            if lo < 0:
                raise IndexError(
                    f"{type(self.layer).__name__}: found negative indices in 'edge_index' "
                    f"(got {lo}); all indices must lie in [0, {n}) for '{arg}'"
                )
            if hi >= n:
                raise IndexError(
                    f"{type(self.layer).__name__}: found indices in 'edge_index' larger than "
                    f"{n - 1} (got {hi}); all indices must lie in [0, {n}) for '{arg}'"
                )
            self._checked.add((dim, n))

    def lift(self, value: Any, dim: int, arg: str) -> Any:
        """``value`` gathered at each edge's side ``dim`` (0 = ``edge_index[0]``)."""
        axis = self.axis(value, arg)
        self.check(dim, int(value.shape[axis]), arg)
        index = self.rows[dim]
        if get_namespace(value) is not self.xp:
            raise TypeError(
                f"{type(self.layer).__name__}: '{arg}' and edge_index are on different "
                "devices (NumPy and CuPy); move one with arraygnn.to_device"
            )
        if axis == 0:
            return ops.gather(value, index)
        return self.xp.take(value, index, axis=axis)

    def specials(self, wanted: set[str]) -> dict[str, Any]:
        i, j = self.i, self.j
        size_i = self.size[i] if self.size[i] is not None else self.size[j]
        size_j = self.size[j] if self.size[j] is not None else self.size[i]
        out = {
            "adj_t": self.sparse,
            "edge_index": self.edge_index if self.sparse is None else None,
            "edge_index_i": self.rows[i],
            "edge_index_j": self.rows[j],
            "index": self.rows[i],
            "ptr": self.ptr if i == 1 else None,
            "size": self.size,
            "size_i": size_i,
            "size_j": size_j,
            "dim_size": size_i,
        }
        if isinstance(self.edge_index, CSR) and "edge_index" in wanted:
            out["edge_index"] = self.xp.stack(self.rows)  # the [2, E] list, only when asked
        return out


def _is_sparse(value: Any) -> bool:
    module = type(value).__module__
    return (module.startswith("scipy.sparse") or module.startswith("cupyx.scipy.sparse")) and (
        hasattr(value, "tocsr")
    )


def _size_pair(name: str, size: Any) -> list[int | None]:
    if not isinstance(size, (tuple, list)) or len(size) != 2:
        raise TypeError(f"{name}.propagate: size must be a pair (N, M) or None, got {size!r}")
    out: list[int | None] = []
    for k, s in enumerate(size):
        if s is None:
            out.append(None)
            continue
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(
                f"{name}.propagate: size[{k}] must be a non-negative int or None, got {s!r}"
            )
        out.append(int(s))
    return out


def _params(func: Callable, exclude: tuple[int | str, ...] = ()) -> list[inspect.Parameter]:
    params = [p for p in inspect.signature(func).parameters.values() if p.name != "self"]
    return [
        p
        for k, p in enumerate(params)
        if k not in exclude
        and p.name not in exclude
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _flat_defaults(name: str, signatures: list[list[inspect.Parameter]]) -> dict[str, Any]:
    """PyG's ``Inspector.get_flat_param_dict`` defaults: an argument's default is the first
    one given by ``message`` / ``aggregate`` / ``update``; two different ones raise."""
    out: dict[str, Any] = {}
    for params in signatures:
        for p in params:
            known = out.get(p.name, _EMPTY)
            if p.default is _EMPTY:
                continue
            if known is _EMPTY:
                out[p.name] = p.default
            elif known is not p.default and not _same(known, p.default):
                raise ValueError(
                    f"{name}: found inconsistent defaults for argument '{p.name}'. Expected "
                    f"'{known}' but found '{p.default}' (as PyG)"
                )
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # arrays and other objects without one truth value
        return False


def _chunks(value: Any, parts: int) -> list[Any]:
    """``torch.chunk`` along the last dimension: pieces of ``ceil(F / parts)`` columns; a
    pair is split element by element (``None`` elements kept); ``[]`` when the elements of a
    pair split into different numbers of pieces."""
    if isinstance(value, (tuple, list)):
        pieces = [_chunks(v, parts) if is_array(v) else None for v in value]
        counts = {len(p) for p in pieces if p is not None}
        if len(counts) != 1:
            return []
        return [
            tuple(p[k] if p is not None else v for p, v in zip(pieces, value))
            for k in range(counts.pop())
        ]
    width = int(value.shape[-1])
    step = max(-(-width // parts), 1)
    return [value[..., start : start + step] for start in range(0, max(width, 1), step)]


class MessagePassing(Module):
    """PyG's ``MessagePassing(aggr='sum', *, aggr_kwargs=None, flow='source_to_target',
    node_dim=-2, decomposed_layers=1)``: subclass it, override ``message`` (and optionally
    ``aggregate``, ``update``, ``message_and_aggregate``, ``edge_update``) and call
    :meth:`propagate` from ``forward``; calling the layer runs ``forward``.

    Args:
        aggr: a name (``'sum'`` / ``'add'``, ``'mean'``, ``'max'``, ``'min'``, ``'mul'``,
            ``'softmax'``, ...), a list of names (outputs concatenated on the last axis),
            an :class:`arraygnn.nn.aggr.Aggregation`, or ``None`` when the class
            implements ``aggregate`` itself.
        aggr_kwargs: keyword arguments for the aggregation a name resolves to.
        flow: ``'source_to_target'`` (``edge_index[0]`` sends to ``edge_index[1]``) or
            ``'target_to_source'``.
        node_dim: the axis of node features along which ids are gathered and reduced.
        decomposed_layers: split ``*_j`` features into this many column blocks and
            propagate each in turn (lower peak memory, same result).

    Shapes:
        - ``propagate`` input: ``edge_index`` ``[2, E]``, an ``arraygnn.ops.CSR`` or a
          sparse ``adj_t`` ``[N_dst, N_src]``; node arrays ``[..., N, ...]`` along
          ``node_dim`` (or ``(x_src, x_dst)`` pairs)
        - ``message`` output: ``[..., E, ...]``; ``propagate`` output: whatever ``update``
          returns, by default ``[..., N_dst, ...]``
    """

    special_args: frozenset[str] = frozenset(
        {
            "edge_index",
            "adj_t",
            "edge_index_i",
            "edge_index_j",
            "size",
            "size_i",
            "size_j",
            "ptr",
            "index",
            "dim_size",
        }
    )

    def __init__(
        self,
        aggr: str | list[str] | Aggregation | None = "sum",
        *,
        aggr_kwargs: dict[str, Any] | None = None,
        flow: str = "source_to_target",
        node_dim: int = -2,
        decomposed_layers: int = 1,
    ) -> None:
        name = type(self).__name__
        if flow not in _FLOWS:
            raise ValueError(
                f"{name}: expected 'flow' to be either 'source_to_target' or "
                f"'target_to_source' (got {flow!r})"
            )
        if isinstance(node_dim, bool) or not isinstance(node_dim, (int, np.integer)):
            raise TypeError(f"{name}: node_dim must be an int, got {node_dim!r}")
        # instance copies of the class's names, extended as weights are assigned / registered
        self.__dict__.setdefault("_param_names", tuple(type(self)._param_names))
        self.__dict__.setdefault("_child_names", tuple(type(self)._child_names))
        self.__dict__.setdefault("_buffer_names", tuple(type(self)._buffer_names))
        if aggr is None:
            self.aggr = None
        elif isinstance(aggr, (str, Aggregation)):
            self.aggr = str(aggr)
        elif isinstance(aggr, (tuple, list)):
            self.aggr = [str(a) for a in aggr]
        else:
            raise TypeError(
                f"{name}: aggr must be a name, a list of names, an Aggregation or None, "
                f"got {aggr!r}"
            )
        self.aggr_module = (
            None if aggr is None else aggregation_resolver(aggr, **(aggr_kwargs or {}))
        )
        self.flow = flow
        self.node_dim = int(node_dim)
        cls = type(self)
        self._signatures = {
            "message": _params(cls.message),
            "aggregate": _params(cls.aggregate, (0, "aggr")),
            "message_and_aggregate": _params(cls.message_and_aggregate, (0,)),
            "update": _params(cls.update, (0,)),
            "edge_update": _params(cls.edge_update),
            "explain_message": _params(cls.explain_message, (0,)),
        }
        self._flat_defaults = _flat_defaults(name, [self._signatures[f] for f in _FLAT])
        self.fuse = cls.message_and_aggregate is not MessagePassing.message_and_aggregate
        if self.aggr is not None:
            self.fuse = self.fuse and isinstance(self.aggr, str) and self.aggr in FUSE_AGGRS
        self._propagate_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._propagate_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._message_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._message_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._aggregate_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._aggregate_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._message_and_aggregate_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._message_and_aggregate_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._edge_update_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._edge_update_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._explain: bool | None = None
        self._edge_mask: Any = None
        self._loop_mask: Any = None
        self._apply_sigmoid = True
        self.decomposed_layers = decomposed_layers

    # ---- weights: sub-layers and registered arrays, named as in PyTorch ----------------
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Module):  # any name, a leading "_" too, as torch.nn.Module
            children = self.__dict__.get("_child_names", tuple(type(self)._child_names))
            if name not in children:
                object.__setattr__(self, "_child_names", (*children, name))
        object.__setattr__(self, name, value)

    def register_parameter(self, name: str, value: Any) -> None:
        """Make array ``value`` (or ``None``) the weight ``name``: it appears in
        ``state_dict()`` and ``load_state_dict`` fills it (PyTorch's method)."""
        self._add_array("register_parameter", "_param_names", name, value)

    def register_buffer(self, name: str, value: Any, persistent: bool = True) -> None:
        """Make array ``value`` (or ``None``) the buffer ``name`` (PyTorch's method): with
        ``persistent=True`` it is in ``state_dict()`` and ``load_state_dict`` fills it, so a
        PyG layer's buffers load by name; otherwise it is a plain attribute."""
        self._add_array("register_buffer", "_buffer_names" if persistent else None, name, value)

    def _add_array(self, method: str, registry: str | None, name: str, value: Any) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(
                f"{type(self).__name__}.{method}: the name must be an identifier, got {name!r}"
            )
        if value is not None and not is_array(value):
            raise TypeError(
                f"{type(self).__name__}.{method}({name!r}): value must be a NumPy / CuPy "
                f"array or None, got {type(value).__name__}{torch_hint(value)}"
            )
        object.__setattr__(self, name, value)
        if registry is not None:
            names = self.__dict__.get(registry, tuple(getattr(type(self), registry)))
            if name not in names:
                object.__setattr__(self, registry, (*names, name))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Override: usually transforms features and calls :meth:`propagate`."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def reset_parameters(self) -> None:
        """PyG's method; inference weights stay as loaded."""

    def __repr__(self) -> str:
        if hasattr(self, "in_channels") and hasattr(self, "out_channels"):
            return f"{type(self).__name__}({self.in_channels}, {self.out_channels})"
        if hasattr(self, "channels"):
            return f"{type(self).__name__}({self.channels})"
        return f"{type(self).__name__}()"

    # ---- properties ---------------------------------------------------------------------
    @property
    def decomposed_layers(self) -> int:
        return self._decomposed_layers

    @decomposed_layers.setter
    def decomposed_layers(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(
                f"{type(self).__name__}: decomposed_layers must be an int >= 1, got {value!r}"
            )
        self._decomposed_layers = int(value)  # while explain is on, PyG runs one layer

    @property
    def explain(self) -> bool | None:
        """When ``True``, messages pass through :meth:`explain_message` (PyG's explainers)."""
        return self._explain

    @explain.setter
    def explain(self, value: bool | None) -> None:
        if value and self._decomposed_layers > 1:
            raise ValueError(f"{type(self).__name__}: explain needs decomposed_layers == 1")
        self._explain = value

    # ---- the protocol ---------------------------------------------------------------------
    def propagate(self, edge_index: Any, size: tuple[int, int] | None = None, **kwargs: Any) -> Any:
        """Gather, message, aggregate and update, as PyG's ``propagate``.

        ``edge_index``: ``[2, E]`` integer array (source row 0, target row 1 for the default
        flow), an :class:`arraygnn.ops.CSR` or a SciPy / cupyx sparse ``adj_t``
        ``[N_dst, N_src]``. ``size``: ``(N, M)`` for an array ``edge_index`` (inferred from
        the node arrays when left out). ``kwargs``: everything ``message`` / ``aggregate`` /
        ``update`` ask for by name (``x`` serves ``x_i`` and ``x_j``).
        """
        for hook in self._propagate_forward_pre_hooks.values():
            res = hook(self, (edge_index, size, kwargs))
            if res is not None:
                edge_index, size, kwargs = res
        graph = _Graph(self, edge_index, size)
        if self.fuse and not self._explain and graph.sparse is not None:
            out = self._fused(graph, kwargs)
        else:
            out = self._spmm_path(graph, kwargs)
            if out is None:
                out = self._unfused(graph, kwargs)
        for hook in self._propagate_forward_hooks.values():
            res = hook(self, (edge_index, graph.size, kwargs), out)
            if res is not None:
                out = res
        return out

    def message(self, x_j: Any) -> Any:
        """Override: the message of each edge (``[E, ...]``); default ``x_j``."""
        return x_j

    def aggregate(self, inputs: Any, index: Any, ptr: Any = None, dim_size: Any = None) -> Any:
        """Override: reduce the messages into targets; default the ``aggr`` module."""
        if self.aggr_module is None:
            raise NotImplementedError(
                f"{type(self).__name__} was built with aggr=None and must implement aggregate()"
            )
        return self.aggr_module(inputs, index, ptr=ptr, dim_size=dim_size, dim=self.node_dim)

    def message_and_aggregate(self, edge_index: Any) -> Any:
        """Override: fused message + aggregate, called for a sparse ``adj_t``."""
        raise NotImplementedError

    def update(self, inputs: Any) -> Any:
        """Override: the new node values from the aggregated ones; default unchanged."""
        return inputs

    def edge_updater(
        self, edge_index: Any, size: tuple[int, int] | None = None, **kwargs: Any
    ) -> Any:
        """Compute per-edge values with :meth:`edge_update` (PyG's ``edge_updater``): its
        arguments are collected like ``message``'s (``x_i`` / ``x_j`` lifted). As PyG's
        template, the hooks see ``(edge_index, size, edge_update_kwargs)``: the collected
        arguments, which a pre-hook may replace."""
        graph = _Graph(self, edge_index, size)
        coll = self._collect("edge_update", graph, kwargs)
        ek = self._bind("edge_update", coll)
        for hook in self._edge_update_forward_pre_hooks.values():
            res = hook(self, (edge_index, size, ek))
            if res is not None:
                edge_index, size, new = res
                ek = self._hooked("edge_update", coll, new)
        out = self.edge_update(**ek)
        for hook in self._edge_update_forward_hooks.values():
            res = hook(self, (edge_index, size, ek), out)
            if res is not None:
                out = res
        return out

    def edge_update(self) -> Any:
        """Override: per-edge values for :meth:`edge_updater`."""
        raise NotImplementedError(f"{type(self).__name__} must implement edge_update()")

    def explain_message(self, inputs: Any, dim_size: Any) -> Any:
        """Messages scaled by ``sigmoid(self._edge_mask)`` (PyG's explainer hook); edges the
        layer added as self loops (beyond ``_loop_mask``) keep weight 1."""
        mask = self._edge_mask
        if mask is None:
            raise ValueError(
                f"{type(self).__name__}: could not find a pre-defined '_edge_mask' to explain"
            )
        xp = get_namespace(inputs)
        if self._apply_sigmoid:
            mask = _sigmoid(mask)  # no overflow warning for a very negative entry
        axis = self.node_dim % inputs.ndim
        if inputs.shape[axis] != mask.shape[0]:
            if dim_size is None or self._loop_mask is None:
                raise ValueError(
                    f"{type(self).__name__}: '_edge_mask' has {mask.shape[0]} entries for "
                    f"{inputs.shape[axis]} messages"
                )
            mask = xp.concatenate([mask[self._loop_mask], xp.ones(dim_size, mask.dtype)])
        if inputs.shape[axis] != mask.shape[0]:
            raise ValueError(
                f"{type(self).__name__}: '_edge_mask' has {mask.shape[0]} entries for "
                f"{inputs.shape[axis]} messages"
            )
        shape = [1] * inputs.ndim
        shape[axis] = -1
        return inputs * mask.reshape(shape)

    # ---- internals ------------------------------------------------------------------------
    def _collect(self, *funcs_and_args: Any, fused: bool = False) -> dict[str, Any]:
        """Values for the parameters of ``funcs`` (names), as PyG's jinja ``collect``:
        ``*_i`` / ``*_j`` lifted, the special arguments, a sparse ``adj_t``'s values in the
        first of ``edge_weight`` / ``edge_attr`` / ``edge_type`` asked for (not for
        ``message_and_aggregate``, which PyG calls with the arguments as given). A value
        ``propagate`` was not given is ``_EMPTY`` (:meth:`_bind` fills in defaults)."""
        *funcs, graph, kwargs = funcs_and_args
        name = type(self).__name__
        names: list[str] = []
        wanted: set[str] = set()
        for func in funcs:
            for p in self._signatures[func]:
                wanted.add(p.name)
                if p.name not in names and p.name not in self.special_args:
                    names.append(p.name)
        if not fused:
            if graph.sparse is not None and "edge_index" in wanted:
                raise ValueError(
                    f"{name}: cannot collect 'edge_index' for a sparse adj_t (as PyG); "
                    "pass the [2, E] edge_index or ask for adj_t / edge_index_i / edge_index_j"
                )
            if graph.sparse is None and "adj_t" in wanted:
                raise ValueError(
                    f"{name}: cannot collect 'adj_t' for an edge_index (as PyG); pass a "
                    "SciPy / cupyx sparse adj_t or ask for edge_index"
                )
        out: dict[str, Any] = {}
        for arg in names:
            if arg[-2:] not in ("_i", "_j"):
                out[arg] = kwargs.get(arg, _EMPTY)
                continue
            data = kwargs.get(arg[:-2], _EMPTY)
            if data is _EMPTY:
                out[arg] = _EMPTY
                continue
            side_j = arg.endswith("_j")
            value = graph.pick(data, side_j, arg[:-2])
            dim = graph.j if side_j else graph.i
            out[arg] = None if value is None else graph.lift(value, dim, arg[:-2])
        out.update(graph.specials(wanted))
        if graph.sparse is not None and not fused:
            values = graph.values
            for key in ("edge_weight", "edge_attr", "edge_type"):
                if key in wanted:
                    given = out.get(key, _EMPTY)
                    if given is None or given is _EMPTY:
                        out[key] = None if key == "edge_attr" and values.ndim == 1 else values
                    break
        return out

    def _bind(self, func: str, coll: dict[str, Any]) -> dict[str, Any]:
        """``func``'s keyword arguments from ``coll``; one not collected takes its default,
        shared over ``message`` / ``aggregate`` / ``update`` as PyG's flat signature."""
        out = {}
        for p in self._signatures[func]:
            value = coll.get(p.name, _EMPTY)
            if value is _EMPTY:
                default = p.default
                if func in _FLAT and default is _EMPTY:
                    default = self._flat_defaults.get(p.name, _EMPTY)
                if default is _EMPTY:
                    raise TypeError(
                        f"{type(self).__name__}.{func}() needs '{p.name}', which propagate() "
                        f"was not given (pass {p.name.removesuffix('_i').removesuffix('_j')}="
                        "... to propagate)"
                    )
                value = default
            out[p.name] = value
        return out

    def _hooked(self, func: str, coll: dict[str, Any], res: Any) -> dict[str, Any]:
        """What a ``func`` pre-hook returned (a dict, or a 1-tuple of one), as PyG's template:
        ``func``'s arguments are read from it (extra keys ignored) and replace the collected
        ones, so the later steps see them too."""
        new = res[0] if isinstance(res, tuple) else res
        try:
            args = {p.name: new[p.name] for p in self._signatures[func]}
        except KeyError as err:
            raise KeyError(
                f"{type(self).__name__}: a {func} pre-hook returned arguments without "
                f"{err.args[0]!r}"
            ) from None
        coll.update(args)
        return args

    def _fused(self, graph: _Graph, kwargs: dict[str, Any]) -> Any:
        coll = self._collect("message_and_aggregate", "update", graph, kwargs, fused=True)
        adj_t = graph.sparse
        mk = self._bind("message_and_aggregate", coll)
        for hook in self._message_and_aggregate_forward_pre_hooks.values():
            res = hook(self, (adj_t, mk))
            if res is not None:
                adj_t, new = res
                mk = self._hooked("message_and_aggregate", coll, new)
        out = self.message_and_aggregate(adj_t, **mk)
        for hook in self._message_and_aggregate_forward_hooks.values():
            res = hook(self, (adj_t, mk), out)
            if res is not None:
                out = res
        return self.update(out, **self._bind("update", coll))

    def _spmm_path(self, graph: _Graph, kwargs: dict[str, Any]) -> Any:
        """The default message (``x_j``) with a sum / mean / max / min aggregation: one fused
        ``ops.spmm``; ``None`` when anything asks for the messages themselves (a ``message``
        or ``aggregate`` of the class or set on the instance, hooks, explain, decomposition).
        Sizes, ids and errors are those of the message path (the same ``pick`` / ``check``
        and the aggregation's ``dim_size`` check)."""
        if (
            getattr(self.message, "__func__", None) is not MessagePassing.message
            or getattr(self.aggregate, "__func__", None) is not MessagePassing.aggregate
            or type(self.aggr_module) not in _SPMM_REDUCES
            or self._explain
            or self._decomposed_layers > 1
            or self._message_forward_pre_hooks
            or self._message_forward_hooks
            or self._aggregate_forward_pre_hooks
            or self._aggregate_forward_hooks
        ):
            return None
        data = kwargs.get("x", _EMPTY)
        if data is _EMPTY:
            return None
        data = graph.pick(data, True, "x")
        if data is None or data.dtype.kind != "f" or self.node_dim % data.ndim != 0:
            return None
        if get_namespace(data) is not graph.xp:
            return None  # the message path names the device mismatch
        j, i = graph.j, graph.i
        graph.check(j, int(data.shape[0]), "x")
        coll = self._collect("update", graph, kwargs)
        n_dst = coll["dim_size"]
        if (i, n_dst) not in graph._checked:  # the aggregation's dim_size check
            _checked_index(type(self.aggr_module).__name__, graph.rows[i], graph.num_edges, n_dst)
        reduce = _SPMM_REDUCES[type(self.aggr_module)]
        if isinstance(graph.edge_index, CSR) and j == 0:
            out = ops.spmm(graph.edge_index, data, reduce=reduce)
        else:
            pair = graph.xp.stack([graph.rows[j], graph.rows[i]])
            out = ops.spmm(pair, data, reduce=reduce, num_dst_nodes=n_dst)
        return self.update(out, **self._bind("update", coll))

    def _decompose(self, kwargs: dict[str, Any], parts: int) -> list[dict[str, Any]]:
        """PyG's feature decomposition: every argument whose ``*_j`` is asked for, split into
        ``torch.chunk`` column blocks; one ``kwargs`` per block."""
        names = {
            p.name[:-2]
            for func in _FLAT
            for p in self._signatures[func]
            if p.name.endswith("_j") and p.name not in self.special_args
        }
        pieces = {
            a: _chunks(kwargs[a], parts)
            for a in sorted(names)
            if is_array(kwargs.get(a))
            or (isinstance(kwargs.get(a), (tuple, list)) and any(is_array(v) for v in kwargs[a]))
        }
        counts = {a: len(p) for a, p in pieces.items()}
        if len(set(counts.values())) > 1 or 0 in counts.values():
            raise ValueError(
                f"{type(self).__name__}: decomposed_layers={parts} splits the arguments into "
                f"different numbers of column blocks ({counts}); each block must meet its "
                "partners (PyG fails with an IndexError)"
            )
        rounds = next(iter(counts.values()), 1)
        return [{**kwargs, **{a: p[k] for a, p in pieces.items()}} for k in range(rounds)]

    def _unfused(self, graph: _Graph, kwargs: dict[str, Any]) -> Any:
        parts = 1 if self._explain else self._decomposed_layers
        rounds = self._decompose(kwargs, parts) if parts > 1 else [kwargs]
        funcs = ["message", "aggregate", "update"]
        if self._explain:
            funcs.append("explain_message")
        # the built-in aggregations check the target ids; a user's aggregate may not (NumPy
        # wraps a negative id around), so they are checked once against dim_size here
        own_aggregate = getattr(self.aggregate, "__func__", None) is not MessagePassing.aggregate
        outs = []
        for round_kwargs in rounds:
            coll = self._collect(*funcs, graph, round_kwargs)
            if own_aggregate and coll["dim_size"] is not None:
                graph.check(graph.i, coll["dim_size"], "index")
            for func in _FLAT:  # defaults once, shared by the three as in PyG's collect
                coll.update(self._bind(func, coll))
            mk = self._bind("message", coll)
            for hook in self._message_forward_pre_hooks.values():
                res = hook(self, (mk,))
                if res is not None:
                    mk = self._hooked("message", coll, res)
            out = self.message(**mk)
            for hook in self._message_forward_hooks.values():
                res = hook(self, (mk,), out)
                if res is not None:
                    out = res
            if self._explain:
                out = self.explain_message(out, **self._bind("explain_message", coll))
            ak = self._bind("aggregate", coll)
            for hook in self._aggregate_forward_pre_hooks.values():
                res = hook(self, (ak,))
                if res is not None:
                    ak = self._hooked("aggregate", coll, res)
            out = self.aggregate(out, **ak)
            for hook in self._aggregate_forward_hooks.values():
                res = hook(self, (ak,), out)
                if res is not None:
                    out = res
            outs.append(self.update(out, **self._bind("update", coll)))
        if len(outs) == 1:
            return outs[0]
        return get_namespace(*outs).concatenate(outs, axis=-1)

    # ---- hooks ----------------------------------------------------------------------------
    def _register(self, hooks: OrderedDict[int, Callable], hook: Callable) -> RemovableHandle:
        if not callable(hook):
            raise TypeError(f"{type(self).__name__}: a hook must be callable, got {hook!r}")
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_propagate_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (edge_index, size, kwargs))`` before ``propagate``; may return
        replacement inputs."""
        return self._register(self._propagate_forward_pre_hooks, hook)

    def register_propagate_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, inputs, output)`` after ``propagate``; may return a new output."""
        return self._register(self._propagate_forward_hooks, hook)

    def register_message_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (message_kwargs,))`` before ``message``; may return new arguments
        (a dict or a 1-tuple of one), which ``aggregate`` / ``update`` then see too."""
        return self._register(self._message_forward_pre_hooks, hook)

    def register_message_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (message_kwargs,), messages)`` after ``message``."""
        return self._register(self._message_forward_hooks, hook)

    def register_aggregate_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (aggregate_kwargs,))`` before ``aggregate``; may return new
        arguments, as for ``message``."""
        return self._register(self._aggregate_forward_pre_hooks, hook)

    def register_aggregate_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (aggregate_kwargs,), output)`` after ``aggregate``."""
        return self._register(self._aggregate_forward_hooks, hook)

    def register_message_and_aggregate_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (adj_t, kwargs))`` before ``message_and_aggregate``."""
        return self._register(self._message_and_aggregate_forward_pre_hooks, hook)

    def register_message_and_aggregate_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (adj_t, kwargs), output)`` after ``message_and_aggregate``."""
        return self._register(self._message_and_aggregate_forward_hooks, hook)

    def register_edge_update_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (edge_index, size, edge_update_kwargs))`` before ``edge_update``,
        with the collected arguments (``x_i`` / ``x_j``, ...); may return replacements."""
        return self._register(self._edge_update_forward_pre_hooks, hook)

    def register_edge_update_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, (edge_index, size, edge_update_kwargs), output)`` after
        ``edge_update``; may return a new output."""
        return self._register(self._edge_update_forward_hooks, hook)
