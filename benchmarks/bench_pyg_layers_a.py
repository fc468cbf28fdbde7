"""One forward of PyG's LEConv, ClusterGCNConv, SSGConv, LGConv, FAConv and ARMAConv against
arraygnn's (same weights via ``from_pyg``; outputs compared first) on a random graph of
``--nodes`` nodes and ``--edges`` edges (sources and targets uniform, float32 features of
width ``--features``, edge weights where the layer takes them), best and median of
``--repeat`` warm runs, the two sides alternating within each repeat (so a shared, noisy
machine loads both alike).

    python benchmarks/bench_pyg_layers_a.py [--nodes 100000] [--edges 1000000]
        [--features 64] [--repeat 5] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch and Numba threads")
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric import nn as pyg
    except ImportError:
        print("bench_pyg_layers_a: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    if args.threads:
        limit_threads(args.threads)

    rng = np.random.default_rng(0)
    n, e, f = args.nodes, args.edges, args.features
    ei = rng.integers(0, n, (2, e))
    x = rng.standard_normal((n, f)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, e).astype(np.float32)
    tei, tx, tw = torch.from_numpy(ei), torch.from_numpy(x), torch.from_numpy(w)
    torch.manual_seed(0)
    cases = [
        ("LEConv 64 -> 64, edge weights", pyg.LEConv(f, f), (x, ei, w), (tx, tei, tw)),
        ("ClusterGCNConv 64 -> 64, lambda 0.5", pyg.ClusterGCNConv(f, f, 0.5), (x, ei), (tx, tei)),
        ("SSGConv 64 -> 64, K=4, alpha 0.1", pyg.SSGConv(f, f, 0.1, K=4), (x, ei), (tx, tei)),
        ("LGConv 64, edge weights", pyg.LGConv(), (x, ei, w), (tx, tei, tw)),
        ("FAConv 64, eps 0.1", pyg.FAConv(f), (x, x, ei), (tx, tx, tei)),
        ("ARMAConv 64 -> 64, K=2, T=2", pyg.ARMAConv(f, f, 2, 2), (x, ei), (tx, tei)),
    ]
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; {n} nodes, {e} edges, "
        f"{f} features, float32; best / median of {args.repeat}"
    )
    for name, module, ours_in, pyg_in in cases:
        module.eval()
        ours = from_pyg(module)

        def run_pyg(module=module, pyg_in=pyg_in):
            with torch.no_grad():
                return module(*pyg_in)

        expected = run_pyg().numpy()
        got = ours(*ours_in)
        err = float(np.abs(got - expected).max() / np.abs(expected).max())
        (best_ours, med_ours), (best_pyg, med_pyg) = _times(
            [lambda ours=ours, ours_in=ours_in: ours(*ours_in), run_pyg], args.repeat
        )
        print(
            f"{name:38s} arraygnn {best_ours:7.1f} / {med_ours:7.1f} ms   "
            f"PyG {best_pyg:7.1f} / {med_pyg:7.1f} ms   "
            f"PyG/arraygnn {best_pyg / best_ours:5.2f}x (best) {med_pyg / med_ours:5.2f}x (median)"
            f"   max rel err {err:.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
