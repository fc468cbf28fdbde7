"""``sort_edge_index``, ``remove_isolated_nodes``, ``unbatch`` / ``unbatch_edge_index``,
``bipartite_subgraph``, ``get_laplacian``, ``segregate_self_loops`` and
``get_self_loop_attr``: hand-computed cases (no torch), bad input named, inputs not modified,
and parity with ``torch_geometric.utils`` on the labelled cases and random graphs."""

from __future__ import annotations

import numpy as np
import pytest
from _utils_cases import (
    INDEX_DTYPES,
    assert_same,
    attr_variants,
    homogeneous_cases,
    t,
)

import arraygnn.utils as U
from arraygnn.testing.cases import get_case, random_graph

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


def _dense(ei, w, n):
    """The dense [n, n] matrix of the edge list (parallel edges summed)."""
    out = np.zeros((n, n), dtype=np.float64)
    np.add.at(out, (ei[0], ei[1]), w)
    return out


# =========================================================================== hand-computed


def test_sort_edge_index_return_conventions():
    ei = np.array([[2, 1, 1, 0], [1, 2, 0, 1]], dtype=np.int32)
    a = np.array([[1], [2], [3], [4]])
    want = [[0, 1, 1, 2], [1, 0, 2, 1]]
    out = U.sort_edge_index(ei)
    assert isinstance(out, np.ndarray) and out.tolist() == want and out.dtype == np.int32
    out, none = U.sort_edge_index(ei, None)
    assert out.tolist() == want and none is None
    out, attr = U.sort_edge_index(ei, a)
    assert attr.tolist() == [[4], [3], [2], [1]]
    for seq in ([a, a[:, 0]], (a, a[:, 0])):
        out, attrs = U.sort_edge_index(ei, seq)
        assert isinstance(attrs, list) and [x.tolist() for x in attrs] == [
            [[4], [3], [2], [1]],
            [4, 3, 2, 1],
        ]
    out, attr = U.sort_edge_index(ei, a, sort_by_row=False)
    assert out.tolist() == [[1, 0, 2, 1], [0, 1, 1, 2]] and attr[:, 0].tolist() == [3, 4, 1, 2]


def test_sort_edge_index_is_stable_and_takes_any_attr_dtype():
    ei = np.array([[1, 0, 1, 0, 1], [0, 1, 0, 1, 0]])
    labels = np.array(["a", "b", "c", "d", "e"])
    out, attr = U.sort_edge_index(ei, labels)
    assert out.tolist() == [[0, 0, 1, 1, 1], [1, 1, 0, 0, 0]]
    assert attr.tolist() == ["b", "d", "a", "c", "e"]
    # sparse ids (the comparison-sort branch) are stable too
    big = np.array([[10**6, 0, 10**6, 0], [5, 9, 5, 9]])
    out, attr = U.sort_edge_index(big, np.arange(4))
    assert out.tolist() == [[0, 0, 10**6, 10**6], [9, 9, 5, 5]] and attr.tolist() == [1, 3, 0, 2]


def test_sort_edge_index_empty_and_fresh():
    empty = np.zeros((2, 0), dtype=np.int32)
    out, attr = U.sort_edge_index(empty, np.zeros((0, 3)), num_nodes=4)
    assert out.shape == (2, 0) and out.dtype == np.int32 and attr.shape == (0, 3)
    one = np.array([[1], [0]])
    out = U.sort_edge_index(one)
    out[0, 0] = 7
    assert one.tolist() == [[1], [0]]


def test_remove_isolated_nodes_by_hand():
    # node 2: only a loop (isolated); node 0: two loops (the last kept); node 4: nothing
    ei = np.array([[0, 2, 1, 0, 3, 0], [0, 2, 3, 1, 1, 0]], dtype=np.int32)
    w = np.arange(6.0)
    out, attr, mask = U.remove_isolated_nodes(ei, w, num_nodes=5)
    assert mask.tolist() == [True, True, False, True, False]
    # edges between distinct nodes first, renumbered 0, 1, 3 -> 0, 1, 2; then node 0's loop
    assert out.tolist() == [[1, 0, 2, 0], [2, 1, 1, 0]] and out.dtype == np.int32
    assert attr.tolist() == [2.0, 3.0, 4.0, 5.0]
    out, none, mask = U.remove_isolated_nodes(ei)
    assert none is None and mask.tolist() == [True, True, False, True]


def test_remove_isolated_nodes_degenerate():
    out, attr, mask = U.remove_isolated_nodes(np.zeros((2, 0), np.int64), np.zeros(0), 3)
    assert out.shape == (2, 0) and attr.shape == (0,) and mask.tolist() == [False] * 3
    out, _, mask = U.remove_isolated_nodes(np.array([[0, 0], [0, 0]]))
    assert out.shape == (2, 0) and mask.tolist() == [False]
    out, _, mask = U.remove_isolated_nodes(np.zeros((2, 0), np.int64))
    assert out.shape == (2, 0) and mask.shape == (0,)


def test_segregate_and_get_self_loop_attr_by_hand():
    ei = np.array([[0, 1, 1, 2, 1], [0, 2, 1, 1, 1]], dtype=np.int32)
    w = np.array([[1.0, 1.5], [2.0, 2.5], [3.0, 3.5], [4.0, 4.5], [5.0, 5.5]])
    e, a, le, la = U.segregate_self_loops(ei, w)
    assert e.tolist() == [[1, 2], [2, 1]] and a[:, 0].tolist() == [2.0, 4.0]
    assert le.tolist() == [[0, 1, 1], [0, 1, 1]] and la[:, 0].tolist() == [1.0, 3.0, 5.0]
    assert e.dtype == le.dtype == np.int32
    assert U.segregate_self_loops(ei)[1] is None and U.segregate_self_loops(ei)[3] is None
    diag = U.get_self_loop_attr(ei, w, num_nodes=4)
    assert diag.tolist() == [[1.0, 1.5], [5.0, 5.5], [0.0, 0.0], [0.0, 0.0]]
    ones = U.get_self_loop_attr(ei)
    assert ones.tolist() == [1.0, 1.0, 0.0] and ones.dtype == np.float32
    ints = U.get_self_loop_attr(ei, np.arange(5, dtype=np.int16))
    assert ints.tolist() == [0, 4, 0] and ints.dtype == np.int16
    assert U.get_self_loop_attr(np.zeros((2, 0), np.int64)).shape == (0,)


def test_unbatch_by_hand():
    src = np.arange(14.0).reshape(7, 2)
    batch = np.array([0, 0, 0, 2, 2, 3, 3], dtype=np.int32)
    parts = U.unbatch(src, batch)
    assert isinstance(parts, list) and [p.shape[0] for p in parts] == [3, 0, 2, 2]
    np.testing.assert_array_equal(np.concatenate(parts), src)
    parts = U.unbatch(src.T, batch, dim=-1, batch_size=6)
    assert [p.shape for p in parts] == [(2, 3), (2, 0), (2, 2), (2, 2), (2, 0), (2, 0)]
    parts[0][0, 0] = -1.0  # a fresh copy, not a view of src
    assert src[0, 0] == 0.0
    assert U.unbatch(np.zeros((0, 3)), np.zeros(0, np.int64)) == []
    assert [p.shape for p in U.unbatch(np.zeros((0, 3)), np.zeros(0, np.int64), 0, 2)] == [
        (0, 3),
        (0, 3),
    ]


def test_unbatch_edge_index_by_hand():
    ei = np.array([[0, 1, 3, 4, 4], [1, 0, 4, 3, 4]], dtype=np.int32)
    batch = np.array([0, 0, 1, 2, 2])
    parts = U.unbatch_edge_index(ei, batch, batch_size=4)
    assert [p.tolist() for p in parts] == [
        [[0, 1], [1, 0]],
        [[], []],
        [[0, 1, 1], [1, 0, 1]],
        [[], []],
    ]
    assert all(p.dtype == np.int32 and p.shape[0] == 2 for p in parts)
    assert U.unbatch_edge_index(np.zeros((2, 0), np.int64), np.zeros(0, np.int64)) == []
    # batch_size left out: PyG counts the pieces up to the graph of the last edge
    assert len(U.unbatch_edge_index(ei, batch)) == 3
    assert len(U.unbatch_edge_index(ei[:, :2], batch)) == 1
    assert U.unbatch_edge_index(ei[:, :0], batch) == []


def test_bipartite_subgraph_by_hand():
    ei = np.array([[0, 5, 2, 3, 3, 4, 4, 3, 5, 5, 6], [0, 0, 3, 2, 0, 0, 2, 1, 2, 3, 1]])
    attr = np.arange(1, 12)
    src_mask = np.isin(np.arange(7), [2, 3, 5])
    dst_ids = np.array([2, 3], dtype=np.int32)
    out, a, mask = U.bipartite_subgraph((src_mask, dst_ids), ei, attr, False, None, True)
    assert out.tolist() == [[2, 3, 5, 5], [3, 2, 2, 3]] and a.tolist() == [3, 4, 9, 10]
    assert mask.tolist() == [False, False, True, True] + [False] * 4 + [True, True, False]
    out, _ = U.bipartite_subgraph((src_mask, dst_ids), ei, relabel_nodes=True)
    assert out.tolist() == [[0, 1, 2, 2], [1, 0, 0, 1]]
    out, _ = U.bipartite_subgraph(([5, 2], [3]), ei, relabel_nodes=True, size=(8, 4))
    assert out.tolist() == [[1, 0], [0, 0]]
    out, _ = U.bipartite_subgraph(([], []), np.zeros((2, 0), np.int32))
    assert out.shape == (2, 0) and out.dtype == np.int32


def test_get_laplacian_matches_dense_formulas():
    # node 3 only has a self-loop, node 4 only an incoming edge, node 5 nothing
    ei = np.array([[0, 1, 1, 2, 0, 3, 2], [1, 0, 2, 1, 0, 3, 4]])
    w = np.array([1.0, 2.0, 3.0, 4.0, 9.0, 9.0, 0.5])
    n = 6
    keep = ei[0] != ei[1]
    adj = _dense(ei[:, keep], w[keep], n)
    deg = adj.sum(1)
    with np.errstate(divide="ignore"):
        dis = np.where(deg > 0, deg**-0.5, 0.0)
        dinv = np.where(deg > 0, 1.0 / deg, 0.0)
    want = {
        None: np.diag(deg) - adj,
        "sym": np.eye(n) - dis[:, None] * adj * dis[None, :],
        "rw": np.eye(n) - dinv[:, None] * adj,
    }
    for norm, lap in want.items():
        out, lw = U.get_laplacian(ei, w, norm, num_nodes=n)
        assert out.shape == (2, keep.sum() + n) and lw.dtype == np.float64
        np.testing.assert_allclose(_dense(out, lw, n), lap, rtol=1e-12, atol=1e-12)
    # num_nodes left out: max + 1 over the edges without loops (node 5 and no loop-only tail)
    out, _ = U.get_laplacian(ei, w)
    assert out.shape == (2, 5 + 5)


def test_get_laplacian_dtypes():
    ei = np.array([[0, 1, 2], [1, 0, 2]], dtype=np.int32)
    out, lw = U.get_laplacian(ei)
    assert out.dtype == np.int32 and lw.dtype == np.float32
    assert out.tolist() == [[0, 1, 0, 1], [1, 0, 0, 1]] and lw.tolist() == [-1, -1, 1, 1]
    _, lw = U.get_laplacian(ei, dtype=np.float64, normalization="sym")
    assert lw.dtype == np.float64
    _, lw = U.get_laplacian(ei, np.array([1, 2, 3]))
    assert lw.dtype == np.int64 and lw.tolist() == [-1, -2, 1, 2]
    for norm in ("sym", "rw"):
        _, lw = U.get_laplacian(ei, np.array([4, 4, 3]), norm)
        assert lw.dtype == np.float32 and lw.tolist() == [-1.0, -1.0, 1.0, 1.0]
    out, lw = U.get_laplacian(np.zeros((2, 0), np.int64))
    assert out.shape == (2, 0) and lw.shape == (0,) and lw.dtype == np.float32


# =========================================================================== bad input

EI = np.array([[0, 1, 2, 2], [1, 2, 0, 2]])
W = np.array([1.0, 2.0, 3.0, 4.0])
FLOAT_EI = EI.astype(np.float64)
NEG_EI = np.array([[0, -1], [1, 0]])
B = np.array([0, 0, 1])

BAD = [
    ("sort float", lambda: U.sort_edge_index(FLOAT_EI), TypeError, "sort_edge_index: edge_index"),
    ("sort shape", lambda: U.sort_edge_index(EI.T), ValueError, "[2, E]"),
    ("sort negative", lambda: U.sort_edge_index(NEG_EI), ValueError, "negative"),
    ("sort range", lambda: U.sort_edge_index(EI, num_nodes=2), ValueError, "out of range"),
    ("sort attr len", lambda: U.sort_edge_index(EI, W[:3]), ValueError, "edge_attr"),
    ("sort attr list", lambda: U.sort_edge_index(EI, [W, W[:1]]), ValueError, "edge_attr[1]"),
    ("sort attr type", lambda: U.sort_edge_index(EI, "w"), TypeError, "edge_attr"),
    ("sort flag", lambda: U.sort_edge_index(EI, sort_by_row=1), TypeError, "sort_by_row"),
    ("isolated attr", lambda: U.remove_isolated_nodes(EI, W[:2]), ValueError, "edge_attr"),
    ("isolated range", lambda: U.remove_isolated_nodes(EI, None, 2), ValueError, "out of range"),
    ("isolated n type", lambda: U.remove_isolated_nodes(EI, None, 3.0), TypeError, "num_nodes"),
    ("isolated float", lambda: U.remove_isolated_nodes(FLOAT_EI), TypeError, "edge_index"),
    ("segregate attr", lambda: U.segregate_self_loops(EI, W[:1]), ValueError, "edge_attr"),
    ("segregate negative", lambda: U.segregate_self_loops(NEG_EI), ValueError, "negative"),
    ("loop attr range", lambda: U.get_self_loop_attr(EI, W, 2), ValueError, "out of range"),
    ("loop attr list", lambda: U.get_self_loop_attr(EI, [1.0] * 4), TypeError, "edge_attr"),
    ("unbatch src", lambda: U.unbatch([1, 2, 3], B), TypeError, "unbatch: src"),
    ("unbatch 0-d", lambda: U.unbatch(np.array(1.0), B), ValueError, "src"),
    ("unbatch length", lambda: U.unbatch(np.ones(4), B), ValueError, "batch must have shape"),
    ("unbatch float", lambda: U.unbatch(np.ones(3), B * 1.0), TypeError, "batch"),
    ("unbatch order", lambda: U.unbatch(np.ones(3), B[::-1]), ValueError, "sorted"),
    ("unbatch size", lambda: U.unbatch(np.ones(3), B, batch_size=1), ValueError, "out of range"),
    ("unbatch size type", lambda: U.unbatch(np.ones(3), B, 0, 2.0), TypeError, "batch_size"),
    ("unbatch dim", lambda: U.unbatch(np.ones(3), B, dim=1), ValueError, "dim"),
    ("unbatch dim type", lambda: U.unbatch(np.ones(3), B, dim=0.0), TypeError, "dim"),
    (
        "unbatch_ei across",
        lambda: U.unbatch_edge_index(np.array([[0], [2]]), B),
        ValueError,
        "between two graphs",
    ),
    (
        "unbatch_ei order",
        lambda: U.unbatch_edge_index(np.array([[2, 0], [2, 1]]), B),
        ValueError,
        "grouped by graph",
    ),
    (
        "unbatch_ei range",
        lambda: U.unbatch_edge_index(np.array([[0], [3]]), B),
        ValueError,
        "out of range",
    ),
    ("unbatch_ei batch 2-d", lambda: U.unbatch_edge_index(EI, B[None]), ValueError, "batch"),
    ("unbatch_ei float", lambda: U.unbatch_edge_index(FLOAT_EI, B), TypeError, "edge_index"),
    ("bip pair", lambda: U.bipartite_subgraph(([0], [1], [2]), EI), TypeError, "pair"),
    ("bip array", lambda: U.bipartite_subgraph(np.array([[0], [1]]), EI), TypeError, "subset"),
    ("bip float", lambda: U.bipartite_subgraph(([0.5], [0]), EI), TypeError, "subset[0]"),
    ("bip bool list", lambda: U.bipartite_subgraph(([0], [True]), EI), TypeError, "subset[1]"),
    ("bip id range", lambda: U.bipartite_subgraph(([5], [0]), EI), ValueError, "subset[0]"),
    ("bip negative", lambda: U.bipartite_subgraph(([0], [-1]), EI), ValueError, "negative"),
    (
        "bip mask short",
        lambda: U.bipartite_subgraph((np.ones(2, bool), [0]), EI),
        ValueError,
        "edge_index[0]",
    ),
    (
        "bip mask size",
        lambda: U.bipartite_subgraph(([0], np.ones(3, bool)), EI, size=(3, 4)),
        ValueError,
        "subset[1] is a mask of 3",
    ),
    ("bip size", lambda: U.bipartite_subgraph(([0], [0]), EI, size=3), TypeError, "size"),
    (
        "bip size range",
        lambda: U.bipartite_subgraph(([0], [0]), EI, size=(2, 3)),
        ValueError,
        "edge_index[0]",
    ),
    (
        "bip size neg",
        lambda: U.bipartite_subgraph(([0], [0]), EI, size=(3, -1)),
        ValueError,
        "size[1]",
    ),
    ("bip attr", lambda: U.bipartite_subgraph(([0], [0]), EI, W[:1]), ValueError, "edge_attr"),
    (
        "bip flag",
        lambda: U.bipartite_subgraph(([0], [0]), EI, None, "no"),
        TypeError,
        "relabel_nodes",
    ),
    ("lap norm", lambda: U.get_laplacian(EI, normalization="l2"), ValueError, "normalization"),
    ("lap weight 2-d", lambda: U.get_laplacian(EI, W[:, None]), ValueError, "one-dimensional"),
    ("lap weight len", lambda: U.get_laplacian(EI, W[:2]), ValueError, "edge_weight"),
    ("lap weight bool", lambda: U.get_laplacian(EI, W > 1), TypeError, "edge_weight"),
    ("lap weight uint", lambda: U.get_laplacian(EI, W.astype(np.uint8)), TypeError, "edge_weight"),
    ("lap dtype", lambda: U.get_laplacian(EI, dtype="nope"), TypeError, "dtype"),
    ("lap dtype bool", lambda: U.get_laplacian(EI, dtype=bool), TypeError, "dtype"),
    ("lap range", lambda: U.get_laplacian(EI, num_nodes=2), ValueError, "out of range"),
    (
        "lap loop range",
        lambda: U.get_laplacian(np.array([[0, 3], [1, 3]]), num_nodes=2),
        ValueError,
        "get_laplacian: edge_index has entry 3",
    ),
    ("lap negative", lambda: U.get_laplacian(NEG_EI), ValueError, "negative"),
]


@pytest.mark.parametrize("call,exc,words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    assert words in str(info.value)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(1)
    ei = rng.integers(0, 6, (2, 30)).astype(np.int32)
    ei[:, :3] = [[1, 1, 4], [1, 1, 4]]
    w = rng.random(30).astype(np.float32)
    x = rng.standard_normal((6, 3))
    batch = np.array([0, 0, 1, 1, 1, 2])
    within = ei[:, (batch[ei[0]] == batch[ei[1]])]
    within = within[:, np.argsort(batch[within[0]], kind="stable")]
    src_mask = np.array([1, 0, 1, 1, 0, 1], bool)
    calls = [
        lambda: U.sort_edge_index(ei, [w, w], 6, False),
        lambda: U.remove_isolated_nodes(ei, w, 8),
        lambda: U.segregate_self_loops(ei, w),
        lambda: U.get_self_loop_attr(ei, w, 6),
        lambda: U.unbatch(x, batch),
        lambda: U.unbatch_edge_index(within, batch),
        lambda: U.bipartite_subgraph((src_mask, batch[:3]), ei, w, True, None, True),
        lambda: U.get_laplacian(ei, w, "sym", num_nodes=7),
        lambda: U.get_laplacian(ei, w, None),
    ]
    inputs = (ei, w, x, batch, within, src_mask)
    before = [a.copy() for a in inputs]
    for call in calls:
        out = call()
        for a, b in zip(inputs, before):
            np.testing.assert_array_equal(a, b)
        flat = out if isinstance(out, (list, tuple)) else [out]
        for o in flat:  # fresh arrays: none shares memory with an input
            for item in o if isinstance(o, list) else [o]:
                if isinstance(item, np.ndarray):
                    assert not any(np.shares_memory(item, a) for a in inputs)


# =========================================================================== PyG parity


def _ids(a):
    return a.astype(np.int64)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("sort_by_row", [True, False])
@pytest.mark.parametrize("given", [True, False])
def test_sort_edge_index_pyg(dt, label, ei, n, sort_by_row, given):
    P = _pyg()
    nn = n if given else None
    out = U.sort_edge_index(ei, num_nodes=nn, sort_by_row=sort_by_row)
    ref = P.sort_edge_index(t(ei), num_nodes=nn, sort_by_row=sort_by_row)
    assert out.dtype == dt
    assert_same(_ids(out), ref)
    num_edges = ei.shape[1]
    order = np.arange(num_edges)
    attrs = [a for _, a in attr_variants(num_edges)]
    out, (ours_perm, *ours) = U.sort_edge_index(ei, [order] + attrs, nn, sort_by_row)
    ref, (ref_perm, *_) = P.sort_edge_index(
        t(ei), [t(order)] + [t(a) for a in attrs], nn, sort_by_row
    )
    # ours: the stable order; PyG's: the same edges, ties in any order
    first, second = (ei[0], ei[1]) if sort_by_row else (ei[1], ei[0])
    np.testing.assert_array_equal(ours_perm, np.lexsort((second, first)))
    key = (first.astype(np.int64) * (n + 1) + second)[ours_perm]
    ref_perm = ref_perm.numpy()
    np.testing.assert_array_equal(key, (first.astype(np.int64) * (n + 1) + second)[ref_perm])
    np.testing.assert_array_equal(ref_perm[np.lexsort((ref_perm, key))], ours_perm)
    for a, o in zip(attrs, ours):
        np.testing.assert_array_equal(o, a[ours_perm])
        assert o.dtype == a.dtype


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("given", [True, False])
def test_remove_isolated_nodes_pyg(dt, label, ei, n, given):
    P = _pyg()
    nn = n + 2 if given else None
    out, none, mask = U.remove_isolated_nodes(ei, num_nodes=nn)
    ref, rnone, rmask = P.remove_isolated_nodes(t(ei), num_nodes=nn)
    assert none is None and rnone is None and out.dtype == dt
    assert_same(_ids(out), ref)
    assert_same(mask, rmask)
    for _, attr in attr_variants(ei.shape[1]):
        out, a, mask = U.remove_isolated_nodes(ei, attr, nn)
        ref, ra, rmask = P.remove_isolated_nodes(t(ei), t(attr), nn)
        assert_same(_ids(out), ref)
        assert_same(a, ra, exact=True)
        assert_same(mask, rmask)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
def test_segregate_self_loops_pyg(dt, label, ei, n):
    P = _pyg()
    ours = U.segregate_self_loops(ei)
    ref = P.segregate_self_loops(t(ei))
    assert ours[1] is None and ours[3] is None
    assert_same(_ids(ours[0]), ref[0])
    assert_same(_ids(ours[2]), ref[2])
    for _, attr in attr_variants(ei.shape[1]):
        ours = U.segregate_self_loops(ei, attr)
        ref = P.segregate_self_loops(t(ei), t(attr))
        assert ours[0].dtype == ours[2].dtype == dt
        assert_same(_ids(ours[0]), ref[0])
        assert_same(_ids(ours[2]), ref[2])
        assert_same(ours[1], ref[1], exact=True)
        assert_same(ours[3], ref[3], exact=True)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("given", [True, False])
def test_get_self_loop_attr_pyg(dt, label, ei, n, given):
    P = _pyg()
    nn = n + 1 if given else None
    assert_same(U.get_self_loop_attr(ei, None, nn), P.get_self_loop_attr(t(ei), None, nn))
    for _, attr in attr_variants(ei.shape[1]):
        ours = U.get_self_loop_attr(ei, attr, nn)
        assert ours.dtype == attr.dtype
        assert_same(ours, P.get_self_loop_attr(t(ei), t(attr), nn), exact=True)


def _batch_of(sizes, dtype=np.int64):
    return np.repeat(np.arange(len(sizes)), sizes).astype(dtype)


BATCH_SIZES = [[3, 2, 2], [0, 4, 0, 1], [5], [1, 1, 1, 1, 1, 0], [0]]


@pytest.mark.parametrize("sizes", BATCH_SIZES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("extra", [None, 0, 2])
def test_unbatch_pyg(sizes, index_dtype, extra):
    P = _pyg()
    batch = _batch_of(sizes, index_dtype)
    bs = None if extra is None else len(sizes) + extra
    rng = np.random.default_rng(len(sizes))
    n = int(sum(sizes))
    for src, dim in [
        (rng.standard_normal(n).astype(np.float32), 0),
        (rng.standard_normal((2, n, 3)), 1),
        (rng.integers(0, 9, (4, n)), -1),
    ]:
        ours = U.unbatch(src, batch, dim, bs)
        ref = P.unbatch(t(src) if src.dtype.kind == "f" else t(src), t(batch), dim, bs)
        assert len(ours) == len(ref)
        for o, r in zip(ours, ref):
            assert o.dtype == src.dtype
            assert_same(o, r, exact=True)


def _batched_graphs(sizes, seed, dtype):
    """A batch of random graphs (self-loops, multi-edges) with edges grouped by graph."""
    rng = np.random.default_rng(seed)
    parts, start = [], 0
    for s in sizes:
        e = int(rng.integers(0, 3 * s + 1)) if s else 0
        parts.append(rng.integers(0, max(s, 1), (2, e)) + start)
        start += s
    ei = np.concatenate(parts, axis=1) if parts else np.zeros((2, 0), np.int64)
    return ei.astype(dtype)


@pytest.mark.parametrize("sizes", BATCH_SIZES + [[7, 3, 0, 12, 1]])
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("extra", [None, 3])
def test_unbatch_edge_index_pyg(sizes, index_dtype, extra):
    P = _pyg()
    ei = _batched_graphs(sizes, len(sizes), index_dtype)
    batch = _batch_of(sizes)
    bs = None if extra is None else len(sizes) + extra
    ours = U.unbatch_edge_index(ei, batch, bs)
    ref = P.unbatch_edge_index(t(ei), t(batch), bs)
    assert len(ours) == len(ref)
    for o, r in zip(ours, ref):
        assert o.dtype == index_dtype
        assert_same(_ids(o), r)


def _bipartite_graphs():
    case = get_case("bipartite")
    out = [("bipartite", case.edge_index, case.num_src_nodes, case.num_dst_nodes)]
    for seed, (ns, nd, e) in enumerate([(9, 5, 30), (4, 12, 25), (20, 20, 80), (6, 3, 0)]):
        out.append((f"random-{ns}x{nd}-{e}", random_graph(ns, nd, e, seed=seed), ns, nd))
    return out


BIPARTITE = [
    pytest.param(dt, label, ei.astype(dt), ns, nd, id=f"{label}-{np.dtype(dt).name}")
    for dt in INDEX_DTYPES
    for label, ei, ns, nd in _bipartite_graphs()
]


@pytest.mark.parametrize("dt,label,ei,ns,nd", BIPARTITE)
@pytest.mark.parametrize("form", ["ids", "list", "masks", "mixed"])
@pytest.mark.parametrize("relabel", [False, True])
@pytest.mark.parametrize("given", [True, False])
def test_bipartite_subgraph_pyg(dt, label, ei, ns, nd, form, relabel, given):
    P = _pyg()
    import torch

    if not given and form != "masks" and ei.shape[1] == 0:
        # PyG takes max() of the empty edge_index and raises; here each side has 0 nodes
        out, none = U.bipartite_subgraph(([], []), ei, None, relabel)
        assert out.shape == (2, 0) and out.dtype == dt and none is None
        return
    rng = np.random.default_rng(ns * 31 + nd)
    src_ids = rng.choice(ns, size=max(ns // 2, 1), replace=False).astype(dt)
    dst_ids = rng.choice(nd, size=max(nd // 2, 1), replace=False).astype(dt)
    if not given:  # ids must lie below PyG's inferred sizes
        src_ids = src_ids[src_ids <= ei[0].max(initial=0)]
        dst_ids = dst_ids[dst_ids <= ei[1].max(initial=0)]
    src_mask, dst_mask = np.zeros(ns, bool), np.zeros(nd, bool)
    src_mask[src_ids], dst_mask[dst_ids] = True, True
    ours_subset, ref_subset = {
        "ids": ((src_ids, dst_ids), (t(src_ids), t(dst_ids))),
        "list": ((src_ids.tolist(), dst_ids.tolist()), (src_ids.tolist(), dst_ids.tolist())),
        "masks": ((src_mask, dst_mask), (torch.from_numpy(src_mask), torch.from_numpy(dst_mask))),
        "mixed": ((src_mask, dst_ids), (torch.from_numpy(src_mask), t(dst_ids))),
    }[form]
    size = (ns, nd) if given else None
    for _, attr in [("none", None)] + attr_variants(ei.shape[1]):
        out, a, mask = U.bipartite_subgraph(ours_subset, ei, attr, relabel, size, True)
        ref, ra, rmask = P.bipartite_subgraph(
            ref_subset, t(ei), None if attr is None else t(attr), relabel, size, True
        )
        assert out.dtype == dt
        assert_same(_ids(out), ref)
        assert_same(mask, rmask)
        if attr is None:
            assert a is None and ra is None
        else:
            assert_same(a, ra, exact=True)


def _weights(num_edges):
    rng = np.random.default_rng(num_edges)
    return [
        ("none", None),
        ("f32", rng.random(num_edges).astype(np.float32) + 0.1),
        ("f64", rng.random(num_edges) * 3),
        ("signed-exact", rng.integers(-3, 4, num_edges).astype(np.float64)),
    ]


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("normalization", [None, "sym", "rw"])
@pytest.mark.parametrize("given", [True, False])
def test_get_laplacian_pyg(dt, label, ei, n, normalization, given):
    P = _pyg()
    import torch

    nn = n + 1 if given else None
    for wlabel, w in _weights(ei.shape[1]):
        for dtype, tdtype in (
            [(None, None), (np.float64, torch.float64)] if w is None else [(None, None)]
        ):
            out, lw = U.get_laplacian(ei, w, normalization, dtype, nn)
            ref, rw = P.get_laplacian(t(ei), None if w is None else t(w), normalization, tdtype, nn)
            assert out.dtype == dt, wlabel
            assert_same(_ids(out), ref)
            assert lw.dtype == np.dtype(str(rw.dtype).replace("torch.", "")), wlabel
            assert_same(lw, rw)


@pytest.mark.parametrize("normalization", [None, "rw"])
def test_get_laplacian_integer_weights_pyg(normalization):
    P = _pyg()
    ei = random_graph(12, 12, 40, seed=5)
    w = np.random.default_rng(5).integers(1, 5, 40)
    out, lw = U.get_laplacian(ei, w, normalization)
    ref, rw = P.get_laplacian(t(ei), t(w), normalization)
    assert_same(out, ref)
    assert lw.dtype == np.dtype(str(rw.dtype).replace("torch.", ""))
    assert_same(lw, rw)
