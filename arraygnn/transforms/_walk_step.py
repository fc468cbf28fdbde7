"""One uniform random-walk step over a row-sorted CSR, shared by the random-walk transforms
(``AddRandomMetaPaths``, ``RootedRWSubgraph``): PyG's rule, the ``floor(u * deg)``-th
out-edge for one uniform ``u`` per walker.

>>> import numpy as np
>>> nxt, has = uniform_step(np, np.random.default_rng(0), np.array([0, 1, 1]),
...                         np.array([1]), np.array([0, 1]))
>>> nxt.tolist(), has.tolist()
([1, 1], [True, False])
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["uniform_step"]


def uniform_step(xp: Any, gen: Any, indptr: Any, col: Any, cur: Any) -> tuple[Any, Any]:
    """``(next node, has an out-edge)`` for each walker at ``cur`` (int64 ids): a walker
    without out-edges stays where it is. Draws ``len(cur)`` uniforms from ``gen``."""
    count = indptr[cur + 1] - indptr[cur]
    has = count > 0
    pick = xp.floor(gen.random(int(cur.shape[0])) * count).astype(np.int64)
    pick = xp.minimum(pick, xp.maximum(count - 1, 0)) + indptr[cur]
    if int(col.shape[0]) == 0:
        return cur.copy(), has
    return xp.where(has, col[xp.where(has, pick, 0)], cur), has
