"""Parity sweep of the remote-backend interface against PyG 2.8.1, live: the options and
input forms that ``tests/test_remote_backend.py`` / ``test_review_remote_backend.py`` leave
out. References: PyG's own in-memory stores (``torch_geometric.testing``'s
``MyFeatureStore`` / ``MyGraphStore``, which run PyG's abstract ``FeatureStore`` /
``GraphStore``) and PyG's ``Data`` (itself a feature store, indexing with torch rules).

Covered: every index form (None, slices, int, list, torch / NumPy arrays, bool masks,
empty) and access form (``get_tensor``, ``store[g, a, i]``, ``store[TensorAttr]``, views),
``update_tensor`` with rows, ``_to_type``, a ``TensorAttr`` class with another field order,
every layout conversion (COO / sorted COO / CSR / CSC -> COO / CSR / CSC, square and
rectangular sizes) with ``store=True``, bad edge indices (ids outside ``size``, an
``is_sorted`` lie, halves of different lengths, a pointer not matching ``size``, a bad
``size``), the ``EdgeAttr`` key forms, and heterogeneous CSR / CSC pairs in the loaders.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.feature_store import FeatureStore, InMemoryFeatureStore, TensorAttr, _FieldStatus
from arraygnn.graph_store import EdgeLayout, GraphStore, InMemoryGraphStore
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.remote_backend import from_stores, to_stores

torch = pytest.importorskip("torch")
pyg_testing = pytest.importorskip("torch_geometric.testing")
from torch_geometric.data import Data as PygData  # noqa: E402
from torch_geometric.data import FeatureStore as PygFeatureStore  # noqa: E402

MyFeatureStore, MyGraphStore = pyg_testing.MyFeatureStore, pyg_testing.MyGraphStore

X = np.arange(15.0).reshape(5, 3)


def _np(value):
    return value.numpy() if isinstance(value, torch.Tensor) else np.asarray(value)


# ------------------------------------------------------------------ index forms
_INDEX_FORMS = {
    "none": (None, None),
    "full-slice": (slice(None), slice(None)),
    "step-slice": (slice(1, None, 2), slice(1, None, 2)),
    "int": (2, 2),
    "list": ([4, 0, 4], [4, 0, 4]),
    "numpy": (np.array([3, 1], dtype=np.int32), torch.tensor([3, 1])),
    "torch": (torch.tensor([3, 1, 3]), torch.tensor([3, 1, 3])),
    "bool-mask": (np.array([1, 0, 1, 0, 1], bool), torch.tensor([1, 0, 1, 0, 1]).bool()),
    "empty-torch": (torch.tensor([], dtype=torch.long), torch.tensor([], dtype=torch.long)),
    "empty-list": ([], torch.tensor([], dtype=torch.long)),
}


@pytest.mark.parametrize("form", list(_INDEX_FORMS))
def test_index_forms_as_pyg_data(form):
    """Rows picked by each index form equal PyG's ``Data.get_tensor`` (torch indexing);
    shapes and dtype too, and ``get_tensor_size`` is the picked shape."""
    ours_index, pyg_index = _INDEX_FORMS[form]
    store = InMemoryFeatureStore()
    store.put_tensor(X, "paper", "x", None)
    pyg = PygData(x=torch.from_numpy(X))
    got = store.get_tensor("paper", "x", ours_index)
    want = pyg.get_tensor(attr_name="x", index=pyg_index).numpy()
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert store.get_tensor_size("paper", "x", ours_index) == tuple(want.shape)


_ACCESS = {
    "get_tensor-kw": lambda s, i: s.get_tensor(group_name="paper", attr_name="x", index=i),
    "getitem-tuple": lambda s, i: s["paper", "x", i],
    "getitem-attr": lambda s, i: s[s._tensor_attr_cls("paper", "x", i)],
    "view-attr": lambda s, i: s["paper"].x[i],
    "view-item": lambda s, i: s["paper"]["x"][i],
    "view-pair": lambda s, i: s["paper", "x"][i],
    "view-kw-call": lambda s, i: s.view(index=i, group_name="paper").x,
    "view-set-call": lambda s, i: _set_and_call(s.view("paper", "x"), i),
    "multi-dict": lambda s, i: s.multi_get_tensor([{"group_name": "paper", "attr_name": "x",
                                                    "index": i}])[0],
}  # fmt: skip


def _set_and_call(view, index):
    view.index = index
    return view()


@pytest.mark.parametrize("access", list(_ACCESS))
def test_access_forms_as_pyg_store(access):
    """Every access form reads the same rows as PyG's ``MyFeatureStore`` through PyG's
    abstract class (index a torch tensor there, a NumPy array here)."""
    ours, theirs = InMemoryFeatureStore(), MyFeatureStore()
    ours.put_tensor(X, "paper", "x", None)
    theirs.put_tensor(torch.from_numpy(X), "paper", "x", None)
    idx = np.array([4, 1, 1])
    got = _ACCESS[access](ours, idx)
    want = _ACCESS[access](theirs, torch.from_numpy(idx))
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, want.numpy())


def test_field_order_of_a_tensor_attr_subclass_as_pyg():
    """A store with a ``TensorAttr`` class of another field order fills views, tuples
    and ``get_all_tensor_attrs`` in that order, as PyG's."""
    from dataclasses import make_dataclass

    from torch_geometric.data import TensorAttr as PygTensorAttr

    order = ("attr_name", "group_name", "index")

    def reordered(name, base, unset):  # a TensorAttr with the fields in another order
        methods = ("is_set", "is_fully_specified", "fully_specify", "update")
        namespace = {m: base.__dict__[m] for m in methods if m in base.__dict__}
        cls = make_dataclass(name, [(f, object, unset) for f in order], namespace=namespace)
        return type(name, (cls, base.__mro__[1]), {})  # (+ the CastMixin)

    ours_cls = reordered("OursAttr", TensorAttr, _FieldStatus.UNSET)
    theirs_cls = reordered(
        "TheirsAttr", PygTensorAttr, PygTensorAttr.__dataclass_fields__["index"].default
    )
    assert [f for f in ours_cls.__dataclass_fields__] == ["attr_name", "group_name", "index"]

    ours, theirs = InMemoryFeatureStore(), MyFeatureStore()
    ours.__dict__["_tensor_attr_cls"] = ours_cls
    theirs.__dict__["_tensor_attr_cls"] = theirs_cls
    ours.put_tensor(X, "x", "paper", None)  # (attr_name, group_name, index)
    theirs.put_tensor(torch.from_numpy(X), "x", "paper", None)
    np.testing.assert_array_equal(ours["x"]["paper"][np.array([2])], X[[2]])
    np.testing.assert_array_equal(theirs["x"]["paper"][torch.tensor([2])].numpy(), X[[2]])
    assert [(a.attr_name, a.group_name) for a in ours.get_all_tensor_attrs()] == [("x", "paper")]
    assert [type(a).__name__ for a in ours.get_all_tensor_attrs()] == ["OursAttr"]
    # (PyG's MyFeatureStore builds them positionally and swaps the two; ours by name)
    assert [(a.attr_name, a.group_name) for a in theirs.get_all_tensor_attrs()] == [("paper", "x")]


@pytest.mark.parametrize(
    "index, tensor",
    [("torch", "numpy"), ("numpy", "torch"), ("none", "numpy"), ("none", "torch"),
     ("slice", "torch"), ("torch", "torch"), ("numpy", "numpy")],
)  # fmt: skip
def test_to_type_as_pyg(index, tensor):
    """``convert_type``: the output follows the index's kind (PyG's ``_to_type``)."""
    idx = {"torch": torch.tensor([0]), "numpy": np.array([0]), "none": None,
           "slice": slice(None)}[index]  # fmt: skip
    value = X if tensor == "numpy" else torch.from_numpy(X)
    got = FeatureStore._to_type(TensorAttr("p", "x", idx), value)
    want = PygFeatureStore._to_type(TensorAttr("p", "x", idx), value)
    assert type(got) is type(want)


# ------------------------------------------------------------------ writes
def test_update_tensor_with_rows_writes_them_and_loses_nothing():
    """``update_tensor`` with an index writes those rows (PyG's default removes the whole
    tensor first: its ``Data`` is left without ``x``, its ``MyFeatureStore`` keeps only the
    rows); arraygnn's dict store raised ``KeyError`` after dropping the tensor."""
    pyg = PygData(x=torch.from_numpy(X.copy()))
    with pytest.raises(AssertionError):
        pyg.update_tensor(torch.zeros(2, 3), attr_name="x", index=torch.tensor([0, 1]))
    assert pyg.x is None  # PyG lost it

    store = InMemoryFeatureStore()
    x = X.copy()
    store.put_tensor(x, "paper", "x", None)
    assert store.update_tensor(np.zeros((2, 3)), "paper", "x", np.array([0, 3]))
    want = X.copy()
    want[[0, 3]] = 0
    np.testing.assert_array_equal(store["paper", "x", None], want)
    assert store.update_tensor(np.ones((2, 3)), "paper", "x", [1, 2])  # a list as well
    assert store.update_tensor(np.ones((1, 3)), "paper", "x", None)  # whole: replaced
    assert store.get_tensor_size("paper", "x") == (1, 3)
    with pytest.raises(KeyError, match="'y'"):  # nothing to write rows of
        store.update_tensor(np.ones((1, 3)), "paper", "y", np.array([0]))


@pytest.mark.parametrize(
    "index, error, match",
    [
        (np.array([5]), ValueError, r"outside \[0, 5\)"),
        ([-1], ValueError, r"outside \[0, 5\)"),
        (np.array([0.0]), TypeError, "integers or bools"),
    ],
    ids=["past-end", "negative-list", "float"],
)
def test_bad_rows_are_refused_and_the_store_kept(index, error, match):
    """Rows outside ``[0, N)`` (negative too: a NumPy write would wrap) or a float index
    are refused naming the attribute, before anything is written or removed."""
    store = InMemoryFeatureStore()
    store.put_tensor(X.copy(), "paper", "x", None)
    for call in (store.put_tensor, store.update_tensor):
        with pytest.raises(error, match=r"\('paper', 'x'\).*" + match):
            call(np.zeros((1, 3)), "paper", "x", index)
    np.testing.assert_array_equal(store["paper", "x", None], X)
    with pytest.raises((ValueError, TypeError), match=r"\('paper', 'x'\)"):
        store.get_tensor("paper", "x", index)


def test_read_errors_against_pyg_store():
    """Missing: ``KeyError`` from both (``get_tensor_size``: ``None``, the ABC's contract;
    ``MyFeatureStore`` raises); a list index with a negative id is refused here (PyG's
    ``Data`` wraps it, torch rules; arraygnn's rule is ids in ``[0, N)``)."""
    ours, theirs = InMemoryFeatureStore(), MyFeatureStore()
    ours.put_tensor(X, "paper", "x", None)
    theirs.put_tensor(torch.from_numpy(X), "paper", "x", None)
    for store in (ours, theirs):
        with pytest.raises(KeyError, match="author"):
            store["author", "x", None]
        with pytest.raises(KeyError, match="author"):
            store["author"].x()
    with pytest.raises(ValueError, match="not fully specified"):  # PyG: a bare assert
        ours["paper", "x"] = X
    with pytest.raises(AssertionError):
        theirs["paper", "x"] = torch.from_numpy(X)
    assert ours.get_tensor_size("author", "x") is None
    with pytest.raises(ValueError, match="negative"):
        ours["paper", "x", [-1]]


# ------------------------------------------------------------------ graph store layouts
_SRC = np.array([3, 0, 4, 0, 2, 4, 1, 0])
_DST = np.array([1, 2, 0, 2, 1, 3, 0, 1])


def _stores(layout, size):
    """Our dict store and PyG's ``MyGraphStore`` holding the same edges in ``layout``."""
    src, dst, is_sorted = _SRC, _DST, False
    if layout == "coo-sorted":
        order = np.argsort(dst, kind="stable")
        src, dst, is_sorted, layout = src[order], dst[order], True, "coo"
    ref = InMemoryGraphStore()
    ref.put_edge_index((src, dst), None, "coo", is_sorted, size)
    if layout != "coo":
        first, second, _ = getattr(ref, layout)()
        src, dst = first, second
    ours, theirs = InMemoryGraphStore(), MyGraphStore()
    ours.put_edge_index((src, dst), None, layout, is_sorted, size)
    theirs.put_edge_index(
        (torch.from_numpy(src), torch.from_numpy(dst)), None, layout, is_sorted, size
    )
    return ours, theirs, (src, dst)


@pytest.mark.parametrize("size", [(5, 4), (6, 6)], ids=["rect", "square"])
@pytest.mark.parametrize("layout", ["coo", "coo-sorted", "csr", "csc"])
def test_layout_conversions_as_pyg(layout, size):
    """Each stored layout converts to COO / CSR / CSC as PyG's: the pointers exactly,
    each pointer segment as a multiset (PyG's sort is not stable), ``perm`` ``None`` in the
    same cases and mapping the stored edges to the converted ones; dtypes kept. With
    ``store=True`` the stored attributes are PyG's (CSC ``is_sorted``, CSR not)."""
    ours, theirs, (first, second) = _stores(layout, size)
    stored_coo = ours.coo()[:2]
    for target in ("coo", "csr", "csc"):
        a0, a1, ap = getattr(ours, target)(store=True)
        b0, b1, bp = (
            _np(v) if v is not None else None for v in getattr(theirs, target)(store=True)
        )
        assert (ap is None) == (bp is None), target
        assert a0.dtype == b0.dtype and a1.dtype == b1.dtype
        if target == "coo":
            np.testing.assert_array_equal(a0, b0)
            np.testing.assert_array_equal(a1, b1)
            continue
        ptr_a, idx_a, ptr_b, idx_b = (a0, a1, b0, b1) if target == "csr" else (a1, a0, b1, b0)
        np.testing.assert_array_equal(ptr_a, ptr_b)
        assert ptr_a.shape == (size[0 if target == "csr" else 1] + 1,)
        for lo, hi in zip(ptr_a[:-1], ptr_a[1:]):
            assert sorted(idx_a[lo:hi]) == sorted(idx_b[lo:hi])
        if ap is not None:  # the stored edges, permuted
            other = stored_coo[1] if target == "csr" else stored_coo[0]
            np.testing.assert_array_equal(idx_a, other[ap])
    got = sorted((a.layout.value, a.is_sorted, a.size) for a in ours.get_all_edge_attrs())
    want = sorted((a.layout.value, a.is_sorted, a.size) for a in theirs.get_all_edge_attrs())
    assert got == want


def test_key_forms_as_pyg():
    """``EdgeAttr`` given positionally, by keyword, as an object, a tuple or a dict, and
    ``store[attr]`` / ``del store[attr]``: the same as on PyG's store."""
    ours, theirs = InMemoryGraphStore(), MyGraphStore()
    et = ("a", "r", "b")
    for store, conv in ((ours, lambda a: a), (theirs, torch.from_numpy)):
        edges = (conv(_SRC[:4]), conv(_DST[:4]))
        store.put_edge_index(edges, et, "coo", False, (5, 4))
        store[(("b", "s", "a"), EdgeLayout.CSR.value, False, (4, 5))] = (
            conv(np.array([0, 1, 1, 2, 2])), conv(np.array([3, 0])),
        )  # fmt: skip
        got = store.get_edge_index({"edge_type": et, "layout": "coo", "size": (5, 4)})
        np.testing.assert_array_equal(_np(got[0]), _SRC[:4])
        got = store[(("b", "s", "a"), "csr", False, (4, 5))]
        np.testing.assert_array_equal(_np(got[1]), [3, 0])
        rows, cols, perms = store.coo()
        assert list(rows) == [et, ("b", "s", "a")]
        np.testing.assert_array_equal(_np(rows[("b", "s", "a")]), [0, 2])
        rows, _, _ = store.csc(edge_types=[("b", "s", "a"), et])  # store order, not asked
        assert list(rows) == [et, ("b", "s", "a")]
        del store[store._edge_attr_cls(et, "coo", False, (5, 4))]
        assert len(store.get_all_edge_attrs()) == 1
        with pytest.raises(KeyError, match="not found"):
            store.get_edge_index(et, "coo", False, (5, 4))


# ------------------------------------------------------------------ bad edge indices
class _UserGraphStore(GraphStore):
    """A user's store that checks nothing (PyG's ``MyGraphStore``, on arrays)."""

    def __init__(self) -> None:
        super().__init__()
        self.kv: dict = {}

    def _put_edge_index(self, edge_index, edge_attr):
        self.kv[(edge_attr.edge_type, edge_attr.layout)] = (edge_attr, edge_index)
        return True

    def _get_edge_index(self, edge_attr):
        entry = self.kv.get((edge_attr.edge_type, edge_attr.layout))
        return None if entry is None else entry[1]

    def _remove_edge_index(self, edge_attr):
        return self.kv.pop((edge_attr.edge_type, edge_attr.layout), None) is not None

    def get_all_edge_attrs(self):
        return [attr for attr, _ in self.kv.values()]


_BAD = {  # (first, second, layout, is_sorted, size, method, match); PyG: silent garbage
    "row-past-size": ([0, 5, 1], [1, 0, 2], "coo", False, (3, 3), "csr", r"row ids in \[0, 5\]"),
    "negative-col": ([0, 1, 1], [1, -1, 2], "coo", False, (3, 3), "csc", r"col ids in \[-1, 2\]"),
    "is_sorted-lie": ([0, 1, 2], [2, 0, 1], "coo", True, (3, 3), "csc", "is_sorted=True but"),
    "halves-differ": ([0, 1, 2], [1, 0], "coo", False, (3, 3), "csc", "3 rows but 2 cols"),
    "ptr-short": ([0, 1, 3], [1, 0, 2], "csr", False, (3, 3), "coo", "pointer has 3 entries"),
    "csr-col-past": ([0, 1, 3], [1, 0, 7], "csr", False, (2, 3), "csc", r"col ids in \[0, 7\]"),
    "size-one": ([0], [1], "coo", False, (2,), "csc", "two non-negative integers"),
    "size-negative": ([0], [1], "coo", False, (2, -1), "csr", "two non-negative integers"),
    "size-float": ([0], [1], "coo", False, (2.0, 2.0), "csr", "two non-negative integers"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_BAD))
def test_bad_edge_index_is_refused_by_name(case):
    """PyG converts these to a pointer that drops or misplaces edges (or an
    ``IndexError``); arraygnn raises ``ValueError`` naming the edge type, in the base class
    (any user store) and, for halves of different lengths, already at put."""
    first, second, layout, is_sorted, size, method, match = _BAD[case]
    first, second = np.array(first), np.array(second)
    user = _UserGraphStore()
    user.put_edge_index((first, second), ("a", "r", "b"), layout, is_sorted, size)
    with pytest.raises(ValueError, match=r"\('a', 'r', 'b'\).*" + match):
        getattr(user, method)()
    if case == "halves-differ":
        with pytest.raises(ValueError, match="3 rows but 2 cols"):
            InMemoryGraphStore().put_edge_index((first, second), None, layout, is_sorted, size)


def test_sorted_coo_to_csc_keeps_the_order_as_pyg():
    """``is_sorted=True`` COO (sorted by destination) converts without a sort: ``perm``
    ``None`` and the rows in their stored order, as PyG's; an empty edge set too."""
    for src, dst in [([2, 0, 1, 1], [0, 0, 1, 2]), ([], [])]:
        src, dst = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
        ours, theirs = InMemoryGraphStore(), MyGraphStore()
        ours.put_edge_index((src, dst), None, "coo", True, (3, 3))
        theirs.put_edge_index((torch.from_numpy(src), torch.from_numpy(dst)), None, "coo",
                              True, (3, 3))  # fmt: skip
        for a, b in zip(ours.csc(), theirs.csc()):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_array_equal(a, b.numpy())


# ------------------------------------------------------------------ pairs in the loaders
def _hetero(rng):
    data = HeteroData(paper={"x": rng.normal(size=(9, 3))}, author={"x": rng.normal(size=(6, 2))})
    data["author", "writes", "paper"].edge_index = np.stack(
        [rng.integers(0, 6, 20), rng.integers(0, 9, 20)]
    )
    data["author", "writes", "paper"].edge_attr = rng.normal(size=(20, 2))
    data["paper", "cites", "paper"].edge_index = rng.integers(0, 9, (2, 15))
    return data


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_hetero_pointer_pair_round_trip_and_loaders(layout):
    """A heterogeneous graph stored in CSR / CSC: per edge type the edges and their
    attributes in that order (stable), back through ``from_stores``; the neighbour and link
    loaders over the pair equal those over the graph it holds, and each batch's edges stay
    inside its nodes."""
    data = _hetero(np.random.default_rng(0))
    fs, gs = to_stores(data, layout=layout)
    assert {a.layout.value for a in gs.get_all_edge_attrs()} == {layout}
    back = from_stores(fs, gs)
    for et in data.edge_types:
        key = data[et].edge_index[0 if layout == "csr" else 1]
        perm = np.argsort(key, kind="stable")
        np.testing.assert_array_equal(back[et].edge_index, data[et].edge_index[:, perm])
        if "edge_attr" in data[et]:
            np.testing.assert_array_equal(back[et].edge_attr, data[et].edge_attr[perm])
    for t in data.node_types:
        np.testing.assert_array_equal(back[t].x, data[t].x)
    kwargs = dict(input_nodes="paper", batch_size=4, seed=2)
    for a, b in zip(
        NeighborLoader(back, [2, 2], **kwargs), NeighborLoader((fs, gs), [2, 2], **kwargs)
    ):
        for et in a.edge_types:
            np.testing.assert_array_equal(a[et].edge_index, b[et].edge_index)
            np.testing.assert_array_equal(a[et].e_id, b[et].e_id)
            assert b[et].edge_index.shape[0] == 2
            assert (b[et].edge_index[0] < b[et[0]].num_nodes).all()
            assert (b[et].edge_index[1] < b[et[2]].num_nodes).all()
        for t in a.node_types:
            np.testing.assert_array_equal(a[t].x, b[t].x)
    et = ("author", "writes", "paper")
    kwargs = dict(edge_label_index=et, batch_size=5, neg_sampling_ratio=1.0, seed=3)
    for a, b in zip(
        LinkNeighborLoader(back, [2], **kwargs), LinkNeighborLoader((fs, gs), [2], **kwargs)
    ):
        np.testing.assert_array_equal(a[et].edge_label_index, b[et].edge_label_index)
        np.testing.assert_array_equal(a[et].edge_attr, b[et].edge_attr)
        np.testing.assert_array_equal(a["author"].x, b["author"].x)


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_loader_over_pyg_pointer_stores(layout):
    """PyG's stores holding CSR / CSC (torch tensors) feed the homogeneous loader as
    arraygnn's stores with the same arrays do."""
    rng = np.random.default_rng(1)
    data = Data(x=rng.normal(size=(10, 2)), edge_index=rng.integers(0, 10, (2, 30)), num_nodes=10)
    fs, gs = to_stores(data, layout=layout)
    first, second = gs.get_edge_index(None, layout)
    pf, pg = MyFeatureStore(), MyGraphStore()
    pf.put_tensor(torch.from_numpy(data.x), None, "x", None)
    pg.put_edge_index((torch.from_numpy(first), torch.from_numpy(second)), None, layout,
                      size=(10, 10))  # fmt: skip
    kwargs = dict(batch_size=3, seed=4)
    ours = list(NeighborLoader((fs, gs), [3, 2], **kwargs))
    theirs = list(NeighborLoader((pf, pg), [3, 2], **kwargs))
    assert len(ours) == len(theirs) == 4
    for a, b in zip(ours, theirs):
        for key in ("n_id", "e_id", "edge_index", "x"):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        assert a.x.dtype == b.x.dtype and a.edge_index.dtype == b.edge_index.dtype
        np.testing.assert_array_equal(
            b.n_id[: b.batch_size], np.arange(b.n_id[0], b.n_id[0] + b.batch_size)
        )
