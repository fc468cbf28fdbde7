"""PyG's linear graph transformers against arraygnn's (the same weights via ``from_pyg``, eval
mode; outputs compared first): ``SGFormerAttention`` and ``PolynormerAttention`` over all
``--nodes`` nodes as one graph, ``QFormer`` on the nodes cut into sequences of 100,
``SGFormer`` and ``Polynormer`` (local stage and global stage) on a random graph of
``--nodes`` nodes and ``--edges`` edges (sources and targets uniform), as one graph and as a
batch of 16 graphs (``batch`` sorted). ``--dim`` input and hidden features, 16 classes.
Best and median of ``--repeat`` warm runs, the two sides alternating within each repeat.

    python benchmarks/bench_pyg_models_d.py [--nodes 10000] [--edges 100000] [--dim 64]
        [--repeat 7] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def _randomised(torch, module):
    """``module`` in eval mode with U(-0.5, 0.5) weights and random running statistics."""
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-0.5, 0.5)
        for m in module.modules():
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.uniform_(-1.0, 1.0)
                m.running_var.uniform_(0.5, 2.0)
    return module.eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=0, help="torch and Numba threads")
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import attention as pyg_attention
        from torch_geometric.nn import models as pyg_models
    except ImportError:
        print("bench_pyg_models_d: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    if args.threads:
        limit_threads(args.threads)
    rng = np.random.default_rng(0)
    n, e, d = args.nodes, args.edges, args.dim
    x = rng.standard_normal((n, d)).astype(np.float32)
    ei = rng.integers(0, n, (2, e))
    one = np.zeros(n, np.int64)
    sixteen = np.sort(rng.integers(0, 16, n))
    seq = x[: n - n % 100].reshape(-1, 100, d)
    tx, tei, tseq = torch.from_numpy(x), torch.from_numpy(ei), torch.from_numpy(seq)
    tone, tsixteen = torch.from_numpy(one), torch.from_numpy(sixteen)

    sg = _randomised(torch, pyg_models.SGFormer(d, d, 16))
    poly = _randomised(torch, pyg_models.Polynormer(d, d, 16))
    poly_global = _randomised(torch, pyg_models.Polynormer(d, d, 16))
    poly_global._global = True
    cases = [
        ("SGFormerAttention [1, N, C]", pyg_attention.SGFormerAttention(d, 1, d), (x[None],)),
        ("PolynormerAttention [1, N, C]", pyg_attention.PolynormerAttention(d, 1, d), (x[None],)),
        (
            f"QFormer [{seq.shape[0]}, 100, C], 4 heads, 2 layers",
            pyg_attention.QFormer(d, 2 * d, 16, 4, 2),
            (seq,),
        ),
        ("SGFormer (2 attention + 3 GCN layers), one graph", sg, (x, ei, one)),
        ("SGFormer, 16 graphs", sg, (x, ei, sixteen)),
        ("Polynormer local stage (7 GCN layers)", poly, (x, ei, one)),
        ("Polynormer global stage, one graph", poly_global, (x, ei, one)),
        ("Polynormer global stage, 16 graphs", poly_global, (x, ei, sixteen)),
    ]
    to_torch = {id(x): tx, id(ei): tei, id(seq): tseq, id(one): tone, id(sixteen): tsixteen}
    rows = []
    with torch.no_grad():
        for name, ref, inputs in cases:
            ref = _randomised(torch, ref) if ref not in (sg, poly, poly_global) else ref
            ours = from_pyg(ref)
            theirs_in = [
                to_torch[id(a)] if id(a) in to_torch else torch.from_numpy(a) for a in inputs
            ]
            expected = ref(*theirs_in).numpy()
            err = np.abs(ours(*inputs) - expected).max() / np.abs(expected).max()
            fns = [lambda f=ours, a=inputs: f(*a), lambda f=ref, a=theirs_in: f(*a)]
            times = _times(fns, args.repeat)
            rows.append((name, times[0], times[1], err))
    print(f"{n} nodes, {e} edges, {d} features, torch threads {torch.get_num_threads()}")
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
