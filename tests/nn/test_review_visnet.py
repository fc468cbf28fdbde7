"""Review of arraygnn's ViSNet against PyG 2.8.1 (``torch_geometric.nn.models.visnet``):
the layer rewrites on self-loops (zero-length ``d_ij``), multi-edges, targets without
edges and graphs without edges, lmax 1 and 2; the edge update against PyG's literal
``vector_rejection`` formula; inputs left untouched; the radius graph's neighbour limit
(ours keeps the nearest, so an atom always keeps its self-loop); PyG's other ``reduce_op``
names; clear errors for the standalone pieces."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import torch_geometric.nn.models.visnet as pyg_visnet  # noqa: E402

from arraygnn.nn import from_pyg  # noqa: E402
from arraygnn.nn.visnet import (  # noqa: E402
    Distance,
    EdgeEmbedding,
    GatedEquivariantBlock,
    NeighborEmbedding,
    Sphere,
    ViS_MP,
    ViS_MP_Vertex,
    ViSNet,
    _rejected_dot,
)


def _radius_graph(x, r, batch=None, loop=False, max_num_neighbors=32, flow=None, **kw):
    """All pairs of one example closer than ``r`` (no neighbour limit reached in the tests
    that use it): ``[neighbour, centre]`` rows, sorted by centre."""
    n = x.shape[0]
    if batch is None:
        batch = torch.zeros(n, dtype=torch.long)
    d = torch.cdist(x.double(), x.double())
    ok = (d < r) & (batch[:, None] == batch[None, :])
    if not loop:
        ok &= ~torch.eye(n, dtype=torch.bool)
    assert int(ok.sum(1).max()) <= max_num_neighbors
    centre, nbr = torch.nonzero(ok, as_tuple=True)
    return torch.stack([nbr, centre])


@pytest.fixture
def visnet_mod(monkeypatch):
    monkeypatch.setattr(pyg_visnet, "radius_graph", _radius_graph)
    return pyg_visnet


def _perturbed(module, scale=0.3, seed=0):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(scale * torch.randn(p.shape, generator=gen, dtype=p.dtype))
    return module


@pytest.mark.parametrize("vertex", [False, True])
@pytest.mark.parametrize("rows", [3, 8])
@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("norm", [None, "max_min"])
def test_layer_on_self_loops_and_multi_edges_matches_pyg(vertex, rows, last, norm):
    # self-loops carry d_ij = 0 and r_ij = 0 (PyG leaves them unnormalised); a repeated
    # edge; node 5 receives nothing; int32 ids
    cls = pyg_visnet.ViS_MP_Vertex if vertex else pyg_visnet.ViS_MP
    torch.manual_seed(0)
    ref = _perturbed(cls(2, 8, 3.0, norm, False, last_layer=last).double())
    ours = (ViS_MP_Vertex if vertex else ViS_MP)(
        2, 8, 3.0, norm, False, last_layer=last, dtype=np.float64
    ).load_state_dict(ref.state_dict())
    gen = np.random.default_rng(rows + 2 * vertex)
    ei = np.array([[0, 1, 2, 3, 4, 0, 1, 2, 3, 1, 5], [0, 1, 2, 3, 4, 1, 0, 3, 2, 1, 4]], np.int32)
    e, n = ei.shape[1], 6
    loop = ei[0] == ei[1]
    d = gen.standard_normal((e, rows))
    d[loop] = 0.0
    r = gen.uniform(0.0, 3.5, e)
    r[loop] = 0.0
    x, vec = gen.standard_normal((n, 8)), gen.standard_normal((n, rows, 8))
    f = gen.standard_normal((e, 8))
    args = (x, vec, ei, r, f, d)
    with torch.no_grad():
        want = ref(*(torch.from_numpy(a.astype(np.int64) if a.dtype.kind == "i" else a)
                     for a in args))  # fmt: skip
    got = ours(*args)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-10, atol=1e-10)
    # no edges at all
    none = (x, vec, np.zeros((2, 0), np.int64), r[:0], f[:0], d[:0])
    with torch.no_grad():
        want = ref(*(torch.from_numpy(a) for a in none))
    for g, w in zip(ours(*none), want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("rows", [3, 8])
@pytest.mark.parametrize("at_target", [False, True])
def test_rejected_dot_is_pyg_literal_formula(rows, at_target):
    from arraygnn import ops

    gen = np.random.default_rng(5)
    n = 5
    ei = np.array([[0, 1, 2, 4, 3, 0, 2], [0, 0, 1, 1, 2, 3, 2]])
    csr = ops.to_csr(ei, n, n)
    d = gen.standard_normal((ei.shape[1], rows))
    d[ei[0] == ei[1]] = 0.0
    d[3] /= np.linalg.norm(d[3])  # a unit vector among the unnormalised ones
    a, b = gen.standard_normal((n, rows, 4)), gen.standard_normal((n, rows, 4))
    ta, tb, td = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(d)
    src, dst = torch.from_numpy(ei[0]), torch.from_numpy(ei[1])
    rej = pyg_visnet.ViS_MP.vector_rejection
    w1 = rej(ta[dst], td)
    w2 = rej(tb[dst] if at_target else tb[src], -td)
    want = (w1 * w2).sum(dim=1).numpy()
    got = _rejected_dot(csr, d, a, b, at_target)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_layer_leaves_inputs_untouched():
    layer = ViS_MP_Vertex(2, 8, 3.0, "max_min", False, rng=0)
    gen = np.random.default_rng(6)
    ei = np.array([[0, 1, 2, 2, 0], [1, 2, 0, 2, 0]])
    args = [
        gen.standard_normal((3, 8)).astype(np.float32),
        gen.standard_normal((3, 8, 8)).astype(np.float32),
        ei,
        gen.uniform(0, 3, 5).astype(np.float32),
        gen.standard_normal((5, 8)).astype(np.float32),
        gen.standard_normal((5, 8)).astype(np.float32),
    ]
    copies = [a.copy() for a in args]
    out = layer(*args)
    assert all(o is not None for o in out)
    for a, c in zip(args, copies):
        np.testing.assert_array_equal(a, c)


def test_neighbour_limit_keeps_nearest_and_the_self_loop():
    # atoms on a line; with max_num_neighbors=2 each keeps itself and its nearest other
    # atom (PyG's pyg-lib / torch_cluster kernels keep the first ones they find instead:
    # their CUDA kernel the lowest indices, which can drop the atom's own loop)
    pos = np.array([[0.0, 0, 0], [1.0, 0, 0], [1.5, 0, 0], [3.2, 0, 0]], np.float32)
    edge_index, length, vec = Distance(5.0, max_num_neighbors=2)(pos)
    pairs = sorted(zip(edge_index[1].tolist(), edge_index[0].tolist()))
    assert pairs == [(0, 0), (0, 1), (1, 1), (1, 2), (2, 1), (2, 2), (3, 2), (3, 3)]
    assert np.all(np.diff(edge_index[1]) >= 0)  # sorted by target
    np.testing.assert_allclose(vec, pos[edge_index[0]] - pos[edge_index[1]])
    np.testing.assert_allclose(length, np.linalg.norm(vec, axis=1), rtol=1e-6)
    doc = Distance.__doc__ + ViSNet.__doc__
    assert "lowest indices" in doc and "self-loop" in doc


@pytest.mark.parametrize("reduce_op", ["mul", "amax", "amin"])
def test_pyg_reduce_op_names(visnet_mod, reduce_op):
    # PyG's ViSNet hands reduce_op to torch_geometric.utils.scatter, which also takes
    # 'mul' (an empty molecule gives 1), 'amax' and 'amin'
    torch.manual_seed(3)
    module = visnet_mod.ViSNet(
        num_heads=2, num_layers=2, hidden_channels=8, num_rbf=4, cutoff=3.0,
        reduce_op=reduce_op, mean=0.25, std=0.5,
    )  # fmt: skip
    module = _perturbed(module, 0.1).eval()
    model = from_pyg(module)
    gen = np.random.default_rng(7)
    batch = np.array([0, 0, 0, 2, 2, 3])  # molecule 1 has no atoms
    z = gen.integers(1, 10, 6)
    pos = (gen.standard_normal((6, 3)) * 0.8).astype(np.float32)
    with torch.no_grad():
        want = module(*(torch.from_numpy(a) for a in (z, pos, batch)))[0].numpy()
    got = model(z, pos, batch, batch_size=4)[0]
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    with pytest.raises(ValueError, match="ViSNet: reduce_op"):
        ViSNet(reduce_op="any")


def test_pieces_reject_bad_shapes():
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    x = np.zeros((3, 4), np.float32)
    ee = EdgeEmbedding(3, 4, rng=0)
    with pytest.raises(ValueError, match="EdgeEmbedding: edge_attr must have shape"):
        ee(ei, np.ones((1, 3), np.float32), x)  # would broadcast over the edges
    with pytest.raises(ValueError, match="EdgeEmbedding: edge_attr must have shape"):
        ee(ei, np.ones((3, 2), np.float32), x)
    ne = NeighborEmbedding(4, 3, 5.0, 10, rng=0)
    z, w, attr = np.array([1, 2, 3]), np.ones(3, np.float32), np.ones((3, 3), np.float32)
    assert ne(z, x, ei, w, attr).shape == (3, 4)
    with pytest.raises(ValueError, match="NeighborEmbedding: edge_attr must have shape"):
        ne(z, x, ei, w, attr[:1])
    with pytest.raises(ValueError, match="NeighborEmbedding: edge_weight must have shape"):
        ne(z, x, ei, w[:1], attr)
    with pytest.raises(ValueError, match=r"NeighborEmbedding: z must have shape \(3,\)"):
        ne(z[:2], x, ei, w, attr)
    with pytest.raises(ValueError, match=r"Sphere: edge_vec must be \(\*, 3\)"):
        Sphere(2)(np.zeros((4, 2)))
    g = GatedEquivariantBlock(4, 2, rng=0)
    with pytest.raises(ValueError, match="GatedEquivariantBlock: v must be"):
        g(np.ones((3, 4), np.float32), np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="GatedEquivariantBlock: x must be"):
        g(np.ones((3, 5), np.float32), np.ones((3, 3, 4), np.float32))


def test_layer_names_itself_for_a_bad_x():
    layer = ViS_MP(2, 8, 3.0, None, False)
    ei = np.array([[0], [1]])
    one = np.ones(1, np.float32)
    f, d = np.zeros((1, 8), np.float32), np.zeros((1, 3), np.float32)
    vec = np.zeros((3, 3, 8), np.float32)
    with pytest.raises(ValueError, match=r"ViS_MP: x must be \[3, 8\]"):
        layer(np.zeros((3, 4), np.float32), vec, ei, one, f, d)


def test_converter_reads_changed_buffers_and_settings(visnet_mod):
    # buffers and plain settings changed after construction (as training or a user would)
    torch.manual_seed(4)
    module = visnet_mod.ViSNet(
        num_heads=2, num_layers=3, hidden_channels=8, num_rbf=5, cutoff=3.0,
        atomref=torch.randn(12), vecnorm_type="max_min", trainable_vecnorm=True,
    )  # fmt: skip
    module = _perturbed(module, 0.1).eval()
    rep = module.representation_model
    with torch.no_grad():
        module.prior_model.atomref.weight.add_(0.5)  # no longer initial_atomref
        module.mean.fill_(1.25)
        module.std.fill_(0.75)
        rep.distance_expansion.means.mul_(1.1)
        rep.vec_out_norm.weight.uniform_(0.5, 1.5)
    rep.distance_expansion.alpha = 1.3
    rep.vis_mp_layers[1].cutoff.cutoff = 2.0
    rep.neighbor_embedding.cutoff.cutoff = 2.5
    model = from_pyg(module)
    assert float(model.mean) == 1.25 and float(model.std) == 0.75
    np.testing.assert_array_equal(
        model.prior_model.atomref.weight, module.prior_model.atomref.weight.detach().numpy()
    )
    gen = np.random.default_rng(8)
    batch = np.array([0, 0, 0, 0, 1, 1, 1])
    z = gen.integers(0, 12, 7)
    pos = (gen.standard_normal((7, 3)) * 0.9).astype(np.float32)
    with torch.no_grad():
        want = module(*(torch.from_numpy(a) for a in (z, pos, batch)))[0].numpy()
    np.testing.assert_allclose(model(z, pos, batch, batch_size=2)[0], want, rtol=2e-5, atol=2e-5)
    with pytest.raises(ValueError, match="ViSNet: z"):
        model(np.array([12, 1]), pos[:2])  # beyond the 12 reference values


def test_vec_layer_norm_zero_atom_among_others():
    from arraygnn.nn.visnet import VecLayerNorm

    gen = torch.Generator().manual_seed(9)
    for rows in (3, 8):
        vec = torch.randn(4, rows, 5, generator=gen, dtype=torch.float64)
        vec[1] = 0.0  # an atom with no vector features
        vec[2, :3] = 0.0  # only its degree-2 part (lmax 2)
        ref = pyg_visnet.VecLayerNorm(5, trainable=False, norm_type="max_min").double()
        ours = VecLayerNorm(5, False, "max_min", dtype=np.float64)
        want = ref(vec).numpy()
        np.testing.assert_allclose(ours(vec.numpy()), want, rtol=1e-12, atol=1e-14)
        assert not np.any(ours(vec.numpy())[1])


def test_non_finite_positions_name_the_model():
    model = ViSNet(num_heads=2, num_layers=1, hidden_channels=8, rng=0)
    pos = np.zeros((3, 3), np.float32)
    pos[1, 2] = np.nan
    with pytest.raises(ValueError, match="ViSNet: pos has non-finite"):
        model(np.array([1, 6, 8]), pos)
    from arraygnn.nn.visnet import ViSNetBlock

    block = ViSNetBlock(num_heads=2, num_layers=1, hidden_channels=8, rng=0)
    pos[1, 2] = np.inf
    with pytest.raises(ValueError, match="ViSNetBlock: pos has non-finite"):
        block(np.array([1, 6, 8]), pos)
