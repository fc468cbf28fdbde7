"""arraygnn.nn.MessagePassing against PyG's MessagePassing: the same subclasses written twice
(NumPy and torch), the same weights, the same graphs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.nn import Linear, MessagePassing
from arraygnn.nn.aggr import SoftmaxAggregation
from arraygnn.ops import to_csr
from tests.nn._nn_cases import TOL, random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


# ---- the same layers, twice --------------------------------------------------------------
class Plain(MessagePassing):
    """Default message (x_j): runs the fused spmm path."""

    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)


class TorchPlain(pyg_nn.MessagePassing):
    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)


class EdgeMLP(MessagePassing):
    """x_i, x_j, edge_attr in the message, a weight and an update with x."""

    def __init__(self, fin, fe, fout, aggr="sum", **kw):
        super().__init__(aggr=aggr, **kw)
        self.lin = Linear(2 * fin + fe, fout)
        width = fout * (len(aggr) if isinstance(aggr, list) else 1)
        self.register_parameter("scale", np.ones(width, np.float32))

    def forward(self, x, edge_index, edge_attr):
        return self.propagate(edge_index, x=x, edge_attr=edge_attr)

    def message(self, x_i, x_j, edge_attr):
        return np.maximum(self.lin(np.concatenate([x_i, x_j - x_i, edge_attr], -1)), 0)

    def update(self, inputs, x):
        return inputs * self.scale + x[..., : inputs.shape[-1]].sum(-1, keepdims=True)


class TorchEdgeMLP(pyg_nn.MessagePassing):
    def __init__(self, fin, fe, fout, aggr="sum", **kw):
        super().__init__(aggr=aggr, **kw)
        self.lin = torch.nn.Linear(2 * fin + fe, fout)
        width = fout * (len(aggr) if isinstance(aggr, list) else 1)
        self.scale = torch.nn.Parameter(torch.rand(width) + 0.5)

    def forward(self, x, edge_index, edge_attr):
        return self.propagate(edge_index, x=x, edge_attr=edge_attr)

    def message(self, x_i, x_j, edge_attr):
        return torch.relu(self.lin(torch.cat([x_i, x_j - x_i, edge_attr], -1)))

    def update(self, inputs, x):
        return inputs * self.scale + x[..., : inputs.shape[-1]].sum(-1, keepdim=True)


class Weighted(MessagePassing):
    """GCN-like: message_and_aggregate for a sparse adj_t, edge_weight otherwise."""

    def forward(self, x, edge_index, edge_weight=None):
        return self.propagate(edge_index, x=x, edge_weight=edge_weight)

    def message(self, x_j, edge_weight):
        return x_j if edge_weight is None else edge_weight[:, None] * x_j

    def message_and_aggregate(self, adj_t, x):
        return adj_t @ x


class TorchWeighted(pyg_nn.MessagePassing):
    def forward(self, x, edge_index, edge_weight=None):
        return self.propagate(edge_index, x=x, edge_weight=edge_weight)

    def message(self, x_j, edge_weight):
        return x_j if edge_weight is None else edge_weight.view(-1, 1) * x_j

    def message_and_aggregate(self, adj_t, x):
        return adj_t @ x


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _graphs(rng, dtype):
    n = 9
    yield "random", random_graph(rng, n, index_dtype=dtype), n
    yield "no_edges", np.zeros((2, 0), dtype), n
    yield "one_node_loop", np.array([[0], [0]], dtype), 1
    yield "hub", np.stack([rng.integers(0, n, 30), np.full(30, 3)]).astype(dtype), n


# ---- the fused spmm path (default message) ---------------------------------------------
@pytest.mark.parametrize("aggr", ["sum", "add", "mean", "max", "min"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_default_message_matches_pyg(aggr, index_dtype, dtype):
    rng = np.random.default_rng(0)
    ours, theirs = Plain(aggr=aggr), TorchPlain(aggr=aggr)
    for case, ei, n in _graphs(rng, index_dtype):
        x = rng.normal(size=(n, 5)).astype(dtype)
        got = ours(x, ei)
        want = theirs(_t(x), _t(ei.astype(np.int64))).numpy()
        assert got.dtype == dtype, case
        assert rel_err(got, want) < TOL[dtype], case
    # 1-D features and the CSR form
    ei = random_graph(rng, 7, index_dtype=index_dtype)
    x = rng.normal(size=7).astype(dtype)
    got_csr = ours(x[:, None], to_csr(ei, 7, 7))
    want = theirs(_t(x[:, None]), _t(ei.astype(np.int64))).numpy()
    assert rel_err(got_csr, want) < TOL[dtype]


def test_fused_path_gives_the_same_bits_as_the_message_path():
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 50, num_edges=400)
    x = rng.normal(size=(50, 8)).astype(np.float32)
    for aggr in ("sum", "mean", "max", "min"):
        fused = Plain(aggr=aggr)
        unfused = Plain(aggr=aggr)
        seen = []
        unfused.register_message_forward_hook(lambda m, i, o, seen=seen: seen.append(o.shape))
        a, b = fused(x, ei), unfused(x, ei)
        assert seen == [(400, 8)]  # the hook saw real messages: the unfused path ran
        np.testing.assert_array_equal(a, b)


def test_bipartite_pairs_size_and_flow_match_pyg():
    rng = np.random.default_rng(2)
    n_src, n_dst = 6, 4
    ei = random_graph(rng, n_src, n_dst, num_edges=15)
    xs = rng.normal(size=(n_src, 3)).astype(np.float32)
    xd = rng.normal(size=(n_dst, 3)).astype(np.float32)
    for aggr in ("sum", "max"):
        ours, theirs = Plain(aggr=aggr), TorchPlain(aggr=aggr)
        got = ours((xs, xd), ei)
        want = theirs((_t(xs), _t(xd)), _t(ei))
        assert got.shape == (n_dst, 3)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
        got = ours((xs, None), ei, size=(n_src, n_dst))
        want = theirs((_t(xs), None), _t(ei), size=(n_src, n_dst))
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
        # (x_src, None) without size: PyG falls back to the source count
        got = ours((xs, None), ei)
        want = theirs((_t(xs), None), _t(ei))
        assert got.shape == tuple(want.shape) == (n_src, 3)
    # target_to_source: messages flow edge_index[1] -> edge_index[0]
    ei = random_graph(rng, 8, num_edges=20)
    x = rng.normal(size=(8, 2))
    ours = Plain(aggr="mean", flow="target_to_source")
    theirs = TorchPlain(aggr="mean", flow="target_to_source")
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)
    ours_csr = ours(x, to_csr(ei, 8, 8))
    np.testing.assert_allclose(ours_csr, theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)


def test_node_dim_other_than_rows():
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 7, num_edges=20)
    x = rng.normal(size=(2, 7, 3))  # [batch, nodes, features], node_dim=-2 -> axis 1
    ours, theirs = Plain(aggr="max"), TorchPlain(aggr="max")
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)
    x = rng.normal(size=(7, 2, 3))  # [nodes, heads, features], node_dim=0
    ours, theirs = Plain(aggr="sum", node_dim=0), TorchPlain(aggr="sum", node_dim=0)
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)


# ---- user messages, updates and weights ---------------------------------------------------
def _load(ours, theirs, dtype=np.float32):
    return ours.astype(dtype).load_state_dict(theirs.state_dict())


@pytest.mark.parametrize("aggr", ["sum", "mean", "max", ["mean", "max"], "softmax"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_user_message_update_and_weights_match_pyg(aggr, index_dtype, dtype):
    rng = np.random.default_rng(4)
    torch.manual_seed(0)
    fout = 4 if not isinstance(aggr, list) else 2
    theirs = TorchEdgeMLP(3, 2, fout, aggr=aggr).double()
    if aggr == "softmax":
        theirs = TorchEdgeMLP(3, 2, fout, aggr=aggr, aggr_kwargs={"learn": True}).double()
        with torch.no_grad():
            theirs.aggr_module.t.fill_(0.7)
    ours = _load(
        EdgeMLP(3, 2, fout, aggr=aggr, aggr_kwargs={"learn": True} if aggr == "softmax" else None),
        theirs,
        dtype,
    )
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    for case, ei, n in _graphs(rng, index_dtype):
        x = rng.normal(size=(n, 3)).astype(dtype)
        ea = rng.normal(size=(ei.shape[1], 2)).astype(dtype)
        x0, ea0 = x.copy(), ea.copy()
        got = ours(x, ei, ea)
        with torch.no_grad():
            want = theirs(_t(x).double(), _t(ei.astype(np.int64)), _t(ea).double()).numpy()
        assert got.dtype == dtype, case
        assert rel_err(got, want) < 10 * TOL[dtype], case
        np.testing.assert_array_equal(x, x0)  # nothing the caller passed is changed
        np.testing.assert_array_equal(ea, ea0)


def test_sparse_adj_t_calls_message_and_aggregate_like_pyg():
    rng = np.random.default_rng(5)
    n = 8
    ei = random_graph(rng, n, num_edges=20)
    w = rng.random(20)
    x = rng.normal(size=(n, 3))
    adj_t = sp.coo_matrix((w, (ei[1], ei[0])), shape=(n, n)).tocsr()
    ours, theirs = Weighted(aggr="sum"), TorchWeighted(aggr="sum")
    calls = []
    ours.register_message_and_aggregate_forward_hook(lambda m, i, o: calls.append(1))
    got = ours(x, adj_t)
    assert calls == [1]
    t_adj = torch.sparse_coo_tensor(_t(np.stack([ei[1], ei[0]])), _t(w), (n, n)).coalesce()
    want = theirs(_t(x), t_adj).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the edge-list form with the same weights gives the same numbers
    np.testing.assert_allclose(ours(x, ei, w), want, rtol=1e-12)

    # without message_and_aggregate: message + aggregate over adj_t's edges; an explicit
    # edge_weight wins over the stored values
    class WeightedNoFuse(Weighted):
        message_and_aggregate = MessagePassing.message_and_aggregate

    ours_max = WeightedNoFuse(aggr="max")
    assert not ours_max.fuse
    w2 = rng.random(20)
    got = ours_max(x, sp.coo_matrix((np.ones(20), (ei[1], ei[0])), shape=(n, n)).tocsr(), None)
    assert got.shape == (n, 3)
    csr = sp.coo_matrix((w, (ei[1], ei[0])), shape=(n, n)).tocsr()
    csr.sum_duplicates()
    got = ours_max(x, csr, w2[: csr.nnz])
    coo = csr.tocoo()
    want = np.zeros((n, 3))
    for t in range(n):
        sel = coo.row == t
        if sel.any():
            rows = w2[: csr.nnz][sel][:, None] * x[coo.col[sel]]
            want[t] = rows.max(0)
    np.testing.assert_allclose(got, want, rtol=1e-12)

    # ... and with stored values as edge_weight, as PyG
    class TorchWeightedNoFuse(TorchWeighted):
        message_and_aggregate = pyg_nn.MessagePassing.message_and_aggregate

    theirs_max = TorchWeightedNoFuse(aggr="max")
    got = ours_max(x, adj_t)
    want = theirs_max(_t(x), t_adj.to_sparse_csr()).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_edge_updater_matches_pyg():
    class Scores(MessagePassing):
        def forward(self, x, edge_index):
            return self.edge_updater(edge_index, x=x)

        def edge_update(self, x_i, x_j):
            return (x_i * x_j).sum(-1)

    class TorchScores(pyg_nn.MessagePassing):
        def forward(self, x, edge_index):
            return self.edge_updater(edge_index, x=x)

        def edge_update(self, x_i, x_j):
            return (x_i * x_j).sum(-1)

    rng = np.random.default_rng(6)
    ei = random_graph(rng, 6, num_edges=14)
    x = rng.normal(size=(6, 4))
    np.testing.assert_allclose(Scores()(x, ei), TorchScores()(_t(x), _t(ei)).numpy(), rtol=1e-12)
    xs, xd = rng.normal(size=(6, 4)), rng.normal(size=(3, 4))
    eb = random_graph(rng, 6, 3, num_edges=10)
    np.testing.assert_allclose(
        Scores()((xs, xd), eb), TorchScores()((_t(xs), _t(xd)), _t(eb)).numpy(), rtol=1e-12
    )


def test_decomposed_layers_give_the_same_result():
    rng = np.random.default_rng(7)
    ei = random_graph(rng, 10, num_edges=30)
    x = rng.normal(size=(10, 5))

    class Scaled(MessagePassing):
        def forward(self, x, edge_index, w):
            return self.propagate(edge_index, x=x, w=w)

        def message(self, x_j, w):
            return x_j * w[:, None]

    w = rng.random(30)
    one = Scaled(aggr="mean")(x, ei, w)
    for parts in (2, 3, 5):
        layer = Scaled(aggr="mean", decomposed_layers=parts)
        shapes = []
        layer.register_message_forward_hook(
            lambda m, i, o, shapes=shapes: shapes.append(o.shape[1])
        )
        np.testing.assert_allclose(layer(x, ei, w), one, rtol=1e-12)
        assert sum(shapes) == 5 and len(shapes) > 1


def test_hooks_can_change_inputs_and_outputs_and_be_removed():
    rng = np.random.default_rng(8)
    ei = random_graph(rng, 5, num_edges=12)
    x = rng.normal(size=(5, 2))
    layer = Plain(aggr="sum")
    base = layer(x, ei)
    h1 = layer.register_propagate_forward_pre_hook(lambda m, inp: (inp[0], inp[1], {"x": 2 * x}))
    np.testing.assert_allclose(layer(x, ei), 2 * base)
    h2 = layer.register_propagate_forward_hook(lambda m, inp, out: out + 1)
    np.testing.assert_allclose(layer(x, ei), 2 * base + 1)
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(layer(x, ei), base)
    with layer.register_aggregate_forward_pre_hook(lambda m, inp: ({**inp[0], "dim_size": 7},)):
        assert layer(x, ei).shape == (7, 2)
    assert layer(x, ei).shape == (5, 2)


def test_explain_message_matches_pyg():
    rng = np.random.default_rng(9)
    ei = random_graph(rng, 6, num_edges=15)
    x = rng.normal(size=(6, 3))
    mask = rng.normal(size=15)
    ours, theirs = Plain(aggr="sum"), TorchPlain(aggr="sum")
    ours.explain, theirs.explain = True, True
    ours._edge_mask, theirs._edge_mask = mask, _t(mask)
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)
    ours._edge_mask = None
    with pytest.raises(ValueError, match="_edge_mask"):
        ours(x, ei)


def test_sublayer_assigned_before_init_is_still_a_weight():
    class Early(MessagePassing):
        def __init__(self):
            self.lin = Linear(2, 2)
            super().__init__()

    assert sorted(Early().state_dict()) == ["lin.bias", "lin.weight"]


def test_decomposed_layers_with_optional_none_argument():
    class Opt(MessagePassing):
        def forward(self, x, edge_index, w=None):
            return self.propagate(edge_index, x=x, w=w)

        def message(self, x_j, w_j=None):
            return x_j if w_j is None else x_j * w_j

    rng = np.random.default_rng(11)
    ei = random_graph(rng, 5, num_edges=12)
    x = rng.normal(size=(5, 4))
    w = rng.normal(size=(5, 4))
    np.testing.assert_allclose(Opt(decomposed_layers=2)(x, ei), Opt()(x, ei), rtol=1e-12)
    np.testing.assert_allclose(Opt(decomposed_layers=2)(x, ei, w), Opt()(x, ei, w), rtol=1e-12)


def test_state_dict_round_trip_and_repr():
    layer = EdgeMLP(3, 2, 4)
    assert sorted(layer.state_dict()) == ["lin.bias", "lin.weight", "scale"]
    other = EdgeMLP(3, 2, 4).load_state_dict(layer.state_dict())
    for k, v in layer.state_dict().items():
        np.testing.assert_array_equal(other.state_dict()[k], v)
    with pytest.raises(KeyError, match="missing"):
        other.load_state_dict({"lin.weight": np.zeros((4, 8))})
    assert repr(Plain()) == "Plain()"

    class WithChannels(MessagePassing):
        def __init__(self):
            super().__init__()
            self.in_channels, self.out_channels = 3, 5

    assert repr(WithChannels()) == "WithChannels(3, 5)"


# ---- errors ----------------------------------------------------------------------------------
def test_bad_input_raises_clear_errors():
    x = np.ones((4, 2))
    ei = np.array([[0, 1], [1, 2]])
    layer = EdgeMLP(2, 1, 2)
    with pytest.raises(ValueError, match="integer type"):
        Plain()(x, ei.astype(float))
    with pytest.raises(ValueError, match="two-dimensional"):
        Plain()(x, ei[0])
    with pytest.raises(ValueError, match="size '2'"):
        Plain()(x, np.zeros((3, 2), int))
    with pytest.raises(IndexError, match=r"larger than 3 \(got 9\)"):
        Plain()(x, np.array([[0, 9], [1, 2]]))
    with pytest.raises(IndexError, match="negative"):
        Plain()(x, np.array([[0, -1], [1, 2]]))
    with pytest.raises(IndexError, match="larger than"):
        layer(x, np.array([[0, 1], [1, 4]]), np.ones((2, 1)))
    with pytest.raises(ValueError, match="expected size 5"):
        Plain()(x, ei, size=(5, 5))
    with pytest.raises(TypeError, match="needs 'edge_attr'"):
        layer.propagate(ei, x=x)
    with pytest.raises(TypeError, match="edge_index must be"):
        Plain()(x, ei.tolist())
    with pytest.raises(TypeError, match="from_torch"):
        Plain()(x, torch.tensor(ei))
    with pytest.raises(ValueError, match="flow"):
        Plain(flow="sideways")
    with pytest.raises(ValueError, match="target_to_source"):
        Weighted(flow="target_to_source")(x, sp.eye(4, format="csr"))
    with pytest.raises(ValueError, match="could not resolve"):
        Plain(aggr="median-ish")
    with pytest.raises(NotImplementedError, match="aggregate"):
        Plain(aggr=None)(x, ei)
    with pytest.raises(ValueError, match="decomposed_layers"):
        Plain(decomposed_layers=0)
    with pytest.raises(TypeError, match="size must be a pair"):
        Plain()(x, ei, size=4)
    with pytest.raises(ValueError, match="node_dim"):
        Plain()(np.ones(4), ei)


def test_aggregation_instance_and_user_aggregate():
    rng = np.random.default_rng(10)
    ei = random_graph(rng, 6, num_edges=15)
    x = rng.normal(size=(6, 3))
    ours = Plain(aggr=SoftmaxAggregation(t=2.0))
    theirs = TorchPlain(aggr=pyg_nn.aggr.SoftmaxAggregation(t=2.0))
    assert not ours.fuse
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)

    class Median(MessagePassing):
        def __init__(self):
            super().__init__(aggr=None)

        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=x)

        def aggregate(self, inputs, index, dim_size):
            out = np.zeros((dim_size, inputs.shape[1]))
            for t in range(dim_size):
                if (index == t).any():
                    out[t] = np.median(inputs[index == t], axis=0)
            return out

    got = Median()(x, ei)
    want = pyg_nn.aggr.MedianAggregation()(_t(x)[_t(ei[0])], _t(ei[1]), dim_size=6).numpy()
    # PyG's median is the lower middle; numpy's the mean of the two middles
    for t in range(6):
        vals = x[ei[0][ei[1] == t]]
        if len(vals) % 2 == 1:
            np.testing.assert_allclose(got[t], want[t])
