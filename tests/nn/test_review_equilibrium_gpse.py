"""Review of EquilibriumAggregation, summary, GPSE / GPSENodeEncoder / AddGPSE /
precompute_GPSE against PyG 2.8.1: the cases the authors' tests leave out (a one-wide
LayerNorm in the potential, two calls in a row on NumPy's global generator, the encoder's
torch-style concatenation dtype, a seeded precomputation over several batches, a dataset
transform during the precomputation, summary of nested models with two instances of one
class)."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
pyg_gpse = pytest.importorskip("torch_geometric.nn.models.gpse")
pyg_data = pytest.importorskip("torch_geometric.data")
pyg_t = pytest.importorskip("torch_geometric.transforms")

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.dataset import PackedDataset  # noqa: E402
from arraygnn.nn.gpse import GPSE, IdentityHead, precompute_GPSE  # noqa: E402
from arraygnn.transforms import AddGPSE, AddSelfLoops  # noqa: E402

SMALL = {"dim_in": 6, "dim_inner": 16, "layers_mp": 3, "num_node_targets": 4}


def _pyg_identity_gpse():
    torch.manual_seed(0)
    ref = pyg_gpse.GPSE(**SMALL, num_graph_targets=3).eval()
    ref.post_mp = pyg_gpse.IdentityHead()
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-1.0, 1.0)
        for name, b in ref.named_buffers():
            if name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
    return ref, agnn.from_pyg(ref)


# ---- EquilibriumAggregation ---------------------------------------------------------------


@pytest.mark.parametrize("hidden,fout", [([1], 1), ([1, 3], 2), ([3, 1], 1)])
def test_equilibrium_one_wide_layer_norm_and_one_output(hidden, fout):
    """A hidden width of 1 (LayerNorm of one feature: its output and Jacobian vanish) and
    out_channels 1, float64, against PyG's autograd descent."""
    torch.manual_seed(1)
    module = pyg_nn.aggr.EquilibriumAggregation(3, fout, hidden, grad_iter=4).double()
    with torch.no_grad():
        for p in module.potential.parameters():
            p.uniform_(-1.0, 1.0)
    ours = agnn.from_pyg(module)
    index = np.array([4, 0, 0, 2, 2, 2, 0], np.int32)
    x = np.random.default_rng(0).normal(size=(7, 3))
    want = module(torch.from_numpy(x), torch.from_numpy(index.astype(np.int64)), dim_size=6)
    got = ours(x, index, dim_size=6)
    assert got.dtype == np.float64
    assert rel_err(got, want.detach().numpy()) <= 1e-12


# ---- GPSENodeEncoder ----------------------------------------------------------------------


def test_node_encoder_concatenates_as_torch_cat():
    """PyG ends with ``torch.cat((h, pos_enc), 1)``, which promotes: integer node features
    beside float32 encodings give float32 (not encodings truncated to integers), float32
    features beside a float64 model's encodings give float64."""
    torch.manual_seed(2)
    ref = pyg_gpse.GPSENodeEncoder(dim_emb=12, dim_pe_in=6, dim_pe_out=4).eval()
    enc = agnn.from_pyg(ref)
    rng = np.random.default_rng(2)
    pe = rng.standard_normal((7, 6)).astype(np.float32)
    x_int = rng.integers(0, 9, (7, 8))
    with torch.no_grad():
        want = ref(torch.from_numpy(x_int), torch.from_numpy(pe)).numpy()
    got = enc(x_int, pe)
    assert got.dtype == want.dtype == np.float32
    assert rel_err(got, want) <= 1e-5

    ref64 = pyg_gpse.GPSENodeEncoder(dim_emb=12, dim_pe_in=6, dim_pe_out=4).double().eval()
    enc64 = agnn.from_pyg(ref64)
    x32 = rng.standard_normal((7, 8)).astype(np.float32)
    pe64 = pe.astype(np.float64)
    with torch.no_grad():
        want = ref64(torch.from_numpy(x32), torch.from_numpy(pe64)).numpy()
    got = enc64(x32, pe64)
    assert got.dtype == want.dtype == np.float64
    assert rel_err(got, want) <= 1e-12


# ---- random features: NumPy's global generator ----------------------------------------------


def test_add_gpse_two_calls_in_a_row_draw_as_pyg():
    """Both draw from NumPy's global legacy generator and advance it alike: the second call
    of each gives the same (new) encodings."""
    ref, model = _pyg_identity_gpse()
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 9, 9, 25, np.int64)
    theirs = pyg_data.Data(edge_index=torch.from_numpy(ei), num_nodes=9)
    np.random.seed(21)
    pyg_add = pyg_t.AddGPSE(ref)
    expected = [pyg_add(theirs.clone()).pestat_GPSE.numpy() for _ in range(2)]
    after_pyg = np.random.random()
    np.random.seed(21)
    add = AddGPSE(model)
    got = [add(Data(edge_index=ei, num_nodes=9)).pestat_GPSE for _ in range(2)]
    assert np.random.random() == after_pyg
    assert not np.allclose(got[0], got[1])
    for g, e in zip(got, expected):
        assert rel_err(g, e) <= 1e-5


# ---- precompute_GPSE ------------------------------------------------------------------------


def _graph_list():
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    return [Data(edge_index=ei, num_nodes=3) for _ in range(3)]


def test_precompute_with_a_seed_draws_once_for_all_batches():
    """``rng=<int>`` is one generator for the whole precomputation (as ``AddGPSE`` turns a
    seed into one): each batch gets new draws, not the seed's first draws again."""
    _, model = _pyg_identity_gpse()
    data = _graph_list()
    seeded = precompute_GPSE(model, data, batch_size=1, rng=5)
    generator = precompute_GPSE(model, data, batch_size=1, rng=np.random.default_rng(5))
    for a, b in zip(seeded, generator):
        np.testing.assert_array_equal(a.pestat_GPSE, b.pestat_GPSE)
    # three identical graphs, independent inputs: different encodings
    assert not np.allclose(seeded[0].pestat_GPSE, seeded[1].pestat_GPSE)
    again = precompute_GPSE(model, data, batch_size=1, rng=5)  # reproducible
    np.testing.assert_array_equal(again[2].pestat_GPSE, seeded[2].pestat_GPSE)


class _PygDataset(pyg_data.InMemoryDataset):
    def __init__(self, data_list, transform=None):
        super().__init__(None, transform=transform)
        self.data, self.slices = self.collate(data_list)


def test_precompute_runs_on_the_raw_graphs_as_pyg():
    """PyG's ``precompute_GPSE`` sets the dataset's transform aside (its graphs get only the
    virtual node) and stores the encodings on the untransformed graphs."""
    ref, model = _pyg_identity_gpse()
    rng = np.random.default_rng(6)
    graphs = [(random_graph(rng, n, n, 2 * n, np.int64), n) for n in (5, 7, 4)]
    theirs = _PygDataset(
        [pyg_data.Data(edge_index=torch.from_numpy(e), num_nodes=n) for e, n in graphs],
        transform=pyg_t.AddSelfLoops(),
    )
    np.random.seed(8)
    pyg_gpse.precompute_GPSE(ref, theirs, batch_size=2)
    ours = PackedDataset.from_data_list(
        [Data(edge_index=e, num_nodes=n) for e, n in graphs], transform=AddSelfLoops()
    )
    before = [ours[i].edge_index.copy() for i in range(len(ours))]
    done = precompute_GPSE(model, ours, batch_size=2, rng=np.random.RandomState(8))
    for i, item in enumerate(done):
        raw = theirs.get(i)
        assert rel_err(item.pestat_GPSE, raw.pestat_GPSE.numpy()) <= 1e-5
        np.testing.assert_array_equal(item.edge_index, raw.edge_index.numpy())
    assert ours.transform is not None  # the caller's dataset is left as it was
    for i, ei in enumerate(before):
        np.testing.assert_array_equal(ours[i].edge_index, ei)


# ---- summary -----------------------------------------------------------------------------


def _rows(table):
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line[1:-1].split(" | ")] for line in lines[1:]]


def test_summary_nested_models_two_instances_of_one_class():
    """Nested Sequentials, two Linear instances of one class (each recording its own
    calls), one of them shared (called twice): PyG's rows."""
    torch.manual_seed(9)
    shared = torch.nn.Linear(4, 4)
    inner = torch.nn.Sequential(shared, torch.nn.Linear(4, 3))
    model = torch.nn.Sequential(shared, inner, pyg_nn.Reshape(-1, 3))
    x = np.random.default_rng(9).normal(size=(5, 4)).astype(np.float32)
    want = _rows(pyg_nn.summary(model, torch.from_numpy(x), max_depth=4))
    # built by hand: from_pyg converts a shared module once per place it appears
    ours_shared = agnn.from_pyg(shared)
    ours = agnn.Sequential(
        ours_shared,
        agnn.Sequential(ours_shared, agnn.from_pyg(inner[1])),
        agnn.Reshape(-1, 3),
    )
    own = {cls: cls.__dict__.get("__call__") for cls in (agnn.Linear, agnn.Sequential)}
    got = _rows(agnn.summary(ours, x, max_depth=4))
    assert got == want
    assert got[1][1:3] == ["[5, 4]", "[5, 4]"] and got[3][1:3] == ["[5, 4]", "[5, 4]"]
    for cls, call in own.items():  # the patched classes are restored
        assert cls.__dict__.get("__call__") is call


def test_summary_does_not_change_later_calls():
    ours = agnn.Sequential(agnn.Linear(3, 4, rng=0), agnn.Linear(4, 2, rng=1))
    x = np.ones((2, 3), np.float32)
    before = ours(x)
    agnn.summary(ours, x)
    np.testing.assert_array_equal(ours(x), before)
    own = type(ours[0]).__dict__.get("__call__")
    agnn.summary(ours, x)
    assert type(ours[0]).__dict__.get("__call__") is own


def test_precompute_without_virtual_nodes_keeps_every_input_row_random():
    """``use_vn=False``: each batch as PyG's ``gpse_process_batch(..., use_vn=False)`` (PyG's
    own ``precompute_GPSE`` drops its ``use_vn`` on the way and zeroes each graph's last
    input row anyway: a documented difference)."""
    ref, model = _pyg_identity_gpse()
    rng = np.random.default_rng(10)
    graphs = [(random_graph(rng, n, n, 2 * n, np.int64), n) for n in (5, 7, 4)]
    theirs = [pyg_data.Data(edge_index=torch.from_numpy(e), num_nodes=n) for e, n in graphs]
    np.random.seed(12)
    expected = []
    for start in (0, 2):
        batch = pyg_data.Batch.from_data_list(theirs[start : start + 2])
        out, ptr = pyg_gpse.gpse_process_batch(ref, batch, "NormalSE", use_vn=False)
        expected += [out[a:b].numpy() for a, b in zip(ptr[:-1], ptr[1:])]
    data = [Data(edge_index=e, num_nodes=n) for e, n in graphs]
    done = precompute_GPSE(model, data, use_vn=False, batch_size=2, rng=np.random.RandomState(12))
    assert [d.pestat_GPSE.shape[0] for d in done] == [5, 7, 4]
    for item, want in zip(done, expected):
        assert rel_err(item.pestat_GPSE, want) <= 1e-5


def test_summary_keeps_the_signatures_layers_read():
    """A layer that reads a sub-layer's call signature while it runs (GPSConv asks whether
    its norm takes ``batch``) computes the same under summary as without it."""
    from arraygnn.nn._module import Module
    from arraygnn.nn.norm.resolver import takes_batch

    class _Norm(Module):
        def __call__(self, x, batch=None):
            return x if batch is None else x + 1

    class _Parent(Module):
        _child_names = ("norm",)

        def __init__(self):
            self.norm = _Norm()
            self.seen = []

        def __call__(self, x, batch):
            self.seen.append(takes_batch(self.norm))
            return self.norm(x, batch=batch) if self.seen[-1] else self.norm(x)

    parent = _Parent()
    x, batch = np.ones((3, 2), np.float32), np.zeros(3, np.int64)
    parent(x, batch)
    rows = _rows(agnn.summary(parent, x, batch))
    assert parent.seen == [True, True]
    assert rows[1] == ["├─(norm)Norm", "[3, 2]", "[3, 2]", "--"]


def test_gpse_hybrid_head_errors_name_the_model_and_argument():
    model = GPSE(**SMALL, num_graph_targets=3, rng=0)
    x = np.ones((5, 6), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="GPSE: batch.*5.*num_graphs|GPSE: batch.*out of range"):
        model(x, ei, np.array([0, 0, 5, 1, 1]), 2)
    with pytest.raises(ValueError, match="GPSE: batch.*negative"):
        model(x, ei, np.array([0, 0, -1, 1, 1]), 2)
    with pytest.raises(TypeError, match="GPSE: batch must be an integer array"):
        model(x, ei, np.array([0, 0, 1, 1, 1.0]), 2)
    with pytest.raises(ValueError, match="GPSE: num_graphs"):
        model(x, ei, np.zeros(5, np.int64), -1)
    with pytest.raises(ValueError, match=r"GPSE: y must have 5 rows"):
        model(x, ei, None, None, np.ones((3, 4)), np.ones((1, 3)))
    # the identity head ignores batch, as PyG's
    model.post_mp = IdentityHead()
    assert model(x, ei, np.array([0, 0, 5, 1, 1]))[0].shape == (5, 16)


def test_reshape_of_a_jax_array():
    """Arrays without strides (JAX, as the other layers accept) are reshaped, not refused
    with an AttributeError (a JAX reshape never copies in place of a view)."""
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(24.0).reshape(4, 6)
    out = agnn.Reshape(-1, 2, 3)(x)
    assert out.shape == (4, 2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.arange(24.0).reshape(4, 2, 3))


@pytest.mark.parametrize("name", ["attentional", "set2set"])
def test_summary_of_pyg_aggregations_arraygnn_keeps_apart(name):
    """PyG's AttentionalAggregation and Set2Set are Aggregations (the hook sees x alone);
    arraygnn's are not ``Aggregation`` subclasses but summarise as PyG's."""
    torch.manual_seed(11)
    if name == "attentional":
        module = pyg_nn.aggr.AttentionalAggregation(torch.nn.Linear(8, 1), torch.nn.Linear(8, 8))
    else:
        module = pyg_nn.aggr.Set2Set(8, processing_steps=2)
    x = np.random.default_rng(11).normal(size=(6, 8)).astype(np.float32)
    index = np.array([0, 0, 1, 1, 1, 2])
    want = pyg_nn.summary(module.eval(), torch.from_numpy(x), torch.from_numpy(index), dim_size=3)
    got = agnn.summary(agnn.from_pyg(module), x, index, dim_size=3)
    assert _rows(got) == _rows(want)


def test_pyg_aggregation_names_are_pygs():
    import importlib
    import inspect
    import pkgutil

    from arraygnn.nn.summary import PYG_AGGREGATIONS

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
                and issubclass(value, pyg_nn.aggr.Aggregation)
                and value is not pyg_nn.aggr.Aggregation
                and value.__module__ == mod.__name__
            ):
                names.add(value.__name__)
    assert names <= PYG_AGGREGATIONS
    assert {"AttentionalAggregation", "Set2Set", "SortAggregation"} <= names


def test_summary_counts_weights_kept_outside_param_names():
    """A layer that lists its weights through its own ``_named_arrays`` (JumpingKnowledge's
    bidirectional LSTM, HeteroConv's convs by edge type) is counted as PyG counts
    ``parameters()``; buffers (batch-norm running statistics) are not."""
    torch.manual_seed(12)
    model = pyg_nn.GCN(8, 16, 3, 4, jk="lstm", norm="batch_norm").eval()
    rng = np.random.default_rng(12)
    x = rng.normal(size=(10, 8)).astype(np.float32)
    ei = rng.integers(0, 10, (2, 20))
    want = {
        r[0]: r[3] for r in _rows(pyg_nn.summary(model, torch.from_numpy(x), torch.from_numpy(ei)))
    }
    got = {r[0]: r[3] for r in _rows(agnn.summary(agnn.from_pyg(model), x, ei))}
    for name in ("GCN", "├─(jk)JumpingKnowledge", "├─(norms)ModuleList"):
        assert got[name] == want[name]

    hetero = pyg_nn.HeteroConv(
        {
            ("a", "to", "b"): pyg_nn.SAGEConv((8, 6), 5),
            ("b", "to", "a"): pyg_nn.GraphConv((6, 8), 5),
        }
    ).eval()
    xs = {
        "a": rng.normal(size=(4, 8)).astype(np.float32),
        "b": rng.normal(size=(3, 6)).astype(np.float32),
    }
    eis = {
        ("a", "to", "b"): np.array([[0, 1, 3], [0, 2, 2]]),
        ("b", "to", "a"): np.array([[0, 2], [1, 3]]),
    }
    want = _rows(
        pyg_nn.summary(
            hetero,
            {k: torch.from_numpy(v) for k, v in xs.items()},
            {k: torch.from_numpy(v) for k, v in eis.items()},
        )
    )
    got = _rows(agnn.summary(agnn.from_pyg(hetero), xs, eis))
    assert got[0][3] == want[0][3]


def test_summary_lists_the_layers_of_a_module_dict():
    """HeteroConv's convs by edge type are rows under ``(convs)ModuleDict``, as PyG's."""
    torch.manual_seed(13)
    rng = np.random.default_rng(13)
    hetero = pyg_nn.HeteroConv(
        {
            ("a", "to", "b"): pyg_nn.SAGEConv((8, 6), 5),
            ("b", "to", "a"): pyg_nn.GraphConv((6, 8), 5),
        }
    ).eval()
    xs = {
        "a": rng.normal(size=(4, 8)).astype(np.float32),
        "b": rng.normal(size=(3, 6)).astype(np.float32),
    }
    eis = {
        ("a", "to", "b"): np.array([[0, 1, 3], [0, 2, 2]]),
        ("b", "to", "a"): np.array([[0, 2], [1, 3]]),
    }
    want = _rows(
        pyg_nn.summary(
            hetero,
            {k: torch.from_numpy(v) for k, v in xs.items()},
            {k: torch.from_numpy(v) for k, v in eis.items()},
        )
    )
    got = _rows(agnn.summary(agnn.from_pyg(hetero), xs, eis))
    assert got == want
    assert len(got) == 4


class _HeteroNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = pyg_nn.SAGEConv((-1, -1), 8)
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x, edge_index):
        return self.lin(self.conv1(x, edge_index).relu())


def test_summary_of_a_to_hetero_program_is_pygs():
    """PyG's to_hetero GraphModule, converted by from_pyg: the same rows (its ModuleDicts
    of layers by node / edge type, each layer's shapes and counts)."""
    torch.manual_seed(14)
    rng = np.random.default_rng(14)
    meta = (["a", "b"], [("a", "to", "b"), ("b", "rev", "a")])
    xs = {
        "a": rng.normal(size=(4, 5)).astype(np.float32),
        "b": rng.normal(size=(3, 5)).astype(np.float32),
    }
    eis = {
        ("a", "to", "b"): np.array([[0, 1, 3], [0, 2, 2]]),
        ("b", "rev", "a"): np.array([[0, 2, 2], [0, 1, 3]]),
    }
    net = pyg_nn.to_hetero(_HeteroNet(), meta)
    tx = {k: torch.from_numpy(v) for k, v in xs.items()}
    te = {k: torch.from_numpy(v) for k, v in eis.items()}
    with torch.no_grad():
        net(tx, te)  # the lazy sizes
    want = _rows(pyg_nn.summary(net, tx, te))
    got = _rows(agnn.summary(agnn.from_pyg(net), xs, eis))
    assert got == want
    assert len(got) == 7


def test_hybrid_head_stacks_targets_as_torch():
    """The targets are padded and stacked as PyG's ``vstack``: integer node targets on top
    of float32 graph targets give float32 (torch's promotion, not NumPy's float64)."""
    torch.manual_seed(15)
    ref = pyg_gpse.GPSE(**SMALL, num_graph_targets=3).eval()
    model = agnn.from_pyg(ref)
    rng = np.random.default_rng(15)
    ei = random_graph(rng, 8, 8, 20, np.int64)
    x = rng.standard_normal((8, 6)).astype(np.float32)
    batch = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    y = rng.integers(0, 5, (8, 4))
    y_graph = rng.standard_normal((2, 3)).astype(np.float32)
    pyg_batch = pyg_data.Batch(
        x=torch.from_numpy(x),
        edge_index=torch.from_numpy(ei),
        batch=torch.from_numpy(batch),
        y=torch.from_numpy(y),
        y_graph=torch.from_numpy(y_graph),
    )
    with torch.no_grad():
        pred_want, true_want = ref(pyg_batch)
    pred, true = model(x, ei, batch, 2, y, y_graph)
    assert true.dtype == true_want.numpy().dtype == np.float32
    np.testing.assert_array_equal(true, true_want.numpy())
    assert rel_err(pred, pred_want.numpy()) <= 1e-5
