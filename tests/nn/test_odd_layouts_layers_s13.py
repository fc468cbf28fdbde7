"""Odd array layouts and dtypes through the layers, containers and loaders: the same values
as a big-endian, Fortran-order, strided, negatively strided or read-only array, or with a
narrow / unsigned index dtype, give the result of the plain array; a float, bool or 0-d index
array, an id >= 2**63 and object / complex features raise an error naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn as ag
import arraygnn.function as fn
import arraygnn.nn as agnn
from arraygnn import Batch, Data, HeteroData, NeighborLoader
from arraygnn import utils as U
from arraygnn.graph_tensor import (
    CONTEXT,
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
    broadcast,
    pool,
)

N, F, E = 7, 4, 15
_rng = np.random.default_rng(0)
X = _rng.standard_normal((N, F)).astype(np.float32)
EI = np.stack([_rng.integers(0, N, E), _rng.integers(0, N, E)]).astype(np.int64)
EI[:, :N] = np.stack([np.arange(N), (np.arange(N) + 1) % N])  # no zero in-degree
W = _rng.random(E).astype(np.float32)
BATCH = np.array([0, 0, 0, 1, 1, 2, 2])


def _big(a):
    return a.astype(a.dtype.newbyteorder(">" if a.dtype.byteorder != ">" else "<"))


def _strided(a):
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    wide[..., ::2] = a
    return wide[..., ::2]


def _rows_strided(a):
    tall = np.zeros((2 * a.shape[0],) + a.shape[1:], a.dtype)
    tall[::2] = a
    return tall[::2]


def _negative(a):
    return np.flip(np.flip(a, -1).copy(), -1)


def _read_only(a):
    a = a.copy()
    a.setflags(write=False)
    return a


FORMS = {
    "big_endian": _big,
    "fortran": np.asfortranarray,
    "col_strided": _strided,
    "row_strided": _rows_strided,
    "negative": _negative,
    "transposed_copy": lambda a: a.T.copy().T,
    "read_only": _read_only,
}
INDEX_DTYPES = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64, np.int32]
INDEX_FORMS = {
    **FORMS,
    **{np.dtype(d).name: (lambda a, d=d: a.astype(d)) for d in INDEX_DTYPES},
    "big_endian_uint32": lambda a: _big(a.astype(np.uint32)),
    "big_endian_int16": lambda a: _big(a.astype(np.int16)),
}
BAD_INDEX = {
    "float": (lambda a: a.astype(np.float64), TypeError),
    "bool": (lambda a: a.astype(bool), TypeError),
    "uint64_huge": (lambda a: np.where(a == 0, np.uint64(2**63), a.astype(np.uint64)), ValueError),
}


def _same(got, want):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-5, atol=1e-6)


def _guarded(*arrays):
    """Copies of the caller's arrays, to check nothing was modified."""
    return [np.array(a, copy=True) for a in arrays]


def _unchanged(arrays, copies):
    for a, c in zip(arrays, copies):
        np.testing.assert_array_equal(a, c)


# ------------------------------------------------------------------------- layers
LAYERS = {
    "GCNConv": lambda: agnn.GCNConv(F, 3, rng=0),
    "SAGEConv": lambda: agnn.SAGEConv(F, 3, rng=0),
    "GATConv": lambda: agnn.GATConv(F, 3, heads=2, rng=0),
    "GINConv": lambda: agnn.GINConv(agnn.Linear(F, 3, rng=0)),
    "GraphConv": lambda: agnn.GraphConv(F, 3, rng=0),
    "TransformerConv": lambda: agnn.TransformerConv(F, 3, heads=2, rng=0),
}
WEIGHTED = ("GCNConv", "SAGEConv", "GINConv", "GraphConv")


def _forms(name):
    """Every form for GCNConv; the others skip read-only arrays, whose kernels Numba
    compiles a second time (seconds each on CI's cold cache; the engine's read-only cases
    are in tests/ops/test_ops_odd_layouts_s13.py)."""
    return [f for k, f in FORMS.items() if name == "GCNConv" or k != "read_only"]


@pytest.mark.parametrize("name", list(LAYERS))
def test_layers_odd_features_and_edge_index(name):
    layer = LAYERS[name]()
    want = layer(X, EI)
    for form in _forms(name):
        x, ei = form(X), form(EI)
        copies = _guarded(x, ei)
        _same(layer(x, EI), want)
        _same(layer(X, ei), want)
        _unchanged((x, ei), copies)
    for key, form in INDEX_FORMS.items():
        if name == "GCNConv" or key != "read_only":
            _same(layer(X, form(EI)), want)
    # the DGL face: ids and features in odd forms
    g = ag.graph((_big(EI[0].astype(np.uint32)), EI[1].astype(np.uint16)), num_nodes=N)
    _same(layer(g, np.asfortranarray(X)), want)
    if name in WEIGHTED:
        want_w = layer(X, EI, W)
        for form in _forms(name):
            _same(layer(X, EI, form(W)), want_w)


@pytest.mark.parametrize("name", list(LAYERS))
def test_layers_refuse_bad_inputs(name):
    layer = LAYERS[name]()
    for make, exc in BAD_INDEX.values():
        with pytest.raises(exc, match="edge_index"):
            layer(X, make(EI))
    for dtype in (np.complex64, object):
        with pytest.raises(TypeError):
            layer(X.astype(dtype), EI)


@pytest.mark.parametrize("name", ["GCNConv", "SAGEConv", "GINConv"])
def test_layers_empty_edges_and_rows(name):
    layer = LAYERS[name]()
    none = np.zeros((2, 0), np.int64)
    want = layer(X, none)
    _same(layer(X, none.astype(np.uint32)), want)
    assert layer(X[:0], none).shape == (0, 3)


def test_dense_blocks_odd_layouts():
    blocks = {
        "Linear": agnn.Linear(F, 3, rng=0),
        "MLP": agnn.MLP([F, 5, 3], rng=0),
        "BatchNorm": agnn.BatchNorm(F),
        "LayerNorm": agnn.LayerNorm(F),
    }
    for name, block in blocks.items():
        want = block(X)
        for form in FORMS.values():
            _same(block(form(X)), want)
        assert block(X[:0]).shape[0] == 0, name
        with pytest.raises(TypeError):
            block(X.astype(object))


@pytest.mark.parametrize("pool_name", ["global_add_pool", "global_mean_pool", "global_max_pool"])
def test_global_pools_odd_batch(pool_name):
    readout = getattr(agnn, pool_name)
    want = readout(X, BATCH)
    for form in FORMS.values():
        _same(readout(form(X), BATCH), want)
    for form in INDEX_FORMS.values():
        _same(readout(X, form(BATCH)), want)
    for make, exc in BAD_INDEX.values():
        with pytest.raises(exc, match="batch"):
            readout(X, make(BATCH))
    with pytest.raises(ValueError, match="batch"):
        readout(X, np.array(0))


# ---------------------------------------------------------------------- collation
def _graph(xf=lambda a: a, ef=lambda a: a):
    return Data(x=xf(X.copy()), edge_index=ef(EI.copy()), y=np.arange(3))


_COLLATE_FORMS = {
    **FORMS,
    "uint32": lambda a: a.astype(np.uint32),
    "u16be": INDEX_FORMS["big_endian_int16"],
}


@pytest.mark.parametrize("form", list(_COLLATE_FORMS))
def test_collation_odd_arrays(form):
    f = _COLLATE_FORMS[form]
    xf = f if form in FORMS else (lambda a: a)  # index dtypes: edge_index only
    want = Batch.from_data_list([_graph(), _graph()])
    if form not in FORMS:  # another dtype than graph 0's: the documented TypeError
        with pytest.raises(TypeError, match="key 'edge_index' in graph 1"):
            Batch.from_data_list([_graph(), _graph(ef=f)])
    mixed = [[_graph(), _graph(xf=xf, ef=f)]] if form in FORMS else []
    for graphs in [[_graph(xf=xf), _graph(xf=xf)], [_graph(ef=f), _graph(ef=f)], *mixed]:
        copies = [_guarded(d.x, d.edge_index) for d in graphs]
        b = Batch.from_data_list(graphs)
        for key in ("x", "edge_index", "batch", "ptr", "y"):
            np.testing.assert_array_equal(b[key], want[key])
            # a batch is one fresh allocation: always in the machine's byte order, so
            # to_torch / to_jax can adopt it (docs/collation.md)
            assert b[key].dtype.isnative, (key, b[key].dtype)
        for d, back in zip(graphs, b.to_data_list()):
            np.testing.assert_array_equal(back.x, d.x)
            np.testing.assert_array_equal(back.edge_index, d.edge_index)
        for d, c in zip(graphs, copies):
            _unchanged((d.x, d.edge_index), c)
    stored = _graph(xf=xf, ef=f)  # Data stores what it is given
    assert stored.x.dtype == xf(X).dtype and stored.edge_index.dtype == f(EI).dtype
    assert stored.validate()


def test_hetero_collation_big_endian_is_native():
    h = HeteroData()
    h["a"].x = _big(X)
    h["a", "r", "a"].edge_index = _big(EI)
    b = Batch.from_data_list([h, h])
    assert b["a"].x.dtype == np.float32 and b["a", "r", "a"].edge_index.dtype == np.int64
    np.testing.assert_array_equal(b["a"].x, np.concatenate([X, X]))
    np.testing.assert_array_equal(b["a", "r", "a"].edge_index, np.concatenate([EI, EI + N], 1))
    for back in b.to_data_list():
        np.testing.assert_array_equal(back["a"].x, X)


def test_collation_refuses_bad_index():
    for make, exc in BAD_INDEX.values():
        with pytest.raises(exc, match="edge_index"):
            Batch.from_data_list([Data(x=X, edge_index=make(EI))])


# ------------------------------------------------------------------------- loader
def _sampled(ei, x=X):
    data = Data(x=x, edge_index=ei)
    loader = NeighborLoader(data, num_neighbors=[-1, -1], batch_size=3, shuffle=False)
    return [(b.n_id.copy(), b.edge_index.astype(np.int64), b.x.copy()) for b in loader]


def test_neighbor_loader_odd_edge_index():
    want = _sampled(EI)
    for name in (
        "big_endian",
        "fortran",
        "negative",
        "read_only",
        "uint32",
        "uint8",
        "big_endian_uint32",
    ):
        got = _sampled(INDEX_FORMS[name](EI))
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            for a, b in zip(g, w):
                np.testing.assert_array_equal(a, b)
    got = _sampled(EI, _big(X))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g[2], w[2])
    with pytest.raises(TypeError, match="integers"):
        _sampled(EI.astype(np.float64))


# ------------------------------------------------------------------------ DGL face
def _update_all(src, dst, feat, w=None):
    g = ag.graph((src, dst), num_nodes=N)
    g.ndata["h"] = feat
    if w is None:
        g.update_all(fn.copy_u("h", "m"), fn.sum("m", "o"))
    else:
        g.edata["w"] = w
        g.update_all(fn.u_mul_e("h", "w", "m"), fn.sum("m", "o"))
    return g.ndata["o"]


def test_dgl_graph_and_update_all_odd_inputs():
    want = _update_all(EI[0], EI[1], X)
    want_w = _update_all(EI[0], EI[1], X, W[:, None])
    for form in FORMS.values():
        ei, x, w = form(EI), form(X), form(W[:, None])
        copies = _guarded(ei, x, w)
        _same(_update_all(ei[0], ei[1], X), want)
        _same(_update_all(EI[0], EI[1], x), want)
        _same(_update_all(EI[0], EI[1], X, w), want_w)
        _unchanged((ei, x, w), copies)
    for form in INDEX_FORMS.values():
        ei = form(EI)
        _same(_update_all(ei[0], ei[1], X), want)
    for make, exc in BAD_INDEX.values():
        with pytest.raises(exc, match="src"):
            ag.graph((make(EI[0]), EI[1]), num_nodes=N)
    with pytest.raises(ValueError, match="src"):
        ag.graph((np.array(1), np.array(2)), num_nodes=N)
    with pytest.raises(TypeError):
        _update_all(EI[0], EI[1], X.astype(object))


# -------------------------------------------------------------- GraphTensor pieces
def _gt(s, t, x=X, sizes=None):
    sizes = np.array([N]) if sizes is None else sizes
    adj = Adjacency.from_indices(("n", s), ("n", t))
    return GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=sizes, features={"h": x})},
        edge_sets={"e": EdgeSet.from_fields(sizes=np.array([E]), adjacency=adj, features={"w": W})},
    )


def _gt_ops(gt):
    msg = broadcast(gt, SOURCE, edge_set_name="e", feature_name="h")
    return (
        pool(gt, TARGET, edge_set_name="e", reduce_type="sum", feature_value=msg),
        pool(gt, TARGET, edge_set_name="e", reduce_type="max", feature_value=msg),
        pool(gt, TARGET, edge_set_name="e", reduce_type="mean", feature_name="w"),
        pool(gt, CONTEXT, node_set_name="n", reduce_type="sum", feature_name="h"),
    )


def test_graph_tensor_odd_indices_and_features():
    want = _gt_ops(_gt(EI[0], EI[1]))
    for form in FORMS.values():
        _same(_gt_ops(_gt(form(EI)[0], form(EI)[1])), want)
        _same(_gt_ops(_gt(form(EI[0]), form(EI[1]))), want)
        _same(_gt_ops(_gt(EI[0], EI[1], form(X))), want)
    for form in INDEX_FORMS.values():
        _same(_gt_ops(_gt(form(EI[0]), form(EI[1]), sizes=form(np.array([N])))), want)
    for make, _exc in BAD_INDEX.values():  # (a float / bool dtype is a ValueError here)
        with pytest.raises((TypeError, ValueError), match="source"):
            _gt(make(EI[0]), EI[1])
    with pytest.raises(ValueError, match="source"):
        Adjacency.from_indices(("n", np.array(1)), ("n", np.array(1)))
    for dtype in (np.complex64, object):
        with pytest.raises(TypeError, match="dtype"):
            _gt_ops(_gt(EI[0], EI[1], X.astype(dtype)))


# -------------------------------------------------------------------------- utils
def _utils(ei, w=W):
    keep = np.array([0, 2, 3, 5])
    return (
        U.degree(ei[1], N),
        U.degree(ei[0], N, dtype=np.float32),
        U.to_undirected(ei, num_nodes=N),
        U.to_undirected(ei, w, num_nodes=N)[1],
        U.coalesce(ei, num_nodes=N),
        U.coalesce(ei, w, num_nodes=N)[1],
        U.add_self_loops(ei, num_nodes=N)[0],
        U.subgraph(keep, ei, num_nodes=N, relabel_nodes=True)[0],
        U.subgraph(keep, ei, w, num_nodes=N)[1],
    )


def test_utils_odd_edge_index_and_weights():
    want = _utils(EI)
    for form in FORMS.values():
        ei, w = form(EI), form(W)
        copies = _guarded(ei, w)
        _same(_utils(ei), want)
        _same(_utils(EI, w), want)
        _unchanged((ei, w), copies)
    for form in INDEX_FORMS.values():
        _same(_utils(form(EI)), want)
    keep = np.array([0, 2, 3, 5])
    for subset in (np.isin(np.arange(N), keep), keep.astype(np.uint8), _big(keep)):
        _same(U.subgraph(subset, EI, num_nodes=N, relabel_nodes=True)[0], want[7])
    calls = {
        "degree": lambda e: U.degree(e[1], N),
        "to_undirected": lambda e: U.to_undirected(e, num_nodes=N),
        "coalesce": lambda e: U.coalesce(e, num_nodes=N),
        "add_self_loops": lambda e: U.add_self_loops(e, num_nodes=N),
        "subgraph": lambda e: U.subgraph(keep, e, num_nodes=N),
    }
    for name, call in calls.items():
        for make, exc in BAD_INDEX.values():
            with pytest.raises(exc, match=name):
                call(make(EI))
        none = call(np.zeros((2, 0), np.uint32))
        assert (none if not isinstance(none, tuple) else none[0]).shape[-1] in (0, N)
    with pytest.raises(ValueError, match="index"):
        U.degree(np.array(3), N)
    with pytest.raises(TypeError, match="subset"):
        U.subgraph(keep.astype(np.float64), EI, num_nodes=N)
