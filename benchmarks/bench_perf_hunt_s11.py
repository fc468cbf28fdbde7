"""Performance hunt, round 2: one value per edge and narrow rows without a CSR, before /
after in one process, against PyG / torch.

Two paths added in this round, each timed against the path it replaced (restored for
"before" by patching the new route off) and against the reference library:

- ``ops.edge_softmax`` of one value per edge (PyG's ``utils.softmax``, DGL's
  ``edge_softmax`` of ``[E]`` logits on a graph, ``softmax_nodes`` on a batched graph):
  the CPU edge-order kernel instead of a counting sort + the CSR row kernel;
- ``ops.spmm`` of an edge list (no CSR) with at most ``NARROW_WIDTH`` values per node (a
  user ``MessagePassing`` layer's fused path, ``ops.spmm(edge_index, x)``): a gather and
  the scatter kernel instead of a CSR built for one call.

Both give the replaced path's bits (tests/ops/test_ops_edge_softmax_edge_order_s11.py,
tests/ops/test_ops_spmm_edge_list_narrow_s11.py); this script checks that again on the
benchmark inputs. Best / median of ``--repeat`` after a warm-up, the three sides
alternating within every repeat (see ``_timing.times``).

    python benchmarks/bench_perf_hunt_s11.py [--nodes 100000] [--edges 1000000]
        [--graphs 10000] [--repeat 7] [--threads 1]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator

import numpy as np
from _timing import limit_threads, times

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import arraygnn.function as fn  # noqa: E402
import arraygnn.utils as U  # noqa: E402
from arraygnn import ops  # noqa: E402
from arraygnn.graph import batch, edge_softmax, graph, softmax_nodes  # noqa: E402
from arraygnn.testing.cases import powerlaw_edges  # noqa: E402

SOFTMAX_KERNEL = importlib.import_module("arraygnn.kernels.cpu.edge_softmax")
SPMM_OPS = importlib.import_module("arraygnn.ops.spmm")


@contextlib.contextmanager
def before() -> Iterator[None]:
    """The paths this round replaced: the CSR row kernels for both ops."""
    order, narrow = SOFTMAX_KERNEL.edge_order_first, SPMM_OPS._narrow_edge_list
    SOFTMAX_KERNEL.edge_order_first = lambda num_edges, num_rows: False
    SPMM_OPS._narrow_edge_list = lambda *args: None
    try:
        yield
    finally:
        SOFTMAX_KERNEL.edge_order_first, SPMM_OPS._narrow_edge_list = order, narrow


def _old(fn_: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        with before():
            return fn_()

    return run


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return np.where(np.isnan(a), np.nan, a).tobytes() == np.where(np.isnan(b), np.nan, b).tobytes()


def row(name: str, new: Callable, ref: Callable | None, repeat: int) -> None:
    old = _old(new)
    same = _same(np.asarray(new()), np.asarray(old()))
    fns = [old, new] + ([ref] if ref is not None else [])
    res = times(fns, repeat)
    (ob, om), (nb, nm) = res[0], res[1]
    text = f"{name:44s} {ob:7.2f} ({om:6.2f}) {nb:7.2f} ({nm:6.2f}) {ob / nb:5.2f}x"
    if ref is not None:
        rb, rm = res[2]
        text += f" {rb:7.2f} ({rm:6.2f}) {nb / rb:5.2f}x"
    print(text + f"  same bits: {same}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--graphs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    limit_threads(args.threads)
    try:
        import torch
        import torch_geometric.utils as pyg_u
        from torch_geometric.nn import MessagePassing as PyGMP
    except ImportError:
        torch = None
    from arraygnn.nn import MessagePassing

    n, e = args.nodes, args.edges
    ei = powerlaw_edges(n, e, seed=0)
    rng = np.random.default_rng(0)
    print(f"{n} nodes / {e} edges (power-law targets), float32, {args.threads} thread(s)")
    print(
        f"{'case':44s} {'before ms (median)':>18s} {'after':>16s} {'gain':>6s}"
        f" {'reference':>17s} {'after/ref':>9s}"
    )
    t = torch.from_numpy if torch is not None else None
    tei = t(ei) if t else None

    # ---- one value per edge: softmax
    s = rng.standard_normal(e).astype(np.float32)
    ref = (lambda: pyg_u.softmax(t(s), tei[1], num_nodes=n)) if t else None
    row(
        "utils.softmax [E] (PyG softmax)",
        lambda: U.softmax(s, ei[1], num_nodes=n),
        ref,
        args.repeat,
    )
    g = graph((ei[0], ei[1]), num_nodes=n)
    g.csr()  # cached, as after any message passing
    row("DGL edge_softmax(g, [E]) (cached CSR)", lambda: edge_softmax(g, s), ref, args.repeat)
    sizes = rng.integers(10, 31, args.graphs)
    bg = batch([graph(([0], [0]), num_nodes=int(k)) for k in sizes])
    total = int(sizes.sum())
    bg.ndata["f"] = rng.standard_normal(total).astype(np.float32)
    bvec = np.repeat(np.arange(args.graphs), sizes)
    ref = (lambda: pyg_u.softmax(t(bg.ndata["f"]), t(bvec), num_nodes=args.graphs)) if t else None
    row(
        f"softmax_nodes [N], {args.graphs} graphs", lambda: softmax_nodes(bg, "f"), ref, args.repeat
    )

    # ---- narrow rows over an edge list: spmm
    for f in (1, 2, 4, 8):
        x = rng.standard_normal((n, f)).astype(np.float32)
        ref = (
            (lambda x=x: torch.zeros_like(t(x)).index_add_(0, tei[1], t(x)[tei[0]])) if t else None
        )
        row(f"ops.spmm(edge_index, x [N, {f}]) sum", lambda x=x: ops.spmm(ei, x), ref, args.repeat)
    x1 = rng.standard_normal(n).astype(np.float32)
    w = rng.random(e).astype(np.float32)
    ref = (lambda: torch.zeros(n).index_add_(0, tei[1], t(w) * t(x1)[tei[0]])) if t else None
    row("ops.spmm(edge_index, x [N], w [E]) sum", lambda: ops.spmm(ei, x1, w), ref, args.repeat)

    class Mean(MessagePassing):
        def __init__(self):
            super().__init__(aggr="mean")

        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=x)

    if t:

        class TMean(PyGMP):
            def __init__(self):
                super().__init__(aggr="mean")

            def forward(self, x, edge_index):
                return self.propagate(edge_index, x=x)

    for f in (1, 4):
        x = rng.standard_normal((n, f)).astype(np.float32)
        ref = (lambda x=x: TMean()(t(x), tei)) if t else None
        row(f"MessagePassing(aggr='mean') F={f}", lambda x=x: Mean()(x, ei), ref, args.repeat)

    # the DGL face keeps its cached CSR: update_all is not changed (a check)
    g.ndata["h"] = x1

    def update_all() -> np.ndarray:
        g.update_all(fn.copy_u("h", "m"), fn.sum("m", "o"))
        return g.ndata["o"]

    row("update_all copy_u sum [N] (unchanged)", update_all, None, args.repeat)


if __name__ == "__main__":
    main()
