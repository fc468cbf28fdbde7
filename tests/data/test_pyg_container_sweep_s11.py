"""Parity sweep of the PyG face's containers (``Data``, ``HeteroData``, ``Batch``) against
PyG 2.8: every public method both provide, called on the same small graphs (built from the
same NumPy arrays), results compared value by value, dtype included.

Where arraygnn differs on purpose (DESIGN: no length-based node / edge classification, no
``num_nodes`` from ``edge_index.max() + 1``, exact round trips of a batch), the case names
the levels (``graph_attrs=``) or the test checks the documented behaviour and its error.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tg = pytest.importorskip("torch_geometric.data")

import arraygnn  # noqa: E402
from arraygnn.batch import Batch  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.hetero_batch import HeteroBatch  # noqa: E402
from arraygnn.hetero_data import HeteroData  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

LIBS = {
    "a": (Data, HeteroData, Batch),
    "p": (tg.Data, tg.HeteroData, tg.Batch),
}


# ------------------------------------------------------------------ plumbing
def _t(lib: str, a):
    """``a`` (NumPy) as the library's array: NumPy for arraygnn, a torch copy for PyG."""
    return a if lib == "a" else torch.from_numpy(np.array(a))


def _kind(v) -> str | None:
    if isinstance(v, (Batch, HeteroBatch, tg.Batch)):
        return "Batch"
    if isinstance(v, (HeteroData, tg.HeteroData)):
        return "HeteroData"
    if isinstance(v, (Data, tg.Data)):
        return "Data"
    return None


def _arr(a: np.ndarray):
    if a.dtype.kind == "f" and a.size and np.isnan(a).any():
        a = a.astype(object)
        a[np.isnan(a.astype(float))] = "nan"
    return ("array", str(a.dtype) if a.dtype != object else "float", a.tolist())


def plain(v):
    """A comparable form: arrays as (dtype, values), containers as sorted dicts."""
    if isinstance(v, torch.Tensor):
        return _arr(v.detach().numpy())
    if isinstance(v, np.ndarray):
        return _arr(v)
    if isinstance(v, np.generic):
        return v.item()
    kind = _kind(v)
    if kind is not None:
        body = {}
        for key, val in v.to_dict().items():
            if isinstance(key, str) and key.startswith("_") and key != "_global_store":
                continue  # PyG's bookkeeping (_num_nodes)
            if isinstance(val, dict) and kind != "Data":
                val = {k: w for k, w in val.items() if not k.startswith("_")}
            body[str(key)] = plain(val)
        return (kind, body)
    if hasattr(v, "_fields"):  # a namedtuple
        return ("namedtuple", list(v._fields), [plain(w) for w in v])
    if isinstance(v, dict):
        return {str(k): plain(w) for k, w in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, (list, tuple)):
        return [plain(w) for w in v]
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def both(case):
    """The case's result for arraygnn and for PyG."""
    return plain(case("a")), plain(case("p"))


# ------------------------------------------------------------------ graphs
def g_main(lib):
    """4 nodes, a duplicate edge (1, 2), a self-loop (3, 3), node 3 isolated otherwise."""
    D = LIBS[lib][0]
    ei = np.array([[0, 1, 1, 2, 3, 1], [1, 0, 2, 1, 3, 2]])
    return D(
        x=_t(lib, np.arange(8.0).reshape(4, 2)),
        edge_index=_t(lib, ei),
        edge_attr=_t(lib, np.arange(6.0)[:, None]),
        y=_t(lib, np.array([1])),
    )


def g_undirected(lib, dtype=np.int64):
    D = LIBS[lib][0]
    ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]], dtype)
    return D(edge_index=_t(lib, ei), edge_attr=_t(lib, np.array([1.0, 1.0, 2.0, 2.0])), num_nodes=3)


def g_no_edges(lib):
    D = LIBS[lib][0]
    return D(edge_index=_t(lib, np.zeros((2, 0), np.int64)), num_nodes=3)


def g_zero(lib):
    D = LIBS[lib][0]
    return D(x=_t(lib, np.zeros((0, 2))), edge_index=_t(lib, np.zeros((2, 0), np.int64)))


def g_dup(lib):
    """Unsorted, with parallel edges and two per-edge arrays."""
    D = LIBS[lib][0]
    ei = np.array([[1, 0, 1, 0, 2], [0, 1, 0, 1, 2]])
    return D(
        edge_index=_t(lib, ei),
        edge_attr=_t(lib, np.arange(5.0)),
        num_nodes=3,
    )


def gs_small(lib, dtype=np.int64):
    """Three graphs of 3, 1 and 2 nodes (the middle one edgeless), arrays only."""
    D = LIBS[lib][0]
    out = []
    for i, (n, ei) in enumerate([(3, [[0, 1], [1, 2]]), (1, [[], []]), (2, [[1], [0]])]):
        ei = np.array(ei, dtype=dtype).reshape(2, -1)
        out.append(
            D(
                x=_t(lib, np.arange(n * 2.0).reshape(n, 2) + i),
                edge_index=_t(lib, ei),
                edge_attr=_t(lib, np.full((ei.shape[1], 3), float(i))),
                y=_t(lib, np.array([i])),
                center_index=_t(lib, np.array([n - 1])),
            )
        )
    return out


def h_main(lib, i=0):
    H = LIBS[lib][1]
    h = H()
    h["paper"].x = _t(lib, np.arange(6.0).reshape(3, 2) + i)
    h["paper"].y = _t(lib, np.array([0, 1, 0]))
    h["author"].x = _t(lib, np.ones((2, 2)) * i)
    h["author", "writes", "paper"].edge_index = _t(lib, np.array([[1, 0, 1], [2, 0, 1]]))
    h["author", "writes", "paper"].edge_attr = _t(lib, np.arange(3.0)[:, None])
    h["paper", "cites", "paper"].edge_index = _t(lib, np.array([[0, 1, 2, 2, 0], [1, 0, 2, 0, 1]]))
    h.gy = _t(lib, np.array([i]))
    return h


def h_featureless(lib, i=0):
    """An edge type whose destination node type has no features, only a count."""
    H = LIBS[lib][1]
    h = H()
    h["a"].x = _t(lib, np.ones((2, 1)) * i)
    h["b"].num_nodes = 3
    h["a", "r", "b"].edge_index = _t(lib, np.array([[0, 1], [2, 0]]))
    return h


def _gattrs(lib, names):
    """arraygnn names the per-graph arrays (DESIGN); PyG guesses them by length."""
    return {"graph_attrs": names} if lib == "a" else {}


def _call(obj, name, *args, **kwargs):
    value = getattr(obj, name)
    return value(*args, **kwargs) if callable(value) else value


def _after(build, fn):
    """``fn(obj)`` on a fresh object, then the object (for in-place methods)."""

    def run(lib):
        obj = build(lib)
        fn(obj, lib)
        return obj

    return run


# ------------------------------------------------------------------ Data cases
SIZES = ["num_nodes", "num_edges", "num_node_features", "num_edge_features", "num_features"]
CHECKS = ["is_undirected", "is_coalesced", "has_isolated_nodes", "has_self_loops", "is_directed"]


def _sizes_of(g):
    return lambda lib: [_call(g(lib), n) for n in SIZES]


def _checks_of(g):
    def run(lib):
        d = g(lib)
        return [_call(d, n) for n in CHECKS] + [d.is_sorted(), d.is_sorted(False), d.size()]

    return run


GRAPHS = (g_main, g_undirected, g_no_edges, g_zero, g_dup)

DATA_CASES = {
    **{f"{g.__name__}-sizes": _sizes_of(g) for g in GRAPHS},
    **{f"{g.__name__}-checks": _checks_of(g) for g in GRAPHS},
    "int32-checks": lambda lib: [_call(g_undirected(lib, np.int32), n) for n in CHECKS],
    "subgraph-mask": lambda lib: g_main(lib).subgraph(
        _t(lib, np.array([True, True, False, True])), **_gattrs(lib, ["y"])
    ),
    "subgraph-index": lambda lib: g_main(lib).subgraph(
        _t(lib, np.array([3, 1, 2])), **_gattrs(lib, ["y"])
    ),
    "subgraph-index-int32": lambda lib: g_main(lib).subgraph(
        _t(lib, np.array([2, 1], np.int32)), **_gattrs(lib, ["y"])
    ),
    "subgraph-empty": lambda lib: g_main(lib).subgraph(
        _t(lib, np.zeros(0, np.int64)), **_gattrs(lib, ["y"])
    ),
    "subgraph-num_nodes-int32-edges": lambda lib: g_undirected(lib, np.int32).subgraph(
        _t(lib, np.array([False, True, True]))
    ),
    "edge_subgraph-mask": lambda lib: g_main(lib).edge_subgraph(
        _t(lib, np.array([True, False, True, False, True, False])), **_gattrs(lib, ["y"])
    ),
    "edge_subgraph-index-repeats": lambda lib: g_main(lib).edge_subgraph(
        _t(lib, np.array([4, 0, 0])), **_gattrs(lib, ["y"])
    ),
    "coalesce": lambda lib: g_dup(lib).coalesce(),
    "coalesce-done": lambda lib: g_undirected(lib).coalesce(),
    "coalesce-no-edges": lambda lib: g_no_edges(lib).coalesce(),
    "sort-row": lambda lib: g_dup(lib).sort(),
    "sort-col": lambda lib: g_dup(lib).sort(sort_by_row=False),
    "sort-x-untouched": lambda lib: g_main(lib).sort(sort_by_row=False, **_gattrs(lib, ["y"])),
    "sort-no-edges": lambda lib: g_no_edges(lib).sort(),
    "keys-len-iter": lambda lib: [
        sorted(g_main(lib).keys()),
        len(g_main(lib)),
        [k for k, _ in g_main(lib)],
        ["x" in g_main(lib), "pos" in g_main(lib), "num_nodes" in g_no_edges(lib)],
    ],
    "missing-pyg-attributes-are-none": lambda lib: (
        [getattr(g_no_edges(lib), k) for k in ("x", "edge_attr", "edge_weight", "pos", "y")]
        + [getattr(g_no_edges(lib), k) for k in ("batch", "time", "face")]
    ),
    "to_dict": lambda lib: g_main(lib).to_dict(),
    "from_dict": lambda lib: LIBS[lib][0].from_dict(g_no_edges(lib).to_dict()),
    "to_namedtuple": lambda lib: g_main(lib).to_namedtuple(),
    "stores": lambda lib: [
        [s.to_dict() for s in getattr(g_main(lib), n)]
        for n in ("stores", "node_stores", "edge_stores")
    ],
    "setattr-none-removes": _after(g_main, lambda d, lib: setattr(d, "edge_attr", None)),
    "setitem-none-removes": _after(g_main, lambda d, lib: d.__setitem__("x", None)),
    "setattr-read-only-name": _after(g_main, lambda d, lib: setattr(d, "num_edges", 9)),
    "num_edges-explicit": lambda lib: (
        _after(g_main, lambda d, lib: setattr(d, "num_edges", 9))(lib).num_edges
    ),
    "delattr": _after(g_main, lambda d, lib: delattr(d, "x")),
    "delattr-absent": _after(g_main, lambda d, lib: delattr(d, "zz")),
    "delitem-absent": _after(g_main, lambda d, lib: d.__delitem__("zz")),
    "update-data": _after(
        g_main, lambda d, lib: d.update(LIBS[lib][0](z=_t(lib, np.ones(2)), y=None))
    ),
    "update-dict": _after(g_main, lambda d, lib: d.update({"z": _t(lib, np.zeros(1))})),
    "concat": lambda lib: g_main(lib).concat(g_main(lib)),
    "concat-num_nodes": lambda lib: g_dup(lib).concat(
        g_no_edges(lib).update({"edge_attr": _t(lib, np.zeros(0))})
    ),
    "apply": lambda lib: g_main(lib).apply(lambda v: v * 2),
    "apply-keys": lambda lib: g_main(lib).apply(lambda v: v * 2, "x", "y"),
    "clone-independent": lambda lib: (lambda d: (d.clone().x.__setitem__(0, 9.0), d)[1])(
        g_main(lib)
    ),
    "copy-key-set-independent": lambda lib: (
        lambda d: (setattr(copy.copy(d), "q", _t(lib, np.ones(1))), d)[1]
    )(g_main(lib)),
    "generate_ids": _after(g_main, lambda d, lib: d.generate_ids()),
    "to_heterogeneous-names": lambda lib: LIBS[lib][0](
        x=_t(lib, np.arange(3.0)[:, None]),
        edge_index=_t(lib, np.array([[0, 2], [2, 1]])),
        node_type=_t(lib, np.array([0, 0, 1])),
        edge_type=_t(lib, np.array([0, 1])),
    ).to_heterogeneous(
        node_type_names=["a", "b"], edge_type_names=[("a", "r", "b"), ("b", "s", "a")]
    ),
    "to_heterogeneous-vectors": lambda lib: LIBS[lib][0](
        x=_t(lib, np.arange(3.0)[:, None]), edge_index=_t(lib, np.array([[0, 2], [2, 1]]))
    ).to_heterogeneous(_t(lib, np.array([0, 0, 1])), _t(lib, np.array([0, 1]))),
    "to_heterogeneous-default": lambda lib: g_main(lib).to_heterogeneous(**_gattrs(lib, ["y"])),
}


# ------------------------------------------------------------------ HeteroData cases
H_SIZES = SIZES[:3] + ["num_edge_features", "metadata", "node_offsets", "size"]
H_CHECKS = CHECKS[:1] + ["has_isolated_nodes", "has_self_loops", "is_directed", "is_coalesced"]


def _to_homogeneous_with(kw):
    return lambda lib: h_main(lib).to_homogeneous(**kw)


HETERO_CASES = {
    "sizes": lambda lib: [_call(h_main(lib), n) for n in H_SIZES],
    "checks": lambda lib: (
        [_call(h_main(lib), n) for n in H_CHECKS]
        + [h_main(lib).is_sorted(), h_main(lib).is_sorted(sort_by_row=False)]
    ),
    "featureless-sizes": lambda lib: [_call(h_featureless(lib), n) for n in H_SIZES],
    "keys-contains-len": lambda lib: [
        sorted(h_main(lib).keys()),
        ["x" in h_main(lib), "gy" in h_main(lib), "edge_attr" in h_main(lib), "q" in h_main(lib)],
        len(h_main(lib)),
    ],
    "collect": lambda lib: [
        h_main(lib).collect("x"),
        h_main(lib).collect("edge_index"),
        h_main(lib).collect("q", allow_empty=True),
        h_main(lib).x_dict,
        h_main(lib).num_nodes_dict,
    ],
    "stores": lambda lib: [
        [s.to_dict() for s in getattr(h_main(lib), n)]
        for n in ("stores", "node_stores", "edge_stores")
    ],
    "to_dict": lambda lib: h_main(lib).to_dict(),
    "from_dict": lambda lib: LIBS[lib][1].from_dict(h_main(lib).to_dict()),
    "to_namedtuple": lambda lib: h_main(lib).to_namedtuple(),
    "clone": lambda lib: h_main(lib).clone(),
    "apply-keys": lambda lib: h_main(lib).apply(lambda v: v + 1, "x"),
    "subgraph-index": lambda lib: h_main(lib).subgraph({"paper": _t(lib, np.array([2, 0]))}),
    "subgraph-masks": lambda lib: h_main(lib).subgraph(
        {
            "paper": _t(lib, np.array([True, False, True])),
            "author": _t(lib, np.array([1])),
        }
    ),
    "edge_subgraph": lambda lib: h_main(lib).edge_subgraph(
        {("author", "writes", "paper"): _t(lib, np.array([2, 0]))}
    ),
    "node_type_subgraph": lambda lib: h_main(lib).node_type_subgraph(["paper"]),
    "edge_type_subgraph": lambda lib: h_main(lib).edge_type_subgraph(
        [("author", "writes", "paper")]
    ),
    "rename": lambda lib: h_main(lib).rename("paper", "article"),
    "coalesce": lambda lib: h_main(lib).coalesce(),
    "sort": lambda lib: h_main(lib).sort(),
    "sort-col": lambda lib: h_main(lib).sort(sort_by_row=False),
    "update": _after(h_main, lambda h, lib: h.update(h_featureless(lib, 5))),
    "concat": lambda lib: h_main(lib).concat(h_main(lib, 5)),
    "set-node-type-name": lambda lib: _raises(lambda: setattr(h_main(lib), "paper", 1)),
    "generate_ids": _after(h_main, lambda h, lib: h.generate_ids()),
    "featureless-to_homogeneous": lambda lib: h_featureless(lib).to_homogeneous(),
    "featureless-subgraph": lambda lib: h_featureless(lib).subgraph(
        {"b": _t(lib, np.array([2, 0]))}
    ),
    **{
        f"to_homogeneous-{i}": _to_homogeneous_with(kw)
        for i, kw in enumerate(
            [
                {},
                {"node_attrs": ["x"]},
                {"add_node_type": False, "add_edge_type": False},
                {"edge_attrs": []},
                {"dummy_values": False, "node_attrs": ["x"], "edge_attrs": []},
            ]
        )
    },
    "to_homogeneous-roundtrip": lambda lib: (
        h_main(lib).to_homogeneous().to_heterogeneous(**_gattrs(lib, ["gy"]))
    ),
}


def _raises(fn):
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - the class is compared
        return ("raises", type(err).__name__)
    return "no error"


# ------------------------------------------------------------------ Batch cases
def _b(lib, graphs, **kw):
    return LIBS[lib][2].from_data_list(graphs, **kw)


def _getitem_with(idx):
    return lambda lib: _b(lib, gs_small(lib))[idx(lib)]


def bb(lib):
    """A batch of two batches (PyG's rule: no new batch vector, inner ``batch`` moved on)."""
    inner = _b(lib, gs_small(lib))
    return _b(lib, [inner, _b(lib, gs_small(lib)[:2])])


def hb(lib, **kw):
    return _b(lib, [h_main(lib), h_main(lib, 1), h_main(lib, 2)], **kw)


BATCH_CASES = {
    "collate": lambda lib: _b(lib, gs_small(lib)),
    "collate-int32": lambda lib: _b(lib, gs_small(lib, np.int32)),
    "collate-follow": lambda lib: _b(lib, gs_small(lib), follow_batch=["edge_attr", "y"]),
    "collate-exclude": lambda lib: _b(lib, gs_small(lib), exclude_keys=["y", "center_index"]),
    "collate-zero-node-graphs": lambda lib: _b(
        lib,
        [
            g_zero(lib),
            LIBS[lib][0](x=_t(lib, np.ones((2, 2))), edge_index=_t(lib, np.array([[1], [0]]))),
            g_zero(lib),
        ],
    ),
    "collate-num_nodes-only": lambda lib: _b(
        lib, [LIBS[lib][0](num_nodes=3), LIBS[lib][0](num_nodes=0)]
    ),
    "collate-1d-2d-3d": lambda lib: _b(
        lib,
        [
            LIBS[lib][0](
                x=_t(lib, np.ones(2) * i),
                pos=_t(lib, np.ones((2, 3))),
                t3=_t(lib, np.ones((2, 2, 2))),
                face=_t(lib, np.array([[0], [1], [1]])),
            )
            for i in range(2)
        ],
    ),
    "collate-strings-and-ints": lambda lib: _b(
        lib, [LIBS[lib][0](x=_t(lib, np.ones((1, 1))), name=f"g{i}", k=i) for i in range(3)]
    ),
    "collate-none-values": lambda lib: _b(
        lib, [LIBS[lib][0](x=_t(lib, np.ones((2, 1))), e=None) for _ in range(2)]
    ),
    "collate-0d": lambda lib: _b(
        lib, [LIBS[lib][0](x=_t(lib, np.ones((1, 1))), s=_t(lib, np.array(i))) for i in range(3)]
    ),
    "num_graphs-len": lambda lib: [_b(lib, gs_small(lib)).num_graphs, len(_b(lib, gs_small(lib)))],
    "num_nodes-batch_size": lambda lib: [
        _b(lib, gs_small(lib)).num_nodes,
        _b(lib, gs_small(lib)).batch_size,
    ],
    **{
        f"getitem-{name}": _getitem_with(idx)
        for name, idx in {
            "int": lambda lib: 1,
            "np-int": lambda lib: np.int64(2),
            "0d-tensor": lambda lib: torch.tensor(0),
            "slice": lambda lib: slice(None, None, -1),
            "slice-empty": lambda lib: slice(5, None),
            "mask": lambda lib: np.array([True, False, True]),
            "index-array": lambda lib: np.array([2, 2, 0]),
            "torch-index": lambda lib: torch.tensor([1, 0]),
            "torch-mask": lambda lib: torch.tensor([False, True, False]),
            "list": lambda lib: [2, 0],
            "tuple": lambda lib: (1,),
            "str": lambda lib: "edge_index",
        }.items()
    },
    "get_example": lambda lib: _b(lib, gs_small(lib)).get_example(1),
    "index_select": lambda lib: _b(lib, gs_small(lib)).index_select(np.array([0, 2])),
    "to_data_list": lambda lib: _b(lib, gs_small(lib)).to_data_list(),
    "batch-of-batches": bb,
    "batch-of-batches-num_graphs": lambda lib: [bb(lib).num_graphs, len(bb(lib))],
    "batch-of-batches-split": lambda lib: bb(lib).to_data_list(),
    "hetero-collate": hb,
    "hetero-follow": lambda lib: hb(lib, follow_batch=["edge_attr", "y"]),
    "hetero-exclude": lambda lib: hb(lib, exclude_keys=["y", "gy"]),
    "hetero-num_graphs": lambda lib: [hb(lib).num_graphs, len(hb(lib))],
    "hetero-getitem-int": lambda lib: hb(lib)[1],
    "hetero-getitem-slice": lambda lib: hb(lib)[1:],
    "hetero-getitem-mask": lambda lib: hb(lib)[np.array([True, False, True])],
    "hetero-to_data_list": lambda lib: hb(lib).to_data_list(),
    "hetero-featureless-collate": lambda lib: _b(lib, [h_featureless(lib, i) for i in range(2)]),
    "hetero-batch-of-batches": lambda lib: _b(lib, [hb(lib), hb(lib)]),
    "hetero-batch-of-batches-split": lambda lib: _b(lib, [hb(lib), hb(lib)])[1],
}

CASES = {
    **{f"data-{k}": v for k, v in DATA_CASES.items()},
    **{f"hetero-{k}": v for k, v in HETERO_CASES.items()},
    **{f"batch-{k}": v for k, v in BATCH_CASES.items()},
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_pyg(name):
    ours, theirs = both(CASES[name])
    assert ours == theirs


# ------------------------------------------------------------------ documented differences
def test_inputs_are_not_modified_where_pyg_modifies_them():
    """PyG's ``apply`` changes the object in place too (its ``sort`` / ``coalesce`` return
    shallow copies); arraygnn returns new objects (the results above are equal) and leaves
    the input alone."""
    d = g_dup("a")
    before = plain(d)
    d.apply(lambda v: v * 2)
    d.sort()
    d.coalesce()
    h = h_main("a")
    h_before = plain(h)
    h.sort()
    h.coalesce()
    h.apply(lambda v: v + 1)
    assert plain(d) == before and plain(h) == h_before


def test_graph_level_arrays_are_named_not_guessed():
    """DESIGN: PyG sorts ``y`` by its length; arraygnn asks (the error names the key)."""
    with pytest.raises(ValueError, match=r"\['y'\] are neither node, edge nor graph"):
        g_main("a").subgraph(np.array([0, 1]))
    with pytest.raises(ValueError, match=r"\['y'\] are neither"):
        g_main("a").sort()
    # a HeteroData's graph-level keys are said (its graph store): the round trip keeps them
    assert h_main("a").to_homogeneous().to_heterogeneous().gy.tolist() == [0]
    with pytest.raises(ValueError, match=r"\['gy', 'y'\] are neither"):
        Data(**h_main("a").to_homogeneous().to_dict()).to_heterogeneous()  # records lost


def test_num_nodes_is_never_guessed_from_edge_index():
    d = Data(edge_index=np.array([[0, 1], [1, 4]]))
    p = tg.Data(edge_index=torch.tensor([[0, 1], [1, 4]]))
    assert d.num_nodes is None and p.num_nodes == 5  # PyG: edge_index.max() + 1
    for call in (lambda: d.has_isolated_nodes(), lambda: d.subgraph(np.array([0]))):
        with pytest.raises(ValueError, match="num_nodes is unknown.*never guessed"):
            call()
    with pytest.raises(ValueError, match="graph 0: is increased by num_nodes, but num_nodes is"):
        Batch.from_data_list([d, d])
    d.num_nodes = 5
    assert Batch.from_data_list([d, d]).edge_index.tolist() == [[0, 1, 5, 6], [1, 4, 6, 9]]


@pytest.mark.parametrize("where", ["missing", "extra"])
def test_key_in_some_graphs_only(where):
    """PyG raises a bare ``KeyError`` for a key missing in a later graph (and silently
    drops one only later graphs hold); arraygnn names the graph and the key for both."""
    graphs = [Data(x=np.ones((1, 1)), y=np.ones(1)), Data(x=np.ones((1, 1)))]
    if where == "extra":
        graphs = graphs[::-1]
    msg = "is missing" if where == "missing" else "is not in graph 0"
    with pytest.raises(ValueError, match=rf"graph 1: key 'y' {msg}"):
        Batch.from_data_list(graphs)
    h = [h_main("a"), h_main("a")]
    (h[1] if where == "missing" else h[0])["paper"].y = None
    with pytest.raises(ValueError, match=r"node type 'paper', graph 1: key 'y'"):
        Batch.from_data_list(h)
    if where == "missing":
        with pytest.raises(KeyError):
            tg.Batch.from_data_list([tg.Data(x=torch.ones(1, 1), y=torch.ones(1)),
                                     tg.Data(x=torch.ones(1, 1))])  # fmt: skip


def test_batches_split_back_exactly_where_pyg_converts():
    """Python numbers and 0-d arrays come back as they went in (PyG: 1-element tensors);
    a node type with only ``num_nodes`` splits back (PyG's ``get_example`` fails)."""
    graphs = [Data(x=np.ones((1, 1)), k=i, s=np.array(i), name=f"g{i}") for i in range(3)]
    b = Batch.from_data_list(graphs)
    assert b.k.tolist() == [0, 1, 2] and b.s.tolist() == [0, 1, 2]
    g = b[2]
    assert g.k == 2 and isinstance(g.k, int) and g.s.shape == () and g.name == "g2"
    h = Batch.from_data_list([h_featureless("a", i) for i in range(2)])
    assert plain(h[1]) == plain(h_featureless("a", 1))


def test_batch_of_batches_and_graph_own_vectors():
    """A batch of batches (PyG's rule): no new ``batch`` / ``ptr``, each inner ``batch``
    moved on by the graphs before it, counted from the inner batches (PyG takes
    ``batch.max() + 1``, wrong when an inner batch ends in an empty graph); split, each
    inner batch comes back as its graphs' class with its own ``batch``. A graph's own
    ``ptr`` is skipped and its own ``batch`` replaced by the batch's (PyG splits garbage
    back for it)."""
    inner = Batch.from_data_list([Data(x=np.ones((2, 1))), Data(x=np.ones((0, 1)))])
    outer = Batch.from_data_list([inner, inner])
    assert outer.batch.tolist() == [0, 0, 2, 2] and "ptr" not in outer
    assert outer.num_graphs == 2
    back = outer[1]
    assert type(back) is Data and back.batch.tolist() == [0, 0] and "ptr" not in back
    own = Data(x=np.ones((3, 1)), batch=np.array([0, 0, 1]), ptr=np.array([0, 2, 3]))
    b = Batch.from_data_list([own, own])
    assert b.batch.tolist() == [0, 0, 0, 1, 1, 1] and b.ptr.tolist() == [0, 3, 6]
    assert sorted(b[1].keys()) == ["x"]
    hi = Batch.from_data_list([h_featureless("a"), h_featureless("a")])
    ho = Batch.from_data_list([hi, hi])
    assert ho["b"].batch.tolist() == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3
    assert "ptr" not in ho["b"] and ho.num_graphs == 2
    assert ho[1]["b"].batch.tolist() == [0, 0, 0, 1, 1, 1] and type(ho[1]) is HeteroData
    with pytest.raises(TypeError, match="graph 1 is a Data, graph 0 a Batch"):
        Batch.from_data_list([inner, Data(x=np.ones((1, 1)))])


def test_nested_values_stay_per_graph():
    """Documented difference: a dict or a list value is kept as one entry per graph (PyG
    collates dict entries and list positions); both split back to the same graphs."""
    graphs = [
        Data(x=np.ones((1, 1)), d={"a": np.ones(2) * i}, l=[np.ones(1) * i]) for i in range(2)
    ]
    b = Batch.from_data_list(graphs)
    assert isinstance(b.d, list) and len(b.d) == 2 and isinstance(b.l, list)
    p = tg.Batch.from_data_list([arraygnn.interop.to_pyg(g) for g in graphs])
    assert plain(b[1]) == plain(p[1])
    sparse = pytest.importorskip("scipy.sparse")
    adj = [sparse.csr_matrix(np.eye(n)) for n in (2, 3)]
    b = Batch.from_data_list([Data(x=np.ones((n, 1)), adj=a) for n, a in zip((2, 3), adj)])
    assert b.adj == adj and b[1].adj is adj[1]  # PyG: torch sparse, block-diagonal


def test_pyg_round_trip_of_the_new_methods():
    """The methods added for parity keep working through the PyG hand-off."""
    from arraygnn.interop.pyg import from_pyg, to_pyg

    h = h_main("a")
    assert plain(from_pyg(to_pyg(h)).sort()) == plain(h_main("p").sort())
    d = g_dup("a")
    assert plain(from_pyg(to_pyg(d)).sort()) == plain(g_dup("p").sort())
