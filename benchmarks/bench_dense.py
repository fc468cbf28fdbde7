"""One forward of PyG's dense layers and poolings (DenseGCNConv, DenseSAGEConv, DenseGINConv,
DenseGraphConv add / max, DenseGATConv, dense_diff_pool, dense_mincut_pool, DMoNPooling)
against arraygnn's (same weights via ``from_pyg``; outputs compared first) on ``--graphs``
padded graphs of ``--nodes`` nodes (random sizes from half to all of them, a mask), a binary
adjacency of density ``--density`` and float32 features of width ``--features``; best and
median of ``--repeat`` warm runs, the two sides alternating within each repeat.

    python benchmarks/bench_dense.py [--graphs 32] [--nodes 64] [--features 64]
        [--density 0.1] [--repeat 20] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def _first(result):
    return result[0] if isinstance(result, tuple) else result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=32)
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--density", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=0, help="torch and BLAS threads")
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import dense as pyg
    except ImportError:
        print("bench_dense: torch and torch_geometric are needed; skipping")
        return
    import arraygnn.nn as agnn

    if args.threads:
        limit_threads(args.threads)

    rng = np.random.default_rng(0)
    b, n, f, k = args.graphs, args.nodes, args.features, 16
    sizes = rng.integers(n // 2, n + 1, b)
    mask = np.arange(n)[None, :] < sizes[:, None]
    x = rng.standard_normal((b, n, f)).astype(np.float32) * mask[..., None]
    adj = (rng.random((b, n, n)) < args.density).astype(np.float32)
    adj = np.maximum(adj, adj.transpose(0, 2, 1)) * (mask[:, :, None] & mask[:, None, :])
    s = rng.standard_normal((b, n, k)).astype(np.float32)
    tx, tadj, tmask, ts = (torch.from_numpy(a) for a in (x, adj, mask, s))
    torch.manual_seed(0)
    gin_nn = torch.nn.Sequential(torch.nn.Linear(f, f), torch.nn.ReLU(), torch.nn.Linear(f, f))
    modules = [
        ("DenseGCNConv 64 -> 64", pyg.DenseGCNConv(f, f)),
        ("DenseSAGEConv 64 -> 64", pyg.DenseSAGEConv(f, f)),
        ("DenseGINConv, MLP 64-64-64", pyg.DenseGINConv(gin_nn)),
        ("DenseGraphConv 64 -> 64, add", pyg.DenseGraphConv(f, f)),
        ("DenseGraphConv 64 -> 64, max", pyg.DenseGraphConv(f, f, aggr="max")),
        ("DenseGATConv 64 -> 4x16", pyg.DenseGATConv(f, 16, heads=4)),
        ("DMoNPooling 64 -> 16 clusters", pyg.DMoNPooling(f, k)),
    ]
    calls = []
    for name, module in modules:
        module.eval()
        calls.append((name, agnn.from_pyg(module), module, (x, adj, mask), (tx, tadj, tmask)))
    calls.append(("dense_diff_pool, 16 clusters", agnn.dense_diff_pool, pyg.dense_diff_pool,
                  (x, adj, s, mask), (tx, tadj, ts, tmask)))  # fmt: skip
    calls.append(("dense_mincut_pool, 16 clusters", agnn.dense_mincut_pool,
                  pyg.dense_mincut_pool, (x, adj, s, mask), (tx, tadj, ts, tmask)))  # fmt: skip
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; {b} graphs x {n} nodes "
        f"(mask: {int(mask.sum())} real), {f} features, adj density {args.density}, float32; "
        f"best / median of {args.repeat}"
    )
    for name, ours, theirs, ours_in, pyg_in in calls:

        def run_pyg(theirs=theirs, pyg_in=pyg_in):
            with torch.no_grad():
                return theirs(*pyg_in)

        expected = _first(run_pyg()).numpy()
        got = _first(ours(*ours_in))
        err = float(np.abs(got - expected).max() / np.abs(expected).max())
        (best_ours, med_ours), (best_pyg, med_pyg) = _times(
            [lambda ours=ours, ours_in=ours_in: ours(*ours_in), run_pyg], args.repeat
        )
        print(
            f"{name:32s} arraygnn {best_ours:7.2f} / {med_ours:7.2f} ms   "
            f"PyG {best_pyg:7.2f} / {med_pyg:7.2f} ms   "
            f"PyG/arraygnn {best_pyg / best_ours:5.2f}x (best) {med_pyg / med_ours:5.2f}x (median)"
            f"   max rel err {err:.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
