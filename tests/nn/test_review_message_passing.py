"""Review of arraygnn.nn.MessagePassing against what PyG 2.8.1 actually runs: the jinja
``propagate`` / ``edge_updater`` / ``collect`` templates (default), not the Python
``_collect`` (only used with ``decomposed_layers > 1`` or ``explain``)."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.nn import Linear, MessagePassing
from arraygnn.ops import to_csr
from tests.nn._nn_cases import random_graph

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# ---- the same layers, twice ----------------------------------------------------------------
class Pair(MessagePassing):
    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)

    def message(self, x_i, x_j):
        return x_j - 0.5 * x_i


class TorchPair(pyg_nn.MessagePassing):
    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)

    def message(self, x_i, x_j):
        return x_j - 0.5 * x_i


class Plain(MessagePassing):
    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)


class TorchPlain(pyg_nn.MessagePassing):
    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)


class Unfused(Plain):
    """The same numbers as Plain through message + aggregate (no fused spmm)."""

    def message(self, x_j):
        return x_j


# ---- (x_src, x_dst) pairs: the jinja template's element choice --------------------------
@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
def test_pair_elements_follow_pyg_for_both_flows(flow):
    rng = np.random.default_rng(0)
    ei = random_graph(rng, 6, num_edges=18)
    a, b = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    want = TorchPair(flow=flow)((_t(a), _t(b)), _t(ei)).numpy()
    np.testing.assert_allclose(Pair(flow=flow)((a, b), ei), want, rtol=1e-12)
    # the default message (fused spmm) and the message path agree with PyG as well
    want = TorchPlain(flow=flow)((_t(a), _t(b)), _t(ei)).numpy()
    np.testing.assert_allclose(Plain(flow=flow)((a, b), ei), want, rtol=1e-12)
    np.testing.assert_allclose(Unfused(flow=flow)((a, b), ei), want, rtol=1e-12)
    np.testing.assert_allclose(Plain(flow=flow)((a, b), to_csr(ei, 6, 6)), want, rtol=1e-12)


def test_bipartite_pair_with_target_to_source_matches_pyg_sizes():
    rng = np.random.default_rng(1)
    # target_to_source: edge_index[0] holds the 3 receivers, edge_index[1] the 6 senders
    ei = np.stack([rng.integers(0, 3, 14), rng.integers(0, 6, 14)])
    xs, xd = rng.normal(size=(6, 2)), rng.normal(size=(3, 2))
    for ours, theirs in ((Pair, TorchPair), (Plain, TorchPlain), (Unfused, TorchPlain)):
        want = theirs(flow="target_to_source")((_t(xs), _t(xd)), _t(ei)).numpy()
        got = ours(flow="target_to_source")((xs, xd), ei)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)
        want = theirs(flow="target_to_source")((_t(xs), _t(xd)), _t(ei), (6, 3)).numpy()
        np.testing.assert_allclose(ours(flow="target_to_source")((xs, xd), ei, (6, 3)), want)
        with pytest.raises(ValueError, match="expected size"):
            ours(flow="target_to_source")((xs, xd), ei, (3, 6))


def test_lifted_scalar_or_none_argument_is_none_like_pyg():
    seen = {}

    class Scalar(MessagePassing):
        def forward(self, x, edge_index, c):
            return self.propagate(edge_index, x=x, c=c)

        def message(self, x_j, c_i, c_j):
            seen["ours"] = (c_i, c_j)
            return x_j

    class TorchScalar(pyg_nn.MessagePassing):
        def forward(self, x, edge_index, c):
            return self.propagate(edge_index, x=x, c=c)

        def message(self, x_j, c_i, c_j):
            seen["theirs"] = (c_i, c_j)
            return x_j

    x = np.ones((3, 2))
    ei = np.array([[0, 1], [1, 2]])
    for c in (2.0, None, "tag"):
        Scalar()(x, ei, c)
        TorchScalar()(_t(x), _t(ei), c)
        assert seen["ours"] == seen["theirs"] == (None, None)
    # a pair with one side missing: that side is None
    Scalar()(x, ei, (None, x))
    assert seen["ours"][1] is None and seen["ours"][0].shape == (2, 2)


# ---- defaults and hooks -------------------------------------------------------------------------
def test_default_of_one_function_serves_the_others_like_pyg():
    class Opt(MessagePassing):
        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=x)

        def message(self, x_j, w=None):
            return x_j

        def update(self, inputs, w):
            return inputs if w is None else inputs * w

    class TorchOpt(pyg_nn.MessagePassing):
        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=x)

        def message(self, x_j, w=None):
            return x_j

        def update(self, inputs, w):
            return inputs if w is None else inputs * w

    rng = np.random.default_rng(2)
    ei = random_graph(rng, 5, num_edges=10)
    x = rng.normal(size=(5, 2))
    np.testing.assert_allclose(Opt()(x, ei), TorchOpt()(_t(x), _t(ei)).numpy(), rtol=1e-12)

    class Clash(MessagePassing):
        def message(self, x_j, w=1.0):
            return x_j

        def update(self, inputs, w=2.0):
            return inputs

    class TorchClash(pyg_nn.MessagePassing):
        def message(self, x_j, w=1.0):
            return x_j

        def update(self, inputs, w=2.0):
            return inputs

    with pytest.raises(ValueError, match="inconsistent defaults"):
        TorchClash()
    with pytest.raises(ValueError, match="inconsistent defaults"):
        Clash()


class Scaled(MessagePassing):
    def forward(self, x, edge_index, s):
        return self.propagate(edge_index, x=x, s=s)

    def message(self, x_j, s):
        return x_j * s

    def update(self, inputs, s):
        return inputs + s


class TorchScaled(pyg_nn.MessagePassing):
    def forward(self, x, edge_index, s):
        return self.propagate(edge_index, x=x, s=s)

    def message(self, x_j, s):
        return x_j * s

    def update(self, inputs, s):
        return inputs + s


def test_pre_hook_replacements_reach_later_steps_and_extra_keys_are_ignored():
    rng = np.random.default_rng(3)
    ei = random_graph(rng, 5, num_edges=12)
    x = rng.normal(size=(5, 2))
    for hook in (
        lambda m, inp: ({**inp[0], "s": 10.0},),  # message args: s reaches update too
        lambda m, inp: {**inp[0], "s": 10.0, "unused": 1},  # a bare dict, an extra key
    ):
        ours, theirs = Scaled(), TorchScaled()
        ours.register_message_forward_pre_hook(hook)
        theirs.register_message_forward_pre_hook(hook)
        np.testing.assert_allclose(ours(x, ei, 1.0), theirs(_t(x), _t(ei), 1.0).numpy())

    class AggrScaled(MessagePassing):
        def forward(self, x, edge_index, s):
            return self.propagate(edge_index, x=x, s=s)

        def update(self, inputs, s, dim_size):
            return inputs[: dim_size - 1] + s

    class TorchAggrScaled(pyg_nn.MessagePassing):
        def forward(self, x, edge_index, s):
            return self.propagate(edge_index, x=x, s=s)

        def update(self, inputs, s, dim_size: Optional[int]):  # noqa: UP045 (PyG's jinja)
            return inputs[: dim_size - 1] + s

    ours, theirs = AggrScaled(), TorchAggrScaled()
    hook = lambda m, inp: ({**inp[0], "dim_size": 7},)  # noqa: E731
    ours.register_aggregate_forward_pre_hook(hook)
    theirs.register_aggregate_forward_pre_hook(hook)
    got, want = ours(x, ei, 1.0), theirs(_t(x), _t(ei), 1.0).numpy()
    assert "_propagate" in type(theirs).propagate.__module__  # PyG's jinja template ran
    assert got.shape == want.shape == (6, 2)
    np.testing.assert_allclose(got, want)


def test_edge_updater_hooks_see_the_collected_arguments_like_pyg():
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

    rng = np.random.default_rng(4)
    ei = random_graph(rng, 5, num_edges=9)
    x = rng.normal(size=(5, 3))
    seen = {"ours": [], "theirs": []}
    outs = []
    for key, layer, args in (
        ("ours", Scores(), (x, ei)),
        ("theirs", TorchScores(), (_t(x), _t(ei))),
    ):

        def pre(m, inp, key=key):
            seen[key].append(("pre", inp[1], sorted(inp[2])))
            return inp[0], inp[1], {**inp[2], "x_i": 2 * inp[2]["x_i"]}

        def post(m, inp, out, key=key):
            seen[key].append(("post", inp[1], sorted(inp[2])))
            return out + 1

        layer.register_edge_update_forward_pre_hook(pre)
        layer.register_edge_update_forward_hook(post)
        outs.append(np.asarray(layer(*args)))
    assert seen["ours"] == seen["theirs"]
    assert seen["ours"][0] == ("pre", None, ["x_i", "x_j"])
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)


def test_decomposed_layers_may_be_set_while_explaining_like_pyg():
    rng = np.random.default_rng(5)
    ei = random_graph(rng, 6, num_edges=14)
    x = rng.normal(size=(6, 4))
    mask = rng.normal(size=14)
    ours, theirs = Plain(), TorchPlain()
    for layer, m in ((ours, mask), (theirs, _t(mask))):
        layer.explain = True
        layer._edge_mask = m
        layer.decomposed_layers = 2  # PyG allows it and explains with one layer
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)


def test_decomposed_layers_refuse_arguments_split_into_different_block_counts():
    class Two(MessagePassing):
        def forward(self, x, edge_index, y):
            return self.propagate(edge_index, x=x, y=y)

        def message(self, x_j, y_j):
            return np.concatenate([x_j, y_j], -1)

    rng = np.random.default_rng(6)
    ei = random_graph(rng, 5, num_edges=10)
    x, y = rng.normal(size=(5, 5)), rng.normal(size=(5, 4))
    # 3 blocks: x -> 2 + 2 + 1 columns, y -> 2 + 2: x's last block would be dropped
    with pytest.raises(ValueError, match="decomposed_layers"):
        Two(decomposed_layers=3)(x, ei, y)
    # a pair whose elements split differently, alone: refused as well
    with pytest.raises(ValueError, match="decomposed_layers"):
        Pair(decomposed_layers=3)((x, y), ei)
    # a pair with a None element is split on its array
    np.testing.assert_allclose(
        Plain(decomposed_layers=2)((x, None), ei, (5, 5)), Plain()((x, None), ei, (5, 5))
    )
    np.testing.assert_allclose(
        Two(decomposed_layers=2)(x, ei, y)[:, [0, 1, 2, 5, 6, 3, 4, 7, 8]],
        Two()(x, ei, y),
        rtol=1e-12,
    )


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_explain_with_self_loop_mask_matches_pyg():
    """A layer that swaps its self-loops for fresh ones (GCN-style): ``_edge_mask`` has one
    entry per input edge, ``_loop_mask`` keeps the non-loop ones, the new loops weigh 1."""

    class Loops(MessagePassing):
        def forward(self, x, edge_index):
            keep = edge_index[0] != edge_index[1]
            self._loop_mask = keep
            loops = np.stack([np.arange(x.shape[0])] * 2)
            return self.propagate(np.concatenate([edge_index[:, keep], loops], 1), x=x)

    class TorchLoops(pyg_nn.MessagePassing):
        def forward(self, x, edge_index):
            keep = edge_index[0] != edge_index[1]
            self._loop_mask = keep
            loops = torch.arange(x.shape[0]).repeat(2, 1)
            return self.propagate(torch.cat([edge_index[:, keep], loops], 1), x=x)

    rng = np.random.default_rng(7)
    ei = random_graph(rng, 6, num_edges=15)
    ei[1, :3] = ei[0, :3]  # some self-loops to drop
    x = rng.normal(size=(6, 3))
    mask = rng.normal(size=15)
    mask[3] = -1000.0  # sigmoid = 0, without an overflow warning
    ours, theirs = Loops(), TorchLoops()
    for layer, m in ((ours, mask), (theirs, _t(mask))):
        layer.explain = True
        layer._edge_mask = m
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)


# ---- sparse adj_t ----------------------------------------------------------------------------
class Attr(MessagePassing):
    def forward(self, x, adj_t, edge_attr):
        return self.propagate(adj_t, x=x, edge_attr=edge_attr)

    def message(self, x_j, edge_attr):
        return x_j * edge_attr


def test_scipy_coo_adj_t_keeps_its_edge_order():
    rng = np.random.default_rng(8)
    n = 6
    ei = random_graph(rng, n, num_edges=16, isolated=0)
    keys = np.unique(ei[1] * n + ei[0])  # no duplicates ...
    ei = np.stack([keys % n, keys // n])[:, rng.permutation(keys.shape[0])]  # ... unsorted
    ea = rng.random((ei.shape[1], 1))
    x = rng.normal(size=(n, 2))
    coo = sp.coo_matrix((np.ones(ei.shape[1]), (ei[1], ei[0])), shape=(n, n))
    for aggr in ("sum", "max"):
        want = Attr(aggr=aggr)(x, ei, ea)
        np.testing.assert_allclose(Attr(aggr=aggr)(x, coo, ea), want, rtol=1e-12)
        np.testing.assert_allclose(Attr(aggr=aggr)(x, coo.tocsr(), ea[np.lexsort(ei)]), want)


def test_sparse_values_fill_only_the_first_of_weight_attr_type_like_pyg():
    seen = {}

    class Both(MessagePassing):
        def forward(self, x, adj_t):
            return self.propagate(adj_t, x=x, edge_weight=None, edge_type=None)

        def message(self, x_j, edge_weight, edge_type):
            seen["ours"] = (edge_weight is None, edge_type is None)
            return x_j

    class TorchBoth(pyg_nn.MessagePassing):
        def forward(self, x, adj_t):
            return self.propagate(adj_t, x=x, edge_weight=None, edge_type=None)

        def message(self, x_j, edge_weight, edge_type):
            seen["theirs"] = (edge_weight is None, edge_type is None)
            return x_j

    rng = np.random.default_rng(9)
    n = 5
    ei = random_graph(rng, n, num_edges=10)
    w = rng.random(10)
    adj = sp.coo_matrix((w, (ei[1], ei[0])), shape=(n, n)).tocsr()
    x = rng.normal(size=(n, 2))
    t_adj = torch.sparse_coo_tensor(_t(np.stack([ei[1], ei[0]])), _t(w), (n, n)).coalesce()
    Both()(x, adj)
    TorchBoth()(_t(x), t_adj)
    assert seen["ours"] == seen["theirs"] == (False, True)


def test_special_arguments_that_the_input_form_lacks_raise_like_pyg():
    class WantsAdj(MessagePassing):
        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=x)

        def message(self, x_j, adj_t):
            return x_j

    class WantsIndex(WantsAdj):
        def message(self, x_j, edge_index):
            return x_j

    class TorchWantsAdj(pyg_nn.MessagePassing):
        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=x)

        def message(self, x_j, adj_t):
            return x_j

    x = np.ones((3, 2))
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="adj_t"):
        TorchWantsAdj()(_t(x), _t(ei))
    with pytest.raises(ValueError, match="adj_t"):
        WantsAdj()(x, ei)
    with pytest.raises(ValueError, match="adj_t"):
        WantsAdj()(x, to_csr(ei, 3, 3))
    with pytest.raises(ValueError, match="edge_index"):
        WantsIndex()(x, sp.eye(3, format="csr"))
    assert WantsIndex()(x, to_csr(ei, 3, 3)).shape == (3, 2)


# ---- the fused spmm path gives what the message path gives ------------------------------
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("aggr", ["sum", "mean", "max", "min"])
def test_fused_equals_unfused_on_every_graph_case(dtype, index_dtype, aggr):
    rng = np.random.default_rng(10)
    cases = [
        (random_graph(rng, 9, num_edges=40, index_dtype=index_dtype), 9, 9),
        (np.zeros((2, 0), index_dtype), 4, 4),
        (random_graph(rng, 7, 3, num_edges=12, index_dtype=index_dtype), 7, 3),
        (np.array([[0], [0]], index_dtype), 1, 1),
    ]
    for ei, n_src, n_dst in cases:
        xs = rng.normal(size=(n_src, 3)).astype(dtype)
        xd = rng.normal(size=(n_dst, 3)).astype(dtype)
        for x, size in (((xs, xd), None), (xs, (n_src, n_dst))):
            a = Plain(aggr=aggr)(x, ei, size)
            b = Unfused(aggr=aggr)(x, ei, size)
            assert a.dtype == b.dtype == dtype
            np.testing.assert_array_equal(a, b)
        for node_dim, xx in ((0, rng.normal(size=(n_src, 2, 3))), (-1, rng.normal(size=n_src))):
            xx = xx.astype(dtype)
            a = Plain(aggr=aggr, node_dim=node_dim)(xx, ei, (n_src, n_dst))
            b = Unfused(aggr=aggr, node_dim=node_dim)(xx, ei, (n_src, n_dst))
            np.testing.assert_array_equal(a, b)
            c = Plain(aggr=aggr, node_dim=node_dim)(xx, to_csr(ei, n_src, n_dst))
            d = Unfused(aggr=aggr, node_dim=node_dim)(xx, to_csr(ei, n_src, n_dst))
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(a, d)


def test_message_set_on_the_instance_turns_the_fused_path_off_like_pyg():
    rng = np.random.default_rng(13)
    ei = random_graph(rng, 6, num_edges=14)
    x = rng.normal(size=(6, 2))
    ours, theirs = Plain(aggr="max"), TorchPlain(aggr="max")
    ours.message = lambda x_j: 2 * x_j - 1
    theirs.message = lambda x_j: 2 * x_j - 1
    np.testing.assert_allclose(ours(x, ei), theirs(_t(x), _t(ei)).numpy(), rtol=1e-12)


def test_fused_and_unfused_raise_the_same_error_for_targets_out_of_range():
    x = np.ones((4, 2))
    ei = np.array([[0, 1], [1, 3]])
    errors = []
    for cls in (Plain, Unfused):
        with pytest.raises(ValueError, match="dim_size") as info:
            cls()(x, ei, (4, 2))
        errors.append(str(info.value).replace(cls.__name__, "Layer"))
        with pytest.raises(IndexError, match="negative") as info:
            cls()(x, np.array([[0, -1], [1, 2]]))
        errors.append(str(info.value).replace(cls.__name__, "Layer"))
    assert errors[:2] == errors[2:]
    with pytest.raises(ValueError, match="dim_size"):
        TorchPlain()(_t(x), _t(ei), (4, 2))


def test_nothing_the_caller_passed_is_changed():
    rng = np.random.default_rng(11)
    ei = random_graph(rng, 6, num_edges=14)
    x = rng.normal(size=(6, 3))
    ea = rng.random((14, 1))
    adj = sp.coo_matrix((ea[:, 0], (ei[1], ei[0])), shape=(6, 6))
    copies = [ei.copy(), x.copy(), ea.copy(), adj.row.copy(), adj.col.copy(), adj.data.copy()]
    Attr(aggr="max")(x, ei, ea)
    Attr(aggr="max")(x, adj, ea)
    Pair(decomposed_layers=3)(x, ei)
    for before, after in zip(copies, [ei, x, ea, adj.row, adj.col, adj.data]):
        np.testing.assert_array_equal(before, after)


def test_pyg_weights_load_into_sub_layers_and_learnt_aggregations():
    class Lin(MessagePassing):
        def __init__(self, aggr, **kw):
            super().__init__(aggr=aggr, **kw)
            self.lin = Linear(3, 3)

        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=self.lin(x))

    class TorchLin(pyg_nn.MessagePassing):
        def __init__(self, aggr, **kw):
            super().__init__(aggr=aggr, **kw)
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=self.lin(x))

    rng = np.random.default_rng(12)
    ei = random_graph(rng, 7, num_edges=20)
    x = rng.normal(size=(7, 3))
    for aggr, kw in (
        ("powermean", {"aggr_kwargs": {"learn": True, "p": 1.5}}),
        ("softmax", {"aggr_kwargs": {"learn": True, "channels": 3}}),
        (
            ["mean", "max"],
            {"aggr_kwargs": {"mode": "proj", "mode_kwargs": {"in_channels": 3, "out_channels": 3}}},
        ),
    ):
        torch.manual_seed(0)
        theirs = TorchLin(aggr, **kw).double()
        with torch.no_grad():
            for p in theirs.parameters():
                p.copy_(torch.rand_like(p) * 0.5 + 0.5)
        ours = Lin(aggr, **kw).astype(np.float64).load_state_dict(theirs.state_dict())
        assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
        with torch.no_grad():
            want = theirs(_t(x), _t(ei)).numpy()
        np.testing.assert_allclose(ours(x, ei), want, rtol=1e-10, atol=1e-12)


def test_buffers_and_private_sub_layers_load_from_a_pyg_state_dict():
    class Buffered(MessagePassing):
        def __init__(self):
            super().__init__(aggr="mean")
            self._lin = Linear(3, 3)  # a leading "_" is still a sub-layer, as in torch
            self.register_buffer("shift", np.zeros(3, np.float32))
            self.register_buffer("scratch", np.zeros(1, np.float32), persistent=False)

        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=self._lin(x)) + self.shift

    class TorchBuffered(pyg_nn.MessagePassing):
        def __init__(self):
            super().__init__(aggr="mean")
            self._lin = torch.nn.Linear(3, 3)
            self.register_buffer("shift", torch.rand(3))
            self.register_buffer("scratch", torch.zeros(1), persistent=False)

        def forward(self, x, edge_index):
            return self.propagate(edge_index, x=self._lin(x)) + self.shift

    torch.manual_seed(0)
    theirs = TorchBuffered().double()
    ours = Buffered().astype(np.float64).load_state_dict(theirs.state_dict())
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    rng = np.random.default_rng(14)
    ei = random_graph(rng, 6, num_edges=12)
    x = rng.normal(size=(6, 3))
    with torch.no_grad():
        want = theirs(_t(x), _t(ei)).numpy()
    np.testing.assert_allclose(ours(x, ei), want, rtol=1e-12)
    with pytest.raises(TypeError, match="register_buffer"):
        ours.register_buffer("bad", torch.zeros(2))
