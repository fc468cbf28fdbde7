"""Forward time of 2-layer GCN / SAGE / GAT(v2) / Transformer / TAG / Cheb / APPNP / GINE / RGCN /
PNA vs PyG (and one NNConv layer).

Graphs: a Cora-sized one (2,708 nodes, 10,556 edges, 1,433 features) and a 1M-node power-law
one (5M edges, 32 features), both from ``arraygnn.datasets.synthetic.powerlaw_graph``. Each
arraygnn model is built from the PyG model with ``from_pyg`` so the weights are identical;
the outputs are compared (max relative error printed) before timing. Reports the median of
``--repeat`` warm runs (kernels already compiled) and the ratio PyG / arraygnn (> 1: arraygnn
faster); also a global attention readout. Peak memory of one GAT layer forward is measured
as the growth of the process's peak RSS (``VmHWM`` after resetting it through
``/proc/self/clear_refs``) in a fresh child
process per framework, so both are measured the same way; the same for one GATv2 layer and
one RGCN layer (16 relations, 32 -> 64).

    python benchmarks/bench_layers.py            # full size (minutes on 2 cores)
    python benchmarks/bench_layers.py --quick    # CI size
    python benchmarks/bench_layers.py --kinds GATv2 GATv2+edge --no-memory
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time

import numpy as np

EDGE_DIM = 4
NUM_RELATIONS = 16  # RGCN rows: random edge types


def _graph(num_nodes, num_edges, num_features, seed=0):
    from arraygnn.datasets.synthetic import powerlaw_graph

    src, dst, x = powerlaw_graph(num_nodes, num_edges, seed=seed, num_features=num_features)
    return np.stack([src, dst]), x


def _models(kind, fin, hidden, fout, deg=None):
    import torch
    from torch_geometric import nn as gnn

    torch.manual_seed(0)
    if kind == "PNA":  # 4 aggregators x 3 scalers, deg: the graph's in-degree histogram
        aggs, scalers = ["mean", "min", "max", "std"], ["identity", "amplification", "attenuation"]
        layers = [
            gnn.PNAConv(fin, hidden, aggs, scalers, deg),
            gnn.PNAConv(hidden, fout, aggs, scalers, deg),
        ]
    elif kind == "GCN":
        layers = [gnn.GCNConv(fin, hidden), gnn.GCNConv(hidden, fout)]
    elif kind == "SAGE":
        layers = [gnn.SAGEConv(fin, hidden), gnn.SAGEConv(hidden, fout)]
    elif kind == "GAT":
        layers = [gnn.GATConv(fin, hidden // 8, heads=8), gnn.GATConv(hidden, fout, heads=1)]
    elif kind == "GAT+edge":  # edge features in the attention (edge_dim), a residual
        opts = {"edge_dim": EDGE_DIM, "residual": True}
        layers = [
            gnn.GATConv(fin, hidden // 8, heads=8, **opts),
            gnn.GATConv(hidden, fout, heads=1, **opts),
        ]
    elif kind in ("GATv2", "GATv2+edge"):  # per-edge [H, F] scores (slices of edges here)
        opts = {"edge_dim": EDGE_DIM, "residual": True} if kind == "GATv2+edge" else {}
        layers = [
            gnn.GATv2Conv(fin, hidden // 8, heads=8, **opts),
            gnn.GATv2Conv(hidden, fout, heads=1, **opts),
        ]
    elif kind == "TAG":
        layers = [gnn.TAGConv(fin, hidden, K=3), gnn.TAGConv(hidden, fout, K=3)]
    elif kind == "Cheb":
        layers = [gnn.ChebConv(fin, hidden, K=3), gnn.ChebConv(hidden, fout, K=3)]
    elif kind == "APPNP":  # propagation only: 10 personalised-PageRank steps per layer
        layers = [gnn.APPNP(K=10, alpha=0.1), gnn.APPNP(K=10, alpha=0.1)]
    elif kind == "Transformer+edge":  # graph transformer: edge features in keys and values
        layers = [
            gnn.TransformerConv(fin, hidden // 8, heads=8, edge_dim=EDGE_DIM, beta=True),
            gnn.TransformerConv(hidden, fout, heads=1, edge_dim=EDGE_DIM),
        ]
    elif kind == "GINE":  # edge features through lin, ReLU(x_j + lin(e)) messages
        layers = [
            gnn.GINEConv(torch.nn.Linear(fin, hidden), edge_dim=EDGE_DIM),
            gnn.GINEConv(torch.nn.Linear(hidden, fout), edge_dim=EDGE_DIM),
        ]
    elif kind in ("RGCN", "RGCN-grouped"):  # per-relation mean, a weight per relation
        # (PyG loops over them); "-grouped": arraygnn's edges grouped once (group_relations)
        layers = [
            gnn.RGCNConv(fin, hidden, NUM_RELATIONS),
            gnn.RGCNConv(hidden, fout, NUM_RELATIONS),
        ]
    elif kind == "RGCN-bases":  # basis decomposition, sum aggregation
        layers = [
            gnn.RGCNConv(fin, hidden, NUM_RELATIONS, num_bases=4, aggr="add"),
            gnn.RGCNConv(hidden, fout, NUM_RELATIONS, num_bases=4, aggr="add"),
        ]
    else:
        raise ValueError(kind)
    return [m.eval() for m in layers]


def _forward_pyg(layers, x, ei, ea=None):
    import torch

    extra = () if ea is None else (ea,)
    with torch.no_grad():
        h = torch.relu(layers[0](x, ei, *extra))
        return layers[1](h, ei, *extra)


def _forward_ours(layers, x, ei, ea=None):
    extra = () if ea is None else (ea,)
    h = layers[0](x, ei, *extra)
    return layers[1](np.maximum(h, 0), ei, *extra)


def _time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


KINDS = (
    "GCN",
    "SAGE",
    "GAT",
    "GAT+edge",
    "GATv2",
    "GATv2+edge",
    "Transformer+edge",
    "TAG",
    "Cheb",
    "APPNP",
    "GINE",
    "RGCN",
    "RGCN-grouped",
    "RGCN-bases",
    "PNA",
)


def bench_graph(name, ei, x, repeat, hidden=64, fout=7, kinds=KINDS):
    import torch

    from arraygnn.nn import from_pyg

    tx, tei = torch.from_numpy(x), torch.from_numpy(ei.astype(np.int64))
    ea = np.random.default_rng(1).standard_normal((ei.shape[1], EDGE_DIM), np.float32)
    tea = torch.from_numpy(ea)
    etype = np.random.default_rng(2).integers(0, NUM_RELATIONS, ei.shape[1])
    tetype = torch.from_numpy(etype)
    rows = []
    deg = torch.bincount(torch.bincount(torch.from_numpy(ei[1].astype(np.int64))))
    for kind in kinds:
        ref = _models(kind, x.shape[1], hidden, fout, deg)
        ours = [from_pyg(m) for m in ref]
        a, ta = (ea, tea) if kind.endswith("+edge") or kind == "GINE" else (None, None)
        edges = ei
        if kind.startswith("RGCN"):
            a, ta = etype, tetype
        if kind == "RGCN-grouped":  # grouped once, outside the timed forwards (like to_csr)
            from arraygnn.nn import group_relations

            edges, a = group_relations(ei, etype, NUM_RELATIONS, x.shape[0]), None
        t0 = time.perf_counter()
        got = _forward_ours(ours, x, edges, a)  # first call: includes compilation / cache
        cold = time.perf_counter() - t0
        expected = _forward_pyg(ref, tx, tei, ta).numpy()
        err = float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
        t_ours = _time(lambda ours=ours, e=edges, a=a: _forward_ours(ours, x, e, a), repeat)
        t_pyg = _time(lambda ref=ref, ta=ta: _forward_pyg(ref, tx, tei, ta), repeat)
        rows.append((name, kind, t_ours, t_pyg, cold, err))
        print(
            f"{name:10s} {kind:16s} arraygnn {t_ours * 1e3:9.1f} ms   PyG {t_pyg * 1e3:9.1f} ms   "
            f"PyG/arraygnn {t_pyg / t_ours:5.2f}x   first call {cold:6.2f} s   "
            f"max rel err {err:.1e}",
            flush=True,
        )
    return rows


def bench_attention_readout(num_nodes, num_graphs, num_features, repeat):
    """Global attention pooling (PyG's AttentionalAggregation, Linear gate) over
    ``num_graphs`` graphs of a sorted batch vector, against PyG in the same run."""
    import torch
    from torch_geometric.nn import aggr

    from arraygnn.nn import from_pyg

    rng = np.random.default_rng(2)
    x = rng.standard_normal((num_nodes, num_features), np.float32)
    batch = np.sort(rng.integers(0, num_graphs, num_nodes))
    ptr = np.concatenate([[0], np.cumsum(np.bincount(batch, minlength=num_graphs))])
    torch.manual_seed(0)
    ref = aggr.AttentionalAggregation(torch.nn.Linear(num_features, 1)).eval()
    ours = from_pyg(ref)
    tx, tb = torch.from_numpy(x), torch.from_numpy(batch)
    got = ours(x, batch, dim_size=num_graphs)
    with torch.no_grad():
        expected = ref(tx, tb, dim_size=num_graphs).numpy()
    err = float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
    t_ours = _time(lambda: ours(x, batch, dim_size=num_graphs), repeat)
    t_ptr = _time(lambda: ours(x, ptr=ptr), repeat)

    def run_pyg():
        with torch.no_grad():
            return ref(tx, tb, dim_size=num_graphs)

    t_pyg = _time(run_pyg, repeat)
    print(
        f"attention readout ({num_nodes} nodes, {num_graphs} graphs, F={num_features}): "
        f"arraygnn {t_ours * 1e3:.1f} ms (ptr {t_ptr * 1e3:.1f} ms)   PyG {t_pyg * 1e3:.1f} ms   "
        f"PyG/arraygnn {t_pyg / t_ours:.2f}x   max rel err {err:.1e}",
        flush=True,
    )


def bench_nn_conv(num_nodes, num_edges, repeat, fin=32, fout=32, edge_dim=4, hidden=64):
    """One ``NNConv(fin, fout)`` with PyG's MPNN edge network (Linear(edge_dim, hidden),
    ReLU, Linear(hidden, fin * fout)), mean aggregation, on a power-law graph: arraygnn's
    factored path (per-source matrices + ``ops.gather_mm``), its direct path (per-edge
    matrices, as PyG forms them) and PyG, same weights, same run."""
    import torch
    from torch_geometric.nn import NNConv

    import arraygnn.nn.nn_conv as nn_conv
    from arraygnn.nn import from_pyg

    ei, x = _graph(num_nodes, num_edges, fin)
    ea = np.random.default_rng(3).standard_normal((ei.shape[1], edge_dim), np.float32)
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(edge_dim, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, fin * fout)
    )
    ref = NNConv(fin, fout, net, aggr="mean").eval()
    ours = from_pyg(ref)
    tx, tei, tea = (torch.from_numpy(a) for a in (x, ei.astype(np.int64), ea))

    def run_pyg():
        with torch.no_grad():
            return ref(tx, tei, tea)

    expected = run_pyg().numpy()
    times = {}
    for path in ("factored", "direct"):
        nn_conv.FACTORED = path == "factored"
        try:
            got = ours(x, ei, ea)
            err = float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
            times[path] = (_time(lambda: ours(x, ei, ea), repeat), err)
        finally:
            nn_conv.FACTORED = True
    t_pyg = _time(run_pyg, repeat)
    for path, (t, err) in times.items():
        print(
            f"NNConv {path:8s} ({num_nodes} nodes, {ei.shape[1]} edges, {fin} -> {fout}, edge MLP "
            f"{edge_dim} -> {hidden} -> {fin * fout}): arraygnn {t * 1e3:.1f} ms   PyG "
            f"{t_pyg * 1e3:.1f} ms   PyG/arraygnn {t_pyg / t:.2f}x   max rel err {err:.1e}",
            flush=True,
        )


def bench_hgt_conv(num_papers, num_authors, num_edges, repeat, dim=64, heads=4):
    """One ``HGTConv(dim, dim, heads)`` on a random paper / author graph with three edge
    types (cites, writes, written_by), ``num_edges`` edges each: arraygnn vs PyG, same
    weights (from_pyg), same run."""
    import torch
    from torch_geometric.nn import HGTConv

    from arraygnn.nn import from_pyg

    rng = np.random.default_rng(4)
    sizes = {"paper": num_papers, "author": num_authors}
    x = {t: rng.standard_normal((n, dim), np.float32) for t, n in sizes.items()}
    types = [("paper", "cites", "paper"), ("author", "writes", "paper"),
             ("paper", "written_by", "author")]  # fmt: skip
    ei = {
        et: np.stack(
            [rng.integers(0, sizes[et[0]], num_edges), rng.integers(0, sizes[et[2]], num_edges)]
        )
        for et in types
    }
    torch.manual_seed(0)
    ref = HGTConv(dim, dim, (list(sizes), types), heads=heads).eval()
    ours = from_pyg(ref)
    tx = {k: torch.from_numpy(v) for k, v in x.items()}
    tei = {k: torch.from_numpy(v) for k, v in ei.items()}

    def run_pyg():
        with torch.no_grad():
            return ref(tx, tei)

    expected = run_pyg()
    got = ours(x, ei)
    err = max(
        float(np.abs(got[t] - expected[t].numpy()).max() / np.abs(expected[t].numpy()).max())
        for t in got
    )
    t_ours = _time(lambda: ours(x, ei), repeat)
    t_pyg = _time(run_pyg, repeat)
    print(
        f"HGTConv ({num_papers} papers, {num_authors} authors, 3 x {num_edges} edges, "
        f"{dim} -> {dim}, {heads} heads): arraygnn {t_ours * 1e3:.1f} ms   PyG "
        f"{t_pyg * 1e3:.1f} ms   PyG/arraygnn {t_pyg / t_ours:.2f}x   max rel err {err:.1e}",
        flush=True,
    )


def _rss_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def _gat_memory_child(kind, framework, num_nodes, num_edges, num_features, heads, out, queue):
    ei, x = _graph(num_nodes, num_edges, num_features, seed=1)
    import torch
    from torch_geometric import nn as gnn

    torch.manual_seed(0)
    extra: tuple = ()  # RGCN: the edge types
    if kind == "RGCNConv":  # heads: the number of relations
        ref = gnn.RGCNConv(num_features, out, heads).eval()
        extra = (np.random.default_rng(2).integers(0, heads, ei.shape[1]),)
    else:
        ref = getattr(gnn, kind)(num_features, out, heads=heads).eval()
    if framework == "arraygnn":
        from arraygnn.nn import from_pyg

        layer = from_pyg(ref)
        layer(x[:100], ei[:, :10] % 100, *(a[:10] for a in extra))  # compile / load kernels
        run = lambda: layer(x, ei, *extra)  # noqa: E731
    else:
        tx, tei = torch.from_numpy(x), torch.from_numpy(ei.astype(np.int64))
        textra = tuple(torch.from_numpy(a) for a in extra)
        with torch.no_grad():
            ref(tx[:100], tei[:, :10] % 100, *(a[:10] for a in textra))

        def run():
            with torch.no_grad():
                return ref(tx, tei, *textra)

    base = _rss_kib("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak-RSS counter (VmHWM)
    result = run()
    peak = _rss_kib("VmHWM")
    del result
    queue.put((peak - base) / 1024.0)


def gat_memory(num_nodes, num_edges, num_features, heads=8, out=8, kind="GATConv"):
    ctx = mp.get_context("spawn")  # fork after torch started its threads can hang
    results = {}
    for framework in ("arraygnn", "PyG"):
        q = ctx.Queue()
        p = ctx.Process(
            target=_gat_memory_child,
            args=(kind, framework, num_nodes, num_edges, num_features, heads, out, q),
        )
        p.start()
        results[framework] = q.get()
        p.join()
    ratio = results["PyG"] / max(results["arraygnn"], 1e-9)
    if kind == "RGCNConv":
        what = f"{heads} relations, {num_features} -> {out}; one [N, out] float32 array is "
        what += f"{num_nodes * out * 4 / 2**20:.0f} MiB"
    else:
        what = f"{heads} heads x {out}; one [E, H, F] float32 array is "
        what += f"{num_edges * heads * out * 4 / 2**20:.0f} MiB"
    print(
        f"{kind} peak memory ({num_nodes} nodes, {num_edges} edges, {what}): "
        f"arraygnn {results['arraygnn']:.0f} MiB, PyG {results['PyG']:.0f} MiB "
        f"(PyG/arraygnn {ratio:.1f}x)",
        flush=True,
    )
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small graphs (CI)")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--no-memory", action="store_true", help="skip the GAT memory probe")
    args = parser.parse_args()
    try:
        import torch
        import torch_geometric  # noqa: F401
    except ImportError:
        print("bench_layers: torch and torch_geometric are needed for the comparison; skipping")
        return
    torch.set_num_threads(max(torch.get_num_threads(), 1))
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    if args.quick:
        graphs = [("cora-like", 2708, 10556, 1433), ("powerlaw", 20_000, 100_000, 32)]
        repeat = args.repeat or 3
        mem = (20_000, 200_000, 32)
    else:
        graphs = [("cora-like", 2708, 10556, 1433), ("powerlaw1M", 1_000_000, 5_000_000, 32)]
        repeat = args.repeat or 5
        mem = (200_000, 2_000_000, 32)
    for name, n, e, f in graphs:
        ei, x = _graph(n, e, f)
        bench_graph(name, ei, x, repeat if n < 100_000 else max(repeat // 2, 1), kinds=args.kinds)
    if args.quick:
        bench_attention_readout(20_000, 200, 64, repeat)
        bench_nn_conv(2_000, 20_000, repeat)
        bench_hgt_conv(5_000, 2_000, 20_000, repeat)
    else:
        bench_attention_readout(1_000_000, 10_000, 64, repeat)
        bench_nn_conv(20_000, 200_000, repeat)
        bench_hgt_conv(200_000, 100_000, 1_000_000, repeat)
    if not args.no_memory:
        gat_memory(*mem)
        gat_memory(*mem, kind="GATv2Conv")
        gat_memory(*mem, heads=NUM_RELATIONS, out=64, kind="RGCNConv")


if __name__ == "__main__":
    main()
