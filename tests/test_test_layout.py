"""The test tree's own rule: test files are imported by basename (no ``__init__.py`` in the
test folders, pytest's rootdir import mode), so two files with one name in different
folders break collection of both, and ``from test_x import ...`` finds the wrong one."""

from collections import Counter
from pathlib import Path


def test_test_file_names_are_unique():
    names = Counter(p.name for p in Path(__file__).parent.rglob("test_*.py"))
    assert not [n for n, c in names.items() if c > 1], names.most_common(3)
