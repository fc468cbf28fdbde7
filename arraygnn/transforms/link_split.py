"""PyG's ``RandomLinkSplit``: train / validation / test graphs for link prediction.

Same arguments and results as ``torch_geometric.transforms.RandomLinkSplit`` (PyG 2.8),
on a ``Data`` or a ``HeteroData`` (``edge_types`` / ``rev_edge_types``). Returns
``(train_data, val_data, test_data)``; each holds

- message-passing edges: train uses the training edges (less the ``disjoint_train_ratio``
  supervision edges), validation all training edges, test training + validation edges
  (so train edges ⊂ val edges ⊂ test edges); with ``is_undirected`` only pairs ``i <= j``
  are split and both directions are kept;
- supervision edges ``<key>_index`` [2, L] with labels ``<key>`` [L]: the split's positive
  edges (label 1, or the existing label + 1) followed by negative pairs (label 0), or, for
  ``split_labels=True``, ``pos_<key>(_index)`` and ``neg_<key>(_index)``.

The counts follow PyG's arithmetic exactly: a float ``num_val`` / ``num_test`` is
``int(ratio * candidates)``, ``num_train`` the rest (``ValueError`` when none is left), a
float ``disjoint_train_ratio`` ``int(ratio * num_train)``, negatives
``int(count * neg_sampling_ratio)`` per split, drawn in one call of
:func:`arraygnn.utils.negative_sampling` over the whole graph (so no negative is an edge
of any split) and cut as PyG cuts them; when the graph has fewer non-edges, PyG's warning
and its adjusted counts.

RULE: which ``Data`` attributes are per edge (and so split with the edges) is said by
``edge_attrs=`` (default ``'edge_attr'`` / ``'edge_weight'`` where present; ``key`` is
always per edge), never guessed from lengths; every other array must be named in
``node_attrs=`` / ``graph_attrs=`` (kept as they are), or a ``ValueError`` names it. In a
``HeteroData`` every array of a split edge store is per edge (along the last axis for
``'index'`` keys, the first otherwise).
RULE: random numbers come from ``seed`` (an int, a ``numpy.random.Generator`` or ``None``),
taken when the transform is built; PyG draws from torch's generator, so its edges differ.
RULE: ids keep ``edge_index``'s dtype (the negatives are cast to it); labels made from
scratch are float32, as PyG's; nothing the caller passed is modified.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> ei = np.array([[0, 1, 1, 2, 2, 3, 3, 4, 4, 0], [1, 0, 2, 1, 3, 2, 4, 3, 0, 4]])
>>> d = Data(edge_index=ei, num_nodes=6)
>>> train, val, test = RandomLinkSplit(0.2, 0.2, is_undirected=True, seed=0)(d)
>>> train.edge_index.shape, val.edge_index.shape, test.edge_index.shape
((2, 6), (2, 6), (2, 8))
>>> train.edge_label.tolist(), val.edge_label_index.shape
([1.0, 1.0, 1.0, 0.0, 0.0, 0.0], (2, 2))
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.data import check_index_range
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._draws import device_generator, permutation, seed_arg
from arraygnn.transforms.attrs import attribute_levels, with_edge_attr
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.node_split import amount_arg
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.negative_sampling import negative_sampling

__all__ = ["RandomLinkSplit"]

_WHERE = "RandomLinkSplit"
_INSUFFICIENT = "insufficient number of edges for training"


def _edge_type_arg(name: str, value: Any, optional: bool) -> Any:
    if value is None and optional:
        return None
    if (
        not isinstance(value, tuple)
        or len(value) != 3
        or not all(isinstance(s, str) for s in value)
    ):
        raise TypeError(f"{_WHERE}: {name} must hold (src, rel, dst) edge types, got {value!r}")
    return value


def _take(xp: Any, value: Any, index: Any, axis: int, twice: bool) -> Any:
    out = xp.take(value, index, axis=axis)
    return xp.concatenate([out, out], axis=axis) if twice else out


class RandomLinkSplit(BaseTransform):
    """Split the edges into train / validation / test graphs (PyG's ``RandomLinkSplit``);
    see the module notes for what each graph holds.

    ``num_val`` / ``num_test``: edge counts, or floats (ratios of the candidate edges).
    ``is_undirected``: split pairs ``i <= j`` and keep both directions (ignored for a
    bipartite edge type or one whose reverse type is another type). ``key``: the label
    name (an existing integer label is shifted by one when negatives are added).
    ``add_negative_train_samples``, ``neg_sampling_ratio``, ``disjoint_train_ratio``,
    ``edge_types`` (required for a ``HeteroData``), ``rev_edge_types`` (mirrored: the
    reverse store gets the split edges reversed and the split's attributes): as PyG.
    ``node_attrs`` / ``edge_attrs`` / ``graph_attrs``: the levels of a ``Data``'s arrays
    (module notes). ``seed``: the random numbers (module notes).

    >>> import numpy as np
    >>> from arraygnn.hetero_data import HeteroData
    >>> d = HeteroData()
    >>> d["u"].num_nodes, d["i"].num_nodes = 4, 5
    >>> d["u", "buys", "i"].edge_index = np.array([[0, 1, 2, 3, 0, 1], [0, 1, 2, 3, 4, 4]])
    >>> d["i", "rev_buys", "u"].edge_index = d["u", "buys", "i"].edge_index[::-1]
    >>> t = RandomLinkSplit(1, 1, edge_types=("u", "buys", "i"),
    ...                     rev_edge_types=("i", "rev_buys", "u"), seed=0)
    >>> train, _, test = t(d)
    >>> train["u", "buys", "i"].num_edges, test["i", "rev_buys", "u"].num_edges
    (4, 5)
    """

    def __init__(
        self,
        num_val: int | float = 0.1,
        num_test: int | float = 0.2,
        is_undirected: bool = False,
        key: str = "edge_label",
        split_labels: bool = False,
        add_negative_train_samples: bool = True,
        neg_sampling_ratio: float = 1.0,
        disjoint_train_ratio: int | float = 0.0,
        edge_types: Any = None,
        rev_edge_types: Any = None,
        *,
        node_attrs: Any = None,
        edge_attrs: Any = None,
        graph_attrs: Any = (),
        seed: Any = None,
    ) -> None:
        self.num_val = amount_arg(_WHERE, "num_val", num_val)
        self.num_test = amount_arg(_WHERE, "num_test", num_test)
        self.disjoint_train_ratio = amount_arg(_WHERE, "disjoint_train_ratio", disjoint_train_ratio)
        ratio = amount_arg(_WHERE, "neg_sampling_ratio", neg_sampling_ratio)
        self.neg_sampling_ratio = float(ratio)
        is_undirected = bool_arg(_WHERE, "is_undirected", is_undirected)
        split_labels = bool_arg(_WHERE, "split_labels", split_labels)
        add_negative_train_samples = bool_arg(
            _WHERE, "add_negative_train_samples", add_negative_train_samples
        )
        if not isinstance(key, str) or not key:
            raise TypeError(f"{_WHERE}: key must be an attribute name, got {key!r}")
        if isinstance(edge_types, list):
            if rev_edge_types is None:
                rev_edge_types = [None] * len(edge_types)
            if not isinstance(rev_edge_types, list) or len(rev_edge_types) != len(edge_types):
                raise ValueError(
                    f"{_WHERE}: rev_edge_types must be a list as long as edge_types "
                    f"({len(edge_types)}), got {rev_edge_types!r}"
                )
            edge_types = [_edge_type_arg("edge_types", e, False) for e in edge_types]
            rev_edge_types = [_edge_type_arg("rev_edge_types", e, True) for e in rev_edge_types]
        elif edge_types is not None:
            edge_types = _edge_type_arg("edge_types", edge_types, False)
            if isinstance(rev_edge_types, list):
                raise TypeError(
                    f"{_WHERE}: rev_edge_types must be one edge type (or None) when "
                    "edge_types is one edge type"
                )
            rev_edge_types = _edge_type_arg("rev_edge_types", rev_edge_types, True)
        self.is_undirected = bool(is_undirected)
        self.key = key
        self.split_labels = bool(split_labels)
        self.add_negative_train_samples = bool(add_negative_train_samples)
        self.edge_types = edge_types
        self.rev_edge_types = rev_edge_types
        self.node_attrs = node_attrs
        self.edge_attrs = edge_attrs
        self.graph_attrs = graph_attrs
        self._rng = seed_arg(_WHERE, seed)

    # ------------------------------------------------------------------ plan
    def _data_plan(self, data: Any) -> list[tuple[str, int]]:
        if "edge_index" not in data:
            raise ValueError(f"{_WHERE}: data has no edge_index")
        edge = with_edge_attr(_WHERE, data, self.edge_attrs, self.key)  # labels: per edge
        levels = attribute_levels(_WHERE, data, self.node_attrs, edge, self.graph_attrs)
        return [(name, 0) for name in levels.edge]

    @staticmethod
    def _hetero_plan(data: HeteroData, store: Any) -> list[tuple[str, int]]:
        plan = []
        for name, value in store.items():
            if name == "edge_index" or not is_array(value):
                continue
            axis = data.__cat_dim__(name, value, store)
            axis = axis if isinstance(axis, int) else 0
            if value.ndim == 0 or int(value.shape[axis]) != store.num_edges:
                raise ValueError(
                    f"{_WHERE}: attribute {name!r} of edge type {store._key!r} must have "
                    f"{store.num_edges} entries along axis {axis} (one per edge), got shape "
                    f"{tuple(value.shape)}"
                )
            plan.append((name, axis))
        return plan

    # ------------------------------------------------------------------ forward
    def forward(self, data: Any) -> tuple[Any, Any, Any]:
        train_data, val_data, test_data = data.copy(), data.copy(), data.copy()
        if isinstance(data, HeteroData):
            if self.edge_types is None:
                raise ValueError(
                    f"{_WHERE}: edge_types must be given when operating on a HeteroData"
                )
            types = self.edge_types if isinstance(self.edge_types, list) else [self.edge_types]
            revs = (
                self.rev_edge_types
                if isinstance(self.rev_edge_types, list)
                else [self.rev_edge_types]
            )
            items = []
            for et, rev in zip(types, revs):
                if et not in data.edge_types:
                    raise ValueError(f"{_WHERE}: edge type {et!r} is not in data.edge_types")
                if rev is not None and rev not in data.edge_types:
                    raise ValueError(f"{_WHERE}: reverse edge type {rev!r} is not in the data")
                store = data[et]
                sizes = store.size()
                if sizes[0] is None or sizes[1] is None:
                    raise ValueError(
                        f"{_WHERE}: num_nodes of the node types of {et!r} must be known "
                        "(give x, pos or num_nodes=)"
                    )
                plan = self._hetero_plan(data, store)
                items.append((store, train_data[et], val_data[et], test_data[et], et, rev, plan))
        else:
            plan = self._data_plan(data)
            if data.num_nodes is None:
                raise ValueError(
                    f"{_WHERE}: num_nodes is unknown (give x, pos or num_nodes=; it is never "
                    "guessed from edge_index.max() + 1)"
                )
            items = [(data, train_data, val_data, test_data, None, None, plan)]
        for item in items:
            self._one(data, item, (train_data, val_data, test_data))
        return train_data, val_data, test_data

    def _one(self, data: Any, item: tuple[Any, ...], outs: tuple[Any, Any, Any]) -> None:
        """Split one edge store: ``item`` is ``(store, train_store, val_store, test_store,
        edge_type, rev_edge_type, plan)``; ``outs`` the three output graphs."""
        store, train_s, val_s, test_s, et, rev, plan = item
        ei = store["edge_index"]
        name = "edge_index" if et is None else f"edge_index of {et!r}"
        if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
            raise ValueError(f"{_WHERE}: {name} must be a [2, E] array")
        if et is None:
            n_src = n_dst = data.num_nodes
        else:
            n_src, n_dst = store.size()
        check_index_range(ei[0], n_src, f"{_WHERE}: {name} row 0")
        check_index_range(ei[1], n_dst, f"{_WHERE}: {name} row 1")
        xp = get_namespace(ei)
        gen = device_generator(xp, self._rng, _WHERE)
        undirected = self.is_undirected
        if et is not None:
            undirected = undirected and et[0] == et[2] and (rev is None or rev == et)
        if undirected:
            cand = xp.nonzero(ei[0] <= ei[1])[0]
            perm = cand[permutation(xp, gen, int(cand.shape[0]))]
        else:
            perm = permutation(xp, gen, int(ei.shape[1]))
        total = int(perm.shape[0])
        num_val, num_test = self.num_val, self.num_test
        if isinstance(num_val, float):
            num_val = int(num_val * total)
        if isinstance(num_test, float):
            num_test = int(num_test * total)
        num_train = total - num_val - num_test
        if num_train <= 0:
            raise ValueError(
                f"{_WHERE}: {_INSUFFICIENT}: {total} candidate edges, num_val={num_val} and "
                f"num_test={num_test} leave {num_train}"
            )
        train_edges = perm[:num_train]
        val_edges = perm[num_train : num_train + num_val]
        test_edges = perm[num_train + num_val :]
        train_val_edges = perm[: num_train + num_val]
        num_disjoint = self.disjoint_train_ratio
        if isinstance(num_disjoint, float):
            num_disjoint = int(num_disjoint * num_train)
        if num_train - num_disjoint <= 0:
            raise ValueError(
                f"{_WHERE}: {_INSUFFICIENT}: disjoint_train_ratio takes {num_disjoint} of "
                f"the {num_train} training edges"
            )
        for out, index, parent in (
            (train_s, train_edges[num_disjoint:], outs[0]),
            (val_s, train_edges, outs[1]),
            (test_s, train_val_edges, outs[2]),
        ):
            self._split(xp, store, out, index, undirected, plan, rev, parent)

        num_neg_train = 0
        if self.add_negative_train_samples:
            base = num_disjoint if num_disjoint > 0 else num_train
            num_neg_train = int(base * self.neg_sampling_ratio)
        num_neg_val = int(num_val * self.neg_sampling_ratio)
        num_neg_test = int(num_test * self.neg_sampling_ratio)
        num_neg = num_neg_train + num_neg_val + num_neg_test
        size: Any = n_src if et is None or et[0] == et[2] else (n_src, n_dst)
        neg = negative_sampling(ei, size, num_neg_samples=num_neg, method="sparse", seed=gen)
        neg = neg.astype(ei.dtype, copy=False)
        found = int(neg.shape[1])
        if found < num_neg:
            warnings.warn(
                "There are not enough negative edges to satisfy the provided sampling "
                f"ratio. The ratio will be adjusted to {found / num_neg:.2f}.",
                stacklevel=3,
            )
            num_neg_train = int((num_neg_train / num_neg) * found)
            num_neg_val = int((num_neg_val / num_neg) * found)
            num_neg_test = found - num_neg_train - num_neg_val
        if num_disjoint > 0:
            train_edges = train_edges[:num_disjoint]
        self._label(xp, store, train_edges, neg[:, num_neg_val + num_neg_test :], train_s)
        self._label(xp, store, val_edges, neg[:, :num_neg_val], val_s)
        self._label(xp, store, test_edges, neg[:, num_neg_val : num_neg_val + num_neg_test], test_s)

    def _split(
        self,
        xp: Any,
        store: Any,
        out: Any,
        index: Any,
        undirected: bool,
        plan: list[tuple[str, int]],
        rev: Any,
        parent: Any,
    ) -> None:
        for name, axis in plan:
            out[name] = _take(xp, store[name], index, axis, undirected)
        ei = store["edge_index"][:, index]
        if undirected:
            ei = xp.concatenate([ei, ei[::-1]], axis=1)
        out["edge_index"] = ei
        if rev is not None:
            rev_store = parent[rev]
            for name in list(rev_store.keys()):
                if name not in out:
                    del rev_store[name]  # outdated attributes go, as in PyG
                elif name == "edge_index":
                    rev_store["edge_index"] = xp.ascontiguousarray(out["edge_index"][::-1])
                else:
                    rev_store[name] = out[name]

    def _label(self, xp: Any, store: Any, index: Any, neg: Any, out: Any) -> None:
        key = self.key
        ei = store["edge_index"][:, index]
        has_neg = int(neg.shape[1]) > 0
        if key in store:
            label = xp.take(store[key], index, axis=0)
            if has_neg:
                if label.dtype.kind not in "iu":
                    raise TypeError(
                        f"{_WHERE}: data[{key!r}] must hold integer class labels when "
                        f"negatives are added (they get label 0), got dtype {label.dtype}"
                    )
                label = label + label.dtype.type(1)
            if key in out:
                del out[key]
        else:
            label = xp.ones(int(index.shape[0]), dtype=np.float32)
        if has_neg:
            neg_label = xp.zeros((int(neg.shape[1]),) + tuple(label.shape[1:]), label.dtype)
        if self.split_labels:
            out[f"pos_{key}"] = label
            out[f"pos_{key}_index"] = ei
            if has_neg:
                out[f"neg_{key}"] = neg_label
                out[f"neg_{key}_index"] = neg
        else:
            if has_neg:
                label = xp.concatenate([label, neg_label], axis=0)
                ei = xp.concatenate([ei, neg], axis=1)
            out[key] = label
            out[f"{key}_index"] = ei

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_val={self.num_val}, num_test={self.num_test})"
