"""DGL's per-type dense layers: ``HeteroLinear`` (here ``DGLHeteroLinear``) and
``HeteroEmbedding``, dict in, dict out.

A type is a string or a tuple of strings (a canonical edge type); its weights are named as
DGL names them, by ``str(type)``: ``linears.<str(type)>.weight`` / ``.bias`` and
``embeds.<str(type)>.weight`` (``embeds.('user', 'follows', 'user').weight``), so a DGL
``state_dict()`` loads by name and :func:`arraygnn.nn.from_dgl` converts either module.

``DGLHeteroLinear`` is named apart from :class:`~arraygnn.nn.HeteroLinear`, which is
PyG's (one weight per type picked per row of one array), as ``DGLHGTConv`` is from
``HGTConv``.

>>> import numpy as np
>>> emb = HeteroEmbedding({"user": 3, ("user", "follows", "user"): 2}, 4, rng=0)
>>> out = emb({"user": np.array([2, 0]), ("user", "follows", "user"): np.array([1])})
>>> {k: v.shape for k, v in out.items()}
{'user': (2, 4), ('user', 'follows', 'user'): (1, 4)}
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, is_cupy_array, torch_hint
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.hetero_conv import _ModuleDict
from arraygnn.nn.linear import Linear, _check_features, _rng
from arraygnn.ops._common import check_index

__all__ = ["DGLHeteroLinear", "HeteroEmbedding", "dgl_type_key"]


def _type_name(layer: str, typ: Any) -> str:
    """DGL's module key for a type, ``str(typ)``; a type that is neither a string nor a
    tuple of strings, or whose name holds a dot (torch refuses those keys), is an error."""
    ok = isinstance(typ, str) or (
        isinstance(typ, tuple) and len(typ) > 0 and all(isinstance(t, str) for t in typ)
    )
    if not ok:
        raise TypeError(f"{layer}: a type must be a string or a tuple of strings, got {typ!r}")
    name = str(typ)
    if "." in name or not name:
        raise ValueError(f"{layer}: type {typ!r} is empty or holds a '.' (DGL / torch refuse it)")
    return name


def dgl_type_key(name: str) -> Any:
    """A type back from DGL's ``str(type)`` key: ``"('a', 'r', 'b')"`` is the tuple,
    anything else the string itself.

    >>> dgl_type_key("('user', 'follows', 'user')"), dgl_type_key("user")
    (('user', 'follows', 'user'), 'user')
    """
    if name.startswith("(") and name.endswith(")"):
        try:
            value = ast.literal_eval(name)
        except (ValueError, SyntaxError):
            return name
        if isinstance(value, tuple) and value and all(isinstance(t, str) for t in value):
            return value
    return name


def _sizes(layer: str, what: str, sizes: Any) -> dict[str, tuple[Any, int]]:
    """``{str(type): (type, size)}`` from a ``{type: size}`` mapping, checked."""
    if not isinstance(sizes, Mapping):
        raise TypeError(f"{layer}: {what} must be a dict {{type: size}}, got {type(sizes)}")
    out: dict[str, tuple[Any, int]] = {}
    for typ, n in sizes.items():
        name = _type_name(layer, typ)
        if name in out:
            raise ValueError(f"{layer}: types {out[name][0]!r} and {typ!r} share DGL's key")
        out[name] = (typ, layer_size(layer, f"{what}[{typ!r}]", n))
    return out


def _lookup(layer: str, table: Mapping[str, Any], raw: Mapping[str, Any], typ: Any) -> Any:
    """The per-type module for ``typ``; an unknown type is a ``ValueError`` naming it."""
    name = str(typ) if isinstance(typ, (str, tuple)) else None
    if name is None or name not in table:
        raise ValueError(
            f"{layer}: no weights for type {typ!r}; the layer has {list(raw.values())}"
        )
    return table[name]


class DGLHeteroLinear(Module):
    """DGL's ``HeteroLinear``: a :class:`Linear` per type, ``{type: x} -> {type: x W^T + b}``.

    Args:
        in_size: ``{type: input size}``; a type is a string or a tuple of strings.
        out_size: the output size, shared by every type.
        bias: biases.

    Call as ``lin(feat)`` with ``feat`` ``{type: (N_type, in_size[type])}``; the result has
    ``feat``'s keys in ``feat``'s order (DGL's), and a type without weights is a
    ``ValueError`` naming it (DGL: ``KeyError``).

    Shapes:
        - input: ``{type: (N_type, in_size[type])}``
        - output: ``{type: (N_type, out_size)}``

    Names (DGL): ``linears.<str(type)>.weight`` ``(out, in)``, ``linears.<str(type)>.bias``.

    >>> import numpy as np
    >>> from arraygnn.nn import DGLHeteroLinear
    >>> lin = DGLHeteroLinear({"user": 1, ("user", "follows", "user"): 2}, 3, rng=0)
    >>> out = lin({"user": np.ones((2, 1), np.float32),
    ...            ("user", "follows", "user"): np.ones((3, 2), np.float32)})
    >>> out["user"].shape, out[("user", "follows", "user")].shape
    ((2, 3), (3, 3))
    """

    _child_names = ("linears",)
    _dgl_supported = True

    def __init__(
        self,
        in_size: Mapping[Any, int],
        out_size: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DGLHeteroLinear"
        sizes = _sizes(layer, "in_size", in_size)
        self.out_size = layer_size(layer, "out_size", out_size)
        gen = _rng(rng)
        self._raw_keys = {name: typ for name, (typ, _) in sizes.items()}
        self.linears = _ModuleDict(
            {
                name: Linear(n, self.out_size, bias, dtype=dtype, rng=gen)
                for name, (_, n) in sizes.items()
            },
            f"{layer}.load_state_dict",
        )

    @property
    def in_size(self) -> dict[Any, int]:
        """``{type: input size}``."""
        return {self._raw_keys[k]: lin.in_features for k, lin in self.linears._items.items()}

    def __call__(self, feat: Mapping[Any, Any]) -> dict[Any, Any]:
        layer = "DGLHeteroLinear"
        if not isinstance(feat, Mapping):
            raise TypeError(f"{layer}: feat must be a dict {{type: features}}, got {type(feat)}")
        out = {}
        for typ, x in feat.items():
            lin = _lookup(layer, self.linears._items, self._raw_keys, typ)
            _check_features(x, lin.in_features, f"{layer} features of type {typ!r}", lin.weight)
            out[typ] = lin(x)
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return values

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return values

    def extra_repr(self) -> str:
        return f"{self.in_size}, {self.out_size}"


class _Embedding(Module):
    """``torch.nn.Embedding`` at inference (no ``padding_idx`` / ``max_norm``, as DGL's
    ``HeteroEmbedding`` builds them): ``weight`` ``(num_embeddings, embedding_dim)``."""

    _param_names = ("weight",)

    def __init__(self, num_embeddings: int, embedding_dim: int, gen: Any, dtype: Any) -> None:
        self.weight = gen.standard_normal((num_embeddings, embedding_dim)).astype(dtype)


class HeteroEmbedding(Module):
    """DGL's ``HeteroEmbedding``: an embedding table per type, ``{type: ids} -> {type:
    rows}``.

    Args:
        num_embeddings: ``{type: number of rows}``; a type is a string or a tuple of strings.
        embedding_dim: the size of each row.

    Call as ``emb(input_ids)`` with ``input_ids`` ``{type: integer ids of any shape}``; the
    result has ``input_ids``' keys, each ``ids.shape + (embedding_dim,)``. An unknown type,
    or an id out of ``[0, num_embeddings[type])``, is a ``ValueError`` naming the type.
    ``emb.weight`` is ``{type: table}`` (DGL's property). Initial rows are standard normal
    (``torch.nn.Embedding``'s).

    Shapes:
        - input: ``{type: (*)}`` integer ids
        - output: ``{type: (*, embedding_dim)}``

    Names (DGL): ``embeds.<str(type)>.weight`` ``(num_embeddings[type], embedding_dim)``.

    >>> import numpy as np
    >>> from arraygnn.nn import HeteroEmbedding
    >>> emb = HeteroEmbedding({"user": 2, ("user", "follows", "user"): 3}, 4, rng=0)
    >>> emb.weight[("user", "follows", "user")].shape
    (3, 4)
    >>> emb({"user": np.array([0])})["user"].shape
    (1, 4)
    """

    _child_names = ("embeds",)
    _dgl_supported = True

    def __init__(
        self,
        num_embeddings: Mapping[Any, int],
        embedding_dim: int,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HeteroEmbedding"
        sizes = _sizes(layer, "num_embeddings", num_embeddings)
        self.embedding_dim = layer_size(layer, "embedding_dim", embedding_dim)
        gen = _rng(rng)
        self.raw_keys = {name: typ for name, (typ, _) in sizes.items()}
        self.embeds = _ModuleDict(
            {name: _Embedding(n, self.embedding_dim, gen, dtype) for name, (_, n) in sizes.items()},
            f"{layer}.load_state_dict",
        )

    @property
    def weight(self) -> dict[Any, Any]:
        """``{type: (num_embeddings[type], embedding_dim)}`` tables (the layer's arrays)."""
        return {self.raw_keys[k]: emb.weight for k, emb in self.embeds._items.items()}

    def __call__(self, input_ids: Mapping[Any, Any]) -> dict[Any, Any]:
        layer = "HeteroEmbedding"
        if not isinstance(input_ids, Mapping):
            raise TypeError(
                f"{layer}: input_ids must be a dict {{type: ids}}, got {type(input_ids)}"
            )
        out = {}
        for typ, ids in input_ids.items():
            emb = _lookup(layer, self.embeds._items, self.raw_keys, typ)
            if not is_array(ids):
                raise TypeError(
                    f"{layer}: ids of type {typ!r} must be a NumPy or CuPy integer array, got "
                    f"{type(ids).__name__}{torch_hint(ids)}"
                )
            if is_cupy_array(ids) != is_cupy_array(emb.weight):
                raise TypeError(
                    f"{layer}: ids of type {typ!r} and the tables are on different devices; "
                    "move the layer (layer.to(...)) or the ids"
                )
            check_index(
                f"{layer}: ids of type {typ!r}",
                ids,
                int(emb.weight.shape[0]),
                ndim=ids.ndim,
            )
            xp = get_namespace(emb.weight)
            out[typ] = xp.take(emb.weight, ids.reshape(-1), axis=0).reshape(
                tuple(ids.shape) + (self.embedding_dim,)
            )
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return values

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return values

    def extra_repr(self) -> str:
        sizes = {self.raw_keys[k]: int(e.weight.shape[0]) for k, e in self.embeds._items.items()}
        return f"{sizes}, {self.embedding_dim}"
