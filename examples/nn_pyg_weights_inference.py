"""Run a PyG-style two-layer GNN (GAT with edge features -> GCN) with arraygnn.nn, weights
from a .npz file; then APPNP smoothing of its logits, a GINE layer, a graph transformer
layer with edge features, a GATv2 layer with the attention it paid, global attention and
Set2Set readouts of its output, PyG's MPNN pattern (NNConv edge network, GRU, Set2Set) and
PyG's ready-made GraphSAGE model converted whole.

Where torch and PyG are installed, the script builds the PyG model, saves its
``state_dict()`` as NumPy arrays, and later checks arraygnn's output against PyG's. The
inference part needs only NumPy + arraygnn: the weights could come from any machine.

    python examples/nn_pyg_weights_inference.py
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

import arraygnn.nn as nn
from arraygnn.datasets.synthetic import powerlaw_graph

IN, HEADS, HIDDEN, CLASSES, EDGE_DIM = 32, 4, 8, 5, 3
# the first layer: attention that also reads EDGE_DIM edge features, plus a residual
GAT_OPTIONS = {"heads": HEADS, "edge_dim": EDGE_DIM, "residual": True}


def export_pyg_weights(path: str):
    """Stand-in for "train in PyG, then export": returns the torch model, or None."""
    try:
        import torch
        import torch_geometric.nn as pyg_nn
    except ImportError:
        return None
    torch.manual_seed(0)
    conv1 = pyg_nn.GATConv(IN, HIDDEN, **GAT_OPTIONS).eval()
    conv2 = pyg_nn.GCNConv(HEADS * HIDDEN, CLASSES).eval()
    arrays = {f"conv1.{k}": v.numpy() for k, v in conv1.state_dict().items()}
    arrays.update({f"conv2.{k}": v.numpy() for k, v in conv2.state_dict().items()})
    np.savez(path, **arrays)
    return conv1, conv2


def random_weights(path: str) -> None:
    """Without torch: write weights in PyG's names and shapes from arraygnn's own layers."""
    conv1 = nn.GATConv(IN, HIDDEN, **GAT_OPTIONS, rng=0)
    conv2 = nn.GCNConv(HEADS * HIDDEN, CLASSES, rng=1)
    arrays = {f"conv1.{k}": v for k, v in conv1.state_dict().items()}
    arrays.update({f"conv2.{k}": v for k, v in conv2.state_dict().items()})
    np.savez(path, **arrays)


def load_model(path: str):
    """Inference side: NumPy + arraygnn only."""
    w = np.load(path)

    def part(prefix: str) -> dict:
        return {k[len(prefix) :]: w[k] for k in w.files if k.startswith(prefix)}

    conv1 = nn.GATConv(IN, HIDDEN, **GAT_OPTIONS).load_state_dict(part("conv1."))
    conv2 = nn.GCNConv(HEADS * HIDDEN, CLASSES).load_state_dict(part("conv2."))

    def predict(x, edge_index, edge_attr):
        return conv2(np.maximum(conv1(x, edge_index, edge_attr), 0), edge_index)

    return predict


def main() -> None:
    src, dst, x = powerlaw_graph(2_000, 10_000, seed=0, num_features=IN)
    edge_index = np.stack([src, dst])
    edge_attr = np.random.default_rng(1).standard_normal((src.shape[0], EDGE_DIM), np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.npz")
        torch_model = export_pyg_weights(path)
        if torch_model is None:
            random_weights(path)
        predict = load_model(path)
        logits = predict(x, edge_index, edge_attr)
    print(
        f"logits {logits.shape} {logits.dtype}; predicted classes: {np.bincount(logits.argmax(1))}"
    )
    if torch_model is not None:
        import torch

        conv1, conv2 = torch_model
        with torch.no_grad():
            tx, tei = torch.from_numpy(x), torch.from_numpy(edge_index.astype(np.int64))
            tea = torch.from_numpy(edge_attr)
            expected = conv2(torch.relu(conv1(tx, tei, tea)), tei).numpy()
        err = np.abs(logits - expected).max() / np.abs(expected).max()
        print(f"max relative difference vs PyG: {err:.1e}")
        assert err < 1e-5, err
    else:
        print("torch / PyG not installed: ran on weights written in PyG's names by arraygnn")
    smoothed = nn.APPNP(K=10, alpha=0.1)(logits, edge_index)  # personalised PageRank
    changed = int((smoothed.argmax(1) != logits.argmax(1)).sum())
    print(f"APPNP-smoothed logits {smoothed.shape}: {changed} predictions changed")
    gine_with_edge_features(x, edge_index, edge_attr)
    mpnn_edge_network(x, edge_index, edge_attr)
    graph_transformer(x, edge_index, edge_attr)
    gatv2_attention(x, edge_index, edge_attr)
    ready_made_graphsage(x, edge_index)


def ready_made_graphsage(x, edge_index) -> None:
    """PyG's ready-made GraphSAGE model (batch norm, jumping knowledge) converted whole."""
    options = dict(num_layers=3, out_channels=CLASSES, norm="batch_norm", jk="cat")
    try:
        import torch
        from torch_geometric.nn.models import GraphSAGE
    except ImportError:
        out = nn.GraphSAGE(IN, HIDDEN, **options, rng=0)(x, edge_index)
        print(f"GraphSAGE model without torch: {out.shape}")
        return
    torch.manual_seed(2)
    ref = GraphSAGE(IN, HIDDEN, **options).eval()
    out = nn.from_pyg(ref)(x, edge_index)
    with torch.no_grad():
        expected = ref(torch.from_numpy(x), torch.from_numpy(edge_index.astype(np.int64)))
    err = np.abs(out - expected.numpy()).max() / np.abs(expected.numpy()).max()
    print(f"GraphSAGE model {out.shape}: max relative difference vs PyG {err:.1e}")
    assert err < 1e-5, err


def graph_transformer(x, edge_index, edge_attr) -> None:
    """PyG's TransformerConv (edge features in the keys and values, a gated skip), converted
    with from_pyg, or built here without torch."""
    try:
        import torch
        import torch_geometric.nn as pyg_nn
    except ImportError:
        conv = nn.TransformerConv(IN, HIDDEN, heads=HEADS, edge_dim=EDGE_DIM, beta=True, rng=4)
        print(f"TransformerConv without torch: {conv(x, edge_index, edge_attr).shape}")
        return
    torch.manual_seed(4)
    ref = pyg_nn.TransformerConv(IN, HIDDEN, heads=HEADS, edge_dim=EDGE_DIM, beta=True).eval()
    out = nn.from_pyg(ref)(x, edge_index, edge_attr)
    with torch.no_grad():
        tei = torch.from_numpy(edge_index.astype(np.int64))
        expected = ref(torch.from_numpy(x), tei, torch.from_numpy(edge_attr)).numpy()
    err = np.abs(out - expected).max() / np.abs(expected).max()
    print(f"TransformerConv {out.shape}: max relative difference vs PyG {err:.1e}")
    assert err < 1e-5, err


def gatv2_attention(x, edge_index, edge_attr) -> None:
    """A GATv2 layer converted from PyG (or built here), and the attention it paid: PyG's
    ``return_attention_weights`` gives the edges (self-loops added) and ``(E', heads)``
    weights; each node's weights over its incoming edges sum to 1."""
    try:
        import torch
        import torch_geometric.nn as pyg_nn
    except ImportError:
        torch = None
    if torch is None:
        conv = nn.GATv2Conv(IN, HIDDEN, heads=HEADS, edge_dim=EDGE_DIM, rng=2)
    else:
        torch.manual_seed(2)
        ref = pyg_nn.GATv2Conv(IN, HIDDEN, heads=HEADS, edge_dim=EDGE_DIM).eval()
        conv = nn.from_pyg(ref)
    out, (edges, alpha) = conv(x, edge_index, edge_attr, return_attention_weights=True)
    totals = np.zeros((x.shape[0], HEADS))
    np.add.at(totals, edges[1], alpha)
    assert np.allclose(totals, 1, atol=1e-5)
    node = int(np.bincount(edges[1]).argmax())  # the node with the most incoming edges
    mine = edges[1] == node
    top = edges[0][mine][alpha[mine, 0].argmax()]
    print(f"GATv2 {out.shape}; node {node} attends most to node {top} (head 0)")
    if torch is not None:
        with torch.no_grad():
            tei = torch.from_numpy(edge_index.astype(np.int64))
            expected, (_, ref_alpha) = ref(
                torch.from_numpy(x), tei, torch.from_numpy(edge_attr), return_attention_weights=True
            )
        err = np.abs(out - expected.numpy()).max() / np.abs(expected.numpy()).max()
        err_alpha = np.abs(alpha - ref_alpha.numpy()).max()
        print(f"GATv2 vs PyG: output {err:.1e} relative, attention {err_alpha:.1e} absolute")
        assert err < 1e-5 and err_alpha < 1e-6, (err, err_alpha)
    attention_readout(out)


def attention_readout(h) -> None:
    """Graph-level vectors by global attention pooling (PyG's AttentionalAggregation) and
    by Set2Set (an LSTM query attending over each graph's nodes, 3 steps): the nodes are
    split into 4 "graphs" here."""
    graph_of_node = np.arange(h.shape[0]) % 4
    try:
        import torch
        from torch_geometric.nn import aggr
    except ImportError:
        pool = nn.AttentionalAggregation(nn.Linear(h.shape[1], 1, rng=3))
        print(f"attention readout without torch: {pool(h, graph_of_node, dim_size=4).shape}")
        s2s = nn.Set2Set(h.shape[1], processing_steps=3, rng=4)
        print(f"Set2Set readout without torch: {s2s(h, graph_of_node, dim_size=4).shape}")
        return
    torch.manual_seed(3)
    index = torch.from_numpy(graph_of_node)
    for ref in (
        aggr.AttentionalAggregation(torch.nn.Linear(h.shape[1], 1)).eval(),
        aggr.Set2Set(h.shape[1], processing_steps=3).eval(),
    ):
        got = nn.from_pyg(ref)(h, graph_of_node, dim_size=4)
        with torch.no_grad():
            expected = ref(torch.from_numpy(h), index, dim_size=4).numpy()
        err = np.abs(got - expected).max() / np.abs(expected).max()
        name = type(ref).__name__
        print(f"{name} readout {got.shape}: max relative difference vs PyG {err:.1e}")
        assert err < 1e-5, err


def gine_with_edge_features(x, edge_index, edge_attr) -> None:
    """A GINE layer (messages ReLU(x_j + lin(e))) converted from PyG, or built here."""
    try:
        import torch
        import torch_geometric.nn as pyg_nn
    except ImportError:
        conv = nn.GINEConv(nn.MLP([IN, 16, CLASSES], rng=0), eps=0.1, edge_dim=EDGE_DIM)
        print(f"GINE without torch: {conv(x, edge_index, edge_attr).shape}")
        return
    torch.manual_seed(1)
    ref = pyg_nn.GINEConv(pyg_nn.MLP([IN, 16, CLASSES]), eps=0.1, edge_dim=EDGE_DIM).eval()
    conv = nn.from_pyg(ref)
    out = conv(x, edge_index, edge_attr)
    with torch.no_grad():
        tei = torch.from_numpy(edge_index.astype(np.int64))
        expected = ref(torch.from_numpy(x), tei, torch.from_numpy(edge_attr)).numpy()
    err = np.abs(out - expected).max() / np.abs(expected).max()
    print(f"GINE {out.shape}: max relative difference vs PyG {err:.1e}")
    assert err < 1e-5, err


def mpnn_edge_network(x, edge_index, edge_attr) -> None:
    """PyG's MPNN pattern (its QM9 example): an edge network NNConv, a GRU update, then a
    Set2Set readout of 4 "graphs"; converted from torch modules, or built here."""
    hidden, steps = 8, 2
    graph_of_node = np.arange(x.shape[0]) % 4
    try:
        import torch
        import torch_geometric.nn as pyg_nn
    except ImportError:
        edge_net = nn.Sequential(
            nn.Linear(EDGE_DIM, 16, rng=0), "relu", nn.Linear(16, hidden * hidden, rng=1)
        )
        conv = nn.NNConv(hidden, hidden, edge_net, aggr="mean", rng=2)
        gru, readout = nn.GRU(hidden, hidden, rng=3), nn.Set2Set(hidden, 3, rng=4)
        refs = None
    else:
        torch.manual_seed(2)
        edge_net = torch.nn.Sequential(
            torch.nn.Linear(EDGE_DIM, 16), torch.nn.ReLU(), torch.nn.Linear(16, hidden * hidden)
        )
        refs = (
            pyg_nn.NNConv(hidden, hidden, edge_net, aggr="mean").eval(),
            torch.nn.GRU(hidden, hidden).eval(),
            pyg_nn.aggr.Set2Set(hidden, processing_steps=3).eval(),
        )
        conv, gru, readout = (nn.from_pyg(m) for m in refs)
    h0 = x[:, :hidden].copy()  # the first 8 input features as the hidden state
    h, state = h0, h0[None]
    for _ in range(steps):
        m = np.maximum(conv(h, edge_index, edge_attr), 0)
        h, state = gru(m[None], state)
        h = h[0]
    out = readout(h, graph_of_node, dim_size=4)
    if refs is None:
        print(f"MPNN (NNConv + GRU + Set2Set) without torch: {out.shape}")
        return
    with torch.no_grad():
        tei, tea = torch.from_numpy(edge_index.astype(np.int64)), torch.from_numpy(edge_attr)
        th = torch.from_numpy(h0)
        tstate = th[None]
        for _ in range(steps):
            tm = torch.relu(refs[0](th, tei, tea))
            th, tstate = refs[1](tm[None], tstate)
            th = th[0]
        expected = refs[2](th, torch.from_numpy(graph_of_node), dim_size=4).numpy()
    err = np.abs(out - expected).max() / np.abs(expected).max()
    print(f"MPNN (NNConv + GRU + Set2Set) {out.shape}: max relative difference vs PyG {err:.1e}")
    assert err < 1e-5, err


if __name__ == "__main__":
    main()
