"""PyG's link-prediction models ``ARLinkPredictor`` and ``LPFormer`` against arraygnn's
(the same weights via ``from_pyg``, eval mode; outputs compared first) on a random graph of
``--nodes`` nodes and ``--edges`` edges (made undirected), ``--pairs`` target pairs,
``--dim`` input and hidden features (``--threads``: torch, Numba and, through
threadpoolctl, NumPy's BLAS). LPFormer gets the graph's PPR matrix from PyG's
``get_ppr`` (alpha 0.15, eps 5e-5, as ``calc_sparse_ppr``), computed once outside the
timing (a sparse COO tensor for PyG, the ``(index, weight)`` pair for arraygnn). Best and
median of ``--repeat`` warm runs, the two sides alternating within each repeat.

    python benchmarks/bench_pyg_models_e.py [--nodes 2000] [--edges 10000] [--pairs 1024]
        [--dim 64] [--repeat 7] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def _randomised(torch, module):
    """``module`` in eval mode with U(-0.5, 0.5) weights."""
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-0.5, 0.5)
    return module.eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--edges", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=1024)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=0, help="torch and Numba threads")
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import models as pyg_models
        from torch_geometric.utils import get_ppr
    except ImportError:
        print("bench_pyg_models_e: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    if args.threads:
        limit_threads(args.threads)
    rng = np.random.default_rng(0)
    n, e, d = args.nodes, args.edges, args.dim
    x = rng.standard_normal((n, d)).astype(np.float32)
    half = rng.integers(0, n, (2, e // 2))
    ei = np.concatenate([half, half[::-1]], axis=1)
    pairs = rng.integers(0, n, (2, args.pairs))
    tx, tei, tpairs = (torch.from_numpy(a) for a in (x, ei, pairs))
    ppr_index, ppr_weight = get_ppr(tei, alpha=0.15, eps=5e-5, num_nodes=n)
    ppr_matrix = torch.sparse_coo_tensor(ppr_index, ppr_weight, [n, n])
    ppr = (ppr_index.numpy(), ppr_weight.numpy())

    cases = [
        (
            "ARLinkPredictor (3 layers), forward",
            _randomised(torch, pyg_models.ARLinkPredictor(d, d, num_layers=3)),
            (x, pairs),
            (tx, tpairs),
        ),
        (
            "LPFormer (2 GCN layers, 1 attention layer)",
            _randomised(torch, pyg_models.LPFormer(d, d)),
            (pairs, x, ei, ppr),
            (tpairs, tx, tei, ppr_matrix),
        ),
    ]
    rows = []
    with torch.no_grad():
        for name, ref, inputs, theirs_in in cases:
            ours = from_pyg(ref)
            expected = ref(*theirs_in).numpy()
            err = np.abs(ours(*inputs) - expected).max() / np.abs(expected).max()
            fns = [lambda f=ours, a=inputs: f(*a), lambda f=ref, a=theirs_in: f(*a)]
            times = _times(fns, args.repeat)
            rows.append((name, times[0], times[1], err))
    print(
        f"{n} nodes, {ei.shape[1]} edges, {args.pairs} pairs, {d} features, "
        f"{ppr_index.shape[1]} PPR entries, torch threads {torch.get_num_threads()}"
    )
    print(
        "| model | arraygnn best / median ms | PyG best / median ms | PyG / ours (best) | rel err |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, ours, theirs, err in rows:
        print(
            f"| {name} | {ours[0]:,.1f} / {ours[1]:,.1f} | {theirs[0]:,.1f} / {theirs[1]:,.1f} "
            f"| {theirs[0] / ours[0]:.2f}x | {err:.1e} |"
        )


if __name__ == "__main__":
    main()
