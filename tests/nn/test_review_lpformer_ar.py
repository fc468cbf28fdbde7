"""Review tests of ``LPFormer`` and ``ARLinkPredictor`` against PyG 2.8.1: pair-node
selection with PPR values exactly at (and one float32 step around) the thresholds, tied
PPR values, target nodes without PPR entries, unsorted / duplicated PPR entries, pairs
with no kept node (the attention over an empty set), thresholds outside ``[0, 1]`` (PyG
runs them), the settings PyG itself cannot run, and ``ARLinkPredictor`` edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.nn import lpformer as lpformer_module

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")
pyg_utils = pytest.importorskip("torch_geometric.utils")

N = 20


def _t(a):
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _tdt(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _model(dtype, thresholds, seed=0, hid=8):
    torch.manual_seed(seed)
    ref = pyg_models.LPFormer(5, hid, ppr_thresholds=thresholds).to(_tdt(dtype)).eval()
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-1.0, 1.0)
    return ref


def _adj(ei, n=N):
    vals = torch.ones(ei.shape[1])
    return torch.sparse_coo_tensor(_t(ei), vals, [n, n]).coalesce().bool().int()


def _compare(ref, ours, pairs, x, ei, p_index, p_weight, dtype, n=N):
    """Kept nodes, scores, counts and the logits of both sides."""
    matrix = torch.sparse_coo_tensor(_t(p_index), _t(p_weight), [n, n])
    with torch.no_grad():
        theirs = ref.compute_node_mask(_t(pairs), _adj(ei, n), matrix)
        counts = ref.get_structure_cnts(_t(pairs), *theirs)
        expected = ref(_t(pairs), _t(x), _t(ei), matrix).numpy()
    a, b = pairs.astype(np.int64)
    groups = ours._pair_nodes(np, n, a, b, ei, (p_index, p_weight), np.dtype(dtype))
    for (owner, node, p, q), (ix, src, tgt) in zip(groups, theirs):
        np.testing.assert_array_equal(owner, ix[0].numpy())
        np.testing.assert_array_equal(node, ix[1].numpy())
        np.testing.assert_array_equal(p, src.numpy())
        np.testing.assert_array_equal(q, tgt.numpy())
    ours_counts = ours._counts(np, pairs.shape[1], groups, np.dtype(dtype))
    np.testing.assert_array_equal(ours_counts, torch.cat(counts, dim=-1).numpy())
    out = ours(pairs, x, ei, (p_index, p_weight))
    assert out.shape == expected.shape and out.dtype == dtype
    assert rel_err(out, expected) < TOL[dtype]
    return groups


def _near(values, dtype):
    """Each value, one float32/64 step below and above it."""
    values = np.asarray(values, dtype)
    return np.concatenate([values, np.nextafter(values, dtype(-1)), np.nextafter(values, dtype(2))])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("thresholds", [[0.0, 1e-4, 1e-2], [1e-3, 0.05, 0.1], [0.9, 0.65, 0.65]])
def test_lpformer_ppr_values_at_thresholds_match_pyg(thresholds, dtype):
    """A dense PPR matrix whose values sit exactly at, and one step around, each threshold
    (many ties), also after PyG's ``(p * t + t - t) / t`` and ``p + 1 - 1`` roundings
    (float32(0.65) and float32(0.9) lie on their grid and below the doubles: torch
    compares in float32); the PPR entries given unsorted."""
    rng = np.random.default_rng(11)
    ref = _model(dtype, thresholds)
    ours = agnn.from_pyg(ref)
    ei = random_graph(rng, N, None, 50, np.int64, isolated=3)
    cands = _near([*thresholds, dtype(thresholds[1]) / 2, 0.5], dtype)
    # PyG's scaled values: p such that (p * 2 + 2 - 2) / 2 or p + 1 - 1 land on a threshold
    scaled = np.concatenate([(cands * 2 + 2 - 2) / 2, (cands + 1) - 1]).astype(dtype)
    cands = np.concatenate([cands, scaled, np.tile(_near(thresholds, dtype), 4)])
    rows, cols = np.nonzero(rng.random((N, N)) < 0.7)
    keep = rows < N - 2  # the last two nodes have no PPR entries at all
    rows, cols = rows[keep], cols[keep]
    weight = rng.choice(cands, rows.shape[0]).astype(dtype)
    order = rng.permutation(rows.shape[0])
    p_index = np.stack([rows, cols])[:, order]
    p_weight = weight[order]
    fixed = np.array([[3, 5, N - 1, N - 2, 0, N - 1], [3, 5, N - 2, 1, 7, N - 1]])
    pairs = np.concatenate([fixed, rng.integers(0, N, (2, 200))], axis=1)
    x = rng.standard_normal((N, 5)).astype(dtype)
    groups = _compare(ref, ours, pairs, x, ei, p_index, p_weight, dtype)
    assert min(g[0].shape[0] for g in groups) > 0, [g[0].shape[0] for g in groups]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lpformer_pair_without_kept_nodes_matches_pyg(dtype):
    """Pairs of nodes without edges and without PPR entries: no node is kept, PyG's
    attention gives ``LayerNorm(bias)``; also a batch where no pair keeps a node."""
    rng = np.random.default_rng(2)
    ref = _model(dtype, None)
    ours = agnn.from_pyg(ref)
    ei = random_graph(rng, N - 4, None, 40, np.int64, isolated=0)
    p_index, p_weight = pyg_utils.get_ppr(_t(ei), num_nodes=N - 4)
    p_index, p_weight = p_index.numpy(), p_weight.numpy().astype(dtype)
    x = rng.standard_normal((N, 5)).astype(dtype)
    pairs = np.array([[N - 1, N - 2, N - 3, 0], [N - 1, N - 3, N - 4, 1]])
    groups = _compare(ref, ours, pairs, x, ei, p_index, p_weight, dtype)
    assert all(not np.isin(g[0], [0, 1, 2]).any() for g in groups)
    _compare(ref, ours, pairs[:, :3], x, ei, p_index, p_weight, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "thresholds", [[-0.5, -1.0, -2.0], [-1.0, 0.0, -1.0], [0.0, 1e-4, 1.5], [2.0, 2.0, 2.0]]
)
def test_lpformer_thresholds_outside_unit_interval_match_pyg(thresholds, dtype):
    """PyG 2.8.1 runs thresholds below 0 and above 1 (only thresh_non1hop == 1 fails);
    with thresh_non1hop <= -1 it keeps the pairs' neighbours among the >1-hop nodes
    (their PPR scores zeroed, so -1 after its ``+ sign - 1`` alignment)."""
    rng = np.random.default_rng(4)
    ref = _model(dtype, thresholds)
    ours = agnn.from_pyg(ref)
    ei = random_graph(rng, N, None, 50, np.int64, isolated=3)
    p_index, p_weight = pyg_utils.get_ppr(_t(ei), num_nodes=N)
    p_index, p_weight = p_index.numpy(), p_weight.numpy().astype(dtype)
    pairs = np.concatenate([[[3, N - 1], [3, 0]], rng.integers(0, N, (2, 30))], axis=1)
    x = rng.standard_normal((N, 5)).astype(dtype)
    _compare(ref, ours, pairs, x, ei, p_index, p_weight, dtype)
    built = agnn.LPFormer(5, 8, ppr_thresholds=thresholds, dtype=dtype)
    built.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(
        built(pairs, x, ei, (p_index, p_weight)), ours(pairs, x, ei, (p_index, p_weight))
    )


def test_lpformer_refused_settings_are_pyg_crashes():
    """Each setting refused here fails in PyG 2.8.1 itself (checked, not assumed)."""
    rng = np.random.default_rng(0)
    ei = random_graph(rng, N, None, 50, np.int64, isolated=3)
    p_index, p_weight = pyg_utils.get_ppr(_t(ei), num_nodes=N)
    matrix = torch.sparse_coo_tensor(p_index, p_weight, [N, N])
    x = torch.randn(N, 5)
    pairs = torch.tensor([[0, 1, 2], [3, 4, 5]])
    for kwargs in (
        dict(num_heads=2),
        dict(num_heads=0),
        dict(num_transformer_layers=0),
        dict(ppr_thresholds=[0, 1e-4, 1]),
        dict(ppr_thresholds=[0, 1, 1.0]),
        dict(hidden_channels=1),
    ):
        args = dict(in_channels=5, hidden_channels=8) | kwargs
        with pytest.raises(Exception):  # noqa: B017, PT011 (PyG's own crash)
            with torch.no_grad():
                pyg_models.LPFormer(**args).eval()(pairs, x, _t(ei), matrix)
        with pytest.raises(ValueError, match="LPFormer"):
            agnn.LPFormer(**args)
    with pytest.raises(AttributeError):
        pyg_models.LPFormer(5, 8, num_transformer_layers=2)
    with pytest.raises(ValueError, match="LPFormer.*num_transformer_layers"):
        agnn.LPFormer(5, 8, num_transformer_layers=2)


def test_lpformer_threshold_errors_name_the_argument():
    with pytest.raises(TypeError, match=r"LPFormer: ppr_thresholds"):
        agnn.LPFormer(5, 8, ppr_thresholds=[0, "a", 0])


def test_lpformer_empty_counts_no_bincount_of_empty():
    """No kept node anywhere: the counts come without a ``bincount`` of an empty array
    (CuPy's ``bincount`` raises there: it takes the max of its input)."""
    calls = []
    real = np.bincount

    class _Spy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def bincount(x, *args, **kwargs):
            calls.append(x.shape[0])
            if x.shape[0] == 0:
                raise ValueError("zero-size array to reduction operation (CuPy)")
            return real(x, *args, **kwargs)

    model = agnn.LPFormer(5, 8, rng=0)
    dt = np.dtype(np.float32)
    empty = np.zeros(0, np.int64)
    group = (empty, empty, np.zeros(0, dt), np.zeros(0, dt))
    counts = model._counts(_Spy(), 3, [group, group, group], dt)
    np.testing.assert_array_equal(counts, np.zeros((3, 4), dt))
    keys, in_a, in_b = lpformer_module._sorted_union(_Spy(), np.array([2, 5]), empty)
    np.testing.assert_array_equal(keys, [2, 5])
    np.testing.assert_array_equal(in_b, [-1, -1])


# ---------------------------------------------------------------- ARLinkPredictor
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ar_link_predictor_num_layers_0_and_r_fraction(dtype):
    """``num_layers`` 0 builds one ``Linear`` as in PyG; ``calculate_r_fraction`` in
    the embeddings' dtype (the ``1e-10`` added in float32 for float32, as torch)."""
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    ref = pyg_models.ARLinkPredictor(4, 6, num_layers=0).to(_tdt(dtype)).eval()
    ours = agnn.from_pyg(ref)
    x = rng.standard_normal((7, 4)).astype(dtype)
    pairs = rng.integers(0, 7, (2, 9))
    with torch.no_grad():
        expected = ref(_t(x), _t(pairs)).numpy()
        za, zr = ref.encode(_t(x))
    assert rel_err(ours(x, pairs), expected) < TOL[dtype]
    tiny = np.full((3, 2), 1e-6, dtype)
    zero = np.zeros((3, 2), dtype)
    for a, r in ((za.numpy(), zr.numpy()), (zero, tiny), (tiny, tiny), (zero, zero)):
        want = ref.calculate_r_fraction(torch.from_numpy(a), torch.from_numpy(r))
        assert ours.calculate_r_fraction(a, r) == pytest.approx(want, rel=1e-6, abs=0)


def test_ar_link_predictor_integer_features_refused():
    model = agnn.ARLinkPredictor(3, 4, rng=0)
    with pytest.raises(TypeError, match=r"ARLinkPredictor: x must hold floating-point"):
        model(np.ones((5, 3), np.int64), np.array([[0], [1]]))


@pytest.mark.parametrize("index_dtype", [np.uint32, np.uint64, np.int32])
def test_lpformer_keys_stay_int64_for_unsigned_ids(index_dtype):
    """``row * N + col`` keys of uint64 ids were float64 (NumPy's int64 + uint64
    promotion), inexact once ``N * N > 2**53``; they stay int64."""
    ei = np.array([[0, 1, 1, 2, 3], [1, 0, 2, 3, 0]], index_dtype)
    keys, _ = lpformer_module._sorted_keys(np, 4, ei, None, np.array([0, 1]), np.array([3, 3]))
    assert keys.dtype == np.int64
    np.testing.assert_array_equal(keys, [1, 4, 6, 12])


def test_lpformer_pair_nodes_memory_has_no_batch_by_nodes_array():
    """Pair-node selection on 2M nodes and 4096 pairs: a ``[B, N]`` array (8 GB as bool)
    would show in the traced peak; the peak stays at a few ``[N]`` / ``[P]`` arrays."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n, num_edges, num_ppr, num_pairs = 2_000_000, 200_000, 400_000, 4096
    ei = rng.integers(0, n, (2, num_edges))
    p_index = rng.integers(0, n, (2, num_ppr))
    p_index[0, : num_pairs * 4] = np.repeat(rng.integers(0, n, num_pairs), 4)
    p_weight = rng.random(num_ppr).astype(np.float32)
    a, b = rng.integers(0, n, (2, num_pairs))
    a[: num_pairs // 2] = p_index[0, : num_pairs * 4 : 8]
    model = agnn.LPFormer(3, 4, ppr_thresholds=[0.0, 0.0, 0.0], rng=0)
    tracemalloc.start()
    try:
        groups = model._pair_nodes(np, n, a, b, ei, (p_index, p_weight), np.dtype(np.float32))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(g[0].shape[0] for g in groups) > 0
    assert peak < 64 * 2**20, peak
