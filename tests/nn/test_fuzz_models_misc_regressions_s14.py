"""Regressions from the s14 differential fuzz of PyG's composite models against PyG 2.8.1."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")


def test_label_propagation_int_labels_float64_edge_weight():
    # float32 one-hot labels stepped with float64 edge weights give float64: PyG multiplies
    # by alpha as a double there, not by alpha rounded to float32
    y = np.array([0, 1, 1])
    edge_index = np.array([[0, 1, 2, 2], [1, 2, 0, 1]])
    edge_weight = np.array([0.3, 1.7, 0.9, 1.1])
    mask = np.array([True, False, True])
    ref = pyg_models.LabelPropagation(2, 0.3)
    want = ref(
        torch.from_numpy(y),
        torch.from_numpy(edge_index),
        torch.from_numpy(mask),
        torch.from_numpy(edge_weight),
    ).numpy()
    got = agnn.from_pyg(ref)(y, edge_index, mask=mask, edge_weight=edge_weight)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
