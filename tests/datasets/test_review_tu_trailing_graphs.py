"""Review (session 10): TU graphs without edges at the end of the files are kept (PyG 2.8.1
drops them: its edge slices end at the last graph holding an edge; documented)."""

from __future__ import annotations

from arraygnn.datasets import TUDataset


def test_trailing_graphs_without_edges_are_kept(tmp_path):
    raw = tmp_path / "E" / "raw"
    raw.mkdir(parents=True)
    files = {
        "A": "1, 2\n2, 1\n",
        "graph_indicator": "1\n1\n2\n3\n3\n",
        "graph_labels": "3\n7\n3\n",
        "node_labels": "0\n1\n1\n0\n2\n",
    }
    for key, text in files.items():
        (raw / f"E_{key}.txt").write_text(text)
    ds = TUDataset(tmp_path, "E")
    assert len(ds) == 3
    assert [g.num_nodes for g in ds] == [2, 1, 2]
    assert [g.num_edges for g in ds] == [2, 0, 0]
    assert ds[2].y.tolist() == [0] and ds[2].x.tolist() == [[1, 0, 0], [0, 0, 1]]
