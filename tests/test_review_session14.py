"""Review of this session's parity-sweep commits 1f36df9..0cf81d5 (TF-GNN / PyG nn / DGL
graph functions / DGL I/O + PinSAGE / distributed + interop / loaders / kNN leftovers):
GraphSAINT's save_dir cache, PadBatches' sizes, the PinSAGE samplers' seed and counting
step, GraphSAINT's ``log``."""

from __future__ import annotations

import os

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.loader import GraphSAINTNodeSampler, GraphSAINTRandomWalkSampler


# ---- GraphSAINT save_dir: a cache that changes nothing but the time it takes -------------
def _saint_data(seed=1, n=20, e=60):
    rng = np.random.default_rng(seed)
    return Data(x=rng.standard_normal((n, 2)), edge_index=rng.integers(0, n, (2, e)))


SAINTS = [
    lambda d, batch_size=4, **kw: GraphSAINTNodeSampler(d, batch_size, 2, 3, **kw),
    lambda d, batch_size=3, **kw: GraphSAINTRandomWalkSampler(d, batch_size, 2, 2, 3, **kw),
]


def _xs(loader):
    return [(b.x.copy(), b.node_norm.copy(), b.edge_norm.copy()) for b in loader]


@pytest.mark.parametrize("make", SAINTS)
def test_saint_cache_hit_gives_the_batches_of_the_run_that_wrote_it(make, tmp_path):
    data = _saint_data()
    fresh = make(data, seed=0)
    first = make(data, save_dir=tmp_path, seed=0)  # computes and writes the norms
    again = make(data, save_dir=tmp_path, seed=0)  # reads them
    want = _xs(fresh)
    for got in (_xs(first), _xs(again)):  # same seed, same samples (module RULE)
        for a, b in zip(got, want, strict=True):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("make", SAINTS)
def test_saint_cache_of_another_graph_or_sampler_is_refused(make, tmp_path):
    data = _saint_data()
    make(data, save_dir=tmp_path, seed=0)
    # same sizes, other edges: PyG (and the size check) would reuse the norms silently
    other = _saint_data(seed=7)
    assert other.num_nodes == data.num_nodes and other.num_edges == data.num_edges
    with pytest.raises(ValueError, match="another graph.*remove it or pick another save_dir"):
        make(other, save_dir=tmp_path, seed=0)
    with pytest.raises(ValueError, match="batch_size=.*remove it"):
        make(data, batch_size=9, save_dir=tmp_path)
    # the seed is not part of the key (as PyG): another seed reads the stored norms
    a, b = make(data, save_dir=tmp_path, seed=5), make(data, save_dir=tmp_path, seed=0)
    np.testing.assert_array_equal(a.node_norm, b.node_norm)


def test_saint_cache_file_unreadable_is_a_named_error_and_writes_are_atomic(tmp_path, monkeypatch):
    data = _saint_data()
    path = tmp_path / "graphsaintnodesampler_3.npz"
    path.write_bytes(b"PK\x03\x04 cut short")
    with pytest.raises(ValueError, match="graphsaintnodesampler_3.npz"):
        GraphSAINTNodeSampler(data, 4, 2, 3, save_dir=tmp_path)
    # pickled content is never loaded
    np.savez(path, node_norm=np.array([object()]), edge_norm=np.zeros(60, np.float32))
    with pytest.raises(ValueError, match="remove it or pick another save_dir"):
        GraphSAINTNodeSampler(data, 4, 2, 3, save_dir=tmp_path)
    path.unlink()

    def broken(file, **arrays):  # an interrupted write: part of a file, then an error
        assert not isinstance(file, (str, os.PathLike))  # a handle: its owner closes it
        file.write(b"PK\x03\x04")
        file.flush()
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        GraphSAINTNodeSampler(data, 4, 2, 3, save_dir=tmp_path)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []  # nothing that a later run would read
    GraphSAINTNodeSampler(data, 4, 2, 3, save_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["graphsaintnodesampler_3.npz"]


def test_saint_log_takes_what_pyg_takes():
    data = _saint_data()
    for log in (0, 1, np.int64(0), False):  # PyG: `if self.log:`
        GraphSAINTNodeSampler(data, 4, log=log)
    with pytest.raises(TypeError, match="log"):
        GraphSAINTNodeSampler(data, 4, log="yes")


# ---- PadBatches: a size no batch can ever fit is refused when made -------------------------
def test_pad_batches_refuses_zero_graphs():
    from arraygnn.batch import Batch
    from arraygnn.pipeline.batching import PadBatches

    batches = [Batch.from_data_list([Data(x=np.ones((2, 1)))])]
    with pytest.raises(ValueError, match="num_graphs"):
        PadBatches(batches, num_nodes=5, num_edges=0, num_graphs=0, fit_or_skip=True)
    padded = PadBatches(batches, num_nodes=2, num_edges=0, num_graphs=1, fit_or_skip=True)
    assert len(list(padded)) == 1  # one graph that fits exactly: no padding graph needed


# ---- PinSAGE samplers ---------------------------------------------------------------------
def test_pinsage_negative_seed_is_a_value_error():
    from arraygnn.graph import PinSAGESampler, heterograph

    g = heterograph(
        {
            ("item", "bought-by", "user"): (np.array([0, 1]), np.array([0, 1])),
            ("user", "bought", "item"): (np.array([0, 1]), np.array([0, 1])),
        }
    )
    with pytest.raises(ValueError, match="seed"):
        PinSAGESampler(g, "item", "user", 2, 0.5, 3, 2, seed=-1)
    with pytest.raises(TypeError, match="seed"):
        PinSAGESampler(g, "item", "user", 2, 0.5, 3, 2, seed="abc")


def test_select_pinsage_neighbors_chunks_with_ties_and_stopped_walks():
    from arraygnn.graph import select_pinsage_neighbors

    # chunk 0: 7 twice, 2 twice, 9 once; chunk 1: only stopped walks; chunk 2: one value
    src = np.array([7, 2, -1, 9, 2, 7, -1, -1, -1, -1, -1, -1, 4, 4, 4, 4, 4, 4], np.int32)
    dst = np.repeat(np.array([10, 11, 12], np.int32), 6)
    keep = src.copy()
    s, d, c = select_pinsage_neighbors(src, dst, 6, 2)
    assert s.tolist() == [7, 2, 4] and d.tolist() == [10, 10, 12] and c.tolist() == [2, 2, 6]
    assert s.dtype == d.dtype == c.dtype == np.int32
    np.testing.assert_array_equal(src, keep)
    s, d, c = select_pinsage_neighbors(src, dst, 1, 1)  # every id its own chunk
    assert s.tolist() == keep[keep != -1].tolist() and c.tolist() == [1] * 11
    s, _, c = select_pinsage_neighbors(src[:0], dst[:0], 6, 2)
    assert s.shape == c.shape == (0,)


# ---- DenseChebConv: lambda_max is checked in the dtype it is used in ------------------------
@pytest.mark.parametrize("lam", [1e-50, 1e39, np.float64(1e-50)])
def test_dense_cheb_conv_lambda_max_that_underflows_or_overflows_is_refused(lam):
    from arraygnn.nn import DenseChebConv

    conv = DenseChebConv(2, 3, 2, rng=0)
    adj, x = np.array([[0, 1], [1, 0]], np.float32), np.ones((2, 2), np.float32)
    for value in (lam, np.array(lam)):  # a number as the one-element array: 0 / inf in float32
        with pytest.raises(ValueError, match="lambda_max"):
            conv(adj, x, lambda_max=value)
