"""Review (session 10) of KGEModel.random_sample / loss: narrow id dtypes and float16."""

from __future__ import annotations

import numpy as np

from arraygnn.nn.kge import ComplEx, TransE


def test_random_sample_does_not_wrap_narrow_ids():
    # uint8 ids of a 1,000-entity model: the drawn entities must not wrap modulo 256
    model = TransE(1000, 3, 4, rng=0)
    h = np.array([1, 2, 3, 4], np.uint8)
    r = np.array([0, 1, 2, 0], np.uint8)
    t = np.array([5, 6, 7, 8], np.uint8)
    nh, nr, nt = model.random_sample(h, r, t, seed=0)
    wh, _, wt = model.random_sample(h.astype(np.int64), r, t.astype(np.int64), seed=0)
    np.testing.assert_array_equal(nh, wh)
    np.testing.assert_array_equal(nt, wt)
    assert nr is r and h.tolist() == [1, 2, 3, 4]  # inputs untouched
    # ids that fit keep their dtype
    small = TransE(200, 3, 4, rng=0).random_sample(h, r, t, seed=0)
    assert small[0].dtype == np.uint8 and small[2].dtype == np.uint8


def test_float16_loss_over_many_triples_is_finite():
    rng = np.random.default_rng(0)
    n = 70_000  # more triples than float16 can count
    h, r, t = rng.integers(0, 10, n), rng.integers(0, 2, n), rng.integers(0, 10, n)
    for cls in (ComplEx, TransE):
        half = cls(10, 2, 4, rng=0, dtype=np.float16)
        full = cls(10, 2, 4, rng=0, dtype=np.float32)
        full.load_state_dict({k: v.astype(np.float32) for k, v in half.state_dict().items()})
        a, b = half.loss(h, r, t, seed=0), full.loss(h, r, t, seed=0)
        assert a.dtype == np.float16
        np.testing.assert_allclose(float(a), float(b), rtol=1e-2)
