"""The shipped NCI molecules: counts, a hand-checked molecule, symmetry, target range."""

import numpy as np
import pytest

from arraygnn.datasets import ATOM_FEATURES, BOND_FEATURES, load_molecule_arrays

NUM_GRAPHS = 4991  # 4,999 NCI entries minus 8 that RDKit cannot parse
COL = {name: i for i, name in enumerate(ATOM_FEATURES)}
BCOL = {name: i for i, name in enumerate(BOND_FEATURES)}


@pytest.fixture(scope="module")
def mol():
    return load_molecule_arrays()


def graph(m, g):
    n0 = int(m["num_nodes"][:g].sum())
    e0 = int(m["num_edges"][:g].sum())
    n, e = int(m["num_nodes"][g]), int(m["num_edges"][g])
    return m["x"][n0 : n0 + n], m["edge_index"][:, e0 : e0 + e], m["edge_attr"][e0 : e0 + e]


def test_counts_and_dtypes(mol):
    assert mol["num_nodes"].shape == (NUM_GRAPHS,)
    assert mol["num_edges"].shape == (NUM_GRAPHS,)
    for key in ("y", "nci_id", "smiles"):
        assert mol[key].shape == (NUM_GRAPHS,), key
    assert mol["x"].shape == (int(mol["num_nodes"].sum()), len(ATOM_FEATURES))
    assert mol["edge_index"].shape == (2, int(mol["num_edges"].sum()))
    assert mol["edge_attr"].shape == (int(mol["num_edges"].sum()), len(BOND_FEATURES))
    assert mol["edge_index"].dtype == np.int64
    assert mol["x"].dtype == np.int8 and mol["edge_attr"].dtype == np.int8
    assert mol["y"].dtype == np.float32
    assert (mol["num_nodes"] >= 1).all()
    assert (mol["num_edges"] % 2 == 0).all()
    # NCI ids keep the order of first_5K.smi: increasing, starting at 1
    assert mol["nci_id"][0] == 1 and (np.diff(mol["nci_id"]) > 0).all()


def test_index_dtype_option():
    m32 = load_molecule_arrays(index_dtype=np.int32)
    assert m32["edge_index"].dtype == np.int32
    with pytest.raises(TypeError, match="index_dtype"):
        load_molecule_arrays(index_dtype=np.float32)


def test_fresh_arrays_every_call(mol):
    other = load_molecule_arrays()
    other["x"][0, 0] = 99
    assert mol["x"][0, 0] == 6


def test_first_molecule_methyl_benzoquinone(mol):
    # CC1=CC(=O)C=CC1=O, 2-methyl-1,4-benzoquinone: atoms in SMILES order
    # 0 CH3, 1 C(ring), 2 CH, 3 C(=O), 4 O, 5 CH, 6 CH, 7 C(=O), 8 O
    assert mol["smiles"][0] == b"CC1=CC(=O)C=CC1=O"
    x, ei, ea = graph(mol, 0)
    assert x[:, COL["atomic_num"]].tolist() == [6, 6, 6, 6, 8, 6, 6, 6, 8]
    assert x[:, COL["degree"]].tolist() == [1, 3, 2, 3, 1, 2, 2, 3, 1]
    assert x[:, COL["num_hs"]].tolist() == [3, 0, 1, 0, 0, 1, 1, 0, 0]
    assert x[:, COL["in_ring"]].tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 0]
    assert x[:, COL["aromatic"]].tolist() == [0] * 9  # a quinone is not aromatic
    assert x[:, COL["hybridization"]].tolist() == [4, 3, 3, 3, 3, 3, 3, 3, 3]  # sp3, then sp2
    assert (x[:, COL["formal_charge"]] == 0).all()
    bonds = {  # (u, v): (bond type, in ring)
        (0, 1): (1, 0),
        (1, 2): (2, 1),
        (2, 3): (1, 1),
        (3, 4): (2, 0),
        (3, 5): (1, 1),
        (5, 6): (2, 1),
        (6, 7): (1, 1),
        (7, 8): (2, 0),
        (1, 7): (1, 1),
    }
    assert ei.shape == (2, 18)
    got = {}
    for k in range(ei.shape[1]):
        u, v = sorted((int(ei[0, k]), int(ei[1, k])))
        got.setdefault((u, v), set()).add((int(ea[k, BCOL["bond_type"]]), int(ea[k, 2])))
    assert got == {k: {v} for k, v in bonds.items()}
    assert mol["y"][0] == pytest.approx(34.14)  # two carbonyl oxygens, 17.07 each


def test_dimethyl_sulfoxide(mol):
    (idx,) = np.flatnonzero(mol["smiles"] == b"CS(C)=O")
    x, ei, ea = graph(mol, int(idx))
    assert x[:, COL["atomic_num"]].tolist() == [6, 16, 6, 8]
    assert x[:, COL["degree"]].tolist() == [1, 3, 1, 1]
    assert sorted(ea[:, 0].tolist()) == [1, 1, 1, 1, 2, 2]
    assert mol["y"][idx] == pytest.approx(17.07)


def test_edges_come_in_reverse_pairs(mol):
    ei, ea = mol["edge_index"], mol["edge_attr"]
    np.testing.assert_array_equal(ei[0, 0::2], ei[1, 1::2])
    np.testing.assert_array_equal(ei[1, 0::2], ei[0, 1::2])
    np.testing.assert_array_equal(ea[0::2], ea[1::2])
    assert (ei[0] != ei[1]).all()  # no self-loops in molecules


def test_local_ids_in_range_and_degree_matches_edges(mol):
    num_nodes, num_edges = mol["num_nodes"], mol["num_edges"]
    ei = mol["edge_index"]
    n_per_edge = np.repeat(num_nodes, num_edges)
    assert (ei >= 0).all() and (ei < n_per_edge).all()
    # atom feature "degree" equals the number of outgoing edges, computed from the edges
    node_offset = np.repeat(np.cumsum(num_nodes) - num_nodes, num_edges)
    out_degree = np.bincount(ei[0] + node_offset, minlength=int(num_nodes.sum()))
    np.testing.assert_array_equal(out_degree, mol["x"][:, COL["degree"]])


def test_aromatic_atoms_touch_aromatic_bonds(mol):
    ei, ea = mol["edge_index"], mol["edge_attr"]
    offset = np.repeat(np.cumsum(mol["num_nodes"]) - mol["num_nodes"], mol["num_edges"])
    arom_bond = ea[:, BCOL["bond_type"]] == 4
    touched = np.zeros(mol["x"].shape[0], bool)
    touched[(ei[0] + offset)[arom_bond]] = True
    np.testing.assert_array_equal(touched, mol["x"][:, COL["aromatic"]] == 1)


def test_feature_ranges(mol):
    x = mol["x"]
    assert x[:, COL["atomic_num"]].min() >= 1 and x[:, COL["atomic_num"]].max() <= 118
    assert set(np.unique(x[:, COL["aromatic"]])) <= {0, 1}
    assert set(np.unique(x[:, COL["in_ring"]])) <= {0, 1}
    assert set(np.unique(mol["edge_attr"][:, 0])) <= {0, 1, 2, 3, 4}
    # mostly carbon, as organic molecules are
    assert (x[:, COL["atomic_num"]] == 6).mean() > 0.6


def test_target_range_and_duplicates(mol):
    y = mol["y"]
    assert np.isfinite(y).all()
    assert y.min() >= 0.0 and y.max() < 1000.0
    assert 30.0 < float(y.mean()) < 120.0
    # the same SMILES always carries the same TPSA
    _, first, inverse = np.unique(mol["smiles"], return_index=True, return_inverse=True)
    np.testing.assert_array_equal(y, y[first][inverse])


def test_load_molecules_packed_dataset():
    pytest.importorskip("arraygnn.dataset")
    from arraygnn.datasets import load_molecules

    ds = load_molecules()
    assert len(ds) == NUM_GRAPHS
    g0 = ds[0]
    assert g0.num_nodes == 9 and g0.num_edges == 18
    np.testing.assert_array_equal(g0.x[:, 0], [6, 6, 6, 6, 8, 6, 6, 6, 8])
    m = load_molecule_arrays()
    x, ei, ea = graph(m, 17)
    g = ds[17]
    np.testing.assert_array_equal(g.x, x)
    np.testing.assert_array_equal(g.edge_index, ei)
    np.testing.assert_array_equal(g.edge_attr, ea)
    assert float(np.asarray(g.y).reshape(-1)[0]) == pytest.approx(float(m["y"][17]))
    batch = ds.collate(np.array([0, 17, 4990]))
    assert batch.num_graphs == 3
    assert batch.x.shape[0] == int(m["num_nodes"][[0, 17, 4990]].sum())


def test_load_molecules_options():
    pytest.importorskip("arraygnn.dataset")
    from arraygnn.datasets import load_molecules

    ds = load_molecules(index_dtype=np.int32, include_smiles=True)
    assert ds[0].edge_index.dtype == np.int32
    batch = ds.collate(np.array([755, 0]))
    assert batch.smiles.tolist() == [b"CS(C)=O", b"CC1=CC(=O)C=CC1=O"]
    np.testing.assert_allclose(batch.y, [17.07, 34.14], rtol=1e-6)
