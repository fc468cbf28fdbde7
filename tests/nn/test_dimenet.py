"""PyG's DimeNet and DimeNet++ (and their bases, blocks and ``triplets``) against
torch_geometric 2.8.1, weights via ``from_pyg``.

PyG's ``radius_graph`` needs torch_cluster and its ``triplets`` needs torch_sparse, neither
installed here: the test replaces ``radius_graph`` with arraygnn's (both models see one
graph) and ``triplets`` with a brute-force torch transcription of PyG's (every pair of
edges ``k -> j``, ``j -> i`` with ``k != i``, ordered by edge ``j -> i`` then ``k``, as
``SparseTensor``'s row selection gives them); the rest of PyG's model runs as shipped.
"""

from __future__ import annotations

import copy
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")
pytest.importorskip("sympy")

from arraygnn.nn import DimeNet, DimeNetPlusPlus, from_pyg  # noqa: E402
from arraygnn.nn.dimenet import triplets  # noqa: E402
from arraygnn.utils import radius_graph  # noqa: E402

DTYPES = [(torch.float32, np.float32, 1e-4), (torch.float64, np.float64, 1e-11)]
CUTOFF = 3.0


def torch_triplets(edge_index, num_nodes):
    """PyG's ``triplets`` without torch_sparse: all edge pairs, quadratic (small tests)."""
    row, col = edge_index  # j -> i
    pair = (col.view(1, -1) == row.view(-1, 1)) & (row.view(1, -1) != col.view(-1, 1))
    e_ji, e_kj = pair.nonzero(as_tuple=True)
    order = torch.sort(e_ji * max(num_nodes, 1) + row[e_kj], stable=True).indices
    e_ji, e_kj = e_ji[order], e_kj[order]
    return col, row, col[e_ji], row[e_ji], row[e_kj], e_kj, e_ji


def torch_radius_graph(pos, r, batch=None, max_num_neighbors=32, **kwargs):
    b = None if batch is None else batch.numpy()
    out = radius_graph(pos.detach().numpy(), r, batch=b, max_num_neighbors=max_num_neighbors)
    return torch.from_numpy(out)


@pytest.fixture(scope="module")
def pyg_models():
    """One PyG DimeNet and one DimeNet++ (their sympy bases take seconds to build), with
    every parameter moved off its initial value so no weight is zero."""
    import torch_geometric.nn.models.dimenet as dimenet

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dimenet, "radius_graph", torch_radius_graph)
        mp.setattr(dimenet, "triplets", torch_triplets)
        torch.manual_seed(0)
        kw = {"cutoff": CUTOFF, "max_num_neighbors": 5, "output_initializer": "glorot_orthogonal"}
        models = {
            "DimeNet": dimenet.DimeNet(16, 2, 2, 3, 4, 3, num_after_skip=1, **kw),
            "DimeNetPlusPlus": dimenet.DimeNetPlusPlus(
                16, 2, 2, 8, 4, 12, 4, 3, num_before_skip=2, **kw
            ),
        }
        for module in models.values():
            for p in module.parameters():
                p.data += 0.1 * torch.randn_like(p)
        yield types.SimpleNamespace(models=models, module=dimenet)


def _molecules(gen, sizes, dtype, spacing=0.9):
    """Atoms of each molecule in a 4 A box, at least ``spacing`` apart; the last atom of
    the first molecule sits far away (no neighbour within the cutoff)."""
    pos = []
    for size in sizes:
        atoms = []
        while len(atoms) < size:
            p = gen.uniform(0, 4.0, 3)
            if all(np.linalg.norm(p - q) >= spacing for q in atoms):
                atoms.append(p)
        pos.extend(atoms)
    pos = np.array(pos).reshape(-1, 3)
    pos[sizes[0] - 1] = [20.0, 20.0, 20.0]
    batch = np.repeat(np.arange(len(sizes)), sizes)
    return gen.integers(1, 10, batch.shape[0]), pos.astype(dtype), batch


def _run(module, *args):
    return module(*(torch.from_numpy(a) for a in args)).detach().numpy()


# ------------------------------------------------------------------------------ triplets
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_triplets_match_pyg(idx):
    gen = np.random.default_rng(0)
    pos = gen.uniform(0, 3, (12, 3))
    batch = np.repeat(np.arange(3), [5, 4, 3])
    graphs = [
        radius_graph(pos, 1.6, batch=batch),
        radius_graph(pos, 10.0, max_num_neighbors=3),
        np.array([[0, 1, 1, 2, 2, 0, 3], [1, 0, 2, 1, 0, 2, 3]]),  # a self-loop at 3
        gen.integers(0, 12, (2, 40)),  # repeated edges
        np.zeros((2, 0), np.int64),
    ]
    for ei in graphs:
        ours = triplets(ei.astype(idx), 12)
        ref = torch_triplets(torch.from_numpy(ei.astype(np.int64)), 12)
        for a, b in zip(ours, ref):
            assert a.dtype == np.int64
            np.testing.assert_array_equal(a, b.numpy())


def test_triplets_bad_input():
    with pytest.raises(ValueError, match="triplets: edge_index"):
        triplets(np.array([[0, 5], [1, 0]]), 3)
    with pytest.raises(ValueError, match=r"shape \(2, E\)"):
        triplets(np.zeros((3, 2), np.int64), 3)


# ---------------------------------------------------------------------------- models
@pytest.mark.parametrize("kind", ["DimeNet", "DimeNetPlusPlus"])
@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_dimenet_matches_pyg(pyg_models, kind, tdt, ndt, tol, idx):
    module = copy.deepcopy(pyg_models.models[kind]).to(tdt)
    model = from_pyg(module)
    assert type(model).__name__ == kind and model.dtype == ndt
    gen = np.random.default_rng(3)
    # molecules of 6 atoms (one far away), 1 atom, 0 atoms (not last: PyG sizes its output
    # by batch.max() + 1), 9 and 4 atoms; max_num_neighbors=5 trims the crowded ones
    z, pos, batch = _molecules(gen, [6, 1, 0, 9, 4], ndt)
    ref = _run(module, z, pos, batch)
    out = model(z.astype(idx), pos, batch.astype(idx), batch_size=5)
    assert out.shape == ref.shape == (5, 2) and out.dtype == ref.dtype
    scale = np.abs(ref).max()
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol * scale)
    assert np.all(out[2] == 0)  # the empty molecule
    # one molecule without batch: (out_channels,), as PyG's P.sum(dim=0)
    ref1 = _run(module, z[6:15], pos[6:15])
    out1 = model(z[6:15].astype(idx), pos[6:15])
    assert out1.shape == ref1.shape == (2,)
    np.testing.assert_allclose(out1, ref1, rtol=tol, atol=tol * np.abs(ref1).max())
    # a single atom: no edge, no triplet; the output blocks still add their biases
    ref2 = _run(module, z[6:7], pos[6:7])
    np.testing.assert_allclose(model(z[6:7].astype(idx), pos[6:7]), ref2, rtol=tol, atol=tol)
    assert np.abs(ref2).max() > 0


def test_dimenet_inputs_not_mutated(pyg_models):
    model = from_pyg(pyg_models.models["DimeNet"])
    z, pos, batch = _molecules(np.random.default_rng(1), [4, 3], np.float32)
    copies = [a.copy() for a in (z, pos, batch)]
    model(z, pos, batch, batch_size=2)
    for a, b in zip((z, pos, batch), copies):
        np.testing.assert_array_equal(a, b)


def test_dimenet_settings_from_pyg(pyg_models):
    model = from_pyg(pyg_models.models["DimeNetPlusPlus"])
    assert (model.cutoff, model.max_num_neighbors, model.num_blocks) == (CUTOFF, 5, 2)
    block = model.interaction_blocks[0]
    assert len(block.layers_before_skip) == 2 and len(block.layers_after_skip) == 2
    assert model.output_blocks[0].lin_up.weight.shape == (12, 16)
    names = set(model.state_dict())
    assert names == set(pyg_models.models["DimeNetPlusPlus"].state_dict())


def test_activation_conversion():
    from arraygnn.nn.dimenet import _pyg_act

    def holder(act):
        return types.SimpleNamespace(emb=types.SimpleNamespace(act=act))

    assert _pyg_act(holder(torch.nn.SiLU())) == "swish"
    assert _pyg_act(holder(torch.nn.functional.silu)) == "swish"
    assert _pyg_act(holder(torch.nn.ReLU())) == "relu"
    with pytest.raises(ValueError, match="cannot convert"):
        _pyg_act(holder(torch.nn.RReLU()))


# ----------------------------------------------------------------------------- bases
@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
def test_bases_match_pyg(pyg_models, tdt, ndt, tol):
    from arraygnn.nn.dimenet_basis import BesselBasisLayer, Envelope, SphericalBasisLayer

    ref = copy.deepcopy(pyg_models.models["DimeNet"]).to(tdt)
    gen = np.random.default_rng(0)
    dist = gen.uniform(0.9, 3.2, 50).astype(ndt)  # some beyond the cutoff
    angle = gen.uniform(0, np.pi, 80).astype(ndt)
    idx = gen.integers(0, 50, 80)
    x = torch.from_numpy(dist / ndt(CUTOFF))
    np.testing.assert_allclose(
        Envelope(5)(x.numpy()), ref.rbf.envelope(x).numpy(), rtol=tol, atol=tol
    )
    bessel = BesselBasisLayer(3, CUTOFF, dtype=ndt)
    bessel.load_state_dict(dict(ref.rbf.state_dict()))
    want = ref.rbf(torch.from_numpy(dist)).detach().numpy()
    np.testing.assert_allclose(bessel(dist), want, rtol=tol, atol=tol)
    sbf = SphericalBasisLayer(4, 3, CUTOFF)
    want = ref.sbf(*(torch.from_numpy(a) for a in (dist, angle, idx))).numpy()
    got = sbf(dist, angle, idx)
    assert got.shape == (80, 12) and got.dtype == ndt
    # float32: PyG's closed forms cancel digits at short distances; both sides round alike
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


# ---------------------------------------------------------------------------- errors
def test_dimenet_bad_inputs():
    model = DimeNetPlusPlus(8, 1, 1, 4, 2, 8, 3, 2, cutoff=2.0, rng=0)
    z, pos, batch = np.array([1, 6, 8]), np.zeros((3, 3), np.float32), np.array([0, 0, 1])
    pos[:, 0] = [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="DimeNetPlusPlus: z"):
        model(np.array([1, 95, 2]), pos)
    with pytest.raises(ValueError, match="DimeNetPlusPlus: z"):
        model(np.array([1, -1, 2]), pos)
    with pytest.raises(TypeError, match="DimeNetPlusPlus: z"):
        model(z.astype(np.float32), pos)
    with pytest.raises(ValueError, match=r"DimeNetPlusPlus: pos must have shape \(3, 3\)"):
        model(z, pos[:, :2])
    with pytest.raises(ValueError, match="DimeNetPlusPlus: pos"):
        model(z, pos[:2])
    with pytest.raises(TypeError, match="DimeNetPlusPlus: pos must be float32"):
        model(z, pos.astype(np.float64))
    np.testing.assert_array_equal(model(z, pos, batch), model(z, pos, batch, 2))  # as PyG
    with pytest.raises(ValueError, match="DimeNetPlusPlus: batch"):
        model(z, pos, batch, batch_size=1)
    with pytest.raises(ValueError, match="without batch"):
        model(z, pos, batch_size=2)
    with pytest.raises(ValueError, match="DimeNet: num_spherical must be at least 2"):
        DimeNet(8, 1, 1, 2, 1, 2)
    with pytest.raises(ValueError, match="num_radial must be at most 64"):
        DimeNet(8, 1, 1, 2, 3, 65)
    with pytest.raises(ValueError, match="DimeNet: cutoff"):
        DimeNet(8, 1, 1, 2, 3, 2, cutoff=0.0)
    with pytest.raises(ValueError, match="output_initializer"):
        DimeNet(8, 1, 1, 2, 3, 2, output_initializer="ones")
    with pytest.raises(ValueError, match="DimeNet: act"):
        DimeNet(8, 1, 1, 2, 3, 2, act="rrelu")
    assert model(z, pos, batch, batch_size=2).shape == (2, 1)


def test_dimenet_native_paths_agree():
    """The bilinear layer applied per edge then summed per triplet (ours) equals PyG's
    per-triplet einsum, written out here in NumPy on the model's own intermediates."""
    from arraygnn.nn.dimenet_blocks import InteractionBlock

    gen = np.random.default_rng(0)
    block = InteractionBlock(6, 3, 2, 3, 1, 1, rng=0).astype(np.float64)
    e, t = 7, 15
    x, rbf = gen.standard_normal((e, 6)), gen.standard_normal((e, 3))
    sbf = gen.standard_normal((t, 6))
    idx_kj, idx_ji = gen.integers(0, e, t), np.sort(gen.integers(0, e, t))
    got = block(x, rbf, sbf, idx_kj, idx_ji)
    act = block.act
    x_kj = act(block.lin_kj(x)) * block.lin_rbf(rbf)
    msg = np.einsum("wj,wl,ijl->wi", block.lin_sbf(sbf), x_kj[idx_kj], block.W)
    agg = np.zeros((e, 6))
    np.add.at(agg, idx_ji, msg)
    want = block._skip(act(block.lin_ji(x)) + agg, x)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_dimenet_pp_block_any_triplet_order():
    """DimeNet++'s triplet sum for triplets in any order (the CSR's slot order differs
    from the triplets' own) equals the per-triplet sum written out in NumPy."""
    from arraygnn.nn.dimenet_blocks import InteractionPPBlock

    gen = np.random.default_rng(1)
    block = InteractionPPBlock(6, 4, 3, 2, 3, 1, 1, rng=0).astype(np.float64)
    e, t = 9, 30
    x, rbf = gen.standard_normal((e, 6)), gen.standard_normal((e, 3))
    sbf = gen.standard_normal((t, 6))
    idx_kj, idx_ji = gen.integers(0, e, t), gen.integers(0, e - 2, t)  # 2 edges get none
    got = block(x, rbf, sbf, idx_kj, idx_ji)
    act = block.act
    x_kj = act(block.lin_kj(x)) * block.lin_rbf2(block.lin_rbf1(rbf))
    x_kj = act(block.lin_down(x_kj))
    msg = x_kj[idx_kj] * block.lin_sbf2(block.lin_sbf1(sbf))
    agg = np.zeros((e, 4))
    np.add.at(agg, idx_ji, msg)
    want = block._skip(act(block.lin_ji(x)) + act(block.lin_up(agg)), x)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
