"""Typed SpMM: per-type neighbour aggregation times per-type weights, in one pass.

For a CSR whose rows hold their slots grouped by type (``rel`` in slot order, equal
types contiguous within a row; :func:`arraygnn.nn.relation_groups.relation_csr` builds one):

``out[d] = sum over the type runs g of row d of (reduce over g of w[j] x[indices[j]]) @ W[type(g)]``

with ``W[t]`` dense or block-diagonal (``blocks`` ``[T, B, in/B, out/B]``), or no weight at
all (``blocks=None``: the reduced runs are summed). The relational GCN (PyG's
``RGCNConv``, DGL's ``RelGraphConv``) is exactly this with ``reduce`` the per-relation
aggregation. The CPU kernel forms no ``[E, F]`` messages and no ``[groups, F]`` or
``[groups, out]`` arrays; each output row is written once by one worker (deterministic).
On CuPy the plain-array reference runs (it forms those arrays; the RGCN layers use their
grouped-rows path on a GPU instead).

>>> import numpy as np
>>> from arraygnn import ops
>>> csr = ops.to_csr(np.array([[0, 1, 2], [0, 0, 0]]), 3, 1)   # three edges into node 0
>>> rel = np.array([0, 0, 1])                                   # types of the slots
>>> blocks = np.array([[[[1.0]]], [[[10.0]]]])                  # W[0] = 1, W[1] = 10
>>> typed_spmm(csr, rel, np.array([[1.0], [2.0], [3.0]]), blocks, "mean").tolist()
[[31.5]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.ops._common import (
    check_index,
    check_reduce,
    check_values,
    kernel_function,
    kernel_index,
    namespace,
)
from arraygnn.ops.csr import CSR

__all__ = ["typed_spmm"]


def typed_spmm(
    csr: CSR,
    rel: Any,
    x: Any,
    blocks: Any = None,
    reduce: str = "sum",
    weight: Any = None,
) -> Any:
    """See the module docstring. ``rel`` [nnz] and ``weight`` [nnz] (or None) are in
    ``csr``'s slot order; ``x`` [N_src, F]; ``blocks`` [T, B, si, so] with ``B * si == F``
    (or None); ``reduce`` ``'sum'``, ``'mean'``, ``'max'``, ``'min'``, ``'prod'`` per run
    (an empty row gives 0). Result ``[N_dst, B * so]`` (``[N_dst, F]`` without blocks) in
    NumPy's promotion of the value dtypes (float16 computed in float32)."""
    if not isinstance(csr, CSR):
        raise TypeError(f"typed_spmm needs a CSR (ops.to_csr), got {type(csr).__name__}")
    check_values("x", x)
    xp = namespace(x=x, rel=rel, blocks=blocks, weight=weight, indptr=csr.indptr)
    reduce = check_reduce(reduce)
    nnz = csr.num_edges
    if x.ndim != 2 or int(x.shape[0]) != csr.num_src_nodes:
        raise ValueError(
            f"typed_spmm: x must be [{csr.num_src_nodes}, F] (the CSR's sources), got "
            f"{tuple(x.shape)}"
        )
    feats = int(x.shape[1])
    num_types = None
    dtypes = [x.dtype]
    if blocks is not None:
        check_values("blocks", blocks)
        if blocks.ndim != 4 or int(blocks.shape[1] * blocks.shape[2]) != feats:
            raise ValueError(
                f"typed_spmm: blocks must be [T, B, F / B, out / B] with F = {feats}, got "
                f"{tuple(blocks.shape)}"
            )
        num_types = int(blocks.shape[0])
        dtypes.append(blocks.dtype)
    check_index("rel", rel, num_types)
    if int(rel.shape[0]) != nnz:
        raise ValueError(f"typed_spmm: rel has {rel.shape[0]} entries but the CSR {nnz} slots")
    if weight is not None:
        check_values("weight", weight)
        if tuple(weight.shape) != (nnz,):
            raise ValueError(f"typed_spmm: weight must have shape ({nnz},), got {weight.shape}")
        dtypes.append(weight.dtype)
    dtype = np.result_type(*dtypes)
    if dtype.kind != "f":
        raise TypeError(f"typed_spmm: values must be floating point, got {dtype}")
    work = np.dtype(np.float32) if dtype == np.float16 else dtype
    width = feats if blocks is None else int(blocks.shape[1] * blocks.shape[3])
    out = xp.empty((csr.num_dst_nodes, width), dtype=work)
    if out.size == 0:
        return out.astype(dtype, copy=False)
    idx = csr.indptr.dtype
    on_kernel = work in (np.dtype(np.float32), np.dtype(np.float64))  # else: the reference
    kernel = kernel_function(xp, "typed", "typed_spmm_csr", on_kernel)
    kernel(
        csr.indptr,
        kernel_index(xp, csr.indices).astype(idx, copy=False),
        xp.ascontiguousarray(rel).astype(idx, copy=False),
        None if weight is None else xp.ascontiguousarray(weight, dtype=work),
        xp.ascontiguousarray(x, dtype=work),
        None if blocks is None else xp.ascontiguousarray(blocks, dtype=work),
        out,
        reduce,
    )
    return out.astype(dtype, copy=False)
