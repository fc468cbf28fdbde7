"""GraphSAINT samplers and ShaDowKHopSampler: PyG's guarantees on our own draws (PyG's
versions need torch_sparse, absent here): induced subgraphs, PyG's norm formulas applied to
our recorded samples, PyG's batch layout, seeds, dtypes and bad input."""

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.loader import (
    GraphSAINTEdgeSampler,
    GraphSAINTNodeSampler,
    GraphSAINTRandomWalkSampler,
    ShaDowKHopSampler,
)

SAINT = [
    (GraphSAINTNodeSampler, {}),
    (GraphSAINTEdgeSampler, {}),
    (GraphSAINTRandomWalkSampler, {"walk_length": 3}),
]


def random_graph(n, e, seed=0, dtype=np.int64):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e)).astype(dtype)
    return Data(
        x=np.arange(n, dtype=np.float64)[:, None],  # column 0: node id
        edge_index=ei,
        edge_attr=np.arange(e, dtype=np.float64)[:, None],  # column 0: edge id
        y=rng.integers(0, 3, n),
    )


def induced(data, ids):
    """(edge_index, edge ids) of the subgraph induced by sorted ``ids``: edges sorted by
    (row, col), ties in edge order (PyG's ``saint_subgraph`` on its sorted adjacency)."""
    local = {v: i for i, v in enumerate(ids.tolist())}
    rows = [
        (local[s], local[t], e)
        for e, (s, t) in enumerate(data.edge_index.T.tolist())
        if s in local and t in local
    ]
    rows.sort(key=lambda r: (r[0], r[1]))
    ei = np.array([[r[0] for r in rows], [r[1] for r in rows]], dtype=np.int64).reshape(2, -1)
    return ei, np.array([r[2] for r in rows], dtype=np.int64)


# ------------------------------------------------------------------------ GraphSAINT
@pytest.mark.parametrize("cls,kw", SAINT)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_saint_batches_are_induced_subgraphs(cls, kw, dtype):
    data = random_graph(40, 120, seed=1, dtype=dtype)
    loader = cls(
        data,
        batch_size=6,
        num_steps=5,
        seed=0,
        node_attrs=["x", "y"],
        edge_attrs=["edge_attr"],
        **kw,
    )
    batches = list(loader)
    assert len(loader) == len(batches) == 5
    for b in batches:
        ids = b.x[:, 0].astype(np.int64)
        assert np.all(np.diff(ids) > 0)  # unique, sorted (PyG's .unique())
        assert b.num_nodes == ids.shape[0]
        ei, eids = induced(data, ids)
        assert b.edge_index.dtype == dtype
        np.testing.assert_array_equal(b.edge_index, ei)
        np.testing.assert_array_equal(b.edge_attr[:, 0].astype(np.int64), eids)
        np.testing.assert_array_equal(b.y, data.y[ids])
        assert "node_norm" not in b
    again = [
        b.x[:, 0].tolist()
        for b in cls(
            data,
            batch_size=6,
            num_steps=5,
            seed=0,
            node_attrs=["x", "y"],
            edge_attrs=["edge_attr"],
            **kw,
        )
    ]
    assert again == [b.x[:, 0].tolist() for b in batches]


def test_saint_node_counts_follow_each_sampler():
    data = random_graph(50, 60, seed=2)
    sources = set(data.edge_index[0].tolist())
    for b in GraphSAINTNodeSampler(data, batch_size=8, num_steps=20, seed=1, node_attrs=["x", "y"]):
        ids = b.x[:, 0].astype(int)
        assert len(ids) <= 8 and set(ids.tolist()) <= sources  # sources of drawn edges
    for b in GraphSAINTEdgeSampler(data, batch_size=8, num_steps=20, seed=1, node_attrs=["x", "y"]):
        # 8 edges drawn with replacement (PyG's): at most 16 nodes, every drawn edge kept
        assert b.num_nodes <= 16 and b.edge_index.shape[1] >= 1
    ring = Data(
        x=np.arange(30.0)[:, None], edge_index=np.array([np.arange(30), (np.arange(30) + 1) % 30])
    )
    for b in GraphSAINTRandomWalkSampler(ring, batch_size=2, walk_length=4, num_steps=10, seed=0):
        # two walks of 4 steps on a ring: at most 10 nodes, each walk a path of 4 edges
        assert b.num_nodes <= 10 and b.edge_index.shape[1] >= b.num_nodes - 2
    for b in GraphSAINTRandomWalkSampler(ring, batch_size=3, walk_length=0, num_steps=5, seed=0):
        assert b.num_nodes <= 3


class Recorder:
    """Mixin recording every draw (the norm pass draws before any batch)."""

    def _draw(self):
        out = super()._draw()
        self.__dict__.setdefault("drawn", []).append(out)
        return out


@pytest.mark.parametrize("cls,kw", SAINT)
def test_saint_norms_follow_pygs_formulas(cls, kw):
    torch = pytest.importorskip("torch")
    data = random_graph(30, 90, seed=3)
    rec = type("Rec", (Recorder, cls), {})
    loader = rec(
        data,
        batch_size=5,
        num_steps=3,
        sample_coverage=4,
        seed=2,
        node_attrs=["x", "y"],
        edge_attrs=["edge_attr"],
        **kw,
    )
    drawn = list(loader.drawn)
    # PyG's _compute_norm, applied to our recorded samples
    n, e = 30, 90
    node_count = torch.zeros(n, dtype=torch.float)
    edge_count = torch.zeros(e, dtype=torch.float)
    num_samples = total = 0
    samples = iter(drawn)
    while total < n * 4:
        for _ in range(3):
            node_idx, edge_idx, _, _ = next(samples)
            node_count[torch.as_tensor(node_idx)] += 1
            edge_count[torch.as_tensor(edge_idx)] += 1
            total += node_idx.shape[0]
        num_samples += 3
    assert next(samples, None) is None  # exactly PyG's number of samples
    row = torch.as_tensor(data.edge_index[0])
    perm = torch.as_tensor(np.lexsort((data.edge_index[1], data.edge_index[0])))
    t = torch.empty_like(edge_count).scatter_(0, perm, node_count[row[perm]])
    edge_norm = (t / edge_count).clamp_(0, 1e4)
    edge_norm[torch.isnan(edge_norm)] = 0.1
    node_count[node_count == 0] = 0.1
    node_norm = num_samples / node_count / n
    np.testing.assert_allclose(loader.node_norm, node_norm.numpy(), rtol=1e-6)
    np.testing.assert_allclose(loader.edge_norm, edge_norm.numpy(), rtol=1e-6)
    assert loader.node_norm.dtype == loader.edge_norm.dtype == np.float32
    for b in loader:
        ids = b.x[:, 0].astype(np.int64)
        np.testing.assert_array_equal(b.node_norm, loader.node_norm[ids])
        np.testing.assert_array_equal(b.edge_norm, loader.edge_norm[b.edge_attr[:, 0].astype(int)])


def test_saint_isolated_nodes_and_errors():
    data = Data(x=np.arange(6.0)[:, None], edge_index=np.array([[0, 1], [1, 0]]))
    loader = GraphSAINTNodeSampler(data, batch_size=3, num_steps=2, sample_coverage=2, seed=0)
    np.testing.assert_allclose(loader.node_norm[2:], loader.node_norm[2])  # never drawn
    assert loader.node_norm[2] > loader.node_norm[:2].max()  # count 0 -> 0.1
    walks = GraphSAINTRandomWalkSampler(data, batch_size=4, walk_length=2, num_steps=3, seed=0)
    assert all(b.num_nodes >= 1 for b in walks)
    with pytest.raises(ValueError, match="batch_size"):
        GraphSAINTNodeSampler(data, batch_size=0)
    with pytest.raises(TypeError, match="num_steps"):
        GraphSAINTNodeSampler(data, batch_size=2, num_steps=1.5)
    with pytest.raises(ValueError, match="walk_length"):
        GraphSAINTRandomWalkSampler(data, batch_size=2, walk_length=-1)
    with pytest.raises(ValueError, match="no edges"):
        GraphSAINTNodeSampler(Data(x=np.ones((3, 1)), edge_index=np.zeros((2, 0), np.int64)), 2)
    assert len(list(GraphSAINTEdgeSampler(data, batch_size=3))) == 1  # > E: with replacement
    with pytest.raises(ValueError, match="no edges"):
        GraphSAINTEdgeSampler(Data(x=np.ones((3, 1)), edge_index=np.zeros((2, 0), np.int64)), 2)
    with pytest.raises(ValueError, match="node_norm"):
        GraphSAINTNodeSampler(
            Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]), node_norm=np.ones(2)),
            1,
            node_attrs=["x", "node_norm"],
        )
    with pytest.raises(ValueError, match="'y'"):
        GraphSAINTNodeSampler(random_graph(5, 5), 2)
    with pytest.raises(ValueError, match="edge_index"):
        GraphSAINTNodeSampler(Data(x=np.ones((2, 1)), edge_index=np.array([[0], [2]])), 1)
    with pytest.raises(TypeError, match="data"):
        GraphSAINTNodeSampler([data], 1)


# ------------------------------------------------------------------------------ ShaDow
def shadow_reference(data, roots, depth):
    """torch_sparse's ego_k_hop_sample_adj with every neighbour taken, then PyG's
    ShaDowKHopSampler layout (a per-root Python loop)."""
    src, dst = data.edge_index.astype(np.int64)
    order = np.lexsort((src, dst))
    n_ids, batch, roots_at, rows = [], [], [], []
    for g, r in enumerate(roots.tolist()):
        seen, frontier = {r}, [r]
        for _ in range(depth):
            frontier = [int(src[e]) for v in frontier for e in order if dst[e] == v]
            seen.update(frontier)
        nodes = sorted(seen)
        offset = len(n_ids)
        local = {v: offset + i for i, v in enumerate(nodes)}
        roots_at.append(local[r])
        for v in nodes:  # adj_t rows: in-edges of v whose source is kept
            for e in order:
                if dst[e] == v and int(src[e]) in local:
                    rows.append((local[int(src[e])], local[v], int(e)))
        n_ids += nodes
        batch += [g] * len(nodes)
    rows.sort(key=lambda t: (t[0], t[1]))
    ei = np.array([[t[0] for t in rows], [t[1] for t in rows]], dtype=np.int64).reshape(2, -1)
    return np.array(n_ids), np.array(batch), np.array(roots_at), ei, np.array([t[2] for t in rows])


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_shadow_full_neighbourhoods_equal_the_reference(depth, dtype):
    data = random_graph(25, 60, seed=depth, dtype=dtype)
    data.edge_index[:, :3] = [[4, 4, 7], [4, 9, 9]]  # a self-loop and a multi-edge
    data.edge_index[:, 3] = [4, 9]
    loader = ShaDowKHopSampler(
        data,
        depth=depth,
        num_neighbors=100,
        batch_size=4,
        node_attrs=["x", "y"],
        edge_attrs=["edge_attr"],
    )
    assert len(loader) == 7
    for i, b in enumerate(loader):
        roots = np.arange(4 * i, min(4 * i + 4, 25))
        n_id, batch, root_n_id, ei, e_id = shadow_reference(data, roots, depth)
        np.testing.assert_array_equal(b.batch, batch)
        np.testing.assert_array_equal(b.ptr, np.concatenate([[0], np.cumsum(np.bincount(batch))]))
        np.testing.assert_array_equal(b.root_n_id, root_n_id)
        np.testing.assert_array_equal(b.x[:, 0], n_id)
        np.testing.assert_array_equal(b.edge_index, ei)
        assert b.edge_index.dtype == dtype
        np.testing.assert_array_equal(b.edge_attr[:, 0], e_id)
        np.testing.assert_array_equal(b.y, data.y[roots])  # PyG: y[n_id][root_n_id]
        assert list(b.keys())[:4] == ["batch", "ptr", "root_n_id", "edge_index"]


@pytest.mark.parametrize("replace", [False, True])
def test_shadow_sampled_subgraphs_are_induced_and_bounded(replace):
    data = random_graph(40, 300, seed=7)
    k, depth = 2, 2
    loader = ShaDowKHopSampler(
        data,
        depth=depth,
        num_neighbors=k,
        replace=replace,
        batch_size=5,
        shuffle=True,
        seed=1,
        node_attrs=["x", "y"],
        edge_attrs=["edge_attr"],
    )
    seen_roots = []
    for b in loader:
        for g in range(b.ptr.shape[0] - 1):
            lo, hi = b.ptr[g], b.ptr[g + 1]
            nodes = b.x[lo:hi, 0].astype(np.int64)
            root = int(b.x[b.root_n_id[g], 0])
            seen_roots.append(root)
            assert lo <= b.root_n_id[g] < hi and np.all(np.diff(nodes) > 0)
            assert len(nodes) <= 1 + k + k * k
            full, _, _, _, _ = shadow_reference(data, np.array([root]), depth)
            assert set(nodes.tolist()) <= set(full.tolist())  # within the 2-hop scope
            ei, eids = induced(data, nodes)
            mine = (b.edge_index[0] >= lo) & (b.edge_index[0] < hi)
            assert np.all((b.edge_index[1][mine] >= lo) & (b.edge_index[1][mine] < hi))
            np.testing.assert_array_equal(b.edge_index[:, mine] - lo, ei)
            np.testing.assert_array_equal(b.edge_attr[mine, 0].astype(np.int64), eids)
    assert sorted(seen_roots) == list(range(40))
    first = [
        b.x[:, 0].tolist()
        for b in ShaDowKHopSampler(
            data,
            2,
            2,
            replace=replace,
            batch_size=5,
            seed=4,
            node_attrs=["x", "y"],
            edge_attrs=["edge_attr"],
        )
    ]
    second = [
        b.x[:, 0].tolist()
        for b in ShaDowKHopSampler(
            data,
            2,
            2,
            replace=replace,
            batch_size=5,
            seed=4,
            node_attrs=["x", "y"],
            edge_attrs=["edge_attr"],
        )
    ]
    assert first == second


def test_shadow_node_idx_isolated_nodes_and_errors():
    data = Data(x=np.arange(5.0)[:, None], edge_index=np.array([[0, 1], [1, 0]]))
    mask = np.array([False, True, False, True, True])
    batches = list(ShaDowKHopSampler(data, depth=2, num_neighbors=3, node_idx=mask, batch_size=3))
    (b,) = batches
    assert b.x[:, 0].tolist() == [0.0, 1.0, 3.0, 4.0] and b.batch.tolist() == [0, 0, 1, 2]
    assert b.root_n_id.tolist() == [1, 2, 3] and b.edge_index.tolist() == [[0, 1], [1, 0]]
    empty = ShaDowKHopSampler(data, depth=1, num_neighbors=1, node_idx=np.array([], np.int64))
    assert list(empty) == []
    no_nodes = Data(x=np.zeros((0, 1)), edge_index=np.zeros((2, 0), np.int32))
    assert list(ShaDowKHopSampler(no_nodes, depth=2, num_neighbors=3)) == []
    (alone,) = list(ShaDowKHopSampler(data, 3, 0, node_idx=[4, 2], batch_size=2))
    assert alone.edge_index.shape == (2, 0) and alone.root_n_id.tolist() == [0, 1]
    with pytest.raises(ValueError, match="depth"):
        ShaDowKHopSampler(data, depth=-1, num_neighbors=2)
    with pytest.raises(ValueError, match="num_neighbors"):
        ShaDowKHopSampler(data, depth=1, num_neighbors=-1)
    with pytest.raises(ValueError, match="node_idx"):
        ShaDowKHopSampler(data, depth=1, num_neighbors=2, node_idx=np.array([5]))
    with pytest.raises(TypeError, match="node_idx"):
        ShaDowKHopSampler(data, depth=1, num_neighbors=2, node_idx=np.array([0.5]))
    with pytest.raises(ValueError, match="edge_index"):
        ShaDowKHopSampler(Data(x=np.ones((2, 1)), edge_index=np.array([[0], [3]])), 1, 1)
    with pytest.raises(TypeError, match="data"):
        ShaDowKHopSampler({"x": 1}, 1, 1)


# --------------------------------------------------------------------------- HGTLoader
def hgt_graph(seed=0, big=False):
    from arraygnn.hetero_data import HeteroData

    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["paper"].x = np.arange(30.0)[:, None]
    d["author"].x = np.arange(20.0)[:, None]
    writes = np.stack([rng.integers(0, 20, 70), rng.integers(0, 30, 70)])
    if big:  # paper 0 written by 80 (repeated) authors
        writes = np.concatenate([writes, [rng.integers(0, 20, 80), np.zeros(80, int)]], axis=1)
    d["author", "writes", "paper"].edge_index = writes
    d["author", "writes", "paper"].edge_attr = np.arange(writes.shape[1], dtype=float)[:, None]
    d["paper", "cites", "paper"].edge_index = rng.integers(0, 30, (2, 50))
    d["paper", "cites", "paper"].edge_attr = np.arange(50, dtype=float)[:, None]
    d["paper", "rev_writes", "author"].edge_index = writes[::-1].copy()
    return d


def hgt_reference(d, seeds, hops):
    """torch_sparse's hgt_sample when every budget is taken whole (candidates in id order)
    and no node has more than 50 in-edges: a Python loop."""
    types = d.node_types
    csc = {}
    for et in d.edge_types:
        src, dst = d[et].edge_index
        order = np.lexsort((src, dst))
        csc[et] = [(int(src[e]), int(e)) for e in order], dst[order]
    nodes = {t: [] for t in types}
    nodes["paper"] = [int(s) for s in seeds]
    budget = {t: set() for t in types}

    def update(t, samples):
        for et in d.edge_types:
            if et[2] != t:
                continue
            pairs, dsts = csc[et]
            for w in samples:
                for (v, _), dd in zip(pairs, dsts):
                    if dd == w and v not in nodes[et[0]]:
                        budget[et[0]].add(v)

    update("paper", nodes["paper"])
    for hop in range(hops):
        drawn = {t: sorted(budget[t]) for t in types}
        for t in types:
            nodes[t] += drawn[t]
            budget[t] -= set(drawn[t])
        if hop < hops - 1:
            for t in types:
                update(t, drawn[t])
    edges = {}
    for et in d.edge_types:
        pairs, dsts = csc[et]
        local_src = {v: i for i, v in enumerate(nodes[et[0]])}
        rows = []
        for i, w in enumerate(nodes[et[2]]):
            rows += [
                (local_src[v], i, e)
                for (v, e), dd in zip(pairs, dsts)
                if dd == w and v in local_src
            ]
        edges[et] = rows
    return nodes, edges


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_hgt_taking_whole_budgets_equals_the_reference(hops):
    from arraygnn.loader import HGTLoader

    d = hgt_graph(hops)
    loader = HGTLoader(
        d, num_samples=[1000] * hops, input_nodes=("paper", np.arange(0, 30, 3)), batch_size=4
    )
    assert len(loader) == 3
    for i, b in enumerate(loader):
        seeds = np.arange(0, 30, 3)[4 * i : 4 * i + 4]
        nodes, edges = hgt_reference(d, seeds, hops)
        assert b["paper"].batch_size == len(seeds)
        np.testing.assert_array_equal(b["paper"].input_id, np.arange(4 * i, 4 * i + len(seeds)))
        for t in d.node_types:
            assert b[t].n_id.tolist() == nodes[t]
            np.testing.assert_array_equal(b[t].x[:, 0], nodes[t])
            assert "num_sampled_nodes" not in b[t]
        for et in d.edge_types:
            rows = edges[et]
            got = list(zip(*b[et].edge_index.tolist(), b[et].e_id.tolist()))
            assert got == rows
            if "edge_attr" in d[et]:
                np.testing.assert_array_equal(b[et].edge_attr[:, 0], b[et].e_id)


def test_hgt_draws_follow_squared_budgets_and_counts():
    from arraygnn.hetero_data import HeteroData
    from arraygnn.loader import HGTLoader

    d = HeteroData(paper={"num_nodes": 2}, author={"num_nodes": 3})
    d["author", "writes", "paper"].edge_index = np.array([[0, 1, 0, 2], [0, 0, 1, 1]])
    # budgets: author 0 gets 1/2 + 1/2, authors 1 and 2 get 1/2: weights 1, 1/4, 1/4
    loader = HGTLoader(
        d,
        num_samples={"paper": [0], "author": [1]},
        input_nodes=("paper", np.zeros(3000, np.int64) + [0, 1] * 1500),
        batch_size=2,
        seed=0,
    )
    drawn = np.array([b["author"].n_id[0] for b in loader])
    assert all(b["author"].n_id.shape == (1,) for b in loader)
    np.testing.assert_allclose(
        np.bincount(drawn, minlength=3) / len(drawn), [2 / 3, 1 / 6, 1 / 6], atol=0.03
    )
    d2 = hgt_graph(5)
    for b in HGTLoader(
        d2, num_samples=[3, 2], input_nodes="paper", batch_size=5, seed=1, shuffle=True
    ):
        assert b["author"].num_nodes <= 5 and b["paper"].num_nodes <= 5 + 5
        for et in d2.edge_types:  # every kept edge is a real edge between drawn nodes
            src, dst = d2[et].edge_index[:, b[et].e_id]
            np.testing.assert_array_equal(b[et[0]].n_id[b[et].edge_index[0]], src)
            np.testing.assert_array_equal(b[et[2]].n_id[b[et].edge_index[1]], dst)


def test_hgt_caps_large_neighbourhoods_at_50():
    from arraygnn.loader import HGTLoader

    d = hgt_graph(2, big=True)
    (b,) = list(
        HGTLoader(d, num_samples=[100], input_nodes=("paper", np.array([0])), batch_size=1, seed=3)
    )
    writes = b["author", "writes", "paper"]
    to_zero = writes.edge_index[1] == 0
    assert to_zero.sum() <= 50
    src, dst = d["author", "writes", "paper"].edge_index[:, writes.e_id]
    np.testing.assert_array_equal(b["author"].n_id[writes.edge_index[0]], src)
    np.testing.assert_array_equal(b["paper"].n_id[writes.edge_index[1]], dst)


def test_hgt_errors():
    from arraygnn.loader import HGTLoader

    d = hgt_graph()
    with pytest.raises(ValueError, match="num_samples"):
        HGTLoader(d, num_samples={"paper": [2]}, input_nodes="paper")
    with pytest.raises(ValueError, match="same hops"):
        HGTLoader(d, num_samples={"paper": [2], "author": [1, 1]}, input_nodes="paper")
    with pytest.raises(ValueError, match="num_samples"):
        HGTLoader(d, num_samples=[-1], input_nodes="paper")
    with pytest.raises(TypeError, match="num_samples"):
        HGTLoader(d, num_samples=3, input_nodes="paper")
    with pytest.raises(TypeError, match="data"):
        HGTLoader(random_graph(3, 3), num_samples=[1], input_nodes="paper")
