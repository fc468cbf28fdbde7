"""Hand a batch of molecules to PyTorch and JAX without copying, and see what would copy.

Runs with NumPy only; the PyTorch / JAX parts run where those are installed.

    python examples/interop_handoff.py
"""

import importlib.util

import numpy as np

from arraygnn.datasets import load_molecules
from arraygnn.interop import HandoffCopyError, aligned_copy, data_pointer
from arraygnn.loader import DataLoader

dataset = load_molecules()
loader = DataLoader(dataset, batch_size=256, shuffle=True, seed=0)
batch = next(iter(loader))
print(f"{len(dataset)} molecules; first batch: {batch!r}")

# Reference computed with NumPy: heavy atoms per molecule, from the batch vector.
atoms_per_graph = np.bincount(batch.batch, minlength=batch.num_graphs)

if importlib.util.find_spec("torch") is not None:
    import torch

    from arraygnn.interop import from_torch, to_torch

    tb, report = to_torch(batch, report=True)
    print(report)
    assert tb.x.data_ptr() == batch.x.ctypes.data  # the same memory, no copy
    counts = torch.zeros(batch.num_graphs, dtype=torch.int64)
    counts.index_add_(0, tb.batch, torch.ones_like(tb.batch))
    assert np.array_equal(counts.numpy(), atoms_per_graph)

    before = batch.y.copy()
    tb.y.mul_(2.0)  # a write through the tensor ...
    assert np.array_equal(batch.y, 2.0 * before)  # ... is visible in NumPy
    tb.y.div_(2.0)
    assert from_torch(tb.y).ctypes.data == batch.y.ctypes.data  # and back, still shared

    # Hazards are copied and reported, or refused with strict=True.
    reversed_x = batch.x[::-1]
    _, report = to_torch(reversed_x, report=True)
    print("reversed view:", report)
    try:
        to_torch(reversed_x, strict=True)
    except HandoffCopyError as err:
        print("strict:", err)
else:
    print("torch not installed: pip install 'arraygnn[torch]' to try the PyTorch hand-off")

if importlib.util.find_spec("jax") is not None:
    import jax

    from arraygnn.interop import to_jax

    # Collated arrays are 64-byte aligned, so JAX adopts them; int64 indices would be
    # narrowed (a copy) unless x64 is on, so this example turns it on for the hand-off.
    with jax.enable_x64(True):
        jb, report = to_jax(batch, report=True)
        print(report)
        counts = jax.ops.segment_sum(
            jax.numpy.ones_like(jb.batch), jb.batch, num_segments=batch.num_graphs
        )
        assert np.array_equal(np.asarray(counts), atoms_per_graph)
    shared = data_pointer(jb.x) == data_pointer(batch.x)
    print(f"jax x aliased: {'yes' if shared else 'no'}")

    # A big NumPy array usually sits 16 bytes past a 64-byte boundary: JAX would copy it
    # silently; arraygnn reports it, and aligned_copy makes an adoptable array.
    features = np.random.default_rng(0).random((200_000, 4), dtype=np.float32)
    _, report = to_jax(features, report=True)
    print("plain array:", report)
    _, report = to_jax(aligned_copy(features), report=True)
    print("aligned copy:", report)
else:
    print("jax not installed: pip install 'arraygnn[jax]' to try the JAX hand-off")
