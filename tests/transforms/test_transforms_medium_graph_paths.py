"""Results pinned for the transform paths rewritten for medium graphs (50k nodes / 500k
edges): the pseudo-coordinates' per-edge norms, dots and crosses column by column (NumPy's
reduction over a 3-long axis cost 10x), and ``LaplacianLambdaMax`` testing for the zero
Laplacian on CSR (COO's ``count_nonzero`` sorted every entry). Same bits as the NumPy
formulas they replace; PyG's values."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.transforms import Distance, LaplacianLambdaMax, PointPairFeatures, Spherical


def _cloud(dtype, seed=0, n=30, e=80):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e))
    pos = rng.standard_normal((n, 3)).astype(dtype)
    pos[3] = pos[4]  # a zero-length edge when (3, 4) is drawn; added below
    normal = rng.standard_normal((n, 3)).astype(dtype)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    ei = np.concatenate([ei, [[3, 5], [4, 5]]], axis=1)
    return ei, pos, normal


def _ppf_by_reductions(pos_i, pos_j, n_i, n_j):
    """PPFNet's features with NumPy's reductions and ``cross`` (the replaced formula)."""

    def angle(a, b):
        c = np.cross(a, b)
        return np.arctan2(np.sqrt((c * c).sum(axis=-1)), (a * b).sum(axis=-1))

    d = pos_j - pos_i
    dist = np.sqrt((d * d).sum(axis=-1))
    return np.stack([dist, angle(n_i, d), angle(n_j, d), angle(n_i, n_j)], axis=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_point_pair_features_same_bits_as_reductions(dtype):
    ei, pos, normal = _cloud(dtype)
    out = PointPairFeatures()(Data(edge_index=ei, pos=pos, norm=normal))
    want = _ppf_by_reductions(pos[ei[0]], pos[ei[1]], normal[ei[0]], normal[ei[1]])
    assert out.edge_attr.dtype == dtype
    np.testing.assert_array_equal(out.edge_attr, want)
    dist = Distance(norm=False)(Data(edge_index=ei, pos=pos)).edge_attr
    diff = pos[ei[1]] - pos[ei[0]]
    np.testing.assert_array_equal(dist[:, 0], np.sqrt((diff * diff).sum(axis=-1)))


def test_pseudo_coordinates_match_pyg():
    torch = pytest.importorskip("torch")
    pyg_t = pytest.importorskip("torch_geometric.transforms")
    from torch_geometric.data import Data as PygData

    ei, pos, normal = _cloud(np.float32, seed=1)
    pairs = [
        (PointPairFeatures(), pyg_t.PointPairFeatures(), {"norm": normal}),
        (Distance(), pyg_t.Distance(), {}),
        (Spherical(), pyg_t.Spherical(), {}),
    ]
    for ours, theirs, extra in pairs:
        got = ours(Data(edge_index=ei, pos=pos, **extra)).edge_attr
        tdata = {k: torch.from_numpy(v) for k, v in {"edge_index": ei, "pos": pos, **extra}.items()}
        want = theirs(PygData(**tdata)).edge_attr.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=repr(ours))


@pytest.mark.parametrize("undirected", [True, False])
def test_laplacian_lambda_max_zero_after_duplicates_cancel(undirected):
    # parallel edges of weights 1 and -1 sum to no edge: the zero Laplacian (ARPACK fails)
    ei = np.array([[0, 0, 1, 1], [1, 1, 0, 0]])
    w = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    d = Data(edge_index=ei, edge_attr=w, num_nodes=4)
    assert LaplacianLambdaMax(None, undirected)(d).lambda_max == 0.0
    path = Data(edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3)
    assert LaplacianLambdaMax(None, undirected)(path).lambda_max == pytest.approx(3.0, rel=1e-5)
