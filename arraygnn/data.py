"""``Data``: one graph as a bag of named arrays, with PyG's collation hooks.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> g = Data(x=np.zeros((5, 16), np.float32), edge_index=np.array([[0, 1], [1, 2]]))
>>> g
Data(x=[5, 16], edge_index=[2, 2])
>>> g.num_nodes, g.num_edges, g.keys()
(5, 2, ['x', 'edge_index'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_device, to_numpy

__all__ = ["Data", "EDGE_COUNT_KEYS", "NODE_COUNT_KEYS", "edge_count", "node_count"]


#: keys whose first dimension is the node count (PyG's ``N_KEYS``, checked in insertion order)
NODE_COUNT_KEYS = frozenset({"x", "feat", "pos", "batch", "node_type", "n_id"})

#: attributes PyG's ``Data`` reads as ``None`` when they are not set (its properties)
NONE_WHEN_ABSENT = frozenset(
    {"x", "edge_index", "edge_attr", "edge_weight", "pos", "time", "face", "batch", "y"}
)


def node_count(store: Mapping[str, Any]) -> int | None:
    """RULE: an explicit ``num_nodes`` if set, else the length of the first of ``x``,
    ``feat``, ``pos``, ``batch``, ``node_type``, ``n_id`` present (insertion order, as PyG's
    ``num_nodes``), else ``None``; never ``edge_index.max() + 1``.

    >>> import numpy as np
    >>> node_count({"pos": np.zeros((4, 3)), "edge_index": np.zeros((2, 0), np.int64)})
    4
    >>> node_count({"edge_index": np.array([[0], [5]])}) is None
    True
    """
    if "num_nodes" in store:
        return int(store["num_nodes"])
    key = node_count_key(store)
    return None if key is None else int(store[key].shape[0])


#: keys whose first dimension is the edge count when there is no ``edge_index`` (PyG's
#: ``E_KEYS``, checked in insertion order)
EDGE_COUNT_KEYS = frozenset({"edge_weight", "edge_attr", "edge_type", "e_id"})


def edge_count(store: Mapping[str, Any]) -> int:
    """RULE: an explicit integer ``num_edges`` if set, else ``edge_index.shape[1]``, else
    the length of the first of ``edge_weight``, ``edge_attr``, ``edge_type``, ``e_id``
    present (insertion order), else that of the first array whose key holds ``'edge'``
    (columns for ``'index'`` / ``'face'`` keys: ``edge_label_index``), else the stored
    entries of a sparse ``adj`` / ``adj_t`` (``ToSparseTensor``'s), else 0: PyG's
    ``num_edges``.

    >>> import numpy as np
    >>> edge_count({"edge_weight": np.ones(3)}), edge_count({"y": np.ones(3)})
    (3, 0)
    """
    explicit = store.get("num_edges")
    if isinstance(explicit, (int, np.integer)) and not isinstance(explicit, bool):
        return int(explicit)
    ei = store.get("edge_index")
    if ei is not None and getattr(ei, "ndim", 0) == 2:
        return int(ei.shape[1])
    for key, value in store.items():
        if key in EDGE_COUNT_KEYS and getattr(value, "ndim", 0) >= 1:
            return int(value.shape[0])
    for key, value in store.items():
        if "edge" in key and is_array(value) and value.ndim >= 1:
            return int(value.shape[-1] if _is_index_key(key) else value.shape[0])
    for key in ("adj", "adj_t"):
        entries = _sparse_entries(store.get(key))
        if entries is not None:
            return entries
    return 0


def _sparse_entries(value: Any) -> int | None:
    """Stored entries of a SciPy / CuPy sparse matrix, a torch sparse tensor or a
    ``torch_sparse.SparseTensor`` (PyG's ``nnz()`` / ``_nnz()``); ``None`` for anything else."""
    nnz = getattr(value, "nnz", None)
    if callable(nnz):  # torch_sparse.SparseTensor
        nnz = nnz()
    if nnz is None and str(getattr(value, "layout", "")).startswith("torch.sparse"):
        nnz = value._nnz()
    return int(nnz) if isinstance(nnz, (int, np.integer)) and not isinstance(nnz, bool) else None


def node_count_key(store: Mapping[str, Any]) -> str | None:
    """The node-count key :func:`node_count` reads when ``num_nodes`` is not set (the first
    of :data:`NODE_COUNT_KEYS` holding an array of at least one dimension), else ``None``;
    collation counts rows of that key of graph 0 in every graph."""
    for key, value in store.items():
        if key in NODE_COUNT_KEYS and getattr(value, "ndim", 0) >= 1 and is_array(value):
            return key
    return None


def check_node_count_rows(where: str, store: Mapping[str, Any], n: int | None) -> None:
    """Every node-count key of ``store`` (:data:`NODE_COUNT_KEYS`) has ``n`` rows (nothing
    to check while ``n`` is unknown); a ``ValueError`` led by ``where`` names the key."""
    if n is None:
        return
    for key, value in store.items():
        if key in NODE_COUNT_KEYS and is_array(value) and (value.ndim == 0 or value.shape[0] != n):
            raise ValueError(f"{where}: {key} has shape {list(value.shape)} but num_nodes is {n}")


def _is_index_key(key: str) -> bool:
    """RULE: the seed's name rule: a key containing ``index`` or ``face``."""
    return "index" in key or "face" in key


def _describe(value: Any) -> str:
    if is_array(value):  # a 0-d array shows its value, as PyG's repr of a 0-d tensor
        return _describe(value.item()) if value.ndim == 0 else str(list(value.shape))
    if isinstance(value, (list, tuple)):
        return f"[{len(value)}]"
    if isinstance(value, (bool, int, float, complex, str, bytes, np.generic)) or value is None:
        return repr(value.item() if isinstance(value, np.generic) else value)
    shape = getattr(value, "shape", None)  # foreign arrays (torch tensors, ...)
    if shape is not None:
        return str(list(shape))
    return type(value).__name__


class Data:
    """A graph: named values (NumPy / CuPy arrays, Python scalars, strings, other objects).

    Values are reached as attributes (``data.x``) or items (``data["x"]``). ``edge_index``
    is [2, E] with ``edge_index[0]`` the source and ``edge_index[1]`` the target node.

    Collation hooks (override them in a subclass, as in PyG):

    - ``__inc__(key, value)``: how much ``value`` is increased per preceding graph in a
      batch. Default: ``self.num_nodes`` if ``'index' in key or 'face' in key``, else ``0``.
    - ``__cat_dim__(key, value)``: the dimension along which values are concatenated.
      Default: ``-1`` (the last dimension, PyG 2.x) if ``'index' in key or 'face' in key``,
      else ``0``. ``None`` stacks the values along a new leading batch dimension.

    RULE: ``num_nodes`` is an explicit ``num_nodes=`` value if given, else the length of the
      first of ``x``, ``feat``, ``pos``, ``batch``, ``node_type``, ``n_id`` present (PyG's
      node-count keys), else ``None``; it is never guessed from ``edge_index.max() + 1``.
    RULE: no attribute is classified as node- or edge-level by its length.

    >>> import numpy as np
    >>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=3)
    >>> d.num_nodes, "num_nodes" in d
    (3, True)
    >>> d.y = 1.5
    >>> d
    Data(edge_index=[2, 2], num_nodes=3, y=1.5)
    """

    def __init__(self, **kwargs: Any) -> None:
        object.__setattr__(self, "_store", {})
        for key, value in kwargs.items():
            if value is not None:
                self._store[key] = value

    # ------------------------------------------------------------------ access
    def __getattr__(self, key: str) -> Any:
        store = self.__dict__.get("_store")
        if store is not None and key in store:
            return store[key]
        if store is not None and key in NONE_WHEN_ABSENT:
            return None  # PyG's Data properties: data.edge_attr is None when not set
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {key!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        prop = getattr(type(self), key, None)
        if key.startswith("_") or (isinstance(prop, property) and prop.fset is not None):
            object.__setattr__(self, key, value)
        elif value is None:  # a read-only property's name is a plain key, as in PyG
            self._store.pop(key, None)
        else:
            self._store[key] = value

    def __delattr__(self, key: str) -> None:
        """``del data.key``; a key that is not set is ignored, as in PyG."""
        if key in self._store:
            del self._store[key]
        elif key.startswith("_") or key in self.__dict__:
            object.__delattr__(self, key)

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str):
            raise TypeError(f"{type(self).__name__} keys are strings, got {type(key).__name__}")
        try:
            return self._store[key]
        except KeyError:
            raise KeyError(f"{type(self).__name__} has no key {key!r}") from None

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"{type(self).__name__} keys are strings, got {type(key).__name__}")
        if value is None:
            self._store.pop(key, None)
        else:
            self._store[key] = value

    def __delitem__(self, key: str) -> None:
        """``del data[key]``; a key that is not set is ignored, as in PyG."""
        self._store.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._store

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """Iterate over ``(key, value)`` pairs (as PyG does)."""
        return iter(self._store.items())

    def __len__(self) -> int:
        return len(self._store)

    def keys(self) -> list[str]:
        """The keys, in insertion order."""
        return list(self._store)

    def items(self) -> list[tuple[str, Any]]:
        return list(self._store.items())

    def get(self, key: str, default: Any = None) -> Any:
        """``data[key]`` when it is set, else ``default`` (PyG's ``data.get``)."""
        return self._store.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        """A new dict of the values (the values themselves are shared)."""
        return dict(self._store)

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Any]) -> Data:
        """PyG's ``Data.from_dict``: ``cls(**mapping)`` (the inverse of :meth:`to_dict`;
        the values are shared)."""
        if not isinstance(mapping, Mapping):
            raise TypeError(
                f"{cls.__name__}.from_dict: mapping must be a mapping of attribute names to "
                f"values, got {type(mapping).__name__}"
            )
        return cls(**mapping)

    @property
    def stores(self) -> list[Any]:
        """PyG's ``stores``: ``[self]`` (a ``Data`` is its one store: ``keys()``,
        ``items()``, item and attribute access)."""
        return [self]

    @property
    def node_stores(self) -> list[Any]:
        """PyG's ``node_stores``: ``[self]`` (the one store holds the nodes)."""
        return [self]

    @property
    def edge_stores(self) -> list[Any]:
        """PyG's ``edge_stores``: ``[self]`` (the one store holds the edges)."""
        return [self]

    def to_namedtuple(self) -> tuple:
        """The values as a namedtuple whose fields are the keys, in order (PyG's; the
        values are shared).

        >>> Data(a=1, b="s").to_namedtuple()
        DataTuple(a=1, b='s')
        """
        from collections import namedtuple

        return namedtuple(f"{type(self).__name__}Tuple", list(self._store))(**self._store)

    @property
    def is_cuda(self) -> bool:
        """Whether some value is a CuPy array (or a CUDA torch tensor), as PyG's."""
        return any(_on_gpu(value) for value in self._store.values())

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    # ------------------------------------------------------------------ sizes
    @property
    def num_nodes(self) -> int | None:
        """Explicit ``num_nodes`` if set, else the rows of ``x`` / ``pos`` / ... (see
        :func:`node_count`), else ``None``."""
        return node_count(self._store)

    @num_nodes.setter
    def num_nodes(self, value: int | None) -> None:
        if value is None:
            self._store.pop("num_nodes", None)
        else:
            self._store["num_nodes"] = int(value)

    @property
    def num_edges(self) -> int:
        """An explicit integer ``num_edges`` if set (PyG's), else ``edge_index.shape[1]``,
        else the rows of the first of ``edge_weight`` / ``edge_attr`` / ``edge_type`` /
        ``e_id`` present, else PyG's further fallbacks (an ``'edge'`` key, a sparse
        ``adj_t``'s entries: :func:`edge_count`), else 0."""
        return edge_count(self._store)

    # ------------------------------------------------------------------ hooks
    def __inc__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
        """Default: ``self.num_nodes`` if ``'index' in key or 'face' in key`` else ``0``."""
        if _is_index_key(key):
            n = self.num_nodes
            if n is None:
                raise ValueError(
                    f"{type(self).__name__}: key {key!r} is increased by num_nodes, but "
                    "num_nodes is unknown (give x, pos or num_nodes=; it is never guessed "
                    "from edge_index.max() + 1)"
                )
            return n
        return 0

    def __cat_dim__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> int | None:
        """Default: ``-1`` (the last dim: columns of a [2, E] ``edge_index``, the only dim of
        a 1-D ``center_index``) if ``'index' in key or 'face' in key`` else ``0``.

        The seed shows ``1``, PyG 2.x returns ``-1``: they agree on 2-D index arrays, and
        ``-1`` also collates 1-D and 3-D ones as PyG does."""
        if _is_index_key(key):
            return -1
        return 0

    # ------------------------------------------------------------------ copies
    def copy(self) -> Data:
        """A shallow copy of the same class (values shared, the key set independent)."""
        out = type(self).__new__(type(self))
        for name, value in self.__dict__.items():
            object.__setattr__(out, name, dict(value) if isinstance(value, dict) else value)
        return out

    def __copy__(self) -> Data:
        """``copy.copy(data)``: :meth:`copy` (a key set of its own, as in PyG)."""
        return self.copy()

    def clone(self) -> Data:
        """A deep copy of the same class (PyG's ``clone``): every array copied (CuPy ones
        on their device), every other value deep-copied; a ``Batch`` keeps its records."""
        import copy

        return copy.deepcopy(self)

    def apply(self, fn: Callable[[Any], Any], *args: str) -> Data:
        """A new object of the same class with ``fn`` applied to every NumPy / CuPy array
        (those named in ``args``, else all; absent names ignored). PyG's changes the
        object in place and returns it; this leaves it alone, so write
        ``data = data.apply(fn)`` for both."""
        out = self.copy()
        for key, value in self._store.items():
            if is_array(value) and (not args or key in args):
                out._store[key] = fn(value)
        return out

    def contiguous(self, *args: str) -> Data:
        """A new object whose arrays (those named in ``args``, else all) are C-contiguous
        (PyG's ``contiguous``; arrays already so are shared, absent names ignored)."""
        out = self.copy()
        for key, value in self._store.items():
            if is_array(value) and (not args or key in args):
                out._store[key] = _contiguous(value)
        return out

    def concat(self, data: Data) -> Data:
        """PyG's ``concat``: a new object with every value of ``self`` and ``data`` (the
        same keys) joined: arrays along their ``__cat_dim__`` (``edge_index`` NOT
        increased: this is no batch), lists appended, ``num_nodes`` / ``num_edges`` added.
        Other values (scalars, strings) are a ``TypeError``, as in PyG."""
        where = f"{type(self).__name__}.concat"
        if not isinstance(data, Data):
            raise TypeError(f"{where}: data must be a Data, got {type(data).__name__}")
        mine, theirs = set(self._store), set(data._store)
        if mine != theirs:
            raise ValueError(
                f"{where}: both objects need the same keys; only in self: "
                f"{sorted(mine - theirs)}, only in data: {sorted(theirs - mine)}"
            )
        out = self.copy()
        for key, value in self._store.items():
            out._store[key] = _joined(where, key, value, data._store[key], self.__cat_dim__)
        return out

    def to(self, device: str) -> Data:
        """A new object with every array on ``device`` (``'cpu'``, ``'cuda'``, ``'cuda:N'``).

        Arrays already there are shared, not copied.
        """
        out = self.copy()
        for key, value in self._store.items():
            if is_array(value):
                out._store[key] = to_device(value, device)
        return out

    def cpu(self) -> Data:
        return self.to("cpu")

    def cuda(self) -> Data:
        return self.to("cuda")

    # ------------------------------------------------------------------ checks
    def validate(self, raise_on_error: bool = True) -> bool:
        """Check the graph; raise ``ValueError`` / ``TypeError`` naming the key at fault.

        Checks: arrays of one kind (all NumPy or all CuPy); ``edge_index`` is [2, E];
        every key increased by ``num_nodes`` (``'index'`` / ``'face'`` keys with the default
        ``__inc__``) holds integers in ``[0, num_nodes)``; ``x``, ``pos`` and the other
        node-count keys (:func:`node_count`) have ``num_nodes`` rows;
        ``edge_attr`` / ``edge_weight`` have ``num_edges`` rows. Returns ``True``.
        ``raise_on_error=False`` (PyG's keyword) warns with the message and returns ``False``.
        """
        if not raise_on_error:
            return _warn_invalid(self.validate)
        name = type(self).__name__
        get_namespace(*[v for v in self._store.values() if is_array(v)])
        n = self.num_nodes
        ei = self._store.get("edge_index")
        if ei is not None and is_array(ei) and (ei.ndim != 2 or ei.shape[0] != 2):
            raise ValueError(f"{name}: edge_index must have shape [2, E], got {list(ei.shape)}")
        check_node_count_rows(name, self._store, n)
        for key in ("edge_attr", "edge_weight"):
            v = self._store.get(key)
            if v is not None and is_array(v) and ei is not None:
                if v.ndim == 0 or v.shape[0] != self.num_edges:
                    raise ValueError(
                        f"{name}: {key} has shape {list(v.shape)} but there are "
                        f"{self.num_edges} edges (edge_index {list(ei.shape)})"
                    )
        for key, value in self._store.items():
            if not is_array(value) or not _is_index_key(key):
                continue
            inc = self.__inc__(key, value)
            if not isinstance(inc, (int, np.integer)) or int(inc) != n:
                continue  # a user rule: not a node index into this graph
            check_index_range(value, n, f"{name}: {key}")
        return True

    # ------------------------------------------------------------------ PyG's helpers
    def update(self, other: Data | Mapping[str, Any]) -> Data:
        """Set every key of ``other`` (a ``Data`` or a mapping) on ``self``, **in place**,
        and return ``self`` (PyG's: existing keys are overwritten, ``None`` removes one).

        >>> Data(a=1, b=2).update({"b": 3, "c": 4})
        Data(a=1, b=3, c=4)
        """
        for key, value in other.items():
            self[key] = value
        return self

    def generate_ids(self) -> None:
        """Set ``n_id`` (``arange(num_nodes)``) and ``e_id`` (``arange(num_edges)``),
        int64 on the graph's device, **in place** (PyG's). ``num_nodes`` must be known.

        >>> import numpy as np
        >>> d = Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3)
        >>> d.generate_ids()
        >>> d.n_id.tolist(), d.e_id.tolist()
        ([0, 1, 2], [0, 1])
        """
        n = self.num_nodes
        if n is None:
            raise ValueError(
                f"{type(self).__name__}.generate_ids: num_nodes is unknown (give x, pos or "
                "num_nodes=; it is never guessed from edge_index.max() + 1)"
            )
        arrays = [v for v in self._store.values() if is_array(v)]
        xp = get_namespace(*arrays) if arrays else np
        self._store["n_id"] = xp.arange(n, dtype=np.int64)
        self._store["e_id"] = xp.arange(self.num_edges, dtype=np.int64)

    def size(self, dim: int | None = None) -> Any:
        """The adjacency matrix's size ``(num_nodes, num_nodes)``, or its ``dim`` entry.

        >>> Data(num_nodes=3).size(), Data(num_nodes=3).size(-1)
        ((3, 3), 3)
        """
        size = (self.num_nodes, self.num_nodes)
        return size if dim is None else size[dim]

    @property
    def num_node_features(self) -> int:
        """Feature width of ``x`` (``x.shape[-1]``; 1 for a 1-D ``x``; 0 without ``x``).
        Only ``x`` is read, as PyG: no other array is taken for node features."""
        return _width(self._store.get("x"))

    @property
    def num_features(self) -> int:
        """:attr:`num_node_features` (PyG's alias)."""
        return self.num_node_features

    @property
    def num_edge_features(self) -> int:
        """Feature width of ``edge_attr`` (``shape[-1]``; 1 when 1-D; 0 without it), as PyG.

        >>> import numpy as np
        >>> d = Data(x=np.zeros((4, 3)), edge_attr=np.zeros(5))
        >>> d.num_features, d.num_edge_features
        (3, 1)
        """
        return _width(self._store.get("edge_attr"))

    # ------------------------------------------------------------------ PyG's structure
    # Bodies in arraygnn.data_methods. RULE: which arrays are per node / per edge / per graph
    # is said by node_attrs= / edge_attrs= / graph_attrs= (defaults ('x', 'pos') /
    # ('edge_attr', 'edge_weight') / none, see arraygnn.transforms.attrs), never guessed
    # from array lengths; an array none of them names is a ValueError.
    def subgraph(
        self,
        subset: Any,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> Data:
        """The subgraph induced by ``subset``, as PyG's: a new object.

        ``subset``: node ids (an integer array or a list; node ``subset[i]`` becomes node
        ``i``) or a bool mask [num_nodes]. The edges whose two ends are kept stay, in edge
        order, relabelled (``edge_index`` keeps its dtype); node attributes take
        ``subset``'s rows, edge attributes the kept edges' rows; graph attributes and
        non-array values are shared; ``num_nodes`` follows. ``node_attrs`` /
        ``edge_attrs`` / ``graph_attrs`` say which arrays are which (see above; an unnamed
        array attribute is a ``ValueError``). ``num_nodes`` must be known. Raises
        ``TypeError`` (float ids), ``ValueError`` (ids out of range or repeated, a mask of
        the wrong length, unnamed arrays).

        >>> import numpy as np
        >>> d = Data(x=np.arange(3.0), y=np.array([1]), edge_index=np.array([[0, 1], [1, 2]]))
        >>> s = d.subgraph(np.array([2, 1]), graph_attrs=["y"])
        >>> s.x.tolist(), s.edge_index.tolist(), s.y.tolist()
        ([2.0, 1.0], [[1], [0]], [1])
        """
        from arraygnn import data_methods

        return data_methods.subgraph(self, subset, node_attrs, edge_attrs, graph_attrs)

    def edge_subgraph(
        self,
        subset: Any,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> Data:
        """The graph with only the edges ``subset`` (edge ids in their order, repeats
        allowed, or a bool mask [num_edges]), as PyG's: a new object; ``edge_index`` and the
        edge attributes take those rows, every node stays (isolated ones too).
        Keywords and errors as :meth:`subgraph`.

        >>> import numpy as np
        >>> d = Data(edge_index=np.array([[0, 1, 2], [1, 2, 0]]), edge_weight=np.ones(3))
        >>> d.edge_subgraph(np.array([True, False, True])).edge_index.tolist()
        [[0, 2], [1, 0]]
        """
        from arraygnn import data_methods

        return data_methods.edge_subgraph(self, subset, node_attrs, edge_attrs, graph_attrs)

    def is_coalesced(self) -> bool:
        """Whether ``edge_index`` is sorted by ``(row, col)`` with no duplicate edge (PyG's;
        ``True`` without ``edge_index``)."""
        from arraygnn import data_methods

        return data_methods.is_coalesced(self)

    def coalesce(
        self,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
        reduce: str = "sum",
    ) -> Data:
        """A new object with ``edge_index`` sorted by ``(row, col)`` and duplicate edges
        merged (:func:`arraygnn.utils.coalesce`): every edge attribute moves with its edges,
        the rows of merged edges reduced with ``reduce`` (PyG's ``'sum'``). PyG reduces
        ``edge_attr`` only and leaves other per-edge arrays out of step; here every edge
        attribute follows. Keywords as :meth:`subgraph` (all three, so that no per-edge
        array is left unnamed and out of step).

        >>> import numpy as np
        >>> d = Data(edge_index=np.array([[1, 0, 1], [0, 1, 0]]), edge_attr=np.ones(3))
        >>> c = d.coalesce()
        >>> c.edge_index.tolist(), c.edge_attr.tolist(), d.is_coalesced(), c.is_coalesced()
        ([[0, 1], [1, 0]], [1.0, 2.0], False, True)
        """
        from arraygnn import data_methods

        return data_methods.coalesce(self, node_attrs, edge_attrs, graph_attrs, reduce)

    def is_sorted(self, sort_by_row: bool = True) -> bool:
        """Whether ``edge_index[0]`` (``edge_index[1]`` with ``sort_by_row=False``) never
        decreases (PyG's; ``True`` without ``edge_index``)."""
        from arraygnn import data_methods

        return data_methods.is_sorted(self, sort_by_row)

    def sort(
        self,
        sort_by_row: bool = True,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> Data:
        """A new object with ``edge_index`` sorted by ``(row, col)`` (by ``(col, row)``
        with ``sort_by_row=False``; parallel edges keep their order) and every edge
        attribute moved with its edges, as PyG's. Keywords as :meth:`subgraph`.

        >>> import numpy as np
        >>> d = Data(edge_index=np.array([[2, 0, 1], [0, 2, 2]]), edge_attr=np.arange(3))
        >>> s = d.sort(sort_by_row=False)
        >>> s.edge_index.tolist(), s.edge_attr.tolist(), d.is_sorted(), s.is_sorted(False)
        ([[2, 0, 1], [0, 2, 2]], [0, 1, 2], False, True)
        """
        from arraygnn import data_methods

        return data_methods.sort(self, sort_by_row, node_attrs, edge_attrs, graph_attrs)

    def is_undirected(self) -> bool:
        """Whether every edge ``(i, j)`` has its reverse as many times, with equal
        ``edge_attr`` rows when there is ``edge_attr`` (PyG's; no other array is compared).
        ``ValueError`` without ``edge_index``.

        >>> import numpy as np
        >>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=3)
        >>> d.is_undirected(), d.is_directed(), d.has_isolated_nodes(), d.has_self_loops()
        (True, False, True, False)
        """
        from arraygnn import data_methods

        return data_methods.is_undirected(self)

    def is_directed(self) -> bool:
        """``not self.is_undirected()`` (PyG's)."""
        return not self.is_undirected()

    def has_isolated_nodes(self) -> bool:
        """Whether some node touches no edge other than self-loops (PyG's). ``num_nodes``
        must be known; ``ValueError`` without ``edge_index``."""
        from arraygnn import data_methods

        return data_methods.has_isolated_nodes(self)

    def has_self_loops(self) -> bool:
        """Whether some edge is ``(i, i)`` (PyG's); ``ValueError`` without ``edge_index``."""
        from arraygnn import data_methods

        return data_methods.has_self_loops(self)

    def to_heterogeneous(
        self,
        node_type: Any = None,
        edge_type: Any = None,
        node_type_names: list[str] | None = None,
        edge_type_names: list[tuple[str, str, str]] | None = None,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> Any:
        """A :class:`arraygnn.HeteroData` split by type, as PyG's (the inverse of
        ``HeteroData.to_homogeneous``).

        ``node_type`` [num_nodes] / ``edge_type`` [num_edges] integer vectors default to the
        ``node_type`` / ``edge_type`` keys, else all zeros. ``node_type_names[i]`` names the
        nodes of type ``i`` (default: the names ``to_homogeneous`` left on the object, else
        ``str(v)`` for each value ``v``); ``edge_type_names[i]`` is the ``(src, rel, dst)``
        of the edges of type ``i`` (default: ``(name of the sources' type, str(v), name of
        the targets' type)``; ``ValueError`` when an edge type joins several node types,
        where PyG may build a wrong graph). Node attributes are split by ``node_type``,
        edge attributes and ``edge_index`` (renumbered within each type, dtype kept) by
        ``edge_type``; other values become graph-level; ``node_type`` / ``edge_type`` /
        ``ptr`` are dropped. A node type without ``x`` gets ``num_nodes``. Keywords as
        :meth:`subgraph` (``node_type`` / ``edge_type`` / ``ptr`` need no naming); on
        ``to_homogeneous``'s output they default to the attributes it merged (and its
        graph-level keys stay graph-level), so the round trip gives them back as PyG's.

        >>> import numpy as np
        >>> d = Data(x=np.arange(3.0), edge_index=np.array([[0, 2], [2, 1]]),
        ...          node_type=np.array([0, 0, 1]), edge_type=np.array([0, 1]))
        >>> h = d.to_heterogeneous(node_type_names=["a", "b"])
        >>> h.metadata()
        (['a', 'b'], [('a', '0', 'b'), ('b', '1', 'a')])
        >>> h["b", "1", "a"].edge_index.tolist(), h["a"].x.tolist()
        ([[0], [1]], [0.0, 1.0])
        """
        from arraygnn import data_methods

        return data_methods.to_heterogeneous(
            self,
            node_type,
            edge_type,
            node_type_names,
            edge_type_names,
            node_attrs,
            edge_attrs,
            graph_attrs,
        )

    # ------------------------------------------------------------------ repr
    def __repr__(self) -> str:
        body = ", ".join(f"{k}={_describe(v)}" for k, v in self._store.items())
        return f"{type(self).__name__}({body})"


def _on_gpu(value: Any) -> bool:
    from arraygnn._namespace import is_cupy_array, is_torch_tensor

    return is_cupy_array(value) or (is_torch_tensor(value) and bool(value.is_cuda))


def _contiguous(value: Any) -> Any:
    """``value`` if C-contiguous, else a C-contiguous copy (0-d arrays stay 0-d)."""
    if value.flags.c_contiguous:
        return value
    return get_namespace(value).ascontiguousarray(value)


def _joined(where: str, key: str, value: Any, other: Any, cat_dim: Callable) -> Any:
    """One value of PyG's ``concat`` (:meth:`Data.concat`)."""
    if key in ("num_nodes", "num_edges"):
        return value + other
    if isinstance(value, list):
        return value + list(other)
    if is_array(value):
        dim = cat_dim(key, value)
        if dim is None:
            raise ValueError(
                f"{where}: key {key!r} has __cat_dim__ None (stacked along a new dimension); "
                "concat joins along an existing one"
            )
        try:
            xp = get_namespace(value, other)
            return xp.concatenate([value, other], axis=dim)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{where}: key {key!r}: {err}") from None
    raise TypeError(
        f"{where}: key {key!r} holds a {type(value).__name__}; only arrays, lists and "
        "num_nodes / num_edges are concatenated (as PyG)"
    )


def _width(value: Any) -> int:
    """PyG's feature width of one array: ``shape[-1]``, 1 when 1-D, 0 when absent."""
    ndim = getattr(value, "ndim", None)
    if ndim is None or ndim == 0:
        return 0
    return 1 if ndim == 1 else int(value.shape[-1])


def data_holding(cls: type[Data], store: dict[str, Any]) -> Data:
    """A ``cls`` object whose keys are ``store`` (the dict itself, not a copy).

    Made as PyG's ``separate`` makes a graph, by calling ``cls()``, so that attributes its
    ``__init__`` sets (and its hooks may read) exist; a class whose ``__init__`` fails
    without arguments is made without calling it. Keys ``__init__`` stored are dropped.

    >>> data_holding(Data, {"y": 1})
    Data(y=1)
    """
    try:
        obj = cls()
    except Exception:  # noqa: BLE001 - an __init__ that needs its arguments
        obj = cls.__new__(cls)
    object.__setattr__(obj, "_store", store)
    return obj


def _warn_invalid(check: Callable[[], bool]) -> bool:
    """``validate(raise_on_error=False)``: the check's error as a warning, then ``False``."""
    import warnings

    try:
        return check()
    except (ValueError, TypeError) as err:
        warnings.warn(str(err), UserWarning, stacklevel=3)
        return False


def check_index_range(value: Any, n: int, where: str) -> None:
    """``TypeError`` unless integer, ``ValueError`` unless every entry is in ``[0, n)``."""
    if value.dtype.kind not in "iu":
        raise TypeError(f"{where} must hold integers, got dtype {value.dtype}")
    if value.size == 0:
        return
    lo = int(to_numpy(value.min()))
    hi = int(to_numpy(value.max()))
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{where} holds node id {bad}, outside [0, {n}) (num_nodes={n})")
