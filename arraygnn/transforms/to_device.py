"""PyG's ``ToDevice`` transform: the arrays of a ``Data`` / ``HeteroData`` moved to a
device (``'cpu'``, ``'cuda'``, ``'cuda:N'``) by :func:`arraygnn.to_device`.

NumPy arrays go to CuPy on ``'cuda'`` and CuPy arrays to NumPy on ``'cpu'``; arrays already
there are shared, not copied. SciPy sparse matrices (``ToSparseTensor``'s ``adj_t``) move
too: to ``cupyx.scipy.sparse`` on a GPU and back to ``scipy.sparse`` on ``'cpu'`` (PyG's
``SparseTensor`` moves with ``data.to`` as well). Arrays inside lists, tuples and dicts
move too, in new containers, as PyG's ``recursive_apply`` moves them (a tuple stays a
tuple here; PyG's comes back as a list). Other values (ints, strings) stay.

RULE: ``attrs`` (PyG's ``data.to(device, *attrs)``) moves only the named keys, in every store
of a ``HeteroData``; a name no store holds is skipped, as PyG.
RULE: ``non_blocking`` is accepted for PyG compatibility; the copies are CuPy's ordinary
(blocking) transfers.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.ones((2, 1)), num_nodes=2)
>>> moved = ToDevice("cpu")(d)
>>> moved.x is d.x, moved is d, ToDevice("cuda:1")
(True, False, ToDevice(cuda:1))
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from arraygnn._namespace import _check_device, import_cupy, is_array, map_container, to_device
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._graph import check_data
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg

__all__ = ["ToDevice"]


def _device(value: Any) -> str:
    """PyG's ``device``: a string, an int ``N`` for ``'cuda:N'`` (torch's meaning), or a
    ``torch.device`` (read by its name, as PyG documents the argument)."""
    if type(value).__name__ == "device" and type(value).__module__.startswith("torch"):
        value = str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"ToDevice: device must be a GPU number >= 0, got {value}")
        return f"cuda:{value}"
    try:
        return _check_device(value)
    except (TypeError, ValueError) as err:
        raise type(err)(f"ToDevice: {err} (or an int N for 'cuda:N')") from None


def _is_sparse_matrix(value: Any) -> bool:
    scipy_sparse = sys.modules.get("scipy.sparse")
    cupyx_sparse = sys.modules.get("cupyx.scipy.sparse")
    return any(m is not None and m.issparse(value) for m in (scipy_sparse, cupyx_sparse))


def _move_sparse(value: Any, device: str) -> Any:
    """A SciPy / cupyx sparse matrix on ``device`` (the same object when it is there)."""
    on_gpu = not type(value).__module__.startswith("scipy")
    if device == "cpu":
        return value.get() if on_gpu else value
    cupy = import_cupy()
    import cupyx.scipy.sparse

    if value.dtype.char not in "?fdFD":  # cupyx refuses other dtypes deep inside
        raise TypeError(
            f"ToDevice: a sparse matrix of dtype {value.dtype} cannot move to {device}: cupyx "
            "sparse matrices hold bool, float32, float64 or complex values only (cast it first)"
        )

    index = int(device.split(":")[1]) if ":" in device else cupy.cuda.Device().id
    if on_gpu and value.data.device.id == index:
        return value
    with cupy.cuda.Device(index):
        if on_gpu:
            value = value.get()
        make = getattr(cupyx.scipy.sparse, f"{value.format}_matrix", None)
        if make is None:  # a format cupyx lacks (lil, dok, bsr): as CSR
            value, make = value.tocsr(), cupyx.scipy.sparse.csr_matrix
        return make(value)


def _move(value: Any, device: str) -> Any:
    """``value`` on ``device``; the arrays inside lists, tuples and dicts too, in new
    containers (:func:`arraygnn._namespace.map_container`); the caller's are not changed."""
    if is_array(value):
        return to_device(value, device)
    if _is_sparse_matrix(value):
        return _move_sparse(value, device)
    moved = map_container(value, lambda _, item: _move(item, device))
    return value if moved is NotImplemented else moved


def _mappings(data: Any) -> list[dict[str, Any]]:
    """The key -> value dicts of every store of ``data`` (a transform's own copy)."""
    if isinstance(data, HeteroData):
        return [data._global, *(s._mapping for s in data.node_stores + data.edge_stores)]
    return [data._store]


class ToDevice(BaseTransform):
    """Move the arrays of a graph to ``device`` (PyG's ``ToDevice``).

    Args:
        device: ``'cpu'``, ``'cuda'``, ``'cuda:N'``, an int ``N`` (``'cuda:N'``) or a
            ``torch.device`` of those.
        attrs: move only these keys (default: every array).
        non_blocking: accepted for PyG compatibility (no effect).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> ToDevice("cpu", attrs=["x"])(Data(x=np.zeros(1), y=np.ones(1))).x.tolist()
    [0.0]
    """

    def __init__(
        self,
        device: int | str,
        attrs: Iterable[str] | None = None,
        non_blocking: bool = False,
    ) -> None:
        self.device = _device(device)
        names = [attrs] if isinstance(attrs, str) else list(attrs or [])
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"ToDevice: attrs must hold attribute names, got {name!r}")
        self.attrs = names
        self.non_blocking = bool_arg("ToDevice", "non_blocking", non_blocking)

    def forward(self, data: Any) -> Any:
        check_data("ToDevice", data)
        wanted = set(self.attrs)
        for mapping in _mappings(data):
            for key, value in list(mapping.items()):
                if not wanted or key in wanted:
                    mapping[key] = _move(value, self.device)
        return data

    def __repr__(self) -> str:
        return f"ToDevice({self.device})"
