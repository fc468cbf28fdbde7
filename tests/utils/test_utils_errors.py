"""Bad input to ``arraygnn.utils`` raises ``TypeError`` / ``ValueError`` naming the function
and the argument; good input is never modified."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.utils as U

EI = np.array([[0, 1, 2, 2], [1, 2, 0, 2]])
W = np.array([1.0, 2.0, 3.0, 4.0])
FLOAT_EI = EI.astype(np.float64)
NEG_EI = np.array([[0, -1], [1, 0]])
BIG_EI = np.array([[0, 5], [1, 0]])
X = np.ones((3, 2))

# (label, call, exception, words the message must hold)
BAD = [
    # edge_index: dtype, shape, range
    ("degree float", lambda: U.degree(np.array([0.0, 1.0])), TypeError, "degree: index"),
    ("degree 2-d", lambda: U.degree(EI), ValueError, "index must be one-dimensional"),
    ("degree negative", lambda: U.degree(np.array([0, -2])), ValueError, "negative"),
    ("degree range", lambda: U.degree(np.array([0, 3]), 3), ValueError, "out of range"),
    ("degree num_nodes", lambda: U.degree(EI[0], 3.0), TypeError, "num_nodes"),
    ("degree dtype", lambda: U.degree(EI[0], 3, "nope"), TypeError, "dtype"),
    ("degree list", lambda: U.degree([0, 1]), TypeError, "NumPy or CuPy array"),
    ("loops float", lambda: U.contains_self_loops(FLOAT_EI), TypeError, "edge_index"),
    ("loops shape", lambda: U.contains_self_loops(EI.T), ValueError, "[2, E]"),
    ("remove negative", lambda: U.remove_self_loops(NEG_EI), ValueError, "negative"),
    ("remove attr len", lambda: U.remove_self_loops(EI, W[:3]), ValueError, "edge_attr"),
    ("add range", lambda: U.add_self_loops(BIG_EI, num_nodes=3), ValueError, "out of range"),
    ("add negative", lambda: U.add_self_loops(NEG_EI), ValueError, "negative"),
    ("add pair range", lambda: U.add_self_loops(EI, num_nodes=(3, 2)), ValueError, "edge_index[1]"),
    ("add pair len", lambda: U.add_self_loops(EI, num_nodes=(3, 3, 3)), ValueError, "num_nodes"),
    ("add fill name", lambda: U.add_self_loops(EI, W, "median"), ValueError, "fill_value"),
    ("segment any", lambda: U.segment(W, np.array([0, 4]), "any"), ValueError, "'any' is not"),
    ("add fill type", lambda: U.add_self_loops(EI, W, [1.0]), TypeError, "fill_value"),
    ("add fill shape", lambda: U.add_self_loops(EI, W, np.ones(2)), ValueError, "fill_value"),
    ("add attr rows", lambda: U.add_self_loops(EI, W[:2]), ValueError, "one row per edge"),
    ("add attr 0-d", lambda: U.add_self_loops(EI, np.float64(1.0)), TypeError, "edge_attr"),
    (
        "remaining pair",
        lambda: U.add_remaining_self_loops(EI, num_nodes=(3, 3)),
        TypeError,
        "num_nodes",
    ),
    (
        "remaining range",
        lambda: U.add_remaining_self_loops(BIG_EI, W[:2], 1.0, 3),
        ValueError,
        "out of range",
    ),
    ("isolated negative", lambda: U.contains_isolated_nodes(NEG_EI), ValueError, "negative"),
    ("isolated range", lambda: U.contains_isolated_nodes(EI, 2), ValueError, "out of range"),
    # coalesce / undirected
    ("coalesce float", lambda: U.coalesce(FLOAT_EI), TypeError, "coalesce: edge_index"),
    ("coalesce reduce", lambda: U.coalesce(EI, W, reduce="median"), ValueError, "reduce"),
    ("coalesce attr len", lambda: U.coalesce(EI, W[:3]), ValueError, "edge_attr"),
    ("coalesce list item", lambda: U.coalesce(EI, [W, W[:2]]), ValueError, "edge_attr[1]"),
    ("coalesce attr kind", lambda: U.coalesce(EI, W.astype(str)), TypeError, "numeric"),
    ("coalesce range", lambda: U.coalesce(BIG_EI, num_nodes=4), ValueError, "out of range"),
    ("coalesce flag", lambda: U.coalesce(EI, sort_by_row="yes"), TypeError, "sort_by_row"),
    ("undirected reduce", lambda: U.to_undirected(EI, W, reduce="nope"), ValueError, "reduce"),
    ("undirected shape", lambda: U.to_undirected(EI[None]), ValueError, "[2, E]"),
    ("is_undirected attr", lambda: U.is_undirected(EI, W[:1]), ValueError, "edge_attr"),
    # subgraph
    ("subgraph mask length", lambda: U.subgraph(np.ones(2, bool), EI), ValueError, "out of range"),
    (
        "subgraph mask num_nodes",
        lambda: U.subgraph(np.ones(3, bool), EI, num_nodes=4),
        ValueError,
        "mask of 3",
    ),
    ("subgraph float", lambda: U.subgraph(np.array([0.0]), EI), TypeError, "subset"),
    ("subgraph range", lambda: U.subgraph(np.array([7]), EI), ValueError, "subset"),
    ("subgraph negative", lambda: U.subgraph([-1], EI), ValueError, "negative"),
    ("subgraph 2-d", lambda: U.subgraph(np.zeros((1, 1), np.int64), EI), ValueError, "subset"),
    ("subgraph attr", lambda: U.subgraph([0, 1], EI, W[:2]), ValueError, "edge_attr"),
    ("khop flow", lambda: U.k_hop_subgraph(0, 1, EI, flow="up"), ValueError, "flow"),
    ("khop hops", lambda: U.k_hop_subgraph(0, -1, EI), ValueError, "num_hops"),
    ("khop hops type", lambda: U.k_hop_subgraph(0, 1.5, EI), TypeError, "num_hops"),
    ("khop node range", lambda: U.k_hop_subgraph(5, 1, EI), ValueError, "node_idx"),
    ("khop node type", lambda: U.k_hop_subgraph(np.array([0.5]), 1, EI), TypeError, "node_idx"),
    ("khop bool node", lambda: U.k_hop_subgraph(True, 1, EI), TypeError, "node_idx"),
    # dense
    ("dense batch length", lambda: U.to_dense_batch(X, np.zeros(2, np.int64)), ValueError, "batch"),
    ("dense batch float", lambda: U.to_dense_batch(X, np.zeros(3)), TypeError, "batch"),
    (
        "dense batch unsorted",
        lambda: U.to_dense_batch(X, np.array([1, 0, 1])),
        ValueError,
        "sorted",
    ),
    (
        "dense batch size",
        lambda: U.to_dense_batch(X, np.array([0, 1, 2]), batch_size=2),
        ValueError,
        "out of range",
    ),
    (
        "dense batch negative",
        lambda: U.to_dense_batch(X, np.array([-1, 0, 0])),
        ValueError,
        "negative",
    ),
    ("dense batch max", lambda: U.to_dense_batch(X, max_num_nodes=-1), ValueError, "max_num_nodes"),
    ("dense fill", lambda: U.to_dense_batch(X, fill_value=[0]), TypeError, "fill_value"),
    ("dense x", lambda: U.to_dense_batch(np.float64(1.0)), TypeError, "x"),
    (
        "dense adj batch",
        lambda: U.to_dense_adj(EI, np.zeros(2, np.int64)),
        ValueError,
        "out of range",
    ),
    ("dense adj attr", lambda: U.to_dense_adj(EI, edge_attr=W[:2]), ValueError, "edge_attr"),
    ("dense adj attr kind", lambda: U.to_dense_adj(EI, edge_attr=W > 1), TypeError, "edge_attr"),
    ("dense adj float", lambda: U.to_dense_adj(FLOAT_EI), TypeError, "edge_index"),
    ("to_sparse ndim", lambda: U.dense_to_sparse(np.ones(3)), ValueError, "adj"),
    (
        "to_sparse mask shape",
        lambda: U.dense_to_sparse(np.ones((2, 3, 3)), np.ones((2, 2), bool)),
        ValueError,
        "mask",
    ),
    (
        "to_sparse mask dtype",
        lambda: U.dense_to_sparse(np.ones((2, 3, 3)), np.ones((2, 3))),
        TypeError,
        "mask",
    ),
    (
        "to_sparse mask square",
        lambda: U.dense_to_sparse(np.ones((2, 3, 4)), np.ones((2, 3), bool)),
        ValueError,
        "square",
    ),
    # masks
    ("index_to_mask float", lambda: U.index_to_mask(np.array([1.0])), TypeError, "index"),
    ("index_to_mask range", lambda: U.index_to_mask(np.array([3]), 3), ValueError, "out of range"),
    ("index_to_mask negative", lambda: U.index_to_mask(np.array([-1])), ValueError, "negative"),
    ("mask_to_index int", lambda: U.mask_to_index(np.array([0, 1])), TypeError, "mask"),
    ("mask_to_index 2-d", lambda: U.mask_to_index(np.ones((2, 2), bool)), ValueError, "mask"),
    # scatter / softmax
    ("scatter reduce", lambda: U.scatter(W, EI[0], reduce="median"), ValueError, "reduce"),
    ("scatter names", lambda: U.scatter(W, EI[0], reduce="all"), ValueError, "'amax', 'any'"),
    ("scatter dim", lambda: U.scatter(W, EI[0], dim=1), ValueError, "dim"),
    ("scatter length", lambda: U.scatter(W, EI[0, :3]), ValueError, "index has 3"),
    ("scatter float index", lambda: U.scatter(W, W), TypeError, "index"),
    ("scatter size", lambda: U.scatter(W, EI[0], dim_size=1), ValueError, "out of range"),
    ("scatter src", lambda: U.scatter(W.astype(str), EI[0]), TypeError, "src"),
    ("softmax int", lambda: U.softmax(EI[0], EI[1]), TypeError, "src"),
    ("softmax nothing", lambda: U.softmax(W), ValueError, "index"),
    ("softmax ptr ends", lambda: U.softmax(W, ptr=np.array([0, 3])), ValueError, "ptr"),
    (
        "softmax ptr order",
        lambda: U.softmax(W, ptr=np.array([0, 3, 1, 4])),
        ValueError,
        "non-decreasing",
    ),
    ("softmax index len", lambda: U.softmax(W, EI[0, :2]), ValueError, "index"),
    ("softmax num_nodes", lambda: U.softmax(W, EI[0], num_nodes=1), ValueError, "out of range"),
]


@pytest.mark.parametrize("call,exc,words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    assert words in str(info.value)


def test_torch_tensor_gets_a_hint():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="from_torch"):
        U.coalesce(torch.tensor([[0], [1]]))


def _writable_inputs():
    rng = np.random.default_rng(0)
    ei = rng.integers(0, 6, (2, 30)).astype(np.int32)
    w = rng.standard_normal((30, 2)).astype(np.float32)
    batch = np.repeat(np.arange(3), 2)
    x = rng.standard_normal((6, 4))
    adj = rng.random((3, 4, 4))
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], dtype=bool)
    return ei, w, batch, x, adj, mask


CALLS = {
    "degree": lambda ei, w, b, x, adj, m: U.degree(ei[1], 6),
    "remove_self_loops": lambda ei, w, b, x, adj, m: U.remove_self_loops(ei, w),
    "add_self_loops": lambda ei, w, b, x, adj, m: U.add_self_loops(ei, w, "mean", 7),
    "add_remaining": lambda ei, w, b, x, adj, m: U.add_remaining_self_loops(ei, w, w[0], 6),
    "coalesce": lambda ei, w, b, x, adj, m: U.coalesce(ei, [w, w[:, 0]], 6, "max"),
    "to_undirected": lambda ei, w, b, x, adj, m: U.to_undirected(ei, w),
    "is_undirected": lambda ei, w, b, x, adj, m: U.is_undirected(ei, w),
    "subgraph": lambda ei, w, b, x, adj, m: U.subgraph(b[:4], ei, w, True),
    "k_hop": lambda ei, w, b, x, adj, m: U.k_hop_subgraph(b[:2], 2, ei, True),
    "to_dense_batch": lambda ei, w, b, x, adj, m: U.to_dense_batch(x, b),
    "to_dense_adj": lambda ei, w, b, x, adj, m: U.to_dense_adj(ei[:, :3] % 2, None, w[:3]),
    "dense_to_sparse": lambda ei, w, b, x, adj, m: U.dense_to_sparse(adj, m),
    "index_to_mask": lambda ei, w, b, x, adj, m: U.index_to_mask(ei),
    "mask_to_index": lambda ei, w, b, x, adj, m: U.mask_to_index(m[1]),
    "scatter": lambda ei, w, b, x, adj, m: U.scatter(w, ei[0], 0, None, "mul"),
    "softmax": lambda ei, w, b, x, adj, m: U.softmax(w, ei[1]),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_inputs_are_not_modified(name):
    inputs = _writable_inputs()
    before = [a.copy() for a in inputs]
    result = CALLS[name](*inputs)
    for a, b in zip(inputs, before):
        np.testing.assert_array_equal(a, b)
    # the results own their memory: writing to them leaves the inputs alone
    for r in result if isinstance(result, tuple) else (result,):
        for arr in r if isinstance(r, list) else [r]:
            if isinstance(arr, np.ndarray) and arr.size:
                arr.reshape(-1)[0] = 0 if arr.dtype != bool else True
    for a, b in zip(inputs, before):
        np.testing.assert_array_equal(a, b)


def test_review_fixes_uint64_ids_fill_values_and_reduce_names():
    """uint64 ids work where NumPy would promote them to float64 next to int64; an integer
    x refuses a fill value its dtype cannot hold (torch's new_full); to_undirected names
    itself for a bad reduce."""
    import arraygnn.utils as U

    ei = np.array([[0, 1, 2, 2], [1, 2, 0, 3]])
    subset, sub_ei, mapping, mask = U.k_hop_subgraph(1, 1, ei.astype(np.uint64))
    expected = U.k_hop_subgraph(1, 1, ei)
    np.testing.assert_array_equal(sub_ei, expected[1])
    np.testing.assert_array_equal(subset, expected[0])
    np.testing.assert_array_equal(U.k_hop_subgraph(np.array([1], np.uint64), 1, ei)[0], [0, 1])
    np.testing.assert_array_equal(U.to_dense_adj(ei.astype(np.uint64)), U.to_dense_adj(ei))
    with pytest.raises(ValueError, match="to_dense_batch: fill_value 1000 does not fit"):
        U.to_dense_batch(np.ones(3, np.int8), np.array([0, 0, 1]), fill_value=1000)
    with pytest.raises(ValueError, match="does not fit"):
        U.to_dense_batch(np.ones(3, np.int64), np.array([0, 0, 1]), fill_value=float("nan"))
    with pytest.raises(ValueError, match="to_undirected"):
        U.to_undirected(ei, reduce="bad")
