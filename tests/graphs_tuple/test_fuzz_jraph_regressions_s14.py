"""Regressions found by the s14 differential fuzz of the jraph face against jraph."""

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt


@pytest.mark.parametrize("op", ["segment_sum", "segment_max_or_constant"])
def test_all_negative_ids_without_num_segments_is_an_error(op):
    # jax.ops: num_segments = max(ids) + 1 = -1 is a ValueError; it was an empty result
    with pytest.raises(ValueError, match="num_segments"):
        getattr(gt, op)(np.ones(1), np.array([-2]))
    # with num_segments given, the negative id is dropped, as in jax.ops
    assert getattr(gt, op)(np.ones(1), np.array([-2]), 2).tolist() == [0.0, 0.0]
