"""PyG's ViSNet (``torch_geometric.nn.models.visnet``) against arraygnn's, weights via
``from_pyg``: the whole model, its representation block, message passing layers and
pieces, on random small molecules (one-atom molecules, atoms with no neighbour within the
cutoff, an empty molecule, the neighbour limit), float32 / float64, lmax 1 and 2, with and
without vertex features and vector normalisation; and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import torch_geometric.nn.models.visnet as pyg_visnet  # noqa: E402

from arraygnn.nn import ViSNet, from_pyg  # noqa: E402
from arraygnn.nn.visnet import (  # noqa: E402
    CosineCutoff,
    ExpNormalSmearing,
    GatedEquivariantBlock,
    Sphere,
    VecLayerNorm,
    ViS_MP,
    ViS_MP_Vertex,
    ViSNetBlock,
)


def torch_radius_graph(x, r, batch=None, loop=False, max_num_neighbors=32, flow=None, **kw):
    """PyG's ``radius_graph`` in plain torch with arraygnn's neighbour limit: for every
    centre ``i`` the points of its example closer than ``r`` (itself with ``loop``), at most
    ``max_num_neighbors`` of them, the nearest first and ties to the lower index (pyg-lib's
    kernels keep the first they find instead); ``[neighbour, centre]`` rows."""
    n = x.shape[0]
    if batch is None:
        batch = torch.zeros(n, dtype=torch.long)
    d = torch.cdist(x.double(), x.double())
    ok = (d < r) & (batch[:, None] == batch[None, :])
    if not loop:
        ok &= ~torch.eye(n, dtype=torch.bool)
    d = torch.where(ok, d, torch.full_like(d, float("inf")))
    order = torch.sort(d, dim=1, stable=True).indices[:, :max_num_neighbors]
    keep = torch.isfinite(torch.gather(d, 1, order))
    centre = torch.arange(n)[:, None].expand_as(order)
    return torch.stack([order[keep], centre[keep]])


@pytest.fixture
def visnet_mod(monkeypatch):
    """PyG's visnet module with ``radius_graph`` (torch_cluster, not installed) replaced
    by :func:`torch_radius_graph`."""
    monkeypatch.setattr(pyg_visnet, "radius_graph", torch_radius_graph)
    return pyg_visnet


@pytest.fixture
def default_dtype():
    """Sets torch's default dtype for one test (PyG's ``Distance`` stores lengths in it:
    float32 lengths in a float64 model otherwise) and restores it."""
    old = torch.get_default_dtype()
    yield torch.set_default_dtype
    torch.set_default_dtype(old)


DTYPES = [(torch.float32, np.float32, 2e-5), (torch.float64, np.float64, 1e-10)]


def _molecules(gen, sizes, dtype):
    """Atoms of molecules with ``sizes`` (sorted batch); the last atom of the first
    molecule far from the others (no neighbour within the cutoff)."""
    batch = np.repeat(np.arange(len(sizes)), sizes)
    z = gen.integers(1, 10, batch.shape[0])
    pos = gen.standard_normal((batch.shape[0], 3)) * 1.2
    pos[sizes[0] - 1] += 40.0
    return z, pos.astype(dtype), batch


def _perturb(module):
    """PyG's initial weights nudged so biases, norms and the smearing are not trivial."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
        for name, b in module.named_buffers():
            if name.endswith(("means", "betas", "weight")):
                b.mul_(1 + 0.1 * torch.rand(b.shape, generator=gen, dtype=b.dtype))
    return module


CASES = [
    # lmax, vertex, vecnorm_type, extra ViSNet arguments
    (1, False, None, {}),
    (1, True, "max_min", {"reduce_op": "mean", "mean": 0.5, "std": 2.0}),
    (2, False, "max_min", {"trainable_vecnorm": True, "trainable_rbf": True}),
    (2, True, None, {"atomref": "random", "max_num_neighbors": 4}),
]


@pytest.mark.parametrize("lmax,vertex,norm,kw", CASES)
@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_visnet_matches_pyg(visnet_mod, default_dtype, lmax, vertex, norm, kw, tdt, ndt, tol, idx):
    default_dtype(tdt)
    torch.manual_seed(0)
    kw = dict(kw)
    if kw.get("atomref") == "random":
        kw["atomref"] = torch.randn(100)
    module = visnet_mod.ViSNet(
        lmax=lmax, vertex=vertex, vecnorm_type=norm, num_heads=2, num_layers=3,
        hidden_channels=16, num_rbf=8, cutoff=3.0, **kw,
    )  # fmt: skip
    module = _perturb(module).to(tdt).eval()
    model = from_pyg(module)
    assert isinstance(model, ViSNet) and model.representation_model.vertex == vertex
    gen = np.random.default_rng(1)
    sizes = [6, 1, 0, 7, 2]  # an atom far away, a one-atom and an empty molecule
    z, pos, batch = _molecules(gen, sizes, ndt)
    z0, pos0, batch0 = z.copy(), pos.copy(), batch.copy()
    tz, tpos, tbatch = (torch.from_numpy(a) for a in (z, pos, batch))
    with torch.no_grad():
        ref, no_dy = module(tz, tpos, tbatch)
    out, dy = model(z.astype(idx), pos, batch.astype(idx), batch_size=len(sizes))
    assert dy is None and no_dy is None
    assert out.shape == tuple(ref.shape) == (len(sizes), 1) and out.dtype == ndt
    np.testing.assert_allclose(out, ref.numpy(), rtol=tol, atol=tol)
    for a, b in ((z, z0), (pos, pos0), (batch, batch0)):
        np.testing.assert_array_equal(a, b)  # inputs untouched
    # one molecule without batch; a single atom (its only edge is the self-loop)
    for n in (6, 1):
        with torch.no_grad():
            ref1 = module(tz[-n:], tpos[-n:], torch.zeros(n, dtype=torch.long))[0].numpy()
        np.testing.assert_allclose(model(z[-n:], pos[-n:])[0], ref1, rtol=tol, atol=tol)


@pytest.mark.parametrize("lmax,vertex,norm", [(1, False, "max_min"), (2, True, "max_min")])
def test_visnet_block_matches_pyg(visnet_mod, default_dtype, lmax, vertex, norm):
    default_dtype(torch.float64)
    torch.manual_seed(1)
    block = visnet_mod.ViSNetBlock(
        lmax=lmax, vertex=vertex, vecnorm_type=norm, num_heads=4, num_layers=2,
        hidden_channels=8, num_rbf=6, cutoff=2.5,
    )  # fmt: skip
    block = _perturb(block).double().eval()
    ours = from_pyg(block)
    assert isinstance(ours, ViSNetBlock)
    z, pos, batch = _molecules(np.random.default_rng(2), [5, 4], np.float64)
    with torch.no_grad():
        x_ref, vec_ref = block(*(torch.from_numpy(a) for a in (z, pos, batch)))
    x, vec = ours(z, pos, batch, batch_size=2)
    assert vec.shape == tuple(vec_ref.shape) == (9, 3 if lmax == 1 else 8, 8)
    np.testing.assert_allclose(x, x_ref.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(vec, vec_ref.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("vertex", [False, True])
@pytest.mark.parametrize("last", [False, True])
def test_vis_mp_layer_on_unsorted_edges(vertex, last):
    # a layer called on its own, edges in no particular order (the CSR permutes them)
    cls = pyg_visnet.ViS_MP_Vertex if vertex else pyg_visnet.ViS_MP
    torch.manual_seed(2)
    ref_layer = _perturb(cls(2, 8, 3.0, "max_min", False, last_layer=last)).double()
    layer = (ViS_MP_Vertex if vertex else ViS_MP)(
        2, 8, 3.0, "max_min", False, last_layer=last, dtype=np.float64
    )
    layer.load_state_dict(ref_layer.state_dict())
    gen = np.random.default_rng(3)
    n, e = 6, 17
    ei = np.stack([gen.integers(0, n, e), gen.integers(0, n, e)])  # dst 5 may get none
    ei[1, ei[1] == 5] = 4
    x = gen.standard_normal((n, 8))
    vec = gen.standard_normal((n, 8, 8))
    r = gen.uniform(0.0, 3.5, e)
    f = gen.standard_normal((e, 8))
    d = gen.standard_normal((e, 8))
    args = (x, vec, ei, r, f, d)
    with torch.no_grad():
        want = ref_layer(*(torch.from_numpy(a) for a in args))
    got = layer(*args)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-10, atol=1e-10)


def test_pieces_match_pyg(visnet_mod):
    gen = torch.Generator().manual_seed(3)
    d = torch.rand(50, generator=gen, dtype=torch.float64) * 6
    d[0] = 0.0
    np.testing.assert_allclose(
        CosineCutoff(5.0)(d.numpy()), visnet_mod.CosineCutoff(5.0)(d).numpy(), rtol=1e-12
    )
    ref = visnet_mod.ExpNormalSmearing(4.0, 7).double()
    ours = ExpNormalSmearing(4.0, 7, dtype=np.float64).load_state_dict(ref.state_dict())
    np.testing.assert_allclose(ours(d.numpy()), ref(d).detach().numpy(), rtol=1e-12, atol=1e-14)
    v = torch.randn(20, 3, generator=gen, dtype=torch.float64)
    for lmax in (1, 2):
        np.testing.assert_allclose(
            Sphere(lmax)(v.numpy()), visnet_mod.Sphere(lmax)(v).numpy(), rtol=1e-12, atol=1e-14
        )
    for rows in (3, 8):
        vec = torch.randn(5, rows, 4, generator=gen, dtype=torch.float64)
        vec[2, :, 1] = 0.0  # a zero channel
        vec[3] = vec[3, :, :1]  # equal norms: delta 0
        for norm in ("max_min", None):
            ref = visnet_mod.VecLayerNorm(4, trainable=True, norm_type=norm).double()
            with torch.no_grad():
                ref.weight.uniform_(0.5, 1.5, generator=gen)
            ours = VecLayerNorm(4, True, norm, dtype=np.float64).load_state_dict(ref.state_dict())
            want = ref(vec).detach().numpy()
            np.testing.assert_allclose(ours(vec.numpy()), want, rtol=1e-12, atol=1e-14)
            zero = np.zeros((3, rows, 4))
            np.testing.assert_array_equal(ours(zero), ref(torch.zeros(3, rows, 4)).detach())
    ref = visnet_mod.GatedEquivariantBlock(6, 3, 5, scalar_activation=True).double()
    ours = GatedEquivariantBlock(6, 3, 5, True, dtype=np.float64).load_state_dict(ref.state_dict())
    x, vec = torch.randn(4, 6, dtype=torch.float64), torch.randn(4, 8, 6, dtype=torch.float64)
    for g, w in zip(ours(x.numpy(), vec.numpy()), ref(x, vec)):
        np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_no_atoms_and_empty_molecules(visnet_mod):
    model = from_pyg(visnet_mod.ViSNet(num_heads=2, num_layers=2, hidden_channels=8, mean=1.5))
    z, pos = np.zeros(0, np.int64), np.zeros((0, 3), np.float32)
    assert model(z, pos, z, batch_size=0)[0].shape == (0, 1)
    np.testing.assert_array_equal(model(z, pos, z, batch_size=2)[0], np.full((2, 1), 1.5))
    assert model(z, pos)[0].shape == (1, 1)  # no batch: one (empty) molecule


def test_derivative_is_not_implemented(visnet_mod):
    with pytest.raises(NotImplementedError, match="ViSNet: derivative=True .* autograd"):
        ViSNet(derivative=True)
    module = visnet_mod.ViSNet(num_heads=2, num_layers=1, hidden_channels=8, derivative=True)
    with pytest.raises(NotImplementedError, match="derivative=True"):
        from_pyg(module)
    module.derivative = False
    assert isinstance(from_pyg(module), ViSNet)


def test_bad_inputs():
    model = ViSNet(num_heads=2, num_layers=1, hidden_channels=8, rng=0)
    z, pos, batch = np.array([1, 6, 8]), np.zeros((3, 3), np.float32), np.array([0, 0, 1])
    assert model(z, pos, batch)[0].shape[0] == 2  # batch_size: batch.max() + 1, as PyG
    with pytest.raises(ValueError, match="ViSNet: batch"):
        model(z, pos, batch, batch_size=1)
    with pytest.raises(ValueError, match="ViSNet: batch must be sorted"):
        model(z, pos, np.array([1, 0, 1]), batch_size=2)
    with pytest.raises(ValueError, match="ViSNet: z"):
        model(np.array([1, 100, 2]), pos)
    with pytest.raises(TypeError, match="ViSNet: z"):
        model(z.astype(np.float32), pos)
    with pytest.raises(ValueError, match=r"ViSNet: pos must have shape \(3, 3\)"):
        model(z, pos[:, :2])
    with pytest.raises(TypeError, match="ViSNet: pos must be float32"):
        model(z, pos.astype(np.float64))
    with pytest.raises(ValueError, match="ViSNet: without batch"):
        model(z, pos, batch_size=2)
    small_ref = ViSNet(num_heads=2, num_layers=1, hidden_channels=8, atomref=np.ones(5), rng=0)
    with pytest.raises(ValueError, match="ViSNet: z"):
        small_ref(np.array([1, 6]), pos[:2])  # 6 has no reference value
    with pytest.raises(ValueError, match="lmax must be 1 or 2"):
        ViSNet(lmax=3)
    with pytest.raises(ValueError, match="divisible by num_heads"):
        ViSNet(hidden_channels=10, num_heads=4)
    with pytest.raises(ValueError, match="ViSNet: reduce_op"):
        ViSNet(reduce_op="any")
    with pytest.raises(ValueError, match="ViSNetBlock: vecnorm_type"):
        ViSNet(vecnorm_type="rms")
    with pytest.raises(ValueError, match="ViSNetBlock: cutoff"):
        ViSNet(cutoff=0.0)
    with pytest.raises(ValueError, match="VecLayerNorm: vec must be"):
        VecLayerNorm(4)(np.zeros((2, 5, 4)))
    layer = ViS_MP(2, 8, 3.0, None, False)
    x, vec = np.zeros((3, 8), np.float32), np.zeros((3, 3, 8), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    r, f, d = np.ones(2, np.float32), np.zeros((2, 8), np.float32), np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="ViS_MP: f_ij"):
        layer(x, vec, ei, r, f[:, :4], d)
    with pytest.raises(ValueError, match="ViS_MP: d_ij"):
        layer(x, vec, ei, r, f, np.zeros((2, 8), np.float32))
    with pytest.raises(ValueError, match="ViS_MP: vec"):
        layer(x, vec[:, :, :4], ei, r, f, d)
    with pytest.raises(ValueError, match="ViS_MP: edge_index"):
        layer(x, vec, np.array([[0, 5], [1, 2]]), r, f, d)


def test_vecnorm_names_pyg_treats_as_none(visnet_mod, default_dtype):
    # PyG normalises only for 'max_min'; another string is no normalisation, so is ours
    default_dtype(torch.float64)
    module = visnet_mod.ViSNet(
        vecnorm_type="none", num_heads=2, num_layers=2, hidden_channels=8, cutoff=3.0
    )
    module = _perturb(module).double()
    model = from_pyg(module)
    assert model.representation_model.vec_out_norm.norm_type is None
    z, pos, batch = _molecules(np.random.default_rng(4), [4, 3], np.float64)
    with torch.no_grad():
        ref = module(*(torch.from_numpy(a) for a in (z, pos, batch)))[0].numpy()
    np.testing.assert_allclose(model(z, pos, batch, batch_size=2)[0], ref, rtol=1e-10, atol=1e-10)
