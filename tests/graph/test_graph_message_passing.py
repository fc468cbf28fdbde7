"""Built-in message x reduce pairs against their UDF forms and a plain NumPy loop."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arraygnn.function as fn
from arraygnn import ops
from tests.graph._graph_cases import local_cases

TARGETS = "uve"
BINARY = ("add", "sub", "mul", "div", "dot")
REDUCES = ("sum", "mean", "max", "min", "prod")
_NP = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
_WHERE = {"u": "src", "v": "dst", "e": "data"}


def _featurize(g, seed=0, f=3):
    rng = np.random.default_rng(seed)
    for frame in list(g._src_frames.values()) + list(g._dst_frames.values()):
        frame["x"] = rng.uniform(0.5, 2.0, (frame.num_rows, f))
        frame["y"] = rng.uniform(0.5, 2.0, (frame.num_rows, f))
    for rel in g._rels.values():
        rel.frame["w"] = rng.uniform(0.5, 2.0, (rel.num_edges, f))
        rel.frame["z"] = rng.uniform(0.5, 2.0, (rel.num_edges, f))
    return g


def _fields(lhs, rhs):
    lf = "w" if lhs == "e" else "x"
    rf = "z" if rhs == "e" else "y"
    return lf, rf


def _message_udf(lhs, op, rhs, lf, rf):
    def udf(edges):
        a = getattr(edges, _WHERE[lhs])[lf]
        b = getattr(edges, _WHERE[rhs])[rf]
        if op == "dot":
            return {"m": (a * b).sum(-1, keepdims=True)}
        return {"m": _NP[op](a, b)}

    return udf


def _reduce_udf(op):
    def udf(nodes):
        box = nodes.mailbox["m"]
        return {"h": getattr(box, op)(axis=1)}

    return udf


def _loop_reference(g, lhs, op, rhs, lf, rf, reduce):
    """Edge-by-edge NumPy loop, independent of arraygnn.ops."""
    ((c, rel),) = g._rels.items()
    s, _, d = c
    side = {"u": g._src_frames[s], "v": g._dst_frames[d], "e": rel.frame}
    n_dst = g._dst_frames[d].num_rows
    boxes = [[] for _ in range(n_dst)]
    for e in range(rel.num_edges):
        u, v = int(rel.src[e]), int(rel.dst[e])
        pick = {"u": u, "v": v, "e": e}
        a = side[lhs][lf][pick[lhs]]
        b = side[rhs][rf][pick[rhs]]
        m = (a * b).sum(-1, keepdims=True) if op == "dot" else _NP[op](a, b)
        boxes[v].append(m)
    width = 1 if op == "dot" else 3
    out = np.zeros((n_dst, width))
    for v, box in enumerate(boxes):
        if box:
            out[v] = getattr(np, reduce)(np.stack(box), axis=0)
    return out


CASES = local_cases()


FULL = ("zero-in-degree", "bipartite")  # every message x every reduce; other cases rotate


def _reduces_for(label, i):
    return REDUCES if label in FULL else (REDUCES[i % len(REDUCES)],)


@pytest.mark.parametrize("label,g", CASES, ids=[c[0] for c in CASES])
def test_every_builtin_pair_equals_its_udf(label, g):
    g = _featurize(g)
    combos = itertools.product(TARGETS, TARGETS, BINARY)
    for i, (lhs, rhs, op) in enumerate(combos):
        lf, rf = _fields(lhs, rhs)
        msg = getattr(fn, f"{lhs}_{op}_{rhs}")(lf, rf, "m")
        for red in _reduces_for(label, i + len(label)):
            with g.local_scope():
                g.update_all(msg, getattr(fn, red)("m", "h"))
                built = g.dstdata["h"]
            with g.local_scope():
                g.update_all(_message_udf(lhs, op, rhs, lf, rf), _reduce_udf(red))
                udf = g.dstdata["h"]
            assert built.shape == udf.shape, (label, msg.name, red)
            np.testing.assert_allclose(built, udf, rtol=1e-10, err_msg=f"{label} {msg.name} {red}")
            assert "h" not in g.dstdata


@pytest.mark.parametrize("label,g", CASES, ids=[c[0] for c in CASES])
def test_copy_builtins_equal_udf_and_loop(label, g):
    g = _featurize(g)
    for red in REDUCES:
        for msg, udf in (
            (fn.copy_u("x", "m"), lambda edges: {"m": edges.src["x"]}),
            (fn.copy_e("w", "m"), lambda edges: {"m": edges.data["w"]}),
            (fn.copy_src("x", "m"), lambda edges: {"m": edges.src["x"]}),
            (fn.copy_edge("w", "m"), lambda edges: {"m": edges.data["w"]}),
        ):
            with g.local_scope():
                g.update_all(msg, getattr(fn, red)("m", "h"))
                built = g.dstdata["h"]
                g.update_all(udf, _reduce_udf(red))
                np.testing.assert_allclose(built, g.dstdata["h"], rtol=1e-10)
                g.update_all(udf, getattr(fn, red)("m", "h"))  # UDF message, built-in reduce
                np.testing.assert_allclose(built, g.dstdata["h"], rtol=1e-10)


LOOP_CASES = [c for c in CASES if c[0] in ("power-law-int32", "zero-in-degree", "bipartite")]


@pytest.mark.parametrize("label,g", LOOP_CASES, ids=[c[0] for c in LOOP_CASES])
@pytest.mark.parametrize("combo", ["u_mul_e", "u_add_v", "e_sub_u", "v_div_e", "u_dot_v"])
@pytest.mark.parametrize("red", REDUCES)
def test_builtin_equals_plain_loop(label, g, combo, red):
    g = _featurize(g, seed=3)
    lhs, op, rhs = combo.split("_")
    lf, rf = _fields(lhs, rhs)
    g.update_all(getattr(fn, combo)(lf, rf, "m"), getattr(fn, red)("m", "h"))
    ref = _loop_reference(g, lhs, op, rhs, lf, rf, red)
    np.testing.assert_allclose(g.dstdata["h"], ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("label,g", CASES, ids=[c[0] for c in CASES])
def test_apply_edges_builtin_equals_udf(label, g):
    g = _featurize(g)
    for i, (lhs, rhs, op) in enumerate(itertools.product(TARGETS, TARGETS, BINARY)):
        if label not in FULL and (i + len(label)) % 3:
            continue  # a rotating third on the other cases
        lf, rf = _fields(lhs, rhs)
        with g.local_scope():
            g.apply_edges(getattr(fn, f"{lhs}_{op}_{rhs}")(lf, rf, "m"))
            built = g.edata["m"]
            g.apply_edges(_message_udf(lhs, op, rhs, lf, rf))
            np.testing.assert_allclose(built, g.edata["m"], rtol=1e-12)


def _count_calls(monkeypatch):
    """Record the top-level arraygnn.ops calls (not the ones an op makes internally)."""
    calls = []
    depth = [0]
    for name in ("gather", "scatter", "segment", "spmm", "sddmm"):
        real = getattr(ops, name)

        def wrapped(*a, _real=real, _name=name, **k):
            if depth[0] == 0:
                calls.append(_name)
            depth[0] += 1
            try:
                return _real(*a, **k)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(ops, name, wrapped)
    return calls


@pytest.mark.parametrize("red", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize(
    "msg,x_shape,w_shape",
    [
        (fn.copy_u("x", "m"), (6, 4), None),
        (fn.copy_u("x", "m"), (6,), None),
        (fn.copy_u("x", "m"), (6, 2, 4), None),
        (fn.u_mul_e("x", "w", "m"), (6, 4), (9,)),
        (fn.u_mul_e("x", "w", "m"), (6, 4), (9, 1)),
        (fn.u_mul_e("x", "w", "m"), (6, 4), (9, 4)),
        (fn.u_mul_e("x", "w", "m"), (6, 2, 4), (9, 2, 1)),
        (fn.e_mul_u("w", "x", "m"), (6, 2, 4), (9, 2, 1)),
        (fn.u_div_e("x", "w", "m"), (6, 3), (9, 1)),
    ],
)
def test_fused_pairs_are_one_spmm(monkeypatch, msg, x_shape, w_shape, red):
    from arraygnn.graph import graph

    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 6, 9), rng.integers(0, 5, 9)
    g = graph((src, dst), num_nodes=6)
    g.ndata["x"] = rng.uniform(0.5, 2, x_shape)
    if w_shape is not None:
        g.edata["w"] = rng.uniform(0.5, 2, w_shape)
    g.csr()  # build the cached CSR outside the counted region
    calls = _count_calls(monkeypatch)
    g.update_all(msg, getattr(fn, red)("m", "h"))
    assert calls == ["spmm"], calls
    fused = g.ndata["h"]
    monkeypatch.undo()

    def message(edges):
        x = edges.src["x"]
        if w_shape is None:
            return {"m": x}
        w = edges.data["w"]
        w = w.reshape(w.shape + (1,) * (x.ndim - w.ndim))  # feature-dim broadcasting
        return {"m": x / w if msg.name == "u_div_e" else x * w}

    g.update_all(message, _reduce_udf(red))
    assert fused.shape == g.ndata["h"].shape
    np.testing.assert_allclose(fused, g.ndata["h"], rtol=1e-10)


def test_unfusable_pairs_fall_back_to_sddmm_then_scatter(monkeypatch):
    from arraygnn.graph import graph

    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)
    g.ndata["x"] = np.ones((3, 1))
    g.edata["w"] = np.arange(6.0).reshape(3, 2)
    g.csr()
    calls = _count_calls(monkeypatch)
    g.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))  # widens x: [N,1] * [E,2]
    assert calls == ["sddmm", "scatter"]
    np.testing.assert_allclose(g.ndata["h"], [[4, 5], [0, 1], [2, 3]])
    calls.clear()
    g.update_all(fn.copy_e("w", "m"), fn.max("m", "h"))
    assert calls == ["scatter"]
    calls.clear()
    g.apply_edges(fn.u_dot_v("x", "x", "s"))
    assert calls == ["sddmm"]


def test_broadcasting_gat_shapes():
    from arraygnn.graph import graph

    rng = np.random.default_rng(2)
    g = graph((rng.integers(0, 5, 12), rng.integers(0, 5, 12)), num_nodes=5)
    ft = rng.normal(size=(5, 3, 4))
    a = rng.uniform(size=(12, 3, 1))
    g.ndata["ft"] = ft
    g.edata["a"] = a
    g.update_all(fn.u_mul_e("ft", "a", "m"), fn.sum("m", "ft"))
    src, dst = g.edges()
    ref = np.zeros_like(ft)
    np.add.at(ref, dst, ft[src] * a)
    np.testing.assert_allclose(g.ndata["ft"], ref, rtol=1e-12)
    g.ndata["el"] = rng.normal(size=(5, 3, 1))
    g.ndata["er"] = rng.normal(size=(5, 3, 1))
    g.apply_edges(fn.u_add_v("el", "er", "e"))
    np.testing.assert_allclose(g.edata["e"], g.ndata["el"][src] + g.ndata["er"][dst])
    assert g.edata["e"].shape == (12, 3, 1)


def test_zero_in_degree_nodes_get_zero_for_every_reduce():
    from arraygnn.graph import graph

    g = graph((np.array([0, 0]), np.array([1, 1])), num_nodes=3)
    g.ndata["x"] = np.array([[-5.0], [7.0], [9.0]])
    for red in REDUCES:
        g.update_all(fn.copy_u("x", "m"), getattr(fn, red)("m", "h"))
        assert g.ndata["h"][0, 0] == 0 and g.ndata["h"][2, 0] == 0, red
        g.update_all(fn.copy_u("x", "m"), _reduce_udf(red))
        assert g.ndata["h"][0, 0] == 0 and g.ndata["h"][2, 0] == 0, red


def test_reduce_udf_sees_degree_buckets_in_edge_order():
    from arraygnn.graph import graph

    g = graph((np.array([3, 0, 2, 1, 0]), np.array([1, 2, 1, 1, 0])), num_nodes=4)
    g.ndata["x"] = np.arange(4.0)[:, None]
    seen = []

    def reduce(nodes):
        seen.append((nodes.nodes().tolist(), nodes.mailbox["m"][..., 0].tolist()))
        return {"h": nodes.mailbox["m"].sum(1)}

    g.update_all(fn.copy_u("x", "m"), reduce)
    assert sorted(seen) == [([0, 2], [[0.0], [0.0]]), ([1], [[3.0, 2.0, 1.0]])]


def test_apply_node_func_runs_on_all_destination_nodes():
    from arraygnn.graph import graph

    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g.ndata["x"] = np.array([1.0, 2.0, 3.0])
    g.update_all(
        fn.copy_u("x", "m"), fn.sum("m", "s"), lambda nodes: {"y": nodes.data["s"] * 2 + 1}
    )
    np.testing.assert_allclose(g.ndata["y"], [1.0, 3.0, 5.0])


@pytest.mark.parametrize("red", REDUCES)
def test_feature_dims_broadcast_from_the_right_like_dgl(red):
    from arraygnn.graph import graph

    rng = np.random.default_rng(5)
    g = graph((rng.integers(0, 4, 10), rng.integers(0, 4, 10)), num_nodes=4)
    g.ndata["x"] = rng.uniform(0.5, 2, (4, 2, 3))
    g.edata["w"] = rng.uniform(0.5, 2, (10,))  # scalar per edge
    g.edata["v"] = rng.uniform(0.5, 2, (10, 3))  # broadcast over the leading feature dim
    for field, shaped in (("w", lambda w: w[:, None, None]), ("v", lambda v: v[:, None, :])):
        for name in ("u_mul_e", "u_add_e", "u_div_e", "e_sub_u"):
            g.update_all(
                getattr(fn, name)("x", field, "m")
                if name[0] == "u"
                else getattr(fn, name)(field, "x", "m"),
                getattr(fn, red)("m", "h"),
            )
            op = _NP[name.split("_")[1]]

            def udf(edges, op=op, name=name, field=field, shaped=shaped):
                x, w = edges.src["x"], shaped(edges.data[field])
                return {"m": op(x, w) if name[0] == "u" else op(w, x)}

            built = g.ndata["h"]
            g.update_all(udf, _reduce_udf(red))
            np.testing.assert_allclose(built, g.ndata["h"], rtol=1e-10, err_msg=f"{name} {field}")


GPU_PAIRS = [
    ("u", "mul", "e", "sum"),
    ("u", "add", "v", "mean"),
    ("u", "dot", "v", "max"),
    ("e", "div", "u", "prod"),
    ("v", "sub", "e", "min"),
]


@pytest.mark.parametrize("label,g", CASES, ids=[c[0] for c in CASES])
def test_cupy_builtins_equal_udf_and_numpy(label, g):
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - CuPy without a device
        pytest.skip("no CUDA device")
    g = _featurize(g)
    gpu = g.to("cuda")
    assert gpu.device == "cuda"
    for lhs, op, rhs, red in GPU_PAIRS:
        lf, rf = _fields(lhs, rhs)
        msg = getattr(fn, f"{lhs}_{op}_{rhs}")(lf, rf, "m")
        with g.local_scope(), gpu.local_scope():
            g.update_all(msg, getattr(fn, red)("m", "h"))
            gpu.update_all(msg, getattr(fn, red)("m", "h"))
            out = gpu.dstdata["h"]
            assert isinstance(out, cp.ndarray)
            np.testing.assert_allclose(out.get(), g.dstdata["h"], rtol=1e-10)
            gpu.update_all(_message_udf(lhs, op, rhs, lf, rf), _reduce_udf(red))
            np.testing.assert_allclose(gpu.dstdata["h"].get(), out.get(), rtol=1e-10)
    for red in REDUCES:
        with gpu.local_scope():
            gpu.update_all(fn.copy_u("x", "m"), getattr(fn, red)("m", "h"))
            ref = gpu.dstdata["h"].get()
            gpu.update_all(lambda edges: {"m": edges.src["x"]}, _reduce_udf(red))
            np.testing.assert_allclose(gpu.dstdata["h"].get(), ref, rtol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    n_src=st.integers(0, 6),
    n_dst=st.integers(1, 6),
    n_edges=st.integers(0, 20),
    lhs=st.sampled_from(TARGETS),
    op=st.sampled_from(BINARY),
    rhs=st.sampled_from(TARGETS),
    red=st.sampled_from(REDUCES),
    idtype=st.sampled_from([np.int32, np.int64]),
    seed=st.integers(0, 2**16),
)
def test_random_bipartite_pairs_equal_udf(n_src, n_dst, n_edges, lhs, op, rhs, red, idtype, seed):
    from arraygnn.graph import heterograph

    rng = np.random.default_rng(seed)
    if n_src == 0:
        n_edges = 0
    src = rng.integers(0, max(n_src, 1), n_edges).astype(idtype)
    dst = rng.integers(0, n_dst, n_edges).astype(idtype)
    g = _featurize(heterograph({("a", "r", "b"): (src, dst)}, {"a": n_src, "b": n_dst}), seed)
    lf, rf = _fields(lhs, rhs)
    g.update_all(getattr(fn, f"{lhs}_{op}_{rhs}")(lf, rf, "m"), getattr(fn, red)("m", "h"))
    built = g.dstdata["h"]
    g.update_all(_message_udf(lhs, op, rhs, lf, rf), _reduce_udf(red))
    np.testing.assert_allclose(built, g.dstdata["h"], rtol=1e-10)
    assert built.shape[0] == n_dst


def test_apply_edges_on_a_subset_of_edges():
    from arraygnn.graph import graph

    rng = np.random.default_rng(4)
    g = graph((rng.integers(0, 5, 10), rng.integers(0, 5, 10)), num_nodes=5)
    g.ndata["x"] = rng.normal(size=(5, 3))
    g.edata["w"] = rng.normal(size=(10, 3))
    eids = np.array([7, 2, 3])
    src, dst = g.edges()
    g.apply_edges(fn.u_mul_e("x", "w", "s"), edges=eids)
    expect = np.zeros((10, 3))
    expect[eids] = g.ndata["x"][src[eids]] * g.edata["w"][eids]
    np.testing.assert_allclose(g.edata["s"], expect)
    before = g.edata["s"]
    g.apply_edges(lambda edges: {"s": edges.src["x"] + edges.dst["x"]}, edges=np.array([0]))
    assert before[0, 0] == 0  # the earlier array was not written in place
    np.testing.assert_allclose(g.edata["s"][0], g.ndata["x"][src[0]] + g.ndata["x"][dst[0]])
    np.testing.assert_allclose(g.edata["s"][eids], expect[eids])
    with pytest.raises(ValueError, match="contains id 10"):
        g.apply_edges(fn.copy_e("w", "s"), edges=[10])
