"""Command line: ``python -m arraygnn demo | bench | info``.

- ``demo``: an end-to-end job on the molecules shipped inside the package, no download and no
  optional extra. It runs the stages in :data:`DEMO_STAGES` in order; each stage is a function
  ``stage(ctx: DemoContext) -> None`` that reads what earlier stages left in ``ctx`` and prints
  its lines through ``ctx.say``. Later work adds a stage by writing such a function and
  appending ``("name", function)`` to :data:`DEMO_STAGES`.
- ``bench``: runs every ``benchmarks/bench_*.py --quick`` of a source checkout.
- ``info``: versions, devices and optional packages.

>>> from arraygnn.__main__ import DEMO_STAGES
>>> [name for name, _ in DEMO_STAGES]
['load', 'batch', 'regression', 'handoff']
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DemoContext", "DEMO_STAGES", "run_demo", "run_bench", "print_info", "main"]


@dataclass
class DemoContext:
    """What the demo stages share: options, the dataset, batches, and the results so far."""

    batch_size: int = 128
    seed: int = 0
    quiet: bool = False
    dataset: Any = None  # arraygnn.dataset.PackedDataset of the molecules
    loader: Any = None  # arraygnn.loader.DataLoader over it
    batch: Any = None  # one collated Batch, for the stages after "batch"
    results: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def say(self, line: str = "") -> None:
        self.lines.append(line)
        if not self.quiet:
            print(line, flush=True)


def _fmt_count(n: float) -> str:
    return f"{n:,.0f}"


def stage_load(ctx: DemoContext) -> None:
    """Load the shipped NCI molecules into a packed dataset."""
    from arraygnn.datasets import load_molecules

    t0 = time.perf_counter()
    ds = load_molecules()
    seconds = time.perf_counter() - t0
    ctx.dataset = ds
    ctx.results["load_seconds"] = seconds
    ctx.results["num_graphs"] = len(ds)
    ctx.say(f"[load] {len(ds):,} NCI molecules in {seconds * 1e3:.0f} ms (numpy only)")
    ctx.say(f"       {ds!r}")
    ctx.say(f"       first molecule: {ds[0]!r}")


def stage_batch(ctx: DemoContext) -> None:
    """Batch one shuffled epoch with the DataLoader; report sizes and throughput."""
    from arraygnn.loader import DataLoader

    loader = DataLoader(ctx.dataset, batch_size=ctx.batch_size, shuffle=True, seed=ctx.seed)
    ctx.loader = loader
    graphs, nodes, edges = [], [], []
    t0 = time.perf_counter()
    for batch in loader:
        graphs.append(batch.num_graphs)
        nodes.append(batch.num_nodes)
        edges.append(batch.num_edges)
        if ctx.batch is None:
            ctx.batch = batch
    seconds = time.perf_counter() - t0
    total = int(np.sum(graphs))
    rate = total / seconds if seconds > 0 else float("inf")
    ctx.results.update(
        epoch_seconds=seconds,
        graphs_per_second=rate,
        num_batches=len(graphs),
        total_nodes=int(np.sum(nodes)),
        total_edges=int(np.sum(edges)),
    )
    ctx.say(
        f"[batch] one shuffled epoch: {len(graphs)} batches of {ctx.batch_size} graphs "
        f"(last {graphs[-1]}), {int(np.sum(nodes)):,} nodes, {int(np.sum(edges)):,} edges"
    )
    ctx.say(
        f"        per batch: nodes mean {np.mean(nodes):.0f} / max {np.max(nodes)}, "
        f"edges mean {np.mean(edges):.0f} / max {np.max(edges)}"
    )
    ctx.say(
        f"        {seconds * 1e3:.1f} ms for the epoch: {_fmt_count(rate)} graphs/s "
        f"(collation with batch/ptr vectors, index offsets)"
    )
    ctx.say(f"        first batch: {ctx.batch!r}")


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def stage_handoff(ctx: DemoContext) -> None:
    """Hand the first batch to PyTorch and JAX (where installed) and check the aliasing."""
    import contextlib
    import importlib

    from arraygnn import interop

    batch = ctx.batch
    arrays = {k: batch[k] for k in batch.keys() if isinstance(batch[k], np.ndarray)}
    done = False
    for name in ("torch", "jax"):
        if not _installed(name):
            continue
        done = True
        t0 = time.perf_counter()
        module = importlib.import_module(name)
        import_ms = (time.perf_counter() - t0) * 1e3
        if name == "jax":
            # int64 indices stay zero-copy only with x64 on (else JAX narrows them: a copy)
            scope, convert, note = module.enable_x64(True), interop.to_jax, ", x64 on"
        else:
            scope, convert, note = contextlib.nullcontext(), interop.to_torch, ""
        with scope:
            t0 = time.perf_counter()
            out, report = convert(batch, report=True)
            seconds = time.perf_counter() - t0
        aliased = sorted(
            k for k, a in arrays.items() if interop.data_pointer(out[k]) == interop.data_pointer(a)
        )
        ctx.results[f"{name}_aliased"] = aliased
        ctx.results[f"{name}_report"] = report
        ctx.say(
            f"[handoff] to_{name}: {len(aliased)}/{len(arrays)} arrays aliased "
            f"(zero-copy: {'yes' if report.zero_copy else 'no'}) in {seconds * 1e3:.2f} ms"
            f" (import {name}: {import_ms:.0f} ms{note})"
        )
        for key, why in report.copied.items():
            ctx.say(f"          copied {key}: {why}")
    if not done:
        ctx.say("[handoff] torch / jax not installed: skipped (pip install 'arraygnn[torch]')")


def stage_regression(ctx: DemoContext) -> None:
    """Predict TPSA: SGC/SIGN propagation over all molecules, pool, ridge regression."""
    from arraygnn._demo_regression import report_lines, run_molecule_regression

    result = run_molecule_regression(ctx.dataset, hops=3, seed=ctx.seed)
    ctx.results["regression"] = result
    for line in report_lines(result):
        ctx.say(line)


#: The demo's stages, in order: (name, function(ctx)). Append to add a stage.
DEMO_STAGES: list[tuple[str, Callable[[DemoContext], None]]] = [
    ("load", stage_load),
    ("batch", stage_batch),
    ("regression", stage_regression),
    ("handoff", stage_handoff),
]

#: What each stage reads from earlier stages: asking for a stage runs these first.
DEMO_NEEDS: dict[str, tuple[str, ...]] = {
    "batch": ("load",),
    "regression": ("load",),
    "handoff": ("batch",),
}


def _with_prerequisites(stages: list[str]) -> set[str]:
    wanted: set[str] = set()
    todo = list(stages)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(DEMO_NEEDS.get(name, ()))
    return wanted


def run_demo(
    batch_size: int = 128, seed: int = 0, quiet: bool = False, stages: list[str] | None = None
) -> DemoContext:
    """Run the demo stages (all, or the named ones and the stages they read from, in
    order) and return their context."""
    known = [name for name, _ in DEMO_STAGES]
    if stages is not None:
        unknown = [s for s in stages if s not in known]
        if unknown:
            raise ValueError(f"unknown demo stage(s) {unknown}; known: {known}")
        stages = sorted(_with_prerequisites(stages), key=known.index)
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    ctx = DemoContext(batch_size=batch_size, seed=seed, quiet=quiet)
    t0 = time.perf_counter()
    for name, stage in DEMO_STAGES:
        if stages is None or name in stages:
            stage(ctx)
    ctx.results["total_seconds"] = time.perf_counter() - t0
    ctx.say(f"[done] demo finished in {ctx.results['total_seconds']:.2f} s")
    return ctx


def _benchmark_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "benchmarks"


def run_bench(only: list[str] | None = None, full: bool = False) -> int:
    """Run ``benchmarks/bench_*.py --quick`` (or full size) from a source checkout."""
    folder = _benchmark_dir()
    scripts = sorted(folder.glob("bench_*.py")) if folder.is_dir() else []
    if only:
        scripts = [s for s in scripts if any(o in s.stem for o in only)]
    if not scripts:
        print(
            f"no benchmarks found in {folder} (they live in a source checkout of arraygnn, "
            "not in the installed package)"
        )
        return 1 if only else 0
    failed = []
    for script in scripts:
        print(f"== {script.name}", flush=True)
        cmd = [sys.executable, str(script)] + ([] if full else ["--quick"])
        if subprocess.run(cmd).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


_OPTIONAL = {
    "cupy": ("cupy", "cupy-cuda12x", "cupy-cuda13x", "cupy"),
    "numba-cuda": ("numba_cuda", "numba-cuda"),
    "torch": ("torch", "torch"),
    "torch_geometric": ("torch_geometric", "torch-geometric"),
    "jax": ("jax", "jax"),
    "jaxlib": ("jaxlib", "jaxlib"),
    "jraph": ("jraph", "jraph"),
    "networkx": ("networkx", "networkx"),
    "protobuf": ("google.protobuf", "protobuf"),
    "crc32c": ("crc32c", "crc32c"),
    "dask": ("dask", "dask"),
}


def _version(*dists: str) -> str | None:
    for dist in dists:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def print_info() -> int:
    """Print versions, devices, optional packages and settings."""
    import arraygnn
    from arraygnn._config import settings

    print(f"arraygnn {arraygnn.__version__} ({Path(arraygnn.__file__).parent})")
    print(f"python   {platform.python_version()} on {platform.platform()}")
    for dist in ("numpy", "scipy", "numba"):
        print(f"{dist:<8} {_version(dist)}")
    print("optional:")
    for name, (module, *dists) in _OPTIONAL.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        version = _version(*dists) if found else None
        print(f"  {name:<16} {version or ('installed' if found else '-')}")
    print("devices:")
    print(f"  cpu              {platform.machine()}, {_cpu_count()} cores")
    print(f"  numba cuda       {_numba_cuda()}")
    if _installed("torch"):
        import torch

        print(f"  torch cuda       {torch.cuda.is_available()}")
    if _installed("jax"):
        import jax

        print(
            f"  jax              {[str(d) for d in jax.devices()]}, x64={jax.config.jax_enable_x64}"
        )
    print("settings:", ", ".join(f"{k}={v}" for k, v in vars(settings).items()))
    return 0


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def _numba_cuda() -> str:
    try:
        from numba import cuda

        if cuda.is_available():
            return ", ".join(
                d.name.decode() if isinstance(d.name, bytes) else str(d.name) for d in cuda.gpus
            )
        return "no GPU available"
    except Exception as err:  # pragma: no cover - depends on the machine
        return f"unavailable ({type(err).__name__})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arraygnn", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="end-to-end job on the shipped molecules")
    demo.add_argument("--batch-size", type=int, default=128)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--stage", action="append", help="run only these stages (repeatable)")
    bench = sub.add_parser("bench", help="run the quick benchmarks of a source checkout")
    bench.add_argument("only", nargs="*", help="substrings of benchmark names")
    bench.add_argument("--full", action="store_true", help="full-size inputs (slow)")
    sub.add_parser("info", help="versions, devices, optional packages")
    args = parser.parse_args(argv)
    if args.command == "demo":
        run_demo(batch_size=args.batch_size, seed=args.seed, stages=args.stage)
        return 0
    if args.command == "bench":
        return run_bench(args.only, full=args.full)
    return print_info()


if __name__ == "__main__":
    sys.exit(main())
