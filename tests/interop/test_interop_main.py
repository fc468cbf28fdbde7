"""`python -m arraygnn demo | info | bench`: runs, reports the real sizes of the shipped data."""

import importlib.util
import os
import subprocess
import sys

import pytest

NUM_GRAPHS, NUM_ATOMS, NUM_EDGES = 4991, 81986, 168634


def run_cli(*args, timeout=120):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.run(
        [sys.executable, "-m", "arraygnn", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_demo_subprocess():
    pytest.importorskip("arraygnn.loader")
    proc = run_cli("demo")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert f"[load] {NUM_GRAPHS:,} NCI molecules" in out
    assert f"{NUM_ATOMS:,} nodes, {NUM_EDGES:,} edges" in out
    assert "graphs/s" in out and "[done]" in out
    if importlib.util.find_spec("torch") is not None:
        assert "[handoff] to_torch:" in out
        assert "(zero-copy: yes)" in out.split("[handoff] to_torch:")[1].splitlines()[0]
    if importlib.util.find_spec("jax") is not None:
        assert "[handoff] to_jax:" in out


def test_demo_stages_in_process():
    pytest.importorskip("arraygnn.loader")
    from arraygnn.__main__ import run_demo

    ctx = run_demo(batch_size=100, quiet=True, stages=["load", "batch"])
    r = ctx.results
    assert r["num_graphs"] == NUM_GRAPHS
    assert r["num_batches"] == -(-NUM_GRAPHS // 100)
    # one epoch visits every molecule once: totals equal the dataset's
    assert r["total_nodes"] == NUM_ATOMS and r["total_edges"] == NUM_EDGES
    assert r["graphs_per_second"] > 0
    assert ctx.batch.num_graphs == 100


def test_demo_bad_arguments():
    from arraygnn.__main__ import run_demo

    with pytest.raises(ValueError, match="unknown demo stage"):
        run_demo(quiet=True, stages=["nope"])
    with pytest.raises(ValueError, match="batch_size"):
        run_demo(quiet=True, batch_size=0)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        run_demo(quiet=True, seed=-1)


def test_demo_stage_runs_the_stages_it_reads_from():
    pytest.importorskip("arraygnn.loader")
    from arraygnn.__main__ import run_demo

    # "batch" alone used to fail (no dataset): it now loads first; "handoff" batches first
    ctx = run_demo(batch_size=1000, quiet=True, stages=["batch"])
    assert ctx.results["num_graphs"] == NUM_GRAPHS and ctx.batch is not None
    assert "regression" not in ctx.results


def test_info(capsys):
    from arraygnn.__main__ import main

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "numpy" in out and "optional:" in out and "devices:" in out


def test_bench_unknown_name_fails_cleanly():
    proc = run_cli("bench", "no-such-benchmark")
    assert proc.returncode == 1
    assert "no benchmarks found" in proc.stdout
