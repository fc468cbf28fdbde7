"""PyG's ``ARLinkPredictor`` (attract-repel link prediction, Peysakhovich et al., 2021)
at inference.

What runs, as PyG 2.8.1's ``torch_geometric.nn.models.ARLinkPredictor`` in eval mode:
``encode`` applies ``lins`` (each ``Linear`` then ReLU; dropout is the identity) and the
two heads ``lin_attract`` / ``lin_repel`` (here one product with both heads' weights);
``decode`` scores each column ``(u, v)`` of ``edge_index`` as ``attract[u] . attract[v] -
repel[u] . repel[v]``, each dot product gathered by the SDDMM kernel
(:func:`arraygnn.nn.autoencoders.pair_scores`, no ``[E, F]`` product array); the call is
``sigmoid(decode(*encode(x), edge_index))``, run as one SDDMM of ``[attract | repel]``
with ``[attract | -repel]`` (the same sum, one pass). ``calculate_r_fraction`` is PyG's
share of the squared norm in the repel part. The maths is PyG's; only the summation
order inside the products differs (float rounding).

>>> import numpy as np
>>> model = ARLinkPredictor(4, 8, rng=0)
>>> x = np.ones((3, 4), np.float32)
>>> model(x, np.array([[0, 1], [1, 2]])).shape
(2,)
>>> [z.shape for z in model.encode(x)]
[(3, 4), (3, 4)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._graph_input import _check_edge_index
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.autoencoders import pair_scores
from arraygnn.nn.linear import Linear, _ModuleList, _rng, _sigmoid, add_bias, matmul
from arraygnn.ops._common import check_index

__all__ = ["ARLinkPredictor"]

_NAME = "ARLinkPredictor"


class ARLinkPredictor(Module):
    """PyG's ``ARLinkPredictor``.

    Args:
        in_channels, hidden_channels: sizes.
        out_channels: embedding size, split into ``attract_dim = int(out_channels *
            attract_ratio)`` and ``repel_dim = out_channels - attract_dim`` (default
            ``hidden_channels``).
        num_layers: ``lins`` has ``max(num_layers - 1, 1)`` layers, as PyG builds it.
        dropout: ignored (inference).
        attract_ratio: in ``[0, 1]``.

    Names (PyG's): ``lins.i.weight`` / ``lins.i.bias``, ``lin_attract.*``, ``lin_repel.*``.

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)`` ids in ``[0, N)``
        - output: ``(E,)`` probabilities; ``encode``: ``(N, attract_dim)``,
          ``(N, repel_dim)``; ``decode``: ``(E,)`` scores
    """

    _child_names = ("lins", "lin_attract", "lin_repel")

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int | None = None,
        num_layers: int = 2,
        dropout: float = 0.0,
        attract_ratio: float = 0.5,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size(_NAME, "in_channels", in_channels, minimum=1)
        self.hidden_channels = hid = layer_size(_NAME, "hidden_channels", hidden_channels)
        if out_channels is None:
            out_channels = hid
        self.out_channels = layer_size(_NAME, "out_channels", out_channels)
        self.num_layers = layer_size(_NAME, "num_layers", num_layers)
        self.dropout = probability("ARLinkPredictor", "dropout", dropout)
        if not 0 <= attract_ratio <= 1:
            raise ValueError(f"{_NAME}: attract_ratio must be between 0 and 1, got {attract_ratio}")
        self.attract_ratio = float(attract_ratio)
        self.attract_dim = int(self.out_channels * attract_ratio)
        self.repel_dim = self.out_channels - self.attract_dim
        gen = _rng(rng)
        sizes = [self.in_channels] + [hid] * max(self.num_layers - 1, 1)
        self.lins = _ModuleList(
            [Linear(a, b, dtype=dtype, rng=gen) for a, b in zip(sizes[:-1], sizes[1:])]
        )
        self.lin_attract = Linear(hid, self.attract_dim, dtype=dtype, rng=gen)
        self.lin_repel = Linear(hid, self.repel_dim, dtype=dtype, rng=gen)

    def _embed(self, x: Any) -> Any:
        """``[attract | repel]`` of the nodes, ``(N, out_channels)``: ``lins`` with ReLU
        (in place), then both heads as one product."""
        if not is_array(x) or x.ndim != 2:
            raise TypeError(
                f"{_NAME}: x must be a 2-D NumPy or CuPy array (N, in_channels), got "
                f"{getattr(x, 'shape', type(x).__name__)}{torch_hint(x)}"
            )
        if x.dtype.kind != "f":
            raise TypeError(f"{_NAME}: x must hold floating-point values, got dtype {x.dtype}")
        if x.shape[1] != self.in_channels:
            raise ValueError(
                f"{_NAME}: x has {x.shape[1]} features, expected in_channels={self.in_channels}"
            )
        xp = get_namespace(x)
        for lin in self.lins:
            x = lin(x)
            xp.maximum(x, 0, out=x)
        heads = (self.lin_attract, self.lin_repel)
        weight = xp.concatenate([h.weight for h in heads])
        return add_bias(matmul(x, weight.T), xp.concatenate([h.bias for h in heads]))

    def encode(self, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """``(attract_z, repel_z)`` of the nodes (extra arguments are ignored, as PyG)."""
        z = self._embed(x)
        xp = get_namespace(z)
        split = self.attract_dim
        return xp.ascontiguousarray(z[:, :split]), xp.ascontiguousarray(z[:, split:])

    def decode(self, attract_z: Any, repel_z: Any, edge_index: Any) -> Any:
        """``attract_z[u] . attract_z[v] - repel_z[u] . repel_z[v]`` per column ``(u, v)``."""
        attract = pair_scores(f"{_NAME}.decode (attract_z)", attract_z, edge_index)
        repel = pair_scores(f"{_NAME}.decode (repel_z)", repel_z, edge_index)
        return attract - repel

    def __call__(self, x: Any, edge_index: Any) -> Any:
        """``sigmoid(decode(*encode(x), edge_index))`` as one SDDMM: the dot product of
        ``[attract | repel][u]`` with ``[attract | -repel][v]``."""
        z = self._embed(x)
        _check_edge_index(_NAME, edge_index)
        n = int(z.shape[0])
        check_index(f"{_NAME}: edge_index[0]", edge_index[0], n)
        check_index(f"{_NAME}: edge_index[1]", edge_index[1], n)
        signed = z.copy()
        signed[:, self.attract_dim :] *= -1
        scores = ops.sddmm((edge_index[0], edge_index[1]), z, signed, op="dot")
        return _sigmoid(scores.reshape(-1))

    def calculate_r_fraction(self, attract_z: Any, repel_z: Any) -> float:
        """``|repel|^2 / (|attract|^2 + |repel|^2 + 1e-10)`` over all entries."""
        xp = get_namespace(attract_z, repel_z)
        a = xp.sum(attract_z * attract_z)
        r = xp.sum(repel_z * repel_z)
        return float(r / (a + r + 1e-10))

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.hidden_channels}, out_channels={self.out_channels}, "
            f"attract_dim={self.attract_dim}, repel_dim={self.repel_dim}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``ARLinkPredictor`` with its weights."""
    model = ARLinkPredictor(
        module.in_channels,
        module.hidden_channels,
        module.out_channels,
        num_layers=module.num_layers,
        dropout=module.dropout,
        attract_ratio=module.attract_ratio,
        dtype=dtype,
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
