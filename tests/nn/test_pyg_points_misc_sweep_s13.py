"""Parity sweep of options the point-cloud / clustering tests leave out, and of a few model
utilities: fps (tiny ratios, ``batch_size`` with trailing empty examples, skipped ids,
int32 batches), voxel_grid (batch ids from 1, start / end per dimension, points below
``start``, 1-D positions), graclus (weights of every sign / dtype, extra ``num_nodes``:
a valid greedy matching), spline_basis (D = 1 / 3, scalar / per-dimension sizes and
openness), propagate_hops (vs PyG's ``gcn_norm``), global_add_pool (2-D / 3-D / 4-D x,
``size``), to_hetero_with_bases (``num_bases`` 1 / 5, ``in_channels``),
HeteroJumpingKnowledge (mode spelling, lstm sizes) and DGL's EdgePredictor.

PyG 2.8.1's ``fps`` / ``voxel_grid`` call pyg-lib's ``torch.ops.pyg`` kernels (not
installed here): the tests put torch ports of pyg-lib's CPU kernels there
(``pyg_lib/csrc/ops/cpu/fps_kernel.cpp``, ``cpu/cluster_kernel.cpp``) and run PyG's own
wrappers. graclus (``cpu/graclus_kernel.cpp``: a random node order) is checked by its
invariants. The spline basis reference is ``cpu/spline_kernel.cpp``'s forward, in NumPy.
DGL's EdgePredictor: ``python/dgl/nn/pytorch/link/edgepred.py`` (torch ops, live).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


# ---- pyg-lib's CPU kernels, ported to torch ------------------------------------------------
def _fps_kernel(src, ptr, ratio, random_start):
    """pyg-lib ``cpu/fps_kernel.cpp`` with the first point of each example as start."""
    assert not random_start
    deg = ptr[1:] - ptr[:-1]
    out_ptr = (deg.to(torch.float) * ratio).ceil().long().cumsum(0)
    out = []
    for b in range(len(deg)):
        y = src[int(ptr[b]) : int(ptr[b + 1])]
        take = int(out_ptr[b]) - (int(out_ptr[b - 1]) if b else 0)
        if take == 0:
            continue
        picks, dist = [0], (y - y[0]).pow(2).sum(1)
        for _ in range(1, take):
            nxt = int(dist.argmax())
            picks.append(nxt)
            dist = torch.min(dist, (y - y[nxt]).pow(2).sum(1))
        out += [int(ptr[b]) + p for p in picks]
    return torch.tensor(out, dtype=torch.long)


def _grid_kernel(pos, size, start, end):
    """pyg-lib ``cpu/cluster_kernel.cpp`` (``grid_cluster``): truncating divisions."""
    start = pos.min(0).values if start is None else start
    end = pos.max(0).values if end is None else end
    voxels = torch.div(end - start, size, rounding_mode="trunc").long() + 1
    voxels = torch.cat([torch.ones(1, dtype=torch.long), voxels.cumprod(0)])[: pos.size(1)]
    cell = torch.div(pos - start.unsqueeze(0), size.view(1, -1), rounding_mode="trunc")
    return (cell.long() * voxels.view(1, -1)).sum(1)


@pytest.fixture
def pyg_lib_kernels(monkeypatch):
    import torch_geometric.typing as typing

    for flag in ("WITH_FPS", "WITH_GRID_CLUSTER"):
        monkeypatch.setattr(typing, flag, True, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "fps", _fps_kernel, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "grid_cluster", _grid_kernel, raising=False)


def _t(a):
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


# ---- fps ---------------------------------------------------------------------------------
FPS_CASES = {
    # name: (example sizes, first id, batch_size)
    "tiny-ratio-one-pick-each": ([7, 3, 1], 0, None),
    "trailing-empty-examples": ([6, 0, 5], 0, 6),
    "skipped-leading-ids": ([0, 0, 9, 4], 0, None),
    "no-batch": ([11], None, None),
}


@pytest.mark.parametrize("case", sorted(FPS_CASES))
@pytest.mark.parametrize("ratio", [1e-3, 0.3, 1.0])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_fps_options_match_pyg(pyg_lib_kernels, case, ratio, index_dtype):
    sizes, first, batch_size = FPS_CASES[case]
    rng = np.random.default_rng(len(case))
    pos = rng.standard_normal((sum(sizes), 3)).astype(np.float32)
    batch = None if first is None else np.repeat(np.arange(len(sizes)), sizes).astype(index_dtype)
    tb = None if batch is None else _t(batch.astype(np.int64))
    expected = pyg_nn.fps(_t(pos), tb, ratio=ratio, random_start=False, batch_size=batch_size)
    out = agnn.fps(pos, batch, ratio=ratio, random_start=False, batch_size=batch_size)
    assert out.dtype == np.int64
    assert out.tolist() == expected.tolist()
    if ratio == 1e-3:  # ceil(n * ratio) = 1: the first point of every non-empty example
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[np.asarray(sizes) > 0]
        assert out.tolist() == starts.tolist()


def test_fps_random_start_seeded_picks_are_a_permutation_prefix():
    pos = np.random.default_rng(0).standard_normal((12, 2))
    batch = np.repeat([0, 2], 6).astype(np.int32)
    a = agnn.fps(pos, batch, ratio=1.0, seed=5)
    assert a.tolist() == agnn.fps(pos, batch, ratio=1.0, seed=5).tolist()
    assert sorted(a[:6].tolist()) == list(range(6)) and sorted(a[6:].tolist()) == list(range(6, 12))


# ---- voxel_grid --------------------------------------------------------------------------
VOXEL_CASES = [
    (0.5, None, None),
    ([0.3, 0.9], 0.25, None),  # points below start: truncation toward zero, as pyg-lib
    ([0.7], None, [1.0, 2.0]),  # a short size list is padded with its last entry
    (np.array([0.4, 0.6, 9.0]), [-1.0, 0.5], 1.5),  # a long one is cut
    (0.8, [-2.0], [2.5, 0.1]),
]


@pytest.mark.parametrize("case", range(len(VOXEL_CASES)))
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_voxel_grid_options_match_pyg(pyg_lib_kernels, case, batched, dtype):
    size, start, end = VOXEL_CASES[case]
    rng = np.random.default_rng(case)
    pos = rng.uniform(-1.5, 1.5, (14, 2)).astype(dtype)
    batch = np.repeat([1, 1, 3, 3], [3, 4, 5, 2]).astype(np.int32) if batched else None  # no id 0
    tsize = _t(np.asarray(size, dtype)) if isinstance(size, np.ndarray) else size
    tb = None if batch is None else _t(batch.astype(np.int64))
    expected = pyg_nn.voxel_grid(_t(pos), tsize, tb, start, end)
    out = agnn.voxel_grid(pos, size, batch, start, end)
    assert out.dtype == np.int64
    assert out.tolist() == expected.tolist()


def test_voxel_grid_one_dimensional_positions_match_pyg(pyg_lib_kernels):
    pos = np.random.default_rng(1).uniform(-2, 2, 9)
    for start, end in ((None, None), (-1.0, None), (None, 3.0)):
        expected = pyg_nn.voxel_grid(_t(pos), 0.4, None, start, end).tolist()
        assert agnn.voxel_grid(pos, 0.4, None, start, end).tolist() == expected


# ---- graclus: pyg-lib's greedy matching (random order) by its invariants ------------------
def _check_matching(cluster, ei, weight, num_nodes):
    """Every cluster is one node or two nodes joined by an edge (not a self-loop), named by
    its smaller id; a node looks along its own out-edges, only those of weight >= 0 with
    weights (pyg-lib's ``weight_data[e] >= w_max`` from 0), and a node left alone is taken
    for good: so two single nodes are never joined by edges usable both ways (the first
    visited would have found a partner)."""
    assert cluster.dtype == np.int64 and cluster.shape == (num_nodes,)
    usable = ei[0] != ei[1]
    if weight is not None:
        usable &= np.asarray(weight, np.float64) >= 0
    directed = set(map(tuple, ei[:, usable].T.tolist()))
    for c in np.unique(cluster):
        members = np.flatnonzero(cluster == c).tolist()
        assert len(members) in (1, 2) and c == members[0]
        if len(members) == 2:
            assert tuple(members) in directed or tuple(members[::-1]) in directed
    single = np.bincount(cluster, minlength=num_nodes)[cluster] == 1
    for u, v in directed:
        if (v, u) in directed:
            assert not (single[u] and single[v]), (u, v)


@pytest.mark.parametrize("weight_kind", [None, "int32", "float16", "signed", "ties", "nan"])
@pytest.mark.parametrize("extra_nodes", [0, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_graclus_options_give_a_greedy_matching(weight_kind, extra_nodes, seed):
    rng = np.random.default_rng(seed)
    n = 9
    ei = rng.integers(0, n, (2, 24))
    ei[:, :2] = [[4, 5], [4, 5]]  # self-loops: dropped (torch_cluster's rule)
    ei = np.concatenate([ei, ei[::-1]], axis=1)
    e = ei.shape[1]
    weight = {
        None: None,
        "int32": rng.integers(0, 5, e).astype(np.int32),
        "float16": rng.random(e).astype(np.float16),
        "signed": rng.standard_normal(e),
        "ties": np.ones(e),
        "nan": np.where(rng.random(e) < 0.3, np.nan, rng.random(e)),
    }[weight_kind]
    num = None if extra_nodes == 0 else n + extra_nodes
    cluster = agnn.graclus(ei, weight, num, seed=seed)
    total = n if num is None else num
    _check_matching(cluster, ei, weight, total)
    assert (cluster[n:] == np.arange(n, total)).all()  # isolated nodes keep their ids
    again = agnn.graclus(ei, weight, num, seed=seed)
    assert again.tolist() == cluster.tolist()  # a seed repeats the matching


def test_graclus_heaviest_neighbour_and_negative_weights():
    # a triangle: whoever is visited first takes its heaviest edge, so 0-1 never pair
    ei = np.array([[0, 1, 1, 2, 0, 2], [1, 0, 2, 1, 2, 0]])
    w = np.array([1.0, 1.0, 3.0, 3.0, 2.0, 2.0])
    seen = {tuple(agnn.graclus(ei, w, seed=s).tolist()) for s in range(12)}
    assert seen <= {(0, 1, 0), (0, 1, 1)} and len(seen) == 2
    lonely = agnn.graclus(ei, -w, seed=0)  # no weight >= 0: nobody is matched
    assert lonely.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"num_nodes": 2.5}, TypeError, "graclus: num_nodes"),
        ({"num_nodes": 3}, ValueError, "graclus: edge_index has entry 3"),
        ({"weight": np.ones(3)}, ValueError, "graclus: weight must be an array of shape"),
        ({"weight": np.ones(6, bool)}, TypeError, "graclus: weight must hold numbers"),
    ],
)
def test_graclus_errors(kwargs, err, match):
    with pytest.raises(err, match=match):
        agnn.graclus(np.array([[0, 1, 2, 3, 1, 2], [1, 0, 3, 2, 2, 1]]), **kwargs)


# ---- spline_basis ------------------------------------------------------------------------
def _spline_basis_ref(pseudo, kernel_size, is_open, degree):
    """pyg-lib ``cpu/spline_kernel.cpp`` ``spline_basis_forward_kernel``: each factor from
    double literals, cast to the points' dtype, multiplied in it."""

    def factor(v, k):
        v = v.astype(np.float64)
        if degree == 1:
            return 1.0 - v - k + 2.0 * v * k
        if degree == 2:
            return [0.5 * v * v - v + 0.5, -v * v + v + 0.5, 0.5 * v * v][k]
        return [(1.0 - v) ** 3 / 6.0, (3.0 * v**3 - 6.0 * v * v + 4.0) / 6.0,
                (-3.0 * v**3 + 3.0 * v * v + 3.0 * v + 1.0) / 6.0, v**3 / 6.0][k]  # fmt: skip

    E, D = pseudo.shape
    S = (degree + 1) ** D
    dt = pseudo.dtype.type
    basis, index = np.empty((E, S), pseudo.dtype), np.empty((E, S), np.int64)
    for s in range(S):
        k, wi, offset, b = s, np.zeros(E, np.int64), 1, np.ones(E, pseudo.dtype)
        for d in range(D):
            k_mod, k = k % (degree + 1), k // (degree + 1)
            v = pseudo[:, d] * dt(kernel_size[d] - degree * int(is_open[d]))
            wi = wi + ((v.astype(np.int64) + k_mod) % kernel_size[d]) * offset
            offset *= kernel_size[d]
            b = b * factor(v - np.floor(v), k_mod).astype(pseudo.dtype)
        basis[:, s], index[:, s] = b, wi
    return basis, index


SPLINE_CASES = [
    (1, 4, True, 1),
    (1, [3], [False], 2),
    (1, 1, False, 1),
    (3, [3, 4, 5], [True, False, True], 3),
    (3, 3, False, 1),
    (3, [2, 2, 2], True, 2),
]


@pytest.mark.parametrize("case", range(len(SPLINE_CASES)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spline_basis_dimensions_and_per_dim_options(case, dtype):
    dim, ks, is_open, degree = SPLINE_CASES[case]
    rng = np.random.default_rng(case)
    pseudo = rng.random((11, dim)).astype(dtype)
    pseudo[0], pseudo[1] = 0.0, 1.0  # the boundary knots
    basis, index = agnn.spline_basis(pseudo, ks, is_open, degree)
    ks_d = ks if isinstance(ks, list) else [ks] * dim
    open_d = is_open if isinstance(is_open, list) else [is_open] * dim
    ref_b, ref_i = _spline_basis_ref(pseudo, ks_d, open_d, degree)
    assert basis.dtype == dtype and index.dtype == np.int64
    assert basis.shape == index.shape == (11, (degree + 1) ** dim)
    np.testing.assert_array_equal(index, ref_i)
    np.testing.assert_allclose(basis, ref_b, rtol=1e-6 if dtype == np.float32 else 1e-14)


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"degree": 1.0}, TypeError, "spline_basis: degree must be an int"),
        ({"degree": 4}, ValueError, "spline_basis: degree must be 1, 2 or 3"),
        ({"is_open_spline": "no"}, TypeError, "spline_basis: is_open_spline must be bools"),
        ({"kernel_size": 2.5}, ValueError, "spline_basis: kernel_size must be positive"),
        ({"kernel_size": [3]}, ValueError, "spline_basis: kernel_size must have dim=2"),
        ({"pseudo": np.full((2, 2), 0.5, np.float16)}, TypeError, "spline_basis: pseudo must be"),
    ],
)
def test_spline_basis_errors(kwargs, err, match):
    args = {"pseudo": np.full((2, 2), 0.5), "kernel_size": 3, "is_open_spline": True, "degree": 1}
    args.update(kwargs)
    with pytest.raises(err, match=match):
        agnn.spline_basis(**args)


# ---- propagate_hops: SGConv's propagation (PyG's gcn_norm, then sums) ----------------------
@pytest.mark.parametrize("self_loops", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("extra_nodes", [0, 2])
def test_propagate_hops_matches_pyg_gcn_norm(self_loops, weighted, extra_nodes):
    from torch_geometric.nn.conv.gcn_conv import gcn_norm
    from torch_geometric.utils import scatter

    rng = np.random.default_rng(3)
    n = 7 + extra_nodes
    ei = rng.integers(0, 7, (2, 15))
    ei[:, 0] = 3  # an existing self-loop keeps its weight (add_remaining_self_loops)
    w = rng.random(15) if weighted else None
    x = rng.standard_normal((n, 3))
    tei, tw = gcn_norm(_t(ei), _t(w), n, False, self_loops, dtype=torch.float64)
    h, expected = _t(x), [x]
    for _ in range(3):
        h = scatter(tw.view(-1, 1) * h[tei[0]], tei[1], 0, n, "sum")
        expected.append(h.numpy())
    out = agnn.propagate_hops(ei, x, 3, num_nodes=n, edge_weight=w, add_self_loops=self_loops)
    assert len(out) == 4
    for got, want in zip(out, expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    with pytest.raises(TypeError, match="propagate_hops: num_nodes"):
        agnn.propagate_hops(ei, x, 1, num_nodes=float(n))


# ---- global_add_pool ---------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(6,), (6, 3), (2, 6, 3), (2, 2, 6, 3)])
@pytest.mark.parametrize("batch_size", [(False, None), (True, None), (True, 6)])
def test_global_add_pool_shapes_match_pyg(shape, batch_size):
    with_batch, size = batch_size
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    batch = np.array([0, 0, 1, 1, 1, 3], np.int32) if with_batch else None
    tb = None if batch is None else _t(batch.astype(np.int64))
    expected = pyg_nn.global_add_pool(_t(x), tb, size).numpy()
    out = agnn.global_add_pool(x, batch, size)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


# ---- to_hetero_with_bases ----------------------------------------------------------------
META = (
    ["a", "b", "c"],
    [("a", "to", "b"), ("b", "to", "a"), ("b", "self", "b"), ("c", "to", "a"), ("a", "rev", "c")],
)
SIZES = {"a": 7, "b": 6, "c": 5}


class _TwoConvs(torch.nn.Module):
    def __init__(self, conv1, conv2):
        super().__init__()
        self.conv1, self.conv2 = conv1, conv2

    def forward(self, x, edge_index):
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("num_bases", [1, 5])
@pytest.mark.parametrize("in_channels", [None, {"x": 4}])
@pytest.mark.parametrize("kind", ["sage-max", "graph-mean"])
def test_to_hetero_with_bases_num_bases_match_pyg(num_bases, in_channels, kind):
    rng = np.random.default_rng(num_bases)
    x = {t: rng.standard_normal((n, 3)).astype(np.float32) for t, n in SIZES.items()}
    ei = {
        et: np.stack([rng.integers(0, SIZES[et[0]], 8), rng.integers(0, SIZES[et[2]], 8)])
        for et in META[1]
    }
    width = 3 if in_channels is None else 4
    torch.manual_seed(num_bases)
    if kind == "sage-max":
        convs = (pyg_nn.SAGEConv(width, 5, aggr="max"), pyg_nn.SAGEConv(5, 4, root_weight=False))
    else:
        convs = (pyg_nn.GraphConv(width, 5, aggr="mean"), pyg_nn.GraphConv(5, 4))
    model = _quiet(pyg_nn.to_hetero_with_bases, _TwoConvs(*convs), META, num_bases, in_channels)
    with torch.no_grad():  # num_bases=1: PyG leaves edge_type_weight uninitialised
        for name, p in model.named_parameters():
            if name.endswith("edge_type_weight"):
                p.copy_(torch.linspace(-1.0, 1.0, p.numel()).view_as(p))
        if in_channels is not None:  # run once: PyG's lazy align linears get their sizes
            model({k: _t(v) for k, v in x.items()}, {k: _t(v) for k, v in ei.items()})
        ref = model({k: _t(v) for k, v in x.items()}, {k: _t(v) for k, v in ei.items()})
    ours = agnn.from_pyg(model)(x, ei)
    assert list(ours) == list(ref)
    for t in ref:
        np.testing.assert_allclose(ours[t], ref[t].numpy(), rtol=1e-5, atol=1e-5)
    seq = agnn.Sequential(
        "x, edge_index",
        {
            "conv1": (agnn.from_pyg(convs[0]), "x, edge_index -> x"),
            "act": "relu",
            "conv2": (agnn.from_pyg(convs[1]), "x, edge_index -> x"),
        },
    )
    native = _quiet(agnn.to_hetero_with_bases, seq, META, num_bases, in_channels)
    weights = [w for k, w in sorted(native.state_dict().items()) if "edge_type_weight" in k]
    assert len(weights) == 2 * num_bases and all(np.isfinite(w).all() for w in weights)
    native.load_state_dict(model.state_dict())
    for t in ref:
        np.testing.assert_allclose(native(x, ei)[t], ref[t].numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"num_bases": 0}, ValueError, "to_hetero_with_bases: num_bases"),
        ({"num_bases": 2.5}, TypeError, "to_hetero_with_bases: num_bases must be an int"),
        ({"num_bases": "2"}, TypeError, "to_hetero_with_bases: num_bases must be an int"),
        ({"num_bases": True}, TypeError, "to_hetero_with_bases: num_bases must be an int"),
        ({"num_bases": 2, "in_channels": 3}, TypeError, "to_hetero_with_bases: in_channels"),
        ({"num_bases": 2, "in_channels": {"x": 2.5}}, TypeError, r"in_channels\['x'\]"),
        ({"num_bases": 2, "in_channels": {"x": 0}}, ValueError, r"in_channels\['x'\]"),
    ],
)
def test_to_hetero_with_bases_bad_sizes(kwargs, err, match):
    seq = agnn.Sequential("x, edge_index", [(agnn.SAGEConv(3, 4, "mean"), "x, edge_index -> x")])
    with pytest.raises(err, match=match):
        _quiet(agnn.to_hetero_with_bases, seq, META, **kwargs)


# ---- HeteroJumpingKnowledge --------------------------------------------------------------
def test_hetero_jumping_knowledge_upper_case_lstm():
    """PyG lowercases ``mode`` but builds the LSTM only for ``'lstm'``: its ``'LSTM'`` fails
    when called; arraygnn's works (same result as ``'lstm'``), from_pyg refuses PyG's."""
    ref = pyg_nn.HeteroJumpingKnowledge(["a"], "LSTM", channels=3, num_layers=2)
    xs = [np.ones((2, 3)), np.zeros((2, 3))]
    with pytest.raises(AssertionError):
        ref({"a": [_t(v) for v in xs]})
    with pytest.raises(ValueError, match="from_pyg: this HeteroJumpingKnowledge has mode 'lstm'"):
        agnn.from_pyg(ref)
    upper = agnn.HeteroJumpingKnowledge(["a"], "LSTM", 3, 2, dtype=np.float64, rng=0)
    lower = agnn.HeteroJumpingKnowledge(["a"], "lstm", 3, 2, dtype=np.float64, rng=0)
    np.testing.assert_array_equal(upper({"a": xs})["a"], lower({"a": xs})["a"])


@pytest.mark.parametrize("mode", ["CAT", "Max"])
def test_hetero_jumping_knowledge_mode_spelling_like_pyg(mode):
    ref = pyg_nn.HeteroJumpingKnowledge(["a", "b"], mode, channels=3, num_layers=2)
    ours = agnn.from_pyg(ref.double())
    built = agnn.HeteroJumpingKnowledge(["a", "b"], mode, 3, 2, dtype=np.float64)
    assert ours.mode == built.mode == ref.mode == mode.lower()
    rng = np.random.default_rng(0)
    xs = {t: [rng.standard_normal((4, 3)) for _ in range(2)] for t in ("a", "b")}
    with torch.no_grad():
        expected = ref({t: [_t(v) for v in vs] for t, vs in xs.items()})
    built.load_state_dict(ref.state_dict())
    for layer in (ours, built):
        out = layer(xs)
        for t in ("a", "b"):
            np.testing.assert_allclose(out[t], expected[t].numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kwargs", [{}, {"channels": 3}, {"num_layers": 2}])
def test_hetero_jumping_knowledge_lstm_needs_both_sizes(kwargs):
    with pytest.raises(AssertionError):
        pyg_nn.HeteroJumpingKnowledge(["a"], "lstm", **kwargs)
    with pytest.raises(ValueError, match="mode='lstm' needs channels and num_layers"):
        agnn.HeteroJumpingKnowledge(["a"], "lstm", **kwargs)


# ---- DGL's EdgePredictor (edgepred.py: bmm / F.cosine_similarity / mul / cat, Linear) -----
@pytest.mark.parametrize("op", ["dot", "cos", "ele", "cat"])
@pytest.mark.parametrize("sizes", [(None, None, False), (4, None, False), (None, 3, True),
                                   (4, 3, False), (4, 3, True)])  # fmt: skip
def test_edge_predictor_options_match_dgl(op, sizes):
    import torch.nn.functional as F

    in_feats, out_feats, bias = sizes
    rng = np.random.default_rng(1)
    hs, hd = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    hs[0] = 0.0  # a zero vector: cosine 0 (torch's eps clamp)
    pred = agnn.EdgePredictor(op, in_feats, out_feats, bias, dtype=np.float64, rng=0)
    ts, td = _t(hs), _t(hd)
    h = {
        "dot": lambda: torch.bmm(ts.view(6, 1, 4), td.view(6, 4, 1)).squeeze(-1),
        "cos": lambda: F.cosine_similarity(ts, td).unsqueeze(-1),
        "ele": lambda: ts * td,
        "cat": lambda: torch.cat([ts, td], dim=-1),
    }[op]()
    if in_feats is not None and out_feats is not None:  # DGL: both sizes, or no linear
        assert pred.linear is not None
        h = h @ _t(pred.linear.weight).T + (_t(pred.linear.bias) if bias else 0.0)
    else:
        assert pred.linear is None
    out = pred(hs, hd)
    assert out.shape == tuple(h.shape)
    np.testing.assert_allclose(out, h.numpy(), rtol=1e-12, atol=1e-14)
