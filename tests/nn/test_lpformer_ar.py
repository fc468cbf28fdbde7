"""PyG's link-prediction models ``ARLinkPredictor`` and ``LPFormer`` against PyG 2.8.1
(weights through ``from_pyg``; float32 within 1e-5 relative, float64 within 1e-12) on
random multigraphs with self-loops, repeated edges and isolated nodes, graphs without
edges, batches of target pairs with ``(u, u)`` pairs and pairs without common
neighbours, int32 / int64 ids; LPFormer's kept pair nodes and counts against PyG's own
``compute_node_mask`` / ``get_structure_cnts``; errors naming the model and argument."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.nn.lpformer import LPFormer as OurLPFormer

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")
pyg_utils = pytest.importorskip("torch_geometric.utils")

DTYPES = [np.float32, np.float64]
KINDS = ["multi", "isolated", "empty"]
N = 24


def _t(a):
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)  # PyG's ids
    return torch.from_numpy(np.ascontiguousarray(a))


def _tdt(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _graph(rng, kind, index_dtype):
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    if kind == "isolated":  # the last 6 nodes touch no edge
        return random_graph(rng, N - 6, None, 50, index_dtype, isolated=1)
    return random_graph(rng, N, None, 70, index_dtype, isolated=3)


def _pairs(rng, index_dtype, num=30):
    """Random pairs plus (u, u), a pair of isolated nodes and one with an isolated node."""
    fixed = np.array([[3, 5, N - 1, N - 2, 0], [3, 5, N - 2, 1, 7]])
    pairs = np.concatenate([fixed, rng.integers(0, N, (2, num))], axis=1)
    return pairs.astype(index_dtype)


def _randomise(module, dtype, seed=0):
    torch.manual_seed(seed)
    module = module.to(_tdt(dtype)).eval()
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1.0, 1.0)
    return module


def _ppr(edge_index, dtype, alpha=0.15, eps=5e-5):
    """PyG's PPR of the graph: (numpy index, numpy weight, torch sparse matrix)."""
    index, weight = pyg_utils.get_ppr(_t(edge_index), alpha=alpha, eps=eps, num_nodes=N)
    weight = weight.to(_tdt(dtype))
    matrix = torch.sparse_coo_tensor(index, weight, [N, N])
    return index.numpy(), weight.numpy(), matrix


# ---------------------------------------------------------------- ARLinkPredictor
AR_CONFIGS = [
    dict(out_channels=None, num_layers=2, attract_ratio=0.5),
    dict(out_channels=7, num_layers=3, attract_ratio=0.3),
    dict(out_channels=5, num_layers=1, attract_ratio=1.0),
    dict(out_channels=4, num_layers=4, attract_ratio=0.0),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("config", range(len(AR_CONFIGS)))
def test_ar_link_predictor_matches_pyg(config, index_dtype, dtype):
    rng = np.random.default_rng(config)
    ref = _randomise(pyg_models.ARLinkPredictor(6, 8, **AR_CONFIGS[config]), dtype)
    ours = agnn.from_pyg(ref)
    assert isinstance(ours, agnn.ARLinkPredictor)
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    x = rng.standard_normal((N, 6)).astype(dtype)
    pairs = _pairs(rng, index_dtype)
    x_before, pairs_before = x.copy(), pairs.copy()
    with torch.no_grad():
        ra, rr = ref.encode(_t(x))
        expected = ref(_t(x), _t(pairs)).numpy()
        scores = ref.decode(ra, rr, _t(pairs)).numpy()
    za, zr = ours.encode(x)
    assert za.dtype == dtype and za.shape == tuple(ra.shape) and zr.shape == tuple(rr.shape)
    assert rel_err(za, ra.numpy()) < TOL[dtype] and rel_err(zr, rr.numpy()) < TOL[dtype]
    assert rel_err(ours.decode(za, zr, pairs), scores) < TOL[dtype]
    out = ours(x, pairs)
    assert out.shape == (pairs.shape[1],) and out.dtype == dtype
    assert rel_err(out, expected) < TOL[dtype]
    r = ours.calculate_r_fraction(za, zr)
    assert r == pytest.approx(ref.calculate_r_fraction(ra, rr), rel=1e-5, abs=1e-7)
    np.testing.assert_array_equal(x, x_before)
    np.testing.assert_array_equal(pairs, pairs_before)
    # a model built here takes PyG's state dict under the same names
    built = agnn.ARLinkPredictor(6, 8, **AR_CONFIGS[config], dtype=dtype)
    built.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(built(x, pairs), out)


def test_ar_link_predictor_no_pairs():
    ref = _randomise(pyg_models.ARLinkPredictor(3, 4), np.float32)
    out = agnn.from_pyg(ref)(np.ones((4, 3), np.float32), np.zeros((2, 0), np.int64))
    assert out.shape == (0,)


def test_ar_link_predictor_errors():
    model = agnn.ARLinkPredictor(3, 4, rng=0)
    x = np.ones((5, 3), np.float32)
    with pytest.raises(ValueError, match=r"ARLinkPredictor.*in_channels=3"):
        model(np.ones((5, 4), np.float32), np.array([[0], [1]]))
    with pytest.raises(ValueError, match=r"ARLinkPredictor.*edge_index\[1\].*out of range"):
        model(x, np.array([[0, 1], [1, 5]]))
    with pytest.raises(ValueError, match=r"ARLinkPredictor.*edge_index\[0\].*negative"):
        model(x, np.array([[-1], [1]]))
    with pytest.raises(TypeError, match=r"ARLinkPredictor.*edge_index.*integers"):
        model(x, np.array([[0.0], [1.0]]))
    with pytest.raises(TypeError, match=r"ARLinkPredictor: x must be a 2-D"):
        model(np.ones(3, np.float32), np.array([[0], [1]]))
    with pytest.raises(ValueError, match=r"ARLinkPredictor: attract_ratio"):
        agnn.ARLinkPredictor(3, 4, attract_ratio=1.5)


# ---------------------------------------------------------------- LPFormer
LP_CONFIGS = [
    dict(num_gnn_layers=2, ppr_thresholds=None),
    dict(num_gnn_layers=1, ppr_thresholds=[0.0, 0.0, 0.0]),
    dict(num_gnn_layers=3, ppr_thresholds=[1e-3, 1e-2, 2e-3]),
]


def _lpformer(config, dtype, seed=0):
    return _randomise(pyg_models.LPFormer(5, 8, **LP_CONFIGS[config]), dtype, seed)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("config", range(len(LP_CONFIGS)))
def test_lpformer_matches_pyg(config, kind, index_dtype, dtype):
    rng = np.random.default_rng(7 + config)
    ref = _lpformer(config, dtype, seed=config)
    ours = agnn.from_pyg(ref)
    assert isinstance(ours, agnn.LPFormer)
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 5)).astype(dtype)
    pairs = _pairs(rng, index_dtype)
    p_index, p_weight, matrix = _ppr(ei, dtype)
    p_index = p_index.astype(index_dtype)
    before = [a.copy() for a in (x, ei, pairs, p_index, p_weight)]
    with torch.no_grad():
        expected = ref(_t(pairs), _t(x), _t(ei), matrix).numpy()
    out = ours(pairs, x, ei, (p_index, p_weight))
    assert out.shape == (pairs.shape[1],) and out.dtype == dtype
    assert rel_err(out, expected) < TOL[dtype]
    for arr, old in zip((x, ei, pairs, p_index, p_weight), before):
        np.testing.assert_array_equal(arr, old)
    # a model built here takes PyG's state dict under the same names
    built = agnn.LPFormer(5, 8, **LP_CONFIGS[config], dtype=dtype)
    built.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(built(pairs, x, ei, (p_index, p_weight)), out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", range(len(LP_CONFIGS)))
def test_lpformer_pair_nodes_and_counts_match_pyg(config, dtype):
    """The kept CNs / 1-hop / >1-hop nodes (pair, node, both PPR scores, in PyG's order)
    and the four counts are PyG's own."""
    rng = np.random.default_rng(3)
    ref = _lpformer(config, dtype)
    ours = agnn.from_pyg(ref)
    ei = _graph(rng, "multi", np.int64)
    pairs = _pairs(rng, np.int64, num=60)
    p_index, p_weight, matrix = _ppr(ei, dtype)
    vals = torch.ones(ei.shape[1])
    adj = torch.sparse_coo_tensor(_t(ei), vals, [N, N]).coalesce().bool().int()
    with torch.no_grad():
        theirs = ref.compute_node_mask(_t(pairs), adj, matrix)
        counts = ref.get_structure_cnts(_t(pairs), *theirs)
    groups = ours._pair_nodes(np, N, pairs[0], pairs[1], ei, (p_index, p_weight), np.dtype(dtype))
    sizes = []
    for (owner, node, p, q), (ix, src, tgt) in zip(groups, theirs):
        np.testing.assert_array_equal(owner, ix[0].numpy())
        np.testing.assert_array_equal(node, ix[1].numpy())
        np.testing.assert_array_equal(p, src.numpy())  # the same float operations
        np.testing.assert_array_equal(q, tgt.numpy())
        sizes.append(owner.shape[0])
    assert min(sizes) > 0  # every group is exercised
    ours_counts = ours._counts(np, pairs.shape[1], groups, np.dtype(dtype))
    np.testing.assert_array_equal(ours_counts, torch.cat(counts, dim=-1).numpy())
    assert (ours_counts[:, 0] == 0).any()  # pairs without common neighbours


@pytest.mark.parametrize("dtype", DTYPES)
def test_lpformer_duplicate_ppr_entries_match_pyg(dtype):
    """A PPR matrix given with each entry split in two (uncoalesced, as a torch sparse
    tensor may be): both sum the halves."""
    rng = np.random.default_rng(5)
    ref = _lpformer(0, dtype)
    ours = agnn.from_pyg(ref)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 5)).astype(dtype)
    pairs = _pairs(rng, np.int64)
    p_index, p_weight, _ = _ppr(ei, dtype)
    index2 = np.concatenate([p_index, p_index[:, ::-1]], axis=1)
    weight2 = np.concatenate([p_weight / 2, p_weight[::-1] / 2])
    matrix2 = torch.sparse_coo_tensor(_t(index2), _t(weight2), [N, N])
    with torch.no_grad():
        expected = ref(_t(pairs), _t(x), _t(ei), matrix2).numpy()
    out = ours(pairs, x, ei, (index2, weight2))
    assert rel_err(out, expected) < TOL[dtype]


def test_lpformer_no_pairs_and_unit_graph():
    ref = _lpformer(0, np.float32)
    ours = agnn.from_pyg(ref)
    rng = np.random.default_rng(0)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    p_index, p_weight, _ = _ppr(ei, np.float32)
    out = ours(np.zeros((2, 0), np.int64), x, ei, (p_index, p_weight))
    assert out.shape == (0,)


def test_lpformer_calc_sparse_ppr_close_to_pyg():
    """arraygnn's push agrees with PyG's within the push tolerance (see get_ppr)."""
    rng = np.random.default_rng(1)
    ei = _graph(rng, "multi", np.int64)
    ours = OurLPFormer.calc_sparse_ppr(ei, N)
    theirs = pyg_models.LPFormer(5, 8).calc_sparse_ppr(_t(ei), N).to_dense().numpy()
    dense = np.zeros((N, N), np.float64)
    np.add.at(dense, (ours[0][0], ours[0][1]), ours[1])
    assert ours[1].dtype == np.float32
    np.testing.assert_allclose(dense, theirs, atol=5e-5 * 20)


def test_lpformer_errors():
    model = agnn.LPFormer(5, 8, rng=0)
    rng = np.random.default_rng(0)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    ppr = model.calc_sparse_ppr(ei, N)
    pairs = np.array([[0, 1], [2, 3]])
    with pytest.raises(ValueError, match=r"LPFormer: batch\[1\].*out of range"):
        model(np.array([[0, 1], [2, N]]), x, ei, ppr)
    with pytest.raises(ValueError, match=r"LPFormer: batch\[0\].*negative"):
        model(np.array([[-1, 1], [2, 3]]), x, ei, ppr)
    with pytest.raises(ValueError, match=r"LPFormer: batch must be an integer array \[2, B\]"):
        model(np.array([0, 1]), x, ei, ppr)
    with pytest.raises(TypeError, match=r"LPFormer: batch\[0\].*integer"):
        model(pairs.astype(np.float32), x, ei, ppr)
    with pytest.raises(ValueError, match=r"LPFormer: x has 4 features, expected in_channels=5"):
        model(pairs, x[:, :4], ei, ppr)
    with pytest.raises(ValueError, match=r"LPFormer: edge_index\[0\].*out of range"):
        model(pairs, x, np.array([[N], [0]]), ppr)
    with pytest.raises(TypeError, match=r"LPFormer: ppr must be a pair"):
        model(pairs, x, ei, ppr[1])
    with pytest.raises(ValueError, match=r"LPFormer: ppr\[0\] \(ppr_index\) row 1.*out of range"):
        model(pairs, x, ei, (np.array([[0], [N]]), np.ones(1, np.float32)))
    with pytest.raises(ValueError, match=r"LPFormer: ppr\[1\] \(ppr_weight\)"):
        model(pairs, x, ei, (ppr[0], ppr[1][:-1]))
    for kwargs, name in (
        (dict(num_transformer_layers=2), "num_transformer_layers"),
        (dict(num_heads=2), "num_heads"),
        (dict(ppr_thresholds=[0, 1e-4, 1]), "thresh_non1hop"),
        (dict(ppr_thresholds=[0, 1e-4]), "ppr_thresholds"),
    ):
        with pytest.raises(ValueError, match=rf"LPFormer.*{name}"):
            agnn.LPFormer(5, 8, **kwargs)
    with pytest.raises(ValueError, match=r"LPFormer.*hidden_channels"):
        agnn.LPFormer(5, 1)
    # what PyG 2.8.1 itself cannot run is refused when converting too
    ref = pyg_models.LPFormer(5, 8, ppr_thresholds=[0, 1e-4, 1])
    with pytest.raises(ValueError, match=r"LPFormer.*thresh_non1hop"):
        agnn.from_pyg(ref)
