"""MFConv, FiLMConv, GeneralConv, CGConv, GravNetConv and PDNConv against PyG's (same
weights through ``from_pyg``; float32 within 1e-5 relative, float64 within 1e-12) on random
multigraphs with self-loops, repeated edges, targets without in-edges and isolated nodes,
empty edge sets, bipartite inputs where PyG takes them, int32 / int64 ids; each layer's
fast paths against its per-edge path (and pieces of rows against one piece); errors that
name the layer."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn import ops

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    return torch.from_numpy(np.ascontiguousarray(a))


def _ref(module, *args):
    args = [_t(a) for a in args]
    args[1] = args[1].long() if args[1] is not None else None  # edge_index
    with torch.no_grad():
        return module(*args).numpy()


def _graphs(rng, n_src, n_dst, index_dtype):
    """A random multigraph (self-loops, a repeated edge, 3 targets without in-edges) and
    an empty edge set."""
    ei = random_graph(rng, n_src, n_dst, num_edges=5 * n_dst, index_dtype=index_dtype, isolated=3)
    return [ei, np.zeros((2, 0), index_dtype)]


def _feats(rng, n, f, dtype):
    return rng.standard_normal((n, f)).astype(dtype)


def _torch_dtype(dtype):
    return getattr(torch, np.dtype(dtype).name)


def _check(out, ref, dtype):
    assert out.dtype == dtype, out.dtype
    err = rel_err(out, ref)
    assert err <= TOL[dtype] * 10, err


def _x(rng, bipartite, n_src, n_dst, f_src, f_dst, dtype):
    if bipartite:
        return (_feats(rng, n_src, f_src, dtype), _feats(rng, n_dst, f_dst, dtype))
    return _feats(rng, n_src, f_src, dtype)


# ---- MFConv ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bipartite", [False, True])
@pytest.mark.parametrize("aggr", ["add", "mean", "max"])
def test_mf_conv_matches_pyg(dtype, bipartite, aggr):
    rng = np.random.default_rng(0)
    n_src, n_dst = (18, 12) if bipartite else (16, 16)
    torch.manual_seed(0)
    sizes = (5, 3) if bipartite else 5
    module = pyg_nn.MFConv(sizes, 4, max_degree=3, aggr=aggr).to(_torch_dtype(dtype))
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.MFConv) and conv.max_degree == 3
    for index_dtype in INDEX_DTYPES:
        x = _x(rng, bipartite, n_src, n_dst, 5, 3, dtype)
        for ei in _graphs(rng, n_src, n_dst, index_dtype):
            _check(conv(x, ei), _ref(module, x, ei), dtype)
    if bipartite:  # no root term: (x_src, None) with size
        x_src = _feats(rng, n_src, 5, dtype)
        ei = _graphs(rng, n_src, n_dst, np.int64)[0]
        with torch.no_grad():
            ref = module((_t(x_src), None), _t(ei), size=(n_src, n_dst)).numpy()
        _check(conv((x_src, None), ei, size=(n_src, n_dst)), ref, dtype)


def test_mf_conv_degree_groups_and_csr():
    """Every degree above max_degree shares the last weights; a CSR gives the same bits."""
    rng = np.random.default_rng(1)
    x = _feats(rng, 30, 4, np.float64)
    ei = random_graph(rng, 30, 30, num_edges=200, isolated=4)
    conv = agnn.MFConv(4, 3, max_degree=2, dtype=np.float64, rng=0)
    out = conv(x, ei)
    deg = np.bincount(ei[1], minlength=30)
    h = np.zeros((30, 4))
    np.add.at(h, ei[1], x[ei[0]])
    for i in range(30):
        d = min(deg[i], 2)
        want = conv.lins_l[d](h[i : i + 1]) + x[i : i + 1] @ conv.lins_r[d].weight.T
        np.testing.assert_allclose(out[i : i + 1], want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(conv(x, ops.to_csr(ei, 30, 30)), out)


# ---- FiLMConv ----------------------------------------------------------------------
_FILM_ACTS = {
    "relu": lambda: torch.nn.ReLU(),
    "none": lambda: None,
    "tanh": lambda: torch.nn.Tanh(),
    "leaky": lambda: torch.nn.LeakyReLU(0.1),
    "gelu": lambda: torch.nn.GELU(),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("num_relations", [1, 3])
@pytest.mark.parametrize("act", sorted(_FILM_ACTS))
@pytest.mark.parametrize("bipartite", [False, True])
def test_film_conv_matches_pyg(dtype, num_relations, act, bipartite):
    rng = np.random.default_rng(2)
    n_src, n_dst = (17, 11) if bipartite else (15, 15)
    sizes = (5, 3) if bipartite else 5
    for aggr, index_dtype in zip(["mean", "add", "max", "min"], INDEX_DTYPES * 2):
        torch.manual_seed(0)
        module = pyg_nn.FiLMConv(sizes, 4, num_relations, act=_FILM_ACTS[act](), aggr=aggr).to(
            _torch_dtype(dtype)
        )
        conv = agnn.from_pyg(module)
        assert isinstance(conv, agnn.FiLMConv) and conv.aggr == ("sum" if aggr == "add" else aggr)
        x = _x(rng, bipartite, n_src, n_dst, 5, 3, dtype)
        for ei in _graphs(rng, n_src, n_dst, index_dtype):
            et = rng.integers(0, num_relations, ei.shape[1]).astype(index_dtype)
            ref = _ref(module, x, ei, et)
            _check(conv(x, ei, et), ref, dtype)


def test_film_conv_custom_nn_and_groups():
    """A torch nn (deep-copied per relation, as PyG) converts; RelationGroups give the same
    bits as edge_index + edge_type."""
    rng = np.random.default_rng(3)
    torch.manual_seed(1)
    nn = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.Tanh(), torch.nn.Linear(6, 8))
    module = pyg_nn.FiLMConv(5, 4, 2, nn=nn, aggr="add").double()
    conv = agnn.from_pyg(module)
    assert set(conv.state_dict()) == set(module.state_dict())
    x = _feats(rng, 14, 5, np.float64)
    ei = random_graph(rng, 14, 14, num_edges=60)
    et = rng.integers(0, 2, 60)
    out = conv(x, ei, et)
    _check(out, _ref(module, x, ei, et), np.float64)
    groups = agnn.group_relations(ei, et, 2, 14)
    np.testing.assert_array_equal(conv(x, groups), out)


@pytest.mark.parametrize("act", ["relu", None, "gelu"])
@pytest.mark.parametrize("aggr", ["mean", "add", "max", "min"])
def test_film_conv_paths_agree(monkeypatch, act, aggr):
    """The SpMM paths (act=None sums, the sign trick for max / min) and the per-edge path
    over pieces of rows give the per-edge numbers of one piece."""
    import arraygnn.nn._row_chunks as chunks
    import arraygnn.nn.film_conv as film

    rng = np.random.default_rng(4)
    x = _feats(rng, 40, 6, np.float64)
    ei = random_graph(rng, 40, 40, num_edges=300, isolated=5)
    et = rng.integers(0, 2, 300)
    conv = agnn.FiLMConv(6, 5, 2, act=act, aggr=aggr, dtype=np.float64, rng=0)
    out = conv(x, ei, et)
    monkeypatch.setattr(film, "is_monotone", lambda a: False)  # max / min per edge
    monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", 600)  # pieces of a few rows
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    conv_edges = agnn.FiLMConv(6, 5, 2, act=act, aggr=aggr, dtype=np.float64, rng=0)
    if act is None and aggr in ("mean", "add"):
        assert rel_err(conv_edges(x, ei, et), out) <= 1e-13
    else:
        np.testing.assert_allclose(conv_edges(x, ei, et), out, rtol=1e-13, atol=1e-15)


# ---- GeneralConv -------------------------------------------------------------------
_GENERAL = [
    dict(zip(("directed_msg", "attention", "attention_type", "edges", "aggr"), combo))
    for combo in itertools.product(
        [True, False],
        [False, True],
        ["additive", "dot_product"],
        [False, True],
        ["add", "mean", "max"],
    )  # fmt: skip
    if combo[1] or combo[2] == "additive"
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", _GENERAL, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_general_conv_matches_pyg(dtype, case):
    rng = np.random.default_rng(5)
    case = dict(case)
    edges = case.pop("edges")
    for skip, index_dtype in zip([False, True], INDEX_DTYPES):
        torch.manual_seed(0)
        module = pyg_nn.GeneralConv(
            6, 6, 3 if edges else None, heads=2, skip_linear=skip, l2_normalize=skip, **case
        ).to(_torch_dtype(dtype))
        conv = agnn.from_pyg(module)
        assert isinstance(conv, agnn.GeneralConv)
        assert (conv.lin_self is None) is not skip
        x = _feats(rng, 16, 6, dtype)
        for ei in _graphs(rng, 16, 16, index_dtype):
            e = _feats(rng, ei.shape[1], 3, dtype) if edges else None
            ref = _ref(module, x, ei, e)
            _check(conv(x, ei, e), ref, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("attention", [False, True])
@pytest.mark.parametrize("aggr", ["add", "max"])
def test_general_conv_bipartite_matches_pyg(dtype, attention, aggr):
    rng = np.random.default_rng(6)
    torch.manual_seed(0)
    module = pyg_nn.GeneralConv((5, 3), 4, 2, aggr=aggr, heads=3, attention=attention)
    module = module.to(_torch_dtype(dtype))
    conv = agnn.from_pyg(module)
    x = (_feats(rng, 19, 5, dtype), _feats(rng, 13, 3, dtype))
    for ei in _graphs(rng, 19, 13, np.int64):
        e = _feats(rng, ei.shape[1], 2, dtype)
        _check(conv(x, ei, e), _ref(module, x, ei, e), dtype)


def test_general_conv_lazy_sizes():
    """PyG's lazy in_channels / in_edge_channels = -1, sized by a first call: from_pyg reads
    the sizes off the materialised Linears."""
    rng = np.random.default_rng(15)
    x = _feats(rng, 10, 4, np.float64)
    ei = random_graph(rng, 10, 10, num_edges=30)
    e = _feats(rng, 30, 3, np.float64)
    for kwargs in ({"in_channels": 4}, {"in_channels": -1, "directed_msg": False}):
        torch.manual_seed(0)
        module = pyg_nn.GeneralConv(out_channels=5, in_edge_channels=-1, **kwargs).double()
        ref = _ref(module, x, ei, e)
        conv = agnn.from_pyg(module)
        assert conv.in_channels == 4 and conv.in_edge_channels == 3
        _check(conv(x, ei, e), ref, np.float64)


@pytest.mark.parametrize("case", _GENERAL, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_general_conv_fast_paths_match_per_edge(monkeypatch, case):
    """Every factored path against the [E, H, C] messages formed over pieces of rows."""
    import arraygnn.nn._row_chunks as chunks

    rng = np.random.default_rng(7)
    case = dict(case)
    edges = case.pop("edges")
    conv = agnn.GeneralConv(5, 4, 3 if edges else None, heads=2, dtype=np.float64, rng=0, **case)
    if conv.att_msg is not None:
        conv.att_msg = rng.standard_normal(conv.att_msg.shape)
    for lin in (conv.lin_msg, conv.lin_edge, conv.lin_msg_i):
        if lin is not None:
            lin.bias = rng.standard_normal(lin.bias.shape)
    x = _feats(rng, 40, 5, np.float64)
    ei = random_graph(rng, 40, 40, num_edges=250, isolated=4)
    e = _feats(rng, 250, 3, np.float64) if edges else None
    out = conv(x, ei, e)
    monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", 2000)
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    monkeypatch.setattr(
        agnn.GeneralConv,
        "_aggregate",
        lambda self, csr, xs, xd, es: self._per_edge(
            csr,
            self._heads(self.lin_msg(xs)),
            None if self.lin_msg_i is None else self._heads(self.lin_msg_i(xd)),
            xs,
            xd,
            es,
        ),
    )
    assert rel_err(conv(x, ei, e), out) <= 1e-13


# ---- CGConv ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 3])
@pytest.mark.parametrize("batch_norm", [False, True])
@pytest.mark.parametrize("bipartite", [False, True])
def test_cg_conv_matches_pyg(dtype, dim, batch_norm, bipartite):
    rng = np.random.default_rng(8)
    n_src, n_dst = (17, 12) if bipartite else (15, 15)
    sizes = (4, 6) if bipartite else 6
    for aggr, index_dtype in zip(["add", "mean", "max"], INDEX_DTYPES * 2):
        torch.manual_seed(0)
        module = pyg_nn.CGConv(sizes, dim, aggr=aggr, batch_norm=batch_norm)
        if batch_norm:
            module.bn.running_mean.normal_()
            module.bn.running_var.uniform_(0.5, 2.0)
            module.bn.eps = 1e-3
        module = module.eval().to(_torch_dtype(dtype))
        conv = agnn.from_pyg(module)
        assert isinstance(conv, agnn.CGConv)
        x = _x(rng, bipartite, n_src, n_dst, 4 if bipartite else 6, 6, dtype)
        for ei in _graphs(rng, n_src, n_dst, index_dtype):
            e = _feats(rng, ei.shape[1], dim, dtype) if dim else None
            _check(conv(x, ei, e), _ref(module, x, ei, e), dtype)


def test_cg_conv_pieces_of_rows_agree(monkeypatch):
    import arraygnn.nn._row_chunks as chunks

    rng = np.random.default_rng(9)
    conv = agnn.CGConv(5, dim=2, aggr="mean", dtype=np.float64, rng=0)
    x = _feats(rng, 50, 5, np.float64)
    ei = random_graph(rng, 50, 50, num_edges=400, isolated=6)
    e = _feats(rng, 400, 2, np.float64)
    out = conv(x, ei, e)
    monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", 700)
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    np.testing.assert_allclose(conv(x, ei, e), out, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(conv(x, ops.to_csr(ei, 50, 50), e), out, rtol=1e-13, atol=1e-15)


# ---- GravNetConv -------------------------------------------------------------------
def _brute_knn(x, y, ptr_x, ptr_y, k, cosine, num_workers):
    """pyg-lib's ``knn`` (row 0 indexes y, row 1 x), by brute force in float64."""
    ptr_x = torch.tensor([0, x.size(0)]) if ptr_x is None else ptr_x
    ptr_y = torch.tensor([0, y.size(0)]) if ptr_y is None else ptr_y
    rows, cols = [], []
    for b in range(len(ptr_y) - 1):
        xs, xe, ys, ye = (int(v) for v in (ptr_x[b], ptr_x[b + 1], ptr_y[b], ptr_y[b + 1]))
        if xe == xs or ye == ys:
            continue
        d = ((y[ys:ye, None].double() - x[None, xs:xe].double()) ** 2).sum(-1)
        kk = min(k, xe - xs)
        idx = torch.topk(d, kk, dim=1, largest=False).indices
        rows.append(torch.arange(ys, ye).repeat_interleave(kk))
        cols.append(idx.reshape(-1) + xs)
    if not rows:
        return torch.zeros(2, 0, dtype=torch.long)
    return torch.stack([torch.cat(rows), torch.cat(cols)])


@pytest.fixture(scope="module")
def pyg_knn():
    """PyG's GravNetConv calls pyg-lib's ``torch.ops.pyg.knn`` (not installable here): a
    brute-force stand-in is registered when it is missing."""
    import torch_geometric.typing

    lib = None
    try:
        torch.ops.pyg.knn  # noqa: B018
    except (AttributeError, RuntimeError):
        lib = torch.library.Library("pyg", "FRAGMENT")
        lib.define(
            "knn(Tensor x, Tensor y, Tensor? ptr_x, Tensor? ptr_y, int k, bool cosine, "
            "int num_workers) -> Tensor"
        )
        lib.impl("knn", _brute_knn, "CompositeExplicitAutograd")
    saved = torch_geometric.typing.WITH_KNN
    torch_geometric.typing.WITH_KNN = True
    yield
    torch_geometric.typing.WITH_KNN = saved
    del lib


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bipartite", [False, True])
def test_grav_net_conv_matches_pyg(pyg_knn, dtype, bipartite):
    rng = np.random.default_rng(10)
    torch.manual_seed(0)
    module = pyg_nn.GravNetConv(5, 4, 3, 6, k=4).to(_torch_dtype(dtype))
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.GravNetConv) and conv.k == 4
    n_src, n_dst = (21, 14) if bipartite else (21, 21)
    x = _x(rng, bipartite, n_src, n_dst, 5, 5, dtype)
    b_src = np.repeat(np.arange(3), [9, 2, 10])  # example 1 has fewer than k points
    b_dst = np.repeat(np.arange(3), [5, 4, 5]) if bipartite else b_src
    batch = (b_src, b_dst) if bipartite else b_src
    for b in (None, batch):
        with torch.no_grad():
            ref = module(_t(x), _t(b)).numpy()
        _check(conv(x, b), ref, dtype)


def test_grav_net_conv_lazy_in_channels(pyg_knn):
    """PyG's GravNetConv(-1, ...) sizes its Linears on the first call and keeps
    in_channels = -1: from_pyg reads the size off lin_s."""
    rng = np.random.default_rng(12)
    torch.manual_seed(0)
    module = pyg_nn.GravNetConv(-1, 3, 2, 5, k=3)
    x = _feats(rng, 9, 4, np.float32)
    with torch.no_grad():
        ref = module(_t(x)).numpy()
    conv = agnn.from_pyg(module)
    assert conv.in_channels == 4
    _check(conv(x), ref, np.float32)


def test_grav_net_conv_empty_example_and_no_sources():
    """A target whose example has no source points pools 0: only lin_out1 and the bias."""
    rng = np.random.default_rng(11)
    conv = agnn.GravNetConv(4, 3, 2, 5, k=3, dtype=np.float64, rng=0)
    x_src, x_dst = _feats(rng, 6, 4, np.float64), _feats(rng, 4, 4, np.float64)
    out = conv((x_src, x_dst), (np.zeros(6, np.int64), np.array([0, 0, 1, 1])))
    alone = conv.lin_out1(x_dst[2:]) + conv.lin_out2.bias
    np.testing.assert_allclose(out[2:], alone, rtol=1e-14)
    out = conv((x_src[:0], x_dst))
    np.testing.assert_allclose(out, conv.lin_out1(x_dst) + conv.lin_out2.bias, rtol=1e-14)


# ---- PDNConv -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("loops", [True, False])
def test_pdn_conv_matches_pyg(dtype, normalize, loops):
    rng = np.random.default_rng(12)
    torch.manual_seed(0)
    module = pyg_nn.PDNConv(5, 4, 3, 7, add_self_loops=loops, normalize=normalize)
    torch.nn.init.normal_(module.bias)
    module = module.to(_torch_dtype(dtype))
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.PDNConv)
    for index_dtype in INDEX_DTYPES:
        x = _feats(rng, 16, 5, dtype)
        for ei in _graphs(rng, 16, 16, index_dtype):
            e = _feats(rng, ei.shape[1], 3, dtype)
            _check(conv(x, ei, e), _ref(module, x, ei, e), dtype)
            if normalize:
                _check(conv(x, ei), _ref(module, x, ei, None), dtype)


def test_pdn_conv_edge_mlp_in_pieces(monkeypatch):
    import arraygnn.nn.pdn_conv as pdn

    rng = np.random.default_rng(13)
    conv = agnn.PDNConv(4, 3, 2, 6, dtype=np.float64, rng=0)
    e = _feats(rng, 500, 2, np.float64)
    whole = conv.edge_weights(e)
    monkeypatch.setattr(pdn, "EDGE_CHUNK_BYTES", 6 * 8 * 7)
    np.testing.assert_allclose(conv.edge_weights(e), whole, rtol=1e-15)


def test_map_row_chunks_pieces(monkeypatch):
    """Pieces of whole rows, at least one row each, stacked in row order; the slots of a
    piece are the parent's slots first:last."""
    import arraygnn.nn._row_chunks as chunks

    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    rng = np.random.default_rng(15)
    ei = random_graph(rng, 30, 30, num_edges=200, isolated=4)
    csr = ops.to_csr(ei, 30, 30)
    slot_values = rng.standard_normal((200, 3))
    pieces = []

    def rows(part, start, stop, first, last):
        pieces.append((start, stop))
        assert part.num_edges == last - first and part.num_dst_nodes == stop - start
        return ops.segment(slot_values[first:last], part.indptr)

    out = chunks.map_row_chunks(csr, 8, rows, step_bytes=8 * 25)
    assert len(pieces) > 4 and pieces[0][0] == 0 and pieces[-1][1] == 30
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
    np.testing.assert_allclose(out, ops.segment(slot_values, csr.indptr), rtol=1e-15)
    pieces.clear()
    np.testing.assert_array_equal(chunks.map_row_chunks(csr, 8, rows), out)
    assert pieces == [(0, 30)]  # small graph: one piece


# ---- shared: inputs untouched, state dicts -----------------------------------------
def test_inputs_untouched_and_state_dict_round_trip():
    rng = np.random.default_rng(14)
    x = _feats(rng, 12, 4, np.float32)
    ei = random_graph(rng, 12, 12, num_edges=40)
    e = _feats(rng, 40, 2, np.float32)
    et = rng.integers(0, 2, 40)
    calls = [
        (lambda seed: agnn.MFConv(4, 3, rng=seed), (x, ei)),
        (lambda seed: agnn.FiLMConv(4, 3, 2, rng=seed), (x, ei, et)),
        (lambda seed: agnn.GeneralConv(4, 3, 2, attention=True, rng=seed), (x, ei, e)),
        (lambda seed: agnn.CGConv(4, 2, batch_norm=True, rng=seed), (x, ei, e)),
        (lambda seed: agnn.GravNetConv(4, 3, 2, 5, 3, rng=seed), (x,)),
        (lambda seed: agnn.PDNConv(4, 3, 2, 5, rng=seed), (x, ei, e)),
    ]
    for make, args in calls:
        conv, other = make(0), make(1)
        copies = [a.copy() for a in args]
        out = conv(*args)
        for before, after in zip(copies, args):
            np.testing.assert_array_equal(before, after)
        assert not np.array_equal(other(*args), out)
        other.load_state_dict(conv.state_dict())
        np.testing.assert_array_equal(other(*args), out)


# ---- errors ------------------------------------------------------------------------
def test_errors_name_the_layer():
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    bad = np.array([[0, 9], [1, 2]])
    e = np.ones((2, 2), np.float32)
    et = np.array([0, 1])
    layers = {
        "MFConv": (agnn.MFConv(3, 2, rng=0), ()),
        "FiLMConv": (agnn.FiLMConv(3, 2, 2, rng=0), (et,)),
        "GeneralConv": (agnn.GeneralConv(3, 2, 2, rng=0), (e,)),
        "CGConv": (agnn.CGConv(3, 2, rng=0), (e,)),
        "PDNConv": (agnn.PDNConv(3, 2, 2, 4, rng=0), (e,)),
    }
    for name, (conv, rest) in layers.items():
        with pytest.raises(ValueError, match=rf"{name}: edge_index\[0\] \(sources\)"):
            conv(x, bad, *rest)
        with pytest.raises(ValueError, match=rf"{name}: edge_index must have shape \[2, E\]"):
            conv(x, ei[0], *rest)
        with pytest.raises(TypeError, match=rf"{name}: edge_index must hold integers"):
            conv(x, ei.astype(np.float32), *rest)
        with pytest.raises(ValueError, match="expected last dimension 3"):
            conv(np.ones((4, 5), np.float32), ei, *rest)
        with pytest.raises(TypeError, match=rf"{name}: x must be a NumPy or CuPy array"):
            conv(x.tolist(), ei, *rest)
    with pytest.raises(ValueError, match=r"FiLMConv: edge_type has relation 2, out of range"):
        layers["FiLMConv"][0](x, ei, np.array([0, 2]))
    with pytest.raises(ValueError, match=r"FiLMConv: edge_type must have shape \(2,\)"):
        layers["FiLMConv"][0](x, ei, np.array([0]))
    with pytest.raises(TypeError, match="FiLMConv: edge_type is required"):
        layers["FiLMConv"][0](x, ei)
    with pytest.raises(ValueError, match=r"GeneralConv: edge_attr must have shape \(2, 2\)"):
        layers["GeneralConv"][0](x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match="GeneralConv: edge_attr given but the layer has no"):
        agnn.GeneralConv(3, 2, rng=0)(x, ei, e)
    with pytest.raises(ValueError, match="GeneralConv: attention_type must be"):
        agnn.GeneralConv(3, 2, attention=True, attention_type="cosine")
    with pytest.raises(ValueError, match="CGConv: edge_attr is required"):
        layers["CGConv"][0](x, ei)
    with pytest.raises(ValueError, match="CGConv: edge_attr given but the layer has dim=0"):
        agnn.CGConv(3, rng=0)(x, ei, e)
    with pytest.raises(ValueError, match=r"CGConv: x\[1\] is None"):
        layers["CGConv"][0]((x, None), ei, e)
    with pytest.raises(ValueError, match="GeneralConv: needs destination features"):
        layers["GeneralConv"][0]((x, None), ei, e, size=(4, 4))
    with pytest.raises(ValueError, match="PDNConv: edge_attr is required with normalize=False"):
        agnn.PDNConv(3, 2, 2, 4, normalize=False, rng=0)(x, ei)
    with pytest.raises(TypeError, match="PDNConv: takes one feature array"):
        layers["PDNConv"][0]((x, x), ei, e)
    with pytest.raises(TypeError, match="PDNConv: edge_attr must hold floating-point"):
        layers["PDNConv"][0](x, ei, e.astype(np.int64))
    with pytest.raises(ValueError, match=r"MFConv: node features must be \(N, F\)"):
        layers["MFConv"][0](np.ones((4, 2, 3), np.float32), ei)
    with pytest.raises(ValueError, match=r"MFConv: node features must be \(N, F\)"):
        agnn.MFConv((3, 3), 2, rng=0)((x, np.ones((4, 2, 3), np.float32)), ei)
    with pytest.raises(ValueError, match="MFConv: aggr must be one of"):
        agnn.MFConv(3, 2, aggr="std")
    with pytest.raises(ValueError, match="FiLMConv: num_relations must be in"):
        agnn.FiLMConv(3, 2, 0)
    grav = agnn.GravNetConv(3, 2, 2, 4, k=2, rng=0)
    with pytest.raises(ValueError, match=r"GravNetConv: node features must be \(N, F\)"):
        grav(np.ones((2, 4, 3), np.float32))
    with pytest.raises(ValueError, match="GravNetConv x: expected last dimension 3"):
        grav(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError, match="GravNetConv: x must be an array or a pair"):
        grav((x, x, x))
    with pytest.raises(ValueError, match=r"GravNetConv: knn: batch_x must have shape \(4,\)"):
        grav(x, np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="GravNetConv: x must be a NumPy or CuPy array"):
        grav([[1.0, 2.0, 3.0]])
