"""PyG's knowledge-graph embeddings (``torch_geometric.nn.kge``) and a few of PyG's newer
layers (RGATConv, HANConv, EdgePooling, SchNet) run with arraygnn, no torch needed.

1. Link scoring on a toy knowledge graph (300 entities, 4 relations): ``TransE``,
   ``DistMult`` and ``RotatE`` from ``arraygnn.nn.kge`` with random weights. No training
   here, so the graph's facts are read off each model's embeddings (a stand-in for a
   trained model): 90% of the facts have a tail among the model's top-3 for their (head,
   relation), the rest a random one. The script scores the facts against corrupted triples
   (the tail swapped for a random entity), runs ``model.test(...)`` (PyG's mean rank, MRR
   and hits@10; ranks from 0) on the facts and on random triples, and checks ``test``
   against ranks counted by hand from ``model(head, rel, tail)`` over every candidate tail.
   Where torch and PyG are installed, PyG's ``TransE`` / ``DistMult`` / ``RotatE`` are
   converted with ``arraygnn.nn.from_pyg`` and their scores and ``test`` metrics compared
   with PyG's.
2. Layers converted from PyG with ``from_pyg`` and checked against PyG (within 1e-5): a
   relational graph attention layer (``RGATConv``), a heterogeneous attention layer
   (``HANConv``), edge-contraction pooling (``EdgePooling``) and ``SchNet`` on random
   molecules. Without torch the same arraygnn layers are built with ``rng=`` seeds and run.

    python examples/pyg_kge_and_new_layers.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn.nn as nn
from arraygnn.nn.kge import DistMult, RotatE, TransE

ENTITIES, RELATIONS, DIM, FACTS = 300, 4, 16, 200


def _torch():
    """``(torch, torch_geometric.nn)``, or ``(None, None)`` where either is missing."""
    try:
        import torch
        import torch_geometric.nn as pyg_nn
    except ImportError:
        return None, None
    return torch, pyg_nn


def _rel_err(got, expected) -> float:
    return float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-12))


# ---- part 1: knowledge-graph embeddings ------------------------------------------------------


def all_tail_scores(model, head, rel):
    """``(len(head), ENTITIES)`` scores of every candidate tail, by the model's own call."""
    m = head.shape[0]
    tails = np.tile(np.arange(ENTITIES), m)
    return model(np.repeat(head, ENTITIES), np.repeat(rel, ENTITIES), tails).reshape(m, -1)


def ranks_by_hand(model, head, rel, tail):
    """Each true tail's rank among all entities (0 = best): scores above it, plus equal
    scores of lower entity ids (the order ``test`` uses)."""
    scores = all_tail_scores(model, head, rel)
    true = scores[np.arange(tail.shape[0]), tail][:, None]
    lower_id = np.arange(ENTITIES)[None, :] < tail[:, None]
    return (scores > true).sum(1) + ((scores == true) & lower_id).sum(1)


def toy_knowledge_graph(model, gen):
    """``FACTS`` triples: 90% with a tail among the model's top-3 for (head, relation), the
    rest with a random tail (facts the model gets wrong)."""
    head = gen.integers(0, ENTITIES, FACTS)
    rel = gen.integers(0, RELATIONS, FACTS)
    top3 = np.argsort(-all_tail_scores(model, head, rel), axis=1, kind="stable")[:, :3]
    tail = top3[np.arange(FACTS), gen.integers(0, 3, FACTS)]
    missed = gen.random(FACTS) < 0.1
    tail[missed] = gen.integers(0, ENTITIES, int(missed.sum()))
    return head, rel, tail


def check_test_metrics(model, head, rel, tail, k=10):
    """``model.test`` against ranks counted by hand; returns its metrics."""
    mean_rank, mrr, hits = model.test(head, rel, tail, batch_size=4_000, k=k)
    ranks = ranks_by_hand(model, head, rel, tail)
    assert np.isclose(mean_rank, ranks.mean(), rtol=1e-6), (mean_rank, ranks.mean())
    assert np.isclose(mrr, (1.0 / (ranks + 1)).mean(), rtol=1e-6), mrr
    assert hits == (ranks < k).mean(), hits
    return mean_rank, mrr, hits


def kge_link_scoring() -> None:
    models = {
        "TransE": TransE(ENTITIES, RELATIONS, DIM, p_norm=1.0, rng=0),
        "DistMult": DistMult(ENTITIES, RELATIONS, DIM, rng=1),
        "RotatE": RotatE(ENTITIES, RELATIONS, DIM, margin=2.0, rng=2),
    }
    for seed, (name, model) in enumerate(models.items()):
        gen = np.random.default_rng(10 + seed)
        head, rel, tail = toy_knowledge_graph(model, gen)
        true_scores = model(head, rel, tail)
        assert true_scores.shape == (FACTS,) and true_scores.dtype == np.float32
        # corrupt the tail: a random entity other than the true one
        corrupt = (tail + gen.integers(1, ENTITIES, FACTS)) % ENTITIES
        corrupt_scores = model(head, rel, corrupt)
        wins = float((true_scores > corrupt_scores).mean())
        facts = check_test_metrics(model, head, rel, tail)
        sizes = (ENTITIES, RELATIONS, ENTITIES)
        rand = check_test_metrics(model, *(gen.integers(0, n, FACTS) for n in sizes))
        print(
            f"{name:8s} facts beat corruptions {wins:.0%}; test on facts: mean rank "
            f"{facts[0]:.2f}, MRR {facts[1]:.3f}, hits@10 {facts[2]:.2f}; on random triples: "
            f"mean rank {rand[0]:.1f}, MRR {rand[1]:.3f}, hits@10 {rand[2]:.2f}"
        )
        # 90% of the facts' tails are beaten by at most two other entities
        assert wins >= 0.85 and facts[2] >= 0.85 and facts[1] >= 0.4, (wins, facts)
        assert rand[0] > 3 * facts[0] and rand[1] < 0.2 and rand[2] < 0.3, (facts, rand)
    kge_from_pyg()


def kge_from_pyg() -> None:
    torch, pyg_nn = _torch()
    if torch is None:
        print("torch / PyG not installed: skipped the PyG KGE comparison")
        return
    torch.manual_seed(0)
    refs = [
        pyg_nn.kge.TransE(ENTITIES, RELATIONS, DIM, p_norm=2.0),
        pyg_nn.kge.DistMult(ENTITIES, RELATIONS, DIM),
        pyg_nn.kge.RotatE(ENTITIES, RELATIONS, DIM, margin=2.0),
    ]
    gen = np.random.default_rng(20)
    for ref in refs:
        model = nn.from_pyg(ref)
        assert type(model).__name__ == type(ref).__name__
        head, rel, tail = toy_knowledge_graph(model, gen)
        th, tr, tt = (torch.from_numpy(a.astype(np.int64)) for a in (head, rel, tail))
        with torch.no_grad():
            expected = ref(th, tr, tt).numpy()
            want = ref.test(th, tr, tt, batch_size=4_000, k=10, log=False)
        err = _rel_err(model(head, rel, tail), expected)
        got = model.test(head, rel, tail, batch_size=4_000, k=10)
        print(
            f"PyG {type(ref).__name__:8s} converted: scores {err:.1e} relative; test "
            f"{tuple(round(v, 4) for v in got)} vs PyG {tuple(round(v, 4) for v in want)}"
        )
        assert err < 1e-5, err
        assert np.allclose(got[:2], want[:2], rtol=1e-5) and got[2] == want[2], (got, want)


# ---- part 2: newer layers converted from PyG ---------------------------------------------------


def rgat(gen) -> None:
    """Relational graph attention: 400 nodes, 3 relations, 2 heads, basis decomposition."""
    n, e, fin = 400, 2_000, 12
    x = gen.standard_normal((n, fin)).astype(np.float32)
    edge_index = gen.integers(0, n, (2, e))
    edge_type = gen.integers(0, 3, e)
    options = dict(num_relations=3, num_bases=2, heads=2)
    torch, pyg_nn = _torch()
    if torch is None:
        out = nn.RGATConv(fin, 8, **options, rng=0)(x, edge_index, edge_type)
        print(f"RGATConv without torch: {out.shape}")
        return
    torch.manual_seed(1)
    ref = pyg_nn.RGATConv(fin, 8, **options).eval()
    out, (_, alpha) = nn.from_pyg(ref)(x, edge_index, edge_type, return_attention_weights=True)
    with torch.no_grad():
        t_ei, t_et = (torch.from_numpy(a.astype(np.int64)) for a in (edge_index, edge_type))
        exp, (_, exp_alpha) = ref(torch.from_numpy(x), t_ei, t_et, return_attention_weights=True)
    err, err_alpha = _rel_err(out, exp.numpy()), _rel_err(alpha, exp_alpha.numpy())
    print(f"RGATConv {out.shape}: vs PyG output {err:.1e}, attention {err_alpha:.1e} relative")
    assert err < 1e-5 and err_alpha < 1e-5, (err, err_alpha)


def han(gen) -> None:
    """Heterogeneous attention (HAN) on papers / authors / institutions."""
    sizes = {"paper": 150, "author": 80, "inst": 10}
    feats = {"paper": 16, "author": 8, "inst": 4}
    edge_types = [
        ("author", "writes", "paper"),
        ("paper", "cites", "paper"),
        ("paper", "written_by", "author"),
        ("inst", "employs", "author"),
    ]
    metadata = (list(sizes), edge_types)
    x = {t: gen.standard_normal((n, feats[t])).astype(np.float32) for t, n in sizes.items()}
    ei = {
        (s, r, d): np.stack([gen.integers(0, sizes[s], 400), gen.integers(0, sizes[d], 400)])
        for s, r, d in edge_types
    }
    torch, pyg_nn = _torch()
    if torch is None:
        out = nn.HANConv(feats, 8, metadata, heads=2, rng=0)(x, ei)
        shapes = {t: None if v is None else v.shape for t, v in out.items()}
        print(f"HANConv without torch: {shapes}")
        return
    torch.manual_seed(2)
    ref = pyg_nn.HANConv(feats, 8, metadata, heads=2).eval()
    out, beta = nn.from_pyg(ref)(x, ei, return_semantic_attention_weights=True)
    with torch.no_grad():
        exp, exp_beta = ref(
            {t: torch.from_numpy(v) for t, v in x.items()},
            {k: torch.from_numpy(v.astype(np.int64)) for k, v in ei.items()},
            return_semantic_attention_weights=True,
        )
    assert out["inst"] is None and exp["inst"] is None  # no edge type points at institutions
    errs = [_rel_err(out[t], exp[t].numpy()) for t in ("paper", "author")]
    errs.append(_rel_err(beta["paper"], exp_beta["paper"].numpy()))
    print(
        f"HANConv paper {out['paper'].shape}, author {out['author'].shape}: vs PyG "
        f"{max(errs):.1e} relative (semantic weights for papers {beta['paper'].ravel().round(3)})"
    )
    assert max(errs) < 1e-5, errs


def edge_pooling(gen) -> None:
    """Edge-contraction pooling of a batch of 8 random graphs, then unpooling."""
    sizes = gen.integers(10, 30, 8)
    batch = np.repeat(np.arange(8), sizes)
    start = np.cumsum(sizes) - sizes
    src = np.concatenate([s + gen.integers(0, k, 3 * k) for s, k in zip(start, sizes)])
    dst = np.concatenate([s + gen.integers(0, k, 3 * k) for s, k in zip(start, sizes)])
    edge_index = np.stack([src, dst])
    x = gen.standard_normal((batch.shape[0], 6)).astype(np.float32)
    torch, pyg_nn = _torch()
    if torch is None:
        pool = nn.EdgePooling(6, rng=0)
    else:
        torch.manual_seed(3)
        ref = pyg_nn.EdgePooling(6).eval()
        pool = nn.from_pyg(ref)
    px, pei, pbatch, info = pool(x, edge_index, batch)
    back, _, _ = pool.unpool(px, info)
    assert px.shape[0] < x.shape[0] and back.shape == x.shape
    assert np.array_equal(np.bincount(pbatch, minlength=8) > 0, np.ones(8, bool))
    nodes, edges = (
        f"{x.shape[0]} nodes -> {px.shape[0]}",
        f"{edge_index.shape[1]} -> {pei.shape[1]}",
    )
    print(f"EdgePooling of 8 graphs: {nodes}, edges {edges}")
    if torch is None:
        print("torch / PyG not installed: EdgePooling built with rng=0")
        return
    with torch.no_grad():
        t_ei, t_b = (torch.from_numpy(a.astype(np.int64)) for a in (edge_index, batch))
        exp = ref(torch.from_numpy(x), t_ei, t_b)
    assert np.array_equal(info.cluster, exp[3].cluster.numpy())
    assert np.array_equal(pei, exp[1].numpy()) and np.array_equal(pbatch, exp[2].numpy())
    err = _rel_err(px, exp[0].numpy())
    print(f"EdgePooling vs PyG: same clusters and edges, features {err:.1e} relative")
    assert err < 1e-5, err


def schnet(gen) -> None:
    """SchNet energies of 6 random molecules (5-12 atoms, atomic numbers 1-9)."""
    sizes = gen.integers(5, 13, 6)
    batch = np.repeat(np.arange(6), sizes)
    z = gen.integers(1, 10, batch.shape[0])
    pos = (gen.standard_normal((batch.shape[0], 3)) * 1.2).astype(np.float32)
    options = dict(hidden_channels=32, num_filters=32, num_interactions=2, num_gaussians=20)
    options.update(cutoff=3.0, max_num_neighbors=32)
    torch, pyg_nn = _torch()
    if torch is None:
        out = nn.SchNet(**options, rng=0)(z, pos, batch, batch_size=6)
        print(f"SchNet without torch: energies {out.ravel().round(3)}")
        return
    from torch_geometric.nn.models import SchNet

    torch.manual_seed(4)
    ref = SchNet(**options).eval()
    model = nn.from_pyg(ref)
    out = model(z, pos, batch, batch_size=6)

    # PyG's radius graph needs torch-cluster or pyg-lib: give PyG every atom pair within
    # the cutoff in plain torch (the molecules are smaller than max_num_neighbors)
    def interaction_graph(t_pos, t_batch):
        dist = torch.cdist(t_pos, t_pos)
        same = t_batch[:, None] == t_batch[None, :]
        mask = same & (dist < options["cutoff"]) & ~torch.eye(len(t_pos), dtype=torch.bool)
        dst, src = mask.nonzero().t()
        return torch.stack([src, dst]), (t_pos[src] - t_pos[dst]).norm(dim=-1)

    del ref.interaction_graph  # a submodule: remove it before setting a plain function
    ref.interaction_graph = interaction_graph
    with torch.no_grad():
        exp = ref(torch.from_numpy(z), torch.from_numpy(pos), torch.from_numpy(batch)).numpy()
    err = _rel_err(out, exp)
    print(f"SchNet energies {out.ravel().round(3)}: vs PyG {err:.1e} relative")
    assert out.shape == (6, 1) and err < 1e-5, err


def main() -> None:
    t0 = time.perf_counter()
    kge_link_scoring()
    gen = np.random.default_rng(30)
    rgat(gen)
    han(gen)
    edge_pooling(gen)
    schnet(gen)
    print(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
