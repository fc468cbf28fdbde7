"""Property tests on random graphs, algebraic identities, and bit-for-bit determinism."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraygnn import ops
from arraygnn.kernels import reference as ref
from arraygnn.testing.cases import powerlaw_edges

REDUCES = ["sum", "mean", "max", "min", "prod"]


@st.composite
def random_graphs(draw):
    n_src = draw(st.integers(0, 12))
    n_dst = draw(st.integers(0, 12))
    num_edges = draw(st.integers(0, 40)) if n_src and n_dst else 0
    seed = draw(st.integers(0, 2**31 - 1))
    index_dtype = draw(st.sampled_from([np.int32, np.int64]))
    rng = np.random.default_rng(seed)
    ei = np.stack(
        [rng.integers(0, max(n_src, 1), num_edges), rng.integers(0, max(n_dst, 1), num_edges)]
    ).astype(index_dtype)
    return ei, n_src, n_dst, rng


value_dtypes = st.sampled_from([np.float32, np.float64])


@settings(max_examples=30, deadline=None)
@given(random_graphs(), st.sampled_from(REDUCES), value_dtypes, st.integers(1, 4), st.booleans())
def test_spmm_property(graph, reduce, dtype, feats, weighted):
    ei, n_src, n_dst, rng = graph
    x = (1 + 0.1 * rng.standard_normal((n_src, feats))).astype(dtype)
    w = (1 + 0.1 * rng.standard_normal(ei.shape[1])).astype(dtype) if weighted else None
    got = ops.spmm(ei, x, w, reduce=reduce, num_dst_nodes=n_dst)
    want = ref.naive_spmm(ei, x, w, reduce, n_dst)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(random_graphs(), st.sampled_from(REDUCES), value_dtypes)
def test_scatter_property(graph, reduce, dtype):
    ei, _, n_dst, rng = graph
    src = (1 + 0.1 * rng.standard_normal((ei.shape[1], 2))).astype(dtype)
    got = ops.scatter(src, ei[1], n_dst, reduce)
    np.testing.assert_allclose(got, ref.naive_scatter(src, ei[1], n_dst, reduce), rtol=1e-5)


@settings(max_examples=30, deadline=None)
@given(random_graphs(), value_dtypes)
def test_edge_softmax_and_sddmm_property(graph, dtype):
    ei, n_src, n_dst, rng = graph
    logits = rng.standard_normal((ei.shape[1], 2)).astype(dtype)
    got = ops.edge_softmax(ei, logits, num_dst_nodes=n_dst)
    np.testing.assert_allclose(got, ref.naive_edge_softmax(ei, logits, n_dst), rtol=1e-5)
    # each non-empty target's weights sum to one
    sums = ops.scatter(got, ei[1], n_dst, "sum")
    has_edges = np.bincount(ei[1], minlength=n_dst) > 0
    np.testing.assert_allclose(sums[has_edges], 1.0, rtol=1e-5)
    u = rng.standard_normal((n_src, 3)).astype(dtype)
    v = rng.standard_normal((n_dst, 3)).astype(dtype)
    dot = ops.sddmm(ei, u, v, op="dot")
    np.testing.assert_allclose(dot, ref.naive_sddmm(ei, u, v, "dot", "u", "v"), rtol=1e-5)


# ---------------------------------------------------------------------------- identities
@pytest.fixture(scope="module")
def graph():
    n = 300
    ei = powerlaw_edges(n, 3000, seed=5, dtype=np.int32)
    return ei, n


def test_pool_is_adjoint_of_broadcast(graph):
    """<scatter_sum(y, idx), x> == <y, gather(x, idx)> for every x, y."""
    ei, n = graph
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4))
    y = rng.standard_normal((ei.shape[1], 4))
    lhs = np.vdot(ops.scatter(y, ei[1], n, "sum"), x)
    rhs = np.vdot(y, ops.gather(x, ei[1]))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)


def test_spmm_is_gather_scale_scatter(graph):
    ei, n = graph
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, 6))
    w = rng.random(ei.shape[1])
    msgs = ops.gather(x, ei[0]) * w[:, None]
    for reduce in ("sum", "mean", "max", "min"):
        fused = ops.spmm(ei, x, w, reduce=reduce)
        np.testing.assert_allclose(fused, ops.scatter(msgs, ei[1], n, reduce), rtol=1e-12)


def test_mean_is_sum_over_clamped_degree(graph):
    ei, n = graph
    x = np.random.default_rng(2).standard_normal((n, 3))
    deg = np.maximum(np.bincount(ei[1], minlength=n), 1)[:, None]
    np.testing.assert_allclose(
        ops.spmm(ei, x, reduce="mean"), ops.spmm(ei, x, reduce="sum") / deg, rtol=1e-12
    )


def test_sddmm_sub_div_match_add_mul_rewrites(graph):
    ei, n = graph
    rng = np.random.default_rng(3)
    u = rng.standard_normal((n, 4))
    v = rng.random((n, 4)) + 0.5
    np.testing.assert_allclose(ops.sddmm(ei, u, v, "sub"), ops.sddmm(ei, u, -v, "add"))
    np.testing.assert_allclose(ops.sddmm(ei, u, v, "div"), ops.sddmm(ei, u, 1 / v, "mul"))


def test_scatter_equals_segment_over_sorted_rows(graph):
    ei, n = graph
    src = np.random.default_rng(4).standard_normal((ei.shape[1], 5)).astype(np.float32)
    order = np.argsort(ei[1], kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(ei[1], minlength=n))])
    for reduce in REDUCES:
        np.testing.assert_array_equal(
            ops.scatter(src, ei[1], n, reduce), ops.segment(src[order], ptr, reduce)
        )


# ---------------------------------------------------------------------------- determinism
def _all_results(ei, n, x, w, src, logits):
    csr = ops.to_csr(ei, n, n)
    out = [csr.indptr, csr.perm]
    for reduce in REDUCES:
        out.append(ops.spmm(csr, x, w, reduce=reduce))
        out.append(ops.scatter(src, ei[1], n, reduce))
    out.append(ops.edge_softmax(csr, logits))
    out.append(ops.sddmm(csr, x, x, "dot"))
    out.append(ops.gather(x, ei[0]))
    return out


def test_bit_identical_across_runs_and_thread_counts():
    numba = pytest.importorskip("numba")
    n = 2000
    ei = powerlaw_edges(n, 30000, seed=9, dtype=np.int64)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((n, 8)).astype(np.float32)
    w = rng.random(ei.shape[1]).astype(np.float32)
    src = rng.standard_normal((ei.shape[1], 8)).astype(np.float32)
    logits = rng.standard_normal((ei.shape[1], 2)).astype(np.float32)
    first = _all_results(ei, n, x, w, src, logits)
    second = _all_results(ei, n, x, w, src, logits)
    old = numba.get_num_threads()
    try:
        counts = sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})
        per_count = []
        for threads in counts:
            numba.set_num_threads(threads)
            per_count.append(_all_results(ei, n, x, w, src, logits))
    finally:
        numba.set_num_threads(old)
    for other in [second] + per_count:
        for a, b in zip(first, other, strict=True):
            assert a.dtype == b.dtype
            assert a.tobytes() == b.tobytes()


def test_cpu_scatter_paths_give_the_same_bits(monkeypatch):
    """Owner-computes (few threads) and counting-sort + segment (many threads) agree."""
    from arraygnn.kernels.cpu import scatter as cpu_scatter

    n = 500
    ei = powerlaw_edges(n, 6000, seed=2, dtype=np.int32)
    src = np.random.default_rng(7).standard_normal((ei.shape[1], 3)).astype(np.float32)
    monkeypatch.setattr(cpu_scatter, "SORTED_INDEX_PATH", False)
    owner = [ops.scatter(src, ei[1], n, r) for r in REDUCES]
    monkeypatch.setattr(cpu_scatter, "OWNER_MAX_THREADS", 0)
    sorted_path = [ops.scatter(src, ei[1], n, r) for r in REDUCES]
    for a, b in zip(owner, sorted_path, strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("threads", [1, 2])
def test_cpu_tiled_scatter_gives_the_owner_bits(monkeypatch, threads):
    """The tiled path (large outputs) folds each row's edges in edge order like the owner
    path (checked against the reference in the op matrix): forced on every labelled case
    (tiny tiles too, so rows span many tiles and many tiles have no edges), float16 /
    float32 / float64 values (integers run on the reference path), int32 / int64 indices
    and 1 or 2 threads."""
    import numba

    from arraygnn.kernels.cpu import scatter as cpu_scatter
    from arraygnn.testing.cases import CASE_NAMES, get_case

    rng = np.random.default_rng(11)
    monkeypatch.setattr(cpu_scatter, "SORTED_INDEX_PATH", False)  # some cases are sorted
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for name in CASE_NAMES:
            for index_dtype in (np.int32, np.int64):
                case = get_case(name, index_dtype)
                dst = case.edge_index[1]
                for dtype in (np.float16, np.float32, np.float64):
                    shape = (dst.shape[0], 2, 3)
                    src = (1 + 0.1 * rng.standard_normal(shape)).astype(dtype)
                    for reduce in REDUCES:
                        monkeypatch.setattr(cpu_scatter, "TILED_MIN_OUT_BYTES", 1 << 60)
                        owner = ops.scatter(src, dst, case.num_dst_nodes, reduce)
                        for tile_bytes in (1, 48, 1 << 20):
                            monkeypatch.setattr(cpu_scatter, "TILED_MIN_OUT_BYTES", 0)
                            monkeypatch.setattr(cpu_scatter, "TILE_BYTES", tile_bytes)
                            tiled = ops.scatter(src, dst, case.num_dst_nodes, reduce)
                            assert tiled.dtype == owner.dtype, (name, reduce)
                            assert tiled.tobytes() == owner.tobytes(), (name, dtype, reduce)
    finally:
        numba.set_num_threads(old)


@pytest.mark.parametrize("threads", [1, 2])
def test_cpu_sorted_index_scatter_gives_the_owner_bits(monkeypatch, threads):
    """A non-decreasing index (a PyG batch vector) goes straight to segment_csr: the same
    bits as the owner path on every labelled case with its targets sorted (empty rows at
    the start, middle and end, a hub, no edges), every reduction, float16 / float32 /
    float64, int32 / int64 indices; an index with one descent (at the start, in the
    middle, at the very end) takes the other paths and still matches."""
    import numba

    from arraygnn.kernels.cpu import scatter as cpu_scatter
    from arraygnn.testing.cases import CASE_NAMES, get_case

    rng = np.random.default_rng(12)
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for name in CASE_NAMES:
            for index_dtype in (np.int32, np.int64):
                case = get_case(name, index_dtype)
                dst = np.sort(case.edge_index[1], kind="stable")
                indices = [dst]
                if dst.shape[0] >= 2 and dst[0] != dst[-1]:
                    for at in (0, dst.shape[0] // 2, dst.shape[0] - 2):
                        swapped = dst.copy()
                        swapped[at], swapped[at + 1] = dst[at + 1], dst[at]
                        indices.append(swapped)
                for index in indices:
                    for dtype in (np.float16, np.float32, np.float64):
                        src = (1 + 0.1 * rng.standard_normal((index.shape[0], 2, 3))).astype(dtype)
                        for reduce in REDUCES:
                            monkeypatch.setattr(cpu_scatter, "SORTED_INDEX_PATH", False)
                            owner = ops.scatter(src, index, case.num_dst_nodes, reduce)
                            monkeypatch.setattr(cpu_scatter, "SORTED_INDEX_PATH", True)
                            got = ops.scatter(src, index, case.num_dst_nodes, reduce)
                            assert got.dtype == owner.dtype, (name, reduce)
                            assert got.tobytes() == owner.tobytes(), (name, dtype, reduce)
                            want = ref.scatter_coo(
                                index,
                                src.astype(np.float64),
                                np.empty((case.num_dst_nodes, 2, 3)),
                                reduce,
                            )
                            np.testing.assert_allclose(got, want, rtol=2e-3)
    finally:
        numba.set_num_threads(old)


def test_cpu_flat_scatter_gives_the_general_owner_bits(monkeypatch):
    """A 1-D scatter runs the flat owner kernel, whose output starts at the reduction's
    identity: the same bits as the general owner kernel's copy-then-fold (and the tiled
    path) on every labelled case, every reduction, float32 / float64 (float16 runs as
    float32), int32 / int64 indices, with -0.0, +-inf and NaN among the values and rows
    that receive only -0.0 or only -inf."""
    from arraygnn.kernels.cpu import scatter as cpu_scatter
    from arraygnn.kernels.cpu._blocks import REDUCE_CODES
    from arraygnn.testing.cases import CASE_NAMES, get_case

    rng = np.random.default_rng(13)
    special = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, -0.0, -np.inf])
    monkeypatch.setattr(cpu_scatter, "SORTED_INDEX_PATH", False)
    for name in CASE_NAMES:
        for index_dtype in (np.int32, np.int64):
            case = get_case(name, index_dtype)
            dst = case.edge_index[1]
            rows = case.num_dst_nodes
            for dtype in (np.float32, np.float64):
                src = (1 + 0.1 * rng.standard_normal(dst.shape[0])).astype(dtype)
                if dst.shape[0]:
                    pick = rng.random(dst.shape[0]) < 0.3
                    src[pick] = rng.choice(special, int(pick.sum()))
                    src[dst == dst[0]] = -0.0  # a row of -0.0 only
                    src[dst == dst[-1]] = -np.inf if dst[-1] != dst[0] else -0.0
                for reduce in REDUCES:
                    got = ops.scatter(src, dst, rows, reduce)
                    out = np.empty((rows, 1), dtype=dtype)
                    cpu_scatter._owner_kernel(dst, src.reshape(-1, 1), out, REDUCE_CODES[reduce])
                    want = out[:, 0]
                    assert got.dtype == want.dtype, (name, reduce)
                    assert got.tobytes() == want.tobytes(), (name, dtype, reduce)
                    monkeypatch.setattr(cpu_scatter, "TILED_MIN_OUT_BYTES", 0)
                    tiled = ops.scatter(src, dst, rows, reduce)
                    monkeypatch.setattr(cpu_scatter, "TILED_MIN_OUT_BYTES", 1 << 60)
                    assert tiled.tobytes() == want.tobytes(), (name, dtype, reduce)
                    if reduce == "mean":  # the int64-count mean of huge inputs, same bits
                        monkeypatch.setattr(cpu_scatter, "FLAT_PAIRED_MEAN_MAX_EDGES", 0)
                        counted = ops.scatter(src, dst, rows, reduce)
                        monkeypatch.undo()
                        monkeypatch.setattr(cpu_scatter, "SORTED_INDEX_PATH", False)
                        assert counted.tobytes() == want.tobytes(), (name, dtype)


def test_cpu_flat_row_kernels_give_the_general_bits():
    """One value per row takes the flat segment / SpMM / SDDMM / gather kernels (a register
    accumulator, no width loop): the same bits as the general row kernels on every
    labelled case (int32 / int64 indices) and on a graph above the serial threshold (the
    parallel kernels), every reduction, float32 (the dispatch needs one dtype throughout),
    with and without a slot permutation and edge weights, with -0.0, +-inf and NaN among
    the values."""
    from arraygnn.kernels.cpu import gather as cpu_gather
    from arraygnn.kernels.cpu import sddmm as cpu_sddmm
    from arraygnn.kernels.cpu import segment as cpu_segment
    from arraygnn.kernels.cpu import spmm as cpu_spmm
    from arraygnn.kernels.cpu._blocks import REDUCE_CODES
    from arraygnn.testing.cases import CASE_NAMES, get_case

    rng = np.random.default_rng(14)
    special = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan])
    graphs = [get_case(name, dt) for name in CASE_NAMES for dt in (np.int32, np.int64)]
    big = powerlaw_edges(3000, 70_000, seed=3, dtype=np.int64)

    def same_bits(a, b):  # NaN's sign bit follows LLVM's operand order: any NaN matches
        a, b = a.ravel(), b.ravel()
        nan = np.isnan(a)
        return np.array_equal(nan, np.isnan(b)) and a[~nan].tobytes() == b[~nan].tobytes()

    def values(n, dtype):
        v = (1 + 0.1 * rng.standard_normal(n)).astype(dtype)
        pick = rng.random(n) < 0.2
        v[pick] = rng.choice(special, int(pick.sum()))
        return v

    cases = [(g.edge_index, g.num_src_nodes, g.num_dst_nodes) for g in graphs]
    for (ei, n_src, n_dst), dtype in [(c, dt) for c in cases for dt in (np.float32,)] + [
        ((big, 3000, 3000), np.float32),
    ]:
        csr = ops.to_csr(ei, n_src, n_dst)
        indptr, indices, perm = csr.indptr, csr.indices, csr.kernel_perm
        num = indices.shape[0]
        x_edges = values(num, dtype)
        x_nodes = values(n_src, dtype)
        w = values(num, dtype)
        for reduce in REDUCES:
            code = REDUCE_CODES[reduce]
            for p in (None, perm):
                got = np.empty((n_dst, 1, 1), dtype)
                cpu_segment.segment_csr(indptr, p, x_edges.reshape(-1, 1, 1), got, reduce)
                want = np.empty((n_dst, 1, 1), dtype)
                cpu_segment._segment_rows(
                    indptr, p, x_edges.reshape(-1, 1, 1), want, code, 0, n_dst
                )
                assert same_bits(got, want), ("segment", reduce, p is None)
            for weight in (None, w.reshape(-1, 1)):
                got = np.empty((n_dst, 1, 1), dtype)
                x3 = x_nodes.reshape(-1, 1, 1)
                cpu_spmm.spmm_csr(indptr, indices, perm, x3, weight, got, reduce)
                want = np.empty((n_dst, 1, 1), dtype)
                cpu_spmm._spmm_rows(indptr, indices, perm, x3, weight, want, code, 0, n_dst)
                assert same_bits(got, want), ("spmm", reduce, weight is None)
        src, dst = np.asarray(ei[0]), np.asarray(ei[1])
        lhs3, rhs3 = x_nodes.reshape(-1, 1, 1), values(max(n_src, n_dst, num), dtype)
        rhs3 = rhs3.reshape(-1, 1, 1)
        for op, code in cpu_sddmm.OP_CODES.items():
            for lt, rt in (("u", "v"), ("u", "e"), ("v", "u")):
                if lt == "v" and n_dst > n_src:
                    continue
                args = (lhs3, rhs3, op)
                got = np.empty((num, 1, 1), dtype)
                cpu_sddmm.sddmm_coo(src, dst, *args[:2], got, op, lt, rt)
                want = np.empty((num, 1, 1), dtype)
                codes = (code, cpu_sddmm.TARGET_CODES[lt], cpu_sddmm.TARGET_CODES[rt])
                cpu_sddmm._sddmm_rows(src, dst, lhs3, rhs3, want, *codes, 0, num)
                assert same_bits(got, want), ("sddmm", op, lt, rt)
                if "e" not in (lt, rt):
                    got = np.empty((num, 1, 1), dtype)
                    cpu_sddmm.sddmm_csr(indptr, indices, perm, lhs3, rhs3, got, op, lt, rt)
                    assert same_bits(got, want), ("sddmm_csr", op, lt, rt)
        got = np.empty((num, 1), dtype)
        cpu_gather.gather_rows(x_nodes.reshape(-1, 1), indices, got)
        want = np.empty((num, 1), dtype)
        cpu_gather._gather_rows(x_nodes.reshape(-1, 1), indices, want, 0, num)
        assert got.tobytes() == want.tobytes()


def test_cpu_sorted_row_pointer():
    """The sorted-index check writes the CSR row pointer (rows with no entries included)
    and refuses an index with any descent."""
    from arraygnn.kernels.cpu.scatter import _sorted_row_pointer

    for index, rows, want in [
        ([], 3, [0, 0, 0, 0]),
        ([2, 2], 4, [0, 0, 0, 2, 2]),
        ([0, 0, 1, 3], 4, [0, 2, 3, 3, 4]),
        ([1, 1, 1], 2, [0, 0, 3]),
    ]:
        for dtype in (np.int32, np.int64):
            indptr = np.full(rows + 1, -7, dtype=dtype)
            assert _sorted_row_pointer(np.array(index, dtype=dtype), indptr)
            assert indptr.tolist() == want
    for index in ([1, 0], [0, 2, 1], [3, 3, 3, 2]):
        assert not _sorted_row_pointer(np.array(index, dtype=np.int64), np.empty(5, np.int64))


def test_cpu_tiled_scatter_tile_sizes():
    """Rows per tile: TILE_BYTES of rows, a power of two, 1 to 65536 (uint16 rows)."""
    from arraygnn.kernels.cpu.scatter import TILE_BYTES, _tile_shift

    assert 1 << _tile_shift(256) == TILE_BYTES // 256
    assert _tile_shift(10**9) == 0
    assert _tile_shift(1) == 16
    assert 1 << _tile_shift(100) <= TILE_BYTES // 100 < 2 << _tile_shift(100)


def _force_path(monkeypatch, serial_work):
    import importlib

    for name in ("spmm", "segment", "gather", "sddmm", "edge_softmax", "csr"):
        module = importlib.import_module(f"arraygnn.kernels.cpu.{name}")
        monkeypatch.setattr(module, "SERIAL_WORK", serial_work)


def test_parallel_and_serial_paths_give_the_same_bits(monkeypatch):
    """Small inputs run the serial body on the calling thread, large ones the parallel
    driver over cost-balanced blocks; force each on every labelled case."""
    from arraygnn.testing.cases import CASE_NAMES, get_case

    results = {}
    for serial_work in (0, 1 << 40):
        _force_path(monkeypatch, serial_work)
        out = []
        for name in CASE_NAMES:
            case = get_case(name, np.int32)
            rng = np.random.default_rng(8)
            x = rng.standard_normal((case.num_src_nodes, 3)).astype(np.float32)
            w = rng.standard_normal((case.num_edges, 2)).astype(np.float32)
            csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
            for reduce in REDUCES:
                out.append(ops.spmm(csr, x[:, None, :], w, reduce=reduce))
                out.append(
                    ops.segment(
                        x, np.array([0, case.num_src_nodes // 2, case.num_src_nodes]), reduce
                    )
                )
            out.append(ops.edge_softmax(csr, w))
            out.append(ops.gather(x, case.src))
            v = rng.standard_normal((case.num_dst_nodes, 3)).astype(np.float32)
            out.append(ops.sddmm(csr, x, v, "dot"))
            out.append(ops.sddmm(csr, x, w[:, :1], "mul", "u", "e"))
        results[serial_work] = out
    for a, b in zip(results[0], results[1 << 40], strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_cpu_chunked_counting_sort_is_the_stable_sort(index_dtype):
    """The parallel CSR sort (each worker counts and places one chunk of the keys) gives
    the serial stable sort's ``perm`` and ``indptr`` for any number of chunks."""
    from arraygnn.kernels.cpu.csr import _chunked_counting_sort
    from arraygnn.testing.cases import CASE_NAMES, get_case

    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        keys = np.ascontiguousarray(case.edge_index[1])
        counts = np.bincount(keys, minlength=case.num_dst_nodes)
        for nchunks in (1, 2, 3, 7):
            indptr = np.empty(case.num_dst_nodes + 1, dtype=index_dtype)
            perm = np.empty(keys.shape[0], dtype=index_dtype)
            _chunked_counting_sort(keys, indptr, perm, nchunks)
            np.testing.assert_array_equal(perm, np.argsort(keys, kind="stable"), err_msg=name)
            np.testing.assert_array_equal(indptr[1:], np.cumsum(counts), err_msg=name)
            assert indptr[0] == 0


@pytest.mark.parametrize("serial_work", [0, 1 << 40])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_edge_softmax_one_head_path_gives_the_many_head_bits(monkeypatch, serial_work, dtype):
    """One head runs a specialised CPU loop (scalars instead of per-head arrays); its
    results are the bits the general loop gives for the same column among three heads,
    on every labelled case, with -inf / inf / NaN logits in some rows, serial and
    parallel."""
    from arraygnn.testing.cases import CASE_NAMES, get_case

    _force_path(monkeypatch, serial_work)
    rng = np.random.default_rng(12)
    for name in CASE_NAMES:
        case = get_case(name, np.int64)
        logits = (3 * rng.standard_normal((case.num_edges, 3))).astype(dtype)
        if case.num_edges > 4:
            logits[1, 0] = -np.inf
            logits[-2, 0] = np.inf
            logits[-1, 0] = np.nan
        one = ops.edge_softmax(case.edge_index, logits[:, 0], case.num_dst_nodes)
        many = ops.edge_softmax(case.edge_index, logits, case.num_dst_nodes)
        assert one.tobytes() == np.ascontiguousarray(many[:, 0]).tobytes(), name


@pytest.mark.parametrize("serial_work", [0, 1 << 40])
def test_sddmm_over_csr_slots_gives_the_edge_order_bits(monkeypatch, serial_work):
    """With a CSR and a ``v`` operand the CPU kernel walks the CSR's slots (v rows in
    order) instead of the edges: every op, target pair and dtype gives the bits of the
    edge-list call, in edge order, on every labelled case, serial and parallel."""
    from arraygnn.testing.cases import CASE_NAMES, get_case

    _force_path(monkeypatch, serial_work)
    rng = np.random.default_rng(13)
    ops_ = ["add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs"]
    pairs = [("u", "v"), ("v", "u"), ("v", "v"), ("u", "u"), ("u", "e"), ("e", "v")]
    for name in CASE_NAMES:
        for index_dtype in (np.int32, np.int64):
            case = get_case(name, index_dtype)
            csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
            rows = {"u": case.num_src_nodes, "v": case.num_dst_nodes, "e": case.num_edges}
            for dtype in (np.float16, np.float32, np.float64):
                for lt, rt in pairs:
                    lhs = (1 + rng.standard_normal((rows[lt], 2, 9))).astype(dtype)
                    rhs = (1 + rng.standard_normal((rows[rt], 1, 9))).astype(dtype)
                    for op in ops_:
                        want = ops.sddmm(case.edge_index, lhs, rhs, op, lt, rt)
                        got = ops.sddmm(csr, lhs, rhs, op, lt, rt)
                        assert got.dtype == want.dtype, (name, op, lt, rt)
                        assert got.tobytes() == want.tobytes(), (name, dtype, op, lt, rt)
