"""Review of the s14 differential-fuzz fixes (06ad614..0d941a6), checked against the
reference libraries (PyG 2.8.1, jax 0.10.2 / jraph 0.0.6 as noted).

- jraph face: ``num_segments=None`` with ``max(ids) == -1`` is ``jax.ops``'s 0 segments
  (an empty result); only ``max(ids) + 1 < 0`` is jax's ``ValueError``.
- ``Data.num_edges`` / ``EdgeStore.num_edges`` follow PyG's whole rule: after its edge keys
  the first array whose key holds ``'edge'``, then the entries of a sparse ``adj`` /
  ``adj_t`` (``ToSparseTensor``'s output).
- ``from_pyg`` of lazy layers: ``ResGatedGraphConv((-1, -1), edge_dim=1)`` (an explicit
  pair) and ``GraphConv(-1, aggr=[...])`` first run on a pair of two widths.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn import Data, HeteroData
from arraygnn.transforms import ToSparseTensor

EI = np.array([[0, 1, 2, 2, 3], [1, 0, 2, 4, 1]], dtype=np.int64)
RNG = np.random.default_rng(0)
XS = RNG.standard_normal((4, 3)).astype(np.float32)
XD = RNG.standard_normal((5, 2)).astype(np.float32)
EA = RNG.standard_normal((5, 1)).astype(np.float32)


# ---------------------------------------------------------------- jraph segment ops
def test_segment_ops_max_id_minus_one_is_zero_segments_as_jax():
    # jax.ops.segment_sum(ones(2), [-1, -3]) -> shape (0,) (num_segments = -1 + 1 = 0);
    # [-2] -> ValueError "num_segments must be non-negative" (jax 0.10.2)
    ids = np.array([-1, -3])
    assert gt.segment_sum(np.ones(2), ids).shape == (0,)
    assert gt.segment_max(np.ones((2, 3)), ids).shape == (0, 3)
    with pytest.raises(ValueError, match="num_segments"):
        gt.segment_sum(np.ones(1), np.array([-2]))


# ---------------------------------------------------------------- num_edges
def _pyg_num_edges(**arrays):
    pyg_data = pytest.importorskip("torch_geometric.data")
    torch = pytest.importorskip("torch")
    return pyg_data.Data(**{k: torch.from_numpy(v) for k, v in arrays.items()}).num_edges


@pytest.mark.parametrize(
    "arrays",
    [
        {"edge_label": np.ones(3)},
        {"edge_label_index": np.zeros((2, 5), np.int64)},
        {"y": np.ones(2), "edge_mask": np.ones(4, bool)},
        {"e_id": np.arange(6), "edge_label": np.ones(3)},
    ],
    ids=["edge_label", "edge_label_index", "edge_mask", "e_id_first"],
)
def test_num_edges_falls_back_to_edge_keys_as_pyg(arrays):
    assert Data(**arrays).num_edges == _pyg_num_edges(**arrays)


def test_num_edges_of_sparse_adj_t_is_its_entries_as_pyg():
    # PyG: ToSparseTensor()(data).num_edges is adj_t's nnz (parallel edges merged): 2 here
    d = ToSparseTensor()(Data(x=np.ones((3, 1)), edge_index=np.array([[0, 0, 1], [1, 1, 2]])))
    assert "edge_index" not in d and d.num_edges == 2
    h = HeteroData()
    h["a"].x = np.ones((3, 1))
    h["a", "to", "a"].edge_index = EI[:, :3] % 3
    h = ToSparseTensor()(h)
    assert h["a", "to", "a"].num_edges == 3 and h.num_edges == 3
    # an edge key still comes first (PyG's order): unmerged edge_attr rows
    d = ToSparseTensor()(
        Data(x=np.ones((3, 1)), edge_index=np.array([[0, 0], [1, 1]]), edge_attr=np.ones((2, 1)))
    )
    assert d.num_edges == 2 and d.adj_t.nnz == 1


# ---------------------------------------------------------------- lazy from_pyg
def _lazy_case(make, args):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    import arraygnn.nn as agnn

    def t(a):
        return tuple(t(v) for v in a) if isinstance(a, tuple) else torch.from_numpy(a)

    torch.manual_seed(0)
    module = make().eval()
    with torch.no_grad():
        module(*t(args))  # sizes the lazy weights
        expected = module(*t(args)).numpy()
    got = agnn.from_pyg(module)(*args)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("declared", [(-1, -1), (-1, 2)])
def test_lazy_res_gated_pair_with_edge_dim_1(declared):
    pyg = pytest.importorskip("torch_geometric.nn")
    _lazy_case(lambda: pyg.ResGatedGraphConv(declared, 4, edge_dim=1), ((XS, XD), EI, EA))


def test_lazy_graph_conv_multi_aggregation_on_a_pair():
    pyg = pytest.importorskip("torch_geometric.nn")
    _lazy_case(lambda: pyg.GraphConv(-1, 4, aggr=["mean", "max"]), ((XS, XD), EI))


@pytest.mark.parametrize("declared", [-1, (-1, -1)])
def test_lazy_graph_conv_multi_aggregation_declared_pair(declared):
    # an explicit (-1, -1): lin_rel took the 'cat' width 2 F_src there too
    pyg = pytest.importorskip("torch_geometric.nn")
    _lazy_case(lambda: pyg.GraphConv(declared, 4, aggr=["mean", "max"]), (XS, EI[:, :4] % 4))
    _lazy_case(lambda: pyg.GraphConv(declared, 4, aggr=["mean", "max"]), ((XS, XD), EI))
