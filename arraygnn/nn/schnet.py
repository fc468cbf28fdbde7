"""PyG's ``SchNet`` (Schütt et al., 2017) at inference, with its pieces from
``torch_geometric.nn.models.schnet``: ``GaussianSmearing``, ``ShiftedSoftplus``, PyG's
``CFConv`` (not DGL's, which is :class:`~arraygnn.nn.DGLCFConv`), ``InteractionBlock`` and
``RadiusInteractionGraph``.

The interaction graph links atoms of one molecule closer than ``cutoff``
(:func:`arraygnn.utils.radius_graph`, at most ``max_num_neighbors`` per atom: the nearest
ones, ties to the lower index; PyG's CPU kernel keeps an unspecified subset when an atom
has more). Each edge's distance is expanded in Gaussians and turned by the filter network
into a per-edge filter ``W`` ``[E, num_filters]`` (cut off smoothly by ``0.5 (cos(pi d /
cutoff) + 1)``), computed once per distinct atom pair and gathered for both directions
(the two edges of a pair have the same length bit for bit); ``CFConv`` then sums
``lin1(x)_j * W_ji`` over each atom's edges in one fused SpMM with ``W`` as per-channel
edge weights (no second ``[E, F]`` message array).
The readout sums (``'add'``) or averages (``'mean'``) the atoms' outputs per molecule;
``dipole=True`` predicts the dipole magnitude from the atoms' charges and the molecule's
centre of mass (``atomic_mass`` from ``ase`` or given).

RULE: with ``batch``, ``batch_size`` (the number of molecules) left out is
      ``batch.max() + 1``, as PyG (pass it to keep trailing empty molecules). Without
      ``batch`` the atoms are one molecule (one output row even for zero atoms, where PyG
      gives none).

>>> import numpy as np
>>> model = SchNet(hidden_channels=8, num_filters=8, num_interactions=2, num_gaussians=5,
...                cutoff=2.0, rng=0)
>>> z = np.array([1, 6, 8, 1, 1])
>>> pos = np.random.default_rng(0).random((5, 3)).astype(np.float32)
>>> model(z, pos, np.array([0, 0, 0, 1, 1]), batch_size=2).shape
(2, 1)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import shifted_softplus
from arraygnn.nn._module import Module, layer_size, real_number
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.linear import Linear, Sequential, _ModuleList, _rng

__all__ = [
    "SchNet",
    "RadiusInteractionGraph",
    "InteractionBlock",
    "CFConv",
    "GaussianSmearing",
    "ShiftedSoftplus",
]

#: ``torch.log(torch.tensor(2.0)).item()``: PyG's shift, a float32 logarithm
_SHIFT = float(np.log(np.float32(2.0)))
_READOUTS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}
#: PyG's aggregation classes -> readout names (for ``from_pyg``)
_PYG_READOUTS = {
    "SumAggregation": "add",
    "MeanAggregation": "mean",
    "MaxAggregation": "max",
    "MinAggregation": "min",
}


class ShiftedSoftplus(Module):
    """PyG's ``ShiftedSoftplus``: ``softplus(x) - log(2)`` (torch's ``softplus``: ``x``
    itself above 20)."""

    def __init__(self) -> None:
        self.shift = _SHIFT

    def __call__(self, x: Any) -> Any:
        out = shifted_softplus(x, shift=1.0)  # log(1) = 0: the plain softplus
        out -= x.dtype.type(self.shift)
        return out


class GaussianSmearing(Module):
    """PyG's ``GaussianSmearing(start=0.0, stop=5.0, num_gaussians=50)``: ``exp(coeff (d -
    offset)^2)`` with ``offset`` (buffer) ``num_gaussians`` evenly spaced centres and
    ``coeff = -0.5 / (offset[1] - offset[0])^2``.

    Shapes: ``(E,)`` distances -> ``(E, num_gaussians)``.
    """

    _buffer_names = ("offset",)

    def __init__(
        self,
        start: float = 0.0,
        stop: float = 5.0,
        num_gaussians: int = 50,
        *,
        dtype: Any = np.float32,
    ) -> None:
        n = layer_size("GaussianSmearing", "num_gaussians", num_gaussians, minimum=2)
        self.offset = np.linspace(float(start), float(stop), n).astype(dtype)
        self.coeff = -0.5 / float(self.offset[1] - self.offset[0]) ** 2

    def __call__(self, dist: Any) -> Any:
        xp = get_namespace(dist, self.offset)
        d = dist.reshape(-1, 1) - self.offset.reshape(1, -1)
        return xp.exp(self.coeff * (d * d))

    def extra_repr(self) -> str:
        return f"num_gaussians={self.offset.shape[0]}"


class CFConv(Module):
    """PyG's SchNet ``CFConv(in_channels, out_channels, num_filters, nn, cutoff)``:
    ``lin2(sum_j lin1(x)_j * nn(edge_attr)_ji * C(d_ji))`` with ``C(d) = 0.5 (cos(d pi /
    cutoff) + 1)`` (one SpMM, the filters as per-channel edge weights).

    Call as ``conv(x, edge_index, edge_weight, edge_attr)`` (``edge_weight``: the
    distances ``(E,)``; ``edge_attr``: their expansion ``(E, num_gaussians)``).

    Names: ``lin1.weight`` (no bias), ``lin2.*``, ``nn.*``.
    """

    _child_names = ("lin1", "lin2", "nn")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_filters: int,
        nn: Any,
        cutoff: float,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self.lin1 = Linear(in_channels, num_filters, bias=False, dtype=dtype, rng=gen)
        self.lin2 = Linear(num_filters, out_channels, dtype=dtype, rng=gen)
        self.nn = nn
        self.cutoff = float(cutoff)

    def __call__(
        self, x: Any, edge_index: Any, edge_weight: Any, edge_attr: Any, pair_of: Any = None
    ) -> Any:
        """``pair_of``: ``None``, or for each edge the row of ``edge_weight`` /
        ``edge_attr`` that holds its distance (one row per distinct atom pair: the filter
        network then runs once per pair, not once per direction)."""
        from arraygnn import ops

        xp = get_namespace(x, edge_weight)
        c = 0.5 * (xp.cos(edge_weight * math.pi / self.cutoff) + 1.0)
        w = self.nn(edge_attr) * c.reshape(-1, 1)
        if pair_of is not None:
            w = ops.gather(w, pair_of)
        h = self.lin1(x)
        n, f = int(h.shape[0]), int(h.shape[1])
        # one "head" per filter channel: edge weight [E, F] scales channel f of h [N, F, 1]
        out = ops.spmm(edge_index, h.reshape(n, f, 1), edge_weight=w, num_dst_nodes=n)
        return self.lin2(out.reshape(n, f))


class InteractionBlock(Module):
    """PyG's ``InteractionBlock(hidden_channels, num_gaussians, num_filters, cutoff)``:
    ``lin(ssp(conv(x, ...)))`` with the filter network ``mlp = Sequential(Linear,
    ShiftedSoftplus, Linear)`` shared with ``conv.nn`` (both names in the state dict, as
    PyG's)."""

    _child_names = ("mlp", "conv", "lin")

    def __init__(
        self,
        hidden_channels: int,
        num_gaussians: int,
        num_filters: int,
        cutoff: float,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self.mlp = Sequential(
            Linear(num_gaussians, num_filters, dtype=dtype, rng=gen),
            ShiftedSoftplus(),
            Linear(num_filters, num_filters, dtype=dtype, rng=gen),
        )
        self.conv = CFConv(
            hidden_channels, hidden_channels, num_filters, self.mlp, cutoff, dtype=dtype, rng=gen
        )
        self.act = ShiftedSoftplus()
        self.lin = Linear(hidden_channels, hidden_channels, dtype=dtype, rng=gen)

    def __call__(
        self, x: Any, edge_index: Any, edge_weight: Any, edge_attr: Any, pair_of: Any = None
    ) -> Any:
        return self.lin(self.act(self.conv(x, edge_index, edge_weight, edge_attr, pair_of)))


class RadiusInteractionGraph(Module):
    """PyG's ``RadiusInteractionGraph(cutoff=10.0, max_num_neighbors=32)``: ``(pos, batch,
    batch_size) -> (edge_index, edge_weight)``, the edges of
    :func:`arraygnn.utils.radius_graph` (no self-loops) and their lengths."""

    def __init__(self, cutoff: float = 10.0, max_num_neighbors: int = 32) -> None:
        self.cutoff = float(cutoff)
        self.max_num_neighbors = layer_size(
            "RadiusInteractionGraph", "max_num_neighbors", max_num_neighbors, minimum=1
        )

    def __call__(self, pos: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        from arraygnn import ops
        from arraygnn.utils import radius_graph

        xp = get_namespace(pos, batch)
        edge_index = radius_graph(
            pos,
            r=self.cutoff,
            batch=batch,
            max_num_neighbors=self.max_num_neighbors,
            batch_size=batch_size,
        )
        diff = ops.sddmm(edge_index, pos, pos, op="sub")  # pos[row] - pos[col], [E, 3]
        return edge_index, xp.sqrt((diff * diff).sum(axis=-1))

    def extra_repr(self) -> str:
        return f"cutoff={self.cutoff:g}, max_num_neighbors={self.max_num_neighbors}"


class SchNet(Module):
    """PyG's ``SchNet``.

    Args:
        hidden_channels, num_filters, num_interactions, num_gaussians, cutoff,
            max_num_neighbors: PyG's (defaults 128, 128, 6, 50, 10.0, 32).
        interaction_graph: ``None`` (a :class:`RadiusInteractionGraph`) or a callable
            ``(pos, batch, batch_size) -> (edge_index, edge_weight)`` on arrays.
        readout: ``'add'`` (or ``'sum'``), ``'mean'``, ``'max'``, ``'min'`` (``'add'``
            when ``dipole``).
        dipole: predict the dipole moment's magnitude.
        mean, std: de-standardise the atoms' outputs (both or neither take effect).
        atomref: ``(100,)`` or ``(100, 1)`` single-atom references added per atom.
        atomic_mass: masses by atomic number for ``dipole`` (default: ``ase``'s table).
        scale: multiplies the output (PyG's ``from_qm9_pretrained`` sets it).

    Call as ``model(z, pos, batch=None, batch_size=None)`` with ``z`` ``(N,)`` atomic
    numbers in ``[0, 100)``, ``pos`` ``(N, 3)`` in the model's dtype -> ``(B, 1)``.

    Names (PyG's): ``embedding.weight`` ``(100, hidden)``, ``distance_expansion.offset``,
    ``interactions.i.{mlp,conv,lin}.*``, ``lin1.*``, ``lin2.*``, ``atomref.weight``,
    ``initial_atomref``, ``atomic_mass``.
    """

    _param_names = ("initial_atomref", "atomic_mass")
    _child_names = (
        "embedding", "distance_expansion", "interactions", "lin1", "lin2", "atomref"
    )  # fmt: skip

    def __init__(
        self,
        hidden_channels: int = 128,
        num_filters: int = 128,
        num_interactions: int = 6,
        num_gaussians: int = 50,
        cutoff: float = 10.0,
        interaction_graph: Any = None,
        max_num_neighbors: int = 32,
        readout: str = "add",
        dipole: bool = False,
        mean: float | None = None,
        std: float | None = None,
        atomref: Any = None,
        *,
        atomic_mass: Any = None,
        scale: float | None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "SchNet"
        hid = self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels, 1)
        self.num_filters = layer_size(name, "num_filters", num_filters)
        self.num_interactions = layer_size(name, "num_interactions", num_interactions)
        self.num_gaussians = layer_size(name, "num_gaussians", num_gaussians, minimum=2)
        self.cutoff = real_number(name, "cutoff", cutoff)
        if not self.cutoff > 0:
            raise ValueError(f"{name}: cutoff must be positive, got {cutoff}")
        self.dipole = bool(dipole)
        if not isinstance(readout, str) or readout not in _READOUTS:
            raise ValueError(f"{name}: readout must be one of {sorted(_READOUTS)}, got {readout!r}")
        self.readout = "add" if self.dipole else readout
        self.mean = None if mean is None else real_number(name, "mean", mean)
        self.std = None if std is None else real_number(name, "std", std)
        self.scale = None if scale is None else real_number(name, "scale", scale)
        gen = _rng(rng)
        self.embedding = _Embedding(100, hid, gen, dtype)
        self.embedding.weight[0] = 0  # padding_idx=0
        if interaction_graph is None:
            interaction_graph = RadiusInteractionGraph(self.cutoff, max_num_neighbors)
        elif not callable(interaction_graph):
            raise TypeError(f"{name}: interaction_graph must be callable or None")
        self.interaction_graph = interaction_graph
        self.distance_expansion = GaussianSmearing(
            0.0, self.cutoff, self.num_gaussians, dtype=dtype
        )
        self.interactions = _ModuleList(
            [
                InteractionBlock(hid, self.num_gaussians, self.num_filters, self.cutoff,
                                 dtype=dtype, rng=gen)
                for _ in range(self.num_interactions)
            ]
        )  # fmt: skip
        self.lin1 = Linear(hid, hid // 2, dtype=dtype, rng=gen)
        self.act = ShiftedSoftplus()
        self.lin2 = Linear(hid // 2, 1, dtype=dtype, rng=gen)
        self.initial_atomref = self.atomref = None
        if atomref is not None:
            ref = np.asarray(atomref, dtype=dtype).reshape(-1, 1)
            if ref.shape != (100, 1):
                raise ValueError(f"{name}: atomref must hold 100 values, got {ref.shape[0]}")
            self.initial_atomref = ref.copy()
            self.atomref = _Embedding(100, 1, gen, dtype)
            self.atomref.weight = ref.copy()
        self.atomic_mass = None
        if self.dipole:
            if atomic_mass is None:
                try:
                    import ase.data
                except ImportError as err:
                    raise ImportError(
                        f"{name}: dipole=True needs atomic masses: install 'ase' or pass "
                        "atomic_mass (one mass per atomic number)"
                    ) from err
                atomic_mass = ase.data.atomic_masses
            mass = np.array(atomic_mass)  # PyG keeps ase's float64 table as it is
            if mass.ndim != 1 or mass.dtype.kind != "f":
                raise ValueError(f"{name}: atomic_mass must be a 1-D float array")
            self.atomic_mass = mass

    def __call__(self, z: Any, pos: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        from arraygnn import ops
        from arraygnn.nn._pool_input import check_batch
        from arraygnn.ops._common import check_index

        name = "SchNet"
        weight = self.embedding.weight
        xp = get_namespace(z, pos, batch, weight)
        check_index(f"{name}: z", z, 100)
        n = int(z.shape[0])
        if pos.ndim != 2 or pos.shape[0] != n:
            raise ValueError(
                f"{name}: pos must have shape ({n}, 3) (a position per atom), got "
                f"{tuple(pos.shape)}"
            )
        if pos.dtype != weight.dtype:
            raise TypeError(f"{name}: pos must be {weight.dtype} (the model's), got {pos.dtype}")
        if self.dipole and pos.shape[1] != 3:
            raise ValueError(f"{name}: dipole needs 3-D positions, got {pos.shape[1]} columns")
        if self.dipole and int(z.max(initial=0) if xp is np else z.max()) >= len(self.atomic_mass):
            raise ValueError(f"{name}: z has an atomic number without a mass in atomic_mass")
        if batch is None:
            if batch_size not in (None, 1):
                raise ValueError(f"{name}: without batch the atoms are one molecule")
            batch_size, graph_batch = 1, None
            batch = xp.zeros(n, dtype=np.int64)
        else:
            batch_size = check_batch(name, batch, batch_size, n)
            graph_batch = batch
        h = ops.gather(weight, z)
        edge_index, edge_weight = self.interaction_graph(pos, graph_batch, batch_size)
        edge_weight, pair_of = _distinct_pairs(xp, edge_index, edge_weight, n)
        edge_attr = self.distance_expansion(edge_weight)
        for block in self.interactions:
            h = h + block(h, edge_index, edge_weight, edge_attr, pair_of)
        h = self.lin2(self.act(self.lin1(h)))
        if self.dipole:
            mass = self.atomic_mass[z].reshape(-1, 1)
            with np.errstate(invalid="ignore", divide="ignore"):  # a molecule without atoms
                total = ops.scatter(mass, batch, batch_size)
                centre = ops.scatter(mass * pos, batch, batch_size) / total
            h = h * (pos - ops.gather(centre, batch))
        if not self.dipole and self.mean is not None and self.std is not None:
            h = h * self.std + self.mean
        if not self.dipole and self.atomref is not None:
            h = h + ops.gather(self.atomref.weight, z)
        out = ops.scatter(h, batch, batch_size, _READOUTS[self.readout])
        if self.dipole:
            out = xp.sqrt((out * out).sum(axis=-1, keepdims=True))
        if self.scale is not None:
            out = self.scale * out
        return out

    def extra_repr(self) -> str:
        return (
            f"hidden_channels={self.hidden_channels}, num_filters={self.num_filters}, "
            f"num_interactions={self.num_interactions}, num_gaussians={self.num_gaussians}, "
            f"cutoff={self.cutoff:g}"
        )


def _distinct_pairs(xp: Any, edge_index: Any, edge_weight: Any, n: int) -> tuple[Any, Any]:
    """``(lengths, pair_of)``: one length per distinct unordered atom pair (``i -> j``
    and ``j -> i`` have the same length bit for bit: ``|a - b| = |b - a|``) and each edge's
    pair, so the filter network runs once per pair; ``(edge_weight, None)`` when the
    edges pair up too little to pay for the sort, or a custom graph's lengths differ."""
    e = int(edge_index.shape[1])
    if e < 2 or xp is not np:  # CuPy: no host round trip to learn the number of pairs
        return edge_weight, None
    lo = xp.minimum(edge_index[0], edge_index[1]).astype(np.int64)
    hi = xp.maximum(edge_index[0], edge_index[1]).astype(np.int64)
    keys, first, pair_of = xp.unique(lo * max(n, 1) + hi, return_index=True, return_inverse=True)
    if 4 * int(keys.shape[0]) > 3 * e:  # under a quarter of the edges saved
        return edge_weight, None
    lengths = edge_weight[first]
    if not bool((lengths[pair_of] == edge_weight).all()):  # lengths not symmetric
        return edge_weight, None
    return lengths, pair_of.reshape(-1)


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> SchNet:
    """PyG's ``SchNet`` with every weight and buffer, its readout, ``mean`` / ``std`` /
    ``scale`` and its ``RadiusInteractionGraph``'s settings (a custom
    ``interaction_graph`` is a ``ValueError``: give ours the array version)."""
    from arraygnn.nn.weights import _dtype_of

    graph = module.interaction_graph
    if type(graph).__name__ != "RadiusInteractionGraph":
        raise ValueError(
            "from_pyg: SchNet with a custom interaction_graph cannot be converted; convert "
            "it with the default one, then set interaction_graph to an array function"
        )
    readout = _PYG_READOUTS.get(type(module.readout).__name__)
    if readout is None:
        raise ValueError(
            f"from_pyg: SchNet readout {type(module.readout).__name__} is not supported"
        )
    smearing = module.distance_expansion
    mass = getattr(module, "atomic_mass", None)
    model = SchNet(
        module.hidden_channels,
        module.num_filters,
        module.num_interactions,
        module.num_gaussians,
        float(module.cutoff),
        max_num_neighbors=graph.max_num_neighbors,
        readout=readout,
        dipole=bool(module.dipole),
        mean=module.mean,
        std=module.std,
        atomref=None if module.atomref is None else module.atomref.weight.detach().cpu().numpy(),
        atomic_mass=None if mass is None else mass.detach().cpu().numpy(),
        scale=module.scale,
        dtype=_dtype_of(module.embedding),
    )
    model.interaction_graph.cutoff = float(graph.cutoff)
    if model.atomref is not None and getattr(module, "initial_atomref", None) is None:
        model.initial_atomref = None
    state = dict(module.state_dict())
    model.load_state_dict(state, format="pyg")
    model.distance_expansion.coeff = float(smearing.coeff)
    for ours, theirs in zip(model.interactions, module.interactions):
        ours.conv.cutoff = float(theirs.conv.cutoff)
    return model
