"""PyG's ``RENet`` (Jin et al., "Recurrent Event Network for Reasoning over Temporal
Knowledge Graphs", 2019) at inference: the history builder ``RENet.pre_transform``, the
forward pass and the ranking metrics ``RENet.test``.

For each event ``(sub, rel, obj, t)`` the history of the subject (the objects it met under
``rel`` in each of the last ``seq_len`` time steps) is averaged per step (the mean
aggregator), run through a GRU together with the subject's and the relation's embeddings,
and a linear layer scores every entity as the object (and likewise for the object's
history and the subject).

How it runs: the per-step means are one ``arraygnn.ops.scatter(..., reduce='mean')`` over
``h_sub_t + h_sub_batch * seq_len`` (no per-event loop); the GRU is
:class:`arraygnn.nn.GRU`; ``pre_transform`` keeps, per entity, a list of its recent events
(pure Python, as PyG's: it runs once over a dataset).

>>> import numpy as np
>>> from arraygnn.batch import Batch
>>> from arraygnn.data import Data
>>> model = RENet(num_nodes=6, num_rels=2, hidden_channels=4, seq_len=3, rng=0)
>>> tf = RENet.pre_transform(3)
>>> events = [(0, 1, 2, 0), (2, 1, 3, 1), (0, 1, 4, 2)]
>>> data = [tf(Data(sub=s, rel=r, obj=o, t=t)) for s, r, o, t in events]
>>> data[2].h_sub.tolist(), data[2].h_sub_t.tolist()
([2], [1])
>>> batch = Batch.from_data_list(data, follow_batch=["h_sub", "h_obj"])
>>> log_prob_obj, log_prob_sub = model(batch)
>>> log_prob_obj.shape
(3, 6)
>>> model.test(log_prob_obj, np.array([2, 3, 4])).shape
(4,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import GRU, Linear, _rng
from arraygnn.nn.signed_gcn import _log_softmax
from arraygnn.ops._common import check_index

__all__ = ["RENet"]


class _HistoryTransform:
    """PyG's ``RENet.pre_transform(seq_len)`` object: called on the events in time order,
    it gives each event ``h_sub`` / ``h_sub_t`` (the objects the subject met under the
    event's relation in each of the last ``seq_len`` time steps, and the step, ``0`` the
    oldest) and ``h_obj`` / ``h_obj_t`` (the same for the object), then records the event.

    A time step ends when ``t`` grows (by any amount). Returns a copy of the event with the
    four int64 arrays added; the event passed in is left unchanged.
    """

    def __init__(self, seq_len: int) -> None:
        self.seq_len = layer_size("RENet.pre_transform", "seq_len", seq_len, 1)
        self.t_last: Any = 0
        self.step = 0  # the number of time steps that have ended
        self.sub_hist: dict[int, list[tuple[int, int, int]]] = {}
        self.obj_hist: dict[int, list[tuple[int, int, int]]] = {}

    def _history(self, hist: dict[int, list[tuple[int, int, int]]], node: int, rel: int) -> Any:
        first = self.step - self.seq_len  # the oldest step still kept
        kept = [e for e in hist.get(node, ()) if e[0] >= first]
        if node in hist:
            hist[node] = kept  # forget events that left the window
        pairs = [(other, step - first) for step, other, r in kept if r == rel and step < self.step]
        arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        return arr[:, 0].copy(), arr[:, 1].copy()

    def __call__(self, data: Any) -> Any:
        values = []
        for key in ("sub", "rel", "obj", "t"):
            value = data[key] if key in data else None
            if value is None:
                raise ValueError(f"RENet.pre_transform: the event needs {key!r}")
            value = np.asarray(value)
            if value.size != 1 or value.dtype.kind not in "iu" and key != "t":
                raise ValueError(f"RENet.pre_transform: {key!r} must be one integer, got {value!r}")
            values.append(value.reshape(()).item())
        sub, rel, obj, t = values
        if min(sub, obj, rel) < 0:
            raise ValueError("RENet.pre_transform: sub, rel and obj must be non-negative ids")
        if t > self.t_last:
            self.step += 1
            self.t_last = t
        out = data.copy()
        out.h_sub, out.h_sub_t = self._history(self.sub_hist, sub, rel)
        out.h_obj, out.h_obj_t = self._history(self.obj_hist, obj, rel)
        self.sub_hist.setdefault(sub, []).append((self.step, obj, rel))
        self.obj_hist.setdefault(obj, []).append((self.step, sub, rel))
        return out

    def __repr__(self) -> str:
        return f"PreTransform(seq_len={self.seq_len})"


class RENet(Module):
    """PyG's ``RENet(num_nodes, num_rels, hidden_channels, seq_len, num_layers=1,
    dropout=0., bias=True)``.

    Call as ``model(data)`` with ``data`` a :class:`arraygnn.batch.Batch` (or any object
    with these keys) holding ``sub``, ``rel``, ``obj`` ``(B,)`` and the histories ``h_sub``,
    ``h_sub_t``, ``h_sub_batch``, ``h_obj``, ``h_obj_t``, ``h_obj_batch`` (from
    :meth:`pre_transform` and ``Batch.from_data_list(..., follow_batch=['h_sub',
    'h_obj'])``) -> ``(log_prob_obj, log_prob_sub)``, each ``(B, num_nodes)`` log-softmax
    scores. ``dropout`` is the identity (inference).

    ``num_layers > 1`` builds (the weights load) but, as in PyG, the forward pass cannot
    combine the stacked GRU states: a ``ValueError``.

    Names (PyG's): ``ent`` ``(num_nodes, hidden)``, ``rel`` ``(num_rels, hidden)``,
    ``sub_gru.*`` / ``obj_gru.*`` (torch's GRU names), ``sub_lin.*``, ``obj_lin.*``.
    """

    _param_names = ("ent", "rel")
    _child_names = ("sub_gru", "obj_gru", "sub_lin", "obj_lin")

    def __init__(
        self,
        num_nodes: int,
        num_rels: int,
        hidden_channels: int,
        seq_len: int,
        num_layers: int = 1,
        dropout: float = 0.0,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.num_nodes = layer_size("RENet", "num_nodes", num_nodes, 1)
        self.num_rels = layer_size("RENet", "num_rels", num_rels, 1)
        hid = self.hidden_channels = layer_size("RENet", "hidden_channels", hidden_channels, 1)
        self.seq_len = layer_size("RENet", "seq_len", seq_len, 1)
        self.num_layers = layer_size("RENet", "num_layers", num_layers, 1)
        self.dropout = probability("RENet", "dropout", dropout)
        gen = _rng(rng)
        bound_ent = np.sqrt(2.0) * np.sqrt(6.0 / (self.num_nodes + hid))  # xavier, gain sqrt 2
        bound_rel = np.sqrt(2.0) * np.sqrt(6.0 / (self.num_rels + hid))
        self.ent = gen.uniform(-bound_ent, bound_ent, (self.num_nodes, hid)).astype(dtype)
        self.rel = gen.uniform(-bound_rel, bound_rel, (self.num_rels, hid)).astype(dtype)
        kw = {"dtype": dtype, "rng": gen}
        self.sub_gru = GRU(3 * hid, hid, self.num_layers, bias, **kw)
        self.obj_gru = GRU(3 * hid, hid, self.num_layers, bias, **kw)
        self.sub_lin = Linear(3 * hid, self.num_nodes, bias, **kw)
        self.obj_lin = Linear(3 * hid, self.num_nodes, bias, **kw)

    @staticmethod
    def pre_transform(seq_len: int) -> _HistoryTransform:
        """PyG's history builder: a callable to apply to the events (``Data`` with ``sub``,
        ``rel``, ``obj``, ``t``) in time order; see :class:`_HistoryTransform`."""
        return _HistoryTransform(seq_len)

    def _ids(self, data: Any, key: str, size: int | None, length: int | None = None) -> Any:
        if key not in data:
            raise ValueError(f"RENet: data needs {key!r}")
        value = data[key]
        if not is_array(value):
            raise TypeError(f"RENet: data.{key} must be an integer array, got {type(value)}")
        check_index(f"RENet: data.{key}", value, size)
        if length is not None and value.shape[0] != length:
            raise ValueError(f"RENet: data.{key} must have {length} entries, got {value.shape[0]}")
        return value

    def _history(self, data: Any, which: str, batch_size: int) -> Any:
        """The mean entity embedding of each (event, step) -> ``(B, seq_len, hidden)``."""
        nodes = self._ids(data, f"h_{which}", self.num_nodes)
        e = int(nodes.shape[0])
        t = self._ids(data, f"h_{which}_t", self.seq_len, e)
        b = self._ids(data, f"h_{which}_batch", batch_size, e)
        slot = t.astype(np.int64) + b.astype(np.int64) * self.seq_len
        mean = ops.scatter(
            ops.gather(self.ent, nodes), slot, batch_size * self.seq_len, reduce="mean"
        )
        return mean.reshape(batch_size, self.seq_len, self.hidden_channels)

    def _encode(self, gru: GRU, lin: Linear, own: Any, hist: Any, rel: Any) -> Any:
        xp = get_namespace(own)
        seq = xp.concatenate(
            [
                xp.broadcast_to(own[:, None], hist.shape),
                hist,
                xp.broadcast_to(rel[:, None], hist.shape),
            ],
            axis=-1,
        )
        _, h = gru(xp.ascontiguousarray(seq.transpose(1, 0, 2)))  # batch-first -> steps first
        h = h[0]
        return _log_softmax(lin(xp.concatenate([own, h, rel], axis=-1)))

    def __call__(self, data: Any) -> tuple[Any, Any]:
        if self.num_layers != 1:
            raise ValueError(
                f"RENet: the forward pass needs num_layers=1 (PyG's stacks the "
                f"{self.num_layers} GRU states it cannot concatenate)"
            )
        sub = self._ids(data, "sub", self.num_nodes)
        if sub.ndim != 1:
            raise ValueError(f"RENet: data.sub must be (B,), got {tuple(sub.shape)}")
        batch_size = int(sub.shape[0])
        rel = self._ids(data, "rel", self.num_rels, batch_size)
        obj = self._ids(data, "obj", self.num_nodes, batch_size)
        h_sub = self._history(data, "sub", batch_size)
        h_obj = self._history(data, "obj", batch_size)
        e_sub, e_obj = ops.gather(self.ent, sub), ops.gather(self.ent, obj)
        e_rel = ops.gather(self.rel, rel)
        log_prob_obj = self._encode(self.sub_gru, self.sub_lin, e_sub, h_sub, e_rel)
        log_prob_sub = self._encode(self.obj_gru, self.obj_lin, e_obj, h_obj, e_rel)
        return log_prob_obj, log_prob_sub

    @staticmethod
    def test(logits: Any, y: Any) -> Any:
        """Mean reciprocal rank and hits at 1 / 3 / 10 of the true entities ``y`` ``(B,)``
        under ``logits`` ``(B, num_nodes)`` (rank 1 the highest score; a ``y`` outside
        ``[0, num_nodes)`` is never found: it counts in no hit and not in the MRR) ->
        float32 ``[mrr, hits1, hits3, hits10]``. Equal scores rank by entity id, the
        lowest first (PyG's ``torch.sort(descending=True)`` leaves the order of ties to
        its sorting algorithm, so results with ties can differ from PyG's)."""
        if not is_array(logits) or logits.ndim != 2:
            raise ValueError("RENet.test: logits must be a (B, num_nodes) array")
        if not is_array(y) or y.dtype.kind not in "iu" or y.shape != (logits.shape[0],):
            raise ValueError(f"RENet.test: y must be ({logits.shape[0]},) integer ids")
        batch_size = int(y.shape[0])
        if batch_size == 0:
            raise ValueError("RENet.test: no events (B = 0)")
        xp = get_namespace(logits, y)
        # descending and stable: sort the columns reversed ascending, then reverse both
        # back (NaN, last ascending, comes first as in torch; unsigned scores need no -x)
        num = int(logits.shape[1])
        perm = num - 1 - xp.argsort(logits[:, ::-1], axis=1, kind="stable")[:, ::-1]
        mask = y.reshape(-1, 1) == perm
        _, ranks = xp.nonzero(mask)
        mrr = (1.0 / (ranks + 1).astype(np.float32)).mean() if ranks.size else np.nan
        hits = [float(mask[:, :k].sum()) / batch_size for k in (1, 3, 10)]
        return xp.asarray([float(mrr)] + hits, dtype=np.float32)

    def extra_repr(self) -> str:
        return f"{self.num_nodes}, {self.num_rels}, {self.hidden_channels}, seq_len={self.seq_len}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> RENet:
    """PyG's ``RENet`` with its weights."""
    model = RENet(
        module.num_nodes,
        module.num_rels,
        module.hidden_channels,
        module.seq_len,
        num_layers=module.sub_gru.num_layers,
        dropout=module.dropout,
        bias=module.sub_lin.bias is not None,
        dtype=dtype,
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
