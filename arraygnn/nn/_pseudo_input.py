"""What the pseudo-coordinate convolutions (``GMMConv`` / ``DGLGMMConv``, ``SplineConv``)
share: the call's input checks and the ``from_pyg`` converter's sizes."""

from __future__ import annotations

from typing import Any

from arraygnn.nn._dgl_common import check_edge_feat
from arraygnn.nn._graph_input import check_float_features, parse_input
from arraygnn.nn.linear import _check_features


def pseudo_inputs(
    layer: str,
    first: Any,
    second: Any,
    pseudo: Any,
    size: Any,
    in_src: int,
    dim: int,
    like: Any,
    what: str = "edge_attr",
) -> tuple[Any, Any]:
    """``(inp, pseudo)``: the parsed graph input with 2-D float features (the source ones
    ``in_src`` wide, on the device of ``like``) and the pseudo-coordinates (named ``what`` in
    errors), required and ``[E, dim]`` floats."""
    inp = parse_input(layer, first, second, size)
    for feat, side in ((inp.x_src, "source"), (inp.x_dst, "destination")):
        if feat is not None and feat.ndim != 2:  # the references view rows as matrices
            raise ValueError(
                f"{layer}: {side} features must be [num_nodes, channels], got shape "
                f"{list(feat.shape)}"
            )
    check_float_features(layer, inp.x_src, inp.x_dst)
    _check_features(inp.x_src, in_src, f"{layer} source features", like)
    if pseudo is None:
        raise ValueError(f"{layer}: {what} (the pseudo-coordinates) is required")
    pseudo = check_edge_feat(layer, what, pseudo, inp.num_edges, dim, inp.x_src)
    return inp, pseudo


def pyg_pseudo_sizes(kind: str, module: Any, weight: Any, axis: int, root: Any) -> Any:
    """``from_pyg``'s ``in_channels`` for a PyG layer: the source size from ``weight``'s
    ``axis`` (PyG keeps ``-1`` after sizing a lazy layer), the destination size from the
    ``root`` Linear (``None`` without one) or the declared pair; refuses uninitialised
    (lazy) weights, the root's included (``in_channels=(n, -1)`` before the first call)."""
    lazy = (weight, None if root is None else root.weight)
    if any(type(w).__name__ == "UninitializedParameter" for w in lazy):
        raise ValueError(
            f"from_pyg: {kind} was built with lazy sizes (in_channels=-1) and its weights "
            "are not initialised yet; run the module once on data before converting it"
        )
    in_src = int(weight.shape[axis])
    if not isinstance(module.in_channels, (tuple, list)):
        return in_src
    in_dst = module.in_channels[1]
    if root is not None:
        in_dst = int(root.weight.shape[1])
    return (in_src, in_src if in_dst == -1 else in_dst)
