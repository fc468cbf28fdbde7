"""Benchmark ``arraygnn.transforms.AddRandomWalkPE`` against PyG's in one run.

PyG takes the diagonal of ``P^t`` from matrix powers (dense up to 2,000 nodes, torch sparse
CSR products above); those products fill in, so on graphs of a few thousand nodes and more
their time and memory grow towards ``n^2`` per step. arraygnn uses sparse powers while they
stay sparse and then advances the rows of the last power for blocks of nodes with one fused
SpMM per step. Random graphs (edges made symmetric), float32, one torch thread and one Numba
thread (``--threads``), best / median of ``--repeat`` after one warm-up::

    python benchmarks/bench_random_walk_pe.py
    python benchmarks/bench_random_walk_pe.py --repeat 5 --threads 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import limit_threads, times  # noqa: E402

from arraygnn.data import Data  # noqa: E402
from arraygnn.transforms import AddRandomWalkPE  # noqa: E402

#: (label, nodes, random edges before symmetrising, walk length)
CASES = [
    ("molecule-sized", 30, 32, 16),
    ("Cora-sized", 2708, 5278, 8),
    ("Cora-sized", 2708, 5278, 16),
    ("5k / 50k", 5000, 25000, 8),
    ("100k / 400k (stays sparse)", 100_000, 200_000, 4),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    limit_threads(args.threads)
    try:
        import torch
        import torch_geometric.transforms as pyg_t
        from torch_geometric.data import Data as PygData
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    print("| graph | walk | arraygnn ms (best / median) | PyG ms | PyG / arraygnn | max diff |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, n, e, k in CASES:
        ei = rng.integers(0, n, (2, e))
        ei = np.concatenate([ei, ei[::-1]], 1)
        ours = AddRandomWalkPE(k)
        data = Data(edge_index=ei, num_nodes=n)
        fns = [lambda ours=ours, data=data: ours(data)]
        if torch is not None:
            ref = pyg_t.AddRandomWalkPE(k)
            pd = PygData(edge_index=torch.from_numpy(ei), num_nodes=n)
            fns.append(lambda ref=ref, pd=pd: ref(pd.clone()))
        res = times(fns, args.repeat)
        a = res[0]
        if torch is None:
            print(f"| {label} | {k} | {a[0]:.1f} / {a[1]:.1f} | - | - | - |")
            continue
        p = res[1]
        diff = np.abs(ours(data).random_walk_pe - ref(pd.clone()).random_walk_pe.numpy()).max()
        print(
            f"| {label} | {k} | {a[0]:.1f} / {a[1]:.1f} | {p[0]:.1f} / {p[1]:.1f} | "
            f"{p[0] / a[0]:.2f}x | {diff:.1e} |"
        )


if __name__ == "__main__":
    main()
