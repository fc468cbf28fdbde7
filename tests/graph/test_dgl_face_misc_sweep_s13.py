"""Parity sweep (session 13) of DGL-face functions over options the earlier sweeps left out.

DGL is not installed; the references are NumPy transcriptions of DGL's sources:
- python/dgl/ops/sddmm.py (``reshape_lhs_rhs``: pad the operand with fewer dims after its
  row dim) and python/dgl/sparse.py ``_gsddmm`` / ``_gspmm`` (1-D operands are unsqueezed
  to [N, 1] and the result squeezed back when every used operand was 1-D;
  ``infer_broadcast_shape``: ``dot`` needs equal last dims, no broadcasting there);
- python/dgl/data/utils.py ``split_dataset`` / ``Subset``;
- python/dgl/dataloading/dataloader.py ``GraphDataLoader`` / ``GraphCollator``;
- python/dgl/subgraph.py ``khop_in_subgraph`` (seeds' inverse indices) and
  python/dgl/transforms/functional.py ``compact_graphs`` (one graph in, one graph out),
  ``sort_csr_by_tag`` (``tag_offset_name``);
- python/dgl/sampling/pinsage.py (``weight_column`` names the visit counts; restart
  probability ``termination_prob`` only between traversals).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import graph, heterograph
from arraygnn.graph import ops as gops

G = importlib.import_module("arraygnn.graph")
NID, EID = "_ID", "_ID"


def _small(seed=0, n_src=5, n_dst=4, e=9, bipartite=False):
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, n_src, e), rng.integers(0, n_dst, e)
    if bipartite:
        return heterograph({("a", "r", "b"): (s, d)}, {"a": n_src, "b": n_dst})
    return graph((s, d), num_nodes=max(n_src, n_dst))


def _rows(g, t):
    s, d = (np.asarray(a, np.int64) for a in g.edges())
    return {"u": s, "v": d, "e": np.arange(s.shape[0])}[t]


def _n(g, t):
    return {"u": g.num_src_nodes(), "v": g.num_dst_nodes(), "e": g.num_edges()}[t]


def _ref_binary(op, a, b):
    """The PyTorch backend's rewrite: sub -> add of -b, div -> mul by 1 / b."""
    if op == "sub":
        return a + (-b)
    if op == "div":
        return a * (1.0 / b).astype(b.dtype)
    return a + b if op == "add" else a * b


# ---------------------------------------------------------------------- gsddmm, 1-D operands
@pytest.mark.parametrize("bipartite", [False, True])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "dot"])
def test_gsddmm_scalar_features_give_one_value_per_edge(op, bipartite):
    g = _small(1, bipartite=bipartite)
    rng = np.random.default_rng(2)
    for lt in "uve":
        for rt in "uve":
            lhs = rng.uniform(0.5, 2, _n(g, lt))
            rhs = rng.uniform(0.5, 2, _n(g, rt))
            got = gops.gsddmm(g, op, lhs, rhs, lt, rt)
            # DGL: unsqueeze both to [N, 1], op (dot of size-1 vectors = product), squeeze
            want = _ref_binary("mul" if op == "dot" else op, lhs[_rows(g, lt)], rhs[_rows(g, rt)])
            assert got.shape == (g.num_edges(),), (op, lt, rt)
            np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=f"{lt}_{op}_{rt}")


@pytest.mark.parametrize(
    ("lshape", "rshape", "out"),
    [
        ((1,), (), (1,)),  # rhs padded to [N, 1]: last dims agree, nothing squeezed
        ((), (1,), (1,)),
        ((2, 3), (3,), (2, 1)),  # rhs padded to [N, 1, 3]
        ((4, 1, 3), (2, 3), (4, 2, 1)),
    ],
)
def test_gsddmm_dot_shapes_follow_dgl(lshape, rshape, out):
    g = _small(3)
    rng = np.random.default_rng(4)
    lhs = rng.normal(size=(g.num_nodes(),) + lshape)
    rhs = rng.normal(size=(g.num_nodes(),) + rshape)
    got = gops.gsddmm(g, "dot", lhs, rhs, "u", "v")
    s, d = _rows(g, "u"), _rows(g, "v")
    a, b = lhs[s], rhs[d]
    m = max(a.ndim, b.ndim)
    a = a.reshape((a.shape[0],) + (1,) * (m - a.ndim) + a.shape[1:])
    b = b.reshape((b.shape[0],) + (1,) * (m - b.ndim) + b.shape[1:])
    want = (a * b).sum(-1, keepdims=True)
    assert got.shape == (g.num_edges(),) + out
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the built-in message function says the same (DGL's apply_edges -> gsddmm)
    g.ndata["l"], g.ndata["r"] = lhs, rhs
    g.apply_edges(fn.u_dot_v("l", "r", "d"))
    np.testing.assert_allclose(g.edata["d"], want, rtol=1e-12)


@pytest.mark.parametrize(
    ("lshape", "rshape"), [((3,), (1,)), ((1,), (3,)), ((3,), ()), ((2, 1), (2, 3))]
)
def test_dot_last_dims_must_match_as_dgl(lshape, rshape):
    g = _small(5)
    n = g.num_nodes()
    lhs, rhs = np.ones((n,) + lshape), np.ones((n,) + rshape)
    with pytest.raises(ValueError, match="gsddmm: dot needs the same size on the last"):
        gops.gsddmm(g, "dot", lhs, rhs)
    with pytest.raises(ValueError, match="gsddmm: dot needs the same size on the last"):
        gops.u_dot_v(g, lhs, rhs)
    g.ndata["l"], g.ndata["r"] = lhs, rhs
    with pytest.raises(ValueError, match=r"fn.u_dot_v: dot needs the same size on the last"):
        g.apply_edges(fn.u_dot_v("l", "r", "d"))


def test_scalar_dot_in_update_all_is_the_product():
    g = _small(6)
    x = np.random.default_rng(6).normal(size=g.num_nodes())
    g.ndata["x"] = x
    g.update_all(fn.u_dot_v("x", "x", "m"), fn.sum("m", "h"))
    s, d = _rows(g, "u"), _rows(g, "v")
    want = np.zeros(g.num_nodes())
    np.add.at(want, d, x[s] * x[d])
    np.testing.assert_allclose(g.ndata["h"], want, rtol=1e-12)


# ---------------------------------------------------------------------- gspmm, 1-D operands
@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("bipartite", [False, True])
def test_gspmm_scalar_and_mixed_rank_operands(reduce_op, bipartite):
    g = _small(7, bipartite=bipartite)
    rng = np.random.default_rng(8)
    s, d = _rows(g, "u"), _rows(g, "v")
    n_dst = g.num_dst_nodes()
    deg = np.bincount(d, minlength=n_dst)

    def reduce(msg):
        out = np.zeros((n_dst,) + msg.shape[1:])
        if reduce_op in ("sum", "mean"):
            np.add.at(out, d, msg)
            if reduce_op == "mean":
                out /= np.maximum(deg, 1).reshape((-1,) + (1,) * (msg.ndim - 1))
            return out
        out[:] = -np.inf if reduce_op == "max" else np.inf
        (np.maximum if reduce_op == "max" else np.minimum).at(out, d, msg)
        out[deg == 0] = 0
        return out

    u1, e1 = rng.uniform(0.5, 2, g.num_src_nodes()), rng.uniform(0.5, 2, g.num_edges())
    u3, e3 = rng.normal(size=(g.num_src_nodes(), 3)), rng.uniform(0.5, 2, (g.num_edges(), 3))
    for op in ("add", "sub", "mul", "div"):
        for u, e in ((u1, e1), (u1, e3), (u3, e1)):
            got = gops.gspmm(g, op, reduce_op, u, e)
            uu, ee = u[s], e
            if uu.ndim != ee.ndim:  # DGL's reshape_lhs_rhs
                uu, ee = uu.reshape(uu.shape[0], -1), ee.reshape(ee.shape[0], -1)
            want = reduce(_ref_binary(op, uu, ee))
            assert got.shape == want.shape, (op, u.shape, e.shape)
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{op} {u.ndim} {e.ndim}")
    # copy ops: the other operand may be None; 1-D stays 1-D
    np.testing.assert_allclose(gops.gspmm(g, "copy_lhs", reduce_op, u1, None), reduce(u1[s]))
    np.testing.assert_allclose(gops.gspmm(g, "copy_rhs", reduce_op, None, e1), reduce(e1))


# ---------------------------------------------------------------------- split_dataset / Subset
@pytest.mark.parametrize(
    "frac_list", [None, [0.6, 0.2, 0.2], [0.5, 0.5], [0.3, 0.3, 0.4], [0.0, 1.0], [1 / 3] * 3]
)
@pytest.mark.parametrize("n", [7, 10])
@pytest.mark.parametrize("random_state", [None, 3])
def test_split_dataset_lengths_and_draws_match_dgl(frac_list, n, random_state):
    data = [f"item{i}" for i in range(n)]
    shuffle = random_state is not None
    parts = G.split_dataset(data, frac_list, shuffle=shuffle, random_state=random_state)
    fracs = np.asarray([0.8, 0.1, 0.1] if frac_list is None else frac_list)
    lengths = (n * fracs).astype(int)
    lengths[-1] = n - lengths[:-1].sum()
    perm = np.random.RandomState(random_state).permutation(n) if shuffle else np.arange(n)
    assert [len(p) for p in parts] == lengths.tolist()
    start = 0
    for p, length in zip(parts, lengths):
        want = perm[start : start + length]
        start += length
        assert [p[i] for i in range(len(p))] == [data[j] for j in want]
        assert isinstance(p, G.Subset) and p.dataset is data


@pytest.mark.parametrize("frac_list", [[1.2, -0.2], [0.5, 0.6, -0.1]])
def test_split_dataset_refuses_negative_fractions(frac_list):
    with pytest.raises(ValueError, match="split_dataset: frac_list must not hold negative"):
        G.split_dataset(list(range(10)), frac_list)


def test_split_dataset_refuses_fractions_not_summing_to_one():
    with pytest.raises(ValueError, match="split_dataset: frac_list must sum to 1"):
        G.split_dataset(list(range(10)), [0.5, 0.4])


# ---------------------------------------------------------------------- GraphDataLoader
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 2, 3, 5, 7])
def test_graph_data_loader_batches_in_order(batch_size, drop_last):
    graphs = [graph((np.array([0, 1]), np.array([1, 0])), num_nodes=2 + i) for i in range(5)]
    for i, g in enumerate(graphs):
        g.ndata["x"] = np.full((g.num_nodes(), 1), float(i))
    data = [(g, np.array([i, 10 * i])) for i, g in enumerate(graphs)]
    loader = G.GraphDataLoader(data, batch_size=batch_size, drop_last=drop_last)
    full, rest = divmod(5, batch_size)
    want = [list(range(b * batch_size, (b + 1) * batch_size)) for b in range(full)]
    if rest and not drop_last:
        want.append(list(range(full * batch_size, 5)))
    assert len(loader) == len(want)
    got = list(loader)
    assert len(got) == len(want)
    for (bg, labels), idx in zip(got, want):
        assert bg.batch_size == len(idx)
        np.testing.assert_array_equal(bg.batch_num_nodes(), [2 + i for i in idx])
        np.testing.assert_array_equal(labels, [[i, 10 * i] for i in idx])
        np.testing.assert_array_equal(
            bg.ndata["x"].ravel(), np.concatenate([np.full(2 + i, float(i)) for i in idx])
        )
    # graphs alone: batched graphs alone (GraphCollator on a DGLGraph element)
    alone = list(G.GraphDataLoader(graphs, batch_size=batch_size, drop_last=drop_last))
    assert [b.batch_size for b in alone] == [len(i) for i in want]


# ---------------------------------------------------------------------- compact / khop / tag
def test_compact_graphs_one_graph_in_one_graph_out():
    g = graph((np.array([1, 3, 3]), np.array([3, 1, 5])), num_nodes=8)
    g.ndata["x"] = np.arange(8.0)
    g.edata["w"] = np.array([1.0, 2.0, 3.0])
    out = G.compact_graphs(g, always_preserve=np.array([7]))
    assert not isinstance(out, list)
    np.testing.assert_array_equal(out.ndata[NID], [7, 1, 3, 5])
    np.testing.assert_array_equal(out.ndata["x"], [7.0, 1.0, 3.0, 5.0])
    np.testing.assert_array_equal(out.edges()[0], [1, 2, 2])
    np.testing.assert_array_equal(out.edges()[1], [2, 1, 3])
    bare = G.compact_graphs(g, copy_ndata=False, copy_edata=False)
    # DGL writes NID only through copy_ndata (extract_node_subframes)
    assert len(bare.ndata) == 0 and len(bare.edata) == 0
    assert isinstance(G.compact_graphs([g]), list)


@pytest.mark.parametrize("func", ["khop_in_subgraph", "khop_out_subgraph"])
def test_khop_repeated_and_scalar_seeds(func):
    g = graph((np.array([0, 1, 2, 3, 3]), np.array([1, 2, 3, 0, 4])), num_nodes=7)
    sg, inv = getattr(G, func)(g, np.array([3, 1, 3]), 1)
    nodes = sg.ndata[NID]
    assert np.all(np.diff(nodes) > 0)  # unique ids, increasing (DGL's F.unique)
    np.testing.assert_array_equal(nodes[inv], [3, 1, 3])
    assert inv.dtype == np.int64
    one, inv1 = getattr(G, func)(g, 3, 1)
    np.testing.assert_array_equal(one.ndata[NID][inv1], [3])
    bare, _ = getattr(G, func)(g, [3], 1, store_ids=False)
    assert NID not in bare.ndata and EID not in bare.edata


@pytest.mark.parametrize("csc", [False, True])
def test_sort_by_tag_custom_offset_name(csc):
    g = graph((np.array([0, 0, 0, 1]), np.array([1, 2, 3, 2])), num_nodes=4)
    func = G.sort_csc_by_tag if csc else G.sort_csr_by_tag
    out = func(g, np.array([0, 1, 1, 0]), tag_offset_name="off")
    assert "off" in out.ndata and "_TAG_OFFSET" not in out.ndata
    assert out.ndata["off"].shape == (4, 3)
    np.testing.assert_array_equal(
        out.ndata["off"][:, -1], g.in_degrees() if csc else g.out_degrees()
    )


# ---------------------------------------------------------------------- PinSAGE
def _items_users():
    u = np.array([0, 0, 1, 2, 3, 3])
    v = np.array([0, 1, 1, 2, 2, 0])
    return heterograph(
        {("item", "by", "user"): (u, v), ("user", "buys", "item"): (v, u)},
        {"item": 5, "user": 3},
    )


@pytest.mark.parametrize("termination_prob", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("num_neighbors", [1, 3])
def test_pinsage_invariants_with_a_seed(termination_prob, num_neighbors):
    g = _items_users()
    walks, trav = 6, 2
    seeds = np.array([0, 4, 2])  # item 4 has no user: its walks stop at once
    make = lambda: G.PinSAGESampler(  # noqa: E731
        g, "item", "user", trav, termination_prob, walks, num_neighbors,
        weight_column="visits", seed=5,
    )  # fmt: skip
    ng = make()(seeds)
    again = make()(seeds)
    assert [a.tolist() for a in ng.edges()] == [a.tolist() for a in again.edges()]
    assert ng.ntypes == ["item"] and ng.num_nodes() == 5
    assert set(ng.edata) == {"visits"}
    s, d = (np.asarray(a) for a in ng.edges())
    w = np.asarray(ng.edata["visits"])
    assert 4 not in d.tolist()
    item_user = np.zeros((5, 3), int)
    item_user[[0, 0, 1, 2, 3, 3], [0, 1, 1, 2, 2, 0]] = 1
    step = (item_user @ item_user.T) > 0
    two = (step.astype(int) @ step.astype(int)) > 0
    for seed in (0, 2):
        mine = d == seed
        assert mine.sum() <= num_neighbors
        assert len(set(s[mine].tolist())) == mine.sum()  # each neighbour once
        assert np.all(np.diff(w[mine]) <= 0)  # most visited first
        assert w[mine].sum() <= walks * trav
        reach = step[seed] if termination_prob == 1.0 else two[seed] | step[seed]
        assert all(reach[t] for t in s[mine])
        if termination_prob == 0.0:  # every walk makes both traversals: k x walks visits
            full = G.PinSAGESampler(g, "item", "user", trav, 0.0, walks, 5, seed=5)(seeds)
            fd = np.asarray(full.edges()[1])
            assert int(np.asarray(full.edata["weights"])[fd == seed].sum()) == walks * trav


# ---------------------------------------------------------------------- rand_graph
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_rand_graphs_shapes_idtype_and_no_duplicates(idtype):
    rg = G.rand_graph(4, 16, idtype=idtype, seed=0)
    pairs = set(zip(*(a.tolist() for a in rg.edges())))
    assert rg.idtype == idtype and rg.num_nodes() == 4 and len(pairs) == 16
    rb = G.rand_bipartite("u", "e", "v", 3, 4, 12, idtype=idtype, seed=0)
    assert rb.canonical_etypes == [("u", "e", "v")] and rb.idtype == idtype
    assert rb.num_nodes("u") == 3 and rb.num_nodes("v") == 4
    assert len(set(zip(*(a.tolist() for a in rb.edges())))) == 12
    with pytest.raises(ValueError, match="rand_graph: num_edges"):
        G.rand_graph(3, 10)
    with pytest.raises(ValueError, match="rand_bipartite: num_edges"):
        G.rand_bipartite("u", "e", "v", 2, 2, 5)
