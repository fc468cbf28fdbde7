"""Heterogeneous inference from a PyG ``to_hetero`` model, without training anything.

1. Build a small GraphSAGE-like model in PyG and make it heterogeneous with PyG's
   ``to_hetero`` (one SAGEConv per edge type, one Linear per node type).
2. Convert it with ``arraygnn.nn.from_pyg`` (the torch.fx program is replayed on arrays).
3. Build the same model natively (``Sequential`` + ``arraygnn.nn.to_hetero``), load the PyG
   state dict by name, and check that all three give the same outputs; likewise for
   ``to_hetero_with_bases``.

Needs torch and torch_geometric; without them the script says so and exits cleanly.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np

if importlib.util.find_spec("torch") is None or importlib.util.find_spec("torch_geometric") is None:
    print("torch / torch_geometric not installed: skipping the PyG to_hetero example")
    sys.exit(0)

import torch
import torch_geometric.nn as pyg_nn

import arraygnn.nn as nn

METADATA = (
    ["paper", "author", "venue"],
    [
        ("paper", "cites", "paper"),
        ("author", "writes", "paper"),
        ("paper", "written_by", "author"),
        ("paper", "published_in", "venue"),
    ],
)
SIZES = {"paper": 50, "author": 30, "venue": 4}


class GNN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(16, 32)
        self.conv1 = pyg_nn.SAGEConv((32, 32), 32)
        self.conv2 = pyg_nn.SAGEConv((32, 32), 8)

    def forward(self, x, edge_index):
        x = self.lin(x).relu()
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


def graph(rng: np.random.Generator) -> tuple[dict, dict]:
    x = {t: rng.normal(size=(n, 16)).astype(np.float32) for t, n in SIZES.items()}
    edges = {
        et: np.stack([rng.integers(0, SIZES[et[0]], 120), rng.integers(0, SIZES[et[2]], 120)])
        for et in METADATA[1]
    }
    return x, edges


def check(name: str, ours: dict, ref: dict) -> None:
    err = max(float(np.abs(ours[k] - ref[k].numpy()).max()) for k in ref)
    print(f"{name:<36} max |diff| = {err:.2e}")
    assert err < 1e-5, name


def main() -> None:
    torch.manual_seed(0)
    x, edges = graph(np.random.default_rng(0))
    x_t = {k: torch.from_numpy(v) for k, v in x.items()}
    e_t = {k: torch.from_numpy(v) for k, v in edges.items()}

    # PyG to_hetero -> from_pyg, and the same model built natively
    model = pyg_nn.to_hetero(GNN(), METADATA, aggr="mean").eval()
    with torch.no_grad():
        ref = model(x_t, e_t)
    check("from_pyg(to_hetero model)", nn.from_pyg(model)(x, edges), ref)
    hetero = nn.to_hetero(native_model(), METADATA, aggr="mean").load_state_dict(model.state_dict())
    check("arraygnn to_hetero + PyG state dict", hetero(x, edges), ref)

    # PyG's own graph Sequential (with a lambda joining two outputs) through to_hetero
    seq = pyg_nn.Sequential(
        "x, edge_index",
        [
            (pyg_nn.SAGEConv((16, 16), 32), "x, edge_index -> x1"),
            torch.nn.ReLU(),
            (pyg_nn.SAGEConv((32, 32), 32), "x1, edge_index -> x2"),
            (lambda x1, x2: torch.cat([x1, x2], dim=-1), "x1, x2 -> x"),
            torch.nn.Linear(64, 8),
        ],
    )
    seq_hetero = pyg_nn.to_hetero(seq, METADATA, aggr="max").eval()
    with torch.no_grad():
        ref = seq_hetero(x_t, e_t)
    check("from_pyg(to_hetero(PyG Sequential))", nn.from_pyg(seq_hetero)(x, edges), ref)

    # to_hetero_with_bases: 'venue' gets its own feature size, aligned by per-type linears
    x["venue"] = x["venue"][:, :5].copy()
    x_t["venue"] = torch.from_numpy(x["venue"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyG warns that the lazy linears are uninitialised
        bases = pyg_nn.to_hetero_with_bases(GNN(), METADATA, num_bases=2, in_channels={"x": 16})
    with torch.no_grad():
        ref = bases(x_t, e_t)
    check("from_pyg(to_hetero_with_bases model)", nn.from_pyg(bases)(x, edges), ref)
    ours = nn.to_hetero_with_bases(native_model(), METADATA, num_bases=2, in_channels={"x": 16})
    ours.load_state_dict(bases.state_dict())
    check("arraygnn to_hetero_with_bases", ours(x, edges), ref)


def native_model() -> nn.Sequential:
    """The same model from arraygnn layers; children named as GNN's attributes."""
    return nn.Sequential(
        "x, edge_index",
        {
            "lin": (nn.Linear(16, 32), "x -> x"),
            "act1": "relu",
            "conv1": (nn.SAGEConv(32, 32, "mean"), "x, edge_index -> x"),
            "act2": "relu",
            "conv2": (nn.SAGEConv(32, 8, "mean"), "x, edge_index -> x"),
        },
    )


if __name__ == "__main__":
    main()
