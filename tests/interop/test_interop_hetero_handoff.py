"""to_torch / to_jax / from_torch on HeteroData and HeteroBatch: store by store, the input
untouched, batches still split after the round trip."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, HeteroData
from arraygnn.interop import from_jax, from_torch, to_jax, to_torch


def _hetero(seed: int) -> HeteroData:
    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["paper"].x = rng.normal(size=(4, 3)).astype(np.float32)
    d["author"].x = rng.normal(size=(2, 3)).astype(np.float32)
    d["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [3, 0, 2]], np.int32)
    d["paper", "cites", "paper"].edge_index = np.array([[0, 2], [1, 3]], np.int32)
    d["paper", "cites", "paper"].edge_attr = rng.normal(size=(2, 2)).astype(np.float32)
    d.y = np.array([float(seed)], np.float32)
    return d


def _snapshot(d: HeteroData) -> tuple:
    return (list(d.node_types), list(d.edge_types), sorted(d.keys()))


@pytest.mark.parametrize("batched", [False, True])
def test_to_torch_walks_the_stores_and_leaves_the_input(batched):
    torch = pytest.importorskip("torch")
    data = Batch.from_data_list([_hetero(0), _hetero(1)]) if batched else _hetero(0)
    before = _snapshot(data)
    out, report = to_torch(data, report=True)
    assert _snapshot(data) == before  # no store made from an attribute name
    assert type(out) is type(data) and not report.copied
    assert isinstance(out["paper"].x, torch.Tensor)
    assert isinstance(out["author", "writes", "paper"].edge_index, torch.Tensor)
    assert "paper.x" in report.shared and "author__writes__paper.edge_index" in report.shared
    back = from_torch(out)
    assert isinstance(back["paper"].x, np.ndarray)
    np.testing.assert_array_equal(
        back["paper", "cites", "paper"].edge_attr, data["paper", "cites", "paper"].edge_attr
    )
    if batched:
        for i in range(2):
            ex = back.get_example(i)
            want = _hetero(i)
            np.testing.assert_array_equal(
                ex["author", "writes", "paper"].edge_index,
                want["author", "writes", "paper"].edge_index,
            )
            np.testing.assert_array_equal(ex["paper"].x, want["paper"].x)


def test_to_jax_on_a_hetero_batch():
    pytest.importorskip("jax")
    data = Batch.from_data_list([_hetero(0), _hetero(1)])
    before = _snapshot(data)
    out = to_jax(data)
    assert _snapshot(data) == before
    back = from_jax(out)
    ex = back.get_example(1)
    np.testing.assert_array_equal(
        ex["author", "writes", "paper"].edge_index,
        _hetero(1)["author", "writes", "paper"].edge_index,
    )
