"""Convert trained PyG / DGL / PyTorch modules into arraygnn layers (weights copied once).

``from_pyg(module)`` and ``from_dgl(module)`` read the module's hyper-parameters, build the
matching arraygnn layer and load ``module.state_dict()`` into it. After that, inference
needs neither torch nor PyG / DGL: save ``layer.state_dict()`` with ``numpy.savez`` and load
it into a freshly constructed layer on a machine without them (see ``docs/layers.md``).

Supported: ``torch.nn.Linear``, ``torch.nn.Sequential`` (of Linear, BatchNorm1d and
ReLU / ELU / Sigmoid / Tanh / LeakyReLU / Identity), ``torch.nn.BatchNorm1d``; PyG
``Linear``, ``MLP``, ``GCNConv``, ``SAGEConv`` (mean / sum / max aggregation, ``project``),
``GATConv`` (no edge features, no residual), ``GINConv``, ``SGConv``; DGL ``GraphConv``,
``SAGEConv`` (mean / gcn / pool), ``GATConv`` (no residual), ``GINConv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._module import Module
from arraygnn.nn.gat_conv import GATConv
from arraygnn.nn.gin_conv import GINConv
from arraygnn.nn.graph_conv import GCNConv, GraphConv
from arraygnn.nn.linear import MLP, BatchNorm, Linear, Sequential
from arraygnn.nn.sage_conv import SAGEConv
from arraygnn.nn.sgc import SGConv

__all__ = ["from_pyg", "from_dgl", "from_torch"]

_ACT_NAMES = {"relu", "elu", "sigmoid", "tanh", "leaky_relu", "leakyrelu"}


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
            return np.dtype(str(p.dtype).replace("torch.", ""))
    return np.dtype(np.float32)


def _activation(act: Any, where: str) -> Any:
    """Map a torch activation (module or function) onto an arraygnn activation name."""
    if act is None:
        return None
    if hasattr(act, "forward"):  # a torch.nn module such as ReLU()
        name = type(act).__name__.lower()
    else:  # a function such as torch.relu / F.relu
        name = getattr(act, "__name__", "").lower()
    if name == "identity":
        return None
    if name == "leakyrelu" or name == "leaky_relu":
        slope = float(getattr(act, "negative_slope", 0.01))
        return lambda x: (
            np.where(x > 0, x, x * slope) if isinstance(x, np.ndarray) else _cupy_leaky(x, slope)
        )
    if name in _ACT_NAMES:
        return name
    raise ValueError(f"{where}: cannot convert activation {act!r}; supported: {sorted(_ACT_NAMES)}")


def _cupy_leaky(x: Any, slope: float) -> Any:
    from arraygnn._namespace import get_namespace

    xp = get_namespace(x)
    return xp.where(x > 0, x, x * slope)


def _load(layer: Module, module: Any, format: str) -> Module:
    layer.load_state_dict(module.state_dict(), format=format)
    return layer


def from_torch(module: Any) -> Module:
    """``torch.nn.Linear`` / ``BatchNorm1d`` / ``Sequential`` -> arraygnn ``Linear`` /
    ``BatchNorm`` / ``Sequential`` with the same weights (and the same state-dict names)."""
    torch = _require_torch("torch")
    nn = torch.nn
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
    if isinstance(module, nn.Sequential):
        steps: list[Any] = []
        for i, child in enumerate(module):
            if isinstance(child, (nn.Linear, nn.BatchNorm1d, nn.Sequential)) or _is_pyg(child):
                steps.append(from_torch(child) if not _is_pyg(child) else from_pyg(child))
            elif isinstance(child, nn.Dropout):
                steps.append(lambda x: x)  # inference: dropout is the identity
            else:
                act = _activation(child, f"from_torch: Sequential step {i}")
                steps.append(act if act is not None else (lambda x: x))
        return Sequential(*steps)
    if _is_pyg(module):
        return from_pyg(module)
    raise TypeError(f"from_torch: cannot convert {type(module).__name__}")


def _is_pyg(module: Any) -> bool:
    return type(module).__module__.startswith("torch_geometric")


def from_pyg(module: Any) -> Module:
    """Build the arraygnn layer matching a PyG (or plain torch) module, weights included.

    >>> import torch_geometric  # doctest: +SKIP
    >>> conv = from_pyg(torch_geometric.nn.GCNConv(16, 8))  # doctest: +SKIP
    >>> conv.state_dict()["lin.weight"].shape  # doctest: +SKIP
    (8, 16)
    """
    _require_torch("pyg")
    if not _is_pyg(module):
        return from_torch(module)
    kind = type(module).__name__
    dtype = _dtype_of(module) if len(module.state_dict()) else np.float32
    if kind == "Linear":
        layer = Linear(
            module.in_channels, module.out_channels, module.bias is not None, dtype=dtype
        )
        return _load(layer, module, "pyg")
    if kind == "MLP":
        norm = None
        if module.norms is not None and len(module.norms):
            norm_kinds = {type(n).__name__ for n in module.norms}
            if norm_kinds <= {"Identity"}:
                norm = None
            elif norm_kinds <= {"BatchNorm"}:
                norm = "batch_norm"
            else:
                raise ValueError(
                    f"from_pyg: MLP norm {norm_kinds} is not supported (only batch_norm)"
                )
        act = _activation(module.act, "from_pyg: MLP act")
        layer = MLP(
            module.channel_list,
            act=act,
            norm=norm,
            plain_last=module.plain_last,
            bias=module.lins[0].bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "GCNConv":
        layer = GCNConv(
            module.in_channels,
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
        aggr = module.aggr if isinstance(module.aggr, str) else None
        if aggr not in ("mean", "sum", "max", "add"):
            raise ValueError(f"from_pyg: SAGEConv aggregation {module.aggr!r} is not supported")
        aggr = "sum" if aggr == "add" else aggr
        project = bool(module.project)
        aggregator = "pool" if (project and aggr == "max") else aggr
        layer = SAGEConv(
            module.in_channels,
            module.out_channels,
            aggregator,
            bias=module.lin_l.bias is not None,
            root_weight=module.root_weight,
            project=project,
            normalize=module.normalize,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "GATConv":
        if getattr(module, "lin_edge", None) is not None or getattr(module, "edge_dim", None):
            raise ValueError("from_pyg: GATConv with edge features (edge_dim) is not supported")
        if getattr(module, "res", None) is not None:
            raise ValueError("from_pyg: GATConv with residual=True is not supported")
        layer = GATConv(
            module.in_channels,
            module.out_channels,
            module.heads,
            module.concat,
            module.negative_slope,
            module.add_self_loops,
            module.bias is not None,
            allow_zero_in_degree=True,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    if kind == "GINConv":
        inner = from_torch(module.nn)
        layer = GINConv(inner, float(module.eps.detach().reshape(-1)[0]), dtype=dtype)
        return _load(layer, module, "pyg")
    if kind == "SGConv":
        layer = SGConv(
            module.in_channels,
            module.out_channels,
            K=module.K,
            cached=module.cached,
            add_self_loops=module.add_self_loops,
            bias=module.lin.bias is not None,
            dtype=dtype,
        )
        return _load(layer, module, "pyg")
    raise TypeError(f"from_pyg: no arraygnn layer for torch_geometric's {kind}")


def from_dgl(module: Any) -> Module:
    """Build the arraygnn layer matching a DGL ``GraphConv`` / ``SAGEConv`` / ``GATConv`` /
    ``GINConv`` module (PyTorch backend), weights included (DGL parameter names)."""
    torch = _require_torch("torch")
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
        if aggr not in ("mean", "gcn", "pool"):
            raise ValueError(f"from_dgl: SAGEConv aggregator {aggr!r} is not supported")
        has_bias = getattr(module, "bias", None) is not None or (
            getattr(module.fc_neigh, "bias", None) is not None
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
        if getattr(module, "res_fc", None) is not None:
            raise ValueError("from_dgl: GATConv with residual=True is not supported")
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
            bias=getattr(module, "bias", None) is not None,
            activation=_activation(module.activation, "from_dgl: GATConv"),
            allow_zero_in_degree=module._allow_zero_in_degree,
            dtype=dtype,
        )
        return _load(layer, module, "dgl")
    if kind == "GINConv":
        inner = from_torch(module.apply_func) if module.apply_func is not None else None
        eps = (
            float(module.eps.detach().reshape(-1)[0])
            if isinstance(module.eps, torch.Tensor)
            else 0.0
        )
        layer = GINConv(inner, eps, module._aggregator_type, dtype=dtype)
        return _load(layer, module, "dgl")
    raise TypeError(f"from_dgl: no arraygnn layer for DGL's {kind}")
