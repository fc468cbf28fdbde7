"""Review tests for ``GroupAddRev`` / ``GroupRevRes``, ``RENet`` and ``GNNFF`` against
torch_geometric 2.8.1 (and the DGL transcription of ``test_rev_gnn.py``).

- groups cut as ``torch.chunk`` does (unequal pieces when the size does not divide: PyG's
  and DGL's blocks run them with one layer per group), extra arguments cut the same way;
- group layers with edge features (GINE, GAT, Transformer: split when their size equals
  ``x``'s, whole otherwise), converted by ``from_pyg``;
- clear errors for a group layer whose output does not fit its group;
- ``RENet.pre_transform`` on event streams with out-of-order and float times, self-loop
  events and ``seq_len = 1``; ``RENet.test`` ties ranked by entity id;
- ``GNNFF``'s ``cutoff`` checked at construction, naming the layer.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.data import Data
from arraygnn.graph import graph as make_graph

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from torch_geometric.data import Data as PygData  # noqa: E402
from torch_geometric.nn import (  # noqa: E402
    GATConv,
    GINEConv,
    GroupAddRev,
    RENet,
    SAGEConv,
    TransformerConv,
)

N = 9


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _compare(ref, x, ei, *extra, tol=1e-5):
    """Forward and inverse of PyG's block and of its ``from_pyg`` conversion."""
    ref = ref.eval()
    ours = agnn.from_pyg(ref)
    t_extra = [_t(a) for a in extra]
    expected = ref(_t(x).clone(), _t(ei.astype(np.int64)), *t_extra).detach().numpy()
    out = ours(x, ei, *extra)
    assert out.dtype == x.dtype and rel_err(out, expected) < tol
    back = ref.inverse(_t(expected).clone(), _t(ei.astype(np.int64)), *t_extra).detach().numpy()
    ours_back = ours.inverse(out, ei, *extra)
    assert rel_err(ours_back, back) < tol
    assert rel_err(ours_back, x) < 100 * tol


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_group_add_rev_unequal_groups_like_pyg(index_dtype):
    """5 channels in 2 groups: torch.chunk gives 3 + 2; PyG runs a 2 -> 3 and a 3 -> 2
    layer (and an edge feature of 5 columns cut the same way)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ei = random_graph(rng, N, index_dtype=index_dtype)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    ref = GroupAddRev(torch.nn.ModuleList([SAGEConv(2, 3), SAGEConv(3, 2)]))
    _compare(ref, x, ei)
    ref = GroupAddRev(
        torch.nn.ModuleList(
            [
                GINEConv(torch.nn.Linear(2, 3), edge_dim=3),  # x piece 2, edge piece 3
                GINEConv(torch.nn.Linear(3, 2), edge_dim=2),
            ]
        )
    )
    _compare(ref, x, ei, rng.standard_normal((ei.shape[1], 5)).astype(np.float32))


def test_group_rev_res_unequal_groups_like_dgl():
    from test_rev_gnn import GraphConv, GroupRevRes, _randomize

    torch.manual_seed(0)
    ref = GroupRevRes(GraphConv(2, 3), 2)
    ref.gnn_modules = torch.nn.ModuleList([GraphConv(2, 3), GraphConv(3, 2)])
    for i, m in enumerate(ref.gnn_modules):
        _randomize(m, 20 + i)
    ours = agnn.GroupRevRes([agnn.from_dgl(m) for m in ref.gnn_modules])
    rng = np.random.default_rng(1)
    ei = random_graph(rng, N)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    g_t = (_t(ei[0]), _t(ei[1]), N)
    g = make_graph((ei[0], ei[1]), num_nodes=N)
    expected = ref(g_t, _t(x)).detach().numpy()
    out = ours(g, x)
    assert rel_err(out, expected) < 1e-5
    assert rel_err(ours.inverse(g, out), ref.inverse(g_t, _t(expected)).detach().numpy()) < 1e-5


@pytest.mark.parametrize("tdt, dtype, tol", [(torch.float32, np.float32, 1e-5),
                                             (torch.float64, np.float64, 1e-12)])  # fmt: skip
def test_group_add_rev_edge_feature_convs(tdt, dtype, tol):
    """Edge features whose size equals x's are split, any other size goes whole."""
    torch.manual_seed(0)
    rng = np.random.default_rng(2)
    for index_dtype in (np.int32, np.int64):
        ei = random_graph(rng, N, index_dtype=index_dtype)
        e = ei.shape[1]
        x = rng.standard_normal((N, 8)).astype(dtype)
        cases = [
            (GINEConv(torch.nn.Linear(4, 4), edge_dim=4), 8),  # split into 2 x 4
            (GINEConv(torch.nn.Linear(4, 4), edge_dim=3), 3),  # whole
            (GATConv(4, 4, edge_dim=3), 3),
            (TransformerConv(4, 2, heads=2, edge_dim=5), 5),
        ]
        for conv, cols in cases:
            ref = GroupAddRev(conv, num_groups=2).to(tdt)
            _compare(ref, x, ei, rng.standard_normal((e, cols)).astype(dtype), tol=tol)


def test_group_blocks_shape_errors():
    conv = agnn.SAGEConv(2, 2, rng=0)
    block = agnn.GroupAddRev(conv, num_groups=2)
    ei = np.array([[0, 1], [1, 0]])
    # 5 channels: groups of 3 and 2, the 2 -> 2 layer cannot fill the group of 3
    with pytest.raises(ValueError, match=r"GroupAddRev: group 0's layer returned shape \(2, 2\)"):
        block(np.ones((2, 5), np.float32), ei)
    with pytest.raises(ValueError, match=r"GroupAddRev: group 1's layer returned shape \(2, 2\)"):
        block.inverse(np.ones((2, 3), np.float32), ei)
    four = agnn.GroupAddRev(conv, num_groups=4)
    with pytest.raises(ValueError, match="GroupAddRev: x dimension -1 has size 6: torch.chunk"):
        four(np.ones((2, 6), np.float32), ei)
    # three groups of unequal sizes cannot be summed (PyG would broadcast a size-1 group)
    three = agnn.GroupAddRev([agnn.SAGEConv(3, 3, rng=0) for _ in range(3)])
    with pytest.raises(ValueError, match="GroupAddRev: the groups of x have shapes"):
        three(np.ones((2, 7), np.float32), ei)
    res = agnn.GroupRevRes(agnn.GraphConv(2, 2))
    g = make_graph((np.array([0, 1]), np.array([1, 0])))
    with pytest.raises(ValueError, match="GroupRevRes: group 0's layer returned shape"):
        res(g, np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match=r"GroupRevRes: args\[0\] dimension -1 has size 1"):
        res(g, np.ones((2, 4), np.float32), np.ones((2, 1), np.float32))


def test_group_blocks_zero_channels():
    """torch.chunk cuts an empty dimension into ``groups`` empty pieces."""
    from arraygnn.nn._module import Module

    class Double(Module):
        def __call__(self, h, edge_index):
            return h * 2.0

    block = agnn.GroupAddRev([Double(), Double()])
    x = np.zeros((3, 0), np.float32)
    ei = np.zeros((2, 0), np.int64)
    assert block(x, ei).shape == (3, 0) and block.inverse(x, ei).shape == (3, 0)


# ------------------------------------------------------------------------------ RENet
@pytest.mark.parametrize("seq_len", [1, 2, 4])
def test_renet_pre_transform_unordered_float_times(seq_len):
    """Times as floats, a stretch out of order (no new step), events with sub == obj."""
    gen = np.random.default_rng(seq_len)
    n = 150
    t = np.sort(gen.choice([0, 0.5, 1, 3, 3.5, 7, 8, 20], n)).astype(np.float64)
    t[40:55] = t[40:55][::-1].copy()
    s, o, r = gen.integers(0, 5, n), gen.integers(0, 5, n), gen.integers(0, 2, n)
    o[::6] = s[::6]
    ref_tf, ours_tf = RENet.pre_transform(seq_len), agnn.RENet.pre_transform(seq_len)
    nonempty = 0
    for k in range(n):
        p = ref_tf(
            PygData(sub=torch.tensor(s[k]), rel=torch.tensor(r[k]), obj=torch.tensor(o[k]),
                    t=torch.tensor(t[k]))
        )  # fmt: skip
        q = ours_tf(Data(sub=s[k], rel=r[k], obj=o[k], t=t[k]))
        for key in ("h_sub", "h_sub_t", "h_obj", "h_obj_t"):
            np.testing.assert_array_equal(q[key], p[key].numpy(), err_msg=f"{k} {key}")
        nonempty += len(q.h_sub) > 0
    assert nonempty > 10


def test_renet_test_ties_ranked_by_entity_id():
    """Equal scores: the lower entity id ranks first (PyG's torch.sort(descending) leaves
    the order of ties to the sorting algorithm)."""
    logits = np.zeros((3, 20), np.float32)
    logits[:, 7] = 1.0
    y = np.array([7, 0, 19])
    # ranks 1, 2 (first of the 19 tied) and 20
    expected = [(1 + 1 / 2 + 1 / 20) / 3, 1 / 3, 2 / 3, 2 / 3]
    np.testing.assert_allclose(agnn.RENet.test(logits, y), expected, rtol=1e-6)
    # without ties the result is PyG's
    gen = np.random.default_rng(0)
    logits = gen.standard_normal((30, 12)).astype(np.float32)
    y = gen.integers(0, 12, 30)
    expected = RENet.test(None, _t(logits), _t(y)).numpy()
    np.testing.assert_allclose(agnn.RENet.test(logits, y), expected, rtol=1e-6)


# ------------------------------------------------------------------------------ GNNFF
def test_gnnff_cutoff_checked():
    for bad in ("a", None, True, np.bool_(True)):
        with pytest.raises(TypeError, match="GNNFF: cutoff must be a number"):
            agnn.GNNFF(4, 3, 1, cutoff=bad)
    for bad in (0.0, -1, float("nan")):
        with pytest.raises(ValueError, match="GNNFF: cutoff must be positive"):
            agnn.GNNFF(4, 3, 1, cutoff=bad)
    assert agnn.GNNFF(4, 3, 1, cutoff=np.float32(2.5), rng=0).cutoff == 2.5


def test_gnnff_float64_no_layers_one_atom():
    model = agnn.GNNFF(4, 3, 0, cutoff=2.0, dtype=np.float64, rng=0)
    z = np.array([1, 6, 8], np.int32)
    pos = np.array([[0, 0, 0], [1, 0, 0], [5, 5, 5]], np.float64)
    pos_before = pos.copy()
    out = model(z, pos)
    assert out.dtype == np.float64 and out.shape == (3, 3) and not out[2].any()
    np.testing.assert_allclose(out[0], -out[1], rtol=1e-12)  # equal and opposite, 3 alone
    np.testing.assert_array_equal(pos, pos_before)
    assert model(z[:1], pos[:1]).shape == (1, 3)
    assert model(z[:0], pos[:0]).shape == (0, 3)


def test_renet_test_nan_and_integer_scores_like_pyg():
    """torch.sort(descending=True) puts NaN first; integer scores sort as numbers."""
    gen = np.random.default_rng(3)
    logits = gen.standard_normal((6, 15)).astype(np.float32)
    logits[0, 4] = logits[2, 9] = logits[5, 14] = np.nan
    y = np.array([4, 4, 9, 0, 14, 3])
    expected = RENet.test(None, _t(logits), _t(y)).numpy()
    np.testing.assert_allclose(agnn.RENet.test(logits, y), expected, rtol=1e-6)
    scores = np.stack([gen.permutation(np.arange(1, 200))[:15] for _ in range(6)])
    scores = scores.astype(np.uint8)
    scores[3, 0] = 0  # the lowest score: -0 == 0 would put it first
    expected = RENet.test(None, _t(scores), _t(y)).numpy()
    np.testing.assert_allclose(agnn.RENet.test(scores, y), expected, rtol=1e-6)
