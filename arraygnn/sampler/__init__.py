"""PyG's ``torch_geometric.sampler`` on arrays: the interface of custom samplers
(:mod:`arraygnn.sampler.base`) and :class:`NeighborSampler`, arraygnn's neighbour sampling
behind it, for :class:`~arraygnn.node_loader.NodeLoader` /
:class:`~arraygnn.link_loader.LinkLoader` (see ``docs/input_pipelines.md``)."""

from arraygnn.sampler.base import (
    BaseSampler,
    EdgeSamplerInput,
    HeteroSamplerOutput,
    NegativeSampling,
    NegativeSamplingMode,
    NodeSamplerInput,
    SamplerOutput,
)
from arraygnn.sampler.bidirectional_neighbor_sampler import BidirectionalNeighborSampler
from arraygnn.sampler.hgt_sampler import HGTSampler
from arraygnn.sampler.neighbor_sampler import NeighborSampler
from arraygnn.sampler.num_neighbors import NumNeighbors

__all__ = [
    "BaseSampler",
    "BidirectionalNeighborSampler",
    "EdgeSamplerInput",
    "HGTSampler",
    "HeteroSamplerOutput",
    "NegativeSampling",
    "NegativeSamplingMode",
    "NeighborSampler",
    "NodeSamplerInput",
    "NumNeighbors",
    "SamplerOutput",
]
