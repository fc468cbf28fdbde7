"""One forward of PyG's EdgeConv, ResGatedGraphConv, GatedGraphConv, GCN2Conv and GENConv against
arraygnn's (same weights via ``from_pyg``, outputs compared first), on a graph of
``--nodes`` nodes with 20 random in-edges each (k-NN-like), median of ``--repeat`` warm runs
(GENConv: softmax aggregation, t = 1, batch norm, in eval mode).

Then PyG's PointNetConv on ``--points`` random points and their k = 16 nearest-neighbour
graph (``arraygnn.utils.knn_graph``), ``x`` 32 features + ``pos`` 3 (``F_in = 35``), and
DGL's DotGatConv, AGNNConv and HGTConv (DGL is not installed: the anchor is a vectorised
NumPy transcription of DGL's per-edge maths, ``[E, H, F]`` messages and all) on the
``--nodes`` graph.

    python benchmarks/bench_more_layers.py [--nodes 20000] [--points 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def _time(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--points", type=int, default=100_000)
    args = parser.parse_args()
    _dgl_layers(args)
    try:
        import torch
        from torch_geometric.nn import (
            MLP,
            EdgeConv,
            GatedGraphConv,
            GCN2Conv,
            GENConv,
            ResGatedGraphConv,
        )
    except ImportError:
        print("bench_more_layers: torch and torch_geometric are needed; skipping")
        return
    from arraygnn.nn import from_pyg

    rng = np.random.default_rng(0)
    n, k = args.nodes, 20
    ei = np.stack([rng.integers(0, n, n * k), np.repeat(np.arange(n), k)])
    pos = rng.standard_normal((n, 3)).astype(np.float32)
    h = rng.standard_normal((n, 64)).astype(np.float32)
    tei, tpos, th = torch.from_numpy(ei), torch.from_numpy(pos), torch.from_numpy(h)
    torch.manual_seed(0)
    cases = [
        ("EdgeConv MLP 6-64-64-64, max", EdgeConv(MLP([6, 64, 64, 64], norm=None)), (pos, ei)),
        ("ResGatedGraphConv 64 -> 64", ResGatedGraphConv(64, 64), (h, ei)),
        ("GatedGraphConv 64, 3 layers", GatedGraphConv(64, 3), (h, ei)),
        ("GCN2Conv 64", GCN2Conv(64, 0.1, 0.5, 2), (h, h, ei)),
        ("GENConv 64 -> 64, softmax", GENConv(64, 64, aggr="softmax").eval(), (h, ei)),
    ]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {n} nodes, {n * k} edges")
    for name, module, inputs in cases:
        ours = from_pyg(module)
        targs = [{id(pos): tpos, id(h): th, id(ei): tei}[id(a)] for a in inputs]

        def run_pyg(module=module, targs=targs):
            with torch.no_grad():
                return module(*targs)

        expected = run_pyg().numpy()
        got = ours(*inputs)
        err = float(np.abs(got - expected).max() / np.abs(expected).max())
        t_ours = _time(lambda ours=ours, inputs=inputs: ours(*inputs), args.repeat)
        t_pyg = _time(run_pyg, args.repeat)
        print(
            f"{name:32s} arraygnn {t_ours:8.1f} ms   PyG {t_pyg:8.1f} ms   "
            f"PyG/arraygnn {t_pyg / t_ours:5.2f}x   max rel err {err:.1e}",
            flush=True,
        )
    _point_net(args, torch)


def _point_net(args, torch):
    from torch_geometric.nn import MLP, PointNetConv

    from arraygnn.nn import from_pyg
    from arraygnn.utils import knn_graph

    rng = np.random.default_rng(1)
    n = args.points
    pos = rng.random((n, 3)).astype(np.float32)
    x = rng.standard_normal((n, 32)).astype(np.float32)
    ei = knn_graph(pos, 16)
    torch.manual_seed(0)
    module = PointNetConv(MLP([35, 64, 64], norm=None), MLP([64, 128], norm=None))
    ours = from_pyg(module)
    tx, tpos, tei = torch.from_numpy(x), torch.from_numpy(pos), torch.from_numpy(ei)

    def run_pyg():
        with torch.no_grad():
            return module(tx, tpos, tei)

    expected = run_pyg().numpy()
    err = float(np.abs(ours(x, pos, ei) - expected).max() / np.abs(expected).max())
    t_ours = _time(lambda: ours(x, pos, ei), args.repeat)
    t_pyg = _time(run_pyg, args.repeat)
    name = f"PointNetConv 35-64-64 / 64-128 k=16, {n // 1000}k pts"
    print(
        f"{name:32s} arraygnn {t_ours:8.1f} ms   PyG {t_pyg:8.1f} ms   "
        f"PyG/arraygnn {t_pyg / t_ours:5.2f}x   max rel err {err:.1e}",
        flush=True,
    )


def _segment_softmax(dst, logits, num_dst):
    """Edge softmax per target in NumPy (the anchors' per-edge way, edges sorted once)."""
    order = np.argsort(dst, kind="stable")
    d, z = dst[order], logits[order]
    starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if d.size else np.zeros(0, int)
    top = np.maximum.reduceat(z, starts, axis=0)
    seg = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, d.size]))
    e = np.exp(z - top[seg])
    total = np.add.reduceat(e, starts, axis=0)
    out = np.empty_like(logits)
    out[order] = e / total[seg]
    return out


def _sum_into(dst, msg, num_dst):
    out = np.zeros((num_dst,) + msg.shape[1:], msg.dtype)
    np.add.at(out, dst, msg)
    return out


def _dgl_layers(args):
    """DGL's DotGatConv, AGNNConv and HGTConv: arraygnn against NumPy transcriptions of DGL's
    per-edge forward (the ``[E, H, F]`` arrays DGL's message functions build)."""
    from arraygnn.nn import AGNNConv, DGLHGTConv, DotGatConv

    rng = np.random.default_rng(2)
    n, k = args.nodes, 20
    src = rng.integers(0, n, n * k)
    dst = np.repeat(np.arange(n), k)
    ei = np.stack([src, dst])
    x = rng.standard_normal((n, 64)).astype(np.float32)
    heads, f = 4, 16

    dot = DotGatConv(64, f, heads, rng=0)
    w = dot.fc.weight

    def dot_numpy():
        h = (x @ w.T).reshape(n, heads, f)
        a = (h[src] * h[dst]).sum(-1) / np.float32(np.sqrt(f))
        sa = _segment_softmax(dst, a, n)
        return _sum_into(dst, h[src] * sa[:, :, None], n)

    agnn = AGNNConv(0.8)

    def agnn_numpy():
        u = x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)
        p = _segment_softmax(dst, np.float32(0.8) * (u[src] * u[dst]).sum(-1), n)
        return _sum_into(dst, x[src] * p[:, None], n)

    nt, et, d = 4, 8, 16
    hgt = DGLHGTConv(64, d, heads, nt, et, rng=0)
    ntype = rng.integers(0, nt, n)
    etype = (ntype[src] * 2 + rng.integers(0, 2, n * k)) % et  # types follow the source's
    sd = hgt.state_dict(format="dgl")

    def hgt_numpy():
        def typed(wt, a, t):  # TypedLinear's gather_mm, one matrix per type
            out = np.empty((a.shape[0], wt.shape[2]), a.dtype)
            for r in range(wt.shape[0]):
                rows = t == r
                out[rows] = a[rows] @ wt[r]
            return out

        kk = typed(sd["linear_k.W"], x, ntype).reshape(n, heads, d)
        q = typed(sd["linear_q.W"], x, ntype).reshape(n, heads, d)
        v = typed(sd["linear_v.W"], x, ntype).reshape(n, heads, d)
        a = np.empty((src.size, heads), np.float32)
        m = np.empty((src.size, heads, d), np.float32)
        for i in range(heads):
            kw = typed(sd[f"relation_att.{i}.W"], kk[src, i], etype)
            a[:, i] = (kw * q[dst, i]).sum(-1) * sd[f"relation_pri.{i}"][etype] / np.sqrt(d)
            m[:, i] = typed(sd[f"relation_msg.{i}.W"], v[src, i], etype)
        h = _sum_into(dst, m * _segment_softmax(dst, a, n)[:, :, None], n)
        h = typed(sd["linear_a.W"], h.reshape(n, heads * d), ntype)
        g = 1 / (1 + np.exp(-sd["skip"][ntype]))[:, None]
        res = x @ sd["residual_w"] if "residual_w" in sd else x
        return h * g + res * (1 - g)

    cases = [
        (f"DGL DotGatConv 64 -> {heads}x{f}", lambda: dot(x, ei), dot_numpy),
        ("DGL AGNNConv 64", lambda: agnn(x, ei), agnn_numpy),
        (f"DGL HGTConv 64 -> {heads}x{d}, 4/8 types", lambda: hgt(x, ei, ntype, etype), hgt_numpy),
    ]
    print(f"{n} nodes, {n * k} edges; anchor: NumPy transcription of DGL's per-edge forward")
    for name, ours, anchor in cases:
        expected = anchor()
        err = float(np.abs(ours() - expected).max() / np.abs(expected).max())
        t_ours = _time(ours, args.repeat)
        t_ref = _time(anchor, args.repeat)
        print(
            f"{name:32s} arraygnn {t_ours:8.1f} ms   NumPy {t_ref:8.1f} ms   "
            f"NumPy/arraygnn {t_ref / t_ours:5.2f}x   max rel err {err:.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
