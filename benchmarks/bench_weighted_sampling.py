"""Weighted neighbour sampling speed: PyG's ``weight_attr`` and DGL's ``prob=`` against
uniform sampling on the same graph, one run.

A seeded power-law graph (``arraygnn.powerlaw_graph``, 100k nodes / 1M edges by default)
with 16 float32 features and a random float32 weight per edge (about 10% of them 0; 0.01
added for the loader with replacement, which refuses a node whose in-edges weigh 0).
Modes, each timed per batch (median / best ms over ``--batches`` batches after a warm-up
batch, the modes run in turn within every round so a noisy box loads them alike):

- ``NeighborLoader`` over ``Data``, fan-outs ``[10, 5]``, batches of 1,024 shuffled seeds,
  without weights (the anchor) and with ``weight_attr`` (pyg-lib's weighted draws);
- ``sample_neighbors(g, seeds, 10, prob='w')`` (DGL's weighted draws) against the same call
  without ``prob``, 1,024 seeds a call, without and with replacement.

    python benchmarks/bench_weighted_sampling.py           # 100k nodes / 1M edges
    python benchmarks/bench_weighted_sampling.py --quick   # 20k nodes / 200k edges
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.neighbor_loader import NeighborLoader  # noqa: E402


def loader_step(loader: NeighborLoader):  # noqa: ANN201
    """A function that returns the loader's next batch (a new epoch when one ends)."""
    state = {"it": iter(loader)}

    def step() -> object:
        try:
            return next(state["it"])
        except StopIteration:
            state["it"] = iter(loader)
            return next(state["it"])

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--batches", type=int, default=20)
    args = parser.parse_args()
    n, e = (20_000, 200_000) if args.quick else (100_000, 1_000_000)
    src, dst, x = arraygnn.powerlaw_graph(n, e, seed=0, num_features=16)
    rng = np.random.default_rng(0)
    e = int(src.shape[0])
    w = rng.random(e).astype(np.float32)
    w[rng.random(e) < 0.1] = 0.0
    data = Data(x=x.astype(np.float32), edge_index=np.stack([src, dst]), w=w, num_nodes=n)
    # with replacement a node whose in-edges all weigh 0 is an error: positive weights there
    data_pos = Data(x=data.x, edge_index=data.edge_index, w=w + np.float32(0.01), num_nodes=n)
    g = arraygnn.graph((src, dst), num_nodes=n)
    g.edata["w"] = w
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    import numba

    print(f"numba {numba.__version__}, {numba.get_num_threads()} threads")
    print(f"graph: {n:,} nodes, {e:,} edges; batch 1024, fan-outs [10, 5]")
    kw = dict(batch_size=1024, shuffle=True, seed=0, num_neighbors=[10, 5], edge_attrs=["w"])
    seeds = np.random.default_rng(1).choice(n, 1024, replace=False)
    srng = np.random.default_rng(2)
    modes = {
        "loader uniform": loader_step(NeighborLoader(data, **kw)),
        "loader weight_attr": loader_step(NeighborLoader(data, weight_attr="w", **kw)),
        "loader weight_attr, replace": loader_step(
            NeighborLoader(data_pos, weight_attr="w", replace=True, **kw)
        ),
        "sample_neighbors uniform": lambda: arraygnn.sample_neighbors(g, seeds, 10, seed=srng),
        "sample_neighbors prob": lambda: arraygnn.sample_neighbors(
            g, seeds, 10, prob="w", seed=srng
        ),
        "sample_neighbors prob, replace": lambda: arraygnn.sample_neighbors(
            g, seeds, 10, prob="w", replace=True, seed=srng
        ),
    }
    for fn in modes.values():  # warm-up: Numba kernels from the cache, CSR built
        fn()
    samples: dict[str, list[float]] = {k: [] for k in modes}
    for _ in range(args.batches):
        for name, fn in modes.items():
            t0 = time.perf_counter()
            fn()
            samples[name].append(1e3 * (time.perf_counter() - t0))
    med = {k: statistics.median(v) for k, v in samples.items()}
    for name, v in samples.items():
        print(f"{name:32s} median {med[name]:7.2f} ms   best {min(v):7.2f} ms")
    print(
        "ratios (median over uniform): "
        f"weight_attr {med['loader weight_attr'] / med['loader uniform']:.2f}x, "
        f"weight_attr replace {med['loader weight_attr, replace'] / med['loader uniform']:.2f}x, "
        f"prob {med['sample_neighbors prob'] / med['sample_neighbors uniform']:.2f}x, "
        f"prob replace "
        f"{med['sample_neighbors prob, replace'] / med['sample_neighbors uniform']:.2f}x"
    )


if __name__ == "__main__":
    main()
