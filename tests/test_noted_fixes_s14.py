"""Small problems other helpers noted (s14), each pinned by a test:

1. ``parse_example`` / ``parse_single_example`` / ``get_io_keys`` given a GraphTensor where its
   spec belongs read the graph's arrays as shapes; now the ``TypeError`` the ``ParseExample``
   layers raise (one shared check).
2. ``aligned_empty`` truncated float sizes and refused numpy-int alignments.
3. ``structured_readout_into_feature`` without the readout node set: TF-GNN raises
   ``KeyError`` there (``graph.node_sets[readout_node_set]``, tensorflow/gnn 5d7251e
   graph/readout.py); ours is now both ``KeyError`` and ``ValueError`` (as our other readout
   errors), while ``structured_readout`` keeps TF-GNN's ``ValueError``.
4. ``FilterWithSummary`` restarts its counters, moving average and report step on every pass,
   as TF-GNN's ``dataset_filter_with_summary`` (a ``tf.data`` ``scan`` from its initial state
   on each iteration); ``PadBatches`` (no TF-GNN counterpart) counts over all passes, as
   ``GraphBatchLoader``.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn._alignment import aligned_empty
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.graph_tensor import GraphTensor, NodeSet
from arraygnn.io.example import get_io_keys, parse_example, parse_single_example, write_example
from arraygnn.pipeline import (
    FilterWithSummary,
    ParseExample,
    ParseSingleExample,
    structured_readout,
    structured_readout_into_feature,
)
from arraygnn.pipeline.batching import PadBatches


def _graph() -> GraphTensor:
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    return GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([6]), features={"x": x})}
    )


# -- 1 ---------------------------------------------------------------------------------------


def test_parse_functions_refuse_a_graph_where_its_spec_belongs():
    g = _graph()
    blob = write_example(g)
    for call in (
        lambda: parse_single_example(g, blob),
        lambda: parse_example(g, [blob]),
        lambda: get_io_keys(g),
    ):
        with pytest.raises(
            TypeError, match=r"spec must be a graph spec.*got a GraphTensor.*\.spec"
        ):
            call()  # was: ValueError "key 'nodes/a.x' has 12 values, expected ..."
    assert (
        parse_single_example(g.spec, blob).node_sets["a"]["x"].tolist()
        == g.node_sets["a"]["x"].tolist()
    )
    # the layers share the check (and now also name a GraphSchema slip when made)
    for layer in (ParseExample, ParseSingleExample):
        with pytest.raises(TypeError, match=rf"{layer.__name__}: graph_tensor_spec .*\.spec"):
            layer(g)
        with pytest.raises(TypeError, match=rf"{layer.__name__}: graph_tensor_spec .*got int"):
            layer(3)


# -- 2 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2.5,), 2.5, (2, True), (np.float64(3.0),)])
def test_aligned_empty_refuses_non_int_sizes(shape):
    with pytest.raises(TypeError, match="aligned_empty: shape"):
        aligned_empty(shape, np.float32)  # (2.5,) came back with shape (2,)


def test_aligned_empty_takes_numpy_ints():
    a = aligned_empty((np.int64(3), np.int32(2)), np.float64, alignment=np.int64(128))
    assert a.shape == (3, 2) and a.ctypes.data % 128 == 0  # the alignment was refused
    b = aligned_empty(np.int64(4), np.float32, alignment=np.int32(16))
    assert b.shape == (4,) and b.ctypes.data % 16 == 0
    for bad in (48, True, np.float64(64.0), 0):
        with pytest.raises(ValueError, match="alignment must be a positive int"):
            aligned_empty((3,), np.float32, alignment=bad)


# -- 3 ---------------------------------------------------------------------------------------


def test_readout_into_feature_missing_readout_set_is_a_key_error_as_tfgnn():
    g = _graph()
    with pytest.raises(KeyError, match="no node set '_readout'") as err:
        structured_readout_into_feature(g, "seed", feature_name="x")
    assert isinstance(err.value, ValueError)  # as arraygnn's other readout errors
    # TF-GNN's structured_readout raises ValueError ("lacks auxiliary node set"): kept
    with pytest.raises(ValueError, match="no node set '_readout'"):
        structured_readout(g, "seed", feature_name="x")


# -- 4 ---------------------------------------------------------------------------------------


def test_filter_with_summary_restarts_on_every_pass():
    reports = []
    f = FilterWithSummary(
        range(6), lambda x: x % 3 != 0, summary_steps=3, report=lambda *a: reports.append(a)
    )
    first = (list(f), f.num_seen, f.num_skipped, f.removed_fraction_ema)
    second = (list(f), f.num_seen, f.num_skipped, f.removed_fraction_ema)
    assert first == second == ([1, 2, 4, 5], 6, 2, first[3])  # counts were 12 / 4 before
    assert reports[:2] == reports[2:]  # the report step restarts at 0 (TF-GNN's scan)


def test_pad_batches_counts_over_all_passes():
    batches = [Batch.from_data_list([Data(x=np.ones((n, 1)))]) for n in (2, 9, 3)]
    padded = PadBatches(batches, num_nodes=5, num_edges=0, num_graphs=2, fit_or_skip=True)
    assert len(list(padded)) == len(list(padded)) == 2
    assert (padded.num_seen, padded.num_skipped) == (6, 2)
