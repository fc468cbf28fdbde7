"""PyG's knowledge-graph embeddings (TransE, DistMult, ComplEx, RotatE), Node2Vec,
MetaPath2Vec, the encodings and SchNet against torch_geometric 2.8.1, weights via
``from_pyg``."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric")

from torch_geometric.nn import kge as pyg_kge  # noqa: E402

from arraygnn.nn import (  # noqa: E402
    ComplEx,
    DistMult,
    MetaPath2Vec,
    Node2Vec,
    PositionalEncoding,
    RotatE,
    SchNet,
    TemporalEncoding,
    TransE,
    from_pyg,
)

DTYPES = [(torch.float32, np.float32, 1e-5), (torch.float64, np.float64, 1e-12)]
KGE = [
    (pyg_kge.TransE, {"p_norm": 1.0}),
    (pyg_kge.TransE, {"p_norm": 2.0}),
    (pyg_kge.TransE, {"p_norm": 3.0}),
    (pyg_kge.DistMult, {}),
    (pyg_kge.ComplEx, {}),
    (pyg_kge.RotatE, {"margin": 2.5}),
]


def _triples(gen, n, r, m, idx):
    return (
        gen.integers(0, n, m).astype(idx),
        gen.integers(0, r, m).astype(idx),
        gen.integers(0, n, m).astype(idx),
    )


def _unique_true_score(module, h, r, t):
    n = module.num_nodes
    row = module(torch.full((n,), int(h)), torch.full((n,), int(r)), torch.arange(n))
    return int((row == row[int(t)]).sum()) == 1


def _t(*arrays):
    return [torch.from_numpy(a.astype(np.int64)) for a in arrays]


# ------------------------------------------------------------------------------- KGE
@pytest.mark.parametrize("cls,kw", KGE, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_kge_forward_and_test_match_pyg(cls, kw, tdt, ndt, tol, idx):
    torch.manual_seed(0)
    module = cls(40, 5, 6, **kw).to(tdt)
    model = from_pyg(module)
    assert type(model).__name__ == cls.__name__
    assert model.node_emb.weight.dtype == ndt
    gen = np.random.default_rng(1)
    h, r, t = _triples(gen, 40, 5, 25, idx)
    ours = model(h, r, t)
    ref = module(*_t(h, r, t)).detach().numpy()
    assert ours.dtype == ref.dtype and ours.shape == (25,)
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol)
    # torch's argsort orders exact ties arbitrarily: compare the triples without a tie
    keep = [i for i in range(25) if _unique_true_score(module, h[i], r[i], t[i])]
    h, r, t = h[keep], r[keep], t[keep]
    want = module.test(*_t(h, r, t), batch_size=9, k=5, log=False)
    for batch_size in (1, 9, 40, 1000):
        got = model.test(h, r, t, batch_size=batch_size, k=5)
        assert got[0] == pytest.approx(want[0], rel=1e-6)
        assert got[1] == pytest.approx(want[1], rel=1e-6)
        assert got[2] == want[2]


def test_kge_empty_and_untouched_inputs():
    model = TransE(10, 2, 4, rng=0)
    e = np.zeros(0, np.int64)
    assert model(e, e, e).shape == (0,)
    assert all(np.isnan(v) for v in model.test(e, e, e, batch_size=4))
    h = np.array([1, 2, 3])
    before = h.copy()
    model.test(h, h % 2, h, batch_size=2)
    np.testing.assert_array_equal(h, before)


def test_kge_ties_rank_in_id_order():
    # all scores equal: a stable descending order, so the rank of tail t is t
    model = DistMult(6, 1, 3, rng=0)
    model.node_emb.weight[:] = 0
    h = np.zeros(4, np.int64)
    mean_rank, mrr, hits = model.test(h, h, np.array([0, 1, 2, 5]), batch_size=4, k=2)
    assert mean_rank == pytest.approx(2.0)
    assert mrr == pytest.approx(np.mean([1, 1 / 2, 1 / 3, 1 / 6]), rel=1e-6)
    assert hits == 0.5


@pytest.mark.parametrize("cls", [TransE, DistMult, ComplEx, RotatE])
def test_kge_bad_inputs(cls):
    model = cls(5, 2, 3, rng=0)
    ok = np.array([0, 1])
    name = cls.__name__
    with pytest.raises(ValueError, match=f"{name}: head_index"):
        model(np.array([0, 5]), ok, ok)
    with pytest.raises(ValueError, match=f"{name}: rel_type"):
        model(ok, np.array([2, 0]), ok)
    with pytest.raises(ValueError, match=f"{name}: tail_index"):
        model(ok, ok, np.array([-1, 0]))
    with pytest.raises(TypeError, match=f"{name}: head_index"):
        model(ok.astype(np.float32), ok, ok)
    with pytest.raises(ValueError, match="one length"):
        model(ok, ok[:1], ok)
    with pytest.raises(ValueError, match=f"{name}.test: batch_size"):
        model.test(ok, ok, ok, batch_size=0)
    with pytest.raises(ValueError, match=f"{name}: num_nodes"):
        cls(-1, 2, 3)


# --------------------------------------------------------------------------- encodings
@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
def test_encodings_match_pyg(tdt, ndt, tol):
    from torch_geometric.nn import encoding

    for module in (encoding.PositionalEncoding(6, granularity=0.5), encoding.TemporalEncoding(5)):
        module = module.to(tdt)
        layer = from_pyg(module)
        assert type(layer).__name__ == type(module).__name__
        x = torch.linspace(-3, 40, 11, dtype=tdt)
        np.testing.assert_allclose(layer(x.numpy()), module(x).numpy(), rtol=tol, atol=tol)
        assert layer(x.numpy()[:0]).shape == (0, module.out_channels)
    pe = encoding.PositionalEncoding(4).to(tdt)
    pos = torch.arange(7)
    out = from_pyg(pe)(pos.numpy())
    assert out.dtype == ndt
    np.testing.assert_allclose(out, pe(pos).numpy(), rtol=tol, atol=tol)


def test_encoding_errors():
    with pytest.raises(ValueError, match="even out_channels"):
        PositionalEncoding(5)
    with pytest.raises(TypeError, match="TemporalEncoding: x"):
        TemporalEncoding(4)(np.array(["a"]))
    with pytest.raises(ValueError, match="TemporalEncoding: out_channels"):
        TemporalEncoding(-2)


# --------------------------------------------------------------------------- Node2Vec
EDGES = np.array([[0, 1, 1, 2, 3, 3, 4], [1, 0, 2, 1, 4, 0, 3]])  # node 5: no out-edges


@pytest.fixture
def pyg_node2vec(monkeypatch):
    """PyG's Node2Vec needs pyg-lib only for its walks: build it without them."""
    import torch_geometric.nn.models.node2vec as n2v

    monkeypatch.setattr(n2v, "WITH_PYG_LIB", True)
    monkeypatch.setattr(torch.ops, "pyg", types.SimpleNamespace(random_walk=None), raising=False)
    return n2v.Node2Vec


def _follows_edges(windows, edges, num_nodes):
    out = {(int(a), int(b)) for a, b in edges.T}
    has_out = np.zeros(num_nodes, bool)
    has_out[edges[0]] = True
    for row in windows:
        for a, b in zip(row[:-1], row[1:]):
            assert (int(a), int(b)) in out or (a == b and not has_out[a])


@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
def test_node2vec_matches_pyg(pyg_node2vec, tdt, ndt, tol):
    torch.manual_seed(0)
    module = pyg_node2vec(
        torch.from_numpy(EDGES), 8, walk_length=5, context_size=3, walks_per_node=2,
        num_negative_samples=2, num_nodes=6,
    ).to(tdt)  # fmt: skip
    model = from_pyg(module)
    np.testing.assert_array_equal(model(), module().detach().numpy())
    batch = np.array([0, 5, 3])
    np.testing.assert_array_equal(model(batch), module(torch.from_numpy(batch)).detach().numpy())
    pos, neg = model.sample(batch, seed=3)
    # PyG's shapes: walks of walk_length nodes, walk_length + 1 - context_size windows each
    assert pos.shape == (3 * 2 * 3, 3) and neg.shape == (3 * 2 * 2 * 3, 3)
    ref = module.loss(torch.from_numpy(pos), torch.from_numpy(neg)).item()
    assert float(model.loss(pos, neg)) == pytest.approx(ref, rel=tol)


@pytest.mark.parametrize("p,q", [(1.0, 1.0), (0.5, 2.0)])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_node2vec_walks_follow_edges(p, q, idx):
    model = Node2Vec(EDGES.astype(idx), 4, 6, 2, walks_per_node=3, p=p, q=q, num_nodes=6, rng=0)
    batch = np.array([0, 1, 5, 3], dtype=idx)
    pos = model.pos_sample(batch, seed=7)
    assert pos.dtype == idx and pos.shape == (4 * 3 * 5, 2)
    np.testing.assert_array_equal(pos[:12, 0], np.tile(batch, 3))
    _follows_edges(pos, EDGES, 6)
    np.testing.assert_array_equal(pos, model.pos_sample(batch, seed=7))
    assert (pos[:12][np.tile(batch, 3) == 5] == 5).all()  # node 5 has no out-edge
    neg = model.neg_sample(batch, seed=1)
    assert neg.shape == (4 * 3 * 5, 2) and neg.min() >= 0 and neg.max() < 6
    np.testing.assert_array_equal(neg[:12, 0], np.tile(batch, 3))
    empty = model.pos_sample(batch[:0], seed=0)
    assert empty.shape == (0, 2)


def test_node2vec_loader_and_errors():
    model = Node2Vec(EDGES, 4, 3, 2, num_nodes=6, rng=0)
    loader = model.loader(batch_size=4, shuffle=True, seed=0)
    assert len(loader) == 2
    starts = np.concatenate([pos[: pos.shape[0] // 2, 0] for pos, _ in loader])
    assert sorted(starts.tolist()) == list(range(6))
    a = [p.tolist() for p, _ in model.loader(batch_size=4, shuffle=True, seed=5)]
    b = [p.tolist() for p, _ in model.loader(batch_size=4, shuffle=True, seed=5)]
    assert a == b
    assert len(model.loader(batch_size=4, drop_last=True)) == 1
    with pytest.raises(ValueError, match="Node2Vec: pass num_nodes"):
        Node2Vec(EDGES, 4, 3, 2)
    with pytest.raises(ValueError, match="walk_length"):
        Node2Vec(EDGES, 4, 2, 3, num_nodes=6)
    with pytest.raises(ValueError, match="Node2Vec: edge_index"):
        Node2Vec(EDGES, 4, 3, 2, num_nodes=4)
    with pytest.raises(ValueError, match="Node2Vec.pos_sample: batch"):
        model.pos_sample(np.array([6]))
    with pytest.raises(ValueError, match="Node2Vec: p"):
        Node2Vec(EDGES, 4, 3, 2, p=0.0, num_nodes=6)
    with pytest.raises(ValueError, match="Node2Vec: batch"):
        model(np.array([9]))


def test_node2vec_logistic_test():
    pytest.importorskip("sklearn")
    model = Node2Vec(EDGES, 4, 3, 2, num_nodes=6, rng=0)
    z = model()
    acc = model.test(z, np.array([0, 1, 0, 1, 0, 1]), z, np.array([0, 1, 0, 1, 0, 1]))
    assert 0.0 <= acc <= 1.0


# ------------------------------------------------------------------------ MetaPath2Vec
MP_EDGES = {
    ("author", "writes", "paper"): np.array([[0, 1, 1, 2], [0, 0, 2, 1]]),  # author 3: none
    ("paper", "written_by", "author"): np.array([[0, 0, 1, 2], [0, 1, 2, 1]]),
}
METAPATH = [("author", "writes", "paper"), ("paper", "written_by", "author")]
SIZES = {"author": 4, "paper": 3}


@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
def test_metapath2vec_matches_pyg(tdt, ndt, tol):
    from torch_geometric.nn import MetaPath2Vec as PygMetaPath2Vec

    torch.manual_seed(0)
    ei = {k: torch.from_numpy(v) for k, v in MP_EDGES.items()}
    module = PygMetaPath2Vec(
        ei, 5, METAPATH, walk_length=4, context_size=3, walks_per_node=2,
        num_negative_samples=2, num_nodes_dict=SIZES,
    ).to(tdt)  # fmt: skip
    model = from_pyg(module)
    assert model.start == module.start and model.end == module.end
    assert model.dummy_idx == module.dummy_idx
    np.testing.assert_array_equal(model.offset, module.offset.numpy())
    for t in ("author", "paper"):
        np.testing.assert_array_equal(model(t), module(t).detach().numpy())
    batch = np.array([0, 3, 2])
    np.testing.assert_array_equal(
        model("paper", batch[[0, 2]]),
        module("paper", torch.from_numpy(batch[[0, 2]])).detach().numpy(),
    )
    pos, neg = model.sample(batch, seed=0)
    tb = torch.from_numpy(batch)
    assert pos.shape == tuple(module._pos_sample(tb).shape)
    assert neg.shape == tuple(module._neg_sample(tb).shape)
    ref = module.loss(torch.from_numpy(pos), torch.from_numpy(neg)).item()
    assert float(model.loss(pos, neg)) == pytest.approx(ref, rel=tol)


@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_metapath2vec_walks_follow_metapath(idx):
    edges = {k: v.astype(idx) for k, v in MP_EDGES.items()}
    model = MetaPath2Vec(edges, 4, METAPATH, 5, 6, num_nodes_dict=SIZES, rng=0)
    batch = np.array([0, 1, 2, 3], dtype=idx)
    (rw,) = [model.pos_sample(batch, seed=3)]
    assert rw.shape == (4, 6) and rw.dtype == idx  # one window of the whole walk
    np.testing.assert_array_equal(rw[:, 0], batch + model.start["author"])
    for walk in rw:
        for i in range(5):
            a, b = int(walk[i]), int(walk[i + 1])
            if a == model.dummy_idx:
                assert b == model.dummy_idx
                continue
            e = METAPATH[i % 2]
            src, dst = a - model.start[e[0]], b - model.start[e[2]]
            if b == model.dummy_idx:
                assert src not in set(MP_EDGES[e][0].tolist())
            else:
                assert (src, dst) in set(map(tuple, MP_EDGES[e].T.tolist()))
    assert (rw[3, 1:] == model.dummy_idx).all()  # author 3 writes nothing
    neg = model.neg_sample(batch, seed=0)
    for i in range(1, 6):
        t = METAPATH[(i - 1) % 2][2]
        assert (neg[:, i] >= model.start[t]).all() and (neg[:, i] < model.end[t]).all()


def test_metapath2vec_errors():
    with pytest.raises(ValueError, match="num_nodes_dict"):
        MetaPath2Vec(MP_EDGES, 4, METAPATH, 3, 2)
    with pytest.raises(ValueError, match="invalid metapath"):
        MetaPath2Vec(MP_EDGES, 4, METAPATH[::-1] + METAPATH[:1], 3, 2, num_nodes_dict=SIZES)
    with pytest.raises(ValueError, match="cycle"):
        MetaPath2Vec(MP_EDGES, 4, METAPATH[:1], 3, 2, num_nodes_dict=SIZES)
    with pytest.raises(ValueError, match="context_size"):
        MetaPath2Vec(MP_EDGES, 4, METAPATH, 2, 4, num_nodes_dict=SIZES)
    bad = dict(MP_EDGES)
    bad[METAPATH[0]] = np.array([[0], [3]])
    with pytest.raises(ValueError, match="edge_index_dict"):
        MetaPath2Vec(bad, 4, METAPATH, 3, 2, num_nodes_dict=SIZES)
    model = MetaPath2Vec(MP_EDGES, 4, METAPATH, 3, 2, num_nodes_dict=SIZES, rng=0)
    with pytest.raises(KeyError, match="venue"):
        model("venue")
    with pytest.raises(ValueError, match="MetaPath2Vec.pos_sample: batch"):
        model.pos_sample(np.array([4]))


# ------------------------------------------------------------------------------ SchNet
@pytest.fixture
def schnet_mod(monkeypatch):
    """PyG's schnet module, its ``radius_graph`` (pyg-lib) replaced by arraygnn's so both
    models see one graph, and a stand-in ``ase`` for the dipole's masses."""
    import torch_geometric.nn.models.schnet as schnet

    from arraygnn.utils import radius_graph

    def torch_radius_graph(pos, r, batch=None, max_num_neighbors=32, **kwargs):
        b = None if batch is None else batch.numpy()
        out = radius_graph(pos.detach().numpy(), r, batch=b, max_num_neighbors=max_num_neighbors)
        return torch.from_numpy(out)

    monkeypatch.setattr(schnet, "radius_graph", torch_radius_graph)
    fake = types.ModuleType("ase")
    fake.data = types.SimpleNamespace(atomic_masses=np.random.default_rng(0).uniform(1, 200, 119))
    monkeypatch.setitem(sys.modules, "ase", fake)
    monkeypatch.setitem(sys.modules, "ase.data", fake.data)
    return schnet


SCHNET_CASES = {
    "add": {},
    "mean": {"readout": "mean"},
    "dipole": {"dipole": True},
    "atomref": {"mean": 1.5, "std": 2.0, "atomref": "random"},
}


@pytest.mark.parametrize("case", sorted(SCHNET_CASES))
@pytest.mark.parametrize("tdt,ndt,tol", DTYPES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_schnet_matches_pyg(schnet_mod, case, tdt, ndt, tol, idx):
    torch.manual_seed(0)
    kw = dict(SCHNET_CASES[case])
    if kw.get("atomref") == "random":
        kw["atomref"] = torch.randn(100, 1)
    module = schnet_mod.SchNet(16, 12, 2, 10, cutoff=3.0, max_num_neighbors=4, **kw)
    module = module.to(tdt) if tdt == torch.float64 else module  # float32: the mass stays f64
    for p in module.parameters():
        p.data.normal_()
    model = from_pyg(module)
    gen = np.random.default_rng(2)
    # molecules of 5, 0 (empty), 6 and 1 atoms
    sizes = [5, 0, 6, 1]
    batch = np.repeat(np.arange(4), sizes)
    z = gen.integers(1, 10, batch.shape[0])
    pos = (gen.standard_normal((batch.shape[0], 3)) * 1.5).astype(ndt)
    ref = module(torch.from_numpy(z), torch.from_numpy(pos), torch.from_numpy(batch))
    ref = ref.detach().numpy()
    out = model(z.astype(idx), pos, batch.astype(idx), batch_size=4)
    assert out.shape == ref.shape == (4, 1) and out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, rtol=tol * 10, atol=tol * 10)
    # one molecule, no batch
    ref1 = module(torch.from_numpy(z[:5]), torch.from_numpy(pos[:5])).detach().numpy()
    np.testing.assert_allclose(
        model(z[:5].astype(idx), pos[:5]), ref1, rtol=tol * 10, atol=tol * 10
    )
    # a single atom: no edges
    ref2 = module(torch.from_numpy(z[:1]), torch.from_numpy(pos[:1])).detach().numpy()
    np.testing.assert_allclose(
        model(z[:1].astype(idx), pos[:1]), ref2, rtol=tol * 10, atol=tol * 10
    )


def test_schnet_empty_batches(schnet_mod):
    model = from_pyg(schnet_mod.SchNet(8, 8, 1, 5, cutoff=2.0))
    z, pos = np.zeros(0, np.int64), np.zeros((0, 3), np.float32)
    assert model(z, pos, z, batch_size=0).shape == (0, 1)
    out = model(z, pos, z, batch_size=2)
    np.testing.assert_array_equal(out, np.zeros((2, 1), np.float32))
    assert model(z, pos).shape == (1, 1)  # no batch: one (empty) molecule


def test_schnet_pieces_match_pyg(schnet_mod):
    from arraygnn.nn.schnet import GaussianSmearing, ShiftedSoftplus

    x = torch.linspace(-30, 30, 41)
    np.testing.assert_allclose(
        ShiftedSoftplus()(x.numpy()), schnet_mod.ShiftedSoftplus()(x).numpy(), rtol=1e-6, atol=1e-7
    )
    ref = schnet_mod.GaussianSmearing(0.0, 4.0, 7)
    ours = GaussianSmearing(0.0, 4.0, 7)
    d = torch.rand(9) * 4
    np.testing.assert_allclose(ours(d.numpy()), ref(d).numpy(), rtol=1e-6, atol=1e-7)


def test_schnet_bad_inputs(schnet_mod):
    model = SchNet(8, 8, 1, 5, cutoff=2.0, rng=0)
    z, pos, batch = np.array([1, 6, 8]), np.zeros((3, 3), np.float32), np.array([0, 0, 1])
    np.testing.assert_array_equal(model(z, pos, batch), model(z, pos, batch, 2))  # as PyG
    with pytest.raises(ValueError, match="SchNet: batch"):
        model(z, pos, batch, batch_size=1)
    with pytest.raises(ValueError, match="SchNet: z"):
        model(np.array([1, 100, 2]), pos)
    with pytest.raises(TypeError, match="SchNet: z"):
        model(z.astype(np.float32), pos)
    with pytest.raises(ValueError, match="SchNet: pos"):
        model(z, pos[:2])
    with pytest.raises(TypeError, match="SchNet: pos"):
        model(z, pos.astype(np.float64))
    with pytest.raises(ValueError, match="SchNet: readout"):
        SchNet(readout="median")
    with pytest.raises(ValueError, match="SchNet: cutoff"):
        SchNet(cutoff=0.0)
    with pytest.raises(ValueError, match="SchNet: atomref"):
        SchNet(atomref=np.zeros(5))
    custom = schnet_mod.SchNet(8, 8, 1, 5, interaction_graph=lambda pos, batch: None)
    with pytest.raises(ValueError, match="custom interaction_graph"):
        from_pyg(custom)


def test_schnet_custom_graph_and_pair_sharing():
    # the filter network once per atom pair gives what it gives once per edge
    from arraygnn.nn.schnet import RadiusInteractionGraph

    model = SchNet(8, 8, 2, 5, cutoff=2.5, max_num_neighbors=3, rng=0)
    gen = np.random.default_rng(0)
    z, pos = gen.integers(1, 9, 9), gen.standard_normal((9, 3))
    batch = np.repeat(np.arange(3), 3)
    model = model.astype(np.float64)
    want = model(z, pos, batch, batch_size=3)
    graph = RadiusInteractionGraph(2.5, 3)

    def one_direction(p, b, size):
        ei, w = graph(p, b, size)
        keep = ei[0] < ei[1]  # each pair once, both directions as separate lengths
        ei2 = np.concatenate([ei[:, keep], ei[::-1, keep]], axis=1)
        w2 = np.concatenate([w[keep], w[keep] * (1 + 1e-12)])  # not bitwise symmetric
        return ei2, w2

    model.interaction_graph = one_direction
    got = model(z, pos, batch, batch_size=3)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
