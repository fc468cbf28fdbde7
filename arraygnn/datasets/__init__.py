"""Datasets shipped with arraygnn and seeded synthetic graph generators.

- :func:`load_molecules`: 4,991 real NCI molecules (from RDKit's bundled data) with a TPSA
  target, as a :class:`arraygnn.dataset.PackedDataset`; needs only NumPy.
- :func:`load_molecule_arrays`: the same molecules as a dict of packed arrays.
- :func:`powerlaw_graph`: a large random graph with power-law degrees, vectorised and seeded.
- PyG's dataset base classes, for datasets of your own: :class:`Dataset`,
  :class:`InMemoryDataset`, :class:`OnDiskDataset`, and :func:`download_url`,
  :func:`extract_zip` / ``tar`` / ``gz`` / ``bz2``, :func:`makedirs`.
- PyG's everyday datasets, read from their raw files already on disk (no torch):
  :class:`TUDataset`, :class:`Planetoid`; and made here: :class:`KarateClub`,
  :class:`FakeDataset`, :class:`FakeHeteroDataset`, :class:`StochasticBlockModelDataset`,
  :class:`RandomPartitionGraphDataset` (random values from NumPy, not PyG's draws).

>>> from arraygnn.datasets import load_molecule_arrays
>>> arrays = load_molecule_arrays()
>>> int(arrays["num_nodes"].shape[0])
4991
"""

from arraygnn.datasets.base import Dataset
from arraygnn.datasets.download import (
    download_google_url,
    download_url,
    extract_bz2,
    extract_gz,
    extract_tar,
    extract_zip,
    makedirs,
)
from arraygnn.datasets.fake import FakeDataset, FakeHeteroDataset
from arraygnn.datasets.in_memory import InMemoryDataset
from arraygnn.datasets.karate import KarateClub
from arraygnn.datasets.molecules import (
    ATOM_FEATURES,
    BOND_FEATURES,
    BOND_TYPES,
    HYBRIDIZATIONS,
    load_molecule_arrays,
    load_molecules,
)
from arraygnn.datasets.on_disk import OnDiskDataset
from arraygnn.datasets.planetoid import Planetoid
from arraygnn.datasets.sbm import RandomPartitionGraphDataset, StochasticBlockModelDataset
from arraygnn.datasets.synthetic import powerlaw_graph
from arraygnn.datasets.tu import TUDataset

__all__ = [
    "ATOM_FEATURES",
    "BOND_FEATURES",
    "BOND_TYPES",
    "HYBRIDIZATIONS",
    "Dataset",
    "FakeDataset",
    "FakeHeteroDataset",
    "InMemoryDataset",
    "KarateClub",
    "OnDiskDataset",
    "Planetoid",
    "RandomPartitionGraphDataset",
    "StochasticBlockModelDataset",
    "TUDataset",
    "download_google_url",
    "download_url",
    "extract_bz2",
    "extract_gz",
    "extract_tar",
    "extract_zip",
    "makedirs",
    "load_molecule_arrays",
    "load_molecules",
    "powerlaw_graph",
]
