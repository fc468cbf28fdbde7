"""Review tests of GDC, LaplacianLambdaMax, RemoveTrainingClasses, AddMetaPaths, HalfHop
and the utils geodesic_distance / spmm: each pins a difference from PyG 2.8.1 (or an error
that surfaced from deep inside NumPy / SciPy) found by the review."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import arraygnn.transforms as T
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.utils import geodesic_distance, spmm

torch = pytest.importorskip("torch")
pyg_T = pytest.importorskip("torch_geometric.transforms")
from torch_geometric.data import Data as PygData  # noqa: E402
from torch_geometric.data import HeteroData as PygHeteroData  # noqa: E402

PATH = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])


# ============================================================================ GDC
def test_gdc_coeffs_as_array_match_pyg():
    """PyG indexes ``coeffs`` (any sequence, a NumPy array too); ours refused an array."""
    kw = dict(
        diffusion_kwargs=dict(method="coeff", coeffs=np.array([1.0, 0.5, 0.25])),
        sparsification_kwargs=dict(method="threshold", eps=0.0),
    )
    ours = T.GDC(**kw)(Data(edge_index=PATH, num_nodes=3))
    theirs = pyg_T.GDC(**kw)(PygData(edge_index=torch.from_numpy(PATH), num_nodes=3))
    np.testing.assert_array_equal(ours.edge_index, theirs.edge_index.numpy())
    np.testing.assert_allclose(ours.edge_attr, theirs.edge_attr.numpy(), rtol=1e-6)


@pytest.mark.parametrize("method", [dict(method="ppr", alpha=0.15), dict(method="heat", t=1.0)])
def test_gdc_float16_edge_attr_is_a_clear_error(method):
    """float16 weights reached ``numpy.linalg`` ('array type float16 is unsupported')."""
    d = Data(edge_index=PATH, num_nodes=3, edge_attr=np.ones(4, np.float16))
    with pytest.raises(ValueError, match=r"GDC: edge_attr .*float32 or float64.*float16"):
        T.GDC(diffusion_kwargs=method)(d)


# ============================================================================ LaplacianLambdaMax
@pytest.mark.parametrize("norm", [None, "sym", "rw"])
def test_laplacian_lambda_max_edge_attr_column_matches_pyg(norm):
    """An [E, 1] ``edge_attr`` holds one value per edge: PyG uses it as the weight (its
    ``numel() == num_edges`` test); ours raised from ``get_laplacian``."""
    ei = np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
    w = np.array([[1.0], [1.0], [2.0], [2.0], [0.5], [0.5]])
    ours = T.LaplacianLambdaMax(norm, is_undirected=True)(
        Data(edge_index=ei, num_nodes=4, edge_attr=w)
    )
    theirs = pyg_T.LaplacianLambdaMax(norm, is_undirected=True)(
        PygData(edge_index=torch.from_numpy(ei), num_nodes=4, edge_attr=torch.from_numpy(w))
    )
    assert ours.lambda_max == pytest.approx(theirs.lambda_max, rel=1e-6)


@pytest.mark.parametrize("undirected", [True, False])
def test_laplacian_lambda_max_of_a_zero_laplacian_is_zero(undirected):
    """A graph without edges has the zero Laplacian (largest eigenvalue 0); ARPACK (ours
    and PyG's) failed with 'Starting vector is zero'."""
    d = Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=5)
    assert T.LaplacianLambdaMax(None, undirected)(d).lambda_max == 0.0
    # self-loops only: L = D - A = 0 as well
    loops = Data(edge_index=np.array([[0, 3], [0, 3]]), num_nodes=5)
    assert T.LaplacianLambdaMax(None, undirected)(loops).lambda_max == 0.0


# ============================================================================ RemoveTrainingClasses
def test_remove_training_classes_class_outside_y_dtype_matches_pyg():
    """A class id that the dtype of ``y`` cannot hold (-1 for uint8) matches nothing in
    PyG; ours raised NumPy's OverflowError."""
    y = np.array([0, 1, 2, 1], np.uint8)
    mask = np.array([True, True, True, False])
    ours = T.RemoveTrainingClasses([-1, 1, 300])(Data(y=y, train_mask=mask))
    theirs = pyg_T.RemoveTrainingClasses([-1, 1, 300])(
        PygData(y=torch.from_numpy(y), train_mask=torch.from_numpy(mask))
    )
    np.testing.assert_array_equal(ours.train_mask, theirs.train_mask.numpy())
    np.testing.assert_array_equal(mask, [True, True, True, False])  # input untouched


# ============================================================================ HalfHop
@pytest.mark.parametrize("xdtype", [np.int64, np.int32])
def test_half_hop_integer_x_matches_pyg(monkeypatch, xdtype):
    """PyG's ``alpha * x`` of integer features is float (torch's default float32) and
    ``torch.cat`` promotes ``x`` with it; ours cast the slow nodes back to int (1.5 -> 1)."""
    x = np.array([[0, 4], [3, 1], [2, 2]], xdtype)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    draw = np.random.default_rng(0)
    monkeypatch.setattr(
        torch, "rand", lambda n, *a, d=draw, **k: torch.from_numpy(d.random(n)).float()
    )
    ours = T.HalfHop(seed=0)(Data(x=x, edge_index=ei))
    theirs = pyg_T.HalfHop()(PygData(x=torch.from_numpy(x), edge_index=torch.from_numpy(ei)))
    assert ours.x.dtype == np.float32 == theirs.x.numpy().dtype
    np.testing.assert_array_equal(ours.x, theirs.x.numpy())
    np.testing.assert_array_equal(ours.edge_index, theirs.edge_index.numpy())


# ============================================================================ AddMetaPaths
def _two_hop(lib: str, w1: list[float], w2: list[float]):
    d = PygHeteroData() if lib == "pyg" else HeteroData()
    arr = torch.from_numpy if lib == "pyg" else (lambda v: v)
    d["a"].num_nodes = 2
    d["b"].num_nodes = 2
    d["a", "to", "b"].edge_index = arr(np.array([[0, 0, 1], [0, 1, 1]]))
    d["a", "to", "b"].edge_weight = arr(np.array(w1, np.float32))
    d["b", "to", "a"].edge_index = arr(np.array([[0, 1, 1], [1, 1, 0]]))
    d["b", "to", "a"].edge_weight = arr(np.array(w2, np.float32))
    return d


@pytest.mark.parametrize(
    "w1,w2",
    [
        ([1.0, -1.0, 1.0], [1.0, 1.0, 1.0]),  # two paths 0 -> 1 cancel
        ([0.0, 2.0, 1.0], [1.0, 0.0, 3.0]),  # zero weights along every path 0 -> 1
        ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
    ],
)
def test_add_metapaths_weighted_keeps_zero_weight_pairs_as_pyg(w1, w2):
    """A pair joined by paths whose weights sum to 0 is an edge of weight 0 in PyG (the
    product's structure); SciPy's product dropped it."""
    path = [[("a", "to", "b"), ("b", "to", "a")]]
    ours = T.AddMetaPaths(path, weighted=True)(_two_hop("ours", w1, w2))["a", "metapath_0", "a"]
    theirs = pyg_T.AddMetaPaths(path, weighted=True)(_two_hop("pyg", w1, w2))[
        "a", "metapath_0", "a"
    ]
    t_ei, t_w = theirs.edge_index.numpy(), theirs.edge_weight.numpy()
    order = np.lexsort((t_ei[1], t_ei[0]))
    np.testing.assert_array_equal(ours.edge_index, t_ei[:, order])
    np.testing.assert_allclose(ours.edge_weight, t_w[order], rtol=1e-6)
    assert ours.edge_weight.dtype == t_w.dtype


def test_add_metapaths_weighted_zero_pairs_through_three_steps_and_sampling():
    """The structure survives a zero-valued intermediate pair (three steps), and
    ``max_sample`` keeps values aligned with their edges."""
    d = HeteroData()
    d["a"].num_nodes = 4  # 0 -> 1 -> 2 (+1) and 0 -> 3 -> 2 (-1) cancel; then 2 -> 0
    d["a", "to", "a"].edge_index = np.array([[0, 0, 1, 3, 2], [1, 3, 2, 2, 0]])
    d["a", "to", "a"].edge_weight = np.array([1.0, -1.0, 1.0, 1.0, 1.0], np.float32)
    path = [[("a", "to", "a")] * 3]
    out = T.AddMetaPaths(path, weighted=True)(d)["a", "metapath_0", "a"]
    unweighted = T.AddMetaPaths(path)(d)["a", "metapath_0", "a"]
    np.testing.assert_array_equal(out.edge_index, unweighted.edge_index)
    assert [0, 0] in out.edge_index.T.tolist()  # the pair (0, 0) of weight 0
    # dense reference: W^3 on the structure of A^3
    w = np.zeros((4, 4))
    np.add.at(w, tuple(d["a", "to", "a"].edge_index), d["a", "to", "a"].edge_weight)
    dense = np.linalg.matrix_power(w, 3)
    np.testing.assert_allclose(out.edge_weight, dense[tuple(out.edge_index)], atol=1e-6)
    # max_sample at least every degree keeps every entry (probability >= 1): values stay
    # on their pairs through the sampling
    sampled = T.AddMetaPaths(path, weighted=True, max_sample=5, seed=3)(d)["a", "metapath_0", "a"]
    np.testing.assert_array_equal(sampled.edge_index, out.edge_index)
    np.testing.assert_array_equal(sampled.edge_weight, out.edge_weight)
    few = T.AddMetaPaths(path, weighted=True, max_sample=1, seed=3)(d)["a", "metapath_0", "a"]
    assert few.edge_index.shape[1] == few.edge_weight.shape[0]
    assert set(map(tuple, few.edge_index.T.tolist())) <= set(map(tuple, out.edge_index.T.tolist()))


# ============================================================================ utils
def test_geodesic_distance_dst_without_src_pairs_node_i_with_dst_i():
    """PyG's ``src=None`` with ``dst`` reads ``src = arange(N)``: one distance per
    ``(i, dst[i])``; ours refused it."""
    pos = np.array([[0.0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0]])
    face = np.array([[0, 0], [1, 2], [3, 3]])
    dst = np.array([1, 2, 3, 0])
    out = geodesic_distance(pos, face, dst=dst)
    full = geodesic_distance(pos, face)
    np.testing.assert_allclose(out, full[np.arange(4), dst])
    assert out.shape == (4,)
    with pytest.raises(ValueError, match="geodesic_distance: dst .* one id per node"):
        geodesic_distance(pos, face, dst=np.array([1, 2]))


def test_spmm_bool_matrix_is_an_error_naming_spmm():
    """A boolean sparse matrix reached the kernel, whose error named neither ``spmm`` nor
    ``src``."""
    a = sp.csr_matrix(np.array([[0, 1], [1, 0]], bool))
    with pytest.raises(TypeError, match="spmm: src must hold numbers"):
        spmm(a, np.ones((2, 1)))


def test_review_inputs_untouched():
    """The fixed paths leave the caller's arrays alone."""
    d = _two_hop("ours", [1.0, -1.0, 1.0], [1.0, 1.0, 1.0])
    before = {k: d[k].edge_weight.copy() for k in d.edge_types}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        T.AddMetaPaths([[("a", "to", "b"), ("b", "to", "a")]], weighted=True, max_sample=1)(d)
    for k, v in before.items():
        np.testing.assert_array_equal(d[k].edge_weight, v)
    assert d.edge_types == [("a", "to", "b"), ("b", "to", "a")]
