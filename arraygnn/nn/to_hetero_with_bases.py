"""PyG's ``to_hetero_with_bases``: one typed homogeneous graph, basis-decomposed layers.

``to_hetero_with_bases(model, metadata, num_bases, in_channels=None)`` (an arraygnn
``Sequential``, either form) returns a :class:`HeteroBasesModel` called with dicts, as
PyG's: node features of all types are concatenated in ``metadata`` order (after an
optional per-type ``Linear`` without bias, ``align_lin__<input>``, for the inputs named in
``in_channels``), edge indices shifted by the node offsets and concatenated in edge-type
order, and every message-passing step replaced by :class:`HeteroBasisConv`: ``num_bases``
copies of the layer, copy ``b`` scaling each message by ``edge_type_weight[b][type of
the edge]``, their outputs summed. Outputs are split back into dicts by type.

The per-edge scale is passed to the layer as its ``edge_weight``, which multiplies the
messages before the aggregation in the layers supported here: ``SAGEConv`` (mean / sum /
max) and PyG's ``GraphConv``; any other layer is a ``ValueError`` naming it. The helper
functions (``get_edge_type``, ``group_edge_placeholder``, ``split_output``, ...) are
PyG's, on arrays, and also run inside a converted PyG model (:mod:`arraygnn.nn.fx_program`).
A user edge weight reaches the layer multiplied by the type scale; as in PyG, an edge-level
input is grouped along dim -2, so with several edge types it is ``(E, 1)``.

Inference only: the ``num_bases`` copies keep the original layer's weights (PyG
re-initialises each copy) and ``edge_type_weight`` starts Glorot-uniform, also for
``num_bases=1`` (PyG 2.8.1 then leaves it uninitialised, ``torch.empty``); load the trained
weights with ``load_state_dict`` (PyG's names).

>>> import numpy as np
>>> from arraygnn.nn import SAGEConv, Sequential, to_hetero_with_bases
>>> model = Sequential('x, edge_index', [(SAGEConv(4, 8, 'mean', rng=0), 'x, edge_index -> x')])
>>> meta = (['paper', 'author'], [('paper', 'cites', 'paper'), ('paper', 'by', 'author')])
>>> hetero = to_hetero_with_bases(model, meta, num_bases=2)
>>> x = {'paper': np.ones((3, 4), np.float32), 'author': np.ones((2, 4), np.float32)}
>>> ei = {meta[1][0]: np.array([[0, 1], [1, 2]]), meta[1][1]: np.array([[0, 2], [1, 0]])}
>>> {k: v.shape for k, v in hetero(x, ei).items()}
{'paper': (3, 8), 'author': (2, 8)}
>>> sorted(hetero.state_dict())[:2]
['module_0.convs.0.edge_type_weight', 'module_0.convs.0.lin_l.bias']
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import device_of, get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.graph_sequential import bind_inputs
from arraygnn.nn.linear import Linear, _rng, glorot
from arraygnn.nn.to_hetero import (
    check_metadata,
    key2str,
    levels_of,
    program_of,
    rename_parts,
)

__all__ = [
    "to_hetero_with_bases",
    "HeteroBasesModel",
    "HeteroBasisConv",
    "LinearAlign",
    "get_node_offset_dict",
    "get_edge_offset_dict",
    "get_edge_type",
    "group_node_placeholder",
    "group_edge_placeholder",
    "split_output",
]

#: arraygnn layers whose ``edge_weight`` scales each message before the aggregation
_SCALABLE = ("SAGEConv", "PyGGraphConv")


def _is_index(value: Any) -> bool:
    return value.ndim == 2 and value.shape[0] == 2 and value.dtype.kind in "iu"


def get_node_offset_dict(input_dict: Mapping[Any, Any], type2id: Mapping[Any, int]) -> dict:
    """Where each node type starts in the concatenated rows (``metadata`` order)."""
    out, total = {}, 0
    for key in type2id:
        out[key] = total
        total += input_dict[key].shape[-2]
    return out


def get_edge_offset_dict(input_dict: Mapping[Any, Any], type2id: Mapping[Any, int]) -> dict:
    """Where each edge type starts among the concatenated edges."""
    out, total = {}, 0
    for key in type2id:
        out[key] = total
        value = input_dict[key]
        total += value.shape[-1] if _is_index(value) else value.shape[-2]
    return out


def get_edge_type(input_dict: Mapping[Any, Any], type2id: Mapping[Any, int]) -> Any:
    """Each concatenated edge's type id (int64)."""
    outs = []
    for i, key in enumerate(type2id):
        value = input_dict[key]
        n = value.shape[-1] if _is_index(value) else value.shape[-2]
        outs.append(get_namespace(value).full(n, i, dtype=np.int64))
    return outs[0] if len(outs) == 1 else get_namespace(*outs).concatenate(outs)


def group_node_placeholder(input_dict: Mapping[Any, Any], type2id: Mapping[Any, int]) -> Any:
    """Node features of every type, concatenated in ``metadata`` order."""
    inputs = [input_dict[key] for key in type2id]
    return inputs[0] if len(inputs) == 1 else get_namespace(*inputs).concatenate(inputs, -2)


def group_edge_placeholder(
    input_dict: Mapping[Any, Any], type2id: Mapping[Any, int], offset_dict: Any = None
) -> Any:
    """Edge indices shifted by the node offsets and concatenated (edge features just
    concatenated)."""
    inputs = [input_dict[key] for key in type2id]
    if len(inputs) == 1:
        return inputs[0]
    xp = get_namespace(*inputs)
    if not _is_index(inputs[0]):
        return xp.concatenate(inputs, axis=-2)
    if offset_dict is None:
        raise AttributeError(
            "Can not infer node-level offsets. Please ensure that there exists a node-level "
            "argument before the 'edge_index' argument in your forward header."
        )
    dtype = np.result_type(*[v.dtype for v in inputs])
    outs = []
    for value, (src, _, dst) in zip(inputs, type2id):
        shift = xp.asarray([[offset_dict[src]], [offset_dict[dst]]], dtype=dtype)
        outs.append(value.astype(dtype, copy=False) + shift)
    return xp.concatenate(outs, axis=-1)


def split_output(output: Any, offset_dict: Mapping[Any, int]) -> dict:
    """Rows of ``output`` back into a dict by type."""
    starts = list(offset_dict.values()) + [output.shape[-2]]
    return {key: output[..., starts[i] : starts[i + 1], :] for i, key in enumerate(offset_dict)}


class HeteroBasisConv(Module):
    """``num_bases`` copies of a layer; copy ``b`` scales each message by
    ``edge_type_weight[b][0, edge_type]`` (PyG's names: ``convs.<b>.edge_type_weight``,
    ``convs.<b>.<layer weights>``); called as ``conv(edge_type, x, edge_index, ...)``."""

    def __init__(self, module: Module, num_relations: int, num_bases: int, rng: Any = None):
        kind = type(module).__name__
        if kind not in _SCALABLE:
            raise ValueError(
                f"to_hetero_with_bases: {kind} cannot weight its messages per edge type "
                f"(supported: SAGEConv, PyG's GraphConv)"
            )
        self.num_relations = int(num_relations)
        self.num_bases = int(num_bases)
        if self.num_bases < 1 or self.num_relations < 1:
            raise ValueError("HeteroBasisConv: num_bases and num_relations must be >= 1")
        gen = _rng(rng)
        dtype = module.dtype or np.float32
        self.convs = [copy.deepcopy(module) for _ in range(self.num_bases)]
        self.edge_type_weight = [
            glorot((1, self.num_relations), gen, dtype) for _ in range(self.num_bases)
        ]

    def _named_arrays(self) -> list[tuple[str, Any]]:
        out = []
        for b, conv in enumerate(self.convs):
            out.append((f"convs.{b}.edge_type_weight", self.edge_type_weight[b]))
            out += [(f"convs.{b}.{k}", v) for k, v in conv._named_arrays()]
        return out

    def _set_array(self, dotted: str, value: Any) -> None:
        _, b, rest = dotted.split(".", 2)
        if rest == "edge_type_weight":
            self.edge_type_weight[int(b)] = value
        else:
            self.convs[int(b)]._set_array(rest, value)

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        convs = {str(b): conv for b, conv in enumerate(self.convs)}
        return rename_parts(values, {"convs": convs}, export=False)

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        convs = {str(b): conv for b, conv in enumerate(self.convs)}
        return rename_parts(native, {"convs": convs}, export=True)

    def _clear_cache(self) -> None:
        for conv in self.convs:
            conv._clear_cache()

    def __call__(self, edge_type: Any, x: Any, edge_index: Any, *args: Any, **kwargs: Any) -> Any:
        n_edges = edge_index.shape[-1]
        if edge_type.shape[0] != n_edges:
            raise ValueError(
                f"HeteroBasisConv: number of messages ({n_edges}) does not match with the "
                f"number of original edges ({edge_type.shape[0]})"
            )
        if "edge_weight" in kwargs:  # the caller's own weights multiply the type scale
            given = kwargs.pop("edge_weight")
        else:
            given, args = (args[0], args[1:]) if args else (None, args)
        if given is not None:
            # PyG's layers take edge_weight.view(-1, 1): (E,) or (E, 1), the form the
            # grouped edge-level input has (PyG concatenates edge inputs along dim -2)
            if not hasattr(given, "shape") or given.size != n_edges:
                raise ValueError(
                    "HeteroBasisConv: edge_weight must hold one weight per edge, (E,) or "
                    f"(E, 1) with E={n_edges}, got {getattr(given, 'shape', type(given))}"
                )
            given = given.reshape(-1)
        out = None
        for conv, weight in zip(self.convs, self.edge_type_weight):
            scale = weight.reshape(-1)[edge_type]
            if given is not None:
                scale = scale * given
            res = conv(x, edge_index, scale, *args, **kwargs)
            out = res if out is None else out + res
        return out

    def extra_repr(self) -> str:
        return f"num_relations={self.num_relations}, num_bases={self.num_bases}"


class LinearAlign(Module):
    """One ``Linear`` without bias per type (``lins.<type>.weight``), PyG's lazy
    ``Linear(-1, out_channels)``: a type's weight is made on its first call (Glorot,
    ``rng``) or by ``load_state_dict`` from the loaded shape."""

    def __init__(self, keys: list[Any], out_channels: int, rng: Any = None) -> None:
        self.out_channels = int(out_channels)
        self.keys = list(keys)
        self.lins: dict[str, Linear | None] = {key2str(k): None for k in self.keys}
        self._gen = _rng(rng)

    def materialise(
        self, name: str, in_channels: int, dtype: Any = np.float32, device: str = "cpu"
    ) -> Linear:
        lin = self.lins.get(name)
        if lin is None or lin.in_features != in_channels:
            lin = Linear(in_channels, self.out_channels, False, dtype=dtype, rng=self._gen)
            if device != "cpu":  # PyG's lazy weights are made where the input lives
                lin.to(device)
            self.lins[name] = lin
        return lin

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return [(f"lins.{k}.weight", lin.weight) for k, lin in self.lins.items() if lin is not None]

    def _set_array(self, dotted: str, value: Any) -> None:
        self.lins[dotted.split(".")[1]].weight = value  # type: ignore[union-attr]

    def __call__(self, x_dict: Mapping[Any, Any]) -> dict:
        out = {}
        for key, x in x_dict.items():
            name = key2str(key)
            lin = self.lins.get(name) or self.materialise(name, x.shape[-1], x.dtype, device_of(x))
            out[key] = lin(x)
        return out


_ALIGN = re.compile(r"^(align_lin__\w+?)\.lins\.(\w+)\.weight$")


class HeteroBasesModel(Module):
    """The model :func:`to_hetero_with_bases` builds (see the module docstring)."""

    def __init__(
        self,
        module: Any,
        metadata: Any,
        num_bases: int,
        in_channels: Mapping[str, int] | None = None,
        input_map: Mapping[str, str] | None = None,
        rng: Any = None,
    ) -> None:
        where = "to_hetero_with_bases"
        self.node_types, self.edge_types = check_metadata(metadata, where)
        self.input_names, self.steps = program_of(module, where)
        self.input_level, _, self.kinds, self.level = levels_of(
            self.input_names, self.steps, input_map
        )
        self.node_ids = {k: i for i, k in enumerate(self.node_types)}
        self.edge_ids = {k: i for i, k in enumerate(self.edge_types)}
        num_bases = layer_size(where, "num_bases", num_bases, minimum=1)  # 2.5 / '2' ran
        if in_channels is not None and not isinstance(in_channels, Mapping):
            raise TypeError(
                f"{where}: in_channels must map input names to sizes, got {in_channels!r}"
            )
        self.in_channels = {
            k: layer_size(where, f"in_channels[{k!r}]", v, minimum=1)
            for k, v in (in_channels or {}).items()
        }
        gen = _rng(rng)
        children = []
        self._fns: dict[str, Any] = {}
        for step, kind in zip(self.steps, self.kinds):
            fn = step.fn
            if kind == "mp":
                fn = HeteroBasisConv(fn, len(self.edge_types), num_bases, rng=gen)
            self._fns[step.name] = fn
            if isinstance(fn, Module):
                setattr(self, step.name, fn)
                children.append(step.name)
        for name in self.input_names:
            if name in self.in_channels:
                keys = self.edge_types if self.input_level[name] == "edge" else self.node_types
                child = f"align_lin__{name}"
                setattr(self, child, LinearAlign(keys, self.in_channels[name], rng=gen))
                children.append(child)
        self._child_names = tuple(children)

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        children = {name: getattr(self, name) for name in self._child_names}
        return rename_parts(super()._pyg_aliases(values), children, export=False)

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        children = {name: getattr(self, name) for name in self._child_names}
        return rename_parts(native, children, export=True)

    def load_state_dict(
        self, mapping: Mapping[str, Any], format: str = "auto", strict: bool = True
    ) -> Module:
        """Also sizes the lazy ``align_lin__*`` weights from the loaded shapes."""
        for key, value in mapping.items():
            found = _ALIGN.match(key)
            if found and found.group(1) in self._child_names:
                getattr(self, found.group(1)).materialise(found.group(2), int(value.shape[-1]))
        return super().load_state_dict(mapping, format, strict)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        names = self.input_names
        raw = bind_inputs("to_hetero_with_bases model", names, args, kwargs)
        node_offsets = edge_offsets = edge_type = None
        values: dict[str, Any] = {}
        for name in names:
            given = raw.get(name)
            if not isinstance(given, Mapping):
                raise TypeError(
                    f"to_hetero_with_bases model: input {name!r} must be a dict by "
                    f"{self.input_level[name]} type, got {type(given).__name__}"
                )
            is_edge = self.input_level[name] == "edge"
            if is_edge and edge_offsets is None:
                edge_offsets = get_edge_offset_dict(given, self.edge_ids)
                edge_type = get_edge_type(given, self.edge_ids)
            elif not is_edge and node_offsets is None:
                node_offsets = get_node_offset_dict(given, self.node_ids)
            if name in self.in_channels:
                given = getattr(self, f"align_lin__{name}")(given)
            values[name] = (
                group_edge_placeholder(given, self.edge_ids, node_offsets)
                if is_edge
                else group_node_placeholder(given, self.node_ids)
            )
        from arraygnn.nn.graph_sequential import store

        for step, kind in zip(self.steps, self.kinds):
            ins = [values[p] for p in step.param_names]
            fn = self._fns[step.name]
            out = fn(edge_type, *ins) if kind == "mp" else fn(*ins)
            store(values, step, out)
        outs = []
        for name in self.steps[-1].return_names:
            level = self.level[name]
            offsets = edge_offsets if level == "edge" else node_offsets
            outs.append(values[name] if level == "graph" else split_output(values[name], offsets))
        return outs[0] if len(outs) == 1 else tuple(outs)


def to_hetero_with_bases(
    module: Any,
    metadata: Any,
    num_bases: int,
    in_channels: Mapping[str, int] | None = None,
    input_map: Mapping[str, str] | None = None,
    debug: bool = False,
) -> HeteroBasesModel:
    """PyG's ``to_hetero_with_bases`` for an arraygnn ``Sequential`` (see the module
    docstring); ``in_channels`` maps an input name to the size its per-type aligning
    ``Linear`` maps every type to."""
    model = HeteroBasesModel(module, metadata, num_bases, in_channels, input_map)
    if debug:
        for step, kind in zip(model.steps, model.kinds):
            print(f"{step.name}: {kind}")
    return model


# ---- from_pyg converters (registered in arraygnn/nn/converters.py) ----------------------
def basis_conv_from_pyg(module: Any, dtype: Any, convert: Any) -> HeteroBasisConv:
    """PyG's ``HeteroBasisConv`` -> :class:`HeteroBasisConv` with its weights."""
    first = copy.deepcopy(module.convs[0])  # without PyG's extra parameter (and hook)
    del first.edge_type_weight
    first._message_forward_hooks.clear()
    first = convert(first)
    layer = HeteroBasisConv(first, module.num_relations, module.num_bases)
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer


def linear_align_from_pyg(module: Any, dtype: Any, convert: Any) -> LinearAlign:
    """PyG's ``LinearAlign`` (its lazy linears run once) -> :class:`LinearAlign`."""
    layer = LinearAlign(list(module.lins.keys()), module.out_channels)
    for name, lin in module.lins.items():
        if lin.in_channels == -1:
            raise ValueError(
                "from_pyg: LinearAlign's lazy linears are not initialised yet; run the "
                "model once on data before converting it"
            )
        layer.materialise(name, lin.in_channels, dtype)
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer
