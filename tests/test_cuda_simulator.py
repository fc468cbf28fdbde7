"""Run the CUDA kernel tests (tests/cuda) under Numba's CUDA simulator, in a fresh process.

``NUMBA_ENABLE_CUDASIM=1`` must be set before Numba is imported, so the suite runs in a
subprocess; the simulator executes every CUDA thread in Python, hence tiny graphs and small
launch sizes in tests/cuda.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_cuda_kernels_pass_under_the_simulator():
    pytest.importorskip("numba.cuda")
    env = dict(os.environ)
    env["NUMBA_ENABLE_CUDASIM"] = "1"
    env.pop("ARRAYGNN_REAL_GPU", None)
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/cuda"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    print(output)
    assert proc.returncode == 0, f"CUDA simulator suite failed:\n{output[-6000:]}"
    assert " passed" in output and " failed" not in output
