"""Review of the DGL graph-classification journey: GraphCollator's number rules."""

import numpy as np
import pytest

from arraygnn.graph import GraphDataLoader, graph
from arraygnn.graph.batching import collate


def test_collate_mixed_int_and_float_labels_are_not_truncated():
    # DGL: F.tensor([1, 2.5]) is a float tensor; int64 would silently drop the .5
    out = collate([1, 2.5, 3])
    assert out.dtype.kind == "f"
    np.testing.assert_array_equal(out, [1.0, 2.5, 3.0])
    np.testing.assert_array_equal(collate([True, 2]), [1, 2])  # torch: int64 [1, 2]
    assert collate([True, 2]).dtype == np.int64
    assert collate([1, 2]).dtype == np.int64 and collate([True, False]).dtype == bool
    with pytest.raises(OverflowError):
        collate([2**63, 1])  # not wrapped to a negative int64
    with pytest.raises(TypeError, match="collate"):
        collate([1, None])


def test_collate_numpy_strings_stay_a_list_as_dgl():
    # np.str_ is a str: DGL's collate returns the items as they are
    items = [np.str_("a"), np.str_("bc")]
    out = collate(items)
    assert isinstance(out, list) and out == ["a", "bc"]
    assert collate([np.bytes_(b"x")]) == [b"x"]


def test_graph_data_loader_float_then_int_labels():
    data = [(graph(([0], [1])), 0.5), (graph(([0], [0])), 1)]
    ((bg, y),) = list(GraphDataLoader(data, batch_size=2))
    assert bg.batch_size == 2
    np.testing.assert_array_equal(y, [0.5, 1.0])
    ((bg, y),) = list(GraphDataLoader(data[::-1], batch_size=2))
    np.testing.assert_array_equal(y, [1.0, 0.5])
