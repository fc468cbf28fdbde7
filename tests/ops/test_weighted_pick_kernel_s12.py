"""The Numba kernel behind weighted neighbour sampling on NumPy inputs
(``arraygnn.kernels.cpu.sampling.weighted_pick``) draws the same edges, in the same order,
as the array code that CuPy inputs run (``arraygnn.sampling._weighted_pick``), bit for bit
for a given seed: same random stream, same keys, same prefix sums."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.sampling import _weighted_pick


class _ArrayCode:
    """NumPy under another name: ``_weighted_pick`` then runs its array code (the CuPy
    path) on host arrays."""

    def __getattr__(self, name):
        return getattr(np, name)


def _rows(rng, n, idtype, wdtype, zero_rows):
    deg = rng.integers(0, 12, n)
    deg[rng.random(n) < 0.2] = 0  # empty rows
    deg[0] = 40  # a long row
    total = int(deg.sum())
    seg = np.repeat(np.arange(n), deg)
    local = np.arange(total) - np.repeat(np.cumsum(deg) - deg, deg)
    ids = rng.permutation(total * 3)[:total].astype(idtype)
    wt = rng.random(total).astype(wdtype)
    wt[rng.random(total) < 0.3] = 0  # zero weights
    if zero_rows:  # rows whose edges all weigh 0
        wt[np.isin(seg, np.nonzero(rng.random(n) < 0.2)[0])] = 0
    wt[wt == wt.max()] = 1e-320 if wdtype == np.float64 else wt.max()  # a huge key
    return deg.astype(idtype), seg, local.astype(idtype), ids, wt.astype(np.float64)


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("wdtype", [np.float32, np.float64])
@pytest.mark.parametrize("replace", [False, True])
def test_kernel_matches_array_code(idtype, wdtype, replace):
    rng = np.random.default_rng(
        int(replace) + 2 * (idtype == np.int64) + 4 * (wdtype == np.float64)
    )
    for trial in range(6):
        n = int(rng.integers(1, 40))
        for pyg in (False, True):
            # pyg-lib's caller refuses rows of zero total weight with replacement
            zero_rows = not (pyg and replace)
            deg, seg, local, ids, wt = _rows(rng, n, idtype, wdtype, zero_rows)
            if pyg and replace:
                wt[np.isin(seg, np.nonzero(np.bincount(seg, wt, n) <= 0)[0])] = 0.5
            fanouts = [0, 1, 3, 5, 100] + ([] if pyg else [-1])
            for fanout in fanouts:
                if replace and fanout < 0:
                    continue
                seed = 1000 * trial + fanout + 1
                got, counts = _weighted_pick(
                    np, deg, seg, local, ids, wt, fanout, replace, np.random.default_rng(seed), pyg
                )
                with np.errstate(over="ignore"):  # the huge key overflows to inf
                    want, want_counts = _weighted_pick(
                        _ArrayCode(), deg, seg, local, ids, wt, fanout, replace,
                        np.random.default_rng(seed), pyg,
                    )  # fmt: skip
                assert got.dtype == want.dtype and counts.dtype == want_counts.dtype
                np.testing.assert_array_equal(counts, want_counts)
                np.testing.assert_array_equal(got, want, err_msg=f"{fanout=} {pyg=}")


def test_kernel_on_an_empty_frontier():
    e = np.zeros(0, dtype=np.int64)
    for replace in (False, True):
        got, counts = _weighted_pick(
            np, e, e, e, e, np.zeros(0), 3, replace, np.random.default_rng(0), True
        )
        assert got.shape == (0,) and counts.shape == (0,)
