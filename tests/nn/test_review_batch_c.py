"""Review of batch C (PyG's MLP with graph norms; SimpleConv, MixHopConv, DirGNNConv,
AntiSymmetricConv, SignedConv, FeaStConv): the behaviour differences against PyG 2.8.1 the
review found, each checked against PyG with weights loaded through ``from_pyg`` (or PyG's
state dict loaded by name)."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

N = 12


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _run(module, *args, **kwargs):
    with torch.no_grad():
        return module(*[_t(a) for a in args], **kwargs).numpy()


def _randomise(module):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            torch.nn.init.uniform_(p, -1.0, 1.0)
    return module.eval()


# ---- SimpleConv ---------------------------------------------------------------------------


@pytest.mark.parametrize("combine_root", ["cat", "sum"])
def test_simple_combine_root_promotes_dtype_as_pyg(combine_root):
    """``combine_root='cat'`` with float64 destination features next to float32 messages:
    PyG's ``torch.cat`` promotes to float64; the root was cast down to float32 before."""
    ref = pyg_nn.SimpleConv("mean", combine_root)
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(0)
    ei = random_graph(rng, N, 8, 30, np.int32)
    x = (rng.standard_normal((N, 4)).astype(np.float32), rng.standard_normal((8, 4)))
    out = conv(x, ei)
    expected = _run(ref, x, ei)
    assert out.dtype == expected.dtype == np.float64
    assert rel_err(out, expected) <= TOL[np.float32]


@pytest.mark.parametrize("combine_root", [None, "sum", "self_loop"])
@pytest.mark.parametrize("weighted", [False, True])
def test_simple_mul_aggregation_as_pyg(weighted, combine_root):
    """PyG's ``SimpleConv`` takes ``aggr='mul'`` (a product, 1 for a target without
    in-edges); it was refused."""
    ref = pyg_nn.SimpleConv("mul", combine_root)
    conv = agnn.from_pyg(ref)
    assert conv.aggr == "mul"
    rng = np.random.default_rng(10)
    for kind in ("multi", "empty"):
        ei = random_graph(rng, N, N, 30, np.int64, isolated=3)
        if kind == "empty":
            ei = ei[:, :0]
        x = rng.uniform(0.5, 1.5, (N, 4)) * rng.choice([-1.0, 1.0], (N, 4))
        w = rng.uniform(0.5, 1.5, ei.shape[1]) if weighted else None
        expected = _run(ref, x, ei, w)
        out = conv(x, ei, w)
        assert out.dtype == expected.dtype
        assert rel_err(out, expected) <= TOL[np.float64]
        assert rel_err(agnn.SimpleConv("mul", combine_root)(x, ei, w), expected) <= 1e-12


@pytest.mark.parametrize("aggr", ["sum", "mean"])
def test_simple_self_loop_with_narrow_ids(aggr):
    """``combine_root='self_loop'`` made its loop ids in the caller's id dtype: uint8 ids
    on 300 nodes wrapped at 256 (nodes 256+ lost their loop, nodes 0-43 got two)."""
    ref = pyg_nn.SimpleConv(aggr, "self_loop")
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((300, 3))
    ei = rng.integers(0, 256, (2, 400)).astype(np.uint8)
    w = rng.uniform(0.5, 1.5, 400)
    assert rel_err(conv(x, ei, w), _run(ref, x, ei, w)) <= TOL[np.float64]
    assert rel_err(conv(x, ei), _run(ref, x, ei)) <= TOL[np.float64]


# ---- FeaStConv ----------------------------------------------------------------------------


def test_feast_from_pyg_lazy_in_channels():
    ref = pyg_nn.FeaStConv(-1, 3, heads=2)
    rng = np.random.default_rng(1)
    ei = random_graph(rng, N, N, 40, np.int64)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    _run(ref, x, ei)  # sizes the lazy weights
    ref = _randomise(ref)
    conv = agnn.from_pyg(ref)
    assert conv.in_channels == 5
    assert rel_err(conv(x, ei), _run(ref, x, ei)) <= TOL[np.float32]
    with pytest.raises(ValueError, match="from_pyg: FeaStConv was built with lazy sizes"):
        agnn.from_pyg(pyg_nn.FeaStConv(-1, 3))


def test_feast_bipartite_loops_need_a_source_per_target():
    """PyG adds loops ``(i, i)`` for every target: with more targets than sources the loop
    sources do not exist. The error names the layer and ``add_self_loops`` (it came from
    inside ``to_csr`` without the layer's name)."""
    conv = agnn.FeaStConv(4, 3, heads=2, rng=0)
    x = (np.ones((3, 4), np.float32), np.ones((5, 4), np.float32))
    ei = np.array([[0, 1, 2], [4, 3, 0]])
    with pytest.raises(ValueError, match="FeaStConv: add_self_loops"):
        conv(x, ei)
    # without loops, or with at least as many sources as targets, it runs
    assert agnn.FeaStConv(4, 3, 2, False, rng=0)(x, ei).shape == (5, 3)
    assert conv((x[1], x[0]), np.array([[4, 3], [0, 1]])).shape == (3, 3)


def test_feast_rejects_middle_dimensions():
    """``[N, *, F]`` features crashed inside a NumPy reshape; now a ValueError naming the
    layer (the head softmax is written for ``[N, F]``)."""
    conv = agnn.FeaStConv(4, 3, heads=2, rng=0)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    with pytest.raises(ValueError, match=r"FeaStConv: node features must be \[num_nodes"):
        conv(np.ones((3, 2, 4), np.float32), ei)


@pytest.mark.parametrize("layer", ["feast", "simple"])
def test_csr_and_graph_forms_give_the_edge_index_numbers(layer):
    """SimpleConv / FeaStConv (without loops) reuse the caller's CSR or the graph's cached
    one (``csr_of``): per-edge values (edge weights, FeaSt's head weights) must still meet
    their edges, as in PyG's form."""
    arraygnn = pytest.importorskip("arraygnn")
    from arraygnn import ops

    rng = np.random.default_rng(14)
    ei = random_graph(rng, N, N, 40, np.int64)
    x = rng.standard_normal((N, 4)).astype(np.float32)
    if layer == "feast":
        ref = _randomise(pyg_nn.FeaStConv(4, 3, 2, add_self_loops=False))
        conv, extra = agnn.from_pyg(ref), ()
    else:
        ref = pyg_nn.SimpleConv("max")
        conv, extra = agnn.from_pyg(ref), (rng.uniform(-1.0, 1.0, 40).astype(np.float32),)
    expected = _run(ref, x, ei, *extra)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    assert rel_err(conv(g, x, *extra), expected) <= TOL[np.float32]
    csr = ops.to_csr((ei[0], ei[1]), N, N)
    assert rel_err(conv(x, csr, *extra), expected) <= TOL[np.float32]


# ---- SignedConv ---------------------------------------------------------------------------


def test_signed_from_pyg_lazy_in_channels():
    ref = pyg_nn.SignedConv(-1, 3, first_aggr=True)
    rng = np.random.default_rng(2)
    pos = random_graph(rng, N, N, 30, np.int64)
    neg = random_graph(rng, N, N, 20, np.int32)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    _run(ref, x, pos, neg)  # sizes the lazy weights
    ref = _randomise(ref)
    conv = agnn.from_pyg(ref)
    assert conv.in_channels == 5
    assert rel_err(conv(x, pos, neg), _run(ref, x, pos, neg)) <= TOL[np.float32]


@pytest.mark.parametrize("first_aggr", [True, False])
def test_signed_middle_dimensions_are_independent(first_aggr):
    """A deeper layer sliced ``[pos, neg]`` along dimension 1, not the feature dimension:
    ``[N, *, 2F]`` features failed (or mixed the middle dimension into the features). Each
    middle slice must give PyG's output for that slice."""
    ref = _randomise(pyg_nn.SignedConv(2, 3, first_aggr).double())
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(3)
    pos = random_graph(rng, N, N, 30, np.int64)
    neg = random_graph(rng, N, N, 20, np.int64)
    width = 2 if first_aggr else 4
    x = rng.standard_normal((N, 3, width))
    out = conv(x, pos, neg)
    assert out.shape == (N, 3, 6)
    for k in range(3):
        assert rel_err(out[:, k], _run(ref, x[:, k], pos, neg)) <= TOL[np.float64]


# ---- DirGNNConv ---------------------------------------------------------------------------


def test_dir_gnn_res_gated_root_weights_as_pyg():
    """PyG switches ``root_weight`` off on its two copies of a ``ResGatedGraphConv`` (their
    ``lin_skip`` stays unused); the conversion once gave numbers 60-90 % off PyG's, was
    then refused, and now reads ``root_weight`` at call time: it matches PyG with and
    without root weights."""
    rng = np.random.default_rng(4)
    ei = random_graph(rng, N, N, 40, np.int32)
    x = rng.standard_normal((N, 4)).astype(np.float32)
    for root_weight in (True, False):
        inner = pyg_nn.ResGatedGraphConv(4, 3, root_weight=root_weight)
        ref = _randomise(pyg_nn.DirGNNConv(inner, 0.3))
        conv = agnn.from_pyg(ref)
        assert rel_err(conv(x, ei), _run(ref, x, ei)) <= TOL[np.float32]


def test_dir_gnn_root_width_mismatch_is_named():
    """A wrapped layer whose output is wider than ``out_channels`` (GAT's concatenated
    heads) failed in NumPy's broadcasting (PyG fails too); the error now names the layer
    and ``root_weight``."""
    gat = agnn.GATConv(4, 3, heads=2, allow_zero_in_degree=True, rng=0)
    conv = agnn.DirGNNConv(gat)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    with pytest.raises(ValueError, match="DirGNNConv: .*root_weight=False"):
        conv(x, ei)
    assert agnn.DirGNNConv(gat, root_weight=False)(x, ei).shape == (5, 6)


def test_dir_gnn_drops_the_wrapped_layers_cache():
    """Wrapping a ``cached=True`` layer that already ran copied its cached normalisation
    (built over the forward edges, with self-loops) into both copies: the reversed copy
    reused it. The copies now start without a cache, as a fresh PyG wrap does."""
    ref = _randomise(pyg_nn.DirGNNConv(pyg_nn.GCNConv(4, 3, cached=True), 0.3))
    rng = np.random.default_rng(13)
    ei = random_graph(rng, N, N, 40, np.int64)
    x = rng.standard_normal((N, 4)).astype(np.float32)
    base = agnn.GCNConv(4, 3, cached=True, allow_zero_in_degree=True, rng=0)
    base(x, ei)  # fills its cache (A + I, forward edges)
    conv = agnn.DirGNNConv(base, 0.3)
    conv.load_state_dict(ref.state_dict())
    assert rel_err(conv(x, ei), _run(ref, x, ei)) <= TOL[np.float32]


def test_dir_gnn_graph_form():
    """``conv(graph, feat)`` was parsed, then the graph was handed on as ``x`` with the
    reversed edge_index as its features (an error naming the wrapped layer's rows, or a
    wrong result). Now the DGL form gives the PyG form's numbers."""
    arraygnn = pytest.importorskip("arraygnn")
    ref = _randomise(pyg_nn.DirGNNConv(pyg_nn.GCNConv(4, 3), 0.3))
    conv = agnn.from_pyg(ref)
    rng = np.random.default_rng(12)
    ei = random_graph(rng, N, N, 40, np.int64)
    x = rng.standard_normal((N, 4)).astype(np.float32)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    assert rel_err(conv(g, x), _run(ref, x, ei)) <= TOL[np.float32]


# ---- AntiSymmetricConv --------------------------------------------------------------------


def test_antisymmetric_act_kwargs_as_pyg():
    """PyG resolves ``act`` by name with ``act_kwargs``; they were refused."""
    ref = pyg_nn.AntiSymmetricConv(4, act="leaky_relu", act_kwargs={"negative_slope": 0.3})
    ref = _randomise(ref)
    native = agnn.AntiSymmetricConv(
        4, act="LeakyReLU", act_kwargs={"negative_slope": 0.3}, rng=0
    ).load_state_dict(ref.state_dict())
    rng = np.random.default_rng(5)
    ei = random_graph(rng, N, N, 40, np.int64)
    x = rng.standard_normal((N, 4)).astype(np.float32)
    expected = _run(ref, x, ei)
    assert rel_err(native(x, ei), expected) <= TOL[np.float32]
    assert rel_err(agnn.from_pyg(ref)(x, ei), expected) <= TOL[np.float32]
    with pytest.raises(ValueError, match="AntiSymmetricConv: act"):
        agnn.AntiSymmetricConv(4, act="tanh", act_kwargs={"negative_slope": 0.3})


def test_antisymmetric_phi_of_the_wrong_width_is_named():
    """A ``phi`` that does not map ``in_channels -> in_channels`` failed inside NumPy's
    broadcasting; the error now names the layer and ``phi``."""
    conv = agnn.AntiSymmetricConv(4, phi=agnn.GCNConv(4, 3, rng=0), rng=0)
    with pytest.raises(ValueError, match="AntiSymmetricConv: phi"):
        conv(np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]]))


# ---- MLP ----------------------------------------------------------------------------------

CHANNELS = [5, 8, 7, 3]


def _x_batch(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((9, CHANNELS[0])), np.array([0, 0, 1, 1, 1, 2, 2, 0, 2])


@pytest.mark.parametrize("plain_last", [True, False])
def test_mlp_bias_list_as_pyg(plain_last):
    """PyG takes one ``bias`` per layer; a list was read as ``True`` for every layer (and
    ``from_pyg`` refused PyG MLPs with mixed biases)."""
    bias = [True, False, True]
    ref = _randomise(
        pyg_nn.MLP(CHANNELS, bias=bias, norm="layer_norm", plain_last=plain_last).double()
    )
    x, batch = _x_batch(6)
    expected = _run(ref, x, batch)
    conv = agnn.from_pyg(ref)
    assert rel_err(conv(x, batch), expected) <= TOL[np.float64]
    native = agnn.MLP(
        CHANNELS, bias=bias, norm="layer_norm", plain_last=plain_last, dtype=np.float64
    )
    assert sorted(native.state_dict()) == sorted(ref.state_dict())
    native.load_state_dict(ref.state_dict())
    assert rel_err(native(x, batch), expected) <= TOL[np.float64]
    with pytest.raises(ValueError, match="MLP: bias"):
        agnn.MLP(CHANNELS, bias=[True, False])


def test_mlp_act_kwargs_and_pyg_act_names():
    """``act`` by any name PyG's resolver takes (``'LeakyReLU'``) with ``act_kwargs``."""
    ref = pyg_nn.MLP(CHANNELS, act="leaky_relu", act_kwargs={"negative_slope": 0.3}, norm=None)
    ref = _randomise(ref.double())
    x, _ = _x_batch(7)
    expected = _run(ref, x)
    for act in ("leaky_relu", "LeakyReLU"):
        native = agnn.MLP(
            CHANNELS, act=act, act_kwargs={"negative_slope": 0.3}, dtype=np.float64
        ).load_state_dict(ref.state_dict())
        assert rel_err(native(x), expected) <= TOL[np.float64]
    with pytest.raises(ValueError, match="MLP: act"):
        agnn.MLP(CHANNELS, act="relu", act_kwargs={"negative_slope": 0.3})
    with pytest.raises(ValueError, match="MLP: act"):
        agnn.MLP(CHANNELS, act="rrelu")


def test_mlp_dropout_is_the_identity_at_inference():
    """PyG's ``dropout`` (a float or one per layer) does nothing in ``eval()``; it was an
    unexpected keyword argument."""
    ref = _randomise(pyg_nn.MLP(CHANNELS, dropout=[0.5, 0.2, 0.1], norm="graph_norm").double())
    x, batch = _x_batch(8)
    native = agnn.MLP(
        CHANNELS, dropout=[0.5, 0.2, 0.1], norm="graph_norm", dtype=np.float64
    ).load_state_dict(ref.state_dict())
    assert rel_err(native(x, batch), _run(ref, x, batch)) <= TOL[np.float64]
    assert agnn.MLP(CHANNELS, dropout=0.5).dropout == [0.5, 0.5, 0.0]  # PyG's plain_last rule
    with pytest.raises(ValueError, match="MLP: dropout"):
        agnn.MLP(CHANNELS, dropout=[0.5, 0.5])
    with pytest.raises(ValueError, match="MLP: dropout"):
        agnn.MLP(CHANNELS, dropout=1.5)


def test_mlp_batch_norm_allow_single_element():
    """PyG's ``BatchNorm(allow_single_element=True)`` uses the running statistics, as at
    inference; the native MLP refused the keyword."""
    ref = pyg_nn.MLP(CHANNELS, norm="batch_norm", norm_kwargs={"allow_single_element": True})
    ref = _randomise(ref.double())
    x, _ = _x_batch(9)
    native = agnn.MLP(
        CHANNELS,
        norm="batch_norm",
        norm_kwargs={"allow_single_element": True},
        dtype=np.float64,
    ).load_state_dict(ref.state_dict())
    expected = _run(ref, x)
    assert rel_err(native(x), expected) <= TOL[np.float64]
    assert rel_err(agnn.from_pyg(ref)(x), expected) <= TOL[np.float64]


def test_mlp_input_errors_name_the_mlp():
    mlp = agnn.MLP(CHANNELS, rng=0)
    with pytest.raises(ValueError, match="MLP input: expected last dimension 5"):
        mlp(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="MLP input must be a NumPy or CuPy array"):
        mlp([[1.0] * 5])
