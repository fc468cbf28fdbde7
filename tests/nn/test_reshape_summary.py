"""``arraygnn.nn.Reshape`` and ``arraygnn.nn.summary`` against PyG's ``Reshape`` and
``summary`` (models converted with ``from_pyg``: the same rows, names, shapes, counts)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import MLP, Linear, Reshape, Sequential, from_pyg, summary  # noqa: E402
from arraygnn.nn.summary import _HEADERS, PYG_MESSAGE_PASSING, _draw_psql  # noqa: E402

# ---- Reshape -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(-1, 6), (4, 3, 2), (2, -1, 3), (24,)])
def test_reshape_is_pygs_view(shape, dtype):
    x = np.arange(24).reshape(4, 6).astype(dtype)
    before = x.copy()
    pyg = pyg_nn.Reshape(*shape)
    ours = from_pyg(pyg)
    assert isinstance(ours, Reshape) and repr(ours) == repr(pyg)
    got = ours(x)
    want = pyg(torch.from_numpy(x)).numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.shares_memory(got, x)  # a view, as torch's
    np.testing.assert_array_equal(x, before)
    assert Reshape(*shape).state_dict() == {}


def test_reshape_errors_where_torch_view_does():
    transposed = np.arange(12.0).reshape(3, 4).T
    with pytest.raises(RuntimeError):
        pyg_nn.Reshape(12)(torch.from_numpy(np.arange(12.0).reshape(3, 4)).t())
    with pytest.raises(ValueError, match="Reshape: .*cannot be viewed as \\(12,\\) without a copy"):
        Reshape(12)(transposed)
    with pytest.raises(RuntimeError):
        pyg_nn.Reshape(5, 3)(torch.ones(4, 4))
    with pytest.raises(
        ValueError, match="Reshape: cannot view x of shape \\(4, 4\\) as \\(5, 3\\)"
    ):
        Reshape(5, 3)(np.ones((4, 4)))
    # a transposed array that can be viewed (a split of one axis) is a view, as torch's
    np.testing.assert_array_equal(Reshape(2, 2, 3)(transposed), transposed.reshape(2, 2, 3))


# ---- summary -----------------------------------------------------------------------------

#: torch modules that arraygnn keeps as plain functions or inside another layer (no row)
_NO_ROW = {
    "Dropout",
    "ReLU",
    "Identity",
    "Tanh",
    "Softplus",
    "Sigmoid",
    "BatchNorm1d",
    "SumAggregation",
    "MeanAggregation",
}


def _rows(table):
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line[1:-1].split(" | ")] for line in lines[1:]]


def _pyg_rows(table):
    return [row for row in _rows(table) if row[0].rpartition(")")[2] not in _NO_ROW]


def _graph(rng, num_nodes=10, num_edges=20):
    x = rng.normal(size=(num_nodes, 8)).astype(np.float32)
    return x, rng.integers(0, num_nodes, (2, num_edges)).astype(np.int64)


def _models():
    torch.manual_seed(0)
    return {
        "gcn": (pyg_nn.GCN(8, 16, 2, 4), {}),
        "sage_batch_norm": (pyg_nn.GraphSAGE(8, 16, 3, 4, norm="batch_norm"), {}),
        "gin": (pyg_nn.GIN(8, 16, 2, 4), {}),
        "gin_no_leaf": (pyg_nn.GIN(8, 16, 2, 4), {"leaf_module": None}),
        "gin_depth_1": (pyg_nn.GIN(8, 16, 2, 4), {"max_depth": 1, "leaf_module": None}),
        "gat_depth_5": (pyg_nn.GAT(8, 16, 2, 4, heads=2), {"max_depth": 5}),
    }


@pytest.mark.parametrize("name", list(_models()))
def test_summary_rows_match_pygs(name):
    model, options = _models()[name]
    model.eval()
    x, edge_index = _graph(np.random.default_rng(0))
    want = pyg_nn.summary(model, torch.from_numpy(x), torch.from_numpy(edge_index), **options)
    got = summary(from_pyg(model), x, edge_index, **options)
    assert _rows(got) == _pyg_rows(want)
    assert len(_rows(got)) >= 3


def test_summary_of_sequential_mlp_and_reshape():
    torch.manual_seed(1)
    x = np.random.default_rng(1).normal(size=(5, 8)).astype(np.float32)
    cases = [
        (torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), pyg_nn.Reshape(-1, 2, 3)), {}),
        (pyg_nn.MLP([8, 4, 5, 3], norm="batch_norm"), {}),
        (pyg_nn.MLP([8, 4, 5, 3], norm="batch_norm"), {"max_depth": 1}),
    ]
    for model, options in cases:
        model.eval()
        want = pyg_nn.summary(model, torch.from_numpy(x), **options)
        got = summary(from_pyg(model), x, **options)
        assert _rows(got) == _pyg_rows(want)


def test_summary_of_a_shared_layer_lists_each_call():
    torch.manual_seed(2)
    lin = torch.nn.Linear(4, 4)
    model = torch.nn.Sequential(lin, torch.nn.ReLU(), lin)
    ours_lin = from_pyg(lin)
    ours = Sequential(ours_lin, "relu", ours_lin)
    x = np.ones((3, 4), np.float32)
    want = pyg_nn.summary(model, torch.from_numpy(x))
    got = summary(ours, x)
    assert _rows(got) == _pyg_rows(want)
    assert _rows(got)[0][3] == "20"  # the shared weights counted once


def test_summary_of_equilibrium_aggregation_names_and_counts():
    """The closed-form layer does not call its potential's sub-layers: names and counts as
    PyG's, shapes only where arraygnn calls the layer."""
    torch.manual_seed(3)
    module = pyg_nn.aggr.EquilibriumAggregation(8, 3, [4, 5])
    x = np.random.default_rng(3).normal(size=(6, 8)).astype(np.float32)
    index = np.array([0, 0, 1, 1, 1, 3])
    want = _pyg_rows(pyg_nn.summary(module, torch.from_numpy(x), torch.from_numpy(index)))
    got = _rows(summary(from_pyg(module), x, index))
    assert [(r[0], r[3]) for r in got] == [(r[0], r[3]) for r in want]
    assert got[0] == want[0]  # the layer itself: x's shape (PyG's hook sees x alone)


def test_leaf_module_and_max_depth():
    mlp = MLP([3, 4, 2], norm=None, rng=0)
    model = Sequential(mlp, Linear(2, 2, rng=1))
    x = np.ones((5, 3), np.float32)
    names = [row[0] for row in _rows(summary(model, x))]
    assert names == [
        "Sequential",
        "├─(0)MLP",
        "│    └─(lins)ModuleList",
        "│    │    └─(0)Linear",
        "│    │    └─(1)Linear",
        "├─(1)Linear",
    ]
    assert len(_rows(summary(model, x, max_depth=2))) == 4
    names = [row[0] for row in _rows(summary(model, x, leaf_module=MLP))]
    assert names == ["Sequential", "├─(0)MLP", "├─(1)Linear"]
    assert len(_rows(summary(model, x, leaf_module=[MLP, Linear]))) == 3
    assert len(_rows(summary(model, x, max_depth=0))) == 1
    assert len(_rows(summary(model, x, max_depth=10))) == 6
    with pytest.raises(ValueError, match="summary: leaf_module"):
        summary(model, x, leaf_module="Conv")
    with pytest.raises(TypeError, match="summary: leaf_module must be classes"):
        summary(model, x, leaf_module=[mlp])
    with pytest.raises(TypeError, match="summary: model must be an arraygnn layer"):
        summary(torch.nn.Linear(3, 2), torch.ones(2, 3))


def test_summary_restores_the_classes_even_on_error():
    model = Sequential(MLP([3, 4, 2], norm=None, rng=0), Linear(2, 2, rng=1))
    own = {cls: cls.__dict__.get("__call__") for cls in (Sequential, MLP, Linear)}
    with pytest.raises(ValueError):
        summary(model, np.ones((5, 7), np.float32))  # wrong width: the MLP raises
    summary(model, np.ones((5, 3), np.float32))
    for cls, call in own.items():
        assert cls.__dict__.get("__call__") is call


def test_default_leaves_are_pygs_message_passing_classes():
    import importlib
    import inspect
    import pkgutil

    names = set()
    for info in pkgutil.walk_packages(pyg_nn.__path__, "torch_geometric.nn."):
        if ".conv.cugraph" in info.name:
            continue
        try:
            mod = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - optional dependencies of PyG
            continue
        for value in vars(mod).values():
            if (
                inspect.isclass(value)
                and issubclass(value, pyg_nn.MessagePassing)
                and value is not pyg_nn.MessagePassing
                and value.__module__ == mod.__name__
            ):
                names.add(value.__name__)
    assert names <= PYG_MESSAGE_PASSING
    assert {"GCNConv", "SAGEConv", "GINConv", "GATConv", "APPNP"} <= names


def test_the_table_drawn_without_tabulate_is_tabulates(monkeypatch):
    tabulate = pytest.importorskip("tabulate").tabulate
    x, edge_index = _graph(np.random.default_rng(4))
    tables = [
        [_HEADERS, ["GCN", "[1, 2]", "[1]", "10,336"], ["├─x", "--", "--", "--"]],
        [_HEADERS, ["A", "[1, 2]", "[]", "16"], ["├─x", "", "", "1,016,000"]],
        [_HEADERS, ["A", "", "[4, 5]", "-1"], ["├─(0)LongerName", "[3]", "[2]", "8"]],
    ]
    for table in tables:
        assert _draw_psql(table) == tabulate(table, headers="firstrow", tablefmt="psql")
    model = from_pyg(pyg_nn.GraphSAGE(8, 16, 2, 4, norm="batch_norm"))
    with_tabulate = summary(model, x, edge_index)
    import builtins

    real_import = builtins.__import__

    def no_tabulate(name, *args, **kwargs):
        if name == "tabulate":
            raise ImportError("no tabulate")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tabulate)
    assert summary(model, x, edge_index) == with_tabulate
