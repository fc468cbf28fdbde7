"""Parity sweep of the DGL-style sampling / data loading against DGL's sources
(``python/dgl/sampling/neighbor.py``, ``src/array/cpu/rowwise_sampling.cc``,
``dataloading/{neighbor_sampler,base,negative_sampler,dataloader}.py``): argument names,
positions and defaults, and output semantics (exact for deterministic parts; seeded
frequency bounds for random ones). Homogeneous and heterogeneous graphs, int32 / int64,
isolated nodes, multi-edges and graphs without edges."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.edge_data_loader import EdgeDataLoader
from arraygnn.edge_prediction import as_edge_prediction_sampler, find_exclude_eids
from arraygnn.graph import EID, NID, graph, heterograph, to_block
from arraygnn.negative_sampler import GlobalUniform, PerSourceUniform, Uniform
from arraygnn.sampling import (
    MultiLayerFullNeighborSampler,
    NeighborSampler,
    NodeDataLoader,
    sample_neighbors,
    select_topk,
)

IDTYPES = [np.int32, np.int64]


def _g(dtype=np.int64):
    # node 0 has in-edges from 1, 2, 3 and a multi-edge 1 -> 0; node 5 is isolated
    src = np.array([1, 2, 3, 1, 0, 4, 2], dtype=dtype)
    dst = np.array([0, 0, 0, 0, 1, 1, 3], dtype=dtype)
    g = graph((src, dst), num_nodes=6)
    g.ndata["x"] = np.arange(6.0)
    g.edata["w"] = np.array([1.0, 0.0, 3.0, 2.0, 5.0, 0.0, 1.0], np.float32)
    return g, src, dst


def _hg(dtype=np.int64):
    d = {
        ("user", "follows", "user"): (np.array([0, 1, 2], dtype), np.array([1, 2, 0], dtype)),
        ("user", "plays", "game"): (np.array([0, 1, 1, 2], dtype), np.array([0, 0, 1, 1], dtype)),
        ("game", "played-by", "user"): (
            np.array([0, 0, 1, 1], dtype),
            np.array([0, 1, 1, 2], dtype),
        ),
    }
    g = heterograph(d, num_nodes_dict={"user": 4, "game": 3})  # user 3, game 2 isolated
    for c in g.canonical_etypes:
        g.edges[c].data["w"] = np.arange(g.num_edges(c), dtype=np.float64) + 1
    return g


# ------------------------------------------------------------ sample_neighbors


@pytest.mark.parametrize("dtype", IDTYPES)
def test_sample_neighbors_positional_args_and_output_device(dtype):
    # DGL: sample_neighbors(g, nodes, fanout, edge_dir, prob, replace, copy_ndata,
    # copy_edata, _dist_training, exclude_edges, output_device)
    g, src, dst = _g(dtype)
    f = sample_neighbors(g, [2], 5, "out", "w", False, False, False, output_device="cpu")
    assert sorted(f.edata[EID].tolist()) == [6]  # edge 1 (2 -> 0) has weight 0
    assert f.edata[EID].dtype == dtype and "x" not in f.ndata and "w" not in f.edata
    f = g.sample_neighbors([0, 5], -1, "in", None, False, exclude_edges=[0])
    assert sorted(f.edata[EID].tolist()) == [1, 2, 3] and f.num_nodes() == 6
    assert f.ndata["x"] is g.ndata["x"] and f.edata["w"].tolist() == [0.0, 3.0, 2.0]


@pytest.mark.parametrize("dtype", IDTYPES)
def test_sample_neighbors_fanout_minus_one_with_replace_takes_each_edge_once(dtype):
    # DGL's CSRRowWiseSampling[Uniform]: "If num_samples is -1, select all neighbors
    # without replacement" (replace = replace && num_samples != -1), with prob too
    g, _, _ = _g(dtype)
    f = sample_neighbors(g, [0, 1, 5], -1, replace=True, seed=0)
    assert sorted(f.edata[EID].tolist()) == [0, 1, 2, 3, 4, 5]
    f = sample_neighbors(g, [0, 1, 5], -1, prob="w", replace=True, seed=0)
    assert sorted(f.edata[EID].tolist()) == [0, 2, 3, 4]  # positive weights, once each


@pytest.mark.parametrize("replace", [False, True])
def test_sample_neighbors_zero_probability_never_picked(replace):
    g, _, _ = _g(np.int32)
    w = g.edata["w"].astype(np.float64)
    counts = np.zeros(7)
    runs = 400
    rng = np.random.default_rng(3)
    for _ in range(runs):
        e = sample_neighbors(g, [0], 1, prob="w", replace=replace, seed=rng).edata[EID]
        assert e.shape == (1,)
        counts[e] += 1
    assert counts[1] == 0 and counts[4:].sum() == 0
    p = w[:4] / w[:4].sum()
    assert (np.abs(counts[:4] / runs - p) <= 6 * np.sqrt(p * (1 - p) / runs) + 1e-9).all()
    # a boolean mask works as prob (DGL's mask)
    g.edata["m"] = np.array([False, True, False, False, True, True, False])
    e = sample_neighbors(g, [0, 1], 5, prob="m", replace=replace, seed=0).edata[EID]
    assert set(e.tolist()) <= {1, 4, 5}


def test_sample_neighbors_heterograph_fanout_dict_and_seed_types():
    g = _hg(np.int32)
    f = sample_neighbors(
        g, {"user": [1, 3]}, {"follows": -1, "plays": 1, ("game", "played-by", "user"): 0}
    )
    assert f.canonical_etypes == g.canonical_etypes
    assert f.edges[("user", "follows", "user")].data[EID].tolist() == [0]
    assert f.num_edges("plays") == 0 and f.num_edges("played-by") == 0  # no game seeds, 0
    assert f.num_nodes("user") == 4 and f.num_nodes("game") == 3
    with pytest.raises(ValueError, match="each edge type"):
        sample_neighbors(g, {"user": [0]}, {"follows": 1})
    with pytest.raises(ValueError, match="empty"):
        sample_neighbors(g, {}, 1)
    f = sample_neighbors(g, {"game": [0, 2]}, 1, edge_dir="out", seed=0)
    assert f.num_edges("played-by") == 1 and f.num_edges("plays") == 0


@pytest.mark.parametrize("dtype", IDTYPES)
def test_sample_neighbors_without_edges(dtype):
    g = graph((np.zeros(0, dtype), np.zeros(0, dtype)), num_nodes=3)
    for replace in (False, True):
        f = sample_neighbors(g, [0, 2], 2, replace=replace, seed=0)
        assert f.num_edges() == 0 and f.num_nodes() == 3 and f.edata[EID].dtype == dtype


# ------------------------------------------------------------ select_topk


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("edge_dir", ["in", "out"])
@pytest.mark.parametrize("ascending", [False, True])
def test_select_topk_exact(dtype, edge_dir, ascending):
    g, src, dst = _g(dtype)
    w = g.edata["w"]
    # positional as DGL: (g, k, weight, nodes, edge_dir, ascending, copy_ndata, copy_edata)
    f = select_topk(g, 2, "w", None, edge_dir, ascending, True, False, output_device="cpu")
    key = dst if edge_dir == "in" else src
    expect = []
    for v in range(6):
        e = np.nonzero(key == v)[0]
        order = sorted(e, key=lambda i: (w[i] if ascending else -w[i], i))
        expect += order[:2]
    assert sorted(f.edata[EID].tolist()) == sorted(int(i) for i in expect)
    assert "w" not in f.edata and f.ndata["x"] is g.ndata["x"]


# ------------------------------------------------------------ block samplers


@pytest.mark.parametrize("dtype", IDTYPES)
def test_neighbor_sampler_dgl_arguments(dtype):
    g, _, _ = _g(dtype)
    # DGL: NeighborSampler(fanouts, edge_dir, prob, mask, replace, prefetch_node_feats,
    # prefetch_labels, prefetch_edge_feats, output_device, fused)
    s = NeighborSampler([2, 2], "in", "w", None, False, ["x"], None, None, None, True)
    inp, out, blocks = s.sample(g, np.array([0], dtype), None)
    assert out.tolist() == [0] and blocks[-1].dstdata[NID].tolist() == [0]
    assert set(blocks[-1].edata[EID].tolist()) <= {0, 2, 3}
    assert inp.tolist() == blocks[0].srcdata[NID].tolist() and inp.dtype == dtype
    for b in blocks:  # dst nodes first among the src nodes
        n = b.num_dst_nodes()
        assert b.srcdata[NID][:n].tolist() == b.dstdata[NID].tolist()
        assert b.srcdata["x"].tolist() == g.ndata["x"][b.srcdata[NID]].tolist()
    s = NeighborSampler([1], mask="w", output_device=None, fused=False, seed=0)
    assert s.prob == "w"
    with pytest.raises(ValueError):
        NeighborSampler([1], prob="w", mask="w")
    full = MultiLayerFullNeighborSampler(2, replace=False, output_device=None)
    _, _, blocks = full.sample_blocks(g, np.array([0], dtype))
    assert [b.num_edges() for b in blocks] == [7, 4]


def test_to_block_include_dst_in_src_and_src_nodes():
    fr = graph((np.array([3, 0, 3]), np.array([1, 1, 2])), num_nodes=5)
    fr.edata[EID] = np.array([7, 8, 9])
    b = to_block(fr, np.array([2, 1]), include_dst_in_src=False)
    assert b.srcdata[NID].tolist() == [3, 0] and b.dstdata[NID].tolist() == [2, 1]
    assert b.edata[EID].tolist() == [7, 8, 9]
    b = to_block(fr, np.array([2, 1]), src_nodes=np.array([2, 1, 0, 3]))
    assert b.srcdata[NID].tolist() == [2, 1, 0, 3]
    assert b.edges()[0].tolist() == [3, 2, 3] and b.edges()[1].tolist() == [1, 1, 0]


# ------------------------------------------------------------ DataLoader


def test_node_data_loader_dict_indices_follow_the_dict_order():
    # DGL's TensorizedDataset: mapping_keys = list(indices.keys()); the ids are
    # concatenated in that order and each batch is grouped by type in that order
    g = _hg()
    loader = NodeDataLoader(
        g, {"user": [0, 1, 2], "game": [0, 1]}, MultiLayerFullNeighborSampler(1), batch_size=2
    )
    outs = [out for _, out, _ in loader]
    assert len(loader) == 3
    assert [{k: v.tolist() for k, v in o.items()} for o in outs] == [
        {"user": [0, 1]}, {"user": [2], "game": [0]}, {"game": [1]},
    ]  # fmt: skip
    assert list(outs[1]) == ["user", "game"]
    loader = NodeDataLoader(
        g, {"game": [0], "user": [3]}, NeighborSampler([1], seed=0), batch_size=1,
        drop_last=True,
    )  # fmt: skip
    assert [list(o) for _, o, _ in loader] == [["game"], ["user"]]


@pytest.mark.parametrize("dtype", IDTYPES)
def test_edge_prediction_sampler_forms_and_exclusion(dtype):
    g, src, dst = _g(dtype)
    rev = np.array([4, 6, 5, 3, 0, 2, 1])  # an arbitrary reverse map
    sampler = as_edge_prediction_sampler(
        NeighborSampler([-1, -1]), exclude="reverse_id", reverse_eids=rev,
        negative_sampler=Uniform(2, seed=0),
    )  # fmt: skip
    loader = EdgeDataLoader(g, np.arange(7, dtype=dtype), sampler, batch_size=3)
    batches = list(loader)
    assert len(batches) == len(loader) == 3
    for inp, pair, neg, blocks in batches:
        seeds = pair.edata[EID]
        nid = pair.ndata[NID]
        assert nid[pair.edges()[0]].tolist() == src[seeds].tolist()
        assert nid[pair.edges()[1]].tolist() == dst[seeds].tolist()
        assert neg.num_edges() == 2 * seeds.shape[0]
        assert nid[neg.edges()[0]].tolist() == np.repeat(src[seeds], 2).tolist()
        assert blocks[-1].dstdata[NID].tolist() == nid.tolist()
        hidden = set(seeds.tolist()) | set(rev[seeds].tolist())
        for b in blocks:
            assert not hidden & set(b.edata[EID].tolist())
        assert inp.tolist() == blocks[0].srcdata[NID].tolist()
    # without a negative sampler: (input_nodes, pair_graph, blocks)
    out = as_edge_prediction_sampler(NeighborSampler([1]), exclude="self").sample(g, [0, 4])
    assert len(out) == 3 and not {0, 4} & set(out[2][0].edata[EID].tolist())


def test_find_exclude_eids_reverse_types_chain_as_dgl():
    g = _hg()
    fw, pl, pb = ("user", "follows", "user"), ("user", "plays", "game"), (
        "game", "played-by", "user")  # fmt: skip
    # DGL updates the dict in place while walking the map, so the pair (plays <-> played-by)
    # excludes the union of both types' seed ids from both
    out = find_exclude_eids(
        g, {"plays": np.array([0]), "played-by": np.array([2])}, "reverse_types",
        reverse_etypes={"plays": "played-by", "played-by": "plays"},
    )  # fmt: skip
    assert out[pl].tolist() == [0, 2] and out[pb].tolist() == [0, 2] and fw not in out
    assert find_exclude_eids(g, {fw: [1]}, lambda e: {fw: np.array([2])})[fw].tolist() == [2]
    assert find_exclude_eids(g, {fw: [1]}, None) is None
    with pytest.raises(ValueError):
        find_exclude_eids(g, {fw: [1]}, "nope")


@pytest.mark.parametrize("dtype", IDTYPES)
def test_negative_samplers(dtype):
    g, src, dst = _g(dtype)
    s, d = PerSourceUniform(3, seed=0)(g, np.array([4, 0], dtype))
    assert s.tolist() == [0, 0, 0, 1, 1, 1] and s.dtype == dtype and d.dtype == dtype
    assert ((d >= 0) & (d < 6)).all()
    for replace in (False, True):
        s, d = GlobalUniform(2, True, replace, seed=1)(g, np.arange(3))
        assert 0 < s.shape[0] <= 6 and not (s == d).any()
        assert not g.has_edges_between(s, d).any()
        if not replace:
            keys = s.astype(np.int64) * 6 + d
            assert (np.diff(keys) > 0).all()
    hg = _hg(dtype)
    out = Uniform(1, seed=0)(hg, {"plays": np.array([3])})
    pl = ("user", "plays", "game")
    assert list(out) == [pl] and out[pl][0].tolist() == [2]
