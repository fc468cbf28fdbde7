"""``arraygnn.nn.aggr`` against PyG's ``torch_geometric.nn.aggr`` on one random graph.

Messages ``x`` ``[E, F]`` (float32) are reduced into ``N`` targets by an unsorted index
(``edge_index[1]`` of a random graph: what ``MessagePassing.aggregate`` passes), for sum,
mean, max, softmax, std, median and a ``MultiAggregation`` of mean, max and std (``'cat'``).
Each arraygnn aggregation is converted from the PyG one with ``from_pyg`` and its output
checked against PyG's first; then both run alternately, best of ``--repeat`` warm runs
(the box is shared: best-of and the ratio within one run are what to read).

    python benchmarks/bench_aggr.py [--nodes 100000] [--edges 1000000] [--features 64]
                                    [--repeat 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _best(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import aggr as pyg_aggr
    except ImportError:
        print("bench_aggr: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    n, e, f = args.nodes, args.edges, args.features
    x = rng.standard_normal((e, f)).astype(np.float32)
    index = rng.integers(0, n, e)
    tx, tindex = torch.from_numpy(x), torch.from_numpy(index)
    cases = [
        ("sum", pyg_aggr.SumAggregation()),
        ("mean", pyg_aggr.MeanAggregation()),
        ("max", pyg_aggr.MaxAggregation()),
        ("softmax", pyg_aggr.SoftmaxAggregation()),
        ("std", pyg_aggr.StdAggregation()),
        ("median", pyg_aggr.MedianAggregation()),
        ("multi [mean, max, std]", pyg_aggr.MultiAggregation(["mean", "max", "std"])),
    ]
    print(
        f"{n:,} targets, {e:,} messages of {f} float32 features, unsorted index, "
        f"torch threads {args.threads}, best of {args.repeat}"
    )
    print(
        f"{'aggregation':<24} {'arraygnn ms':>12} {'PyG ms':>10} {'PyG / ours':>11} {'rel err':>9}"
    )
    for name, module in cases:
        ours = from_pyg(module)

        def run_ours(ours=ours):
            return ours(x, index, dim_size=n)

        def run_pyg(module=module):
            with torch.no_grad():
                return module(tx, tindex, dim_size=n)

        got, want = run_ours(), run_pyg().numpy()
        err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
        repeat = args.repeat if name != "median" else max(1, min(args.repeat, 2))
        t_ours, t_pyg = float("inf"), float("inf")
        for _ in range(repeat):  # alternate, so both see the same load
            t_ours = min(t_ours, _best(run_ours, 1))
            t_pyg = min(t_pyg, _best(run_pyg, 1))
        print(f"{name:<24} {t_ours:>12.1f} {t_pyg:>10.1f} {t_pyg / t_ours:>10.2f}x {err:>9.1e}")


if __name__ == "__main__":
    main()
