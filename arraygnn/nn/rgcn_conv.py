"""Relational GCN (Schlichtkrull et al.): PyG's ``RGCNConv`` / ``FastRGCNConv`` and DGL's
``RelGraphConv``.

``h_i' = root(h_i) + b + sum_r W_r aggr_{j in N_r(i)} c_ij h_j``

One pass over the edges serves every relation: the edges are counting-sorted by
(relation, target) into one CSR whose rows are the (relation, target) pairs that occur
(``K <= E`` rows, never ``R x N``); one fused SpMM aggregates all rows, and each relation's
rows go through its weight in one product, added onto their targets. PyG instead masks
the edge list once per relation and runs ``R`` aggregations over all ``N`` targets and
``R`` products of ``[N, in] x [in, out]``.

Aggregating before the weight is what both libraries compute (PyG aggregates ``x_j`` and
then multiplies; DGL's per-edge ``W_r x_j`` is linear, so it sums to the same), and it
is the only order that is right for ``'max'`` / ``'min'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.nn._graph_input import is_graph, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size, probability
from arraygnn.nn.linear import (
    LayerNorm,
    _check_features,
    _rng,
    add_bias,
    get_activation,
    glorot,
    matmul,
)
from arraygnn.nn.relation_groups import (
    RelationGroups,
    RelationRows,
    _check_edge_type,
    relation_csr,
    relation_rows,
)
from arraygnn.ops._common import check_index

__all__ = ["RGCNConv", "RelGraphConv", "TypedLinear", "relation_rows", "RelationRows"]


#: the fused typed SpMM serves weights of at most this many entries per relation (per
#: block): they stay in L1 and the per-group product is cheap next to the neighbour reads.
#: Larger weights take the grouped rows + BLAS path. Measured on the 2-core box, one layer,
#: 1M nodes / 5M edges / 16 relations (fused vs grouped rows, ms): 16x4 529 / 676,
#: 64x7 967 / 1080, 32x64 1239 / 1565, 64x64 2076 / 1519, 128x128 4896 / 4122
FUSED_MAX_WEIGHTS = 2048
#: False: always the grouped rows path (tests run both paths on the same cases)
FUSED = True


def _fused_fits(xp: Any, weight: Any, blocks: Any) -> bool:
    if not FUSED or xp is not np:
        return False  # CuPy: the grouped rows use the CUDA SpMM and cuBLAS
    coef = weight if weight is not None else blocks
    if coef is None:
        return True
    return coef.shape[-2] * coef.shape[-1] <= FUSED_MAX_WEIGHTS


def _block_product(h: Any, blocks: Any) -> Any:
    """``[K, B * si] x block-diag([B, si, so]) -> [K, B * so]``."""
    num_blocks, si, so = blocks.shape
    k = h.shape[0]
    xp = get_namespace(h)
    out = xp.matmul(h.reshape(k, num_blocks, si).transpose(1, 0, 2), blocks)  # [B, K, so]
    return out.transpose(1, 0, 2).reshape(k, num_blocks * so)


#: rows of aggregated features held at once: the [K, F] aggregate of a big graph is built
#: and consumed in pieces of about this many bytes (PyG holds one [N, F] per relation)
CHUNK_BYTES = 32 * 2**20


def _row_range(csr: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of ``csr`` as a CSR of their own whose edges are its slots."""
    from arraygnn.ops.csr import CSR

    xp = get_namespace(csr.indptr)
    first, last = int(csr.indptr[start]), int(csr.indptr[stop])
    indptr = csr.indptr[start : stop + 1] - csr.indptr[start]
    indices = csr.indices[first:last]
    slots = xp.arange(last - first, dtype=indptr.dtype)
    rows = repeat_counts(xp, xp.arange(stop - start, dtype=indptr.dtype), xp.diff(indptr))
    return CSR._trusted(
        indptr, indices, slots, indices, rows, csr.num_src_nodes, stop - start, True
    )


def relational_propagate(
    rows: RelationRows,
    table: Any,
    reduce: str,
    edge_weight: Any,
    num_dst: int,
    out_feats: int,
    weight: Any = None,
    blocks: Any = None,
    chunk_bytes: int | None = None,
) -> Any:
    """``sum_r W_r aggr_{edges of r into i}(w_e table[col_e])`` for every target ``i``.

    ``weight`` ``[R, in, out]`` (or ``blocks`` ``[R, B, si, so]``) multiplies each
    relation's aggregated rows; with neither, ``table``'s rows are already outputs (the
    featureless RGCN: rows of the stacked weights). Relations are added in id order. The
    ``[K, F]`` aggregate is made ``chunk_bytes`` (default :data:`CHUNK_BYTES`) at a time
    (rows are relation-major, so a chunk is a run of whole or partial relations).
    """
    from arraygnn.ops.gather import add_rows
    from arraygnn.ops.slot_order import spmm_slots, to_slot_order

    csr = rows.csr
    coef = weight if weight is not None else blocks
    dtypes = [table.dtype] + [a.dtype for a in (edge_weight, coef) if a is not None]
    dtype = np.result_type(*dtypes)
    xp = get_namespace(table)
    out = xp.zeros((num_dst, out_feats), dtype=dtype)
    num_rows = csr.num_dst_nodes
    if num_rows == 0:
        return out
    w_slots = to_slot_order(csr, edge_weight)
    row_bytes = max(int(np.prod(table.shape[1:])) * np.dtype(dtype).itemsize, 1)
    step = max(1, int(CHUNK_BYTES if chunk_bytes is None else chunk_bytes) // row_bytes)
    rel_ptr = rows.rel_ptr
    present = np.flatnonzero(rel_ptr[1:] > rel_ptr[:-1])  # relations that have rows
    ends = rel_ptr[present + 1]
    for start in range(0, num_rows, step):
        stop = min(num_rows, start + step)
        if start == 0 and stop == num_rows:
            agg = spmm_slots(csr, table, w_slots, reduce)
        else:
            first, last = int(csr.indptr[start]), int(csr.indptr[stop])
            chunk_w = None if w_slots is None else w_slots[first:last]
            agg = spmm_slots(_row_range(csr, start, stop), table, chunk_w, reduce)
        for r in present[int(np.searchsorted(ends, start, side="right")) :]:
            a, b = max(int(rel_ptr[r]), start), min(int(rel_ptr[r + 1]), stop)
            if a >= stop:
                break
            h = agg[a - start : b - start]
            if weight is not None:
                h = matmul(h, weight[r])
            elif blocks is not None:
                h = _block_product(h, blocks[r])
            add_rows(out, rows.row_dst[a:b], h)  # one row per target within a relation
    return out


_PYG_AGGR = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


def _check_decomposition(layer: str, num_bases: Any, num_blocks: Any) -> tuple[Any, Any]:
    if num_bases is not None and num_blocks is not None:
        raise ValueError(
            f"{layer}: num_bases and num_blocks cannot both be set (basis or block-diagonal "
            "decomposition, not both)"
        )
    if num_bases is not None:
        num_bases = layer_size(layer, "num_bases", num_bases, minimum=1)
    if num_blocks is not None:
        num_blocks = layer_size(layer, "num_blocks", num_blocks, minimum=1)
    return num_bases, num_blocks


class _RelationalBase(Module):
    """Weights and the forward pass shared by :class:`RGCNConv` and :class:`RelGraphConv`.

    Subclasses provide ``_relation_weights()`` -> ``(weight [R, in, out] | None, blocks
    [R, B, si, so] | None)`` and add their root / self-loop term and bias to ``_forward``'s
    sum.
    """

    _layer = "RGCNConv"
    num_relations: int
    in_src: int
    in_dst: int
    out_feats: int

    def _relation_weights(self) -> tuple[Any, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _forward(
        self,
        first: Any,
        second: Any,
        edge_type: Any,
        reduce: str,
        edge_weight: Any,
    ) -> tuple[Any, Any]:
        """``(aggregated relations [N_dst, out], x_dst or node ids of the targets)``."""
        layer = self._layer
        graph_form = is_graph(first)
        groups = _relation_groups(layer, first, second, edge_type, self.num_relations)
        if groups is not None and not graph_form:
            second = groups.csr  # conv(x, groups): the grouped CSR is the edge list
        if graph_form:  # DGL form: conv(g, feat, etypes); feat may be ids / None
            ids = _graph_node_ids(layer, first, second, self.in_src)
        else:
            ids = _node_ids(layer, first, self.in_src)
        if ids is not None:  # featureless: x is None or node ids
            x_src_ids, x_dst_ids = ids
            # zero-width stand-ins on the edges' device let parse_input check the edges
            edges = first.edges()[0] if graph_form else second
            xp_edges = get_namespace(edges if is_array(edges) else getattr(edges, "src", None))
            placeholder = (
                xp_edges.empty((x_src_ids.shape[0], 0), np.float32),
                xp_edges.empty((x_dst_ids.shape[0], 0), np.float32),
            )
            inp = (
                parse_input(layer, first, placeholder)
                if graph_form
                else parse_input(layer, placeholder, second)
            )
        else:
            inp = parse_input(layer, first, second)
            _check_features(inp.x_src, self.in_src, f"{layer} source features", self._any())
        if groups is None:
            etype = _check_edge_type(layer, edge_type, inp.num_edges, self.num_relations)
        elif groups.num_edges != inp.num_edges:
            raise ValueError(
                f"{layer}: the RelationGroups hold {groups.num_edges} edges but the graph has "
                f"{inp.num_edges}"
            )
        else:
            etype = groups.edge_type
        if edge_weight is not None:
            edge_weight = _check_norm(layer, edge_weight, inp.num_edges)
        weight, blocks = self._relation_weights()
        if ids is not None:
            if blocks is not None:
                raise ValueError(
                    f"{layer}: block-diagonal decomposition needs float node features "
                    "(x is None or node ids)"
                )
            xp = get_namespace(weight)
            x_src_ids = xp.asarray(x_src_ids)
            check_index(f"{layer}: edge_index[0] (sources)", inp.src, inp.num_src)  # before
            # column of edge e: row (r, x[src_e]) of the stacked [R * in, out] weights
            key = xp.asarray(etype).astype(np.int64) * self.in_src + x_src_ids[inp.src]
            table = weight.reshape(self.num_relations * self.in_src, self.out_feats)
            edges = _edges(inp) if groups is None else groups
            grouping = (edges, etype, self.num_relations, inp.num_src, inp.num_dst, key)
            out = _propagate(grouping, table, reduce, edge_weight, self.out_feats, None, None)
            return out, x_dst_ids
        edges = _edges(inp) if groups is None else groups
        grouping = (edges, etype, self.num_relations, inp.num_src, inp.num_dst, None)
        out = _propagate(grouping, inp.x_src, reduce, edge_weight, self.out_feats, weight, blocks)
        return out, inp.x_dst

    def _any(self) -> Any:
        return self._named_arrays()[0][1]


def _edges(inp: Any) -> Any:
    """The edges as the grouping helpers take them: the CSR the caller passed, else the
    edge list (no destination CSR is built just to be regrouped by relation)."""
    return inp.csr if inp.csr is not None else inp.edge_index


def _relation_groups(
    layer: str, first: Any, second: Any, edge_type: Any, num_relations: int
) -> RelationGroups | None:
    """The :class:`RelationGroups` of a ``conv(x, groups)`` / ``conv(g, feat, groups)``
    call, checked against the call, or None for an edge list and ``edge_type``."""
    graph_form = is_graph(first)
    groups = edge_type if graph_form else second
    if not isinstance(groups, RelationGroups):
        if isinstance(edge_type, RelationGroups):
            raise TypeError(f"{layer}: pass RelationGroups in place of edge_index: conv(x, groups)")
        return None
    if not graph_form and edge_type is not None:
        raise TypeError(
            f"{layer}: the RelationGroups hold the edge types; call conv(x, groups) "
            "without edge_type (other arguments by keyword)"
        )
    if groups.num_relations != num_relations:
        raise ValueError(
            f"{layer}: the RelationGroups were built for num_relations="
            f"{groups.num_relations}, the layer has {num_relations}"
        )
    if graph_form and groups.graph is not first:
        raise ValueError(
            f"{layer}: these RelationGroups were not built from this graph; build them "
            "with group_relations(g, etypes, num_rels)"
        )
    return groups


def _propagate(
    grouping: tuple,
    table: Any,
    reduce: str,
    edge_weight: Any,
    out_feats: int,
    weight: Any,
    blocks: Any,
) -> Any:
    """The relational sum, by the fused typed SpMM where the weights fit it, else by the
    grouped rows (:func:`relation_rows` + :func:`relational_propagate`)."""
    from arraygnn import ops
    from arraygnn.ops.typed import typed_spmm

    edges, etype, num_rel, num_src, num_dst, key = grouping
    n_keys = None if key is None else int(table.shape[0])
    groups = edges if isinstance(edges, RelationGroups) else None
    keyed = None if groups is None or key is None else groups.keyed(key, n_keys)
    if _fused_fits(get_namespace(table), weight, blocks):
        if groups is None:
            csr, rel = relation_csr(edges, etype, num_rel, num_src, num_dst, key, n_keys)
        else:
            csr, rel = (groups.csr if keyed is None else keyed), groups.rel
        w = None if edge_weight is None else ops.gather(edge_weight, csr.perm)
        coef = weight[:, None] if weight is not None else blocks  # dense: one block
        return typed_spmm(csr, rel, table, coef, reduce, w)
    if groups is None:
        rows = relation_rows(edges, etype, num_rel, num_src, num_dst, key, n_keys)
    else:
        rows = groups.rows(keyed)
    return relational_propagate(
        rows, table, reduce, edge_weight, num_dst, out_feats, weight, blocks
    )


def _node_ids(layer: str, x: Any, in_src: int) -> tuple[Any, Any] | None:
    """``(source ids, target ids)`` for a featureless call (``x`` None or integer ids, or a
    pair of them), ``None`` for float features."""
    pair = isinstance(x, (tuple, list))
    parts = list(x) if pair else [x, x]
    if pair and len(parts) != 2:
        return None  # parse_input names the problem
    if not all(p is None or (is_array(p) and p.dtype.kind in "iu") for p in parts):
        return None
    ids = []
    for i, p in enumerate(parts):
        if p is None:
            if i == 1 and pair:
                raise ValueError(f"{layer}: x[1] is None; pass target node ids or features")
            p = np.arange(in_src, dtype=np.int64)
        elif p.ndim != 1:
            raise ValueError(
                f"{layer}: node ids (an integer x) must be 1-D, got shape {tuple(p.shape)}"
            )
        ids.append(p)
    src_ids = ids[0]
    if src_ids.shape[0]:
        lo, hi = int(src_ids.min()), int(src_ids.max())
        if lo < 0 or hi >= in_src:
            raise ValueError(
                f"{layer}: node id {lo if lo < 0 else hi} in x is out of range for "
                f"in_channels={in_src}"
            )
    return ids[0], ids[1]


def _graph_node_ids(layer: str, graph: Any, feat: Any, in_src: int) -> tuple[Any, Any] | None:
    """Featureless DGL-form call ``conv(g, None | ids, etypes)``: ``(source ids, target
    ids)`` (``None`` means node ``i`` is id ``i``; a block's targets are its first
    ``num_dst_nodes`` sources), or ``None`` for float features."""
    if feat is not None and not (is_array(feat) and feat.dtype.kind in "iu"):
        return None
    num_src = int(graph.number_of_src_nodes())
    num_dst = int(graph.number_of_dst_nodes())
    src_ids = np.arange(num_src, dtype=np.int64) if feat is None else feat
    if src_ids.ndim != 1 or src_ids.shape[0] != num_src:
        raise ValueError(
            f"{layer}: node ids must be 1-D with one id per source node ({num_src}), got "
            f"shape {tuple(src_ids.shape)}"
        )
    ids = _node_ids(layer, src_ids, in_src)
    assert ids is not None
    if bool(getattr(graph, "is_block", False)) or num_dst != num_src:
        return ids[0], ids[0][:num_dst]
    return ids


def _check_norm(layer: str, norm: Any, num_edges: int) -> Any:
    """DGL's per-edge ``norm`` ``(E,)`` or ``(E, 1)`` as ``(E,)``."""
    if not is_array(norm):
        raise TypeError(f"{layer}: norm must be a NumPy or CuPy array, got {type(norm)}")
    if norm.dtype.kind != "f":
        raise TypeError(f"{layer}: norm must hold floating-point values, got {norm.dtype}")
    if tuple(norm.shape) not in ((num_edges,), (num_edges, 1)):
        raise ValueError(
            f"{layer}: norm must have shape ({num_edges},) or ({num_edges}, 1), "
            f"got {tuple(norm.shape)}"
        )
    return norm.reshape(num_edges)


class RGCNConv(_RelationalBase):
    r"""PyG's relational graph convolution (also its ``FastRGCNConv``: same numbers).

    .. math:: x_i' = \Theta_{root} x_i + b + \sum_r \sum_{j \in N_r(i)}
              \frac{1}{|N_r(i)|} \Theta_r x_j

    Args:
        in_channels: input size, or ``(src, dst)`` sizes. Without features (``x=None``
            or integer node ids) it is the number of nodes (rows of each ``Theta_r``).
        out_channels: output size.
        num_relations: number of relations; ``edge_type`` holds ids in ``[0, R)``.
        num_bases: basis decomposition ``Theta_r = sum_b comp[r, b] weight[b]``.
        num_blocks: block-diagonal decomposition (``in`` and ``out`` divisible by it).
        aggr: ``'mean'`` (default), ``'add'`` / ``'sum'``, ``'max'``, ``'min'``, per
            relation and target; a target without edges of a relation adds 0.
        root_weight: add ``x_i @ root``.
        is_sorted: accepted for PyG compatibility (the grouping needs no sorted input).
        bias: add ``bias``.

    Call as ``conv(x, edge_index, edge_type)``, ``conv((x_src, x_dst), edge_index,
    edge_type)`` or with a DGL-face graph ``conv(g, feat, edge_type)``; ``x`` may be
    ``None`` (node ``i`` has id ``i``) or 1-D integer node ids, as in PyG (messages read
    ``x[j]``; PyG's ``FastRGCNConv`` reads the source position ``j`` instead, which agrees
    only for ``x=None`` / ``arange``).

    Shapes:
        - input: ``(N_src, in)`` (or ids ``(N,)``), edge_type ``(E,)``
        - output: ``(N_dst, out_channels)``

    Parameter names (PyG): ``weight`` ``(R, in, out)`` (``(B, in, out)`` with bases,
    ``(R, B, in / B, out / B)`` with blocks), ``comp`` ``(R, B)``, ``root`` ``(in_dst, out)``,
    ``bias``.

    >>> import numpy as np
    >>> conv = RGCNConv(4, 2, num_relations=3, rng=0)
    >>> x = np.ones((5, 4), np.float32)
    >>> conv(x, np.array([[0, 1, 2], [1, 2, 3]]), np.array([0, 2, 2])).shape
    (5, 2)
    """

    _param_names = ("weight", "comp", "root", "bias")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        num_relations: int,
        num_bases: int | None = None,
        num_blocks: int | None = None,
        aggr: str = "mean",
        root_weight: bool = True,
        is_sorted: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = self._layer = "RGCNConv"
        _, self.in_src, self.in_dst = channels_pair(layer, in_channels)
        self.out_feats = layer_size(layer, "out_channels", out_channels)
        self.num_relations = layer_size(layer, "num_relations", num_relations, minimum=1)
        self.num_bases, self.num_blocks = _check_decomposition(layer, num_bases, num_blocks)
        if aggr not in _PYG_AGGR:
            raise ValueError(f"{layer}: aggr must be one of {sorted(_PYG_AGGR)}, got {aggr!r}")
        self.aggr = _PYG_AGGR[aggr]
        self.is_sorted = bool(is_sorted)
        gen = _rng(rng)
        r, i, o = self.num_relations, self.in_src, self.out_feats
        self.comp = None
        if self.num_bases is not None:
            self.weight = glorot((self.num_bases, i, o), gen, dtype)
            self.comp = glorot((r, self.num_bases), gen, dtype)
        elif self.num_blocks is not None:
            nb = self.num_blocks
            if i % nb or o % nb:
                raise ValueError(
                    f"{layer}: in_channels ({i}) and out_channels ({o}) must be divisible by "
                    f"num_blocks ({nb})"
                )
            self.weight = glorot((r, nb, i // nb, o // nb), gen, dtype)
        else:
            self.weight = glorot((r, i, o), gen, dtype)
        self.root = glorot((self.in_dst, o), gen, dtype) if root_weight else None
        self.bias = np.zeros(o, dtype=dtype) if bias else None

    def _relation_weights(self) -> tuple[Any, Any]:
        if self.num_blocks is not None:
            return None, self.weight
        if self.comp is not None:
            stacked = self.comp @ self.weight.reshape(self.num_bases, -1)
            return stacked.reshape(self.num_relations, self.in_src, self.out_feats), None
        return self.weight, None

    def __call__(self, x: Any, edge_index: Any, edge_type: Any = None) -> Any:
        out, x_dst = self._forward(x, edge_index, edge_type, self.aggr, None)
        if self.root is not None:
            if x_dst.dtype.kind in "iu":  # node ids: rows of root
                xp = get_namespace(self.root)
                x_dst = xp.asarray(x_dst)
                if x_dst.shape[0] and (int(x_dst.min()) < 0 or int(x_dst.max()) >= self.in_dst):
                    raise ValueError(
                        f"RGCNConv: target node ids are out of range for in_channels={self.in_dst}"
                    )
                out += self.root[x_dst]
            else:
                _check_features(x_dst, self.in_dst, "RGCNConv target features", self.root)
                out = _add_product(out, x_dst, self.root)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def extra_repr(self) -> str:
        return (
            f"({self.in_src}, {self.in_dst}), {self.out_feats}, "
            f"num_relations={self.num_relations}, aggr={self.aggr!r}"
        )


class TypedLinear(Module):
    """DGL's ``TypedLinear``: ``W`` ``(R, in, out)``; ``'basis'``: ``W`` ``(B, in, out)``
    and ``coeff`` ``(R, B)``; ``'bdd'``: ``W`` ``(R, B * in/B * out/B)``. Called as DGL's,
    ``lin(x, x_type, sorted_by_type=False)``: ``out[i] = x[i] @ W[x_type[i]]``.

    >>> import numpy as np
    >>> lin = TypedLinear(4, 2, 3, rng=0)
    >>> lin.W.shape, lin(np.ones((5, 4), np.float32), np.array([0, 2, 1, 1, 0])).shape
    ((3, 4, 2), (5, 2))
    """

    _param_names = ("W", "coeff")
    _dgl_supported = True  # DGL's names are these

    def __init__(
        self,
        in_size: int,
        out_size: int,
        num_types: int,
        regularizer: str | None = None,
        num_bases: int | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "TypedLinear"
        self.in_size = layer_size(layer, "in_size", in_size)
        self.out_size = layer_size(layer, "out_size", out_size)
        self.num_types = layer_size(layer, "num_types", num_types, minimum=1)
        if regularizer not in (None, "basis", "bdd"):
            raise ValueError(
                f"{layer}: regularizer must be None, 'basis' or 'bdd', got {regularizer!r}"
            )
        if regularizer is not None and num_bases is None:
            raise ValueError(f"{layer}: regularizer {regularizer!r} needs num_bases")
        self.regularizer = regularizer
        self.num_bases = None if num_bases is None else layer_size(layer, "num_bases", num_bases, 1)
        gen = _rng(rng)
        r, i, o = self.num_types, self.in_size, self.out_size
        self.coeff = None
        bound = 1 / np.sqrt(max(i, 1))
        if regularizer is None:
            self.W = gen.uniform(-bound, bound, (r, i, o)).astype(dtype)
        elif regularizer == "basis":
            self.W = gen.uniform(-bound, bound, (self.num_bases, i, o)).astype(dtype)
            self.coeff = glorot((r, self.num_bases), gen, dtype)
        else:
            nb = self.num_bases
            if i % nb or o % nb:
                raise ValueError(
                    f"{layer}: in_size ({i}) and out_size ({o}) must be divisible by "
                    f"num_bases ({nb}) for 'bdd'"
                )
            self.W = gen.uniform(-bound, bound, (r, nb * (i // nb) * (o // nb))).astype(dtype)

    def __call__(self, x: Any, x_type: Any, sorted_by_type: bool = False) -> Any:
        """DGL's forward: ``out[i] = x[i] @ W[x_type[i]]`` (block-diagonal for ``'bdd'``);
        rows sorted by type (``sorted_by_type``, or found sorted) take one BLAS product per
        type, others one :func:`arraygnn.ops.gather_mm` pass (no ``[N, in, out]`` gather)."""
        from arraygnn import ops
        from arraygnn.nn.hetero_linear import check_types, typed_product

        _check_features(x, self.in_size, "TypedLinear input", self.W)
        if x.ndim != 2:
            raise ValueError(f"TypedLinear: x must be (N, {self.in_size}), got {x.shape}")
        weight, blocks = self.weights()
        if blocks is None:
            return typed_product(
                "TypedLinear",
                x,
                x_type,
                weight,
                self.num_types,
                bool(sorted_by_type),
                "sorted_by_type",
            )
        xp = get_namespace(blocks)
        n = int(x.shape[0])
        types = check_types("TypedLinear", x_type, n, self.num_types, xp)
        nb, si, so = (int(d) for d in blocks.shape[1:])
        # block b of row i is row i * B + b; its matrix is blocks[type, b]
        idx = (types.astype(np.int64)[:, None] * nb + xp.arange(nb)[None, :]).reshape(-1)
        out = ops.gather_mm(
            x.reshape(n * nb, si), blocks.reshape(self.num_types * nb, si, so), idx_b=idx
        )
        return out.reshape(n, nb * so)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def weights(self) -> tuple[Any, Any]:
        """``(weight [R, in, out], None)`` or, for ``'bdd'``, ``(None, blocks [R, B, si, so])``."""
        r, i, o = self.num_types, self.in_size, self.out_size
        if self.regularizer == "bdd":
            nb = self.num_bases
            return None, self.W.reshape(r, nb, i // nb, o // nb)
        if self.regularizer == "basis":
            return (self.coeff @ self.W.reshape(self.num_bases, -1)).reshape(r, i, o), None
        return self.W, None


class RelGraphConv(_RelationalBase):
    r"""DGL's ``RelGraphConv``: per-edge ``W_{r(e)} h_src`` (times ``norm``), summed on
    each target, then layer norm, bias, self-loop, activation (DGL's order).

    .. math:: h_i' = \sigma\big(\mathrm{LN}(\sum_r \sum_{j \in N_r(i)} c_{ij} W_r h_j)
              + b + W_0 h_i\big)

    Args:
        in_feat, out_feat: sizes.
        num_rels: number of relations (``etypes`` in ``[0, num_rels)``).
        regularizer: ``None``, ``'basis'`` or ``'bdd'`` (block-diagonal);
            ``num_bases`` defaults to ``num_rels`` when a regularizer is set.
        bias, self_loop, layer_norm: as in DGL; ``activation`` a name or callable;
            ``dropout`` is accepted and ignored (inference).

    Call as ``conv(g, feat, etypes, norm=None)`` (``norm`` ``(E,)`` or ``(E, 1)``;
    ``presorted`` is accepted and not needed) or ``conv(x, edge_index, etypes)``.

    Parameter names (DGL): ``linear_r.W``, ``linear_r.coeff``, ``h_bias``,
    ``loop_weight`` ``(in, out)``, ``layer_norm_weight.weight`` / ``.bias``.

    >>> import numpy as np, arraygnn
    >>> g = arraygnn.graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
    >>> conv = RelGraphConv(4, 2, num_rels=2, rng=0)
    >>> conv(g, np.ones((3, 4), np.float32), np.array([0, 1, 1])).shape
    (3, 2)
    """

    _param_names = ("h_bias", "loop_weight")
    _child_names = ("linear_r", "layer_norm_weight")
    _dgl_supported = True

    def __init__(
        self,
        in_feat: int,
        out_feat: int,
        num_rels: int,
        regularizer: str | None = None,
        num_bases: int | None = None,
        bias: bool = True,
        activation: Any = None,
        self_loop: bool = True,
        dropout: float = 0.0,
        layer_norm: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self._layer = "RelGraphConv"
        probability(self._layer, "dropout", dropout)  # the identity at inference
        gen = _rng(rng)
        if regularizer is not None and num_bases is None:
            num_bases = num_rels
        self.linear_r = TypedLinear(
            in_feat, out_feat, num_rels, regularizer, num_bases, dtype=dtype, rng=gen
        )
        self.in_src = self.in_dst = self.linear_r.in_size
        self.out_feats = self.linear_r.out_size
        self.num_relations = self.linear_r.num_types
        self.activation = get_activation(activation)
        self.h_bias = np.zeros(self.out_feats, dtype=dtype) if bias else None
        self.layer_norm_weight = LayerNorm(self.out_feats, dtype=dtype) if layer_norm else None
        self.loop_weight = glorot((self.in_src, self.out_feats), gen, dtype) if self_loop else None

    def _relation_weights(self) -> tuple[Any, Any]:
        return self.linear_r.weights()

    def __call__(
        self,
        g: Any,
        feat: Any,
        etypes: Any = None,
        norm: Any = None,
        *,
        presorted: bool = False,
    ) -> Any:
        x = feat if is_graph(g) else g
        pair = list(x) if isinstance(x, (tuple, list)) else [x]
        if any(p is None or (is_array(p) and p.dtype.kind in "iub") for p in pair):
            raise TypeError(
                "RelGraphConv: features must be a float array [num_nodes, in_feat] (DGL's "
                "layer has no featureless mode), got "
                + ", ".join("None" if p is None else str(p.dtype) for p in pair)
            )
        out, x_dst = self._forward(g, feat, etypes, "sum", norm)
        if self.layer_norm_weight is not None:
            out = self.layer_norm_weight(out)
        if self.h_bias is not None:
            out = add_bias(out, self.h_bias)
        if self.loop_weight is not None:
            _check_features(x_dst, self.in_dst, "RelGraphConv target features", self.loop_weight)
            out = _add_product(out, x_dst, self.loop_weight)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def extra_repr(self) -> str:
        reg = self.linear_r.regularizer
        return f"{self.in_src}, {self.out_feats}, num_rels={self.num_relations}" + (
            f", regularizer={reg!r}, num_bases={self.linear_r.num_bases}" if reg else ""
        )


#: rows per piece of the root product added onto the output (bounds its temporary)
PRODUCT_ROWS = 1 << 16


def _add_product(out: Any, x: Any, weight: Any) -> Any:
    """``out + x @ weight``, in place when ``out`` keeps its dtype, ``PRODUCT_ROWS`` rows at
    a time (no second ``[N, out]`` array: 244 MiB at 1M x 64 float32)."""
    if np.result_type(out.dtype, x.dtype, weight.dtype) != out.dtype:
        return out + x @ weight
    for start in range(0, out.shape[0], PRODUCT_ROWS):
        stop = start + PRODUCT_ROWS
        out[start:stop] += matmul(x[start:stop], weight)
    return out
