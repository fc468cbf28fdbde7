"""``from_torch`` / ``from_pyg`` gaps a PyG-user review found: ``torch.nn.Embedding`` /
``EmbeddingBag``, ``ModuleList`` / ``ModuleDict``, standalone parameter-free modules
(``Identity``, ``Dropout``, activations), and the message for a custom model (with the
``symbolic_trace`` route it names checked to work). Every output is compared with torch's."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arraygnn.nn import from_torch  # noqa: E402
from arraygnn.nn.embedding import Embedding, EmbeddingBag  # noqa: E402


def _t(module, *args, **kwargs):
    module.eval()
    with torch.no_grad():
        out = module(*(torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args))
    return out.numpy()


# ---- Embedding -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (0,), (2, 0, 3)])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_embedding_matches_torch(shape, dtype):
    torch.manual_seed(0)
    emb = torch.nn.Embedding(7, 3)
    ids = np.random.default_rng(0).integers(0, 7, size=shape).astype(dtype)
    ours = from_torch(emb)
    assert isinstance(ours, Embedding)
    assert sorted(ours.state_dict()) == ["weight"]
    out = ours(ids)
    assert out.shape == shape + (3,)
    np.testing.assert_allclose(out, _t(emb, ids), rtol=0, atol=0)


def test_embedding_padding_idx_and_round_trip():
    torch.manual_seed(0)
    emb = torch.nn.Embedding(5, 2, padding_idx=-1)  # torch normalises it to 4
    ours = from_torch(emb)
    assert ours.padding_idx == emb.padding_idx == 4
    ids = np.array([[4, 0], [1, 4]])
    np.testing.assert_array_equal(ours(ids), _t(emb, ids))
    fresh = Embedding(5, 2, padding_idx=4, rng=1)
    np.testing.assert_array_equal(fresh.weight[4], 0)  # torch's initial padding row
    fresh.load_state_dict(emb.state_dict())
    np.testing.assert_array_equal(fresh(ids), ours(ids))


def test_embedding_refusals():
    with pytest.raises(ValueError, match="max_norm"):
        from_torch(torch.nn.Embedding(5, 2, max_norm=1.0))
    with pytest.raises(ValueError, match="max_norm"):
        Embedding(5, 2, max_norm=1.0)
    with pytest.raises(ValueError, match="padding_idx"):
        Embedding(5, 2, padding_idx=5)
    emb = Embedding(5, 2, rng=0)
    with pytest.raises(TypeError, match="input"):
        emb(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match="input"):
        emb(np.array([True, False]))
    with pytest.raises(ValueError, match="input"):
        emb(np.array([0, 5]))
    with pytest.raises(ValueError, match="input"):
        emb(np.array([-1, 0]))
    with pytest.raises(TypeError, match="from_torch"):
        emb(torch.tensor([0, 1]))


# ---- EmbeddingBag ----------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_torch(mode):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(6, 3, mode=mode)
    ours = from_torch(bag)
    assert isinstance(ours, EmbeddingBag) and sorted(ours.state_dict()) == ["weight"]
    ids2d = np.array([[0, 2, 5], [1, 1, 3]])
    np.testing.assert_allclose(ours(ids2d), _t(bag, ids2d), rtol=1e-6, atol=1e-6)
    flat = np.array([0, 2, 5, 1, 1, 3, 4])
    offsets = np.array([0, 3, 3, 6])  # an empty bag gives zeros, as torch's
    np.testing.assert_allclose(ours(flat, offsets), _t(bag, flat, offsets), rtol=1e-6, atol=1e-6)


def test_embedding_bag_last_offset_and_padding():
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(6, 2, mode="mean", include_last_offset=True, padding_idx=0)
    ours = from_torch(bag)
    flat = np.array([0, 2, 5, 0, 0, 3])
    offsets = np.array([0, 3, 5, 6])  # bag 1 is all padding: zeros
    np.testing.assert_allclose(ours(flat, offsets), _t(bag, flat, offsets), rtol=1e-6)


def test_embedding_bag_refusals():
    with pytest.raises(ValueError, match="max_norm"):
        from_torch(torch.nn.EmbeddingBag(5, 2, max_norm=1.0))
    bag = EmbeddingBag(5, 2, rng=0)
    with pytest.raises(ValueError, match="offsets"):
        bag(np.array([0, 1, 2]))  # 1-D input needs offsets
    with pytest.raises(ValueError, match="offsets"):
        bag(np.array([[0, 1]]), np.array([0]))  # 2-D input takes none
    with pytest.raises(ValueError, match="offsets"):
        bag(np.array([0, 1, 2]), np.array([1, 2]))  # torch: offsets[0] must be 0
    with pytest.raises(ValueError, match="offsets"):
        bag(np.array([0, 1, 2]), np.array([0, 2, 1]))
    with pytest.raises(ValueError, match="mode"):
        EmbeddingBag(5, 2, mode="prod")


# ---- ModuleList / ModuleDict -----------------------------------------------------------
def test_module_list_keeps_names_and_outputs():
    torch.manual_seed(0)
    tl = torch.nn.ModuleList([torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)])
    ours = from_torch(tl)
    assert sorted(ours.state_dict()) == sorted(tl.state_dict())
    assert len(ours) == 3
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    h, th = x, x
    for layer, tlayer in zip(ours, tl):
        h, th = layer(h), _t(tlayer, th)
        np.testing.assert_allclose(h, th, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[2](ours[0](x)), _t(tl[2], _t(tl[0], x)), rtol=1e-5)
    ours.load_state_dict(tl.state_dict())  # strict: the same names


def test_module_dict_keeps_names_and_outputs():
    torch.manual_seed(0)
    td = torch.nn.ModuleDict(
        {
            "author": torch.nn.Embedding(4, 3),  # a featureless node type
            "paper": torch.nn.Linear(5, 3),
            "id": torch.nn.Identity(),
            "stack": torch.nn.ModuleList([torch.nn.Linear(3, 3)]),
        }
    )
    ours = from_torch(td)
    assert sorted(ours.state_dict()) == sorted(td.state_dict())
    assert list(ours.keys()) == list(td.keys()) and len(ours) == 4 and "paper" in ours
    ids = np.array([3, 0, 1])
    x = np.random.default_rng(1).standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_array_equal(ours["author"](ids), _t(td["author"], ids))
    np.testing.assert_allclose(ours["paper"](x), _t(td["paper"], x), rtol=1e-5)
    h = ours["paper"](x)
    np.testing.assert_allclose(ours["stack"][0](h), _t(td["stack"][0], h), rtol=1e-5)
    np.testing.assert_array_equal(ours["id"](x), x)
    ours.load_state_dict(td.state_dict())


def test_module_list_of_pyg_layers():
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import from_pyg

    torch.manual_seed(0)
    convs = torch.nn.ModuleList([pyg_nn.GCNConv(3, 4), pyg_nn.SAGEConv(4, 2)])
    ours = from_pyg(convs)
    assert sorted(ours.state_dict()) == sorted(convs.state_dict())
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    h = ours[1](ours[0](x, ei), ei)
    with torch.no_grad():
        ref = convs[1](convs[0](torch.from_numpy(x), torch.from_numpy(ei)), torch.from_numpy(ei))
    np.testing.assert_allclose(h, ref.numpy(), rtol=1e-5, atol=1e-6)


# ---- standalone parameter-free modules -------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.nn.Identity(),
        lambda: torch.nn.Dropout(0.5),
        lambda: torch.nn.AlphaDropout(0.2),
        lambda: torch.nn.ReLU(),
        lambda: torch.nn.ELU(alpha=0.5),
        lambda: torch.nn.LeakyReLU(0.1),
        lambda: torch.nn.Sigmoid(),
        lambda: torch.nn.Tanh(),
        lambda: torch.nn.GELU(),
        lambda: torch.nn.Softmax(dim=-1),
    ],
)
def test_parameter_free_module_standalone(make):
    from arraygnn.nn._module import Module

    module = make()
    ours = from_torch(module)
    assert isinstance(ours, Module) and ours.state_dict() == {}
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(x), _t(module, x), rtol=1e-5, atol=1e-6)
    ours.load_state_dict({})


def test_parameter_free_module_through_from_pyg():
    pytest.importorskip("torch_geometric")
    from arraygnn.nn import from_pyg

    x = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(from_pyg(torch.nn.Identity())(x), x)


def test_unsupported_activation_still_refused():
    prelu = torch.nn.PReLU(2, init=0.5)  # it has a weight: converted with it, never dropped
    np.testing.assert_array_equal(from_torch(prelu).state_dict()["weight"], [0.5, 0.5])
    with pytest.raises((TypeError, ValueError), match="Threshold"):
        from_torch(torch.nn.Threshold(0.1, 2.0))


# ---- custom models ---------------------------------------------------------------------
class _Custom(torch.nn.Module):
    def __init__(self, pyg_nn):
        super().__init__()
        self.conv1 = pyg_nn.GCNConv(3, 4)
        self.lin = torch.nn.Linear(4, 2)

    def forward(self, x, edge_index):
        return self.lin(torch.relu(self.conv1(x, edge_index)))


def test_custom_model_message_names_the_ways_that_work():
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import from_pyg

    model = _Custom(pyg_nn)
    for convert in (from_pyg, from_torch):
        with pytest.raises(TypeError) as info:
            convert(model)
        msg = str(info.value)
        assert "_Custom" in msg and "from_pyg(model.conv1)" in msg
        assert "torch_geometric.nn.fx.symbolic_trace" in msg


def test_custom_model_traced_with_pyg_symbolic_trace():
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from torch_geometric.nn.fx import symbolic_trace

    from arraygnn.nn import from_pyg

    torch.manual_seed(0)
    model = _Custom(pyg_nn)
    ours = from_pyg(symbolic_trace(model))
    assert sorted(ours.state_dict()) == sorted(model.state_dict())
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    np.testing.assert_allclose(ours(x, ei), _t(model, x, ei), rtol=1e-5, atol=1e-6)
    # the route the message names for the submodules: convert them, write the forward
    conv1, lin = from_pyg(model.conv1), from_pyg(model.lin)
    np.testing.assert_allclose(
        lin(np.maximum(conv1(x, ei), 0)), _t(model, x, ei), rtol=1e-5, atol=1e-6
    )


def test_custom_torch_model_traced_with_torch_fx():
    class Plain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(6, 3)
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, ids):
            return self.lin(self.emb(ids)).relu()

    torch.manual_seed(0)
    model = Plain()
    pytest.importorskip("torch_geometric")
    from arraygnn.nn import from_pyg

    ours = from_pyg(torch.fx.symbolic_trace(model))
    ids = np.array([[0, 5], [2, 2]])
    np.testing.assert_allclose(ours(ids), _t(model, ids), rtol=1e-5, atol=1e-6)


def test_unconvertible_parameter_free_module_lists_the_activations():
    with pytest.raises(TypeError, match="RReLU.*supported: ReLU"):
        from_torch(torch.nn.RReLU())  # F.rrelu is no array function arraygnn has


def test_module_list_tied_item_is_one_layer():
    lin = torch.nn.Linear(2, 2)
    tl = torch.nn.ModuleList([lin, lin])
    ours = from_torch(tl)
    assert ours[0] is ours[1]
    assert sorted(ours.state_dict()) == sorted(tl.state_dict())  # both names, as torch's


def test_refusal_messages_name_the_module_kind():
    """A weight-free module that is not an activation (Unflatten) is named as a module arraygnn
    has no layer for, not as an activation; a SAGEConv (PyG's LSTM aggregation, converted)
    passing messages the other way names its flow."""
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import from_pyg, from_torch

    with pytest.raises(TypeError, match="cannot convert Unflatten: arraygnn has no layer"):
        from_torch(torch.nn.Unflatten(1, (2, 2)))
    with pytest.raises(TypeError, match="cannot convert activation RReLU"):
        from_torch(torch.nn.RReLU())
    with pytest.raises(ValueError, match="SAGEConv\\(flow='target_to_source'\\)"):
        from_pyg(pyg_nn.SAGEConv(4, 3, aggr="lstm", flow="target_to_source"))
