"""PyG's ``RENet`` (history ``pre_transform``, forward, ``test``) and ``GNNFF`` against
torch_geometric 2.8.1, weights through ``from_pyg``.

RENet: one random stream of temporal events (several per time step, gaps in ``t``,
repeated entities, events without history) goes through both history builders, then
batches of it (``follow_batch=['h_sub', 'h_obj']``, int32 and int64 ids) through both
models in float32 and float64. GNNFF: PyG's ``radius_graph`` needs torch_cluster and its
``triplets`` torch_sparse, so as in ``test_dimenet.py`` both are swapped for arraygnn's
``radius_graph`` and a brute-force torch ``triplets``; molecules with an atom without
neighbours, one structure without ``batch``, and a structure without edges.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import rel_err

import arraygnn.nn as agnn
from arraygnn.batch import Batch
from arraygnn.data import Data

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from torch_geometric.data import Batch as PygBatch  # noqa: E402
from torch_geometric.data import Data as PygData  # noqa: E402
from torch_geometric.nn import RENet as PygRENet  # noqa: E402

DTYPES = [(torch.float32, np.float32, 1e-5), (torch.float64, np.float64, 1e-12)]
N_ENT, N_REL, SEQ = 9, 3, 3
HIST = ("h_sub", "h_sub_t", "h_obj", "h_obj_t")


def _events(seed=0, count=80):
    gen = np.random.default_rng(seed)
    t = np.sort(gen.choice([0, 1, 2, 4, 5, 9, 10, 11, 15], count))
    return np.stack(
        [gen.integers(0, N_ENT, count), gen.integers(0, N_REL, count),
         gen.integers(0, N_ENT, count), t], axis=1,
    )  # fmt: skip


@pytest.fixture(scope="module")
def histories():
    """The event stream through PyG's and arraygnn's ``pre_transform``."""
    pyg_tf, ours_tf = PygRENet.pre_transform(SEQ), agnn.RENet.pre_transform(SEQ)
    pyg, ours = [], []
    for s, r, o, t in _events():
        pyg.append(
            pyg_tf(PygData(sub=torch.tensor(s), rel=torch.tensor(r), obj=torch.tensor(o),
                           t=torch.tensor(t)))
        )  # fmt: skip
        event = Data(sub=np.int64(s), rel=np.int64(r), obj=np.int64(o), t=np.int64(t))
        ours.append(ours_tf(event))
        assert "h_sub" not in event  # the event passed in is left alone
    return pyg, ours


def test_pre_transform_matches_pyg(histories):
    pyg, ours = histories
    assert sum(len(d.h_sub) for d in ours) > 20  # histories are not all empty
    assert any(len(d.h_sub) == 0 for d in ours)
    for p, o in zip(pyg, ours):
        for key in HIST:
            assert o[key].dtype == np.int64
            np.testing.assert_array_equal(o[key], p[key].numpy(), err_msg=key)


def _model(tdt, num_layers=1, bias=True, seed=0):
    torch.manual_seed(seed)
    model = PygRENet(N_ENT, N_REL, 5, SEQ, num_layers=num_layers, bias=bias, dropout=0.3)
    return model.to(tdt).eval()


@pytest.mark.parametrize("tdt, dtype, tol", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
def test_renet_forward_matches_pyg(histories, tdt, dtype, tol, bias):
    pyg, ours = histories
    ref = _model(tdt, bias=bias)
    model = agnn.from_pyg(ref)
    assert isinstance(model, agnn.RENet) and model.dropout == 0.3
    assert sorted(model.state_dict()) == sorted(ref.state_dict())
    for lo, hi in [(0, 4), (30, 55), (79, 80)]:  # early (little history), middle, one event
        p_batch = PygBatch.from_data_list(pyg[lo:hi], follow_batch=["h_sub", "h_obj"])
        o_batch = Batch.from_data_list(ours[lo:hi], follow_batch=["h_sub", "h_obj"])
        expected = [a.detach().numpy() for a in ref(p_batch)]
        for index_dtype in (np.int32, np.int64):
            for key in ("sub", "rel", "obj") + HIST + ("h_sub_batch", "h_obj_batch"):
                o_batch[key] = o_batch[key].astype(index_dtype)
            got = model(o_batch)
            for a, b in zip(got, expected):
                assert a.dtype == dtype and rel_err(a, b) < tol


def test_renet_test_metrics_match_pyg():
    gen = np.random.default_rng(1)
    logits = gen.standard_normal((40, 25)).astype(np.float32)
    for y in (gen.integers(0, 25, 40), np.concatenate([gen.integers(0, 25, 39), [30]])):
        expected = PygRENet.test(None, torch.from_numpy(logits), torch.from_numpy(y)).numpy()
        got = agnn.RENet.test(logits, y.astype(np.int32))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_renet_errors(histories):
    pyg, ours = histories
    picked = [k for k, d in enumerate(ours) if len(d.h_sub)][:4]  # events with a history
    pyg, ours = [pyg[k] for k in picked], [ours[k] for k in picked]
    ref = _model(torch.float32, num_layers=2)
    deep = agnn.from_pyg(ref)  # the weights of a 2-layer model load ...
    batch = Batch.from_data_list(ours, follow_batch=["h_sub", "h_obj"])
    with pytest.raises(RuntimeError):  # ... PyG's forward fails
        ref(PygBatch.from_data_list(pyg, follow_batch=["h_sub", "h_obj"]))
    with pytest.raises(ValueError, match="RENet: the forward pass needs num_layers=1"):
        deep(batch)
    model = agnn.RENet(N_ENT, N_REL, 4, SEQ, rng=0)
    plain = Batch.from_data_list(ours)  # no follow_batch
    with pytest.raises(ValueError, match="RENet: data needs 'h_sub_batch'"):
        model(plain)
    bad = batch.copy()
    bad.sub = bad.sub + N_ENT
    with pytest.raises(ValueError, match="RENet: data.sub"):
        model(bad)
    bad = batch.copy()
    bad.rel = bad.rel[:2]
    with pytest.raises(ValueError, match="RENet: data.rel must have 4 entries"):
        model(bad)
    assert batch.h_sub.shape[0] > 0
    bad = batch.copy()
    bad.h_sub_t = bad.h_sub_t + SEQ
    with pytest.raises(ValueError, match="RENet: data.h_sub_t"):
        model(bad)
    with pytest.raises(ValueError, match="RENet.test: y must be"):
        model.test(np.zeros((3, 4)), np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="RENet.test: no events"):
        model.test(np.zeros((0, 4)), np.zeros(0, np.int64))
    tf = agnn.RENet.pre_transform(2)
    with pytest.raises(ValueError, match="RENet.pre_transform: the event needs 'obj'"):
        tf(Data(sub=1, rel=0, t=0))
    with pytest.raises(ValueError, match="RENet.pre_transform: 'sub' must be one integer"):
        tf(Data(sub=np.array([1, 2]), rel=0, obj=1, t=0))
    with pytest.raises(ValueError, match="seq_len"):
        agnn.RENet(3, 2, 4, 0)


# ------------------------------------------------------------------------------ GNNFF
@pytest.fixture(scope="module")
def gnnff_module():
    pytest.importorskip("sympy")
    import torch_geometric.nn.models.gnnff as gnnff
    from test_dimenet import torch_radius_graph, torch_triplets

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gnnff, "radius_graph", torch_radius_graph)
        mp.setattr(gnnff, "triplets", torch_triplets)
        torch.manual_seed(0)
        model = gnnff.GNNFF(8, 6, 2, cutoff=3.0, max_num_neighbors=5)
        with torch.no_grad():
            for p in model.parameters():
                p += 0.1 * torch.randn_like(p)
            for m in model.modules():  # running statistics away from (0, 1)
                if isinstance(m, torch.nn.BatchNorm1d):
                    m.running_mean.normal_()
                    m.running_var.uniform_(0.5, 2.0)
        yield model.eval()


def _run(module, *args):
    return module(*(None if a is None else torch.from_numpy(a) for a in args)).detach().numpy()


@pytest.mark.parametrize("tdt, dtype, tol", DTYPES)
def test_gnnff_matches_pyg(gnnff_module, tdt, dtype, tol):
    from test_dimenet import _molecules

    ref = gnnff_module.to(tdt)
    model = agnn.from_pyg(ref)
    assert isinstance(model, agnn.GNNFF)
    assert sorted(model.state_dict()) == sorted(
        k for k in ref.state_dict() if "num_batches" not in k
    )
    gen = np.random.default_rng(2)
    z, pos, batch = _molecules(gen, [5, 4, 3], dtype)
    expected = _run(ref, z, pos, batch)
    for index_dtype in (np.int32, np.int64):
        got = model(z.astype(index_dtype), pos, batch.astype(index_dtype), batch_size=3)
        assert got.dtype == dtype and got.shape == (12, 3) and rel_err(got, expected) < tol
    # one structure whose last atom is far away (_molecules): PyG stops at the last atom
    # with edges (a scatter without dim_size); ours gives every atom a row, 0 for the far one
    z1, pos1, _ = _molecules(gen, [6], dtype)
    expected = _run(ref, z1, pos1)
    got = model(z1, pos1)
    assert expected.shape == (5, 3) and got.shape == (6, 3)
    assert rel_err(got[:5], expected) < tol and not got[5].any()
    # no edges at all: PyG (0, 3), ours one zero row per atom
    far = np.arange(9, dtype=dtype).reshape(3, 3) * 10
    expected = _run(ref, z1[:3], far)
    assert expected.shape == (0, 3)
    got = model(z1[:3], far)
    assert got.shape == (3, 3) and not got.any()


def test_gnnff_errors():
    model = agnn.GNNFF(4, 3, 1, rng=0)
    pos = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="GNNFF: z"):
        model(np.array([1, 95]), pos)
    with pytest.raises(ValueError, match=r"GNNFF: pos must have shape \(2, 3\)"):
        model(np.array([1, 2]), pos[:, :2])
    with pytest.raises(TypeError, match="GNNFF: pos must be float32"):
        model(np.array([1, 2]), pos.astype(np.float64))
    with pytest.raises(ValueError, match="GNNFF: without batch"):
        model(np.array([1, 2]), pos, batch_size=2)
    with pytest.raises(ValueError, match="hidden_edge_channels"):
        agnn.GNNFF(4, 1, 1)
