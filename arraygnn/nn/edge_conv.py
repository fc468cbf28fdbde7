"""Edge convolution (Wang et al., DGCNN): PyG's ``EdgeConv``,
``x_i' = aggr_{j in N(i)} h([x_i, x_j - x_i])``, ``aggr`` ``'max'`` by default.

When ``h`` starts with a ``Linear`` (a ``Linear``, a ``Sequential`` starting with one, an
``MLP``), its first layer is applied to the nodes, not the edges: ``W [x_i, x_j - x_i] + b =
(W_a - W_b) x_i + b + W_b x_j``, two node products and one SDDMM ``add`` give the first
hidden layer of every edge, and no ``[E, 2 F]`` input is formed. The rest of ``h`` runs
per edge (it is nonlinear), and one scatter reduces the messages on their targets (PyG's
other aggregations, ``aggr_module``: the messages grouped by target, each target's in
edge-id order).

``DynamicEdgeConv`` (PyG's) builds the graph itself on every call: each node's ``k`` nearest
nodes in feature space (:func:`arraygnn.utils.knn`, itself included), then runs the
``EdgeConv`` above on it.

>>> import numpy as np
>>> from arraygnn.nn import MLP
>>> conv = EdgeConv(MLP([6, 8, 4], rng=0))
>>> conv(np.ones((3, 3), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._graph_input import parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import MLP, Linear, Sequential, matmul
from arraygnn.nn.sage_conv import _aggregation, aggregate_edge_messages

__all__ = ["EdgeConv", "DynamicEdgeConv"]

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


def _split_first_linear(nn: Any) -> tuple[Linear, Any] | None:
    """``(first, rest)`` with ``nn(z) == rest(first(z))`` and ``first`` a plain Linear."""
    if type(nn) is Linear:
        return nn, (lambda h: h)
    if type(nn) is Sequential and len(nn) and type(nn[0]) is Linear:
        steps = nn.steps[1:]

        def rest(h: Any) -> Any:
            for step in steps:
                h = step(h)
            return h

        return nn[0], rest
    if type(nn) is MLP and type(nn.lins[0]) is Linear:
        return nn.lins[0], nn.after_first
    return None


class EdgeConv(Module):
    """PyG's ``EdgeConv``.

    Args:
        nn: an arraygnn module mapping ``[x_i, x_j - x_i]`` ``(E, 2 F)`` to ``(E, out)``.
        aggr: ``'max'`` (default), ``'add'`` / ``'sum'``, ``'mean'``, ``'min'`` (a node
            without in-edges gets 0), or PyG's others: a list of names (a
            ``MultiAggregation``, its ``'cat'`` output ``k`` times wider), another name
            (``'std'``, ``'softmax'``, ...) or an :mod:`arraygnn.nn.aggr` object
            (``aggr_module``).

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)`` or
    ``conv(graph, feat)``. Names (PyG): ``nn.*`` (and ``aggr_module.*``).
    """

    _child_names = ("nn", "aggr_module")

    def __init__(self, nn: Module, aggr: Any = "max") -> None:
        layer = type(self).__name__
        if not isinstance(nn, Module):
            raise TypeError(f"{layer}: nn must be an arraygnn.nn Module, got {type(nn).__name__}")
        self.aggr_module = _aggregation(aggr, nn.dtype, f"{layer}: aggr", tuple(_AGGRS))
        self.nn = nn
        self.aggr = _AGGRS[aggr] if self.aggr_module is None else aggr

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any) -> Any:
        from arraygnn import ops

        inp = parse_input("EdgeConv", x_or_graph, edge_index_or_feat)
        x_src, x_dst = inp.x_src, inp.x_dst
        if x_dst is None:
            raise ValueError("EdgeConv: needs destination features (x[1])")
        if x_src.shape[-1] != x_dst.shape[-1]:
            raise ValueError(
                f"EdgeConv: source and destination features must have one width, got "
                f"{x_src.shape[-1]} and {x_dst.shape[-1]}"
            )
        width = int(x_src.shape[-1])
        edges = inp.csr if inp.csr is not None else inp.edge_index
        split = _split_first_linear(self.nn)
        if split is not None and split[0].in_features == 2 * width:
            first, rest = split
            w_a, w_b = first.weight[:, :width], first.weight[:, width:]
            at_dst = matmul(x_dst, (w_a - w_b).T)
            if first.bias is not None:
                at_dst = at_dst + first.bias
            at_src = matmul(x_src, w_b.T)
            hidden = ops.sddmm(edges, at_src, at_dst, op="add", lhs_target="u", rhs_target="v")
            messages = rest(hidden)
        else:
            xi = ops.gather(x_dst, inp.dst)
            xj = ops.gather(x_src, inp.src)
            xp = get_namespace(xi)
            messages = self.nn(xp.concatenate([xi, xj - xi], axis=-1))
        if self.aggr_module is not None:
            return aggregate_edge_messages(self.aggr_module, inp, messages)
        return ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)

    def extra_repr(self) -> str:
        return f"aggr={self.aggr!r}"


class DynamicEdgeConv(EdgeConv):
    """PyG's ``DynamicEdgeConv``: :class:`EdgeConv` on the k-nearest-neighbour graph of the
    input features, rebuilt on every call.

    Args:
        nn: as :class:`EdgeConv`.
        k: neighbours per node, the node itself included (PyG's: it searches ``x_src`` for
            the ``k`` nearest points of each ``x_dst`` row, and a node is its own nearest).
        aggr: as :class:`EdgeConv`.
        num_workers: threads of the neighbour search.

    Call as ``conv(x)``, ``conv(x, batch)``, ``conv((x_src, x_dst))`` or
    ``conv((x_src, x_dst), (batch_src, batch_dst))``: ``batch`` holds the sorted example id
    of every row (neighbours only come from the same example; an example with fewer than
    ``k`` points gives all of them). The graph is :func:`arraygnn.utils.knn` ``(x_src,
    x_dst, k, batch_src, batch_dst)``: ties go to the lower index, and on CuPy features the
    search is a host round trip (the features are copied to the host, the edges back).
    Names (PyG): ``nn.*``; ``from_pyg`` converts a PyG ``DynamicEdgeConv``.

    Shapes:
        input:  x (N, F) or ((N_src, F), (N_dst, F)); batch (N,) or ((N_src,), (N_dst,))
        output: (N_dst, out)

    >>> import numpy as np
    >>> from arraygnn.nn import MLP
    >>> conv = DynamicEdgeConv(MLP([6, 8, 4], rng=0), k=3)
    >>> x = np.random.default_rng(0).random((10, 3)).astype(np.float32)
    >>> conv(x, np.repeat(np.arange(2), 5)).shape
    (10, 4)
    """

    def __init__(self, nn: Module, k: int, aggr: str = "max", num_workers: int = 1) -> None:
        super().__init__(nn, aggr)
        self.k = layer_size("DynamicEdgeConv", "k", k, minimum=1)
        self.num_workers = layer_size("DynamicEdgeConv", "num_workers", num_workers, minimum=1)

    def __call__(self, x: Any, batch: Any = None) -> Any:  # type: ignore[override]
        from arraygnn.utils.knn import knn

        where = "DynamicEdgeConv"
        if isinstance(x, (tuple, list)):
            if len(x) != 2:
                raise ValueError(f"{where}: x must be an array or a pair (x_src, x_dst)")
            x_src, x_dst = x
        else:
            x_src = x_dst = x
        for name, value in (("x_src (x[0])", x_src), ("x_dst (x[1])", x_dst)):
            if not is_array(value):
                raise TypeError(
                    f"{where}: {name} must be a NumPy or CuPy array, got {type(value).__name__}"
                )
            if value.ndim != 2:  # PyG: "Static graphs not supported"
                raise ValueError(
                    f"{where}: node features must be [num_nodes, F], got shape {tuple(value.shape)}"
                )
        if isinstance(batch, (tuple, list)):
            if len(batch) != 2:
                raise ValueError(
                    f"{where}: batch must be an array or a pair (batch_src, batch_dst)"
                )
            b_src, b_dst = batch
        else:
            b_src = b_dst = batch
        if x_src.shape[-1] != x_dst.shape[-1]:
            raise ValueError(
                f"{where}: source and destination features must have one width, got "
                f"{x_src.shape[-1]} and {x_dst.shape[-1]}"
            )
        try:
            assign = knn(x_src, x_dst, self.k, b_src, b_dst, num_workers=self.num_workers)
        except (TypeError, ValueError) as err:  # name the layer, keep knn's reason
            raise type(err)(f"{where}: {err}") from None
        xp = get_namespace(assign)
        edge_index = xp.stack((assign[1], assign[0]))  # [neighbour in x_src, centre in x_dst]
        return super().__call__(x if x_src is x_dst else (x_src, x_dst), edge_index)

    def extra_repr(self) -> str:
        return f"k={self.k}, aggr={self.aggr!r}"
