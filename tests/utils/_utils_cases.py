"""Shared inputs for the ``arraygnn.utils`` tests: labelled graphs, attributes, comparisons."""

from __future__ import annotations

import numpy as np

from arraygnn.testing.cases import graph_cases, random_graph

INDEX_DTYPES = (np.int32, np.int64)


def homogeneous_cases(index_dtype=np.int64):
    """``(label, edge_index, num_nodes)``: every labelled case with one node set, plus
    random graphs with self-loops and multi-edges (one with trailing isolated nodes)."""
    out = [
        (c.name, c.edge_index, c.num_src_nodes)
        for c in graph_cases(index_dtype)
        if c.num_src_nodes == c.num_dst_nodes
    ]
    for seed, (n, e) in enumerate([(7, 20), (30, 90), (12, 4)]):
        out.append((f"random-{n}-{e}", random_graph(n, n, e, seed=seed, dtype=index_dtype), n))
    # node 9 has no edges and is the largest id: PyG's max + 1 misses it
    ei = np.array([[0, 1, 2, 2, 3], [1, 2, 3, 3, 0]], dtype=index_dtype)
    out.append(("isolated-trailing", ei, 10))
    return out


def case_ids(cases):
    return [c[0] for c in cases]


def attr_variants(num_edges, seed=0):
    """``(label, edge_attr)``: float32 [E], float64 [E, 3], int64 [E]."""
    rng = np.random.default_rng(seed)
    return [
        ("f32", rng.standard_normal(num_edges).astype(np.float32)),
        ("f64x3", rng.standard_normal((num_edges, 3))),
        ("i64", rng.integers(-5, 6, num_edges)),
    ]


def t(a):
    """A torch tensor of ``a`` (integer ids as int64, which PyG's scatter needs)."""
    import torch

    a = np.ascontiguousarray(a)
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(a.copy())


def assert_same(ours, ref, *, exact=False):
    """``ours`` (NumPy) equals ``ref`` (torch or NumPy): same shape and values; floats to
    rounding (PyG's sums may run in another order) unless ``exact``."""
    ref = ref.numpy() if hasattr(ref, "numpy") else np.asarray(ref)
    assert isinstance(ours, np.ndarray), type(ours)
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    if ours.dtype.kind == "f" and not exact:
        tol = 1e-5 if ours.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(ours, ref)


def torch_dtype_name(ref):
    return str(ref.dtype).replace("torch.", "")


def index_dtype_graphs():
    """``homogeneous_cases`` for each index dtype, as ``pytest.param(dtype, edge_index,
    num_nodes)`` labelled ``<case>-<dtype>``."""
    import pytest

    return [
        pytest.param(dt, ei.astype(dt), n, id=f"{label}-{np.dtype(dt).name}")
        for dt in INDEX_DTYPES
        for label, ei, n in homogeneous_cases()
    ]


GRAPHS = index_dtype_graphs()


def pyg_utils():
    """``torch_geometric.utils``, or a skip when PyG is not installed."""
    import pytest

    pytest.importorskip("torch_geometric")
    import torch_geometric.utils as pyg

    return pyg
