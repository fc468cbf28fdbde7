"""DGL's dataset base class ``dgl.data.DGLDataset`` and the ``dgl.data.utils`` helpers its
subclasses use (``download``, ``extract_archive``, ``get_download_dir``, ``makedirs``,
``check_sha1``, ``split_dataset``, ``Subset``), for datasets of DGL-face graphs.

>>> import os, tempfile
>>> import numpy as np
>>> from arraygnn.graph import DGLDataset, graph, load_graphs, save_graphs
>>> class Rings(DGLDataset):
...     def __init__(self, raw_dir=None, force_reload=False):
...         super().__init__(name="rings", raw_dir=raw_dir, force_reload=force_reload)
...     def process(self):
...         self.graphs = [graph((np.arange(n), (np.arange(n) + 1) % n)) for n in (3, 4)]
...         self.labels = np.array([0, 1])
...     def save(self):
...         save_graphs(os.path.join(self.save_path, "graphs.bin"), self.graphs,
...                     {"labels": self.labels})
...     def load(self):
...         self.graphs, labels = load_graphs(os.path.join(self.save_path, "graphs.bin"))
...         self.labels = labels["labels"]
...     def has_cache(self):
...         return os.path.exists(os.path.join(self.save_path, "graphs.bin"))
...     def __getitem__(self, i):
...         return self.graphs[i], self.labels[i]
...     def __len__(self):
...         return len(self.graphs)
>>> root = tempfile.mkdtemp()
>>> ds = Rings(root)                  # processes, then saves into save_path
>>> len(ds), ds[1][0].num_edges(), int(ds[1][1])
(2, 4, 1)
>>> Rings(root)[0][0].num_nodes()     # a second instance loads the saved graphs
3

RULE: ``__init__`` runs DGL's steps: ``has_cache()`` (unless ``force_reload``) ->
  ``load()``; otherwise ``download()`` (only when ``raw_path`` is missing) -> ``process()``
  -> ``save()``. A ``load()`` that raises falls back to downloading and processing, as DGL.
RULE: nothing is written at import; ``get_download_dir()`` creates its folder when called.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import traceback
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

import numpy as np

__all__ = [
    "DGLDataset",
    "DGLBuiltinDataset",
    "Subset",
    "split_dataset",
    "download",
    "check_sha1",
    "extract_archive",
    "get_download_dir",
    "makedirs",
]


def get_download_dir() -> str:
    """The default folder of datasets (``raw_dir=None``): ``$ARRAYGNN_DOWNLOAD_DIR``, else
    ``~/.arraygnn/dgl``; created when missing.

    Differs from DGL (``$DGL_DOWNLOAD_DIR`` / ``~/.dgl``): the processed files written here
    are arraygnn's, so they are kept apart from a DGL installation's caches, which this
    package cannot read (and must not overwrite)."""
    default = os.path.join(os.path.expanduser("~"), ".arraygnn", "dgl")
    dirname = os.environ.get("ARRAYGNN_DOWNLOAD_DIR", default)
    os.makedirs(dirname, exist_ok=True)
    return dirname


def makedirs(path: str) -> None:
    """Create ``path`` and its parents; an existing folder is fine (DGL's ``makedirs``)."""
    os.makedirs(os.path.expanduser(os.path.normpath(path)), exist_ok=True)


def check_sha1(filename: str, sha1_hash: str) -> bool:
    """Whether the SHA-1 of the file's content is ``sha1_hash`` (hexadecimal)."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def download(
    url: str,
    path: str | None = None,
    overwrite: bool = True,
    sha1_hash: str | None = None,
    retries: int = 5,
    verify_ssl: bool = True,
    log: bool = True,
) -> str:
    """Download ``url`` (DGL's ``dgl.data.utils.download``) and return the file's path.

    ``path``: a folder (the URL's last part is the name) or a file name; ``None``: the URL's
    last part in the current folder. The file is fetched when ``overwrite`` (the default,
    as DGL), when it is missing, or when ``sha1_hash`` is given and does not match; a
    download whose hash does not match raises ``ValueError`` after the tries. Failures are
    tried again: ``max(retries, 1)`` attempts in all, as DGL's loop. The data goes to a
    temporary name and is moved into place when complete. Any URL ``urllib`` opens works
    (``https://``, ``http://``, ``file://``); ``verify_ssl=False`` turns TLS certificate
    checks off (with a warning, as DGL).
    """
    import urllib.request
    import warnings

    if path is None:
        fname = url.split("/")[-1]
        if not fname:
            raise ValueError(f"download: no file name in {url!r}; pass path=")
    else:
        path = os.path.expanduser(os.fspath(path))
        fname = os.path.join(path, url.split("/")[-1]) if os.path.isdir(path) else path
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"download: retries must be an int >= 0, got {retries!r}")
    context = None
    if not verify_ssl:
        import ssl

        warnings.warn(
            "Unverified HTTPS request is being made (verify_ssl=False). Adding certificate "
            "verification is strongly advised.",
            stacklevel=2,
        )
        context = ssl._create_unverified_context()
    if not (
        overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash))
    ):
        return fname
    folder = os.path.dirname(os.path.abspath(fname))
    os.makedirs(folder, exist_ok=True)
    attempts = max(retries, 1)
    for attempt in range(attempts):
        tmp = f"{fname}.part{os.getpid()}"
        try:
            if log:
                print(f"Downloading {fname} from {url}...", file=sys.stderr)
            with urllib.request.urlopen(url, context=context) as response, open(tmp, "wb") as f:
                shutil.copyfileobj(response, f, 1 << 20)
            if sha1_hash and not check_sha1(tmp, sha1_hash):
                raise ValueError(
                    f"download: {url!r} was downloaded but its content hash does not match "
                    f"{sha1_hash!r}; the file may be outdated or the download incomplete"
                )
            os.replace(tmp, fname)
            return fname
        except Exception:
            if attempt == attempts - 1:
                raise
            if log:
                left = attempts - 1 - attempt
                print(
                    f"download failed, retrying, {left} attempt{'s' if left > 1 else ''} left",
                    file=sys.stderr,
                )
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    return fname  # pragma: no cover - the loop returns or raises


def extract_archive(file: str, target_dir: str, overwrite: bool = True) -> None:
    """Extract ``file`` into ``target_dir`` (DGL's ``dgl.data.utils.extract_archive``):
    ``.tar``, ``.tar.gz``, ``.tgz``, ``.gz`` (one file, its name without ``.gz``) or
    ``.zip``; nothing is done when ``target_dir`` exists and not ``overwrite``. Tar members
    that would land outside ``target_dir`` are refused (``tarfile``'s data filter);
    another file type raises ``ValueError``."""
    from arraygnn.datasets.download import extract_tar, extract_zip

    if os.path.exists(target_dir) and not overwrite:
        return
    name = os.fspath(file)
    if name.endswith((".tar.gz", ".tar", ".tgz")):
        os.makedirs(target_dir, exist_ok=True)
        extract_tar(name, target_dir, mode="r", log=False)
    elif name.endswith(".gz"):
        import gzip

        os.makedirs(target_dir, exist_ok=True)
        target = os.path.join(target_dir, os.path.basename(name)[:-3])
        with gzip.open(name, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    elif name.endswith(".zip"):
        extract_zip(name, target_dir, log=False)
    else:
        raise ValueError(
            f"extract_archive: {name!r} is not a .zip, .tar, .tar.gz, .tgz or .gz archive"
        )


class Subset:
    """The items of ``dataset`` at ``indices`` (DGL's ``dgl.data.utils.Subset``)."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, item: int) -> Any:
        return self.dataset[self.indices[item]]

    def __len__(self) -> int:
        return len(self.indices)


def split_dataset(
    dataset: Any,
    frac_list: Sequence[float] | None = None,
    shuffle: bool = False,
    random_state: Any = None,
) -> list[Subset]:
    """Split ``dataset`` into train / validation / test :class:`Subset` s (DGL's
    ``dgl.data.utils.split_dataset``, the same draws).

    ``frac_list`` (default ``[0.8, 0.1, 0.1]``) must sum to 1 and hold no negative value
    (``ValueError`` otherwise; DGL asserts the sum only); the first two lengths are
    ``int(len * frac)``, the last takes the rest.
    ``shuffle`` permutes with ``np.random.RandomState(random_state)``, as DGL, so the
    same seed gives DGL's split; otherwise the split is consecutive.

    >>> train, val, test = split_dataset(list(range(10)), shuffle=True, random_state=0)
    >>> len(train), len(val), len(test), train.indices[:3].tolist()
    (8, 1, 1, [2, 8, 4])
    """
    if frac_list is None:
        frac_list = [0.8, 0.1, 0.1]
    fracs = np.asarray(frac_list, dtype=np.float64)
    if fracs.ndim != 1 or not np.allclose(np.sum(fracs), 1.0):
        raise ValueError(
            f"split_dataset: frac_list must sum to 1, got {np.sum(fracs):.4f} ({frac_list!r})"
        )
    if bool((fracs < 0).any()):  # DGL would slice with a negative length: garbage splits
        raise ValueError(
            f"split_dataset: frac_list must not hold negative values, got {frac_list!r}"
        )
    n = len(dataset)
    lengths = (n * fracs).astype(int)
    lengths[-1] = n - np.sum(lengths[:-1])
    if shuffle:
        indices = np.random.RandomState(seed=random_state).permutation(n)
    else:
        indices = np.arange(n)
    return [
        Subset(dataset, indices[offset - length : offset])
        for offset, length in zip(accumulate(lengths), lengths)
    ]


class DGLDataset:
    """DGL's dataset base class (``dgl.data.DGLDataset``): override ``process()`` (build
    the graphs), ``__getitem__`` and ``__len__``, and for a cache on disk ``save()``,
    ``load()`` and ``has_cache()`` (use :func:`~arraygnn.graph.save_graphs` /
    :func:`~arraygnn.graph.load_graphs` and :func:`~arraygnn.graph.save_info` /
    :func:`~arraygnn.graph.load_info` under ``self.save_path``); ``download()`` fetches the
    raw data into ``self.raw_dir`` (:func:`download`, :func:`extract_archive`).

    Args:
        name: the dataset's name (``raw_path`` / ``save_path`` are ``dir/name``, plus
            ``_<first 8 hex digits of sha1(url)>`` when ``url`` is given, as DGL).
        url: where ``download()`` fetches the raw data (``self.url``).
        raw_dir: the folder of raw data; ``None``: :func:`get_download_dir`.
        save_dir: the folder of processed data; ``None``: ``raw_dir``.
        hash_key: a tuple identifying the settings: ``self.hash`` is the first 8 hex
            digits of ``sha1(str(hash_key))`` (``'f9065fa7'`` for ``()``), for cache names.
        force_reload: process again even when ``has_cache()``.
        verbose: print what happens (to stderr).
        transform: kept as ``self._transform`` for ``__getitem__`` to apply, as DGL's
            datasets do.

    Differs from DGL: ``process``, ``__getitem__`` and ``__len__`` of the base class
    raise ``NotImplementedError`` naming the subclass (DGL's return ``None``); wrong
    argument types raise ``TypeError``.
    """

    def __init__(
        self,
        name: str,
        url: str | None = None,
        raw_dir: str | os.PathLike | None = None,
        save_dir: str | os.PathLike | None = None,
        hash_key: Any = (),
        force_reload: bool = False,
        verbose: bool = False,
        transform: Callable[[Any], Any] | None = None,
    ) -> None:
        cls = type(self).__name__
        if not isinstance(name, str) or not name:
            raise TypeError(f"{cls}: name must be a non-empty str, got {name!r}")
        if url is not None and not isinstance(url, str):
            raise TypeError(f"{cls}: url must be a str or None, got {type(url).__name__}")
        for arg, value in (("raw_dir", raw_dir), ("save_dir", save_dir)):
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise TypeError(f"{cls}: {arg} must be a path or None, got {type(value).__name__}")
        if transform is not None and not callable(transform):
            raise TypeError(f"{cls}: transform must be callable, got {type(transform).__name__}")
        self._name = name
        self._url = url
        self._force_reload = force_reload
        self._verbose = verbose
        self._hash_key = hash_key
        self._hash = self._get_hash()
        self._transform = transform
        self._raw_dir = get_download_dir() if raw_dir is None else os.fspath(raw_dir)
        self._save_dir = self._raw_dir if save_dir is None else os.fspath(save_dir)
        self._load()

    # ------------------------------------------------------------------ to override
    def download(self) -> None:
        """Fetch the raw data into ``self.raw_dir`` (nothing by default)."""

    def save(self) -> None:
        """Save the processed dataset under ``self.save_path`` (nothing by default)."""

    def load(self) -> None:
        """Load the processed dataset saved by :meth:`save` (nothing by default)."""

    def process(self) -> None:
        """Build the dataset from the raw data."""
        raise NotImplementedError(f"{type(self).__name__}.process() is not defined")

    def has_cache(self) -> bool:
        """Whether a processed dataset is saved (``False`` by default)."""
        return False

    def __getitem__(self, idx: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.__getitem__ is not defined")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__}.__len__ is not defined")

    # ------------------------------------------------------------------ DGL's steps
    def _download(self) -> None:
        """``download()`` when ``raw_path`` is missing; a failure tries once more (DGL's
        ``retry_method_with_fix(download)``, whose fix is the base class's no-op
        ``download``): ``download()`` runs at most twice."""

        def attempt() -> None:
            if os.path.exists(self.raw_path):
                return
            makedirs(self.raw_dir)
            self.download()

        try:
            attempt()
        except Exception:
            attempt()

    def _load(self) -> None:
        load_flag = not self._force_reload and self.has_cache()
        if load_flag:
            try:
                self.load()
                self._say("Done loading data from cached files.")
            except Exception:  # DGL's fallback: a broken cache is processed again
                load_flag = False
                if self._verbose:
                    self._say(traceback.format_exc())
                    self._say("Loading from cache failed, re-processing.")
        if not load_flag:
            self._download()
            self.process()
            self.save()
            self._say("Done saving data into cached files.")

    def _say(self, message: str) -> None:
        if self._verbose:
            print(message, file=sys.stderr)

    def _get_hash(self) -> str:
        return hashlib.sha1(str(self._hash_key).encode("utf-8")).hexdigest()[:8]

    def _get_hash_url_suffix(self) -> str:
        if self._url is None:
            return ""
        return "_" + hashlib.sha1(str(self._url).encode("utf-8")).hexdigest()[:8]

    # ------------------------------------------------------------------ properties
    @property
    def url(self) -> str | None:
        """The URL of the raw data."""
        return self._url

    @property
    def name(self) -> str:
        """The dataset's name."""
        return self._name

    @property
    def raw_dir(self) -> str:
        """The folder holding the raw data folder."""
        return self._raw_dir

    @property
    def raw_path(self) -> str:
        """``raw_dir/name`` (plus the URL's hash suffix)."""
        return os.path.join(self.raw_dir, self.name + self._get_hash_url_suffix())

    @property
    def save_dir(self) -> str:
        """The folder holding the processed data folder."""
        return self._save_dir

    @property
    def save_path(self) -> str:
        """``save_dir/name`` (plus the URL's hash suffix)."""
        return os.path.join(self.save_dir, self.name + self._get_hash_url_suffix())

    @property
    def verbose(self) -> bool:
        """Whether progress is printed."""
        return self._verbose

    @property
    def hash(self) -> str:
        """The hash of ``hash_key``."""
        return self._hash

    def __repr__(self) -> str:
        return f'Dataset("{self.name}", num_graphs={len(self)}, save_path={self.save_path})'


class DGLBuiltinDataset(DGLDataset):
    """DGL's ``DGLBuiltinDataset``: a :class:`DGLDataset` whose ``download()`` fetches
    ``url`` as ``raw_dir/name.zip`` and extracts it into ``raw_path``; ``save_dir`` is
    ``raw_dir``."""

    def __init__(
        self,
        name: str,
        url: str,
        raw_dir: str | os.PathLike | None = None,
        hash_key: Any = (),
        force_reload: bool = False,
        verbose: bool = False,
        transform: Callable[[Any], Any] | None = None,
    ) -> None:
        super().__init__(
            name,
            url=url,
            raw_dir=raw_dir,
            save_dir=None,
            hash_key=hash_key,
            force_reload=force_reload,
            verbose=verbose,
            transform=transform,
        )

    def download(self) -> None:
        """Download ``url`` to ``raw_dir/name.zip`` and extract it into ``raw_path``."""
        if self.url is not None:
            zip_file_path = os.path.join(self.raw_dir, self.name + ".zip")
            download(self.url, path=zip_file_path, log=self._verbose)
            extract_archive(zip_file_path, self.raw_path)
