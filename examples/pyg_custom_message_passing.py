"""Port a custom PyG layer to arraygnn: subclass ``arraygnn.nn.MessagePassing``, write
``message`` / ``update`` in NumPy, load the weights trained in PyG, run inference with no
deep-learning framework.

The layer is an edge-conditioned MPNN step (``x_i``, ``x_j`` and edge features in the
message, max aggregation, a residual update). Where torch and PyG are installed, the same
layer is built in PyG, its ``state_dict()`` saved as NumPy arrays, and arraygnn's output is
checked against PyG's. Then: the fused path (a class that keeps PyG's default message runs
one SpMM), a GCN-style layer fed a SciPy sparse ``adj_t`` through ``message_and_aggregate``,
per-edge scores with ``edge_updater``, and a hook that records message sizes.

    python examples/pyg_custom_message_passing.py
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import scipy.sparse as sp

from arraygnn.datasets.synthetic import powerlaw_graph
from arraygnn.nn import Linear, MessagePassing

F_IN, F_EDGE, F_OUT = 8, 3, 8


class EdgeMPNN(MessagePassing):
    """``x_i' = x_i + max_j relu(W [x_i, x_j - x_i, e_ji])``."""

    def __init__(self, fin: int, fedge: int, fout: int) -> None:
        super().__init__(aggr="max")
        self.lin = Linear(2 * fin + fedge, fout)

    def forward(self, x, edge_index, edge_attr):
        return self.propagate(edge_index, x=x, edge_attr=edge_attr)

    def message(self, x_i, x_j, edge_attr):
        return np.maximum(self.lin(np.concatenate([x_i, x_j - x_i, edge_attr], -1)), 0)

    def update(self, inputs, x):
        return x + inputs


class MeanNeighbours(MessagePassing):
    """PyG's default message (``x_j``) and a mean: arraygnn runs one fused SpMM."""

    def __init__(self) -> None:
        super().__init__(aggr="mean")

    def forward(self, x, edge_index):
        return self.propagate(edge_index, x=x)


class SparseGCNStep(MessagePassing):
    """``A_hat @ x`` from a sparse ``adj_t`` (``message_and_aggregate``) or an edge list."""

    def forward(self, x, edge_index, edge_weight=None):
        return self.propagate(edge_index, x=x, edge_weight=edge_weight)

    def message(self, x_j, edge_weight):
        return edge_weight[:, None] * x_j

    def message_and_aggregate(self, adj_t, x):
        return adj_t @ x


class DotScores(MessagePassing):
    def forward(self, x, edge_index):
        return self.edge_updater(edge_index, x=x)

    def edge_update(self, x_i, x_j):
        return (x_i * x_j).sum(-1)


def pyg_weights(path: str, x, edge_index, edge_attr):
    """Stand-in for "train in PyG, then export": the layer's output, or None without PyG."""
    try:
        import torch
        from torch_geometric.nn import MessagePassing as PyGMessagePassing
    except ImportError:
        return None

    class TorchEdgeMPNN(PyGMessagePassing):
        def __init__(self, fin, fedge, fout):
            super().__init__(aggr="max")
            self.lin = torch.nn.Linear(2 * fin + fedge, fout)

        def forward(self, x, edge_index, edge_attr):
            return self.propagate(edge_index, x=x, edge_attr=edge_attr)

        def message(self, x_i, x_j, edge_attr):
            return torch.relu(self.lin(torch.cat([x_i, x_j - x_i, edge_attr], -1)))

        def update(self, inputs, x):
            return x + inputs

    torch.manual_seed(0)
    layer = TorchEdgeMPNN(F_IN, F_EDGE, F_OUT)
    np.savez(path, **{k: v.numpy() for k, v in layer.state_dict().items()})
    with torch.no_grad():
        out = layer(torch.from_numpy(x), torch.from_numpy(edge_index), torch.from_numpy(edge_attr))
    return out.numpy()


def main() -> None:
    rng = np.random.default_rng(0)
    edge_index = np.stack(powerlaw_graph(2_000, 12_000, seed=1))
    n = 2_000
    x = rng.normal(size=(n, F_IN)).astype(np.float32)
    edge_attr = rng.normal(size=(edge_index.shape[1], F_EDGE)).astype(np.float32)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "edge_mpnn.npz")
        expected = pyg_weights(path, x, edge_index, edge_attr)
        layer = EdgeMPNN(F_IN, F_EDGE, F_OUT)
        if expected is not None:
            layer.load_state_dict(dict(np.load(path)))
        out = layer(x, edge_index, edge_attr)
    print(f"EdgeMPNN: {out.shape}, weights {sorted(layer.state_dict())}")
    if expected is not None:
        err = float(np.abs(out - expected).max())
        print(f"  max |arraygnn - PyG| = {err:.2e}")
        assert err < 1e-4

    # the default message with a mean: one fused SpMM, checked against a dense reference
    mean = MeanNeighbours()(x, edge_index)
    deg = np.bincount(edge_index[1], minlength=n)
    ref = np.zeros_like(x)
    np.add.at(ref, edge_index[1], x[edge_index[0]])
    ref /= np.maximum(deg, 1)[:, None]
    assert np.allclose(mean, ref, atol=1e-5)
    print(f"MeanNeighbours (fused spmm): max error {np.abs(mean - ref).max():.1e}")

    # a SciPy adj_t (row = target) goes to message_and_aggregate; the edge list with the
    # same weights to message + aggregate: the same numbers
    w = rng.random(edge_index.shape[1]).astype(np.float32)
    adj_t = sp.csr_matrix((w, (edge_index[1], edge_index[0])), shape=(n, n))
    step = SparseGCNStep()
    a, b = step(x, adj_t), step(x, edge_index, w)
    assert np.allclose(a, b, atol=1e-4)
    print(f"SparseGCNStep: adj_t and edge list agree to {np.abs(a - b).max():.1e}")

    scores = DotScores()(x, edge_index)
    first = np.round(scores[:3].astype(float), 3).tolist()
    print(f"DotScores: {scores.shape[0]} edge scores, first {first}")

    sizes = []
    handle = layer.register_message_forward_hook(lambda m, inp, msg: sizes.append(msg.shape))
    layer(x, edge_index, edge_attr)
    handle.remove()
    print(f"hook saw messages of shape {sizes[0]}")


if __name__ == "__main__":
    main()
