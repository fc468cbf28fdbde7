"""Review of this session's commits caa0cb8..b6e6463 (DGL batching / subgraph sweep, odd
layouts, lead fixes, ops widths, spmm's small edge-list route, dropout probabilities)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from arraygnn import ops
from arraygnn.nn import GCNConv, summary
from arraygnn.nn._module import Module
from arraygnn.testing.cases import powerlaw_edges
from arraygnn.utils import get_num_hops

spmm_module = importlib.import_module("arraygnn.ops.spmm")  # the module, not the function


# ---- summary: a user's own class that shares a PyG name is not a leaf ---------------------
def _model(name):
    """A user's two-layer model class named ``name`` (not arraygnn's)."""

    class Model(Module):
        _child_names = ("conv1", "conv2")

        def __init__(self):
            super().__init__()
            self.conv1 = GCNConv(3, 4, rng=0)
            self.conv2 = GCNConv(4, 2, rng=0)

        def __call__(self, x, ei):
            return self.conv2(self.conv1(x, ei), ei)

    Model.__name__ = Model.__qualname__ = name
    return Model()


@pytest.mark.parametrize("name", ["Encoder", "Decoder", "GCNConv"])
def test_summary_lists_the_layers_of_a_user_class_named_as_a_pyg_class(name):
    # 054a93e took the leaf names from get_num_hops' list, which holds PyG's protein-MPNN
    # ``Encoder`` / ``Decoder``: a user's own ``Encoder`` lost every row below it. PyG's
    # leaves are ``isinstance(module, MessagePassing)``; get_num_hops already counts only
    # arraygnn's classes by name ("a class of one's own that only shares a name does not").
    model = _model(name)
    x, ei = np.ones((3, 3), np.float32), np.array([[0, 1], [1, 2]])
    table = summary(model, x, ei)
    assert "(conv1)GCNConv" in table and "(conv2)GCNConv" in table, table
    assert get_num_hops(model) == 2


def test_summary_keeps_arraygnn_pyg_named_layers_and_their_subclasses_as_leaves():
    class MyConv(GCNConv):  # a subclass of a PyG MessagePassing class: a leaf, as in PyG
        pass

    x, ei = np.ones((3, 3), np.float32), np.array([[0, 1], [1, 2]])
    for layer in (GCNConv(3, 2, rng=0), MyConv(3, 2, rng=0)):
        rows = summary(layer, x, ei, leaf_module="MessagePassing").splitlines()
        assert not any("lin" in r for r in rows), rows  # no sub-layer rows


# ---- spmm: the small edge-list route for rows wider than NARROW_WIDTH ----------------------
def _bits(a):
    """The bytes with every NaN made the one quiet NaN (signed zeros kept)."""
    return np.where(np.isnan(a), np.nan, a).tobytes()


#: the scatter kernel's routes (see tests/ops/test_ops_spmm_edge_list_narrow_s11.py)
ROUTES = {
    "owner / sorted index": {},
    "tiles": {"TILED_MIN_OUT_BYTES": 0},
    "sort + segment": {"OWNER_MAX_THREADS": 0},
    "owner, sorted-index check off": {"SORTED_INDEX_PATH": False},
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_small_wide_edge_list_spmm_gives_the_csr_bits_on_every_scatter_route(monkeypatch, route):
    """013a6a2 sends an edge list of rows wider than 8 values through gather + scatter when
    it has at most SMALL_MESSAGES message values; the CSR path's bits must hold for every
    reduction, dtype, weight, index dtype and scatter route, with -0.0 / inf / NaN in the
    values and weights (the existing narrow-path tests stop at 8 values per row)."""
    scatter = importlib.import_module("arraygnn.kernels.cpu.scatter")
    for name, value in ROUTES[route].items():
        monkeypatch.setattr(scatter, name, value)
    taken = []
    narrow = spmm_module._narrow_edge_list

    def counted(*args):
        out = narrow(*args)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(spmm_module, "_narrow_edge_list", counted)
    rng = np.random.default_rng(11)
    ei = powerlaw_edges(40, 300, seed=4)
    sorted_targets = np.stack([ei[0], np.sort(ei[1])])  # the scatter's sorted-index path
    for edges in (ei.astype(np.int32), sorted_targets.astype(np.uint16)):
        csr = ops.to_csr(edges.astype(np.int64), 40, 40)
        for dtype in (np.float32, np.float64):
            for shape in ((40, 16), (40, 3, 5)):
                x = rng.standard_normal(shape).astype(dtype)
                x.reshape(-1)[:6] = (-0.0, 0.0, np.inf, -np.inf, np.nan, -0.0)
                w = rng.standard_normal(300).astype(dtype)
                w[:3] = (0.0, -0.0, np.inf)
                for weight in (None, w):
                    for reduce in ("sum", "mean", "max", "min"):
                        got = ops.spmm(edges, x, weight, reduce)
                        want = ops.spmm(csr, x, weight, reduce)
                        assert got.dtype == want.dtype and got.shape == want.shape
                        assert _bits(got) == _bits(want), (dtype, shape, weight is None, reduce)
    assert taken and all(taken)  # every call took the small edge-list route
    # one past the limit takes the CSR path
    x = np.ones((40, 16), np.float32)
    monkeypatch.setattr(spmm_module, "SMALL_MESSAGES", 300 * 16 - 1)
    taken.clear()
    ops.spmm(ei, x)
    assert taken == [False]
