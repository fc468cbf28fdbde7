"""PyG's :class:`AddGPSE`: GPSE encodings (Cantürk et al., "Graph Positional and Structural
Encoder") of a graph from a loaded :class:`~arraygnn.nn.GPSE`, stored as ``pestat_GPSE``.

As PyG's: with ``use_vn`` a virtual node joined to every node in both directions is
appended (:class:`~arraygnn.transforms.VirtualNode`'s edges), random input features are
drawn for all nodes (:func:`arraygnn.nn.gpse.random_features`, one row per node; the
virtual node's row set to zeros), the model runs once, and the encodings of the real nodes
are kept. A ``Batch`` is one graph to PyG's transform (one virtual node joined to every
graph's nodes); :func:`arraygnn.nn.gpse.precompute_GPSE` gives each graph its own.

Random inputs: PyG draws them from NumPy's *global* legacy generator
(``np.random.normal``, not torch's); ``rng=None`` does the same, so ``np.random.seed(s)``
before PyG's transform and before this one gives the same input and the same encodings.
Pass ``rng`` (a seed, a ``Generator`` or a ``RandomState``) for draws independent of the
global state; ``np.random.RandomState(s)`` draws what ``np.random.seed(s)`` would.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.nn import GPSE
>>> from arraygnn.nn.gpse import IdentityHead
>>> model = GPSE(dim_in=4, dim_inner=8, layers_mp=2, rng=0)
>>> model.post_mp = IdentityHead()          # what GPSE.from_pretrained keeps
>>> d = Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3)
>>> AddGPSE(model, rng=0)(d).pestat_GPSE.shape
(3, 8)
"""

from __future__ import annotations

from typing import Any

from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph

__all__ = ["AddGPSE"]

_WHERE = "AddGPSE"


class AddGPSE(BaseTransform):
    """Add ``model``'s GPSE encodings ``[N, F]`` as ``attr_name`` (PyG's ``AddGPSE``).

    Args:
        model: an arraygnn :class:`~arraygnn.nn.GPSE` whose head is
            :class:`~arraygnn.nn.gpse.IdentityHead` (``GPSE.from_pretrained`` or
            ``from_pyg`` of such a PyG model); a torch module is a ``TypeError``.
        use_vn: append a virtual node for the computation (default ``True``).
        rand_type: ``'NormalSE'`` (default), ``'UniformSE'`` or ``'BernoulliSE'``
            (threshold ``model.bernoulli_threshold``). PyG 2.8.1's transform ignores its
            ``rand_type`` and always draws ``'NormalSE'``; this one uses it.
        rng: ``None`` (NumPy's global generator, as PyG), a seed, a ``Generator`` or a
            ``RandomState``; a seed or ``Generator`` is drawn from on every call, so two
            calls give different inputs (as PyG's).
        attr_name: where the encodings go (PyG's fixed ``'pestat_GPSE'``).

    The encodings have the model's dtype and device; the input ``Data`` is not changed
    (PyG's sets the attribute on it).
    """

    def __init__(
        self,
        model: Any,
        use_vn: bool = True,
        rand_type: str = "NormalSE",
        *,
        rng: Any = None,
        attr_name: str = "pestat_GPSE",
    ) -> None:
        from arraygnn.nn.gpse import _RAND_TYPES, IdentityHead, _check_model, _draw_source

        self.model = _check_model(_WHERE, model)
        if not isinstance(model.post_mp, IdentityHead):
            raise ValueError(
                f"{_WHERE}: model must encode (head IdentityHead, as GPSE.from_pretrained "
                f"leaves it), got head {type(model.post_mp).__name__}; set "
                "model.post_mp = arraygnn.nn.gpse.IdentityHead()"
            )
        if rand_type not in _RAND_TYPES:
            raise ValueError(f"{_WHERE}: rand_type must be one of {_RAND_TYPES}, got {rand_type!r}")
        if not isinstance(attr_name, str) or not attr_name:
            raise TypeError(f"{_WHERE}: attr_name must be a non-empty str, got {attr_name!r}")
        self.use_vn = bool(use_vn)
        self.rand_type = rand_type
        self.attr_name = attr_name
        self.rng = _draw_source(rng)

    @property
    def node_outputs(self) -> tuple[str, ...]:
        """The per-node array it adds (a ``Batch`` keeps records for it)."""
        return (self.attr_name,)

    def forward(self, data: Any) -> Any:
        from arraygnn.data import Data
        from arraygnn.nn.gpse import _model_input
        from arraygnn.transforms.virtual_node import VirtualNode

        ei, n = checked_graph(_WHERE, data)
        if self.use_vn:
            ei = VirtualNode()(Data(edge_index=ei, num_nodes=n)).edge_index
        total = n + 1 if self.use_vn else n
        model = self.model
        x = _model_input(model, total, self.rand_type, self.rng, model.bernoulli_threshold)
        if self.use_vn:
            x[-1] = 0
        out = model(x, ei)[0]
        data[self.attr_name] = out[:-1] if self.use_vn else out
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(use_vn={self.use_vn}, rand_type={self.rand_type!r})"
