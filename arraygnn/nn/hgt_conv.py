"""The Heterogeneous Graph Transformer layer (Hu et al., 2020), PyG's ``HGTConv``.

Per node type, ``k, q, v = kqv_lin[type](x)`` (``heads`` heads of ``D = out / heads``). Per
edge type ``r = (s, rel, d)`` and head ``h``, the source keys and values pass through the
relation's own ``D x D`` matrices (``k_rel`` / ``v_rel``). Every target attends over all its
incoming edges, of every type together:

``alpha_e = softmax_{edges into i}((q_i . k'_j) * p_rel[r] / sqrt(D))``,
``o_i = sum_e alpha_e v'_j``, ``out_i = out_lin[type](gelu(o_i))``, mixed with ``x_i`` by
``sigmoid(skip[type])`` when the widths match.

How it runs: the relation transforms are one small batched product per (edge type, head)
over the *source nodes* (not per edge); all edge types then form one bipartite graph
(sources stacked by edge type, targets by node type) and the attention is three engine
ops on one CSR: an SDDMM ``dot`` for the scores, an edge softmax, a weighted SpMM. No
``[E, heads, D]`` message array is formed (PyG gathers ``k``, ``q`` and ``v`` per edge).

>>> import numpy as np
>>> meta = (["paper", "author"], [("author", "writes", "paper"), ("paper", "cites", "paper")])
>>> conv = HGTConv({"paper": 8, "author": 4}, 8, meta, heads=2, rng=0)
>>> x = {"paper": np.ones((3, 8), np.float32), "author": np.ones((2, 4), np.float32)}
>>> ei = {meta[1][0]: np.array([[0, 1], [2, 2]]), meta[1][1]: np.array([[0], [1]])}
>>> {t: v.shape for t, v in conv(x, ei).items()}
{'paper': (3, 8)}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._graph_input import check_metadata
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.hetero_linear import HeteroDictLinear, HeteroLinear
from arraygnn.nn.linear import _gelu, _rng, _sigmoid
from arraygnn.ops._common import check_index

__all__ = ["HGTConv"]


class _ArrayDict(Module):
    """Named single arrays (PyTorch's ``ParameterDict``): ``<key>`` -> array."""

    def __init__(self, items: Mapping[str, Any]) -> None:
        self._items = dict(items)

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return list(self._items.items())

    def _set_array(self, dotted: str, value: Any) -> None:
        self._items[dotted] = value

    def __getitem__(self, key: str) -> Any:
        return self._items[key]


def _edge_key(edge_type: tuple[str, str, str]) -> str:
    return "__".join(edge_type)


class HGTConv(Module):
    """PyG's ``HGTConv``: heterogeneous graph transformer attention over all edge types.

    Args:
        in_channels: one input size for every node type, or ``{node_type: size}``.
        out_channels: output size (divisible by ``heads``).
        metadata: ``(node_types, edge_types)``, edge types as ``(src, rel, dst)`` triples
            (PyG's ``data.metadata()``).
        heads: attention heads.

    Call as ``conv(x_dict, edge_index_dict)`` (``edge_index_dict[(s, rel, d)]`` ``[2, E]``,
    edge types from ``metadata``; a type left out adds no edges). Returns a dict with a
    result for every node type that is the target of some edge type in ``metadata``.

    Names (PyG): ``kqv_lin.lins.<type>.*``, ``out_lin.lins.<type>.*``, ``k_rel.weight`` /
    ``v_rel.weight`` ``(heads * num_edge_types, D, D)`` (row ``h * num_edge_types + r``),
    ``skip.<type>`` ``(1,)``, ``p_rel.<src__rel__dst>`` ``(1, heads)``.
    """

    _child_names = ("kqv_lin", "out_lin", "k_rel", "v_rel", "skip", "p_rel")

    def __init__(
        self,
        in_channels: int | Mapping[str, int],
        out_channels: int,
        metadata: tuple[Sequence[str], Sequence[tuple[str, str, str]]],
        heads: int = 1,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HGTConv"
        self.node_types, self.edge_types = check_metadata(layer, metadata)
        self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        self.heads = layer_size(layer, "heads", heads, minimum=1)
        if self.out_channels % self.heads:
            raise ValueError(
                f"{layer}: out_channels ({self.out_channels}) must be divisible by heads "
                f"({self.heads})"
            )
        if not isinstance(in_channels, Mapping):
            in_channels = {t: in_channels for t in self.node_types}
        gen = _rng(rng)
        f, h, d = self.out_channels, self.heads, self.out_channels // self.heads
        num_rel = len(self.edge_types)
        self.kqv_lin = HeteroDictLinear(dict(in_channels), 3 * f, dtype=dtype, rng=gen)
        self.out_lin = HeteroDictLinear(f, f, types=self.node_types, dtype=dtype, rng=gen)
        self.k_rel = HeteroLinear(d, d, max(h * num_rel, 1), bias=False, dtype=dtype, rng=gen)
        self.v_rel = HeteroLinear(d, d, max(h * num_rel, 1), bias=False, dtype=dtype, rng=gen)
        self.skip = _ArrayDict({t: np.ones(1, dtype) for t in self.node_types})
        self.p_rel = _ArrayDict({_edge_key(et): np.ones((1, h), dtype) for et in self.edge_types})
        self._rel_index = {et: i for i, et in enumerate(self.edge_types)}
        self._dst_types = {et[2] for et in self.edge_types}

    def __call__(self, x_dict: Mapping[str, Any], edge_index_dict: Mapping[Any, Any]) -> dict:
        from arraygnn import ops

        layer = "HGTConv"
        if not isinstance(x_dict, Mapping) or not isinstance(edge_index_dict, Mapping):
            raise TypeError(f"{layer}: call as conv(x_dict, edge_index_dict) with two dicts")
        f, h, d = self.out_channels, self.heads, self.out_channels // self.heads
        kqv = self.kqv_lin(x_dict)
        k_dict = {t: a[:, :f].reshape(-1, h, d) for t, a in kqv.items()}
        q_dict = {t: a[:, f : 2 * f].reshape(-1, h, d) for t, a in kqv.items()}
        v_dict = {t: a[:, 2 * f :].reshape(-1, h, d) for t, a in kqv.items()}
        xp = get_namespace(*kqv.values()) if kqv else np
        dst_offset, total_dst = {}, 0
        for t, q in q_dict.items():  # targets stacked by node type, in x_dict's order
            dst_offset[t] = total_dst
            total_dst += int(q.shape[0])
        srcs, dsts, keys, values, priors = [], [], [], [], []
        total_src = 0
        num_rel = len(self.edge_types)
        k_rel = self.k_rel.weight
        v_rel = self.v_rel.weight
        for et, ei in edge_index_dict.items():
            et = tuple(et)
            if et not in self._rel_index:
                raise ValueError(f"{layer}: edge type {et!r} is not in metadata")
            s, _, t = et
            if s not in k_dict or t not in q_dict:
                missing = s if s not in k_dict else t
                raise ValueError(f"{layer}: edge type {et!r} needs features of {missing!r}")
            if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2 or ei.dtype.kind not in "iu":
                raise ValueError(f"{layer}: edge_index_dict[{et!r}] must be an integer [2, E]")
            n_src = int(k_dict[s].shape[0])
            check_index(f"{layer}: edge_index_dict[{et!r}][0] (sources)", ei[0], n_src)
            check_index(
                f"{layer}: edge_index_dict[{et!r}][1] (targets)", ei[1], int(q_dict[t].shape[0])
            )
            rows = xp.asarray(np.arange(h) * num_rel + self._rel_index[et])  # (head, rel) rows
            # per head: [N, D] @ [D, D] over the source nodes, not the edges
            keys.append(xp.matmul(k_dict[s].transpose(1, 0, 2), k_rel[rows]).transpose(1, 0, 2))
            values.append(xp.matmul(v_dict[s].transpose(1, 0, 2), v_rel[rows]).transpose(1, 0, 2))
            srcs.append(xp.asarray(ei[0]).astype(np.int64) + total_src)
            dsts.append(xp.asarray(ei[1]).astype(np.int64) + dst_offset[t])
            prior = self.p_rel[_edge_key(et)].reshape(1, h)
            priors.append(xp.broadcast_to(prior, (int(ei.shape[1]), h)))
            total_src += n_src
        dtype = k_rel.dtype if not kqv else next(iter(kqv.values())).dtype
        if srcs:
            edges = ops.to_csr((xp.concatenate(srcs), xp.concatenate(dsts)), total_src, total_dst)
            k_src, v_src = xp.concatenate(keys), xp.concatenate(values)
            q_dst = xp.concatenate(list(q_dict.values()))
            scores = ops.sddmm(edges, k_src, q_dst, op="dot")[..., 0]  # [E, H], edge order
            scores = scores * xp.concatenate(priors) / np.sqrt(d).astype(scores.dtype)
            alpha = ops.edge_softmax(edges, scores)
            out = ops.spmm(edges, v_src, alpha, reduce="sum").reshape(total_dst, f)
        else:
            out = xp.zeros((total_dst, f), dtype=dtype)
        result = {}
        for t, start in dst_offset.items():
            if t not in self._dst_types:
                continue
            rows_t = out[start : start + int(q_dict[t].shape[0])]
            a = self.out_lin({t: _gelu(rows_t)})[t]
            x = x_dict[t]
            if a.shape[-1] == x.shape[-1]:
                gate = _sigmoid(self.skip[t])
                a = gate * a + (1 - gate) * x
            result[t] = a
        return result

    def extra_repr(self) -> str:
        return f"-1, {self.out_channels}, heads={self.heads}"
