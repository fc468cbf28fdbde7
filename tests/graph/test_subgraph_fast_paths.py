"""The fast paths of graph bookkeeping give the slow paths' results exactly:
``node_subgraph`` through a cached in-edge CSR (few kept nodes) against the scan over every
edge, and ``arraygnn._ids.unique_ids`` against ``np.unique``."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn._ids import unique_ids
from arraygnn.graph import graph, heterograph


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("n, e, k", [(1000, 5000, 50), (50, 400, 3), (200, 0, 5), (300, 2000, 0)])
def test_node_subgraph_through_the_csr_equals_the_scan(idtype, n, e, k):
    rng = np.random.default_rng(n + e + k)
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    src[:3], dst[:3] = dst[:3], dst[:3]  # self-loops
    g = graph((src.astype(idtype), dst.astype(idtype)), num_nodes=n)
    g.ndata["x"] = rng.random((n, 2))
    g.edata["w"] = rng.random(e)
    nodes = rng.choice(n, k, replace=False)
    scanned = g.subgraph(nodes)  # no CSR built yet: the scan
    g.csr()
    indexed = g.subgraph(nodes)
    for a, b in zip(scanned.edges(), indexed.edges()):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    for key in ("_ID", "w"):
        assert np.array_equal(scanned.edata[key], indexed.edata[key])


def test_node_subgraph_through_the_csr_on_a_heterograph():
    rng = np.random.default_rng(3)
    rels = {
        ("a", "r", "b"): (rng.integers(0, 30, 200), rng.integers(0, 40, 200)),
        ("b", "s", "b"): (rng.integers(0, 40, 100), rng.integers(0, 40, 100)),
    }
    hg = heterograph(rels, num_nodes_dict={"a": 30, "b": 40})
    keep = {"a": np.array([1, 5, 7]), "b": np.array([0, 3, 9])}
    scanned = hg.subgraph(keep)
    for c in hg.canonical_etypes:
        hg.csr(c)
    indexed = hg.subgraph(keep)
    for c in hg.canonical_etypes:
        for a, b in zip(scanned.edges(etype=c), indexed.edges(etype=c)):
            assert np.array_equal(a, b)
        assert np.array_equal(scanned.edges[c].data["_ID"], indexed.edges[c].data["_ID"])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("size", [0, 1, 7, 100])
def test_unique_ids_equals_np_unique(dtype, size):
    rng = np.random.default_rng(size)
    ids = rng.integers(0, max(size, 1), size).astype(dtype)
    for num_ids in (None, max(size, 1)):
        got, expected = unique_ids(np, ids, num_ids), np.unique(ids)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_unique_ids_sorts_negative_ids_without_a_size():
    ids = np.array([-3, 5, -3, 0, 5])
    assert unique_ids(np, ids).tolist() == [-3, 0, 5]
