"""DGL user-defined-function (UDF) message passing parity sweep: ``EdgeBatch`` /
``NodeBatch`` as DGL fills them, degree-bucketed mailboxes, UDFs on homogeneous,
bipartite, block and heterogeneous (``etype=``) graphs, ``send_and_recv`` / ``pull`` /
``push`` with UDFs, the filters, scopes and bad UDF outputs.

DGL is not installed: the expected values are NumPy references written from DGL's
sources (dmlc/dgl): ``python/dgl/udf.py`` (``EdgeBatch.edges()`` = ``(u, v, eid)``,
``NodeBatch.ntype``), ``python/dgl/core.py`` (``invoke_udf_reduce``: nodes bucketed by
in-degree, zero-in-degree nodes skipped and left 0 by the result frame, each node's
in-edges sorted by edge id; ``message_passing``: ``orig_eid`` of the compute graph) and
``python/dgl/heterograph.py`` (``_create_compute_graph``: ``send_and_recv`` / ``push``
number the compute graph's edges in the order given, so a mailbox follows that order;
``filter_nodes`` / ``filter_edges`` run the predicate through ``apply_nodes`` /
``apply_edges``).
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn as ag
import arraygnn.function as fn

N, E = 7, 16


def _homo(seed: int = 0):
    """A random multigraph with self-loops and nodes of in-degree 0 (ids 5, 6 receive none)."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, N, E)
    dst = rng.integers(0, 5, E)
    return src, dst


def _graph(kind: str):
    """``(g, etype, src, dst, n_src, n_dst, src_type, dst_type)`` for each graph kind."""
    src, dst = _homo()
    if kind == "homo":
        g = ag.graph((src, dst), num_nodes=N)
        return g, None, src, dst, N, N, "_N", "_N"
    if kind == "bipartite":
        g = ag.heterograph({("a", "r", "b"): (src, dst)}, num_nodes_dict={"a": N, "b": 6})
        return g, None, src, dst, N, 6, "a", "b"
    if kind == "hetero":  # etype= picks one of several relations
        g = ag.heterograph(
            {("u", "f", "u"): (dst, src), ("u", "p", "g"): (src, dst)},
            num_nodes_dict={"u": N, "g": 6},
        )
        return g, "p", src, dst, N, 6, "u", "g"
    # a block: 6 dst nodes, the src side numbered by ag.to_block (dst nodes first)
    full = ag.graph((src, dst), num_nodes=N)
    b = ag.to_block(full, np.arange(6))
    bs, bd = (np.asarray(a) for a in b.edges())
    return b, None, bs, bd, b.num_src_nodes(), b.num_dst_nodes(), "_N", "_N"


def _feats(g, etype, n_src, n_dst, src_type, dst_type, n_edges):
    rng = np.random.default_rng(1)
    hs = rng.normal(size=(n_src, 2, 3))
    xd = rng.normal(size=(n_dst,))
    w = rng.normal(size=(n_edges,))
    if g.is_block:
        g.srcdata["h"], g.dstdata["x"] = hs, xd
    elif src_type == dst_type:
        g.ndata["h"] = hs
        g.ndata["x"] = np.concatenate([xd, np.zeros(n_src - n_dst)]) if n_src > n_dst else xd
    else:
        g.nodes[src_type].data["h"] = hs
        g.nodes[dst_type].data["x"] = xd
    g.edges[etype or g.canonical_etypes[0]].data["w"] = w
    return hs, xd, w


def _reference(src, dst, n_dst, msgs, reduce_one):
    """DGL's invoke_udf_reduce per node: in-edges sorted by edge id, 0 without any."""
    out = None
    for v in range(n_dst):
        eids = np.sort(np.nonzero(dst == v)[0])
        if eids.size == 0:
            continue
        r = reduce_one({k: m[eids] for k, m in msgs.items()})
        if out is None:
            out = {k: np.zeros((n_dst,) + np.shape(a), np.result_type(a)) for k, a in r.items()}
        for k, a in r.items():
            out[k][v] = a
    return out


def _ordered_reduce(box):
    """Order-sensitive: message j weighted by j + 1; a second field from a second message."""
    wts = np.arange(1, box["m"].shape[0] + 1, dtype=float)
    return {
        "o": np.tensordot(wts, box["m"], axes=(0, 0)),
        "c": box["k"][-1] + box["k"].shape[0],
    }


@pytest.mark.parametrize("kind", ["homo", "bipartite", "hetero", "block"])
def test_update_all_udfs_see_dgl_batches_and_buckets(kind):
    g, etype, src, dst, n_src, n_dst, st, dt = _graph(kind)
    hs, xd, w = _feats(g, etype, n_src, n_dst, st, dt, src.shape[0])
    canonical = g.to_canonical_etype(etype) if etype else g.canonical_etypes[0]
    seen = {"edges": [], "nodes": []}

    def msg(edges):
        u, v, eid = edges.edges()
        seen["edges"].append((u, v, eid, edges.batch_size(), len(edges), edges.canonical_etype))
        return {"m": edges.src["h"] * edges.data["w"][:, None, None], "k": edges.dst["x"] * 2}

    def red(nodes):
        box_m, box_k = nodes.mailbox["m"], nodes.mailbox["k"]
        seen["nodes"].append((nodes.nodes().copy(), box_m.shape, box_k.shape, nodes.ntype))
        assert nodes.batch_size() == len(nodes) == box_m.shape[0]
        np.testing.assert_array_equal(nodes.data["x"], xd[nodes.nodes()])
        out = [_ordered_reduce({"m": box_m[i], "k": box_k[i]}) for i in range(len(nodes))]
        return {k: np.stack([o[k] for o in out]) for k in ("o", "c")}

    g.update_all(msg, red, etype=etype)
    # EdgeBatch: every edge once, ids in order, DGL's (u, v, eid) and canonical_etype
    ((u, v, eid, size, length, cet),) = seen["edges"]
    np.testing.assert_array_equal(u, src)
    np.testing.assert_array_equal(v, dst)
    np.testing.assert_array_equal(eid, np.arange(src.shape[0]))
    assert eid.dtype == g.idtype and size == length == src.shape[0] and cet == canonical
    # NodeBatch: one call per positive in-degree, [nodes, degree, ...] mailboxes, ntype
    deg = np.bincount(dst, minlength=n_dst)
    buckets = {int(box[1]): nodes for nodes, box, _, _ in seen["nodes"]}
    assert sorted(buckets) == sorted(set(deg[deg > 0].tolist()))
    for nodes, box_m, box_k, ntype in seen["nodes"]:
        assert (deg[nodes] == box_m[1]).all() and box_m[2:] == (2, 3) and box_k == box_m[:2]
        assert ntype == dt
    msgs = {"m": hs[src] * w[:, None, None], "k": xd[dst] * 2}
    want = _reference(src, dst, n_dst, msgs, _ordered_reduce)
    frame = g.dstdata if g.is_block or st != dt else g.ndata
    if kind == "hetero":
        frame = g.nodes[dt].data
    for k in ("o", "c"):
        np.testing.assert_allclose(frame[k], want[k], rtol=1e-12, atol=1e-12)
    assert "m" not in g.edges[canonical].data  # messages are not stored (DGL)
    assert (frame["o"][deg == 0] == 0).all()


@pytest.mark.parametrize("red", ["sum", "mean", "max", "min"])
def test_udf_message_with_builtin_reduce_and_back(red):
    src, dst = _homo(3)
    g = ag.graph((src, dst), num_nodes=N)
    rng = np.random.default_rng(4)
    g.ndata["h"] = rng.normal(size=(N, 3))
    g.edata["w"] = rng.normal(size=(E, 1))
    # UDF message with two fields, built-in reduce of one of them
    g.update_all(
        lambda e: {"m": e.src["h"] * e.data["w"], "z": e.data["w"]}, getattr(fn, red)("m", "o")
    )
    np_red = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[red]
    msgs = {"m": g.ndata["h"][src] * g.edata["w"]}
    want = _reference(src, dst, N, msgs, lambda b: {"o": np_red(b["m"], axis=0)})["o"]
    np.testing.assert_allclose(g.ndata["o"], want, rtol=1e-12, atol=1e-12)
    # built-in message with a UDF reduce gives the same
    g.update_all(fn.u_mul_e("h", "w", "m"), lambda n: {"p": np_red(n.mailbox["m"], axis=1)})
    np.testing.assert_allclose(g.ndata["p"], want, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"message field 'q' was not sent.*\['m', 'z'\]"):
        g.update_all(lambda e: {"m": e.src["h"], "z": e.src["h"]}, getattr(fn, red)("q", "o"))


@pytest.mark.parametrize("how", ["send_and_recv", "pull", "push"])
def test_receiving_udfs_see_the_graphs_edge_ids_and_dgls_mailbox_order(how):
    """DGL runs these on a compute graph whose ``orig_eid`` is what ``edges.edges()``
    reports, whose edges are numbered in the order given (``send_and_recv`` ids,
    ``pull``'s ``in_edges(v)`` and ``push``'s ``out_edges(u)``: by node as given, then
    edge id), and whose mailboxes follow that numbering."""
    src = np.array([0, 1, 2, 2, 3, 0, 3])
    dst = np.array([1, 2, 1, 3, 1, 3, 3])
    g = ag.graph((src, dst), num_nodes=5)
    g.edata["w"] = np.arange(10.0, 17.0)
    seen = []

    def msg(edges):
        seen.append([a.tolist() for a in edges.edges()])
        return {"m": edges.data["w"]}

    def red(nodes):
        return {"o": (nodes.mailbox["m"] * np.arange(1, nodes.mailbox["m"].shape[1] + 1)).sum(1)}

    if how == "send_and_recv":
        order = [4, 1, 6, 0, 3]  # node 1 receives 4 then 0; node 3 receives 6 then 3
        g.send_and_recv(order, msg, red)
    elif how == "pull":
        order = [3, 5, 6, 0, 2, 4]  # in_edges([3, 1]): by node as given, then edge id
        g.pull([3, 1], msg, red)
    else:
        order = [4, 6, 0, 5, 2, 3]  # out_edges([3, 0, 2]): by node as given, then edge id
        g.push([3, 0, 2, 3], msg, red)  # a repeated node sends once
    ((u, v, eid),) = seen
    assert eid == order and u == src[order].tolist() and v == dst[order].tolist()
    want = np.zeros(5)
    for node in np.unique(dst[order]):
        ms = [10.0 + e for e in order if dst[e] == node]
        want[node] = sum((j + 1) * m for j, m in enumerate(ms))
    np.testing.assert_allclose(g.ndata["o"], want)


def test_apply_edges_udf_on_a_subset_sees_the_ids_given_in_order():
    src, dst = _homo(5)
    g = ag.graph((src, dst), num_nodes=N)
    g.edata["w"] = np.arange(E, dtype=float)
    seen = []
    g.apply_edges(lambda e: seen.append(e.edges()) or {"q": e.data["w"] * 2}, edges=[9, 2, 5])
    ((u, v, eid),) = seen
    assert eid.tolist() == [9, 2, 5] and u.tolist() == src[[9, 2, 5]].tolist()
    want = np.zeros(E)
    want[[9, 2, 5]] = [18.0, 4.0, 10.0]
    np.testing.assert_array_equal(g.edata["q"], want)  # a new field is 0 elsewhere (DGL)
    with pytest.raises(ValueError, match="ids must be unique"):  # documented difference
        g.apply_edges(lambda e: {"q": e.data["w"]}, edges=[2, 2])


def test_nodebatch_ntype_for_apply_nodes_filters_and_apply_functions():
    g = ag.heterograph(
        {("u", "p", "g"): ([0, 1, 2], [0, 0, 1]), ("u", "f", "u"): ([0, 1], [1, 2])},
        num_nodes_dict={"u": 3, "g": 2},
    )
    g.nodes["u"].data["h"] = np.array([1.0, 5.0, 3.0])
    g.nodes["g"].data["h"] = np.array([7.0, 0.0])
    types = []

    def pred(nodes):
        types.append(nodes.ntype)
        return nodes.data["h"] > 2

    assert g.filter_nodes(pred, ntype="g").tolist() == [0]
    assert g.filter_nodes(pred, [2, 0, 1, 2], ntype="u").tolist() == [2, 1, 2]  # DGL: repeats
    g.apply_nodes(lambda n: types.append(n.ntype) or {"k": n.data["h"]}, ntype="g")
    g.update_all(
        fn.copy_u("h", "m"),
        fn.sum("m", "s"),
        lambda n: types.append(n.ntype) or {"s": n.data["s"]},
        etype="p",
    )
    g.pull([1], fn.copy_u("h", "m"), fn.sum("m", "s"), lambda n: types.append(n.ntype) or {}, "f")
    assert types == ["g", "u", "g", "g", "u"]
    w = np.array([0.5, 2.0, 3.0])
    g.edges["p"].data["w"] = w
    got = g.filter_edges(lambda e: (e.data["w"] > 1) & (e.canonical_etype[1] == "p"), etype="p")
    assert got.tolist() == [1, 2]
    assert g.filter_edges(lambda e: e.src["h"] < 4, ([2, 0], [1, 0]), etype="p").tolist() == [2, 0]


@pytest.mark.parametrize(
    "bad, err, match",
    [
        (lambda b: [True] * len(b), TypeError, "filter_.*boolean array, got list"),
        (lambda b: np.ones(1, bool), ValueError, r"filter_.*one value per item.*got shape \(1,\)"),
        (lambda b: np.ones((len(b), 1), bool), ValueError, "filter_.*one value per item"),
        (lambda b: np.ones(len(b)), TypeError, "filter_.*one bool per item, got float64"),
    ],
)
def test_filters_name_a_bad_predicate(bad, err, match):
    g = ag.graph(([0, 1, 2], [1, 2, 0]), num_nodes=4)
    with pytest.raises(err, match=match):
        g.filter_nodes(bad)
    with pytest.raises(err, match=match):
        g.filter_edges(bad, [2, 0])
    assert not g.ndata and not g.edata  # the hidden mask field never stays


@pytest.mark.parametrize(
    "where, out, err, match",
    [
        ("message", lambda b: b.src["h"], TypeError, "message UDF must return a dict"),
        ("message", lambda b: {"m": b.src["h"][:2]}, ValueError, "'m' has 2 rows, expected 5"),
        ("message", lambda b: {"m": 1.0}, TypeError, "'m' must be a NumPy or CuPy array"),
        ("reduce", lambda b: None, TypeError, "reduce UDF must return a dict.*NoneType"),
        ("reduce", lambda b: {"o": np.float64(1.0)}, TypeError, "'o' must be a NumPy"),
        ("reduce", lambda b: {"o": np.zeros(())}, ValueError, "'o' has a scalar"),
        ("reduce", lambda b: {"o": b.mailbox["m"]}, ValueError, "per-node shape"),
        ("apply", lambda b: {"o": b.data["h"][:1]}, ValueError, "apply_node_func output 'o'"),
        ("apply", lambda b: (b.data["h"],), TypeError, "apply_node_func must return a dict"),
    ],
)
def test_bad_udf_outputs_are_named(where, out, err, match):
    g = ag.graph(([0, 1, 2, 2, 3], [1, 2, 1, 3, 1]), num_nodes=4)
    g.ndata["h"] = np.arange(4.0)
    msg = out if where == "message" else (lambda e: {"m": e.src["h"]})
    red = out if where == "reduce" else (lambda n: {"o": n.mailbox["m"].sum(1)})
    apply = out if where == "apply" else None
    with pytest.raises(err, match=match):
        g.update_all(msg, red, apply)
    assert sorted(g.ndata) == ["h"] and not g.edata  # nothing written


def test_udfs_inside_local_scope_and_local_var_do_not_leak():
    src, dst = _homo(6)
    g = ag.graph((src, dst), num_nodes=N)
    h = np.arange(N, dtype=float)[:, None]
    g.ndata["h"] = h
    with g.local_scope():
        g.apply_edges(lambda e: {"e": e.src["h"] + e.dst["h"]})
        g.update_all(lambda e: {"m": e.data["e"]}, lambda n: {"h": n.mailbox["m"].max(1)})
        g.send_and_recv([0, 1], lambda e: {"m": e.src["h"]}, lambda n: {"t": n.mailbox["m"][:, 0]})
        assert sorted(g.edata) == ["e"] and sorted(g.ndata) == ["h", "t"]
    assert sorted(g.ndata) == ["h"] and not g.edata and g.ndata["h"] is h
    lv = g.local_var()
    lv.update_all(lambda e: {"m": e.src["h"]}, lambda n: {"h": n.mailbox["m"].sum(1)})
    assert g.ndata["h"] is h and not np.array_equal(lv.ndata["h"], h)


def test_udfs_without_etype_on_several_edge_types_are_refused():
    g = ag.heterograph(
        {("u", "p", "g"): ([0, 1], [0, 0]), ("u", "f", "u"): ([0], [1])},
        num_nodes_dict={"u": 2, "g": 1},
    )
    g.nodes["u"].data["h"] = np.ones(2)
    with pytest.raises(ValueError, match="pass etype="):  # DGL: DGLError, UDFs need etype
        g.apply_edges(lambda e: {"z": e.src["h"]})
    with pytest.raises(ValueError, match="built-in message and reduce functions only"):
        g.update_all(lambda e: {"m": e.src["h"]}, fn.sum("m", "o"))


def test_reduce_udf_on_a_graph_without_edges_is_documented():
    """DGL stores no field then (no bucket to merge); arraygnn calls the UDF once on an
    empty batch and stores zeros of its output shape (docs/coming_from_dgl.md)."""
    g = ag.graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=3)
    g.ndata["h"] = np.ones((3, 2), np.float32)
    calls = []
    g.update_all(
        lambda e: {"m": e.src["h"]},
        lambda n: (
            calls.append((n.mailbox["m"].shape, len(n), n.ntype)) or {"o": n.mailbox["m"].sum(1)}
        ),
    )
    assert calls == [((0, 1, 2), 0, "_N")]
    assert g.ndata["o"].shape == (3, 2) and g.ndata["o"].dtype == np.float32
    assert not g.ndata["o"].any()


def test_udfs_on_a_subgraph_see_its_own_ids_as_documented():
    """DGL's update_all reports the stored NID / EID (parent ids) to UDFs; arraygnn gives
    the subgraph's own ids (docs/coming_from_dgl.md)."""
    g = ag.graph(([0, 1, 2, 2, 3], [1, 2, 1, 3, 1]), num_nodes=5)
    g.edata["w"] = np.arange(5.0)
    sg = g.subgraph([1, 2, 3])
    seen = []
    sg.update_all(
        lambda e: seen.append(e.edges()[2].tolist()) or {"m": e.data["w"]},
        lambda n: seen.append(n.nodes().tolist()) or {"o": n.mailbox["m"].sum(1)},
    )
    assert seen == [[0, 1, 2, 3], [1, 2], [0]]
    np.testing.assert_array_equal(sg.ndata["o"], [6.0, 1.0, 3.0])  # w = parent w[EID]
