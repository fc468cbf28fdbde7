"""PyG's ``LightGCN`` (He et al., 2020) at inference: node embeddings propagated by
``num_layers`` light graph convolutions and summed with weights ``alpha``.

``get_embedding(edge_index)`` is ``sum_l alpha_l X^(l)`` with ``X^(0)`` the embedding
table and ``X^(l+1) = A_hat X^(l)`` (PyG's ``LGConv``: ``gcn_norm`` without self-loops,
or the ``edge_weight``-weighted adjacency when ``normalize=False``). The graph is
normalised once and converted to one CSR; each layer is one SpMM with the weights in slot
order (PyG normalises again in every layer). ``forward`` / ``predict_link`` score node
pairs with one gathered dot product each (SDDMM, no ``[E, F]`` array); ``recommend``
scores the dense ``(sources, candidates)`` matrix, as PyG does, and ranks each row in one
pass (a parallel Numba top-k kernel, ``arraygnn.kernels.cpu.topk``). The training losses
(``link_pred_loss``, ``recommendation_loss``) are left out.

>>> import numpy as np
>>> model = LightGCN(num_nodes=4, embedding_dim=8, num_layers=2, rng=0)
>>> ei = np.array([[0, 1, 2, 3], [1, 0, 3, 2]])
>>> model(ei).shape, model.recommend(ei, k=2).shape
((4,), (4, 2))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.autoencoders import pair_scores
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import _rng, _sigmoid, glorot, matmul

__all__ = ["LightGCN"]


class LightGCN(Module):
    r"""PyG's ``LightGCN``.

    Args:
        num_nodes: rows of the embedding table (every id in ``edge_index`` is below it).
        embedding_dim: the embedding width.
        num_layers: the number of ``LGConv`` propagations.
        alpha: the weight of each layer's embedding: ``None`` (``1 / (num_layers + 1)``
            each), a number, or ``num_layers + 1`` values.
        normalize: ``LGConv``'s (default ``True``).

    Methods (PyG's): ``get_embedding(edge_index, edge_weight=None)`` ``(N, D)``;
    ``model(edge_index, edge_label_index=None, edge_weight=None)`` the pair scores
    ``(E',)`` (``edge_label_index`` defaults to ``edge_index``);
    ``predict_link(edge_index, edge_label_index=None, edge_weight=None, prob=False)``
    (sigmoid, rounded unless ``prob``); ``recommend(edge_index, edge_weight=None,
    src_index=None, dst_index=None, k=1, sorted=True)`` the ids ``(S, k)`` of the
    ``k`` best-scored candidates per source, best first (also for ``sorted=False``, where
    PyG leaves the order unspecified).

    Names: ``embedding.weight`` ``(num_nodes, embedding_dim)``, ``alpha``
    ``(num_layers + 1,)`` (PyG's buffer).
    """

    _param_names = ("alpha",)
    _child_names = ("embedding",)

    def __init__(
        self,
        num_nodes: int,
        embedding_dim: int,
        num_layers: int,
        alpha: Any = None,
        *,
        normalize: bool = True,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "LightGCN"
        self.num_nodes = layer_size(layer, "num_nodes", num_nodes)
        self.embedding_dim = layer_size(layer, "embedding_dim", embedding_dim)
        self.num_layers = layer_size(layer, "num_layers", num_layers)
        self.normalize = bool(normalize)
        if alpha is None:
            alpha = 1.0 / (self.num_layers + 1)
        if is_array(alpha) or isinstance(alpha, (list, tuple)):
            alpha = np.asarray(to_numpy(alpha))  # a CuPy array refuses np.asarray
            if alpha.shape != (self.num_layers + 1,):
                raise ValueError(
                    f"{layer}: alpha must hold num_layers + 1 = {self.num_layers + 1} values, "
                    f"got shape {tuple(alpha.shape)}"
                )
            self.alpha = alpha.astype(alpha.dtype if alpha.dtype.kind == "f" else np.float32)
        else:
            self.alpha = np.full(self.num_layers + 1, float(alpha), dtype=np.float32)
        gen = _rng(rng)
        self.embedding = _Embedding(self.num_nodes, self.embedding_dim, gen, dtype)
        self.embedding.weight = glorot((self.num_nodes, self.embedding_dim), gen, dtype)

    def get_embedding(self, edge_index: Any, edge_weight: Any = None) -> Any:
        """``sum_l alpha_l X^(l)``, ``(num_nodes, embedding_dim)``."""
        from arraygnn.nn.sgc import _propagation, propagation_input
        from arraygnn.ops.slot_order import spmm_slots

        x = self.embedding.weight
        inp = propagation_input("LightGCN", x, edge_index, edge_weight)
        alpha = self.alpha.astype(x.dtype, copy=False)  # torch: the table's dtype wins
        out = x * alpha[0]
        if self.num_layers:
            csr, w = _propagation(inp, edge_weight, self.normalize, False, x.dtype)
            for i in range(self.num_layers):
                x = spmm_slots(csr, x, w)
                out += x * alpha[i + 1]
        return out

    def __call__(
        self, edge_index: Any, edge_label_index: Any = None, edge_weight: Any = None
    ) -> Any:
        if edge_label_index is None:
            edge_label_index = edge_index
        out = self.get_embedding(edge_index, edge_weight)
        return pair_scores("LightGCN: edge_label_index", out, edge_label_index)

    def predict_link(
        self,
        edge_index: Any,
        edge_label_index: Any = None,
        edge_weight: Any = None,
        prob: bool = False,
    ) -> Any:
        pred = _sigmoid(self(edge_index, edge_label_index, edge_weight))
        return pred if prob else get_namespace(pred).round(pred)

    def recommend(
        self,
        edge_index: Any,
        edge_weight: Any = None,
        src_index: Any = None,
        dst_index: Any = None,
        k: int = 1,
        sorted: bool = True,
    ) -> Any:
        from arraygnn.ops._common import check_index

        out_src = out_dst = self.get_embedding(edge_index, edge_weight)
        n = self.num_nodes
        if src_index is not None:
            check_index("LightGCN.recommend: src_index", src_index, n)
            out_src = out_src[src_index]
        if dst_index is not None:
            check_index("LightGCN.recommend: dst_index", dst_index, n)
            out_dst = out_dst[dst_index]
        k = layer_size("LightGCN.recommend", "k", k)
        if k > out_dst.shape[0]:
            raise ValueError(
                f"LightGCN.recommend: k={k} is more than the {out_dst.shape[0]} candidates"
            )
        pred = matmul(out_src, out_dst.T)
        top = top_k_indices(pred, k)
        return top if dst_index is None else dst_index[top]

    def extra_repr(self) -> str:
        return f"{self.num_nodes}, {self.embedding_dim}, num_layers={self.num_layers}"


def top_k_indices(scores: Any, k: int) -> Any:
    """The column ids of each row's ``k`` largest ``scores``, largest first (ties: the
    smaller id first; NaN above numbers, as ``torch.topk``), ``(rows, k)`` int64. NumPy:
    one pass per row keeping a sorted buffer of ``k`` (a parallel Numba kernel,
    ``arraygnn.kernels.cpu.topk``); CuPy: a partition and a stable sort per row."""
    xp = get_namespace(scores)
    if scores.ndim != 2:
        raise ValueError(f"top_k_indices: scores must be 2-D, got shape {tuple(scores.shape)}")
    rows, cols = scores.shape
    k = layer_size("top_k_indices", "k", k)
    if k > cols:  # the Numba kernel would read and write past each row
        raise ValueError(f"top_k_indices: k={k} is more than the {cols} columns")
    out = xp.zeros((rows, k), dtype=np.int64)
    if k == 0 or rows == 0:
        return out
    if xp is np:
        from arraygnn.kernels.cpu._threads import serialised, start_threads
        from arraygnn.kernels.cpu.topk import row_top_k

        start_threads()
        serialised(row_top_k)(np.ascontiguousarray(scores), k, out)
        return out
    # NaN first: rank by (-score) with NaN mapped below every number
    key = xp.where(xp.isnan(scores), -xp.inf, -scores)
    part = xp.argpartition(key, k - 1, axis=1)[:, :k] if k < cols else None
    if part is None:
        part = xp.broadcast_to(xp.arange(cols), (rows, cols))
    picked = xp.take_along_axis(key, part, axis=1)
    first = xp.argsort(part, axis=1)  # ids ascending, then stably by rank
    part = xp.take_along_axis(part, first, axis=1)
    picked = xp.take_along_axis(picked, first, axis=1)
    order = xp.argsort(picked, axis=1, kind="stable")
    return xp.take_along_axis(part, order, axis=1).astype(np.int64, copy=False)


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``LightGCN`` with its embedding table and ``alpha``."""
    normalize = {bool(c.normalize) for c in module.convs}
    if len(normalize) > 1:
        raise ValueError("from_pyg: LightGCN with convs of different normalize is not supported")
    for i, conv in enumerate(module.convs):
        if getattr(conv, "flow", "source_to_target") != "source_to_target":
            raise ValueError(f"from_pyg: LightGCN convs.{i} has flow={conv.flow!r}")
    alpha = module.alpha.detach().cpu().numpy()
    # the table's dtype, not the first floating entry (alpha, which PyG casts to the table's)
    from arraygnn.nn.weights import _dtype_of

    dtype = _dtype_of(module.embedding)
    model = LightGCN(
        module.num_nodes,
        module.embedding_dim,
        module.num_layers,
        alpha,
        normalize=normalize.pop() if normalize else True,
        dtype=dtype,
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
