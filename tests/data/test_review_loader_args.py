"""Review (session 9) of the torch DataLoader keywords: a ``torch.Generator`` gives torch's
epoch order also after an epoch broken off early (``next(iter(loader))``), and keeps giving
it after the loader is copied or pickled."""

import copy
import itertools
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arraygnn.data import Data  # noqa: E402
from arraygnn.loader import (  # noqa: E402
    DataLoader,
    LinkNeighborLoader,
    NeighborLoader,
    RandomNodeLoader,
    ShaDowKHopSampler,
)

N = 10


def _torch_epochs(count, takes, **kw):
    """torch's DataLoader over range(count): for each entry of ``takes`` an epoch of that
    many batches (None: the full epoch, the loop run to its end)."""
    loader = torch.utils.data.DataLoader(
        range(count), generator=torch.Generator().manual_seed(1), collate_fn=list, **kw
    )
    return [list(loader) if k is None else list(itertools.islice(loader, k)) for k in takes]


def _epochs(loader, takes, ids):
    out = []
    for k in takes:
        batches = loader if k is None else itertools.islice(loader, k)
        out.append([np.asarray(ids(b)).reshape(-1).tolist() for b in batches])
    return out


def _graphs():
    return [
        Data(x=np.ones((1, 1)), edge_index=np.zeros((2, 0), np.int64), y=np.array([i]))
        for i in range(N)
    ]


def _ring():
    ei = np.stack([np.arange(N), (np.arange(N) + 1) % N])
    return Data(x=np.arange(N, dtype=np.float32)[:, None], edge_index=ei, num_nodes=N)


TAKES = [(1, None, None), (3, None, 2, None), (2, None, None), (4, None, None), (5, 5, None)]
KWS = [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=5),
       dict(batch_size=5, drop_last=True)]  # fmt: skip


@pytest.mark.parametrize("kw", KWS)
@pytest.mark.parametrize("takes", TAKES)
def test_dataloader_torch_generator_broken_off_epochs(kw, takes):
    want = _torch_epochs(N, takes, shuffle=True, **kw)
    gen = torch.Generator().manual_seed(1)
    loader = DataLoader(_graphs(), shuffle=True, generator=gen, **kw)
    assert _epochs(loader, takes, lambda b: b.y) == want


@pytest.mark.parametrize("kw", KWS[:2])
def test_dataloader_prefetch_torch_generator_broken_off_epochs(kw):
    takes = (1, None, 2, None)
    want = _torch_epochs(N, takes, shuffle=True, **kw)
    gen = torch.Generator().manual_seed(1)
    loader = DataLoader(_graphs(), shuffle=True, generator=gen, num_workers=2, **kw)
    assert _epochs(loader, takes, lambda b: b.y) == want


@pytest.mark.parametrize("kw", KWS[:2])
def test_neighbor_loaders_torch_generator_broken_off_epochs(kw):
    takes = (1, None, 2, None)
    want = _torch_epochs(N, takes, shuffle=True, **kw)
    for make in (NeighborLoader, LinkNeighborLoader):
        gen = torch.Generator().manual_seed(1)
        loader = make(_ring(), num_neighbors=[1], shuffle=True, generator=gen, **kw)
        assert _epochs(loader, takes, lambda b: b.input_id) == want, make.__name__


def test_other_dataloaders_torch_generator_broken_off_epochs():
    takes = (1, None, None)
    want = _torch_epochs(N, takes, batch_size=4, shuffle=True)
    gen = torch.Generator().manual_seed(1)
    loader = ShaDowKHopSampler(_ring(), depth=1, num_neighbors=1, batch_size=4, shuffle=True,
                               generator=gen)  # fmt: skip
    assert _epochs(loader, takes, lambda b: b.x[b.root_n_id].astype(int)) == want
    want = _torch_epochs(N, takes, batch_size=5, shuffle=True)
    gen = torch.Generator().manual_seed(1)
    loader = RandomNodeLoader(_ring(), num_parts=2, shuffle=True, generator=gen)
    assert _epochs(loader, takes, lambda b: b.x.astype(int)) == want


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_torch_generator_order_survives_copy_and_pickle(how):
    takes = (None, None)
    want = _torch_epochs(N, takes, batch_size=3, shuffle=True)
    for loader, ids in [
        (DataLoader(_graphs(), batch_size=3, shuffle=True,
                    generator=torch.Generator().manual_seed(1)), lambda b: b.y),
        (NeighborLoader(_ring(), num_neighbors=[1], batch_size=3, shuffle=True,
                        generator=torch.Generator().manual_seed(1)), lambda b: b.input_id),
    ]:  # fmt: skip
        twin = copy.deepcopy(loader) if how == "deepcopy" else pickle.loads(pickle.dumps(loader))
        assert _epochs(twin, takes, ids) == want
        assert _epochs(loader, takes, ids) == want  # the original's stream is its own


def test_prefetch_thread_stops_when_a_torch_ordered_epoch_is_broken_off():
    import threading

    gen = torch.Generator().manual_seed(1)
    loader = DataLoader(_graphs(), batch_size=1, shuffle=True, generator=gen, num_workers=1)
    for _ in loader:
        break
    it = iter(loader)
    next(it)
    it.close()
    assert not [t for t in threading.enumerate() if t.name == "arraygnn-prefetch"]
