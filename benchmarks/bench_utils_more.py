"""``get_ppr`` and ``homophily`` speed: arraygnn against PyG in one run.

A uniform random graph of 100k nodes and 1M directed edges (int64 ids), labels in 10
classes, 100 graphs in the batch vector. ``get_ppr`` (alpha 0.2) for 10,000 sources at
``eps=1e-4`` and 1,000 sources at ``eps=1e-5`` (all 100k sources at 1e-5 would be ~200M
entries); ``homophily`` with each method, without and with ``batch``. The two sides
alternate within each repeat; reported: best and median, and PyG's time over ours. The
outputs are compared first (PPR: same entry count, each source's mass within the push
tolerance; homophily: equal to float32 rounding).

    python benchmarks/bench_utils_more.py [--repeats 5] [--quick] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
from _timing import limit_threads

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from arraygnn.utils import get_ppr, homophily  # noqa: E402


def alternate(
    ours: Callable[[], object], theirs: Callable[[], object], repeats: int
) -> tuple[list[float], list[float]]:
    a, b = [], []
    for _ in range(repeats):
        for fn, acc in ((ours, a), (theirs, b)):
            t0 = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t0)
    return a, b


def report(name: str, a: list[float], b: list[float]) -> None:
    print(
        f"| {name} | {min(a) * 1e3:,.1f} / {statistics.median(a) * 1e3:,.1f} ms | "
        f"{min(b) * 1e3:,.1f} / {statistics.median(b) * 1e3:,.1f} ms | "
        f"{min(b) / min(a):.1f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="10k nodes / 100k edges")
    parser.add_argument("--threads", type=int, default=None, help="torch and Numba threads")
    args = parser.parse_args()
    import numba
    import torch
    import torch_geometric.utils as P

    if args.threads:
        limit_threads(args.threads)

    n, e = (10_000, 100_000) if args.quick else (100_000, 1_000_000)
    rng = np.random.default_rng(0)
    edge_index = rng.integers(0, n, (2, e), dtype=np.int64)
    y = rng.integers(0, 10, n)
    batch = np.sort(rng.integers(0, 100, n))
    batch[-1] = 99
    y[-1] = 9  # PyG's 'edge_insensitive' reshape needs the top class in the last graph
    ei_t, y_t, b_t = (torch.from_numpy(a) for a in (edge_index, y, batch))
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, torch "
        f"{torch.__version__}, {os.cpu_count()} CPUs, {torch.get_num_threads()} torch / "
        f"{numba.get_num_threads()} Numba threads; graph {n:,} nodes, {e:,} edges"
    )

    # warm-ups: imports, Numba compilation (both sides compile lazily)
    get_ppr(edge_index[:, :100], num_nodes=n, target=np.arange(3))
    P.get_ppr(ei_t[:, :100], num_nodes=n, target=torch.arange(3))

    print("| function | arraygnn best / median | PyG best / median | PyG / arraygnn (best) |")
    print("|---|---:|---:|---:|")
    deg = np.bincount(edge_index[0], minlength=n)
    for eps, step in ((1e-4, 10), (1e-5, 100)):
        target = np.arange(0, n, step)
        ours = get_ppr(edge_index, eps=eps, target=target, num_nodes=n)
        theirs = P.get_ppr(ei_t, eps=eps, target=torch.from_numpy(target), num_nodes=n)
        assert ours[0].shape == tuple(theirs[0].shape), (ours[0].shape, theirs[0].shape)
        mass = np.bincount(ours[0][0], ours[1], minlength=n)
        ref_mass = np.bincount(theirs[0][0].numpy(), theirs[1].numpy(), minlength=n)
        assert np.abs(mass - ref_mass).max() < 4 * eps * deg.max()
        a, b = alternate(
            lambda eps=eps, target=target: get_ppr(edge_index, eps=eps, target=target, num_nodes=n),
            lambda eps=eps, target=target: P.get_ppr(
                ei_t, eps=eps, target=torch.from_numpy(target), num_nodes=n
            ),
            args.repeats,
        )
        report(
            f"get_ppr eps={eps:g}, {target.shape[0]:,} sources ({ours[0].shape[1]:,} entries)", a, b
        )

    for method in ("edge", "node", "edge_insensitive"):
        for with_batch in (False, True):
            bt, btt = (batch, b_t) if with_batch else (None, None)
            ours = homophily(edge_index, y, bt, method=method)
            theirs = P.homophily(ei_t, y_t, btt, method=method)
            np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)
            a, b = alternate(
                lambda bt=bt, method=method: homophily(edge_index, y, bt, method=method),
                lambda btt=btt, method=method: P.homophily(ei_t, y_t, btt, method=method),
                args.repeats,
            )
            report(f"homophily {method}{', batch of 100' if with_batch else ''}", a, b)


if __name__ == "__main__":
    main()
