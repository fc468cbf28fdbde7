"""DGL-face graph transforms, edge lookups and batching against PyG / SciPy equivalents.

One random multigraph (N nodes, E edges, int64 ids, float32 edge weights) and many small
graphs; each arraygnn call is timed against the closest anchor in the same run (PyG's
``to_undirected`` / ``coalesce`` / ``add_self_loops`` / ``remove_self_loops`` /
``Batch.from_data_list`` / ``to_data_list`` on torch tensors, SciPy's COO -> CSR duplicate
summing). Anchors differ in detail (PyG's ``coalesce`` and arraygnn's ``to_simple`` both
sort the pairs by (row, col), as DGL's; ``to_simple`` also counts them and returns the
write-back mapping), so read the ratios as "same job". Best of
``--repeat``; ratio = anchor / arraygnn (> 1: arraygnn faster).

    python benchmarks/bench_dgl_transforms.py            # full size
    python benchmarks/bench_dgl_transforms.py --quick    # CI size
"""

from __future__ import annotations

import argparse
import time

import numpy as np

SIZES = {"quick": (2_000, 20_000, 200), "full": (200_000, 2_000_000, 10_000)}


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    n, e, graphs = SIZES["quick" if args.quick else "full"]
    from arraygnn.graph import (
        add_self_loop,
        batch,
        graph,
        remove_self_loop,
        to_bidirected,
        to_simple,
        unbatch,
    )

    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    w = rng.random(e).astype(np.float32)
    g = graph((src, dst), num_nodes=n)
    g.edata["w"] = w
    small = []
    for _ in range(graphs):
        k = int(rng.integers(10, 40))
        sg = graph((rng.integers(0, k, 2 * k), rng.integers(0, k, 2 * k)), num_nodes=k)
        sg.ndata["h"] = rng.random((k, 16), dtype=np.float32)
        small.append(sg)
    ours = {
        "to_bidirected": lambda: to_bidirected(g),
        "to_simple (+ counts)": lambda: to_simple(g),
        "to_simple, edge weights summed": lambda: to_simple(g, copy_edata=True, aggregator="sum"),
        "add_self_loop": lambda: add_self_loop(g),
        "remove_self_loop": lambda: remove_self_loop(g),
        f"batch ({graphs} graphs)": lambda: batch(small),
    }
    bg = batch(small)
    ours[f"unbatch ({graphs} graphs)"] = lambda: unbatch(bg)
    anchors: dict[str, tuple[str, object]] = {}
    try:
        import scipy.sparse as sp

        anchors["to_simple, edge weights summed"] = (
            "scipy coo -> csr",
            lambda: sp.coo_matrix((w, (src, dst)), shape=(n, n)).tocsr(),
        )
    except ImportError:  # pragma: no cover - SciPy is a core dependency
        pass
    try:
        import torch
        from torch_geometric.data import Batch, Data
        from torch_geometric.utils import (
            add_self_loops,
            coalesce,
            remove_self_loops,
            to_undirected,
        )

        torch.set_num_threads(2)
        ei = torch.from_numpy(np.stack([src, dst]))
        wt = torch.from_numpy(w)
        anchors["to_bidirected"] = ("PyG to_undirected", lambda: to_undirected(ei, num_nodes=n))
        anchors["to_simple (+ counts)"] = ("PyG coalesce", lambda: coalesce(ei, num_nodes=n))
        anchors["add_self_loop"] = ("PyG add_self_loops", lambda: add_self_loops(ei, num_nodes=n))
        anchors["remove_self_loop"] = ("PyG remove_self_loops", lambda: remove_self_loops(ei, wt))
        datas = [
            Data(
                x=torch.from_numpy(sg.ndata["h"]),
                edge_index=torch.from_numpy(np.stack(sg.edges())),
            )
            for sg in small
        ]
        anchors[f"batch ({graphs} graphs)"] = (
            "PyG Batch.from_data_list",
            lambda: Batch.from_data_list(datas),
        )
        pyg_batch = Batch.from_data_list(datas)
        anchors[f"unbatch ({graphs} graphs)"] = (
            "PyG to_data_list",
            lambda: pyg_batch.to_data_list(),
        )
    except ImportError:
        print("PyG not installed: PyG anchors skipped")
    print(f"graph: {n} nodes, {e} edges; {graphs} small graphs of 10-39 nodes")
    print(f"{'call':34s} {'arraygnn ms':>12s}  {'anchor':28s} {'ms':>9s} {'ratio':>7s}")
    for name, fn in ours.items():
        fn()  # warm-up (Numba kernels compile / load)
        t = _best(fn, args.repeat)
        if name in anchors:
            label, anchor = anchors[name]
            anchor()
            ta = _best(anchor, args.repeat)
            print(f"{name:34s} {t:12.1f}  {label:28s} {ta:9.1f} {ta / t:6.2f}x")
        else:
            print(f"{name:34s} {t:12.1f}")
    u, v = rng.integers(0, n, e // 2), rng.integers(0, n, e // 2)
    g.has_edges_between(u[:1], v[:1])  # builds the sorted pair index once
    print(
        f"{'has_edges_between (E/2 pairs)':34s} {_best(lambda: g.has_edges_between(u, v), 3):12.1f}"
    )
    print(f"{'in_edges (N/2 nodes)':34s} {_best(lambda: g.in_edges(u[: n // 2]), 3):12.1f}")


if __name__ == "__main__":
    main()
