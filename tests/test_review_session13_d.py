"""Review of session 13's commits cdb617e..caa0cb8 (remote backend, points / misc nn,
SetTransformer, TFRecord, transforms / utils 3, download / OnDiskDataset): the problems
the reviewer found, each shown failing before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.ops._common as common
from arraygnn.feature_store import InMemoryFeatureStore
from arraygnn.graph_store import InMemoryGraphStore
from arraygnn.utils import get_num_hops


# ---------------------------------------------------------------- get_num_hops (6de2ddc)
def test_get_num_hops_counts_a_users_message_passing_layer_as_pyg():
    """PyG counts every ``MessagePassing`` instance, a user's own layer first of all; the
    class-hierarchy rule counted arraygnn's ``MessagePassing`` subclasses 0."""
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from torch_geometric.utils import get_num_hops as pyg_get_num_hops

    from arraygnn.nn import Linear, MessagePassing
    from arraygnn.nn._module import Module

    class Ours(MessagePassing):
        def __init__(self):
            super().__init__(aggr="add")
            self.lin = Linear(2, 2)

    class Theirs(pyg_nn.MessagePassing):
        def __init__(self):
            super().__init__(aggr="add")
            self.lin = torch.nn.Linear(2, 2)

    class Two(Module):
        _child_names = ("a", "b")

        def __init__(self):
            self.a, self.b = Ours(), Ours()

    assert get_num_hops(Ours()) == pyg_get_num_hops(Theirs()) == 1
    assert get_num_hops(Two()) == 2


def test_get_num_hops_counts_dgls_edge_gat_conv():
    """DGL's ``EdgeGATConv`` passes messages as its ``GATConv`` does (it was missing from
    ``DGL_MESSAGE_PASSING``: 0 hops)."""
    from arraygnn.nn.edge_gat_conv import EdgeGATConv

    assert get_num_hops(EdgeGATConv(4, 3, 2, num_heads=2, rng=0)) == 1


# ------------------------------------------------- GraphStore / FeatureStore id checks (9bab134)
class _Spy:
    def __init__(self, monkeypatch):
        self.calls = 0
        real = common.index_bounds

        def spy(index):
            self.calls += 1
            return real(index)

        monkeypatch.setattr(common, "index_bounds", spy)


def test_sorted_coo_to_csc_bounds_come_from_its_ends(monkeypatch):
    """``is_sorted=True`` COO is checked sorted anyway: its first and last ids are its
    bounds (no extra min / max pass over the edges); out-of-range ends still raise."""
    spy = _Spy(monkeypatch)
    src, dst = np.array([2, 0, 1, 1]), np.array([0, 0, 1, 2])
    gs = InMemoryGraphStore()
    gs.put_edge_index((src, dst), None, "coo", True, (3, 3))
    row, colptr, perm = gs.csc()
    assert perm is None and colptr.tolist() == [0, 2, 3, 4] and spy.calls == 0
    for bad, lo_hi in (([0, 0, 1, 3], r"\[0, 3\]"), ([-1, 0, 1, 2], r"\[-1, 2\]")):
        gs = InMemoryGraphStore()
        gs.put_edge_index((src, np.array(bad)), None, "coo", True, (3, 3))
        with pytest.raises(ValueError, match=r"col ids in " + lo_hi + r", outside \[0, 3\)"):
            gs.csc()
    gs = InMemoryGraphStore()  # unsorted: a lie is still named, before the bounds
    gs.put_edge_index((src, np.array([0, 2, 1, 9])), None, "coo", True, (3, 3))
    with pytest.raises(ValueError, match="is_sorted=True but its col ids are not sorted"):
        gs.csc()


def test_unsorted_conversions_and_row_writes_take_one_bounds_pass(monkeypatch):
    """An unsorted COO (and a row write) finds its id range with
    ``ops._common.index_bounds`` (one pass, a Numba kernel on large arrays), not with
    ``min()`` then ``max()``."""
    spy = _Spy(monkeypatch)
    gs = InMemoryGraphStore()
    gs.put_edge_index((np.array([0, 2, 1]), np.array([1, 0, 0])), None, "coo", size=(3, 3))
    gs.csr()
    gs.csc()
    assert spy.calls == 2
    fs = InMemoryFeatureStore()
    fs.put_tensor(np.zeros((4, 2)), "p", "x", None)
    fs.put_tensor(np.ones((2, 2)), "p", "x", np.array([3, 1]))
    assert spy.calls == 3
    assert fs["p", "x", None][:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match=r"ids in \[0, 4\], outside \[0, 4\)"):
        fs.put_tensor(np.ones((1, 2)), "p", "x", np.array([[0], [4]]))
