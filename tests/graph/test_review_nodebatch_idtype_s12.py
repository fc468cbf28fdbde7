"""``nodes.nodes()`` in reduce / apply UDFs is in the graph's idtype, as DGL's."""

import numpy as np
import pytest

from arraygnn import function as fn
from arraygnn.graph import graph


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_node_batch_ids_take_the_graphs_idtype(idtype):
    g = graph((np.array([0, 1, 2, 2]), np.array([1, 2, 0, 1])), num_nodes=4, idtype=idtype)
    g.ndata["h"] = np.arange(4.0)
    seen = []

    def reduce(nodes):
        seen.append(nodes.nodes())
        return {"s": nodes.mailbox["m"].sum(1)}

    def apply(nodes):
        seen.append(nodes.nodes())
        return {"t": nodes.data["s"] * 2}

    g.update_all(fn.copy_u("h", "m"), reduce, apply)
    g.apply_nodes(lambda nodes: seen.append(nodes.nodes()) or {"u": nodes.data["h"]})
    g.apply_nodes(lambda nodes: seen.append(nodes.nodes()) or {"v": nodes.data["h"][:2]}, [0, 3])
    g.pull([3, 1], fn.copy_u("h", "m"), reduce)
    assert seen and all(ids.dtype == np.dtype(idtype) for ids in seen)
    np.testing.assert_array_equal(g.ndata["t"], [4.0, 4.0, 2.0, 0.0])
