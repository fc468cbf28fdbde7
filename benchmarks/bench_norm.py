"""Normalisation layers: arraygnn's ``nn.LayerNorm`` (torch's row-wise maths), PyG-style
``nn.norm.LayerNorm`` (``mode='node'`` and ``mode='graph'``, with and without ``batch``),
``GraphNorm`` (sorted batch) and ``BatchNorm`` (eval) against
``torch.nn.functional.layer_norm`` and PyG's layers (weights through ``from_pyg``) on the
same float32 ``[--rows, --features]`` input (outputs compared first), plus a NumPy copy of
the input as the memory-bandwidth yardstick; best and median of ``--repeat`` warm runs,
the sides alternating within each repeat. Prints ms and the ratio anchor / ours.

    python benchmarks/bench_norm.py [--rows 100000] [--features 64] [--graphs 100]
        [--repeat 20] [--threads 1]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads, times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--graphs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    limit_threads(args.threads)
    from arraygnn.nn.linear import LayerNorm as RowLayerNorm
    from arraygnn.nn.norm import LayerNorm as PygStyleLayerNorm

    rng = np.random.default_rng(0)
    x = (rng.standard_normal((args.rows, args.features)) * 2 + 1).astype(np.float32)
    batch = rng.integers(0, args.graphs, args.rows)
    out = np.empty_like(x)
    rows = [("numpy copy (yardstick)", lambda: np.copyto(out, x), None)]
    try:
        import torch
        import torch_geometric.nn as pnn
    except ImportError:
        torch = pnn = None
    if torch is not None:
        tx, tb = torch.from_numpy(x), torch.from_numpy(batch)
    ours_ln = RowLayerNorm(args.features)
    ours_ln.weight = rng.uniform(0.5, 2, args.features).astype(np.float32)
    ours_ln.bias = rng.standard_normal(args.features).astype(np.float32)
    cases = [("nn.LayerNorm (torch maths)", lambda: ours_ln(x), None)]
    if torch is not None:
        w, b = torch.from_numpy(ours_ln.weight), torch.from_numpy(ours_ln.bias)
        cases[0] = cases[0][:2] + (
            lambda: torch.nn.functional.layer_norm(tx, (args.features,), w, b),
        )
    for mode, with_batch in (("node", False), ("graph", True), ("graph", False)):
        ours = PygStyleLayerNorm(args.features, mode=mode)
        ours.weight, ours.bias = ours_ln.weight, ours_ln.bias
        bb = batch if with_batch else None
        label = f"norm.LayerNorm mode={mode}" + (" batch" if with_batch else "")
        theirs = None
        if pnn is not None:
            ref = pnn.LayerNorm(args.features, mode=mode).eval()
            with torch.no_grad():
                ref.weight.copy_(torch.from_numpy(ours.weight))
                ref.bias.copy_(torch.from_numpy(ours.bias))
            tbb = tb if with_batch else None

            def theirs(ref=ref, tbb=tbb):
                with torch.no_grad():
                    return ref(tx, tbb)

            diff = np.abs(ours(x, bb) - theirs().numpy()).max()
            assert diff < 1e-4, (label, diff)
        cases.append((label, lambda ours=ours, bb=bb: ours(x, bb), theirs))
    # GraphNorm (sorted batch: the fused kernel) and BatchNorm at inference
    from arraygnn.nn import from_pyg

    sorted_batch = np.sort(batch)
    for label, make, with_batch in (
        ("norm.GraphNorm sorted batch", lambda: pnn.GraphNorm(args.features), True),
        ("norm.BatchNorm (eval)", lambda: pnn.BatchNorm(args.features), False),
    ):
        if pnn is None:
            break
        ref = make().eval()
        with torch.no_grad():
            for prm in ref.parameters():
                prm.uniform_(0.5, 1.5)
            for name, buf in ref.named_buffers():
                if name.endswith(("running_mean", "running_var")):
                    buf.uniform_(0.5, 1.5)
        ours = from_pyg(ref)
        tsb = torch.from_numpy(sorted_batch)

        def theirs(ref=ref, with_batch=with_batch, tsb=tsb):
            with torch.no_grad():
                return ref(tx, tsb) if with_batch else ref(tx)

        def mine(ours=ours, with_batch=with_batch):
            return ours(x, sorted_batch) if with_batch else ours(x)

        diff = np.abs(mine() - theirs().numpy()).max()
        assert diff < 1e-4, (label, diff)
        cases.append((label, mine, theirs))
    print(f"rows={args.rows} features={args.features} graphs={args.graphs} threads={args.threads}")
    ((copy_best, _),) = times([rows[0][1]], args.repeat)
    print(f"{'numpy copy (yardstick)':34s} {copy_best:8.2f} ms")
    print(f"{'case':34s} {'ours ms':>9s} {'anchor ms':>10s} {'anchor/ours':>12s}")
    for label, ours_fn, anchor in cases:
        fns = [ours_fn] + ([anchor] if anchor is not None else [])
        res = times(fns, args.repeat)
        a = res[0][0]
        if anchor is not None:
            t = res[1][0]
            print(f"{label:34s} {a:9.2f} {t:10.2f} {t / a:12.2f}")
        else:
            print(f"{label:34s} {a:9.2f} {'-':>10s} {'-':>12s}")


if __name__ == "__main__":
    main()
