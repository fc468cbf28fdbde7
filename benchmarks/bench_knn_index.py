"""Benchmark ``arraygnn.nn`` KNN indices against PyG's faiss-backed ones and faiss itself.

Measured in ONE run, on this machine, the sides taking turns within every repeat
(``_timing.times``), so the ratios compare like with like:

- exact search (``L2KNNIndex`` / ``MIPSKNNIndex``, float32): ours with ``backend='auto'``
  (faiss's ``IndexFlat*`` when importable), ours with ``backend='array'`` (the NumPy
  blockwise matmul + argpartition path, what CuPy and float64 run), PyG's class on torch
  tensors, and a bare faiss ``IndexFlatL2`` / ``IndexFlatIP`` ``search`` (the anchor);
- the same with ``exclude_links`` (PyG's over-fetch and filter, ``--links`` per query);
- the array path on float64 (no faiss or PyG counterpart: faiss is float32 only);
- approximate search (``ApproxL2KNNIndex``, IVF-PQ): ours and PyG's ``search``;
- ``--nndescent``: ``approx_knn_graph`` and PyG's (both pynndescent; slow to compile once).

Usage::

    python benchmarks/bench_knn_index.py                   # 100k x 64 index, 1000 queries
    python benchmarks/bench_knn_index.py --points 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import times  # noqa: E402

from arraygnn.nn import ApproxL2KNNIndex, L2KNNIndex, MIPSKNNIndex  # noqa: E402


def report(title: str, rows: dict[str, Callable[[], object]], anchor: str, repeat: int) -> None:
    got = dict(zip(rows, times(list(rows.values()), repeat)))
    base = got[anchor][0]
    print(f"\n{title}  (best / median ms; ratio = best / {anchor}'s best)")
    for label, (best, median) in got.items():
        print(f"  {label:34s} {best:9.1f} {median:9.1f}   {best / base:5.2f}x")


def bench_exact(ours_cls: Any, pyg_cls: Any, flat: Any, name: str, data: tuple, args: Any) -> None:
    """Exact search (and with ``exclude_links``): ours (auto, array), PyG's, bare faiss."""
    emb, query, links, et, qt, lt = data
    k = args.k
    auto, array = ours_cls(emb), ours_cls(emb, backend="array")
    theirs = pyg_cls(et)
    bare = flat(emb.shape[1])
    bare.add(emb)
    report(
        f"{name} exact search",
        {
            "faiss IndexFlat search": lambda: bare.search(query, k),
            "arraygnn auto (faiss)": lambda: auto.search(query, k),
            "arraygnn array path": lambda: array.search(query, k),
            "PyG": lambda: theirs.search(qt, k),
        },
        "faiss IndexFlat search",
        args.repeat,
    )
    report(
        f"{name} exact search, exclude_links",
        {
            "arraygnn auto (faiss)": lambda: auto.search(query, k, links),
            "arraygnn array path": lambda: array.search(query, k, links),
            "PyG": lambda: theirs.search(qt, k, lt),
        },
        "PyG",
        args.repeat,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--links", type=int, default=10, help="excluded links per query")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nndescent", action="store_true")
    args = parser.parse_args()

    import faiss
    import torch
    import torch_geometric.nn.pool as pool

    rng = np.random.default_rng(0)
    n, m, d, k = args.points, args.queries, args.dim, args.k
    emb = rng.standard_normal((n, d)).astype(np.float32)
    query = rng.standard_normal((m, d)).astype(np.float32)
    links = np.stack([np.repeat(np.arange(m), args.links), rng.integers(0, n, m * args.links)])
    et, qt, lt = (torch.from_numpy(a) for a in (emb, query, links))
    data = (emb, query, links, et, qt, lt)
    print(
        f"index {n:,} x {d}, {m:,} queries, k={k}, {args.links} excluded links per query; "
        f"faiss {faiss.__version__} on {faiss.omp_get_max_threads()} threads, torch "
        f"{torch.__version__} on {torch.get_num_threads()}"
    )

    bench_exact(L2KNNIndex, pool.L2KNNIndex, faiss.IndexFlatL2, "L2", data, args)
    bench_exact(MIPSKNNIndex, pool.MIPSKNNIndex, faiss.IndexFlatIP, "MIPS", data, args)

    e64, q64 = emb.astype(np.float64), query.astype(np.float64)
    i64 = L2KNNIndex(e64)
    bare_l2 = faiss.IndexFlatL2(d)
    bare_l2.add(emb)
    report(
        "L2 float64 (array path) against float32 faiss",
        {
            "faiss IndexFlatL2 float32": lambda: bare_l2.search(query, k),
            "arraygnn float64": lambda: i64.search(q64, k),
        },
        "faiss IndexFlatL2 float32",
        args.repeat,
    )

    cells = max(16, int(np.sqrt(n)))
    ours_a = ApproxL2KNNIndex(cells, 8, 8, emb)
    theirs_a = pool.ApproxL2KNNIndex(cells, 8, 8, et)
    exact = L2KNNIndex(emb).search(query, k).index
    got = ours_a.search(query, k).index
    recall = np.mean([len(set(a) & set(b)) / k for a, b in zip(got, exact)])
    report(
        f"ApproxL2KNNIndex({cells}, 8, 8) search, recall@{k} {recall:.2f}",
        {
            "arraygnn": lambda: ours_a.search(query, k),
            "PyG": lambda: theirs_a.search(qt, k),
        },
        "PyG",
        args.repeat,
    )

    if args.nndescent:
        from torch_geometric.nn.pool import approx_knn_graph as pyg_graph

        from arraygnn.nn import approx_knn_graph

        x = rng.standard_normal((20_000, 16)).astype(np.float32)
        xt = torch.from_numpy(x)
        report(
            "approx_knn_graph 20k x 16, k=16 (pynndescent both)",
            {
                "arraygnn": lambda: approx_knn_graph(x, 16),
                "PyG": lambda: pyg_graph(xt, 16),
            },
            "PyG",
            max(1, args.repeat // 2),
        )


if __name__ == "__main__":
    main()
