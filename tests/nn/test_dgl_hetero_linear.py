"""DGL's ``HeteroLinear`` (``DGLHeteroLinear``) and ``HeteroEmbedding``: NumPy formulas,
DGL's state-dict names (``linears.<str(type)>.*``, ``embeds.<str(type)>.weight``), ``from_dgl``
on stand-in torch modules with DGL's attributes (DGL does not install here), errors naming
the type."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.nn import DGLHeteroLinear
from arraygnn.nn.dgl_hetero_linear import dgl_type_key

FOLLOWS = ("user", "follows", "user")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias", [True, False])
def test_hetero_linear_matches_numpy(bias, dtype):
    rng = np.random.default_rng(0)
    lin = DGLHeteroLinear({"user": 3, FOLLOWS: 5, "item": 2}, 4, bias=bias, dtype=dtype, rng=1)
    sd = lin.state_dict(format="dgl")
    names = {f"linears.{t}.weight" for t in ("user", str(FOLLOWS), "item")}
    if bias:
        names |= {f"linears.{t}.bias" for t in ("user", str(FOLLOWS), "item")}
    assert set(sd) == names
    assert sd["linears.('user', 'follows', 'user').weight"].shape == (4, 5)
    feat = {
        FOLLOWS: rng.standard_normal((7, 5)).astype(dtype),
        "user": rng.standard_normal((2, 3)).astype(dtype),
    }
    out = lin(feat)
    assert list(out) == [FOLLOWS, "user"]  # the input's keys and order (DGL's)
    for typ, x in feat.items():
        name = str(typ)
        want = x @ sd[f"linears.{name}.weight"].T
        if bias:
            want = want + sd[f"linears.{name}.bias"]
        assert out[typ].dtype == dtype
        np.testing.assert_allclose(out[typ], want, rtol=1e-6)
    assert lin.in_size == {"user": 3, FOLLOWS: 5, "item": 2}
    assert lin({}) == {}
    # the string key reaches the same weights as the tuple (DGL looks up str(type))
    np.testing.assert_array_equal(lin({str(FOLLOWS): feat[FOLLOWS]})[str(FOLLOWS)], out[FOLLOWS])


def test_hetero_linear_loads_dgl_names():
    rng = np.random.default_rng(1)
    sd = {
        "linears.user.weight": rng.standard_normal((3, 2)),
        "linears.user.bias": rng.standard_normal(3),
        "linears.('user', 'follows', 'user').weight": rng.standard_normal((3, 4)),
        "linears.('user', 'follows', 'user').bias": rng.standard_normal(3),
    }
    lin = DGLHeteroLinear({"user": 2, FOLLOWS: 4}, 3).load_state_dict(sd, format="dgl")
    x = rng.standard_normal((5, 4)).astype(np.float32)
    want = (
        x @ sd["linears.('user', 'follows', 'user').weight"].T
        + sd["linears.('user', 'follows', 'user').bias"]
    )
    np.testing.assert_allclose(lin({FOLLOWS: x})[FOLLOWS], want, rtol=1e-5, atol=1e-6)
    with pytest.raises(KeyError, match="missing keys"):
        DGLHeteroLinear({"user": 2, "item": 4}, 3).load_state_dict(sd)
    with pytest.raises(ValueError, match="has shape"):
        DGLHeteroLinear({"user": 5, FOLLOWS: 4}, 3).load_state_dict(sd)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hetero_embedding_matches_numpy(dtype):
    emb = agnn.HeteroEmbedding({"user": 4, FOLLOWS: 6}, 3, dtype=dtype, rng=0)
    sd = emb.state_dict(format="dgl")
    assert set(sd) == {"embeds.user.weight", "embeds.('user', 'follows', 'user').weight"}
    assert emb.weight["user"] is sd["embeds.user.weight"]
    assert emb.weight[FOLLOWS].shape == (6, 3)
    for index_dtype in (np.int32, np.int64, np.uint8):
        ids = {FOLLOWS: np.array([[5, 0], [0, 2]], index_dtype), "user": np.array([3], index_dtype)}
        out = emb(ids)
        assert list(out) == [FOLLOWS, "user"]
        np.testing.assert_array_equal(
            out[FOLLOWS], sd["embeds.('user', 'follows', 'user').weight"][ids[FOLLOWS]]
        )
        assert out[FOLLOWS].shape == (2, 2, 3) and out[FOLLOWS].dtype == dtype
        np.testing.assert_array_equal(out["user"], sd["embeds.user.weight"][[3]])
    empty = emb({"user": np.zeros(0, np.int64)})["user"]
    assert empty.shape == (0, 3)
    # a DGL state dict loads by name
    fresh = agnn.HeteroEmbedding({"user": 4, FOLLOWS: 6}, 3, dtype=dtype).load_state_dict(sd)
    np.testing.assert_array_equal(fresh.weight[FOLLOWS], emb.weight[FOLLOWS])


def test_dgl_type_key():
    assert dgl_type_key(str(FOLLOWS)) == FOLLOWS
    assert dgl_type_key("user") == "user"
    assert dgl_type_key("(not a tuple") == "(not a tuple"
    assert dgl_type_key("(1, 2)") == "(1, 2)"


def test_errors_name_the_type():
    lin = DGLHeteroLinear({"user": 2, FOLLOWS: 4}, 3)
    with pytest.raises(ValueError, match=r"no weights for type 'item'; the layer has \['user', \("):
        lin({"item": np.ones((2, 2), np.float32)})
    with pytest.raises(
        ValueError, match=r"features of type \('user', 'follows', 'user'\): expected"
    ):
        lin({FOLLOWS: np.ones((2, 2), np.float32)})
    with pytest.raises(TypeError, match="feat must be a dict"):
        lin(np.ones((2, 2)))
    with pytest.raises(TypeError, match="a type must be a string or a tuple of strings, got 3"):
        DGLHeteroLinear({3: 2}, 3)
    with pytest.raises(ValueError, match=r"type 'a\.b' is empty or holds a '\.'"):
        DGLHeteroLinear({"a.b": 2}, 3)
    with pytest.raises(ValueError, match=r"in_size\['user'\] must be in"):
        DGLHeteroLinear({"user": -1}, 3)
    with pytest.raises(TypeError, match="in_size must be a dict"):
        DGLHeteroLinear([("user", 2)], 3)
    emb = agnn.HeteroEmbedding({"user": 4, FOLLOWS: 6}, 3)
    with pytest.raises(
        ValueError, match=r"ids of type 'user' has entry 4, out of range for size 4"
    ):
        emb({"user": np.array([0, 4])})
    with pytest.raises(
        ValueError, match=r"ids of type \('user', 'follows', 'user'\) has a negative"
    ):
        emb({FOLLOWS: np.array([-1])})
    with pytest.raises(TypeError, match="ids of type 'user' must be an integer array"):
        emb({"user": np.array([0.0])})
    with pytest.raises(TypeError, match="ids of type 'user' must be a NumPy or CuPy integer array"):
        emb({"user": [0, 1]})
    with pytest.raises(ValueError, match="no weights for type 'item'"):
        emb({"item": np.array([0])})
    with pytest.raises(ValueError, match=r"num_embeddings\['user'\] must be in"):
        agnn.HeteroEmbedding({"user": -2}, 3)


# ---- from_dgl on stand-in modules with DGL's attributes and names --------------------------


def _dgl_modules():
    """Torch modules with DGL's ``HeteroLinear`` / ``HeteroEmbedding`` attributes and names
    (``linears`` / ``embeds`` ModuleDicts keyed by ``str(type)``, ``raw_keys``)."""
    torch = pytest.importorskip("torch")

    class HeteroLinear(torch.nn.Module):
        def __init__(self, in_size, out_size, bias=True):
            super().__init__()
            self.linears = torch.nn.ModuleDict(
                {str(t): torch.nn.Linear(n, out_size, bias=bias) for t, n in in_size.items()}
            )

        def forward(self, feat):
            return {t: self.linears[str(t)](x) for t, x in feat.items()}

    class HeteroEmbedding(torch.nn.Module):
        def __init__(self, num_embeddings, embedding_dim):
            super().__init__()
            self.embeds = torch.nn.ModuleDict()
            self.raw_keys = {}
            for t, n in num_embeddings.items():
                self.embeds[str(t)] = torch.nn.Embedding(n, embedding_dim)
                self.raw_keys[str(t)] = t

        def forward(self, input_ids):
            return {t: self.embeds[str(t)](ids) for t, ids in input_ids.items()}

    return torch, HeteroLinear, HeteroEmbedding


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("double", [False, True])
def test_from_dgl_hetero_linear(bias, double):
    torch, HeteroLinear, _ = _dgl_modules()
    torch.manual_seed(0)
    ref = HeteroLinear({"user": 3, FOLLOWS: 5}, 4, bias=bias)
    ref = ref.double() if double else ref
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, DGLHeteroLinear)
    assert ours.in_size == {"user": 3, FOLLOWS: 5}  # the tuple back from DGL's str key
    dtype = np.float64 if double else np.float32
    rng = np.random.default_rng(0)
    feat = {
        FOLLOWS: rng.standard_normal((6, 5)).astype(dtype),
        "user": rng.standard_normal((2, 3)).astype(dtype),
    }
    with torch.no_grad():
        want = ref({t: torch.from_numpy(x) for t, x in feat.items()})
    got = ours(feat)
    for t in feat:
        assert got[t].dtype == dtype
        np.testing.assert_allclose(got[t], want[t].numpy(), rtol=1e-5 if not double else 1e-12)
    assert set(ours.state_dict(format="dgl")) == set(ref.state_dict())
    with pytest.raises(ValueError, match="HeteroLinear needs one output size"):
        agnn.from_dgl(HeteroLinear({}, 3))


def test_from_dgl_hetero_embedding():
    torch, _, HeteroEmbedding = _dgl_modules()
    torch.manual_seed(0)
    ref = HeteroEmbedding({"user": 4, FOLLOWS: 6}, 3)
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.HeteroEmbedding)
    ids = {FOLLOWS: np.array([5, 0, 5]), "user": np.array([[1, 2]])}
    with torch.no_grad():
        want = ref({t: torch.from_numpy(i) for t, i in ids.items()})
    got = ours(ids)
    for t in ids:
        np.testing.assert_array_equal(got[t], want[t].numpy())
    assert set(ours.weight) == {"user", FOLLOWS}
    assert set(ours.state_dict(format="dgl")) == set(ref.state_dict())
    with pytest.raises(ValueError, match="HeteroEmbedding with no types"):
        agnn.from_dgl(HeteroEmbedding({}, 3))
