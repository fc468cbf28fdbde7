"""PyG's ``LPFormer`` (Shomer et al., 2024: an adaptive graph transformer for link
prediction) at inference.

What runs, as PyG 2.8.1's ``torch_geometric.nn.models.LPFormer`` in eval mode, for the
target pairs ``batch`` ``[2, B]``:

1. **Node representations** ``X = gnn_norm(gnn(x, edge_index))``: PyG's ``GCN`` model
   (:class:`arraygnn.nn.GCN`: ``GCNConv`` layers, graph-mode ``LayerNorm`` and ReLU
   between them; SpMM over the CSR) then a ``LayerNorm``. ``edge_index`` reaches the GCN
   as given (parallel edges count twice there, as in PyG).
2. **Pair neighbourhoods from the PPR matrix** (``ppr = (ppr_index [2, P], ppr_weight
   [P])``, e.g. from :meth:`LPFormer.calc_sparse_ppr` / :func:`arraygnn.utils.get_ppr`).
   With ``A`` the 0/1 adjacency (``edge_index`` coalesced, self-loops kept) and pair
   ``(a, b)``, node ``v`` is a *common neighbour* when ``A[a, v] = A[b, v] = 1``, a
   *1-hop* node when exactly one is 1, and a *>1-hop* node otherwise. CNs with both PPR
   scores ``>= thresh_cn``, 1-hop nodes with both ``>= thresh_1hop`` and >1-hop nodes
   with both ``>= thresh_non1hop`` are kept. Here this is array code on integer keys
   ``row * N + node``: the entries of ``A`` and of the PPR matrix in the rows ``a`` / ``b``
   are selected by one mask and sorted once (duplicates summed); each pair's rows are
   gathered as keys ``pair * N + node`` by one ragged gather, already sorted, and the
   two rows of every pair are merged by one binary search and counts (no further sort,
   no hash table); scores are read by ``searchsorted``. No ``[B, N]`` array, no per-pair
   loop, NumPy or CuPy alike (on CuPy the data-dependent sizes cost a few host syncs,
   as PyG's sparse ops do). PyG reads the scores through sparse-tensor
   offsets (``(p * t + t - t) / t`` for a neighbour of type ``t``, ``p + sign(q) - 1``
   for a >1-hop node); the same float operations are done here, so the thresholds cut
   at the same entries. As in PyG, the >1-hop candidates are the entries of the PPR rows
   ``a`` and ``b`` with the pair's neighbours' scores zeroed (scored ``-1``: kept only
   when ``thresh_non1hop <= -1``).
3. **Relative positional encodings** ``enc(p_a, p_b) + enc(p_b, p_a)`` with one encoder
   MLP per node type.
4. **Attention over each pair's nodes** (``att_layers.0``, PyG's ``LPAttLayer``): per
   kept node ``v`` of pair ``i`` the value ``h = lin_r([X[v], pe])`` (``lin_r`` split in
   two: a per-node product gathered plus the per-entry ``pe`` product), the score
   ``att . leaky_relu(h * (lin_l(X[a]) + lin_l(X[b])), 0.2)``, the softmax over the
   pair's nodes (:func:`arraygnn.ops.edge_softmax`) and the weighted sum
   (:func:`arraygnn.ops.scatter`), then ``bias`` and ``post_att_norm``. The per-entry
   ``[M, hidden]`` values are inherent (the encoding differs per entry); a pair without
   kept nodes gets ``LayerNorm(bias)``.
5. **Counts and scoring**: the numbers of kept CNs, 1-hop and >1-hop nodes and of CNs
   plus 1-hop nodes are appended, ``pairwise_lin`` mixes them; ``score_func([
   elementwise_lin(X[a] * X[b]), pairwise])`` gives one logit per pair, ``(B,)``.

Differences from PyG: none in the maths. Training-only parts (dropout, the random
``drop_pairwise``, adding the batch links back) are left out. Settings PyG 2.8.1's
``LPFormer`` cannot run (more than one transformer layer: ``self.num_layers`` is
undefined; ``num_heads > 1``: ``post_att_norm`` has the width of one head;
``thresh_non1hop == 1``: ``None`` counts are concatenated; ``hidden_channels == 1``: the
MLPs squeeze the feature axis) raise ``ValueError`` here. Duplicate PPR entries are
summed first (``get_ppr`` gives none); the summation order inside the softmax differs
(float rounding). ``calc_sparse_ppr`` runs arraygnn's ``get_ppr`` (see its docstring
for the last-digit differences from PyG's push order).

>>> import numpy as np
>>> model = LPFormer(3, 4, rng=0)
>>> ei = np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
>>> ppr = model.calc_sparse_ppr(ei, num_nodes=4)
>>> model(np.array([[0, 1], [2, 3]]), np.ones((4, 3), np.float32), ei, ppr).shape
(2,)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, is_array, repeat_counts, torch_hint
from arraygnn.nn._attention import leaky_relu_
from arraygnn.nn._graph_input import _check_edge_index
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import LayerNorm, Linear, _ModuleList, _relu, _rng, glorot, matmul
from arraygnn.nn.models import GCN
from arraygnn.ops._common import check_index

__all__ = ["LPFormer"]

_NAME = "LPFormer"


class _PairMLP(Module):
    """LPFormer's own ``MLP``: ``linears`` with one shared ``norm`` (``LayerNorm`` or
    none) and ReLU after every layer but the last; the feature axis of width 1 squeezed."""

    _child_names = ("linears", "norm")

    def __init__(self, sizes: list[int], norm: bool, dtype: Any, gen: Any) -> None:
        self.linears = _ModuleList(
            [Linear(a, b, dtype=dtype, rng=gen) for a, b in zip(sizes[:-1], sizes[1:])]
        )
        self.norm = LayerNorm(sizes[1], dtype=dtype) if norm and len(sizes) > 2 else None

    def __call__(self, x: Any) -> Any:
        for lin in list(self.linears)[:-1]:
            x = lin(x)
            x = _relu(x if self.norm is None else self.norm(x))
        x = self.linears[len(self.linears) - 1](x)
        return x[..., 0] if x.shape[-1] == 1 else x


class _LPAttLayer(Module):
    """PyG's ``LPAttLayer`` (one head): ``lin_l``, ``lin_r``, ``att`` ``(1, 1, C)``,
    ``bias``, ``post_att_norm``."""

    _param_names = ("att", "bias")
    _child_names = ("lin_l", "lin_r", "post_att_norm")

    def __init__(self, hid: int, dtype: Any, gen: Any) -> None:
        self.lin_l = Linear(hid, hid, dtype=dtype, rng=gen)
        self.lin_r = Linear(2 * hid, hid, dtype=dtype, rng=gen)
        self.att = glorot((1, 1, hid), gen, dtype)
        self.bias = np.zeros(hid, dtype=dtype)
        self.post_att_norm = LayerNorm(hid, dtype=dtype)

    def __call__(self, X: Any, a: Any, b: Any, owner: Any, node: Any, pe: Any) -> Any:
        """Attention of the ``B`` pairs ``(a, b)`` over their entries (``owner`` pair,
        ``node``, encoding ``pe``)."""
        xp = get_namespace(X)
        hid = X.shape[1]
        num_pairs = a.shape[0]
        query = self.lin_l(X[xp.concatenate([a, b])])
        query = query[:num_pairs] + query[num_pairs:]
        w = self.lin_r.weight
        value = matmul(X, w[:, :hid].T)[node] + matmul(pe, w[:, hid:].T) + self.lin_r.bias
        score = leaky_relu_(value * query[owner], 0.2)
        logits = matmul(score, self.att.reshape(-1, 1))  # [M, 1]: one head
        alpha = ops.edge_softmax(xp.stack([node, owner]), logits, num_dst_nodes=num_pairs)
        out = ops.scatter(value * alpha, owner, num_pairs)
        return self.post_att_norm(out + self.bias)


class LPFormer(Module):
    """PyG's ``LPFormer``.

    Args:
        in_channels, hidden_channels: sizes (``hidden_channels >= 2``).
        num_gnn_layers: GCN layers (default 2).
        gnn_dropout, transformer_dropout: ignored (inference).
        num_transformer_layers, num_heads: must be 1 (what PyG 2.8.1 runs).
        ppr_thresholds: ``[thresh_cn, thresh_1hop, thresh_non1hop]`` (default
            ``[0, 1e-4, 1e-2]``); any numbers (PyG's comparisons), but
            ``thresh_non1hop != 1``.
        gcn_cache: ignored (nothing is cached across calls).

    Call as ``model(batch, x, edge_index, ppr)``: ``batch`` ``(2, B)`` int, the pairs
    ``(batch[0, i], batch[1, i])`` (``(u, u)`` allowed); ``x`` ``(N, in_channels)``;
    ``edge_index`` ``(2, E)`` ids in ``[0, N)``; ``ppr`` the pair ``(ppr_index (2, P),
    ppr_weight (P,))`` of the PPR matrix (row: the source). Returns ``(B,)`` logits.

    Names (PyG's): ``gnn.*`` (a ``GCN``), ``gnn_norm.*``, ``att_layers.0.{lin_l, lin_r,
    post_att_norm}.*``, ``att_layers.0.att``, ``att_layers.0.bias``,
    ``{elementwise_lin, ppr_encoder_cn, ppr_encoder_onehop, ppr_encoder_non1hop,
    pairwise_lin, score_func}.linears.i.*`` and ``.norm.*``.
    """

    _child_names = (
        "gnn",
        "gnn_norm",
        "att_layers",
        "elementwise_lin",
        "ppr_encoder_cn",
        "ppr_encoder_onehop",
        "ppr_encoder_non1hop",
        "pairwise_lin",
        "score_func",
    )

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        num_gnn_layers: int = 2,
        gnn_dropout: float = 0.1,
        num_transformer_layers: int = 1,
        num_heads: int = 1,
        transformer_dropout: float = 0.1,
        ppr_thresholds: list[float] | None = None,
        gcn_cache: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size(_NAME, "in_channels", in_channels, minimum=1)
        hid = self.hidden_channels = layer_size(_NAME, "hidden_channels", hidden_channels, 2)
        self.num_gnn_layers = layer_size(_NAME, "num_gnn_layers", num_gnn_layers, minimum=1)
        self._check_settings(num_transformer_layers, num_heads)
        self._set_thresholds(ppr_thresholds)
        self.gnn_dropout = probability(_NAME, "gnn_dropout", gnn_dropout)
        self.transformer_dropout = probability(_NAME, "transformer_dropout", transformer_dropout)
        gen = _rng(rng)
        self.gnn = GCN(
            self.in_channels, hid, self.num_gnn_layers, norm="layer_norm", dtype=dtype, rng=gen
        )
        self.gnn_norm = LayerNorm(hid, dtype=dtype)
        self.att_layers = _ModuleList([_LPAttLayer(hid, dtype, gen)])
        self.elementwise_lin = _PairMLP([hid, hid, hid], True, dtype, gen)
        self.ppr_encoder_cn = _PairMLP([2, hid, hid], True, dtype, gen)
        self.ppr_encoder_onehop = _PairMLP([2, hid, hid], True, dtype, gen)
        self.ppr_encoder_non1hop = _PairMLP([2, hid, hid], True, dtype, gen)
        self.pairwise_lin = _PairMLP([hid + 4, hid + 4, hid], True, dtype, gen)
        self.score_func = _PairMLP([2 * hid, 2 * hid, 1], False, dtype, gen)

    @staticmethod
    def _check_settings(num_transformer_layers: int, num_heads: int) -> None:
        if num_transformer_layers != 1:
            raise ValueError(
                f"{_NAME}: num_transformer_layers={num_transformer_layers} is not supported; "
                "PyG 2.8.1's LPFormer runs only 1 (with more its constructor reads an "
                "undefined self.num_layers; with 0 pairwise_lin gets the wrong width)"
            )
        if num_heads != 1:
            raise ValueError(
                f"{_NAME}: num_heads={num_heads} is not supported; PyG 2.8.1's LPFormer runs "
                "only 1 (with more, its post_att_norm has the width of one head)"
            )

    def _set_thresholds(self, ppr_thresholds: Any) -> None:
        if ppr_thresholds is None:
            ppr_thresholds = [0, 1e-4, 1e-2]
        if len(ppr_thresholds) != 3:
            raise ValueError(f"{_NAME}: argument 'ppr_thresholds' must only be length 3!")
        try:
            values = [float(t) for t in ppr_thresholds]
        except (TypeError, ValueError):
            raise TypeError(
                f"{_NAME}: ppr_thresholds must be three numbers, got {ppr_thresholds!r}"
            ) from None
        if values[2] == 1:
            raise ValueError(
                f"{_NAME}: ppr_thresholds[2] (thresh_non1hop) = 1 is not supported; PyG 2.8.1's "
                "LPFormer fails when the >1-hop nodes are masked out"
            )
        self.thresh_cn, self.thresh_1hop, self.thresh_non1hop = values

    @staticmethod
    def calc_sparse_ppr(
        edge_index: Any, num_nodes: int, alpha: float = 0.15, eps: float = 5e-5
    ) -> tuple[Any, Any]:
        """``(ppr_index, ppr_weight)`` of the graph (:func:`arraygnn.utils.get_ppr`)."""
        from arraygnn.utils.ppr import get_ppr

        return get_ppr(edge_index, alpha=alpha, eps=eps, num_nodes=num_nodes)

    # ---------------------------------------------------------------- the forward pass
    def __call__(self, batch: Any, x: Any, edge_index: Any, ppr: Any) -> Any:
        xp, n = self._check_inputs(batch, x, edge_index, ppr)
        a = batch[0].astype(np.int64)
        b = batch[1].astype(np.int64)
        X = self.gnn_norm(self.gnn(x, edge_index))
        dt = X.dtype
        elementwise = self.elementwise_lin(X[a] * X[b])
        groups = self._pair_nodes(xp, n, a, b, edge_index, ppr, dt)
        encoders = (self.ppr_encoder_cn, self.ppr_encoder_onehop, self.ppr_encoder_non1hop)
        pes = [
            enc(xp.stack([p, q], axis=1)) + enc(xp.stack([q, p], axis=1))
            for enc, (_, _, p, q) in zip(encoders, groups)
        ]
        owner = xp.concatenate([g[0] for g in groups])
        node = xp.concatenate([g[1] for g in groups])
        pe = xp.concatenate(pes).reshape(-1, self.hidden_channels)
        pairwise = self.att_layers[0](X, a, b, owner, node, pe)
        counts = self._counts(xp, a.shape[0], groups, dt)
        pairwise = self.pairwise_lin(xp.concatenate([pairwise, counts], axis=1))
        return self.score_func(xp.concatenate([elementwise, pairwise], axis=1))

    def _pair_nodes(
        self, xp: Any, n: int, a: Any, b: Any, edge_index: Any, ppr: Any, dt: Any
    ) -> list[tuple[Any, Any, Any, Any]]:
        """``[(pair, node, ppr_a, ppr_b)]`` of the kept CNs, 1-hop and >1-hop nodes, each
        sorted by ``(pair, node)`` as PyG's coalesced sparse rows."""
        pair_ids = xp.arange(a.shape[0], dtype=np.int64)
        adj_keys, _ = _sorted_keys(xp, n, edge_index, None, a, b)
        ppr_keys, ppr_vals = _sorted_keys(xp, n, ppr[0], ppr[1].astype(dt, copy=False), a, b)

        # CNs and 1-hop nodes: the union of A's rows a and b (in both: a CN, type 2)
        near, in_a, in_b = _sorted_union(
            xp,
            _row_keys(xp, n, adj_keys, a, pair_ids)[0],
            _row_keys(xp, n, adj_keys, b, pair_ids)[0],
        )
        node_type = (in_a >= 0).astype(np.int64) + (in_b >= 0)
        owner, node = near // n, near % n
        t = node_type.astype(dt)
        p_a = _lookup(xp, ppr_keys, ppr_vals, a[owner] * n + node)
        p_b = _lookup(xp, ppr_keys, ppr_vals, b[owner] * n + node)
        p_a = (p_a * t + t - t) / t  # PyG's sparse offsets, the same float operations
        p_b = (p_b * t + t - t) / t
        th_cn, th_1hop, th_far = (dt.type(v) for v in self._thresholds())
        cn = (node_type == 2) & (p_a >= th_cn) & (p_b >= th_cn)
        one = (node_type == 1) & (p_a >= th_1hop) & (p_b >= th_1hop)
        out = [(owner[m], node[m], p_a[m], p_b[m]) for m in (cn, one)]

        # >1-hop nodes: the union of the PPR rows a and b, less the neighbours of a or b
        keys_a, slot_a = _row_keys(xp, n, ppr_keys, a, pair_ids)
        keys_b, slot_b = _row_keys(xp, n, ppr_keys, b, pair_ids)
        far, in_a, in_b = _sorted_union(xp, keys_a, keys_b)
        # PyG zeroes the scores of the pair's neighbours (they stay entries: with
        # thresh_non1hop <= -1 they are kept, at -1)
        neighbour = _contains(xp, near, far)
        zero = dt.type(0)
        p_a = xp.where(neighbour, zero, _take(xp, ppr_vals[slot_a], in_a))
        p_b = xp.where(neighbour, zero, _take(xp, ppr_vals[slot_b], in_b))
        one_ = dt.type(1)
        s_a = (p_a + xp.sign(p_b)) - one_  # PyG's "+ sign(other) - 1" alignment
        s_b = (p_b + xp.sign(p_a)) - one_
        keep = (s_a >= th_far) & (s_b >= th_far)
        far = far[keep]
        out.append((far // n, far % n, s_a[keep], s_b[keep]))
        return out

    def _thresholds(self) -> tuple[float, float, float]:
        return self.thresh_cn, self.thresh_1hop, self.thresh_non1hop

    def _counts(self, xp: Any, num_pairs: int, groups: list, dt: Any) -> Any:
        """PyG's ``get_structure_cnts``: ``[#CN, #1-hop, #>1-hop, #CN + #1-hop (>= 0)]``."""
        (cn_o, _, cn_a, cn_b), (one_o, _, one_a, one_b), (far_o, *_) = groups
        th_cn, th_1hop = dt.type(self.thresh_cn), dt.type(self.thresh_1hop)
        zero = dt.type(0)

        def count(owner: Any, keep: Any = None) -> Any:
            return _bincount(xp, owner if keep is None else owner[keep], num_pairs)

        num_cn = count(cn_o, (cn_a >= th_cn) & (cn_b >= th_cn))
        num_1hop = count(one_o, (one_a >= th_1hop) & (one_b >= th_1hop))
        num_ones = count(one_o, (one_a >= zero) & (one_b >= zero))
        return xp.stack([num_cn, num_1hop, count(far_o), num_cn + num_ones], axis=1).astype(dt)

    def _check_inputs(self, batch: Any, x: Any, edge_index: Any, ppr: Any) -> tuple[Any, int]:
        if not is_array(x) or x.ndim != 2:
            raise TypeError(
                f"{_NAME}: x must be a 2-D NumPy or CuPy array (N, in_channels), got "
                f"{getattr(x, 'shape', type(x).__name__)}{torch_hint(x)}"
            )
        if x.dtype.kind != "f":
            raise TypeError(f"{_NAME}: x must hold floating-point values, got dtype {x.dtype}")
        if x.shape[1] != self.in_channels:
            raise ValueError(
                f"{_NAME}: x has {x.shape[1]} features, expected in_channels={self.in_channels}"
            )
        n = int(x.shape[0])
        if not is_array(batch) or batch.ndim != 2 or batch.shape[0] != 2:
            raise ValueError(
                f"{_NAME}: batch must be an integer array [2, B] (the target pairs), got "
                f"{getattr(batch, 'shape', type(batch).__name__)}{torch_hint(batch)}"
            )
        check_index(f"{_NAME}: batch[0]", batch[0], n)
        check_index(f"{_NAME}: batch[1]", batch[1], n)
        _check_edge_index(_NAME, edge_index)
        check_index(f"{_NAME}: edge_index[0]", edge_index[0], n)
        check_index(f"{_NAME}: edge_index[1]", edge_index[1], n)
        if not isinstance(ppr, (tuple, list)) or len(ppr) != 2:
            raise TypeError(
                f"{_NAME}: ppr must be a pair (ppr_index [2, P], ppr_weight [P]) as "
                f"calc_sparse_ppr / get_ppr return, got {type(ppr).__name__}"
            )
        _check_edge_index(f"{_NAME}: ppr[0] (ppr_index)", ppr[0])
        check_index(f"{_NAME}: ppr[0] (ppr_index) row 0", ppr[0][0], n)
        check_index(f"{_NAME}: ppr[0] (ppr_index) row 1", ppr[0][1], n)
        weight = ppr[1]
        if not is_array(weight) or weight.ndim != 1 or weight.shape[0] != ppr[0].shape[1]:
            raise ValueError(
                f"{_NAME}: ppr[1] (ppr_weight) must be an array [P] with P = "
                f"{ppr[0].shape[1]} (one per column of ppr_index), got "
                f"{getattr(weight, 'shape', type(weight).__name__)}"
            )
        if weight.dtype.kind != "f":
            raise TypeError(f"{_NAME}: ppr[1] (ppr_weight) must be float, got {weight.dtype}")
        xp = get_namespace(x, batch, edge_index, ppr[0], weight)
        return xp, n

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.hidden_channels}, num_gnn_layers={self.num_gnn_layers}, "
            "num_transformer_layers=1"
        )


def _sorted_keys(xp: Any, n: int, index: Any, weight: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """The entries of the rows ``a`` and ``b`` of the COO matrix ``(index, weight)`` as
    sorted unique keys ``row * n + col`` (duplicates summed; ``weight`` may be ``None``):
    one mask, one sort of the selected entries, no hash table."""
    needed = xp.zeros(n, dtype=bool)
    needed[a] = True
    needed[b] = True
    sel = needed[index[0]]
    keys = index[0][sel].astype(np.int64) * n + index[1][sel].astype(np.int64)
    order = xp.argsort(keys)
    keys = keys[order]
    weight = None if weight is None else weight[sel][order]
    if keys.shape[0] < 2:
        return keys, weight
    first = xp.empty(keys.shape[0], dtype=bool)
    first[0] = True
    xp.not_equal(keys[1:], keys[:-1], out=first[1:])
    if bool(first.all()):
        return keys, weight
    starts = xp.nonzero(first)[0]
    if weight is not None:  # duplicates summed, as torch's coalesce
        weight = ops.scatter(weight, xp.cumsum(first) - 1, int(starts.shape[0]))
    return keys[starts], weight


def _row_keys(xp: Any, n: int, keys: Any, rows: Any, pair_ids: Any) -> tuple[Any, Any]:
    """Keys ``pair * n + col`` of row ``rows[pair]`` of the matrix with sorted ``keys``,
    and their slots in ``keys`` (one ragged gather: the rows' slot ranges expanded);
    sorted, as the pairs are in order and each row's columns sorted."""
    start = xp.searchsorted(keys, rows * n, side="left")
    count = xp.searchsorted(keys, rows * n + n, side="left") - start
    owner = repeat_counts(xp, pair_ids, count)
    first = xp.cumsum(count) - count
    slot = xp.arange(owner.shape[0], dtype=np.int64) - first[owner] + start[owner]
    return owner * n + keys[slot] % n, slot


def _sorted_union(xp: Any, ka: Any, kb: Any) -> tuple[Any, Any, Any]:
    """The sorted union of two sorted arrays of unique keys, merged by one binary search
    and counts (no sort): ``(keys, index into ka or -1, index into kb or -1)``."""
    na, nb = ka.shape[0], kb.shape[0]
    below = xp.searchsorted(ka, kb)  # ka entries below kb[j]
    if na:
        hit_b = ka[xp.minimum(below, na - 1)] == kb
    else:
        hit_b = xp.zeros(nb, dtype=bool)
    hit_a = xp.zeros(na, dtype=np.int64)
    hit_a[below[hit_b]] = 1
    # kb entries not in ka below ka[i]: those with below <= i, less the shared ones
    b_le = xp.cumsum(_bincount(xp, below, na + 1))[:na]
    pos_a = xp.arange(na, dtype=np.int64) + b_le - xp.cumsum(hit_a)
    rest = xp.nonzero(~hit_b)[0]
    pos_r = xp.arange(rest.shape[0], dtype=np.int64) + below[rest]
    total = na + rest.shape[0]
    keys = xp.empty(total, dtype=np.int64)
    keys[pos_a] = ka
    keys[pos_r] = kb[rest]
    in_a = xp.full(total, -1, dtype=np.int64)
    in_a[pos_a] = xp.arange(na, dtype=np.int64)
    in_b = xp.full(total, -1, dtype=np.int64)
    in_b[pos_a[below[hit_b]]] = xp.nonzero(hit_b)[0]
    in_b[pos_r] = rest
    return keys, in_a, in_b


def _bincount(xp: Any, index: Any, size: int) -> Any:
    """``bincount(index, minlength=size)[:size]``; zeros for an empty ``index`` (CuPy's
    ``bincount`` takes the max of its input, which fails on an empty array)."""
    if index.shape[0] == 0:
        return xp.zeros(size, dtype=np.int64)
    return xp.bincount(index, minlength=size)[:size]


def _take(xp: Any, values: Any, index: Any) -> Any:
    """``values[index]``, 0 where ``index`` is -1."""
    if values.shape[0] == 0:
        return xp.zeros(index.shape[0], dtype=values.dtype)
    return xp.where(index >= 0, values[index], values.dtype.type(0))


def _lookup(xp: Any, keys: Any, values: Any, query: Any) -> Any:
    """``values`` at ``query`` in the sorted ``keys`` (0 where absent)."""
    if keys.shape[0] == 0:
        return xp.zeros(query.shape[0], dtype=values.dtype)
    pos = xp.minimum(xp.searchsorted(keys, query), keys.shape[0] - 1)
    return xp.where(keys[pos] == query, values[pos], values.dtype.type(0))


def _contains(xp: Any, keys: Any, sorted_query: Any) -> Any:
    """Whether each of the sorted unique ``sorted_query`` is in the sorted ``keys`` (the
    few ``keys`` searched in the many queries)."""
    out = xp.zeros(sorted_query.shape[0], dtype=bool)
    if sorted_query.shape[0] == 0:
        return out
    pos = xp.minimum(xp.searchsorted(sorted_query, keys), sorted_query.shape[0] - 1)
    out[pos[sorted_query[pos] == keys]] = True
    return out


def _mlp_from_pyg(mlp: Any, dtype: Any) -> _PairMLP:
    sizes = [mlp.linears[0].in_features] + [lin.out_features for lin in mlp.linears]
    if mlp.norm is not None and type(mlp.norm).__name__ != "LayerNorm":
        raise ValueError(
            f"from_pyg: {_NAME} MLP norm {type(mlp.norm).__name__} is not supported "
            "(LPFormer builds LayerNorm or none)"
        )
    layer = _PairMLP(sizes, mlp.norm is not None, dtype, _rng(0))
    if mlp.norm is not None:
        layer.norm.eps = float(mlp.norm.eps)
    return layer


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``LPFormer`` with its weights (its ``GCN`` and ``LayerNorm`` through
    ``convert``; its own ``MLP`` / ``LPAttLayer`` built here)."""
    model = LPFormer.__new__(LPFormer)
    model.in_channels = int(module.in_dim)
    model.hidden_channels = hid = int(module.hid_dim)
    model.num_gnn_layers = int(module.gnn.num_layers)
    LPFormer._check_settings(len(module.att_layers), int(module.att_layers[0].heads))
    model._set_thresholds([module.thresh_cn, module.thresh_1hop, module.thresh_non1hop])
    if hid < 2:
        raise ValueError(f"from_pyg: {_NAME} with hidden_channels={hid} is not supported")
    model.gnn_dropout = float(module.gnn_drop)
    model.transformer_dropout = float(module.trans_drop)
    model.gnn = convert(module.gnn)
    model.gnn_norm = convert(module.gnn_norm)
    att = _LPAttLayer(hid, dtype, _rng(0))
    att.post_att_norm.eps = float(module.att_layers[0].post_att_norm.eps)
    model.att_layers = _ModuleList([att])
    for name in LPFormer._child_names[3:]:
        setattr(model, name, _mlp_from_pyg(getattr(module, name), dtype))
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
