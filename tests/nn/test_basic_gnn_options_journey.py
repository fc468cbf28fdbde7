"""A PyG user's journey with the ready-made models (GCN / GAT / GraphSAGE / GIN / EdgeCNN,
MLP): options PyG 2.8.1 takes that the arraygnn models must take too, checked against
PyG in eval mode on tiny graphs (converted with from_pyg, or built natively and loaded
from a saved state dict)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from arraygnn.nn import GCN, MLP, GraphSAGE, from_pyg
from tests.nn._nn_cases import rel_err

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")

IN, HID = 5, 8


def _randomise(model, seed):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    return model.eval()


def _sampled_subgraph():
    """A NeighborLoader-style subgraph: 2 seeds, 4 hop-1 and 4 hop-2 nodes, hop-1 edges
    (into the seeds) before hop-2 edges (into the hop-1 nodes)."""
    gen = np.random.default_rng(0)
    x = gen.normal(size=(10, IN)).astype(np.float32)
    ei = np.array(
        [[2, 3, 4, 5, 3, 6, 7, 8, 9, 6, 2], [0, 0, 1, 1, 1, 2, 3, 4, 5, 5, 3]], dtype=np.int64
    )
    ew = gen.uniform(0.2, 1.5, ei.shape[1]).astype(np.float32)
    ea = gen.normal(size=(ei.shape[1], 3)).astype(np.float32)
    return x, ei, ew, ea, [2, 4, 4], [5, 6]


@pytest.mark.parametrize(
    "name,kwargs,edge",
    [
        ("GCN", {}, "edge_weight"),
        ("GAT", {"heads": 2, "edge_dim": 3}, "edge_attr"),
        ("GraphSAGE", {"jk": "last"}, None),
        ("EdgeCNN", {}, None),
    ],
)
def test_num_sampled_per_hop_keywords_trim_as_pyg(name, kwargs, edge):
    """model(x, edge_index, ..., num_sampled_nodes_per_hop=, num_sampled_edges_per_hop=)
    trims each layer's input (PyG's trim_to_layer), giving PyG's (shorter) output."""
    x, ei, ew, ea, nodes, edges = _sampled_subgraph()
    model = _randomise(getattr(pyg_models, name)(IN, HID, 2, 4, **kwargs), 1)
    ours = from_pyg(model)
    kw = {"edge_weight": ew} if edge == "edge_weight" else {"edge_attr": ea} if edge else {}
    t = torch.as_tensor
    with torch.no_grad():
        expected = model(
            t(x),
            t(ei),
            num_sampled_nodes_per_hop=nodes,
            num_sampled_edges_per_hop=edges,
            **{k: t(v) for k, v in kw.items()},
        ).numpy()
    got = ours(x, ei, num_sampled_nodes_per_hop=nodes, num_sampled_edges_per_hop=edges, **kw)
    assert got.shape == expected.shape == (6, 4)
    assert rel_err(got, expected) < 1e-5
    if name == "GCN":  # PyG refuses to trim edge_weight and edge_attr together
        with pytest.raises(NotImplementedError, match="edge_weight.*edge_attr"):
            ours(x, ei, ew, ea, num_sampled_nodes_per_hop=nodes, num_sampled_edges_per_hop=edges)
        with pytest.raises(ValueError, match="num_sampled_edges_per_hop"):
            ours(x, ei, num_sampled_nodes_per_hop=nodes)
    if name == "GraphSAGE":  # PyG's JumpingKnowledge fails on the layers' row counts
        cat = from_pyg(getattr(pyg_models, name)(IN, HID, 2, 4, jk="cat"))
        with pytest.raises(ValueError, match=r"GraphSAGE: jk='cat'.*\[10, 6\] rows"):
            cat(x, ei, num_sampled_nodes_per_hop=nodes, num_sampled_edges_per_hop=edges)


def test_torch_activation_given_to_a_native_model_or_mlp():
    """act given as a torch module / function (as in PyG code) works on arrays in a model
    built natively; one arraygnn has not is refused when the model is built, naming it."""
    x, ei, ew, _, _, _ = _sampled_subgraph()
    t = torch.as_tensor
    for act in (torch.nn.LeakyReLU(0.2), torch.nn.ELU(alpha=0.5), torch.relu):
        model = _randomise(pyg_models.GCN(IN, HID, 2, 4, act=act), 2)
        buf = io.BytesIO()
        torch.save(model.state_dict(), buf)
        buf.seek(0)
        ours = GCN(IN, HID, 2, 4, act=act).load_state_dict(torch.load(buf))
        with torch.no_grad():
            expected = model(t(x), t(ei), t(ew)).numpy()
        assert rel_err(ours(x, ei, ew), expected) < 1e-5, act
        mlp = _randomise(pyg_models.MLP([IN, HID, 3], act=act, norm=None), 3)
        ours_mlp = MLP([IN, HID, 3], act=act).load_state_dict(mlp.state_dict())
        with torch.no_grad():
            assert rel_err(ours_mlp(x), mlp(t(x)).numpy()) < 1e-5, act
    with pytest.raises(ValueError, match="GCN: act.*RReLU"):
        GCN(IN, HID, 2, act=torch.nn.RReLU())


@pytest.mark.parametrize("act", ["swish", "silu", "SiLU"])
def test_swish_silu_activation(act):
    """PyG's resolver takes 'swish' (its own x * sigmoid(x)) and torch's SiLU by name."""
    x, ei, _, _, _, _ = _sampled_subgraph()
    model = _randomise(pyg_models.GraphSAGE(IN, HID, 2, 4, act=act, jk="max"), 4)
    with torch.no_grad():
        expected = model(torch.as_tensor(x), torch.as_tensor(ei)).numpy()
    assert rel_err(from_pyg(model)(x, ei), expected) < 1e-5
    ours = GraphSAGE(IN, HID, 2, 4, act=act, jk="max").load_state_dict(model.state_dict())
    assert rel_err(ours(x, ei), expected) < 1e-5


def test_lazy_edgecnn_and_mlp_sizes_keywords():
    """EdgeCNN(-1, ...) (its MLP is sized [-2, ...] until the first forward pass) converts
    once run; MLP takes PyG's in_channels / hidden_channels / out_channels / num_layers."""
    x, ei, _, _, _, _ = _sampled_subgraph()
    t = torch.as_tensor
    model = pyg_models.EdgeCNN(-1, HID, 2, 4)
    with torch.no_grad():
        model(t(x), t(ei))
    model = _randomise(model, 5)
    with torch.no_grad():
        expected = model(t(x), t(ei)).numpy()
    assert rel_err(from_pyg(model)(x, ei), expected) < 1e-5
    batch = np.repeat(np.arange(2), 5)
    for layers in (1, 3):
        mlp = pyg_models.MLP(
            in_channels=IN, hidden_channels=7, out_channels=3, num_layers=layers, norm="layer_norm"
        )
        mlp = _randomise(mlp, 6)
        ours = MLP(
            in_channels=IN, hidden_channels=7, out_channels=3, num_layers=layers, norm="layer_norm"
        )
        ours.load_state_dict(mlp.state_dict())
        assert ours.channel_list == mlp.channel_list
        with torch.no_grad():
            expected = mlp(t(x), batch=t(batch), batch_size=2).numpy()
        assert rel_err(ours(x, batch=batch, batch_size=2), expected) < 1e-5
    with pytest.raises(ValueError, match="MLP: .*num_layers"):
        MLP(in_channels=IN, out_channels=3)
    with pytest.raises(ValueError, match="MLP: .*channel_list or"):
        MLP([IN, 3], in_channels=IN, out_channels=3, num_layers=1)


def test_mlp_state_dict_of_pyg_default_norm_names_the_difference():
    """PyG's MLP has norm='batch_norm' by default, arraygnn's None: loading the PyG weights
    into MLP([...]) says so; built with norm='batch_norm' it gives PyG's numbers."""
    x = np.random.default_rng(8).normal(size=(6, IN)).astype(np.float32)
    mlp = _randomise(pyg_models.MLP([IN, HID, 3], dropout=[0.1, 0.2], bias=[True, False]), 9)
    with pytest.raises(KeyError, match="norm='batch_norm'"):
        MLP([IN, HID, 3], bias=[True, False]).load_state_dict(mlp.state_dict())
    ours = MLP([IN, HID, 3], norm="batch_norm", dropout=[0.1, 0.2], bias=[True, False])
    ours.load_state_dict(mlp.state_dict())
    with torch.no_grad():
        assert rel_err(ours(x), mlp(torch.as_tensor(x)).numpy()) < 1e-5
