"""Grouped reversible residual blocks (Li et al., "Training Graph Neural Networks with 1000
Layers", 2021) at inference: PyG's ``GroupAddRev`` and DGL's ``GroupRevRes``.

The input features ``X`` are split into ``C`` groups ``X_1 .. X_C`` along a feature
dimension (as ``torch.chunk``: pieces of ``ceil(F / C)``, the last smaller when ``C`` does
not divide ``F``; such unequal groups work with 2 groups and layers of matching sizes, a
``ValueError`` otherwise), and ``C`` copies of a GNN layer ``f_1 .. f_C`` (each with its
own weights) run one after another::

    X'_0 = X_2 + ... + X_C
    X'_i = f_i(X'_{i-1}, graph, *args_i) + X_i        (i = 1 .. C)
    out  = X'_1 || ... || X'_C

``inverse`` recovers ``X`` from ``out`` (the same layers, subtracted in reverse order). The
references' memory-saving autograd function (the input is freed and recomputed in the
backward pass) has nothing to do at inference: the arrays passed in are left untouched.
No arithmetic of its own beyond the sums and the concatenation; the wrapped layers run
their own kernels.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv
>>> block = GroupAddRev(GCNConv(2, 2, rng=0), num_groups=2)
>>> x = np.random.default_rng(0).random((3, 4)).astype(np.float32)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> y = block(x, ei)
>>> y.shape, bool(np.allclose(block.inverse(y, ei), x, atol=1e-6))
((3, 4), True)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.dgl_sequential import _renamed
from arraygnn.nn.linear import _ModuleList

__all__ = ["GroupAddRev", "GroupRevRes"]


def _layers(name: str, first: Any, groups: int | None, what: str) -> list[Module]:
    """A list of layers given as such, or ``groups`` copies of one layer (the first the
    layer itself, the others deep copies)."""
    if isinstance(first, (list, tuple, _ModuleList)):
        layers = list(first)
    else:
        if groups is None:
            raise ValueError(f"{name}: give num_groups (or a list of layers)")
        groups = layer_size(name, what, groups)
        layers = [first] + [copy.deepcopy(first) for _ in range(groups - 1)]
    for i, layer in enumerate(layers):
        if not isinstance(layer, Module):
            raise TypeError(
                f"{name}: layer {i} must be an arraygnn layer, got {type(layer).__name__}"
            )
    if len(layers) < 2:
        raise ValueError(f"{name}: the number of groups must be at least 2, got {len(layers)}")
    return layers


def _split(name: str, x: Any, groups: int, axis: int, what: str) -> list[Any]:
    """``x`` cut into ``groups`` pieces along ``axis`` as ``torch.chunk`` does: pieces of
    ``ceil(size / groups)``, the last one smaller when the size does not divide (an empty
    dimension gives ``groups`` empty pieces); a size that ``torch.chunk`` cuts into fewer
    pieces (6 into 4: three pieces of 2) is a ``ValueError``."""
    if not is_array(x):
        raise TypeError(f"{name}: {what} must be a NumPy or CuPy array, got {type(x).__name__}")
    try:
        size = int(x.shape[axis])
    except IndexError:
        raise ValueError(
            f"{name}: {what} has {x.ndim} dimension(s), no dimension {axis} to split"
        ) from None
    piece = -(-size // groups)
    if size and -(-size // piece) < groups:
        raise ValueError(
            f"{name}: {what} dimension {axis} has size {size}: torch.chunk cuts it into "
            f"{-(-size // piece)} pieces, fewer than the {groups} groups"
        )
    return get_namespace(x).split(x, [piece * k for k in range(1, groups)], axis=axis)


def _fit(name: str, i: int, group: Any, out: Any) -> None:
    """Group ``i``'s layer output must have the shape of the group it is added to."""
    shape = getattr(out, "shape", None)
    if shape is None or tuple(shape) != tuple(group.shape):
        got = "no array" if shape is None else f"shape {tuple(shape)}"
        raise ValueError(
            f"{name}: group {i}'s layer returned {got}, its group has shape {tuple(group.shape)}"
        )


def _sum(name: str, pieces: list[Any], what: str) -> Any:
    """The sum of the groups ``pieces`` (which must have one shape)."""
    shapes = [tuple(p.shape) for p in pieces]
    if len(set(shapes)) > 1:
        raise ValueError(
            f"{name}: the groups of {what} have shapes {shapes}, which cannot be summed "
            "(unequal groups need exactly 2 groups)"
        )
    total = pieces[0]
    for piece in pieces[1:]:
        total = total + piece
    return total


def _chunk_args(
    name: str, args: tuple[Any, ...], groups: int, axis: int, channels: int | None
) -> list[tuple[Any, ...]]:
    """The extra arguments of each group. ``channels=None`` (DGL): every argument is split
    along ``axis``. Otherwise (PyG): an array whose size along ``axis`` is ``channels`` is
    split, anything else goes whole to every group."""
    parts = []
    for k, arg in enumerate(args):
        if channels is not None:
            try:
                split = is_array(arg) and int(arg.shape[axis]) == channels
            except IndexError:
                split = False
            if not split:
                parts.append([arg] * groups)
                continue
        parts.append(_split(name, arg, groups, axis, f"args[{k}]"))
    return [tuple(p[i] for p in parts) for i in range(groups)]


def _run_forward(
    name: str,
    layers: Sequence[Callable[..., Any]],
    xs: list[Any],
    call: Callable[[Callable[..., Any], Any, tuple[Any, ...]], Any],
    args: list[tuple[Any, ...]],
) -> list[Any]:
    y_in = _sum(name, xs[1:], "x")
    ys = []
    for i, layer in enumerate(layers):
        out = call(layer, y_in, args[i])
        _fit(name, i, xs[i], out)
        y_in = xs[i] + out
        ys.append(y_in)
    return ys


def _run_inverse(
    name: str,
    layers: Sequence[Callable[..., Any]],
    ys: list[Any],
    call: Callable[[Callable[..., Any], Any, tuple[Any, ...]], Any],
    args: list[tuple[Any, ...]],
) -> list[Any]:
    xs: list[Any] = []
    for i in range(len(layers) - 1, -1, -1):
        # xs holds X_C .. X_2 at i = 0 (summed in that order, as the references)
        y_in = ys[i - 1] if i else _sum(name, xs, "the recovered x")
        out = call(layers[i], y_in, args[i])
        _fit(name, i, ys[i], out)
        xs.append(ys[i] - out)
    return xs[::-1]


class GroupAddRev(Module):
    """PyG's ``GroupAddRev(conv, split_dim=-1, num_groups=None, disable=False,
    num_bwd_passes=1)``.

    Args:
        conv: an arraygnn layer whose output size equals its input size (``num_groups``
            copies are made: the first is ``conv`` itself, the others deep copies with the
            same weights — PyG re-initialises them; load the trained weights with
            ``load_state_dict`` or convert the PyG model with ``from_pyg``), or a list of
            layers, one per group.
        split_dim: the feature dimension cut into groups.
        num_groups: the number of groups ``C`` (at least 2; required with one ``conv``).
        disable, num_bwd_passes: the reference's memory-saving options; kept, no effect at
            inference.

    Call as ``block(x, edge_index, *args)``: group ``i`` runs ``convs[i](h, edge_index,
    *args_i)``; an array in ``args`` whose size along ``split_dim`` equals ``x``'s is split
    into the groups like ``x`` (as PyG's), anything else goes whole to every group (an
    ``edge_weight`` of length ``E``, unless ``E`` happens to equal the channel count, as
    in PyG). ``block.inverse(y, edge_index, *args)`` undoes it. Group ``i``'s layer must
    return the shape of group ``i`` (a ``ValueError`` naming the group otherwise; PyG
    would broadcast a group of size 1).

    Names (PyG's): ``convs.0.*``, ``convs.1.*``, ...
    """

    _child_names = ("convs",)

    def __init__(
        self,
        conv: Module | Sequence[Module],
        split_dim: int = -1,
        num_groups: int | None = None,
        disable: bool = False,
        num_bwd_passes: int = 1,
    ) -> None:
        self.convs = _ModuleList(_layers("GroupAddRev", conv, num_groups, "num_groups"))
        if isinstance(split_dim, bool) or not isinstance(split_dim, int):
            raise TypeError(f"GroupAddRev: split_dim must be an int, got {split_dim!r}")
        self.split_dim = split_dim
        self.disable = bool(disable)
        self.num_bwd_passes = layer_size("GroupAddRev", "num_bwd_passes", num_bwd_passes, 1)

    @property
    def num_groups(self) -> int:
        return len(self.convs)

    def _pieces(self, x: Any, args: tuple[Any, ...], what: str) -> tuple[list[Any], list[Any]]:
        xs = _split("GroupAddRev", x, self.num_groups, self.split_dim, what)
        channels = int(x.shape[self.split_dim])
        return xs, _chunk_args("GroupAddRev", args, self.num_groups, self.split_dim, channels)

    def __call__(self, x: Any, edge_index: Any, *args: Any) -> Any:
        xs, parts = self._pieces(x, args, "x")

        def call(conv: Callable[..., Any], h: Any, extra: tuple[Any, ...]) -> Any:
            return conv(h, edge_index, *extra)

        ys = _run_forward("GroupAddRev", list(self.convs), xs, call, parts)
        return get_namespace(x).concatenate(ys, axis=self.split_dim)

    def inverse(self, y: Any, edge_index: Any, *args: Any) -> Any:
        """The input ``x`` whose output is ``y``."""
        ys, parts = self._pieces(y, args, "y")

        def call(conv: Callable[..., Any], h: Any, extra: tuple[Any, ...]) -> Any:
            return conv(h, edge_index, *extra)

        xs = _run_inverse("GroupAddRev", list(self.convs), ys, call, parts)
        return get_namespace(y).concatenate(xs, axis=self.split_dim)

    def extra_repr(self) -> str:
        return f"{self.convs[0]!r}, num_groups={self.num_groups}"


class GroupRevRes(Module):
    """DGL's ``GroupRevRes(gnn_module, groups=2)``.

    Args:
        gnn_module: an arraygnn layer called as ``gnn_module(graph, feat, *args)`` whose
            output size equals its input size (``groups`` copies: the first is the layer
            itself, the others deep copies with the same weights, as DGL's ``deepcopy``),
            or a list of layers, one per group.
        groups: the number of groups (at least 2).

    Call as ``block(graph, x, *args)``: ``x`` and every array in ``args`` (edge features,
    ...) are split into ``groups`` pieces along their last dimension as DGL's
    ``torch.chunk(arg, groups, dim=-1)``; group ``i`` runs ``gnn_modules[i](graph, h,
    *args_i)``. ``block.inverse(graph, y, *args)`` undoes it.

    Names (DGL's): ``gnn_modules.0.*``, ``gnn_modules.1.*``, ... (each layer's DGL names).
    """

    _child_names = ("gnn_modules",)
    _dgl_supported = True

    def __init__(self, gnn_module: Module | Sequence[Module], groups: int = 2) -> None:
        self.gnn_modules = _ModuleList(_layers("GroupRevRes", gnn_module, groups, "groups"))
        self.groups = len(self.gnn_modules)

    def _pieces(self, x: Any, args: tuple[Any, ...], what: str) -> tuple[list[Any], list[Any]]:
        xs = _split("GroupRevRes", x, self.groups, -1, what)
        return xs, _chunk_args("GroupRevRes", args, self.groups, -1, None)

    @staticmethod
    def _caller(graph: Any) -> Callable[[Callable[..., Any], Any, tuple[Any, ...]], Any]:
        def call(layer: Callable[..., Any], h: Any, extra: tuple[Any, ...]) -> Any:
            return layer(graph, h, *extra)

        return call

    def __call__(self, graph: Any, x: Any, *args: Any) -> Any:
        xs, parts = self._pieces(x, args, "x")
        ys = _run_forward("GroupRevRes", list(self.gnn_modules), xs, self._caller(graph), parts)
        return get_namespace(x).concatenate(ys, axis=-1)

    def inverse(self, graph: Any, y: Any, *args: Any) -> Any:
        """The input ``x`` whose output is ``y``."""
        ys, parts = self._pieces(y, args, "y")
        xs = _run_inverse("GroupRevRes", list(self.gnn_modules), ys, self._caller(graph), parts)
        return get_namespace(y).concatenate(xs, axis=-1)

    def _each_child(self, values: dict[str, Any], to_native: bool) -> dict[str, Any]:
        out = {}
        for i, m in enumerate(self.gnn_modules):
            head = f"gnn_modules.{i}."
            part = {k[len(head) :]: v for k, v in values.items() if k.startswith(head)}
            if m._dgl_supported:
                part = _renamed(m._dgl_to_native if to_native else m._native_to_dgl, part)
            out.update({head + k: v for k, v in part.items()})
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return self._each_child(values, True)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return self._each_child(values, False)

    def extra_repr(self) -> str:
        return f"{self.gnn_modules[0]!r}, groups={self.groups}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> GroupAddRev:
    """PyG's ``GroupAddRev``: each group's conv through ``convert`` (its own weights)."""
    convs = []
    for i, conv in enumerate(module.convs):
        try:
            convs.append(convert(conv))
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"from_pyg: GroupAddRev.convs.{i} ({type(conv).__name__}) cannot be "
                f"converted ({err})"
            ) from None
    return GroupAddRev(
        convs,
        split_dim=int(module.split_dim),
        disable=bool(module.disable),
        num_bwd_passes=int(module.num_bwd_passes),
    )


def from_dgl_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> GroupRevRes:
    """DGL's ``GroupRevRes``: each group's module through ``convert`` (its own weights)."""
    layers = []
    for i, layer in enumerate(module.gnn_modules):
        try:
            layers.append(convert(layer))
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"from_dgl: GroupRevRes.gnn_modules.{i} ({type(layer).__name__}) cannot be "
                f"converted ({err})"
            ) from None
    return GroupRevRes(layers)
