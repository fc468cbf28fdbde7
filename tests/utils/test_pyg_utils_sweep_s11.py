"""Parity sweep of ``arraygnn.utils`` against PyG 2.8's ``torch_geometric.utils``: each
shared function on the same small inputs with the options users pass (fill values,
reductions, relabelling, flows, sizes, dims), over an ordinary graph, an edgeless one and
one whose last node is isolated, int32 / int64 ids and float32 / float64 features.

Known, documented differences are asserted as such: ids keep their dtype where PyG's
``torch.cat`` promotes to int64, and PyG is fed int64 ids where its int32 path breaks
(``k_hop_subgraph`` with ``relabel_nodes``)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.utils as U

pytest.importorskip("torch_geometric")
import torch  # noqa: E402
import torch_geometric.utils as P  # noqa: E402

GRAPHS = {
    # a self-loop (3, 3), a parallel pair (1, 2) x 2, an edge into 0 from 3 and from 2
    "basic": (np.array([[0, 1, 1, 2, 3, 3, 0, 4], [1, 2, 2, 0, 3, 0, 0, 1]]), 6),
    "empty": (np.zeros((2, 0), dtype=np.int64), 4),
    "isolated-last": (np.array([[0, 1, 2, 2], [1, 2, 0, 0]]), 5),
}
IDS = (np.int64, np.int32)
FEATS = (np.float32, np.float64)


def T(a):
    """A torch tensor holding a copy of ``a`` (dtype kept)."""
    return torch.from_numpy(np.ascontiguousarray(a).copy())


def L(a):
    """A torch int64 tensor of ``a`` (the id dtype PyG's functions are written for)."""
    return T(np.asarray(a).astype(np.int64))


def same(ours, ref, *, exact=True, dtype=True, what=""):
    """``ours`` equals PyG's ``ref``: tuples / lists / dicts item by item, Python scalars by
    value and type, arrays by shape, dtype (unless ``dtype=False``) and value (``exact`` or
    to float rounding)."""
    if isinstance(ref, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(ref), what
        for i, (a, b) in enumerate(zip(ours, ref)):
            same(a, b, exact=exact, dtype=dtype, what=f"{what}[{i}]")
        return
    if isinstance(ref, dict):
        assert isinstance(ours, dict) and list(ours) == list(ref), what
        for k in ref:
            same(ours[k], ref[k], exact=exact, dtype=dtype, what=f"{what}[{k!r}]")
        return
    if ref is None or isinstance(ref, (bool, int, float)):
        assert type(ours) is type(ref) or (isinstance(ref, float) and isinstance(ours, float)), (
            what,
            type(ours),
            type(ref),
        )
        if isinstance(ref, float):
            assert ours == pytest.approx(ref, rel=1e-5, abs=1e-6), what
        else:
            assert ours == ref, what
        return
    b = ref.numpy() if isinstance(ref, torch.Tensor) else np.asarray(ref)
    a = ours
    assert isinstance(a, np.ndarray), (what, type(a))
    assert a.shape == b.shape, (what, a.shape, b.shape)
    if dtype:
        assert a.dtype == b.dtype, (what, a.dtype, b.dtype)
    if exact or a.dtype.kind not in "fc":
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)


def _graph_params(with_feats=True):
    return [
        pytest.param(name, idt, fdt, id=f"{name}-{np.dtype(idt).name}-{np.dtype(fdt).name}")
        for name in GRAPHS
        for idt in IDS
        for fdt in (FEATS if with_feats else (np.float32,))
    ]


def _graph(name, idt, fdt, seed=0):
    ei, n = GRAPHS[name]
    ei = ei.astype(idt)
    rng = np.random.default_rng(seed)
    e = ei.shape[1]
    attrs = [None, rng.standard_normal(e).astype(fdt), rng.standard_normal((e, 3)).astype(fdt)]
    return ei, n, attrs


def _opt(a):
    return None if a is None else T(a)


# ------------------------------------------------------------------------ self-loops


@pytest.mark.parametrize("name,idt,fdt", _graph_params())
def test_self_loop_functions(name, idt, fdt):
    ei, n, attrs = _graph(name, idt, fdt)
    for attr in attrs:
        fills = [None, 2.5, "mean", "add", "sum", "max", "min", "mul"]
        if attr is not None:
            fills.append(np.full(attr.shape[1:], 1.5, dtype=fdt))
        for fill in fills:
            ref_fill = T(fill) if isinstance(fill, np.ndarray) else fill
            for nn in (None, n):
                what = f"{name} attr={None if attr is None else attr.shape} fill={fill} n={nn}"
                for ours_fn, ref_fn in (
                    (U.add_self_loops, P.add_self_loops),
                    (U.add_remaining_self_loops, P.add_remaining_self_loops),
                ):
                    ours = ours_fn(ei, attr, fill, nn)
                    ref = ref_fn(L(ei), _opt(attr), ref_fill, nn)
                    # ids keep their dtype (PyG's torch.cat gives int64)
                    assert ours[0].dtype == idt, what
                    same(ours[0].astype(np.int64), ref[0], what=f"{ours_fn.__name__} {what}")
                    same(ours[1], ref[1], exact=False, what=f"{ours_fn.__name__} {what} attr")
        same(U.remove_self_loops(ei, attr), P.remove_self_loops(T(ei), _opt(attr)))
        same(U.segregate_self_loops(ei, attr), P.segregate_self_loops(T(ei), _opt(attr)))
        same(U.get_self_loop_attr(ei, attr, n), P.get_self_loop_attr(L(ei), _opt(attr), n))
    assert U.contains_self_loops(ei) == P.contains_self_loops(T(ei))
    # bipartite sizes: loops for the first min(num_src, num_dst) nodes
    for size in ((n, n + 2), (n + 2, n)):
        ours = U.add_self_loops(ei, attrs[1], "mean", size)
        ref = P.add_self_loops(L(ei), T(attrs[1]), "mean", size)
        same(ours[0].astype(np.int64), ref[0])
        same(ours[1], ref[1], exact=False)


# -------------------------------------------------------------- coalesce & friends


@pytest.mark.parametrize("name,idt,fdt", _graph_params())
def test_coalesce_sort_undirected(name, idt, fdt):
    ei, n, attrs = _graph(name, idt, fdt)
    same(U.coalesce(ei), P.coalesce(T(ei)))
    same(U.sort_edge_index(ei), P.sort_edge_index(T(ei)))
    same(U.to_undirected(ei), P.to_undirected(T(ei)))
    same(U.to_undirected(ei, n), P.to_undirected(T(ei), n))  # an int there is num_nodes
    for attr in attrs:
        ta = _opt(attr)
        for reduce in ("sum", "add", "mean", "min", "max", "mul"):
            for sort_by_row in (True, False):
                for nn in (None, n):
                    same(
                        U.coalesce(ei, attr, nn, reduce, False, sort_by_row),
                        P.coalesce(T(ei), ta, nn, reduce, False, sort_by_row),
                        exact=False,
                        what=f"coalesce {reduce} {sort_by_row} {nn}",
                    )
            same(
                U.to_undirected(ei, attr, n, reduce),
                P.to_undirected(T(ei), ta, n, reduce),
                exact=False,
                what=f"to_undirected {reduce}",
            )
        for sort_by_row in (True, False):
            same(
                U.sort_edge_index(ei, attr, n, sort_by_row),
                P.sort_edge_index(T(ei), ta, n, sort_by_row),
            )
            # already sorted and coalesced: is_sorted=True gives the same
            done = U.coalesce(ei, attr, n, "sum", False, sort_by_row)
            same(
                U.coalesce(done[0], done[1], n, "max", True, sort_by_row),
                P.coalesce(T(done[0]), _opt(done[1]), n, "max", True, sort_by_row),
            )
        assert U.is_undirected(ei, attr, n) == P.is_undirected(T(ei), ta, n)
        und = U.to_undirected(ei, attr, n)
        assert U.is_undirected(*und, n) == P.is_undirected(T(und[0]), _opt(und[1]), n)
    two = [attrs[1], attrs[2]]
    same(U.coalesce(ei, two, n, "min"), P.coalesce(T(ei), [T(a) for a in two], n, "min"))
    same(
        U.to_undirected(ei, two, n, "mean"),
        P.to_undirected(T(ei), [T(a) for a in two], n, "mean"),
        exact=False,
    )


@pytest.mark.parametrize("name,idt,fdt", _graph_params())
def test_degree_isolated_laplacian(name, idt, fdt):
    ei, n, attrs = _graph(name, idt, fdt)
    dtypes = ((None, None), (np.int64, torch.long), (np.float64, torch.float64))
    for dt, tdt in dtypes:
        for nn in (None, n):
            for row in (0, 1):
                same(U.degree(ei[row], nn, dt), P.degree(L(ei[row]), nn, tdt))
    for nn in (None, n, n + 2):
        assert U.contains_isolated_nodes(ei, nn) == P.contains_isolated_nodes(T(ei), nn)
    for attr in attrs:
        ours = U.remove_isolated_nodes(ei, attr, n)
        ref = P.remove_isolated_nodes(T(ei), _opt(attr), n)
        same(ours[0].astype(np.int64), ref[0])  # ids keep their dtype (PyG: int64)
        same(ours[1:], ref[1:])
    rng = np.random.default_rng(1)
    weight = rng.random(ei.shape[1]).astype(fdt) + 0.5
    for w in (None, weight):
        for norm in (None, "sym", "rw"):
            for dt, tdt in ((None, None), (np.float64, torch.float64)):
                ours = U.get_laplacian(ei, w, norm, dt, n)
                ref = P.get_laplacian(L(ei), _opt(w), norm, tdt, n)
                assert ours[0].dtype == idt
                same(ours[0].astype(np.int64), ref[0], what=f"laplacian {norm}")
                same(ours[1], ref[1], exact=False, what=f"laplacian {norm} {dt}")


# ---------------------------------------------------------------------- subgraphs


@pytest.mark.parametrize("name,idt,fdt", _graph_params(with_feats=False))
def test_subgraph_and_bipartite(name, idt, fdt):
    ei, n, attrs = _graph(name, idt, fdt)
    attr = attrs[2]
    inferred = int(ei.max()) + 1 if ei.size else 0
    subsets = {
        "list": [0, 1, 3],
        "index": np.array([3, 0, 1]),
        "index32": np.array([3, 0, 1], dtype=np.int32),
        "mask": np.arange(n) % 2 == 0,
        "none": np.zeros(0, dtype=np.int64),
    }
    for label, subset in subsets.items():
        ref_subset = subset if isinstance(subset, list) else T(subset)
        for relabel in (False, True):
            for mask_out in (False, True):
                for nn in (None, n):
                    ids = np.flatnonzero(subset) if label == "mask" else np.asarray(subset)
                    if nn is None and label != "mask" and ids.size and ids.max() >= inferred:
                        continue  # beyond PyG's max + 1 nodes: both raise
                    for a in (None, attr):
                        same(
                            U.subgraph(subset, ei, a, relabel, nn, return_edge_mask=mask_out),
                            P.subgraph(
                                ref_subset, T(ei), _opt(a), relabel, nn,
                                return_edge_mask=mask_out,
                            ),
                            what=f"subgraph {label} relabel={relabel} n={nn}",
                        )  # fmt: skip
                if label == "none" and ei.shape[1] == 0:
                    continue  # PyG cannot size an empty side without edges or size
                dst_subset = np.arange(n + 1) % 3 == 0 if label == "mask" else subset
                fits = ids.size == 0 or all(
                    ei.shape[1] and ids.max() <= ei[i].max() for i in (0, 1)
                )
                for size in (None, (n, n + 1)) if label != "mask" and fits else ((n, n + 1),):
                    ref_dst = dst_subset if isinstance(dst_subset, list) else T(dst_subset)
                    same(
                        U.bipartite_subgraph(
                            (subset, dst_subset), ei, attr, relabel, size, mask_out
                        ),
                        P.bipartite_subgraph(
                            (ref_subset, ref_dst), T(ei), T(attr), relabel, size, mask_out
                        ),
                        what=f"bipartite {label} relabel={relabel} size={size}",
                    )


@pytest.mark.parametrize("name,idt,fdt", _graph_params(with_feats=False))
def test_k_hop_subgraph(name, idt, fdt):
    ei, n, _ = _graph(name, idt, fdt)
    for node in (0, [0, 2], np.array([1, 2]), n - 1):
        ref_node = L(node) if isinstance(node, np.ndarray) else node
        for hops in (0, 1, 2):
            for relabel in (False, True):
                for flow in ("source_to_target", "target_to_source"):
                    for directed in (False, True):
                        for nn in (None, n):
                            if nn is None and np.max(node) >= (ei.max() + 1 if ei.size else 0):
                                continue  # beyond PyG's max + 1 nodes
                            ours = U.k_hop_subgraph(node, hops, ei, relabel, nn, flow, directed)
                            # PyG's relabelling breaks on int32 ids; give it int64
                            ref = P.k_hop_subgraph(
                                ref_node, hops, L(ei), relabel, nn, flow, directed
                            )
                            what = f"k_hop {node} {hops} {relabel} {flow} {directed} {nn}"
                            same(ours[0], ref[0], dtype=False, what=what)
                            assert ours[1].dtype == idt, what
                            same(ours[1].astype(np.int64), ref[1], what=what)
                            same(ours[2:], ref[2:], what=what)


# ------------------------------------------------------------ scatter & softmax


@pytest.mark.parametrize("fdt", FEATS)
def test_scatter_segment_softmax(fdt):
    rng = np.random.default_rng(2)
    src = rng.standard_normal((7, 3)).astype(fdt)
    src_t = np.ascontiguousarray(src.T)
    index = np.array([0, 0, 1, 1, 1, 3, 3])
    ptr = np.array([0, 2, 5, 5, 7])
    ints = rng.integers(-3, 4, (7, 3))
    for reduce in ("sum", "add", "mean", "mul", "min", "max", "amin", "amax"):
        for size in (None, 4, 6):
            for idx in (index, index.astype(np.int32)):
                what = f"scatter {reduce} {size} {idx.dtype}"
                same(
                    U.scatter(src, idx, 0, size, reduce),
                    P.scatter(T(src), L(idx), 0, size, reduce),
                    exact=False,
                    what=what,
                )
                for dim in (1, -1):
                    same(
                        U.scatter(src_t, idx, dim, size, reduce),
                        P.scatter(T(src_t), L(idx), dim, size, reduce),
                        exact=False,
                        what=f"{what} dim={dim}",
                    )
            same(
                U.scatter(ints, index, 0, size, reduce),
                P.scatter(T(ints), T(index), 0, size, reduce),
                exact=False,
            )
            same(
                U.scatter(src[:0], index[:0], 0, size, reduce),
                P.scatter(T(src[:0]), T(index[:0]), 0, size, reduce),
            )
        if reduce in ("sum", "mean", "min", "max"):
            same(U.segment(src, ptr, reduce), P.segment(T(src), T(ptr), reduce), exact=False)
    for nn in (None, 4, 5):
        for idx in (index, index.astype(np.int32)):
            same(U.softmax(src, idx, None, nn), P.softmax(T(src), L(idx), None, nn), exact=False)
    same(U.softmax(src, None, ptr), P.softmax(T(src), None, T(ptr)), exact=False)
    same(U.softmax(src, index, ptr), P.softmax(T(src), T(index), T(ptr)), exact=False)
    same(U.softmax(src[:, 0], index), P.softmax(T(src[:, 0]), T(index)), exact=False)
    for dim in (1, -1):
        same(
            U.softmax(src_t, index, None, None, dim),
            P.softmax(T(src_t), T(index), None, None, dim),
            exact=False,
        )
    cube = rng.standard_normal((2, 7, 3)).astype(fdt)
    same(
        U.softmax(cube, index, None, None, 1),
        P.softmax(T(cube), T(index), None, None, 1),
        exact=False,
    )
    empty = np.zeros((0, 2), dtype=fdt)
    same(U.softmax(empty, index[:0], None, 3), P.softmax(T(empty), T(index[:0]), None, 3))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_reduce_any(dim):
    """PyG's ``reduce='any'``: one value of each group (on the CPU, the last in index
    order, which is what arraygnn gives everywhere); empty groups 0."""
    src = (np.arange(8.0)[:, None] * np.array([1.0, 10.0])).astype(np.float32)
    index = np.array([2, 0, 2, 1, 0, 2, 3, 1])
    if dim != 0:
        src = np.ascontiguousarray(src.T)
    for size in (None, 6):
        for idx in (index, index.astype(np.int32)):
            same(
                U.scatter(src, idx, dim, size, "any"),
                P.scatter(T(src), L(idx), dim, size, "any"),
            )
    ints = np.array([5, -1, 7, 2])
    same(
        U.scatter(ints, np.array([1, 1, 0, 1]), 0, 3, "any"),
        P.scatter(T(ints), torch.tensor([1, 1, 0, 1]), 0, 3, "any"),
    )
    same(
        U.scatter(src[:0] if dim == 0 else src[:, :0], index[:0], dim, 3, "any"),
        P.scatter(T(src[:0] if dim == 0 else src[:, :0]), T(index[:0]), dim, 3, "any"),
    )


def test_reduce_any_through_coalesce_and_loops():
    ei = np.array([[1, 0, 1, 0, 1, 2], [0, 1, 0, 1, 0, 2]])
    attr = np.arange(6.0)
    for sort_by_row in (True, False):
        same(
            U.coalesce(ei, attr, 3, "any", False, sort_by_row),
            P.coalesce(T(ei), T(attr), 3, "any", False, sort_by_row),
        )
    same(U.to_undirected(ei, attr, 3, "any"), P.to_undirected(T(ei), T(attr), 3, "any"))
    same(U.add_self_loops(ei, attr, "any", 4), P.add_self_loops(T(ei), T(attr), "any", 4))
    same(
        U.add_remaining_self_loops(ei, attr, "any", 4),
        P.add_remaining_self_loops(T(ei), T(attr), "any", 4),
    )
    # segment has no 'any' (neither has PyG's)
    with pytest.raises(ValueError, match="segment"):
        U.segment(attr, np.array([0, 2, 6]), "any")


def test_int_in_edge_attr_place():
    """PyG's ``coalesce`` / ``sort_edge_index`` / ``is_undirected`` take an int where
    ``edge_attr`` goes and return the edges alone (``to_undirected`` reads it as
    ``num_nodes``); so do these (as ``num_nodes``: ids at or above it raise)."""
    ei = np.array([[1, 0, 1, 2], [0, 1, 0, 1]])
    same(U.coalesce(ei, 5), P.coalesce(T(ei), 5))
    same(U.sort_edge_index(ei, 5), P.sort_edge_index(T(ei), 5))
    assert U.is_undirected(ei, 5) == P.is_undirected(T(ei), 5)
    assert U.is_undirected(ei[:, :2], 5) == P.is_undirected(T(ei[:, :2]), 5)
    with pytest.raises(ValueError, match="coalesce"):
        U.coalesce(ei, 2)


# ------------------------------------------------------------------------- dense


def test_dense_helpers():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 3)).astype(np.float32)
    batch = np.array([0, 0, 1, 1, 1, 3, 3])
    for fill in (0.0, -1.0):
        for max_nodes in (None, 2, 3, 5):
            for size in (None, 4, 5):
                for b in (batch, batch.astype(np.int32)):
                    same(
                        U.to_dense_batch(x, b, fill, max_nodes, size),
                        P.to_dense_batch(T(x), L(b), fill, max_nodes, size),
                    )
        same(U.to_dense_batch(x, None, fill), P.to_dense_batch(T(x), None, fill))
    same(U.to_dense_batch(np.arange(4), batch[:4]), P.to_dense_batch(torch.arange(4), T(batch[:4])))
    ei = np.array([[0, 1, 2, 3, 5, 6, 5], [1, 0, 4, 2, 6, 5, 5]])
    for attr in (None, rng.standard_normal(7), rng.standard_normal((7, 2)).astype(np.float32)):
        for max_nodes in (None, 2, 3, 4):
            for size in (None, 4, 5):
                same(
                    U.to_dense_adj(ei, batch, attr, max_nodes, size),
                    P.to_dense_adj(T(ei), T(batch), _opt(attr), max_nodes, size),
                    exact=False,
                )
        same(U.to_dense_adj(ei, None, attr), P.to_dense_adj(T(ei), None, _opt(attr)), exact=False)
        same(
            U.to_dense_adj(ei, None, attr, 9),
            P.to_dense_adj(T(ei), None, _opt(attr), 9),
            exact=False,
        )
    same(
        U.to_dense_adj(ei.astype(np.int32)),
        P.to_dense_adj(T(ei.astype(np.int32))),
    )
    none = np.zeros((2, 0), dtype=np.int64)
    same(U.to_dense_adj(none, max_num_nodes=3), P.to_dense_adj(T(none), max_num_nodes=3))
    adj = (rng.random((3, 4, 4)) < 0.4) * rng.standard_normal((3, 4, 4))
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]], dtype=bool)
    same(U.dense_to_sparse(adj), P.dense_to_sparse(T(adj)))
    same(U.dense_to_sparse(adj[0]), P.dense_to_sparse(T(adj[0])))
    same(U.dense_to_sparse(adj, mask), P.dense_to_sparse(T(adj), T(mask)))
    same(
        U.dense_to_sparse(adj.astype(np.float32), mask),
        P.dense_to_sparse(T(adj.astype(np.float32)), T(mask)),
    )
    same(U.dense_to_sparse(np.zeros((3, 3))), P.dense_to_sparse(torch.zeros(3, 3).double()))


# ---------------------------------------------- sampling and augmentation (seeded)


@pytest.mark.parametrize("idt", IDS)
def test_sampling_and_dropout_invariants(idt):
    torch.manual_seed(0)
    ei, n = GRAPHS["basic"]
    ei = ei.astype(idt)
    existing = {tuple(p) for p in ei.T.tolist()}
    for method in ("sparse", "dense"):
        for force_undirected in (False, True):
            for nn in (None, n, (n, n + 2)):
                if force_undirected and isinstance(nn, tuple):
                    continue
                ours = U.negative_sampling(ei, nn, 5, method, force_undirected, seed=0)
                ref = P.negative_sampling(L(ei), nn, 5, method, force_undirected)
                assert ours.shape[0] == 2 and ours.shape[1] >= ref.shape[1] - 1
                assert not existing & {tuple(p) for p in ours.T.tolist()}
                if force_undirected:
                    assert U.is_undirected(ours)
    i, j, k = U.structured_negative_sampling(ei, n, seed=0)
    ri, rj, rk = P.structured_negative_sampling(L(ei), n)
    assert i.shape == tuple(ri.shape) and k.shape == tuple(rk.shape)
    np.testing.assert_array_equal(i, ei[0])
    np.testing.assert_array_equal(j, ei[1])
    assert not existing & set(zip(i.tolist(), k.tolist()))
    for loops in (True, False):
        assert U.structured_negative_sampling_feasible(
            ei, n, loops
        ) == P.structured_negative_sampling_feasible(L(ei), n, loops)
    two = np.array([[0, 1, 2, 4], [1, 2, 3, 5]], dtype=idt)
    groups = np.array([0, 0, 0, 0, 1, 1])
    neg = U.batched_negative_sampling(two, groups, 3, seed=0)
    assert neg.shape[0] == 2 and (groups[neg[0]] == groups[neg[1]]).all()
    # training=False: the input unchanged, PyG's all-True masks
    same(U.dropout_edge(ei, 0.5, False, False), P.dropout_edge(T(ei), 0.5, False, False))
    same(U.dropout_edge(ei, 0.0), P.dropout_edge(T(ei), 0.0))
    for nn in (None, n):
        for relabel in (False, True):
            same(
                U.dropout_node(ei, 0.5, nn, False, relabel),
                P.dropout_node(T(ei), 0.5, nn, False, relabel),
            )
    x = np.ones((3, 4))
    same(U.mask_feature(x, training=False), P.mask_feature(T(x), training=False))
    same(U.shuffle_node(x, training=False), P.shuffle_node(T(x), training=False))


# ----------------------------------------------------------------- small helpers


def test_small_helpers():
    rng = np.random.default_rng(4)
    for index in (np.array([0, 3, 3]), np.array([1, 2], dtype=np.int32)):
        for size in (None, 5):
            same(U.index_to_mask(index, size), P.index_to_mask(L(index), size))
    same(U.index_to_mask(np.zeros(0, dtype=np.int64), 3), P.index_to_mask(L([]), 3))
    mask = np.array([True, False, True, True])
    same(U.mask_to_index(mask), P.mask_to_index(T(mask)))
    same(U.mask_to_index(mask[:0]), P.mask_to_index(T(mask[:0])))
    for index in (np.array([0, 2, 1, 2]), np.array([0, 2, 1, 2], dtype=np.int32)):
        for classes in (None, 4):
            for dt, tdt in ((None, None), (np.int64, torch.long), (np.float64, torch.float64)):
                same(U.one_hot(index, classes, dt), P.one_hot(L(index), classes, tdt))
    x = rng.standard_normal((6, 3))
    for dim in (0, 1):
        same(U.cumsum(x, dim), P.cumsum(T(x), dim), exact=False)
    for ints in (np.array([1, 2, 3]), np.array([1, 2, 3], dtype=np.int32), np.zeros(0, np.int64)):
        same(U.cumsum(ints), P.cumsum(T(ints)))
    pick = np.array([True, False, True, False, True, False])
    same(U.select(x, pick, 0), P.select(T(x), T(pick), 0))
    same(U.select(x, np.array([2, 0]), 1), P.select(T(x), torch.tensor([2, 0]), 1))
    same(
        U.select([1, 2, 3, 4], np.array([2, 0]), 0), P.select([1, 2, 3, 4], torch.tensor([2, 0]), 0)
    )
    same(U.narrow(x, 1, 1, 2), P.narrow(T(x), 1, 1, 2))
    same(U.narrow([1, 2, 3, 4], 0, 1, 2), P.narrow([1, 2, 3, 4], 0, 1, 2))
    same(U.mask_select(x, 1, pick[:3]), P.mask_select(T(x), 1, T(pick[:3])))
    for h, w in ((2, 3), (1, 1), (3, 1)):
        same(U.grid(h, w), P.grid(h, w))
        same(U.grid(h, w, np.float64), P.grid(h, w, torch.float64))
    batch = np.array([0, 0, 1, 1, 1, 3])
    ebi = np.array([[0, 1, 2, 3, 4], [1, 0, 3, 4, 2]])
    for size in (None, 4, 5):
        same(U.unbatch(x, batch, 0, size), P.unbatch(T(x), T(batch), 0, size))
        xt = np.ascontiguousarray(x.T)
        same(U.unbatch(xt, batch, 1, size), P.unbatch(T(xt), T(batch), 1, size))
        same(U.unbatch_edge_index(ebi, batch, size), P.unbatch_edge_index(T(ebi), T(batch), size))
        ours = U.unbatch_edge_index(ebi.astype(np.int32), batch.astype(np.int32), size)
        assert all(e.dtype == np.int32 for e in ours)  # ids keep their dtype (PyG: int64)
    keys = [np.array([3, 1, 2, 1, 3]), np.array([0, 5, 5, 2, 1])]
    grids = [rng.integers(0, 3, (4, 5)), rng.integers(0, 3, (4, 5))]
    for descending in (False, True):
        same(U.lexsort(keys, -1, descending), P.lexsort([T(k) for k in keys], -1, descending))
        for dim in (0, 1):
            same(
                U.lexsort(grids, dim, descending),
                P.lexsort([T(k) for k in grids], dim, descending),
            )
    values = np.array([3, 1, 2, 1, 3, 0])
    same(U.index_sort(values), P.index_sort(T(values), stable=True))
    same(U.index_sort(values, 4), P.index_sort(T(values), 4, stable=True))
    scores, groups = rng.standard_normal(6), np.array([0, 1, 0, 1, 1, 2])
    for descending in (False, True):
        for consecutive in (False, True):
            same(
                U.group_argsort(scores, groups, 0, None, descending, consecutive),
                P.group_argsort(T(scores), T(groups), 0, None, descending, consecutive),
            )
    parts, where = [x[:2], x[2:5]], [np.array([0, 2]), np.array([1, 0, 2])]
    for ret in (False, True):
        same(
            U.group_cat(parts, where, 0, ret),
            P.group_cat([T(p) for p in parts], [T(w) for w in where], 0, ret),
        )


def test_graph_measures_and_trim():
    ei, n = GRAPHS["basic"]
    y = np.array([0, 1, 1, 0, 2, 1])
    for method in ("edge", "node", "edge_insensitive"):
        same(U.homophily(ei, y, None, method), P.homophily(T(ei), T(y), None, method))
        same(
            U.homophily(ei.astype(np.int32), y.astype(np.int32), None, method),
            P.homophily(T(ei), T(y), None, method),
        )
        groups = np.array([0, 0, 0, 0, 1, 1])
        same(
            U.homophily(ei, y, groups, method),
            P.homophily(T(ei), T(y), T(groups), method),
            exact=False,
        )
    assert U.assortativity(ei) == pytest.approx(P.assortativity(T(ei)), abs=1e-6)
    weight = np.random.default_rng(5).random(ei.shape[1])
    same(U.normalized_cut(ei, weight, n), P.normalized_cut(T(ei), T(weight), n), exact=False)
    for loops in (True, False):
        for symmetric in (True, False):
            same(
                U.normalize_edge_index(ei, n, loops, symmetric),
                P.normalize_edge_index(T(ei), n, loops, symmetric),
                exact=False,
            )
    x = np.random.default_rng(6).standard_normal((6, 2))
    sampled = np.array([[1, 2, 3, 4, 5, 3], [0, 0, 1, 1, 2, 2]])
    attr = np.arange(6.0)
    et = ("a", "to", "a")
    for layer in (0, 1, 2):
        same(
            U.trim_to_layer(layer, [1, 2, 3], [2, 2, 2], x, sampled, attr),
            P.trim_to_layer(layer, [1, 2, 3], [2, 2, 2], T(x), T(sampled), T(attr)),
        )
        same(
            U.trim_to_layer(layer, {"a": [1, 2, 3]}, {et: [2, 2, 2]}, {"a": x},
                            {et: sampled}, {et: attr}),
            P.trim_to_layer(layer, {"a": [1, 2, 3]}, {et: [2, 2, 2]}, {"a": T(x)},
                            {et: T(sampled)}, {et: T(attr)}),
        )  # fmt: skip


# ------------------------------------------------------------- DGL converters


def test_to_dgl_from_dgl():
    """PyG's ``to_dgl`` / ``from_dgl`` give the DGL face's Graph here: one node type
    and one edge type both ways, HeteroData for several (PyG's split)."""
    from arraygnn.data import Data
    from arraygnn.graph.core import Graph
    from arraygnn.hetero_data import HeteroData

    ei = np.array([[0, 0, 1, 3], [1, 2, 2, 0]], dtype=np.int32)
    x, w = np.ones((5, 3), np.float32), np.arange(4.0)
    g = U.to_dgl(Data(x=x, edge_index=ei, edge_attr=w))
    assert isinstance(g, Graph) and g.num_nodes() == 5 and g.num_edges() == 4
    assert g.ndata["x"] is x and g.edata["edge_attr"] is w
    np.testing.assert_array_equal(g.edges()[0], ei[0])
    back = U.from_dgl(g)
    assert isinstance(back, Data) and back.num_nodes == 5
    np.testing.assert_array_equal(back.edge_index, ei)
    assert back.x is x and back.edge_attr is w
    # other arrays are placed by name, never by length
    with pytest.raises(ValueError, match="node_features"):
        U.to_dgl(Data(x=x, edge_index=ei, y=np.zeros(5)))
    g = U.to_dgl(Data(x=x, edge_index=ei, y=np.zeros(5)), node_features=["x", "y"])
    assert sorted(g.ndata) == ["x", "y"]
    hd = HeteroData(author={"x": np.ones((2, 3))}, paper={"num_nodes": 4})
    hd["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [0, 3, 2]])
    hd["author", "writes", "paper"].w = np.arange(3.0)
    hg = U.to_dgl(hd)
    assert hg.canonical_etypes == [("author", "writes", "paper")]
    assert hg.num_nodes("paper") == 4 and hg.edges["writes"].data["w"].tolist() == [0, 1, 2]
    hb = U.from_dgl(hg)
    assert isinstance(hb, HeteroData) and hb["paper"].num_nodes == 4
    np.testing.assert_array_equal(
        hb["author", "writes", "paper"].edge_index, hd["author", "writes", "paper"].edge_index
    )
    with pytest.raises(TypeError, match="to_dgl"):
        U.to_dgl({"edge_index": ei})
    with pytest.raises(TypeError, match="from_dgl"):
        U.from_dgl(Data(edge_index=ei, num_nodes=4))
