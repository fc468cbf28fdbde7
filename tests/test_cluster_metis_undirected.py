"""METIS needs an undirected graph: a directed one is refused before pymetis runs (pymetis
crashed the process on one: N = 3000, 20000 random directed edges, 1500 parts)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import ClusterData, Data
from arraygnn.cluster_data import metis_partition

pytest.importorskip("pymetis")


def _csr(src, dst, n):
    order = np.lexsort((dst, src))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    return indptr.astype(np.int64), dst[order].astype(np.int64)


def test_directed_graph_is_refused_before_metis():
    rng = np.random.default_rng(0)
    n = 3000
    ei = rng.integers(0, n, (2, 20000))
    data = Data(x=rng.normal(size=(n, 2)), edge_index=ei, num_nodes=n)
    with pytest.raises(ValueError, match="undirected"):
        ClusterData(data, num_parts=1500, log=False)
    indptr, index = _csr(ei[0], ei[1], n)
    with pytest.raises(ValueError, match=r"metis_partition: METIS needs an undirected graph"):
        metis_partition(indptr, index, 4)


def test_unequal_multiplicity_is_refused_and_undirected_graphs_partition():
    src, dst = np.array([0, 0, 1, 1, 2]), np.array([1, 1, 0, 2, 1])  # (0, 1) twice, (1, 0) once
    indptr, index = _csr(src, dst, 3)
    with pytest.raises(ValueError, match="as often"):
        metis_partition(indptr, index, 2)
    rng = np.random.default_rng(1)
    n = 300
    e = rng.integers(0, n, (2, 1500))
    both = np.concatenate([e, e[::-1]], axis=1)
    indptr, index = _csr(both[0], both[1], n)
    part = metis_partition(indptr, index, 8)
    assert part.shape == (n,) and part.min() >= 0 and part.max() < 8
    data = Data(x=rng.normal(size=(n, 2)), edge_index=both, num_nodes=n)
    cd = ClusterData(data, num_parts=8, log=False)
    assert len(cd) == 8
