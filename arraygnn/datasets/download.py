"""Raw files onto disk: ``download_url``, ``extract_zip`` / ``tar`` / ``gz`` / ``bz2`` and
``makedirs``, as ``torch_geometric.data`` has them, on the standard library (``urllib``,
``zipfile``, ``tarfile``, ``gzip``, ``bz2``).

>>> import os, pathlib, tempfile, zipfile
>>> from arraygnn.datasets import download_url, extract_zip
>>> src = pathlib.Path(tempfile.mkdtemp())
>>> with zipfile.ZipFile(src / "raw.zip", "w") as z:
...     z.writestr("graphs/edges.csv", "0,1\\n1,2\\n")
>>> folder = tempfile.mkdtemp()
>>> path = download_url((src / "raw.zip").as_uri(), folder, log=False)
>>> os.path.basename(path)
'raw.zip'
>>> extract_zip(path, folder, log=False)
>>> open(os.path.join(folder, "graphs", "edges.csv")).read().split()
['0,1', '1,2']
"""

from __future__ import annotations

import os
import os.path as osp
import shutil
import warnings

from arraygnn.datasets.base import _log

__all__ = [
    "download_google_url",
    "download_url",
    "extract_bz2",
    "extract_gz",
    "extract_tar",
    "extract_zip",
    "makedirs",
]

_CHUNK = 10 * 1024 * 1024


def download_url(url: str, folder: str, log: bool = True, filename: str | None = None) -> str:
    """Download ``url`` into ``folder`` and return the file's path.

    The file name is ``filename`` or the URL's last part (a query string cut off); a file
    already there is not downloaded again (PyG's rule). Any URL ``urllib`` opens works
    (``https://``, ``http://``, ``file://``). The data goes to a temporary name first and
    is moved into place when complete, so an interrupted download leaves no file that
    would count as present.

    A ``filename`` with folders in it (``"sub/name.csv"``) gets them made, as PyG's.

    Differs from PyG: TLS certificates are verified (PyG turns verification off).
    """
    import urllib.request

    if filename is None:
        filename = url.rpartition("/")[2]
        filename = filename if filename[:1] == "?" else filename.split("?")[0]
    if not filename:
        raise ValueError(f"download_url: no file name in {url!r}; pass filename=")
    path = osp.join(folder, filename)
    if osp.exists(path):
        _log(log, f"Using existing file {filename}")
        return path
    _log(log, f"Downloading {url}")
    os.makedirs(osp.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.part{os.getpid()}"
    try:
        with urllib.request.urlopen(url) as response, open(tmp, "wb") as f:
            shutil.copyfileobj(response, f, _CHUNK)
        os.replace(tmp, path)
    finally:
        if osp.exists(tmp):
            os.remove(tmp)
    return path


def download_google_url(id: str, folder: str, filename: str, log: bool = True) -> str:
    """Download the Google Drive file ``id`` into ``folder`` as ``filename``."""
    url = f"https://drive.usercontent.google.com/download?id={id}&confirm=t"
    return download_url(url, folder, log, filename)


def extract_tar(path: str, folder: str, mode: str = "r:gz", log: bool = True) -> None:
    """Extract the tar archive ``path`` into ``folder`` (``mode`` as ``tarfile.open``).
    Members that would land outside ``folder`` (absolute paths, ``..``, links out) are
    refused, as PyG's ``filter='data'``.

    Differs from PyG: ``mode`` must be a reading mode (``"r"``, ``"r:*"``, ``"r:gz"``,
    ``"r|xz"``, ...); PyG passes any mode on, and ``"w"`` empties the archive."""
    import tarfile

    if not isinstance(mode, str):
        raise TypeError(f"extract_tar: mode must be a str such as 'r:gz', got {mode!r}")
    if mode[:1] != "r" or mode[1:2] not in ("", ":", "|"):
        raise ValueError(
            f"extract_tar: mode must be a reading mode ('r', 'r:*', 'r:gz', 'r:bz2', "
            f"'r:xz', 'r|gz', ...), got {mode!r}"
        )
    _log(log, f"Extracting {path}")
    with tarfile.open(path, mode) as f:
        if hasattr(tarfile, "data_filter"):
            f.extractall(folder, filter="data")
        else:  # pragma: no cover - Python without extraction filters
            root = osp.realpath(folder)
            for m in f.getmembers():
                target = osp.realpath(osp.join(folder, m.name))
                if osp.commonpath([root, target]) != root or m.issym() or m.islnk():
                    raise ValueError(f"extract_tar: member {m.name!r} leaves {folder!r}")
            f.extractall(folder)


def extract_zip(path: str, folder: str, log: bool = True) -> None:
    """Extract the zip archive ``path`` into ``folder``."""
    import zipfile

    _log(log, f"Extracting {path}")
    with zipfile.ZipFile(path, "r") as f:
        f.extractall(folder)


def _extract_stream(path: str, folder: str, log: bool, opener: object, where: str) -> None:
    _log(log, f"Extracting {path}")
    name = osp.basename(path).rpartition(".")[0]
    if not name:  # the output would be named as the archive: it could overwrite it
        raise ValueError(
            f"{where}: {osp.basename(path)!r} has no extension to strip for the output name"
        )
    os.makedirs(folder, exist_ok=True)
    out = osp.join(folder, name)
    tmp = f"{out}.part{os.getpid()}"  # a corrupt archive leaves no output that looks done
    try:
        with opener(path, "rb") as r, open(tmp, "wb") as w:  # type: ignore[operator]
            shutil.copyfileobj(r, w, _CHUNK)
        os.replace(tmp, out)
    finally:
        if osp.exists(tmp):
            os.remove(tmp)


def extract_bz2(path: str, folder: str, log: bool = True) -> None:
    """Decompress ``path`` (``name.ext.bz2``) to ``folder/name.ext``.

    Differs from PyG: PyG writes beside the archive whatever ``folder`` is (the same
    place when the archive lies in ``folder``, the usual case); ``folder`` is made when
    missing; a corrupt archive raises leaving no output file (PyG leaves a partial one)."""
    import bz2

    _extract_stream(path, folder, log, bz2.open, "extract_bz2")


def extract_gz(path: str, folder: str, log: bool = True) -> None:
    """Decompress ``path`` (``name.ext.gz``) to ``folder/name.ext`` (see
    :func:`extract_bz2` for the one difference from PyG)."""
    import gzip

    _extract_stream(path, folder, log, gzip.open, "extract_gz")


def makedirs(path: str) -> None:
    """Create ``path`` and its parents (deprecated in PyG, with the same warning)."""
    warnings.warn(
        "'makedirs' is deprecated, use 'os.makedirs(path, exist_ok=True)' instead",
        stacklevel=2,
    )
    os.makedirs(osp.expanduser(osp.normpath(path)), exist_ok=True)
