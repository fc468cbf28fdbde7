"""A PyG user's link-prediction / knowledge-graph journey on the model side, against
torch_geometric 2.8.1: GAE / VGAE around a custom (traced) GCN encoder, and the KGE models'
training-loop pieces (``random_sample``, ``loss``, ``loader`` / ``KGTripletLoader``)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric")

from torch_geometric.nn import GCNConv  # noqa: E402
from torch_geometric.nn import kge as pyg_kge  # noqa: E402

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.nn.kge import KGTripletLoader  # noqa: E402

KGE = [
    (pyg_kge.TransE, {"p_norm": 2.0, "margin": 0.5}),
    (pyg_kge.DistMult, {"margin": 2.0}),
    (pyg_kge.ComplEx, {}),
    (pyg_kge.RotatE, {"margin": 1.5}),
]


def _triples(n=9, r=3, m=7, dtype=np.int64):
    gen = np.random.default_rng(3)
    return tuple(gen.integers(0, k, m).astype(dtype) for k in (n, r, n))


# ------------------------------------------------------------------------- GAE / VGAE
class _Encoder(torch.nn.Module):
    def __init__(self, variational):
        super().__init__()
        self.variational = variational
        self.conv1 = GCNConv(5, 6)
        self.conv_mu = GCNConv(6, 3)
        self.conv_logstd = GCNConv(6, 3)

    def forward(self, x, edge_index):
        h = self.conv1(x, edge_index).relu()
        if self.variational:
            return self.conv_mu(h, edge_index), self.conv_logstd(h, edge_index)
        return self.conv_mu(h, edge_index)


@pytest.mark.parametrize("variational", [False, True])
def test_gae_vgae_with_traced_encoder_match_pyg(variational):
    from torch_geometric.nn import GAE, VGAE
    from torch_geometric.nn.fx import symbolic_trace

    torch.manual_seed(0)
    module = (VGAE if variational else GAE)(_Encoder(variational)).eval()
    model = (agnn.VGAE if variational else agnn.GAE)(agnn.from_pyg(symbolic_trace(module.encoder)))
    x = torch.randn(8, 5)
    ei = torch.tensor([[0, 1, 1, 2, 3, 4, 5, 6, 7, 0], [1, 0, 2, 1, 4, 3, 6, 5, 0, 7]])
    neg = torch.tensor([[0, 2, 3], [5, 6, 7]])
    with torch.no_grad():
        z = module.encode(x, ei)
        want = (z, module.decode(z, ei), module.decoder.forward_all(z))
        want_loss = module.recon_loss(z, ei, neg)
    got_z = model.encode(x.numpy(), ei.numpy())
    got = (got_z, model.decode(got_z, ei.numpy()), model.decoder.forward_all(got_z))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-5, atol=1e-6)
    assert float(model.recon_loss(got_z, ei.numpy(), neg.numpy())) == pytest.approx(
        float(want_loss), rel=1e-5
    )
    if variational:
        assert float(model.kl_loss()) == pytest.approx(float(module.kl_loss()), rel=1e-5)


# ------------------------------------------------------------------------------- KGE
@pytest.mark.parametrize("cls,kw", KGE, ids=lambda v: getattr(v, "__name__", ""))
def test_kge_loss_matches_pyg(cls, kw):
    torch.manual_seed(0)
    module = cls(9, 3, 4, **kw)
    model = agnn.from_pyg(module)
    h, r, t = _triples()
    th, tr, tt = (torch.from_numpy(a) for a in (h, r, t))
    torch.manual_seed(5)
    neg = module.random_sample(th, tr, tt)
    torch.manual_seed(5)  # the same negatives inside PyG's loss
    with torch.no_grad():
        want = float(module.loss(th, tr, tt))
    got = model.loss(h, r, t, neg=tuple(a.numpy() for a in neg))
    assert got.shape == () and got.dtype == np.float32
    assert float(got) == pytest.approx(want, rel=1e-5, abs=1e-6)
    # drawn from a seed: the negatives of random_sample with that seed
    drawn = model.loss(h, r, t, seed=1)
    assert float(drawn) == float(model.loss(h, r, t, neg=model.random_sample(h, r, t, seed=1)))


def test_kge_random_sample_layout_and_inputs_kept():
    model = agnn.TransE(50, 3, 4, rng=0)
    h, r, t = _triples(n=50, m=9, dtype=np.int32)
    before = [a.copy() for a in (h, r, t)]
    nh, nr, nt = model.random_sample(h, r, t, seed=0)
    for a, b in zip((h, r, t), before):
        np.testing.assert_array_equal(a, b)
    # PyG's layout: the first m // 2 triples get a random head, the others a random tail
    np.testing.assert_array_equal(nh[4:], h[4:])
    np.testing.assert_array_equal(nt[:4], t[:4])
    np.testing.assert_array_equal(nr, r)
    assert nh.dtype == nt.dtype == np.int32
    assert (nh[:4] != h[:4]).any() and (nt[4:] != t[4:]).any()
    assert 0 <= nh.min() and nh.max() < 50 and 0 <= nt.min() and nt.max() < 50
    again = model.random_sample(h, r, t, seed=0)
    np.testing.assert_array_equal(again[0], nh)
    np.testing.assert_array_equal(again[2], nt)


@pytest.mark.parametrize("drop_last", [False, True])
def test_kg_triplet_loader_matches_pyg(drop_last):
    module = pyg_kge.DistMult(9, 3, 4)
    model = agnn.from_pyg(module)
    h, r, t = _triples(m=8)
    want_loader = module.loader(
        *(torch.from_numpy(a) for a in (h, r, t)), batch_size=3, shuffle=True,
        drop_last=drop_last, generator=torch.Generator().manual_seed(4),
    )  # fmt: skip
    loader = model.loader(
        h, r, t, batch_size=3, shuffle=True, drop_last=drop_last,
        generator=torch.Generator().manual_seed(4),
    )  # fmt: skip
    assert isinstance(loader, KGTripletLoader)
    assert len(loader) == len(want_loader)
    for _ in range(2):  # two epochs
        got, want = list(loader), list(want_loader)
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert len(a) == 3
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y.numpy())
    plain = [tuple(x.tolist() for x in b) for b in KGTripletLoader(h, r, t, batch_size=5)]
    assert plain == [(h[:5].tolist(), r[:5].tolist(), t[:5].tolist()), (h[5:].tolist(),
                     r[5:].tolist(), t[5:].tolist())]  # fmt: skip


def test_kge_loss_and_loader_errors():
    model = agnn.ComplEx(5, 2, 3, rng=0)
    ok = np.array([0, 1, 2])
    with pytest.raises(ValueError, match="ComplEx.loss: neg"):
        model.loss(ok, ok % 2, ok, neg=(ok, ok))
    with pytest.raises(ValueError, match="ComplEx: tail_index"):
        model.loss(ok, ok % 2, ok, neg=(ok, ok % 2, ok + 3))
    with pytest.raises(ValueError, match="ComplEx: .*same length"):
        model.loader(ok, ok[:2], ok)
    with pytest.raises(ValueError, match="KGTripletLoader: .*same length"):
        KGTripletLoader(ok, ok[:2], ok)
    with pytest.raises(TypeError, match="KGTripletLoader: head_index"):
        KGTripletLoader(ok.astype(np.float32), ok, ok)
    with pytest.raises(TypeError, match="KGTripletLoader: unexpected keyword"):
        model.loader(ok, ok % 2, ok, batch_sise=2)
    with pytest.raises(TypeError, match="random_sample: seed"):
        model.random_sample(ok, ok % 2, ok, seed="x")
