"""GINConv and SAGEConv hand ``ops.spmm`` the edge list itself when no CSR is cached (narrow
rows then skip building a CSR for one call): the same bits as with a CSR passed in, for
narrow and wide features, int32 / int64 ids, bipartite inputs and edge weights."""

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn import ops


@pytest.mark.parametrize("feats", [1, 4, 16])
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_edge_list_and_csr_give_the_same_bits(feats, id_dtype):
    rng = np.random.default_rng(feats)
    n_src, n_dst, num = 30, 20, 120
    ei = np.stack([rng.integers(0, n_src, num), rng.integers(0, n_dst, num)]).astype(id_dtype)
    ei[1, :5] = 19  # a hub; some targets get no edges
    x_src = rng.standard_normal((n_src, feats)).astype(np.float32)
    x_dst = rng.standard_normal((n_dst, feats)).astype(np.float32)
    w = rng.random(num).astype(np.float32)
    csr = ops.to_csr(ei, n_src, n_dst)
    layers = [
        (agnn.GINConv(agnn.Linear(feats, 3, rng=0)), (x_src, x_dst), {"edge_weight": w}),
        (agnn.GINConv(agnn.Linear(feats, 3, rng=0), aggregator_type="max"), (x_src, x_dst), {}),
        (agnn.SAGEConv(feats, 3, rng=0), (x_src, x_dst), {}),
        (agnn.SAGEConv(feats, 3, aggregator_type="max", rng=0), (x_src, x_dst), {}),
        (agnn.SAGEConv(feats, 3, rng=0), x_src[:n_dst], {}),
    ]
    for layer, x, kwargs in layers:
        e = ei if isinstance(x, tuple) else ei % n_dst
        c = csr if isinstance(x, tuple) else ops.to_csr(e, n_dst, n_dst)
        got = layer(x, e, **kwargs)
        want = layer(x, c, **kwargs)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), layer
