"""PyG's ``QFormer`` (the simplified Querying Transformer of BLIP-2, Li et al.): a layer
norm, a ``torch.nn.TransformerEncoder`` of ``num_layers`` post-norm encoder layers and a
linear projection, at inference.

How it runs: the encoder layers are :class:`arraygnn.nn.lap_pos_encoder.TransformerEncoderLayer`
(torch's names and maths: :class:`arraygnn.nn.MultiheadAttention` with dense ``[B, H, N,
N]`` scores, then the feed-forward network), batch first; dropout is the identity.

RULE: as PyG's module, the template layer ``encoder_layer`` that torch's encoder copies is
      kept with its own weights (in the state dict, unused by the forward pass).

>>> import numpy as np
>>> q = QFormer(8, 16, 4, num_heads=2, num_layers=2, rng=0)
>>> q(np.ones((3, 5, 8), np.float32)).shape, q(np.ones((5, 8), np.float32)).shape
((3, 5, 4), (5, 4))
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from arraygnn.nn._dense_input import check_float_array
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.lap_pos_encoder import TransformerEncoderLayer, _Layers
from arraygnn.nn.linear import LayerNorm, Linear, _check_features, _rng, get_activation

__all__ = ["QFormer", "from_pyg_module"]

_WHERE = "QFormer"


class QFormer(Module):
    """PyG's ``QFormer(input_dim, hidden_dim, output_dim, num_heads, num_layers,
    dropout=0.0, activation=ReLU())``; call as ``q(x)``.

    ``hidden_dim`` is the encoder layers' feed-forward width; ``activation`` an activation
    name or callable on arrays (default ``'relu'``). ``input_dim`` must be divisible by
    ``num_heads``.

    Names (PyG): ``layer_norm.*``, ``encoder_layer.*`` (the template), ``encoder.layers.{i}.*``
    (``self_attn.in_proj_weight``, ``self_attn.out_proj.*``, ``linear1.*``, ``linear2.*``,
    ``norm1.*``, ``norm2.*``), ``project.*``.

    Shapes:
        - input: ``x`` ``(B, N, input_dim)``, or ``(N, input_dim)`` for one sequence
        - output: ``(B, N, output_dim)`` / ``(N, output_dim)``
    """

    _child_names = ("layer_norm", "encoder_layer", "encoder", "project")

    def __init__(
        self,
        input_dim: int,
        hidden_dim: int,
        output_dim: int,
        num_heads: int,
        num_layers: int,
        dropout: float = 0.0,
        activation: Any = "relu",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        d = self.input_dim = layer_size(_WHERE, "input_dim", input_dim, minimum=1)
        ff = self.hidden_dim = layer_size(_WHERE, "hidden_dim", hidden_dim, minimum=1)
        self.output_dim = layer_size(_WHERE, "output_dim", output_dim, minimum=1)
        h = self.num_heads = layer_size(_WHERE, "num_heads", num_heads, minimum=1)
        self.num_layers = layer_size(_WHERE, "num_layers", num_layers, minimum=1)
        if d % h:
            raise ValueError(f"{_WHERE}: input_dim={d} must be divisible by num_heads={h}")
        self.dropout = probability(_WHERE, "dropout", dropout)
        act = get_activation(activation)
        if act is None:
            raise ValueError(f"{_WHERE}: activation must be an activation, got None")
        gen = _rng(rng)
        self.layer_norm = LayerNorm(d, dtype=dtype)
        self.encoder_layer = TransformerEncoderLayer(d, h, ff, act, dtype=dtype, rng=gen)
        # torch's TransformerEncoder deep-copies the template: the layers start equal
        self.encoder = _Layers([copy.deepcopy(self.encoder_layer) for _ in range(num_layers)])
        self.project = Linear(d, self.output_dim, dtype=dtype, rng=gen)

    def __call__(self, x: Any) -> Any:
        check_float_array(_WHERE, "x", x, (2, 3))
        _check_features(x, self.input_dim, f"{_WHERE} x", self.project.weight)
        x = self.layer_norm(x)
        for layer in self.encoder:
            x = layer(x)
        return self.project(x)

    def extra_repr(self) -> str:
        return f"num_heads={self.num_heads}, num_layers={self.num_layers}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> QFormer:
    """PyG's ``QFormer`` -> ours, weights loaded; the encoder layers' activation, ``eps``
    and ``norm_first`` read from torch's."""
    from arraygnn.nn.weights import _activation

    if module.encoder.norm is not None:
        raise ValueError("from_pyg: QFormer with a final encoder norm is not supported")
    theirs = list(module.encoder.layers)
    if not theirs:
        raise ValueError(
            "from_pyg: QFormer with num_layers=0 is not supported (PyG's forward fails on it: "
            "torch's TransformerEncoder reads its first layer)"
        )
    first = theirs[0]
    act = _activation(first.activation, "from_pyg: QFormer activation")
    model = QFormer(
        module.layer_norm.normalized_shape[0],
        first.linear1.out_features,
        module.project.out_features,
        module.num_heads,
        module.num_layers,
        float(first.dropout.p),
        act if act is not None else (lambda z: z),
        dtype=dtype,
    )
    model.layer_norm.eps = float(module.layer_norm.eps)
    pairs = list(zip(model.encoder, theirs)) + [(model.encoder_layer, module.encoder_layer)]
    for ours, layer in pairs:
        ours.norm_first = bool(layer.norm_first)
        ours.norm1.eps, ours.norm2.eps = float(layer.norm1.eps), float(layer.norm2.eps)
        fn = _activation(layer.activation, "from_pyg: QFormer activation")
        ours.activation = get_activation(fn) or (lambda z: z)
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
