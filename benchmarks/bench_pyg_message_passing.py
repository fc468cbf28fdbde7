"""User-written ``MessagePassing`` layers, arraygnn's against PyG's: the same subclass
written in NumPy and in torch, the same weights, outputs compared first.

Layers: ``default-mean`` (PyG's default ``x_j`` message with a mean: arraygnn's fused SpMM
path), ``weighted-sum`` (``w * x_j``: both sides build [E, F] messages),
``edge-mlp-max`` (``relu(W [x_i, x_j - x_i, e])`` with max aggregation and a residual
update) and ``edge-updater`` (per-edge dot products). A random graph of ``--nodes`` nodes
and ``--edges`` uniform edges, ``--feats`` features, float32. Best and median of
``--repeat`` warm runs, the two sides alternating within each repeat; ratio = PyG's best
over ours (above 1: ours faster).

    python benchmarks/bench_pyg_message_passing.py [--nodes 100000] [--edges 1000000]
        [--feats 64] [--repeat 5] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import times as _times


def _layers(torch, PyGMP):
    from arraygnn.nn import Linear, MessagePassing

    class Mean(MessagePassing):
        def __init__(self):
            super().__init__(aggr="mean")

        def forward(self, x, ei, ea=None, w=None):
            return self.propagate(ei, x=x)

    class TMean(PyGMP):
        def __init__(self):
            super().__init__(aggr="mean")

        def forward(self, x, ei, ea=None, w=None):
            return self.propagate(ei, x=x)

    class Weighted(MessagePassing):
        def forward(self, x, ei, ea=None, w=None):
            return self.propagate(ei, x=x, w=w)

        def message(self, x_j, w):
            return w[:, None] * x_j

    class TWeighted(PyGMP):
        def forward(self, x, ei, ea=None, w=None):
            return self.propagate(ei, x=x, w=w)

        def message(self, x_j, w):
            return w.view(-1, 1) * x_j

    class EdgeMLP(MessagePassing):
        def __init__(self, f, fe):
            super().__init__(aggr="max")
            self.lin = Linear(2 * f + fe, f)

        def forward(self, x, ei, ea=None, w=None):
            return self.propagate(ei, x=x, ea=ea)

        def message(self, x_i, x_j, ea):
            return np.maximum(self.lin(np.concatenate([x_i, x_j - x_i, ea], -1)), 0)

        def update(self, inputs, x):
            return x + inputs

    class TEdgeMLP(PyGMP):
        def __init__(self, f, fe):
            super().__init__(aggr="max")
            self.lin = torch.nn.Linear(2 * f + fe, f)

        def forward(self, x, ei, ea=None, w=None):
            return self.propagate(ei, x=x, ea=ea)

        def message(self, x_i, x_j, ea):
            return torch.relu(self.lin(torch.cat([x_i, x_j - x_i, ea], -1)))

        def update(self, inputs, x):
            return x + inputs

    class Scores(MessagePassing):
        def forward(self, x, ei, ea=None, w=None):
            return self.edge_updater(ei, x=x)

        def edge_update(self, x_i, x_j):
            return (x_i * x_j).sum(-1)

    class TScores(PyGMP):
        def forward(self, x, ei, ea=None, w=None):
            return self.edge_updater(ei, x=x)

        def edge_update(self, x_i, x_j):
            return (x_i * x_j).sum(-1)

    return [
        ("default-mean (fused spmm)", Mean, TMean, ()),
        ("weighted-sum", Weighted, TWeighted, ()),
        ("edge-mlp-max", EdgeMLP, TEdgeMLP, "mlp"),
        ("edge-updater", Scores, TScores, ()),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--feats", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import MessagePassing as PyGMP
    except ImportError:
        print("torch / torch_geometric not installed: nothing to compare against")
        return
    if args.threads:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    n, e, f, fe = args.nodes, args.edges, args.feats, 8
    ei = rng.integers(0, n, (2, e))
    x = rng.standard_normal((n, f)).astype(np.float32)
    ea = rng.standard_normal((e, fe)).astype(np.float32)
    w = rng.random(e).astype(np.float32)
    t = torch.from_numpy
    print(
        f"graph: {n} nodes, {e} edges, {f} features, float32, torch threads "
        f"{torch.get_num_threads()}"
    )
    print(f"{'layer':28s} {'arraygnn ms':>12s} {'PyG ms':>10s} {'ratio':>7s}  max |diff|")
    for name, ours_cls, theirs_cls, kind in _layers(torch, PyGMP):
        if kind == "mlp":
            torch.manual_seed(0)
            theirs = theirs_cls(f, fe)
            ours = ours_cls(f, fe).load_state_dict(theirs.state_dict())
        else:
            theirs, ours = theirs_cls(), ours_cls()
        with torch.no_grad():
            want = theirs(t(x), t(ei), t(ea), t(w)).numpy()
            got = ours(x, ei, ea, w)
            diff = float(np.abs(got - want).max())

            def run_theirs(theirs=theirs):
                return theirs(t(x), t(ei), t(ea), t(w))

            def run_ours(ours=ours):
                return ours(x, ei, ea, w)

            (ob, om), (tb, tm) = _times([run_ours, run_theirs], args.repeat)
        print(f"{name:28s} {ob:8.1f} ({om:.0f}) {tb:6.1f} ({tm:.0f}) {tb / ob:6.2f}x  {diff:.1e}")


if __name__ == "__main__":
    main()
