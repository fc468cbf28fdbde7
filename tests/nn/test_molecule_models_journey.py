"""A PyG user's molecule graph-classification models, converted and run on a batch of tiny
molecules that includes a single atom without bonds (session 10, molecule journey).

Each test runs PyG 2.8.1's own model (eval mode) on the same batch where PyG is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.nn import PNAConv


def _molecules() -> list[Data]:
    """Four small molecules (5, 1, 4 and 6 atoms; the second has no bonds) with integer atom /
    bond codes, float features and a [1, 1] graph label."""
    rng = np.random.default_rng(0)
    out = []
    for n, m in ((5, 4), (1, 0), (4, 3), (6, 6)):
        if m:
            src = rng.integers(0, n, m)
            dst = (src + 1 + rng.integers(0, n - 1, m)) % n
            ei = np.concatenate([np.stack([src, dst]), np.stack([dst, src])], 1)
        else:
            ei = np.zeros((2, 0), np.int64)
        e = ei.shape[1]
        out.append(
            Data(
                x=rng.random((n, 6)).astype(np.float32),
                z=rng.integers(0, 5, (n, 2)),
                edge_index=ei.astype(np.int64),
                edge_attr=rng.random((e, 4)).astype(np.float32),
                bond=rng.integers(0, 3, (e, 1)),
                y=np.array([[float(n % 2)]], np.float32),
            )
        )
    return out


def _pyg_batch(graphs, torch, pyg_data):
    return pyg_data.Batch.from_data_list(
        [pyg_data.Data(**{k: torch.from_numpy(np.array(g[k])) for k in g.keys()}) for g in graphs]
    )


# ---------------------------------------------------------------- PNA degree histogram


def test_pna_degree_histogram_of_a_loader_matches_pyg_and_builds_the_conv():
    torch = pytest.importorskip("torch")
    pyg_data = pytest.importorskip("torch_geometric.data")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from torch_geometric.loader import DataLoader as PygLoader

    from arraygnn.loader import DataLoader

    graphs = _molecules()
    pyg_graphs = _pyg_batch(graphs, torch, pyg_data).to_data_list()
    want = pyg_nn.PNAConv.get_degree_histogram(PygLoader(pyg_graphs, batch_size=3)).numpy()
    got = PNAConv.get_degree_histogram(DataLoader(graphs, batch_size=3))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(PNAConv.get_degree_histogram(graphs), want)  # a plain list

    torch.manual_seed(0)
    agg, sca = ["mean", "min", "max", "std"], ["identity", "amplification", "attenuation"]
    ref = pyg_nn.PNAConv(6, 8, agg, sca, torch.from_numpy(want), edge_dim=4, towers=2).eval()
    conv = PNAConv(6, 8, agg, sca, got, edge_dim=4, towers=2)
    conv.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    b, pb = Batch.from_data_list(graphs), _pyg_batch(graphs, torch, pyg_data)
    with torch.no_grad():
        expect = ref(pb.x, pb.edge_index, pb.edge_attr).numpy()
    np.testing.assert_allclose(conv(b.x, b.edge_index, b.edge_attr), expect, rtol=1e-4, atol=1e-5)


def test_pna_degree_histogram_edge_cases():
    # no graphs: PyG's [0]; no edges at all: every node has in-degree 0
    assert PNAConv.get_degree_histogram([]).tolist() == [0]
    lone = Data(x=np.ones((2, 1), np.float32), edge_index=np.zeros((2, 0), np.int64))
    assert PNAConv.get_degree_histogram([lone]).tolist() == [2]
    # the longer histogram of a later batch extends the earlier one
    star = Data(x=np.ones((4, 1), np.float32), edge_index=np.array([[1, 2, 3], [0, 0, 0]]))
    assert PNAConv.get_degree_histogram([lone, star]).tolist() == [5, 0, 0, 1]
    with pytest.raises(ValueError, match="num_nodes"):  # never edge_index.max() + 1
        PNAConv.get_degree_histogram([Data(edge_index=np.array([[0], [1]]))])
    with pytest.raises(ValueError, match="edge_index"):
        PNAConv.get_degree_histogram([Data(x=np.ones((2, 1), np.float32))])
