"""Review of the DGL heterograph journey (session 10): ``g[...]`` over several edge types
against DGL's ``__getitem__`` / ``FlattenImpl`` (dmlc/dgl python/dgl/heterograph.py,
src/graph/heterograph.cc)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import EID, ETYPE, NID, NTYPE, heterograph


def _g(idtype):
    # DGL's __getitem__ docstring graph
    return heterograph(
        {
            ("A1", "AB1", "B"): (np.array([0, 1, 2], idtype), np.array([1, 2, 3], idtype)),
            ("A1", "AB2", "B"): (np.array([1, 2, 3], idtype), np.array([3, 4, 5], idtype)),
            ("A2", "AB2", "B"): (np.array([1, 3, 5], idtype), np.array([2, 4, 6], idtype)),
        }
    )


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_flattened_graph_id_dtypes_follow_dgl(idtype):
    # FlattenImpl: induced_srctype / induced_srcid come from VecToIdArray (64 bits by
    # default), induced_etype is aten::Full(..., NumBits()) and induced_eid the edge ids:
    # NTYPE / NID int64, ETYPE / EID the graph's idtype
    f = _g(idtype)[:, "AB2", "B"]
    for t in ("A1+A2", "B"):
        assert f.nodes[t].data[NTYPE].dtype == np.int64
        assert f.nodes[t].data[NID].dtype == np.int64
    assert f.edata[ETYPE].dtype == idtype
    assert f.edata[EID].dtype == idtype
    assert f.edata[ETYPE].tolist() == [1, 1, 1, 2, 2, 2]
    assert f.nodes["A1+A2"].data[NID].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 4, 5]


def test_ambiguous_etype_name_gives_the_flattened_graph_as_dgl():
    # DGL: a key that is not a tuple is (':', key, ':'), so g['AB2'] matches two edge types
    # and gives the same flattened graph as g[:, 'AB2', :]
    g = _g(np.int64)
    f, want = g["AB2"], g[:, "AB2", :]
    assert f.canonical_etypes == want.canonical_etypes == [("A1+A2", "AB2+AB2", "B")]
    for a, b in zip(f.edges(), want.edges()):
        np.testing.assert_array_equal(a, b)
    assert g["AB1"].canonical_etypes == [("A1", "AB1", "B")]  # one match: the relation
    with pytest.raises(KeyError, match="does not exist"):
        g["AB3"]
