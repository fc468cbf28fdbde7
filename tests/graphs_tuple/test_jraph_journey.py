"""A jraph user's pipelines on the jraph face (session 9): padded dtypes that depend on
the padding targets only (one JAX trace), and hand-off errors that name the field."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.graphs_tuple import GraphsTuple


def _chain(n: int, dtype: type) -> GraphsTuple:
    """A path of ``n`` nodes with ``dtype`` ids and counts."""
    return GraphsTuple(
        np.ones((n, 1), np.float32),
        None,
        np.arange(1, n, dtype=dtype),
        np.arange(n - 1, dtype=dtype),
        None,
        np.array([n], dtype),
        np.array([n - 1], dtype),
    )


def _signature(graph: GraphsTuple) -> tuple:
    return tuple(
        (name, str(getattr(graph, name).dtype))
        for name in ("senders", "receivers", "n_node", "n_edge")
    )


@pytest.mark.parametrize(
    "dtype,n_node,size", [(np.int8, 200, 40), (np.uint8, 300, 60), (np.int16, 40_000, 8_000)]
)
def test_dynamically_batch_dtypes_depend_on_the_targets_only(dtype, n_node, size):
    # jit-compiled jraph models retrace on every new dtype: every batch padded to the same
    # sizes must come out with the same dtypes, whatever the real graphs hold (here full
    # batches need few padding nodes, the last one many)
    stream = [_chain(size, dtype) for _ in range(9)] + [_chain(3, dtype)]
    batches = list(gt.dynamically_batch(iter(stream), n_node, n_node, 10))
    assert len(batches) > 2
    assert len({_signature(b) for b in batches}) == 1
    for b in batches:  # the ids and counts are still right
        assert int(b.n_node.sum()) == n_node and int(b.n_edge.sum()) == n_node
        assert int(b.senders.max()) < n_node and int(b.senders.min()) >= 0
        real = gt.unpad_with_graphs(b)
        for g in gt.unbatch(real):
            n = int(g.n_node[0])
            assert g.receivers.tolist() == list(range(1, n))
            assert g.senders.tolist() == list(range(n - 1))


def test_pad_with_graphs_dtypes_depend_on_the_targets_only():
    small = gt.batch([_chain(3, np.int8)] * 2)
    large = gt.batch([_chain(3, np.int8)] * 30)  # 90 nodes: ids fit int8 before padding
    padded = [gt.pad_with_graphs(g, 200, 64, 40) for g in (small, large)]
    assert _signature(padded[0]) == _signature(padded[1])
    # targets that fit keep the narrow dtype
    kept = gt.pad_with_graphs(small, 100, 10, 3)
    assert kept.senders.dtype == np.int8 and kept.n_node.dtype == np.int8
    assert kept.n_node.tolist() == [3, 3, 94] and kept.senders.tolist()[-1] == 6


def test_to_jraph_strict_error_names_the_field():
    pytest.importorskip("jraph")
    g = gt.pad_with_graphs(gt.batch([_chain(3, np.int64)] * 2), 8, 6, 3)
    from arraygnn.interop import HandoffCopyError

    with pytest.raises(HandoffCopyError, match="'receivers'|'senders'|'n_node'|'n_edge'"):
        gt.to_jraph(g, strict=True)


def test_unbatch_rejects_an_edge_that_joins_two_graphs():
    # n_edge says edge 1 belongs to graph 1, but it starts at node 1 of graph 0: jraph
    # returns sender -1 (which NumPy then reads as the last node); here a ValueError
    g = GraphsTuple(
        None,
        None,
        np.array([1, 2, 3], np.int32),
        np.array([0, 1, 2], np.int32),
        None,
        np.array([2, 2], np.int32),
        np.array([1, 2], np.int32),
    )
    with pytest.raises(
        ValueError, match=r"unbatch: graph 1's senders has entry 1, outside its nodes \[2, 4\)"
    ):
        gt.unbatch(g)
    ok = g._replace(senders=np.array([0, 2, 3], np.int32), receivers=np.array([1, 3, 2], np.int32))
    assert [u.senders.tolist() for u in gt.unbatch(ok)] == [[0], [0, 1]]
