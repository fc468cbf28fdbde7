"""powerlaw_graph: seeded, in range, no self-loops by default, heavy-tailed degrees."""

import numpy as np
import pytest

from arraygnn.datasets import powerlaw_graph


def test_shapes_dtypes_range():
    src, dst = powerlaw_graph(500, 3000, seed=3)
    assert src.shape == dst.shape == (3000,)
    assert src.dtype == dst.dtype == np.int64
    for a in (src, dst):
        assert a.min() >= 0 and a.max() < 500
    assert (src != dst).all()


def test_seeded_reproducible_and_seed_sensitive():
    a = powerlaw_graph(1000, 5000, seed=7)
    b = powerlaw_graph(1000, 5000, seed=7)
    c = powerlaw_graph(1000, 5000, seed=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_features_and_int32():
    src, dst, x = powerlaw_graph(
        200, 1000, seed=0, num_features=5, feature_dtype=np.float64, index_dtype=np.int32
    )
    assert x.shape == (200, 5) and x.dtype == np.float64
    assert src.dtype == np.int32 and dst.dtype == np.int32


def test_heavy_tail():
    n, m = 20000, 200000
    src, dst = powerlaw_graph(n, m, seed=0, exponent=2.2)
    deg = np.bincount(dst, minlength=n)
    mean = m / n
    # hubs far above the mean, and most nodes below it (a uniform graph has max ~ 2.5 * mean)
    assert deg.max() > 50 * mean
    assert np.median(deg) < mean
    # a smaller exponent gives heavier hubs
    deg_light = np.bincount(powerlaw_graph(n, m, seed=0, exponent=3.5)[1], minlength=n)
    assert deg.max() > deg_light.max()


def test_hubs_spread_over_ids():
    src, _ = powerlaw_graph(10000, 100000, seed=1)
    top = np.argsort(np.bincount(src, minlength=10000))[-10:]
    assert top.max() > 1000  # ids are shuffled, hubs are not all at the start


def test_self_loops_allowed_and_edge_cases():
    src, dst = powerlaw_graph(5, 2000, seed=0, self_loops=True)
    assert (src == dst).any()
    src, dst = powerlaw_graph(0, 0, seed=0)
    assert src.shape == (0,)
    src, dst = powerlaw_graph(1, 3, seed=0, self_loops=True)
    assert (src == 0).all() and (dst == 0).all()


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"num_nodes": -1, "num_edges": 3}, ValueError, "num_nodes"),
        ({"num_nodes": 3.5, "num_edges": 3}, TypeError, "num_nodes"),
        ({"num_nodes": 0, "num_edges": 3}, ValueError, "num_nodes > 0"),
        ({"num_nodes": 1, "num_edges": 3}, ValueError, "self_loops"),
        ({"num_nodes": 10, "num_edges": 3, "exponent": 1.0}, ValueError, "exponent"),
        ({"num_nodes": 10, "num_edges": 3, "index_dtype": np.float32}, TypeError, "index_dtype"),
        ({"num_nodes": 10, "num_edges": -3}, ValueError, "num_edges"),
    ],
)
def test_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        powerlaw_graph(seed=0, **kwargs)


def test_arguments_of_the_wrong_kind_are_named():
    import pytest

    from arraygnn.datasets import powerlaw_graph
    from arraygnn.datasets.molecules import load_molecules

    with pytest.raises(TypeError, match="num_nodes must be an integer"):
        powerlaw_graph(True, 0)
    with pytest.raises(TypeError, match="exponent"):
        powerlaw_graph(10, 5, exponent="3")
    with pytest.raises(TypeError, match="feature_dtype"):
        powerlaw_graph(10, 5, num_features=2, feature_dtype="U3")
    with pytest.raises(TypeError, match="include_smiles"):
        load_molecules(include_smiles="no")


def test_bfloat16_features_and_scalar_settings():
    import numpy as np
    import pytest

    import arraygnn
    from arraygnn.datasets import powerlaw_graph

    ml_dtypes = pytest.importorskip("ml_dtypes")
    *_, x = powerlaw_graph(50, 200, num_features=4, feature_dtype=ml_dtypes.bfloat16, seed=0)
    assert x.dtype == ml_dtypes.bfloat16
    for name in ("float8_e4m3fnuz", "float8_e5m2fnuz"):  # used to be refused as not floats
        dt = getattr(ml_dtypes, name)
        assert powerlaw_graph(5, 9, num_features=2, feature_dtype=dt)[2].dtype == dt
    if hasattr(ml_dtypes, "int4"):
        with pytest.raises(TypeError, match="floating dtype"):
            powerlaw_graph(5, 9, num_features=2, feature_dtype=ml_dtypes.int4)
    with pytest.raises(TypeError, match="True or False"):
        with arraygnn.config(validate=np.array([True, False])):
            pass
