"""Review of the learned / cluster poolings: ids reaching the Numba kernels are validated
(``contract_edges``, ``PANConv.met_matrix``), float16 edge scores, errors naming the layer,
and the heap-sort stage of the ``torch.argsort`` replay (reached only by an adversarial
input), against PyTorch / PyG 2.8.1."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

from arraygnn.kernels.cpu.edge_contraction import torch_sort_desc
from arraygnn.nn import EdgePooling, PANConv, PANPooling
from arraygnn.nn.edge_pool import contract_edges

warnings.filterwarnings("ignore", category=UserWarning)


# ---- contract_edges: what reaches the Numba kernel is checked first ----------------------


@pytest.mark.parametrize("bad", [[[0, 5], [1, 2]], [[0, 1], [1, 3]], [[0, -1], [1, 2]]])
def test_contract_edges_rejects_out_of_range_ids(bad):
    with pytest.raises(ValueError, match=r"contract_edges: edge_index"):
        contract_edges(np.array(bad), np.array([1.0, 2.0]), 3)


@pytest.mark.parametrize("score", [np.arange(5.0), np.arange(1.0), np.ones((2, 1))])
def test_contract_edges_rejects_a_score_per_edge_mismatch(score):
    with pytest.raises(ValueError, match=r"contract_edges: edge_score must have shape \(2,\)"):
        contract_edges(np.array([[0, 1], [1, 2]]), score, 3)


def test_contract_edges_rejects_bad_edge_index_and_num_nodes():
    with pytest.raises(TypeError, match="contract_edges: edge_index"):
        contract_edges(np.array([[0.0, 1.0], [1.0, 2.0]]), np.ones(2), 3)
    with pytest.raises(ValueError, match=r"contract_edges: edge_index must have shape \[2, E\]"):
        contract_edges(np.array([0, 1]), np.ones(2), 3)
    with pytest.raises((TypeError, ValueError), match="contract_edges: num_nodes"):
        contract_edges(np.array([[0, 1], [1, 2]]), np.ones(2), -1)


def test_edge_pooling_custom_score_of_wrong_length_names_the_layer():
    pool = EdgePooling(2, edge_score_method=lambda raw, ei, n: raw[:1], rng=0)
    x = np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match=r"EdgePooling: edge_score"):
        pool(x, np.array([[0, 1], [1, 2]]))


def test_edge_pooling_float16_matches_pyg():
    """A float16 layer (PyG's ``.half()``): the scores are float16; PyTorch sorts them by
    value, here they go to the replay as float32 (exact, same order)."""
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import from_pyg

    torch.manual_seed(0)
    ref = pyg_nn.EdgePooling(3, edge_score_method=pyg_nn.EdgePooling.compute_edge_score_tanh)
    ref = ref.half().eval()
    ours = from_pyg(ref)
    assert ours.lin.weight.dtype == np.float16
    rng = np.random.default_rng(0)
    n = 40
    ei = rng.integers(0, n, (2, 120))
    x = rng.standard_normal((n, 3)).astype(np.float16)
    batch = np.zeros(n, np.int64)
    xt, eit, bt = torch.from_numpy(x), torch.from_numpy(ei), torch.from_numpy(batch)
    exp = ref(xt, eit, bt)
    got = ours(x, ei, batch)  # failed inside Numba (no float16) before
    assert got[0].dtype == np.float16 and got[0].shape == tuple(exp[0].shape)
    # the contraction on PyG's own float16 scores (float16 GEMMs may round differently)
    with torch.no_grad():
        raw = ref.lin(torch.cat([xt[eit[0]], xt[eit[1]]], -1)).view(-1)
        score = ref.compute_edge_score(raw, eit, n) + ref.add_to_edge_score
    assert score.dtype == torch.float16 and len(set(score.tolist())) < score.shape[0]  # ties
    info = ref._merge_edges(xt, eit, bt, score)[3]
    cluster, _, size = contract_edges(ei, score.numpy(), n)
    np.testing.assert_array_equal(cluster, info.cluster.numpy())
    assert size == int(info.cluster.max()) + 1


# ---- PANConv.met_matrix / PANPooling -----------------------------------------------------


def test_met_matrix_rejects_out_of_range_ids():
    conv = PANConv(3, 2, 2, rng=0)
    with pytest.raises(ValueError, match="PANConv.met_matrix: edge_index"):
        conv.met_matrix(np.array([[0, 7], [1, 2]]), 3, np.float32)
    with pytest.raises(ValueError, match="PANConv.met_matrix: edge_index"):
        conv.met_matrix(np.array([[0, 1], [1, 7]]), 3, np.float32)
    with pytest.raises(TypeError, match="PANConv.met_matrix: edge_index"):
        conv.met_matrix(np.array([[0.0, 1.0], [1.0, 2.0]]), 3, np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, "float64"])
def test_met_matrix_accepts_a_dtype_type(dtype):
    conv = PANConv(3, 2, 2, rng=0)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    m = conv.met_matrix(ei, 3, dtype)
    ref = conv.met_matrix(ei, 3, np.dtype(dtype))
    assert m.value.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(m.value, ref.value)


@pytest.mark.parametrize("which", [0, 1])
def test_pan_pooling_out_of_range_met_ids_name_the_layer(which):
    pool = PANPooling(3, rng=0)
    ids = [np.array([0, 1]), np.array([0, 1])]
    ids[which] = np.array([0, 9])
    with pytest.raises(ValueError, match=r"PANPooling: M's (row|col)"):
        pool(np.ones((3, 3), np.float32), (ids[0], ids[1], np.ones(2, np.float32)))


# ---- the heap-sort stage of the argsort replay --------------------------------------------


def _introsort_ids(n, before, heaps):
    """libstdc++'s introsort over element ids with a caller's comparator (for the adversary
    only: records the ranges that reach the heap-sort fallback)."""
    a = list(range(n))
    order = functools.cmp_to_key(lambda p, q: -1 if before(p, q) else int(before(q, p)))

    def swap(i, j):
        a[i], a[j] = a[j], a[i]

    def partition(first, last):
        x, y, z = first + 1, first + (last - first) // 2, last - 1
        if before(a[x], a[y]):
            swap(first, y if before(a[y], a[z]) else (z if before(a[x], a[z]) else x))
        elif before(a[x], a[z]):
            swap(first, x)
        else:
            swap(first, z if before(a[y], a[z]) else y)
        lo, hi = first + 1, last
        while True:
            while before(a[lo], a[first]):
                lo += 1
            hi -= 1
            while before(a[first], a[hi]):
                hi -= 1
            if not lo < hi:
                return lo
            swap(lo, hi)
            lo += 1

    def loop(first, last, limit):
        while last - first > 16:
            if limit == 0:
                heaps.append((first, last))
                a[first:last] = sorted(a[first:last], key=order)
                return
            limit -= 1
            cut = partition(first, last)
            loop(cut, last, limit)
            last = cut

    loop(0, n, 2 * (n.bit_length() - 1))


def _quicksort_killer(n):
    """McIlroy's adversary: values fixed lazily so that every median-of-three pivot is
    nearly the smallest, which drives introsort to its depth limit (heap sort)."""
    gas = n
    val, state, heaps = [gas] * n, {"solid": 0, "cand": 0}, []

    def freeze(i):
        val[i] = state["solid"]
        state["solid"] += 1

    def before(x, y):
        if val[x] == gas and val[y] == gas:
            freeze(x if x == state["cand"] else y)
        if val[x] == gas:
            state["cand"] = x
        elif val[y] == gas:
            state["cand"] = y
        return val[x] < val[y]

    _introsort_ids(n, before, heaps)
    for i in range(n):
        if val[i] == gas:
            freeze(i)
    return -np.array(val, dtype=np.float64), heaps  # descending order = ascending val


@pytest.mark.parametrize("n", [100, 1000, 3000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sort_replay_matches_torch_through_the_heap_sort_stage(n, dtype):
    torch = pytest.importorskip("torch")
    values, heaps = _quicksort_killer(n)
    assert heaps and heaps[0][1] - heaps[0][0] > 16  # the fallback is reached
    for v in (values, np.floor(values / 3), np.floor(values / 7) % 5):  # ties in the heap
        v = np.ascontiguousarray(v.astype(dtype))
        expected = torch.argsort(torch.from_numpy(v), descending=True).numpy()
        np.testing.assert_array_equal(torch_sort_desc(v), expected)


def test_sort_replay_float16_through_contract_edges_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    score = np.where(rng.random(300) < 0.05, np.nan, rng.integers(0, 4, 300)).astype(np.float16)
    ei = rng.integers(0, 50, (2, 300))
    order = torch.argsort(torch.from_numpy(score), descending=True).numpy()
    free, cluster, k = np.ones(50, bool), np.empty(50, np.int64), 0
    for e in order:  # PyG's loop on torch's order
        s, t = ei[:, e]
        if free[s] and free[t]:
            cluster[[s, t]] = k
            free[[s, t]] = False
            k += 1
    cluster[free] = np.arange(k, k + free.sum())
    got, _, _ = contract_edges(ei, score, 50)
    np.testing.assert_array_equal(got, cluster)


# ---- graclus ------------------------------------------------------------------------------


@pytest.mark.parametrize("num_nodes", [3.5, "4", -1, True])
def test_graclus_rejects_a_bad_num_nodes(num_nodes):
    from arraygnn.nn import graclus

    with pytest.raises((TypeError, ValueError), match="graclus: num_nodes"):
        graclus(np.array([[0, 1], [1, 0]]), num_nodes=num_nodes, seed=0)


# ---- EdgePooling with a custom score method -----------------------------------------------


@pytest.mark.parametrize("kind", ["int64", "bool"])
def test_edge_pooling_integer_scores_match_pyg(kind):
    """A custom method returning integers / booleans: PyG adds ``add_to_edge_score`` in
    floating point (``long + 0.5`` is float32), so the 0.5 is not truncated away."""
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")

    def ref_method(raw, edge_index, num_nodes):
        return (raw > 0).to(getattr(torch, kind))

    def our_method(raw, edge_index, num_nodes):
        return (raw > 0).astype(kind)

    torch.manual_seed(4)
    ref = pyg_nn.EdgePooling(3, edge_score_method=ref_method).eval()
    ours = EdgePooling(3, edge_score_method=our_method)
    ours.lin.weight = ref.lin.weight.detach().numpy().copy()
    ours.lin.bias = ref.lin.bias.detach().numpy().copy()
    rng = np.random.default_rng(4)
    n = 30
    ei = rng.integers(0, n, (2, 80))
    x = rng.standard_normal((n, 3)).astype(np.float32)
    batch = np.zeros(n, np.int64)
    exp = ref(torch.from_numpy(x), torch.from_numpy(ei), torch.from_numpy(batch))
    got = ours(x, ei, batch)
    np.testing.assert_array_equal(got[3].cluster, exp[3].cluster.numpy())
    np.testing.assert_allclose(got[3].new_edge_score, exp[3].new_edge_score.numpy())
    np.testing.assert_allclose(got[0], exp[0].detach().numpy(), rtol=1e-6)
    np.testing.assert_array_equal(got[1], exp[1].numpy())


# ---- the CuPy code paths, run on NumPy under CuPy's rules ---------------------------------


def _cupy_like_numpy():
    """NumPy's functions as a separate namespace (so ``xp is np`` is false and the CuPy
    branches run) with CuPy's ``repeat``, which refuses an array of counts."""
    import types

    ns = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})

    def repeat(a, repeats, axis=None):
        if isinstance(repeats, np.ndarray):
            raise ValueError("cupy.ndarray cannot be specified as `repeats` argument.")
        return np.repeat(a, repeats, axis)

    ns.repeat = repeat
    return ns


def _random_csr(rng, rows, cols, density):
    row, col = np.nonzero(rng.random((rows, cols)) < density)
    ptr = np.zeros(rows + 1, np.int64)
    ptr[1:] = np.cumsum(np.bincount(row, minlength=rows))
    return ptr, col.astype(np.int64), rng.integers(-2, 3, row.shape[0]).astype(np.float64)


def test_torch_spgemm_cupy_path_matches_torch(monkeypatch):
    torch = pytest.importorskip("torch")
    import arraygnn.nn._pool_input as pool_input

    fake = _cupy_like_numpy()
    monkeypatch.setattr(pool_input, "get_namespace", lambda *arrays: fake)
    rng = np.random.default_rng(0)
    for _ in range(60):
        r, m, c = (int(v) for v in rng.integers(0, 7, 3))
        a = _random_csr(rng, r, m, rng.random())
        b = _random_csr(rng, m, c, rng.random())
        got = pool_input.torch_spgemm(a, b, r, c)  # values cancel to 0 now and then
        ta, tb = (
            torch.sparse_csr_tensor(*(torch.from_numpy(v) for v in mat), size=size)
            for mat, size in ((a, (r, m)), (b, (m, c)))
        )
        exp = ta @ tb
        np.testing.assert_array_equal(got[0], exp.crow_indices().numpy())
        np.testing.assert_array_equal(got[1], exp.col_indices().numpy())
        np.testing.assert_array_equal(got[2], exp.values().numpy())


def test_asap_cupy_path_matches_pyg(monkeypatch):
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    import arraygnn.nn._pool_input as pool_input
    import arraygnn.nn.asap_pool as asap_pool
    from arraygnn.nn import from_pyg

    torch.manual_seed(2)
    ref = pyg_nn.ASAPooling(4, 0.5).eval()
    ours = from_pyg(ref)
    rng = np.random.default_rng(2)
    n = 20
    ei = rng.integers(0, n, (2, 60))
    x = rng.standard_normal((n, 4)).astype(np.float32)
    w = rng.random(60).astype(np.float32)
    batch = np.repeat(np.arange(2), 10)
    exp = ref(*(torch.from_numpy(a) for a in (x, ei, w, batch)))
    fake = _cupy_like_numpy()
    monkeypatch.setattr(pool_input, "get_namespace", lambda *arrays: fake)
    monkeypatch.setattr(asap_pool, "get_namespace", lambda *arrays: fake)
    got = ours(x, ei, w, batch)
    np.testing.assert_allclose(got[0], exp[0].detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got[1], exp[1].numpy())
    np.testing.assert_allclose(got[2], exp[2].detach().numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(got[4], exp[4].numpy())


def test_pan_conv_cupy_path_matches_numpy_path(monkeypatch):
    import arraygnn.nn._pool_input as pool_input
    import arraygnn.nn.pan as pan

    conv = PANConv(3, 2, 3, rng=0)
    rng = np.random.default_rng(5)
    ei = rng.integers(0, 12, (2, 40))  # multi-edges and self-loops
    x = rng.standard_normal((12, 3)).astype(np.float32)
    exp_out, exp_m = conv(x, ei)
    fake = _cupy_like_numpy()
    monkeypatch.setattr(pool_input, "get_namespace", lambda *arrays: fake)
    monkeypatch.setattr(pan, "get_namespace", lambda *arrays: fake)
    out, m = conv(x, ei)
    np.testing.assert_allclose(out, exp_out, rtol=1e-6, atol=1e-7)
    for a, b in zip(m.coo(), exp_m.coo()):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_asap_float16_runs_close_to_float32():
    """PyG's CPU sparse product has no float16 (it fails); here the Numba product takes
    float16 through float32 instead of failing inside Numba."""
    from arraygnn.nn import ASAPooling

    pool = ASAPooling(3, 0.5, rng=0)
    half = ASAPooling(3, 0.5, rng=0, dtype=np.float16)
    rng = np.random.default_rng(0)
    n = 16
    ei = rng.integers(0, n, (2, 40))
    x = rng.standard_normal((n, 3)).astype(np.float32)
    w = rng.random(40).astype(np.float32)
    exp = pool(x, ei, w)
    got = half(x.astype(np.float16), ei, w.astype(np.float16))
    assert got[0].dtype == np.float16 and got[2].dtype == np.float16
    np.testing.assert_array_equal(got[4], exp[4])
    np.testing.assert_array_equal(got[1], exp[1])
    np.testing.assert_allclose(got[0], exp[0], rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(got[2], exp[2], rtol=2e-2, atol=2e-2)


# ---- max_pool / avg_pool: a Data whose fields disagree ------------------------------------


def _data(**extra):
    from arraygnn import Data

    fields = {"x": np.ones((3, 1)), "edge_index": np.array([[0, 1], [1, 2]])}
    fields.update(extra)
    return Data(**fields)


@pytest.mark.parametrize("fn", ["max_pool", "avg_pool"])
@pytest.mark.parametrize(
    "extra, what",
    [
        ({"batch": np.array([0, 0])}, "batch"),
        ({"batch": np.zeros(3)}, "batch"),
        ({"pos": np.ones((2, 3))}, "pos"),
        ({"edge_attr": np.ones(5)}, "edge_attr"),
        ({"x": np.ones((2, 1)), "num_nodes": 3}, "x"),
    ],
)
def test_pool_names_the_function_and_the_field(fn, extra, what):
    import arraygnn.nn as nn

    with pytest.raises((TypeError, ValueError), match=rf"{fn}: (data\.)?{what}"):
        getattr(nn, fn)(np.array([0, 0, 1]), _data(**extra))


@pytest.mark.parametrize("fn", ["max_pool_neighbor_x", "avg_pool_neighbor_x"])
def test_pool_neighbor_x_names_a_short_x(fn):
    import arraygnn.nn as nn

    with pytest.raises(ValueError, match=rf"{fn}: (data\.)?x"):
        getattr(nn, fn)(_data(x=np.ones((2, 1)), num_nodes=3))
