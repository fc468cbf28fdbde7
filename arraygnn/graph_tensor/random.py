"""``random_graph_tensor``: a random GraphTensor of a given spec, for tests (TF-GNN's
``tfgnn.random_graph_tensor``, with a seedable NumPy ``Generator``).

The rules are TF-GNN's (``graph_tensor_random.py``), drawn with ``rng`` instead of TF's global
random state, on the host with NumPy (move the result with ``graph.to("cuda")``):

RULE: the number of components is uniform in ``num_components_range`` (lower bound included,
      upper excluded; the default ``(1, 2)`` gives one component). Each node set has a
      uniform number of nodes per component in ``row_lengths_range`` (same bounds).
RULE: an edge set gets per component ``int(s / 1.5) + int(u * (int(s * 2.25) - int(s / 1.5)))``
      edges, ``s`` the sum of its incident node sets' sizes in that component (0 when any
      of them is empty) and ``u`` uniform in [0, 1); each index is uniform over the nodes of
      its component. A :class:`HyperEdgeSetSpec` gets one index per tag the same way.
RULE: feature values: integers uniform in [100, 999) for 64-bit types, else in
      [max(10, dtype min), min(100, dtype max)); floats uniform in [0, 1); bools
      ``u > 0.5``; strings one uppercase ASCII letter; any other dtype is a ``TypeError``.
      ``sample_dict[(set_type, set_name, feature_name)]`` (``set_type`` ``"context"`` with
      ``set_name`` ``None``, ``"nodes"``, ``"edges"``) gives values to draw from instead.
RULE: a ragged feature dimension (``None`` in the spec's per-item shape) has row lengths
      uniform in ``row_lengths_range``; arraygnn specs put ragged dimensions first.
RULE: sizes and indices have dtype ``indices_dtype`` (default int64; TF-GNN's spec carries
      it, arraygnn's does not), ragged row splits ``row_splits_dtype``.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensorSpec, NodeSetSpec, EdgeSetSpec, FeatureSpec
>>> spec = GraphTensorSpec(node_sets={"v": NodeSetSpec({"x": FeatureSpec(np.float32, (4,))})},
...                        edge_sets={"e": EdgeSetSpec("v", "v")})
>>> g = random_graph_tensor(spec, rng=np.random.default_rng(0))
>>> g.spec == spec, 2 <= g.node_sets["v"].total_size < 8
(True, True)
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn.graph_tensor.hyper_adjacency import HyperAdjacency, HyperEdgeSetSpec
from arraygnn.graph_tensor.pieces import (
    CONTEXT,
    EDGES,
    NODES,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor.ragged import Ragged
from arraygnn.graph_tensor.spec import FeatureSpec, GraphTensorSpec

__all__ = ["random_graph_tensor", "random_ragged_tensor", "typed_random_values"]

_LETTERS = np.array(list(string.ascii_uppercase))


def _rng(rng: Any) -> np.random.Generator:
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(f"rng must be a numpy.random.Generator, an int seed or None, got {rng!r}")


def typed_random_values(size: int, dtype: Any, *, rng: Any = None) -> np.ndarray:
    """``[size]`` random values of ``dtype`` by TF-GNN's rules (see the module RULEs)."""
    rng = _rng(rng)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        if dtype.itemsize == 8:
            return rng.integers(100, 999, size).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(max(10, info.min), min(100, info.max), size).astype(dtype)
    if dtype.kind == "f":  # [0, 1) as tf.random.uniform: rounding must not reach 1
        below_one = np.nextafter(dtype.type(1), dtype.type(0))
        return np.minimum(rng.random(size, dtype=np.float64).astype(dtype), below_one)
    if dtype.kind == "b":
        return rng.random(size) > 0.5
    if dtype.kind in "US":
        letters = _LETTERS[rng.integers(0, len(_LETTERS), size)]
        return letters if dtype.kind == "U" else letters.astype(np.bytes_)
    raise TypeError(f"Unsupported type for random values: {dtype}")


def random_ragged_tensor(
    shape: Sequence[int | None],
    dtype: Any,
    sample_values: Sequence[Any] | None = None,
    row_lengths_range: tuple[int, int] = (2, 8),
    row_splits_dtype: Any = np.int64,
    validate: bool = True,
    *,
    rng: Any = None,
) -> Any:
    """An array (or a ``Ragged``) of ``shape`` with random values; ``None`` dimensions are
    ragged, with row lengths uniform in ``row_lengths_range`` (an outer ``None``: a random
    number of rows). Inner ragged dimensions must come before the uniform ones, as
    arraygnn's ``Ragged`` nests them."""
    rng = _rng(rng)
    if not isinstance(shape, (list, tuple)):
        raise ValueError(f"Requested shape must be a list of integers or `None`: {shape!r}")
    shape = list(shape)
    for d in shape:
        if d is not None and (isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0):
            raise ValueError(f"Invalid dimension {d!r} in shape {shape}")
    ragged = 0
    while 1 + ragged < len(shape) and shape[1 + ragged] is None:
        ragged += 1
    if None in shape[1 + ragged :]:
        raise ValueError(
            f"random_ragged_tensor(): shape {shape}: a ragged dimension after a uniform inner "
            "one cannot be represented by arraygnn's Ragged"
        )
    inner = [int(d) for d in shape[1 + ragged :]]
    lo, hi = row_lengths_range
    if not shape:
        size = 1
    elif shape[0] is None:  # TF-GNN: an outer ragged dimension gets a random length
        size = int(rng.integers(lo, hi))
    else:
        size = int(shape[0])
    nested = []  # row splits of each ragged dimension, outside in
    for _ in range(ragged):
        lengths = rng.integers(lo, hi, size)
        splits = np.zeros(size + 1, dtype=row_splits_dtype)
        np.cumsum(lengths, out=splits[1:])
        nested.append(splits)
        size = int(lengths.sum())
    count = size * int(np.prod(inner, dtype=np.int64))
    if sample_values:
        pick = rng.integers(0, len(sample_values), count)
        flat = np.asarray(sample_values, dtype=dtype)[pick]
    else:
        flat = typed_random_values(count, dtype, rng=rng)
    value: Any = flat.reshape((size, *inner)) if shape else flat.reshape(())
    for splits in reversed(nested):
        value = Ragged(value, splits, validate=validate)
    return value


SampleDict = Mapping[tuple[str, "str | None", str], Sequence[Any]]


def random_graph_tensor(
    spec: GraphTensorSpec,
    sample_dict: SampleDict | None = None,
    row_lengths_range: tuple[int, int] = (2, 8),
    validate: bool = True,
    num_components_range: tuple[int, int] = (1, 2),
    *,
    rng: Any = None,
    indices_dtype: Any = np.int64,
    row_splits_dtype: Any = np.int64,
) -> GraphTensor:
    """A random scalar GraphTensor whose spec equals ``spec`` (see the module RULEs).

    ``rng`` (arraygnn extension): a ``numpy.random.Generator`` or an int seed; ``None``
    draws a fresh one. ``validate`` checks ragged row splits and index ranges.
    """
    op = "random_graph_tensor()"
    if not isinstance(spec, GraphTensorSpec):
        raise TypeError(f"{op}: spec must be a GraphTensorSpec, got {type(spec).__name__}")
    if spec.rank != 0:
        raise ValueError(
            f"{op} requires a scalar GraphTensorSpec, that is, with `GraphTensorSpec.rank=0`, "
            f"but got `rank={spec.rank}`. Use GraphTensor.merge_batch_to_components() to "
            "merge all contained graphs into one contiguously indexed graph of the scalar "
            "GraphTensor."
        )
    rng = _rng(rng)
    sample_dict = {} if sample_dict is None else sample_dict
    if not 0 <= row_lengths_range[0] < row_lengths_range[1]:
        raise ValueError(
            f"Expected 0 <= row_lengths_range[0] < row_lengths_range[1], got {row_lengths_range}"
        )
    if not 0 <= num_components_range[0] < num_components_range[1]:
        raise ValueError(
            "Expected 0 <= num_components_range[0] < num_components_range[1], got "
            f"{num_components_range}"
        )
    indices_dtype = np.dtype(indices_dtype)

    def gen(set_type: str, set_name: str | None, features: Mapping[str, FeatureSpec], n: int):
        out = {}
        for fname, fspec in features.items():
            out[fname] = random_ragged_tensor(
                [n, *fspec.shape],
                fspec.dtype,
                sample_values=sample_dict.get((set_type, set_name, fname)),
                row_lengths_range=row_lengths_range,
                row_splits_dtype=row_splits_dtype,
                validate=validate,
                rng=rng,
            )
        return out

    num_components = int(rng.integers(num_components_range[0], num_components_range[1]))
    context = Context.from_fields(
        features=gen(CONTEXT, None, spec.context.features, num_components),
        sizes=np.ones(num_components, dtype=indices_dtype),
    )
    node_sets = {}
    for name, ns_spec in spec.node_sets.items():
        sizes = _random_sizes(rng, num_components, *row_lengths_range, indices_dtype)
        node_sets[name] = NodeSet.from_fields(
            sizes=sizes, features=gen(NODES, name, ns_spec.features, int(sizes.sum()))
        )
    edge_sets = {}
    for name, es_spec in spec.edge_sets.items():
        if isinstance(es_spec, HyperEdgeSetSpec):
            incident = dict(es_spec.incident_node_sets)
        else:
            incident = {0: es_spec.source_name, 1: es_spec.target_name}
        for tag, ns_name in incident.items():
            if ns_name not in node_sets:
                raise ValueError(
                    f"{op}: edge set {name!r}: node set {ns_name!r} at tag {tag} is not in "
                    f"the spec (node sets: {sorted(node_sets)})"
                )
        incident_sizes = [node_sets[n].sizes for n in incident.values()]
        has_edges = np.all([s > 0 for s in incident_sizes], axis=0)
        sum_sizes = np.where(has_edges, np.sum(incident_sizes, axis=0), 0).astype(np.float32)
        min_edges = (sum_sizes / np.float32(1.5)).astype(indices_dtype)
        max_edges = (sum_sizes * np.float32(2.25)).astype(indices_dtype)
        sizes = _random_sizes(rng, num_components, min_edges, max_edges, indices_dtype)
        indices = {
            tag: (n, _random_edge_indices(rng, sizes, node_sets[n].sizes))
            for tag, n in incident.items()
        }
        if isinstance(es_spec, HyperEdgeSetSpec):
            adjacency = HyperAdjacency.from_indices(indices)
        else:
            adjacency = Adjacency.from_indices(source=indices[0], target=indices[1])
        edge_sets[name] = EdgeSet.from_fields(
            sizes=sizes,
            adjacency=adjacency,
            features=gen(EDGES, name, es_spec.features, int(sizes.sum())),
        )
    result = GraphTensor.from_pieces(context, node_sets, edge_sets, validate=validate)
    if result.spec != spec:
        raise ValueError(
            f"{op}: internal error: the result's spec differs from the requested one: "
            f"{result.spec.differences(spec)}"
        )
    return result


def _random_sizes(rng: np.random.Generator, n: int, lo: Any, hi: Any, dtype: Any) -> np.ndarray:
    """``lo + int(u * (hi - lo))`` per component, ``u`` uniform in [0, 1) (TF-GNN)."""
    lo = np.asarray(lo, dtype=dtype)
    length = np.asarray(hi, dtype=dtype) - lo
    alpha = rng.random(n)
    return (lo + (alpha * length.astype(np.float64)).astype(dtype)).astype(dtype)


def _random_edge_indices(
    rng: np.random.Generator, num_edges: np.ndarray, num_nodes: np.ndarray
) -> np.ndarray:
    """For each edge of each component, a node uniform over that component's nodes."""
    dtype = num_edges.dtype
    offsets = np.cumsum(num_nodes) - num_nodes
    per_edge_offset = np.repeat(offsets, num_edges)
    per_edge_len = np.repeat(num_nodes, num_edges)
    alpha = rng.random(per_edge_len.shape[0])
    return (per_edge_offset + (alpha * per_edge_len).astype(dtype)).astype(dtype)
