"""More PyG loaders against PyG 2.8.1 itself, where PyG runs without torch_sparse / pyg-lib:
``RandomNodeLoader`` (Data and HeteroData), ``DenseDataLoader``, ``DataListLoader``,
``ImbalancedSampler`` and ``DynamicBatchSampler``. One full epoch each, best of ``--repeat``
runs, arraygnn and PyG alternating in the same run; the ratio is PyG's time over ours.
GraphSAINT, ShaDow and HGT need torch_sparse in PyG 2.8.1, so they have no anchor here.

    python benchmarks/bench_loaders_more.py            # 200k nodes / 2M edges
    python benchmarks/bench_loaders_more.py --quick    # 20k nodes / 200k edges
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from arraygnn.data import Data  # noqa: E402
from arraygnn.hetero_data import HeteroData  # noqa: E402
from arraygnn.loader import (  # noqa: E402
    DataListLoader,
    DenseDataLoader,
    DynamicBatchSampler,
    ImbalancedSampler,
    RandomNodeLoader,
)


def best(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> None:
    import torch
    import torch_geometric.loader as pl
    from torch_geometric.data import Data as PD
    from torch_geometric.data import HeteroData as PH

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)  # NumPy runs these on one thread too; steadier on a shared box
    n, e = (20_000, 200_000) if args.quick else (200_000, 2_000_000)
    rng = np.random.default_rng(0)
    ei = rng.integers(0, n, (2, e))
    x = rng.standard_normal((n, 64)).astype(np.float32)
    ea = rng.standard_normal((e, 8)).astype(np.float32)
    rows = []

    def case(name, ours, theirs):
        a = b = float("inf")
        for _ in range(args.repeat):  # the two sides alternate
            a, b = min(a, best(ours, 1)), min(b, best(theirs, 1))
        rows.append((name, a, b))
        print(f"{name:44s} arraygnn {a * 1e3:9.1f} ms   PyG {b * 1e3:9.1f} ms   x{b / a:5.2f}")

    data = Data(x=x, edge_index=ei, edge_attr=ea)
    pyg = PD(x=torch.as_tensor(x), edge_index=torch.as_tensor(ei), edge_attr=torch.as_tensor(ea))
    ours = RandomNodeLoader(data, num_parts=10, shuffle=True, seed=0)
    theirs = pl.RandomNodeLoader(pyg, num_parts=10, shuffle=True)
    case(f"RandomNodeLoader Data {n}/{e}, 10 parts", lambda: list(ours), lambda: list(theirs))

    h = HeteroData()
    h["a"].x, h["b"].x = x[: n // 2], x[n // 2 :]
    h["a", "to", "b"].edge_index = np.stack([ei[0] % (n // 2), ei[1] % (n - n // 2)])
    h["b", "to", "a"].edge_index = np.stack([ei[1] % (n - n // 2), ei[0] % (n // 2)])
    ph = PH()
    ph["a"].x, ph["b"].x = torch.as_tensor(h["a"].x), torch.as_tensor(h["b"].x)
    for et in h.edge_types:
        ph[et].edge_index = torch.as_tensor(h[et].edge_index)
    ours_h = RandomNodeLoader(h, num_parts=10, shuffle=True, seed=0)
    theirs_h = pl.RandomNodeLoader(ph, num_parts=10, shuffle=True)
    case("RandomNodeLoader HeteroData, 10 parts", lambda: list(ours_h), lambda: list(theirs_h))

    g = 2_000 if args.quick else 20_000
    dense = [
        Data(x=rng.standard_normal((32, 16)).astype(np.float32), adj=np.eye(32, dtype=np.float32),
             mask=np.ones(32, bool), y=np.array([i % 2]))
        for i in range(g)
    ]  # fmt: skip
    pdense = [PD(**{k: torch.as_tensor(v) for k, v in d.items()}) for d in dense]
    case(
        f"DenseDataLoader {g} graphs x32 nodes, batch 64",
        lambda: list(DenseDataLoader(dense, batch_size=64, shuffle=True, seed=0)),
        lambda: list(pl.DenseDataLoader(pdense, batch_size=64, shuffle=True)),
    )
    case(
        f"DataListLoader {g} graphs, batch 64",
        lambda: list(DataListLoader(dense, batch_size=64, shuffle=True, seed=0)),
        lambda: list(pl.DataListLoader(pdense, batch_size=64, shuffle=True)),
    )
    y = rng.choice(5, size=n * 5, p=[0.6, 0.2, 0.1, 0.07, 0.03])
    case(
        f"ImbalancedSampler {y.shape[0]} labels, one epoch",
        lambda: list(ImbalancedSampler(y, seed=0)),
        lambda: list(pl.ImbalancedSampler(torch.as_tensor(y))),
    )
    sizes = rng.integers(5, 60, g)
    small = [Data(num_nodes=int(s), edge_index=np.zeros((2, 0), np.int64)) for s in sizes]
    psmall = [PD(num_nodes=int(s), edge_index=torch.zeros(2, 0, dtype=torch.long)) for s in sizes]
    case(
        f"DynamicBatchSampler {g} graphs, max_num 1000",
        lambda: list(iter(DynamicBatchSampler(small, max_num=1000))),
        lambda: list(iter(pl.DynamicBatchSampler(psmall, max_num=1000))),
    )
    # no PyG anchor (PyG needs torch_sparse for these): absolute times only
    from arraygnn.loader import GraphSAINTRandomWalkSampler, HGTLoader, ShaDowKHopSampler

    saint = GraphSAINTRandomWalkSampler(data, batch_size=2000, walk_length=3, num_steps=10, seed=0)
    shadow = ShaDowKHopSampler(data, depth=2, num_neighbors=10, batch_size=512, seed=0,
                               node_idx=np.arange(5120))  # fmt: skip
    hgt = HGTLoader(h, num_samples=[512, 512], input_nodes=("a", np.arange(5120)),
                    batch_size=512, seed=0)  # fmt: skip
    for name, loader in (("GraphSAINTRandomWalkSampler 10 x 2000 walks", saint),
                         ("ShaDowKHopSampler 10 x 512 roots, depth 2, 10", shadow),
                         ("HGTLoader 10 x 512 seeds, [512, 512]", hgt)):  # fmt: skip
        list(loader)  # warm-up (Numba)
        a = best(lambda loader=loader: list(loader), args.repeat)
        print(f"{name:44s} arraygnn {a * 1e3:9.1f} ms   (no PyG anchor)")
    print(f"(best of {args.repeat}; ratio = PyG / arraygnn; torch {torch.__version__})")


if __name__ == "__main__":
    main()
