"""Parity sweep (s13) of transforms and utils against PyG 2.8.1, over options the other tests
leave out: get_num_hops on nested models, ComposeFilters on lists, attribute levels against
PyG's length rule, Barabasi-Albert against PyG's sequential process, get_ppr options,
train_test_split_edges on directed input, tree_decomposition(return_vocab=True), SMILES
with charges / stereo / explicit H, RootedRWSubgraph on deterministic walks and
RootedEgoNets on graphs with loops and parallel edges."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest
from _structure_helpers import run, to_pyg

import arraygnn.transforms as T
import arraygnn.utils as U
from arraygnn.data import Data
from arraygnn.transforms.attrs import attribute_levels

torch = pytest.importorskip("torch")
pyg_T = pytest.importorskip("torch_geometric.transforms")
P = pytest.importorskip("torch_geometric.utils")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ============================================================================ get_num_hops
NESTED = {
    # private arraygnn mirrors of PyG's MessagePassing classes (_GATEConv, _SparseLinear,
    # _LPAttLayer) count as their PyG namesakes
    "attentive_fp_1": lambda nn: nn.models.AttentiveFP(3, 8, 2, 1, 1, 2),
    "attentive_fp_3": lambda nn: nn.models.AttentiveFP(3, 8, 2, 3, 2, 2),
    "linkx": lambda nn: nn.models.LINKX(10, 3, 8, 2, 2),
    "lpformer": lambda nn: nn.models.LPFormer(3, 8, num_gnn_layers=2, num_transformer_layers=1),
    "deep_gcn": lambda nn: nn.DeepGCNLayer(nn.GENConv(8, 8), torch.nn.LayerNorm(8)),
    "gps": lambda nn: nn.GPSConv(8, nn.GINConv(torch.nn.Linear(8, 8)), heads=2),
    "graph_unet": lambda nn: nn.GraphUNet(3, 8, 2, depth=2),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_get_num_hops_of_nested_models_matches_pyg(name):
    import torch_geometric.nn as pyg_nn

    from arraygnn.nn import from_pyg

    model = NESTED[name](pyg_nn)
    assert U.get_num_hops(from_pyg(model)) == P.get_num_hops(model)


def test_get_num_hops_counts_subclasses_not_namesakes():
    """PyG counts every ``MessagePassing`` instance (subclasses too) and nothing else."""
    from arraygnn.nn import GCNConv, Linear
    from arraygnn.nn._module import Module

    class MyConv(GCNConv):  # a subclass of a conv: counts, as PyG's isinstance
        pass

    class Encoder(Module):  # a user's class named as ProteinMPNN's Encoder: does not
        _child_names = ("lin", "conv")

        def __init__(self):
            self.lin, self.conv = Linear(2, 2), MyConv(2, 2)

    assert U.get_num_hops(MyConv(2, 2)) == 1
    assert U.get_num_hops(Encoder()) == 1


# ============================================================================ ComposeFilters
def test_compose_filters_runs_a_filter_on_every_graph_as_pyg():
    graphs = [Data(x=np.zeros((n, 1))) for n in (1, 3, 2)]

    def make(log):
        return [
            lambda d: log.append(("a", d.num_nodes)) or d.num_nodes > 1,
            lambda d: log.append(("b", d.num_nodes)) or True,
        ]

    for data in (graphs, tuple(graphs), graphs[1], graphs[0]):
        ours_log, ref_log = [], []
        ours = T.ComposeFilters(make(ours_log))(data)
        ref_data = [to_pyg(g) for g in data] if isinstance(data, (list, tuple)) else to_pyg(data)
        ref = pyg_T.ComposeFilters(make(ref_log))(ref_data)
        assert ours is ref
        assert ours_log == ref_log
    assert T.ComposeFilters([])(graphs) is True
    with pytest.raises(TypeError, match=r"ComposeFilters: filters\[1\] must be callable"):
        T.ComposeFilters([len, 3])


# ============================================================================ attribute levels
def _pyg_levels(pd):
    node = [k for k in pd.keys() if k != "edge_index" and pd.is_node_attr(k)]
    edge = [k for k in pd.keys() if k != "edge_index" and pd.is_edge_attr(k)]
    return node, edge


def test_levels_by_pygs_rule_give_pygs_remove_isolated_nodes():
    """Where PyG's length rule is unambiguous (N != E), naming the levels it guesses gives
    PyG's result."""
    rng = np.random.default_rng(0)
    ei = np.array([[0, 1, 1, 3, 4, 4, 0], [1, 0, 3, 1, 0, 4, 4]])
    d = Data(
        x=rng.standard_normal((6, 2)).astype(np.float32),
        y=np.arange(6),
        edge_index=ei,
        edge_attr=rng.standard_normal((7, 3)).astype(np.float32),
        edge_label=np.arange(7) % 2,
        g=np.array([1.5]),
    )
    pd = to_pyg(d)
    node, edge = _pyg_levels(pd)
    assert sorted(node) == ["x", "y"] and sorted(edge) == ["edge_attr", "edge_label"]
    levels = attribute_levels("W", d, node_attrs=node, edge_attrs=edge, graph_attrs=["g"])
    assert (levels.node, levels.edge, levels.graph) == (node, edge, ["g"])
    ours = T.RemoveIsolatedNodes(node_attrs=node, edge_attrs=edge, graph_attrs=["g"])(d)
    theirs = pyg_T.RemoveIsolatedNodes()(pd)
    for key in ("x", "y", "edge_index", "edge_attr", "edge_label", "g"):
        np.testing.assert_array_equal(ours[key], theirs[key].numpy(), err_msg=key)


def test_levels_are_said_where_pyg_guesses_by_name():
    """N == E: PyG guesses by ``'edge'`` in the name; the said level wins here (documented
    in docs/transforms.md)."""
    ei = np.array([[0, 1, 3], [1, 0, 1]])
    d = Data(x=np.arange(3.0)[:, None], edge_index=ei, edge_count=np.arange(3), num_nodes=3)
    d.x = np.arange(3.0)[:, None]
    node, edge = _pyg_levels(to_pyg(Data(x=d.x, edge_index=ei, edge_count=d.edge_count)))
    assert edge == ["edge_count"]  # PyG's guess
    with pytest.raises(ValueError, match=r"W: data attribute\(s\) \['edge_count'\]"):
        attribute_levels("W", d)
    said = attribute_levels("W", d, node_attrs=["x", "edge_count"])
    assert said.node == ["x", "edge_count"] and said.edge == []


def test_attribute_levels_errors_name_the_argument():
    d = Data(x=np.ones((3, 2)), edge_index=np.array([[0, 1], [1, 2]]), w=np.ones(2), tag=["a"])
    assert attribute_levels("W", d, edge_attrs="w").edge == ["w"]  # one name as a str
    with pytest.raises(ValueError, match="W: 'x' named twice in node_attrs"):
        attribute_levels("W", d, node_attrs=["x", "x"], edge_attrs=["w"])
    with pytest.raises(ValueError, match="W: 'w' named as an edge and as a graph attribute"):
        attribute_levels("W", d, edge_attrs=["w"], graph_attrs=["w"])
    with pytest.raises(ValueError, match="W: 'w' named as a node and as an edge attribute"):
        attribute_levels("W", d, node_attrs=["x", "w"], edge_attrs=["w"])
    with pytest.raises(TypeError, match="W: node_attrs must be a list of attribute names"):
        attribute_levels("W", d, node_attrs=b"x")
    with pytest.raises(ValueError, match="W: 'edge_index' is the graph's structure"):
        attribute_levels("W", d, edge_attrs=["w", "edge_index"])
    # a list is not an array: kept as it is (graph level), refused per node
    assert attribute_levels("W", d, edge_attrs=["w"], graph_attrs=["tag"]).graph == ["tag"]
    with pytest.raises(ValueError, match="W: node attribute 'tag' must have 3 rows"):
        attribute_levels("W", d, node_attrs=["x", "tag"], edge_attrs=["w"])


# ============================================================================ Barabasi-Albert
def _pyg_process(n, m, seed):
    """PyG's loop (torch_geometric/utils/random.py) with our draws: node ``i`` picks
    ``floor(u * len(pool))`` of ``cat([row, col])`` for each of its ``num_edges`` targets."""
    rng = np.random.default_rng(seed)
    u = rng.random((n - m) * m)
    row, col = torch.arange(m), torch.from_numpy(rng.permutation(m))
    for k, i in enumerate(range(m, n)):
        row = torch.cat([row, torch.full((m,), i, dtype=torch.long)])
        pool = torch.cat([row, col])
        pick = np.floor(u[k * m : (k + 1) * m] * pool.shape[0]).astype(np.int64)
        col = torch.cat([col, pool[torch.from_numpy(pick)]])
    ei, _ = P.remove_self_loops(torch.stack([row, col]))
    return P.to_undirected(ei, num_nodes=n).numpy()


@pytest.mark.parametrize(("n", "m", "seed"), [(5, 1, 0), (12, 3, 1), (40, 4, 2), (60, 2, 3)])
def test_barabasi_albert_is_pygs_process_with_our_draws(n, m, seed):
    ours = U.barabasi_albert_graph(n, m, seed=seed)
    np.testing.assert_array_equal(ours, _pyg_process(n, m, seed))
    assert ours.dtype == np.int64
    # invariants: simple, undirected, each later node has at most m earlier neighbours
    assert (ours[0] != ours[1]).all()
    pairs = set(map(tuple, ours.T.tolist()))
    assert all((b, a) in pairs for a, b in pairs)
    earlier = np.bincount(ours[0][ours[1] < ours[0]], minlength=n)
    assert (earlier[m:] <= m).all()


# ============================================================================ get_ppr
def _dense(ei, w, n):
    out = np.zeros((n, n))
    np.add.at(out, (ei[0], ei[1]), w)
    return out


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0])
@pytest.mark.parametrize("eps", [1e-2, 1e-6])
def test_get_ppr_options_match_pyg_with_int32_ids(alpha, eps):
    rng = np.random.default_rng(int(alpha * 100) + int(-np.log10(eps)))
    n = 15
    ei = rng.integers(0, n, (2, 40)).astype(np.int32)
    target = np.array([3, 0, 7, 3], dtype=np.int32)
    ours_ei, ours_w = U.get_ppr(ei, alpha, eps, target=target, num_nodes=n)
    ref_ei, ref_w = P.get_ppr(
        torch.from_numpy(ei).long(), alpha, eps, torch.from_numpy(target).long(), n
    )
    assert ours_ei.dtype == np.int64 and ours_w.dtype == np.float32
    # the sources in target order, each vector starting with the source, as PyG's
    firsts = np.flatnonzero(np.diff(ours_ei[0], prepend=-1) != 0)
    np.testing.assert_array_equal(ours_ei[0][firsts], [3, 0, 7, 3])
    np.testing.assert_array_equal(ours_ei[1][firsts], [3, 0, 7, 3])
    np.testing.assert_array_equal(np.unique(ours_ei[0]), np.unique(ref_ei[0].numpy()))
    tol = 4 * eps * np.bincount(ei[0], minlength=n).max()
    np.testing.assert_allclose(
        _dense(ours_ei, ours_w, n), _dense(ref_ei.numpy(), ref_w.numpy(), n), atol=tol
    )
    if alpha == 1.0:  # all mass stays at the source (its neighbours listed with 0, as PyG)
        np.testing.assert_array_equal(ours_w[firsts], 1.0)
        assert ours_w.sum() == 4.0 and ours_ei.shape == tuple(ref_ei.shape)


# ======================================================================= train_test_split_edges
@pytest.mark.parametrize("ratios", [(0.5, 0.5), (0.7, 0.6), (0.0, 0.3)])
def test_train_test_split_edges_directed_input_matches_pyg(monkeypatch, ratios):
    """Directed input with self-loops and edges only ``row > col``: only ``row < col``
    edges are split, as PyG; ratios summing past 1 leave train empty, as PyG."""
    n = 9
    ei = np.array([[0, 0, 1, 2, 3, 5, 5, 6, 7, 8, 4], [1, 2, 2, 2, 7, 6, 5, 1, 3, 0, 4]])
    d = Data(edge_index=ei, num_nodes=n, x=np.arange(n, dtype=np.float32)[:, None])
    ours = _quiet(U.train_test_split_edges, d, *ratios, seed=7)
    draw = np.random.default_rng(7)
    monkeypatch.setattr(
        torch, "randperm", lambda k, *a, **kw: torch.from_numpy(draw.permutation(k))
    )
    theirs = _quiet(P.train_test_split_edges, to_pyg(d), *ratios)
    keys = sorted(k for k in theirs.keys() if k != "num_nodes")
    assert keys == sorted(k for k in ours.keys() if k != "num_nodes")
    for k in keys:
        np.testing.assert_array_equal(ours[k], theirs[k].numpy(), err_msg=k)
    # shapes, disjointness and the negative mask
    m = int((ei[0] < ei[1]).sum())
    n_v, n_t = int(np.floor(ratios[0] * m)), int(np.floor(ratios[1] * m))
    assert ours.val_pos_edge_index.shape == (2, min(n_v, m))
    assert ours.test_pos_edge_index.shape == (2, min(n_t, m - min(n_v, m)))
    pos = [
        set(map(tuple, ours[k].T.tolist())) for k in ("val_pos_edge_index", "test_pos_edge_index")
    ]
    train = {(a, b) for a, b in ours.train_pos_edge_index.T.tolist() if a < b}
    assert not (pos[0] & pos[1]) and not (train & (pos[0] | pos[1]))
    mask = ours.train_neg_adj_mask
    assert mask.dtype == bool and not np.tril(mask).any()
    for k in ("val_neg_edge_index", "test_neg_edge_index"):
        assert not mask[ours[k][0], ours[k][1]].any()


# ============================================================================ molecules
Chem = pytest.importorskip("rdkit.Chem")

TD = ["c1ccccc1CC1CC1", "OC(=O)c1ccccc1C#N", "C1CC2CCC1C2", "c1ccc2ccccc2c1", "CC1(C)C2CCC1C2"]


@pytest.mark.parametrize("smiles", TD)
def test_tree_decomposition_with_vocab_matches_pyg(smiles):
    mol = Chem.MolFromSmiles(smiles)
    ours = U.tree_decomposition(mol, return_vocab=True)
    ref = P.tree_decomposition(mol, return_vocab=True)
    assert len(ours) == len(ref) == 4
    for i in (0, 1, 3):
        assert isinstance(ours[i], np.ndarray) and ours[i].dtype == np.int64
        np.testing.assert_array_equal(ours[i], ref[i].numpy())
    assert ours[2] == ref[2] and isinstance(ours[2], int)


MOLS = [
    "C[N+](C)(C)C",  # a charged atom without H
    "[NH3+][C@@H](C)C(=O)[O-]",  # zwitterion, stereo centre
    "C[S@@](=O)c1ccccc1",  # stereo sulfur, aromatic ring
    "C/C=C(/F)Cl",  # stereo double bond
    "[2H][C@@H](O)F",  # explicit isotope H on a stereo centre
    "O=C1C=CC(=O)C=C1",  # quinone (Kekulé only)
    "F[P-](F)(F)(F)(F)F",  # hexavalent anion
]


@pytest.mark.parametrize("smiles", MOLS)
def test_smiles_options_match_pyg(smiles):
    from torch_geometric.utils import smiles as PS

    for with_h in (False, True):
        for kek in (False, True):
            ours = U.from_smiles(smiles, with_hydrogen=with_h, kekulize=kek)
            ref = PS.from_smiles(smiles, with_hydrogen=with_h, kekulize=kek)
            for key in ("x", "edge_index", "edge_attr"):
                np.testing.assert_array_equal(ours[key], ref[key].numpy(), err_msg=key)
            for k in (False, True):
                assert U.to_smiles(ours, kekulize=k) == PS.to_smiles(ref, kekulize=k)
                a, b = U.to_rdmol(ours, kekulize=k), PS.to_rdmol(ref, kekulize=k)
                assert Chem.MolToMolBlock(a) == Chem.MolToMolBlock(b)
    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))  # explicit H atoms in the molecule
    ours, ref = U.from_rdmol(mol), PS.from_rdmol(mol)
    for key in ("x", "edge_index", "edge_attr"):
        np.testing.assert_array_equal(ours[key], ref[key].numpy(), err_msg=key)


# ============================================================================ rooted subgraphs
#: out-degree at most one: every walk is fixed (node 5 has no out-edge and stays)
SUCC = {0: 1, 1: 2, 2: 3, 3: 0, 4: 0, 6: 5}


def _fixed_walks(n, walk_length, repeat):
    walks = []
    for i in range(n):
        w = [i]
        for _ in range(walk_length):
            w.append(SUCC.get(w[-1], w[-1]))
        walks += [w] * repeat
    return torch.tensor(walks, dtype=torch.long)


@pytest.mark.parametrize("walk_length", [0, 1, 5])
@pytest.mark.parametrize("repeat", [1, 2])
def test_rooted_rw_subgraph_on_fixed_walks_matches_pyg(monkeypatch, walk_length, repeat):
    n = 7
    ei = np.array([list(SUCC), list(SUCC.values())], dtype=np.int32)
    d = Data(edge_index=ei, num_nodes=n, x=np.arange(n, dtype=np.float32)[:, None])
    d.edge_attr = np.arange(ei.shape[1], dtype=np.float32)
    walk = _fixed_walks(n, walk_length, repeat)
    fake = types.SimpleNamespace(random_walk=lambda *a: walk)
    monkeypatch.setattr(torch.ops, "pyg", fake, raising=False)
    out = run(
        T.RootedRWSubgraph(walk_length, repeat, seed=0),
        pyg_T.RootedRWSubgraph(walk_length, repeat),
        d,
    )
    # the same nodes as the ego nets along the successor chain
    for i in range(n):
        chain = set(walk[i * repeat].tolist())
        assert set(out.n_id[out.n_sub_batch == i].tolist()) == chain
    theirs = pyg_T.RootedRWSubgraph(walk_length, repeat)(to_pyg(d)).map_data()
    mapped = out.map_data()
    for key in ("x", "edge_attr", "edge_index"):
        np.testing.assert_array_equal(mapped[key], theirs[key].numpy(), err_msg=key)


@pytest.mark.parametrize("hops", [1, 5])
def test_rooted_ego_nets_with_loops_parallel_edges_and_levels_match_pyg(hops):
    ei = np.array([[0, 0, 1, 1, 2, 3, 3, 5, 6], [1, 1, 1, 2, 0, 4, 3, 6, 5]], dtype=np.int64)
    n = 8  # node 7 isolated
    rng = np.random.default_rng(4)
    d = Data(
        edge_index=ei,
        num_nodes=n,
        x=rng.standard_normal((n, 2)).astype(np.float32),
        y=np.arange(n),
        edge_weight=rng.random(ei.shape[1]).astype(np.float32),
    )
    with pytest.raises(ValueError, match=r"RootedEgoNets: data attribute\(s\) \['y'\]"):
        T.RootedEgoNets(hops)(d)
    ours_t = T.RootedEgoNets(hops, node_attrs=["x", "y"])
    out = run(ours_t, pyg_T.RootedEgoNets(hops), d)
    theirs = pyg_T.RootedEgoNets(hops)(to_pyg(d)).map_data()
    mapped = out.map_data(node_attrs=["x", "y"])
    for key in ("x", "y", "edge_weight", "edge_index", "n_sub_batch"):
        np.testing.assert_array_equal(mapped[key], theirs[key].numpy(), err_msg=key)
