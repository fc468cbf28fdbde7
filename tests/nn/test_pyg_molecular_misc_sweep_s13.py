"""Parity sweep of PyG's molecular / 3-D models and remaining misc layers over options the
journey tests leave out, live against torch_geometric 2.8.1 (weights via ``from_pyg``, eval
mode, small seeded inputs): SchNet (readout max / min, odd widths, dipole with mean / std /
atomref, scale, a given interaction graph), DimeNet / DimeNet++ (small bases, other envelope
exponents, output layers, skips), ViSNet (heads, one layer, reduce_op mean with lmax 2, max_z,
trainable vecnorm), GNNFF (widths, depths, cutoff, neighbour limit), AttentiveFP (edge_dim 1,
dropout), NeuralFingerprint (depths), DeepGCNLayer (ckpt_grad, edge features through the
conv), MetaLayer (single parts, none), MaskLabel.ratio_mask, MessageNorm without learn_scale,
GraphSizeNorm / MeanSubtractionNorm without batch, GroupAddRev (4 groups, inverse), RENet
(seq_len, dropout 0); plus errors for bad options. PyG's radius_graph / triplets need
torch_cluster / torch_sparse: brute-force versions are patched into PyG's modules."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from _nn_cases import rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from test_dimenet import torch_radius_graph as ag_radius_graph  # noqa: E402
from test_dimenet import torch_triplets  # noqa: E402
from test_visnet import torch_radius_graph as brute_radius_graph  # noqa: E402

TOL = {np.float32: 2e-5, np.float64: 1e-10}


def _tdt(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _np(t):
    return t.detach().numpy()


def _perturb(module, dtype, seed=0):
    torch.manual_seed(seed)
    module = module.to(_tdt(dtype)).eval()
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.2 * torch.randn_like(p))
        for name, b in module.named_buffers():
            if b.is_floating_point() and "running_var" in name:
                b.uniform_(0.5, 1.5)
            elif b.is_floating_point() and "running_mean" in name:
                b.uniform_(-0.5, 0.5)
    return module


def _molecules(gen, sizes, dtype, scale=1.2):
    batch = np.repeat(np.arange(len(sizes)), sizes)
    z = gen.integers(1, 10, batch.shape[0])
    pos = gen.standard_normal((batch.shape[0], 3)) * scale
    if sizes[0]:
        pos[sizes[0] - 1] += 40.0  # an atom without neighbours
    return z, pos.astype(dtype), batch


# ------------------------------------------------------------------------------ SchNet
@pytest.fixture
def schnet_mod(monkeypatch):
    import torch_geometric.nn.models.schnet as schnet

    monkeypatch.setattr(schnet, "radius_graph", brute_radius_graph)
    fake = types.ModuleType("ase")
    fake.data = types.SimpleNamespace(atomic_masses=np.random.default_rng(0).uniform(1, 200, 119))
    monkeypatch.setitem(sys.modules, "ase", fake)
    monkeypatch.setitem(sys.modules, "ase.data", fake.data)
    return schnet


SCHNET = {
    "max-odd": dict(hidden_channels=7, num_filters=5, num_interactions=1, num_gaussians=4,
                    cutoff=2.0, max_num_neighbors=3, readout="max"),
    "min": dict(hidden_channels=8, num_filters=6, num_interactions=2, num_gaussians=6,
                cutoff=2.5, readout="min"),
    "mean-atomref-meanstd": dict(hidden_channels=6, num_filters=4, num_interactions=2,
                                 num_gaussians=3, cutoff=3.0, readout="mean", mean=-0.5,
                                 std=3.0, atomref="random"),
    "dipole-ignores": dict(hidden_channels=6, num_filters=4, num_interactions=1,
                           num_gaussians=5, cutoff=3.0, readout="mean", dipole=True, mean=2.0,
                           std=0.5, atomref="random"),
    "mean-only": dict(hidden_channels=4, num_filters=4, num_interactions=1, num_gaussians=2,
                      cutoff=4.0, mean=3.0),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(SCHNET))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_schnet_options(schnet_mod, case, dtype):
    kw = dict(SCHNET[case])
    torch.manual_seed(1)
    if kw.get("atomref") == "random":
        kw["atomref"] = torch.randn(100, 1)
    module = _perturb(schnet_mod.SchNet(**kw), dtype)
    if case == "mean-only":
        module.scale = 1.7  # from_qm9_pretrained's
    model = agnn.from_pyg(module)
    gen = np.random.default_rng(3)
    z, pos, batch = _molecules(gen, [5, 3, 1, 6], dtype)
    with torch.no_grad():
        ref = _np(module(_t(z), _t(pos), _t(batch)))
    out = model(z, pos, batch, batch_size=4)
    assert out.shape == ref.shape == (4, 1) and out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, rtol=TOL[dtype] * 5, atol=TOL[dtype] * 5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_schnet_given_interaction_graph(schnet_mod, dtype):
    """PyG calls ``interaction_graph(pos, batch)``; ours ``(pos, batch, batch_size)`` (its
    docstring): every pair of atoms of a molecule, lengths beyond the cutoff included."""

    class PygGraph(torch.nn.Module):
        def forward(self, pos, batch):
            same = (batch[:, None] == batch[None, :]) & ~torch.eye(len(pos), dtype=torch.bool)
            ei = torch.stack(torch.where(same))
            return ei, (pos[ei[0]] - pos[ei[1]]).norm(dim=-1)

    def our_graph(pos, batch, batch_size):
        b = np.zeros(pos.shape[0], np.int64) if batch is None else batch
        src, dst = np.nonzero((b[:, None] == b[None, :]) & ~np.eye(pos.shape[0], dtype=bool))
        ei = np.stack([src, dst])
        return ei, np.linalg.norm(pos[src] - pos[dst], axis=-1)

    torch.manual_seed(2)
    module = _perturb(schnet_mod.SchNet(6, 5, 2, 4, cutoff=2.0), dtype)
    model = agnn.from_pyg(module)
    model.interaction_graph = our_graph
    module.interaction_graph = PygGraph()
    gen = np.random.default_rng(4)
    z, pos, batch = _molecules(gen, [4, 5], dtype, scale=2.0)
    with torch.no_grad():
        ref = _np(module(_t(z), _t(pos), _t(batch)))
    out = model(z, pos, batch, batch_size=2)
    np.testing.assert_allclose(out, ref, rtol=TOL[dtype] * 5, atol=TOL[dtype] * 5)
    built = agnn.SchNet(6, 5, 2, 4, cutoff=2.0, interaction_graph=our_graph, dtype=dtype)
    built.load_state_dict(module.state_dict(), format="pyg")
    # PyG's smearing coefficient comes from a float32 linspace whatever the model's dtype
    # (from_pyg copies it); a built float64 model computes it in float64
    np.testing.assert_allclose(built(z, pos, batch, 2), ref, rtol=1e-6, atol=1e-6)


def test_schnet_bad_options():
    with pytest.raises(ValueError, match="SchNet: readout"):
        agnn.SchNet(4, 4, 1, 2, readout="median")
    with pytest.raises(ValueError, match="SchNet: cutoff"):
        agnn.SchNet(4, 4, 1, 2, cutoff=0.0)
    with pytest.raises(TypeError, match="SchNet: interaction_graph"):
        agnn.SchNet(4, 4, 1, 2, interaction_graph=3)
    with pytest.raises(ValueError, match="SchNet: atomref"):
        agnn.SchNet(4, 4, 1, 2, atomref=np.zeros(50))


# ------------------------------------------------------------------------------ DimeNet
DIMENET = {
    "dimenet-small": ("DimeNet", (8, 2, 2, 2, 2, 3),
                      dict(envelope_exponent=3, num_before_skip=2, num_after_skip=1,
                           num_output_layers=1, cutoff=2.5, max_num_neighbors=4)),
    "dimenet++-small": ("DimeNetPlusPlus", (8, 3, 1, 4, 3, 6, 3, 2),
                        dict(envelope_exponent=6, num_before_skip=1, num_after_skip=2,
                             num_output_layers=2, cutoff=3.0, act="tanh")),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(DIMENET))
def test_dimenet_options(case):
    pytest.importorskip("sympy")
    import torch_geometric.nn.models.dimenet as dimenet

    kind, args, kw = DIMENET[case]
    dtype = np.float64
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dimenet, "radius_graph", ag_radius_graph)
        mp.setattr(dimenet, "triplets", torch_triplets)
        torch.manual_seed(3)
        module = _perturb(getattr(dimenet, kind)(*args, **kw), dtype)
        model = agnn.from_pyg(module)
        gen = np.random.default_rng(5)
        z, pos, batch = _molecules(gen, [5, 1, 4], dtype)
        with torch.no_grad():
            ref = _np(module(_t(z), _t(pos), _t(batch)))
    out = model(z, pos, batch, batch_size=3)
    assert out.shape == ref.shape == (3, args[1]) and out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------------------------ ViSNet
VISNET = {
    "heads4-one-layer": dict(lmax=1, num_heads=4, num_layers=1, hidden_channels=8, num_rbf=4,
                             cutoff=2.5, max_z=20),
    "lmax2-mean-atomref": dict(lmax=2, vertex=True, reduce_op="mean", num_heads=2,
                               num_layers=2, hidden_channels=8, num_rbf=6, cutoff=3.0,
                               atomref="random", mean=1.0, std=0.5, max_num_neighbors=3),
    "trainable-vecnorm": dict(lmax=1, vertex=True, vecnorm_type="max_min",
                              trainable_vecnorm=True, trainable_rbf=True, num_heads=1,
                              num_layers=2, hidden_channels=4, num_rbf=3, cutoff=2.0),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(VISNET))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_visnet_options(monkeypatch, case, dtype):
    import torch_geometric.nn.models.visnet as pyg_visnet

    monkeypatch.setattr(pyg_visnet, "radius_graph", brute_radius_graph)
    old = torch.get_default_dtype()
    torch.set_default_dtype(_tdt(dtype))  # PyG's Distance keeps lengths in the default dtype
    try:
        kw = dict(VISNET[case])
        torch.manual_seed(4)
        if kw.get("atomref") == "random":
            kw["atomref"] = torch.randn(kw.get("max_z", 100))
        module = _perturb(pyg_visnet.ViSNet(**kw), dtype)
        model = agnn.from_pyg(module)
        gen = np.random.default_rng(6)
        z, pos, batch = _molecules(gen, [5, 1, 6], dtype)
        with torch.no_grad():
            ref = _np(module(_t(z), _t(pos), _t(batch))[0])
    finally:
        torch.set_default_dtype(old)
    out, dy = model(z, pos, batch, batch_size=3)
    assert dy is None and out.shape == ref.shape == (3, 1) and out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, rtol=TOL[dtype] * 5, atol=TOL[dtype] * 5)
    with pytest.raises(ValueError, match="ViSNet"):
        model(
            np.full(
                3,
                model.representation_model.max_z
                if hasattr(model.representation_model, "max_z")
                else 100,
            ),
            pos[:3],
        )


def test_visnet_bad_options():
    for kw, err in [
        ({"lmax": 3}, ValueError),
        ({"vecnorm_type": "rms"}, ValueError),
        ({"reduce_op": "any"}, ValueError),
        ({"cutoff": -1.0}, ValueError),
    ]:
        with pytest.raises(err, match=f"ViSNet(Block)?: {next(iter(kw))}"):
            agnn.ViSNet(hidden_channels=4, num_heads=2, num_layers=1, num_rbf=2, **kw)


# ------------------------------------------------------------------------------ GNNFF
@pytest.mark.parametrize("sizes", [(6, 4, 1, 3.0, 4), (5, 3, 3, 2.0, 32)])
def test_gnnff_options(sizes):
    pytest.importorskip("sympy")
    import torch_geometric.nn.models.gnnff as gnnff

    hn, he, layers, cutoff, neighbours = sizes
    dtype = np.float64
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gnnff, "radius_graph", ag_radius_graph)
        mp.setattr(gnnff, "triplets", torch_triplets)
        torch.manual_seed(5)
        module = _perturb(gnnff.GNNFF(hn, he, layers, cutoff, neighbours), dtype)
        model = agnn.from_pyg(module)
        gen = np.random.default_rng(7)
        z, pos, batch = _molecules(gen, [4, 5], dtype)
        pos[3] = pos[0] + 0.5  # the far atom back: PyG's forces stop at the last atom with edges
        with torch.no_grad():
            ref = _np(module(_t(z), _t(pos), _t(batch)))
    out = model(z, pos, batch, batch_size=2)
    assert out.shape == ref.shape == (9, 3)
    assert rel_err(out, ref) < 1e-10


# ------------------------------------------------------------------------------ AttentiveFP
@pytest.mark.parametrize("sizes", [(1, 4, 1, 1, 2, 1), (3, 6, 2, 2, 1, 3)])
def test_attentive_fp_options(sizes):
    cin, hid, out_c, edge_dim, layers, steps = sizes
    ref = _perturb(pyg_nn.models.AttentiveFP(cin, hid, out_c, edge_dim, layers, steps,
                                             dropout=0.4), np.float64)  # fmt: skip
    model = agnn.from_pyg(ref)
    gen = np.random.default_rng(8)
    ei = np.array([[0, 1, 1, 2, 4, 5, 5], [1, 0, 2, 1, 5, 4, 4]])
    x = gen.standard_normal((7, cin))
    edge_attr = gen.standard_normal((7, edge_dim))
    batch = np.array([0, 0, 0, 1, 2, 2, 2])  # graph 1: one atom without bonds
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(edge_attr), _t(batch)))
    out = model(x, ei, edge_attr, batch, batch_size=3)
    assert out.shape == expected.shape == (3, out_c)
    assert rel_err(out, expected) < 1e-10


# ------------------------------------------------------------------------------ NeuralFingerprint
@pytest.mark.parametrize("layers", [1, 3])
def test_neural_fingerprint_depths(layers):
    ref = _perturb(pyg_nn.models.NeuralFingerprint(3, 5, 4, layers), np.float64)
    model = agnn.from_pyg(ref)
    gen = np.random.default_rng(9)
    ei = np.array([[0, 1, 2, 2, 3, 5], [1, 2, 1, 0, 4, 5]])
    x = gen.standard_normal((6, 3))
    batch = np.array([0, 0, 0, 1, 1, 1])
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(batch)))
    out = model(x, ei, batch, batch_size=2)
    assert out.shape == expected.shape == (2, 4) and rel_err(out, expected) < 1e-10


# ------------------------------------------------------------------------------ DeepGCNLayer
@pytest.mark.parametrize("block", ["res+", "res", "dense", "plain"])
def test_deep_gcn_layer_edge_attr_and_ckpt_grad(block):
    """``ckpt_grad`` (training memory only) is ignored; extra arguments (here GENConv's
    edge_attr) reach the conv as PyG's."""
    conv = pyg_nn.GENConv(4, 4, aggr="mean", edge_dim=2)
    ref = pyg_nn.DeepGCNLayer(conv, torch.nn.LayerNorm(4), torch.nn.ReLU(), block=block,
                              dropout=0.0, ckpt_grad=True)  # fmt: skip
    ref = _perturb(ref, np.float64)
    layer = agnn.from_pyg(ref)
    gen = np.random.default_rng(10)
    ei = np.array([[0, 1, 2, 3, 3], [1, 2, 0, 0, 3]])
    x, edge_attr = gen.standard_normal((5, 4)), gen.standard_normal((5, 2))
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(edge_attr)))
    out = layer(x, ei, edge_attr)
    assert out.shape == expected.shape and rel_err(out, expected) < 1e-10


# ------------------------------------------------------------------------------ MetaLayer
def _pyg_edge(src, dst, edge_attr, u, batch):
    return src[:, :1] * dst[:, 1:2] + edge_attr


def _pyg_global(x, edge_index, edge_attr, u, batch):
    return u + torch.zeros(u.shape[0], x.shape[1], dtype=x.dtype).index_add_(0, batch, x)


def _ag_edge(src, dst, edge_attr, u, batch):
    return src[:, :1] * dst[:, 1:2] + edge_attr


def _ag_global(x, edge_index, edge_attr, u, batch):
    out = u.copy()
    np.add.at(out, batch, x)
    return out


@pytest.mark.parametrize("which", ["none", "edge", "global"])
def test_meta_layer_single_parts(which):
    gen = np.random.default_rng(11)
    x, u = gen.standard_normal((5, 2)), gen.standard_normal((2, 2))
    ei = np.array([[0, 1, 3, 4], [1, 2, 4, 3]])
    edge_attr, batch = gen.standard_normal((4, 2)), np.array([0, 0, 0, 1, 1])
    parts = {"none": (None, None), "edge": (_pyg_edge, _ag_edge),
             "global": (_pyg_global, _ag_global)}[which]  # fmt: skip
    key = "edge_model" if which == "edge" else "global_model"
    ref = pyg_nn.MetaLayer(**({key: parts[0]} if parts[0] else {}))
    layer = agnn.MetaLayer(**({key: parts[1]} if parts[1] else {}))
    expected = ref(_t(x), _t(ei), _t(edge_attr), _t(u), _t(batch))
    out = layer(x, ei, edge_attr, u, batch)
    for a, b in zip(out, expected):
        np.testing.assert_allclose(a, _np(b), rtol=1e-12)
    if which == "none":  # no edge_attr, u, batch: PyG passes the Nones through
        out = ref(_t(x), _t(ei))
        assert out[1] is None and out[2] is None
        out = layer(x, ei)
        assert out[1] is None and out[2] is None
        np.testing.assert_array_equal(out[0], x)


# ------------------------------------------------------------------------------ MaskLabel
@pytest.mark.parametrize("ratio", [0.0, 1.0, 0.5])
def test_mask_label_ratio_mask(ratio):
    mask = np.array([True, False, True, True, False, True])
    torch.manual_seed(0)
    ref = pyg_nn.MaskLabel.ratio_mask(torch.from_numpy(mask), ratio).numpy()
    out = agnn.MaskLabel.ratio_mask(mask, ratio, 0)
    assert out.shape == ref.shape == mask.shape and out.dtype == ref.dtype == np.bool_
    assert not (out & ~mask).any()  # only set entries may stay set
    if ratio in (0.0, 1.0):
        np.testing.assert_array_equal(out, ref)
    empty = np.zeros(0, bool)
    assert agnn.MaskLabel.ratio_mask(empty, ratio, 0).shape == (0,)


def test_mask_label_ratio_mask_bad_ratio():
    mask = np.array([True, False])
    with pytest.raises(TypeError, match="MaskLabel.ratio_mask: ratio"):
        agnn.MaskLabel.ratio_mask(mask, "half")


# ------------------------------------------------------------------------------ norms
@pytest.mark.parametrize("p", [2.0, 1.0])
def test_message_norm_fixed_scale(p):
    module = pyg_nn.norm.MessageNorm(learn_scale=False).double()
    layer = agnn.from_pyg(module)
    assert not layer.learn_scale
    gen = np.random.default_rng(12)
    x, msg = gen.standard_normal((4, 3)), gen.standard_normal((4, 3))
    with torch.no_grad():
        expected = _np(module(_t(x), _t(msg), p=p))
    np.testing.assert_allclose(layer(x, msg, p=p), expected, rtol=1e-12)


def test_graph_size_and_mean_subtraction_norms_without_batch():
    gen = np.random.default_rng(13)
    x = gen.standard_normal((5, 3))
    for ref, ours in [
        (pyg_nn.norm.GraphSizeNorm(), agnn.GraphSizeNorm()),
        (pyg_nn.norm.MeanSubtractionNorm(), agnn.MeanSubtractionNorm()),
    ]:
        expected = _np(ref(_t(x)))
        np.testing.assert_allclose(ours(x), expected, rtol=1e-12, atol=1e-15)
    # dim_size larger than the ids: PyG's scatter pads, the padded graphs are unused
    batch = np.array([0, 0, 2, 2, 2])
    expected = _np(pyg_nn.norm.MeanSubtractionNorm()(_t(x), _t(batch), dim_size=4))
    np.testing.assert_allclose(agnn.MeanSubtractionNorm()(x, batch, dim_size=4), expected,
                               rtol=1e-12, atol=1e-15)  # fmt: skip
    expected = _np(pyg_nn.norm.GraphSizeNorm()(_t(x), _t(batch), batch_size=4))
    np.testing.assert_allclose(agnn.GraphSizeNorm()(x, batch, batch_size=4), expected,
                               rtol=1e-12)  # fmt: skip


# ------------------------------------------------------------------------------ GroupAddRev
def test_group_add_rev_four_groups_and_inverse():
    torch.manual_seed(6)
    ref = _perturb(pyg_nn.GroupAddRev(pyg_nn.GraphConv(2, 2), num_groups=4), np.float64)
    ours = agnn.from_pyg(ref)
    gen = np.random.default_rng(14)
    x = gen.standard_normal((6, 8))
    ei = np.array([[0, 1, 2, 3, 4, 5, 5], [1, 2, 3, 4, 5, 0, 5]])
    with torch.no_grad():
        expected = _np(ref(_t(x).clone(), _t(ei)))
        back = _np(ref.inverse(torch.tensor(expected), _t(ei)))
    out = ours(x, ei)
    assert rel_err(out, expected) < 1e-12
    np.testing.assert_allclose(ours.inverse(out, ei), back, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.inverse(out, ei), x, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="GroupAddRev"):
        ours(x[:, :6], ei)  # 6 channels do not split in 4


# ------------------------------------------------------------------------------ RENet
@pytest.mark.parametrize("seq_len", [1, 2])
def test_renet_seq_len_and_no_dropout(seq_len):
    from torch_geometric.data import Batch as PygBatch
    from torch_geometric.data import Data as PygData

    from arraygnn.batch import Batch
    from arraygnn.data import Data

    gen = np.random.default_rng(15)
    events = np.stack([gen.integers(0, 5, 30), gen.integers(0, 2, 30), gen.integers(0, 5, 30),
                       np.sort(gen.integers(0, 8, 30))], axis=1)  # fmt: skip
    p_tf, o_tf = pyg_nn.RENet.pre_transform(seq_len), agnn.RENet.pre_transform(seq_len)
    pyg, ours = [], []
    for s, r, o, t in events:
        pyg.append(p_tf(PygData(sub=torch.tensor(s), rel=torch.tensor(r), obj=torch.tensor(o),
                                t=torch.tensor(t))))  # fmt: skip
        ours.append(o_tf(Data(sub=np.int64(s), rel=np.int64(r), obj=np.int64(o),
                              t=np.int64(t))))  # fmt: skip
    torch.manual_seed(7)
    ref = _perturb(pyg_nn.RENet(5, 2, 4, seq_len, dropout=0.0), np.float64)
    model = agnn.from_pyg(ref)
    p_batch = PygBatch.from_data_list(pyg[20:], follow_batch=["h_sub", "h_obj"])
    o_batch = Batch.from_data_list(ours[20:], follow_batch=["h_sub", "h_obj"])
    with torch.no_grad():
        expected = [_np(a) for a in ref(p_batch)]
    for a, b in zip(model(o_batch), expected):
        assert a.shape == b.shape and rel_err(a, b) < 1e-10


# ------------------------------------------------------------------------------ bad numbers
@pytest.mark.parametrize(
    "build,arg",
    [
        (lambda v: agnn.SchNet(4, 4, 1, 2, cutoff=v), "SchNet: cutoff"),
        (lambda v: agnn.SchNet(4, 4, 1, 2, mean=v, std=1.0), "SchNet: mean"),
        (lambda v: agnn.SchNet(4, 4, 1, 2, mean=0.0, std=v), "SchNet: std"),
        (lambda v: agnn.SchNet(4, 4, 1, 2, scale=v), "SchNet: scale"),
        (
            lambda v: agnn.ViSNet(hidden_channels=4, num_heads=2, num_layers=1, mean=v),
            "ViSNet: mean",
        ),
        (lambda v: agnn.ViSNet(hidden_channels=4, num_heads=2, num_layers=1, std=v), "ViSNet: std"),
        (
            lambda v: agnn.ViSNet(hidden_channels=4, num_heads=2, num_layers=1, cutoff=v),
            "ViSNet(Block)?: cutoff",
        ),
        (lambda v: agnn.AttentiveFP(2, 4, 1, 1, 1, 1, dropout=v), "AttentiveFP: dropout"),
        (lambda v: agnn.DeepGCNLayer(agnn.GCNConv(2, 2), dropout=v), "DeepGCNLayer: dropout"),
        (lambda v: agnn.RENet(3, 2, 4, 2, dropout=v), "RENet: dropout"),
    ],
)
def test_non_number_options_named(build, arg):
    """PyG takes these as Python floats; a string or None used to fail in ``float()``
    without the argument's name."""
    for bad in ("0.5", None):
        if bad is None and "SchNet: " in arg and arg.split(": ")[1] in ("mean", "std", "scale"):
            continue  # None is the default there: no de-standardisation / scale
        with pytest.raises(TypeError, match=arg):
            build(bad)
