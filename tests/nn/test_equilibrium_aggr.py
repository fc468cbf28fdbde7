"""``arraygnn.nn.aggr.EquilibriumAggregation`` against PyG's: the closed-form gradient of the
potential / energy against ``torch.autograd.grad``, then the whole descent (same weights)."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import rel_err

torch = pytest.importorskip("torch")
P = pytest.importorskip("torch_geometric.nn.aggr")

from arraygnn.nn import aggr, from_pyg  # noqa: E402
from arraygnn.nn.aggr.equilibrium import ResNetPotential  # noqa: E402

TOL = {np.float32: 2e-5, np.float64: 1e-12}
HIDDEN = [[], [5], [4, 6]]
# group sizes: empty groups inside and at the end, one-element groups, a long group
SIZES = [3, 0, 1, 5, 0, 2, 1, 4]
DIM_SIZE = len(SIZES) + 2  # dim_size larger than index.max() + 1


def _tdtype(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _pyg_layer(hidden, dtype, grad_iter=5, lamb=0.1, seed=0, fin=4, fout=3):
    """PyG's layer with random weights (LayerNorm affine too) and non-default ``lamb``,
    learning rate and momentum, so every parameter matters."""
    torch.manual_seed(seed)
    module = P.EquilibriumAggregation(fin, fout, list(hidden), grad_iter, lamb)
    module = module.to(_tdtype(dtype))
    with torch.no_grad():
        for p in module.potential.parameters():
            p.uniform_(-0.8, 0.8)
        module.optimizer._lr.fill_(-0.4)
        module.optimizer._mom.fill_(1.3)
    return module


def _index(index_dtype, rng, shuffle=True):
    index = np.repeat(np.arange(len(SIZES)), SIZES).astype(index_dtype)
    return rng.permutation(index) if shuffle else index


def _convert(module):
    layer = from_pyg(module)
    assert isinstance(layer, aggr.EquilibriumAggregation)
    return layer


@pytest.mark.parametrize("hidden", HIDDEN)
def test_potential_gradient_is_autograds(hidden):
    rng = np.random.default_rng(1)
    module = _pyg_layer(hidden, np.float64)
    ours = _convert(module)
    index = _index(np.int64, rng)
    x = rng.normal(size=(len(index), 4))
    y = rng.normal(size=(DIM_SIZE, 3))
    ty = torch.tensor(y, requires_grad=True)
    tx, ti = torch.from_numpy(x), torch.from_numpy(index)

    value = module.potential(tx, ty, ti, DIM_SIZE)
    (want,) = torch.autograd.grad(value, ty)
    value = float(value.detach())
    got = ours.potential.grad_y(x, y, index, DIM_SIZE)
    assert got.shape == (DIM_SIZE, 3) and got.dtype == np.float64
    assert rel_err(got, want.numpy()) <= 1e-12
    assert np.all(got[[1, 4, 8, 9]] == 0)  # empty groups: no gradient from the potential
    assert abs(float(ours.potential(x, y, index, DIM_SIZE)) - value) <= 1e-12 * max(1, abs(value))

    energy = module.energy(tx, ty, ti, DIM_SIZE)
    (want,) = torch.autograd.grad(energy, ty)
    assert rel_err(ours.energy_grad(x, y, index, DIM_SIZE), want.numpy()) <= 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("hidden", HIDDEN)
def test_forward_matches_pyg(hidden, index_dtype, dtype):
    rng = np.random.default_rng(2)
    module = _pyg_layer(hidden, dtype, grad_iter=5, lamb=0.7)
    ours = _convert(module)
    index = _index(index_dtype, rng)
    x = rng.normal(size=(len(index), 4)).astype(dtype)
    x_before, index_before = x.copy(), index.copy()

    want = module(torch.from_numpy(x), torch.from_numpy(index.astype(np.int64)), dim_size=DIM_SIZE)
    got = ours(x, index, dim_size=DIM_SIZE)
    assert got.shape == (DIM_SIZE, 3) and got.dtype == np.dtype(dtype)
    assert rel_err(got, want.detach().numpy()) <= TOL[dtype]
    np.testing.assert_array_equal(x, x_before)
    np.testing.assert_array_equal(index, index_before)

    # dim_size left out: index.max() + 1 (the trailing empty groups dropped)
    want = module(torch.from_numpy(x), torch.from_numpy(index.astype(np.int64)))
    assert rel_err(ours(x, index), want.detach().numpy()) <= TOL[dtype]


@pytest.mark.parametrize("grad_iter", [0, 1, 3])
def test_grad_iter_and_sorted_index(grad_iter):
    rng = np.random.default_rng(3)
    module = _pyg_layer([5], np.float64, grad_iter=grad_iter, lamb=-0.3)
    ours = _convert(module)
    assert ours.grad_iter == grad_iter
    index = _index(np.int64, rng, shuffle=False)
    x = rng.normal(size=(len(index), 4))
    want = module(torch.from_numpy(x), torch.from_numpy(index), dim_size=DIM_SIZE)
    got = ours(x, index, dim_size=DIM_SIZE)
    assert got.dtype == want.detach().numpy().dtype  # float32 zeros when no step is taken
    assert rel_err(got, want.detach().numpy()) <= TOL[np.float64]


def test_empty_input_single_group_and_multi_aggregation():
    module = _pyg_layer([5], np.float64)
    ours = _convert(module)
    rng = np.random.default_rng(4)

    # no slice at all: every group is empty, y is the regulariser's descent from zero
    empty = np.zeros((0, 4))
    want = module(torch.from_numpy(empty), torch.zeros(0, dtype=torch.long), dim_size=3)
    got = ours(empty, np.zeros(0, np.int64), dim_size=3)
    assert got.shape == (3, 3)
    np.testing.assert_array_equal(got, want.detach().numpy())

    # neither index nor ptr: one group of everything (PyG's all-zero index)
    x = rng.normal(size=(6, 4))
    want = module(torch.from_numpy(x)).detach().numpy()
    assert rel_err(ours(x), want) <= TOL[np.float64]

    # a ptr alone (PyG needs index): the same groups as the sorted index
    index = np.array([0, 0, 1, 1, 1, 3])
    np.testing.assert_allclose(
        ours(x, ptr=np.array([0, 2, 5, 5, 6])), ours(x, index, dim_size=4), rtol=1e-14
    )

    # inside a MultiAggregation, as PyG
    multi_pyg = P.MultiAggregation(["sum", module])
    want = multi_pyg(torch.from_numpy(x), torch.from_numpy(index), dim_size=4).detach().numpy()
    got = aggr.MultiAggregation(["sum", ours])(x, index, dim_size=4)
    assert rel_err(got, want) <= TOL[np.float64]


def test_state_dict_names_resolver_and_fresh_layer():
    module = _pyg_layer([4, 6], np.float32)
    ours = _convert(module)
    assert sorted(ours.state_dict()) == sorted(module.state_dict())
    assert repr(ours) == repr(module) == "EquilibriumAggregation()"

    fresh = aggr.aggregation_resolver("equilibrium", 4, 3, [8], grad_iter=2, rng=0)
    assert isinstance(fresh, aggr.EquilibriumAggregation)
    pyg_fresh = P.EquilibriumAggregation(4, 3, [8], grad_iter=2)
    assert sorted(fresh.state_dict()) == sorted(pyg_fresh.state_dict())
    for key, value in pyg_fresh.state_dict().items():
        assert fresh.state_dict()[key].shape == tuple(value.shape)
    # the fresh layer loads PyG's weights by name and then gives PyG's numbers
    fresh.load_state_dict(pyg_fresh.state_dict())
    x = np.random.default_rng(5).normal(size=(5, 4)).astype(np.float32)
    index = np.array([1, 0, 1, 1, 0])
    want = pyg_fresh(torch.from_numpy(x), torch.from_numpy(index)).detach().numpy()
    assert rel_err(fresh(x, index), want) <= TOL[np.float32]


def test_errors():
    layer = aggr.EquilibriumAggregation(4, 3, [5], rng=0)
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="EquilibriumAggregation x"):
        layer(np.ones((3, 5), np.float32), np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="EquilibriumAggregation.*two-dimensional"):
        layer(np.ones((2, 3, 4), np.float32), np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="EquilibriumAggregation.*dim_size=1 is too small"):
        layer(x, np.array([0, 0, 1]), dim_size=1)
    with pytest.raises(ValueError, match="EquilibriumAggregation.*index"):
        layer(x, np.array([0, -1, 1]))
    with pytest.raises(TypeError, match="EquilibriumAggregation.*index"):
        layer(x, np.array([0.0, 1.0, 1.0]))
    with pytest.raises(TypeError, match="ResNetPotential: num_layers must be a list"):
        aggr.EquilibriumAggregation(4, 3, 5)
    with pytest.raises(ValueError, match="EquilibriumAggregation: grad_iter"):
        aggr.EquilibriumAggregation(4, 3, [5], grad_iter=-1)
    potential = ResNetPotential(7, 1, [5], rng=0)
    with pytest.raises(ValueError, match="ResNetPotential: dim_size=4 but y has 3 rows"):
        potential.grad_y(x, np.zeros((3, 3), np.float32), np.array([0, 1, 2]), 4)


def test_inside_gen_conv_as_pyg():
    """PyG's GENConv takes any aggregation: with this one it converts and matches."""
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    torch.manual_seed(6)
    conv = pyg_nn.GENConv(8, 8, aggr=P.EquilibriumAggregation(8, 8, [4])).eval()
    rng = np.random.default_rng(6)
    x = rng.normal(size=(10, 8)).astype(np.float32)
    edge_index = rng.integers(0, 8, (2, 30))  # nodes 8 and 9 receive nothing
    want = conv(torch.from_numpy(x), torch.from_numpy(edge_index)).detach().numpy()
    assert rel_err(from_pyg(conv)(x, edge_index), want) <= TOL[np.float32]
