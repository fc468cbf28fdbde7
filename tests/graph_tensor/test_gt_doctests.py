"""The runnable examples in the GraphTensor and schema docstrings."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "arraygnn.graph_tensor",
    "arraygnn.graph_tensor.ragged",
    "arraygnn.graph_tensor.spec",
    "arraygnn.graph_tensor.pieces",
    "arraygnn.graph_tensor.broadcast_pool",
    "arraygnn.graph_tensor.batching",
    "arraygnn.graph_tensor.convert",
    "arraygnn.io.schema",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
