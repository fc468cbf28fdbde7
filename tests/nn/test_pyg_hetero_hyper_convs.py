"""HANConv, HEATConv, HypergraphConv, WLConv and WLConvContinuous against PyG (weights through
``from_pyg``; float32 within 1e-5 relative, float64 within 1e-12) on random multigraphs with
self-loops, repeated edges and nodes without in-edges, empty edge sets, int32 / int64 ids;
missing edge types and empty node types (HAN), empty hyperedges and nodes in no hyperedge
(hypergraph), PyG's colours and hashmap over a sequence of calls (WL); state-dict names;
errors naming the layer and the argument."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if isinstance(a, dict):
        return {k: _t(v) for k, v in a.items()}
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)  # PyG's ids
    return torch.from_numpy(np.ascontiguousarray(a))


def _converted(ref, dtype):
    """``ref`` in ``dtype``, every parameter drawn from U(-1, 1), eval mode, converted."""
    torch.manual_seed(0)
    ref = ref.to(torch.float64 if dtype == np.float64 else torch.float32).eval()
    for p in ref.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    conv = agnn.from_pyg(ref)
    assert sorted(conv.state_dict()) == sorted(ref.state_dict())
    return ref, conv


def _edges(rng, kind, num_src, num_dst, index_dtype, num_edges=40):
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    return random_graph(rng, num_src, num_dst, num_edges, index_dtype, isolated=2)


# ---- HANConv ------------------------------------------------------------------------------
META = (
    ["paper", "author", "inst"],
    [
        ("author", "writes", "paper"),
        ("paper", "cites", "paper"),
        ("paper", "rev_writes", "author"),
        ("inst", "employs", "author"),
    ],
)
SIZES = {"paper": 12, "author": 7, "inst": 3}
IN = {"paper": 5, "author": 3, "inst": 4}


def _hetero_inputs(rng, dtype, index_dtype, kind, sizes=SIZES, edge_types=None):
    x = {t: rng.standard_normal((n, IN[t])).astype(dtype) for t, n in sizes.items()}
    ei = {}
    for j, et in enumerate(META[1] if edge_types is None else edge_types):
        s, _, d = et
        this = "empty" if (kind == "one-empty" and j == 1) else kind
        ei[et] = _edges(rng, this, sizes[s], sizes[d], index_dtype, 30)
    return x, ei


def _check_han(conv, ref, x, ei, dtype):
    x_copy = {k: v.copy() for k, v in x.items()}
    ei_copy = {k: v.copy() for k, v in ei.items()}
    out, beta = conv(x, ei, return_semantic_attention_weights=True)
    with torch.no_grad():
        exp, exp_beta = ref(_t(x), _t(ei), return_semantic_attention_weights=True)
    assert list(out) == list(exp)
    for t in exp:
        if exp[t] is None:
            assert out[t] is None
            continue
        assert out[t].dtype == dtype
        assert rel_err(out[t], exp[t].numpy()) <= TOL[dtype], t
        if exp_beta[t] is None:
            assert beta[t] is None
        else:
            assert rel_err(beta[t], exp_beta[t].numpy()) <= TOL[dtype], t
    for k in x:
        np.testing.assert_array_equal(x[k], x_copy[k])
    for k in ei:
        np.testing.assert_array_equal(ei[k], ei_copy[k])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "one-empty", "empty"])
@pytest.mark.parametrize("heads", [1, 3])
def test_han_matches_pyg(heads, kind, index_dtype, dtype):
    ref, conv = _converted(pyg_nn.HANConv(IN, 6, META, heads=heads, negative_slope=0.1), dtype)
    rng = np.random.default_rng(1)
    x, ei = _hetero_inputs(rng, dtype, index_dtype, kind)
    _check_han(conv, ref, x, ei, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_han_missing_edge_and_node_types(dtype):
    """Edge types left out of the call, a node type without features (no edge type uses
    it), a destination type without rows, and a type no edge points at (None, as PyG)."""
    ref, conv = _converted(pyg_nn.HANConv(IN, 4, META, heads=2), dtype)
    rng = np.random.default_rng(2)
    sizes = {"paper": 9, "author": 0}
    x, ei = _hetero_inputs(rng, dtype, np.int64, "multi", sizes, [META[1][1], META[1][2]])
    ei[META[1][2]] = np.zeros((2, 0), np.int64)
    _check_han(conv, ref, x, ei, dtype)
    x, ei = _hetero_inputs(rng, dtype, np.int64, "multi", {"paper": 9, "author": 4}, [META[1][1]])
    out = conv(x, ei)
    assert out["author"] is None
    _check_han(conv, ref, x, ei, dtype)
    # no edge types at all: every output None
    assert conv(x, {}) == {"paper": None, "author": None}


def test_han_lazy_sizes_and_state_dict():
    ref = pyg_nn.HANConv(-1, 4, META, heads=2).eval()
    rng = np.random.default_rng(3)
    x, ei = _hetero_inputs(rng, np.float32, np.int64, "multi")
    with torch.no_grad():
        ref(_t(x), _t(ei))  # materialise the lazy projections
    conv = agnn.from_pyg(ref)
    _check_han(conv, ref, x, ei, np.float32)
    fresh = agnn.HANConv(IN, 4, META, heads=2).load_state_dict(ref.state_dict())
    out, exp = fresh(x, ei), conv(x, ei)
    for t in out:
        np.testing.assert_array_equal(out[t], exp[t])


def test_han_errors():
    conv = agnn.HANConv(IN, 4, META, heads=2, rng=0)
    rng = np.random.default_rng(4)
    x, ei = _hetero_inputs(rng, np.float32, np.int64, "multi")
    with pytest.raises(ValueError, match=r"HANConv: edge type .*'likes'.* not in metadata"):
        conv(x, {("paper", "likes", "paper"): ei[META[1][1]]})
    with pytest.raises(ValueError, match=r"HANConv: edge type .* needs x_dict\['inst'\]"):
        conv({"paper": x["paper"], "author": x["author"]}, ei)
    with pytest.raises(ValueError, match="HANConv: x_dict has node type 'venue'"):
        conv({**x, "venue": x["paper"]}, ei)
    bad = dict(ei)
    bad[META[1][0]] = ei[META[1][0]].copy()
    bad[META[1][0]][1, 0] = SIZES["paper"]
    with pytest.raises(ValueError, match=r"HANConv \(edge type .*'writes'.*\): edge_index\[1\]"):
        conv(x, bad)
    bad[META[1][0]] = ei[META[1][0]].astype(np.float32)
    with pytest.raises(TypeError, match=r"HANConv \(edge type .*\): edge_index must hold int"):
        conv(x, bad)
    with pytest.raises(ValueError, match="expected last dimension 5"):
        conv({**x, "paper": x["paper"][:, :4]}, ei)
    with pytest.raises(TypeError, match="HANConv: call as conv"):
        conv(x["paper"], ei)
    with pytest.raises(ValueError, match="divisible by heads"):
        agnn.HANConv(IN, 5, META, heads=2)
    with pytest.raises(ValueError, match="HANConv: edge type"):
        agnn.HANConv(IN, 4, (["a"], [("a", "r", "b")]))


# ---- HEATConv -----------------------------------------------------------------------------
N = 20
HEAT_CASES = [
    ("concat-root-bias", dict()),
    ("mean", dict(concat=False)),
    ("no-root", dict(root_weight=False)),
    ("mean-no-root-no-bias", dict(concat=False, root_weight=False, bias=False)),
    ("one-head", dict(heads=1, negative_slope=0.3)),
]


def _heat(**kw):
    kw.setdefault("heads", 3)
    return pyg_nn.HEATConv(6, 4, 3, 5, 2, 3, 4, **kw)


def _heat_inputs(rng, kind, index_dtype, dtype, n=N):
    ei = _edges(rng, kind, n, n, index_dtype, 70) if kind != "isolated" else None
    if kind == "isolated":
        ei = random_graph(rng, n - 5, n - 5, 50, index_dtype, isolated=1)
    e = ei.shape[1]
    return (
        rng.standard_normal((n, 6)).astype(dtype),
        ei,
        rng.integers(0, 3, n).astype(index_dtype),
        rng.integers(0, 5, e).astype(index_dtype),
        rng.standard_normal((e, 3)).astype(dtype),
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("case", HEAT_CASES, ids=[c[0] for c in HEAT_CASES])
def test_heat_matches_pyg(case, kind, index_dtype, dtype):
    ref, conv = _converted(_heat(**case[1]), dtype)
    rng = np.random.default_rng(5)
    args = _heat_inputs(rng, kind, index_dtype, dtype)
    copies = [a.copy() for a in args]
    out = conv(*args)
    with torch.no_grad():
        exp = ref(*[_t(a) for a in args]).numpy()
    assert out.dtype == dtype and out.shape == exp.shape
    assert rel_err(out, exp) <= TOL[dtype]
    for a, c in zip(args, copies):
        np.testing.assert_array_equal(a, c)


def test_heat_csr_and_sorted_types():
    """A CSR for edge_index, and nodes sorted by type (one BLAS product per type)."""
    from arraygnn import ops

    ref, conv = _converted(_heat(), np.float64)
    rng = np.random.default_rng(6)
    x, ei, nt, et, ea = _heat_inputs(rng, "multi", np.int64, np.float64)
    nt = np.sort(nt)
    with torch.no_grad():
        exp = ref(*[_t(a) for a in (x, ei, nt, et, ea)]).numpy()
    assert rel_err(conv(x, ops.to_csr(ei, N, N), nt, et, ea), exp) <= 1e-12


def test_heat_errors():
    conv = agnn.HEATConv(6, 4, 3, 5, 2, 3, 4, heads=2, rng=0)
    rng = np.random.default_rng(7)
    x, ei, nt, et, ea = _heat_inputs(rng, "multi", np.int64, np.float32)
    with pytest.raises(ValueError, match=r"HEATConv: edge_attr of shape \(70, 3\) is required"):
        conv(x, ei, nt, et)
    with pytest.raises(ValueError, match=r"HEATConv: edge_attr must have shape \(70, 3\)"):
        conv(x, ei, nt, et, ea[:, :2])
    bad = et.copy()
    bad[3] = 5
    with pytest.raises(ValueError, match="HEATConv: edge_type: type vector has entry 5"):
        conv(x, ei, nt, bad, ea)
    with pytest.raises(ValueError, match="type vector must have shape"):
        conv(x, ei, nt[:-1], et, ea)
    with pytest.raises(TypeError, match="HEATConv: x must be one"):
        conv((x, x), ei, nt, et, ea)
    bad = ei.copy()
    bad[0, 1] = N
    with pytest.raises(ValueError, match=r"HEATConv: edge_index\[0\]"):
        conv(x, bad, nt, et, ea)
    with pytest.raises(ValueError, match="HEATConv: num_edge_types"):
        agnn.HEATConv(6, 4, 3, 0, 2, 3, 4)


# ---- HypergraphConv -----------------------------------------------------------------------
HYPER_CASES = [
    ("plain", dict()),
    ("plain-nobias", dict(bias=False)),
    ("plain-mean-bias", dict(concat=False)),
    ("att", dict(use_attention=True, heads=3)),
    ("att-mean", dict(use_attention=True, heads=2, concat=False, negative_slope=0.3)),
    ("att-edge-mode", dict(use_attention=True, heads=2, attention_mode="edge")),
]


def _incidences(rng, kind, index_dtype, n=N, m=8):
    """``kind``: 'multi' (repeated incidences; the last 3 nodes and the last 2 hyperedges
    in none), or 'empty' (no incidences)."""
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    hi = np.stack([rng.integers(0, n - 3, 45), rng.integers(0, m - 2, 45)])
    hi[:, 1] = hi[:, 0]  # a repeated incidence
    return hi.astype(index_dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "empty"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", HYPER_CASES, ids=[c[0] for c in HYPER_CASES])
def test_hypergraph_matches_pyg(case, weighted, kind, index_dtype, dtype):
    ref, conv = _converted(pyg_nn.HypergraphConv(6, 4, **case[1]), dtype)
    rng = np.random.default_rng(8)
    m = 8
    x = rng.standard_normal((N, 6)).astype(dtype)
    hi = _incidences(rng, kind, index_dtype, N, m)
    w = rng.uniform(0.2, 2.0, m).astype(dtype) if weighted else None
    attr = rng.standard_normal((m, 6)).astype(dtype) if ref.use_attention else None
    copies = [a.copy() for a in (x, hi) + ((w,) if weighted else ())]
    out = conv(x, hi, w, attr, num_edges=m)
    with torch.no_grad():
        exp = ref(_t(x), _t(hi), _t(w), _t(attr), num_edges=m).numpy()
    assert out.dtype == dtype and out.shape == exp.shape
    assert rel_err(out, exp) <= TOL[dtype]
    for a, c in zip((x, hi) + ((w,) if weighted else ()), copies):
        np.testing.assert_array_equal(a, c)
    if kind == "multi" and not ref.use_attention and not weighted:  # PyG's inferred count
        with torch.no_grad():
            exp = ref(_t(x), _t(hi)).numpy()
        assert rel_err(conv(x, hi), exp) <= TOL[dtype]


def test_hypergraph_errors():
    conv = agnn.HypergraphConv(6, 4, use_attention=True, heads=2, rng=0)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    hi = _incidences(rng, "multi", np.int64)
    attr = rng.standard_normal((8, 6)).astype(np.float32)
    with pytest.raises(ValueError, match=r"HypergraphConv\(use_attention=True\) needs"):
        conv(x, hi)
    with pytest.raises(ValueError, match=r"hyperedge_index\[1\] \(hyperedge ids\) has entry"):
        conv(x, hi, hyperedge_attr=attr, num_edges=3)
    with pytest.raises(ValueError, match=r"hyperedge_attr must be \(9, 6\)"):
        conv(x, hi, hyperedge_attr=attr, num_edges=9)
    with pytest.raises(ValueError, match=r"HypergraphConv \(hyperedge_weight\): edge_weight"):
        conv(x, hi, np.ones((8, 1), np.float32), attr)
    with pytest.raises(ValueError, match=r"hyperedge_index\[0\] \(node ids\) has entry 20"):
        bad = hi.copy()
        bad[0, 4] = N
        conv(x, bad, None, attr)
    with pytest.raises(ValueError, match=r"hyperedge_index must have shape \(2, num_inc"):
        conv(x, hi[:1], None, attr)
    with pytest.raises(ValueError, match="attention_mode"):
        agnn.HypergraphConv(6, 4, attention_mode="nodes")
    with pytest.raises(ValueError, match="heads=2 and concat=True"):
        agnn.HypergraphConv(6, 4, heads=2)


# ---- WLConv / WLConvContinuous -------------------------------------------------------------
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_wl_colours_and_hashmap_match_pyg_over_calls(index_dtype):
    """Several graphs, several rounds each, one layer: PyG's colours and hashmap at every
    step (self-loops, repeated edges, nodes without in-edges, an empty graph)."""
    ref, conv = pyg_nn.WLConv(), agnn.WLConv()
    rng = np.random.default_rng(10)
    for kind in ("multi", "empty", "multi"):
        x = rng.integers(0, 3, N)
        ei = _edges(rng, kind, N, N, index_dtype, 60)
        for _ in range(3):
            exp = ref(_t(x), _t(ei)).numpy()
            out = conv(x, ei)
            assert out.dtype == np.int64
            np.testing.assert_array_equal(out, exp)
            assert conv.hashmap == ref.hashmap
            x = out


def test_wl_one_hot_from_pyg_and_histogram():
    ref = pyg_nn.WLConv()
    rng = np.random.default_rng(11)
    ei = _edges(rng, "multi", N, N, np.int64, 60)
    onehot = np.eye(4, dtype=np.float32)[rng.integers(0, 4, N)]
    colours = ref(_t(onehot), _t(ei)).numpy()
    conv = agnn.from_pyg(ref)  # the hashmap comes along (a copy)
    assert conv.hashmap == ref.hashmap and conv.hashmap is not ref.hashmap
    x = colours
    for _ in range(2):
        exp = ref(_t(x), _t(ei)).numpy()
        np.testing.assert_array_equal(conv(x, ei), exp)
        x = exp
    batch = np.sort(rng.integers(0, 3, N))
    for norm in (False, True):
        exp = ref.histogram(_t(x), _t(batch), norm=norm).numpy()
        out = conv.histogram(x, batch, norm=norm)
        assert out.dtype == exp.dtype
        np.testing.assert_allclose(out, exp, rtol=1e-6)
        exp = ref.histogram(_t(x), norm=norm).numpy()
        np.testing.assert_allclose(conv.histogram(x, norm=norm), exp, rtol=1e-6)
    assert conv.histogram(x, batch, batch_size=5)[3:].sum() == 0
    conv.reset_parameters()
    assert conv.hashmap == {}


def test_wl_python_fallback_gives_the_same_colours(monkeypatch):
    import arraygnn.nn._wl_hash as wl_hash

    rng = np.random.default_rng(12)
    ei = _edges(rng, "multi", N, N, np.int64, 60)
    x = rng.integers(0, 3, N)
    fast = agnn.WLConv()
    expected = fast(x, ei)
    monkeypatch.setattr(wl_hash, "kernel_matches_python", lambda: False)
    slow = agnn.WLConv()
    np.testing.assert_array_equal(slow(x, ei), expected)
    assert slow.hashmap == fast.hashmap


def test_wl_hash_kernel_is_python_hash():
    from arraygnn.nn._wl_hash import _tuple_hash, kernel_matches_python

    assert kernel_matches_python()
    rng = np.random.default_rng(13)
    for _ in range(300):
        values = rng.integers(-(2**63), 2**63 - 1, rng.integers(1, 8), dtype=np.int64)
        values[rng.integers(0, values.size)] = -1
        bits = np.array([_tuple_hash(values)], np.uint64).view(np.int64)[0]
        assert int(bits) == hash(tuple(int(v) for v in values))


def test_wl_errors():
    conv = agnn.WLConv()
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="WLConv: x must be"):
        conv(np.zeros(3, np.float32), ei)
    with pytest.raises(ValueError, match="WLConv: a 2-D x must hold one-hot rows"):
        conv(np.ones((3, 2), np.float32), ei)
    with pytest.raises(ValueError, match=r"WLConv: edge_index\[1\] \(targets\) has entry 2"):
        conv(np.zeros(2, np.int64), ei)
    with pytest.raises(ValueError, match=r"WLConv: edge_index must have shape \[2, E\]"):
        conv(np.zeros(3, np.int64), ei[:1])
    conv(np.zeros(3, np.int64), ei)
    with pytest.raises(ValueError, match=r"WLConv.histogram: x \(colours, 2 known\)"):
        conv.histogram(np.array([0, 2]))
    with pytest.raises(ValueError, match="WLConv.histogram: batch"):
        conv.histogram(np.array([0, 1]), np.array([0, 1, 1]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "empty"])
@pytest.mark.parametrize("weighted", [False, True])
def test_wl_continuous_matches_pyg(weighted, kind, index_dtype, dtype):
    ref = pyg_nn.WLConvContinuous()
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(14)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _edges(rng, kind, N, N, index_dtype, 60)
    w = rng.uniform(0.2, 2.0, ei.shape[1]).astype(dtype) if weighted else None
    with torch.no_grad():
        exp = ref(_t(x), _t(ei), _t(w)).numpy()
    out = conv(x, ei, w)
    assert out.dtype == dtype and rel_err(out, exp) <= TOL[dtype]
    # bipartite, with and without target features
    ei = _edges(rng, kind, N, 12, index_dtype, 60)
    w = rng.uniform(0.2, 2.0, ei.shape[1]).astype(dtype) if weighted else None
    pair = (x, rng.standard_normal((12, 5)).astype(dtype))
    with torch.no_grad():
        exp = ref(_t(pair), _t(ei), _t(w)).numpy()
        exp_none = ref((_t(x), None), _t(ei), _t(w), size=(N, 12)).numpy()
    assert rel_err(conv(pair, ei, w), exp) <= TOL[dtype]
    assert rel_err(conv((x, None), ei, w, size=(N, 12)), exp_none) <= TOL[dtype]


def test_wl_continuous_errors():
    conv = agnn.WLConvContinuous()
    x = np.ones((3, 2), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="WLConvContinuous: edge_weight must hold floating"):
        conv(x, ei, np.ones(2, np.int64))
    with pytest.raises(ValueError, match=r"WLConvContinuous: edge_weight must have shape \(2,\)"):
        conv(x, ei, np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"WLConvContinuous: edge_index\[1\]"):
        conv(x[:2], ei)


def test_han_takes_hetero_data_dicts():
    """PyG's usage: ``HANConv(..., data.metadata())`` called on ``data.x_dict`` /
    ``data.edge_index_dict`` of an ``arraygnn.HeteroData``."""
    from arraygnn import HeteroData

    rng = np.random.default_rng(15)
    x, ei = _hetero_inputs(rng, np.float32, np.int32, "multi")
    data = HeteroData()
    for t, v in x.items():
        data[t].x = v
    for et, v in ei.items():
        data[et].edge_index = v
    conv = agnn.HANConv(IN, 6, data.metadata(), heads=2, rng=0)
    out = conv(data.x_dict, data.edge_index_dict)
    exp = conv(x, ei)
    assert list(out) == list(exp)
    for t in exp:
        np.testing.assert_array_equal(out[t], exp[t])
