"""The NCI molecules shipped inside arraygnn (no download, NumPy only).

4,991 small organic molecules from the NCI set bundled with RDKit (``rdkit/Data/NCI``; 8 of
the 4,999 entries RDKit cannot parse were dropped), converted once by
``tools/convert_molecules.py`` into compact integer arrays stored in
``arraygnn/datasets/data/molecules.npz``.

Per atom, ``x`` [num_atoms, 9] int8, columns :data:`ATOM_FEATURES`:
atomic number, degree (heavy-atom neighbours), formal charge, number of hydrogens,
aromatic (0/1), hybridization (code in :data:`HYBRIDIZATIONS`), in ring (0/1), chirality
(0 unspecified, 1 clockwise, 2 counter-clockwise, 3 other), radical electrons.

Per directed edge, ``edge_attr`` [num_edges, 3] int8, columns :data:`BOND_FEATURES`:
bond type (code in :data:`BOND_TYPES`), conjugated (0/1), in ring (0/1).

Per molecule: ``y`` float32, the topological polar surface area (TPSA, in square ångström,
computed by Daylight tools / Ertl's ``tpsa.c`` as shipped with RDKit); ``nci_id`` int32;
``smiles`` (bytes).

RULE: every bond appears as two directed edges, ``u -> v`` immediately followed by
``v -> u``, with the same ``edge_attr`` row; node ids in ``edge_index`` are local (0-based
per molecule). Hydrogens are implicit (counted in ``x[:, 3]``), so a molecule may have one
atom and no edges.

>>> from arraygnn.datasets import load_molecule_arrays
>>> m = load_molecule_arrays()
>>> m["x"].shape[1], m["edge_attr"].shape[1], str(m["smiles"][0].decode())
(9, 3, 'CC1=CC(=O)C=CC1=O')
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import numpy as np

__all__ = [
    "ATOM_FEATURES",
    "BOND_FEATURES",
    "BOND_TYPES",
    "HYBRIDIZATIONS",
    "load_molecule_arrays",
    "load_molecules",
]

ATOM_FEATURES = (
    "atomic_num",
    "degree",
    "formal_charge",
    "num_hs",
    "aromatic",
    "hybridization",
    "in_ring",
    "chirality",
    "num_radical_electrons",
)
BOND_FEATURES = ("bond_type", "conjugated", "in_ring")
#: bond type code -> name (0: any other RDKit bond type)
BOND_TYPES = {0: "other", 1: "single", 2: "double", 3: "triple", 4: "aromatic"}
#: hybridization code -> name (0: unspecified / other)
HYBRIDIZATIONS = {0: "other", 1: "s", 2: "sp", 3: "sp2", 4: "sp3", 5: "sp3d", 6: "sp3d2"}

_FILE = "molecules.npz"
_KEYS = ("num_nodes", "num_edges", "x", "edge_index", "edge_attr", "y", "nci_id", "smiles")


def _read() -> dict[str, np.ndarray]:
    ref = resources.files("arraygnn.datasets") / "data" / _FILE
    with resources.as_file(ref) as path, np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in _KEYS}
        atom_cols = tuple(str(s) for s in npz["atom_features"])
        bond_cols = tuple(str(s) for s in npz["bond_features"])
    if atom_cols != ATOM_FEATURES or bond_cols != BOND_FEATURES:  # pragma: no cover
        raise RuntimeError(f"{_FILE} does not match this arraygnn version; reinstall arraygnn")
    return arrays


def load_molecule_arrays(index_dtype: Any = np.int64) -> dict[str, np.ndarray]:
    """The shipped molecules as a dict of packed NumPy arrays (fresh arrays on every call).

    Keys: ``num_nodes`` [G] int64, ``num_edges`` [G] int64, ``x`` [N, 9] int8,
    ``edge_index`` [2, E] ``index_dtype`` with local node ids, ``edge_attr`` [E, 3] int8,
    ``y`` [G] float32 (TPSA), ``nci_id`` [G] int32, ``smiles`` [G] bytes.

    >>> m = load_molecule_arrays(index_dtype="int32")
    >>> m["edge_index"].dtype, int(m["num_nodes"].sum()) == m["x"].shape[0]
    (dtype('int32'), True)
    """
    dtype = np.dtype(index_dtype)
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"index_dtype must be int32 or int64, got {dtype}")
    arrays = _read()
    arrays["num_nodes"] = arrays["num_nodes"].astype(np.int64)
    arrays["num_edges"] = arrays["num_edges"].astype(np.int64)
    arrays["edge_index"] = arrays["edge_index"].astype(dtype)
    return arrays


def load_molecules(
    index_dtype: Any = np.int64, include_smiles: bool = False, *, transform: Any = None
):
    """The shipped molecules as a :class:`arraygnn.dataset.PackedDataset`.

    Each graph has node feature ``x`` [n, 9] int8, ``edge_index`` [2, e] (local ids),
    edge feature ``edge_attr`` [e, 3] int8 and graph features ``y`` (TPSA, float32) and
    ``nci_id``; ``smiles`` (bytes) too when ``include_smiles=True``. ``transform`` (PyG's
    dataset ``transform``) is applied to every graph on access.

    >>> ds = load_molecules()
    >>> len(ds)
    4991
    >>> ds[0].num_nodes, ds[0].num_edges
    (9, 18)
    """
    from arraygnn.dataset import PackedDataset

    if not isinstance(include_smiles, (bool, np.bool_)):
        raise TypeError(f"include_smiles must be True or False, got {include_smiles!r}")
    m = load_molecule_arrays(index_dtype)
    graph_features = {"y": m["y"], "nci_id": m["nci_id"]}
    if include_smiles:
        graph_features["smiles"] = m["smiles"]
    return PackedDataset.from_arrays(
        num_nodes=m["num_nodes"],
        num_edges=m["num_edges"],
        node_features={"x": m["x"]},
        edge_index=m["edge_index"],
        edge_features={"edge_attr": m["edge_attr"]},
        graph_features=graph_features,
        transform=transform,
    )
