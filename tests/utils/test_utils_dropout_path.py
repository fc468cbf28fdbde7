"""``dropout_path``: PyG's path dropout walked with arraygnn's random-walk kernel. PyG's
needs pyg-lib (not installable here) and torch's generator, so the tests check its rule:
every ``(source, target)`` pair a walk steps along is dropped, parallel copies too, and
on a directed cycle an edge is dropped exactly when one of the ``walk_length`` edges
before it (itself included) started a walk."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.utils import dropout_path


def _cycle(n, dtype=np.int64):
    src = np.arange(n, dtype=dtype)
    return np.stack([src, (src + 1) % n]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_every_edge_on_a_walk_is_dropped(dtype):
    kept, mask = dropout_path(_cycle(7, dtype), p=1.0, walk_length=1, seed=3)
    assert kept.shape == (2, 0) and kept.dtype == dtype and not mask.any()
    chain = np.array([[0, 1], [1, 2]], dtype=dtype)  # node 2 is a dead end: the walk stops
    kept, mask = dropout_path(chain, p=1.0, walk_length=5, seed=0)
    assert not mask.any() and mask.dtype == bool


@pytest.mark.parametrize("walk_length", [1, 3])
def test_cycle_drop_rate_follows_the_walk_rule(walk_length):
    """On a directed cycle each walk from node u steps along u->u+1, ..., so edge i is
    dropped iff one of the edges i - walk_length + 1 .. i started a walk."""
    n, p = 20_000, 0.3
    ei = _cycle(n)
    rng = np.random.default_rng(11)
    kept, mask = dropout_path(ei, p=p, walk_length=walk_length, seed=rng)
    np.testing.assert_array_equal(kept, ei[:, mask])
    want = 1 - (1 - p) ** walk_length
    got = 1 - mask.mean()
    sigma = np.sqrt(want * (1 - want) / n) * np.sqrt(walk_length)  # runs are correlated
    assert abs(got - want) < 6 * sigma, (got, want)
    # the dropped edges come in runs of at least walk_length (a walk drops consecutive edges)
    dropped = ~mask
    starts = np.flatnonzero(dropped & ~np.roll(dropped, 1))
    ends = np.flatnonzero(dropped & ~np.roll(dropped, -1))
    runs = (ends - starts) % n + 1
    assert runs.min() >= walk_length


def test_parallel_copies_are_dropped_together_and_input_kept():
    rng = np.random.default_rng(5)
    ei = rng.integers(0, 30, (2, 200))
    ei = np.concatenate([ei, ei[:, :50]], axis=1)  # parallel copies
    before = ei.copy()
    kept, mask = dropout_path(ei, p=0.2, walks_per_node=2, walk_length=2, seed=1)
    np.testing.assert_array_equal(ei, before)
    keys = ei[0] * 30 + ei[1]
    for key in np.unique(keys):
        assert len(set(mask[keys == key].tolist())) == 1
    np.testing.assert_array_equal(kept, ei[:, mask])
    again = dropout_path(ei, p=0.2, walks_per_node=2, walk_length=2, seed=1)[1]
    np.testing.assert_array_equal(mask, again)  # the same seed, the same drop


def test_no_walk_cases_return_copies():
    ei = _cycle(5)
    for kwargs in ({"training": False}, {"p": 0.0}, {"walk_length": 0, "p": 1.0}):
        kept, mask = dropout_path(ei, seed=0, **kwargs)
        np.testing.assert_array_equal(kept, ei)
        assert kept is not ei and mask.all() and mask.shape == (5,)
    kept, mask = dropout_path(np.zeros((2, 0), np.int64), p=1.0, num_nodes=3, seed=0)
    assert kept.shape == (2, 0) and mask.shape == (0,)


def test_errors_name_the_function_and_argument():
    ei = _cycle(4)
    with pytest.raises(ValueError, match="dropout_path: p must be between 0 and 1"):
        dropout_path(ei, p=1.5)
    with pytest.raises((TypeError, ValueError), match="dropout_path: walks_per_node"):
        dropout_path(ei, walks_per_node=-1)
    with pytest.raises((TypeError, ValueError), match="dropout_path: walk_length"):
        dropout_path(ei, walk_length=2.5)
    with pytest.raises(ValueError, match="dropout_path"):
        dropout_path(ei, p=0.5, num_nodes=2, seed=0)  # ids out of range
