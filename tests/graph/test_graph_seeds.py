"""Every code example of the message-passing seeds (002, 003), run with NumPy arrays."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import NID, graph, heterograph
from arraygnn.sampling import sample_blocks


def _random_graph(n=10, e=40, seed=0):
    rng = np.random.default_rng(seed)
    return graph((rng.integers(0, n, e), rng.integers(0, n, e)), num_nodes=n), rng


def _sum_into(dst, values, n):
    out = np.zeros((n,) + values.shape[1:])
    np.add.at(out, dst, values)
    return out


def test_u_add_v_equals_its_message_udf():
    g, rng = _random_graph()
    g.ndata["hu"] = rng.normal(size=(10, 4))
    g.ndata["hv"] = rng.normal(size=(10, 4))
    g.apply_edges(fn.u_add_v("hu", "hv", "he"))
    built = g.edata["he"]

    def message_func(edges):
        return {"he": edges.src["hu"] + edges.dst["hv"]}

    g.apply_edges(message_func)
    src, dst = g.edges()
    np.testing.assert_allclose(built, g.edata["he"])
    np.testing.assert_allclose(built, g.ndata["hu"][src] + g.ndata["hv"][dst])


def test_sum_equals_its_reduce_udf():
    g, rng = _random_graph(seed=1)
    g.ndata["x"] = rng.normal(size=(10, 3))

    def reduce_func(nodes):
        return {"h": np.sum(nodes.mailbox["m"], axis=1)}

    g.update_all(fn.copy_u("x", "m"), fn.sum("m", "h"))
    built = g.ndata["h"]
    g.update_all(fn.copy_u("x", "m"), reduce_func)
    np.testing.assert_allclose(built, g.ndata["h"])


def test_graph_apply_edges_u_add_v_el_er():
    g, rng = _random_graph(seed=2)
    g.ndata["el"] = rng.normal(size=(10, 2, 1))
    g.ndata["er"] = rng.normal(size=(10, 2, 1))
    g.apply_edges(fn.u_add_v("el", "er", "e"))
    src, dst = g.edges()
    np.testing.assert_allclose(g.edata["e"], g.ndata["el"][src] + g.ndata["er"][dst])


def test_update_all_example_final_ft():
    g, rng = _random_graph(seed=3)
    ft = rng.normal(size=(10, 5))
    a = rng.uniform(size=(10 * 4, 1))
    g.ndata["ft"] = ft
    g.edata["a"] = a

    def updata_all_example(graph):
        graph.update_all(fn.u_mul_e("ft", "a", "m"), fn.sum("m", "ft"))
        final_ft = graph.ndata["ft"] * 2
        return final_ft

    final_ft = updata_all_example(g)
    src, dst = g.edges()
    # final_ft_i = 2 * sum_{j in N(i)} ft_j * a_ij
    np.testing.assert_allclose(final_ft, 2 * _sum_into(dst, ft[src] * a, 10))
    assert "m" not in g.edata  # the intermediate message is not kept


def test_split_linear_equals_concat_linear():
    g, rng = _random_graph(seed=4)
    d = 6
    feat = rng.normal(size=(10, d))
    g.ndata["feat"] = feat
    linear = rng.normal(size=(1, d * 2))
    # straightforward version: concatenate on edges, then multiply
    src, dst = g.edges()
    cat_feat = np.concatenate([feat[src], feat[dst]], axis=1)
    straightforward = cat_feat * linear
    # suggested version: W_l u + W_r v via u_add_v
    linear_src, linear_dst = linear[:, :d], linear[:, d:]
    out_src = g.ndata["feat"] * linear_src
    out_dst = g.ndata["feat"] * linear_dst
    g.srcdata.update({"out_src": out_src})
    g.dstdata.update({"out_dst": out_dst})
    g.apply_edges(fn.u_add_v("out_src", "out_dst", "out"))
    split = straightforward[:, :d] + straightforward[:, d:]
    np.testing.assert_allclose(g.edata["out"], split)


def test_update_on_part_of_the_graph_with_subgraph():
    g, rng = _random_graph(seed=5)
    g.ndata["x"] = rng.normal(size=(10, 2))
    nid = [0, 2, 3, 6, 7, 9]
    sg = g.subgraph(nid)

    def message_func(edges):
        return {"m": edges.src["x"]}

    def reduce_func(nodes):
        return {"h": nodes.mailbox["m"].sum(1)}

    def apply_node_func(nodes):
        return {"h": nodes.data["h"] + 1}

    sg.update_all(message_func, reduce_func, apply_node_func)
    src, dst = g.edges()
    keep = np.isin(src, nid) & np.isin(dst, nid)
    ref = _sum_into(dst[keep], g.ndata["x"][src[keep]], 10)[nid] + 1
    np.testing.assert_allclose(sg.ndata["h"], ref)
    np.testing.assert_array_equal(sg.ndata[NID], nid)


def test_edge_weight_affinity():
    g, rng = _random_graph(seed=6)
    affinity = rng.uniform(size=40)
    g.ndata["ft"] = rng.normal(size=(10, 3))
    ft = g.ndata["ft"]
    g.edata["a"] = affinity
    g.update_all(fn.u_mul_e("ft", "a", "m"), fn.sum("m", "ft"))
    src, dst = g.edges()
    np.testing.assert_allclose(g.ndata["ft"], _sum_into(dst, ft[src] * affinity[:, None], 10))


def _rgcn_graph(rng):
    return heterograph(
        {
            ("user", "follows", "user"): (rng.integers(0, 4, 8), rng.integers(0, 4, 8)),
            ("user", "plays", "game"): (rng.integers(0, 4, 6), rng.integers(0, 3, 6)),
            ("game", "played-by", "user"): (rng.integers(0, 3, 6), rng.integers(0, 4, 6)),
        },
        num_nodes_dict={"user": 4, "game": 3},
    )


@pytest.mark.parametrize("cross", ["sum", "mean", "max", "min", "stack"])
def test_rgcn_multi_update_all_loop_as_written(cross):
    rng = np.random.default_rng(7)
    G = _rgcn_graph(rng)
    feat_dict = {"user": rng.normal(size=(4, 5)), "game": rng.normal(size=(3, 5))}
    weight = {e: rng.normal(size=(5, 2)) for e in G.etypes}

    class Layer:
        def __init__(self):
            self.weight = {e: (lambda x, W=W: x @ W) for e, W in weight.items()}

        def forward(self, G, feat_dict):
            funcs = {}
            for c_etype in G.canonical_etypes:
                srctype, etype, dsttype = c_etype
                Wh = self.weight[etype](feat_dict[srctype])
                # Save it in graph for message passing
                G.nodes[srctype].data["Wh_%s" % etype] = Wh  # noqa: UP031 - as written
                funcs[etype] = (fn.copy_u("Wh_%s" % etype, "m"), fn.mean("m", "h"))  # noqa: UP031
            G.multi_update_all(funcs, cross)
            return {ntype: G.nodes[ntype].data["h"] for ntype in G.ntypes}

    out = Layer().forward(G, feat_dict)
    per_dst = {"user": [], "game": []}
    for s, e, d in G.canonical_etypes:
        src, dst = G.edges(etype=(s, e, d))
        n = G.num_nodes(d)
        summed = _sum_into(dst, feat_dict[s][src] @ weight[e], n)
        deg = np.bincount(dst, minlength=n)[:, None]
        per_dst[d].append(summed / np.maximum(deg, 1))
    for ntype, parts in per_dst.items():
        if cross == "stack":
            ref = np.stack(parts, axis=1)
        else:
            ref = getattr(np, cross)(np.stack(parts), axis=0)
        np.testing.assert_allclose(out[ntype], ref, err_msg=ntype)


def expand_as_pair(input_, g=None):
    """The seed's helper, as printed (with the missing else branches restored)."""
    if isinstance(input_, tuple):
        return input_
    elif g is not None and g.is_block:
        if isinstance(input_, dict):
            input_dst = {k: v[: g.number_of_dst_nodes(k)] for k, v in input_.items()}
        else:
            input_dst = input_[: g.number_of_dst_nodes()]
        return input_, input_dst
    else:
        return input_, input_


class SAGEConv:
    """The seed 003 forward(), NumPy arrays, weights as matrices."""

    def __init__(self, in_feats, out_feats, aggre_type, rng):
        self._aggre_type = aggre_type
        self.w_self = rng.normal(size=(in_feats, out_feats))
        self.w_neigh = rng.normal(size=(in_feats, out_feats))
        self.w_pool = rng.normal(size=(in_feats, in_feats))

    def forward(self, graph, feat):
        with graph.local_scope():
            feat_src, feat_dst = expand_as_pair(feat, graph)
            h_self = feat_dst
            if self._aggre_type == "mean":
                graph.srcdata["h"] = feat_src
                graph.update_all(fn.copy_u("h", "m"), fn.mean("m", "neigh"))
                h_neigh = graph.dstdata["neigh"]
            elif self._aggre_type == "gcn":
                graph.srcdata["h"] = feat_src
                graph.dstdata["h"] = feat_dst
                graph.update_all(fn.copy_u("h", "m"), fn.sum("m", "neigh"))
                degs = graph.in_degrees().astype(feat_dst.dtype)
                h_neigh = (graph.dstdata["neigh"] + graph.dstdata["h"]) / (degs[:, None] + 1)
            elif self._aggre_type == "max_pool":
                graph.srcdata["h"] = np.maximum(feat_src @ self.w_pool, 0)
                graph.update_all(fn.copy_u("h", "m"), fn.max("m", "neigh"))
                h_neigh = graph.dstdata["neigh"]
            else:
                raise KeyError(f"Aggregator type {self._aggre_type} not recognized.")
            if self._aggre_type == "gcn":
                rst = h_neigh @ self.w_neigh
            else:
                rst = h_self @ self.w_self + h_neigh @ self.w_neigh
            return rst


def _sage_reference(src, dst, feat_src, feat_dst, conv):
    n_dst = feat_dst.shape[0]
    deg = np.bincount(dst, minlength=n_dst)[:, None]
    if conv._aggre_type == "mean":
        neigh = _sum_into(dst, feat_src[src], n_dst) / np.maximum(deg, 1)
    elif conv._aggre_type == "gcn":
        neigh = (_sum_into(dst, feat_src[src], n_dst) + feat_dst) / (deg + 1)
        return neigh @ conv.w_neigh
    else:
        pooled = np.maximum(feat_src @ conv.w_pool, 0)
        neigh = np.zeros((n_dst, pooled.shape[1]))
        for v in range(n_dst):
            if (dst == v).any():
                neigh[v] = pooled[src[dst == v]].max(0)
    return feat_dst @ conv.w_self + neigh @ conv.w_neigh


@pytest.mark.parametrize("aggre", ["mean", "gcn", "max_pool"])
def test_sage_forward_on_homogeneous_bipartite_and_block(aggre):
    rng = np.random.default_rng(8)
    g, _ = _random_graph(n=12, e=50, seed=9)
    conv = SAGEConv(4, 3, aggre, rng)
    feat = rng.normal(size=(12, 4))
    src, dst = g.edges()
    # homogeneous whole graph
    np.testing.assert_allclose(conv.forward(g, feat), _sage_reference(src, dst, feat, feat, conv))
    assert "h" not in g.ndata  # local_scope dropped it
    # bipartite graph, features as a tuple
    bg = heterograph(
        {("a", "r", "b"): (rng.integers(0, 7, 20), rng.integers(0, 5, 20))},
        num_nodes_dict={"a": 7, "b": 5},
    )
    fs, fd = rng.normal(size=(7, 4)), rng.normal(size=(5, 4))
    bs, bd = bg.edges()
    np.testing.assert_allclose(conv.forward(bg, (fs, fd)), _sage_reference(bs, bd, fs, fd, conv))
    # mini-batch: sampled blocks, dst nodes first among src nodes
    input_nodes, output_nodes, blocks = sample_blocks(g, np.array([1, 5]), [3, 3], seed=0)
    h = feat[input_nodes]
    for block in blocks:
        bs, bd = block.edges()
        n_dst = block.number_of_dst_nodes()
        np.testing.assert_array_equal(block.srcdata[NID][:n_dst], block.dstdata[NID])
        ref = _sage_reference(bs, bd, h, h[:n_dst], conv)
        h_new = conv.forward(block, h)
        np.testing.assert_allclose(h_new, ref)
        h = np.pad(h_new, ((0, 0), (0, 1)))  # keep 4 input features for the next layer
    assert h.shape[0] == 2
