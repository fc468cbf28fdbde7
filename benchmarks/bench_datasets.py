"""PyG's dataset classes against PyG 2.8.1 itself: a 10k-graph ``InMemoryDataset`` saved,
loaded from disk (a second instance reading the processed file), read graph by graph, and
batched by ``DataLoader``; ``OnDiskDataset`` (SQLite) ``extend`` and ``multi_get``. Best of
``--repeat`` runs, arraygnn and PyG alternating in the same run; the ratio is PyG's time
over ours.

    python benchmarks/bench_datasets.py              # 10,000 graphs of 10-40 nodes
    python benchmarks/bench_datasets.py --quick      # 1,000 graphs
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from arraygnn.data import Data  # noqa: E402
from arraygnn.datasets import InMemoryDataset, OnDiskDataset  # noqa: E402
from arraygnn.loader import DataLoader  # noqa: E402


def best(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> None:
    import torch
    import torch_geometric.data as pd
    from torch_geometric.loader import DataLoader as PygLoader

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    g = 1_000 if args.quick else 10_000
    rng = np.random.default_rng(0)
    sizes = rng.integers(10, 41, g)
    ours_list, pyg_list = [], []
    for n in sizes:
        x = rng.standard_normal((n, 16)).astype(np.float32)
        ei = rng.integers(0, n, (2, 2 * n))
        ea = rng.standard_normal((2 * n, 4)).astype(np.float32)
        y = int(rng.integers(0, 10))
        ours_list.append(Data(x=x, edge_index=ei, edge_attr=ea, y=y))
        t = torch.from_numpy
        pyg_list.append(pd.Data(x=t(x), edge_index=t(ei), edge_attr=t(ea), y=y))
    work = tempfile.mkdtemp()

    class Ours(InMemoryDataset):
        def __init__(self, root):
            super().__init__(root, log=False)
            self.load(self.processed_paths[0])

        @property
        def processed_file_names(self):
            return ["data.agnn"]

        def process(self):
            self.save(ours_list, self.processed_paths[0])

    class OursMapped(Ours):
        def __init__(self, root):
            InMemoryDataset.__init__(self, root, log=False)
            self.load(self.processed_paths[0], mmap=True)

    class Pyg(pd.InMemoryDataset):
        def __init__(self, root):
            super().__init__(root, log=False)
            self.load(self.processed_paths[0])

        @property
        def processed_file_names(self):
            return ["data.pt"]

        def process(self):
            self.save(pyg_list, self.processed_paths[0])

    ro, rp = os.path.join(work, "ours"), os.path.join(work, "pyg")
    rows = []

    def case(name, ours, theirs):
        a = best(ours, args.repeat)
        b = best(theirs, args.repeat)
        rows.append((name, a, b))
        print(
            f"{name:44s} arraygnn {a * 1e3:9.2f} ms   PyG {b * 1e3:9.2f} ms   "
            f"PyG/ours {b / a:6.2f}x"
        )

    def fresh(root, cls):
        def run():
            shutil.rmtree(root, ignore_errors=True)
            cls(root)

        return run

    case(f"process: collate + save {g} graphs", fresh(ro, Ours), fresh(rp, Pyg))
    sizes_on_disk = (
        os.path.getsize(os.path.join(ro, "processed", "data.agnn")),
        os.path.getsize(os.path.join(rp, "processed", "data.pt")),
    )
    case(f"load {g} graphs from disk (new instance)", lambda: Ours(ro), lambda: Pyg(rp))
    case(f"load {g} graphs, mmap=True (PyG: reads all)", lambda: OursMapped(ro), lambda: Pyg(rp))

    def load_and_sum(cls):
        def run():
            ds = cls(ro)
            float(ds._data.x.sum())  # touch every page of x

        return run

    a, b = best(load_and_sum(OursMapped), args.repeat), best(load_and_sum(Ours), args.repeat)
    print(f"{'load + one pass over x (arraygnn only)':44s} mmap {a * 1e3:9.2f} ms   "
          f"read {b * 1e3:9.2f} ms")  # fmt: skip
    do, dp = Ours(ro), Pyg(rp)

    def read_all(ds, fresh):
        def run():
            if fresh:
                ds._data_list = None  # PyG caches separated graphs: read them afresh
            for i in range(len(ds)):
                ds[i]

        return run

    case("ds[i] for every graph (PyG: first pass)", read_all(do, True), read_all(dp, True))
    case("ds[i] for every graph (PyG: cached)", read_all(do, False), read_all(dp, False))
    case(
        "DataLoader epoch, batch_size=128",
        lambda: [b for b in DataLoader(do, batch_size=128)],
        lambda: [b for b in PygLoader(dp, batch_size=128)],
    )
    case("copy() of every other graph", lambda: do.copy(slice(None, None, 2)),
         lambda: dp.copy(slice(None, None, 2)))  # fmt: skip

    m = min(g, 2_000)

    def on_disk(root, cls, items):
        def run():
            shutil.rmtree(root, ignore_errors=True)
            ds = cls(root)
            ds.extend(items)
            ds.close()

        return run

    case(
        f"OnDiskDataset.extend {m} graphs (SQLite)",
        on_disk(os.path.join(work, "od"), OnDiskDataset, ours_list[:m]),
        on_disk(os.path.join(work, "pd"), pd.OnDiskDataset, pyg_list[:m]),
    )
    od, pdd = OnDiskDataset(os.path.join(work, "od")), pd.OnDiskDataset(os.path.join(work, "pd"))
    ids = rng.permutation(m)[:256].tolist()
    case("OnDiskDataset.multi_get 256 random graphs", lambda: od.multi_get(ids),
         lambda: pdd.multi_get(ids))  # fmt: skip
    od.close()
    pdd.close()
    mb = [v / 1e6 for v in sizes_on_disk]
    print(f"processed file: arraygnn {mb[0]:.1f} MB, PyG {mb[1]:.1f} MB")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
