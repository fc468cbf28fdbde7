"""TF-GNN's input-pipeline layers ``ParseExample``, ``ParseSingleExample`` and
``PadToTotalSizes`` as callables over :mod:`arraygnn.io.example` and
:mod:`arraygnn.padding`.

RULE: ``ParseExample`` returns ONE merged graph (the components of all examples), as
      :func:`arraygnn.io.example.parse_example`; TF-GNN returns a batch of shape ``[n]``
      to be merged with ``merge_batch_to_components()``.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> from arraygnn.padding import SizeConstraints
>>> g = GraphTensor.from_pieces(node_sets={"n": NodeSet.from_fields(sizes=np.array([2]))})
>>> padded, mask = PadToTotalSizes(SizeConstraints(total_num_components=2,
...                                               total_num_nodes={"n": 3}))(g)
>>> padded.node_sets["n"].sizes.tolist(), mask.tolist()
([2, 1], [True, False])
"""

from __future__ import annotations

from typing import Any

__all__ = ["ParseExample", "ParseSingleExample", "PadToTotalSizes"]


def _check_spec(spec: Any, layer: str) -> Any:
    """``TypeError`` for a GraphTensor passed where its spec belongs (its arrays would be
    read as per-item shapes) or for something that is no graph spec at all: the check of
    :func:`arraygnn.io.example.parse_example`, made when the layer is."""
    from arraygnn.io.example import _check_graph_spec

    return _check_graph_spec(spec, f"{layer}: graph_tensor_spec")


class ParseExample:
    """``ParseExample(spec)(serialized_list)``: :func:`arraygnn.io.example.parse_example`
    (one merged GraphTensor; see the module RULE)."""

    def __init__(self, graph_tensor_spec: Any) -> None:
        self.graph_tensor_spec = _check_spec(graph_tensor_spec, "ParseExample")

    def __call__(self, inputs: Any) -> Any:
        from arraygnn.io.example import parse_example

        if isinstance(inputs, (bytes, bytearray, memoryview, str)) or not hasattr(
            inputs, "__iter__"
        ):
            raise TypeError(
                "ParseExample: takes a list of serialized examples (use ParseSingleExample "
                f"for one), got {type(inputs).__name__}"
            )
        return parse_example(self.graph_tensor_spec, inputs)


class ParseSingleExample:
    """``ParseSingleExample(spec)(serialized)``:
    :func:`arraygnn.io.example.parse_single_example`."""

    def __init__(self, graph_tensor_spec: Any) -> None:
        self.graph_tensor_spec = _check_spec(graph_tensor_spec, "ParseSingleExample")

    def __call__(self, inputs: bytes) -> Any:
        from arraygnn.io.example import parse_single_example

        return parse_single_example(self.graph_tensor_spec, inputs)


class PadToTotalSizes:
    """``PadToTotalSizes(sizes_constraints, validate=True)(graph)`` ->
    ``(padded_graph, mask)``: :func:`arraygnn.padding.pad_to_total_sizes`.

    As TF-GNN's layer: ``return_mask=False`` returns the padded graph alone, and
    ``mask_output_feature_name="m"`` also stores the mask as the context feature ``"m"``.
    """

    def __init__(
        self,
        sizes_constraints: Any,
        *,
        return_mask: bool = True,
        mask_output_feature_name: str | None = None,
        validate: bool = True,
    ) -> None:
        if mask_output_feature_name is not None and not isinstance(mask_output_feature_name, str):
            raise TypeError(
                "PadToTotalSizes: mask_output_feature_name must be a str or None, got "
                f"{mask_output_feature_name!r}"
            )
        self.sizes_constraints = sizes_constraints
        self.return_mask = bool(return_mask)
        self.mask_output_feature_name = mask_output_feature_name
        self.validate = validate

    def __call__(self, graph: Any) -> Any:
        from arraygnn.padding import pad_to_total_sizes

        padded, mask = pad_to_total_sizes(graph, self.sizes_constraints, validate=self.validate)
        if self.mask_output_feature_name:  # TF-GNN: "" stores no mask, as None
            context = padded.context.get_features_dict()
            context[self.mask_output_feature_name] = mask
            padded = padded.replace_features(context=context)
        return (padded, mask) if self.return_mask else padded
