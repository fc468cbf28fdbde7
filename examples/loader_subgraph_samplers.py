"""Subgraph mini-batching on one large graph with PyG's loaders, on NumPy arrays.

One random graph (a few thousand nodes, imbalanced classes, train / val masks) is cut into
batches five ways, each fed to a GCN layer (``arraygnn.nn.GCNConv`` with random weights) or
to an edge-weighted SpMM (``arraygnn.ops.spmm``), and each batch's invariants are asserted:

- ``RandomNodeLoader``: random node partitions; every node in exactly one batch per epoch,
  each batch the subgraph its nodes induce (edges between parts dropped).
- ``GraphSAINTNodeSampler`` / ``EdgeSampler`` / ``RandomWalkSampler``: random node-induced
  subgraphs with the GraphSAINT ``node_norm`` (loss weights) and ``edge_norm``
  (aggregation weights), used as PyG's GraphSAINT example uses them.
- ``ShaDowKHopSampler``: one sampled 2-hop subgraph per training root, laid out with
  ``batch`` / ``ptr`` / ``root_n_id``; the model reads the roots' rows.
- ``ImbalancedSampler``: class-balanced roots for ShaDow, and class-balanced batches of
  ego graphs through ``DataLoader(sampler=...)``.
- ``DynamicBatchSampler``: ego-graph batches of at most ``MAX_NODES`` nodes through
  ``DataLoader(batch_sampler=...)``.

A ``n_id`` node attribute (``arange(N)``) rides along in every batch, so each batch can be
checked against the full graph. Per-node arrays are named with ``node_attrs=`` (arraygnn
never guesses an array's level from its length).

    python examples/loader_subgraph_samplers.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn
import arraygnn.nn as nn
from arraygnn import ops
from arraygnn.data import Data
from arraygnn.loader import (
    DataLoader,
    DynamicBatchSampler,
    GraphSAINTEdgeSampler,
    GraphSAINTNodeSampler,
    GraphSAINTRandomWalkSampler,
    ImbalancedSampler,
    RandomNodeLoader,
    ShaDowKHopSampler,
)
from arraygnn.utils import k_hop_subgraph

N, AVG_DEG, F, HIDDEN, C = 3_000, 8, 16, 32, 4
CLASS_P = [0.70, 0.18, 0.08, 0.04]  # imbalanced labels
NODE_ATTRS = ("x", "y", "train_mask", "val_mask", "n_id")
MAX_NODES = 600


def make_graph(seed: int = 0) -> Data:
    """A random undirected graph (both directions stored, no self-loops, no repeats)."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, N, N * AVG_DEG // 2)
    dst = rng.integers(0, N, N * AVG_DEG // 2)
    keep = src != dst
    keys = np.unique(np.concatenate([src[keep] * N + dst[keep], dst[keep] * N + src[keep]]))
    edge_index = np.stack([keys // N, keys % N])
    y = rng.choice(C, size=N, p=CLASS_P).astype(np.int64)
    split = rng.random(N)
    return Data(
        x=rng.standard_normal((N, F)).astype(np.float32),
        edge_index=edge_index,
        y=y,
        train_mask=split < 0.6,
        val_mask=(split >= 0.6) & (split < 0.8),
        n_id=np.arange(N),
    )


def edge_keys(edge_index: np.ndarray, n_id: np.ndarray) -> np.ndarray:
    """Global (source * N + target) keys of a batch's edges."""
    return n_id[edge_index[0]] * N + n_id[edge_index[1]]


def induced_edge_count(all_keys: np.ndarray, nodes: np.ndarray) -> int:
    """Edges of the full graph whose both ends are in ``nodes``."""
    inside = np.zeros(N, bool)
    inside[nodes] = True
    return int(np.count_nonzero(inside[all_keys // N] & inside[all_keys % N]))


def random_node_loader(data: Data, conv1, all_keys: np.ndarray) -> str:
    loader = RandomNodeLoader(data, num_parts=6, shuffle=True, node_attrs=NODE_ATTRS, seed=0)
    seen, kept_edges = [], 0
    for batch in loader:
        n_id = batch.n_id
        assert batch.num_nodes == n_id.shape[0] and np.array_equal(batch.x, data.x[n_id])
        keys = edge_keys(batch.edge_index, n_id)
        # induced: every batch edge is a graph edge, and every graph edge inside the part is kept
        assert np.isin(keys, all_keys).all()
        assert keys.shape[0] == induced_edge_count(all_keys, n_id)
        h = conv1(batch.x, batch.edge_index)
        assert h.shape == (batch.num_nodes, HIDDEN) and np.isfinite(h).all()
        seen.append(n_id)
        kept_edges += keys.shape[0]
    seen = np.concatenate(seen)
    assert np.array_equal(np.sort(seen), np.arange(N)), "every node exactly once per epoch"
    assert not np.array_equal(seen, np.arange(N)), "shuffle=True: a random partition"
    return (
        f"RandomNodeLoader: {len(loader)} parts cover all {N} nodes once; "
        f"{kept_edges}/{all_keys.shape[0]} edges inside parts"
    )


def saint(data: Data, weight: np.ndarray, all_keys: np.ndarray) -> list[str]:
    common = {"num_steps": 5, "sample_coverage": 20, "node_attrs": NODE_ATTRS, "seed": 0}
    samplers = [
        GraphSAINTNodeSampler(data, batch_size=400, **common),
        GraphSAINTEdgeSampler(data, batch_size=250, **common),
        GraphSAINTRandomWalkSampler(data, batch_size=100, walk_length=3, **common),
    ]
    lines = []
    for sampler in samplers:
        sizes, losses = [], []
        for batch in sampler:
            n_id = batch.n_id
            assert np.array_equal(n_id, np.unique(n_id)), "sorted distinct nodes"
            assert np.array_equal(batch.y, data.y[n_id])
            keys = edge_keys(batch.edge_index, n_id)
            assert np.isin(keys, all_keys).all()
            assert keys.shape[0] == induced_edge_count(all_keys, n_id), "an induced subgraph"
            # the norms: one per node / per edge, positive and finite
            assert batch.node_norm.shape == (batch.num_nodes,) and batch.node_norm.min() > 0
            assert batch.edge_norm.shape == (keys.shape[0],)
            assert (batch.edge_norm >= 0).all() and (batch.edge_norm <= 1e4).all()
            # PyG's GraphSAINT recipe: aggregate with edge_norm, weight the loss by node_norm
            h = ops.spmm(
                batch.edge_index,
                batch.x @ weight,
                edge_weight=batch.edge_norm,
                num_dst_nodes=batch.num_nodes,
            )
            z = h - h.max(1, keepdims=True)
            logp = z - np.log(np.exp(z).sum(1, keepdims=True))
            nll = -logp[np.arange(batch.num_nodes), batch.y]
            m = batch.train_mask
            losses.append(float((nll[m] * batch.node_norm[m]).sum()))
            sizes.append(batch.num_nodes)
        assert len(sizes) == len(sampler) == 5 and np.isfinite(losses).all()
        lines.append(
            f"{type(sampler).__name__}: {len(sizes)} induced subgraphs of "
            f"{min(sizes)}-{max(sizes)} nodes with node_norm / edge_norm"
        )
    return lines


def shadow(data: Data, conv1, roots=None) -> tuple[np.ndarray, int]:
    """ShaDow-GNN batches over ``roots`` (default: the training mask); returns the roots seen."""
    loader = ShaDowKHopSampler(
        data,
        depth=2,
        num_neighbors=5,
        node_idx=data.train_mask if roots is None else roots,
        batch_size=128,
        node_attrs=NODE_ATTRS,
        seed=0,
    )
    seen, batches = [], 0
    for batch in loader:
        b = batch.root_n_id.shape[0]
        assert batch.ptr.shape == (b + 1,) and batch.ptr[-1] == batch.n_id.shape[0]
        # one root per subgraph, at the position root_n_id says, inside its own subgraph
        assert np.array_equal(batch.batch[batch.root_n_id], np.arange(b))
        assert (batch.root_n_id >= batch.ptr[:-1]).all() and (batch.root_n_id < batch.ptr[1:]).all()
        root_ids = batch.n_id[batch.root_n_id]
        assert np.array_equal(batch.y, data.y[root_ids]), "y: one label per root"
        ei = batch.edge_index
        assert np.array_equal(batch.batch[ei[0]], batch.batch[ei[1]]), "no edge between subgraphs"
        h = conv1(batch.x, ei)[batch.root_n_id]  # the roots' embeddings
        assert h.shape == (b, HIDDEN) and np.isfinite(h).all()
        seen.append(root_ids)
        batches += 1
    return np.concatenate(seen), batches


def ego_graphs(data: Data, centres: np.ndarray) -> list[Data]:
    """One 1-hop ego graph per centre, labelled with the centre's class (graph-level y)."""
    graphs = []
    for c in centres:
        subset, ei, _, _ = k_hop_subgraph(int(c), 1, data.edge_index, True, num_nodes=N)
        graphs.append(Data(x=data.x[subset], edge_index=ei, y=data.y[c : c + 1]))
    return graphs


def main() -> None:
    start = time.perf_counter()
    data = make_graph()
    all_keys = data.edge_index[0] * N + data.edge_index[1]
    conv1 = nn.GCNConv(F, HIDDEN, rng=0)
    weight = np.random.default_rng(1).standard_normal((F, C)).astype(np.float32) / np.sqrt(F)
    train_idx = np.flatnonzero(data.train_mask)
    lines = [random_node_loader(data, conv1, all_keys)]
    lines += saint(data, weight, all_keys)

    # ShaDow over every training node: each root once per epoch
    roots, batches = shadow(data, conv1)
    assert np.array_equal(np.sort(roots), train_idx)
    lines.append(f"ShaDowKHopSampler: {batches} batches, {roots.shape[0]} roots, 1 per subgraph")

    # ImbalancedSampler on the node labels: positions in train_idx, drawn class-balanced
    sampler = ImbalancedSampler(data, input_nodes=data.train_mask, seed=0)
    drawn = train_idx[np.fromiter(sampler, dtype=np.int64)]
    before = np.bincount(data.y[train_idx], minlength=C) / train_idx.shape[0]
    after = np.bincount(data.y[drawn], minlength=C) / drawn.shape[0]
    assert before.max() > 0.6 and np.abs(after - 1 / C).max() < 0.05, after
    bal_roots, _ = shadow(data, conv1, roots=drawn)
    assert np.array_equal(bal_roots, drawn)
    lines.append(
        f"ImbalancedSampler roots: class shares {np.round(before, 2).tolist()} -> "
        f"{np.round(after, 2).tolist()}"
    )

    # graph-level: DataLoader over ego graphs with a sampler / a batch sampler
    egos = ego_graphs(data, train_idx[:400])
    loader = DataLoader(
        egos, batch_size=50, sampler=ImbalancedSampler(egos, num_samples=2_000, seed=1)
    )
    ys = []
    for batch in loader:
        h = conv1(batch.x, batch.edge_index)
        assert h.shape[0] == batch.num_nodes and batch.y.shape == (batch.num_graphs,)
        ys.append(batch.y)
    shares = np.bincount(np.concatenate(ys), minlength=C) / 2_000
    assert np.abs(shares - 1 / C).max() < 0.05, shares
    lines.append(
        "DataLoader(sampler=ImbalancedSampler): ego-graph class shares "
        f"{np.round(shares, 2).tolist()}"
    )

    dyn = DataLoader(
        egos, batch_sampler=DynamicBatchSampler(egos, max_num=MAX_NODES, shuffle=True, seed=2)
    )
    count, sizes = 0, []
    for batch in dyn:
        assert batch.num_nodes <= MAX_NODES or batch.num_graphs == 1
        out = ops.spmm(batch.edge_index, batch.x, num_dst_nodes=batch.num_nodes)
        assert out.shape == batch.x.shape
        count += batch.num_graphs
        sizes.append(batch.num_nodes)
    assert count == len(egos), "each ego graph once per epoch"
    lines.append(
        f"DataLoader(batch_sampler=DynamicBatchSampler): {len(sizes)} batches of "
        f"{min(sizes)}-{max(sizes)} nodes (max_num={MAX_NODES}), {count} graphs"
    )

    assert arraygnn.RandomNodeLoader is RandomNodeLoader  # also at the top level
    print(f"graph: {N} nodes, {all_keys.shape[0]} edges, {C} classes")
    for line in lines:
        print(" ", line)
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
