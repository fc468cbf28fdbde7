"""PyG's ``tree_decomposition``: the junction tree of a molecule (JT-VAE, Jin et al. 2018).

The cliques are the molecule's smallest rings (RDKit's symmetrized SSSR) and its bonds
outside rings; rings sharing more than two atoms merge into one bridged clique, and an atom
where three or more bonds (or two bonds and a ring, or three big rings) meet becomes a
singleton clique of its own. Cliques sharing atoms are joined with weight
``100 - shared atoms`` (``100 - 99`` towards a big-ring singleton), and the junction tree
is the minimum spanning tree (SciPy) of that clique graph, made undirected.

Same algorithm, clique order and results as PyG 2.8 on NumPy arrays: the clique graph goes
through :func:`arraygnn.utils.to_scipy_sparse_matrix`, SciPy's ``minimum_spanning_tree``,
:func:`arraygnn.utils.from_scipy_sparse_matrix` and :func:`arraygnn.utils.to_undirected`
(no torch). The cliques themselves are found in Python over RDKit's atoms and bonds, as PyG.

RULE: the optional ``rdkit`` package (``pip install arraygnn[rdkit]``) is imported when
called.

>>> from rdkit import Chem
>>> from arraygnn.utils import tree_decomposition
>>> edge_index, atom2clique, num_cliques, vocab = tree_decomposition(
...     Chem.MolFromSmiles("c1ccccc1CC(=O)O"), return_vocab=True)
>>> num_cliques, vocab.tolist()  # the ring, four bonds, one singleton (the branching C)
(6, [0, 1, 1, 1, 1, 3])
>>> edge_index.tolist()
[[0, 1, 1, 2, 2, 3, 4, 5, 5, 5], [1, 0, 2, 1, 5, 5, 5, 2, 3, 4]]
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from arraygnn.interop.scipy import from_scipy_sparse_matrix, to_scipy_sparse_matrix
from arraygnn.utils.undirected import to_undirected

__all__ = ["tree_decomposition"]

#: ``vocab`` codes of the cliques, PyG's
RING, BOND, BRIDGED, SINGLE = 0, 1, 2, 3


def _cliques_of_atoms(num_atoms: int, cliques: list[list[int]]) -> list[list[int]]:
    """For each atom, the ids of the cliques holding it, in clique order."""
    out: list[list[int]] = [[] for _ in range(num_atoms)]
    for c, members in enumerate(cliques):
        for atom in members:
            out[atom].append(c)
    return out


def tree_decomposition(mol: Any, return_vocab: bool = False) -> tuple[Any, ...]:
    """``(edge_index, atom2clique, num_cliques)`` of an ``rdkit.Chem.Mol``, with ``vocab``
    appended when ``return_vocab=True`` (PyG's ``tree_decomposition``).

    - ``edge_index`` [2, 2T] int64: the junction tree over the cliques, both directions,
      sorted by row (a forest for a molecule of several fragments; [2, 0] without edges);
    - ``atom2clique`` [2, M] int64: pairs ``(atom, clique)``, by atom then clique;
    - ``num_cliques``: a Python int;
    - ``vocab`` [num_cliques] int64: 0 ring, 1 bond, 2 bridged rings, 3 singleton atom.

    The molecule is not modified.
    """
    from scipy.sparse.csgraph import minimum_spanning_tree

    from arraygnn.utils._checks import bool_arg
    from arraygnn.utils.smiles import _rdkit

    where = "tree_decomposition"
    Chem = _rdkit(where)
    if not isinstance(mol, Chem.Mol):
        raise TypeError(f"{where}: mol must be an rdkit.Chem.Mol, got {type(mol).__name__}")
    return_vocab = bool_arg(where, "return_vocab", return_vocab)
    num_atoms = mol.GetNumAtoms()

    # rings, then the bonds outside rings
    cliques: list[list[int]] = [list(ring) for ring in Chem.GetSymmSSSR(mol)]
    kinds: list[int] = [RING] * len(cliques)
    for bond in mol.GetBonds():
        if not bond.IsInRing():
            cliques.append([bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()])
            kinds.append(BOND)

    # merge rings sharing more than two atoms (bridged systems), in PyG's order: the
    # membership lists stay those from before the merge, and a merged ring empties
    member_of = _cliques_of_atoms(num_atoms, cliques)
    for c1 in range(len(cliques)):
        for atom in cliques[c1]:
            for c2 in member_of[atom]:
                if c1 >= c2 or len(cliques[c1]) <= 2 or len(cliques[c2]) <= 2:
                    continue
                if len(set(cliques[c1]) & set(cliques[c2])) > 2:
                    cliques[c1] = list(set(cliques[c1]) | set(cliques[c2]))
                    kinds[c1] = BRIDGED
                    cliques[c2] = []
                    kinds[c2] = -1
    cliques = [c for c in cliques if c]
    kinds = [k for k in kinds if k >= 0]

    # singleton cliques where several cliques meet, and the weighted clique graph
    member_of = _cliques_of_atoms(num_atoms, cliques)
    weights: dict[tuple[int, int], int] = {}  # insertion order is the matrix's entry order
    for atom in range(num_atoms):
        cs = member_of[atom]
        if len(cs) <= 1:
            continue
        n_bonds = sum(1 for c in cs if len(cliques[c]) == 2)
        n_big_rings = sum(1 for c in cs if len(cliques[c]) > 4)
        if n_bonds > 2 or (n_bonds == 2 and len(cs) > 2) or n_big_rings > 2:
            weight = 1 if n_bonds > 2 or (n_bonds == 2 and len(cs) > 2) else 99
            cliques.append([atom])
            kinds.append(SINGLE)
            for c in cs:
                weights[(c, len(cliques) - 1)] = weight
        else:
            for i, c1 in enumerate(cs):
                for c2 in cs[i + 1 :]:
                    shared = len(set(cliques[c1]) & set(cliques[c2]))
                    weights[(c1, c2)] = min(shared, weights.get((c1, c2), 99))
    num_cliques = len(cliques)
    member_of = _cliques_of_atoms(num_atoms, cliques)

    if weights:
        pairs = np.array(list(weights), dtype=np.int64).T
        inv_weight = 100 - np.array(list(weights.values()), dtype=np.int64)
        graph = to_scipy_sparse_matrix(pairs, inv_weight, num_cliques)
        tree, _ = from_scipy_sparse_matrix(minimum_spanning_tree(graph))
        edge_index = to_undirected(tree, num_nodes=num_cliques)
    else:
        edge_index = np.empty((2, 0), dtype=np.int64)

    atoms = [atom for atom in range(num_atoms) for _ in member_of[atom]]
    atom2clique = np.array([atoms, list(chain.from_iterable(member_of))], dtype=np.int64).reshape(
        2, -1
    )
    if return_vocab:
        return edge_index, atom2clique, num_cliques, np.array(kinds, dtype=np.int64)
    return edge_index, atom2clique, num_cliques
