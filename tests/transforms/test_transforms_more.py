"""GDC, LaplacianLambdaMax, RemoveTrainingClasses, AddMetaPaths, AddRandomMetaPaths,
RootedEgoNets, RootedRWSubgraph, FeaturePropagation and HalfHop against PyG 2.8's on the
same arrays (random ones with PyG's draws patched to hand out ours), plus their
guarantees and errors."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest
from _structure_helpers import (
    FLOATS,
    IDS,
    assert_unchanged,
    hetero_to_pyg,
    random_graph,
    run,
    snapshot,
    to_pyg,
)

import arraygnn.transforms as T
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms.rooted_subgraph import RootedSubgraphData
from arraygnn.utils import coalesce, get_ppr, to_undirected

pyg_T = pytest.importorskip("torch_geometric.transforms")
torch = pytest.importorskip("torch")


def _connected(seed: int, n: int = 12, e: int = 20, idtype=np.int64, undirected=True) -> Data:
    """A ring plus random chords (every node reached), optionally undirected."""
    rng = np.random.default_rng(seed)
    ring = np.stack([np.arange(n), (np.arange(n) + 1) % n])
    ei = np.concatenate([ring, rng.integers(0, n, (2, e))], axis=1)
    if undirected:
        ei = to_undirected(ei, num_nodes=n)
    return Data(edge_index=ei.astype(idtype), num_nodes=n)


# ============================================================================ GDC
DIFFUSIONS = [
    dict(method="ppr", alpha=0.15),
    dict(method="heat", t=3.0),
    dict(method="coeff", coeffs=[0.4, 0.3, 0.2, 0.1]),
]


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("diffusion", DIFFUSIONS, ids=lambda d: d["method"])
@pytest.mark.parametrize("norms", [("sym", "col"), ("col", "row"), ("row", None), ("sym", "sym")])
def test_gdc_exact_threshold_matches_pyg(idtype, diffusion, norms):
    sparsify = dict(method="threshold", avg_degree=3)
    graphs = [random_graph(s, idtype=idtype) for s in range(3)]
    graphs.append(random_graph(5, n=6, e=0, idtype=idtype))  # no edges: loops only
    graphs.append(_connected(1, idtype=idtype, undirected=False))  # heat via expm
    for d in graphs:
        kw = dict(
            normalization_in=norms[0],
            normalization_out=norms[1],
            diffusion_kwargs=diffusion,
            sparsification_kwargs=sparsify,
        )
        out = run(
            T.GDC(**kw), pyg_T.GDC(**kw), d, keys=["edge_index", "edge_attr"], rtol=1e-4, atol=1e-6
        )
        assert out.edge_attr.dtype == np.float32


@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("loop", [1.0, 2.5, None])
def test_gdc_exact_weighted_and_eps(fdtype, loop):
    d = _connected(3)
    d.edge_attr = np.random.default_rng(0).uniform(0.5, 2.0, d.num_edges).astype(fdtype)
    for diffusion in DIFFUSIONS[:2]:
        kw = dict(
            self_loop_weight=loop,
            diffusion_kwargs=diffusion,
            sparsification_kwargs=dict(method="threshold", eps=0.02),
        )
        out = run(
            T.GDC(**kw), pyg_T.GDC(**kw), d, keys=["edge_index", "edge_attr"], rtol=1e-4, atol=1e-6
        )
        assert out.edge_attr.dtype == fdtype


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("diffusion", DIFFUSIONS[:2], ids=lambda d: d["method"])
def test_gdc_exact_topk_matches_pyg(dim, diffusion):
    for seed in range(2):
        d = _connected(seed)  # no zero entries: no ties PyG's argsort may order otherwise
        kw = dict(
            diffusion_kwargs=diffusion, sparsification_kwargs=dict(method="topk", k=4, dim=dim)
        )
        run(T.GDC(**kw), pyg_T.GDC(**kw), d, keys=["edge_index", "edge_attr"], rtol=1e-4, atol=1e-6)


def _ours_as_pygs_get_ppr(edge_index, alpha=0.2, eps=1e-5, target=None, num_nodes=None):
    ei, w = get_ppr(edge_index.numpy(), alpha=alpha, eps=eps, num_nodes=num_nodes)
    return torch.from_numpy(ei), torch.from_numpy(w)


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("norm_in", ["sym", "col", "row"])
@pytest.mark.parametrize("loop", [1.0, None])
def test_gdc_approx_ppr_matches_pyg(monkeypatch, idtype, norm_in, loop):
    import torch_geometric.transforms.gdc as pyg_gdc

    kw = dict(
        self_loop_weight=loop,
        normalization_in=norm_in,
        exact=False,
        diffusion_kwargs=dict(method="ppr", alpha=0.15, eps=1e-4),
        sparsification_kwargs=dict(method="threshold", avg_degree=4),
    )
    graphs = [_connected(s, n=30, e=60, idtype=idtype) for s in range(2)]
    graphs += [random_graph(2, idtype=idtype)]
    for d in graphs:
        # against PyG as it is, nothing cut: equal to the push tolerance (PyG's CSR sort is
        # unstable, so its push visits a node's edges in another order)
        keep_all = dict(
            kw, sparsification_kwargs=dict(method="threshold", eps=0.0), normalization_out=None
        )
        ours = T.GDC(**keep_all)(d)
        theirs = pyg_T.GDC(**keep_all)(to_pyg(d))
        dense_ours = np.zeros((d.num_nodes, d.num_nodes))
        dense_theirs = np.zeros_like(dense_ours)
        np.add.at(dense_ours, tuple(ours.edge_index.astype(np.int64)), ours.edge_attr)
        np.add.at(dense_theirs, tuple(theirs.edge_index.numpy()), theirs.edge_attr.numpy())
        np.testing.assert_allclose(dense_ours, dense_theirs, atol=5e-3)
    # and exactly PyG's pipeline when PyG's push is handed our push's vectors
    monkeypatch.setattr(pyg_gdc, "get_ppr", _ours_as_pygs_get_ppr)
    for d in graphs:
        run(T.GDC(**kw), pyg_T.GDC(**kw), d, keys=["edge_index", "edge_attr"], rtol=1e-5, atol=1e-7)


def test_gdc_errors_and_input_untouched():
    d = _connected(0)
    with pytest.raises(ValueError, match="GDC: normalization_in"):
        T.GDC(normalization_in="rw")
    with pytest.raises(ValueError, match="GDC: normalization_out"):
        T.GDC(normalization_out="bad")
    with pytest.raises(ValueError, match="self_loop_weight"):
        T.GDC(self_loop_weight=2.0, exact=False)
    with pytest.raises(ValueError, match="unknown"):
        T.GDC(diffusion_kwargs=dict(method="nope"))(d)
    with pytest.raises(ValueError, match="needs 'alpha'"):
        T.GDC(diffusion_kwargs=dict(method="ppr"))(d)
    with pytest.raises(NotImplementedError, match="heat"):
        T.GDC(exact=False, diffusion_kwargs=dict(method="heat", t=1.0))(d)
    with pytest.raises(NotImplementedError, match="topk"):
        T.GDC(
            exact=False,
            diffusion_kwargs=dict(method="ppr", alpha=0.1, eps=1e-3),
            sparsification_kwargs=dict(method="topk", k=2, dim=0),
        )(d)
    with pytest.raises(ValueError, match="dim 0 or 1"):
        T.GDC(sparsification_kwargs=dict(method="topk", k=2, dim=2))(d)
    bad = Data(edge_index=d.edge_index, edge_attr=np.ones((d.num_edges, 2)), num_nodes=12)
    with pytest.raises(ValueError, match=r"GDC: edge_attr must be one float weight"):
        T.GDC()(bad)
    with pytest.raises(ValueError, match="out of step"):
        T.GDC()(Data(edge_index=d.edge_index, edge_weight=np.ones(d.num_edges), num_nodes=12))
    with pytest.raises(TypeError, match="GDC"):
        T.GDC()(HeteroData())
    snap = snapshot(d)
    T.GDC()(d)
    assert_unchanged(d, snap)


# ============================================================================ LaplacianLambdaMax
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("norm", [None, "sym", "rw"])
@pytest.mark.parametrize("undirected", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_laplacian_lambda_max_matches_pyg(idtype, norm, undirected, weighted):
    for seed in range(2):
        d = _connected(seed, idtype=idtype, undirected=True)
        if weighted:  # symmetric weights keep the Laplacian symmetric
            rng = np.random.default_rng(seed)
            n = d.num_nodes
            sym = rng.uniform(0.5, 2.0, (n, n))
            sym = sym + sym.T
            d.edge_attr = sym[d.edge_index[0], d.edge_index[1]].astype(np.float32)
        ours = T.LaplacianLambdaMax(norm, undirected)(d)
        theirs = pyg_T.LaplacianLambdaMax(norm, undirected)(to_pyg(d))
        assert isinstance(ours.lambda_max, float)
        assert ours.lambda_max == pytest.approx(theirs.lambda_max, rel=1e-4)


def test_laplacian_lambda_max_small_graphs_and_errors():
    two = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
    assert T.LaplacianLambdaMax()(two).lambda_max == pytest.approx(2.0)
    assert T.LaplacianLambdaMax("rw")(two).lambda_max == pytest.approx(2.0)
    assert (
        T.LaplacianLambdaMax()(Data(edge_index=np.zeros((2, 0), int), num_nodes=0)).lambda_max == 0
    )
    # an edge_attr that is not one weight per edge is ignored, as PyG
    d = _connected(0)
    d.edge_attr = np.ones((d.num_edges, 2), np.float32)
    assert T.LaplacianLambdaMax("sym", True)(d).lambda_max == pytest.approx(
        pyg_T.LaplacianLambdaMax("sym", True)(to_pyg(d)).lambda_max, rel=1e-4
    )
    with pytest.raises(ValueError, match="LaplacianLambdaMax: normalization"):
        T.LaplacianLambdaMax("col")
    with pytest.raises(TypeError, match="is_undirected"):
        T.LaplacianLambdaMax(None, 1)


# ============================================================================ RemoveTrainingClasses
def test_remove_training_classes_matches_pyg():
    rng = np.random.default_rng(0)
    for ydtype in (np.int64, np.int32):
        d = Data(
            x=np.zeros((20, 1), np.float32),
            y=rng.integers(0, 4, 20).astype(ydtype),
            train_mask=rng.random(20) < 0.7,
        )
        for classes in ([], [1], [0, 3], [7]):
            run(T.RemoveTrainingClasses(classes), pyg_T.RemoveTrainingClasses(classes), d)
    with pytest.raises(ValueError, match="RemoveTrainingClasses: data has no array 'train_mask'"):
        T.RemoveTrainingClasses([1])(Data(y=np.zeros(3)))
    with pytest.raises(TypeError, match="classes"):
        T.RemoveTrainingClasses([1.5])
    with pytest.raises(ValueError, match="boolean"):
        T.RemoveTrainingClasses([1])(Data(y=np.zeros(3), train_mask=np.zeros(3)))


# ============================================================================ metapaths
def _hetero(seed: int, idtype=np.int64, weights: bool = False, empty: bool = False) -> HeteroData:
    rng = np.random.default_rng(seed)
    d = HeteroData()
    sizes = {"author": 7, "paper": 9, "venue": 3, "lonely": 2}
    for k, v in sizes.items():
        d[k].x = rng.standard_normal((v, 2)).astype(np.float32)
    for (s, r, t), e in [
        (("author", "writes", "paper"), 16),
        (("paper", "rev_writes", "author"), 16),
        (("paper", "in", "venue"), 0 if empty else 9),
        (("venue", "has", "paper"), 9),
        (("paper", "cites", "paper"), 12),
    ]:
        ei = np.stack([rng.integers(0, sizes[s], e), rng.integers(0, sizes[t], e)])
        if e:
            ei[:, 1] = ei[:, 0]  # a parallel edge
        ei = ei[:, np.argsort(ei[0], kind="stable")]  # sorted by row (PyG sorts too)
        d[s, r, t].edge_index = ei.astype(idtype)
        if weights:
            d[s, r, t].edge_weight = rng.uniform(0.5, 2.0, e).astype(np.float32)
    return d


METAPATHS = [
    [("author", "writes", "paper"), ("paper", "rev_writes", "author")],
    [("author", "writes", "paper"), ("paper", "in", "venue")],
    [("venue", "paper"), ("paper", "cites", "paper"), ("paper", "rev_writes", "author")],
]


def _merged_for_pyg(d: HeteroData) -> HeteroData:
    """``d`` with each edge type's parallel edges merged, ``edge_weight`` their summed
    weights (ones where none): the same weighted products. PyG's ``EdgeIndex.matmul``
    multiplies torch CSR matrices, whose invariants parallel edges break (pairs lost or
    repeated from run to run, or a segfault)."""
    out = d.clone()
    for store in out.edge_stores:
        ei = store.edge_index
        w = store.edge_weight if "edge_weight" in store else np.ones(ei.shape[1], np.float32)
        store.edge_index, store.edge_weight = coalesce(ei, w, max(store.size()))
    return out


def _assert_hetero_equal(
    ours: HeteroData, theirs, weights: bool, merge: bool = False, given: Any = None
) -> None:
    """Same node and edge types, equal edges; ``merge``: PyG's metapath edge lists merged
    first (its sparse product leaves a row's pairs unsorted); ``given``: the input, whose
    edge types ``ours`` keeps (PyG got them merged)."""
    assert [tuple(t) for t in ours.edge_types] == [tuple(t) for t in theirs.edge_types]
    assert list(ours.node_types) == list(theirs.node_types)
    for key in theirs.edge_types:
        ei = theirs[key].edge_index.numpy()
        if given is not None and "metapath" not in key[1]:
            ei = given[key].edge_index
        w = theirs[key].edge_weight.numpy() if weights and "metapath" in key[1] else None
        if merge and "metapath" in key[1]:
            n = max(ours[key[0]].num_nodes, ours[key[-1]].num_nodes)
            ei, w = coalesce(ei, w if w is not None else np.ones(ei.shape[1], np.float32), n)
        np.testing.assert_array_equal(ours[key].edge_index, ei)
        if weights and "metapath" in key[1]:
            assert ours[key].edge_weight.dtype == w.dtype
            np.testing.assert_allclose(ours[key].edge_weight, w, rtol=1e-6)
    assert set(ours.metapath_dict) == set(theirs.metapath_dict)


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "flags",
    [(False, False, False), (True, False, False), (True, True, False), (True, False, True)],
)
def test_add_metapaths_matches_pyg(idtype, weighted, flags):
    for seed, weights, empty in [(0, False, False), (1, True, False), (2, True, True)]:
        d = _hetero(seed, idtype, weights=weights, empty=empty)
        kw = dict(
            drop_orig_edge_types=flags[0],
            keep_same_node_type=flags[1],
            drop_unconnected_node_types=flags[2],
            weighted=weighted,
        )
        snap = snapshot(d)
        ours = T.AddMetaPaths(METAPATHS, **kw)(d)
        assert_unchanged(d, snap)
        theirs = pyg_T.AddMetaPaths(METAPATHS, **kw)(hetero_to_pyg(_merged_for_pyg(d)))
        _assert_hetero_equal(ours, theirs, weighted, merge=True, given=d)
        key = ("author", "metapath_0", "author")
        assert ours[key].edge_index.dtype == idtype
        assert ours.metapath_dict[key] == METAPATHS[0]


@pytest.mark.parametrize("max_sample", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_add_metapaths_max_sample_guarantees(max_sample, weighted):
    # PyG samples its unmerged product list (its order), so the draws cannot be replayed;
    # checked: a subset of the full metapath edges, reproducible, about max_sample per row
    for seed in range(3):
        d = _hetero(seed, weights=True)
        full = T.AddMetaPaths(METAPATHS, weighted=weighted)(d)
        a = T.AddMetaPaths(METAPATHS, max_sample=max_sample, weighted=weighted, seed=seed)(d)
        b = T.AddMetaPaths(METAPATHS, max_sample=max_sample, weighted=weighted, seed=seed)(d)
        for key in full.edge_types:
            if "metapath" not in key[1]:
                continue
            np.testing.assert_array_equal(a[key].edge_index, b[key].edge_index)
            assert set(map(tuple, a[key].edge_index.T.tolist())) <= set(
                map(tuple, full[key].edge_index.T.tolist())
            )
    # the last step keeps each of a row's d entries with probability max_sample / d
    rng = np.random.default_rng(0)
    d = HeteroData()
    d["a"].num_nodes, d["b"].num_nodes = 200, 50
    d["a", "to", "b"].edge_index = np.stack([rng.integers(0, 200, 4000), rng.integers(0, 50, 4000)])
    d["b", "to", "a"].edge_index = np.stack([rng.integers(0, 50, 4000), rng.integers(0, 200, 4000)])
    out = T.AddMetaPaths([[("a", "to", "b"), ("b", "to", "a")]], max_sample=5, seed=1)(d)
    per_row = np.bincount(out["a", "metapath_0", "a"].edge_index[0], minlength=200)
    assert 3.5 < per_row.mean() < 6.5


def _patch_walk_draws(monkeypatch, seed):
    draw = np.random.default_rng(seed)
    monkeypatch.setattr(
        torch, "randperm", lambda n, *a, **k: torch.from_numpy(draw.permutation(n).astype(np.int64))
    )
    monkeypatch.setattr(torch, "rand", lambda size, *a, **k: torch.from_numpy(draw.random(size)))


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("walks", [1, [3, 2, 1]])
@pytest.mark.parametrize("ratio", [1.0, 0.5])
def test_add_random_metapaths_matches_pyg_with_our_draws(monkeypatch, idtype, walks, ratio):
    compared = 0
    for seed in range(4):
        d = _hetero(seed, idtype)
        kw = dict(walks_per_node=walks, sample_ratio=ratio, drop_orig_edge_types=seed == 1)
        ours = T.AddRandomMetaPaths(METAPATHS, seed=seed, **kw)(d)
        with monkeypatch.context() as m:
            _patch_walk_draws(m, seed)
            try:
                theirs = pyg_T.AddRandomMetaPaths(METAPATHS, **kw)(hetero_to_pyg(d))
            except IndexError:  # PyG squeezes a step with one walker to 0-d and fails
                continue
        _assert_hetero_equal(ours, theirs, False)
        compared += 1
    assert compared >= 2


def test_random_metapaths_guarantees():
    d = _hetero(4)
    out = T.AddRandomMetaPaths([METAPATHS[0]], walks_per_node=5, seed=0)(d)
    pairs = out["author", "metapath_0", "author"].edge_index
    exact = T.AddMetaPaths([METAPATHS[0]])(d)["author", "metapath_0", "author"].edge_index
    # every walked pair is a metapath pair; with many walks most pairs are found
    assert set(map(tuple, pairs.T.tolist())) <= set(map(tuple, exact.T.tolist()))
    # one walker left (PyG fails on it): fine here
    one = T.AddRandomMetaPaths([METAPATHS[0]], sample_ratio=0.1, seed=0)(d)
    assert one["author", "metapath_0", "author"].edge_index.shape[1] <= 1
    # one path edge type empty: no walk gets through
    out = T.AddRandomMetaPaths([METAPATHS[1]], seed=0)(_hetero(0, empty=True))
    assert out["author", "metapath_0", "venue"].edge_index.shape == (2, 0)
    # the same seed, the same edges
    a = T.AddRandomMetaPaths(METAPATHS, seed=3)(d)
    b = T.AddRandomMetaPaths(METAPATHS, seed=3)(d)
    for key in a.edge_types:
        np.testing.assert_array_equal(a[key].edge_index, b[key].edge_index)


def test_metapath_errors():
    d = _hetero(0)
    with pytest.raises(ValueError, match="AddMetaPaths: invalid metapath"):
        T.AddMetaPaths([[("author", "writes", "paper")]])
    with pytest.raises(ValueError, match="invalid sequence of node types"):
        T.AddMetaPaths([[("author", "writes", "paper"), ("venue", "has", "paper")]])
    with pytest.raises(ValueError, match="not present"):
        T.AddMetaPaths([[("author", "x", "paper"), ("paper", "rev_writes", "author")]])(d)
    with pytest.raises(TypeError, match="HeteroData"):
        T.AddMetaPaths(METAPATHS)(Data(x=np.zeros((2, 1))))
    with pytest.raises(ValueError, match="max_sample"):
        T.AddMetaPaths(METAPATHS, max_sample=0)
    with pytest.raises(ValueError, match="walks_per_node has 2 entries for 3"):
        T.AddRandomMetaPaths(METAPATHS, walks_per_node=[1, 2])
    with pytest.raises(ValueError, match="sample_ratio"):
        T.AddRandomMetaPaths(METAPATHS, sample_ratio=1.5)
    with pytest.raises(TypeError, match="seed"):
        T.AddRandomMetaPaths(METAPATHS, seed="x")


# ============================================================================ rooted subgraphs
LAYOUT = ["sub_edge_index", "n_id", "e_id", "n_sub_batch", "e_sub_batch"]


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("hops", [0, 1, 2, 3])
def test_rooted_ego_nets_match_pyg(idtype, hops):
    for d in [random_graph(s, idtype=idtype) for s in range(3)] + [
        random_graph(5, n=6, e=0, idtype=idtype)
    ]:
        d.edge_attr = np.arange(d.num_edges, dtype=np.float32)
        out = run(T.RootedEgoNets(hops), pyg_T.RootedEgoNets(hops), d)
        assert isinstance(out, RootedSubgraphData)
        assert out.sub_edge_index.dtype == idtype
        theirs = pyg_T.RootedEgoNets(hops)(to_pyg(d)).map_data()
        mapped = out.map_data()
        for key in ("x", "edge_attr", "edge_index", "n_sub_batch"):
            np.testing.assert_array_equal(mapped[key], theirs[key].numpy())
        assert mapped.num_nodes == theirs.num_nodes


def test_rooted_subgraph_data_collates_as_pygs():
    from torch_geometric.data import Batch as PygBatch

    from arraygnn.batch import Batch

    graphs = [random_graph(s, n=5 + s, e=6) for s in range(3)]
    ours = Batch.from_data_list([T.RootedEgoNets(1)(g) for g in graphs])
    theirs = PygBatch.from_data_list([pyg_T.RootedEgoNets(1)(to_pyg(g)) for g in graphs])
    for key in LAYOUT + ["edge_index"]:
        np.testing.assert_array_equal(ours[key], theirs[key].numpy())


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("repeat", [1, 3])
def test_rooted_rw_subgraph_matches_pyg_with_our_walks(monkeypatch, idtype, repeat):
    # PyG walks with pyg-lib's kernel (not installable here): hand it our walks
    for seed, d in enumerate([random_graph(s, idtype=idtype) for s in range(3)]):
        ours_t = T.RootedRWSubgraph(4, repeat, seed=seed)
        walker = T.RootedRWSubgraph(4, repeat, seed=seed)
        _, walk = walker.walks(d.edge_index, d.num_nodes)
        fake = types.SimpleNamespace(random_walk=lambda *a, w=walk: torch.from_numpy(w))
        monkeypatch.setattr(torch.ops, "pyg", fake, raising=False)
        run(ours_t, pyg_T.RootedRWSubgraph(4, repeat), d)


def test_rooted_rw_walks_follow_edges():
    d = random_graph(7, n=10, e=25)
    start, walk = T.RootedRWSubgraph(6, 2, seed=0).walks(d.edge_index, 10)
    np.testing.assert_array_equal(start, np.repeat(np.arange(10), 2))
    np.testing.assert_array_equal(walk[:, 0], start)
    edges = set(map(tuple, d.edge_index.T.tolist()))
    has_out = np.bincount(d.edge_index[0], minlength=10) > 0
    for a, b in zip(walk[:, :-1].ravel(), walk[:, 1:].ravel()):
        assert (a, b) in edges if has_out[a] else a == b
    out = T.RootedRWSubgraph(3, seed=1)(d)
    assert set(out.n_id[out.n_sub_batch == 9].tolist()) == {9}  # isolated: itself only


def test_rooted_errors():
    d = random_graph(0)
    d.y = np.zeros(d.num_nodes)
    with pytest.raises(ValueError, match=r"RootedEgoNets: data attribute\(s\) \['y'\]"):
        T.RootedEgoNets(1)(d)
    out = T.RootedEgoNets(1, node_attrs=["x", "y"])(d)
    assert out.map_data(node_attrs=["x", "y"]).y.shape == (out.n_id.shape[0],)
    with pytest.raises(ValueError, match="num_hops"):
        T.RootedEgoNets(-1)
    with pytest.raises(TypeError, match="walk_length"):
        T.RootedRWSubgraph(2.5)


# ============================================================================ FeaturePropagation
@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("weight", [None, "edge_weight", "edge_attr"])
def test_feature_propagation_matches_pyg(fdtype, idtype, weight):
    for seed, d in enumerate([random_graph(s, idtype=idtype, fdtype=fdtype) for s in range(3)]):
        rng = np.random.default_rng(seed)
        missing = rng.random(d.x.shape) < 0.4
        d.x = np.where(missing, np.nan, d.x).astype(fdtype)
        if weight is not None:
            d[weight] = rng.uniform(0.5, 2.0, d.num_edges).astype(fdtype)
        mask_t = torch.from_numpy(missing)
        for iters in (0, 1, 7):
            if weight is None and fdtype == np.float64:  # PyG's float32 ones fail on float64 x
                ours = T.FeaturePropagation(missing, iters)(d)
                p = to_pyg(d)
                p.x = p.x.float()
                theirs = pyg_T.FeaturePropagation(mask_t, iters)(p).x.numpy()
                assert ours.x.dtype == np.float64
                np.testing.assert_allclose(ours.x, theirs, rtol=1e-5, atol=1e-6)
                continue
            run(
                T.FeaturePropagation(missing, iters),
                pyg_T.FeaturePropagation(mask_t, iters),
                d,
                rtol=1e-5,
                atol=1e-6,
            )


def test_feature_propagation_errors():
    d = random_graph(0)
    with pytest.raises(TypeError, match="FeaturePropagation: missing_mask must be a boolean"):
        T.FeaturePropagation(np.zeros((9, 3)))
    with pytest.raises(ValueError, match="missing_mask's shape"):
        T.FeaturePropagation(np.zeros((9, 2), bool))(d)
    assert "missing_features=50.0%" in repr(T.FeaturePropagation(np.eye(2, dtype=bool)))


# ============================================================================ HalfHop
@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("alpha,p", [(0.5, 1.0), (0.2, 0.5), (1.0, 0.0)])
def test_half_hop_matches_pyg_with_our_draws(monkeypatch, fdtype, idtype, alpha, p):
    graphs = [random_graph(s, idtype=idtype, fdtype=fdtype) for s in range(3)]
    graphs.append(random_graph(5, n=6, e=0, idtype=idtype, fdtype=fdtype))
    for seed, d in enumerate(graphs):
        draw = np.random.default_rng(seed)
        monkeypatch.setattr(torch, "rand", lambda n, *a, d=draw, **k: torch.from_numpy(d.random(n)))
        out = run(T.HalfHop(alpha, p, seed=seed), pyg_T.HalfHop(alpha, p), d)
        assert out.x.dtype == fdtype


def test_half_hop_guarantees_and_errors():
    d = random_graph(1, n=8, e=15)
    d.y = np.arange(8)
    out = T.HalfHop(seed=0)(Data(**{k: v for k, v in d.items() if k != "y"}, num_nodes=8))
    n_slow = int(out.slow_node_mask.sum())
    assert out.num_nodes == 8 + n_slow == out.x.shape[0]
    assert int(out.edge_index.max()) < out.num_nodes
    with pytest.raises(ValueError, match="HalfHop: augmentation is not supported"):
        T.HalfHop()(Data(x=d.x, edge_index=d.edge_index, edge_weight=np.ones(d.num_edges)))
    with pytest.raises(ValueError, match="interpolation factor"):
        T.HalfHop(alpha=1.5)
    with pytest.raises(ValueError, match="ratio of half-hopped edges"):
        T.HalfHop(p=-0.1)
