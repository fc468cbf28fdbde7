"""Parity sweep of the PyG loader options against PyG 2.8.1's sources.

PyG's own ``NeighborSampler`` needs pyg-lib / torch-sparse (not installed), so its
deterministic outputs are re-derived here from its source: ``sort_csc`` (in-edges grouped
by target, edge-id order; node time: ``lexsort([time[row], col])``), pyg-lib's hop loop
(each hop's edges grouped by frontier node, a node numbered where first seen),
``get_input_nodes`` (a boolean mask's node ids are also the ``input_id``) and
``edge_sample`` (non-disjoint seeds ``unique``-d, sorted; labels, triplet indices,
disjoint ``arange`` label indices, ``batch % num_pos``, times repeated over negatives).
Random parts are checked by shapes and invariants.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader

N = 7
EI = np.array(
    [[1, 3, 0, 2, 5, 6, 4, 2, 6, 1, 0, 5], [0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 6]], dtype=np.int64
)[:, [5, 0, 9, 3, 11, 2, 7, 4, 10, 1, 8, 6]]  # shuffled: edge ids are not CSC order


def _data():
    return Data(x=np.arange(N, dtype=np.float64)[:, None], edge_index=EI.copy())


def _pyg_hops(seeds, fanouts, ei=EI, n=N):
    """PyG / pyg-lib's directional sampling with every fan-out -1 or 0."""
    perm = np.argsort(ei[1], kind="stable")  # sort_csc: index_sort(col)
    local = {int(s): i for i, s in enumerate(seeds)}
    n_id, rows, cols, e_id = [int(s) for s in seeds], [], [], []
    nsn, nse, frontier = [len(seeds)], [], list(seeds)
    for k in fanouts:
        fresh, count = [], 0
        for v in frontier if k != 0 else []:
            for e in perm[ei[1, perm] == v]:
                u = int(ei[0, e])
                if u not in local:
                    local[u] = len(n_id)
                    n_id.append(u)
                    fresh.append(u)
                rows.append(local[u])
                cols.append(local[int(v)])
                e_id.append(int(e))
                count += 1
        nsn.append(len(fresh))
        nse.append(count)
        frontier = fresh
    assert n == N
    return n_id, [rows, cols], e_id, nsn, nse


@pytest.mark.parametrize(
    "input_nodes, seeds, input_id",
    [
        (None, [0, 1], [0, 1]),
        (np.array([0, 1, 0, 1, 0, 1, 0], dtype=bool), [1, 3], [1, 3]),  # PyG: mask ids
        (np.array([4, 2, 6]), [4, 2], [0, 1]),
    ],
)
@pytest.mark.parametrize("fanouts", [[-1, -1], [-1, 0]])
def test_neighbor_loader_full_fanout_matches_pyg(input_nodes, seeds, input_id, fanouts):
    loader = NeighborLoader(_data(), fanouts, input_nodes=input_nodes, batch_size=2)
    b = next(iter(loader))
    n_id, ei, e_id, nsn, nse = _pyg_hops(seeds, fanouts)
    assert b.n_id.tolist() == n_id
    assert b.edge_index.tolist() == ei
    assert b.e_id.tolist() == e_id
    assert b.input_id.tolist() == input_id
    assert b.batch_size == 2
    assert list(b.num_sampled_nodes) == nsn and list(b.num_sampled_edges) == nse
    assert b.x[:, 0].tolist() == [float(v) for v in n_id]


def test_neighbor_loader_disjoint_full_fanout():
    b = next(iter(NeighborLoader(_data(), [-1], input_nodes=[0, 1], batch_size=2,
                                 disjoint=True)))  # fmt: skip
    # seeds first, then each seed's in-neighbours (CSC order), one tree per seed
    assert b.n_id.tolist() == [0, 1, 1, 3, 2, 0]
    assert b.batch.tolist() == [0, 1, 0, 0, 1, 1]
    assert b.edge_index.tolist() == [[2, 3, 4, 5], [0, 0, 1, 1]]
    assert list(b.num_sampled_nodes) == [2, 4] and list(b.num_sampled_edges) == [4]


def test_neighbor_loader_temporal_last_picks_latest_eligible():
    time = np.array([5, 1, 9, 3, 2, 8, 4])
    data = Data(x=np.zeros((N, 1)), edge_index=EI.copy(), time=time)
    loader = NeighborLoader(data, [1], batch_size=N, time_attr="time", node_attrs=["x", "time"],
                            temporal_strategy="last")  # fmt: skip
    b = next(iter(loader))
    for s in range(N):  # PyG: lexsort([time[row], col]); 'last' takes the latest eligible
        src = EI[0, EI[1] == s]
        ok = src[time[src] <= time[s]]
        got = b.n_id[b.edge_index[0, b.edge_index[1] == s]].tolist()
        assert got == ([] if ok.size == 0 else [int(ok[np.argmax(time[ok])])])
    assert (b.time[:N] == time).all() and b.batch[:N].tolist() == list(range(N))


@pytest.mark.parametrize(
    "kwargs",
    [dict(is_sorted=True), dict(weight_attr=None), dict(transform_sampler_output=None),
     dict(neighbor_sampler=None), dict(filter_per_worker=True)],
)  # fmt: skip
@pytest.mark.parametrize("cls", [NeighborLoader, LinkNeighborLoader])
def test_pyg_keywords_accepted(cls, kwargs):
    b = next(iter(cls(_data(), [-1], batch_size=2, **kwargs)))
    assert b.n_id.shape[0] >= 2


@pytest.mark.parametrize("cls", [NeighborLoader, LinkNeighborLoader])
@pytest.mark.parametrize("name", ["transform_sampler_output", "neighbor_sampler"])
def test_pyg_keywords_not_provided_are_clear(cls, name):
    data = _data()
    data.w = np.ones(EI.shape[1])
    value = {"weight_attr": "w", "transform_sampler_output": len, "neighbor_sampler": object()}
    with pytest.raises(ValueError, match=name):
        cls(data, [-1], batch_size=2, edge_attrs=["w"], **{name: value[name]})


def _hetero():
    h = HeteroData()
    h["a"].x = np.arange(3.0)[:, None]
    h["b"].x = np.arange(4.0)[:, None]
    h["a", "to", "b"].edge_index = np.array([[0, 1, 2, 2], [1, 2, 3, 0]])
    h["b", "rev", "a"].edge_index = np.array([[1, 2, 3, 0], [0, 1, 2, 2]])
    return h


@pytest.mark.parametrize(
    "input_nodes, seeds, input_id",
    [
        ("b", [0, 1], [0, 1]),
        (("b", None), [0, 1], [0, 1]),
        (("b", np.array([False, True, False, True])), [1, 3], [1, 3]),
        (("b", [3, 0]), [3, 0], [0, 1]),
    ],
)
def test_hetero_neighbor_loader_input_forms(input_nodes, seeds, input_id):
    loader = NeighborLoader(_hetero(), {("a", "to", "b"): [-1], ("b", "rev", "a"): [0]},
                            input_nodes=input_nodes, batch_size=2)  # fmt: skip
    b = next(iter(loader))
    assert b["b"].n_id.tolist() == seeds and b["b"].input_id.tolist() == input_id
    src = {0: 2, 1: 0, 2: 1, 3: 2}  # b's in-neighbours of type a (one each)
    assert b["a"].n_id.tolist() == list(dict.fromkeys(src[s] for s in seeds if s in src))
    assert b["b", "rev", "a"].edge_index.shape == (2, 0)


@pytest.mark.parametrize("neg", [None, "binary", "triplet"])
def test_link_loader_seeds_sorted_unique_and_labels(neg):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import NegativeSampling

    torch.manual_seed(0)
    pairs = np.array([[3, 0, 3], [1, 4, 5]])
    label = np.array([0, 1, 0]) if neg != "triplet" else None
    ns = None if neg is None else NegativeSampling(neg, 2 if neg == "triplet" else 1.5)
    loader = LinkNeighborLoader(_data(), [0], edge_label_index=pairs, edge_label=label,
                                neg_sampling=ns, batch_size=3, seed=0)  # fmt: skip
    b = next(iter(loader))
    n_id = b.n_id.tolist()
    assert n_id == sorted(n_id)  # fan-out 0: the unique (sorted) seeds only
    if neg is None:
        assert n_id == [0, 1, 3, 4, 5]
        assert b.edge_label_index.tolist() == [[2, 0, 2], [1, 3, 4]]
        assert b.edge_label.tolist() == [0, 1, 0]  # no shift without negatives
    elif neg == "binary":  # ceil(3 * 1.5) = 5 negatives; labels + 1, negatives 0
        assert b.edge_label_index.shape == (2, 8)
        assert b.n_id[b.edge_label_index[:, :3]].tolist() == pairs.tolist()
        assert b.edge_label.tolist() == [1, 2, 1, 0, 0, 0, 0, 0]
    else:
        assert b.n_id[b.src_index].tolist() == [3, 0, 3]
        assert b.n_id[b.dst_pos_index].tolist() == [1, 4, 5]
        assert b.dst_neg_index.shape == (3, 2)


def test_link_loader_triplet_amount_one_is_squeezed():
    b = next(iter(LinkNeighborLoader(_data(), [0], neg_sampling=("triplet", 1), batch_size=4,
                                     seed=0)))  # fmt: skip
    assert b.dst_neg_index.shape == (4,)  # PyG: .view(num_pos, -1).squeeze(-1)


@pytest.mark.parametrize("neg", [None, "binary", "triplet"])
def test_link_loader_disjoint_temporal_indices(neg):
    time = np.zeros(N, dtype=np.int64)
    data = Data(x=np.zeros((N, 1)), edge_index=EI.copy(), time=time)
    pairs = np.array([[3, 0], [1, 4]])
    label_time = np.array([7, 9])
    loader = LinkNeighborLoader(data, [-1], edge_label_index=pairs, edge_label_time=label_time,
                                time_attr="time", node_attrs=["x", "time"], batch_size=2,
                                neg_sampling=None if neg is None else (neg, 2), seed=0)  # fmt: skip
    b = next(iter(loader))
    p = 2
    num_neg = 0 if neg is None else 4
    if neg == "triplet":
        assert b.src_index.tolist() == [0, 1] and b.dst_pos_index.tolist() == [2, 3]
        assert b.dst_neg_index.tolist() == [[4, 6], [5, 7]]  # 2P + k * P + i
        seeds = 2 * p + num_neg
    else:
        total = p + num_neg
        assert b.edge_label_index.tolist() == np.arange(2 * total).reshape(2, -1).tolist()
        assert b.edge_label_time.tolist() == np.resize(label_time, total).tolist()
        seeds = 2 * total
    src_end = p + (num_neg if neg == "binary" else 0)  # sources, then destinations
    assert b.n_id[:2].tolist() == [3, 0] and b.n_id[src_end : src_end + 2].tolist() == [1, 4]
    assert b.batch[:seeds].tolist() == (np.arange(seeds) % p).tolist()  # batch % num_pos


def test_hetero_link_loader_two_node_types_unique_per_type():
    pairs = np.array([[2, 0, 2], [3, 1, 0]])
    loader = LinkNeighborLoader(_hetero(), [0], edge_label_index=(("a", "to", "b"), pairs),
                                batch_size=3)  # fmt: skip
    b = next(iter(loader))
    assert b["a"].n_id.tolist() == [0, 2] and b["b"].n_id.tolist() == [0, 1, 3]
    # PyG: stack([inverse_src, inverse_dst]) over the per-type unique seeds
    assert b["a", "to", "b"].edge_label_index.tolist() == [[1, 0, 1], [2, 1, 0]]
