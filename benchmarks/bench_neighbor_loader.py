"""NeighborLoader speed: disjoint and temporal sampling against the plain loader, one run.

PyG's own loader cannot run here (it needs pyg-lib or torch-sparse), so the anchor is
arraygnn's plain (shared-tree) ``NeighborLoader`` on the same graph, seeds and fan-outs,
measured in the same run. A power-law graph (``arraygnn.powerlaw_graph``) with 64 float32
features, random integer node times and edge times; batches of 1,024 shuffled seeds,
fan-out ``[15, 10]``. Reported per mode: the median and best seconds per batch over
``--batches`` batches (after one warm-up batch), the nodes / edges per batch, and the
times over the anchor's (median over median, best over best; the anchor runs first and
last, the faster of the two counts). Disjoint trees hold more nodes than one shared tree
(a node reached from two seeds is there twice), so the per-node cost is printed too.

    python benchmarks/bench_neighbor_loader.py            # 200k nodes / 2M edges
    python benchmarks/bench_neighbor_loader.py --quick    # 20k nodes / 200k edges
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.hetero_data import HeteroData  # noqa: E402
from arraygnn.neighbor_loader import NeighborLoader  # noqa: E402


def per_batch(loader: NeighborLoader, batches: int) -> tuple[float, float, float, float]:
    """(median s, best s, nodes, edges) per batch over ``batches`` batches after a warm-up."""
    it = iter(loader)
    next(it)  # warm-up: Numba kernels from the cache, id maps
    times, nodes, edges = [], [], []
    for _ in range(batches):
        t0 = time.perf_counter()
        try:
            batch = next(it)
        except StopIteration:  # a small graph: a new epoch
            it = iter(loader)
            t0 = time.perf_counter()
            batch = next(it)
        times.append(time.perf_counter() - t0)
        if isinstance(batch, HeteroData):
            nodes.append(sum(s.num_nodes for _, s in batch.node_items()))
            edges.append(sum(int(s.edge_index.shape[1]) for _, s in batch.edge_items()))
        else:
            nodes.append(batch.num_nodes)
            edges.append(int(batch.edge_index.shape[1]))
    return statistics.median(times), min(times), statistics.mean(nodes), statistics.mean(edges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--batches", type=int, default=10)
    args = parser.parse_args()
    n, e = (20_000, 200_000) if args.quick else (200_000, 2_000_000)
    src, dst, x = arraygnn.powerlaw_graph(n, e, seed=0, num_features=64)
    rng = np.random.default_rng(0)
    e = int(src.shape[0])
    data = Data(
        x=x.astype(np.float32),
        edge_index=np.stack([src, dst]),
        time=rng.integers(0, 1000, n),
        edge_time=rng.integers(0, 1000, e),
        num_nodes=n,
    )
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print(f"graph: {n:,} nodes, {e:,} edges, 64 float32 features; batch 1024, [15, 10]")
    kw = dict(batch_size=1024, shuffle=True, seed=0, node_attrs=["x", "time"])
    kw["edge_attrs"] = ["edge_time"]
    modes = {
        "plain (anchor)": {},
        "disjoint=True": dict(disjoint=True),
        "node time, uniform": dict(time_attr="time"),
        "node time, last": dict(time_attr="time", temporal_strategy="last"),
        "edge time + input_time": dict(
            time_attr="edge_time", input_time=rng.integers(500, 1000, n)
        ),
    }
    modes["plain (anchor, again)"] = {}
    rows = []
    for name, extra in modes.items():
        t0 = time.perf_counter()
        loader = NeighborLoader(data, [15, 10], **kw, **extra)
        build = time.perf_counter() - t0
        rows.append((name, build, *per_batch(loader, args.batches)))
    anchor = (min(rows[0][2], rows[-1][2]), min(rows[0][3], rows[-1][3]))
    for name, build, med, best, nodes, edges in rows:
        print(
            f"  {name:24s} median {med * 1e3:6.1f} ms  best {best * 1e3:6.1f} ms  "
            f"{nodes:8,.0f} nodes {edges:8,.0f} edges  {best / nodes * 1e9:4.0f} ns/node  "
            f"anchor x{med / anchor[0]:4.2f} (median) x{best / anchor[1]:4.2f} (best)  "
            f"build {build:.2f} s"
        )
    # a HeteroData of two node types (node times on both), three edge types
    half = n // 2
    het = HeteroData(
        paper={"x": x[:half].astype(np.float32), "time": rng.integers(0, 1000, half)},
        author={"x": x[half:].astype(np.float32), "time": rng.integers(0, 1000, n - half)},
    )
    third = e // 3
    het["author", "writes", "paper"].edge_index = np.stack(
        [src[:third] % (n - half), dst[:third] % half]
    )
    het["paper", "cites", "paper"].edge_index = np.stack(
        [src[third : 2 * third] % half, dst[third : 2 * third] % half]
    )
    het["paper", "rev", "author"].edge_index = np.stack(
        [src[2 * third :] % half, dst[2 * third :] % (n - half)]
    )
    print(f"HeteroData: 2 node types, 3 edge types, {e:,} edges; input 'paper'")
    anchor = None
    for name, extra in {"plain (anchor)": {}, "node time, uniform": {"time_attr": "time"}}.items():
        loader = NeighborLoader(
            het, [15, 10], input_nodes="paper", batch_size=1024, shuffle=True, seed=0,
            node_attrs=["x", "time"], **extra,
        )  # fmt: skip
        med, best, nodes, edges = per_batch(loader, args.batches)
        anchor = anchor or (med, best)
        print(
            f"  {name:24s} median {med * 1e3:6.1f} ms  best {best * 1e3:6.1f} ms  "
            f"{nodes:8,.0f} nodes {edges:8,.0f} edges  "
            f"anchor x{med / anchor[0]:4.2f} (median) x{best / anchor[1]:4.2f} (best)"
        )


if __name__ == "__main__":
    main()
