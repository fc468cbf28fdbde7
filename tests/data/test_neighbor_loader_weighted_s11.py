"""PyG's weighted neighbour sampling (``weight_attr=``) in the PyG-face loaders.

pyg-lib's rules: a node with at most ``fanout`` in-edges (or ``fanout=-1``) keeps all of
them, zero-weight ones included; otherwise ``fanout`` are drawn in proportion to the
weights (zero-weight edges only past the positive ones); ``replace=True`` draws
``fanout`` with replacement and needs a non-zero total weight.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.hetero_neighbor_loader import HeteroNeighborLoader
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.sampler import NeighborSampler, NodeSamplerInput

STARS, ARMS = 200, 8
# per star: arm 0 heavy, arms 1 and 2 zero, the rest weight 1
PATTERN = np.array([100.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0])


def stars() -> Data:
    """``STARS`` targets (ids 0..STARS-1), each with ``ARMS`` in-edges from its own leaves."""
    dst = np.repeat(np.arange(STARS), ARMS)
    src = STARS + np.arange(STARS * ARMS)
    w = np.tile(PATTERN, STARS)
    return Data(edge_index=np.stack([src, dst]), w=w, num_nodes=STARS + STARS * ARMS)


def arm(e_id: np.ndarray) -> np.ndarray:
    return np.asarray(e_id) % ARMS


def one_batch(data: Data, fanout: int, **kw) -> Data:
    loader = NeighborLoader(
        data, [fanout], input_nodes=np.arange(STARS), batch_size=STARS, weight_attr="w",
        seed=0, **kw,
    )  # fmt: skip
    return next(iter(loader))


def test_weighted_draws_follow_the_weights_and_skip_zero_weights():
    data = stars()
    before = data.w.copy()
    batch = one_batch(data, 2)
    arms = arm(batch.e_id)
    assert batch.num_sampled_edges == [2 * STARS]
    assert not np.isin(arms, [1, 2]).any()  # zero weight: never drawn
    heavy = np.mean(arms.reshape(STARS, 2) == 0, axis=0).sum()  # heavy in a star's pick
    assert heavy > 0.9  # P = 1 - (5/105)(4/5) ~ 0.96; uniform would give 2/8
    np.testing.assert_array_equal(batch.w, data.w[batch.e_id])  # sliced as an edge attribute
    np.testing.assert_array_equal(data.w, before)  # not mutated
    again = one_batch(stars(), 2)  # same seed, same draws
    np.testing.assert_array_equal(again.e_id, batch.e_id)


@pytest.mark.parametrize("fanout", [-1, ARMS])
def test_whole_neighbourhoods_are_taken_as_without_weights(fanout):
    weighted = one_batch(stars(), fanout)
    plain = next(iter(NeighborLoader(stars(), [fanout], input_nodes=np.arange(STARS),
                                     batch_size=STARS, exclude_keys=["w"])))  # fmt: skip
    np.testing.assert_array_equal(weighted.e_id, plain.e_id)  # every edge, zeros included
    np.testing.assert_array_equal(weighted.edge_index, plain.edge_index)
    assert weighted.e_id.shape[0] == STARS * ARMS


def test_more_than_the_positive_edges_fills_with_zero_weight_ones():
    batch = one_batch(stars(), 7)  # 6 positive arms: one zero-weight arm joins, at random
    arms = arm(batch.e_id).reshape(STARS, 7)
    assert np.all(np.isin(arms[:, :6], [0, 3, 4, 5, 6, 7]))  # positives drawn first
    assert set(arms[:, 6].tolist()) == {1, 2}


def test_replace_draws_with_replacement_in_proportion():
    batch = one_batch(stars(), 4, replace=True)
    arms = arm(batch.e_id)
    assert arms.shape[0] == 4 * STARS and not np.isin(arms, [1, 2]).any()
    assert 0.9 < np.mean(arms == 0) < 0.99  # 100/105 ~ 0.952


def test_replace_with_zero_total_weight_raises():
    data = stars()
    data.w = data.w.copy()
    data.w[:ARMS] = 0.0  # star 0: every arm weighs 0
    with pytest.raises(ValueError, match="sum to 0"):
        one_batch(data, 2, replace=True)
    one_batch(data, 2)  # without replacement: two of its arms, uniformly (pyg-lib's topk)


@pytest.mark.parametrize(
    "w, match",
    [
        (np.ones(STARS * ARMS, dtype=np.int64), "floating"),
        (-np.ones(STARS * ARMS), "negative"),
        (np.full(STARS * ARMS, np.nan), "finite"),
        (np.ones(3), "1-D array of"),
    ],
)
def test_bad_weights_are_refused(w, match):
    data = stars()
    data.w = w
    with pytest.raises(ValueError, match=rf"weight_attr='w'.*{match}"):
        one_batch(data, 2, exclude_keys=["w"])


def test_weight_attr_errors():
    with pytest.raises(ValueError, match="no such attribute"):
        NeighborLoader(stars(), [2], weight_attr="nope")
    with pytest.raises(ValueError, match="disjoint"):
        NeighborLoader(stars(), [2], weight_attr="w", disjoint=True)
    with pytest.raises(TypeError, match="weight_attr"):
        NeighborLoader(stars(), [2], weight_attr=3)


def test_link_loader_and_sampler_pass_weights_on():
    data = stars()
    label = data.edge_index[:, :: ARMS * 10]  # every tenth star's heavy edge
    loader = LinkNeighborLoader(
        data, [2], edge_label_index=label, batch_size=label.shape[1], weight_attr="w", seed=1
    )
    batch = next(iter(loader))
    assert batch.e_id.shape[0] > 0 and not np.isin(arm(batch.e_id), [1, 2]).any()
    sampler = NeighborSampler(stars(), [2], weight_attr="w", seed=2)
    out = sampler.sample_from_nodes(NodeSamplerInput(None, np.arange(STARS)))
    assert out.edge.shape[0] == 2 * STARS and not np.isin(arm(out.edge), [1, 2]).any()


def test_hetero_weights_on_one_edge_type_only():
    data = HeteroData()
    data["paper"].num_nodes = STARS
    data["a"].num_nodes = data["b"].num_nodes = STARS * ARMS
    ei = stars().edge_index - np.array([[STARS], [0]])
    data["a", "w", "paper"].edge_index = ei
    data["a", "w", "paper"].w = np.tile(PATTERN, STARS)
    data["b", "c", "paper"].edge_index = ei  # no weights: uniform, as pyg-lib
    loader = HeteroNeighborLoader(
        data, [2], input_nodes=("paper", np.arange(STARS)), batch_size=STARS,
        weight_attr="w", seed=0,
    )  # fmt: skip
    batch = next(iter(loader))
    weighted = arm(batch["a", "w", "paper"].e_id)
    uniform = arm(batch["b", "c", "paper"].e_id)
    assert weighted.shape[0] == uniform.shape[0] == 2 * STARS
    assert not np.isin(weighted, [1, 2]).any() and np.mean(weighted == 0) > 0.4
    assert np.isin(uniform, [1, 2]).any() and np.mean(uniform == 0) < 0.25
    np.testing.assert_array_equal(batch["a", "w", "paper"].w, PATTERN[weighted])
    with pytest.raises(ValueError, match="no edge type holds it"):
        HeteroNeighborLoader(data, [2], input_nodes=("paper", None), weight_attr="x")
