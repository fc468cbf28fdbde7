"""GPSE, GPSENodeEncoder, PyG's GPSE helpers and the AddGPSE transform against PyG 2.8.1
(weights through ``from_pyg``; float32 within 1e-5 relative, float64 within 1e-12) on random
multigraphs with self-loops, repeated edges and isolated nodes, graphs without edges and
batches holding one, int32 / int64 ids; the same random input features on both sides
(PyG draws them from NumPy's global generator); state-dict names; errors naming the module
and the argument."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.nn.gpse import (
    GPSE,
    GPSENodeEncoder,
    IdentityHead,
    gpse_process,
    gpse_process_batch,
    precompute_GPSE,
    random_features,
)
from arraygnn.transforms import AddGPSE

torch = pytest.importorskip("torch")
pyg_gpse = pytest.importorskip("torch_geometric.nn.models.gpse")
pyg_data = pytest.importorskip("torch_geometric.data")
pyg_t = pytest.importorskip("torch_geometric.transforms")

DTYPES = [np.float32, np.float64]
SMALL = {"dim_in": 6, "dim_inner": 16, "layers_mp": 3, "num_node_targets": 4}


def _pyg(dtype, identity=False, **kwargs):
    """A PyG GPSE in eval mode, every parameter U(-1, 1) and the batch norms' running
    statistics random (so both are checked), converted by ``from_pyg``."""
    torch.manual_seed(0)
    ref = pyg_gpse.GPSE(**{**SMALL, "num_graph_targets": 3, **kwargs})
    ref = ref.to(torch.float64 if dtype == np.float64 else torch.float32).eval()
    if identity:
        ref.post_mp = pyg_gpse.IdentityHead()
    for p in ref.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    for name, b in ref.named_buffers():
        if name.endswith("running_mean"):
            b.uniform_(-0.5, 0.5)
        elif name.endswith("running_var"):
            b.uniform_(0.5, 1.5)
    return ref, agnn.from_pyg(ref)


def _graphs(rng, kind, index_dtype, n=12):
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    return random_graph(rng, n, n, 40, index_dtype, isolated=3)


def _pyg_batch(x, ei, batch, **extra):
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in extra.items()}
    return pyg_data.Batch(
        x=torch.from_numpy(x),
        edge_index=torch.from_numpy(ei.astype(np.int64)),
        batch=None if batch is None else torch.from_numpy(batch.astype(np.int64)),
        **t,
    )


CONFIGS = [
    ("default", {}),
    ("skipconcat", {"stage_type": "skipconcat"}),
    ("no-skip-no-bn", {"stage_type": "none", "has_bn": False, "head_bn": True}),
    ("no-l2-elu", {"has_l2norm": False, "final_l2norm": False, "act": "elu"}),
    ("no-act", {"has_act": False, "final_act": False, "layers_pre_mp": 2}),
    ("max-pool", {"graph_pooling": "max", "layers_post_mp": 3}),
    ("mean-pool-no-vn", {"graph_pooling": "mean", "virtual_node": False}),
    ("no-pre-mp", {"layers_pre_mp": 0, "dim_in": 16}),
    ("linear-stage", {"layer_type": "linear"}),
    ("one-post-layer", {"layers_post_mp": 1, "dim_inner": 32}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["multi", "empty"])
@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_gpse_matches_pyg(config, kind, dtype):
    index_dtype = np.int32 if dtype == np.float32 else np.int64  # both id dtypes, fewer runs
    ref, model = _pyg(dtype, **config[1])
    assert sorted(model.state_dict()) == sorted(
        k for k in ref.state_dict() if not k.endswith("num_batches_tracked")
    )
    rng = np.random.default_rng(1)
    dim_in = config[1].get("dim_in", SMALL["dim_in"])
    # two graphs: the first with self-loops, a repeated edge and isolated nodes (or none
    # at all for "empty"), the second without edges; batch unsorted to test the head's order
    ei = _graphs(rng, kind, index_dtype)
    n = 17
    x = rng.standard_normal((n, dim_in)).astype(dtype)
    batch = np.array([0] * 12 + [1] * 5)
    y = rng.standard_normal((n, 4)).astype(dtype)
    y_graph = rng.standard_normal((2, 3)).astype(dtype)
    x_copy, ei_copy = x.copy(), ei.copy()
    pred, true = model(x, ei, batch, 2, y, y_graph)
    with torch.no_grad():
        expected, expected_true = ref(_pyg_batch(x, ei, batch, y=y, y_graph=y_graph))
    assert pred.dtype == dtype
    assert rel_err(pred, expected.numpy()) <= TOL[dtype]
    np.testing.assert_array_equal(true, expected_true.numpy())
    np.testing.assert_array_equal(x, x_copy)  # nothing the caller passed is changed
    np.testing.assert_array_equal(ei, ei_copy)


@pytest.mark.parametrize("dtype", DTYPES)
def test_identity_head_and_unsorted_batch(dtype):
    ref, model = _pyg(dtype, identity=True)
    assert isinstance(model.post_mp, IdentityHead)
    rng = np.random.default_rng(2)
    ei = random_graph(rng, 15, 15, 50, np.int64)
    x = rng.standard_normal((15, 6)).astype(dtype)
    out, y = model(x, ei)
    with torch.no_grad():
        expected, _ = ref(_pyg_batch(x, ei, None))
    assert y is None and out.shape == (15, 16)
    assert rel_err(out, expected.numpy()) <= TOL[dtype]
    # the hybrid head with graphs interleaved: each graph's last node (in node order) goes
    ref, model = _pyg(dtype)
    batch = rng.permutation(np.repeat([0, 1, 2], 5))
    y = rng.standard_normal((15, 4)).astype(dtype)
    yg = rng.standard_normal((3, 3)).astype(dtype)
    pred, true = model(x, ei, batch, 3, y, yg)
    with torch.no_grad():
        expected, expected_true = ref(_pyg_batch(x, ei, batch, y=y, y_graph=yg))
    assert rel_err(pred, expected.numpy()) <= TOL[dtype]
    np.testing.assert_array_equal(true, expected_true.numpy())


def test_native_model_loads_pyg_state_dict():
    ref, converted = _pyg(np.float32, stage_type="skipconcat", head_bn=True)
    ours = GPSE(**{**SMALL, "num_graph_targets": 3}, stage_type="skipconcat", head_bn=True, rng=0)
    ours.load_state_dict(ref.state_dict())
    rng = np.random.default_rng(4)
    x = rng.standard_normal((9, 6)).astype(np.float32)
    ei = random_graph(rng, 9, 9, 20, np.int64)
    np.testing.assert_array_equal(ours(x, ei)[0], converted(x, ei)[0])


def _checkpoint(tmp_path, ref):
    path = tmp_path / "gpse_model_zinc_1.0.pt"
    torch.save({"model_state": {f"model.{k}": v for k, v in ref.state_dict().items()}}, path)
    return path


def test_from_pretrained_local_file(tmp_path, monkeypatch):
    torch.manual_seed(0)
    ref = pyg_gpse.GPSE()  # the pre-trained models use the default arguments
    for name, b in ref.named_buffers():
        if name.endswith("running_var"):
            b.uniform_(0.5, 1.5)
    path = _checkpoint(tmp_path, ref)
    monkeypatch.setattr(pyg_gpse, "download_url", lambda url, root: str(path))
    expected_model = pyg_gpse.GPSE.from_pretrained("zinc", root=str(tmp_path))
    rng = np.random.default_rng(5)
    ei = random_graph(rng, 10, 10, 30, np.int64)
    x = rng.standard_normal((10, 20)).astype(np.float32)
    with torch.no_grad():
        expected, _ = expected_model(_pyg_batch(x, ei, None))
    for source in ("zinc", torch.load(path)):  # the file where PyG puts it, its contents
        model = GPSE.from_pretrained(source, root=str(tmp_path))
        assert isinstance(model.post_mp, IdentityHead)
        assert rel_err(model(x, ei)[0], expected.numpy()) <= 1e-5
    with pytest.raises(FileNotFoundError, match="downloads nothing.*zenodo"):
        GPSE.from_pretrained("molpcba", root=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no such file"):
        GPSE.from_pretrained(str(tmp_path / "missing.pt"))


ENCODERS = [
    ("mlp2", {}),
    ("mlp1", {"n_layers": 1}),
    ("mlp3-expand", {"n_layers": 3, "expand_x": True, "dim_in": 5}),
    ("linear-nonorm", {"model_type": "linear", "norm_type": None}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", ENCODERS, ids=[c[0] for c in ENCODERS])
def test_node_encoder_matches_pyg(config, dtype):
    torch.manual_seed(0)
    ref = pyg_gpse.GPSENodeEncoder(dim_emb=12, dim_pe_in=6, dim_pe_out=4, **config[1])
    ref = ref.to(torch.float64 if dtype == np.float64 else torch.float32).eval()
    for p in ref.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    if ref.raw_norm is not None:
        ref.raw_norm.running_mean.uniform_(-0.5, 0.5)
        ref.raw_norm.running_var.uniform_(0.5, 1.5)
    enc = agnn.from_pyg(ref)
    assert sorted(enc.state_dict()) == sorted(
        k for k in ref.state_dict() if not k.endswith("num_batches_tracked")
    )
    rng = np.random.default_rng(6)
    x = rng.standard_normal((7, 5 if config[1].get("expand_x") else 8)).astype(dtype)
    pe = rng.standard_normal((7, 6)).astype(dtype)
    out = enc(x, pe)
    with torch.no_grad():
        expected = ref(torch.from_numpy(x), torch.from_numpy(pe)).numpy()
    assert out.dtype == dtype and out.shape == expected.shape
    assert rel_err(out, expected) <= TOL[dtype]
    native = GPSENodeEncoder(12, 6, 4, **config[1], dtype=dtype)
    native.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(native(x, pe), out)


def _pyg_data(ei, n):
    return pyg_data.Data(edge_index=torch.from_numpy(ei.astype(np.int64)), num_nodes=n)


@pytest.mark.parametrize("use_vn", [True, False])
@pytest.mark.parametrize("kind", ["multi", "empty"])
def test_add_gpse_matches_pyg(kind, use_vn):
    ref, model = _pyg(np.float32, identity=True)
    rng = np.random.default_rng(7)
    ei = _graphs(rng, kind, np.int32)
    d = Data(edge_index=ei, num_nodes=12, x=np.ones((12, 2), np.float32))
    np.random.seed(11)
    expected = pyg_t.AddGPSE(ref, use_vn=use_vn)(_pyg_data(ei, 12)).pestat_GPSE.numpy()
    # the same draws: NumPy's global generator seeded alike, or a RandomState of that seed
    np.random.seed(11)
    out_global = AddGPSE(model, use_vn=use_vn)(d)
    out_state = AddGPSE(model, use_vn=use_vn, rng=np.random.RandomState(11))(d)
    for out in (out_global, out_state):
        assert out.pestat_GPSE.shape == (12, 16)
        assert rel_err(out.pestat_GPSE, expected) <= 1e-5
    assert "pestat_GPSE" not in d  # the caller's Data is unchanged
    np.testing.assert_array_equal(d.x, np.ones((12, 2), np.float32))
    # an explicit seed: reproducible, and independent of the global state
    a = AddGPSE(model, rng=3)(d).pestat_GPSE
    np.random.seed(0)
    b = AddGPSE(model, rng=3, attr_name="pe")(d).pe
    np.testing.assert_array_equal(a, b)


def test_add_gpse_on_batch_matches_pyg():
    """A Batch is one graph to PyG's transform: one virtual node joined to all nodes."""
    ref, model = _pyg(np.float32, identity=True)
    rng = np.random.default_rng(8)
    graphs = [(random_graph(rng, 6, 6, 15, np.int64), 6), (np.zeros((2, 0), np.int64), 4)]
    ours = Batch.from_data_list([Data(edge_index=e, num_nodes=n) for e, n in graphs])
    theirs = pyg_data.Batch.from_data_list([_pyg_data(e, n) for e, n in graphs])
    np.random.seed(2)
    expected = pyg_t.AddGPSE(ref)(theirs).pestat_GPSE.numpy()
    out = AddGPSE(model, rng=np.random.RandomState(2))(ours)
    assert rel_err(out.pestat_GPSE, expected) <= 1e-5
    np.testing.assert_array_equal(out.get_example(1).pestat_GPSE, out.pestat_GPSE[6:])


@pytest.mark.parametrize("rand_type", ["NormalSE", "UniformSE", "BernoulliSE"])
def test_gpse_process_helpers_match_pyg(rand_type):
    ref, model = _pyg(np.float32, identity=True)
    rng = np.random.default_rng(9)
    graphs = [(random_graph(rng, 7, 7, 20, np.int64), 7), (np.zeros((2, 0), np.int64), 3)]
    vn = pyg_t.VirtualNode()
    theirs = [vn(_pyg_data(e, n)) for e, n in graphs]
    np.random.seed(4)
    expected, expected_ptr = pyg_gpse.gpse_process_batch(
        ref, pyg_data.Batch.from_data_list(theirs), rand_type
    )
    ours = Batch.from_data_list(
        [Data(edge_index=t.edge_index.numpy(), num_nodes=t.num_nodes) for t in theirs]
    )
    out, ptr = gpse_process_batch(model, ours, rand_type, rng=np.random.RandomState(4))
    assert rel_err(out, expected.numpy()) <= 1e-5
    np.testing.assert_array_equal(ptr, expected_ptr.numpy())
    # precompute_GPSE: the same batches and draws, graph by graph without the virtual node
    data = [Data(edge_index=e, num_nodes=n) for e, n in graphs]
    done = precompute_GPSE(
        model, data, rand_type=rand_type, batch_size=2, rng=np.random.RandomState(4)
    )
    np.testing.assert_array_equal(done[0].pestat_GPSE, out[:7])
    np.testing.assert_array_equal(done[1].pestat_GPSE, out[8:11])
    assert all("pestat_GPSE" not in d for d in data)
    # gpse_process on one graph that already has its virtual node
    np.random.seed(5)
    expected = pyg_gpse.gpse_process(ref, theirs[0], rand_type)
    one = Data(edge_index=theirs[0].edge_index.numpy(), num_nodes=8)
    out = gpse_process(model, one, rand_type, rng=np.random.RandomState(5))
    assert rel_err(out, expected.numpy()) <= 1e-5


def test_random_features():
    np.random.seed(3)
    expected = np.random.uniform(size=(4, 5)) < 0.3
    out = random_features(4, 5, "BernoulliSE", rng=np.random.RandomState(3), bernoulli_thresh=0.3)
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    assert random_features(2, 3, rng=np.random.default_rng(0)).dtype == np.float32


def test_errors():
    model = GPSE(**SMALL, num_graph_targets=3, rng=0)
    x = np.ones((4, 6), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="GPSE x: expected last dimension 6"):
        model(np.ones((4, 5), np.float32), ei)
    with pytest.raises(TypeError, match="GPSE: x must be a float array"):
        model(np.ones((4, 6), np.int64), ei)
    with pytest.raises(ValueError, match=r"GPSE: edge_index\[1\].*entry 9"):
        model(x, np.array([[0, 1], [1, 9]]))
    with pytest.raises(ValueError, match="GPSE: pass num_graphs"):
        model(x, ei, np.zeros(4, np.int64))
    with pytest.raises(ValueError, match=r"GPSE: batch must have shape \(4,\)"):
        model(x, ei, np.zeros(3, np.int64), 1)
    with pytest.raises(TypeError, match="GPSE x must be a NumPy or CuPy array"):
        model(torch.ones(4, 6), ei)
    with pytest.raises(ValueError, match="GPSE: layer_type must be one of"):
        GPSE(layer_type="gcnconv")
    with pytest.raises(ValueError, match="GPSE: graph_pooling must be one of"):
        GPSE(graph_pooling="sum")
    with pytest.raises(ValueError, match="GPSE: stage_type='skipsum'.*dim_inner"):
        GPSE(dim_in=5, dim_inner=8, layers_pre_mp=0)
    with pytest.raises(TypeError, match="GPSE: has_bn must be a bool"):
        GPSE(has_bn="yes")
    with pytest.raises(ValueError, match="GPSE: act="):
        GPSE(act="rrelu")
    with pytest.raises(ValueError, match="GPSENodeEncoder: dim_pe_out .* smaller than dim_emb"):
        GPSENodeEncoder(4, 3, 4)
    with pytest.raises(ValueError, match="GPSENodeEncoder: model_type"):
        GPSENodeEncoder(8, 3, 4, model_type="gru")
    with pytest.raises(ValueError, match="GPSENodeEncoder: expand_x=True needs dim_in"):
        GPSENodeEncoder(8, 3, 4, expand_x=True)
    enc = GPSENodeEncoder(8, 3, 4, rng=0)
    with pytest.raises(ValueError, match="GPSENodeEncoder pos_enc: expected last dimension 3"):
        enc(np.ones((2, 4), np.float32), np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="GPSENodeEncoder: x .* same number of rows"):
        enc(np.ones((3, 4), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="GPSE: rand_type must be one of"):
        random_features(2, 3, "GaussianSE")


def test_transform_and_helper_errors():
    ref, model = _pyg(np.float32)
    with pytest.raises(TypeError, match="AddGPSE: model must be an arraygnn GPSE.*from_pyg"):
        AddGPSE(ref)
    with pytest.raises(ValueError, match="AddGPSE: model must encode.*IdentityHead"):
        AddGPSE(model)
    model.post_mp = IdentityHead()
    with pytest.raises(ValueError, match="AddGPSE: rand_type must be one of"):
        AddGPSE(model, rand_type="normal")
    with pytest.raises(TypeError, match="AddGPSE: attr_name"):
        AddGPSE(model, attr_name=3)
    with pytest.raises(ValueError, match="AddGPSE: .*edge_index"):
        AddGPSE(model)(Data(edge_index=np.array([[0], [5]]), num_nodes=2))
    d = Data(edge_index=np.array([[0], [1]]), num_nodes=2)
    with pytest.raises(ValueError, match="gpse_process: neighbor_loader=True"):
        gpse_process(model, d, "NormalSE", neighbor_loader=True)
    with pytest.raises(ValueError, match="precompute_GPSE: batch_size"):
        precompute_GPSE(model, [d], batch_size=0)
