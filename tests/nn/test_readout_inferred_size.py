"""Readouts called without the number of graphs use PyG's ``batch.max() + 1``, as PyG and
arraygnn's own ``nn.aggr`` aggregations do; checked against PyG where installed."""

import numpy as np
import pytest

import arraygnn.nn as agnn

X = np.random.default_rng(3).standard_normal((7, 4)).astype(np.float32)
BATCH = np.array([2, 0, 0, 2, 2, 3, 0])  # graph 1 empty, any order


@pytest.mark.parametrize("reduce", ["add", "mean", "max"])
def test_global_pools_infer_the_number_of_graphs(reduce):
    pool = getattr(agnn, f"global_{reduce}_pool")
    got = pool(X, BATCH)
    np.testing.assert_array_equal(got, pool(X, BATCH, 4))
    assert pool(X, BATCH.astype(np.int32)).shape == (4, 4)
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    ref = getattr(pyg_nn, f"global_{reduce}_pool")(torch.from_numpy(X), torch.from_numpy(BATCH))
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-6, atol=1e-6)


def test_weighted_readouts_infer_the_number_of_graphs():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    torch.manual_seed(0)
    batch = np.sort(BATCH)  # PyG's Set2Set / SortAggregation want a sorted index
    index = torch.from_numpy(batch)
    x = torch.from_numpy(X)
    for ref in (
        pyg_nn.aggr.AttentionalAggregation(torch.nn.Linear(4, 1)),
        pyg_nn.aggr.Set2Set(4, processing_steps=2),
        pyg_nn.aggr.SortAggregation(k=2),
    ):
        ours = agnn.from_pyg(ref)
        with torch.no_grad():
            want = ref(x, index).numpy()
        got = ours(X, batch)
        assert got.shape == want.shape, type(ref).__name__
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=type(ref).__name__)


def test_inferred_size_checks_the_ids():
    with pytest.raises(TypeError, match="integer"):
        agnn.global_mean_pool(X, BATCH.astype(np.float64))
    with pytest.raises(ValueError, match="batch"):
        agnn.global_mean_pool(X, BATCH - 1)
    assert agnn.global_add_pool(X[:0], BATCH[:0]).shape == (0, 4)
    assert agnn.Set2Set(4, 1)(X[:0], BATCH[:0]).shape == (0, 8)


def test_a_batch_without_ptr_or_batch_vector_is_refused():
    """A Batch of graphs without num_nodes (only a ``h`` array, no ``x`` / ``pos`` /
    ``num_nodes``) has neither ``ptr`` nor ``batch``: pooling it used to treat every row as
    one graph."""
    from arraygnn.batch import Batch
    from arraygnn.data import Data

    b = Batch.from_data_list([Data(h=np.ones((n, 3))) for n in (5, 7, 4)])
    with pytest.raises(ValueError, match="neither ptr nor a batch vector"):
        agnn.global_max_pool(b.h, b)
    one = Batch.from_data_list([Data(h=np.ones((5, 3)))])
    assert agnn.global_mean_pool(one.h, one).shape == (1, 3)
