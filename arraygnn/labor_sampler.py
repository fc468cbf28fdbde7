"""Layer-neighbour (LABOR) sampling, DGL's ``dgl.sampling.sample_labors`` and
``dgl.dataloading.LaborSampler`` ("Layer-Neighbor Sampling -- Defusing Neighborhood
Explosion in GNNs", arXiv:2210.13339).

Each candidate neighbour ``t`` rolls one uniform number ``r_t`` (a hash of the batch's
random seed and ``t``), shared by every seed that has ``t`` as a neighbour; seed ``s`` keeps
the edge ``t -> s`` when ``r_t <= min(1, c_s * pi_t)``. Without importance sampling
or ``prob``, ``pi_t = 1`` and ``c_s = fanout / d_s`` (``d_s``: the in-degree), so each
seed keeps ``fanout`` edges in expectation (all of them when it has no more) while seeds
that share neighbours pick the same ones, which keeps the sampled node sets small
(with ``prob``: ``pi_t`` is the edge weight and ``c_s`` DGL's, see the RULEs).

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.labor_sampler import LaborSampler
>>> src = np.array([1, 2, 3, 4, 1, 2, 3, 4])
>>> dst = np.array([0, 0, 0, 0, 5, 5, 5, 5])
>>> g = graph((src, dst), num_nodes=6)
>>> sampler = LaborSampler([2], seed=0)
>>> input_nodes, output_nodes, blocks = sampler.sample_blocks(g, np.array([0, 5]))
>>> block = blocks[0]
>>> s, d = block.edges()
>>> src_ids = block.srcdata["_ID"][s]
>>> # seeds 0 and 5 have the same neighbours and the same c_s: they keep the same ones
>>> sorted(src_ids[d == 0].tolist()) == sorted(src_ids[d == 1].tolist())
True

RULE: ``r_t`` depends only on the random seed and the id ``t`` (not on the seed node nor
      the edge type, as DGL), so a neighbour kept for one seed is kept for every seed with
      a ``c_s pi_t`` at least as large.
RULE: the same ``seed`` gives the same samples; with ``importance_sampling=0`` the
      expected number of edges a seed keeps is ``min(fanout, degree)`` (``fanout=-1``:
      every edge).
RULE: ``importance_sampling=k > 0`` runs ``k`` rounds (``-1``: until converged) of DGL's
      fixed-point updates of ``pi_t`` (Eq. 18) and ``c_s`` (Eq. 22); the blocks then
      carry ``edata['edge_weights']`` (``w / p``, scaled to mean 1 per seed, so
      ``fn.mean`` gives the unbiased estimate), as DGL.
RULE: with ``prob`` (weights ``w``) DGL adds one round (``labor_pick.h``): even with
      ``importance_sampling=0``, ``c_s`` solves Eq. (22) with ``pi_t = w`` (so the
      expected count can be below ``fanout``) and ``edge_weights`` are returned / set.
      An edge of weight 0 is never kept and adds 0 to Eq. (22) (its limit as ``w -> 0``),
      so a seed whose edges all weigh 0 keeps none. DGL divides 0 by 0 there: ``c_s`` is
      NaN for every seed with a zero-weight edge, and its CUDA kernel then keeps none of
      that seed's edges while its CPU kernel's edge count and picks disagree (its
      internal check fails).

The per-edge work is vectorised array code (hash, segment sums and maxima over the
seeds' CSR rows); it runs on NumPy and on CuPy arrays alike. ``r_t`` is SplitMix64-hashed
here, so the draws are not DGL's (which are PCG32) but have the same law.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids_with
from arraygnn.graph.core import NID, Graph, check_graph
from arraygnn.graph.subgraph import to_block
from arraygnn.sampling import (
    _edge_dir,
    _edge_weights,
    _excluded_edges,
    _fanouts,
    _frontier,
    _relation_csr,
    _row_slots,
    _seeds,
)

__all__ = ["sample_labors", "LaborSampler"]

_EPS = 1e-4  # DGL's convergence tolerance
_MAX_ROUNDS = 10_000  # a safety stop for the fixed-point loops (DGL has none)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(xp: Any, x: Any) -> Any:
    """SplitMix64's finaliser on a uint64 array (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


def _hash_uniform(xp: Any, seed: int, t: Any, open_low: bool) -> Any:
    """A uniform number per id in ``t``, a function of ``(seed, t)`` only: in ``(0, 1]``
    (``open_low``) or in ``(0, 1)`` (for the normal quantile)."""
    with np.errstate(over="ignore"):
        s = _mix(xp, xp.asarray([np.uint64(seed % 2**64)], dtype=xp.uint64) + _GOLDEN)
        x = _mix(xp, t.astype(xp.int64).astype(xp.uint64) * _GOLDEN + s)
    k = (x >> np.uint64(11)).astype(xp.float64)  # 53 random bits
    return (k + (1.0 if open_low else 0.5)) * 2.0**-53


def _rolled(xp: Any, seeds: tuple[int, int], contribution: float, t: Any) -> Any:
    """``r_t``: DGL's continuous seed. One seed: a uniform; two: the normal quantiles of
    both mixed as ``cos(pi c / 2) z0 + sin(pi c / 2) z1`` and mapped back by the normal
    CDF (batch dependency: consecutive batches' ``r_t`` are correlated)."""
    if seeds[0] == seeds[1]:
        return _hash_uniform(xp, seeds[0], t, True)
    if xp is np:
        from scipy.special import ndtr, ndtri
    else:  # pragma: no cover - GPU only
        from cupyx.scipy.special import ndtr, ndtri
    c0, c1 = np.cos(np.pi * contribution / 2), np.sin(np.pi * contribution / 2)
    z = c0 * ndtri(_hash_uniform(xp, seeds[0], t, False))
    z = z + c1 * ndtri(_hash_uniform(xp, seeds[1], t, False))
    return ndtr(z)


def _segment_max(xp: Any, keys: Any, values: Any, n: int) -> Any:
    """``out[k] = max(values[keys == k])`` for ``k < n`` (every ``k`` occurs)."""
    order = xp.lexsort(xp.stack([values, keys]))
    last = xp.ones(keys.shape[0], dtype=bool)
    last[:-1] = keys[order][1:] != keys[order][:-1]
    out = xp.zeros(n, dtype=xp.float64)
    out[keys[order][last]] = values[order][last]
    return out


def _fixed_point_c(
    xp: Any, c: Any, ps: Any, seg: Any, w: Any, var_target: Any, active: Any, n: int
) -> Any:
    """DGL's per-seed fixed point of Eq. (22): ``c_s *= var_1 / var_target`` until the two
    agree within ``1e-4``; ``ps`` is ``pi_t`` per slot (``w``: edge weights or None)."""
    c = c.copy()
    active = active.copy()
    for _ in range(_MAX_ROUNDS):
        if not bool(active.any()):
            break
        p = xp.minimum(1.0, c[seg] * ps)
        if w is None:
            term = 1.0 / p
        else:
            term = xp.where(w > 0, w * w / xp.where(p > 0, p, 1.0), 0.0)
        var1 = xp.bincount(seg, weights=term, minlength=n)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = xp.where(active, c * var1 / var_target, c)
            ratio = xp.minimum(var1, var_target) / xp.maximum(var1, var_target)
        active &= ratio < 1 - _EPS
    return c


def _importance(
    xp: Any,
    rounds: int,
    c: Any,
    ds: Any,
    deg: Any,
    fanout: int,
    seg: Any,
    inv: Any,
    n_uniq: int,
    w: Any,
) -> tuple[Any, Any]:
    """DGL's ``compute_importance_sampling_probabilities``: ``(c, pi)``, ``pi`` per
    distinct neighbour (``inv`` maps a slot to its neighbour; ``None`` for weighted
    LABOR-0, whose one round reads no ``pi`` but the weights)."""
    n = int(c.shape[0])
    weighted = w is not None
    if rounds >= 0:
        rounds += weighted  # the weighted first round only sets c (DGL's + 1)
    k = xp.minimum(fanout, deg).astype(xp.float64)
    active = deg > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        var_target = xp.where(active, ds * ds / k, 0.0)
        if weighted:
            var_target = var_target - xp.where(active, ds * ds / deg, 0.0)
            var_target = var_target + xp.bincount(seg, weights=w * w, minlength=n)
    active &= ds > 0
    hop = None
    prev = float(max(int(deg.max()) if n else 1, 1) * n)
    it = 0
    while rounds < 0 or it < rounds:
        if not weighted or it:
            vals = c[seg] * (w if weighted and it == 1 else 1.0)
            hop2 = _segment_max(xp, inv, vals, n_uniq)
            hop = hop2 if hop is None else hop * hop2
        ps = w if hop is None else hop[inv]
        c = _fixed_point_c(xp, c, ps, seg, w, var_target, active, n)
        if hop is not None:
            cur = float(xp.minimum(1.0, hop).sum())
            if prev == 0 or cur / prev >= 1 - _EPS:
                break
            prev = cur
        it += 1
        if it > _MAX_ROUNDS:
            break
    return c, hop  # hop None: weighted LABOR-0, pi is each edge's weight (DGL's)


def _labor_relation(
    g: Graph,
    c_rel: Any,
    seeds: Any,
    fanout: int,
    edge_dir: str,
    w_all: Any,
    importance_sampling: int,
    rseeds: tuple[int, int],
    contribution: float,
) -> tuple[Any, Any]:
    """``(edge ids, importances or None)`` kept for the seeds of one relation."""
    xp = g._xp()
    rel = g._rels[c_rel]
    indptr, perm = _relation_csr(g, c_rel, edge_dir)
    deg, seg, _, eid = _row_slots(xp, indptr, perm, seeds)
    n = int(seeds.shape[0])
    nbr = (rel.src if edge_dir == "in" else rel.dst)[eid]
    w = None if w_all is None else w_all[eid].astype(xp.float64)
    if fanout < 0:  # DGL: every edge (c_s >= 1)
        fanout = max(g._num_src[c_rel[0]], g._num_dst[c_rel[2]])
    deg_f = deg.astype(xp.float64)
    ds = deg_f if w is None else xp.bincount(seg, weights=w, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = xp.where(ds > 0, fanout / ds, 0.0)
    # DGL (labor_pick.h, labor_sampling.cu) bumps importance_sampling by one when
    # weighted: LABOR-0 with prob= solves Eq. (22) for c_s and returns edge weights too
    weighted_or_is = bool(importance_sampling) or w is not None
    if weighted_or_is:
        inv, n_uniq = None, 0  # weighted LABOR-0 (pi = w) reads no per-neighbour values
        if importance_sampling:
            uniq, inv = unique_ids_with(xp, nbr, return_inverse=True)
            inv, n_uniq = inv.reshape(-1), int(uniq.shape[0])
        c, hop = _importance(xp, importance_sampling, c, ds, deg_f, fanout, seg, inv, n_uniq, w)
        pi = w if hop is None else hop[inv]
    else:
        pi = xp.ones(eid.shape[0])
    r = _rolled(xp, rseeds, contribution, nbr)
    p = xp.minimum(1.0, c[seg] * pi)
    keep = r <= p
    kept = eid[keep]
    if not weighted_or_is:
        return xp.sort(kept), None
    order = xp.argsort(kept)
    ew = (xp.ones(kept.shape[0]) if w is None else w[keep]) / p[keep]
    kseg = seg[keep]
    count = xp.bincount(kseg, minlength=n).astype(xp.float64)
    total = xp.bincount(kseg, weights=ew, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ew = ew * (count / total)[kseg]  # mean 1 per seed, so fn.mean can be used
    return kept[order], ew[order]


def _check_int(value: Any, what: str, where: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {what} must be an int, got {value!r}")
    return int(value)


def _random_seed_pair(random_seed: Any, where: str) -> tuple[int, int]:
    if isinstance(random_seed, (list, tuple, np.ndarray)):
        vals = [_check_int(v, "random_seed", where) for v in np.asarray(random_seed).tolist()]
        if len(vals) not in (1, 2):
            raise ValueError(f"{where}: random_seed must hold 1 or 2 ints, got {len(vals)}")
        return vals[0], vals[-1]
    s = _check_int(random_seed, "random_seed", where)
    return s, s


def sample_labors(
    g: Graph,
    nodes: Any,
    fanout: int | Mapping[Any, int],
    *,
    edge_dir: str = "in",
    prob: str | None = None,
    importance_sampling: int = 0,
    random_seed: Any = None,
    seed2_contribution: float = 0.0,
    copy_ndata: bool = True,
    copy_edata: bool = True,
    exclude_edges: Any = None,
) -> tuple[Graph, list[Any]]:
    """A LABOR frontier (DGL's ``dgl.sampling.sample_labors``): ``(frontier, importances)``.

    ``nodes``, ``fanout``, ``edge_dir``, ``prob``, ``exclude_edges``, ``copy_ndata`` and
    ``copy_edata`` as :func:`arraygnn.sampling.sample_neighbors`; the kept edges are in
    edge-id order and ``frontier.edata[EID]`` holds their ids in ``g``. ``random_seed`` is
    an int or two ints (``None``: a fresh one) and ``seed2_contribution`` in ``[0, 1]``
    mixes the two (DGL's batch dependency). ``importances`` has one entry per canonical
    edge type: the kept edges' weights (same order) when ``importance_sampling != 0`` or
    that edge type has the ``prob`` feature (DGL's), else ``None``.
    """
    where = "sample_labors"
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: sample from the original graph, not a block")
    side = _edge_dir(edge_dir, where)
    seeds = _seeds(g, nodes, side, where)
    fanouts = _fanouts(g, fanout)
    rounds = _check_int(importance_sampling, "importance_sampling", where)
    if rounds < -1:
        raise ValueError(f"{where}: importance_sampling must be >= -1, got {rounds}")
    if random_seed is None:
        random_seed = int(np.random.default_rng().integers(10**18))
    rseeds = _random_seed_pair(random_seed, where)
    if isinstance(seed2_contribution, (bool, np.bool_)) or not isinstance(
        seed2_contribution, (int, float, np.number)
    ):
        raise TypeError(f"{where}: seed2_contribution must be a number, got {seed2_contribution!r}")
    if not 0 <= float(seed2_contribution) <= 1:
        raise ValueError(f"{where}: seed2_contribution must be in [0, 1], got {seed2_contribution}")
    probs = _edge_weights(g, prob, where, "prob") if prob is not None else {}
    xp = g._xp()
    for c, w in probs.items():
        finite = w.dtype.kind != "f" or bool(xp.isfinite(w).all())
        if w.size and not (finite and float(w.min()) >= 0):
            raise ValueError(
                f"{where}: prob {prob!r} of edge type {c!r} must be finite and non-negative"
            )
    excluded = _excluded_edges(g, exclude_edges, where)
    chosen, importances = {}, []
    for c in g._rels:
        t = c[2] if side == "dst" else c[0]
        imp = None
        if t in seeds and fanouts[c] != 0 and seeds[t].shape[0]:
            args = (fanouts[c], edge_dir, probs.get(c), rounds, rseeds, float(seed2_contribution))
            e, imp = _labor_relation(g, c, seeds[t], *args)
            if c in excluded:
                keep = ~xp.isin(e, excluded[c])
                e = e[keep]
                imp = None if imp is None else imp[keep]
        else:
            e = xp.zeros(0, dtype=g.idtype)
            imp = xp.zeros(0) if rounds or c in probs else None
        chosen[c] = e
        importances.append(imp)
    return _frontier(g, chosen, copy_ndata, copy_edata), importances


class LaborSampler:
    """Blocks sampled layer by layer with LABOR (DGL's ``dgl.dataloading.LaborSampler``),
    the ``sample_blocks(g, seed_nodes)`` protocol of
    :class:`~arraygnn.sampling.NeighborSampler` (so it plugs into
    :class:`~arraygnn.sampling.NodeDataLoader`).

    Args:
        fanouts: one fan-out per layer, input layer first (int or ``{etype: int}``).
        edge_dir, prob, importance_sampling: as :func:`sample_labors`.
        layer_dependency: the same ``r_t`` on every layer (DGL's; otherwise layer ``i``,
            counted from the output, uses the batch's seed ``+ i``).
        batch_dependency: ``1`` a new seed per batch; ``k > 1`` consecutive batches'
            ``r_t`` are correlated over a window of ``k`` (DGL's two-seed rotation);
            ``<= 0`` one seed for every batch.
        seed: seeds the generator of batch seeds (ours: the same seed, the same batches).
        copy_ndata: give the blocks their nodes' features (False: none).

    Returns per call ``(input_nodes, output_nodes, blocks)``, the blocks built with the
    seeds first among their source nodes; with importance sampling or ``prob``
    ``block.edata['edge_weights']`` holds the edges' weights (on a heterograph, on each
    edge type that has them; DGL's hetero assignment writes into a temporary dict and
    is lost).
    """

    def __init__(
        self,
        fanouts: Sequence[int | Mapping[Any, int]],
        edge_dir: str = "in",
        prob: str | None = None,
        importance_sampling: int = 0,
        layer_dependency: bool = False,
        batch_dependency: int = 1,
        *,
        seed: Any = None,
        copy_ndata: bool = True,
    ) -> None:
        where = "LaborSampler"
        if isinstance(fanouts, (int, np.integer, Mapping)) or not isinstance(fanouts, Sequence):
            raise TypeError(f"{where}: fanouts must be a list (one per layer), got {fanouts!r}")
        _edge_dir(edge_dir, where)
        if prob is not None and not isinstance(prob, str):
            raise TypeError(f"{where}: prob must name an edge feature, got {prob!r}")
        rounds = _check_int(importance_sampling, "importance_sampling", where)
        if rounds < -1:
            raise ValueError(f"{where}: importance_sampling must be >= -1, got {rounds}")
        self.fanouts = list(fanouts)
        self.edge_dir = edge_dir
        self.prob = prob
        self.importance_sampling = rounds
        self.layer_dependency = bool(layer_dependency)
        self.batch_dependency = _check_int(batch_dependency, "batch_dependency", where)
        self.copy_ndata = copy_ndata
        self._seed = seed
        self._count = -1
        self._seeds = [0, 0]
        self._rng: np.random.Generator | None = None
        if self.batch_dependency > 0:
            self.set_seed()
        else:
            self.set_seed(int(np.random.default_rng(seed).integers(10**18)))

    def set_seed(self, random_seed: int | None = None) -> None:
        """DGL's ``set_seed``: with an int, restart the batch seeds from it; without, move
        to the next batch (a new seed every ``batch_dependency`` batches)."""
        bd = self.batch_dependency
        if random_seed is None:
            self._count += 1
            if bd > 0 and self._count % bd == 0:
                if self._rng is None:
                    self._rng = np.random.default_rng(self._seed)
                if self._count <= 0 or bd <= 1:
                    self._seeds[0] = int(self._rng.integers(10**18))
                    if bd > 1:
                        self._seeds[1] = int(self._rng.integers(10**18))
                else:
                    self._seeds[0] = self._seeds[1]
                    self._seeds[1] = int(self._rng.integers(10**18))
            return
        self._rng = np.random.default_rng(_check_int(random_seed, "random_seed", "set_seed"))
        self._seeds[0] = int(self._rng.integers(10**18))
        if bd > 1:
            self._seeds[1] = int(self._rng.integers(10**18))
        self._count = 0

    def sample_blocks(
        self, g: Graph, seed_nodes: Any, exclude_eids: Any = None
    ) -> tuple[Any, Any, list[Graph]]:
        bd = self.batch_dependency
        pair = self._seeds if bd > 1 else [self._seeds[0]]
        contribution = (self._count % bd) / bd if bd > 1 else 0.0
        output_nodes, current = seed_nodes, seed_nodes
        blocks: list[Graph] = []
        for i, fanout in enumerate(reversed(self.fanouts)):
            shift = 0 if self.layer_dependency else i
            frontier, importances = sample_labors(
                g,
                current,
                fanout,
                edge_dir=self.edge_dir,
                prob=self.prob,
                importance_sampling=self.importance_sampling,
                random_seed=[s + shift for s in pair],
                seed2_contribution=contribution,
                copy_ndata=self.copy_ndata,
                exclude_edges=exclude_eids,
            )
            block = to_block(frontier, current)
            for c, imp in zip(g.canonical_etypes, importances):
                if imp is not None:  # importance sampling, or prob= on that edge type
                    block.edges[c].data["edge_weights"] = imp
            current = block.srcdata[NID]
            blocks.insert(0, block)
        if blocks:
            last = blocks[-1]
            if isinstance(seed_nodes, Mapping):
                output_nodes = {t: last._dst_frames[t][NID] for t in seed_nodes}
            else:
                output_nodes = last.dstdata[NID]
        self.set_seed()
        return current, output_nodes, blocks

    sample = sample_blocks
