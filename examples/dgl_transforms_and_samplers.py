"""DGL-style preprocessing with the ``dgl.transforms`` classes, then node mini-batches with
the LABOR and ShaDow-KHop samplers and a 2-layer SAGEConv / GraphConv model.

No training (random weights): the point is the pipeline and its guarantees.

1. preprocessing: a random directed multigraph (parallel edges, a few self-loops) goes
   through ``Compose([AddReverse(), ToSimple(), AddSelfLoop(), GCNNorm(), RandomWalkPE(k),
   LapPE(k), SIGNDiffusion(k, diffuse_op='gcn')])``: the result is simple, has exactly one
   self-loop per node, carries the GCN weight ``1 / sqrt(d_u d_v)`` of every edge in
   ``edata['w']`` and the encodings / diffusions in ``ndata``; the input graph is not
   changed (arraygnn's transforms always return a new graph). ``DropEdge`` is shown as a
   seeded augmentation (successive calls differ, the input stays intact).
2. the model: ``SAGEConv`` (mean) then ``GraphConv(norm='none')`` fed the precomputed GCN
   weights, on blocks or on a whole graph alike.
3. exact inference: with every neighbour (``MultiLayerFullNeighborSampler(2)``,
   ``LaborSampler([-1, -1])`` and ``ShaDowKHopSampler([-1, -1])``) through
   ``NodeDataLoader``, the mini-batch outputs equal the full-graph output.
4. sampled batches: ``LaborSampler([10, 10])`` against ``NeighborSampler([10, 10])`` on the
   same seed batches: LABOR's neighbours are shared between seeds, so it needs no more
   distinct input nodes (both counts printed); ``ShaDowKHopSampler([10, 5])`` gives one
   induced subgraph per batch (every edge of the graph between its nodes).

    python examples/dgl_transforms_and_samplers.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn.nn as nn
from arraygnn.graph import (
    EID,
    NID,
    AddReverse,
    AddSelfLoop,
    Compose,
    DropEdge,
    GCNNorm,
    LapPE,
    RandomWalkPE,
    SIGNDiffusion,
    ToSimple,
    graph,
)
from arraygnn.labor_sampler import LaborSampler
from arraygnn.sampling import MultiLayerFullNeighborSampler, NeighborSampler, NodeDataLoader
from arraygnn.shadow_sampler import ShaDowKHopSampler

N, E, F, K = 5_000, 50_000, 16, 4  # nodes, raw edges, raw feature size, PE / diffusion steps
FANOUTS, BATCH = [10, 10], 64  # the sampled mini-batches
TRAIN = 1_024  # seeds of the sampled batches (the first 16 batches of an epoch)


def make_graph(rng: np.random.Generator):
    """A directed multigraph: uniform edges, 5% of them repeated, and a few self-loops."""
    u = rng.integers(0, N, E)
    v = rng.integers(0, N, E)
    dup = rng.choice(E, E // 20, replace=False)
    loops = rng.choice(N, 100, replace=False)
    src = np.concatenate([u, u[dup], loops])
    dst = np.concatenate([v, v[dup], loops])
    g = graph((src, dst), num_nodes=N)
    g.ndata["feat"] = rng.standard_normal((N, F)).astype(np.float32)
    return g


def edge_pairs(src, dst) -> np.ndarray:
    return np.asarray(src, dtype=np.int64) * N + np.asarray(dst, dtype=np.int64)


class Model:
    """SAGEConv (mean) -> ReLU -> GraphConv with the precomputed GCN weights."""

    def __init__(self, in_feats: int, hidden: int, out_feats: int) -> None:
        self.conv1 = nn.SAGEConv(in_feats, hidden, "mean", rng=0)
        self.conv2 = nn.GraphConv(hidden, out_feats, norm="none", rng=1)

    def __call__(self, graphs, h, w2):
        """``graphs``: two blocks, or one graph used twice; ``w2``: the second layer's
        edge weights."""
        h = np.maximum(self.conv1(graphs[0], h), 0)
        return self.conv2(graphs[1], h, edge_weight=w2)


def main() -> None:
    t_start = time.perf_counter()
    rng = np.random.default_rng(0)
    g = make_graph(rng)
    src0, dst0 = (a.copy() for a in g.edges())
    feat0 = g.ndata["feat"].copy()

    # 1. preprocessing ------------------------------------------------------------------
    transform = Compose(
        [
            AddReverse(),  # undirected: every edge and its reverse
            ToSimple(return_counts="count"),  # merge the parallel edges (and u->v + v->u pairs)
            AddSelfLoop(),  # drop the existing loops, add one per node
            GCNNorm(eweight_name="w"),  # edata['w'] = 1 / sqrt(d_u d_v)
            RandomWalkPE(K, feat_name="rw_pe"),
            LapPE(K, feat_name="lap_pe", seed=0),
            SIGNDiffusion(K, in_feat_name="feat", out_feat_name="sign", diffuse_op="gcn"),
        ]
    )
    g2 = transform(g)

    # the input graph is unchanged: same edges, same features, no new fields
    s, d = g.edges()
    assert np.array_equal(s, src0) and np.array_equal(d, dst0)
    assert np.array_equal(g.ndata["feat"], feat0)
    assert sorted(g.ndata.keys()) == ["feat"] and len(g.edata.keys()) == 0

    s2, d2 = (np.asarray(a, dtype=np.int64) for a in g2.edges())
    pairs = edge_pairs(s2, d2)
    assert len(np.unique(pairs)) == g2.num_edges(), "the transformed graph is not simple"
    loops = s2 == d2
    assert np.array_equal(np.sort(s2[loops]), np.arange(N)), "not one self-loop per node"
    assert np.isin(edge_pairs(d2, s2), pairs).all(), "not symmetric"
    deg = np.bincount(d2, minlength=N).astype(np.float64)  # in-degree (loop included)
    w = g2.edata["w"]
    assert w.shape == (g2.num_edges(),)
    assert np.allclose(w, 1.0 / np.sqrt(deg[s2] * deg[d2]), rtol=1e-5)
    # SIGN's 'gcn' diffusion is the GCN propagation with those weights, step after step
    h = feat0.astype(np.float64)
    for i in range(1, K + 1):
        h_next = np.zeros_like(h)
        np.add.at(h_next, d2, w[:, None] * h[s2])
        h = h_next
        assert np.allclose(g2.ndata[f"sign_{i}"], h, rtol=1e-4, atol=1e-5)
    assert g2.ndata["rw_pe"].shape == (N, K) and g2.ndata["lap_pe"].shape == (N, K)
    # the first landing probability of a walk back to its start: its self-loop, 1 / degree
    assert np.allclose(g2.ndata["rw_pe"][:, 0], 1.0 / deg, rtol=1e-5)
    n_multi = len(src0) - len(np.unique(edge_pairs(src0, dst0)))
    print(
        f"input: {g.num_nodes()} nodes, {g.num_edges()} directed edges "
        f"({n_multi} parallel, {int((src0 == dst0).sum())} self-loops) -- unchanged"
    )
    print(
        f"transformed: {g2.num_edges()} edges, simple, symmetric, one self-loop per node, "
        f"GCN weights in edata['w']; ndata {sorted(g2.ndata.keys())}"
    )

    # a seeded augmentation: each call drops a fresh 20% of the edges, g2 is left intact
    drop = DropEdge(p=0.2, seed=0)
    a1, a2 = drop(g2), drop(g2)
    kept1, kept2 = (edge_pairs(*a.edges()) for a in (a1, a2))
    assert g2.num_edges() == len(pairs) and np.array_equal(edge_pairs(*g2.edges()), pairs)
    assert np.isin(kept1, pairs).all() and not np.array_equal(kept1, kept2)
    assert abs(len(kept1) / len(pairs) - 0.8) < 0.02
    assert np.array_equal(edge_pairs(*DropEdge(p=0.2, seed=0)(g2).edges()), kept1)
    print(f"DropEdge(p=0.2): {len(kept1)} and {len(kept2)} edges kept on two calls")

    # 2. the model: raw features + positional encodings + SIGN diffusions as input -------
    names = ["feat", "rw_pe", "lap_pe"] + [f"sign_{i}" for i in range(1, K + 1)]
    x = np.concatenate([g2.ndata[k] for k in names], axis=1).astype(np.float32)
    model = Model(x.shape[1], 32, 8)
    full = model([g2, g2], x, w)

    def block_forward(input_nodes, blocks):
        # blocks carry EID: the second layer takes the GCN weights of its edges
        return model(blocks, x[input_nodes], w[blocks[1].edata[EID]])

    # 3. exact inference: every neighbour -> the full-graph output ----------------------
    seeds = np.arange(N)
    for name, sampler in [
        ("MultiLayerFullNeighborSampler(2)", MultiLayerFullNeighborSampler(2)),
        ("LaborSampler([-1, -1])", LaborSampler([-1, -1], seed=0)),
    ]:
        out = np.full_like(full, np.nan)
        for input_nodes, output_nodes, blocks in NodeDataLoader(
            g2, seeds, sampler, batch_size=1_000
        ):
            out[output_nodes] = block_forward(input_nodes, blocks)
        diff = np.abs(out - full).max()
        assert np.allclose(out, full, rtol=1e-4, atol=1e-5), (name, diff)
        print(f"{name}: block outputs equal the full-graph output (max |diff| {diff:.1e})")

    out = np.full_like(full, np.nan)
    for input_nodes, output_nodes, sg in NodeDataLoader(
        g2, seeds, ShaDowKHopSampler([-1, -1], seed=0), batch_size=1_000
    ):
        assert np.array_equal(input_nodes[: len(output_nodes)], output_nodes)  # seeds first
        h = model([sg, sg], x[input_nodes], w[sg.edata[EID]])
        out[output_nodes] = h[: len(output_nodes)]
    diff = np.abs(out - full).max()
    assert np.allclose(out, full, rtol=1e-4, atol=1e-5), diff
    print(
        "ShaDowKHopSampler([-1, -1]): subgraph outputs equal the full-graph output "
        f"(max |diff| {diff:.1e})"
    )

    # 4. sampled batches: LABOR vs neighbour sampling on the same seed batches ----------
    train = np.random.default_rng(1).permutation(N)[:TRAIN]
    per_batch, edges_per_dst = {}, {}
    for name, sampler in [
        ("NeighborSampler", NeighborSampler(FANOUTS, seed=0)),
        ("LaborSampler", LaborSampler(FANOUTS, seed=0)),
    ]:
        t0 = time.perf_counter()
        counts, kept = [], []
        for input_nodes, output_nodes, blocks in NodeDataLoader(
            g2, train, sampler, batch_size=BATCH
        ):
            assert np.array_equal(input_nodes[: len(output_nodes)], output_nodes)
            assert block_forward(input_nodes, blocks).shape == (len(output_nodes), 8)
            for b, fanout in zip(blocks, FANOUTS):
                per_dst = np.bincount(b.edges()[1], minlength=b.num_dst_nodes())
                kept.append(per_dst.mean())
                if name == "NeighborSampler":  # exactly min(fanout, degree) in-edges
                    assert per_dst.max() <= fanout
            counts.append(len(input_nodes))
        per_batch[name], edges_per_dst[name] = np.array(counts), float(np.mean(kept))
        print(
            f"{name}({FANOUTS}): {sum(counts)} distinct input nodes over {len(counts)} "
            f"batches of {BATCH} seeds (mean {np.mean(counts):.0f} per batch, "
            f"{edges_per_dst[name]:.1f} in-edges per destination), {time.perf_counter() - t0:.2f} s"
        )
    # LABOR keeps `fanout` edges per seed only in expectation (about as many edges) ...
    assert abs(edges_per_dst["LaborSampler"] - edges_per_dst["NeighborSampler"]) < 0.5
    # ... but shares the neighbours it keeps between seeds: fewer distinct input nodes
    labor, neighbor = per_batch["LaborSampler"], per_batch["NeighborSampler"]
    assert (labor <= neighbor).all() and labor.sum() <= neighbor.sum()
    print(f"LABOR / neighbour sampling input nodes: {labor.sum() / neighbor.sum():.2f}")

    shadow = ShaDowKHopSampler([10, 5], seed=0)
    sizes = []
    for input_nodes, output_nodes, sg in NodeDataLoader(g2, train, shadow, batch_size=BATCH):
        # the subgraph is induced: every edge of g2 between its nodes, with its weight
        inside = np.isin(s2, input_nodes) & np.isin(d2, input_nodes)
        assert sg.num_edges() == int(inside.sum())
        assert np.array_equal(sg.ndata[NID], input_nodes)
        assert np.allclose(sg.edata["w"], w[sg.edata[EID]])
        h = model([sg, sg], x[input_nodes], sg.edata["w"])[: len(output_nodes)]
        assert h.shape == (len(output_nodes), 8) and np.isfinite(h).all()
        sizes.append((sg.num_nodes(), sg.num_edges()))
    nodes, edges = np.mean(sizes, axis=0)
    print(
        f"ShaDowKHopSampler([10, 5]): {len(sizes)} induced subgraphs, "
        f"{nodes:.0f} nodes / {edges:.0f} edges on average"
    )
    print(f"total {time.perf_counter() - t_start:.2f} s")


if __name__ == "__main__":
    main()
