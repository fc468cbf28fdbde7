"""The demo's TPSA regression on the shipped molecules and on a synthetic stand-in."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn._demo_regression import packed_molecule_arrays, report_lines, run_molecule_regression


def _synthetic_molecules(num_graphs=300, seed=0):
    """Chains of 3..12 atoms, integer atom columns, target = sum of per-atom contributions
    that depend on the atom and on its neighbours (so propagation matters)."""
    rng = np.random.default_rng(seed)
    num_nodes = rng.integers(3, 13, num_graphs)
    x = np.stack(
        [rng.integers(0, 4, num_nodes.sum()), rng.integers(0, 3, num_nodes.sum())], axis=1
    ).astype(np.int8)
    edges, num_edges = [], []
    for n in num_nodes:
        u = np.arange(n - 1)
        e = np.stack([np.concatenate([u, u + 1]), np.concatenate([u + 1, u])])
        edges.append(e)
        num_edges.append(e.shape[1])
    edge_index = np.concatenate(edges, axis=1)
    atom_value = np.array([0.0, 3.0, 7.5, 12.0])[x[:, 0]] + 2.0 * x[:, 1]
    ptr = np.concatenate([[0], np.cumsum(num_nodes)])
    y = np.add.reduceat(atom_value, ptr[:-1]).astype(np.float32)
    return {
        "num_nodes": num_nodes,
        "num_edges": np.array(num_edges),
        "x": x,
        "edge_index": edge_index,
        "y": y,
    }


def test_synthetic_stand_in_reaches_high_r2():
    res = run_molecule_regression(_synthetic_molecules(), hops=2)
    print("synthetic R^2", res["r2_test"], res["timings"])
    assert res["r2_test"] > 0.99
    assert set(res["timings"]) == {
        "featurize",
        "jit_warmup",
        "propagate",
        "pool",
        "fit",
        "evaluate",
    }
    assert res["num_graphs"] == 300 and res["hops"] == 2
    lines = report_lines(res)
    assert len(lines) == 3 and "R^2" in lines[1] and "propagate" in lines[2]


def test_shipped_molecules_tpsa_r2_above_0_9():
    datasets = pytest.importorskip("arraygnn.datasets")
    arrays = datasets.load_molecule_arrays()
    res = run_molecule_regression(arrays, hops=2, atom_types=False)
    print("TPSA R^2 (column one-hots, 2 hops):", res["r2_test"], res["timings"])
    assert res["r2_test"] > 0.9
    assert res["num_graphs"] == 4991
    assert res["test_size"] + res["train_size"] == 4991


def test_packed_dataset_form_equals_arrays_form():
    datasets = pytest.importorskip("arraygnn.datasets")
    try:
        ds = datasets.load_molecules()
    except ImportError:
        pytest.skip("arraygnn.dataset.PackedDataset not available yet")
    arrays = datasets.load_molecule_arrays()
    a = packed_molecule_arrays(arrays)
    b = packed_molecule_arrays(ds)
    for key in ("x", "edge_index", "ptr", "y"):
        np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]), err_msg=key)


def test_bad_arguments():
    arrays = _synthetic_molecules(20)
    with pytest.raises(ValueError, match="hops"):
        run_molecule_regression(arrays, hops=-1)
    with pytest.raises(ValueError, match="train_fraction"):
        run_molecule_regression(arrays, train_fraction=1.5)
    with pytest.raises(KeyError, match="tpsa"):
        run_molecule_regression(arrays, target="tpsa")
    with pytest.raises(TypeError, match="PackedDataset"):
        run_molecule_regression([1, 2, 3])
