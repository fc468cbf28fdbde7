"""Convert trained PyG / DGL / PyTorch modules into arraygnn layers (weights copied once).

``from_pyg(module)`` and ``from_dgl(module)`` read the module's hyper-parameters, build the
matching arraygnn layer and load ``module.state_dict()`` into it. After that, inference
needs neither torch nor PyG / DGL: save ``layer.state_dict()`` with ``numpy.savez`` and load
it into a freshly constructed layer on a machine without them (see ``docs/layers.md``).

Supported: ``torch.nn.Linear``, ``torch.nn.Sequential`` (of Linear, BatchNorm1d and
ReLU / ELU(alpha) / Sigmoid / Tanh / LeakyReLU(negative_slope) / Identity / Dropout),
``torch.nn.BatchNorm1d``; PyG ``Linear``, ``MLP`` (batch norm, ``act_first``), ``GCNConv``,
``SAGEConv`` (``project``; mean / sum / max, a list of aggregations, PyG's aggregation
objects and its ``'lstm'``), ``AGNNConv``, ``GATConv`` / ``GATv2Conv``
(``edge_dim``, ``fill_value``, ``residual``, ``share_weights`` too), ``GINConv`` /
``GINEConv`` (sum / mean / max, or PyG's other aggregations as ``SAGEConv``'s: also in
``GraphConv``, ``SimpleConv``, ``EdgeConv``, ``DynamicEdgeConv``, ``NNConv`` and
``GatedGraphConv``), ``SGConv``, ``APPNP``, ``TAGConv``, ``ChebConv``,
``TransformerConv``, ``NNConv``, ``RGCNConv`` / ``FastRGCNConv``, ``HeteroConv``, ``HGTConv``,
``GCN2Conv``, ``GatedGraphConv``, ``ResGatedGraphConv``, ``EdgeConv``, ``DynamicEdgeConv``,
``PointNetConv``, ``GENConv``, ``LEConv``, ``ClusterGCNConv``, ``SSGConv``, ``LGConv``,
``FAConv``, ``ARMAConv``, ``SimpleConv``, ``MixHopConv``,
``DirGNNConv``, ``AntiSymmetricConv``, ``SignedConv``, ``FeaStConv``,
``DenseGCNConv``, ``DenseSAGEConv``, ``DenseGINConv``,
``DenseGraphConv``, ``DenseGATConv``, ``DMoNPooling``,
``MFConv``, ``FiLMConv``, ``GeneralConv``, ``CGConv``, ``GravNetConv``, ``PDNConv``,
``HeteroLinear``, ``HeteroDictLinear``, ``Set2Set``,
``AttentionalAggregation``, PyG's models ``GCN``, ``GraphSAGE``, ``GIN``, ``GAT``, ``PNA``,
``EdgeCNN`` and ``JumpingKnowledge`` (``arraygnn.nn.models``), the
``torch_geometric.nn.aggr`` aggregations of
``arraygnn.nn.aggr`` (learnt ``t`` / ``p``, ``MultiAggregation`` ``proj``), the
``torch_geometric.nn.norm`` layers of ``arraygnn.nn.norm`` (eval mode); DGL
``GraphConv``, ``SAGEConv`` (mean / gcn / pool / lstm), ``GATConv`` / ``GATv2Conv`` (``residual``
too), ``GINConv`` (with ``activation``), ``GINEConv``, ``NNConv`` (sum / mean),
``TAGConv``, ``APPNPConv``, ``ChebConv``, ``SGConv``, ``RelGraphConv``, ``TypedLinear``,
``HeteroGraphConv``, ``Set2Set``,
``GlobalAttentionPooling``, ``HGTConv`` (as ``DGLHGTConv``), ``DotGatConv``, ``AGNNConv``,
``HeteroLinear`` (as ``DGLHeteroLinear``), ``HeteroEmbedding``;
torch ``LayerNorm``, ``Embedding``, ``EmbeddingBag`` (``max_norm=None``), ``ModuleList`` /
``ModuleDict``, parameter-free modules (``Identity``, dropout, activations) standalone,
``LSTM``, ``GRU`` and ``MultiheadAttention`` (converters registered
in ``arraygnn.nn.converters``: ``GPSConv``, ``DNAConv``, ...).

Anything the arraygnn layer would compute differently is a ``ValueError`` naming it, never a
silent change of numbers: another activation (``GELU``, ``PReLU``, ...), an aggregation
the layer does not have (PyG ``GCNConv(aggr='max')``), ``flow='target_to_source'``.

RULE: a module object reached more than once in one conversion (weight tying: the same
``Linear`` in two layers, a conv called twice in a ``Sequential``, one module under two
names of a ``GraphModule``) becomes one arraygnn layer reached as often, as in torch: its
weights are listed under every name by ``state_dict()`` (torch's ``state_dict()`` keeps
each name; only ``parameters()`` lists them once), a strict ``load_state_dict`` wants every
name and the last one loaded wins. Each top-level ``from_pyg`` / ``from_torch`` /
``from_dgl`` call converts afresh (the memo of converted modules lives for that call).
"""

from __future__ import annotations

import contextvars
import warnings
from collections.abc import Callable
from functools import partial, wraps
from typing import Any

import numpy as np

from arraygnn.nn._module import Module
from arraygnn.nn.aggr.convert import PYG_AGGREGATIONS, aggregation_from_pyg
from arraygnn.nn.arma_conv import ARMAConv
from arraygnn.nn.cluster_gcn_conv import ClusterGCNConv
from arraygnn.nn.converters import converter
from arraygnn.nn.dense_conv import (
    DenseGATConv,
    DenseGCNConv,
    DenseGINConv,
    DenseGraphConv,
    DenseSAGEConv,
)
from arraygnn.nn.dense_pool import DMoNPooling
from arraygnn.nn.dgl_hetero_linear import DGLHeteroLinear, HeteroEmbedding, dgl_type_key
from arraygnn.nn.dgl_hgt_conv import DGLHGTConv
from arraygnn.nn.dot_gat_conv import AGNNConv, DotGatConv
from arraygnn.nn.edge_conv import DynamicEdgeConv, EdgeConv
from arraygnn.nn.embedding import Embedding, EmbeddingBag
from arraygnn.nn.fa_conv import FAConv
from arraygnn.nn.gat_conv import GATConv
from arraygnn.nn.gated_graph_conv import GatedGraphConv, ResGatedGraphConv
from arraygnn.nn.gatv2_conv import GATv2Conv
from arraygnn.nn.gcn2_conv import GCN2Conv
from arraygnn.nn.gen_conv import GENConv
from arraygnn.nn.gin_conv import GINConv, GINEConv
from arraygnn.nn.graph_conv import GCNConv, GraphConv
from arraygnn.nn.hetero_conv import HeteroConv, HeteroGraphConv, _ModuleDict
from arraygnn.nn.hetero_linear import HeteroDictLinear, HeteroLinear
from arraygnn.nn.hgt_conv import HGTConv
from arraygnn.nn.le_conv import LEConv
from arraygnn.nn.lg_conv import LGConv
from arraygnn.nn.linear import (
    _ACTIVATIONS,
    GRU,
    LSTM,
    MLP,
    BatchNorm,
    GRUCell,
    LayerNorm,
    Linear,
    Sequential,
    _ArrayFunction,
    _elu,
    _leaky_relu,
    _make_activation,
    _ModuleList,
    _silu,
    get_activation,
)
from arraygnn.nn.nn_conv import NNConv
from arraygnn.nn.norm.convert import is_pyg_norm, norm_from_pyg
from arraygnn.nn.norm.resolver import norm_key, takes_batch
from arraygnn.nn.pna_conv import PNAConv
from arraygnn.nn.point_net_conv import PointNetConv
from arraygnn.nn.pool import SAGPooling, TopKPooling
from arraygnn.nn.readout import (
    AttentionalAggregation,
    GlobalAttentionPooling,
    Set2Set,
    SortAggregation,
    SortPooling,
)
from arraygnn.nn.rgcn_conv import RelGraphConv, RGCNConv, TypedLinear
from arraygnn.nn.sage_conv import PyGGraphConv, SAGEConv
from arraygnn.nn.sgc import APPNP, ChebConv, SGConv, TAGConv
from arraygnn.nn.ssg_conv import SSGConv
from arraygnn.nn.transformer_conv import TransformerConv

__all__ = ["from_pyg", "from_dgl", "from_torch"]

_ACT_NAMES = (
    "ReLU",
    "ELU(alpha)",
    "Sigmoid",
    "Tanh",
    "LeakyReLU(negative_slope)",
    "GELU(approximate)",
    "SiLU",
    "Softplus(beta, threshold)",
    "SELU",
    "CELU(alpha)",
    "ReLU6",
    "Hardtanh(min_val, max_val)",
    "Mish",
    "Hardswish",
    "Hardsigmoid",
    "Softsign",
    "Tanhshrink",
    "LogSigmoid",
    "PReLU (where its weight is kept: an MLP's act, a Sequential step)",
    "Identity",
)

#: torch.nn modules -> (PyG resolver name, the attributes that are its keyword arguments);
#: ReLU6 before Hardtanh (its subclass)
_ACT_MODULES = (
    ("ReLU6", "relu6", ()),
    ("Hardtanh", "hardtanh", ("min_val", "max_val")),
    ("Softplus", "softplus", ("beta", "threshold")),
    ("SELU", "selu", ()),
    ("CELU", "celu", ("alpha",)),
    ("Mish", "mish", ()),
    ("Hardswish", "hardswish", ()),
    ("Hardsigmoid", "hardsigmoid", ()),
    ("Softsign", "softsign", ()),
    ("Tanhshrink", "tanhshrink", ()),
    ("LogSigmoid", "logsigmoid", ()),
    ("GELU", "gelu", ("approximate",)),
)

#: torch / torch.nn.functional functions (default parameters) -> get_activation's names:
#: the names of ``linear._ACTIVATIONS``, which torch spells the same
_ACT_FUNCTIONS = tuple(_ACTIVATIONS)


def _require_torch(extra: str) -> Any:
    try:
        import torch
    except ImportError as err:  # pragma: no cover - depends on the machine
        raise ImportError(
            f"converting a module needs torch: pip install 'arraygnn[{extra}]'"
        ) from err
    return torch


def _dtype_of(module: Any) -> Any:
    for p in module.state_dict().values():
        if p.is_floating_point():
            name = str(p.dtype).replace("torch.", "")
            if name not in ("float16", "float32", "float64"):  # bfloat16, float8_*: no .numpy()
                raise TypeError(
                    f"converting {type(module).__name__}: NumPy has no {name} dtype; cast the "
                    "module first (module.float() or module.double())"
                )
            return np.dtype(name)
    return np.dtype(np.float32)


def _eps(module: Any) -> float:
    """A GIN module's ``eps`` (a one-element tensor, parameter or buffer) as a float."""
    return float(module.eps.detach().reshape(-1)[0])


def _dgl_residual(res_fc: Any) -> bool | str:
    """DGL GATConv's ``res_fc`` as arraygnn's ``residual``: none, a Linear, or Identity."""
    if res_fc is None:
        return False
    return True if hasattr(res_fc, "weight") else "identity"


def _pyg_fill_value(module: Any) -> Any:
    """A PyG GAT / GATv2 layer's ``fill_value`` (a tensor one as a NumPy array)."""
    fill_value = module.fill_value
    if hasattr(fill_value, "detach"):  # a tensor
        fill_value = fill_value.detach().cpu().numpy()
    return fill_value


def _looks_like_activation(act: Any) -> bool:
    """True unless ``act`` is a torch module with weights or a norm (``LayerNorm``, ...)."""
    name = type(act).__name__
    has_weights = hasattr(act, "parameters") and any(True for _ in act.parameters())
    return not has_weights and "Norm" not in name


def _activation(act: Any, where: str, weights: bool = False) -> Any:
    """Map a torch activation (module or function) onto an arraygnn activation, parameters
    included (``ELU(alpha=3.0)``, ``LeakyReLU(0.2)``, ``Softplus(beta=2)``); anything else is
    a ``ValueError`` naming it (never a silently different function). ``weights``: the slot
    keeps a layer with weights, so ``PReLU`` converts (an ``arraygnn.nn.PReLU``
    with its weight); elsewhere it is refused."""
    if act is None:
        return None
    torch = _require_torch("torch")
    tnn = torch.nn
    if isinstance(act, tnn.Module):
        if isinstance(act, tnn.Identity):
            return None
        if isinstance(act, tnn.ReLU):
            return "relu"
        if isinstance(act, tnn.Sigmoid):
            return "sigmoid"
        if isinstance(act, tnn.Tanh):
            return "tanh"
        if isinstance(act, tnn.ELU):
            alpha = float(act.alpha)
            return "elu" if alpha == 1.0 else partial(_elu, alpha=alpha)
        if isinstance(act, tnn.LeakyReLU):
            return partial(_leaky_relu, negative_slope=float(act.negative_slope))
        if isinstance(act, tnn.SiLU):
            return _silu
        for cls, name, attrs in _ACT_MODULES:
            if isinstance(act, getattr(tnn, cls)):
                kwargs = {a: getattr(act, a) for a in attrs}
                return _make_activation(f"{where}: {cls}", name, kwargs)
        if isinstance(act, tnn.PReLU):
            prelu = _make_activation(
                f"{where}: {act!r}",
                "prelu",
                {"num_parameters": act.num_parameters},
                weights=weights,
                dtype=_dtype_of(act),
            )
            return _load(prelu, act, "pyg")
    else:  # torch's own functions, with their default parameters (torch.relu, F.elu, ...)
        name = getattr(act, "__name__", None)
        if name == "swish" and getattr(act, "__module__", None) == "torch_geometric.nn.resolver":
            return _silu  # PyG's activation_resolver('swish'): x * sigmoid(x)
        if act is torch.nn.functional.silu:
            return _silu
        for fn_name in _ACT_FUNCTIONS:
            fns = (getattr(torch, fn_name, None), getattr(torch.nn.functional, fn_name, None))
            if any(act is f for f in fns if f is not None):
                return fn_name
    what = "activation" if _looks_like_activation(act) else "module"
    raise ValueError(
        f"{where}: cannot convert {what} {act!r}; supported: {', '.join(_ACT_NAMES)} "
        "(and torch / torch.nn.functional's functions of these names with their default "
        "parameters: torch.relu, F.elu, F.softplus, F.hardtanh, ..., F.silu, PyG's swish)"
    )


def _pyg_aggr(module: Any, kind: str, supported: tuple[str, ...]) -> str:
    """The PyG module's aggregation as an arraygnn name (``'add'`` -> ``'sum'``); a
    ``ValueError`` naming it when the arraygnn layer has no such aggregation, or when the
    module's ``flow`` is not ``'source_to_target'``."""
    _pyg_flow(module, kind)
    aggr = getattr(module, "aggr", "add")
    name = ("sum" if aggr == "add" else aggr) if isinstance(aggr, str) else None
    if name not in supported:
        raise ValueError(
            f"from_pyg: {kind}(aggr={aggr!r}) is not supported; arraygnn's {kind} aggregates "
            f"with {' / '.join(repr(a) for a in supported)}"
        )
    return name


def _pyg_aggregation(module: Any, kind: str, fused: tuple[str, ...]) -> Any:
    """The PyG module's aggregation for an arraygnn layer that takes PyG's others too: an
    arraygnn name when it is one of ``fused`` (the layer's one-SpMM path), else PyG's
    ``aggr_module`` converted (a list of names, ``'std'``, an aggregation object, ...);
    a ``ValueError`` naming it when that cannot be converted, or for another ``flow``."""
    aggr = getattr(module, "aggr", "add")
    if isinstance(aggr, str) and ("sum" if aggr == "add" else aggr) in fused:
        return _pyg_aggr(module, kind, fused)
    _pyg_flow(module, kind)
    try:
        return aggregation_from_pyg(module.aggr_module)
    except (TypeError, ValueError) as err:
        raise ValueError(f"from_pyg: {kind}(aggr={aggr!r}) is not supported ({err})") from None


def _pyg_flow(module: Any, kind: str) -> None:
    """A ``ValueError`` when the PyG module's ``flow`` is not ``'source_to_target'``."""
    flow = getattr(module, "flow", "source_to_target")
    if flow != "source_to_target":
        raise ValueError(
            f"from_pyg: {kind}(flow={flow!r}) is not supported; arraygnn layers pass messages "
            "source -> target (flow='source_to_target')"
        )


def _lazy_sizes(kind: str, declared: Any, *linears: Any) -> Any:
    """``declared`` (an int or a pair; PyG's ``in_channels``) with each lazy ``-1`` replaced
    by the input size of the matching materialised ``Linear`` (one per entry; PyG keeps
    ``-1`` on the module after the first forward pass sizes its weights). Any negative
    size is lazy, as in PyG's ``Linear`` (``EdgeCNN(-1, ...)``'s MLP starts at ``-2``)."""

    def resolve(value: Any, linear: Any) -> int:
        if not isinstance(value, (int, np.integer)) or value >= 0:
            return value
        size = getattr(linear, "in_channels", getattr(linear, "in_features", -1))
        if not isinstance(size, (int, np.integer)) or size < 0:  # still lazy (-1, -2, ...)
            raise ValueError(
                f"from_pyg: {kind} was built with lazy sizes (in_channels=-1) and its weights "
                "are not initialised yet; run the module once on data before converting it"
            )
        return int(size)

    if isinstance(declared, (tuple, list)):
        return tuple(resolve(v, lin) for v, lin in zip(declared, linears))
    first = resolve(declared, linears[0])
    if first is declared or len(linears) < 2 or linears[1] is None:
        return first
    # one lazy -1 sizes the source and destination Linear (linears[0], linears[1])
    # separately: a first call on a pair (x_src, x_dst) of two widths gives two sizes
    size = getattr(linears[1], "in_channels", getattr(linears[1], "in_features", -1))
    if isinstance(size, (int, np.integer)) and size >= 0 and size != first:
        return (first, int(size))
    return first


def _load(layer: Module, module: Any, format: str) -> Module:
    layer.load_state_dict(module.state_dict(), format=format)
    return layer


def _check_module(where: str, module: Any, torch: Any) -> None:
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"{where} expects a torch.nn.Module, got {type(module).__name__}")


#: the modules converted so far in the running top-level conversion:
#: ``(family, id(module)) -> (module, layer)`` (the module is kept so that its id stays its
#: own while the conversion runs, even for a temporary copy a converter makes)
_CONVERTED: contextvars.ContextVar[dict[tuple[str, int], tuple[Any, Any]] | None] = (
    contextvars.ContextVar("arraygnn_converted_modules", default=None)
)


def _shared(family: str) -> Callable[[Callable[[Any], Module]], Callable[[Any], Module]]:
    """Convert each module object once per top-level call: a module met again (weight
    tying) gives the layer made the first time. ``family`` keys the memo: ``from_pyg`` and
    ``from_torch`` hand modules to each other (``'pyg'``), ``from_dgl`` names weights its
    own way (``'dgl'``). The recursion passes through these wrappers (converters get them
    as ``convert``), so the public signatures stay ``(module)``."""

    def decorate(convert: Callable[[Any], Module]) -> Callable[[Any], Module]:
        @wraps(convert)
        def converted(module: Any) -> Module:
            memo = _CONVERTED.get()
            token = None
            if memo is None:  # the top-level call: a new memo, dropped when it returns
                memo = {}
                token = _CONVERTED.set(memo)
            try:
                key = (family, id(module))
                hit = memo.get(key)
                if hit is not None:
                    return hit[1]
                layer = convert(module)
                memo[key] = (module, layer)
                return layer
            finally:
                if token is not None:
                    _CONVERTED.reset(token)

        return converted

    return decorate


@_shared("pyg")
def from_torch(module: Any) -> Module:
    """``torch.nn.Linear`` / ``BatchNorm1d`` / ``Sequential`` -> arraygnn ``Linear`` /
    ``BatchNorm`` / ``Sequential`` with the same weights (and the same state-dict names);
    also ``LayerNorm``, ``Embedding``, ``EmbeddingBag``, ``LSTM`` / ``GRU`` / ``GRUCell``,
    ``ModuleList`` / ``ModuleDict`` (their items converted, names ``0.weight`` /
    ``<key>.weight`` kept) and parameter-free modules (``Identity``, dropout,
    activations: a layer with an empty state dict). A custom ``torch.nn.Module`` is a
    ``TypeError`` naming the two ways that work (convert its submodules, or trace it)."""
    torch = _require_torch("torch")
    nn = torch.nn
    _check_module("from_torch", module, torch)
    dtype = _dtype_of(module) if len(module.state_dict()) else np.float32
    if isinstance(module, nn.Linear):
        layer = Linear(
            module.in_features, module.out_features, module.bias is not None, dtype=dtype
        )
        return _load(layer, module, "pyg")
    if isinstance(module, nn.BatchNorm1d):
        if not module.track_running_stats:
            raise ValueError(
                "from_torch: BatchNorm1d without running statistics cannot run at inference"
            )
        layer = BatchNorm(module.num_features, module.eps, module.affine, dtype=dtype)
        return _load(layer, module, "pyg")
    if isinstance(module, nn.LayerNorm):
        if len(module.normalized_shape) != 1:
            raise ValueError(
                "from_torch: LayerNorm over more than the last dimension "
                f"(normalized_shape={tuple(module.normalized_shape)}) is not supported"
            )
        layer = LayerNorm(
            module.normalized_shape[0],
            module.eps,
            module.elementwise_affine,
            bias=getattr(module, "bias", None) is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if isinstance(module, (nn.LSTM, nn.GRU)):
        return _load(_recurrent(module, "from_torch", dtype), module, "pyg")
    if isinstance(module, nn.GRUCell):
        layer = GRUCell(module.input_size, module.hidden_size, module.bias, dtype=dtype)
        return _load(layer, module, "pyg")
    if isinstance(module, nn.Embedding):
        _embedding_max_norm(module)
        layer = Embedding(
            module.num_embeddings, module.embedding_dim, module.padding_idx, dtype=dtype
        )
        return _load(layer, module, "pyg")
    if isinstance(module, nn.EmbeddingBag):
        _embedding_max_norm(module)
        if module.mode not in ("sum", "mean", "max"):  # pragma: no cover - torch's own check
            raise ValueError(f"from_torch: EmbeddingBag(mode={module.mode!r}) is not supported")
        layer = EmbeddingBag(
            module.num_embeddings,
            module.embedding_dim,
            mode=module.mode,
            include_last_offset=module.include_last_offset,
            padding_idx=module.padding_idx,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if isinstance(module, nn.ModuleList):
        return _ModuleList([_torch_child(child) for child in module])
    if isinstance(module, nn.ModuleDict):
        items = {key: _torch_child(child) for key, child in module.items()}
        return _ModuleDict(items, "ModuleDict.load_state_dict")
    if isinstance(module, nn.Sequential):
        steps: list[Any] = []
        for i, child in enumerate(module):
            if isinstance(child, (nn.Linear, nn.BatchNorm1d, nn.LayerNorm, nn.Sequential)) or (
                _is_pyg(child)
            ):
                steps.append(from_torch(child) if not _is_pyg(child) else from_pyg(child))
            elif isinstance(child, nn.Dropout):
                steps.append(lambda x: x)  # inference: dropout is the identity
            else:
                act = _activation(child, f"from_torch: Sequential step {i}", weights=True)
                steps.append(act if act is not None else (lambda x: x))
        return Sequential(*steps)
    if _is_pyg(module):
        return from_pyg(module)
    if isinstance(module, nn.PReLU):  # an activation with a learned weight: a layer
        return _activation(module, "from_torch", weights=True)
    registered = converter("torch", type(module).__name__)  # beside its layer (converters.py)
    if registered is not None and type(module).__module__.startswith("torch.nn"):
        return registered(module, dtype, from_torch)
    stateless = _parameter_free(module, torch)
    if stateless is not None:
        return stateless
    raise TypeError(_cannot_convert(module))


def _torch_child(child: Any) -> Module:
    """An item of a ``ModuleList`` / ``ModuleDict``: PyG's through ``from_pyg``."""
    return from_pyg(child) if _is_pyg(child) else from_torch(child)


def _embedding_max_norm(module: Any) -> None:
    if module.max_norm is not None:
        raise ValueError(
            f"from_torch: {type(module).__name__}(max_norm={module.max_norm}) is not supported: "
            "torch renormalises the looked-up rows of its weight in place on every call, so "
            "its outputs depend on earlier calls; rebuild it with max_norm=None (after "
            "renormalising the weight once, if that is what was meant)"
        )


def _parameter_free(module: Any, torch: Any) -> Module | None:
    """A ``torch.nn`` module without weights or buffers (``Identity``, dropout, an
    activation, ``Softmax``, ...) as a layer with an empty state dict; None for others."""
    nn = torch.nn
    if not type(module).__module__.startswith("torch.nn.modules.") or module.state_dict():
        return None
    if isinstance(module, (nn.Identity, nn.modules.dropout._DropoutNd)):  # inference
        return _ArrayFunction(lambda x: x, type(module).__name__)
    try:
        act = _activation(module, "from_torch")
    except ValueError as err:
        from arraygnn.nn.fx_program import from_graph_module

        try:  # its traced forward, when every operation in it is on fx_program's list
            return from_graph_module(torch.fx.symbolic_trace(module), from_torch, state_names=())
        except Exception:  # what cannot be converted is a TypeError, as for other modules
            if type(module).__module__ != "torch.nn.modules.activation":  # not an activation
                raise TypeError(_cannot_convert(module)) from None
            raise TypeError(str(err)) from None
    fn = get_activation(act)
    return _ArrayFunction(fn if fn is not None else (lambda x: x), type(module).__name__)


def _cannot_convert(module: Any) -> str:
    """The message for a module ``from_torch`` has no conversion for."""
    kind = type(module).__name__
    if type(module).__module__.startswith(("torch.nn.", "torch_geometric.")):
        return (
            f"from_torch: cannot convert {kind}: arraygnn has no layer for it (torch.nn: "
            "Linear, BatchNorm1d, LayerNorm, Embedding, EmbeddingBag, LSTM, GRU, GRUCell, "
            "MultiheadAttention, Sequential, ModuleList, ModuleDict, and parameter-free "
            "modules such as Identity, Dropout and activations)"
        )
    names = [name for name, _ in module.named_children()][:3]
    subs = ", ".join(f"from_pyg(model.{n})" for n in names) or "from_pyg(model.<submodule>)"
    return (
        f"from_pyg / from_torch: cannot convert {kind}: it is a custom torch.nn.Module and "
        "arraygnn cannot read its forward(). Either convert its submodules "
        f"({subs}, ...) and write the forward with arrays, or trace the model and pass the "
        "GraphModule: from_pyg(torch_geometric.nn.fx.symbolic_trace(model)) "
        "(torch.fx.symbolic_trace(model) for a model without PyG layers: it traces into "
        "PyG's layers and fails there)"
    )


def _recurrent(lstm: Any, where: str, dtype: Any) -> Any:
    """An arraygnn ``LSTM`` / ``GRU`` shaped like the torch one (unidirectional, no
    projection; dropout between layers is the identity at inference)."""
    kind = type(lstm).__name__
    if lstm.bidirectional or getattr(lstm, "proj_size", 0):
        raise ValueError(
            f"{where}: a bidirectional or projected {kind} (bidirectional={lstm.bidirectional}, "
            f"proj_size={getattr(lstm, 'proj_size', 0)}) is not supported"
        )
    if lstm.batch_first:
        raise ValueError(f"{where}: batch_first=True {kind}s are not supported (sequence first)")
    cls = GRU if kind == "GRU" else LSTM
    return cls(lstm.input_size, lstm.hidden_size, lstm.num_layers, lstm.bias, dtype=dtype)


def _optional(module: Any) -> Any:
    """``from_torch(module)``, or None for None."""
    return None if module is None else from_torch(module)


def _is_pyg(module: Any) -> bool:
    return type(module).__module__.startswith("torch_geometric")


@_shared("pyg")
def from_pyg(module: Any) -> Module:
    """Build the arraygnn layer matching a PyG (or plain torch) module, weights included.

    >>> import torch_geometric
    >>> conv = from_pyg(torch_geometric.nn.GCNConv(16, 8))
    >>> conv.state_dict()["lin.weight"].shape
    (8, 16)
    """
    _check_module("from_pyg", module, _require_torch("torch"))
    _require_torch("pyg")
    if isinstance(module, _require_torch("torch").fx.GraphModule):  # to_hetero's output
        return converter("pyg", "GraphModule")(module, np.float32, from_pyg)  # type: ignore[misc]
    if not _is_pyg(module):
        return from_torch(module)
    kind = type(module).__name__
    if kind in PYG_AGGREGATIONS:  # torch_geometric.nn.aggr -> arraygnn.nn.aggr
        return aggregation_from_pyg(module)
    if kind in ("GCN", "GraphSAGE", "GIN", "GAT", "PNA", "EdgeCNN") and hasattr(module, "convs"):
        from arraygnn.nn.models import from_pyg_model  # PyG's BasicGNN models

        return from_pyg_model(module, from_pyg)
    dtype = _dtype_of(module) if len(module.state_dict()) else np.float32
    if kind == "JumpingKnowledge":
        from arraygnn.nn.models import jumping_knowledge_from_pyg

        return jumping_knowledge_from_pyg(module, dtype)
    if is_pyg_norm(module):  # torch_geometric.nn.norm -> arraygnn.nn.norm
        return norm_from_pyg(module, dtype)
    if kind == "Linear":
        layer = Linear(
            _lazy_sizes(kind, module.in_channels, module),
            module.out_channels,
            module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "MLP":
        norm = None
        norms = list(module.norms) if module.norms is not None else []
        norm_kinds = {type(n).__name__ for n in norms}
        if norms and not norm_kinds <= {"Identity"}:
            if len(norm_kinds) > 1 or not all(is_pyg_norm(n) for n in norms):
                raise ValueError(
                    f"from_pyg: MLP norm {sorted(norm_kinds)} is not supported (one of PyG's "
                    "torch_geometric.nn.norm layers, or Identity)"
                )
            norm = "batch_norm" if norm_kinds == {"BatchNorm"} else norm_kinds.pop()
        act = _activation(module.act, "from_pyg: MLP act", weights=True)
        channels = list(module.channel_list)
        channels[0] = _lazy_sizes(kind, channels[0], module.lins[0])
        layer = MLP(
            channels,
            act=act,
            norm="batch_norm" if norm == "batch_norm" else None,
            plain_last=module.plain_last,
            bias=[lin.bias is not None for lin in module.lins],
            act_first=bool(getattr(module, "act_first", False)),
            dtype=dtype,
        )
        stats = all(getattr(getattr(n, "module", n), "track_running_stats", True) for n in norms)
        if norm == "batch_norm" and stats:
            for i, pyg_norm in enumerate(module.norms):
                _copy_batch_norm_settings(layer.norms[i], pyg_norm, i)
        elif norm == "batch_norm":  # batch statistics: arraygnn.nn.norm.BatchNorm
            _mlp_norms_from_pyg(layer, norms, "BatchNorm", dtype)
        elif norm is not None:  # PyG's other norms, as norm_from_pyg converts them
            _mlp_norms_from_pyg(layer, norms, norm, dtype)
        return _load(layer, module, "pyg")
    if kind == "GCNConv":
        _pyg_aggr(module, kind, ("sum",))
        layer = GCNConv(
            _lazy_sizes(kind, module.in_channels, module.lin),
            module.out_channels,
            improved=module.improved,
            cached=module.cached,
            add_self_loops=module.add_self_loops,
            normalize=module.normalize,
            bias=module.bias is not None,
            allow_zero_in_degree=True,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "SAGEConv":
        project = bool(module.project)
        # PyG's other aggregations: several, learnable, its LSTM (not DGL's 'lstm')
        aggregator = _pyg_aggregation(module, kind, ("mean", "sum", "max"))
        if project and aggregator == "max":
            aggregator = "pool"
        lin_r = module.lin_r if module.root_weight else module.lin_l
        layer = SAGEConv(
            _lazy_sizes(kind, module.in_channels, module.lin_l, lin_r),
            module.out_channels,
            aggregator,
            bias=module.lin_l.bias is not None,
            root_weight=module.root_weight,
            project=project,
            normalize=module.normalize,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind in ("GATConv", "GATv2Conv"):
        _pyg_aggr(module, kind, ("sum",))
        if kind == "GATConv" and getattr(module, "lin", None) is not None:
            firsts = (module.lin, module.lin)
        elif kind == "GATConv":
            firsts = (module.lin_src, module.lin_dst)
        else:
            firsts = (module.lin_l, module.lin_r)
        args = (
            _lazy_sizes(kind, module.in_channels, *firsts),
            module.out_channels,
            module.heads,
            module.concat,
            module.negative_slope,
            module.add_self_loops,
            module.bias is not None,
        )
        options = {
            "edge_dim": module.edge_dim if getattr(module, "lin_edge", None) is not None else None,
            "fill_value": _pyg_fill_value(module),
            "residual": getattr(module, "res", None) is not None,
            "allow_zero_in_degree": True,
            "dtype": dtype,
        }
        if kind == "GATConv":
            return _load(GATConv(*args, **options), module, "pyg")
        layer = GATv2Conv(
            *args,
            share_weights=module.share_weights,
            lin_bias=module.lin_l.bias is not None,
            **options,
        )
        return _load(layer, module, "pyg")
    if kind == "GINConv":
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max"))
        inner = from_torch(module.nn)
        layer = GINConv(inner, _eps(module), aggr, dtype=dtype)
        return _load(layer, module, "pyg")
    if kind == "GINEConv":
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max"))
        lin = getattr(module, "lin", None)
        layer = GINEConv(
            from_torch(module.nn),
            _eps(module),
            None if lin is None else lin.in_channels,
            in_feats=None if lin is None else lin.out_channels,
            aggregator_type=aggr,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "APPNP":
        _pyg_aggr(module, kind, ("sum",))
        return APPNP(module.K, module.alpha, module.cached, module.add_self_loops, module.normalize)
    if kind == "TAGConv":
        _pyg_aggr(module, kind, ("sum",))
        layer = TAGConv(
            _lazy_sizes(kind, module.in_channels, module.lins[0]),
            module.out_channels,
            module.K,
            module.bias is not None,
            module.normalize,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "ChebConv":
        _pyg_aggr(module, kind, ("sum",))
        layer = ChebConv(
            _lazy_sizes(kind, module.in_channels, module.lins[0]),
            module.out_channels,
            len(module.lins),
            module.normalization,
            module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "TransformerConv":
        _pyg_aggr(module, kind, ("sum",))
        layer = TransformerConv(
            _lazy_sizes(kind, module.in_channels, module.lin_key, module.lin_query),
            module.out_channels,
            module.heads,
            module.concat,
            module.beta,
            module.edge_dim if module.lin_edge is not None else None,
            module.lin_key.bias is not None,
            module.root_weight,
            dtype=dtype,
        )
        state = module.state_dict()
        if not module.root_weight:  # PyG never runs lin_skip then: a lazy one stays unsized
            torch = _require_torch("torch")
            ours = layer.state_dict()
            for key in [k for k in state if k.startswith("lin_skip.")]:
                if torch.nn.parameter.is_lazy(state[key]):
                    state[key] = ours[key]
        return layer.load_state_dict(state, format="pyg")
    if kind == "AttentionalAggregation":
        gate = module.gate_mlp if module.gate_mlp is not None else module.gate_nn
        inner = module.mlp if module.mlp is not None else module.nn
        return _load(AttentionalAggregation(from_torch(gate), _optional(inner)), module, "pyg")
    if kind == "SGConv":
        _pyg_aggr(module, kind, ("sum",))
        layer = SGConv(
            _lazy_sizes(kind, module.in_channels, module.lin),
            module.out_channels,
            K=module.K,
            cached=module.cached,
            add_self_loops=module.add_self_loops,
            bias=module.lin.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind in ("RGCNConv", "FastRGCNConv"):
        supported = ("sum", "mean") if kind == "FastRGCNConv" else ("sum", "mean", "max", "min")
        aggr = _pyg_aggr(module, kind, supported)
        layer = RGCNConv(
            module.in_channels,
            module.out_channels,
            module.num_relations,
            num_bases=module.num_bases,
            num_blocks=module.num_blocks,
            aggr=aggr,
            root_weight=module.root is not None,
            bias=module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "NNConv":
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max", "min"))
        sizes = module.in_channels
        if module.root_weight:  # lin maps the targets: it sizes in_channels[1]
            paired = isinstance(sizes, (tuple, list))
            sizes = (
                _lazy_sizes(kind, sizes, None, module.lin)
                if paired
                else _lazy_sizes(kind, sizes, module.lin)
            )
        layer = NNConv(
            sizes,
            module.out_channels,
            from_torch(module.nn),
            aggr=aggr,
            root_weight=bool(module.root_weight),
            bias=module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "PNAConv":
        aggregators = _pna_aggregators(module)
        acts = {  # the activation between the layers of pre_nns / post_nns, where any
            type(tower[1]).__name__: tower[1]
            for tower in [*module.pre_nns, *module.post_nns]
            if len(tower) > 1
        }
        if len(acts) > 1:
            raise ValueError(f"from_pyg: PNAConv with different activations {sorted(acts)}")
        act = _activation(next(iter(acts.values())), "from_pyg: PNAConv act") if acts else None
        layer = PNAConv(
            module.in_channels,
            module.out_channels,
            aggregators,
            list(module.aggr_module.scaler),
            np.ones(1),  # the state dict's aggr_module buffers replace the averages
            edge_dim=module.edge_dim,
            towers=module.towers,
            pre_layers=(len(module.pre_nns[0]) + 1) // 2,
            post_layers=(len(module.post_nns[0]) + 1) // 2,
            divide_input=module.divide_input,
            act="relu" if act is None else act,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "Set2Set":
        lstm = _recurrent(module.lstm, "from_pyg: Set2Set", dtype)
        layer = Set2Set(module.in_channels, module.processing_steps, lstm.num_layers, dtype=dtype)
        layer.lstm = lstm
        return _load(layer, module, "pyg")
    if kind == "HeteroLinear":
        if hasattr(module, "linears"):
            raise TypeError(
                "from_pyg: this HeteroLinear is DGL's (a Linear per type in 'linears'); "
                "convert it with arraygnn.nn.from_dgl"
            )
        layer = HeteroLinear(
            _lazy_sizes(kind, module.in_channels, module),
            module.out_channels,
            module.num_types,
            is_sorted=module.is_sorted,
            bias=module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "HeteroDictLinear":
        lins = dict(module.lins.items())
        sizes = {t: _lazy_sizes(kind, lin.in_channels, lin) for t, lin in lins.items()}
        biases = {lin.bias is not None for lin in lins.values()}
        layer = HeteroDictLinear(sizes, module.out_channels, bias=biases != {False}, dtype=dtype)
        return _load(layer, module, "pyg")
    if kind == "GCN2Conv":
        _pyg_aggr(module, kind, ("sum",))
        layer = GCN2Conv(
            module.channels,
            module.alpha,
            shared_weights=module.weight2 is None,
            cached=module.cached,
            add_self_loops=module.add_self_loops,
            normalize=module.normalize,
            dtype=dtype,
        )
        layer.beta = float(module.beta)
        return _load(layer, module, "pyg")
    if kind == "GatedGraphConv":
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max", "min"))
        layer = GatedGraphConv(
            module.out_channels, module.num_layers, aggr, module.rnn.bias, dtype=dtype
        )
        return _load(layer, module, "pyg")
    if kind == "ResGatedGraphConv":
        _pyg_aggr(module, kind, ("sum",))
        sizes = module.in_channels
        if module.edge_dim is None:  # lazy -1 sizes: from the materialised layers
            sizes = _lazy_sizes(kind, sizes, module.lin_value, module.lin_key)
        else:  # PyG's Linear(-1 + edge_dim) is lazy too: its size less edge_dim
            declared, edge_dim = sizes, module.edge_dim
            found = _lazy_sizes(kind, declared, module.lin_value, module.lin_key)
            if isinstance(declared, (tuple, list)):  # (-1, -1), (-1, 2), ...
                sizes = tuple(f - edge_dim if d < 0 else f for d, f in zip(declared, found))
            elif declared < 0:  # one -1: an int, or a pair after a run on (x_src, x_dst)
                sizes = (
                    tuple(v - edge_dim for v in found)
                    if isinstance(found, tuple)
                    else found - edge_dim
                )
        layer = ResGatedGraphConv(
            sizes,
            module.out_channels,
            act=_activation(module.act, "from_pyg: ResGatedGraphConv act"),
            edge_dim=module.edge_dim,
            root_weight=module.root_weight,
            bias=module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "EdgeConv":
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max", "min"))
        return _load(EdgeConv(from_torch(module.nn), aggr=aggr), module, "pyg")
    if kind == "PointNetConv":
        aggr = _pyg_aggr(module, kind, ("sum", "mean", "max", "min"))
        return PointNetConv(
            _optional(module.local_nn), _optional(module.global_nn), module.add_self_loops, aggr
        )
    if kind == "DynamicEdgeConv":
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max", "min"))
        layer = DynamicEdgeConv(
            from_torch(module.nn), module.k, aggr=aggr, num_workers=module.num_workers
        )
        return _load(layer, module, "pyg")
    if kind == "GraphConv":  # PyG's (Morris et al.): SAGE with a root weight, PyG's names
        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max"))
        sizes = module.in_channels
        pair = isinstance(sizes, (tuple, list))
        src, dst = sizes if pair else (sizes, sizes)
        if src < 0 and not isinstance(aggr, str):
            # lazy: lin_rel took the aggregate's width (k F_src for a 'cat' of k, PyG's
            # get_out_channels), lin_root the targets' (a run on (x_src, x_dst) sizes them
            # apart); a projecting aggregation keeps no trace of F_src: F_dst then
            widen = getattr(module.aggr_module, "get_out_channels", lambda n: n)
            rel = _lazy_sizes(kind, src, module.lin_rel)
            dst = _lazy_sizes(kind, dst, module.lin_root)
            k = widen(1)
            src = rel // k if k > 0 and widen(2) == 2 * k and rel % k == 0 else dst
            sizes = (src, dst) if pair or src != dst else src
        layer = PyGGraphConv(
            _lazy_sizes(kind, sizes, module.lin_rel, module.lin_root),
            module.out_channels,
            aggr,
            bias=module.lin_rel.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind in _PYG_DENSE:
        return _pyg_dense(module, kind, dtype)
    if kind in ("TopKPooling", "SAGPooling"):
        select = module.select
        act = _activation(select.act, f"from_pyg: {kind} nonlinearity")
        common = dict(
            ratio=module.ratio,
            min_score=module.min_score,
            multiplier=module.multiplier,
            nonlinearity=act,
            dtype=dtype,
        )
        if kind == "TopKPooling":
            return _load(TopKPooling(module.in_channels, **common), module, "pyg")
        layer = SAGPooling(module.in_channels, **common)
        layer.gnn = from_pyg(module.gnn)  # converted with its own names (GraphConv's too)
        _load(layer.select, select, "pyg")
        return layer
    if kind == "SortAggregation":
        return SortAggregation(module.k)
    if kind == "HGTConv":
        lins = dict(module.kqv_lin.lins.items())
        sizes = {t: _lazy_sizes(kind, lin.in_channels, lin) for t, lin in lins.items()}
        layer = HGTConv(
            sizes,
            module.out_channels,
            (list(module.node_types), [tuple(et) for et in module.edge_types]),
            heads=module.heads,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "GENConv":
        layer = _pyg_gen_conv(module, dtype)
        state = module.state_dict()
        if layer.lin_edge is None:  # a lazy lin_edge never run on edge features: no weights
            state = {k: v for k, v in state.items() if not k.startswith("lin_edge.")}
        layer.load_state_dict(state, format="pyg")
        return layer
    if kind == "HeteroConv":
        convs = {edge_type: from_pyg(conv) for edge_type, conv in module.convs.items()}
        with warnings.catch_warnings():  # PyG warned about unreached node types already
            warnings.simplefilter("ignore")
            return HeteroConv(convs, aggr=module.aggr)
    if kind in _PROPAGATION_LAYERS:
        return _pyg_propagation_layer(module, kind, dtype)
    if kind in _MESSAGE_LAYERS:
        return _pyg_message_layer(module, kind, dtype)
    if kind in _HOP_LAYERS:
        return _pyg_hop_layer(module, kind, dtype)
    registered = converter("pyg", kind)  # converters beside their layers (nn/converters.py)
    if registered is not None:
        return registered(module, dtype, from_pyg)
    raise TypeError(f"from_pyg: no arraygnn layer for torch_geometric's {kind}")


_HOP_LAYERS = (
    "SimpleConv",
    "MixHopConv",
    "DirGNNConv",
    "AntiSymmetricConv",
    "SignedConv",
    "FeaStConv",
)


def _pyg_hop_layer(module: Any, kind: str, dtype: Any) -> Module:
    """PyG's ``SimpleConv``, ``MixHopConv``, ``DirGNNConv``, ``AntiSymmetricConv``,
    ``SignedConv`` or ``FeaStConv`` as the arraygnn layer."""
    if kind == "FeaStConv":
        from arraygnn.nn.feast_conv import FeaStConv

        _pyg_aggr(module, kind, ("mean",))
        layer = FeaStConv(
            _lazy_sizes(kind, module.in_channels, module.lin),
            module.out_channels,
            module.heads,
            module.add_self_loops,
            module.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "SignedConv":
        from arraygnn.nn.signed_conv import SignedConv

        _pyg_aggr(module, kind, ("mean",))
        layer = SignedConv(
            _lazy_sizes(kind, module.in_channels, module.lin_pos_r),  # in_channels wide
            module.out_channels,
            module.first_aggr,
            module.lin_pos_r.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "AntiSymmetricConv":
        from arraygnn.nn.antisymmetric_conv import AntiSymmetricConv

        layer = AntiSymmetricConv(
            module.in_channels,
            from_pyg(module.phi),
            module.num_iters,
            float(module.epsilon),
            float(module.gamma),
            _activation(module.act, "from_pyg: AntiSymmetricConv act"),
            bias=module.bias is not None,
            dtype=dtype,
        )
        # phi was converted (its weights loaded) by from_pyg under its own names
        own = {k: v for k, v in module.state_dict().items() if not k.startswith("phi.")}
        layer.load_state_dict(own, format="pyg", strict=False)
        return layer
    if kind == "DirGNNConv":
        from arraygnn.nn.dir_gnn_conv import DirGNNConv

        return DirGNNConv._from_pyg(module, from_pyg)
    if kind == "SimpleConv":
        from arraygnn.nn.simple_conv import SimpleConv

        aggr = _pyg_aggregation(module, kind, ("sum", "mean", "max", "min", "mul"))
        return _load(SimpleConv(aggr, module.combine_root), module, "pyg")
    from arraygnn.nn.mix_hop_conv import MixHopConv

    _pyg_aggr(module, kind, ("sum",))
    layer = MixHopConv(
        module.in_channels,
        module.out_channels,
        list(module.powers),
        module.add_self_loops,
        module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")


_PROPAGATION_LAYERS = ("LEConv", "ClusterGCNConv", "SSGConv", "LGConv", "FAConv", "ARMAConv")


def _pyg_propagation_layer(module: Any, kind: str, dtype: Any) -> Module:
    """PyG's ``LEConv``, ``ClusterGCNConv``, ``SSGConv``, ``LGConv``, ``FAConv`` or
    ``ARMAConv`` as the arraygnn layer (sum aggregation, source -> target only)."""
    _pyg_aggr(module, kind, ("sum",))
    if kind == "LGConv":
        return LGConv(module.normalize)
    if kind == "LEConv":
        sizes = _lazy_sizes(kind, module.in_channels, module.lin1, module.lin2)
        layer: Module = LEConv(
            sizes, module.out_channels, module.lin1.bias is not None, dtype=dtype
        )
    elif kind == "ClusterGCNConv":
        layer = ClusterGCNConv(
            _lazy_sizes(kind, module.in_channels, module.lin_out),
            module.out_channels,
            float(module.diag_lambda),
            module.add_self_loops,
            module.lin_out.bias is not None,
            dtype=dtype,
        )
    elif kind == "SSGConv":
        layer = SSGConv(
            _lazy_sizes(kind, module.in_channels, module.lin),
            module.out_channels,
            float(module.alpha),
            module.K,
            module.cached,
            module.add_self_loops,
            module.lin.bias is not None,
            dtype=dtype,
        )
    elif kind == "FAConv":
        layer = FAConv(
            _lazy_sizes(kind, module.channels, module.att_l),
            float(module.eps),
            float(module.dropout),
            module.cached,
            module.add_self_loops,
            module.normalize,
            dtype=dtype,
        )
    else:  # ARMAConv: init_weight (K, in, out) sizes a lazy in_channels=-1 once run (before,
        # module.state_dict() itself raises torch's error about uninitialised parameters)
        layer = ARMAConv(
            int(module.init_weight.shape[1]),
            module.out_channels,
            module.num_stacks,
            module.num_layers,
            module.shared_weights,
            _activation(module.act, "from_pyg: ARMAConv act"),
            float(module.dropout),
            module.bias is not None,
            dtype=dtype,
        )
        # PyG's lazy initialisation sizes root_weight from `weight`, one slice too many when
        # T' = 1; the forward pass reads only the first T' slices
        state = dict(module.state_dict())
        state["root_weight"] = state["root_weight"][: layer.root_weight.shape[0]]
        return layer.load_state_dict(state, format="pyg")
    return _load(layer, module, "pyg")


_MESSAGE_LAYERS = ("MFConv", "FiLMConv", "GeneralConv", "CGConv", "GravNetConv", "PDNConv")


def _pyg_message_layer(module: Any, kind: str, dtype: Any) -> Module:
    """PyG's ``MFConv``, ``FiLMConv``, ``GeneralConv``, ``CGConv``, ``GravNetConv`` and
    ``PDNConv`` as arraygnn layers, weights included."""
    from arraygnn.nn.cg_conv import CGConv
    from arraygnn.nn.film_conv import FiLMConv
    from arraygnn.nn.general_conv import GeneralConv
    from arraygnn.nn.grav_net_conv import GravNetConv
    from arraygnn.nn.mf_conv import MFConv
    from arraygnn.nn.pdn_conv import PDNConv

    every = ("sum", "mean", "max", "min")
    if kind == "MFConv":
        aggr = _pyg_aggr(module, kind, every)
        sizes = _lazy_sizes(kind, module.in_channels, module.lins_l[0], module.lins_r[0])
        bias = module.lins_l[0].bias is not None
        layer = MFConv(sizes, module.out_channels, module.max_degree, bias, aggr, dtype=dtype)
    elif kind == "FiLMConv":
        aggr = _pyg_aggr(module, kind, every)
        film, skip = module.films[0], module.film_skip
        default = (  # nn=None: PyG Linear layers, the relations' with bias, the skip's without
            type(film).__name__ == type(skip).__name__ == "Linear"
            and _is_pyg(film)
            and _is_pyg(skip)
            and film.bias is not None
            and skip.bias is None
        )
        layer = FiLMConv(
            _lazy_sizes(kind, module.in_channels, module.lins[0], module.lin_skip),
            module.out_channels,
            len(module.lins),
            None if default else from_torch(film),
            act=_activation(module.act, "from_pyg: FiLMConv act"),
            aggr=aggr,
            dtype=dtype,
        )
    elif kind == "GeneralConv":
        aggr = _pyg_aggr(module, kind, every)
        sizes = module.in_channels
        lin_self = module.lin_self if hasattr(module.lin_self, "weight") else None
        sizes = _lazy_sizes(kind, sizes, module.lin_msg, lin_self)
        in_edge = module.in_edge_channels
        if in_edge is not None:  # lazy -1: lin_edge's size once a call with edges ran
            in_edge = _lazy_sizes(kind, in_edge, module.lin_edge)
        layer = GeneralConv(
            sizes,
            module.out_channels,
            in_edge,
            aggr,
            skip_linear=lin_self is not None,  # a lazily sized lin_self may match out
            directed_msg=module.directed_msg,
            heads=module.heads,
            attention=module.attention,
            attention_type=module.attention_type,
            l2_normalize=module.normalize_l2,
            bias=module.lin_msg.bias is not None,
            dtype=dtype,
        )
    elif kind == "CGConv":
        aggr = _pyg_aggr(module, kind, every)
        bn = module.bn
        if bn is not None and not bn.track_running_stats:
            raise ValueError("from_pyg: CGConv's BatchNorm1d has no running statistics")
        layer = CGConv(
            module.channels,
            module.dim,
            aggr,
            bn is not None,
            module.lin_f.bias is not None,
            dtype=dtype,
        )
        if bn is not None:
            layer.bn.eps = float(bn.eps)
            if not bn.affine:
                layer.bn.weight = layer.bn.bias = None
    elif kind == "GravNetConv":
        layer = GravNetConv(
            _lazy_sizes(kind, module.in_channels, module.lin_s),
            module.out_channels,
            module.lin_s.out_channels,
            module.lin_h.out_channels,
            module.k,
            dtype=dtype,
        )
    else:  # PDNConv
        _pyg_aggr(module, kind, ("sum",))
        layer = PDNConv(
            module.in_channels,
            module.out_channels,
            module.edge_dim,
            module.hidden_channels,
            module.add_self_loops,
            module.normalize,
            module.bias is not None,
            dtype=dtype,
        )
    return _load(layer, module, "pyg")


_PNA_AGGREGATIONS = {
    "MeanAggregation": "mean",
    "MinAggregation": "min",
    "MaxAggregation": "max",
    "StdAggregation": "std",
    "VarAggregation": "var",
    "SumAggregation": "sum",
}


def _pna_aggregators(module: Any) -> list[str]:
    """A PyG ``PNAConv``'s aggregator names (its ``MultiAggregation`` in ``'cat'`` mode);
    anything else (a learnable aggregation, another mode, another flow) is a ``ValueError``."""
    flow = getattr(module, "flow", "source_to_target")
    if flow != "source_to_target":
        raise ValueError(f"from_pyg: PNAConv(flow={flow!r}) is not supported")
    aggr = module.aggr_module.aggr
    parts = getattr(aggr, "aggrs", [aggr])
    if getattr(aggr, "mode", "cat") != "cat":
        raise ValueError(f"from_pyg: PNAConv with MultiAggregation(mode={aggr.mode!r})")
    names = []
    for part in parts:
        kind = type(part).__name__
        if kind not in _PNA_AGGREGATIONS:
            raise ValueError(
                f"from_pyg: PNAConv aggregator {kind} is not supported (mean, min, max, std, "
                "var, sum)"
            )
        names.append(_PNA_AGGREGATIONS[kind])
    return names


def _pyg_gen_conv(module: Any, dtype: Any) -> GENConv:
    """An arraygnn ``GENConv`` shaped like PyG's: the aggregation converted from
    ``aggr_module`` (any of ``arraygnn.nn.aggr``, learnt ``t`` / ``p`` included), the MLP's
    depth, width, norm and bias from its layers."""
    flow = getattr(module, "flow", "source_to_target")
    if flow != "source_to_target":
        raise ValueError(f"from_pyg: GENConv(flow={flow!r}) is not supported")
    try:
        agg = from_pyg(module.aggr_module)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"from_pyg: GENConv aggregation {type(module.aggr_module).__name__} is not "
            f"supported ({err})"
        ) from None
    lins = [m for m in module.mlp if hasattr(m, "weight") and "Norm" not in type(m).__name__]
    norms = [m for m in module.mlp if "Norm" in type(m).__name__]
    norm = None
    if norms:
        norm = {"BatchNorm1d": "batch", "LayerNorm": "layer", "InstanceNorm1d": "instance"}[
            type(norms[0]).__name__
        ]
    out = module.out_channels
    sizes = module.in_channels
    pair = sizes if isinstance(sizes, (tuple, list)) else (sizes, sizes)
    pair = _lazy_sizes(
        "GENConv", tuple(pair), getattr(module, "lin_src", None), getattr(module, "lin_dst", None)
    )
    lin_edge = getattr(module, "lin_edge", None)
    edge_dim = None
    if lin_edge is not None:
        edge_dim = getattr(lin_edge, "in_channels", -1)
        if edge_dim == -1:  # lazy and never run on edge features: none to project
            lin_edge, edge_dim = None, None
    layer = GENConv(
        pair if isinstance(sizes, (tuple, list)) or pair[0] != pair[1] else pair[0],
        out,
        agg,
        msg_norm=hasattr(module, "msg_norm"),
        learn_msg_scale=hasattr(module, "msg_norm") and module.msg_norm.scale.requires_grad,
        norm=norm,
        num_layers=len(lins),
        expansion=lins[0].out_channels // out if len(lins) > 1 else 2,
        eps=module.eps,
        bias=lins[0].bias is not None,
        edge_dim=edge_dim,
        dtype=dtype,
    )
    for ours, theirs in zip(
        [s for s in layer.mlp.steps if isinstance(s, Module) and not isinstance(s, Linear)],
        norms,
    ):
        if not getattr(theirs, "track_running_stats", True):
            raise ValueError("from_pyg: GENConv's BatchNorm1d has no running statistics")
        ours.eps = float(theirs.eps)
    # PyG keeps lin_src / lin_dst / lin_edge whenever a size was lazy (-1), even when the
    # measured width equals out_channels; ours leaves them out for equal sizes: attach them
    for attr in ("lin_src", "lin_dst", "lin_edge"):
        theirs = getattr(module, attr, None)
        if attr == "lin_edge" and lin_edge is None:
            continue
        if theirs is not None and getattr(layer, attr) is None:
            size = int(getattr(theirs, "in_channels", getattr(theirs, "in_features", -1)))
            has_bias = getattr(theirs, "bias", None) is not None
            setattr(layer, attr, Linear(size, out, has_bias, dtype=dtype))
            if attr == "lin_edge":
                layer.edge_dim = size
    return layer


_PYG_DENSE = (
    "DenseGCNConv",
    "DenseSAGEConv",
    "DenseGINConv",
    "DenseGraphConv",
    "DenseGATConv",
    "DMoNPooling",
)


def _pyg_dense(module: Any, kind: str, dtype: Any) -> Module:
    """PyG's dense convolutions and ``DMoNPooling`` (``torch_geometric.nn.dense``)."""
    layer: Module
    if kind == "DenseGINConv":
        train_eps = isinstance(module.eps, _require_torch("torch").nn.Parameter)
        layer = DenseGINConv(from_torch(module.nn), _eps(module), train_eps, dtype=dtype)
        return _load(layer, module, "pyg")
    if kind == "DMoNPooling":
        channels = list(module.mlp.channel_list)
        channels[0] = _lazy_sizes(kind, channels[0], module.mlp.lins[0])
        layer = DMoNPooling(channels[:-1], channels[-1], module.dropout, dtype=dtype)
        return _load(layer, module, "pyg")
    first = module.lin if kind in ("DenseGCNConv", "DenseGATConv") else module.lin_rel
    sizes = (_lazy_sizes(kind, module.in_channels, first), module.out_channels)
    if kind == "DenseGCNConv":
        layer = DenseGCNConv(*sizes, module.improved, module.bias is not None, dtype=dtype)
    elif kind == "DenseSAGEConv":
        bias = module.lin_root.bias is not None
        layer = DenseSAGEConv(*sizes, module.normalize, bias, dtype=dtype)
    elif kind == "DenseGraphConv":
        bias = module.lin_rel.bias is not None
        layer = DenseGraphConv(*sizes, module.aggr, bias, dtype=dtype)
    else:
        layer = DenseGATConv(
            *sizes,
            module.heads,
            module.concat,
            module.negative_slope,
            module.dropout,
            module.bias is not None,
            dtype=dtype,
        )
    return _load(layer, module, "pyg")


def _mlp_norms_from_pyg(layer: MLP, norms: list[Any], kind: str, dtype: Any) -> None:
    """Give an ``MLP`` built without norms PyG's norm layers (``kind`` their class name),
    converted with their settings (``mode``, ``eps``, ``affine``, ``scale``, ...)."""
    converted = []
    for i, pyg_norm in enumerate(norms):
        try:
            converted.append(norm_from_pyg(pyg_norm, dtype))
        except (TypeError, ValueError) as err:
            raise ValueError(f"from_pyg: MLP norms.{i} ({kind}): {err}") from None
    layer.norm = norm_key(kind) or kind
    layer.norms = _ModuleList(converted)
    layer._norm_batch = takes_batch(converted[0])


def _copy_batch_norm_settings(ours: BatchNorm, pyg_norm: Any, i: int) -> None:
    """Carry a PyG MLP norm's ``eps`` / ``affine`` onto ours; no running statistics (batch
    statistics at inference) is a ``ValueError``."""
    bn = getattr(pyg_norm, "module", pyg_norm)  # PyG's BatchNorm wraps torch's BatchNorm1d
    if not getattr(bn, "track_running_stats", True):
        raise ValueError(
            f"from_pyg: MLP norms.{i} has no running statistics "
            "(track_running_stats=False) and cannot run at inference"
        )
    ours.eps = float(getattr(bn, "eps", ours.eps))
    if not getattr(bn, "affine", True):
        ours.weight = ours.bias = None


@_shared("dgl")
def from_dgl(module: Any) -> Module:
    """Build the arraygnn layer matching a DGL ``GraphConv`` / ``SAGEConv`` / ``GATConv`` /
    ``GATv2Conv`` / ``GINConv`` / ``GINEConv`` module (PyTorch backend), weights included
    (DGL parameter names)."""
    torch = _require_torch("torch")
    _check_module("from_dgl", module, torch)
    kind = type(module).__name__
    dtype = _dtype_of(module) if len(module.state_dict()) else np.float32
    if kind == "GraphConv":
        layer = GraphConv(
            module._in_feats,
            module._out_feats,
            norm=module._norm,
            weight=module.weight is not None,
            bias=module.bias is not None,
            activation=_activation(module._activation, "from_dgl: GraphConv"),
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "SAGEConv":
        aggr = module._aggre_type
        if aggr not in ("mean", "gcn", "pool", "lstm"):
            raise ValueError(f"from_dgl: SAGEConv aggregator {aggr!r} is not supported")
        has_bias = any(  # DGL >= 1.0: fc_self.bias; 0.8 / 0.9: bias; older: fc_neigh.bias
            getattr(owner, "bias", None) is not None
            for owner in (module, module.fc_neigh, getattr(module, "fc_self", None))
            if owner is not None
        )
        layer = SAGEConv(
            (module._in_src_feats, module._in_dst_feats),
            module._out_feats,
            aggr,
            bias=has_bias,
            activation=_activation(module.activation, "from_dgl: SAGEConv"),
            norm=None,
            dtype=dtype,
        )
        if module.norm is not None:
            raise ValueError(
                "from_dgl: SAGEConv norm modules are not converted; apply the norm yourself"
            )
        return _load(layer, module, "dgl")
    if kind == "GATConv":
        res_fc = getattr(module, "res_fc", None)
        in_feats = (
            module._in_src_feats
            if hasattr(module, "fc")
            else (module._in_src_feats, module._in_dst_feats)
        )
        layer = GATConv(
            in_feats,
            module._out_feats,
            module._num_heads,
            concat=None,
            negative_slope=module.leaky_relu.negative_slope,
            add_self_loops=False,
            # DGL's residual: the input itself when sizes match, else a Linear whose bias
            # stands in for the layer's (there is then no separate bias)
            bias=getattr(module, "bias", None) is not None
            or getattr(res_fc, "bias", None) is not None,
            residual=_dgl_residual(res_fc),
            activation=_activation(module.activation, "from_dgl: GATConv"),
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "GATv2Conv":
        res_fc = getattr(module, "res_fc", None)
        lin_bias = getattr(module.fc_src, "bias", None) is not None
        layer = GATv2Conv(
            (module._in_src_feats, module._in_dst_feats),
            module._out_feats,
            module._num_heads,
            concat=None,
            negative_slope=module.leaky_relu.negative_slope,
            add_self_loops=False,
            # DGL's only output bias is its residual Linear's
            bias=getattr(res_fc, "bias", None) is not None,
            share_weights=bool(getattr(module, "share_weights", False)),
            residual=_dgl_residual(res_fc),
            lin_bias=lin_bias,
            activation=_activation(module.activation, "from_dgl: GATv2Conv"),
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "GlobalAttentionPooling":
        layer = GlobalAttentionPooling(from_torch(module.gate_nn), _optional(module.feat_nn))
        return _load(layer, module, "pyg")  # DGL's names are arraygnn's here
    if kind == "GINConv":
        inner = from_torch(module.apply_func) if module.apply_func is not None else None
        eps = _eps(module) if isinstance(module.eps, torch.Tensor) else 0.0
        act = _activation(getattr(module, "activation", None), "from_dgl: GINConv activation")
        layer = GINConv(inner, eps, module._aggregator_type, activation=act, dtype=dtype)
        return _load(layer, module, "dgl")
    if kind == "GINEConv":
        inner = from_torch(module.apply_func) if module.apply_func is not None else None
        eps = _eps(module)
        layer = GINEConv(inner, eps, dtype=dtype)
        return _load(layer, module, "dgl")
    if kind == "Set2Set":
        lstm = _recurrent(module.lstm, "from_dgl: Set2Set", dtype)
        layer = Set2Set(module.input_dim, module.n_iters, module.n_layers, dtype=dtype)
        layer.lstm = lstm
        return _load(layer, module, "pyg")  # DGL's names are torch's here
    if kind == "NNConv":
        if module._aggre_type == "max":
            raise ValueError(
                "from_dgl: NNConv(aggregator_type='max') is not supported: DGL takes the max "
                "of each x_j,i * W_ji,io term before summing over i, arraygnn the max of messages"
            )
        res_fc = getattr(module, "res_fc", None)  # DGL's residual: a Linear or Identity
        root = False if res_fc is None else (True if hasattr(res_fc, "weight") else "identity")
        layer = NNConv(
            (module._in_src_feats, module._in_dst_feats),
            module._out_feats,
            from_torch(module.edge_func),
            aggr=module._aggre_type,
            root_weight=root,
            bias=getattr(module, "bias", None) is not None,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "TAGConv":
        layer = TAGConv(
            module._in_feats,
            module._out_feats,
            module._k,
            bias=module.lin.bias is not None,
            degree_norm="dgl",
            activation=_activation(module._activation, "from_dgl: TAGConv"),
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "RelGraphConv":
        typed = module.linear_r
        layer = RelGraphConv(
            typed.in_size,
            typed.out_size,
            typed.num_types,
            regularizer=typed.regularizer,
            num_bases=getattr(typed, "num_bases", None),
            bias=bool(module.bias),
            activation=_activation(module.activation, "from_dgl: RelGraphConv"),
            self_loop=bool(module.self_loop),
            layer_norm=bool(module.layer_norm),
            dtype=dtype,
        )
        if module.layer_norm:
            ln = module.layer_norm_weight
            layer.layer_norm_weight.eps = float(ln.eps)
        return _load(layer, module, "dgl")
    if kind == "SGConv":  # DGL's: no self-loops, in-degree norm at both ends, fc
        if module.norm is not None:
            raise ValueError(
                "from_dgl: SGConv norm modules are not converted; pass norm= (an array "
                "function) to arraygnn.nn.SGConv yourself"
            )
        layer = SGConv(
            module.fc.in_features,
            module.fc.out_features,
            module._k,
            cached=bool(module._cached),
            add_self_loops=False,
            bias=module.fc.bias is not None,
            degree_norm="dgl",
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "ChebConv":  # DGL's: in-degree Laplacian with self-loops, one Linear
        layer = ChebConv(
            module._in_feats,
            module._out_feats,
            module._k,
            bias=module.linear.bias is not None,
            activation=_activation(module.activation, "from_dgl: ChebConv"),
            degree_norm="dgl",
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "SortPooling":
        return SortPooling(module.k)
    if kind == "TypedLinear":
        layer = TypedLinear(
            module.in_size,
            module.out_size,
            module.num_types,
            regularizer=module.regularizer,
            num_bases=getattr(module, "num_bases", None),
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "HGTConv":  # DGL's (typed homogeneous graph), not PyG's HGTConv
        layer = DGLHGTConv(
            module.in_size,
            module.head_size,
            module.num_heads,
            module.linear_k.num_types,
            module.relation_att[0].num_types,
            use_norm=bool(module.use_norm),
            dtype=dtype,
        )
        if module.use_norm:
            layer.norm.eps = float(module.norm.eps)
        return _load(layer, module, "dgl")
    if kind == "DotGatConv":
        in_feats = (
            module._in_src_feats
            if hasattr(module, "fc")
            else (module._in_src_feats, module._in_dst_feats)
        )
        layer = DotGatConv(
            in_feats,
            module._out_feats,
            module._num_heads,
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "AGNNConv":
        learn = isinstance(module.beta, torch.nn.Parameter)
        layer = AGNNConv(
            float(module.beta.detach().reshape(-1)[0]),
            learn_beta=learn,
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "HeteroLinear":  # DGL's (a Linear per type), not PyG's HeteroLinear
        if not hasattr(module, "linears"):
            raise TypeError(
                "from_dgl: this HeteroLinear is PyG's (no per-type 'linears'); convert it "
                "with arraygnn.nn.from_pyg"
            )
        lins = dict(module.linears.items())
        outs = {lin.out_features for lin in lins.values()}
        if len(outs) != 1:
            raise ValueError("from_dgl: HeteroLinear needs one output size (a type at least)")
        layer = DGLHeteroLinear(
            {dgl_type_key(k): lin.in_features for k, lin in lins.items()},
            outs.pop(),
            bias=all(lin.bias is not None for lin in lins.values()),
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "HeteroEmbedding":
        embeds = dict(module.embeds.items())
        if not embeds:
            raise ValueError("from_dgl: HeteroEmbedding with no types has no embedding size")
        raw = getattr(module, "raw_keys", {})
        layer = HeteroEmbedding(
            {raw.get(k, dgl_type_key(k)): emb.num_embeddings for k, emb in embeds.items()},
            next(iter(embeds.values())).embedding_dim,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "HeteroGraphConv":
        mods = {key: from_dgl(mod) for key, mod in module.mod_dict.items()}
        return HeteroGraphConv(mods, aggregate=_dgl_cross_aggregate(module.agg_fn))
    registered = converter("dgl", kind)  # converters beside their layers (nn/converters.py)
    if registered is not None:
        return registered(module, dtype, from_dgl)
    raise TypeError(f"from_dgl: no arraygnn layer for DGL's {kind}")


def _dgl_cross_aggregate(agg_fn: Any) -> str:
    """The name of DGL HeteroGraphConv's built-in aggregation (``partial(_agg_func,
    fn=_sum_reduce_func)`` or ``_stack_agg_func``); a custom function is a ``ValueError``
    (it works on torch tensors)."""
    fn = getattr(agg_fn, "keywords", {}).get("fn") if isinstance(agg_fn, partial) else agg_fn
    name = getattr(fn, "__name__", "")
    for builtin in ("sum", "max", "min", "mean", "stack"):
        if name in (f"_{builtin}_reduce_func", f"_{builtin}_agg_func"):
            return builtin
    raise ValueError(
        "from_dgl: HeteroGraphConv with a custom aggregate function cannot be converted "
        "(it works on torch tensors); build HeteroGraphConv(mods, aggregate=your_array_fn)"
    )
