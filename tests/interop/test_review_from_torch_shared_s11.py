"""Review of the interop sweep (866c922): ``from_torch`` compares data pointers with the
detached tensor (PyG's EdgeIndex reads 0 itself); a tensor whose ``detach()`` copied must
still be reported as copied, never as shared."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arraygnn.interop import from_torch  # noqa: E402


class _CopyingDetach(torch.Tensor):
    """A tensor subclass whose detach() hands back a copy (as a subclass may)."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.detach:
            return args[0].as_subclass(torch.Tensor).clone()
        return super().__torch_function__(func, types, args, kwargs or {})


def test_detach_that_copies_is_reported_copied():
    t = torch.arange(4.0).as_subclass(_CopyingDetach)
    out, rep = from_torch({"x": t}, report=True)
    assert np.array_equal(out["x"], np.arange(4.0, dtype=np.float32))
    assert "x" not in rep.shared and "x" in rep.copied
    with pytest.raises(Exception, match="without a copy"):
        from_torch({"x": t}, strict=True)


def test_plain_and_edge_index_still_shared():
    t = torch.arange(4)
    out, rep = from_torch({"t": t}, report=True)
    assert rep.shared == ["t"]
    out["t"][0] = 7
    assert int(t[0]) == 7  # writes show through
    pyg = pytest.importorskip("torch_geometric")
    ei = pyg.EdgeIndex(torch.tensor([[0, 1], [1, 0]]), sparse_size=(2, 2))
    out, rep = from_torch({"ei": ei}, report=True)
    assert rep.shared == ["ei"] and out["ei"].tolist() == [[0, 1], [1, 0]]
