"""Partitioning: balanced by edges, halos exact, round trip through a file."""

import numpy as np
import pytest

from arraygnn.distributed import PartitionedGraph, partition_graph


def _random_graph(rng, n, e, isolated_tail=0):
    m = n - isolated_tail
    src = rng.integers(0, m, e)
    dst = rng.integers(0, m, e)
    return np.stack([src, dst])


def _dense_rows(pg, ei, w):
    """Rebuild every block's edges as global (src, dst, w) triples in CSR order."""
    triples = []
    for b in pg.blocks:
        buf_ids = np.concatenate([np.arange(b.row_start, b.row_stop), b.halo_ids])
        dst = b.row_start + np.repeat(np.arange(b.num_rows), np.diff(b.indptr))
        gsrc = buf_ids[b.src]
        ww = b.edge_weight if b.edge_weight is not None else np.ones(b.num_edges)
        triples.append(np.stack([gsrc, dst, ww]))
    return np.concatenate(triples, axis=1)


@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("num_parts", [1, 3, 7])
def test_blocks_cover_the_csr_in_order(idx_dtype, num_parts):
    rng = np.random.default_rng(0)
    ei = _random_graph(rng, 50, 300, isolated_tail=5).astype(idx_dtype)
    w = rng.random(300)
    pg = partition_graph(ei, 50, num_parts, edge_weight=w)
    assert pg.boundaries[0] == 0 and pg.boundaries[-1] == 50
    assert np.all(np.diff(pg.boundaries) >= 0)
    perm = np.argsort(ei[1], kind="stable")
    expected = np.stack([ei[0][perm], ei[1][perm], w[perm]])
    np.testing.assert_array_equal(_dense_rows(pg, ei, w), expected)
    for b in pg.blocks:
        # Halo: exactly the sources outside the block, each once, with the right owner.
        own = (b.halo_ids >= b.row_start) & (b.halo_ids < b.row_stop)
        assert not own.any()
        assert np.all(np.diff(b.halo_ids) > 0)
        np.testing.assert_array_equal(b.halo_owner, pg.owner_of(b.halo_ids))


@pytest.mark.parametrize("num_parts", [1, 4, 13])
def test_halo_by_mask_and_by_sort_agree(monkeypatch, num_parts):
    """A block's halo comes from a node mask (many foreign edges) or a sort (few): force
    each; the blocks are the same arrays, and the halo is exact either way."""
    from arraygnn.distributed import partition

    rng = np.random.default_rng(3)
    ei = _random_graph(rng, 400, 1500, isolated_tail=30)
    w = rng.random(1500)
    built = {}
    for ratio in (0, 1 << 40):
        monkeypatch.setattr(partition, "HALO_MASK_RATIO", ratio)
        pg = partition_graph(ei, 400, num_parts, edge_weight=w)
        perm = np.argsort(ei[1], kind="stable")
        expected = np.stack([ei[0][perm], ei[1][perm], w[perm]])
        np.testing.assert_array_equal(_dense_rows(pg, ei, w), expected)
        for b in pg.blocks:
            foreign = ei[0][(ei[1] >= b.row_start) & (ei[1] < b.row_stop)]
            foreign = foreign[(foreign < b.row_start) | (foreign >= b.row_stop)]
            np.testing.assert_array_equal(b.halo_ids, np.unique(foreign))
        built[ratio] = pg
    for a, b in zip(built[0].blocks, built[1 << 40].blocks, strict=True):
        for field in ("indptr", "src", "edge_weight", "halo_ids", "halo_owner"):
            x, y = getattr(a, field), getattr(b, field)
            assert x.dtype == y.dtype and np.array_equal(x, y), field


def test_balanced_by_edges_not_nodes():
    # A hub: node 0 receives half of all edges.
    rng = np.random.default_rng(1)
    n, e = 1000, 20000
    dst = np.where(rng.random(e) < 0.5, 0, rng.integers(1, n, e))
    ei = np.stack([rng.integers(0, n, e), dst])
    pg = partition_graph(ei, n, 4)
    counts = [b.num_edges for b in pg.blocks]
    assert sum(counts) == e
    # The hub's block holds the hub's edges; the other blocks share the rest evenly.
    rest = sorted(counts)[:-1]
    assert max(rest) - min(rest) <= 0.2 * (e / 4)
    assert pg.blocks[0].num_rows < n / 4  # the hub block is short in rows


def test_no_edges_and_more_parts_than_edges():
    pg = partition_graph(np.zeros((2, 0), np.int64), 10, 3)
    assert [b.num_edges for b in pg.blocks] == [0, 0, 0]
    assert pg.boundaries.tolist() == [0, 3, 7, 10]
    pg = partition_graph(np.array([[1], [2]]), 5, 4)
    assert sum(b.num_edges for b in pg.blocks) == 1
    assert pg.boundaries[-1] == 5
    # fewer nodes than parts: one node per block, then empty blocks (were interleaved)
    assert partition_graph(np.zeros((2, 0), np.int64), 2, 5).boundaries.tolist() == [
        0,
        1,
        2,
        2,
        2,
        2,
    ]


def test_owner_of_checks_its_ids():
    pg = partition_graph(np.array([[0, 1], [1, 2]]), 5, 2)
    assert pg.owner_of(np.array([0, 4])).tolist() == [0, 1]
    for bad in (5, -1):  # used to answer num_parts / -1
        with pytest.raises(ValueError, match=f"node id {bad} outside"):
            pg.owner_of(np.array([0, bad]))
    with pytest.raises(TypeError, match="integers"):
        pg.owner_of(np.array([0.0]))


def test_save_load_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    ei = _random_graph(rng, 40, 200)
    pg = partition_graph(ei, 40, 3, edge_weight=rng.random(200).astype(np.float32))
    pg.save(tmp_path / "pg.npz")
    back = PartitionedGraph.load(tmp_path / "pg.npz")
    assert back.num_nodes == 40 and back.num_edges == 200 and back.num_parts == 3
    for a, b in zip(pg.blocks, back.blocks):
        for name in ("indptr", "src", "edge_weight", "halo_ids", "halo_owner"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_save_load_keeps_bfloat16_weights(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    weight = np.array([-1.0, 0.5, 2.0], dtype=ml_dtypes.bfloat16)
    pg = partition_graph(np.array([[0, 1, 2], [1, 2, 0]]), 3, 2, edge_weight=weight)
    pg.save(tmp_path / "pg.npz")
    back = PartitionedGraph.load(tmp_path / "pg.npz")  # came back as raw bytes ('V2')
    for a, b in zip(pg.blocks, back.blocks):
        assert b.edge_weight.dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(a.edge_weight.view(np.uint16), b.edge_weight.view(np.uint16))


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"\[2, E\]"):
        partition_graph(np.zeros((3, 4), np.int64), 5, 2)
    with pytest.raises(TypeError, match="integer"):
        partition_graph(np.zeros((2, 4)), 5, 2)
    with pytest.raises(ValueError, match="node id 9 outside"):
        partition_graph(np.array([[0, 9], [1, 2]]), 5, 2)
    with pytest.raises(ValueError, match="edge_weight"):
        partition_graph(np.array([[0, 1], [1, 2]]), 5, 2, edge_weight=np.ones(3))
    with pytest.raises(ValueError, match="num_parts"):
        partition_graph(np.array([[0, 1], [1, 2]]), 5, 0)
