"""PointNetConv against PyG's (same weights through ``from_pyg``; float32 within 1e-5
relative, float64 within 1e-12) on multigraphs with self-loops, repeated edges and targets
without in-edges, bipartite inputs, ``x=None``, with and without ``global_nn``, each
aggregation, int32 / int64 ids; every path (per-node first Linear, pure affine messages,
plain per-edge messages) against the others; errors."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn import ops

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    return torch.from_numpy(np.ascontiguousarray(a))


def _run(module, x, pos, ei):
    with torch.no_grad():
        return module(_t(x), _t(pos), torch.from_numpy(ei.astype(np.int64))).numpy()


def _local(kind, fin, torch_dtype):
    torch.manual_seed(1)
    if kind == "mlp":  # PyG MLP with its (default) batch norm, eval mode
        net = pyg_nn.MLP([fin, 16, 8])
        for norm in net.norms:
            norm.module.running_mean.normal_()
            norm.module.running_var.uniform_(0.5, 2.0)
    elif kind == "sequential":
        net = torch.nn.Sequential(
            torch.nn.Linear(fin, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8), torch.nn.Tanh()
        )
    elif kind == "linear":
        net = torch.nn.Linear(fin, 8)
    elif kind == "relu_first":  # does not start with a Linear: the per-edge path
        net = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(fin, 8))
    else:
        return None
    return net.eval().to(torch_dtype)


def _global(with_global, fout, torch_dtype):
    if not with_global:
        return None
    torch.manual_seed(2)
    net = torch.nn.Sequential(torch.nn.Linear(fout, 6), torch.nn.ReLU(), torch.nn.Linear(6, 5))
    return net.to(torch_dtype)


def _case(rng, kind, dtype, bipartite, with_x, index_dtype):
    n_src, n_dst = (24, 15) if bipartite else (20, 20)
    ei = random_graph(rng, n_src, n_dst, num_edges=70, index_dtype=index_dtype, isolated=3)
    pos_src = rng.standard_normal((n_src, 3)).astype(dtype)
    pos_dst = rng.standard_normal((n_dst, 3)).astype(dtype)
    x_src = rng.standard_normal((n_src, 4)).astype(dtype) if with_x else None
    if bipartite:
        x_dst = rng.standard_normal((n_dst, 4)).astype(dtype) if with_x else None
        return ((x_src, x_dst) if with_x else None), (pos_src, pos_dst), ei
    return x_src, pos_src, ei


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["mlp", "sequential", "linear", "relu_first", "none"])
@pytest.mark.parametrize("bipartite", [False, True])
@pytest.mark.parametrize("with_x", [True, False])
@pytest.mark.parametrize("loops", [True, False])
def test_point_net_conv_matches_pyg(dtype, kind, bipartite, with_x, loops):
    rng = np.random.default_rng(0)
    torch_dtype = getattr(torch, np.dtype(dtype).name)
    fin = (4 if with_x else 0) + 3
    local = _local(kind, fin, torch_dtype)
    fout = fin if local is None else 8
    for with_global in (False, True):
        index_dtype = np.int32 if with_global else np.int64
        x, pos, ei = _case(rng, kind, dtype, bipartite, with_x, index_dtype)
        module = pyg_nn.PointNetConv(local, _global(with_global, fout, torch_dtype), loops)
        conv = agnn.from_pyg(module)
        assert isinstance(conv, agnn.PointNetConv) and conv.add_self_loops is loops
        ref = _run(module, x, pos, ei)
        out = conv(x, pos, ei)
        assert out.dtype == dtype
        err = rel_err(out, ref)
        assert err <= TOL[dtype] * 10, err


@pytest.mark.parametrize("aggr", ["add", "mean", "min", "max"])
@pytest.mark.parametrize("kind", ["sequential", "linear", "none"])
def test_point_net_conv_aggregations_match_pyg(aggr, kind):
    rng = np.random.default_rng(3)
    x, pos, ei = _case(rng, kind, np.float64, False, True, np.int64)
    local = _local(kind, 7, torch.float64)
    module = pyg_nn.PointNetConv(local, None, add_self_loops=False, aggr=aggr)
    conv = agnn.from_pyg(module)
    assert rel_err(conv(x, pos, ei), _run(module, x, pos, ei)) <= 1e-12


def test_point_net_conv_paths_agree():
    """The per-node first Linear and the pure affine aggregate give the per-edge numbers;
    a CSR stands in for edge_index (same bits)."""
    rng = np.random.default_rng(5)
    x, pos, ei = _case(rng, "linear", np.float64, False, True, np.int64)
    lin = agnn.Linear(7, 6, dtype=np.float64, rng=0)
    mlp = agnn.MLP([7, 9, 5], dtype=np.float64, rng=1)
    for aggr in ("max", "min", "sum", "mean"):
        for nn in (lin, mlp):
            fused = agnn.PointNetConv(nn, add_self_loops=False, aggr=aggr)
            plain = agnn.PointNetConv(agnn.Sequential(lambda z: z, nn), None, False, aggr)
            a, b = fused(x, pos, ei), plain(x, pos, ei)
            assert rel_err(a, b) <= 1e-13
            csr = ops.to_csr(ei, 20, 20)
            np.testing.assert_array_equal(fused(x, pos, csr), a)
    # no local_nn: the messages themselves, max of [x_j, pos_j - pos_i]
    out = agnn.PointNetConv(None, add_self_loops=False)(x, pos, ei)
    ref = np.zeros((20, 7))
    for i in range(20):
        into = ei[0][ei[1] == i]
        if into.size:
            ref[i] = np.concatenate([x[into], pos[into] - pos[i]], 1).max(0)
    np.testing.assert_array_equal(out, ref)


def test_point_net_conv_state_dict_and_inputs_untouched():
    rng = np.random.default_rng(7)
    x, pos, ei = _case(rng, "mlp", np.float32, True, True, np.int64)
    module = pyg_nn.PointNetConv(_local("mlp", 7, torch.float32), _global(True, 8, torch.float32))
    conv = agnn.from_pyg(module)
    names = set(conv.state_dict())
    assert names == set(module.state_dict()) - {
        k for k in module.state_dict() if k.endswith("num_batches_tracked")
    }
    fresh = agnn.PointNetConv(
        agnn.MLP([7, 16, 8], norm="batch_norm"),
        agnn.Sequential(agnn.Linear(8, 6), "relu", agnn.Linear(6, 5)),
    ).load_state_dict({k: v.numpy() for k, v in module.state_dict().items()})
    copies = [a.copy() for a in (*x, *pos, ei)]
    np.testing.assert_array_equal(fresh(x, pos, ei), conv(x, pos, ei))
    for before, after in zip(copies, (*x, *pos, ei)):
        np.testing.assert_array_equal(before, after)
    # an empty graph with self-loops off: every target aggregates 0, then global_nn
    empty = np.zeros((2, 0), np.int64)
    out = agnn.PointNetConv(None, add_self_loops=False)(x, pos, empty)
    np.testing.assert_array_equal(out, np.zeros((15, 7), np.float32))


def test_point_net_conv_errors():
    x = np.ones((4, 2), np.float32)
    pos = np.zeros((4, 3), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    conv = agnn.PointNetConv(agnn.Linear(5, 3, rng=0))
    with pytest.raises(TypeError, match="local_nn must be an arraygnn.nn Module"):
        agnn.PointNetConv(lambda z: z)
    with pytest.raises(ValueError, match="aggr must be one of"):
        agnn.PointNetConv(aggr="std")
    with pytest.raises(TypeError, match="add_self_loops must be True or False"):
        agnn.PointNetConv(add_self_loops="yes")
    with pytest.raises(TypeError, match=r"pos must be an array, got None"):
        conv(x, None, ei)
    with pytest.raises(TypeError, match="pos must hold floating-point values"):
        conv(x, pos.astype(np.int64), ei)
    with pytest.raises(ValueError, match=r"x has 3 rows but pos has 4"):
        conv(x[:3], pos, ei)
    with pytest.raises(ValueError, match="pos_src and pos_dst must have one width"):
        conv((x, None), (pos, pos[:, :2]), ei)
    with pytest.raises(ValueError, match=r"pos must be an array or a pair"):
        conv(x, (pos, pos, pos), ei)
    with pytest.raises(ValueError, match=r"edge_index must have shape \[2, E\]"):
        conv(x, pos, ei[0])
    with pytest.raises(TypeError, match="edge_index must hold integers"):
        conv(x, pos, ei.astype(np.float32))
    with pytest.raises(ValueError, match=r"PointNetConv: edge_index\[0\] \(sources\)"):
        conv(x, pos, np.array([[0, 9], [1, 2]]))
    with pytest.raises(ValueError, match="a CSR stands in for edge_index only"):
        conv(x, pos, ops.to_csr(ei, 4, 4))
    with pytest.raises(ValueError, match="PointNetConv: local_nn takes 5 input features"):
        conv(np.ones((4, 3), np.float32), pos, ei)
    with pytest.raises(TypeError, match=r"x\[0\] \(x_src\) must be a NumPy or CuPy array"):
        conv(([1.0], None), (pos, pos), ei)


@pytest.mark.parametrize("aggr", ["max", "mean"])
def test_point_net_conv_pieces_of_rows_agree(monkeypatch, aggr):
    """The per-edge path over pieces of CSR rows (a tiny EDGE_CHUNK_BYTES) equals one
    piece, targets without in-edges included (to BLAS rounding: a product's bits may
    depend on its row count)."""
    import arraygnn.nn._row_chunks as chunks

    rng = np.random.default_rng(11)
    x, pos, ei = _case(rng, "mlp", np.float32, True, True, np.int64)
    conv = agnn.PointNetConv(agnn.MLP([7, 9, 5], rng=0), agnn.Linear(5, 2, rng=1), aggr=aggr)
    whole = conv(x, pos, ei)
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)  # torch is imported here
    for chunk in (1, 40, 200):
        monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", chunk)
        assert rel_err(conv(x, pos, ei), whole) <= 1e-6
