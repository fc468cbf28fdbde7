"""Parity sweep (s14) of PyG nn pieces the earlier sweeps left: options the existing tests
miss, compared live against PyG 2.8.1 (weights copied from the PyG module) or, for DGL's
modules, against NumPy transcriptions of DGL's source.

Covered here: ``InnerProductDecoder`` on empty / int32 / zero-channel inputs; ``Reshape``
with a tuple shape and bad shapes; ``GroupAddRev`` with 4 groups, a positive
``split_dim`` and a split ``edge_weight``; ``DenseChebConv`` against PyG's ``ChebConv``
(symmetric adjacency, ``lambda_max`` given); ``to_hetero`` with ``input_map`` and inputs
named neither ``edge`` nor ``adj``;
``TransR`` with ``p`` of ``inf`` / 3 / 0 (DGL's ``torch.norm``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import from_pyg  # noqa: E402


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _ti(a):
    return torch.from_numpy(np.asarray(a).astype(np.int64))


# ---- InnerProductDecoder ---------------------------------------------------------------------
@pytest.mark.parametrize("case", ["empty_edges", "int32_ids", "zero_channels", "one_node"])
@pytest.mark.parametrize("sigmoid", [True, False])
def test_inner_product_decoder_edge_cases_match_pyg(case, sigmoid):
    rng = np.random.default_rng(0)
    z = rng.standard_normal((5, 3))
    ei = rng.integers(0, 5, (2, 7))
    if case == "empty_edges":
        ei = ei[:, :0]
    elif case == "int32_ids":
        ei = ei.astype(np.int32)
    elif case == "zero_channels":
        z = z[:, :0]
    else:
        z, ei = z[:1], np.zeros((2, 3), np.int64)
    ref = pyg_nn.InnerProductDecoder()
    dec = from_pyg(ref)
    want = ref(_t(z), _ti(ei), sigmoid=sigmoid).numpy()
    got = dec(z, ei, sigmoid=sigmoid)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    want_all = ref.forward_all(_t(z), sigmoid=sigmoid).numpy()
    got_all = dec.forward_all(z, sigmoid=sigmoid)
    assert got_all.shape == want_all.shape and got_all.dtype == want_all.dtype
    np.testing.assert_allclose(got_all, want_all, rtol=1e-12, atol=1e-12)


# ---- Reshape ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [((2, 6),), ((-1,),), (np.int64(3), 4), (0, 3)])
def test_reshape_shape_forms_match_torch_view(shape):
    x = np.arange(12.0).reshape(3, 4)
    if shape == (0, 3):
        x = np.zeros((0, 3))
    want = pyg_nn.Reshape(*shape)(_t(x)).numpy()
    got = agnn.Reshape(*shape)(x)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(2.0, 6), (-1, -1), ()])
def test_reshape_bad_shape_is_an_error_where_torch_errors(shape):
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises((TypeError, RuntimeError)):
        pyg_nn.Reshape(*shape)(_t(x))
    with pytest.raises((TypeError, ValueError), match="Reshape"):
        agnn.Reshape(*shape)(x)


# ---- GroupAddRev -----------------------------------------------------------------------------
@pytest.mark.parametrize("split_dim", [-1, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_group_add_rev_four_groups_match_pyg(split_dim, weighted):
    torch.manual_seed(0)
    ref = pyg_nn.GroupAddRev(pyg_nn.GCNConv(2, 2), split_dim=split_dim, num_groups=4).double()
    ref.eval()
    ours = from_pyg(ref)
    assert ours.num_groups == 4 and ours.split_dim == split_dim
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 8))
    ei = rng.integers(0, 6, (2, 11))
    args = (rng.random(11),) if weighted else ()
    with torch.no_grad():
        # PyG frees the input's storage (its memory-saving autograd function): copies
        want = ref(_t(x).clone(), _ti(ei), *(_t(a) for a in args)).numpy().copy()
        back = ref.inverse(_t(want).clone(), _ti(ei), *(_t(a) for a in args)).numpy()
    x_copy = x.copy()
    got = ours(x, ei, *args)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.inverse(got, ei, *args), back, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(back, x, atol=1e-10)
    np.testing.assert_array_equal(x, x_copy)


# ---- DenseChebConv against PyG's ChebConv ----------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("lambda_max", [2.0, 1.5])
def test_dense_cheb_conv_matches_pyg_cheb_conv(k, bias, lambda_max):
    """On a symmetric 0/1 adjacency without self-loops, DGL's DenseChebConv (``L = I -
    D^-1/2 A D^-1/2``, ``L~ = 2 L / lambda_max - I``) is PyG's ``ChebConv`` with
    ``normalization='sym'``; PyG's ``lins[i].weight`` is ``W[i].T``. Node 5 is isolated."""
    torch.manual_seed(1)
    ref = pyg_nn.ChebConv(3, 4, K=k, normalization="sym", bias=bias).double()
    if bias:
        torch.nn.init.normal_(ref.bias)
    rng = np.random.default_rng(2)
    upper = np.triu(rng.random((6, 6)) < 0.5, 1)
    adj = (upper | upper.T).astype(np.float64)
    adj[5] = adj[:, 5] = 0.0
    x = rng.standard_normal((6, 3))
    ei = np.stack(np.nonzero(adj.T))  # adj[dst, src]: row 0 of ei is the source
    with torch.no_grad():
        want = ref(_t(x), _ti(ei), lambda_max=torch.tensor(lambda_max, dtype=torch.float64))
    conv = agnn.DenseChebConv(3, 4, k, bias=bias, dtype=np.float64)
    conv.W = np.stack([lin.weight.detach().numpy().T for lin in ref.lins])
    if bias:
        conv.bias = ref.bias.detach().numpy().copy()
    got = conv(adj, x, lambda_max=lambda_max)
    assert got.dtype == np.float64 and got.shape == (6, 4)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


def _dgl_dense_cheb(adj, feat, w, bias, lambda_max):
    """DGL's ``DenseChebConv.forward`` (python/dgl/nn/pytorch/conv/densechebconv.py,
    dmlc/dgl) in NumPy: the Chebyshev polynomials of ``L~`` stacked, then summed."""
    n = adj.shape[0]
    d = 1 / np.sqrt(np.maximum(adj.sum(1), 1))
    lap = np.eye(n) - np.diag(d) @ adj @ np.diag(d)
    if lambda_max is None:
        lambda_max = np.linalg.eigvals(lap).real.max()
    lhat = 2 * lap / lambda_max - np.eye(n)
    zs = [np.eye(n)]
    for i in range(1, w.shape[0]):
        zs.append(lhat if i == 1 else 2 * lhat @ zs[-1] - zs[-2])
    out = (np.stack(zs) @ feat[None] @ w).sum(0)
    return out if bias is None else out + bias


@pytest.mark.parametrize("lambda_max", [None, 3.0])
def test_dense_cheb_conv_weighted_self_loops_like_dgl(lambda_max):
    """Weighted, non-symmetric adjacency with self-loops and fractional row sums (the
    clamp at 1 of DGL's degree applies), k = 4."""
    rng = np.random.default_rng(3)
    adj = rng.random((5, 5)) * (rng.random((5, 5)) < 0.6)
    adj[0, 0] = 2.0
    adj[4] = 0.1  # row sum 0.5: clamped to 1
    if lambda_max is None:
        adj = (adj + adj.T) / 2
    x = rng.standard_normal((5, 3))
    conv = agnn.DenseChebConv(3, 2, 4, dtype=np.float64, rng=0)
    conv.bias = rng.standard_normal(2)
    want = _dgl_dense_cheb(adj, x, conv.W, conv.bias, lambda_max)
    np.testing.assert_allclose(conv(adj, x, lambda_max), want, rtol=1e-9, atol=1e-12)


# ---- to_hetero with input_map ----------------------------------------------------------------
META = (["a", "b", "u"], [("a", "to", "b"), ("b", "to", "a"), ("b", "self", "b")])
SIZES = {"a": 5, "b": 4, "u": 3}  # 'u': a node type no edge type touches


class _Links(torch.nn.Module):
    """A model whose edge input is named neither ``edge`` nor ``adj``."""

    def __init__(self):
        super().__init__()
        self.conv = pyg_nn.SAGEConv((3, 3), 4)

    def forward(self, feats, links):
        return self.conv(feats, links)


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = {t: rng.standard_normal((n, 3)).astype(np.float32) for t, n in SIZES.items()}
    ei = {
        et: np.stack([rng.integers(0, SIZES[et[0]], 6), rng.integers(0, SIZES[et[2]], 6)])
        for et in META[1]
    }
    return x, ei


@pytest.mark.parametrize("aggr", ["sum", "mean", "max"])
def test_to_hetero_input_map_matches_pyg(aggr):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = pyg_nn.to_hetero(_Links(), META, aggr=aggr, input_map={"links": "edge"})
    x, ei = _data()
    with torch.no_grad():
        want = ref({k: _t(v) for k, v in x.items()}, {k: _ti(v) for k, v in ei.items()})
    seq = agnn.Sequential(
        "feats, links", {"conv": (agnn.SAGEConv(3, 4, "mean"), "feats, links -> feats")}
    )
    with pytest.warns(UserWarning, match="do not get updated"):
        ours = agnn.to_hetero(seq, META, aggr=aggr, input_map={"links": "edge"})
    ours.load_state_dict(ref.state_dict())
    got = ours(x, ei)
    assert list(got) == list(want)
    for key, value in want.items():
        if value is None:
            assert got[key] is None
        else:
            np.testing.assert_allclose(got[key], value.numpy(), rtol=1e-5, atol=1e-6)
    converted = from_pyg(ref)
    for key, value in converted(x, ei).items():
        if want[key] is None:
            assert value is None
        else:
            np.testing.assert_allclose(value, want[key].numpy(), rtol=1e-5, atol=1e-6)


def test_to_hetero_without_input_map_reads_links_as_node_level():
    """Without ``input_map`` ``links`` is node-level (no ``edge`` / ``adj`` in its name):
    PyG builds the model and its conv then refuses the node-level ``links`` when called;
    ours refuses it when called too. A level other than 'node' / 'edge' is named."""
    x, ei = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = pyg_nn.to_hetero(_Links(), META)
        seq = agnn.Sequential(
            "feats, links", {"conv": (agnn.SAGEConv(3, 4, "mean"), "feats, links -> feats")}
        )
        ours = agnn.to_hetero(seq, META)
        with pytest.raises(ValueError, match="input_map\\['links'\\] must be 'node' or 'edge'"):
            agnn.to_hetero(seq, META, input_map={"links": "graph"})
    with pytest.raises(ValueError, match="edge_index"):
        ref({k: _t(v) for k, v in x.items()}, {k: _ti(v) for k, v in ei.items()})
    with pytest.raises((TypeError, ValueError), match="edge_index"):
        ours(x, ei)


# ---- TransR ----------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [float("inf"), 3, 0, 1.5])
def test_transr_norm_orders_like_dgl(p):
    """DGL's TransR forward (python/dgl/nn/pytorch/link/transr.py, dmlc/dgl):
    ``-torch.norm(h M_r + r - t M_r, p=p, dim=-1)``; torch's ``p=0`` counts non-zeros."""
    rng = np.random.default_rng(4)
    scorer = agnn.TransR(3, 2, 4, p=p, dtype=np.float64, rng=0)
    h, t = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    rels = np.array([0, 1, 2, 2, 1, 0])
    proj = scorer.rel_project.weight.reshape(-1, 4, 2)[rels]
    dist = (h[:, None] @ proj)[:, 0] + scorer.rel_emb.weight[rels] - (t[:, None] @ proj)[:, 0]
    want = -torch.norm(_t(dist), p=p, dim=-1).numpy()
    np.testing.assert_allclose(scorer(h, t, rels), want, rtol=1e-10, atol=1e-12)
    empty = scorer(h[:0], t[:0], rels[:0])
    assert empty.shape == (0,) and empty.dtype == np.float64


@pytest.mark.parametrize("lambda_max", [0.0, float("nan"), float("inf"), np.array([0.0])])
def test_dense_cheb_conv_lambda_max_zero_or_not_finite_is_named(lambda_max):
    """DGL's ``2 L / lambda_max`` turns these into NaN / infinite outputs silently."""
    conv = agnn.DenseChebConv(3, 2, 2, rng=0)
    adj = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="DenseChebConv: lambda_max must be a finite non-zero"):
        conv(adj, np.ones((4, 3), np.float32), lambda_max)
