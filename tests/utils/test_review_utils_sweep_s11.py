"""Review of the session-11 utils parity sweep (commit f137fe1): to_dgl on inputs the sweep
did not try."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.utils import from_dgl, to_dgl


def test_to_dgl_without_edge_index_gives_an_edgeless_graph_as_pyg():
    # PyG's to_dgl: no edge_index (nor adj) -> a graph of data.num_nodes nodes, no edges
    data = Data(x=np.ones((3, 2), np.float32))
    g = to_dgl(data)
    assert (g.num_nodes(), g.num_edges()) == (3, 0)
    assert g.edges()[0].dtype == np.int64
    assert "edge_index" not in data  # the input is left alone
    back = from_dgl(g)
    assert back.edge_index.shape == (2, 0) and back.num_nodes == 3


def test_to_dgl_of_adj_t_names_the_function():
    import scipy.sparse as sp

    data = Data(x=np.ones((2, 1)), adj_t=sp.csr_matrix(np.eye(2)))
    with pytest.raises(ValueError, match="to_dgl.*adj_t"):
        to_dgl(data)
