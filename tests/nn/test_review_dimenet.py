"""Review of the DimeNet / DimeNet++ port (``arraygnn.nn.dimenet``, ``dimenet_basis``,
``dimenet_blocks``) against torch_geometric 2.8.1: the bases for sizes other than the
QM9 ones (PyG's sympy tables and functions), the envelope exponent, every converter
option, ``triplets`` under CuPy's rules, and errors that name the layer and argument."""

from __future__ import annotations

import copy
import types

import numpy as np
import pytest

from arraygnn.nn.dimenet import DimeNet, DimeNetPlusPlus, triplets
from arraygnn.nn.dimenet_basis import Envelope, SphericalBasisLayer, _bessel_zeros
from arraygnn.nn.dimenet_blocks import (
    EmbeddingBlock,
    InteractionBlock,
    InteractionPPBlock,
    OutputBlock,
)


# ---- CuPy's rules on NumPy ------------------------------------------------------------
def _cupy_like_numpy():
    """NumPy's functions as a separate namespace (``xp is np`` is false, so the CuPy
    branches run) with CuPy's rules: ``repeat`` refuses an array of counts, ``bincount``
    reads ``int(x.max()) + 1`` (an empty array raises), ``argsort`` takes only
    ``kind=None`` / ``'stable'``."""
    ns = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})

    def repeat(a, repeats, axis=None):
        if isinstance(repeats, np.ndarray):
            raise ValueError("cupy.ndarray cannot be specified as `repeats` argument.")
        return np.repeat(a, repeats, axis)

    def bincount(x, weights=None, minlength=None):
        size = int(x.max()) + 1  # cupy.max of an empty array raises, as NumPy's
        return np.bincount(x, weights, max(size, minlength or 0))

    def argsort(a, axis=-1, kind=None):
        if kind not in (None, "stable"):
            raise ValueError("kind must be 'stable' or None")
        return np.argsort(a, axis=axis, kind="stable")

    ns.repeat, ns.bincount, ns.argsort = repeat, bincount, argsort
    return ns


def _cupy_rules(monkeypatch):
    import arraygnn.nn.dimenet as dimenet
    import arraygnn.nn.dimenet_basis as basis

    fake = _cupy_like_numpy()
    for module in (dimenet, basis):
        monkeypatch.setattr(module, "get_namespace", lambda *arrays: fake)


def test_triplets_cupy_path_no_edges_and_random_graphs(monkeypatch):
    gen = np.random.default_rng(0)
    graphs = [
        (np.zeros((2, 0), np.int64), 0),
        (np.zeros((2, 0), np.int64), 4),  # atoms, no edge (a lone atom, far-apart atoms)
        (gen.integers(0, 9, (2, 40)), 9),  # multi-edges and self-loops
        (np.array([[0, 1, 1, 2, 2, 0, 3], [1, 0, 2, 1, 0, 2, 3]]), 5),
    ]
    want = [triplets(ei, n) for ei, n in graphs]
    _cupy_rules(monkeypatch)
    for (ei, n), ref in zip(graphs, want):
        got = triplets(ei.astype(np.int32), n)
        for a, b in zip(got, ref):
            assert a.dtype == np.int64
            np.testing.assert_array_equal(a, b)


def test_dimenet_cupy_path_lone_atom_and_molecules(monkeypatch):
    model = DimeNetPlusPlus(8, 2, 2, 4, 3, 6, 3, 4, cutoff=2.0, rng=0)
    model = model.astype(np.float64)
    gen = np.random.default_rng(1)
    z, pos = gen.integers(1, 9, 7), gen.uniform(0, 3, (7, 3))
    batch = np.array([0, 0, 0, 1, 1, 1, 2])
    want = model(z, pos, batch, batch_size=3), model(z[:1], pos[:1])
    _cupy_rules(monkeypatch)
    np.testing.assert_allclose(model(z, pos, batch, batch_size=3), want[0], rtol=1e-12)
    np.testing.assert_allclose(model(z[:1], pos[:1]), want[1], rtol=1e-12)


# ---- the bases for other sizes ----------------------------------------------------------
@pytest.mark.parametrize("sizes", [(2, 1), (3, 4), (7, 6), (8, 8), (4, 64), (12, 10)])
def test_bessel_tables_match_pyg(sizes):
    """The zeros and normalisers are computed for any size, equal to PyG's float32 tables
    (``Jn_zeros`` and ``bessel_basis``'s normaliser) bit for bit."""
    pytest.importorskip("sympy")
    utils = pytest.importorskip("torch_geometric.nn.models.dimenet_utils")
    n, k = sizes
    zeros, norm = _bessel_zeros(n, k)
    ref = utils.Jn_zeros(n, k)
    np.testing.assert_array_equal(zeros, ref)
    want = [
        [1 / (0.5 * utils.Jn(ref[o, i], o + 1) ** 2) ** 0.5 for i in range(k)] for o in range(n)
    ]
    np.testing.assert_array_equal(norm, np.array(want, np.float32))


@pytest.mark.parametrize("sizes", [(8, 8), (10, 12)])
def test_radial_closed_forms_match_scipy(sizes):
    """``N_ln j_l(z_ln x)`` times the envelope for high orders, against SciPy's
    ``spherical_jn`` (float64, ``x`` away from 0 where both forms cancel)."""
    from scipy.special import spherical_jn

    n, k = sizes
    layer = SphericalBasisLayer(n, k, cutoff=2.0, envelope_exponent=4)
    dist = np.linspace(0.9, 2.4, 41)  # some beyond the cutoff
    got = layer.radial(dist)
    zeros, norm = _bessel_zeros(n, k)
    x = dist / 2.0
    want = (
        np.stack(
            [norm[o] * spherical_jn(o, zeros[o] * x[:, None].astype(np.float64)) for o in range(n)],
            axis=1,
        )
        * Envelope(4)(x)[:, None, None]
    )
    assert got.shape == (41, n, k) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * np.abs(want).max())
    assert np.all(got[x >= 1] == 0)


@pytest.mark.parametrize("exponent", [0, 1, 3, 5, 8])
def test_envelope_matches_pyg(exponent):
    torch = pytest.importorskip("torch")
    dimenet = pytest.importorskip("torch_geometric.nn.models.dimenet")
    x = np.linspace(0.05, 1.3, 60)
    for dt in (np.float32, np.float64):
        want = dimenet.Envelope(exponent)(torch.from_numpy(x.astype(dt))).numpy()
        got = Envelope(exponent)(x.astype(dt))
        assert got.dtype == dt
        tol = 1e-6 if dt == np.float32 else 1e-14  # float32: x^p rounds apart, then cancels
        np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("sizes,exponent", [((3, 4), 3), ((2, 1), 6)])
def test_spherical_basis_matches_pyg_other_sizes(sizes, exponent):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sympy")
    dimenet = pytest.importorskip("torch_geometric.nn.models.dimenet")
    n, k = sizes
    ref = dimenet.SphericalBasisLayer(n, k, 2.5, exponent)
    ours = SphericalBasisLayer(n, k, 2.5, exponent)
    gen = np.random.default_rng(0)
    for dt, tol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        dist = gen.uniform(0.8, 2.8, 30).astype(dt)
        angle = gen.uniform(0, np.pi, 70).astype(dt)
        idx = gen.integers(0, 30, 70)
        want = ref(*(torch.from_numpy(a) for a in (dist, angle, idx))).numpy()
        got = ours(dist, angle, idx)
        assert got.shape == (70, n * k) and got.dtype == dt
        np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())


# ---- every converter option -------------------------------------------------------------
_CONFIGS = [
    ("DimeNet", dict(hidden_channels=8, out_channels=3, num_blocks=0, num_bilinear=2,
                     num_spherical=2, num_radial=2)),
    ("DimeNet", dict(hidden_channels=8, out_channels=3, num_blocks=2, num_bilinear=2,
                     num_spherical=3, num_radial=4, cutoff=2.5, max_num_neighbors=3,
                     envelope_exponent=3, num_before_skip=0, num_after_skip=0,
                     num_output_layers=0, act="relu")),
    ("DimeNetPlusPlus", dict(hidden_channels=8, out_channels=3, num_blocks=0, int_emb_size=4,
                             basis_emb_size=3, out_emb_channels=5, num_spherical=2,
                             num_radial=2)),
    ("DimeNetPlusPlus", dict(hidden_channels=8, out_channels=3, num_blocks=2, int_emb_size=4,
                             basis_emb_size=3, out_emb_channels=5, num_spherical=3,
                             num_radial=4, cutoff=2.5, max_num_neighbors=3,
                             envelope_exponent=8, num_before_skip=2, num_after_skip=1,
                             num_output_layers=1, act="silu")),
    ("DimeNet", dict(hidden_channels=8, out_channels=1, num_blocks=1, num_bilinear=3,
                     num_spherical=2, num_radial=3, act="tanh", envelope_exponent=1)),
]  # fmt: skip


@pytest.mark.parametrize("kind,kw", _CONFIGS)
def test_from_pyg_reads_every_option(kind, kw):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sympy")
    dimenet = pytest.importorskip("torch_geometric.nn.models.dimenet")
    from arraygnn.nn import from_pyg
    from tests.nn.test_dimenet import _molecules, _run, torch_radius_graph, torch_triplets

    torch.manual_seed(0)
    module = getattr(dimenet, kind)(output_initializer="glorot_orthogonal", **kw)
    for p in module.parameters():
        p.data += 0.1 * torch.randn_like(p)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dimenet, "radius_graph", torch_radius_graph)
        mp.setattr(dimenet, "triplets", torch_triplets)
        for tdt, ndt, tol in (
            (torch.float64, np.float64, 1e-12),
            (torch.float32, np.float32, 2e-6),
        ):
            ref_module = copy.deepcopy(module).to(tdt)
            model = from_pyg(ref_module)
            assert type(model).__name__ == kind
            assert model.cutoff == kw.get("cutoff", 5.0)
            assert model.max_num_neighbors == kw.get("max_num_neighbors", 32)
            assert (
                model.rbf.envelope.p == model.sbf.envelope.p == kw.get("envelope_exponent", 5) + 1
            )
            z, pos, batch = _molecules(np.random.default_rng(3), [6, 1, 0, 9, 4], ndt)
            want = _run(ref_module, z, pos, batch)
            got = model(z, pos, batch, batch_size=5)
            assert got.shape == want.shape == (5, kw["out_channels"]) and got.dtype == ndt
            np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())


# ---- errors name the layer and the argument ---------------------------------------------
def test_block_errors_name_layer_and_argument():
    from arraygnn import ops

    f32 = np.float32
    x, rbf, sbf = np.ones((5, 4), f32), np.ones((5, 3), f32), np.ones((6, 6), f32)
    kj, ji = np.array([0, 1, 2, 3, 4, 0]), np.array([1, 2, 3, 4, 0, 2])
    emb = EmbeddingBlock(3, 4, rng=0)
    i, j = np.array([0, 1]), np.array([1, 0])
    with pytest.raises(ValueError, match="EmbeddingBlock: z"):
        emb(np.array([0, 200]), rbf[:2], i, j)
    with pytest.raises(ValueError, match="EmbeddingBlock: i"):
        emb(np.array([0, 2]), rbf[:2], np.array([0, 7]), j)
    with pytest.raises(ValueError, match="EmbeddingBlock: rbf"):
        emb(np.array([0, 2]), rbf[:3], i, j)
    out = OutputBlock(3, 4, 2, 1, rng=0)
    with pytest.raises(ValueError, match="OutputBlock: i"):
        out(x, rbf, np.array([0, 1, 2, 3, 9]), 4)
    with pytest.raises(ValueError, match="OutputBlock: rbf"):
        out(x, rbf[:4], np.array([0, 1, 2, 3, 3]), 4)
    sph = SphericalBasisLayer(2, 3)
    d, a = np.ones(4, f32), np.ones(3, f32)
    with pytest.raises(ValueError, match="SphericalBasisLayer: idx_kj"):
        sph(d, a, np.array([0, 1, 7]))
    with pytest.raises(ValueError, match="SphericalBasisLayer: idx_kj"):
        sph(d, a, np.array([0, 1]))
    blocks = [
        InteractionBlock(4, 2, 2, 3, 1, 1, rng=0),
        InteractionPPBlock(4, 3, 2, 2, 3, 1, 1, rng=0),
    ]
    for block in blocks:
        name = type(block).__name__
        assert block(x, rbf, sbf, kj, ji).shape == (5, 4)
        with pytest.raises(ValueError, match=f"{name}: idx_kj"):
            block(x, rbf, sbf, np.array([0, 1, 2, 3, 9, 0]), ji)
        with pytest.raises(ValueError, match=f"{name}: idx_ji"):
            block(x, rbf, sbf, kj, np.array([1, 2, 3, 4, 0, -1]))
        with pytest.raises(ValueError, match=f"{name}: sbf"):
            block(x, rbf, sbf[:4], kj, ji)
        with pytest.raises(ValueError, match=f"{name}: rbf"):
            block(x, rbf[:4], sbf, kj, ji)
        with pytest.raises(ValueError, match=f"{name}: csr"):
            block(x, rbf, sbf, kj, ji, ops.to_csr((kj, ji), 9, 9))
        with pytest.raises(ValueError, match=f"{name}: csr"):
            block(x, rbf, sbf, kj, ji, ops.to_csr((kj[:5], ji[:5]), 5, 5))


def test_model_settings_errors():
    with pytest.raises(ValueError, match="DimeNet: num_before_skip"):
        DimeNet(8, 1, 1, 2, 3, 2, num_before_skip=-1)
    with pytest.raises(ValueError, match="DimeNet: num_after_skip"):
        DimeNet(8, 1, 1, 2, 3, 2, num_after_skip=-1)
    with pytest.raises(ValueError, match="DimeNetPlusPlus: num_output_layers"):
        DimeNetPlusPlus(8, 1, 1, 4, 2, 8, 3, 2, num_output_layers=-2)
    with pytest.raises(TypeError, match="DimeNet: cutoff"):
        DimeNet(8, 1, 1, 2, 3, 2, cutoff="a")


def test_docstring_claims():
    """An atom with no neighbour adds its output blocks' biases (not nothing), as PyG's
    and docs/layers.md say; the radial functions run in the input's dtype."""
    import arraygnn.nn.dimenet as dimenet
    import arraygnn.nn.dimenet_basis as basis

    assert "with no neighbour within ``cutoff`` adds nothing" not in dimenet.DimeNet.__doc__
    assert "radial and angular functions are evaluated in float64" not in basis.__doc__
    model = DimeNet(8, 1, 1, 2, 3, 2, output_initializer="glorot_orthogonal", rng=0)
    model.output_blocks[1].lins[0].bias[...] = 1.0  # fresh biases are 0, as PyG's
    assert np.abs(model(np.array([6]), np.zeros((1, 3), np.float32))).max() > 0


@pytest.mark.parametrize("plus", [False, True])
def test_interaction_blocks_match_pyg_any_triplet_order(plus):
    """The per-edge bilinear rewrite (DimeNet) and the slot-order sum (DimeNet++) equal
    PyG's per-triplet blocks for triplets in any order, repeated triplets and edges that
    receive none, in float32 and float64; with and without a caller's CSR."""
    torch = pytest.importorskip("torch")
    dimenet = pytest.importorskip("torch_geometric.nn.models.dimenet")
    from arraygnn import ops

    torch.manual_seed(0)
    act = torch.nn.SiLU()
    if plus:
        ref = dimenet.InteractionPPBlock(6, 4, 3, 2, 3, 1, 2, act)
        ours = InteractionPPBlock(6, 4, 3, 2, 3, 1, 2, rng=0)
    else:
        ref = dimenet.InteractionBlock(6, 3, 2, 3, 2, 1, act)
        ours = InteractionBlock(6, 3, 2, 3, 2, 1, rng=0)
    for p in ref.parameters():
        p.data += 0.1 * torch.randn_like(p)
    gen = np.random.default_rng(4)
    e, t = 11, 40
    idx_kj, idx_ji = gen.integers(0, e, t), gen.integers(0, e - 3, t)  # 3 edges get none
    idx_kj[:5], idx_ji[:5] = idx_kj[5], idx_ji[5]  # repeated triplets
    for tdt, ndt, tol in ((torch.float64, np.float64, 1e-12), (torch.float32, np.float32, 1e-5)):
        block = copy.deepcopy(ref).to(tdt)
        ours.load_state_dict(dict(block.state_dict()), format="pyg")
        model = ours.astype(ndt)
        x, rbf = gen.standard_normal((e, 6)).astype(ndt), gen.standard_normal((e, 3)).astype(ndt)
        sbf = gen.standard_normal((t, 6)).astype(ndt)
        args = (x, rbf, sbf, idx_kj, idx_ji)
        want = block(*(torch.from_numpy(a) for a in args)).detach().numpy()
        for csr in (None, ops.to_csr((idx_kj, idx_ji), e, e)):
            got = model(*args, csr)
            assert got.dtype == ndt
            np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())
