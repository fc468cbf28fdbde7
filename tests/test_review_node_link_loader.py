"""Review of NodeLoader / LinkLoader / arraygnn.sampler against PyG 2.8.1: sampler outputs
with ids outside their range (clear errors naming the loader and the field, before any
indexing), NeighborSampler seeds checked, PyG's list form of hetero ``input_nodes``, errors
naming the loader, ``NegativeSampling.sample`` weights."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.link_loader import LinkLoader
from arraygnn.node_loader import NodeLoader
from arraygnn.sampler import (
    BaseSampler,
    EdgeSamplerInput,
    HeteroSamplerOutput,
    NegativeSampling,
    NeighborSampler,
    NodeSamplerInput,
    SamplerOutput,
)


def _data():
    rng = np.random.default_rng(0)
    return Data(
        x=rng.normal(size=(5, 2)),
        edge_index=np.array([[0, 1, 2, 3], [1, 2, 3, 4]]),
        edge_attr=rng.normal(size=(4, 1)),
        num_nodes=5,
    )


def _hetero():
    rng = np.random.default_rng(1)
    data = HeteroData(paper={"x": rng.normal(size=(6, 2))}, author={"x": rng.normal(size=(4, 2))})
    data["author", "writes", "paper"].edge_index = np.array([[0, 1, 3, 2], [0, 5, 2, 2]])
    data["paper", "cites", "paper"].edge_index = np.array([[0, 1, 2], [1, 2, 5]])
    data["cites"].edge_attr = rng.normal(size=(3, 2))
    return data


class _Fixed(BaseSampler):
    """Returns the given arrays whatever it is asked (a buggy custom sampler)."""

    def __init__(self, node, row, col, edge, perm=None, meta=None):
        self.out = (node, row, col, edge)
        self.perm, self.meta = perm, meta

    @property
    def edge_permutation(self):
        return self.perm

    def _make(self, index):
        node, row, col, edge = (None if v is None else np.array(v) for v in self.out)
        return SamplerOutput(node, row, col, edge, metadata=self.meta or (index.input_id, None))

    def sample_from_nodes(self, index, **kwargs):
        return self._make(index)

    def sample_from_edges(self, index, neg_sampling=None):
        return self._make(index)


_BAD_OUTPUTS = {
    "node_high": (([0, 99], [0], [1], [0]), "node"),
    "node_negative": (([0, -1], [0], [1], [0]), "node"),
    "row_high": (([0, 1], [5], [1], [0]), "row"),
    "col_negative": (([0, 1], [0], [-1], [0]), "col"),
    "edge_high": (([0, 1], [0], [1], [9]), "edge"),
    "edge_negative": (([0, 1], [0], [1], [-1]), "edge"),
    "edge_length": (([0, 1], [0], [1], [0, 1]), "edge"),
    "row_col_length": (([0, 1], [0, 1], [1], [0]), "col"),
    "float_node": (([0.0, 1.0], [0], [1], [0]), "node"),
}


@pytest.mark.parametrize("case", sorted(_BAD_OUTPUTS))
@pytest.mark.parametrize("attrs", [True, False])
def test_node_loader_refuses_out_of_range_sampler_output(case, attrs):
    (node, row, col, edge), field = _BAD_OUTPUTS[case]
    data = _data()
    kw = {} if attrs else dict(node_attrs=[], edge_attrs=[], exclude_keys=["x", "edge_attr"])
    loader = NodeLoader(data, _Fixed(node, row, col, edge), input_nodes=np.array([0]), **kw)
    with pytest.raises((ValueError, TypeError), match=rf"NodeLoader: .*\b{field}\b"):
        loader(np.array([0]))


@pytest.mark.parametrize("edge", [[-1], [4]])
def test_edge_permutation_index_checked_not_wrapped(edge):
    data = _data()
    perm = np.array([3, 2, 1, 0])
    loader = NodeLoader(data, _Fixed([0, 1], [0], [1], edge, perm=perm), input_nodes=np.array([0]))
    with pytest.raises(ValueError, match=r"NodeLoader: .*\bedge\b"):
        loader(np.array([0]))


def test_link_loader_refuses_out_of_range_metadata():
    data = _data()
    bad = (np.array([0]), np.array([[0], [7]]), None, None)  # position 7 of 2 nodes
    loader = LinkLoader(data, _Fixed([0, 1], [0], [1], [0], meta=bad), batch_size=1)
    with pytest.raises(ValueError, match=r"LinkLoader: .*edge_label_index"):
        next(iter(loader))
    triplet = (np.array([0]), np.array([0]), np.array([1]), np.array([[2, 0]]), None)
    loader = LinkLoader(
        data, _Fixed([0, 1], [0], [1], [0], meta=triplet), neg_sampling=("triplet", 2)
    )
    with pytest.raises(ValueError, match=r"LinkLoader: .*dst_neg_index"):
        next(iter(loader))


class _FixedHetero(BaseSampler):
    def __init__(self, node, row, col, edge):
        self.out = (node, row, col, edge)

    def sample_from_nodes(self, index, **kwargs):
        node, row, col, edge = self.out
        return HeteroSamplerOutput(
            {k: np.array(v) for k, v in node.items()},
            {k: np.array(v) for k, v in row.items()},
            {k: np.array(v) for k, v in col.items()},
            None if edge is None else {k: np.array(v) for k, v in edge.items()},
            metadata=(index.input_id, None),
        )

    def sample_from_edges(self, index, neg_sampling=None):
        raise NotImplementedError


_CITES, _WRITES = ("paper", "cites", "paper"), ("author", "writes", "paper")


@pytest.mark.parametrize(
    "node,row,col,edge,field",
    [
        ({"paper": [0, 6]}, {}, {}, {}, "node"),
        ({"paper": [0, -1]}, {}, {}, {}, "node"),
        ({"paper": [0, 1]}, {_CITES: [0]}, {_CITES: [2]}, {_CITES: [0]}, "col"),
        # author has no sampled node: row position 0 is out of range
        ({"paper": [0, 1]}, {_WRITES: [0]}, {_WRITES: [1]}, {_WRITES: [0]}, "row"),
        ({"paper": [0, 1]}, {_CITES: [0]}, {_CITES: [1]}, {_CITES: [3]}, "edge"),
        ({"paper": [0, 1]}, {_WRITES: [0]}, {_WRITES: [1]}, {_WRITES: [-1]}, "row|edge"),
    ],
)
def test_hetero_node_loader_refuses_out_of_range_sampler_output(node, row, col, edge, field):
    loader = NodeLoader(_hetero(), _FixedHetero(node, row, col, edge), input_nodes="paper")
    with pytest.raises(ValueError, match=rf"NodeLoader: .*\b({field})\b"):
        loader(np.array([0]))


@pytest.mark.parametrize("seeds", [[0, 7], [0, -1], [0.0, 1.0]])
def test_neighbor_sampler_checks_seed_nodes(seeds):
    data = _data()
    sampler = NeighborSampler(data, [2, 2])
    with pytest.raises((ValueError, TypeError), match="NeighborSampler: .*node"):
        sampler.sample_from_nodes(NodeSamplerInput(None, np.array(seeds)))
    hetero = NeighborSampler(_hetero(), [2, 2])
    with pytest.raises((ValueError, TypeError), match="NeighborSampler: .*node"):
        hetero.sample_from_nodes(NodeSamplerInput(None, np.array(seeds), input_type="paper"))


@pytest.mark.parametrize(
    "row,col,field", [([0], [9], "col"), ([-1], [1], "row"), ([0.0], [1], "row")]
)
@pytest.mark.parametrize("neg", [None, "binary", ("triplet", 2)])
def test_neighbor_sampler_checks_seed_links(row, col, field, neg):
    data = _data()
    neg = NegativeSampling.cast(neg)
    sampler = NeighborSampler(data, [2])
    with pytest.raises((ValueError, TypeError), match=rf"NeighborSampler: .*\b{field}\b"):
        sampler.sample_from_edges(EdgeSamplerInput(None, np.array(row), np.array(col)), neg)
    hetero = NeighborSampler(_hetero(), [2])
    with pytest.raises((ValueError, TypeError), match=rf"NeighborSampler: .*\b{field}\b"):
        hetero.sample_from_edges(
            EdgeSamplerInput(None, np.array(row), np.array(col), input_type=_WRITES), neg
        )


@pytest.mark.parametrize("mask", [False, True])
def test_hetero_input_nodes_as_a_list_like_pyg(mask):
    torch = pytest.importorskip("torch")
    from torch_geometric.data import HeteroData as PygHetero
    from torch_geometric.loader.utils import get_input_nodes

    data = _hetero()
    ids = np.array([False, True, False, False, True, True]) if mask else np.array([4, 1, 4])
    pdata = PygHetero()
    for t in data.node_types:
        pdata[t].x = torch.from_numpy(data[t].x)
    want_type, want_nodes, want_id = get_input_nodes(pdata, ["paper", torch.from_numpy(ids)])

    class Echo(BaseSampler):
        def sample_from_nodes(self, index, **kwargs):
            return HeteroSamplerOutput(
                {index.input_type: index.node}, {}, {}, {}, metadata=(index.input_id, None)
            )

        def sample_from_edges(self, index, neg_sampling=None):
            raise NotImplementedError

    loader = NodeLoader(data, Echo(), input_nodes=["paper", ids], batch_size=10)
    batch = next(iter(loader))
    assert loader.input_data.input_type == want_type
    np.testing.assert_array_equal(batch["paper"].n_id, want_nodes.numpy())
    expect = np.arange(len(want_nodes)) if want_id is None else want_id.numpy()
    np.testing.assert_array_equal(batch["paper"].input_id, expect)


def test_hetero_errors_name_the_loader():
    data = _hetero()
    sampler = _FixedHetero({"paper": [0]}, {}, {}, {})
    with pytest.raises(ValueError, match="^NodeLoader: .*venue"):
        NodeLoader(data, sampler, input_nodes=("venue", None))
    with pytest.raises(TypeError, match="^NodeLoader: .*input_nodes"):
        NodeLoader(data, sampler, input_nodes=3)
    with pytest.raises(ValueError, match="^LinkLoader: .*attribute"):
        LinkLoader(data, sampler, edge_label_index=(_WRITES, None), edge_attrs=["nope"])


def test_negative_sampling_sample_weights():
    neg = NegativeSampling("binary", 1, src_weight=np.array([0.0, 0.0, 3.0, 0.0]))
    assert neg.sample(6, "src", 4, rng=0).tolist() == [2] * 6
    got = neg.sample(50, "dst", 7, rng=0)
    assert got.dtype == np.int64 and got.shape == (50,) and got.min() >= 0 and got.max() < 7
    for weight, what in [
        (np.array([1.0, -1.0, 1.0]), "negative"),
        (np.zeros(3), "sum"),
        (np.array([1.0, np.nan, 1.0]), "finite"),
        (np.ones((3, 1)), "1-D"),
    ]:
        with pytest.raises(ValueError, match=f"NegativeSampling: .*{what}"):
            NegativeSampling("binary", src_weight=weight).sample(4, "src")
    with pytest.raises(ValueError, match="number of nodes 5"):
        NegativeSampling("binary", src_weight=np.ones(3)).sample(4, "src", 5)


def test_neighbor_sampler_takes_pyg_arguments_and_names_itself():
    data = _data()
    seeds = NodeSamplerInput(None, np.array([0, 3]))
    want = NeighborSampler(data, [2, 2], seed=1).sample_from_nodes(seeds)
    # PyG's positions: subgraph_type, replace, disjoint, temporal_strategy, time_attr,
    # weight_attr, is_sorted, share_memory, directed, sample_direction
    sampler = NeighborSampler(
        data, [2, 2], "directional", False, False, "uniform", None, None, True, True, True,
        "forward", seed=1,
    )  # fmt: skip
    got = sampler.sample_from_nodes(seeds)
    for field in ("node", "row", "col", "edge"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    with pytest.raises(ValueError, match="^NeighborSampler: .*weight_attr"):
        NeighborSampler(data, [2], weight_attr="w")  # (weighted sampling: no such attribute)
    with pytest.raises(ValueError, match="^NeighborSampler: .*sample_direction"):
        NeighborSampler(data, [2], sample_direction="backward")
    with pytest.warns(UserWarning, match="'directed' argument"):
        with pytest.raises(ValueError, match="^NeighborSampler: subgraph_type='induced'"):
            NeighborSampler(data, [2], directed=False, disjoint=True)
    with pytest.raises(ValueError, match="^NeighborSampler: subgraph_type"):
        NeighborSampler(_hetero(), [2], subgraph_type="bidirectionl")


@pytest.mark.parametrize("hetero", [False, True])
def test_temporal_neighbor_sampler_on_cupy(hetero):
    cupy = pytest.importorskip("cupy")
    try:
        cupy.zeros(1)
    except Exception:  # noqa: BLE001 - CuPy without a usable device
        pytest.skip("no CUDA device")
    from arraygnn._namespace import to_device

    if hetero:
        data = _hetero()
        for t in data.node_types:
            data[t].time = np.arange(data[t].num_nodes) % 3
        kw = dict(edge_label_index=(_WRITES, None), node_attrs=["x", "time"])
        count = data[_WRITES].edge_index.shape[1]
    else:
        data = _data()
        data.time = np.arange(5) % 3
        kw = dict(node_attrs=["x", "time"])
        count = data.edge_index.shape[1]
    times = np.arange(count) % 4
    got = []
    for device in ("cpu", "cuda"):
        graph = to_device(data, device)
        sampler = NeighborSampler(
            graph, [2, 1], seed=2, time_attr="time", node_attrs=[] if hetero else ["time"]
        )
        loader = LinkLoader(
            graph, sampler, edge_label_time=to_device(times, device), batch_size=2, **kw
        )
        got.append([b.to("cpu") if hasattr(b, "to") else b for b in loader])
    for a, b in zip(*got, strict=True):
        for t in a.node_types if hetero else [None]:
            sa, sb = (a, b) if t is None else (a[t], b[t])
            np.testing.assert_array_equal(sa.n_id, sb.n_id)


def test_sampler_classes_cast_iterate_and_global_ids_like_pyg():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.sampler")

    node, row, col = np.array([7, 3, 9]), np.array([1, 2, 2]), np.array([0, 0, 1])
    batch = np.array([0, 0, 1])
    t = torch.from_numpy
    ours = SamplerOutput(node, row, col, None, batch, orig_row=row[:1], orig_col=col[:1])
    theirs = pyg.SamplerOutput(t(node), t(row), t(col), None, t(batch), orig_row=t(row[:1]),
                               orig_col=t(col[:1]))  # fmt: skip
    for name in ("global_row", "global_col", "seed_node", "global_orig_row", "global_orig_col"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name).numpy(), name)
    assert SamplerOutput(node, row, col, None).seed_node is None
    h_ours = HeteroSamplerOutput({"a": node, "b": node[::-1].copy()}, {("a", "r", "b"): row},
                                 {("a", "r", "b"): col}, None, {"a": batch})  # fmt: skip
    h_theirs = pyg.HeteroSamplerOutput({"a": t(node), "b": t(node[::-1].copy())},
                                       {("a", "r", "b"): t(row)}, {("a", "r", "b"): t(col)},
                                       None, {"a": t(batch)})  # fmt: skip
    for name in ("global_row", "global_col", "seed_node"):
        got, want = getattr(h_ours, name), getattr(h_theirs, name)
        assert got.keys() == want.keys()
        for k in got:
            np.testing.assert_array_equal(got[k], want[k].numpy(), name)
    assert h_ours.global_orig_row is None and h_theirs.global_orig_row is None
    # PyG's CastMixin: cast(None / instance / tuple / dict) and iteration over the fields
    inputs = NodeSamplerInput.cast((None, node))
    assert isinstance(inputs, NodeSamplerInput) and inputs.node is node
    assert NodeSamplerInput.cast(inputs) is inputs and NodeSamplerInput.cast(None) is None
    input_id, seeds, time, input_type = inputs
    assert input_id is None and seeds is node and time is None and input_type is None
    links = EdgeSamplerInput.cast(dict(input_id=None, row=row, col=col))
    assert [f is None for f in links] == [True, False, False, True, True, True]
    assert SamplerOutput.cast((node, row, col, None)).node is node
    assert len(list(pyg.NodeSamplerInput.cast((None, t(node))))) == len(list(inputs))
