"""Review of the edge-prediction path (``as_edge_prediction_sampler``, the negative
samplers, ``EdgeDataLoader``, ``find_exclude_eids``) against DGL's
``python/dgl/dataloading/{base,negative_sampler,dataloader}.py`` and
``python/dgl/sampling/negative.py``: the cases the first tests missed.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.edge_data_loader import EdgeDataLoader
from arraygnn.edge_prediction import as_edge_prediction_sampler, find_exclude_eids
from arraygnn.graph import EID, NID, graph, heterograph
from arraygnn.negative_sampler import GlobalUniform, Uniform
from arraygnn.sampling import (
    MultiLayerFullNeighborSampler,
    NeighborSampler,
    global_uniform_negative_sampling,
)

IDTYPES = [np.int32, np.int64]
CLICK = ("user", "click", "item")
CLICKED = ("item", "clicked-by", "user")


def _ring(dtype=np.int64):
    src = np.array([0, 1, 2, 3, 1, 4], dtype=dtype)
    dst = np.array([1, 2, 3, 0, 0, 2], dtype=dtype)
    return graph((src, dst), num_nodes=6), src.astype(np.int64), dst.astype(np.int64)


def _clicks(dtype=np.int64):
    u = np.array([0, 1, 2, 2, 3], dtype=dtype)
    i = np.array([0, 1, 1, 2, 0], dtype=dtype)
    return heterograph({CLICK: (u, i), CLICKED: (i, u)}, num_nodes_dict={"user": 4, "item": 3})


@pytest.mark.parametrize("dtype", IDTYPES)
def test_duplicate_seed_edges_are_kept_as_dgl(dtype):
    # DGL: pair_graph = g.edge_subgraph(seed_edges, relabel_nodes=False) indexes the COO
    # with the ids as given (a repeated id gives a repeated edge); its DataLoader takes
    # repeated indices as they are.
    g, src, dst = _ring(dtype)
    seeds = np.array([4, 1, 4], dtype=dtype)
    sampler = as_edge_prediction_sampler(MultiLayerFullNeighborSampler(1), exclude="self")
    _, pair, blocks = sampler.sample(g, seeds)
    np.testing.assert_array_equal(pair.edata[EID], seeds)
    s, d = pair.edges()
    nid = np.asarray(pair.ndata[NID])
    np.testing.assert_array_equal(nid[s], src[seeds])
    np.testing.assert_array_equal(nid[d], dst[seeds])
    assert not np.isin(blocks[0].edata[EID], seeds).any()
    loader = EdgeDataLoader(g, np.array([0, 0, 5], dtype=dtype), sampler, batch_size=2)
    assert [p.edata[EID].tolist() for _, p, _ in loader] == [[0, 0], [5]]


@pytest.mark.parametrize("mode", ["reverse_types", "reverse_id"])
def test_find_exclude_eids_reads_etype_names_in_seed_edges(mode):
    # DGL canonicalises the keys of the seed edges first ({g.to_canonical_etype(k): v})
    g = _clicks()
    seeds = {"click": np.array([1, 3])}
    if mode == "reverse_types":
        got = find_exclude_eids(g, seeds, mode, reverse_etypes={"click": "clicked-by"})
        want = {CLICK: [1, 3], CLICKED: [1, 3]}
    else:
        rev = {CLICK: np.array([4, 3, 2, 1, 0]), CLICKED: np.arange(5)}
        got = find_exclude_eids(g, seeds, mode, reverse_eids=rev)
        want = {CLICK: [1, 3, 3, 1]}
    assert {c: np.asarray(v).tolist() for c, v in got.items()} == want


def test_negative_samplers_name_a_missing_edge_type():
    g = _clicks()
    for sampler in (Uniform(1), GlobalUniform(1)):
        with pytest.raises(KeyError, match=rf"{type(sampler).__name__}: eids.*likes"):
            sampler(g, {"likes": np.array([0])})


def test_global_uniform_checks_redundancy_when_built():
    with pytest.raises(TypeError, match="GlobalUniform: redundancy"):
        GlobalUniform(1, redundancy="x")
    with pytest.raises(ValueError, match="GlobalUniform: redundancy"):
        GlobalUniform(1, redundancy=-0.5)


@pytest.mark.parametrize("dtype", IDTYPES)
def test_global_uniform_on_a_multigraph_with_more_edges_than_pairs(dtype):
    # 4 copies of (0, 0) on 2 nodes: 4 edges >= 4 pairs, yet (0, 1), (1, 0), (1, 1) are
    # not edges. DGL's density estimate divides by num_edges (and breaks here: a
    # negative draw count); the non-edges must still come back.
    g = graph((np.zeros(4, dtype=dtype), np.zeros(4, dtype=dtype)), num_nodes=2)
    src, dst = global_uniform_negative_sampling(g, 3, exclude_self_loops=False, seed=0)
    pairs = set(zip(src.tolist(), dst.tolist()))
    assert pairs and pairs <= {(0, 1), (1, 0), (1, 1)}
    assert src.dtype == dtype
    full = graph((np.array([0, 0, 1, 1, 1]), np.array([0, 1, 0, 1, 1])), num_nodes=2)
    got = global_uniform_negative_sampling(full, 3, exclude_self_loops=False, seed=0)
    assert got[0].shape == (0,)  # every pair is an edge: nothing to draw


def test_the_sampler_s_sample_method_is_called_as_dgl():
    # DGL's EdgePredictionSampler calls sampler.sample(g, seed_nodes, exclude_eids); a
    # subclass that overrides sample (not sample_blocks) must be honoured
    calls = []

    class Recording(NeighborSampler):
        def sample(self, g, seed_nodes, exclude_eids=None):
            calls.append(np.asarray(exclude_eids).tolist())
            return super().sample(g, seed_nodes, exclude_eids)

    g, _, _ = _ring()
    as_edge_prediction_sampler(Recording([1], seed=0), exclude="self").sample(g, np.array([2]))
    assert calls == [[2]]


@pytest.mark.parametrize("dtype", IDTYPES)
def test_seeded_pipelines_repeat_and_epochs_differ(dtype):
    # one generator per sampler / loader, seeded once: the same seeds give the same epochs
    rng = np.random.default_rng(4)
    u, i = rng.integers(0, 8, 30).astype(dtype), rng.integers(0, 6, 30).astype(dtype)
    g = heterograph({CLICK: (u, i), CLICKED: (i, u)}, num_nodes_dict={"user": 8, "item": 6})

    def run():
        sampler = as_edge_prediction_sampler(
            NeighborSampler([2, 2], seed=1),
            exclude="reverse_types",
            reverse_etypes={"click": "clicked-by", "clicked-by": "click"},
            negative_sampler=GlobalUniform(2, seed=2),
        )
        loader = EdgeDataLoader(
            g, {"click": np.arange(30)}, sampler, batch_size=7, shuffle=True, seed=3
        )
        epochs = []
        for _ in range(2):
            out = []
            for inp, pair, neg, blocks in loader:
                assert pair.idtype == neg.idtype == g.idtype
                seeds = np.asarray(pair.edges[CLICK].data[EID])
                for b in blocks:  # the seeds and their reverses hidden on every layer
                    for c in (CLICK, CLICKED):
                        assert not np.isin(b.edges[c].data[EID], seeds).any()
                out.append(
                    (seeds.tolist(), [np.asarray(a).tolist() for a in neg.edges(etype=CLICK)])
                    + tuple(sorted((t, v.tolist()) for t, v in inp.items()))
                )
            epochs.append(out)
        return epochs

    a, b = run(), run()
    assert a == b
    assert a[0] != a[1]
