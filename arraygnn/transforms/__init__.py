"""PyG's ``torch_geometric.transforms`` on arrays: callables that take a
:class:`~arraygnn.data.Data` or :class:`~arraygnn.hetero_data.HeteroData` and return a new
one (the input is never modified). Use them directly, in :class:`Compose`, or as a
dataset's / loader's ``transform``.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.transforms import Compose
>>> Compose([]).transforms
[]
"""

from arraygnn.transforms.add_gpse import AddGPSE
from arraygnn.transforms.attrs import AttributeLevels, attribute_levels
from arraygnn.transforms.base import BaseTransform, Compose, ComposeFilters
from arraygnn.transforms.components import LargestConnectedComponents
from arraygnn.transforms.degree import LocalDegreeProfile, OneHotDegree, TargetIndegree
from arraygnn.transforms.dense import ToDense
from arraygnn.transforms.feature_propagation import FeaturePropagation
from arraygnn.transforms.features import Constant, NormalizeFeatures, SVDFeatureReduction
from arraygnn.transforms.gcn_norm import GCNNorm
from arraygnn.transforms.gdc import GDC
from arraygnn.transforms.geometry import (
    Center,
    LinearTransformation,
    NormalizeRotation,
    NormalizeScale,
    RandomFlip,
    RandomJitter,
    RandomRotate,
    RandomScale,
    RandomShear,
)
from arraygnn.transforms.half_hop import HalfHop
from arraygnn.transforms.isolated import RemoveIsolatedNodes
from arraygnn.transforms.laplacian_lambda_max import LaplacianLambdaMax
from arraygnn.transforms.line_graph import LineGraph
from arraygnn.transforms.link_split import RandomLinkSplit
from arraygnn.transforms.loops import AddRemainingSelfLoops, AddSelfLoops, RemoveSelfLoops
from arraygnn.transforms.masks import IndexToMask, MaskToIndex
from arraygnn.transforms.mesh import Delaunay, FaceToEdge, GenerateMeshNormals, SamplePoints
from arraygnn.transforms.metapaths import AddMetaPaths, AddRandomMetaPaths
from arraygnn.transforms.node_property_split import NodePropertySplit
from arraygnn.transforms.node_split import RandomNodeSplit
from arraygnn.transforms.pad import Pad
from arraygnn.transforms.point_cloud import FixedPoints, GridSampling, KNNGraph, RadiusGraph
from arraygnn.transforms.positional_encoding import AddLaplacianEigenvectorPE, AddRandomWalkPE
from arraygnn.transforms.pseudo_coords import (
    Cartesian,
    Distance,
    LocalCartesian,
    PointPairFeatures,
    Polar,
    Spherical,
)
from arraygnn.transforms.remove_training_classes import RemoveTrainingClasses
from arraygnn.transforms.rooted_subgraph import RootedEgoNets, RootedRWSubgraph
from arraygnn.transforms.sign import SIGN
from arraygnn.transforms.to_device import ToDevice
from arraygnn.transforms.to_sparse_tensor import ToSparseTensor
from arraygnn.transforms.two_hop import TwoHop
from arraygnn.transforms.undirected import RemoveDuplicatedEdges, ToUndirected
from arraygnn.transforms.virtual_node import VirtualNode

__all__ = [
    "AddLaplacianEigenvectorPE",
    "AddRandomWalkPE",
    "AddGPSE",
    "AddRemainingSelfLoops",
    "AddSelfLoops",
    "Constant",
    "GCNNorm",
    "IndexToMask",
    "LargestConnectedComponents",
    "LineGraph",
    "LocalDegreeProfile",
    "MaskToIndex",
    "NormalizeFeatures",
    "OneHotDegree",
    "Pad",
    "RemoveDuplicatedEdges",
    "RemoveIsolatedNodes",
    "RemoveSelfLoops",
    "SIGN",
    "SVDFeatureReduction",
    "TargetIndegree",
    "ToDense",
    "ToDevice",
    "ToSparseTensor",
    "ToUndirected",
    "TwoHop",
    "VirtualNode",
    "Cartesian",
    "Center",
    "Delaunay",
    "Distance",
    "FaceToEdge",
    "FixedPoints",
    "GenerateMeshNormals",
    "GridSampling",
    "KNNGraph",
    "LinearTransformation",
    "LocalCartesian",
    "NormalizeRotation",
    "NormalizeScale",
    "PointPairFeatures",
    "Polar",
    "RadiusGraph",
    "RandomFlip",
    "RandomJitter",
    "RandomLinkSplit",
    "RandomNodeSplit",
    "NodePropertySplit",
    "RandomRotate",
    "RandomScale",
    "RandomShear",
    "SamplePoints",
    "Spherical",
    "AttributeLevels",
    "BaseTransform",
    "Compose",
    "ComposeFilters",
    "attribute_levels",
    "AddMetaPaths",
    "AddRandomMetaPaths",
    "FeaturePropagation",
    "GDC",
    "HalfHop",
    "LaplacianLambdaMax",
    "RemoveTrainingClasses",
    "RootedEgoNets",
    "RootedRWSubgraph",
]
