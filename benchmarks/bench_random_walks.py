"""Random-walk speed: arraygnn's Numba walks against an anchor in the same run.

A uniform random graph of 100k nodes and 1M directed edges (int64 ids, every node with
an out-edge added so that walks rarely stop); 10k walks of length 40 from random start
nodes: uniform ``random_walk``, weighted (``prob=``) ``random_walk`` and
``node2vec_random_walk(p=0.5, q=2)``. The anchor is torch_cluster's ``random_walk`` when it
is installed, else a plain NumPy walk vectorised over the walks (one gather per step; the
weighted one a ``searchsorted`` of per-row prefix sums; node2vec by the same rejection
rule, redrawing only the rejected walks). Every result is checked (each step an edge of
the graph). Reported: best and median of the repeats, and anchor / arraygnn.

    python benchmarks/bench_random_walks.py [--repeats 5] [--threads 1]
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

from arraygnn.graph import graph  # noqa: E402
from arraygnn.random_walks import node2vec_random_walk, random_walk  # noqa: E402


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), out


class NumpyWalker:
    """The anchor: walks vectorised over the walks with NumPy (one step per iteration)."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, n: int, w: np.ndarray) -> None:
        order = np.lexsort((dst, src))  # rows by source, sorted neighbours
        self.indices = dst[order]
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
        self.n = n
        self.keys = src[order] * n + self.indices  # sorted edge keys for the node2vec check
        self.cum = np.cumsum(w[order])
        self.cum0 = np.concatenate([[0.0], self.cum])

    def uniform(self, starts: np.ndarray, length: int, rng: np.random.Generator) -> np.ndarray:
        traces = np.full((starts.shape[0], length + 1), -1, dtype=np.int64)
        traces[:, 0] = curr = starts
        alive = np.arange(starts.shape[0])
        for i in range(length):
            deg = self.indptr[curr + 1] - self.indptr[curr]
            ok = deg > 0
            alive, curr, deg = alive[ok], curr[ok], deg[ok]
            pick = self.indptr[curr] + (rng.random(curr.shape[0]) * deg).astype(np.int64)
            curr = self.indices[pick]
            traces[alive, i + 1] = curr
        return traces

    def weighted(self, starts: np.ndarray, length: int, rng: np.random.Generator) -> np.ndarray:
        traces = np.full((starts.shape[0], length + 1), -1, dtype=np.int64)
        traces[:, 0] = curr = starts
        alive = np.arange(starts.shape[0])
        for i in range(length):
            lo, hi = self.cum0[self.indptr[curr]], self.cum0[self.indptr[curr + 1]]
            ok = hi > lo
            alive, curr, lo, hi = alive[ok], curr[ok], lo[ok], hi[ok]
            x = lo + rng.random(curr.shape[0]) * (hi - lo)
            pick = np.minimum(np.searchsorted(self.cum, x, side="right"), self.indptr[curr + 1] - 1)
            curr = self.indices[pick]
            traces[alive, i + 1] = curr
        return traces

    def node2vec(
        self, starts: np.ndarray, length: int, p: float, q: float, rng: np.random.Generator
    ) -> np.ndarray:
        top = max(1 / p, 1.0, 1 / q)
        acc = np.array([1 / p, 1.0, 1 / q]) / top
        traces = np.full((starts.shape[0], length + 1), -1, dtype=np.int64)
        traces[:, 0] = curr = starts
        prev = curr.copy()
        alive = np.arange(starts.shape[0])
        for i in range(length):
            deg = self.indptr[curr + 1] - self.indptr[curr]
            ok = deg > 0
            alive, curr, prev, deg = alive[ok], curr[ok], prev[ok], deg[ok]
            nxt = np.empty_like(curr)
            todo = np.arange(curr.shape[0])
            while todo.size:
                c = curr[todo]
                cand = self.indices[
                    self.indptr[c] + (rng.random(todo.shape[0]) * deg[todo]).astype(np.int64)
                ]
                if i == 0:
                    nxt[todo] = cand
                    break
                pv = prev[todo]
                key = cand * self.n + pv
                pos = np.minimum(np.searchsorted(self.keys, key), self.keys.shape[0] - 1)
                kind = np.where(cand == pv, 0, np.where(self.keys[pos] == key, 1, 2))
                accept = rng.random(todo.shape[0]) < acc[kind]
                nxt[todo[accept]] = cand[accept]
                todo = todo[~accept]
            prev, curr = curr, nxt
            traces[alive, i + 1] = curr
        return traces


def check(traces: np.ndarray, edge_keys: np.ndarray, n: int, name: str) -> None:
    a, b = traces[:, :-1], traces[:, 1:]
    taken = b >= 0
    assert np.isin(a[taken] * n + b[taken], edge_keys).all(), f"{name}: a step off the graph"
    print(f"  {name}: {int(taken.sum()):,} steps checked")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="Numba threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    n, e, walks, length = 100_000, 1_000_000, 10_000, 40
    rng = np.random.default_rng(0)
    src = np.concatenate([rng.integers(0, n, e - n), np.arange(n)])
    dst = np.concatenate([rng.integers(0, n, e - n), rng.integers(0, n, n)])
    w = rng.random(e) + 0.01
    g = graph((src, dst), num_nodes=n)
    g.edata["w"] = w
    starts = rng.integers(0, n, walks)
    edge_keys = np.unique(src * n + dst)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print(f"graph: {n:,} nodes, {e:,} edges; {walks:,} walks of length {length}")
    have_tc = importlib.util.find_spec("torch_cluster") is not None
    print(f"anchor: {'torch_cluster.random_walk' if have_tc else 'NumPy vectorised walk'}")

    t0 = time.perf_counter()
    random_walk(g, starts[:10], length=2, seed=0)
    random_walk(g, starts[:10], length=2, prob="w", seed=0)
    node2vec_random_walk(g, starts[:10], 0.5, 2.0, 2, seed=0)
    print(f"first calls (compile or cache load, CSR build): {time.perf_counter() - t0:.2f} s")
    walker = NumpyWalker(src, dst, n, w)

    rows = []
    cases = [
        (
            "random_walk uniform",
            lambda: random_walk(g, starts, length=length, seed=1)[0],
            lambda: walker.uniform(starts, length, np.random.default_rng(1)),
        ),
        (
            "random_walk prob=",
            lambda: random_walk(g, starts, length=length, prob="w", seed=1)[0],
            lambda: walker.weighted(starts, length, np.random.default_rng(1)),
        ),
        (
            "node2vec p=0.5 q=2",
            lambda: node2vec_random_walk(g, starts, 0.5, 2.0, length, seed=1),
            lambda: walker.node2vec(starts, length, 0.5, 2.0, np.random.default_rng(1)),
        ),
    ]
    if have_tc:  # pragma: no cover - not installed on the benchmark box
        import torch
        import torch_cluster

        row_t = torch.from_numpy(src)
        col_t = torch.from_numpy(dst)
        st = torch.from_numpy(starts)
        cases[0] = (
            cases[0][0],
            cases[0][1],
            lambda: torch_cluster.random_walk(row_t, col_t, st, length).numpy(),
        )
        cases[2] = (
            cases[2][0],
            cases[2][1],
            lambda: torch_cluster.random_walk(row_t, col_t, st, length, p=0.5, q=2.0).numpy(),
        )
    for name, ours, anchor in cases:
        ob, om, out = timed(ours, args.repeats)
        check(np.asarray(out), edge_keys, n, f"{name} (arraygnn)")
        ab, am, ref = timed(anchor, args.repeats)
        check(np.asarray(ref), edge_keys, n, f"{name} (anchor)")
        rows.append((name, ob, om, ab, am))
    print("\n| walk | arraygnn best / median | anchor best / median | anchor / arraygnn (best) |")
    print("|---|---:|---:|---:|")
    for name, ob, om, ab, am in rows:
        print(
            f"| {name} | {ob * 1e3:.1f} / {om * 1e3:.1f} ms | {ab * 1e3:.1f} / {am * 1e3:.1f} ms "
            f"| {ab / ob:.1f}x |"
        )


if __name__ == "__main__":
    main()
