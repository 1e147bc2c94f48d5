"""Compiled code under the recording: `tf.function` traces and calls (traced.py), the in-graph checks of
their gradients (monitors.py), and the gradient calls that exist only in graphs (graph_functions.py)."""
