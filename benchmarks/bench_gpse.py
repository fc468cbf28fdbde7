"""PyG's ``GPSE``, ``AddGPSE`` and ``GPSENodeEncoder`` against arraygnn's (the same weights
via ``from_pyg``, eval mode, the same random input; outputs compared first).

GPSE in the pre-trained models' configuration (``dim_in`` 20, ``--dim-inner`` wide,
``--layers`` ResGatedGraphConv layers, batch norm, L2 norms, ``IdentityHead``) on a batch
of ``--graphs`` random molecule-sized graphs of ``--nodes`` nodes and ~2.2 edges per node
each way, plus one virtual node per graph; ``AddGPSE`` on one such graph (virtual node,
random draws and the forward pass; both sides seeded alike, so the draws match);
``GPSENodeEncoder(128, 512, 64)`` on the batch's encodings. Best and median of
``--repeat`` warm runs, the sides alternating within each repeat.

    python benchmarks/bench_gpse.py [--graphs 16] [--nodes 25] [--dim-inner 512]
        [--layers 20] [--repeat 7] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def _randomised(torch, module):
    """``module`` in eval mode with U(-0.5, 0.5) weights and random running statistics."""
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-0.5, 0.5)
        for name, b in module.named_buffers():
            if name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
    return module.eval()


def _molecules(rng, graphs, nodes):
    """``(edge_index, batch)`` of ``graphs`` random graphs of ``nodes`` nodes (a spanning
    chain plus random bonds, both directions) each followed by its virtual node."""
    from arraygnn.data import Data
    from arraygnn.transforms import VirtualNode

    parts = []
    for _ in range(graphs):
        chain = np.stack([np.arange(nodes - 1), np.arange(1, nodes)])
        extra = rng.integers(0, nodes, (2, nodes // 5))
        half = np.concatenate([chain, extra], axis=1)
        ei = np.concatenate([half, half[::-1]], axis=1)
        parts.append(VirtualNode()(Data(edge_index=ei, num_nodes=nodes)).edge_index)
    size = nodes + 1
    ei = np.concatenate([p + i * size for i, p in enumerate(parts)], axis=1)
    return ei, np.repeat(np.arange(graphs), size)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=16)
    parser.add_argument("--nodes", type=int, default=25)
    parser.add_argument("--dim-inner", type=int, default=512)
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=0, help="torch, Numba, BLAS threads")
    args = parser.parse_args()
    try:
        import torch
        import torch_geometric.transforms as pyg_t
        from torch_geometric.data import Data as PyGData
        from torch_geometric.nn.models import gpse as pyg_gpse
    except ImportError:
        print("bench_gpse: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.data import Data
    from arraygnn.nn import from_pyg
    from arraygnn.transforms import AddGPSE

    if args.threads:
        limit_threads(args.threads)
    rng = np.random.default_rng(0)
    ei, _ = _molecules(rng, args.graphs, args.nodes)
    n = args.graphs * (args.nodes + 1)
    ref = pyg_gpse.GPSE(dim_inner=args.dim_inner, layers_mp=args.layers)
    ref = _randomised(torch, ref)
    ref.post_mp = pyg_gpse.IdentityHead()
    ours = from_pyg(ref)
    x = rng.standard_normal((n, 20)).astype(np.float32)
    theirs_in = PyGData(x=torch.from_numpy(x), edge_index=torch.from_numpy(ei))

    one_ei, _ = _molecules(rng, 1, args.nodes)
    one_ei = one_ei[:, (one_ei < args.nodes).all(0)]  # the graph alone, AddGPSE adds the VN
    one = Data(edge_index=one_ei, num_nodes=args.nodes)
    one_pyg = PyGData(edge_index=torch.from_numpy(one_ei), num_nodes=args.nodes)
    ours_t, theirs_t = AddGPSE(ours), pyg_t.AddGPSE(ref)

    def run_ours_t():
        np.random.seed(1)
        return ours_t(one).pestat_GPSE

    def run_theirs_t():
        np.random.seed(1)
        return theirs_t(one_pyg.clone()).pestat_GPSE

    enc_ref = _randomised(torch, pyg_gpse.GPSENodeEncoder(128, args.dim_inner, 64))
    enc = from_pyg(enc_ref)
    h = rng.standard_normal((n, 64)).astype(np.float32)
    pe = rng.standard_normal((n, args.dim_inner)).astype(np.float32)
    th, tpe = torch.from_numpy(h), torch.from_numpy(pe)

    cases = [
        (
            f"GPSE forward ({args.layers} layers, {args.dim_inner} wide)",
            lambda: ours(x, ei)[0],
            lambda: ref(theirs_in)[0],
        ),
        (f"AddGPSE, one graph of {args.nodes} nodes", run_ours_t, run_theirs_t),
        ("GPSENodeEncoder(128, dim_inner, 64)", lambda: enc(h, pe), lambda: enc_ref(th, tpe)),
    ]
    rows = []
    with torch.no_grad():
        for name, mine, theirs in cases:
            expected = theirs().numpy()
            err = np.abs(mine() - expected).max() / np.abs(expected).max()
            times = _times([mine, theirs], args.repeat)
            rows.append((name, times[0], times[1], err))
    print(
        f"{args.graphs} graphs x {args.nodes + 1} nodes (with the virtual node), "
        f"{ei.shape[1]} edges, torch threads {torch.get_num_threads()}"
    )
    print(
        "| case | arraygnn best / median ms | PyG best / median ms | PyG / ours (best) | rel err |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, mine, theirs, err in rows:
        print(
            f"| {name} | {mine[0]:,.1f} / {mine[1]:,.1f} | {theirs[0]:,.1f} / {theirs[1]:,.1f} "
            f"| {theirs[0] / mine[0]:.2f}x | {err:.1e} |"
        )


if __name__ == "__main__":
    main()
