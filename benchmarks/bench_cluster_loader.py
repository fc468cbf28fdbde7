"""Cluster-GCN against PyG 2.8.1 itself: ``ClusterData`` built from a given partition and
one epoch of ``ClusterLoader``, on a power-law graph made undirected (METIS' input). PyG's
METIS needs torch_sparse / pyg-lib (not installed), so PyG runs with its ``_metis``
returning the same part ids; METIS itself (pymetis, ours) is timed on its own. Best of
``--repeat`` runs, arraygnn and PyG alternating; the ratio is PyG's time over ours.

    python benchmarks/bench_cluster_loader.py            # 100k nodes / ~1M edges
    python benchmarks/bench_cluster_loader.py --quick    # 10k nodes / ~100k edges
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from arraygnn import powerlaw_graph  # noqa: E402
from arraygnn.cluster_data import ClusterData  # noqa: E402
from arraygnn.cluster_loader import ClusterLoader  # noqa: E402
from arraygnn.data import Data  # noqa: E402


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def alternate(ours, theirs, repeat: int) -> tuple[float, object, float, object]:
    """Best of ``repeat`` runs of each, alternating (a shared box's load hits both)."""
    a, b = (float("inf"), None), (float("inf"), None)
    for _ in range(repeat):
        ta, oa = best(ours, 1)
        tb, ob = best(theirs, 1)
        a, b = min(a, (ta, oa), key=lambda r: r[0]), min(b, (tb, ob), key=lambda r: r[0])
    return a[0], a[1], b[0], b[1]


def main() -> None:
    import torch
    import torch_geometric.loader.cluster as pyg_cluster
    from torch_geometric.data import Data as PygData

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--num-parts", type=int, default=1000)
    ap.add_argument("--batch-size", type=int, default=20)
    args = ap.parse_args()
    torch.set_num_threads(1)
    n, half = (10_000, 50_000) if args.quick else (100_000, 500_000)
    src, dst = powerlaw_graph(n, half, seed=0)
    ei = np.unique(np.concatenate([src * n + dst, dst * n + src]))  # undirected, simple
    ei = np.stack([ei // n, ei % n])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 64)).astype(np.float32)
    y = rng.integers(0, 10, n)
    data = Data(x=x, y=y, edge_index=ei)
    pyg_data = PygData(
        x=torch.from_numpy(x), y=torch.from_numpy(y), edge_index=torch.from_numpy(ei)
    )
    k, bs = args.num_parts, args.batch_size
    print(f"graph: {n} nodes, {ei.shape[1]} edges (undirected); {k} parts, batch_size={bs}")

    t_metis, part = None, rng.integers(0, k, n)
    try:
        import pymetis  # noqa: F401

        t_metis, cd = best(lambda: ClusterData(data, k, log=False, node_attrs=["x", "y"]), 1)
        p = cd.partition
        part = np.empty(n, np.int64)
        part[p.node_perm] = np.repeat(np.arange(k), np.diff(p.partptr))
        cut = float((part[ei[0]] != part[ei[1]]).mean())
        print(f"ClusterData with METIS (k-way, pymetis): {t_metis * 1e3:8.0f} ms, cut {cut:.1%}")
    except ImportError:
        print("pymetis not installed: METIS not timed, random part ids used")

    class Patched(pyg_cluster.ClusterData):
        def _metis(self, edge_index, num_nodes):
            return torch.from_numpy(part)

    def ours_build():
        return ClusterData(data, k, partition=part, log=False, node_attrs=["x", "y"])

    def pyg_build():
        return Patched(pyg_data, k, log=False)

    def epoch(loader):
        return sum(b.num_nodes for b in loader)

    rows = []
    t_ours, cd, t_pyg, pcd = alternate(ours_build, pyg_build, args.repeat)
    rows.append(("ClusterData (given partition)", t_ours, t_pyg))
    t_ours, seen, t_pyg, seen_pyg = alternate(
        lambda: epoch(ClusterLoader(cd, batch_size=bs, shuffle=True)),
        lambda: epoch(pyg_cluster.ClusterLoader(pcd, batch_size=bs, shuffle=True)),
        args.repeat,
    )
    assert seen == seen_pyg == n
    rows.append((f"ClusterLoader epoch ({-(-k // bs)} batches)", t_ours, t_pyg))
    for name, a, b in rows:
        print(f"{name:40s} arraygnn {a * 1e3:8.1f} ms   PyG {b * 1e3:8.1f} ms   x{b / a:5.1f}")


if __name__ == "__main__":
    main()
