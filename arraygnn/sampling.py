"""Neighbour sampling for mini-batch training (DGL's ``dgl.sampling``: ``sample_neighbors``
+ blocks, ``select_topk``, ``global_uniform_negative_sampling``; the random walks of
:mod:`arraygnn.random_walks` are re-exported here, as DGL's ``dgl.sampling.random_walk``).

>>> import numpy as np
>>> from arraygnn.graph import graph, NID
>>> from arraygnn.sampling import sample_blocks
>>> g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])), num_nodes=5)
>>> input_nodes, output_nodes, blocks = sample_blocks(g, np.array([0]), [2, 2], seed=0)
>>> [b.num_dst_nodes() for b in blocks], output_nodes, input_nodes
([2, 1], array([0]), array([0, 4, 3]))

RULE: sampling is uniform over each seed node's in-edges (out-edges with
      ``edge_dir='out'``; in proportion to ``prob`` when given); with ``replace=False`` a
      node with at most ``fanout`` such edges keeps all of them; ``fanout=-1`` keeps all.
RULE: the same ``seed`` gives the same sample (NumPy ``default_rng``; CuPy's on the GPU).
RULE: the frontier keeps every node of ``g`` and shares its node features (DGL's
      ``copy_ndata=True``); ``edata[EID]`` holds the sampled edges' ids in ``g``.
RULE: a fan-out dict names every edge type (an etype name or a canonical triple), as DGL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn._namespace import repeat_counts
from arraygnn.graph.core import EID, NID, Graph, _as_ids, _check_range, check_graph
from arraygnn.graph.subgraph import (
    _gather_frame,
    _ids_for,
    _one_id_as_list,
    _per_type,
    to_block,
)
from arraygnn.random_walks import node2vec_random_walk, pack_traces, random_walk

__all__ = [
    "sample_neighbors",
    "sample_blocks",
    "select_topk",
    "global_uniform_negative_sampling",
    "random_walk",
    "pack_traces",
    "node2vec_random_walk",
    "NeighborSampler",
    "MultiLayerFullNeighborSampler",
    "NodeDataLoader",
]


def _rng(g: Graph, seed: Any) -> Any:
    if g.device == "cpu":
        if isinstance(seed, np.random.Generator):
            return seed
        return np.random.default_rng(seed)
    cupy = g._xp()
    if isinstance(seed, np.random.Generator):
        # a host generator draws host arrays: derive the device one from it (reproducible)
        return cupy.random.default_rng(int(seed.integers(2**63 - 1)))
    if seed is not None and not isinstance(seed, (int, np.integer)):
        return seed  # a CuPy generator
    return cupy.random.default_rng(seed)


def _sample_grouped(
    g: Graph, c: Any, seeds: Any, fanout: int, replace: bool, rng: Any, weight: Any = None
) -> tuple[Any, Any, Any]:
    """``(edge ids, sources, counts)`` of the in-edges of relation ``c`` sampled into
    ``seeds`` (distinct), in pyg-lib's order: grouped by seed in the order of ``seeds``, a
    seed taken whole in edge-id order (CSR slot order), a sampled one in draw order;
    ``counts`` the edges per seed. The draws are :func:`_sample_csr`'s. The ids and
    sources are read at the CSR slots, which lie together per seed (no gather by edge id
    over the whole edge list). ``weight``: ``(name, float weights in edge-id order)`` for
    pyg-lib's weighted sampling (:func:`_weighted_pick`, ``pyg=True``); a seed taken whole
    is taken as without weights."""
    csr = g.csr(c)
    xp = g._xp()
    if weight is not None and fanout >= 0:
        deg = csr.indptr[1:][seeds] - csr.indptr[seeds]
        if replace or (deg.size and int(deg.max()) > fanout):
            return _sample_grouped_weighted(xp, csr, c, seeds, deg, fanout, replace, rng, weight)
    slots, counts = _sample_slots(xp, csr.indptr, seeds, fanout, replace, rng)
    return csr.perm[slots], csr.indices[slots], counts


def _sample_grouped_weighted(
    xp: Any, csr: Any, c: Any, seeds: Any, deg: Any, fanout: int, replace: bool, rng: Any,
    weight: tuple[str, Any],
) -> tuple[Any, Any, Any]:  # fmt: skip
    """:func:`_sample_grouped` with pyg-lib's weighted draws; with ``replace`` a seed whose
    in-edges weigh 0 in total is a ``ValueError`` (pyg-lib's ``multinomial`` raises)."""
    from arraygnn.graph.query import _rows_slots

    slots, seg = _rows_slots(xp, csr.indptr, seeds)
    # (the NumPy kernel needs no ranks: _weighted_pick reads ``local`` on CuPy only)
    local = None if xp is np else slots - csr.indptr[seeds].astype(np.int64)[seg]
    wt = weight[1][csr.perm[slots]].astype(xp.float64)
    if replace:
        n = int(seeds.shape[0])
        row_total = xp.bincount(seg, weights=wt, minlength=n) if slots.size else xp.zeros(n)
        bad = xp.nonzero((deg > 0) & (row_total <= 0))[0]
        if bad.size:
            raise ValueError(
                f"weight_attr={weight[0]!r}: node {int(seeds[bad[0]])} has in-edges of "
                f"edge type {c!r} but their weights sum to 0; replace=True draws in "
                "proportion to the weights, which needs a non-zero total (PyG: 'non-zero "
                "total weight within local neighborhoods'; pyg-lib's multinomial raises)"
            )
    picked, counts = _weighted_pick(xp, deg, seg, local, slots, wt, fanout, replace, rng, True)
    return csr.perm[picked], csr.indices[picked], counts


def _relation_csr(g: Graph, c: Any, edge_dir: str) -> tuple[Any, Any]:
    """``(indptr, perm)`` of relation ``c``: rows the destinations (``'in'``) or the
    sources (``'out'``, the cached source-sorted CSR); ``perm`` the edge ids, in edge-id
    order within a row."""
    from arraygnn.graph.message_passing import _csr_indptr, _csr_perm
    from arraygnn.graph.query import _reverse_csr

    csr = g.csr(c) if edge_dir == "in" else _reverse_csr(g, g._rels[c])
    return _csr_indptr(csr), _csr_perm(csr)


def _sample_csr(
    xp: Any, indptr: Any, perm: Any, seeds: Any, fanout: int, replace: bool, rng: Any
) -> Any:
    """Uniformly sampled edge ids (increasing) of the CSR rows ``seeds``."""
    return xp.sort(perm[_sample_slots(xp, indptr, seeds, fanout, replace, rng)[0]])


def _sample_slots(
    xp: Any, indptr: Any, seeds: Any, fanout: int, replace: bool, rng: Any
) -> tuple[Any, Any]:
    """``(slots, counts)``: uniformly sampled CSR slots of the rows ``seeds``, grouped by
    row in the order of ``seeds`` (a row taken whole in slot order, a sampled one in draw
    order), and how many each row got."""
    start = indptr[seeds]
    deg = indptr[1:][seeds] - start  # no arithmetic on the ids: nothing can wrap
    if fanout < 0 or (not replace and (deg.size == 0 or int(deg.max()) <= fanout)):
        total = int(deg.sum())
        seg_start = xp.cumsum(deg) - deg
        pos = repeat_counts(xp, start, deg) + (xp.arange(total) - repeat_counts(xp, seg_start, deg))
        return pos, deg
    if replace:
        has = xp.nonzero(deg > 0)[0]
        owner = xp.repeat(has, fanout)
        offset = xp.floor(rng.random(owner.shape[0]) * deg[owner]).astype(indptr.dtype)
        return start[owner] + offset, xp.where(deg > 0, fanout, 0)
    if xp is np:  # O(fanout) per seed (Floyd), not a sort of every in-edge
        from arraygnn.kernels.cpu.sampling import sample_slots

        seed = int(rng.integers(2**32))  # Numba's generator keeps 32 bits of a seed
        return sample_slots(indptr, seeds, fanout, seed)
    total = int(deg.sum())
    seg = repeat_counts(xp, xp.arange(seeds.shape[0]), deg)
    seg_start = xp.cumsum(deg) - deg
    local = xp.arange(total) - repeat_counts(xp, seg_start, deg)
    pos = repeat_counts(xp, start, deg) + local
    keys = rng.random(total)
    order = xp.lexsort(xp.stack([keys, seg]))  # by seed, then random key
    rank = local  # seg is sorted, so position - segment start is the rank after sorting
    return pos[order][rank < fanout], xp.minimum(deg, fanout)


def sample_neighbors(
    g: Graph,
    nodes: Any,
    fanout: int | Mapping[Any, int],
    edge_dir: str = "in",
    prob: str | None = None,
    replace: bool = False,
    copy_ndata: bool = True,
    copy_edata: bool = True,
    *,
    exclude_edges: Any = None,
    output_device: Any = None,
    seed: Any = None,
) -> Graph:
    """A frontier graph with every node of ``g`` and ``fanout`` sampled in-edges (out-edges
    with ``edge_dir='out'``) per seed.

    ``nodes`` are seed ids (an array, a list, one int, or ``{ntype: ids or int}``, as DGL;
    an empty dict raises): destination nodes for ``'in'``, source nodes for ``'out'``;
    ``fanout`` an int or ``{etype: int}`` naming every edge type (``-1`` = all edges).
    ``prob`` names an edge feature of non-negative unnormalised
    probabilities (relations without it are sampled uniformly, as DGL): edges of
    probability 0 are never drawn, a seed with at most ``fanout`` positive edges keeps
    them all (``replace=False``), else ``fanout`` are drawn one after another in
    proportion to the weights left (DGL's sampler; drawn here with exponential keys,
    the same distribution). ``exclude_edges`` (edge ids, or ``{etype: ids}``) are removed
    from the sample after drawing, as DGL (a seed may then keep fewer than ``fanout``).
    As DGL, the frontier shares ``g``'s node features when ``copy_ndata`` and gets the
    sampled edges' features when ``copy_edata``; the sampled edges' ids in ``g`` are in
    ``edata[EID]`` either way (also when ``g`` is a subgraph with its own ``EID``, as DGL).
    The arguments up to ``copy_edata`` may be given by position, in DGL's order;
    ``output_device`` (``'cpu'`` / ``'cuda'``) moves the frontier (:meth:`Graph.to`).
    """
    where = "sample_neighbors"
    check_graph(where, g)
    if g.is_block:
        raise ValueError("sample_neighbors: sample from the original graph, not a block")
    side = _edge_dir(edge_dir, where)
    seeds = _seeds(g, nodes, side, where)
    fanouts = _fanouts(g, fanout)
    probs = _edge_weights(g, prob, where, "prob") if prob is not None else {}
    for c, w in probs.items():
        finite = w.dtype.kind != "f" or bool(g._xp().isfinite(w).all())
        if w.size and not (finite and float(w.min()) >= 0):
            raise ValueError(
                f"{where}: prob {prob!r} of edge type {c!r} must be finite and non-negative"
            )
    excluded = _excluded_edges(g, exclude_edges, where)
    rng = _rng(g, seed)
    xp = g._xp()
    chosen = {}
    for c in g._rels:
        t = c[2] if side == "dst" else c[0]
        if t in seeds and fanouts[c] != 0:
            indptr, perm = _relation_csr(g, c, edge_dir)
            if c in probs:
                e = _sample_weighted(xp, indptr, perm, seeds[t], fanouts[c], replace, probs[c], rng)
            else:
                e = _sample_csr(xp, indptr, perm, seeds[t], fanouts[c], replace, rng)
            if c in excluded:
                e = e[~xp.isin(e, excluded[c])]
            chosen[c] = e
        else:
            chosen[c] = xp.zeros(0, dtype=g.idtype)
    frontier = _frontier(g, chosen, copy_ndata, copy_edata)
    return frontier if output_device is None else frontier.to(output_device)


def _frontier(g: Graph, chosen: Mapping[Any, Any], copy_ndata: bool, copy_edata: bool) -> Graph:
    """Every node of ``g`` and the edges ``chosen`` (``{canonical: edge ids}``), ``EID`` set."""
    rels = {c: (g._rels[c].src[e], g._rels[c].dst[e]) for c, e in chosen.items()}
    frontier = Graph(rels, g._num_src, validate=False)
    if copy_ndata:  # shared arrays, new frames (as DGL)
        for t, f in g._src_frames.items():
            frontier._src_frames[t]._data.update(f._data)
    for c, e in chosen.items():
        old = g._rels[c].frame
        new = frontier._rels[c].frame
        if copy_edata:
            _gather_frame(old, new, e)
        new._data[EID] = e  # ids in g, as DGL (replacing a subgraph's own EID, copied above)
    return frontier


def _edge_dir(edge_dir: Any, where: str) -> str:
    """The seed side: ``'dst'`` for in-edges, ``'src'`` for out-edges."""
    if edge_dir not in ("in", "out"):
        raise ValueError(f"{where}: edge_dir must be 'in' or 'out', got {edge_dir!r}")
    return "dst" if edge_dir == "in" else "src"


def _seeds(g: Graph, nodes: Any, side: str, where: str) -> dict[Any, Any]:
    """Seed ids as ``{ntype: ids}`` from ids, an int, a list or ``{ntype: ids or int}``
    (DGL's forms); an empty dict raises ``ValueError``, as DGL."""
    if isinstance(nodes, Mapping) and not nodes:
        raise ValueError(
            f"{where}: got an empty dict of seed nodes; pass {{ntype: empty ids}} instead"
        )
    given = _per_type(g, _one_id_as_list(nodes, f"{where}: nodes"), where, g.ntypes)
    counts = g._num_dst if side == "dst" else g._num_src
    for t in given:
        g._ntype(t, side)
    return {
        t: _ids_for(
            g,
            _one_id_as_list(ids, f"{where}: seed nodes of type {t!r}"),
            counts[t],
            f"{where}: seed nodes of type {t!r}",
        )
        for t, ids in given.items()
    }


def _edge_weights(g: Graph, name: Any, where: str, what: str) -> dict[Any, Any]:
    """``{canonical: 1-D weights}`` of the relations that have edge feature ``name``
    (an ``[E, 1]`` feature is read as ``[E]``); ``KeyError`` when none has it."""
    if not isinstance(name, str):
        raise TypeError(f"{where}: {what} must be an edge feature name, got {name!r}")
    out = {}
    for c, rel in g._rels.items():
        if name not in rel.frame:
            continue
        w = rel.frame[name]
        if w.ndim == 2 and w.shape[1] == 1:
            w = w[:, 0]
        if w.ndim != 1:
            raise ValueError(
                f"{where}: {what} {name!r} of edge type {c!r} must hold one value per edge, "
                f"got shape {tuple(w.shape)}"
            )
        if w.dtype.kind not in "fiub":
            raise TypeError(f"{where}: {what} {name!r} must be numeric, got {w.dtype}")
        out[c] = w
    if not out:
        raise KeyError(f"{where}: no edge type has the feature {what}={name!r}")
    return out


def _excluded_edges(g: Graph, exclude_edges: Any, where: str) -> dict[Any, Any]:
    if exclude_edges is None:
        return {}
    if not isinstance(exclude_edges, Mapping):
        if len(g._rels) != 1:
            raise ValueError(
                f"{where}: the graph has several edge types; pass exclude_edges={{etype: ids}}"
            )
        exclude_edges = {g.canonical_etypes[0]: exclude_edges}
    out = {}
    from arraygnn.graph.structure import _named_rel

    for k, ids in exclude_edges.items():
        c = _named_rel(where, "exclude_edges", g, k).canonical
        arr = _as_ids(
            ids if not isinstance(ids, range) else list(ids), f"{where}: exclude_edges[{k!r}]"
        )
        _check_range(arr, g._rels[c].num_edges, f"{where}: exclude_edges[{k!r}]", "edges")
        out[c] = g._xp().asarray(arr)
    return out


def _row_slots(xp: Any, indptr: Any, perm: Any, seeds: Any) -> tuple[Any, Any, Any, Any]:
    """``(deg, seg, local, eid)``: each seed's row length, and per slot of the rows
    ``seeds`` (grouped by seed, edge-id order within a row) the seed's index, the slot's
    rank in its row and its edge id."""
    from arraygnn.graph.query import _rows_slots

    slots, seg = _rows_slots(xp, indptr, seeds)
    start = indptr[seeds].astype(np.int64)
    return indptr[1:][seeds] - indptr[seeds], seg, slots - start[seg], perm[slots]


def _sample_weighted(
    xp: Any, indptr: Any, perm: Any, seeds: Any, fanout: int, replace: bool, w: Any, rng: Any
) -> Any:
    """Edge ids (increasing) of the CSR rows ``seeds`` drawn in proportion to ``w`` (DGL's
    picks: ``min(fanout, positive edges)`` without replacement, ``fanout`` with
    replacement where a row has a positive edge, none elsewhere;
    ``fanout=-1`` takes every positive edge once, with or without replacement: DGL's
    ``replace && num_samples != -1``)."""
    if fanout < 0:
        replace = False
    deg, seg, local, eid = _row_slots(xp, indptr, perm, seeds)
    wt = w[eid].astype(xp.float64)
    return xp.sort(_weighted_pick(xp, deg, seg, local, eid, wt, fanout, replace, rng)[0])


def _weighted_pick(
    xp: Any, deg: Any, seg: Any, local: Any, ids: Any, wt: Any, fanout: int, replace: bool,
    rng: Any, pyg: bool = False,
) -> tuple[Any, Any]:  # fmt: skip
    """``(picked, counts)``: entries of ``ids`` (the slots of some rows, grouped by row:
    ``deg`` per row, ``seg`` / ``local`` each slot's row and rank in it, ``wt`` its float64
    weight) drawn in proportion to ``wt``, grouped by row in draw order, and how many
    each row got. Without replacement the draws are exponential keys (Efraimidis-Spirakis,
    the successive draws' distribution); with it, one search in a prefix sum per draw.
    DGL's picks (``pyg=False``): only positive edges, ``min(fanout, positive)`` per row
    (``fanout=-1``: all positive ones), ``fanout`` per row with a positive edge when
    ``replace``. pyg-lib's (``pyg=True``, ``fanout >= 0``): without replacement
    ``min(fanout, deg)`` per row, a row of at most ``fanout`` edges whole in slot order,
    else the positive edges by key and, past them, zero-weight ones uniformly (pyg-lib's
    ``topk`` of ``log(u) / w``); with it ``fanout`` per non-empty row (the caller refuses
    a row of zero total weight: pyg-lib's ``multinomial`` does). NumPy inputs run the
    Numba kernel :func:`arraygnn.kernels.cpu.sampling.weighted_pick` (the same bits; it
    reads no ``local``, which may be ``None`` there); CuPy inputs this array code."""
    n = int(deg.shape[0])
    total = int(ids.shape[0])
    if pyg and xp is np:  # the kernel needs no per-row positive counts for pyg-lib's picks
        nnz = None
    else:
        nnz = xp.bincount(seg[wt > 0], minlength=n) if total else xp.zeros(n, dtype=xp.int64)
    if not replace:
        if pyg:
            picks = xp.minimum(deg, fanout)
        else:
            picks = nnz if fanout < 0 else xp.minimum(nnz, fanout)
        if xp is np:  # a bounded heap per row, not a sort of every slot; the same bits
            from arraygnn.kernels.cpu.sampling import weighted_pick

            return weighted_pick(deg, ids, wt, fanout, False, pyg, picks, rng), picks
        positive = wt > 0
        u = 1.0 - rng.random(total)  # (0, 1]
        with np.errstate(divide="ignore"):
            key = xp.where(positive, -xp.log(u) / xp.where(positive, wt, 1.0), xp.inf)
        if pyg:  # a whole row in slot order; zero-weight ties broken by u (uniform)
            key = xp.where((deg <= fanout)[seg], local.astype(xp.float64), key)
            order = xp.lexsort(xp.stack([u, key, seg.astype(xp.float64)]))
        else:
            order = xp.lexsort(xp.stack([key, seg]))  # by seed, then key (smallest first)
        return ids[order][local < picks[seg]], picks
    picks = xp.where((deg if pyg else nnz) > 0, fanout, 0)
    if xp is np:  # a prefix sum per row and a binary search per draw; the same bits
        from arraygnn.kernels.cpu.sampling import weighted_pick

        return weighted_pick(deg, ids, wt, fanout, True, pyg, picks, rng), picks
    seg_start = xp.cumsum(deg) - deg
    positive = wt > 0
    owner = repeat_counts(xp, xp.arange(n), picks)
    # one prefix sum over all rows, of the weights divided by their row's total: each
    # row adds 1, so no row's weights are lost under another row's scale
    row_total = xp.bincount(seg, weights=wt, minlength=n) if total else xp.zeros(n)
    c0 = xp.concatenate([xp.zeros(1), xp.cumsum(wt / xp.where(positive, row_total[seg], 1.0))])
    base = c0[seg_start[owner]]
    top = c0[(seg_start + deg)[owner]]
    x = base + rng.random(owner.shape[0]) * (top - base)
    j = xp.searchsorted(c0[1:], x, side="right")
    last = xp.searchsorted(c0[1:], top, side="left")  # each row's last positive edge
    j = xp.maximum(xp.minimum(j, last), seg_start[owner])  # never outside the row
    return ids[j], picks


def select_topk(
    g: Graph,
    k: int | Mapping[Any, int],
    weight: str,
    nodes: Any = None,
    edge_dir: str = "in",
    ascending: bool = False,
    copy_ndata: bool = True,
    copy_edata: bool = True,
    output_device: Any = None,
) -> Graph:
    """A frontier graph keeping, for each node of ``nodes`` (every node when ``None``), the
    ``k`` in-edges (out-edges with ``edge_dir='out'``) of largest ``weight`` (smallest when
    ``ascending``), DGL's ``dgl.sampling.select_topk``.

    ``k`` is an int or ``{etype: int}`` naming every edge type (``-1``: all edges); every
    edge type must have the feature ``weight``. Ties keep the smaller edge id (DGL's sort
    leaves their order unspecified). Features and ``edata[EID]`` as :func:`sample_neighbors`;
    the kept edges are in edge-id order (DGL's come per node). ``output_device`` moves the
    result (:meth:`Graph.to`), as DGL's.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 0, 1, 1, 2, 2]), np.array([1, 2, 0, 1, 2, 0])), num_nodes=3)
    >>> g.edata["weight"] = np.array([0.0, 1, 0, 1, 0, 1])
    >>> sg = select_topk(g, 1, "weight")
    >>> sg.edges()[0].tolist(), sg.edges()[1].tolist(), sg.edata["_ID"].tolist()
    ([0, 1, 2], [2, 1, 0], [1, 3, 5])
    """
    where = "select_topk"
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: select from the original graph, not a block")
    side = _edge_dir(edge_dir, where)
    if nodes is None:
        counts = g._num_dst if side == "dst" else g._num_src
        nodes = {t: g._xp().arange(counts[t], dtype=g.idtype) for t in counts}
    seeds = _seeds(g, nodes, side, where)
    ks = _fanouts(g, k)
    weights = _edge_weights(g, weight, where, "weight")
    missing = [c for c in g._rels if c not in weights]
    if missing:
        raise KeyError(f"{where}: edge weights {weight!r} do not exist for edge types {missing}")
    xp = g._xp()
    chosen = {}
    for c in g._rels:
        t = c[2] if side == "dst" else c[0]
        if t not in seeds or ks[c] == 0:
            chosen[c] = xp.zeros(0, dtype=g.idtype)
            continue
        indptr, perm = _relation_csr(g, c, edge_dir)
        deg, seg, local, eid = _row_slots(xp, indptr, perm, seeds[t])
        w = weights[c][eid]
        kind = xp.float64 if w.dtype.kind == "f" else xp.int64
        key = w.astype(kind) if ascending else -w.astype(kind)
        # by seed, then weight, then slot (edge-id order within a row: ties keep the smaller id)
        order = xp.lexsort(xp.stack([local.astype(kind), key, seg.astype(kind)]))
        keep = local < (deg if ks[c] < 0 else xp.minimum(deg, ks[c]))[seg]
        chosen[c] = xp.sort(eid[order][keep])
    frontier = _frontier(g, chosen, copy_ndata, copy_edata)
    return frontier if output_device is None else frontier.to(output_device)


def _calc_redundancy(k_hat: int, num_edges: int, num_pairs: int, r: int = 3) -> float:
    """DGL's oversampling factor: the ``N`` draws whose binomial lower bound (``r``
    standard deviations) of non-edges reaches ``k_hat``, as ``N / k_hat - 1``."""
    p_m = num_edges / num_pairs
    p_k = 1 - p_m
    a, b, c = p_k**2, -p_k * (2 * k_hat + r**2 * p_m), k_hat**2
    roots = np.polynomial.Polynomial([c, b, a]).roots()
    return float(np.real(roots[-1])) / k_hat - 1.0


def _check_redundancy(where: str, redundancy: Any) -> float | None:
    """``redundancy`` as given: ``None`` or a number ``>= 0``."""
    if redundancy is None:
        return None
    if isinstance(redundancy, (bool, np.bool_)) or not isinstance(
        redundancy, (int, float, np.number)
    ):
        raise TypeError(f"{where}: redundancy must be a number, got {redundancy!r}")
    if not redundancy >= 0:
        raise ValueError(f"{where}: redundancy must be >= 0, got {redundancy}")
    return float(redundancy)


def global_uniform_negative_sampling(
    g: Graph,
    num_samples: int,
    exclude_self_loops: bool = True,
    replace: bool = False,
    etype: Any = None,
    redundancy: float | None = None,
    *,
    seed: Any = None,
) -> tuple[Any, Any]:
    """Up to ``num_samples`` node pairs ``(src, dst)`` of relation ``etype`` that are not
    edges, DGL's ``dgl.sampling.global_uniform_negative_sampling``.

    As DGL: ``int(num_samples * (1 + redundancy))`` uniform pairs are drawn, each with up
    to 3 tries to find a non-edge (and no self-loop when ``exclude_self_loops`` and the
    relation's two node types are the same); failed draws are dropped; without
    ``replace`` the pairs are sorted by ``(src, dst)`` and made unique; the first
    ``num_samples`` are returned (so fewer can come back on a small or dense graph).
    ``redundancy=None`` uses DGL's estimate from the graph's density (DGL itself always
    does, ignoring a given value; from the distinct pairs where multi-edges make as many
    edges as node pairs, a case DGL's estimate cannot handle). Vectorised: one membership
    test of all draws against the sorted edge keys ``src * num_dst + dst``.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 3])), num_nodes=4)
    >>> src, dst = global_uniform_negative_sampling(g, 3, seed=0)
    >>> bool(g.has_edges_between(src, dst).any()), bool((src == dst).any())
    (False, False)
    """
    where = "global_uniform_negative_sampling"
    check_graph(where, g)
    if isinstance(num_samples, (bool, np.bool_)) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"{where}: num_samples must be an int, got {num_samples!r}")
    if num_samples < 0:
        raise ValueError(f"{where}: num_samples must be >= 0, got {num_samples}")
    from arraygnn.graph.structure import _named_rel

    first = g.canonical_etypes[0] if g._rels else None  # etype=None: the first, as DGL
    rel = _named_rel(where, "etype", g, etype if etype is not None else first)
    utype, _, vtype = rel.canonical
    n_u, n_v = g._num_src[utype], g._num_dst[vtype]
    xp = g._xp()
    empty = (xp.zeros(0, dtype=g.idtype), xp.zeros(0, dtype=g.idtype))
    num_pairs = n_u * n_v
    if num_samples == 0 or num_pairs == 0 or num_pairs > 2**62:
        if num_pairs > 2**62:
            raise ValueError(f"{where}: {n_u} x {n_v} node pairs do not fit int64 keys")
        return empty
    redundancy = _check_redundancy(where, redundancy)
    edge_keys = unique_ids(xp, rel.src.astype(xp.int64) * n_v + rel.dst.astype(xp.int64))
    if redundancy is None:
        # DGL's estimate from num_edges; with multi-edges there may be as many edges as
        # pairs (where DGL's estimate breaks) and still non-edges: count distinct pairs then
        num_edges = rel.num_edges if rel.num_edges < num_pairs else int(edge_keys.shape[0])
        if num_edges >= num_pairs:
            return empty
        redundancy = _calc_redundancy(int(num_samples), num_edges, num_pairs)
    draws = int(num_samples * (1 + redundancy))
    no_loops = bool(exclude_self_loops) and utype == vtype
    rng = _rng(g, seed)
    u = xp.floor(rng.random((draws, 3)) * n_u).astype(xp.int64)
    v = xp.floor(rng.random((draws, 3)) * n_v).astype(xp.int64)
    keys = u * n_v + v
    ok = ~xp.isin(keys, edge_keys)
    if no_loops:
        ok &= u != v
    hit = ok.any(axis=1)
    first = xp.argmax(ok, axis=1)[hit]
    rows = xp.nonzero(hit)[0]
    keys = keys[rows, first]
    if not replace:
        keys = unique_ids(xp, keys)  # sorted by (src, dst), as DGL's sort + unique
    keys = keys[:num_samples]
    return (keys // n_v).astype(g.idtype), (keys % n_v).astype(g.idtype)


def _fanout_value(v: Any, what: str) -> int:
    """An int fan-out: ``-1`` (every in-edge, DGL's value) or ``>= 0``."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"sample_neighbors: {what} must be an int, got {v!r}")
    if v < -1:  # (-2 used to mean "every edge" too)
        raise ValueError(f"sample_neighbors: {what} must be -1 (all edges) or >= 0, got {v}")
    return int(v)


def _fanouts(g: Graph, fanout: Any) -> dict[Any, int]:
    """``{canonical etype: fan-out}``; a dict must name every edge type (DGL's rule)."""
    if not isinstance(fanout, Mapping):
        if isinstance(fanout, (bool, np.bool_)) or not isinstance(fanout, (int, np.integer)):
            raise TypeError(f"sample_neighbors: fanout must be an int or a dict, got {fanout!r}")
        value = _fanout_value(fanout, "fanout")
        return {c: value for c in g.canonical_etypes}
    fanouts: dict[Any, int] = {}
    for k, v in fanout.items():
        c = g._rel(k).canonical
        if c in fanouts:
            raise ValueError(f"sample_neighbors: the fan-out of edge type {c!r} is given twice")
        fanouts[c] = _fanout_value(v, f"fanout[{k!r}]")
    missing = [c for c in g.canonical_etypes if c not in fanouts]
    if missing:
        raise ValueError(
            "sample_neighbors: fan-out must be specified for each edge type if a dict is "
            f"provided; missing {missing}"
        )
    return fanouts


def sample_blocks(
    g: Graph,
    seed_nodes: Any,
    fanouts: Sequence[int | Mapping[Any, int]],
    *,
    replace: bool = False,
    seed: Any = None,
    copy_ndata: bool = True,
    prob: str | None = None,
    exclude_eids: Any = None,
    edge_dir: str = "in",
) -> tuple[Any, Any, list[Graph]]:
    """Sample one block per fan-out, outermost layer first (DGL's ``sample_blocks``);
    ``prob`` names an edge feature of sampling weights (or a boolean mask), as
    :func:`sample_neighbors`. ``exclude_eids`` (edge ids, or ``{etype: ids}``) are never
    sampled on any layer (DGL's argument, used by edge prediction to hide the seed edges).

    ``edge_dir='out'`` samples each node's out-edges; each block is then built over the
    frontier turned around (edge ``(u, v)`` of type ``(s, e, d)`` becomes ``(v, u)`` of
    type ``(d, e, s)``, as :func:`arraygnn.graph.reverse`), so a seed's messages come from
    the nodes it points to and ``edata[EID]`` keeps the ids in ``g``. (DGL's own
    ``NeighborSampler(edge_dir='out')`` hands the unreversed frontier to ``to_block``,
    which fails because the sampled destinations are not seeds: dmlc/dgl#4519.)

    Returns ``(input_nodes, output_nodes, blocks)``: ``blocks[0].srcdata[NID]`` are the
    input nodes whose features feed the first layer; ``output_nodes`` the seeds as ids
    (``blocks[-1].dstdata[NID]``, also where a list or a boolean mask was given).
    Each block carries the node features of its nodes, gathered when it is built
    (``copy_ndata=False``: none, for callers that fetch features by ``input_nodes``).
    """
    _edge_dir(edge_dir, "sample_blocks")
    rng = _rng(g, seed)
    current = seed_nodes
    blocks: list[Graph] = []
    for fanout in reversed(list(fanouts)):
        frontier = sample_neighbors(
            g,
            current,
            fanout,
            edge_dir=edge_dir,
            replace=replace,
            seed=rng,
            copy_ndata=copy_ndata,
            prob=prob,
            exclude_edges=exclude_eids,
        )
        if edge_dir == "out":
            from arraygnn.graph.transform import reverse

            frontier = reverse(frontier, copy_ndata=copy_ndata, copy_edata=True)
        block = to_block(frontier, current)
        current = block.srcdata[NID]  # ids in the frontier, which are the ids in g
        blocks.insert(0, block)
    # the seeds as ids (where a list or a boolean mask was given), per given node type
    output_nodes = seed_nodes
    if blocks:
        last = blocks[-1]
        if isinstance(seed_nodes, Mapping):  # per given type (one dst type: its frame)
            output_nodes = {t: last._dst_frames[t][NID] for t in seed_nodes}
        else:
            output_nodes = last.dstdata[NID]
    return current, output_nodes, blocks


class NeighborSampler:
    """Reusable ``sample_blocks(g, seed_nodes)`` with fixed fan-outs (DGL's NeighborSampler).

    Each call draws fresh randomness from one generator seeded once with ``seed``. ``prob``
    (an edge feature of sampling weights) or ``mask`` (a boolean edge feature: edges marked
    False are never sampled) as DGL's; not both. ``edge_dir='out'``: out-edges, blocks over
    the turned-around frontier (see :func:`sample_blocks`). The arguments up to ``fused``
    may be given by position, in DGL's order; ``output_device`` moves the blocks and ids
    (:meth:`Graph.to`); ``fused`` (DGL's CPU kernel switch) is accepted and has no effect.
    ``sample_blocks(g, seed_nodes,
    exclude_eids=None)`` and ``sample`` (the same) take DGL's ``exclude_eids``, so the
    sampler plugs into :func:`arraygnn.edge_prediction.as_edge_prediction_sampler`.

    DGL's ``prefetch_node_feats`` / ``prefetch_labels`` (node feature names, or ``{ntype:
    names}``) and ``prefetch_edge_feats`` (edge feature names, or ``{etype: names}``) name
    the features the first block's source nodes, the last block's destination nodes and
    every block's edges must carry. The blocks carry every node and edge feature already
    (``copy_ndata=True``); with ``copy_ndata=False`` they get just the named node features.
    A list names features of every type that has them (``KeyError`` when none has one).
    """

    def __init__(
        self,
        fanouts: Sequence[int],
        edge_dir: str = "in",
        prob: str | None = None,
        mask: str | None = None,
        replace: bool = False,
        prefetch_node_feats: Any = None,
        prefetch_labels: Any = None,
        prefetch_edge_feats: Any = None,
        output_device: Any = None,
        fused: bool = True,
        *,
        seed: Any = None,
        copy_ndata: bool = True,
    ):
        if prob is not None and mask is not None:
            raise ValueError("NeighborSampler: give prob or mask, not both (as DGL)")
        for name, value in (
            ("prefetch_node_feats", prefetch_node_feats),
            ("prefetch_labels", prefetch_labels),
            ("prefetch_edge_feats", prefetch_edge_feats),
        ):
            if (
                isinstance(value, str)
                or not (value is None or isinstance(value, (Mapping, list, tuple)))
                or (  # {'user': 'feat'} would read as the names 'f', 'e', 'a', 't'
                    isinstance(value, Mapping)
                    and not all(isinstance(v, (list, tuple)) for v in value.values())
                )
            ):
                raise TypeError(
                    f"NeighborSampler: {name} must be a list of feature names or a dict "
                    f"{{type: list of names}}, got {value!r}"
                )
        self.prefetch_node_feats = prefetch_node_feats or []
        self.prefetch_labels = prefetch_labels or []
        self.prefetch_edge_feats = prefetch_edge_feats or []
        for name, value in (("prob", prob), ("mask", mask)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"NeighborSampler: {name} must name an edge feature, got {value!r}")
        _edge_dir(edge_dir, "NeighborSampler")
        self.fanouts = list(fanouts)
        self.edge_dir = edge_dir
        self.replace = replace
        self.copy_ndata = copy_ndata
        self.prob = prob if prob is not None else mask
        self.output_device = output_device
        self.fused = fused  # DGL's CPU fast path switch; one path here
        self._seed = seed
        self._rng: Any = None

    def sample_blocks(
        self, g: Graph, seed_nodes: Any, exclude_eids: Any = None
    ) -> tuple[Any, Any, list[Graph]]:
        if self._rng is None:
            self._rng = _rng(g, self._seed)
        input_nodes, output_nodes, blocks = sample_blocks(
            g,
            seed_nodes,
            self.fanouts,
            replace=self.replace,
            seed=self._rng,
            copy_ndata=self.copy_ndata,
            prob=self.prob,
            exclude_eids=exclude_eids,
            edge_dir=self.edge_dir,
        )
        if blocks:
            _prefetch_nodes(g, blocks[0], "src", self.prefetch_node_feats, "prefetch_node_feats")
            _prefetch_nodes(g, blocks[-1], "dst", self.prefetch_labels, "prefetch_labels")
            _requested(g, self.prefetch_edge_feats, "edges", "prefetch_edge_feats")
        if self.output_device is not None:  # DGL moves each frontier there
            from arraygnn._namespace import to_device

            blocks = [b.to(self.output_device) for b in blocks]
            input_nodes = to_device(input_nodes, self.output_device)
            output_nodes = to_device(output_nodes, self.output_device)
        return input_nodes, output_nodes, blocks

    def sample(
        self, g: Graph, seed_nodes: Any, exclude_eids: Any = None
    ) -> tuple[Any, Any, list[Graph]]:
        """DGL's ``BlockSampler.sample``: the same as :meth:`sample_blocks`."""
        return self.sample_blocks(g, seed_nodes, exclude_eids)


def _requested(g: Graph, names: Any, kind: str, what: str) -> list[tuple[Any, str]]:
    """``(type, feature name)`` pairs of a ``prefetch_*`` argument: a list names the
    features of every node (edge) type of ``g`` that has them, a dict those of its types."""
    where = f"NeighborSampler: {what}"
    types = g.ntypes if kind == "nodes" else g.canonical_etypes
    view = g.nodes if kind == "nodes" else g.edges
    if isinstance(names, Mapping):
        given = [(t, list(v)) for t, v in names.items()]
    else:
        given = [(None, list(names))]
    pairs = []
    for t, feats in given:
        for name in feats:
            if t is None:
                have = [u for u in types if name in view[u].data]
            else:
                have = [t] if name in view[t].data else []
            if not have:
                place = f"{kind} of type {t!r}" if t is not None else f"any {kind} type"
                raise KeyError(f"{where}: feature {name!r} not found on {place} of the graph")
            pairs += [(u, name) for u in have]
    return pairs


def _prefetch_nodes(g: Graph, block: Graph, side: str, names: Any, what: str) -> None:
    """Node features ``names`` on ``block``'s ``side`` nodes, gathered from ``g`` by their
    ids (``NID``) where the block does not carry them already (``copy_ndata=False``)."""
    space = block.srcnodes if side == "src" else block.dstnodes
    types = block.srctypes if side == "src" else block.dsttypes
    for t, name in _requested(g, names, "nodes", what):
        if t in types and name not in space[t].data:
            space[t].data[name] = g.nodes[t].data[name][space[t].data[NID]]


class MultiLayerFullNeighborSampler(NeighborSampler):
    """Every in-edge (out-edge with ``edge_dir='out'``) on each of ``num_layers`` layers
    (DGL's ``MultiLayerFullNeighborSampler``): the blocks of exact layer-wise inference.
    Other keyword arguments go to :class:`NeighborSampler`, as DGL's ``**kwargs``.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)
    >>> _, _, blocks = MultiLayerFullNeighborSampler(2).sample_blocks(g, np.array([0]))
    >>> [b.num_edges() for b in blocks]
    [2, 1]
    """

    def __init__(self, num_layers: int, **kwargs: Any) -> None:
        if isinstance(num_layers, (bool, np.bool_)) or not isinstance(
            num_layers, (int, np.integer)
        ):
            raise TypeError(
                f"MultiLayerFullNeighborSampler: num_layers must be an int, got {num_layers!r}"
            )
        if num_layers < 1:
            raise ValueError(
                f"MultiLayerFullNeighborSampler: num_layers must be >= 1, got {num_layers}"
            )
        super().__init__([-1] * int(num_layers), **kwargs)


class NodeDataLoader:
    """Mini-batches of seed nodes and their sampled blocks (DGL's
    ``dgl.dataloading.DataLoader(g, indices, graph_sampler, ...)`` over node ids).

    Args:
        g: the graph to sample from.
        indices: seed node ids (or a boolean mask), or ``{ntype: ids}`` for a
            heterogeneous graph (the types' ids concatenated in the dict's order, each batch
            ``{ntype: ids}`` of the types it holds in that order, as DGL's).
        graph_sampler: anything with ``sample_blocks(g, seed_nodes)``
            (:class:`NeighborSampler`, :class:`MultiLayerFullNeighborSampler`).
        batch_size, shuffle, drop_last: as DGL's.
        seed: seed of the shuffling generator (the same seed, the same epochs).

    Iterating yields the sampler's ``(input_nodes, output_nodes, blocks)`` per batch;
    ``len(loader)`` is the number of batches per epoch.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])), num_nodes=4)
    >>> loader = NodeDataLoader(g, np.arange(4), NeighborSampler([1], seed=0), batch_size=3)
    >>> len(loader), [out.tolist() for _, out, _ in loader]
    (2, [[0, 1, 2], [3]])
    """

    def __init__(
        self,
        g: Graph,
        indices: Any,
        graph_sampler: Any,
        *,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
    ) -> None:
        where = "NodeDataLoader"
        check_graph(where, g)
        if not hasattr(graph_sampler, "sample_blocks"):
            raise TypeError(
                f"{where}: graph_sampler must have sample_blocks(g, seed_nodes), got "
                f"{type(graph_sampler).__name__}"
            )
        self.g = g
        self.graph_sampler = graph_sampler
        self.batch_size = _batch_size(where, batch_size)
        self.shuffle, self.drop_last = bool(shuffle), bool(drop_last)
        self._rng = np.random.default_rng(seed)
        given = _per_type(g, indices, where, g.ntypes)
        self._typed = isinstance(indices, Mapping)
        self._types: list[Any] = []
        self._ids: list[Any] = []
        # the dict's order (DGL's mapping_keys = list(indices.keys())), else the one type
        for t in given:
            g._ntype(t, "dst")
            ids = _ids_for(g, given[t], g._num_dst[t], f"{where}: seed nodes of type {t!r}")
            self._types.append(t)
            self._ids.append(ids)
        self._counts = [int(ids.shape[0]) for ids in self._ids]

    def __len__(self) -> int:
        return _num_batches(self)

    def __iter__(self) -> Any:
        for seeds in _id_batches(self, self._types if self._typed else None):
            yield self.graph_sampler.sample_blocks(self.g, seeds)


def _batch_size(where: str, batch_size: Any) -> int:
    """A loader's ``batch_size``: an int ``>= 1``."""
    if isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(f"{where}: batch_size must be an int, got {batch_size!r}")
    if batch_size < 1:
        raise ValueError(f"{where}: batch_size must be >= 1, got {batch_size}")
    return int(batch_size)


def _num_batches(loader: Any) -> int:
    """Batches per epoch of a loader over ids (see :func:`_id_batches`), as DGL's."""
    total = sum(loader._counts)
    return total // loader.batch_size if loader.drop_last else -(-total // loader.batch_size)


def _id_batches(loader: Any, keys: Sequence[Any] | None) -> Any:
    """The batches of a loader over ids (``_ids``, ``_counts``, ``_rng``, ``batch_size``,
    ``shuffle``, ``drop_last``, ``g``): one id array per batch (``keys=None``), else
    ``{key: ids}`` over the positions in the concatenation of the keys' ids, each key's
    ids in the drawn order (DGL's stable grouping by type); keys without ids left out."""
    total = sum(loader._counts)
    order = loader._rng.permutation(total) if loader.shuffle else np.arange(total)
    stop = (total // loader.batch_size) * loader.batch_size if loader.drop_last else total
    bounds = np.cumsum([0] + loader._counts)
    xp = loader.g._xp()
    for start in range(0, stop, loader.batch_size):
        chunk = order[start : start + loader.batch_size]
        if keys is None:
            yield loader._ids[0][xp.asarray(chunk)]
            continue
        batch = {}
        for i, key in enumerate(keys):
            inside = chunk[(chunk >= bounds[i]) & (chunk < bounds[i + 1])] - bounds[i]
            if inside.size:
                batch[key] = loader._ids[i][xp.asarray(inside)]
        yield batch
