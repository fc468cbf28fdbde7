"""A PyG user's molecule graph-classification data pipeline (session 10, molecule journey):
a local ``InMemoryDataset`` of tiny molecules (one a single atom without bonds), its
statistics, and the transforms molecules get, each against PyG 2.8.1 where installed.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.datasets import InMemoryDataset

_SIZES = ((5, 4), (1, 0), (4, 3), (6, 6), (3, 2), (2, 1))  # (atoms, bonds)


def _raw() -> list[dict]:
    rng = np.random.default_rng(0)
    out = []
    for n, m in _SIZES:
        src = rng.integers(0, n, m)
        dst = (src + 1 + rng.integers(0, max(n - 1, 1), m)) % n
        ei = np.stack([src, dst]).astype(np.int64)
        out.append(
            dict(
                x=rng.integers(0, 5, (n, 3)).astype(np.float32),
                edge_index=ei,
                edge_attr=rng.integers(0, 3, (m, 2)).astype(np.float32),
                y=np.array([[float(n % 2)]], np.float32),
            )
        )
    return out


class _Molecules(InMemoryDataset):
    def __init__(self, root, transform=None):
        super().__init__(root, transform)
        self.load(self.processed_paths[0])

    @property
    def processed_file_names(self):
        return ["molecules.agnn"]

    def process(self):
        self.save([Data(**d) for d in _raw()], self.processed_paths[0])


def test_dataset_summary_matches_pyg(tmp_path, capsys):
    ds = _Molecules(str(tmp_path))
    s = ds.get_summary()
    assert s.name == "_Molecules" and s.num_graphs == 6
    nodes = np.array([n for n, _ in _SIZES], np.float64)
    assert s.num_nodes.mean == pytest.approx(nodes.mean())
    assert s.num_nodes.std == pytest.approx(nodes.std(ddof=1), rel=1e-6)  # torch.std: unbiased
    assert s.num_nodes.median == 3.0  # torch.median: the lower middle value
    assert (s.num_edges.min, s.num_edges.max) == (0.0, 6.0)
    assert s.num_nodes_per_type is None and s.num_edges_per_type is None
    ds[1:].print_summary()
    printed = capsys.readouterr().out
    assert printed.startswith("_Molecules (#graphs=5):\n+") and "| median     |" in printed

    torch = pytest.importorskip("torch")
    pytest.importorskip("tabulate")
    pyg_data = pytest.importorskip("torch_geometric.data")

    class PygMolecules(pyg_data.InMemoryDataset):
        def __init__(self, root):
            super().__init__(root)
            self.load(self.processed_paths[0])

        @property
        def processed_file_names(self):
            return ["molecules.pt"]

        def process(self):
            graphs = [
                pyg_data.Data(**{k: torch.from_numpy(v) for k, v in d.items()}) for d in _raw()
            ]
            self.save(graphs, self.processed_paths[0])

    ref = PygMolecules(str(tmp_path / "pyg"))
    body = lambda text: text.split(":", 1)[1]  # noqa: E731 - the class names differ
    assert body(repr(s)) == body(repr(ref.get_summary()))
    assert body(s.format("github")) == body(ref.get_summary().format("github"))


def test_dataset_summary_errors(tmp_path):
    ds = _Molecules(str(tmp_path))
    with pytest.raises(ValueError, match="no graphs"):
        ds[:0].get_summary()
    with pytest.raises(TypeError, match="fmt"):
        ds.get_summary().format(3)


def test_packed_dataset_and_hetero_summaries():
    from arraygnn import HeteroData
    from arraygnn.dataset import PackedDataset
    from arraygnn.datasets.summary import Summary

    packed = PackedDataset.from_data_list([Data(**d) for d in _raw()])
    s = packed.get_summary()
    assert (s.name, s.num_graphs, s.num_nodes.max) == ("PackedDataset", 6, 6.0)
    assert s.num_edges.mean == pytest.approx(16 / 6)
    graphs = []
    for n in (2, 3):
        h = HeteroData()
        h["atom"].x = np.ones((n, 2), np.float32)
        h["ring"].num_nodes = 1
        h["atom", "bond", "atom"].edge_index = np.zeros((2, n - 1), np.int64)
        graphs.append(h)
    s = Summary.from_dataset(graphs)
    assert list(s.num_nodes_per_type) == ["atom", "ring"]
    assert s.num_nodes_per_type["atom"].mean == 2.5 and s.num_nodes.max == 4.0
    assert s.num_edges_per_type[("atom", "bond", "atom")].min == 1.0
    text = s.format()
    assert "Number of nodes per node type:" in text and "(atom, bond, atom)" in text
    assert Summary.from_dataset(graphs, per_type=False).num_edges_per_type is None


def test_single_atom_molecule_keeps_its_graph_label_through_transforms():
    """The graph label ``y`` [1, 1] of a one-atom molecule is said to be per graph
    (``graph_attrs``); PyG guesses it is per node (one row, one node) and drops or pads it.
    Everything else matches PyG."""
    torch = pytest.importorskip("torch")
    pyg_data = pytest.importorskip("torch_geometric.data")
    pyg_t = pytest.importorskip("torch_geometric.transforms")
    import arraygnn.transforms as T

    atom = _raw()[1]
    pairs = [
        (T.RemoveIsolatedNodes(graph_attrs=["y"]), pyg_t.RemoveIsolatedNodes()),
        (T.VirtualNode(graph_attrs=["y"]), pyg_t.VirtualNode()),
        (
            T.AddSelfLoops(attr="edge_attr", fill_value="mean", graph_attrs=["y"]),
            pyg_t.AddSelfLoops(attr="edge_attr", fill_value="mean"),
        ),
    ]
    for ours, theirs in pairs:
        a = ours(Data(**atom))
        p = theirs(pyg_data.Data(**{k: torch.from_numpy(v) for k, v in atom.items()}))
        np.testing.assert_array_equal(a.y, atom["y"])
        for key in ("x", "edge_index", "edge_attr"):
            np.testing.assert_allclose(a[key], p[key].numpy())
        assert a.num_nodes == p.num_nodes
