"""Datasets shipped with arraygnn and seeded synthetic graph generators.

- :func:`load_molecules`: 4,991 real NCI molecules (from RDKit's bundled data) with a TPSA
  target, as a :class:`arraygnn.dataset.PackedDataset`; needs only NumPy.
- :func:`load_molecule_arrays`: the same molecules as a dict of packed arrays.
- :func:`powerlaw_graph`: a large random graph with power-law degrees, vectorised and seeded.

>>> from arraygnn.datasets import load_molecule_arrays
>>> arrays = load_molecule_arrays()
>>> int(arrays["num_nodes"].shape[0])
4991
"""

from arraygnn.datasets.molecules import (
    ATOM_FEATURES,
    BOND_FEATURES,
    BOND_TYPES,
    HYBRIDIZATIONS,
    load_molecule_arrays,
    load_molecules,
)
from arraygnn.datasets.synthetic import powerlaw_graph

__all__ = [
    "ATOM_FEATURES",
    "BOND_FEATURES",
    "BOND_TYPES",
    "HYBRIDIZATIONS",
    "load_molecule_arrays",
    "load_molecules",
    "powerlaw_graph",
]
