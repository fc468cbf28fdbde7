"""Review (session 10): Planetoid's restricted unpickler must not let a crafted SciPy matrix
(index arrays set through pickle's BUILD, no checks) write out of bounds in ``todense``."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from arraygnn.datasets.planetoid import read_planetoid_data


def _write(raw, tx):
    sp = pytest.importorskip("scipy.sparse")
    n_all, f = 505, 3
    objects = {
        "x": sp.csr_matrix(np.ones((2, f), np.float32)),
        "y": np.eye(2, dtype=np.int32)[[0, 1]],
        "allx": sp.csr_matrix(np.ones((n_all, f), np.float32)),
        "ally": np.eye(2, dtype=np.int32)[np.arange(n_all) % 2],
        "tx": tx,
        "ty": np.eye(2, dtype=np.int32)[[0, 1, 0]],
        "graph": {0: [1], 1: [0]},
    }
    os.makedirs(raw, exist_ok=True)
    for key, value in objects.items():
        with open(os.path.join(raw, f"ind.cora.{key}"), "wb") as fh:
            pickle.dump(value, fh, protocol=2)
    with open(os.path.join(raw, "ind.cora.test.index"), "w") as fh:
        fh.write("506\n505\n507\n")


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_crafted_sparse_indices_are_refused(tmp_path, fmt):
    sp = pytest.importorskip("scipy.sparse")
    tx = sp.csr_matrix(np.eye(3, dtype=np.float32)).asformat(fmt)
    bad = np.array([0, 1, 10**9], dtype=np.int32)  # an index far outside the 3 x 3 matrix
    if fmt == "coo":
        tx.coords = (tx.coords[0], bad)
    else:
        tx.indices = bad
    _write(tmp_path, tx)
    with pytest.raises(ValueError, match=r"ind\.cora\.tx"):
        read_planetoid_data(tmp_path, "cora")


def test_valid_sparse_formats_still_read(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    for fmt in ("csr", "csc", "coo"):
        _write(tmp_path, sp.csr_matrix(2 * np.eye(3, dtype=np.float32)).asformat(fmt))
        data = read_planetoid_data(tmp_path, "cora")
        np.testing.assert_array_equal(data.x[505:], 2 * np.eye(3, dtype=np.float32)[[1, 0, 2]])


@pytest.mark.parametrize(
    "payload",
    [
        b"\x80\x02cscipy.sparse_nope\ncsr_matrix\nq\x00.",  # a module that does not exist
        b"\x80\x02c__builtin__\nint\n(U\x01aK\x05K\x06K\x07tR.",  # int() with 4 arguments
    ],
)
def test_malformed_pickles_are_value_errors_naming_the_file(tmp_path, payload):
    sp = pytest.importorskip("scipy.sparse")
    _write(tmp_path, sp.csr_matrix(np.eye(3, dtype=np.float32)))
    (tmp_path / "ind.cora.allx").write_bytes(payload)
    with pytest.raises(ValueError, match=r"ind\.cora\.allx"):
        read_planetoid_data(tmp_path, "cora")
