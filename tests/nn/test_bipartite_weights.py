"""PyG attention / message convs with bipartite (tuple) ``in_channels``: ``from_pyg`` and
``load_state_dict`` must reproduce PyG's outputs, or refuse; never load separate source /
destination weights silently into a shared projection."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import GATConv, GATv2Conv  # noqa: E402
from arraygnn.nn.weights import from_pyg  # noqa: E402

# 5 sources -> 4 destinations; every destination has an incoming edge
EI_BIP = np.array([[0, 1, 2, 3, 4, 0, 2], [0, 1, 2, 3, 0, 1, 3]])
# 4 nodes, no self-loops, every node has an incoming edge
EI_HOM = np.array([[0, 1, 2, 3, 1, 2], [1, 2, 3, 0, 0, 1]])


def _sizes(in_channels):
    return in_channels if isinstance(in_channels, tuple) else (in_channels, in_channels)


def _inputs(in_channels, edge_dim, seed=0):
    rng = np.random.default_rng(seed)
    s, d = _sizes(in_channels)
    xs = rng.standard_normal((5, s)).astype(np.float32)
    xd = rng.standard_normal((4, d)).astype(np.float32)
    ea = None if edge_dim is None else rng.standard_normal((7, edge_dim)).astype(np.float32)
    return xs, xd, ea


def _pyg_out(conv, x, ei, ea):
    t = torch.from_numpy
    x = tuple(t(v) for v in x) if isinstance(x, tuple) else t(x)
    args = (x, t(ei)) + (() if ea is None else (t(ea),))
    with torch.no_grad():
        return conv(*args).numpy()


def _ours_out(layer, x, ei, ea):
    return layer(x, ei) if ea is None else layer(x, ei, ea)


GAT_CASES = [
    (ic, heads, concat, edge_dim)
    for ic in [(3, 3), (3, 5), 3]
    for heads, concat in [(1, True), (2, True), (2, False)]
    for edge_dim in [None, 2]
]


@pytest.mark.parametrize(("in_channels", "heads", "concat", "edge_dim"), GAT_CASES)
def test_gat_from_pyg_bipartite_matches_pyg(in_channels, heads, concat, edge_dim):
    torch.manual_seed(0)
    conv = pyg_nn.GATConv(
        in_channels, 4, heads=heads, concat=concat, add_self_loops=False, edge_dim=edge_dim
    ).eval()
    ours = from_pyg(conv)
    xs, xd, ea = _inputs(in_channels, edge_dim)
    np.testing.assert_allclose(
        _ours_out(ours, (xs, xd), EI_BIP, ea), _pyg_out(conv, (xs, xd), EI_BIP, ea), atol=1e-5
    )
    # the same weights loaded directly into a layer built with matching arguments
    direct = GATConv(
        in_channels, 4, heads, concat, add_self_loops=False, edge_dim=edge_dim, rng=1
    ).load_state_dict(conv.state_dict())
    np.testing.assert_allclose(
        _ours_out(direct, (xs, xd), EI_BIP, ea), _pyg_out(conv, (xs, xd), EI_BIP, ea), atol=1e-5
    )
    assert sorted(direct.state_dict()) == sorted(conv.state_dict())


@pytest.mark.parametrize("in_channels", [(3, 3), 3])
@pytest.mark.parametrize("self_loops", [True, False])
@pytest.mark.parametrize("edge_dim", [None, 2])
def test_gat_from_pyg_homogeneous_matches_pyg(in_channels, self_loops, edge_dim):
    torch.manual_seed(1)
    conv = pyg_nn.GATConv(
        in_channels, 4, heads=2, add_self_loops=self_loops, edge_dim=edge_dim
    ).eval()
    ours = from_pyg(conv)
    xs, _, _ = _inputs(in_channels, None)
    x = xs[:4]
    ea = None if edge_dim is None else np.random.default_rng(2).random((6, 2), np.float32)
    np.testing.assert_allclose(
        _ours_out(ours, x, EI_HOM, ea), _pyg_out(conv, x, EI_HOM, ea), atol=1e-5
    )


def test_gat_residual_bipartite_matches_pyg():
    torch.manual_seed(2)
    conv = pyg_nn.GATConv((3, 5), 4, heads=2, add_self_loops=False, residual=True).eval()
    xs, xd, _ = _inputs((3, 5), None)
    np.testing.assert_allclose(
        from_pyg(conv)((xs, xd), EI_BIP), _pyg_out(conv, (xs, xd), EI_BIP, None), atol=1e-5
    )


@pytest.mark.parametrize("in_channels", [(3, 3), (3, 5)])
def test_gat_separate_weights_refused_by_shared_layer(in_channels):
    """The reported bug: lin_src / lin_dst loaded silently into one shared lin."""
    torch.manual_seed(3)
    conv = pyg_nn.GATConv(in_channels, 4, heads=2, add_self_loops=False)
    shared = GATConv(3, 4, heads=2, add_self_loops=False, rng=0)
    before = {k: v.copy() for k, v in shared.state_dict().items()}
    for strict in (True, False):
        with pytest.raises(ValueError, match=r"lin_src.*lin_dst.*in_feats=\("):
            shared.load_state_dict(conv.state_dict(), strict=strict)
    after = shared.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # nothing half-loaded


def test_gat_old_pyg_shared_names_still_load():
    """PyG < 2.5 named the shared projection lin_src (lin_dst the same module)."""
    torch.manual_seed(4)
    conv = pyg_nn.GATConv(3, 4, heads=2, add_self_loops=False)
    sd = dict(conv.state_dict())
    w = sd.pop("lin.weight")
    sd["lin_src.weight"] = w
    sd["lin_dst.weight"] = w.clone()
    ours = GATConv(3, 4, heads=2, add_self_loops=False, rng=0).load_state_dict(sd)
    xs, xd, _ = _inputs(3, None)
    np.testing.assert_allclose(
        ours((xs, xd), EI_BIP), _pyg_out(conv, (xs, xd), EI_BIP, None), atol=1e-5
    )


def test_gat_shared_weights_into_separate_layer_is_an_error():
    conv = pyg_nn.GATConv(3, 4, add_self_loops=False)
    with pytest.raises(KeyError, match="lin_src"):
        GATConv((3, 3), 4, add_self_loops=False).load_state_dict(conv.state_dict())


# ---- GATv2Conv: share_weights ------------------------------------------------------------


@pytest.mark.parametrize(
    ("in_channels", "share"),  # PyG cannot run share_weights with unequal sizes
    [((3, 3), False), ((3, 5), False), (3, False), ((3, 3), True), (3, True)],
)
def test_gatv2_from_pyg_bipartite_matches_pyg(in_channels, share):
    torch.manual_seed(5)
    conv = pyg_nn.GATv2Conv(
        in_channels, 4, heads=2, add_self_loops=False, share_weights=share, edge_dim=2
    ).eval()
    xs, xd, ea = _inputs(in_channels, 2)
    np.testing.assert_allclose(
        from_pyg(conv)((xs, xd), EI_BIP, ea), _pyg_out(conv, (xs, xd), EI_BIP, ea), atol=1e-5
    )


def test_gatv2_separate_weights_refused_by_shared_layer():
    torch.manual_seed(6)
    conv = pyg_nn.GATv2Conv(3, 4, heads=2, add_self_loops=False)  # lin_l != lin_r
    shared = GATv2Conv(3, 4, heads=2, add_self_loops=False, share_weights=True, rng=0)
    with pytest.raises(ValueError, match=r"lin_l.*lin_r.*share_weights=False"):
        shared.load_state_dict(conv.state_dict())


def test_gatv2_shared_weights_load_into_separate_layer():
    torch.manual_seed(7)
    conv = pyg_nn.GATv2Conv(3, 4, heads=2, add_self_loops=False, share_weights=True)
    ours = GATv2Conv(3, 4, heads=2, add_self_loops=False, rng=0)
    ours.load_state_dict(conv.state_dict())
    xs, xd, _ = _inputs(3, None)
    np.testing.assert_allclose(
        ours((xs, xd), EI_BIP), _pyg_out(conv, (xs, xd), EI_BIP, None), atol=1e-5
    )


# ---- siblings with the same bipartite pattern --------------------------------------------

SIBLINGS = {
    "TransformerConv": lambda ic: pyg_nn.TransformerConv(ic, 4, heads=2),
    "TransformerConv-beta-edge": lambda ic: pyg_nn.TransformerConv(
        ic, 4, heads=2, beta=True, concat=False, edge_dim=2
    ),
    "ResGatedGraphConv": lambda ic: pyg_nn.ResGatedGraphConv(ic, 4),
    "SAGEConv": lambda ic: pyg_nn.SAGEConv(ic, 4),
    "SAGEConv-project": lambda ic: pyg_nn.SAGEConv(ic, 4, project=True),
    "GraphConv": lambda ic: pyg_nn.GraphConv(ic, 4),
    "GENConv": lambda ic: pyg_nn.GENConv(ic, 4),
    "GENConv-same-out": lambda ic: pyg_nn.GENConv(ic, 3),
}


@pytest.mark.parametrize("name", sorted(SIBLINGS))
@pytest.mark.parametrize("in_channels", [(3, 3), (3, 5), (5, 3)])
def test_sibling_from_pyg_bipartite_matches_pyg(name, in_channels):
    torch.manual_seed(8)
    conv = SIBLINGS[name](in_channels).eval()
    edge_dim = 2 if name.endswith("edge") else None
    xs, xd, ea = _inputs(in_channels, edge_dim)
    np.testing.assert_allclose(
        _ours_out(from_pyg(conv), (xs, xd), EI_BIP, ea),
        _pyg_out(conv, (xs, xd), EI_BIP, ea),
        atol=1e-5,
    )
    if in_channels[0] == in_channels[1]:  # the same names: loads into the int-built layer
        ours = from_pyg(SIBLINGS[name](in_channels[0]).eval())
        ours.load_state_dict(conv.state_dict())
        np.testing.assert_allclose(
            _ours_out(ours, (xs, xd), EI_BIP, ea),
            _pyg_out(conv, (xs, xd), EI_BIP, ea),
            atol=1e-5,
        )


def test_gat_dgl_separate_weights_refused_by_shared_layer():
    """DGL's fc_src / fc_dst (tuple in_feats) get the same refusal; equal ones still load."""
    rng = np.random.default_rng(9)
    sd = {
        "fc_src.weight": rng.random((8, 3), np.float32),
        "fc_dst.weight": rng.random((8, 3), np.float32),
        "attn_l": rng.random((1, 2, 4), np.float32),
        "attn_r": rng.random((1, 2, 4), np.float32),
        "bias": rng.random(8, np.float32),
    }
    layer = GATConv(3, 4, heads=2, add_self_loops=False)
    for fmt in ("dgl", "auto"):
        with pytest.raises(ValueError, match="fc_src / fc_dst"):
            layer.load_state_dict(sd, format=fmt)
    sd["fc_dst.weight"] = sd["fc_src.weight"].copy()
    layer.load_state_dict(sd, format="dgl")
    np.testing.assert_array_equal(layer.lin.weight, sd["fc_src.weight"])
