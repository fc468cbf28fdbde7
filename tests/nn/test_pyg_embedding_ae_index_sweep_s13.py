"""Parity sweep (s13) of the embedding, auto-encoder and skip-gram modules against torch /
PyG 2.8.1 on options the other tests leave out: ``EmbeddingBag`` ``per_sample_weights`` /
``include_last_offset`` / ``padding_idx`` with every mode, ``GRUCell`` unbatched input,
``HeteroLinear`` ``is_sorted`` x ``bias`` x int32 types, ``ARGA`` / ``ARGVA``
``discriminator_loss`` and ``kl_loss`` forms, ``Node2Vec`` / ``MetaPath2Vec`` sample shapes
and losses on given walks, ``DeepGraphInfomax`` with a batched summary."""

from __future__ import annotations

import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import from_pyg, from_torch  # noqa: E402
from arraygnn.nn.autoencoders import ARGA, ARGVA, VGAE  # noqa: E402
from arraygnn.nn.deep_graph_infomax import DeepGraphInfomax  # noqa: E402
from arraygnn.nn.embedding import EmbeddingBag  # noqa: E402
from arraygnn.nn.linear import GRUCell  # noqa: E402


def _t(a):
    return None if a is None else torch.from_numpy(np.asarray(a))


# ---- EmbeddingBag ----------------------------------------------------------------------
FLAT = np.array([0, 5, 2, 0, 0, 5, 1])
OFFSETS = np.array([0, 3, 3, 5])  # an empty bag, then bags ending at 5 and at the end


@pytest.mark.parametrize("padding_idx", [None, 0, -1])
@pytest.mark.parametrize("form", ["1d", "2d", "last-offset"])
def test_embedding_bag_per_sample_weights_match_torch(form, padding_idx):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(
        6, 3, mode="sum", padding_idx=padding_idx, include_last_offset=form == "last-offset"
    ).eval()
    ours = from_torch(bag)
    if form == "2d":
        ids, offsets = FLAT[:6].reshape(2, 3), None
    else:
        ids = FLAT.astype(np.int32)
        offsets = OFFSETS if form == "1d" else np.append(OFFSETS, FLAT.size)
    w = np.linspace(-1.0, 2.0, ids.size).astype(np.float32).reshape(ids.shape)
    with torch.no_grad():
        ref = bag(_t(ids).long(), _t(offsets), per_sample_weights=_t(w)).numpy()
    kept = w.copy()
    np.testing.assert_allclose(ours(ids, offsets, w), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(w, kept)  # not mutated


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_modes_with_padding_and_last_offset(mode):
    torch.manual_seed(1)
    bag = torch.nn.EmbeddingBag(6, 3, mode=mode, padding_idx=5, include_last_offset=True)
    ours = from_torch(bag.eval())
    offsets = np.array([0, 3, 3, 5, 7])
    with torch.no_grad():
        ref = bag(_t(FLAT), _t(offsets)).numpy()
        ref2 = bag(_t(FLAT[:6].reshape(2, 3))).numpy()  # 2-D input: offsets not used
    np.testing.assert_allclose(ours(FLAT, offsets), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours(FLAT[:6].reshape(2, 3)), ref2, rtol=1e-6, atol=1e-6)


def test_embedding_bag_argument_errors():
    bag = EmbeddingBag(6, 3, mode="sum", rng=0)
    w = np.ones(FLAT.shape, np.float32)
    with pytest.raises(ValueError, match="per_sample_weights.*shape"):
        bag(FLAT, OFFSETS, w[:-1])  # torch: ValueError, same shape as input
    with pytest.raises(TypeError, match="per_sample_weights.*dtype"):
        bag(FLAT, OFFSETS, w.astype(np.float64))  # torch: RuntimeError on the dtypes
    with pytest.raises(TypeError, match="per_sample_weights"):
        bag(FLAT, OFFSETS, w.tolist())
    for mode in ("mean", "max"):  # torch: NotImplementedError, only mode='sum'
        with pytest.raises(ValueError, match="per_sample_weights.*mode='sum'"):
            EmbeddingBag(6, 3, mode=mode, rng=0)(FLAT, OFFSETS, w)
    # include_last_offset: torch's contract is offsets[-1] == len(input) (its mean / max
    # disagree with its sum otherwise); arraygnn raises naming offsets
    last = EmbeddingBag(6, 3, mode="mean", include_last_offset=True, rng=0)
    for offsets in (OFFSETS, np.array([0])):
        with pytest.raises(ValueError, match=r"offsets\[-1\] must equal"):
            last(FLAT, offsets)
    assert last(FLAT, np.array([0, 7])).shape == (1, 3)


# ---- GRUCell ---------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
def test_gru_cell_unbatched_matches_torch(bias, with_h):
    torch.manual_seed(0)
    cell = torch.nn.GRUCell(4, 3, bias=bias)
    ours = from_torch(cell)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4).astype(np.float32)
    h = rng.standard_normal(3).astype(np.float32) if with_h else None
    with torch.no_grad():
        ref = cell(_t(x), _t(h)).numpy()
    out = ours(x, h)
    assert out.shape == (3,)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_gru_cell_unbatched_needs_a_1d_h():
    cell = GRUCell(4, 3, rng=0)
    with pytest.raises(ValueError, match="1-D h"):  # torch: RuntimeError
        cell(np.ones(4, np.float32), np.ones((1, 3), np.float32))


# ---- HeteroLinear ----------------------------------------------------------------------
@pytest.mark.parametrize("is_sorted", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_hetero_linear_sorted_bias_int32(is_sorted, bias):
    torch.manual_seed(0)
    lin = pyg_nn.HeteroLinear(4, 3, num_types=4, is_sorted=is_sorted, bias=bias)
    if bias:
        torch.nn.init.normal_(lin.bias)
    ours = from_pyg(lin)
    assert ours.is_sorted is is_sorted
    x = np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32)
    types_ = np.array([0, 2, 2, 0, 1, 2, 0, 0], np.int32)  # type 3 has no row
    if is_sorted:
        types_ = np.sort(types_)
    with torch.no_grad():
        ref = lin(_t(x), _t(types_).long()).numpy()
    np.testing.assert_allclose(ours(x, types_), ref, rtol=1e-5, atol=1e-6)
    if is_sorted:
        with pytest.raises(ValueError, match="not sorted"):
            ours(x, types_[::-1].copy())


# ---- ARGA / ARGVA / VGAE ---------------------------------------------------------------
def _gcn_pair():
    torch.manual_seed(0)
    return pyg_nn.GCNConv(3, 2), pyg_nn.GCNConv(3, 2)


class _TorchEncoder(torch.nn.Module):
    def __init__(self, mu, logstd):
        super().__init__()
        self.mu, self.logstd = mu, logstd

    def forward(self, x, edge_index):
        return self.mu(x, edge_index), self.logstd(x, edge_index)


X = np.random.default_rng(5).standard_normal((5, 3)).astype(np.float32)
EI = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])


@pytest.mark.parametrize("kind", ["ARGA", "ARGVA"])
def test_discriminator_loss_matches_pyg(kind, monkeypatch):
    mu, logstd = _gcn_pair()
    disc = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    if kind == "ARGA":
        ref_model = pyg_nn.ARGA(mu, disc).eval()
        ours = ARGA(from_pyg(mu), from_torch(disc))
    else:
        ref_model = pyg_nn.ARGVA(_TorchEncoder(mu, logstd), disc).eval()
        mu_c, ls_c = from_pyg(mu), from_pyg(logstd)
        ours = ARGVA(lambda x, ei: (mu_c(x, ei), ls_c(x, ei)), from_torch(disc))
    with torch.no_grad():
        z_ref = ref_model.encode(_t(X), _t(EI))
    z = ours.encode(X, EI)
    np.testing.assert_allclose(z, z_ref.numpy(), rtol=1e-5, atol=1e-6)
    real_z = np.random.default_rng(9).standard_normal(z.shape).astype(np.float32)
    monkeypatch.setattr(torch, "randn_like", lambda t: _t(real_z))  # PyG's draw, fixed
    with torch.no_grad():
        ref = ref_model.discriminator_loss(z_ref).item()
        reg = ref_model.reg_loss(z_ref).item()
    assert float(ours.discriminator_loss(z, real_z)) == pytest.approx(ref, rel=1e-5)
    assert float(ours.reg_loss(z)) == pytest.approx(reg, rel=1e-5)
    drawn = ours.discriminator_loss(z, seed=3)  # seeded draw: reproducible, finite
    assert float(drawn) == float(ours.discriminator_loss(z, seed=3)) and np.isfinite(drawn)
    with pytest.raises(ValueError, match="real_z or seed"):
        ours.discriminator_loss(z, real_z, seed=3)
    with pytest.raises(ValueError, match="real_z"):
        ours.discriminator_loss(z, real_z[:2])


def test_vgae_kl_and_recon_forms_match_pyg():
    mu, logstd = _gcn_pair()
    ref_model = pyg_nn.VGAE(_TorchEncoder(mu, logstd)).eval()
    mu_c, ls_c = from_pyg(mu), from_pyg(logstd)
    ours = VGAE(lambda x, ei: (mu_c(x, ei), ls_c(x, ei)))
    with torch.no_grad():
        z_ref = ref_model.encode(_t(X), _t(EI))
    z = ours.encode(X, EI)
    rng = np.random.default_rng(2)
    m = rng.standard_normal((5, 2)).astype(np.float32)
    s = (rng.standard_normal((5, 2)) * 8).astype(np.float32)  # some past the clamp at 10
    with torch.no_grad():
        refs = [ref_model.kl_loss().item(), ref_model.kl_loss(_t(m)).item()]
        refs.append(ref_model.kl_loss(_t(m), _t(s)).item())
        neg = np.array([[0, 4, 2], [3, 0, 0]], np.int32)
        recon = ref_model.recon_loss(z_ref, _t(EI), _t(neg).long()).item()
    got = [float(ours.kl_loss()), float(ours.kl_loss(m)), float(ours.kl_loss(m, s))]
    np.testing.assert_allclose(got, refs, rtol=1e-5)
    assert float(ours.recon_loss(z, EI.astype(np.int32), neg)) == pytest.approx(recon, rel=1e-5)
    np.testing.assert_array_equal(ours.reparametrize(m, s), m)  # eval: mu, as PyG's


# ---- Node2Vec / MetaPath2Vec -----------------------------------------------------------
@pytest.fixture
def pyg_node2vec(monkeypatch):
    """PyG's Node2Vec needs pyg-lib only for its walks: build it without them."""
    import torch_geometric.nn.models.node2vec as n2v

    monkeypatch.setattr(n2v, "WITH_PYG_LIB", True)
    monkeypatch.setattr(torch.ops, "pyg", types.SimpleNamespace(random_walk=None), raising=False)
    return n2v.Node2Vec


N2V_EDGES = np.array([[0, 1, 1, 2, 3, 4, 5, 5], [1, 0, 2, 3, 4, 5, 0, 2]])


@pytest.mark.parametrize(
    "walk_length,context_size,walks_per_node,negatives",
    [(5, 5, 2, 3), (6, 3, 3, 1), (3, 2, 1, 2)],
)
def test_node2vec_sample_shapes_and_loss(
    pyg_node2vec, walk_length, context_size, walks_per_node, negatives
):
    torch.manual_seed(0)
    ref = pyg_node2vec(
        _t(N2V_EDGES), 4, walk_length, context_size, walks_per_node=walks_per_node,
        num_negative_samples=negatives, num_nodes=7,
    )  # fmt: skip
    ours = from_pyg(ref)
    batch = np.array([0, 3, 6], np.int32)  # node 6 has no out-edges
    pos, neg = ours.sample(batch, seed=0)
    windows = walk_length + 1 - context_size
    assert pos.shape == (3 * walks_per_node * windows, context_size)
    assert neg.shape == tuple(ref.neg_sample(_t(batch).long()).shape)
    for dt in (np.int64, np.int32):  # given walks of either id dtype; widths may differ
        p, n = pos.astype(dt), neg[:, : max(context_size - 1, 2)].astype(dt)
        with torch.no_grad():
            want = ref.loss(_t(p).long(), _t(n).long()).item()
        assert float(ours.loss(p, n)) == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("walk_length,context_size,walks_per_node,negatives", [(5, 3, 2, 2)])
def test_metapath2vec_sample_shapes_and_loss(walk_length, context_size, walks_per_node, negatives):
    torch.manual_seed(0)
    edges = {
        ("a", "to", "b"): torch.tensor([[0, 1, 2, 2], [0, 1, 1, 2]]),
        ("b", "to", "a"): torch.tensor([[0, 1, 2, 1], [1, 0, 2, 3]]),
    }
    ref = pyg_nn.MetaPath2Vec(
        edges, 4, list(edges), walk_length, context_size, walks_per_node=walks_per_node,
        num_negative_samples=negatives, num_nodes_dict={"a": 4, "b": 3},
    )  # fmt: skip
    ours = from_pyg(ref)
    batch = np.array([0, 3, 1])
    pos, neg = ours.sample(batch, seed=0)
    assert pos.shape == tuple(ref._pos_sample(_t(batch)).shape)
    assert neg.shape == tuple(ref._neg_sample(_t(batch)).shape)
    with torch.no_grad():
        want = ref.loss(_t(pos), _t(neg)).item()
        rows = ref("a", torch.tensor([3, 0])).numpy()
    assert float(ours.loss(pos.astype(np.int32), neg)) == pytest.approx(want, rel=1e-5)
    np.testing.assert_array_equal(ours("a", np.array([3, 0], np.int32)), rows)


# ---- DeepGraphInfomax ------------------------------------------------------------------
def test_deep_graph_infomax_batched_summary_matches_pyg():
    torch.manual_seed(0)
    conv = pyg_nn.GCNConv(3, 4)
    ref = pyg_nn.DeepGraphInfomax(4, conv, summary=lambda z, *a: z, corruption=lambda *a: a)
    ours = DeepGraphInfomax(4, from_pyg(conv), lambda z, *a: z, lambda *a: a, rng=0)
    ours.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()}, format="pyg")
    z = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    neg = z[::-1].copy()
    summary = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)  # (B, H)
    with torch.no_grad():
        scores = ref.discriminate(_t(z), _t(summary), sigmoid=False).numpy()
        loss = ref.loss(_t(z), _t(neg), _t(summary[0])).item()
    out = ours.discriminate(z, summary, sigmoid=False)
    assert out.shape == (5, 2)
    np.testing.assert_allclose(out, scores, rtol=1e-5, atol=1e-6)
    assert float(ours.loss(z, neg, summary[0])) == pytest.approx(loss, rel=1e-5)
