"""``get_num_hops``, ``dropout_adj``, ``normalize_edge_index``, ``geodesic_distance``,
``train_test_split_edges``, ``to_trimesh`` / ``from_trimesh``, ``to_networkit`` /
``from_networkit``, ``spmm`` and ``trim_to_layer`` against ``torch_geometric.utils`` (random
draws patched to hand PyG ours), plus hand-computed cases and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _utils_cases import INDEX_DTYPES, homogeneous_cases, t

import arraygnn.utils as U
from arraygnn.data import Data
from arraygnn.ops import to_csr

CASES = homogeneous_cases()
GRAPHS = [
    pytest.param(dt, label, ei.astype(dt), n, id=f"{label}-{np.dtype(dt).name}")
    for dt in INDEX_DTYPES
    for label, ei, n in CASES
]


def _pyg():
    pytest.importorskip("torch_geometric")
    import torch_geometric.utils as P

    return P


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# =========================================================================== get_num_hops
def test_get_num_hops_counts_message_passing_layers():
    from arraygnn.nn import GAT, GCN, GIN, GCNConv, GraphSAGE, Linear

    assert U.get_num_hops(GCNConv(3, 4)) == 1
    assert U.get_num_hops(Linear(3, 4)) == 0
    for cls in (GCN, GraphSAGE, GIN, GAT):
        assert U.get_num_hops(cls(3, 8, num_layers=3)) == 3
    with pytest.raises(TypeError, match="get_num_hops: model must be an arraygnn.nn layer"):
        U.get_num_hops(object())


def test_get_num_hops_matches_pyg_on_converted_models():
    pytest.importorskip("torch_geometric")
    import torch_geometric.nn as pyg_nn
    from torch_geometric.utils import get_num_hops as pyg_hops

    from arraygnn.nn import from_pyg

    models = [
        pyg_nn.GCN(3, 8, num_layers=2),
        pyg_nn.GraphSAGE(3, 8, num_layers=4, jk="cat"),
        pyg_nn.GIN(3, 8, num_layers=3),
        pyg_nn.GCNConv(3, 4),
        pyg_nn.MLP([3, 8, 2]),
    ]
    for model in models:
        assert U.get_num_hops(from_pyg(model)) == pyg_hops(model), type(model).__name__


def test_pyg_message_passing_names_are_pygs():
    pytest.importorskip("torch_geometric")
    import importlib
    import pkgutil

    import torch_geometric.nn
    from torch_geometric.nn.conv import MessagePassing

    from arraygnn.utils.num_hops import PYG_MESSAGE_PASSING

    for m in pkgutil.walk_packages(torch_geometric.nn.__path__, "torch_geometric.nn."):
        try:
            importlib.import_module(m.name)
        except Exception:  # noqa: BLE001 - optional extras of PyG
            pass

    def subclasses(c):
        for s in c.__subclasses__():
            yield s
            yield from subclasses(s)

    names = {
        s.__name__ for s in subclasses(MessagePassing) if s.__module__.startswith("torch_geometric")
    }
    assert PYG_MESSAGE_PASSING == names


def test_get_num_hops_flag_and_shared_layers():
    from arraygnn.nn import GCNConv, Linear
    from arraygnn.nn._module import Module

    class Mine(Linear):
        message_passing = True

    class NotMine(GCNConv):
        message_passing = False

    class Model(Module):
        _child_names = ("a", "b", "c", "d")

        def __init__(self):
            conv = GCNConv(2, 2)
            self.a, self.b, self.c, self.d = conv, conv, Mine(2, 2), NotMine(2, 2)

    assert U.get_num_hops(Model()) == 2  # the shared conv once, Mine, not NotMine


# =========================================================================== dropout_adj
@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("force", [False, True])
def test_dropout_adj_matches_pyg_with_our_draws(monkeypatch, dt, label, ei, n, force):
    import torch

    P = _pyg()
    attr = np.random.default_rng(1).standard_normal((ei.shape[1], 2)).astype(np.float32)
    snap = ei.copy()
    for p in (0.0, 0.3, 0.7, 1.0):
        ours = _quiet(U.dropout_adj, ei, attr, p=p, force_undirected=force, seed=4)
        draw = np.random.default_rng(4)
        monkeypatch.setattr(
            torch, "rand", lambda k, *a, d=draw, **kw: torch.from_numpy(d.random(k))
        )
        theirs = _quiet(P.dropout_adj, t(ei), t(attr), p=p, force_undirected=force)
        np.testing.assert_array_equal(ours[0], theirs[0].numpy())
        np.testing.assert_array_equal(ours[1], theirs[1].numpy())
        assert ours[0].dtype == dt
    np.testing.assert_array_equal(ei, snap)


def test_dropout_adj_warns_as_pyg_and_checks():
    P = _pyg()
    ei = np.array([[0, 1], [1, 0]])
    with pytest.warns(UserWarning) as ours:
        U.dropout_adj(ei, p=0.5, seed=0)
    with pytest.warns(UserWarning) as theirs:
        P.dropout_adj(t(ei), p=0.5)
    assert str(ours[0].message) == str(theirs[0].message)
    out, attr = _quiet(U.dropout_adj, ei, training=False)
    assert attr is None and out is not ei and out.tolist() == ei.tolist()
    with pytest.raises(ValueError, match="dropout_adj: p must be between 0 and 1"):
        _quiet(U.dropout_adj, ei, p=1.5)
    with pytest.raises(ValueError, match="dropout_adj: edge_attr must have one row per edge"):
        _quiet(U.dropout_adj, ei, np.ones(3))


# =========================================================================== normalize_edge_index
@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("loops", [True, False])
@pytest.mark.parametrize("symmetric", [True, False])
def test_normalize_edge_index_matches_pyg(dt, label, ei, n, loops, symmetric):
    P = _pyg()
    snap = ei.copy()
    out_ei, w = U.normalize_edge_index(ei, n, add_self_loops=loops, symmetric=symmetric)
    ref_ei, ref_w = P.normalize_edge_index(t(ei), n, add_self_loops=loops, symmetric=symmetric)
    np.testing.assert_array_equal(out_ei, ref_ei.numpy())
    assert w.dtype == np.float32 and out_ei.dtype == dt
    np.testing.assert_allclose(w, ref_w.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(ei, snap)


def test_normalize_edge_index_errors():
    with pytest.raises(ValueError, match="normalize_edge_index: edge_index must have shape"):
        U.normalize_edge_index(np.zeros((3, 2), int))
    with pytest.raises(ValueError, match="out of range"):
        U.normalize_edge_index(np.array([[0], [5]]), 3)
    with pytest.raises(TypeError, match="symmetric"):
        U.normalize_edge_index(np.array([[0], [1]]), symmetric=1)


# =========================================================================== geodesic_distance
def _square():
    pos = np.array([[0.0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0]])
    face = np.array([[0, 0], [1, 2], [3, 3]])
    return pos, face


@pytest.mark.parametrize("fdtype", [np.float32, np.float64])
@pytest.mark.parametrize("idtype", INDEX_DTYPES)
def test_geodesic_distance_pygs_example(fdtype, idtype):
    pos, face = _square()
    pos, face = pos.astype(fdtype), face.astype(idtype)
    r2 = np.sqrt(2)
    # PyG's docstring values (gdist), but corners 1 and 2: 2 along the edges, where gdist's
    # exact path crosses the diagonal edge 0-3 (sqrt 2)
    want = np.array([[0, 1, 1, r2], [1, 0, 2, 1], [1, 2, 0, 1], [r2, 1, 1, 0]])
    out = U.geodesic_distance(pos, face)
    assert out.dtype == fdtype
    np.testing.assert_allclose(out, want, rtol=1e-6)
    rows = U.geodesic_distance(pos, face, src=np.array([0, 2], idtype))
    np.testing.assert_allclose(rows, want[[0, 2]], rtol=1e-6)
    pairs = U.geodesic_distance(pos, face, src=np.array([0, 1, 3]), dst=np.array([3, 2, 3]))
    np.testing.assert_allclose(pairs, [r2, 2, 0], rtol=1e-6)
    # never below the straight line (a lower bound of every surface path)
    line = np.linalg.norm(pos[:, None] - pos[None], axis=-1) / 2
    assert (out >= line - 1e-6).all()
    np.testing.assert_allclose(U.geodesic_distance(pos, face, norm=False), 2 * want, rtol=1e-6)


def test_geodesic_distance_is_the_edge_graphs_shortest_path():
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(0)
    # a 5 x 5 grid mesh, jittered
    k = 5
    xy = np.stack(np.meshgrid(np.arange(k), np.arange(k), indexing="ij"), -1).reshape(-1, 2)
    pos = np.concatenate([xy + rng.uniform(-0.2, 0.2, xy.shape), np.zeros((k * k, 1))], 1)
    faces = []
    for i in range(k - 1):
        for j in range(k - 1):
            a, b, c, d = i * k + j, (i + 1) * k + j, i * k + j + 1, (i + 1) * k + j + 1
            faces += [[a, b, d], [a, d, c]]
    face = np.array(faces).T
    g = nx.Graph()
    for tri in face.T:
        for u, v in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])):
            g.add_edge(int(u), int(v), weight=float(np.linalg.norm(pos[u] - pos[v])))
    lengths = dict(nx.all_pairs_dijkstra_path_length(g))
    want = np.array([[lengths[i][j] for j in range(k * k)] for i in range(k * k)])
    np.testing.assert_allclose(U.geodesic_distance(pos, face, norm=False), want, rtol=1e-12)
    # max_distance: the full matrix is 0 beyond it (PyG's sparse matrix), rows are inf
    full = U.geodesic_distance(pos, face, norm=False, max_distance=1.5)
    np.testing.assert_allclose(full, np.where(want <= 1.5, want, 0.0), rtol=1e-12)
    rows = U.geodesic_distance(pos, face, src=np.array([0]), norm=False, max_distance=1.5)
    np.testing.assert_allclose(rows[0], np.where(want[0] <= 1.5, want[0], np.inf), rtol=1e-12)


def test_geodesic_distance_errors_and_dest():
    pos, face = _square()
    with pytest.warns(UserWarning, match="'dest' attribute"):
        out = U.geodesic_distance(pos, face, src=np.array([0]), dest=np.array([3]))
    assert out.shape == (1,)
    with pytest.raises(ValueError, match="geodesic_distance: face must be"):
        U.geodesic_distance(pos, face.T)
    with pytest.raises(ValueError, match="geodesic_distance: pos must be"):
        U.geodesic_distance(pos[:, :2], face)
    with pytest.raises(ValueError, match="out of range"):
        U.geodesic_distance(pos, face, src=np.array([9]))
    with pytest.raises(ValueError, match="dst without src must hold one id per node"):
        U.geodesic_distance(pos, face, dst=np.array([0]))


# =========================================================================== train_test_split_edges
@pytest.mark.parametrize("idtype", INDEX_DTYPES)
@pytest.mark.parametrize("with_attr", [False, True])
@pytest.mark.parametrize("ratios", [(0.05, 0.1), (0.2, 0.3), (0.0, 0.0)])
def test_train_test_split_edges_matches_pyg_with_our_draws(monkeypatch, idtype, with_attr, ratios):
    import torch
    from torch_geometric.data import Data as PygData

    P = _pyg()
    rng = np.random.default_rng(3)
    n = 15
    ei = U.to_undirected(rng.integers(0, n, (2, 40)), num_nodes=n).astype(idtype)
    d = Data(edge_index=ei, num_nodes=n)
    if with_attr:
        d.edge_attr = rng.standard_normal((ei.shape[1], 2)).astype(np.float32)
    ours = _quiet(U.train_test_split_edges, d, *ratios, seed=7)
    assert "edge_index" in d  # not modified
    draw = np.random.default_rng(7)
    monkeypatch.setattr(
        torch,
        "randperm",
        lambda k, *a, **kw: torch.from_numpy(draw.permutation(k).astype(np.int64)),
    )
    p = PygData(edge_index=t(ei), num_nodes=n)
    if with_attr:
        p.edge_attr = t(d.edge_attr)
    theirs = _quiet(P.train_test_split_edges, p, *ratios)
    keys = [k for k in theirs.keys() if k != "num_nodes"]
    assert sorted(keys) == sorted(k for k in ours.keys() if k != "num_nodes")
    for k in keys:
        np.testing.assert_array_equal(ours[k], theirs[k].numpy(), err_msg=k)
    assert ours.val_pos_edge_index.dtype == idtype


def test_train_test_split_edges_warns_and_checks():
    d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
    with pytest.warns(UserWarning, match="'train_test_split_edges' is deprecated"):
        U.train_test_split_edges(d, seed=0)
    with pytest.raises(ValueError, match="train_test_split_edges: takes a single graph"):
        _quiet(
            U.train_test_split_edges, Data(edge_index=d.edge_index, num_nodes=2, batch=np.zeros(2))
        )
    with pytest.raises(ValueError, match="val_ratio"):
        _quiet(U.train_test_split_edges, d, val_ratio=2.0)


# =========================================================================== trimesh
def test_trimesh_round_trip_matches_pyg():
    trimesh = pytest.importorskip("trimesh")
    from torch_geometric.data import Data as PygData

    P = _pyg()
    pos, face = _square()
    pos = pos.astype(np.float32)
    mesh = U.to_trimesh(Data(pos=pos, face=face.astype(np.int32)))
    ref = P.to_trimesh(PygData(pos=t(pos), face=t(face)))
    assert isinstance(mesh, trimesh.Trimesh)
    np.testing.assert_array_equal(mesh.vertices, ref.vertices)
    np.testing.assert_array_equal(mesh.faces, ref.faces)
    back, ref_back = U.from_trimesh(mesh), P.from_trimesh(ref)
    for k in ("pos", "face"):
        assert back[k].dtype == ref_back[k].numpy().dtype
        np.testing.assert_array_equal(back[k], ref_back[k].numpy())
    with pytest.raises(ValueError, match="to_trimesh: data has no 'face'"):
        U.to_trimesh(Data(pos=pos))
    with pytest.raises(TypeError, match="from_trimesh: mesh must be"):
        U.from_trimesh(object())


# =========================================================================== networkit
@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_networkit_matches_pyg(dt, label, ei, n, directed, weighted):
    pytest.importorskip("networkit")
    P = _pyg()
    w = np.random.default_rng(0).uniform(0.5, 2.0, ei.shape[1]) if weighted else None
    ours = U.to_networkit(ei, w, n, directed)
    theirs = P.to_networkit(t(ei), None if w is None else t(w), n, directed)
    assert ours.numberOfNodes() == theirs.numberOfNodes() == n
    assert list(ours.iterEdgesWeights()) == list(theirs.iterEdgesWeights())
    back, back_w = U.from_networkit(ours)
    if ours.numberOfEdges() == 0:
        assert back.shape == (2, 0)
        return
    ref, ref_w = P.from_networkit(theirs)
    np.testing.assert_array_equal(back, ref.numpy())
    if weighted:
        assert back_w.dtype == ref_w.numpy().dtype
        np.testing.assert_array_equal(back_w, ref_w.numpy())
    else:
        assert back_w is None and ref_w is None


def test_networkit_errors():
    pytest.importorskip("networkit")
    with pytest.raises(ValueError, match="to_networkit: edge_weight must have one row per edge"):
        U.to_networkit(np.array([[0], [1]]), np.ones(2))
    with pytest.raises(TypeError, match="from_networkit: g must be a networkit.Graph"):
        U.from_networkit(object())


# =========================================================================== spmm
@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("reduce", ["sum", "add", "mean", "min", "max"])
@pytest.mark.parametrize("fdtype", [np.float32, np.float64])
def test_spmm_matches_pyg(dt, label, ei, n, reduce, fdtype):
    import scipy.sparse as sp
    import torch

    P = _pyg()
    rng = np.random.default_rng(2)
    w = rng.uniform(-1, 2, ei.shape[1]).astype(fdtype)
    x = rng.standard_normal((n, 3)).astype(fdtype)
    a = sp.coo_matrix((w, (ei[1], ei[0])), shape=(n, n)).tocsr()  # rows: targets
    a.sum_duplicates()
    ref_a = torch.sparse_csr_tensor(
        torch.from_numpy(a.indptr.astype(np.int64)),
        torch.from_numpy(a.indices.astype(np.int64)),
        torch.from_numpy(a.data),
        size=(n, n),
    )
    ours = U.spmm(a, x, reduce)
    theirs = P.spmm(ref_a, torch.from_numpy(x), reduce).numpy()
    assert ours.dtype == fdtype
    tol = 1e-5 if fdtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    if reduce != "add":  # an arraygnn CSR: A[t, s], each parallel edge its own entry
        # (a CSR with repeated entries counts them apart; a COO's are summed, as PyG's)
        order = np.lexsort((ei[0], ei[1]))
        ptr = np.concatenate([[0], np.cumsum(np.bincount(ei[1], minlength=n))])
        ones = sp.csr_matrix((np.ones(ei.shape[1], fdtype), ei[0][order], ptr), shape=(n, n))
        np.testing.assert_allclose(
            U.spmm(to_csr(ei, n, n), x, reduce), U.spmm(ones, x, reduce), rtol=tol, atol=tol
        )


def test_spmm_rectangular_and_errors():
    import scipy.sparse as sp

    a = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 0, 0]]))
    x = np.array([[1.0], [2.0], [3.0]])
    assert U.spmm(a, x, "mean").ravel().tolist() == [3.5, 0.0]
    with pytest.raises(ValueError, match="spmm: reduce 'mul' not supported"):
        U.spmm(a, x, "mul")
    with pytest.raises(ValueError, match="spmm: other has 2 rows, src has 3 columns"):
        U.spmm(a, x[:2])
    with pytest.raises(TypeError, match="spmm: src must be a scipy.sparse"):
        U.spmm(np.eye(3), x)


# =========================================================================== trim_to_layer
@pytest.mark.parametrize("layer", [0, 1, 2, 3])
def test_trim_to_layer_matches_pyg(layer):
    import torch

    P = _pyg()
    from torch_geometric.utils import trim_to_layer as pyg_trim

    del P
    nodes, edges = [2, 3, 4, 5], [4, 6, 7]
    x = np.arange(14 * 2, dtype=np.float32).reshape(14, 2)
    ei = np.random.default_rng(0).integers(0, 14, (2, 17)).astype(np.int32)
    attr = np.arange(17.0)
    ours = U.trim_to_layer(layer, nodes, edges, x, ei, attr)
    theirs = pyg_trim(layer, nodes, edges, torch.from_numpy(x), t(ei), torch.from_numpy(attr))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b.numpy())
    assert ours[1].dtype == np.int32
    # heterogeneous
    xd = {"a": x, "b": x[:9]}
    eid = {("a", "to", "b"): ei[:, :10], ("b", "to", "a"): ei[:, :12]}
    nd = {"a": [2, 3, 4, 5], "b": [1, 2, 3, 3]}
    ed = {("a", "to", "b"): [1, 2, 3], ("b", "to", "a"): [3, 3, 3]}
    ad = {k: np.arange(float(v.shape[1])) for k, v in eid.items()}
    ours = U.trim_to_layer(layer, nd, ed, xd, eid, ad)
    conv = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in xd.items()}
    theirs = pyg_trim(
        layer,
        nd,
        ed,
        conv,
        {k: t(v) for k, v in eid.items()},
        {k: torch.from_numpy(v) for k, v in ad.items()},
    )
    for a, b in zip(ours, theirs):
        for k in b:
            np.testing.assert_array_equal(a[k], b[k].numpy())


def test_trim_to_layer_errors():
    x, ei = np.zeros((3, 1)), np.zeros((2, 4), int)
    with pytest.raises(ValueError, match="trim_to_layer: layer 3 needs num_sampled_nodes_per_hop"):
        U.trim_to_layer(3, [1, 1], [1, 1], x, ei)
    with pytest.raises(ValueError, match="cannot trim 5 from x"):
        U.trim_to_layer(1, [5], [1], x, ei)
    with pytest.raises(TypeError, match="must be dicts too"):
        U.trim_to_layer(1, [1], {("a", "b", "c"): [1]}, x, ei)
    out = U.trim_to_layer(1, [1], [2], x, ei)
    assert np.shares_memory(out[0], x)  # views, as PyG's narrow
