"""Review of session 13's parity sweeps (TF-GNN schema, converters, embeddings, LABOR):
the problems the reviewer found, each shown failing before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.graph import EID, graph
from arraygnn.graph.convert import graph_to_graph_tensor
from arraygnn.hetero_convert import hetero_data_to_graph, hetero_data_to_graph_tensor
from arraygnn.hetero_data import HeteroData


def _hetero(n, e):
    d = HeteroData(a={"x": np.arange(2.0 * n).reshape(n, 2)}, b={"num_nodes": 2})
    d["a", "r", "b"].edge_index = np.stack([np.arange(e) % n, np.arange(e) % 2])
    d["a", "r", "b"].w = np.arange(float(e))
    return d


def test_hetero_data_to_graph_of_a_follow_batch_heterobatch():
    # follow_batch adds x_batch [N] and x_ptr [G + 1] to the store: hetero_data_to_graph
    # placed them as node features (x_ptr: "has 3 rows but ... holds 4 rows"), where
    # data_to_graph and hetero_data_to_graph_tensor leave a batch's own vectors out
    b = Batch.from_data_list([_hetero(3, 2), _hetero(1, 1)], follow_batch=["x", "w"])
    g = hetero_data_to_graph(b)
    assert set(g.nodes["a"].data) == {"x"} and set(g.edges["r"].data) == {"w"}
    assert g.batch_num_nodes("a").tolist() == [3, 1]
    assert g.batch_num_edges().tolist() == [2, 1]
    gt = hetero_data_to_graph_tensor(b)
    assert set(gt.node_sets["a"].features) == set(g.nodes["a"].data)


def test_graph_to_graph_tensor_with_node_counts_only_names_the_fix():
    # a graph whose batch_num_nodes were set without batch_num_edges (DGL's protocol sets
    # both): graph_to_graph_tensor now makes components of the counts and failed inside
    # GraphTensor.from_pieces ("edge set 'edges' has 1 components but node set ...")
    g = graph((np.array([0, 1, 3]), np.array([1, 2, 4])), num_nodes=5)
    g.set_batch_num_nodes(np.array([3, 2]))
    with pytest.raises(ValueError, match=r"graph_to_graph_tensor: .*set_batch_num_edges"):
        graph_to_graph_tensor(g)
    g.set_batch_num_edges(np.array([2, 1]))
    gt = graph_to_graph_tensor(g)
    assert gt.node_sets["nodes"].sizes.tolist() == [3, 2]
    assert gt.edge_sets["edges"].sizes.tolist() == [2, 1]


def test_graph_to_data_note_batch_route_round_trips():
    # the docs' route for a batched graph back to a Batch
    from arraygnn.graph.convert import data_to_graph
    from arraygnn.graph_tensor.convert import graph_tensor_to_batch

    dl = [
        Data(x=np.ones((3, 2)), edge_index=np.array([[0, 1], [1, 2]])),
        Data(x=np.zeros((2, 2)), edge_index=np.array([[1], [0]])),
    ]
    back = graph_tensor_to_batch(graph_to_graph_tensor(data_to_graph(Batch.from_data_list(dl))))
    assert back.num_graphs == 2
    assert back.get_example(1).edge_index.tolist() == [[1], [0]]


def test_embedding_bag_sum_with_short_last_offset_matches_torch():
    # torch's include_last_offset=True with offsets[-1] < len(input): its plain sum is the
    # CSR bags [offsets[i], offsets[i + 1]) (the tail left out), consistent and as before;
    # only mean / max and a sum with padding_idx disagree with that, so only they raise
    torch = pytest.importorskip("torch")
    from arraygnn.nn import from_torch

    torch.manual_seed(0)
    ids = np.array([0, 5, 2, 0, 4, 5, 1])
    offsets = np.array([0, 3, 3, 5])  # offsets[-1] = 5 < 7
    w = np.linspace(-1.0, 2.0, ids.size).astype(np.float32)
    bag = torch.nn.EmbeddingBag(6, 3, mode="sum", include_last_offset=True)
    ours = from_torch(bag.eval())
    with torch.no_grad():
        ref = bag(torch.from_numpy(ids), torch.from_numpy(offsets)).numpy()
        ref_w = bag(torch.from_numpy(ids), torch.from_numpy(offsets), torch.from_numpy(w))
    np.testing.assert_allclose(ours(ids, offsets), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours(ids, offsets, w), ref_w.numpy(), rtol=1e-6, atol=1e-6)
    for mode, pad in (("mean", None), ("max", None), ("sum", 5)):
        bag = torch.nn.EmbeddingBag(6, 3, mode=mode, include_last_offset=True, padding_idx=pad)
        with pytest.raises(ValueError, match=r"offsets\[-1\] must equal"):
            from_torch(bag)(ids, offsets)


def test_weighted_labor0_skips_the_unused_neighbour_ids(monkeypatch):
    # weighted LABOR-0 uses pi = w: the per-neighbour unique ids (a sort of every slot)
    # that only the importance rounds read were computed and thrown away
    import arraygnn.labor_sampler as L

    g = graph((np.array([1, 2, 3, 4, 1]), np.array([0, 0, 0, 0, 5])), num_nodes=6)
    g.edata["w"] = np.array([1.0, 1.0, 2.0, 0.0, 1.0])
    want = [L.sample_labors(g, np.array([0, 5]), 2, prob="w", random_seed=s) for s in (1, 2)]

    def refuse(*args, **kwargs):
        raise AssertionError("unique ids computed for weighted LABOR-0")

    monkeypatch.setattr(L, "unique_ids_with", refuse)
    for s, (f0, imp0) in zip((1, 2), want):
        f, imp = L.sample_labors(g, np.array([0, 5]), 2, prob="w", random_seed=s)
        np.testing.assert_array_equal(f.edata[EID], f0.edata[EID])
        np.testing.assert_array_equal(imp[0], imp0[0])
    with pytest.raises(AssertionError, match="unique ids"):  # the rounds still need them
        L.sample_labors(g, np.array([0]), 2, prob="w", importance_sampling=1, random_seed=1)
