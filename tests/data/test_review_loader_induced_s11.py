"""Review of the loaders' ``subgraph_type='induced'`` (session 11): on the CPU the edges
among the sampled nodes come from one Numba pass over the CSR slots (the array steps took
5-10x the directional batch's time); it must give the array steps' edges, in their order."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import ops
from arraygnn._subgraph_types import _induced_arrays, induced_edges


@pytest.mark.parametrize("idt", [np.int32, np.int64])
def test_induced_kernel_gives_the_array_steps_edges_in_order(idt):
    rng = np.random.default_rng(5)
    for n, e, k in [(7, 0, 3), (7, 20, 4), (30, 200, 12), (30, 200, 30)]:
        ei = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)]).astype(idt)
        ei[:, : min(e, 2)] = 3  # a self-loop and a repeated edge
        csr = ops.to_csr(ei, n, n)
        picked = rng.permutation(n)[:k]
        dst_ids = np.concatenate([picked, picked[:2]])  # a position listed twice (a seed)
        local = np.full(n, -1, np.int64)
        local[picked] = np.arange(k)
        got = induced_edges(np, csr, dst_ids, local)
        want = _induced_arrays(np, csr, dst_ids, local)
        for a, b in zip(got, want):
            assert a.dtype == np.int64
            np.testing.assert_array_equal(a, b)
        assert (local[ei[0][got[2]]] == got[0]).all() and (dst_ids[got[1]] == ei[1][got[2]]).all()
        assert local[picked].tolist() == list(range(k))  # the map is only read
