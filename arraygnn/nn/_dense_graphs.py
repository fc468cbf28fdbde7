"""Node rows laid out per graph, as PyG's global-attention models do it (private).

PyG's ``SGFormer`` and ``Polynormer`` sort ``batch`` (so it need not be sorted), pad each
graph's nodes to the largest graph's count with :func:`arraygnn.utils.to_dense_batch`
(``[B, N_max, C]`` and a mask), attend within each graph and put the rows back in the
caller's order. :class:`DenseGraphs` does the same; ``batch=None`` is one graph without
padding (``x[None]``, no mask; PyG's models need ``batch``).

RULE: the padded rows are computed as PyG computes them (zeros going through the layers) and
      enter the attention as PyG's do: a graph's output depends on ``N_max``, i.e. on the
      other graphs of the batch, exactly as in PyG.

>>> import numpy as np
>>> x = np.arange(3.0)[:, None]
>>> layout = DenseGraphs("Model", np.array([1, 0, 1]), x)
>>> dense, mask = layout.pack(x)
>>> dense[..., 0].tolist(), mask.tolist()
([[1.0, 0.0], [0.0, 2.0]], [[True, False], [True, True]])
>>> layout.unpack(dense)[:, 0].tolist()
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.utils._checks import check_int_array, same_device

__all__ = ["DenseGraphs"]


class DenseGraphs:
    """``batch`` ``[N]`` graph ids (any order; ``None``: one graph) for the ``N`` rows of
    ``x`` (checked to be on ``x``'s device; the rows packed later are ``x`` or computed
    from it)."""

    def __init__(self, where: str, batch: Any, x: Any) -> None:
        self.where = where
        self.batch = batch
        self.order: Any = None
        self.inverse: Any = None
        self.mask: Any = None  # after pack: the padding mask, None without padding
        if batch is None:
            return
        check_int_array(where, "batch", batch)
        same_device(where, x=x, batch=batch)
        num_rows = int(x.shape[0])
        if batch.ndim != 1 or batch.shape[0] != num_rows:
            raise ValueError(
                f"{where}: batch must have shape ({num_rows},), one graph id per node, got "
                f"{tuple(batch.shape)}"
            )
        if num_rows > 1 and not bool((batch[1:] >= batch[:-1]).all()):
            xp = get_namespace(batch)
            self.order = xp.argsort(batch, kind="stable")  # PyG sorts batch first
            self.inverse = xp.empty_like(self.order)
            self.inverse[self.order] = xp.arange(num_rows, dtype=self.order.dtype)
            self.batch = batch[self.order]

    def pack(self, x: Any) -> tuple[Any, Any]:
        """``x`` ``[N, C]`` -> ``(dense [B, N_max, C], mask [B, N_max] or None)``; the mask
        is ``None`` when no row is padding (one graph, or graphs of one size)."""
        if self.batch is None:
            return x[None], None
        from arraygnn.utils.dense import to_dense_batch

        if self.order is not None:
            x = x[self.order]
        try:
            dense, mask = to_dense_batch(x, self.batch)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{self.where}: {err}") from None
        self.mask = None if bool(mask.all()) else mask
        return dense, self.mask

    def unpack(self, dense: Any) -> Any:
        """``dense`` ``[B, N_max, C]`` -> ``[N, C]`` in the caller's row order."""
        if self.batch is None:
            return dense[0]
        if self.mask is None:
            out = dense.reshape((-1,) + tuple(dense.shape[2:]))
        else:
            out = dense[self.mask]
        return out if self.inverse is None else out[self.inverse]
