"""PyG's ``knn_interpolate`` (``torch_geometric.nn.unpool``): features of the points ``x``
carried to the points ``y`` by an inverse-squared-distance average of the ``k`` nearest.

``f(y) = sum_i w_i f(x_i) / sum_i w_i`` with ``w_i = 1 / max(|p(y) - p(x_i)|^2, 1e-16)`` over
the ``k`` nearest points ``x_i`` of ``y`` in the same example (PointNet++'s feature
propagation). The neighbours come from :func:`arraygnn.utils.knn` (an exact k-d tree
search, ties to the lower index); the weights are one ``[E]`` vector (``E <= k M``, the
squared distances summed over the ``D`` coordinates), the numerator one weighted
:func:`arraygnn.ops.spmm` and the denominator one :func:`arraygnn.ops.scatter`: no
``[E, F]`` message array is formed.

RULE: as PyG, the weights are computed in the coordinates' dtype and the quotient is taken
after both sums (``sum(w f) / sum(w)``); the result has torch's promoted dtype of ``x``
and the weights (``x``'s when it is the wider float; an integer or bool ``x``: the
coordinates' float dtype).
RULE: a point of ``y`` without neighbours (its example holds no point of ``x``) gets NaN,
PyG's ``0 / 0``. An example with fewer than ``k`` points of ``x`` averages those it has.
RULE: the neighbour search runs on the host (see :mod:`arraygnn.utils.knn`); the
arithmetic stays on the arrays' device. NumPy in, NumPy out; CuPy in, CuPy out.

>>> import numpy as np
>>> x = np.array([[1.0], [3.0], [10.0]])
>>> pos_x = np.array([[0.0], [2.0], [9.0]])
>>> knn_interpolate(x, pos_x, np.array([[1.0], [9.0]]), k=2).ravel().tolist()
[2.0, 10.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn.utils._checks import check_array_arg, same_device
from arraygnn.utils.knn import knn

__all__ = ["knn_interpolate"]

_WHERE = "knn_interpolate"


def _float_coords(name: str, pos: Any) -> None:
    check_array_arg(_WHERE, name, pos)
    if pos.dtype.kind != "f":
        raise TypeError(
            f"{_WHERE}: {name} must hold floating-point coordinates (PyG's knn takes no "
            f"integers), got dtype {pos.dtype}"
        )


def knn_interpolate(
    x: Any,
    pos_x: Any,
    pos_y: Any,
    batch_x: Any = None,
    batch_y: Any = None,
    k: int = 3,
    num_workers: int = 1,
) -> Any:
    """Interpolate the features ``x`` of the points ``pos_x`` at the points ``pos_y``
    (PyG's ``knn_interpolate``).

    Args:
        x: features ``[N, F]`` of the points ``pos_x`` (float, integer or bool).
        pos_x: coordinates ``[N, D]`` (1-D: one coordinate), floating point.
        pos_y: coordinates ``[M, D]`` of the points to interpolate at.
        batch_x, batch_y: sorted example ids ``[N]`` / ``[M]`` (``None``: one example).
        k: the number of neighbours (``>= 1``; an example with fewer points uses them all).
        num_workers: threads of the k-d tree search.

    Returns ``[M, F]``.

    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> knn_interpolate(np.array([[2.0], [4.0]]), pos, np.array([[0.5, 0.0]]), k=2).tolist()
    [[3.0]]
    """
    check_array_arg(_WHERE, "x", x)
    if x.dtype.kind not in "fiub":
        raise TypeError(f"{_WHERE}: x must hold numbers (float, int or bool), got dtype {x.dtype}")
    if x.ndim != 2:
        raise ValueError(f"{_WHERE}: x must be [N, F], got shape {tuple(x.shape)}")
    _float_coords("pos_x", pos_x)
    _float_coords("pos_y", pos_y)
    xp = same_device(_WHERE, x=x, pos_x=pos_x, pos_y=pos_y, batch_x=batch_x, batch_y=batch_y)
    if int(pos_x.shape[0]) != int(x.shape[0]):
        raise ValueError(
            f"{_WHERE}: x has {int(x.shape[0])} rows but pos_x has {int(pos_x.shape[0])} "
            "(one position per feature row)"
        )
    # neighbours: row 0 indexes pos_y (sorted), row 1 pos_x; checks k, batches, columns
    assign = knn(pos_x, pos_y, k, batch_x, batch_y, num_workers=num_workers)
    y_idx, x_idx = assign[0], assign[1]
    px = pos_x.reshape(-1, 1) if pos_x.ndim == 1 else pos_x
    py = pos_y.reshape(-1, 1) if pos_y.ndim == 1 else pos_y
    wdtype = np.result_type(px.dtype, py.dtype)
    diff = ops.gather(px, x_idx).astype(wdtype, copy=False)
    diff -= ops.gather(py, y_idx)
    squared = (diff * diff).sum(axis=-1)
    with np.errstate(divide="ignore"):  # float16: 1e-16 rounds to 0, a coincident point inf
        weights = 1 / xp.maximum(squared, wdtype.type(1e-16))
    num_y = int(pos_y.shape[0])
    feats = x if x.dtype.kind == "f" else x.astype(wdtype)  # torch: int/bool * float -> float
    top = ops.spmm((x_idx, y_idx), feats, weights, reduce="sum", num_dst_nodes=num_y)
    bottom = ops.scatter(weights, y_idx, num_y, reduce="sum")
    out_dtype = np.result_type(feats.dtype, wdtype)
    with np.errstate(invalid="ignore", divide="ignore"):  # no neighbours: 0 / 0 = NaN
        return (top / bottom[:, None]).astype(out_dtype, copy=False)
