"""TGN (Rossi et al., 2020): PyG's ``TGNMemory``, its message / aggregator / time
modules and ``LastNeighborLoader``, on NumPy / CuPy arrays.

>>> import numpy as np
>>> from arraygnn.nn.tgn import IdentityMessage, LastAggregator, LastNeighborLoader, TGNMemory
>>> mem = TGNMemory(5, 2, 4, 3, IdentityMessage(2, 4, 3), LastAggregator(), rng=0)
>>> mem.update_state(np.array([0, 1]), np.array([2, 2]), np.array([10, 11]),
...                  np.ones((2, 2), np.float32))
>>> m, last = mem(np.array([2, 4]))
>>> m.shape, last.tolist()
((2, 4), [11, 0])
>>> loader = LastNeighborLoader(5, size=2)
>>> loader.insert(np.array([0, 1]), np.array([2, 2]))
>>> n_id, edge_index, e_id = loader(np.array([2]))
>>> n_id.tolist(), edge_index.tolist(), e_id.tolist()
([0, 1, 2], [[1, 0], [2, 2]], [1, 0])

How ``TGNMemory`` runs: the two message stores are append-only logs ordered by node
with a ``(start, count)`` range per node (compacted when half dead), so a batch gathers
its messages with one vectorised range expansion, no per-node Python loop. A node's
messages are laid out contiguously (its source-side then its destination-side ones,
PyG's order), so both aggregators are ``arraygnn.ops.segment`` reductions over a row
pointer. ``LastAggregator`` picks each node's message before it is formed: only one
``[num_nodes_in_batch, out_channels]`` message block is built (any row-wise message
module); ``MeanAggregator`` forms every message row and takes a segment mean.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, is_array, repeat_counts, to_device
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import GRUCell, Linear
from arraygnn.ops._common import check_index, check_size

__all__ = [
    "IdentityMessage",
    "LastAggregator",
    "LastNeighborLoader",
    "MeanAggregator",
    "TGNMemory",
    "TimeEncoder",
]


# ---------------------------------------------------------------- input checks
def _ids(where: str, name: str, value: Any, num_nodes: int) -> Any:
    """``value`` checked as a 1-D integer array of node ids in ``[0, num_nodes)``."""
    check_index(f"{where}: {name}", value, num_nodes)
    return value


def _aggr_inputs(
    layer: str, msg: Any, index: Any, t: Any, dim_size: Any, need_t: bool = False
) -> int:
    """An aggregator's ``(msg, index, t, dim_size)`` checked, naming ``layer``; ``t`` is
    checked when given or ``need_t`` (``LastAggregator`` reads it, ``MeanAggregator``
    does not)."""
    dim_size = check_size(f"{layer}: dim_size", dim_size)
    check_index(f"{layer}: index", index, dim_size)
    if not is_array(msg) or msg.ndim < 1:
        raise TypeError(f"{layer}: msg must be an array with one row per message")
    if index.shape[0] != msg.shape[0]:
        raise ValueError(
            f"{layer}: index has {index.shape[0]} entries but msg has {msg.shape[0]} rows"
        )
    if (need_t or t is not None) and (
        not is_array(t) or t.shape != (msg.shape[0],) or t.dtype.kind not in "iuf"
    ):
        raise ValueError(
            f"{layer}: t must be [{msg.shape[0]}] integer or float timestamps, got "
            f"{_shape_dtype(t)}"
        )
    return dim_size


def _shape_dtype(value: Any) -> str:
    """Shape and dtype of an array, else its type (for error messages)."""
    if is_array(value):
        return f"{list(value.shape)} {value.dtype}"
    return str(type(value))


def _ranges(xp: Any, starts: Any, counts: Any) -> Any:
    """Concatenated ``arange(starts[i], starts[i] + counts[i])``."""
    total = int(counts.sum()) if counts.shape[0] else 0
    offsets = xp.cumsum(counts) - counts
    return repeat_counts(xp, starts - offsets, counts) + xp.arange(total, dtype=np.int64)


def _promote_time(a: Any, b: Any) -> Any:
    """Timestamps' common dtype: a float dtype when either is float (torch's category
    rule: long with float32 gives float32), else int64."""
    floats = [d for d in (np.dtype(a), np.dtype(b)) if d.kind == "f"]
    if not floats:
        return np.dtype(np.int64)
    return np.result_type(*floats)


# ---------------------------------------------------------------- small modules
class TimeEncoder(Module):
    """PyG's ``TimeEncoder(out_channels)``: ``cos(lin(t.view(-1, 1)))``, ``lin`` a
    ``Linear(1, out_channels)``.

    >>> TimeEncoder(3, rng=0)(np.array([0.0, 2.0], np.float32)).shape
    (2, 3)
    """

    _child_names = ("lin",)

    def __init__(self, out_channels: int, *, dtype: Any = np.float32, rng: Any = None) -> None:
        self.out_channels = layer_size("TimeEncoder", "out_channels", out_channels)
        self.lin = Linear(1, self.out_channels, dtype=dtype, rng=rng)

    def __call__(self, t: Any) -> Any:
        if not is_array(t):
            raise TypeError(f"TimeEncoder: t must be an array of timestamps, got {type(t)}")
        xp = get_namespace(t)
        return xp.cos(self.lin(t.reshape(-1, 1)))

    def extra_repr(self) -> str:
        return str(self.out_channels)


class IdentityMessage(Module):
    """PyG's ``IdentityMessage``: ``[z_src, z_dst, raw_msg, t_enc]`` concatenated,
    ``out_channels = raw_msg_dim + 2 * memory_dim + time_dim``."""

    def __init__(self, raw_msg_dim: int, memory_dim: int, time_dim: int) -> None:
        raw = layer_size("IdentityMessage", "raw_msg_dim", raw_msg_dim)
        mem = layer_size("IdentityMessage", "memory_dim", memory_dim)
        tim = layer_size("IdentityMessage", "time_dim", time_dim)
        self.out_channels = raw + 2 * mem + tim

    def __call__(self, z_src: Any, z_dst: Any, raw_msg: Any, t_enc: Any) -> Any:
        xp = get_namespace(z_src, z_dst, raw_msg, t_enc)
        return xp.concatenate([z_src, z_dst, raw_msg, t_enc], axis=-1)

    def extra_repr(self) -> str:
        return f"out_channels={self.out_channels}"


def _sorted_segments(xp: Any, index: Any, dim_size: int) -> tuple[Any, Any]:
    """A stable order of the rows by ``index`` and its row pointer [dim_size + 1]."""
    perm = xp.argsort(index, kind="stable")
    counts = xp.bincount(index, minlength=dim_size)[:dim_size]
    ptr = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(counts)])
    return perm, ptr


def _last_in_segments(xp: Any, t: Any, ptr: Any) -> tuple[Any, Any]:
    """Per segment, the position of the last row holding the segment's largest ``t``,
    and a mask of the non-empty segments."""
    counts = ptr[1:] - ptr[:-1]
    tmax = ops.segment(t, ptr, "max")
    pos = xp.arange(t.shape[0], dtype=np.int64)
    pos = xp.where(t == repeat_counts(xp, tmax, counts), pos, -1)
    return ops.segment(pos, ptr, "max"), counts > 0


class LastAggregator(Module):
    """PyG's ``LastAggregator``: per node, the message with the largest ``t``.

    ``agg(msg, index, t, dim_size)`` -> ``[dim_size, F]``; a node without messages
    gets zeros (torch-scatter's ``scatter_max`` semantics, which the PyG code is written
    for: its empty-group argmax is filtered out).

    RULE: ties in ``t`` go to the last such message in input order. That is what PyG
      2.8.1 does on the CPU without torch-scatter (``scatter_argmax``'s fallback writes
      every tied position, the last write stays); torch-scatter's CPU kernel keeps the
      first and its CUDA kernel leaves it undefined.
    RULE: PyG's fallback (no torch-scatter) gives a node without messages the message
      ``msg[dim_size - 1]`` whenever that row exists (its "empty" marker is ``dim_size -
      1``, not ``msg.size(0)``); here such a node gets zeros, as with torch-scatter.
    """

    def __call__(self, msg: Any, index: Any, t: Any, dim_size: int) -> Any:
        dim_size = _aggr_inputs("LastAggregator", msg, index, t, dim_size, need_t=True)
        xp = get_namespace(msg, index, t)
        perm, ptr = _sorted_segments(xp, index, dim_size)
        last, has = _last_in_segments(xp, t[perm], ptr)
        out = xp.zeros((dim_size, msg.shape[-1]), dtype=msg.dtype)
        out[has] = msg[perm[last[has]]]
        return out


class MeanAggregator(Module):
    """PyG's ``MeanAggregator``: per node, the mean of its messages (zeros for none)."""

    def __call__(self, msg: Any, index: Any, t: Any, dim_size: int) -> Any:
        dim_size = _aggr_inputs("MeanAggregator", msg, index, None, dim_size)
        return ops.scatter(msg, index, dim_size, "mean")


# ---------------------------------------------------------------- message store
class _MessageStore:
    """Per node, the events of the last ``update_state`` batch in which it was the key
    node (source for the source store, destination for the destination store).

    An append-only log (grown by doubling, so a batch costs its own size) ordered by key
    within each batch, with ``start`` / ``count`` per node; the dead rows are dropped
    when the log must grow and they outnumber the live ones."""

    _fields = ("key", "other", "t", "msg")

    def __init__(self, xp: Any, num_nodes: int, raw_msg_dim: int, dtype: Any) -> None:
        self.xp = xp
        self.start = xp.zeros(num_nodes, dtype=np.int64)
        self.count = xp.zeros(num_nodes, dtype=np.int64)
        self.size = 0
        self.key = xp.zeros(0, dtype=np.int64)
        self.other = xp.zeros(0, dtype=np.int64)
        self.t = xp.zeros(0, dtype=np.int64)
        self.msg = xp.zeros((0, raw_msg_dim), dtype=dtype)

    def put(self, key: Any, other: Any, t: Any, msg: Any) -> None:
        xp = self.xp
        n = key.shape[0]
        perm = xp.argsort(key, kind="stable")
        key = key[perm].astype(np.int64, copy=False)
        uniq, first, counts = xp.unique(key, return_index=True, return_counts=True)
        # the batch's own nodes die first: their old rows are no longer live
        self.count[uniq] = 0
        tdtype = _promote_time(self.t.dtype, t.dtype)
        if tdtype != self.t.dtype:
            self.t = self.t.astype(tdtype)
        if self.size + n > self.key.shape[0]:
            live = int(self.count.sum())
            self._reserve(live if self.size > 2 * live else self.size, n)
        base, stop = self.size, self.size + n
        self.key[base:stop] = key
        self.other[base:stop] = other[perm]
        self.t[base:stop] = t[perm]
        self.msg[base:stop] = msg[perm]
        self.size = stop
        self.start[uniq] = base + first
        self.count[uniq] = counts

    def rows(self, n_id: Any) -> tuple[Any, Any]:
        """Log rows of the nodes ``n_id`` (node by node, in ``n_id`` order), and counts."""
        counts = self.count[n_id]
        return _ranges(self.xp, self.start[n_id], counts), counts

    def _reserve(self, keep: int, extra: int) -> None:
        """New arrays with room for ``extra`` more rows after ``keep`` rows: the live rows
        compacted (``keep`` is their number) or all rows as they are."""
        xp = self.xp
        capacity = max(2 * (keep + extra), 1024)
        if keep == self.size:
            idx = xp.arange(keep, dtype=np.int64)
        else:
            idx = _ranges(xp, self.start, self.count)
            self.start = xp.cumsum(self.count) - self.count
        for name in self._fields:
            old = getattr(self, name)
            new = xp.empty((capacity,) + old.shape[1:], dtype=old.dtype)
            new[:keep] = old[idx]
            setattr(self, name, new)
        self.size = keep

    def to(self, device: str) -> None:
        for name in ("start", "count") + self._fields:
            setattr(self, name, to_device(getattr(self, name), device))
        self.xp = get_namespace(self.start)


# ---------------------------------------------------------------- the memory
class TGNMemory(Module):
    """PyG's ``TGNMemory(num_nodes, raw_msg_dim, memory_dim, time_dim, message_module,
    aggregator_module)``: a GRU memory per node, updated from stored event messages.

    - ``update_state(src, dst, t, raw_msg)``: in training mode (the default, as a fresh
      PyG module) the nodes of the batch first update their memory from the messages
      stored by earlier batches, then the batch's events replace their stored messages;
      in eval mode the events are stored first and the memory updated from them.
    - ``memory(n_id)`` -> ``(memory [len(n_id), memory_dim], last_update [len(n_id)])``:
      in training mode the memory as it would be updated from the stored messages
      (nothing is written), in eval mode the stored memory.
    - ``train(False)`` / ``eval()`` from training mode first flushes every stored
      message into the memory and clears the stores (PyG's); ``reset_state()`` zeroes
      memory, ``last_update`` and the stores; ``detach()`` does nothing (no autograd).

    A node's update: messages ``msg_module(memory[node], memory[other], raw_msg,
    time_enc(t - last_update[node]))`` from its stored events (the source-side store
    with ``msg_s_module``, the destination-side store with ``msg_d_module``, a copy of
    ``message_module``), aggregated, ``memory = gru(aggr, memory)``, ``last_update`` = the
    largest ``t`` of its messages (0 for a node without messages, as PyG's).

    RULE: ``last_update`` is int64 (PyG's long buffer); floating ``t`` is truncated into it.
    RULE: ``raw_msg`` is cast to the layer dtype when stored (PyG requires it to match).
    RULE: an empty batch is a no-op, and ``memory(n_id)`` of no ids gives empty arrays
      (PyG's raises for both inside its message gathering).
    RULE: duplicate ids in a training-mode ``memory(n_id)`` all get the node's row (PyG
      computes only the last duplicate's row and gives the others a zero message).
    Ties for ``LastAggregator``: see its RULE (the last message in PyG's order: the
    node's source-side messages in event order, then its destination-side ones; PyG
    stores a batch in ``torch.sort`` order, which keeps event order for up to 16 events
    and leaves the order of ties open beyond).
    ``LastAggregator`` / ``MeanAggregator`` themselves run the shortcuts of the module
    docstring; any other aggregator (subclasses of those two included) is called as PyG
    calls it, ``aggr(msg, index, t, dim_size)`` over every formed message.

    Shapes:
        - ``src``, ``dst``, ``t``: ``[E]``; ``raw_msg``: ``[E, raw_msg_dim]``
        - ``n_id``: ``[B]`` -> ``([B, memory_dim], [B])``
    """

    _buffer_names = ("memory", "last_update")

    def __init__(
        self,
        num_nodes: int,
        raw_msg_dim: int,
        memory_dim: int,
        time_dim: int,
        message_module: Callable[..., Any],
        aggregator_module: Callable[..., Any],
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.num_nodes = layer_size("TGNMemory", "num_nodes", num_nodes)
        self.raw_msg_dim = layer_size("TGNMemory", "raw_msg_dim", raw_msg_dim)
        self.memory_dim = layer_size("TGNMemory", "memory_dim", memory_dim, minimum=1)
        self.time_dim = layer_size("TGNMemory", "time_dim", time_dim)
        out = getattr(message_module, "out_channels", None)
        if out is None:
            raise TypeError("TGNMemory: message_module needs an out_channels attribute")
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.msg_s_module = message_module
        self.msg_d_module = copy.deepcopy(message_module)
        self.aggr_module = aggregator_module
        self.time_enc = TimeEncoder(self.time_dim, dtype=dtype, rng=gen)
        self.gru = GRUCell(out, self.memory_dim, dtype=dtype, rng=gen)
        self._child_names = tuple(
            name
            for name in ("msg_s_module", "msg_d_module", "aggr_module", "time_enc", "gru")
            if isinstance(getattr(self, name), Module)
        )
        self.memory = np.zeros((self.num_nodes, self.memory_dim), dtype=dtype)
        self.last_update = np.zeros(self.num_nodes, dtype=np.int64)
        self.training = True
        self._reset_message_store()

    # ---- state ---------------------------------------------------------------------
    def _reset_message_store(self) -> None:
        xp = get_namespace(self.memory)
        args = (xp, self.num_nodes, self.raw_msg_dim, self.memory.dtype)
        self._s_store = _MessageStore(*args)
        self._d_store = _MessageStore(*args)

    def reset_state(self) -> None:
        """Zero the memory and ``last_update`` and empty the message stores."""
        self.memory[...] = 0
        self.last_update[...] = 0
        self._reset_message_store()

    def detach(self) -> None:
        """PyG's ``detach``: nothing to do without autograd."""

    def train(self, mode: bool = True) -> TGNMemory:
        """Set training mode; leaving it flushes the stores into the memory (PyG's)."""
        if self.training and not mode:
            xp = get_namespace(self.memory)
            self._update_memory(xp.arange(self.num_nodes, dtype=np.int64))
            self._reset_message_store()
        self.training = bool(mode)
        return self

    def eval(self) -> TGNMemory:
        """``train(False)``."""
        return self.train(False)

    def _ignorable(self, key: str) -> bool:
        return key == "_assoc" or super()._ignorable(key)

    def to(self, device: str) -> TGNMemory:
        super().to(device)
        self._s_store.to(device)
        self._d_store.to(device)
        return self

    def astype(self, dtype: Any) -> TGNMemory:
        super().astype(dtype)
        for store in (self._s_store, self._d_store):
            store.msg = store.msg.astype(dtype)
        return self

    # ---- public calls --------------------------------------------------------------
    def __call__(self, n_id: Any) -> tuple[Any, Any]:
        n_id = _ids("TGNMemory", "n_id", n_id, self.num_nodes)
        if not self.training:
            return self.memory[n_id], self.last_update[n_id]
        xp = get_namespace(n_id)
        uniq, inverse = xp.unique(n_id, return_inverse=True)
        memory, last_update = self._updated_memory(uniq.astype(np.int64, copy=False))
        inverse = inverse.reshape(-1)
        return memory[inverse], last_update[inverse]

    def update_state(self, src: Any, dst: Any, t: Any, raw_msg: Any) -> None:
        """Take in the events ``(src, dst, t, raw_msg)`` (see the class docstring)."""
        src = _ids("TGNMemory.update_state", "src", src, self.num_nodes)
        dst = _ids("TGNMemory.update_state", "dst", dst, self.num_nodes)
        n = src.shape[0]
        if dst.shape[0] != n:
            raise ValueError(
                f"TGNMemory.update_state: src has {n} events but dst has {dst.shape[0]}"
            )
        if not is_array(t) or t.ndim != 1 or t.shape[0] != n or t.dtype.kind not in "iuf":
            raise ValueError(
                f"TGNMemory.update_state: t must be [{n}] integer or float timestamps, got "
                f"{_shape_dtype(t)}"
            )
        if not is_array(raw_msg) or tuple(raw_msg.shape) != (n, self.raw_msg_dim):
            raise ValueError(
                f"TGNMemory.update_state: raw_msg must be [{n}, {self.raw_msg_dim}], got "
                f"{_shape_dtype(raw_msg)}"
            )
        if n == 0:
            return
        xp = get_namespace(src, dst, t, raw_msg, self.memory)
        n_id = xp.unique(xp.concatenate([src.astype(np.int64), dst.astype(np.int64)]))
        if self.training:
            self._update_memory(n_id)
        self._s_store.put(src, dst, t, raw_msg)
        self._d_store.put(dst, src, t, raw_msg)
        if not self.training:
            self._update_memory(n_id)

    # ---- the update ----------------------------------------------------------------
    def _update_memory(self, n_id: Any) -> None:
        memory, last_update = self._updated_memory(n_id)
        self.memory[n_id] = memory
        self.last_update[n_id] = last_update

    def _messages(self, part: str, store: _MessageStore, rows: Any) -> Any:
        key, other, t = store.key[rows], store.other[rows], store.t[rows]
        last = self.last_update[key]
        t_rel = t - last.astype(t.dtype, copy=False) if t.dtype.kind == "f" else t - last
        t_enc = self.time_enc(t_rel.astype(self.memory.dtype))
        module = self.msg_s_module if part == "s" else self.msg_d_module
        msg = module(self.memory[key], self.memory[other], store.msg[rows], t_enc)
        want = (int(rows.shape[0]), self.gru.input_size)
        if not is_array(msg) or tuple(msg.shape) != want:
            raise ValueError(
                f"TGNMemory: message_module gave {_shape_dtype(msg)}, expected "
                f"[{want[0]}, {want[1]}]: one row per message, out_channels={want[1]} "
                "columns (the GRU's input size)"
            )
        return msg

    def _updated_memory(self, n_id: Any) -> tuple[Any, Any]:
        """``(memory, last_update)`` of the distinct nodes ``n_id`` after their update."""
        xp = get_namespace(n_id, self.memory)
        s_rows, s_cnt = self._s_store.rows(n_id)
        d_rows, d_cnt = self._d_store.rows(n_id)
        counts = s_cnt + d_cnt
        ptr = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(counts)])
        # merged layout: node by node, its source-side then its destination-side rows
        s_pos = _ranges(xp, ptr[:-1], s_cnt)
        d_pos = _ranges(xp, ptr[:-1] + s_cnt, d_cnt)
        tdtype = _promote_time(self._s_store.t.dtype, self._d_store.t.dtype)
        t = xp.zeros(int(ptr[-1]), dtype=tdtype)
        t[s_pos] = self._s_store.t[s_rows]
        t[d_pos] = self._d_store.t[d_rows]
        tmax = ops.segment(t, ptr, "max") if t.shape[0] else xp.zeros(n_id.shape[0], tdtype)
        num = n_id.shape[0]
        width = self.gru.input_size
        if type(self.aggr_module) is LastAggregator:  # a subclass may override the call
            aggr = xp.zeros((num, width), dtype=self.memory.dtype)
            if t.shape[0]:
                last, has = _last_in_segments(xp, t, ptr)
                chosen = last[has]
                is_d = xp.zeros(t.shape[0], dtype=bool)
                is_d[d_pos] = True
                log_row = xp.zeros(t.shape[0], dtype=np.int64)
                log_row[s_pos] = s_rows
                log_row[d_pos] = d_rows
                targets = xp.nonzero(has)[0]
                pick_d = is_d[chosen]
                for part, store, sel in (
                    ("s", self._s_store, ~pick_d),
                    ("d", self._d_store, pick_d),
                ):
                    if bool(sel.any()):
                        aggr[targets[sel]] = self._messages(part, store, log_row[chosen[sel]])
        else:
            msg = xp.zeros((t.shape[0], width), dtype=self.memory.dtype)
            if s_rows.shape[0]:
                msg[s_pos] = self._messages("s", self._s_store, s_rows)
            if d_rows.shape[0]:
                msg[d_pos] = self._messages("d", self._d_store, d_rows)
            if type(self.aggr_module) is MeanAggregator:
                aggr = ops.segment(msg, ptr, "mean")
            else:  # a user aggregator, called as PyG's: (msg, index, t, dim_size)
                index = repeat_counts(xp, xp.arange(num, dtype=np.int64), counts)
                aggr = self.aggr_module(msg, index, t, num)
        memory = self.gru(aggr, self.memory[n_id])
        return memory, tmax.astype(np.int64)

    def extra_repr(self) -> str:
        return (
            f"num_nodes={self.num_nodes}, raw_msg_dim={self.raw_msg_dim}, "
            f"memory_dim={self.memory_dim}, time_dim={self.time_dim}, "
            f"aggr={type(self.aggr_module).__name__}, training={self.training}"
        )


# ---------------------------------------------------------------- neighbor loader
class LastNeighborLoader:
    """PyG's ``LastNeighborLoader(num_nodes, size)``: per node, its ``size`` latest
    interactions in an ever-growing undirected temporal graph.

    - ``insert(src, dst)``: events get ids ``cur_e_id, cur_e_id + 1, ...``; each end
      becomes the other's neighbor.
    - ``loader(n_id)`` -> ``(n_id, edge_index, e_id)``: the sorted distinct ids of
      ``n_id`` and their stored neighbors, ``edge_index`` [2, K] = (neighbor, node) as
      positions in that ``n_id``, and the event ids; node by node in the given order,
      each node's neighbors latest first.
    - ``reset_state()``: forget every interaction.

    RULE: when a node gets more than ``size`` new interactions in one ``insert``, the
      ones kept are PyG's: the last ``size`` in the order (the node as destination, in
      event order; then the node as source, in event order), merged with the old ones
      by event id. (That is PyG's choice for batches of up to 8 events, whose 16 sort
      entries torch sorts stably on the CPU; beyond that its sort is not stable and
      PyG's choice is open.)
    """

    def __init__(self, num_nodes: int, size: int, device: str | None = None) -> None:
        self.num_nodes = layer_size("LastNeighborLoader", "num_nodes", num_nodes)
        self.size = layer_size("LastNeighborLoader", "size", size, minimum=1)
        xp = np
        if device is not None and device != "cpu":
            xp = get_namespace(to_device(np.zeros(0), device))
        self.neighbors = xp.zeros((self.num_nodes, self.size), dtype=np.int64)
        self.e_id = xp.full((self.num_nodes, self.size), -1, dtype=np.int64)
        self.cur_e_id = 0

    def reset_state(self) -> None:
        """Forget every interaction (event ids restart at 0)."""
        self.cur_e_id = 0
        self.e_id[...] = -1

    def __call__(self, n_id: Any) -> tuple[Any, Any, Any]:
        n_id = _ids("LastNeighborLoader", "n_id", n_id, self.num_nodes)
        xp = get_namespace(n_id, self.e_id)
        neighbors = self.neighbors[n_id]
        e_id = self.e_id[n_id]
        nodes = xp.broadcast_to(n_id.astype(np.int64).reshape(-1, 1), e_id.shape)
        mask = e_id >= 0
        neighbors, nodes, e_id = neighbors[mask], nodes[mask], e_id[mask]
        out = xp.unique(xp.concatenate([n_id.astype(np.int64), neighbors]))
        edge_index = xp.stack([xp.searchsorted(out, neighbors), xp.searchsorted(out, nodes)])
        return out, edge_index, e_id

    def insert(self, src: Any, dst: Any) -> None:
        """Add the events ``(src[i], dst[i])``."""
        src = _ids("LastNeighborLoader.insert", "src", src, self.num_nodes)
        dst = _ids("LastNeighborLoader.insert", "dst", dst, self.num_nodes)
        num = src.shape[0]
        if dst.shape[0] != num:
            raise ValueError(
                f"LastNeighborLoader.insert: src has {num} events but dst has {dst.shape[0]}"
            )
        if num == 0:
            return
        xp = get_namespace(src, dst, self.e_id)
        size = self.size
        neighbors = xp.concatenate([src, dst]).astype(np.int64)
        nodes = xp.concatenate([dst, src]).astype(np.int64)
        e_id = xp.tile(xp.arange(self.cur_e_id, self.cur_e_id + num, dtype=np.int64), 2)
        self.cur_e_id += num
        perm = xp.argsort(nodes, kind="stable")
        nodes, neighbors, e_id = nodes[perm], neighbors[perm], e_id[perm]
        n_id, first, counts = xp.unique(nodes, return_index=True, return_counts=True)
        group = repeat_counts(xp, xp.arange(n_id.shape[0], dtype=np.int64), counts)
        pos = xp.arange(nodes.shape[0], dtype=np.int64)
        # PyG writes entry p to slot p % size of its node's row: the last `size` of a
        # node's entries survive, each in slot p % size
        keep = pos - first[group] >= counts[group] - size
        slot = group[keep] * size + pos[keep] % size
        dense_e = xp.full(n_id.shape[0] * size, -1, dtype=np.int64)
        dense_e[slot] = e_id[keep]
        dense_n = xp.zeros(n_id.shape[0] * size, dtype=np.int64)
        dense_n[slot] = neighbors[keep]
        all_e = xp.concatenate([self.e_id[n_id], dense_e.reshape(-1, size)], axis=1)
        all_n = xp.concatenate([self.neighbors[n_id], dense_n.reshape(-1, size)], axis=1)
        order = xp.argsort(-all_e, axis=1, kind="stable")[:, :size]
        self.e_id[n_id] = xp.take_along_axis(all_e, order, axis=1)
        self.neighbors[n_id] = xp.take_along_axis(all_n, order, axis=1)

    def __repr__(self) -> str:
        return f"LastNeighborLoader(num_nodes={self.num_nodes}, size={self.size})"


# ---------------------------------------------------------------- conversion
def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``TGNMemory`` with its weights and its state: memory, ``last_update``,
    both message stores and the training flag. Message module: ``IdentityMessage``;
    aggregator: ``LastAggregator`` or ``MeanAggregator``. Those parts and ``TimeEncoder``
    (which PyG's TGN example shares with its embedding module) convert on their own too."""
    from arraygnn.nn.weights import _dtype_of, _load

    part = type(module).__name__
    if part == "TimeEncoder":
        layer = TimeEncoder(module.out_channels, dtype=_dtype_of(module))
        return _load(layer, module, "pyg")
    if part == "IdentityMessage":  # PyG keeps only the sum of the three widths
        return IdentityMessage(module.out_channels, 0, 0)
    if part == "LastAggregator":
        return LastAggregator()
    if part == "MeanAggregator":
        return MeanAggregator()
    dtype = _dtype_of(module)
    kind = type(module.msg_s_module).__name__
    if kind != "IdentityMessage":
        raise ValueError(f"from_pyg: TGNMemory with message module {kind} is not supported")
    aggr_kind = type(module.aggr_module).__name__
    aggregators = {"LastAggregator": LastAggregator, "MeanAggregator": MeanAggregator}
    if aggr_kind not in aggregators:
        raise ValueError(f"from_pyg: TGNMemory with aggregator {aggr_kind} is not supported")
    layer = TGNMemory(
        module.num_nodes,
        module.raw_msg_dim,
        module.memory_dim,
        module.time_dim,
        IdentityMessage(module.raw_msg_dim, module.memory_dim, module.time_dim),
        aggregators[aggr_kind](),
        dtype=dtype,
    )
    layer.load_state_dict(module.state_dict(), format="pyg")
    layer.training = bool(module.training)
    for store, pyg_store in (
        (layer._s_store, module.msg_s_store),
        (layer._d_store, module.msg_d_store),
    ):
        entries = [pyg_store[j] for j in range(module.num_nodes) if pyg_store[j][0].numel()]
        if not entries:
            continue
        parts = [np.concatenate([e[k].detach().cpu().numpy() for e in entries]) for k in range(4)]
        store.key = parts[0].astype(np.int64)
        store.other = parts[1].astype(np.int64)
        store.t = parts[2] if parts[2].dtype.kind == "f" else parts[2].astype(np.int64)
        store.msg = parts[3].astype(dtype).reshape(-1, module.raw_msg_dim)
        store.size = store.key.shape[0]
        counts = np.array([e[0].numel() for e in entries], dtype=np.int64)
        keys = np.array([int(e[0][0]) for e in entries], dtype=np.int64)
        store.start[keys] = np.cumsum(counts) - counts
        store.count[keys] = counts
    return layer
