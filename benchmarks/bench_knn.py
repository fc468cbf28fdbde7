"""Benchmark ``arraygnn.utils.knn_graph`` against the SciPy code one would otherwise write.

Measured in ONE run, on this machine, so the ratios compare like with like:

- ``arraygnn``: :func:`arraygnn.utils.knn_graph` (examples grouped into chunks of about
  ``CHUNK_POINTS`` points, one k-d tree per chunk with the example id folded in as an extra
  coordinate; exact ties broken by index; sorted output);
- ``per-example loop``: a ``scipy.spatial.cKDTree`` per example in a Python loop, ``k + 1``
  neighbours queried, the self-match dropped, the pieces concatenated (no tie handling);
- ``one folded tree``: every example in ONE tree, the example id folded in (the other
  extreme of the chunking);
- ``torch_cluster.knn_graph`` when importable (it is not on the development box).

Cases: the brief's 100k points in 3-D, k = 16, 100 examples; and the same points in 10,000
examples of ~10 points (where a per-example loop pays its Python overhead). Timings are
the best of ``--repeat`` runs after one warm-up call; ``--workers`` is passed to every
SciPy query. Usage::

    python benchmarks/bench_knn.py                 # 100k points, k = 16
    python benchmarks/bench_knn.py --points 20000 --repeat 2
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arraygnn.utils import knn_graph  # noqa: E402

knn_module = importlib.import_module("arraygnn.utils.knn")


def per_example_loop(x: np.ndarray, k: int, batch: np.ndarray, workers: int) -> np.ndarray:
    """The baseline: one cKDTree per example, k + 1 nearest, self dropped."""
    from scipy.spatial import cKDTree

    ptr = np.searchsorted(batch, np.arange(int(batch[-1]) + 2))
    srcs, dsts = [], []
    for b in range(len(ptr) - 1):
        lo, hi = int(ptr[b]), int(ptr[b + 1])
        if hi == lo:
            continue
        q = min(k + 1, hi - lo)
        _, idx = cKDTree(x[lo:hi]).query(x[lo:hi], k=list(range(1, q + 1)), workers=workers)
        centre = np.repeat(np.arange(lo, hi), q)
        nbr = idx.ravel() + lo
        keep = nbr != centre
        srcs.append(nbr[keep])
        dsts.append(centre[keep])
    return np.stack([np.concatenate(srcs), np.concatenate(dsts)])


def one_folded_tree(x: np.ndarray, k: int, batch: np.ndarray, workers: int) -> np.ndarray:
    """Every example in one tree (the chunking taken to its end)."""
    saved = knn_module.CHUNK_POINTS
    knn_module.CHUNK_POINTS = 1 << 62
    try:
        return knn_graph(x, k, batch, num_workers=workers)
    finally:
        knn_module.CHUNK_POINTS = saved


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def run_case(name: str, x: np.ndarray, batch: np.ndarray, k: int, args: Any) -> None:
    w = args.workers
    print(f"\n{name}: {len(x):,} points in 3-D, {int(batch[-1]) + 1:,} examples, k={k}")
    ours = knn_graph(x, k, batch, num_workers=w)
    loop = per_example_loop(x, k, batch, w)
    same_count = ours.shape == loop.shape
    print(f"  edges: {ours.shape[1]:,} (per-example loop: {loop.shape[1]:,}, same={same_count})")
    rows = {
        "arraygnn knn_graph": lambda: knn_graph(x, k, batch, num_workers=w),
        "per-example loop (SciPy)": lambda: per_example_loop(x, k, batch, w),
        "one folded tree": lambda: one_folded_tree(x, k, batch, w),
    }
    try:
        import torch
        import torch_cluster

        xt, bt = torch.from_numpy(x), torch.from_numpy(batch)
        rows["torch_cluster knn_graph"] = lambda: torch_cluster.knn_graph(xt, k, bt, num_workers=w)
    except ImportError:
        print("  torch_cluster: not installed, skipped")
    times = {label: best_of(fn, args.repeat) for label, fn in rows.items()}
    base = times["arraygnn knn_graph"]
    for label, t in times.items():
        print(f"  {label:28s} {t * 1e3:9.1f} ms   {t / base:5.2f}x arraygnn's time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.random((args.points, 3))
    print(f"chunk size {knn_module.CHUNK_POINTS}, workers={args.workers}")
    for examples in (100, max(args.points // 10, 1)):
        batch = np.sort(rng.integers(0, examples, args.points))
        run_case(f"{examples} examples", x, batch, args.k, args)


if __name__ == "__main__":
    main()
