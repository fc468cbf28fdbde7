"""Random graphs and helpers shared by the tests/nn files (not a test module)."""

from __future__ import annotations

import numpy as np


def random_graph(rng, num_src, num_dst=None, num_edges=None, index_dtype=np.int64, isolated=2):
    """A random multigraph with self-loops, repeated edges and ``isolated`` destination nodes
    that receive no edge (the last ones)."""
    num_dst = num_src if num_dst is None else num_dst
    num_edges = 4 * num_dst if num_edges is None else num_edges
    targets = max(num_dst - isolated, 1)
    src = rng.integers(0, num_src, num_edges)
    dst = rng.integers(0, targets, num_edges)
    if num_edges >= 4 and num_src == num_dst:
        src[:2] = dst[:2]  # self-loops
        src[2], dst[2] = src[3], dst[3]  # a repeated edge
    return np.stack([src, dst]).astype(index_dtype)


def rel_err(actual, expected) -> float:
    """max |actual - expected| / max |expected| (a scale-aware relative error)."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.size == 0:
        return 0.0
    scale = max(float(np.abs(expected).max()), 1e-30)
    return float(np.abs(actual - expected).max()) / scale


TOL = {np.float32: 1e-5, np.float64: 1e-12}


class FakeBlock:
    """Minimal DGL-style block (destination nodes are the first source nodes); used so the
    block calling form is tested even where ``arraygnn.graph`` is not available."""

    is_block = True

    def __init__(self, edge_index, num_src, num_dst):
        self._ei = edge_index
        self._ns, self._nd = num_src, num_dst

    def edges(self):
        return self._ei[0], self._ei[1]

    def number_of_src_nodes(self):
        return self._ns

    def number_of_dst_nodes(self):
        return self._nd


def dgl_typed_linear(torch, fin, fout, num_types, regularizer=None, num_bases=None):
    """A torch module with DGL ``TypedLinear``'s attributes and parameter names (DGL does
    not install here): ``W`` (and ``coeff`` for ``'basis'``), random values."""

    class TypedLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.in_size, self.out_size, self.num_types = fin, fout, num_types
            self.regularizer = regularizer
            if regularizer is None:
                self.W = torch.nn.Parameter(torch.randn(num_types, fin, fout))
            elif regularizer == "basis":
                self.num_bases = num_bases
                self.W = torch.nn.Parameter(torch.randn(num_bases, fin, fout))
                self.coeff = torch.nn.Parameter(torch.randn(num_types, num_bases))
            else:
                self.num_bases = num_bases
                size = num_bases * (fin // num_bases) * (fout // num_bases)
                self.W = torch.nn.Parameter(torch.randn(num_types, size))

    return TypedLinear()
