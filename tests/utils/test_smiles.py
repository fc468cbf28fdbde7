"""``from_smiles`` / ``from_rdmol`` / ``to_rdmol`` / ``to_smiles`` and ``tree_decomposition``
against ``torch_geometric.utils`` on varied molecules, plus hand-computed cases and errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

Chem = pytest.importorskip("rdkit.Chem")

import arraygnn.utils as U  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.utils.smiles import e_map, x_map  # noqa: E402

SMILES = [
    "",  # no atoms
    "C",  # a single atom
    "[Cu]",  # a lone metal (UNSPECIFIED hybridization)
    "[H][H]",  # explicit hydrogens
    "CCO",
    "C#N",
    "C=C=C",  # cumulene
    "O=S(=O)(O)O",  # hypervalent
    "S(F)(F)(F)(F)(F)F",  # degree 6, SP3D2
    "c1ccccc1",  # aromatic
    "C1=CC=CC=C1",  # Kekulé input of the same ring
    "c1ccncc1",
    "c1cc[nH]c1",
    "c1ccc2ccccc2c1",  # fused
    "c1ccc2c(c1)[nH]c1ccccc12",  # fused, three rings
    "c1cc2ccc3cccc4ccc(c1)c2c34",  # pyrene: atoms in three rings
    "c1cc2ccc3ccc4ccc5ccc6ccc1c7c2c3c4c5c67",  # coronene
    "c1ccc(-c2ccccc2)cc1",  # biaryl
    "C1CC1C1CC1",
    "C1CCC2(CC1)CCCC2",  # spiro
    "C1CCC2(CC1)CCC1(CC2)CCCCC1",  # two spiro centres
    "C1CC2CCC1C2",  # bridged (norbornane)
    "C12CC3CC(C1)CC(C3)C2",  # adamantane
    "C12C3C4C1C5C2C3C45",  # cubane
    "C1CC2CC1C1CCCC21",
    "C1CCCCCCCCCCC1",  # macrocycle
    "C1=CC2=NC1=CC3=CC=C(N3)C=C4C=CC(=N4)C=C5C=CC(=C2)N5",  # porphine
    "CC(C)CCCC(C)C1CCC2C1(CCC3C2CC=C4C3(CCC(C4)O)C)C",  # cholesterol skeleton
    "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",  # caffeine
    "OCC1OC(OC2C(CO)OC(O)C(O)C2O)C(O)C(O)C1O",  # a disaccharide
    "C[C@H](N)C(=O)O",  # R/S
    "C[C@@H](N)C(=O)O",
    "N[C@@H](Cc1ccccc1)C(=O)O",
    "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O",
    "F/C=C/F",  # E
    "F/C=C\\F",  # Z
    "C/C=C/C(=O)O",
    "[NH4+].[Cl-]",  # salt, charges, fragments
    "[Na+].[O-]C(=O)C",
    "[Fe+2]",
    "CC.OO",  # disconnected
    "[CH3]",  # radicals
    "[CH2]C",
    "[O][O]",
    "[2H]C([2H])([2H])O",  # isotopes (not encoded, as PyG)
    "[13CH4]",
    "P(=O)(O)(O)O",
    "[Si](C)(C)(C)C",
    "B(O)(O)O",
    "FC(F)(F)C(F)(F)F",
    "CC(C)(C)c1ccc(O)cc1",
]
FLAGS = [(False, False), (True, False), (False, True), (True, True)]
KEYS = ("x", "edge_index", "edge_attr")


def _pyg():
    pytest.importorskip("torch_geometric")
    from torch_geometric.utils import smiles as P

    return P


def _pyg_data(P, data):
    """Our ``Data`` as PyG's (same arrays, as torch tensors)."""
    import torch
    from torch_geometric.data import Data as PygData

    return PygData(**{k: torch.from_numpy(np.asarray(data[k])) for k in KEYS})


def _equal_data(ours, theirs):
    for key in KEYS:
        got = ours[key]
        assert isinstance(got, np.ndarray) and got.dtype == np.int64, key
        np.testing.assert_array_equal(got, getattr(theirs, key).numpy(), err_msg=key)


def _outcome(fn, *args, **kwargs):
    """``fn``'s result, or the type of the error it raised."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared by type
        return type(exc)


# ================================================================ against PyG
def test_vocabularies_are_pygs():
    P = _pyg()
    assert x_map == P.x_map
    assert e_map == P.e_map


@pytest.mark.parametrize("with_hydrogen,kekulize", FLAGS)
@pytest.mark.parametrize("smiles", SMILES)
def test_from_smiles_matches_pyg(smiles, with_hydrogen, kekulize):
    P = _pyg()
    ours = U.from_smiles(smiles, with_hydrogen=with_hydrogen, kekulize=kekulize)
    theirs = P.from_smiles(smiles, with_hydrogen=with_hydrogen, kekulize=kekulize)
    _equal_data(ours, theirs)
    assert ours.smiles == theirs.smiles == smiles
    assert sorted(ours.keys()) == ["edge_attr", "edge_index", "smiles", "x"]
    assert ours.num_nodes == theirs.num_nodes


@pytest.mark.parametrize("kekulize", [False, True])
@pytest.mark.parametrize("smiles", SMILES)
def test_round_trip_matches_pyg(smiles, kekulize):
    P = _pyg()
    ours = U.to_smiles(U.from_smiles(smiles), kekulize=kekulize)
    theirs = P.to_smiles(P.from_smiles(smiles), kekulize=kekulize)
    assert isinstance(ours, str)
    assert ours == theirs


@pytest.mark.parametrize("smiles", SMILES)
def test_to_rdmol_matches_pyg(smiles):
    P = _pyg()
    data = U.from_smiles(smiles, with_hydrogen=True)
    ours, theirs = U.to_rdmol(data), P.to_rdmol(_pyg_data(P, data))
    assert isinstance(ours, Chem.Mol)
    assert Chem.MolToSmiles(ours) == Chem.MolToSmiles(theirs)
    for a, b in zip(ours.GetAtoms(), theirs.GetAtoms(), strict=True):
        assert (a.GetAtomicNum(), a.GetFormalCharge(), a.GetTotalNumHs()) == (
            b.GetAtomicNum(),
            b.GetFormalCharge(),
            b.GetTotalNumHs(),
        )
        assert (a.GetChiralTag(), a.GetHybridization(), a.GetIsAromatic()) == (
            b.GetChiralTag(),
            b.GetHybridization(),
            b.GetIsAromatic(),
        )
    for a, b in zip(ours.GetBonds(), theirs.GetBonds(), strict=True):
        assert (a.GetBeginAtomIdx(), a.GetEndAtomIdx(), a.GetBondType()) == (
            b.GetBeginAtomIdx(),
            b.GetEndAtomIdx(),
            b.GetBondType(),
        )
        assert (a.GetStereo(), list(a.GetStereoAtoms()), a.GetIsConjugated()) == (
            b.GetStereo(),
            list(b.GetStereoAtoms()),
            b.GetIsConjugated(),
        )


@pytest.mark.parametrize("smiles", ["F/C=C/F", "C[C@H](N)C(=O)O", "c1ccc2ccccc2c1", "CC.OO"])
def test_to_smiles_reads_edges_in_their_order_as_pyg(smiles):
    """Each bond takes its features from its first direction in ``edge_index``."""
    P = _pyg()
    data = U.from_smiles(smiles)
    rng = np.random.default_rng(0)
    for _ in range(3):
        perm = rng.permutation(data.num_edges)
        shuffled = Data(
            x=data.x, edge_index=data.edge_index[:, perm], edge_attr=data.edge_attr[perm]
        )
        assert U.to_smiles(shuffled) == P.to_smiles(_pyg_data(P, shuffled))


def test_index_dtypes_and_int32_features():
    data = U.from_smiles("N[C@@H](Cc1ccccc1)C(=O)O")
    expected = U.to_smiles(data)
    for dt in (np.int32, np.uint8, np.int16):
        narrow = Data(
            x=data.x.astype(dt), edge_index=data.edge_index.astype(dt), edge_attr=data.edge_attr
        )
        assert U.to_smiles(narrow) == expected


def _tree_equal(smiles):
    pytest.importorskip("torch_geometric")
    from torch_geometric.utils import tree_decomposition as pyg_tree

    mol = Chem.MolFromSmiles(smiles)
    for return_vocab in (False, True):
        ours = U.tree_decomposition(mol, return_vocab=return_vocab)
        theirs = pyg_tree(mol, return_vocab=return_vocab)
        assert len(ours) == len(theirs) == 3 + return_vocab
        for i in (0, 1, 3)[: 2 + return_vocab]:
            assert isinstance(ours[i], np.ndarray) and ours[i].dtype == np.int64
            assert ours[i].shape == tuple(theirs[i].shape)
            np.testing.assert_array_equal(ours[i], theirs[i].numpy())
        assert isinstance(ours[2], int) and ours[2] == theirs[2]


@pytest.mark.parametrize("smiles", SMILES)
def test_tree_decomposition_matches_pyg(smiles):
    _tree_equal(smiles)


@pytest.mark.parametrize("smiles", ["c1ccccc1O", "CC(C)(C)c1ccc(O)cc1", "C1CCC2(CC1)CCCC2"])
def test_tree_decomposition_with_hydrogens_matches_pyg(smiles):
    pytest.importorskip("torch_geometric")
    from torch_geometric.utils import tree_decomposition as pyg_tree

    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    ours, theirs = U.tree_decomposition(mol, True), pyg_tree(mol, True)
    for a, b in zip(ours[:2] + ours[3:], theirs[:2] + theirs[3:], strict=True):
        np.testing.assert_array_equal(a, b.numpy())
    assert ours[2] == theirs[2]


# ================================================================ hand-computed
def test_formic_acid_by_hand():
    d = U.from_smiles("C(=O)O")
    # C: 3 neighbours (2 heavy + 1 H), charge code 5 (= 0), 1 H, SP2 (3); O=: 1 nb, SP2; O-H: SP2
    assert d.x.tolist() == [
        [6, 0, 3, 5, 1, 0, 3, 0, 0],
        [8, 0, 1, 5, 0, 0, 3, 0, 0],
        [8, 0, 2, 5, 1, 0, 3, 0, 0],
    ]
    assert d.edge_index.tolist() == [[0, 0, 1, 2], [1, 2, 0, 0]]
    # double / single, no stereo, conjugated
    assert d.edge_attr.tolist() == [[2, 0, 1], [1, 0, 1], [2, 0, 1], [1, 0, 1]]
    assert U.to_smiles(d) == "O=CO"


def test_codes_follow_the_vocabularies():
    d = U.from_smiles("[NH4+].[Cl-].F/C=C/F.[CH3]")
    fc = [x_map["formal_charge"][c] for c in d.x[:, 3]]
    assert fc[:2] == [1, -1] and set(fc[2:]) == {0}
    assert x_map["num_hs"][d.x[0, 4]] == 4
    assert x_map["num_radical_electrons"][d.x[-1, 5]] == 1
    double = d.edge_attr[:, 0] == e_map["bond_type"].index("DOUBLE")
    assert {e_map["stereo"][c] for c in d.edge_attr[double, 1]} == {"STEREOE"}


def test_edges_are_sorted_and_paired():
    d = U.from_smiles("CN1C=NC2=C1C(=O)N(C(=O)N2C)C")
    ei, n = d.edge_index, d.num_nodes
    key = ei[0] * n + ei[1]
    assert (np.diff(key) > 0).all()
    # every bond in both directions with equal features
    rev = {(int(a), int(b)): tuple(f) for a, b, f in zip(ei[0], ei[1], d.edge_attr.tolist())}
    assert all(rev[(b, a)] == f for (a, b), f in rev.items())


def test_empty_and_single_atom():
    d = U.from_smiles("")
    assert d.x.shape == (0, 9) and d.edge_index.shape == (2, 0) and d.edge_attr.shape == (0, 3)
    assert U.to_smiles(d) == ""
    ei, a2c, n = U.tree_decomposition(Chem.MolFromSmiles(""))
    assert ei.shape == (2, 0) and a2c.shape == (2, 0) and n == 0
    ei, a2c, n, vocab = U.tree_decomposition(Chem.MolFromSmiles("C"), return_vocab=True)
    assert ei.shape == (2, 0) and a2c.shape == (2, 0) and n == 0 and vocab.shape == (0,)


def test_tree_decomposition_by_hand():
    # phenol: ring (0), the C-O bond (1); one tree edge between them
    ei, a2c, n, vocab = U.tree_decomposition(Chem.MolFromSmiles("c1ccccc1O"), return_vocab=True)
    assert n == 2 and vocab.tolist() == [0, 1]
    assert ei.tolist() == [[0, 1], [1, 0]]
    assert a2c.tolist() == [[0, 1, 2, 3, 4, 5, 5, 6], [0, 0, 0, 0, 0, 0, 1, 1]]
    # adamantane: all four rings merge into one bridged clique
    _, a2c, n, vocab = U.tree_decomposition(
        Chem.MolFromSmiles("C12CC3CC(C1)CC(C3)C2"), return_vocab=True
    )
    assert n == 1 and vocab.tolist() == [2] and a2c[1].tolist() == [0] * 10


def test_from_rdmol_equals_from_smiles_without_smiles():
    mol = Chem.MolFromSmiles("c1ccccc1C(=O)[O-].[Na+]")
    d, e = U.from_rdmol(mol), U.from_smiles("c1ccccc1C(=O)[O-].[Na+]")
    assert "smiles" not in d
    for key in KEYS:
        np.testing.assert_array_equal(d[key], e[key])


def test_nothing_is_modified():
    mol = Chem.MolFromSmiles("F/C=C/F")
    block = Chem.MolToMolBlock(mol)
    U.from_rdmol(mol)
    U.tree_decomposition(mol, return_vocab=True)
    assert Chem.MolToMolBlock(mol) == block
    data = U.from_smiles("c1ccccc1")
    before = {k: data[k].copy() for k in KEYS}
    U.to_smiles(data, kekulize=True)
    U.to_rdmol(data)
    for key in KEYS:
        np.testing.assert_array_equal(data[key], before[key])
    assert sorted(data.keys()) == ["edge_attr", "edge_index", "smiles", "x"]


# ================================================================ errors
@pytest.mark.parametrize("smiles", ["invalid((", "C1CC", "[Xe](F)(F)(F)(F)(F)(F)(F)(F)(F)(F)(F)"])
def test_unparsable_smiles_is_a_value_error(smiles):
    with pytest.raises(ValueError, match="cannot parse the SMILES string") as info:
        U.from_smiles(smiles)
    assert repr(smiles) in str(info.value)


def test_unparsable_smiles_pyg_gives_an_empty_graph():
    """The documented difference: PyG silently returns a molecule with no atoms."""
    P = _pyg()
    assert P.from_smiles("invalid((").x.shape == (0, 9)


@pytest.mark.parametrize(
    "smiles,column",
    [
        ("[Fe+7]", "formal_charge"),
        ("[C-6]", "formal_charge"),
        ("[Pt@SP1](Cl)(Cl)(N)N", "hybridization"),
    ],
)
def test_out_of_vocabulary_molecule(smiles, column):
    with pytest.raises(ValueError, match=f"atom 0 .* has {column}"):
        U.from_smiles(smiles)
    P = _pyg()
    assert _outcome(P.from_smiles, smiles) is ValueError  # PyG: a bare list.index error


def test_to_smiles_needs_the_fields():
    d = U.from_smiles("CCO")
    for key in KEYS:
        parts = {k: d[k] for k in KEYS if k != key}
        with pytest.raises(ValueError, match=f"to_smiles: data has no '{key}'"):
            U.to_smiles(Data(**parts))
    with pytest.raises(TypeError, match="must be an arraygnn Data"):
        U.to_smiles({"x": d.x})
    with pytest.raises(TypeError, match="kekulize must be True or False"):
        U.to_smiles(d, kekulize="yes")


def test_to_smiles_checks_shapes_and_dtypes():
    d = U.from_smiles("CCO")
    x, ei, ea = d.x, d.edge_index, d.edge_attr
    bad = [
        (
            dict(x=x.astype(np.float32), edge_index=ei, edge_attr=ea),
            TypeError,
            "data.x must hold integers",
        ),
        (
            dict(x=x[:, :8], edge_index=ei, edge_attr=ea),
            ValueError,
            r"data.x must have shape \[N, 9\]",
        ),
        (dict(x=x[0], edge_index=ei, edge_attr=ea), ValueError, r"data.x must have shape \[N, 9\]"),
        (
            dict(x=x, edge_index=ei.T.copy(), edge_attr=ea),
            ValueError,
            r"edge_index must have shape \[2, E\]",
        ),
        (dict(x=x, edge_index=ei, edge_attr=ea[:-1]), ValueError, "one row per edge"),
        (
            dict(x=x, edge_index=ei, edge_attr=ea[:, :2]),
            ValueError,
            r"edge_attr must have shape \[E, 3\]",
        ),
        (dict(x=x, edge_index=ei + 1, edge_attr=ea), ValueError, r"atom ids outside \[0, 3\)"),
        (dict(x=x, edge_index=ei - 1, edge_attr=ea), ValueError, r"atom ids outside \[0, 3\)"),
        (dict(x=x, edge_index=np.zeros_like(ei), edge_attr=ea), ValueError, "self-loop"),
        (
            dict(x=x.tolist(), edge_index=ei, edge_attr=ea),
            TypeError,
            "data.x must be a NumPy or CuPy array",
        ),
    ]
    for fields, err, msg in bad:
        with pytest.raises(err, match=msg):
            U.to_smiles(Data(**fields))


def test_to_smiles_refuses_torch_tensors_with_a_hint():
    torch = pytest.importorskip("torch")
    d = U.from_smiles("CCO")
    with pytest.raises(TypeError, match="from_torch"):
        U.to_smiles(Data(x=torch.from_numpy(d.x), edge_index=d.edge_index, edge_attr=d.edge_attr))


@pytest.mark.parametrize(
    "where,col,code,name",
    [
        ("x", 0, 119, "atomic_num"),
        ("x", 1, 9, "chirality"),
        ("x", 3, 12, "formal_charge"),
        ("x", 3, -1, "formal_charge"),  # PyG would wrap around to charge +6
        ("x", 4, 9, "num_hs"),
        ("x", 5, 5, "num_radical_electrons"),
        ("x", 6, 8, "hybridization"),
        ("edge_attr", 0, 22, "bond_type"),
        ("edge_attr", 1, 6, "stereo"),
        ("edge_attr", 1, -2, "stereo"),
    ],
)
def test_to_smiles_out_of_vocabulary_codes(where, col, code, name):
    d = U.from_smiles("CCO")
    fields = {k: d[k].copy() for k in KEYS}
    fields[where][0, col] = code
    with pytest.raises(ValueError, match=rf"{where}\[:, {col}\] \({name}\) holds code {code}"):
        U.to_smiles(Data(**fields))


def test_argument_types():
    with pytest.raises(TypeError, match="smiles must be a str"):
        U.from_smiles(b"CCO")
    with pytest.raises(TypeError, match="with_hydrogen must be True or False"):
        U.from_smiles("CCO", with_hydrogen=1)
    with pytest.raises(TypeError, match="from_rdmol: mol must be an rdkit.Chem.Mol"):
        U.from_rdmol("CCO")
    with pytest.raises(TypeError, match="tree_decomposition: mol must be an rdkit.Chem.Mol"):
        U.tree_decomposition("CCO")
    with pytest.raises(TypeError, match="return_vocab must be True or False"):
        U.tree_decomposition(Chem.MolFromSmiles("CCO"), return_vocab="no")


def test_missing_rdkit_names_the_extra(monkeypatch):
    d = U.from_smiles("CCO")
    mol = Chem.MolFromSmiles("CCO")
    for name in ("rdkit", "rdkit.Chem"):
        monkeypatch.setitem(sys.modules, name, None)
    calls = [
        lambda: U.from_smiles("CCO"),
        lambda: U.from_rdmol(mol),
        lambda: U.to_smiles(d),
        lambda: U.to_rdmol(d),
        lambda: U.tree_decomposition(mol),
    ]
    for call in calls:
        with pytest.raises(ImportError, match=r"pip install arraygnn\[rdkit\]"):
            call()


def test_cupy_input_is_read_on_the_host():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - no usable GPU
        pytest.skip("CuPy is installed but no GPU is usable")
    d = U.from_smiles("N[C@@H](Cc1ccccc1)C(=O)O")
    on_gpu = Data(**{k: cp.asarray(d[k]) for k in KEYS})
    assert U.to_smiles(on_gpu) == U.to_smiles(d)
