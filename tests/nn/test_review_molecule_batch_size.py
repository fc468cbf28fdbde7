"""Review of the molecule models' ``batch_size`` inference (session 10): ``check_batch``
on odd ``batch`` arrays."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.nn._pool_input import check_batch


def test_check_batch_refuses_a_0d_batch_clearly():
    with pytest.raises(ValueError, match="batch must have 1 dimension"):
        check_batch("SchNet", np.array(0), None, 1)


def test_check_batch_infers_from_int32_and_empty_batches():
    assert check_batch("SchNet", np.array([0, 0, 2], np.int32), None, 3) == 3
    assert check_batch("SchNet", np.zeros(0, np.int32), None, 0) == 0
    with pytest.raises(ValueError, match="negative"):
        check_batch("SchNet", np.array([0, -1]), None, 2)


def test_attentive_fp_small_int_batch_with_many_atoms():
    # a uint8 batch is a valid batch; the readout's atom ids must not wrap past 255
    from arraygnn.nn.attentive_fp import AttentiveFP

    n = 300
    model = AttentiveFP(3, 4, 2, edge_dim=2, num_layers=1, num_timesteps=1, rng=0)
    x = np.random.default_rng(0).random((n, 3)).astype(np.float32)
    ei = np.stack([np.arange(n - 1), np.arange(1, n)])
    ea = np.ones((n - 1, 2), np.float32)
    batch = np.repeat(np.arange(3), 100)
    want = model(x, ei, ea, batch)
    np.testing.assert_allclose(model(x, ei, ea, batch.astype(np.uint8)), want, rtol=1e-6)
    np.testing.assert_allclose(model(x, ei, ea, batch.astype(np.int32)), want, rtol=1e-6)
