"""Review of the TF-GNN pipeline sweep (32c8beb): the renamed arguments of the padding and
schema functions still take their earlier keyword names (with a DeprecationWarning), and
padding indices stay in range past float32's exact integers (2**24)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("arraygnn.graph_tensor")

from arraygnn.graph_tensor import Adjacency, EdgeSet, GraphTensor, NodeSet  # noqa: E402
from arraygnn.io.schema import parse_schema, read_schema, write_schema  # noqa: E402
from arraygnn.padding import (  # noqa: E402
    SizeConstraints,
    _linspace_indices,
    assert_satisfies_size_constraints,
    assert_satisfies_total_sizes,
    pad_to_total_sizes,
    remove_padding,
    satisfies_size_constraints,
    satisfies_total_sizes,
)


def _graph():
    return GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([2]), features={})},
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=Adjacency.from_indices(("a", np.array([0])), ("a", np.array([1]))),
                features={},
            )
        },
    )


_SC = SizeConstraints(3, {"a": 6}, {"e": 4}, {"a": 1})


@pytest.mark.parametrize(
    "fn, old, new",
    [
        (pad_to_total_sizes, {"graph", "constraints"}, ("graph_tensor", "size_constraints")),
        (satisfies_total_sizes, {"graph", "constraints"}, ("graph_tensor", "total_sizes")),
        (satisfies_size_constraints, {"graph", "constraints"}, ("graph_tensor", "total_sizes")),
        (
            assert_satisfies_total_sizes,
            {"graph", "constraints"},
            ("graph_tensor", "size_constraints"),
        ),
        (
            assert_satisfies_size_constraints,
            {"graph", "constraints"},
            ("graph_tensor", "size_constraints"),
        ),
    ],
)
def test_padding_old_keywords_warn_and_work(fn, old, new):
    g = _graph()
    want = fn(g, _SC)
    with pytest.warns(DeprecationWarning, match="constraints="):
        got_kw = fn(g, constraints=_SC)
    with pytest.warns(DeprecationWarning) as rec:
        got_both = fn(graph=g, constraints=_SC)
    msgs = " ".join(str(w.message) for w in rec)
    assert "graph= has been renamed" in msgs and "constraints= has been renamed" in msgs
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new names give no warning
        got_new = fn(**{new[0]: g, new[1]: _SC})
    for got in (got_kw, got_both, got_new):
        if isinstance(want, tuple):
            assert np.array_equal(got[1], want[1])
        else:
            assert got == want
    with pytest.raises(TypeError, match="constraints"):
        fn(g, constraints=_SC, **{new[1]: _SC})


def test_schema_old_keywords_warn_and_work(tmp_path):
    text = 'node_sets { key: "a" value { } }\n'
    with pytest.warns(DeprecationWarning, match="text="):
        s = parse_schema(text=text)
    assert s == parse_schema(text)
    path = tmp_path / "graph_schema.pbtxt"
    with pytest.warns(DeprecationWarning, match="path="):
        write_schema(s, path=path)
    with pytest.warns(DeprecationWarning, match="path="):
        assert read_schema(path=path) == s


@pytest.mark.parametrize(
    "first, stop, num",
    [
        (2**24 + 1, 2**24 + 3, 5),
        (2**25 - 3, 2**25, 7),
        (2**31 - 5, 2**31 + 3, 9),
        (7, 2**24 + 7, 3),
    ],
)
def test_linspace_indices_in_range_past_float32_integers(first, stop, num):
    idx = _linspace_indices(np, np.int64, num, first, stop)
    assert idx.shape == (num,)
    assert idx.min() >= first and idx.max() <= stop - 1
    assert np.all(np.diff(idx) >= 0)


def test_padded_graph_round_trips_with_min_nodes():
    g = _graph()
    padded, mask = pad_to_total_sizes(g, _SC)
    assert mask.tolist() == [True, False, False]
    src = padded.edge_sets["e"].adjacency.source
    assert src[1:].min() >= 2 and src.max() <= 5  # padding edges join padding nodes only
    back = remove_padding(padded, mask)
    assert back.node_sets["a"].sizes.tolist() == [2]
    assert back.edge_sets["e"].adjacency.source.tolist() == [0]
    assert back.edge_sets["e"].adjacency.target.tolist() == [1]
