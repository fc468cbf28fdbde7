"""PyG's TGN example (JODIE-style events) run side by side with its arraygnn port:
TGNMemory, LastNeighborLoader, the TransformerConv-based GraphAttentionEmbedding and the
LinkPredictor, converted from PyG with the same weights."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric")

from torch_geometric.nn import TGNMemory as PygTGNMemory  # noqa: E402
from torch_geometric.nn import TransformerConv  # noqa: E402
from torch_geometric.nn.models import tgn as pyg_tgn  # noqa: E402

from arraygnn import TemporalData, TemporalDataLoader  # noqa: E402
from arraygnn.nn import from_pyg  # noqa: E402
from arraygnn.nn.tgn import LastNeighborLoader  # noqa: E402

N, RAW, DIM = 10, 3, 8


def _events(num=24, seed=0):
    rng = np.random.default_rng(seed)
    return TemporalData(
        src=rng.integers(0, 5, num),
        dst=rng.integers(5, N, num),
        t=np.sort(rng.integers(0, 500, num)),
        msg=rng.random((num, RAW)).astype(np.float32),
    )


class GraphAttentionEmbedding(torch.nn.Module):  # PyG's examples/tgn.py
    def __init__(self, in_channels, out_channels, msg_dim, time_enc):
        super().__init__()
        self.time_enc = time_enc
        edge_dim = msg_dim + time_enc.out_channels
        self.conv = TransformerConv(
            in_channels, out_channels // 2, heads=2, dropout=0.1, edge_dim=edge_dim
        )

    def forward(self, x, last_update, edge_index, t, msg):
        rel_t = last_update[edge_index[0]] - t
        rel_t_enc = self.time_enc(rel_t.to(x.dtype))
        edge_attr = torch.cat([rel_t_enc, msg], dim=-1)
        return self.conv(x, edge_index, edge_attr)


class LinkPredictor(torch.nn.Module):  # PyG's examples/tgn.py
    def __init__(self, in_channels):
        super().__init__()
        self.lin_src = torch.nn.Linear(in_channels, in_channels)
        self.lin_dst = torch.nn.Linear(in_channels, in_channels)
        self.lin_final = torch.nn.Linear(in_channels, 1)

    def forward(self, z_src, z_dst):
        h = self.lin_src(z_src) + self.lin_dst(z_dst)
        return self.lin_final(h.relu())


def _trace(module):
    return from_pyg(pyg.nn.fx.symbolic_trace(module))


def test_graph_attention_embedding_of_the_tgn_example_converts_by_tracing():
    torch.manual_seed(0)
    time_enc = pyg_tgn.TimeEncoder(DIM)
    gnn = GraphAttentionEmbedding(DIM, DIM, RAW, time_enc).eval()
    ours = _trace(gnn)  # its forward casts with rel_t.to(x.dtype)
    rng = np.random.default_rng(1)
    x = rng.random((5, DIM)).astype(np.float32)
    last_update = np.array([3, 1, 4, 1, 5])
    edge_index = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    t = np.array([7, 8, 9, 10, 11])
    msg = rng.random((5, RAW)).astype(np.float32)
    with torch.no_grad():
        ref = gnn(*map(torch.from_numpy, (x, last_update, edge_index, t, msg))).numpy()
    np.testing.assert_allclose(ours(x, last_update, edge_index, t, msg), ref, atol=1e-5)


def test_traced_to_casts_to_a_dtype_or_to_another_arrays_dtype():
    class Casts(torch.nn.Module):
        def forward(self, x, y):
            return x.to(y.dtype) + x.to(torch.float64) + x.to(y) + x.to(dtype=torch.float64)

    ours = _trace(Casts())
    out = ours(np.array([1, 2]), np.array([0.5, 0.5]))
    assert out.dtype == np.float64 and out.tolist() == [4.0, 8.0]


def _pyg_argmax_with_torch_scatter_semantics(src, index, dim=0, dim_size=None):
    # torch-scatter's scatter_max marks a node without messages with src.numel();
    # PyG's fallback without torch-scatter marks it with dim_size - 1 (see LastAggregator)
    res = src.new_empty(dim_size)
    res.scatter_reduce_(0, index, src, reduce="amax", include_self=False)
    out = index.new_full((dim_size,), src.numel())
    hit = (src == res[index]).nonzero().view(-1)
    out[index[hit]] = hit
    return out


@pytest.mark.parametrize("aggr", ["LastAggregator", "MeanAggregator"])
def test_tgn_example_pipeline_matches_pyg(aggr, monkeypatch):
    monkeypatch.setattr(pyg_tgn, "scatter_argmax", _pyg_argmax_with_torch_scatter_semantics)
    torch.manual_seed(0)
    memory = PygTGNMemory(
        N, RAW, DIM, DIM, pyg_tgn.IdentityMessage(RAW, DIM, DIM), getattr(pyg_tgn, aggr)()
    )
    gnn = GraphAttentionEmbedding(DIM, DIM, RAW, memory.time_enc).eval()
    link = LinkPredictor(DIM).eval()
    our_memory, our_gnn, our_link = from_pyg(memory), _trace(gnn), _trace(link)
    # PyG's neighbour loader keeps arbitrary neighbours when a node has more than `size`
    # events in a batch of more than 8 (unstable sort): size 8 keeps every one here
    pyg_loader, our_loader = pyg_tgn.LastNeighborLoader(N, size=8), LastNeighborLoader(N, 8)
    data = _events()
    events = {k: torch.from_numpy(data[k]) for k in ("src", "dst", "t", "msg")}
    assoc = np.empty(N, np.int64)
    for step, batch in enumerate(TemporalDataLoader(data, batch_size=6)):
        if step == 2:  # train -> eval flushes the message stores into the memory
            memory.eval()
            our_memory.eval()
        n_id = torch.from_numpy(batch.n_id)
        ref_n_id, ref_edge_index, ref_e_id = pyg_loader(n_id)
        with torch.no_grad():
            z, last_update = memory(ref_n_id)
            z = gnn(z, last_update, ref_edge_index, events["t"][ref_e_id], events["msg"][ref_e_id])
            local = torch.empty(N, dtype=torch.long)
            local[ref_n_id] = torch.arange(ref_n_id.numel())
            ref_score = link(z[local[torch.from_numpy(batch.src)]], z[local[n_id[:1]]])
            memory.update_state(*(torch.from_numpy(batch[k]) for k in ("src", "dst", "t", "msg")))
        pyg_loader.insert(torch.from_numpy(batch.src), torch.from_numpy(batch.dst))

        our_n_id, edge_index, e_id = our_loader(batch.n_id)
        np.testing.assert_array_equal(our_n_id, ref_n_id.numpy())
        np.testing.assert_array_equal(edge_index, ref_edge_index.numpy())
        np.testing.assert_array_equal(e_id, ref_e_id.numpy())
        h, our_last = our_memory(our_n_id)
        np.testing.assert_array_equal(our_last, last_update.numpy())
        h = our_gnn(h, our_last, edge_index, data.t[e_id], data.msg[e_id])
        np.testing.assert_allclose(h, z.numpy(), atol=1e-5)
        assoc[our_n_id] = np.arange(our_n_id.shape[0])
        score = our_link(h[assoc[batch.src]], h[assoc[batch.n_id[:1]]])
        np.testing.assert_allclose(score, ref_score.numpy(), atol=1e-5)
        our_memory.update_state(batch.src, batch.dst, batch.t, batch.msg)
        our_loader.insert(batch.src, batch.dst)
        np.testing.assert_allclose(our_memory.memory, memory.memory.detach().numpy(), atol=1e-5)
        np.testing.assert_array_equal(our_memory.last_update, memory.last_update.numpy())
