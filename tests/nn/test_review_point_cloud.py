"""Review of the point-cloud layers and helpers (PointTransformerConv, PPFConv,
PointGNNConv, XConv, PointNetConv on nn/_point_cloud.py; fps / nearest / voxel_grid):
each test here failed before its fix, against PyG 2.8.1 where PyG runs here.

PyG 2.8.1's ``fps`` / ``nearest`` / ``XConv`` call pyg-lib's ``torch.ops.pyg`` kernels
(not installable here); the tests put torch ports of pyg-lib's CPU kernels there
(``fps_kernel.cpp``, ``nearest_kernel.cpp``; ``knn_kernel.cpp`` as a brute-force search,
neighbours nearest first) and run PyG's own wrappers around them."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from _nn_cases import TOL, rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _fps_kernel(src, ptr, ratio, random_start):
    """pyg-lib's ``csrc/ops/cpu/fps_kernel.cpp`` (after ``fps.cpp``'s ``view(N, -1)``),
    first point as start."""
    assert not random_start
    src = src.reshape(src.size(0), -1)
    deg = ptr[1:] - ptr[:-1]
    out_ptr = (deg.to(torch.float) * ratio).ceil().long().cumsum(0)
    out = []
    for b in range(len(deg)):
        y = src[int(ptr[b]) : int(ptr[b + 1])]
        take = int(out_ptr[b]) - (int(out_ptr[b - 1]) if b else 0)
        if take == 0:
            continue
        picks = [0]
        dist = (y - y[0]).pow(2).sum(1)
        for _ in range(1, take):
            nxt = int(dist.argmax())
            picks.append(nxt)
            dist = torch.min(dist, (y - y[nxt]).pow(2).sum(1))
        out += [int(ptr[b]) + p for p in picks]
    return torch.tensor(out, dtype=torch.long)


def _nearest_kernel(x, y, ptr_x, ptr_y):
    """pyg-lib's ``csrc/ops/cpu/nearest_kernel.cpp`` (after ``nearest.cpp``'s
    ``view(N, -1)``): squared distances in the points' dtype, the first minimum."""
    x, y = x.reshape(x.size(0), -1), y.reshape(y.size(0), -1)
    if ptr_x is None:
        ptr_x, ptr_y = torch.tensor([0, len(x)]), torch.tensor([0, len(y)])
    out = torch.zeros(len(x), dtype=torch.long)
    for b in range(len(ptr_x) - 1):
        ys = y[int(ptr_y[b]) : int(ptr_y[b + 1])]
        for i in range(int(ptr_x[b]), int(ptr_x[b + 1])):
            d = (x[i] - ys).pow(2).sum(1)
            out[i] = int(ptr_y[b]) + int(d.argmin())
    return out


def _knn_kernel(x, y, ptr_x, ptr_y, k, cosine, num_workers):
    """pyg-lib's ``knn``: for every point of ``y`` its ``k`` nearest points of ``x`` in
    the same example, nearest first (row 0 the query, row 1 the neighbour); brute force,
    a tie to the lower index."""
    assert not cosine
    if ptr_x is None:
        ptr_x, ptr_y = torch.tensor([0, len(x)]), torch.tensor([0, len(y)])
    rows, cols = [], []
    for b in range(len(ptr_x) - 1):
        x0, x1, y0, y1 = (int(ptr_x[b]), int(ptr_x[b + 1]), int(ptr_y[b]), int(ptr_y[b + 1]))
        if x0 == x1 or y0 == y1:
            continue
        for i in range(y0, y1):
            d = (x[x0:x1] - y[i]).pow(2).sum(1).double().numpy()
            order = np.argsort(d, kind="stable")[:k]
            rows += [i] * len(order)
            cols += [x0 + int(j) for j in order]
    return torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1)


@pytest.fixture
def pyg_lib_kernels(monkeypatch):
    import torch_geometric.typing as typing

    for flag in ("WITH_FPS", "WITH_NEAREST", "WITH_KNN"):
        monkeypatch.setattr(typing, flag, True, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "fps", _fps_kernel, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "nearest", _nearest_kernel, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "knn", _knn_kernel, raising=False)


# ------------------------------------------------------------------ fps / nearest
def test_fps_arguments_are_pygs():
    """PyG's ``fps(x, batch, ratio, random_start, batch_size)``: a fifth positional
    argument is the number of examples (it was taken as the random seed)."""
    pyg = list(inspect.signature(pyg_nn.fps).parameters)
    mine = list(inspect.signature(agnn.fps).parameters)
    assert mine[: len(pyg)] == pyg
    pos = np.random.default_rng(0).standard_normal((9, 3))
    batch = np.array([0, 0, 0, 1, 1, 3, 3, 3, 3])
    full = agnn.fps(pos, batch, 0.5, False).tolist()
    assert (
        agnn.fps(x=pos, batch=batch, ratio=0.5, random_start=False, batch_size=6).tolist() == full
    )
    assert agnn.fps(pos, batch, 0.5, False, 4).tolist() == full
    with pytest.raises(ValueError, match="fps: batch_size"):
        agnn.fps(pos, batch, 0.5, False, 3)  # PyG drops example 3 without a word
    with pytest.raises(TypeError, match="fps: batch_size"):
        agnn.fps(pos, batch, 0.5, False, 4.0)
    assert agnn.fps(pos, None, 0.5, False, 1).tolist() == agnn.fps(pos, None, 0.5, False).tolist()
    # random starts stay repeatable through the keyword-only seed
    assert agnn.fps(pos, batch, seed=3).tolist() == agnn.fps(pos, batch, seed=3).tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fps_and_nearest_flatten_trailing_dims(pyg_lib_kernels, dtype):
    """PyG's fps (``x.view(N, -1)``) and pyg-lib's nearest take points with more than two
    dimensions, flattened per point; arraygnn refused them."""
    rng = np.random.default_rng(1)
    pos = rng.standard_normal((17, 2, 3)).astype(dtype)
    batch = np.repeat([0, 1, 2], [8, 4, 5])
    for ratio in (0.3, 1.0):
        expected = pyg_nn.fps(_t(pos), _t(batch), ratio, False).tolist()
        assert agnn.fps(pos, batch, ratio, False).tolist() == expected
    y = rng.standard_normal((6, 3, 2)).astype(dtype)
    by = np.array([0, 0, 1, 2, 2, 2])
    expected = pyg_nn.nearest(_t(pos), _t(y), _t(batch), _t(by)).tolist()
    assert agnn.nearest(pos, y, batch, by).tolist() == expected
    assert agnn.nearest(pos, y).tolist() == pyg_nn.nearest(_t(pos), _t(y)).tolist()
    with pytest.raises(ValueError, match="nearest: x and y"):
        agnn.nearest(pos, y[:, :2])  # 6 against 4 coordinates
    with pytest.raises(ValueError, match="voxel_grid: pos"):
        agnn.voxel_grid(pos, 1.0)  # PyG's voxel_grid takes [N, D] only


# ------------------------------------------------------------------ XConv
@pytest.mark.parametrize("dilation", [1, 2])
def test_xconv_against_independent_knn(pyg_lib_kernels, dilation):
    """PyG's XConv around a brute-force knn (not arraygnn's own search)."""
    rng = np.random.default_rng(2)
    module = pyg_nn.XConv(6, 10, 3, 3, None, dilation).double().eval()
    for p in module.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    conv = agnn.from_pyg(module)
    pos = rng.standard_normal((21, 3))
    x = rng.standard_normal((21, 6))
    batch = np.repeat([0, 1, 3], [9, 6, 6])
    with torch.no_grad():
        expected = module(_t(x), _t(pos), _t(batch)).numpy()
    assert rel_err(conv(x, pos, batch), expected) <= TOL[np.float64] * 10


def test_xconv_batch_errors_name_the_argument():
    conv = agnn.XConv(4, 8, 3, 2, rng=0)
    x, pos = np.ones((5, 4), np.float32), np.ones((5, 3), np.float32)
    with pytest.raises(TypeError, match="XConv: batch must be an integer"):
        conv(x, pos, np.zeros(5))
    with pytest.raises(ValueError, match="XConv: batch must be sorted"):
        conv(x, pos, np.array([1, 0, 0, 1, 1]))
    with pytest.raises(ValueError, match=r"XConv: batch must have shape \(5,\)"):
        conv(x, pos, np.array([0, 0, 0, 1]))


# ------------------------------------------------------------------ widths named
def test_point_transformer_width_errors_name_layer():
    conv = agnn.PointTransformerConv((4, 5), 6, rng=0)
    x, x5, pos = np.ones((5, 4), np.float32), np.ones((5, 5), np.float32), np.ones((5, 3))
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    assert conv((x, x5), (pos, pos), ei).shape == (5, 6)
    with pytest.raises(ValueError, match=r"PointTransformerConv: lin takes 4 .*x_src .* 5"):
        conv((x5, x5), pos, ei)
    with pytest.raises(ValueError, match=r"PointTransformerConv: lin_dst takes 5 .*x_dst .* 4"):
        conv((x, x), pos, ei)
    with pytest.raises(ValueError, match=r"PointTransformerConv: pos_nn takes 3 .*pos.* 2"):
        conv((x, x5), np.ones((5, 2)), ei)


def test_point_net_ppf_gnn_width_errors_name_layer():
    x, pos = np.ones((5, 3)), np.ones((5, 3))
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    mlp = agnn.MLP([7, 8, 4], rng=0)  # takes 4 features and 3 coordinates
    with pytest.raises(ValueError, match=r"PointNetConv: local_nn takes 7 .* 6"):
        agnn.PointNetConv(mlp)(x, pos, ei)
    with pytest.raises(ValueError, match=r"PPFConv: local_nn takes 8 .* 7"):
        agnn.PPFConv(agnn.MLP([8, 8, 4], rng=0))(np.ones((5, 3)), pos, pos, ei)
    h, f, g = agnn.Linear(4, 3), agnn.Linear(7, 6), agnn.Linear(6, 4)
    with pytest.raises(ValueError, match=r"PointGNNConv: mlp_h takes 4 .* 3"):
        agnn.PointGNNConv(h, f, g)(x, pos, ei)
    x4 = np.ones((5, 4))
    with pytest.raises(ValueError, match=r"PointGNNConv: mlp_f takes 6 .* 7"):
        agnn.PointGNNConv(h, agnn.Linear(6, 6), g)(x4, pos, ei)
    with pytest.raises(ValueError, match=r"PointGNNConv: mlp_g .*\(5, 4\).*got \(5, 5\)"):
        agnn.PointGNNConv(h, f, agnn.Linear(6, 5))(x4, pos, ei)


@pytest.mark.parametrize("dim", [2, 4])
def test_fps_exact_on_near_ties_up_to_four_coordinates(pyg_lib_kernels, dim):
    """Near ties (points an ulp apart in distance) pick as torch sums: in order for rows
    of up to 4 coordinates (the documented bound of the exact claim)."""
    rng = np.random.default_rng(5)
    pos = (np.round(rng.standard_normal((600, dim)) * 4) / 4).astype(np.float32)
    pos += (rng.standard_normal(pos.shape) * 1e-7).astype(np.float32)
    batch = np.repeat([0, 1], [350, 250])
    expected = pyg_nn.fps(_t(pos), _t(batch), 0.5, False).tolist()
    assert agnn.fps(pos, batch, 0.5, False).tolist() == expected
