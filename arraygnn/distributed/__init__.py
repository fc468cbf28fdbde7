"""Scale-out on Dask: partitioned SpMM / k-hop propagation and sharded batching.

Dask is an optional extra (``pip install 'arraygnn[distributed]'``); it is imported
only when a function here talks to a cluster. Partitioning itself is plain NumPy.
"""

from arraygnn.distributed.cluster import local_cluster
from arraygnn.distributed.partition import GraphBlock, PartitionedGraph, partition_graph
from arraygnn.distributed.propagate import (
    DistributedFeatures,
    ExchangeStats,
    PartitionLostError,
    distributed_spmm,
    propagate,
    scatter_features,
)
from arraygnn.distributed.sharded import (
    batch_index_plan,
    distributed_batches,
    distributed_tfrecord_batches,
)

__all__ = [
    "batch_index_plan",
    "distributed_batches",
    "distributed_tfrecord_batches",
    "DistributedFeatures",
    "ExchangeStats",
    "GraphBlock",
    "PartitionLostError",
    "PartitionedGraph",
    "distributed_spmm",
    "local_cluster",
    "partition_graph",
    "propagate",
    "scatter_features",
]
