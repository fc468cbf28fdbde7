"""The engine: graph arithmetic on NumPy and CuPy arrays.

Arrays in, arrays out, on the inputs' device: NumPy inputs run Numba CPU kernels, CuPy
inputs run Numba CUDA kernels (imported on first use; ``import arraygnn.ops`` imports
neither Numba nor CuPy). Every function validates its arguments first and raises
``TypeError`` / ``ValueError`` naming the argument at fault; nothing passed in is modified.

- :func:`gather` — rows ``x[index]`` (node -> edge broadcast)
- :func:`scatter` / :func:`segment` — sum / mean / max / min / prod into segments
- :func:`spmm` — fused edge-weighted aggregation over a destination-sorted CSR
- :func:`sddmm` — per-edge add / sub / mul / div / dot / copy between endpoints and edges
- :func:`edge_softmax` — softmax of edge logits over each target's edges
- :func:`gather_mm` / :func:`segment_mm` — per-row products with an indexed / per-segment
  matrix (DGL's names)
- :func:`to_csr` / :class:`CSR` — the cached, destination-sorted CSR every op accepts

RULE: empty segments give 0 for every reduction; mean = sum / max(count, 1).
RULE: the default path is deterministic (same bits on every run and thread count).

>>> import numpy as np
>>> from arraygnn import ops
>>> ei = np.array([[0, 1, 1], [1, 0, 2]])
>>> ops.spmm(ei, np.eye(3), reduce="sum").tolist()
[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
"""

from arraygnn.ops.csr import CSR, to_csr
from arraygnn.ops.edge_softmax import edge_softmax
from arraygnn.ops.gather import gather
from arraygnn.ops.gather_mm import gather_mm, segment_mm
from arraygnn.ops.scatter import scatter, segment
from arraygnn.ops.sddmm import sddmm
from arraygnn.ops.spmm import spmm

__all__ = [
    "CSR",
    "edge_softmax",
    "gather",
    "gather_mm",
    "scatter",
    "sddmm",
    "segment",
    "segment_mm",
    "spmm",
    "to_csr",
]
