"""Negative sampling speed: arraygnn against PyG in one run.

A random graph of 1M nodes and 10M directed edges (int64 ids); both libraries are asked for
1M negatives with ``negative_sampling(edge_index, num_nodes, num_neg_samples=1_000_000)``
(``method='sparse'``, PyG's default). Reported: the best and the median of a few runs each,
and PyG's time over arraygnn's. Both results are checked to be non-edges without
self-loops (on a sample of them: checking all 1M against 10M edges costs more than either).

    python benchmarks/bench_negative_sampling.py            # full size
    python benchmarks/bench_negative_sampling.py --quick    # 100k nodes / 1M edges / 100k
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from arraygnn.utils import negative_sampling  # noqa: E402


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), out


def check(neg: np.ndarray, edge_ids: np.ndarray, n: int, wanted: int, name: str) -> None:
    assert neg.shape[0] == 2, name
    sample = neg[:, :: max(1, neg.shape[1] // 100_000)]
    assert not (sample[0] == sample[1]).any(), f"{name}: self-loop"
    assert not np.isin(sample[0] * n + sample[1], edge_ids).any(), f"{name}: an edge"
    print(f"  {name}: {neg.shape[1]:,} pairs (asked {wanted:,}), checked {sample.shape[1]:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n, e, k = (100_000, 1_000_000, 100_000) if args.quick else (1_000_000, 10_000_000, 1_000_000)
    rng = np.random.default_rng(0)
    edge_index = rng.integers(0, n, (2, e), dtype=np.int64)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print(f"graph: {n:,} nodes, {e:,} edges; asking for {k:,} negatives")

    negative_sampling(edge_index[:, :1000], n, 10, seed=0)  # warm-up (imports)
    best, med, ours = timed(lambda: negative_sampling(edge_index, n, k, seed=0), args.repeats)
    print(f"arraygnn negative_sampling: best {best:.3f} s, median {med:.3f} s")
    edge_ids = np.unique(edge_index[0] * n + edge_index[1])
    check(ours, edge_ids, n, k, "arraygnn")

    if importlib.util.find_spec("torch_geometric") is None:
        print("torch_geometric not installed: no comparison")
        return
    import torch
    from torch_geometric.utils import negative_sampling as pyg_negative_sampling

    torch.manual_seed(0)
    ei = torch.from_numpy(edge_index)
    pyg_negative_sampling(ei[:, :1000], n, 10)
    pbest, pmed, theirs = timed(lambda: pyg_negative_sampling(ei, n, k), args.repeats)
    print(f"PyG negative_sampling:      best {pbest:.3f} s, median {pmed:.3f} s")
    check(theirs.numpy(), edge_ids, n, k, "PyG")
    print(f"PyG / arraygnn: {pbest / best:.2f}x (best), {pmed / med:.2f}x (median)")


if __name__ == "__main__":
    main()
