"""``ops.spmm`` of an edge list with narrow rows (at most ``NARROW_WIDTH`` values per node)
runs a gather and the scatter kernel instead of building a CSR for one call. It must give
the bits of the CSR path for every reduction it takes, with and without edge weights, on
every labelled case, with -0.0, inf and NaN among the values, serial and parallel. (A NaN
made where inf meets -inf or two NaNs meet may carry another sign bit: the two compiled
loops are free to order a NaN addition's operands either way; every other bit is equal.)"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from arraygnn import ops
from arraygnn.testing.cases import CASE_NAMES, get_case, powerlaw_edges

spmm_module = importlib.import_module("arraygnn.ops.spmm")  # the module, not the function


def _values(rng, shape, dtype):
    v = rng.standard_normal(shape).astype(dtype)
    flat = v.reshape(-1)
    if flat.size > 8:
        flat[:4] = (-0.0, 0.0, np.inf, -np.inf)
        flat[-1] = np.nan
    return v


def _bits(a):
    """The array's bytes with every NaN made the one quiet NaN (signed zeros kept)."""
    return np.where(np.isnan(a), np.nan, a).tobytes()


def _check_all(rng, ei, n_src, n_dst, calls, dtypes=(np.float32, np.float64)):
    csr = ops.to_csr(ei.astype(np.int64), n_src, n_dst)
    e = ei.shape[1]
    for dtype in dtypes:
        for shape in ((n_src,), (n_src, 1), (n_src, 3), (n_src, 2, 4)):
            x = _values(rng, shape, dtype)
            for w in (None, _values(rng, (e,), dtype)):
                for reduce in ("sum", "mean", "max", "min"):
                    want = ops.spmm(csr, x, w, reduce, n_dst)
                    before = len(calls)
                    got = ops.spmm(ei, x, w, reduce, n_dst)
                    assert len(calls) == before + 1  # the narrow path ran
                    assert got.dtype == want.dtype and got.shape == want.shape
                    assert _bits(got) == _bits(want), (shape, w is None, reduce)


@pytest.fixture
def calls(monkeypatch):
    seen = []
    narrow = spmm_module._narrow_edge_list

    def counted(*args):
        out = narrow(*args)
        if out is not None:
            seen.append(1)
        return out

    monkeypatch.setattr(spmm_module, "_narrow_edge_list", counted)
    return seen


def test_narrow_edge_list_spmm_gives_the_csr_bits(calls):
    rng = np.random.default_rng(5)
    for name in CASE_NAMES:
        for index_dtype in (np.int32, np.uint16):
            case = get_case(name, index_dtype)
            if case.num_src_nodes:
                _check_all(rng, case.edge_index, case.num_src_nodes, case.num_dst_nodes, calls)


#: scatter kernel routes: its owner kernels, its tiles (forced by a zero tile threshold)
#: and the counting sort + segment it runs above two threads; serial and parallel bodies
ROUTES = {
    "owner, serial": ({}, 1 << 40),
    "tiles, parallel": ({"TILED_MIN_OUT_BYTES": 0}, 0),
    "sort + segment, parallel": ({"OWNER_MAX_THREADS": 0}, 0),
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_narrow_edge_list_spmm_on_every_scatter_route(monkeypatch, calls, route):
    settings, serial_work = ROUTES[route]
    scatter = importlib.import_module("arraygnn.kernels.cpu.scatter")
    for name, value in settings.items():
        monkeypatch.setattr(scatter, name, value)
    for name in ("spmm", "segment", "gather", "csr"):
        module = importlib.import_module(f"arraygnn.kernels.cpu.{name}")
        monkeypatch.setattr(module, "SERIAL_WORK", serial_work)
    rng = np.random.default_rng(6)
    ei = powerlaw_edges(300, 3000, seed=2)
    _check_all(rng, ei, 300, 300, calls, (np.float32,))
    sorted_targets = np.stack([ei[0], np.sort(ei[1])])
    _check_all(rng, sorted_targets, 300, 300, calls, (np.float32,))


def test_narrow_edge_list_spmm_leaves_the_rest_to_the_csr_path(calls, monkeypatch):
    """Wide rows of many messages, other dtypes and reductions, [E, H] weights and bad
    input take the CSR path (which raises the errors)."""
    ei = np.array([[0, 1, 2], [1, 2, 2]])
    x = np.ones((3, 9), np.float32)
    monkeypatch.setattr(importlib.import_module("arraygnn.ops.spmm"), "SMALL_MESSAGES", 26)
    ops.spmm(ei, x)  # 3 x 9 = 27 message values: more than SMALL_MESSAGES
    ops.spmm(ei, np.ones(3, np.float16))
    ops.spmm(ei, np.ones(3, np.int64))
    ops.spmm(ei, np.ones(3, np.float32), reduce="prod")
    ops.spmm(ei, np.ones(3, np.float32), np.ones(3, np.float64))
    ops.spmm(ei, np.ones((3, 2), np.float32), np.ones((3, 2), np.float32))
    assert calls == []
    with pytest.raises(ValueError, match="targets"):
        ops.spmm(ei, np.ones(3, np.float32), num_dst_nodes=2)
    with pytest.raises(ValueError, match="sources"):
        ops.spmm(np.array([[5], [0]]), np.ones(3, np.float32))
    assert calls == []
