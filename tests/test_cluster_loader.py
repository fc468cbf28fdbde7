"""Cluster-GCN: ClusterData / ClusterLoader (PyG face) and ClusterGCNSampler (DGL face).

PyG's METIS needs torch_sparse or pyg-lib (not installed): PyG's own code runs after the
partition with its ``_metis`` patched to return the same part ids we give ``partition=``,
so everything after METIS is compared with PyG 2.8.1 itself. METIS (pymetis) is checked
by its guarantees and against pymetis called directly on PyG's CSR.
"""

import sys

import numpy as np
import pytest

from arraygnn.cluster_data import ClusterData, metis_partition
from arraygnn.cluster_loader import ClusterLoader
from arraygnn.data import Data


def make_graph(n, e, seed=0, dtype=np.int64, isolated=0, loops=True):
    """``n`` nodes (the last ``isolated`` without edges), ``e`` random edges (multi-edges
    likely, self-loops unless ``loops=False``), node ids in ``x[:, 0]``."""
    rng = np.random.default_rng(seed)
    hi = max(n - isolated, 1)
    ei = rng.integers(0, hi, (2, e)) if n else np.zeros((2, 0), np.int64)
    if n and e:
        ei[:, : e // 4] = ei[:, e // 4 : 2 * (e // 4)]  # multi-edges for sure
    if not loops:
        ei = ei[:, ei[0] != ei[1]]
    return Data(
        x=np.arange(n, dtype=np.float64)[:, None] * np.ones((1, 3)),
        y=rng.integers(0, 5, n),
        edge_index=ei.astype(dtype),
        edge_attr=rng.standard_normal((ei.shape[1], 2)).astype(np.float32),
        edge_weight=np.arange(ei.shape[1], dtype=np.float64),
        graph_label=np.array([7]),
    )


ATTRS = {"node_attrs": ["x", "y"], "graph_attrs": ["graph_label"]}


def pyg_cluster(data, part, num_parts, **kwargs):
    """PyG's ClusterData with its METIS replaced by ``part``, and its ``index_sort`` the
    stable one pyg-lib gives (a radix sort); without pyg-lib PyG falls back to torch's
    unstable sort, whose order of a part's nodes (and of equal edges) is arbitrary."""
    torch = pytest.importorskip("torch")
    import torch_geometric.loader.cluster as cluster
    import torch_geometric.utils._sort_edge_index as sort_edge
    from torch_geometric.data import Data as PygData

    class Patched(cluster.ClusterData):
        def _metis(self, edge_index, num_nodes):
            return torch.from_numpy(part.astype(np.int64))

    def stable(inputs, max_value=None, stable=False):
        return inputs.sort(stable=True)

    store = {k: torch.as_tensor(v) for k, v in data.items() if k != "graph_label"}
    store["edge_index"] = store["edge_index"].long()
    saved = cluster.index_sort, sort_edge.index_sort
    cluster.index_sort = sort_edge.index_sort = stable
    try:
        return Patched(PygData(**store), num_parts, log=False, **kwargs)
    finally:
        cluster.index_sort, sort_edge.index_sort = saved


def assert_same(ours, theirs):
    np.testing.assert_array_equal(ours.edge_index, theirs.edge_index.numpy())
    for key in ("x", "y", "edge_attr", "edge_weight"):
        np.testing.assert_array_equal(ours[key], theirs[key].numpy(), err_msg=key)
    assert ours.num_nodes == theirs.num_nodes
    np.testing.assert_array_equal(ours.graph_label, [7])


CASES = [  # (n, e, num_parts, isolated, loops)
    (30, 120, 4, 0, True),
    (25, 60, 5, 6, True),  # isolated nodes
    (40, 200, 3, 0, False),
    (12, 0, 3, 0, True),  # no edges
    (1, 3, 1, 0, True),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("sparse_format", ["csr", "csc"])
@pytest.mark.parametrize("keep", [False, True])
def test_cluster_data_equals_pyg(case, dtype, sparse_format, keep):
    n, e, k, isolated, loops = case
    data = make_graph(n, e, seed=n + e, dtype=dtype, isolated=isolated, loops=loops)
    part = np.random.default_rng(1).integers(0, k, n)
    if k > 2:
        part[part == 1] = 0  # part 1 is empty
    ours = ClusterData(
        data, k, partition=part, log=False, keep_inter_cluster_edges=keep,
        sparse_format=sparse_format, **ATTRS,
    )  # fmt: skip
    theirs = pyg_cluster(data, part, k, keep_inter_cluster_edges=keep, sparse_format=sparse_format)
    for field in ("indptr", "index", "partptr", "node_perm", "edge_perm"):
        np.testing.assert_array_equal(
            getattr(ours.partition, field), getattr(theirs.partition, field).numpy(), field
        )
    for key in ("x", "y", "edge_attr", "edge_weight"):
        np.testing.assert_array_equal(ours.data[key], theirs.data[key].numpy(), key)
    assert "edge_index" not in ours.data
    assert len(ours) == len(theirs) == k
    for i in range(k):
        got = ours[i]
        assert got.edge_index.dtype == dtype
        assert_same(got, theirs[i])
    assert_same(ours[-1], theirs[k - 1])


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("sparse_format", ["csr", "csc"])
def test_cluster_loader_equals_pyg(case, dtype, sparse_format):
    from torch_geometric.loader import ClusterLoader as PygLoader

    n, e, k, isolated, loops = case
    data = make_graph(n, e, seed=3 * n + e, dtype=dtype, isolated=isolated, loops=loops)
    part = np.random.default_rng(2).integers(0, k, n)
    part[part == k - 1] = 0  # the last part is empty
    ours = ClusterData(data, k, partition=part, log=False, sparse_format=sparse_format, **ATTRS)
    theirs = pyg_cluster(data, part, k, sparse_format=sparse_format)
    for batch_size in (1, 2, k):
        loader = ClusterLoader(ours, batch_size=batch_size)
        pyg_loader = PygLoader(theirs, batch_size=batch_size)
        got = list(loader)
        assert len(got) == len(pyg_loader)
        for g, parts in zip(got, pyg_loader.batch_sampler):
            assert g.edge_index.dtype == dtype
            compare_batch(g, pyg_loader, parts, ours)
    # any part order, as a shuffled epoch draws them
    loader = ClusterLoader(ours)
    rng = np.random.default_rng(0)
    for _ in range(5):
        parts = rng.permutation(k)[: rng.integers(1, k + 1)]
        compare_batch(loader._collate(parts), pyg_loader, parts.tolist(), ours)


def compare_batch(ours, pyg_loader, parts, cluster_data):
    """PyG's batch of ``parts``; PyG 2.8.1 raises (``map_index`` of nothing) when the
    parts' rows hold no edge: then ours is their nodes without edges."""
    p = cluster_data.partition
    if all(p.indptr[p.partptr[i]] == p.indptr[p.partptr[i + 1]] for i in parts):
        with pytest.raises(RuntimeError):
            pyg_loader._collate(list(parts))
        nodes = np.concatenate([np.arange(p.partptr[i], p.partptr[i + 1]) for i in parts])
        assert ours.num_edges == 0 and ours.num_nodes == nodes.shape[0]
        np.testing.assert_array_equal(ours.x, cluster_data.data.x[nodes])
        return
    assert_same(ours, pyg_loader._collate(list(parts)))


def test_shuffled_epoch_covers_every_node_once():
    data = make_graph(60, 400, seed=5, isolated=5)
    part = np.random.default_rng(3).integers(0, 7, 60)
    cd = ClusterData(data, 7, partition=part, log=False, **ATTRS)
    src, dst = data.edge_index
    for batch_size, drop_last in ((2, False), (3, False), (3, True)):
        loader = ClusterLoader(cd, batch_size=batch_size, shuffle=True, drop_last=drop_last, seed=0)
        batches = list(loader)
        assert len(batches) == len(loader) == (7 // 3 if drop_last else -(-7 // batch_size))
        ids = np.concatenate([b.x[:, 0].astype(np.int64) for b in batches])
        if not drop_last:
            np.testing.assert_array_equal(np.sort(ids), np.arange(60))
        for b in batches:
            glob = b.x[:, 0].astype(np.int64)
            inside = np.zeros(60, bool)
            inside[glob] = True
            # exactly the edges with both ends in the batch, weights following them
            want = np.flatnonzero(inside[src] & inside[dst])
            np.testing.assert_array_equal(np.sort(b.edge_weight).astype(np.int64), want)
            order = b.edge_weight.astype(np.int64)
            np.testing.assert_array_equal(glob[b.edge_index[0]], src[order])
            np.testing.assert_array_equal(glob[b.edge_index[1]], dst[order])
            np.testing.assert_array_equal(b.y, data.y[glob])
            assert len(np.unique(part[glob])) <= batch_size
    # the same seed, the same epochs; another epoch, another order
    a = [b.x[:, 0].tolist() for b in ClusterLoader(cd, batch_size=2, shuffle=True, seed=4)]
    b = [b.x[:, 0].tolist() for b in ClusterLoader(cd, batch_size=2, shuffle=True, seed=4)]
    assert a == b
    c = [b.x[:, 0].tolist() for b in ClusterLoader(cd, batch_size=2, shuffle=True, seed=4,
                                                    prefetch=2)]  # fmt: skip
    assert c == a
    d = [b.x[:, 0].tolist() for b in ClusterLoader(cd, batch_sampler=[[6, 0], [3]])]
    assert d == [np.flatnonzero(part == 6).tolist() + np.flatnonzero(part == 0).tolist(),
                 np.flatnonzero(part == 3).tolist()]  # fmt: skip


def test_parts_every_node_once_and_stable_order():
    part = np.array([2, 0, 2, 1, 0, 2, 2])
    data = Data(num_nodes=7, edge_index=np.array([[0, 6], [6, 0]]))
    cd = ClusterData(data, 4, partition=part, log=False)
    np.testing.assert_array_equal(cd.partition.partptr, [0, 2, 3, 7, 7])
    np.testing.assert_array_equal(cd.partition.node_perm, [1, 4, 3, 0, 2, 5, 6])
    assert cd[3].num_nodes == 0 and cd[3].edge_index.shape == (2, 0)
    assert cd[2].edge_index.tolist() == [[0, 3], [3, 0]]
    assert cd[2].num_nodes == 4
    assert [b.num_nodes for b in ClusterLoader(cd)] == [2, 1, 4, 0]


def test_nothing_mutated_and_batches_own_arrays():
    data = make_graph(20, 50, seed=9)
    before = {k: v.copy() for k, v in data.items()}
    cd = ClusterData(data, 3, partition=np.arange(20) % 3, log=False, **ATTRS)
    batch = next(iter(ClusterLoader(cd, batch_size=2)))
    batch.x[:] = -1
    batch.edge_attr[:] = -1
    for k, v in before.items():
        np.testing.assert_array_equal(data[k], v)
    assert (cd.data.x >= 0).all() and (cd.data.edge_attr != -1).all()


def test_save_dir_round_trip(tmp_path, monkeypatch):
    data = make_graph(20, 60, seed=4)
    part = np.arange(20) % 4
    a = ClusterData(data, 4, save_dir=str(tmp_path), partition=part, log=False, **ATTRS)
    assert (tmp_path / "part_4" / "metis.npz").exists()
    b = ClusterData(data, 4, save_dir=str(tmp_path), log=False, **ATTRS)  # read back: no METIS
    for field in ("indptr", "index", "partptr", "node_perm", "edge_perm"):
        np.testing.assert_array_equal(getattr(a.partition, field), getattr(b.partition, field))
    ClusterData(data, 4, save_dir=str(tmp_path), filename="p.npz", partition=part, log=False,
                **ATTRS)  # fmt: skip
    assert (tmp_path / "part_4" / "p.npz").exists()
    with pytest.raises(ValueError, match="does not fit this graph"):
        ClusterData(make_graph(21, 60), 4, save_dir=str(tmp_path), log=False, **ATTRS)
    with pytest.raises(ValueError, match="does not fit this graph"):
        ClusterData(data, 4, save_dir=str(tmp_path), sparse_format="csc", log=False, **ATTRS)


def test_without_pymetis_import_error_names_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymetis", None)
    data = make_graph(10, 30)
    with pytest.raises(ImportError, match=r"arraygnn\[metis\].*partition="):
        ClusterData(data, 2, log=False, **ATTRS)
    ClusterData(data, 2, partition=np.zeros(10, np.int64), log=False, **ATTRS)  # no METIS


def undirected(n, e, seed):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e))
    ei = ei[:, ei[0] != ei[1]]
    ei = np.unique(np.concatenate([ei, ei[::-1]], axis=1), axis=1)
    return Data(x=np.arange(n, dtype=np.float64)[:, None], edge_index=ei)


@pytest.mark.parametrize("recursive", [False, True])
@pytest.mark.parametrize("sparse_format", ["csr", "csc"])
def test_metis_partition(recursive, sparse_format, capsys):
    pymetis = pytest.importorskip("pymetis")
    if not hasattr(pymetis, "CSRAdjacency"):
        pytest.skip("pymetis < 2025.2")
    data = undirected(200, 800, seed=1)
    cd = ClusterData(data, 5, recursive=recursive, sparse_format=sparse_format)
    assert "Computing METIS partitioning" in capsys.readouterr().err
    p = cd.partition
    assert np.diff(p.partptr).min() > 0 and p.partptr[-1] == 200
    np.testing.assert_array_equal(np.sort(p.node_perm), np.arange(200))
    # the part ids pymetis gives on PyG's CSR (sorted neighbours) of the graph
    src, dst = data.edge_index if sparse_format == "csr" else data.edge_index[::-1]
    order = np.lexsort((dst, src))
    xadj = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=200))])
    adjacency = pymetis.CSRAdjacency(xadj, dst[order])
    want = pymetis.part_graph(5, adjacency, recursive=recursive).vertex_part
    np.testing.assert_array_equal(np.diff(p.partptr), np.bincount(want, minlength=5))
    np.testing.assert_array_equal(p.node_perm, np.argsort(np.asarray(want), kind="stable"))
    # the partition gives a sensible cut: far fewer cut edges than a random split
    part = np.empty(200, np.int64)
    part[p.node_perm] = np.repeat(np.arange(5), np.diff(p.partptr))
    s, d = data.edge_index
    rand = np.random.default_rng(0).integers(0, 5, 200)
    assert (part[s] != part[d]).sum() < 0.7 * (rand[s] != rand[d]).sum()
    # the METIS path equals the partition= path with its part ids
    again = ClusterData(data, 5, partition=part, log=False, sparse_format=sparse_format)
    assert_same_partition(cd, again)
    assert len(list(ClusterLoader(cd, batch_size=2))) == 3


def assert_same_partition(a, b):
    for field in ("indptr", "index", "partptr", "node_perm", "edge_perm"):
        np.testing.assert_array_equal(getattr(a.partition, field), getattr(b.partition, field))


def test_metis_edge_cases():
    pytest.importorskip("pymetis")
    empty = np.zeros(1, np.int64)
    assert metis_partition(empty, np.zeros(0, np.int64), 3).shape == (0,)
    ptr = np.array([0, 1, 2])
    np.testing.assert_array_equal(metis_partition(ptr, np.array([1, 0]), 1), [0, 0])
    cd = ClusterData(Data(num_nodes=0, edge_index=np.zeros((2, 0), np.int64)), 2, log=False)
    assert len(cd) == 2 and cd[0].num_nodes == 0 and list(ClusterLoader(cd)) != []


def test_errors():
    data = make_graph(10, 30)
    part = np.zeros(10, np.int64)
    kw = {"log": False, **ATTRS}
    with pytest.raises(ValueError, match="ClusterData: num_parts must be >= 1"):
        ClusterData(data, 0, partition=part, **kw)
    with pytest.raises(TypeError, match="ClusterData: num_parts must be an int"):
        ClusterData(data, 2.0, partition=part, **kw)
    with pytest.raises(ValueError, match="sparse_format must be 'csr' or 'csc'"):
        ClusterData(data, 2, partition=part, sparse_format="coo", **kw)
    with pytest.raises(ValueError, match=r"partition must have shape \[num_nodes\]"):
        ClusterData(data, 2, partition=part[:9], **kw)
    with pytest.raises(TypeError, match="partition must be an integer array"):
        ClusterData(data, 2, partition=part.astype(float), **kw)
    with pytest.raises(TypeError, match="partition must be a NumPy integer array"):
        ClusterData(data, 2, partition=part.tolist(), **kw)
    with pytest.raises(ValueError, match="part id 2, out of range for num_parts=2"):
        ClusterData(data, 2, partition=part + 2, **kw)
    with pytest.raises(ValueError, match="negative part id"):
        ClusterData(data, 2, partition=part - 1, **kw)
    with pytest.raises(ValueError, match="ClusterData: data has no edge_index"):
        ClusterData(Data(x=np.ones((3, 1))), 2, partition=part[:3], log=False)
    with pytest.raises(ValueError, match="num_nodes is unknown"):
        ClusterData(Data(edge_index=np.zeros((2, 0), np.int64)), 1, log=False)
    bad = make_graph(10, 30)
    bad.edge_index[0, 0] = 10
    with pytest.raises(ValueError, match="ClusterData: edge_index has entry 10"):
        ClusterData(bad, 2, partition=part, **kw)
    with pytest.raises(ValueError, match=r"\['y'\] are neither node, edge nor graph"):
        ClusterData(data, 2, partition=part, log=False, graph_attrs=["graph_label"])
    with pytest.raises(TypeError, match="ClusterData: data must be a Data"):
        ClusterData({"edge_index": data.edge_index}, 2, partition=part, log=False)
    cd = ClusterData(data, 2, partition=part, **kw)
    with pytest.raises(IndexError, match="part 2 out of range for 2 parts"):
        cd[2]
    with pytest.raises(TypeError, match="ClusterLoader: cluster_data must be a ClusterData"):
        ClusterLoader(data)
    loader = ClusterLoader(cd)
    with pytest.raises(ValueError, match="holds a part twice"):
        loader._collate(np.array([1, 1]))
    with pytest.raises(ValueError, match=r"part ids must be in \[0, 2\)"):
        loader._collate(np.array([2]))
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        ClusterLoader(cd, batch_size=0)
    torch = pytest.importorskip("torch")
    tdata = Data(x=torch.ones(3, 1), edge_index=torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(TypeError, match="on the CPU; give NumPy arrays"):
        ClusterData(tdata, 1, log=False)


# --------------------------------------------------------------------- DGL face
def dgl_graph(n, e, seed=0, dtype=np.int64):
    from arraygnn.graph import graph

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, max(n, 1), (2, e)) if n else np.zeros((2, 0), np.int64)
    g = graph((src.astype(dtype), dst.astype(dtype)), num_nodes=n)
    g.ndata["h"] = rng.standard_normal((n, 3))
    g.edata["w"] = np.arange(e, dtype=np.float64)
    return g


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_cluster_gcn_sampler_induced_subgraphs(dtype, tmp_path):
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler
    from arraygnn.graph import EID, NID

    g = dgl_graph(40, 150, seed=1, dtype=dtype)
    part = np.random.default_rng(0).integers(0, 6, 40)
    part[part == 2] = 0  # an empty part
    path = str(tmp_path / "cache.pkl")
    sampler = ClusterGCNSampler(g, 6, cache_path=path, partition=part)
    np.testing.assert_array_equal(
        sampler.partition_offset, np.r_[0, np.cumsum(np.bincount(part, minlength=6))]
    )
    np.testing.assert_array_equal(sampler.partition_node_ids, np.argsort(part, kind="stable"))
    src, dst = (np.asarray(a) for a in g.edges())
    for parts in ([3], [2], [5, 0, 2], [1, 4, 3, 0, 5, 2]):
        sg = sampler.sample(g, np.array(parts))
        nodes = np.concatenate([np.flatnonzero(part == i) for i in parts])
        np.testing.assert_array_equal(sg.ndata[NID], nodes)
        local = np.full(40, -1)
        local[nodes] = np.arange(nodes.shape[0])
        eids = np.flatnonzero((local[src] >= 0) & (local[dst] >= 0))
        eids = eids[np.argsort(local[src[eids]], kind="stable")]  # DGL: by new source
        np.testing.assert_array_equal(sg.edata[EID], eids)
        s, d = sg.edges()
        np.testing.assert_array_equal(s, local[src[eids]])
        np.testing.assert_array_equal(d, local[dst[eids]])
        assert s.dtype == dtype
        np.testing.assert_array_equal(sg.ndata["h"], g.ndata["h"][nodes])
        np.testing.assert_array_equal(sg.edata["w"], eids)
    # the cache is read back (a different partition= is ignored, as DGL reads its cache)
    again = ClusterGCNSampler(g, 6, cache_path=path, partition=np.zeros(40, np.int64))
    np.testing.assert_array_equal(again.partition_node_ids, sampler.partition_node_ids)
    with pytest.raises(ValueError, match="number of partitions in the cache"):
        ClusterGCNSampler(g, 5, cache_path=path)
    with pytest.raises(ValueError, match="number of nodes in the cache"):
        ClusterGCNSampler(dgl_graph(41, 10), 6, cache_path=path)
    (tmp_path / "bad.pkl").write_bytes(b"not a cache")
    with pytest.raises(ValueError, match="contents in the cache file"):
        ClusterGCNSampler(g, 6, cache_path=str(tmp_path / "bad.pkl"))


def test_cluster_gcn_sampler_with_node_data_loader():
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler
    from arraygnn.graph import NID
    from arraygnn.sampling import NodeDataLoader

    g = dgl_graph(30, 90, seed=2)
    sampler = ClusterGCNSampler(g, 6, cache_path=None, partition=np.arange(30) % 6)
    loader = NodeDataLoader(g, np.arange(6), sampler, batch_size=4, shuffle=True, seed=0)
    seen = np.concatenate([sg.ndata[NID] for sg in loader])
    np.testing.assert_array_equal(np.sort(seen), np.arange(30))


@pytest.mark.parametrize("mode", ["k-way", "recursive"])
def test_cluster_gcn_sampler_metis(mode, tmp_path):
    pytest.importorskip("pymetis")
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler
    from arraygnn.graph import graph

    data = undirected(120, 400, seed=3)
    src, dst = data.edge_index
    g = graph((src[::2], dst[::2]), num_nodes=120)  # directed: METIS sees it symmetric
    for kwargs in ({}, {"balance_edges": True}, {"balance_ntypes": np.zeros(120, np.int64)}):
        s = ClusterGCNSampler(g, 4, cache_path=None, mode=mode, **kwargs)
        sizes = np.diff(s.partition_offset)
        assert sizes.sum() == 120 and sizes.min() > 0
        np.testing.assert_array_equal(np.sort(s.partition_node_ids), np.arange(120))
        part = np.empty(120, np.int64)
        part[s.partition_node_ids] = np.repeat(np.arange(4), sizes)
        # METIS balances the weights it was given: nodes, or in-degrees
        weight = np.bincount(np.asarray(g.edges()[1]), minlength=120)
        if "balance_edges" not in kwargs:
            weight = np.ones(120)
        loads = np.bincount(part, weights=weight, minlength=4)
        assert loads.max() <= 1.1 * loads.sum() / 4 + weight.max()
    with pytest.raises(NotImplementedError, match="multi-constraint"):
        ClusterGCNSampler(g, 4, cache_path=None, balance_ntypes=np.arange(120) % 3)
    with pytest.raises(ValueError, match="balance_ntypes must have one entry per node"):
        ClusterGCNSampler(g, 4, cache_path=None, balance_ntypes=np.zeros(3))
    ClusterGCNSampler(g, 4, cache_path=str(tmp_path / "c.pkl"), mode=mode)
    assert (tmp_path / "c.pkl").exists()


def test_cluster_gcn_sampler_errors(monkeypatch):
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler
    from arraygnn.graph import heterograph

    g = dgl_graph(10, 20)
    part = np.zeros(10, np.int64)
    with pytest.raises(ValueError, match="mode must be 'k-way' or 'recursive'"):
        ClusterGCNSampler(g, 2, cache_path=None, mode="kway", partition=part)
    with pytest.raises(ValueError, match="ClusterGCNSampler: k must be >= 1"):
        ClusterGCNSampler(g, 0, cache_path=None, partition=part)
    with pytest.raises(ValueError, match="ClusterGCNSampler: partition has part id 3"):
        ClusterGCNSampler(g, 2, cache_path=None, partition=part + 3)
    with pytest.raises(KeyError, match="prefetch_ndata names 'nope'"):
        ClusterGCNSampler(g, 2, cache_path=None, partition=part, prefetch_ndata=["nope"])
    with pytest.raises(ValueError, match="output_device='cuda'"):
        ClusterGCNSampler(g, 2, cache_path=None, partition=part, output_device="cuda")
    hg = heterograph({("a", "r", "b"): (np.array([0]), np.array([0]))})
    with pytest.raises(ValueError, match="must be homogeneous"):
        ClusterGCNSampler(hg, 2, cache_path=None)
    monkeypatch.setitem(sys.modules, "pymetis", None)
    with pytest.raises(ImportError, match=r"ClusterGCNSampler: .*arraygnn\[metis\]"):
        ClusterGCNSampler(g, 2, cache_path=None)
    s = ClusterGCNSampler(g, 2, cache_path=None, partition=part)
    with pytest.raises(ValueError, match=r"partition_ids must be in \[0, 2\)"):
        s.sample(g, np.array([2]))
    with pytest.raises(ValueError, match="the graph has 11 nodes, the partition 10"):
        s.sample(dgl_graph(11, 5), np.array([0]))


def test_narrow_index_dtype_widens_never_wraps():
    # uint8 ids hold every old id (< 256) but not every new one (up to 299)
    ei = np.array([[0, 199], [199, 0]], dtype=np.uint8)
    data = Data(num_nodes=300, edge_index=ei)
    part = (np.arange(300) < 200).astype(np.int64)  # nodes 0..199 -> new ids 100..299
    cd = ClusterData(data, 2, partition=part, log=False)
    assert cd.partition.index.dtype == np.int64
    assert cd.partition.index.tolist() == [299, 100]
    assert cd[1].edge_index.tolist() == [[0, 199], [199, 0]]
    batch = next(iter(ClusterLoader(cd, batch_size=2)))
    assert batch.edge_index.tolist() == [[100, 299], [299, 100]]
