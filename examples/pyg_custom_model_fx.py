"""A graph-classification model written as a custom ``torch.nn.Module`` (an atom-type
``Embedding``, two ``GINConv`` layers, ``global_add_pool``, a linear head), run with
arraygnn two ways:

1. traced: PyG's ``torch_geometric.nn.fx.symbolic_trace(model)`` gives a ``GraphModule``;
   ``arraygnn.nn.from_pyg`` turns it into an array program with the same state-dict names.
   ``global_add_pool`` reads ``batch.max()`` when traced through, so the model file wraps it
   with ``torch.fx.wrap('global_add_pool')`` (fx records the call; arraygnn maps it onto its
   own readout);
2. by hand: each submodule converted with ``from_pyg`` / ``from_torch``, the forward written
   again with arrays (four lines).

Both are checked against PyG's output on a batch of random molecules. Needs torch and
torch_geometric; without them the script says so and stops.

    python examples/pyg_custom_model_fx.py
"""

from __future__ import annotations

import sys

import numpy as np

try:
    import torch
    import torch_geometric.nn as pyg_nn
    from torch_geometric.nn import global_add_pool
except ImportError:  # the conversion needs the trained torch model
    print("torch / torch_geometric are not installed: nothing to convert")
    sys.exit(0)

import arraygnn.nn as agnn
from arraygnn.batch import Batch
from arraygnn.data import Data

torch.fx.wrap("global_add_pool")  # traced as one call, not through its batch.max()

ATOM_TYPES, HIDDEN, CLASSES = 10, 32, 3


def gin_mlp(d_in: int) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(d_in, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, HIDDEN)
    )


class MoleculeNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.atom = torch.nn.Embedding(ATOM_TYPES, 16)
        self.conv1 = pyg_nn.GINConv(gin_mlp(16))
        self.conv2 = pyg_nn.GINConv(gin_mlp(HIDDEN))
        self.head = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, z, edge_index, batch):
        h = self.atom(z)
        h = self.conv1(h, edge_index).relu()
        h = self.conv2(h, edge_index).relu()
        return self.head(global_add_pool(h, batch))


def random_molecules(count: int, seed: int = 0) -> Batch:
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(count):
        n = int(rng.integers(3, 9))
        src = np.arange(n - 1)
        chain = np.stack([np.r_[src, src + 1], np.r_[src + 1, src]])  # both directions
        graphs.append(Data(z=rng.integers(0, ATOM_TYPES, n), edge_index=chain, num_nodes=n))
    return Batch.from_data_list(graphs)


def main() -> None:
    torch.manual_seed(0)
    model = MoleculeNet().eval()  # stands in for a trained model
    batch = random_molecules(6)
    with torch.no_grad():
        want = model(
            torch.from_numpy(batch.z), torch.from_numpy(batch.edge_index),
            torch.from_numpy(batch.batch),
        ).numpy()  # fmt: skip

    # 1. traced
    program = agnn.from_pyg(pyg_nn.fx.symbolic_trace(model))
    traced = program(batch.z, batch.edge_index, batch.batch)
    assert sorted(program.state_dict()) == sorted(model.state_dict())

    # 2. by hand
    atom, conv1, conv2, head = (
        agnn.from_pyg(m) for m in (model.atom, model.conv1, model.conv2, model.head)
    )
    h = atom(batch.z)
    h = np.maximum(conv1(h, batch.edge_index), 0)
    h = np.maximum(conv2(h, batch.edge_index), 0)
    by_hand = head(agnn.global_add_pool(h, batch.batch, batch.num_graphs))

    for name, got in (("traced", traced), ("by hand", by_hand)):
        err = float(np.abs(got - want).max())
        print(f"{name:8s}: logits {got.shape}, max |arraygnn - PyG| = {err:.1e}")
        assert got.shape == (batch.num_graphs, CLASSES) and err < 1e-4


if __name__ == "__main__":
    main()
