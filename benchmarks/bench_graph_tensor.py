"""Merging many small heterogeneous GraphTensors into one graph of components.

Each graph has node sets ``paper`` (embedding float32 [16], year int32, a ragged token
feature) and ``author`` (embedding float32 [16]), edge sets ``cites`` (paper -> paper,
weight float32) and ``writes`` (author -> paper), and a context label; 2-12 nodes per set and
0-20 edges per set, empty sets included.

Timed (median of ``--repeat`` runs, graphs per second):
- ``merge_graphs_to_components`` (vectorised per feature: one concatenate per field, one
  repeat-and-add per adjacency);
- ``batch_graph_tensors`` + ``merge_batch_to_components`` (the TF-GNN route);
- ``split_components`` (back to the list);
- anchors in the same run: a per-graph Python loop that shifts every adjacency graph by graph
  before concatenating (what a naive merge does), and PyG's ``Batch.from_data_list`` on the
  same graphs as ``HeteroData`` (when torch_geometric is installed). Ratios > 1: arraygnn
  faster.

    python benchmarks/bench_graph_tensor.py            # 1,000 and 10,000 graphs
    python benchmarks/bench_graph_tensor.py --quick    # CI size
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from arraygnn.graph_tensor import (
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    batch_graph_tensors,
    merge_graphs_to_components,
    split_components,
)

DIM = 16


def make_graphs(n: int, seed: int = 0) -> list[GraphTensor]:
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(n):
        npaper = int(rng.integers(2, 13))
        nauthor = int(rng.integers(2, 13))
        ncites = int(rng.integers(0, 21))
        nwrites = int(rng.integers(0, 21))
        lengths = rng.integers(0, 6, npaper)
        graphs.append(
            GraphTensor.from_pieces(
                context=Context.from_fields(features={"label": rng.integers(0, 5, 1)}),
                node_sets={
                    "paper": NodeSet.from_fields(
                        sizes=np.array([npaper]),
                        features={
                            "embedding": rng.standard_normal((npaper, DIM), dtype=np.float32),
                            "year": rng.integers(1990, 2025, npaper).astype(np.int32),
                            "tokens": Ragged.from_row_lengths(
                                rng.integers(0, 1000, int(lengths.sum())), lengths
                            ),
                        },
                    ),
                    "author": NodeSet.from_fields(
                        sizes=np.array([nauthor]),
                        features={
                            "embedding": rng.standard_normal((nauthor, DIM), dtype=np.float32)
                        },
                    ),
                },
                edge_sets={
                    "cites": EdgeSet.from_fields(
                        sizes=np.array([ncites]),
                        adjacency=Adjacency.from_indices(
                            source=("paper", rng.integers(0, npaper, ncites)),
                            target=("paper", rng.integers(0, npaper, ncites)),
                        ),
                        features={"weight": rng.random(ncites, dtype=np.float32)},
                    ),
                    "writes": EdgeSet.from_fields(
                        sizes=np.array([nwrites]),
                        adjacency=Adjacency.from_indices(
                            source=("author", rng.integers(0, nauthor, nwrites)),
                            target=("paper", rng.integers(0, npaper, nwrites)),
                        ),
                    ),
                },
            )
        )
    return graphs


def naive_merge(graphs: list[GraphTensor]) -> dict[str, np.ndarray]:
    """Anchor: shift every graph's indices in a Python loop, then concatenate (dense fields
    only, so it does less work than the real merge)."""
    out: dict[str, list[np.ndarray]] = {}
    offsets = {"paper": 0, "author": 0}
    for g in graphs:
        for n in ("paper", "author"):
            ns = g.node_sets[n]
            out.setdefault(f"{n}.embedding", []).append(ns["embedding"])
        out.setdefault("paper.year", []).append(g.node_sets["paper"]["year"])
        for e in ("cites", "writes"):
            a = g.edge_sets[e].adjacency
            out.setdefault(f"{e}.src", []).append(a.source + offsets[a.source_name])
            out.setdefault(f"{e}.tgt", []).append(a.target + offsets[a.target_name])
        for n in ("paper", "author"):
            offsets[n] += g.node_sets[n].total_size
    return {k: np.concatenate(v) for k, v in out.items()}


def pyg_hetero(graphs: list[GraphTensor]):
    import torch
    from torch_geometric.data import HeteroData

    out = []
    for g in graphs:
        h = HeteroData()
        for n in ("paper", "author"):
            h[n].x = torch.from_numpy(g.node_sets[n]["embedding"])
        h["paper"].year = torch.from_numpy(g.node_sets["paper"]["year"])
        for e, (s, t) in (("cites", ("paper", "paper")), ("writes", ("author", "paper"))):
            a = g.edge_sets[e].adjacency
            h[s, e, t].edge_index = torch.from_numpy(np.stack([a.source, a.target]))
        h["paper", "cites", "paper"].weight = torch.from_numpy(g.edge_sets["cites"]["weight"])
        h.label = torch.from_numpy(g.context["label"])
        out.append(h)
    return out


def timeit(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run(n: int, repeat: int) -> None:
    graphs = make_graphs(n)
    counts = [g.num_components for g in graphs]
    merged = merge_graphs_to_components(graphs)
    t_merge = timeit(lambda: merge_graphs_to_components(graphs), repeat)
    t_batch = timeit(lambda: batch_graph_tensors(graphs).merge_batch_to_components(), repeat)
    t_split = timeit(lambda: split_components(merged, counts), repeat)
    t_naive = timeit(lambda: naive_merge(graphs), repeat)
    print(
        f"\n{n} graphs ({merged.node_sets['paper'].total_size} papers, "
        f"{merged.node_sets['author'].total_size} authors, "
        f"{merged.edge_sets['cites'].total_size + merged.edge_sets['writes'].total_size} edges)"
    )
    print(
        f"  merge_graphs_to_components     {t_merge * 1e3:8.2f} ms  {n / t_merge:>10,.0f} graphs/s"
    )
    print(
        f"  batch + merge_batch_to_comp.   {t_batch * 1e3:8.2f} ms  {n / t_batch:>10,.0f} graphs/s"
    )
    print(
        f"  split_components               {t_split * 1e3:8.2f} ms  {n / t_split:>10,.0f} graphs/s"
    )
    print(
        f"  anchor: per-graph loop merge   {t_naive * 1e3:8.2f} ms  {n / t_naive:>10,.0f} graphs/s"
        f"   ratio loop/merge = {t_naive / t_merge:.2f}"
    )
    try:
        from torch_geometric.data import Batch
    except ImportError:
        print("  anchor: PyG HeteroData Batch   (torch_geometric not installed)")
        return
    hetero = pyg_hetero(graphs)
    t_pyg = timeit(lambda: Batch.from_data_list(hetero), repeat)
    print(
        f"  anchor: PyG HeteroData Batch   {t_pyg * 1e3:8.2f} ms  {n / t_pyg:>10,.0f} graphs/s"
        f"   ratio PyG/merge = {t_pyg / t_merge:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI size: 200 graphs, 3 repeats")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if args.quick:
        run(200, 3)
    else:
        for n in (1_000, 10_000):
            run(n, args.repeat)


if __name__ == "__main__":
    main()
