"""PyG's ``EdgePooling`` (Diehl et al., edge contraction pooling).

Each edge gets a score ``lin([x_src || x_dst])`` normalised by ``edge_score_method``
(``'softmax'`` over each target's incoming edges, the default; ``'tanh'``; ``'sigmoid'``)
plus ``add_to_edge_score``. The edges are visited by descending score and one is
contracted when neither of its nodes is taken yet; a contracted pair becomes one node
whose features are the pair's sum times the edge's score, every other node stays alone
(score 1). The coarsened edges are the old ones renumbered and coalesced.

How it runs: the edge score is two per-node products gathered per edge (no ``[E, 2F]``
array), the softmax is ``arraygnn.ops.edge_softmax``. The greedy contraction is sequential
(each choice depends on the earlier ones): one Numba kernel
(``arraygnn.kernels.cpu.edge_contraction``) on the host, CuPy inputs' scores and edges
copied there and the clusters copied back, as PyG runs its loop on the CPU. The visiting
order replays ``torch.argsort(score, descending=True)`` on the CPU (libstdc++'s unstable
introsort), so tied scores contract the same edges as PyG. The pooled features are one
``ops.scatter`` sum; the edges one ``coalesce``.

Dropout on the scores is a training-time operation: the layer is for inference, so it
is stored and never applied (PyG's eval mode).

>>> import numpy as np
>>> pool = EdgePooling(2, rng=0)
>>> x = np.arange(8, dtype=np.float32).reshape(4, 2)
>>> ei = np.array([[0, 1, 2], [1, 2, 3]])
>>> out, edge_index, batch, info = pool(x, ei, np.zeros(4, dtype=np.int64))
>>> out.shape[0] < 4, pool.unpool(out, info)[0].shape
(True, (4, 2))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import device_of, get_namespace, is_array, to_device, to_numpy
from arraygnn.nn._graph_input import _check_edge_index
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn._pool_input import check_pool_input, pair_scores
from arraygnn.nn.linear import Linear, _rng, get_activation
from arraygnn.ops._common import check_index, check_size

__all__ = ["EdgePooling", "UnpoolInfo", "contract_edges"]

_METHODS = ("softmax", "tanh", "sigmoid")


class UnpoolInfo(NamedTuple):
    """What :meth:`EdgePooling.unpool` needs (PyG's ``UnpoolInfo``)."""

    edge_index: Any
    cluster: Any
    batch: Any
    new_edge_score: Any


def _score_softmax(raw: Any, edge_index: Any, num_nodes: int) -> Any:
    from arraygnn import ops

    return ops.edge_softmax((edge_index[0], edge_index[1]), raw, num_dst_nodes=num_nodes)


def _score_tanh(raw: Any, edge_index: Any = None, num_nodes: int | None = None) -> Any:
    return get_activation("tanh")(raw)


def _score_sigmoid(raw: Any, edge_index: Any = None, num_nodes: int | None = None) -> Any:
    return get_activation("sigmoid")(raw)


def _check_score(where: str, score: Any, num_edges: int) -> None:
    """``score`` must be a number array ``[E]`` (it indexes the edges inside Numba)."""
    if not is_array(score) or tuple(score.shape) != (num_edges,):
        raise ValueError(
            f"{where}: edge_score must have shape ({num_edges},) (one per edge), got "
            f"{tuple(getattr(score, 'shape', ()))}"
        )
    if score.dtype.kind not in "fiub":
        raise TypeError(f"{where}: edge_score must hold numbers, got dtype {score.dtype}")


def contract_edges(edge_index: Any, edge_score: Any, num_nodes: int) -> tuple[Any, Any, int]:
    """PyG's greedy contraction: ``(cluster [N] int64, contracted edge ids, clusters)``.

    Edges are visited in ``torch.argsort(edge_score, descending=True)``'s CPU order (ties
    included); each one whose two ends are both free is contracted. Contracted pairs are
    clusters ``0 .. k-1`` in visiting order, the free nodes follow in node order. Runs on
    the host (a Numba kernel; float16 scores sorted as float32, exact and in the same
    order); results come back on ``edge_index``'s device.

    >>> import numpy as np
    >>> cluster, chosen, size = contract_edges(np.array([[0, 1], [1, 2]]), np.array([1.0, 2.0]), 3)
    >>> cluster.tolist(), chosen.tolist(), size
    ([1, 0, 0], [1], 2)
    """
    from arraygnn.kernels.cpu.edge_contraction import greedy_contract, torch_sort_desc

    where = "contract_edges"
    num_nodes = check_size(f"{where}: num_nodes", num_nodes)
    _check_edge_index(where, edge_index)
    check_index(f"{where}: edge_index", edge_index.reshape(-1), num_nodes)  # before Numba
    device = device_of(edge_index)
    _check_score(where, edge_score, int(edge_index.shape[1]))
    score = to_numpy(edge_score)
    if score.dtype == np.float16 or score.dtype == np.bool_:  # Numba sorts neither;
        score = score.astype(np.float32)  # float32 holds both exactly, in the same order
    src = to_numpy(edge_index[0]).astype(np.int64)
    dst = to_numpy(edge_index[1]).astype(np.int64)
    order = torch_sort_desc(np.ascontiguousarray(score))
    cluster = np.empty(num_nodes, dtype=np.int64)
    chosen = np.empty(min(int(src.shape[0]), num_nodes), dtype=np.int64)
    taken = int(greedy_contract(order, src, dst, num_nodes, cluster, chosen))
    chosen = chosen[:taken]
    size = num_nodes - int(np.count_nonzero(src[chosen] != dst[chosen]))  # pairs: 2 -> 1
    return to_device(cluster, device), to_device(chosen, device), size


class EdgePooling(Module):
    """PyG's ``EdgePooling``.

    Args:
        in_channels: feature size.
        edge_score_method: ``'softmax'`` (default, over each target's incoming edges),
            ``'tanh'``, ``'sigmoid'``, or one of ``EdgePooling.compute_edge_score_*``.
        dropout: the score dropout of training (kept, not applied: inference only).
        add_to_edge_score: added to every normalised score.

    Call as ``pool(x, edge_index, batch)``; returns ``(x, edge_index, batch,
    unpool_info)`` as PyG (``edge_index`` in ``batch``'s dtype, ``batch`` int64).
    ``pool.unpool(x, unpool_info)`` returns ``(x, edge_index, batch)`` of the finer graph.

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, batch ``(N,)``
        - output: x ``(N', in_channels)``, edge_index ``(2, E')``, batch ``(N',)``

    Names (PyG): ``lin.weight`` ``(1, 2 in_channels)``, ``lin.bias`` ``(1,)``.
    """

    _child_names = ("lin",)

    compute_edge_score_softmax = staticmethod(_score_softmax)
    compute_edge_score_tanh = staticmethod(_score_tanh)
    compute_edge_score_sigmoid = staticmethod(_score_sigmoid)

    def __init__(
        self,
        in_channels: int,
        edge_score_method: str | Callable[..., Any] | None = None,
        dropout: float = 0.0,
        add_to_edge_score: float = 0.5,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("EdgePooling", "in_channels", in_channels, minimum=1)
        if edge_score_method is None:
            edge_score_method = "softmax"
        if isinstance(edge_score_method, str):
            if edge_score_method not in _METHODS:
                raise ValueError(
                    f"EdgePooling: edge_score_method must be one of {_METHODS} or a callable, "
                    f"got {edge_score_method!r}"
                )
            edge_score_method = getattr(self, f"compute_edge_score_{edge_score_method}")
        elif not callable(edge_score_method):
            raise TypeError(
                f"EdgePooling: edge_score_method must be a name or a callable, got "
                f"{edge_score_method!r}"
            )
        self.compute_edge_score = edge_score_method
        from arraygnn.nn._module import real_number

        self.dropout = probability("EdgePooling", "dropout", dropout, below_one=True)
        self.add_to_edge_score = real_number("EdgePooling", "add_to_edge_score", add_to_edge_score)
        self.lin = Linear(2 * self.in_channels, 1, dtype=dtype, rng=_rng(rng))

    def __call__(self, x: Any, edge_index: Any, batch: Any = None) -> tuple[Any, ...]:
        from arraygnn import ops
        from arraygnn.utils.coalesce import coalesce

        xp, batch = check_pool_input(
            "EdgePooling", x, edge_index, batch, self.in_channels, self.lin.weight
        )
        n = int(x.shape[0])
        raw = pair_scores(self.lin, x, edge_index[0], edge_index[1])
        score = self.compute_edge_score(raw, edge_index, n)
        _check_score("EdgePooling", score, int(edge_index.shape[1]))  # a custom method's
        if score.dtype.kind != "f":  # PyG: an integer / bool score + a float is float32
            score = score.astype(np.float32)
        score = score + score.dtype.type(self.add_to_edge_score)
        cluster, chosen, size = contract_edges(edge_index, score, n)
        new_x = ops.scatter(x, cluster, size, reduce="sum")
        new_score = xp.ones(size, dtype=score.dtype)
        new_score[: chosen.shape[0]] = score[chosen]
        new_x *= new_score.astype(new_x.dtype, copy=False)[:, None]
        cluster = cluster.astype(batch.dtype, copy=False)
        new_edge_index = coalesce(cluster[edge_index], num_nodes=size)
        new_batch = xp.empty(size, dtype=np.int64)
        new_batch[cluster] = batch
        return new_x, new_edge_index, new_batch, UnpoolInfo(edge_index, cluster, batch, new_score)

    def unpool(self, x: Any, unpool_info: UnpoolInfo) -> tuple[Any, Any, Any]:
        """PyG's ``unpool``: ``(x / score)[cluster]``, the finer ``edge_index`` and ``batch``."""
        score = unpool_info.new_edge_score
        if getattr(x, "ndim", 0) < 1 or x.shape[0] != score.shape[0]:
            raise ValueError(
                f"EdgePooling.unpool: x must have {score.shape[0]} rows (the pooled nodes), got "
                f"shape {tuple(getattr(x, 'shape', ()))}"
            )
        get_namespace(x, score)
        new_x = x / score.reshape((-1,) + (1,) * (x.ndim - 1))
        return new_x[unpool_info.cluster], unpool_info.edge_index, unpool_info.batch

    def extra_repr(self) -> str:
        return f"{self.in_channels}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> EdgePooling:
    """PyG ``EdgePooling`` -> :class:`EdgePooling`, weights loaded."""
    from arraygnn.nn.weights import _load

    method = getattr(module.compute_edge_score, "__name__", "")
    name = method.replace("compute_edge_score_", "")
    if name not in _METHODS:
        raise ValueError(
            f"from_pyg: EdgePooling edge_score_method {method or module.compute_edge_score!r} "
            f"is not supported (one of EdgePooling.compute_edge_score_{{{', '.join(_METHODS)}}})"
        )
    layer = EdgePooling(
        module.in_channels, name, module.dropout, module.add_to_edge_score, dtype=dtype
    )
    return _load(layer, module, "pyg")
