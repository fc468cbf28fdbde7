"""Reading and writing graphs: GraphSchema text files (``arraygnn.io.schema``), TFRecord and
``tf.Example`` records (``arraygnn.io.tfrecord``, ``arraygnn.io.example``).

Import the submodules directly; this package imports nothing itself.
"""
