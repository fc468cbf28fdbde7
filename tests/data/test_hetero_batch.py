"""Batching HeteroData: against PyG's Batch.from_data_list on the same random graphs,
exact get_example / to_data_list round trips, errors naming the type, custom hooks,
DataLoader."""

import numpy as np
import pytest

from arraygnn import Batch, DataLoader, HeteroBatch, HeteroData

NODE_TYPES = ("paper", "author", "venue")


def random_graphs(n_graphs=6, seed=0, ei_dtype=np.int64):
    """Paper / author / venue graphs: bipartite relations (writes, published_in), a
    self-relation (cites), edge attributes, graph-level y, venues with 0 nodes in some
    graphs, authors sized by an explicit num_nodes (no x)."""
    rng = np.random.default_rng(seed)
    graphs = []
    for i in range(n_graphs):
        n_paper = int(rng.integers(1, 6))
        n_author = int(rng.integers(0, 4))
        n_venue = int(rng.integers(0, 3)) if i % 2 else 0
        d = HeteroData()
        d["paper"].x = rng.random((n_paper, 4)).astype(np.float32)
        d["paper"].label = rng.integers(0, 3, n_paper)
        d["author"].num_nodes = n_author
        d["author"].h = rng.random((n_author, 2))  # (PyG cannot split a num_nodes-only store)
        d["venue"].x = rng.random((n_venue, 2))

        def edges(n_src, n_dst, e):
            if n_src == 0 or n_dst == 0:
                return np.zeros((2, 0), ei_dtype)
            return np.stack([rng.integers(0, n_src, e), rng.integers(0, n_dst, e)]).astype(ei_dtype)

        w = edges(n_author, n_paper, int(rng.integers(0, 6)))
        d["author", "writes", "paper"].edge_index = w
        d["author", "writes", "paper"].edge_attr = rng.random((w.shape[1], 3)).astype(np.float32)
        d["paper", "cites", "paper"].edge_index = edges(n_paper, n_paper, int(rng.integers(0, 5)))
        p = edges(n_paper, n_venue, int(rng.integers(0, 3)))
        d["paper", "published_in", "venue"].edge_index = p
        d.y = np.array([float(i)], np.float32)
        graphs.append(d)
    return graphs


def snapshot(graphs):
    out = []
    for d in graphs:
        stores = {t: {k: np.array(v, copy=True) for k, v in d[t].items()} for t in types_of(d)}
        out.append((stores, {k: np.array(v, copy=True) for k, v in d._global.items()}))
    return out


def types_of(d):
    return d.node_types + d.edge_types


def assert_same_graph(a, b):
    assert type(a) is type(b)
    assert a.node_types == b.node_types and a.edge_types == b.edge_types
    assert list(a._global) == list(b._global)
    for k, v in b._global.items():
        assert type(a._global[k]) is type(v), k
        np.testing.assert_array_equal(a._global[k], v)
    for t in types_of(b):
        assert a[t].keys() == b[t].keys(), t
        for k, v in b[t].items():
            got = a[t][k]
            assert type(got) is type(v), (t, k)
            if isinstance(v, np.ndarray):
                assert got.dtype == v.dtype and got.shape == v.shape, (t, k)
            np.testing.assert_array_equal(got, v, err_msg=f"{t} {k}")


@pytest.mark.parametrize("ei_dtype", [np.int64, np.int32])
def test_round_trip_and_inputs_untouched(ei_dtype):
    graphs = random_graphs(ei_dtype=ei_dtype)
    before = snapshot(graphs)
    b = Batch.from_data_list(graphs)
    assert isinstance(b, HeteroBatch) and isinstance(b, HeteroData)
    assert b.num_graphs == len(graphs) == len(b)
    assert b["writes"].edge_index.dtype == ei_dtype  # ids keep the caller's dtype
    for i, g in enumerate(graphs):
        assert_same_graph(b.get_example(i), g)
        assert_same_graph(b[i], g)
    for got, g in zip(b.to_data_list(), graphs):
        assert_same_graph(got, g)
    assert [x.y.item() for x in b.index_select(np.array([True, False] * 3))] == [0.0, 2.0, 4.0]
    assert [x.y.item() for x in b[1:3]] == [1.0, 2.0]
    for (stores, glob), d in zip(before, graphs):
        assert list(d._global) == list(glob)
        for t, m in stores.items():
            assert d[t].keys() == list(m)
            for k, v in m.items():
                np.testing.assert_array_equal(d[t][k], v)


def test_layout():
    graphs = random_graphs()
    b = Batch.from_data_list(graphs)
    for t in NODE_TYPES:
        counts = [g[t].num_nodes for g in graphs]
        assert b[t].ptr.tolist() == np.concatenate([[0], np.cumsum(counts)]).tolist()
        assert b[t].batch.tolist() == np.repeat(np.arange(len(graphs)), counts).tolist()
        assert b[t].num_nodes == sum(counts)
    assert b["author"].num_nodes == sum(g["author"].num_nodes for g in graphs)
    off_a = np.concatenate([[0], np.cumsum([g["author"].num_nodes for g in graphs])])
    off_p = np.concatenate([[0], np.cumsum([g["paper"].num_nodes for g in graphs])])
    expect = np.concatenate(
        [g["writes"].edge_index + [[off_a[i]], [off_p[i]]] for i, g in enumerate(graphs)], 1
    )
    np.testing.assert_array_equal(b["writes"].edge_index, expect)
    assert b.y.shape == (len(graphs),)
    assert b["paper"].x.ctypes.data % 64 == 0


def to_pyg_graph(tgd, d):
    import torch

    p = tgd.HeteroData()
    conv = lambda v: torch.from_numpy(v) if isinstance(v, np.ndarray) else v  # noqa: E731
    for k, v in d._global.items():
        p[k] = conv(v)
    for t in types_of(d):
        for k, v in d[t].items():
            p[t][k] = conv(v)
    return p


@pytest.mark.parametrize("ei_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_pyg(seed, ei_dtype):
    torch = pytest.importorskip("torch")
    tgd = pytest.importorskip("torch_geometric.data")
    graphs = random_graphs(n_graphs=7, seed=seed, ei_dtype=ei_dtype)
    follow = ["edge_attr", "label"]
    b = Batch.from_data_list(graphs, follow_batch=follow)
    pb = tgd.Batch.from_data_list([to_pyg_graph(tgd, g) for g in graphs], follow_batch=follow)
    assert b.node_types == pb.node_types and b.edge_types == pb.edge_types
    assert b.num_graphs == pb.num_graphs
    for t in types_of(pb):
        theirs = dict(pb[t].items())
        ours = dict(b[t].items())
        # PyG 2.5+ adds <key>_batch and <key>_ptr for follow_batch keys, and so does ours
        assert set(ours) == set(theirs)
        for k, v in ours.items():
            ref = theirs[k]
            if isinstance(ref, torch.Tensor):
                np.testing.assert_array_equal(v, ref.numpy(), err_msg=f"{t} {k}")
            else:
                assert v == ref, (t, k)
        # the same slice / increment records
        for k, sl in pb._slice_dict[t].items():
            np.testing.assert_array_equal(b._slice_dict[t][k], sl.numpy(), err_msg=f"{t} {k}")
            inc = pb._inc_dict[t][k]
            if inc is not None:
                np.testing.assert_array_equal(
                    np.broadcast_to(b._inc_dict[t][k], inc.shape), inc.numpy()
                )
    np.testing.assert_array_equal(b.y, pb.y.numpy())
    for i, g in enumerate(graphs):
        theirs = pb.get_example(i)
        ours = b.get_example(i)
        for t in types_of(g):
            for k, v in theirs[t].items():
                ref = v.numpy() if isinstance(v, torch.Tensor) else v
                np.testing.assert_array_equal(ours[t][k], ref, err_msg=f"{i} {t} {k}")


def test_exclude_keys_and_follow_batch_errors():
    graphs = random_graphs()
    b = Batch.from_data_list(graphs, exclude_keys=["edge_attr", "y"])
    assert "edge_attr" not in b and "y" not in b
    assert "edge_attr" not in b.get_example(0)
    with pytest.raises(ValueError, match="follow_batch key 'nope'"):
        Batch.from_data_list(graphs, follow_batch=["nope"])


def test_graph_level_scalars_strings_and_num_nodes():
    graphs = random_graphs(3)
    for i, g in enumerate(graphs):
        g.name = f"g{i}"
        g.score = 0.5 * i
        g["venue"].tag = i
    b = HeteroBatch.from_data_list(graphs)
    assert b.name == ["g0", "g1", "g2"] and b.score.tolist() == [0.0, 0.5, 1.0]
    assert b["venue"].tag.tolist() == [0, 1, 2]
    for i, g in enumerate(graphs):
        e = b.get_example(i)
        assert e.name == g.name and e.score == g.score and type(e.score) is float
        assert e["venue"].tag == i and e["author"].num_nodes == g["author"].num_nodes


def test_unknown_node_count_has_no_batch_vector():
    graphs = []
    for n in (2, 3):
        d = HeteroData()
        d["a"].y = np.arange(n)  # a's size is not known (y says nothing)
        d["b"].x = np.ones((n, 1))
        d["b", "to", "b"].edge_index = np.array([[0], [n - 1]])
        graphs.append(d)
    b = Batch.from_data_list(graphs)
    assert "batch" not in b["a"] and b["b"].batch.tolist() == [0, 0, 1, 1, 1]
    assert b["b", "to", "b"].edge_index.tolist() == [[0, 2], [1, 4]]
    graphs[0]["a", "to", "b"].edge_index = np.array([[0], [0]])
    graphs[1]["a", "to", "b"].edge_index = np.array([[0], [0]])
    with pytest.raises(ValueError, match=r"\('a', 'to', 'b'\).*num_nodes of source node type 'a'"):
        Batch.from_data_list(graphs)


def test_errors_name_the_type_key_and_graph():
    graphs = random_graphs(4)
    bad = random_graphs(4)
    bad[2]["paper", "cites", "paper"].edge_index = np.array([[0], [99]])
    with pytest.raises(
        ValueError,
        match=r"edge type \('paper', 'cites', 'paper'\), key 'edge_index' in graph 2: row 1 "
        r"holds destination node id 99",
    ):
        Batch.from_data_list(bad)
    bad = random_graphs(4)
    bad[1]["writes"].edge_index = bad[1]["writes"].edge_index.astype(np.float64)
    with pytest.raises(TypeError, match=r"writes.*edge_index"):
        Batch.from_data_list(bad)
    bad = random_graphs(4)
    del bad[3]["venue"]
    with pytest.raises(ValueError, match="graph 3 lacks node type 'venue'"):
        Batch.from_data_list(bad)
    bad = random_graphs(4)
    bad[1]["paper"].x = np.ones((bad[1]["paper"].num_nodes, 5), np.float32)
    with pytest.raises(ValueError, match=r"node type 'paper', key 'x' in graph 1: has shape"):
        Batch.from_data_list(bad)
    bad = random_graphs(4)
    bad[2]["paper"].extra = np.zeros(1)
    with pytest.raises(ValueError, match=r"node type 'paper', graph 2: key 'extra' is not"):
        Batch.from_data_list(bad)
    bad = random_graphs(4)
    for g in bad:
        g["writes"].edge_index = np.zeros(3, np.int64)
    with pytest.raises(ValueError, match=r"writes.*must be \[2, E\]"):
        Batch.from_data_list(bad)
    with pytest.raises(TypeError, match="cannot be mixed"):
        from arraygnn import Data

        Batch.from_data_list([graphs[0], Data(x=np.ones((1, 1)))])
    with pytest.raises(ValueError, match="empty"):
        HeteroBatch.from_data_list([])
    with pytest.raises(IndexError):
        Batch.from_data_list(graphs).get_example(4)


def test_narrow_ids_never_wrap():
    d = HeteroData(a={"num_nodes": 100}, b={"num_nodes": 1})
    d["a", "to", "b"].edge_index = np.array([[99], [0]], np.int8)
    with pytest.raises(OverflowError, match=r"\('a', 'to', 'b'\).*int8"):
        Batch.from_data_list([d, d])


class BipartitePairs(HeteroData):
    """A user rule: 'pair_index' in node store 'a' is increased by a's node count."""

    def __inc__(self, key, value, store=None, *args, **kwargs):
        if key == "pair_index":
            return store.num_nodes
        return super().__inc__(key, value, store, *args, **kwargs)

    def __cat_dim__(self, key, value, store=None, *args, **kwargs):
        if key == "stacked":
            return None
        return super().__cat_dim__(key, value, store, *args, **kwargs)


def test_custom_hooks():
    graphs = []
    for n in (2, 3):
        d = BipartitePairs(a={"x": np.ones((n, 1))}, b={"num_nodes": 1})
        d["a"].pair_index = np.array([0, n - 1])
        d["a", "to", "b"].edge_index = np.array([[n - 1], [0]])
        d.stacked = np.arange(3.0)
        graphs.append(d)
    b = Batch.from_data_list(graphs)
    assert b._data_cls is BipartitePairs and repr(b).startswith("BipartitePairsBatch(")
    assert b["a"].pair_index.tolist() == [0, 1, 2, 4]
    assert b["a", "to", "b"].edge_index.tolist() == [[1, 4], [0, 1]]
    assert b.stacked.shape == (2, 3)
    for i, g in enumerate(graphs):
        assert_same_graph(b.get_example(i), g)


def test_data_loader():
    graphs = random_graphs(10)
    loader = DataLoader(graphs, batch_size=4, shuffle=True, seed=0, follow_batch=["label"])
    seen = []
    for b in loader:
        assert isinstance(b, HeteroBatch) and "label_batch" in b["paper"]
        seen += [int(e.y.item()) for e in b.to_data_list()]
    assert sorted(seen) == list(range(10)) and len(loader) == 3


def test_batch_copies_and_pickle_split_back():
    import copy
    import pickle

    graphs = random_graphs(4)
    b = Batch.from_data_list(iter(graphs))  # any iterable
    for other in (pickle.loads(pickle.dumps(b)), copy.deepcopy(b), b.copy(), b.to("cpu")):
        assert type(other) is HeteroBatch and other.num_graphs == 4
        assert other["writes"].size() == b["writes"].size()
        for i, g in enumerate(graphs):
            assert_same_graph(other.get_example(i), g)
    assert list(b.batch_dict) == list(NODE_TYPES)
