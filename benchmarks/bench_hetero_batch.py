"""Collation speed of heterogeneous graphs: arraygnn against PyG, in one run.

1024 small author / paper graphs (2 node types: paper ``x`` float32 [n, 16] and ``y``
int64 [n], author ``x`` float32 [m, 16]; 3 edge types: ``writes`` author -> paper with
``edge_attr`` float32 [e, 4], ``rev_writes`` paper -> author, ``cites`` paper -> paper;
graph-level ``y`` [1]) collated by

- ``arraygnn.Batch.from_data_list`` on a list of ``arraygnn.HeteroData``,
- ``torch_geometric.data.Batch.from_data_list`` on the same graphs as PyG ``HeteroData``
  (tensors sharing the NumPy memory; skipped when torch_geometric is absent),

best of ``--repeats`` timings each, as graphs per second, plus the ratio, and a check
that both batches hold the same arrays.

    python benchmarks/bench_hetero_batch.py              # 1024 graphs, 20 repeats
    python benchmarks/bench_hetero_batch.py --quick      # 3 repeats
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from arraygnn import Batch, HeteroData  # noqa: E402


def make_graphs(count: int, seed: int = 0) -> list[HeteroData]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n_paper = int(rng.integers(5, 30))
        n_author = int(rng.integers(1, 15))
        d = HeteroData()
        d["paper"].x = rng.standard_normal((n_paper, 16)).astype(np.float32)
        d["paper"].y = rng.integers(0, 5, n_paper)
        d["author"].x = rng.standard_normal((n_author, 16)).astype(np.float32)
        e = int(rng.integers(n_paper, 3 * n_paper))
        writes = np.stack([rng.integers(0, n_author, e), rng.integers(0, n_paper, e)])
        d["author", "writes", "paper"].edge_index = writes
        d["author", "writes", "paper"].edge_attr = rng.standard_normal((e, 4)).astype(np.float32)
        d["paper", "rev_writes", "author"].edge_index = writes[::-1].copy()
        c = int(rng.integers(0, 2 * n_paper))
        d["paper", "cites", "paper"].edge_index = rng.integers(0, n_paper, (2, c))
        d.y = rng.standard_normal(1).astype(np.float32)
        out.append(d)
    return out


def to_pyg_graphs(graphs: list[HeteroData]) -> list[Any]:
    from arraygnn.interop import to_pyg

    return [to_pyg(g) for g in graphs]


def best(fn: Callable[[], Any], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def report(name: str, seconds: float, graphs: int) -> None:
    print(f"{name:30s}: {seconds * 1e3:8.2f} ms  {graphs / seconds:10.0f} graphs/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    graphs = make_graphs(args.graphs)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{args.graphs} graphs, best of {repeats}")
    ours = best(lambda: Batch.from_data_list(graphs), repeats)
    report("arraygnn Batch.from_data_list", ours, args.graphs)
    if importlib.util.find_spec("torch_geometric") is None:
        print("torch_geometric not installed: PyG skipped")
        return
    import torch
    from torch_geometric.data import Batch as PygBatch

    torch.set_num_threads(1)
    pyg_graphs = to_pyg_graphs(graphs)
    theirs = best(lambda: PygBatch.from_data_list(pyg_graphs), repeats)
    report("PyG Batch.from_data_list", theirs, args.graphs)
    print(f"ratio (PyG time / arraygnn time): {theirs / ours:.2f}x")
    b, pb = Batch.from_data_list(graphs), PygBatch.from_data_list(pyg_graphs)
    for t in pb.node_types + pb.edge_types:
        for k, v in pb[t].items():
            np.testing.assert_array_equal(b[t][k], v.numpy(), err_msg=f"{t} {k}")
    print("check: both batches hold the same arrays")


if __name__ == "__main__":
    main()
