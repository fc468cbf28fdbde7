"""Heterogeneous models trained in PyG and run on arraygnn (session 10, hetero journey).

Each test builds the PyG 2.8.1 model, converts it with ``from_pyg`` and compares the outputs
on the same tiny graph.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import from_pyg  # noqa: E402

META = (
    ["paper", "author"],
    [("paper", "cites", "paper"), ("author", "writes", "paper"), ("paper", "rev_writes", "author")],
)


def _inputs():
    g = torch.Generator().manual_seed(0)
    x = {"paper": torch.randn(5, 4, generator=g), "author": torch.randn(3, 4, generator=g)}
    writes = torch.tensor([[0, 1, 2, 2], [0, 1, 3, 4]])
    ei = {
        ("paper", "cites", "paper"): torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]),
        ("author", "writes", "paper"): writes,
        ("paper", "rev_writes", "author"): writes.flip(0),
    }
    return x, ei


def _close(out, ours):
    assert sorted(out) == sorted(ours)
    for k, v in out.items():
        np.testing.assert_allclose(np.asarray(ours[k]), v.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_to_hetero_of_pyg_basic_gnn_converts():
    # to_hetero(torch_geometric.nn.GraphSAGE(...)) (PyG's hetero tutorials) traces the
    # BasicGNN's TrimToLayer module: without per-hop counts it hands its inputs back
    torch.manual_seed(0)
    x, ei = _inputs()
    model = pyg_nn.to_hetero(pyg_nn.GraphSAGE((-1, -1), 8, num_layers=2, out_channels=3), META)
    model.eval()
    with torch.no_grad():
        out = model(x, ei)
    ours = from_pyg(model)
    _close(out, ours({k: v.numpy() for k, v in x.items()}, {k: v.numpy() for k, v in ei.items()}))


def test_trim_to_layer_module_as_pyg():
    # PyG's TrimToLayer: inputs back unless both per-hop counts are lists, then
    # trim_to_layer; one list without the other is a ValueError
    from torch_geometric.nn.models.basic_gnn import TrimToLayer

    trim = from_pyg(TrimToLayer())
    x = np.arange(8.0).reshape(4, 2)
    ei = np.array([[1, 2, 3], [0, 0, 1]])
    got = trim(1, None, None, x, ei)
    assert got[0] is x and got[1] is ei and got[2] is None
    got = trim(1, [1, 1, 2], [1, 2], x, ei, np.ones((3, 1)))
    want = TrimToLayer()(
        1, [1, 1, 2], [1, 2], torch.from_numpy(x), torch.from_numpy(ei), torch.ones(3, 1)
    )
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b.numpy())
    with pytest.raises(ValueError, match="num_sampled_nodes_per_hop"):
        trim(1, None, [1, 2], x, ei)
    with pytest.raises(ValueError, match="num_sampled_edges_per_hop"):
        trim(1, [1, 1, 2], None, x, ei)
    with pytest.raises(ValueError, match="num_sampled_nodes_per_hop"):  # to_hetero's pairs
        trim(1, ([1, 1], [2]), [1, 2], (x, x), ei)
