"""Kernels called from several Python threads at once, under every Numba threading layer."""

from __future__ import annotations

import os
import subprocess
import sys

_SCRIPT = """
import threading
import numpy as np
from arraygnn import ops

rng = np.random.default_rng(0)
ei = rng.integers(0, 2000, (2, 20000))
x = rng.standard_normal((2000, 16)).astype(np.float32)
want = ops.spmm(ei, x)
errors = []

def work():
    try:
        for _ in range(30):
            assert np.array_equal(ops.spmm(ei, x), want)
            ops.scatter(x[ei[0]], ei[1], 2000, reduce="max")
            ops.gather(x, ei[0])
    except Exception as err:
        errors.append(err)

threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
import numba
print(numba.threading_layer())
"""


def test_concurrent_kernels_under_the_workqueue_layer():
    """Numba's workqueue layer (its fallback without TBB / OpenMP, e.g. macOS) aborted the
    process when two threads launched parallel kernels at once (a loader's prefetch thread
    and the main thread): the kernels now take turns under that layer."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue", PYTHONPATH=path)
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "workqueue"
