"""One forward of the PyG layers added in the sixth batch (attention, hetero / hypergraph,
point-cloud, pooling, set / attention aggregations) against arraygnn's, the same weights via
``from_pyg`` and the outputs compared first. A random graph of ``--nodes`` nodes and
``--edges`` uniform edges, 64 features, float32; point-cloud layers on ``--nodes`` points
in 10 clouds with their k = 16 nearest-neighbour graph; pooling and set aggregations on
``--graphs`` graphs of 100 nodes. Best and median of ``--repeat`` warm runs, the two sides
alternating within each repeat; the ratio is PyG's best over ours (above 1: ours faster).

    python benchmarks/bench_pyg_layers_c.py [--nodes 10000] [--edges 100000]
        [--graphs 100] [--repeat 5] [--threads N]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _timing import limit_threads
from _timing import times as _times


def _first(out):
    """The first array of a layer's output (a tuple / dict / array)."""
    if isinstance(out, dict):
        out = out[sorted(out)[0]]
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out


def _cases(args, torch, pyg):
    """``(name, pyg_module, torch_args, numpy_args)`` for every layer timed."""
    from arraygnn.utils import knn_graph

    rng = np.random.default_rng(0)
    n, e, f = args.nodes, args.edges, 64
    ei = rng.integers(0, n, (2, e))
    x = rng.standard_normal((n, f)).astype(np.float32)
    t = torch.from_numpy
    et = rng.integers(0, 4, e)
    pseudo = rng.random((e, 3)).astype(np.float32)
    yield (
        "SuperGATConv MX 64 -> 4x16",
        pyg.SuperGATConv(f, 16, heads=4).eval(),
        (t(x), t(ei)),
        (
            x,
            ei,
        ),
    )
    yield (
        "RGATConv 4 relations 64 -> 2x16",
        pyg.RGATConv(f, 16, num_relations=4, heads=2).eval(),
        (t(x), t(ei), t(et)),
        (x, ei, et),
    )
    yield (
        "EGConv symnorm/max/std 64 -> 64",
        pyg.EGConv(f, f, aggregators=["symnorm", "max", "std"]).eval(),
        (t(x), t(ei)),
        (x, ei),
    )
    yield (
        "GMMConv dim 3 K 8 mean 64 -> 32",
        pyg.GMMConv(f, 32, dim=3, kernel_size=8, aggr="mean").eval(),
        (t(x), t(ei), t(pseudo)),
        (x, ei, pseudo),
    )
    hyper = np.stack([rng.integers(0, n, e), rng.integers(0, n // 10, e)])
    yield "HypergraphConv 64 -> 64", pyg.HypergraphConv(f, f).eval(), (t(x), t(hyper)), (x, hyper)
    yield (
        "WLConvContinuous",
        pyg.WLConvContinuous().eval(),
        (t(x), t(ei)),
        (x, ei),
    )
    ntype = rng.integers(0, 3, n)
    eattr = rng.standard_normal((e, 8)).astype(np.float32)
    yield (
        "HEATConv 64 -> 4x16",
        pyg.HEATConv(f, 16, 3, 4, 8, 8, 8, heads=4).eval(),
        (t(x), t(ei), t(ntype), t(et), t(eattr)),
        (x, ei, ntype, et, eattr),
    )
    x_dict = {"a": x[: n // 2], "b": x[n // 2 :]}
    half = n // 2
    ei_dict = {
        ("a", "to", "b"): rng.integers(0, half, (2, e // 2)),
        ("b", "to", "a"): rng.integers(0, half, (2, e // 2)),
        ("b", "self", "b"): rng.integers(0, half, (2, e // 2)),
    }
    meta = (["a", "b"], list(ei_dict))
    yield (
        "HANConv 64 -> 4x16, 3 edge types",
        pyg.HANConv(f, f, meta, heads=4).eval(),
        ({k: t(v) for k, v in x_dict.items()}, {k: t(v) for k, v in ei_dict.items()}),
        (x_dict, ei_dict),
    )
    yield (
        "DNAConv 64, 4 heads, 3 layers",
        pyg.DNAConv(f, heads=4).eval(),
        (t(np.ascontiguousarray(np.stack([x, x, x], 1))), t(ei)),
        (np.ascontiguousarray(np.stack([x, x, x], 1)), ei),
    )
    pos = rng.standard_normal((n, 3)).astype(np.float32)
    cloud = np.repeat(np.arange(10), -(-n // 10))[:n]
    knn = knn_graph(pos, 16, batch=cloud, batch_size=10)
    h = x[:, :32].copy()
    yield (
        "PointTransformerConv 32 -> 32",
        pyg.PointTransformerConv(32, 32).eval(),
        (t(h), t(pos), t(knn)),
        (h, pos, knn),
    )
    yield (
        "PointGNNConv MLPs 3-64-3 / 35-64-32 / 32-64-32",
        pyg.PointGNNConv(
            pyg.MLP([32, 64, 3], norm=None),
            pyg.MLP([35, 64, 32], norm=None),
            pyg.MLP([32, 64, 32], norm=None),
        ).eval(),
        (t(h), t(pos), t(knn)),
        (h, pos, knn),
    )
    # pooling and set aggregations: ``--graphs`` graphs of 100 nodes, 500 edges each
    g, m = args.graphs, 100
    batch = np.repeat(np.arange(g), m)
    pei = np.concatenate([rng.integers(0, m, (2, 5 * m)) + i * m for i in range(g)], axis=1).astype(
        np.int64
    )
    px = rng.standard_normal((g * m, 32)).astype(np.float32)
    yield (
        "EdgePooling 32",
        pyg.EdgePooling(32).eval(),
        (t(px), t(pei), t(batch)),
        (px, pei, batch),
    )
    yield (
        "ASAPooling 32, ratio 0.5",
        pyg.ASAPooling(32, 0.5).eval(),
        (t(px), t(pei), None, t(batch)),
        (px, pei, None, batch),
    )
    sx = rng.standard_normal((g * 50, 64)).astype(np.float32)
    sb = np.repeat(np.arange(g), 50)
    yield (
        "SetTransformerAggregation 64, 4 heads",
        pyg.aggr.SetTransformerAggregation(64, heads=4).eval(),
        (t(sx), t(sb)),
        (sx, sb),
    )
    sei = np.concatenate([rng.integers(0, 50, (2, 200)) + i * 50 for i in range(g)], 1)
    yield (
        "GPSConv 64 GCNConv, 4 heads",
        pyg.GPSConv(64, pyg.GCNConv(64, 64), heads=4).eval(),
        (t(sx), t(sei), t(sb)),
        (sx, sei, sb),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=100_000)
    parser.add_argument("--graphs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch and Numba threads")
    args = parser.parse_args()
    try:
        import torch
        import torch_geometric.nn as pyg
    except ImportError:
        print("bench_pyg_layers_c: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    if args.threads:
        limit_threads(args.threads)
    warnings.filterwarnings("ignore", category=UserWarning)  # torch's sparse-CSR beta notes
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'layer':48s} {'PyG ms':>14s} {'ours ms':>14s} {'ratio':>6s}")
    for name, module, targs, nargs in _cases(args, torch, pyg):
        ours = from_pyg(module)

        def run_pyg(module=module, targs=targs):
            with torch.no_grad():
                return module(*targs)

        def run_ours(ours=ours, nargs=nargs):
            return ours(*nargs)

        expected = _first(run_pyg())
        got = _first(run_ours())
        expected = expected.numpy() if hasattr(expected, "numpy") else np.asarray(expected)
        scale = max(float(np.abs(expected).max()), 1e-30) if expected.size else 1.0
        err = float(np.abs(np.asarray(got) - expected).max()) / scale if expected.size else 0.0
        if err > 1e-3:
            print(f"{name:48s} outputs differ (relative {err:.1e}); not timed")
            continue
        (pb, pm), (ob, om) = _times([run_pyg, run_ours], args.repeat)
        print(f"{name:48s} {pb:7.1f} ({pm:5.1f}) {ob:7.1f} ({om:5.1f}) {pb / ob:6.2f}")


if __name__ == "__main__":
    main()
