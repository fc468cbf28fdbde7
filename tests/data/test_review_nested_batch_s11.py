"""Review of the PyG containers sweep: a batch of batches of batches (its inner graph ids
are collated keys then, moved on as PyG's ``batch.max() + 1``), the same through
``from_pyg``, for ``Batch`` and ``HeteroBatch``; ``HeteroData.coalesce(reduce='any')`` as
``Data.coalesce``."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data, HeteroData


def _graph(n: int, e: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((n, 2)).astype(np.float32),
        "edge_index": rng.integers(0, n, (2, e)).astype(np.int64),
    }


def _hetero(n_a: int, n_b: int, seed: int) -> HeteroData:
    rng = np.random.default_rng(seed)
    h = HeteroData()
    h["a"].x = rng.standard_normal((n_a, 2)).astype(np.float32)
    h["b"].x = rng.standard_normal((n_b, 3)).astype(np.float32)
    h["a", "to", "b"].edge_index = np.stack([rng.integers(0, n_a, 2), rng.integers(0, n_b, 2)])
    return h


SIZES = [(3, 4), (2, 1), (4, 2), (1, 1), (2, 2)]


def test_batch_of_nested_batches_numbers_every_graph():
    graphs = [Data(**_graph(n, e, i), y=i) for i, (n, e) in enumerate(SIZES)]
    b1 = Batch.from_data_list(graphs[:2], follow_batch=["x"])
    b2 = Batch.from_data_list(graphs[2:4], follow_batch=["x"])
    b3 = Batch.from_data_list(graphs[4:], follow_batch=["x"])
    outer = Batch.from_data_list([Batch.from_data_list([b1, b2]), Batch.from_data_list([b3])])
    want = np.repeat(np.arange(5), [n for n, _ in SIZES])  # one id per graph, as PyG
    np.testing.assert_array_equal(outer.batch, want)
    np.testing.assert_array_equal(outer.x_batch, want)
    inner = outer.get_example(1)  # the batch of b3 back, its ids from 0
    np.testing.assert_array_equal(inner.batch, np.zeros(2, np.int64))
    np.testing.assert_array_equal(outer.get_example(0).batch, want[:10])


def test_hetero_batch_of_nested_batches_numbers_every_graph():
    hs = [_hetero(na, nb, i) for i, (na, nb) in enumerate(SIZES)]
    inner = Batch.from_data_list([Batch.from_data_list(hs[:2]), Batch.from_data_list(hs[2:4])])
    outer = Batch.from_data_list([inner, Batch.from_data_list([Batch.from_data_list(hs[4:])])])
    for t, col in (("a", 0), ("b", 1)):
        want = np.repeat(np.arange(5), [s[col] for s in SIZES])
        np.testing.assert_array_equal(outer[t].batch, want)
        np.testing.assert_array_equal(outer.get_example(0)[t].batch, want[want < 4])


def test_nested_pyg_batch_batched_again_matches_pyg():
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric.data")
    from arraygnn.interop import from_pyg

    sizes = SIZES[:4]
    pyg = [tg.Data(**{k: torch.from_numpy(v) for k, v in _graph(n, e, i).items()})
           for i, (n, e) in enumerate(sizes)]  # fmt: skip
    p1 = tg.Batch.from_data_list(
        [tg.Batch.from_data_list(pyg[:2]), tg.Batch.from_data_list(pyg[2:])]
    )
    p2 = tg.Batch.from_data_list([tg.Batch.from_data_list(pyg[:1])])
    expected = tg.Batch.from_data_list([p1, p2])
    ours = Batch.from_data_list([from_pyg(p1), from_pyg(p2)])
    np.testing.assert_array_equal(ours.batch, expected.batch.numpy())


def test_hetero_coalesce_takes_reduce_any_as_data():
    h = HeteroData(a={"num_nodes": 2})
    h["a", "to", "a"].edge_index = np.array([[1, 0, 1], [0, 1, 0]])
    h["a", "to", "a"].edge_attr = np.array([1.0, 2.0, 3.0])
    out = h.coalesce(reduce="any")
    d = Data(edge_index=h["to"].edge_index, edge_attr=h["to"].edge_attr, num_nodes=2)
    np.testing.assert_array_equal(out["to"].edge_attr, d.coalesce(reduce="any").edge_attr)
