"""Session-13 parity sweep of the PyG utils the session-11 sweep did not reach: converter,
spmm, segment_logsumexp, mesh-Laplacian and random-graph option combinations that the other
tests do not cover, compared live with ``torch_geometric.utils`` 2.8 on tiny seeded inputs.

Not compared here: ``geodesic_distance`` (PyG needs ``gdist``, not installed) and
``dropout_path`` (PyG needs ``pyg-lib``); both have their own tests."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
P = pytest.importorskip("torch_geometric.utils")
sp = pytest.importorskip("scipy.sparse")

import arraygnn.utils as U  # noqa: E402
from arraygnn.data import Data  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning"),
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors:UserWarning"),
]


def t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def dense(x):
    """A torch tensor (any layout) or array as a NumPy array."""
    if isinstance(x, torch.Tensor):
        return (x.to_dense() if x.layout != torch.strided else x).numpy()
    return np.asarray(x)


def same(ours, ref, tol=0.0):
    ref = dense(ref)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ------------------------------------------------------------------------------ spmm
# rows 0 and 2 hold duplicate entries (one pair summing to 0), row 1 an explicit zero,
# row 3 nothing
_ROW = np.array([0, 0, 2, 2, 2, 1, 0])
_COL = np.array([1, 1, 0, 2, 0, 2, 2])
_VAL = np.array([1.0, 2.0, -3.0, 0.0, 4.0, 0.0, 5.0])


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("fdtype", [np.float32, np.float64])
def test_spmm_coo_duplicates_are_summed_as_pyg(reduce, fdtype):
    """PyG turns a COO tensor into a coalesced CSR (duplicates summed, stored zeros kept)."""
    val = (_VAL * [1, 1, 1, 1, 1, 1, -1]).astype(fdtype)
    x = (np.arange(8.0).reshape(4, 2)[:3] - 2).astype(fdtype)
    m = sp.coo_matrix((val, (_ROW, _COL)), shape=(4, 3))
    before = (m.row.copy(), m.col.copy(), m.data.copy())
    ref = torch.sparse_coo_tensor(t(np.stack([_ROW, _COL])), t(val), (4, 3))
    ours = U.spmm(m, x, reduce)
    tol = 1e-6 if fdtype == np.float32 else 1e-12
    same(ours, quiet(P.spmm, ref, t(x), reduce), tol)
    for a, b in zip((m.row, m.col, m.data), before, strict=True):  # input left alone
        np.testing.assert_array_equal(a, b)
    assert m.nnz == 7


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_spmm_compressed_repeats_and_zeros_count_apart_as_torch(reduce, fmt):
    """A CSR with a repeated column and a stored zero: torch's CSR keeps them apart."""
    ptr, ind, val = np.array([0, 3, 3, 4]), np.array([1, 1, 0, 2]), np.array([1.0, 2.0, 0, -1])
    a = sp.csr_matrix((val, ind, ptr), shape=(3, 3))
    ref = torch.sparse_csr_tensor(t(ptr), t(ind), t(val), (3, 3))
    if fmt == "csc":
        a, ref = sp.csc_matrix(a), ref.to_sparse_csc()
    x = np.arange(6.0).reshape(3, 2) - 2
    same(U.spmm(a, x, reduce), quiet(P.spmm, ref, t(x), reduce), 1e-12)


# ---------------------------------------------------------------------- scipy converters
@pytest.mark.parametrize(
    "attr",
    [np.ones((5, 1)), np.arange(5, dtype=np.int32), np.array([1, 0, 1, 1, 0], bool)],
    ids=["f64-Ex1", "i32", "bool"],
)
@pytest.mark.parametrize("idt", [np.int32, np.int64])
def test_to_scipy_attr_kinds_and_duplicates(attr, idt):
    ei = np.array([[0, 1, 1, 2, 0], [1, 0, 2, 2, 1]], idt)  # (0, 1) twice, a self-loop
    ours = U.to_scipy_sparse_matrix(ei, attr, num_nodes=4)
    ref = P.to_scipy_sparse_matrix(t(ei), t(attr), num_nodes=4)
    assert ours.format == ref.format == "coo" and ours.nnz == ref.nnz == 5
    assert ours.dtype == ref.dtype and ours.row.dtype == ref.row.dtype
    np.testing.assert_array_equal(ours.row, ref.row)
    np.testing.assert_array_equal(ours.data, ref.data)
    with pytest.raises(ValueError, match="to_scipy_sparse_matrix: edge_attr must hold one"):
        U.to_scipy_sparse_matrix(ei, np.ones((5, 2)))  # PyG: a bare AssertionError


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "lil", "dok", "bsr"])
@pytest.mark.parametrize("vdtype", [np.float32, np.int8, np.complex128])
def test_from_scipy_int32_ids_zeros_duplicates(fmt, vdtype):
    rows, cols = np.array([0, 0, 2, 1], np.int32), np.array([1, 1, 0, 2], np.int32)
    m = sp.coo_matrix((np.array([0, 1, 2, 3], vdtype), (rows, cols)), shape=(3, 4))
    m = m.asformat(fmt)
    ei, w = U.from_scipy_sparse_matrix(m)
    ref_ei, ref_w = P.from_scipy_sparse_matrix(m)
    same(ei, ref_ei)
    same(w, ref_w)


# --------------------------------------------------------------------- networkx
def _nx_data():
    return Data(
        edge_index=np.array([[0, 1, 1, 2, 2], [1, 0, 2, 2, 0]], np.int32),
        num_nodes=5,  # nodes 3 and 4 isolated
        x=np.arange(5.0),
        s=np.arange(15, dtype=np.float32).reshape(5, 3),
        ea=np.array([1.0, 2.0, 3.0, 4.0, 5.0]),
        g=np.array(3.0),
        title="t",
    )


@pytest.mark.parametrize(
    "kw",
    [
        {"node_attrs": ["x", "s"], "edge_attrs": ["ea"], "graph_attrs": ["g", "title", "x"]},
        {"to_undirected": "upper", "edge_attrs": ["ea"], "remove_self_loops": True},
        {"to_undirected": "lower", "edge_attrs": ["ea"], "node_attrs": ["s"]},
        {"to_undirected": True, "to_multi": True, "edge_attrs": ["ea"]},
        {"to_undirected": None, "to_multi": True, "remove_self_loops": True},
    ],
    ids=["all-attrs", "upper-noloops", "lower", "multi-undirected", "none-multi"],
)
def test_to_networkx_option_mixes(kw):
    pytest.importorskip("networkx")
    from arraygnn.interop import to_pyg

    d = _nx_data()
    a, b = U.to_networkx(d, **kw), P.to_networkx(to_pyg(d), **kw)
    assert type(a) is type(b)
    assert list(a.nodes(data=True)) == list(b.nodes(data=True))
    keys = {"keys": True} if a.is_multigraph() else {}
    assert list(a.edges(data=True, **keys)) == list(b.edges(data=True, **keys))
    assert a.graph == b.graph


def _nx_graph(kind):
    nx = pytest.importorskip("networkx")
    G = {"graph": nx.Graph, "digraph": nx.DiGraph, "multi": nx.MultiGraph}[kind]()
    G.graph.update(gx=[1, 2], f=1.5, name="g")
    for i in range(3):
        G.add_node(i, a=i, b=[float(i), 0.5], c=bool(i % 2), d=np.float32(i) / 2)
    for u, v, w in [(0, 1, 1.0), (1, 2, 2.0), (2, 2, 3.0), (0, 1, 4.0)]:
        G.add_edge(u, v, w=w, k=int(w))
    return G


@pytest.mark.parametrize("kind", ["graph", "digraph", "multi"])
@pytest.mark.parametrize(
    "group",
    [(None, None), (["a", "b"], ["w", "k"]), (["d", "c"], "all"), ("all", ["k"])],
    ids=["none", "int+list", "np+bool", "all"],
)
def test_from_networkx_mixed_groups(kind, group):
    G = _nx_graph(kind)
    ours, ref = U.from_networkx(G, *group), P.from_networkx(G, *group)
    assert sorted(ours.keys()) == sorted(ref.keys())
    for key in ref.keys():
        if isinstance(ref[key], torch.Tensor):
            same(ours[key], ref[key])
        else:
            assert ours[key] == ref[key], key


def test_from_networkx_all_without_attributes_is_documented():
    """``"all"`` of a graph whose nodes carry nothing: no ``x`` (PyG's ``torch.cat``
    fails on the empty list), as ``docs/interop.md`` says."""
    nx = pytest.importorskip("networkx")
    G = nx.path_graph(3)
    with pytest.raises((ValueError, RuntimeError)):
        P.from_networkx(G, group_node_attrs="all")
    d = U.from_networkx(G, group_node_attrs="all", group_edge_attrs="all")
    assert "x" not in d.keys() and "edge_attr" not in d.keys() and d.num_nodes == 3


# -------------------------------------------------------------- torch sparse / nested
ATTRS = {
    "none": None,
    "i32": np.array([1, 2, 3, 4], np.int32),
    "f32x2x2": np.arange(16, dtype=np.float32).reshape(4, 2, 2),
}


@pytest.mark.parametrize("kind", ["coo", "csr", "csc"])
@pytest.mark.parametrize("attr", list(ATTRS))
@pytest.mark.parametrize("size", [None, (3, 5), (None, 4), (4, None)], ids=str)
def test_to_torch_sparse_attr_and_size_mixes(kind, attr, size):
    ei = np.array([[2, 0, 1, 0], [0, 1, 2, 1]])  # unsorted, (0, 1) twice
    ea = ATTRS[attr]
    fn = f"to_torch_{kind}_tensor"
    ours = getattr(U, fn)(ei, ea, size)
    ref = getattr(P, fn)(t(ei), None if ea is None else t(ea), size)
    assert ours.layout == ref.layout and ours.shape == ref.shape and ours.dtype == ref.dtype
    np.testing.assert_array_equal(dense(ours), dense(ref))
    back, vals = U.to_edge_index(ours)
    ref_back, ref_vals = P.to_edge_index(ref)
    same(back, ref_back)
    same(vals, ref_vals)


def test_to_torch_sparse_bool_attr_is_refused_as_documented():
    ei = np.array([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="to_torch_csr_tensor: edge_attr must be a numeric"):
        U.to_torch_csr_tensor(ei, np.array([True, False]))
    # a CSC with is_coalesced=True is checked in (col, row) order (PyG trusts it and
    # builds a wrong matrix)
    with pytest.raises(ValueError, match="to_torch_csc_tensor: is_coalesced=True but"):
        U.to_torch_csc_tensor(ei, is_coalesced=True)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.sparse_coo_tensor(torch.tensor([[1, 0, 1], [0, 1, 0]]), torch.ones(3)),
        lambda: torch.sparse_csr_tensor(
            torch.tensor([0, 2, 3], dtype=torch.int32),
            torch.tensor([1, 0, 0], dtype=torch.int32),
            torch.tensor([1.0, 2.0, 3.0]),
            (2, 2),
        ),
        lambda: torch.sparse_coo_tensor(torch.tensor([[1, 0], [0, 1]]), torch.ones(2, 3)),
    ],
    ids=["uncoalesced-coo", "int32-csr", "hybrid-coo"],
)
def test_to_edge_index_of_odd_tensors(make):
    adj = make()
    ei, w = U.to_edge_index(adj)
    ref_ei, ref_w = P.to_edge_index(make())
    same(ei, ref_ei)
    same(w, ref_w)


@pytest.mark.parametrize(
    "kw",
    [
        {"batch": np.array([0, 0, 1, 1, 1, 1], np.int32)},
        {"batch": np.array([0, 0, 2, 2, 2, 2]), "batch_size": 5},
        {"ptr": np.array([0, 2, 2, 6])},
        {"ptr": np.array([0, 2, 6]), "batch_size": 9},
        {},
    ],
    ids=["int32-batch", "gaps+batch_size", "ptr-empty", "ptr+batch_size", "one-graph"],
)
def test_nested_round_trips(kw):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    tk = {k: t(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    ours, ref = U.to_nested_tensor(x, **kw), P.to_nested_tensor(t(x), **tk)
    assert [p.shape for p in ours.unbind()] == [p.shape for p in ref.unbind()]
    for a, b in zip(ours.unbind(), ref.unbind(), strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    rows, batch = U.from_nested_tensor(ours, return_batch=True)
    ref_rows, ref_batch = P.from_nested_tensor(ref, return_batch=True)
    same(rows, ref_rows)
    same(batch, ref_batch)
    same(U.from_nested_tensor(ours), ref_rows)


def test_nested_unsorted_batch_is_refused_as_documented():
    with pytest.raises(ValueError, match="to_nested_tensor: batch must be sorted"):
        U.to_nested_tensor(np.ones((3, 2)), batch=np.array([1, 0, 0]))


# ------------------------------------------------------------------ segment_logsumexp
@pytest.mark.parametrize("ptr", [[0, 2, 2, 5], [0, 0, 5], [0, 1, 2, 3, 4, 5], [0, 5, 5]], ids=str)
@pytest.mark.parametrize("pdtype", [np.int32, np.int64])
def test_segment_logsumexp_empty_segments_and_infs(ptr, pdtype):
    src = np.array([[1.0, -np.inf], [2.0, 3.0], [-np.inf, -np.inf], [0.5, np.inf], [0, 1]])
    src = src.astype(np.float32)
    ptr = np.array(ptr, pdtype)
    same(U.segment_logsumexp(src, ptr, 0), P.segment_logsumexp(t(src), t(ptr), 0), 1e-6)


# ------------------------------------------------------------------- mesh Laplacian
_POS = np.array([[0.0, 0, 0], [5, 5, 5], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
MESHES = {
    "tetrahedron": [[0, 0, 0, 2], [2, 2, 3, 3], [3, 4, 4, 4]],  # closed, node 1 unused
    "repeated-face": [[0, 0], [2, 2], [3, 3]],
    "flipped-faces": [[0, 3], [2, 2], [3, 4]],
    "no-faces": np.zeros((3, 0), np.int64),
}


@pytest.mark.parametrize("name", list(MESHES))
@pytest.mark.parametrize("normalization", [None, "sym", "rw"])
def test_mesh_laplacian_shapes_of_meshes(name, normalization):
    face = np.asarray(MESHES[name], np.int64)
    ei, w = U.get_mesh_laplacian(_POS, face, normalization)
    ref_ei, ref_w = P.get_mesh_laplacian(t(_POS), t(face), normalization)
    same(ei, ref_ei)
    np.testing.assert_allclose(w, ref_w.numpy(), rtol=1e-12, atol=1e-12)  # inf / NaN too
    assert w.dtype == np.float64


# ------------------------------------------------------------------- random graphs
@pytest.mark.parametrize("directed", [False, True])
def test_random_graph_degenerate_sizes(directed):
    """PyG fails on zero nodes (directed); here an empty [2, 0] int64 graph."""
    for ei in (
        U.erdos_renyi_graph(0, 0.5, directed, seed=0),
        U.stochastic_blockmodel_graph([0, 0], [[1.0, 1.0], [1.0, 1.0]], directed, seed=0),
        U.stochastic_blockmodel_graph(np.array([2, 3]), np.zeros((2, 2)), directed, seed=0),
    ):
        assert ei.shape == (2, 0) and ei.dtype == np.int64
    # probability-1 blocks are deterministic: equal to PyG's, numpy inputs as lists
    sizes, probs = np.array([2, 3]), np.array([[1.0, 0.0], [0.0, 1.0]])
    ref = P.stochastic_blockmodel_graph(t(sizes), t(probs), directed)
    same(U.stochastic_blockmodel_graph(sizes, probs, directed, seed=0), ref)
    same(U.stochastic_blockmodel_graph(sizes.tolist(), probs.tolist(), directed), ref)


@pytest.mark.parametrize("p", [-0.1, 1.1])
def test_erdos_renyi_probability_outside_unit_interval_is_refused(p):
    """PyG clamps silently (docs/utils.md notes the difference)."""
    assert P.erdos_renyi_graph(3, p).dim() == 2
    with pytest.raises(ValueError, match="erdos_renyi_graph: edge_prob must be between 0"):
        U.erdos_renyi_graph(3, p)


@pytest.mark.parametrize("attr", ["none", "1d", "2d"])
@pytest.mark.parametrize("force_undirected", [False, True])
@pytest.mark.parametrize("mode", ["eval", "p0"])
def test_dropout_adj_identity_cases_equal_pyg(attr, force_undirected, mode):
    ei = np.array([[0, 1, 1, 2, 3], [1, 0, 2, 1, 3]])
    ea = {"none": None, "1d": np.arange(5.0), "2d": np.arange(10.0).reshape(5, 2)}[attr]
    kw = {"training": False} if mode == "eval" else {"p": 0.0}
    ours = quiet(U.dropout_adj, ei, ea, force_undirected=force_undirected, seed=0, **kw)
    tea = None if ea is None else t(ea)
    ref = quiet(P.dropout_adj, t(ei), tea, force_undirected=force_undirected, **kw)
    same(ours[0], ref[0])
    if ea is None:
        assert ours[1] is None and ref[1] is None
    else:
        same(ours[1], ref[1])


@pytest.mark.parametrize("num_nodes", [None, 6, (4, 6)], ids=str)
def test_add_random_edge_identity_and_bipartite(num_nodes):
    """``training=False``: the input and no new edges; the added ids keep ``edge_index``'s
    dtype (PyG: a float32 [2, 0] tensor), as ``docs/utils.md`` says."""
    ei = np.array([[0, 1, 1, 2, 3], [1, 0, 2, 1, 3]], np.int32)
    out, added = U.add_random_edge(ei, num_nodes=num_nodes, training=False)
    ref_out, ref_added = P.add_random_edge(t(ei), num_nodes=num_nodes, training=False)
    same(out, ref_out)
    assert added.shape == tuple(ref_added.shape) == (2, 0) and added.dtype == np.int32
    out, added = U.add_random_edge(ei, p=0.4, num_nodes=num_nodes, seed=1)
    torch.manual_seed(0)
    ref_out, ref_added = P.add_random_edge(t(ei), p=0.4, num_nodes=num_nodes)
    assert added.shape == tuple(ref_added.shape) and out.shape == tuple(ref_out.shape)
    n_src, n_dst = num_nodes if isinstance(num_nodes, tuple) else (num_nodes or 4,) * 2
    assert (added[0] < n_src).all() and (added[1] < n_dst).all()
