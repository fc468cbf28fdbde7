"""One forward of PyG's EdgeConv, ResGatedGraphConv, GatedGraphConv and GCN2Conv against
arraygnn's (same weights via ``from_pyg``, outputs compared first), on a graph of
``--nodes`` nodes with 20 random in-edges each (k-NN-like), median of ``--repeat`` warm runs.

    python benchmarks/bench_more_layers.py [--nodes 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
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
    return 1e3 * statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import MLP, EdgeConv, GatedGraphConv, GCN2Conv, ResGatedGraphConv
    except ImportError:
        print("bench_more_layers: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    rng = np.random.default_rng(0)
    n, k = args.nodes, 20
    ei = np.stack([rng.integers(0, n, n * k), np.repeat(np.arange(n), k)])
    pos = rng.standard_normal((n, 3)).astype(np.float32)
    h = rng.standard_normal((n, 64)).astype(np.float32)
    tei, tpos, th = torch.from_numpy(ei), torch.from_numpy(pos), torch.from_numpy(h)
    torch.manual_seed(0)
    cases = [
        ("EdgeConv MLP 6-64-64-64, max", EdgeConv(MLP([6, 64, 64, 64], norm=None)), (pos, ei)),
        ("ResGatedGraphConv 64 -> 64", ResGatedGraphConv(64, 64), (h, ei)),
        ("GatedGraphConv 64, 3 layers", GatedGraphConv(64, 3), (h, ei)),
        ("GCN2Conv 64", GCN2Conv(64, 0.1, 0.5, 2), (h, h, ei)),
    ]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {n} nodes, {n * k} edges")
    for name, module, inputs in cases:
        ours = from_pyg(module)
        targs = [{id(pos): tpos, id(h): th, id(ei): tei}[id(a)] for a in inputs]

        def run_pyg(module=module, targs=targs):
            with torch.no_grad():
                return module(*targs)

        expected = run_pyg().numpy()
        got = ours(*inputs)
        err = float(np.abs(got - expected).max() / np.abs(expected).max())
        t_ours = _time(lambda ours=ours, inputs=inputs: ours(*inputs), args.repeat)
        t_pyg = _time(run_pyg, args.repeat)
        print(
            f"{name:32s} arraygnn {t_ours:8.1f} ms   PyG {t_pyg:8.1f} ms   "
            f"PyG/arraygnn {t_pyg / t_ours:5.2f}x   max rel err {err:.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
