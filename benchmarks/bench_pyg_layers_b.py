"""One forward of PyG's MFConv, FiLMConv, GeneralConv, CGConv, GravNetConv and PDNConv
against arraygnn's (same weights via ``from_pyg``; outputs compared first), float32, on a
random graph of ``--nodes`` nodes with ``--edges`` edges (uniform sources and targets) and
64 features in and out; best and median of ``--repeat`` warm runs, both in the same process.

GravNetConv builds its own k-NN graph (k = 10, so ``--nodes * 10`` edges): PyG calls
pyg-lib's ``knn``, which does not install here, so PyG's is given a ``torch.ops.pyg.knn``
that runs :func:`arraygnn.utils.knn` (scipy's k-d tree); both sides pay the same search.

    python benchmarks/bench_pyg_layers_b.py [--nodes 100000] [--edges 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def _time(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * min(times), 1e3 * statistics.median(times)


def _knn_op(torch):
    """PyG's ``torch.ops.pyg.knn`` (pyg-lib) by :func:`arraygnn.utils.knn`, when missing."""
    try:
        torch.ops.pyg.knn  # noqa: B018
        return None
    except (AttributeError, RuntimeError):
        pass
    from arraygnn.utils.knn import knn

    def impl(x, y, ptr_x, ptr_y, k, cosine, num_workers):
        if ptr_x is not None or ptr_y is not None:
            raise NotImplementedError("the benchmark stand-in takes no batch")
        out = knn(x.detach().numpy(), y.detach().numpy(), k, cosine=cosine)
        return torch.from_numpy(out)

    lib = torch.library.Library("pyg", "FRAGMENT")
    lib.define(
        "knn(Tensor x, Tensor y, Tensor? ptr_x, Tensor? ptr_y, int k, bool cosine, "
        "int num_workers) -> Tensor"
    )
    lib.impl("knn", impl, "CompositeExplicitAutograd")
    return lib


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated case name prefixes")
    args = parser.parse_args()
    try:
        import torch
        import torch_geometric.typing
        from torch_geometric import nn as pyg
    except ImportError:
        print("bench_pyg_layers_b: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    lib = _knn_op(torch)  # noqa: F841 - keeps the stand-in registered
    torch_geometric.typing.WITH_KNN = True
    rng = np.random.default_rng(0)
    n, m, f = args.nodes, args.edges, 64
    ei = np.stack([rng.integers(0, n, m), rng.integers(0, n, m)])
    x = rng.standard_normal((n, f)).astype(np.float32)
    e8 = rng.standard_normal((m, 8)).astype(np.float32)
    et = rng.integers(0, 4, m)
    tx, tei, te8, tet = (torch.from_numpy(a) for a in (x, ei, e8, et))
    torch.manual_seed(0)
    cases = [
        ("MFConv 64 -> 64, max_degree 10", pyg.MFConv(f, f), (x, ei), (tx, tei)),
        ("FiLMConv 64 -> 64, 1 relation (ReLU, mean)", pyg.FiLMConv(f, f), (x, ei), (tx, tei)),
        (
            "FiLMConv 64 -> 64, 4 relations (ReLU, mean)",
            pyg.FiLMConv(f, f, 4),
            (x, ei, et),
            (tx, tei, tet),
        ),
        (
            "FiLMConv 64 -> 64, 4 relations (no act, add)",
            pyg.FiLMConv(f, f, 4, act=None, aggr="add"),
            (x, ei, et),
            (tx, tei, tet),
        ),
        (
            "FiLMConv 64 -> 64, 4 relations (ReLU, max)",
            pyg.FiLMConv(f, f, 4, aggr="max"),
            (x, ei, et),
            (tx, tei, tet),
        ),
        ("GeneralConv 64 -> 64 (add)", pyg.GeneralConv(f, f), (x, ei), (tx, tei)),
        (
            "GeneralConv 64 -> 64, edge_dim 8, 4 heads, additive attention",
            pyg.GeneralConv(f, f, 8, heads=4, attention=True),
            (x, ei, e8),
            (tx, tei, te8),
        ),
        (
            "GeneralConv 64 -> 64, 4 heads, dot-product attention",
            pyg.GeneralConv(f, f, heads=4, attention=True, attention_type="dot_product"),
            (x, ei),
            (tx, tei),
        ),
        ("CGConv 64, dim 8 (add)", pyg.CGConv(f, 8), (x, ei, e8), (tx, tei, te8)),
        (
            "GravNetConv 64 -> 64, space 4, propagate 22, k 10",
            pyg.GravNetConv(f, f, 4, 22, k=10),
            (x,),
            (tx,),
        ),
        (
            "PDNConv 64 -> 64, edge_dim 8, hidden 32",
            pyg.PDNConv(f, f, 8, 32),
            (x, ei, e8),
            (tx, tei, te8),
        ),
    ]
    only = [p for p in args.only.split(",") if p]
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; torch "
        f"{torch.__version__}, {torch.get_num_threads()} threads; {n} nodes, {m} edges, "
        f"float32, best / median of {args.repeat}"
    )
    print(f"{'layer':62s} {'arraygnn':>16s} {'PyG':>16s} {'ratio':>6s}")
    for name, module, inputs, targs in cases:
        if only and not any(name.startswith(p) for p in only):
            continue
        module = module.eval()
        ours = from_pyg(module)

        def run_pyg(module=module, targs=targs):
            with torch.no_grad():
                return module(*targs)

        expected = run_pyg().numpy()
        got = ours(*inputs)
        scale = max(float(np.abs(expected).max()), 1e-30)
        bad = np.abs(got - expected).max(axis=1) > 1e-4 * scale
        # GravNet: float32 coordinates from two BLAS libraries may swap a near-tied k-th
        # neighbour of a few nodes
        assert bad.mean() <= (1e-3 if name.startswith("GravNet") else 0), (name, bad.sum())
        best_a, med_a = _time(lambda ours=ours, inputs=inputs: ours(*inputs), args.repeat)
        best_p, med_p = _time(run_pyg, args.repeat)
        print(
            f"{name:62s} {best_a:7.0f} /{med_a:6.0f} ms {best_p:7.0f} /{med_p:6.0f} ms "
            f"{best_p / best_a:5.2f}x"
        )


if __name__ == "__main__":
    main()
