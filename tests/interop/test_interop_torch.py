"""to_torch / from_torch: memory really shared (pointer + write-through), hazards copied and
reported, strict mode raises, structures kept."""

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arraygnn.interop import HandoffCopyError, from_torch, to_torch  # noqa: E402


class Bag:
    """A minimal Data-like container (keys / copy / item access) for structure tests."""

    def __init__(self, **kw):
        self._store = dict(kw)

    def keys(self):
        return list(self._store)

    def copy(self):
        return type(self)(**self._store)

    def __getitem__(self, k):
        return self._store[k]

    def __setitem__(self, k, v):
        self._store[k] = v


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_, np.int8])
def test_array_aliases_and_writes_through(dtype):
    a = np.zeros((4, 3), dtype=dtype)
    t, rep = to_torch(a, report=True)
    assert rep.zero_copy and rep.shared == ["<array>"]
    assert t.data_ptr() == a.ctypes.data
    t[1, 2] = 1
    assert a[1, 2] == 1  # a write through the tensor is visible in NumPy
    a[0, 0] = 1
    assert bool(t[0, 0])


def test_strided_view_is_shared_not_copied():
    base = np.arange(40.0).reshape(5, 8)
    view = base[1:, ::2].T
    t, rep = to_torch(view, report=True)
    assert rep.zero_copy
    assert t.data_ptr() == view.__array_interface__["data"][0]
    np.testing.assert_array_equal(t.numpy(), view)


def test_negative_strides_copied_and_reported_not_crashing():
    a = np.arange(10.0)
    t, rep = to_torch(a[::-1], report=True)
    np.testing.assert_array_equal(t.numpy(), a[::-1])
    assert "negative strides" in rep.copied["<array>"]
    t[0] = -1.0
    assert a[-1] == 9.0  # a copy: the original is untouched
    with pytest.raises(HandoffCopyError, match="negative strides"):
        to_torch(a[::-1], strict=True)


def test_readonly_array_is_copied(tmp_path):
    a = np.arange(6.0)
    a.flags.writeable = False
    t, rep = to_torch(a, report=True)
    assert "read-only" in rep.copied["<array>"]
    assert t.data_ptr() != a.ctypes.data
    t[0] = 5.0  # writable copy, original untouched
    assert a[0] == 0.0
    with pytest.raises(HandoffCopyError, match="read-only"):
        to_torch(a, strict=True)


def test_readonly_memmap_write_does_not_segfault(tmp_path):
    # Sharing a read-only memory map with torch and writing through the tensor kills the
    # process with SIGSEGV; run in a subprocess so a regression fails the test, not pytest.
    path = tmp_path / "a.npy"
    np.save(path, np.arange(1000.0))
    code = (
        "import numpy as np; from arraygnn.interop import to_torch\n"
        f"m = np.load({str(path)!r}, mmap_mode='r')\n"
        "t, rep = to_torch({'x': m}, report=True)\n"
        "t['x'][0] = 7.0\n"
        "assert m[0] == 0.0 and 'read-only' in rep.copied['x']\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "ok"


def test_byteswapped_and_structured_fields_copied():
    a = np.arange(5, dtype=">f8")
    t, rep = to_torch(a, report=True)
    assert "byte order" in rep.copied["<array>"]
    np.testing.assert_array_equal(t.numpy(), np.arange(5.0))
    rec = np.zeros(4, dtype=[("a", "i4"), ("b", "f8")])
    rec["b"] = [1, 2, 3, 4]
    t, rep = to_torch(rec["b"], report=True)
    assert "item size" in rep.copied["<array>"]
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3, 4])


def test_structures_kept_and_non_arrays_pass_through():
    x = np.ones((3, 2), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    obj = {"g": Bag(x=x, edge_index=ei, name="mol", n=3), "l": [x, (ei,)], "s": np.array(["a"])}
    out, rep = to_torch(obj, report=True)
    assert isinstance(out["g"], Bag) and out["g"] is not obj["g"]
    assert isinstance(out["g"]["x"], torch.Tensor) and out["g"]["x"].data_ptr() == x.ctypes.data
    assert out["g"]["name"] == "mol" and out["g"]["n"] == 3
    assert isinstance(out["l"], list) and isinstance(out["l"][1], tuple)
    assert out["l"][1][0].data_ptr() == ei.ctypes.data
    assert isinstance(out["s"], np.ndarray) and "s" in rep.kept
    assert sorted(rep.shared) == ["g.edge_index", "g.x", "l[0]", "l[1][0]"]
    # the input is not mutated
    assert isinstance(obj["g"]["x"], np.ndarray)


def test_from_torch_shares_and_round_trips():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    a, rep = from_torch(t, report=True)
    assert rep.zero_copy and a.ctypes.data == t.data_ptr()
    a[0, 0] = 100.0
    assert t[0, 0].item() == 100.0
    back = to_torch(from_torch({"t": t}))["t"]
    assert back.data_ptr() == t.data_ptr()


def test_from_torch_grad_conj_bf16_sparse():
    w = torch.ones(3, requires_grad=True)
    a, rep = from_torch(w, report=True)
    assert rep.zero_copy and a.ctypes.data == w.data_ptr()
    c = torch.ones(3, dtype=torch.complex64).conj()
    a, rep = from_torch(c, report=True)
    assert "conjugate" in rep.copied["<array>"]
    bf = torch.ones(2, dtype=torch.bfloat16)
    sp = torch.eye(2).to_sparse()
    out, rep = from_torch({"bf": bf, "sp": sp}, report=True)
    assert out["sp"] is sp and "sp" in rep.kept
    # bfloat16 comes back as an ml_dtypes array (shared) where ml_dtypes is installed
    assert (out["bf"] is bf) == ("bf" in rep.kept)
    with pytest.raises(HandoffCopyError):
        from_torch(c, strict=True)


def test_empty_and_zero_dim_arrays():
    for a in (np.zeros((0, 3), np.float32), np.array(2.5), np.zeros(0, np.int64)):
        t, rep = to_torch(a, report=True)
        assert tuple(t.shape) == a.shape and rep.zero_copy


def test_data_and_batch_round_trip():
    data_mod = pytest.importorskip("arraygnn.data")
    batch_mod = pytest.importorskip("arraygnn.batch")
    g1 = data_mod.Data(x=np.ones((3, 2), np.float32), edge_index=np.array([[0, 1], [1, 2]]))
    g2 = data_mod.Data(x=np.zeros((2, 2), np.float32), edge_index=np.array([[1], [0]]))
    batch = batch_mod.Batch.from_data_list([g1, g2])
    tb, rep = to_torch(batch, report=True)
    assert type(tb) is type(batch)
    assert rep.zero_copy
    for key in batch.keys():
        v = batch[key]
        if isinstance(v, np.ndarray):
            assert isinstance(tb[key], torch.Tensor), key
            assert tb[key].data_ptr() == v.ctypes.data or v.size == 0, key
    back = from_torch(tb)
    assert type(back) is type(batch)
    parts = back.to_data_list()
    np.testing.assert_array_equal(parts[1].edge_index, g2.edge_index)
    np.testing.assert_array_equal(parts[0].x, g1.x)
