"""``GPSConv`` and ``DNAConv`` against PyG (weights through ``from_pyg``; float32 within
1e-5 relative, float64 within 1e-12) on random batches of multigraphs with self-loops,
repeated edges, isolated nodes, an empty graph inside the batch, one-node graphs, no edges
at all, int32 / int64 ids; several local convs, norms and activations for GPS, heads /
groups / normalisation / caching for DNA; then errors naming the layer.

PyG's GPS runs with autograd on (outputs detached), the path torch documents for its
attention (under ``torch.no_grad`` torch takes a fused path).
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

import arraygnn.nn as agnn  # noqa: E402

DTYPES = [np.float32, np.float64]
C = 8


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)  # PyG's ids
    return torch.from_numpy(np.ascontiguousarray(a))


def _converted(make, dtype, seed=0):
    torch.manual_seed(seed)
    ref = make().to(torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-1.0, 1.0)
        for name, b in ref.named_buffers():
            if b.is_floating_point() and name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
            elif b.is_floating_point() and name.endswith("running_mean"):
                b.uniform_(-0.5, 0.5)
    ref.eval()
    layer = agnn.from_pyg(ref)
    names = sorted(k for k in ref.state_dict() if not k.endswith("num_batches_tracked"))
    assert sorted(layer.state_dict()) == names
    return ref, layer


def _check(got, want, dtype):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    assert np.isfinite(got).all()
    assert rel_err(got, want) <= TOL[dtype]


def _batch(rng, kind, index_dtype):
    """``(edge_index, batch)`` over graphs of sizes 7, 0 (empty), 1, 9, 1, 6 (24 nodes)."""
    sizes = [7, 0, 1, 9, 1, 6]
    batch = np.repeat(np.arange(len(sizes)), sizes)
    parts, start = [], 0
    for n in sizes:
        if n and kind != "no-edges":
            parts.append(random_graph(rng, n, num_edges=3 * n, isolated=1) + start)
        start += n
    ei = np.concatenate(parts, axis=1) if parts else np.zeros((2, 0), np.int64)
    return ei.astype(index_dtype), batch.astype(index_dtype)


GPS = {
    "gcn-batchnorm": lambda: pyg_nn.GPSConv(C, pyg_nn.GCNConv(C, C), heads=2),
    "gin-layernorm": lambda: pyg_nn.GPSConv(
        C,
        pyg_nn.GINConv(
            torch.nn.Sequential(torch.nn.Linear(C, C), torch.nn.ReLU(), torch.nn.Linear(C, C))
        ),
        heads=4,
        norm="layer_norm",
    ),
    "gat-graphnorm-gelu": lambda: pyg_nn.GPSConv(
        C, pyg_nn.GATConv(C, C // 2, heads=2), heads=1, norm="graph_norm", act="gelu"
    ),
    "attention-only-instancenorm": lambda: pyg_nn.GPSConv(
        C, None, heads=2, norm="instance_norm", norm_kwargs={"affine": True}
    ),
    "sage-nonorm-leaky": lambda: pyg_nn.GPSConv(
        C,
        pyg_nn.SAGEConv(C, C),
        heads=2,
        norm=None,
        act="leaky_relu",
        act_kwargs={"negative_slope": 0.3},
        attn_kwargs={"bias": False},
    ),
    "performer": lambda: pyg_nn.GPSConv(C, pyg_nn.GCNConv(C, C), heads=2, attn_type="performer"),
    "performer-elu-qkv-bias": lambda: pyg_nn.GPSConv(
        C,
        None,
        heads=4,
        norm="layer_norm",
        attn_type="performer",
        attn_kwargs={"head_channels": 4, "qkv_bias": True, "kernel": torch.nn.ELU()},
    ),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "no-edges"])
@pytest.mark.parametrize("name", list(GPS))
def test_gps_matches_pyg(name, kind, index_dtype, dtype):
    ref, layer = _converted(GPS[name], dtype)
    rng = np.random.default_rng(1)
    ei, batch = _batch(rng, kind, index_dtype)
    x = rng.standard_normal((batch.shape[0], C)).astype(dtype)
    before = x.copy()
    want = ref(_t(x), _t(ei), _t(batch)).detach().numpy()
    _check(layer(x, ei, batch), want, dtype)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gps_one_graph_and_conv_keywords(dtype):
    ref, layer = _converted(GPS["gcn-batchnorm"], dtype)
    rng = np.random.default_rng(2)
    ei = random_graph(rng, 12, num_edges=40)
    x = rng.standard_normal((12, C)).astype(dtype)
    w = rng.random(40).astype(dtype)
    want = ref(_t(x), _t(ei), None, edge_weight=_t(w)).detach().numpy()
    _check(layer(x, ei, None, edge_weight=w), want, dtype)


def test_gps_fresh_layer_and_state_round_trip():
    layer = agnn.GPSConv(C, agnn.GCNConv(C, C, rng=0), heads=2, norm="layer_norm", rng=1)
    ref = pyg_nn.GPSConv(C, pyg_nn.GCNConv(C, C), heads=2, norm="layer_norm").eval()
    assert sorted(layer.state_dict()) == sorted(ref.state_dict())
    ref.load_state_dict({k: torch.from_numpy(v) for k, v in layer.state_dict().items()})
    rng = np.random.default_rng(3)
    ei, batch = _batch(rng, "multi", np.int64)
    x = rng.standard_normal((batch.shape[0], C)).astype(np.float32)
    want = ref(_t(x), _t(ei), _t(batch)).detach().numpy()
    _check(layer(x, ei, batch), want, np.float32)


def test_gps_errors():
    with pytest.raises(ValueError, match="GPSConv: attn_type must be 'multihead' or"):
        agnn.GPSConv(C, None, attn_type="bigbird")
    with pytest.raises(ValueError, match="PerformerAttention kernel: cannot convert"):
        agnn.from_pyg(
            pyg_nn.GPSConv(C, None, attn_type="performer", attn_kwargs={"kernel": torch.nn.RReLU()})
        )
    with pytest.raises(ValueError, match="GPSConv: norm must be None or one of"):
        agnn.GPSConv(C, None, norm="no_such_norm")
    with pytest.raises(ValueError, match="GPSConv: act='relu' with act_kwargs"):
        agnn.GPSConv(C, None, act="relu", act_kwargs={"slope": 1.0})
    layer = agnn.GPSConv(C, agnn.GCNConv(C, 4, rng=0), rng=0)
    x = np.ones((4, C), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="GPSConv: conv must keep x's shape"):
        layer(x, ei)
    layer = agnn.GPSConv(C, None, rng=0)
    with pytest.raises(ValueError, match="GPSConv node features: expected last dimension 8"):
        layer(np.ones((4, 5), np.float32), ei)
    with pytest.raises(ValueError, match="batch must be sorted"):
        layer(x, ei, np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="batch must have shape \\(4,\\)"):
        layer(x, ei, np.array([0, 1, 1]))


# ---- DNAConv -----------------------------------------------------------------------------
DNA = {
    "heads2-groups4": dict(heads=2, groups=4),
    "heads4-groups1-noloops": dict(heads=4, groups=1, add_self_loops=False),
    "heads1-groups2-nobias": dict(heads=1, groups=2, bias=False),
    "heads8-groups2": dict(heads=8, groups=2),
}


def _dna_graph(rng, kind, index_dtype, n=20):
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    return random_graph(rng, n, num_edges=70, index_dtype=index_dtype, isolated=3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "empty"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", list(DNA))
def test_dna_matches_pyg(name, weighted, kind, index_dtype, dtype):
    ref, layer = _converted(lambda: pyg_nn.DNAConv(C, **DNA[name]), dtype)
    rng = np.random.default_rng(4)
    ei = _dna_graph(rng, kind, index_dtype)
    x = (2 * rng.standard_normal((20, 3, C))).astype(dtype)
    w = rng.random(ei.shape[1]).astype(dtype) if weighted else None
    before = x.copy()
    want = ref(_t(x), _t(ei), _t(w)).detach().numpy()
    _check(layer(x, ei, w), want, dtype)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dna_without_normalisation_and_one_layer(dtype):
    ref, layer = _converted(lambda: pyg_nn.DNAConv(C, 2, 2, normalize=False), dtype)
    rng = np.random.default_rng(5)
    ei = _dna_graph(rng, "multi", np.int64)
    w = rng.standard_normal(ei.shape[1]).astype(dtype)
    for layers in (1, 4):
        x = rng.standard_normal((20, layers, C)).astype(dtype)
        want = ref(_t(x), _t(ei), _t(w)).detach().numpy()
        _check(layer(x, ei, w), want, dtype)


def test_dna_cached_keeps_the_first_graph_as_pyg():
    ref, layer = _converted(lambda: pyg_nn.DNAConv(C, 2, cached=True), np.float64)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((20, 2, C))
    first, second = _dna_graph(rng, "multi", np.int64), _dna_graph(rng, "multi", np.int64)
    for ei in (first, second):
        want = ref(_t(x), _t(ei)).detach().numpy()
        _check(layer(x, ei), want, np.float64)
    # without normalize PyG caches nothing: each call uses its own graph and weights
    ref2, layer2 = _converted(
        lambda: pyg_nn.DNAConv(C, 2, cached=True, normalize=False), np.float64
    )
    for ei in (first, second):
        w = rng.random(ei.shape[1])
        _check(layer2(x, ei, w), ref2(_t(x), _t(ei), _t(w)).detach().numpy(), np.float64)
    layer.clear_cache()
    fresh = agnn.from_pyg(pyg_nn.DNAConv(C, 2).double().eval())
    fresh.load_state_dict(layer.state_dict())
    _check(layer(x, second), fresh(x, second), np.float64)


def test_dna_errors():
    with pytest.raises(ValueError, match="DNAConv: channels=8 must be divisible by heads=3"):
        agnn.DNAConv(8, heads=3)
    with pytest.raises(ValueError, match="DNAConv: heads=3 and groups=2 must divide"):
        agnn.DNAConv(6, heads=3, groups=2)
    conv = agnn.DNAConv(C, 2, rng=0)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="DNAConv: x must be \\[num_nodes, num_layers, 8\\]"):
        conv(np.ones((3, C), np.float32), ei)
    with pytest.raises(TypeError, match="DNAConv: x must be floating point"):
        conv(np.ones((3, 2, C), np.int64), ei)
    with pytest.raises(ValueError, match="DNAConv: normalize=False needs edge_weight"):
        agnn.DNAConv(C, normalize=False, rng=0)(np.ones((3, 2, C), np.float32), ei)
    with pytest.raises(ValueError, match="edge_index"):
        conv(np.ones((3, 2, C), np.float32), np.array([[0, 5], [1, 2]]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_performer_attention_matches_pyg_with_and_without_mask(dtype):
    from torch_geometric.nn.attention import PerformerAttention

    ref, layer = _converted(lambda: PerformerAttention(C, 2, head_channels=6), dtype)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 7, C)).astype(dtype)
    mask = rng.random((3, 7)) < 0.7
    _check(layer(x), ref(_t(x)).detach().numpy(), dtype)
    _check(layer(x, mask), ref(_t(x), mask=torch.from_numpy(mask)).detach().numpy(), dtype)
    with pytest.raises(ValueError, match="PerformerAttention: mask must be a bool array"):
        layer(x, mask[:, :3])
    with pytest.raises(ValueError, match="PerformerAttention: channels=8 must be divisible"):
        agnn.PerformerAttention(C, 3)
