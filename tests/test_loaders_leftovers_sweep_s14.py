"""Loader / sampler / dataset leftovers parity sweep (session 14): ZipLoader over PyG's generic
NodeLoader / LinkLoader (live against PyG 2.8.1 with one toy sampler on both sides, torch's
shuffling order), GraphSAINT's PyG keywords (save_dir / log / torch worker keywords),
powerlaw_graph's self_loops and write_example's prefix checks."""

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.loader import (
    GraphSAINTNodeSampler,
    GraphSAINTRandomWalkSampler,
    LinkLoader,
    NeighborLoader,
    NodeLoader,
    ZipLoader,
)
from arraygnn.sampler import BaseSampler, SamplerOutput

EI = np.random.default_rng(0).integers(0, 10, (2, 7))


class Seeds(BaseSampler):
    """The seeds themselves, no edges (PyG's NeighborSampler needs pyg-lib / torch-sparse,
    not installed: the same toy sampler runs on both sides)."""

    def sample_from_nodes(self, index, **kwargs):
        e = np.zeros(0, np.int64)
        return SamplerOutput(index.node, e, e, e, metadata=(index.input_id, index.time))

    def sample_from_edges(self, index, neg_sampling=None):
        k, e = len(index.row), np.zeros(0, np.int64)
        node = np.concatenate([index.row, index.col])
        meta = (index.input_id, np.arange(2 * k).reshape(2, k), index.label, index.time)
        return SamplerOutput(node, e, e, e, metadata=meta)


def pyg_seeds():
    torch = pytest.importorskip("torch")
    ps = pytest.importorskip("torch_geometric.sampler")

    class PygSeeds(ps.BaseSampler):
        def sample_from_nodes(self, index, **kwargs):
            e = torch.zeros(0, dtype=torch.long)
            return ps.SamplerOutput(index.node, e, e, e, metadata=(index.input_id, index.time))

        def sample_from_edges(self, index, neg_sampling=None):
            k, e = len(index.row), torch.zeros(0, dtype=torch.long)
            node = torch.cat([index.row, index.col])
            meta = (index.input_id, torch.arange(2 * k).view(2, k), index.label, index.time)
            return ps.SamplerOutput(node, e, e, e, metadata=meta)

    return PygSeeds()


# ---------------------------------------------------------------------------- ZipLoader
@pytest.mark.parametrize(
    "kw", [dict(batch_size=3), dict(batch_size=2, drop_last=True), dict(batch_size=3, shuffle=True)]
)
def test_zip_loader_mixes_node_and_link_loaders_as_pyg(kw):
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import LinkLoader as PygLinkLoader
    from torch_geometric.loader import NodeLoader as PygNodeLoader
    from torch_geometric.loader import ZipLoader as PygZipLoader

    data = Data(x=np.arange(10.0)[:, None], edge_index=EI)
    pyg = PygData(x=torch.arange(10.0)[:, None], edge_index=torch.as_tensor(EI))
    gen = (lambda: torch.Generator().manual_seed(3)) if kw.get("shuffle") else (lambda: None)
    ours = ZipLoader(
        [
            NodeLoader(data, Seeds(), input_nodes=np.arange(9, 0, -1)),
            LinkLoader(data, Seeds(), edge_label_index=EI, transform=lambda b: ("t", b)),
            NeighborLoader(data, [-1], input_nodes=np.arange(10)),  # a sampling loader too
        ],
        generator=gen(),
        **kw,
    )
    theirs = PygZipLoader(
        [
            PygNodeLoader(pyg, pyg_seeds(), input_nodes=torch.arange(9, 0, -1)),
            PygLinkLoader(pyg, pyg_seeds(), edge_label_index=torch.as_tensor(EI)),
        ],
        generator=gen(),
        **kw,
    )
    assert len(ours) == len(theirs)  # seven positions: the link loader's
    out, want = list(ours), list(theirs)
    assert len(out) == len(want)
    for (a, (tag, b), c), (pa, pb) in zip(out, want):
        assert tag == "t"
        np.testing.assert_array_equal(a.n_id, pa.n_id.numpy())
        np.testing.assert_array_equal(a.input_id, pa.input_id.numpy())
        np.testing.assert_array_equal(b.input_id, pb.input_id.numpy())
        np.testing.assert_array_equal(b.n_id, pb.n_id.numpy())
        np.testing.assert_array_equal(c.input_id, pa.input_id.numpy())
        assert a.batch_size == pa.batch_size and a.n_id.dtype == np.int64


def test_zip_loader_call_and_bad_loaders():
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import NodeLoader as PygNodeLoader
    from torch_geometric.loader import ZipLoader as PygZipLoader

    data = Data(x=np.arange(10.0)[:, None], edge_index=EI)
    pyg = PygData(x=torch.arange(10.0)[:, None], edge_index=torch.as_tensor(EI))
    (a,) = ZipLoader([NodeLoader(data, Seeds())])([4, 1])
    (b,) = PygZipLoader([PygNodeLoader(pyg, pyg_seeds())])([4, 1])
    np.testing.assert_array_equal(a.n_id, b.n_id.numpy())
    np.testing.assert_array_equal(a.input_id, b.input_id.numpy())
    # filter_per_worker (PyG's own keyword) is accepted; a non-loader is named (PyG: a
    # ValueError from its missing collate_fn; ours a TypeError, as the docstring says)
    assert len(ZipLoader([NodeLoader(data, Seeds())], batch_size=4, filter_per_worker=True)) == 3
    with pytest.raises(TypeError, match=r"loaders\[1\]"):
        ZipLoader([NodeLoader(data, Seeds()), Seeds()])


# -------------------------------------------------------------------------- GraphSAINT
def saint_data():
    rng = np.random.default_rng(1)
    return Data(x=rng.standard_normal((20, 2)), edge_index=rng.integers(0, 20, (2, 60)))


@pytest.mark.parametrize(
    "make",
    [
        lambda d, **kw: GraphSAINTNodeSampler(d, 4, 2, 3, **kw),
        lambda d, **kw: GraphSAINTRandomWalkSampler(d, 3, 2, 2, 3, **kw),
    ],
)
def test_saint_save_dir_caches_the_norms_as_pyg(make, tmp_path):
    data = saint_data()
    first = make(data, save_dir=str(tmp_path), seed=0)
    (path,) = tmp_path.iterdir()
    assert path.name.startswith(type(first).__name__.lower()) and path.suffix == ".npz"
    # read back, not recomputed: another seed gives the cached norms (PyG's cache)
    again = make(data, save_dir=tmp_path, seed=5, log=False)
    np.testing.assert_array_equal(again.node_norm, first.node_norm)
    np.testing.assert_array_equal(again.edge_norm, first.edge_norm)
    assert not np.array_equal(make(data, seed=5).node_norm, first.node_norm)
    other = Data(x=np.zeros((5, 1)), edge_index=np.array([[0, 1], [1, 2]]))
    with pytest.raises(ValueError, match="another graph"):
        make(other, save_dir=tmp_path)


def test_saint_takes_torch_worker_keywords_and_names_bad_ones():
    data = saint_data()
    plain = [b.x for b in GraphSAINTNodeSampler(data, 4, num_steps=3, seed=2)]
    workers = GraphSAINTNodeSampler(data, 4, num_steps=3, seed=2, num_workers=2, pin_memory=True)
    assert workers.num_workers == 2
    for x, y in zip(plain, (b.x for b in workers)):
        np.testing.assert_array_equal(x, y)
    for kw, err, name in [
        (dict(save_dir=5), TypeError, "save_dir"),
        (dict(log="yes"), TypeError, "log"),
        (dict(no_such=1), TypeError, "no_such"),
        (dict(num_workers=-1), ValueError, "num_workers"),
        (dict(generator=np.random.default_rng(0)), TypeError, "generator"),
    ]:
        with pytest.raises(err, match=name):
            GraphSAINTNodeSampler(data, 4, **kw)


# ------------------------------------------------------------ powerlaw_graph, write_example
def test_powerlaw_graph_self_loops_must_be_a_bool():
    from arraygnn.datasets import powerlaw_graph

    a = powerlaw_graph(10, 20, self_loops=np.bool_(True))
    np.testing.assert_array_equal(a[0], powerlaw_graph(10, 20, self_loops=True)[0])
    with pytest.raises(TypeError, match="self_loops"):
        powerlaw_graph(10, 20, self_loops="no")  # was: read as True


def test_write_example_prefix_must_be_a_str():
    from arraygnn.graph_tensor import GraphTensor, NodeSet
    from arraygnn.io.example import example_features, write_example

    g = GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([2]), features={"f": np.ones(2)})}
    )
    assert sorted(example_features(g, "p/")) == ["p/nodes/a.#size", "p/nodes/a.f"]
    assert write_example(g, None) == write_example(g, "") == write_example(g)
    for bad in (5, b"p/"):
        with pytest.raises(TypeError, match="prefix"):
            write_example(g, bad)  # was: '5nodes/a.f' keys
        with pytest.raises(TypeError, match="prefix"):
            example_features(g, bad)
