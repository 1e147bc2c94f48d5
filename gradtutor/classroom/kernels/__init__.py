"""The kernels nbgrader runs submissions in: forked warm from a process that has imported TensorFlow, sandboxed, and
spared the demonstration cells no score needs."""
