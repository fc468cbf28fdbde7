"""Shared pytest configuration.

``tests/cuda`` holds CUDA-kernel tests. They need ``NUMBA_ENABLE_CUDASIM=1`` set before numba
is imported (or a real GPU with CuPy), so the main run collects them only when the simulator
is on or CuPy sees a GPU; ``tests/test_cuda_simulator.py`` runs them in a fresh process.
"""

import os

collect_ignore = []
if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1" and os.environ.get("ARRAYGNN_REAL_GPU") != "1":
    collect_ignore.append("cuda")
