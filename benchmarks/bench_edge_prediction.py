"""One epoch of DGL-style link-prediction mini-batches (``EdgeDataLoader`` over
``as_edge_prediction_sampler(NeighborSampler(fanouts), exclude='self', Uniform(k))``).

A power-law graph (``powerlaw_graph``, 100k nodes / 1M edges by default). Reported: the
epoch's wall time, the time per batch, and the anchor measured in the same run: the part
spent in the node-wise ``NeighborSampler.sample_blocks`` on the pair graphs' nodes (what a
``NodeDataLoader`` over the same seed nodes would cost), so the ratio is the edge-wise
layer's own cost (seed-edge checks, negatives, pair-graph compaction, exclusion).

    python benchmarks/bench_edge_prediction.py                     # 100k / 1M, one epoch
    python benchmarks/bench_edge_prediction.py --edges 100000      # a tenth of an epoch
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn  # noqa: E402
from arraygnn.edge_data_loader import EdgeDataLoader  # noqa: E402
from arraygnn.edge_prediction import as_edge_prediction_sampler  # noqa: E402
from arraygnn.graph import graph  # noqa: E402
from arraygnn.negative_sampler import Uniform  # noqa: E402
from arraygnn.sampling import NeighborSampler  # noqa: E402


class Timed:
    """A node-wise sampler that adds up the time of its ``sample_blocks`` calls."""

    def __init__(self, inner: NeighborSampler) -> None:
        self.inner, self.seconds, self.seeds = inner, 0.0, 0

    def sample_blocks(self, g, seed_nodes, exclude_eids=None):  # noqa: ANN001, ANN201
        t0 = time.perf_counter()
        out = self.inner.sample_blocks(g, seed_nodes, exclude_eids)
        self.seconds += time.perf_counter() - t0
        self.seeds += int(seed_nodes.shape[0])
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--num-edges", type=int, default=1_000_000)
    ap.add_argument("--edges", type=int, default=None, help="seed edges (default: all)")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--fanouts", type=int, nargs="+", default=[10, 10])
    ap.add_argument("--negatives", type=int, default=1)
    args = ap.parse_args()
    src, dst = arraygnn.powerlaw_graph(args.nodes, args.num_edges, seed=0)
    g = graph((src, dst), num_nodes=args.nodes)
    seeds = np.arange(g.num_edges() if args.edges is None else args.edges)
    timed = Timed(NeighborSampler(args.fanouts, seed=0, copy_ndata=False))
    sampler = as_edge_prediction_sampler(
        timed, exclude="self", negative_sampler=Uniform(args.negatives, seed=0)
    )
    warm = EdgeDataLoader(g, seeds[:2048], sampler, batch_size=args.batch_size)
    for _ in warm:  # Numba kernels load from the cache; CSRs are built once
        pass
    timed.seconds, timed.seeds = 0.0, 0
    loader = EdgeDataLoader(g, seeds, sampler, batch_size=args.batch_size, shuffle=True, seed=0)
    t0 = time.perf_counter()
    batches = sum(1 for _ in loader)
    total = time.perf_counter() - t0
    print(
        f"graph {args.nodes} nodes / {g.num_edges()} edges; {len(seeds)} seed edges, batch "
        f"{args.batch_size}, fan-outs {args.fanouts}, Uniform({args.negatives}), exclude='self'"
    )
    print(
        f"epoch {total:.1f} s, {batches} batches, {1000 * total / batches:.1f} ms per batch "
        f"({timed.seeds / batches:.0f} seed nodes per batch)"
    )
    print(
        f"anchor (node-wise sample_blocks on the pair graphs' nodes): {timed.seconds:.1f} s; "
        f"edge-wise layer's own share {(total - timed.seconds) / total:.1%}"
    )


if __name__ == "__main__":
    main()
