"""PyG's sampler interface on arrays: what a custom sampler takes and returns.

A sampler is a :class:`BaseSampler` subclass with ``sample_from_nodes(index)`` (for
:class:`~arraygnn.node_loader.NodeLoader`) and / or ``sample_from_edges(index,
neg_sampling=None)`` (for :class:`~arraygnn.link_loader.LinkLoader`). The loaders hand it a
:class:`NodeSamplerInput` / :class:`EdgeSamplerInput` holding one mini-batch (NumPy or CuPy
arrays) and turn the :class:`SamplerOutput` / :class:`HeteroSamplerOutput` it returns into a
batch (the attributes sliced by ``node`` and ``edge``, ``edge_index = [row, col]``).

RULE: ``row`` / ``col`` are positions in ``node`` (batch ids), ``node`` / ``edge`` global ids;
      ``metadata`` is PyG's contract between sampler and loader: ``(input_id, seed_time)``
      from ``sample_from_nodes``; ``(input_id, edge_label_index, edge_label,
      edge_label_time)`` (binary or none) or ``(input_id, src_index, dst_pos_index,
      dst_neg_index, seed_time)`` (triplet) from ``sample_from_edges``.

>>> import numpy as np
>>> class FirstHop(BaseSampler):
...     def __init__(self, edge_index):
...         self.edge_index = edge_index
...     def sample_from_nodes(self, index, **kwargs):
...         src, dst = self.edge_index
...         eid = np.flatnonzero(np.isin(dst, index.node))
...         node, inv = np.unique(np.concatenate([index.node, src[eid]]), return_inverse=True)
...         k = len(index.node)
...         pos = dict(zip(index.node.tolist(), inv[:k].tolist()))
...         col = np.array([pos[d] for d in dst[eid].tolist()], dtype=np.int64)
...         return SamplerOutput(node, inv[k:], col, eid, metadata=(index.input_id, index.time))
...     def sample_from_edges(self, index, neg_sampling=None):
...         raise NotImplementedError
>>> out = FirstHop(np.array([[0, 1, 2], [1, 2, 0]])).sample_from_nodes(
...     NodeSamplerInput(None, np.array([0]))[np.array([0])])
>>> out.node.tolist(), out.row.tolist(), out.col.tolist(), out.edge.tolist()
([0, 2], [1], [0], [2])
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

__all__ = [
    "BaseSampler",
    "EdgeSamplerInput",
    "HeteroSamplerOutput",
    "NegativeSampling",
    "NegativeSamplingMode",
    "NodeSamplerInput",
    "SamplerOutput",
    "SubgraphType",
]


@contextmanager
def _named(where: str) -> Iterator[None]:
    """Errors of the neighbour loaders' code run on behalf of ``where`` (a generic loader,
    the sampler) name ``where`` instead of the loader."""
    try:
        yield
    except (TypeError, ValueError) as err:
        text = str(err)
        for prefix in ("LinkNeighborLoader: ", "NeighborLoader: "):
            if text.startswith(prefix):
                raise type(err)(f"{where}: {text[len(prefix) :]}") from None
        raise


def _checked_ids(
    xp: Any, name: str, value: Any, size: int | None, length: Any = None, per: str = "entry"
) -> Any:
    """``value`` as 1-D int64 ids of ``xp``, every entry in ``[0, size)`` (``None``: any)
    and ``length`` entries if given; errors start with ``name`` (Numba does not
    bounds-check, CuPy wraps: ids are checked before anything indexes with them)."""
    from arraygnn.ops._common import check_index

    value = xp.asarray(value)
    if value.size == 0 and value.dtype.kind == "f":  # [] reads as float64
        value = value.astype(np.int64)
    check_index(name, value, size)
    if length is not None and int(value.shape[0]) != int(length):
        raise ValueError(
            f"{name} has {value.shape[0]} entries, expected {int(length)} (one per {per})"
        )
    return value.astype(np.int64, copy=False)


def _take(value: Any, index: Any) -> Any:
    return None if value is None else value[index]


def _index(index: Any, like: Any) -> Any:
    """A mini-batch's positions as an int64 array of ``like``'s namespace (PyG turns lists
    into a ``LongTensor``)."""
    from arraygnn._namespace import get_namespace, is_array

    xp = get_namespace(like)
    if is_array(index):
        return xp.asarray(index)
    return xp.asarray(np.asarray(index, dtype=np.int64))


class _CastMixin:
    """PyG's ``CastMixin``: ``cls.cast(None | instance | tuple | dict | *args)`` and
    iteration over the fields (``input_id, node, time, input_type = index``)."""

    @classmethod
    def cast(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            value = args[0]
            if value is None or isinstance(value, _CastMixin):
                return value
            if isinstance(value, tuple):
                return cls(*value)
            if isinstance(value, dict):
                return cls(**value)
        return cls(*args, **kwargs)

    def __iter__(self) -> Iterator[Any]:
        return iter(v for k, v in self.__dict__.items() if not k.startswith("_"))


def _global(node: Any, local: Any) -> Any:
    """Global ids of batch positions (PyG's ``local_to_global_node_idx``)."""
    return None if local is None else node[local]


@dataclass(init=False)
class NodeSamplerInput(_CastMixin):
    """One mini-batch of seed nodes (PyG's ``NodeSamplerInput``).

    Args:
        input_id: the seeds' ids in the loader's input (``None``: their positions).
        node: the seed node ids (global).
        time: the seeds' times, or ``None``.
        input_type: the seeds' node type (heterogeneous graphs), or ``None``.

    ``inputs[index]`` takes the entries at ``index``; a missing ``input_id`` becomes
    ``index`` (as PyG).
    """

    input_id: Any
    node: Any
    time: Any = None
    input_type: str | None = None

    def __init__(self, input_id: Any, node: Any, time: Any = None, input_type: Any = None):
        self.input_id, self.node, self.time, self.input_type = input_id, node, time, input_type

    def __getitem__(self, index: Any) -> NodeSamplerInput:
        index = _index(index, self.node)
        input_id = index if self.input_id is None else self.input_id[index]
        return NodeSamplerInput(
            input_id, self.node[index], _take(self.time, index), self.input_type
        )


@dataclass(init=False)
class EdgeSamplerInput(_CastMixin):
    """One mini-batch of seed links (PyG's ``EdgeSamplerInput``).

    Args:
        input_id: the links' ids in the loader's input (``None``: their positions).
        row / col: the links' source / destination node ids (global).
        label: the links' labels, or ``None``.
        time: the links' times, or ``None``.
        input_type: the links' edge type ``(src, rel, dst)`` (heterogeneous graphs).
    """

    input_id: Any
    row: Any
    col: Any
    label: Any = None
    time: Any = None
    input_type: tuple | None = None

    def __init__(
        self,
        input_id: Any,
        row: Any,
        col: Any,
        label: Any = None,
        time: Any = None,
        input_type: Any = None,
    ) -> None:
        self.input_id, self.row, self.col = input_id, row, col
        self.label, self.time, self.input_type = label, time, input_type

    def __getitem__(self, index: Any) -> EdgeSamplerInput:
        index = _index(index, self.row)
        return EdgeSamplerInput(
            index if self.input_id is None else self.input_id[index],
            self.row[index], self.col[index], _take(self.label, index),
            _take(self.time, index), self.input_type,
        )  # fmt: skip


@dataclass
class SamplerOutput(_CastMixin):
    """A sampled subgraph of a homogeneous graph (PyG's ``SamplerOutput``).

    Args:
        node: the sampled nodes' global ids (the batch's ``n_id``).
        row / col: each sampled edge's source / destination as positions in ``node``.
        edge: the sampled edges' global ids (``e_id``; slices the edge attributes), or
            ``None`` (then the batch has no edge attributes).
        batch: each node's seed (disjoint sampling), or ``None``.
        num_sampled_nodes / num_sampled_edges: per hop, or ``None``.
        metadata: what the loader reads back (see the module's RULE).
    """

    node: Any
    row: Any
    col: Any
    edge: Any
    batch: Any = None
    num_sampled_nodes: list[int] | None = None
    num_sampled_edges: list[int] | None = None
    orig_row: Any = None
    orig_col: Any = None
    metadata: Any = None

    @property
    def global_row(self) -> Any:
        """``node[row]``: the edges' sources as global ids (PyG's)."""
        return _global(self.node, self.row)

    @property
    def global_col(self) -> Any:
        return _global(self.node, self.col)

    @property
    def seed_node(self) -> Any:
        """``node[batch]``: each node's seed as a global id, or ``None`` without ``batch``."""
        return _global(self.node, self.batch)

    @property
    def global_orig_row(self) -> Any:
        return _global(self.node, self.orig_row)

    @property
    def global_orig_col(self) -> Any:
        return _global(self.node, self.orig_col)

    def to_bidirectional(self, keep_orig_edges: bool = False) -> SamplerOutput:
        """PyG's ``to_bidirectional``: a copy whose edges are the sampled ones and their
        reverses, each ``(row, col)`` pair once, sorted by ``(col, row)``; a pair's
        ``edge`` is its first copy's id (the edge sampled in that direction, if any; PyG's
        ``reduce='any'`` leaves the choice to its sort). ``keep_orig_edges``: keep the
        sampled ``row`` / ``col`` as ``orig_row`` / ``orig_col`` and the per-hop counts
        (else the counts become ``None``, as PyG).

        >>> import numpy as np
        >>> out = SamplerOutput(np.arange(3), np.array([1, 2]), np.array([0, 1]), None)
        >>> both = out.to_bidirectional()
        >>> both.row.tolist(), both.col.tolist()
        ([1, 0, 2, 1], [0, 1, 1, 2])
        """
        import copy

        from arraygnn._namespace import get_namespace
        from arraygnn._subgraph_types import bidirectional

        out = copy.copy(self)
        if keep_orig_edges:
            out.orig_row, out.orig_col = self.row, self.col
        else:
            out.num_sampled_nodes = out.num_sampled_edges = None
        xp = get_namespace(self.row, self.col)
        out.row, out.col, out.edge = bidirectional(
            xp, self.row, self.col, self.row, self.col, int(self.node.shape[0]),
            self.edge, self.edge,
        )  # fmt: skip
        return out


class SubgraphType(Enum):
    """PyG's ``SubgraphType``: the ``subgraph_type`` of the neighbour loaders and samplers
    (a member or its name is taken alike). ``directional``: the sampled edges;
    ``bidirectional``: and their reverses (:meth:`SamplerOutput.to_bidirectional`);
    ``induced``: every edge among the sampled nodes."""

    directional = "directional"
    bidirectional = "bidirectional"
    induced = "induced"


@dataclass
class HeteroSamplerOutput(_CastMixin):
    """A sampled subgraph of a heterogeneous graph (PyG's ``HeteroSamplerOutput``): the
    fields of :class:`SamplerOutput` as dicts, ``node`` / ``batch`` /
    ``num_sampled_nodes`` per node type, ``row`` / ``col`` / ``edge`` /
    ``num_sampled_edges`` per edge type ``(src, rel, dst)`` (``row`` positions in
    ``node[src]``, ``col`` in ``node[dst]``); a type left out is empty in the batch."""

    node: dict
    row: dict
    col: dict
    edge: dict | None
    batch: dict | None = None
    num_sampled_nodes: dict | None = None
    num_sampled_edges: dict | None = None
    orig_row: dict | None = None
    orig_col: dict | None = None
    metadata: Any = None

    def _by_type(self, local: dict | None, end: int | None) -> dict | None:
        if local is None:
            return None
        return {k: _global(self.node[k if end is None else k[end]], v) for k, v in local.items()}

    @property
    def global_row(self) -> dict:
        """Per edge type ``node[src][row]`` (PyG's); ``global_col`` / ``seed_node`` /
        ``global_orig_row`` / ``global_orig_col`` likewise."""
        return self._by_type(self.row, 0)

    @property
    def global_col(self) -> dict:
        return self._by_type(self.col, 2)

    @property
    def seed_node(self) -> dict | None:
        return self._by_type(self.batch, None)

    @property
    def global_orig_row(self) -> dict | None:
        return self._by_type(self.orig_row, 0)

    @property
    def global_orig_col(self) -> dict | None:
        return self._by_type(self.orig_col, 2)

    def to_bidirectional(self, keep_orig_edges: bool = False) -> HeteroSamplerOutput:
        """PyG's ``to_bidirectional`` per edge type ``(src, rel, dst)`` (``rel`` not
        starting with ``rev_``): merged with its reverse ``(dst, 'rev_' + rel, src)``
        (which gets the transposed result), else with itself when ``src == dst``, else
        with the one edge type ``(dst, *, src)``; a merged type's ``edge`` becomes
        ``None``; a type with no reverse stays as it is (a warning, as PyG).
        ``keep_orig_edges`` as :meth:`SamplerOutput.to_bidirectional`."""
        import copy

        from arraygnn._namespace import get_namespace
        from arraygnn._subgraph_types import hetero_bidirectional, hetero_partners, warn_alone

        out = copy.copy(self)
        if keep_orig_edges:
            out.orig_row, out.orig_col = dict(self.row), dict(self.col)
        else:
            out.num_sampled_nodes = out.num_sampled_edges = None
        plan, alone = hetero_partners(list(self.row))
        warn_alone(alone)
        arrays = [v for v in self.row.values() if v is not None]
        xp = get_namespace(*arrays) if arrays else np
        counts = {t: int(v.shape[0]) for t, v in self.node.items()}
        out.row, out.col, out.edge = hetero_bidirectional(
            xp, plan, counts, self.row, self.col, self.edge
        )
        return out


class NegativeSamplingMode(Enum):
    """``'binary'``: random negative links; ``'triplet'``: negative destinations per link."""

    binary = "binary"
    triplet = "triplet"


@dataclass(init=False)
class NegativeSampling(_CastMixin):
    """PyG's negative-sampling configuration of ``sample_from_edges``.

    Args:
        mode: ``'binary'`` or ``'triplet'``.
        amount: negatives per positive link (an integer for ``'triplet'``).
        src_weight / dst_weight: node weights for drawing the negatives' endpoints
            (``None``: uniform).
    """

    mode: NegativeSamplingMode
    amount: float = 1
    src_weight: Any = None
    dst_weight: Any = None

    def __init__(
        self, mode: Any, amount: float = 1, src_weight: Any = None, dst_weight: Any = None
    ) -> None:
        try:
            self.mode = NegativeSamplingMode(getattr(mode, "value", mode))
        except ValueError:
            raise ValueError(
                f"NegativeSampling: mode must be 'binary' or 'triplet', got {mode!r}"
            ) from None
        if isinstance(amount, (bool, np.bool_)) or not isinstance(amount, (int, float, np.number)):
            raise TypeError(f"NegativeSampling: amount must be a number, got {amount!r}")
        if not amount > 0:
            raise ValueError(
                f"The attribute 'amount' needs to be positive for 'NegativeSampling' (got {amount})"
            )
        if self.mode is NegativeSamplingMode.triplet:
            if amount != math.ceil(amount):
                raise ValueError(
                    "The attribute 'amount' needs to be an integer for 'NegativeSampling' "
                    f"with 'triplet' negative sampling (got {amount})."
                )
            amount = math.ceil(amount)
        self.amount, self.src_weight, self.dst_weight = amount, src_weight, dst_weight

    @classmethod
    def cast(cls, *args: Any, **kwargs: Any) -> NegativeSampling | None:
        """PyG's ``CastMixin.cast``: ``None``, an instance, a mode name, a ``(mode,
        amount)`` tuple / list, a dict of the arguments, or the arguments themselves."""
        if len(args) != 1 or kwargs:
            return cls(*args, **kwargs)
        value = args[0]
        if value is None or isinstance(value, cls):
            return value
        if isinstance(value, (tuple, list)):
            return cls(*value)
        if isinstance(value, dict):
            return cls(**value)
        if hasattr(value, "mode"):  # torch_geometric's NegativeSampling
            return cls(value.mode, value.amount, value.src_weight, value.dst_weight)
        return cls(value)

    def is_binary(self) -> bool:
        return self.mode is NegativeSamplingMode.binary

    def is_triplet(self) -> bool:
        return self.mode is NegativeSamplingMode.triplet

    def sample(self, num_samples: int, endpoint: str, num_nodes: int | None = None,
               rng: Any = None) -> Any:  # fmt: skip
        """``num_samples`` node ids (NumPy int64): uniform below ``num_nodes``, or drawn with
        replacement in proportion to ``src_weight`` / ``dst_weight`` (PyG's ``sample``,
        which may give edges of the graph: "approximate" negatives). Weights must be 1-D,
        finite and non-negative with a positive sum (CuPy weights are read on the host)."""
        from arraygnn._namespace import to_numpy

        rng = np.random.default_rng(rng)
        name = "src_weight" if endpoint == "src" else "dst_weight"
        weight = self.src_weight if endpoint == "src" else self.dst_weight
        if weight is None:
            if num_nodes is None:
                raise ValueError(
                    "Cannot sample negatives in 'NegativeSampling' without passing the "
                    "'num_nodes' argument"
                )
            return rng.integers(0, num_nodes, num_samples, dtype=np.int64)
        p = np.asarray(to_numpy(weight), dtype=np.float64)
        if num_nodes is not None and p.size != num_nodes:
            raise ValueError(
                f"The 'weight' attribute in 'NegativeSampling' needs to match the number of "
                f"nodes {num_nodes} (got {p.size})"
            )
        if p.ndim != 1:
            raise ValueError(
                f"NegativeSampling: {name} must be 1-D (one weight per node), got shape {p.shape}"
            )
        if not np.isfinite(p).all():
            raise ValueError(f"NegativeSampling: {name} must be finite")
        if p.size and p.min() < 0:
            raise ValueError(f"NegativeSampling: {name} holds a negative weight ({p.min()})")
        total = p.sum()
        if not total > 0:
            raise ValueError(f"NegativeSampling: {name} must have a positive sum, got {total}")
        return rng.choice(p.size, num_samples, replace=True, p=p / total).astype(np.int64)


class BaseSampler(ABC):
    """PyG's ``BaseSampler``: subclass it and implement ``sample_from_nodes`` (node-level
    loaders) and / or ``sample_from_edges`` (link-level loaders). A sampler may renumber the
    graph's edges: ``edge_permutation`` then maps its edge ids to the graph's (``None``:
    none; a dict per edge type for heterogeneous graphs)."""

    @abstractmethod
    def sample_from_nodes(
        self, index: NodeSamplerInput, **kwargs: Any
    ) -> SamplerOutput | HeteroSamplerOutput:
        """The subgraph sampled around ``index.node``."""
        raise NotImplementedError

    @abstractmethod
    def sample_from_edges(
        self, index: EdgeSamplerInput, neg_sampling: NegativeSampling | None = None
    ) -> SamplerOutput | HeteroSamplerOutput:
        """The subgraph sampled around the links ``(index.row, index.col)`` (and the
        negatives ``neg_sampling`` asks for)."""
        raise NotImplementedError

    @property
    def edge_permutation(self) -> Any:
        return None
