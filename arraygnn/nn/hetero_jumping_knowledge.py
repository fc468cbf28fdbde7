"""PyG's ``HeteroJumpingKnowledge``: one :class:`~arraygnn.nn.JumpingKnowledge` per node
type, applied to that type's list of layer outputs.

``'cat'`` / ``'max'`` have no weights; ``'lstm'`` gives each type its own bidirectional
LSTM and ``att`` (names ``jk_dict.<type>.lstm.*`` / ``jk_dict.<type>.att.*``, PyG's).

>>> import numpy as np
>>> jk = HeteroJumpingKnowledge(["paper", "author"], "cat")
>>> out = jk({"paper": [np.ones((2, 3))] * 2, "author": [np.ones((4, 3))] * 2})
>>> out["paper"].shape, out["author"].shape
((2, 6), (4, 6))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn.nn._module import Module
from arraygnn.nn.hetero_conv import _ModuleDict
from arraygnn.nn.linear import _rng
from arraygnn.nn.models import JumpingKnowledge, jumping_knowledge_from_pyg

__all__ = ["HeteroJumpingKnowledge"]


class HeteroJumpingKnowledge(Module):
    """PyG's ``HeteroJumpingKnowledge``.

    Args:
        types: the node types (strings without dots).
        mode: ``'cat'``, ``'max'`` or ``'lstm'``, in any case (PyG 2.8.1 lowercases it too,
            but builds the LSTM only for the lowercase ``'lstm'``: its ``'LSTM'`` fails when
            called).
        channels, num_layers: the width and number of the representations (``'lstm'``).

    Call as ``jk(xs_dict)`` with ``{type: [layer outputs]}`` holding every type of
    ``types`` (others are ignored, as PyG's); returns ``{type: combined}``.
    """

    _child_names = ("jk_dict",)

    def __init__(
        self,
        types: Sequence[str],
        mode: str,
        channels: int | None = None,
        num_layers: int | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        if isinstance(types, str) or not all(isinstance(t, str) and "." not in t for t in types):
            raise TypeError(
                f"HeteroJumpingKnowledge: types must be a list of names without dots, got {types!r}"
            )
        gen = _rng(rng)
        self.mode = mode.lower() if isinstance(mode, str) else mode
        try:
            jks = {
                t: JumpingKnowledge(mode, channels, num_layers, dtype=dtype, rng=gen) for t in types
            }
        except (TypeError, ValueError) as err:  # name this layer, not the inner one
            msg = str(err).removeprefix("JumpingKnowledge: ")
            raise type(err)(f"HeteroJumpingKnowledge: {msg}") from None
        self.jk_dict = _ModuleDict(jks)

    def __call__(self, xs_dict: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(xs_dict, Mapping):
            raise TypeError(
                f"HeteroJumpingKnowledge: xs_dict must map node types to lists of arrays, got "
                f"{type(xs_dict).__name__}"
            )
        missing = [t for t in self.jk_dict._items if t not in xs_dict]
        if missing:
            raise KeyError(f"HeteroJumpingKnowledge: xs_dict has no entry for types {missing}")
        return {t: jk(xs_dict[t]) for t, jk in self.jk_dict._items.items()}

    def extra_repr(self) -> str:
        return f"num_types={len(self.jk_dict._items)}, mode={self.mode}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``HeteroJumpingKnowledge``, each type's ``JumpingKnowledge`` converted."""
    if module.mode == "lstm" and any(jk.lstm is None for jk in module.jk_dict.values()):
        raise ValueError(
            "from_pyg: this HeteroJumpingKnowledge has mode 'lstm' but no LSTM (PyG builds it "
            "only for the lowercase spelling 'lstm', and its forward then fails)"
        )
    layer = HeteroJumpingKnowledge.__new__(HeteroJumpingKnowledge)
    layer.mode = module.mode
    layer.jk_dict = _ModuleDict(
        {t: jumping_knowledge_from_pyg(jk, dtype) for t, jk in module.jk_dict.items()}
    )
    return layer
