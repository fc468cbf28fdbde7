"""The runnable examples in the docstrings of the datasets / interop / CLI modules."""

import doctest
import importlib

import pytest

MODULES = [
    ("arraygnn.datasets", None),
    ("arraygnn.datasets.molecules", None),
    ("arraygnn.datasets.synthetic", None),
    ("arraygnn.interop._handoff", None),
    ("arraygnn.__main__", None),
    ("arraygnn.interop.torch", "torch"),
    ("arraygnn.interop.jax", "jax"),
    ("arraygnn.interop.pyg", "torch_geometric"),
]


@pytest.mark.parametrize("name, needs", MODULES, ids=[m for m, _ in MODULES])
def test_doctests(name, needs):
    if needs:
        pytest.importorskip(needs)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
    assert result.attempted > 0
