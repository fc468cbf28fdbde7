"""Helpers of the structure-transform tests: random graphs, a PyG copy of a ``Data``, a
snapshot that proves the input was not modified, and a comparison with PyG's output
(:func:`run`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData


def random_graph(
    seed: int,
    n: int = 9,
    e: int = 20,
    idtype: Any = np.int64,
    fdtype: Any = np.float32,
    loops: bool = True,
    multi: bool = True,
    **extra: Any,
) -> Data:
    """Edges among the first ``n - 2`` nodes (the last two isolated), with self-loops and
    parallel edges when asked; ``x`` [n, 3], plus ``extra`` arrays."""
    rng = np.random.default_rng(seed)
    touched = max(n - 2, 1)
    ei = rng.integers(0, touched, (2, e)) if n else np.zeros((2, 0), np.int64)
    if not loops and ei.size:
        ei = ei[:, ei[0] != ei[1]]
    if loops and ei.size:
        ei[:, 0] = [0, 0]
    if multi and ei.shape[1] > 2:
        ei[:, 1] = ei[:, 2]
    x = rng.standard_normal((n, 3)).astype(fdtype)
    return Data(x=x, edge_index=ei.astype(idtype), **extra)


def empty_graph(idtype: Any = np.int64, fdtype: Any = np.float32, n: int = 0) -> Data:
    return Data(x=np.zeros((n, 3), fdtype), edge_index=np.zeros((2, 0), idtype))


def snapshot(data: Any) -> dict[Any, Any]:
    """A copy of every array of ``data`` (``Data`` or ``HeteroData``), by store and key."""
    if isinstance(data, HeteroData):
        stores = [("global", data._global)]
        stores += [(s._key, s._mapping) for s in data.node_stores + data.edge_stores]
    else:
        stores = [("data", data._store)]
    return {(name, k): (v, v.copy()) for name, m in stores for k, v in m.items() if is_array(v)}


def assert_unchanged(data: Any, snap: dict[Any, Any]) -> None:
    """Every array ``data`` held is still there, the same object, with the same values."""
    now = snapshot(data)
    assert set(now) == set(snap)
    for key, (obj, copy) in snap.items():
        assert now[key][0] is obj, key
        np.testing.assert_array_equal(obj, copy, err_msg=str(key))
        assert obj.dtype == copy.dtype


def to_pyg(data: Data, long_ids: bool = True) -> Any:
    """The same graph as a ``torch_geometric.data.Data`` (int ids as int64 for PyG)."""
    import torch
    from torch_geometric.data import Data as PygData

    out = PygData()
    for k, v in data.items():
        if is_array(v):
            v = np.ascontiguousarray(v)
            if long_ids and v.dtype.kind in "iu" and "index" in k:
                v = v.astype(np.int64)
            out[k] = torch.from_numpy(v.copy())
        else:
            out[k] = v
    return out


def hetero_to_pyg(data: HeteroData) -> Any:
    import torch
    from torch_geometric.data import HeteroData as PygHetero

    out = PygHetero()
    for s in data.node_stores + data.edge_stores:
        for k, v in s.items():
            if is_array(v):
                if v.dtype.kind in "iu" and "index" in k:
                    v = v.astype(np.int64)
                out[s._key][k] = torch.from_numpy(np.ascontiguousarray(v).copy())
            else:
                out[s._key][k] = v
    return out


def assert_matches(
    ours: Any, ref: Any, keys: Any = None, rtol: float = 1e-5, atol: float = 1e-6
) -> None:
    """``ours`` (a ``Data``) has the arrays of ``ref`` (a PyG ``Data``) under the same keys
    (``keys``: those to compare; default every tensor of ``ref``), equal values, the same
    float dtypes; integer index arrays compared by value."""
    import torch

    names = keys if keys is not None else [k for k, v in ref.items() if torch.is_tensor(v)]
    if keys is None and "num_nodes" in ref:
        assert ours.num_nodes == int(ref.num_nodes)
    for k in names:
        assert k in ours, f"missing {k!r}"
        if not torch.is_tensor(ref[k]):
            assert ours[k] == ref[k], (k, ours[k], ref[k])
            continue
        theirs = ref[k].numpy()
        mine = np.asarray(ours[k])
        assert mine.shape == theirs.shape, (k, mine.shape, theirs.shape)
        if theirs.dtype.kind == "f":
            assert mine.dtype == theirs.dtype, (k, mine.dtype, theirs.dtype)
            np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=atol, err_msg=k)
        else:
            np.testing.assert_array_equal(mine, theirs, err_msg=k)
    if keys is None:
        extra = [k for k, v in ours.items() if is_array(v) and k not in ref]
        assert not extra, f"keys PyG has not: {extra}"


IDS = [np.int32, np.int64]
FLOATS = [np.float32, np.float64]


def run(ours: Any, theirs: Any, data: Data, keys: Any = None, **tol: float) -> Any:
    """Apply both (``theirs`` to a PyG copy), check the input is untouched, the outputs
    agree and ``edge_index`` keeps its dtype; return ours."""
    snap = snapshot(data)
    out = ours(data)
    assert_unchanged(data, snap)
    assert_matches(out, theirs(to_pyg(data)), keys, **tol)
    if "edge_index" in out:
        assert out.edge_index.dtype == data.edge_index.dtype
    return out


def graphs(idtype: Any, fdtype: Any, **extra: Any) -> list[Data]:
    """Three random graphs and one without edges (:func:`random_graph`)."""
    out = [random_graph(s, idtype=idtype, fdtype=fdtype, **extra) for s in range(3)]
    return out + [random_graph(5, n=6, e=0, idtype=idtype, fdtype=fdtype, **extra)]
