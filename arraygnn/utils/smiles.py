"""PyG's molecule converters: SMILES strings and RDKit molecules to and from ``Data``.

:func:`from_smiles` / :func:`from_rdmol` give a ``Data`` with PyG's integer features, every
one an index into the vocabularies :data:`x_map` / :data:`e_map` (the same lists as PyG's):

- ``x`` [num_atoms, 9] int64, columns in :data:`x_map`'s order: atomic number, chirality,
  total degree, formal charge (index 5 is charge 0), total hydrogens, radical electrons,
  hybridization, aromatic, in ring;
- ``edge_index`` [2, 2 * num_bonds] int64, each bond in both directions, sorted by
  ``(source, target)`` (PyG's ``src * num_atoms + dst`` order);
- ``edge_attr`` [2 * num_bonds, 3] int64: bond type, stereo, conjugated;
- ``smiles`` (from :func:`from_smiles` only): the string given.

:func:`to_rdmol` / :func:`to_smiles` read such a ``Data`` back (NumPy arrays; CuPy arrays are
copied to the host first, the molecule is built there) and give what PyG gives.

RULE: RDKit (the optional ``rdkit`` package, ``pip install arraygnn[rdkit]``) is imported
only inside these functions; ``x_map`` / ``e_map`` need nothing.
RULE: where PyG's result and ours differ: an unparsable SMILES string is a ``ValueError``
naming it (PyG silently returns an empty molecule); an atom or bond property outside the
vocabularies, or a feature code outside them in :func:`to_rdmol`'s input, is a
``ValueError`` naming the atom / bond and the column (PyG: a bare ``list.index`` error, or
a Python index that wraps around); RDKit's log is silenced only during :func:`from_smiles`
(PyG switches it off for the whole process).

>>> from arraygnn.utils import from_smiles, to_smiles
>>> data = from_smiles("C(=O)O")
>>> data.x.tolist()[0], data.edge_index.tolist(), data.edge_attr.tolist()[:2]
([6, 0, 3, 5, 1, 0, 3, 0, 0], [[0, 0, 1, 2], [1, 2, 0, 0]], [[2, 0, 1], [1, 0, 1]])
>>> to_smiles(data)
'O=CO'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_numpy, torch_hint
from arraygnn.data import Data
from arraygnn.utils._checks import bool_arg

__all__ = ["e_map", "from_rdmol", "from_smiles", "to_rdmol", "to_smiles", "x_map"]

#: Atom feature vocabularies, PyG's ``torch_geometric.utils.smiles.x_map``: column ``j`` of
#: ``x`` holds the position of the atom's property in the ``j``-th list.
x_map: dict[str, list[Any]] = {
    "atomic_num": list(range(0, 119)),
    "chirality": [
        "CHI_UNSPECIFIED",
        "CHI_TETRAHEDRAL_CW",
        "CHI_TETRAHEDRAL_CCW",
        "CHI_OTHER",
        "CHI_TETRAHEDRAL",
        "CHI_ALLENE",
        "CHI_SQUAREPLANAR",
        "CHI_TRIGONALBIPYRAMIDAL",
        "CHI_OCTAHEDRAL",
    ],
    "degree": list(range(0, 11)),
    "formal_charge": list(range(-5, 7)),
    "num_hs": list(range(0, 9)),
    "num_radical_electrons": list(range(0, 5)),
    "hybridization": ["UNSPECIFIED", "S", "SP", "SP2", "SP3", "SP3D", "SP3D2", "OTHER"],
    "is_aromatic": [False, True],
    "is_in_ring": [False, True],
}

#: Bond feature vocabularies, PyG's ``torch_geometric.utils.smiles.e_map``.
e_map: dict[str, list[Any]] = {
    "bond_type": [
        "UNSPECIFIED",
        "SINGLE",
        "DOUBLE",
        "TRIPLE",
        "QUADRUPLE",
        "QUINTUPLE",
        "HEXTUPLE",
        "ONEANDAHALF",
        "TWOANDAHALF",
        "THREEANDAHALF",
        "FOURANDAHALF",
        "FIVEANDAHALF",
        "AROMATIC",
        "IONIC",
        "HYDROGEN",
        "THREECENTER",
        "DATIVEONE",
        "DATIVE",
        "DATIVEL",
        "DATIVER",
        "OTHER",
        "ZERO",
    ],
    "stereo": ["STEREONONE", "STEREOANY", "STEREOZ", "STEREOE", "STEREOCIS", "STEREOTRANS"],
    "is_conjugated": [False, True],
}

_X_COLUMNS = tuple(x_map)
_E_COLUMNS = tuple(e_map)
# position of each value in its vocabulary (what PyG's ``list.index`` computes)
_X_CODES = {k: {v: i for i, v in enumerate(vs)} for k, vs in x_map.items()}
_E_CODES = {k: {v: i for i, v in enumerate(vs)} for k, vs in e_map.items()}


def _rdkit(where: str) -> Any:
    """``rdkit.Chem``, or an ImportError naming the extra to install."""
    try:
        from rdkit import Chem
    except ImportError:
        raise ImportError(
            f"{where} needs the optional 'rdkit' package (pip install arraygnn[rdkit])"
        ) from None
    return Chem


def _code(codes: dict[Any, int], column: str, value: Any, what: str, where: str) -> int:
    try:
        return codes[value]
    except KeyError:
        vmap = x_map if column in x_map else e_map
        raise ValueError(
            f"{where}: {what} has {column} {value!r}, which is not in PyG's vocabulary "
            f"({vmap[column][0]!r} .. {vmap[column][-1]!r}); such a molecule has no encoding"
        ) from None


def from_rdmol(mol: Any) -> Data:
    """The ``Data`` of an ``rdkit.Chem.Mol`` (PyG's ``from_rdmol``): ``x`` [N, 9],
    ``edge_index`` [2, 2B] and ``edge_attr`` [2B, 3], all int64 (see the module docstring).

    One pass over RDKit's atoms and bonds in Python (RDKit's API is per atom), then one
    stable argsort of the ``src * N + dst`` keys, as PyG. A property outside :data:`x_map` /
    :data:`e_map` (a charge of +7, an atropisomer bond, ...) is a ``ValueError`` naming the
    atom or bond. The molecule is not modified.
    """
    where = "from_rdmol"
    Chem = _rdkit(where)
    if not isinstance(mol, Chem.Mol):
        raise TypeError(f"{where}: mol must be an rdkit.Chem.Mol, got {type(mol).__name__}")

    rows: list[list[int]] = []
    for atom in mol.GetAtoms():
        what = f"atom {atom.GetIdx()} ({atom.GetSymbol()})"
        props = (
            atom.GetAtomicNum(),
            str(atom.GetChiralTag()),
            atom.GetTotalDegree(),
            atom.GetFormalCharge(),
            atom.GetTotalNumHs(),
            atom.GetNumRadicalElectrons(),
            str(atom.GetHybridization()),
            atom.GetIsAromatic(),
            atom.IsInRing(),
        )
        rows.append([_code(_X_CODES[c], c, v, what, where) for c, v in zip(_X_COLUMNS, props)])
    x = np.array(rows, dtype=np.int64).reshape(-1, len(_X_COLUMNS))

    pairs: list[tuple[int, int]] = []
    feats: list[list[int]] = []
    for bond in mol.GetBonds():
        i, j = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        what = f"bond {bond.GetIdx()} ({i}-{j})"
        props = (str(bond.GetBondType()), str(bond.GetStereo()), bond.GetIsConjugated())
        e = [_code(_E_CODES[c], c, v, what, where) for c, v in zip(_E_COLUMNS, props)]
        pairs += [(i, j), (j, i)]
        feats += [e, e]
    edge_index = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
    edge_attr = np.array(feats, dtype=np.int64).reshape(-1, len(_E_COLUMNS))
    if edge_index.shape[1]:
        perm = np.argsort(edge_index[0] * x.shape[0] + edge_index[1], kind="stable")
        edge_index, edge_attr = edge_index[:, perm], edge_attr[perm]
    return Data(x=x, edge_index=np.ascontiguousarray(edge_index), edge_attr=edge_attr)


def from_smiles(smiles: str, with_hydrogen: bool = False, kekulize: bool = False) -> Data:
    """The ``Data`` of a SMILES string (PyG's ``from_smiles``), with ``smiles`` set to it.

    ``with_hydrogen=True`` makes the hydrogens atoms of the graph (``Chem.AddHs``);
    ``kekulize=True`` turns aromatic bonds into single / double ones (``Chem.Kekulize``).
    An unparsable string is a ``ValueError`` naming it (PyG returns an empty graph); the
    empty string is a valid molecule with no atoms, as in RDKit. RDKit's log messages are
    blocked while the string is parsed.

    >>> d = from_smiles("[NH4+].[Cl-]")
    >>> d.x[:, 3].tolist(), d.num_edges  # formal charge codes: index 5 is charge 0
    ([6, 4], 0)
    """
    where = "from_smiles"
    if not isinstance(smiles, str):
        raise TypeError(f"{where}: smiles must be a str, got {type(smiles).__name__}")
    with_hydrogen = bool_arg(where, "with_hydrogen", with_hydrogen)
    kekulize = bool_arg(where, "kekulize", kekulize)
    Chem = _rdkit(where)
    from rdkit import rdBase

    blocker = rdBase.BlockLogs()  # restores RDKit's logging when released
    try:
        mol = Chem.MolFromSmiles(smiles)
    finally:
        del blocker
    if mol is None:
        raise ValueError(f"{where}: RDKit cannot parse the SMILES string {smiles!r}")
    if with_hydrogen:
        mol = Chem.AddHs(mol)
    if kekulize:
        Chem.Kekulize(mol)
    data = from_rdmol(mol)
    data.smiles = smiles
    return data


def _host_int(where: str, data: Data, key: str, shape: str) -> np.ndarray:
    """``data[key]``, a 2-D integer NumPy or CuPy array, as a host int64 array."""
    if key not in data:
        raise ValueError(
            f"{where}: data has no {key!r}; a molecule needs x [N, 9], edge_index [2, E] and "
            "edge_attr [E, 3] (as from_smiles makes)"
        )
    value = data[key]
    if not is_array(value):
        raise TypeError(
            f"{where}: data.{key} must be a NumPy or CuPy array, got {type(value).__name__}"
            + torch_hint(value)
        )
    if value.dtype.kind not in "iu":
        raise TypeError(f"{where}: data.{key} must hold integers, got dtype {value.dtype}")
    if value.ndim != 2:
        raise ValueError(f"{where}: data.{key} must have shape {shape}, got {list(value.shape)}")
    return np.asarray(to_numpy(value), dtype=np.int64)


def _check_codes(where: str, name: str, column: str, codes: np.ndarray, size: int) -> None:
    if codes.size and (int(codes.min()) < 0 or int(codes.max()) >= size):
        bad = int(codes[(codes < 0) | (codes >= size)][0])
        raise ValueError(
            f"{where}: {name} ({column}) holds code {bad}, outside its vocabulary [0, {size})"
        )


def to_rdmol(data: Data, kekulize: bool = False) -> Any:
    """The sanitized ``rdkit.Chem.Mol`` of a molecule ``Data`` (PyG's ``to_rdmol``).

    Reads ``x`` [N, 9] (atomic number, chirality, formal charge, hydrogens, radicals,
    hybridization and aromatic columns), ``edge_index`` [2, E] and ``edge_attr`` [E, 3]
    (integer arrays; CuPy arrays are copied to the host). Each bond is added once, at its
    first direction in ``edge_index``'s order, with that column's type, stereo and
    conjugation, as PyG (including PyG's stereo atoms: the bond's own atoms, reversed).
    ``kekulize=True`` kekulizes before ``Chem.SanitizeMol``; ``Chem.AssignStereochemistry``
    runs last. RDKit's sanitization errors (a ``ValueError`` subclass) pass through.

    Checked first: the three arrays exist with those shapes, node ids are in ``[0, N)``,
    there are no self-loops, and every code read is inside :data:`x_map` / :data:`e_map`.
    """
    return _to_rdmol(data, kekulize, "to_rdmol")


def _to_rdmol(data: Data, kekulize: bool, where: str) -> Any:
    if not isinstance(data, Data):
        raise TypeError(f"{where}: data must be an arraygnn Data, got {type(data).__name__}")
    kekulize = bool_arg(where, "kekulize", kekulize)
    x = _host_int(where, data, "x", "[N, 9]")
    edge_index = _host_int(where, data, "edge_index", "[2, E]")
    edge_attr = _host_int(where, data, "edge_attr", "[E, 3]")
    n, num_edges = x.shape[0], edge_index.shape[1]
    if x.shape[1] != len(_X_COLUMNS):
        raise ValueError(f"{where}: data.x must have shape [N, 9], got {list(x.shape)}")
    if edge_index.shape[0] != 2:
        raise ValueError(
            f"{where}: data.edge_index must have shape [2, E], got {list(edge_index.shape)}"
        )
    if edge_attr.shape != (num_edges, len(_E_COLUMNS)):
        raise ValueError(
            f"{where}: data.edge_attr must have shape [E, 3] with E={num_edges} (one row per "
            f"edge), got {list(edge_attr.shape)}"
        )
    if num_edges and (int(edge_index.min()) < 0 or int(edge_index.max()) >= n):
        raise ValueError(f"{where}: data.edge_index holds atom ids outside [0, {n})")
    if bool((edge_index[0] == edge_index[1]).any()):
        raise ValueError(f"{where}: data.edge_index holds a self-loop; a bond joins two atoms")
    for j in (0, 1, 3, 4, 5, 6):  # the x columns read through a vocabulary
        column = _X_COLUMNS[j]
        _check_codes(where, f"x[:, {j}]", column, x[:, j], len(x_map[column]))
    for j in (0, 1):
        column = _E_COLUMNS[j]
        _check_codes(where, f"edge_attr[:, {j}]", column, edge_attr[:, j], len(e_map[column]))

    Chem = _rdkit(where)
    rd = Chem.rdchem
    mol = Chem.RWMol()
    for row in x.tolist():
        atom = Chem.Atom(x_map["atomic_num"][row[0]])
        atom.SetChiralTag(getattr(rd.ChiralType, x_map["chirality"][row[1]]))
        atom.SetFormalCharge(x_map["formal_charge"][row[3]])
        atom.SetNumExplicitHs(x_map["num_hs"][row[4]])
        atom.SetNumRadicalElectrons(x_map["num_radical_electrons"][row[5]])
        atom.SetHybridization(getattr(rd.HybridizationType, x_map["hybridization"][row[6]]))
        atom.SetIsAromatic(bool(row[7]))
        mol.AddAtom(atom)

    seen: set[tuple[int, int]] = set()
    for (src, dst), e in zip(edge_index.T.tolist(), edge_attr.tolist()):
        key = (min(src, dst), max(src, dst))
        if key in seen:
            continue
        seen.add(key)
        mol.AddBond(src, dst, getattr(rd.BondType, e_map["bond_type"][e[0]]))
        bond = mol.GetBondBetweenAtoms(src, dst)
        stereo = getattr(rd.BondStereo, e_map["stereo"][e[1]])
        if stereo != rd.BondStereo.STEREONONE:
            bond.SetStereoAtoms(dst, src)  # PyG's choice, kept for equal results
            bond.SetStereo(stereo)
        bond.SetIsConjugated(bool(e[2]))

    mol = mol.GetMol()
    if kekulize:
        Chem.Kekulize(mol)
    Chem.SanitizeMol(mol)
    Chem.AssignStereochemistry(mol)
    return mol


def to_smiles(data: Data, kekulize: bool = False) -> str:
    """The isomeric SMILES string of a molecule ``Data`` (PyG's ``to_smiles``):
    ``Chem.MolToSmiles(to_rdmol(data, kekulize), isomericSmiles=True)``. CuPy arrays are
    copied to the host."""
    mol = _to_rdmol(data, kekulize, "to_smiles")
    return _rdkit("to_smiles").MolToSmiles(mol, isomericSmiles=True)
