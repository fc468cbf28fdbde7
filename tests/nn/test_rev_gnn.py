"""``GroupAddRev`` against torch_geometric 2.8.1 (weights through ``from_pyg``) and
``GroupRevRes`` against a plain-torch transcription of DGL's
(python/dgl/nn/pytorch/conv/grouprevres.py; DGL does not install here) wrapping a
transcription of DGL's ``GraphConv``, converted by ``from_dgl``.

Both run forward and ``inverse`` on random multigraphs (self-loops, repeated edges, nodes
without in-edges) and empty edge sets, int32 / int64 ids, float32 / float64, 2 and 3
groups, with extra per-group arguments; plus the inputs left unchanged and bad-input errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.graph import graph as make_graph
from arraygnn.nn._module import Module

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from torch_geometric.nn import GCNConv, GroupAddRev, SAGEConv  # noqa: E402

DTYPES = [(torch.float32, np.float32, 1e-5), (torch.float64, np.float64, 1e-12)]
N = 12


def _graphs(rng, index_dtype):
    yield random_graph(rng, N, index_dtype=index_dtype)
    yield np.zeros((2, 0), index_dtype)


def _randomize(module, seed):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
    return module


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# ------------------------------------------------------------------------ PyG GroupAddRev
@pytest.mark.parametrize("tdt, dtype, tol", DTYPES)
@pytest.mark.parametrize("make, groups", [("sage", 2), ("gcn", 3), ("list", 2)])
def test_group_add_rev_matches_pyg(tdt, dtype, tol, make, groups):
    torch.manual_seed(0)
    if make == "sage":
        ref = GroupAddRev(SAGEConv(4, 4), num_groups=groups)
    elif make == "gcn":
        ref = GroupAddRev(GCNConv(3, 3), num_groups=groups)
    else:
        ref = GroupAddRev(torch.nn.ModuleList([SAGEConv(4, 4), SAGEConv(4, 4, aggr="max")]))
    ref = _randomize(ref, 1).to(tdt).eval()
    ours = agnn.from_pyg(ref)
    assert isinstance(ours, agnn.GroupAddRev) and ours.num_groups == groups
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    channels = 4 * groups if make != "gcn" else 3 * groups
    rng = np.random.default_rng(3)
    for index_dtype in (np.int32, np.int64):
        for ei in _graphs(rng, index_dtype):
            x = rng.standard_normal((N, channels)).astype(dtype)
            x_before = x.copy()
            extra = ()
            if make == "gcn":  # an edge weight of length E goes whole to every group
                extra = (rng.uniform(0.5, 2.0, ei.shape[1]).astype(dtype),)
            t_extra = tuple(_t(a) for a in extra)
            ei_t = _t(ei.astype(np.int64))
            expected = ref(_t(x).clone(), ei_t, *t_extra).detach().numpy()
            out = ours(x, ei, *extra)
            assert out.dtype == dtype and rel_err(out, expected) < tol
            np.testing.assert_array_equal(x, x_before)  # PyG frees its input; we do not
            back = ref.inverse(_t(expected).clone(), ei_t, *t_extra).detach().numpy()
            ours_back = ours.inverse(out, ei, *extra)
            assert rel_err(ours_back, back) < tol
            assert rel_err(ours_back, x) < 1e3 * tol  # the inverse recovers x


def test_group_add_rev_splits_args_like_pyg():
    """An argument whose last dimension equals x's is split into the groups; PyG's
    ``SimpleConv``-like layer takes it as its own feature-sized input."""

    class AddFeat(Module):
        def __call__(self, h, edge_index, extra):
            return h * 2.0 + extra

    class TorchAddFeat(torch.nn.Module):
        def forward(self, h, edge_index, extra):
            return h * 2.0 + extra

    ref = GroupAddRev(TorchAddFeat(), num_groups=2, disable=True)
    ours = agnn.GroupAddRev(AddFeat(), num_groups=2, disable=True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 6))
    extra = rng.standard_normal((5, 6))
    ei = np.zeros((2, 0), np.int64)
    expected = ref(_t(x), _t(ei), _t(extra)).numpy()
    np.testing.assert_allclose(ours(x, ei, extra), expected, rtol=1e-12)
    np.testing.assert_allclose(ours.inverse(expected, ei, extra), x, rtol=1e-12)


def test_group_add_rev_load_state_dict_and_copies():
    torch.manual_seed(0)
    ref = _randomize(GroupAddRev(SAGEConv(3, 3), num_groups=3), 5).eval()
    conv = agnn.SAGEConv(3, 3, rng=0)
    ours = agnn.GroupAddRev(conv, num_groups=3)
    assert ours.convs[0] is conv and ours.convs[1] is not conv  # copies, own weights
    ours.load_state_dict(ref.state_dict())
    assert not np.array_equal(ours.convs[1].lin_l.weight, ours.convs[2].lin_l.weight)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((N, 9)).astype(np.float32)
    ei = random_graph(rng, N)
    expected = ref(_t(x).clone(), _t(ei)).detach().numpy()
    assert rel_err(ours(x, ei), expected) < 1e-5
    assert "num_groups=3" in repr(ours)


def test_group_add_rev_errors():
    conv = agnn.SAGEConv(2, 2, rng=0)
    with pytest.raises(ValueError, match="GroupAddRev: give num_groups"):
        agnn.GroupAddRev(conv)
    with pytest.raises(ValueError, match="at least 2"):
        agnn.GroupAddRev(conv, num_groups=1)
    with pytest.raises(ValueError, match="at least 2"):
        agnn.GroupAddRev([conv])
    with pytest.raises(TypeError, match="GroupAddRev: layer 1 must be an arraygnn layer"):
        agnn.GroupAddRev([conv, len])
    with pytest.raises(TypeError, match="split_dim"):
        agnn.GroupAddRev(conv, split_dim=1.0, num_groups=2)
    block = agnn.GroupAddRev(conv, num_groups=2)
    ei = np.array([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="GroupAddRev: group 0's layer returned shape"):
        block(np.ones((2, 5), np.float32), ei)  # groups of 3 and 2 (torch.chunk)
    with pytest.raises(TypeError, match="GroupAddRev: x must be a NumPy or CuPy array"):
        block([[1.0] * 4] * 2, ei)
    with pytest.raises(ValueError, match="GroupAddRev: group 1's layer returned shape"):
        block.inverse(np.ones((2, 3), np.float32), ei)


# ------------------------------------------------------------------------ DGL GroupRevRes
class GraphConv(torch.nn.Module):
    """DGL's ``GraphConv(in, out, norm='both', allow_zero_in_degree=True)`` with the graph
    ops written out on ``(src, dst)`` tensors."""

    def __init__(self, fin, fout, activation=None):
        super().__init__()
        self._in_feats, self._out_feats, self._norm = fin, fout, "both"
        self._allow_zero_in_degree = True
        self._activation = activation
        self.weight = torch.nn.Parameter(torch.randn(fin, fout))
        self.bias = torch.nn.Parameter(torch.randn(fout))

    def forward(self, g, feat):
        src, dst, n = g
        out_deg = torch.bincount(src, minlength=n).clamp(min=1).to(feat)
        in_deg = torch.bincount(dst, minlength=n).clamp(min=1).to(feat)
        h = (feat * out_deg.pow(-0.5).view(-1, 1)) @ self.weight
        rst = torch.zeros(n, h.shape[1], dtype=h.dtype).index_add_(0, dst, h[src])
        rst = rst * in_deg.pow(-0.5).view(-1, 1) + self.bias
        return rst if self._activation is None else self._activation(rst)


class GroupRevRes(torch.nn.Module):
    """DGL's ``GroupRevRes`` forward / inverse (its autograd checkpoint left out)."""

    def __init__(self, gnn_module, groups=2):
        super().__init__()
        import copy

        self.gnn_modules = torch.nn.ModuleList(
            [gnn_module if i == 0 else copy.deepcopy(gnn_module) for i in range(groups)]
        )
        self.groups = groups

    def _chunks(self, args):
        if len(args) == 0:
            return [()] * self.groups
        return list(zip(*[torch.chunk(a, self.groups, dim=-1) for a in args]))

    def forward(self, g, x, *args):
        xs, chunks = torch.chunk(x, self.groups, dim=-1), self._chunks(args)
        y_in, ys = sum(xs[1:]), []
        for i in range(self.groups):
            y_in = xs[i] + self.gnn_modules[i](g, y_in, *chunks[i])
            ys.append(y_in)
        return torch.cat(ys, dim=-1)

    def inverse(self, g, y, *args):
        ys, chunks = torch.chunk(y, self.groups, dim=-1), self._chunks(args)
        xs = []
        for i in range(self.groups - 1, -1, -1):
            y_in = ys[i - 1] if i != 0 else sum(xs)
            xs.append(ys[i] - self.gnn_modules[i](g, y_in, *chunks[i]))
        return torch.cat(xs[::-1], dim=-1)


@pytest.mark.parametrize("tdt, dtype, tol", DTYPES)
@pytest.mark.parametrize("groups", [2, 3])
def test_group_rev_res_matches_dgl(tdt, dtype, tol, groups):
    torch.manual_seed(0)
    ref = GroupRevRes(GraphConv(4, 4, activation=torch.relu), groups)
    for i, m in enumerate(ref.gnn_modules):
        _randomize(m, 10 + i)
    ref = ref.to(tdt)
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.GroupRevRes) and ours.groups == groups
    assert sorted(ours.state_dict(format="dgl")) == sorted(ref.state_dict())
    rng = np.random.default_rng(4)
    for index_dtype in (np.int32, np.int64):
        for ei in _graphs(rng, index_dtype):
            x = rng.standard_normal((N, 4 * groups)).astype(dtype)
            g_t = (_t(ei[0].astype(np.int64)), _t(ei[1].astype(np.int64)), N)
            expected = ref(g_t, _t(x)).detach().numpy()
            g = make_graph((ei[0], ei[1]), num_nodes=N)
            x_before = x.copy()
            out = ours(g, x)
            assert out.dtype == dtype and rel_err(out, expected) < tol
            np.testing.assert_array_equal(x, x_before)
            back = ref.inverse(g_t, _t(expected)).detach().numpy()
            assert rel_err(ours.inverse(g, out), back) < tol


def test_group_rev_res_load_dgl_names_and_args():
    """Every extra argument is split along its last dimension (DGL's ``torch.chunk``)."""

    class Mix(Module):
        def __call__(self, g, h, e):
            return h * 0.5 + e.sum()

    class TorchMix(torch.nn.Module):
        def forward(self, g, h, e):
            return h * 0.5 + e.sum()

    ref = GroupRevRes(TorchMix(), 3)
    ours = agnn.GroupRevRes(Mix(), groups=3)
    rng = np.random.default_rng(2)
    x, e = rng.standard_normal((4, 6)), rng.standard_normal((7, 9))
    expected = ref(None, _t(x), _t(e)).numpy()
    np.testing.assert_allclose(ours(None, x, e), expected, rtol=1e-12)
    np.testing.assert_allclose(ours.inverse(None, expected, e), x, rtol=1e-12)
    # DGL names load into an arraygnn block built from one layer
    conv_ref = GroupRevRes(_randomize(GraphConv(2, 2), 0), 2)
    _randomize(conv_ref.gnn_modules[1], 1)
    block = agnn.GroupRevRes(agnn.GraphConv(2, 2), groups=2)
    block.load_state_dict(conv_ref.state_dict(), format="dgl")
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    g_t = (_t(ei[0]), _t(ei[1]), 3)
    xs = rng.standard_normal((3, 4)).astype(np.float32)
    expected = conv_ref(g_t, _t(xs)).detach().numpy()
    assert rel_err(block(make_graph((ei[0], ei[1])), xs), expected) < 1e-5


def test_group_rev_res_errors():
    conv = agnn.GraphConv(2, 2)
    with pytest.raises(ValueError, match="GroupRevRes: the number of groups must be at least 2"):
        agnn.GroupRevRes(conv, groups=1)
    with pytest.raises(TypeError, match="GroupRevRes: groups must be an int"):
        agnn.GroupRevRes(conv, groups=2.0)
    with pytest.raises(TypeError, match="GroupRevRes: layer 0 must be an arraygnn layer"):
        agnn.GroupRevRes(torch.nn.Linear(2, 2))
    block = agnn.GroupRevRes(conv)
    ei = make_graph((np.array([0, 1]), np.array([1, 0])))
    with pytest.raises(ValueError, match="GroupRevRes: x dimension -1 has size 1"):
        block(ei, np.ones((2, 1), np.float32))
    with pytest.raises(ValueError, match=r"GroupRevRes: args\[0\] dimension -1 has size 1"):
        block(ei, np.ones((2, 4), np.float32), np.ones(1, np.float32))
    with pytest.raises(TypeError, match=r"GroupRevRes: args\[0\] must be a NumPy"):
        block(ei, np.ones((2, 4), np.float32), None)
