"""Random heterogeneous GraphTensors for the pipeline tests (imported by test files)."""

from __future__ import annotations

import numpy as np

from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet, Ragged


def random_graph(
    rng: np.random.Generator,
    *,
    num_components: int = 1,
    max_nodes: int = 6,
    max_edges: int = 10,
    empty_ok: bool = True,
    with_strings: bool = True,
    with_ragged: bool = True,
    index_dtype=np.int64,
) -> GraphTensor:
    """Node sets "a" (features x float32 [2], ids int64, name str, tokens ragged str),
    "b" (y int32) and "_readout" (label int64); edge sets "ab" a->b (weight float32),
    "aa" a->a (no features), "_readout/seed" a->_readout; context "g" float32 [3]."""
    lo = 0 if empty_ok else 1
    na = rng.integers(lo, max_nodes + 1, num_components)
    nb = rng.integers(0, max_nodes + 1, num_components)
    # one readout node per component that has an "a" node
    nr = (na > 0).astype(np.int64)
    total_a, total_b, total_r = int(na.sum()), int(nb.sum()), int(nr.sum())
    off_a = np.concatenate([[0], np.cumsum(na)[:-1]])
    off_b = np.concatenate([[0], np.cumsum(nb)[:-1]])
    off_r = np.concatenate([[0], np.cumsum(nr)[:-1]])

    def edges(n_src, off_src, n_tgt, off_tgt):
        sizes = np.where(
            (n_src > 0) & (n_tgt > 0), rng.integers(0, max_edges + 1, num_components), 0
        )
        src = np.concatenate(
            [
                off_src[c] + rng.integers(0, max(n_src[c], 1), sizes[c])
                for c in range(num_components)
            ]
            or [np.zeros(0, np.int64)]
        )
        tgt = np.concatenate(
            [
                off_tgt[c] + rng.integers(0, max(n_tgt[c], 1), sizes[c])
                for c in range(num_components)
            ]
            or [np.zeros(0, np.int64)]
        )
        return sizes, src.astype(index_dtype), tgt.astype(index_dtype)

    ab_sizes, ab_s, ab_t = edges(na, off_a, nb, off_b)
    aa_sizes, aa_s, aa_t = edges(na, off_a, na, off_a)
    # readout edges: the first "a" node of each non-empty component -> its readout node
    has = np.flatnonzero(na > 0)
    rs_s = off_a[has].astype(index_dtype)
    rs_t = off_r[has].astype(index_dtype)

    a_features = {
        "x": rng.standard_normal((total_a, 2)).astype(np.float32),
        "ids": rng.integers(-(2**40), 2**40, total_a),
    }
    if with_strings:
        a_features["name"] = np.array([f"n{i}é" for i in range(total_a)], dtype=str)
    if with_ragged:
        lens = rng.integers(0, 4, total_a)
        splits = np.concatenate([[0], np.cumsum(lens)])
        toks = np.array([f"t{i}" for i in range(int(splits[-1]))], dtype=str)
        a_features["tokens"] = Ragged.from_row_splits(toks, splits)
    return GraphTensor.from_pieces(
        context=Context.from_fields(
            features={"g": rng.standard_normal((num_components, 3)).astype(np.float32)}
        ),
        node_sets={
            "a": NodeSet.from_fields(sizes=na, features=a_features),
            "b": NodeSet.from_fields(
                sizes=nb, features={"y": rng.integers(-5, 5, total_b).astype(np.int32)}
            ),
            "_readout": NodeSet.from_fields(
                sizes=nr, features={"label": rng.integers(0, 3, total_r)}
            ),
        },
        edge_sets={
            "ab": EdgeSet.from_fields(
                sizes=ab_sizes,
                adjacency=Adjacency.from_indices(source=("a", ab_s), target=("b", ab_t)),
                features={"weight": rng.random(int(ab_sizes.sum())).astype(np.float32)},
            ),
            "aa": EdgeSet.from_fields(
                sizes=aa_sizes,
                adjacency=Adjacency.from_indices(source=("a", aa_s), target=("a", aa_t)),
            ),
            "_readout/seed": EdgeSet.from_fields(
                sizes=nr,
                adjacency=Adjacency.from_indices(source=("a", rs_s), target=("_readout", rs_t)),
            ),
        },
    )


def _eq(a, b, where):
    ra, rb = hasattr(a, "row_splits"), hasattr(b, "row_splits")
    assert ra == rb, f"{where}: one side is ragged, the other not"
    if ra:
        np.testing.assert_array_equal(
            np.asarray(a.row_splits), np.asarray(b.row_splits), err_msg=f"{where}: row splits"
        )
        _eq(a.values, b.values, where)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{where}: shape {a.shape} != {b.shape}"
    if a.dtype.kind in "OSU" or b.dtype.kind in "OSU":
        assert a.tolist() == b.tolist(), where
    else:
        np.testing.assert_array_equal(a, b, err_msg=where)


def assert_graphs_equal(g, h, *, check_dtypes=True):
    """Same sets, sizes, adjacency and features (values; dtypes when asked)."""
    assert sorted(g.node_sets) == sorted(h.node_sets)
    assert sorted(g.edge_sets) == sorted(h.edge_sets)
    assert sorted(g.context.features) == sorted(h.context.features)
    for k, v in g.context.features.items():
        _eq(v, h.context.features[k], f"context/{k}")
    for name, ns in g.node_sets.items():
        hs = h.node_sets[name]
        _eq(ns.sizes, hs.sizes, f"nodes/{name}.#size")
        assert sorted(ns.features) == sorted(hs.features), name
        for k, v in ns.features.items():
            _eq(v, hs.features[k], f"nodes/{name}.{k}")
            if check_dtypes and not hasattr(v, "row_splits"):
                assert v.dtype == hs.features[k].dtype, f"nodes/{name}.{k}"
    for name, es in g.edge_sets.items():
        hs = h.edge_sets[name]
        _eq(es.sizes, hs.sizes, f"edges/{name}.#size")
        assert es.adjacency.source_name == hs.adjacency.source_name
        assert es.adjacency.target_name == hs.adjacency.target_name
        _eq(es.adjacency.source, hs.adjacency.source, f"edges/{name}.#source")
        _eq(es.adjacency.target, hs.adjacency.target, f"edges/{name}.#target")
        assert sorted(es.features) == sorted(hs.features), name
        for k, v in es.features.items():
            _eq(v, hs.features[k], f"edges/{name}.{k}")
