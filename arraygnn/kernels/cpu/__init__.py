"""Numba CPU kernels (``@njit(cache=True)``), one module per operation.

Same module names, function names and argument lists as :mod:`arraygnn.kernels.cuda`
(the list is in :mod:`arraygnn.kernels`). Importing this package does not import Numba;
``from arraygnn.kernels.cpu import spmm`` does.
"""

__all__: list[str] = []
