"""Review (session 9) of the jraph face's padding dtypes and unbatch's new check."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.graphs_tuple import GraphsTuple


def _graph(n: int, e: int, dtype: type, receivers_dtype: type | None = None) -> GraphsTuple:
    return GraphsTuple(
        np.ones((n, 1), np.float32),
        None,
        (np.arange(e) % max(n, 1)).astype(receivers_dtype or dtype),
        np.zeros(e, dtype),
        None,
        np.array([n], dtype),
        np.array([e], dtype),
    )


def test_unbatch_no_graphs_is_empty_as_jraph():
    # jraph.unbatch / unbatch_np of a GraphsTuple with no graphs give []
    empty = GraphsTuple(
        None, None, np.zeros(0, np.int32), np.zeros(0, np.int32), None,
        np.zeros(0, np.int32), np.zeros(0, np.int32),
    )  # fmt: skip
    assert gt.unbatch(empty) == []


def test_unbatch_graphs_without_nodes_or_edges():
    g = GraphsTuple(
        None, None, np.array([0, 1], np.int8), np.array([1, 0], np.int8), None,
        np.array([0, 2, 0], np.int8), np.array([0, 2, 0], np.int8),
    )  # fmt: skip
    parts = gt.unbatch(g)
    assert [p.senders.tolist() for p in parts] == [[], [1, 0], []]
    assert all(p.senders.dtype == np.int8 for p in parts)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.int32])
def test_pad_with_graphs_keeps_receivers_dtype_as_dynamically_batch(dtype):
    # senders and receivers of different dtypes: pad_with_graphs and dynamically_batch
    # (which pads while batching) give the same dtypes for the same targets
    gs = [_graph(3, 2, dtype, np.int32), _graph(2, 1, dtype, np.int32)]
    padded = gt.pad_with_graphs(gt.batch(gs), 8, 5, 4)
    streamed = next(iter(gt.dynamically_batch(gs, 8, 5, 4)))
    assert padded.receivers.dtype == streamed.receivers.dtype == np.int32
    assert padded.senders.dtype == streamed.senders.dtype == dtype
    assert padded.receivers.tolist() == streamed.receivers.tolist()
