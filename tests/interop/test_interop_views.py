"""Random views (slices with any step, transposes, read-only flags): every hand-off gives the
right values, and 'shared' in the report means the memory really is shared."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraygnn.interop import HandoffReport, aligned_copy, aligned_empty, data_pointer


@st.composite
def views(draw):
    shape = draw(st.lists(st.integers(0, 5), min_size=1, max_size=3))
    dtype = draw(st.sampled_from([np.float32, np.int32, np.float64, np.int64, np.uint8]))
    base = aligned_copy(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))
    index = tuple(
        slice(draw(st.integers(0, 2)), None, draw(st.sampled_from([1, 2, -1]))) for _ in shape
    )
    view = base[index]
    if draw(st.booleans()):
        view = view.T
    if draw(st.booleans()):
        view.flags.writeable = False
    return base, view


def written_through(view, write):
    """Write through the framework object and check whether ``view`` sees it."""
    if view.size == 0:
        return None
    before = view.copy()
    write()
    changed = not np.array_equal(view, before)
    return changed


@settings(max_examples=40, deadline=None)
@given(views())
def test_torch_views(bv):
    torch = pytest.importorskip("torch")
    from arraygnn.interop import to_torch

    base, view = bv
    t, rep = to_torch(view, report=True)
    np.testing.assert_array_equal(t.numpy(), view)
    hazard = any(s < 0 for s in view.strides) or not view.flags.writeable
    hazard = hazard and view.size > 0  # empty arrays count as shared (docs/interop.md)
    assert rep.zero_copy == (not hazard), str(rep)
    if view.size and rep.zero_copy:
        assert t.data_ptr() == data_pointer(view)
        flat = t.reshape(-1) if t.is_contiguous() else None
        if flat is not None:
            assert written_through(view, lambda: flat.__setitem__(0, flat[0] + 1))
    if view.size and not rep.zero_copy:
        base_before = base.copy()
        t.fill_(7 if t.dtype != torch.bool else 1)
        np.testing.assert_array_equal(base, base_before)  # a copy never writes back


@settings(max_examples=40, deadline=None)
@given(views())
def test_jax_views(bv):
    jax = pytest.importorskip("jax")
    from arraygnn.interop import to_jax

    base, view = bv
    with jax.enable_x64(True):
        j, rep = to_jax(view, report=True)
        np.testing.assert_array_equal(np.asarray(j), view)
    compact = all(s >= 0 for s in view.strides) and (
        view.flags.c_contiguous or view.flags.f_contiguous
    )
    if rep.zero_copy and view.size:
        assert j.unsafe_buffer_pointer() == data_pointer(view)
        assert view.flags.writeable
        # JAX reads the NumPy memory: a NumPy write shows up in what JAX computes
        # (np.asarray(j) itself may be a cached host copy for non-C layouts)
        base.reshape(-1)[...] += 1
        with jax.enable_x64(True):  # float64 / int64 arithmetic without a truncation warning
            np.testing.assert_array_equal(np.asarray(j + 0), view)
    aligned = data_pointer(view) % 64 == 0
    if view.size > 1 and view.flags.writeable and compact and aligned:
        assert rep.zero_copy, str(rep)  # aligned, compact and writable: must be adopted
    if view.size and not aligned:
        assert "64-byte boundary" in rep.copied["<array>"]


def test_aligned_helpers():
    for shape, dtype in [((3, 5), np.float32), ((0,), np.int64), ((7,), np.uint8), (4, "f8")]:
        a = aligned_empty(shape, dtype)
        assert a.shape == np.empty(shape).shape and a.dtype == np.dtype(dtype)
        assert a.flags.c_contiguous and a.flags.writeable
        assert a.size == 0 or a.ctypes.data % 64 == 0
    src = np.arange(12, dtype=">i4").reshape(3, 4).T
    c = aligned_copy(src)
    assert c.ctypes.data % 64 == 0 and c.dtype == np.int32 and c.flags.c_contiguous
    np.testing.assert_array_equal(c, src)


def test_report_text():
    r = HandoffReport("jax", shared=["x"], copied={"y": "why"}, kept={"s": "str"})
    assert not r.zero_copy
    assert str(r) == "to jax: 1 shared, 1 copied (y: why), 1 kept (s: str)"
    assert HandoffReport("torch").zero_copy


def test_frameworks_missing_name_the_extra(monkeypatch):
    import builtins

    from arraygnn.interop import to_jax, to_torch

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in ("torch", "jax"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"arraygnn\[torch\]"):
        to_torch(np.zeros(2))
    with pytest.raises(ImportError, match=r"arraygnn\[jax\]"):
        to_jax(np.zeros(2))
