"""PyG's readouts / scatter / softmax in a traced model (wrapped with ``torch.fx.wrap``)
run as arraygnn's, equal to PyG."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
pyg_utils = pytest.importorskip("torch_geometric.utils")

from torch_geometric.nn import global_max_pool, global_mean_pool  # noqa: E402
from torch_geometric.utils import scatter, softmax  # noqa: E402

import arraygnn.nn as agnn  # noqa: E402

torch.fx.wrap("global_mean_pool")
torch.fx.wrap("global_max_pool")
torch.fx.wrap("scatter")
torch.fx.wrap("softmax")


class Readouts(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, batch):
        h = self.lin(x)
        att = softmax(h[:, 0], batch)
        pooled = scatter(h * att.unsqueeze(-1), batch, dim=0, dim_size=4, reduce="sum")
        return torch.cat([global_mean_pool(h, batch), global_max_pool(h, batch, 4), pooled], 1)


def test_traced_pyg_functions_match_pyg():
    torch.manual_seed(0)
    model = Readouts().eval()
    x = np.random.default_rng(1).standard_normal((9, 4)).astype(np.float32)
    batch = np.array([0, 0, 1, 1, 1, 3, 3, 3, 3])  # graph 2 empty
    program = agnn.from_pyg(pyg_nn.fx.symbolic_trace(model))
    got = program(x, batch)
    with torch.no_grad():
        want = model(torch.from_numpy(x), torch.from_numpy(batch)).numpy()
    assert got.shape == want.shape == (4, 12)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
