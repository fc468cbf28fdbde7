"""Input pipelines: feature mapping, readout and labels, batching, padding streams, sharding.

Padding itself lives in :mod:`arraygnn.padding`; TFRecord and ``tf.Example`` reading in
:mod:`arraygnn.io.tfrecord` and :mod:`arraygnn.io.example`. Nothing here imports Numba.
"""

from arraygnn.pipeline.batching import (
    FilterWithSummary,
    GraphBatchLoader,
    PadBatches,
    batch_graphs,
    dataset_filter_with_summary,
    dynamic_batch,
    fit_or_skip,
    merge_graphs,
    per_replica_batch_size,
    shard,
    shard_dataset,
)
from arraygnn.pipeline.layers import PadToTotalSizes, ParseExample, ParseSingleExample
from arraygnn.pipeline.map_features import MapFeatures, map_features
from arraygnn.pipeline.readout import (
    Readout,
    ReadoutFirstNode,
    StructuredReadout,
    readout,
    readout_first_node,
    split_labels,
    structured_readout,
)
from arraygnn.pipeline.readout_features import (
    AddReadoutFromFirstNode,
    ReadoutNamed,
    ReadoutNamedIntoFeature,
    StructuredReadoutIntoFeature,
    add_readout_from_first_node,
    context_readout_into_feature,
    readout_named,
    readout_named_into_feature,
    structured_readout_into_feature,
    validate_graph_tensor_for_readout,
    validate_graph_tensor_spec_for_readout,
)

__all__ = [
    "AddReadoutFromFirstNode",
    "PadToTotalSizes",
    "ParseExample",
    "ParseSingleExample",
    "ReadoutNamed",
    "ReadoutNamedIntoFeature",
    "StructuredReadoutIntoFeature",
    "add_readout_from_first_node",
    "context_readout_into_feature",
    "readout_named",
    "readout_named_into_feature",
    "structured_readout_into_feature",
    "validate_graph_tensor_for_readout",
    "validate_graph_tensor_spec_for_readout",
    "FilterWithSummary",
    "GraphBatchLoader",
    "MapFeatures",
    "PadBatches",
    "Readout",
    "ReadoutFirstNode",
    "StructuredReadout",
    "batch_graphs",
    "dataset_filter_with_summary",
    "dynamic_batch",
    "fit_or_skip",
    "map_features",
    "merge_graphs",
    "per_replica_batch_size",
    "readout",
    "readout_first_node",
    "shard",
    "shard_dataset",
    "split_labels",
    "structured_readout",
]
