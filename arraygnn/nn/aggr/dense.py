"""The base of PyG's aggregations that read each group as a padded sequence (LSTM, GRU,
MLP, LCM, Set Transformer, Graph Multiset Transformer, Patch Transformer).

``aggr(x, index=None, ptr=None, dim_size=None, dim=-2, max_num_elements=None)``: the slices
of ``x`` are laid out as PyG's ``to_dense_batch`` does, ``[G, M, F]`` with group ``g``'s
slices in order at ``[g, :count_g]``, zeros after them and a mask of the real ones; ``M`` is
``max_num_elements`` (slices beyond it are dropped) or the largest group.

RULE: as PyG's ``Aggregation.to_dense_batch``: ``x`` is two-dimensional and aggregated along
dim 0 / -2, and ``index`` is sorted (non-decreasing); an unsorted one is a ``ValueError``
naming the aggregation. PyG needs ``index``; a ``ptr`` works here too, and with neither all
of ``x`` is one group.

>>> import numpy as np
>>> from arraygnn.nn.aggr.base import Groups
>>> groups = Groups("demo", np.arange(3.0)[:, None], np.array([0, 0, 2]), None, None, -2)
>>> out, mask = dense_batch("demo", groups)
>>> out[..., 0].tolist(), mask.tolist()
([[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]], [[True, True], [False, False], [True, False]])
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn._graph_input import check_float_features
from arraygnn.nn._module import layer_size
from arraygnn.nn.aggr.base import Aggregation, Groups

__all__ = ["DenseAggregation", "dense_batch"]


def dense_batch(
    where: str, groups: Groups, values: Any = None, max_num_elements: int | None = None
) -> tuple[Any, Any]:
    """``(dense [G, M, F], mask [G, M])`` of ``values`` (``groups.x0`` when None; rows
    aligned with it), PyG's ``to_dense_batch`` with zeros as padding."""
    from arraygnn.utils.dense import to_dense_batch

    groups.require_matrix("reading each group as a sequence")
    index = groups.index
    if index is not None and index.shape[0] > 1 and not bool((index[1:] >= index[:-1]).all()):
        raise ValueError(
            f"{where}: index must be sorted (non-decreasing): {where} reads each group as a "
            "sequence; sort edge_index by destination first (PyG: data.sort(sort_by_row=False))"
        )
    if max_num_elements is not None:
        max_num_elements = layer_size(where, "max_num_elements", max_num_elements)
    values = groups.x0 if values is None else values
    return to_dense_batch(values, groups.group_ids(), 0.0, max_num_elements, groups.size)


class DenseAggregation(Aggregation):
    """An aggregation over PyG's dense batch of the groups; subclasses implement
    ``_dense_forward(groups, max_num_elements) -> [G, ...]``."""

    def __call__(
        self,
        x: Any,
        index: Any = None,
        ptr: Any = None,
        dim_size: int | None = None,
        dim: int = -2,
        max_num_elements: int | None = None,
    ) -> Any:
        groups = Groups(type(self).__name__, x, index, ptr, dim_size, dim)
        return self._forward_checked(groups, max_num_elements)

    def _forward(self, groups: Groups) -> Any:
        return self._forward_checked(groups, None)

    def _forward_checked(self, groups: Groups, max_num_elements: int | None) -> Any:
        # learnt weights: integer x is refused, as PyG's (torch's dtype check)
        check_float_features(type(self).__name__, groups.x, what="x")
        return self._dense_forward(groups, max_num_elements)

    def _dense_forward(self, groups: Groups, max_num_elements: int | None) -> Any:
        raise NotImplementedError  # pragma: no cover - abstract

    def dense(
        self,
        groups: Groups,
        values: Any = None,
        max_num_elements: int | None = None,
        need_steps: bool = True,
    ) -> tuple[Any, Any]:
        """:func:`dense_batch` named after this aggregation; with ``need_steps`` a
        ``ValueError`` when it has no column (every group empty: PyG fails then too)."""
        where = type(self).__name__
        dense, mask = dense_batch(where, groups, values, max_num_elements)
        if need_steps and dense.shape[1] == 0:
            raise ValueError(
                f"{where}: every group is empty (or max_num_elements=0); {where} needs at "
                "least one element to read (PyG's fails here too)"
            )
        return dense, mask
