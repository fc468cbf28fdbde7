"""GINConv / GINEConv take PyG's spelling ``'add'`` as the fused sum (not the general
per-edge aggregation path)."""

import numpy as np

import arraygnn.nn as agnn


def test_gin_add_is_the_fused_sum():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    ei = rng.integers(0, 6, (2, 15))
    ea = rng.standard_normal((15, 3)).astype(np.float32)
    for cls, extra in ((agnn.GINConv, ()), (agnn.GINEConv, (ea,))):
        add = cls(agnn.Linear(3, 2, rng=1), aggregator_type="add")
        total = cls(agnn.Linear(3, 2, rng=1), aggregator_type="sum")
        assert add.aggregator_type == "sum" and add.aggr_module is None
        np.testing.assert_array_equal(add(x, ei, *extra), total(x, ei, *extra))
