"""A jraph user's workflow (session 10): an arraygnn ``Batch`` from the ``DataLoader``
becomes a ``GraphsTuple``, is padded, handed to JAX without a copy and run through
``jax.jit``-compiled jraph models, against arraygnn's own layers on the same weights; and
``batch`` / ``unbatch`` / padding against jraph's own functions on the same graphs."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.data import Data
from arraygnn.loader import DataLoader

FIELDS = ("nodes", "edges", "receivers", "senders", "n_node", "n_edge")


def _undirected(rng: np.random.Generator, n: int) -> np.ndarray:
    """Both directions of ``n`` random non-loop edges, int32 ids (the zero-copy advice)."""
    s, r = rng.integers(0, n, n), rng.integers(0, n, n)
    keep = s != r
    ei = np.stack([np.concatenate([s[keep], r[keep]]), np.concatenate([r[keep], s[keep]])])
    return np.unique(ei, axis=1).astype(np.int32)


def _graphs(seed: int = 0) -> list[Data]:
    rng = np.random.default_rng(seed)
    out = []
    for n in (2, 3, 4, 5, 1):
        ei = _undirected(rng, n)
        out.append(
            Data(
                x=rng.random((n, 3)).astype(np.float32),
                edge_index=ei,
                edge_attr=rng.random((ei.shape[1], 2)).astype(np.float32),
            )
        )
    return out


def test_from_data_counts_follow_int32_ids_so_padded_batches_reach_jax_without_a_copy():
    """``from_data`` made ``n_node`` / ``n_edge`` int64 whatever the ids were; padding keeps
    the counts' dtype, so with JAX's default (x64 off) every padded batch of int32 graphs
    had its counts narrowed, a copy (``strict=True`` raised), although the example and
    the docs promise "no copy: the batches are 64-byte aligned"."""
    pytest.importorskip("jax")
    from arraygnn.interop import to_jax
    from arraygnn.interop.jax import jax_x64_enabled

    if jax_x64_enabled():
        pytest.skip("needs JAX's default (jax_enable_x64 off)")
    batch = next(iter(DataLoader(_graphs(), batch_size=5)))
    g = gt.from_data(batch)
    assert g.n_node.dtype == np.int32 and g.n_edge.dtype == np.int32
    assert g.n_node.tolist() == [2, 3, 4, 5, 1]
    padded = gt.pad_with_graphs(g, 24, 40, 7)
    _, report = to_jax(padded, strict=True, report=True)
    assert report.zero_copy and len(report.shared) == 6
    one = gt.from_data(_graphs()[0])  # a single Data too
    assert one.n_node.dtype == np.int32 and one.n_edge.tolist() == [_graphs()[0].num_edges]
    # int64 ids keep int64 counts
    wide = Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]], np.int64))
    assert gt.from_data(wide).n_node.dtype == np.int64


def test_jitted_jraph_models_on_a_padded_arraygnn_batch_match_arraygnn():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jraph = pytest.importorskip("jraph")
    from arraygnn.nn import GCNConv

    batch = next(iter(DataLoader(_graphs(), batch_size=5)))
    padded = gt.pad_with_graphs(gt.from_data(batch), 24, 40, 7)
    jg = gt.to_jraph(padded)
    assert isinstance(jg, jraph.GraphsTuple)
    assert jg.nodes.unsafe_buffer_pointer() == padded.nodes.ctypes.data  # shared
    rng = np.random.default_rng(1)
    w = rng.random((3, 4)).astype(np.float32)
    wq, a = rng.random((3, 4)).astype(np.float32), rng.random(8).astype(np.float32)

    def gat(lib, xp):
        def logit(s, r, e):
            return xp.tanh(xp.concatenate([s, r], -1) @ xp.asarray(a))[:, None]

        return lib.GAT(lambda x: x @ xp.asarray(wq), logit, lambda x: x)

    @jax.jit  # one trace for both models (keeps the test fast)
    def models(g):
        gcn = jraph.GraphConvolution(lambda x: x @ w, add_self_edges=True)(g).nodes
        return gcn, gat(jraph, jnp)(g).nodes

    gcn, gat_nodes = models(jg)
    # GCN: jraph's (symmetric graph: sender / receiver degrees agree) vs arraygnn's GCNConv
    conv = GCNConv(3, 4, bias=False)
    conv.lin.weight[...] = w.T
    n = int(batch.num_nodes)
    ours = conv(batch.x, batch.edge_index)
    np.testing.assert_allclose(np.asarray(gcn)[:n], ours, rtol=1e-5, atol=1e-6)
    # GAT: the same functions through arraygnn.graphs_tuple (GraphNetwork and the others
    # are compared with jraph in test_graphs_tuple_models.py)
    ours = gat(gt, np)(padded).nodes
    np.testing.assert_allclose(np.asarray(gat_nodes), ours, rtol=1e-5, atol=1e-6)


def test_batch_unbatch_and_padding_agree_with_jraph_on_the_same_graphs():
    jraph = pytest.importorskip("jraph")
    graphs = [gt.from_data(d) for d in _graphs(2)]
    ours = gt.batch(graphs)
    # jraph's NumPy functions (its JAX ones compile every op: seconds on a small graph)
    theirs = jraph.batch_np([jraph.GraphsTuple(*g) for g in graphs])
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(ours, name), np.asarray(getattr(theirs, name)))
    senders = ours.senders.copy()
    mine = jraph.GraphsTuple(*[None if v is None else v.copy() for v in ours])
    for a, b in zip(gt.unbatch(ours), jraph.unbatch_np(mine), strict=True):
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(ours.senders, senders)  # jraph shifts its input in place
    padded = gt.pad_with_graphs(ours, 24, 40, 7)
    jpadded = jraph.pad_with_graphs(jraph.GraphsTuple(*ours), 24, 40, 7)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(padded, name), np.asarray(getattr(jpadded, name)))
    back = gt.from_jraph(gt.to_jraph(gt.unpad_with_graphs(padded)))
    jback = jraph.unpad_with_graphs(jpadded)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(back, name), getattr(ours, name))
        np.testing.assert_array_equal(getattr(back, name), np.asarray(getattr(jback, name)))
