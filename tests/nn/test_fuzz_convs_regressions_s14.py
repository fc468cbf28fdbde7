"""Regressions from the s14 differential fuzz of PyG conv layers converted by ``from_pyg``.

Lazy ``in_channels=-1`` layers first run by PyG on a bipartite pair ``(x_src, x_dst)`` of
two widths size their source and destination ``Linear`` separately; ``from_pyg`` used to
build the arraygnn layer with the source width on both sides (a shape error on loading).
A lazy ``TransformerConv(root_weight=False)`` never sizes ``lin_skip``, and a lazy
``ResGatedGraphConv(edge_dim=1)`` sizes its ``Linear(-1 + 1)`` layers: both used to fail.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric.nn")

import arraygnn.nn as agnn  # noqa: E402

EI = np.array([[0, 1, 2, 2, 3], [1, 0, 2, 4, 1]], dtype=np.int64)
RNG = np.random.default_rng(0)
XS = RNG.standard_normal((4, 3)).astype(np.float32)
XD = RNG.standard_normal((5, 2)).astype(np.float32)
EA = RNG.standard_normal((5, 1)).astype(np.float32)

CASES = {
    "SAGEConv": (lambda: pyg.SAGEConv(-1, 4), ((XS, XD), EI)),
    "GraphConv": (lambda: pyg.GraphConv(-1, 4), ((XS, XD), EI)),
    "GATv2Conv": (lambda: pyg.GATv2Conv(-1, 4, heads=2, add_self_loops=False), ((XS, XD), EI)),
    "TransformerConv": (lambda: pyg.TransformerConv(-1, 4, heads=2), ((XS, XD), EI)),
    "GENConv": (lambda: pyg.GENConv(-1, 4, aggr="mean", norm="layer"), ((XS, XD), EI)),
    "GeneralConv": (lambda: pyg.GeneralConv(-1, 4, skip_linear=True), ((XS, XD), EI)),
    "LEConv": (lambda: pyg.LEConv(-1, 4), ((XS, XD), EI)),
    "MFConv": (lambda: pyg.MFConv(-1, 4), ((XS, XD), EI)),
    "FiLMConv": (lambda: pyg.FiLMConv(-1, 4), ((XS, XD), EI)),
    "TransformerConv_no_root": (
        lambda: pyg.TransformerConv(-1, 4, root_weight=False),
        (XS, EI[:, :4] % 4),
    ),
    "ResGatedGraphConv_edge_dim_1": (
        lambda: pyg.ResGatedGraphConv(-1, 4, edge_dim=1),
        ((XS, XD), EI, EA),
    ),
}


def _torch(a):
    return tuple(_torch(v) for v in a) if isinstance(a, tuple) else torch.from_numpy(a)


@pytest.mark.parametrize("name", sorted(CASES))
def test_lazy_pyg_layer_converts_after_a_run(name):
    make, args = CASES[name]
    torch.manual_seed(0)
    module = make().eval()
    with torch.no_grad():
        module(*_torch(args))  # sizes the lazy weights
        for key, p in module.named_parameters():
            if key.endswith("bias"):
                p.uniform_(-0.5, 0.5)
        expected = module(*_torch(args)).numpy()
    got = agnn.from_pyg(module)(*args)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
