"""Review of session 9 (lead's commits): lazy-import lock after fork, PyG's functions in a
traced model called with keywords / dim=-2."""

import os
import subprocess
import sys

import numpy as np
import pytest

_FORK_CHILD = """
import os, threading, time
from arraygnn import _lazy
held, release = threading.Event(), threading.Event()
def hold():
    with _lazy._LOCK:
        held.set(); release.wait()
t = threading.Thread(target=hold); t.start(); held.wait()
pid = os.fork()
if pid == 0:
    t0 = time.perf_counter(); import arraygnn; arraygnn.Data
    os._exit(0 if time.perf_counter() - t0 < 2 else 1)
release.set(); t.join()
_, status = os.waitpid(pid, 0)
raise SystemExit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_lazy_lock_held_by_a_thread_at_fork_does_not_stall_the_child():
    # a thread of the parent mid first-use when the process forks: the child's first use
    # used to wait the lock's 5 s timeout
    run = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", _FORK_CHILD], capture_output=True, timeout=60
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]


try:
    import torch
    import torch_geometric.nn as pyg_nn
    from torch_geometric.nn import global_add_pool, global_max_pool, global_mean_pool
    from torch_geometric.utils import scatter, softmax
except ImportError:  # pragma: no cover - torch / PyG missing: the test below skips
    torch = None
else:
    torch.fx.wrap("global_add_pool")
    torch.fx.wrap("global_mean_pool")
    torch.fx.wrap("global_max_pool")
    torch.fx.wrap("scatter")
    torch.fx.wrap("softmax")

    class _Model(torch.nn.Module):
        def forward(self, x, batch):
            parts = [
                global_mean_pool(x, batch=batch, size=3),
                global_max_pool(x=x, batch=batch, size=3),
                global_add_pool(x, batch, 3),
            ]
            for reduce in ("mean", "max", "min", "mul"):
                parts.append(scatter(x, batch, dim=-2, dim_size=3, reduce=reduce))
                parts.append(scatter(x, batch, 0, 3, reduce))
            return torch.cat(parts, 1), softmax(src=x[:, 0], index=batch, num_nodes=3)


@pytest.mark.skipif(torch is None, reason="needs torch and torch_geometric")
def test_traced_pyg_functions_with_keywords_and_negative_dim():
    import arraygnn.nn as agnn

    model = _Model().eval()
    x = np.random.default_rng(0).standard_normal((5, 2)).astype(np.float32)
    batch = np.array([0, 0, 2, 2, 2])  # graph 1 empty
    got = agnn.from_pyg(pyg_nn.fx.symbolic_trace(model))(x, batch)
    want = model(torch.from_numpy(x), torch.from_numpy(batch))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-5, atol=1e-6)
