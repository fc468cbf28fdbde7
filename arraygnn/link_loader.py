"""``LinkLoader``: PyG's generic link-level loader around any :class:`BaseSampler`.

Each batch of ``batch_size`` label edges becomes an :class:`EdgeSamplerInput`, goes to
``link_sampler.sample_from_edges(index, neg_sampling)`` and is filtered as
:class:`~arraygnn.node_loader.NodeLoader` filters (attributes, ``n_id``, ``e_id``,
``batch``, ``num_sampled_nodes`` / ``num_sampled_edges``), then gets, from the sampler's
``metadata``: ``input_id`` and, without negatives or ``'binary'``, ``edge_label_index``
(relabelled by the sampler into batch ids), ``edge_label`` and ``edge_label_time``;
``'triplet'``: ``src_index``, ``dst_pos_index``, ``dst_neg_index`` and ``seed_time`` (on the
label edge type's store, or on its source / destination node stores, for a ``HeteroData``).
Before sampling, as PyG: ``neg_sampling_ratio`` (non-zero) means ``NegativeSampling('binary',
ratio)``; with binary negatives, labels whose minimum is 0 are shifted by 1; ``edge_label``
with ``'triplet'`` is an error.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.sampler import NeighborSampler
>>> ring = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
>>> data = Data(x=np.arange(5.0)[:, None], edge_index=ring)
>>> loader = LinkLoader(data, NeighborSampler(data, [-1], seed=0), batch_size=2,
...                     neg_sampling_ratio=1.0)
>>> batch = next(iter(loader))
>>> batch.n_id[batch.edge_label_index[:, :2]].tolist(), batch.edge_label.tolist()
([[0, 1], [1, 2]], [1.0, 1.0, 0.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.neighbor_loader import check_transform
from arraygnn.node_loader import (
    Filter,
    _set,
    _xp,
    batches,
    check_sampler,
    loader_len,
    order_args,
)
from arraygnn.sampler.base import BaseSampler, EdgeSamplerInput, NegativeSampling

__all__ = ["LinkLoader"]

_WHERE = "LinkLoader"


def _label_edges(data: Any, edge_label_index: Any) -> tuple[Any, Any]:
    """``(edge_type, [2, L] int64 ids)`` as PyG's ``get_edge_label_index``, checked."""
    edge_type = None
    if hasattr(data, "edge_types"):
        if edge_label_index is None:
            raise ValueError(f"{_WHERE}: a HeteroData needs edge_label_index=(edge_type, index)")
        if (
            isinstance(edge_label_index, str)
            or isinstance(edge_label_index[0], str)
            and (len(edge_label_index) != 2 or isinstance(edge_label_index[1], str))
        ):
            key, index = edge_label_index, None
        else:
            key, index = edge_label_index
        try:
            edge_type = (
                data._to_canonical(key) if isinstance(key, str) else data._to_canonical(*key)
            )
        except (KeyError, TypeError):
            edge_type = None
        if edge_type not in data.edge_types:
            raise ValueError(
                f"{_WHERE}: {key!r} is not an edge type of the graph ({data.edge_types})"
            )
        sizes = (data[edge_type[0]].num_nodes, data[edge_type[2]].num_nodes)
        if index is None:
            index = data[edge_type].edge_index
    else:
        index = data.edge_index if edge_label_index is None else edge_label_index
        sizes = (data.num_nodes, data.num_nodes)
    if (
        not is_array(index)
        or index.dtype.kind not in "iu"
        or index.ndim != 2
        or index.shape[0] != 2
    ):
        what = tuple(index.shape) if is_array(index) else type(index).__name__
        raise ValueError(f"{_WHERE}: edge_label_index must be an integer [2, L] array, got {what}")
    for row, n in zip(index, sizes):
        if row.shape[0] and (int(row.min()) < 0 or int(row.max()) >= n):
            raise ValueError(f"{_WHERE}: edge_label_index has a node outside [0, {n})")
    return edge_type, index.astype(np.int64)


def _per_edge(what: str, value: Any, count: int) -> Any:
    if value is None:
        return None
    if not is_array(value) or value.ndim == 0 or int(value.shape[0]) != count:
        shape = tuple(value.shape) if is_array(value) else type(value).__name__
        raise ValueError(
            f"{_WHERE}: {what} must have one row per label edge ({count}), got {shape}"
        )
    return value


def _check_metadata(meta: tuple, triplet: bool, num_src: int, num_dst: int) -> None:
    """The sampler's batch positions in ``meta`` are integers inside the batch's nodes of
    their type (checked before a model indexes with them; PyG checks nothing)."""
    from arraygnn.ops._common import check_index

    def positions(what: str, value: Any, size: int) -> None:
        if value is not None:
            check_index(f"{_WHERE}: the sampler's metadata {what}", value, size,
                        ndim=getattr(value, "ndim", 1))  # fmt: skip

    if triplet:
        positions("src_index", meta[1], num_src)
        positions("dst_pos_index", meta[2], num_dst)
        positions("dst_neg_index", meta[3], num_dst)
        return
    index = meta[1]
    if index is None:
        return
    if not is_array(index) or index.ndim != 2 or int(index.shape[0]) != 2:
        what = tuple(index.shape) if is_array(index) else type(index).__name__
        raise ValueError(
            f"{_WHERE}: the sampler's metadata edge_label_index must be a [2, L] array of "
            f"batch positions, got {what}"
        )
    positions("edge_label_index[0]", index[0], num_src)
    positions("edge_label_index[1]", index[1], num_dst)


class LinkLoader:
    """PyG's ``LinkLoader``: link-level mini-batches from any sampler.

    Args:
        data: a :class:`~arraygnn.data.Data` or :class:`~arraygnn.hetero_data.HeteroData`.
        link_sampler: a :class:`~arraygnn.sampler.BaseSampler` (``sample_from_edges``).
        edge_label_index: ``[2, L]`` label edges (``None``: the graph's edges); for a
            ``HeteroData`` ``(edge_type, index | None)`` or an edge type.
        edge_label / edge_label_time: per label edge, or ``None``.
        neg_sampling: a :class:`~arraygnn.sampler.NegativeSampling`, a mode name, a
            ``(mode, amount)`` tuple or a dict; ``neg_sampling_ratio``: PyG's older
            spelling of ``('binary', ratio)`` (it wins when both are given, as PyG).
        transform / transform_sampler_output / filter_per_worker / custom_cls /
            input_id / batch_size / shuffle / drop_last / seed / node_attrs / edge_attrs /
            exclude_keys: as :class:`~arraygnn.node_loader.NodeLoader`; ``data``'s own
            ``edge_label_index`` / ``edge_label`` / ``edge_label_time`` are left out of the
            batches.
    """

    def __init__(
        self,
        data: Any,
        link_sampler: BaseSampler,
        edge_label_index: Any = None,
        edge_label: Any = None,
        edge_label_time: Any = None,
        neg_sampling: Any = None,
        neg_sampling_ratio: float | None = None,
        transform: Callable[[Any], Any] | None = None,
        transform_sampler_output: Callable[[Any], Any] | None = None,
        filter_per_worker: bool | None = None,
        custom_cls: Any = None,
        input_id: Any = None,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        exclude_keys: Iterable[str] = (),
        **kwargs: Any,
    ) -> None:
        self.data = data
        self.link_sampler = check_sampler(_WHERE, link_sampler, "sample_from_edges")
        self.transform = check_transform(transform)
        self.transform_sampler_output = check_transform(transform_sampler_output)
        self.filter_per_worker, self.custom_cls = filter_per_worker, custom_cls
        order_args(self, _WHERE, kwargs)
        excluded = tuple(exclude_keys) + ("edge_label_index", "edge_label", "edge_label_time")
        self._filter = Filter(_WHERE, data, node_attrs, edge_attrs, excluded)
        if neg_sampling_ratio is not None and neg_sampling_ratio != 0.0:
            neg_sampling = NegativeSampling("binary", neg_sampling_ratio)
        self.neg_sampling = NegativeSampling.cast(neg_sampling)
        edge_type, index = _label_edges(data, edge_label_index)
        count = int(index.shape[1])
        edge_label = _per_edge("edge_label", edge_label, count)
        edge_label_time = _per_edge("edge_label_time", edge_label_time, count)
        neg = self.neg_sampling
        if neg is not None and neg.is_binary() and edge_label is not None:
            if edge_label.size and float(edge_label.min()) == 0:
                edge_label = edge_label + 1  # PyG: 0 is the negatives' class (a new array)
        if neg is not None and neg.is_triplet() and edge_label is not None:
            raise ValueError(
                f"{_WHERE}: 'edge_label' needs to be undefined for 'triplet'-based negative "
                "sampling; use the batch's src_index, dst_pos_index and dst_neg_index"
            )
        if input_id is not None:
            input_id = _xp(index).asarray(input_id)
            if input_id.shape != (count,):
                raise ValueError(
                    f"{_WHERE}: input_id must have {count} entries, one per label edge"
                )
        self.edge_label_index = index
        self.input_data = EdgeSamplerInput(
            input_id, index[0], index[1], edge_label, edge_label_time, edge_type
        )

    def __len__(self) -> int:
        return loader_len(self, int(self.input_data.row.shape[0]))

    def __iter__(self) -> Iterator[Any]:
        count = int(self.input_data.row.shape[0])
        for positions in batches(self, _WHERE, count):
            yield self(positions)

    def __call__(self, index: Any) -> Any:
        """The batch of the label edges at positions ``index`` (sampled, then filtered)."""
        inputs = self.input_data[index]
        out = self.link_sampler.sample_from_edges(inputs, neg_sampling=self.neg_sampling)
        return self.filter_fn(out)

    def filter_fn(self, out: Any) -> Any:
        """The batch of a sampler output (PyG's ``filter_fn``)."""
        if self.transform_sampler_output is not None:
            out = self.transform_sampler_output(out)
        batch = self._filter(out, self.link_sampler.edge_permutation)
        meta = out.metadata
        triplet = self.neg_sampling is not None and self.neg_sampling.is_triplet()
        if meta is None or len(meta) < (5 if triplet else 4):
            what = (
                "(input_id, src_index, dst_pos_index, dst_neg_index, seed_time)" if triplet
                else "(input_id, edge_label_index, edge_label, edge_label_time)"
            )  # fmt: skip
            raise ValueError(
                f"{_WHERE}: the sampler's output must carry metadata={what} (PyG's contract)"
            )
        edge_type = self.input_data.input_type
        label = batch if edge_type is None else batch[edge_type]
        src = batch if edge_type is None else batch[edge_type[0]]
        dst = batch if edge_type is None else batch[edge_type[-1]]
        _check_metadata(meta, triplet, int(src.num_nodes), int(dst.num_nodes))
        label.input_id = meta[0]
        if not triplet:
            for name, value in zip(
                ("edge_label_index", "edge_label", "edge_label_time"), meta[1:4]
            ):
                _set(label, name, value)
        else:
            src.src_index, dst.dst_pos_index, dst.dst_neg_index = meta[1], meta[2], meta[3]
            _set(src, "seed_time", meta[4])
            _set(dst, "seed_time", meta[4])
        return batch if self.transform is None else self.transform(batch)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
