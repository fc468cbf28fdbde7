"""Test graphs for the GraphTensor tests: the seed's papers/authors graph and random
heterogeneous graphs (empty node and edge sets included), plus a NumPy pool reference."""

from __future__ import annotations

import numpy as np

from arraygnn.graph_tensor import (
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
)


def seed_graph(xp=np) -> GraphTensor:
    """The seed's example, verbatim except for the array constructors."""
    return GraphTensor.from_pieces(
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=xp.asarray([3]),
                features={
                    "tokenized_title": Ragged.from_list(
                        [
                            ["Anisotropic", "approximation"],
                            ["Better", "bipartite", "bijection", "bounds"],
                            ["Convolutional", "convergence", "criteria"],
                        ]
                    ),
                    "embedding": xp.asarray(  # One-hot encodes the first letter.
                        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32
                    ),
                    "year": xp.asarray([2018, 2019, 2020], dtype=np.int32),
                },
            ),
            "author": NodeSet.from_fields(
                sizes=xp.asarray([4]),
                features={
                    "name": np.array(["Kevin Kernel", "Leila Limit", "Max Minor", "Nora Normal"]),
                },
            ),
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=xp.asarray([3]),
                adjacency=Adjacency.from_indices(
                    source=("paper", xp.asarray([1, 2, 2])),
                    target=("paper", xp.asarray([0, 0, 1])),
                ),
            ),
            "writes": EdgeSet.from_fields(
                sizes=xp.asarray([7]),
                adjacency=Adjacency.from_indices(
                    source=("author", xp.asarray([0, 0, 1, 1, 2, 2, 3])),
                    target=("paper", xp.asarray([0, 1, 0, 1, 1, 2, 2])),
                ),
            ),
        },
    )


EDGE_SETS = {"ab": ("a", "b"), "ba": ("b", "a"), "aa": ("a", "a"), "ab2": ("a", "b")}


def random_graph(
    rng: np.random.Generator,
    num_components: int | None = None,
    max_nodes: int = 5,
    max_edges: int = 6,
    index_dtype=np.int64,
    empty_prob: float = 0.3,
) -> GraphTensor:
    """A random heterogeneous graph: node sets a, b; edge sets ab, ba, aa, ab2 (two between the
    same pair); dense float / int / bool / string features, a ragged feature, context
    features. Sets are empty with probability ``empty_prob``; edges only join nodes of their
    own component (so the graph can be split)."""
    c = int(rng.integers(1, 4)) if num_components is None else num_components
    node_sizes = {}
    for n in ("a", "b"):
        if rng.random() < empty_prob:
            node_sizes[n] = np.zeros(c, dtype=np.int64)
        else:
            node_sizes[n] = rng.integers(0, max_nodes + 1, size=c)
    node_sets = {}
    for n, sizes in node_sizes.items():
        total = int(sizes.sum())
        lengths = rng.integers(0, 3, size=total)
        node_sets[n] = NodeSet.from_fields(
            sizes=sizes,
            features={
                "h": rng.standard_normal((total, 3)),
                "k": rng.integers(-5, 5, size=total).astype(np.int32),
                "flag": rng.random(total) < 0.5,
                "label": np.array([f"{n}{i}" for i in range(total)], dtype="U8"),
                "tokens": Ragged.from_row_lengths(
                    rng.integers(0, 100, size=int(lengths.sum())), lengths
                ),
            },
        )
    edge_sets = {}
    for e, (s, t) in EDGE_SETS.items():
        src_parts, tgt_parts, sizes = [], [], []
        s_off = np.concatenate([[0], np.cumsum(node_sizes[s])])
        t_off = np.concatenate([[0], np.cumsum(node_sizes[t])])
        for i in range(c):
            ns, nt = node_sizes[s][i], node_sizes[t][i]
            m = (
                0
                if (ns == 0 or nt == 0 or rng.random() < empty_prob / 2)
                else int(rng.integers(0, max_edges + 1))
            )
            sizes.append(m)
            src_parts.append(s_off[i] + rng.integers(0, max(ns, 1), size=m))
            tgt_parts.append(t_off[i] + rng.integers(0, max(nt, 1), size=m))
        src = np.concatenate(src_parts).astype(index_dtype)
        tgt = np.concatenate(tgt_parts).astype(index_dtype)
        edge_sets[e] = EdgeSet.from_fields(
            sizes=np.asarray(sizes),
            adjacency=Adjacency.from_indices(source=(s, src), target=(t, tgt)),
            features={"w": rng.standard_normal((len(src), 2)).astype(np.float32)},
        )
    context = Context.from_fields(
        features={"g": rng.standard_normal((c, 2)), "id": rng.integers(0, 9, size=c)}
    )
    return GraphTensor.from_pieces(context, node_sets, edge_sets)


def np_pool(values: np.ndarray, index: np.ndarray, n: int, reduce: str) -> np.ndarray:
    """Plain NumPy pooling (``ufunc.at``) with TF-GNN's rules: rows of ``values`` with
    ``index == i`` reduced into row ``i``; empty rows 0 (the seed's rule), 1 for ``prod``;
    integer ``mean`` exact in float64; ``max_no_inf`` / ``min_no_inf`` zero a result at or
    beyond the dtype's lowest / highest value (TF-GNN's sentinel test)."""
    values = np.asarray(values)
    index = np.asarray(index)
    base = reduce.replace("_no_inf", "")
    count = np.bincount(index, minlength=n).reshape((n,) + (1,) * (values.ndim - 1))
    if base == "mean" and values.dtype.kind in "iu":
        values = values.astype(np.float64)
    if base in ("sum", "mean"):
        out = np.zeros((n, *values.shape[1:]), dtype=values.dtype)
        np.add.at(out, index, values)
        if base == "mean":
            out = (out / np.maximum(count, 1)).astype(values.dtype)
    elif base == "prod":
        out = np.ones((n, *values.shape[1:]), dtype=values.dtype)
        np.multiply.at(out, index, values)
    else:
        big = np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).max
        fill = -big if base == "max" else big
        out = np.full((n, *values.shape[1:]), fill, dtype=values.dtype)
        (np.maximum if base == "max" else np.minimum).at(out, index, values)
    if base != "prod":
        out = np.where(count > 0, out, np.zeros((), dtype=values.dtype))
    if reduce.endswith("_no_inf"):
        info = np.finfo(out.dtype) if out.dtype.kind == "f" else np.iinfo(out.dtype)
        out[out <= info.min if base == "max" else out >= info.max] = 0
    return out


def assert_graphs_equal(a: GraphTensor, b: GraphTensor) -> None:
    """Same spec, sizes, features, adjacency (values compared exactly)."""
    from arraygnn._namespace import to_numpy

    assert a.spec == b.spec, a.spec.differences(b.spec)

    def same(x, y, where):
        if isinstance(x, Ragged):
            assert isinstance(y, Ragged), where
            np.testing.assert_array_equal(to_numpy(x.row_splits), to_numpy(y.row_splits), where)
            same(x.values, y.values, where)
        else:
            np.testing.assert_array_equal(to_numpy(x), to_numpy(y), where)

    same(a.context.sizes, b.context.sizes, "context sizes")
    for k in a.context.features:
        same(a.context[k], b.context[k], f"context {k}")
    for n, ns in a.node_sets.items():
        same(ns.sizes, b.node_sets[n].sizes, f"{n} sizes")
        for k in ns.features:
            same(ns[k], b.node_sets[n][k], f"{n}.{k}")
    for n, es in a.edge_sets.items():
        other = b.edge_sets[n]
        same(es.sizes, other.sizes, f"{n} sizes")
        same(es.adjacency.source, other.adjacency.source, f"{n} source")
        same(es.adjacency.target, other.adjacency.target, f"{n} target")
        for k in es.features:
            same(es[k], other[k], f"{n}.{k}")
