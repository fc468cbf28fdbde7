"""Review of 023cfef / b4e1544 (deg^-1/2 as torch's pow(-0.5)) and e2063eb (MessagePassing
target ids before a user's aggregate), s14: torch's half pow rounds once from float32, so
float16 keeps NumPy's ``**``; the remaining torch-derived ``** -0.5`` sites give its bits."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn._namespace import torch_rsqrt
from arraygnn.nn import MessagePassing

torch = pytest.importorskip("torch")


def _bits(a):
    return np.asarray(a).view(np.uint8)


def test_torch_rsqrt_is_torch_pow_for_every_float16_and_a_float32_float64_sample():
    h = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)  # every finite x >= 0
    want = torch.from_numpy(h).pow(-0.5).numpy()
    np.testing.assert_array_equal(_bits(torch_rsqrt(h)), _bits(want))
    for dt in (np.float32, np.float64):
        d = np.concatenate([np.arange(0, 2000, dtype=dt), [-1, np.inf, 1e-30, 3e5]]).astype(dt)
        got = torch_rsqrt(d)
        assert got.dtype == dt
        np.testing.assert_array_equal(got, torch.from_numpy(d).pow(-0.5).numpy())
        assert torch_rsqrt(dt(7)) == torch.tensor(7, dtype=getattr(torch, dt.__name__)) ** -0.5
    assert torch_rsqrt(np.array([4], np.int8)).dtype == np.float64


EDGES = np.array([[0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 6, 6], [1, 2, 2, 0, 3, 4, 5, 6, 6, 6, 0, 1]])


def test_get_laplacian_sym_float16_is_pyg_bits():
    pyg_utils = pytest.importorskip("torch_geometric.utils")
    from arraygnn.utils import get_laplacian

    w = (np.arange(1, 13) * 0.71).astype(np.float16)
    ei, val = get_laplacian(EDGES, w, normalization="sym", num_nodes=7)
    tei, tval = pyg_utils.get_laplacian(
        torch.from_numpy(EDGES), torch.from_numpy(w), normalization="sym", num_nodes=7
    )
    np.testing.assert_array_equal(ei, tei.numpy())
    assert val.dtype == np.float16
    np.testing.assert_array_equal(_bits(val), _bits(tval.numpy()))


def test_graph_size_norm_float16_and_unbatched_float32_are_pyg_bits():
    pyg_norm = pytest.importorskip("torch_geometric.nn.norm")
    from arraygnn.nn import GraphSizeNorm

    x16 = (np.arange(26) * 0.11 + 0.3).astype(np.float16).reshape(13, 2)
    batch = np.array([0] * 6 + [1] * 7)
    want = pyg_norm.GraphSizeNorm()(torch.from_numpy(x16), torch.from_numpy(batch)).numpy()
    np.testing.assert_array_equal(_bits(GraphSizeNorm()(x16, batch)), _bits(want))
    x32 = np.linspace(0.5, 3, 7 * 3, dtype=np.float32).reshape(7, 3)  # 7 rows: ** is an ulp off
    want = pyg_norm.GraphSizeNorm()(torch.from_numpy(x32)).numpy()
    np.testing.assert_array_equal(GraphSizeNorm()(x32), want)


def test_normalize_edge_index_and_sign_are_pyg_bits():
    pyg_utils = pytest.importorskip("torch_geometric.utils")
    from arraygnn.utils import normalize_edge_index

    ei = np.concatenate([EDGES, np.array([[0, 0, 0, 0, 1, 1, 1], [3, 4, 5, 6, 3, 4, 5]])], 1)
    _, got = normalize_edge_index(ei, num_nodes=7)
    _, want = pyg_utils.normalize_edge_index(torch.from_numpy(ei), num_nodes=7)
    np.testing.assert_array_equal(got, want.numpy())


class OwnScatter(MessagePassing):
    def __init__(self, flow="source_to_target"):
        super().__init__(aggr=None, flow=flow)

    def forward(self, x, edge_index, size=None):
        return self.propagate(edge_index, x=x, size=size)

    def aggregate(self, inputs, index, dim_size):
        out = np.zeros((dim_size, inputs.shape[1]), inputs.dtype)
        np.add.at(out, index, inputs)
        return out


def test_user_aggregate_target_ids_checked_on_every_flow_and_size():
    x = np.arange(6.0).reshape(3, 2)
    with pytest.raises(IndexError):  # target_to_source: the targets are edge_index[0]
        OwnScatter("target_to_source")(x, np.array([[0, -1], [1, 2]]))
    with pytest.raises(IndexError):  # a target past size[1]
        OwnScatter()((x, x[:2]), np.array([[0, 1], [1, 2]]), size=(3, 2))
    out = OwnScatter("target_to_source")(x, np.array([[0, 2], [1, 2]]))
    np.testing.assert_array_equal(out, [[2, 3], [0, 0], [4, 5]])
    out = OwnScatter()((x, np.zeros((4, 2))), np.array([[0, 1], [3, 3]]), size=(3, 4))
    np.testing.assert_array_equal(out, [[0, 0], [0, 0], [0, 0], [2, 4]])


def test_gcn_norm_float16_is_pyg_bits():
    gcn_conv = pytest.importorskip("torch_geometric.nn.conv.gcn_conv")
    from arraygnn.nn.graph_conv import gcn_norm

    w = (np.arange(1, 13) * 0.71).astype(np.float16)
    ei, got = gcn_norm(EDGES, w, num_nodes=7)
    tei, want = gcn_conv.gcn_norm(torch.from_numpy(EDGES), torch.from_numpy(w), num_nodes=7)
    np.testing.assert_array_equal(ei, tei.numpy())
    assert got.dtype == np.float16
    np.testing.assert_array_equal(_bits(got), _bits(want.numpy()))
