"""Input pipelines: feature mapping, readout and labels, dynamic batching and sharding.

Import the modules directly (``arraygnn.pipeline.map_features``, ``.readout``,
``.batching``); padding lives in :mod:`arraygnn.padding`, TFRecord / tf.Example reading in
:mod:`arraygnn.io.tfrecord` and :mod:`arraygnn.io.example`.
"""
