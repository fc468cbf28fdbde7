"""``arraygnn._ids.unique_ids`` / ``unique_ids_with`` against ``np.unique`` at the call sites
that run per batch or per call. "before" swaps the helpers back to ``xp.unique`` (same
flags) in the modules that call them, "after" runs the code as it is; the two alternate
within each repeat and the best of ``--repeat`` is kept.

    python benchmarks/bench_unique_ids.py            # 200k nodes / 2M edges
    python benchmarks/bench_unique_ids.py --quick    # 20k nodes / 200k edges
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn  # noqa: E402
from arraygnn import _ids  # noqa: E402

WITH = [
    "arraygnn.labor_sampler",
    "arraygnn.utils.subgraph",
    "arraygnn.graph.subgraph",
    "arraygnn.nn.pool_cluster",
    "arraygnn.transforms.point_cloud",
    "arraygnn.ops.edge_softmax",
]
PLAIN = [
    "arraygnn.graph_saint",
    "arraygnn.shadow_k_hop_sampler",
    "arraygnn.hgt_loader",
    "arraygnn.saint_sampler",
    "arraygnn.utils.augment",
]


def _old_with(xp, ids, num_ids=None, **kw):  # noqa: ANN001, ANN003, ANN202
    return tuple(xp.unique(ids, **kw))


def _old_plain(xp, ids, num_ids=None):  # noqa: ANN001, ANN202
    return xp.unique(ids)


def _lead_unique_ids(xp, ids, num_ids=None):  # noqa: ANN001, ANN202
    """unique_ids before this change: the mask only with num_ids, else sort + compare."""
    ids = ids.ravel()
    if ids.shape[0] == 0:
        return ids.copy()
    if num_ids is not None and int(num_ids) <= 4 * ids.shape[0] + 65536:
        mask = np.zeros(int(num_ids), dtype=bool)
        mask[ids] = True
        return np.flatnonzero(mask).astype(ids.dtype, copy=False)
    ordered = np.sort(ids)
    keep = np.empty(ids.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


MODS = {name: importlib.import_module(name) for name in WITH + PLAIN}
NEW = {name: dict(vars(mod)) for name, mod in MODS.items()}


def use(old: bool) -> None:
    for name, mod in MODS.items():
        if "unique_ids_with" in NEW[name]:
            mod.unique_ids_with = _old_with if old else NEW[name]["unique_ids_with"]
        if name in PLAIN and "unique_ids" in NEW[name]:
            mod.unique_ids = _old_plain if old else NEW[name]["unique_ids"]


def best_pair(fn, repeat: int) -> tuple[float, float]:
    before, after = [], []
    for _ in range(repeat):
        for old, out in ((True, before), (False, after)):
            use(old)
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
    use(False)
    return min(before), min(after)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    n, e = (20_000, 200_000) if args.quick else (200_000, 2_000_000)
    from arraygnn.data import Data
    from arraygnn.graph import graph
    from arraygnn.graph.subgraph import edge_subgraph
    from arraygnn.hetero_data import HeteroData
    from arraygnn.labor_sampler import LaborSampler
    from arraygnn.link_neighbor_loader import LinkNeighborLoader
    from arraygnn.loader import GraphSAINTRandomWalkSampler, HGTLoader, ShaDowKHopSampler
    from arraygnn.neighbor_loader import NeighborLoader
    from arraygnn.nn.pool_cluster import consecutive_cluster
    from arraygnn.ops import edge_softmax
    from arraygnn.saint_sampler import SAINTSampler
    from arraygnn.sampling import NeighborSampler
    from arraygnn.transforms.point_cloud import GridSampling
    from arraygnn.utils.augment import dropout_path
    from arraygnn.utils.subgraph import k_hop_subgraph

    src, dst, x = arraygnn.powerlaw_graph(n, e, seed=0, num_features=64)
    rng = np.random.default_rng(0)
    e = int(src.shape[0])
    ei = np.stack([src, dst])
    data = Data(x=x.astype(np.float32), edge_index=ei, num_nodes=n)
    half = n // 2
    het = HeteroData(a={"x": x[:half].astype(np.float32)}, b={"x": x[half:].astype(np.float32)})
    het["a", "to", "b"].edge_index = np.stack([src % half, dst % (n - half)])
    het["b", "rev", "a"].edge_index = np.stack([dst % (n - half), src % half])
    het["a", "cites", "a"].edge_index = np.stack([src % half, dst % half])
    g = graph((src, dst), num_nodes=n)
    seeds = rng.choice(n, 1024, replace=False)
    kw = dict(batch_size=1024, shuffle=True, seed=0)
    pos = rng.random((n, 3))
    cluster = rng.integers(0, n, 1_500_000)
    sparse_dst = rng.integers(0, 3 * e, e)
    logits = rng.standard_normal(e)
    deg = np.bincount(dst, minlength=n)
    ids300 = rng.integers(0, 100_000, 300_000)
    eids150 = rng.choice(e, 150_000, replace=False)
    seeds4k = rng.integers(0, n, 4096)
    shadow_keys = rng.integers(0, 10**8, 57_000)
    batch_vec = np.repeat(np.arange(64), 200_000 // 64)
    seeds4k_small = rng.integers(0, 20_000, 4096)

    def batches(loader, k=10):  # noqa: ANN001, ANN202
        def run():  # noqa: ANN202
            for i, _ in enumerate(loader):
                if i + 1 >= k:
                    break

        return run

    cases = {
        "NeighborLoader [15, 10], 10 x 1024": batches(NeighborLoader(data, [15, 10], **kw)),
        "NeighborLoader disjoint, 10 x 1024": batches(
            NeighborLoader(data, [15, 10], disjoint=True, **kw)
        ),
        "LinkNeighborLoader [15, 10], binary neg, 10 x 1024": batches(
            LinkNeighborLoader(data, [15, 10], neg_sampling="binary", **kw)
        ),
        "HeteroLinkNeighborLoader (a, to, b) [10, 5], 10 x 1024": batches(
            LinkNeighborLoader(het, [10, 5], edge_label_index=("a", "to", "b"), **kw)
        ),
        "GraphSAINTRandomWalkSampler 10 x 2000 walks of 3": batches(
            GraphSAINTRandomWalkSampler(data, batch_size=2000, walk_length=3, num_steps=10, seed=0)
        ),
        "ShaDowKHopSampler 10 x 512 roots, depth 2, 10": batches(
            ShaDowKHopSampler(
                data, depth=2, num_neighbors=10, batch_size=512, seed=0, node_idx=np.arange(5120)
            )  # fmt: skip
        ),
        "HGTLoader 10 x 512 seeds, [512, 512]": batches(
            HGTLoader(
                het,
                num_samples=[512, 512],
                input_nodes=("a", np.arange(5120)),
                batch_size=512,
                seed=0,
            )  # fmt: skip
        ),
        "k_hop_subgraph 1024 seeds, 2 hops": lambda: k_hop_subgraph(seeds, 2, ei, num_nodes=n),
        "DGL NeighborSampler([15, 10]).sample_blocks, 1024 seeds": lambda: NeighborSampler(
            [15, 10], seed=0, copy_ndata=False
        ).sample_blocks(g, seeds),
        "edge_subgraph, 150k random edges (first-appearance ids)": lambda: edge_subgraph(
            g, eids150
        ),
        "LaborSampler([15, 10], importance_sampling=1), 1024 seeds": lambda: LaborSampler(
            [15, 10], importance_sampling=1, seed=0
        ).sample_blocks(g, seeds),
        "SAINTSampler node, budget 20k": lambda: SAINTSampler("node", 20_000, seed=0).sample(
            g, None
        ),
        "SAINTSampler edge, budget 20k": lambda: SAINTSampler("edge", 20_000, seed=0).sample(
            g, None
        ),
        "SAINTSampler walk, (3000, 3)": lambda: SAINTSampler("walk", (3000, 3), seed=0).sample(
            g, None
        ),
        "dropout_path p=0.2 (all nodes)": lambda: dropout_path(ei, p=0.2, num_nodes=n),
        "GridSampling(0.01) on n points": lambda: GridSampling(0.01)(Data(pos=pos)),
        "GridSampling(0.05) on n points (dense voxels)": lambda: GridSampling(0.05)(Data(pos=pos)),
        "consecutive_cluster, 1.5M ids of n": lambda: consecutive_cluster(cluster),
        "edge_softmax, sparse dst ids (3E range)": lambda: edge_softmax(
            np.stack([src, sparse_dst]), logits
        ),
    }
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs, {n:,} nodes / {e:,} edges")
    for name, fn in cases.items():
        if args.only and not any(k in name for k in args.only.split(",")):
            continue
        try:
            fn()  # warm-up (Numba, caches)
            b, a = best_pair(fn, args.repeat)
        except Exception as exc:  # noqa: BLE001
            print(f"{name:58s} FAILED {type(exc).__name__}: {exc}")
            continue
        print(f"{name:58s} before {b * 1e3:8.1f} ms  after {a * 1e3:8.1f} ms  x{b / a:5.2f}")
    # direct calls (sites where the helper replaced np.unique on ids of known size)
    micro = {
        "unique(deg) for UDF degree buckets, n degrees": (
            lambda: np.unique(deg),
            lambda: _ids.unique_ids(np, deg),
        ),
        "unique_ids 300k ids of 100k, no num_ids (lead's sort)": (
            lambda: _lead_unique_ids(np, ids300),
            lambda: _ids.unique_ids(np, ids300),
        ),
        "np.unique 300k ids of 100k vs unique_ids": (
            lambda: np.unique(ids300),
            lambda: _ids.unique_ids(np, ids300),
        ),
    }
    micro["knn batch vector check: 200k points of 64 examples"] = (
        lambda: np.unique(batch_vec),
        lambda: _ids.unique_ids(np, batch_vec),
    )
    micro["ShaDow batch keys: 57k (graph, node) keys over 1e8"] = (
        lambda: np.unique(shadow_keys),
        lambda: _ids.unique_ids(np, shadow_keys),
    )
    micro["LinkNeighborLoader seeds: 4096 ids of n, return_inverse"] = (
        lambda: np.unique(seeds4k, return_inverse=True),
        lambda: _ids.unique_ids_with(np, seeds4k, return_inverse=True),
    )
    micro["LinkNeighborLoader seeds: 4096 ids of 20k, return_inverse"] = (
        lambda: np.unique(seeds4k_small, return_inverse=True),
        lambda: _ids.unique_ids_with(np, seeds4k_small, return_inverse=True),
    )
    for flag in ("return_inverse", "return_index", "return_counts"):
        for dt in (np.int32, np.int64):
            v = ids300.astype(dt)
            micro[f"{flag}, 300k {np.dtype(dt).name} ids of 100k"] = (
                lambda v=v, f=flag: np.unique(v, **{f: True}),
                lambda v=v, f=flag: _ids.unique_ids_with(np, v, **{f: True}),
            )
    wide = rng.integers(0, 10**12, 300_000)
    micro["return_inverse, 300k ids over 1e12 (np.unique route)"] = (
        lambda: np.unique(wide, return_inverse=True),
        lambda: _ids.unique_ids_with(np, wide, return_inverse=True),
    )
    for name, (old, new) in micro.items():
        if args.only and not any(k in name for k in args.only.split(",")):
            continue
        b = a = float("inf")
        for _ in range(args.repeat):
            for fn, which in ((old, 0), (new, 1)):
                t = time.perf_counter()
                fn()
                dt = time.perf_counter() - t
                if which:
                    a = min(a, dt)
                else:
                    b = min(b, dt)
        print(f"{name:58s} before {b * 1e3:8.2f} ms  after {a * 1e3:8.2f} ms  x{b / a:5.2f}")


if __name__ == "__main__":
    main()
