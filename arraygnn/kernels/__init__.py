"""Private kernels on raw arrays. Users call :mod:`arraygnn.ops`, never these.

Three implementations share ONE list of modules, function names and argument lists:

- ``arraygnn.kernels.reference``  plain NumPy/CuPy array code (the oracle and the fallback)
- ``arraygnn.kernels.cpu.<module>``  Numba ``@njit`` kernels (NumPy arrays)
- ``arraygnn.kernels.cuda.<module>``  Numba ``@cuda.jit`` launchers (CuPy arrays)

Kernel contract (the public op has validated everything; kernels never bounds-check).
"idx" means int32 or int64 (one dtype for all index arrays of a call); "val" a float
dtype (float32/float64; float16 on CPU is upcast to float32 by the op, on CUDA the kernel
accumulates float16 in float32). ``reduce`` is one of "sum", "mean", "max", "min", "prod";
an empty row gives 0 for every reduction; "mean" divides the row sum by its degree.
Every function fills ``out`` (allocated by the caller, C-contiguous) and returns it.

gather.gather_rows(x, index, out)
    x [N, F] val, index [E] idx, out [E, F]:  out[i] = x[index[i]]

gather.add_rows(out, index, values)
    out [N, F] val, index [n] idx with DISTINCT entries, values [n, F] (out's dtype):
    out[index[i]] += values[i] (each row touched once: deterministic, no atomics). Optional
    on CUDA (CuPy: reference).

gather_mm.gather_mm_rows(a, b, index, out)
    a [N, K] val, b [R, K, M] val, index [N] idx, out [N, M]:  out[i, m] = sum over k
    ascending of a[i, k] * b[index[i], k, m], each product rounded before it is added (CUDA:
    mul.rn, never an FMA); float16 on CUDA summed in float32

segment.segment_csr(indptr, perm, x, out, reduce)
    indptr [R+1] idx, perm [nnz] idx or None, x [M, H, F] val, out [R, H, F]:
    out[r, h, f] = reduce over j in [indptr[r], indptr[r+1]) of x[perm[j] (or j), h, f]

spmm.spmm_csr(indptr, indices, perm, x, weight, out, reduce)
    indptr [R+1] idx, indices [nnz] idx (source node of each CSR slot), perm [nnz] idx
    (edge id of each CSR slot) or None (slot j is edge j), x [N, Hx, F] val with Hx in
    (1, H), weight [E, Hw] val with Hw in (1, H) or None, out [R, H, F]:
    out[r, h, f] = reduce over slots j of row r of weight[perm[j], h] * x[indices[j], h, f]
    (size-1 head dims broadcast; no [E, F] message array is ever formed)

sddmm.sddmm_coo(src, dst, lhs, rhs, out, op, lhs_target, rhs_target)
    src, dst [E] idx; lhs [R_l, G_l, K_l], rhs [R_r, G_r, K_r] val with G_* in (1, G),
    K_* in (1, K); op in add/sub/mul/div/dot/copy_lhs/copy_rhs; targets in "u", "v", "e"
    (row = src[e], dst[e] or e); out [E, G, K] (K = 1 for dot, which sums over the
    depth max(K_l, K_r)):  out[e, g, k] = op(lhs[row_l(e), g, k], rhs[row_r(e), g, k])

sddmm.sddmm_csr(indptr, indices, perm, lhs, rhs, out, op, lhs_target, rhs_target)
    sddmm_coo's values over a CSR's slots: targets "u" (row indices[j]) and "v" (the
    slot's row r) only; out [E, G, K] row perm[j] for slot j, or row j when perm is None
    (slot order)

typed.typed_spmm_csr(indptr, indices, rel, weight, x, blocks, out, reduce)
    indptr [R+1] idx, indices [nnz] idx, rel [nnz] idx (the type of each slot; a row's
    slots of one type are contiguous), weight [nnz] val (slot order) or None, x [N, F] val,
    blocks [T, B, si, so] val (F = B * si) or None, out [R, O] (O = B * so, or F):
    out[d] = sum over the type runs of row d of (reduce over the run of weight[j] *
    x[indices[j]]) @ blockdiag(blocks[type]) (None: the reduced run itself); no [nnz, F]
    or [runs, O] array (the relational GCN). CPU only (CuPy: reference).

edge_softmax.edge_softmax_csr(indptr, perm, logits, out)
    indptr [R+1] idx, perm [E] idx (edge id of each CSR slot) or None (logits and out in
    slot order), logits [E, H] val, out [E, H]: softmax of logits over the edges of each
    row (max-subtracted)

gatv2.gatv2_scores_csr(indptr, indices, perm, h_src, h_dst, att, edge_attr, w_edge,
                      negative_slope, out)
    h_src [N_src, H, F], h_dst [R, H, F], att [H, F], edge_attr [E, D] (edge order, D may
    be 0), w_edge [D, H, F], out [E, H] in slot order, all one float dtype (float16
    summed in float32 on CUDA; the op passes float32 for it):
    out[j, h] = sum_f att[h, f] * LeakyReLU(h_src[indices[j], h, f] + h_dst[r, h, f]
    + sum_d edge_attr[e, d] * w_edge[d, h, f]) for slot j of row r, e = perm[j] (j when
    perm is None); no [E, H, F] array

scatter.scatter_coo(index, x, out, reduce)
    index [E] idx (entries in [0, R)), x [E, H, F] val, out [R, H, F]:
    out[r] = reduce over edges e with index[e] == r of x[e]. CPU: deterministic, each row
    folded in edge order (a sorted index goes to segment_csr; otherwise an owner streams
    the edges, or cache-sized tiles of rows fold their edges). CUDA uses
    atomics here (sum / mean / max / min, float32 / float64 only): the op calls it on CuPy
    arrays only under config(deterministic=False) (otherwise csr_from_keys + segment_csr).

csr.csr_from_keys(keys, indptr, perm)
    keys [E] idx in [0, R), indptr [R+1] idx, perm [E] idx (all one dtype): fill indptr
    with the prefix-summed key counts and perm with a STABLE sort permutation of keys.
    Optional on CUDA: without arraygnn.kernels.cuda.csr the op uses the reference
    (bincount + cumsum + stable argsort, CuPy functions).

csr.small_csr(src, dst, indptr, indices, perm, src_out, dst_out) -> 1 / 0
    src, dst [E] idx (validated), indptr [R+1], indices, perm, src_out, dst_out [E] (one
    idx dtype): the whole CSR of a small edge list in one serial call (csr_from_keys'
    stable sort, indices = src[perm], copies of src / dst); 1 when dst was already sorted
    (perm is the identity). CPU only; ``to_csr`` calls it when edges + targets are at most
    ``SMALL_CSR_WORK`` (int32: and the source count fits int32).

gcn_norm.gcn_slot_weights(indptr, indices, perm, weight, inv, out)
    a square CSR, weight [E] val (edge order), inv [R] val, out [E] (slot order):
    out[j] = inv[indices[j]] * weight[perm[j] (or j)] * inv[r] for slot j of row r (the
    GCN normalisation; deg by segment_csr's sum, inv = 1 / sqrt(deg) by NumPy). CPU only, float32 /
    float64 (CuPy and float16: array code).

bounds.index_bounds(a) -> (min, max)
    a [n > 0] idx (any layout): its smallest and largest entry in one pass (the ops'
    validation, ``arraygnn.ops._common.index_bounds``). CPU only (CuPy: min() / max()).

pairs.pair_runs(order, src, dst, mapping, first, counts) -> K
    order [E] idx: the edges sorted by (src [E], dst [E]), parallel edges by id (two stable
    counting sorts); mapping, first, counts [E] idx. Numbers the runs of equal (src, dst)
    along order 0..K-1: mapping[e] = run of edge e, first[k] = its first edge, counts[k] =
    its edge count (first / counts valid up to K). CPU only (CuPy: reference).

sampling.sample_without_replacement(indptr, perm, seeds, fanout, seed) -> edge ids
    min(fanout, deg) uniformly drawn in-edges per seed of a destination CSR, sorted; CPU
    only and random (checked by distribution tests, not against a reference; on CuPy
    ``arraygnn.sampling`` ranks random keys with CuPy functions instead).
sampling.sample_slots(indptr, seeds, fanout, seed) -> (slots, counts)
    the same draws as CSR slots grouped by seed in seed order (a seed taken whole in slot
    order, a sampled one in draw order: pyg-lib's order, for the neighbour loaders).

A missing module on either device makes the op fall back to ``reference`` (same name).

Index arrays of one call share a dtype (the CSR keeps the edge_index dtype), so each
kernel compiles once per (value dtype, index dtype) and never for mixed index dtypes.
Importing this package imports neither Numba nor CuPy.
"""

__all__: list[str] = []
