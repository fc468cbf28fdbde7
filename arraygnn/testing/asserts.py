"""Equality assertions for ``Data`` / ``Batch`` that also check their invariants.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.testing.asserts import assert_data_equal
>>> assert_data_equal(Data(x=np.ones((2, 1))), Data(x=np.ones((2, 1))))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import is_array, is_torch_tensor, to_numpy

__all__ = ["assert_data_equal", "assert_batch_equal", "assert_batch_invariants"]


def _framework_values(x: Any) -> np.ndarray | None:
    """A torch tensor's / JAX array's values as NumPy (``None`` for anything else)."""
    if is_torch_tensor(x):
        t = x.detach().cpu().resolve_conj().resolve_neg()
        try:
            return t.numpy()
        except TypeError:  # bfloat16, complex32, ...: compare in a wider dtype (exact)
            wide = t.cdouble() if t.is_complex() else t.double()
            return wide.numpy()
    if type(x).__module__.split(".")[0] in ("jax", "jaxlib"):
        return np.asarray(x)
    return None


def _assert_value_equal(a: Any, b: Any, where: str) -> None:
    """Equal values, recursively: arrays (NumPy / CuPy / torch / JAX: class, dtype, shape,
    values, NaN equal to NaN), lists, tuples and dicts of them, then plain values of the
    same type (NaN equal to NaN)."""
    if is_array(a) or is_array(b):
        assert is_array(a) and is_array(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
        assert type(a) is type(b), f"{where}: {type(a).__module__} vs {type(b).__module__} array"
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} vs {b.dtype}"
        assert a.shape == b.shape, f"{where}: shape {a.shape} vs {b.shape}"
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b), err_msg=where)
        return
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    va = _framework_values(a)
    if va is not None:
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} vs {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), f"{where}: shape {a.shape} vs {b.shape}"
        np.testing.assert_array_equal(va, _framework_values(b), err_msg=where)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: {len(a)} vs {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_value_equal(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):  # key order aside, as dict equality
        assert set(a) == set(b), f"{where}: keys {sorted(map(str, a))} vs {sorted(map(str, b))}"
        for k in a:
            _assert_value_equal(a[k], b[k], f"{where}[{k!r}]")
    else:
        if isinstance(a, (float, complex, np.inexact)) and a != a and b != b:
            return  # NaN equals NaN, as inside arrays
        equal = a == b
        assert isinstance(equal, (bool, np.bool_)), (
            f"{where}: cannot compare {type(a).__name__} values ({a!r} == {b!r} gave "
            f"{type(equal).__name__})"
        )
        assert equal, f"{where}: {a!r} vs {b!r}"


def assert_data_equal(a: Any, b: Any, *, check_class: bool = True) -> None:
    """Same class, same keys in the same order, equal values (dtype and shape included)."""
    from arraygnn.data import Data

    assert isinstance(a, Data) and isinstance(b, Data), f"{type(a)} / {type(b)} not Data"
    if check_class:
        assert type(a) is type(b), f"class {type(a).__name__} vs {type(b).__name__}"
    assert a.keys() == b.keys(), f"keys {a.keys()} vs {b.keys()}"
    for key in a.keys():
        _assert_value_equal(a[key], b[key], f"key {key!r}")
    assert a.num_nodes == b.num_nodes, f"num_nodes {a.num_nodes} vs {b.num_nodes}"
    assert a.num_edges == b.num_edges, f"num_edges {a.num_edges} vs {b.num_edges}"


def assert_batch_invariants(batch: Any) -> None:
    """``batch`` / ``ptr`` agree with each other and with ``num_nodes``; every record has
    ``num_graphs + 1`` non-decreasing slices ending at the collated size."""
    g = batch.num_graphs
    assert g is not None and g >= 1, f"num_graphs {g}"
    if "ptr" in batch:
        ptr = to_numpy(batch.ptr)
        vec = to_numpy(batch.batch)
        assert ptr.shape == (g + 1,) and ptr[0] == 0, f"ptr {ptr}"
        assert np.all(np.diff(ptr) >= 0), "ptr decreases"
        assert vec.shape == (int(ptr[-1]),), f"batch has {vec.shape}, ptr ends at {ptr[-1]}"
        np.testing.assert_array_equal(np.bincount(vec, minlength=g), np.diff(ptr))
        assert np.all(np.diff(vec) >= 0), "batch vector not sorted"
        if batch.num_nodes is not None:
            assert batch.num_nodes == int(ptr[-1]), f"num_nodes {batch.num_nodes} vs ptr"
    for key, kind in batch._kind_dict.items():
        sl = np.asarray(batch._slice_dict[key])
        assert sl.shape == (g + 1,) and sl[0] == 0, f"{key}: slices {sl}"
        assert np.all(np.diff(sl) >= 0), f"{key}: slices decrease"
        value = batch[key]
        if kind == "cat":
            c = batch._cat_dim_dict[key]
            assert value.shape[c] == sl[-1], f"{key}: size {value.shape[c]} vs slices {sl[-1]}"
        elif kind == "num_nodes":
            assert value == sl[-1], f"num_nodes {value} vs slices {sl[-1]}"
        else:
            assert len(value) == g, f"{key}: {len(value)} entries for {g} graphs"
            np.testing.assert_array_equal(sl, np.arange(g + 1))
        assert np.asarray(batch._inc_dict[key]).shape[0] == g, f"{key}: increments"


def assert_batch_equal(a: Any, b: Any) -> None:
    """Equal batches: values (as :func:`assert_data_equal`), ``num_graphs``, graph class,
    slice / increment records; both satisfy :func:`assert_batch_invariants`."""
    assert_data_equal(a, b)
    assert a.num_graphs == b.num_graphs, f"num_graphs {a.num_graphs} vs {b.num_graphs}"
    assert a._data_cls is b._data_cls, f"graph class {a._data_cls} vs {b._data_cls}"
    assert a._kind_dict == b._kind_dict, f"kinds {a._kind_dict} vs {b._kind_dict}"
    assert a._cat_dim_dict == b._cat_dim_dict, "cat dims differ"
    for key in a._slice_dict:
        np.testing.assert_array_equal(a._slice_dict[key], b._slice_dict[key], err_msg=key)
        np.testing.assert_array_equal(
            np.asarray(a._inc_dict[key]), np.asarray(b._inc_dict[key]), err_msg=key
        )
    assert_batch_invariants(a)
    assert_batch_invariants(b)
