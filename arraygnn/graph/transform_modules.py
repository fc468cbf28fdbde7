"""DGL's ``dgl.transforms`` classes (structural, random, feature and positional-encoding
transforms) on the DGL face; the diffusion ones are in
:mod:`arraygnn.graph.diffusion_transforms`.

Each class is a callable ``T(g) -> Graph`` built on the functional transforms
(:mod:`~arraygnn.graph.transform`, :mod:`~arraygnn.graph.structure`,
:mod:`~arraygnn.graph.positional_encoding`); :class:`Compose` chains them.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.graph.transform_modules import AddReverse, AddSelfLoop, Compose
>>> g = graph((np.array([0, 1, 1]), np.array([1, 1, 2])))
>>> t = Compose([AddSelfLoop(), AddReverse()])
>>> h = t(g)
>>> h.edges()[0].tolist(), h.edges()[1].tolist()
([0, 1, 0, 1, 2, 1, 2, 0, 1, 2], [1, 2, 0, 1, 2, 0, 1, 0, 1, 2])
>>> g.num_edges()  # the input is not changed
3

RULE: the input graph is never changed. DGL's ``RowFeatNormalizer``, ``FeatMask``,
      ``RandomWalkPE``, ``LapPE``, ``SVDPE`` (and ``GCNNorm``, ``SIGNDiffusion``) write
      into ``g`` and return it; here they return a new graph sharing every untouched array.
RULE: the random transforms take ``seed`` (an int or a NumPy ``Generator``; DGL draws from
      torch's RNG): one generator is made at construction, so successive calls differ and
      the sequence repeats for a given seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.graph import structure as _structure
from arraygnn.graph import transform as _transform
from arraygnn.graph.core import Canonical, Graph, check_graph
from arraygnn.graph.positional_encoding import laplacian_pe, random_walk_pe
from arraygnn.utils._checks import bool_arg as _flag

__all__ = [
    "BaseTransform",
    "Compose",
    "AddSelfLoop",
    "RemoveSelfLoop",
    "AddReverse",
    "ToSimple",
    "LineGraph",
    "KHopGraph",
    "AddMetaPaths",
    "NodeShuffle",
    "DropNode",
    "DropEdge",
    "AddEdge",
    "FeatMask",
    "RowFeatNormalizer",
    "ToLevi",
    "SVDPE",
    "RandomWalkPE",
    "LapPE",
]


def copy_graph(g: Graph) -> Graph:
    """A new graph with ``g``'s structure and feature dicts; the arrays are shared."""
    new = g._like({c: (r.src, r.dst) for c, r in g._rels.items()})
    new._device = g._device
    g._copy_frames_to(new, lambda a: a)
    new._batch_nodes, new._batch_edges = g._batch_nodes, g._batch_edges
    return new


def _rebuilt(
    g: Graph,
    relations: Mapping[Canonical, tuple[Any, Any]],
    edge_data: Mapping[Canonical, Mapping[str, Any]] | None = None,
) -> Graph:
    """DGL's ``update_graph_structure``: ``relations`` over ``g``'s node types and counts,
    ``g``'s node features, and ``edge_data``."""
    new = _transform._build(g, dict(relations), dict(edge_data or {}), copy_ndata=True)
    new._device = g._device
    return new


def _check_graph(where: str, g: Any, homogeneous: bool = False) -> None:
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: blocks are not supported; transform the graph first")
    if homogeneous and (len(g.ntypes) != 1 or len(g.canonical_etypes) > 1):
        raise ValueError(f"{where}: the graph must be homogeneous (one node and one edge type)")


def _probability(where: str, name: str, p: Any) -> float:
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a number in [0, 1], got {p!r}")
    if not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"{where}: {name} must be in [0, 1], got {p!r}")
    return float(p)


def _positive_int(where: str, name: str, k: Any) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be a positive int, got {k!r}")
    if k < 1:
        raise ValueError(f"{where}: {name} must be a positive int, got {k!r}")
    return int(k)


def _names(where: str, name: str, names: Any) -> list[str]:
    if names is None:
        return []
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"{where}: {name} must be a list of feature names, got {names!r}")
    return list(names)


def _rng(seed: Any) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


class BaseTransform:
    """The base of every transform: a callable ``T(g) -> Graph``."""

    def __call__(self, g: Graph) -> Graph:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class Compose(BaseTransform):
    """Apply ``transforms`` in order."""

    def __init__(self, transforms: Sequence[Any]) -> None:
        if isinstance(transforms, (str, bytes)) or not isinstance(transforms, Sequence):
            raise TypeError(f"Compose: transforms must be a list of callables, got {transforms!r}")
        for t in transforms:
            if not callable(t):
                raise TypeError(f"Compose: transforms holds {t!r}, which is not callable")
        self.transforms = list(transforms)

    def __call__(self, g: Graph) -> Graph:
        for t in self.transforms:
            g = t(g)
        return g

    def __repr__(self) -> str:
        args = ["  " + str(t) for t in self.transforms]
        return self.__class__.__name__ + "([\n" + ",\n".join(args) + "\n])"


class AddSelfLoop(BaseTransform):
    """One self-loop per node for every edge type whose two ends are one node type (other
    edge types unchanged). Without ``allow_duplicate`` the existing loops are removed
    first; ``edge_feat_names`` / ``fill_data`` as :func:`~arraygnn.graph.add_self_loop`.
    ``new_etypes=True`` also adds an edge type ``(ntype, 'self', ntype)`` per node type
    (one already in the graph keeps its edges and features, as DGL)."""

    def __init__(
        self,
        allow_duplicate: bool = False,
        new_etypes: bool = False,
        edge_feat_names: Sequence[str] | None = None,
        fill_data: float | str = 1.0,
    ) -> None:
        self.allow_duplicate = _flag("AddSelfLoop", "allow_duplicate", allow_duplicate)
        self.new_etypes = _flag("AddSelfLoop", "new_etypes", new_etypes)
        if edge_feat_names is not None:
            edge_feat_names = _names("AddSelfLoop", "edge_feat_names", edge_feat_names)
        if isinstance(fill_data, str):
            if fill_data not in ("sum", "mean", "max", "min"):
                raise ValueError(
                    "AddSelfLoop: fill_data must be a number or 'sum' / 'mean' / 'max' / "
                    f"'min', got {fill_data!r}"
                )
        elif not isinstance(fill_data, (int, float, np.integer, np.floating, np.bool_)):
            raise TypeError(
                f"AddSelfLoop: fill_data must be a number or a reduction name, got {fill_data!r}"
            )
        self.edge_feat_names = edge_feat_names
        self.fill_data = fill_data

    def __call__(self, g: Graph) -> Graph:
        _check_graph("AddSelfLoop", g)
        out = copy_graph(g)
        for c in g.canonical_etypes:
            if c[0] != c[2]:
                continue
            if not self.allow_duplicate:
                out = _transform.remove_self_loop(out, etype=c)
            out = _transform.add_self_loop(
                out, edge_feat_names=self.edge_feat_names, fill_data=self.fill_data, etype=c
            )
        if self.new_etypes:
            xp = out._xp()
            relations: dict[Canonical, tuple[Any, Any]] = {}
            for t in out.ntypes:
                ids = xp.arange(out.num_nodes(t), dtype=out.idtype)
                relations[(t, "self", t)] = (ids, ids)
            # as DGL, an existing (t, 'self', t) edge type keeps its edges and features
            relations.update({c: (r.src, r.dst) for c, r in out._rels.items()})
            data = {c: dict(r.frame._data) for c, r in out._rels.items()}
            out = _rebuilt(out, relations, data)
        return out


class RemoveSelfLoop(BaseTransform):
    """Remove every self-loop of the edge types whose two ends are one node type (as
    DGL, by removing their edge ids: the batch information is recounted)."""

    def __call__(self, g: Graph) -> Graph:
        _check_graph("RemoveSelfLoop", g)
        out = copy_graph(g)
        xp = g._xp()
        for c in g.canonical_etypes:
            if c[0] == c[2]:
                rel = out._rels[c]
                loops = xp.nonzero(rel.src == rel.dst)[0].astype(g.idtype)
                out = _structure.remove_edges(out, loops, etype=c)
        return out


class AddReverse(BaseTransform):
    """Add the reverse of every edge. An edge type ``(u, e, u)`` gets its reversed edges
    appended (self-loops too; their features copied if ``copy_edata``, else zeros); an edge
    type ``(u, e, v)`` (or any, with ``sym_new_etype``) gets a new type ``(v, 'rev_e', u)``
    (features copied if ``copy_edata``, else none)."""

    def __init__(self, copy_edata: bool = False, sym_new_etype: bool = False) -> None:
        self.copy_edata = _flag("AddReverse", "copy_edata", copy_edata)
        self.sym_new_etype = _flag("AddReverse", "sym_new_etype", sym_new_etype)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("AddReverse", g)
        xp = g._xp()
        relations: dict[Canonical, tuple[Any, Any]] = {}
        data: dict[Canonical, dict[str, Any]] = {}
        for c, r in g._rels.items():
            u, e, v = c
            feats = r.frame._data
            if u == v and not self.sym_new_etype:
                relations[c] = (xp.concatenate([r.src, r.dst]), xp.concatenate([r.dst, r.src]))
                data[c] = {
                    k: xp.concatenate([f, f if self.copy_edata else xp.zeros_like(f)])
                    for k, f in feats.items()
                }
            else:
                rev = (v, f"rev_{e}", u)
                relations[c] = (r.src, r.dst)
                relations[rev] = (r.dst, r.src)
                data[c] = dict(feats)
                data[rev] = dict(feats) if self.copy_edata else {}
        return _rebuilt(g, relations, data)


class ToSimple(BaseTransform):
    """Merge parallel edges (:func:`~arraygnn.graph.to_simple` with ``copy_edata=True``);
    ``return_counts`` names the multiplicity feature, ``aggregator`` is ``'arbitrary'`` /
    ``'sum'`` / ``'mean'``."""

    def __init__(self, return_counts: str | None = "count", aggregator: str = "arbitrary") -> None:
        if return_counts is not None and not isinstance(return_counts, str):
            raise TypeError(
                f"ToSimple: return_counts must be a name or None, got {return_counts!r}"
            )
        if aggregator not in ("arbitrary", "sum", "mean"):
            raise ValueError(
                f"ToSimple: aggregator must be 'arbitrary', 'sum' or 'mean', got {aggregator!r}"
            )
        self.return_counts = return_counts
        self.aggregator = aggregator

    def __call__(self, g: Graph) -> Graph:
        _check_graph("ToSimple", g)
        return _transform.to_simple(
            g, return_counts=self.return_counts, copy_edata=True, aggregator=self.aggregator
        )


class LineGraph(BaseTransform):
    """The line graph (:func:`~arraygnn.graph.line_graph` with ``shared=True``: the node
    features are the input's edge features)."""

    def __init__(self, backtracking: bool = True) -> None:
        self.backtracking = _flag("LineGraph", "backtracking", backtracking)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("LineGraph", g, homogeneous=True)
        return _structure.line_graph(g, backtracking=self.backtracking, shared=True)


class KHopGraph(BaseTransform):
    """An edge ``u -> v`` per ``k``-hop walk (:func:`~arraygnn.graph.khop_graph`; ``k=0``
    gives one self-loop per node, as DGL)."""

    def __init__(self, k: int) -> None:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"KHopGraph: k must be a non-negative int, got {k!r}")
        if k < 0:
            raise ValueError(f"KHopGraph: k must be a non-negative int, got {k!r}")
        self.k = int(k)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("KHopGraph", g, homogeneous=True)
        return _structure.khop_graph(g, self.k)


class AddMetaPaths(BaseTransform):
    """Add an edge type ``(first ntype, name, last ntype)`` per ``{name: metapath}`` holding
    :func:`~arraygnn.graph.metapath_reachable_graph`'s edges; ``keep_orig_edges`` keeps the
    original edge types with their features (else only the new ones remain)."""

    def __init__(
        self, metapaths: Mapping[str, Sequence[Any]], keep_orig_edges: bool = True
    ) -> None:
        if not isinstance(metapaths, Mapping):
            raise TypeError(
                f"AddMetaPaths: metapaths must be a dict name -> metapath, got {metapaths!r}"
            )
        for name, path in metapaths.items():
            if isinstance(path, str) or not isinstance(path, Sequence) or len(path) == 0:
                raise ValueError(
                    f"AddMetaPaths: metapaths[{name!r}] must be a non-empty list of edge types"
                )
        self.metapaths = dict(metapaths)
        self.keep_orig_edges = _flag("AddMetaPaths", "keep_orig_edges", keep_orig_edges)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("AddMetaPaths", g)
        relations: dict[Canonical, tuple[Any, Any]] = {}
        for name, path in self.metapaths.items():
            first, last = g._rel(path[0]).canonical, g._rel(path[-1]).canonical
            meta = _structure.metapath_reachable_graph(g, path)
            relations[(first[0], name, last[2])] = meta.edges()
        data = {}
        if self.keep_orig_edges:
            for c, r in g._rels.items():
                relations[c] = (r.src, r.dst)
                data[c] = dict(r.frame._data)
        return _rebuilt(g, relations, data)


class NodeShuffle(BaseTransform):
    """Permute the rows of every node feature, one random permutation per node type."""

    def __init__(self, seed: Any = None) -> None:
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("NodeShuffle", g)
        out = copy_graph(g)
        xp = g._xp()
        for t in g.ntypes:
            perm = xp.asarray(self._rng.permutation(g.num_nodes(t)))
            frame = out._src_frames[t]._data
            for k in list(frame):
                frame[k] = frame[k][perm]
        return out


class DropNode(BaseTransform):
    """Drop each node independently with probability ``p`` (and its edges); the kept nodes
    are relabelled in id order, as :func:`~arraygnn.graph.remove_nodes`."""

    def __init__(self, p: float = 0.5, seed: Any = None) -> None:
        self.p = _probability("DropNode", "p", p)
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("DropNode", g)
        out = copy_graph(g)
        if self.p == 0:
            return out
        for t in g.ntypes:
            drop = np.nonzero(self._rng.random(g.num_nodes(t)) < self.p)[0]
            out = _structure.remove_nodes(out, out._xp().asarray(drop.astype(g.idtype)), ntype=t)
        return out


class DropEdge(BaseTransform):
    """Drop each edge independently with probability ``p`` (the rest keep their order)."""

    def __init__(self, p: float = 0.5, seed: Any = None) -> None:
        self.p = _probability("DropEdge", "p", p)
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("DropEdge", g)
        out = copy_graph(g)
        if self.p == 0:
            return out
        for c in g.canonical_etypes:
            drop = np.nonzero(self._rng.random(g.num_edges(c)) < self.p)[0]
            out = _structure.remove_edges(out, out._xp().asarray(drop.astype(g.idtype)), etype=c)
        return out


class AddEdge(BaseTransform):
    """Append ``int(ratio * E)`` uniformly random edges to each edge type (zero features)."""

    def __init__(self, ratio: float = 0.2, seed: Any = None) -> None:
        if isinstance(ratio, (bool, np.bool_)) or not isinstance(
            ratio, (int, float, np.integer, np.floating)
        ):
            raise TypeError(f"AddEdge: ratio must be a non-negative number, got {ratio!r}")
        if ratio < 0:
            raise ValueError(f"AddEdge: ratio must be non-negative, got {ratio!r}")
        self.ratio = float(ratio)
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("AddEdge", g)
        out = copy_graph(g)
        if self.ratio == 0.0:
            return out
        xp = g._xp()
        for c in g.canonical_etypes:
            u, _, v = c
            count = int(g.num_edges(c) * self.ratio)
            if count == 0:
                continue
            src = self._rng.integers(0, g.num_nodes(u), count).astype(g.idtype)
            dst = self._rng.integers(0, g.num_nodes(v), count).astype(g.idtype)
            out = _structure.add_edges(out, xp.asarray(src), xp.asarray(dst), etype=c)
        return out


def _typed_frames(g: Graph, names: list[str], edges: bool, where: str) -> list[tuple[Any, str]]:
    """``(frame dict, name)`` for every node / edge type holding each of ``names``."""
    frames = (
        [r.frame._data for r in g._rels.values()]
        if edges
        else [f._data for f in g._src_frames.values()]
    )
    out = []
    for name in names:
        hits = [(f, name) for f in frames if name in f]
        if not hits:
            what = "edge" if edges else "node"
            raise KeyError(f"{where}: no {what} feature {name!r} in the graph")
        out.extend(hits)
    return out


class FeatMask(BaseTransform):
    """Zero whole feature columns: for each named feature (and each type holding it) a
    column is masked with probability ``p`` (one draw per column, shared by all rows)."""

    def __init__(
        self,
        p: float = 0.5,
        node_feat_names: Sequence[str] | None = None,
        edge_feat_names: Sequence[str] | None = None,
        seed: Any = None,
    ) -> None:
        self.p = _probability("FeatMask", "p", p)
        self.node_feat_names = _names("FeatMask", "node_feat_names", node_feat_names)
        self.edge_feat_names = _names("FeatMask", "edge_feat_names", edge_feat_names)
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("FeatMask", g)
        out = copy_graph(g)
        if self.p == 0:
            return out
        targets = _typed_frames(out, self.node_feat_names, False, "FeatMask")
        targets += _typed_frames(out, self.edge_feat_names, True, "FeatMask")
        for frame, name in targets:
            x = frame[name]
            if x.ndim < 2:
                raise ValueError(
                    f"FeatMask: feature {name!r} has shape {x.shape}; it needs [rows, columns]"
                )
            xp = out._xp()
            mask = xp.asarray(self._rng.random(x.shape[-1]) < self.p)
            frame[name] = xp.where(mask, xp.zeros((), dtype=x.dtype), x)
        return out


class RowFeatNormalizer(BaseTransform):
    """Divide each row of the named features by its sum clamped to at least 1 (DGL's
    ``feat / feat.sum(-1).clamp(min=1)``); ``subtract_min`` first subtracts the feature's
    global minimum."""

    def __init__(
        self,
        subtract_min: bool = False,
        node_feat_names: Sequence[str] | None = None,
        edge_feat_names: Sequence[str] | None = None,
    ) -> None:
        self.subtract_min = _flag("RowFeatNormalizer", "subtract_min", subtract_min)
        self.node_feat_names = _names("RowFeatNormalizer", "node_feat_names", node_feat_names)
        self.edge_feat_names = _names("RowFeatNormalizer", "edge_feat_names", edge_feat_names)

    def _normalize(self, x: Any, name: str) -> Any:
        if x.dtype.kind != "f":
            raise TypeError(f"RowFeatNormalizer: feature {name!r} is {x.dtype}; it must be float")
        if self.subtract_min and x.size:
            x = x - x.min()
        xp = get_namespace(x)
        total = xp.maximum(x.sum(axis=-1, keepdims=True), x.dtype.type(1.0))
        return x / total

    def __call__(self, g: Graph) -> Graph:
        _check_graph("RowFeatNormalizer", g)
        out = copy_graph(g)
        targets = _typed_frames(out, self.node_feat_names, False, "RowFeatNormalizer")
        targets += _typed_frames(out, self.edge_feat_names, True, "RowFeatNormalizer")
        for frame, name in targets:
            frame[name] = self._normalize(frame[name], name)
        return out


class ToLevi(BaseTransform):
    """The Levi graph of a homogeneous graph: node types ``'node'`` (the input's nodes and
    node features) and ``'edge'`` (one per edge, with the edge features), edge types
    ``('node', 'n2e', 'edge')`` from each edge's source and ``('edge', 'e2n', 'node')`` to
    its destination. (DGL infers the ``'node'`` count from the edges; here it is
    ``g.num_nodes()``, so trailing isolated nodes are kept.)"""

    def __call__(self, g: Graph) -> Graph:
        _check_graph("ToLevi", g, homogeneous=True)
        xp = g._xp()
        e = g.num_edges()
        eids = xp.arange(e, dtype=g.idtype)
        src, dst = g.edges() if g.canonical_etypes else (eids, eids)
        levi = Graph(
            {("node", "n2e", "edge"): (src, eids), ("edge", "e2n", "node"): (eids, dst)},
            {"node": g.num_nodes(), "edge": e},
            validate=False,
        )
        levi._device = g._device
        levi._src_frames["node"]._data.update(g._src_frames[g.ntypes[0]]._data)
        if g.canonical_etypes:
            levi._src_frames["edge"]._data.update(g._rels[g.canonical_etypes[0]].frame._data)
        return levi


def _with_node_features(g: Graph, feats: Mapping[str, Any]) -> Graph:
    out = copy_graph(g)
    xp = g._xp()
    for k, v in feats.items():
        out.ndata[k] = xp.asarray(v)
    return out


class SVDPE(BaseTransform):
    """:func:`~arraygnn.graph.svd_pe.svd_pe` (``[U_k sqrt(S_k), V_k sqrt(S_k)]`` of the
    adjacency, ``A[u, v]`` = number of edges ``u -> v``), float32 [N, 2k] in
    ``ndata[feat_name]``;
    ``padding`` zero-fills when ``k > N``; ``random_flip`` flips each row's sign at random."""

    def __init__(
        self,
        k: int,
        feat_name: str = "svd_pe",
        padding: bool = False,
        random_flip: bool = True,
        seed: Any = None,
    ) -> None:
        self.k = _positive_int("SVDPE", "k", k)
        self.feat_name = feat_name
        self.padding = _flag("SVDPE", "padding", padding)
        self.random_flip = _flag("SVDPE", "random_flip", random_flip)
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        from arraygnn.graph.svd_pe import svd_pe

        _check_graph("SVDPE", g, homogeneous=True)
        n = g.num_nodes()
        if not self.padding and n < self.k:
            raise ValueError(
                f"SVDPE: k must be no greater than the number of nodes, got k={self.k} "
                f"and {n} nodes (pass padding=True)"
            )
        enc = svd_pe(g, self.k, self.padding, self.random_flip, seed=self._rng)
        return _with_node_features(g, {self.feat_name: enc})


class RandomWalkPE(BaseTransform):
    """:func:`~arraygnn.graph.random_walk_pe` into ``ndata[feat_name]``."""

    def __init__(self, k: int, feat_name: str = "PE", eweight_name: str | None = None) -> None:
        self.k = _positive_int("RandomWalkPE", "k", k)
        self.feat_name = feat_name
        self.eweight_name = eweight_name

    def __call__(self, g: Graph) -> Graph:
        _check_graph("RandomWalkPE", g, homogeneous=True)
        pe = random_walk_pe(g, self.k, eweight_name=self.eweight_name)
        return _with_node_features(g, {self.feat_name: pe})


class LapPE(BaseTransform):
    """:func:`~arraygnn.graph.lap_pe` into ``ndata[feat_name]``; with ``eigval_name`` the
    eigenvalues too, repeated on every node ([N, k])."""

    def __init__(
        self,
        k: int,
        feat_name: str = "PE",
        eigval_name: str | None = None,
        padding: bool = False,
        seed: Any = None,
    ) -> None:
        self.k = _positive_int("LapPE", "k", k)
        self.feat_name = feat_name
        self.eigval_name = eigval_name
        self.padding = _flag("LapPE", "padding", padding)
        self._rng = _rng(seed)

    def __call__(self, g: Graph) -> Graph:
        _check_graph("LapPE", g, homogeneous=True)
        pe, val = laplacian_pe(g, self.k, padding=self.padding, return_eigval=True, seed=self._rng)
        feats = {self.feat_name: pe}
        if self.eigval_name:
            feats[self.eigval_name] = np.repeat(val.reshape(1, -1), g.num_nodes(), axis=0)
        return _with_node_features(g, feats)
