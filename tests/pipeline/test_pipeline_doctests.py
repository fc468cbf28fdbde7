"""The docstring examples of the pipeline modules run and give what they show."""

import doctest
import importlib

import pytest

MODULES = [
    "arraygnn.io.tfrecord",
    "arraygnn.io._example_wire",
    "arraygnn.io.example",
    "arraygnn.padding",
    "arraygnn.pipeline.batching",
    "arraygnn.pipeline.map_features",
    "arraygnn.pipeline.readout",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
