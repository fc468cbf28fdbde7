"""arraygnn: array-native graph neural networks for NumPy and CuPy.

Three familiar faces over one engine: PyG-style ``Data`` / ``Batch``, a TF-GNN-style
heterogeneous ``GraphTensor`` and DGL-style message passing, all computing through
:mod:`arraygnn.ops` (Numba CPU kernels for NumPy arrays, Numba CUDA kernels for CuPy).

Importing arraygnn needs only numpy, scipy and numba, compiles nothing and writes
nothing; kernels compile on first use and are cached.
"""

from arraygnn._config import config, settings
from arraygnn._namespace import device_of, get_namespace, to_device, to_numpy

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "config",
    "settings",
    "device_of",
    "get_namespace",
    "to_device",
    "to_numpy",
]
