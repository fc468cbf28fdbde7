"""PyG's ``SignedGCN`` (Derr et al., 2018) at inference: stacked ``SignedConv`` layers
over positive and negative edges, and the edge-sign discriminator.

``model(x, pos_edge_index, neg_edge_index)`` is ``relu(conv1(x))`` then ``relu(conv(z))``
per further layer (``SignedConv``'s two mean SpMMs per layer); ``discriminate(z,
edge_index)`` is ``log_softmax(lin([z[src], z[dst]]))`` over the classes positive /
negative / none. ``create_spectral_features`` is PyG's with SciPy's ``svds`` in place of
scikit-learn's randomised ``TruncatedSVD`` (the same singular subspace, signs and
rounding may differ). The training losses (random negative samples) and ``test`` are left
out.

>>> import numpy as np
>>> model = SignedGCN(4, 8, num_layers=2, rng=0)
>>> pos, neg = np.array([[0, 1], [1, 2]]), np.array([[2], [0]])
>>> z = model(np.ones((3, 4), np.float32), pos, neg)
>>> z.shape, model.discriminate(z, pos).shape
((3, 8), (2, 3))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _ModuleList, _relu, _rng
from arraygnn.nn.signed_conv import SignedConv

__all__ = ["SignedGCN"]


def _log_softmax(x: Any) -> Any:
    xp = get_namespace(x)
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))


class SignedGCN(Module):
    """PyG's ``SignedGCN``.

    Args:
        in_channels, hidden_channels: sizes (``hidden_channels`` even: each layer's
            output is ``[pos, neg]`` halves).
        num_layers: ``SignedConv`` layers.
        lamb: the loss weight (kept; the losses are training-only).
        bias: accepted and ignored, as PyG's: PyG builds every ``SignedConv`` with its
            default ``bias=True`` whatever this says (and ``lin`` always has a bias).

    Names: ``conv1.*``, ``convs.i.*`` (``SignedConv``'s), ``lin.weight`` ``(3, 2 hidden)``,
    ``lin.bias``.
    """

    _child_names = ("conv1", "convs", "lin")

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        num_layers: int,
        lamb: float = 5,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "SignedGCN"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels, minimum=2)
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        self.lamb = float(lamb)
        del bias  # PyG's convs always have biases (the flag reaches none of them)
        gen = _rng(rng)
        half = self.hidden_channels // 2
        self.conv1 = SignedConv(self.in_channels, half, True, dtype=dtype, rng=gen)
        self.convs = _ModuleList(
            [
                SignedConv(half, half, False, dtype=dtype, rng=gen)
                for _ in range(self.num_layers - 1)
            ]
        )
        self.lin = Linear(2 * self.hidden_channels, 3, dtype=dtype, rng=gen)

    def __call__(self, x: Any, pos_edge_index: Any, neg_edge_index: Any) -> Any:
        z = _relu(self.conv1(x, pos_edge_index, neg_edge_index))
        for conv in self.convs:
            z = _relu(conv(z, pos_edge_index, neg_edge_index))
        return z

    def discriminate(self, z: Any, edge_index: Any) -> Any:
        """Log-probabilities ``(E, 3)`` of positive / negative / no edge per pair."""
        from arraygnn import ops
        from arraygnn.nn._graph_input import _check_edge_index
        from arraygnn.ops._common import check_index

        _check_edge_index("SignedGCN.discriminate", edge_index)
        width = self.lin.in_features
        if not is_array(z) or z.ndim != 2 or 2 * z.shape[1] != width:
            raise ValueError(
                f"SignedGCN.discriminate: z must be (N, {width // 2}) (lin takes pairs of "
                f"rows, {width} wide), got {getattr(z, 'shape', type(z).__name__)}; an odd "
                "hidden_channels gives narrower embeddings, which PyG's lin refuses too"
            )
        n = int(z.shape[0])
        check_index("SignedGCN.discriminate: edge_index[0]", edge_index[0], n)
        check_index("SignedGCN.discriminate: edge_index[1]", edge_index[1], n)
        xp = get_namespace(z)
        pair = xp.concatenate([ops.gather(z, edge_index[0]), ops.gather(z, edge_index[1])], axis=1)
        return _log_softmax(self.lin(pair))

    def create_spectral_features(
        self, pos_edge_index: Any, neg_edge_index: Any, num_nodes: int | None = None
    ) -> Any:
        """PyG's spectral node features ``(N, in_channels)``, float32: the top right
        singular vectors of the signed adjacency (+1 / -1, symmetrised, repeated pairs
        summed). ``num_nodes`` defaults to the largest id + 1, as PyG's."""
        import scipy.sparse as sp
        from scipy.sparse.linalg import svds

        from arraygnn._namespace import to_numpy
        from arraygnn.nn._graph_input import _check_edge_index
        from arraygnn.ops._common import check_index, check_size

        where = "SignedGCN.create_spectral_features"
        _check_edge_index(f"{where}: pos_edge_index", pos_edge_index)
        _check_edge_index(f"{where}: neg_edge_index", neg_edge_index)
        pos, neg = to_numpy(pos_edge_index), to_numpy(neg_edge_index)
        edge_index = np.concatenate([pos, neg], axis=1).astype(np.int64)
        if num_nodes is None:
            num_nodes = int(edge_index.max()) + 1 if edge_index.size else 0
        num_nodes = check_size(f"{where}: num_nodes", num_nodes)
        check_index(f"{where}: edge ids", edge_index.reshape(-1), num_nodes)
        k = self.in_channels
        if not 0 < k < num_nodes:
            raise ValueError(
                f"SignedGCN.create_spectral_features: in_channels={k} must be in "
                f"(0, num_nodes={num_nodes})"
            )
        val = np.concatenate([np.full(pos.shape[1], 2.0), np.zeros(neg.shape[1])])
        row = np.concatenate([edge_index[0], edge_index[1]])
        col = np.concatenate([edge_index[1], edge_index[0]])
        val = np.concatenate([val, val])
        a = sp.coo_matrix((val, (row, col)), shape=(num_nodes, num_nodes)).tocsr()
        a.sum_duplicates()  # PyG's coalesce sums repeated pairs, then subtracts 1 once
        a.data -= 1.0
        _, s, vt = svds(a, k=k)
        order = np.argsort(-s)
        out = vt[order].T.astype(np.float32)
        xp = get_namespace(pos_edge_index)
        return out if xp is np else xp.asarray(out)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.hidden_channels}, num_layers={self.num_layers}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``SignedGCN`` (its ``SignedConv`` s and ``lin`` through ``convert``)."""
    model = SignedGCN.__new__(SignedGCN)
    model.in_channels = int(module.in_channels)
    model.hidden_channels = int(module.hidden_channels)
    model.num_layers = int(module.num_layers)
    model.lamb = float(module.lamb)
    model.conv1 = convert(module.conv1)
    model.convs = _ModuleList([convert(c) for c in module.convs])
    model.lin = convert(module.lin)
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
