"""Odd inputs found by fuzzing the DGL face: narrow id dtypes, feature copies in blocks and
frontiers, DGL's edge type order, edata keyed by etype name, fan-out dicts, degree scalars."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import EID, NID, graph, heterograph, to_block
from arraygnn.sampling import sample_blocks, sample_neighbors


# ---------------------------------------------------------------------- idtype
@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64, ">i8", ">i4"]
)
def test_ids_of_other_dtypes_become_int64(dtype):
    src, dst = np.array([0, 1], dtype), np.array([1, 2], dtype)
    g = graph((src, dst), num_nodes=300)
    assert g.idtype == np.int64
    assert g.edges()[0].dtype == np.int64 and g.nodes().dtype == np.int64
    np.testing.assert_array_equal(g.nodes()[-2:], [298, 299])
    np.testing.assert_array_equal(src, [0, 1])  # the input is not touched
    g.ndata["x"] = np.arange(300.0)
    sg = g.subgraph([1, 290])
    np.testing.assert_array_equal(sg.ndata[NID], [1, 290])
    np.testing.assert_array_equal(sg.ndata["x"], [1.0, 290.0])


def test_int32_and_int64_ids_are_kept_as_they_are():
    src32, dst32 = np.array([0, 1], np.int32), np.array([1, 2], np.int32)
    g32 = graph((src32, dst32), num_nodes=3)
    assert g32.idtype == np.int32 and g32.edges()[0] is src32
    assert g32.subgraph([0, 1]).ndata[NID].dtype == np.int32
    src64 = np.array([0, 1])
    assert graph((src64, np.array([1, 2]))).edges()[0] is src64


def test_int32_graph_too_large_for_int32_uses_int64():
    g = graph((np.array([0], np.int32), np.array([1], np.int32)), num_nodes=2**31)
    assert g.idtype == np.int64 and g.edges()[0].dtype == np.int64


def test_int16_edge_ids_past_int16_do_not_wrap():
    rng = np.random.default_rng(0)
    e = 40000
    src = rng.integers(0, 100, e).astype(np.int16)
    dst = rng.integers(0, 100, e).astype(np.int16)
    g = graph((src, dst), num_nodes=100)
    np.testing.assert_array_equal(g.edges(form="eid"), np.arange(e))
    np.testing.assert_array_equal(to_block(g).edata[EID], np.arange(e))
    g.apply_edges(lambda edges: {"eid": edges.edges()[2]})
    np.testing.assert_array_equal(g.edata["eid"], np.arange(e))
    g.edata["w"] = np.arange(e, dtype=np.float64)
    g.apply_edges(fn.copy_e("w", "w2"), edges=[33000])
    assert g.edata["w2"][33000] == 33000.0 and g.edata["w2"].sum() == 33000.0


def test_hetero_relations_share_one_idtype():
    g = heterograph(
        {
            ("a", "r", "b"): (np.array([0], np.uint8), np.array([0], np.uint8)),
            ("b", "s", "a"): (np.array([0, 1]), np.array([299, 0])),
        },
        {"a": 300, "b": 2},
    )
    assert g.idtype == np.int64
    assert all(g.edges(etype=c)[0].dtype == np.int64 for c in g.canonical_etypes)
    sg = g.subgraph({"a": [0, 299], "b": [0, 1]})
    np.testing.assert_array_equal(sg.nodes["a"].data[NID], [0, 299])
    np.testing.assert_array_equal(sg.edges(etype="s")[1], [1, 0])
    mixed = heterograph(
        {
            ("a", "r", "b"): (np.array([0], np.int32), np.array([0], np.int32)),
            ("b", "s", "a"): (np.array([0]), np.array([0])),
        }
    )
    assert mixed.idtype == np.int64
    assert mixed.edges(etype="r")[0].dtype == np.int64


def test_sampling_the_largest_uint8_id():
    g = graph((np.array([0], np.uint8), np.array([255], np.uint8)), num_nodes=256)
    fr = sample_neighbors(g, np.array([255]), 5, seed=0)
    np.testing.assert_array_equal(fr.edata[EID], [0])
    np.testing.assert_array_equal(fr.edges()[1], [255])


def test_bad_id_values():
    with pytest.raises(ValueError, match="larger than int64"):
        graph((np.array([2**63], np.uint64), np.array([0], np.uint64)))
    with pytest.raises(TypeError, match="must hold integers"):
        graph(([0.5, 1.0], [1, 0]))
    g = graph((np.array([0, 1]), np.array([1, 2])))
    with pytest.raises(TypeError, match="must hold integers"):
        g.subgraph([0.5])


# ---------------------------------------------------------------------- features in blocks
def test_to_block_copies_node_features_to_both_sides():
    g = graph((np.array([0, 1, 2]), np.array([2, 2, 1])), num_nodes=3)
    g.ndata["feat"] = np.arange(3.0)[:, None]
    b = to_block(g, np.array([2, 1]))
    np.testing.assert_array_equal(b.srcdata[NID], [2, 1, 0])
    np.testing.assert_array_equal(b.srcdata["feat"][:, 0], [2.0, 1.0, 0.0])
    np.testing.assert_array_equal(b.dstdata["feat"][:, 0], [2.0, 1.0])
    assert list(g.ndata) == ["feat"]  # the input graph is not touched
    sg = g.subgraph([2, 1, 0])  # NID of the input is replaced by ids in the input (DGL)
    np.testing.assert_array_equal(to_block(sg, np.array([0, 1])).dstdata[NID], [0, 1])


def test_hetero_to_block_copies_node_features_per_type():
    g = heterograph(
        {
            ("user", "plays", "game"): (np.array([0, 2]), np.array([1, 1])),
            ("user", "follows", "user"): (np.array([1]), np.array([0])),
        },
        {"user": 3, "game": 2},
    )
    g.nodes["user"].data["x"] = np.array([10.0, 11.0, 12.0])
    g.nodes["game"].data["x"] = np.array([20.0, 21.0])
    b = to_block(g, {"game": np.array([1]), "user": np.array([0])})
    np.testing.assert_array_equal(b.srcnodes["user"].data["x"], [10.0, 11.0, 12.0])
    np.testing.assert_array_equal(b.dstnodes["user"].data["x"], [10.0])
    np.testing.assert_array_equal(b.srcnodes["game"].data["x"], [21.0])
    np.testing.assert_array_equal(b.dstnodes["game"].data["x"], [21.0])


def test_sample_neighbors_copy_ndata_and_copy_edata():
    g = graph((np.array([0, 1, 2]), np.array([2, 2, 1])), num_nodes=3)
    g.ndata["feat"] = np.arange(3.0)
    g.edata["w"] = np.array([5.0, 6.0, 7.0])
    fr = sample_neighbors(g, np.array([2]), 2, seed=0)
    assert fr.ndata["feat"] is g.ndata["feat"]  # shared, as DGL
    np.testing.assert_array_equal(fr.edata["w"], [5.0, 6.0])
    fr.ndata["new"] = np.ones(3)
    assert "new" not in g.ndata
    bare = sample_neighbors(g, np.array([2]), 2, seed=0, copy_ndata=False, copy_edata=False)
    assert list(bare.ndata) == [] and list(bare.edata) == [EID]
    hg = heterograph(
        {
            ("u", "f", "u"): (np.array([0, 1]), np.array([2, 2])),
            ("g", "r", "u"): (np.array([0]), np.array([2])),
        }
    )
    hg.nodes["g"].data["x"] = np.ones(1)
    hfr = sample_neighbors(hg, {"u": [2]}, 1, seed=0)
    assert hfr.nodes["g"].data["x"] is hg.nodes["g"].data["x"]


def test_sample_blocks_on_a_subgraph_carry_features_and_ids_in_that_graph():
    rng = np.random.default_rng(1)
    full = graph((rng.integers(0, 30, 200), rng.integers(0, 30, 200)), num_nodes=30)
    full.ndata["x"] = rng.normal(size=(30, 2))
    g = full.subgraph(np.arange(5, 25))
    input_nodes, _, blocks = sample_blocks(g, np.array([0, 3]), [3, 3], seed=0)
    np.testing.assert_array_equal(blocks[0].srcdata[NID], input_nodes)
    assert input_nodes.max() < 20
    np.testing.assert_array_equal(blocks[0].srcdata["x"], g.ndata["x"][input_nodes])
    np.testing.assert_array_equal(blocks[-1].dstdata[NID], [0, 3])


# ---------------------------------------------------------------------- edge type order
def test_canonical_etypes_are_sorted_and_stack_follows_them():
    g = heterograph(
        {
            ("user", "plays", "game"): (np.array([0]), np.array([0])),
            ("dev", "makes", "game"): (np.array([0]), np.array([0])),
        }
    )
    assert g.canonical_etypes == [("dev", "makes", "game"), ("user", "plays", "game")]
    assert g.etypes == ["makes", "plays"] and g.ntypes == ["dev", "game", "user"]
    g.nodes["user"].data["h"] = np.array([[1.0]])
    g.nodes["dev"].data["h"] = np.array([[2.0]])
    g.multi_update_all(
        {
            "plays": (fn.copy_u("h", "m"), fn.sum("m", "o")),
            "makes": (fn.copy_u("h", "m"), fn.sum("m", "o")),
        },
        "stack",
    )
    np.testing.assert_array_equal(g.nodes["game"].data["o"][:, :, 0], [[2.0, 1.0]])
    b = to_block(g, {"game": np.array([0])})
    assert b.canonical_etypes == g.canonical_etypes


# ---------------------------------------------------------------------- edata by etype name
def test_hetero_edata_set_by_etype_name_or_triple():
    g = heterograph(
        {
            ("user", "plays", "game"): (np.array([0]), np.array([0])),
            ("dev", "makes", "game"): (np.array([0, 0]), np.array([0, 0])),
        }
    )
    g.edata["w"] = {"plays": np.ones(1), ("dev", "makes", "game"): np.zeros(2)}
    np.testing.assert_array_equal(g.edges["plays"].data["w"], [1.0])
    np.testing.assert_array_equal(g.edata["w"][("dev", "makes", "game")], [0.0, 0.0])
    with pytest.raises(KeyError, match="does not exist"):
        g.edata["v"] = {"likes": np.ones(1)}
    with pytest.raises(ValueError, match="given twice"):
        g.edata["v"] = {"plays": np.ones(1), ("user", "plays", "game"): np.ones(1)}
    with pytest.raises(ValueError, match="holds 2 rows"):
        g.edata["v"] = {"plays": np.ones(1), "makes": np.ones(3)}
    assert "v" not in g.edges["plays"].data  # nothing is set when one entry is bad
    amb = heterograph(
        {
            ("a", "r", "a"): (np.array([0]), np.array([0])),
            ("a", "r", "b"): (np.array([0]), np.array([0])),
        }
    )
    with pytest.raises(KeyError, match="ambiguous"):
        amb.edata["w"] = {"r": np.ones(1)}


# ---------------------------------------------------------------------- fan-out dicts
def test_fanout_dict_must_name_every_edge_type():
    g = heterograph(
        {
            ("u", "follows", "u"): (np.array([0, 1]), np.array([2, 2])),
            ("g", "rev", "u"): (np.array([0, 1]), np.array([2, 2])),
        }
    )
    with pytest.raises(ValueError, match=r"each edge type.*\('g', 'rev', 'u'\)"):
        sample_neighbors(g, {"u": [2]}, {"follows": 5}, seed=0)
    fr = sample_neighbors(g, {"u": [2]}, {"follows": 5, ("g", "rev", "u"): 1}, seed=0)
    assert fr.num_edges("follows") == 2 and fr.num_edges("rev") == 1
    with pytest.raises(ValueError, match="given twice"):
        sample_neighbors(g, {"u": [2]}, {"follows": 1, ("u", "follows", "u"): 1, "rev": 1})
    with pytest.raises(TypeError, match="must be an int"):
        sample_neighbors(g, {"u": [2]}, {"follows": 1.5, "rev": 1})


# ---------------------------------------------------------------------- degrees, blocks
def test_degrees_of_one_node_are_ints():
    g = graph((np.array([0, 1]), np.array([1, 1])))
    assert g.in_degrees(1) == 2 and type(g.in_degrees(1)) is int
    assert g.out_degrees(np.int64(0)) == 1 and type(g.out_degrees(np.int64(0))) is int
    np.testing.assert_array_equal(g.in_degrees([1]), [2])
    with pytest.raises(TypeError, match="must be integers"):
        g.in_degrees(True)
    with pytest.raises(ValueError, match="contains id 5"):
        g.in_degrees(5)


def test_block_nodes_by_type_is_ambiguous():
    g = graph((np.array([0, 1]), np.array([1, 1])), num_nodes=2)
    g.ndata["x"] = np.ones(2)
    b = to_block(g, np.array([1]))
    with pytest.raises(ValueError, match="ambiguous on a block"):
        _ = b.nodes["_N"].data
    np.testing.assert_array_equal(b.srcnodes["_N"].data[NID], [1, 0])
    np.testing.assert_array_equal(b.dstnodes["_N"].data[NID], [1])


def test_sample_blocks_without_node_features():
    from arraygnn.sampling import NeighborSampler, sample_blocks

    g = graph((np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])), num_nodes=4)
    g.ndata["feat"] = np.arange(4.0)[:, None]
    _, _, blocks = sample_blocks(g, np.array([1]), [2, 2], seed=0, copy_ndata=False)
    assert all("feat" not in b.srcdata and NID in b.srcdata for b in blocks)
    _, _, blocks = NeighborSampler([2], seed=0).sample_blocks(g, np.array([1]))
    assert blocks[0].srcdata["feat"][:, 0].tolist() == blocks[0].srcdata[NID].tolist()


def test_reduce_udf_buckets_must_agree_and_dtypes_promote():
    g = graph((np.array([0, 1, 2, 0, 3]), np.array([2, 2, 3, 3, 3])), num_nodes=5)
    g.ndata["x"] = np.arange(10.0).reshape(5, 2)

    def mixed_dtype(nodes):
        m = nodes.mailbox["m"].mean(1)
        return {"h": m.astype(np.int64) if nodes.mailbox["m"].shape[1] == 2 else m}

    g.update_all(fn.copy_u("x", "m"), mixed_dtype)
    np.testing.assert_allclose(g.ndata["h"][3], [10 / 3, 13 / 3])  # was truncated to [3, 4]

    def missing_field(nodes):
        m = nodes.mailbox["m"].mean(1)
        return {"h": m} if nodes.mailbox["m"].shape[1] == 2 else {"k": m}

    with pytest.raises(ValueError, match="degree-3 bucket returned fields"):
        g.update_all(fn.copy_u("x", "m"), missing_field)

    def other_shape(nodes):
        m = nodes.mailbox["m"].mean(1)
        return {"h": m if nodes.mailbox["m"].shape[1] == 2 else np.concatenate([m] * 3, 1)}

    with pytest.raises(ValueError, match="field 'h' has per-node shape"):
        g.update_all(fn.copy_u("x", "m"), other_shape)


def test_unusable_feature_dtypes_name_the_function_and_its_fields():
    g = graph((np.array([0, 1]), np.array([1, 0])), num_nodes=2)
    g.ndata["b"] = np.array([True, False])
    g.ndata["s"] = np.array(["a", "b"])
    with pytest.raises(TypeError, match=r"fn\.copy_u \(field 'b'\) -> fn\.sum\('m', 'h'\)"):
        g.update_all(fn.copy_u("b", "m"), fn.sum("m", "h"))
    with pytest.raises(TypeError, match=r"fn\.u_add_v \(fields 's', 's'\)"):
        g.apply_edges(fn.u_add_v("s", "s", "e"))


def test_cupy_graph_paths():
    cupy = pytest.importorskip("cupy")  # runs on a GPU session (tests/cuda has the rest)
    from arraygnn.distributed import partition_graph

    g = graph((cupy.asarray([0, 1, 2]), cupy.asarray([1, 2, 0])), num_nodes=3)
    fr = sample_neighbors(g, cupy.asarray([1]), 1, seed=np.random.default_rng(0))
    assert isinstance(fr.edges()[0], cupy.ndarray)  # a NumPy Generator used to mix devices
    seen = []
    g.ndata["x"] = cupy.ones((3, 1))
    g.update_all(
        fn.copy_u("x", "m"),
        lambda nodes: seen.append(nodes.nodes()) or {"h": nodes.mailbox["m"].sum(1)},
    )
    assert all(isinstance(n, cupy.ndarray) for n in seen)
    with pytest.raises(TypeError, match="partitions are cut on the host"):
        partition_graph(cupy.asarray([[0], [1]]), 2, 1)


def test_a_udf_s_own_type_error_passes_unchanged():
    g = graph((np.array([0, 1]), np.array([1, 0])), num_nodes=2)
    g.ndata["x"] = np.ones((2, 1))

    def red(nodes):
        raise TypeError("x must be positive (the user's own check)")

    with pytest.raises(TypeError, match=r"^x must be positive \(the user's own check\)$"):
        g.update_all(fn.copy_u("x", "m"), red)


def test_sampling_a_subgraph_gives_edge_ids_in_the_subgraph():
    parent = graph((np.array([0, 0, 1, 2]), np.array([0, 0, 2, 3])), num_nodes=4)
    g = parent.subgraph([1, 2, 3])  # edges 0: 0 -> 1, 1: 1 -> 2 (parent edges 2, 3)
    g.edata["w"] = np.array([10.0, 20.0])
    _, _, blocks = sample_blocks(g, np.array([2]), [-1])
    # used to be the parent's id 3: out of range for g, and in another id space than NID
    assert blocks[0].edata[EID].tolist() == [1] and blocks[0].srcdata[NID].tolist() == [2, 1]
    assert g.edata["w"][blocks[0].edata[EID]].tolist() == blocks[0].edata["w"].tolist()
    frontier = sample_neighbors(g, np.array([1, 2]), -1, copy_edata=False)
    assert sorted(frontier.edata[EID].tolist()) == [0, 1]


def test_sample_blocks_gives_the_seeds_as_ids():
    g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])), num_nodes=5)
    mask = np.array([True, False, False, True, False])
    for seeds in (mask, [0, 3], np.array([0, 3])):  # a mask used to come back as the mask
        _, output_nodes, blocks = sample_blocks(g, seeds, [2, 2], seed=0)
        assert isinstance(output_nodes, np.ndarray) and output_nodes.tolist() == [0, 3]
        assert output_nodes.tolist() == blocks[-1].dstdata[NID].tolist()
    h = heterograph(
        {("a", "r", "b"): (np.array([0, 1]), np.array([1, 0])), ("b", "s", "a"): ([0], [1])}
    )
    _, out, _ = sample_blocks(h, {"b": np.array([1])}, [{"r": 1, "s": 1}], seed=0)
    assert list(out) == ["b"] and out["b"].tolist() == [1]  # only the types given
    _, out, _ = sample_blocks(g, {"_N": np.array([1, 2])}, [2, 2], seed=0)  # one dst type
    assert list(out) == ["_N"] and out["_N"].tolist() == [1, 2]


@pytest.mark.parametrize(
    "xdt, edt", [(np.float32, np.float16), (np.float64, np.float32), (np.int64, np.float32)]
)
def test_fused_u_div_e_takes_the_reciprocal_in_the_result_dtype(xdt, edt):
    """update_all(u_div_e, sum) runs as spmm with weights 1 / e: that reciprocal was taken
    in e's own dtype (float16: relative error 2.4e-4 against the unfused path)."""
    g = graph((np.array([0, 1, 2]), np.array([1, 1, 1])), num_nodes=3)
    g.ndata["x"] = np.array([1000, 2000, 3000], dtype=xdt)
    g.edata["w"] = np.array([7, 9, 21], dtype=edt)
    g.update_all(fn.u_div_e("x", "w", "m"), fn.sum("m", "h"))
    want = 1000 / 7 + 2000 / 9 + 3000 / 21
    got = g.ndata["h"][1]
    assert g.ndata["h"].dtype == (np.ones(1, xdt) / np.ones(1, edt)).dtype  # as x / e
    assert abs(float(got) - want) <= 4 * np.finfo(g.ndata["h"].dtype).eps * want


@pytest.mark.parametrize(
    "dtype, x, e",
    [(np.float16, 0.5, 1e-5), (np.float32, 1e-30, 1e-39), (np.float64, 1e-300, 1e-310)],
)
def test_fused_u_div_e_with_a_subnormal_e_stays_finite(dtype, x, e):
    """1 / e overflows for a subnormal e; x * (1 / e) was inf where x / e is finite (the
    fused path now steps aside), and apply_edges agrees."""
    g = graph((np.array([0]), np.array([1])), num_nodes=2)
    g.ndata["x"] = np.array([x, 0], dtype=dtype)
    g.edata["w"] = np.array([e], dtype=dtype)
    g.update_all(fn.u_div_e("x", "w", "m"), fn.sum("m", "h"))
    want = np.array([x], dtype) / np.array([e], dtype)
    assert np.isfinite(want).all() and g.ndata["h"][1] == want[0]
    g.apply_edges(fn.u_div_e("x", "w", "q"))
    assert g.edata["q"][0] == want[0]


def test_fused_u_div_e_in_float16_equals_the_udf():
    """float16: 1 / e is taken in float32, so the fused sum equals x / e rounded once."""
    rng = np.random.default_rng(0)
    g = graph((np.arange(200) % 7, np.arange(200) % 5), num_nodes=7)
    g.ndata["x"] = rng.uniform(1, 2, 7).astype(np.float16)
    g.edata["w"] = rng.uniform(1, 2, 200).astype(np.float16)
    g.update_all(fn.u_div_e("x", "w", "m"), fn.max("m", "fused"))
    g.update_all(lambda edges: {"m": edges.src["x"] / edges.data["w"]}, fn.max("m", "udf"))
    np.testing.assert_array_equal(g.ndata["fused"], g.ndata["udf"])


def test_empty_graphs_with_high_rank_features():
    """x.reshape(0, -1) cannot infer -1: copy_u of [0, 2, 2, 2], u_mul_e of [0, 2, 3] and
    the softmaxes of [0, 2, 3] raised NumPy's reshape error on empty inputs."""
    from arraygnn.graph.readout import softmax_edges, softmax_nodes

    empty = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=0)
    empty.ndata["h"] = np.zeros((0, 2, 2, 2))
    empty.update_all(fn.copy_u("h", "m"), fn.sum("m", "o"))
    assert empty.ndata["o"].shape == (0, 2, 2, 2)
    empty.ndata["x"] = np.zeros((0, 2, 3))
    empty.edata["w"] = np.zeros(0)
    empty.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "y"))
    assert empty.ndata["y"].shape == (0, 2, 3)
    assert softmax_nodes(empty, "x").shape == (0, 2, 3)
    no_edges = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=3)
    no_edges.edata["s"] = np.zeros((0, 2, 3))
    assert softmax_edges(no_edges, "s").shape == (0, 2, 3)
    no_edges.ndata["x"] = np.ones((3, 2, 3))
    no_edges.edata["w"] = np.zeros(0)
    no_edges.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "y"))
    assert no_edges.ndata["y"].tolist() == np.zeros((3, 2, 3)).tolist()


def test_fanouts_below_minus_one_and_non_int_hops_are_refused():
    from arraygnn.nn import propagate_hops

    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)
    for call in (
        lambda: sample_neighbors(g, np.array([1]), -2),  # used to mean "every edge"
        lambda: sample_blocks(g, np.array([1]), [2, -5]),
        lambda: sample_neighbors(g, np.array([1]), {"_E": -3}),
    ):
        with pytest.raises(ValueError, match=r"-1 \(all edges\) or >= 0"):
            call()
    assert sample_neighbors(g, np.array([1]), -1).num_edges() == 1
    ei, x = np.array([[0, 1], [1, 0]]), np.eye(2, dtype=np.float32)
    for hops in (2.5, "2", True):
        with pytest.raises(TypeError, match="hops must be an int"):
            propagate_hops(ei, x, hops)  # 2.5 was cut to 2


def test_wrong_objects_are_named_not_attribute_errors():
    """Each used to fail with AttributeError ('NoneType' object has no attribute ...),
    'str' object is not callable, or a misleading KeyError."""
    from arraygnn.graph.convert import data_to_graph, graph_to_data, graph_to_graph_tensor
    from arraygnn.graph.subgraph import node_subgraph
    from arraygnn.graph_tensor import GraphTensor, NodeSet
    from arraygnn.graph_tensor.batching import batch_graph_tensors
    from arraygnn.graph_tensor.convert import data_to_graph_tensor
    from arraygnn.padding import pad_to_total_sizes, total_sizes

    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g.ndata["h"] = np.ones(3)
    ns = NodeSet.from_fields(sizes=np.array([2]))
    gt = GraphTensor.from_pieces(node_sets={"a": ns})
    for call, match in [
        (lambda: node_subgraph(None, [0]), "node_subgraph expects an arraygnn Graph"),
        (lambda: graph_to_data(None), "graph_to_data expects an arraygnn Graph"),
        (lambda: graph_to_graph_tensor("g"), "graph_to_graph_tensor expects"),
        (lambda: sample_neighbors(None, [0], 1), "sample_neighbors expects"),
        (lambda: data_to_graph({"edge_index": np.zeros((2, 0))}), "data_to_graph expects"),
        (lambda: data_to_graph_tensor(None), "data_to_graph_tensor expects"),
        (lambda: g.update_all(fn.copy_u("h", "m"), fn.sum("m", "h"), "relu"), "apply_node"),
        (lambda: g.apply_nodes(None), "apply_nodes: func must be a function"),
        (lambda: batch_graph_tensors(None), "batch_graph_tensors expects a list"),
        (lambda: GraphTensor.from_pieces(node_sets=[ns]), "node_sets must be a dict"),
        (lambda: total_sizes(None), "total_sizes expects a GraphTensor"),
        (lambda: pad_to_total_sizes(None, None), "pad_to_total_sizes expects a GraphTensor"),
        (lambda: pad_to_total_sizes(gt, None, padding_values=3), "padding_values must be"),
    ]:
        with pytest.raises(TypeError, match=match):
            call()
