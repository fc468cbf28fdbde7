"""``arraygnn.nn.aggr`` against PyG's ``torch_geometric.nn.aggr`` (same inputs; learnt
weights through ``from_pyg``): every aggregation, float32 / float64, int32 / int64 index,
sorted and unsorted index, ``ptr``, empty groups, ``dim_size`` above the largest id, other
``dim`` values; then the argument errors."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import rel_err

torch = pytest.importorskip("torch")
pyg_aggr = pytest.importorskip("torch_geometric.nn.aggr")

from arraygnn.nn import aggr, from_pyg  # noqa: E402

TOL = {np.float32: 3e-6, np.float64: 1e-12}


def _torch(a):
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def _pyg(module, x, index=None, ptr=None, dim_size=None, dim=-2):
    index = None if index is None else index.astype(np.int64)  # torch's scatter: int64
    ptr = None if ptr is None else ptr.astype(np.int64)
    with torch.no_grad():
        return module(_torch(x), _torch(index), ptr=_torch(ptr), dim_size=dim_size, dim=dim).numpy()


def _compare(got, want, dtype, tol=None):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        tol = tol or TOL[dtype or want.dtype.type]
        assert rel_err(np.nan_to_num(got), np.nan_to_num(want)) <= tol
    else:
        np.testing.assert_array_equal(got, want)


def _randomise(module, seed=0):
    """Learnt t / p away from PyG's plain initial values."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("t") or name.endswith("p"):
                p.copy_(0.5 + 1.5 * torch.rand(p.shape, generator=gen, dtype=p.dtype))
            else:
                p.copy_(0.5 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
    return module.eval()


F = 5


def _modules():
    """``(name, PyG module factory, needs positive x)``; built fresh per test."""
    P = pyg_aggr
    deg = torch.tensor([2.0, 3, 5, 1])
    return {
        "sum": (lambda: P.SumAggregation(), False),
        "mean": (lambda: P.MeanAggregation(), False),
        "max": (lambda: P.MaxAggregation(), False),
        "min": (lambda: P.MinAggregation(), False),
        "mul": (lambda: P.MulAggregation(), False),
        "var": (lambda: P.VarAggregation(), False),
        "std": (lambda: P.StdAggregation(semi_grad=True), False),
        "softmax": (lambda: P.SoftmaxAggregation(), False),
        "softmax_t": (lambda: P.SoftmaxAggregation(t=0.3, semi_grad=True), False),
        "softmax_learn": (lambda: P.SoftmaxAggregation(learn=True), False),
        "softmax_channels": (lambda: P.SoftmaxAggregation(t=2.0, learn=True, channels=F), False),
        "powermean": (lambda: P.PowerMeanAggregation(p=2.5), True),
        "powermean_one": (lambda: P.PowerMeanAggregation(), False),
        "powermean_learn": (lambda: P.PowerMeanAggregation(learn=True, channels=F), True),
        "powermean_noclamp": (lambda: P.PowerMeanAggregation(p=3.0, clamp_max=None), True),
        "median": (lambda: P.MedianAggregation(), False),
        "median_fill": (lambda: P.MedianAggregation(fill_value=-2.5), False),
        "quantile": (lambda: P.QuantileAggregation([0.1, 0.5, 0.93]), False),
        "quantile_lower": (lambda: P.QuantileAggregation(0.3, "lower"), False),
        "quantile_higher": (lambda: P.QuantileAggregation(0.3, "higher"), False),
        "quantile_nearest": (lambda: P.QuantileAggregation([0.25, 0.5], "nearest"), False),
        "quantile_midpoint": (lambda: P.QuantileAggregation(0.7, "midpoint", 1.0), False),
        "multi_cat": (lambda: P.MultiAggregation(["mean", "max", "std", "median"]), False),
        "multi_proj": (
            lambda: P.MultiAggregation(
                ["sum", "min", "softmax"],
                mode="proj",
                mode_kwargs={"in_channels": F, "out_channels": 3},
            ),
            False,
        ),
        "multi_proj_nobias": (
            lambda: P.MultiAggregation(
                ["mean", P.SoftmaxAggregation(learn=True, channels=F)],
                mode="proj",
                mode_kwargs={"in_channels": [F, F], "out_channels": 4, "bias": False},
            ),
            False,
        ),
        **{
            f"multi_{mode}": (
                lambda mode=mode: P.MultiAggregation(
                    ["mean", "max", "min", "var"],
                    aggrs_kwargs=[{}, {}, {}, {"semi_grad": True}],
                    mode=mode,
                ),
                False,
            )
            for mode in ("sum", "mean", "max", "min", "logsumexp", "std", "var")
        },
        "degree_scaler": (
            lambda: P.DegreeScalerAggregation(
                ["mean", "max", "std"],
                ["identity", "amplification", "attenuation", "linear", "inverse_linear"],
                deg,
            ),
            False,
        ),
        "degree_scaler_extremes": (
            lambda: P.DegreeScalerAggregation(
                ["max", "min"],
                ["identity", "amplification", "attenuation", "linear", "inverse_linear"],
                deg,
            ),
            False,
        ),
        "degree_scaler_one": (
            lambda: P.DegreeScalerAggregation("sum", "attenuation", deg, train_norm=True),
            False,
        ),
    }


NAMES = list(_modules())


def _groups(rng, num, size, index_dtype, order):
    """An index of ``num`` entries over ``size`` groups: group 0 non-empty (PyG's quantile
    fails otherwise), some inner groups and the last two empty."""
    index = rng.integers(0, size - 2, num)
    index[index == 3] = 4  # an empty inner group
    index[0] = 0
    if order == "sorted":
        index = np.sort(index)
    return index.astype(index_dtype)


@pytest.mark.parametrize("order", ["sorted", "unsorted"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", NAMES)
def test_against_pyg(name, dtype, index_dtype, order):
    factory, positive = _modules()[name]
    module = _randomise(factory(), seed=len(name))
    module = module.double() if dtype == np.float64 else module.float()
    ours = from_pyg(module)
    assert type(ours).__name__ == type(module).__name__
    assert set(ours.state_dict()) == set(module.state_dict())
    rng = np.random.default_rng(3)
    num, size = 60, 11
    x = rng.standard_normal((num, F)).astype(dtype)
    if positive:
        x = np.abs(x) + 0.1
    x[5, 1] = x[6, 1]  # ties inside a group's sort
    index = _groups(rng, num, size, index_dtype, order)
    x_copy, index_copy = x.copy(), index.copy()
    got = ours(x, index, dim_size=size)
    np.testing.assert_array_equal(x, x_copy)  # nothing the caller passed is modified
    np.testing.assert_array_equal(index, index_copy)
    _compare(got, _pyg(module, x, index, dim_size=size), dtype)
    # dim_size left out: index.max() + 1 groups, as PyG
    _compare(ours(x, index), _pyg(module, x, index), dtype)
    if order == "sorted":  # the same groups as a CSR ptr
        ptr = np.concatenate([[0], np.cumsum(np.bincount(index, minlength=size))])
        ptr = ptr.astype(index_dtype)
        _compare(ours(x, ptr=ptr), _pyg(module, x, index, dim_size=size), dtype)
        _compare(ours(x, ptr=ptr, dim_size=size), got, dtype, tol=TOL[dtype])


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "var", "std", "softmax_t"])
def test_ptr_against_pyg_ptr(name):
    """PyG's own ``ptr`` path (``segment``) gives the same as ours."""
    module = _modules()[name][0]()
    rng = np.random.default_rng(4)
    x = rng.standard_normal((30, 4)).astype(np.float32)
    ptr = np.array([0, 4, 4, 11, 20, 20, 30])
    _compare(from_pyg(module)(x, ptr=ptr), _pyg(module, x, ptr=ptr), np.float32)


_DIM_NAMES = [
    "sum",
    "mean",
    "max",
    "mul",
    "std",
    "softmax",
    "powermean",
    "median",
    "quantile",
    "multi_proj",
    "degree_scaler_one",
]
_DIM_SHAPES = [
    ((7, 40, F), -2),
    ((7, 40, F), 1),
    ((40, F), 0),
    ((F, 40), -1),
    ((40, 3, F), 0),
    ((2, 40, 3, F), 1),
]


@pytest.mark.parametrize(
    "name, shape, dim",
    [
        (name, shape, dim)
        for name in _DIM_NAMES
        for shape, dim in _DIM_SHAPES
        # the projection reads F features along the last dimension
        if name != "multi_proj" or dim != -1
    ],
)
def test_other_dims(name, shape, dim):
    factory, positive = _modules()[name]
    module = _randomise(factory())
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float64)
    if positive:
        x = np.abs(x) + 0.1
    module = module.double()
    index = _groups(rng, shape[dim], 9, np.int64, "unsorted")
    want = _pyg(module, x, index, dim_size=9, dim=dim)
    got = from_pyg(module)(x, index, dim_size=9, dim=dim)
    _compare(got, want, np.float64)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "mul"])
def test_integer_values(name):
    module = _modules()[name][0]()
    rng = np.random.default_rng(6)
    x = rng.integers(-4, 5, (25, 3))
    index = _groups(rng, 25, 8, np.int64, "unsorted")
    _compare(from_pyg(module)(x, index, dim_size=8), _pyg(module, x, index, dim_size=8), None)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(np.sort(index), minlength=8))])
    _compare(from_pyg(module)(x, ptr=ptr), _pyg(module, x, np.sort(index), dim_size=8), None)


@pytest.mark.parametrize(
    "name",
    [
        "softmax",
        "softmax_t",
        "softmax_learn",
        "powermean",
        "powermean_one",
        "powermean_learn",
        "quantile",
        "quantile_midpoint",
        "quantile_lower",
        "median",
        "multi_cat",
        "degree_scaler_extremes",
    ],
)
def test_integer_values_take_torch_float_results(name):
    """Integer x: PyG computes the softmax, the power mean and the interpolated quantiles
    in torch's default float32 (a learnt float64 ``t`` / ``p`` widens it), and keeps
    integers for the values it only picks (lower quantile, median)."""
    module = _randomise(_modules()[name][0]())
    rng = np.random.default_rng(16)
    x = rng.integers(0, 6, (25, F))
    index = _groups(rng, 25, 8, np.int64, "unsorted")
    ours = from_pyg(module)
    _compare(ours(x, index, dim_size=8), _pyg(module, x, index, dim_size=8), np.float32)
    if name == "softmax_learn":
        module = module.double()
        _compare(from_pyg(module)(x, index), _pyg(module, x, index), np.float64)


@pytest.mark.parametrize("name", NAMES)
def test_no_index_no_ptr_is_one_group(name):
    factory, positive = _modules()[name]
    module = _randomise(factory())
    rng = np.random.default_rng(7)
    x = rng.standard_normal((13, F)).astype(np.float32)
    if positive:
        x = np.abs(x) + 0.1
    ours = from_pyg(module)
    _compare(ours(x), _pyg(module, x), np.float32)
    want = _pyg(module, x, dim_size=3)  # PyG: group 0 gets everything, 1 and 2 are empty
    _compare(ours(x, dim_size=3), want, np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name):
    """No slices at all: every group is empty (PyG fails here for quantiles, which give
    ``fill_value``)."""
    factory, _ = _modules()[name]
    module = factory()
    ours = from_pyg(module)
    x = np.zeros((0, F), np.float32)
    index = np.zeros(0, np.int64)
    got = ours(x, index, dim_size=4)
    try:
        want = _pyg(module, x, index, dim_size=4)
    except (IndexError, RuntimeError):
        assert "antile" in name or "median" in name or "multi_cat" in name
        fill = getattr(module, "fill_value", 0.0)
        assert got.shape[0] == 4 and np.all(got[:, :F] == (0.0 if "multi" in name else fill))
        return
    _compare(got, want, np.float32)
    assert ours(x, index).shape[0] == 0  # index.max() + 1 of an empty index: 0 groups


def test_groups_from_ptr_keep_to_cupys_rules():
    """The group of each slice made from ``ptr`` (median, mul and integer sums read it)
    never passes an array of counts to ``repeat``, which CuPy refuses: a NumPy stand-in
    with CuPy's rule gives the same groups."""
    import types

    from arraygnn.nn.aggr.base import Groups

    def repeat(a, repeats, axis=None):
        if isinstance(repeats, np.ndarray):
            raise ValueError("cupy.ndarray cannot be specified as `repeats` argument.")
        return np.repeat(a, repeats, axis)

    strict = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if k[0] != "_"})
    strict.repeat = repeat
    x = np.arange(14.0).reshape(7, 2)
    ptr = np.array([0, 2, 2, 7, 7])
    groups = Groups("MedianAggregation", x, None, ptr, None, -2)
    groups.xp = strict
    np.testing.assert_array_equal(groups.group_ids(), [0, 0, 2, 2, 2, 2, 2])


def test_quantiles_of_wide_integers_are_exact():
    """int64 / uint64 values beyond 2**53 (where float64 rounds) are sorted and picked
    exactly, as PyG's."""
    big = 2**60
    x = np.array([[big + 3, 5], [big + 1, 4], [big + 2, 3], [-big - 1, 2], [-big - 3, 1]])
    index = np.array([0, 0, 0, 1, 1])
    for module in (
        pyg_aggr.MedianAggregation(),
        pyg_aggr.QuantileAggregation([0.0, 0.5, 1.0], "higher"),
        pyg_aggr.QuantileAggregation(0.5, "nearest"),
    ):
        _compare(from_pyg(module)(x, index, dim_size=3), _pyg(module, x, index, dim_size=3), None)
    wide = np.array([[2**63 + 5], [2**63 + 1], [7]], np.uint64)
    got = aggr.QuantileAggregation([0.0, 0.5, 1.0], "lower")(wide, np.zeros(3, np.int64))
    assert got.ravel().tolist() == [7, 2**63 + 1, 2**63 + 5]


def test_nan_sorts_last_in_quantiles():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((20, 2)).astype(np.float32)
    x[[1, 4, 9], 0] = np.nan
    index = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 0, 1, 2, 3, 3, 3, 0, 0])
    for module in (
        pyg_aggr.MedianAggregation(),
        pyg_aggr.QuantileAggregation([0.2, 0.6, 1.0]),
        pyg_aggr.QuantileAggregation(0.9, "higher"),
    ):
        _compare(from_pyg(module)(x, index), _pyg(module, x, index), np.float32)


def test_built_directly_equals_converted():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((30, 4)).astype(np.float32)
    index = rng.integers(0, 6, 30)
    pairs = [
        (aggr.aggregation_resolver("add"), pyg_aggr.SumAggregation()),
        (aggr.aggregation_resolver("power_mean", p=2.0), pyg_aggr.PowerMeanAggregation(p=2.0)),
        (aggr.aggregation_resolver("Softmax", t=0.5), pyg_aggr.SoftmaxAggregation(t=0.5)),
        (
            aggr.aggregation_resolver(["median", "var"]),
            pyg_aggr.MultiAggregation(["median", "var"]),
        ),
        (
            aggr.DegreeScalerAggregation("max", ["linear"], np.array([1, 2, 3])),
            pyg_aggr.DegreeScalerAggregation("max", "linear", torch.tensor([1, 2, 3])),
        ),
    ]
    for ours, theirs in pairs:
        _compare(
            ours(np.abs(x), index, dim_size=7),
            _pyg(theirs, np.abs(x), index, dim_size=7),
            np.float32,
        )


def test_resolver_names():
    r = aggr.aggregation_resolver
    assert isinstance(r("sum"), aggr.SumAggregation)
    assert isinstance(r("SumAggregation"), aggr.SumAggregation)
    assert isinstance(r("mul"), aggr.MulAggregation)
    assert isinstance(r("std"), aggr.StdAggregation)
    assert isinstance(r("median"), aggr.MedianAggregation)
    assert isinstance(r("quantile", q=0.2), aggr.QuantileAggregation)
    assert isinstance(r("powermean"), aggr.PowerMeanAggregation)
    assert isinstance(r("set2set", in_channels=4, processing_steps=2), aggr.Set2Set)
    multi = r(["mean", "max"], mode="sum")
    assert isinstance(multi, aggr.MultiAggregation) and multi.mode == "sum"
    assert r(["mean", "max"]).get_out_channels(4) == 8
    learnt = r("softmax", learn=True, dtype=np.float64)
    assert learnt.t.dtype == np.float64
    assert r("mean", dtype=np.float64).__class__ is aggr.MeanAggregation  # dtype ignored
    same = aggr.MaxAggregation()
    assert r(same) is same and r(None) is None
    with pytest.raises(ValueError, match="could not resolve 'maximum'"):
        r("maximum")


def _x():
    return np.ones((4, 3), np.float32)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: aggr.SumAggregation()(_x(), np.array([0, 1, 5, 1]), dim_size=3),
            ValueError,
            r"SumAggregation: dim_size=3 is too small: index has entry 5 \(dim_size must be "
            r"at least 6\)",
        ),
        (
            lambda: aggr.MeanAggregation()(_x(), np.array([0, -1, 1, 1])),
            ValueError,
            "MeanAggregation: index has a negative entry",
        ),
        (
            lambda: aggr.MaxAggregation()(_x(), np.array([0, 1, 1])),
            ValueError,
            "MaxAggregation: index has 3 entries but x has 4 slices",
        ),
        (
            lambda: aggr.MaxAggregation()(_x(), np.zeros((2, 2), np.int64)),
            ValueError,
            "MaxAggregation: index must be one-dimensional",
        ),
        (
            lambda: aggr.MinAggregation()(_x(), np.zeros(4, np.float32)),
            TypeError,
            "MinAggregation: index must be an integer array",
        ),
        (
            lambda: aggr.SumAggregation()(_x(), np.zeros(4, np.int64), dim=2),
            ValueError,
            "SumAggregation: dim must lie between -2 and 1",
        ),
        (
            lambda: aggr.SumAggregation()(_x(), ptr=np.array([0, 2, 3])),
            ValueError,
            r"SumAggregation: ptr must run from 0 to x.shape\[dim\] = 4",
        ),
        (
            lambda: aggr.SumAggregation()(_x(), ptr=np.array([0, 3, 2, 4])),
            ValueError,
            "ptr must be non-decreasing",
        ),
        (
            lambda: aggr.SumAggregation()(_x(), ptr=np.array([0, 2, 4]), dim_size=3),
            ValueError,
            r"dim_size=3 but ptr describes 2 groups",
        ),
        (
            lambda: aggr.SumAggregation()(_x(), ptr=np.array([[0, 4]])),
            ValueError,
            "ptr must be one-dimensional",
        ),
        (lambda: aggr.SumAggregation()(_x(), dim_size=0), ValueError, "dim_size=0 but x has 4"),
        (
            lambda: aggr.SumAggregation()(_x(), np.zeros(4, np.int64), dim_size=-1),
            ValueError,
            "dim_size must be >= 0",
        ),
        (
            lambda: aggr.SumAggregation()(_x().tolist(), np.zeros(4, np.int64)),
            TypeError,
            "SumAggregation: x must be a NumPy or CuPy array",
        ),
        (
            lambda: aggr.SumAggregation()(torch.ones(4, 3), np.zeros(4, np.int64)),
            TypeError,
            "from_torch",
        ),
        (
            lambda: aggr.SoftmaxAggregation()(np.ones((4, 3), bool), np.zeros(4, np.int64)),
            TypeError,
            "SoftmaxAggregation: x must be a numeric",
        ),
        (
            lambda: aggr.SoftmaxAggregation(learn=True, channels=3)(
                np.ones((2, 4, 3)), np.zeros(4, np.int64)
            ),
            ValueError,
            "SoftmaxAggregation: a per-channel t .* needs a two-dimensional x",
        ),
        (
            lambda: aggr.SoftmaxAggregation(learn=True, channels=2)(_x(), np.zeros(4, np.int64)),
            ValueError,
            r"SoftmaxAggregation: t has 2 channels but x has 3 features",
        ),
        (
            lambda: aggr.PowerMeanAggregation(learn=True, channels=4)(_x(), np.zeros(4, np.int64)),
            ValueError,
            r"PowerMeanAggregation: p has 4 channels but x has 3 features",
        ),
        (
            lambda: aggr.MultiAggregation(
                ["mean", "max"], mode="proj", mode_kwargs={"in_channels": 2, "out_channels": 2}
            )(_x(), np.zeros(4, np.int64)),
            ValueError,
            r"MultiAggregation: mode='proj' maps 4 features \(mode_kwargs in_channels "
            r"\[2, 2\]\), but the aggregations give 6",
        ),
        (lambda: aggr.SoftmaxAggregation(channels=2), ValueError, "channels > 1 needs a learnt t"),
        (lambda: aggr.SoftmaxAggregation(learn=True, semi_grad=True), ValueError, "semi_grad"),
        (lambda: aggr.PowerMeanAggregation(channels=3), ValueError, "needs a learnt p"),
        (
            lambda: aggr.QuantileAggregation(1.5),
            ValueError,
            r"every q must be a number in \[0, 1\]",
        ),
        (lambda: aggr.QuantileAggregation([]), ValueError, "at least one quantile"),
        (lambda: aggr.QuantileAggregation(0.5, "cubic"), ValueError, "interpolation must be"),
        (lambda: aggr.MultiAggregation([]), ValueError, "aggrs must not be empty"),
        (lambda: aggr.MultiAggregation("mean"), ValueError, "aggrs must be a list"),
        (lambda: aggr.MultiAggregation(["mean"], [{}, {}]), ValueError, "aggrs_kwargs has 2"),
        (
            lambda: aggr.MultiAggregation(["mean", "max"], mode="attn"),
            ValueError,
            "mode='attn' needs mode_kwargs in_channels and out_channels",
        ),
        (lambda: aggr.MultiAggregation(["mean", "max"], mode="mix"), ValueError, "mode must be"),
        (
            lambda: aggr.MultiAggregation(["mean", "max"], mode="proj"),
            ValueError,
            "needs mode_kwargs in_channels and out_channels",
        ),
        (lambda: aggr.MultiAggregation(["mean"], mode="proj"), ValueError, "several aggregations"),
        (
            lambda: aggr.DegreeScalerAggregation("mean", "cubic", np.ones(3)),
            ValueError,
            "DegreeScalerAggregation: scaler must be names from",
        ),
        (
            lambda: aggr.DegreeScalerAggregation("mean", "linear", np.zeros(3)),
            ValueError,
            "DegreeScalerAggregation: deg must be a non-empty histogram",
        ),
        (
            lambda: aggr.DegreeScalerAggregation(3, "linear", np.ones(3)),
            ValueError,
            "aggr must be a name",
        ),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_from_pyg_refuses_what_is_missing():
    # mode='attn' converts since session 11 (tests/nn/test_pyg_aggr_pool_sweep_s11.py)
    attn = pyg_aggr.MultiAggregation(
        ["mean", "max"], mode="attn", mode_kwargs={"in_channels": 4, "out_channels": 4}
    )
    assert from_pyg(attn).mode == "attn"
    with pytest.raises(ValueError, match=r"MultiAggregation\(mode='mix'\) is not supported"):
        attn.mode = "mix"
        from_pyg(attn)
    # EquilibriumAggregation converts since 2026-11-27 (tests/nn/test_equilibrium_aggr.py)
    assert type(from_pyg(pyg_aggr.EquilibriumAggregation(4, 4, [8]))).__name__ == (
        "EquilibriumAggregation"
    )


def test_state_dict_round_trip_and_names():
    module = _randomise(
        pyg_aggr.MultiAggregation(
            [
                pyg_aggr.SoftmaxAggregation(learn=True, channels=4),
                "median",
                pyg_aggr.PowerMeanAggregation(learn=True),
            ],
            mode="proj",
            mode_kwargs={"in_channels": 4, "out_channels": 2},
        )
    )
    ours = from_pyg(module)
    assert set(ours.state_dict()) == {
        "aggrs.0.t",
        "aggrs.1.q",
        "aggrs.2.p",
        "lin.weight",
        "lin.bias",
    }
    fresh = aggr.MultiAggregation(
        [
            aggr.SoftmaxAggregation(learn=True, channels=4),
            "median",
            aggr.PowerMeanAggregation(learn=True),
        ],
        mode="proj",
        mode_kwargs={"in_channels": 4, "out_channels": 2},
    )
    fresh.load_state_dict(ours.state_dict())
    rng = np.random.default_rng(10)
    x = np.abs(rng.standard_normal((12, 4)).astype(np.float32))
    index = rng.integers(0, 3, 12)
    np.testing.assert_array_equal(fresh(x, index), ours(x, index))
    _compare(ours(x, index), _pyg(module, x, index), np.float32)
