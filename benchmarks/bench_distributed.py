"""Distributed k-hop propagation on a local Dask cluster vs the single-process path.

Measures, in one run, on a seeded power-law graph:
- single-process ``ops.spmm`` hops (the anchor) and the same hops over a 2-worker
  ``LocalCluster`` for several partition counts (ratio printed: on one small
  machine the cluster is slower — it pays for task scheduling, pickling and
  inter-process copies, and gains no cores);
- bytes exchanged per hop against the minimum (the halo rows) and against
  broadcasting the whole feature matrix to every block;
- a model of the time per hop on N machines, from the measured per-partition
  compute time and exchange volume: ``T(N) = max_machine(compute) + halo_bytes /
  bandwidth + task_overhead`` (bandwidth and per-task overhead are stated inputs).

Run: ``python benchmarks/bench_distributed.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arraygnn import ops
from arraygnn.datasets import powerlaw_graph
from arraygnn.distributed import local_cluster, partition_graph, propagate


def _sym_norm(ei: np.ndarray, n: int) -> np.ndarray:
    deg = np.bincount(ei[1], minlength=n).astype(np.float64)
    dinv = 1.0 / np.sqrt(np.maximum(deg, 1.0))
    return (dinv[ei[0]] * dinv[ei[1]]).astype(np.float32)


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small graph (CI size)")
    p.add_argument("--nodes", type=int, default=200_000)
    p.add_argument("--edges", type=int, default=2_000_000)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--hops", type=int, default=3)
    p.add_argument("--bandwidth-gbs", type=float, default=1.25, help="network GB/s (10 GbE)")
    p.add_argument(
        "--task-overhead-ms",
        type=float,
        default=None,
        help="per-hop scheduling overhead for the model (default: measured)",
    )
    args = p.parse_args()
    if args.quick:
        args.nodes, args.edges = 5_000, 40_000

    n, e, f = args.nodes, args.edges, args.features
    src, dst = powerlaw_graph(n, e, seed=0)
    ei = np.stack([src, dst])
    w = _sym_norm(ei, n)
    x = np.random.default_rng(0).standard_normal((n, f)).astype(np.float32)
    csr = ops.to_csr(ei, n, n)

    def single():
        h = x
        for _ in range(args.hops):
            h = ops.spmm(csr, h, edge_weight=w)
        return h

    single()  # compile
    t_single = _best(single, 3)
    want = single()
    row_bytes = f * 4
    print(f"graph: {n:,} nodes, {e:,} edges, F={f}, {args.hops} hops")
    print(f"single process: {t_single * 1e3:.1f} ms ({t_single / args.hops * 1e3:.1f} ms/hop)")

    rows = []
    with local_cluster(n_workers=2, threads_per_worker=1) as client:
        for parts in (2, 4, 8):
            pg = partition_graph(ei, n, parts, edge_weight=w)

            def dist(pg=pg):
                hops = propagate(client, pg, x, hops=args.hops)
                return hops

            dist()  # warm: workers compile / load the cache, blocks prepared
            t_dist = _best(dist, 2)  # propagate waits for every hop
            hops = dist()
            got = hops[-1].gather()
            exact = bool(np.array_equal(got, want))
            st = hops[1].stats
            broadcast = (parts - 1) * n * row_bytes  # every block receives all other rows
            # Per-partition compute, measured locally with the same kernel.
            comp = []
            for b in pg.blocks:
                buf = np.zeros((b.num_rows + b.halo_ids.shape[0], f), np.float32)
                dst_local = np.repeat(np.arange(b.num_rows), np.diff(b.indptr))
                bcsr = ops.to_csr(np.stack([b.src, dst_local]), buf.shape[0], b.num_rows)
                ops.spmm(bcsr, buf, edge_weight=b.edge_weight)
                comp.append(_best(lambda c=bcsr, v=buf, ew=b.edge_weight: ops.spmm(c, v, ew), 3))
            rows.append((parts, t_dist, exact, st, broadcast, comp))

        overhead = args.task_overhead_ms
        if overhead is None:
            t = time.perf_counter()
            client.gather([client.submit(int, i, pure=False) for i in range(200)])
            overhead = (time.perf_counter() - t) / 200 * 1e3 * 4  # ~4 task rounds per hop

    print()
    print(
        "| parts | cluster ms | vs single | exact | halo rows/hop | halo MB/hop "
        "| cross-worker MB/hop | broadcast MB/hop |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for parts, t_dist, exact, st, broadcast, _ in rows:
        print(
            f"| {parts} | {t_dist * 1e3:.0f} | {t_dist / t_single:.1f}x slower | {exact} "
            f"| {st.halo_rows:,} | {st.halo_bytes / 1e6:.2f} | "
            f"{st.cross_worker_bytes / 1e6:.2f} | {broadcast / 1e6:.2f} |"
        )

    print()
    print(
        f"model: time per hop on N machines (one block each), network "
        f"{args.bandwidth_gbs} GB/s, scheduling {overhead:.1f} ms/hop"
    )
    print(
        "| N | max block compute ms | halo MB into busiest block | modelled ms/hop "
        "| speed-up vs 1 process |"
    )
    print("|---|---|---|---|---|")
    t1 = t_single / args.hops
    for parts, _, _, _, _, comp in rows:
        pg = partition_graph(ei, n, parts, edge_weight=w)
        halo_in = max(b.halo_ids.shape[0] for b in pg.blocks) * row_bytes
        t_model = max(comp) + halo_in / (args.bandwidth_gbs * 1e9) + overhead / 1e3
        print(
            f"| {parts} | {max(comp) * 1e3:.2f} | {halo_in / 1e6:.2f} | "
            f"{t_model * 1e3:.2f} | {t1 / t_model:.2f}x |"
        )


if __name__ == "__main__":
    main()
