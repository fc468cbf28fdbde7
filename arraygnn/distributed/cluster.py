"""Start a small local Dask cluster for trying arraygnn.distributed out.

Any ``dask.distributed.Client`` works with arraygnn; this is only a convenience
that binds to 127.0.0.1 and uses processes (one thread each), like a real
multi-machine cluster would.

>>> from arraygnn.distributed.cluster import local_cluster, worker_addresses  # doctest: +SKIP
>>> with local_cluster(n_workers=2) as client:       # doctest: +SKIP
...     print(len(worker_addresses(client)))
2
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["local_cluster", "import_distributed", "worker_addresses"]


def import_distributed() -> Any:
    """Import ``dask.distributed`` or raise an ImportError naming the extra."""
    try:
        import distributed
    except ImportError as err:  # pragma: no cover - depends on the machine
        raise ImportError(
            "arraygnn.distributed needs Dask: pip install 'arraygnn[distributed]'"
        ) from err
    return distributed


def worker_addresses(client: Any, wait: float = 10.0) -> list[str]:
    """The cluster's worker addresses, sorted, asked of the scheduler now.

    ``client.scheduler_info()`` can answer with the client's cached copy (it keeps the old
    one whenever the client is not in its running state or the query fails), which may
    list no workers at all; ``client.nthreads()`` always asks the scheduler. When none is
    there, waits up to ``wait`` seconds for one (a worker restarting), then returns what
    there is (possibly nothing).
    """
    workers = sorted(client.nthreads())
    if not workers and wait > 0:
        with contextlib.suppress(Exception):  # TimeoutError: the caller names the problem
            client.wait_for_workers(1, timeout=wait)
        workers = sorted(client.nthreads())
    return workers


@contextlib.contextmanager
def local_cluster(
    n_workers: int = 2, threads_per_worker: int = 1, cuda: bool = False, **kwargs: Any
) -> Iterator[Any]:
    """A ``Client`` on a ``LocalCluster`` of worker processes on 127.0.0.1.

    ``cuda=True`` starts dask-cuda's ``LocalCUDACluster`` (one worker per GPU)
    instead; it must be installed. Extra keyword arguments go to the cluster.
    """
    distributed = import_distributed()
    if cuda:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError as err:
            raise ImportError("cuda=True needs dask-cuda: pip install dask-cuda") from err
        cluster = LocalCUDACluster(ip="127.0.0.1", **kwargs)
    else:
        kwargs.setdefault("dashboard_address", None)
        cluster = distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            host="127.0.0.1",
            **kwargs,
        )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
