"""PyG MessagePassing API parity sweep (session 12): each custom layer is written once, with
method bodies that use only operators shared by NumPy and torch, and built twice (on
arraygnn's MessagePassing and on PyG 2.8.1's), then run live on the same inputs. Covers what
tests/nn/test_message_passing.py and test_review_message_passing.py do not: the special
arguments under both flows and bipartite sizes, node_dim on 3-D features, aggr_kwargs /
MultiAggregation modes, update's arguments, edge_updater with pairs and flows, hooks' views,
decomposed_layers with pairs, keyword-only / **kwargs signatures, and bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.nn import MessagePassing
from arraygnn.nn import aggr as ag_aggr

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


def _t(a):
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if isinstance(a, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(a))
    return a


def _n(a):
    if isinstance(a, torch.Tensor):
        return a.detach().numpy()
    if isinstance(a, (tuple, list)):
        return type(a)(_n(v) for v in a)
    return a


_COUNT = iter(range(10**6))


def _both(methods, prop=("x",), edge=(), pyg_init=None, **init):
    """The same layer on arraygnn's and on PyG's base class. The PyG class declares the
    keywords given to ``propagate`` / ``edge_updater`` (``propagate_type``, PyG's way 1), so
    PyG runs its generated (jinja) templates, as for a layer written in a source file."""
    for key, func in methods.items():
        func.__name__ = func.__qualname__ = key  # PyG's Inspector keys signatures by name
    name = f"Layer{next(_COUNT)}"  # PyG caches a generated template per class name

    def build(base, extra, kw):
        def __init__(self):
            base.__init__(self, **kw)

        return type(name, (base,), {"__init__": __init__, **methods, **extra})()

    extra = {"propagate_type": {k: "torch.Tensor" for k in prop}}
    if edge:
        extra["edge_updater_type"] = {k: "torch.Tensor" for k in edge}
    return build(MessagePassing, {}, init), build(pyg_nn.MessagePassing, extra, pyg_init or init)


def _graph(rng, n_src, n_dst, e, dtype=np.int64):
    return np.stack([rng.integers(0, n_src, e), rng.integers(0, n_dst, e)]).astype(dtype)


def _close(ours, theirs, rtol=1e-12, atol=1e-12):
    theirs = _n(theirs)
    assert isinstance(ours, np.ndarray) and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)


# ---- special arguments under both flows, pairs, sizes -------------------------------------
def _specials_message(self, x_j, x_i, index, dim_size, size_i, size_j, edge_index_i, edge_index_j):
    # every special folded into the message, so a wrong one changes the numbers
    return (
        x_j * (size_i + 1)
        + x_i * (size_j + 2)
        + index[:, None] * 0.5
        + edge_index_i[:, None] * 0.25
        + edge_index_j[:, None] * 0.125
        + dim_size
    )


def _ptr_none_aggregate(self, inputs, index, ptr, dim_size):
    assert ptr is None  # PyG: no ptr for a [2, E] edge_index
    return self.aggr_module(inputs, index, ptr=ptr, dim_size=dim_size, dim=self.node_dim)


@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
@pytest.mark.parametrize(
    "form", ["single", "single_size", "pair", "pair_size", "pair_none_dst", "half_size"]
)
@pytest.mark.parametrize("aggr", ["sum", "mean", "max"])
def test_special_arguments_match_pyg(flow, form, aggr):
    rng = np.random.default_rng(0)
    n0, n1 = (5, 4) if form.startswith("pair") or form == "half_size" else (5, 5)
    ei = _graph(rng, min(n0, n1), min(n0, n1), 12)  # ids valid on either side, either flow
    x0, x1 = rng.normal(size=(n0, 3)), rng.normal(size=(n1, 3))
    size = None
    if form == "single":
        x = x0
    elif form == "single_size":
        x, size = x0, (n0, n1)
    elif form == "pair":
        x = (x0, x1)
    elif form == "pair_size":
        x, size = (x0, x1), (n0, n1)
    elif form == "pair_none_dst":
        # no target array: x_i is None in both; the size comes from size=
        x, size = (x0, None), (n0, n1)
    else:  # half_size: x gives the source count, size= the other (x_i not asked for)
        x = x0 if flow == "source_to_target" else x1
        size = (None, n1) if flow == "source_to_target" else (n0, None)
    msg = _specials_message
    if form == "pair_none_dst":

        def msg(self, x_j, x_i, index, dim_size, size_i, size_j):
            assert x_i is None
            return x_j * (size_i + 1) + index[:, None] * 0.5 + dim_size + size_j

    elif form == "half_size":

        def msg(self, x_j, index, dim_size, size_i, size_j):
            return x_j * (size_i + 1) + index[:, None] * 0.5 + dim_size + size_j

    ours, theirs = _both({"message": msg, "aggregate": _ptr_none_aggregate}, aggr=aggr, flow=flow)
    got = ours.propagate(ei, x=x, size=size)
    want = theirs.propagate(_t(ei), x=_t(x), size=size)
    _close(got, want)


# ---- node_dim on 3-D features ------------------------------------------------------------
def _msg_ij(self, x_i, x_j):
    return x_j * 2.0 - x_i * 0.5


@pytest.mark.parametrize(
    "shape,node_dim",
    [((6, 2, 3), 0), ((6, 2, 3), -3), ((2, 6, 3), 1), ((2, 3, 6), -1), ((2, 3, 6), 2)],
)
@pytest.mark.parametrize("aggr", ["sum", "mean", "max", "softmax", ["min", "mean"]])
def test_node_dim_on_three_d_features_matches_pyg(shape, node_dim, aggr):
    if node_dim in (-1, 2) and aggr == ["min", "mean"]:
        pytest.skip("PyG's list aggregation concatenates on the node axis there")
    rng = np.random.default_rng(1)
    ei = _graph(rng, 6, 6, 14)
    x = rng.normal(size=shape)
    ours, theirs = _both({"message": _msg_ij}, aggr=aggr, node_dim=node_dim)
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)))
    # the default message (arraygnn's fused spmm for node_dim 0) too
    ours, theirs = _both({}, aggr=aggr, node_dim=node_dim)
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)))


# ---- aggr as str / list / Aggregation with aggr_kwargs -----------------------------------
@pytest.mark.parametrize(
    "aggr,aggr_kwargs",
    [
        (["mean", "max", "sum"], {"mode": "sum"}),
        (["mean", "max"], {"mode": "mean"}),
        (["mean", "max"], {"mode": "max"}),
        (["mean", "min"], {"mode": "min"}),
        (["mean", "max"], {"mode": "std"}),
        (["mean", "max"], {"mode": "var"}),
        (["mean", "max"], {"mode": "logsumexp"}),
        (["sum", "std"], {"mode": "cat"}),
        ("softmax", {"t": 0.5}),
        ("powermean", {"p": 2.0}),
        ("quantile", {"q": 0.3}),
        ("quantile", {"q": 0.7, "interpolation": "midpoint"}),
        ("var", {"semi_grad": False}),
        (["softmax", "powermean"], {"aggrs_kwargs": [{"t": 0.1}, {"p": 3.0}], "mode": "cat"}),
    ],
)
def test_aggr_kwargs_and_multi_aggregation_match_pyg(aggr, aggr_kwargs):
    rng = np.random.default_rng(2)
    ei = _graph(rng, 7, 7, 20)
    ei[1, :3] = 6  # a node with several messages; node 5 may have none
    x = np.abs(rng.normal(size=(7, 4))) + 0.1  # powermean needs positive inputs
    ours, theirs = _both({"message": _msg_ij}, aggr=aggr, aggr_kwargs=aggr_kwargs)
    assert ours.aggr == theirs.aggr
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)), rtol=1e-10, atol=1e-10)


def _aggr_objects():
    return [
        (
            lambda: ag_aggr.MultiAggregation(["mean", "sum"], mode="cat"),
            lambda: pyg_nn.aggr.MultiAggregation(["mean", "sum"], mode="cat"),
        ),
        (
            lambda: ag_aggr.MultiAggregation(["max", "min"], mode="sum"),
            lambda: pyg_nn.aggr.MultiAggregation(["max", "min"], mode="sum"),
        ),
        (ag_aggr.MedianAggregation, pyg_nn.aggr.MedianAggregation),
        (ag_aggr.StdAggregation, pyg_nn.aggr.StdAggregation),
        (
            lambda: ag_aggr.PowerMeanAggregation(p=0.5),
            lambda: pyg_nn.aggr.PowerMeanAggregation(p=0.5),
        ),
    ]


@pytest.mark.parametrize("k", range(5))
def test_aggregation_objects_match_pyg(k):
    make_ours, make_theirs = _aggr_objects()[k]
    rng = np.random.default_rng(3)
    ei = _graph(rng, 6, 6, 15)
    x = np.abs(rng.normal(size=(6, 3))) + 0.1
    ours, theirs = _both({"message": _msg_ij}, aggr=make_ours(), pyg_init={"aggr": make_theirs()})
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)), rtol=1e-10)


# ---- update's arguments --------------------------------------------------------------------
@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
@pytest.mark.parametrize("pair", [False, True])
def test_update_receives_what_pyg_gives(flow, pair):
    rng = np.random.default_rng(4)
    n0, n1 = (5, 3) if pair else (5, 5)
    ei = _graph(rng, 3, 3, 9)
    x = (rng.normal(size=(n0, 2)), rng.normal(size=(n1, 2))) if pair else rng.normal(size=(5, 2))

    # dim_size annotated as PyG's aggregate does, so PyG compiles its template (an unannotated
    # one makes PyG fall back to its Python path, which hands update inspect.Parameter.empty
    # for `scale`: arraygnn follows the template and gives the default)
    def update(self, inputs, x, index, dim_size: int | None, size_j, scale=3.0):
        base = x[0] if isinstance(x, tuple) else x  # x as given: a pair stays a pair
        return inputs * scale + float(base.sum()) + dim_size + size_j + index.shape[0]

    ours, theirs = _both({"message": _msg_ij, "update": update}, aggr="mean", flow=flow)
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)))


# ---- edge_updater / edge_update ---------------------------------------------------------
def _edge_update(self, x_i, x_j, index, size_i, size_j, dim_size, edge_index_j, alpha=1.5):
    return (x_i * x_j).sum(-1) * alpha + index * 0.5 + size_i + 2 * size_j + edge_index_j * 0.25


@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
@pytest.mark.parametrize("form", ["single", "pair", "pair_size", "csr_like_sorted"])
def test_edge_updater_matches_pyg(flow, form):
    rng = np.random.default_rng(5)
    n0, n1 = (6, 4) if form.startswith("pair") else (6, 6)
    ei = _graph(rng, min(n0, n1), min(n0, n1), 11)
    if form == "csr_like_sorted":
        ei = ei[:, np.argsort(ei[1], kind="stable")]
    x0, x1 = rng.normal(size=(n0, 3)), rng.normal(size=(n1, 3))
    x = (x0, x1) if form.startswith("pair") else x0
    size = (n0, n1) if form == "pair_size" else None
    ours, theirs = _both({"edge_update": _edge_update}, edge=("x",), flow=flow)
    got = ours.edge_updater(ei, x=x, size=size)
    want = theirs.edge_updater(_t(ei), x=_t(x), size=size)
    _close(got, want)


def test_edge_updater_then_propagate_like_gat():
    """PyG's GATConv pattern: edge_updater computes alpha, propagate uses it."""
    rng = np.random.default_rng(6)
    ei = _graph(rng, 5, 5, 12)
    x = rng.normal(size=(5, 3))
    a = rng.normal(size=(5, 1))

    def edge_update(self, a_j, a_i, index, ptr, dim_size):
        s = a_j + a_i
        return s * (s > 0) + 0.2 * s * (s <= 0)

    def message(self, x_j, alpha):
        return x_j * alpha

    ours, theirs = _both(
        {"edge_update": edge_update, "message": message}, prop=("x", "alpha"), edge=("a",)
    )
    al_o = ours.edge_updater(ei, a=a)
    al_t = theirs.edge_updater(_t(ei), a=_t(a))
    _close(al_o, al_t)
    _close(ours.propagate(ei, x=x, alpha=al_o), theirs.propagate(_t(ei), x=_t(x), alpha=al_t))


# ---- hooks ----------------------------------------------------------------------------------
def test_hooks_see_and_change_what_pyg_hooks_do():
    rng = np.random.default_rng(7)
    ei = _graph(rng, 5, 5, 10)
    x = rng.normal(size=(5, 2))
    w = rng.normal(size=(10,))

    def message(self, x_j, w):
        return x_j * w[:, None]

    ours, theirs = _both({"message": message}, prop=("x", "w"), aggr="sum")
    seen = {"ours": [], "theirs": []}
    for key, layer in (("ours", ours), ("theirs", theirs)):
        log = seen[key]

        def prop_pre(module, inputs, log=log):
            edge_index, size, kwargs = inputs
            log.append(("prop_pre", size, sorted(kwargs)))
            return edge_index, size, {**kwargs, "w": kwargs["w"] * 2}

        def prop_post(module, inputs, out, log=log):
            log.append(("prop_post", list(inputs[1]), tuple(out.shape)))
            return out + 1

        def msg_post(module, inputs, out, log=log):
            log.append(("msg_post", sorted(inputs[0]), tuple(out.shape)))

        def aggr_pre(module, inputs, log=log):
            log.append(("aggr_pre", sorted(inputs[0])))

        def aggr_post(module, inputs, out, log=log):
            log.append(("aggr_post", tuple(out.shape)))
            return out * 3

        handles = [
            layer.register_propagate_forward_pre_hook(prop_pre),
            layer.register_propagate_forward_hook(prop_post),
            layer.register_message_forward_hook(msg_post),
            layer.register_aggregate_forward_pre_hook(aggr_pre),
            layer.register_aggregate_forward_hook(aggr_post),
        ]
        layer._handles = handles
    got = ours.propagate(ei, x=x, w=w)
    want = theirs.propagate(_t(ei), x=_t(x), w=_t(w))
    _close(got, want)
    assert seen["ours"] == seen["theirs"]
    for h in ours._handles + theirs._handles:
        h.remove()
    _close(ours.propagate(ei, x=x, w=w), theirs.propagate(_t(ei), x=_t(x), w=_t(w)))


# ---- decomposed_layers with pairs and edge features --------------------------------------
@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
@pytest.mark.parametrize("parts", [2, 3])
def test_decomposed_layers_with_pairs_match_pyg(flow, parts):
    rng = np.random.default_rng(8)
    ei = _graph(rng, 4, 4, 12)
    x = (rng.normal(size=(5, 6)), rng.normal(size=(4, 6)))
    e = rng.normal(size=(12, 1))

    def message(self, x_i, x_j, edge_attr):
        return x_j * edge_attr + x_i

    ours, theirs = _both(
        {"message": message},
        prop=("x", "edge_attr"),
        aggr="max",
        flow=flow,
        decomposed_layers=parts,
    )
    got = ours.propagate(ei, x=x, edge_attr=e, size=(5, 4))
    # PyG cannot split a pair (it calls `.chunk` on the tuple: AttributeError), so its
    # undecomposed layer is the reference (documented in docs/layers.md)
    with pytest.raises(AttributeError):
        theirs.propagate(_t(ei), x=_t(x), edge_attr=_t(e), size=(5, 4))
    theirs.decomposed_layers = 1
    want = theirs.propagate(_t(ei), x=_t(x), edge_attr=_t(e), size=(5, 4))
    _close(got, want)


# ---- signatures: keyword-only, **kwargs, keyword-only forward ------------------------------
def test_keyword_only_and_var_keyword_signatures_match_pyg():
    rng = np.random.default_rng(9)
    ei = _graph(rng, 5, 5, 10)
    x, w = rng.normal(size=(5, 2)), rng.normal(size=(10,))

    def message(self, x_j, *, w, shift=1.0):
        return x_j * w[:, None] + shift

    def forward(self, x, edge_index, *, w, shift=2.0):
        return self.propagate(edge_index, x=x, w=w, shift=shift)

    ours, theirs = _both(
        {"message": message, "forward": forward}, prop=("x", "w", "shift"), aggr="mean"
    )
    _close(ours(x, ei, w=w), theirs(_t(x), _t(ei), w=_t(w)))
    _close(ours(x, ei, w=w, shift=-1.0), theirs(_t(x), _t(ei), w=_t(w), shift=-1.0))
    with pytest.raises(TypeError):
        ours(x, ei, w)  # keyword-only stays keyword-only, as in torch


# ---- small index dtypes and empty graphs ---------------------------------------------------
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32])
@pytest.mark.parametrize("aggr", ["sum", "max", "softmax"])
def test_small_index_dtypes_and_empty_graphs_match_pyg(dtype, aggr):
    rng = np.random.default_rng(10)
    x = rng.normal(size=(5, 2))
    for ei in (_graph(rng, 5, 5, 9, dtype), np.zeros((2, 0), dtype)):
        ours, theirs = _both({"message": _msg_ij}, aggr=aggr)
        # PyG's check accepts uint8 / int16 ids but torch's index_select refuses them
        tei = _t(ei.astype(np.int64)) if dtype != np.int32 else _t(ei)
        _close(ours.propagate(ei, x=x), theirs.propagate(tei, x=_t(x)))


# ---- bad input --------------------------------------------------------------------------
def _errors():
    x = np.ones((4, 2))
    y = np.ones((3, 2))
    ei = np.array([[0, 1, 2], [1, 2, 3]])

    def msg_xy(self, x_j, y_j):
        return x_j + y_j

    return [
        # (name, methods, propagate kwargs as numpy, ours error, pattern)
        ("size_len1", {}, dict(edge_index=ei, x=x, size=(4,)), TypeError, "size must be a pair"),
        ("size_len3", {}, dict(edge_index=ei, x=x, size=(4, 4, 4)), TypeError, "size", False),
        (
            "size_float",
            {},
            dict(edge_index=ei, x=x, size=(4.0, 4)),
            ValueError,
            r"size\[0\]",
            False,
        ),
        ("size_neg", {}, dict(edge_index=ei, x=x, size=(-1, 4)), ValueError, r"size\[0\]"),
        ("size_mismatch", {}, dict(edge_index=ei, x=x, size=(5, 4)), ValueError, "expected size 5"),
        ("float_ei", {}, dict(edge_index=ei.astype(np.float32), x=x), ValueError, "integer type"),
        ("bool_ei", {}, dict(edge_index=ei.astype(bool), x=x), ValueError, "integer type"),
        ("ei_3d", {}, dict(edge_index=ei[None], x=x), ValueError, "two-dimensional"),
        ("ei_3rows", {}, dict(edge_index=np.zeros((3, 2), int), x=x), ValueError, "size '2'"),
        (
            "xy_rows",
            {"message": msg_xy},
            dict(edge_index=ei, x=x, y=y),
            ValueError,
            "expected size",
        ),
        ("pair_len3", {}, dict(edge_index=ei, x=(x, x, x)), ValueError, "pair"),
    ]


@pytest.mark.parametrize("case", range(11))
def test_bad_input_errors(case):
    name, methods, kw, err, pattern, *pyg_refuses = _errors()[case]
    kw = dict(kw)
    ours, theirs = _both(methods, prop=[k for k in kw if k not in ("edge_index", "size")])
    ei = kw.pop("edge_index")
    with pytest.raises(err, match=pattern):
        ours.propagate(ei, **kw)
    # PyG refuses the same input too (its error types vary), except a size of three entries
    # (it reads the first two) or a float count (used as given): arraygnn is stricter there
    if pyg_refuses == [False]:
        theirs.propagate(_t(ei), **{k: _t(v) for k, v in kw.items()})
        return
    with pytest.raises((ValueError, TypeError, IndexError, AssertionError)):
        theirs.propagate(_t(ei), **{k: _t(v) for k, v in kw.items()})


def test_node_count_mismatch_between_inputs_is_refused_like_pyg():

    def message(self, x_j, h_i):
        return x_j + h_i

    ours, theirs = _both({"message": message}, prop=("x", "h"), flow="target_to_source")
    # with target_to_source, x_j sizes side 1 and h_i side 0: 4 vs 3 rows are fine
    x, h = np.ones((4, 2)), np.ones((3, 2))
    ei2 = np.array([[0, 1, 2], [3, 2, 1]])
    _close(ours.propagate(ei2, x=x, h=h), theirs.propagate(_t(ei2), x=_t(x), h=_t(h)))
    # but two arrays on one side with different counts are refused by both
    with pytest.raises(ValueError, match="expected size"):
        ours.propagate(ei2, x=x, h=(np.ones((4, 2)), np.ones((5, 2))))
    with pytest.raises(ValueError, match="expected size"):
        theirs.propagate(_t(ei2), x=_t(x), h=(torch.ones(4, 2), torch.ones(5, 2)))


# ---- layouts, wide / unsigned ids, 3-D multi-aggregation, odd shapes ---------------------
@pytest.mark.parametrize("layout", ["strided", "fortran", "uint32", "uint64"])
@pytest.mark.parametrize("own_message", [False, True])
def test_edge_index_layouts_and_unsigned_ids_match_pyg(layout, own_message):
    rng = np.random.default_rng(12)
    ei = _graph(rng, 5, 5, 20)
    x = rng.normal(size=(5, 4))[:, ::2]  # a strided x as well
    ours_ei = {
        "strided": ei[:, ::2],
        "fortran": np.asfortranarray(ei),
        "uint32": ei.astype(np.uint32),
        "uint64": ei.astype(np.uint64),
    }[layout]
    ref_ei = np.ascontiguousarray(ours_ei).astype(np.int64)  # torch has no uint32/64 ids
    methods = {"message": _msg_ij} if own_message else {}
    ours, theirs = _both(methods, aggr="max")
    before = ours_ei.copy()
    _close(ours.propagate(ours_ei, x=x), theirs.propagate(_t(ref_ei), x=_t(x)))
    assert np.array_equal(ours_ei, before) and ours_ei.dtype == before.dtype


@pytest.mark.parametrize("mode", ["cat", "sum", "std", "logsumexp"])
def test_multi_aggregation_on_three_d_features_matches_pyg(mode):
    rng = np.random.default_rng(13)
    ei = _graph(rng, 5, 5, 10)
    x = rng.normal(size=(5, 2, 3))
    kw = {"aggr": ["mean", "max"], "aggr_kwargs": {"mode": mode}, "node_dim": 0}
    ours, theirs = _both({"message": _msg_ij}, **kw)
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)), rtol=1e-10)


def test_odd_shapes_are_refused_or_run_like_pyg():
    rng = np.random.default_rng(14)
    ei = _graph(rng, 5, 5, 10)
    x = rng.normal(size=(5, 3))

    def message(self, x_j):
        return x_j.sum(-1)  # 1-D messages

    # 1-D messages cannot be reduced along node_dim=-2: both refuse
    ours, theirs = _both({"message": message})
    with pytest.raises(ValueError, match="dim"):
        ours.propagate(ei, x=x)
    with pytest.raises(ValueError, match="dimension"):
        theirs.propagate(_t(ei), x=_t(x))
    # with node_dim=0 they are fine
    ours, theirs = _both({"message": message}, node_dim=0)
    _close(ours.propagate(ei, x=x), theirs.propagate(_t(ei), x=_t(x)))
    # a 0-d edge_index: PyG raises ValueError (not an integer tensor of [2, E]); ours names it
    ours, _ = _both({})
    with pytest.raises(TypeError, match="edge_index must be"):
        ours.propagate(np.int64(3), x=x)
    with pytest.raises(ValueError, match="two-dimensional"):
        ours.propagate(np.array(3), x=x)
    # decomposition over an empty graph and a node-less x
    ours, theirs = _both({"message": _msg_ij}, aggr="softmax", decomposed_layers=2)
    empty = np.zeros((2, 0), np.int64)
    for xx in (x, np.zeros((0, 4))):
        _close(ours.propagate(empty, x=xx), theirs.propagate(_t(empty), x=_t(xx)))
