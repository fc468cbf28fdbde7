"""Feature, degree, diffusion, positional-encoding and mask transforms against PyG 2.8's,
and the HeteroData cases of the structure transforms."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _structure_helpers import (
    FLOATS,
    IDS,
    assert_unchanged,
    empty_graph,
    graphs,
    hetero_to_pyg,
    random_graph,
    run,
    snapshot,
    to_pyg,
)

import arraygnn.transforms as T
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.utils import to_undirected

pyg_T = pytest.importorskip("torch_geometric.transforms")
torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- features
@pytest.mark.parametrize("fdtype", FLOATS)
def test_normalize_features(fdtype):
    for d in graphs(np.int64, fdtype):
        d.pos = np.abs(d.x[:, :2]).copy()
        run(T.NormalizeFeatures(), pyg_T.NormalizeFeatures(), d)
        run(T.NormalizeFeatures(["x", "pos"]), pyg_T.NormalizeFeatures(["x", "pos"]), d)
    run(T.NormalizeFeatures(), pyg_T.NormalizeFeatures(), empty_graph(fdtype=fdtype))
    with pytest.raises(TypeError, match="NormalizeFeatures: 'x' must be floating"):
        T.NormalizeFeatures()(Data(x=np.ones((2, 2), np.int64)))


@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("cat", [True, False])
def test_constant(cat, fdtype):
    for d in graphs(np.int64, fdtype):
        run(T.Constant(0.5, cat), pyg_T.Constant(0.5, cat), d)
        d1 = Data(x=d.x[:, 0].copy(), edge_index=d.edge_index)
        run(T.Constant(2.0, cat), pyg_T.Constant(2.0, cat), d1)
    run(T.Constant(), pyg_T.Constant(), Data(num_nodes=4))


@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("k", [1, 2, 5])
def test_svd_feature_reduction(k, fdtype):
    x = np.random.default_rng(0).standard_normal((7, 4)).astype(fdtype)
    d = Data(x=x)
    out = T.SVDFeatureReduction(k)(d)
    ref = pyg_T.SVDFeatureReduction(k)(to_pyg(d)).x.numpy()
    assert out.x.shape == ref.shape and out.x.dtype == ref.dtype
    signs = np.sign((out.x * ref).sum(0))  # each column's sign is arbitrary
    np.testing.assert_allclose(out.x * signs, ref, rtol=1e-4, atol=1e-4)
    assert out.x is not x or k >= 4
    np.testing.assert_array_equal(d.x, x)


# ---------------------------------------------------------------- degree features
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("in_degree", [False, True])
@pytest.mark.parametrize("cat", [False, True])
def test_one_hot_degree(cat, in_degree, fdtype, idtype):
    for d in graphs(idtype, fdtype):
        run(T.OneHotDegree(12, in_degree, cat), pyg_T.OneHotDegree(12, in_degree, cat), d)
    with pytest.raises(ValueError, match="OneHotDegree: a node has degree .* > max_degree=1"):
        T.OneHotDegree(1)(random_graph(0))


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("norm", [True, False])
@pytest.mark.parametrize("max_value", [None, 10.0])
@pytest.mark.parametrize("cat", [True, False])
def test_target_indegree(cat, max_value, norm, idtype):
    for d in graphs(idtype, np.float32)[:3]:
        run(T.TargetIndegree(norm, max_value, cat), pyg_T.TargetIndegree(norm, max_value, cat), d)
        d.edge_attr = np.ones((d.num_edges, 2))
        run(T.TargetIndegree(norm, max_value, cat), pyg_T.TargetIndegree(norm, max_value, cat), d)


def test_target_indegree_zero_edges_no_warning():
    # deg.max() is 0 without edges: PyG's result is just empty, no 0 / 0 warning
    d = Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(T.TargetIndegree(), pyg_T.TargetIndegree(), d)


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("fdtype", [*FLOATS, np.int64])
def test_local_degree_profile(fdtype, idtype):
    for d in graphs(idtype, np.float32):
        d.x = (10 * d.x).astype(fdtype)
        run(T.LocalDegreeProfile(), pyg_T.LocalDegreeProfile(), d)
        del d.x
        d.num_nodes = 9 if d.num_edges else 6
        run(T.LocalDegreeProfile(), pyg_T.LocalDegreeProfile(), d)


# ---------------------------------------------------------------- SIGN
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("weighted", [False, True])
def test_sign(weighted, fdtype, idtype):
    for d in graphs(idtype, fdtype):
        if weighted:
            d.edge_weight = np.random.default_rng(1).random(d.num_edges).astype(fdtype)
        elif fdtype == np.float64:
            continue  # PyG multiplies float64 x by float32 weights: a torch dtype error
        run(T.SIGN(3), pyg_T.SIGN(3), d, rtol=1e-4, atol=1e-5)


def test_sign_refuses_integer_weights():
    # deg ** -0.5 of integer degrees: PyG raises; a silent int(-0.5) = 0 power gave w itself
    d = random_graph(0)
    d.edge_weight = np.arange(1, d.num_edges + 1)
    with pytest.raises(RuntimeError):
        pyg_T.SIGN(1)(to_pyg(d))
    with pytest.raises(TypeError, match="SIGN: edge_weight must hold floats, got dtype int64"):
        T.SIGN(1)(d)


# ---------------------------------------------------------------- positional encodings
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("n", [8, 130])
@pytest.mark.parametrize("undirected", [True, False])
def test_laplacian_pe(undirected, n, idtype):
    rng = np.random.default_rng(n)
    ring = np.stack([np.arange(n), (np.arange(n) + 1) % n])
    chords = rng.integers(0, n, (2, n // 2))
    ei = to_undirected(np.concatenate([ring, chords], axis=1), num_nodes=n).astype(idtype)
    w = rng.random(ei.shape[1]).astype(np.float32) + 0.5
    d = Data(edge_index=ei, edge_weight=np.ones_like(w), num_nodes=n)
    k = 3
    snap = snapshot(d)
    out = T.AddLaplacianEigenvectorPE(k, is_undirected=undirected, seed=0)(d)
    assert_unchanged(d, snap)
    ref = pyg_T.AddLaplacianEigenvectorPE(k, is_undirected=undirected)(to_pyg(d))
    mine, theirs = out.laplacian_eigenvector_pe, ref.laplacian_eigenvector_pe.numpy()
    assert mine.shape == theirs.shape == (n, k) and mine.dtype == theirs.dtype
    signs = np.sign((mine * theirs).sum(0))
    np.testing.assert_allclose(mine * signs, theirs, rtol=1e-3, atol=1e-3)
    x = np.ones((n, 2), np.float64)
    d.x = x
    out = T.AddLaplacianEigenvectorPE(k, attr_name=None, is_undirected=undirected)(d)
    assert out.x.shape == (n, 2 + k) and out.x.dtype == np.float64


def test_laplacian_pe_errors():
    d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
    with pytest.raises(ValueError, match="AddLaplacianEigenvectorPE: k=2 must be smaller"):
        T.AddLaplacianEigenvectorPE(2)(d)
    with pytest.raises(ValueError, match="AddLaplacianEigenvectorPE: k must be an int >= 1"):
        T.AddLaplacianEigenvectorPE(0)


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("weighted", [None, np.float32, np.float64])
@pytest.mark.parametrize("attr_name", ["random_walk_pe", None])
def test_random_walk_pe(attr_name, weighted, idtype):
    for d in graphs(idtype, np.float32):
        if weighted is not None:
            d.edge_weight = np.random.default_rng(2).random(d.num_edges).astype(weighted) + 0.1
        if weighted == np.float64:  # PyG's dense path fails on float64 weights
            out = T.AddRandomWalkPE(4, attr_name)(d)
            d.edge_weight = d.edge_weight.astype(np.float32)
            ref = T.AddRandomWalkPE(4, attr_name)(d)
            key = attr_name or "x"
            assert out[key].dtype == (np.float64 if attr_name else np.float32)
            np.testing.assert_allclose(out[key], ref[key], rtol=1e-5, atol=1e-6)
            continue
        run(T.AddRandomWalkPE(4, attr_name), pyg_T.AddRandomWalkPE(4, attr_name), d)


@pytest.mark.parametrize("n", [9, 2100])
def test_random_walk_pe_integer_weights(n):
    # PyG's 1.0 / degree of integer weights is float32; ours was cast back to the integers
    rng = np.random.default_rng(0)
    ei = rng.integers(0, n, (2, 3 * n))
    d = Data(edge_index=ei, edge_weight=rng.integers(1, 4, 3 * n), num_nodes=n)
    run(T.AddRandomWalkPE(3), pyg_T.AddRandomWalkPE(3), d)


def test_random_walk_pe_sparse_path():
    n = 2100
    rng = np.random.default_rng(0)
    ei = rng.integers(0, n, (2, 6 * n))
    d = Data(edge_index=ei, num_nodes=n)
    run(T.AddRandomWalkPE(3), pyg_T.AddRandomWalkPE(3), d)


# ---------------------------------------------------------------- masks
def test_index_to_mask_and_back():
    d = Data(
        x=np.zeros((5, 1)),
        train_index=np.array([0, 3]),
        val_index=np.array([4], np.int32),
        edge_index=np.array([[0, 1, 2], [1, 2, 3]]),  # not 1 or 2 edges: PyG guesses by length
    )
    for replace in (False, True):
        out = run(T.IndexToMask(replace=replace), pyg_T.IndexToMask(replace=replace), d)
        back = run(T.MaskToIndex(replace=replace), pyg_T.MaskToIndex(replace=replace), out)
        assert back.train_index.dtype == np.int64
    run(T.IndexToMask("train_index", sizes=7), pyg_T.IndexToMask("train_index", sizes=7), d)
    with pytest.raises(ValueError, match="IndexToMask: the number of attributes"):
        T.IndexToMask(sizes=[3])(d)
    with pytest.raises(ValueError, match="index_to_mask: .*index"):
        T.IndexToMask(sizes=2)(d)


# ---------------------------------------------------------------- HeteroData
def hetero(idtype=np.int64, fdtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    h = HeteroData()
    h["paper"].x = rng.random((6, 3)).astype(fdtype)
    h["author"].x = rng.random((4, 2)).astype(fdtype)
    h["inst"].num_nodes = 2
    cites = rng.integers(0, 5, (2, 12))
    cites[:, 0] = [1, 1]  # a self-loop
    cites[:, 1] = cites[:, 2]  # a parallel edge
    h["paper", "cites", "paper"].edge_index = cites.astype(idtype)
    h["paper", "cites", "paper"].edge_weight = rng.random(12).astype(fdtype)
    writes = np.stack([rng.integers(0, 3, 7), rng.integers(0, 5, 7)])
    h["author", "writes", "paper"].edge_index = writes.astype(idtype)
    h["author", "writes", "paper"].edge_attr = rng.random((7, 2)).astype(fdtype)
    return h


def compare_hetero(out, ref):
    assert sorted(out.node_types) == sorted(ref.node_types)
    assert sorted(out.edge_types) == sorted(ref.edge_types)
    for key in out.node_types + out.edge_types:
        mine, theirs = out[key], ref[key]
        assert sorted(mine.keys()) == sorted(theirs.keys()), key
        for k in mine.keys():
            v = theirs[k]
            if torch.is_tensor(v):
                np.testing.assert_allclose(np.asarray(mine[k]), v.numpy(), rtol=1e-5, err_msg=k)
                if v.dtype.is_floating_point:
                    assert np.asarray(mine[k]).dtype == v.numpy().dtype
            else:
                assert mine[k] == v


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.ToUndirected(),
        lambda m: m.ToUndirected(reduce="mean", merge=False),
        lambda m: m.AddSelfLoops(),
        lambda m: m.AddRemainingSelfLoops(fill_value="mean"),
        lambda m: m.RemoveSelfLoops(),
        lambda m: m.RemoveDuplicatedEdges(),
        lambda m: m.RemoveIsolatedNodes(),
        lambda m: m.NormalizeFeatures(),
        lambda m: m.Constant(node_types="inst"),
        lambda m: m.Constant(3.0, cat=False),
    ],
    ids=[
        "undirected",
        "undirected-nomerge",
        "add-loops",
        "remaining-loops",
        "remove-loops",
        "duplicates",
        "isolated",
        "normalize",
        "constant-types",
        "constant",
    ],
)
def test_hetero_matches_pyg(make, idtype):
    for seed in range(3):
        h = hetero(idtype, seed=seed)
        snap = snapshot(h)
        out = make(T)(h)
        assert_unchanged(h, snap)
        compare_hetero(out, make(pyg_T)(hetero_to_pyg(h)))
        for s in out.edge_stores:
            if s._key in h.edge_types:
                assert s.edge_index.dtype == idtype


def test_hetero_edge_store_rows_checked():
    h = hetero()
    h["author", "writes", "paper"].bad = np.zeros(3)
    with pytest.raises(ValueError, match=r"ToUndirected: edge type .*'bad' must have 7 rows"):
        T.ToUndirected()(h)
    h = hetero()
    h["author", "writes", "paper"].edge_index = np.array([[0], [9]])
    with pytest.raises(ValueError, match=r"ToUndirected: edge type .*row 1 holds node id 9"):
        T.ToUndirected()(h)


@pytest.mark.parametrize(
    "make",
    [
        T.LargestConnectedComponents,
        T.GCNNorm,
        T.VirtualNode,
        T.TwoHop,
        T.LineGraph,
        T.ToDense,
        T.LocalDegreeProfile,
        lambda: T.SIGN(1),
        lambda: T.OneHotDegree(3),
        lambda: T.NodePropertySplit("density", [0.2] * 5, seed=0),
        lambda: T.FixedPoints(2, seed=0),
        lambda: T.GridSampling(1.0),
    ],
)
def test_data_only_transforms_refuse_hetero(make):
    with pytest.raises(TypeError, match="takes a Data"):
        make()(hetero())


def test_hetero_masks_match_pyg():
    h = hetero()
    h["paper"].train_index = np.array([0, 4])
    h["author"].val_mask = np.array([True, False, True, False])
    for ours, theirs in (
        (T.IndexToMask(), pyg_T.IndexToMask()),
        (T.MaskToIndex(replace=True), pyg_T.MaskToIndex(replace=True)),
    ):
        snap = snapshot(h)
        out = ours(h)
        assert_unchanged(h, snap)
        compare_hetero(out, theirs(hetero_to_pyg(h)))


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: T.SIGN(1.5), TypeError, "SIGN: K must be an int >= 0"),
        (lambda: T.OneHotDegree(-1), ValueError, "OneHotDegree: max_degree must be an int >= 0"),
        (lambda: T.AddRandomWalkPE(0), ValueError, "AddRandomWalkPE: walk_length must be"),
        (lambda: T.ToDense(True), TypeError, "ToDense: num_nodes must be an int"),
        (lambda: T.SVDFeatureReduction("4"), TypeError, "SVDFeatureReduction: out_channels"),
        (lambda: T.ToUndirected(reduce="median"), ValueError, "ToUndirected: reduce"),
        (lambda: T.RemoveDuplicatedEdges(reduce="first"), ValueError, "RemoveDuplicatedEdges"),
        (lambda: T.NormalizeFeatures([3]), TypeError, "NormalizeFeatures: attrs"),
        (lambda: T.Constant()([1, 2]), TypeError, "Constant: data must be a Data or HeteroData"),
    ],
)
def test_argument_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()
