"""Input pipeline speed: TFRecord reading, tf.Example parsing, load -> pad -> hand-off.

Measures, in one run:
  1. raw records/s of TFRecord reading with CRC checks (ours) vs the ``tfrecord`` PyPI package
     (``tfrecord.reader.tfrecord_iterator``, no CRC check) when installed;
  2. tf.Example decoding records/s (our wire codec) vs ``protobuf``'s ``Example.ParseFromString``
     plus reading every value list into NumPy (the ``tfrecord`` package's ``example_pb2``) and
     vs the ``tfrecord`` package's own ``example_loader`` (file -> dict of NumPy arrays);
  3. graph records/s parsed into merged GraphTensors (``parse_example`` in batches);
  4. batches/s for the full pipeline: files -> parse -> pad -> hand-off (``jax.device_put`` when
     JAX is installed, else a NumPy dict).

Usage: ``python benchmarks/bench_pipeline.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet
from arraygnn.io._example_wire import decode_example
from arraygnn.io.example import parse_example, parse_single_example, write_example
from arraygnn.io.tfrecord import read_tfrecord, write_tfrecord
from arraygnn.padding import find_tight_size_constraints, pad_to_total_sizes
from arraygnn.pipeline.batching import GraphBatchLoader


def make_graph(rng: np.random.Generator) -> GraphTensor:
    """A molecule-sized heterogeneous graph: ~25 atoms, ~50 bonds, a ragged string feature."""
    n = int(rng.integers(10, 40))
    m = int(rng.integers(n, 2 * n))
    src = rng.integers(0, n, m)
    tgt = rng.integers(0, n, m)
    return GraphTensor.from_pieces(
        context=Context.from_fields(features={"label": np.array([int(rng.integers(0, 2))])}),
        node_sets={
            "atom": NodeSet.from_fields(
                sizes=np.array([n]),
                features={
                    "x": rng.standard_normal((n, 16)).astype(np.float32),
                    "z": rng.integers(1, 100, n),
                },
            )
        },
        edge_sets={
            "bond": EdgeSet.from_fields(
                sizes=np.array([m]),
                adjacency=Adjacency.from_indices(source=("atom", src), target=("atom", tgt)),
                features={"order": rng.integers(1, 4, m).astype(np.int32)},
            )
        },
    )


def timeit(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="CI-size inputs")
    args = ap.parse_args()
    n_graphs = 500 if args.quick else 20_000
    batch_size = 32
    rng = np.random.default_rng(0)
    graphs = [make_graph(rng) for _ in range(n_graphs)]
    spec = graphs[0].spec
    records = [write_example(g) for g in graphs]
    mb = sum(len(r) for r in records) / 1e6
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "graphs.tfrecord")
    write_tfrecord(path, records)
    print(f"{n_graphs} graphs, {mb:.1f} MB of tf.Example records, batch size {batch_size}")
    rows = []

    # 1. raw TFRecord reading
    t_ours = timeit(lambda: sum(1 for _ in read_tfrecord(path)))
    rows.append(("read records (CRC checked)", n_graphs / t_ours, None))
    t_nocrc = timeit(lambda: sum(1 for _ in read_tfrecord(path, verify=False)))
    rows.append(("read records (verify=False)", n_graphs / t_nocrc, None))
    try:
        from tfrecord import reader

        t_theirs = timeit(lambda: sum(1 for _ in reader.tfrecord_iterator(path)))
        rows.append(
            (
                "  tfrecord pkg tfrecord_iterator (no CRC), vs verify=False",
                n_graphs / t_theirs,
                t_theirs / t_nocrc,
            )
        )
    except ImportError:
        print("tfrecord package not installed: pip install tfrecord (comparison skipped)")

    # 2. Example decoding
    t_dec = timeit(lambda: [decode_example(r) for r in records])
    rows.append(("decode tf.Example -> NumPy (ours)", n_graphs / t_dec, None))
    try:
        from tfrecord.example_pb2 import Example

        def protobuf_decode():
            for r in records:
                ex = Example()
                ex.ParseFromString(r)
                for f in ex.features.feature.values():
                    kind = f.WhichOneof("kind")
                    if kind == "float_list":
                        np.asarray(f.float_list.value, np.float32)
                    elif kind == "int64_list":
                        np.asarray(f.int64_list.value, np.int64)
                    else:
                        list(f.bytes_list.value)

        t_pb = timeit(protobuf_decode)
        rows.append(("  protobuf ParseFromString + NumPy", n_graphs / t_pb, t_pb / t_dec))
        from tfrecord.reader import tfrecord_loader

        t_loader = timeit(lambda: sum(1 for _ in tfrecord_loader(path, None)))
        t_ours_file = timeit(lambda: [decode_example(r) for r in read_tfrecord(path)])
        rows.append(("file -> dict of arrays (ours)", n_graphs / t_ours_file, None))
        rows.append(("  tfrecord pkg tfrecord_loader", n_graphs / t_loader, t_loader / t_ours_file))
    except ImportError:
        pass

    # 3. graph parsing (warm up first: Numba kernels load from their cache on first use)
    parse_example(spec, records[:batch_size])
    parse_single_example(spec, records[0])
    t_single = timeit(lambda: [parse_single_example(spec, r) for r in records[:2000]], 1)
    rows.append(("parse_single_example -> GraphTensor", min(2000, n_graphs) / t_single, None))

    def batched():
        for s in range(0, n_graphs, batch_size):
            parse_example(spec, records[s : s + batch_size])

    t_batch = timeit(batched, 2)
    rows.append((f"parse_example, batches of {batch_size} (merged)", n_graphs / t_batch, None))

    # 4. load -> pad -> hand-off
    constraints = find_tight_size_constraints(graphs, target_batch_size=batch_size)
    try:
        import jax

        def hand_off(g, mask):
            arrays = [
                g.node_sets["atom"].features["x"],
                g.edge_sets["bond"].adjacency.source,
                g.edge_sets["bond"].adjacency.target,
                mask,
            ]
            jax.block_until_ready(jax.device_put(arrays))

        target = "jax.device_put"
    except ImportError:

        def hand_off(g, mask):
            return {"x": g.node_sets["atom"].features["x"], "mask": mask}

        target = "NumPy dict"

    def pipeline():
        n = 0
        for g, mask in GraphBatchLoader(path, batch_size, spec=spec, constraints=constraints):
            hand_off(g, mask)
            n += 1
        return n

    n_batches = -(-n_graphs // batch_size)
    t_pipe = timeit(pipeline, 2)
    rows.append((f"file -> parse -> pad -> {target} (batches/s)", n_batches / t_pipe, None))
    merged = parse_example(spec, records[:batch_size])
    t_pad = timeit(lambda: [pad_to_total_sizes(merged, constraints) for _ in range(200)])
    rows.append(("pad_to_total_sizes alone (batches/s)", 200 / t_pad, None))

    try:
        from arraygnn.batch import Batch
        from arraygnn.data import Data
        from arraygnn.padding import pad_batch

        data = [
            Data(
                x=g.node_sets["atom"].features["x"],
                edge_index=np.stack(
                    [g.edge_sets["bond"].adjacency.source, g.edge_sets["bond"].adjacency.target]
                ),
                y=g.context.features["label"],
                num_nodes=g.node_sets["atom"].total_size,
            )
            for g in graphs[:batch_size]
        ]
        pyg_batch = Batch.from_data_list(data)
        n_max = constraints.total_num_nodes["atom"]
        e_max = constraints.total_num_edges["bond"]
        t_pb = timeit(
            lambda: [
                pad_batch(
                    pyg_batch,
                    num_nodes=n_max,
                    num_edges=e_max,
                    num_graphs=batch_size + 1,
                    graph_keys=("y",),
                )
                for _ in range(200)
            ]
        )
        rows.append(("pad_batch (PyG-style Batch) alone (batches/s)", 200 / t_pb, None))
    except ImportError:
        pass

    print(f"{'measurement':55s} {'per second':>12s} {'ours x faster':>14s}")
    for name, rate, ratio in rows:
        r = f"{ratio:14.2f}" if ratio is not None else ""
        print(f"{name:55s} {rate:12.0f} {r}")


if __name__ == "__main__":
    main()
