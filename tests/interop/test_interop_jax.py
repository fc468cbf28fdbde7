"""to_jax / from_jax: JAX adopts aligned compact buffers (checked by pointer and by writing
through), everything else is copied once and reported; x64 narrowing is reported."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from arraygnn.interop import (  # noqa: E402
    HandoffCopyError,
    aligned_copy,
    aligned_empty,
    from_jax,
    to_jax,
)


def unaligned(a):
    """A copy of ``a`` whose data pointer is 16 bytes past a 64-byte boundary."""
    raw = np.empty(a.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + 16
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.uint8, np.float16])
def test_aligned_array_is_adopted_and_writes_show(dtype):
    a = aligned_copy(np.arange(64).astype(dtype).reshape(8, 8))
    j, rep = to_jax(a, report=True)
    assert rep.zero_copy and rep.shared == ["<array>"]
    assert j.unsafe_buffer_pointer() == a.ctypes.data
    assert j.dtype == a.dtype
    a[2, 3] = 1 if dtype is not np.bool_ else False
    assert np.asarray(j)[2, 3] == a[2, 3]  # the JAX array reads the same memory


def test_transposed_compact_array_is_adopted():
    a = aligned_copy(np.arange(32, dtype=np.float32).reshape(4, 8))
    j, rep = to_jax(a.T, report=True)
    assert rep.zero_copy and j.shape == (8, 4)
    np.testing.assert_array_equal(np.asarray(j), a.T)


def test_unaligned_array_copied_with_reason():
    a = unaligned(np.arange(100, dtype=np.float32))
    assert a.ctypes.data % 64 == 16
    j, rep = to_jax(a, report=True)
    assert "16 bytes past a 64-byte boundary" in rep.copied["<array>"]
    np.testing.assert_array_equal(np.asarray(j), a)
    a[0] = -1  # a copy: JAX does not see it
    assert float(j[0]) == 0.0
    with pytest.raises(HandoffCopyError, match="64-byte"):
        to_jax(a, strict=True)


def test_int64_narrowed_without_x64_and_kept_with_x64():
    a = aligned_copy(np.arange(10, dtype=np.int64))
    if not jax.config.jax_enable_x64:
        j, rep = to_jax(a, report=True)
        assert j.dtype == np.int32
        assert "narrowed to int32" in rep.copied["<array>"]
        with pytest.raises(HandoffCopyError, match="x64"):
            to_jax(a, strict=True)
        big = aligned_copy(np.array([0, 2**40]))
        with pytest.raises(ValueError, match="do not fit int32"):
            to_jax({"edge_index": big})
    with jax.enable_x64(True):
        j, rep = to_jax(a, report=True)
        assert j.dtype == np.int64 and rep.zero_copy
        assert j.unsafe_buffer_pointer() == a.ctypes.data


def test_float64_narrowed():
    with jax.enable_x64(False):
        j, rep = to_jax(aligned_copy(np.linspace(0, 1, 5)), report=True)
    assert j.dtype == np.float32 and "float64 narrowed" in rep.copied["<array>"]


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda a: a[::-1], "not compact"),
        (lambda a: a[::2], "not compact"),
        (lambda a: np.broadcast_to(a[:1], (8,)), "read-only"),
        (lambda a: a.astype(">f4"), "byte order"),
    ],
)
def test_hazards_copied_with_reason(make, reason):
    a = make(aligned_copy(np.arange(8, dtype=np.float32)))
    j, rep = to_jax(a, report=True)
    assert reason in rep.copied["<array>"]
    np.testing.assert_array_equal(np.asarray(j), a)


def test_readonly_array_copied():
    a = aligned_copy(np.arange(8, dtype=np.float32))
    a.flags.writeable = False
    j, rep = to_jax(a, report=True)
    assert "read-only" in rep.copied["<array>"]
    np.testing.assert_array_equal(np.asarray(j), a)


def test_strings_kept_and_structure():
    x = aligned_empty((3, 2), np.float32)
    x[...] = 1
    out, rep = to_jax({"x": x, "names": np.array([b"a"]), "k": 2, "t": (x,)}, report=True)
    if hasattr(np, "float128"):
        _, rep128 = to_jax(np.zeros(2, np.longdouble), report=True)
        assert "<array>" in rep128.kept
    assert isinstance(out["x"], jax.Array) and isinstance(out["t"], tuple)
    assert out["names"].dtype.kind == "S" and "names" in rep.kept
    assert out["k"] == 2
    assert sorted(rep.shared) == ["t[0]", "x"]


def test_from_jax_read_only_view():
    j = jnp.arange(1000, dtype=jnp.float32) * 2
    a, rep = from_jax(j, report=True)
    assert rep.zero_copy and a.ctypes.data == j.unsafe_buffer_pointer()
    assert not a.flags.writeable
    np.testing.assert_array_equal(a, np.arange(1000) * 2)
    bf, rep = from_jax(jnp.ones(3, jnp.bfloat16), report=True)
    assert str(bf.dtype) == "bfloat16" and rep.zero_copy


def test_round_trip_shares_memory():
    a = aligned_copy(np.arange(16, dtype=np.float32))
    back = from_jax(to_jax({"a": a}))["a"]
    assert back.ctypes.data == a.ctypes.data


def test_data_batch_zero_copy():
    data_mod = pytest.importorskip("arraygnn.data")
    batch_mod = pytest.importorskip("arraygnn.batch")
    rng = np.random.default_rng(0)
    graphs = [
        data_mod.Data(
            x=rng.random((n, 4)).astype(np.float32),
            edge_index=rng.integers(0, n, (2, 2 * n)).astype(np.int32),
        )
        for n in (3, 5, 2)
    ]
    batch = batch_mod.Batch.from_data_list(graphs)
    jb, rep = to_jax(batch, report=True)
    assert type(jb) is type(batch)
    # collated batches are 64-byte aligned, so the float32/int32 arrays are adopted
    assert {"x", "edge_index"} <= set(rep.shared), str(rep)
    assert jb.x.unsafe_buffer_pointer() == batch.x.ctypes.data
    back = from_jax(jb)
    np.testing.assert_array_equal(back.to_data_list()[1].edge_index, graphs[1].edge_index)
