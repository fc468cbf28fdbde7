"""Review of the session's DGL batching / readout code for CuPy: the per-graph counts a
batched ``Graph`` keeps on the host are read there (``batch``, ``unbatch``,
``slice_batch``, the padded length of ``topk_*``), never uploaded by ``batch_num_nodes``
and read back (a device sync per graph and type on CuPy). The CuPy test runs on a GPU
session only."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    batch,
    broadcast_nodes,
    graph,
    slice_batch,
    softmax_nodes,
    topk_nodes,
    unbatch,
)
from arraygnn.graph.core import Graph


def _graphs(xp):
    g1 = graph((xp.asarray([0, 1]), xp.asarray([1, 2])), num_nodes=3)
    g2 = graph((xp.asarray([0]), xp.asarray([0])), num_nodes=1)
    g3 = graph((xp.asarray([1, 0, 1]), xp.asarray([0, 1, 1])), num_nodes=2)
    for i, g in enumerate((g1, g2, g3)):
        n = g.num_nodes()
        g.ndata["h"] = xp.asarray(np.arange(2 * n, dtype=np.float32).reshape(n, 2) * (i + 1))
    return g1, g2, g3


def test_batching_reads_the_counts_kept_on_the_host(monkeypatch):
    g1, g2, g3 = _graphs(np)
    inner = batch([g1, g2])

    def refuse(self, *args, **kwargs):
        raise AssertionError("batch_num_* uploads the host counts (a CuPy round trip)")

    monkeypatch.setattr(Graph, "batch_num_nodes", refuse)
    monkeypatch.setattr(Graph, "batch_num_edges", refuse)
    bg = batch([inner, g3])  # a batch of a batch: the inner counts come from the host too
    assert bg._batch_nodes["_N"].tolist() == [3, 1, 2]
    assert bg._batch_edges[bg.canonical_etypes[0]].tolist() == [2, 1, 3]
    part = slice_batch(bg, 2, store_ids=True)
    assert part.num_nodes() == 2 and part.edges()[0].tolist() == [1, 0, 1]
    assert [g.num_edges() for g in unbatch(bg)] == [2, 1, 3]


def test_cupy_readouts_and_slices_match_numpy():
    cupy = pytest.importorskip("cupy")  # runs on a GPU session
    from arraygnn.batch import Batch
    from arraygnn.data import Data
    from arraygnn.graphs_tuple.convert import from_data
    from arraygnn.nn import ChebConv

    host, dev = batch(list(_graphs(np))), batch(list(_graphs(cupy)))
    for k in (1, 4):  # 4: longer than every graph, zero rows padded
        for sortby in (None, 1):
            want, dev_out = (
                topk_nodes(host, "h", k, sortby=sortby),
                topk_nodes(dev, "h", k, sortby=sortby),
            )
            for a, b in zip(want, dev_out):
                assert isinstance(b, cupy.ndarray)
                np.testing.assert_array_equal(a, b.get())
    feat = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(
        broadcast_nodes(host, feat), broadcast_nodes(dev, cupy.asarray(feat)).get()
    )
    np.testing.assert_allclose(softmax_nodes(host, "h"), softmax_nodes(dev, "h").get(), 1e-6)
    part = slice_batch(dev, 1)
    assert isinstance(part.edges()[0], cupy.ndarray) and part.num_nodes() == 1
    assert [g.num_nodes() for g in unbatch(dev)] == [3, 1, 2]
    conv = ChebConv(2, 3, K=2, rng=0)
    np.testing.assert_allclose(
        conv(host, host.ndata["h"]), conv(dev, dev.ndata["h"]).get(), rtol=1e-5, atol=1e-6
    )
    graphs = [Data(x=np.ones((n, 1)), edge_index=np.zeros((2, n), np.int32)) for n in (2, 3)]
    gt = from_data(Batch.from_data_list(graphs).to("cuda"))
    assert isinstance(gt.n_node, cupy.ndarray) and gt.n_node.dtype == np.int32
    assert gt.n_node.get().tolist() == [2, 3] and gt.n_edge.get().tolist() == [2, 3]
