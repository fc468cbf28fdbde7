"""``arraygnn.graph.ops`` (DGL's ``dgl.ops``) against NumPy transcriptions of DGL's
semantics (python/dgl/ops/spmm.py, sddmm.py, edge_softmax.py, segment.py and the PyTorch
backend's rewrites: sub -> add of -rhs, div -> mul by 1 / rhs)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph, to_block
from arraygnn.graph import ops as gops
from tests.graph._graph_cases import local_cases

CASES = local_cases()
SPMM_OPS = ("add", "sub", "mul", "div", "copy_lhs", "copy_rhs")
REDUCES = ("sum", "mean", "max", "min")


def _tol(dtype):
    return {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


def _ends(g):
    src, dst = g.edges()
    return np.asarray(src, np.int64), np.asarray(dst, np.int64)


# ---------------------------------------------------------------------- references
def _reshape(lhs, rhs):
    """DGL's reshape_lhs_rhs: pad the operand with fewer dims after its row dim."""
    if lhs.ndim != rhs.ndim:
        m = max(lhs.ndim, rhs.ndim)
        lhs = lhs.reshape((lhs.shape[0],) + (1,) * (m - lhs.ndim) + lhs.shape[1:])
        rhs = rhs.reshape((rhs.shape[0],) + (1,) * (m - rhs.ndim) + rhs.shape[1:])
    return lhs, rhs


def _binary(op, a, b):
    if op == "sub":
        op, b = "add", -b
    if op == "div":
        op, b = "mul", (1.0 / b).astype(b.dtype)
    if op == "add":
        return a + b
    if op == "mul":
        return a * b
    return (a * b).sum(-1, keepdims=True)  # dot


def ref_gspmm(src, dst, n_dst, op, reduce_op, u, e):
    if op == "copy_lhs":
        msg = u[src]
    elif op == "copy_rhs":
        msg = e
    else:
        u, e = _reshape(u, e)
        msg = _binary(op, u[src], e)
    out_shape = (n_dst,) + msg.shape[1:]
    deg = np.bincount(dst, minlength=n_dst)
    if reduce_op in ("sum", "mean"):
        out = np.zeros(out_shape, msg.dtype)
        np.add.at(out, dst, msg)
        if reduce_op == "mean":
            out = out / np.maximum(deg, 1).astype(msg.dtype).reshape((-1,) + (1,) * (msg.ndim - 1))
        return out
    fill = -np.inf if reduce_op == "max" else np.inf
    out = np.full(out_shape, fill, msg.dtype)
    (np.maximum if reduce_op == "max" else np.minimum).at(out, dst, msg)
    out[deg == 0] = 0  # the documented zero-degree result
    return out


def ref_gsddmm(src, dst, op, lhs, rhs, lt, rt):
    rows = {"u": src, "v": dst, "e": np.arange(src.shape[0])}
    if op == "copy_lhs":
        return lhs[rows[lt]]
    if op == "copy_rhs":
        return rhs[rows[rt]]
    lhs, rhs = _reshape(lhs, rhs)
    return _binary(op, lhs[rows[lt]], rhs[rows[rt]])


def ref_edge_softmax(group, n, logits):
    """DGL's EdgeSoftmax forward: max per group, exp(x - max), sum, divide."""
    top = np.full((n,) + logits.shape[1:], -np.inf, logits.dtype)
    np.maximum.at(top, group, logits)
    ex = np.exp(logits - top[group])
    tot = np.zeros_like(top)
    np.add.at(tot, group, ex)
    return ex / tot[group]


def ref_segment_reduce(seglen, value, reducer):
    out = []
    start = 0
    for n in seglen:
        seg = value[start : start + n]
        start += n
        if n == 0:
            out.append(np.zeros(value.shape[1:], value.dtype))
        else:
            out.append(
                {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[reducer](seg, axis=0)
            )
    out = np.array(out, dtype=value.dtype).reshape((len(seglen),) + value.shape[1:])
    if reducer in ("max", "min"):
        out[np.isinf(out)] = 0
    return out


# ---------------------------------------------------------------------- gspmm
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_gspmm_matches_dgl_reference(label, g, dtype):
    rng = np.random.default_rng(len(label))
    src, dst = _ends(g)
    n_src, n_dst, e = g.num_src_nodes(), g.num_dst_nodes(), g.num_edges()
    u = rng.normal(size=(n_src, 3)).astype(dtype)
    for eshape in [(e,), (e, 1), (e, 3)]:
        w = (rng.uniform(0.5, 2.0, size=eshape) * rng.choice([-1, 1], size=eshape)).astype(dtype)
        u0, w0 = u.copy(), w.copy()
        for op in SPMM_OPS:
            for red in REDUCES:
                got = gops.gspmm(g, op, red, u, w)
                want = ref_gspmm(src, dst, n_dst, op, red, u, w)
                assert got.shape == want.shape and got.dtype == dtype, (op, red, eshape)
                np.testing.assert_allclose(got, want, **_tol(dtype), err_msg=f"{op} {red}")
        np.testing.assert_array_equal(u, u0)
        np.testing.assert_array_equal(w, w0)


def test_gspmm_broadcasts_heads_as_dgl():
    rng = np.random.default_rng(3)
    g = graph((rng.integers(0, 9, 40), rng.integers(0, 9, 40)), num_nodes=10)
    src, dst = _ends(g)
    x = rng.normal(size=(10, 4, 5))
    for w in (
        rng.uniform(1, 2, (40, 4, 1)),
        rng.uniform(1, 2, (40, 1)),
        rng.uniform(1, 2, (40, 5)),
    ):
        for op in ("add", "sub", "mul", "div"):
            for red in REDUCES:
                np.testing.assert_allclose(
                    gops.gspmm(g, op, red, x, w), ref_gspmm(src, dst, 10, op, red, x, w), 1e-12
                )
    with pytest.raises(ValueError, match=r"gspmm: feature shapes \(4, 5\) \(lhs_data\)"):
        gops.gspmm(g, "mul", "sum", x, rng.normal(size=(40, 3)))


def test_gspmm_on_block_and_relation_slice():
    rng = np.random.default_rng(4)
    frontier = graph((rng.integers(0, 8, 20), rng.integers(0, 3, 20)), num_nodes=8)
    b = to_block(frontier, np.array([0, 1, 2]))
    x = rng.normal(size=(b.num_src_nodes(), 2))
    src, dst = _ends(b)
    np.testing.assert_allclose(
        gops.copy_u_mean(b, x), ref_gspmm(src, dst, 3, "copy_lhs", "mean", x, None), 1e-12
    )
    hg = heterograph(
        {
            ("user", "plays", "game"): (np.array([0, 1, 1, 2]), np.array([0, 0, 2, 1])),
            ("user", "follows", "user"): (np.array([0, 1]), np.array([1, 2])),
        }
    )
    xu = rng.normal(size=(3, 2))
    out = gops.copy_u_sum(hg["plays"], xu)
    np.testing.assert_allclose(out, ref_gspmm(*_ends(hg["plays"]), 3, "copy_lhs", "sum", xu, None))
    with pytest.raises(ValueError, match=r"gspmm: the graph has 2 edge types .*'follows'"):
        gops.copy_u_sum(hg, xu)
    with pytest.raises(ValueError, match="gsddmm: the graph has 2 edge types"):
        gops.u_add_v(hg, xu, xu)


def test_gspmm_leaves_graph_features_alone():
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
    g.ndata["h"] = np.ones((3, 2))
    g.edata["w"] = np.ones(3)
    gops.u_mul_e_sum(g, np.ones((3, 2)), np.full(3, 2.0))
    gops.u_add_e_max(g, np.ones((3, 2)), np.full(3, 2.0))
    assert sorted(g.ndata) == ["h"] and sorted(g.edata) == ["w"]


# ---------------------------------------------------------------------- gsddmm
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_gsddmm_matches_dgl_reference(label, g, dtype):
    rng = np.random.default_rng(len(label) + 7)
    src, dst = _ends(g)
    rows = {"u": g.num_src_nodes(), "v": g.num_dst_nodes(), "e": g.num_edges()}
    for lt in "uve":
        for rt in "uve":
            lhs = rng.normal(size=(rows[lt], 2, 3)).astype(dtype)
            rhs = rng.uniform(0.5, 2, size=(rows[rt], 3)).astype(dtype)
            for op in ("add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs"):
                got = gops.gsddmm(g, op, lhs, rhs, lt, rt)
                want = ref_gsddmm(src, dst, op, lhs, rhs, lt, rt)
                assert got.shape == want.shape and got.dtype == dtype, (op, lt, rt)
                if op == "dot":  # the kernel sums in its own fixed order
                    np.testing.assert_allclose(got, want, **_tol(dtype), err_msg=f"{lt}_dot_{rt}")
                else:  # one IEEE operation per element: the same bits as DGL's rewrite
                    np.testing.assert_array_equal(got, want, err_msg=f"{lt}_{op}_{rt}")


def test_named_functions_are_written_out_and_match_the_generic_ops():
    src = inspect.getsource(gops)
    assert "setattr(" not in src and "globals()[" not in src
    rng = np.random.default_rng(5)
    g = graph((rng.integers(0, 6, 25), rng.integers(0, 6, 25)), num_nodes=7)
    feats = {
        "u": rng.normal(size=(7, 3)),
        "v": rng.normal(size=(7, 3)),
        "e": rng.normal(size=(25, 3)),
    }
    for red in REDUCES:
        np.testing.assert_array_equal(
            getattr(gops, f"copy_u_{red}")(g, feats["u"]),
            gops.gspmm(g, "copy_lhs", red, feats["u"], None),
        )
        np.testing.assert_array_equal(
            getattr(gops, f"copy_e_{red}")(g, feats["e"]),
            gops.gspmm(g, "copy_rhs", red, None, feats["e"]),
        )
        for op in ("add", "sub", "mul", "div"):
            np.testing.assert_array_equal(
                getattr(gops, f"u_{op}_e_{red}")(g, feats["u"], feats["e"]),
                gops.gspmm(g, op, red, feats["u"], feats["e"]),
            )
    for lt in "uve":
        for rt in "uve":
            if lt == rt:
                continue
            for op in ("add", "sub", "mul", "div", "dot"):
                np.testing.assert_array_equal(
                    getattr(gops, f"{lt}_{op}_{rt}")(g, feats[lt], feats[rt]),
                    gops.gsddmm(g, op, feats[lt], feats[rt], lt, rt),
                )
    s, d = _ends(g)
    np.testing.assert_array_equal(gops.copy_u(g, feats["u"]), feats["u"][s])
    np.testing.assert_array_equal(gops.copy_v(g, feats["v"]), feats["v"][d])
    np.testing.assert_array_equal(gops.copy_e(g, feats["e"]), feats["e"])


# ---------------------------------------------------------------------- edge softmax
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_edge_softmax_matches_dgl_reference(label, g, dtype):
    rng = np.random.default_rng(len(label) + 11)
    src, dst = _ends(g)
    e = g.num_edges()
    logits = rng.normal(size=(e, 2, 1)).astype(dtype)
    keep = logits.copy()
    np.testing.assert_allclose(
        gops.edge_softmax(g, logits),
        ref_edge_softmax(dst, g.num_dst_nodes(), logits),
        **_tol(dtype),
    )
    np.testing.assert_allclose(
        gops.edge_softmax(g, logits, norm_by="src"),
        ref_edge_softmax(src, g.num_src_nodes(), logits),
        **_tol(dtype),
    )
    eids = rng.permutation(e)[: e // 2]
    sub = logits[: eids.shape[0]]
    np.testing.assert_allclose(
        gops.edge_softmax(g, sub, eids),
        ref_edge_softmax(dst[eids], g.num_dst_nodes(), sub),
        **_tol(dtype),
    )
    np.testing.assert_array_equal(logits, keep)


def test_edge_softmax_dgl_docstring_examples():
    g = graph((np.array([0, 0, 0, 1, 1, 2]), np.array([0, 1, 2, 1, 2, 2])))
    ones = np.ones((6, 1), np.float32)
    np.testing.assert_allclose(
        gops.edge_softmax(g, ones).ravel(), [1, 1 / 2, 1 / 3, 1 / 2, 1 / 3, 1 / 3], 1e-6
    )
    np.testing.assert_allclose(
        gops.edge_softmax(g, ones, norm_by="src").ravel(), [1 / 3] * 3 + [1 / 2, 1 / 2, 1], 1e-6
    )
    np.testing.assert_allclose(
        gops.edge_softmax(g, ones[:4], np.array([0, 1, 2, 3])).ravel(), [1, 0.5, 1, 0.5], 1e-6
    )


def test_edge_softmax_heterograph_normalises_across_edge_types():
    rng = np.random.default_rng(6)
    rels = {
        ("user", "follows", "user"): (rng.integers(0, 4, 9), rng.integers(0, 4, 9)),
        ("game", "liked-by", "user"): (rng.integers(0, 3, 7), rng.integers(0, 4, 7)),
        ("developer", "develops", "game"): (np.array([0, 1]), np.array([0, 1])),
    }
    hg = heterograph(rels, {"user": 5, "game": 3, "developer": 2})
    logits = {c: rng.normal(size=(len(s), 2)) for c, (s, _) in rels.items()}
    got = gops.edge_softmax(hg, {c[1]: v for c, v in logits.items()})
    assert list(got) == hg.canonical_etypes
    for norm_by, side, ntype_side in (("dst", 1, 2), ("src", 0, 0)):
        got = gops.edge_softmax(hg, logits, norm_by=norm_by)
        for t in ("user", "game", "developer"):
            cs = [c for c in hg.canonical_etypes if c[ntype_side] == t]
            if not cs:
                continue
            group = np.concatenate([rels[c][side] for c in cs])
            want = ref_edge_softmax(group, 5, np.concatenate([logits[c] for c in cs]))
            np.testing.assert_allclose(np.concatenate([got[c] for c in cs]), want, 1e-12)
    with pytest.raises(KeyError, match="no entry for edge types"):
        gops.edge_softmax(hg, {"follows": logits[("user", "follows", "user")]})
    with pytest.raises(TypeError, match=r"edge_softmax: .*pass logits as \{etype: array\}"):
        gops.edge_softmax(hg, np.ones(9))


# ---------------------------------------------------------------------- segments
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("len_dtype", [np.int32, np.int64])
def test_segment_reduce_and_softmax_match_dgl_reference(dtype, len_dtype):
    rng = np.random.default_rng(8)
    seglen = np.array([1, 0, 5, 4, 0, 3], dtype=len_dtype)
    value = rng.normal(size=(13, 2)).astype(dtype)
    value[12, 0] = -np.inf  # DGL turns an infinite max / min into 0
    keep = value.copy()
    for reducer in REDUCES:
        np.testing.assert_allclose(
            gops.segment_reduce(seglen, value, reducer),
            ref_segment_reduce(seglen, value, reducer),
            **_tol(dtype),
        )
    finite = value[:12]
    lens = np.array([1, 0, 5, 4, 2], dtype=len_dtype)
    top = ref_segment_reduce(lens, finite, "max")
    ex = np.exp(finite - np.repeat(top, lens, axis=0))
    want = ex / np.repeat(ref_segment_reduce(lens, ex, "sum"), lens, axis=0)
    np.testing.assert_allclose(gops.segment_softmax(lens, finite), want, **_tol(dtype))
    np.testing.assert_array_equal(value, keep)
    np.testing.assert_allclose(
        gops.segment_reduce(np.array([1, 0, 5, 4]), np.ones((10, 3))),
        [[1] * 3, [0] * 3, [5] * 3, [4] * 3],
    )
    assert gops.segment_reduce(np.zeros(0, np.int64), np.zeros((0, 2))).shape == (0, 2)


# ---------------------------------------------------------------------- errors
def test_errors_name_the_function_and_argument():
    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    x, w = np.ones((3, 2)), np.ones(2)
    with pytest.raises(ValueError, match="gspmm: op must be one of"):
        gops.gspmm(g, "dot", "sum", x, w)
    with pytest.raises(ValueError, match="gspmm: reduce_op must be one of"):
        gops.gspmm(g, "mul", "prod", x, w)
    with pytest.raises(ValueError, match="gspmm: lhs_data has 4 rows but the graph has 3 source"):
        gops.gspmm(g, "mul", "sum", np.ones((4, 2)), w)
    with pytest.raises(ValueError, match="gspmm: rhs_data has 3 rows but the graph has 2 edges"):
        gops.u_mul_e_sum(g, x, np.ones(3))
    with pytest.raises(TypeError, match="gspmm: rhs_data must be float16, float32 or float64"):
        gops.u_mul_e_sum(g, x, np.ones(2, np.int64))
    with pytest.raises(TypeError, match="gspmm: lhs_data must be a NumPy or CuPy array"):
        gops.copy_u_sum(g, [[1.0]] * 3)
    with pytest.raises(TypeError, match="gsddmm: lhs_data is float32 but rhs_data is float64"):
        gops.u_add_v(g, x.astype(np.float32), x)
    with pytest.raises(ValueError, match="gsddmm: lhs_target must be one of"):
        gops.gsddmm(g, "add", x, x, "w", "v")
    with pytest.raises(ValueError, match="gsddmm: rhs_data has 3 rows but the graph has 2 edges"):
        gops.u_add_e(g, x, x)
    with pytest.raises(ValueError, match="edge_softmax: norm_by must be one of"):
        gops.edge_softmax(g, w, norm_by="both")
    with pytest.raises(ValueError, match="edge_softmax: logits has 1 rows but eids names 2"):
        gops.edge_softmax(g, np.ones(1), np.array([0, 1]))
    with pytest.raises(ValueError, match="edge_softmax: eids contains id 2"):
        gops.edge_softmax(g, np.ones(1), np.array([2]))
    with pytest.raises(ValueError, match="segment_reduce: seglen sums to 3 but value has 2 rows"):
        gops.segment_reduce(np.array([1, 2]), np.ones(2))
    with pytest.raises(ValueError, match="segment_reduce: seglen has a negative length"):
        gops.segment_reduce(np.array([3, -1]), np.ones(2))
    with pytest.raises(TypeError, match="segment_softmax: seglen must be a 1-D integer array"):
        gops.segment_softmax(np.array([1.0, 1.0]), np.ones(2))
    with pytest.raises(ValueError, match="segment_reduce: reducer must be one of"):
        gops.segment_reduce(np.array([2]), np.ones(2), "prod")
    with pytest.raises(TypeError, match="gspmm expects an arraygnn Graph"):
        gops.copy_u_sum(None, x)
