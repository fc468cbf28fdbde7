"""Lead's follow-ups to the session-13 sweeps' "left alone" notes: errors that name the
public function / layer and argument the user wrote."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import arraygnn.nn as agnn


def test_global_pool_out_of_range_batch_names_the_function():
    x = np.ones((4, 2), np.float32)
    batch = np.array([0, 1, 3, 3])
    for fn in (agnn.global_add_pool, agnn.global_mean_pool, agnn.global_max_pool):
        with pytest.raises(ValueError, match=rf"{fn.__name__}: index has entry 3.*is batch"):
            fn(x, batch, 2)
    np.testing.assert_array_equal(agnn.global_add_pool(x, batch, 4)[3], [2.0, 2.0])


def test_gru_cell_refuses_a_hidden_state_that_is_not_an_array():
    cell = agnn.GRUCell(3, 2)
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"GRUCell h must be \(2, 2\), got list"):
        cell(x, [[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(cell(x, np.zeros((2, 2), np.float32)), cell(x))


def test_hetero_jumping_knowledge_names_itself():
    with pytest.raises(ValueError, match=r"^HeteroJumpingKnowledge: mode must be"):
        agnn.HeteroJumpingKnowledge(["paper"], "foo")


def test_from_pyg_names_pygs_broken_uppercase_lstm_jumping_knowledge():
    pnn = pytest.importorskip("torch_geometric.nn")
    broken = pnn.JumpingKnowledge("LSTM", channels=4, num_layers=2)  # PyG builds no LSTM
    with pytest.raises(ValueError, match="mode='LSTM'"):
        agnn.from_pyg(broken)
    assert isinstance(agnn.from_pyg(pnn.JumpingKnowledge("lstm", 4, 2)), agnn.JumpingKnowledge)


def test_summary_and_get_num_hops_share_one_message_passing_list():
    import importlib

    from arraygnn.utils import num_hops

    summary_module = importlib.import_module("arraygnn.nn.summary")
    assert summary_module.PYG_MESSAGE_PASSING is num_hops.PYG_MESSAGE_PASSING


def test_dgl_gsddmm_takes_one_dtype_in_either_byte_order():
    from arraygnn.graph import graph
    from arraygnn.graph import ops as gops

    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = x + 1
    want = gops.gsddmm(g, "mul", x, y)
    got = gops.gsddmm(g, "mul", x.astype(">f4"), y)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.dtype("=f4")
    with pytest.raises(TypeError, match="DGL needs one dtype"):
        gops.gsddmm(g, "mul", x.astype(np.float64), y)


def test_small_wide_edge_lists_skip_the_csr_with_the_same_bits():
    from arraygnn import ops
    from arraygnn.testing.cases import powerlaw_edges

    spmm_module = importlib.import_module("arraygnn.ops.spmm")
    rng = np.random.default_rng(3)
    ei = powerlaw_edges(100, 400, seed=1)
    x = rng.standard_normal((100, 16)).astype(np.float32)
    w = rng.standard_normal(400).astype(np.float32)
    assert 400 * 16 <= spmm_module.SMALL_MESSAGES  # the gather + scatter path
    csr = ops.to_csr(ei, 100, 100)
    for reduce in ("sum", "mean", "max", "min"):
        for weight in (None, w):
            via_csr = ops.spmm(csr, x, weight, reduce)  # (weights in edge order)
            got = ops.spmm(ei, x, weight, reduce)
            np.testing.assert_array_equal(got, via_csr)


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: agnn.GATConv(4, 2, heads=2, **kw),
        lambda **kw: agnn.GATv2Conv(4, 2, heads=2, **kw),
        lambda **kw: agnn.TransformerConv(4, 2, heads=2, **kw),
    ],
)
def test_attention_layers_take_pygs_dropout_keyword(make):
    """PyG's ``GATConv(..., dropout=0.6)`` (and DGL's feat_drop / attn_drop on the GATs):
    accepted as keywords, checked, kept; the identity at inference."""
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    plain, dropped = make(rng=0), make(dropout=0.6, rng=0)
    assert dropped.dropout == pytest.approx(0.6)
    np.testing.assert_array_equal(dropped(x, ei), plain(x, ei))
    with pytest.raises(ValueError, match=r"dropout must be a probability in \[0, 1\]"):
        make(dropout=1.5)


def test_gats_take_dgls_feat_and_attn_drop():
    conv = agnn.GATConv(4, 2, heads=2, feat_drop=0.1, attn_drop=0.2)
    assert (conv.feat_drop, conv.attn_drop) == pytest.approx((0.1, 0.2))
    with pytest.raises(TypeError, match="GATv2Conv: attn_drop must be a real number"):
        agnn.GATv2Conv(4, 2, attn_drop="0.2")
