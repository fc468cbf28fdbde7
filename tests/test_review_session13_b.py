"""Review of session 13's parity sweeps (PyG temporal, PyG loaders 2, DGL module
transforms, TF-GNN readout API, DGL face misc): the gaps the sweeps' own fixes left."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import TemporalData, TemporalDataLoader
from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet
from arraygnn.nn import IdentityMessage, MeanAggregator, TGNMemory
from arraygnn.pipeline import add_readout_from_first_node, structured_readout


# ---------------------------------------------------------------- TemporalData split
@pytest.mark.parametrize("ratios", [(0.07, 0.93), (0.33, 0.67), (0.0, 1.0)])
def test_split_ratios_summing_to_one_in_floats_do_not_crash(ratios):
    # 1 - 0.07 - 0.93 is -1.1e-16 in floats: numpy.quantile refused it ("Quantiles must
    # be in the range [0, 1]") though the ratio check accepts the pair; PyG raises the
    # same numpy error. Clipped to 0, the split is the one of the exact ratios.
    events = TemporalData(src=np.arange(10), dst=np.arange(10), t=np.repeat([0, 1, 2, 3, 4], 2))
    train, val, test = events.train_val_test_split(*ratios)
    assert len(train) == 2  # the events at t <= quantile(0) = t.min(), as PyG's rule
    assert len(train) + len(val) + len(test) == 10


def test_split_ratio_errors_name_the_ratio():
    events = TemporalData(src=np.arange(3), dst=np.arange(3), t=np.arange(3))
    with pytest.raises(TypeError, match="train_val_test_split: test_ratio"):
        events.train_val_test_split(0.1, True)
    with pytest.raises(ValueError, match="train_val_test_split: val_ratio"):
        events.train_val_test_split(1.5, 0.0)


# ---------------------------------------------------------------- TemporalDataLoader seed
def test_loader_negative_seed_is_a_value_error():
    # it was a TypeError saying "seed must be None, an int or ..." for the int -1
    events = TemporalData(src=np.arange(3), dst=np.arange(3), t=np.arange(3))
    with pytest.raises(ValueError, match="TemporalDataLoader: seed must be .*non-negative"):
        TemporalDataLoader(events, 2, neg_sampling_ratio=1.0, seed=-1)
    with pytest.raises(TypeError, match="TemporalDataLoader: seed"):
        TemporalDataLoader(events, 2, neg_sampling_ratio=1.0, seed="x")


# ---------------------------------------------------------------- TGNMemory message check
class _ExtraRow(IdentityMessage):
    def __call__(self, z_src, z_dst, raw_msg, t_enc):
        out = super().__call__(z_src, z_dst, raw_msg, t_enc)
        return np.concatenate([out, out[:1]])


class _Flat(IdentityMessage):
    def __call__(self, z_src, z_dst, raw_msg, t_enc):
        return super().__call__(z_src, z_dst, raw_msg, t_enc).sum(-1)


@pytest.mark.parametrize(
    "module, shown", [(_ExtraRow, r"\[2, 10\] float32"), (_Flat, r"\[1\] float32")]
)
def test_message_module_of_the_wrong_shape_is_named(module, shown):
    # a row too many reached numpy's "could not broadcast" error; a 1-D message was
    # reported as "gave <rows> columns"
    mem = TGNMemory(4, 2, 3, 2, module(2, 3, 2), MeanAggregator(), rng=0)
    mem.update_state(np.array([0]), np.array([1]), np.array([1]), np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match=f"message_module gave .*{shown}.*\\[1, 10\\]"):
        mem(np.array([0]))


# ---------------------------------------------------------------- structured_readout
def _graph(readout_edge_sets):
    return GraphTensor.from_pieces(
        context=Context.from_fields(sizes=np.array([1])),
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([2]), features={"h": np.array([5.0, 7.0])}),
            "_readout": NodeSet.from_fields(sizes=np.array([1])),
        },
        edge_sets={
            name: EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.array([1])), target=("_readout", np.array([0]))
                ),
            )
            for name in readout_edge_sets
        },
    )


def test_a_key_tfgnn_does_not_parse_is_a_readable_key_and_value_error():
    # TF-GNN reads "_readout/a/b" as key "a" (suffix "/b"): key "a/b" is missing, a
    # KeyError; ours raised a bare KeyError (not the documented ValueError, message quoted)
    g = _graph(["_readout/a/b"])
    with pytest.raises(ValueError, match="Unknown readout keys") as err:
        structured_readout(g, "a/b", feature_name="h")
    assert isinstance(err.value, KeyError) and not str(err.value).startswith("'")
    assert structured_readout(g, "a", feature_name="h").tolist() == [7.0]


def test_readout_structures_arraygnn_builds_pass_the_whole_structure_check():
    # add_readout_from_first_node adds "_readout/<key>" edge sets; two keys side by side
    g = _graph(["_readout/seed"])
    g = add_readout_from_first_node(g, "first", node_set_name="a")
    assert structured_readout(g, "first", feature_name="h").tolist() == [5.0]
    assert structured_readout(g, "seed", feature_name="h").tolist() == [7.0]
