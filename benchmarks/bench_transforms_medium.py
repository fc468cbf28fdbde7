"""PyG-face transforms and utils on medium graphs: arraygnn against PyG in one process.

The cases where a survey of every ``arraygnn.transforms`` / ``arraygnn.utils`` name on a
50k-node / 500k-edge graph found arraygnn several times slower than PyG (or failing):
``RootedEgoNets(2)`` (uniform and power-law sources), ``to_dense_adj`` (one 3,000-node
graph; a batch of 2,000 small graphs), ``lexsort`` of two int64 keys, ``dense_to_sparse``
of a 3,000 x 3,000 matrix and ``PointPairFeatures`` (``LaplacianLambdaMax`` is left out:
ARPACK's random start vector moves its time 3-5x from run to run on both sides). One thread
each for Numba, torch and BLAS; best / median of ``--repeat`` after a warm-up, the sides
alternating. PyG's ``RootedEgoNets`` builds a dense [N, N] mask: it runs out of memory at
50k nodes and is timed on a 3,000-node graph only.

    python benchmarks/bench_transforms_medium.py [--repeat 3] [--nodes 50000]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from _timing import limit_threads, times

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn.transforms as T  # noqa: E402
import arraygnn.utils as U  # noqa: E402
from arraygnn.data import Data  # noqa: E402


def graphs(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    e = 10 * n
    uniform = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)])
    p = 1.0 / np.arange(1, n + 1)
    hubs = rng.permutation(n)[rng.choice(n, e, p=p / p.sum())]  # power-law sources
    return {"uniform": uniform, "power-law": np.stack([hubs, rng.integers(0, n, e)])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=50_000)
    args = parser.parse_args()
    limit_threads(1)
    try:
        import torch
        import torch_geometric.transforms as pyg_t
        import torch_geometric.utils as pyg_u
        from torch_geometric.data import Data as PygData
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    n = args.nodes
    big = graphs(n, rng)
    small_n = 3000
    small = np.stack([rng.integers(0, small_n, 30_000), rng.integers(0, small_n, 30_000)])
    batch = np.sort(rng.integers(0, 2000, n))
    local = big["uniform"][:, batch[big["uniform"][0]] == batch[big["uniform"][1]]]
    dense = (rng.random((small_n, small_n)) < 0.01).astype(np.float32)
    pos, normal = rng.random((n, 3), dtype=np.float32), rng.random((n, 3), dtype=np.float32)
    t = torch.from_numpy if torch is not None else None

    cases = []
    for name, ei in big.items():
        cases.append(
            (
                f"RootedEgoNets(2), {name}",
                lambda ei=ei: T.RootedEgoNets(2)(Data(edge_index=ei, num_nodes=n)),
                None,
            )
        )
    cases.append(
        (
            "RootedEgoNets(2), 3k nodes / 30k edges",
            lambda: T.RootedEgoNets(2)(Data(edge_index=small, num_nodes=small_n)),
            lambda: pyg_t.RootedEgoNets(2)(PygData(edge_index=t(small), num_nodes=small_n)),
        )
    )
    cases += [
        (
            "to_dense_adj, 3k nodes",
            lambda: U.to_dense_adj(small, max_num_nodes=small_n),
            lambda: pyg_u.to_dense_adj(t(small), max_num_nodes=small_n),
        ),
        (
            "to_dense_adj, 2,000 graphs",
            lambda: U.to_dense_adj(local, batch),
            lambda: pyg_u.to_dense_adj(t(local), t(batch)),
        ),
        (
            "lexsort, 2 int64 keys",
            lambda: U.lexsort([big["uniform"][1], big["uniform"][0]]),
            lambda: pyg_u.lexsort([t(big["uniform"][1]), t(big["uniform"][0])]),
        ),
        (
            "dense_to_sparse, 3k x 3k",
            lambda: U.dense_to_sparse(dense),
            lambda: pyg_u.dense_to_sparse(t(dense)),
        ),
    ]
    ei = big["uniform"]
    cases.append(
        (
            "PointPairFeatures",
            lambda: T.PointPairFeatures()(Data(edge_index=ei, pos=pos, norm=normal)),
            lambda: pyg_t.PointPairFeatures()(
                PygData(edge_index=t(ei), pos=t(pos), norm=t(normal))
            ),
        )
    )
    print(f"{n} nodes / {10 * n} edges; one thread each; best / median of {args.repeat} (ms)")
    print("| case | arraygnn | PyG | PyG / arraygnn |\n|---|---:|---:|---:|")
    for name, ours, theirs in cases:
        fns = [ours] if theirs is None or torch is None else [ours, theirs]
        res = times(fns, args.repeat)
        a = res[0]
        if len(res) == 1:
            print(f"| {name} | {a[0]:,.1f} / {a[1]:,.1f} | - | - |", flush=True)
            continue
        p = res[1]
        print(
            f"| {name} | {a[0]:,.1f} / {a[1]:,.1f} | {p[0]:,.1f} / {p[1]:,.1f} | "
            f"{p[0] / a[0]:.2f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
