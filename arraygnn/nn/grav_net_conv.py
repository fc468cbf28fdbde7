"""GravNet (Qasim et al., 2019): PyG's ``GravNetConv``.

Every node is placed in a learnt space ``s = x W_s + b_s``, finds its ``k`` nearest
nodes there (itself included), and pools their learnt features ``h = x W_h + b_h``
weighted by ``w_ji = exp(-10 ||s_j - s_i||^2)``, by mean and by max:
``x_i' = x_i W_1 + [mean_j w_ji h_j, max_j w_ji h_j] W_2 + b_2``.

How it runs: the graph is :func:`arraygnn.utils.knn` on ``s`` (an exact k-d tree search
in float64; on CuPy a host round trip, as that function says); its edges come sorted by
target, so the CSR build is one pass. The squared distances are one SDDMM ``sub`` over
the ``space_dimensions`` columns (small), and both poolings are weighted SpMMs (``mean``,
``max``) of ``h``: no ``[E, propagate_dimensions]`` message array.

>>> import numpy as np
>>> conv = GravNetConv(4, 3, space_dimensions=2, propagate_dimensions=5, k=3, rng=0)
>>> x = np.random.default_rng(0).random((10, 4)).astype(np.float32)
>>> conv(x, np.repeat(np.arange(2), 5)).shape
(10, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng

__all__ = ["GravNetConv"]


class GravNetConv(Module):
    """PyG's ``GravNetConv``.

    Args:
        in_channels: the input size.
        out_channels: the output size.
        space_dimensions: the size of the learnt space ``s`` the neighbours are found in.
        propagate_dimensions: the size of the pooled features ``h``.
        k: neighbours per node (the node itself among them when it is a source).
        num_workers: threads of the neighbour search (PyG's deprecated argument; ``None``
            is one).

    Call as ``conv(x)``, ``conv(x, batch)``, ``conv((x_src, x_dst))`` or
    ``conv((x_src, x_dst), (batch_src, batch_dst))``: ``batch`` holds the sorted example
    id of every row (neighbours only come from the same example; an example with fewer
    than ``k`` source points gives all of them, one with none pools to 0). Ties in
    distance go to the lower index. Names (PyG): ``lin_s.*``, ``lin_h.*``,
    ``lin_out1.weight``, ``lin_out2.*``.

    Shapes:
        input:  x (N, in_channels) or ((N_src, in_channels), (N_dst, in_channels));
                batch (N,) or ((N_src,), (N_dst,))
        output: (N_dst, out_channels)
    """

    _child_names = ("lin_s", "lin_h", "lin_out1", "lin_out2")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        space_dimensions: int,
        propagate_dimensions: int,
        k: int,
        num_workers: int | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "GravNetConv"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        space = layer_size(name, "space_dimensions", space_dimensions, minimum=1)
        prop = layer_size(name, "propagate_dimensions", propagate_dimensions, minimum=1)
        self.k = layer_size(name, "k", k, minimum=1)
        self.num_workers = (
            1 if num_workers is None else layer_size(name, "num_workers", num_workers, 1)
        )
        gen = _rng(rng)
        self.lin_s = Linear(self.in_channels, space, dtype=dtype, rng=gen)
        self.lin_h = Linear(self.in_channels, prop, dtype=dtype, rng=gen)
        self.lin_out1 = Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=gen)
        self.lin_out2 = Linear(2 * prop, self.out_channels, dtype=dtype, rng=gen)

    def __call__(self, x: Any, batch: Any = None) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import sddmm_slots, spmm_slots
        from arraygnn.utils.knn import knn

        layer = "GravNetConv"
        bipartite = isinstance(x, tuple) or (
            isinstance(x, list) and all(v is None or is_array(v) for v in x)
        )
        if bipartite:
            if len(x) != 2:
                raise ValueError(f"{layer}: x must be an array or a pair (x_src, x_dst)")
            x_src, x_dst = x
            labels = ("x_src (x[0])", "x_dst (x[1])")
        else:
            x_src = x_dst = x
            labels = ("x", "x")
        for what, value in zip(labels, (x_src, x_dst)):
            if not is_array(value):
                raise TypeError(
                    f"{layer}: {what} must be a NumPy or CuPy array, got {type(value).__name__}"
                )
            if value.ndim != 2:  # PyG: "Static graphs not supported"
                raise ValueError(
                    f"{layer}: node features must be (N, F), got shape {tuple(value.shape)}"
                )
            _check_features(value, self.in_channels, f"{layer} {what}", self.lin_s.weight)
        if isinstance(batch, (tuple, list)):
            if len(batch) != 2:
                raise ValueError(
                    f"{layer}: batch must be an array or a pair (batch_src, batch_dst)"
                )
            b_src, b_dst = batch
        else:
            b_src = b_dst = batch
        h = self.lin_h(x_src)
        s_src = self.lin_s(x_src)
        s_dst = self.lin_s(x_dst) if bipartite else s_src
        try:
            assign = knn(s_src, s_dst, self.k, b_src, b_dst, num_workers=self.num_workers)
        except (TypeError, ValueError) as err:  # name the layer, keep knn's reason
            raise type(err)(f"{layer}: {err}") from None
        xp = get_namespace(h)
        num_src, num_dst = int(x_src.shape[0]), int(x_dst.shape[0])
        csr = ops.to_csr((assign[1], assign[0]), num_src, num_dst)
        diff = sddmm_slots(csr, s_src, s_dst, op="sub")
        dist = (diff * diff).sum(axis=-1)
        weight = xp.exp(dist * dist.dtype.type(-10.0))
        pooled = xp.concatenate(
            [spmm_slots(csr, h, weight, "mean"), spmm_slots(csr, h, weight, "max")], axis=1
        )
        return self.lin_out1(x_dst) + self.lin_out2(pooled)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, k={self.k}"
