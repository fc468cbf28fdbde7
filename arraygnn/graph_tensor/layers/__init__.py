"""TF-GNN's modeling layers (``tfgnn.keras.layers`` and ``tensorflow_gnn.models``) on a
GraphTensor, for inference: no Keras, no autograd, NumPy or CuPy arrays.

- graph updates: :class:`GraphUpdate`, :class:`NodeSetUpdate`, :class:`EdgeSetUpdate`,
  :class:`ContextUpdate`;
- convolutions: :class:`SimpleConv` (and :class:`AnyToAnyConvolutionBase` to write your
  own), :class:`Pool`, :class:`Broadcast`;
- next states: :class:`NextStateFromConcat`, :class:`ResidualNextState`,
  :class:`SingleInputNextState`;
- models: :class:`GATv2Conv`, :func:`GATv2EdgePool`, :class:`GCNConv`,
  :func:`VanillaMPNNGraphUpdate`, :class:`MultiHeadAttentionConv`,
  :func:`MultiHeadAttentionEdgePool`, :class:`HGTGraphUpdate`, :func:`MtAlbisGraphUpdate`,
  :class:`GraphSAGEAggregatorConv`, :class:`GraphSAGEPoolingConv`,
  :class:`GraphSAGENextState`, :func:`GraphSAGEGraphUpdate`,
  :class:`GCNGraphSAGENodeSetUpdate`;
- builders (sized from the graph): :func:`GATv2HomGraphUpdate`,
  :func:`GATv2MPNNGraphUpdate`, :func:`GCNHomGraphUpdate`,
  :func:`MultiHeadAttentionHomGraphUpdate`, :func:`MultiHeadAttentionMPNNGraphUpdate`;
- Keras: :func:`dense` (``tf.keras.layers.Dense`` with its input size),
  :func:`load_keras_weights` / :func:`get_keras_weights` (every layer also has
  ``set_weights(list)`` / ``get_weights()``) in the order of Keras' ``get_weights()``.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> from arraygnn.graph_tensor.layers import GraphUpdate, NodeSetUpdate, GATv2Conv
>>> from arraygnn.graph_tensor.layers import SingleInputNextState
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([2]),
...                features={"hidden_state": np.ones((2, 3), np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([1]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0])), target=("n", np.array([1]))))})
>>> gat = GATv2Conv(num_heads=1, per_head_channels=2, receiver_tag=TARGET, receiver_dim=3,
...                 activation=None)
>>> _ = gat.set_weights([np.ones((3, 2)), np.zeros(2), np.ones((3, 2)), np.zeros(2),
...                      np.ones((2, 1))])
>>> out = GraphUpdate(node_sets={"n": NodeSetUpdate({"e": gat}, SingleInputNextState())})(g)
>>> out.node_sets["n"]["hidden_state"].tolist()
[[0.0, 0.0], [3.0, 3.0]]
"""

from arraygnn.graph_tensor.layers._keras import (
    dense,
    get_keras_weights,
    keras_activation,
    load_keras_weights,
)
from arraygnn.graph_tensor.layers.builders import (
    GATv2HomGraphUpdate,
    GATv2MPNNGraphUpdate,
    GCNHomGraphUpdate,
)
from arraygnn.graph_tensor.layers.convolutions import (
    AnyToAnyConvolutionBase,
    Broadcast,
    ConvolutionCall,
    Pool,
    SimpleConv,
)
from arraygnn.graph_tensor.layers.graph_ops import AddSelfLoops, ItemDropout, MakeEmptyFeature
from arraygnn.graph_tensor.layers.graph_sage import (
    GCNGraphSAGENodeSetUpdate,
    GraphSAGEAggregatorConv,
    GraphSAGEGraphUpdate,
    GraphSAGENextState,
    GraphSAGEPoolingConv,
)
from arraygnn.graph_tensor.layers.graph_update import (
    ContextUpdate,
    EdgeSetUpdate,
    GraphUpdate,
    NodeSetUpdate,
)
from arraygnn.graph_tensor.layers.hgt import HGTGraphUpdate
from arraygnn.graph_tensor.layers.models import (
    GATv2Conv,
    GATv2EdgePool,
    GCNConv,
    VanillaMPNNGraphUpdate,
)
from arraygnn.graph_tensor.layers.mt_albis import (
    MtAlbisGraphUpdate,
    MtAlbisNextNodeState,
    MtAlbisSimpleConv,
)
from arraygnn.graph_tensor.layers.multi_head_attention import (
    MultiHeadAttentionConv,
    MultiHeadAttentionEdgePool,
    MultiHeadAttentionHomGraphUpdate,
    MultiHeadAttentionMPNNGraphUpdate,
)
from arraygnn.graph_tensor.layers.next_state import (
    NextStateFromConcat,
    ResidualNextState,
    SingleInputNextState,
)

__all__ = [
    "GraphUpdate",
    "NodeSetUpdate",
    "EdgeSetUpdate",
    "ContextUpdate",
    "AnyToAnyConvolutionBase",
    "ConvolutionCall",
    "SimpleConv",
    "Pool",
    "Broadcast",
    "NextStateFromConcat",
    "ResidualNextState",
    "SingleInputNextState",
    "GATv2Conv",
    "GATv2EdgePool",
    "GCNConv",
    "VanillaMPNNGraphUpdate",
    "GATv2HomGraphUpdate",
    "GATv2MPNNGraphUpdate",
    "GCNHomGraphUpdate",
    "HGTGraphUpdate",
    "MtAlbisGraphUpdate",
    "MtAlbisNextNodeState",
    "MtAlbisSimpleConv",
    "MultiHeadAttentionConv",
    "MultiHeadAttentionEdgePool",
    "MultiHeadAttentionHomGraphUpdate",
    "MultiHeadAttentionMPNNGraphUpdate",
    "GraphSAGEAggregatorConv",
    "GraphSAGEPoolingConv",
    "GraphSAGENextState",
    "GraphSAGEGraphUpdate",
    "GCNGraphSAGENodeSetUpdate",
    "AddSelfLoops",
    "ItemDropout",
    "MakeEmptyFeature",
    "dense",
    "keras_activation",
    "get_keras_weights",
    "load_keras_weights",
]
