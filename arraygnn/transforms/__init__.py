"""PyG's ``torch_geometric.transforms`` on arrays: callables that take a
:class:`~arraygnn.data.Data` or :class:`~arraygnn.hetero_data.HeteroData` and return a new
one (the input is never modified). Use them directly, in :class:`Compose`, or as a
dataset's / loader's ``transform``.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.transforms import Compose
>>> Compose([]).transforms
[]
"""

from arraygnn.transforms.attrs import AttributeLevels, attribute_levels
from arraygnn.transforms.base import BaseTransform, Compose, ComposeFilters

__all__ = [
    "AttributeLevels",
    "BaseTransform",
    "Compose",
    "ComposeFilters",
    "attribute_levels",
]
