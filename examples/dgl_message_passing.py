"""DGL-style message passing on NumPy arrays: built-ins, UDFs, heterographs, sampled blocks,
graph transforms and edge lookups, batched graphs and readouts.

Runs the calls of DGL's user guide (chapter 2, message passing; 3.2, SAGEConv forward) with
``arraygnn`` in place of ``dgl`` and checks each result against plain NumPy.

    python examples/dgl_message_passing.py
"""

from __future__ import annotations

import numpy as np

import arraygnn.function as fn
from arraygnn.graph import (
    NID,
    add_self_loop,
    batch,
    graph,
    heterograph,
    mean_nodes,
    remove_self_loop,
    to_bidirected,
    unbatch,
)
from arraygnn.sampling import sample_blocks

rng = np.random.default_rng(0)
num_nodes, num_edges = 1_000, 8_000
src = rng.integers(0, num_nodes, num_edges)
dst = rng.integers(0, num_nodes, num_edges)
g = graph((src, dst), num_nodes=num_nodes)

# 1. update_all with built-ins: one fused SpMM, no per-edge message array
g.ndata["ft"] = rng.standard_normal((num_nodes, 16))
g.edata["a"] = rng.random((num_edges, 1))
ft, a = g.ndata["ft"], g.edata["a"]
g.update_all(fn.u_mul_e("ft", "a", "m"), fn.sum("m", "ft"))
final_ft = g.ndata["ft"] * 2
reference = np.zeros_like(ft)
np.add.at(reference, dst, ft[src] * a)
assert np.allclose(final_ft, 2 * reference)
print("update_all(u_mul_e, sum)      max error", np.abs(final_ft - 2 * reference).max())

# 2. the same with user-defined functions (degree-bucketed mailbox)
g.ndata["ft"] = ft
g.update_all(
    lambda edges: {"m": edges.src["ft"] * edges.data["a"]},
    lambda nodes: {"ft": nodes.mailbox["m"].sum(axis=1)},
)
assert np.allclose(g.ndata["ft"], reference)
print("UDF message + UDF reduce       max error", np.abs(g.ndata["ft"] - reference).max())

# 3. apply_edges: one SDDMM
g.ndata["el"] = rng.standard_normal((num_nodes, 4, 1))
g.ndata["er"] = rng.standard_normal((num_nodes, 4, 1))
g.apply_edges(fn.u_add_v("el", "er", "e"))
assert np.allclose(g.edata["e"], g.ndata["el"][src] + g.ndata["er"][dst])
print("apply_edges(u_add_v)           edge scores", g.edata["e"].shape)

# 4. heterograph: the R-GCN loop of the guide, cross-type reducer 'sum'
G = heterograph(
    {
        ("user", "follows", "user"): (rng.integers(0, 50, 200), rng.integers(0, 50, 200)),
        ("user", "plays", "game"): (rng.integers(0, 50, 300), rng.integers(0, 20, 300)),
        ("game", "played-by", "user"): (rng.integers(0, 20, 300), rng.integers(0, 50, 300)),
    },
    num_nodes_dict={"user": 50, "game": 20},
)
feat_dict = {"user": rng.standard_normal((50, 8)), "game": rng.standard_normal((20, 8))}
weight = {etype: rng.standard_normal((8, 4)) for etype in G.etypes}
funcs = {}
for srctype, etype, _dsttype in G.canonical_etypes:
    G.nodes[srctype].data[f"Wh_{etype}"] = feat_dict[srctype] @ weight[etype]
    funcs[etype] = (fn.copy_u(f"Wh_{etype}", "m"), fn.mean("m", "h"))
G.multi_update_all(funcs, "sum")
out = {ntype: G.nodes[ntype].data["h"] for ntype in G.ntypes}
print("multi_update_all(..., 'sum')  ", {k: v.shape for k, v in out.items()})

# 5. mini-batch: sampled blocks, destination nodes first among the source nodes
g.ndata["feat"] = rng.standard_normal((num_nodes, 8))
seeds = np.array([3, 14, 15, 92])
input_nodes, output_nodes, blocks = sample_blocks(g, seeds, [10, 5], seed=42)
h = g.ndata["feat"][input_nodes]
for block in blocks:
    with block.local_scope():
        block.srcdata["h"] = h
        block.update_all(fn.copy_u("h", "m"), fn.mean("m", "neigh"))
        h_dst = h[: block.number_of_dst_nodes()]
        h = np.concatenate([h_dst, block.dstdata["neigh"]], axis=1)[:, :8]
    assert (block.srcdata[NID][: block.number_of_dst_nodes()] == block.dstdata[NID]).all()
print("sampled blocks (fan-outs 10, 5)", [(b.num_src_nodes(), b.num_dst_nodes()) for b in blocks])
assert h.shape == (4, 8)

# 6. the usual GCN preparation: undirected, exactly one self-loop per node, then D^-1/2 A D^-1/2
sym = add_self_loop(remove_self_loop(to_bidirected(g)))
u, v = sym.edges()
assert (sym.in_degrees() == sym.out_degrees()).all()  # symmetric
assert sym.has_edges_between(np.arange(num_nodes), np.arange(num_nodes)).all()
norm = sym.in_degrees().astype(np.float64) ** -0.5
sym.ndata["h"] = g.ndata["feat"] * norm[:, None]
sym.update_all(fn.copy_u("h", "m"), fn.sum("m", "h"))
gcn = sym.ndata["h"] * norm[:, None]
dense = np.zeros((num_nodes, num_nodes))
dense[v, u] = 1.0
assert np.allclose(gcn, (norm[:, None] * dense * norm[None, :]) @ g.ndata["feat"])
e = sym.edge_ids(int(u[0]), int(v[0]))
print("GCN-normalised propagation     edges", sym.num_edges(), "first edge id", e)

# 7. graph classification: many small graphs as one batched graph, one readout row per graph
small = []
for _ in range(16):
    n = int(rng.integers(2, 9))
    s_, d_ = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
    sg = add_self_loop(graph((s_, d_), num_nodes=n))
    sg.ndata["h"] = rng.standard_normal((n, 4))
    small.append(sg)
bg = batch(small)
bg.update_all(fn.copy_u("h", "m"), fn.mean("m", "h"))  # one kernel for all 16 graphs
readout = mean_nodes(bg, "h")
for i, (sg, part) in enumerate(zip(small, unbatch(bg))):
    sg.update_all(fn.copy_u("h", "m"), fn.mean("m", "h"))  # the same graph on its own
    assert np.allclose(part.ndata["h"], sg.ndata["h"])
    assert np.allclose(readout[i], sg.ndata["h"].mean(axis=0))
print(
    "batched graphs -> mean_nodes   ",
    readout.shape,
    "from",
    bg.batch_num_nodes().tolist()[:5],
    "...",
)
