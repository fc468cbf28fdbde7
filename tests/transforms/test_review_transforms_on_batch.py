"""Review of transforms on a ``Batch`` (arraygnn.transforms._on_batch): the rebuilt records
are those ``Batch.from_data_list`` gives for the graphs transformed one by one (empty graphs
first / in the middle / last, int32 and int64 ids, a stored ``num_nodes``, follow_batch
vectors), the batch's own vectors are right after transforms that merge or pad rows, no
case splits into wrong graphs (stale edge ids, a ``HeteroBatch``), the ``on_batch`` flag is
reset on errors and per thread, and the errors name the transform."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from _structure_helpers import assert_unchanged, empty_graph, random_graph, snapshot

import arraygnn.transforms as T
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._on_batch import pointer
from arraygnn.transforms.attrs import _ON_BATCH, on_batch


def _graphs(idtype: Any = np.int64, num_nodes: bool = False) -> list[Data]:
    """Empty graphs first, in the middle (two isolated nodes) and last."""
    gs = [
        empty_graph(idtype),
        random_graph(1, n=6, e=8, idtype=idtype),
        empty_graph(idtype, n=2),
        random_graph(2, n=5, e=7, idtype=idtype),
        empty_graph(idtype),
    ]
    rng = np.random.default_rng(0)
    for g in gs:
        g.pos = rng.random((g.x.shape[0], 3)).astype(np.float32)
        g.edge_weight = rng.random(g.edge_index.shape[1]).astype(np.float32)
        g.y = np.array([1.5])
        if num_nodes:
            g.num_nodes = g.x.shape[0]
    return gs


def _same_records(out: Batch, ref: Batch) -> None:
    """``out`` holds the keys, values and records of ``ref`` (a batch collated afresh)."""
    assert sorted(out.keys()) == sorted(ref.keys())
    for k in ref.keys():
        a, b = out[k], ref[k]
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype, k
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=k)
        else:
            assert a == b, k
    for name in ("_slice_dict", "_inc_dict", "_cat_dim_dict", "_kind_dict"):
        mine, theirs = getattr(out, name), getattr(ref, name)
        assert sorted(mine) == sorted(theirs), name
        for k in theirs:
            if isinstance(theirs[k], np.ndarray):
                np.testing.assert_array_equal(mine[k], theirs[k], err_msg=f"{name}[{k}]")
            else:
                assert mine[k] == theirs[k], (name, k)
    for i in range(len(ref)):
        a, b = out.get_example(i), ref.get_example(i)
        assert sorted(a.keys()) == sorted(b.keys())
        for k in b.keys():
            np.testing.assert_allclose(np.asarray(a[k]), np.asarray(b[k]), rtol=1e-5, err_msg=k)


KEEPING = [
    lambda: T.RemoveSelfLoops(graph_attrs=["y"]),
    lambda: T.RemoveIsolatedNodes(graph_attrs=["y"]),
    lambda: T.ToUndirected(graph_attrs=["y"]),
    lambda: T.RemoveDuplicatedEdges(graph_attrs=["y"]),
    lambda: T.TwoHop(graph_attrs=["y"]),
    lambda: T.Constant(),
    lambda: T.OneHotDegree(10),
    lambda: T.LocalDegreeProfile(),
    lambda: T.TargetIndegree(norm=False),
    lambda: T.Distance(norm=False),
    lambda: T.AddRandomWalkPE(3),
    lambda: T.SIGN(2),
]


@pytest.mark.parametrize("make", KEEPING, ids=lambda m: type(m()).__name__)
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("num_nodes", [False, True])
def test_records_are_those_of_the_graphs_collated(make: Any, idtype: Any, num_nodes: bool) -> None:
    gs = _graphs(idtype, num_nodes)
    batch = Batch.from_data_list(gs)
    snap = snapshot(batch)
    out = make()(batch)
    assert_unchanged(batch, snap)
    _same_records(out, Batch.from_data_list([make()(g) for g in gs]))


@pytest.mark.parametrize(
    "make",
    [
        lambda: T.ToUndirected(graph_attrs=["y"]),
        lambda: T.TwoHop(graph_attrs=["y"]),
        lambda: T.RemoveSelfLoops(graph_attrs=["y"]),
        lambda: T.RemoveIsolatedNodes(graph_attrs=["y"]),
    ],
    ids=lambda m: type(m()).__name__,
)
def test_edge_follow_vector_is_the_graph_of_each_edge(make: Any) -> None:
    """``edge_index_batch`` is each edge's graph, also where the transform merges parallel
    edges (ToUndirected / TwoHop sum the merged edges' rows: 8, 16 before the fix)."""
    gs = _graphs()
    batch = Batch.from_data_list(gs, follow_batch=["x", "edge_index"])
    out = make()(batch)
    np.testing.assert_array_equal(out.edge_index_batch, out.batch[out.edge_index[0]])
    assert out.edge_index_batch.dtype == np.int64
    np.testing.assert_array_equal(out.x_batch, out.batch)
    ref = Batch.from_data_list([make()(g) for g in gs], follow_batch=["x", "edge_index"])
    _same_records(out, ref)


def test_node_follow_vector_stays_integer_after_averaging() -> None:
    """GridSampling averages node arrays: ``x_batch`` came out float32 before the fix."""
    rng = np.random.default_rng(5)
    gs = [
        Data(pos=rng.random((n, 3)).astype(np.float32), x=rng.random((n, 2)).astype(np.float32))
        for n in (0, 7, 0, 5, 0)
    ]
    t = T.GridSampling(0.5)
    out = t(Batch.from_data_list(gs, follow_batch=["x"]))
    assert out.x_batch.dtype == np.int64
    np.testing.assert_array_equal(out.x_batch, out.batch)
    _same_records(out, Batch.from_data_list([t(g) for g in gs], follow_batch=["x"]))


def test_edges_left_stale_by_fixed_points_drop_the_records() -> None:
    """FixedPoints keeps ``edge_index`` as it was (PyG too): its ids name the old nodes, so
    the graph of an edge cannot be read from the new ``batch``; before the fix one draw
    raised NumPy's IndexError, and a draw whose ``batch`` came out sorted split the stale
    edges by the new nodes' graphs."""
    gs = [random_graph(1, n=4, e=3), random_graph(2, n=4, e=3)]
    out = T.FixedPoints(1, seed=0)(Batch.from_data_list(gs))
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()
    found = False
    for seed in range(200):
        out = T.FixedPoints(6, seed=seed)(Batch.from_data_list(gs))
        b = out.batch
        if (np.diff(b) >= 0).all() and len(set(b.tolist())) == 2:
            found = True
            with pytest.raises(ValueError, match="slice records"):
                out.to_data_list()
            break
    assert found
    # without edges the nodes alone are split by the new batch
    gs = [Data(x=np.arange(4.0)[:, None]), Data(x=np.arange(3.0)[:, None])]
    out = T.FixedPoints(1, seed=0)(Batch.from_data_list(gs))
    assert [g.x.shape[0] for g in out.to_data_list()] == np.diff(out.ptr).tolist()


def test_out_of_range_edge_ids_drop_the_records() -> None:
    """A transform (a user's) that leaves ids past the nodes: records dropped, no IndexError
    from inside NumPy."""

    class Shrink(T.BaseTransform):
        def forward(self, data: Any) -> Any:
            data.x, data.batch = data.x[:2], data.batch[:2]
            data.edge_index = data.edge_index + 0
            return data

    out = Shrink()(Batch.from_data_list(_graphs()[1:4]))
    assert out.ptr.tolist() == [0, 2, 2, 2]
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()


def test_negative_graph_id_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"Pad: .*'batch'.*-1.*'ptr'"):
        T.Pad(20, 40, node_pad_value=-1, graph_attrs=["y"])(Batch.from_data_list(_graphs()))


# ------------------------------------------------------------------ HeteroBatch
def _hetero(n: int, e: int, seed: int) -> HeteroData:
    rng = np.random.default_rng(seed)
    h = HeteroData()
    h["a"].x = rng.random((n, 2)).astype(np.float32)
    ei = rng.integers(0, max(n - 2, 1), (2, e)) if n else np.zeros((2, 0), np.int64)
    h["a", "r", "a"].edge_index = ei
    return h


@pytest.mark.parametrize(
    "t", [T.AddSelfLoops(), T.ToUndirected(), T.RemoveSelfLoops()], ids=lambda t: type(t).__name__
)
def test_hetero_batch_with_new_edges_cannot_be_split_wrongly(t: Any) -> None:
    """Before the fix the records stayed as collated: graph 2 came back with negative ids
    (ToUndirected) or another graph's edges (RemoveSelfLoops)."""
    hs = [_hetero(5, 4, 0), _hetero(0, 0, 1), _hetero(6, 5, 2)]
    out = t(Batch.from_data_list(hs))
    try:
        graphs = out.to_data_list()
    except ValueError as err:
        assert "slice records" in str(err)
        return
    for a, h in zip(graphs, hs):
        b = t(h)
        np.testing.assert_array_equal(a["a", "r", "a"].edge_index, b["a", "r", "a"].edge_index)


def test_hetero_batch_feature_transform_keeps_records() -> None:
    """Constant changes ``a``'s ``x`` (same rows) and gives ``b`` a new ``x`` (its store's
    rows): both split as the graphs transformed one by one; the input is untouched."""

    def hg(n: int, m: int, seed: int) -> HeteroData:
        rng = np.random.default_rng(seed)
        h = HeteroData(y=1.5)
        h["a"].x = rng.random((n, 2)).astype(np.float32)
        h["b"].num_nodes = m
        ei = [rng.integers(0, max(n, 1), 3), rng.integers(0, max(m, 1), 3)]
        h["a", "r", "b"].edge_index = np.stack(ei) if n and m else np.zeros((2, 0), np.int64)
        return h

    hs = [hg(3, 2, 0), hg(0, 0, 1), hg(4, 5, 2)]
    batch = Batch.from_data_list(hs, follow_batch=["x"])
    snap = snapshot(batch)
    records = {k: dict(v) for k, v in batch._kind_dict.items()}
    t = T.Constant()
    graphs = t(batch).to_data_list()
    assert_unchanged(batch, snap)
    assert {k: dict(v) for k, v in batch._kind_dict.items()} == records
    for a, h in zip(graphs, hs):
        ref = t(h)
        np.testing.assert_array_equal(a["a"].x, ref["a"].x)
        np.testing.assert_array_equal(a["b"].x, ref["b"].x)
        np.testing.assert_array_equal(a["a", "r", "b"].edge_index, ref["a", "r", "b"].edge_index)
        assert a.y == 1.5


# ------------------------------------------------------------------ the on_batch flag
def test_flag_is_reset_after_an_error() -> None:
    batch = Batch.from_data_list(_graphs())
    with pytest.raises(ValueError, match="neither node"):
        T.RemoveIsolatedNodes()(batch)  # 'y' unnamed
    assert _ON_BATCH.get() is False
    with pytest.raises(ValueError, match=r"\['y', 'batch', 'ptr'\] are neither"):
        T.RemoveIsolatedNodes().forward(batch.copy())


def test_flag_is_per_thread() -> None:
    """A thread running a transform on a batch does not change how another thread's plain
    ``forward`` sees a batch."""
    seen: list[bool] = []
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        inside.wait(5)
        seen.append(_ON_BATCH.get())
        release.set()

    th = threading.Thread(target=other)
    th.start()
    with on_batch():
        inside.set()
        release.wait(5)
    th.join()
    assert seen == [False]


def test_compose_of_batch_transforms_keeps_their_records() -> None:
    """Each transform of a Compose finishes its own result (its stated outputs kept)."""
    gs = _graphs()
    t = T.Compose([T.RemoveIsolatedNodes(graph_attrs=["y"]), T.AddRandomWalkPE(2), T.SIGN(1)])
    out = t(Batch.from_data_list(gs, follow_batch=["x"]))
    _same_records(out, Batch.from_data_list([t(g) for g in gs], follow_batch=["x"]))
    np.testing.assert_array_equal(out.x_batch, out.batch)
    np.testing.assert_array_equal(out.ptr, pointer(out.batch, len(gs)))


def test_custom_hooks_are_not_guessed() -> None:
    """A class with its own ``__inc__``: new / renumbered edges are not rebuilt (the hook
    is not run here), so the records are dropped rather than guessed."""

    class MyData(Data):
        def __inc__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
            if key == "anchor":
                return self.num_nodes
            return super().__inc__(key, value, *args, **kwargs)

    gs = []
    for g in _graphs()[1:4]:
        d = MyData(x=g.x, edge_index=g.edge_index, anchor=np.array([0]))
        gs.append(d)
    out = T.RemoveIsolatedNodes(graph_attrs=["anchor"])(Batch.from_data_list(gs))
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()
    out = T.Constant()(Batch.from_data_list(gs))  # nothing renumbered: kept
    assert [g.anchor.tolist() for g in out.to_data_list()] == [[0], [0], [0]]


def test_follow_vectors_stay_known_after_the_records_are_dropped() -> None:
    """AddSelfLoops drops the records (loops after every graph's edges); the next transform
    still knows ``x_batch`` as the batch's own vector (before the fix: '['x_batch'] are
    neither node, edge nor graph attributes')."""
    gs = _graphs()[1:4]
    for g in gs:
        del g.y
    t = T.Compose([T.AddSelfLoops(), T.RemoveIsolatedNodes(), T.RemoveSelfLoops()])
    out = t(Batch.from_data_list(gs, follow_batch=["x"]))
    np.testing.assert_array_equal(out.x_batch, out.batch)
    np.testing.assert_array_equal(out.ptr, pointer(out.batch, 3))
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()


class _CopyAll(T.BaseTransform):
    """Every array anew with the same values, as ``ToDevice`` gives them on another device."""

    def forward(self, data: Any) -> Any:
        return data.apply(lambda v: v.copy())


def test_arrays_given_anew_keep_the_records() -> None:
    gs = _graphs()
    batch = Batch.from_data_list(gs, follow_batch=["x"])
    _same_records(_CopyAll()(batch), batch)
    hs = [_hetero(5, 4, 0), _hetero(0, 0, 1), _hetero(6, 5, 2)]
    graphs = _CopyAll()(Batch.from_data_list(hs, follow_batch=["x"])).to_data_list()
    for a, h in zip(graphs, hs):
        np.testing.assert_array_equal(a["a"].x, h["a"].x)
        np.testing.assert_array_equal(a["a", "r", "a"].edge_index, h["a", "r", "a"].edge_index)
