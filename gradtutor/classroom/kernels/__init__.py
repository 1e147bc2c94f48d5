"""The kernels nbgrader runs submissions in: forked warm from a process that has imported TensorFlow, and sandboxed."""
