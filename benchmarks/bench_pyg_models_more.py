"""PyG's ``LabelPropagation`` and ``LightGCN`` against arraygnn's (the same settings and
weights via ``from_pyg``; outputs compared first) on a random graph of ``--nodes`` nodes
and ``--edges`` edges (sources and targets uniform): label propagation of ``--classes``
one-hot classes (10 % of the nodes labelled, ``--layers`` steps, alpha 0.9), LightGCN's
``get_embedding`` / forward / ``recommend`` (``--dim`` wide embeddings, 3 layers). Best and
median of ``--repeat`` warm runs, the two sides alternating within each repeat.

    python benchmarks/bench_pyg_models_more.py [--nodes 100000] [--edges 1000000]
        [--classes 16] [--layers 10] [--dim 64] [--repeat 5] [--threads N]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--classes", type=int, default=16)
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch and Numba threads")
    args = parser.parse_args()
    try:
        import torch
        from torch_geometric.nn import models as pyg
    except ImportError:
        print("bench_pyg_models_more: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import LabelPropagation, from_pyg

    if args.threads:
        limit_threads(args.threads)
    rng = np.random.default_rng(0)
    n, e = args.nodes, args.edges
    ei = rng.integers(0, n, (2, e))
    tei = torch.from_numpy(ei)
    rows = []

    y = rng.integers(0, args.classes, n)
    mask = rng.random(n) < 0.1
    ref = pyg.LabelPropagation(args.layers, 0.9)
    lp = from_pyg(ref)
    ty, tm = torch.from_numpy(y), torch.from_numpy(mask)
    err = np.abs(lp(y, ei, mask) - ref(ty, tei, tm).numpy()).max()
    (ours, theirs) = _times([lambda: lp(y, ei, mask), lambda: ref(ty, tei, tm)], args.repeat)
    rows.append(
        (f"LabelPropagation {args.layers} steps, {args.classes} classes", ours, theirs, err)
    )
    dgl = LabelPropagation(k=args.layers, alpha=0.9, norm_type="sym")
    (sym,) = _times([lambda: dgl(y, ei, mask)], args.repeat)
    rows.append(("  (arraygnn, DGL's norm_type='sym'; no DGL to compare)", sym, None, None))

    ref = pyg.LightGCN(n, args.dim, 3).eval()
    model = from_pyg(ref)
    label = rng.integers(0, n, (2, 100_000))
    tlabel = torch.from_numpy(label)
    src = np.arange(256)
    with torch.no_grad():
        expected = ref(tei, tlabel).numpy()
        err = np.abs(model(ei, label) - expected).max() / np.abs(expected).max()
        cases = [
            (f"LightGCN.get_embedding, 3 layers x {args.dim}", lambda: model.get_embedding(ei),
             lambda: ref.get_embedding(tei)),
            ("LightGCN forward, 100k label pairs", lambda: model(ei, label),
             lambda: ref(tei, tlabel)),
            ("LightGCN.recommend, 256 sources x all, k=10",
             lambda: model.recommend(ei, src_index=src, k=10),
             lambda: ref.recommend(tei, src_index=torch.from_numpy(src), k=10)),
        ]  # fmt: skip
        for name, ours_fn, theirs_fn in cases:
            (ours, theirs) = _times([ours_fn, theirs_fn], args.repeat)
            rows.append((name, ours, theirs, err))
        same = np.array_equal(
            model.recommend(ei, src_index=src, k=10),
            ref.recommend(tei, src_index=torch.from_numpy(src), k=10).numpy(),
        )
    print(
        f"{n} nodes, {e} edges, torch threads {torch.get_num_threads()}; "
        f"recommend ids equal: {same}"
    )
    print(
        "| model | arraygnn best / median ms | PyG best / median ms | PyG / ours (best) | max err |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, ours, theirs, err in rows:
        if theirs is None:
            print(f"| {name} | {ours[0]:,.0f} / {ours[1]:,.0f} | | | |")
            continue
        ratio = theirs[0] / ours[0]
        print(
            f"| {name} | {ours[0]:,.0f} / {ours[1]:,.0f} | {theirs[0]:,.0f} / {theirs[1]:,.0f} "
            f"| {ratio:.1f}x | {err:.1e} |"
        )


if __name__ == "__main__":
    main()
