"""PyG's point-cloud layers and pools on a ``Batch`` of three random clouds, with the
weights of PyG modules (``arraygnn.nn.from_pyg``), side by side with PyG 2.8; and a small
PointNet++ classifier (set abstraction = fps + radius + PointNetConv, global max pool)
built in PyG, converted layer by layer and run on the same batch.

PyG's ``fps`` / ``knn`` / ``radius`` / ``voxel_grid`` call pyg-lib / torch_cluster
kernels, which are not installed: the ``pyg_point_ops`` fixture gives ``torch.ops.pyg``
brute-force versions of them (independent of arraygnn's search), so PyG's own wrappers and
layers (``DynamicEdgeConv``, ``XConv``, ``knn_interpolate``) run unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as N
from arraygnn.batch import Batch
from arraygnn.data import Data

torch = pytest.importorskip("torch")
P = pytest.importorskip("torch_geometric.nn")
pyg_data = pytest.importorskip("torch_geometric.data")
MLP = P.MLP


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# ------------------------------------------------ brute-force torch.ops.pyg for PyG's side
def _graph_of(ptr, n):
    if ptr is None:
        return np.zeros(n, np.int64)
    return np.repeat(np.arange(len(ptr) - 1), np.diff(ptr.numpy()))


def _search(x, y, ptr_x, ptr_y, limit, r, skip_self, cosine=False):
    """For each y point, the points of x of its example (distance < r), nearest first."""
    xn, yn = x.double().numpy().reshape(len(x), -1), y.double().numpy().reshape(len(y), -1)
    if cosine:
        xn = xn / np.maximum(np.linalg.norm(xn, axis=1, keepdims=True), 1e-12)
        yn = yn / np.maximum(np.linalg.norm(yn, axis=1, keepdims=True), 1e-12)
    bx, by = _graph_of(ptr_x, len(x)), _graph_of(ptr_y, len(y))
    rows, cols = [], []
    for i in range(len(yn)):
        d = ((xn - yn[i]) ** 2).sum(1)
        ok = (bx == by[i]) & (d < r * r)
        if skip_self:
            ok[i] = False
        nb = np.flatnonzero(ok)
        nb = nb[np.lexsort((nb, d[nb]))][:limit]
        rows += [i] * len(nb)
        cols += nb.tolist()
    return torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1)


def _fps(src, ptr, ratio, random_start):
    """torch_cluster's fps, the first point of each example as start."""
    assert not random_start
    src, out = src.view(src.size(0), -1), []
    for b in range(len(ptr) - 1):
        lo, hi = int(ptr[b]), int(ptr[b + 1])
        y, take = src[lo:hi], int(np.ceil((hi - lo) * float(ratio)))
        picks, d = [0], (y - y[0]).pow(2).sum(1)
        for _ in range(1, take):
            picks.append(int(d.argmax()))
            d = torch.min(d, (y - y[picks[-1]]).pow(2).sum(1))
        out += [lo + p for p in picks[:take]]
    return torch.tensor(out, dtype=torch.long)


def _grid(pos, size, start, end):
    """torch_cluster's grid_cluster."""
    pos = pos.view(pos.size(0), -1)
    start = pos.min(0).values if start is None else start
    end = pos.max(0).values if end is None else end
    pos = pos - start.unsqueeze(0)
    nv = (end - start).true_divide(size).long() + 1
    nv = torch.cat([torch.ones(1, dtype=torch.long), nv.cumprod(0)])[: len(size)]
    return (pos.true_divide(size.view(1, -1)).long() * nv.view(1, -1)).sum(1)


@pytest.fixture
def pyg_point_ops(monkeypatch):
    import torch_geometric.typing as typing

    def knn(x, y, ptr_x, ptr_y, k, cosine, num_workers):
        return _search(x, y, ptr_x, ptr_y, k, np.inf, False, cosine)

    def radius(x, y, ptr_x, ptr_y, r, max_num_neighbors, num_workers, ignore_same_index):
        return _search(x, y, ptr_x, ptr_y, max_num_neighbors, r, ignore_same_index)

    for flag in ("WITH_KNN", "WITH_RADIUS", "WITH_FPS", "WITH_GRID_CLUSTER"):
        monkeypatch.setattr(typing, flag, True, raising=False)
    for name, op in (("knn", knn), ("radius", radius), ("fps", _fps), ("grid_cluster", _grid)):
        monkeypatch.setattr(torch.ops.pyg, name, op, raising=False)


def _clouds(seed: int = 0, sizes=(8, 9, 10)) -> Batch:
    """Three clouds with pos, 4 features and unit normals, batched."""
    rng = np.random.default_rng(seed)
    graphs = []
    for n in sizes:
        normal = rng.normal(size=(n, 3)).astype(np.float32)
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        graphs.append(
            Data(
                pos=rng.random((n, 3)).astype(np.float32),
                x=rng.random((n, 4)).astype(np.float32),
                normal=normal,
            )
        )
    return Batch.from_data_list(graphs)


# ------------------------------------------------------------------ graph builders, pools
def test_graph_builders_and_pools_match_pyg_on_a_batch(pyg_point_ops):
    b = _clouds()
    pos, x, batch = b.pos, b.x, b.batch
    tpos, tx, tb = _t(pos), _t(x), _t(batch)
    sub = np.arange(0, pos.shape[0], 2)  # a sub-cloud as the query points
    tsub = _t(sub)
    same = np.testing.assert_array_equal
    same(N.knn_graph(pos, 3, batch), P.knn_graph(tpos, 3, tb).numpy())
    same(N.knn_graph(pos, 2, batch, loop=True), P.knn_graph(tpos, 2, tb, loop=True).numpy())
    same(N.radius_graph(pos, 0.5, batch), P.radius_graph(tpos, 0.5, tb).numpy())
    same(
        N.knn(pos, pos[sub], 2, batch, batch[sub]), P.knn(tpos, tpos[tsub], 2, tb, tb[tsub]).numpy()
    )
    same(
        N.radius(pos, pos[sub], 0.5, batch, batch[sub]),
        P.radius(tpos, tpos[tsub], 0.5, tb, tb[tsub]).numpy(),
    )
    idx = N.fps(pos, batch, 0.5, random_start=False)
    same(idx, P.fps(tpos, tb, 0.5, random_start=False).numpy())
    np.testing.assert_allclose(
        N.knn_interpolate(x[idx], pos[idx], pos, batch[idx], batch, k=3),
        P.knn_interpolate(tx[idx], tpos[idx], tpos, tb[idx], tb, k=3).numpy(),
        rtol=1e-5,
    )
    cluster = N.voxel_grid(pos, 0.5, batch)
    tcluster = P.voxel_grid(tpos, 0.5, tb)
    same(cluster, tcluster.numpy())
    for mine, theirs in ((N.max_pool_x, P.max_pool_x), (N.avg_pool_x, P.avg_pool_x)):
        (mx, mb), (px, pb) = mine(cluster, x, batch), theirs(tcluster, tx, tb)
        np.testing.assert_allclose(mx, px.numpy(), rtol=1e-6)
        same(mb, pb.numpy())
    b.edge_index = N.knn_graph(pos, 3, batch)
    tbatch = pyg_data.Batch.from_data_list(
        [pyg_data.Data(pos=_t(g.pos), x=_t(g.x)) for g in b.to_data_list()]
    )
    tbatch.edge_index = _t(b.edge_index)
    for mine, theirs in ((N.max_pool, P.max_pool), (N.avg_pool, P.avg_pool)):
        out, ref = mine(cluster, b), theirs(tcluster, tbatch)
        for key in ("x", "pos", "batch", "edge_index"):
            np.testing.assert_allclose(out[key], ref[key].numpy(), rtol=1e-6, err_msg=key)


# ------------------------------------------------------------------ convolutions
def test_point_convs_from_pyg_match_on_a_batch(pyg_point_ops):
    torch.manual_seed(0)
    b = _clouds(1)
    pos, x, batch, normal = b.pos, b.x, b.batch, b.normal
    tpos, tx, tb, tn = _t(pos), _t(x), _t(batch), _t(normal)
    ei = N.knn_graph(pos, 3, batch)
    tei = _t(ei)
    sub = np.arange(0, pos.shape[0], 2)
    dyn = P.DynamicEdgeConv(MLP([8, 16, 8]), k=4, aggr="max")
    cases = [
        (P.EdgeConv(MLP([8, 16, 8]), aggr="max"), (x, ei), (tx, tei)),
        (dyn, (x, batch), (tx, tb)),
        (dyn, ((x, x[sub]), (batch, batch[sub])), ((tx, tx[sub]), (tb, tb[sub]))),
        (P.PointNetConv(MLP([4 + 3, 16]), MLP([16, 8])), (x, pos, ei), (tx, tpos, tei)),
        (P.PointNetConv(MLP([3, 8]), add_self_loops=False), (None, pos, ei), (None, tpos, tei)),
        (P.PointTransformerConv(4, 8), (x, pos, ei), (tx, tpos, tei)),
        (P.PPFConv(MLP([4 + 4, 16]), MLP([16, 8])), (x, pos, normal, ei), (tx, tpos, tn, tei)),
        (
            P.PointGNNConv(MLP([4, 3]), MLP([4 + 3, 4]), MLP([4, 4])),
            (x, pos, ei),
            (tx, tpos, tei),
        ),
        (P.XConv(4, 8, dim=3, kernel_size=3, hidden_channels=4), (x, pos, batch), (tx, tpos, tb)),
    ]
    for module, mine, theirs in cases:
        module.eval()
        with torch.no_grad():
            ref = module(*theirs).numpy()
        out = N.from_pyg(module)(*mine)
        assert out.dtype == np.float32 and out.shape == ref.shape, module
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5, err_msg=repr(module))


# ------------------------------------------------------------------ a PointNet++ model
class _SAModule(torch.nn.Module):
    """PyG's examples/pointnet2_classification.py set abstraction (first point as start)."""

    def __init__(self, ratio, r, nn):
        super().__init__()
        self.ratio, self.r = ratio, r
        self.conv = P.PointNetConv(nn, add_self_loops=False)

    def forward(self, x, pos, batch):
        idx = P.fps(pos, batch, ratio=self.ratio, random_start=False)
        row, col = P.radius(pos, pos[idx], self.r, batch, batch[idx], max_num_neighbors=64)
        edge_index = torch.stack([col, row], dim=0)
        x_dst = None if x is None else x[idx]
        x = self.conv((x, x_dst), (pos, pos[idx]), edge_index)
        return x, pos[idx], batch[idx]


class _PointNet2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sa1 = _SAModule(0.5, 0.4, MLP([3, 8, 8, 16]))
        self.sa2 = _SAModule(0.5, 0.8, MLP([16 + 3, 16, 32]))
        self.sa3 = MLP([32 + 3, 32, 64])
        self.head = MLP([64, 32, 10], dropout=0.5, norm=None)

    def forward(self, pos, batch):
        x, pos, batch = self.sa2(*self.sa1(None, pos, batch))
        x = P.global_max_pool(self.sa3(torch.cat([x, pos], dim=1)), batch)
        return self.head(x).log_softmax(dim=-1)


def _set_abstraction(conv, ratio, r, x, pos, batch):
    """The same set abstraction with arraygnn's fps / radius and the converted conv."""
    idx = N.fps(pos, batch, ratio=ratio, random_start=False)
    row, col = N.radius(pos, pos[idx], r, batch, batch[idx], max_num_neighbors=64)
    x_dst = None if x is None else x[idx]
    return conv((x, x_dst), (pos, pos[idx]), np.stack([col, row])), pos[idx], batch[idx]


def test_pointnet2_classifier_from_pyg_matches_on_a_batch(pyg_point_ops):
    torch.manual_seed(0)
    model = _PointNet2().eval()  # BatchNorm in the MLPs: eval statistics
    for bn in model.modules():
        if isinstance(bn, torch.nn.BatchNorm1d):
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
    rng = np.random.default_rng(2)
    b = Batch.from_data_list(
        [Data(pos=rng.random((n, 3)).astype(np.float32), y=np.array([n])) for n in (10, 12, 14)]
    )
    with torch.no_grad():
        ref = model(_t(b.pos), _t(b.batch)).numpy()

    sa1, sa2 = N.from_pyg(model.sa1.conv), N.from_pyg(model.sa2.conv)
    sa3, head = N.from_pyg(model.sa3), N.from_pyg(model.head)
    x, pos, batch = _set_abstraction(sa1, 0.5, 0.4, None, b.pos, b.batch)
    x, pos, batch = _set_abstraction(sa2, 0.5, 0.8, x, pos, batch)
    h = N.global_max_pool(sa3(np.concatenate([x, pos], axis=1)), batch)
    logits = head(h)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    assert out.shape == (3, 10) and out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
