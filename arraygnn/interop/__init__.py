"""Zero-copy hand-off of arrays, ``Data`` and ``Batch`` to PyTorch, JAX and PyG, and back.

Each framework is imported only inside the function that needs it, with an ImportError
naming the extra (``pip install 'arraygnn[torch]'``, ``[jax]``, ``[pyg]``).

- :func:`to_torch` / :func:`from_torch`: ``torch.from_numpy`` / ``Tensor.numpy()`` on the
  CPU, DLPack between CuPy and CUDA tensors.
- :func:`to_jax` / :func:`from_jax`: DLPack, with the conditions under which JAX really
  adopts a buffer checked beforehand (alignment, x64, read-only, compact strides).
- :func:`to_pyg` / :func:`from_pyg`: ``torch_geometric.data.Data`` / ``Batch``.
- :func:`to_torch_coo_tensor` / ``csr`` / ``csc`` / :func:`to_torch_sparse_tensor`,
  :func:`from_torch_sparse`, :func:`to_nested_tensor` / :func:`from_nested_tensor`: PyG's
  torch sparse and nested tensor converters (edge lists coalesced here, handed to torch).
- :func:`to_scipy_sparse_matrix` / :func:`from_scipy_sparse_matrix`,
  :func:`to_networkx` / :func:`from_networkx`: PyG's converters (SciPy / cupyx sparse
  matrices, NetworkX graphs); DGL's live in :mod:`arraygnn.graph`.

Every function shares memory where the framework allows, copies only where sharing is
impossible or unsafe, and says so: ``report=True`` returns ``(result, HandoffReport)``,
``strict=True`` raises :class:`HandoffCopyError` instead of copying. See docs/interop.md.
"""

from arraygnn.interop._handoff import (
    JAX_ALIGNMENT,
    HandoffCopyError,
    HandoffReport,
    aligned_copy,
    aligned_empty,
    data_pointer,
)
from arraygnn.interop.jax import from_jax, to_jax
from arraygnn.interop.networkx import from_networkx, to_networkx
from arraygnn.interop.pyg import from_pyg, to_pyg
from arraygnn.interop.scipy import from_scipy_sparse_matrix, to_scipy_sparse_matrix
from arraygnn.interop.torch import from_torch, to_torch
from arraygnn.interop.torch_sparse import (
    from_nested_tensor,
    from_torch_sparse,
    is_sparse,
    is_torch_sparse_tensor,
    to_nested_tensor,
    to_torch_coo_tensor,
    to_torch_csc_tensor,
    to_torch_csr_tensor,
    to_torch_sparse_tensor,
)

__all__ = [
    "JAX_ALIGNMENT",
    "HandoffCopyError",
    "HandoffReport",
    "aligned_copy",
    "aligned_empty",
    "data_pointer",
    "from_jax",
    "from_nested_tensor",
    "from_networkx",
    "from_pyg",
    "from_scipy_sparse_matrix",
    "from_torch",
    "from_torch_sparse",
    "is_sparse",
    "is_torch_sparse_tensor",
    "to_jax",
    "to_nested_tensor",
    "to_networkx",
    "to_pyg",
    "to_scipy_sparse_matrix",
    "to_torch",
    "to_torch_coo_tensor",
    "to_torch_csc_tensor",
    "to_torch_csr_tensor",
    "to_torch_sparse_tensor",
]
