"""Numba CUDA kernels (``@cuda.jit``) and their host-side launchers.

Same module and function names as :mod:`arraygnn.kernels.cpu`; the launchers take CuPy
arrays (read by Numba through ``__cuda_array_interface__``, no copy) or, under the CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``), NumPy arrays. Importing this package does not
import Numba; import a kernel module (``from arraygnn.kernels.cuda import spmm``) when it
is needed.
"""
