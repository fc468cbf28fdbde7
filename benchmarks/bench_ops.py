"""Benchmark arraygnn.ops on seeded power-law graphs against SciPy, PyTorch and PyG.

Measured in ONE run, on this machine, so the ratios compare like with like:

- SpMM (sum, mean, max) over a cached CSR vs ``scipy.sparse`` CSR @ dense,
  ``torch.sparse.mm`` on a CSR tensor, and PyG's gather-then-scatter
  (``x[src]`` then ``torch_geometric.utils.scatter``);
- scatter (sum, mean, max) of [E, F] edge rows vs ``torch.Tensor.index_add_`` /
  ``scatter_reduce`` and PyG ``utils.scatter``;
- gather vs NumPy fancy indexing and ``torch.index_select``;
- segment (sum, mean, max) of [E, F] rows over the CSR row pointer (sorted segments)
  vs ``torch.segment_reduce`` and PyG ``utils.segment``;
- sddmm ``u . v`` per edge vs torch's gather-multiply-sum, and edge_softmax of [E, 8]
  logits (from the cached CSR and from the edge list) vs PyG ``utils.softmax``;
- a memory-copy bandwidth figure, and each op's achieved GB/s on a minimum-bytes model
  (every input array read once, every output written once);
- ``import arraygnn`` time and a second process's first ``spmm`` call (warm Numba cache).

Anchors run only when installed. Timings are the best of ``--repeat`` runs after one
warm-up call. Usage::

    python benchmarks/bench_ops.py --quick          # tiny sizes (CI smoke run)
    python benchmarks/bench_ops.py                  # cora, 100k/1M, 1M/10M; F = 16, 64, 256
    python benchmarks/bench_ops.py --graphs 1m --feats 64
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arraygnn import ops  # noqa: E402
from arraygnn.testing.cases import powerlaw_edges  # noqa: E402

GRAPHS = {
    # name: (nodes, edges, default feature sizes)
    "cora": (2_708, 10_556, (1433, 16, 64)),
    "100k": (100_000, 1_000_000, (16, 64, 256)),
    "1m": (1_000_000, 10_000_000, (16, 64, 256)),
    "tiny": (2_000, 20_000, (16, 64)),
}


warnings.filterwarnings("ignore", message=".*[Ss]parse.*")


def _optional(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        return None


torch = _optional("torch")
scipy_sparse = _optional("scipy.sparse") and sys.modules.get("scipy.sparse")
pyg_utils = None
if torch is not None:
    try:
        from torch_geometric import utils as pyg_utils  # type: ignore[no-redef]
    except ImportError:
        pyg_utils = None


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    """Best wall time of ``repeat`` calls after one warm-up call."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def copy_bandwidth(nbytes: int, repeat: int) -> float:
    """GB/s of a plain array copy (read + write counted) of ``nbytes``."""
    src = np.ones(nbytes // 4, dtype=np.float32)
    dst = np.empty_like(src)
    t = best_time(lambda: np.copyto(dst, src), repeat)
    return 2 * src.nbytes / t / 1e9


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []

    def add(self, *cols: Any) -> None:
        row = tuple(str(c) for c in cols)
        self.rows.append(row)
        print(" | ".join(row), flush=True)


def fmt_ms(t: float | None) -> str:
    return "-" if t is None else f"{t * 1e3:.2f}"


def rates(nbytes: int, seconds: float, copy_gbs: float) -> tuple[str, str]:
    """(GB/s on the minimum-bytes model, that as a share of the copy bandwidth)."""
    gbs = nbytes / seconds / 1e9
    return f"{gbs:.1f}", f"{gbs / copy_gbs:.2f}"


def ratio(ours: float, theirs: float | None) -> str:
    return "-" if theirs is None else f"{theirs / ours:.2f}x"


class Anchors:
    """The graph in the anchors' formats (SciPy CSR, torch CSR tensor, int64 COO)."""

    def __init__(self, csr: Any, ei: np.ndarray, n: int) -> None:
        e = ei.shape[1]
        self.n = n
        self.sp = None
        if scipy_sparse is not None:
            self.sp = scipy_sparse.csr_matrix(
                (np.ones(e, np.float32), csr.indices, csr.indptr), shape=(n, n)
            )
        self.tcsr = self.tsrc = self.tdst = None
        if torch is not None:
            self.tcsr = torch.sparse_csr_tensor(
                torch.from_numpy(csr.indptr.astype(np.int64)),
                torch.from_numpy(csr.indices.astype(np.int64)),
                torch.ones(e, dtype=torch.float32),
                size=(n, n),
            )
            self.tsrc = torch.from_numpy(ei[0].astype(np.int64))
            self.tdst = torch.from_numpy(ei[1].astype(np.int64))


def bench_spmm(
    name: str,
    csr: Any,
    x: np.ndarray,
    an: Anchors,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
) -> None:
    n, f = x.shape
    e = csr.num_edges
    min_bytes = x.nbytes + csr.indptr.nbytes + csr.indices.nbytes + n * f * 4
    tx = torch.from_numpy(x) if torch is not None else None
    for reduce in args.reduces:
        t_ours = best_time(lambda reduce=reduce: ops.spmm(csr, x, reduce=reduce), args.repeat)
        t_sp = t_torch = t_pyg = None
        if reduce == "sum" and an.sp is not None:
            t_sp = best_time(lambda: an.sp @ x, args.repeat)
        if tx is not None:
            if reduce == "sum":
                t_torch = best_time(lambda: torch.sparse.mm(an.tcsr, tx), args.repeat)
            if pyg_utils is not None and e * f * 4 <= args.max_message_bytes:
                t_pyg = best_time(
                    lambda reduce=reduce: pyg_utils.scatter(
                        tx.index_select(0, an.tsrc), an.tdst, 0, n, reduce=reduce
                    ),
                    args.repeat,
                )
        table.add(
            name,
            f,
            f"spmm {reduce}",
            fmt_ms(t_ours),
            *rates(min_bytes, t_ours, copy_gbs),
            f"scipy {fmt_ms(t_sp)} ({ratio(t_ours, t_sp)})",
            f"torch.sparse.mm {fmt_ms(t_torch)} ({ratio(t_ours, t_torch)})",
            f"pyg gather+scatter {fmt_ms(t_pyg)} ({ratio(t_ours, t_pyg)})",
        )
    if "sum" in args.reduces:
        # edge-weighted sum: the weights are in edge order (the CSR permutes them), the
        # anchors get the same values in their own CSR order
        w = np.random.default_rng(3).random(e).astype(np.float32)
        t_ours = best_time(lambda: ops.spmm(csr, x, edge_weight=w), args.repeat)
        t_sp = t_torch = None
        w_slots = w[csr.perm]
        if an.sp is not None:
            sp_w = scipy_sparse.csr_matrix((w_slots, csr.indices, csr.indptr), shape=an.sp.shape)
            t_sp = best_time(lambda: sp_w @ x, args.repeat)
        if tx is not None:
            t_w = torch.sparse_csr_tensor(
                an.tcsr.crow_indices(),
                an.tcsr.col_indices(),
                torch.from_numpy(w_slots),
                size=an.tcsr.shape,
            )
            t_torch = best_time(lambda: torch.sparse.mm(t_w, tx), args.repeat)
        w_bytes = min_bytes + w.nbytes
        table.add(
            name,
            f,
            "spmm sum, weighted",
            fmt_ms(t_ours),
            *rates(w_bytes, t_ours, copy_gbs),
            f"scipy {fmt_ms(t_sp)} ({ratio(t_ours, t_sp)})",
            f"torch.sparse.mm {fmt_ms(t_torch)} ({ratio(t_ours, t_torch)})",
            "-",
        )


def bench_scatter(
    name: str,
    index: np.ndarray,
    n: int,
    msgs: np.ndarray,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
    label: str = "",
) -> None:
    """``ops.scatter`` of the [E, F] rows by ``index`` into ``n`` rows against torch
    (``index_add_`` / ``scatter_reduce``) and PyG ``utils.scatter`` given the same index."""
    e, f = msgs.shape
    min_bytes = msgs.nbytes + index.nbytes + n * f * 4
    tm = tindex = tidx = None
    if torch is not None:
        tm = torch.from_numpy(msgs)
        tindex = torch.from_numpy(index.astype(np.int64))
        tidx = tindex.view(-1, 1).expand(e, f)
    for reduce in args.reduces:
        t_ours = best_time(lambda reduce=reduce: ops.scatter(msgs, index, n, reduce), args.repeat)
        t_torch = t_pyg = None
        if tm is not None:
            if reduce == "sum":
                t_torch = best_time(
                    lambda: torch.zeros(n, f).index_add_(0, tindex, tm), args.repeat
                )
            else:
                red = {"mean": "mean", "max": "amax", "min": "amin", "prod": "prod"}[reduce]
                t_torch = best_time(
                    lambda red=red: torch.zeros(n, f).scatter_reduce_(
                        0, tidx, tm, reduce=red, include_self=False
                    ),
                    args.repeat,
                )
            if pyg_utils is not None:
                t_pyg = best_time(
                    lambda reduce=reduce: pyg_utils.scatter(tm, tindex, 0, n, reduce=reduce),
                    args.repeat,
                )
        anchor = "index_add_" if reduce == "sum" else "scatter_reduce"
        table.add(
            name,
            f,
            f"scatter {reduce}{label}",
            fmt_ms(t_ours),
            *rates(min_bytes, t_ours, copy_gbs),
            "",
            f"torch {anchor} {fmt_ms(t_torch)} ({ratio(t_ours, t_torch)})",
            f"pyg scatter {fmt_ms(t_pyg)} ({ratio(t_ours, t_pyg)})",
        )


def bench_gather(
    name: str,
    ei: np.ndarray,
    x: np.ndarray,
    an: Anchors,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
) -> None:
    e = ei.shape[1]
    f = x.shape[1]
    index = ei[0]
    t_ours = best_time(lambda: ops.gather(x, index), args.repeat)
    min_bytes = x.nbytes + index.nbytes + e * f * 4
    t_np = best_time(lambda: x[index], args.repeat)
    t_torch = None
    if torch is not None:
        tx = torch.from_numpy(x)
        t_torch = best_time(lambda: tx.index_select(0, an.tsrc), args.repeat)
    table.add(
        name,
        f,
        "gather",
        fmt_ms(t_ours),
        *rates(min_bytes, t_ours, copy_gbs),
        f"numpy x[idx] {fmt_ms(t_np)} ({ratio(t_ours, t_np)})",
        f"torch index_select {fmt_ms(t_torch)} ({ratio(t_ours, t_torch)})",
        "",
    )


def bench_segment(
    name: str,
    csr: Any,
    msgs: np.ndarray,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
) -> None:
    """``ops.segment`` of the [E, F] rows over the CSR's row pointer: the sorted case of
    scatter, every row of ``msgs`` read once in order."""
    n = csr.num_dst_nodes
    f = msgs.shape[1]
    ptr = csr.indptr
    min_bytes = msgs.nbytes + ptr.nbytes + n * f * 4
    tm = torch.from_numpy(msgs) if torch is not None else None
    tptr = torch.from_numpy(ptr.astype(np.int64)) if torch is not None else None
    for reduce in args.reduces:
        t_ours = best_time(lambda reduce=reduce: ops.segment(msgs, ptr, reduce), args.repeat)
        t_torch = t_pyg = None
        if tm is not None and reduce in ("sum", "mean", "max", "min"):
            t_torch = best_time(
                lambda reduce=reduce: torch.segment_reduce(
                    tm, reduce, offsets=tptr, axis=0, unsafe=True
                ),
                args.repeat,
            )
            if pyg_utils is not None and hasattr(pyg_utils, "segment"):
                t_pyg = best_time(
                    lambda reduce=reduce: pyg_utils.segment(tm, tptr, reduce=reduce),
                    args.repeat,
                )
        table.add(
            name,
            f,
            f"segment {reduce}",
            fmt_ms(t_ours),
            *rates(min_bytes, t_ours, copy_gbs),
            "",
            f"torch segment_reduce {fmt_ms(t_torch)} ({ratio(t_ours, t_torch)})",
            f"pyg segment {fmt_ms(t_pyg)} ({ratio(t_ours, t_pyg)})",
        )
    bench_sorted_scatter(name, csr, msgs, args, table, copy_gbs)


def bench_sorted_scatter(
    name: str,
    csr: Any,
    msgs: np.ndarray,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
) -> None:
    """``ops.scatter`` with a non-decreasing index (a PyG ``batch`` vector, edges sorted by
    target): the op finds the order itself and runs ``segment`` (the sorted-index path),
    against torch and PyG given the same sorted index."""
    n = csr.num_dst_nodes
    index = np.repeat(np.arange(n, dtype=csr.indptr.dtype), np.diff(csr.indptr))
    bench_scatter(name, index, n, msgs, args, table, copy_gbs, ", sorted index")


def bench_sddmm(
    name: str,
    csr: Any,
    x: np.ndarray,
    an: Anchors,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
) -> None:
    """Per-edge dot product ``x[src] . x[dst]`` (the GAT / link-prediction score)."""
    n, f = x.shape
    e = csr.num_edges
    min_bytes = 2 * x.nbytes + csr.src.nbytes + csr.dst.nbytes + e * x.itemsize
    t_ours = best_time(lambda: ops.sddmm(csr, x, x, "dot"), args.repeat)
    t_torch = None
    if torch is not None and e * f * 4 <= args.max_message_bytes:
        tx = torch.from_numpy(x)
        t_torch = best_time(
            lambda: (tx.index_select(0, an.tsrc) * tx.index_select(0, an.tdst)).sum(-1),
            args.repeat,
        )
    table.add(
        name,
        f,
        "sddmm u.v",
        fmt_ms(t_ours),
        *rates(min_bytes, t_ours, copy_gbs),
        "",
        f"torch gather-mul-sum {fmt_ms(t_torch)} ({ratio(t_ours, t_torch)})",
        "",
    )


def bench_edge_softmax(
    name: str,
    csr: Any,
    ei: np.ndarray,
    an: Anchors,
    args: argparse.Namespace,
    table: Table,
    copy_gbs: float,
    heads: int = 8,
) -> None:
    """Softmax of [E, heads] logits over each target's edges (GAT's attention)."""
    e = csr.num_edges
    logits = np.random.default_rng(4).standard_normal((e, heads), dtype=np.float32)
    min_bytes = 2 * logits.nbytes + csr.indptr.nbytes + csr.perm.nbytes
    t_csr = best_time(lambda: ops.edge_softmax(csr, logits), args.repeat)
    t_coo = best_time(lambda: ops.edge_softmax(ei, logits, an.n), args.repeat)
    t_pyg = None
    if pyg_utils is not None:
        tl = torch.from_numpy(logits)
        t_pyg = best_time(lambda: pyg_utils.softmax(tl, an.tdst, num_nodes=an.n), args.repeat)
    table.add(
        name,
        heads,
        "edge_softmax (CSR / edge list)",
        f"{fmt_ms(t_csr)} / {fmt_ms(t_coo)}",
        *rates(min_bytes, t_csr, copy_gbs),
        "",
        f"pyg softmax {fmt_ms(t_pyg)} ({ratio(t_csr, t_pyg)} / {ratio(t_coo, t_pyg)})",
        "",
    )


def bench_graph(
    name: str, feats: tuple[int, ...], args: argparse.Namespace, table: Table, copy_gbs: float
) -> None:
    n, e, _ = GRAPHS[name]
    ei = powerlaw_edges(n, e, seed=0, dtype=np.int32)
    t_csr = best_time(lambda: ops.to_csr(ei, n, n), 1)
    t_sort = best_time(lambda: np.argsort(ei[1], kind="stable"), 1)
    csr = ops.to_csr(ei, n, n)
    print(
        f"\n## {name}: {n} nodes, {e} edges; to_csr {t_csr * 1e3:.0f} ms "
        f"(np.argsort(dst, kind='stable') alone: {t_sort * 1e3:.0f} ms)",
        flush=True,
    )
    an = Anchors(csr, ei, n)
    rng = np.random.default_rng(0)
    for f in feats:
        x = rng.standard_normal((n, f), dtype=np.float32)
        bench_spmm(name, csr, x, an, args, table, copy_gbs)
        if e * f * 4 > args.max_message_bytes:
            table.add(name, f, "scatter/gather", "skipped: [E, F] > --max-message-bytes")
            continue
        msgs = rng.standard_normal((e, f), dtype=np.float32)
        bench_scatter(name, ei[1], n, msgs, args, table, copy_gbs)
        bench_segment(name, csr, msgs, args, table, copy_gbs)
        del msgs
        bench_gather(name, ei, x, an, args, table, copy_gbs)
        bench_sddmm(name, csr, x, an, args, table, copy_gbs)
    bench_edge_softmax(name, csr, ei, an, args, table, copy_gbs)


def startup_times() -> tuple[float, float]:
    """(import arraygnn seconds, first spmm call in a fresh process with a warm cache)."""
    env = dict(os.environ)
    code_import = (
        "import time; t=time.perf_counter(); import arraygnn; print(time.perf_counter()-t)"
    )
    code_spmm = (
        "import numpy as np, time\n"
        "from arraygnn import ops\n"
        "ei = np.array([[0, 1, 2], [1, 2, 0]], dtype=np.int32)\n"
        "x = np.ones((3, 4), dtype=np.float32)\n"
        "t = time.perf_counter(); ops.spmm(ei, x); print(time.perf_counter() - t)\n"
    )
    run = [sys.executable, "-c"]
    subprocess.run(run + [code_spmm], env=env, check=True, capture_output=True)  # fill cache
    imp = min(
        float(
            subprocess.run(
                run + [code_import], env=env, check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(3)
    )
    first = min(
        float(
            subprocess.run(
                run + [code_spmm], env=env, check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(3)
    )
    return imp, first


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny graph only, few repeats")
    p.add_argument("--graphs", nargs="+", choices=sorted(GRAPHS), default=None)
    p.add_argument("--feats", nargs="+", type=int, default=None, help="feature sizes F")
    p.add_argument("--reduces", nargs="+", default=["sum", "mean", "max"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--max-message-bytes",
        type=float,
        default=3e9,
        help="skip [E, F] message arrays (scatter, gather, PyG) larger than this",
    )
    p.add_argument("--threads", type=int, default=None, help="numba and torch threads")
    args = p.parse_args(argv)
    if args.quick:
        args.graphs = args.graphs or ["tiny"]
        args.repeat = min(args.repeat, 2)
    graphs = args.graphs or ["cora", "100k", "1m"]
    import numba

    if args.threads:
        numba.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    print(
        f"machine: {os.cpu_count()} cpus, numba threads {numba.get_num_threads()}, "
        f"torch {getattr(torch, '__version__', 'absent')}, "
        f"pyg {'present' if pyg_utils is not None else 'absent'}"
    )
    copy_gbs = copy_bandwidth(64 << 20 if args.quick else 512 << 20, args.repeat)
    print(f"memory copy: {copy_gbs:.1f} GB/s (read + write)")
    imp, first = startup_times()
    print(
        f"import arraygnn: {imp:.3f} s; first spmm in a fresh process (warm cache): {first:.3f} s"
    )
    print("graph | F | op | ms | GB/s (min bytes) | of copy | anchor 1 | anchor 2 | anchor 3")
    table = Table()
    for name in graphs:
        feats = tuple(args.feats) if args.feats else GRAPHS[name][2]
        bench_graph(name, feats, args, table, copy_gbs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
