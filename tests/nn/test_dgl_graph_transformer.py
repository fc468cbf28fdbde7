"""DGL's graph-transformer modules (``dgl.nn.pytorch.gt``: DegreeEncoder, SpatialEncoder,
SpatialEncoder3d, PathEncoder, BiasedMHA, GraphormerLayer, EGTLayer), its Set Transformer
readouts (``glob.py``), ``JumpingKnowledge`` / ``WeightBasis`` / ``Sequential``
(``utils.py``) and ``dgl.shortest_dist``, against plain-torch transcriptions of DGL's
forwards (dgl/python/dgl/nn/pytorch/gt/*.py, glob.py, utils.py, transforms/functional.py).

DGL does not install here, so each reference is a ``torch.nn.Module`` with DGL's class name,
attributes and parameter names and DGL's forward; it is converted by ``from_dgl`` and both
run on random batched graphs padded as DGL's Graphormer pipelines do (zero-padded features
and degrees, ``-1``-padded distances, masks over padded nodes), int32 / int64 ids, float32
(1e-5 relative) and float64 (1e-10); plus bad-input errors naming layer and argument.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.graph import batch as batch_graphs
from arraygnn.graph import graph as make_graph
from arraygnn.graph import shortest_dist

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

DTYPES = [np.float32, np.float64]
TOLS = {np.float32: 1e-5, np.float64: 1e-10}


def tdt(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def randomize(module, seed=0):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
    return module.eval()


def close(ours, ref, dtype):
    ref = ref.detach().numpy()
    assert ours.dtype == np.dtype(dtype), (ours.dtype, dtype)
    assert rel_err(ours, ref) < TOLS[dtype], rel_err(ours, ref)


def to_t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# ---- batched graphs, padded as DGL's Graphormer examples ----------------------------------
SIZES = (5, 1, 7, 3)


def graph_batch(rng, index_dtype, sizes=SIZES):
    """Random multigraphs (self-loops, repeated edges, isolated nodes) of ``sizes`` nodes."""
    out = []
    for n in sizes:
        ei = random_graph(rng, n, num_edges=2 * n, index_dtype=index_dtype, isolated=1)
        out.append(make_graph((ei[0], ei[1]), num_nodes=n))
    return out


def padded(graphs, rng, feat=None, dtype=np.float32):
    """DGL's padding: ``dist`` ``-1``, degrees 0, features 0, node mask ``[B, N]``."""
    b, n = len(graphs), max(g.num_nodes() for g in graphs)
    dist = -np.ones((b, n, n), np.int64)
    deg = np.zeros((2, b, n), np.int64)
    mask = np.zeros((b, n), bool)
    x = np.zeros((b, n, feat), dtype) if feat else None
    for i, g in enumerate(graphs):
        k = g.num_nodes()
        dist[i, :k, :k] = shortest_dist(g)
        deg[0, i, :k] = g.in_degrees()
        deg[1, i, :k] = g.out_degrees()
        mask[i, :k] = True
        if feat:
            x[i, :k] = rng.standard_normal((k, feat))
    return dist, deg, mask, x


def pair_mask(node_mask):
    """DGL's ``attn_mask``: True where a key is padding; padded query rows keep their own
    diagonal open (DGL: at least one False per row)."""
    blocked = ~node_mask[:, None, :] & np.ones_like(node_mask)[:, :, None]
    n = node_mask.shape[1]
    blocked[:, np.arange(n), np.arange(n)] = False
    return blocked


# ---- shortest_dist: DGL's transformation, written out -------------------------------------
def dgl_shortest_dist(ei, n, root=None, return_paths=False):
    from scipy import sparse

    # g.adj_external(scipy_fmt="csr"): DGL's out-CSR from its COO, a stable sort on the
    # sources (rows in edge-id order, parallel edges kept, data ones)
    src, dst = ei[0].astype(np.int64), ei[1].astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    order = np.argsort(src, kind="stable")
    adj = sparse.csr_matrix((np.ones(src.shape[0]), dst[order], indptr), shape=(n, n))
    if root is None:
        dist, pred = sparse.csgraph.shortest_path(
            adj, return_predecessors=True, unweighted=True, directed=True
        )
    else:
        dist, pred = sparse.csgraph.dijkstra(
            adj, directed=True, indices=root, return_predecessors=True, unweighted=True
        )
    dist[np.isinf(dist)] = -1
    if not return_paths:
        return dist.astype(np.int64)
    first = {}
    for e in range(ei.shape[1]):  # edge_ids: the smallest id of parallel edges
        first.setdefault((int(ei[0, e]), int(ei[1, e])), e)
    max_len = int(dist[~np.isinf(dist)].max())
    roots = list(range(n)) if root is None else [root]
    paths = -np.ones([len(roots), n, max_len], dtype=np.int64)
    for a, i in enumerate(roots):
        p = pred[i] if root is None else pred
        for j in range(n):
            if p[j] < 0:
                continue
            nodes = [j]
            while nodes[-1] != i:
                nodes.append(p[nodes[-1]])
            nodes.reverse()
            for s in range(len(nodes) - 1):
                paths[a, j, s] = first[(nodes[s], nodes[s + 1])]
    if root is not None:
        paths = paths[0]
    return dist.astype(np.int64), paths


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_shortest_dist(index_dtype):
    rng = np.random.default_rng(0)
    for n, m in ((9, 20), (6, 0), (1, 1), (12, 40)):
        ei = random_graph(rng, n, num_edges=m, index_dtype=index_dtype, isolated=1)
        g = make_graph((ei[0], ei[1]), num_nodes=n)
        assert np.array_equal(shortest_dist(g), dgl_shortest_dist(ei, n))
        dist, paths = shortest_dist(g, return_paths=True)
        rdist, rpaths = dgl_shortest_dist(ei, n, return_paths=True)
        assert dist.dtype == paths.dtype == np.int64
        assert np.array_equal(dist, rdist) and np.array_equal(paths, rpaths)
        root = n - 1
        assert np.array_equal(shortest_dist(g, root=root), dgl_shortest_dist(ei, n, root))
        d1, p1 = shortest_dist(g, root=np.int64(root), return_paths=True)
        r1, q1 = dgl_shortest_dist(ei, n, root, return_paths=True)
        assert np.array_equal(d1, r1) and np.array_equal(p1, q1)
    with pytest.raises(ValueError, match="shortest_dist: root"):
        shortest_dist(g, root=n)
    with pytest.raises(TypeError, match="shortest_dist: root"):
        shortest_dist(g, root=1.0)


# ---- 1. DegreeEncoder / SpatialEncoder / PathEncoder --------------------------------------
class DegreeEncoder(nn.Module):
    def __init__(self, max_degree, embedding_dim, direction="both"):
        super().__init__()
        self.direction = direction
        if direction == "both":
            self.encoder1 = nn.Embedding(max_degree + 1, embedding_dim, padding_idx=0)
            self.encoder2 = nn.Embedding(max_degree + 1, embedding_dim, padding_idx=0)
        else:
            self.encoder = nn.Embedding(max_degree + 1, embedding_dim, padding_idx=0)
        self.max_degree = max_degree

    def forward(self, degrees):
        degrees = torch.clamp(degrees, min=0, max=self.max_degree)
        if self.direction in ("in", "out"):
            return self.encoder(degrees)
        return self.encoder1(degrees[0]) + self.encoder2(degrees[1])


class SpatialEncoder(nn.Module):
    def __init__(self, max_dist, num_heads=1):
        super().__init__()
        self.max_dist, self.num_heads = max_dist, num_heads
        self.embedding_table = nn.Embedding(max_dist + 2, num_heads, padding_idx=0)

    def forward(self, dist):
        return self.embedding_table(torch.clamp(dist, min=-1, max=self.max_dist) + 1)


class PathEncoder(nn.Module):
    def __init__(self, max_len, feat_dim, num_heads=1):
        super().__init__()
        self.max_len, self.feat_dim, self.num_heads = max_len, feat_dim, num_heads
        self.embedding_table = nn.Embedding(max_len * num_heads, feat_dim)

    def forward(self, dist, path_data):
        shortest_distance = torch.clamp(dist, min=1, max=self.max_len)
        edge_embedding = self.embedding_table.weight.reshape(self.max_len, self.num_heads, -1)
        return torch.div(
            torch.einsum("bxyld,lhd->bxyh", path_data, edge_embedding).permute(3, 0, 1, 2),
            shortest_distance,
        ).permute(1, 2, 3, 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_degree_and_spatial_encoders(dtype, index_dtype):
    rng = np.random.default_rng(1)
    dist, deg, _, _ = padded(graph_batch(rng, index_dtype), rng)
    dist, deg = dist.astype(index_dtype), deg.astype(index_dtype)
    for direction in ("both", "in", "out"):
        ref = randomize(DegreeEncoder(3, 6, direction)).to(tdt(dtype))
        ours = agnn.from_dgl(ref)
        assert isinstance(ours, agnn.DegreeEncoder)
        d = deg if direction == "both" else deg[0]
        close(ours(d), ref(to_t(d.astype(np.int64))), dtype)
    ref = randomize(SpatialEncoder(2, num_heads=4)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    close(ours(dist), ref(to_t(dist.astype(np.int64))), dtype)
    with pytest.raises(ValueError, match="DegreeEncoder: degrees must be 3-d"):
        agnn.from_dgl(randomize(DegreeEncoder(3, 6)))(deg[0])
    with pytest.raises(TypeError, match="SpatialEncoder: dist must be an integer"):
        ours(dist.astype(np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_path_encoder_on_shortest_paths(dtype, index_dtype):
    """DGL's docstring pipeline: ``edata[path[:, :, :max_len]]`` with a zero row for ``-1``."""
    rng = np.random.default_rng(2)
    graphs = graph_batch(rng, index_dtype)
    max_len, fdim = 3, 5
    b, n = len(graphs), max(g.num_nodes() for g in graphs)
    dist = np.zeros((b, n, n), index_dtype)
    path_data = np.zeros((b, n, n, max_len, fdim), dtype)
    for i, g in enumerate(graphs):
        k = g.num_nodes()
        d, p = shortest_dist(g, return_paths=True)
        p = np.concatenate([p, -np.ones((k, k, max_len), np.int64)], axis=-1)[..., :max_len]
        edata = np.concatenate([rng.standard_normal((g.num_edges(), fdim)), np.zeros((1, fdim))])
        dist[i, :k, :k] = d
        path_data[i, :k, :k] = edata[p]
    ref = randomize(PathEncoder(max_len, fdim, num_heads=2)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    close(ours(dist, path_data), ref(to_t(dist.astype(np.int64)), to_t(path_data)), dtype)
    with pytest.raises(ValueError, match=r"PathEncoder: path_data must have shape"):
        ours(dist, path_data[..., :2, :])


# ---- 2. SpatialEncoder3d --------------------------------------------------------------
def gaussian(x, mean, std):
    a = (2 * 3.14159) ** 0.5
    return torch.exp(-0.5 * (((x - mean) / std) ** 2)) / (a * std)


class SpatialEncoder3d(nn.Module):
    def __init__(self, num_kernels, num_heads=1, max_node_type=100):
        super().__init__()
        self.num_kernels, self.num_heads, self.max_node_type = num_kernels, num_heads, max_node_type
        self.means = nn.Parameter(torch.empty(num_kernels))
        self.stds = nn.Parameter(torch.empty(num_kernels))
        self.linear_layer_1 = nn.Linear(num_kernels, num_kernels)
        self.linear_layer_2 = nn.Linear(num_kernels, num_heads)
        self.gamma = nn.Embedding(2 * max_node_type + 3, 1, padding_idx=0)
        self.beta = nn.Embedding(2 * max_node_type + 3, 1, padding_idx=0)

    def forward(self, coord, node_type=None):
        bsz, N = coord.shape[:2]
        euc_dist = torch.cdist(coord, coord, p=2.0)
        if node_type is None:
            node_type = torch.zeros([bsz, N, N, 2], device=coord.device).long()
        else:
            src_node_type = node_type.unsqueeze(-1).repeat(1, 1, N)
            tgt_node_type = node_type.unsqueeze(1).repeat(1, N, 1)
            node_type = torch.stack(
                [src_node_type + 2, tgt_node_type + self.max_node_type + 3], dim=-1
            )
        gamma = self.gamma(node_type).sum(dim=-2)
        beta = self.beta(node_type).sum(dim=-2)
        euc_dist = gamma * euc_dist.unsqueeze(-1) + beta
        euc_dist = euc_dist.expand(-1, -1, -1, self.num_kernels)
        gaussian_kernel = gaussian(euc_dist, self.means, self.stds.abs() + 1e-2)
        encoding = self.linear_layer_1(gaussian_kernel)
        encoding = F.gelu(encoding)
        return self.linear_layer_2(encoding)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_spatial_encoder_3d(dtype, index_dtype):
    rng = np.random.default_rng(3)
    ref = randomize(SpatialEncoder3d(4, num_heads=3, max_node_type=5)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    coord = rng.standard_normal((3, 7, 3)).astype(dtype)  # <= 25 nodes: torch's exact cdist
    types = rng.integers(-1, 5, (3, 7)).astype(index_dtype)  # -1: DGL's padded node type
    close(ours(coord), ref(to_t(coord)), dtype)
    close(ours(coord, types), ref(to_t(coord), to_t(types.astype(np.int64))), dtype)
    with pytest.raises(ValueError, match=r"SpatialEncoder3d: node_type must be \[B, N\]"):
        ours(coord, types[:, :3])
    with pytest.raises(ValueError, match=r"SpatialEncoder3d: node_type must be in"):
        ours(coord, types + 10)


# ---- 3. BiasedMHA / GraphormerLayer -------------------------------------------------------
class BiasedMHA(nn.Module):
    def __init__(self, feat_size, num_heads, bias=True, attn_bias_type="add", attn_drop=0.1):
        super().__init__()
        self.feat_size, self.num_heads = feat_size, num_heads
        self.head_dim = feat_size // num_heads
        self.scaling = self.head_dim**-0.5
        self.attn_bias_type = attn_bias_type
        self.q_proj = nn.Linear(feat_size, feat_size, bias=bias)
        self.k_proj = nn.Linear(feat_size, feat_size, bias=bias)
        self.v_proj = nn.Linear(feat_size, feat_size, bias=bias)
        self.out_proj = nn.Linear(feat_size, feat_size, bias=bias)
        self.dropout = nn.Dropout(p=attn_drop)

    def forward(self, ndata, attn_bias=None, attn_mask=None):
        q_h = self.q_proj(ndata).transpose(0, 1)
        k_h = self.k_proj(ndata).transpose(0, 1)
        v_h = self.v_proj(ndata).transpose(0, 1)
        bsz, N, _ = ndata.shape
        q_h = q_h.reshape(N, bsz * self.num_heads, self.head_dim).transpose(0, 1) * self.scaling
        k_h = k_h.reshape(N, bsz * self.num_heads, self.head_dim).permute(1, 2, 0)
        v_h = v_h.reshape(N, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        attn_weights = (
            torch.bmm(q_h, k_h).transpose(0, 2).reshape(N, N, bsz, self.num_heads).transpose(0, 2)
        )
        if attn_bias is not None:
            if self.attn_bias_type == "add":
                attn_weights += attn_bias
            else:
                attn_weights *= attn_bias
        if attn_mask is not None:
            attn_weights[attn_mask.to(torch.bool)] = float("-inf")
        attn_weights = F.softmax(
            attn_weights.transpose(0, 2).reshape(N, N, bsz * self.num_heads).transpose(0, 2),
            dim=2,
        )
        attn_weights = self.dropout(attn_weights)
        attn = torch.bmm(attn_weights, v_h).transpose(0, 1)
        return self.out_proj(attn.reshape(N, bsz, self.feat_size).transpose(0, 1))


class GraphormerLayer(nn.Module):
    def __init__(
        self,
        feat_size,
        hidden_size,
        num_heads,
        attn_bias_type="add",
        norm_first=False,
        dropout=0.1,
        attn_dropout=0.1,
        activation=None,
    ):
        super().__init__()
        self.norm_first = norm_first
        self.attn = BiasedMHA(
            feat_size, num_heads, attn_bias_type=attn_bias_type, attn_drop=attn_dropout
        )
        self.ffn = nn.Sequential(
            nn.Linear(feat_size, hidden_size),
            nn.ReLU() if activation is None else activation,
            nn.Dropout(p=dropout),
            nn.Linear(hidden_size, feat_size),
            nn.Dropout(p=dropout),
        )
        self.dropout = nn.Dropout(p=dropout)
        self.attn_layer_norm = nn.LayerNorm(feat_size)
        self.ffn_layer_norm = nn.LayerNorm(feat_size)

    def forward(self, nfeat, attn_bias=None, attn_mask=None):
        residual = nfeat
        if self.norm_first:
            nfeat = self.attn_layer_norm(nfeat)
        nfeat = self.dropout(self.attn(nfeat, attn_bias, attn_mask))
        nfeat = residual + nfeat
        if not self.norm_first:
            nfeat = self.attn_layer_norm(nfeat)
        residual = nfeat
        if self.norm_first:
            nfeat = self.ffn_layer_norm(nfeat)
        nfeat = residual + self.ffn(nfeat)
        if not self.norm_first:
            nfeat = self.ffn_layer_norm(nfeat)
        return nfeat


def graphormer_inputs(dtype, index_dtype, heads, feat=8, seed=4):
    """Padded node features, a spatial-encoder bias and the padding mask of a batch."""
    rng = np.random.default_rng(seed)
    dist, _, node_mask, x = padded(graph_batch(rng, index_dtype), rng, feat, dtype)
    bias = rng.standard_normal(dist.shape + (heads,)).astype(dtype)
    bias[dist < 0] = 0
    return x, bias, pair_mask(node_mask), node_mask


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias_type", ["add", "mul"])
def test_biased_mha(dtype, bias_type):
    x, bias, blocked, node_mask = graphormer_inputs(dtype, np.int64, 2)
    ref = randomize(BiasedMHA(8, 2, attn_bias_type=bias_type)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.BiasedMHA)
    close(ours(x, bias, blocked), ref(to_t(x), to_t(bias), to_t(blocked)), dtype)
    close(ours(x, bias, blocked.astype(np.int32)), ref(to_t(x), to_t(bias), to_t(blocked)), dtype)
    close(ours(x), ref(to_t(x)), dtype)
    bias_only = ours(x, attn_bias=bias)
    close(bias_only, ref(to_t(x), to_t(bias)), dtype)
    x_before = x.copy()
    ours(x, bias, blocked)
    assert np.array_equal(x, x_before)
    with pytest.raises(ValueError, match=r"BiasedMHA: attn_bias must have shape"):
        ours(x, bias[..., :1])
    with pytest.raises(ValueError, match=r"BiasedMHA: attn_mask must have shape"):
        ours(x, bias, blocked[:, :2])
    with pytest.raises(ValueError, match=r"BiasedMHA: ndata must have shape"):
        ours(x[..., :4])
    with pytest.raises(TypeError, match=r"BiasedMHA: ndata must be a NumPy"):
        ours(to_t(x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm_first", [False, True])
def test_graphormer_layer(dtype, norm_first):
    x, bias, blocked, _ = graphormer_inputs(dtype, np.int32, 4)
    ref = GraphormerLayer(8, 16, 4, norm_first=norm_first, activation=nn.GELU())
    ref = randomize(ref).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.GraphormerLayer)
    close(ours(x, bias, blocked), ref(to_t(x), to_t(bias), to_t(blocked)), dtype)
    close(ours(x), ref(to_t(x)), dtype)
    with pytest.raises(ValueError, match=r"GraphormerLayer: attn_bias must have shape"):
        ours(x, bias[..., :2])


def test_graphormer_stack_from_encoders():
    """Degree + spatial encoders feeding a Graphormer layer, all converted, on one batch."""
    rng = np.random.default_rng(5)
    graphs = graph_batch(rng, np.int64)
    dist, deg, node_mask, x = padded(graphs, rng, 8, np.float32)
    refs = [
        randomize(m, seed=i)
        for i, m in enumerate(
            [DegreeEncoder(4, 8), SpatialEncoder(3, 2), GraphormerLayer(8, 12, 2)]
        )
    ]
    d_enc, s_enc, layer = (agnn.from_dgl(r) for r in refs)
    h = x + d_enc(deg) * node_mask[..., None]
    out = layer(h, s_enc(dist), pair_mask(node_mask))
    th = to_t(x) + refs[0](to_t(deg)) * to_t(node_mask)[..., None]
    expect = refs[2](th, refs[1](to_t(dist)), to_t(pair_mask(node_mask)))
    close(out, expect, np.float32)


# ---- 4. EGTLayer --------------------------------------------------------------------------
class EGTLayer(nn.Module):
    def __init__(
        self,
        feat_size,
        edge_feat_size,
        num_heads,
        num_virtual_nodes,
        dropout=0,
        attn_dropout=0,
        activation=None,
        edge_update=True,
    ):
        super().__init__()
        self.num_heads, self.num_virtual_nodes = num_heads, num_virtual_nodes
        activation = nn.ELU() if activation is None else activation
        self.edge_update = edge_update
        self.dot_dim = feat_size // num_heads
        self.mha_ln_h = nn.LayerNorm(feat_size)
        self.mha_ln_e = nn.LayerNorm(edge_feat_size)
        self.edge_input = nn.Linear(edge_feat_size, num_heads)
        self.qkv_proj = nn.Linear(feat_size, feat_size * 3)
        self.gate = nn.Linear(edge_feat_size, num_heads)
        self.attn_dropout = nn.Dropout(attn_dropout)
        self.node_output = nn.Linear(feat_size, feat_size)
        self.mha_dropout_h = nn.Dropout(dropout)
        self.node_ffn = nn.Sequential(
            nn.LayerNorm(feat_size),
            nn.Linear(feat_size, feat_size),
            activation,
            nn.Linear(feat_size, feat_size),
            nn.Dropout(dropout),
        )
        if self.edge_update:
            self.edge_output = nn.Linear(num_heads, edge_feat_size)
            self.mha_dropout_e = nn.Dropout(dropout)
            self.edge_ffn = nn.Sequential(
                nn.LayerNorm(edge_feat_size),
                nn.Linear(edge_feat_size, edge_feat_size),
                activation,
                nn.Linear(edge_feat_size, edge_feat_size),
                nn.Dropout(dropout),
            )

    def forward(self, nfeat, efeat, mask=None):
        nfeat_r1, efeat_r1 = nfeat, efeat
        nfeat_ln, efeat_ln = self.mha_ln_h(nfeat), self.mha_ln_e(efeat)
        qkv = self.qkv_proj(nfeat_ln)
        e_bias = self.edge_input(efeat_ln)
        gates = self.gate(efeat_ln)
        bsz, N, _ = qkv.shape
        q_h, k_h, v_h = qkv.view(bsz, N, -1, self.num_heads).split(self.dot_dim, dim=2)
        attn_hat = torch.einsum("bldh,bmdh->blmh", q_h, k_h)
        attn_hat = attn_hat.clamp(-5, 5) + e_bias
        if mask is None:
            gates = torch.sigmoid(gates)
            attn_tild = F.softmax(attn_hat, dim=2) * gates
        else:
            gates = torch.sigmoid(gates + mask.unsqueeze(-1))
            attn_tild = F.softmax(attn_hat + mask.unsqueeze(-1), dim=2) * gates
        attn_tild = self.attn_dropout(attn_tild)
        v_attn = torch.einsum("blmh,bmkh->blkh", attn_tild, v_h)
        degrees = torch.sum(gates, dim=2, keepdim=True)
        degree_scalers = torch.log(1 + degrees)
        degree_scalers[:, : self.num_virtual_nodes] = 1.0
        v_attn = v_attn * degree_scalers
        v_attn = v_attn.reshape(bsz, N, self.num_heads * self.dot_dim)
        nfeat = self.mha_dropout_h(self.node_output(v_attn))
        nfeat.add_(nfeat_r1)
        nfeat_r2 = nfeat
        nfeat = self.node_ffn(nfeat)
        nfeat.add_(nfeat_r2)
        if self.edge_update:
            efeat = self.mha_dropout_e(self.edge_output(attn_hat))
            efeat.add_(efeat_r1)
            efeat_r2 = efeat
            efeat = self.edge_ffn(efeat)
            efeat.add_(efeat_r2)
            return nfeat, efeat
        return nfeat


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("edge_update", [True, False])
def test_egt_layer(dtype, edge_update):
    rng = np.random.default_rng(6)
    virtual = 2
    _, _, node_mask, x = padded(graph_batch(rng, np.int64), rng, 8, dtype)
    b, n = node_mask.shape
    # virtual nodes first, as DGL's docstring asks; mask 0 for them, -inf at padded keys
    x = np.concatenate([rng.standard_normal((b, virtual, 8)).astype(dtype), x], axis=1)
    keys = np.concatenate([np.ones((b, virtual), bool), node_mask], axis=1)
    mask = np.where(keys[:, None, :], 0.0, -np.inf) * np.ones((b, n + virtual, 1))
    mask = mask.astype(dtype)
    efeat = rng.standard_normal((b, n + virtual, n + virtual, 3)).astype(dtype)
    ref = randomize(EGTLayer(8, 3, 2, virtual, edge_update=edge_update)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.EGTLayer)
    for m in (mask, None):
        got = ours(x, efeat, m)
        want = ref(to_t(x), to_t(efeat), None if m is None else to_t(m))
        if edge_update:
            close(got[0], want[0], dtype)
            close(got[1], want[1], dtype)
        else:
            close(got, want, dtype)
    with pytest.raises(ValueError, match=r"EGTLayer: efeat must have shape"):
        ours(x, efeat[..., :2])
    with pytest.raises(TypeError, match=r"EGTLayer: mask must be a floating-point"):
        ours(x, efeat, mask > 0)


# ---- 5. SetTransformerEncoder / Decoder (glob.py) -----------------------------------------
def _pad(x, lengths):
    out = x.new_zeros((len(lengths), max(lengths)) + x.shape[1:])
    start = 0
    for i, n in enumerate(lengths):
        out[i, :n] = x[start : start + n]
        start += n
    return out


def _pack(x, lengths):
    return torch.cat([x[i, :n] for i, n in enumerate(lengths)])


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, d_head, d_ff, dropouth=0.0, dropouta=0.0):
        super().__init__()
        self.d_model, self.num_heads, self.d_head, self.d_ff = d_model, num_heads, d_head, d_ff
        self.proj_q = nn.Linear(d_model, num_heads * d_head, bias=False)
        self.proj_k = nn.Linear(d_model, num_heads * d_head, bias=False)
        self.proj_v = nn.Linear(d_model, num_heads * d_head, bias=False)
        self.proj_o = nn.Linear(num_heads * d_head, d_model, bias=False)
        self.ffn = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropouth), nn.Linear(d_ff, d_model)
        )
        self.droph, self.dropa = nn.Dropout(dropouth), nn.Dropout(dropouta)
        self.norm_in, self.norm_inter = nn.LayerNorm(d_model), nn.LayerNorm(d_model)

    def forward(self, x, mem, lengths_x, lengths_mem):
        batch_size, max_len_x, max_len_mem = len(lengths_x), max(lengths_x), max(lengths_mem)
        queries = self.proj_q(x).view(-1, self.num_heads, self.d_head)
        keys = self.proj_k(mem).view(-1, self.num_heads, self.d_head)
        values = self.proj_v(mem).view(-1, self.num_heads, self.d_head)
        queries, keys = _pad(queries, lengths_x), _pad(keys, lengths_mem)
        values = _pad(values, lengths_mem)
        e = torch.einsum("bxhd,byhd->bhxy", queries, keys) / np.sqrt(self.d_head)
        lx, lm = torch.as_tensor(lengths_x), torch.as_tensor(lengths_mem)
        x_mask = torch.arange(max_len_x)[None] < lx[:, None]
        y_mask = torch.arange(max_len_mem)[None] < lm[:, None]
        mask = (x_mask.unsqueeze(-1) & y_mask.unsqueeze(-2)).unsqueeze(1)
        e = e.masked_fill(mask == 0, -float("inf"))
        alpha = torch.softmax(e, dim=-1).masked_fill(mask == 0, 0.0)
        out = torch.einsum("bhxy,byhd->bxhd", alpha, values)
        out = self.proj_o(out.contiguous().view(batch_size, max_len_x, -1))
        out = _pack(out, lengths_x)
        x = self.norm_in(x + out)
        return self.norm_inter(x + self.ffn(x))


class SetAttentionBlock(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.mha = MultiHeadAttention(*args)

    def forward(self, feat, lengths):
        return self.mha(feat, feat, lengths, lengths)


class InducedSetAttentionBlock(nn.Module):
    def __init__(self, m, d_model, *args):
        super().__init__()
        self.m = m
        self.inducing_points = nn.Parameter(torch.zeros(m, d_model))
        self.mha = nn.ModuleList([MultiHeadAttention(d_model, *args) for _ in range(2)])

    def forward(self, feat, lengths):
        query = self.inducing_points.repeat(len(lengths), 1)
        memory = self.mha[0](query, feat, [self.m] * len(lengths), lengths)
        return self.mha[1](feat, memory, lengths, [self.m] * len(lengths))


class PMALayer(nn.Module):
    def __init__(self, k, d_model, num_heads, d_head, d_ff):
        super().__init__()
        self.k = k
        self.seed_vectors = nn.Parameter(torch.zeros(k, d_model))
        self.mha = MultiHeadAttention(d_model, num_heads, d_head, d_ff)
        self.ffn = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(0.0), nn.Linear(d_ff, d_model)
        )

    def forward(self, feat, lengths):
        query = self.seed_vectors.repeat(len(lengths), 1)
        return self.mha(query, self.ffn(feat), [self.k] * len(lengths), lengths)


class SetTransformerEncoder(nn.Module):
    def __init__(self, d_model, n_heads, d_head, d_ff, n_layers=1, block_type="sab", m=None):
        super().__init__()
        self.n_layers, self.block_type, self.m = n_layers, block_type, m
        block = (
            (lambda: SetAttentionBlock(d_model, n_heads, d_head, d_ff))
            if block_type == "sab"
            else (lambda: InducedSetAttentionBlock(m, d_model, n_heads, d_head, d_ff))
        )
        self.layers = nn.ModuleList([block() for _ in range(n_layers)])

    def forward(self, lengths, feat):
        for layer in self.layers:
            feat = layer(feat, lengths)
        return feat


class SetTransformerDecoder(nn.Module):
    def __init__(self, d_model, num_heads, d_head, d_ff, n_layers, k):
        super().__init__()
        self.n_layers, self.k, self.d_model = n_layers, k, d_model
        self.pma = PMALayer(k, d_model, num_heads, d_head, d_ff)
        self.layers = nn.ModuleList(
            [SetAttentionBlock(d_model, num_heads, d_head, d_ff) for _ in range(n_layers)]
        )

    def forward(self, lengths, feat):
        feat = self.pma(feat, lengths)
        for layer in self.layers:
            feat = layer(feat, [self.k] * len(lengths))
        return feat.view(len(lengths), self.k * self.d_model)


SET_SIZES = (4, 0, 6, 1)  # an empty graph in the batch


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", ["sab", "isab"])
def test_set_transformer_encoder(dtype, block):
    rng = np.random.default_rng(7)
    g = batch_graphs(graph_batch(rng, np.int32, SET_SIZES))
    x = rng.standard_normal((sum(SET_SIZES), 6)).astype(dtype)
    ref = SetTransformerEncoder(6, 2, 4, 10, n_layers=2, block_type=block, m=3)
    ref = randomize(ref).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.SetTransformerEncoder)
    close(ours(g, x), ref(list(SET_SIZES), to_t(x)), dtype)
    with pytest.raises(ValueError, match=r"SetTransformerEncoder: feat has 3 rows"):
        ours(g, x[:3])
    with pytest.raises(ValueError, match=r"SetTransformerEncoder: feat must have shape"):
        ours(g, x[:, :2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_set_transformer_decoder(dtype):
    rng = np.random.default_rng(8)
    g = batch_graphs(graph_batch(rng, np.int64, SET_SIZES))
    x = rng.standard_normal((sum(SET_SIZES), 6)).astype(dtype)
    ref = randomize(SetTransformerDecoder(6, 3, 2, 10, n_layers=1, k=2)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.SetTransformerDecoder)
    out = ours(g, x)
    assert out.shape == (len(SET_SIZES), 12)
    close(out, ref(list(SET_SIZES), to_t(x)), dtype)
    with pytest.raises(TypeError, match=r"SetTransformerDecoder: graph must be"):
        ours(x, x)


# ---- 6. utils.py: JumpingKnowledge, WeightBasis, Sequential -------------------------------
class JumpingKnowledge(nn.Module):
    def __init__(self, mode="cat", in_feats=None, num_layers=None):
        super().__init__()
        self.mode = mode
        if mode == "lstm":
            hidden_size = (num_layers * in_feats) // 2
            self.lstm = nn.LSTM(in_feats, hidden_size, bidirectional=True, batch_first=True)
            self.att = nn.Linear(2 * hidden_size, 1)

    def forward(self, feat_list):
        if self.mode == "cat":
            return torch.cat(feat_list, dim=-1)
        if self.mode == "max":
            return torch.stack(feat_list, dim=-1).max(dim=-1)[0]
        stacked = torch.stack(feat_list, dim=1)
        alpha, _ = self.lstm(stacked)
        alpha = torch.softmax(self.att(alpha).squeeze(-1), dim=-1)
        return (stacked * alpha.unsqueeze(-1)).sum(dim=1)


class WeightBasis(nn.Module):
    def __init__(self, shape, num_bases, num_outputs):
        super().__init__()
        self.shape, self.num_bases, self.num_outputs = shape, num_bases, num_outputs
        self.weight = nn.Parameter(torch.zeros(num_bases, *shape))
        self.w_comp = nn.Parameter(torch.zeros(num_outputs, num_bases))

    def forward(self):
        weight = torch.matmul(self.w_comp, self.weight.view(self.num_bases, -1))
        return weight.view(self.num_outputs, *self.shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["cat", "max", "lstm"])
@pytest.mark.parametrize("in_feats,layers", [(4, 3), (3, 3), (1, 3)])
def test_dgl_jumping_knowledge(dtype, mode, in_feats, layers):
    rng = np.random.default_rng(9)
    feats = [rng.standard_normal((5, in_feats)).astype(dtype) for _ in range(layers)]
    ref = randomize(JumpingKnowledge(mode, in_feats, layers)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.DGLJumpingKnowledge)
    close(ours(feats), ref([to_t(f) for f in feats]), dtype)
    with pytest.raises(TypeError, match="DGLJumpingKnowledge: feat_list"):
        ours(feats[0])
    with pytest.raises(ValueError, match="DGLJumpingKnowledge: mode='lstm' needs"):
        agnn.DGLJumpingKnowledge("lstm")


@pytest.mark.parametrize("dtype", DTYPES)
def test_weight_basis(dtype):
    ref = randomize(WeightBasis((3, 4), 2, 5)).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    close(ours(), ref(), dtype)
    with pytest.raises(TypeError, match="WeightBasis: shape"):
        agnn.WeightBasis(3, 2, 5)


class GraphConv(nn.Module):
    """DGL's GraphConv (norm='both', weight, bias) written out; ``g`` is (src, dst, n)."""

    def __init__(self, in_feats, out_feats):
        super().__init__()
        self._in_feats, self._out_feats = in_feats, out_feats
        self._norm, self._allow_zero_in_degree, self._activation = "both", True, None
        self.weight = nn.Parameter(torch.zeros(in_feats, out_feats))
        self.bias = nn.Parameter(torch.zeros(out_feats))

    def forward(self, g, feat):
        src, dst, n = g
        deg_out = torch.bincount(src, minlength=n).clamp(min=1).to(feat.dtype)
        deg_in = torch.bincount(dst, minlength=n).clamp(min=1).to(feat.dtype)
        h = feat * deg_out.pow(-0.5)[:, None]
        h = h @ self.weight
        h = torch.zeros_like(h).index_add_(0, dst, h[src]) * deg_in.pow(-0.5)[:, None]
        return h + self.bias


class Sequential(nn.Sequential):
    def forward(self, graph, *feats):
        graphs = graph if isinstance(graph, list) else [graph] * len(self)
        for graph_i, module in zip(graphs, self):
            if not isinstance(feats, tuple):
                feats = (feats,)
            feats = module(graph_i, *feats)
        return feats


@pytest.mark.parametrize("dtype", DTYPES)
def test_dgl_sequential(dtype):
    rng = np.random.default_rng(10)
    ei = random_graph(rng, 6, index_dtype=np.int32, isolated=1)
    ei2 = random_graph(rng, 6, index_dtype=np.int32, isolated=0)
    g, g2 = make_graph((ei[0], ei[1]), num_nodes=6), make_graph((ei2[0], ei2[1]), num_nodes=6)
    tg = (to_t(ei[0].astype(np.int64)), to_t(ei[1].astype(np.int64)), 6)
    tg2 = (to_t(ei2[0].astype(np.int64)), to_t(ei2[1].astype(np.int64)), 6)
    ref = randomize(Sequential(GraphConv(4, 5), GraphConv(5, 3))).to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.DGLSequential) and len(ours) == 2
    x = rng.standard_normal((6, 4)).astype(dtype)
    close(ours(g, x), ref(tg, to_t(x)), dtype)
    close(ours([g, g2], x), ref([tg, tg2], to_t(x)), dtype)
    with pytest.raises(TypeError, match="DGLSequential: graph must be"):
        ours(x, x)


# ---- 7. one more error path per encoder ---------------------------------------------------
def test_constructor_errors():
    with pytest.raises(ValueError, match="DegreeEncoder: direction"):
        agnn.DegreeEncoder(3, 4, direction="up")
    with pytest.raises(ValueError, match="BiasedMHA: feat_size=6 must be divisible"):
        agnn.BiasedMHA(6, 4)
    with pytest.raises(ValueError, match="BiasedMHA: attn_bias_type"):
        agnn.BiasedMHA(8, 2, attn_bias_type="sub")
    with pytest.raises(ValueError, match="EGTLayer: feat_size=6 must be divisible"):
        agnn.EGTLayer(6, 2, 4, 0)
    with pytest.raises(ValueError, match="SetTransformerEncoder: block_type='isab' needs m"):
        agnn.SetTransformerEncoder(4, 2, 2, 4, block_type="isab")
    assert math.isfinite(float(agnn.SpatialEncoder3d(2)(np.zeros((1, 2, 3))).sum()))


# ---- 8. LapPosEncoder (gt/lap_pos_encoder.py) ---------------------------------------------
class LapPosEncoder(nn.Module):
    """DGL's, with ``.float()`` written ``.to(self.linear.weight.dtype)`` (the same for
    float32 modules; DGL's float64 module would fail at ``linear``)."""

    def __init__(self, model_type, num_layer, k, dim, n_head=1, batch_norm=False, num_post_layer=0):
        super().__init__()
        self.model_type = model_type
        self.linear = nn.Linear(2, dim)
        if model_type == "Transformer":
            layer = nn.TransformerEncoderLayer(d_model=dim, nhead=n_head, batch_first=True)
            self.pe_encoder = nn.TransformerEncoder(layer, num_layers=num_layer)
        else:
            layers = []
            if num_layer == 1:
                layers.append(nn.ReLU())
            else:
                self.linear = nn.Linear(2, 2 * dim)
                layers.append(nn.ReLU())
                for _ in range(num_layer - 2):
                    layers += [nn.Linear(2 * dim, 2 * dim), nn.ReLU()]
                layers += [nn.Linear(2 * dim, dim), nn.ReLU()]
            self.pe_encoder = nn.Sequential(*layers)
        self.raw_norm = nn.BatchNorm1d(k) if batch_norm else None
        self.post_mlp = None
        if num_post_layer == 1:
            self.post_mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        elif num_post_layer > 1:
            layers = [nn.Linear(dim, 2 * dim), nn.ReLU()]
            for _ in range(num_post_layer - 2):
                layers += [nn.Linear(2 * dim, 2 * dim), nn.ReLU()]
            layers += [nn.Linear(2 * dim, dim), nn.ReLU()]
            self.post_mlp = nn.Sequential(*layers)

    def forward(self, eigvals, eigvecs):
        pos_encoding = torch.cat((eigvecs.unsqueeze(2), eigvals.unsqueeze(2)), dim=2).to(
            self.linear.weight.dtype
        )
        empty_mask = torch.isnan(pos_encoding)
        pos_encoding[empty_mask] = 0
        if self.raw_norm:
            pos_encoding = self.raw_norm(pos_encoding)
        pos_encoding = self.linear(pos_encoding)
        if self.model_type == "Transformer":
            pos_encoding = self.pe_encoder(
                src=pos_encoding, src_key_padding_mask=empty_mask[:, :, 1]
            )
        else:
            pos_encoding = self.pe_encoder(pos_encoding)
        pos_encoding[empty_mask[:, :, 1]] = 0
        pos_encoding = torch.sum(pos_encoding, 1, keepdim=False)
        if self.post_mlp:
            pos_encoding = self.post_mlp(pos_encoding)
        return pos_encoding


def lap_inputs(rng, n, k, dtype):
    """LapPE(padding=True)-style pairs: trailing eigenvalues NaN (eigvecs 0) for small
    graphs, one node with every pair padded."""
    eigvals = np.sort(rng.uniform(0, 2, (n, k)), axis=1).astype(dtype)
    eigvecs = rng.standard_normal((n, k)).astype(dtype)
    eigvals[: n // 2, k - 2 :] = np.nan
    eigvecs[: n // 2, k - 2 :] = 0
    eigvals[-1] = np.nan
    return eigvals, eigvecs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "model_type,num_layer,batch_norm,post",
    [
        ("Transformer", 2, True, 0),
        ("Transformer", 1, False, 2),
        ("DeepSet", 3, True, 1),
        ("DeepSet", 1, False, 3),
    ],
)
def test_lap_pos_encoder(dtype, model_type, num_layer, batch_norm, post):
    rng = np.random.default_rng(11)
    k, dim = 4, 8
    ref = randomize(LapPosEncoder(model_type, num_layer, k, dim, 2, batch_norm, post))
    if batch_norm:
        ref.raw_norm.running_mean.copy_(torch.randn(k))
        ref.raw_norm.running_var.copy_(torch.rand(k) + 0.5)
    ref = ref.to(tdt(dtype))
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.LapPosEncoder)
    eigvals, eigvecs = lap_inputs(rng, 9, k, dtype)
    before = eigvals.copy()
    with torch.no_grad():
        want = ref(to_t(eigvals), to_t(eigvecs))
    close(ours(eigvals, eigvecs), want, dtype)
    assert np.array_equal(eigvals, before, equal_nan=True)
    with pytest.raises(ValueError, match=r"LapPosEncoder: eigvecs must have shape"):
        ours(eigvals, eigvecs[:, :2])
    with pytest.raises(ValueError, match="LapPosEncoder: model_type"):
        agnn.LapPosEncoder("GNN", 1, k, dim)
