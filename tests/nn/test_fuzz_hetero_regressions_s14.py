"""Regressions found by the s14 differential fuzz of the heterogeneous layers against PyG
(weights through ``from_pyg``)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


def _converted(ref):
    torch.manual_seed(0)
    ref = ref.eval()
    for p in ref.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    return ref, agnn.from_pyg(ref)


def test_hetero_conv_cat_of_different_widths_matches_pyg():
    # 'cat' joins the layers' outputs along the features: widths may differ (PyG's torch.cat).
    ref, conv = _converted(
        pyg_nn.HeteroConv(
            {("a", "r0", "a"): pyg_nn.SAGEConv(3, 2), ("a", "r1", "a"): pyg_nn.GraphConv(3, 4)},
            aggr="cat",
        )
    )
    rng = np.random.default_rng(0)
    x = {"a": rng.standard_normal((5, 3)).astype(np.float32)}
    ei = {("a", r, "a"): rng.integers(0, 5, (2, 6)) for r in ("r0", "r1")}
    out = conv(x, ei)
    with torch.no_grad():
        exp = ref({"a": torch.from_numpy(x["a"])}, {k: torch.from_numpy(v) for k, v in ei.items()})
    assert out["a"].shape == (5, 6)
    np.testing.assert_allclose(out["a"], exp["a"].numpy(), rtol=1e-5, atol=1e-5)
