"""Review of session 12's commits (be11fc1..a783ef5): the problems found, each pinned by a
test that failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import Context
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms import RemoveIsolatedNodes


# ------------------------------------------------ 6f1d2ae: Context.from_fields(shape=)
@pytest.mark.parametrize("sizes", [[1], (1,), np.array([1])])
def test_context_shape_is_checked_against_sizes_given_as_a_list(sizes):
    # sizes as a Python list / tuple (as elsewhere in from_fields) was an AttributeError
    # ("'list' object has no attribute 'shape'") once shape= was given
    c = Context.from_fields(sizes=sizes, shape=())
    assert c.sizes.tolist() == [1]
    with pytest.raises(ValueError, match=r"shape \(2,\) does not match"):
        Context.from_fields(sizes=sizes, shape=(2,))


def test_context_shape_with_batched_list_sizes():
    c = Context.from_fields(sizes=[[1], [1]], shape=(2,))
    assert c.sizes.nrows == 2


# ------------------------------------ d9db9d7: hetero RemoveIsolatedNodes, label pairs
def _hetero_with_label_only_store():
    d = HeteroData()
    d["a"].x = np.arange(4.0)[:, None]
    d["b"].x = np.arange(3.0)[:, None]
    d["a", "r", "b"].edge_index = np.array([[1, 3], [0, 2]])
    # an edge type with label pairs only (links to predict, no message-passing edges)
    d["a", "s", "b"].edge_label_index = np.array([[3, 1], [2, 0]], dtype=np.int32)
    d["a", "s", "b"].edge_label = np.array([1.0, 0.0])
    return d


def test_remove_isolated_nodes_renumbers_label_pairs_of_a_store_without_edges():
    # the docstring promises every edge store's edge_label_index is renumbered (or refused
    # when it names a removed node); a store without edge_index kept the old ids, which
    # then pointed past the kept nodes (a has 2 nodes left, the pairs said node 3)
    d = _hetero_with_label_only_store()
    out = RemoveIsolatedNodes()(d)
    assert out["a"].x.ravel().tolist() == [1.0, 3.0]
    assert out["b"].x.ravel().tolist() == [0.0, 2.0]
    pairs = out["a", "s", "b"].edge_label_index
    assert pairs.tolist() == [[1, 0], [1, 0]] and pairs.dtype == np.int32
    assert out["a", "s", "b"].edge_label.tolist() == [1.0, 0.0]  # left alone
    assert d["a", "s", "b"].edge_label_index.tolist() == [[3, 1], [2, 0]]  # input unchanged


def test_remove_isolated_nodes_refuses_label_pairs_naming_a_removed_node_without_edges():
    d = _hetero_with_label_only_store()
    d["a", "s", "b"].edge_label_index = np.array([[0], [0]])  # a node 0 is isolated
    with pytest.raises(ValueError, match=r"\('a', 's', 'b'\): edge_label_index row 0 names"):
        RemoveIsolatedNodes()(d)
    d["a", "s", "c"].edge_label_index = np.array([[1], [0]])  # no node type 'c'
    del d["a", "s", "b"]
    with pytest.raises(ValueError, match=r"\('a', 's', 'c'\).*'c' is not a node type"):
        RemoveIsolatedNodes()(d)


def test_pna_conv_takes_pygs_act_kwargs_and_train_norm_positionally():
    """PyG's PNAConv(..., act, act_kwargs, train_norm): the same numbers with PyG's weights."""
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import PNAConv

    torch.manual_seed(0)
    deg = np.array([0, 3, 2, 1])
    args = (4, 6, ["mean", "max", "std"], ["identity", "amplification"])
    ref = pyg_nn.PNAConv(*args, torch.from_numpy(deg), None, 2, 2, 2, False, "leaky_relu",
                         {"negative_slope": 0.3}, True).eval()  # fmt: skip
    ours = PNAConv(*args, deg, None, 2, 2, 2, False, "leaky_relu", {"negative_slope": 0.3},
                   True, dtype=np.float64)  # fmt: skip
    assert ours.train_norm is True
    ours.load_state_dict({k: v.detach().double().numpy() for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 4))
    ei = np.array([[0, 1, 2, 3, 4, 5, 1], [1, 2, 3, 4, 5, 0, 3]])
    want = ref.double()(torch.from_numpy(x), torch.from_numpy(ei)).detach().numpy()
    np.testing.assert_allclose(ours(x, ei), want, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="PNAConv"):
        PNAConv(*args, deg, act="softsign", act_kwargs={"x": 1})
