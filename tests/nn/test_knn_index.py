"""KNNIndex / L2KNNIndex / MIPSKNNIndex / ApproxL2KNNIndex / ApproxMIPSKNNIndex and
approx_knn / approx_knn_graph (arraygnn.nn) against PyG 2.8.1's faiss / pynndescent ones.

The exact indices are run through both engines (the NumPy blockwise path and faiss) and
compared with PyG's on the same points: same indices, scores to float32 rounding (faiss and
the array path round the L2 expansion differently). Ties are checked on integer-valued
points, where every score is exact. The approximate ones are checked for recall against the
exact answer, shapes, dtypes and PyG's ``exclude_links`` rules; approx_knn's layout against
the exact ``arraygnn.utils.knn`` on small inputs where the approximate answer is exact."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import arraygnn.nn.knn_index as knn_index
from arraygnn.nn import (
    ApproxL2KNNIndex,
    ApproxMIPSKNNIndex,
    KNNIndex,
    KNNOutput,
    L2KNNIndex,
    MIPSKNNIndex,
    approx_knn,
    approx_knn_graph,
)
from arraygnn.utils import knn, knn_graph

EXACT = [L2KNNIndex, MIPSKNNIndex]
ENGINES = ["array", "faiss"]


def _engine(name):
    if name == "faiss":
        pytest.importorskip("faiss")
    return name


def _pyg(cls_name):
    pytest.importorskip("faiss")
    pytest.importorskip("torch_geometric")
    import torch_geometric.nn.pool as pool

    return getattr(pool, cls_name)


def _torch(a):
    import torch

    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def assert_same_knn(ours, theirs, tol):
    """Same shape, same padding, scores within ``tol``; indices equal except where two
    candidate scores are closer than ``tol`` (rounding may order those either way)."""
    s, i = ours
    ts, ti = (np.asarray(a) for a in theirs)
    assert s.shape == ts.shape and i.shape == ti.shape
    assert i.dtype == np.int64
    np.testing.assert_array_equal(np.isinf(s), np.isinf(ts))
    fin = np.isfinite(ts)
    np.testing.assert_allclose(s[fin], ts[fin], rtol=tol, atol=tol)
    for r, c in zip(*np.nonzero(i != ti)):
        near = np.abs(ts[r] - ts[r, c]) <= 4 * tol * max(1.0, abs(float(ts[r, c])))
        assert near.sum() > 1, f"row {r} col {c}: {i[r]} vs {ti[r]}"


def brute(emb, query, k, metric, links=None):
    """float64 reference of the documented rules: the ``k`` (with ``links``: ``k`` plus the
    most links of one query, as PyG) best, ties at the last place to the lower indices;
    ordered L2 ascending then lower index first, MIPS descending then higher index first;
    with ``links`` the excluded pairs dropped, ``k`` kept and ``-inf`` / ``-1`` padding."""
    emb, query = emb.astype(np.float64), query.astype(np.float64)
    n, m = len(emb), len(query)
    fetch = min(k, n)
    exclude = set()
    if links is not None:
        exclude = set(zip(*links.tolist()))
        extra = int(np.bincount(links[0], minlength=m).max()) if links.size and m else 0
        fetch = min(k + extra, n)
    width = min(k, n) if links is None else k
    score = np.full((m, width), -np.inf)
    index = np.full((m, width), -1, np.int64)
    for r, q in enumerate(query):
        val = ((q - emb) ** 2).sum(1) if metric == "l2" else emb @ q
        key = val if metric == "l2" else -val
        ids = np.lexsort((np.arange(n), key))[:fetch]
        ids = sorted(ids, key=lambda c: (key[c], c if metric == "l2" else -c))
        ids = [c for c in ids if (r, c) not in exclude][:width]
        score[r, : len(ids)] = val[ids]
        index[r, : len(ids)] = ids
    return score, index


def random_links(rng, m, n, count, dtype=np.int64):
    return np.stack([rng.integers(0, m, count), rng.integers(0, n, count)]).astype(dtype)


# ---------------------------------------------------------------- exact, against PyG
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cls", EXACT)
@pytest.mark.parametrize("k", [1, 7, 64, 500])
@pytest.mark.parametrize("exclude", [None, "random", "empty", "int32", "whole_row"])
def test_exact_matches_pyg(engine, cls, k, exclude):
    ref_cls = _pyg(cls.__name__)
    rng = np.random.default_rng(k)
    emb = rng.standard_normal((300, 12)).astype(np.float32)
    more = rng.standard_normal((50, 12)).astype(np.float32)
    query = rng.standard_normal((45, 12)).astype(np.float32)
    links = None
    if exclude == "random":  # duplicates included
        links = random_links(rng, 45, 350, 400)
        links = np.concatenate([links, links[:, :20]], axis=1)
    elif exclude == "empty":
        links = np.zeros((2, 0), np.int64)
    elif exclude == "int32":
        links = random_links(rng, 45, 350, 100, np.int32)
    elif exclude == "whole_row":  # query 3 excludes every point: all padding
        links = np.stack([np.full(350, 3), np.arange(350)])
    ours = cls(emb, backend=_engine(engine))
    ours.add(more)
    theirs = ref_cls(_torch(emb))
    theirs.add(_torch(more))
    out = ours.search(query, k, links)
    assert isinstance(out, KNNOutput)
    ref = theirs.search(_torch(query), k, None if links is None else _torch(links.astype(np.int64)))
    assert out.score.dtype == np.float32
    assert_same_knn(out, ref, 2e-5)
    assert ours.numel == theirs.numel == 350
    np.testing.assert_array_equal(ours.get_emb(), theirs.get_emb().numpy())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cls", EXACT)
def test_ties_follow_faiss_order(engine, cls):
    """Integer-valued points: every score is exact, so ties can be checked exactly. L2: the
    same indices as faiss. MIPS: faiss's heap keeps no stated subset of the points tied
    at the k-th place (it depends on the order they stream in), so there the scores must
    agree and every place before the last tied run the indices; ties run high to low."""
    ref_cls = _pyg(cls.__name__)
    rng = np.random.default_rng(5)
    emb = rng.integers(0, 3, (400, 2)).astype(np.float32)
    links = random_links(rng, 30, 400, 200)
    for m in (5, 30):  # faiss has a direct path below 20 queries and a BLAS path above
        query = rng.integers(0, 3, (m, 2)).astype(np.float32)
        lk = links[:, links[0] < m]
        for k in (1, 40, 399):
            for ex in (None, lk):
                out = cls(emb, backend=_engine(engine)).search(query, k, ex)
                ref = ref_cls(_torch(emb)).search(_torch(query), k, _torch(ex))
                np.testing.assert_array_equal(out.score, ref.score.numpy())
                if cls is L2KNNIndex:
                    np.testing.assert_array_equal(out.index, ref.index.numpy())
                    continue
                for s, i, ri in zip(out.score, out.index, ref.index.numpy()):
                    last = s[np.isfinite(s)][-1] if np.isfinite(s).any() else None
                    before = s != last
                    np.testing.assert_array_equal(i[before], ri[before])
                    same = (s[1:] == s[:-1]) & np.isfinite(s[1:])
                    assert (i[1:][same] < i[:-1][same]).all()


@pytest.mark.parametrize("cls", EXACT)
def test_index_factory_flat_matches_pyg(cls):
    ref_cls = _pyg("KNNIndex")
    rng = np.random.default_rng(1)
    emb = rng.standard_normal((200, 8)).astype(np.float32)
    query = rng.standard_normal((30, 8)).astype(np.float32)
    links = random_links(rng, 30, 200, 60)
    ours = KNNIndex("Flat", emb)
    theirs = ref_cls("Flat", _torch(emb))
    for k in (3, 250):
        for ex in (None, links):
            out = ours.search(query, k, ex)
            ref = theirs.search(_torch(query), k, _torch(ex))
            np.testing.assert_array_equal(out.index, ref.index.numpy())
            np.testing.assert_array_equal(out.score, ref.score.numpy())
    assert ours.engine == "faiss"


# ---------------------------------------------------------------- exact, array path
@pytest.mark.parametrize("cls,metric", [(L2KNNIndex, "l2"), (MIPSKNNIndex, "ip")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block", [None, 1, 37])
@pytest.mark.parametrize("select", ["kernel", "partition"])
def test_array_path_against_brute_force(cls, metric, dtype, block, select, monkeypatch):
    if select == "partition":  # argpartition and its tie repair instead of the Numba pass
        monkeypatch.setattr(knn_index, "KERNEL_MAX_K", 0)
    if block is not None:  # tiny blocks: one query (or a few) per matrix product
        monkeypatch.setattr(knn_index, "BLOCK_ELEMENTS", block * 60)
    rng = np.random.default_rng(3)
    emb = rng.integers(-2, 3, (60, 3)).astype(dtype)  # many ties
    emb[:30] += rng.standard_normal((30, 3)).astype(dtype) / 8
    query = rng.integers(-2, 3, (25, 3)).astype(dtype)
    links = random_links(rng, 25, 60, 80)
    index = cls(emb, backend="array")
    assert index.engine == "array"
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for k in (1, 4, 59, 60, 75):
        out = index.search(query, k)
        assert out.score.dtype == dtype and out.index.dtype == np.int64
        ref = brute(emb, query, k, metric)
        np.testing.assert_array_equal(out.index, ref[1])
        np.testing.assert_allclose(out.score, ref[0], rtol=tol, atol=tol)
        out = index.search(query, k, links)
        ref = brute(emb, query, k, metric, links)
        np.testing.assert_array_equal(out.index, ref[1])
        np.testing.assert_allclose(out.score, ref[0], rtol=tol, atol=tol)


def test_float64_stays_float64_and_float32_picks_faiss():
    rng = np.random.default_rng(0)
    e64 = rng.standard_normal((20, 4))
    index = L2KNNIndex(e64)
    assert index.engine == "array"
    out = index.search(e64[:3], 2)
    assert out.score.dtype == np.float64
    np.testing.assert_array_equal(out.index[:, 0], [0, 1, 2])
    assert out.score[:, 0].max() < 1e-12
    # later input is cast to the index's dtype
    index.add(e64[:2].astype(np.float32))
    assert index.get_emb().dtype == np.float64 and index.numel == 22
    assert index.search(e64[:1].astype(np.float32), 1).score.dtype == np.float64
    pytest.importorskip("faiss")
    index = MIPSKNNIndex(e64.astype(np.float32))
    assert index.engine == "faiss"
    assert index.search(e64[:2].astype(np.float32), 3).score.dtype == np.float32
    assert MIPSKNNIndex(e64.astype(np.float16)).search(e64[:2], 1).score.dtype == np.float32


def test_without_faiss_exact_still_runs_and_others_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "faiss", None)  # import faiss -> ImportError
    monkeypatch.setattr(knn_index, "_FAISS_OK", None)
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((30, 4)).astype(np.float32)
    index = L2KNNIndex(emb)
    assert index.engine == "array"
    ref = brute(emb, emb[:5], 3, "l2")
    np.testing.assert_array_equal(index.search(emb[:5], 3).index, ref[1])
    for make in (
        lambda: KNNIndex("Flat"),
        lambda: L2KNNIndex(backend="faiss"),
        lambda: ApproxL2KNNIndex(4, 2, 2),
        lambda: ApproxMIPSKNNIndex(4, 2, 2),
    ):
        with pytest.raises(ImportError, match=r"arraygnn\[faiss\]"):
            make()


def test_add_search_reset_numel_and_nothing_mutated():
    rng = np.random.default_rng(2)
    emb = rng.standard_normal((10, 3))
    query = rng.standard_normal((4, 3))
    links = np.array([[0, 1], [2, 3]])
    copies = [a.copy() for a in (emb, query, links)]
    index = MIPSKNNIndex(reserve=4)
    assert index.numel == 0 and index.engine is None
    for part in (emb[:3], emb[3:3], emb[3:]):  # grows past the reserve; an empty add
        index.add(part)
    assert index.numel == 10
    np.testing.assert_array_equal(index.get_emb(), emb)
    out = index.search(query, 3, links)
    for a, b in zip((emb, query, links), copies):
        np.testing.assert_array_equal(a, b)
    got = index.get_emb()
    got[:] = 0  # a copy: the index keeps its points
    np.testing.assert_array_equal(index.search(query, 3, links).index, out.index)
    assert repr(index) == "MIPSKNNIndex(numel=10)"
    index.reset()
    assert index.numel == 0
    with pytest.raises(RuntimeError, match=r"MIPSKNNIndex.search: .*add"):
        index.search(query, 1)
    index.add(np.ones((2, 5)))  # a new dimension after reset
    assert index.search(np.ones((1, 5)), 5).index.shape == (1, 2)


def test_empty_queries_and_empty_index():
    index = L2KNNIndex(np.zeros((0, 3)))
    assert index.numel == 0
    assert index.search(np.ones((2, 3)), 4).index.shape == (2, 0)
    out = index.search(np.ones((2, 3)), 2, np.zeros((2, 0), np.int64))
    np.testing.assert_array_equal(out.index, -np.ones((2, 2)))
    assert np.isneginf(out.score).all()
    index.add(np.eye(3))
    assert index.search(np.zeros((0, 3)), 2).score.shape == (0, 2)
    assert index.search(np.zeros((0, 3)), 2, np.zeros((2, 0), np.int32)).index.shape == (0, 2)


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_input(engine):
    import re

    index = L2KNNIndex(np.eye(3, dtype=np.float32), backend=_engine(engine))
    q = np.ones((2, 3), np.float32)
    cases = [
        (lambda: index.add(np.eye(4)), ValueError, "L2KNNIndex.add: emb has 4 channels"),
        (lambda: index.add(np.ones(3)), ValueError, "L2KNNIndex.add: emb must be two-dim"),
        (
            lambda: index.add(np.eye(3, dtype=np.int64)),
            TypeError,
            "L2KNNIndex.add: emb must be a float",
        ),
        (lambda: index.add([[1.0, 2.0, 3.0]]), TypeError, "L2KNNIndex.add: emb must be a NumPy"),
        (lambda: index.add(np.full((1, 3), np.nan)), ValueError, "L2KNNIndex.add: emb holds NaN"),
        (lambda: index.search(np.ones((2, 4)), 1), ValueError, "L2KNNIndex.search: emb has 4"),
        (lambda: index.search(np.ones((2, 3, 1)), 1), ValueError, "search: emb must be two-dim"),
        (lambda: index.search(q, 0), ValueError, "L2KNNIndex.search: k must be >= 1"),
        (lambda: index.search(q, True), TypeError, "L2KNNIndex.search: k must be an int"),
        (lambda: index.search(q, 2.0), TypeError, "k must be an int"),
        (lambda: index.search(q, 1, np.array([[0], [3]])), ValueError, r"exclude_links\[1\]"),
        (lambda: index.search(q, 1, np.array([[2], [0]])), ValueError, r"exclude_links\[0\]"),
        (lambda: index.search(q, 1, np.array([[-1], [0]])), ValueError, r"exclude_links\[0\]"),
        (lambda: index.search(q, 1, np.zeros((3, 1), np.int64)), ValueError, r"\[2, num_links\]"),
        (lambda: index.search(q, 1, np.zeros((2, 1))), TypeError, "exclude_links must be an int"),
    ]
    for call, err, msg in cases:
        with pytest.raises(err, match=msg if "\\" in msg else re.escape(msg)):
            call()
    with pytest.raises(ValueError, match="backend must be one of"):
        MIPSKNNIndex(backend="gpu")
    with pytest.raises(ValueError, match="reserve must be >= 0"):
        MIPSKNNIndex(reserve=-1)
    with pytest.raises(RuntimeError, match="L2KNNIndex.get_emb"):
        L2KNNIndex().get_emb()


def test_torch_tensor_is_refused_with_a_hint():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="from_torch"):
        L2KNNIndex(torch.ones(2, 3))


def test_factory_and_approx_arguments():
    pytest.importorskip("faiss")
    with pytest.raises(TypeError, match="KNNIndex: index_factory must be"):
        KNNIndex()
    with pytest.raises(ValueError, match="KNNIndex.add: faiss could not build"):
        KNNIndex("NoSuchIndex", np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match="ApproxL2KNNIndex: num_cells must be >= 1"):
        ApproxL2KNNIndex(0, 1, 2)
    with pytest.raises(TypeError, match="ApproxMIPSKNNIndex: bits_per_vector must be an int"):
        ApproxMIPSKNNIndex(4, 1, 2.0)
    with pytest.raises(ValueError, match="bits_per_vector=3 .* must divide the 8 channels"):
        ApproxL2KNNIndex(4, 1, 3, np.ones((50, 8), np.float32))
    index = ApproxL2KNNIndex(16, 2, 2)
    with pytest.raises(ValueError, match="ApproxL2KNNIndex.add: faiss refused"):
        index.add(np.ones((5, 4), np.float32))  # fewer points than cells to train
    assert index.numel == 0 and index.engine is None


def test_cupy_stays_on_device_and_mixing_is_refused():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - no device
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((300, 8))
    query = rng.standard_normal((20, 8))
    links = random_links(rng, 20, 300, 50)
    for cls, metric in ((L2KNNIndex, "l2"), (MIPSKNNIndex, "ip")):
        index = cls(cp.asarray(emb))
        out = index.search(cp.asarray(query), 5, cp.asarray(links))
        assert isinstance(out.index, cp.ndarray)
        ref = brute(emb, query, 5, metric, links)
        np.testing.assert_array_equal(out.index.get(), ref[1])
        with pytest.raises(TypeError, match="one index takes one kind"):
            index.search(query, 2)


# ---------------------------------------------------------------- approximate indices
@pytest.mark.parametrize("cls_name", ["ApproxL2KNNIndex", "ApproxMIPSKNNIndex"])
def test_approx_recall_shapes_and_pyg_parity(cls_name):
    ref_cls = _pyg(cls_name)
    cls = {"ApproxL2KNNIndex": ApproxL2KNNIndex, "ApproxMIPSKNNIndex": ApproxMIPSKNNIndex}[cls_name]
    rng = np.random.default_rng(4)
    centres = rng.standard_normal((20, 16)) * 4
    emb = (centres[rng.integers(0, 20, 2000)] + rng.standard_normal((2000, 16))).astype(np.float32)
    query = emb[:100] + rng.standard_normal((100, 16)).astype(np.float32) / 10
    links = random_links(rng, 100, 2000, 300)
    ours = cls(num_cells=16, num_cells_to_visit=16, bits_per_vector=8, emb=emb)
    theirs = ref_cls(num_cells=16, num_cells_to_visit=16, bits_per_vector=8, emb=_torch(emb))
    exact = (L2KNNIndex if "L2" in cls_name else MIPSKNNIndex)(emb, backend="array")
    k = 10
    out = ours.search(query, k)
    assert out.score.shape == out.index.shape == (100, k)
    assert out.score.dtype == np.float32 and out.index.dtype == np.int64
    truth = exact.search(query, k).index
    recall = np.mean([len(set(a) & set(b)) / k for a, b in zip(out.index, truth)])
    assert recall > 0.5
    ref = theirs.search(_torch(query), k)  # faiss seeds its k-means: the same answer
    np.testing.assert_array_equal(out.index, ref.index.numpy())
    np.testing.assert_allclose(out.score, ref.score.numpy(), rtol=1e-5, atol=1e-4)
    out = ours.search(query, k, links)
    ref = theirs.search(_torch(query), k, _torch(links))
    np.testing.assert_array_equal(out.index, ref.index.numpy())
    assert not set(zip(*np.nonzero(out.index >= 0)[0:1], out.index[out.index >= 0])) & set(
        zip(*links.tolist())
    )
    assert ours.get_emb().shape == (2000, 16) and ours.get_emb().dtype == np.float32
    # more than the index holds: capped without exclude_links, padded with
    assert ours.search(query[:3], 3000).index.shape == (3, 2000)
    padded = ours.search(query[:3], 2100, np.zeros((2, 0), np.int64))
    assert padded.index.shape == (3, 2100) and (padded.index[:, 2000:] == -1).all()
    ours.reset()
    assert ours.numel == 0


def test_approx_float64_input_is_float32():
    pytest.importorskip("faiss")
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((300, 4))
    out = ApproxL2KNNIndex(4, 4, 2, emb).search(emb[:5], 3)
    assert out.score.dtype == np.float32
    np.testing.assert_array_equal(out.index[:, 0], np.arange(5))


# ---------------------------------------------------------------- approx_knn (pynndescent)
def _need_pynndescent():
    """Skip without a working pynndescent (not in the test extra: its first call compiles
    ~40 s; a leftover folder can make a bare namespace package importable)."""
    if not hasattr(pytest.importorskip("pynndescent"), "NNDescent"):
        pytest.skip("pynndescent is not installed (an empty namespace package)")


def _distinct_points(rng, n, f):
    return rng.permutation(n * 7)[: n * f].reshape(n, f).astype(np.float64) / 7


@pytest.mark.filterwarnings("ignore:Failed to correctly find n_neighbors")
def test_approx_knn_layout_matches_exact_knn():
    _need_pynndescent()
    rng = np.random.default_rng(0)
    x = _distinct_points(rng, 40, 3)
    y = _distinct_points(rng, 12, 3)
    bx = np.repeat([0, 1, 3], [15, 20, 5]).astype(np.int32)  # example 3 has < k points
    by = np.repeat([0, 1, 3], [4, 4, 4])
    for args in ((x, y, 6), (x, y, 6, bx, by)):
        got = approx_knn(*args)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, knn(*args))
    got = approx_knn(x, y, 4, cosine=True)
    np.testing.assert_array_equal(got, knn(x, y, 4, cosine=True))
    for loop in (False, True):
        for flow in ("source_to_target", "target_to_source"):
            for batch in (None, bx):
                got = approx_knn_graph(x, 5, batch, loop=loop, flow=flow)
                np.testing.assert_array_equal(got, knn_graph(x, 5, batch, loop=loop, flow=flow))
    assert approx_knn(x[:0], y, 3).shape == (2, 0)
    # no more points than k: every one (of the example), no search
    np.testing.assert_array_equal(approx_knn(x[:3], y, 5), knn(x[:3], y, 5))
    np.testing.assert_array_equal(approx_knn(x, y, 6, bx, by)[:, -2:], knn(x, y, 6, bx, by)[:, -2:])
    assert approx_knn_graph(x[:1], 2).shape == (2, 0)
    assert approx_knn_graph(x[:1], 2, loop=True).tolist() == [[0], [0]]
    assert approx_knn_graph(x[:0], 3).shape == (2, 0)
    x1 = np.arange(10.0)  # 1-D: one coordinate per point; equal distances go by index
    np.testing.assert_array_equal(approx_knn_graph(x1, 2), knn_graph(x1, 2))


def test_approx_knn_recall_and_bad_input():
    _need_pynndescent()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((600, 8)).astype(np.float32)
    got = approx_knn_graph(x, 8)
    exact = knn_graph(x, 8)
    assert got.shape[1] <= exact.shape[1]
    assert np.bincount(got[1], minlength=600).max() <= 8 and (got[0] != got[1]).all()
    pairs = set(zip(*got.tolist()))
    assert len(pairs & set(zip(*exact.tolist()))) / exact.shape[1] > 0.8
    before = x.copy()
    approx_knn(x, x[:5], 2)
    np.testing.assert_array_equal(x, before)
    with pytest.raises(ValueError, match="approx_knn: k must be >= 1"):
        approx_knn(x, x, 0)
    with pytest.raises(ValueError, match="approx_knn: x and y must have one number of columns"):
        approx_knn(x, x[:, :3], 2)
    with pytest.raises(ValueError, match=r"approx_knn: batch_y must have shape \(600,\)"):
        approx_knn(x, x, 2, batch_y=np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="approx_knn_graph: batch must be an integer array"):
        approx_knn_graph(x, 2, np.zeros(600))
    with pytest.raises(ValueError, match="approx_knn_graph: flow must be one of"):
        approx_knn_graph(x, 2, flow="up")
    with pytest.raises(ValueError, match="negative example id"):
        approx_knn_graph(x, 2, -np.ones(600, np.int64))
    with pytest.raises(ValueError, match="approx_knn_graph: batch must be sorted"):
        approx_knn_graph(x, 2, np.arange(600)[::-1].copy())


def test_approx_knn_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynndescent", None)
    with pytest.raises(ImportError, match=r"arraygnn\[pynndescent\]"):
        approx_knn(np.ones((3, 2)), np.ones((1, 2)), 1)
    with pytest.raises(ImportError, match=r"arraygnn\[pynndescent\]"):
        approx_knn_graph(np.ones((3, 2)), 1)
