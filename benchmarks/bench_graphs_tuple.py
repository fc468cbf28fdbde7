"""The jraph face against jraph itself, in one run: batching and padding, segment ops, models.

- ``batch`` / ``unbatch`` of 128 and 1024 molecule-sized one-graph GraphsTuples (about 25
  nodes, 54 edges, float32 features) against ``jraph.batch_np`` / ``jraph.unbatch_np``;
- ``pad_with_graphs`` of a 1024-graph batch and one pass of ``dynamically_batch`` over
  4,000 graphs (budget 512 nodes, 1,024 edges, 33 graphs) against jraph's;
- ``segment_sum`` / ``segment_max`` / ``segment_softmax`` on 1M rows (F = 64, 100k
  segments, random order) against jraph's (``jax.ops`` under ``jax.jit`` on the CPU);
- ``GraphConvolution`` (self edges, symmetric normalisation) and ``GAT`` (4 heads of 16)
  on a 100k-node / 1M-edge random graph, F = 64, against jraph's under ``jax.jit``.

JAX times exclude compilation (one warm-up call) and wait for the result
(``block_until_ready``). Ratios > 1: arraygnn faster.

    python benchmarks/bench_graphs_tuple.py            # full run
    python benchmarks/bench_graphs_tuple.py --quick    # small sizes, few repeats
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn.graphs_tuple as gt  # noqa: E402


def best(repeats: int, fn: Callable[..., object], *args: object) -> float:
    """Best wall time of ``fn(*args)`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def waited(fn: Callable[..., object], *args: object) -> object:
    """``fn(*args)`` with JAX's asynchronous result waited for."""
    return fn(*args).block_until_ready()


def molecules(count: int, seed: int = 0) -> list[gt.GraphsTuple]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(np.clip(rng.normal(25, 6), 4, 60))
        e = 2 * int(round(n * 1.08))
        out.append(
            gt.GraphsTuple(
                nodes=rng.normal(size=(n, 9)).astype(np.float32),
                edges=rng.normal(size=(e, 3)).astype(np.float32),
                receivers=rng.integers(0, n, e).astype(np.int32),
                senders=rng.integers(0, n, e).astype(np.int32),
                globals=rng.normal(size=(1, 1)).astype(np.float32),
                n_node=np.array([n], np.int32),
                n_edge=np.array([e], np.int32),
            )
        )
    return out


def row(name: str, ours: float, theirs: float | None) -> None:
    if theirs is None:
        print(f"{name:<44} {ours * 1e3:10.3f} ms   (jraph not installed)")
    else:
        print(f"{name:<44} {ours * 1e3:10.3f} ms {theirs * 1e3:10.3f} ms {theirs / ours:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick
    repeats = 3 if quick else 7
    try:
        import jax
        import jax.numpy as jnp
        import jraph
    except ImportError:
        jax = jnp = jraph = None
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}"
        + (f", jax {jax.__version__}, jraph {jraph.__version__}" if jraph else "")
    )
    print(f"{'':<44} {'arraygnn':>13} {'jraph':>13} {'ratio':>8}")

    # --- batching and padding -----------------------------------------------------------
    graphs = molecules(4000)
    jgraphs = [jraph.GraphsTuple(*g) for g in graphs] if jraph else None
    for count in (128, 1024):
        part = graphs[:count]
        ours = best(repeats, gt.batch, part)
        theirs = best(repeats, jraph.batch_np, jgraphs[:count]) if jraph else None
        row(f"batch, {count} graphs", ours, theirs)
    big = gt.batch(graphs[:1024])
    jbig = jraph.GraphsTuple(*big) if jraph else None

    def jraph_unbatch(copies: list) -> None:
        # jraph.unbatch_np shifts the ids in place, in its input's arrays: each call gets
        # its own copy, made outside the timing
        jraph.unbatch_np(copies.pop())

    row(
        "unbatch, 1024 graphs",
        best(repeats, gt.unbatch, big),
        best(
            repeats,
            jraph_unbatch,
            [
                jraph.GraphsTuple(*(None if a is None else a.copy() for a in big))
                for _ in range(repeats)
            ],
        )
        if jraph
        else None,
    )
    sizes = (int(big.n_node.sum()) + 100, int(big.n_edge.sum()) + 100, 1100)
    row(
        "pad_with_graphs, 1024-graph batch",
        best(repeats, gt.pad_with_graphs, big, *sizes),
        best(repeats, jraph.pad_with_graphs, jbig, *sizes) if jraph else None,
    )
    budget = (512, 1024, 33)
    count = 1000 if quick else 4000

    def drain(batcher: Callable, items: list) -> list:
        return list(batcher(iter(items), *budget))

    row(
        f"dynamically_batch, {count} graphs",
        best(1 if quick else 3, drain, gt.dynamically_batch, graphs[:count]),
        best(1 if quick else 3, drain, jraph.dynamically_batch, jgraphs[:count]) if jraph else None,
    )

    # --- segment ops ----------------------------------------------------------------------
    rng = np.random.default_rng(1)
    rows_, segs, width = (100_000, 10_000, 64) if quick else (1_000_000, 100_000, 64)
    data = rng.normal(size=(rows_, width)).astype(np.float32)
    ids = rng.integers(0, segs, rows_).astype(np.int32)
    for name in ("segment_sum", "segment_max", "segment_softmax"):
        ours = best(repeats, getattr(gt, name), data, ids, segs)
        theirs = None
        if jraph:
            fn = jax.jit(getattr(jraph, name), static_argnums=2)
            jd, ji = jnp.asarray(data), jnp.asarray(ids)
            waited(fn, jd, ji, segs)
            theirs = best(repeats, waited, fn, jd, ji, segs)
        row(f"{name}, {rows_:,} rows x {width}, {segs:,} segments", ours, theirs)

    # --- models ---------------------------------------------------------------------------
    n, e = (10_000, 100_000) if quick else (100_000, 1_000_000)
    x = rng.normal(size=(n, width)).astype(np.float32)
    w = (rng.normal(size=(width, width)) / 8).astype(np.float32)
    graph = gt.GraphsTuple(
        x,
        None,
        rng.integers(0, n, e).astype(np.int32),
        rng.integers(0, n, e).astype(np.int32),
        None,
        np.array([n], np.int32),
        np.array([e], np.int32),
    )
    heads = 4

    def make(xp: object) -> dict[str, Callable]:
        wx = xp.asarray(w)
        return {
            "gcn_update": lambda h: h @ wx,
            "query": lambda h: (h @ wx).reshape(h.shape[0], heads, width // heads),
            "logit": lambda s, r, _: (s * r).sum(-1, keepdims=True),
        }

    fo = make(np)
    models = {
        "GraphConvolution": (
            gt.GraphConvolution(fo["gcn_update"], add_self_edges=True),
            (lambda f: jraph.GraphConvolution(f["gcn_update"], add_self_edges=True))
            if jraph
            else None,
        ),
        "GAT (4 heads)": (
            gt.GAT(fo["query"], fo["logit"]),
            (lambda f: jraph.GAT(f["query"], f["logit"])) if jraph else None,
        ),
    }
    for name, (ours_model, theirs_factory) in models.items():
        ours = best(repeats, ours_model, graph)
        theirs = None
        if theirs_factory is not None:
            jraph_model = theirs_factory(make(jnp))
            model = jax.jit(lambda g, m=jraph_model: m(g).nodes)
            jg = jraph.GraphsTuple(*[jnp.asarray(a) if a is not None else None for a in graph])
            out = waited(model, jg)
            np.testing.assert_allclose(
                np.asarray(out), ours_model(graph).nodes, rtol=2e-3, atol=2e-4
            )
            theirs = best(repeats, waited, model, jg)
        row(f"{name}, {n:,} nodes / {e:,} edges, F={width}", ours, theirs)


if __name__ == "__main__":
    main()
