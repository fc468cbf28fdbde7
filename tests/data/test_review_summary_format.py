"""Review: ``Summary.format('psql')`` aligns numbers as ``tabulate`` (PyG's table) also when
a column mixes exponent forms (``1e+06``) and plain numbers."""

from __future__ import annotations

import pytest

from arraygnn.datasets.summary import Stats, Summary


def test_psql_table_with_an_exponent_cell_matches_pyg():
    pytest.importorskip("tabulate")
    pyg = pytest.importorskip("torch_geometric.data.summary")
    nodes, edges = [1_000_000, 3], [12, 5]
    ours = Summary("X", 2, Stats.from_data(nodes), Stats.from_data(edges))
    ref = pyg.Summary("X", 2, pyg.Stats.from_data(nodes), pyg.Stats.from_data(edges))
    assert ours.format() == ref.format()
