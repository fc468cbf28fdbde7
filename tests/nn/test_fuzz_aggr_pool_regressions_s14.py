"""Regressions from the s14 differential fuzz of ``arraygnn.nn.aggr`` and the poolings
against PyG 2.8.1 (eval mode, weights through ``from_pyg``)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
aggr = pytest.importorskip("torch_geometric.nn.aggr")

from arraygnn.nn import from_pyg  # noqa: E402


@pytest.mark.parametrize("kind", ["set-transformer", "gmt"])
def test_set_transformers_every_group_empty_read_the_seeds(kind):
    # PyG (one head, one group) reads the seeds alone: the value an empty group gets
    # beside non-empty ones; arraygnn raised "every group is empty" there
    torch.manual_seed(0)
    if kind == "gmt":
        pyg = aggr.GraphMultisetTransformer(2, k=2).eval()
    else:
        pyg = aggr.SetTransformerAggregation(2, num_seed_points=2).eval()
    layer = from_pyg(pyg)
    with torch.no_grad():
        want = pyg(torch.zeros(0, 2), torch.zeros(0, dtype=torch.long), dim_size=1).numpy()
        mixed = pyg(torch.ones(1, 2), torch.tensor([1]), dim_size=2).numpy()
    got = layer(np.zeros((0, 2), np.float32), np.zeros(0, np.int64), dim_size=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    got3 = layer(np.zeros((0, 2), np.float32), np.zeros(0, np.int64), dim_size=3)
    assert got3.shape == (3, want.shape[1]) and got3.dtype == np.float32
    np.testing.assert_allclose(got3, np.repeat(mixed[:1], 3, axis=0), rtol=1e-5, atol=1e-6)
