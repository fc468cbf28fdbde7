"""DynamicEdgeConv: the k-NN graph it builds against a brute-force NumPy reference, its
output against PyG's EdgeConv run on that reference graph with the same weights (PyG's own
DynamicEdgeConv needs pyg-lib's knn, not installed here), ``from_pyg``, calling forms and
errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _nn_cases import TOL, rel_err

import arraygnn.nn as agnn
from arraygnn.utils import knn

DTYPES = [np.float32, np.float64]


def brute_knn(x, y, k, bx=None, by=None):
    """[2, E]: row 0 indexes y, row 1 x; the k nearest of the same example, by float64
    distance then index (a stable sort)."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    bx = np.zeros(len(x), int) if bx is None else bx
    by = np.zeros(len(y), int) if by is None else by
    rows, cols = [], []
    for i in range(len(y)):
        cand = np.flatnonzero(bx == by[i])
        d = np.sqrt(((x[cand] - y[i]) ** 2).sum(axis=1))
        best = cand[np.argsort(d, kind="stable")][:k]
        rows += [i] * len(best)
        cols += best.tolist()
    return np.array([rows, cols], np.int64).reshape(2, -1)


def _points(rng, dtype):
    """30 points in 4 examples: sizes 10, 0 (id 1 skipped), 2 (fewer than k), 10, 8; a
    duplicated point (a tie)."""
    x = rng.standard_normal((30, 3)).astype(dtype)
    x[5] = x[4]
    batch = np.repeat([0, 2, 3, 5], [10, 2, 10, 8])
    return x, batch


torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


def _torch_nets():
    return {
        "sequential": lambda: torch.nn.Sequential(
            torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)
        ),
        "mlp": lambda: pyg_nn.MLP([6, 16, 8, 4], norm=None),
        "linear": lambda: torch.nn.Linear(6, 4),
        "starts with act": lambda: torch.nn.Sequential(torch.nn.Tanh(), torch.nn.Linear(6, 4)),
    }


def _pyg_dynamic(monkeypatch, nn, k, aggr):
    """A PyG DynamicEdgeConv (its constructor refuses without pyg-lib's knn; only the
    constructor checks, and its forward is never run here)."""
    import torch_geometric.typing

    monkeypatch.setattr(torch_geometric.typing, "WITH_KNN", True, raising=False)
    try:
        return pyg_nn.DynamicEdgeConv(nn, k=k, aggr=aggr)
    except ImportError as err:  # pragma: no cover - depends on the PyG version
        pytest.skip(f"PyG DynamicEdgeConv cannot be built here: {err}")


def _pyg_edge_conv(module, x, edge_index):
    ref = pyg_nn.EdgeConv(copy.deepcopy(module.nn), aggr=module.aggr)
    ref.load_state_dict(module.state_dict())  # EdgeConv's constructor re-initialises nn
    with torch.no_grad():
        if isinstance(x, tuple):
            x = tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in x)
        else:
            x = torch.from_numpy(np.ascontiguousarray(x))
        return ref(x, torch.from_numpy(edge_index)).numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("aggr", ["max", "add", "mean"])
@pytest.mark.parametrize("net", ["sequential", "mlp", "linear", "starts with act"])
@pytest.mark.parametrize("batch_dtype", [np.int32, np.int64])
def test_matches_pyg_edge_conv_on_the_reference_graph(monkeypatch, dtype, aggr, net, batch_dtype):
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    x, batch = _points(rng, dtype)
    batch = batch.astype(batch_dtype)
    module = _pyg_dynamic(monkeypatch, _torch_nets()[net](), 4, aggr)
    module = module.to(getattr(torch, np.dtype(dtype).name))
    conv = agnn.from_pyg(module)
    assert type(conv) is agnn.DynamicEdgeConv and conv.k == 4
    graph = brute_knn(x, x, 4, batch, batch)[::-1].copy()  # [neighbour, centre]
    ref = _pyg_edge_conv(module, x, graph)
    x_before, b_before = x.copy(), batch.copy()
    out = conv(x, batch)
    assert out.dtype == dtype
    assert rel_err(out, ref) <= TOL[dtype] * 10
    assert np.array_equal(x, x_before) and np.array_equal(batch, b_before)  # not mutated
    # no batch: one example
    ref = _pyg_edge_conv(module, x, brute_knn(x, x, 4)[::-1].copy())
    assert rel_err(conv(x), ref) <= TOL[dtype] * 10


@pytest.mark.parametrize("dtype", DTYPES)
def test_bipartite_with_batches_matches_pyg(monkeypatch, dtype):
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    x_src, b_src = _points(rng, dtype)
    x_dst = rng.standard_normal((12, 3)).astype(dtype)
    b_dst = np.repeat([0, 1, 3, 5], [3, 2, 4, 3])  # example 1 has no sources: no edges
    module = _pyg_dynamic(monkeypatch, _torch_nets()["mlp"](), 3, "max")
    module = module.to(getattr(torch, np.dtype(dtype).name))
    conv = agnn.from_pyg(module)
    graph = brute_knn(x_src, x_dst, 3, b_src, b_dst)[::-1].copy()
    ref = _pyg_edge_conv(module, (x_src, x_dst), graph)
    out = conv((x_src, x_dst), (b_src, b_dst))
    assert out.shape == (12, 4)
    assert rel_err(out, ref) <= TOL[dtype] * 10
    assert np.all(out[3:5] == 0)  # no neighbours: max over nothing is 0


def test_from_pyg_keeps_names_and_settings(monkeypatch):
    torch.manual_seed(0)
    module = _pyg_dynamic(monkeypatch, _torch_nets()["sequential"](), 5, "mean")
    conv = agnn.from_pyg(module)
    assert conv.k == 5 and conv.aggr == "mean"
    ours = conv.state_dict()
    theirs = module.state_dict()
    assert sorted(ours) == sorted(theirs)
    for name, value in theirs.items():
        np.testing.assert_array_equal(ours[name], value.numpy())
    assert "k=5" in repr(conv)


def test_is_edge_conv_on_the_knn_graph():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((40, 5)).astype(np.float32)
    batch = np.repeat(np.arange(4), 10)
    for nn in (agnn.MLP([10, 8, 3], rng=0), agnn.Sequential(agnn.Linear(10, 3, rng=1))):
        dyn = agnn.DynamicEdgeConv(nn, k=6, aggr="add")
        static = agnn.EdgeConv(nn, aggr="add")
        graph = knn(x, x, 6, batch, batch)[::-1]
        np.testing.assert_allclose(dyn(x, batch), static(x, graph), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(dyn((x, x), (batch, batch)), dyn(x, batch))
        np.testing.assert_array_equal(dyn(x, [batch, batch]), dyn(x, batch))


def test_k_larger_than_every_example_takes_them_all():
    x = np.arange(6, dtype=np.float64).reshape(-1, 1) * np.ones((1, 2))
    batch = np.array([0, 0, 0, 1, 1, 1])
    conv = agnn.DynamicEdgeConv(agnn.Linear(4, 2, rng=0), k=50, aggr="add")
    full = np.array([[i, j] for i in range(6) for j in range(6) if i // 3 == j // 3]).T
    static = agnn.EdgeConv(conv.nn, aggr="add")
    np.testing.assert_allclose(conv(x, batch), static(x, full), rtol=1e-12)


def test_bad_input_is_named():
    lin = agnn.Linear(6, 2, rng=0)
    x = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match="DynamicEdgeConv: k must be in"):
        agnn.DynamicEdgeConv(lin, k=0)
    with pytest.raises(TypeError, match="DynamicEdgeConv: k must be an int"):
        agnn.DynamicEdgeConv(lin, k=2.5)
    with pytest.raises(ValueError, match="DynamicEdgeConv: aggr must be one of"):
        agnn.DynamicEdgeConv(lin, k=2, aggr="bogus")
    with pytest.raises(TypeError, match="DynamicEdgeConv: nn must be an arraygnn.nn Module"):
        agnn.DynamicEdgeConv(lambda z: z, k=2)
    with pytest.raises(ValueError, match="DynamicEdgeConv: num_workers must be in"):
        agnn.DynamicEdgeConv(lin, k=2, num_workers=0)
    conv = agnn.DynamicEdgeConv(lin, k=2)
    with pytest.raises(ValueError, match=r"node features must be \[num_nodes, F\]"):
        conv(np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"node features must be \[num_nodes, F\]"):
        conv(np.ones((4, 2, 3), np.float32))
    with pytest.raises(TypeError, match=r"x_src \(x\[0\]\) must be a NumPy or CuPy array"):
        conv(([[1.0, 2.0, 3.0]], x))
    with pytest.raises(ValueError, match="one width"):
        conv((x, np.ones((4, 2), np.float32)))
    with pytest.raises(ValueError, match="pair"):
        conv((x, x, x))
    with pytest.raises(ValueError, match="batch must be an array or a pair"):
        conv(x, (np.zeros(4, int),) * 3)
    with pytest.raises(ValueError, match="DynamicEdgeConv: knn: batch_x must be sorted"):
        conv(x, np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match=r"DynamicEdgeConv: knn: batch_x must have shape \(4,\)"):
        conv(x, np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="DynamicEdgeConv: knn: batch_x must be an integer"):
        conv(x, np.zeros(4))
    bad = x.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="DynamicEdgeConv: knn: x has NaN coordinates"):
        conv(bad)
