"""Review of the session-11 nn parity sweeps (commit 3d7a793): regressions found there."""

from __future__ import annotations

import numpy as np

from arraygnn.nn.aggr import MultiAggregation


def test_multi_aggregation_attn_seed_draws_each_weight_once():
    # rng=0 seeded the HeteroDictLinear and the MultiheadAttention alike, so the attention's
    # in-projection was the per-aggregation Linear's weight times a constant
    kwargs = {"in_channels": 4, "out_channels": 4, "num_heads": 2}
    layer = MultiAggregation(["mean", "max"], mode="attn", mode_kwargs=kwargs, rng=0)
    state = layer.state_dict()
    head = state["lin_heads.lins.0.weight"].ravel()
    proj = state["multihead_attn.in_proj_weight"].ravel()[: head.size]
    assert abs(np.corrcoef(head, proj)[0, 1]) < 0.9
    again = MultiAggregation(["mean", "max"], mode="attn", mode_kwargs=kwargs, rng=0)
    for key, value in again.state_dict().items():  # still reproducible from the seed
        np.testing.assert_array_equal(value, state[key])
