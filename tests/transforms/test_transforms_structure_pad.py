"""``Pad`` against PyG 2.8's on ``Data`` and ``HeteroData``."""

from __future__ import annotations

import numpy as np
import pytest
from _structure_helpers import (
    assert_matches,
    assert_unchanged,
    hetero_to_pyg,
    random_graph,
    snapshot,
    to_pyg,
)
from test_transforms_structure_features import compare_hetero, hetero

from arraygnn.data import Data
from arraygnn.transforms.pad import (
    AttrNamePadding,
    EdgeTypePadding,
    NodeTypePadding,
    Pad,
    UniformPadding,
)

pyg_pad = pytest.importorskip("torch_geometric.transforms.pad")


def both(name, *args, **kwargs):
    """The same padding object in arraygnn and PyG."""
    ours = {
        "Uniform": UniformPadding,
        "AttrName": AttrNamePadding,
        "NodeType": NodeTypePadding,
        "EdgeType": EdgeTypePadding,
    }[name]
    theirs = getattr(pyg_pad, f"{name}Padding")
    return ours(*args, **kwargs), theirs(*args, **kwargs)


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("mask", [False, True])
@pytest.mark.parametrize("edges", [None, 40])
def test_pad_data(edges, mask, idtype):
    for seed in range(3):
        d = random_graph(seed, idtype=idtype)
        d.edge_attr = np.random.default_rng(seed).random((d.num_edges, 2)).astype(np.float32)
        d.train_mask = np.arange(9) % 2 == 0
        d.y = np.arange(9)
        node_pad, pyg_node_pad = both("AttrName", {"x": -1.0, "y": 7})
        snap = snapshot(d)
        out = Pad(12, edges, node_pad, 3.0, True, mask, node_attrs=["x", "train_mask", "y"])(d)
        assert_unchanged(d, snap)
        ref = pyg_pad.Pad(12, edges, pyg_node_pad, 3.0, True, mask)(to_pyg(d))
        assert_matches(out, ref)
        assert out.edge_index.dtype == idtype


def test_pad_exclude_and_errors():
    d = random_graph(0)
    d.edge_weight = np.ones(d.num_edges, np.float32)
    out = Pad(10, 30, exclude_keys=["edge_weight"])(d)
    ref = pyg_pad.Pad(10, 30, exclude_keys=["edge_weight"])(to_pyg(d))
    assert_matches(out, ref)
    with pytest.raises(ValueError, match="Pad: nodes: 9 nodes cannot be padded to 5"):
        Pad(5, 100)(d)
    with pytest.raises(ValueError, match="Pad: edges: 20 edges cannot be padded to 4"):
        Pad(10, 4)(d)
    with pytest.raises(ValueError, match="Pad: node_pad_value cannot be a NodeTypePadding"):
        Pad(10, node_pad_value=NodeTypePadding({"a": 1.0}))(d)
    with pytest.raises(ValueError, match="UniformPadding: value"):
        UniformPadding("zero")
    with pytest.raises(ValueError, match="EdgeTypePadding: edge type"):
        EdgeTypePadding({"a": 1.0})
    d.label = np.zeros(9)
    with pytest.raises(ValueError, match=r"Pad: .*\['label'\] are neither"):
        Pad(10)(d)
    empty = Data(x=np.zeros((0, 2)), edge_index=np.zeros((2, 0), np.int32))
    assert_matches(Pad(3, 2)(empty), pyg_pad.Pad(3, 2)(to_pyg(empty)))


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("mask", [False, True])
def test_pad_hetero(mask, idtype):
    nodes = {"paper": 8, "author": 5, "inst": 3}
    edges = {("paper", "cites", "paper"): 20}
    for seed in range(3):
        h = hetero(idtype, seed=seed)
        node_pad, pyg_node_pad = both("NodeType", {"paper": -2.0}, default=1.0)
        edge_pad = EdgeTypePadding(
            {("author", "writes", "paper"): AttrNamePadding({"edge_attr": 9.0})}
        )
        pyg_edge_pad = pyg_pad.EdgeTypePadding(
            {("author", "writes", "paper"): pyg_pad.AttrNamePadding({"edge_attr": 9.0})}
        )
        snap = snapshot(h)
        out = Pad(nodes, edges, node_pad, edge_pad, add_pad_mask=mask)(h)
        assert_unchanged(h, snap)
        ref = pyg_pad.Pad(nodes, edges, pyg_node_pad, pyg_edge_pad, add_pad_mask=mask)(
            hetero_to_pyg(h)
        )
        compare_hetero(out, ref)
