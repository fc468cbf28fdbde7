"""DGL's GraphDataLoader passes torch DataLoader keywords on: num_workers / pin_memory are
accepted, generator / sampler / batch_sampler honoured (torch's order), unknown keywords and
use_ddp=True refused."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import GraphDataLoader, graph

DATA = [(graph((np.array([0]), np.array([1]))), i) for i in range(5)]


def _labels(loader):
    return [y.tolist() for _, y in loader]


def test_torch_keywords_are_accepted_and_samplers_honoured():
    loader = GraphDataLoader(DATA, batch_size=2, num_workers=2, pin_memory=True)
    assert loader.num_workers == 2 and len(loader) == 3
    assert _labels(loader) == [[0, 1], [2, 3], [4]]
    assert _labels(GraphDataLoader(DATA, batch_sampler=[[4, 0], [2]])) == [[4, 0], [2]]
    assert _labels(GraphDataLoader(DATA, batch_size=2, sampler=[3, 2, 1])) == [[3, 2], [1]]
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['bogus'\]"):
        GraphDataLoader(DATA, bogus=1)
    with pytest.raises(ValueError, match="use_ddp=True"):
        GraphDataLoader(DATA, use_ddp=True)
    with pytest.raises(ValueError, match="sampler is mutually exclusive with shuffle"):
        GraphDataLoader(DATA, sampler=[0], shuffle=True)


def test_torch_generator_gives_torchs_order():
    torch = pytest.importorskip("torch")
    ours = _labels(
        GraphDataLoader(
            DATA, batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(3)
        )
    )
    ref = torch.utils.data.DataLoader(
        list(range(5)), batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(3)
    )
    assert ours == [b.tolist() for b in ref]
