"""Review of the DGL face's graph files (session 11): crafted files that loaded silently
wrong graphs, allocated far more memory than the file holds, or raised errors that did not
name the file."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import numpy as np
import pytest

from arraygnn.graph import graph, load_graphs, load_labels, save_graphs


def _members(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _write(path, members, compression=zipfile.ZIP_STORED, raw=None):
    """Write ``members`` (name -> array) as a zip; ``raw`` maps names to .npy bytes."""
    raw = raw or {}
    with zipfile.ZipFile(path, "w", compression) as zf:
        for k, v in members.items():
            if k in raw:
                zf.writestr(k + ".npy", raw[k])
            else:
                buf = io.BytesIO()
                np.save(buf, v, allow_pickle=False)
                zf.writestr(k + ".npy", buf.getvalue())


def _saved(path, n=3):
    graphs = []
    for i in range(n):
        g = graph((np.array([0]), np.array([0])), num_nodes=1)
        g.ndata["h"] = np.full((1, 2), float(i))
        graphs.append(g)
    save_graphs(str(path), graphs, {"y": np.arange(n)})
    members = _members(path)
    return members, json.loads(members["header"].tobytes())


@pytest.mark.parametrize("what", ["num_nodes", "num_edges"])
def test_counts_that_wrap_past_int64_are_refused(tmp_path, what):
    """Counts whose sum wraps around int64 to the stored row count cut graph 2's rows from
    the end of the arrays: a 5-node graph with 2 feature rows (or a huge graph) came back."""
    path = tmp_path / "g.bin"
    members, header = _saved(path)
    key = header["groups"][0][what]
    counts = members[key].copy()
    counts[:, 0] = [2**63 - 1, 2**63 - 1, 5]  # sums to 3 modulo 2**64
    members[key] = counts
    _write(path, members)
    with pytest.raises(ValueError, match="g.bin.*corrupted.*past int64"):
        load_graphs(str(path))


def test_compressed_or_encrypted_members_and_sizes_past_the_file_are_refused(tmp_path):
    """save_graphs writes stored members: a deflated one (a small file inflating to GBs),
    an encrypted one (zipfile's RuntimeError) or one declaring more bytes than the file
    holds is refused before any array is allocated, naming the file."""
    path = tmp_path / "g.bin"
    members, header = _saved(path)
    label = header["labels"][0][1]
    _write(path, members, zipfile.ZIP_DEFLATED)
    with pytest.raises(ValueError, match="g.bin.*corrupted.*compressed"):
        load_labels(str(path))

    _write(path, members)
    blob = bytearray(path.read_bytes())
    name = (label + ".npy").encode()
    # the central directory entry of the label member: flags at +8, sizes at +20 / +24
    at = next(
        i
        for i in range(len(blob))
        if blob[i : i + 4] == b"PK\x01\x02" and blob[i + 46 : i + 46 + len(name)] == name
    )
    encrypted = bytearray(blob)
    encrypted[at + 8] |= 1
    path.write_bytes(bytes(encrypted))
    with pytest.raises(ValueError, match="g.bin.*corrupted.*encrypted"):
        load_labels(str(path))
    big = bytearray(blob)
    big[at + 20 : at + 28] = struct.pack("<II", 0xFFFFFF00, 0xFFFFFF00)
    path.write_bytes(bytes(big))
    with pytest.raises(ValueError, match="g.bin.*corrupted.*larger than the file"):
        load_labels(str(path))


@pytest.mark.parametrize("shape", [(-1, -1), (-2, -3), (3, -1)])
def test_negative_dimensions_in_an_array_header_name_the_file(tmp_path, shape):
    path = tmp_path / "g.bin"
    members, header = _saved(path)
    label = header["labels"][0][1]
    head = f"{{'descr': '|u1', 'fortran_order': False, 'shape': {shape!r}, }}"
    head += " " * (63 - (len(head) + 10) % 64) + "\n"
    npy = np.lib.format.magic(1, 0) + struct.pack("<H", len(head)) + head.encode()
    npy += bytes(abs(int(np.prod(shape))))
    _write(path, members, raw={label: npy})
    with pytest.raises(ValueError, match="g.bin.*corrupted.*shape"):
        load_labels(str(path))
