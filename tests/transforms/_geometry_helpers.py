"""Helpers shared by the geometry and mesh transform tests: dtypes, tolerances, torch /
PyG imports and a PyG copy of a ``Data``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

FLOATS = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]


def tol(dtype: Any) -> dict[str, float]:
    """``assert_allclose`` tolerances for results in ``dtype``."""
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


def torch_or_skip() -> Any:
    """``torch``, skipping the test unless torch and torch_geometric are installed."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    return torch


def to_pyg(d: Any, torch: Any) -> Any:
    """The same graph as a ``torch_geometric.data.Data`` (the arrays copied as tensors)."""
    from torch_geometric.data import Data as PygData

    return PygData(
        **{k: torch.from_numpy(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v
           for k, v in d.items()}
    )  # fmt: skip
