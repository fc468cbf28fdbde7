"""Review (session 9) of the DGL face added today: g.astype with torch dtypes,
NeighborSampler prefetch_* dict values, SAGEConv 'lstm' against DGL's reducer."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph, to_block
from arraygnn.sampling import NeighborSampler


def _g():
    return graph((np.array([0, 1, 2, 2]), np.array([1, 2, 0, 0])), num_nodes=4)


def test_astype_takes_torch_idtypes_as_dgl_users_write_them():
    torch = pytest.importorskip("torch")
    g = _g()
    g.ndata["h"] = np.arange(4.0)
    small = g.astype(torch.int32)  # DGL: g.astype(torch.int32)
    assert small.idtype == np.int32 and small.edges()[0].dtype == np.int32
    assert small.astype(torch.int64).idtype == np.int64
    assert small.astype(torch.int32) is small
    with pytest.raises(ValueError, match="int32 or int64"):
        g.astype(torch.float32)


def test_astype_refuses_non_id_dtypes_naming_the_argument():
    g = _g()
    with pytest.raises(ValueError, match="astype: idtype"):
        g.astype(np.float32)
    with pytest.raises(TypeError, match="astype: idtype"):
        g.astype(object())


def _hetero():
    hg = heterograph(
        {
            ("user", "plays", "game"): (np.array([0, 1, 2, 2]), np.array([1, 0, 1, 0])),
            ("user", "follows", "user"): (np.array([0, 1, 2]), np.array([1, 2, 0])),
        },
        num_nodes_dict={"user": 3, "game": 2},
    )
    hg.nodes["user"].data["feat"] = np.arange(3.0) * 10
    hg.nodes["game"].data["label"] = np.array([7, 8])
    return hg


@pytest.mark.parametrize("arg", ["prefetch_node_feats", "prefetch_labels", "prefetch_edge_feats"])
def test_prefetch_dict_with_a_bare_name_is_a_type_error(arg):
    # {'user': 'feat'} used to be read as the names 'f', 'e', 'a', 't' (a KeyError on 'f')
    with pytest.raises(TypeError, match=arg):
        NeighborSampler([2], **{arg: {"user": "feat"}})


def test_prefetch_dict_lists_work_with_copy_ndata_false_on_a_heterograph():
    hg = _hetero()
    s = NeighborSampler(
        [2, 2],
        copy_ndata=False,
        prefetch_node_feats={"user": ["feat"]},
        prefetch_labels={"game": ("label",)},
    )
    _, _, blocks = s.sample_blocks(hg, {"game": np.array([1])})
    src = blocks[0].srcnodes["user"].data
    np.testing.assert_array_equal(src["feat"], hg.nodes["user"].data["feat"][src["_ID"]])
    dst = blocks[-1].dstnodes["game"].data
    np.testing.assert_array_equal(dst["label"], [8])


def test_to_block_src_nodes_order_and_edges():
    g = _g().int()
    b = to_block(g, np.array([0, 1, 2], np.int32), src_nodes=np.array([0, 1, 2, 3], np.int32))
    assert b.num_src_nodes() == 4 and b.idtype == np.int32
    s, d = b.edges()
    np.testing.assert_array_equal(b.srcdata["_ID"][s], [0, 1, 2, 2])
    np.testing.assert_array_equal(b.dstdata["_ID"][d], [1, 2, 0, 0])
    b2 = to_block(g, np.array([0, 1, 2]), include_dst_in_src=False, src_nodes=[2, 1, 0])
    np.testing.assert_array_equal(b2.srcdata["_ID"][b2.edges()[0]], [0, 1, 2, 2])
    with pytest.raises(ValueError, match="start with the dst_nodes"):
        to_block(g, np.array([0, 1, 2]), src_nodes=np.array([1, 0, 2]))
    with pytest.raises(ValueError, match="not among src_nodes"):
        to_block(g, np.array([0, 1, 2]), include_dst_in_src=False, src_nodes=[0, 1])


def _dgl_lstm_reference(torch, conv, src, dst, x_src, x_dst, weight=None):
    """DGL's SAGEConv 'lstm' forward: per destination node the LSTM (batch_first, zero
    state) over its in-edge messages in edge-id order, then fc_neigh + fc_self."""
    lstm = torch.nn.LSTM(conv.in_src, conv.in_src, batch_first=True).double()
    names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
    lstm.load_state_dict(
        {k: torch.tensor(np.asarray(getattr(conv.lstm, k), np.float64)) for k in names}
    )
    neigh = np.zeros((x_dst.shape[0], conv.in_src))
    for v in range(x_dst.shape[0]):
        eids = np.nonzero(dst == v)[0]
        if eids.size == 0:
            continue
        m = torch.tensor(x_src[src[eids]], dtype=torch.float64)
        if weight is not None:
            m = m * torch.tensor(weight[eids], dtype=torch.float64)[:, None]
        with torch.no_grad():
            _, (h, _) = lstm(m[None])
        neigh[v] = h[0, 0].numpy()
    out = neigh @ np.asarray(conv.lin_l.weight, np.float64).T + np.asarray(conv.lin_l.bias)
    return out + x_dst @ np.asarray(conv.lin_r.weight, np.float64).T


def test_sage_lstm_multi_edges_self_loops_int32_and_a_given_csr():
    torch = pytest.importorskip("torch")
    from arraygnn import ops
    from arraygnn.nn import SAGEConv

    src = np.array([0, 0, 1, 2, 2, 3, 0, 4, 4, 1], np.int32)  # 0->1 twice, 2->2, 3->3
    dst = np.array([1, 1, 1, 2, 0, 3, 3, 1, 0, 3], np.int32)  # node 5 has no in-edge
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    w = rng.random(src.shape[0]).astype(np.float32)
    conv = SAGEConv(3, 2, "lstm", rng=0)
    ref = _dgl_lstm_reference(torch, conv, src, dst, x, x, w)
    g = graph((src, dst), num_nodes=6)
    for out in (
        conv(g, x, edge_weight=w),
        conv(x, np.stack([src, dst]), edge_weight=w),
        conv(x, ops.to_csr(np.stack([src, dst]), 6, 6), edge_weight=w),
    ):
        np.testing.assert_allclose(out, ref, atol=1e-5)


def test_gin_dgl_order_with_init_eps_names_the_aggregator():
    from arraygnn import nn

    lin = nn.Linear(3, 3, rng=0)
    # DGL: GINConv(apply_func, 'max', 0.1): the eps slot holds the aggregator name
    with pytest.raises(TypeError, match="aggregator_type='max'"):
        nn.GINConv(lin, "max", 0.1)
    with pytest.raises(TypeError, match="aggregator_type='mean'"):
        nn.GINEConv(lin, "mean", 0)
    # a string that is no aggregator name gets no aggregator hint
    with pytest.raises(TypeError, match="eps must be a number") as info:
        nn.GINConv(lin, "0.1")
    assert "aggregator_type" not in str(info.value)
