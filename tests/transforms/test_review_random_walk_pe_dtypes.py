"""Review (session 10) of AddRandomWalkPE's blocked SpMM path."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.transforms import AddRandomWalkPE


@pytest.mark.parametrize("n", [100, 300])
def test_float16_weights_keep_working_above_128_nodes(n):
    # the dense path (n <= 128) always took float16 weights; SciPy's sparse matrices refuse
    # float16, so the sparse / SpMM path must not crash on them
    rng = np.random.default_rng(0)
    ei = rng.integers(0, n, (2, 3 * n))
    w = (rng.random(ei.shape[1]) + 0.5).astype(np.float16)
    out = AddRandomWalkPE(3)(Data(edge_index=ei, edge_weight=w, num_nodes=n)).random_walk_pe
    ref = AddRandomWalkPE(3)(
        Data(edge_index=ei, edge_weight=w.astype(np.float32), num_nodes=n)
    ).random_walk_pe
    assert out.dtype == np.float16 and out.shape == (n, 3)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-2, atol=1e-3)
