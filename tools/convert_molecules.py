"""Convert RDKit's bundled NCI molecules into the arrays shipped with arraygnn.

Run once by a maintainer (RDKit is used here only, never by the package)::

    pip install rdkit
    python tools/convert_molecules.py            # writes arraygnn/datasets/data/molecules.npz

Sources (inside the RDKit wheel, ``rdkit/Data/NCI/``):

- ``first_5K.smi``: ``SMILES<TAB>NCI id`` per line (4,999 molecules);
- ``first_5k.tpsa.csv``: ``SMILES,TPSA`` (topological polar surface area, Daylight tools
  and Ertl's ``tpsa.c``) for the same molecules in another order.

The molecules keep the ``.smi`` order; the TPSA is joined by SMILES string. Hydrogens stay
implicit (their count is an atom feature). Every bond becomes two directed edges, ``u -> v``
then ``v -> u``, with local (per-molecule, 0-based) atom ids. The integer codes are defined
here by name, so they do not depend on RDKit's enum numbering; ``arraygnn.datasets.molecules``
documents the same tables.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The feature columns are the package's own tables (numpy-only module, no arraygnn extras).
from arraygnn.datasets.molecules import ATOM_FEATURES, BOND_FEATURES  # noqa: E402

HYBRIDIZATION_CODES = {"S": 1, "SP": 2, "SP2": 3, "SP3": 4, "SP3D": 5, "SP3D2": 6}  # else 0
CHIRALITY_CODES = {"CHI_TETRAHEDRAL_CW": 1, "CHI_TETRAHEDRAL_CCW": 2}  # unspecified 0, other 3
BOND_TYPE_CODES = {"SINGLE": 1, "DOUBLE": 2, "TRIPLE": 3, "AROMATIC": 4}  # else 0

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "arraygnn/datasets/data/molecules.npz"


def nci_dir() -> Path:
    import rdkit

    return Path(os.path.dirname(rdkit.__file__)) / "Data" / "NCI"


def read_sources(folder: Path) -> tuple[list[str], list[int], dict[str, float]]:
    smiles, ids = [], []
    for line in (folder / "first_5K.smi").read_text().splitlines():
        if not line.strip():
            continue
        smi, nci_id = line.split("\t")
        smiles.append(smi.strip())
        ids.append(int(nci_id))
    tpsa: dict[str, float] = {}
    for line in (folder / "first_5k.tpsa.csv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        smi, value = line.rsplit(",", 1)
        if smi in tpsa and tpsa[smi] != float(value):
            raise ValueError(f"conflicting TPSA values for {smi!r}")
        tpsa[smi] = float(value)
    return smiles, ids, tpsa


def atom_row(atom) -> list[int]:
    chir = str(atom.GetChiralTag())
    return [
        atom.GetAtomicNum(),
        atom.GetDegree(),
        atom.GetFormalCharge(),
        atom.GetTotalNumHs(),
        int(atom.GetIsAromatic()),
        HYBRIDIZATION_CODES.get(str(atom.GetHybridization()), 0),
        int(atom.IsInRing()),
        0 if chir == "CHI_UNSPECIFIED" else CHIRALITY_CODES.get(chir, 3),
        atom.GetNumRadicalElectrons(),
    ]


def convert(folder: Path) -> dict[str, np.ndarray]:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    smiles, ids, tpsa = read_sources(folder)
    num_nodes, num_edges, x_rows, edges, edge_rows = [], [], [], [], []
    kept_smiles, kept_ids, target = [], [], []
    skipped = []
    for smi, nci_id in zip(smiles, ids):
        mol = Chem.MolFromSmiles(smi)
        if mol is None or mol.GetNumAtoms() == 0 or smi not in tpsa:
            skipped.append((nci_id, smi))
            continue
        x_rows.extend(atom_row(a) for a in mol.GetAtoms())
        for b in mol.GetBonds():
            u, v = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
            row = [
                BOND_TYPE_CODES.get(str(b.GetBondType()), 0),
                int(b.GetIsConjugated()),
                int(b.IsInRing()),
            ]
            edges.extend([(u, v), (v, u)])
            edge_rows.extend([row, row])
        num_nodes.append(mol.GetNumAtoms())
        num_edges.append(2 * mol.GetNumBonds())
        kept_smiles.append(smi)
        kept_ids.append(nci_id)
        target.append(tpsa[smi])
    if skipped:
        print(f"skipped {len(skipped)} molecules RDKit could not parse: {skipped[:5]}")
    x = np.asarray(x_rows, dtype=np.int16)
    assert x.min() >= -128 and x.max() <= 127
    edge_index = np.asarray(edges, dtype=np.int64).T.reshape(2, -1)
    assert edge_index.max() < 2**15
    return {
        "num_nodes": np.asarray(num_nodes, dtype=np.int32),
        "num_edges": np.asarray(num_edges, dtype=np.int32),
        "x": x.astype(np.int8),
        "edge_index": edge_index.astype(np.int16),
        "edge_attr": np.asarray(edge_rows, dtype=np.int8).reshape(-1, len(BOND_FEATURES)),
        "y": np.asarray(target, dtype=np.float32),
        "nci_id": np.asarray(kept_ids, dtype=np.int32),
        "smiles": np.asarray([s.encode("ascii") for s in kept_smiles], dtype=np.bytes_),
        "atom_features": np.asarray(ATOM_FEATURES, dtype=np.str_),
        "bond_features": np.asarray(BOND_FEATURES, dtype=np.str_),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None, help="folder with first_5K.smi")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    arrays = convert(args.source or nci_dir())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(
        f"wrote {args.out}: {len(arrays['num_nodes'])} molecules, "
        f"{int(arrays['num_nodes'].sum())} atoms, {int(arrays['num_edges'].sum())} directed edges, "
        f"{args.out.stat().st_size / 1024:.0f} KiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
