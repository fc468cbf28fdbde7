"""Relational and heterogeneous layers on NumPy arrays: RGCN, PyG's HeteroConv, DGL's
HeteroGraphConv.

A small academic graph (papers, authors; "cites", "writes" and its reverse) is run through

1. ``RGCNConv`` on the homogeneous view (one node id space, an edge type per edge), with
   features and featureless (``x=None``: each node id selects a row of the weights, PyG's
   entity-classification setting);
2. PyG's ``HeteroConv`` over ``x_dict`` / ``edge_index_dict``, a different layer per edge type;
3. DGL's ``HeteroGraphConv`` over an ``arraygnn.heterograph``, the same weights;
4. DGL's R-GCN recipe: ``to_homogeneous`` and ``RelGraphConv`` over the edge types, two
   layers sharing one ``group_relations`` of the edges;
5. PyG's ``HGTConv`` (heterogeneous graph transformer): attention over every edge type at
   once.

When torch and torch_geometric are installed, the first two are built in PyG, converted with
``from_pyg`` and compared with PyG's outputs; without them the script runs on NumPy alone.

    python examples/nn_heterogeneous_rgcn.py
"""

from __future__ import annotations

import numpy as np

import arraygnn
import arraygnn.nn as nn
from arraygnn.graph import ETYPE, to_homogeneous

rng = np.random.default_rng(0)
num_papers, num_authors, dim = 40, 15, 16
cites = np.stack([rng.integers(0, num_papers, 120), rng.integers(0, num_papers, 120)])
writes = np.stack([rng.integers(0, num_authors, 60), rng.integers(0, num_papers, 60)])
x = {
    "paper": rng.standard_normal((num_papers, dim)).astype(np.float32),
    "author": rng.standard_normal((num_authors, dim)).astype(np.float32),
}
edge_index = {
    ("paper", "cites", "paper"): cites,
    ("author", "writes", "paper"): writes,
    ("paper", "rev_writes", "author"): writes[::-1].copy(),
}

try:
    import torch
    import torch_geometric.nn as pyg_nn
except ImportError:
    torch = pyg_nn = None


def compare(name, ours, theirs):
    err = float(np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-30))
    print(f"  {name}: max relative difference vs PyG {err:.1e}")
    assert err < 1e-5, name


# ---- 1. RGCN on the homogeneous view: authors are nodes num_papers.., three edge types
offset = {"paper": 0, "author": num_papers}
homo_src, homo_dst, homo_type = [], [], []
for r, ((s, _, d), ei) in enumerate(edge_index.items()):
    homo_src.append(ei[0] + offset[s])
    homo_dst.append(ei[1] + offset[d])
    homo_type.append(np.full(ei.shape[1], r))
homo = np.stack([np.concatenate(homo_src), np.concatenate(homo_dst)])
etype = np.concatenate(homo_type)
x_homo = np.concatenate([x["paper"], x["author"]])
num_nodes = num_papers + num_authors

print("RGCNConv on the homogeneous view (3 relations):")
if pyg_nn is not None:
    torch.manual_seed(0)
    pyg_rgcn = pyg_nn.RGCNConv(dim, 8, num_relations=3, num_bases=2)
    pyg_free = pyg_nn.RGCNConv(num_nodes, 8, num_relations=3)  # featureless
    rgcn, free = nn.from_pyg(pyg_rgcn), nn.from_pyg(pyg_free)
else:
    rgcn = nn.RGCNConv(dim, 8, num_relations=3, num_bases=2, rng=0)
    free = nn.RGCNConv(num_nodes, 8, num_relations=3, rng=1)
h = rgcn(x_homo, homo, etype)
h_free = free(None, homo, etype)
print(f"  with features {h.shape}, featureless {h_free.shape}")
if pyg_nn is not None:
    with torch.no_grad():
        t_ei, t_type = torch.from_numpy(homo), torch.from_numpy(etype)
        compare("RGCNConv", h, pyg_rgcn(torch.from_numpy(x_homo), t_ei, t_type).numpy())
        compare("RGCNConv, x=None", h_free, pyg_free(None, t_ei, t_type).numpy())

# ---- 2. PyG's HeteroConv: a layer per edge type, summed per destination type
print("HeteroConv (PyG):")
if pyg_nn is not None:
    pyg_hetero = pyg_nn.HeteroConv(
        {
            ("paper", "cites", "paper"): pyg_nn.GCNConv(dim, 8),
            ("author", "writes", "paper"): pyg_nn.SAGEConv((dim, dim), 8),
            ("paper", "rev_writes", "author"): pyg_nn.GATConv(
                (dim, dim), 8, heads=2, concat=False, add_self_loops=False
            ),
        },
        aggr="sum",
    )
    hetero = nn.from_pyg(pyg_hetero)
else:
    hetero = nn.HeteroConv(
        {
            ("paper", "cites", "paper"): nn.GCNConv(dim, 8, rng=2),
            ("author", "writes", "paper"): nn.SAGEConv((dim, dim), 8, rng=3),
            ("paper", "rev_writes", "author"): nn.GATConv(
                (dim, dim), 8, heads=2, concat=False, add_self_loops=False, rng=4
            ),
        },
        aggr="sum",
    )
out = hetero(x, edge_index)
print("  " + ", ".join(f"{t}: {v.shape}" for t, v in out.items()))
if pyg_nn is not None:
    with torch.no_grad():
        ref = pyg_hetero(
            {k: torch.from_numpy(v) for k, v in x.items()},
            {k: torch.from_numpy(v) for k, v in edge_index.items()},
        )
    for t in ref:
        compare(f"HeteroConv[{t!r}]", out[t], ref[t].numpy())

# ---- 3. DGL's HeteroGraphConv on a heterograph, with SAGE layers per relation
print("HeteroGraphConv (DGL) on arraygnn.heterograph:")
g = arraygnn.heterograph(
    {c: (ei[0], ei[1]) for c, ei in edge_index.items()},
    {"paper": num_papers, "author": num_authors},
)
sage = {c[1]: nn.SAGEConv(dim, 8, "mean", rng=5 + i) for i, c in enumerate(sorted(edge_index))}
dgl_conv = nn.HeteroGraphConv(sage, aggregate="mean")
res = dgl_conv(g, x)
print("  " + ", ".join(f"{t}: {v.shape}" for t, v in res.items()))
# the same numbers as calling each relation's layer on its relation graph g[etype]
papers = [sage[e](g[e], (x[s], x["paper"])) for s, e, d in g.canonical_etypes if d == "paper"]
np.testing.assert_allclose(res["paper"], np.mean(papers, axis=0), rtol=1e-6, atol=1e-6)
same = nn.HeteroConv({c: sage[c[1]] for c in edge_index}, aggr="mean")(x, edge_index)
np.testing.assert_allclose(same["paper"], res["paper"], rtol=1e-6, atol=1e-6)
print("  equals the PyG-style HeteroConv over the same layers")

# ---- 4. DGL's R-GCN recipe: to_homogeneous, then RelGraphConv over the edge types
print("RelGraphConv on arraygnn.graph.to_homogeneous (DGL's recipe):")
for t in g.ntypes:
    g.nodes[t].data["x"] = x[t]
homog = to_homogeneous(g, ndata=["x"])
rel_conv = nn.RelGraphConv(dim, 8, num_rels=len(g.canonical_etypes), rng=8)
h_rel = rel_conv(homog, homog.ndata["x"], homog.edata[ETYPE])
print(f"  {homog.num_nodes()} nodes, {homog.num_edges()} edges -> {h_rel.shape}")
# the same weights in PyG's RGCNConv (sum aggregation, root = DGL's self-loop weight)
same = nn.RGCNConv(dim, 8, len(g.canonical_etypes), aggr="add")
same.load_state_dict(
    {"weight": rel_conv.linear_r.W, "root": rel_conv.loop_weight, "bias": rel_conv.h_bias}
)
src_h, dst_h = homog.edges()
np.testing.assert_allclose(
    same(homog.ndata["x"], np.stack([src_h, dst_h]), homog.edata[ETYPE]),
    h_rel,
    rtol=1e-5,
    atol=1e-6,
)
print("  equals RGCNConv(aggr='add') with the same weights")
# a two-layer model on one graph: group the edges by relation once, reuse the groups
groups = nn.group_relations(homog, homog.edata[ETYPE], len(g.canonical_etypes))
rel_conv2 = nn.RelGraphConv(8, 8, num_rels=len(g.canonical_etypes), activation="relu", rng=9)
h2 = rel_conv2(homog, rel_conv(homog, homog.ndata["x"], groups), groups)
np.testing.assert_array_equal(h2, rel_conv2(homog, h_rel, homog.edata[ETYPE]))
print(f"  two layers over one {groups!r}: {h2.shape}")

# ---- 5. PyG's HGTConv: one attention over all edge types into each node
print("HGTConv (PyG):")
metadata = (["paper", "author"], list(edge_index))
if pyg_nn is not None:
    torch.manual_seed(1)
    pyg_hgt = pyg_nn.HGTConv(dim, 16, metadata, heads=2)
    hgt = nn.from_pyg(pyg_hgt)
else:
    hgt = nn.HGTConv(dim, 16, metadata, heads=2, rng=10)
h_hgt = hgt(x, edge_index)
print("  " + ", ".join(f"{t}: {v.shape}" for t, v in h_hgt.items()))
if pyg_nn is not None:
    with torch.no_grad():
        ref = pyg_hgt(
            {k: torch.from_numpy(v) for k, v in x.items()},
            {k: torch.from_numpy(v) for k, v in edge_index.items()},
        )
    for t in ref:
        compare(f"HGTConv[{t!r}]", h_hgt[t], ref[t].numpy())
