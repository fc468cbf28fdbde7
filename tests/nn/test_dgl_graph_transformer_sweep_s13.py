"""Parity sweep of DGL's graph-transformer modules over options the journey tests
(``test_dgl_graph_transformer.py``) leave at their defaults: ``BiasedMHA`` without
projection biases / one head / multiplicative bias with infinite entries under the mask,
``GraphormerLayer`` with ``mul`` bias and other activations, ``EGTLayer`` with 0 / several
virtual nodes, ``DegreeEncoder`` / ``SpatialEncoder`` / ``PathEncoder`` clipping,
``SpatialEncoder3d`` kernel and node-type counts, ``LapPosEncoder``'s DeepSet path.

DGL is not installed: each reference below is NumPy written from DGL's sources
(dmlc/dgl @ 3d16000b, python/dgl/nn/pytorch/gt/{biased_mha,graphormer,egt,degree_encoder,
spatial_encoder,path_encoder,lap_pos_encoder}.py), fed the layer's own weights under DGL's
parameter names (``state_dict``), on batched padded inputs built with ``shortest_dist``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import erf

import arraygnn.nn as agnn
from arraygnn.graph import graph as make_graph
from arraygnn.graph import shortest_dist

TOL = {np.float32: 2e-5, np.float64: 1e-11}
SIZES = (4, 1, 6)


# ---- NumPy pieces of torch's modules ------------------------------------------------------
def lin(x, w, name):
    out = x @ w[f"{name}.weight"].T
    return out + w[f"{name}.bias"] if f"{name}.bias" in w else out


def layer_norm(x, w, name, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w[f"{name}.weight"] + w[f"{name}.bias"]


def t_softmax(x, axis):
    """torch.softmax: a slice that is all ``-inf`` gives NaN."""
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


ACTS = {
    "relu": lambda x: np.maximum(x, 0),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "gelu": lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))),
    "tanh": np.tanh,
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
}


def weights(layer, seed):
    """Random weights (0.5 N(0, 1)) loaded into ``layer``; returns them in float64."""
    rng = np.random.default_rng(seed)
    sd = layer.state_dict()
    new = {k: (0.5 * rng.standard_normal(v.shape)).astype(v.dtype) for k, v in sd.items()}
    for k in new:
        if k.endswith("running_var"):
            new[k] = np.abs(new[k]) + 0.5
    layer.load_state_dict(new)
    return {k: v.astype(np.float64) for k, v in new.items()}


def check(ours, ref, dtype):
    assert ours.dtype == np.dtype(dtype), (ours.dtype, dtype)
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    np.testing.assert_allclose(ours, ref, rtol=TOL[dtype], atol=TOL[dtype])


# ---- batched, padded graph inputs (DGL's Graphormer recipes) ------------------------------
def graphs(seed):
    rng = np.random.default_rng(seed)
    out = []
    for n in SIZES:
        m = 2 * n
        out.append(make_graph((rng.integers(0, n, m), rng.integers(0, n, m)), num_nodes=n))
    return out


def padded_dist(gs):
    """``-1``-padded ``[B, N, N]`` distances and the node mask ``[B, N]``."""
    n = max(g.num_nodes() for g in gs)
    dist = -np.ones((len(gs), n, n), np.int64)
    real = np.zeros((len(gs), n), bool)
    for i, g in enumerate(gs):
        k = g.num_nodes()
        dist[i, :k, :k] = shortest_dist(g)
        real[i, :k] = True
    return dist, real


def blocked_keys(real):
    """DGL's ``attn_mask``: padded keys blocked; padded query rows keep their diagonal."""
    n = real.shape[1]
    blocked = np.broadcast_to(~real[:, None, :], (real.shape[0], n, n)).copy()
    blocked[:, np.arange(n), np.arange(n)] = False
    return blocked


# ---- BiasedMHA / GraphormerLayer (biased_mha.py, graphormer.py) ---------------------------
def ref_biased_mha(w, x, heads, bias_type, attn_bias=None, attn_mask=None, pre=""):
    b, n, f = x.shape
    d = f // heads

    def split(name):
        return lin(x, w, pre + name).reshape(b, n, heads, d).transpose(0, 2, 1, 3)

    q = split("q_proj") * d**-0.5
    s = (q @ split("k_proj").transpose(0, 1, 3, 2)).transpose(0, 2, 3, 1)  # [B, N, N, H]
    if attn_bias is not None:
        with np.errstate(invalid="ignore"):
            s = s + attn_bias if bias_type == "add" else s * attn_bias
    if attn_mask is not None:
        s[attn_mask.astype(bool)] = -np.inf  # overwritten, whatever the bias made there
    a = t_softmax(s, 2).transpose(0, 3, 1, 2)  # [B, H, N, N]
    out = (a @ split("v_proj")).transpose(0, 2, 1, 3).reshape(b, n, f)
    return lin(out, w, pre + "out_proj")


def ref_graphormer(w, x, heads, bias_type, norm_first, act, attn_bias, attn_mask):
    def attn(h):
        return ref_biased_mha(w, h, heads, bias_type, attn_bias, attn_mask, "attn.")

    def ffn(h):
        return lin(ACTS[act](lin(h, w, "ffn.0")), w, "ffn.3")

    if norm_first:
        h = x + attn(layer_norm(x, w, "attn_layer_norm"))
        return h + ffn(layer_norm(h, w, "ffn_layer_norm"))
    h = layer_norm(x + attn(x), w, "attn_layer_norm")
    return layer_norm(h + ffn(h), w, "ffn_layer_norm")


def mha_inputs(heads, f, seed):
    rng = np.random.default_rng(seed)
    dist, real = padded_dist(graphs(seed))
    x = rng.standard_normal(real.shape + (f,)) * real[..., None]
    bias = rng.standard_normal(dist.shape + (heads,))
    bias[dist < 0] = 0
    return x, bias, blocked_keys(real)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "use_bias,bias_type,heads,mask_kind",
    [
        (False, "add", 1, "bool"),
        (True, "mul", 4, "float"),
        (False, "mul", 2, None),
        (True, "add", 2, "uint8"),
    ],
)
def test_biased_mha_options(dtype, use_bias, bias_type, heads, mask_kind):
    x, bias, blocked = mha_inputs(heads, 8, seed=1)
    layer = agnn.BiasedMHA(8, heads, bias=use_bias, attn_bias_type=bias_type, dtype=dtype)
    w = weights(layer, 2)
    assert ("q_proj.bias" in w) == use_bias
    mask = None if mask_kind is None else blocked.astype(mask_kind)
    ref = ref_biased_mha(w, x, heads, bias_type, bias, mask)
    check(layer(x.astype(dtype), bias.astype(dtype), mask), ref, dtype)


@pytest.mark.parametrize("bias_type", ["add", "mul"])
def test_biased_mha_infinite_bias_under_mask(bias_type):
    """Graphormer pipelines pad ``attn_bias`` with ``-inf`` (or ``inf``) where the mask
    blocks: DGL writes ``-inf`` over those scores (``attn_weights[attn_mask] = -inf``), so
    whatever the bias made there (``inf * 0``, ``inf - inf``: NaN) never reaches a row."""
    x, bias, blocked = mha_inputs(2, 8, seed=3)
    bias[blocked] = np.inf if bias_type == "add" else -np.inf
    bias[..., 0][blocked] = -np.inf if bias_type == "add" else np.inf
    x[:, :, 0] = np.where(blocked.any(-1), 0.0, x[:, :, 0])
    layer = agnn.BiasedMHA(8, 2, attn_bias_type=bias_type, dtype=np.float64)
    w = weights(layer, 4)
    ref = ref_biased_mha(w, x, 2, bias_type, bias, blocked)
    assert np.isfinite(ref).all()
    check(layer(x, bias, blocked), ref, np.float64)


def test_biased_mha_fully_masked_row_is_nan_as_dgl():
    x, bias, blocked = mha_inputs(2, 8, seed=5)
    blocked[0, 1] = True  # DGL: "make sure at least one entry is set to False"
    layer = agnn.BiasedMHA(8, 2, dtype=np.float64)
    w = weights(layer, 6)
    ref = ref_biased_mha(w, x, 2, "add", bias, blocked)
    out = layer(x, bias, blocked)
    assert np.isnan(out[0, 1]).all() and np.isnan(ref[0, 1]).all()
    keep = ~np.isnan(ref)
    check(np.where(keep, out, 0), np.where(keep, ref, 0), np.float64)


@pytest.mark.parametrize(
    "norm_first,act,bias_type",
    [(True, "elu", "mul"), (False, "tanh", "mul"), (True, "leaky_relu", "add")],
)
def test_graphormer_layer_options(norm_first, act, bias_type):
    x, bias, blocked = mha_inputs(2, 8, seed=7)
    layer = agnn.GraphormerLayer(8, 12, 2, bias_type, norm_first, activation=act, dtype=np.float64)
    w = weights(layer, 8)
    ref = ref_graphormer(w, x, 2, bias_type, norm_first, act, bias, blocked)
    check(layer(x, bias, blocked), ref, np.float64)
    check(
        layer(x, bias),
        ref_graphormer(w, x, 2, bias_type, norm_first, act, bias, None),
        np.float64,
    )


# ---- EGTLayer (egt.py) --------------------------------------------------------------------
def ref_egt(w, x, e, heads, virtual, act, edge_update, mask):
    b, n, f = x.shape
    d = f // heads
    e_ln = layer_norm(e, w, "mha_ln_e")
    qkv = lin(layer_norm(x, w, "mha_ln_h"), w, "qkv_proj").reshape(b, n, 3 * d, heads)
    q, k, v = qkv[:, :, :d], qkv[:, :, d : 2 * d], qkv[:, :, 2 * d :]
    hat = np.clip(np.einsum("bldh,bmdh->blmh", q, k), -5, 5) + lin(e_ln, w, "edge_input")
    gates = lin(e_ln, w, "gate")
    if mask is None:
        gates = 1 / (1 + np.exp(-gates))
        tild = t_softmax(hat, 2) * gates
    else:
        gates = 1 / (1 + np.exp(-(gates + mask[..., None])))
        tild = t_softmax(hat + mask[..., None], 2) * gates
    va = np.einsum("blmh,bmkh->blkh", tild, v)
    scale = np.log(1 + gates.sum(2, keepdims=True))
    scale[:, :virtual] = 1.0
    va = (va * scale).reshape(b, n, d * heads)
    h = lin(va, w, "node_output") + x

    def ffn(z, name):
        z2 = ACTS[act](lin(layer_norm(z, w, f"{name}.0"), w, f"{name}.1"))
        return lin(z2, w, f"{name}.3") + z

    h = ffn(h, "node_ffn")
    if not edge_update:
        return h
    return h, ffn(lin(hat, w, "edge_output") + e, "edge_ffn")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "virtual,edge_update,act,heads,masked",
    [(0, True, "relu", 1, True), (3, False, "gelu", 4, False), (1, True, "tanh", 2, True)],
)
def test_egt_layer_options(dtype, virtual, edge_update, act, heads, masked):
    rng = np.random.default_rng(9)
    _, real = padded_dist(graphs(9))
    b = real.shape[0]
    real = np.concatenate([np.ones((b, virtual), bool), real], axis=1)  # virtual nodes first
    n = real.shape[1]
    x = rng.standard_normal((b, n, 8)) * real[..., None]
    e = rng.standard_normal((b, n, n, 3))
    mask = np.where(real[:, None, :], 0.0, -np.inf) * np.ones((b, n, 1)) if masked else None
    layer = agnn.EGTLayer(
        8, 3, heads, virtual, activation=act, edge_update=edge_update, dtype=dtype
    )
    w = weights(layer, 10)
    ref = ref_egt(w, x, e, heads, virtual, act, edge_update, mask)
    got = layer(x.astype(dtype), e.astype(dtype), None if mask is None else mask.astype(dtype))
    if edge_update:
        check(got[0], ref[0], dtype)
        check(got[1], ref[1], dtype)
    else:
        check(got, ref, dtype)


def test_egt_more_virtual_nodes_than_rows():
    """DGL's ``degree_scalers[:, :num_virtual_nodes] = 1`` past the end: every row."""
    rng = np.random.default_rng(11)
    x, e = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 3, 2))
    layer = agnn.EGTLayer(4, 2, 2, num_virtual_nodes=5, dtype=np.float64)
    w = weights(layer, 12)
    got = layer(x, e)
    ref = ref_egt(w, x, e, 2, 5, "elu", True, None)
    check(got[0], ref[0], np.float64)
    check(got[1], ref[1], np.float64)


# ---- DegreeEncoder / SpatialEncoder / PathEncoder -----------------------------------------
@pytest.mark.parametrize("direction,max_degree", [("in", 1), ("out", 0), ("both", 2)])
def test_degree_encoder_clipping(direction, max_degree):
    """degree_encoder.py: ``clamp(degrees, 0, max_degree)`` then the table rows; a negative
    degree reads row 0 (the padding row)."""
    gs = graphs(13)
    n = max(g.num_nodes() for g in gs)
    deg = np.zeros((2, len(gs), n), np.int64)
    for i, g in enumerate(gs):
        deg[0, i, : g.num_nodes()] = g.in_degrees()
        deg[1, i, : g.num_nodes()] = g.out_degrees()
    deg[:, 0, 0] = -3
    assert deg.max() > max_degree
    enc = agnn.DegreeEncoder(max_degree, 5, direction, dtype=np.float64)
    w = weights(enc, 14)
    c = np.clip(deg, 0, max_degree)
    if direction == "both":
        ref = w["encoder1.weight"][c[0]] + w["encoder2.weight"][c[1]]
        got = enc(deg.astype(np.int32))
    else:
        one = c[0] if direction == "in" else c[1]
        ref = w["encoder.weight"][one]
        got = enc(deg[0] if direction == "in" else deg[1])
    check(got, ref, np.float64)
    with pytest.raises(ValueError, match="DegreeEncoder: degrees must be"):
        enc(deg if direction != "both" else deg[0])
    with pytest.raises(TypeError, match="DegreeEncoder: degrees"):
        enc(deg.astype(np.float64))


@pytest.mark.parametrize("max_dist,heads", [(0, 3), (1, 1), (3, 2)])
def test_spatial_encoder_clipping(max_dist, heads):
    """spatial_encoder.py: ``table[clamp(dist, -1, max_dist) + 1]``: unreachable / padded
    ``-1`` (and anything below) read row 0, distances past ``max_dist`` its last row."""
    dist, _ = padded_dist(graphs(15))
    dist[0, 0, 1] = -7
    enc = agnn.SpatialEncoder(max_dist, heads, dtype=np.float64)
    w = weights(enc, 16)
    ref = w["embedding_table.weight"][np.clip(dist, -1, max_dist) + 1]
    check(enc(dist), ref, np.float64)
    check(enc(dist.astype(np.int16)), ref, np.float64)
    with pytest.raises(TypeError, match="SpatialEncoder: dist"):
        enc(dist.astype(np.float32))
    with pytest.raises(ValueError, match="SpatialEncoder: dist must be 3-d"):
        enc(dist[0])


@pytest.mark.parametrize("max_len,heads", [(1, 3), (2, 1), (4, 2)])
def test_path_encoder_padding(max_len, heads):
    """path_encoder.py: ``einsum('bxyld,lhd->bxyh', path_data, table.reshape(L, H, d))``
    over ``clamp(dist, 1, max_len)``: ``-1`` padded pairs and the diagonal divide by 1,
    paths longer than ``max_len`` by ``max_len``."""
    rng = np.random.default_rng(17)
    gs, fdim = graphs(17), 3
    dist, _ = padded_dist(gs)
    b, n = dist.shape[:2]
    path_data = np.zeros((b, n, n, max_len, fdim))
    for i, g in enumerate(gs):
        k = g.num_nodes()
        _, p = shortest_dist(g, return_paths=True)
        p = np.concatenate([p, -np.ones((k, k, max_len), np.int64)], -1)[..., :max_len]
        edata = np.concatenate([rng.standard_normal((g.num_edges(), fdim)), np.zeros((1, fdim))])
        path_data[i, :k, :k] = edata[p]  # -1: the appended zero row
    enc = agnn.PathEncoder(max_len, fdim, heads, dtype=np.float64)
    w = weights(enc, 18)
    table = w["embedding_table.weight"].reshape(max_len, heads, fdim)
    ref = np.einsum("bxyld,lhd->bxyh", path_data, table)
    ref = ref / np.clip(dist, 1, max_len)[..., None]
    check(enc(dist, path_data), ref, np.float64)
    check(enc(dist.astype(np.int8), path_data), ref, np.float64)
    with pytest.raises(ValueError, match="PathEncoder: path_data must have shape"):
        enc(dist, path_data[..., :-1])
    with pytest.raises(TypeError, match="PathEncoder: dist"):
        enc(dist.astype(np.float64), path_data)


# ---- SpatialEncoder3d (spatial_encoder.py) ------------------------------------------------
def ref_spatial3d(w, coord, node_type, max_node_type, act="gelu"):
    b, n = coord.shape[:2]
    dist = np.sqrt(((coord[:, :, None] - coord[:, None]) ** 2).sum(-1))
    if node_type is None:
        idx = np.zeros((b, n, n, 2), np.int64)
    else:
        src = np.repeat(node_type[:, :, None], n, 2)
        dst = np.repeat(node_type[:, None, :], n, 1)
        idx = np.stack([src + 2, dst + max_node_type + 3], -1)
    gamma = w["gamma.weight"][idx].sum(-2)
    beta = w["beta.weight"][idx].sum(-2)
    x = gamma * dist[..., None] + beta
    std = np.abs(w["stds"]) + 1e-2
    a = (2 * 3.14159) ** 0.5
    k = np.exp(-0.5 * ((x - w["means"]) / std) ** 2) / (a * std)
    return lin(ACTS[act](lin(k, w, "linear_layer_1")), w, "linear_layer_2")


@pytest.mark.parametrize("kernels,heads,max_node_type", [(1, 2, 1), (5, 1, 3), (3, 4, 7)])
def test_spatial_encoder3d_options(kernels, heads, max_node_type):
    rng = np.random.default_rng(19)
    _, real = padded_dist(graphs(19))
    coord = rng.standard_normal(real.shape + (3,)) * real[..., None]
    types = np.where(real, rng.integers(0, max_node_type, real.shape), -1)  # -1: padded node
    types[0, 0] = max_node_type - 1
    enc = agnn.SpatialEncoder3d(kernels, heads, max_node_type, dtype=np.float64)
    w = weights(enc, 20)
    check(enc(coord, types), ref_spatial3d(w, coord, types, max_node_type), np.float64)
    check(enc(coord), ref_spatial3d(w, coord, None, max_node_type), np.float64)
    for bad in (max_node_type, -2):
        wrong = types.copy()
        wrong[1, 0] = bad
        with pytest.raises(ValueError, match=r"SpatialEncoder3d: node_type must be in"):
            enc(coord, wrong)
    with pytest.raises(TypeError, match="SpatialEncoder3d: node_type"):
        enc(coord, types.astype(np.float64))


# ---- LapPosEncoder, DeepSet path (lap_pos_encoder.py) -------------------------------------
def ref_lap_deepset(w, eigvals, eigvecs, num_layer, batch_norm, post):
    pos = np.stack([eigvecs, eigvals], 2)
    empty = np.isnan(pos)
    pos[empty] = 0
    if batch_norm:  # BatchNorm1d(k) at eval on [N, k, 2]: channel = the pair index
        rm, rv = w["raw_norm.running_mean"], w["raw_norm.running_var"]
        g, bb = w["raw_norm.weight"], w["raw_norm.bias"]
        pos = (pos - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5) * g[:, None] + bb[:, None]
    pos = np.maximum(lin(pos, w, "linear"), 0)  # pe_encoder.0 is ReLU
    for j in range(1, 2 * (num_layer - 1), 2):
        pos = np.maximum(lin(pos, w, f"pe_encoder.{j}"), 0)
    pos[empty[:, :, 1]] = 0
    pos = pos.sum(1)
    for j in range(0, 2 * post, 2):
        pos = np.maximum(lin(pos, w, f"post_mlp.{j}"), 0)
    return pos


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("num_layer,batch_norm,post", [(2, True, 0), (4, False, 2), (2, False, 1)])
def test_lap_pos_encoder_deepset(dtype, num_layer, batch_norm, post):
    rng = np.random.default_rng(21)
    n, k, dim = 7, 4, 5
    eigvals = np.sort(rng.uniform(0, 2, (n, k)), 1)
    eigvecs = rng.standard_normal((n, k))
    eigvals[:3, 2:] = np.nan  # LapPE(padding=True): graphs with fewer than k eigenpairs
    eigvecs[:3, 2:] = np.nan
    eigvals[-1] = np.nan  # a node with every pair padded
    eigvecs[-1] = 0
    enc = agnn.LapPosEncoder("DeepSet", num_layer, k, dim, 1, batch_norm, post, dtype=dtype)
    w = weights(enc, 22)
    ref = ref_lap_deepset(w, eigvals, eigvecs, num_layer, batch_norm, post)
    vals, vecs = eigvals.astype(dtype), eigvecs.astype(dtype)
    before = vals.copy()
    check(enc(vals, vecs), ref, dtype)
    assert np.array_equal(vals, before, equal_nan=True)
    assert np.array_equal(enc(vals, vecs)[-1], np.zeros(dim, dtype)) or post
    with pytest.raises(TypeError, match="LapPosEncoder: eigvals"):
        enc(np.zeros((n, k), np.int64), eigvecs)


def test_lap_pos_encoder_fed_by_laplacian_pe():
    """DGL's recipe: ``lap_pe(g, k, padding=True, return_eigval=True)`` per graph, the
    eigenvalues repeated per node; a graph with fewer than ``k + 1`` nodes gets NaN
    eigenvalues (and zero vectors) in its trailing pairs, which the encoder drops."""
    from arraygnn.graph import laplacian_pe

    k, vals, vecs = 4, [], []
    for g in graphs(23):
        pe, val = laplacian_pe(g, k, padding=True, return_eigval=True, seed=0)
        vecs.append(pe)
        vals.append(np.broadcast_to(val, pe.shape))
    eigvals, eigvecs = np.concatenate(vals), np.concatenate(vecs)
    assert np.isnan(eigvals).any()
    enc = agnn.LapPosEncoder("DeepSet", 3, k, 6, batch_norm=True, num_post_layer=1)
    w = weights(enc, 24)
    ref = ref_lap_deepset(w, eigvals.astype(np.float64), eigvecs.astype(np.float64), 3, True, 1)
    check(enc(eigvals, eigvecs), ref, np.float32)
