"""PyG's ``LinkNeighborLoader`` on a ``HeteroData``.

The label edges of one edge type come back relabelled to the batch's per-type ids (and map
back to the original pairs through ``n_id``), the negatives are true non-edges of that
edge type, and with every neighbour (``-1``) a 2-layer ``HeteroConv`` of ``SAGEConv`` gives
the label endpoints their full-graph rows; for ``src != dst`` and ``src == dst`` types.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.hetero_link_neighbor_loader import HeteroLinkNeighborLoader
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.nn import HeteroConv, SAGEConv

BUYS = ("user", "buys", "item")
REV = ("item", "rev_buys", "user")
LIKE = ("item", "like", "item")
EDGE_TYPES = [BUYS, REV, LIKE]
SIZES = {"user": 25, "item": 30}
WIDTH = {"user": 3, "item": 4}


def _graph(index_dtype=np.int64, seed=0):
    """Users and items; items 28 and 29 have no in-edges; ``like`` has a self-loop and a
    multi-edge; ``buys`` a multi-edge."""
    rng = np.random.default_rng(seed)
    data = HeteroData()
    for t, n in SIZES.items():
        data[t].x = rng.standard_normal((n, WIDTH[t])).astype(np.float32)
    ends = {BUYS: (25, 28, 80), REV: (28, 25, 80), LIKE: (28, 28, 90)}
    for et, (n_src, n_dst, e) in ends.items():
        ei = np.stack([rng.integers(0, n_src, e), rng.integers(0, n_dst, e)])
        if et == LIKE:
            ei[:, :3] = [[3, 4, 4], [3, 5, 5]]
        if et == BUYS:
            ei[:, :2] = [[2, 2], [9, 9]]
        data[et].edge_index = ei.astype(index_dtype)
    data[LIKE].edge_attr = rng.standard_normal((90, 2)).astype(np.float32)
    return data


def _model(seed=0):
    convs, width = [], dict(WIDTH)
    for layer in range(2):
        out = 5 if layer == 1 else 6
        convs.append(
            HeteroConv(
                {
                    et: SAGEConv((width[et[0]], width[et[2]]), out, rng=seed + 10 * layer + i)
                    for i, et in enumerate(EDGE_TYPES)
                },
                aggr="mean",
            )
        )
        width = dict.fromkeys(width, out)

    def run(x_dict, edge_index_dict):
        h = dict(x_dict)
        for i, conv in enumerate(convs):
            h = conv(h, edge_index_dict)
            if i == 0:
                h = {t: np.maximum(v, 0) for t, v in h.items()}
        return h

    return run


def _pairs(data, et):
    return set(map(tuple, data[et].edge_index.T.tolist()))


def _check_seeds(batch, et, src_global, dst_global):
    """Each endpoint type's seeds: sorted, distinct, first in its n_id."""
    src_t, _, dst_t = et
    if src_t == dst_t:
        expected = {src_t: np.unique(np.concatenate([src_global, dst_global]))}
    else:
        expected = {src_t: np.unique(src_global), dst_t: np.unique(dst_global)}
    for t, seeds in expected.items():
        k = len(seeds)
        assert batch[t].num_sampled_nodes[0] == k
        assert batch[t].n_id[:k].tolist() == seeds.tolist()
    for t in batch.node_types:
        if t not in expected:
            assert batch[t].num_sampled_nodes[0] == 0


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("et", [BUYS, LIKE])
def test_full_neighbourhoods_give_full_graph_outputs(index_dtype, et):
    data = _graph(index_dtype)
    model = _model()
    full = model(data.x_dict, data.edge_index_dict)
    src_t, _, dst_t = et
    rng = np.random.default_rng(1)
    rows = [rng.integers(0, SIZES[src_t], 40), rng.integers(0, SIZES[dst_t], 40)]
    label = np.stack(rows).astype(index_dtype)
    label[:, 0] = [SIZES[src_t] - 1, 29]  # isolated endpoints
    loader = LinkNeighborLoader(
        data,
        [-1, -1],
        edge_label_index=(et, label),
        neg_sampling_ratio=1.5,
        batch_size=9,
        shuffle=True,
        seed=3,
    )
    assert isinstance(loader, HeteroLinkNeighborLoader) and isinstance(loader, LinkNeighborLoader)
    assert len(loader) == 5
    edges, labels = _pairs(data, et), set(map(tuple, label.T.tolist()))
    seen = []
    for batch in loader:
        store = batch[et]
        assert batch.metadata() == data.metadata()
        input_id = store.input_id
        seen.extend(input_id.tolist())
        num_pos = len(input_id)
        num_neg = int(np.ceil(num_pos * 1.5))
        eli = store.edge_label_index
        assert eli.dtype == np.int64 and eli.shape == (2, num_pos + num_neg)
        src_global = batch[src_t].n_id[eli[0]]
        dst_global = batch[dst_t].n_id[eli[1]]
        np.testing.assert_array_equal(src_global[:num_pos], label[0, input_id])
        np.testing.assert_array_equal(dst_global[:num_pos], label[1, input_id])
        for u, v in zip(src_global[num_pos:].tolist(), dst_global[num_pos:].tolist()):
            assert (u, v) not in edges and (u, v) not in labels
            assert src_t != dst_t or u != v
        np.testing.assert_array_equal(store.edge_label, [1.0] * num_pos + [0.0] * num_neg)
        assert store.edge_label.dtype == np.float32
        _check_seeds(batch, et, src_global, dst_global)
        # sampled edges are real edges; features sliced
        for other in EDGE_TYPES:
            s, _, d = other
            ei, e_id = data[other].edge_index, batch[other].e_id
            np.testing.assert_array_equal(batch[s].n_id[batch[other].edge_index[0]], ei[0, e_id])
            np.testing.assert_array_equal(batch[d].n_id[batch[other].edge_index[1]], ei[1, e_id])
        np.testing.assert_array_equal(batch[LIKE].edge_attr, data[LIKE].edge_attr[batch[LIKE].e_id])
        out = model(batch.x_dict, batch.edge_index_dict)
        np.testing.assert_allclose(
            out[src_t][eli[0]], full[src_t][src_global], rtol=1e-5, atol=1e-5
        )
        np.testing.assert_allclose(
            out[dst_t][eli[1]], full[dst_t][dst_global], rtol=1e-5, atol=1e-5
        )
    assert sorted(seen) == list(range(40))


@pytest.mark.parametrize("et", [BUYS, LIKE])
@pytest.mark.parametrize("amount", [1, 3])
def test_triplet_shapes_and_true_negatives(et, amount):
    data = _graph()
    src_t, _, dst_t = et
    loader = LinkNeighborLoader(
        data,
        [2, 2],
        edge_label_index=et,
        neg_sampling=dict(mode="triplet", amount=amount),
        batch_size=16,
        seed=0,
    )
    edges = _pairs(data, et)
    ei = data[et].edge_index
    for batch in loader:
        num_pos = len(batch[et].input_id)
        src_index = batch[src_t].src_index
        pos, neg = batch[dst_t].dst_pos_index, batch[dst_t].dst_neg_index
        assert src_index.shape == pos.shape == (num_pos,)
        assert neg.shape == ((num_pos,) if amount == 1 else (num_pos, amount))
        assert "edge_label_index" not in batch[et] and "edge_label" not in batch[et]
        src = batch[src_t].n_id[src_index]
        np.testing.assert_array_equal(src, ei[0, batch[et].input_id])
        np.testing.assert_array_equal(batch[dst_t].n_id[pos], ei[1, batch[et].input_id])
        negs = batch[dst_t].n_id[neg].reshape(num_pos, -1)
        for u, row in zip(src.tolist(), negs.tolist()):
            for v in row:
                assert (u, v) not in edges and (src_t != dst_t or u != v)
        neg_global = negs.reshape(-1)
        _check_seeds(batch, et, src, np.concatenate([ei[1, batch[et].input_id], neg_global]))


def test_labels_edge_type_forms_and_no_negatives():
    data = _graph()
    n = data[BUYS].edge_index.shape[1]
    y = np.arange(n) % 3  # min 0: PyG adds 1 when there are negatives
    loader = LinkNeighborLoader(
        data, [1], edge_label_index=("buys", None), edge_label=y, neg_sampling="binary",
        batch_size=10,
    )  # fmt: skip
    batch = next(iter(loader))
    np.testing.assert_array_equal(batch[BUYS].edge_label, list(y[:10] + 1) + [0] * 10)
    assert loader.edge_label is not y and y.min() == 0  # the input is not modified
    plain = LinkNeighborLoader(
        data, [1], edge_label_index=("user", "item"), edge_label=y, batch_size=10
    )
    b = next(iter(plain))
    np.testing.assert_array_equal(b[BUYS].edge_label, y[:10])
    assert b[BUYS].edge_label_index.shape == (2, 10)
    for form in ["buys", BUYS, ("user", "item"), (BUYS, None), ("buys", None)]:
        ld = LinkNeighborLoader(data, [1], edge_label_index=form, batch_size=100)
        assert ld.edge_type == BUYS and ld.edge_label_index.shape == (2, n)
        assert "edge_label" not in next(iter(ld))[BUYS]
    # a store's own edge_label_index / edge_label are left out of the batches
    data[BUYS].edge_label = np.ones(n)
    b = next(iter(LinkNeighborLoader(data, [1], edge_label_index="buys", batch_size=4)))
    assert "edge_label" not in b[BUYS]


def test_reproducible_from_seed():
    data = _graph()

    def epoch(seed):
        loader = LinkNeighborLoader(
            data, [2, 1], edge_label_index=BUYS, neg_sampling_ratio=2, batch_size=16,
            shuffle=True, seed=seed,
        )  # fmt: skip
        out = []
        for batch in loader:
            for t in data.node_types:
                out.append(batch[t].n_id.tolist())
            out.append(batch[BUYS].edge_label_index.tolist())
            out.append(batch[BUYS].input_id.tolist())
        return out

    assert epoch(7) == epoch(7)
    assert epoch(7) != epoch(8)


def test_errors():
    data = _graph()
    ei = np.array([[0], [0]])
    with pytest.raises(ValueError, match="LinkNeighborLoader: edge_label_index names 'nope'"):
        LinkNeighborLoader(data, [1], edge_label_index=("nope", ei))
    with pytest.raises(ValueError, match=r"names \('item', 'x', 'user'\), which is not an edge"):
        LinkNeighborLoader(data, [1], edge_label_index=(("item", "x", "user"), None))
    with pytest.raises(ValueError, match="needs edge_label_index=\\(edge_type, index\\)"):
        LinkNeighborLoader(data, [1])
    with pytest.raises(
        ValueError, match=r"row 0 \(source type 'user'\) has node 25, outside \[0, 25\)"
    ):
        LinkNeighborLoader(data, [1], edge_label_index=(BUYS, np.array([[25], [0]])))
    with pytest.raises(
        ValueError, match=r"row 1 \(destination type 'item'\) has node -1, outside \[0, 30\)"
    ):
        LinkNeighborLoader(data, [1], edge_label_index=(BUYS, np.array([[0], [-1]])))
    with pytest.raises(ValueError, match="give neg_sampling or neg_sampling_ratio, not both"):
        LinkNeighborLoader(
            data, [1], edge_label_index=BUYS, neg_sampling="binary", neg_sampling_ratio=1.0
        )
    with pytest.raises(TypeError, match="edge_label_index must be an integer array"):
        LinkNeighborLoader(data, [1], edge_label_index=(BUYS, np.zeros((2, 1))))
    with pytest.raises(ValueError, match=r"edge_label_index must have shape \[2, L\]"):
        LinkNeighborLoader(data, [1], edge_label_index=(BUYS, np.zeros((3, 1), np.int64)))
    with pytest.raises(TypeError, match="must be \\(edge_type, index\\)"):
        LinkNeighborLoader(data, [1], edge_label_index=np.zeros((2, 1), np.int64))
    with pytest.raises(ValueError, match="edge_label must be None for 'triplet'"):
        LinkNeighborLoader(
            data, [1], edge_label_index=BUYS, edge_label=np.ones(80), neg_sampling="triplet"
        )
    with pytest.raises(ValueError, match="LinkNeighborLoader: num_neighbors has no fan-outs"):
        LinkNeighborLoader(data, {BUYS: [1]}, edge_label_index=BUYS)
    data[BUYS].score = np.ones(80)
    with pytest.raises(ValueError, match="LinkNeighborLoader: attribute\\(s\\) neither sliced"):
        LinkNeighborLoader(data, [1], edge_label_index=BUYS)
    full = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 2})
    full["a", "r", "b"].edge_index = np.array([[0, 0, 1, 1], [0, 1, 0, 1]])
    with pytest.raises(ValueError, match="has no negative pair"):
        LinkNeighborLoader(full, [1], edge_label_index="r", neg_sampling="binary")
    part = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 2})
    part["a", "r", "b"].edge_index = np.array([[0, 0, 1], [0, 1, 0]])
    with pytest.raises(ValueError, match="label source node 0 \\('a'\\) is joined to every"):
        LinkNeighborLoader(part, [1], edge_label_index="r", neg_sampling="triplet")


def test_homogeneous_loader_and_subclasses():
    data = Data(x=np.ones((4, 1)), edge_index=np.array([[0, 1, 2], [1, 2, 3]]))
    assert type(LinkNeighborLoader(data, [1])) is LinkNeighborLoader

    class MyLoader(LinkNeighborLoader):
        pass

    with pytest.raises(TypeError, match="MyLoader samples a homogeneous Data; a HeteroData"):
        MyLoader(_graph(), [1], edge_label_index=BUYS)

    class MyHetero(HeteroLinkNeighborLoader):
        pass

    assert type(MyHetero(_graph(), [1], edge_label_index=BUYS)) is MyHetero
