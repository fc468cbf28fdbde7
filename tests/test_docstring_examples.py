"""Every runnable example in the package's docstrings runs and gives what it shows.

The modules are found by scanning the sources for ``>>>`` (so a new module's examples are
checked without being listed here); those whose examples use an optional package skip when
it is absent.
"""

from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

import arraygnn

ROOT = pathlib.Path(arraygnn.__file__).parent

# Module -> the optional package its examples import.
NEEDS = {
    "arraygnn.interop.torch": "torch",
    "arraygnn.interop.torch_sparse": "torch",
    "arraygnn.utils.smiles": "rdkit",
    "arraygnn.utils.tree_decomposition": "rdkit",
    "arraygnn.interop.jax": "jax",
    "arraygnn.interop.pyg": "torch_geometric",
    "arraygnn.interop.networkx": "networkx",
    "arraygnn.nn.weights": "torch_geometric",
}


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(ROOT.rglob("*.py")):
        if ">>>" not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


MODULES = _modules_with_examples()


def test_the_scan_finds_the_modules():
    assert len(MODULES) > 50
    assert "arraygnn.ops.slot_order" in MODULES and "arraygnn.graph_tensor" in MODULES
    assert set(NEEDS) <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
