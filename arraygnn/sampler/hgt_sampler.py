"""``HGTSampler``: PyG's sampler behind ``HGTLoader`` as a :class:`BaseSampler`.

:class:`~arraygnn.hgt_loader.HGTLoader`'s budget sampling (its module states the rules)
returning a :class:`HeteroSamplerOutput` for the generic
:class:`~arraygnn.node_loader.NodeLoader`: ``node`` per node type (global ids in draw
order, the seeds first), ``row`` / ``col`` / ``edge`` per edge type (positions in
``node[src]`` / ``node[dst]``; global edge ids), ``batch`` and the per-hop counts ``None``
(as PyG's), ``metadata = (input_id, time)``.

RULE: the same ``seed`` draws what ``HGTLoader(data, num_samples, seed=seed)`` draws for
      the same seed batches in the same order (one stream per sampler).
Differences from PyG: ``edge`` holds the graph's edge ids, so ``edge_permutation`` is
``None`` (PyG gives CSC positions and its permutation); ``sample_from_edges`` raises
``NotImplementedError`` (PyG's returns ``None``); no torch-sparse is needed.

>>> import numpy as np
>>> from arraygnn.hetero_data import HeteroData
>>> from arraygnn.sampler.base import NodeSamplerInput
>>> data = HeteroData(paper={"num_nodes": 4}, author={"num_nodes": 3})
>>> data["author", "writes", "paper"].edge_index = np.array([[0, 1, 2, 2], [0, 0, 1, 3]])
>>> sampler = HGTSampler(data, num_samples=[5])
>>> out = sampler.sample_from_nodes(NodeSamplerInput(None, np.array([0, 1]), None, "paper"))
>>> out.node["paper"].tolist(), out.node["author"].tolist()
([0, 1], [0, 1, 2])
>>> et = ("author", "writes", "paper")
>>> out.row[et].tolist(), out.col[et].tolist(), out.edge[et].tolist()
([0, 1, 2], [0, 0, 1], [0, 1, 2])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn.hgt_loader import HGTLoader
from arraygnn.sampler.base import (
    BaseSampler,
    EdgeSamplerInput,
    HeteroSamplerOutput,
    NegativeSampling,
    NodeSamplerInput,
    _checked_ids,
)

__all__ = ["HGTSampler"]

_WHERE = "HGTSampler"


class _Out(HeteroSamplerOutput):
    """The output, with no stores for ``HGTLoader._subgraph``'s clean-up loop to visit."""

    node_stores: tuple = ()
    edge_stores: tuple = ()


class _Core(HGTLoader):
    """HGTLoader's draws with a :class:`HeteroSamplerOutput` for batches."""

    def _assemble(self, n_ids, edges, num_sampled_nodes, num_sampled_edges):  # type: ignore[override]
        return _Out(
            dict(n_ids), {et: e[0] for et, e in edges.items()},
            {et: e[1] for et, e in edges.items()}, {et: e[2] for et, e in edges.items()},
        )  # fmt: skip


class HGTSampler(BaseSampler):
    """PyG's ``HGTSampler`` (``torch_geometric.sampler``) on arrays.

    Args:
        data: a :class:`~arraygnn.hetero_data.HeteroData` with NumPy arrays (every node
            type's ``num_nodes`` known).
        num_samples: nodes drawn per hop, a list for every node type or
            ``{node_type: [...]}`` (the same number of hops each).
        is_sorted / share_memory: PyG's hints, unused.
        seed: the draws' seed (keyword only).
    """

    def __init__(
        self,
        data: Any,
        num_samples: Sequence[int] | Mapping[str, Sequence[int]],
        is_sorted: bool = False,
        share_memory: bool = False,
        *,
        seed: Any = None,
    ) -> None:
        from arraygnn.hetero_data import HeteroData

        if not isinstance(data, HeteroData):  # PyG: NotImplementedError for a Data
            raise NotImplementedError(
                f"{_WHERE} does not support a data object of type {type(data).__name__} "
                "(a HeteroData is needed)"
            )
        if not data.node_types:
            raise ValueError(f"{_WHERE}: the HeteroData has no node type")
        self.is_sorted, self.share_memory = is_sorted, share_memory
        no_inputs = (data.node_types[0], np.zeros(0, dtype=np.int64))
        excluded = {k for _, s in data.node_items() + data.edge_items() for k in s}
        excluded -= {"num_nodes", "edge_index"}
        try:
            self._core = _Core(
                data, num_samples, no_inputs, node_attrs=[], edge_attrs=[],
                exclude_keys=excluded, seed=seed,
            )  # fmt: skip
        except (TypeError, ValueError) as err:
            head, _, rest = str(err).partition(": ")
            if head != "HGTLoader":
                raise
            raise type(err)(f"{_WHERE}: {rest}") from None
        self.node_types, self.edge_types = data.node_types, data.edge_types
        self.num_samples = self._core.num_samples
        self.num_hops = self._core.num_hops

    def sample_from_nodes(self, index: NodeSamplerInput, **kwargs: Any) -> HeteroSamplerOutput:
        core = self._core
        if index.input_type not in core.num_nodes_dict:
            raise ValueError(
                f"{_WHERE}: input_type {index.input_type!r} is not a node type of the graph "
                f"(node types: {core.node_types})"
            )
        n = core.num_nodes_dict[index.input_type]
        seeds = _checked_ids(
            np, f"{_WHERE}: index.node (node type {index.input_type!r})", index.node, n
        )
        core.input_type = index.input_type
        out = core._subgraph(seeds.copy() if seeds is index.node else seeds)
        out.metadata = (index.input_id, index.time)
        return out

    def sample_from_edges(
        self, index: EdgeSamplerInput, neg_sampling: NegativeSampling | None = None
    ) -> HeteroSamplerOutput:
        raise NotImplementedError(f"{_WHERE} samples around nodes only (no sample_from_edges)")
