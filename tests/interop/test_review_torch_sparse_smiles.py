"""Review tests for arraygnn.interop.torch_sparse, arraygnn.utils.smiles and
arraygnn.utils.tree_decomposition: memory shared with the caller only where PyG shares it
(``is_coalesced=True``), the fused coalescing path against arraygnn's ``coalesce`` and PyG
(bipartite sizes both ways, duplicates, int32 ids, sparse ids), torch sparse tensors with
batch dimensions, transposed jagged tensors, hydrogens-explicit and charged aromatic
molecules, and tree decompositions without rings / of one atom / of several fragments."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
P = pytest.importorskip("torch_geometric.utils")

from arraygnn.interop import (  # noqa: E402
    from_nested_tensor,
    from_torch_sparse,
    to_torch_coo_tensor,
    to_torch_csc_tensor,
    to_torch_csr_tensor,
)
from arraygnn.utils import coalesce, to_edge_index  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse CSC tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype"),
]

KINDS = {
    "coo": (to_torch_coo_tensor, P.to_torch_coo_tensor),
    "csr": (to_torch_csr_tensor, P.to_torch_csr_tensor),
    "csc": (to_torch_csc_tensor, P.to_torch_csc_tensor),
}


def _parts(adj):
    if adj.layout == torch.sparse_coo:
        return [adj._indices()], adj._values()
    if adj.layout == torch.sparse_csr:
        return [adj.crow_indices(), adj.col_indices()], adj.values()
    return [adj.ccol_indices(), adj.row_indices()], adj.values()


def _coalesced_input(kind, id_dtype=np.int64):
    ei = np.array([[0, 0, 1, 2, 2], [1, 2, 0, 0, 2]], dtype=id_dtype)
    if kind == "csc":  # sorted by (col, row)
        ei = coalesce(ei, num_nodes=3, sort_by_row=False)
    return np.ascontiguousarray(ei), np.arange(1.0, 6.0)


# --------------------------------------------------------------------------- sharing


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_default_copies_already_coalesced_input_as_pyg(kind, id_dtype):
    """PyG's ``is_coalesced=False`` coalesces into new tensors: an in-place op on the result
    never reaches the caller's edge_index / edge_attr (it did here: the arrays were shared)."""
    ours_fn, ref_fn = KINDS[kind]
    ei, w = _coalesced_input(kind, id_dtype)
    before = ei.copy(), w.copy()
    te, tw = torch.from_numpy(ei.copy()), torch.from_numpy(w.copy())
    ref = ref_fn(te, tw, 3)
    ref_ids, ref_vals = _parts(ref)
    assert not any(i.data_ptr() in (te.data_ptr(), te[1].data_ptr()) for i in ref_ids)
    assert ref_vals.data_ptr() != tw.data_ptr()  # PyG copies
    for attr in (w, None):
        adj = ours_fn(ei, attr, 3)
        ids, vals = _parts(adj)
        for t in ids:
            t.add_(1)
        vals.mul_(-7)
        adj.values().add_(1) if adj.layout != torch.sparse_coo else adj.mul_(3)
    np.testing.assert_array_equal(ei, before[0])
    np.testing.assert_array_equal(w, before[1])


@pytest.mark.parametrize("kind", list(KINDS))
def test_is_coalesced_true_shares_as_pyg(kind):
    """With ``is_coalesced=True`` PyG hands the caller's tensors to torch: shared (documented)."""
    ours_fn, ref_fn = KINDS[kind]
    ei, w = _coalesced_input(kind)
    te, tw = torch.from_numpy(ei), torch.from_numpy(w)
    ref = ref_fn(te, tw, 3, True)
    assert _parts(ref)[1].data_ptr() == tw.data_ptr()
    adj = ours_fn(ei, w, 3, True)
    assert _parts(adj)[1].data_ptr() == w.ctypes.data
    if kind != "coo":
        assert _parts(adj)[0][1].data_ptr() == ei[1 if kind == "csr" else 0].ctypes.data
    else:
        assert _parts(adj)[0][0].data_ptr() == ei.ctypes.data


# ------------------------------------------------------------------ coalescing path


def _random(n, m, e, seed, id_dtype, dup=False):
    rng = np.random.default_rng(seed)
    ei = np.stack([rng.integers(0, n, e), rng.integers(0, m, e)]).astype(id_dtype)
    if dup:  # many parallel edges
        ei = np.concatenate([ei, ei[:, ::2], ei[:, ::3]], axis=1)
        ei = ei[:, rng.permutation(ei.shape[1])]
    return ei


ATTRS = {
    None: lambda e, rng: None,
    "f32": lambda e, rng: rng.standard_normal(e).astype(np.float32),
    "f64x3": lambda e, rng: rng.standard_normal((e, 3)),
    "i32": lambda e, rng: rng.integers(-5, 6, e).astype(np.int32),
    "i64x2x2": lambda e, rng: rng.integers(-5, 6, (e, 2, 2)),
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("attr", list(ATTRS))
@pytest.mark.parametrize(
    ("n", "m", "e", "dup"),
    [(7, 7, 30, True), (3, 40, 60, True), (40, 3, 60, True), (50, 60, 200, False), (1, 1, 5, True)],
)
def test_unsorted_input_matches_coalesce_and_pyg(kind, id_dtype, attr, n, m, e, dup):
    ours_fn, ref_fn = KINDS[kind]
    rng = np.random.default_rng(n * 1000 + m + e)
    ei = _random(n, m, e, n + m, id_dtype, dup)
    w = ATTRS[attr](ei.shape[1], rng)
    before = ei.copy(), None if w is None else w.copy()
    adj = ours_fn(ei, w, (n, m))
    np.testing.assert_array_equal(ei, before[0])
    if w is not None:
        np.testing.assert_array_equal(w, before[1])
    # the same bits as arraygnn's coalesce (sums in edge order)
    ref_ei, ref_w = coalesce(ei.astype(np.int64), w, max(n, m), sort_by_row=kind != "csc")
    back, bw = to_edge_index(adj)
    np.testing.assert_array_equal(back, ref_ei)
    if w is None:
        assert bw.dtype == np.float32 and (bw == 1).all()
    else:
        assert bw.dtype == w.dtype
        np.testing.assert_array_equal(bw, ref_w)
    # and PyG's tensor (int32 / int64 ids only: PyG's coalesce takes no uint16)
    if id_dtype != np.uint16:
        tw = None if w is None else torch.from_numpy(w.copy())
        ref = ref_fn(torch.from_numpy(ei.copy()), tw, (n, m))
        ids, vals = _parts(adj)
        r_ids, r_vals = _parts(ref)
        assert adj.shape == ref.shape and adj.dtype == ref.dtype
        for a, b in zip(ids, r_ids):
            assert a.dtype == b.dtype and torch.equal(a, b)
        torch.testing.assert_close(vals, r_vals)


@pytest.mark.parametrize("kind", list(KINDS))
def test_sparse_ids_match_pyg(kind):
    """Ids far above the edge count (the comparison-sort fallback)."""
    ours_fn, ref_fn = KINDS[kind]
    rng = np.random.default_rng(3)
    ei = rng.integers(0, 10**6, (2, 50))
    ei = np.concatenate([ei, ei[:, :10]], axis=1)
    w = rng.standard_normal(60)
    adj = ours_fn(ei, w)
    ref = ref_fn(torch.from_numpy(ei.copy()), torch.from_numpy(w.copy()))
    for a, b in zip(_parts(adj)[0], _parts(ref)[0]):
        assert torch.equal(a, b)
    torch.testing.assert_close(_parts(adj)[1], _parts(ref)[1])


def test_ones_default_dtype_float64_on_the_unsorted_path():
    ei = _random(5, 5, 40, 0, np.int64, dup=True)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        for ours_fn, ref_fn in KINDS.values():
            adj = ours_fn(ei, None, 5)
            ref = ref_fn(torch.from_numpy(ei.copy()), None, 5)
            assert adj.dtype == ref.dtype == torch.float64
            assert torch.equal(adj.to_dense(), ref.to_dense())
    finally:
        torch.set_default_dtype(old)


# ------------------------------------------------------------------------ way back


def test_batched_compressed_tensor_is_refused_by_name():
    """A CSR tensor with a batch dimension has ``sparse_dim() == 2`` but 2-D index arrays:
    refused naming the function (was a RuntimeError from inside torch, as in PyG)."""
    batched = torch.eye(3).repeat(2, 1, 1).to_sparse_csr()
    assert batched.sparse_dim() == 2
    with pytest.raises(RuntimeError):
        P.to_edge_index(batched)
    with pytest.raises(ValueError, match="to_edge_index: adj must be a 2-D adjacency"):
        to_edge_index(batched)
    with pytest.raises(ValueError, match="from_torch_sparse: adj must be a 2-D adjacency"):
        from_torch_sparse(torch.eye(3).repeat(2, 1, 1).to_sparse_csc())
    # hybrid tensors (dense feature dimensions) stay accepted
    hybrid = torch.ones(3, 3, 2).to_sparse_csr(dense_dim=1)
    ei, w = to_edge_index(hybrid)
    ref_ei, ref_w = P.to_edge_index(hybrid)
    np.testing.assert_array_equal(ei, ref_ei.numpy())
    np.testing.assert_array_equal(w, ref_w.numpy())


# -------------------------------------------------------------------------- nested


def _jagged(pieces):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.nested.nested_tensor(pieces, layout=torch.jagged)


def test_from_nested_tensor_transposed_jagged():
    """A jagged tensor whose ragged dimension is not the first of each piece: pieces that
    differ beyond their first dimension raise as PyG's check (they gave a wrongly shaped
    array and a batch vector of the wrong length); equal pieces stack."""
    nt = _jagged([torch.ones(2, 3), torch.zeros(4, 3)]).transpose(1, 2)  # pieces (3,2), (3,4)
    with pytest.raises(ValueError, match="from_nested_tensor: not all nested tensors have the"):
        from_nested_tensor(nt, return_batch=True)
    a, b = torch.arange(6.0).reshape(2, 3), torch.arange(6.0, 12.0).reshape(2, 3)
    nt = _jagged([a, b]).transpose(1, 2)  # pieces (3, 2), (3, 2)
    out, batch = from_nested_tensor(nt, return_batch=True)
    np.testing.assert_array_equal(out, torch.cat([a.T, b.T]).numpy())
    np.testing.assert_array_equal(batch, [0, 0, 0, 1, 1, 1])
    ref_out, ref_batch = P.from_nested_tensor(torch.nested.nested_tensor([a.T, b.T]), True)
    np.testing.assert_array_equal(out, ref_out.numpy())
    np.testing.assert_array_equal(batch, ref_batch.numpy())


# -------------------------------------------------------------------------- SMILES

SMILES = [
    "C",
    "[Na+].[Cl-]",
    "CCO",
    "",
    "[H][H]",
    "[2H]C([2H])[2H]",
    "[O-][n+]1ccccc1",
    "c1cc[nH+]cc1",
    "c1cc[n-]c1",
    "[cH-]1cccc1",
    "C[n+]1ccccc1",
    "c1ccc2[nH]ccc2c1",
    "O=[N+]([O-])c1ccccc1",
    "F/C=C/F",
    "C[C@H](N)O",
    "[CH2]C",
    "c1ccsc1",
    "[se]1cccc1",
]


@pytest.mark.parametrize("smiles", SMILES)
@pytest.mark.parametrize("with_hydrogen", [False, True])
@pytest.mark.parametrize("kekulize", [False, True])
def test_smiles_round_trips_match_pyg(smiles, with_hydrogen, kekulize):
    pytest.importorskip("rdkit")
    from torch_geometric.utils import smiles as PS

    from arraygnn.utils import from_smiles, to_smiles

    ref = PS.from_smiles(smiles, with_hydrogen=with_hydrogen, kekulize=kekulize)
    ours = from_smiles(smiles, with_hydrogen=with_hydrogen, kekulize=kekulize)
    for key in ("x", "edge_index", "edge_attr"):
        np.testing.assert_array_equal(ours[key], ref[key].numpy())
        assert ours[key].dtype == np.int64
    for k in (False, True):
        assert to_smiles(ours, kekulize=k) == PS.to_smiles(ref, kekulize=k)


TD_SMILES = [
    "C",  # one atom: no clique
    "CC",  # one bond
    "CC(C)(C)C",  # no rings, a branching atom (singleton)
    "OCC(O)(CO)CO",
    "C1CC1.C1CC1",  # two fragments
    "CCO.[Na+].[Cl-]",  # fragments with isolated atoms
    "C12C3C4C1C5C2C3C45",  # cubane: bridged
    "C1CCCCC2(CCCC1)CCCCC1(CCCC2)CCCCC1",  # big rings meeting
    "C1CC11CC1",  # spiro
    "",
]


@pytest.mark.parametrize("smiles", TD_SMILES)
@pytest.mark.parametrize("with_hydrogen", [False, True])
def test_tree_decomposition_edge_cases_match_pyg(smiles, with_hydrogen):
    pytest.importorskip("rdkit")
    from rdkit import Chem

    from arraygnn.utils import tree_decomposition

    mol = Chem.MolFromSmiles(smiles)
    if with_hydrogen:
        mol = Chem.AddHs(mol)
    ref = P.tree_decomposition(mol, return_vocab=True)
    ours = tree_decomposition(mol, return_vocab=True)
    assert ours[2] == ref[2]
    for a, b in zip((ours[0], ours[1], ours[3]), (ref[0], ref[1], ref[3])):
        assert a.dtype == np.int64 and a.shape == tuple(b.shape)
        np.testing.assert_array_equal(a, b.numpy())
