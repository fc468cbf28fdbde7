"""Kernels called from several Python threads at once, under every Numba threading layer."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


_POLICY_SCRIPT = """
import os
import numba
import numpy as np
from numba.np.ufunc import parallel
from arraygnn import ops
from arraygnn.kernels.cpu import _threads

before = os.environ.get("OMP_WAIT_POLICY")
spin = os.environ.get("GOMP_SPINCOUNT")
assert not parallel._is_initialized
ops.gather(np.ones((3, 2), np.float32), np.array([0, 2]))  # the first kernel starts them
assert parallel._is_initialized
assert os.environ.get("OMP_WAIT_POLICY") == before  # removed again / the user's kept
assert os.environ.get("GOMP_SPINCOUNT") == spin
assert _threads.start_threads() is False  # once only
print(numba.threading_layer(), before)
"""


def _run(script, **env_changes):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(env_changes, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_first_kernel_starts_numba_threads_with_sleeping_workers():
    """The first CPU kernel starts Numba's threads with the wait settings set only
    while its OpenMP runtime loads (the environment is as before afterwards), and leaves
    a policy the user chose (OMP_WAIT_POLICY or GOMP_SPINCOUNT) alone."""
    layer, before = _run(_POLICY_SCRIPT)
    assert before == "None" and layer in ("omp", "tbb", "workqueue")
    assert _run(_POLICY_SCRIPT, OMP_WAIT_POLICY="ACTIVE")[1] == "ACTIVE"
    assert _run(_POLICY_SCRIPT, GOMP_SPINCOUNT="1000")[1] == "None"
    assert _run(_POLICY_SCRIPT, NUMBA_THREADING_LAYER="workqueue")[0] == "workqueue"


_SET_SCRIPT = """
import os
from unittest import mock
from numba.np.ufunc import parallel
from arraygnn.kernels.cpu import _threads

seen = []
def record():
    seen.append(os.environ.get("OMP_WAIT_POLICY"))
    seen.append(os.environ.get("GOMP_SPINCOUNT"))

with mock.patch.object(parallel, "_launch_threads", record):
    print(_threads.start_threads(), *seen)
"""


def test_the_policy_is_set_while_the_runtime_loads():
    """What Numba's OpenMP runtime reads when it loads: sleep after a short spin, unless
    the user set either variable."""
    assert _run(_SET_SCRIPT) == ["True", "PASSIVE", "3000"]
    assert _run(_SET_SCRIPT, OMP_WAIT_POLICY="active") == ["False", "active", "None"]
    assert _run(_SET_SCRIPT, GOMP_SPINCOUNT="5") == ["False", "None", "5"]


_FAIL_SCRIPT = """
import os
from unittest import mock
from numba.np.ufunc import parallel
from arraygnn.kernels.cpu import _threads

def fail():
    raise ValueError("No threading layer could be loaded.")

with mock.patch.object(parallel, "_launch_threads", fail):
    print(_threads.start_threads(), os.environ.get("OMP_WAIT_POLICY"))
"""


def test_a_layer_that_cannot_load_is_left_to_numba():
    """A threading layer that cannot load fails where it did before (the first parallel
    kernel, Numba's message), not when the threads are started; the environment is
    restored either way."""
    assert _run(_FAIL_SCRIPT) == ["False", "None"]


_SHARED_SCRIPT = """
import sys
if sys.argv[1] == "torch":
    import torch  # loads its libgomp before Numba's threads start
import numpy as np
from threadpoolctl import threadpool_info
from arraygnn import ops
from arraygnn.kernels.cpu import _threads
from arraygnn.nn.linear import matmul

def blas_threads():
    return ",".join(str(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas")

ops.gather(np.ones((4, 2)), np.array([0, 1]))  # the first kernel starts Numba's threads
before = blas_threads()
with _threads.small_product(1e3):
    inside = blas_threads()
with _threads.small_product(1e12):
    large = blas_threads()
a, b = np.random.rand(30, 8), np.random.rand(8, 3)
assert np.array_equal(matmul(a, b), a @ b)
import threading
from threadpoolctl import threadpool_limits
other = []

def worker():  # another thread's limit still works after the main thread's products
    with threadpool_limits(limits=1, user_api="blas"):
        other.append(blas_threads())

t = threading.Thread(target=worker)
t.start()
t.join()
print(_threads.shared_openmp(), before, inside, large, blas_threads(), other[0])
"""


def test_small_products_run_on_one_blas_thread_next_to_torchs_runtime():
    """With torch imported first Numba shares torch's libgomp, whose workers spin after each
    kernel; a small BLAS product then waited ~3.7 ms for the second core. Such products now
    run on one BLAS thread (and the count is restored); without torch nothing changes."""
    pytest.importorskip("threadpoolctl")
    plain = _run(_SHARED_SCRIPT.replace("sys.argv[1]", "'none'"))
    assert plain[0] == "False"
    assert plain[1] == plain[2] == plain[3] == plain[4]  # no limit anywhere
    pytest.importorskip("torch")
    shared = _run(_SHARED_SCRIPT.replace("sys.argv[1]", "'torch'"))
    if shared[0] != "True":
        pytest.skip(f"Numba does not share torch's OpenMP runtime here: {shared}")
    assert set(shared[2].split(",")) == {"1"} and shared[1] == shared[3] == shared[4]
    assert set(shared[5].split(",")) == {"1"}  # threadpoolctl's OpenBLAS control released
