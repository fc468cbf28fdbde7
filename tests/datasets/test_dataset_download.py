"""download_url / extract_* / makedirs on local files and a local HTTP server (no internet),
compared with PyG's helpers on the same archives."""

from __future__ import annotations

import bz2
import functools
import gzip
import http.server
import io
import os
import tarfile
import threading
import urllib.error
import zipfile

import pytest

from arraygnn.datasets import (
    download_url,
    extract_bz2,
    extract_gz,
    extract_tar,
    extract_zip,
    makedirs,
)


@pytest.fixture
def server(tmp_path):
    """A local HTTP server over tmp_path/www, on a free port."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def tree(folder):
    out = {}
    for dirpath, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, folder)] = open(p, "rb").read()
    return out


def test_download_file_url_and_existing_file(tmp_path, monkeypatch, capsys):
    src = tmp_path / "edges.csv"
    src.write_text("0,1\n")
    folder = tmp_path / "raw" / "deep"
    path = download_url(src.as_uri(), str(folder))
    assert path == os.path.join(str(folder), "edges.csv") and open(path).read() == "0,1\n"
    src.write_text("changed\n")
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    assert download_url(src.as_uri(), str(folder)) == path  # present: not fetched again
    assert open(path).read() == "0,1\n"
    assert "Using existing file edges.csv" in capsys.readouterr().err
    download_url(src.as_uri(), str(folder), log=False, filename="renamed.csv")
    assert open(folder / "renamed.csv").read() == "changed\n"
    assert capsys.readouterr().err == ""


def test_download_over_http_like_pyg(server, tmp_path):
    pyg = pytest.importorskip("torch_geometric.data")
    root, base = server
    (root / "data.bin").write_bytes(bytes(range(256)) * 1000)
    ours = download_url(f"{base}/data.bin?dl=1", str(tmp_path / "a"), log=False)
    theirs = pyg.download_url(f"{base}/data.bin?dl=1", str(tmp_path / "b"), log=False)
    assert os.path.basename(ours) == os.path.basename(theirs) == "data.bin"
    assert open(ours, "rb").read() == open(theirs, "rb").read() == bytes(range(256)) * 1000
    with pytest.raises(urllib.error.HTTPError):
        download_url(f"{base}/missing.zip", str(tmp_path / "c"), log=False)
    assert os.listdir(tmp_path / "c") == []  # nothing half-written counts as downloaded
    with pytest.raises(ValueError, match="no file name"):
        download_url(f"{base}/", str(tmp_path / "d"), log=False)


def make_archives(folder):
    files = {"a.txt": b"alpha", "sub/b.txt": b"beta" * 100}
    with zipfile.ZipFile(folder / "x.zip", "w") as z:
        for name, blob in files.items():
            z.writestr(name, blob)
    for mode, ext in (("w:gz", "tar.gz"), ("w:bz2", "tar.bz2"), ("w", "tar")):
        with tarfile.open(folder / f"x.{ext}", mode) as t:
            for name, blob in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(blob)
                t.addfile(info, io.BytesIO(blob))
    (folder / "g.csv.gz").write_bytes(gzip.compress(b"1,2\n" * 50))
    (folder / "b.csv.bz2").write_bytes(bz2.compress(b"3,4\n" * 50))
    return files


@pytest.mark.parametrize(
    "name, fn, args",
    [
        ("x.zip", "extract_zip", ()),
        ("x.tar.gz", "extract_tar", ()),
        ("x.tar.bz2", "extract_tar", ("r:bz2",)),
        ("x.tar", "extract_tar", ("r",)),
        ("g.csv.gz", "extract_gz", ()),
        ("b.csv.bz2", "extract_bz2", ()),
    ],
)
def test_extract_like_pyg(tmp_path, name, fn, args):
    pyg = pytest.importorskip("torch_geometric.data")
    make_archives(tmp_path)
    ours_dir, pyg_dir = tmp_path / "ours", tmp_path / "pyg"
    for d in (ours_dir, pyg_dir):
        d.mkdir()
        (d / name).write_bytes((tmp_path / name).read_bytes())  # the archive in the folder
    ours = {
        "extract_zip": extract_zip,
        "extract_tar": extract_tar,
        "extract_gz": extract_gz,
        "extract_bz2": extract_bz2,
    }[fn]
    ours(str(ours_dir / name), str(ours_dir), *args, log=False)
    getattr(pyg, fn)(str(pyg_dir / name), str(pyg_dir), *args, log=False)
    assert tree(ours_dir) == tree(pyg_dir)
    assert len(tree(ours_dir)) > 1


def test_extract_stream_honours_folder(tmp_path):
    make_archives(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    extract_gz(str(tmp_path / "g.csv.gz"), str(out), log=False)
    assert (out / "g.csv").read_bytes() == b"1,2\n" * 50


def test_extract_tar_refuses_paths_outside(tmp_path):
    with tarfile.open(tmp_path / "evil.tar", "w") as t:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 1
        t.addfile(info, io.BytesIO(b"x"))
    (tmp_path / "in").mkdir()
    with pytest.raises((tarfile.TarError, ValueError)):
        extract_tar(str(tmp_path / "evil.tar"), str(tmp_path / "in"), mode="r", log=False)
    assert not (tmp_path / "escape.txt").exists()


def test_makedirs_warns_like_pyg(tmp_path):
    with pytest.warns(UserWarning, match="'makedirs' is deprecated, use 'os.makedirs"):
        makedirs(str(tmp_path / "a" / "b"))
    assert (tmp_path / "a" / "b").is_dir()
    with pytest.warns(UserWarning):
        makedirs(str(tmp_path / "a" / "b"))  # exists: fine
