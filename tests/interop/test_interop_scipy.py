"""SciPy interop: PyG's to/from_scipy_sparse_matrix, DGL's from_scipy / bipartite_from_scipy /
adj_external, checked against PyG itself and against DGL's documented behaviour by hand."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.graph import graph, heterograph, to_block
from arraygnn.interop.scipy import (
    adj_external,
    bipartite_from_scipy,
    from_scipy,
    from_scipy_sparse_matrix,
    to_scipy_sparse_matrix,
)

IDX_DTYPES = [np.int32, np.int64]
SIZES = [(0, 0), (1, 0), (4, 0), (1, 3), (5, 12), (30, 80)]


def random_edges(seed, n, e, dtype=np.int64):
    """``[2, e]`` ids in ``[0, n)`` with a self-loop and a parallel edge when there is room."""
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, max(n, 1), (2, e)) if n else np.zeros((2, 0), np.int64)
    if e >= 3:
        ei[:, 1] = ei[0, 1]  # self-loop
        ei[:, 2] = ei[:, 0]  # parallel edge
    return ei.astype(dtype)


def pyg_utils():
    pytest.importorskip("torch")
    return pytest.importorskip("torch_geometric.utils")


# ---------------------------------------------------------------------- PyG face
@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("idx", IDX_DTYPES)
@pytest.mark.parametrize("wdtype", [None, np.float32, np.float64])
@pytest.mark.parametrize("extra", [None, 0, 3])  # num_nodes: inferred / exact / trailing
def test_to_scipy_matches_pyg(n, e, idx, wdtype, extra):
    utils = pyg_utils()
    import torch

    ei = random_edges(n + e, n, e, idx)
    w = None if wdtype is None else np.random.default_rng(e).random(e).astype(wdtype)
    num_nodes = None if extra is None else n + extra
    A = to_scipy_sparse_matrix(ei, w, num_nodes)
    ref = utils.to_scipy_sparse_matrix(
        torch.from_numpy(ei.astype(np.int64)),
        None if w is None else torch.from_numpy(w),
        num_nodes,
    )
    assert isinstance(A, sp.coo_matrix) and A.format == "coo"
    assert A.shape == ref.shape and A.dtype == ref.dtype and A.nnz == ref.nnz == e
    np.testing.assert_array_equal(A.row, ref.row)
    np.testing.assert_array_equal(A.col, ref.col)
    np.testing.assert_array_equal(A.data, ref.data)


@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("idx", IDX_DTYPES)
def test_shape_rule_and_trailing_isolated_nodes(n, e, idx):
    ei = random_edges(7 * e + n, n, e, idx)
    inferred = int(ei.max()) + 1 if e else 0
    assert to_scipy_sparse_matrix(ei).shape == (inferred, inferred)
    assert to_scipy_sparse_matrix(ei, num_nodes=n + 2).shape == (n + 2, n + 2)


def _formats(A):
    """``A`` in every SciPy sparse format, matrices and arrays."""
    out = {}
    for fmt in ("coo", "csr", "csc", "lil", "dok", "bsr", "dia"):
        out[f"{fmt}_matrix"] = A.asformat(fmt)
        out[f"{fmt}_array"] = sp.coo_array(A).asformat(fmt)
    return out


@pytest.mark.parametrize("wdtype", [np.float32, np.float64, np.int64, np.bool_])
def test_from_scipy_matches_pyg_for_every_format(wdtype):
    utils = pyg_utils()

    rng = np.random.default_rng(3)
    dense = (rng.random((6, 6)) < 0.4) * rng.integers(1, 5, (6, 6))
    A = sp.coo_matrix(dense.astype(wdtype))
    for name, M in _formats(A).items():
        ei, w = from_scipy_sparse_matrix(M)
        ref_ei, ref_w = utils.from_scipy_sparse_matrix(M)
        assert ei.dtype == np.int64 and ei.shape == (2, M.tocoo().nnz), name
        np.testing.assert_array_equal(ei, ref_ei.numpy(), err_msg=name)
        np.testing.assert_array_equal(w, ref_w.numpy(), err_msg=name)
        assert w.dtype == ref_w.numpy().dtype == M.dtype, name


def test_explicit_zeros_and_duplicates_are_edges_like_pyg():
    utils = pyg_utils()

    row, col = np.array([0, 2, 2, 1]), np.array([1, 0, 0, 1])
    val = np.array([0.0, 1.5, 2.5, 0.0])
    coo = sp.coo_matrix((val, (row, col)), shape=(3, 3))
    csr = sp.csr_matrix((np.array([0.0, 7.0]), np.array([2, 0]), np.array([0, 1, 1, 2])), (3, 3))
    for M in (coo, csr, sp.coo_array(coo)):
        ei, w = from_scipy_sparse_matrix(M)
        ref_ei, ref_w = utils.from_scipy_sparse_matrix(M)
        np.testing.assert_array_equal(ei, ref_ei.numpy())
        np.testing.assert_array_equal(w, ref_w.numpy())
    ei, w = from_scipy_sparse_matrix(coo)
    assert ei.tolist() == [[0, 2, 2, 1], [1, 0, 0, 1]] and w.tolist() == val.tolist()


@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("idx", IDX_DTYPES)
@pytest.mark.parametrize("wdtype", [None, np.float32, np.float64])
def test_round_trip(n, e, idx, wdtype):
    ei = random_edges(3 * e + n, n, e, idx)
    w = None if wdtype is None else np.arange(e, dtype=wdtype) + 0.5
    A = to_scipy_sparse_matrix(ei, w, num_nodes=n)
    back, bw = from_scipy_sparse_matrix(A)
    assert back.dtype == np.int64 and back.shape == (2, e)
    np.testing.assert_array_equal(back, ei)
    np.testing.assert_array_equal(bw, np.ones(e, np.float32) if w is None else w)
    assert bw.dtype == (np.float32 if w is None else wdtype)
    # through CSR: the same edges, row-major
    back, bw = from_scipy_sparse_matrix(A.tocsr())
    order = np.lexsort((ei[1], ei[0]))
    if len(np.unique(ei[0] * max(n, 1) + ei[1])) == e:  # tocsr sums duplicates
        np.testing.assert_array_equal(back, ei[:, order])


def test_edge_attr_shapes():
    ei = np.array([[0, 1], [1, 0]])
    A = to_scipy_sparse_matrix(ei, np.array([[2.0], [3.0]]))
    assert A.data.tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="edge_attr"):
        to_scipy_sparse_matrix(ei, np.ones((2, 2)))
    with pytest.raises(ValueError, match="edge_attr"):
        to_scipy_sparse_matrix(ei, np.ones(3))
    with pytest.raises(ValueError, match="edge_attr"):
        to_scipy_sparse_matrix(ei, np.array(1.0))


def test_bad_inputs_name_the_argument():
    good = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="edge_index"):
        to_scipy_sparse_matrix(good.astype(np.float64))
    with pytest.raises(TypeError, match="edge_index"):
        to_scipy_sparse_matrix(good.astype(bool))
    with pytest.raises(TypeError, match="edge_index"):
        to_scipy_sparse_matrix(good.tolist())
    with pytest.raises(ValueError, match="edge_index"):
        to_scipy_sparse_matrix(np.zeros((3, 2), np.int64))
    with pytest.raises(ValueError, match="edge_index"):
        to_scipy_sparse_matrix(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="negative"):
        to_scipy_sparse_matrix(np.array([[0, -1], [1, 0]]))
    with pytest.raises(ValueError, match="num_nodes"):
        to_scipy_sparse_matrix(good, num_nodes=2)
    with pytest.raises(ValueError, match="num_nodes"):
        to_scipy_sparse_matrix(good, num_nodes=-1)
    with pytest.raises(TypeError, match="num_nodes"):
        to_scipy_sparse_matrix(good, num_nodes=3.0)
    with pytest.raises(TypeError, match="num_nodes"):
        to_scipy_sparse_matrix(good, num_nodes=True)
    with pytest.raises(TypeError, match="edge_attr"):
        to_scipy_sparse_matrix(good, [1.0, 2.0])
    with pytest.raises(TypeError, match="A must be a scipy.sparse"):
        from_scipy_sparse_matrix(np.eye(3))
    with pytest.raises(ValueError, match="2-D"):
        from_scipy_sparse_matrix(sp.coo_array(np.array([1.0, 0.0, 2.0])))


def test_torch_tensors_are_refused_with_a_hint():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="from_torch"):
        to_scipy_sparse_matrix(torch.tensor([[0, 1], [1, 0]]))


def test_inputs_are_not_mutated_and_results_own_their_memory():
    ei = random_edges(0, 6, 10)
    w = np.linspace(0, 1, 10)
    ei0, w0 = ei.copy(), w.copy()
    A = to_scipy_sparse_matrix(ei, w, num_nodes=6)
    A.data *= 2
    A.row[:] = 0
    A.sum_duplicates()
    np.testing.assert_array_equal(ei, ei0)
    np.testing.assert_array_equal(w, w0)
    M = sp.csr_matrix(np.arange(9.0).reshape(3, 3))
    M0 = M.copy()
    for src in (M, M.tocoo()):
        ei2, w2 = from_scipy_sparse_matrix(src)
        assert not np.shares_memory(w2, src.data)
        w2[:] = -1
    assert (M != M0).nnz == 0 and M.has_canonical_format


# ---------------------------------------------------------------------- DGL face
def test_from_scipy_follows_dgl():
    # DGL's own example: edges (2, 1), (3, 2), (4, 3) with weights
    A = sp.coo_matrix(([0.2, 0.3, 0.5], ([2, 3, 4], [1, 2, 3])), shape=(5, 5))
    g = from_scipy(A, eweight_name="w")
    assert g.is_homogeneous and g.canonical_etypes == [("_N", "_E", "_N")]
    assert g.num_nodes() == 5 and g.num_edges() == 3
    src, dst = g.edges()
    assert src.tolist() == [2, 3, 4] and dst.tolist() == [1, 2, 3]
    assert g.edata["w"].tolist() == [0.2, 0.3, 0.5] and g.edata["w"].dtype == np.float64
    assert g.idtype == np.int64  # DGL's default
    assert "w" not in from_scipy(A).edata


@pytest.mark.parametrize("idtype", [np.int32, "int32", np.dtype("int32")])
def test_from_scipy_idtype(idtype):
    A = sp.coo_matrix(([1.0], ([0], [1])), shape=(2, 2))
    assert from_scipy(A, idtype=idtype).idtype == np.int32
    assert from_scipy(A, idtype=np.int64).idtype == np.int64


def test_from_scipy_torch_idtype():
    torch = pytest.importorskip("torch")
    A = sp.coo_matrix(([1.0], ([0], [1])), shape=(2, 2))
    assert from_scipy(A, idtype=torch.int32).idtype == np.int32
    assert from_scipy(A, idtype=torch.int64).idtype == np.int64
    with pytest.raises(ValueError, match="idtype"):
        from_scipy(A, idtype=torch.float32)


def test_from_scipy_storage_order_zeros_and_duplicates():
    # CSR: row-major storage order (indices unsorted within a row are kept as stored)
    csr = sp.csr_matrix(
        (np.array([1.0, 0.0, 3.0, 4.0]), np.array([2, 0, 1, 1]), np.array([0, 2, 2, 4])), (3, 3)
    )
    g = from_scipy(csr, eweight_name="w")
    assert [a.tolist() for a in g.edges()] == [[0, 0, 2, 2], [2, 0, 1, 1]]
    assert g.edata["w"].tolist() == [1.0, 0.0, 3.0, 4.0]  # explicit 0 and duplicate kept
    # CSC: column-major storage order
    csc = sp.csc_matrix(np.array([[0, 5, 0], [6, 0, 7], [0, 8, 0]], dtype=np.float32))
    g = from_scipy(csc, eweight_name="w")
    assert [a.tolist() for a in g.edges()] == [[1, 0, 2, 1], [0, 1, 1, 2]]
    assert g.edata["w"].tolist() == [6.0, 5.0, 8.0, 7.0] and g.edata["w"].dtype == np.float32
    # every other format: the order of tocoo()
    for M in _formats(sp.coo_matrix(csc)).values():
        g = from_scipy(M)
        coo = M.tocoo()
        assert [a.tolist() for a in g.edges()] == [coo.row.tolist(), coo.col.tolist()]


@pytest.mark.parametrize("n", [0, 1, 4])
def test_from_scipy_empty_and_isolated(n):
    g = from_scipy(sp.coo_matrix((n, n)), eweight_name="w")
    assert g.num_nodes() == n and g.num_edges() == 0 and g.edata["w"].shape == (0,)


def test_from_scipy_bad_inputs():
    with pytest.raises(ValueError, match="sp_mat must be square"):
        from_scipy(sp.coo_matrix((2, 3)))
    with pytest.raises(TypeError, match="sp_mat"):
        from_scipy(np.eye(3))
    with pytest.raises(TypeError, match="idtype"):
        from_scipy(sp.eye(2), idtype="nonsense")
    with pytest.raises(ValueError, match="idtype"):
        from_scipy(sp.eye(2), idtype=np.float32)
    with pytest.raises(TypeError, match="eweight_name"):
        from_scipy(sp.eye(2), eweight_name=1)


def test_from_scipy_does_not_share_or_mutate():
    A = sp.coo_matrix(([1.0, 2.0], ([0, 1], [1, 0])), shape=(2, 2))
    A0 = A.copy()
    g = from_scipy(A, eweight_name="w")
    g.edata["w"][:] = 0
    assert (A != A0).nnz == 0 and not np.shares_memory(g.edges()[0], A.row)


def test_bipartite_from_scipy():
    A = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 1, 1], [2, 0, 2])), shape=(3, 4))
    g = bipartite_from_scipy(A, "user", "plays", "game", eweight_name="w", idtype="int32")
    assert g.canonical_etypes == [("user", "plays", "game")]
    assert g.num_nodes("user") == 3 and g.num_nodes("game") == 4  # trailing isolated kept
    assert g.srctypes == ["user"] and g.dsttypes == ["game"]
    assert [a.tolist() for a in g.edges()] == [[0, 1, 1], [2, 0, 2]]
    assert g.edata["w"].tolist() == [1.0, 2.0, 3.0] and g.idtype == np.int32
    same = bipartite_from_scipy(sp.eye(3, format="csr"), "n", "e", "n")
    assert same.ntypes == ["n"] and same.num_nodes() == 3 and same.num_edges() == 3
    with pytest.raises(ValueError, match="square"):
        bipartite_from_scipy(A, "n", "e", "n")
    with pytest.raises(TypeError, match="etype"):
        bipartite_from_scipy(A, "u", None, "v")


def test_adj_external_follows_dgl():
    # rows are sources, columns destinations; transpose swaps (DGL's adj_external)
    g = graph((np.array([0, 0, 2, 2, 1]), np.array([1, 2, 1, 1, 1])), num_nodes=4)
    A = g.adj_external(scipy_fmt="coo")
    assert isinstance(A, sp.coo_matrix) and A.shape == (4, 4)
    assert A.row.tolist() == [0, 0, 2, 2, 1] and A.col.tolist() == [1, 2, 1, 1, 1]
    assert A.dtype == g.idtype and A.data.tolist() == [1] * 5  # ones of the idtype, as DGL
    T = g.adj_external(transpose=True, scipy_fmt="coo")
    assert T.row.tolist() == [1, 2, 1, 1, 1] and T.col.tolist() == [0, 0, 2, 2, 1]
    C = g.adj_external(scipy_fmt="csr")
    assert isinstance(C, sp.csr_matrix) and C.shape == (4, 4)
    assert C.indptr.tolist() == [0, 2, 3, 5, 5]
    assert C.indices.tolist() == [1, 2, 1, 1, 1]  # the parallel edge stays two entries
    assert C.nnz == 5 and C.toarray()[2, 1] == 2
    CT = g.adj_external(True, scipy_fmt="csr")
    assert CT.indptr.tolist() == [0, 0, 4, 5, 5] and CT.indices.tolist() == [0, 2, 2, 1, 0]
    np.testing.assert_array_equal(g.adj_external().toarray(), A.toarray())  # default coo
    np.testing.assert_array_equal(g.adj_external(scipy_fmt=None).toarray(), A.toarray())
    assert adj_external(g).nnz == 5


def test_adj_external_int32_heterogeneous_and_blocks():
    hg = heterograph(
        {
            ("user", "follows", "user"): (np.array([0, 1], np.int32), np.array([0, 1], np.int32)),
            ("developer", "develops", "game"): (
                np.array([0, 1], np.int32),
                np.array([0, 2], np.int32),
            ),
        }
    )
    A = hg.adj_external(scipy_fmt="coo", etype="develops")  # DGL's docstring example
    assert A.shape == (2, 3) and A.dtype == np.int32
    assert A.row.tolist() == [0, 1] and A.col.tolist() == [0, 2]
    assert hg.adj_external(True, etype="develops").shape == (3, 2)
    assert hg.adj_external(scipy_fmt="csr", etype=("user", "follows", "user")).shape == (2, 2)
    with pytest.raises(ValueError, match="etype"):
        hg.adj_external()
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 3])), num_nodes=4)
    block = to_block(g, np.array([1, 2, 3]))
    B = block.adj_external(scipy_fmt="csr")
    assert B.shape == (block.num_src_nodes(), block.num_dst_nodes()) == (4, 3) and B.nnz == 3
    src, dst = block.edges()
    np.testing.assert_array_equal(block.adj_external().row, src)


@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("idx", IDX_DTYPES)
def test_adj_external_round_trips_through_from_scipy(n, e, idx):
    ei = random_edges(11 * e + n, n, e, idx)
    g = graph((ei[0], ei[1]), num_nodes=n)
    for fmt in ("coo", "csr"):
        h = from_scipy(g.adj_external(scipy_fmt=fmt), idtype=g.idtype)
        assert h.num_nodes() == n and h.num_edges() == e and h.idtype == g.idtype
        if fmt == "coo":
            assert [a.tolist() for a in h.edges()] == ei.tolist()
        else:
            order = np.argsort(ei[0], kind="stable")
            assert [a.tolist() for a in h.edges()] == ei[:, order].tolist()


def test_adj_external_bad_arguments():
    g = graph((np.array([0]), np.array([1])))
    with pytest.raises(ValueError, match="scipy_fmt"):
        g.adj_external(scipy_fmt="csc")
    with pytest.raises(TypeError, match="transpose"):
        g.adj_external(transpose="yes")
    with pytest.raises(TypeError, match="Graph"):
        adj_external(np.eye(2))


# ---------------------------------------------------------------------- CuPy
def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:  # pragma: no cover - depends on the machine
        pytest.skip("no CUDA device")
    import cupyx.scipy.sparse

    return cupy, cupyx.scipy.sparse


def test_cupy_arrays_give_cupyx_matrices():  # pragma: no cover - needs a GPU
    cupy, csp = _cupy()
    ei = random_edges(1, 6, 20)
    w = np.random.default_rng(1).random(20).astype(np.float32)
    A = to_scipy_sparse_matrix(cupy.asarray(ei), cupy.asarray(w), num_nodes=8)
    assert isinstance(A, csp.coo_matrix) and A.shape == (8, 8)
    ref = to_scipy_sparse_matrix(ei, w, num_nodes=8)
    np.testing.assert_array_equal(A.row.get(), ref.row)
    np.testing.assert_array_equal(A.data.get(), ref.data)
    ei2, w2 = from_scipy_sparse_matrix(A.tocsr())
    assert isinstance(ei2, cupy.ndarray) and ei2.dtype == np.int64
    ref_ei, ref_w = from_scipy_sparse_matrix(ref.tocsr())
    np.testing.assert_array_equal(ei2.get(), ref_ei)
    np.testing.assert_allclose(w2.get(), ref_w)
    with pytest.raises(TypeError, match="edge_attr"):
        to_scipy_sparse_matrix(cupy.asarray(ei), cupy.arange(20))
    with pytest.raises(TypeError, match="mix"):
        to_scipy_sparse_matrix(cupy.asarray(ei), w)


def test_cupy_graphs_give_cupyx_matrices():  # pragma: no cover - needs a GPU
    cupy, csp = _cupy()
    ei = random_edges(2, 5, 12)
    A = to_scipy_sparse_matrix(cupy.asarray(ei), num_nodes=5)
    g = from_scipy(A, eweight_name="w")
    assert g.device == "cuda" and isinstance(g.edata["w"], cupy.ndarray)
    assert [a.get().tolist() for a in g.edges()] == ei.tolist()
    C = g.adj_external(scipy_fmt="csr")
    assert isinstance(C, csp.csr_matrix) and C.dtype == np.float32
    ref = graph((ei[0], ei[1]), num_nodes=5).adj_external(scipy_fmt="csr")
    np.testing.assert_array_equal(C.indptr.get(), ref.indptr)
    np.testing.assert_array_equal(C.indices.get(), ref.indices)
    T = g.adj_external(transpose=True)
    assert isinstance(T, csp.coo_matrix) and T.row.get().tolist() == ei[1].tolist()
