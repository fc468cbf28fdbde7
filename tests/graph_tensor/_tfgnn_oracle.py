"""Plain NumPy transcriptions of TF-GNN's layer formulas (per-edge Python loops), and the
heterogeneous test graph of the layer tests. The formulas follow TF-GNN's sources:
keras/layers/convolutions.py (SimpleConv), models/gat_v2/layers.py (GATv2Conv),
models/gcn/gcn_conv.py (GCNConv); Keras Dense is ``act(x @ kernel + bias)``."""

from __future__ import annotations

import numpy as np

from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet


def hetero_graph(seed: int = 0, dtype=np.float64) -> GraphTensor:
    """Three components; node sets paper (some without in-edges), author (component 1 has
    none), venue (isolated: no edge set touches it); edge sets cites (paper -> paper),
    writes (author -> paper), reviews (paper -> author, no edges at all); context state."""
    rng = np.random.default_rng(seed)
    paper_sizes, author_sizes = np.array([3, 2, 1]), np.array([2, 0, 2])
    # cites: comp 0 papers 0..2, comp 1 papers 3..4, comp 2 paper 5
    cites_src = np.array([1, 2, 2, 0, 4])
    cites_tgt = np.array([0, 0, 1, 0, 3])
    cites_sizes = np.array([4, 1, 0])
    # writes: comp 0 authors 0..1 -> papers 0..2; comp 2 authors 2..3 -> paper 5
    writes_src = np.array([0, 0, 1, 2, 3])
    writes_tgt = np.array([0, 1, 1, 5, 5])
    writes_sizes = np.array([3, 0, 2])
    f = lambda *shape: rng.standard_normal(shape).astype(dtype)  # noqa: E731
    return GraphTensor.from_pieces(
        context=Context.from_fields(features={"hidden_state": f(3, 2)}),
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=paper_sizes, features={"hidden_state": f(6, 4), "year": f(6, 1)}
            ),
            "author": NodeSet.from_fields(sizes=author_sizes, features={"hidden_state": f(4, 3)}),
            "venue": NodeSet.from_fields(
                sizes=np.array([1, 1, 1]), features={"hidden_state": f(3, 2)}
            ),
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=cites_sizes,
                adjacency=Adjacency.from_indices(("paper", cites_src), ("paper", cites_tgt)),
                features={
                    "hidden_state": f(5, 2),
                    "weight": np.abs(f(5)) + 0.1,
                },
            ),
            "writes": EdgeSet.from_fields(
                sizes=writes_sizes,
                adjacency=Adjacency.from_indices(("author", writes_src), ("paper", writes_tgt)),
                features={"hidden_state": f(5, 2)},
            ),
            "reviews": EdgeSet.from_fields(
                sizes=np.array([0, 0, 0]),
                adjacency=Adjacency.from_indices(
                    ("paper", np.zeros(0, np.int64)), ("author", np.zeros(0, np.int64))
                ),
                features={"hidden_state": np.zeros((0, 2), dtype)},
            ),
        },
    )


def relu(x):
    return np.maximum(x, 0)


def leaky_relu(x, alpha=0.2):
    return np.where(x > 0, x, alpha * x)


def keras_dense(x, kernel, bias=None, act=None):
    y = x @ kernel
    if bias is not None:
        y = y + bias
    return y if act is None else act(y)


def pool_loop(values, receivers, n, reduce_type):
    """TF-GNN pooling, one receiver at a time: empty neighbourhoods give 0."""
    parts = []
    for r in reduce_type.split("|"):
        out = np.zeros((n, *values.shape[1:]), dtype=values.dtype)
        for i in range(n):
            rows = [values[e] for e in range(len(receivers)) if receivers[e] == i]
            if not rows:
                continue
            stack = np.stack(rows)
            if r == "sum":
                out[i] = stack.sum(0)
            elif r == "mean":
                out[i] = stack.mean(0)
            elif r in ("max", "max_no_inf"):
                out[i] = stack.max(0)
            elif r in ("min", "min_no_inf"):
                out[i] = stack.min(0)
            else:
                raise ValueError(r)
        if r == "max_no_inf":
            out[np.isneginf(out)] = 0
        parts.append(out)
    return np.concatenate(parts, axis=-1) if len(parts) > 1 else parts[0]


def simple_conv(x_snd, x_rcv, edge, snd_idx, rcv_idx, n_rcv, message, reduce_type):
    """SimpleConv: message([edge, sender, receiver]) per edge, pooled at the receiver."""
    msgs = []
    for e in range(len(snd_idx)):
        parts = []
        if edge is not None:
            parts.append(edge[e])
        if x_snd is not None:
            parts.append(x_snd[snd_idx[e]])
        if x_rcv is not None:
            parts.append(x_rcv[rcv_idx[e]])
        msgs.append(message(np.concatenate(parts)[None])[0])
    in_width = sum(a.shape[1] for a in (edge, x_snd, x_rcv) if a is not None)
    out_width = message(np.zeros((1, in_width))).shape[-1]
    msgs = np.stack(msgs) if msgs else np.zeros((0, out_width))
    return pool_loop(msgs, rcv_idx, n_rcv, reduce_type)


def gatv2(
    weights, x_rcv, x_snd, edge, snd_idx, rcv_idx, n_rcv, heads, chans, *, use_bias=True,
    merge="concat", act=relu, att_act=leaky_relu,
):  # fmt: skip
    """GATv2Conv from TF-GNN's formula, weights in Keras' get_weights() order."""
    w = list(weights)
    kq = w.pop(0)
    bq = w.pop(0) if use_bias else None
    kn = bn = ke = be = None
    if x_snd is not None:
        kn = w.pop(0)
        bn = w.pop(0) if use_bias else None
    if edge is not None:
        ke = w.pop(0)
        be = w.pop(0) if (use_bias and x_snd is None) else None
    ka = w.pop(0)
    assert not w
    out = np.zeros((n_rcv, heads, chans))
    for i in range(n_rcv):
        edges = [e for e in range(len(rcv_idx)) if rcv_idx[e] == i]
        if not edges:
            continue
        q = keras_dense(x_rcv[i], kq, bq).reshape(heads, chans)
        values, logits = [], []
        for e in edges:
            v = np.zeros(heads * chans)
            if kn is not None:
                v = v + keras_dense(x_snd[snd_idx[e]], kn, bn)
            if ke is not None:
                v = v + keras_dense(edge[e], ke, be)
            v = v.reshape(heads, chans)
            values.append(v)
            feat = att_act(q + v)
            logits.append(np.array([feat[h] @ ka[:, h] for h in range(heads)]))
        logits = np.stack(logits)
        alpha = np.exp(logits - logits.max(0))
        alpha = alpha / alpha.sum(0)
        for k, v in enumerate(values):
            out[i] += alpha[k][:, None] * v
    out = out.reshape(n_rcv, heads * chans) if merge == "concat" else out.mean(1)
    return act(out)


def gcn(kernel, bias, x, snd_idx, rcv_idx, weights, norm, self_loops, act=relu):
    """GCNConv from TF-GNN's formula, edge by edge."""
    n = x.shape[0]
    w = np.ones(len(snd_idx)) if weights is None else weights

    def degree(index):
        d = np.zeros(n)
        for e in range(len(index)):
            d[index[e]] += w[e]
        return d + 1 if self_loops else np.maximum(d, 1)

    d_in, d_out = degree(rcv_idx), degree(snd_idx)
    out = np.zeros_like(x)
    for e in range(len(snd_idx)):
        i, j = snd_idx[e], rcv_idx[e]
        c = {
            "none": 1.0,
            "in": 1 / d_in[j],
            "out": 1 / d_out[i],
            "in_out": 1 / np.sqrt(d_out[i] * d_in[j]),
            "in_in": 1 / np.sqrt(d_in[i] * d_in[j]),
        }[norm]
        out[j] += c * w[e] * x[i]
    if self_loops:
        for i in range(n):
            c = {
                "none": 1.0,
                "in": 1 / d_in[i],
                "out": 1 / d_out[i],
                "in_out": 1 / np.sqrt(d_out[i] * d_in[i]),
                "in_in": 1 / d_in[i],
            }[norm]
            out[i] += c * x[i]
    return act(keras_dense(out, kernel, bias))
