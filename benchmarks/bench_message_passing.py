"""DGL-face message passing: fused built-ins against the UDF path, SciPy, PyTorch (and DGL).

Two computations on one random graph (N nodes, E edges, F features, float32):

- ``update_all(fn.u_mul_e("h", "w", "m"), fn.sum("m", "h"))`` — one fused ``ops.spmm``;
  against the same thing written as UDFs (message ``edges.src["h"] * edges.data["w"]``,
  reduce ``nodes.mailbox["m"].sum(1)``), SciPy ``csr @ h`` and PyTorch
  ``index_add_(h[src] * w)``.
- ``apply_edges(fn.u_dot_v("h", "h", "s"))`` — one ``ops.sddmm``; against the UDF and
  PyTorch ``(h[src] * h[dst]).sum(-1)``.

Reported: median of ``--repeat`` warm runs (kernels compiled first), the ratio
anchor / arraygnn (> 1: arraygnn faster), and peak memory: NumPy allocations traced with
``tracemalloc`` during one call (arraygnn paths), and for every path the growth of the
process's peak RSS (``VmHWM``, reset through ``/proc/self/clear_refs``) in a fresh child
process. The fused update_all must stay far below one [E, F] message array.
DGL is timed when it can be imported (here: ``pip install --no-deps --target DIR dgl==2.1.0
torchdata==0.7.1 pandas pyyaml`` and ``PYTHONPATH=DIR``; its graphbolt library, unused by
message passing and not built for torch 2.13, is stubbed out).

    python benchmarks/bench_message_passing.py            # full size
    python benchmarks/bench_message_passing.py --quick    # CI size
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time
import tracemalloc

import numpy as np

SIZES = {"quick": (2_000, 20_000, 16), "full": (100_000, 2_000_000, 64)}


def _inputs(n, e, f, seed=0):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, e)
    dst = rng.integers(0, n, e)
    h = rng.standard_normal((n, f), dtype=np.float32)
    w = rng.random(e, dtype=np.float32)
    return src, dst, h, w


def _graph(src, dst, h, w):
    from arraygnn.graph import graph

    g = graph((src, dst), num_nodes=h.shape[0])
    g.ndata["h"] = h
    g.edata["w"] = w
    g.csr()  # cached, as after a first call
    return g


def _runner(path, src, dst, h, w):
    """A zero-argument callable computing ``path`` (built once, outside the timing)."""
    import arraygnn.function as fn

    n = h.shape[0]
    if path.startswith("arraygnn"):
        g = _graph(src, dst, h, w)

        def msg_udf(edges):
            return {"m": edges.src["h"] * edges.data["w"][:, None]}

        def red_udf(nodes):
            return {"out": nodes.mailbox["m"].sum(1)}

        def dot_udf(edges):
            return {"s": (edges.src["h"] * edges.dst["h"]).sum(-1, keepdims=True)}

        table = {
            "arraygnn fused update_all": lambda: g.update_all(
                fn.u_mul_e("h", "w", "m"), fn.sum("m", "out")
            ),
            "arraygnn UDF update_all": lambda: g.update_all(msg_udf, red_udf),
            "arraygnn apply_edges u_dot_v": lambda: g.apply_edges(fn.u_dot_v("h", "h", "s")),
            "arraygnn UDF apply_edges": lambda: g.apply_edges(dot_udf),
        }
        return table[path], g
    if path == "scipy csr @ h":
        import scipy.sparse as sp

        a = sp.csr_matrix((w, (dst, src)), shape=(n, n))
        return (lambda: a @ h), None
    if path.startswith("torch"):
        import torch

        ts, td = torch.from_numpy(src), torch.from_numpy(dst)
        th, tw = torch.from_numpy(h), torch.from_numpy(w)

        def spmm():
            out = torch.zeros_like(th)
            return out.index_add_(0, td, th[ts] * tw[:, None])

        def dot():
            return (th[ts] * th[td]).sum(-1, keepdim=True)

        return {"torch index_add_": spmm, "torch gather-dot": dot}[path], None
    if path.startswith("dgl"):
        import torch

        dgl = _import_dgl()
        dfn = dgl.function

        g = dgl.graph((torch.from_numpy(src), torch.from_numpy(dst)), num_nodes=n)
        g.ndata["h"] = torch.from_numpy(h)
        g.edata["w"] = torch.from_numpy(w)[:, None]
        if path == "dgl update_all":
            return (lambda: g.update_all(dfn.u_mul_e("h", "w", "m"), dfn.sum("m", "out"))), g
        return (lambda: g.apply_edges(dfn.u_dot_v("h", "h", "s"))), g
    raise ValueError(path)


def _import_dgl():
    """``import dgl``; DGL wheels ship their graphbolt library only for the torch they were
    built against, and message passing does not use it, so a missing one is stubbed out."""
    import sys
    import types

    try:
        import dgl
    except (ImportError, FileNotFoundError, OSError):
        for name in [m for m in sys.modules if m == "dgl" or m.startswith("dgl.")]:
            del sys.modules[name]
        sys.modules["dgl.graphbolt"] = types.ModuleType("dgl.graphbolt")
        import dgl
    import dgl.function  # noqa: F401

    return dgl


def _dgl_works():
    try:
        _import_dgl()
        return True
    except Exception:  # noqa: BLE001 - any failure means: no DGL rows
        return False


def _time(fn, repeat):
    fn()  # warm: compile kernels, build caches
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _traced_peak(fn):
    fn()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def _vmhwm_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1])
    return 0


def _rss_child(path, sizes, queue):
    try:
        src, dst, h, w = _inputs(*sizes)
        fn, _ = _runner(path, src, dst, h, w)
        fn()  # warm
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _vmhwm_kib()
        fn()
        queue.put((_vmhwm_kib() - before) * 1024)
    except Exception as err:  # noqa: BLE001 - reported, not hidden
        queue.put(f"failed: {err}")


def _rss_growth(path, sizes):
    ctx = mp.get_context("spawn")  # fork after torch's thread pools start can deadlock
    q = ctx.Queue()
    p = ctx.Process(target=_rss_child, args=(path, sizes, q))
    p.start()
    p.join()
    return q.get() if not q.empty() else "n/a"


def _available(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _mib(x):
    return f"{x / 2**20:8.1f}" if isinstance(x, (int, float)) else f"{x:>8}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI-size graph")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    sizes = SIZES["quick" if args.quick else "full"]
    n, e, f = sizes
    src, dst, h, w = _inputs(*sizes)
    print(f"graph: N={n:,} E={e:,} F={f} float32; one [E, F] message = {e * f * 4 / 2**20:.1f} MiB")
    have_torch = _available("torch")
    have_dgl = have_torch and _available("dgl") and _dgl_works()
    if have_dgl:
        import dgl

        print(f"DGL {dgl.__version__} (CPU)")
    else:
        print("DGL: not importable here; DGL rows skipped")

    # correctness first
    g = _graph(src, dst, h, w)
    import arraygnn.function as fn

    g.update_all(fn.u_mul_e("h", "w", "m"), fn.sum("m", "out"))
    ref = np.zeros_like(h)
    np.add.at(ref, dst, h[src] * w[:, None])
    err = float(np.abs(g.ndata["out"] - ref).max() / (np.abs(ref).max() + 1e-30))
    g.apply_edges(fn.u_dot_v("h", "h", "s"))
    err_dot = float(np.abs(g.edata["s"][:, 0] - (h[src] * h[dst]).sum(-1)).max())
    print(f"max rel error update_all vs np.add.at: {err:.2e}; apply_edges abs error {err_dot:.2e}")

    groups = [
        (
            "update_all(u_mul_e, sum)",
            ["arraygnn fused update_all", "arraygnn UDF update_all", "scipy csr @ h"]
            + (["torch index_add_"] if have_torch else [])
            + (["dgl update_all"] if have_dgl else []),
        ),
        (
            "apply_edges(u_dot_v)",
            ["arraygnn apply_edges u_dot_v", "arraygnn UDF apply_edges"]
            + (["torch gather-dot"] if have_torch else [])
            + (["dgl apply_edges"] if have_dgl else []),
        ),
    ]
    for title, paths in groups:
        print(f"\n{title}")
        header = ("path", "median ms", "anchor/ours", "traced MiB", "RSS+ MiB")
        print(f"{header[0]:32s} {header[1]:>10s} {header[2]:>11s} {header[3]:>10s} {header[4]:>9s}")
        base = None
        for path in paths:
            fn_, _ = _runner(path, src, dst, h, w)
            t = _time(fn_, args.repeat)
            base = t if base is None else base
            traced = _traced_peak(fn_) if path.startswith("arraygnn") else "n/a"
            rss = _rss_growth(path, sizes)
            print(
                f"{path:32s} {t * 1e3:10.2f} {t / base:11.2f} {_mib(traced):>10s} {_mib(rss):>9s}"
            )


if __name__ == "__main__":
    main()
