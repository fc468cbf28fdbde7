"""Batching for input pipelines: per-replica sharding, dynamic batching, fit-or-skip."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

__all__ = ["shard"]


def shard(items: Sequence[T], *, num_replicas: int = 1, replica_id: int = 0) -> list[T]:
    """The part of ``items`` (file paths or indices) that replica ``replica_id`` reads.

    Items are dealt round-robin: replica ``r`` gets ``items[r::num_replicas]``.

    >>> shard(["a", "b", "c", "d", "e"], num_replicas=2, replica_id=1)
    ['b', 'd']
    """
    if not isinstance(num_replicas, int) or num_replicas < 1:
        raise ValueError(f"num_replicas must be a positive int, got {num_replicas!r}")
    if not isinstance(replica_id, int) or not 0 <= replica_id < num_replicas:
        raise ValueError(f"replica_id must be in [0, {num_replicas}), got {replica_id!r}")
    return list(items)[replica_id::num_replicas]
