"""``ops.typed.typed_spmm`` (the fused relational kernel) and ``ops.gather.add_rows``
against plain definitions on every labelled graph case."""

from __future__ import annotations

import numpy as np
import pytest
from _ops_threads import bits_on_thread_counts

from arraygnn import ops
from arraygnn.nn.rgcn_conv import relation_csr
from arraygnn.ops.gather import add_rows
from arraygnn.ops.typed import typed_spmm
from arraygnn.testing.cases import CASE_NAMES, get_case, powerlaw_edges

REDUCES = ("sum", "mean", "max", "min", "prod")


def _typed_naive(src, dst, etype, x, blocks, reduce, weight, num_dst):
    """Per (target, type): the reduction of w_e x[src_e] over the edges, times the type's
    block-diagonal weight, summed over types; float64, edge by edge."""
    fold = {
        "sum": np.add,
        "mean": np.add,
        "max": np.maximum,
        "min": np.minimum,
        "prod": np.multiply,
    }[reduce]
    groups: dict[tuple[int, int], list] = {}
    for e in range(src.shape[0]):
        m = x[src[e]].astype(np.float64) * (1.0 if weight is None else float(weight[e]))
        key = (int(dst[e]), int(etype[e]))
        if key in groups:
            groups[key][0] = fold(groups[key][0], m)
            groups[key][1] += 1
        else:
            groups[key] = [m, 1]
    width = x.shape[1] if blocks is None else blocks.shape[1] * blocks.shape[3]
    out = np.zeros((num_dst, width))
    for (d, t), (agg, count) in sorted(groups.items()):
        if reduce == "mean":
            agg = agg / count
        if blocks is None:
            out[d] += agg
        else:
            nb, si, so = blocks.shape[1:]
            for b in range(nb):
                out[d, b * so : (b + 1) * so] += agg[b * si : (b + 1) * si] @ blocks[t, b]
    return out


@pytest.mark.parametrize("serial_work", [0, 1 << 40])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_typed_spmm_against_the_plain_definition(monkeypatch, serial_work, index_dtype):
    """Every labelled case (empty, no edges, zero in-degree, self-loops, multi-edges,
    bipartite, hub, unsorted) x reductions x float16/32/64, with and without edge weights,
    dense and block-diagonal weights and none; serial and parallel; the reference kernel too."""
    from arraygnn.kernels import reference
    from arraygnn.kernels.cpu import typed

    monkeypatch.setattr(typed, "SERIAL_WORK", serial_work)
    rng = np.random.default_rng(50)
    tol = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        src, dst = case.edge_index[0], case.edge_index[1]
        etype = rng.integers(0, 3, case.num_edges).astype(index_dtype)
        csr, rel = relation_csr(case.edge_index, etype, 3, case.num_src_nodes, case.num_dst_nodes)
        assert csr.indptr.dtype == np.int32  # internal grouping: int32 whenever ids fit
        for dtype in (np.float16, np.float32, np.float64):
            x = rng.standard_normal((case.num_src_nodes, 4)).astype(dtype)
            w_edges = rng.uniform(0.5, 2, case.num_edges).astype(dtype)
            for blocks in (
                None,
                rng.standard_normal((3, 1, 4, 5)).astype(dtype),
                rng.standard_normal((3, 2, 2, 3)).astype(dtype),
            ):
                for reduce in REDUCES:
                    for weighted in (False, True):
                        w = w_edges if weighted else None
                        got = typed_spmm(
                            csr, rel, x, blocks, reduce, None if w is None else w[csr.perm]
                        )
                        want = _typed_naive(
                            src, dst, etype, x, blocks, reduce, w, case.num_dst_nodes
                        )
                        assert got.dtype == dtype and got.shape == want.shape
                        scale = max(float(np.abs(want).max(initial=0)), 1.0)
                        err = float(np.abs(got - want).max(initial=0)) / scale
                        assert err <= tol[dtype], (name, dtype, reduce, weighted, err)
                        if dtype != np.float16:
                            ref = reference.typed_spmm_csr(
                                csr.indptr, csr.indices, rel,
                                None if w is None else w[csr.perm], x, blocks,
                                np.empty_like(got), reduce,
                            )  # fmt: skip
                            np.testing.assert_allclose(got, ref, rtol=tol[dtype], atol=tol[dtype])


def test_typed_spmm_same_bits_on_any_thread_count():

    from arraygnn.kernels.cpu import typed

    rng = np.random.default_rng(51)
    ei = powerlaw_edges(3000, 40000, seed=2)
    etype = rng.integers(0, 8, 40000)
    csr, rel = relation_csr(ei, etype, 8, 3000, 3000)
    x = rng.standard_normal((3000, 16)).astype(np.float32)
    blocks = rng.standard_normal((8, 1, 16, 32)).astype(np.float32)
    assert 40000 * 16 > typed.SERIAL_WORK  # the parallel kernel runs
    results = bits_on_thread_counts(lambda: typed_spmm(csr, rel, x, blocks, "mean"))
    assert len(set(results)) == 1


def test_typed_spmm_bad_input():
    ei = np.array([[0, 1, 2], [1, 1, 0]])
    csr, rel = relation_csr(ei, np.array([0, 1, 1]), 2, 3, 2)
    x = np.ones((3, 4))
    blocks = np.ones((2, 1, 4, 3))
    before = (x.copy(), blocks.copy(), rel.copy())
    with pytest.raises(TypeError, match="needs a CSR"):
        typed_spmm(ei, rel, x, blocks)
    with pytest.raises(ValueError, match=r"x must be \[3, F\]"):
        typed_spmm(csr, rel, np.ones((4, 4)), blocks)
    with pytest.raises(ValueError, match="blocks must be"):
        typed_spmm(csr, rel, x, np.ones((2, 1, 3, 3)))
    with pytest.raises(ValueError, match="rel has entry 2"):
        typed_spmm(csr, np.array([0, 2, 1]), x, blocks)
    with pytest.raises(ValueError, match="rel has 2 entries"):
        typed_spmm(csr, np.array([0, 1]), x, None)
    with pytest.raises(ValueError, match=r"weight must have shape \(3,\)"):
        typed_spmm(csr, rel, x, blocks, weight=np.ones(2))
    with pytest.raises(ValueError, match="reduce"):
        typed_spmm(csr, rel, x, blocks, "median")
    with pytest.raises(TypeError, match="floating point"):
        typed_spmm(csr, rel, np.ones((3, 4), np.int64), None)
    assert (x == before[0]).all() and (blocks == before[1]).all() and (rel == before[2]).all()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_add_rows_is_the_inverse_of_gather(dtype):
    rng = np.random.default_rng(52)
    for n, k in ((0, 0), (5, 0), (50, 20), (4000, 3000)):  # serial and parallel sizes
        out = rng.standard_normal((n, 3, 2)).astype(dtype)
        index = rng.permutation(n)[:k].astype(np.int32)
        values = rng.standard_normal((k, 3, 2)).astype(dtype)
        want = out.copy()
        want[index] += values
        assert add_rows(out, index, values) is out
        np.testing.assert_array_equal(out, want)
    out = np.zeros((3, 2))
    with pytest.raises(ValueError, match="index has entry 3"):
        add_rows(out, np.array([3]), np.ones((1, 2)))
    with pytest.raises(TypeError, match="share one float dtype"):
        add_rows(out, np.array([1]), np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match=r"values must have shape \(1, 2\)"):
        add_rows(out, np.array([1]), np.ones((1, 3)))
    with pytest.raises(ValueError, match="C-contiguous"):
        add_rows(np.zeros((2, 3)).T, np.array([1]), np.ones((1, 2)))


def test_relation_csr_groups_each_row_by_type():
    rng = np.random.default_rng(53)
    ei = rng.integers(0, 20, (2, 200))
    etype = rng.integers(0, 4, 200)
    csr, rel = relation_csr(ei, etype, 4, 20, 20)
    reference = ops.to_csr(ei, 20, 20)
    np.testing.assert_array_equal(csr.indptr, reference.indptr)
    for d in range(20):
        slots = np.arange(csr.indptr[d], csr.indptr[d + 1])
        edges = csr.perm[slots]
        assert (ei[1, edges] == d).all() and (np.diff(rel[slots]) >= 0).all()
        keys = rel[slots].astype(np.int64) * 1000 + edges
        assert (np.diff(keys) > 0).all()  # edge ids ascending within a type
    np.testing.assert_array_equal(csr.indices, ei[0, csr.perm])
    np.testing.assert_array_equal(rel, etype[csr.perm])
    with pytest.raises(ValueError, match="out of range"):
        relation_csr(ei, etype, 3, 20, 20)
